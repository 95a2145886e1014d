/*
 * tests/recorder/progs/spinfault.c - a user-mode spin, then a kernel-heavy
 * tail, for the counted-totals tests.
 *
 * spinfault SPIN_MS FAULT_MIB [THREADS [pin]]: burn SPIN_MS of CPU time in
 * user code (in THREADS threads, each SPIN_MS, when THREADS > 0; the main
 * thread only waits), then, in the main thread, write one byte to every
 * page of FAULT_MIB MiB of fresh anonymous memory: one page fault per page,
 * handled in the kernel, after the spin. "pin" first binds the process to
 * the CPU it runs on, so a per-CPU sampling timer sees all of its time.
 * CPU time is measured with CLOCK_THREAD_CPUTIME_ID, so the work is the
 * same on a shared machine.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + *(const double *)arg;

	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	(void)x;
	return NULL;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 200;
	size_t sz = (size_t)(argc > 2 ? atol(argv[2]) : 50) << 20;
	int n = argc > 3 ? atoi(argv[3]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	pthread_t t[8];
	volatile char *p;

	if (n > 8)
		n = 8;
	if (argc > 4 && !strcmp(argv[4], "pin")) {
		cpu_set_t set;
		int cpu = sched_getcpu();

		CPU_ZERO(&set);
		CPU_SET(cpu < 0 ? 0 : cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return 4;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, spin, &ms))
			return 3;
	if (!n)
		spin(&ms);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (!sz)
		return 0;
	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	for (size_t off = 0; off < sz; off += (size_t)page)
		p[off] = 1;
	return 0;
}
