#!/bin/sh
# Builds {{name}}.wasm with cargo and the wasm32-wasip2 target (rustup target add wasm32-wasip2).
set -eu
cd "$(dirname "$0")"
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -qx wasm32-wasip2; then
  echo "build.sh: the wasm32-wasip2 target is missing; run: rustup target add wasm32-wasip2" >&2
  exit 1
fi
cargo build --release --target wasm32-wasip2
cp "${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release/{{crate}}.wasm" {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
