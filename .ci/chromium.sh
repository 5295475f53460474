#!/usr/bin/env bash
# Sourced by the browser tests' scripts (examples/*/e2e.sh): sets $chrome to
# the browser binary, installing Debian's chromium package when it is
# missing. CHROMIUM names another browser binary instead.

if [ -n "${CHROMIUM:-}" ]; then
	if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
		echo "e2e: CHROMIUM=$CHROMIUM is not an executable" >&2
		exit 1
	fi
elif ! command -v chromium >/dev/null 2>&1; then
	echo "== installing chromium (apt-get)"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >/dev/null
	$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
chrome=${CHROMIUM:-chromium}
