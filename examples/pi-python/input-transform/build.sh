#!/bin/sh
# Builds pi-input-transform-python.wasm with componentize-py (from the in-clone venv that
# scripts/install-sdk-toolchains creates, unless COMPONENTIZE_PY names another).
set -eu
cd "$(dirname "$0")"
COMPONENTIZE_PY=${COMPONENTIZE_PY:-../../../target/sdk-toolchains/venv/bin/componentize-py}
PYTHONDONTWRITEBYTECODE=1 "$COMPONENTIZE_PY" -d ../../../wit/plugin/v0.1.0 -w plugin-extended componentize app \
  -p src -p ../../../sdk/python -o pi-input-transform-python.wasm
echo "built pi-input-transform-python.wasm"
