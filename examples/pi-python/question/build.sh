#!/bin/sh
# Builds pi-question-python.wasm with componentize-py (from the in-clone venv that
# scripts/install-sdk-toolchains creates, unless COMPONENTIZE_PY names another), against
# tack:plugin@0.2.0's plugin world (0.1.0's plugin-extended and every 0.2.0 addition).
set -eu
cd "$(dirname "$0")"
COMPONENTIZE_PY=${COMPONENTIZE_PY:-../../../target/sdk-toolchains/venv/bin/componentize-py}
WIT=../../../wit/plugin
PYTHONDONTWRITEBYTECODE=1 "$COMPONENTIZE_PY" -d "$WIT/v0.1.0" -d "$WIT/v0.2.0" \
  -w tack:plugin/plugin@0.2.0 componentize app -p src -p ../../../sdk/python -o pi-question-python.wasm
echo "built pi-question-python.wasm"
