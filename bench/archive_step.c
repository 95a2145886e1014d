/*
 * bench/archive_step.c - the CPU time `tdrec record` adds at its end to
 * archive a recording's symbols (docs/record.md "Archiving").
 *
 * Usage: archive_step FILE.tdr CACHE_DIR [JOBS]
 * Runs the archiving step once, in up to JOBS processes (default 0: as
 * tdrec record chooses, tdr_report_load_opts.jobs), as tdrec record runs
 * it on its file
 * (tdr_report__archive: read the samples, symbolize every sampled address
 * with lines and inline chains, encode the section at zstd level 3), with
 * the load options of the command line: this boot's id and tdrec's cache
 * directory (give the one the compared command uses; "" for none), and
 * prints
 *   cpu_ms CPU wall_ms WALL addresses N archived M bytes B
 * CPU is getrusage user + system around the step, of this process (every
 * thread) and of its children (the step's forked workers, waited for),
 * microsecond resolution, so the process's own start-up is not in it:
 * bench/run compares it with the whole `tdrec report --lines` command,
 * which is the limit's other side.
 * Not a test: nothing is asserted.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tdrec/report.h"

static double usage_ms(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* This process's threads and its children that were waited for: the
 * step's workers. */
static double cpu_ms(void)
{
	return usage_ms(RUSAGE_SELF) + usage_ms(RUSAGE_CHILDREN);
}

static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void read_boot_id(char *buf, size_t sz)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (f && fgets(buf, (int)sz, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	struct tdr_report_load_opts lo = { 0 };
	struct tdr_archive_summary sum = { 0 };
	char boot_id[64];
	double c0, w0, c1, w1;
	void *data = NULL;
	size_t sz = 0;
	int err;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: archive_step FILE.tdr CACHE_DIR [JOBS]\n");
		return 2;
	}
	if (argc == 4)
		lo.jobs = (unsigned)strtoul(argv[3], NULL, 10);
	read_boot_id(boot_id, sizeof(boot_id));
	lo.boot_id = boot_id[0] ? boot_id : NULL;
	lo.cache_dir = argv[2];
	c0 = cpu_ms();
	w0 = wall_ms();
	err = tdr_report__archive(argv[1], &lo, 3, &data, &sz, &sum);
	c1 = cpu_ms();
	w1 = wall_ms();
	free(data);
	if (err) {
		fprintf(stderr, "archive_step: %s: error %d\n", argv[1], err);
		return 1;
	}
	printf("cpu_ms %.3f wall_ms %.3f addresses %" PRIu64 " archived %" PRIu64 " bytes %zu\n",
	       c1 - c0, w1 - w0, sum.addrs, sum.archived, sz);
	return 0;
}
