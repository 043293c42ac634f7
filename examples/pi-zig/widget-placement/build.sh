#!/bin/sh
# Builds pi-widget-placement-zig.wasm against tack:plugin@0.2.0 (its tack.toml says
# `api = "0.2"`): C bindings from both ../../../wit/plugin folders (0.2.0's `plugin` world
# includes 0.1.0's), the Zig SDK over them, zig (from the in-clone venv that
# scripts/install-sdk-toolchains creates) for the wasm32-wasi core module, then a component.
# TACK_C defaults to running sdk/c/tool through cargo; ZIG may name another zig.
set -eu
cd "$(dirname "$0")"
root=../../..
TACK_C=${TACK_C:-cargo run -q --manifest-path $root/Cargo.toml -p tack-c-tool --}
ZIG=${ZIG:-$root/target/sdk-toolchains/venv/bin/python -m ziglang}
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$PWD/$root/target/sdk-toolchains/zig-cache}
export ZIG_LOCAL_CACHE_DIR=${ZIG_LOCAL_CACHE_DIR:-$PWD/build/zig-cache}
mkdir -p build
$TACK_C bindgen $root/wit/plugin/v0.1.0 $root/wit/plugin/v0.2.0 build/gen >/dev/null
$ZIG translate-c -target wasm32-wasi -lc -I$root/sdk/c/include -Ibuild/gen \
  $root/sdk/c/include/tack.h >build/c.zig
$ZIG build-exe -target wasm32-wasi -O ReleaseSmall -fno-entry -mexec-model=reactor -lc \
  -I$root/sdk/c/include -Ibuild/gen \
  $root/sdk/c/src/tack_helpers.c $root/sdk/c/src/tack_defaults.c build/gen/plugin.c \
  build/gen/plugin_component_type.o \
  --dep tack -Mroot=src/plugin.zig --dep c -Mtack=$root/sdk/zig/tack.zig -Mc=build/c.zig \
  -femit-bin=build/core.wasm
$TACK_C componentize build/core.wasm pi-widget-placement-zig.wasm
echo "built pi-widget-placement-zig.wasm"
