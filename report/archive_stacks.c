/*
 * report/archive_stacks.c - the unwound user stacks of a --call-graph
 * dwarf recording, for the ARCHIVE section's stacks part (docs/format.md
 * 7.2, "Stacks").
 *
 * Responsibility: keep each distinct unwound stack once (its pcs, and the
 * archive addresses its frames were keyed by), and per sample its place in
 * the file; after the addresses were resolved, hand the builder the stacks
 * whose every frame's address was archived. A stack through an object that
 * was missing or changed when the archive was made (then unwound with
 * other CFI, or not at all) is left out, as that object's addresses are:
 * a later report unwinds such a sample itself. A stack without a caller
 * (only the user pc) is left out too: it gives no row a live unwind could
 * not, and an unwind that stopped for want of a file may go further later.
 * What it does not do: unwind (the parser's unwinder gives the pcs), or
 * encode (format/archive_stacks.c).
 */
#include "report_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_mem.h"

struct skey {
	const uint64_t *pcs;
	const uint32_t *ents;
	uint32_t cnt, ent_cnt;
};

static uint64_t skey_hash(const struct skey *k)
{
	uint64_t h = k->cnt;

	for (uint32_t i = 0; i < k->cnt; i++)
		h = tdr_hash_combine(h, k->pcs[i]);
	for (uint32_t i = 0; i < k->ent_cnt; i++)
		h = tdr_hash_combine(h, k->ents[i]);
	return h;
}

static uint64_t stk_hash(const void *ctx, uint32_t idx)
{
	return ((const struct tdr_report_archiver *)ctx)->stks[idx].hash;
}

/* The same pcs through the same archive addresses (the same pcs in
 * another process may be other objects). */
static bool stk_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_report_archiver *a = ctx;
	const struct tdr_report_arch_stack *t = &a->stks[idx];
	const struct skey *k = key;

	return t->cnt == k->cnt && t->ent_cnt == k->ent_cnt &&
	       !memcmp(a->spcs + t->first_pc, k->pcs, k->cnt * sizeof(*k->pcs)) &&
	       !memcmp(a->sents + t->first_ent, k->ents, k->ent_cnt * sizeof(*k->ents));
}

int tdr_report_archiver__add_stack(struct tdr_report_archiver *a, const struct tdr_sample *s,
				   const struct tdr_sample_stack *st, uint64_t frame,
				   uint32_t ord)
{
	uint32_t user, first;
	struct skey k;
	uint32_t idx;
	size_t pos;

	if (st->cnt < 2 || st->cnt > TDR_ARCHIVE_MAX_STACK)
		return 0;
	/* The user frames are the sample's last ones (after the kernel's),
	 * and the sample itself when it was taken in user mode: a->cur holds
	 * the ip's address, then each frame's. */
	user = s->cpumode == TDR_MODE_USER ? st->cnt - 1 : st->cnt;
	if (user > s->frame_cnt || a->cur_cnt != s->frame_cnt + 1)
		return 0; /* not the frames the stack gave: nothing to key it by */
	first = 1 + s->frame_cnt - user;
	k = (struct skey){.pcs = st->pcs, .cnt = st->cnt, .ents = a->cur + first,
			  .ent_cnt = user};
	if (s->cpumode == TDR_MODE_USER) {
		k.ents = a->cur + first - 1;
		k.ent_cnt = user + 1;
	}
	if (tdr_hmap__reserve(&a->sindex, 1024, stk_hash, a))
		return -ENOMEM;
	idx = tdr_hmap__find(&a->sindex, skey_hash(&k), stk_eq, a, &k, &pos);
	if (idx == TDR_HMAP_NONE) {
		if (tdr_ensure_cap(&a->stks, &a->stk_cap, sizeof(*a->stks), a->stk_cnt + 1) ||
		    tdr_ensure_cap(&a->spcs, &a->spc_cap, sizeof(*a->spcs), a->spc_cnt + k.cnt) ||
		    tdr_ensure_cap(&a->sents, &a->sent_cap, sizeof(*a->sents),
				   a->sent_cnt + k.ent_cnt))
			return -ENOMEM;
		memcpy(a->spcs + a->spc_cnt, k.pcs, k.cnt * sizeof(*k.pcs));
		memcpy(a->sents + a->sent_cnt, k.ents, k.ent_cnt * sizeof(*k.ents));
		a->stks[a->stk_cnt++] = (struct tdr_report_arch_stack){
		    .first_pc = a->spc_cnt, .first_ent = a->sent_cnt, .cnt = k.cnt,
		    .ent_cnt = k.ent_cnt, .hash = skey_hash(&k)};
		a->spc_cnt += k.cnt;
		a->sent_cnt += k.ent_cnt;
		idx = tdr_hmap__add(&a->sindex, pos);
	}
	if (tdr_ensure_cap(&a->uses, &a->use_cap, sizeof(*a->uses), a->use_cnt + 1))
		return -ENOMEM;
	a->uses[a->use_cnt++] = (struct tdr_report_arch_use){.frame = frame, .ord = ord,
							     .stack = idx};
	return 0;
}

/* Every frame of the stack was answered by the archive (frames without an
 * object to archive, anonymous memory, need no answer). */
static bool stack_archived(const struct tdr_report_archiver *a,
			   const struct tdr_report_arch_stack *t)
{
	for (uint32_t i = 0; i < t->ent_cnt; i++) {
		uint32_t e = a->sents[t->first_ent + i];

		if (e != UINT32_MAX && !a->ents[e].kept)
			return false;
	}
	return true;
}

int tdr_report_archiver__stacks(struct tdr_report_archiver *a, struct tdr_archive_builder *b,
				uint64_t frame_cnt, struct tdr_archive_summary *sum)
{
	if (!a->use_cnt)
		return 0;
	tdr_archive_builder__set_frames(b, frame_cnt);
	for (size_t i = 0; i < a->use_cnt; i++) {
		const struct tdr_report_arch_use *u = &a->uses[i];
		const struct tdr_report_arch_stack *t = &a->stks[u->stack];
		int err;

		if (u->frame >= frame_cnt || !stack_archived(a, t)) {
			sum->stacks_left++;
			continue;
		}
		err = tdr_archive_builder__stack(b, u->frame, u->ord, a->spcs + t->first_pc,
						 t->cnt);
		if (err)
			return err;
		sum->stack_samples++;
	}
	sum->stacks = tdr_archive_builder__stack_cnt(b);
	return 0;
}
