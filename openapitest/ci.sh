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
#     problem details, an image uploaded with FormData and a text refused
#     as an image; then client/src/media.ts reads a bookmark in XML,
#     downloads its picture (whole, then a range: 206) and reads the
#     feed's events, each typed by the document's text/event-stream
#     schema. A document that disagrees with the server fails tsc or the
#     run.
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
(cd "$client" && npm ci --no-audit --no-fund --loglevel=error)

step "start the example (go build ./examples/bookmarks)"
token=ci-$RANDOM$RANDOM
go build -o "$build/bookmarks" ../examples/bookmarks
"$build/bookmarks" -addr 127.0.0.1:0 -token "$token" 2>"$build/server.log" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
addr=
for _ in $(seq 100); do
	addr=$(sed -n 's/.*listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$build/server.log")
	[ -n "$addr" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$addr" ]; then
	echo "the example did not start:" >&2
	cat "$build/server.log" >&2
	exit 1
fi
base=http://$addr
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
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
trap - EXIT
if [ "$status" -ne 0 ]; then
	echo "the example exited $status on SIGTERM:" >&2
	cat "$build/server.log" >&2
	exit 1
fi
step
