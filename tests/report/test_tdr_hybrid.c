/*
 * tests/report/test_tdr_hybrid.c - a hybrid part's .tdr, split by core type.
 *
 * The plan tdrec records on an Alder Lake (the fake tree with
 * TDREC_CPUID's identity: topdown-l2 on cpu_core CPUs 0-15, gracemont on
 * cpu_atom CPUs 16-23) is stored by the project's writer with samples of
 * both groups, group reads written byte for byte as the kernel does
 * (tests/support/synth), and read back through the parser into a report:
 * each function gets a row per core type it ran on, each with its own
 * core type's formulas, and the totals come per core type. Every value is
 * computed by hand in the comments, exact to 1e-9.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_fixture.h"
#include "support/synth.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/parser.h"
#include "tdrec/plan.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

#define PID 10
#define TID 11
#define IP_A 0x401000ULL
#define IP_B 0x402000ULL
#define NCORE 10 /* slots, cpu_core/cycles/, 4 + 4 metrics */
#define NATOM 4	 /* cpu_atom/cycles/, retiring.all, fe_bound.all, be_bound.all */
#define ATOM_CPU 16

static const struct fx_sym_entry syms_table[] = {
    {"/usr/bin/app", 0x1000, 0x2000, TDR_SYM_OK, "func_a", NULL, NULL, 0},
    {"/usr/bin/app", 0x2000, 0x3000, TDR_SYM_OK, "func_b", NULL, NULL, 0},
};

static uint64_t id_of(size_t ev)
{
	return ev < NCORE ? 100 + ev : 200 + ev;
}

/* The plan's meta with one id per event: cpu_core's group on CPU 0, the
 * E-cores' on CPU 16, for task PID (inherited). */
static void plan_meta(struct tdr_meta *m)
{
	struct tdr_plan_opts o = {
	    .sysfs_root = fixture("alderlake-hybrid"),
	    .cpuid = "GenuineIntel,6,151,2",
	    .sample_period = 100003,
	    .inherit = true,
	    .enable_on_exec = true,
	    .clockid = -1,
	};
	struct tdr_plan *plan = NULL;

	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	assert_int_equal(plan->group_cnt, 2);
	assert_int_equal(tdr_plan__to_meta(plan, m), 0);
	tdr_plan__free(plan);
	assert_int_equal(m->event_cnt, NCORE + NATOM);
	m->flags = TDR_META_INHERIT;
	for (size_t i = 0; i < m->event_cnt; i++) {
		m->events[i].ids = calloc(1, sizeof(*m->events[i].ids));
		assert_non_null(m->events[i].ids);
		m->events[i].id_cnt = 1;
		m->events[i].ids[0].id = id_of(i);
		m->events[i].ids[0].cpu = i < NCORE ? 0 : ATOM_CPU;
		m->events[i].ids[0].pid = PID;
	}
}

/* One cumulative group read of TID, sampled at ip at time t, by the group
 * of cpu_core (core) or of cpu_atom. */
static void sample(struct synth_buf *b, const struct tdr_meta *m, bool core, uint64_t t,
		   uint64_t ip, const uint64_t *vals)
{
	size_t first = core ? 0 : NCORE, n = core ? NCORE : NATOM;
	const struct perf_event_attr *a = &m->events[core ? 1 : NCORE].attr;
	uint64_t ids[NCORE];
	struct synth_sample s = {0};

	for (size_t i = 0; i < n; i++)
		ids[i] = id_of(first + i);
	s.sid.pid = PID;
	s.sid.tid = TID;
	s.sid.time = t;
	s.sid.cpu = core ? 0 : ATOM_CPU;
	s.sid.id = id_of(core ? 1 : NCORE);
	s.ip = ip;
	s.period = 100003;
	s.time_enabled = s.time_running = t;
	s.nr = n;
	s.values = vals;
	s.ids = ids;
	synth_sample(b, a, &s);
}

/*
 * cpu_core (cumulative: slots, cycles, retiring, bad-spec, fe-bound,
 * be-bound, heavy-ops, br-mispredict, fetch-lat, mem-bound):
 *   t=100 func_a {1000, 250, 500, 100, 200, 200, 100, 50, 150, 120}
 *   t=300 func_b {2000, 500, 700, 200, 500, 600, 150, 100, 300, 420}
 * cpu_atom (cycles, retiring.all, fe_bound.all, be_bound.all), W = 5:
 *   t=200 func_a {1000, 2000, 1000, 1500}
 *   t=400 func_a {1600, 3000, 1600, 2400}
 */
static void write_file(const char *path)
{
	static const uint64_t c1[] = {1000, 250, 500, 100, 200, 200, 100, 50, 150, 120};
	static const uint64_t c2[] = {2000, 500, 700, 200, 500, 600, 150, 100, 300, 420};
	static const uint64_t a1[] = {1000, 2000, 1000, 1500};
	static const uint64_t a2[] = {1600, 3000, 1600, 2400};
	struct tdr_meta m = {0};
	struct tdr_writer_opts o = {.path = path};
	struct tdr_run_end end = {.duration_ns = 1000};
	struct synth_buf b = {0};
	struct synth_sid sid = {.pid = PID, .tid = TID, .time = 1, .id = id_of(1)};
	struct tdr_writer *w;

	plan_meta(&m);
	assert_int_equal(tdr_writer__open(&o, &m, &w), 0);
	synth_mmap(&b, &m.events[1].attr, false, 0, PID, TID, 0x400000, 0x10000, 0,
		   "/usr/bin/app", NULL, 0, &sid);
	synth_comm(&b, &m.events[1].attr, PID, TID, "app", false, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	synth_buf_reset(&b);
	sample(&b, &m, true, 100, IP_A, c1);
	sample(&b, &m, true, 300, IP_B, c2);
	assert_int_equal(tdr_writer__add_frame(w, 0, b.data, b.sz), 0);
	synth_buf_reset(&b);
	sample(&b, &m, false, 200, IP_A, a1);
	sample(&b, &m, false, 400, IP_A, a2);
	assert_int_equal(tdr_writer__add_frame(w, 1, b.data, b.sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, &end), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	tdr_meta__clear(&m);
}

static const struct tdr_report_row *row_on(const struct tdr_report *r, const char *name,
					   const char *core)
{
	for (size_t i = 0; i < tdr_report__row_cnt(r); i++) {
		const struct tdr_report_row *row = tdr_report__row(r, i);

		if (!strcmp(row->name, name) && !strcmp(tdr_report_core_name(r, row->core), core))
			return row;
	}
	return NULL;
}

static void test_tdr_hybrid__rows_per_core_type(void **state)
{
	char dir[] = "/tmp/tdr-hybrid-XXXXXX", path[64];
	const struct tdr_report_row *ac, *aa, *bc, *t;
	struct tdr_parser *p = NULL;
	struct tdr_report *r = NULL;
	const struct tdr_meta *m;
	struct fx_syms fs;
	char *json;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.tdr", dir);
	write_file(path);
	assert_int_equal(tdr_parser__open(path, &p), 0);
	m = tdr_parser__meta(p);
	/* What the file keeps: each event's group and core PMU. */
	assert_string_equal(m->plan_name, "topdown-l2");
	assert_string_equal(m->events[1].name, "cpu_core/cycles/");
	assert_string_equal(m->events[NCORE].name, "cpu_atom/cycles/");
	assert_int_equal(m->events[NCORE].group_idx, 1);
	assert_string_equal(m->events[NCORE + 3].pmu_name, "cpu_atom");
	assert_int_equal(m->category_cnt, 16);
	assert_int_equal(tdr_report__new(m, NULL, &r), 0);
	assert_int_equal(tdr_parser__run(p, fx_to_report, r), 0);
	fx_syms_init(&fs, syms_table, 2);
	assert_int_equal(tdr_report__resolve(r, &fs.rs), 0);
	assert_int_equal(tdr_report__finish(r), 0);

	assert_int_equal(tdr_report__row_cnt(r), 3);
	ac = row_on(r, "func_a", "cpu_core");
	aa = row_on(r, "func_a", "cpu_atom");
	bc = row_on(r, "func_b", "cpu_core");
	assert_non_null(ac);
	assert_non_null(aa);
	assert_non_null(bc);
	/* func_a on cpu_core, slots 1000: 500 100 200 200; level 2 heavy 100,
	 * br-mispredict 50, fetch-lat 150, mem 120, and the derived light
	 * 400, machine-clears 50, fetch-bw 50, core 80. */
	assert_int_equal(ac->samples, 1);
	assert_near(ac->topdown[fx_cat(r, "retiring")], 0.5);
	assert_near(ac->topdown[fx_cat(r, "bad-spec")], 0.1);
	assert_near(ac->topdown[fx_cat(r, "fe-bound")], 0.2);
	assert_near(ac->topdown[fx_cat(r, "be-bound")], 0.2);
	assert_near(ac->topdown[fx_cat(r, "mem-bound")], 0.12);
	assert_near(ac->topdown[fx_cat(r, "light-ops")], 0.4);
	assert_near(ac->topdown[fx_cat(r, "core-bound")], 0.08);
	/* func_a on cpu_atom: two samples summed, cycles 1600 = 8000 slots
	 * (W 5): retiring 3000, fe 1600, be 2400, bad-spec the remainder
	 * 8000 - 7000 = 1000. No level 2 on Gracemont. */
	assert_int_equal(aa->samples, 2);
	assert_near(aa->topdown[fx_cat(r, "retiring")], 0.375);
	assert_near(aa->topdown[fx_cat(r, "bad-spec")], 0.125);
	assert_near(aa->topdown[fx_cat(r, "fe-bound")], 0.2);
	assert_near(aa->topdown[fx_cat(r, "be-bound")], 0.3);
	assert_true(isnan(aa->topdown[fx_cat(r, "mem-bound")]));
	/* func_b on cpu_core, slots 1000: 200 100 300 400; mem 300. */
	assert_near(bc->topdown[fx_cat(r, "retiring")], 0.2);
	assert_near(bc->topdown[fx_cat(r, "be-bound")], 0.4);
	assert_near(bc->topdown[fx_cat(r, "mem-bound")], 0.3);
	assert_near(bc->topdown[fx_cat(r, "core-bound")], 0.1);
	/* Slots of all core types: 2000 on cpu_core + 8000 on cpu_atom. */
	assert_near(ac->slots_share, 0.1);
	assert_near(aa->slots_share, 0.8);
	assert_near(bc->slots_share, 0.1);
	/* Samples of both samplers (one sampling event): 1, 2, 1 of 4. */
	assert_near(aa->share, 0.5);
	assert_near(bc->share, 0.25);
	/* The overall total mixes core types: samples, no categories. */
	t = tdr_report__totals(r);
	assert_int_equal(t->samples, 4);
	/* Per core type, in JSON: cpu_core retiring 700 / 2000. */
	json = fx_render(r, TDR_FMT_JSON, false, 0);
	assert_non_null(strstr(json, "\"totals_by_core\""));
	assert_non_null(strstr(json, "\"core\": \"cpu_atom\""));
	free(json);
	json = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(json, "cpu_atom"));
	free(json);
	tdr_report__free(r);
	tdr_parser__free(p);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tdr_hybrid__rows_per_core_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
