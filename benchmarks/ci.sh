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
# The ops API's loop, each way (cmd/instr checks each answer's status).
instr=$(mktemp -d)
go build -o "$instr/instr" ./cmd/instr
for impl in hand typed huma; do
	for c in get post post-invalid; do
		"$instr/instr" -router "$impl" -app ops -path "$c" -n 100
	done
done
"$instr/instr" -router problem -app ops -path post-invalid -n 100
rm -rf "$instr"
./load.sh --quick
