#!/usr/bin/env bash
# What the repository's CI runs for the redisstore module: vet, the tests
# (each starts its own redis-server on a loopback port and stops it; none
# is skipped), one iteration of each benchmark, and a second of each route
# of the load script, to prove it runs. Installs Debian's redis-server when
# it is missing (with redis-tools, whose redis-cli reads MONITOR for the
# idempotency round-trip test).
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	apt-get update
	apt-get install -y redis-server redis-tools
fi
# The tests start their own servers on free ports and leave alone any that
# the package may have started as a service.
redis-server --version
redis-cli --version

go vet ./...
go test -race -count=1 ./...
go test -run '^$' -bench . -benchtime 1x ./...
./load.sh --quick
