#!/usr/bin/env bash
# What CI runs for the realworld module, with tools no one in this
# repository wrote:
#
#  1. go vet and go test: real HTTP against the real router on a real
#     database, SQLite and PostgreSQL (hostile rows, races, tokens), and
#     the served OpenAPI document against the spec's (testdata/openapi.yml,
#     libopenapi);
#  2. the RealWorld project's Postman collection
#     (testdata/Conduit.postman_collection.json), run by newman, against
#     the server on SQLite;
#  3. the same against the server on PostgreSQL (Debian's, a private
#     cluster on loopback in a temporary directory);
#  4. the same against two server processes on one PostgreSQL database,
#     behind a proxy (cmd/roundrobin) that sends each request to the other
#     process than the one before: what one writes, the next reads.
#
# Every assertion must pass: newman exits non-zero on a failed one. Each
# run prints its counts, from newman's JSON report in build/.
#
# Installs what it needs when it is missing: node and npm, and postgresql,
# from Debian (apt-get update first); newman with `npm ci` from
# package-lock.json, unless node_modules has its pinned version. Every connection is to 127.0.0.1. Prints the time of
# each step.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
build=$here/build
rm -rf "$build"
mkdir -p "$build"

step() {
	now=$(date +%s.%N)
	if [ -n "${began:-}" ]; then
		awk -v a="$began" -v b="$now" 'BEGIN { printf "   (%.1f s)\n", b - a }'
	fi
	began=$now
	[ $# -gt 0 ] && echo "== realworld: $*"
	return 0
}

step "node, npm and postgresql (Debian), newman (npm ci)"
missing=()
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update && apt-get install -y "${missing[@]}"
fi
if [ "$(npx --no-install newman --version 2>/dev/null)" != 6.2.2 ]; then
	npm ci --no-audit --no-fund --loglevel=error
fi

pids=()
pgdata=
pgrun() { "$@"; }
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$pgdata" ]; then
		pgrun "$pgbin/pg_ctl" -D "$pgdata/data" -m immediate -w stop >/dev/null 2>&1 || true
		rm -rf "$pgdata"
	fi
}
trap cleanup EXIT

step "a private PostgreSQL cluster on loopback"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pgdata=$(mktemp -d)
if [ "$(id -u)" = 0 ]; then
	# PostgreSQL refuses to run as root: its files and process are the
	# postgres user's, whom Debian's package creates.
	chown postgres: "$pgdata"
	pgrun() { runuser -u postgres -- "$@"; }
fi
pgport=$((20000 + RANDOM % 20000))
pgrun "$pgbin/initdb" -D "$pgdata/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
pgrun "$pgbin/pg_ctl" -D "$pgdata/data" -l "$pgdata/log" -w \
	-o "-h 127.0.0.1 -p $pgport -k $pgdata -F" start >/dev/null
for db in one two; do
	"$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres "$db"
done
pgurl=postgres://postgres@127.0.0.1:$pgport

step "go vet, go test (on SQLite, and on PostgreSQL: CONDUIT_TEST_POSTGRES)"
go vet ./...
CONDUIT_TEST_POSTGRES=$pgurl/postgres?sslmode=disable go test -count 1 ./...

step "build the server and the proxy"
go build -o "$build/realworld" .
go build -o "$build/roundrobin" ./cmd/roundrobin

# start name command...: runs the command (a server that logs "listening
# on host:port") in the background, logging to build/name.log, and sets
# addr to the address it listens on.
start() {
	local name=$1
	shift
	"$@" 2>"$build/$name.log" &
	pids+=($!)
	addr=
	for _ in $(seq 100); do
		addr=$(sed -n 's/.*listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$build/$name.log")
		[ -n "$addr" ] && return 0
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "$name did not start:" >&2
	cat "$build/$name.log" >&2
	exit 1
}

# newman name base: runs the collection against base (".../api") as a new
# user, and prints the counts of its JSON report.
newman() {
	local user=u$RANDOM$RANDOM
	npx --no-install newman run testdata/Conduit.postman_collection.json \
		--global-var "APIURL=$2" --global-var "USERNAME=$user" \
		--global-var "EMAIL=$user@mail.com" --global-var "PASSWORD=password" \
		--reporters cli,json --reporter-json-export "$build/newman-$1.json" >"$build/newman-$1.txt" || {
		cat "$build/newman-$1.txt" >&2
		exit 1
	}
	node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).run.stats;
console.log(`newman on ${process.argv[2]}: ${s.requests.total} requests, ${s.assertions.total} assertions, ${s.assertions.failed} failed`);
' "$build/newman-$1.json" "$1"
}

export JWT_KEY=ci-key-$RANDOM$RANDOM-that-is-long-enough-for-hs256

step "newman against the server on SQLite (a file)"
start sqlite "$build/realworld" -addr 127.0.0.1:0 -sqlite "$build/conduit.db"
newman sqlite "http://$addr/api"

step "newman against the server on PostgreSQL"
DATABASE_URL=$pgurl/one?sslmode=disable start postgres "$build/realworld" -addr 127.0.0.1:0
newman postgres "http://$addr/api"

step "newman against two servers on one PostgreSQL database, requests alternating"
DATABASE_URL=$pgurl/two?sslmode=disable start postgres-a "$build/realworld" -addr 127.0.0.1:0
a=$addr
DATABASE_URL=$pgurl/two?sslmode=disable start postgres-b "$build/realworld" -addr 127.0.0.1:0
b=$addr
start proxy "$build/roundrobin" -addr 127.0.0.1:0 "http://$a" "http://$b"
newman alternating "http://$addr/api"
n0=$(grep -c -- '-> backend 0' "$build/proxy.log" || true)
n1=$(grep -c -- '-> backend 1' "$build/proxy.log" || true)
echo "the proxy sent $n0 requests to one server and $n1 to the other"
if [ "$n0" -eq 0 ] || [ "$n1" -eq 0 ] || [ $((n0 - n1)) -gt 1 ] || [ $((n1 - n0)) -gt 1 ]; then
	echo "the requests did not alternate" >&2
	exit 1
fi
step
