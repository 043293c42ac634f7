#!/bin/sh
# Builds {{name}}.wasm: C bindings from wit/, a wasm32-wasi reactor module, then a component.
#   tack-c:  cargo install --path <tack>/sdk/c/tool   (or set TACK_C)
#   a C compiler for wasm32-wasi: zig (pip install ziglang; the default here) or clang with
#   wasi-libc (CC="clang --target=wasm32-wasi")
set -eu
cd "$(dirname "$0")"
TACK_C=${TACK_C:-tack-c}
CC=${CC:-python3 -m ziglang cc -target wasm32-wasi}
mkdir -p build
"$TACK_C" bindgen wit build/gen >/dev/null
$CC -mexec-model=reactor -O2 -s -Iinclude -Ibuild/gen src/*.c build/gen/plugin.c \
  build/gen/plugin_component_type.o -o build/core.wasm
"$TACK_C" componentize build/core.wasm {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
