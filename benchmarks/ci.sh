#!/usr/bin/env bash
# What the repository's CI runs for the benchmarks module: vet, the
# correctness tests, one iteration of every benchmark (to prove they run,
# not to measure), the callgrind harness's request loop (without valgrind),
# and a few seconds of the end-to-end load script.
# Needs only Go: bombardier comes from the module's tool directive.
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test ./...
go test -run '^$' -bench . -benchtime 1x ./...
go run ./cmd/memory
# The callgrind harness needs valgrind, which CI may lack: check that the
# script parses and that its request loop runs.
bash -n callgrind.sh
go run ./cmd/instr -router waltz -app github -path all -n 1000
./load.sh --quick
