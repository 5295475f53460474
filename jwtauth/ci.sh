#!/usr/bin/env bash
# What the repository's CI runs for the jwtauth module: vet, the tests
# under the race detector (real JWK Sets served by httptest on loopback:
# rotation, refresh on an unknown kid, its rate limit, an outage; the
# fuzz targets' seeds), and the allocation test once more without it,
# since the race detector allocates. Needs only Go; the tests take about
# ten seconds once built.
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test -race -count=1 ./...
go test -count=1 -run '^TestAllocs$' ./...
