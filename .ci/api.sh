#!/usr/bin/env bash
# The exported API of every public package, held against a recorded
# baseline, so that a breaking change cannot land unnoticed.
#
#   bash .ci/api.sh            check (what .ci/run runs)
#   bash .ci/api.sh update     record the current API as the baseline
#
# A public package is one of a module in go.work that is not a command
# (package main), not internal, not under examples/ (programs, not a
# library) and not in the benchmarks module (a measuring harness that is
# never tagged). `.ci/api/packages` lists them; `.ci/api/<dir>/pkg.x` is
# each one's API as golang.org/x/exp/cmd/apidiff writes it (export data,
# binary: `update` prints what changed in words).
#
# check fails when apidiff finds an incompatible change against the
# baseline (an identifier removed or changed, a package removed), or when
# a line of `.ci/api/BREAKING` names an identifier that CHANGELOG.md's
# [Unreleased] section does not mention. Compatible changes (additions)
# are printed and pass.
#
# update rewrites the baseline from the code, appends the incompatible
# changes it found against the old one to `.ci/api/BREAKING` (the breaking
# changes since the last release, in apidiff's words, one a line, after
# the package's import path and a tab), and then runs the changelog half
# of the check. Commit .ci/api and CHANGELOG.md in the same change. A
# release empties BREAKING (RELEASING.md).
#
# Installs apidiff at the pinned version below from the Go module proxy
# (built once, then cached by the go command). Needs Go only.
set -euo pipefail
cd "$(dirname "$0")/.."

apidiff_version=v0.0.0-20261113113407-e3970619a1a4 # of golang.org/x/exp
base=.ci/api

mode=${1:-check}
case $mode in
check | update) ;;
*)
	echo "usage: bash .ci/api.sh [check|update]" >&2
	exit 2
	;;
esac

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# With a version, go install ignores go.mod and go.work: the pin is all.
GOBIN=$bin GOFLAGS=-buildvcs=false go install "golang.org/x/exp/cmd/apidiff@$apidiff_version"
apidiff=$bin/apidiff

# public_packages prints the import paths of the public packages, sorted.
public_packages() {
	local dir
	go work edit -json | sed -n 's/^[[:space:]]*"DiskPath": "\(.*\)".*/\1/p' | while read -r dir; do
		case ${dir#./} in benchmarks) continue ;; esac
		(cd "$dir" && go list -f '{{if and (ne .Name "main") .GoFiles}}{{.ImportPath}}{{end}}' ./...)
	done | grep -vE '/internal(/|$)|^github\.com/waltz-go/waltz/examples(/|$)' | LC_ALL=C sort
}

# file prints the baseline file of an import path: .ci/api/pkg.x for the
# root package, .ci/api/middleware/pkg.x for middleware.
file() {
	echo "$base${1#github.com/waltz-go/waltz}/pkg.x"
}

# report prints apidiff's report of a package against its baseline file.
report() {
	"$apidiff" "$(file "$1")" "$1"
}

# incompatible and compatible print the lines ("- Name: what") of one
# half of a report read on standard input.
incompatible() { awk '/^Incompatible changes:/ { on = 1; next } /^Compatible changes:/ { on = 0 } on'; }
compatible() { awk '/^Compatible changes:/ { on = 1; next } /^Incompatible changes:/ { on = 0 } on'; }

# undocumented prints each line of BREAKING whose identifier (the last
# element of the name before the first ": ", such as Bar in
# "(*Router).Bar: removed", or the last element of a removed package's
# path) does not appear in CHANGELOG.md's [Unreleased] section.
undocumented() {
	local section line name
	[ -s "$base/BREAKING" ] || return 0
	section=$(awk '/^## / { if (on) exit; if ($0 ~ /^## \[Unreleased\]/) { on = 1; next } } on' CHANGELOG.md)
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		name=${line#*	}
		name=${name#- }
		name=${name#package }
		name=${name%%: *}
		name=${name##*[./]}
		if ! grep -qwF -- "$name" <<<"$section"; then
			echo "$line"
		fi
	done <"$base/BREAKING"
}

changelog_failure() {
	cat >&2 <<'EOF'

These breaking changes, recorded in .ci/api/BREAKING, are not described in
CHANGELOG.md's "## [Unreleased]" section (under "### Changed" or
"### Removed", naming each identifier and what to use instead). Describe
them there and commit CHANGELOG.md with the baseline.
EOF
}

current=$(public_packages)
recorded=
[ -f "$base/packages" ] && recorded=$(cat "$base/packages")

if [ "$mode" = update ]; then
	breaking=
	[ -f "$base/BREAKING" ] && breaking=$(cat "$base/BREAKING")
	words=
	for pkg in $recorded; do
		if ! grep -qxF -- "$pkg" <<<"$current"; then
			breaking+=${breaking:+$'\n'}"$pkg	- package $pkg: removed"
			words+="$pkg: removed"$'\n'
			continue
		fi
		r=$(report "$pkg")
		[ -n "$r" ] && words+="$pkg:"$'\n'"$r"$'\n'
		while IFS= read -r line; do
			breaking+=${breaking:+$'\n'}"$pkg	$line"
		done < <(incompatible <<<"$r")
	done
	for pkg in $current; do
		grep -qxF -- "$pkg" <<<"$recorded" || words+="$pkg: a new package"$'\n'
	done
	rm -rf "$base"
	mkdir -p "$base"
	echo "$current" >"$base/packages"
	[ -n "$breaking" ] && echo "$breaking" >"$base/BREAKING" || : >"$base/BREAKING"
	for pkg in $current; do
		mkdir -p "$(dirname "$(file "$pkg")")"
		# -trimpath: the export data's positions name each file by its
		# import path, not by where this clone lives.
		GOFLAGS="${GOFLAGS:-} -trimpath" "$apidiff" -w "$(file "$pkg")" "$pkg"
	done
	echo "recorded the API of $(wc -l <"$base/packages") packages in $base"
	if [ -n "$words" ]; then
		echo "changes against the previous baseline:"
		printf '%s' "$words"
	else
		echo "no change against the previous baseline"
	fi
	missing=$(undocumented)
	if [ -n "$missing" ]; then
		echo "$missing" >&2
		changelog_failure
		exit 1
	fi
	exit 0
fi

failed=
for pkg in $recorded; do
	if ! grep -qxF -- "$pkg" <<<"$current"; then
		failed+="- package $pkg: removed"$'\n'
		continue
	fi
	r=$(report "$pkg")
	bad=$(incompatible <<<"$r")
	good=$(compatible <<<"$r")
	[ -n "$bad" ] && failed+="$pkg:"$'\n'"$bad"$'\n'
	[ -n "$good" ] && printf '%s (compatible, passes):\n%s\n' "$pkg" "$good"
done
for pkg in $current; do
	grep -qxF -- "$pkg" <<<"$recorded" || echo "$pkg: a new package (compatible, passes)"
done
if [ -n "$failed" ]; then
	printf '%s' "$failed" >&2
	cat >&2 <<'EOF'

The exported API changed incompatibly against the baseline in .ci/api.
If that is not meant, restore what was removed or changed. If it is:
  1. describe each change in CHANGELOG.md under "## [Unreleased]"
     ("### Changed" or "### Removed": the identifier and what to use instead);
  2. run: bash .ci/api.sh update
  3. commit .ci/api and CHANGELOG.md in the same change.
EOF
	exit 1
fi
missing=$(undocumented)
if [ -n "$missing" ]; then
	echo "$missing" >&2
	changelog_failure
	exit 1
fi
echo "the exported API of $(wc -l <<<"$current") packages is compatible with the baseline in $base"
