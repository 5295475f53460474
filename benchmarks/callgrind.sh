#!/usr/bin/env bash
# Instructions per request, counted by callgrind: deterministic, unlike wall
# time on a shared machine. Each case runs cmd/instr under valgrind, which
# serves one GET path N times in-process (after an uncounted warm-up) and is
# counted only inside its loop function (--toggle-collect=main.loop).
#
#   ./callgrind.sh                         # the default table
#   ./callgrind.sh --routers "waltz gin"   # fewer routers
#   ./callgrind.sh --n 20000
#   ./callgrind.sh --annotate waltz hello /user/42   # per-function counts of one case
#   ./callgrind.sh --ops                   # BenchmarkOps's API: hand, typed, huma
#   ./callgrind.sh --annotate typed ops get
#   ./callgrind.sh --query 7               # ops post beside query, hand and typed: 7 runs, interleaved, and medians
#
# Needs valgrind (apt package valgrind). Builds with CGO_ENABLED=0 and runs
# with GODEBUG=asyncpreemptoff=1, so no signal-driven preemption lands in
# the count, and cpu.rdtscp=off: Go's runtime reads the clock
# (runtime.cputicks) with RDTSCP where CPUID reports it, and a valgrind
# that cannot decode RDTSCP (reported with Go 1.26.8 under Debian 12's
# valgrind 3.19) kills the program with SIGILL, so every count was n/a;
# with the feature off the runtime uses MFENCE, LFENCE and RDTSC instead.
# (On this project's machine on 2026-12-06 that valgrind, 3.19.0-1, did
# decode RDTSCP, and the counts were the same with and without the
# setting, to within their run-to-run spread.)
# A count that fails prints n/a, and the first failure's reason (the end
# of valgrind's log) goes to stderr; if every count fails, the script
# exits 1.
set -euo pipefail
cd "$(dirname "$0")"

routers="raw waltz httprouter gin"
n=10000
annotate=()
ops=
qruns=
# cpu.rdtscp=off: see the header; without it valgrind may stop the binary
# at its first clock read. golang.org/x/sys/cpu (vendored in the standard
# library's crypto, and a dependency of some peers) reads the same cpu.*
# options, knows no rdtscp and says so on stderr at start-up: that line
# lands in valgrind's log, before the counted loop, and is harmless.
godebug=asyncpreemptoff=1,cpu.rdtscp=off
while [ $# -gt 0 ]; do
	case "$1" in
	--routers) routers="$2"; shift 2 ;;
	--n) n="$2"; shift 2 ;;
	--annotate) annotate=("$2" "$3" "$4"); shift 4 ;;
	# A request that decodes JSON grows the goroutine's stack, and the
	# collector shrinks it back: the copy moves main.loop's frame, which
	# callgrind takes for leaving the function, and the count stops. Keep
	# stacks as they grew.
	--ops) ops=1; godebug=$godebug,gcshrinkstackoff=1; shift ;;
	# A QUERY beside a POST of the same shape. One count moves by some
	# tens of instructions from run to run (the collector, the runtime's
	# caches), about what the two differ by, so each is counted runs
	# times, interleaved, and compared by its median.
	--query) qruns="$2"; godebug=$godebug,gcshrinkstackoff=1; shift 2 ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

command -v valgrind >/dev/null || { echo "callgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/instr" ./cmd/instr

# failed WHY ROUTER APP PATH reports a count that failed. A table cell has
# room only for n/a, so the reason goes to stderr, once: the next failures
# are most likely the same one, and the table stays readable. count runs
# in a command substitution, a subshell, so what it must tell the rest of
# the script goes through files in $tmp.
failed() {
	echo n/a
	: >>"$tmp/failures"
	[ -e "$tmp/reported" ] && return
	: >"$tmp/reported"
	{
		echo "callgrind.sh: -router $2 -app $3 -path $4: $1; the end of valgrind's log:"
		tail -n 20 "$tmp/log" | sed 's/^/    /'
		if grep -q -e 'unhandled instruction' -e 'Unrecognised instruction' "$tmp/log"; then
			echo "callgrind.sh: valgrind cannot decode an instruction the binary uses; where Go's runtime"
			echo "  picks it by CPU feature, GODEBUG=cpu.<feature>=off avoids it, as cpu.rdtscp=off does here"
		else
			echo "callgrind.sh: the binary's own error, if it printed one, is in the log above"
		fi
		echo "  To rerun the case:"
		echo "  CGO_ENABLED=0 go build -o /tmp/instr ./cmd/instr && GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind --toggle-collect=main.loop /tmp/instr -router $2 -app $3 -path $4 -n $n"
		echo "  Later failures in this run print only n/a."
	} >&2
}

# count ROUTER APP PATH prints the instructions per request, or n/a.
count() {
	local out="$tmp/cg.out" status=0
	rm -f "$out"
	GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind --toggle-collect='main.loop' \
		--callgrind-out-file="$out" "$tmp/instr" -router "$1" -app "$2" -path "$3" -n "$n" \
		>"$tmp/log" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		failed "valgrind exited with status $status" "$@"
		return
	fi
	local total reqs
	total=$(sed -n 's/^summary: //p' "$out" 2>/dev/null)
	# No count without an error: main.loop was never entered, or was left
	# at once (see --ops on stack moves).
	if [ -z "$total" ] || [ "$total" -eq 0 ]; then
		failed "callgrind counted nothing inside main.loop" "$@"
		return
	fi
	: >>"$tmp/counted"
	if [ "$3" = all ]; then
		reqs=$(grep -c . "testdata/$2.tsv")
		echo $((total / (n / reqs * reqs)))
		return
	fi
	echo $((total / n))
}

# done_table ends the script: non-zero if counts were asked for and none
# came, so that a caller does not take a table of n/a for a measurement.
done_table() {
	if [ -e "$tmp/failures" ] && [ ! -e "$tmp/counted" ]; then
		echo "callgrind.sh: every count failed" >&2
		exit 1
	fi
	exit 0
}

if [ ${#annotate[@]} -gt 0 ]; then
	[ "${annotate[1]}" = ops ] && godebug=$godebug,gcshrinkstackoff=1
	status=0
	GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind --toggle-collect='main.loop' \
		--callgrind-out-file="$tmp/cg.out" "$tmp/instr" -router "${annotate[0]}" \
		-app "${annotate[1]}" -path "${annotate[2]}" -n "$n" >"$tmp/log" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		failed "valgrind exited with status $status" "${annotate[@]}" >/dev/null
		exit 1
	fi
	callgrind_annotate --inclusive=no "$tmp/cg.out" | sed -n '/^Ir/,$p' | head -60
	exit 0
fi

if [ -n "$qruns" ]; then
	printf '| run | hand post | hand query | typed post | typed query |\n|---|--:|--:|--:|--:|\n'
	declare -A got
	for i in $(seq "$qruns"); do
		printf '| %s |' "$i"
		for r in hand typed; do
			for c in post query; do
				v=$(count "$r" ops "$c")
				got[$r.$c]+="$v "
				printf ' %s |' "$v"
			done
		done
		printf '\n'
	done
	median() { tr ' ' '\n' | grep -E '^[0-9]+$' | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "n/a"}'; }
	printf '| median |'
	for k in hand.post hand.query typed.post typed.query; do
		printf ' %s |' "$(echo "${got[$k]}" | median)"
	done
	printf '\n'
	done_table
fi

# The cases: the hello app's two routes (handlers write the body), then
# paths of the route sets with the no-op handlers of the micro-benchmarks
# (raw has no such app); "all" is every route of the set by its pattern
# text, as the "All" benchmarks send them, averaged per request.
if [ -n "$ops" ]; then
	# The small JSON API of BenchmarkOps, each way it is written.
	# problem: a plain route returning post-invalid's problem document.
	printf '| instructions / request | hand | typed | huma | problem |\n|---|--:|--:|--:|--:|\n'
	# query: post's request as a QUERY, to a route of post's shape (huma
	# has none).
	for c in get post query post-invalid; do
		printf '| %s |' "$c"
		for r in hand typed huma; do
			if [ "$c" = query ] && [ "$r" = huma ]; then
				printf ' n/a |'
				continue
			fi
			printf ' %s |' "$(count "$r" ops "$c")"
		done
		if [ "$c" = post-invalid ]; then
			printf ' %s |\n' "$(count problem ops "$c")"
		else
			printf ' n/a |\n'
		fi
	done
	done_table
fi

cases=("hello /" "hello /user/42" "param /user/gordon" "paramwrite /user/gordon" "github /user/repos" "github /repos/julienschmidt/httprouter/stargazers" "static /gopher/appenginegophercolor.jpg" "gplus /people" "parse /1/users" "static all" "github all" "parse all")
printf '| instructions / request |'
for r in $routers; do printf ' %s |' "$r"; done
printf '\n|---|'
for r in $routers; do printf -- '--:|'; done
printf '\n'
for c in "${cases[@]}"; do
	set -- $c
	if [ "$2" = all ]; then
		printf '| %s, every route |' "$1"
	else
		printf '| %s `%s` |' "$1" "$2"
	fi
	for r in $routers; do
		if [ "$r" = raw ] && [ "$1" != hello ]; then
			printf ' n/a |'
			continue
		fi
		printf ' %s |' "$(count "$r" "$1" "$2")"
	done
	printf '\n'
done
done_table
