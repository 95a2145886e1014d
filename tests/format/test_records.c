/*
 * tests/format/test_records.c - the record layouts of tdrec/records.h.
 *
 * Covers the walker's size rules, the sample_id trailer's size and offsets
 * for several sample_types (read and written), the SAMPLE layout and view,
 * and the view of every other record body against records built byte by
 * byte from the uapi layouts (not with records.h's own constants), with
 * every truncation rejected, and the writers of MMAP2 and COMM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "format_int.h" /* tdr_sample_id__read/__write, tdr_ksymbol__parse */
#include "tdrec/records.h"
#include "tdrec/tdr_err.h"

/* A record built by hand: 8-byte aligned storage, header first. */
struct rec {
	uint64_t words[256];
	size_t sz; /* bytes written so far, header included */
};

static uint8_t *bytes(struct rec *r)
{
	return (uint8_t *)r->words;
}

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	memset(r, 0, sizeof(*r));
	memcpy(bytes(r), &type, 4);
	memcpy(bytes(r) + 4, &misc, 2);
	r->sz = 8;
}

static void p32(struct rec *r, uint32_t v)
{
	memcpy(bytes(r) + r->sz, &v, 4);
	r->sz += 4;
}

static void p64(struct rec *r, uint64_t v)
{
	memcpy(bytes(r) + r->sz, &v, 8);
	r->sz += 8;
}

/* A string with its NUL, zero-padded to 8 bytes. */
static void pstr(struct rec *r, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(bytes(r) + r->sz, s, n);
	r->sz += (n + 7) & ~(size_t)7;
}

/* Set the header's size to the bytes written and return the header. */
static const struct perf_event_header *end(struct rec *r)
{
	uint16_t sz = (uint16_t)r->sz;

	memcpy(bytes(r) + 6, &sz, 2);
	return (const struct perf_event_header *)bytes(r);
}

/* The header of r with its size cut to sz (the bytes stay). */
static const struct perf_event_header *cut(struct rec *r, size_t sz)
{
	uint16_t s = (uint16_t)sz;

	memcpy(bytes(r) + 6, &s, 2);
	return (const struct perf_event_header *)bytes(r);
}

/* ---- the walker ---- */

static void test_records__walker_size_rules(void **state)
{
	uint64_t buf[8] = {0};
	struct perf_event_header h = {.type = PERF_RECORD_COMM, .size = 16};
	const struct perf_event_header *got;
	struct tdr_record_iter it;

	(void)state;
	assert_true(tdr_record__size_ok(8, 8));
	assert_true(tdr_record__size_ok(64, 100));
	assert_false(tdr_record__size_ok(0, 64));
	assert_false(tdr_record__size_ok(4, 64));
	assert_false(tdr_record__size_ok(12, 64));
	assert_false(tdr_record__size_ok(72, 64));

	memcpy(buf, &h, 8);
	h.size = 8;
	memcpy((uint8_t *)buf + 16, &h, 8);
	it = (struct tdr_record_iter){.data = (const uint8_t *)buf, .sz = 24};
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_record__type(got), PERF_RECORD_COMM);
	assert_int_equal(tdr_record__size(got), 16);
	assert_int_equal(tdr_record__body_sz(got), 8);
	assert_ptr_equal(tdr_record__body(got), (uint8_t *)buf + 8);
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_record__body_sz(got), 0);
	assert_int_equal(tdr_records__next(&it, &got), 0);

	/* size < 8 */
	h.size = 4;
	memcpy((uint8_t *)buf + 16, &h, 8);
	it = (struct tdr_record_iter){.data = (const uint8_t *)buf, .sz = 24};
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);
	/* size % 8 != 0 */
	h.size = 12;
	memcpy((uint8_t *)buf + 16, &h, 8);
	it = (struct tdr_record_iter){.data = (const uint8_t *)buf, .sz = 32};
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);
	/* past the end */
	h.size = 24;
	memcpy((uint8_t *)buf + 16, &h, 8);
	it = (struct tdr_record_iter){.data = (const uint8_t *)buf, .sz = 32};
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);
	/* a partial header */
	it = (struct tdr_record_iter){.data = (const uint8_t *)buf, .sz = 20};
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);
}

static void test_records__counts(void **state)
{
	struct tdr_record_counts c = {0};
	struct rec r;

	(void)state;
	begin(&r, PERF_RECORD_SAMPLE, 0);
	p64(&r, 1);
	tdr_record_counts__add(&c, end(&r));
	begin(&r, PERF_RECORD_LOST, 0);
	p64(&r, 77); /* id */
	p64(&r, 5);  /* lost */
	tdr_record_counts__add(&c, end(&r));
	/* A LOST too short for its count counts as a record only. */
	tdr_record_counts__add(&c, cut(&r, 16));
	begin(&r, PERF_RECORD_THROTTLE, 0);
	tdr_record_counts__add(&c, end(&r));
	begin(&r, PERF_RECORD_UNTHROTTLE, 0);
	tdr_record_counts__add(&c, end(&r));
	begin(&r, PERF_RECORD_COMM, 0);
	tdr_record_counts__add(&c, end(&r));
	assert_int_equal(c.records, 6);
	assert_int_equal(c.samples, 1);
	assert_int_equal(c.lost_records, 2);
	assert_int_equal(c.lost_samples, 5);
	assert_int_equal(c.throttles, 1);
	assert_int_equal(c.unthrottles, 1);
}

/* ---- the sample_id trailer ---- */

static void test_records__sample_id_layouts(void **state)
{
	static const struct {
		uint64_t st;
		int sz, tid, time, id, stream_id, cpu, identifier;
	} cases[] = {
	    {0, 0, -1, -1, -1, -1, -1, -1},
	    /* fields outside the trailer do not count */
	    {PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ, 0, -1, -1, -1, -1, -1, -1},
	    {PERF_SAMPLE_IDENTIFIER, 8, -1, -1, -1, -1, -1, 0},
	    {PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU, 32, 0, 8, 16,
	     -1, 24, -1},
	    {PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP,
	     48, 0, 8, 16, 24, 32, 40},
	    {PERF_SAMPLE_TIME | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_IDENTIFIER, 24, -1, 0, -1, 8, -1,
	     16},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tdr_sid_layout l;

		tdr_sid_layout__init(&l, cases[i].st);
		assert_int_equal(tdr_sample_id__size(cases[i].st), cases[i].sz);
		assert_int_equal(l.sz, cases[i].sz);
		assert_int_equal(l.tid, cases[i].tid);
		assert_int_equal(l.time, cases[i].time);
		assert_int_equal(l.id, cases[i].id);
		assert_int_equal(l.stream_id, cases[i].stream_id);
		assert_int_equal(l.cpu, cases[i].cpu);
		assert_int_equal(l.identifier, cases[i].identifier);
	}
}

static void test_records__sample_id_read_and_write(void **state)
{
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	struct tdr_sample_id in = {.pid = 10, .tid = 11, .cpu = 3, .time = 1234, .id = 99,
				   .stream_id = 98};
	struct tdr_sample_id out = {0};
	struct tdr_sid_layout l;
	uint8_t buf[48];
	struct rec r;

	(void)state;
	/* The uapi order: {pid, tid} time id stream_id {cpu, res} identifier. */
	begin(&r, 0, 0);
	p32(&r, 10);
	p32(&r, 11);
	p64(&r, 1234);
	p64(&r, 99);
	p64(&r, 98);
	p32(&r, 3);
	p32(&r, 0);
	p64(&r, 99);
	tdr_sid_layout__init(&l, st);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(tdr_sample_id__write(&l, buf, &in), 48);
	assert_memory_equal(buf, bytes(&r) + 8, 48);
	tdr_sample_id__read(&l, bytes(&r) + 8, &out);
	assert_int_equal(out.have, TDR_SID_TID | TDR_SID_TIME | TDR_SID_ID | TDR_SID_STREAM_ID |
				       TDR_SID_CPU);
	assert_int_equal(out.pid, 10);
	assert_int_equal(out.tid, 11);
	assert_int_equal(out.time, 1234);
	assert_int_equal(out.id, 99);
	assert_int_equal(out.stream_id, 98);
	assert_int_equal(out.cpu, 3);

	/* TIME and IDENTIFIER only. */
	tdr_sid_layout__init(&l, PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER);
	begin(&r, 0, 0);
	p64(&r, 555);
	p64(&r, 7);
	memset(&out, 0, sizeof(out));
	tdr_sample_id__read(&l, bytes(&r) + 8, &out);
	assert_int_equal(out.have, TDR_SID_TIME | TDR_SID_ID);
	assert_int_equal(out.time, 555);
	assert_int_equal(out.id, 7);
}

/* ---- SAMPLE ---- */

static void test_records__sample_layout_offsets(void **state)
{
	struct tdr_sample_layout l;

	(void)state;
	/* IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD READ */
	tdr_sample_layout__init(&l,
				PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				    PERF_SAMPLE_READ,
				PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED);
	assert_int_equal(l.identifier, 0);
	assert_int_equal(l.ip, 8);
	assert_int_equal(l.tid, 16);
	assert_int_equal(l.time, 24);
	assert_int_equal(l.addr, 32);
	assert_int_equal(l.id, 40);
	assert_int_equal(l.stream_id, 48);
	assert_int_equal(l.cpu, 56);
	assert_int_equal(l.period, 64);
	assert_int_equal(l.event_id, 0);
	assert_int_equal(l.read, 72);
	assert_int_equal(l.rd.head_sz, 16); /* nr, enabled */
	assert_int_equal(l.rd.stride, 16);  /* value, id */
	assert_int_equal(l.fixed_sz, 88);

	/* perf's id_pos without IDENTIFIER: after IP, TID, TIME, ADDR. */
	tdr_sample_layout__init(&l, PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_ID, 0);
	assert_int_equal(l.identifier, -1);
	assert_int_equal(l.tid, -1);
	assert_int_equal(l.time, 8);
	assert_int_equal(l.event_id, 16);
	assert_int_equal(l.read, -1);
	assert_int_equal(l.fixed_sz, 24);

	/* Non-group READ: value, times, id, lost all in the head. */
	tdr_sample_layout__init(&l, PERF_SAMPLE_TID | PERF_SAMPLE_READ,
				PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED |
				    PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_int_equal(l.event_id, -1);
	assert_int_equal(l.read, 8);
	assert_int_equal(l.rd.head_sz, 40);
	assert_int_equal(l.fixed_sz, 48);
}

static void test_records__sample_view(void **state)
{
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
		      PERF_SAMPLE_CALLCHAIN;
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct tdr_sample_layout l;
	struct tdr_sample_rec s;
	struct tdr_sample_id sid;
	const struct perf_event_header *h;
	struct rec r;
	size_t full;

	(void)state;
	tdr_sample_layout__init(&l, st, rf);
	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	p64(&r, 42);	   /* identifier */
	p64(&r, 0x401000); /* ip */
	p32(&r, 100);	   /* pid */
	p32(&r, 101);	   /* tid */
	p64(&r, 5000);	   /* time */
	p32(&r, 2);	   /* cpu */
	p32(&r, 0);
	p64(&r, 1000); /* period */
	p64(&r, 2);    /* read: nr */
	p64(&r, 900);  /* enabled */
	p64(&r, 800);  /* running */
	p64(&r, 11);   /* value, id */
	p64(&r, 42);
	p64(&r, 22);
	p64(&r, 43);
	p64(&r, 1); /* callchain: nr */
	p64(&r, 0x401000);
	h = end(&r);
	full = r.sz;

	memset(&s, 0, sizeof(s));
	memset(&sid, 0, sizeof(sid));
	assert_int_equal(tdr_sample__parse(&l, tdr_record__body(h), bytes(&r) + full, &s, &sid), 0);
	assert_true(s.has_ip && s.has_period && s.has_read);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.period, 1000);
	assert_int_equal(sid.id, 42);
	assert_int_equal(sid.pid, 100);
	assert_int_equal(sid.tid, 101);
	assert_int_equal(sid.time, 5000);
	assert_int_equal(sid.cpu, 2);
	assert_int_equal(sid.have, TDR_SID_ID | TDR_SID_TID | TDR_SID_TIME | TDR_SID_CPU);
	assert_true(s.read.group && s.read.has_id);
	assert_int_equal(s.read.nr, 2);
	assert_int_equal(s.read.time_enabled, 900);
	assert_int_equal(s.read.time_running, 800);
	assert_int_equal(s.read.stride, 16);
	assert_ptr_equal(s.read.ent, bytes(&r) + 8 + 72);
	assert_int_equal(tdr_rec_ld64(s.read.ent + l.rd.stride + TDR_READ_ENTRY_ID), 43);
	/* The callchain is read in place, after the group entries. */
	assert_int_equal(s.callchain_nr, 1);
	assert_ptr_equal(s.callchain, bytes(&r) + 8 + 72 + 32 + 8);
	assert_int_equal(tdr_rec_ld64(s.callchain), 0x401000);

	/* Every shorter body is rejected (all fields are needed). */
	for (size_t n = 8; n < full; n += 8) {
		memset(&s, 0, sizeof(s));
		memset(&sid, 0, sizeof(sid));
		assert_int_equal(
		    tdr_sample__parse(&l, tdr_record__body(h), bytes(&r) + n, &s, &sid),
		    -TDR_E_CORRUPT);
	}
	/* A READ nr past the end. */
	memset(&sid, 0, sizeof(sid));
	memset(&s, 0, sizeof(s));
	{
		uint64_t nr = 1000;

		memcpy(bytes(&r) + 8 + 48, &nr, 8);
	}
	assert_int_equal(tdr_sample__parse(&l, tdr_record__body(h), bytes(&r) + full, &s, &sid),
			 -TDR_E_CORRUPT);
}

/* Non-group READ, and RAW bounds. */
static void test_records__sample_read_and_raw(void **state)
{
	struct tdr_sample_layout l;
	struct tdr_sample_rec s = {0};
	struct tdr_sample_id sid = {0};
	struct rec r;

	(void)state;
	tdr_sample_layout__init(&l, PERF_SAMPLE_READ | PERF_SAMPLE_RAW,
				PERF_FORMAT_ID | PERF_FORMAT_LOST);
	begin(&r, PERF_RECORD_SAMPLE, 0);
	p64(&r, 123); /* value */
	p64(&r, 9);   /* id */
	p64(&r, 0);   /* lost */
	p32(&r, 4);   /* raw size */
	p32(&r, 0xabcd);
	end(&r);
	assert_int_equal(tdr_sample__parse(&l, bytes(&r) + 8, bytes(&r) + r.sz, &s, &sid), 0);
	assert_false(s.read.group);
	assert_int_equal(s.read.nr, 1);
	assert_int_equal(s.read.value, 123);
	assert_int_equal(s.read.id, 9);
	assert_int_equal(sid.have, 0);
	/* RAW's size past the end. */
	assert_int_equal(tdr_sample__parse(&l, bytes(&r) + 8, bytes(&r) + r.sz - 1, &s, &sid),
			 -TDR_E_CORRUPT);
	assert_int_equal(tdr_sample__parse(&l, bytes(&r) + 8, bytes(&r) + 8 + 26, &s, &sid),
			 -TDR_E_CORRUPT);
}

/* CALLCHAIN, RAW, then BRANCH_STACK (with hw_idx), REGS_USER and
 * STACK_USER (--call-graph dwarf, lbr): read in place after the tail. */
static void test_records__sample_user_stack(void **state)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
		      PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	struct tdr_sample_layout l;
	struct tdr_user_layout ul;
	struct tdr_sample_rec s = {0};
	struct tdr_sample_id sid = {0};
	struct tdr_sample_user u;
	struct rec r;
	const uint8_t *body, *stop;

	(void)state;
	tdr_sample_layout__init(&l, st, 0);
	/* three registers: bits 0, 7 and 8 */
	tdr_user_layout__init(&ul, st, PERF_SAMPLE_BRANCH_HW_INDEX, 0x181);
	assert_true(ul.branch_stack && ul.branch_hw_idx && ul.regs_user && ul.stack_user);
	assert_int_equal(ul.regs_cnt, 3);
	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	p64(&r, 0x401000); /* ip */
	p64(&r, 1);	   /* callchain nr */
	p64(&r, 0x401000);
	p32(&r, 4); /* raw size, data */
	p32(&r, 0x1234);
	p64(&r, 1); /* branch nr, hw_idx, one entry */
	p64(&r, 7);
	p64(&r, 0xa);
	p64(&r, 0xb);
	p64(&r, 0);
	p64(&r, PERF_SAMPLE_REGS_ABI_64); /* abi, 3 regs */
	p64(&r, 11);
	p64(&r, 0x7ffd0000); /* sp */
	p64(&r, 0x401000);   /* ip */
	p64(&r, 16);	     /* stack size, data, dyn_size */
	p64(&r, 0x1111);
	p64(&r, 0x2222);
	p64(&r, 8);
	end(&r);
	body = bytes(&r) + 8;
	stop = bytes(&r) + r.sz;
	assert_int_equal(tdr_sample__parse(&l, body, stop, &s, &sid), 0);
	assert_int_equal(s.callchain_nr, 1);
	assert_ptr_equal(s.tail, body + 8 + 16 + 8);
	assert_int_equal(tdr_sample__parse_user(&ul, s.tail, stop, &u), 0);
	assert_int_equal(u.branch_nr, 1);
	assert_int_equal(tdr_rec_ld64(u.branches), 0xa);
	assert_int_equal(u.regs_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(tdr_rec_ld64(u.regs + 8), 0x7ffd0000);
	assert_int_equal(u.stack_sz, 8);
	assert_int_equal(tdr_rec_ld64(u.stack), 0x1111);
	/* Every cut of the tail is refused. */
	for (const uint8_t *e = s.tail; e < stop; e += 8)
		assert_int_equal(tdr_sample__parse_user(&ul, s.tail, e, &u), -TDR_E_CORRUPT);
	/* A dyn_size above the copy. */
	{
		uint64_t big = 17;

		memcpy(bytes(&r) + r.sz - 8, &big, 8);
	}
	assert_int_equal(tdr_sample__parse_user(&ul, s.tail, stop, &u), -TDR_E_CORRUPT);
	/* No user registers (a kernel thread): abi 0, no values follow. */
	tdr_user_layout__init(&ul, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 0, 0x181);
	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	p64(&r, 0); /* abi none */
	p64(&r, 0); /* stack size 0: no data, no dyn_size */
	end(&r);
	assert_int_equal(tdr_sample__parse_user(&ul, bytes(&r) + 8, bytes(&r) + r.sz, &u), 0);
	assert_int_equal(u.regs_abi, 0);
	assert_null(u.regs);
	assert_null(u.stack);
	assert_int_equal(u.stack_sz, 0);
}

/* ---- the other records ---- */

static void test_records__mmap2_view_and_write(void **state)
{
	uint64_t st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	struct tdr_sample_id sid = {.pid = 7, .tid = 7, .time = 1000, .id = 5};
	struct tdr_sample_id got = {0};
	struct tdr_sid_layout l;
	struct tdr_mmap_rec m, w;
	const struct perf_event_header *h;
	uint8_t out[256];
	struct rec r;
	size_t full;

	(void)state;
	tdr_sid_layout__init(&l, st);
	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	p32(&r, 7);	   /* pid */
	p32(&r, 8);	   /* tid */
	p64(&r, 0x400000); /* addr */
	p64(&r, 0x2000);   /* len */
	p64(&r, 0x1000);   /* pgoff */
	p32(&r, 259);	   /* maj */
	p32(&r, 3);	   /* min */
	p64(&r, 4242);	   /* ino */
	p64(&r, 6);	   /* ino_generation */
	p32(&r, 5);	   /* prot */
	p32(&r, 2);	   /* flags */
	pstr(&r, "/usr/bin/true");
	p32(&r, 7);
	p32(&r, 7);
	p64(&r, 1000);
	p64(&r, 5);
	h = end(&r);
	full = r.sz;

	assert_int_equal(tdr_mmap__parse(h, &m), 0);
	assert_int_equal(m.pid, 7);
	assert_int_equal(m.tid, 8);
	assert_int_equal(m.addr, 0x400000);
	assert_int_equal(m.len, 0x2000);
	assert_int_equal(m.pgoff, 0x1000);
	assert_int_equal(m.maj, 259);
	assert_int_equal(m.min, 3);
	assert_int_equal(m.ino, 4242);
	assert_int_equal(m.ino_generation, 6);
	assert_int_equal(m.prot, 5);
	assert_int_equal(m.flags, 2);
	assert_string_equal(m.filename, "/usr/bin/true");
	assert_int_equal(m.filename_len, 13);
	assert_ptr_equal(m.tail, bytes(&r) + 8 + 64 + 16);
	/* The same 24 bytes as a build-id: size byte, 3 reserved, id. */
	assert_int_equal(m.build_id_sz, 3);
	assert_ptr_equal(m.build_id, bytes(&r) + 8 + 36);
	assert_true(tdr_sample_id__read_tail(&l, h, m.tail, &got));
	assert_int_equal(got.time, 1000);
	assert_int_equal(got.id, 5);
	assert_int_equal(got.pid, 7);

	/* The writer makes the same bytes from the view. */
	w = m;
	assert_int_equal(tdr_mmap2__size(w.filename_len, l.sz), full);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(tdr_mmap2__write(out, PERF_RECORD_MISC_USER, &w, &l, &sid), full);
	assert_memory_equal(out, bytes(&r), full);

	/* Every cut before the name's NUL is rejected; after it, accepted
	 * without a trailer until the trailer is whole. */
	for (size_t n = 8; n < full; n += 8) {
		int err = tdr_mmap__parse(cut(&r, n), &m);

		assert_int_equal(err, n < 8 + 64 + 16 ? -TDR_E_CORRUPT : 0);
		if (!err)
			assert_false(tdr_sample_id__read_tail(&l, cut(&r, n), m.tail, &got));
	}
	/* A name without its NUL. */
	end(&r);
	memset(bytes(&r) + 8 + 64, 'x', 16 + 24);
	assert_int_equal(tdr_mmap__parse(h, &m), -TDR_E_CORRUPT);
	/* Another type. */
	begin(&r, PERF_RECORD_COMM, 0);
	assert_int_equal(tdr_mmap__parse(end(&r), &m), -TDR_E_CORRUPT);
}

static void test_records__mmap_v1_view(void **state)
{
	struct tdr_mmap_rec m;
	struct rec r;

	(void)state;
	begin(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	p32(&r, (uint32_t)-1);
	p32(&r, 0);
	p64(&r, 0xffffffff81000000ull);
	p64(&r, 0x1000000);
	p64(&r, 0);
	pstr(&r, "[kernel.kallsyms]_text");
	assert_int_equal(tdr_mmap__parse(end(&r), &m), 0);
	assert_int_equal(m.addr, 0xffffffff81000000ull);
	assert_int_equal(m.len, 0x1000000);
	assert_int_equal(m.maj, 0);
	assert_string_equal(m.filename, "[kernel.kallsyms]_text");
	assert_int_equal(tdr_mmap__parse(cut(&r, 8 + 32), &m), -TDR_E_CORRUPT);
}

static void test_records__comm_view_and_write(void **state)
{
	struct tdr_sample_id sid = {.cpu = 3, .id = 12};
	struct tdr_sid_layout l;
	struct tdr_comm_rec c;
	uint8_t out[64];
	struct rec r;

	(void)state;
	tdr_sid_layout__init(&l, PERF_SAMPLE_CPU | PERF_SAMPLE_ID);
	begin(&r, PERF_RECORD_COMM, 0);
	p32(&r, 30);
	p32(&r, 31);
	pstr(&r, "worker-thread");
	p64(&r, 12);
	p32(&r, 3);
	p32(&r, 0);
	end(&r);
	assert_int_equal(tdr_comm__parse(end(&r), &c), 0);
	assert_int_equal(c.pid, 30);
	assert_int_equal(c.tid, 31);
	assert_string_equal(c.comm, "worker-thread");
	assert_int_equal(c.comm_len, 13);
	assert_ptr_equal(c.tail, bytes(&r) + 8 + 8 + 16);
	assert_int_equal(tdr_comm__size(13, l.sz), r.sz);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(tdr_comm__write(out, 0, 30, 31, "worker-thread", 13, &l, &sid), r.sz);
	assert_memory_equal(out, bytes(&r), r.sz);
	/* No name at all, or no NUL within the record. */
	assert_int_equal(tdr_comm__parse(cut(&r, 16), &c), -TDR_E_CORRUPT);
	assert_int_equal(tdr_comm__parse(cut(&r, 8), &c), -TDR_E_CORRUPT);
	memset(bytes(&r) + 16, 'x', r.sz - 16);
	assert_int_equal(tdr_comm__parse(end(&r), &c), -TDR_E_CORRUPT);
	/* A name whose padding is left out still parses (synthesized). */
	begin(&r, PERF_RECORD_COMM, 0);
	p32(&r, 1);
	p32(&r, 1);
	memcpy(bytes(&r) + r.sz, "ab\0", 3);
	r.sz += 3;
	assert_int_equal(tdr_comm__parse(end(&r), &c), 0);
	assert_ptr_equal(c.tail, bytes(&r) + r.sz);
}

static void test_records__fixed_views(void **state)
{
	struct tdr_task_rec t;
	struct tdr_lost_rec lo;
	struct tdr_lost_samples_rec ls;
	struct tdr_throttle_rec th;
	struct tdr_ksymbol_rec k;
	struct rec r;

	(void)state;
	begin(&r, PERF_RECORD_FORK, 0);
	p32(&r, 1); /* pid */
	p32(&r, 2); /* ppid */
	p32(&r, 3); /* tid */
	p32(&r, 4); /* ptid */
	p64(&r, 99);
	assert_int_equal(tdr_task__parse(end(&r), &t), 0);
	assert_int_equal(t.pid, 1);
	assert_int_equal(t.ppid, 2);
	assert_int_equal(t.tid, 3);
	assert_int_equal(t.ptid, 4);
	assert_int_equal(t.time, 99);
	assert_ptr_equal(t.tail, bytes(&r) + 32);
	assert_int_equal(tdr_task__parse(cut(&r, 24), &t), -TDR_E_CORRUPT);
	memcpy(bytes(&r), &(uint32_t){PERF_RECORD_EXIT}, 4);
	assert_int_equal(tdr_task__parse(end(&r), &t), 0);
	memcpy(bytes(&r), &(uint32_t){PERF_RECORD_COMM}, 4);
	assert_int_equal(tdr_task__parse(end(&r), &t), -TDR_E_CORRUPT);

	begin(&r, PERF_RECORD_LOST, 0);
	p64(&r, 8);
	p64(&r, 3);
	assert_int_equal(tdr_lost__parse(end(&r), &lo), 0);
	assert_int_equal(lo.id, 8);
	assert_int_equal(lo.lost, 3);
	assert_ptr_equal(lo.tail, bytes(&r) + 24);
	assert_int_equal(tdr_lost__parse(cut(&r, 16), &lo), -TDR_E_CORRUPT);

	begin(&r, PERF_RECORD_LOST_SAMPLES, 0);
	p64(&r, 17);
	assert_int_equal(tdr_lost_samples__parse(end(&r), &ls), 0);
	assert_int_equal(ls.lost, 17);
	assert_int_equal(tdr_lost_samples__parse(cut(&r, 8), &ls), -TDR_E_CORRUPT);

	begin(&r, PERF_RECORD_UNTHROTTLE, 0);
	p64(&r, 1000);
	p64(&r, 6);
	p64(&r, 7);
	assert_int_equal(tdr_throttle__parse(end(&r), &th), 0);
	assert_int_equal(th.time, 1000);
	assert_int_equal(th.id, 6);
	assert_int_equal(th.stream_id, 7);
	assert_int_equal(tdr_throttle__parse(cut(&r, 24), &th), -TDR_E_CORRUPT);

	begin(&r, PERF_RECORD_KSYMBOL, 0);
	p64(&r, 0xffffffffc0001000ull);
	p32(&r, 0x80);
	memcpy(bytes(&r) + r.sz, &(uint16_t){PERF_RECORD_KSYMBOL_TYPE_BPF}, 2);
	memcpy(bytes(&r) + r.sz + 2, &(uint16_t){0}, 2);
	r.sz += 4;
	pstr(&r, "bpf_prog_1234_f");
	assert_int_equal(tdr_ksymbol__parse(end(&r), &k), 0);
	assert_int_equal(k.addr, 0xffffffffc0001000ull);
	assert_int_equal(k.len, 0x80);
	assert_int_equal(k.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	assert_string_equal(k.name, "bpf_prog_1234_f");
	assert_int_equal(k.name_len, 15);
	assert_int_equal(tdr_ksymbol__parse(cut(&r, 24), &k), -TDR_E_CORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_records__walker_size_rules),
	    cmocka_unit_test(test_records__counts),
	    cmocka_unit_test(test_records__sample_id_layouts),
	    cmocka_unit_test(test_records__sample_id_read_and_write),
	    cmocka_unit_test(test_records__sample_layout_offsets),
	    cmocka_unit_test(test_records__sample_view),
	    cmocka_unit_test(test_records__sample_read_and_raw),
	    cmocka_unit_test(test_records__sample_user_stack),
	    cmocka_unit_test(test_records__mmap2_view_and_write),
	    cmocka_unit_test(test_records__mmap_v1_view),
	    cmocka_unit_test(test_records__comm_view_and_write),
	    cmocka_unit_test(test_records__fixed_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
