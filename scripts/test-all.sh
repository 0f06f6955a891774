#!/usr/bin/env bash
# Sets everything up (Python, npm, Debian packages for the real-VS-Code test) and runs every test.
# Each suite's exit status counts: pytest's 5 ("no tests collected") fails the run too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "=== lint (ruff) ==="
.venv/bin/ruff check .
.venv/bin/ruff format --check .

echo "=== types (mypy --strict on server/miogen) ==="
.venv/bin/mypy

echo "=== Python tests (pytest) ==="
.venv/bin/python -m pytest -q -p no:cacheprovider tests
echo "=== examples in docstrings (doctest) ==="
.venv/bin/python -m pytest -q -p no:cacheprovider --doctest-modules server/miogen bench/mutation.py

echo "=== VS Code extension: install, unit tests ==="
npm ci --no-audit --no-fund
npm test

echo "=== VS Code extension: end to end in a real VS Code (code-server + Chromium) ==="
bash vscode-extension/e2e/setup.sh
npm run test:e2e
