#!/usr/bin/env bash
# Load test over loopback: req/s and latency (p50, p99) of a route with no
# limit, one rate limited in the memory store and one rate limited in the
# Redis store (internal/loadserver), driven by bombardier, the routes
# interleaved in rounds so that the drift of a shared machine hits them
# alike; then the Redis round trip a Take costs alone, and the EVALSHA
# count per request to /redis. Starts its own redis-server on a free
# loopback port and stops it; installs Debian's redis-server (and python3,
# which reads bombardier's JSON) when missing.
#
#   ./load.sh                   # 3 rounds, 5 s per route, 32 connections
#   ./load.sh --rounds 5 --duration 10 --conns 64
#   ./load.sh --quick           # a second per route: proves the pipeline works
set -euo pipefail
cd "$(dirname "$0")"

rounds=3
duration=5
conns=32
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) rounds=1 duration=1 ;;
	--rounds) rounds=$2 && shift ;;
	--duration) duration=${2%s} && shift ;;
	--conns) conns=$2 && shift ;;
	*) echo "load.sh: unknown flag $1" >&2 && exit 2 ;;
	esac
	shift
done

if ! command -v redis-server >/dev/null || ! command -v python3 >/dev/null; then
	apt-get update && apt-get install -y redis-server python3
fi

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$work" --logfile "$work/redis.log" &
pids+=($!)
for _ in $(seq 100); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.05
done

go build -o "$work/loadserver" ./internal/loadserver
# bombardier, pinned, built outside this module (go install name@version).
GOBIN="$work" go install github.com/codesenberg/bombardier@v1.2.6

"$work/loadserver" -redis "127.0.0.1:$port" >"$work/addr" &
pids+=($!)
for _ in $(seq 100); do
	[ -s "$work/addr" ] && break
	sleep 0.05
done
addr=$(cat "$work/addr")

echo "loopback, bombardier -c $conns -d ${duration}s, $rounds rounds; $(nproc) cores; redis $(redis-server --version | cut -d' ' -f3)"
printf '%-6s %-10s %10s %10s %10s\n' round route req/s p50 p99
for round in $(seq "$rounds"); do
	for route in unlimited memory redis; do
		before=$(redis-cli -p "$port" info commandstats | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/p')
		"$work/bombardier" -c "$conns" -d "${duration}s" -l -o json -p result "http://$addr/$route" >"$work/out.json"
		after=$(redis-cli -p "$port" info commandstats | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/p')
		python3 - "$work/out.json" "$round" "$route" "${before:-0}" "${after:-0}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["result"]
lat = r["latency"]["percentiles"]
reqs = sum(r.get(k, 0) for k in ("req1xx", "req2xx", "req3xx", "req4xx", "req5xx"))
ok = r.get("req2xx", 0)
line = "%-6s %-10s %10.0f %8.0fus %8.0fus" % (sys.argv[2], sys.argv[3], r["rps"]["mean"], lat["50"], lat["99"])
if sys.argv[3] == "redis":
    line += "   EVALSHA per request %.2f" % ((int(sys.argv[5]) - int(sys.argv[4])) / max(reqs, 1))
if ok != reqs or r.get("others", 0):
    line += "   (not all 200: %d of %d, %d errors)" % (ok, reqs, r.get("others", 0))
print(line)
PY
	done
done
echo "Redis round trip of one Take, 20000 sequential, no other load: $("$work/loadserver" -redis "127.0.0.1:$port" -rtt 20000)"
