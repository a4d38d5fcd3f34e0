#!/usr/bin/env bash
# Installs the Debian packages the queue-mode end-to-end test needs (Redis, PostgreSQL) when they
# are missing. The test itself starts private instances on free loopback ports and stops them.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [[ ${#missing[@]} -eq 0 ]]; then
	echo "[ensure-services] redis-server and postgresql are installed" >&2
	exit 0
fi
if [[ "$(id -u)" != 0 ]]; then
	echo "[ensure-services] missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root" >&2
	exit 1
fi
echo "[ensure-services] installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Debian packages start system-wide services; the test runs its own instances instead.
service redis-server stop >/dev/null 2>&1 || true
service postgresql stop >/dev/null 2>&1 || true
