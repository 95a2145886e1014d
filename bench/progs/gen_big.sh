#!/usr/bin/env bash
# bench/progs/gen_big.sh N - print a C program with N hot functions, each with
# two levels of always-inlined helpers, for measuring symbolization cost
# (many distinct functions, inline chains and source lines).
set -euo pipefail
n=${1:-2000}
cat <<'HDR'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static inline __attribute__((always_inline)) uint64_t rot(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}
HDR
for ((i = 0; i < n; i++)); do
	cat <<FN
static inline __attribute__((always_inline)) uint64_t mix_$i(uint64_t h, uint64_t v)
{
	h ^= rot(v * 0x9e3779b97f4a7c15ull + $i, $((i % 60 + 1)));
	return h * 5 + 0x52dce729;
}
__attribute__((noinline)) uint64_t work_$i(uint64_t h, uint64_t n)
{
	for (uint64_t k = 0; k < n; k++)
		h = mix_$i(h, k);
	return h;
}
FN
done
echo "typedef uint64_t (*work_fn)(uint64_t, uint64_t);"
echo "static const work_fn table[$n] = {"
for ((i = 0; i < n; i++)); do echo "	work_$i,"; done
echo "};"
cat <<MAIN
int main(int argc, char **argv)
{
	uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 20, h = 1;

	for (uint64_t r = 0; r < rounds; r++)
		for (int i = 0; i < $n; i++)
			h = table[i](h, 2000 + (uint64_t)(i % 7) * 500);
	printf("big: %llx\n", (unsigned long long)h);
	return 0;
}
MAIN
