/*
 * tests/report/test_collect.c - from parser samples to rows.
 *
 * Drives tdr_report__add_sample with hand-made struct tdr_sample values and
 * resolves them with the fake symbolizer of report_fixture.c: each unique
 * address is looked up once, rows are formed by mode (function, inline,
 * lines, object, thread, process), unsymbolized samples get the documented
 * names, filters select samples, and parser statistics become warnings.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_fixture.h"

static const struct tdr_mapping map_app = {
    .path = "/usr/bin/app", .kind = TDR_MAP_FILE, .build_id_sz = 2, .build_id = {0xab, 0xcd}};
static const struct tdr_mapping map_lib = {.path = "/lib/libfoo.so", .kind = TDR_MAP_FILE};
static const struct tdr_mapping map_gone = {.path = "/gone/libgone.so", .kind = TDR_MAP_FILE};
static const struct tdr_mapping map_changed = {.path = "/opt/changed", .kind = TDR_MAP_FILE};
static const struct tdr_mapping map_stripped = {.path = "/opt/stripped", .kind = TDR_MAP_FILE};
static const struct tdr_mapping map_anon = {.path = "//anon", .kind = TDR_MAP_ANON};
static const struct tdr_mapping map_vdso = {.path = "[vdso]", .kind = TDR_MAP_VDSO};
static const struct tdr_mapping map_ktext = {.path = "[kernel.kallsyms]_text",
					     .kind = TDR_MAP_KERNEL};

static const struct fx_sym_entry syms_table[] = {
    {"/usr/bin/app", 0x1000, 0x1100, TDR_SYM_OK, "main", NULL, "/src/app.c", 10},
    {"/usr/bin/app", 0x1100, 0x1200, TDR_SYM_OK, "compute", NULL, "/src/app.c", 20},
    {"/usr/bin/app", 0x1200, 0x1300, TDR_SYM_OK, "hash_blocks", "mix64", "/src/app.c", 30},
    {"/lib/libfoo.so", 0x500, 0x600, TDR_SYM_OK, "foo", NULL, "/src/foo.c", 5},
    {"/opt/changed", 0, 0, TDR_SYM_CHANGED, NULL, NULL, NULL, 0},
    {"/opt/stripped", 0x9000, 0x9001, TDR_SYM_OK, "never", NULL, NULL, 0},
};

/* sw plan deltas: cpu-clock ns, task-clock ns, page-faults, context-switches */
static const uint64_t d1[SW_CNT] = {1000, 900, 1, 0};

static void add(struct tdr_report *r, uint32_t pid, uint32_t tid, const char *comm,
		const struct tdr_mapping *map, uint64_t off, enum tdr_cpumode mode, int times)
{
	struct tdr_sample s = {
	    .pid = pid,
	    .tid = tid,
	    .comm = comm,
	    .map = map,
	    .map_off = off,
	    .ip = 0x400000 + off,
	    .cpumode = mode,
	    .deltas = d1,
	    .time_ns = 1000 + (uint64_t)times,
	};

	for (int i = 0; i < times; i++) {
		s.time_ns += 10;
		assert_int_equal(tdr_report__add_sample(r, &s), 0);
	}
}

static struct tdr_report *new_report(struct fx_meta *m, enum tdr_report_by by,
				     const struct tdr_report_filter *f)
{
	struct tdr_report_opts o;

	tdr_report_opts__init(&o);
	o.by = by;
	if (f)
		o.filter = *f;
	fx_meta_sw(m);
	return fx_report(m, &o);
}

static void finish(struct tdr_report *r, struct fx_syms *fs)
{
	assert_int_equal(tdr_report__resolve(r, fs ? &fs->rs : NULL), 0);
	assert_int_equal(tdr_report__finish(r), 0);
}

static bool has_warning(const struct tdr_report *r, const char *needle)
{
	for (size_t i = 0; i < tdr_report__warning_cnt(r); i++)
		if (strstr(tdr_report__warning(r, i), needle))
			return true;
	return false;
}

static void test_collect__each_address_is_symbolized_once(void **state)
{
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;
	const struct tdr_report_row *row;

	(void)state;
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	add(r, 1, 1, "app", &map_app, 0x1010, TDR_MODE_USER, 500);
	add(r, 1, 1, "app", &map_app, 0x1020, TDR_MODE_USER, 300);
	add(r, 1, 1, "app", &map_app, 0x1110, TDR_MODE_USER, 200);
	finish(r, &fs);
	assert_int_equal(fs.lookups, 3);
	assert_int_equal(tdr_report__row_cnt(r), 2);
	row = fx_row(r, "main", "/usr/bin/app");
	assert_non_null(row);
	assert_int_equal(row->samples, 800);
	assert_int_equal(row->events[SW_CPU], 800 * 1000);
	assert_int_equal(row->events[SW_FAULTS], 800);
	assert_true(fabs(row->share - 0.8) < 1e-12);
	assert_int_equal(fx_row(r, "compute", NULL)->samples, 200);
	assert_int_equal(tdr_report__warning_cnt(r), 0);
	tdr_report__free(r);
}

static void test_collect__unsymbolized_samples_are_named(void **state)
{
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;

	(void)state;
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	add(r, 1, 1, "app", &map_app, 0x1010, TDR_MODE_USER, 50);
	add(r, 1, 1, "app", &map_gone, 0x10, TDR_MODE_USER, 10);
	add(r, 1, 1, "app", &map_gone, 0x20, TDR_MODE_USER, 10);
	add(r, 1, 1, "app", &map_changed, 0x30, TDR_MODE_USER, 5);
	add(r, 1, 1, "app", &map_stripped, 0x4abc, TDR_MODE_USER, 5);
	add(r, 1, 1, "app", &map_anon, 0x7000, TDR_MODE_USER, 4);
	add(r, 1, 1, "app", NULL, 0, TDR_MODE_USER, 3);
	add(r, 1, 1, "app", NULL, 0xffffffff81000000ull, TDR_MODE_KERNEL, 7);
	add(r, 1, 1, "app", &map_vdso, 0x900, TDR_MODE_USER, 6);
	finish(r, &fs);
	assert_int_equal(fx_row(r, "[unknown] /gone/libgone.so", "/gone/libgone.so")->samples, 20);
	assert_int_equal(fx_row(r, "[changed] /opt/changed", NULL)->samples, 5);
	assert_int_equal(fx_row(r, "/opt/stripped+0x4abc", "/opt/stripped")->samples, 5);
	assert_int_equal(fx_row(r, "[anon]", "//anon")->samples, 4);
	assert_int_equal(fx_row(r, "[unmapped]", NULL)->samples, 3);
	assert_int_equal(fx_row(r, "[kernel]", "[kernel.kallsyms]")->samples, 7);
	assert_int_equal(fx_row(r, "[vdso]", NULL)->samples, 6);
	/* 50 of 100 samples not symbolized: 20 missing, 5 changed, 11 no symbol (stripped,
	 * vdso), 7 kernel, 7 no map (anonymous, unmapped) */
	assert_true(has_warning(r, "50.0% of samples (50) could not be symbolized"));
	assert_true(has_warning(r, "missing binary 20, changed binary 5, no symbol 11, kernel 7, "
				   "unmapped or anonymous 7"));
	assert_true(has_warning(r, "binary not found: /gone/libgone.so (20.0% of samples)"));
	assert_true(has_warning(r, "modified after the recording), not symbolized: /opt/changed"));
	assert_true(has_warning(r, "kernel symbols not usable"));
	assert_int_equal(fs.kernel_lookups, 1);
	tdr_report__free(r);
}

/* A mapped file that exists but is not ELF (or not a regular file) is not
 * "binary not found" (issue 17, finding 7). */
static void test_collect__not_elf_is_named_so(void **state)
{
	static const struct tdr_mapping map_fifo = {.path = "/tmp/fifo.so", .kind = TDR_MAP_FILE};
	static const struct fx_sym_entry table[] = {
	    {"/tmp/fifo.so", 0, 0, TDR_SYM_NOT_ELF, NULL, NULL, NULL, 0},
	    {"/usr/bin/app", 0x1000, 0x1100, TDR_SYM_OK, "main", NULL, "/src/app.c", 10},
	};
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;

	(void)state;
	fx_syms_init(&fs, table, sizeof(table) / sizeof(table[0]));
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	add(r, 1, 1, "app", &map_app, 0x1010, TDR_MODE_USER, 75);
	add(r, 1, 1, "app", &map_fifo, 0x10, TDR_MODE_USER, 25);
	finish(r, &fs);
	assert_int_equal(fx_row(r, "[not ELF] /tmp/fifo.so", "/tmp/fifo.so")->samples, 25);
	assert_true(has_warning(r, "not an ELF file (or not a regular file), not symbolized: "
				   "/tmp/fifo.so (25.0% of samples)"));
	assert_false(has_warning(r, "binary not found"));
	tdr_report__free(r);
}

static void test_collect__kernel_symbols_when_usable(void **state)
{
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;

	(void)state;
	fx_syms_init(&fs, syms_table, 1);
	fs.kernel_function = "do_syscall_64";
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	add(r, 1, 1, "app", NULL, 0xffffffff81000000ull, TDR_MODE_KERNEL, 4);
	add(r, 1, 1, "app", &map_ktext, 0xffffffff81000010ull, TDR_MODE_KERNEL, 4);
	finish(r, &fs);
	assert_int_equal(fs.kernel_lookups, 2);
	assert_int_equal(fx_row(r, "do_syscall_64", "[kernel.kallsyms]")->samples, 8);
	assert_false(has_warning(r, "could not be symbolized"));
	tdr_report__free(r);
}

static void test_collect__inline_mode_names_innermost_function(void **state)
{
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;
	const struct tdr_report_row *row;

	(void)state;
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	r = new_report(&m, TDR_BY_INLINE, NULL);
	add(r, 1, 1, "app", &map_app, 0x1210, TDR_MODE_USER, 40);
	add(r, 1, 1, "app", &map_app, 0x1010, TDR_MODE_USER, 35);
	finish(r, &fs);
	row = fx_row(r, "mix64", NULL);
	assert_non_null(row);
	assert_string_equal(row->inlined_into, "hash_blocks");
	assert_int_equal(row->samples, 40);
	row = fx_row(r, "main", NULL);
	assert_null(row->inlined_into);
	tdr_report__free(r);

	/* By function the same address belongs to the physical function. */
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	add(r, 1, 1, "app", &map_app, 0x1210, TDR_MODE_USER, 40);
	finish(r, &fs);
	assert_non_null(fx_row(r, "hash_blocks", NULL));
	assert_null(fx_row(r, "mix64", NULL));
	tdr_report__free(r);
}

static void test_collect__lines_mode_keys_by_file_and_line(void **state)
{
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;
	const struct tdr_report_row *row;

	(void)state;
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	r = new_report(&m, TDR_BY_LINE, NULL);
	add(r, 1, 1, "app", &map_app, 0x1010, TDR_MODE_USER, 10);
	add(r, 1, 1, "app", &map_app, 0x1020, TDR_MODE_USER, 10); /* same line as 0x1010 */
	add(r, 1, 1, "app", &map_app, 0x1110, TDR_MODE_USER, 5);
	finish(r, &fs);
	assert_int_equal(fs.lookups, 3);
	assert_int_equal(tdr_report__row_cnt(r), 2);
	row = fx_row(r, "main", NULL);
	assert_string_equal(row->file, "/src/app.c");
	assert_int_equal(row->line, 10);
	assert_int_equal(row->samples, 20);
	assert_int_equal(fx_row(r, "compute", NULL)->line, 20);
	tdr_report__free(r);
}

static void test_collect__by_dso_thread_process(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const struct tdr_report_row *row;

	(void)state;
	/* By object: no symbolizer needed. */
	r = new_report(&m, TDR_BY_DSO, NULL);
	add(r, 1, 1, "app", &map_app, 0x1010, TDR_MODE_USER, 10);
	add(r, 1, 1, "app", &map_app, 0x1110, TDR_MODE_USER, 10);
	add(r, 1, 1, "app", &map_lib, 0x510, TDR_MODE_USER, 5);
	add(r, 1, 1, "app", NULL, 0xffffffff81000000ull, TDR_MODE_KERNEL, 2);
	finish(r, NULL);
	assert_int_equal(fx_row(r, "/usr/bin/app", NULL)->samples, 20);
	assert_int_equal(fx_row(r, "/lib/libfoo.so", NULL)->samples, 5);
	assert_int_equal(fx_row(r, "[kernel.kallsyms]", NULL)->samples, 2);
	tdr_report__free(r);

	/* By thread: the thread's latest name. */
	r = new_report(&m, TDR_BY_THREAD, NULL);
	add(r, 10, 10, "app", &map_app, 0x1010, TDR_MODE_USER, 10);
	add(r, 10, 11, "worker", &map_app, 0x1010, TDR_MODE_USER, 7);
	add(r, 10, 11, "worker2", &map_app, 0x1110, TDR_MODE_USER, 3);
	add(r, 20, 20, "other", &map_lib, 0x510, TDR_MODE_USER, 4);
	finish(r, NULL);
	assert_int_equal(tdr_report__row_cnt(r), 3);
	row = fx_row(r, "worker2", NULL);
	assert_non_null(row);
	assert_int_equal(row->pid, 10);
	assert_int_equal(row->tid, 11);
	assert_int_equal(row->samples, 10);
	tdr_report__free(r);

	/* By process: named by the main thread. */
	r = new_report(&m, TDR_BY_PROCESS, NULL);
	add(r, 10, 11, "worker", &map_app, 0x1010, TDR_MODE_USER, 7);
	add(r, 10, 10, "app", &map_app, 0x1010, TDR_MODE_USER, 10);
	add(r, 10, 11, "worker", &map_app, 0x1010, TDR_MODE_USER, 7);
	add(r, 20, 20, "other", &map_lib, 0x510, TDR_MODE_USER, 4);
	finish(r, NULL);
	assert_int_equal(tdr_report__row_cnt(r), 2);
	row = fx_row(r, "app", NULL);
	assert_non_null(row);
	assert_int_equal(row->pid, 10);
	assert_int_equal(row->samples, 24);
	tdr_report__free(r);
}

static void test_collect__filters_select_samples(void **state)
{
	struct fx_meta m;
	struct fx_syms fs;
	struct tdr_report *r;
	const uint32_t pids[] = {20};
	const uint32_t tids[] = {11, 12};
	const char *const comms[] = {"worker"};
	const char *const dsos_base[] = {"libfoo.so"};
	const char *const dsos_full[] = {"/usr/bin/app", "[kernel.kallsyms]"};
	struct tdr_report_filter f;

	(void)state;
	fx_syms_init(&fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
#define FEED(r)                                                                                    \
	do {                                                                                       \
		add(r, 10, 10, "app", &map_app, 0x1010, TDR_MODE_USER, 10);                        \
		add(r, 10, 11, "worker", &map_app, 0x1110, TDR_MODE_USER, 7);                      \
		add(r, 10, 12, "worker", &map_lib, 0x510, TDR_MODE_USER, 5);                       \
		add(r, 20, 20, "other", &map_lib, 0x510, TDR_MODE_USER, 4);                        \
		add(r, 20, 20, "other", &map_ktext, 0xffffffff81000000ull, TDR_MODE_KERNEL, 2);    \
	} while (0)

	memset(&f, 0, sizeof(f));
	f.pids = pids;
	f.pid_cnt = 1;
	r = new_report(&m, TDR_BY_FUNCTION, &f);
	FEED(r);
	finish(r, &fs);
	assert_int_equal(tdr_report__samples_seen(r), 28);
	assert_int_equal(tdr_report__samples_kept(r), 6);
	assert_int_equal(tdr_report__totals(r)->samples, 6);
	assert_int_equal(fx_row(r, "foo", NULL)->samples, 4);
	tdr_report__free(r);

	memset(&f, 0, sizeof(f));
	f.tids = tids;
	f.tid_cnt = 2;
	f.comms = comms;
	f.comm_cnt = 1;
	r = new_report(&m, TDR_BY_FUNCTION, &f);
	FEED(r);
	finish(r, &fs);
	assert_int_equal(tdr_report__samples_kept(r), 12);
	assert_int_equal(fx_row(r, "compute", NULL)->samples, 7);
	assert_int_equal(fx_row(r, "foo", NULL)->samples, 5);
	assert_null(fx_row(r, "main", NULL));
	tdr_report__free(r);

	memset(&f, 0, sizeof(f));
	f.dsos = dsos_base;
	f.dso_cnt = 1;
	r = new_report(&m, TDR_BY_FUNCTION, &f);
	FEED(r);
	finish(r, &fs);
	assert_int_equal(tdr_report__samples_kept(r), 9);
	assert_int_equal(tdr_report__row_cnt(r), 1);
	assert_true(fabs(tdr_report__row(r, 0)->share - 1.0) < 1e-12);
	tdr_report__free(r);

	memset(&f, 0, sizeof(f));
	f.dsos = dsos_full;
	f.dso_cnt = 2;
	r = new_report(&m, TDR_BY_FUNCTION, &f);
	FEED(r);
	finish(r, &fs);
	assert_int_equal(tdr_report__samples_kept(r), 19);
	assert_null(fx_row(r, "foo", NULL));
	assert_int_equal(fx_row(r, "[kernel]", NULL)->samples, 2);
	tdr_report__free(r);
#undef FEED
}

static void test_collect__parse_stats_become_warnings(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	struct tdr_parse_stats st = {.samples = 1000,
				     .lost_samples = 40,
				     .lost_samples_pmu = 10,
				     .multiplexed_samples = 250,
				     .throttles = 2};
	struct tdr_file_status fs = {.file_sz = 5000, .truncated = true, .intact_sz = 4096};
	struct tdr_run_end end = {.duration_ns = 2000000000ull, .flags = TDR_END_WRITE_ERROR};

	(void)state;
	st.rebases[TDR_REBASE_BACKWARDS] = 3;
	st.rebases[TDR_REBASE_LOST] = 7;
	m.meta.note_cnt = 0;
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	tdr_report__note_parse(r, &st, &fs);
	tdr_report__set_run(r, "x.tdr", TDR_SOURCE_TDR, &end);
	assert_true(has_warning(r, "file is truncated"));
	assert_true(has_warning(r, "read the first 4096 of 5000 bytes"));
	assert_true(has_warning(r, "lost 50 samples (4.8% of 1050)"));
	assert_true(has_warning(r, "3 samples (0.3%) carry no deltas: their stream was re-based "
				   "because a counter went backwards"));
	assert_true(has_warning(r, "7 samples (0.7%) carry no deltas"));
	assert_true(has_warning(r, "250 samples (25.0%) come from a multiplexed group"));
	assert_true(has_warning(r, "throttled sampling 2 times"));
	assert_true(has_warning(r, "write error"));
	assert_false(has_warning(r, "no samples"));
	tdr_report__free(r);
}

static void test_collect__plan_notes_are_warnings(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	char *notes[] = {(char *)"no PMU: software plan"};

	(void)state;
	fx_meta_sw(&m);
	m.meta.notes = notes;
	m.meta.note_cnt = 1;
	r = fx_report(&m, NULL);
	assert_int_equal(tdr_report__warning_cnt(r), 1);
	assert_string_equal(tdr_report__warning(r, 0), "note: no PMU: software plan");
	tdr_report__free(r);
}

/* Notes that give the same reason for different things are one line. */
static void test_collect__plan_notes_with_one_reason_are_merged(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	char *notes[] = {
	    (char *)"topdown-l2 not available: no core PMU",
	    (char *)"topdown-l1 not available: no core PMU",
	    (char *)"slots not available: another reason",
	    (char *)"hybrid CPU: cpu_atom not measured",
	};

	(void)state;
	fx_meta_sw(&m);
	m.meta.notes = notes;
	m.meta.note_cnt = 4;
	r = fx_report(&m, NULL);
	assert_int_equal(tdr_report__warning_cnt(r), 3);
	assert_string_equal(tdr_report__warning(r, 0),
			    "note: topdown-l2, topdown-l1 not available: no core PMU");
	assert_string_equal(tdr_report__warning(r, 1), "note: slots not available: another reason");
	assert_string_equal(tdr_report__warning(r, 2), "note: hybrid CPU: cpu_atom not measured");
	tdr_report__free(r);
}

static void test_collect__no_adding_after_finish(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	struct tdr_sample s = {.pid = 1, .tid = 1, .comm = "x", .deltas = d1};
	struct tdr_row_key k = {.name = "f"};

	(void)state;
	r = new_report(&m, TDR_BY_FUNCTION, NULL);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__add_sample(r, &s), -EINVAL);
	assert_int_equal(tdr_report__add(r, &k, d1, 1), -EINVAL);
	assert_int_equal(tdr_report__finish(r), -EINVAL);
	assert_int_equal(tdr_report__row_cnt(r), 0);
	assert_int_equal(tdr_report__totals(r)->samples, 0);
	tdr_report__free(r);
}

/* The names report rows and the exports give unsymbolized addresses. */
static void test_collect__unsym_names(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(tdr_report_unsym_name(TDR_SYM_MISSING, "/a/b", 0x10, buf, sizeof(buf)),
			    "[unknown] /a/b");
	assert_string_equal(tdr_report_unsym_name(TDR_SYM_NOT_ELF, "/a/b", 0x10, buf, sizeof(buf)),
			    "[not ELF] /a/b");
	assert_string_equal(tdr_report_unsym_name(TDR_SYM_CHANGED, "/a/b", 0x10, buf, sizeof(buf)),
			    "[changed] /a/b");
	assert_string_equal(
	    tdr_report_unsym_name(TDR_SYM_NO_KERNEL, "[kernel.kallsyms]", 0x10, buf, sizeof(buf)),
	    "[kernel]");
	assert_string_equal(tdr_report_unsym_name(TDR_SYM_NO_SYMBOL, "/a/b", 0x1f, buf, sizeof(buf)),
			    "/a/b+0x1f");
	/* A function-less answer of a read object is an address too. */
	assert_string_equal(tdr_report_unsym_name(TDR_SYM_OK, "/a/b", 0x20, buf, sizeof(buf)),
			    "/a/b+0x20");
}

/* The kernel image: the first "[kernel.kallsyms]" mapping with a build-id,
 * else the first one; other objects never. */
static void test_collect__kernel_image_prefers_a_build_id(void **state)
{
	struct tdr_mapping lib = {.path = "/lib/libc.so.6", .build_id_sz = 20};
	struct tdr_mapping k1 = {.path = "[kernel.kallsyms]_text"};
	struct tdr_mapping k2 = {.path = "[kernel.kallsyms]", .build_id_sz = 20};
	struct tdr_mapping k3 = {.path = "[kernel.kallsyms]_stext", .build_id_sz = 20};
	const struct tdr_mapping *img = NULL;

	(void)state;
	img = tdr_report_kernel_image(img, &lib);
	assert_null(img);
	img = tdr_report_kernel_image(img, NULL);
	assert_null(img);
	img = tdr_report_kernel_image(img, &k1);
	assert_ptr_equal(img, &k1);
	img = tdr_report_kernel_image(img, &k2);
	assert_ptr_equal(img, &k2);
	img = tdr_report_kernel_image(img, &k3);
	assert_ptr_equal(img, &k2);
	img = tdr_report_kernel_image(img, &k1);
	assert_ptr_equal(img, &k2);
}

/* The lookup order: by object, then offset (then index), against qsort
 * with the same key, on random arrays of every size up to 600 and a few
 * large ones, with few objects, many equal offsets, sorted and reversed
 * inputs. */
static int order_ref_cmp(const void *pa, const void *pb)
{
	const struct tdr_report_addr_order *a = pa, *b = pb;

	if (a->obj != b->obj)
		return (uintptr_t)a->obj < (uintptr_t)b->obj ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void test_collect__lookup_order(void **state)
{
	static const char objs[3];
	uint64_t seed = 42;

	(void)state;
	for (size_t n = 0; n < 700; n += n < 600 ? 1 : 25) {
		for (int shape = 0; shape < 3; shape++) {
			size_t cnt = n < 600 ? n : n * 40;
			struct tdr_report_addr_order *a = malloc((cnt + 1) * sizeof(*a));
			struct tdr_report_addr_order *b = malloc((cnt + 1) * sizeof(*b));

			assert_non_null(a);
			assert_non_null(b);
			for (size_t i = 0; i < cnt; i++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				a[i] = (struct tdr_report_addr_order){
				    .obj = (seed >> 60) % 4 ? &objs[(seed >> 40) % 3] : NULL,
				    .off = shape == 0   ? (seed >> 20) % 64
					   : shape == 1 ? i
							: cnt - i,
				    .idx = (uint32_t)i};
			}
			memcpy(b, a, cnt * sizeof(*a));
			tdr_report_addr_order_sort(a, cnt);
			qsort(b, cnt, sizeof(*b), order_ref_cmp);
			for (size_t i = 0; i < cnt; i++) {
				assert_ptr_equal(a[i].obj, b[i].obj);
				assert_int_equal(a[i].off, b[i].off);
				assert_int_equal(a[i].idx, b[i].idx);
			}
			free(a);
			free(b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_collect__each_address_is_symbolized_once),
	    cmocka_unit_test(test_collect__unsymbolized_samples_are_named),
	    cmocka_unit_test(test_collect__not_elf_is_named_so),
	    cmocka_unit_test(test_collect__kernel_symbols_when_usable),
	    cmocka_unit_test(test_collect__inline_mode_names_innermost_function),
	    cmocka_unit_test(test_collect__lines_mode_keys_by_file_and_line),
	    cmocka_unit_test(test_collect__by_dso_thread_process),
	    cmocka_unit_test(test_collect__filters_select_samples),
	    cmocka_unit_test(test_collect__parse_stats_become_warnings),
	    cmocka_unit_test(test_collect__plan_notes_are_warnings),
	    cmocka_unit_test(test_collect__plan_notes_with_one_reason_are_merged),
	    cmocka_unit_test(test_collect__no_adding_after_finish),
	    cmocka_unit_test(test_collect__unsym_names),
	    cmocka_unit_test(test_collect__kernel_image_prefers_a_build_id),
	    cmocka_unit_test(test_collect__lookup_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
