#!/usr/bin/env bash
# What the repository's CI runs for the telemetry module: vet and the tests
# (otelhttp with the OpenTelemetry SDK's in-memory recorders, and
# client_golang). Needs only Go.
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test -race -count=1 ./...
