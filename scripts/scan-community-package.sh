#!/usr/bin/env bash
# n8n's verification scanner (@n8n/scan-community-package) on this package, both legs, without
# publishing: the source leg on the repository, the tarball leg on what `npm pack` produces after
# a fresh build. Errors not explained in scripts/scanner-allowed.json fail the run.
#
# The scanner is installed once into ~/.cache/n8n-nodes-mcp-agent (with --ignore-scripts: one of
# its dependencies has a postinstall that insists on pnpm). SCANNER_VERSION picks another version.
# SKIP_BUILD=1 packs the dist/ that is already there (CI runs this right after `npm run build`).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO_DIR="$PWD"

SCANNER_VERSION="${SCANNER_VERSION:-0.32.0}"
SCANNER_HOME="${HOME}/.cache/n8n-nodes-mcp-agent/scanner-${SCANNER_VERSION}"
SCANNER_MJS="${SCANNER_HOME}/node_modules/@n8n/scan-community-package/scanner/scanner.mjs"

if [[ ! -f "$SCANNER_MJS" ]]; then
	echo "Installing @n8n/scan-community-package@${SCANNER_VERSION} into ${SCANNER_HOME}"
	mkdir -p "$SCANNER_HOME"
	[[ -f "$SCANNER_HOME/package.json" ]] || echo '{ "private": true }' > "$SCANNER_HOME/package.json"
	(cd "$SCANNER_HOME" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
		"@n8n/scan-community-package@${SCANNER_VERSION}")
	if [[ ! -f "$SCANNER_MJS" ]]; then
		echo "scan: the installed scanner has no scanner/scanner.mjs (expected ${SCANNER_MJS})" >&2
		exit 1
	fi
fi

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/n8n-scan.XXXXXX")"
trap 'rm -rf "$WORK_DIR"' EXIT

# The project's .npmrc sets ignore-scripts, so `npm pack` would not run prepack: build first.
if [[ "${SKIP_BUILD:-}" != "1" ]]; then
	npm run --silent build
fi
npm pack --silent --pack-destination "$WORK_DIR" > /dev/null
TARBALL="$(find "$WORK_DIR" -maxdepth 1 -name '*.tgz' | head -n 1)"
if [[ -z "$TARBALL" ]]; then
	echo "scan: npm pack produced no tarball" >&2
	exit 1
fi
mkdir "$WORK_DIR/package"
tar -xzf "$TARBALL" -C "$WORK_DIR/package" --strip-components=1

node "$REPO_DIR/scripts/scan-community-package.mjs" "$SCANNER_MJS" "$REPO_DIR" "$WORK_DIR/package"
