#!/usr/bin/env bash
# staticcheck (honnef.co/go/tools, pinned) on the code of the framework
# module and of the companion modules whose dependencies are small
# (jwtauth, redisstore, examples/fromchi). The others are left out: their
# dependencies (modernc.org/sqlite's translated C, libopenapi,
# OpenTelemetry) take staticcheck minutes to analyse on a cold cache,
# which CI always has; the benchmarks' sinks are written and never read
# on purpose. Tests are left out: they hold malformed struct tags and
# unused fields on purpose, to see what the framework makes of them.
set -euo pipefail
cd "$(dirname "$0")/.."

staticcheck_version=v0.8.2

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# With a version, go install ignores go.mod and go.work: the pin is all.
GOBIN=$bin GOFLAGS=-buildvcs=false go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"

status=0
for dir in . jwtauth redisstore examples/fromchi; do
	(cd "$dir" && "$bin/staticcheck" -tests=false ./...) || status=1
done
exit $status
