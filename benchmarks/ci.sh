#!/usr/bin/env bash
# What the repository's CI runs for the benchmarks module: vet, the
# correctness tests, one iteration of every benchmark (to prove they run,
# not to measure), and a few seconds of the end-to-end load script.
# Needs only Go: bombardier comes from the module's tool directive.
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test ./...
go test -run '^$' -bench . -benchtime 1x ./...
go run ./cmd/memory
./load.sh --quick
