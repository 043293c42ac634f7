#!/bin/sh
# Builds pi-session-name-c.wasm against tack:plugin@0.2.0 (its tack.toml says `api = "0.2"`): C
# bindings from both ../../../wit/plugin folders (0.2.0's `plugin` world includes 0.1.0's), zig
# (from the in-clone venv that scripts/install-sdk-toolchains creates) as the wasm32-wasi
# compiler, then a component. TACK_C defaults to running sdk/c/tool through cargo; CC may name
# another compiler.
set -eu
cd "$(dirname "$0")"
root=../../..
TACK_C=${TACK_C:-cargo run -q --manifest-path $root/Cargo.toml -p tack-c-tool --}
CC=${CC:-$root/target/sdk-toolchains/venv/bin/python -m ziglang cc -target wasm32-wasi}
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$PWD/$root/target/sdk-toolchains/zig-cache}
mkdir -p build
$TACK_C bindgen $root/wit/plugin/v0.1.0 $root/wit/plugin/v0.2.0 build/gen >/dev/null
$CC -mexec-model=reactor -O2 -s -I$root/sdk/c/include -Ibuild/gen src/*.c \
  $root/sdk/c/src/tack_helpers.c $root/sdk/c/src/tack_defaults.c build/gen/plugin.c \
  build/gen/plugin_component_type.o -o build/core.wasm
$TACK_C componentize build/core.wasm pi-session-name-c.wasm
echo "built pi-session-name-c.wasm"
