/*
 * tests/stat/test_stat_render.c - the output of 'tdrec stat' from known
 * sums: the text breakdown with its marks (and 100 columns), the JSON
 * document (parsed, keys and values checked against the numbers put in),
 * CSV (one header, the same number of fields in every row, quoting), the
 * interval rows as they happen, and the software plan's lines. The stat
 * object is put together by hand from the fake Sapphire Rapids and vm
 * plans; nothing is opened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "report/json_mini.h"
#include "stat_test_util.h"

enum { SLOTS, RET, BAD, FE, BE, HEAVY, BR, FLAT, MEM };

struct fx {
	struct tdr_stat_opts o;
	struct tdr_stat_out so;
	struct tdr_stat *st;
	char *text;
	size_t len;
	FILE *out;
};

static struct stat_unit *unit_with(const uint64_t *v, size_t n, uint64_t run, uint64_t ref)
{
	struct stat_unit *u = calloc(1, sizeof(*u));

	memcpy(u->sum.v, v, n * sizeof(*v));
	u->sum.running_ns[0] = run;
	u->sum.enabled_ns[0] = 3 * run;
	u->sum.ref_ns = ref;
	u->has_ref = true;
	return u;
}

/* A finished stat of plan whose total is v (n events). */
static void make_plan(struct fx *f, struct tdr_plan *plan, enum tdr_report_format fmt,
		      const uint64_t *v, size_t n, uint64_t run, uint64_t ref)
{
	struct tdr_stat *st = calloc(1, sizeof(*st));

	f->out = open_memstream(&f->text, &f->len);
	tdr_stat_out__init(&f->so, f->out, fmt);
	f->o.on_interval = tdr_stat_out__interval;
	f->o.interval_arg = &f->so;
	st->opts = &f->o;
	st->sw.fd = -1;
	st->plan = plan;
	assert_int_equal(tdr_stat_schema__init(&st->sc, st->plan, false), 0);
	st->total = unit_with(v, n, run, ref);
	st->tg.pids = calloc(1, sizeof(pid_t));
	st->tg.pids[0] = 4242;
	st->tg.cnt = 1;
	st->sum.launched = st->sum.exited = true;
	st->sum.exit_code = 3;
	st->sum.duration_ns = 2000000000;
	st->done = true;
	snprintf(st->what, sizeof(st->what), "./app --flag");
	f->st = st;
}

/* A finished stat of tree's plan whose total is v (n events). */
static void make(struct fx *f, const char *tree, enum tdr_report_format fmt, const uint64_t *v,
		 size_t n, uint64_t run, uint64_t ref)
{
	make_plan(f, stat_plan(tree, TDR_PLAN_AUTO), fmt, v, n, run, ref);
}

/* Two threads, one with a comma and a quote in its name. */
static void add_threads(struct fx *f, const uint64_t *a, const uint64_t *b, size_t n)
{
	struct stat_threads *t = &f->st->th;

	f->st->per_thread = true;
	t->v = calloc(3, sizeof(*t->v));
	t->cap = 3;
	t->cnt = 3;
	t->v[0] = (struct stat_thread){.pid = 4242, .tid = 4242, .comm = "app", .done = true};
	t->v[0].unit = unit_with(a, n, 1000, 1000);
	t->v[1] = (struct stat_thread){.pid = 4242, .tid = 4243, .comm = "io,\"x\"", .done = true};
	t->v[1].unit = unit_with(b, n, 500, 1000);
	/* A thread that was gone before its groups opened has no row. */
	t->v[2] = (struct stat_thread){.pid = 4242, .tid = 4244, .comm = "gone", .done = true};
	t->missed = 1;
}

static char *finish(struct fx *f)
{
	fflush(f->out);
	return f->text;
}

/* The whole-run output of the stat made by make(). */
static char *rendered(struct fx *f)
{
	assert_int_equal(tdr_stat_out__render(&f->so, f->st), 0);
	return finish(f);
}

static struct jm *rendered_json(struct fx *f)
{
	size_t where = 0;
	struct jm *doc = jm_parse(rendered(f), &where);

	if (!doc)
		fail_msg("bad JSON at %zu:\n%s", where, f->text);
	return doc;
}

/* The text with every run of spaces made one space (column layout aside). */
static char *squeeze(const char *t)
{
	char *s = malloc(strlen(t) + 1), *o = s;

	for (; *t; t++)
		if (*t != ' ' || o == s || o[-1] != ' ')
			*o++ = *t;
	*o = '\0';
	return s;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->st)
		tdr_stat__free(f->st);
	tdr_stat_out__clear(&f->so);
	if (f->out)
		fclose(f->out);
	free(f->text);
	free(f);
	return 0;
}

static int setup(void **state)
{
	*state = calloc(1, sizeof(struct fx));
	return 0;
}

static void assert_width(const char *text, size_t max)
{
	size_t col = 0;

	for (const char *p = text; *p; p++) {
		col = *p == '\n' ? 0 : col + 1;
		assert_true(col <= max);
	}
}

/* slots 1000: retiring 30%, bad-spec 10%, fe 20%, be 40% (mem 25%). */
static const uint64_t spr_total[9] = {1000, 300, 100, 200, 400, 100, 60, 150, 250};

static void test_stat_render__text_topdown(void **state)
{
	struct fx *f = *state;
	const char *t;
	char *s;

	make(f, "sapphire-rapids", TDR_FMT_TEXT, spr_total, 9, 1000, 1000);
	t = rendered(f);
	s = squeeze(t);
	assert_non_null(strstr(s, "tdrec stat: ./app --flag\n"));
	assert_non_null(strstr(s, "plan topdown-l2 on 8 CPUs, 2.000 s, the program exited with "
				  "status 3"));
	assert_non_null(strstr(s, "\n slots 1,000\n"));
	assert_non_null(strstr(s, "\n retiring 30.0%\n"));
	assert_non_null(strstr(s, "\n light-ops 20.0%\n"));
	assert_non_null(strstr(s, "\n be-bound 40.0% <- main bottleneck (above 20%)\n"));
	assert_non_null(strstr(s, "\n mem-bound 25.0% <- (above 20%)\n"));
	assert_non_null(strstr(s, "\n core-bound 15.0%\n"));
	/* Level 2 is indented under its parent. */
	assert_non_null(strstr(t, "\n    heavy-ops "));
	assert_non_null(strstr(t, "\n  retiring "));
	assert_true(strstr(t, "heavy-ops") > strstr(t, "retiring") &&
		    strstr(t, "heavy-ops") < strstr(t, "bad-spec"));
	assert_non_null(strstr(s, "counted all the time the program ran (no multiplexing)"));
	assert_null(strstr(t, "TopDown is not"));
	assert_width(t, 100);
	free(s);
}

/* A formula that leaves 0-100% (here heavy-ops above retiring, so the
 * derived light-ops is negative) is shown as computed and flagged, in text
 * and JSON, as report does. */
static void test_stat_render__out_of_range_is_flagged(void **state)
{
	struct fx *f = *state;
	const uint64_t skew[9] = {1000, 300, 100, 200, 400, 350, 60, 150, 250};
	const struct jm *oor;
	struct jm *doc;
	char *s;

	make(f, "sapphire-rapids", TDR_FMT_TEXT, skew, 9, 1000, 1000);
	s = squeeze(rendered(f));
	assert_non_null(strstr(s, "\n light-ops -5.0% ! outside 0-100%: shown as computed\n"));
	assert_non_null(strstr(s, "\n retiring 30.0%\n"));
	free(s);
	teardown(state);
	setup(state);
	f = *state;
	make(f, "sapphire-rapids", TDR_FMT_JSON, skew, 9, 1000, 1000);
	doc = rendered_json(f);
	oor = jm_get(jm_get(doc, "total"), "out_of_range");
	assert_int_equal(oor->n, 1);
	assert_string_equal(jm_at(oor, 0)->str, "light-ops");
	assert_true(fabs(jm_get(jm_get(jm_get(doc, "total"), "topdown"), "light-ops")->num + 0.05) <
		    1e-9);
	jm_free(doc);
}

static void test_stat_render__multiplexing_is_shown_not_scaled(void **state)
{
	struct fx *f = *state;
	const char *t;
	char *s;

	/* The groups ran 600 of the 1000 ns the program ran. */
	make(f, "sapphire-rapids", TDR_FMT_TEXT, spr_total, 9, 600, 1000);
	t = rendered(f);
	s = squeeze(t);
	assert_non_null(strstr(s, "counted only 60.0% of the time the program ran"));
	assert_non_null(strstr(s, "not scaled"));
	/* Slots are the counted ones, ratios unchanged. */
	assert_non_null(strstr(s, "\n slots 1,000\n"));
	assert_non_null(strstr(s, "\n be-bound 40.0% <- main"));
	assert_width(t, 100);
	free(s);
}

static void test_stat_render__json(void **state)
{
	struct fx *f = *state;
	const uint64_t a[9] = {600, 300, 60, 100, 140, 100, 30, 60, 100};
	const uint64_t b[9] = {300, 0, 30, 60, 210, 0, 20, 60, 140};
	const struct jm *total, *td, *threads, *row, *na;
	struct stat_row iv = {.kind = TDR_STAT_ROW_INTERVAL, .start_ns = 0, .end_ns = 100000000};
	struct jm *doc;

	make(f, "sapphire-rapids", TDR_FMT_JSON, spr_total, 9, 1000, 1000);
	add_threads(f, a, b, 9);
	f->o.interval_ms = 100;
	memcpy(iv.vals.v, spr_total, sizeof(spr_total));
	assert_int_equal(tdr_stat__interval(f->st, &iv), 0);
	assert_int_equal(f->len, 0); /* JSON rows wait for the document */
	doc = rendered_json(f);
	assert_string_equal(jm_get(doc, "plan")->str, "topdown-l2");
	assert_string_equal(jm_get(doc, "target")->str, "./app --flag");
	assert_true(jm_get(doc, "topdown")->b);
	assert_int_equal(jm_get(doc, "topdown_unavailable")->t, JM_NULL);
	assert_int_equal(jm_get(doc, "cpus")->num, 8);
	assert_int_equal(jm_get(doc, "interval_ms")->num, 100);
	assert_int_equal(jm_get(jm_get(doc, "program"), "exit_code")->num, 3);
	assert_int_equal(jm_get(jm_get(doc, "program"), "pid")->num, 4242);
	assert_int_equal(jm_get(doc, "events")->n, 9);
	assert_string_equal(jm_get(jm_at(jm_get(doc, "events"), 0), "name")->str, "slots");
	assert_int_equal(jm_get(doc, "categories")->n, 12);
	row = jm_at(jm_get(doc, "categories"), 11);
	assert_string_equal(jm_get(row, "name")->str, "core-bound");
	assert_string_equal(jm_get(row, "parent")->str, "be-bound");
	assert_true(jm_get(row, "derived")->b);
	assert_true(fabs(jm_get(row, "threshold")->num - 0.10) < 1e-9);
	total = jm_get(doc, "total");
	assert_int_equal(jm_get(total, "slots")->num, 1000);
	assert_int_equal(jm_get(jm_get(total, "events"), "topdown-mem-bound")->num, 250);
	td = jm_get(total, "topdown");
	assert_true(fabs(jm_get(td, "retiring")->num - 0.3) < 1e-6);
	assert_true(fabs(jm_get(td, "machine-clears")->num - 0.04) < 1e-6);
	assert_int_equal(jm_get(total, "out_of_range")->n, 0);
	assert_string_equal(jm_get(total, "bottleneck")->str, "be-bound");
	assert_string_equal(jm_get(total, "bottleneck_l2")->str, "mem-bound");
	assert_true(fabs(jm_get(total, "counted")->num - 1.0) < 1e-9);
	assert_int_equal(jm_get(total, "task_run_ns")->num, 1000);
	assert_true(fabs(jm_get(total, "end_s")->num - 2.0) < 1e-9);
	assert_int_equal(jm_get(doc, "intervals")->n, 1);
	assert_true(fabs(jm_get(jm_at(jm_get(doc, "intervals"), 0), "end_s")->num - 0.1) < 1e-9);
	/* Two thread rows (the thread with no groups has none). */
	threads = jm_get(doc, "threads");
	assert_int_equal(threads->n, 2);
	row = jm_at(threads, 1);
	assert_int_equal(jm_get(row, "tid")->num, 4243);
	assert_string_equal(jm_get(row, "name")->str, "io,\"x\"");
	assert_true(fabs(jm_get(row, "counted")->num - 0.5) < 1e-9);
	assert_string_equal(jm_get(row, "bottleneck")->str, "be-bound"); /* 70% */
	/* Not attributed = total - threads: 100 slots, 0 retiring. */
	na = jm_get(doc, "not_attributed");
	assert_int_equal(jm_get(na, "slots")->num, 100);
	assert_int_equal(jm_get(jm_get(na, "events"), "topdown-retiring")->num, 0);
	assert_int_equal(jm_get(jm_get(na, "events"), "topdown-be-bound")->num, 50);
	assert_int_equal(jm_get(na, "counted")->t, JM_NULL);
	assert_int_equal(jm_get(doc, "warnings")->n, 1); /* the thread with no groups */
	jm_free(doc);
}

/* Split one CSV line into fields (quotes honoured); returns the count. */
static size_t csv_fields(const char *line, char fields[][64], size_t max)
{
	size_t n = 0, k = 0;
	bool q = false;

	for (const char *p = line;; p++) {
		if (!*p || *p == '\n' || (*p == ',' && !q)) {
			if (n < max)
				fields[n][k < 63 ? k : 63] = '\0';
			n++;
			k = 0;
			if (!*p || *p == '\n')
				return n;
			continue;
		}
		if (*p == '"') {
			if (q && p[1] == '"') {
				p++;
			} else {
				q = !q;
				continue;
			}
		}
		if (n < max && k < 63)
			fields[n][k++] = *p;
	}
}

static void test_stat_render__csv(void **state)
{
	struct fx *f = *state;
	const uint64_t a[9] = {600, 300, 60, 100, 140, 100, 30, 60, 100};
	const uint64_t b[9] = {300, 0, 30, 60, 210, 0, 20, 60, 140};
	struct stat_row iv = {.kind = TDR_STAT_ROW_INTERVAL, .end_ns = 100000000};
	char fields[64][64], head[64][64];
	size_t n_head, lines = 0;
	const char *t;

	make(f, "sapphire-rapids", TDR_FMT_CSV, spr_total, 9, 1000, 1000);
	add_threads(f, a, b, 9);
	memcpy(iv.vals.v, spr_total, sizeof(spr_total));
	assert_int_equal(tdr_stat__interval(f->st, &iv), 0);
	assert_int_equal(tdr_stat__interval(f->st, &iv), 0);
	t = rendered(f);
	n_head = csv_fields(t, head, 64);
	/* type..name, 9 events, 5 times/fractions, 12 categories, 2 marks */
	assert_int_equal(n_head, 6 + 9 + 5 + 12 + 2);
	assert_string_equal(head[0], "type");
	assert_string_equal(head[6], "slots");
	assert_string_equal(head[20], "retiring");
	assert_string_equal(head[n_head - 1], "bottleneck_l2");
	for (const char *p = strchr(t, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
		assert_int_equal(csv_fields(p, fields, 64), n_head);
		lines++;
		if (!strcmp(fields[0], "total")) {
			assert_string_equal(fields[6], "1000");
			assert_string_equal(fields[20], "0.3000");
			assert_string_equal(fields[n_head - 2], "be-bound");
			assert_string_equal(fields[n_head - 1], "mem-bound");
		}
		if (!strcmp(fields[0], "thread") && !strcmp(fields[4], "4243"))
			assert_string_equal(fields[5], "io,\"x\"");
	}
	/* 2 intervals, total, 2 threads, not attributed; one header only. */
	assert_int_equal(lines, 6);
	assert_ptr_equal(strstr(t, "type,"), t);
	assert_null(strstr(t + 1, "type,"));
}

/* --per-thread with TopDown: the total is the threads' sum, measured
 * against the program's whole run time (its inherited reference clock). */
static void test_stat_render__total_from_threads(void **state)
{
	struct fx *f = *state;
	const uint64_t none[9] = {0};
	const uint64_t a[9] = {600, 300, 60, 100, 140, 100, 30, 60, 100};
	const uint64_t b[9] = {300, 0, 30, 60, 210, 0, 20, 60, 140};
	const struct jm *total;
	struct jm *doc;

	make(f, "sapphire-rapids", TDR_FMT_JSON, none, 9, 0, 2000);
	add_threads(f, a, b, 9);
	f->st->total_is_threads = true;
	doc = rendered_json(f);
	total = jm_get(doc, "total");
	assert_int_equal(jm_get(total, "slots")->num, 900);
	assert_int_equal(jm_get(jm_get(total, "events"), "topdown-be-bound")->num, 350);
	/* Threads ran 1000 + 500 ns counted of the 2000 the program ran. */
	assert_true(fabs(jm_get(total, "counted")->num - 0.75) < 1e-9);
	assert_int_equal(jm_get(total, "task_run_ns")->num, 2000);
	assert_int_equal(jm_get(doc, "not_attributed")->t, JM_NULL);
	assert_int_equal(jm_get(doc, "threads")->n, 2);
	jm_free(doc);
}

/* A PMU group that never ran (time_running 0: its counters were all
 * taken) is said so in one warning line; the software plan never is. */
static void test_stat_render__group_never_ran(void **state)
{
	struct fx *f = *state;
	const uint64_t v[9] = {0};
	struct tdr_stat_warnings w;
	const char *line = "the topdown-l2 group never ran (time_running 0): the PMU could not "
			   "schedule it, so its counts are not results; free a counter with "
			   "'sysctl kernel.nmi_watchdog=0', or use --plan with fewer events";
	size_t hits = 0;

	make(f, "sapphire-rapids", TDR_FMT_TEXT, v, 9, 0, 2000000000);
	tdr_stat__warnings(f->st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		hits += !strcmp(w.line[i], line);
	assert_int_equal(hits, 1);
	assert_non_null(strstr(rendered(f), "never ran (time_running 0)"));
}

/* Counted for some of the time: multiplexed, not "never ran". */
static void test_stat_render__group_ran_a_little(void **state)
{
	struct fx *f = *state;
	const uint64_t v[9] = {1000, 100, 100, 100, 100, 10, 10, 10, 10};
	struct tdr_stat_warnings w;

	make(f, "sapphire-rapids", TDR_FMT_TEXT, v, 9, 1, 2000000000);
	tdr_stat__warnings(f->st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		assert_null(strstr(w.line[i], "never ran"));
	/* ... and said to be multiplexed. */
	assert_non_null(strstr(rendered(f), "counted only"));
}

static void test_stat_render__software(void **state)
{
	struct fx *f = *state;
	/* task-clock 260 ms, 3 switches, 1 migration, 120 faults */
	const uint64_t v[4] = {260000000, 3, 1, 120};
	struct stat_row iv = {.kind = TDR_STAT_ROW_INTERVAL, .end_ns = 500000000};
	const char *t;
	char *s;

	make(f, "vm", TDR_FMT_TEXT, v, 4, 260000000, 260000000);
	f->o.interval_ms = 500;
	memcpy(iv.vals.v, v, sizeof(v));
	assert_int_equal(tdr_stat__interval(f->st, &iv), 0);
	t = rendered(f);
	s = squeeze(t);
	/* The interval: header once, then the row with CPUs utilized. */
	assert_non_null(strstr(s, "tdrec stat: ./app --flag, a row every 500 ms\n"));
	assert_non_null(strstr(s, "# time(s) task-clock(ms) context-switches cpu-migrations "
				  "page-faults CPUs\n"));
	assert_non_null(strstr(s, "\n 0.500 260.000 3 1 120 0.52\n"));
	/* The whole run. */
	assert_non_null(strstr(s, "\n task-clock 260.000 ms 0.13 CPUs utilized\n"));
	assert_non_null(strstr(s, "\n page-faults 120\n"));
	assert_non_null(
	    strstr(s, "note: context switches and CPU migrations happen in the kernel"));
	assert_non_null(strstr(s, "TopDown is not available here: topdown-l2 not available: "));
	assert_null(strstr(s, "of the time")); /* nothing to say when all was counted */
	assert_width(t, 100);
	free(s);
}

/* A core PMU without the TopDown events (the fake AMD Zen 4 tree): the
 * line says which sysfs events are missing, in text and JSON. */
static void test_stat_render__names_missing_topdown_events(void **state)
{
	struct fx *f = *state;
	const uint64_t v[4] = {1000000, 0, 0, 10};
	struct jm *doc;
	char *s, *t;

	make(f, "amd-zen4", TDR_FMT_TEXT, v, 4, 1000000, 1000000);
	assert_int_equal(f->st->plan->kind, TDR_PLAN_SOFTWARE);
	s = squeeze(rendered(f));
	/* Undo the wrapping at 100 columns ("\n" + indent). */
	for (char *p = s; (p = strstr(p, "\n ")) != NULL;)
		*p = ' ';
	s = squeeze(t = s);
	free(t);
	assert_non_null(strstr(s, "TopDown is not available here: topdown-l2 not available: the "
				  "cpu PMU has no slots, topdown-retiring,"));
	assert_non_null(strstr(s, "topdown-l1 not available: the cpu PMU has no slots, "
				  "topdown-retiring, topdown-bad-spec, topdown-fe-bound, "
				  "topdown-be-bound"));
	free(s);
	teardown(state);
	setup(state);
	f = *state;
	make(f, "amd-zen4", TDR_FMT_JSON, v, 4, 1000000, 1000000);
	doc = rendered_json(f);
	assert_false(jm_get(doc, "topdown")->b);
	assert_non_null(strstr(jm_get(doc, "topdown_unavailable")->str,
			       "topdown-l1 not available: the cpu PMU has no slots, "));
	jm_free(doc);
}

/* AMD Zen 4 level 2 (the genoa tree): three groups the kernel rotates;
 * the level-1 group counted all 4000 ns the program ran, group 1 2000,
 * group 2 1000. counted is the smallest share (25%); each group's share
 * is printed too: text in the multiplexing line, JSON "group_counted",
 * CSV a column per group. Counts as in tests/stat/test_stat_calc.c. */
static void make_l2(struct fx *f, enum tdr_report_format fmt)
{
	static const uint64_t in[13] = {1000, 1200, 1800, 600, 2500, 2100, 450,
					60,   135,	200,  150, 6,	 2};
	struct tdr_plan_opts o = stat_popts("genoa");
	struct tdr_plan *p = NULL;
	struct stat_vals *sum;

	o.cpuid = "AuthenticAMD,25,17,1";
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &p), 0);
	assert_string_equal(tdr_plan_kind_name(p->kind), "amd-zen4-l2");
	make_plan(f, p, fmt, in, 13, 4000, 4000);
	sum = &f->st->total->sum;
	sum->running_ns[1] = 2000;
	sum->running_ns[2] = 1000;
	sum->enabled_ns[1] = sum->enabled_ns[2] = 12000;
}

static void test_stat_render__group_shares(void **state)
{
	struct fx *f = *state;
	char fields[64][64], head[64][64], *s;
	const struct jm *gc;
	struct jm *doc;
	size_t n_head, at;
	const char *t;

	make_l2(f, TDR_FMT_TEXT);
	s = squeeze(rendered(f));
	for (char *p = s; (p = strstr(p, "\n ")) != NULL;)
		*p = ' '; /* undo the wrapping */
	t = squeeze(s);
	free(s);
	assert_non_null(strstr(t, "counted only 25.0% of the time the program ran (groups: 100.0%, "
				  "50.0%, 25.0%): the groups"));
	free((char *)t);
	teardown(state);
	setup(state);
	f = *state;
	make_l2(f, TDR_FMT_JSON);
	doc = rendered_json(f);
	assert_true(fabs(jm_get(jm_get(doc, "total"), "counted")->num - 0.25) < 1e-9);
	gc = jm_get(jm_get(doc, "total"), "group_counted");
	assert_int_equal(gc->n, 3);
	assert_true(fabs(jm_at(gc, 0)->num - 1.0) < 1e-9);
	assert_true(fabs(jm_at(gc, 1)->num - 0.5) < 1e-9);
	assert_true(fabs(jm_at(gc, 2)->num - 0.25) < 1e-9);
	jm_free(doc);
	teardown(state);
	setup(state);
	f = *state;
	make_l2(f, TDR_FMT_CSV);
	t = rendered(f);
	n_head = csv_fields(t, head, 64);
	/* type..name, 13 events, 4 times/fractions + 3 group shares, slots */
	at = 6 + 13 + 3;
	assert_string_equal(head[at], "counted");
	assert_string_equal(head[at + 1], "counted_group0");
	assert_string_equal(head[at + 3], "counted_group2");
	assert_string_equal(head[at + 4], "slots");
	assert_int_equal(csv_fields(strchr(t, '\n') + 1, fields, 64), n_head);
	assert_string_equal(fields[0], "total");
	assert_string_equal(fields[at], "0.2500");
	assert_string_equal(fields[at + 1], "1.0000");
	assert_string_equal(fields[at + 2], "0.5000");
	assert_string_equal(fields[at + 3], "0.2500");
	assert_string_equal(fields[at + 4], "6000");
}

/* The public view the renderers read: categories with the TopDown table's
 * label and threshold, rows with their numbers made in stat/, thread rows
 * by index (none for a thread without groups). */
static void test_stat_render__view(void **state)
{
	struct fx *f = *state;
	const uint64_t a[9] = {600, 300, 60, 100, 140, 100, 30, 60, 100};
	const uint64_t b[9] = {300, 0, 30, 60, 210, 0, 20, 60, 140};
	struct tdr_stat_category c;
	struct tdr_stat_event e;
	struct tdr_stat_view v;
	struct tdr_stat_row r;
	int be = -1;

	make(f, "sapphire-rapids", TDR_FMT_TEXT, spr_total, 9, 600, 1000);
	add_threads(f, a, b, 9);
	tdr_stat__view(f->st, &v);
	assert_true(v.topdown && v.per_thread && v.complete);
	assert_string_equal(v.plan, "topdown-l2");
	assert_int_equal(v.event_cnt, 9);
	assert_int_equal(v.category_cnt, 12);
	assert_int_equal(v.thread_cnt, 3);
	assert_int_equal(v.program_pid, 4242);
	tdr_stat__event(f->st, 0, &e);
	assert_string_equal(e.name, "slots");
	assert_false(e.clock);
	for (size_t i = 0; i < v.category_cnt; i++) {
		tdr_stat__category(f->st, i, &c);
		if (!strcmp(c.key, "be-bound"))
			be = (int)i;
	}
	assert_true(be >= 0);
	tdr_stat__category(f->st, 11, &c);
	assert_string_equal(c.key, "core-bound");
	assert_int_equal(c.level, 2);
	assert_int_equal(c.parent_idx, be);
	assert_non_null(c.label);
	assert_true(fabs(c.threshold - 0.10) < 1e-9);

	tdr_stat__total_row(f->st, &r);
	assert_int_equal(r.kind, TDR_STAT_ROW_TOTAL);
	assert_true(fabs(r.slots - 1000) < 1e-9);
	assert_true(fabs(r.counted - 0.6) < 1e-9);
	assert_true(r.multiplexed);
	assert_int_equal(r.bn, be);
	assert_int_equal(r.task_run_ns, 1000);
	assert_true(isnan(r.cpus)); /* no clock event */
	assert_true(tdr_stat__thread_row(f->st, 1, &r));
	assert_int_equal(r.tid, 4243);
	assert_false(tdr_stat__thread_row(f->st, 2, &r)); /* gone before its groups */
	assert_true(tdr_stat__unattributed_row(f->st, &r));
	assert_true(isnan(r.counted));
	assert_false(r.multiplexed);
}

/* CPUs utilized is the clock's time over the row's wall time; -a rows have
 * no task time. */
static void test_stat_render__view_software(void **state)
{
	struct fx *f = *state;
	const uint64_t v4[4] = {260000000, 3, 1, 120};
	struct tdr_stat_event e;
	struct tdr_stat_row r;

	make(f, "vm", TDR_FMT_TEXT, v4, 4, 260000000, 260000000);
	tdr_stat__event(f->st, 0, &e);
	assert_string_equal(e.name, "task-clock");
	assert_true(e.clock);
	tdr_stat__total_row(f->st, &r);
	assert_true(fabs(r.cpus - 0.13) < 1e-9);
	assert_int_equal(r.task_run_ns, 260000000);
	f->o.what.system_wide = true;
	f->st->sc.system_wide = true;
	tdr_stat__total_row(f->st, &r);
	assert_int_equal(r.task_run_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stat_render__text_topdown, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__out_of_range_is_flagged, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__multiplexing_is_shown_not_scaled,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__json, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__csv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__total_from_threads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__group_never_ran, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__group_ran_a_little, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__software, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__group_shares, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__view, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__view_software, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_render__names_missing_topdown_events, setup,
					    teardown),
	};

	log_reset();
	tdr_log_set_level(TDR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
