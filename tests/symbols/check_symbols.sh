#!/bin/sh
# tests/symbols/check_symbols.sh - every global symbol of the libraries
# starts with tdr_.
#
# usage: check_symbols.sh NM LIB.a...       check the libraries
#        check_symbols.sh --self-test NM CC  check that a bad name is caught,
#                                            on an archive built in a temp dir
#
# Fails (exit 1, one line per symbol) when a library defines a global
# symbol (function or data, weak ones too) whose name does not start with
# tdr_: the libraries are linked into other programs (tests, benchmarks,
# perhaps a shared object one day), and an unprefixed global such as
# render_text or maps_find can clash with a name of theirs. Private
# functions shared between the files of a module are tdr_<module>_...;
# file-local ones are static (tdrec/tdr_api.h). Also fails when a library
# has no tdr_ symbol at all, so that a wrong path or an nm that prints
# nothing does not pass. Test programs and fuzz targets are not checked.
set -u

check() {
	nm=$1
	shift
	fail=0
	for lib in "$@"; do
		if ! out=$("$nm" -g --defined-only "$lib" 2>&1); then
			echo "$lib: nm failed: $out"
			fail=1
			continue
		fi
		# Lines "ADDR TYPE NAME"; archive member headers and blank lines
		# have fewer fields.
		# AddressSanitizer's ODR indicators (__odr_asan.<global>) are
		# the compiler's, one per global variable: not ours to name.
		syms=$(printf '%s\n' "$out" | awk 'NF == 3 && $2 ~ /^[A-Za-z]$/ { print $3 }' |
			grep -v '^__odr_asan[.]' || true)
		if ! printf '%s\n' "$syms" | grep -q '^tdr_'; then
			echo "$lib: no tdr_ symbol found (wrong file, or nm printed nothing)"
			fail=1
		fi
		for s in $(printf '%s\n' "$syms" | grep -v '^tdr_'); do
			echo "$lib: global symbol '$s' does not start with tdr_ (make it static, or name it tdr_<module>_...)"
			fail=1
		done
	done
	return $fail
}

if [ "${1:-}" = "--self-test" ]; then
	nm=$2
	cc=$3
	dir=$(mktemp -d) || exit 1
	trap 'rm -rf "$dir"' EXIT
	cat >"$dir/m.c" <<'EOC'
static int helper(void) { return 1; }
int tdr_m_good(void) { return helper(); }
int tdr_m_data = 1;
int bad_function(void) { return 2; }
int bad_data = 3;
EOC
	"$cc" -c -o "$dir/m.o" "$dir/m.c" || exit 1
	ar rc "$dir/libtdr_m.a" "$dir/m.o" || exit 1
	out=$(check "$nm" "$dir/libtdr_m.a")
	ok=1
	for want in bad_function bad_data; do
		printf '%s\n' "$out" | grep -q "'$want'" || { echo "self-test: $want not caught"; ok=0; }
	done
	for good in tdr_m_good tdr_m_data helper; do
		printf '%s\n' "$out" | grep -q "'$good'" && { echo "self-test: $good flagged"; ok=0; }
	done
	[ $ok = 1 ] && echo "self-test: ok"
	[ $ok = 1 ]
	exit $?
fi

check "$@"
