#!/usr/bin/env bash
# Instructions per call of the typed client (package client) beside a
# hand-written net/http client doing the same encoding and decoding,
# counted by callgrind on client's BenchmarkCall with its in-memory
# transport, where the server runs in the calling goroutine, so that the
# count holds both sides of a call. Each case is counted at two loop
# lengths and the difference divided by the extra calls, which leaves
# out the setup; the count runs only inside the call (--toggle-collect on
# client.Op's closure, or on handGet and handPost). The collector is off
# (GOGC=off): where its work lands in a count varies from run to run by a
# quarter, and what a call leaves it is the allocations, which the
# benchmark counts exactly.
#
#   ./callgrind-client.sh
#
# Needs valgrind (apt package valgrind).
set -euo pipefail
cd "$(dirname "$0")"

command -v valgrind >/dev/null || { echo "callgrind-client.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go test -c -o "$tmp/client.test" ../client

# count FUNCTION BENCH N prints the instructions counted inside FUNCTION
# over a run of the sub-benchmark BENCH N times.
count() {
	GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,gcshrinkstackoff=1 valgrind --tool=callgrind \
		--toggle-collect="$1" --callgrind-out-file="$tmp/cg.out" \
		"$tmp/client.test" -test.run '^$' -test.bench "^BenchmarkCall/$2\$" -test.benchtime "$3x" \
		>"$tmp/log" 2>&1
	sed -n 's/^summary: //p' "$tmp/cg.out"
}

# perCall FUNCTION BENCH prints the instructions of one call.
perCall() {
	local a b
	a=$(count "$1" "$2" 1000)
	b=$(count "$1" "$2" 3000)
	echo $(((b - a) / 2000))
}

printf '| instructions / call | typed | hand | typed / hand |\n|---|--:|--:|--:|\n'
for op in get post; do
	hand=handGet
	[ "$op" = post ] && hand=handPost
	t=$(perCall 'github.com/waltz-go/waltz/client.Op*' "op=$op/via=memory/client=typed")
	h=$(perCall "github.com/waltz-go/waltz/client_test.$hand" "op=$op/via=memory/client=hand")
	printf '| %s | %s | %s | %s |\n' "$op" "$t" "$h" "$(awk -v t="$t" -v h="$h" 'BEGIN { printf "%.3f", t / h }')"
done
