#!/usr/bin/env bash
# `npm start`: build this package, install it into a persistent n8n user folder the way the
# Community Nodes installer would, import the example workflows and their credential, and run n8n
# (2.41.1 on Node 24, from scripts/ensure-n8n.sh) at http://localhost:5678.
#
# Assumes `npm ci` was run. Environment:
#   MCP_AGENT_N8N_HOME    n8n user folder (default ~/.n8n-mcp-agent-dev); it keeps your account,
#                         workflows and credentials between runs
#   N8N_PORT              default 5678
#   N8N_LISTEN_ADDRESS    default 127.0.0.1 (stdio MCP servers are enabled: keep n8n local)
#   MCP_AGENT_SKIP_BUILD=1  skip `npm run build`
# The examples are re-imported only when they (or the credential) changed, so your edits to other
# workflows are never touched; edits to the example workflows themselves are replaced then.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

eval "$(bash scripts/ensure-n8n.sh --env)"
export MCP_AGENT_NODE24_BIN MCP_AGENT_N8N_BIN

N8N_HOME="${MCP_AGENT_N8N_HOME:-$HOME/.n8n-mcp-agent-dev}"
mkdir -p "$N8N_HOME"

if [[ ! -d node_modules ]]; then
	echo "[start-n8n] node_modules is missing: run 'npm ci' first" >&2
	exit 1
fi

if [[ "${MCP_AGENT_SKIP_BUILD:-}" != 1 ]]; then
	npm run build
fi
bash scripts/install-package-into-n8n.sh "$N8N_HOME" >/dev/null

export PATH="$MCP_AGENT_NODE24_BIN:$PATH"
export N8N_USER_FOLDER="$N8N_HOME"
export N8N_PORT="${N8N_PORT:-5678}"
export N8N_LISTEN_ADDRESS="${N8N_LISTEN_ADDRESS:-127.0.0.1}"
export N8N_DIAGNOSTICS_ENABLED=false
export N8N_PERSONALIZATION_ENABLED=false
export N8N_VERSION_NOTIFICATIONS_ENABLED=false
export N8N_SECURE_COOKIE=false
export N8N_UNVERIFIED_PACKAGES_ENABLED=true
export N8N_MCP_AGENT_ALLOW_STDIO=true

n8n_cli() {
	"$MCP_AGENT_NODE24_BIN/node" "$MCP_AGENT_N8N_BIN" "$@"
}

credentials_file="$N8N_HOME/example-credentials.json"
node scripts/example-credentials.js >"$credentials_file"
stamp_file="$N8N_HOME/.examples-imported"
stamp="$(cat "$credentials_file" examples/*.json | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]]; then
	echo "[start-n8n] importing the example credential and workflows (examples/*.json)" >&2
	n8n_cli import:credentials --input="$credentials_file"
	n8n_cli import:workflow --separate --input="$REPO/examples"
	echo "$stamp" >"$stamp_file"
fi

echo "[start-n8n] n8n at http://localhost:$N8N_PORT (user folder $N8N_HOME)" >&2
exec "$MCP_AGENT_NODE24_BIN/node" "$MCP_AGENT_N8N_BIN" start
