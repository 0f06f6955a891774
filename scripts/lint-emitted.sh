#!/usr/bin/env bash
# Generate tests for the bench corpus and count what ruff finds in them (issue 16 part 1).
# usage: bash scripts/lint-emitted.sh OUT [BUDGET] [SEED]
# Each subject is copied into OUT/<name>/ (a project of its own, so that it counts as first
# party), `miogen generate` writes OUT/<name>/tests/test_<name>.py, and ruff checks it from there.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$1"; BUDGET="${2:-3}"; SEED="${3:-0}"
PY="$ROOT/.venv/bin/python"
RUFF="$ROOT/.venv/bin/ruff"
rm -rf "$OUT"; mkdir -p "$OUT"
findings=0; unformatted=0
for src in "$ROOT"/corpus/classic/*.py "$ROOT"/bench/subjects/*.py "$ROOT"/examples/inventory.py; do
  name=$(basename "$src" .py); dir="$OUT/$name"
  mkdir -p "$dir/tests"; cp "$src" "$dir/"; printf '[project]\nname = "%s"\n' "$name" > "$dir/pyproject.toml"
  (cd "$dir" && nice "$PY" -m miogen generate "$name.py" --budget "$BUDGET" --seed "$SEED" \
      --output "tests/test_$name.py" > generate.log 2>&1)
  count=$(cd "$dir" && "$RUFF" check --isolated --select E,F,I,PT,B,UP,SIM --output-format concise \
      tests/ 2>/dev/null | grep -c '^tests/')
  (cd "$dir" && "$RUFF" format --isolated --check tests/ > /dev/null 2>&1) || unformatted=$((unformatted + 1))
  echo "$name: $count findings"
  findings=$((findings + count))
done
echo "total: $findings findings; $unformatted files not as ruff format leaves them"
