#!/usr/bin/env bash
# Sets up the Python side: a virtual environment in .venv with miogen (editable) and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev,dask]'
# libfaketime: the verification reruns kept tests with the clock five years ahead, and the tests
# check generated files under it (Debian's faketime; skipped with a note where apt is missing).
if ! dpkg-query -W -f='${Status}' faketime 2>/dev/null | grep -q "install ok installed"; then
  if command -v apt-get >/dev/null; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    echo "apt-get install faketime"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends faketime >/dev/null
  else
    echo "no apt-get: faketime not installed (clock-ahead checks are skipped)" >&2
  fi
fi
