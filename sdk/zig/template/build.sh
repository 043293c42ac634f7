#!/bin/sh
# Builds {{name}}.wasm: C bindings from wit/, the Zig SDK (src/tack.zig) over them, a wasm32-wasi
# reactor module, then a component.
#   bindings and componentize: `tack plugin c-bindgen` / `tack plugin componentize` ($TACK or tack)
#   zig: $ZIG, zig from PATH, or `python3 -m ziglang` (pip install ziglang)
set -eu
cd "$(dirname "$0")"
TACK=${TACK:-tack}
if [ -z "${ZIG:-}" ]; then
  if command -v zig >/dev/null 2>&1; then
    ZIG=zig
  elif python3 -c "import ziglang" >/dev/null 2>&1; then
    ZIG="python3 -m ziglang"
  else
    echo "build.sh: no zig; install it (https://ziglang.org/download, or pip install ziglang)" >&2
    exit 1
  fi
fi
# Zig's caches stay in build/ (left out of the package like the rest of it).
export ZIG_LOCAL_CACHE_DIR=${ZIG_LOCAL_CACHE_DIR:-build/zig-cache}
mkdir -p build
"$TACK" plugin c-bindgen wit build/gen >/dev/null
$ZIG translate-c -target wasm32-wasi -lc -Iinclude -Ibuild/gen include/tack.h >build/c.zig
$ZIG build-exe -target wasm32-wasi -O ReleaseSmall -fno-entry -mexec-model=reactor -lc \
  -Iinclude -Ibuild/gen src/tack_helpers.c src/tack_defaults.c build/gen/plugin.c \
  build/gen/plugin_component_type.o \
  --dep tack -Mroot=src/plugin.zig --dep c -Mtack=src/tack.zig -Mc=build/c.zig \
  -femit-bin=build/core.wasm
"$TACK" plugin componentize build/core.wasm {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
