#!/usr/bin/env bash
# Measures the example beside the gin implementation of RealWorld
# (github.com/gothinkster/golang-gin-realworld-example-app), on the same
# database engine with the same data, and counts both programs' Go lines.
#
#   GIN_SRC=/path/to/golang-gin-realworld-example-app bash bench.sh
#
# Without GIN_SRC it clones the gin app from GitHub. Nothing of it comes
# into this repository: it is copied to a temporary directory, where its
# six binding tags "exists" become "required" (the validator gin uses now
# has no "exists", so register and login answer 500 as published), and
# built there; its binary goes to build/bench.
#
# Both servers keep their data in SQLite, in files on tmpfs (/dev/shm):
# waltz's through modernc.org/sqlite (pure Go), gin's through gorm and
# mattn/go-sqlite3 (cgo), both files in WAL mode (gin's set with the
# sqlite3 command before it starts, as gin's code leaves the default
# journal), so neither waits on a disk. Each gets the same data through
# its own API: 20 users, 10 articles each with 3 tags, user01 following
# 10 users (a feed of 100 articles), 10 favorites each. gin runs as
# published (gin.Default: its request logger on, to /dev/null) with
# GIN_MODE=release.
#
# The load: wrk (CONNS connections, 2 threads, a 30 s timeout so that a
# slow answer counts in the latencies rather than as an error) on
# loopback, on GET /api/articles, GET /api/articles/:slug (the 200 slugs
# in turn), GET /api/articles/feed and POST /api/articles/:slug/favorite
# (as user01), SECS seconds each, both servers taking turns endpoint by endpoint for
# ROUNDS rounds (which goes first alternates), after a warm-up. Requests
# per second are all of a server's requests over all its time on the
# endpoint, p99 the median of its rounds' p99. Any answer that is not 2xx
# fails the run. Lines: cloc's code lines of the Go files that are not
# tests (no blank or comment lines).
#
# Installs what it needs when missing: wrk, sqlite3, cloc and curl from
# Debian (apt-get update first).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
rounds=${ROUNDS:-3}
secs=${SECS:-5}
conns=${CONNS:-32}
build=$here/build/bench
rm -rf "$build"
mkdir -p "$build"

missing=()
for tool in wrk sqlite3 cloc curl; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update && apt-get install -y "${missing[@]}"
fi

pids=()
gin_src=$(mktemp -d)
data=$(mktemp -d -p /dev/shm realworld-bench.XXXXXX)
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$gin_src" "$data"
}
trap cleanup EXIT

echo "== the gin app: copy, six tags, build (in $gin_src)"
if [ -z "${GIN_SRC:-}" ]; then
	git clone -q --depth 1 https://github.com/gothinkster/golang-gin-realworld-example-app "$gin_src/clone"
	GIN_SRC=$gin_src/clone
fi
mkdir -p "$gin_src/app"
(cd "$GIN_SRC" && tar --exclude=.git -cf - .) | tar -xf - -C "$gin_src/app"
sed -i 's/binding:"exists,/binding:"required,/' "$gin_src/app/users/validators.go" "$gin_src/app/articles/validators.go"
changed=$(cat "$gin_src/app/users/validators.go" "$gin_src/app/articles/validators.go" | grep -c 'binding:"required,')
if [ "$changed" -ne 6 ]; then
	echo "expected the six binding tags of the published gin app, changed $changed" >&2
	exit 1
fi
(cd "$gin_src/app" && GOWORK=off GOFLAGS=-mod=mod go build -o "$build/gin-realworld" .)
go build -o "$build/waltz-realworld" .

# wait_up base: waits until the server at base answers GET /api/tags.
wait_up() {
	for _ in $(seq 100); do
		curl -fsL -o /dev/null "$1/api/tags" && return 0
		sleep 0.1
	done
	echo "no server at $1" >&2
	exit 1
}

echo "== start both on SQLite in $data"
waltz=http://127.0.0.1:4101
gin=http://127.0.0.1:4102
JWT_KEY=bench-key-that-is-long-enough-for-hs256-signing "$build/waltz-realworld" \
	-addr 127.0.0.1:4101 -sqlite "$data/waltz.db" 2>"$build/waltz.log" &
pids+=($!)
mkdir -p "$data/gin/run"
sqlite3 "$data/gin/gorm.db" 'PRAGMA journal_mode=WAL;' >/dev/null
# The gin app opens ./../gorm.db and listens on $PORT.
(cd "$data/gin/run" && GIN_MODE=release PORT=4102 exec "$build/gin-realworld" >/dev/null 2>"$build/gin.log") &
pids+=($!)
wait_up "$waltz"
wait_up "$gin"

# call base method path [token] [body]: one request of the seeding,
# following the redirects gin answers for a path without its trailing
# slash; prints the answer.
call() {
	local args=(-fsSL --post301 --post302 --post303 -X "$2" -H 'Content-Type: application/json')
	[ -n "${4:-}" ] && args+=(-H "Authorization: Token $4")
	[ -n "${5:-}" ] && args+=(-d "$5")
	curl "${args[@]}" "$1$3"
}

# member name: prints the value of each JSON string or number member name
# of its input, one a line (gin ends its answers without a newline).
member() {
	grep -o "\"$1\":\"*[^\",}]*" | sed 's/.*:"*//'
}

# seed base: gives the server at base the data, writes its slugs to
# $build/slugs-<port> and sets token to user01's.
seed() {
	local base=$1 tokens=() u n k
	local tags=(dragons training go sql http json rest api web test)
	for u in $(seq -w 1 20); do
		call "$base" POST /api/users "" "{\"user\":{\"username\":\"user$u\",\"email\":\"user$u@example.com\",\"password\":\"password1\"}}" >/dev/null
		tokens+=("$(call "$base" POST /api/users/login "" "{\"user\":{\"email\":\"user$u@example.com\",\"password\":\"password1\"}}" | member token)")
	done
	local body
	body=$(printf 'Dragons are trained with patience. %.0s' $(seq 14))
	: >"$build/slugs-${base##*:}"
	for u in $(seq 0 19); do
		for n in $(seq 0 9); do
			call "$base" POST /api/articles "${tokens[$u]}" "{\"article\":{\"title\":\"Dragons $u $n\",\"description\":\"How user $u trains dragon $n\",\"body\":\"$body\",\"tagList\":[\"${tags[$(((u + n) % 10))]}\",\"${tags[$(((u + 2 * n + 1) % 10))]}\",\"${tags[$(((u + 3 * n + 2) % 10))]}\"]}}" |
				member slug >>"$build/slugs-${base##*:}"
		done
	done
	for u in $(seq -w 2 11); do
		call "$base" POST "/api/profiles/user$u/follow" "${tokens[0]}" >/dev/null
	done
	mapfile -t slugs <"$build/slugs-${base##*:}"
	for u in $(seq 0 19); do
		for k in $(seq 0 9); do
			call "$base" POST "/api/articles/${slugs[$(((u * 7 + k * 13) % 200))]}/favorite" "${tokens[$u]}" >/dev/null
		done
	done
	token=${tokens[0]}
}

echo "== seed both through their APIs"
seed "$waltz"
waltz_token=$token
seed "$gin"
gin_token=$token
if ! cmp -s "$build/slugs-4101" "$build/slugs-4102"; then
	echo "the two apps made different slugs" >&2
	exit 1
fi
for s in "$waltz $waltz_token" "$gin $gin_token"; do
	set -- $s
	all=$(call "$1" GET /api/articles | member articlesCount)
	# gin's feed answers articlesCount 0 whatever it holds: count its page.
	feed=$(call "$1" GET "/api/articles/feed?limit=100" "$2" | member slug | wc -l)
	echo "$1: $all articles, a feed of $feed"
	if [ "$all" != 200 ] || [ "$feed" != 100 ]; then
		echo "the data is not what was seeded" >&2
		exit 1
	fi
done
echo "gin's journal mode: $(sqlite3 "$data/gin/gorm.db" 'PRAGMA journal_mode;'), waltz's: $(sqlite3 "$data/waltz.db" 'PRAGMA journal_mode;')"

endpoints=(
	"GET /api/articles|GET|/api/articles|/api/articles/|"
	"GET /api/articles/:slug|GET|/api/articles/{slug}|/api/articles/{slug}|"
	"GET /api/articles/feed|GET|/api/articles/feed|/api/articles/feed|token"
	"POST /api/articles/:slug/favorite|POST|/api/articles/{slug}/favorite|/api/articles/{slug}/favorite|token"
)

# load app ep seconds: runs wrk on endpoint ep of app (waltz or gin) and
# prints its RESULT line.
load() {
	local name method wpath gpath auth base path tok
	IFS='|' read -r name method wpath gpath auth <<<"$2"
	if [ "$1" = waltz ]; then
		base=$waltz path=$wpath tok=$waltz_token
	else
		base=$gin path=$gpath tok=$gin_token
	fi
	[ -n "$auth" ] || tok=
	METHOD=$method PATH_TEMPLATE=$path TOKEN=$tok SLUGS=$build/slugs-4101 \
		wrk -t2 -c"$conns" -d"$3"s --timeout 30s -s bench.lua "$base" | grep '^RESULT'
}

echo "== warm-up"
for ep in "${endpoints[@]}"; do
	for app in waltz gin; do
		load "$app" "$ep" 2 >/dev/null
	done
done

echo "== $rounds rounds of ${secs}s per endpoint and server, $conns connections"
results=$build/results.txt
: >"$results"
for round in $(seq "$rounds"); do
	order="waltz gin"
	[ $((round % 2)) -eq 0 ] && order="gin waltz"
	for i in "${!endpoints[@]}"; do
		for app in $order; do
			line=$(load "$app" "${endpoints[$i]}" "$secs")
			echo "$round $i $app ${line#RESULT }" | tee -a "$results"
		done
	done
done

if awk '$8 > 0 || $9 > 0 { bad = 1 } END { exit !bad }' "$results"; then
	echo "some answers were not 2xx, or sockets failed (columns 8 and 9):" >&2
	exit 1
fi

echo
echo "$(date -u +%F), waltz at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| endpoint | waltz req/s | gin req/s | waltz/gin | waltz p99 | gin p99 |"
echo "|---|---:|---:|---:|---:|---:|"
for i in "${!endpoints[@]}"; do
	name=${endpoints[$i]%%|*}
	awk -v i="$i" -v name="$name" '
		function median(a, n,   j, k, t) {
			for (j = 1; j <= n; j++) for (k = j + 1; k <= n; k++) if (a[k] < a[j]) { t = a[j]; a[j] = a[k]; a[k] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		$2 == i { req[$3] += $4; dur[$3] += $5; p99[$3, ++n[$3]] = $7 / 1000 }
		END {
			for (app in n) { for (j = 1; j <= n[app]; j++) x[j] = p99[app, j]; m[app] = median(x, n[app]) }
			w = req["waltz"] / dur["waltz"] * 1e6; g = req["gin"] / dur["gin"] * 1e6
			printf "| `%s` | %.0f | %.0f | %.2f | %.1f ms | %.1f ms |\n", name, w, g, w / g, m["waltz"], m["gin"]
		}' "$results"
done

echo
echo "Go lines (cloc: code, no tests, no blank or comment lines):"
printf '  waltz example: %s\n' "$(cloc --include-lang=Go --not-match-f='_test\.go$' --exclude-dir=node_modules,build --quiet --csv . | awk -F, '$2 == "Go" { print $5 }')"
printf '  gin app:       %s\n' "$(cloc --include-lang=Go --not-match-f='_test\.go$' --quiet --csv "$gin_src/app" | awk -F, '$2 == "Go" { print $5 }')"
