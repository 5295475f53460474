#!/usr/bin/env bash
# Drives headless Chromium against examples/app on loopback origins (see
# TestBrowser in e2e_test.go). Installs Debian's chromium package when no
# browser is found; CHROMIUM names another binary. Takes well under a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."

chrome=${CHROMIUM:-chromium}
if ! command -v "$chrome" >/dev/null 2>&1; then
	echo "== installing chromium (apt-get)"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >/dev/null
	$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

echo "== browser end-to-end test ($("$chrome" --version 2>/dev/null | head -n 1))"
WALTZ_E2E=1 CHROMIUM="$chrome" go test -count=1 -timeout 180s -run '^TestBrowser$' -v ./examples/app/
