#!/usr/bin/env bash
# What the repository's CI runs for the fromchi module: vet and the test
# that sends one request script to the chi app and to its waltz port.
# Needs only Go (chi comes from the module proxy).
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test -race -count=1 ./...
