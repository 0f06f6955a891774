#!/usr/bin/env bash
# Sets everything up, then runs the main job: generate tests for the bundled example and run them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p build/demo
.venv/bin/miogen generate examples/inventory.py --budget 5 --output build/demo/test_inventory.py
echo
echo "--- build/demo/test_inventory.py, run by pytest ---"
.venv/bin/python -m pytest -q -p no:cacheprovider build/demo/test_inventory.py
