/*
 * tests/report/progs/workmix.c - two CPU-bound functions with separate work sizes.
 *
 * usage: workmix UNITS_A UNITS_B [threads]
 * spin_a runs UNITS_A units of work and spin_b UNITS_B units (about 10 ms
 * each), so two recordings with different arguments shift the share of
 * samples between the two functions by a known direction: the diff test.
 * With "threads", spin_a runs in a second thread while the main thread runs
 * spin_b: each thread has its own hot function.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One function per name (gcc clones without noclone; clang has no noclone). */
#ifdef __clang__
#define KERNEL_FN __attribute__((noinline))
#else
#define KERNEL_FN __attribute__((noinline, noclone))
#endif

#define UNIT_ITERS 10000000ull

KERNEL_FN static uint64_t spin_a(uint64_t units)
{
	uint64_t x = 1;

	for (uint64_t i = 0; i < units * UNIT_ITERS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* One step per iteration whatever the compiler: clang -O2
		 * otherwise folds two steps into one, and a unit of spin_a
		 * takes half the time of one of spin_b. */
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

KERNEL_FN static uint64_t spin_b(uint64_t units)
{
	uint64_t x = 7, y = 3;

	for (uint64_t i = 0; i < units * UNIT_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		y += x;
		__asm__ volatile("" : "+r"(x), "+r"(y));
	}
	return x ^ y;
}

static void *thread_a(void *arg)
{
	uint64_t *units = arg;

	*units = spin_a(*units);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t a, b;
	pthread_t t;

	if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "threads"))) {
		fprintf(stderr, "usage: workmix UNITS_A UNITS_B [threads]\n");
		return 2;
	}
	a = strtoull(argv[1], NULL, 10);
	b = strtoull(argv[2], NULL, 10);
	if (argc == 4) {
		if (pthread_create(&t, NULL, thread_a, &a)) {
			perror("pthread_create");
			return 1;
		}
		b = spin_b(b);
		pthread_join(t, NULL);
		printf("workmix: %llx\n", (unsigned long long)(a ^ b));
		return 0;
	}
	printf("workmix: %llx\n", (unsigned long long)(spin_a(a) ^ spin_b(b)));
	return 0;
}
