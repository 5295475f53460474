#!/usr/bin/env bash
# Drives headless Chromium against examples/app on loopback origins (see
# TestBrowser in e2e_test.go). Installs Debian's chromium package when it is
# missing (.ci/chromium.sh); CHROMIUM names another browser binary instead.
# Takes a few seconds once the browser is installed.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=../../.ci/chromium.sh
. .ci/chromium.sh

echo "== browser end-to-end test ($("$chrome" --version 2>/dev/null | head -n 1))"
WALTZ_E2E=1 CHROMIUM="$chrome" go test -count=1 -timeout 180s -run '^TestBrowser$' -v ./examples/app/
