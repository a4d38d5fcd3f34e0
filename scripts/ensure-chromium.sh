#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (test/browser) when it is missing. Idempotent:
# does nothing when /usr/bin/chromium (or $CHROMIUM_PATH) is already there.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
	echo "chromium present: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
	exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "Installing chromium with apt-get..."
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium fonts-liberation
"$CHROMIUM" --version
