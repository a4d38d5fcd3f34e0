#!/usr/bin/env bash
# Install this repo's package into an n8n user folder exactly as n8n's Community Nodes installer does
# (n8n 2.41.1, community-packages service): pack, extract into
# <userFolder>/.n8n/nodes/node_modules/<name>, drop devDependencies/peerDependencies/
# optionalDependencies from its package.json, then `npm install` inside it without install scripts.
#
# Usage: scripts/install-package-into-n8n.sh <userFolder>
# The caller runs `npm run build` first (dist/ must exist). Any previous copy is replaced.
# MCP_AGENT_NODE24_BIN, when set, is put first on PATH for the npm install (n8n runs npm with its own
# Node); the result is the same with Node 20 since no install scripts run.
set -euo pipefail

if [[ $# -ne 1 || -z "$1" ]]; then
	echo "usage: $0 <n8nUserFolder>" >&2
	exit 2
fi

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
USER_FOLDER="$(mkdir -p "$1" && cd "$1" && pwd)"
NODES_DIR="$USER_FOLDER/.n8n/nodes"

if [[ -n "${MCP_AGENT_NODE24_BIN:-}" ]]; then
	export PATH="$MCP_AGENT_NODE24_BIN:$PATH"
fi

log() { echo "[install-package] $*" >&2; }

for f in $(cd "$REPO" && node -e "const p=require('./package.json');console.log([...(p.n8n.nodes||[]),...(p.n8n.credentials||[])].join('\n'))"); do
	if [[ ! -f "$REPO/$f" ]]; then
		log "missing $f: run 'npm run build' first"
		exit 1
	fi
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-agent-pack.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# --ignore-scripts: the caller already built; prepack would build again.
TARBALL_NAME="$(cd "$REPO" && npm pack --ignore-scripts --json --pack-destination "$WORK" 2>/dev/null |
	node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)[0].filename))")"
TARBALL="$WORK/$TARBALL_NAME"
[[ -f "$TARBALL" ]] || { log "npm pack produced no tarball ($TARBALL_NAME)"; exit 1; }

PKG_NAME="$(tar -xOzf "$TARBALL" package/package.json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).name))")"
DEST="$NODES_DIR/node_modules/$PKG_NAME"

rm -rf "$DEST"
mkdir -p "$DEST"
tar -xzf "$TARBALL" -C "$DEST" --strip-components=1

node -e '
const fs = require("fs");
const file = process.argv[1];
const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
delete pkg.devDependencies;
delete pkg.peerDependencies;
delete pkg.optionalDependencies;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2));
' "$DEST/package.json"

(
	cd "$DEST"
	npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow \
		--ignore-scripts=true --package-lock=false --loglevel=error
) >&2

log "installed $PKG_NAME from $TARBALL_NAME into $DEST"
echo "$DEST"
