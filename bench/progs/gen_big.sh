#!/usr/bin/env bash
# bench/progs/gen_big.sh N - print a C program with N hot functions, each with
# two levels of always-inlined helpers, for measuring symbolization cost
# (many distinct functions, inline chains and source lines).
# The program: big [ROUNDS [THREADS]] walks the table of functions ROUNDS
# times in each of THREADS threads (default 20 rounds, 2 threads; the main
# thread is one of them).
set -euo pipefail
n=${1:-2000}
cat <<'HDR'
#include <pthread.h>
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
static uint64_t rounds = 20;

static void *walk(void *arg)
{
	uint64_t h = (uint64_t)(uintptr_t)arg;

	for (uint64_t r = 0; r < rounds; r++)
		for (int i = 0; i < $n; i++)
			h = table[i](h, 2000 + (uint64_t)(i % 7) * 500);
	return (void *)(uintptr_t)h;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t tid[64];
	uint64_t h;

	if (argc > 1)
		rounds = strtoull(argv[1], NULL, 10);
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "usage: big [ROUNDS [THREADS 1..64]]\\n");
		return 2;
	}
	for (int t = 1; t < threads; t++)
		if (pthread_create(&tid[t], NULL, walk, (void *)(uintptr_t)(t + 1))) {
			perror("pthread_create");
			return 1;
		}
	h = (uint64_t)(uintptr_t)walk((void *)(uintptr_t)1);
	for (int t = 1; t < threads; t++) {
		void *ret;

		pthread_join(tid[t], &ret);
		h ^= (uint64_t)(uintptr_t)ret;
	}
	printf("big: %llx\\n", (unsigned long long)h);
	return 0;
}
MAIN
