#!/bin/sh
# Builds {{name}}.wasm with componentize-py: $COMPONENTIZE_PY if set, else componentize-py from
# PATH, else one in this folder's .venv (created from requirements.txt on first use; `tack install`
# leaves .venv out of the package).
set -eu
cd "$(dirname "$0")"
if [ -z "${COMPONENTIZE_PY:-}" ]; then
  if command -v componentize-py >/dev/null 2>&1; then
    COMPONENTIZE_PY=componentize-py
  else
    if [ ! -x .venv/bin/componentize-py ]; then
      echo "creating .venv with componentize-py (requirements.txt)"
      python3 -m venv .venv
      .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
    fi
    COMPONENTIZE_PY=.venv/bin/componentize-py
  fi
fi
PYTHONDONTWRITEBYTECODE=1 "$COMPONENTIZE_PY" -d wit -w plugin-extended componentize app -p src -o {{name}}.wasm
echo "built {{name}}.wasm; install it with: tack install ."
