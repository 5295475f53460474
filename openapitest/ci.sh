#!/usr/bin/env bash
# What CI runs for the OpenAPI proof of the bookmarks example, with tools
# no one in this repository wrote:
#
#  1. go test: the document builds as an OpenAPI 3.1 model in
#     pb33f/libopenapi, and every request and response of an integration
#     test against the example's router is validated against it with
#     pb33f/libopenapi-validator;
#  2. @redocly/cli lint (its recommended rules) finds no error in the
#     documents the running example serves, OpenAPI 3.1 and 3.2;
#  3. openapi-typescript (its Node API, client/gen.mjs, which types a
#     binary part as Blob) turns that document into TypeScript types, tsc
#     (strict) checks a client written with openapi-fetch against them, and
#     node runs the client against the example server: create, list with
#     filters, get and revalidate (304), an edit by JSON Merge Patch with
#     If-Match and the lost update refused (412), a create retried with its
#     Idempotency-Key (replayed), delete, a validation failure read as
#     problem details, an image uploaded with FormData, replaced by a GIF
#     (every byte of it ASCII) and a text refused as an image; then
#     client/src/media.ts reads a bookmark in XML, downloads its picture
#     (whole, then a range: 206) and reads the feed's events, each typed
#     by the component the document's text/event-stream schema holds an
#     array of (contentSchema). A document that disagrees with the server
#     fails tsc or the run;
#  4. @stoplight/prism-cli 5.16 (`prism proxy`, the 3.1 document: Prism
#     5.16 knows no 3.2) validates every request and answer of the same
#     client run, sent through it to a new example: client/prism-check.mjs
#     reads Prism's log, lists each exchange with its operation, and fails
#     on a response violation outside its known list (the XML read, which
#     Prism validates as a string), on a request violation the client
#     does not make on purpose (those it does: a delete without a token,
#     an invalid create, ?limit=1000, listed with what Prism says), and on a list
#     entry not seen. A second Prism with the renamed document (3) must
#     be read as response violations. Prism reads non-JSON bodies as
#     text, so the PNG upload and the picture's two downloads cannot pass
#     through it: those three client checks must fail there, and only
#     those; the feed, which Prism forwards only once it ends, ends when
#     the example is stopped with it open (it must exit 0).
#
# Installs what it needs: node and npm from Debian when missing, the npm
# tools with `npm ci` from client/package-lock.json. Every connection is to
# 127.0.0.1. Prints the time of each step.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
build=$here/build
client=$here/client
rm -rf "$build" "$client/gen" "$client/build"
mkdir -p "$build" "$client/gen"

step() {
	now=$(date +%s.%N)
	if [ -n "${began:-}" ]; then
		awk -v a="$began" -v b="$now" 'BEGIN { printf "   (%.1f s)\n", b - a }'
	fi
	began=$now
	[ $# -gt 0 ] && echo "== openapitest: $*"
	return 0
}

step "go vet, go test (libopenapi, libopenapi-validator)"
go vet ./...
go test -count 1 ./...

step "node and the npm tools (npm ci)"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	apt-get update && apt-get install -y nodejs npm
fi
# @redocly/cli 2.x needs node 20.19 or later.
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
	echo "node $(node --version) is too old: @redocly/cli needs 20.19 or later" >&2
	exit 1
fi
# SCARF_ANALYTICS=false: @stoplight/prism-cli's dependency @scarf/scarf
# would report the install from a postinstall script.
(cd "$client" && SCARF_ANALYTICS=false npm ci --no-audit --no-fund --loglevel=error)

# What this script starts in the background, ended on any exit.
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT

# listening PID LOG SCRIPT: waits up to 30 s, while process PID runs,
# for sed SCRIPT to print the address it listens on from $build/LOG,
# and prints it; fails, showing the log, if it does not.
listening() {
	local addr=
	for _ in $(seq 600); do
		addr=$(sed -n "$3" "$build/$2")
		[ -n "$addr" ] && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if [ -z "$addr" ]; then
		echo "process $1 did not start to listen:" >&2
		cat "$build/$2" >&2
		return 1
	fi
	echo "$addr"
}

# start_example LOG: starts the example (built in the step below) on
# 127.0.0.1:0 with an empty store, its log in $build/LOG; sets pid and
# base.
start_example() {
	"$build/bookmarks" -addr 127.0.0.1:0 -token "$token" 2>"$build/$1" &
	pid=$!
	pids+=("$pid")
	local addr
	addr=$(listening "$pid" "$1" 's/.*listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p') || exit 1
	base=http://$addr
}

# stop_example LOG: stops the example started last with SIGTERM; it must
# exit 0.
stop_example() {
	kill -TERM "$pid"
	local status=0
	wait "$pid" || status=$?
	if [ "$status" -ne 0 ]; then
		echo "the example exited $status on SIGTERM:" >&2
		cat "$build/$1" >&2
		exit 1
	fi
}

step "start the example (go build ./examples/bookmarks)"
token=ci-$RANDOM$RANDOM
go build -o "$build/bookmarks" ../examples/bookmarks
start_example server.log
curl -fsS "$base/openapi.json" -o "$build/openapi.json"
curl -fsS "$base/openapi-3.2.json" -o "$build/openapi-3.2.json"

step "redocly lint (the OpenAPI 3.1 document, then the 3.2 one)"
(cd "$client" && npx --no-install redocly lint --config redocly.yaml "$build/openapi.json")
(cd "$client" && npx --no-install redocly lint --config redocly.yaml "$build/openapi-3.2.json")

step "openapi-typescript, tsc --noEmit (strict)"
(cd "$client" && node gen.mjs "$build/openapi.json" gen/schema.d.ts)
(cd "$client" && npx --no-install tsc --noEmit -p .)

step "a document that disagrees with the client fails tsc (Bookmark.title renamed)"
# The check above can fail: the same client, typed from a copy of the
# document whose Bookmark schema calls title "name", must not compile.
node -e '
const fs = require("fs");
const doc = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const b = doc.components.schemas.Bookmark;
b.properties.name = b.properties.title;
delete b.properties.title;
b.required = (b.required || []).map((r) => (r === "title" ? "name" : r));
fs.writeFileSync(process.argv[2], JSON.stringify(doc));
' "$build/openapi.json" "$build/openapi-renamed.json"
(cd "$client" && node gen.mjs "$build/openapi-renamed.json" gen/schema.d.ts >/dev/null 2>&1)
if (cd "$client" && npx --no-install tsc --noEmit -p . >"$build/tsc-renamed.txt" 2>&1); then
	echo "tsc passed a client typed from a document that disagrees with it" >&2
	exit 1
fi
echo "tsc refused it, as it must: $(grep -m1 "title" "$build/tsc-renamed.txt")"
(cd "$client" && node gen.mjs "$build/openapi.json" gen/schema.d.ts >/dev/null 2>&1)

step "the typed client against the example server"
(cd "$client" && npx --no-install tsc -p .)
node "$client/build/src/client.js" "$base" "$token"

step "the typed client's downloads, XML and event stream against the example server"
node "$client/build/src/media.js" "$base" "$token"

step "stop the example (SIGTERM, exit 0)"
stop_example server.log

step "Prism $(node -p 'require("./client/node_modules/@stoplight/prism-cli/package.json").version') as a validating proxy: the typed client's run through it"
# A new example (an empty store, as the client's checks expect), and
# `prism proxy` in front of it with the OpenAPI 3.1 document it serves.
# (Prism 5.16 knows no 3.2: it reads /openapi-3.2.json as 3.x and drops
# what 3.2 adds, the QUERY search and each stream's itemSchema.) It
# validates each request and each answer; without --errors it forwards
# every request, so the client's invalid ones get the server's refusal,
# and logs each violation (with --errors it would answer those requests
# itself, 422, and turn an answer that breaks the document into its own
# 500). Its log says on which exchange: client/prism-check.mjs reads it.
start_example prism-server.log

# start_prism DOCUMENT LOG: starts `prism proxy` in front of the example
# on 127.0.0.1:0; sets prism, its process.
start_prism() {
	FORCE_COLOR=0 "$client/node_modules/.bin/prism" proxy "$1" "$base" \
		--host 127.0.0.1 --port 0 --cors=false >"$build/$2" 2>&1 &
	prism=$!
	pids+=("$prism")
}

# prism_url PID LOG: waits until the Prism of process PID listens and
# prints its URL.
prism_url() {
	listening "$1" "$2" 's|.*Prism is listening on \(http://127\.0\.0\.1:[0-9]*\).*|\1|p'
}

# A second Prism, started beside the first, has the copy of the document
# whose Bookmark calls title "name" (made for tsc above): a list through
# it must be read as response violations, or the check could see none.
start_prism "$build/openapi-renamed.json" prism-renamed.log
renamed=$prism
start_prism "$base/openapi.json" prism.log
proxy=$(prism_url "$prism" prism.log)
node "$client/build/src/client.js" "$proxy" "$token" >"$build/prism-client.txt" || true

renamed_url=$(prism_url "$renamed" prism-renamed.log)
curl -fsS "$renamed_url/api/bookmarks" -o /dev/null
kill -TERM "$renamed"
wait "$renamed" 2>/dev/null || true
if node "$client/prism-check.mjs" "$build/prism-renamed.log" "$build/openapi-renamed.json" >"$build/prism-renamed.txt" ||
	! grep -q "^response violations: [1-9]" "$build/prism-renamed.txt" ||
	! grep -q "listBookmarks: GET /api/bookmarks -> 200: response.body.items.0: .*required property 'name'" "$build/prism-renamed.txt"; then
	echo "the check did not find the response violations of a document that disagrees with the server:" >&2
	cat "$build/prism-renamed.txt" >&2
	exit 1
fi
echo "   the check finds a renamed title, as it must: $(grep -m1 "required property 'name'" "$build/prism-renamed.txt" | sed 's/^ *//')"

# The feed does not end, and Prism forwards an answer only once it has
# all of it: media.ts's last request, the feed, waits until the example
# is stopped, which ends the stream (and must still exit 0); then Prism
# validates it and the client reads its events.
node "$client/build/src/media.js" "$proxy" "$token" >"$build/prism-media.txt" &
media=$!
pids+=("$media")
for _ in $(seq 100); do
	grep -q 'Forwarding "get" request to .*/api/changes' "$build/prism.log" && break
	kill -0 "$media" 2>/dev/null || break
	sleep 0.1
done
sleep 0.3 # the request on its way from Prism to the example
stop_example prism-server.log
wait "$media" || true
kill -TERM "$prism"
wait "$prism" 2>/dev/null || true
trap - EXIT
sed 's/^/   /' "$build/prism-client.txt" "$build/prism-media.txt"

# What Prism does to a body keeps three checks from passing through it:
# it reads every body that is not JSON as UTF-8 text, a PNG's bytes
# included (stoplightio/prism#1321, #2349), so the PNG uploaded reaches
# the server changed (415), and the picture downloaded reaches the client
# changed, whole and in a range. Any other check that fails fails here; so
# does one of these that passes (take it off the list).
prism_breaks=(
	"upload an image with FormData"
	"download the picture: a PNG"
	"download its first 8 bytes: 206"
)
for f in prism-client.txt prism-media.txt; do
	if ! grep -Eq '^(client|media): every check passed$|^[0-9]+ check\(s\) failed$' "$build/$f"; then
		echo "the typed client's run through Prism did not end ($f)" >&2
		exit 1
	fi
done
got=$(sed -n 's/^FAIL \(.*\): got .*/\1/p' "$build/prism-client.txt" "$build/prism-media.txt" | sort)
want=$(printf '%s\n' "${prism_breaks[@]}" | sort)
if [ "$got" != "$want" ]; then
	echo "through Prism, the checks that failed are not the ones its handling of bodies explains:" >&2
	diff <(echo "$want") <(echo "$got") >&2 || true
	exit 1
fi
echo "   the checks that failed through Prism: the ${#prism_breaks[@]} its reading of binary bodies as text explains"
node "$client/prism-check.mjs" "$build/prism.log" "$build/openapi.json"
step
