/*
 * format/format_int.h - private layout constants and helpers of the .tdr format.
 *
 * Responsibility: the byte layout of docs/format.md as constants (offsets,
 * sizes, tags, caps), the CRC32C function, a growable byte buffer with TLV
 * encoders, a bounds-checked TLV cursor, and the metadata / trailer codecs
 * shared by writer.c and reader.c. Nothing here is visible outside format/.
 * See: docs/format.md (normative); section numbers below refer to it.
 */
#ifndef TDREC_FORMAT_INT_H
#define TDREC_FORMAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/format.h"
#include "tdrec/records.h"
#include "tdrec/tdr_log.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
/* Frames hold kernel records as drained (host-endian) and attrs are stored
 * in the kernel's layout: the format is defined for little-endian hosts. */
#error "tdrec's .tdr format supports little-endian hosts only"
#endif

/* Section 2: file header (32 bytes). */
#define TDR_FILE_MAGIC "\x89TDR\r\n\x1a\n"
#define TDR_FILE_HDR_SZ 32
#define TDR_FILE_HDR_MAX_SZ 4096
#define TDR_FH_MAJOR 8
#define TDR_FH_MINOR 10
#define TDR_FH_HDR_SZ 12
#define TDR_FH_FLAGS 16
#define TDR_FH_CRC 28

/* Section 3: block header (24 bytes); payload follows, padded to 8. */
#define TDR_BLOCK_MAGIC 0x4b424454u /* "TDBK" */
#define TDR_BLOCK_HDR_SZ 24
#define TDR_BH_MAGIC 0
#define TDR_BH_TYPE 4
#define TDR_BH_FLAGS 6
#define TDR_BH_PAYLOAD_SZ 8
#define TDR_BH_PAYLOAD_CRC 16
#define TDR_BH_HDR_CRC 20

enum tdr_block_type {
	TDR_BLOCK_METADATA = 1,
	TDR_BLOCK_FRAME = 2,
	TDR_BLOCK_SECTION = 3,
	TDR_BLOCK_TRAILER = 4,
};

/* Section 6: frame header, the first 24 bytes of a FRAME payload. */
#define TDR_FRAME_HDR_SZ 24
#define TDR_FR_CODEC 0
#define TDR_FR_RING 4
#define TDR_FR_RAW_SZ 8
#define TDR_FR_COMP_SZ 12
#define TDR_FR_RECORD_CNT 16
#define TDR_FR_CRC 20
#define TDR_FR_LINK 1 /* codec 2: 3 bytes, the frame's place in its chain */
#define TDR_CODEC_ZSTD 0
#define TDR_CODEC_COLS 1
#define TDR_CODEC_CHAIN 2 /* codec 1 carried across a ring's frames (6.2) */

/* Section 7: section header, the first 8 bytes of a SECTION payload. */
#define TDR_SECTION_HDR_SZ 8

/* Section 9: footer (24 bytes), the last bytes of a cleanly closed file. */
#define TDR_FOOTER_MAGIC "\x89TDE\r\n\x1a\n"
#define TDR_FOOTER_SZ 24
#define TDR_FT_TRAILER_OFF 0
#define TDR_FT_CRC 12
#define TDR_FT_MAGIC 16

/* Section 4: TLV item header: u32 tag, u32 len. */
#define TDR_TLV_HDR_SZ 8

/* Section 5: metadata tags. */
enum tdr_meta_tag {
	TDR_MT_TDREC_VERSION = 1,
	TDR_MT_ARG = 2,
	TDR_MT_HOSTNAME = 3,
	TDR_MT_KERNEL_RELEASE = 4,
	TDR_MT_BOOT_ID = 5,
	TDR_MT_CPU_VENDOR = 6,
	TDR_MT_CPU_MODEL_NAME = 7,
	TDR_MT_CPU_SIG = 8,
	TDR_MT_PAGE_SZ = 9,
	TDR_MT_NR_CPUS = 10,
	TDR_MT_PLAN_NAME = 11,
	TDR_MT_FLAGS = 12,
	TDR_MT_CLOCKID = 13,
	TDR_MT_START_WALL_NS = 14,
	TDR_MT_START_CLOCK_NS = 15,
	TDR_MT_SAMPLE_PERIOD = 16,
	TDR_MT_SAMPLE_FREQ = 17,
	TDR_MT_EVENT = 18,
	TDR_MT_CATEGORY = 19,
	TDR_MT_NOTE = 20,
};

/* Section 5.1: tags inside an EVENT item. */
enum tdr_event_tag {
	TDR_ET_NAME = 1,
	TDR_ET_PMU_NAME = 2,
	TDR_ET_PMU_TYPE = 3,
	TDR_ET_FLAGS = 4,
	TDR_ET_GROUP_IDX = 5,
	TDR_ET_ATTR = 6,
	TDR_ET_IDS = 7,
};

/* Section 5.2: tags inside a CATEGORY item. */
enum tdr_category_tag {
	TDR_CT_NAME = 1,
	TDR_CT_PARENT = 2,
	TDR_CT_LEVEL = 3,
	TDR_CT_FLAGS = 4,
	TDR_CT_NUM = 5,
	TDR_CT_DEN = 6,
	TDR_CT_PART = 7, /* since 1.3: nested TLV of FACTOR items */
	TDR_CT_WPART = 8, /* since 1.5: a PART whose FACTORs may hold WNUM, WDEN */
};

/* Section 5.2: inside a PART item; a FACTOR holds NUM and DEN items
 * (TDR_CT_NUM, TDR_CT_DEN) laid out as in the CATEGORY item, and inside a
 * WPART also WNUM and WDEN items (weighted terms). */
enum tdr_part_tag {
	TDR_PT_FACTOR = 1,
};

/* Section 5.2: inside a FACTOR of a WPART, the weighted terms; each is a
 * nested TLV of one TERM (the NUM layout) and its weight's NUM and DEN. */
enum tdr_factor_tag {
	TDR_FT_WNUM = 7,
	TDR_FT_WDEN = 8,
};
#define TDR_WT_TERM 1
/* The minor version a file whose metadata has a PART item carries. */
#define TDR_FORMAT_MINOR_COLS 2     /* codec 1 frames may follow (section 6.1) */
#define TDR_FORMAT_MINOR_PRODUCTS 3
#define TDR_FORMAT_MINOR_ARCHIVE 4 /* an ARCHIVE section may follow (section 7.2) */
#define TDR_FORMAT_MINOR_WEIGHTED 5 /* a category has WPART items (section 5.2) */

/* Section 8: trailer tags. */
enum tdr_trailer_tag {
	TDR_TT_TOTALS = 1,
	TDR_TT_EVENT_TOTALS = 2,
	TDR_TT_RUN_END = 3,
	TDR_TT_FRAME_INDEX = 4,
	TDR_TT_SECTION_INDEX = 5,
	TDR_TT_COUNTED = 6, /* since 1.2 */
};
#define TDR_TOTALS_SZ 72      /* nine u64 */
#define TDR_RUN_END_SZ 24
#define TDR_FRAME_ENTRY_SZ 32
#define TDR_SECTION_ENTRY_SZ 16
#define TDR_COUNTED_ENTRY_SZ 32
#define TDR_COUNTED_KNOWN 1u /* COUNTED entry flags, bit 0 */
#define TDR_ID_ENTRY_SZ 16
#define TDR_TERM_SZ 16
#define TDR_CPU_SIG_SZ 12

/* Section 10: caps against hostile sizes. */
#define TDR_MAX_META_SZ (16u << 20)
#define TDR_MAX_STR_SZ (64u << 10)
#define TDR_MAX_EVENTS 256
#define TDR_MAX_IDS (1u << 20)
#define TDR_MAX_CATEGORIES 256
#define TDR_MAX_TERMS 256
#define TDR_MAX_STRV 65536 /* argv entries, notes */
#define TDR_MAX_ATTR_SZ 4096
#define TDR_MIN_ATTR_SZ PERF_ATTR_SIZE_VER0
#define TDR_MAX_SECTION_SZ (1u << 30)
#define TDR_MAX_TRAILER_SZ (1ull << 32)

/*
 * The one validation macro of format/ (docs/architecture.md "Conventions"; after zstd's
 * RETURN_ERROR_IF): when cond holds, log file:line and the reason at debug
 * level and return code (a negative error). The caller reports the failure
 * once, with context, at warn level.
 */
#define TDR_BAIL_IF(cond, code, fmt, ...)                                                          \
	do {                                                                                       \
		if (cond) {                                                                        \
			tdr_debug("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__);               \
			return (code);                                                             \
		}                                                                                  \
	} while (0)

static inline uint64_t tdr_align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, initial value and
 * final xor 0xFFFFFFFF). crc is a previous result to continue from, 0 to
 * start: tdr_crc32c(tdr_crc32c(0, a), b) == tdr_crc32c(0, a || b).
 */
uint32_t tdr_crc32c(uint32_t crc, const void *data, size_t sz);

/* A growable output buffer with a sticky error (0, -ENOMEM, -TDR_E_LIMIT). */
struct tdr_buf {
	uint8_t *data;
	size_t sz;
	size_t cap;
	int err;
};

/* Room for n more bytes at the end (sz is advanced), or NULL with b->err set. */
uint8_t *tdr_buf__put(struct tdr_buf *b, size_t n);
void tdr_buf__release(struct tdr_buf *b);
void tdr_buf__tlv(struct tdr_buf *b, uint32_t tag, const void *val, size_t len);
void tdr_buf__tlv_u32(struct tdr_buf *b, uint32_t tag, uint32_t v);
void tdr_buf__tlv_u64(struct tdr_buf *b, uint32_t tag, uint64_t v);
/* A string item: strlen(s) bytes, no NUL. Above TDR_MAX_STR_SZ: -TDR_E_LIMIT. */
void tdr_buf__tlv_str(struct tdr_buf *b, uint32_t tag, const char *s);
/* Open a nested item; returns its position for tdr_buf__tlv_end. */
size_t tdr_buf__tlv_begin(struct tdr_buf *b, uint32_t tag);
void tdr_buf__tlv_end(struct tdr_buf *b, size_t pos);

/* A read cursor over a TLV sequence. */
struct tdr_tlv_iter {
	const uint8_t *data;
	size_t sz;
	size_t pos;
};

/* Next item: 1 with tag/val/len set, 0 at the end, -TDR_E_CORRUPT when an
 * item header or value runs past the end. */
int tdr_tlv__next(struct tdr_tlv_iter *it, uint32_t *tag, const uint8_t **val, size_t *len);

/* Metadata payload (section 5). Encode appends to b (check b->err).
 * Decode fills *meta (zeroed first; cleared again on failure).
 * Returns 0, -ENOMEM, -TDR_E_CORRUPT, -TDR_E_LIMIT. */
void tdr_meta__encode(struct tdr_buf *b, const struct tdr_meta *meta);
/* Whether a category of m uses the product form (PART items, minor 3). */
bool tdr_meta__has_products(const struct tdr_meta *m);
/* Whether a category of m has weighted terms (WPART items, minor 5). */
bool tdr_meta__has_weighted(const struct tdr_meta *m);
int tdr_meta__decode(const uint8_t *data, size_t sz, struct tdr_meta *meta);

/* A section as indexed: the offset of its block and its type. */
struct tdr_section_ent {
	uint64_t offset;
	uint32_t type;
};

/* Trailer payload (section 8). */
struct tdr_trailer {
	struct tdr_totals totals; /* events owned here */
	struct tdr_run_end end;
	bool has_totals, has_end;
	bool has_ev_totals, has_counted; /* EVENT_TOTALS, COUNTED decoded */
	size_t frame_cnt;
	struct tdr_frame_info *frames;
	size_t section_cnt;
	struct tdr_section_ent *sections;
};

void tdr_trailer__encode(struct tdr_buf *b, const struct tdr_trailer *t);
/* Decode a trailer payload into *t (zeroed first). Index entry counts are
 * bounded by the payload size, so allocations never exceed it.
 * Returns 0, -ENOMEM, -TDR_E_CORRUPT, -TDR_E_LIMIT; on failure *t is released. */
int tdr_trailer__decode(const uint8_t *data, size_t sz, struct tdr_trailer *t);
void tdr_trailer__release(struct tdr_trailer *t);

/* Encode a block header for a payload of payload_sz bytes with payload_crc. */
void tdr_block__put_hdr(uint8_t hdr[TDR_BLOCK_HDR_SZ], uint16_t type, uint64_t payload_sz,
			uint32_t payload_crc);
/* Encode a frame header (section 6). */
void tdr_frame__put_hdr(uint8_t hdr[TDR_FRAME_HDR_SZ], const struct tdr_frame_info *fi);

/*
 * Section 6.1: frame codec 1 (columns). See codec_cols.c.
 */
#define TDR_COLS_MAX 64	      /* modelled words of a sample record */
#define TDR_COLS_SLOT_BITS 6 /* 64 contexts */
#define TDR_COLS_STREAMS_MAX (4 + 3 * TDR_COLS_MAX)

/* One context of the model: the previous sample of n words with these key
 * values. */
struct tdr_cols_ctx {
	bool used;
	uint64_t n, k0, k1;
	uint64_t prev[TDR_COLS_MAX];
};

/* The per-frame parameters (the params stream). */
struct tdr_cols_params {
	uint32_t key_cnt;
	uint32_t keys[2];
	uint64_t key_mask;		/* bit j: column j is a key */
	uint32_t pred[TDR_COLS_MAX];	/* 0: none, else predictor column + 1 */
	uint64_t bias[TDR_COLS_MAX];
};

struct tdr_cols_row;

/* Encoder state (one per writer), zero-initialised, reused across frames. */
struct tdr_cols_enc {
	struct tdr_cols_params params;
	struct tdr_cols_row *rows;
	size_t rows_cap;
	uint64_t *delta; /* rows x cols */
	size_t delta_cap;
	uint8_t *scratch; /* the uncompressed streams */
	size_t scratch_cap;
	uint8_t *blk0; /* block 0 before compression */
	size_t blk0_cap;
	uint8_t *out; /* the codec 1 data */
	size_t out_cap;
	struct tdr_cols_ctx *slots;
	int64_t *pick;
	size_t pick_cap;
};
void tdr_cols_enc__release(struct tdr_cols_enc *e);

/*
 * Section 6.2, codec 2: what one ring's chain carries from a frame to the
 * next, encoder side: the model's contexts and last sample, and block 0's
 * zstd stream (one zstd frame for the whole chain, flushed at the end of
 * every codec 2 frame). link is the place of the next frame in the chain;
 * 0 starts a new chain.
 */
struct tdr_cols_chain {
	uint32_t ring;
	uint32_t link;
	uint64_t raw;	/* raw bytes encoded in the current chain */
	int level;	/* zstd level of block 0's stream */
	size_t last_m;
	uint64_t last[TDR_COLS_MAX];
	struct tdr_cols_ctx slots[1u << TDR_COLS_SLOT_BITS];
	void *zc; /* ZSTD_CCtx of block 0's stream */
};
void tdr_cols_chain__release(struct tdr_cols_chain *ch);

/*
 * Encode the sz raw bytes of record_cnt whole records (already checked to
 * tile) as codec 1 data, with the given key columns (at most 2 used).
 * zcctx is a ZSTD_CCtx with its level set. *out (owned by e, valid until the
 * next call) and *out_sz receive the data.
 * Returns: 0, 1 when the frame has no sample to model (use codec 0),
 * -ENOMEM, -TDR_E_ZSTD.
 */
int tdr_cols__encode(struct tdr_cols_enc *e, const uint8_t *raw, size_t sz, size_t record_cnt,
		     const uint32_t *keys, size_t key_cnt, void *zcctx, const uint8_t **out,
		     size_t *out_sz);
/*
 * The same as a codec 2 frame of the chain ch (section 6.2): the model
 * starts from ch's state unless ch->link is 0, block 0 continues ch's zstd
 * stream. On success ch holds the state after this frame and *link the
 * frame's link (ch->link is advanced); on failure ch->link is 0, so the
 * next frame starts a new chain.
 */
int tdr_cols__encode_chained(struct tdr_cols_enc *e, struct tdr_cols_chain *ch, const uint8_t *raw,
			     size_t sz, size_t record_cnt, const uint32_t *keys, size_t key_cnt,
			     void *zcctx, const uint8_t **out, size_t *out_sz, uint32_t *link);
/* A chain restarts after this many frames or raw bytes, so a damaged frame
 * costs at most the rest of its chain (section 6.2). */
#define TDR_CHAIN_MAX_FRAMES 32
#define TDR_CHAIN_MAX_RAW (8u << 20)
/* Window of block 0's chained zstd stream: bounds a reader's memory per
 * ring. */
#define TDR_CHAIN_WINDOW_LOG 14

/* A context as the decoder keeps it: where its previous sample's words are
 * (in the output, or in the chain's copy for a context carried over). */
struct tdr_cols_dslot {
	bool used;
	uint64_t n, k0, k1;
	const uint8_t *prev;
};

/* Decoder state (one per struct tdr_frame_buf, allocated on first use). */
struct tdr_cols_dec {
	uint8_t *blk0; /* block 0, decompressed */
	size_t blk0_cap;
	uint8_t *scratch; /* the streams compressed on their own, decompressed */
	size_t scratch_cap;
	struct tdr_cols_dslot slots[1u << TDR_COLS_SLOT_BITS];
};
void tdr_cols_dec__release(struct tdr_cols_dec *d);

/* Section 6.2, decoder side: what a ring's chain carries, after the frame
 * of link `link` was decoded (live), or nothing (not live). */
struct tdr_cols_dchain {
	bool live;
	uint32_t link;
	size_t last_m;
	uint64_t last[TDR_COLS_MAX];
	struct {
		bool used;
		uint64_t n, k0, k1;
		uint64_t w[TDR_COLS_MAX]; /* min(n, TDR_COLS_MAX) words */
	} slots[1u << TDR_COLS_SLOT_BITS];
	void *zd; /* ZSTD_DCtx of block 0's stream */
};
void tdr_cols_dchain__release(struct tdr_cols_dchain *ch);

/*
 * Decode src_sz bytes of codec 1 data into exactly raw_sz bytes at dst
 * holding record_cnt records. *decp is created on first use. zdctx is a
 * ZSTD_DCtx. With ch (codec 2, section 6.2), the frame of link `link`
 * continues ch (which must be live with link - 1, unless link is 0); on
 * success ch holds the state after it, on failure it is not live.
 * Returns: 0, -TDR_E_CORRUPT, -TDR_E_ZSTD, -ENOMEM.
 */
int tdr_cols__decode(struct tdr_cols_dec **decp, void *zdctx, const uint8_t *src, size_t src_sz,
		     uint8_t *dst, uint32_t raw_sz, uint32_t record_cnt);
int tdr_cols__decode_chained(struct tdr_cols_dec **decp, struct tdr_cols_dchain *ch, uint32_t link,
			     void *zdctx, const uint8_t *src, size_t src_sz, uint8_t *dst,
			     uint32_t raw_sz, uint32_t record_cnt);

/* Largest codec 1 data for raw_sz raw bytes (section 10). */
static inline uint64_t tdr_cols__max_comp(uint64_t raw_sz)
{
	return raw_sz + raw_sz / 4 + 16384;
}

/* ---------------------------------------------------------------------------
 * Used inside the module and by its tests only (no other module calls these).
 */
/* Read the trailer from its first byte p (l->sz bytes readable); sets the
 * fields l has and their TDR_SID_* bits in out->have (others untouched). */
void tdr_sample_id__read(const struct tdr_sid_layout *l, const uint8_t *p,
			 struct tdr_sample_id *out);

/* Write the trailer at p (l->sz bytes) from sid (every field l has, whatever
 * sid->have says; CPU's res word is 0). Returns l->sz. */
size_t tdr_sample_id__write(const struct tdr_sid_layout *l, uint8_t *p,
			    const struct tdr_sample_id *sid);

/* PERF_RECORD_KSYMBOL's body into k (layout in tdrec/records.h). */
int tdr_ksymbol__parse(const struct perf_event_header *h, struct tdr_ksymbol_rec *k);

/* Index of the event named name in meta (first match), or -1. */
int tdr_meta__event_idx(const struct tdr_meta *meta, const char *name);

/* tdr_reader__open on a file held in memory (borrowed, must outlive the
 * reader). For fuzzing and tests. */
int tdr_reader__open_mem(const void *data, size_t sz, struct tdr_reader **out);

#endif /* TDREC_FORMAT_INT_H */
