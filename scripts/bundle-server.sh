#!/usr/bin/env bash
# Puts miogen and its runtime dependencies into vscode-extension/bundled/libs for one VSIX target
# (vsce's --target: linux-x64, linux-arm64, darwin-x64, darwin-arm64; default: this machine's).
# The dependencies come pinned with hashes from vscode-extension/bundled/requirements.txt, no
# others (--no-deps --require-hashes); miogen is built from this checkout. `npm run package` runs
# it before vsce. Usage: scripts/bundle-server.sh [TARGET] [OUT]   (OUT: default bundled/libs)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${1:-}"
out="${2:-$repo/vscode-extension/bundled/libs}"
if [ -z "$target" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) target=linux-x64 ;;
    Linux-aarch64) target=linux-arm64 ;;
    Darwin-x86_64) target=darwin-x64 ;;
    Darwin-arm64) target=darwin-arm64 ;;
    *) echo "bundle-server.sh: no VSIX target for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
  esac
fi
case "$target" in  # the wheel tag of ruff's binary for the target
  linux-x64) platform=manylinux_2_17_x86_64 ;;
  linux-arm64) platform=manylinux_2_17_aarch64 ;;
  darwin-x64) platform=macosx_10_12_x86_64 ;;
  darwin-arm64) platform=macosx_11_0_arm64 ;;
  *) echo "bundle-server.sh: unknown target $target (linux-x64, linux-arm64, darwin-x64, darwin-arm64)" >&2; exit 1 ;;
esac
python="${PYTHON:-}"
[ -n "$python" ] || { [ -x "$repo/.venv/bin/python" ] && python="$repo/.venv/bin/python"; } || python=python3
pip=("$python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location --no-compile)

rm -rf "$out"
mkdir -p "$out"
"${pip[@]}" --no-deps --target "$out" "$repo"
# The console scripts pip writes name the packaging interpreter: useless on the user's machine.
rm -rf "$out/bin"
"${pip[@]}" --no-deps --require-hashes --only-binary=:all: --target "$out" \
  --platform "$platform" --python-version 3.11 --implementation py --abi none \
  -r "$repo/vscode-extension/bundled/requirements.txt"
# ruff's binary stays (ruff's find_ruff_bin looks in <target>/bin).
find "$out/bin" -mindepth 1 ! -name ruff -delete
find "$out" -name __pycache__ -type d -prune -exec rm -rf {} +
rm -rf "$out"/miogen-*.dist-info/direct_url.json "$out"/*.pth  # coverage's .pth: never read from here
echo "bundle-server.sh: $target bundle in $out ($(du -sh "$out" | cut -f1))"
