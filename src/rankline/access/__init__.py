"""Access: the credentials callers present (server and read keys, player tokens), verified
and resolved to a caller (``rankline.callers``)."""
