#!/bin/sh
# Builds {{name}}.wasm: C bindings from wit/, a wasm32-wasi reactor module, then a component.
#   bindings and componentize: `tack plugin c-bindgen` / `tack plugin componentize` ($TACK or tack)
#   a C compiler for wasm32-wasi, the first found: $CC, zig (pip install ziglang works too), or
#   clang with wasi-libc (Debian: clang lld wasi-libc libclang-rt-dev-wasm32)
set -eu
cd "$(dirname "$0")"
TACK=${TACK:-tack}
if [ -z "${CC:-}" ]; then
  if command -v zig >/dev/null 2>&1; then
    CC="zig cc -target wasm32-wasi"
  elif python3 -c "import ziglang" >/dev/null 2>&1; then
    CC="python3 -m ziglang cc -target wasm32-wasi"
  elif command -v clang >/dev/null 2>&1; then
    CC="clang --target=wasm32-wasi"
  else
    echo "build.sh: no C compiler for wasm32-wasi; install zig (or pip install ziglang) or clang with wasi-libc" >&2
    exit 1
  fi
fi
mkdir -p build
"$TACK" plugin c-bindgen wit build/gen >/dev/null
$CC -mexec-model=reactor -O2 -s -Iinclude -Ibuild/gen src/*.c build/gen/plugin.c \
  build/gen/plugin_component_type.o -o build/core.wasm
"$TACK" plugin componentize build/core.wasm {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
