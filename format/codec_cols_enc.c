/*
 * format/codec_cols_enc.c - frame codec 1 (columns), the encoder.
 *
 * Responsibility: turn the raw records of a frame into codec 1 data
 * (docs/format.md section 6.1). A sample record is read as u64 words; each
 * word is predicted from the previous sample of the same context (same size
 * and same key words, e.g. sample id and tid), optionally plus the delta of
 * an earlier word of the same sample (time and counter values move
 * together), plus a per-frame bias. The residuals of word j of every sample
 * form column j (split in byte planes), which zstd then compresses far
 * better than interleaved records. Records other than samples are stored as
 * they are. The codec knows no record layout: the key words come from the
 * writer (from the attrs) and the predictors are chosen per frame by
 * measuring the residuals of a spread of its samples.
 * Objects and lifecycle: struct tdr_cols_enc is zero-initialised, grown on
 * demand, reused across frames, released with tdr_cols_enc__release.
 * Ownership and threads: one thread per encoder state; the raw bytes are
 * borrowed, the output belongs to the state until the next call.
 * See: docs/format.md section 6.1 (normative); codec_cols_dec.c.
 */
#define LOG_PREFIX "format: "
#include "codec_cols_int.h"

#include <errno.h>
#include <string.h>

#include <zstd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

static struct tdr_cols_ctx *ctx_get(struct tdr_cols_ctx *slots, uint64_t n, uint64_t k0,
				    uint64_t k1, const uint64_t *last, size_t last_m, size_t cols,
				    bool *fresh)
{
	struct tdr_cols_ctx *s = &slots[ctx_slot(n, k0, k1)];

	*fresh = !s->used || s->n != n || s->k0 != k0 || s->k1 != k1;
	if (*fresh) {
		s->used = true;
		s->n = n;
		s->k0 = k0;
		s->k1 = k1;
		for (size_t j = 0; j < cols; j++)
			s->prev[j] = j < last_m ? last[j] : 0;
	}
	return s;
}

/* ---------------------------------------------------------------------------
 * Encoder.
 */
void tdr_cols_enc__release(struct tdr_cols_enc *e)
{
	zfree(&e->delta);
	zfree(&e->rows);
	zfree(&e->scratch);
	zfree(&e->blk0);
	zfree(&e->out);
	zfree(&e->slots);
	zfree(&e->pick);
	e->delta_cap = e->rows_cap = e->scratch_cap = e->blk0_cap = e->out_cap = e->pick_cap = 0;
}

/* One sample record as seen by the encoder. */
struct tdr_cols_row {
	uint32_t off; /* of the record in the raw bytes */
	uint16_t n;   /* body words */
	uint8_t m;    /* modelled words: min(n, cols) */
	bool fresh;   /* started a context: its words go to the NEW stream */
};

/* The k-th smallest of x[0..n) (Hoare's selection; x is reordered). */
static int64_t select_kth(int64_t *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		int64_t pivot = x[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = x[i];

				x[i] = x[j];
				x[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return x[k];
}

/*
 * Choose, for column j, the predictor column (or none) and the bias that
 * make the residuals smallest on a spread of up to PICK_ROWS samples: the
 * sum of varint lengths of zz(x - median(x)) over candidates x = d_j - d_p.
 */
static void pick_params(struct tdr_cols_enc *e, size_t rows, size_t cols)
{
	struct tdr_cols_params *pr = &e->params;
	size_t step = rows > PICK_ROWS ? rows / PICK_ROWS : 1;
	int64_t *x = e->pick;

	for (size_t j = 0; j < cols; j++) {
		size_t best_cost = SIZE_MAX;

		pr->pred[j] = 0;
		pr->bias[j] = 0;
		if (is_key(pr, j))
			continue;
		for (size_t p = 0; p <= j; p++) { /* p == j: no predictor */
			size_t cnt = 0, cost = 0;
			int64_t med;

			if (p < j && is_key(pr, p))
				continue;
			for (size_t r = 0; r < rows && cnt < PICK_ROWS; r += step) {
				const uint64_t *d = e->delta + r * cols;

				if (e->rows[r].m <= j || e->rows[r].fresh)
					continue;
				x[cnt++] = (int64_t)(d[j] - (p < j ? d[p] : 0));
			}
			if (!cnt)
				break;
			med = select_kth(x, cnt, cnt / 2);
			for (size_t i = 0; i < cnt; i++)
				cost += varint_len(zz((uint64_t)x[i] - (uint64_t)med));
			/* Prefer no predictor, then the nearest column, on ties. */
			if (cost < best_cost || (cost == best_cost && p == j)) {
				best_cost = cost;
				pr->pred[j] = p < j ? (uint32_t)p + 1 : 0;
				pr->bias[j] = (uint64_t)med;
			}
		}
	}
}

/* Walk the records: count samples and size the columns. */
static int scan_records(struct tdr_cols_enc *e, const uint8_t *raw, size_t sz, size_t *rows_out,
			size_t *cols_out)
{
	size_t rows = 0, cols = 0, pos = 0;

	while (pos < sz) {
		uint32_t type = tdr_get_le32(raw + pos);
		uint16_t rsz = tdr_get_le16(raw + pos + 6);

		if (type == PERF_RECORD_SAMPLE) {
			size_t n = (rsz - 8u) / 8;

			if (tdr_ensure_cap(&e->rows, &e->rows_cap, sizeof(*e->rows), rows + 1))
				return -ENOMEM;
			e->rows[rows].off = (uint32_t)pos;
			e->rows[rows].n = (uint16_t)n;
			rows++;
			if (n > cols)
				cols = n;
		}
		pos += rsz;
	}
	if (cols > TDR_COLS_MAX)
		cols = TDR_COLS_MAX;
	for (size_t r = 0; r < rows; r++)
		e->rows[r].m = (uint8_t)(e->rows[r].n < cols ? e->rows[r].n : cols);
	*rows_out = rows;
	*cols_out = cols;
	return 0;
}

/* The context model, encoder side: the delta of every modelled word. The
 * contexts and the last sample start empty (codec 1, or a chain's first
 * frame) or as the chain's previous frame left them. A context keeps all
 * min(n, TDR_COLS_MAX) words of its previous sample, so that a later frame
 * with more columns finds them (section 6.2). */
static void model_deltas(struct tdr_cols_enc *e, const uint8_t *raw, size_t rows, size_t cols,
			 struct tdr_cols_ctx *slots, uint64_t *last, size_t *last_mp, bool carry)
{
	const struct tdr_cols_params *pr = &e->params;
	uint64_t w[TDR_COLS_MAX];
	size_t last_m = carry ? *last_mp : 0;

	if (!carry)
		memset(slots, 0, sizeof(*slots) << TDR_COLS_SLOT_BITS);
	for (size_t r = 0; r < rows; r++) {
		const uint8_t *body = raw + e->rows[r].off + 8;
		size_t m = e->rows[r].m, n = e->rows[r].n < TDR_COLS_MAX ? e->rows[r].n : TDR_COLS_MAX;
		uint64_t *d = e->delta + r * cols, k0, k1;
		struct tdr_cols_ctx *s;

		for (size_t j = 0; j < n; j++)
			w[j] = tdr_get_le64(body + 8 * j);
		key_values(pr, w, m, &k0, &k1);
		s = ctx_get(slots, e->rows[r].n, k0, k1, last, last_m, cols, &e->rows[r].fresh);
		for (size_t j = 0; j < m; j++) {
			if (is_key(pr, j))
				d[j] = w[j] - (j < last_m ? last[j] : 0);
			else
				d[j] = w[j] - s->prev[j];
			last[j] = w[j];
		}
		memcpy(s->prev, w, 8 * n);
		last_m = m;
	}
	*last_mp = last_m;
}

/* The uncompressed streams, cut out of one scratch buffer: their sizes are
 * bounded by the raw bytes (section 6.1 caps). */
struct stream_w {
	uint8_t *p;
	size_t len;
};

/* Append zz-residual u of column j: its first varint byte to plane A, the
 * second to plane B, the rest to plane C. */
static inline void put_split(struct stream_w *planes, uint64_t u)
{
	if (u < 0x80) {
		planes[0].p[planes[0].len++] = (uint8_t)u;
		return;
	}
	planes[0].p[planes[0].len++] = (uint8_t)(u | 0x80);
	u >>= 7;
	if (u < 0x80) {
		planes[1].p[planes[1].len++] = (uint8_t)u;
		return;
	}
	planes[1].p[planes[1].len++] = (uint8_t)(u | 0x80);
	planes[2].len += put_varint(planes[2].p + planes[2].len, u >> 7);
}

static int emit_streams(struct tdr_cols_enc *e, const uint8_t *raw, size_t sz, size_t rows,
			size_t cols, size_t record_cnt, struct stream_w *st)
{
	const struct tdr_cols_params *pr = &e->params;
	size_t need[TDR_COLS_STREAMS_MAX] = {0}, nst = 4 + 3 * cols, total = 0, pos = 0, r = 0;
	uint8_t *q;

	need[STREAM_PARAMS] = 4 + cols * 11;
	need[STREAM_HEADERS] = record_cnt * 10;
	need[STREAM_OTHER] = sz;
	for (size_t i = 0; i < rows; i++) {
		need[STREAM_NEW] += e->rows[i].fresh ? 10u * e->rows[i].m : 0;
		for (size_t j = 0; j < e->rows[i].m; j++) {
			need[STREAM_COL0 + 3 * j] += 1;
			need[STREAM_COL0 + 3 * j + 1] += 1;
			need[STREAM_COL0 + 3 * j + 2] += 8;
		}
	}
	for (size_t i = 0; i < nst; i++)
		total += need[i];
	if (tdr_ensure_cap(&e->scratch, &e->scratch_cap, 1, total))
		return -ENOMEM;
	q = e->scratch;
	for (size_t i = 0; i < nst; i++) {
		st[i].p = q;
		st[i].len = 0;
		q += need[i];
	}

	/* Params: key count, keys, then pred and zz(bias) per column. */
	{
		struct stream_w *s = &st[STREAM_PARAMS];

		s->len += put_varint(s->p + s->len, pr->key_cnt);
		for (size_t i = 0; i < pr->key_cnt; i++)
			s->len += put_varint(s->p + s->len, pr->keys[i]);
		for (size_t j = 0; j < cols; j++) {
			s->len += put_varint(s->p + s->len, pr->pred[j]);
			s->len += put_varint(s->p + s->len, zz(pr->bias[j]));
		}
	}

	while (pos < sz) {
		const uint8_t *rec = raw + pos;
		uint32_t type = tdr_get_le32(rec);
		uint16_t misc = tdr_get_le16(rec + 4), rsz = tdr_get_le16(rec + 6);
		struct stream_w *h = &st[STREAM_HEADERS], *o = &st[STREAM_OTHER];
		size_t skip = 8;

		h->len += put_varint(h->p + h->len, type);
		h->len += put_varint(h->p + h->len, misc);
		h->len += put_varint(h->p + h->len, rsz / 8u);
		if (type == PERF_RECORD_SAMPLE) {
			const uint64_t *d = e->delta + r * cols;
			size_t m = e->rows[r].m;

			for (size_t j = 0; j < m; j++) {
				struct stream_w *nw = &st[STREAM_NEW];
				uint64_t v = d[j] - pr->bias[j];

				if (pr->pred[j])
					v -= d[pr->pred[j] - 1];
				if (e->rows[r].fresh && !is_key(pr, j))
					nw->len += put_varint(nw->p + nw->len, zz(d[j]));
				else
					put_split(&st[STREAM_COL0 + 3 * j], zz(v));
			}
			skip += 8 * m;
			r++;
		}
		memcpy(o->p + o->len, rec + skip, rsz - skip);
		o->len += rsz - skip;
		pos += rsz;
	}
	/* A column whose residuals are all zero is written as nothing. */
	for (size_t j = 0; j < cols; j++) {
		struct stream_w *a = &st[STREAM_COL0 + 3 * j];
		bool zero = !a[1].len && !a[2].len;

		for (size_t i = 0; zero && i < a->len; i++)
			zero = !a->p[i];
		if (zero)
			a->len = 0;
	}
	return 0;
}

/* Block 0 (section 6.1): the directory, then the inline streams. Returns
 * its size. */
static size_t fill_block0(uint8_t *b0, const struct stream_w *st, size_t nst, const uint8_t *place,
			  const size_t *csz)
{
	size_t dlen = put_varint(b0, nst);

	for (size_t i = 0; i < nst; i++) {
		dlen += put_varint(b0 + dlen, st[i].len);
		if (!st[i].len)
			continue;
		b0[dlen++] = place[i];
		if (place[i] == PLACE_OWN_ZSTD)
			dlen += put_varint(b0 + dlen, csz[i]);
	}
	for (size_t i = 0; i < nst; i++) {
		if (st[i].len && place[i] == PLACE_INLINE) {
			memcpy(b0 + dlen, st[i].p, st[i].len);
			dlen += st[i].len;
		}
	}
	return dlen;
}

/*
 * Lay out the codec 1 data (section 6.1): block 0 (the directory and the
 * small streams, compressed together), then each large stream compressed on
 * its own. out: [3 + 20 bytes of block 0 header room][block 0][own streams].
 */
static int assemble(struct tdr_cols_enc *e, ZSTD_CCtx *cctx, ZSTD_CCtx *chain, struct stream_w *st,
		    size_t nst, size_t *out_sz)
{
	uint8_t place[TDR_COLS_STREAMS_MAX];
	size_t csz[TDR_COLS_STREAMS_MAX];
	size_t inline_sz = 0, own_bound = 0, dir_max = 10 + nst * 21, b0_raw, b0_cap, stage_off;
	size_t dlen = 0, stage_len = 0, b0_sz, hlen = 0;
	uint8_t *b0, *stage, hdr[21];
	int method = METHOD_STORED;

	for (size_t i = 0; i < nst; i++) {
		own_bound += ZSTD_compressBound(st[i].len);
		inline_sz += st[i].len;
	}
	b0_cap = dir_max + inline_sz;
	if (tdr_ensure_cap(&e->blk0, &e->blk0_cap, 1, b0_cap))
		return -ENOMEM;
	stage_off = sizeof(hdr) + ZSTD_compressBound(b0_cap);
	if (tdr_ensure_cap(&e->out, &e->out_cap, 1, stage_off + own_bound))
		return -ENOMEM;
	stage = e->out + stage_off;

	/* Which streams are large enough to be compressed on their own. */
	for (size_t i = 0; i < nst; i++) {
		place[i] = PLACE_INLINE;
		if (st[i].len < OWN_MIN_SZ)
			continue;
		csz[i] = ZSTD_compress2(cctx, stage + stage_len, ZSTD_compressBound(st[i].len),
					st[i].p, st[i].len);
		if (ZSTD_isError(csz[i])) {
			tdr_debug("zstd: %s", ZSTD_getErrorName(csz[i]));
			return -TDR_E_ZSTD;
		}
		if (csz[i] >= st[i].len) {
			place[i] = PLACE_OWN_STORED;
			memcpy(stage + stage_len, st[i].p, st[i].len);
			csz[i] = st[i].len;
		} else if (csz[i] >= OWN_MIN_SZ) {
			place[i] = PLACE_OWN_ZSTD;
		} else {
			continue; /* compresses to little: joins block 0 */
		}
		stage_len += csz[i];
	}

	/* Codec 2 (section 6.2): own streams pay zstd tables in every frame,
	 * inline ones share block 0's, carried along the chain. When all
	 * streams inline in one zstd frame come out smaller than block 0 plus
	 * the own streams (small frames, many columns), inline them all. */
	if (chain && stage_len) {
		uint8_t inl[TDR_COLS_STREAMS_MAX];
		size_t z_own, z_inl, cap = ZSTD_compressBound(b0_cap);

		memset(inl, PLACE_INLINE, nst);
		z_own = ZSTD_compress2(cctx, e->out + sizeof(hdr), cap, e->blk0,
				       fill_block0(e->blk0, st, nst, place, csz));
		z_inl = ZSTD_compress2(cctx, e->out + sizeof(hdr), cap, e->blk0,
				       fill_block0(e->blk0, st, nst, inl, csz));
		if (!ZSTD_isError(z_own) && !ZSTD_isError(z_inl) && z_inl <= z_own + stage_len) {
			memcpy(place, inl, nst);
			stage_len = 0;
		}
	}
	b0 = e->blk0;
	dlen = fill_block0(b0, st, nst, place, csz);
	b0_raw = dlen;
	if (chain) {
		/* Codec 2: the next bytes of the chain's zstd stream, flushed
		 * so that they decode without what follows. */
		ZSTD_outBuffer ob = { e->out + sizeof(hdr), ZSTD_compressBound(b0_cap), 0 };
		ZSTD_inBuffer ib = { b0, b0_raw, 0 };
		size_t left;

		do {
			left = ZSTD_compressStream2(chain, &ob, &ib, ZSTD_e_flush);
			if (ZSTD_isError(left)) {
				tdr_debug("zstd: %s", ZSTD_getErrorName(left));
				return -TDR_E_ZSTD;
			}
		} while (left && ob.pos < ob.size);
		if (left)
			return -TDR_E_ZSTD;
		b0_sz = ob.pos;
		method = METHOD_CHAIN;
	} else {
		b0_sz = ZSTD_compress2(cctx, e->out + sizeof(hdr), ZSTD_compressBound(b0_cap), b0,
				       b0_raw);
		if (ZSTD_isError(b0_sz)) {
			tdr_debug("zstd: %s", ZSTD_getErrorName(b0_sz));
			return -TDR_E_ZSTD;
		}
	}
	if (method == METHOD_CHAIN) {
		/* stays in the stream, whatever its size */
	} else if (b0_sz < b0_raw) {
		method = METHOD_ZSTD;
	} else {
		memcpy(e->out + sizeof(hdr), b0, b0_raw);
		b0_sz = b0_raw;
	}
	hdr[hlen++] = (uint8_t)method;
	hlen += put_varint(hdr + hlen, b0_raw);
	if (method != METHOD_STORED)
		hlen += put_varint(hdr + hlen, b0_sz);
	/* Close the gaps: header, block 0, own streams. */
	memmove(e->out + hlen, e->out + sizeof(hdr), b0_sz);
	memcpy(e->out, hdr, hlen);
	memmove(e->out + hlen + b0_sz, stage, stage_len);
	*out_sz = hlen + b0_sz + stage_len;
	return 0;
}

static int encode(struct tdr_cols_enc *e, struct tdr_cols_chain *ch, const uint8_t *raw, size_t sz,
		  size_t record_cnt, const uint32_t *keys, size_t key_cnt, void *zcctx,
		  const uint8_t **out, size_t *out_sz)
{
	struct stream_w st[TDR_COLS_STREAMS_MAX];
	uint64_t last[TDR_COLS_MAX];
	size_t rows, cols, last_m = 0;
	int err;

	err = scan_records(e, raw, sz, &rows, &cols);
	if (err)
		return err;
	if (!rows)
		return 1; /* nothing to model: the caller uses codec 0 */
	if (!ch && !e->slots) {
		e->slots = tdr_calloc((size_t)1 << TDR_COLS_SLOT_BITS, sizeof(*e->slots));
		if (!e->slots)
			return -ENOMEM;
	}
	if (tdr_ensure_cap(&e->delta, &e->delta_cap, sizeof(*e->delta), rows * cols) ||
	    tdr_ensure_cap(&e->pick, &e->pick_cap, sizeof(*e->pick), PICK_ROWS))
		return -ENOMEM;
	e->params.key_cnt = 0;
	e->params.key_mask = 0;
	for (size_t i = 0; i < key_cnt && i < 2; i++) {
		if (keys[i] < cols && !is_key(&e->params, keys[i])) {
			e->params.keys[e->params.key_cnt++] = keys[i];
			e->params.key_mask |= 1ull << keys[i];
		}
	}
	if (ch)
		model_deltas(e, raw, rows, cols, ch->slots, ch->last, &ch->last_m, ch->link > 0);
	else
		model_deltas(e, raw, rows, cols, e->slots, last, &last_m, false);
	pick_params(e, rows, cols);
	err = emit_streams(e, raw, sz, rows, cols, record_cnt, st);
	if (!err)
		err = assemble(e, zcctx, ch ? ch->zc : NULL, st, 4 + 3 * cols, out_sz);
	if (err)
		return err;
	*out = e->out;
	return 0;
}

int tdr_cols__encode(struct tdr_cols_enc *e, const uint8_t *raw, size_t sz, size_t record_cnt,
		     const uint32_t *keys, size_t key_cnt, void *zcctx, const uint8_t **out,
		     size_t *out_sz)
{
	return encode(e, NULL, raw, sz, record_cnt, keys, key_cnt, zcctx, out, out_sz);
}

void tdr_cols_chain__release(struct tdr_cols_chain *ch)
{
	ZSTD_freeCCtx(ch->zc);
	ch->zc = NULL;
	ch->link = 0;
}

int tdr_cols__encode_chained(struct tdr_cols_enc *e, struct tdr_cols_chain *ch, const uint8_t *raw,
			     size_t sz, size_t record_cnt, const uint32_t *keys, size_t key_cnt,
			     void *zcctx, const uint8_t **out, size_t *out_sz, uint32_t *link)
{
	int err;

	if (!ch->zc) {
		ch->zc = ZSTD_createCCtx();
		if (!ch->zc)
			return -ENOMEM;
		ch->link = 0;
	}
	if (ch->link >= TDR_CHAIN_MAX_FRAMES || ch->raw >= TDR_CHAIN_MAX_RAW)
		ch->link = 0;
	if (!ch->link) {
		/* A new chain: a new zstd frame, at the writer's level, with
		 * a window a reader can keep per ring. */
		if (ZSTD_isError(ZSTD_CCtx_reset(ch->zc, ZSTD_reset_session_only)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(ch->zc, ZSTD_c_compressionLevel,
							ch->level)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(ch->zc, ZSTD_c_windowLog,
							TDR_CHAIN_WINDOW_LOG)))
			return -TDR_E_ZSTD;
		ch->raw = 0;
	}
	err = encode(e, ch, raw, sz, record_cnt, keys, key_cnt, zcctx, out, out_sz);
	if (err < 0)
		ch->link = 0; /* the stream's state is unknown: start again */
	if (err)
		return err; /* 1: no sample, codec 0, the chain goes on after it */
	*link = ch->link++;
	ch->raw += sz;
	return 0;
}
