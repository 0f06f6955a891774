#!/usr/bin/env bash
# `npm run test:e2e`: installs (or reuses) code-server, Node 24 and chromium, packages the extension
# and drives it in a real VS Code (code-server) with playwright-core. Screenshots go to e2e/artifacts/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

bash "$here/setup.sh"
# shellcheck disable=SC1091
source "${MIOGEN_E2E_CACHE:-$HOME/.cache/miogen-e2e}/env.sh"
(cd "$repo" && npm run --silent package >/dev/null)
exec node "$here/e2e.mjs" "$@"
