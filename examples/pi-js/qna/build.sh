#!/bin/sh
# Builds pi-qna-js.wasm with the SDK's build script (componentize-js from sdk/js/node_modules:
# scripts/install-sdk-toolchains, or npm ci --prefix sdk/js).
set -eu
cd "$(dirname "$0")"
node ../../../sdk/js/bin/build.js . pi-qna-js.wasm
