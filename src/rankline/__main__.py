from rankline.cli import main

main()
