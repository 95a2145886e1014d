/*
 * tests/parser/test_callchain.c - a sample's callers from PERF_SAMPLE_CALLCHAIN.
 *
 * Synthetic samples with hand-written callchains (the kernel's layout:
 * PERF_CONTEXT_* markers, the interrupted ip first in its context) are fed
 * to a parser; each check compares the delivered frames (ip, cpumode,
 * mapping, map offset) with what the callchain says, worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/synth.h"
#include "support/test_tmpdir.h"
#include "tdrec/parser.h"
#include "tdrec/symbolize.h"

#define MAXF 16

struct cx {
	struct tdr_meta meta;
	struct perf_event_attr attr;
	struct tdr_parser *p;
	struct synth_buf b;
	unsigned delivered;
	uint64_t ip;
	uint32_t frame_cnt;
	struct tdr_frame f[MAXF];
	const char *path[MAXF]; /* copies of each frame's map path (NULL: none) */
};

static int cx_cb(const struct tdr_sample *s, void *ctx)
{
	struct cx *c = ctx;

	c->delivered++;
	c->ip = s->ip;
	c->frame_cnt = s->frame_cnt;
	assert_true(s->frame_cnt <= MAXF);
	assert_true(s->frame_cnt == 0 || s->frames != NULL);
	for (uint32_t i = 0; i < s->frame_cnt; i++) {
		c->f[i] = s->frames[i];
		c->path[i] = s->frames[i].map ? s->frames[i].map->path : NULL;
	}
	return 0;
}

static int setup(void **state)
{
	struct cx *c = calloc(1, sizeof(*c));
	uint64_t id = 7;

	c->attr.size = sizeof(c->attr);
	c->attr.type = PERF_TYPE_SOFTWARE;
	c->attr.sample_period = 1000;
	c->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_CALLCHAIN;
	c->attr.sample_id_all = 1;
	synth_meta_add_event(&c->meta, "cpu-clock", &c->attr, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER,
			     0, &id, NULL, 10, 1);
	assert_int_equal(tdr_parser__new(&c->meta, &c->p), 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct cx *c = *state;

	tdr_parser__free(c->p);
	tdr_meta__clear(&c->meta);
	synth_buf_release(&c->b);
	free(c);
	return 0;
}

static struct synth_sid sid_of(uint32_t pid, uint64_t time)
{
	struct synth_sid s = { .pid = pid, .tid = pid, .time = time, .id = 7, .cpu = 0 };

	return s;
}

static void feed(struct cx *c, size_t off)
{
	assert_int_equal(tdr_parser__feed(c->p, 0, synth_rec(&c->b, off), cx_cb, c), 0);
	synth_buf_reset(&c->b);
}

/* /usr/bin/app at 0x400000 (file offset 0x1000), libc at 0x7f0000000000
 * (file offset 0x26000), and a kernel module at 0xffffffffc0000000. */
static void maps(struct cx *c)
{
	struct synth_sid sid = sid_of(10, 1);

	feed(c, synth_mmap(&c->b, &c->attr, false, 0, 10, 10, 0x400000, 0x10000, 0x1000,
			   "/usr/bin/app", NULL, 0, &sid));
	feed(c, synth_mmap(&c->b, &c->attr, false, 0, 10, 10, 0x7f0000000000ULL, 0x100000,
			   0x26000, "/usr/lib/libc.so.6", NULL, 0, &sid));
	feed(c, synth_mmap(&c->b, &c->attr, true, PERF_RECORD_MISC_KERNEL, UINT32_MAX, UINT32_MAX,
			   0xffffffffc0000000ULL, 0x10000, 0, "[mod]", NULL, 0, &sid));
}

static void sample(struct cx *c, uint16_t misc, uint64_t ip, const uint64_t *cc, size_t nr)
{
	struct synth_sample s = { .misc = misc, .ip = ip, .period = 1000 };

	s.sid = sid_of(10, 20);
	s.callchain = cc;
	s.callchain_nr = nr;
	c->delivered = 0;
	feed(c, synth_sample(&c->b, &c->attr, &s));
	assert_int_equal(c->delivered, 1);
}

/* A user sample: [USER, ip, caller, caller's caller]. */
static void test_callchain__user(void **state)
{
	struct cx *c = *state;
	const uint64_t cc[] = { PERF_CONTEXT_USER, 0x401234, 0x400510, 0x7f0000001a90ULL };

	maps(c);
	sample(c, PERF_RECORD_MISC_USER, 0x401234, cc, 4);
	assert_int_equal(c->ip, 0x401234);
	assert_int_equal(c->frame_cnt, 2);
	assert_int_equal(c->f[0].ip, 0x400510);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_USER);
	assert_string_equal(c->path[0], "/usr/bin/app");
	assert_int_equal(c->f[0].map_off, 0x1510);
	assert_int_equal(c->f[1].ip, 0x7f0000001a90ULL);
	assert_string_equal(c->path[1], "/usr/lib/libc.so.6");
	assert_int_equal(c->f[1].map_off, 0x27a90);
	/* One helper for the address a caller is looked up at. */
	assert_int_equal(tdr_symbolize_caller_addr(c->f[0].map_off), 0x150f);
	assert_int_equal(tdr_symbolize_caller_addr(0), 0);
}

/* A kernel sample with both parts: the kernel's own ip is dropped, the
 * user-mode ip the kernel was entered from is a caller (user cpumode). */
static void test_callchain__kernel_then_user(void **state)
{
	struct cx *c = *state;
	const uint64_t cc[] = { PERF_CONTEXT_KERNEL, 0xffffffffc0000100ULL,
				0xffffffff81000130ULL, PERF_CONTEXT_USER,
				0x7f0000002000ULL, 0x400600 };

	maps(c);
	sample(c, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000100ULL, cc, 6);
	assert_int_equal(c->frame_cnt, 3);
	assert_int_equal(c->f[0].ip, 0xffffffff81000130ULL);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_KERNEL);
	assert_int_equal(c->f[0].map->kind, TDR_MAP_KERNEL);
	assert_string_equal(c->path[0], "[kernel.kallsyms]");
	assert_int_equal(c->f[0].map_off, 0xffffffff81000130ULL);
	assert_int_equal(c->f[1].ip, 0x7f0000002000ULL);
	assert_int_equal(c->f[1].cpumode, TDR_MODE_USER);
	assert_string_equal(c->path[1], "/usr/lib/libc.so.6");
	assert_int_equal(c->f[1].map_off, 0x28000);
	assert_int_equal(c->f[2].ip, 0x400600);
	assert_int_equal(c->f[2].map_off, 0x1600);
}

/* A kernel sample whose kernel part was excluded (exclude_callchain_kernel):
 * the first entry is in another context, a real caller, and is kept. */
static void test_callchain__other_context_first(void **state)
{
	struct cx *c = *state;
	const uint64_t cc[] = { PERF_CONTEXT_USER, 0x7f0000002000ULL, 0x400600 };

	maps(c);
	sample(c, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000100ULL, cc, 3);
	assert_int_equal(c->frame_cnt, 2);
	assert_int_equal(c->f[0].ip, 0x7f0000002000ULL);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_USER);
	assert_int_equal(c->f[1].ip, 0x400600);
}

/* No marker at all: the entries are user mode (perf's assumption); an
 * unmapped frame has no mapping; guest and hypervisor markers. */
static void test_callchain__markers(void **state)
{
	struct cx *c = *state;
	const uint64_t none[] = { 0x401234, 0x400510, 0x12345 };
	const uint64_t guest[] = { PERF_CONTEXT_USER, 0x401234, PERF_CONTEXT_HV, 0x1000,
				   PERF_CONTEXT_GUEST, PERF_CONTEXT_GUEST_KERNEL,
				   0xffff800000001000ULL, PERF_CONTEXT_GUEST_USER, 0x2000 };

	maps(c);
	sample(c, PERF_RECORD_MISC_USER, 0x401234, none, 3);
	assert_int_equal(c->frame_cnt, 2);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_USER);
	assert_string_equal(c->path[0], "/usr/bin/app");
	assert_int_equal(c->f[1].ip, 0x12345);
	assert_null(c->f[1].map);
	assert_int_equal(c->f[1].map_off, 0);

	sample(c, PERF_RECORD_MISC_USER, 0x401234, guest, 9);
	assert_int_equal(c->frame_cnt, 3);
	assert_int_equal(c->f[0].ip, 0x1000);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_HYPERVISOR);
	assert_int_equal(c->f[1].ip, 0xffff800000001000ULL);
	assert_int_equal(c->f[1].cpumode, TDR_MODE_GUEST_KERNEL);
	assert_int_equal(c->f[2].ip, 0x2000);
	assert_int_equal(c->f[2].cpumode, TDR_MODE_GUEST_USER);
}

/* Only the sample's own ip, only markers, or an empty callchain: no callers. */
static void test_callchain__empty(void **state)
{
	struct cx *c = *state;
	const uint64_t self[] = { PERF_CONTEXT_USER, 0x401234 };
	const uint64_t marks[] = { PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER };

	maps(c);
	sample(c, PERF_RECORD_MISC_USER, 0x401234, self, 2);
	assert_int_equal(c->frame_cnt, 0);
	sample(c, PERF_RECORD_MISC_USER, 0x401234, marks, 2);
	assert_int_equal(c->frame_cnt, 0);
	sample(c, PERF_RECORD_MISC_USER, 0x401234, NULL, 0);
	assert_int_equal(c->frame_cnt, 0);
}

/* A deep stack grows the scratch; a shallow one after it reads right. */
static void test_callchain__deep_then_shallow(void **state)
{
	struct cx *c = *state;
	uint64_t deep[1 + 200];
	const uint64_t shallow[] = { PERF_CONTEXT_USER, 0x401234, 0x400700 };
	struct synth_sample s = { .ip = 0x401234, .period = 1000 };

	maps(c);
	deep[0] = PERF_CONTEXT_USER;
	for (size_t i = 1; i <= 200; i++)
		deep[i] = 0x400000 + i;
	s.sid = sid_of(10, 30);
	s.callchain = deep;
	s.callchain_nr = 201;
	/* A callback that only counts: the deep stack has more than MAXF. */
	assert_int_equal(tdr_parser__feed(c->p, 0, synth_rec(&c->b, synth_sample(&c->b, &c->attr, &s)),
					  NULL, NULL),
			 0);
	synth_buf_reset(&c->b);
	assert_int_equal(tdr_parser__stats(c->p)->samples_delivered, 1);
	sample(c, PERF_RECORD_MISC_USER, 0x401234, shallow, 3);
	assert_int_equal(c->frame_cnt, 1);
	assert_int_equal(c->f[0].ip, 0x400700);
}

/* A callchain nr past the record's end: the record is malformed, skipped. */
static void test_callchain__nr_past_end(void **state)
{
	struct cx *c = *state;
	const uint64_t cc[] = { PERF_CONTEXT_USER, 0x401234, 0x400510 };
	struct synth_sample s = { .ip = 0x401234, .period = 1000 };
	struct perf_event_header *h;
	size_t off;
	uint64_t nr = 1000;

	maps(c);
	s.sid = sid_of(10, 40);
	s.callchain = cc;
	s.callchain_nr = 3;
	off = synth_sample(&c->b, &c->attr, &s);
	h = (struct perf_event_header *)synth_rec(&c->b, off);
	/* nr is the u64 before the last three */
	memcpy((uint8_t *)h + h->size - 4 * 8, &nr, 8);
	c->delivered = 0;
	assert_int_equal(tdr_parser__feed(c->p, 0, h, cx_cb, c), 0);
	synth_buf_reset(&c->b);
	assert_int_equal(c->delivered, 0);
	assert_int_equal(tdr_parser__stats(c->p)->malformed_records, 1);
}

/* A .tdr file (both frame codecs) keeps the callchain: the same frames come
 * back from tdr_parser__run as from feeding the records directly. */
static int run_cb(const struct tdr_sample *s, void *ctx)
{
	if (s->ip == 0x401234)
		return cx_cb(s, ctx);
	return 0;
}

static void tdr_roundtrip(struct cx *c, uint8_t codec)
{
	char dir[TEST_TMPDIR_SZ], path[TEST_TMPDIR_SZ + 16];
	struct tdr_writer_opts o = { .path = path, .codec = codec };
	const uint64_t cc[] = { PERF_CONTEXT_KERNEL, 0xffffffffc0000100ULL,
				0xffffffff81000130ULL, PERF_CONTEXT_USER,
				0x7f0000002000ULL, 0x400600 };
	const uint64_t cc2[] = { PERF_CONTEXT_USER, 0x401234, 0x400510, 0x7f0000001a90ULL };
	struct synth_sid sid = sid_of(10, 1);
	struct synth_buf b = { 0 };
	struct tdr_writer *w;
	struct tdr_parser *p;
	struct tdr_run_end end = { .duration_ns = 1000 };

	assert_true(test_tmpdir_make(dir, "callchain"));
	snprintf(path, sizeof(path), "%s/a.tdr", dir);
	c->meta.plan_name = strdup("software");
	assert_int_equal(tdr_writer__open(&o, &c->meta, &w), 0);
	synth_mmap(&b, &c->attr, false, 0, 10, 10, 0x400000, 0x10000, 0x1000, "/usr/bin/app", NULL,
		   0, &sid);
	synth_mmap(&b, &c->attr, false, 0, 10, 10, 0x7f0000000000ULL, 0x100000, 0x26000,
		   "/usr/lib/libc.so.6", NULL, 0, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	synth_buf_reset(&b);
	for (unsigned i = 0; i < 20; i++) {
		struct synth_sample s = { .misc = PERF_RECORD_MISC_KERNEL,
					  .ip = 0xffffffffc0000100ULL, .period = 1000 };

		s.sid = sid_of(10, 100 + 2 * i);
		s.callchain = cc;
		s.callchain_nr = 6;
		synth_sample(&b, &c->attr, &s);
		s = (struct synth_sample){ .ip = 0x401234, .period = 1000 };
		s.sid = sid_of(10, 101 + 2 * i);
		s.callchain = cc2;
		s.callchain_nr = 4;
		synth_sample(&b, &c->attr, &s);
	}
	assert_int_equal(tdr_writer__add_frame(w, 0, b.data, b.sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, &end), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);

	assert_int_equal(tdr_parser__open(path, &p), 0);
	c->delivered = 0;
	assert_int_equal(tdr_parser__run(p, run_cb, c), 0);
	assert_int_equal(tdr_parser__stats(p)->samples_delivered, 40);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 0);
	assert_int_equal(c->delivered, 20);
	assert_int_equal(c->frame_cnt, 2);
	assert_int_equal(c->f[0].ip, 0x400510);
	assert_string_equal(c->path[0], "/usr/bin/app");
	assert_int_equal(c->f[0].map_off, 0x1510);
	assert_int_equal(c->f[1].ip, 0x7f0000001a90ULL);
	assert_int_equal(c->f[1].map_off, 0x27a90);
	tdr_parser__free(p);
	test_tmpdir_remove(dir);
}

static void test_callchain__tdr_raw(void **state)
{
	tdr_roundtrip(*state, TDR_CODEC_RAW_ZSTD);
}

static void test_callchain__tdr_columns(void **state)
{
	tdr_roundtrip(*state, TDR_CODEC_COLUMNS);
}

/* --call-graph dwarf: the parser hands the stack copy to the unwinder and
 * appends its pcs as user frames (the first one only for a kernel sample). */
struct fake_unwind {
	unsigned calls;
	uint64_t mask, sp, stack0, stack_sz;
};

static int fake_unwind(void *ctx, const struct tdr_sample *s, const struct tdr_user_stack *u,
		       uint64_t *pcs, uint32_t max)
{
	struct fake_unwind *f = ctx;

	assert_true(max >= 3);
	f->calls++;
	f->mask = u->mask;
	memcpy(&f->sp, u->regs, 8); /* bit 7 (sp) comes before bit 8 (ip) */
	memcpy(&f->stack0, u->stack, 8);
	f->stack_sz = u->stack_sz;
	/* the kernel frames come first, already in s */
	if (s->cpumode == TDR_MODE_KERNEL)
		assert_int_equal(s->frame_cnt, 1);
	pcs[0] = 0x401234; /* the user pc */
	pcs[1] = 0x400511; /* return addresses */
	pcs[2] = 0x7f0000001a91ULL;
	return 3;
}

/* A sample with two registers (bits 7 and 8: sp, ip) and 16 bytes of stack. */
static void feed_dwarf(struct cx *c, const struct perf_event_attr *a, uint16_t misc, uint64_t ip,
		       const uint64_t *cc, size_t nr)
{
	struct synth_sample s = { .misc = misc, .ip = ip, .period = 1000 };
	const uint64_t tail[] = { PERF_SAMPLE_REGS_ABI_64, 0x7ffd0000, 0x401234, 16, 0xaa, 0xbb, 16 };
	uint8_t buf[1024];
	size_t off;
	const struct perf_event_header *h;
	struct perf_event_header nh;

	s.sid = sid_of(10, 50);
	s.callchain = cc;
	s.callchain_nr = nr;
	off = synth_sample(&c->b, a, &s);
	h = synth_rec(&c->b, off);
	assert_true(h->size + sizeof(tail) <= sizeof(buf));
	memcpy(buf, h, h->size);
	memcpy(buf + h->size, tail, sizeof(tail));
	nh = *h;
	nh.size = (uint16_t)(h->size + sizeof(tail));
	memcpy(buf, &nh, sizeof(nh));
	c->delivered = 0;
	assert_int_equal(tdr_parser__feed(c->p, 0, (const struct perf_event_header *)buf, cx_cb, c),
			 0);
	synth_buf_reset(&c->b);
	assert_int_equal(c->delivered, 1);
}

static void test_callchain__dwarf_unwinder(void **state)
{
	struct cx *c = *state;
	struct perf_event_attr a = c->attr;
	struct tdr_meta meta = { 0 };
	struct fake_unwind f = { 0 };
	uint64_t id = 7;
	const uint64_t kcc[] = { PERF_CONTEXT_KERNEL, 0xffffffffc0000100ULL,
				 0xffffffff81000130ULL };

	/* A parser whose event copies the user stack. */
	a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = (1ull << 7) | (1ull << 8);
	a.sample_stack_user = 16;
	a.exclude_callchain_user = 1;
	synth_meta_add_event(&meta, "cpu-clock", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &id,
			     NULL, 10, 1);
	tdr_parser__free(c->p);
	assert_int_equal(tdr_parser__new(&meta, &c->p), 0);
	tdr_meta__clear(&meta);
	maps(c);

	/* Without an unwinder: no user frames, the copy is counted. */
	feed_dwarf(c, &a, PERF_RECORD_MISC_USER, 0x401234, NULL, 0);
	assert_int_equal(c->frame_cnt, 0);
	assert_int_equal(tdr_parser__stats(c->p)->user_stacks, 1);

	tdr_parser__set_unwinder(c->p, fake_unwind, &f);
	feed_dwarf(c, &a, PERF_RECORD_MISC_USER, 0x401234, NULL, 0);
	assert_int_equal(f.calls, 1);
	assert_int_equal(f.mask, a.sample_regs_user);
	assert_int_equal(f.sp, 0x7ffd0000);
	assert_int_equal(f.stack0, 0xaa);
	assert_int_equal(f.stack_sz, 16);
	/* user sample: the user pc is the sample, two callers follow */
	assert_int_equal(c->frame_cnt, 2);
	assert_int_equal(c->f[0].ip, 0x400511);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_USER);
	assert_string_equal(c->path[0], "/usr/bin/app");
	assert_int_equal(c->f[0].map_off, 0x1511);
	assert_string_equal(c->path[1], "/usr/lib/libc.so.6");

	/* kernel sample: kernel caller, then the user pc and its callers */
	feed_dwarf(c, &a, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000100ULL, kcc, 3);
	assert_int_equal(c->frame_cnt, 4);
	assert_int_equal(c->f[0].ip, 0xffffffff81000130ULL);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_KERNEL);
	assert_int_equal(c->f[1].ip, 0x401234);
	assert_int_equal(c->f[1].cpumode, TDR_MODE_USER);
	assert_int_equal(c->f[2].ip, 0x400511);
	assert_int_equal(c->f[3].ip, 0x7f0000001a91ULL);
	assert_int_equal(tdr_parser__stats(c->p)->user_stacks, 3);
	assert_int_equal(tdr_parser__stats(c->p)->user_stacks_unwound, 2);
	/* the mapping lookup unwinders use */
	assert_string_equal(tdr_parser__find_mapping(c->p, 10, 0x400600)->path, "/usr/bin/app");
	assert_null(tdr_parser__find_mapping(c->p, 10, 0x10));
}

/* --call-graph lbr: the LBR call stack replaces the user part of the
 * callchain; call instructions are stored plus one. */
static void feed_lbr(struct cx *c, const struct perf_event_attr *a, uint16_t misc, uint64_t ip,
		     const uint64_t *cc, size_t nr)
{
	struct synth_sample s = { .misc = misc, .ip = ip, .period = 1000 };
	/* nr, hw_idx, {from, to, flags} x 2 */
	const uint64_t tail[] = { 2, 5, 0x400510, 0x401200, 0, 0x7f0000001a80ULL, 0x400500, 0 };
	uint8_t buf[1024];
	const struct perf_event_header *h;
	struct perf_event_header nh;

	s.sid = sid_of(10, 60);
	s.callchain = cc;
	s.callchain_nr = nr;
	h = synth_rec(&c->b, synth_sample(&c->b, a, &s));
	memcpy(buf, h, h->size);
	memcpy(buf + h->size, tail, sizeof(tail));
	nh = *h;
	nh.size = (uint16_t)(h->size + sizeof(tail));
	memcpy(buf, &nh, sizeof(nh));
	c->delivered = 0;
	assert_int_equal(tdr_parser__feed(c->p, 0, (const struct perf_event_header *)buf, cx_cb, c),
			 0);
	synth_buf_reset(&c->b);
	assert_int_equal(c->delivered, 1);
}

static void test_callchain__lbr(void **state)
{
	struct cx *c = *state;
	struct perf_event_attr a = c->attr;
	struct tdr_meta meta = { 0 };
	uint64_t id = 7;
	const uint64_t ucc[] = { PERF_CONTEXT_USER, 0x401234, 0x400999 };
	const uint64_t kcc[] = { PERF_CONTEXT_KERNEL, 0xffffffffc0000100ULL, 0xffffffff81000130ULL,
				 PERF_CONTEXT_USER, 0x401240, 0x400999 };

	a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
			       PERF_SAMPLE_BRANCH_HW_INDEX;
	synth_meta_add_event(&meta, "cycles", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &id, NULL,
			     10, 1);
	tdr_parser__free(c->p);
	assert_int_equal(tdr_parser__new(&meta, &c->p), 0);
	tdr_meta__clear(&meta);
	maps(c);

	/* user sample: the call sites, the frame-pointer caller 0x400999 gone */
	feed_lbr(c, &a, PERF_RECORD_MISC_USER, 0x401234, ucc, 3);
	assert_int_equal(c->frame_cnt, 2);
	assert_int_equal(c->f[0].ip, 0x400511);
	assert_int_equal(c->f[0].cpumode, TDR_MODE_USER);
	assert_int_equal(tdr_symbolize_caller_addr(c->f[0].map_off), 0x1510);
	assert_int_equal(c->f[1].ip, 0x7f0000001a81ULL);
	assert_string_equal(c->path[1], "/usr/lib/libc.so.6");
	/* kernel sample: kernel caller, the user function (entry 0's target),
	 * then the call sites */
	feed_lbr(c, &a, PERF_RECORD_MISC_KERNEL, 0xffffffffc0000100ULL, kcc, 6);
	assert_int_equal(c->frame_cnt, 4);
	assert_int_equal(c->f[0].ip, 0xffffffff81000130ULL);
	assert_int_equal(c->f[1].ip, 0x401201);
	assert_int_equal(tdr_symbolize_caller_addr(c->f[1].map_off), 0x2200);
	assert_int_equal(c->f[2].ip, 0x400511);
	assert_int_equal(c->f[3].ip, 0x7f0000001a81ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_callchain__user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__kernel_then_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__other_context_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__markers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__deep_then_shallow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__nr_past_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__tdr_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__tdr_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__dwarf_unwinder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain__lbr, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
