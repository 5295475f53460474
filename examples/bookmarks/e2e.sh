#!/usr/bin/env bash
# Renders the bookmarks example's docs page (GET /docs) in headless
# Chromium (see TestDocsBrowser in docs_e2e_test.go): every operation in
# the rendered page, nothing loaded from elsewhere, no Content Security
# Policy violation, and a screenshot kept in $WALTZ_ARTIFACTS (by default
# .ci/artifacts/, which git ignores); then apidocs' TestLayoutBrowser, a
# page of long unbroken texts no wider than its window. Installs Debian's chromium package
# when it is missing (.ci/chromium.sh); CHROMIUM names another browser
# binary instead.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=../../.ci/chromium.sh
. .ci/chromium.sh
artifacts=${WALTZ_ARTIFACTS:-$PWD/.ci/artifacts}
mkdir -p "$artifacts"

echo "== docs page in the browser ($("$chrome" --version 2>/dev/null | head -n 1))"
WALTZ_E2E=1 CHROMIUM="$chrome" WALTZ_ARTIFACTS="$artifacts" \
	go test -count=1 -timeout 300s -run '^TestDocsBrowser$' -v ./examples/bookmarks/
echo "screenshot: $artifacts/bookmarks-docs.png"

echo "== docs page laid out with long texts (apidocs TestLayoutBrowser)"
WALTZ_E2E=1 CHROMIUM="$chrome" go test -count=1 -timeout 300s -run '^TestLayoutBrowser$' -v ./apidocs/
