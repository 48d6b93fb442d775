#!/bin/sh
# Refresh the Swagger UI files that /docs serves (src/rankline/static/swagger/) from the npm
# registry's swagger-ui-dist: the bundle, its stylesheet, and their licence and notices.
# Not run by the tests; run it (make swagger-ui) to move to a newer Swagger UI 5, then check
# /docs (tests/test_docs_page*.py) and the version named in NOTICE.
#
#   scripts/refresh-swagger-ui.sh [VERSION]      (default: the newest 5.x)
set -eu
version="${1:-5}"
target="$(cd "$(dirname "$0")/.." && pwd)/src/rankline/static/swagger"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "swagger-ui-dist@$version" > /dev/null && tar xzf swagger-ui-dist-*.tgz)
mkdir -p "$target"
for file in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE; do
    cp "$work/package/$file" "$target/$file"
done
node -p "require('$work/package/package.json').version" > "$target/VERSION"
echo "Swagger UI $(cat "$target/VERSION") in $target"
