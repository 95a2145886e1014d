/*
 * tests/report/test_stacks_perf.c - tdrec report --children against perf.
 *
 * On the bundled example (examples/hotloop) and a multi-threaded program
 * (progs/stackmt.c), both sampled with the software event cpu-clock, user
 * mode only, one sample every 100 us of CPU time, in one run:
 *   perf record -g -e cpu-clock:u -c 100000 -- tdrec record -g -c 100000 -- PROG
 * so both tools sample the same execution (a second run of a memory-bound
 * program on a busy machine moves shares by more than the tolerance).
 * perf report --children --comm PROG --percentage relative is the oracle:
 *   - tdrec report --children on tdrec's file: within 2 points;
 *   - tdrec report --children --comm PROG on perf's file (the same samples):
 *     within 0.1 points (perf prints two decimals).
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

#define MAXF 256

struct fn {
	char name[128];
	double perf_incl, perf_self, tdr_incl, tdr_self;
	double pd_incl, pd_self; /* tdrec on perf's file */
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
static void read_perf(struct ctx *c, const char *data, const char *comm)
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
		char mode[8], name[512];

		if (line[0] == '#' ||
		    sscanf(line, " %lf%% %lf%% [%7[^]]] %511s", &incl, &self, mode, name) != 4)
			continue;
		rows++;
		if (!strcmp(name, "[unknown]") || !strncmp(name, "0x", 2))
			continue;
		fn_of(c, name)->perf_incl += incl;
		fn_of(c, name)->perf_self += self;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(rows > 3);
}

static void read_tdrec(struct ctx *c, const char *tdrec, const char *data, const char *comm)
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
		*(comm ? &f->pd_incl : &f->tdr_incl) += 100.0 * jm_get(r, "share")->num;
		*(comm ? &f->pd_self : &f->tdr_self) += 100.0 * jm_get(r, "self_share")->num;
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
	char cmd[8600], pdata[128], tdata[128];
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
	snprintf(tdata, sizeof(tdata), "%s/g.tdr", c->dir);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -g -e cpu-clock:u -c 100000 -o '%s' -- '%s' record -q -g -c "
		 "100000 -o '%s' -- '%s' %s >/dev/null 2>&1",
		 pdata, tdrec, tdata, prog, args);
	if (run_cmd(cmd) != 0) {
		print_message("perf record failed (perf_event_open not allowed?): skipped\n");
		skip();
	}
	read_perf(c, pdata, comm);
	read_tdrec(c, tdrec, tdata, NULL);
	read_tdrec(c, tdrec, pdata, comm);
	for (size_t i = 0; i < c->cnt; i++) {
		const struct fn *f = &c->f[i];

		if (f->perf_incl < 1.0 && f->tdr_incl < 1.0 && f->pd_incl < 1.0)
			continue;
		checked++;
		print_message("%-24s children perf %6.2f%% tdrec %6.2f%% (on perf.data %6.2f%%), "
			      "self perf %6.2f%% tdrec %6.2f%% (%6.2f%%)\n",
			      f->name, f->perf_incl, f->tdr_incl, f->pd_incl, f->perf_self,
			      f->tdr_self, f->pd_self);
		check(f, "children", f->perf_incl, f->tdr_incl, 2.0);
		check(f, "self", f->perf_self, f->tdr_self, 2.0);
		check(f, "children (perf.data)", f->perf_incl, f->pd_incl, 0.1);
		check(f, "self (perf.data)", f->perf_self, f->pd_self, 0.1);
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
	/* mid_b runs under every thread's stack: its children include leaf's. */
	mid_b = fn_of(c, "mid_b");
	assert_true(mid_b->tdr_incl > mid_b->tdr_self + 10.0);
	assert_true(fn_of(c, "worker")->tdr_incl > 90.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stacks_perf__hotloop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stacks_perf__threads, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
