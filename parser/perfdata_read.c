/*
 * parser/perfdata_read.c - perf.data import: the data section.
 *
 * Responsibility: walk the records of the data section; decompress
 * PERF_RECORD_COMPRESSED (81) and COMPRESSED2 (83) payloads as ONE
 * continuous zstd stream for the whole file (perf never ends its frames),
 * carrying a record that straddles two compressed records over to the next;
 * skip perf's own records (type >= 64: FINISHED_ROUND ends a round, the
 * others such as ID_INDEX, THREAD_MAP, CPU_MAP, TIME_CONV are not needed);
 * and, because perf writes the per-CPU buffers one after the other, sort the
 * kernel records of each round by time (stable) before feeding them to the
 * parser, as perf report does.
 * Objects and lifecycle: state in struct perfdata; tdr_parser_perfdata_read_fini frees it.
 * Ownership: records of the mapped data section at 8-byte aligned offsets
 * with sizes that are multiples of 8 are fed in place; the others (and all
 * decompressed ones) are copied into an 8-byte aligned round buffer, so a
 * hostile file's odd offsets never become misaligned loads.
 * Sorting: the records of a round are runs already in time order (one per
 * CPU buffer), so a stable merge of those runs replaces a general sort.
 * Limits: a round holds at most PD_MAX_ROUND bytes; beyond that it is fed
 * early (ordering across CPUs may then suffer; a warning says so).
 * See: docs/kernel.md "perf.data files" (compression, order).
 */
#include "parser_int.h"
#include "perfdata_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

void tdr_parser_perfdata_read_fini(struct perfdata *pd)
{
	if (pd->zds)
		ZSTD_freeDStream(pd->zds);
	pd->zds = NULL;
	zfree(&pd->pend);
	zfree(&pd->round);
	zfree(&pd->ents);
	zfree(&pd->tmp);
	pd->pend_sz = pd->pend_cap = pd->round_sz = pd->round_cap = 0;
	pd->ent_cnt = pd->ent_cap = pd->tmp_cap = 0;
}

/* Order of entries: time, then arrival (seq), as a stable sort by time. */
static inline bool ent_before(const struct pd_ent *x, const struct pd_ent *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Merge the sorted runs a[0..n) and b[0..m) into out. */
static void merge_runs(const struct pd_ent *a, size_t n, const struct pd_ent *b, size_t m,
		       struct pd_ent *out)
{
	size_t i = 0, j = 0, k = 0;

	while (i < n && j < m)
		out[k++] = ent_before(&b[j], &a[i]) ? b[j++] : a[i++];
	while (i < n)
		out[k++] = a[i++];
	while (j < m)
		out[k++] = b[j++];
}

/*
 * Sort ents[0..n) by (time, seq): a natural merge sort. The entries come in
 * a few runs already in order (perf writes each CPU's buffer in turn), so
 * this is one pass to find the runs and log2(runs) passes to merge them.
 * Returns the sorted array: ents or tmp.
 */
struct pd_ent *tdr_parser_perfdata_sort_ents(struct pd_ent *ents, struct pd_ent *tmp, size_t n)
{
	struct pd_ent *src = ents, *dst = tmp, *t;

	if (n < 2)
		return ents;
	for (;;) {
		size_t start = 0, runs = 0;

		while (start < n) {
			size_t mid = start + 1, end;

			while (mid < n && !ent_before(&src[mid], &src[mid - 1]))
				mid++;
			if (mid == n) {
				if (!runs)
					return src; /* one run: sorted */
				memcpy(dst + start, src + start, (n - start) * sizeof(*src));
				runs++;
				break;
			}
			end = mid + 1;
			while (end < n && !ent_before(&src[end], &src[end - 1]))
				end++;
			merge_runs(src + start, mid - start, src + mid, end - mid, dst + start);
			runs++;
			start = end;
		}
		t = src;
		src = dst;
		dst = t;
	}
}

/* The record of entry e. */
static const struct perf_event_header *ent_rec(const struct perfdata *pd, const struct pd_ent *e)
{
	if (e->off & PD_ENT_MAPPED)
		return (const void *)(pd->map + pd->data_off + (e->off & ~PD_ENT_MAPPED));
	return (const void *)(pd->round + e->off);
}

/* Feed the round's records in time order, then empty it. */
static int flush_round(struct tdr_parser *p, tdr_sample_fn cb, void *ctx)
{
	struct perfdata *pd = p->pd;
	const struct pd_ent *ents = pd->ents;
	size_t i;
	int err = 0;

	if (pd->ent_cnt > 1) {
		err = tdr_ensure_cap(&pd->tmp, &pd->tmp_cap, sizeof(*pd->tmp), pd->ent_cnt);
		if (err)
			return err;
		ents = tdr_parser_perfdata_sort_ents(pd->ents, pd->tmp, pd->ent_cnt);
	}
	for (i = 0; i < pd->ent_cnt && !err; i++)
		err = tdr_parser__feed(p, TDR_RING_SYNTHETIC, ent_rec(pd, &ents[i]), cb, ctx);
	pd->ent_cnt = 0;
	pd->round_sz = 0;
	pd->round_held = 0;
	return err;
}

static int decompress(struct tdr_parser *p, const uint8_t *src, size_t sz, tdr_sample_fn cb,
		      void *ctx);

/* One record of sz bytes (sz >= 8, checked), from the file or the zstd stream. */
static int handle(struct tdr_parser *p, const uint8_t *rec, size_t sz, bool from_zstd,
		  tdr_sample_fn cb, void *ctx)
{
	struct perfdata *pd = p->pd;
	uint32_t type = tdr_get_le32(rec);
	size_t asz = (sz + 7) & ~(size_t)7;
	const struct perf_event_header *h;
	uint64_t t;
	int err;

	if (type == PD_REC_FINISHED_ROUND) {
		pd->rounds++;
		return flush_round(p, cb, ctx);
	}
	if (type == PD_REC_COMPRESSED || type == PD_REC_COMPRESSED2) {
		pd->compressed_records++;
		if (from_zstd)
			return 0; /* never nested */
		if (type == PD_REC_COMPRESSED)
			return decompress(p, rec + 8, sz - 8, cb, ctx);
		/* COMPRESSED2: header, u64 data_size, data padded to 8 bytes */
		if (sz < 16 || tdr_get_le64(rec + 8) > sz - 16) {
			p->stats.malformed_records++;
			return 0;
		}
		return decompress(p, rec + 16, (size_t)tdr_get_le64(rec + 8), cb, ctx);
	}
	if (type >= PD_REC_USER_FIRST) {
		pd->user_records++; /* ID_INDEX, THREAD_MAP, CPU_MAP, TIME_CONV, ... */
		/* A pipe's build-ids come as records (a file's in a feature). */
		if (type == PD_REC_HEADER_BUILD_ID && pd->pipe && !from_zstd)
			return tdr_parser_perfdata_build_id(p, rec, sz);
		return 0;
	}
	if (pd->round_held + asz > PD_MAX_ROUND) {
		if (!pd->warned_round)
			tdr_warn("perf.data round larger than %u MiB: fed early, order across "
				 "CPUs may suffer",
				 PD_MAX_ROUND >> 20);
		pd->warned_round = true;
		err = flush_round(p, cb, ctx);
		if (err)
			return err;
	}
	if (pd->ent_cnt == pd->ent_cap) { /* grows geometrically: rarely */
		err = tdr_ensure_cap(&pd->ents, &pd->ent_cap, sizeof(*pd->ents), pd->ent_cnt + 1);
		if (err)
			return err;
	}
	if (!from_zstd && sz == asz && !((uintptr_t)rec % 8)) {
		/* In the mapping, aligned: fed from there. */
		h = (const struct perf_event_header *)rec;
		pd->ents[pd->ent_cnt].off =
		    (size_t)(rec - (pd->map + pd->data_off)) | PD_ENT_MAPPED;
	} else {
		err = tdr_ensure_cap(&pd->round, &pd->round_cap, 1, pd->round_sz + asz);
		if (err)
			return err;
		memcpy(pd->round + pd->round_sz, rec, sz);
		memset(pd->round + pd->round_sz + sz, 0, asz - sz);
		h = (const struct perf_event_header *)(pd->round + pd->round_sz);
		pd->ents[pd->ent_cnt].off = pd->round_sz;
		pd->round_sz += asz;
	}
	/* Records without a time keep their place after the previous one. */
	if (tdr_decoder__time(&p->dec, h, &t))
		pd->last_time = t;
	pd->ents[pd->ent_cnt].time = pd->last_time;
	pd->ents[pd->ent_cnt].seq = pd->seq++;
	pd->ent_cnt++;
	pd->round_held += asz;
	return 0;
}

/* Take the whole records out of pend[], keep a partial one for the next chunk. */
static int drain_pending(struct tdr_parser *p, tdr_sample_fn cb, void *ctx)
{
	struct perfdata *pd = p->pd;
	size_t pos = 0;
	int err = 0;

	while (pd->pend_sz - pos >= 8) {
		uint16_t sz = tdr_get_le16(pd->pend + pos + 6);

		if (sz < 8 || tdr_get_le32(pd->pend + pos) >= PD_REC_TYPE_END) {
			/* The stream is out of step: nothing after this can be trusted. */
			p->stats.malformed_records++;
			pd->status.damaged = true;
			pos = pd->pend_sz;
			pd->warned_zstd = true;
			break;
		}
		if (sz > pd->pend_sz - pos)
			break;
		err = handle(p, pd->pend + pos, sz, true, cb, ctx);
		if (err)
			break;
		pos += sz;
	}
	memmove(pd->pend, pd->pend + pos, pd->pend_sz - pos);
	pd->pend_sz -= pos;
	return err;
}

static int decompress(struct tdr_parser *p, const uint8_t *src, size_t sz, tdr_sample_fn cb,
		      void *ctx)
{
	struct perfdata *pd = p->pd;
	ZSTD_inBuffer in = {src, sz, 0};
	ZSTD_outBuffer out;
	size_t r;
	int err;

	if (pd->warned_zstd)
		return 0; /* the stream broke earlier: the rest cannot be decoded */
	if (!pd->zds) {
		pd->zds = ZSTD_createDStream();
		if (!pd->zds)
			return -ENOMEM;
		ZSTD_initDStream(pd->zds);
	}
	do {
		err = tdr_ensure_cap(&pd->pend, &pd->pend_cap, 1, pd->pend_sz + (128u << 10));
		if (err)
			return err;
		out.dst = pd->pend + pd->pend_sz;
		out.size = pd->pend_cap - pd->pend_sz;
		out.pos = 0;
		r = ZSTD_decompressStream(pd->zds, &out, &in);
		if (ZSTD_isError(r)) {
			tdr_warn("failed to decompress perf.data records: %s; the rest of the "
				 "compressed data is skipped",
				 ZSTD_getErrorName(r));
			pd->warned_zstd = true;
			pd->status.damaged = true;
			p->stats.malformed_records++;
			return 0;
		}
		pd->pend_sz += out.pos;
		err = drain_pending(p, cb, ctx);
		if (err)
			return err;
	} while (in.pos < in.size || out.pos == out.size);
	return 0;
}

/*
 * Give back the pages of the mapping below data offset pos, once the
 * records there have all been fed (no entry of the round still points into
 * them): a big file then does not stay resident as a whole. The mapping is
 * read-only and private, so MADV_DONTNEED only drops clean page-cache
 * pages from this process; touching them again (a string the maps borrowed,
 * say) faults the same bytes back in from the file.
 */
static void release_read(struct perfdata *pd, uint64_t pos)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)pd->map + pd->released;
	uintptr_t hi = ((uintptr_t)pd->map + pd->data_off + pos) & ~(page - 1);

	if (hi <= lo)
		return;
	madvise((void *)lo, hi - lo, MADV_DONTNEED);
	pd->released = hi - (uintptr_t)pd->map;
}

int tdr_parser_perfdata_read_data(struct tdr_parser *p, tdr_sample_fn cb, void *ctx)
{
	struct perfdata *pd = p->pd;
	const uint8_t *base = pd->map + pd->data_off;
	uint64_t pos = 0, end = pd->data_sz;
	bool cut = false;
	int err;

	while (end - pos >= 8) {
		uint16_t sz = tdr_get_le16(base + pos + 6);
		uint64_t extra;

		if (sz > end - pos && sz >= 8 && pd->data_to_eof) {
			cut = true; /* the file was cut inside this record */
			break;
		}
		if (sz < 8 || sz > end - pos || tdr_get_le32(base + pos) >= PD_REC_TYPE_END) {
			/* Zeros where the file shrank under us: it ends here. */
			if (tdr_parser_perfdata_shrank(pd))
				break;
			/* A bad size, or a type no perf writes (perf: "failed to
			 * process type 4191"): the record boundaries are lost,
			 * nothing after this can be read. */
			p->stats.malformed_records++;
			pd->status.damaged = true;
			pd->status.intact_sz = pd->data_off + pos;
			tdr_warn("perf.data record at data offset %llu has a bad %s (%u): "
				 "the rest of the data section is skipped",
				 (unsigned long long)pos, sz < 8 || sz > end - pos ? "size" : "type",
				 sz < 8 || sz > end - pos ? sz : tdr_get_le32(base + pos));
			break;
		}
		extra = tdr_parser_perfdata_trailing(pd, base + pos, sz);
		if (extra > end - pos - sz) {
			cut = pd->data_to_eof;
			if (!cut) {
				p->stats.malformed_records++;
				pd->status.damaged = true;
				pd->status.intact_sz = pd->data_off + pos;
			}
			break; /* its payload runs past the end */
		}
		err = handle(p, base + pos, sz, false, cb, ctx);
		if (err)
			return err;
		pos += sz + extra;
		if (!pd->ent_cnt && pd->data_off + pos >= pd->released + PD_RELEASE_STEP)
			release_read(pd, pos);
	}
	if (pd->pipe && (cut || end - pos)) {
		/* A pipe-mode file ends after a whole record when perf finished. */
		pd->status.truncated = true;
		pd->status.has_trailer = false;
	}
	if (pd->data_to_eof && !pd->status.damaged)
		pd->status.intact_sz = pd->data_off + pos;
	else if (pd->pend_sz && !pd->warned_zstd)
		p->stats.malformed_records++; /* the zstd stream ended inside a record */
	err = flush_round(p, cb, ctx);
	tdr_parser_perfdata_shrank(pd); /* last: it lowers intact_sz */
	return err;
}
