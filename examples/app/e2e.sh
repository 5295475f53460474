#!/usr/bin/env bash
# Drives headless Chromium against examples/app on loopback origins (see
# TestBrowser in e2e_test.go). Installs Debian's chromium package when it is
# missing; CHROMIUM names another browser binary instead. Takes a few
# seconds once the browser is installed.
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

echo "== browser end-to-end test ($("$chrome" --version 2>/dev/null | head -n 1))"
WALTZ_E2E=1 CHROMIUM="$chrome" go test -count=1 -timeout 180s -run '^TestBrowser$' -v ./examples/app/
