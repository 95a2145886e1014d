#!/bin/sh
# tests/libtdrec/install_test.sh - libtdrec as an outside program gets it:
# `cmake --install` into a temporary prefix, then outside.c built with
# `pkg-config --cflags --libs libtdrec` (the shared library) and with
# `pkg-config --static` against libtdrec.a, each run with TDREC_REGIONS:
# it must count its region and leave a regions file (magic TDRREGN\1)
# that `tdrec report --regions` reads.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CC TDREC [EXTRA_CFLAGS]
set -eu
build=$1 src=$2 cc=$3 tdrec=$4 extra=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
pc=$(find "$tmp/prefix" -name libtdrec.pc)
[ -n "$pc" ] || { echo "FAIL: no libtdrec.pc installed"; exit 1; }
test -f "$tmp/prefix/include/tdrec/regions.h" || { echo "FAIL: no header"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
libdir=$(pkg-config --variable=libdir libtdrec)
test -f "$libdir/libtdrec.a" || { echo "FAIL: no libtdrec.a in $libdir"; exit 1; }
# The shared library, as most programs link it.
# shellcheck disable=SC2086 # pkg-config's words are meant to split
$cc $extra "$src/tests/libtdrec/outside.c" -o "$tmp/outside" \
	$(pkg-config --cflags --libs libtdrec) -Wl,-rpath,"$libdir"
# The static library: pkg-config's private libraries must be enough.
# shellcheck disable=SC2086
$cc $extra "$src/tests/libtdrec/outside.c" -o "$tmp/outside-static" \
	$(pkg-config --cflags libtdrec) -L"$libdir" -Wl,-Bstatic -ltdrec -Wl,-Bdynamic \
	$(pkg-config --static --libs libtdrec | sed 's/-ltdrec//')
if ldd "$tmp/outside-static" | grep -q libtdrec; then
	echo "FAIL: outside-static loads libtdrec.so"; exit 1
fi
for prog in outside outside-static; do
	TDREC_REGIONS="$tmp/$prog.regions" "$tmp/$prog"
	head -c 8 "$tmp/$prog.regions" | od -c | grep -q 'T   D   R   R   E   G   N 001' ||
		{ echo "FAIL: $prog wrote no regions file"; exit 1; }
	"$tdrec" report --regions "$tmp/$prog.regions" --json | grep -q '"name": "outside"' ||
		{ echo "FAIL: tdrec report --regions does not show $prog's region"; exit 1; }
done
echo ok
