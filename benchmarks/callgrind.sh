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
#
# Needs valgrind (apt package valgrind). Builds with CGO_ENABLED=0 and runs
# with GODEBUG=asyncpreemptoff=1, so no signal-driven preemption lands in
# the count.
set -euo pipefail
cd "$(dirname "$0")"

routers="raw waltz httprouter gin"
n=10000
annotate=()
ops=
godebug=asyncpreemptoff=1
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
	*) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

command -v valgrind >/dev/null || { echo "callgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/instr" ./cmd/instr

# count ROUTER APP PATH prints the instructions per request, or n/a.
count() {
	local out="$tmp/cg.out"
	if ! GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind --toggle-collect='main.loop' \
		--callgrind-out-file="$out" "$tmp/instr" -router "$1" -app "$2" -path "$3" -n "$n" \
		>"$tmp/log" 2>&1; then
		echo n/a
		return
	fi
	local total reqs
	total=$(sed -n 's/^summary: //p' "$out")
	if [ "$3" = all ]; then
		reqs=$(grep -c . "testdata/$2.tsv")
		echo $((total / (n / reqs * reqs)))
		return
	fi
	echo $((total / n))
}

if [ ${#annotate[@]} -gt 0 ]; then
	[ "${annotate[1]}" = ops ] && godebug=$godebug,gcshrinkstackoff=1
	GOMAXPROCS=1 GODEBUG=$godebug valgrind --tool=callgrind --toggle-collect='main.loop' \
		--callgrind-out-file="$tmp/cg.out" "$tmp/instr" -router "${annotate[0]}" \
		-app "${annotate[1]}" -path "${annotate[2]}" -n "$n" >/dev/null 2>&1
	callgrind_annotate --inclusive=no "$tmp/cg.out" | sed -n '/^Ir/,$p' | head -60
	exit 0
fi

# The cases: the hello app's two routes (handlers write the body), then
# paths of the route sets with the no-op handlers of the micro-benchmarks
# (raw has no such app); "all" is every route of the set by its pattern
# text, as the "All" benchmarks send them, averaged per request.
if [ -n "$ops" ]; then
	# The small JSON API of BenchmarkOps, each way it is written.
	# problem: a plain route returning post-invalid's problem document.
	printf '| instructions / request | hand | typed | huma | problem |\n|---|--:|--:|--:|--:|\n'
	for c in get post post-invalid; do
		printf '| %s |' "$c"
		for r in hand typed huma; do printf ' %s |' "$(count "$r" ops "$c")"; done
		if [ "$c" = post-invalid ]; then
			printf ' %s |\n' "$(count problem ops "$c")"
		else
			printf ' n/a |\n'
		fi
	done
	exit 0
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
