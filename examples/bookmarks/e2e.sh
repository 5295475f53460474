#!/usr/bin/env bash
# Renders the bookmarks example's docs page (GET /docs) in headless
# Chromium (see TestDocsBrowser in docs_e2e_test.go): every operation in
# the rendered page, nothing loaded from elsewhere, no Content Security
# Policy violation, and a screenshot kept in $WALTZ_ARTIFACTS (by default
# .ci/artifacts/, which git ignores). Installs Debian's chromium package
# when it is missing; CHROMIUM names another browser binary instead.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -n "${CHROMIUM:-}" ]; then
	if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
		echo "e2e.sh: CHROMIUM=$CHROMIUM is not an executable" >&2
		exit 1
	fi
elif ! command -v chromium >/dev/null 2>&1; then
	echo "== installing chromium (apt-get)"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >/dev/null
	$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
chrome=${CHROMIUM:-chromium}
artifacts=${WALTZ_ARTIFACTS:-$PWD/.ci/artifacts}
mkdir -p "$artifacts"

echo "== docs page in the browser ($("$chrome" --version 2>/dev/null | head -n 1))"
WALTZ_E2E=1 CHROMIUM="$chrome" WALTZ_ARTIFACTS="$artifacts" \
	go test -count=1 -timeout 300s -run '^TestDocsBrowser$' -v ./examples/bookmarks/
echo "screenshot: $artifacts/bookmarks-docs.png"
