/*
 * format/archive_int.h - what the ARCHIVE section's encoder and decoder
 * share (docs/format.md section 7.2): the data header and its fields, and
 * the stacks part (archive_stacks.c) both sides use. Varints are those of
 * codec 1 (codec_cols_int.h).
 */
#ifndef TDR_ARCHIVE_INT_H
#define TDR_ARCHIVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_hmap.h"

#define TDR_ARCHIVE_HDR_SZ 8 /* u32 raw_sz, u8 method, 3 reserved */
#define TDR_ARCHIVE_OFF_RAW_SZ 0
#define TDR_ARCHIVE_OFF_METHOD 4
#define TDR_ARCHIVE_STORED 0
#define TDR_ARCHIVE_ZSTD 1

struct tdr_buf;

/* ---- the stacks part, building side ---- */
struct arch_stack {
	size_t first;  /* its pcs: pcs[first .. first + cnt - 1] */
	uint32_t cnt;
	uint32_t num; /* its number in the encoded table (set at encode) */
	uint64_t hash;
};

struct arch_use {
	uint64_t frame;
	uint32_t ord, stack;
	size_t seq; /* order added: a position given twice keeps its first */
};

struct arch_stacks_b {
	bool on; /* __set_frames was called: the body gets a stacks part */
	uint64_t frame_cnt;
	uint64_t *pcs;
	size_t pc_cnt, pc_cap;
	struct arch_stack *stk;
	size_t stk_cnt, stk_cap;
	struct tdr_hmap index; /* pcs -> stack */
	struct arch_use *use;
	size_t use_cnt, use_cap;
};

int tdr_archive_stacks_b__add(struct arch_stacks_b *s, uint64_t frame, uint32_t ord,
			      const uint64_t *pcs, uint32_t cnt);
/* The stacks part, appended to out (nothing when !s->on). Returns 0 or -ENOMEM. */
int tdr_archive_stacks_b__encode(struct arch_stacks_b *s, struct tdr_buf *out);
void tdr_archive_stacks_b__fini(struct arch_stacks_b *s);

/* ---- the stacks part, reading side ---- */
struct arch_stacks_d {
	bool present;
	uint64_t *pcs;	    /* every stack's pcs */
	uint32_t *stk_first; /* stack i: pcs[stk_first[i] .. stk_first[i + 1]) */
	size_t stk_cnt;
	uint64_t frame_cnt;
	uint32_t *frame_first; /* frame f: ent[frame_first[f] .. frame_first[f + 1]) */
	uint32_t *ent;	       /* per sample record: 0, or stack number + 1 */
	uint64_t samples;      /* entries that name a stack */
};

/* The stacks part from [*p, end) (the rest of the body), checked whole.
 * Returns 0, -TDR_E_CORRUPT or -ENOMEM. */
int tdr_archive_stacks_d__load(struct arch_stacks_d *s, const uint8_t **p, const uint8_t *end);
void tdr_archive_stacks_d__fini(struct arch_stacks_d *s);

#endif /* TDR_ARCHIVE_INT_H */
