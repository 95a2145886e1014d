#!/bin/sh
# tests/docs/check_install.sh BUILD_DIR SOURCE_DIR - what 'cmake --install'
# gives, checked in a temporary prefix: a tdrec that runs (--version, a
# report of a shipped example), 'man tdrec-record' through MANPATH showing
# the same options as 'tdrec record --help', every command's page, bash
# completion that completes commands and a command's options, the zsh
# function and the docs. And the man pages in docs/man are what
# cmake/gen_man.cmake makes from this build's --help (they are regenerated
# and compared byte for byte: run it and commit when --help changes).
set -eu
build=$1
src=$2
prefix=$(mktemp -d /tmp/tdrec-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The committed pages are in step with --help.
cmake -DTDREC="$build/cli/tdrec" -DOUT="$prefix/man-regen" -P "$src/cmake/gen_man.cmake"
for f in "$prefix"/man-regen/*.1; do
	cmp -s "$f" "$src/docs/man/${f##*/}" ||
		fail "docs/man/${f##*/} differs from --help: cmake -DTDREC=build/cli/tdrec -DOUT=docs/man -P cmake/gen_man.cmake"
done
for f in "$src"/docs/man/*.1; do
	[ -e "$prefix/man-regen/${f##*/}" ] || fail "docs/man/${f##*/}: no such command any more"
done

cmake --install "$build" --prefix "$prefix/p" >/dev/null
bin=$prefix/p/bin/tdrec
[ -x "$bin" ] || fail "bin/tdrec not installed"
"$bin" --version | grep -q '^tdrec [0-9]' || fail "installed tdrec --version"
(cd "$src/examples" && "$bin" report -i amd-zen4.perf.data --csv) | grep -q branchy_filter ||
	fail "installed tdrec cannot report an example"

man=$(find "$prefix/p" -name tdrec-record.1 | head -1)
[ -n "$man" ] || fail "tdrec-record.1 not installed"
mandir=${man%/man1/tdrec-record.1}
for c in $("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'); do
	[ -e "$mandir/man1/tdrec-$c.1" ] || fail "no man page for tdrec $c"
done
[ -e "$mandir/man1/tdrec.1" ] || fail "no tdrec.1"
if command -v man >/dev/null 2>&1; then
	bs=$(printf '\b')
	page=$(MANPATH=$mandir MANWIDTH=100 man -P cat tdrec-record 2>/dev/null | sed "s/.$bs//g")
	for opt in $("$bin" record --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		printf '%s\n' "$page" | grep -q -- "$opt" || fail "man tdrec-record lacks $opt"
	done
fi

comp=$(find "$prefix/p" -path '*bash-completion/completions/tdrec' | head -1)
[ -n "$comp" ] || fail "bash completion not installed"
got=$(PATH="$prefix/p/bin:$PATH" bash -c ". '$comp'; COMP_WORDS=(tdrec rep); COMP_CWORD=1; _tdrec; echo \"\${COMPREPLY[*]}\"")
[ "$got" = report ] || fail "bash completion of 'tdrec rep': '$got'"
got=$(PATH="$prefix/p/bin:$PATH" bash -c ". '$comp'; COMP_WORDS=(tdrec stat --per); COMP_CWORD=2; _tdrec; echo \"\${COMPREPLY[*]}\"")
[ "$got" = --per-thread ] || fail "bash completion of 'tdrec stat --per': '$got'"
[ -n "$(find "$prefix/p" -name _tdrec)" ] || fail "zsh completion not installed"
[ -n "$(find "$prefix/p" -path '*doc*' -name record.md)" ] || fail "docs not installed"
echo "install ok"
