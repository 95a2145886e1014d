/*
 * tests/fuzz/fuzz_decode.c - libFuzzer target for the parser's record decoder.
 *
 * The input is a stream of records fed to a parser whose meta has one
 * sampling-read group in the layout the recorder uses plus one plain event
 * with CALLCHAIN and RAW, or (first byte, bit 2) one group in perf record's
 * layout (ids by position, no IDENTIFIER); the first byte also picks the
 * ring and system-wide keying, and (bit 4) gives the plain event a branch
 * stack (bit 5: an LBR call stack) and a user stack copy (--call-graph
 * dwarf, lbr), read by an unwinder that touches every register and stack
 * byte it is given. Every record, however
 * hostile, must be decoded, counted as malformed or skipped: never a crash
 * or a sanitizer report.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add_event(struct tdr_meta *m, const char *name, const struct perf_event_attr *a,
		      uint32_t flags, uint32_t group, uint64_t id)
{
	struct tdr_event_desc *ev = &m->events[m->event_cnt++];

	memset(ev, 0, sizeof(*ev));
	ev->name = strdup(name);
	ev->attr = *a;
	ev->flags = flags;
	ev->group_idx = group;
	ev->id_cnt = 1;
	ev->ids = calloc(1, sizeof(*ev->ids));
	ev->ids[0].id = id;
	ev->ids[0].cpu = 0;
	ev->ids[0].pid = 1;
}

static int cb(const struct tdr_sample *s, void *ctx)
{
	(void)ctx;
	/* touch what a consumer reads */
	return s->deltas[0] == 0x5a5a5a5a5a5a5a5aULL && s->comm[0] == 'x' ? 1 : 0;
}

/* Reads all it is given: a sanitizer sees any byte outside the record. */
static int unwind(void *ctx, const struct tdr_sample *s, const struct tdr_user_stack *u,
		  uint64_t *pcs, uint32_t max)
{
	uint64_t sum = 0, v;

	(void)ctx;
	for (int i = 0; i < __builtin_popcountll(u->mask); i++) {
		memcpy(&v, u->regs + 8 * i, 8);
		sum += v;
	}
	for (uint64_t i = 0; i < u->stack_sz; i++)
		sum += u->stack[i];
	pcs[0] = s->ip;
	if (max > 1)
		pcs[1] = sum;
	return max > 1 ? 2 : 1;
}

/* tdrec's layout: IDENTIFIER first, a group with times, and a plain event
 * with CALLCHAIN and RAW (a layout of its own; with user_stack also
 * BRANCH_STACK with its hw_idx, REGS_USER of three registers and
 * STACK_USER). */
static void tdrec_layout(struct tdr_meta *m, bool user_stack, bool lbr, bool exact)
{
	struct perf_event_attr a = { 0 }, b;

	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
	/* Without them, the group's samples have the layout tdrec records
	 * (plan/plan.c), which the decoder reads its short way. */
	if (!exact)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST;
	a.sample_id_all = 1;
	b = a;
	add_event(m, "slots", &b, 1, 0, 1);
	b.sample_period = 1000;
	add_event(m, "cycles", &b, 2, 0, 2);
	b.sample_period = 0;
	add_event(m, "topdown-retiring", &b, 0, 0, 3);
	b.read_format = PERF_FORMAT_ID;
	b.sample_period = 10;
	if (user_stack) {
		b.sample_type |= PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		b.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX |
				       (lbr ? PERF_SAMPLE_BRANCH_CALL_STACK : 0);
		b.sample_regs_user = 0x181;
		b.sample_stack_user = 64;
	}
	add_event(m, "plain", &b, 3, 1, 4);
}

/* perf record's layout for a ':S' group: no IDENTIFIER (ids found at
 * id_pos / is_pos), no times in the read, PERF_FORMAT_LOST; every event the
 * same layout. */
static void perf_layout(struct tdr_meta *m)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_READ |
			PERF_SAMPLE_ID;
	a.read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	a.sample_id_all = 1;
	add_event(m, "slots", &a, 1, 0, 1);
	a.sample_period = 1000;
	add_event(m, "cycles", &a, 2, 0, 2);
	a.sample_period = 0;
	add_event(m, "topdown-retiring", &a, 0, 0, 3);
	add_event(m, "topdown-bad-spec", &a, 0, 0, 4);
}

/* The first byte: bits 0-1 the ring, bit 2 perf's layout, bit 3 system-wide,
 * bit 4 a user stack copy on the plain event, bit 5 its branch stack an LBR
 * call stack, bit 6 the group without CALLCHAIN and RAW (the layout tdrec
 * records, read by the decoder's short way, parser/decode.c decode_fast). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdr_meta m = { 0 };
	struct tdr_parser *p = NULL;
	uint64_t *buf;
	size_t pos = 0;
	uint32_t ring;

	if (size < 1)
		return 0;
	ring = data[0] & 3;
	m.events = calloc(4, sizeof(*m.events));
	if (!m.events)
		return 0;
	if (data[0] & 4)
		perf_layout(&m);
	else
		tdrec_layout(&m, data[0] & 16, data[0] & 32, data[0] & 64);
	if (data[0] & 8)
		m.flags |= TDR_META_SYSTEM_WIDE;
	data++;
	size--;
	if (tdr_parser__new(&m, &p))
		goto out;
	tdr_parser__set_unwinder(p, unwind, NULL);
	/* records are 8-byte aligned in rings and frames: copy to an aligned buffer */
	buf = calloc(size / 8 + 2, 8);
	if (!buf)
		goto out;
	memcpy(buf, data, size);
	while (size - pos >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)((uint8_t *)buf + pos);
		size_t sz = h->size;

		if (sz < sizeof(*h) || sz > size - pos)
			break;
		tdr_parser__feed(p, ring, h, cb, NULL);
		pos += (sz + 7) & ~(size_t)7;
	}
	free(buf);
out:
	tdr_parser__free(p);
	tdr_meta__clear(&m);
	return 0;
}
