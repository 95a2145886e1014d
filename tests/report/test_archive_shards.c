/*
 * tests/report/test_archive_shards.c - the archiving step's lookups split
 * between symbolizers (report/archive.c): fake symbolizers whose compile
 * units are spread over their file (hot and cold parts), checked for the
 * same archive with one symbolizer or several, each unit read by one
 * symbolizer only, the kernel by the first, and their messages shown once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "tdrec/archive.h"
#include "tdrec/tdr_log.h"

#define UNITS 7
#define FAKES 4

/* One fake symbolizer: what it was asked. */
struct fake {
	bool unit_seen[2][UNITS]; /* [file: 0 libA, 1 libB][unit] */
	bool opened[2];
	size_t kernel_lookups, lookups;
};

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

static int fake_lookup(void *ctx, const struct tdr_dso_ref *dso, uint64_t off,
		       struct tdr_sym *out)
{
	static const char *names[2][UNITS] = {
	    {"a0", "a1", "a2", "a3", "a4", "a5", "a6"},
	    {"b0", "b1", "b2", "b3", "b4", "b5", "b6"},
	};
	struct fake *f = ctx;
	int file = file_no(dso);

	if (!f->opened[file]) {
		f->opened[file] = true;
		tdr_warn("fake: opened %s", dso->path);
	}
	f->unit_seen[file][unit_of(off)] = true;
	f->lookups++;
	memset(out, 0, sizeof(*out));
	if (off % 97 == 0) {
		out->status = TDR_SYM_NO_SYMBOL;
		return 0;
	}
	out->status = TDR_SYM_OK;
	out->function = names[file][unit_of(off)];
	out->function_offset = off & 0xfff;
	out->file = "unit.c";
	out->line = (uint32_t)(off % 1000) + 1;
	return 0;
}

static int fake_units(void *ctx, const struct tdr_dso_ref *dso, const uint64_t *offs, size_t cnt,
		      uint64_t *unit)
{
	(void)ctx;
	(void)dso;
	for (size_t i = 0; i < cnt; i++)
		unit[i] = unit_of(offs[i]);
	return 0;
}

static int fake_kernel(void *ctx, uint64_t ip, struct tdr_sym *out)
{
	struct fake *f = ctx;

	f->kernel_lookups++;
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

/* The archive of 1,900 addresses (libA through two mappings, libB, the
 * kernel) resolved by fakes[0 .. n); its encoded bytes. */
static void *archive_with(size_t n, struct fake *fakes, size_t *sz)
{
	struct tdr_report_symbols rs[FAKES];
	struct tdr_report_archiver a = {0};
	struct tdr_archive_summary sum = {0};
	struct tdr_archive_builder *b;
	void *data = NULL;

	for (uint64_t i = 0; i < 1000; i++)
		add(&a, TDR_MODE_USER, &maps[0], i * 0x153);
	for (uint64_t i = 0; i < 300; i++)
		add(&a, TDR_MODE_USER, &maps[2], i * 0x2a7); /* some offsets of both */
	for (uint64_t i = 0; i < 600; i++)
		add(&a, TDR_MODE_USER, &maps[1], i * 0x61);
	for (uint64_t i = 0; i < 10; i++)
		add(&a, TDR_MODE_KERNEL, NULL, 0xffffffff81000000ull + i * 16);
	for (size_t k = 0; k < n; k++)
		rs[k] = (struct tdr_report_symbols){.lookup = fake_lookup, .lookup_kernel = fake_kernel,
						    .units = fake_units, .ctx = &fakes[k]};
	assert_int_equal(tdr_archive_builder__new(&b), 0);
	assert_int_equal(tdr_report_archiver__resolve(&a, rs, n, b, &sum), 0);
	assert_int_equal(sum.addrs, a.cnt);
	assert_int_equal(tdr_archive_builder__encode(b, 3, &data, sz), 0);
	tdr_archive_builder__free(b);
	tdr_report_archiver__release(&a);
	return data;
}

static void test_any_number_of_symbolizers_gives_one_archive(void **state)
{
	struct fake one[1] = {0}, many[FAKES] = {0};
	size_t sz1, szn, used = 0;
	void *d1, *dn;

	(void)state;
	tdr_log_set_sink(sink);
	d1 = archive_with(1, one, &sz1);
	logged_cnt = 0;
	dn = archive_with(3, many, &szn);
	tdr_log_set_sink(NULL);
	assert_int_equal(sz1, szn);
	assert_memory_equal(d1, dn, sz1);
	free(d1);
	free(dn);

	/* 1,900 file addresses: three shards of 512 or more. */
	for (size_t k = 0; k < FAKES; k++)
		used += many[k].lookups > 0;
	assert_int_equal(used, 3);
	assert_int_equal(many[3].lookups, 0);
	/* Only the first looks the kernel up. */
	assert_int_equal(many[0].kernel_lookups, 10);
	assert_int_equal(many[1].kernel_lookups + many[2].kernel_lookups, 0);
	/* No unit of a file is read by two. */
	for (int file = 0; file < 2; file++)
		for (int u = 0; u < UNITS; u++) {
			int readers = 0;

			for (size_t k = 0; k < 3; k++)
				readers += many[k].unit_seen[file][u];
			assert_int_equal(readers, 1);
		}
	/* Every file opened by some symbolizer; each message shown once. */
	assert_int_equal(logged_cnt, 2);
	for (size_t i = 0; i < logged_cnt; i++)
		for (size_t j = i + 1; j < logged_cnt; j++)
			assert_string_not_equal(logged[i], logged[j]);
}

static void test_few_addresses_stay_in_one_symbolizer(void **state)
{
	(void)state;
	assert_int_equal(tdr_report_archive_jobs(8, 1000), 1);
	assert_int_equal(tdr_report_archive_jobs(8, 1024), 2);
	assert_int_equal(tdr_report_archive_jobs(2, 100000), 2);
	assert_int_equal(tdr_report_archive_jobs(1, 100000), 1);
	assert_int_equal(tdr_report_archive_jobs(64, 100000), TDR_ARCHIVE_JOBS_MAX);
	assert_true(tdr_report_archive_jobs(0, 100000) >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_any_number_of_symbolizers_gives_one_archive),
	    cmocka_unit_test(test_few_addresses_stay_in_one_symbolizer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
