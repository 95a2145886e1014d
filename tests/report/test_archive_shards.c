/*
 * tests/report/test_archive_shards.c - the archiving step's lookups divided
 * between tdrec and forked children (report/archive_shards.c): a fake
 * symbolizer whose compile units are spread over their file (hot and cold
 * parts), checked for the same archive with one job or several, each unit
 * read by one process only, the kernel by tdrec's, and the messages of all
 * shown once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report_int.h"
#include "tdrec/archive.h"
#include "tdrec/tdr_log.h"

#define UNITS 7
#define PROCS 8

/* What the lookups saw, in memory shared with the step's children. */
struct seen {
	pid_t reader[2][UNITS]; /* [file: 0 libA, 1 libB][unit]: first reader */
	bool twice[2][UNITS];	/* read by a second process */
	pid_t procs[PROCS];	/* every process that looked something up */
	size_t kernel_elsewhere; /* kernel lookups not in the test's process */
	size_t kernel_here;
};

static struct seen *seen;
static pid_t test_pid;
/* Each process's own: which file it has "opened". */
static bool opened[2];
/* Children die at their first lookup (a crash, the OOM killer). */
static bool children_die;
/* Each process's first lookup waits until this many processes have
 * started looking up (at most 10 s), so that each takes work. */
static size_t rendezvous;

static size_t procs(void)
{
	size_t n = 0;

	while (n < PROCS && __atomic_load_n(&seen->procs[n], __ATOMIC_ACQUIRE))
		n++;
	return n;
}

/* A unit is every 4 KiB page whose number has the same remainder by 7:
 * each unit's code lies in many places of its file. */
static uint64_t unit_of(uint64_t off)
{
	return (off >> 12) % UNITS;
}

static int file_no(const struct tdr_dso_ref *dso)
{
	return strcmp(dso->path, "/lib/libA.so") ? 1 : 0;
}

static void note_proc(void)
{
	pid_t me = getpid();

	for (size_t i = 0; i < PROCS; i++) {
		pid_t none = 0;

		if (__atomic_load_n(&seen->procs[i], __ATOMIC_ACQUIRE) == me)
			return;
		if (__atomic_compare_exchange_n(&seen->procs[i], &none, me, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			break;
		if (none == me)
			return;
	}
	for (int ms = 0; ms < 10000 && procs() < rendezvous; ms++)
		usleep(1000);
}

static int fake_lookup(void *ctx, const struct tdr_dso_ref *dso, uint64_t off,
		       struct tdr_sym *out)
{
	static const char *names[2][UNITS] = {
	    {"a0", "a1", "a2", "a3", "a4", "a5", "a6"},
	    {"b0", "b1", "b2", "b3", "b4", "b5", "b6"},
	};
	int file = file_no(dso);
	uint64_t u = unit_of(off);

	(void)ctx;
	if (children_die && getpid() != test_pid)
		_exit(3);
	note_proc();
	if (!opened[file]) {
		opened[file] = true;
		tdr_warn("fake: opened %s", dso->path);
	}
	if (!seen->reader[file][u])
		seen->reader[file][u] = getpid();
	else if (seen->reader[file][u] != getpid())
		seen->twice[file][u] = true;
	memset(out, 0, sizeof(*out));
	if (off % 97 == 0) {
		out->status = TDR_SYM_NO_SYMBOL;
		return 0;
	}
	out->status = TDR_SYM_OK;
	out->function = names[file][u];
	out->function_offset = off & 0xfff;
	out->file = off % 3 ? "unit.c" : NULL;
	out->line = (uint32_t)(off % 1000) + 1;
	if (off % 5 == 0) {
		static const struct tdr_inline_frame chain[2] = {
		    {.function = "inner", .call_file = "unit.h", .call_line = 7, .call_column = 3},
		    {.function = "outer", .call_file = "unit.c", .call_line = 42},
		};

		out->inlines = chain;
		out->inline_cnt = 2;
	}
	return 0;
}

/* The size of a unit: 100 KB each, unless one is made huge. */
static uint64_t huge_unit_bytes;

static int fake_units(void *ctx, const struct tdr_dso_ref *dso, const uint64_t *offs, size_t cnt,
		      uint64_t *unit, uint64_t *bytes)
{
	(void)ctx;
	for (size_t i = 0; i < cnt; i++) {
		unit[i] = unit_of(offs[i]);
		bytes[i] = !file_no(dso) && unit[i] == 3 && huge_unit_bytes ? huge_unit_bytes
									  : 100000;
	}
	return 0;
}

static int fake_kernel(void *ctx, uint64_t ip, struct tdr_sym *out)
{
	(void)ctx;
	if (getpid() == test_pid)
		seen->kernel_here++;
	else
		seen->kernel_elsewhere++;
	memset(out, 0, sizeof(*out));
	out->status = TDR_SYM_OK;
	out->function = "kfunc";
	out->function_offset = ip & 0xff;
	return 0;
}

/* Messages the sink received. */
static char logged[64][128];
static size_t logged_cnt;

static void sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (logged_cnt < 64)
		vsnprintf(logged[logged_cnt++], sizeof(logged[0]), fmt, ap);
}

static const struct tdr_mapping maps[3] = {
    {.path = "/lib/libA.so", .kind = TDR_MAP_FILE, .build_id_sz = 2, .build_id = {1, 2}},
    {.path = "/lib/libB.so", .kind = TDR_MAP_FILE},
    /* libA again, mapped by another process: the same file. */
    {.path = "/lib/libA.so", .kind = TDR_MAP_FILE, .build_id_sz = 2, .build_id = {1, 2}},
};

static void add(struct tdr_report_archiver *a, enum tdr_cpumode mode, const struct tdr_mapping *m,
		uint64_t off)
{
	struct tdr_sample s = {.time_ns = 1, .ip = off, .cpumode = mode, .map = m, .map_off = off};

	assert_int_equal(tdr_report_archiver__add_sample(a, &s), 0);
}

/* The archive of 1,910 addresses (libA through two mappings, libB, the
 * kernel) resolved in jobs jobs; its encoded bytes. */
static void *archive_with(size_t jobs, size_t *sz)
{
	struct tdr_report_symbols rs = {.lookup = fake_lookup, .lookup_kernel = fake_kernel,
					.units = fake_units};
	struct tdr_report_archiver a = {0};
	struct tdr_archive_summary sum = {0};
	struct tdr_archive_builder *b;
	void *data = NULL;

	memset(seen, 0, sizeof(*seen));
	memset(opened, 0, sizeof(opened));
	logged_cnt = 0;
	for (uint64_t i = 0; i < 1000; i++)
		add(&a, TDR_MODE_USER, &maps[0], i * 0x153);
	for (uint64_t i = 0; i < 300; i++)
		add(&a, TDR_MODE_USER, &maps[2], i * 0x2a7); /* some offsets of both */
	for (uint64_t i = 0; i < 600; i++)
		add(&a, TDR_MODE_USER, &maps[1], i * 0x61);
	for (uint64_t i = 0; i < 10; i++)
		add(&a, TDR_MODE_KERNEL, NULL, 0xffffffff81000000ull + i * 16);
	assert_int_equal(tdr_archive_builder__new(&b), 0);
	assert_int_equal(tdr_report_archiver__resolve(&a, &rs, jobs, b, &sum), 0);
	assert_int_equal(sum.addrs, a.cnt);
	assert_int_equal(tdr_archive_builder__encode(b, 3, &data, sz), 0);
	tdr_archive_builder__free(b);
	tdr_report_archiver__release(&a);
	return data;
}

/* The archive in 3 jobs, with *flag set to value meanwhile, must be the
 * one of 1 job. */
static void same_as_one_job(bool *flag, uint64_t *big, uint64_t big_value)
{
	size_t sz1, szn;
	void *d1, *dn;

	tdr_log_set_sink(sink);
	d1 = archive_with(1, &sz1);
	assert_int_equal(procs(), 1);
	assert_int_equal(seen->procs[0], test_pid);
	if (flag)
		*flag = true;
	if (big)
		*big = big_value;
	rendezvous = flag || big ? 0 : 3;
	dn = archive_with(3, &szn);
	rendezvous = 0;
	if (flag)
		*flag = false;
	if (big)
		*big = 0;
	tdr_log_set_sink(NULL);
	assert_int_equal(sz1, szn);
	assert_memory_equal(d1, dn, sz1);
	free(d1);
	free(dn);
}

static void test_any_number_of_jobs_gives_one_archive(void **state)
{
	(void)state;
	same_as_one_job(NULL, NULL, 0);
	/* 1,900 file addresses: three jobs, the test's process and two
	 * children, each with some of the work. */
	assert_int_equal(procs(), 3);
	/* The kernel is one item: one process looks it all up. */
	assert_true(seen->kernel_here == 10 || seen->kernel_elsewhere == 10);
	assert_int_equal(seen->kernel_here + seen->kernel_elsewhere, 10);
	/* No unit of a file is read by two processes. */
	for (int file = 0; file < 2; file++)
		for (int u = 0; u < UNITS; u++) {
			assert_true(seen->reader[file][u] != 0);
			assert_false(seen->twice[file][u]);
		}
	/* Every file "opened" by some process; each message shown once. */
	assert_int_equal(logged_cnt, 2);
	assert_string_not_equal(logged[0], logged[1]);
}

static void test_a_child_that_dies_costs_only_time(void **state)
{
	(void)state;
	same_as_one_job(&children_die, NULL, 0);
	/* Their items were looked up by the test's process instead. */
	assert_int_equal(procs(), 1);
	assert_int_equal(logged_cnt, 2);
}

static void test_work_that_does_not_divide_stays_here(void **state)
{
	(void)state;
	/* One unit of libA holds nearly all the work (an interpreter loop,
	 * a big generated file): a child would wait for it or do it alone. */
	same_as_one_job(NULL, &huge_unit_bytes, 100000000);
	assert_int_equal(procs(), 1);
}

static void test_few_addresses_stay_in_one_job(void **state)
{
	(void)state;
	assert_int_equal(tdr_report_archive_jobs(8, 255), 1);
	assert_int_equal(tdr_report_archive_jobs(8, 256), 2);
	assert_int_equal(tdr_report_archive_jobs(2, 100000), 2);
	assert_int_equal(tdr_report_archive_jobs(1, 100000), 1);
	assert_int_equal(tdr_report_archive_jobs(64, 100000), TDR_ARCHIVE_JOBS_MAX);
	/* 0: one per CPU this thread may run on, at most 8. */
	{
		cpu_set_t cpus;
		size_t want = 1;

		if (!sched_getaffinity(0, sizeof(cpus), &cpus))
			want = CPU_COUNT(&cpus) < TDR_ARCHIVE_JOBS_MAX ? (size_t)CPU_COUNT(&cpus)
								  : TDR_ARCHIVE_JOBS_MAX;
		assert_int_equal(tdr_report_archive_jobs(0, 100000), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_any_number_of_jobs_gives_one_archive),
	    cmocka_unit_test(test_a_child_that_dies_costs_only_time),
	    cmocka_unit_test(test_work_that_does_not_divide_stays_here),
	    cmocka_unit_test(test_few_addresses_stay_in_one_job),
	};

	test_pid = getpid();
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
