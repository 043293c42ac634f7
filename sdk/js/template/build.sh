#!/bin/sh
# Builds {{name}}.wasm with componentize-js (installed by `npm install` on first use).
set -eu
cd "$(dirname "$0")"
[ -d node_modules/@bytecodealliance/componentize-js ] || npm install --no-audit --no-fund
node build.js . {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
