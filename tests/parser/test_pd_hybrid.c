/*
 * tests/parser/test_pd_hybrid.c - perf.data import on hybrid Intel parts.
 *
 * The file perf record writes on an Alder Lake (or Arrow Lake) for
 *   perf record -e '{slots,cpu_core/cycles/,cpu_core/topdown-retiring/,...}:S'
 *               -e '{cpu_atom/cycles/,cpu_atom/topdown-retiring/,...}:S'
 * is built here byte for byte (tests/parser/pd_writer.c): two groups, the
 * cpu_core one with the perf metrics (raw configs on type 4), the cpu_atom
 * one on the dynamic type 10 that PMU_MAPPINGS names, each cycles a
 * PERF_TYPE_HARDWARE event with its PMU type in config bits 32-63. Checked:
 * the PMU names, tdrec's event names, one TopDown family per core PMU with
 * each formula over its own PMU's events (exact indexes and coefficients),
 * the per-IP sums and the categories they give (computed by hand in the
 * comments), and PMU_MAPPINGS missing, truncated, with a count too large,
 * or with a name without NUL.
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
#include "support/test_log.h"
#include "tdrec/tdr_log.h"

/* Exact to 1e-12 (cmocka 1.1 has no assert_double_equal). */
#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-12)

#define NEV 11
#define NCORE 6
#define ATOM_TYPE 10
#define PID 77
#define IP_A 0x401100ULL
#define IP_B 0x402200ULL

/* Alder Lake's cpu_atom aliases (kernel adl_hybrid_events_attrs) and Arrow
 * Lake's Skymont ones (lnl_hybrid_events_attrs): retiring, bad-spec,
 * fe-bound, be-bound. */
static const uint64_t adl_atom[4] = {0xc2, 0x73, 0x71, 0x74};
static const uint64_t arl_atom[4] = {0x02c2, 0x73, 0x019c, 0x02a4};

static const char *const perf_names[NEV] = {
    "slots",
    "cpu_core/cycles/",
    "cpu_core/topdown-retiring/",
    "cpu_core/topdown-bad-spec/",
    "cpu_core/topdown-fe-bound/",
    "cpu_core/topdown-be-bound/",
    "cpu_atom/cycles/",
    "cpu_atom/topdown-retiring/",
    "cpu_atom/topdown-bad-spec/",
    "cpu_atom/topdown-fe-bound/",
    "cpu_atom/topdown-be-bound/",
};

/* Values read by each sample (the group's counters, cumulative).
 * cpu_core: slots, cycles, retiring, bad-spec, fe-bound, be-bound;
 * cpu_atom: cycles, retiring, bad-spec, fe-bound, be-bound. */
static const uint64_t k1[NCORE] = {6000, 1000, 3000, 600, 1200, 1200};	  /* IP_A */
static const uint64_t k2[NCORE] = {12000, 2000, 4000, 1800, 2400, 3800}; /* IP_B */
static const uint64_t a1[5] = {1000, 2000, 250, 1000, 1250};		  /* IP_A */
static const uint64_t a2[5] = {2000, 4500, 500, 1500, 2500};		  /* IP_A */
/* IP_A: k1 (first of its stream) and a2 (a1 first, then a2 - a1 added:
 * a2 in all); IP_B: k2 - k1. */
static const uint64_t want_a[NEV] = {6000, 1000, 3000, 600, 1200, 1200,
				     2000, 4500, 500,  1500, 2500};
static const uint64_t want_b[NEV] = {6000, 1000, 1000, 1200, 1200, 2600, 0, 0, 0, 0, 0};

struct ctx {
	char dir[64], path[128];
	struct perf_event_attr attr[NEV];
	uint64_t ids[NEV];
	struct pdw_event ev[NEV];
	const char *names[NEV];
	uint64_t sums[2][NEV]; /* IP_A, IP_B */
	unsigned n[2];
};

static void make_attrs(struct ctx *c, const uint64_t *atom)
{
	for (size_t i = 0; i < NEV; i++) {
		struct perf_event_attr *a = &c->attr[i];
		bool core = i < NCORE, sampler = i == 1 || i == NCORE, leader = i == 0 || i == NCORE;

		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		if (sampler) {
			a->type = PERF_TYPE_HARDWARE;
			a->config = (uint64_t)(core ? PERF_TYPE_RAW : ATOM_TYPE) << 32;
		} else if (core) {
			a->type = PERF_TYPE_RAW;
			a->config = i == 0 ? 0x400 : 0x8000 + 0x100 * (i - 2);
		} else {
			a->type = ATOM_TYPE;
			a->config = atom[i - NCORE - 1];
		}
		a->sample_period = sampler ? 100000 : 0;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		a->sample_id_all = 1;
		a->disabled = leader;
		a->enable_on_exec = leader;
		a->mmap = a->comm = a->task = a->mmap2 = a->comm_exec = i == 0;
		c->ids[i] = 100 + i;
		c->names[i] = perf_names[i];
	}
}

static void sample(struct synth_buf *b, struct ctx *c, bool core, uint64_t t, uint64_t ip,
		   const uint64_t *v)
{
	size_t first = core ? 0 : NCORE, nr = core ? NCORE : NEV - NCORE, smp = core ? 1 : NCORE;
	struct synth_sample s = {0};

	s.sid = (struct synth_sid){.pid = PID, .tid = PID, .time = t, .id = c->ids[smp]};
	s.ip = ip;
	s.nr = nr;
	s.values = v;
	s.ids = &c->ids[first];
	synth_sample(b, &c->attr[smp], &s);
}

/* The file; pmus NULL: no PMU_MAPPINGS; raw/raw_sz: its payload as given. */
static void write_file(struct ctx *c, const char *cpuid, const struct pdw_pmu *pmus,
		       size_t pmu_cnt, const uint8_t *raw, size_t raw_sz)
{
	struct pdw_group g[2] = {{NULL, 0, NCORE}, {NULL, NCORE, NEV - NCORE}};
	struct synth_sid sid = {.pid = PID, .tid = PID, .time = 10, .id = c->ids[0]};
	struct synth_buf b = {0};
	struct pdw_opts o = {0};

	synth_comm(&b, &c->attr[0], PID, PID, "app", true, &sid);
	sid.time = 20;
	synth_mmap(&b, &c->attr[0], false, 0, PID, PID, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	sample(&b, c, true, 100, IP_A, k1);
	sample(&b, c, false, 150, IP_A, a1);
	sample(&b, c, true, 200, IP_B, k2);
	sample(&b, c, false, 250, IP_A, a2);
	synth_raw(&b, PDW_FINISHED_ROUND, 0, NULL, 0);
	for (size_t i = 0; i < NEV; i++) {
		c->ev[i].name = c->names[i];
		c->ev[i].attr = c->attr[i];
		c->ev[i].ids = &c->ids[i];
		c->ev[i].id_cnt = 1;
	}
	o.ev = c->ev;
	o.ev_cnt = NEV;
	o.groups = g;
	o.group_cnt = 2;
	o.hostname = "hybrid-box";
	o.version = "6.12.0";
	o.cpuid = cpuid;
	o.pmus = pmus;
	o.pmu_cnt = pmu_cnt;
	o.pmu_raw = raw;
	o.pmu_raw_sz = raw_sz;
	pdw_write(c->path, &o, b.data, b.sz);
	synth_buf_release(&b);
}

static const struct pdw_pmu hybrid_pmus[] = {
    {1, "software"}, {4, "cpu_core"}, {ATOM_TYPE, "cpu_atom"}, {2, "tracepoint"},
};

static int on_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;
	int k = s->ip == IP_A ? 0 : 1;

	assert_true(s->ip == IP_A || s->ip == IP_B);
	/* each sample's deltas lie in its own group */
	for (size_t j = 0; j < NEV; j++) {
		if ((j < NCORE) != (s->sampler_idx < NCORE))
			assert_int_equal(s->deltas[j], 0);
		c->sums[k][j] += s->deltas[j];
	}
	c->n[k]++;
	return 0;
}

static const struct tdr_category *cat_at(const struct tdr_meta *m, size_t i, const char *name)
{
	assert_true(i < m->category_cnt);
	assert_string_equal(m->categories[i].name, name);
	return &m->categories[i];
}

static void assert_term(const struct tdr_term *t, uint32_t idx, double coef)
{
	assert_int_equal(t->event_idx, idx);
	assert_true(t->coef == coef);
}

static struct tdr_parser *open_run(struct ctx *c)
{
	struct tdr_parser *p = NULL;

	assert_int_equal(tdr_parser__open(c->path, &p), 0);
	assert_int_equal(tdr_parser__run(p, on_sample, c), 0);
	return p;
}

/* The perf-metrics categories over events 0 and 2-5: retiring = event 2 /
 * slots (event 0), ... */
static void assert_core_categories(const struct tdr_meta *m)
{
	static const char *const l1[] = {"retiring", "bad-spec", "fe-bound", "be-bound"};

	for (size_t i = 0; i < 4; i++) {
		const struct tdr_category *cat = cat_at(m, i, l1[i]);

		assert_int_equal(cat->num_cnt, 1);
		assert_term(&cat->num[0], (uint32_t)(2 + i), 1.0);
		assert_int_equal(cat->den_cnt, 1);
		assert_term(&cat->den[0], 0, 1.0);
	}
}

static void test_pd_hybrid__alder_lake(void **state)
{
	struct ctx *c = *state;
	static const char *const want_names[NEV] = {
	    "slots",
	    "cpu_core/cycles/",
	    "topdown-retiring",
	    "topdown-bad-spec",
	    "topdown-fe-bound",
	    "topdown-be-bound",
	    "cpu_atom/cycles/", /* table name, then its PMU: hybrid */
	    "topdown_retiring.all",
	    "cpu_atom/topdown-bad-spec/", /* not a Gracemont table event */
	    "topdown_fe_bound.all",
	    "topdown_be_bound.all",
	};
	const struct tdr_category *cat;
	const struct tdr_meta *m;
	struct tdr_parser *p;
	double v;

	make_attrs(c, adl_atom);
	write_file(c, "GenuineIntel,6,151,2", hybrid_pmus, 4, NULL, 0);
	p = open_run(c);
	m = tdr_parser__meta(p);
	assert_int_equal(m->event_cnt, NEV);
	for (size_t i = 0; i < NEV; i++) {
		assert_string_equal(m->events[i].name, want_names[i]);
		assert_string_equal(m->events[i].pmu_name, i < NCORE ? "cpu_core" : "cpu_atom");
		assert_int_equal(m->events[i].group_idx, i < NCORE ? 0 : NCORE);
	}
	assert_true(m->events[1].flags & TDR_EVENT_SAMPLER);
	assert_true(m->events[NCORE].flags & TDR_EVENT_SAMPLER);
	/* topdown-l1 on cpu_core, then Gracemont (W = 5) on cpu_atom */
	assert_int_equal(m->category_cnt, 8);
	assert_core_categories(m);
	cat = cat_at(m, 4, "retiring"); /* topdown_retiring.all / (5 cycles) */
	assert_int_equal(cat->num_cnt, 1);
	assert_term(&cat->num[0], 7, 1.0);
	assert_term(&cat->den[0], 6, 5.0);
	cat = cat_at(m, 5, "bad-spec"); /* (5 cycles - fe - be - retiring) / (5 cycles) */
	assert_int_equal(cat->num_cnt, 4);
	assert_term(&cat->num[0], 6, 5.0);
	assert_term(&cat->num[1], 9, -1.0);
	assert_term(&cat->num[2], 10, -1.0);
	assert_term(&cat->num[3], 7, -1.0);
	assert_term(&cat->den[0], 6, 5.0);
	assert_term(&cat_at(m, 6, "fe-bound")->num[0], 9, 1.0);
	assert_term(&cat_at(m, 7, "be-bound")->num[0], 10, 1.0);

	assert_int_equal(c->n[0], 3);
	assert_int_equal(c->n[1], 1);
	for (size_t j = 0; j < NEV; j++) {
		assert_int_equal(c->sums[0][j], want_a[j]);
		assert_int_equal(c->sums[1][j], want_b[j]);
	}
	/* IP_A, cpu_core: retiring 3000 / 6000 = 0.5, bad-spec 600 / 6000 = 0.1 */
	assert_near(tdr_category__value(&m->categories[0], c->sums[0], NEV), 0.5);
	assert_near(tdr_category__value(&m->categories[1], c->sums[0], NEV), 0.1);
	/* IP_A, cpu_atom: slots 5 * 2000 = 10000; retiring 4500 / 10000;
	 * bad-spec (10000 - 1500 - 2500 - 4500) / 10000 = 0.15; fe 0.15; be 0.25 */
	v = tdr_category__value(&m->categories[4], c->sums[0], NEV);
	assert_near(v, 0.45);
	assert_near(tdr_category__value(&m->categories[5], c->sums[0], NEV), 0.15);
	assert_near(tdr_category__value(&m->categories[6], c->sums[0], NEV), 0.15);
	assert_near(tdr_category__value(&m->categories[7], c->sums[0], NEV), 0.25);
	/* IP_B ran on cpu_core only: its atom categories have no slots */
	assert_true(tdr_category__value(&m->categories[4], c->sums[1], NEV) !=
		    tdr_category__value(&m->categories[4], c->sums[1], NEV));
	/* IP_B, cpu_core: be-bound 2600 / 6000 */
	assert_near(tdr_category__value(&m->categories[3], c->sums[1], NEV),
			    2600.0 / 6000.0);
	tdr_parser__free(p);
}

/* Arrow Lake (CPUID 6/0xc6): Skymont, W = 8, all four measured. */
static void test_pd_hybrid__arrow_lake(void **state)
{
	struct ctx *c = *state;
	const struct tdr_meta *m;
	struct tdr_parser *p;

	make_attrs(c, arl_atom);
	write_file(c, "GenuineIntel,6,198,2", hybrid_pmus, 4, NULL, 0);
	p = open_run(c);
	m = tdr_parser__meta(p);
	assert_string_equal(m->events[6].name, "cpu_atom/cycles/");
	assert_string_equal(m->events[7].name, "topdown_retiring.all_p");
	assert_string_equal(m->events[8].name, "topdown_bad_speculation.all_p");
	assert_string_equal(m->events[9].name, "topdown_fe_bound.all_p");
	assert_string_equal(m->events[10].name, "topdown_be_bound.all_p");
	assert_int_equal(m->category_cnt, 8);
	assert_core_categories(m);
	for (size_t i = 0; i < 4; i++) {
		const struct tdr_category *cat = &m->categories[4 + i];

		assert_int_equal(cat->num_cnt, 1);
		assert_term(&cat->num[0], (uint32_t)(7 + i), 1.0);
		assert_term(&cat->den[0], 6, 8.0);
	}
	/* IP_A, cpu_atom: slots 8 * 2000 = 16000; retiring 4500 / 16000,
	 * bad-spec 500 / 16000 */
	assert_near(tdr_category__value(&m->categories[4], c->sums[0], NEV),
			    4500.0 / 16000.0);
	assert_near(tdr_category__value(&m->categories[5], c->sums[0], NEV),
			    500.0 / 16000.0);
	tdr_parser__free(p);
}

/* Both cycles named "cycles" by perf: told apart by their PMU. */
static void test_pd_hybrid__same_names_qualified(void **state)
{
	struct ctx *c = *state;
	const struct tdr_meta *m;
	struct tdr_parser *p;

	make_attrs(c, adl_atom);
	c->names[1] = "cycles";
	c->names[NCORE] = "cycles";
	write_file(c, "GenuineIntel,6,151,2", hybrid_pmus, 4, NULL, 0);
	p = open_run(c);
	m = tdr_parser__meta(p);
	assert_string_equal(m->events[1].name, "cpu_core/cycles/");
	assert_string_equal(m->events[NCORE].name, "cpu_atom/cycles/");
	assert_int_equal(m->category_cnt, 8); /* found whatever the display names */
	assert_term(&m->categories[4].den[0], NCORE, 5.0);
	tdr_parser__free(p);
}

/* Without a PMU name for type 10, its events are not known to be cpu_atom:
 * events only there, and cpu_core keeps its TopDown. */
static void check_atom_unknown(struct ctx *c, const uint8_t *raw, size_t raw_sz, bool mappings)
{
	const struct tdr_meta *m;
	struct tdr_parser *p;

	make_attrs(c, adl_atom);
	write_file(c, "GenuineIntel,6,151,2", mappings ? hybrid_pmus : NULL, mappings ? 4 : 0, raw,
		   raw_sz);
	test_log_quiet();
	p = open_run(c);
	test_log_stop();
	m = tdr_parser__meta(p);
	assert_int_equal(m->category_cnt, 4);
	assert_core_categories(m);
	assert_string_equal(m->events[NCORE + 1].name, "cpu_atom/topdown-retiring/");
	assert_string_equal(m->events[NCORE + 1].pmu_name, "pmu10");
	for (size_t j = 0; j < NEV; j++)
		assert_int_equal(c->sums[0][j], want_a[j]);
	tdr_parser__free(p);
}

static void test_pd_hybrid__no_pmu_mappings(void **state)
{
	check_atom_unknown(*state, NULL, 0, false);
}

static size_t put_le32(uint8_t *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[at + i] = (uint8_t)(v >> (8 * i));
	return at + 4;
}

/* nr = 2, one entry {10, "cpu_atom"} and nothing more. */
static void test_pd_hybrid__pmu_mappings_truncated(void **state)
{
	uint8_t raw[4 + 4 + 4 + 64] = {0};
	size_t at = put_le32(raw, 0, 2);

	at = put_le32(raw, at, ATOM_TYPE);
	at = put_le32(raw, at, 64);
	memcpy(raw + at, "cpu_atom", 9);
	check_atom_unknown(*state, raw, sizeof(raw), false);
}

/* nr far above what the payload can hold. */
static void test_pd_hybrid__pmu_mappings_count_too_large(void **state)
{
	uint8_t raw[4 + 4 + 4 + 64] = {0};
	size_t at = put_le32(raw, 0, 0xffffffffu);

	at = put_le32(raw, at, ATOM_TYPE);
	at = put_le32(raw, at, 64);
	memcpy(raw + at, "cpu_atom", 9);
	check_atom_unknown(*state, raw, sizeof(raw), false);
}

/* A string length running past the payload. */
static void test_pd_hybrid__pmu_mappings_name_past_end(void **state)
{
	uint8_t raw[4 + 4 + 4 + 8] = {0};
	size_t at = put_le32(raw, 0, 1);

	at = put_le32(raw, at, ATOM_TYPE);
	at = put_le32(raw, at, 4096);
	memcpy(raw + at, "cpu_atom", 8);
	check_atom_unknown(*state, raw, sizeof(raw), false);
}

/* A name that fills its length without a NUL is read to its length only:
 * "cpu_atom" (8 bytes, no NUL) followed by the next entry. */
static void test_pd_hybrid__pmu_name_without_nul(void **state)
{
	struct ctx *c = *state;
	uint8_t raw[4 + 2 * (4 + 4 + 8)] = {0};
	const struct tdr_meta *m;
	struct tdr_parser *p;
	size_t at = put_le32(raw, 0, 2);

	at = put_le32(raw, at, ATOM_TYPE);
	at = put_le32(raw, at, 8);
	memcpy(raw + at, "cpu_atom", 8);
	at += 8;
	at = put_le32(raw, at, 4);
	at = put_le32(raw, at, 8);
	memcpy(raw + at, "cpu_core", 8);
	make_attrs(c, adl_atom);
	write_file(c, "GenuineIntel,6,151,2", NULL, 0, raw, sizeof(raw));
	p = open_run(c);
	m = tdr_parser__meta(p);
	assert_string_equal(m->events[NCORE].pmu_name, "cpu_atom");
	assert_string_equal(m->events[0].pmu_name, "cpu_core");
	assert_int_equal(m->category_cnt, 8);
	tdr_parser__free(p);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-pdhy-XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
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
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__alder_lake, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__arrow_lake, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__same_names_qualified, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__no_pmu_mappings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__pmu_mappings_truncated, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__pmu_mappings_count_too_large, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__pmu_mappings_name_past_end, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pd_hybrid__pmu_name_without_nul, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
