#!/bin/sh
# Builds {{name}}.wasm with componentize-py (pip install -r requirements.txt, in a venv).
set -eu
cd "$(dirname "$0")"
COMPONENTIZE_PY=${COMPONENTIZE_PY:-componentize-py}
PYTHONDONTWRITEBYTECODE=1 "$COMPONENTIZE_PY" -d wit -w plugin componentize app -p src -o {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
