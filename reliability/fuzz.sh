#!/usr/bin/env bash
# Runs each fuzz target of the root package (fuzz_test.go), of
# internal/header and of internal/typed for a short time, FUZZTIME each
# (default 10s), one after
# the other. An input that fails is written by go test to
# testdata/fuzz/<target>/ in the package's directory, where
# it stays as a regression case: commit it with the fix. With -keep, the new
# interesting inputs the fuzzer found (kept in the Go build cache) are copied
# there too, to seed later runs. The fuzzer minimizes each new input for at
# most FUZZMINIMIZETIME (default 1s, not go test's 60s): with its default,
# a 10 s run spends most of its time minimizing, not fuzzing.
#
#   reliability/fuzz.sh            # 10 s per target, as CI runs it
#   FUZZTIME=5m reliability/fuzz.sh -keep
set -euo pipefail
cd "$(dirname "$0")/.."

keep=false
if [ "${1:-}" = "-keep" ]; then
	keep=true
fi
fuzztime=${FUZZTIME:-10s}
minimize=${FUZZMINIMIZETIME:-1s}

# The root package (routing, patterns, paths), the shared HTTP syntax, and
# the typed engine (FuzzDecode: its JSON body decoder against json.Valid).
for pkg in . ./internal/header ./internal/typed; do
	targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
	if [ -z "$targets" ]; then
		echo "fuzz.sh: no fuzz targets found in $pkg" >&2
		exit 1
	fi
	cache="$(go env GOCACHE)/fuzz/$(go list "$pkg")"
	for t in $targets; do
		echo "== fuzz $pkg $t for $fuzztime"
		go test -run '^$' -fuzz "^${t}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg"
		if $keep && [ -d "$cache/$t" ]; then
			mkdir -p "$pkg/testdata/fuzz/$t"
			cp -n "$cache/$t"/* "$pkg/testdata/fuzz/$t/" 2>/dev/null || true
		fi
	done
done
