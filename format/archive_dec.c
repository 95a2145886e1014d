/*
 * format/archive_dec.c - the ARCHIVE section's decoder (docs/format.md
 * section 7.2).
 *
 * Responsibility: check section data against every rule of 7.2 before any
 * of it is used, and answer (object, offset) lookups. The body is walked
 * once to check it whole and to count; only then are the tables allocated,
 * at their exact sizes: string offsets (4 bytes per string), objects, and
 * an index of 12 bytes per address (its offset and where its answer starts
 * in the body). An answer is decoded from the body when it is looked up,
 * so memory stays proportional to the addresses, not to their inline
 * chains. Any broken rule makes the whole archive unusable: a reader then
 * symbolizes as if the file had none (the caller reports it).
 * What it does not do: decide what a missing answer means (symbolize/).
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
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"


#include "tdrec/tdr_log.h"

struct tdr_archive {
	uint8_t *body; /* raw_sz bytes, a copy (or the decompressed body) */
	size_t raw_sz;
	char *chars;	   /* every string, NUL-terminated */
	uint32_t *str_off; /* string i starts at chars + str_off[i] */
	size_t str_cnt;
	struct tdr_archive_dso *dsos;
	size_t dso_cnt;
	uint64_t *offs; /* per address, ascending within each object */
	uint32_t *pos;	/* per address: its answer in the body */
	struct arch_stacks_d stacks; /* the stacks part, when the body has one */
	struct tdr_archive_stats st;
};

struct rd {
	const uint8_t *p, *end;
};

static int rd_v(struct rd *r, uint64_t *v)
{
	return get_varint(&r->p, r->end, v);
}

static int rd_u8(struct rd *r, uint8_t *v)
{
	if (r->p == r->end)
		return -1;
	*v = *r->p++;
	return 0;
}

/* A string reference: below cnt; opt: 0 (none) or an index + 1, kept so. */
static int rd_ref(struct rd *r, size_t cnt, bool opt, uint64_t *v)
{
	if (rd_v(r, v))
		return -1;
	return *v < cnt + opt ? 0 : -1;
}

/*
 * One answer from r (after the offset delta). str_cnt bounds the string
 * references. With a, fills out and frames; without, only checks.
 * Returns 0 or -1.
 */
static int rd_sym(struct rd *r, size_t str_cnt, const struct tdr_archive *a,
		  struct tdr_archive_sym *out, struct tdr_archive_frame *frames,
		  uint64_t *inl_total)
{
	uint64_t fn, foff, fsz, file, line, col, n;
	uint8_t st;

	if (rd_u8(r, &st) || st > TDR_ARCHIVE_SYM_NO_SYMBOL)
		return -1;
	if (out)
		memset(out, 0, sizeof(*out));
	if (out)
		out->status = st;
	if (st != TDR_ARCHIVE_SYM_OK)
		return 0;
	if (rd_ref(r, str_cnt, false, &fn) || rd_v(r, &foff) || rd_v(r, &fsz) ||
	    rd_ref(r, str_cnt, true, &file) || rd_v(r, &line) || line > UINT32_MAX ||
	    rd_v(r, &col) || col > UINT32_MAX || rd_v(r, &n) || n > TDR_ARCHIVE_MAX_INLINES)
		return -1;
	if (out) {
		out->function = a->chars + a->str_off[fn];
		out->function_offset = foff;
		out->function_size = fsz;
		out->file = file == 0 ? NULL : a->chars + a->str_off[file - 1];
		out->line = (uint32_t)line;
		out->column = (uint32_t)col;
		out->inline_cnt = (uint32_t)n;
		out->inlines = n ? frames : NULL;
	}
	for (uint64_t j = 0; j < n; j++) {
		uint64_t f, cf, cl, cc;

		if (rd_ref(r, str_cnt, true, &f) || rd_ref(r, str_cnt, true, &cf) || rd_v(r, &cl) ||
		    cl > UINT32_MAX || rd_v(r, &cc) || cc > UINT32_MAX)
			return -1;
		if (out) {
			frames[j].function = f == 0 ? NULL : a->chars + a->str_off[f - 1];
			frames[j].call_file = cf == 0 ? NULL : a->chars + a->str_off[cf - 1];
			frames[j].call_line = (uint32_t)cl;
			frames[j].call_column = (uint32_t)cc;
		}
	}
	if (inl_total)
		*inl_total += n;
	return 0;
}

/* Header and body: a->body and a->raw_sz. */
static int load_body(struct tdr_archive *a, const uint8_t *d, size_t sz)
{
	uint32_t raw_sz;
	uint8_t method;
	size_t got;

	TDR_BAIL_IF(sz < TDR_ARCHIVE_HDR_SZ, -TDR_E_CORRUPT, "archive: %zu bytes", sz);
	raw_sz = tdr_get_le32(d + TDR_ARCHIVE_OFF_RAW_SZ);
	method = d[TDR_ARCHIVE_OFF_METHOD];
	TDR_BAIL_IF(method > TDR_ARCHIVE_ZSTD, -TDR_E_CORRUPT, "archive: method %u", method);
	TDR_BAIL_IF(raw_sz > TDR_ARCHIVE_MAX_RAW, -TDR_E_LIMIT, "archive: body of %u bytes", raw_sz);
	TDR_BAIL_IF(method == TDR_ARCHIVE_STORED && sz - TDR_ARCHIVE_HDR_SZ != raw_sz,
		    -TDR_E_CORRUPT, "archive: stored body of %zu bytes, not %u",
		    sz - TDR_ARCHIVE_HDR_SZ, raw_sz);
	a->body = tdr_malloc(raw_sz ? raw_sz : 1);
	if (!a->body)
		return -ENOMEM;
	a->raw_sz = raw_sz;
	if (method == TDR_ARCHIVE_STORED) {
		memcpy(a->body, d + TDR_ARCHIVE_HDR_SZ, raw_sz);
		return 0;
	}
	{
		unsigned long long fsz = ZSTD_getFrameContentSize(d + TDR_ARCHIVE_HDR_SZ,
								  sz - TDR_ARCHIVE_HDR_SZ);
		size_t csz = ZSTD_findFrameCompressedSize(d + TDR_ARCHIVE_HDR_SZ,
							  sz - TDR_ARCHIVE_HDR_SZ);

		/* One frame, filling the data, of the size the header says. */
		TDR_BAIL_IF(ZSTD_isError(csz) || csz != sz - TDR_ARCHIVE_HDR_SZ ||
				(fsz != ZSTD_CONTENTSIZE_UNKNOWN && fsz != raw_sz),
			    -TDR_E_CORRUPT, "archive: zstd frame");
	}
	got = ZSTD_decompress(a->body, raw_sz, d + TDR_ARCHIVE_HDR_SZ, sz - TDR_ARCHIVE_HDR_SZ);
	TDR_BAIL_IF(ZSTD_isError(got), -TDR_E_ZSTD, "archive: %s", ZSTD_getErrorName(got));
	TDR_BAIL_IF(got != raw_sz, -TDR_E_CORRUPT, "archive: %zu bytes decompressed, not %u", got,
		    raw_sz);
	return 0;
}

/* The string table: a->chars, a->str_off. */
static int load_strings(struct tdr_archive *a, struct rd *r)
{
	const uint8_t *start;
	uint64_t cnt, n = 0, bytes = 0;
	size_t at = 0;

	TDR_BAIL_IF(rd_v(r, &cnt) || cnt > (uint64_t)(r->end - r->p) / 2, -TDR_E_CORRUPT,
		    "archive: string count");
	start = r->p;
	for (uint64_t i = 0; i < cnt; i++) {
		TDR_BAIL_IF(rd_v(r, &n) || n == 0 || n > TDR_ARCHIVE_STR_MAX ||
				n > (uint64_t)(r->end - r->p) || memchr(r->p, 0, n),
			    -TDR_E_CORRUPT, "archive: string %llu", (unsigned long long)i);
		r->p += n;
		bytes += n;
	}
	a->str_cnt = cnt;
	a->str_off = tdr_malloc((cnt + 1) * sizeof(*a->str_off));
	a->chars = tdr_malloc(bytes + cnt + 1);
	if (!a->str_off || !a->chars)
		return -ENOMEM;
	r->p = start;
	for (uint64_t i = 0; i < cnt; i++) {
		(void)rd_v(r, &n); /* checked above */
		a->str_off[i] = (uint32_t)at;
		memcpy(a->chars + at, r->p, n);
		a->chars[at + n] = '\0';
		at += n + 1;
		r->p += n;
	}
	return 0;
}

/* The object list: a->dsos with their address counts. */
static int load_dsos(struct tdr_archive *a, struct rd *r, uint64_t *addr_total)
{
	uint64_t cnt, path, n;

	TDR_BAIL_IF(rd_v(r, &cnt) || cnt > (uint64_t)(r->end - r->p) / 4, -TDR_E_CORRUPT,
		    "archive: object count");
	a->dsos = tdr_calloc(cnt + 1, sizeof(*a->dsos));
	if (!a->dsos)
		return -ENOMEM;
	a->dso_cnt = cnt;
	*addr_total = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		struct tdr_archive_dso *d = &a->dsos[i];

		TDR_BAIL_IF(rd_u8(r, &d->kind) || d->kind > TDR_ARCHIVE_KERNEL ||
				rd_ref(r, a->str_cnt, false, &path) || rd_u8(r, &d->build_id_sz) ||
				d->build_id_sz > TDR_ARCHIVE_BUILD_ID_MAX ||
				d->build_id_sz > (size_t)(r->end - r->p),
			    -TDR_E_CORRUPT, "archive: object %llu", (unsigned long long)i);
		memcpy(d->build_id, r->p, d->build_id_sz);
		r->p += d->build_id_sz;
		TDR_BAIL_IF(rd_v(r, &n) || n > (uint64_t)(r->end - r->p) / 2, -TDR_E_CORRUPT,
			    "archive: address count of object %llu", (unsigned long long)i);
		d->path = a->chars + a->str_off[path];
		d->first = *addr_total;
		d->cnt = n;
		*addr_total += n;
		/* Every address takes at least two bytes of the body. */
		TDR_BAIL_IF(*addr_total > a->raw_sz / 2, -TDR_E_CORRUPT, "archive: address count");
	}
	return 0;
}

/* The addresses: checked whole, indexed. */
static int load_addrs(struct tdr_archive *a, struct rd *r, uint64_t total)
{
	a->offs = tdr_malloc((total + 1) * sizeof(*a->offs));
	a->pos = tdr_malloc((total + 1) * sizeof(*a->pos));
	if (!a->offs || !a->pos)
		return -ENOMEM;
	for (size_t i = 0; i < a->dso_cnt; i++) {
		const struct tdr_archive_dso *d = &a->dsos[i];
		uint64_t off = 0;

		for (size_t j = 0; j < d->cnt; j++) {
			uint64_t delta;
			bool fn;

			TDR_BAIL_IF(rd_v(r, &delta) || (j && (delta == 0 || off + delta < off)),
				    -TDR_E_CORRUPT, "archive: offset %zu of object %zu", j, i);
			off = j ? off + delta : delta;
			a->offs[d->first + j] = off;
			a->pos[d->first + j] = (uint32_t)(r->p - a->body);
			fn = r->p < r->end && *r->p == TDR_ARCHIVE_SYM_OK;
			TDR_BAIL_IF(rd_sym(r, a->str_cnt, NULL, NULL, NULL, &a->st.inline_frames),
				    -TDR_E_CORRUPT, "archive: answer %zu of object %zu", j, i);
			a->st.functions += fn;
		}
	}
	/* Bytes after the last answer are the stacks part. */
	if (r->p != r->end) {
		int err = tdr_archive_stacks_d__load(&a->stacks, &r->p, r->end);

		TDR_BAIL_IF(err == -TDR_E_CORRUPT, err, "archive: stacks part");
		if (err)
			return err;
	}
	return 0;
}

int tdr_archive__decode(const void *data, size_t sz, struct tdr_archive **out)
{
	struct tdr_archive *a = tdr_calloc(1, sizeof(*a));
	struct rd r;
	uint64_t total = 0;
	int err;

	if (!a)
		return -ENOMEM;
	err = load_body(a, data, sz);
	if (!err) {
		r = (struct rd){.p = a->body, .end = a->body + a->raw_sz};
		err = load_strings(a, &r);
	}
	if (!err)
		err = load_dsos(a, &r, &total);
	if (!err)
		err = load_addrs(a, &r, total);
	if (err) {
		tdr_archive__free(a);
		return err;
	}
	a->st.dsos = a->dso_cnt;
	a->st.addrs = total;
	a->st.strings = a->str_cnt;
	a->st.data_sz = sz;
	a->st.raw_sz = a->raw_sz;
	a->st.stacks = a->stacks.stk_cnt;
	a->st.stack_samples = a->stacks.samples;
	*out = a;
	return 0;
}

size_t tdr_archive__dso_cnt(const struct tdr_archive *a)
{
	return a->dso_cnt;
}

const struct tdr_archive_dso *tdr_archive__dso(const struct tdr_archive *a, size_t idx)
{
	return idx < a->dso_cnt ? &a->dsos[idx] : NULL;
}

const struct tdr_archive_stats *tdr_archive__stats(const struct tdr_archive *a)
{
	return &a->st;
}

long tdr_archive__find_dso(const struct tdr_archive *a, uint8_t kind, const char *path,
			   const uint8_t *build_id, size_t build_id_sz)
{
	long same_id = -1;

	if (!build_id)
		build_id_sz = 0;
	for (size_t i = 0; i < a->dso_cnt; i++) {
		const struct tdr_archive_dso *d = &a->dsos[i];
		bool id_eq = d->build_id_sz == build_id_sz &&
			     !memcmp(d->build_id, build_id ? build_id : d->build_id, build_id_sz);

		if (d->kind != kind || !id_eq)
			continue;
		if (path && !strcmp(d->path, path))
			return (long)i;
		if (build_id_sz && same_id < 0)
			same_id = (long)i;
	}
	return same_id;
}

long tdr_archive__find(const struct tdr_archive *a, size_t dso, uint64_t off,
		       struct tdr_archive_sym *out, struct tdr_archive_frame *frames)
{
	const struct tdr_archive_dso *d;
	size_t lo = 0, hi;
	struct rd r;

	if (dso >= a->dso_cnt)
		return -1;
	d = &a->dsos[dso];
	hi = d->cnt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->offs[d->first + mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->cnt || a->offs[d->first + lo] != off)
		return -1;
	r = (struct rd){.p = a->body + a->pos[d->first + lo], .end = a->body + a->raw_sz};
	/* Checked at decode: cannot fail. */
	if (rd_sym(&r, a->str_cnt, a, out, frames, NULL))
		return -1;
	return (long)(d->first + lo);
}

bool tdr_archive__has_stacks(const struct tdr_archive *a, uint64_t *frame_cnt)
{
	*frame_cnt = a->stacks.frame_cnt;
	return a->stacks.present;
}

uint32_t tdr_archive__stack(const struct tdr_archive *a, uint64_t frame, uint32_t ord,
			    const uint64_t **pcs)
{
	const struct arch_stacks_d *s = &a->stacks;
	uint32_t e, k;

	if (!s->present || frame >= s->frame_cnt ||
	    ord >= s->frame_first[frame + 1] - s->frame_first[frame])
		return 0;
	e = s->ent[s->frame_first[frame] + ord];
	if (!e)
		return 0;
	k = e - 1;
	*pcs = s->pcs + s->stk_first[k];
	return s->stk_first[k + 1] - s->stk_first[k];
}

void tdr_archive__free(struct tdr_archive *a)
{
	if (!a)
		return;
	free(a->body);
	free(a->chars);
	free(a->str_off);
	free(a->dsos);
	free(a->offs);
	free(a->pos);
	tdr_archive_stacks_d__fini(&a->stacks);
	free(a);
}
