/*
 * tests/report/test_stacks_perf.c - tdrec report --children against perf.
 *
 * On the bundled example (examples/hotloop) and a multi-threaded program
 * (progs/stackmt.c), sampled with the software event cpu-clock, user mode
 * only, one sample every 100 us of CPU time, perf report --children
 * --percentage relative is the oracle:
 *   - on perf's own file (perf record -g -e cpu-clock:u -c 100000 PROG),
 *     tdrec report --children gives perf's shares within 0.1 points (perf
 *     prints two decimals);
 *   - tdrec record -g -c 100000 + tdrec report --children within 2 points
 *     of perf on the same execution: perf record -g runs tdrec record -g,
 *     which runs PROG (--comm PROG), so both tools sample one run (a second
 *     run of a memory-bound program on a busy machine moves shares by more
 *     than the tolerance). In a sanitizer build perf's report of a program
 *     started by the ASan-built tdrec loses the program's libc frames (its
 *     own file read by tdrec has them), and a separate run moves even the
 *     steady multi-threaded program's shares by ~3 points on a loaded
 *     machine: there only perf's own file is compared (the first point).
 * For every function that either tool puts at 1% or more, both the
 * inclusive (children) and the self share. Functions are matched by name;
 * perf's [unknown] rows (and tdrec's unmapped and unsymbolized ones) are
 * left out: they are keyed by address and are not functions. Skips when
 * perf is missing or perf_event_open is not allowed. Label: integration.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "json_mini.h"

#ifndef TDR_TEST_SANITIZED
#define TDR_TEST_SANITIZED 0
#endif

#define MAXF 256

/* Shares in percent, per source. */
enum { PERF_FILE, TDREC_ON_PERF_FILE, PERF_SAME_RUN, TDREC_FILE, SRC_CNT };

struct fn {
	char name[128];
	double incl[SRC_CNT], self[SRC_CNT];
};

struct ctx {
	char dir[64];
	struct fn f[MAXF];
	size_t cnt;
};

static struct fn *fn_of(struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->cnt; i++)
		if (!strcmp(c->f[i].name, name))
			return &c->f[i];
	assert_true(c->cnt < MAXF);
	memset(&c->f[c->cnt], 0, sizeof(c->f[0]));
	snprintf(c->f[c->cnt].name, sizeof(c->f[0].name), "%s", name);
	return &c->f[c->cnt++];
}

static int run_cmd(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	size_t sz = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	size_t n;

	assert_non_null(p);
	assert_non_null(buf);
	while ((n = fread(buf + sz, 1, cap - sz - 1, p)) > 0) {
		sz += n;
		if (cap - sz < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	buf[sz] = '\0';
	assert_int_equal(pclose(p), 0);
	return buf;
}

/* "    29.66%    29.29%  [.] branchy_filter" */
static void read_perf(struct ctx *c, const char *data, const char *comm, int src)
{
	char cmd[512], line[1024];
	FILE *p;
	size_t rows = 0;

	snprintf(cmd, sizeof(cmd),
		 "perf report -i '%s' --comm '%.15s' --percentage relative --children --stdio "
		 "-g none --percent-limit 0 -F overhead_children,overhead,sym 2>/dev/null",
		 data, comm);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		double incl, self;
		char mode[8], name[sizeof(c->f[0].name)];

		if (line[0] == '#' ||
		    sscanf(line, " %lf%% %lf%% [%7[^]]] %127s", &incl, &self, mode, name) != 4)
			continue;
		rows++;
		if (!strcmp(name, "[unknown]") || !strncmp(name, "0x", 2))
			continue;
		fn_of(c, name)->incl[src] += incl;
		fn_of(c, name)->self[src] += self;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(rows > 3);
}

static void read_tdrec(struct ctx *c, const char *tdrec, const char *data, const char *comm,
		       int src)
{
	char cmd[4400];
	char *text;
	struct jm *j;
	const struct jm *rows;
	size_t where = 0;

	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --children --json --min-samples 0%s%.15s",
		 tdrec, data, comm ? " --comm " : "", comm ? comm : "");
	text = slurp(cmd);
	j = jm_parse(text, &where);
	if (!j)
		fail_msg("tdrec's JSON is invalid at byte %zu", where);
	assert_string_equal(jm_get(jm_get(j, "stacks"), "view")->str, "children");
	assert_true(jm_get(jm_get(j, "stacks"), "stack_samples")->num > 0);
	rows = jm_get(j, "rows");
	assert_non_null(rows);
	for (size_t i = 0; i < rows->n; i++) {
		const struct jm *r = jm_at(rows, i);
		const char *name = jm_get(r, "name")->str;
		struct fn *f;

		if (name[0] == '[' || strchr(name, '+'))
			continue; /* [unmapped], [unknown] path, object+0x... */
		f = fn_of(c, name);
		f->incl[src] += 100.0 * jm_get(r, "share")->num;
		f->self[src] += 100.0 * jm_get(r, "self_share")->num;
	}
	jm_free(j);
	free(text);
}

static void check(const struct fn *f, const char *what, double perf, double mine, double tol)
{
	if (fabs(perf - mine) > tol)
		fail_msg("%s: %s %.2f%% in perf, %.2f%% in tdrec", f->name, what, perf, mine);
}

static void compare(struct ctx *c, const char *prog, const char *args)
{
	const char *tdrec = getenv("TDREC");
	const char *comm = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	char cmd[8600], pdata[128], sdata[128], tdata[128];
	bool same_run = !TDR_TEST_SANITIZED, own = same_run;
	size_t checked = 0;

	if (run_cmd("perf --version >/dev/null 2>&1") != 0) {
		print_message("perf is not installed: skipped\n");
		skip();
	}
	assert_non_null(tdrec);
	if (access(prog, X_OK)) {
		print_message("%s not built: skipped\n", prog);
		skip();
	}
	snprintf(pdata, sizeof(pdata), "%s/perf.data", c->dir);
	snprintf(sdata, sizeof(sdata), "%s/same.data", c->dir);
	snprintf(tdata, sizeof(tdata), "%s/g.tdr", c->dir);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -g -e cpu-clock:u -c 100000 -o '%s' -- '%s' %s >/dev/null 2>&1",
		 pdata, prog, args);
	if (run_cmd(cmd) != 0) {
		print_message("perf record failed (perf_event_open not allowed?): skipped\n");
		skip();
	}
	read_perf(c, pdata, comm, PERF_FILE);
	read_tdrec(c, tdrec, pdata, comm, TDREC_ON_PERF_FILE);
	if (same_run)
		snprintf(cmd, sizeof(cmd),
			 "perf record -q -g -e cpu-clock:u -c 100000 -o '%s' -- '%s' record -q -g -c "
			 "100000 -o '%s' -- '%s' %s >/dev/null 2>&1",
			 sdata, tdrec, tdata, prog, args);
	else
		snprintf(cmd, sizeof(cmd), "'%s' record -q -g -c 100000 -o '%s' -- '%s' %s >/dev/null",
			 tdrec, tdata, prog, args);
	if (own) {
		assert_int_equal(run_cmd(cmd), 0);
		if (same_run)
			read_perf(c, sdata, comm, PERF_SAME_RUN);
		read_tdrec(c, tdrec, tdata, NULL, TDREC_FILE);
	} else {
		print_message("sanitizer build: tdrec's own recording of %s not compared (see the "
			      "file comment)\n",
			      comm);
	}
	for (size_t i = 0; i < c->cnt; i++) {
		const struct fn *f = &c->f[i];
		int ref = same_run ? PERF_SAME_RUN : PERF_FILE;
		bool big = false;

		for (int k = 0; k < SRC_CNT; k++)
			big |= f->incl[k] >= 1.0;
		if (!big)
			continue;
		checked++;
		print_message("%-24s children perf %6.2f%% tdrec %6.2f%% | same run perf %6.2f%% "
			      "tdrec %6.2f%%; self %6.2f%% %6.2f%% | %6.2f%% %6.2f%%\n",
			      f->name, f->incl[PERF_FILE], f->incl[TDREC_ON_PERF_FILE],
			      f->incl[PERF_SAME_RUN], f->incl[TDREC_FILE], f->self[PERF_FILE],
			      f->self[TDREC_ON_PERF_FILE], f->self[PERF_SAME_RUN],
			      f->self[TDREC_FILE]);
		check(f, "children (perf.data)", f->incl[PERF_FILE], f->incl[TDREC_ON_PERF_FILE],
		      0.1);
		check(f, "self (perf.data)", f->self[PERF_FILE], f->self[TDREC_ON_PERF_FILE], 0.1);
		if (!own)
			continue;
		check(f, "children", f->incl[ref], f->incl[TDREC_FILE], 2.0);
		check(f, "self", f->self[ref], f->self[TDREC_FILE], 2.0);
	}
	/* The comparison covered the program's functions and their callers. */
	assert_true(checked >= 5);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-stacks-XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->dir);
	run_cmd(cmd);
	free(c);
	return 0;
}

static void test_stacks_perf__hotloop(void **state)
{
	char prog[4096];
	const char *bin = getenv("TDR_BINARY_DIR");

	snprintf(prog, sizeof(prog), "%s/examples/hotloop", bin ? bin : ".");
	compare(*state, prog, "");
}

static void test_stacks_perf__threads(void **state)
{
	char prog[4096];
	const char *bin = getenv("TDR_BINARY_DIR");
	struct ctx *c = *state;
	const struct fn *mid_b;

	snprintf(prog, sizeof(prog), "%s/tests/report/report_stackmt", bin ? bin : ".");
	compare(c, prog, "200");
	/* mid_b runs under every thread's stack: its children include leaf's
	 * (tdrec's own recording, not made in a sanitizer build). */
	if (TDR_TEST_SANITIZED)
		return;
	mid_b = fn_of(c, "mid_b");
	assert_true(mid_b->incl[TDREC_FILE] > mid_b->self[TDREC_FILE] + 10.0);
	assert_true(fn_of(c, "worker")->incl[TDREC_FILE] > 90.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stacks_perf__hotloop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stacks_perf__threads, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
