/*
 * tests/report/test_e2e.c - tdrec record, report and diff on real programs.
 *
 * Runs the tdrec binary ($TDREC) with the software plan (the only one a VM
 * without a PMU can open): the bundled example's four hot functions must
 * appear; a report of a perf.data file must count exactly the samples
 * 'perf report' counts per function (perf is the oracle, skipped when not
 * installed); two threads each show their own function; a diff of two runs of a program whose
 * arguments move work from one function to the other must show that direction; bad input and bad
 * options give one line and the documented exit status.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/test_run.h"

#include "json_mini.h"
#include "report_fixture.h"

struct env {
	char dir[64];
	const char *tdrec;
	char hotloop[4096], workmix[4096];
};

/* "perf record -q ARGS 2>&1" (ARGS a format): its exit status and output
 * (caller frees). The test is skipped where perf is not installed. */
static int perf_record(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perf_record(char **out, const char *fmt, ...)
{
	char args[8192];
	va_list ap;

	if (test_run(NULL, "command -v perf >/dev/null 2>&1"))
		skip();
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return test_run(out, "perf record -q %s 2>&1", args);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const char *bin = getenv("TDR_BINARY_DIR");
	char cache[128];

	e->tdrec = getenv("TDREC");
	if (!e->tdrec || !bin) {
		fprintf(stderr, "TDREC and TDR_BINARY_DIR must be set (run through ctest)\n");
		free(e);
		return -1;
	}
	snprintf(e->hotloop, sizeof(e->hotloop), "%s/examples/hotloop", bin);
	snprintf(e->workmix, sizeof(e->workmix), "%s/tests/report/report_workmix", bin);
	snprintf(e->dir, sizeof(e->dir), "/tmp/tdrec-report-e2e-XXXXXX");
	if (!mkdtemp(e->dir)) {
		free(e);
		return -1;
	}
	/* The kernel symbol cache goes to the test's directory, not ~/.cache. */
	snprintf(cache, sizeof(cache), "%s/cache", e->dir);
	setenv("TDREC_CACHE_DIR", cache, 1);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	test_run(NULL, "rm -rf '%s'", e->dir);
	free(e);
	return 0;
}

/* Record argv into file, with tdrec's own options opts; skip the test
 * when perf events are not allowed. */
static void record_opts(const struct env *e, const char *opts, const char *file,
			const char *prog_and_args)
{
	char *out = NULL;
	int st = test_run(&out, "'%s' record -q %s -o '%s/%s' -- %s 2>&1", e->tdrec, opts, e->dir, file,
		     prog_and_args);

	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip();
	}
	if (st)
		print_error("tdrec record failed (%d): %s\n", st, out);
	assert_int_equal(st, 0);
	free(out);
}

static void record(const struct env *e, const char *file, const char *prog_and_args)
{
	record_opts(e, "", file, prog_and_args);
}

static struct jm *report_json(const struct env *e, const char *file, const char *opts)
{
	char *out = NULL;
	size_t where = 0;
	struct jm *j;
	int st = test_run(&out, "'%s' report -i '%s/%s' --json %s", e->tdrec, e->dir, file, opts);

	assert_int_equal(st, 0);
	j = jm_parse(out, &where);
	if (!j)
		print_error("invalid JSON at %zu: %.60s\n", where, out + where);
	assert_non_null(j);
	free(out);
	return j;
}

static const struct jm *row_named(const struct jm *j, const char *name)
{
	const struct jm *rows = jm_get(j, "rows");

	for (size_t i = 0; rows && i < rows->n; i++) {
		const struct jm *n = jm_get(jm_at(rows, i), "name");

		if (n && n->t == JM_STR && !strcmp(n->str, name))
			return jm_at(rows, i);
	}
	return NULL;
}

static const char *const hot[] = {"compute_kernel", "chase_pointers", "branchy_filter",
				  "hash_blocks"};

static void test_e2e__hotloop_hot_functions_appear(void **state)
{
	struct env *e = *state;
	struct jm *j;
	char *out = NULL;
	double sum = 0;

	record(e, "hot.tdr", e->hotloop);
	j = report_json(e, "hot.tdr", "");
	assert_true(jm_get(jm_get(j, "totals"), "samples")->num > 200);
	for (size_t i = 0; i < 4; i++) {
		const struct jm *row = row_named(j, hot[i]);
		const char *dso;

		if (!row)
			print_error("%s not in the report\n", hot[i]);
		assert_non_null(row);
		dso = jm_get(row, "dso")->str;
		assert_string_equal(dso + strlen(dso) - strlen("/hotloop"), "/hotloop");
		/* The split is about 3:3:2:2; each has well over 5%. */
		assert_true(jm_get(row, "share")->num > 0.05);
		sum += jm_get(row, "share")->num;
		/* The software plan: event totals, never TopDown numbers. */
		if (!jm_get(j, "categories")->n)
			assert_int_equal(jm_get(row, "topdown")->t, JM_NULL);
		assert_true(jm_get(jm_get(row, "events"), "cpu-clock")->num > 0);
	}
	assert_true(sum > 0.6);
	assert_string_equal(jm_get(jm_get(j, "recording"), "end")->str, "exit 0");
	jm_free(j);
	/* A one-thread program lasts at least as long as the CPU time it
	 * counted, even one that ends before the recorder looks at the clock
	 * after releasing it (the duration starts before). */
	record(e, "true.tdr", "/bin/true");
	j = report_json(e, "true.tdr", "");
	{
		const struct jm *c = jm_get(jm_get(j, "totals"), "counted");

		assert_true(c && c->t == JM_OBJ);
		assert_true(jm_get(jm_get(j, "recording"), "duration_ns")->num >=
			    jm_get(c, "task-clock")->num);
	}
	jm_free(j);

	/* The text report names them too and fits 100 columns (-w: into a
	 * pipe names are whole otherwise). */
	assert_int_equal(
	    test_run(&out, "'%s' report -i '%s/hot.tdr' --color never -w 100", e->tdrec, e->dir), 0);
	fx_assert_width(out, 100);
	for (size_t i = 0; i < 4; i++)
		assert_non_null(strstr(out, hot[i]));
	free(out);

	/* The always-inline helpers of hash_blocks show up inlined into it. */
	j = report_json(e, "hot.tdr", "--inline");
	{
		const struct jm *m = row_named(j, "mix64"), *r = row_named(j, "rotl64");
		const struct jm *x = m ? m : r;

		assert_non_null(x);
		assert_string_equal(jm_get(x, "inlined_into")->str, "hash_blocks");
	}
	jm_free(j);

	/* Source lines of the example. */
	j = report_json(e, "hot.tdr", "--lines -n 5");
	{
		const struct jm *row = jm_at(jm_get(j, "rows"), 0);
		const char *file = jm_get(row, "file")->str;

		assert_non_null(file);
		assert_string_equal(file + strlen(file) - strlen("hotloop.c"), "hotloop.c");
		assert_true(jm_get(row, "line")->num > 0);
	}
	jm_free(j);
}

/* The line of perf report output whose symbol column is "[.] sym", or NULL. */
static const char *perf_line(const char *perf_out, const char *sym)
{
	const char *p = perf_out;

	while ((p = strstr(p, sym))) {
		const char *bol = p;

		while (bol > perf_out && bol[-1] != '\n')
			bol--;
		if ((p[strlen(sym)] == '\n' || p[strlen(sym)] == ' ') && strstr(bol, "[.] ") &&
		    strstr(bol, "[.] ") + 4 == p)
			return bol;
		p++;
	}
	return NULL;
}

/* perf report -F sample,sym lines: "  3143  [.] branchy_filter" */
static long perf_samples(const char *perf_out, const char *sym)
{
	const char *line = perf_line(perf_out, sym);

	return line ? strtol(line, NULL, 10) : -1;
}

static void test_e2e__perf_data_counts_match_perf_report(void **state)
{
	struct env *e = *state;
	char *out = NULL;
	struct jm *j;
	int st;

	st = perf_record(&out, "-e cpu-clock -F 2000 -o '%s/perf.data' '%s'", e->dir, e->hotloop);
	if (st) {
		print_message("perf record failed, skipping: %s\n", out);
		free(out);
		skip();
	}
	free(out);
	j = report_json(e, "perf.data", "");
	assert_string_equal(jm_get(jm_get(j, "recording"), "source")->str, "perf.data");
	assert_int_equal(test_run(&out,
			     "perf report -i '%s/perf.data' -q --stdio -F sample,sym "
			     "2>/dev/null",
			     e->dir),
			 0);
	for (size_t i = 0; i < 4; i++) {
		const struct jm *row = row_named(j, hot[i]);
		long want = perf_samples(out, hot[i]);

		assert_non_null(row);
		assert_true(want > 0);
		if ((long)jm_get(row, "samples")->num != want)
			print_error("%s: tdrec %ld samples, perf %ld\n", hot[i],
				    (long)jm_get(row, "samples")->num, want);
		assert_int_equal((long)jm_get(row, "samples")->num, want);
	}
	free(out);
	jm_free(j);
}

/* perf record -e A -e B: two sampling events. Samples and shares are A's,
 * as perf report shows each event apart (a share mixing both would be
 * neither's); B's samples add to B's column. Counts from perf script. */
static void test_e2e__perf_data_two_sampling_events(void **state)
{
	struct env *e = *state;
	char *out = NULL;
	long cpu = 0, faults = 0;
	struct jm *j;
	int st;

	st = perf_record(&out,
			 "-e cpu-clock/freq=2000/ -e page-faults/period=1/ -o '%s/two.data' '%s'",
			 e->dir, e->hotloop);
	if (st) {
		print_message("perf record failed, skipping: %s\n", out);
		free(out);
		skip();
	}
	free(out);
	assert_int_equal(test_run(&out, "perf script -i '%s/two.data' -F event 2>/dev/null", e->dir), 0);
	/* one line per sample: "cpu-clock/freq=2000/: " */
	for (const char *p = out; (p = strstr(p, "cpu-clock/")) != NULL; p++)
		cpu++;
	for (const char *p = out; (p = strstr(p, "page-faults/")) != NULL; p++)
		faults++;
	free(out);
	assert_true(cpu > 0 && faults > 0); /* a program start always faults */
	j = report_json(e, "two.data", "");
	assert_int_equal((long)jm_get(jm_get(j, "totals"), "samples")->num, cpu);
	assert_int_equal((long)jm_get(j, "samples_seen")->num, cpu);
	assert_int_equal(
	    (long)jm_get(jm_get(jm_get(j, "totals"), "events"), "page-faults/period=1/")->num,
	    faults);
	jm_free(j);
}

/*
 * The recorder against perf's, on the same run: perf record (cpu-clock:u,
 * user code only like tdrec's default, following every thread) runs tdrec
 * record, which runs the program, so both sample the very same execution.
 * Each known hot function's share of the program's samples must be within 5
 * points of perf's (perf report --comm PROG --percentage relative).
 */
static void shares_agree_with_perf(struct env *e, const char *file, const char *prog,
				   const char *args, const char *const *fns, size_t fn_cnt)
{
	const char *comm = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	char *out = NULL;
	struct jm *j;
	int st;

	/* perf records tdrec recording the program: tdrec must leave perf's
	 * MMAP2 records readable (no attr.build_id: docs/record.md "Build-ids"). */
	st = perf_record(&out,
			 "-e cpu-clock:u -F 4000 -o '%s/%s.data' -- '%s' record -q -o '%s/%s' -- "
			 "'%s' %s",
			 e->dir, file, e->tdrec, e->dir, file, prog, args);
	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip();
	}
	if (st)
		print_error("perf record -- tdrec record failed (%d): %s\n", st, out);
	assert_int_equal(st, 0);
	free(out);
	assert_int_equal(test_run(&out,
			     "perf report -i '%s/%s.data' -q --stdio --comm '%.15s' "
			     "--percentage relative -F overhead,sym 2>/dev/null",
			     e->dir, file, comm),
			 0);
	j = report_json(e, file, "");
	for (size_t i = 0; i < fn_cnt; i++) {
		const struct jm *row = row_named(j, fns[i]);
		const char *line = perf_line(out, fns[i]);
		double perf_share, tdrec_share;

		if (!row || !line)
			print_error("%s: %s in tdrec's report, %s in perf's\n", fns[i],
				    row ? "present" : "absent", line ? "present" : "absent");
		assert_non_null(row);
		assert_non_null(line);
		perf_share = strtod(line, NULL) / 100;
		tdrec_share = jm_get(row, "share")->num;
		if (fabs(perf_share - tdrec_share) > 0.05)
			print_error("%s: tdrec %.3f, perf %.3f\n", fns[i], tdrec_share, perf_share);
		assert_true(perf_share > 0.05);
		assert_true(fabs(perf_share - tdrec_share) <= 0.05);
	}
	free(out);
	jm_free(j);
}

static void test_e2e__shares_agree_with_perf_hotloop(void **state)
{
	struct env *e = *state;

	shares_agree_with_perf(e, "perf-hot.tdr", e->hotloop, "", hot, 4);
}

static void test_e2e__shares_agree_with_perf_two_threads(void **state)
{
	static const char *const fns[] = {"spin_a", "spin_b"};
	struct env *e = *state;

	/* spin_a runs in a second thread, spin_b in the main thread. */
	shares_agree_with_perf(e, "perf-thr.tdr", e->workmix, "20 30 threads", fns, 2);
}

/* Every kernel function perf names with at least 3 samples (out: perf's
 * report) is in j, in [kernel.kallsyms], with perf's count. Returns how
 * many were checked. */
static size_t kernel_rows_agree(const char *out, const struct jm *j)
{
	size_t checked = 0;

	for (const char *k = strstr(out, "[k] "); k; k = strstr(k + 1, "[k] ")) {
		const char *bol = k;
		char name[256];
		const struct jm *row;
		long want;

		while (bol > out && bol[-1] != '\n')
			bol--;
		want = strtol(bol, NULL, 10);
		if (sscanf(k + 4, "%255s", name) != 1 || want < 3)
			continue;
		row = row_named(j, name);
		if (!row)
			print_error("kernel function %s (%ld samples in perf) not in tdrec's "
				    "report\n",
				    name, want);
		assert_non_null(row);
		assert_string_equal(jm_get(row, "dso")->str, "[kernel.kallsyms]");
		assert_int_equal((long)jm_get(row, "samples")->num, want);
		checked++;
	}
	return checked;
}

/*
 * perf.data files carry no boot id, but name their kernel image (the
 * build-id of [kernel.kallsyms] and the address of _text): recorded on this
 * very kernel, the kernel functions are named from /proc/kallsyms as perf
 * names them, each with perf's sample count. The first report writes the
 * per-boot kernel symbol cache (TDREC_CACHE_DIR, set by setup); the second
 * uses it (the file is not rewritten) and names everything identically.
 */
static void test_e2e__perf_data_kernel_functions_named(void **state)
{
	struct env *e = *state;
	char *out = NULL, *text1 = NULL, *text2 = NULL, cache[256];
	struct stat st1, st2;
	struct jm *j;
	size_t checked;
	int st;

	st = perf_record(&out,
			 "-e cpu-clock -F 4000 -o '%s/kernel.data' -- dd if=/dev/zero of=/dev/null "
			 "bs=4k count=200000",
			 e->dir);
	free(out);
	if (st)
		skip();
	assert_int_equal(test_run(&out,
			     "perf report -i '%s/kernel.data' -q --stdio -F sample,sym 2>/dev/null",
			     e->dir),
			 0);
	if (!strstr(out, "[k] ")) {
		/* No kernel samples (perf_event_paranoid), or hidden kallsyms. */
		print_message("perf names no kernel function here, skipping\n");
		free(out);
		skip();
	}
	snprintf(cache, sizeof(cache), "%s/cache/kallsyms.bin", e->dir);
	assert_int_equal(test_run(&text1, "'%s' report -i '%s/kernel.data' -n 0", e->tdrec, e->dir), 0);
	assert_int_equal(stat(cache, &st1), 0);
	assert_true(S_ISREG(st1.st_mode));
	assert_int_equal(st1.st_mode & 0777, 0600);
	j = report_json(e, "kernel.data", "");
	checked = kernel_rows_agree(out, j);
	assert_true(checked > 0);
	assert_null(row_named(j, "[kernel]"));
	jm_free(j);
	/* Later reports map the cache instead of rebuilding it (a rebuild
	 * renames a new file over it: another inode). */
	assert_int_equal(test_run(&text2, "'%s' report -i '%s/kernel.data' -n 0", e->tdrec, e->dir), 0);
	assert_int_equal(stat(cache, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_string_equal(text1, text2);
	j = report_json(e, "kernel.data", "");
	assert_int_equal(kernel_rows_agree(out, j), checked);
	assert_int_equal(stat(cache, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	free(text1);
	free(text2);
	assert_true(checked > 0);
	assert_null(row_named(j, "[kernel]"));
	jm_free(j);
	free(out);
}

/* The same without the BUILD_ID feature (perf record -o -, pipe mode, has
 * none): the kernel is decided by its release and _text's placement, so its
 * functions are named as perf names them (before: 76% "[kernel]"). */
static void test_e2e__perf_data_kernel_named_without_build_ids(void **state)
{
	struct env *e = *state;
	char *out = NULL;
	struct jm *j;
	int st;

	if (test_run(NULL, "command -v perf >/dev/null 2>&1"))
		skip();
	/* Through cat: the file is whole once every writer of the pipe is done. */
	st = test_run(NULL,
		 "perf record -q -e cpu-clock -F 4000 -o - -- dd if=/dev/zero of=/dev/null "
		 "bs=4k count=200000 2>/dev/null | cat > '%s/kernel-pipe.data'",
		 e->dir);
	if (st)
		skip();
	st = test_run(&out, "perf report -i '%s/kernel-pipe.data' -q --stdio -F sample,sym 2>/dev/null",
		 e->dir);
	if (st) {
		/* perf 6.1 itself now and then aborts on a pipe-mode file: no
		 * oracle this time. */
		print_message("perf report failed (%d) on the pipe-mode file: skipped\n", st);
		free(out);
		skip();
	}
	if (!strstr(out, "[k] ")) {
		print_message("perf names no kernel function here, skipping\n");
		free(out);
		skip();
	}
	j = report_json(e, "kernel-pipe.data", "");
	assert_true(kernel_rows_agree(out, j) > 0);
	assert_null(row_named(j, "[kernel]"));
	jm_free(j);
	free(out);
}

/*
 * The program is rebuilt (here: rewritten) after the recording: its samples
 * are "[changed] PATH", never named from the new file; once it is deleted,
 * "[unknown] PATH". Both are warned about with their share.
 */
static void test_e2e__changed_and_missing_binaries(void **state)
{
	struct env *e = *state;
	char prog[4096], args[4200], name[4200], *home = getenv("HOME");
	const struct jm *row;
	struct jm *j;
	int i;

	/* The recording carries the program's build-id, and perf's build-id
	 * cache ($HOME/.debug) may hold the same binary from the perf runs
	 * above: the report would rightly symbolize from that copy. An empty
	 * HOME keeps this test about the file alone. */
	home = home ? strdup(home) : NULL;
	setenv("HOME", e->dir, 1);
	snprintf(prog, sizeof(prog), "%s/workmix-copy", e->dir);
	assert_int_equal(test_run(NULL, "cp '%s' '%s'", e->workmix, prog), 0);
	snprintf(args, sizeof(args), "'%s' 10 10", prog);
	/* The live lookup is under test: without the archive of symbols,
	 * which would name spin_a whatever happens to the file. */
	record_opts(e, "--no-archive", "copy.tdr", args);
	j = report_json(e, "copy.tdr", "");
	assert_non_null(row_named(j, "spin_a"));
	jm_free(j);

	/* Rewritten in place (same inode: the recorded build-id tells). */
	assert_int_equal(test_run(NULL, "cat '%s' > '%s'", e->hotloop, prog), 0);
	j = report_json(e, "copy.tdr", "");
	assert_null(row_named(j, "spin_a"));
	snprintf(name, sizeof(name), "[changed] %s", prog);
	row = row_named(j, name);
	assert_non_null(row);
	assert_true(jm_get(row, "share")->num > 0.9);
	for (i = 0; i < (int)jm_get(j, "warnings")->n; i++)
		if (strstr(jm_at(jm_get(j, "warnings"), (size_t)i)->str, "not symbolized: ") &&
		    strstr(jm_at(jm_get(j, "warnings"), (size_t)i)->str, prog))
			break;
	assert_true(i < (int)jm_get(j, "warnings")->n);
	/* ... and how to keep the old binary; doing so (the original has the
	 * same build-id as the copy) names the functions again. */
	for (i = 0; i < (int)jm_get(j, "warnings")->n; i++)
		if (strstr(jm_at(jm_get(j, "warnings"), (size_t)i)->str, "perf buildid-cache -a"))
			break;
	assert_true(i < (int)jm_get(j, "warnings")->n);
	jm_free(j);
	if (!test_run(NULL, "command -v perf >/dev/null 2>&1")) {
		assert_int_equal(test_run(NULL, "perf buildid-cache -a '%s' 2>&1", e->workmix), 0);
		j = report_json(e, "copy.tdr", "");
		assert_non_null(row_named(j, "spin_a"));
		jm_free(j);
		assert_int_equal(test_run(NULL, "rm -r '%s/.debug'", e->dir), 0);
	}

	assert_int_equal(test_run(NULL, "rm '%s'", prog), 0);
	j = report_json(e, "copy.tdr", "");
	snprintf(name, sizeof(name), "[unknown] %s", prog);
	row = row_named(j, name);
	assert_non_null(row);
	assert_true(jm_get(row, "share")->num > 0.9);
	jm_free(j);
	if (home)
		setenv("HOME", home, 1);
	free(home);
}

/* The first warning of j holding every one of the strings, or NULL. */
static const char *warning_with(const struct jm *j, const char *a, const char *b)
{
	const struct jm *w = jm_get(j, "warnings");

	for (size_t i = 0; i < w->n; i++) {
		const char *t = jm_at(w, i)->str;

		if (strstr(t, a) && (!b || strstr(t, b)))
			return t;
	}
	return NULL;
}

/* --lines on a program without DWARF: the rows are its functions, and a
 * note says why there are no lines, naming the object; with DWARF, no note. */
static void test_e2e__lines_without_dwarf_say_so(void **state)
{
	struct env *e = *state;
	char prog[4096], args[4200];
	struct jm *j;

	snprintf(prog, sizeof(prog), "%s/workmix-nodebug", e->dir);
	assert_int_equal(test_run(NULL, "objcopy --strip-debug '%s' '%s'", e->workmix, prog), 0);
	snprintf(args, sizeof(args), "'%s' 10 10", prog);
	record(e, "nodebug.tdr", args);
	j = report_json(e, "nodebug.tdr", "--lines");
	assert_non_null(row_named(j, "spin_a"));
	assert_null(jm_get(row_named(j, "spin_a"), "file")->str);
	assert_non_null(warning_with(j, "note: ", "have no source line"));
	assert_non_null(warning_with(j, "have no source line", "workmix-nodebug "));
	jm_free(j);
	snprintf(args, sizeof(args), "'%s' 10 10", e->workmix);
	record(e, "debug.tdr", args);
	j = report_json(e, "debug.tdr", "--lines");
	assert_null(warning_with(j, "have no source line", NULL));
	jm_free(j);
}

static void test_e2e__diff_shows_direction_of_change(void **state)
{
	struct env *e = *state;
	char cmd[8192], *out = NULL;
	const struct jm *a = NULL, *b = NULL, *rows;
	struct jm *j;
	size_t where = 0;

	snprintf(cmd, sizeof(cmd), "'%s' 10 10", e->workmix);
	record(e, "old.tdr", cmd);
	snprintf(cmd, sizeof(cmd), "'%s' 10 40", e->workmix);
	record(e, "new.tdr", cmd);
	assert_int_equal(
	    test_run(&out, "'%s' diff '%s/old.tdr' '%s/new.tdr' --json", e->tdrec, e->dir, e->dir), 0);
	j = jm_parse(out, &where);
	assert_non_null(j);
	free(out);
	rows = jm_get(j, "rows");
	for (size_t i = 0; i < rows->n; i++) {
		const char *name = jm_get(jm_at(rows, i), "name")->str;

		if (!strcmp(name, "spin_a"))
			a = jm_at(rows, i);
		if (!strcmp(name, "spin_b"))
			b = jm_at(rows, i);
	}
	assert_non_null(a);
	assert_non_null(b);
	/* spin_b: about 50% -> 80%; spin_a: 50% -> 20%. */
	assert_true(jm_get(b, "share_change")->num > 0.15);
	assert_true(jm_get(a, "share_change")->num < -0.15);
	assert_string_equal(jm_get(a, "dso")->str, "report_workmix");
	/* The two largest changes come first. */
	assert_true(fabs(jm_get(jm_at(rows, 0), "share_change")->num) > 0.15);
	assert_true(fabs(jm_get(jm_at(rows, 1), "share_change")->num) > 0.15);
	jm_free(j);

	assert_int_equal(
	    test_run(&out, "'%s' diff -w 100 '%s/old.tdr' '%s/new.tdr'", e->tdrec, e->dir, e->dir), 0);
	fx_assert_width(out, 100);
	assert_non_null(strstr(out, "OLD = "));
	assert_non_null(strstr(out, "old.tdr, NEW = "));
	free(out);
}

static void test_e2e__two_threads_each_with_its_function(void **state)
{
	struct env *e = *state;
	char cmd[8192], opt[64];
	const struct jm *rows;
	struct jm *j;
	const char *tops[2] = {NULL, NULL};
	size_t threads = 0;

	snprintf(cmd, sizeof(cmd), "'%s' 20 20 threads", e->workmix);
	record(e, "thr.tdr", cmd);
	j = report_json(e, "thr.tdr", "");
	assert_non_null(row_named(j, "spin_a"));
	assert_non_null(row_named(j, "spin_b"));
	assert_true(jm_get(row_named(j, "spin_a"), "share")->num > 0.2);
	assert_true(jm_get(row_named(j, "spin_b"), "share")->num > 0.2);
	jm_free(j);

	/* Two busy threads of one process; each one's top function is its own. */
	j = report_json(e, "thr.tdr", "--by thread");
	rows = jm_get(j, "rows");
	for (size_t i = 0; i < rows->n && threads < 2; i++) {
		const struct jm *row = jm_at(rows, i);
		struct jm *f;

		if (jm_get(row, "share")->num < 0.2)
			continue;
		assert_int_equal(jm_get(row, "pid")->num, jm_get(jm_at(rows, 0), "pid")->num);
		snprintf(opt, sizeof(opt), "--tid %.0f", jm_get(row, "tid")->num);
		f = report_json(e, "thr.tdr", opt);
		tops[threads++] = strdup(jm_get(jm_at(jm_get(f, "rows"), 0), "name")->str);
		assert_true(jm_get(jm_at(jm_get(f, "rows"), 0), "share")->num > 0.8);
		jm_free(f);
	}
	assert_int_equal(threads, 2);
	assert_true(!strcmp(tops[0], "spin_a") || !strcmp(tops[0], "spin_b"));
	assert_true(!strcmp(tops[1], "spin_a") || !strcmp(tops[1], "spin_b"));
	assert_string_not_equal(tops[0], tops[1]);
	free((void *)tops[0]);
	free((void *)tops[1]);
	jm_free(j);
}

/* Into a pipe, names are whole, as perf prints them; -w still forces a
 * width (the synthetic examples need no perf_event_open). */
static void test_e2e__names_whole_into_a_pipe(void **state)
{
	struct env *e = *state;
	const char *src = getenv("TDR_SOURCE_DIR");
	char *out;

	assert_non_null(src);
	assert_int_equal(test_run(&out, "'%s' report -i '%s/examples/amd-zen4.perf.data' | cat",
			     e->tdrec, src),
			 0);
	assert_non_null(strstr(out, "  branchy_filter  synthetic-demo.elf\n"));
	free(out);
	assert_int_equal(test_run(&out, "'%s' report -w 100 -i '%s/examples/amd-zen4.perf.data'",
			     e->tdrec, src),
			 0);
	assert_null(strstr(out, "branchy_filter  synthetic-demo.elf"));
	assert_non_null(strstr(out, "  branchy_filter  synthetic-..."));
	fx_assert_width(out, 100);
	free(out);
	assert_int_equal(test_run(&out, "'%s' diff '%s/examples/amd-zen4.perf.data' "
				   "'%s/examples/amd-zen5.perf.data' > '%s/diff.txt'; cat '%s/diff.txt'",
			     e->tdrec, src, src, e->dir, e->dir),
			 0);
	assert_non_null(strstr(out, "  branchy_filter  synthetic-demo.elf"));
	free(out);
}

static void test_e2e__errors_and_usage(void **state)
{
	struct env *e = *state;
	char *out = NULL;
	struct jm *j;

	/* A missing file: one line naming it, exit 1. */
	assert_int_equal(test_run(&out, "'%s' report -i '%s/missing.tdr' 2>&1", e->tdrec, e->dir), 1);
	assert_non_null(strstr(out, "missing.tdr: No such file or directory"));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	free(out);
	/* Not a recording. */
	assert_int_equal(test_run(&out, "echo hello > '%s/junk'; '%s' report -i '%s/junk' 2>&1", e->dir,
			     e->tdrec, e->dir),
			 1);
	assert_non_null(strstr(out, "junk: not a tdrec or perf.data file"));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out)); /* one line */
	free(out);
	/* With --json the error is JSON on stdout. */
	assert_int_equal(
	    test_run(&out, "'%s' report --json -i '%s/missing.tdr' 2>/dev/null", e->tdrec, e->dir), 1);
	j = jm_parse(out, NULL);
	assert_non_null(j);
	assert_non_null(strstr(jm_get(j, "error")->str, "missing.tdr"));
	jm_free(j);
	free(out);
	/* Usage errors exit 2 with one line naming the option; --help exits 0
	 * and says what it does. */
	assert_int_equal(test_run(&out, "'%s' report --no-such-option 2>&1", e->tdrec), 2);
	assert_non_null(strstr(out, "'--no-such-option'"));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	free(out);
	assert_int_equal(test_run(&out, "'%s' diff -n 2>&1", e->tdrec), 2);
	assert_non_null(strstr(out, "'-n' needs a value"));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	free(out);
	assert_int_equal(test_run(&out, "'%s' report -w 30 2>&1", e->tdrec), 2);
	assert_non_null(strstr(out, "--width: 30 is too narrow"));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	free(out);
	assert_int_equal(test_run(NULL, "'%s' diff --width x a.tdr b.tdr 2>/dev/null", e->tdrec), 2);
	assert_int_equal(test_run(NULL, "'%s' report --by nothing 2>/dev/null", e->tdrec), 2);
	assert_int_equal(test_run(NULL, "'%s' report --min-share 200 2>/dev/null", e->tdrec), 2);
	assert_int_equal(test_run(NULL, "'%s' diff only-one.tdr 2>/dev/null", e->tdrec), 2);
	assert_int_equal(test_run(&out, "'%s' report --help", e->tdrec), 0);
	assert_non_null(strstr(out, "usage: tdrec report"));
	assert_non_null(strstr(out, "--inline"));
	free(out);
	assert_int_equal(test_run(&out, "'%s' diff --help", e->tdrec), 0);
	assert_non_null(strstr(out, "usage: tdrec diff"));
	free(out);
	/* A missing NEW is named. */
	assert_int_equal(test_run(&out, "'%s' diff '%s/missing1.tdr' '%s/missing2.tdr' 2>&1", e->tdrec,
			     e->dir, e->dir),
			 1);
	assert_non_null(strstr(out, "missing1.tdr"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_e2e__hotloop_hot_functions_appear),
	    cmocka_unit_test(test_e2e__perf_data_counts_match_perf_report),
	    cmocka_unit_test(test_e2e__perf_data_two_sampling_events),
	    cmocka_unit_test(test_e2e__lines_without_dwarf_say_so),
	    cmocka_unit_test(test_e2e__shares_agree_with_perf_hotloop),
	    cmocka_unit_test(test_e2e__shares_agree_with_perf_two_threads),
	    cmocka_unit_test(test_e2e__perf_data_kernel_functions_named),
	    cmocka_unit_test(test_e2e__changed_and_missing_binaries),
	    cmocka_unit_test(test_e2e__diff_shows_direction_of_change),
	    cmocka_unit_test(test_e2e__two_threads_each_with_its_function),
	    cmocka_unit_test(test_e2e__perf_data_kernel_named_without_build_ids),
	    cmocka_unit_test(test_e2e__names_whole_into_a_pipe),
	    cmocka_unit_test(test_e2e__errors_and_usage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
