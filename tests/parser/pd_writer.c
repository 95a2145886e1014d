/*
 * tests/parser/pd_writer.c - write perf.data files for parser tests.
 *
 * Responsibility: see pd_writer.h. The layout follows perf's header.c:
 * header | ids of each attr | attrs (perf_file_attr: attr + ids section) |
 * data | feature table (one {offset, size} per set bit, ascending) | feature
 * payloads. Strings are perf_header_string: u32 length (NUL and padding to
 * 64 bytes included) and the bytes.
 * Test code only: aborts on allocation or I/O failure.
 */
#include "pd_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct wbuf {
	uint8_t *p;
	size_t sz, cap;
};

static void put(struct wbuf *b, const void *src, size_t n)
{
	if (b->sz + n > b->cap) {
		b->cap = (b->sz + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->sz, src, n);
	b->sz += n;
}

static void put_zeros(struct wbuf *b, size_t n)
{
	static const uint8_t zeros[64];

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		put(b, zeros, k);
		n -= k;
	}
}

static void put32(struct wbuf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct wbuf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void set64(struct wbuf *b, size_t off, uint64_t v)
{
	memcpy(b->p + off, &v, 8);
}

/* perf_header_string: u32 len (NUL and padding to 64 included) + bytes. */
static void put_str(struct wbuf *b, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + 63) & ~(size_t)63;

	put32(b, (uint32_t)len);
	put(b, s, n);
	put_zeros(b, len - n);
}

/* The attr size written: o->attr_size, or this build's struct. */
static size_t attr_sz(const struct pdw_opts *o)
{
	return o->attr_size ? o->attr_size : sizeof(struct perf_event_attr);
}

/* An attr in attr_sz bytes: cut, or zero-extended, with attr.size saying so
 * (a file whose bytes do not depend on the build's kernel headers). */
static void put_attr(struct wbuf *b, const struct pdw_opts *o, const struct perf_event_attr *a)
{
	size_t n = attr_sz(o), have = sizeof(*a) < n ? sizeof(*a) : n;
	struct perf_event_attr c = *a;

	c.size = (uint32_t)n;
	put(b, &c, have);
	put_zeros(b, n - have);
}

/* One feature payload; returns whether the writer has one for bit. */
static bool put_feature(struct wbuf *b, const struct pdw_opts *o, int bit)
{
	size_t i;

	switch (bit) {
	case 2: /* BUILD_ID: perf_record_header_build_id records */
		for (i = 0; i < o->bid_cnt; i++) {
			const struct pdw_build_id *bid = &o->bids[i];
			size_t n = strlen(bid->path) + 1, padded = (n + 7) & ~(size_t)7;
			struct perf_event_header h = {67, 1u << 15, (uint16_t)(36 + padded)};
			uint8_t area[24] = {0};

			memcpy(area, bid->id, bid->sz);
			area[20] = bid->sz; /* PERF_RECORD_MISC_BUILD_ID_SIZE form */
			put(b, &h, sizeof(h));
			put32(b, (uint32_t)-1);
			put(b, area, sizeof(area));
			put(b, bid->path, n);
			put_zeros(b, padded - n);
		}
		return true;
	case 3:
		put_str(b, o->hostname);
		return true;
	case 4:
		put_str(b, o->osrelease);
		return true;
	case 5:
		put_str(b, o->version);
		return true;
	case 8: /* CPUDESC */
		put_str(b, o->cpudesc);
		return true;
	case 9:
		put_str(b, o->cpuid);
		return true;
	case 11: /* CMDLINE: string_list */
		put32(b, (uint32_t)o->argc);
		for (i = 0; i < o->argc; i++)
			put_str(b, o->argv[i]);
		return true;
	case 16: /* PMU_MAPPINGS: u32 nr, then {u32 type, string name} */
		if (o->pmu_raw_sz) {
			put(b, o->pmu_raw, o->pmu_raw_sz);
			return true;
		}
		put32(b, (uint32_t)o->pmu_cnt);
		for (i = 0; i < o->pmu_cnt; i++) {
			put32(b, o->pmus[i].type);
			put_str(b, o->pmus[i].name);
		}
		return true;
	case 12: /* EVENT_DESC */
		put32(b, (uint32_t)o->ev_cnt);
		put32(b, (uint32_t)attr_sz(o));
		for (i = 0; i < o->ev_cnt; i++) {
			put_attr(b, o, &o->ev[i].attr);
			put32(b, (uint32_t)o->ev[i].id_cnt);
			put_str(b, o->ev[i].name);
			put(b, o->ev[i].ids, o->ev[i].id_cnt * 8);
		}
		return true;
	case 17: /* GROUP_DESC */
		put32(b, (uint32_t)o->group_cnt);
		for (i = 0; i < o->group_cnt; i++) {
			put_str(b, o->groups[i].name ? o->groups[i].name : "");
			put32(b, o->groups[i].leader);
			put32(b, o->groups[i].nr);
		}
		return true;
	default:
		return false;
	}
}

/* Compress one round's bytes as chunks of the file's one zstd stream. */
static void put_compressed(struct wbuf *b, ZSTD_CStream *zs, const struct pdw_opts *o,
			   const uint8_t *src, size_t sz)
{
	uint8_t out[65536];
	size_t pos = 0;

	while (pos < sz) {
		size_t n = sz - pos < o->chunk ? sz - pos : o->chunk;
		ZSTD_inBuffer in = {src + pos, n, 0};
		ZSTD_outBuffer ob = {out, sizeof(out) - 64, 0};
		struct perf_event_header h = {o->compress, 0, 0};

		/* perf: ZSTD_compressStream, then ZSTD_flushStream; never ends the frame */
		if (ZSTD_isError(ZSTD_compressStream(zs, &ob, &in)) || in.pos != n ||
		    ZSTD_flushStream(zs, &ob) != 0)
			abort();
		if (o->compress == PDW_COMPRESSED) {
			h.size =
			    (uint16_t)(8 + ob.pos); /* unpadded: the next record is misaligned */
			put(b, &h, sizeof(h));
			put(b, out, ob.pos);
		} else {
			size_t padded = (ob.pos + 7) & ~(size_t)7;

			h.size = (uint16_t)(16 + padded);
			put(b, &h, sizeof(h));
			put64(b, ob.pos);
			put(b, out, ob.pos);
			put_zeros(b, padded - ob.pos);
		}
		pos += n;
	}
}

/* The data section: records as they are, or compressed round by round with
 * the FINISHED_ROUND records left uncompressed between them. */
static void put_data(struct wbuf *b, const struct pdw_opts *o, const uint8_t *data, size_t sz)
{
	ZSTD_CStream *zs;
	size_t pos = 0, start = 0;

	if (!o->compress) {
		put(b, data, sz);
		return;
	}
	zs = ZSTD_createCStream();
	if (!zs || ZSTD_isError(ZSTD_initCStream(zs, 3)))
		abort();
	while (pos < sz) {
		const struct perf_event_header *h = (const void *)(data + pos);

		if (h->type == PDW_FINISHED_ROUND) {
			put_compressed(b, zs, o, data + start, pos - start);
			put(b, h, h->size);
			start = pos + h->size;
		}
		pos += h->size;
	}
	put_compressed(b, zs, o, data + start, sz - start);
	ZSTD_freeCStream(zs);
}

size_t pdw_write(const char *path, const struct pdw_opts *o, const uint8_t *data, size_t sz)
{
	static const int bits[] = {2, 3, 4, 5, 8, 9, 11, 12, 16, 17};
	struct wbuf b = {0};
	uint64_t bitmap[4] = {0};
	size_t i, nfeat = 0, ids_at[64], attrs_at, data_at, tab_at;
	FILE *f;

	if (o->ev_cnt > 64)
		abort();
	put_zeros(&b, 104);
	for (i = 0; i < o->ev_cnt; i++) {
		ids_at[i] = b.sz;
		put(&b, o->ev[i].ids, o->ev[i].id_cnt * 8);
	}
	attrs_at = b.sz;
	for (i = 0; i < o->ev_cnt; i++) {
		put_attr(&b, o, &o->ev[i].attr);
		put64(&b, ids_at[i]);
		put64(&b, o->ev[i].id_cnt * 8);
	}
	data_at = b.sz;
	put_data(&b, o, data, sz);

	/* header: magic, size, attr_size, attrs, data, event_types, features */
	memcpy(b.p, "PERFILE2", 8);
	set64(&b, 8, 104);
	set64(&b, 16, attr_sz(o) + 16);
	set64(&b, 24, attrs_at);
	set64(&b, 32, data_at - attrs_at);
	set64(&b, 40, data_at);
	set64(&b, 48, o->cut == PDW_KILLED ? 0 : b.sz - data_at);
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		int bit = bits[i];
		bool have = (bit == 2 && o->bid_cnt) || (bit == 3 && o->hostname) ||
			    (bit == 4 && o->osrelease) || (bit == 5 && o->version) ||
			    (bit == 8 && o->cpudesc) ||
			    (bit == 9 && o->cpuid) || (bit == 11 && o->argc) || bit == 12 ||
			    (bit == 16 && (o->pmu_cnt || o->pmu_raw_sz)) ||
			    (bit == 17 && o->group_cnt);

		if (have) {
			bitmap[bit / 64] |= 1ULL << (bit % 64);
			nfeat++;
		}
	}
	memcpy(b.p + 72, bitmap, sizeof(bitmap));
	if (o->cut != PDW_KILLED) {
		tab_at = b.sz;
		put_zeros(&b, 16 * nfeat);
		for (i = 0, nfeat = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
			size_t at = b.sz;

			if (!(bitmap[bits[i] / 64] & (1ULL << (bits[i] % 64))))
				continue;
			put_feature(&b, o, bits[i]);
			set64(&b, tab_at + 16 * nfeat, at);
			set64(&b, tab_at + 16 * nfeat + 8, b.sz - at);
			nfeat++;
		}
	}
	if (o->cut_tail > b.sz)
		abort();
	b.sz -= o->cut_tail;
	f = fopen(path, "wb");
	if (!f || fwrite(b.p, 1, b.sz, f) != b.sz || fclose(f))
		abort();
	free(b.p);
	return b.sz;
}
