/*
 * format/archive_stacks.c - the stacks part of the ARCHIVE section: the
 * unwound user stacks of a --call-graph dwarf recording (docs/format.md
 * section 7.2, "Stacks").
 *
 * Responsibility: both ways of the part that follows the last answer. The
 * builder keeps each distinct stack (its program counters, innermost
 * first) once, and per sample record (frame index, ordinal of the
 * PERF_RECORD_SAMPLE records in that frame) the stack it had; encoding
 * sorts the uses by position, numbers the stacks in order of first use and
 * writes the table (first pc, then zigzag deltas) and, per frame of the
 * file, the stack of each sample record. The decoder checks the part whole
 * (two passes, tables allocated at their exact sizes) and answers lookups
 * by position.
 * Why per position and not per (pid, tid, time): a sample's position in
 * the file costs one small varint (its stack number, most of them repeats
 * zstd folds), where a time key costs several bytes a sample, and the same
 * time can occur twice in a thread (docs/performance.md "Archiving").
 * What it does not do: unwind, or decide which stacks to keep (report/).
 */
#include "archive_int.h"
#include "codec_cols_int.h"
#include "format_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_mem.h"

/* ---- building ---- */

struct pkey {
	const uint64_t *pcs;
	uint32_t cnt;
};

static uint64_t pcs_hash(const uint64_t *pcs, uint32_t cnt)
{
	uint64_t h = cnt;

	for (uint32_t i = 0; i < cnt; i++)
		h = tdr_hash_combine(h, pcs[i]);
	return h;
}

static uint64_t stk_hash(const void *ctx, uint32_t idx)
{
	return ((const struct arch_stacks_b *)ctx)->stk[idx].hash;
}

static bool stk_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct arch_stacks_b *s = ctx;
	const struct pkey *k = key;

	return s->stk[idx].cnt == k->cnt &&
	       !memcmp(s->pcs + s->stk[idx].first, k->pcs, k->cnt * sizeof(*k->pcs));
}

int tdr_archive_stacks_b__add(struct arch_stacks_b *s, uint64_t frame, uint32_t ord,
			      const uint64_t *pcs, uint32_t cnt)
{
	const struct pkey k = {.pcs = pcs, .cnt = cnt};
	uint64_t h = pcs_hash(pcs, cnt);
	uint32_t idx;
	size_t pos;

	if (tdr_hmap__reserve(&s->index, 1024, stk_hash, s))
		return -ENOMEM;
	idx = tdr_hmap__find(&s->index, h, stk_eq, s, &k, &pos);
	if (idx == TDR_HMAP_NONE) {
		if (tdr_ensure_cap(&s->stk, &s->stk_cap, sizeof(*s->stk), s->stk_cnt + 1) ||
		    tdr_ensure_cap(&s->pcs, &s->pc_cap, sizeof(*s->pcs), s->pc_cnt + cnt))
			return -ENOMEM;
		memcpy(s->pcs + s->pc_cnt, pcs, cnt * sizeof(*pcs));
		s->stk[s->stk_cnt++] = (struct arch_stack){.first = s->pc_cnt, .cnt = cnt, .hash = h};
		s->pc_cnt += cnt;
		idx = tdr_hmap__add(&s->index, pos);
	}
	if (tdr_ensure_cap(&s->use, &s->use_cap, sizeof(*s->use), s->use_cnt + 1))
		return -ENOMEM;
	s->use[s->use_cnt] = (struct arch_use){.frame = frame, .ord = ord, .stack = idx,
					       .seq = s->use_cnt};
	s->use_cnt++;
	return 0;
}

static int use_cmp(const void *pa, const void *pb)
{
	const struct arch_use *a = pa, *b = pb;

	if (a->frame != b->frame)
		return a->frame < b->frame ? -1 : 1;
	if (a->ord != b->ord)
		return a->ord < b->ord ? -1 : 1;
	/* the same position twice: the first added comes first, and is kept */
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void put_v(struct tdr_buf *out, uint64_t v)
{
	uint8_t *p = tdr_buf__put(out, varint_len(v));

	if (p)
		put_varint(p, v);
}

int tdr_archive_stacks_b__encode(struct arch_stacks_b *s, struct tdr_buf *out)
{
	const uint32_t unset = UINT32_MAX;
	uint32_t *order = NULL;
	uint32_t next = 0;
	size_t u = 0;

	if (!s->on)
		return 0;
	qsort(s->use, s->use_cnt, sizeof(*s->use), use_cmp);
	order = tdr_malloc((s->stk_cnt + 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	/* Numbers in order of first use, so the bytes depend on the contents. */
	for (size_t i = 0; i < s->stk_cnt; i++)
		s->stk[i].num = unset;
	for (size_t i = 0; i < s->use_cnt; i++) {
		struct arch_stack *k = &s->stk[s->use[i].stack];

		if (i && s->use[i].frame == s->use[i - 1].frame && s->use[i].ord == s->use[i - 1].ord)
			continue; /* a position given twice keeps its first */
		if (k->num == unset) {
			k->num = next;
			order[next++] = s->use[i].stack;
		}
	}
	put_v(out, next);
	for (uint32_t n = 0; n < next; n++) {
		const struct arch_stack *k = &s->stk[order[n]];
		const uint64_t *pc = s->pcs + k->first;

		put_v(out, k->cnt);
		put_v(out, pc[0]);
		for (uint32_t j = 1; j < k->cnt; j++)
			put_v(out, zz(pc[j] - pc[j - 1]));
	}
	put_v(out, s->frame_cnt);
	for (uint64_t f = 0; f < s->frame_cnt; f++) {
		size_t end = u;
		uint32_t n = 0, at = 0;

		while (end < s->use_cnt && s->use[end].frame == f)
			end++;
		if (end > u)
			n = s->use[end - 1].ord + 1;
		put_v(out, n);
		for (size_t i = u; i < end; i++) {
			if (i > u && s->use[i].ord == s->use[i - 1].ord)
				continue; /* a position given twice keeps its first */
			for (; at < s->use[i].ord; at++)
				put_v(out, 0);
			put_v(out, (uint64_t)s->stk[s->use[i].stack].num + 1);
			at++;
		}
		u = end;
	}
	free(order);
	return out->err;
}

void tdr_archive_stacks_b__fini(struct arch_stacks_b *s)
{
	free(s->pcs);
	free(s->stk);
	free(s->use);
	tdr_hmap__fini(&s->index);
	memset(s, 0, sizeof(*s));
}

/* ---- reading ---- */

/* Pass 1 (fill false) checks and counts; pass 2 fills the tables. */
static int walk(struct arch_stacks_d *s, const uint8_t **pp, const uint8_t *end, bool fill,
		uint64_t *pc_total, uint64_t *ent_total)
{
	const uint8_t *p = *pp;
	uint64_t cnt, n, v, pcs = 0, ents = 0;

	if (get_varint(&p, end, &cnt) || cnt > (uint64_t)(end - p) / 2)
		return -1;
	for (uint64_t i = 0; i < cnt; i++) {
		uint64_t pc;

		if (get_varint(&p, end, &n) || n == 0 || n > TDR_ARCHIVE_MAX_STACK ||
		    get_varint(&p, end, &pc))
			return -1;
		if (fill) {
			s->stk_first[i] = (uint32_t)pcs;
			s->pcs[pcs] = pc;
		}
		for (uint64_t j = 1; j < n; j++) {
			if (get_varint(&p, end, &v))
				return -1;
			pc += unzz(v); /* modulo 2^64, as written */
			if (fill)
				s->pcs[pcs + j] = pc;
		}
		pcs += n;
	}
	if (get_varint(&p, end, &s->frame_cnt) || s->frame_cnt > (uint64_t)(end - p))
		return -1;
	for (uint64_t f = 0; f < s->frame_cnt; f++) {
		if (get_varint(&p, end, &n) || n > (uint64_t)(end - p))
			return -1;
		if (fill)
			s->frame_first[f] = (uint32_t)ents;
		for (uint64_t j = 0; j < n; j++) {
			if (get_varint(&p, end, &v) || v > cnt)
				return -1;
			if (fill) {
				s->ent[ents + j] = (uint32_t)v;
				s->samples += v != 0;
			}
		}
		ents += n;
	}
	if (p != end)
		return -1;
	if (fill) {
		s->stk_first[cnt] = (uint32_t)pcs;
		s->frame_first[s->frame_cnt] = (uint32_t)ents;
	}
	s->stk_cnt = cnt;
	*pc_total = pcs;
	*ent_total = ents;
	*pp = p;
	return 0;
}

int tdr_archive_stacks_d__load(struct arch_stacks_d *s, const uint8_t **p, const uint8_t *end)
{
	const uint8_t *start = *p;
	uint64_t pcs, ents;

	if (walk(s, p, end, false, &pcs, &ents))
		return -TDR_E_CORRUPT;
	/* Every pc and entry took at least a byte of the body: bounded by it. */
	s->pcs = tdr_malloc((pcs + 1) * sizeof(*s->pcs));
	s->stk_first = tdr_malloc((s->stk_cnt + 1) * sizeof(*s->stk_first));
	s->frame_first = tdr_malloc((s->frame_cnt + 1) * sizeof(*s->frame_first));
	s->ent = tdr_malloc((ents + 1) * sizeof(*s->ent));
	if (!s->pcs || !s->stk_first || !s->frame_first || !s->ent)
		return -ENOMEM;
	*p = start;
	if (walk(s, p, end, true, &pcs, &ents))
		return -TDR_E_CORRUPT; /* cannot happen: checked above */
	s->present = true;
	return 0;
}

void tdr_archive_stacks_d__fini(struct arch_stacks_d *s)
{
	free(s->pcs);
	free(s->stk_first);
	free(s->frame_first);
	free(s->ent);
	memset(s, 0, sizeof(*s));
}
