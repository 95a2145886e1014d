/*
 * tests/libtdrec/test_regions_math.c - libtdrec's counter math on
 * hand-written values: PERF_METRICS fields and their 8-bit rounding,
 * level 1 and level 2 through the family's formulas, the generic families'
 * wiring, the perf mmap page protocol against fake pages (a lock that
 * changes during the read, a counter that wrapped at pmc_width, a counter
 * off the PMU, a page without rdpmc), and region deltas across resets.
 * No PMU is needed: every page, rdpmc value and reset is a fake.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "regions_int.h"
#include "tdrec/regions_fmt.h"

/* ---- PERF_METRICS fields ---- */

static void test_metric_fields_and_rounding(void **state)
{
	/* retiring 0x80, bad-spec 0x10, fe 0x30, be 0x3f; L2 heavy 0x20,
	 * br-mispredict 0x08, fetch-lat 0x18, mem-bound 0x20. */
	uint64_t m = 0x2018082040301080ull;

	(void)state;
	assert_int_equal(tdr_regions_metric_field(m, 0), 0x80);
	assert_int_equal(tdr_regions_metric_field(m, 3), 0x40);
	assert_int_equal(tdr_regions_metric_field(m, 4), 0x20);
	assert_int_equal(tdr_regions_metric_field(m, 7), 0x20);
	/* 128 * 1,000,000 / 255 = 501,960.78: rounded down. */
	assert_int_equal(tdr_regions_metric_slots(m, 0, 1000000), 501960);
	/* 16 * 1,000,000 / 255 = 62,745.09 */
	assert_int_equal(tdr_regions_metric_slots(m, 1, 1000000), 62745);
	/* 0xff is all of the slots, exactly. */
	assert_int_equal(tdr_regions_metric_slots(0xff, 0, 123456789), 123456789);
	/* One 255th of 254 slots rounds to nothing; of 255 slots it is one. */
	assert_int_equal(tdr_regions_metric_slots(0x01, 0, 254), 0);
	assert_int_equal(tdr_regions_metric_slots(0x01, 0, 255), 1);
	/* No overflow with a slots count near 2^64. */
	assert_int_equal(tdr_regions_metric_slots(0xff, 0, UINT64_MAX), UINT64_MAX);
	assert_int_equal(tdr_regions_metric_slots(0x80, 0, UINT64_MAX),
			 (UINT64_MAX / 255) * 128 + (UINT64_MAX % 255) * 128 / 255);
}

/* The meta libtdrec builds for family name (through its own event list). */
static size_t lib_meta(const char *name, struct tdr_ev *ev, struct tdr_meta *meta)
{
	const struct tdr_td_family *f = tdr_topdown_family(name);
	struct tdr_regions_hdr h = {0};
	size_t n;

	assert_non_null(f);
	n = tdr_regions_family_events(f, ev);
	assert_true(n > 0);
	h.event_cnt = (uint32_t)n;
	h.family.s = name;
	h.family.len = strlen(name);
	for (size_t i = 0; i < n; i++) {
		h.events[i].s = ev[i].name;
		h.events[i].len = strlen(ev[i].name);
	}
	memset(meta, 0, sizeof(*meta));
	assert_true(tdr_regions_fmt__meta(&h, meta) >= 0);
	return n;
}

static double cat_value(const struct tdr_meta *meta, const char *cat, const uint64_t *d)
{
	for (size_t c = 0; c < meta->category_cnt; c++)
		if (!strcmp(meta->categories[c].name, cat))
			return tdr_category__value(&meta->categories[c], d, meta->event_cnt);
	fail_msg("no category %s", cat);
	return NAN;
}

/* Level 1 and 2 of perf metrics from one begin/end pair of PERF_METRICS
 * reads, by hand: the deltas of field * slots / 255. */
static void test_perf_metrics_l1_l2(void **state)
{
	struct tdr_ev ev[TDR_REGIONS_EVENT_MAX];
	struct tdr_meta meta;
	struct tdr_pmc_read rd[9];
	uint64_t v0[9], v1[9], d[9];
	size_t n = lib_meta("topdown-l2", ev, &meta);

	(void)state;
	assert_int_equal(n, 9);
	assert_int_equal(meta.category_cnt, 12);
	assert_int_equal(ev[0].kind, TDR_EV_SLOTS);
	for (size_t i = 1; i < 9; i++) {
		assert_int_equal(ev[i].kind, TDR_EV_METRIC);
		assert_int_equal(ev[i].field, i - 1);
	}
	/* begin: 510 slots since the last clear, all eight fields 0x80
	 * (128 * 510 / 255 = 256 slots each). end: 5100 slots, retiring 0x66 (2040), bad-spec
	 * 0x33 (1020), fe 0x33 (1020), be 0x33 (1020), heavy 0x33 (1020),
	 * br-misp 0x1a (520), fetch-lat 0x0d (260), mem 0x1a (520). */
	memset(rd, 0, sizeof(rd));
	for (size_t i = 0; i < 9; i++) {
		rd[i].active = true;
		rd[i].width = 48;
		rd[i].raw = 0x8080808080808080ull;
	}
	rd[0].raw = 510;
	rd[0].count = 510;
	tdr_regions_values(ev, 9, rd, v0);
	for (size_t i = 1; i < 9; i++)
		assert_int_equal(v0[i], 256);
	for (size_t i = 1; i < 9; i++)
		rd[i].raw = 0x1a0d1a3333333366ull;
	rd[0].raw = 5100;
	rd[0].count = 5100;
	tdr_regions_values(ev, 9, rd, v1);
	for (size_t i = 0; i < 9; i++)
		d[i] = v1[i] - v0[i];
	assert_int_equal(d[0], 4590);
	assert_int_equal(d[1], 2040 - 256);
	assert_int_equal(d[2], 1020 - 256);
	assert_int_equal(d[5], 1020 - 256);
	assert_int_equal(d[6], 520 - 256);
	assert_int_equal(d[7], 260 - 256);
	/* Level 1: each over the slots delta. */
	assert_float_equal(cat_value(&meta, "retiring", d), 1784.0 / 4590, 1e-12);
	assert_float_equal(cat_value(&meta, "be-bound", d), 764.0 / 4590, 1e-12);
	/* Level 2: measured, and the siblings as differences. */
	assert_float_equal(cat_value(&meta, "heavy-ops", d), 764.0 / 4590, 1e-12);
	assert_float_equal(cat_value(&meta, "light-ops", d), (1784.0 - 764) / 4590, 1e-12);
	assert_float_equal(cat_value(&meta, "machine-clears", d), (764.0 - 264) / 4590, 1e-12);
	assert_float_equal(cat_value(&meta, "fetch-bw", d), (764.0 - 4) / 4590, 1e-12);
	assert_float_equal(cat_value(&meta, "core-bound", d), (764.0 - 264) / 4590, 1e-12);
	tdr_meta__clear(&meta);
}

/* Perf metrics come from the registers alone. When the kernel switches
 * the thread out and back it adds the slots so far to the events' counts
 * (the pages' offset) and restores the registers, which go on counting:
 * a region across that switch must see its own slots once. */
static void test_perf_metrics_ignore_offsets(void **state)
{
	struct tdr_ev ev[TDR_REGIONS_EVENT_MAX];
	struct tdr_meta meta;
	struct tdr_pmc_read rd[5];
	uint64_t v0[5], v1[5];

	(void)state;
	assert_int_equal(lib_meta("topdown-l1", ev, &meta), 5);
	tdr_meta__clear(&meta);
	memset(rd, 0, sizeof(rd));
	for (size_t i = 0; i < 5; i++) {
		rd[i].active = true;
		rd[i].width = 48;
		rd[i].raw = 0xff; /* all retiring */
	}
	rd[0].raw = 600;
	tdr_regions_values(ev, 5, rd, v0);
	/* The switch: counts folded into the offsets, registers restored. */
	rd[0].offset = 600;
	rd[1].offset = 600;
	/* 300 more slots, all backend; bits above pmc_width ignored. */
	rd[0].raw = 900 | (1ull << 50);
	for (size_t i = 1; i < 5; i++)
		rd[i].raw = 0x550000aaull; /* retiring 170, be 85 of 255 */
	tdr_regions_values(ev, 5, rd, v1);
	assert_int_equal(v1[0] - v0[0], 300);
	assert_int_equal(v1[1], 600);	      /* 170 * 900 / 255 */
	assert_int_equal(v1[4], 300);	      /* 85 * 900 / 255 */
	assert_int_equal(v1[1] - v0[1], 0);  /* the 600 retiring slots stay */
}

/* ---- the generic families ---- */

static uint64_t delta_of(const struct tdr_ev *ev, size_t n, const char *name, const uint64_t *d)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ev[i].name, name))
			return d[i];
	fail_msg("no event %s", name);
	return 0;
}

/* Every family the library may choose: its group has every event the
 * family's formulas name, and its categories, evaluated over the
 * library's event order, equal the table's formulas evaluated over the
 * table's own order (an independent meta built from the family's event
 * list), for deltas that differ per event. */
static void test_every_family_wiring(void **state)
{
	(void)state;
	for (size_t fi = 0; fi < tdr_topdown_family_cnt(); fi++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(fi);
		struct tdr_ev ev[TDR_REGIONS_EVENT_MAX];
		struct tdr_meta lib, ref = {0};
		uint64_t d[TDR_REGIONS_EVENT_MAX], dref[32];
		size_t n, rn;

		if (f->counting_only)
			continue;
		n = lib_meta(f->name, ev, &lib);
		assert_int_equal(lib.category_cnt, tdr_td_family__formula_cnt(f));
		if (!lib.category_cnt) { /* software: events only */
			tdr_meta__clear(&lib);
			continue;
		}
		for (size_t i = 0; i < n; i++)
			d[i] = 1000 + 37 * i * i + 11 * fi;
		rn = tdr_td_family__event_cnt(f, false);
		assert_true(rn <= 32);
		ref.events = calloc(rn, sizeof(*ref.events));
		ref.event_cnt = rn;
		for (size_t i = 0; i < rn; i++) {
			const char *name = tdr_td_family__event(f, false, i)->name;

			ref.events[i].name = strdup(name);
			dref[i] = delta_of(ev, n, name, d);
		}
		assert_int_equal(tdr_meta__add_family_categories(&ref, f, 0),
				 (int)tdr_td_family__formula_cnt(f));
		for (size_t c = 0; c < lib.category_cnt; c++) {
			double a = tdr_category__value(&lib.categories[c], d, n);
			double b = cat_value(&ref, lib.categories[c].name, dref);

			assert_true(isfinite(a));
			assert_float_equal(a, b, 1e-12);
		}
		tdr_meta__clear(&lib);
		tdr_meta__clear(&ref);
	}
}

/* Hand-computed: Skylake (W 4), Crestmont (W 6), Zen 4 (W 6), Neoverse
 * V2 (W 8, product formulas). */
static void test_generic_hand(void **state)
{
	struct tdr_ev ev[TDR_REGIONS_EVENT_MAX];
	struct tdr_meta meta;
	uint64_t d[TDR_REGIONS_EVENT_MAX];
	size_t n = lib_meta("intel-skl", ev, &meta);

	(void)state;
	/* cycles 1000 (4000 slots), issued 2000, retired 1600, fetch bubbles
	 * 800, recovery 50: retiring 0.4, bad-spec (2000 - 1600 + 200) / 4000,
	 * fe 0.2, be (4000 - 800 - 2000 - 200) / 4000. */
	for (size_t i = 0; i < n; i++) {
		const char *e = ev[i].name;

		d[i] = !strcmp(e, "cycles")			   ? 1000
		       : !strcmp(e, "topdown-slots-issued")	   ? 2000
		       : !strcmp(e, "topdown-slots-retired")	   ? 1600
		       : !strcmp(e, "topdown-fetch-bubbles")	   ? 800
		       : !strcmp(e, "topdown-recovery-bubbles") ? 50
								   : 0;
	}
	assert_float_equal(cat_value(&meta, "retiring", d), 0.40, 1e-12);
	assert_float_equal(cat_value(&meta, "bad-spec", d), 0.15, 1e-12);
	assert_float_equal(cat_value(&meta, "fe-bound", d), 0.20, 1e-12);
	assert_float_equal(cat_value(&meta, "be-bound", d), 0.25, 1e-12);
	tdr_meta__clear(&meta);

	n = lib_meta("crestmont", ev, &meta);
	for (size_t i = 0; i < n; i++) {
		const char *e = ev[i].name;

		d[i] = !strcmp(e, "cycles")			 ? 1000
		       : !strcmp(e, "topdown_retiring.all_p")	 ? 3000
		       : !strcmp(e, "topdown_bad_speculation.all_p") ? 600
								 : 1200;
	}
	assert_float_equal(cat_value(&meta, "retiring", d), 0.5, 1e-12);
	assert_float_equal(cat_value(&meta, "bad-spec", d), 0.1, 1e-12);
	assert_float_equal(cat_value(&meta, "fe-bound", d), 0.2, 1e-12);
	assert_float_equal(cat_value(&meta, "be-bound", d), 0.2, 1e-12);
	tdr_meta__clear(&meta);

	/* AMD Zen 4 (W 6): cycles 1000 (6000 slots), retired ops 2400,
	 * dispatched 3000, frontend 1200, backend 1500, SMT 300. */
	n = lib_meta("amd-zen4", ev, &meta);
	for (size_t i = 0; i < n; i++) {
		const char *e = ev[i].name;

		d[i] = !strcmp(e, "cycles")				     ? 1000
		       : !strcmp(e, "ex_ret_ops")			     ? 2400
		       : !strcmp(e, "de_src_op_disp.all")		     ? 3000
		       : !strcmp(e, "de_no_dispatch_per_slot.no_ops_from_frontend") ? 1200
		       : !strcmp(e, "de_no_dispatch_per_slot.backend_stalls")	     ? 1500
									     : 300;
	}
	assert_float_equal(cat_value(&meta, "retiring", d), 0.40, 1e-12);
	assert_float_equal(cat_value(&meta, "bad-spec", d), 0.10, 1e-12);
	assert_float_equal(cat_value(&meta, "fe-bound", d), 0.20, 1e-12);
	assert_float_equal(cat_value(&meta, "be-bound", d), 0.25, 1e-12);
	assert_float_equal(cat_value(&meta, "smt-contention", d), 0.05, 1e-12);
	tdr_meta__clear(&meta);

	/* Neoverse V2 (W 8, products): cycles 1000 (8000 slots), stall_slot
	 * 2000 (0.75 not stalled), op_retired 900 of op_spec 1000,
	 * br_mis_pred 10, frontend 1600, backend 1000: retiring 0.9 * 0.75,
	 * bad-spec 0.1 * 0.75 + 4 * 10 / 1000 (the slots the frontend's 1 and
	 * the backend's 3 per mispredict move there), fe (1600 - 80) / 8000,
	 * be (1000 - 240) / 8000. */
	n = lib_meta("neoverse-v2", ev, &meta);
	for (size_t i = 0; i < n; i++) {
		const char *e = ev[i].name;

		d[i] = !strcmp(e, "cpu_cycles")		  ? 1000
		       : !strcmp(e, "stall_slot")	  ? 2000
		       : !strcmp(e, "op_retired")	  ? 900
		       : !strcmp(e, "op_spec")		  ? 1000
		       : !strcmp(e, "br_mis_pred")	  ? 10
		       : !strcmp(e, "stall_slot_frontend") ? 1600
							  : 1000;
	}
	assert_float_equal(cat_value(&meta, "retiring", d), 0.675, 1e-12);
	assert_float_equal(cat_value(&meta, "bad-spec", d), 0.115, 1e-12);
	assert_float_equal(cat_value(&meta, "fe-bound", d), 0.19, 1e-12);
	assert_float_equal(cat_value(&meta, "be-bound", d), 0.095, 1e-12);
	tdr_meta__clear(&meta);
}

/* ---- the mmap page protocol ---- */

struct fake_pmu {
	volatile struct perf_event_mmap_page *page; /* changed by the first rdpmc */
	uint64_t raw[4];			    /* per counter number & 3 */
	uint64_t metrics;
	int calls;
	int change_on_call; /* on this call, bump the lock (an update) */
	uint32_t lock_step; /* by how much */
	int64_t new_offset;
	uint64_t reset_raw; /* what the leader's raw becomes at a reset */
	int resets;
};

static uint64_t fake_rdpmc(uint32_t counter, void *arg)
{
	struct fake_pmu *p = arg;

	p->calls++;
	if (p->calls == p->change_on_call) {
		p->page->lock += p->lock_step;
		p->page->offset = p->new_offset;
	}
	if (counter == TDR_RDPMC_METRIC)
		return p->metrics;
	return p->raw[counter & 3];
}

static void page_init(struct perf_event_mmap_page *pg, uint32_t index, int64_t offset)
{
	memset(pg, 0, sizeof(*pg));
	pg->cap_user_rdpmc = 1;
	pg->pmc_width = 48;
	pg->index = index;
	pg->offset = offset;
	pg->lock = 2;
}

static void test_page_lock_changes_during_read(void **state)
{
	struct perf_event_mmap_page pg;
	volatile struct perf_event_mmap_page *pages[1] = {&pg};
	struct fake_pmu pmu = {.page = &pg, .change_on_call = 1, .lock_step = 2,
			       .new_offset = 5000};
	struct tdr_pmc_read rd;

	(void)state;
	page_init(&pg, 2, 1000); /* counter 1 */
	pmu.raw[1] = 300;
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), 0);
	/* The first attempt saw offset 1000 but the lock moved: retried,
	 * and the result is the new offset's. */
	assert_int_equal(pmu.calls, 2);
	assert_int_equal(rd.count, 5300);
	assert_int_equal(rd.offset, 5000);
	assert_true(rd.active);

	/* A lock left odd (an update in progress) at the first read is not
	 * trusted either, even if it reads the same after. */
	page_init(&pg, 2, 1000);
	pg.lock = 3;
	pmu.calls = 0;
	pmu.change_on_call = 1;
	pmu.lock_step = 1;
	pmu.new_offset = 7000;
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), 0);
	assert_int_equal(pmu.calls, 2);
	assert_int_equal(rd.count, 7300);
}

/* Two pages read as one snapshot: a change on the second restarts both. */
static void test_pages_one_snapshot(void **state)
{
	struct perf_event_mmap_page a, b;
	volatile struct perf_event_mmap_page *pages[2] = {&a, &b};
	struct fake_pmu pmu = {.page = &b, .change_on_call = 2, .lock_step = 2,
			       .new_offset = 40};
	struct tdr_pmc_read rd[2];

	(void)state;
	page_init(&a, 1, 100);
	page_init(&b, 2, 10);
	pmu.raw[0] = 1;
	pmu.raw[1] = 2;
	assert_int_equal(tdr_regions_pages_read(pages, 2, fake_rdpmc, &pmu, rd), 0);
	assert_int_equal(pmu.calls, 4);
	assert_int_equal(rd[0].count, 101);
	assert_int_equal(rd[1].count, 42);
}

static void test_page_wrap_inactive_refused(void **state)
{
	struct perf_event_mmap_page pg;
	volatile struct perf_event_mmap_page *pages[1] = {&pg};
	struct fake_pmu pmu = {.page = &pg};
	struct tdr_pmc_read rd;
	uint64_t before;

	(void)state;
	/* The counter is 256 below its wrap at 2^48: it reads as -256 after
	 * sign extension, and offset makes up for it. */
	page_init(&pg, 1, 1000);
	pmu.raw[0] = (1ull << 48) - 256;
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), 0);
	assert_int_equal(rd.count, 1000 - 256);
	before = rd.count;
	/* 512 events later the counter wrapped to 256; the kernel did not
	 * touch the page: the count went up by 512. Bits above pmc_width
	 * (some CPUs return them) are ignored. */
	pmu.raw[0] = 256 | (1ull << 50);
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), 0);
	assert_int_equal(rd.count - before, 512);
	/* A 32-bit counter wraps at 2^32. */
	page_init(&pg, 1, 1ll << 40);
	pg.pmc_width = 32;
	pmu.raw[0] = 0xffffffffull;
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), 0);
	assert_int_equal(rd.count, (1ull << 40) - 1);
	/* Off the PMU (index 0): the kernel's count is all there is, and
	 * rdpmc is not called. */
	page_init(&pg, 0, 777);
	pmu.calls = 0;
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), 0);
	assert_int_equal(rd.count, 777);
	assert_false(rd.active);
	assert_int_equal(pmu.calls, 0);
	/* A page without rdpmc (software events): refused. */
	page_init(&pg, 1, 0);
	pg.cap_user_rdpmc = 0;
	assert_int_equal(tdr_regions_pages_read(pages, 1, fake_rdpmc, &pmu, &rd), -EOPNOTSUPP);
}

/* ---- resets between begin and end ---- */

/* pmu first: the rdpmc and reset seams share one argument. */
struct fake_thread {
	struct fake_pmu pmu;
	struct perf_event_mmap_page pg[5];
	struct tdr_ev ev[TDR_REGIONS_EVENT_MAX];
	struct tdr_region_acc acc[4];
	struct tdr_regions_thread t;
};

/* The kernel's reset of the group: both counters cleared. */
static int fake_reset(void *arg)
{
	struct fake_thread *f = arg;

	f->pmu.raw[3] = 0;
	f->pmu.metrics = 0;
	f->pmu.resets++;
	return 0;
}

static void fake_l1_thread(struct fake_thread *f)
{
	struct tdr_meta meta;

	memset(f, 0, sizeof(*f));
	assert_int_equal(lib_meta("topdown-l1", f->ev, &meta), 5);
	tdr_meta__clear(&meta);
	page_init(&f->pg[0], TDR_RDPMC_FIXED + 3 + 1, 0);
	for (size_t i = 1; i < 5; i++)
		page_init(&f->pg[i], TDR_RDPMC_METRIC + 1, 0);
	for (size_t i = 0; i < 5; i++)
		f->t.pages[i] = &f->pg[i];
	f->t.ev = f->ev;
	f->t.ev_cnt = 5;
	f->t.rdpmc = true;
	f->t.rdpmc_fn = fake_rdpmc;
	f->t.reset_fn = fake_reset;
	f->t.seam_arg = f;
	f->pmu.page = &f->pg[0];
	f->t.reset_slots = 1000;
	f->t.acc = f->acc;
	f->t.acc_cnt = 4;
}

static void hw(struct fake_thread *f, uint64_t slots, uint64_t metrics)
{
	f->pmu.raw[3] = slots;
	f->pmu.metrics = metrics;
}

/* Fields (retiring, bad, fe, be) = (0xff, 0, 0, 0): all retiring;
 * (0, 0, 0, 0xff): all backend. */
#define ALL_RET 0x000000ffull
#define ALL_BE 0xff000000ull

static void test_resets_between_begin_and_end(void **state)
{
	struct fake_thread f;
	struct tdr_region_acc *outer = &f.acc[0], *inner = &f.acc[1], *after = &f.acc[2];

	(void)state;
	fake_l1_thread(&f);
	hw(&f, 600, ALL_RET);
	tdr_regions_thread__begin(&f.t, 0);
	hw(&f, 700, ALL_RET);
	tdr_regions_thread__begin(&f.t, 1);
	/* 1200 slots: past reset_slots, so the end that reads them resets. */
	hw(&f, 1200, ALL_RET);
	tdr_regions_thread__end(&f.t, 1);
	assert_int_equal(f.t.errors, 0);
	assert_int_equal(f.pmu.resets, 1);
	assert_int_equal(f.t.resets, 1);
	assert_int_equal(inner->count, 1);
	assert_int_equal(inner->deltas[0], 500);
	assert_int_equal(inner->deltas[1], 500); /* retiring */
	assert_int_equal(inner->deltas[4], 0);
	/* After the reset the counters restart at 0; 300 backend slots. */
	hw(&f, 300, ALL_BE);
	tdr_regions_thread__end(&f.t, 0);
	/* The outer region spans the reset: 600 retiring slots before it
	 * (600 -> 1200), and 300 backend slots after. */
	assert_int_equal(outer->count, 1);
	assert_int_equal(outer->deltas[0], 900);
	assert_int_equal(outer->deltas[1], 600);
	assert_int_equal(outer->deltas[4], 300);
	/* A region after the reset sees only its own slots. */
	tdr_regions_thread__begin(&f.t, 2);
	hw(&f, 400, ALL_BE);
	tdr_regions_thread__end(&f.t, 2);
	assert_int_equal(after->deltas[0], 100);
	assert_int_equal(after->deltas[4], 100);
	assert_int_equal(f.t.errors, 0);
}

static int failing_reset(void *arg)
{
	(void)arg;
	return -EBADF;
}

/* A reset the kernel refuses: the values read still count, the failure
 * is counted once, and no reset is tried again. */
static void test_reset_fails(void **state)
{
	struct fake_thread f;

	(void)state;
	fake_l1_thread(&f);
	f.t.reset_fn = failing_reset;
	hw(&f, 900, ALL_RET);
	tdr_regions_thread__begin(&f.t, 0);
	hw(&f, 1500, ALL_RET);
	tdr_regions_thread__end(&f.t, 0);
	assert_int_equal(f.acc[0].deltas[0], 600);
	assert_int_equal(f.acc[0].deltas[1], 600);
	assert_int_equal(f.t.errors, 1);
	assert_int_equal(f.t.resets, 0);
	assert_int_equal(f.t.reset_slots, 0);
	tdr_regions_thread__begin(&f.t, 0);
	hw(&f, 2000, ALL_BE);
	tdr_regions_thread__end(&f.t, 0);
	assert_int_equal(f.t.errors, 1);
	assert_int_equal(f.acc[0].deltas[0], 1100);
}

/* Unbalanced calls are counted, never crash, and leave the others right. */
static void test_unbalanced(void **state)
{
	struct fake_thread f;

	(void)state;
	fake_l1_thread(&f);
	f.t.reset_slots = 0;
	tdr_regions_thread__end(&f.t, 0); /* nothing open */
	tdr_regions_thread__begin(&f.t, 0);
	tdr_regions_thread__end(&f.t, 1); /* not the innermost */
	tdr_regions_thread__begin(&f.t, 9); /* unknown id */
	hw(&f, 50, ALL_RET);
	tdr_regions_thread__end(&f.t, 0);
	assert_int_equal(f.t.errors, 3);
	assert_int_equal(f.acc[0].count, 1);
	assert_int_equal(f.acc[0].deltas[0], 50);
	for (int i = 0; i < TDR_REGIONS_DEPTH_MAX + 1; i++)
		tdr_regions_thread__begin(&f.t, 2);
	assert_int_equal(f.t.errors, 4);
	assert_int_equal(f.t.depth, TDR_REGIONS_DEPTH_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_metric_fields_and_rounding),
	    cmocka_unit_test(test_perf_metrics_l1_l2),
	    cmocka_unit_test(test_perf_metrics_ignore_offsets),
	    cmocka_unit_test(test_every_family_wiring),
	    cmocka_unit_test(test_generic_hand),
	    cmocka_unit_test(test_page_lock_changes_during_read),
	    cmocka_unit_test(test_pages_one_snapshot),
	    cmocka_unit_test(test_page_wrap_inactive_refused),
	    cmocka_unit_test(test_resets_between_begin_and_end),
	    cmocka_unit_test(test_reset_fails),
	    cmocka_unit_test(test_unbalanced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
