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
# Needs valgrind (apt package valgrind). Runs with GODEBUG=cpu.rdtscp=off:
# Go's runtime reads the clock (runtime.cputicks) with RDTSCP where CPUID
# reports it, and a valgrind that cannot decode RDTSCP (reported with Go
# 1.26.8 under Debian 12's valgrind 3.19) kills the program with SIGILL,
# so every count was n/a; with the feature off the runtime uses MFENCE,
# LFENCE and RDTSC instead (see callgrind.sh, also on where that was not
# so). A count that fails prints n/a, and the first failure's reason (the
# end of valgrind's log) goes to stderr; if every count fails, the script
# exits 1.
set -euo pipefail
cd "$(dirname "$0")"

command -v valgrind >/dev/null || { echo "callgrind-client.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go test -c -o "$tmp/client.test" ../client

# cpu.rdtscp=off: see the header. golang.org/x/sys/cpu, vendored in the
# standard library's crypto, reads the same cpu.* options, knows no rdtscp
# and says so on stderr at start-up: that line lands in valgrind's log,
# outside the counted calls, and is harmless.
godebug=asyncpreemptoff=1,gcshrinkstackoff=1,cpu.rdtscp=off

# failed WHY FUNCTION BENCH N reports a count that failed. A table cell
# has room only for n/a, so the reason goes to stderr, once: the next
# failures are most likely the same one. count runs in a command
# substitution, a subshell, so what it must tell the rest of the script
# goes through files in $tmp.
failed() {
	echo n/a
	: >>"$tmp/failures"
	[ -e "$tmp/reported" ] && return
	: >"$tmp/reported"
	{
		echo "callgrind-client.sh: BenchmarkCall/$3 ${4}x, counting $2: $1; the end of valgrind's log:"
		tail -n 20 "$tmp/log" | sed 's/^/    /'
		if grep -q -e 'unhandled instruction' -e 'Unrecognised instruction' "$tmp/log"; then
			echo "callgrind-client.sh: valgrind cannot decode an instruction the binary uses; where Go's"
			echo "  runtime picks it by CPU feature, GODEBUG=cpu.<feature>=off avoids it, as cpu.rdtscp=off does here"
		else
			echo "callgrind-client.sh: the binary's own error, if it printed one, is in the log above"
		fi
		echo "  To rerun the case:"
		echo "  CGO_ENABLED=0 go test -c -o /tmp/client.test ../client && GOGC=off GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind --toggle-collect='$2' /tmp/client.test -test.run '^\$' -test.bench '^BenchmarkCall/$3\$' -test.benchtime ${4}x"
		echo "  Later failures in this run print only n/a."
	} >&2
}

# count FUNCTION BENCH N prints the instructions counted inside FUNCTION
# over a run of the sub-benchmark BENCH N times, or n/a.
count() {
	local status=0 total
	rm -f "$tmp/cg.out"
	GOGC=off GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind \
		--toggle-collect="$1" --callgrind-out-file="$tmp/cg.out" \
		"$tmp/client.test" -test.run '^$' -test.bench "^BenchmarkCall/$2\$" -test.benchtime "$3x" \
		>"$tmp/log" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		failed "valgrind exited with status $status" "$@"
		return
	fi
	total=$(sed -n 's/^summary: //p' "$tmp/cg.out" 2>/dev/null)
	# No count without an error: the function was never entered (a
	# renamed function, or a benchmark name that matched nothing).
	if [ -z "$total" ] || [ "$total" -eq 0 ]; then
		failed "callgrind counted nothing inside $1" "$@"
		return
	fi
	: >>"$tmp/counted"
	echo "$total"
}

# perCall FUNCTION BENCH prints the instructions of one call, or n/a.
perCall() {
	local a b
	a=$(count "$1" "$2" 1000)
	b=$(count "$1" "$2" 3000)
	if [ "$a" = n/a ] || [ "$b" = n/a ]; then
		echo n/a
		return
	fi
	echo $(((b - a) / 2000))
}

printf '| instructions / call | typed | hand | typed / hand |\n|---|--:|--:|--:|\n'
for op in get post; do
	hand=handGet
	[ "$op" = post ] && hand=handPost
	t=$(perCall 'github.com/waltz-go/waltz/client.Op*' "op=$op/via=memory/client=typed")
	h=$(perCall "github.com/waltz-go/waltz/client_test.$hand" "op=$op/via=memory/client=hand")
	ratio=n/a
	if [ "$t" != n/a ] && [ "$h" != n/a ]; then
		ratio=$(awk -v t="$t" -v h="$h" 'BEGIN { printf "%.3f", t / h }')
	fi
	printf '| %s | %s | %s | %s |\n' "$op" "$t" "$h" "$ratio"
done
# Non-zero if no count came, so that a caller does not take a table of n/a
# for a measurement.
if [ -e "$tmp/failures" ] && [ ! -e "$tmp/counted" ]; then
	echo "callgrind-client.sh: every count failed" >&2
	exit 1
fi
