#!/bin/sh
# tests/docs/check_refs.sh - every reference in the repository resolves.
#
# usage: check_refs.sh SOURCE_DIR     check the tree (the tracked files when
#                                     it is a checkout, else every file)
#        check_refs.sh --self-test    check that each kind of bad reference
#                                     is caught, on trees made in a temp dir
#
# Fails (exit 1, one line per problem) when a file:
#   - names one of the design documents that never were in the repository,
#     or cites their sections by the old two-letter shorthand (the list is
#     NOT_HERE below, spelled in pieces so that this file passes);
#   - mentions docs/X.md where docs/X.md does not exist;
#   - cites a section that docs/X.md does not have: `docs/X.md "Name"`
#     (a heading starting with Name, its number ignored) or
#     `docs/X.md section N` (a heading numbered N); inside docs/, also
#     `X.md "Name"` and `[X.md](X.md), "Name"`;
#   - (a .md file) links to a relative path that does not exist.
# Only the first quoted name after a page is checked, and only on one line.
# Why: docs/architecture.md "Conventions" (comments cite docs/ pages or
# public sources).
set -u

NOT_HERE="kernel""-facts|design""\\.md|style""\\.md|prior""-art|topdown""-beyond|(^|[^a-z0-9_])K""F [0-9]"

fail=0
problem() {
	echo "$1"
	fail=1
}

# The headings of a page, without '#'s and without a leading number.
headings() {
	sed -n 's/^#\{1,6\}[[:space:]]\{1,\}//p' "$1" |
		sed 's/^[0-9][0-9.]*[[:space:]]\{1,\}//'
}

# Does page $1 have a heading that starts with $2 (case-insensitive)?
has_heading() {
	headings "$1" | awk -v want="$2" '
		BEGIN { want = tolower(want); found = 0 }
		index(tolower($0), want) == 1 { found = 1 }
		END { exit !found }'
}

# Does page $1 have a heading numbered $2 ("6" or "6.1")?
has_numbered() {
	sed -n 's/^#\{1,6\}[[:space:]]\{1,\}\([0-9][0-9.]*\).*/\1/p' "$1" |
		sed 's/\.$//' | grep -qx "$2"
}

list_files() {
	if git -C . rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C . ls-files
	else
		find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||'
	fi
}

check_tree() {
	cd "$1" || exit 2
	files=$(mktemp) || exit 2
	list_files | while IFS= read -r f; do
		# This script's own examples are not references.
		[ -f "$f" ] && [ "$f" != tests/docs/check_refs.sh ] && printf '%s\n' "$f"
	done >"$files"

	# 1. Documents that are not in the repository.
	tr '\n' '\0' <"$files" | xargs -0 grep -I -n -i -E "$NOT_HERE" /dev/null |
		while IFS= read -r hit; do
			echo "$hit"
			echo "  ^ names a document that is not in the repository:" \
				"cite docs/ or a public source"
		done >"$files.out"
	[ -s "$files.out" ] && problem "$(cat "$files.out")"

	# 2. docs/X.md must exist.
	tr '\n' '\0' <"$files" |
		xargs -0 grep -I -o -n -E 'docs/[A-Za-z0-9_-]+\.md' /dev/null |
		while IFS= read -r hit; do
			page=${hit##*:}
			[ -f "$page" ] || echo "$hit: no such page"
		done >"$files.out"
	[ -s "$files.out" ] && problem "$(cat "$files.out")"

	# 3. Sections: docs/X.md "Name" and docs/X.md section N, anywhere;
	# X.md "Name" and [X.md](X.md), "Name" inside docs/.
	{
		tr '\n' '\0' <"$files" | xargs -0 grep -I -o -n -E \
			'docs/[A-Za-z0-9_-]+\.md"?,? ("[^"]+"|section [0-9]+(\.[0-9]+)*)' \
			/dev/null
		grep '^docs/.*\.md$' "$files" | tr '\n' '\0' | xargs -0 grep -o -n -E \
			'(^|[^/A-Za-z0-9_-])(\[[A-Za-z0-9_-]+\.md\]\()?[A-Za-z0-9_-]+\.md\)?,? "[^"]+"' \
			/dev/null
	} | while IFS= read -r hit; do
		where=${hit%%:*}
		rest=${hit#*:}
		line=${rest%%:*}
		ref=${rest#*:}
		page=$(printf '%s\n' "$ref" | sed -E 's/^[^A-Za-z0-9_-]*(\[[^]]*\]\()?//; s/^([A-Za-z0-9_/-]*\.md).*/\1/')
		case $page in
		docs/*) ;;
		*) page=docs/${page##*/} ;;
		esac
		if [ ! -f "$page" ]; then
			echo "$where:$line: $ref: no such page"
			continue
		fi
		case $ref in
		*'"'*)
			name=$(printf '%s\n' "$ref" | sed -E 's/^[^"]*"([^"]*)".*/\1/')
			has_heading "$page" "$name" ||
				echo "$where:$line: $ref: $page has no heading \"$name\""
			;;
		*)
			num=${ref##* }
			has_numbered "$page" "$num" ||
				echo "$where:$line: $ref: $page has no section $num"
			;;
		esac
	done >"$files.out"
	[ -s "$files.out" ] && problem "$(cat "$files.out")"

	# 4. Relative links of markdown files.
	grep '\.md$' "$files" | while IFS= read -r f; do
		dir=$(dirname "$f")
		grep -o -n -E '\]\([^)[:space:]]+\)' "$f" | while IFS= read -r hit; do
			line=${hit%%:*}
			target=${hit#*](}
			target=${target%)}
			target=${target%%#*}
			case $target in
			'' | http:* | https:* | mailto:*) continue ;;
			esac
			[ -e "$dir/$target" ] || echo "$f:$line: link to $target: no such file"
		done
	done >"$files.out"
	[ -s "$files.out" ] && problem "$(cat "$files.out")"

	rm -f "$files" "$files.out"
	return $fail
}

# Each case: a tree with one good page and one bad reference must fail;
# the good tree alone must pass.
self_test() {
	tmp=$(mktemp -d) || exit 2
	trap 'rm -rf "$tmp"' EXIT
	n=0
	bad=0
	make_tree() {
		rm -rf "$tmp/t"
		mkdir -p "$tmp/t/docs" "$tmp/t/src"
		printf '# Page\n\n## 2. Numbered\n\n### 2.1 Sub\n\n## Some section\n' >"$tmp/t/docs/a.md"
		printf '/* See: docs/a.md "Some section"; docs/a.md section 2.1. */\n' >"$tmp/t/src/ok.c"
		printf 'See [a](a.md), "Numbered" and a.md "Some".\n' >"$tmp/t/docs/b.md"
	}
	expect() { # expect STATUS DESCRIPTION
		n=$((n + 1))
		(check_tree "$tmp/t" >"$tmp/log" 2>&1)
		got=$?
		if [ "$got" -ne "$1" ]; then
			echo "self-test $n ($2): exit $got, expected $1"
			cat "$tmp/log"
			bad=1
		fi
	}
	make_tree
	expect 0 "good tree"
	make_tree
	printf '/* as %s says */\n' "style"".md" >>"$tmp/t/src/ok.c"
	expect 1 "a document outside the repository"
	make_tree
	printf '/* (%s 1.4) */\n' "K""F" >>"$tmp/t/src/ok.c"
	expect 1 "the old shorthand"
	make_tree
	printf '/* See: docs/missing.md */\n' >>"$tmp/t/src/ok.c"
	expect 1 "a missing page"
	make_tree
	printf '/* See: docs/a.md "No such heading" */\n' >>"$tmp/t/src/ok.c"
	expect 1 "a missing heading"
	make_tree
	printf '/* See: docs/a.md section 3 */\n' >>"$tmp/t/src/ok.c"
	expect 1 "a missing numbered section"
	make_tree
	printf 'As a.md "Nothing" says.\n' >>"$tmp/t/docs/b.md"
	expect 1 "a missing heading cited inside docs/"
	make_tree
	printf 'See [c](c.md).\n' >>"$tmp/t/docs/b.md"
	expect 1 "a broken link"
	[ $bad -eq 0 ] && echo "self-test: $n cases passed"
	return $bad
}

case ${1:-} in
--self-test) self_test ;;
'') echo "usage: $0 SOURCE_DIR | --self-test" >&2; exit 2 ;;
*) check_tree "$1" ;;
esac
