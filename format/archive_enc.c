/*
 * format/archive_enc.c - the ARCHIVE section's builder and encoder
 * (docs/format.md section 7.2).
 *
 * Responsibility: keep what the archiver hands over (objects, and per
 * object the answer at each offset, strings interned), and lay it out as
 * section 7.2 says: a string table in order of first use, objects sorted by
 * kind, path and build-id, each object's offsets ascending and
 * delta-coded, everything in varints; the body compressed with zstd when
 * that is smaller. Sorting at the end makes the bytes depend on the
 * contents only, not on the order samples came in.
 * What it does not do: symbolize, or check what the decoder checks beyond
 * what the format cannot hold (the builder refuses that at __dso / __add).
 * Objects and lifecycle: see tdrec/archive.h.
 */
#include "archive_int.h"
#include "codec_cols_int.h"
#include "format_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tdrec/archive.h"
#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_mem.h"


#include "tdrec/tdr_log.h"

struct bdso {
	const char *path; /* interned */
	uint32_t path_ref; /* its string reference (below) */
	uint8_t kind, build_id_sz;
	uint8_t build_id[TDR_ARCHIVE_BUILD_ID_MAX];
	uint32_t idx; /* index given to the caller (objects are sorted at encode) */
};

/* A string as the builder keeps it: 0 for none, else its interning index
 * + 1 (the encoder numbers strings again, in order of first use). */
typedef uint32_t str_ref_t;

struct bframe {
	str_ref_t function, call_file;
	uint32_t call_line, call_column;
};

/* struct tdr_archive_sym with the strings as references. */
struct bsym {
	uint8_t status;
	str_ref_t function, file;
	uint32_t line, column, inline_cnt;
	uint64_t function_offset, function_size;
	struct bframe *inlines; /* in the arena */
};

struct bent {
	uint64_t off;
	uint32_t dso; /* caller's index */
	uint64_t hash;
	struct bsym sym;
};

struct tdr_archive_builder {
	struct tdr_intern strs;
	struct tdr_arena mem;
	struct bdso *dsos;
	size_t dso_cnt, dso_cap;
	struct bent *ents;
	size_t ent_cnt, ent_cap;
	struct tdr_hmap index; /* (dso, off) -> entry */
	struct arch_stacks_b stacks;
	/* Strings given lately, by their address: a symbolizer hands the same
	 * name and file over address after address. A hit still compares the
	 * bytes, so a caller reusing a buffer gets its new string. */
	struct {
		const char *given;
		str_ref_t ref;
	} memo[256];
};

int tdr_archive_builder__new(struct tdr_archive_builder **out)
{
	struct tdr_archive_builder *b = tdr_calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	*out = b;
	return 0;
}

void tdr_archive_builder__free(struct tdr_archive_builder *b)
{
	if (!b)
		return;
	tdr_intern__fini(&b->strs);
	tdr_arena__fini(&b->mem);
	free(b->dsos);
	free(b->ents);
	tdr_hmap__fini(&b->index);
	tdr_archive_stacks_b__fini(&b->stacks);
	free(b);
}

size_t tdr_archive_builder__cnt(const struct tdr_archive_builder *b)
{
	return b->ent_cnt;
}

size_t tdr_archive_builder__dso_cnt(const struct tdr_archive_builder *b)
{
	return b->dso_cnt;
}

void tdr_archive_builder__set_frames(struct tdr_archive_builder *b, uint64_t frame_cnt)
{
	b->stacks.on = true;
	b->stacks.frame_cnt = frame_cnt;
}

int tdr_archive_builder__stack(struct tdr_archive_builder *b, uint64_t frame, uint32_t ord,
			       const uint64_t *pcs, uint32_t cnt)
{
	if (!b->stacks.on || frame >= b->stacks.frame_cnt || !cnt ||
	    cnt > TDR_ARCHIVE_MAX_STACK || !pcs)
		return -EINVAL;
	return tdr_archive_stacks_b__add(&b->stacks, frame, ord, pcs, cnt);
}

size_t tdr_archive_builder__stack_cnt(const struct tdr_archive_builder *b)
{
	return b->stacks.stk_cnt;
}

void tdr_archive_builder__drop_stacks(struct tdr_archive_builder *b)
{
	tdr_archive_stacks_b__fini(&b->stacks);
}

static const char *ref_str(const struct tdr_archive_builder *b, str_ref_t r)
{
	return tdr_intern__at(&b->strs, r - 1);
}

/* The reference of s, interned; 0 for NULL and "" (the format has no empty
 * strings: absent means unknown). Sets *err on failure: -EINVAL for a
 * string longer than the format holds (measured only when s is new: a
 * string the memo knows was measured when it was interned). */
static str_ref_t intern(struct tdr_archive_builder *b, const char *s, int *err)
{
	size_t slot, n;
	uint32_t i;

	if (!s || !*s)
		return 0;
	slot = ((uintptr_t)s >> 3) % (sizeof(b->memo) / sizeof(b->memo[0]));
	if (b->memo[slot].given == s && !strcmp(ref_str(b, b->memo[slot].ref), s))
		return b->memo[slot].ref;
	n = strlen(s);
	if (n > TDR_ARCHIVE_STR_MAX) {
		*err = -EINVAL;
		return 0;
	}
	i = tdr_intern__idx(&b->strs, s, n);
	if (i == UINT32_MAX) {
		*err = -ENOMEM;
		return 0;
	}
	b->memo[slot].given = s;
	b->memo[slot].ref = i + 1;
	return i + 1;
}

long tdr_archive_builder__dso(struct tdr_archive_builder *b, uint8_t kind, const char *path,
			      const uint8_t *build_id, size_t build_id_sz)
{
	struct bdso *d;
	int err = 0;

	if (!path || !*path || strlen(path) > TDR_ARCHIVE_STR_MAX ||
	    build_id_sz > TDR_ARCHIVE_BUILD_ID_MAX ||
	    (build_id_sz && !build_id) || kind > TDR_ARCHIVE_KERNEL)
		return -EINVAL;
	/* Few objects, asked for in runs: a linear search from the end. */
	for (size_t i = b->dso_cnt; i-- > 0;) {
		d = &b->dsos[i];
		if (d->kind == kind && d->build_id_sz == build_id_sz && !strcmp(d->path, path) &&
		    (!build_id_sz || !memcmp(d->build_id, build_id, build_id_sz)))
			return (long)i;
	}
	if (b->dso_cnt >= UINT32_MAX / 2 ||
	    tdr_ensure_cap(&b->dsos, &b->dso_cap, sizeof(*b->dsos), b->dso_cnt + 1))
		return -ENOMEM;
	d = &b->dsos[b->dso_cnt];
	memset(d, 0, sizeof(*d));
	d->path_ref = intern(b, path, &err);
	if (err)
		return err;
	d->path = ref_str(b, d->path_ref);
	d->kind = kind;
	d->build_id_sz = (uint8_t)build_id_sz;
	if (build_id_sz)
		memcpy(d->build_id, build_id, build_id_sz);
	d->idx = (uint32_t)b->dso_cnt;
	return (long)b->dso_cnt++;
}

struct ekey {
	uint32_t dso;
	uint64_t off;
};

static uint64_t ent_hash(uint32_t dso, uint64_t off)
{
	return tdr_hash_combine(tdr_hash_u64(off), dso);
}

static uint64_t ent_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct bent *)ctx)[idx].hash;
}

static bool ent_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct bent *e = (const struct bent *)ctx + idx;
	const struct ekey *k = key;

	return e->off == k->off && e->dso == k->dso;
}

static int copy_sym(struct tdr_archive_builder *b, const struct tdr_archive_sym *in,
		    struct bsym *out)
{
	struct bframe *fr = NULL;
	int err = 0;

	*out = (struct bsym){ .status = in->status,
			      .function_offset = in->function_offset,
			      .function_size = in->function_size,
			      .line = in->line,
			      .column = in->column,
			      .inline_cnt = in->inline_cnt };
	out->function = intern(b, in->function, &err);
	out->file = intern(b, in->file, &err);
	if (in->inline_cnt) {
		fr = tdr_arena__alloc(&b->mem, in->inline_cnt * sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		for (uint32_t i = 0; i < in->inline_cnt; i++) {
			fr[i].function = intern(b, in->inlines[i].function, &err);
			fr[i].call_file = intern(b, in->inlines[i].call_file, &err);
			fr[i].call_line = in->inlines[i].call_line;
			fr[i].call_column = in->inlines[i].call_column;
		}
		out->inlines = fr;
	}
	return err;
}

/* What the format cannot hold, beyond the strings' lengths (intern
 * checks those). */
static bool sym_ok(const struct tdr_archive_sym *s)
{
	if (s->status > TDR_ARCHIVE_SYM_NO_SYMBOL || s->inline_cnt > TDR_ARCHIVE_MAX_INLINES ||
	    (s->inline_cnt && !s->inlines))
		return false;
	/* A function name goes with OK, and only with it. */
	return (s->status == TDR_ARCHIVE_SYM_OK) == (s->function && *s->function);
}

int tdr_archive_builder__add(struct tdr_archive_builder *b, long dso, uint64_t off,
			     const struct tdr_archive_sym *sym)
{
	struct ekey k = {.dso = (uint32_t)dso, .off = off};
	uint64_t h = ent_hash(k.dso, off);
	struct bent *e;
	size_t pos;
	int err;

	if (dso < 0 || (size_t)dso >= b->dso_cnt || !sym || !sym_ok(sym))
		return -EINVAL;
	if (b->ent_cnt >= UINT32_MAX / 2 ||
	    tdr_hmap__reserve(&b->index, 1024, ent_hash_of, b->ents))
		return -ENOMEM;
	if (tdr_hmap__find(&b->index, h, ent_eq, b->ents, &k, &pos) != TDR_HMAP_NONE)
		return 0; /* the first answer stays */
	if (tdr_ensure_cap(&b->ents, &b->ent_cap, sizeof(*b->ents), b->ent_cnt + 1))
		return -ENOMEM;
	e = &b->ents[b->ent_cnt];
	memset(e, 0, sizeof(*e));
	err = copy_sym(b, sym, &e->sym);
	if (err)
		return err;
	e->off = off;
	e->dso = k.dso;
	e->hash = h;
	b->ent_cnt++;
	tdr_hmap__add(&b->index, pos);
	return 0;
}

/* ---- encoding ---- */

static int dso_cmp(const void *pa, const void *pb)
{
	const struct bdso *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->path, b->path);
	if (c)
		return c;
	if (a->build_id_sz != b->build_id_sz)
		return a->build_id_sz < b->build_id_sz ? -1 : 1;
	return memcmp(a->build_id, b->build_id, a->build_id_sz);
}

/* An entry's place in the section: its object's rank, then its offset.
 * Sorted instead of the entries themselves (a tenth of their size, so the
 * sort moves and allocates a tenth as much). */
struct sort_key {
	uint64_t off;
	uint32_t dso; /* rank of the object */
	uint32_t ent; /* index in the builder's entries */
};

static int sort_key_cmp(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;

	if (a->dso != b->dso)
		return a->dso < b->dso ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return 0;
}

/*
 * keys[] := the entries in section order: by object rank, then offset
 * (entries are distinct, the index saw to it, so the order is total).
 * Placed by rank first (a counting sort); an archiver adds each object's
 * offsets ascending, so a rank's run is usually in order already and is
 * only checked. Runs that are not (an object mapped twice) are sorted.
 */
static int sort_keys(const struct tdr_archive_builder *b, const uint32_t *rank,
		     struct sort_key *keys)
{
	size_t *start = tdr_calloc(b->dso_cnt + 1, sizeof(*start));

	if (!start)
		return -ENOMEM;
	for (size_t i = 0; i < b->ent_cnt; i++)
		start[rank[b->ents[i].dso] + 1]++;
	for (size_t r = 0; r < b->dso_cnt; r++)
		start[r + 1] += start[r];
	/* start[r] is now where rank r begins; filling moves it to its end. */
	for (size_t i = 0; i < b->ent_cnt; i++) {
		uint32_t r = rank[b->ents[i].dso];

		keys[start[r]++] = (struct sort_key){ .off = b->ents[i].off, .dso = r,
						      .ent = (uint32_t)i };
	}
	for (size_t r = 0, lo = 0; r < b->dso_cnt; lo = start[r++]) {
		for (size_t i = lo + 1; i < start[r]; i++) {
			if (keys[i - 1].off > keys[i].off) {
				qsort(keys + lo, start[r] - lo, sizeof(*keys), sort_key_cmp);
				break;
			}
		}
	}
	free(start);
	return 0;
}

struct enc {
	struct tdr_buf out;
	const struct tdr_archive_builder *b;
	/* By interning index: the string's index in the section + 1 (0: not
	 * used yet); and the interning indexes in order of first use. */
	uint32_t *idx;
	uint32_t *order;
	size_t str_cnt;
};

static inline void put_v(struct enc *e, uint64_t v)
{
	struct tdr_buf *b = &e->out;
	uint8_t *p;

	/* Most varints fit in the room the buffer has: no call. */
	if (!b->err && b->cap - b->sz >= 10) {
		b->sz += put_varint(b->data + b->sz, v);
		return;
	}
	p = tdr_buf__put(b, varint_len(v));
	if (p)
		put_varint(p, v);
}

static void put_u8(struct enc *e, uint8_t v)
{
	uint8_t *p = tdr_buf__put(&e->out, 1);

	if (p)
		*p = v;
}

/* Give string r its index in the section at first use (r not 0). */
static inline void str_use(struct enc *e, str_ref_t r)
{
	if (!e->idx[r - 1]) {
		e->order[e->str_cnt++] = r - 1;
		e->idx[r - 1] = (uint32_t)e->str_cnt;
	}
}

/* A string that may be absent, as the section refers to it: 0, or its
 * index + 1. */
static inline uint64_t opt_ref(const struct enc *e, str_ref_t r)
{
	return r ? e->idx[r - 1] : 0;
}

/* A string that is there: its index. */
static inline uint64_t str_ref(const struct enc *e, str_ref_t r)
{
	return e->idx[r - 1] - 1;
}

static void number_strings(struct enc *e, const struct bdso *dsos, size_t dso_cnt,
			   const struct bent *ents, const struct sort_key *keys, size_t ent_cnt)
{
	for (size_t i = 0; i < dso_cnt; i++)
		str_use(e, dsos[i].path_ref);
	for (size_t i = 0; i < ent_cnt; i++) {
		const struct bsym *s = &ents[keys[i].ent].sym;

		if (s->function)
			str_use(e, s->function);
		if (s->file)
			str_use(e, s->file);
		for (uint32_t j = 0; j < s->inline_cnt; j++) {
			if (s->inlines[j].function)
				str_use(e, s->inlines[j].function);
			if (s->inlines[j].call_file)
				str_use(e, s->inlines[j].call_file);
		}
	}
}

/* One address: its offset (delta) and answer, written in one reservation
 * of the most bytes it can take, then trimmed (no check per varint). */
static void put_entry(struct enc *e, uint64_t off, const struct bsym *s)
{
	size_t max = 1 + 10 * (1 + 7 + 4 * (size_t)s->inline_cnt);
	uint8_t *start = tdr_buf__put(&e->out, max), *p = start;

	if (!p)
		return;
	p += put_varint(p, off);
	*p++ = s->status;
	if (s->status == TDR_ARCHIVE_SYM_OK) {
		p += put_varint(p, str_ref(e, s->function));
		p += put_varint(p, s->function_offset);
		p += put_varint(p, s->function_size);
		p += put_varint(p, opt_ref(e, s->file));
		p += put_varint(p, s->line);
		p += put_varint(p, s->column);
		p += put_varint(p, s->inline_cnt);
		for (uint32_t j = 0; j < s->inline_cnt; j++) {
			p += put_varint(p, opt_ref(e, s->inlines[j].function));
			p += put_varint(p, opt_ref(e, s->inlines[j].call_file));
			p += put_varint(p, s->inlines[j].call_line);
			p += put_varint(p, s->inlines[j].call_column);
		}
	}
	e->out.sz -= max - (size_t)(p - start);
}

/* The body of section 7.2 into e->out. */
static int encode_body(struct enc *e, struct bdso *dsos, size_t dso_cnt, const struct bent *ents,
		       const struct sort_key *keys, size_t ent_cnt, struct arch_stacks_b *stacks)
{
	size_t k = 0;

	number_strings(e, dsos, dso_cnt, ents, keys, ent_cnt);
	put_v(e, e->str_cnt);
	for (size_t i = 0; i < e->str_cnt; i++) {
		const char *str = ref_str(e->b, e->order[i] + 1);
		size_t n = strlen(str);
		uint8_t *p;

		put_v(e, n);
		p = tdr_buf__put(&e->out, n);
		if (p)
			memcpy(p, str, n);
	}
	put_v(e, dso_cnt);
	for (size_t i = 0; i < dso_cnt; i++) {
		size_t n = 0;
		uint8_t *p;

		while (k + n < ent_cnt && keys[k + n].dso == i)
			n++;
		k += n;
		put_u8(e, dsos[i].kind);
		put_v(e, str_ref(e, dsos[i].path_ref));
		put_u8(e, dsos[i].build_id_sz);
		p = tdr_buf__put(&e->out, dsos[i].build_id_sz);
		if (p)
			memcpy(p, dsos[i].build_id, dsos[i].build_id_sz);
		put_v(e, n);
	}
	for (size_t i = 0; i < ent_cnt; i++) {
		bool first = !i || keys[i - 1].dso != keys[i].dso;

		put_entry(e, first ? keys[i].off : keys[i].off - keys[i - 1].off,
			  &ents[keys[i].ent].sym);
	}
	if (e->out.err)
		return e->out.err;
	return tdr_archive_stacks_b__encode(stacks, &e->out);
}

/*
 * ZSTD_compress at level, with a match finder chosen for the body: zstd's
 * fast strategy with 4-byte matches, and tables of about 1/32 of the body
 * (at least 4 Ki entries, at most zstd's level 3 size). By level, zstd
 * would take 3 MiB of tables for a 100 KiB body, and allocating and
 * clearing them took longer than compressing (memory the kernel hands out
 * page by page). The body is varints and names, repeated at short
 * distances: on bench/run's programs the fast strategy with 4-byte
 * matches gives within 3% of the bytes level 3's double-fast search does,
 * in 60-90% of its time (docs/performance.md). The frame is standard zstd
 * either way (the parameters only steer the search).
 */
static size_t compress(void *dst, size_t cap, const void *src, size_t n, int level)
{
	unsigned bits = 12;
	ZSTD_CCtx *cc;
	size_t r;

	while (bits < 16 && ((size_t)1 << (bits + 5)) < n)
		bits++;
	cc = ZSTD_createCCtx();
	if (!cc)
		return ZSTD_compress(dst, cap, src, n, level);
	r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cc, ZSTD_c_strategy, ZSTD_fast);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, 4);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cc, ZSTD_c_hashLog, (int)bits);
	if (!ZSTD_isError(r))
		r = ZSTD_compress2(cc, dst, cap, src, n);
	ZSTD_freeCCtx(cc);
	return r;
}

/* Header + body, the body compressed when that is smaller. */
static int finish(const struct tdr_buf *body, int zstd_level, void **out, size_t *out_sz)
{
	size_t bound = ZSTD_compressBound(body->sz), csz = 0;
	uint8_t *d = tdr_malloc(TDR_ARCHIVE_HDR_SZ + (bound > body->sz ? bound : body->sz));
	uint8_t method = TDR_ARCHIVE_STORED;

	if (!d)
		return -ENOMEM;
	if (zstd_level) {
		csz = compress(d + TDR_ARCHIVE_HDR_SZ, bound, body->data, body->sz, zstd_level);
		if (ZSTD_isError(csz)) {
			tdr_debug("archive: zstd: %s", ZSTD_getErrorName(csz));
			free(d);
			return -TDR_E_ZSTD;
		}
		method = csz < body->sz ? TDR_ARCHIVE_ZSTD : TDR_ARCHIVE_STORED;
	}
	if (method == TDR_ARCHIVE_STORED) {
		if (body->sz)
			memcpy(d + TDR_ARCHIVE_HDR_SZ, body->data, body->sz);
		csz = body->sz;
	}
	memset(d, 0, TDR_ARCHIVE_HDR_SZ);
	tdr_put_le32(d + TDR_ARCHIVE_OFF_RAW_SZ, (uint32_t)body->sz);
	d[TDR_ARCHIVE_OFF_METHOD] = method;
	*out = d;
	*out_sz = TDR_ARCHIVE_HDR_SZ + csz;
	return 0;
}

int tdr_archive_builder__encode(struct tdr_archive_builder *b, int zstd_level, void **out,
				size_t *out_sz)
{
	struct enc e = { .b = b };
	size_t str_cnt = tdr_intern__cnt(&b->strs);
	struct bdso *dsos = NULL;
	struct sort_key *keys = NULL;
	uint32_t *rank = NULL;
	int err = -ENOMEM;

	*out = NULL;
	*out_sz = 0;
	dsos = tdr_malloc((b->dso_cnt + 1) * sizeof(*dsos));
	keys = tdr_malloc((b->ent_cnt + 1) * sizeof(*keys));
	rank = tdr_malloc((b->dso_cnt + 1) * sizeof(*rank));
	e.idx = tdr_calloc(str_cnt + 1, sizeof(*e.idx));
	e.order = tdr_malloc((str_cnt + 1) * sizeof(*e.order));
	if (!dsos || !keys || !rank || !e.idx || !e.order)
		goto out;
	if (b->dso_cnt)
		memcpy(dsos, b->dsos, b->dso_cnt * sizeof(*dsos));
	qsort(dsos, b->dso_cnt, sizeof(*dsos), dso_cmp);
	for (size_t i = 0; i < b->dso_cnt; i++)
		rank[dsos[i].idx] = (uint32_t)i;
	err = sort_keys(b, rank, keys);
	if (err)
		goto out;
	err = encode_body(&e, dsos, b->dso_cnt, b->ents, keys, b->ent_cnt, &b->stacks);
	if (!err && e.out.sz > TDR_ARCHIVE_MAX_RAW)
		err = -TDR_E_LIMIT;
	if (!err)
		err = finish(&e.out, zstd_level, out, out_sz);
out:
	free(e.out.data);
	free(e.idx);
	free(e.order);
	free(dsos);
	free(keys);
	free(rank);
	return err;
}
