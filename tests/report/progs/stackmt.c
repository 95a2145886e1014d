/*
 * tests/report/progs/stackmt.c - three threads with call stacks for --children.
 *
 * usage: stackmt [ROUNDS]   (default 200; a round is about 1 ms per thread)
 * The main thread and two others each run worker(), which calls outer_x
 * (threads 0 and 1) or outer_y (thread 2); both call the mid functions,
 * which call leaf(). Every function with samples sets up a frame, so the
 * kernel's frame-pointer walk sees every caller: the stacks test compares
 * tdrec's --children shares with perf's on it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define FN __attribute__((noinline))
#else
#define FN __attribute__((noinline, noclone))
#endif

#define N 200000ull

volatile uint64_t sink;

/* Called once per leaf() call: it makes leaf() a caller, and gcc sets
 * up a frame only in callers (not in a function that calls nothing, even
 * with -fno-omit-frame-pointer), so the frame-pointer walk sees who called
 * leaf(). */
FN static void note(void)
{
	__asm__ volatile("");
}

FN static uint64_t leaf(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	note();
	return x;
}

FN static uint64_t mid_a(uint64_t x)
{
	x = leaf(N, x);
	for (uint64_t i = 0; i < N; i++) /* its own work, as much as the leaf's */
		x ^= x >> 7, x *= 0x9e3779b97f4a7c15ull;
	return x;
}

FN static uint64_t mid_b(uint64_t x)
{
	return leaf(2 * N, x) + 1;
}

FN static uint64_t outer_x(uint64_t x)
{
	return mid_a(x) + mid_b(x);
}

FN static uint64_t outer_y(uint64_t x)
{
	return mid_b(mid_b(x));
}

static long rounds = 200;

FN static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint64_t x = id + 1;

	for (long r = 0; r < rounds; r++)
		x = id == 2 ? outer_y(x) : outer_x(x);
	sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		rounds = strtol(argv[1], NULL, 10);
	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	worker((void *)0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("stackmt: %llu\n", (unsigned long long)sink);
	return 0;
}
