#!/usr/bin/env bash
# Fetches axe-core (the accessibility checker the browser tests inject into every page) from
# the npm registry once, checks the tarball against the registry's published sha512, and
# keeps only axe.min.js in .venv/axe/.
set -euo pipefail
VERSION=4.14.1
INTEGRITY="FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
TARGET=.venv/axe/axe-core-$VERSION.min.js
if [ -f "$TARGET" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -fsSL --retry 2 -m 60 -o "$work/axe.tgz" "https://registry.npmjs.org/axe-core/-/axe-core-$VERSION.tgz"
got=$(openssl dgst -sha512 -binary "$work/axe.tgz" | base64 -w0)
if [ "$got" != "$INTEGRITY" ]; then
  echo "axe-core $VERSION: the tarball's sha512 is not the one the npm registry publishes" >&2
  exit 1
fi
tar -xzf "$work/axe.tgz" -C "$work" package/axe.min.js
mkdir -p "$(dirname "$TARGET")"
mv "$work/package/axe.min.js" "$TARGET"
echo "axe-core $VERSION ready: $TARGET"
