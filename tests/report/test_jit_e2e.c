/*
 * tests/report/test_jit_e2e.c - JIT code named end to end, with node.
 *
 * A small JavaScript program spends most of its time in hotLoop. Node
 * describes its JIT code in /tmp/perf-PID.map (--perf-basic-prof) or in a
 * jitdump file it maps (--perf-prof, jit-PID.dump in its directory).
 * Checked: tdrec record + report names JS:*hotLoop as the hottest row
 * (never one "[anon]" row) from either file, and for perf record's
 * perf.data the top JIT function and its share agree with perf report
 * (within 2 points); tdrec info names the file it found. Skips when node (or perf, for the perf.data part) is
 * missing or perf_event_open is not allowed. Label: integration.
 */
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

#include "support/test_run.h"

#include "report/json_mini.h"

static const char hot_js[] =
    "function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);"
    " return s; }\n"
    "function otherWork(n) { let a = []; for (let i = 0; i < n; i++) a.push(i ^ (i >> 3));"
    " return a.length; }\n"
    "let t = 0; const end = Date.now() + 1200;\n"
    "while (Date.now() < end) { t += hotLoop(200000); t += otherWork(20000); }\n"
    "if (t <= 0) console.log('never');\n";

struct env {
	char dir[64];
	const char *tdrec;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	FILE *f;
	char path[128];

	e->tdrec = getenv("TDREC");
	snprintf(e->dir, sizeof(e->dir), "/tmp/tdrec-jit-e2e-XXXXXX");
	if (!e->tdrec || !mkdtemp(e->dir))
		return -1;
	snprintf(path, sizeof(path), "%s/hot.js", e->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(hot_js, f);
	fclose(f);
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

static void need_node(void)
{
	if (test_run(NULL, "command -v node >/dev/null 2>&1")) {
		print_message("node is not installed: skipped\n");
		skip();
	}
}

/* The hottest row of a JSON report and its share; the share of "[anon]". */
static void top_row(const char *json, char *name, size_t sz, double *share, double *anon)
{
	size_t where = 0;
	struct jm *j = jm_parse(json, &where);
	const struct jm *rows;

	assert_non_null(j);
	rows = jm_get(j, "rows");
	assert_true(rows && rows->n > 0);
	snprintf(name, sz, "%s", jm_get(jm_at(rows, 0), "name")->str);
	*share = jm_get(jm_at(rows, 0), "share")->num;
	*anon = 0;
	for (size_t i = 0; i < rows->n; i++)
		if (!strcmp(jm_get(jm_at(rows, i), "name")->str, "[anon]"))
			*anon += jm_get(jm_at(rows, i), "share")->num;
	jm_free(j);
}

/* tdrec record -- node FLAG hot.js, then report: JS:*hotLoop on top. */
static void tdrec_names_hot_loop(struct env *e, const char *flag, const char *source)
{
	char *out, name[512];
	double share, anon;
	int st;

	need_node();
	st = test_run(&out, "cd '%s' && '%s' record -q -o node.tdr -- node %s hot.js 2>&1", e->dir,
		 e->tdrec, flag);
	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip();
	}
	assert_int_equal(st, 0);
	free(out);
	assert_int_equal(test_run(&out, "'%s' report -i '%s/node.tdr' --json", e->tdrec, e->dir), 0);
	top_row(out, name, sizeof(name), &share, &anon);
	free(out);
	if (strncmp(name, "JS:", 3) || !strstr(name, "hotLoop"))
		fail_msg("top row '%s', want JS:...hotLoop", name);
	assert_true(share > 0.3);
	assert_true(anon < 0.05);
	/* The text says where the names came from. */
	assert_int_equal(test_run(&out, "'%s' report -i '%s/node.tdr'", e->tdrec, e->dir), 0);
	assert_non_null(strstr(out, "of JIT code named from"));
	assert_non_null(strstr(out, source));
	free(out);
	/* info says whether the map is there, before any report. */
	assert_int_equal(test_run(&out, "'%s' info '%s/node.tdr'", e->tdrec, e->dir), 0);
	{
		const char *jit = strstr(out, "\njit: ");

		assert_non_null(jit);
		assert_non_null(strstr(jit, source));
		assert_true(strstr(jit, source) < strchr(jit + 1, '\n'));
	}
	free(out);
}

static void test_jit_e2e__perf_basic_prof(void **state)
{
	tdrec_names_hot_loop(*state, "--perf-basic-prof", "/tmp/perf-");
}

static void test_jit_e2e__perf_prof_jitdump(void **state)
{
	tdrec_names_hot_loop(*state, "--perf-prof", "/jit-");
}

/* perf record's perf.data and the same perf map: tdrec's top row is perf
 * report's top symbol, with the same share (perf's first sampler). */
static void test_jit_e2e__perf_data_agrees_with_perf(void **state)
{
	struct env *e = *state;
	char *out, name[512], psym[512] = "";
	double share, anon, pshare = -1;

	need_node();
	if (test_run(NULL, "command -v perf >/dev/null 2>&1"))
		skip();
	if (test_run(NULL,
		"cd '%s' && perf record -q -e cpu-clock -c 250000 -o node.data node "
		"--perf-basic-prof hot.js >/dev/null 2>&1",
		e->dir)) {
		print_message("perf record failed: skipped\n");
		skip();
	}
	assert_int_equal(test_run(&out,
			     "perf report -i '%s/node.data' --stdio --sort sym 2>/dev/null | "
			     "grep -v '^#' | grep -m1 '%%'",
			     e->dir),
			 0);
	/* "    52.20%  [.] JS:*hotLoop /tmp/x/hot.js:1:17" */
	{
		const char *p = strstr(out, "[.] ");

		assert_non_null(p);
		pshare = atof(out) / 100;
		snprintf(psym, sizeof(psym), "%s", p + 4);
		psym[strcspn(psym, "\n")] = '\0';
		while (*psym && psym[strlen(psym) - 1] == ' ')
			psym[strlen(psym) - 1] = '\0';
	}
	free(out);
	assert_int_equal(test_run(&out, "'%s' report -i '%s/node.data' --json", e->tdrec, e->dir), 0);
	top_row(out, name, sizeof(name), &share, &anon);
	free(out);
	assert_string_equal(name, psym);
	if (share - pshare > 0.02 || pshare - share > 0.02)
		fail_msg("%s: tdrec %.3f, perf %.3f", name, share, pshare);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_jit_e2e__perf_basic_prof, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_jit_e2e__perf_prof_jitdump, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_jit_e2e__perf_data_agrees_with_perf, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
