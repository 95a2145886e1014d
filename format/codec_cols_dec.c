/*
 * format/codec_cols_dec.c - frame codec 1 (columns), the decoder.
 *
 * Responsibility: rebuild exactly the raw records of a codec 1 frame
 * (docs/format.md section 6.1): read block 0 and its directory, make every
 * stream readable (decompressing those stored on their own), then replay
 * the model record by record, writing each sample's words straight into
 * the output. A context remembers where its previous sample is in the
 * output instead of copying its words.
 * Objects and lifecycle: struct tdr_cols_dec is created on the first decode
 * of a struct tdr_frame_buf, reused, released with tdr_cols_dec__release.
 * Ownership and threads: one thread per decoder state; src is borrowed.
 * Invariants: every length is checked against raw_sz and the caps of
 * section 10 before use or allocation, no read leaves its stream, and the
 * result is -TDR_E_CORRUPT unless exactly raw_sz bytes of record_cnt
 * records are rebuilt with every stream used up.
 * See: docs/format.md section 6.1 (normative); codec_cols_enc.c.
 */
#define LOG_PREFIX "format: "
#include "codec_cols_int.h"

#include <errno.h>
#include <string.h>

#include <zstd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* ---------------------------------------------------------------------------
 * Decoder.
 */
void tdr_cols_dec__release(struct tdr_cols_dec *d)
{
	if (!d)
		return;
	free(d->blk0);
	free(d->scratch);
	free(d);
}

struct stream_r {
	const uint8_t *p, *end;
};

static inline int next(struct stream_r *s, uint64_t *v)
{
	return get_varint(&s->p, s->end, v);
}

/* Read a residual of a column (planes a[0..3)); a column whose first plane
 * is empty reads as zeros. */
static inline int next_split(struct stream_r *a, uint64_t *v)
{
	uint64_t u, hi;
	uint8_t b;

	if (a[0].p == a[0].end) {
		if (a[0].end)
			return -1; /* a used-up plane */
		*v = 0;
		return 0;
	}
	b = *a[0].p++;
	u = b & 0x7f;
	if (b & 0x80) {
		if (a[1].p == a[1].end)
			return -1;
		b = *a[1].p++;
		u |= (uint64_t)(b & 0x7f) << 7;
		if (b & 0x80) {
			if (get_varint(&a[2].p, a[2].end, &hi) || hi >> 50)
				return -1;
			u |= hi << 14;
		}
	}
	*v = u;
	return 0;
}

/* Grow a buffer to at least need bytes (contents are not kept). */
static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (*cap >= need)
		return 0;
	free(*buf);
	*cap = 0;
	*buf = tdr_malloc(need ? need : 1);
	if (!*buf)
		return -ENOMEM;
	*cap = need;
	return 0;
}

/* Read block 0 and the directory; make every stream readable. Empty streams
 * get p == end == NULL. */
static int open_streams(struct tdr_cols_dec *dec, struct tdr_cols_dchain *ch, const uint8_t *src,
			size_t src_sz, uint32_t raw_sz, void *dctx, struct stream_r *st,
			size_t *nst_out)
{
	const uint8_t *p = src, *end = src + src_sz, *b0, *b0_end, *own;
	uint64_t cap = (uint64_t)raw_sz + raw_sz / 4 + 8192, b0_raw, b0_sz, nst, total, own_raw = 0;
	uint64_t raw_len[TDR_COLS_STREAMS_MAX], csz[TDR_COLS_STREAMS_MAX];
	uint8_t place[TDR_COLS_STREAMS_MAX], method;
	size_t dpos = 0;

	TDR_BAIL_IF(src_sz < 1, -TDR_E_CORRUPT, "codec 1: empty frame data");
	method = *p++;
	/* Codec 2 frames continue the chain's stream; codec 1 frames cannot. */
	TDR_BAIL_IF((ch ? method != METHOD_CHAIN : method > METHOD_ZSTD) ||
			get_varint(&p, end, &b0_raw) || !b0_raw || b0_raw > cap,
		    -TDR_E_CORRUPT, "codec 1: block 0 header");
	b0_sz = b0_raw;
	if (method != METHOD_STORED)
		TDR_BAIL_IF(get_varint(&p, end, &b0_sz), -TDR_E_CORRUPT, "codec 1: block 0 header");
	TDR_BAIL_IF(b0_sz > (uint64_t)(end - p), -TDR_E_CORRUPT, "codec 1: block 0 past the frame");
	if (method == METHOD_CHAIN) {
		ZSTD_inBuffer ib = { p, b0_sz, 0 };
		ZSTD_outBuffer ob;
		size_t ret;

		if (grow(&dec->blk0, &dec->blk0_cap, b0_raw))
			return -ENOMEM;
		/* All of the frame's bytes, giving exactly b0_raw bytes: one
		 * more output byte must not come out of them. */
		ob = (ZSTD_outBuffer){ dec->blk0, b0_raw, 0 };
		do {
			ret = ZSTD_decompressStream(ch->zd, &ob, &ib);
			if (ZSTD_isError(ret)) {
				tdr_debug("codec 2: block 0: zstd: %s", ZSTD_getErrorName(ret));
				return -TDR_E_ZSTD;
			}
		} while (ib.pos < ib.size && ob.pos < ob.size);
		TDR_BAIL_IF(ib.pos != ib.size || ob.pos != b0_raw, -TDR_E_CORRUPT,
			    "codec 2: block 0: %zu of %llu bytes used, %zu of %llu made", ib.pos,
			    (unsigned long long)b0_sz, ob.pos, (unsigned long long)b0_raw);
		{
			uint8_t extra;
			ZSTD_outBuffer xb = { &extra, 1, 0 };
			ZSTD_inBuffer eb = { p + b0_sz, 0, 0 };

			ret = ZSTD_decompressStream(ch->zd, &xb, &eb);
			TDR_BAIL_IF(ZSTD_isError(ret) || xb.pos, -TDR_E_CORRUPT,
				    "codec 2: block 0 longer than %llu bytes",
				    (unsigned long long)b0_raw);
		}
		b0 = dec->blk0;
	} else if (method == METHOD_ZSTD) {
		size_t n;

		if (grow(&dec->blk0, &dec->blk0_cap, b0_raw))
			return -ENOMEM;
		n = ZSTD_decompressDCtx(dctx, dec->blk0, b0_raw, p, b0_sz);
		if (ZSTD_isError(n)) {
			tdr_debug("codec 1: block 0: zstd: %s", ZSTD_getErrorName(n));
			return -TDR_E_ZSTD;
		}
		TDR_BAIL_IF(n != b0_raw, -TDR_E_CORRUPT, "codec 1: block 0 of %zu bytes", n);
		b0 = dec->blk0;
	} else {
		b0 = p;
	}
	b0_end = b0 + b0_raw;
	own = p + b0_sz;

	/* The directory. */
	TDR_BAIL_IF(get_varint(&b0, b0_end, &nst) || nst < 4 || nst > TDR_COLS_STREAMS_MAX ||
			(nst - 4) % 3,
		    -TDR_E_CORRUPT, "codec 1: stream count");
	total = b0_raw;
	for (size_t i = 0; i < nst; i++) {
		TDR_BAIL_IF(get_varint(&b0, b0_end, &raw_len[i]) || raw_len[i] > cap,
			    -TDR_E_CORRUPT, "codec 1: directory entry %zu", i);
		place[i] = PLACE_INLINE;
		csz[i] = raw_len[i];
		if (!raw_len[i])
			continue;
		TDR_BAIL_IF(b0 == b0_end || *b0 > PLACE_OWN_STORED, -TDR_E_CORRUPT,
			    "codec 1: directory entry %zu", i);
		place[i] = *b0++;
		if (place[i] == PLACE_OWN_ZSTD) {
			/* Decompressed size, with block 0, within the cap. */
			TDR_BAIL_IF(get_varint(&b0, b0_end, &csz[i]) || raw_len[i] > cap - total,
				    -TDR_E_CORRUPT, "codec 1: directory entry %zu", i);
			total += raw_len[i];
			own_raw += raw_len[i];
		}
	}
	/* Inline streams follow the directory in block 0; own streams follow
	 * block 0. Both must end exactly. */
	{
		uint64_t in = 0, ow = 0;

		for (size_t i = 0; i < nst; i++) {
			if (!raw_len[i])
				continue;
			if (place[i] == PLACE_INLINE)
				in += raw_len[i];
			else
				ow += csz[i];
			TDR_BAIL_IF(in > (uint64_t)(b0_end - b0) || ow > (uint64_t)(end - own),
				    -TDR_E_CORRUPT, "codec 1: stream %zu past its block", i);
		}
		TDR_BAIL_IF(in != (uint64_t)(b0_end - b0) || ow != (uint64_t)(end - own),
			    -TDR_E_CORRUPT, "codec 1: bytes left after the streams");
	}
	if (grow(&dec->scratch, &dec->scratch_cap, own_raw))
		return -ENOMEM;
	for (size_t i = 0; i < nst; i++) {
		st[i].p = st[i].end = NULL;
		if (!raw_len[i])
			continue;
		if (place[i] == PLACE_INLINE) {
			st[i].p = b0;
			b0 += raw_len[i];
		} else if (place[i] == PLACE_OWN_STORED) {
			st[i].p = own;
			own += raw_len[i];
		} else {
			size_t n =
			    ZSTD_decompressDCtx(dctx, dec->scratch + dpos, raw_len[i], own, csz[i]);

			if (ZSTD_isError(n)) {
				tdr_debug("codec 1: stream %zu: zstd: %s", i, ZSTD_getErrorName(n));
				return -TDR_E_ZSTD;
			}
			TDR_BAIL_IF(n != raw_len[i], -TDR_E_CORRUPT,
				    "codec 1: stream %zu: %zu bytes, %llu expected", i, n,
				    (unsigned long long)raw_len[i]);
			st[i].p = dec->scratch + dpos;
			dpos += raw_len[i];
			own += csz[i];
		}
		st[i].end = st[i].p + raw_len[i];
	}
	*nst_out = nst;
	return 0;
}

static int read_params(struct stream_r *s, size_t cols, struct tdr_cols_params *pr)
{
	uint64_t v;

	memset(pr, 0, sizeof(*pr));
	if (!s->end)
		return 0; /* empty: no keys, no predictors, no bias */
	TDR_BAIL_IF(next(s, &v) || v > 2, -TDR_E_CORRUPT, "codec 1: key count");
	pr->key_cnt = (uint32_t)v;
	for (size_t i = 0; i < pr->key_cnt; i++) {
		TDR_BAIL_IF(next(s, &v) || v >= cols || is_key(pr, v), -TDR_E_CORRUPT,
			    "codec 1: key column");
		pr->keys[i] = (uint32_t)v;
		pr->key_mask |= 1ull << v;
	}
	for (size_t j = 0; j < cols; j++) {
		TDR_BAIL_IF(next(s, &v) || v > j, -TDR_E_CORRUPT, "codec 1: predictor of %zu", j);
		pr->pred[j] = (uint32_t)v;
		TDR_BAIL_IF(next(s, &v), -TDR_E_CORRUPT, "codec 1: params cut");
		pr->bias[j] = unzz(v);
		TDR_BAIL_IF(is_key(pr, j) && (pr->pred[j] || pr->bias[j]), -TDR_E_CORRUPT,
			    "codec 1: key column %zu with a predictor", j);
	}
	TDR_BAIL_IF(s->p != s->end, -TDR_E_CORRUPT, "codec 1: params too long");
	return 0;
}

/* Column kinds of the decoder's fast path. */
enum { COL_KEY, COL_ZERO, COL_READ };

/* A sample that starts a context: its words from the NEW stream, relative
 * to the last sample (zeros beyond its m words). */
static int decode_fresh(struct stream_r *nw, const struct tdr_cols_params *pr, const uint8_t *last,
			size_t last_m, size_t m, uint64_t *d, uint8_t *out)
{
	for (size_t j = 0; j < m; j++) {
		uint64_t p = 0, v, w;

		if (j < last_m)
			memcpy(&p, last + 8 * j, 8);
		if (is_key(pr, j)) {
			w = p + d[j];
		} else {
			TDR_BAIL_IF(next(nw, &v), -TDR_E_CORRUPT,
				    "codec 1: new-context stream cut");
			d[j] = unzz(v);
			w = p + d[j];
		}
		memcpy(out + 8 * j, &w, 8); /* little-endian host */
	}
	return 0;
}

/* The next record header from the headers stream; single-byte varints (the
 * usual case) take the short way. */
static inline int next_header(struct stream_r *h, uint64_t *type, uint64_t *misc, uint64_t *size8)
{
	const uint8_t *p = h->p;

	if (h->end - p >= 3 && !((p[0] | p[1] | p[2]) & 0x80)) {
		*type = p[0];
		*misc = p[1];
		*size8 = p[2];
		h->p = p + 3;
		return 0;
	}
	return next(h, type) || next(h, misc) || next(h, size8) ? -1 : 0;
}

static void keep_state(const struct tdr_cols_dec *dec, struct tdr_cols_dchain *ch,
		       const uint8_t *dst, uint32_t raw_sz, const uint8_t *last, size_t last_m);

static int decode(struct tdr_cols_dec **decp, struct tdr_cols_dchain *ch, bool carry, void *dctx,
		  const uint8_t *src, size_t src_sz, uint8_t *dst, uint32_t raw_sz,
		  uint32_t record_cnt)
{
	struct stream_r st[TDR_COLS_STREAMS_MAX];
	struct stream_r *h = &st[STREAM_HEADERS], *o = &st[STREAM_OTHER];
	struct tdr_cols_params pr;
	struct tdr_cols_dec *dec = *decp;
	/* The columns read from their streams: index, predictor + 1, bias.
	 * The others keep the previous sample's word (zero columns) or were
	 * read first (keys); their d stays 0 or is set with the keys. */
	uint8_t rd_j[TDR_COLS_MAX], rd_pred[TDR_COLS_MAX];
	struct stream_r *rd_st[TDR_COLS_MAX];
	/* d[-1] stays 0: the predictor "none" (0) reads it, without a branch */
	uint64_t rd_bias[TDR_COLS_MAX], dd[TDR_COLS_MAX + 1] = {0}, *d = dd + 1;
	const uint8_t *last = NULL;
	size_t nst, cols, rd_cnt = 0, last_m = 0, pos = 0;
	uint32_t cnt = 0;
	int err;

	if (!dec) {
		dec = tdr_calloc(1, sizeof(*dec));
		if (!dec)
			return -ENOMEM;
		*decp = dec;
	}
	err = open_streams(dec, ch, src, src_sz, raw_sz, dctx, st, &nst);
	if (err)
		return err;
	cols = (nst - 4) / 3;
	err = read_params(&st[STREAM_PARAMS], cols, &pr);
	if (err)
		return err;
	for (size_t j = 0; j < cols; j++) {
		if (is_key(&pr, j) || (!st[STREAM_COL0 + 3 * j].end && !pr.pred[j] && !pr.bias[j]))
			continue;
		rd_j[rd_cnt] = (uint8_t)j;
		rd_st[rd_cnt] = &st[STREAM_COL0 + 3 * j];
		rd_pred[rd_cnt] = (uint8_t)pr.pred[j];
		rd_bias[rd_cnt++] = pr.bias[j];
	}
	if (carry) {
		/* Section 6.2: the contexts and the last sample as the chain's
		 * previous frame left them. */
		for (size_t i = 0; i < TDR_ARRAY_SIZE(dec->slots); i++) {
			dec->slots[i].used = ch->slots[i].used;
			dec->slots[i].n = ch->slots[i].n;
			dec->slots[i].k0 = ch->slots[i].k0;
			dec->slots[i].k1 = ch->slots[i].k1;
			dec->slots[i].prev = (const uint8_t *)ch->slots[i].w;
		}
		last = (const uint8_t *)ch->last;
		last_m = ch->last_m;
	} else {
		for (size_t i = 0; i < TDR_ARRAY_SIZE(dec->slots); i++)
			dec->slots[i].used = false;
	}

	while (h->p != h->end) {
		uint64_t type, misc, size8;
		size_t rsz, body = 0;

		TDR_BAIL_IF(next_header(h, &type, &misc, &size8) || type > UINT32_MAX ||
				misc > UINT16_MAX || size8 < 1 || size8 > UINT16_MAX / 8,
			    -TDR_E_CORRUPT, "codec 1: record header %u", cnt);
		rsz = (size_t)size8 * 8;
		TDR_BAIL_IF(rsz > raw_sz - pos || cnt == record_cnt, -TDR_E_CORRUPT,
			    "codec 1: records past %u bytes", raw_sz);
		tdr_put_le32(dst + pos, (uint32_t)type);
		tdr_put_le16(dst + pos + 4, (uint16_t)misc);
		tdr_put_le16(dst + pos + 6, (uint16_t)rsz);
		if (type == PERF_RECORD_SAMPLE) {
			size_t n = (rsz - 8) / 8, m = n < cols ? n : cols;
			uint8_t *out = dst + pos + 8;
			struct tdr_cols_dslot *s;
			uint64_t k0 = 0, k1 = 0, v;

			for (size_t i = 0; i < pr.key_cnt; i++) {
				size_t k = pr.keys[i];
				uint64_t p = 0, w;

				if (k >= m)
					continue;
				TDR_BAIL_IF(next_split(&st[STREAM_COL0 + 3 * k], &v),
					    -TDR_E_CORRUPT, "codec 1: column %zu cut", k);
				if (k < last_m)
					memcpy(&p, last + 8 * k, 8);
				d[k] = unzz(v);
				w = p + d[k];
				memcpy(out + 8 * k, &w, 8);
				if (i == 0)
					k0 = w;
				else
					k1 = w;
			}
			/* The context (the rule of ctx_get in the encoder). */
			s = &dec->slots[ctx_slot(n, k0, k1)];
			if (!s->used || s->n != n || s->k0 != k0 || s->k1 != k1) {
				s->used = true;
				s->n = n;
				s->k0 = k0;
				s->k1 = k1;
				err = decode_fresh(&st[STREAM_NEW], &pr, last, last_m, m, d, out);
				if (err)
					return err;
				/* Zero columns read nothing, whatever the fresh
				 * sample had: their d is 0 again. */
				for (size_t j = 0; j < m; j++)
					if (!is_key(&pr, j))
						d[j] = 0;
			} else {
				/* Same size and keys as the previous sample of the
				 * context: start from its words (keys included),
				 * then add the deltas of the columns read. */
				size_t rd_m = rd_cnt;

				memcpy(out, s->prev, 8 * m);
				/* The columns read, up to m (rd_j ascends): all
				 * of them for a sample of every column. */
				if (m < cols)
					for (rd_m = 0; rd_m < rd_cnt && rd_j[rd_m] < m; rd_m++)
						;
				for (size_t i = 0; i < rd_m; i++) {
					size_t j = rd_j[i];
					uint64_t w;

					TDR_BAIL_IF(next_split(rd_st[i], &v), -TDR_E_CORRUPT,
						    "codec 1: column %zu cut", j);
					d[j] = unzz(v) + rd_bias[i] + d[(int)rd_pred[i] - 1];
					memcpy(&w, out + 8 * j, 8);
					w += d[j];
					memcpy(out + 8 * j, &w, 8); /* little-endian host */
				}
			}
			s->prev = out;
			last = out;
			last_m = m;
			body = 8 * m;
		}
		TDR_BAIL_IF((size_t)(o->end - o->p) < rsz - 8 - body, -TDR_E_CORRUPT,
			    "codec 1: other stream cut");
		if (rsz - 8 - body) {
			memcpy(dst + pos + 8 + body, o->p, rsz - 8 - body);
			o->p += rsz - 8 - body;
		}
		pos += rsz;
		cnt++;
	}
	TDR_BAIL_IF(pos != raw_sz || cnt != record_cnt, -TDR_E_CORRUPT,
		    "codec 1: %zu bytes in %u records, header says %u in %u", pos, cnt, raw_sz,
		    record_cnt);
	for (size_t i = STREAM_OTHER; i < nst; i++)
		TDR_BAIL_IF(st[i].p != st[i].end, -TDR_E_CORRUPT, "codec 1: stream %zu not used up",
			    i);
	if (ch)
		keep_state(dec, ch, dst, raw_sz, last, last_m);
	return 0;
}

/* After a codec 2 frame: copy what the next frame of the chain starts from
 * out of the frame's output (contexts carried over unchanged already point
 * at their copy). */
static void keep_state(const struct tdr_cols_dec *dec, struct tdr_cols_dchain *ch,
		       const uint8_t *dst, uint32_t raw_sz, const uint8_t *last, size_t last_m)
{
	for (size_t i = 0; i < TDR_ARRAY_SIZE(dec->slots); i++) {
		const struct tdr_cols_dslot *s = &dec->slots[i];
		size_t n = s->n < TDR_COLS_MAX ? (size_t)s->n : TDR_COLS_MAX;

		ch->slots[i].used = s->used;
		if (!s->used)
			continue;
		ch->slots[i].n = s->n;
		ch->slots[i].k0 = s->k0;
		ch->slots[i].k1 = s->k1;
		if (s->prev >= dst && s->prev < dst + raw_sz)
			memcpy(ch->slots[i].w, s->prev, 8 * n);
	}
	if (last && last != (const uint8_t *)ch->last)
		memcpy(ch->last, last, 8 * last_m);
	ch->last_m = last ? last_m : 0;
}

int tdr_cols__decode(struct tdr_cols_dec **decp, void *dctx, const uint8_t *src, size_t src_sz,
		     uint8_t *dst, uint32_t raw_sz, uint32_t record_cnt)
{
	return decode(decp, NULL, false, dctx, src, src_sz, dst, raw_sz, record_cnt);
}

void tdr_cols_dchain__release(struct tdr_cols_dchain *ch)
{
	ZSTD_freeDCtx(ch->zd);
	ch->zd = NULL;
	ch->live = false;
}

int tdr_cols__decode_chained(struct tdr_cols_dec **decp, struct tdr_cols_dchain *ch, uint32_t link,
			     void *zdctx, const uint8_t *src, size_t src_sz, uint8_t *dst,
			     uint32_t raw_sz, uint32_t record_cnt)
{
	int err;

	if (link && (!ch->live || ch->link + 1 != link))
		return -TDR_E_CORRUPT; /* the caller decodes the chain in order */
	ch->live = false;
	if (!ch->zd) {
		ch->zd = ZSTD_createDCtx();
		if (!ch->zd)
			return -ENOMEM;
	}
	if (!link) {
		/* A new chain: a new zstd frame, whose window a reader keeps
		 * per ring (refused above the writer's bound). */
		if (ZSTD_isError(ZSTD_DCtx_reset(ch->zd, ZSTD_reset_session_only)) ||
		    ZSTD_isError(ZSTD_DCtx_setParameter(ch->zd, ZSTD_d_windowLogMax,
							TDR_CHAIN_WINDOW_LOG)))
			return -TDR_E_ZSTD;
	}
	err = decode(decp, ch, link > 0, zdctx, src, src_sz, dst, raw_sz, record_cnt);
	if (err)
		return err;
	ch->link = link;
	ch->live = true;
	return 0;
}
