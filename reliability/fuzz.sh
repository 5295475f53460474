#!/usr/bin/env bash
# Runs each fuzz target of the framework module's packages for a short
# time, FUZZTIME each
# (default 8s), one after
# the other. An input that fails is written by go test to
# testdata/fuzz/<target>/ in the package's directory, where
# it stays as a regression case: commit it with the fix. With -keep, the new
# interesting inputs the fuzzer found (kept in the Go build cache) are copied
# there too, to seed later runs. The fuzzer minimizes each new input for at
# most FUZZMINIMIZETIME (default 1s, not go test's 60s): with its default,
# a run of seconds spends most of its time minimizing, not fuzzing.
#
#   reliability/fuzz.sh            # 8 s per target, as CI runs it (20 targets)
#   FUZZTIME=5m reliability/fuzz.sh -keep
set -euo pipefail
cd "$(dirname "$0")/.."

keep=false
if [ "${1:-}" = "-keep" ]; then
	keep=true
fi
fuzztime=${FUZZTIME:-8s}
minimize=${FUZZMINIMIZETIME:-1s}

# fuzz_one fuzzes the target $2 of the package $1. Go 1.26's fuzzing
# coordinator can end a run that found nothing with a bare "context
# deadline exceeded" when -fuzztime expires while a worker is busy
# (go.dev/issue/75804, fixed in Go 1.27): such a run, with no failing
# input written, is run once more. Any other failure fails at once.
fuzz_one() {
	local log
	log=$(mktemp)
	for attempt in 1 2; do
		if go test -run '^$' -fuzz "^${2}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$1" 2>&1 | tee "$log"; then
			rm -f "$log"
			return 0
		fi
		if [ "$attempt" = 1 ] && grep -q 'context deadline exceeded' "$log" &&
			! grep -q -e 'Failing input written' -e 'panic:' -e '_test.go:[0-9]' "$log"; then
			echo "fuzz.sh: $2 ended with the coordinator's deadline race and no failing input (go.dev/issue/75804); once more"
			continue
		fi
		rm -f "$log"
		return 1
	done
	rm -f "$log"
	return 1
}

# Every package of the framework module with fuzz targets: the root
# (routing, patterns, paths), the contract (FuzzTypedHostile), the shared
# HTTP syntax and precondition evaluator, the typed engine (FuzzDecode: its
# JSON body decoder against json.Valid; FuzzRuleTags, FuzzCleanFilename),
# the middleware.
pkgs=$(go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{end}}' ./... | while read -r p; do
	# The list is read whole before it is searched: grep -q on the pipe
	# would close it at the first match, and under pipefail go test's
	# SIGPIPE would count as no targets.
	list=$(go test -list '^Fuzz' "$p" 2>/dev/null || true)
	if grep -q '^Fuzz' <<<"$list"; then
		echo "./${p#github.com/waltz-go/waltz/}"
	fi
done | sed 's|^./github.com/waltz-go/waltz$|.|')
if [ -z "$pkgs" ]; then
	echo "fuzz.sh: no package with fuzz targets" >&2
	exit 1
fi
for pkg in $pkgs; do
	targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
	if [ -z "$targets" ]; then
		echo "fuzz.sh: no fuzz targets found in $pkg" >&2
		exit 1
	fi
	cache="$(go env GOCACHE)/fuzz/$(go list "$pkg")"
	for t in $targets; do
		echo "== fuzz $pkg $t for $fuzztime"
		fuzz_one "$pkg" "$t"
		if $keep && [ -d "$cache/$t" ]; then
			mkdir -p "$pkg/testdata/fuzz/$t"
			cp -n "$cache/$t"/* "$pkg/testdata/fuzz/$t/" 2>/dev/null || true
		fi
	done
done
