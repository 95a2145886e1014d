/*
 * tests/export/progs/deepcall.c - CPU work under call chains of known shape.
 *
 * usage: deepcall [MILLISECONDS]   (default 600)
 * main calls path_a (-> level1 -> level2 -> level3 -> burn) and path_b
 * (-> level3 -> burn, and burn directly) in turns until the time is up:
 * stacks of two to six frames, each function a frame of its own
 * (noinline, and a volatile read after each call so that none is a tail
 * call), for comparing exported stacks with perf script's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define FN __attribute__((noinline))

static volatile uint64_t sink;

FN static uint64_t mix(uint64_t x)
{
	return x ^ (x >> 29);
}

/* Not a leaf (it calls mix after its loop): gcc 12 gives leaf functions no
 * frame pointer even with -fno-omit-frame-pointer, and a sample in a
 * frameless leaf loses its caller from the frame pointer chain. */
FN static uint64_t burn(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t i = 0; i < 200000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return mix(x) + sink;
}

FN static uint64_t level3(uint64_t n)
{
	uint64_t r = burn(n);

	return r + sink;
}

FN static uint64_t level2(uint64_t n)
{
	uint64_t r = level3(n + 1);

	return r + sink;
}

FN static uint64_t level1(uint64_t n)
{
	uint64_t r = level2(n + 1);

	return r + sink;
}

FN static uint64_t path_a(uint64_t n)
{
	uint64_t r = level1(n);

	return r + sink;
}

FN static uint64_t path_b(uint64_t n)
{
	uint64_t r = level3(n) ^ burn(n + 7);

	return r + sink;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 600, end = now_ms() + ms;
	uint64_t i = 0;

	while (now_ms() < end) {
		sink += path_a(i++);
		sink += path_b(i++);
	}
	return 0;
}
