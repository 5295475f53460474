#!/usr/bin/env bash
# What CI runs for the contract self-test: vet, its own tests under the
# race detector (the planted disagreements of the throwaway API, each
# found; the clean one, none; uploads; the Example; TestBookmarksCases,
# that no operation of examples/bookmarks is left out, its image upload
# included), and the self-test on every example with typed operations
# (examples/bookmarks), whose run time it prints from go test -v. Needs
# only Go; every request is in-process.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
go test -count 1 -race ./...
echo "== contracttest on examples/bookmarks"
go test -count 1 -run '^TestBookmarks$' -v ./... | grep -E '^(--- |ok|FAIL)|contracttest: [0-9]+ requests'
