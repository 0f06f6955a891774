#!/usr/bin/env bash
# The Python test suite with every core kept busy by a CPU hog: the check that no test depends
# on a quiet or fast machine (timing aims belong in bench/, not in tests).
#
#   bash scripts/check-busy.sh                      # the whole suite, as scripts/test-all.sh runs it
#   bash scripts/check-busy.sh tests/execution -x   # pytest arguments: some tests only
#
# The hog is one busy loop per core (nproc), at normal priority; it is killed on exit, also
# when the run is interrupted. Expects .venv (bash scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

hogs=()
stop_hogs() {
  if [ "${#hogs[@]}" -gt 0 ]; then
    kill "${hogs[@]}" 2>/dev/null || true
    wait "${hogs[@]}" 2>/dev/null || true
  fi
}
trap stop_hogs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cores=$(nproc)
for _ in $(seq "$cores"); do
  bash -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "=== Python tests (pytest) beside $cores busy loop(s): pids ${hogs[*]} ==="

if [ "$#" -eq 0 ]; then
  set -- tests
fi
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
