#!/usr/bin/env bash
# `npm run package` (after the type check and esbuild): bundles the server for one platform and
# packages the platform-specific VSIX (vscode-extension/dist/miogen.vsix). The target is vsce's:
# $MIOGEN_VSIX_TARGET, default this machine's (linux-x64, linux-arm64, darwin-x64, darwin-arm64).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${MIOGEN_VSIX_TARGET:-$(node -p 'process.platform + "-" + process.arch')}"
bash "$repo/scripts/bundle-server.sh" "$target"
cd "$repo/vscode-extension"
vsce package --no-dependencies --target "$target" --out dist/miogen.vsix
