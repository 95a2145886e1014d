/*
 * tests/parser/perf_workload.c - a small single-threaded CPU-bound program
 * for the perf.data import test: three functions doing 1, 2 and 3 units of
 * work, plus page faults from a buffer it touches, so every member of
 * {cpu-clock,task-clock,page-faults} has samples in distinct functions.
 * usage: perf_workload [UNITS]   (default 20; each unit is about 5 ms)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

volatile uint64_t tdr_sink;

static inline __attribute__((always_inline)) uint64_t spin(uint64_t n)
{
	uint64_t x = 0x12345;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

__attribute__((noinline)) void work_one(uint64_t n)
{
	tdr_sink += spin(n);
}

__attribute__((noinline)) void work_two(uint64_t n)
{
	tdr_sink += spin(2 * n);
}

__attribute__((noinline)) void work_three(uint64_t n)
{
	tdr_sink += spin(3 * n);
}

__attribute__((noinline)) void touch_pages(size_t pages)
{
	char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = (char)i;
	munmap(p, pages * 4096);
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? strtol(argv[1], NULL, 10) : 20;

	for (long u = 0; u < units; u++) {
		work_one(2000000);
		work_two(2000000);
		work_three(2000000);
		touch_pages(64);
	}
	return 0;
}
