/*
 * tests/parser/test_pd_arm.c - perf.data import on Arm Neoverse.
 *
 * The file perf record writes on a Neoverse V2 for
 *   perf record -e '{cpu_cycles,stall_slot_frontend,stall_slot_backend,
 *                    stall_slot,op_retired,op_spec,br_mis_pred}:S'
 * is built here (tests/parser/pd_writer.c): every attr on the
 * armv8_pmuv3_0 PMU's dynamic type (8), which PMU_MAPPINGS names, config
 * the Armv8 common event number, CPUID header the MIDR. Checked: the
 * neoverse-v2 family's categories and their values on one sample (by
 * hand below), the note that W is the table's (a perf.data has no
 * caps/slots), and the forms perf may write the same events in: upper
 * case names, `cycles` and `branch-misses` as generic hardware events
 * (arm_pmuv3.c opens them as CPU_CYCLES and BR_MIS_PRED), raw `rXX`
 * events on type 4; and a Neoverse N1 (no slot events, no family).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "parser/pd_writer.h"
#include "support/synth.h"
#include "tdrec/parser.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-12)

#define NEV 7
#define ARM_TYPE 8
#define PID 91
#define IP 0x401000ULL
#define V2_MIDR "0x00000000410fd4f0"

/* The Armv8 common event numbers, in group order. */
static const uint64_t codes[NEV] = {0x11, 0x3e, 0x3d, 0x3f, 0x3a, 0x3b, 0x10};
static const char *const table_names[NEV] = {
    "cpu_cycles", "stall_slot_frontend", "stall_slot_backend", "stall_slot",
    "op_retired", "op_spec",		 "br_mis_pred",
};
static const char *const upper_names[NEV] = {
    "CPU_CYCLES", "armv8_pmuv3_0/STALL_SLOT_FRONTEND/", "STALL_SLOT_BACKEND", "STALL_SLOT",
    "OP_RETIRED", "OP_SPEC",				"BR_MIS_PRED",
};
static const char *const hw_names[NEV] = {
    "cycles",	  "stall_slot_frontend", "stall_slot_backend", "stall_slot",
    "op_retired", "op_spec",		 "branch-misses",
};

/* One sample: cycles 1000 (W 8: S = 8000 slots), frontend 840, backend
 * 1160, stall_slot 2000, op_retired 5760, op_spec 6000, br_mis_pred 5. */
static const uint64_t vals[NEV] = {1000, 840, 1160, 2000, 5760, 6000, 5};

static const struct pdw_pmu arm_pmus[] = {
    {1, "software"}, {2, "tracepoint"}, {5, "breakpoint"}, {ARM_TYPE, "armv8_pmuv3_0"},
};

enum form { DYNAMIC, HARDWARE, RAW };

struct ctx {
	char dir[64], path[128];
	uint64_t sums[NEV];
	unsigned n;
};

static void write_file(struct ctx *c, const char *cpuid, const char *const *names, enum form fm)
{
	struct perf_event_attr attr[NEV];
	struct pdw_event ev[NEV];
	uint64_t ids[NEV];
	struct pdw_group g = {NULL, 0, NEV};
	struct synth_sid sid = {.pid = PID, .tid = PID, .time = 10, .id = 100};
	struct synth_sample s = {0};
	struct synth_buf b = {0};
	struct pdw_opts o = {0};

	for (size_t i = 0; i < NEV; i++) {
		struct perf_event_attr *a = &attr[i];

		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = fm == RAW ? PERF_TYPE_RAW : ARM_TYPE;
		a->config = codes[i];
		if (fm == HARDWARE && (i == 0 || i == NEV - 1)) {
			a->type = PERF_TYPE_HARDWARE;
			a->config = i ? PERF_COUNT_HW_BRANCH_MISSES : PERF_COUNT_HW_CPU_CYCLES;
		}
		a->sample_period = i == 0 ? 100000 : 0;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		a->sample_id_all = 1;
		a->disabled = a->enable_on_exec = i == 0;
		a->mmap = a->comm = a->task = a->mmap2 = a->comm_exec = i == 0;
		ids[i] = 100 + i;
		ev[i] = (struct pdw_event){.name = names[i], .attr = *a, .ids = &ids[i], .id_cnt = 1};
	}
	synth_comm(&b, &attr[0], PID, PID, "app", true, &sid);
	sid.time = 20;
	synth_mmap(&b, &attr[0], false, 0, PID, PID, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	s.sid = (struct synth_sid){.pid = PID, .tid = PID, .time = 100, .id = ids[0]};
	s.ip = IP;
	s.nr = NEV;
	s.values = vals;
	s.ids = ids;
	synth_sample(&b, &attr[0], &s);
	synth_raw(&b, PDW_FINISHED_ROUND, 0, NULL, 0);
	o.ev = ev;
	o.ev_cnt = NEV;
	o.groups = &g;
	o.group_cnt = 1;
	o.hostname = "grace";
	o.version = "6.8.0";
	o.cpuid = cpuid;
	o.pmus = arm_pmus;
	o.pmu_cnt = 4;
	pdw_write(c->path, &o, b.data, b.sz);
	synth_buf_release(&b);
}

static int on_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;

	assert_true(s->ip == IP);
	for (size_t j = 0; j < NEV; j++)
		c->sums[j] += s->deltas[j];
	c->n++;
	return 0;
}

static struct tdr_parser *open_run(struct ctx *c)
{
	struct tdr_parser *p = NULL;

	assert_int_equal(tdr_parser__open(c->path, &p), 0);
	assert_int_equal(tdr_parser__run(p, on_sample, c), 0);
	assert_int_equal(c->n, 1);
	for (size_t j = 0; j < NEV; j++)
		assert_int_equal(c->sums[j], vals[j]);
	return p;
}

static double value_of(const struct tdr_meta *m, const char *key, const uint64_t *sums)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (!strcmp(m->categories[i].name, key))
			return tdr_category__value(&m->categories[i], sums, NEV);
	fail_msg("no category %s", key);
	return 0;
}

/*
 * The neoverse-v2 family on the table's names, W 8 and its note. By hand,
 * S = 8 * 1000: N = 1 - 2000 / 8000 = 0.75; retiring = 5760 / 6000 * 0.75
 * = 0.72; bad-spec = 0.04 * 0.75 + 4 * 5 / 1000 = 0.05; fe = 840 / 8000 -
 * 5 / 1000 = 0.10; be = 1160 / 8000 - 3 * 5 / 1000 = 0.13.
 */
static void check_v2(struct ctx *c)
{
	struct tdr_parser *p = open_run(c);
	const struct tdr_meta *m = tdr_parser__meta(p);

	assert_int_equal(m->event_cnt, NEV);
	for (size_t i = 0; i < NEV; i++) {
		assert_string_equal(m->events[i].name, table_names[i]);
		assert_string_equal(m->events[i].pmu_name, "armv8_pmuv3_0");
		assert_int_equal(m->events[i].group_idx, 0);
	}
	assert_true(m->events[0].flags & TDR_EVENT_SAMPLER);
	assert_int_equal(m->category_cnt, 4);
	assert_near(value_of(m, "retiring", c->sums), 0.72);
	assert_near(value_of(m, "bad-spec", c->sums), 0.05);
	assert_near(value_of(m, "fe-bound", c->sums), 0.10);
	assert_near(value_of(m, "be-bound", c->sums), 0.13);
	assert_int_equal(m->note_cnt, 2);
	assert_string_equal(m->notes[1], "neoverse-v2: W = 8 slots a cycle, the TopDown table's "
					 "(a perf.data does not record the PMU's caps/slots)");
	tdr_parser__free(p);
}

static void test_pd_arm__v2_perf_names(void **state)
{
	struct ctx *c = *state;

	write_file(c, V2_MIDR, table_names, DYNAMIC);
	check_v2(c);
}

/* Names as the user typed them (perf accepts any case) or PMU-qualified:
 * the attrs decide, the table's names replace them. */
static void test_pd_arm__v2_upper_case_names(void **state)
{
	struct ctx *c = *state;

	write_file(c, V2_MIDR, upper_names, DYNAMIC);
	check_v2(c);
}

/* perf record -e '{cycles,...,branch-misses}:S': generic hardware events,
 * which the kernel opens on armv8_pmuv3_0 as CPU_CYCLES and BR_MIS_PRED. */
static void test_pd_arm__v2_generic_cycles(void **state)
{
	struct ctx *c = *state;

	write_file(c, V2_MIDR, hw_names, HARDWARE);
	check_v2(c);
}

/* perf record -e '{r11,r3e,...}:S': PERF_TYPE_RAW, also opened on the
 * core PMU; type 4 is no PMU's in PMU_MAPPINGS on arm64, its name is then
 * the attrs' (none). */
static void test_pd_arm__v2_raw_type(void **state)
{
	struct ctx *c = *state;
	static const char *const r_names[NEV] = {"r11", "r3e", "r3d", "r3f", "r3a", "r3b", "r10"};
	struct tdr_parser *p;
	const struct tdr_meta *m;

	write_file(c, V2_MIDR, r_names, RAW);
	p = open_run(c);
	m = tdr_parser__meta(p);
	for (size_t i = 0; i < NEV; i++)
		assert_string_equal(m->events[i].name, table_names[i]);
	assert_int_equal(m->category_cnt, 4);
	assert_near(value_of(m, "retiring", c->sums), 0.72);
	assert_near(value_of(m, "be-bound", c->sums), 0.13);
	tdr_parser__free(p);
}

/* Neoverse N1 (part 0xd0c) has no slot events and no family: the events
 * stay perf's, no categories, no width note. */
static void test_pd_arm__n1_events_only(void **state)
{
	struct ctx *c = *state;
	struct tdr_parser *p;
	const struct tdr_meta *m;

	write_file(c, "0x00000000413fd0c1", upper_names, DYNAMIC);
	p = open_run(c);
	m = tdr_parser__meta(p);
	assert_string_equal(m->events[0].name, "CPU_CYCLES");
	assert_string_equal(m->events[1].name, "armv8_pmuv3_0/STALL_SLOT_FRONTEND/");
	assert_int_equal(m->category_cnt, 0);
	assert_int_equal(m->note_cnt, 1);
	tdr_parser__free(p);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr_pd_arm_XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(c->path, sizeof(c->path), "%s/perf.data", c->dir);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	unlink(c->path);
	rmdir(c->dir);
	free(c);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_pd_arm__v2_perf_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_arm__v2_upper_case_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_arm__v2_generic_cycles, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_arm__v2_raw_type, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_arm__n1_events_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
