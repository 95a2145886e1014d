/*
 * export/pprof.c - a profile as gzip'd profile.proto (pprof, Pyroscope, Parca).
 *
 * Responsibility: encode the profile in the protocol buffer wire format
 * (varints, length-delimited fields, packed repeated scalars) with the
 * message and field numbers of proto/profile.proto of
 * github.com/google/pprof, and gzip it with zlib. One sample type per value
 * ("samples" first and the default_sample_type, then every event, "slots"
 * and the slots of every TopDown category); one sample per stack, its
 * location ids leaf first; one location per address with its lines
 * innermost inline first; mappings with their build-id (hex, as perf and
 * pprof write it), functions with name, file and the line of the address.
 * Values are rounded to integers (category slots of formulas with
 * coefficients are fractional). docs/export.md "pprof".
 * Not here: what the values are (model.c).
 */
#include "export_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1,
	VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void put_varint(struct ex_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	tdr_export_buf_put(b, tmp, n);
}

static void put_tag(struct ex_buf *b, unsigned field, unsigned wire)
{
	put_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zeros out. */
static void put_uint(struct ex_buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	put_tag(b, field, WIRE_VARINT);
	put_varint(b, v);
}

static void put_bytes(struct ex_buf *b, unsigned field, const void *p, size_t n)
{
	put_tag(b, field, WIRE_LEN);
	put_varint(b, n);
	tdr_export_buf_put(b, p, n);
}

/* A nested message built in sub; sub is emptied for reuse. */
static void put_msg(struct ex_buf *b, unsigned field, struct ex_buf *sub)
{
	if (sub->oom)
		b->oom = true;
	put_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
}

/* ---- the string table ------------------------------------------------------ */

struct strtab {
	struct tdr_intern in;
	struct tdr_u64map idx; /* interned pointer -> index */
	const char **list;
	size_t cnt, cap;
	bool oom;
};

static uint64_t str_id(struct strtab *t, const char *s)
{
	const char *k;
	uint32_t i;

	if (!s || !*s || t->oom)
		return 0;
	k = tdr_intern__str(&t->in, s);
	if (!k)
		goto oom;
	i = tdr_u64map__get(&t->idx, (uintptr_t)k);
	if (i != TDR_HMAP_NONE)
		return i;
	if (tdr_ensure_cap(&t->list, &t->cap, sizeof(*t->list), t->cnt + 1) ||
	    tdr_u64map__put(&t->idx, (uintptr_t)k, (uint32_t)t->cnt))
		goto oom;
	t->list[t->cnt] = k;
	return t->cnt++;
oom:
	t->oom = true;
	return 0;
}

static void strtab_release(struct strtab *t)
{
	tdr_intern__fini(&t->in);
	tdr_u64map__fini(&t->idx);
	free(t->list);
}

/* ---- messages -------------------------------------------------------------- */

static void put_value_type(struct ex_buf *b, struct ex_buf *sub, unsigned field,
			   struct strtab *st, const char *type, const char *unit)
{
	put_uint(sub, VALUETYPE_TYPE, str_id(st, type));
	put_uint(sub, VALUETYPE_UNIT, str_id(st, unit));
	put_msg(b, field, sub);
}

/* Signed values as two's complement varints (int64 in proto3). */
static void put_packed_values(struct ex_buf *sub, struct ex_buf *pk, const struct tdr_profile *p,
			      size_t s)
{
	for (size_t v = 0; v < p->value_cnt; v++) {
		double x = tdr_export_stack_value(p, s, v);

		put_varint(pk, (uint64_t)(int64_t)llround(isfinite(x) ? x : 0.0));
	}
	put_msg(sub, SAMPLE_VALUE, pk);
}

static void put_samples(struct ex_buf *b, struct ex_buf *sub, struct ex_buf *pk,
			const struct tdr_profile *p)
{
	for (size_t s = 0; s < p->stack_cnt; s++) {
		const struct ex_stack *st = &p->stacks[s];

		for (size_t i = 0; i < st->cnt; i++)
			put_varint(pk, (uint64_t)p->stack_locs[st->first + i] + 1);
		put_msg(sub, SAMPLE_LOCATION_ID, pk);
		put_packed_values(sub, pk, p, s);
		put_msg(b, PROFILE_SAMPLE, sub);
	}
}

static void put_mappings(struct ex_buf *b, struct ex_buf *sub, const struct tdr_profile *p,
			 struct strtab *st)
{
	for (size_t i = 0; i < p->map_cnt; i++) {
		const struct ex_mapping *m = &p->maps[i];
		char hex[2 * sizeof(m->build_id) + 1];

		for (size_t j = 0; j < m->build_id_sz; j++)
			snprintf(hex + 2 * j, 3, "%02x", m->build_id[j]);
		hex[2 * m->build_id_sz] = '\0';
		put_uint(sub, MAPPING_ID, i + 1);
		put_uint(sub, MAPPING_MEMORY_START, m->start);
		put_uint(sub, MAPPING_MEMORY_LIMIT, m->limit);
		put_uint(sub, MAPPING_FILE_OFFSET, m->pgoff);
		put_uint(sub, MAPPING_FILENAME, str_id(st, m->path));
		put_uint(sub, MAPPING_BUILD_ID, str_id(st, hex));
		/* The locations are symbolized already: pprof must not try. */
		put_uint(sub, MAPPING_HAS_FUNCTIONS, 1);
		put_uint(sub, MAPPING_HAS_FILENAMES, 1);
		put_uint(sub, MAPPING_HAS_LINE_NUMBERS, 1);
		put_uint(sub, MAPPING_HAS_INLINE_FRAMES, 1);
		put_msg(b, PROFILE_MAPPING, sub);
	}
}

static void put_locations(struct ex_buf *b, struct ex_buf *sub, struct ex_buf *line,
			  const struct tdr_profile *p)
{
	for (size_t i = 0; i < p->loc_cnt; i++) {
		const struct ex_loc *l = &p->locs[i];

		put_uint(sub, LOCATION_ID, i + 1);
		put_uint(sub, LOCATION_MAPPING_ID, l->mapping);
		put_uint(sub, LOCATION_ADDRESS, l->address);
		for (size_t j = 0; j < l->line_cnt; j++) {
			const struct ex_line *ln = &p->lines[l->line_first + j];

			put_uint(line, LINE_FUNCTION_ID, (uint64_t)ln->func + 1);
			put_uint(line, LINE_LINE, ln->line);
			put_msg(sub, LOCATION_LINE, line);
		}
		put_msg(b, PROFILE_LOCATION, sub);
	}
}

static void put_functions(struct ex_buf *b, struct ex_buf *sub, const struct tdr_profile *p,
			  struct strtab *st)
{
	for (size_t i = 0; i < p->func_cnt; i++) {
		const struct ex_func *f = &p->funcs[i];
		uint64_t name = str_id(st, f->name);

		put_uint(sub, FUNCTION_ID, i + 1);
		put_uint(sub, FUNCTION_NAME, name);
		put_uint(sub, FUNCTION_SYSTEM_NAME, name);
		put_uint(sub, FUNCTION_FILENAME, str_id(st, f->file));
		put_msg(b, PROFILE_FUNCTION, sub);
	}
}

/* The first sampling event's name and unit, for period_type. */
static void put_period(struct ex_buf *b, struct ex_buf *sub, const struct tdr_profile *p,
		       struct strtab *st)
{
	for (size_t v = 0; p->period && v < p->value_cnt; v++) {
		if (p->values[v].kind != EXV_EVENT)
			continue;
		put_value_type(b, sub, PROFILE_PERIOD_TYPE, st, p->values[v].name, p->values[v].unit);
		put_uint(b, PROFILE_PERIOD, p->period);
		return;
	}
}

static int encode(const struct tdr_profile *p, struct ex_buf *b)
{
	struct ex_buf sub = {0}, pk = {0};
	struct strtab st = {0};
	uint64_t from, until;
	char comment[512];
	int err = 0;

	st.cnt = 1; /* string 0 is "" */
	if (tdr_ensure_cap(&st.list, &st.cap, sizeof(*st.list), 1))
		return -ENOMEM;
	st.list[0] = "";
	for (size_t v = 0; v < p->value_cnt; v++)
		put_value_type(b, &sub, PROFILE_SAMPLE_TYPE, &st, p->values[v].name,
			       p->values[v].unit);
	put_samples(b, &sub, &pk, p);
	put_mappings(b, &sub, p, &st);
	put_locations(b, &sub, &pk, p);
	put_functions(b, &sub, p, &st);
	tdr_profile__span(p, &from, &until); /* time_nanos 0: unknown */
	put_uint(b, PROFILE_TIME_NANOS, from);
	put_uint(b, PROFILE_DURATION_NANOS, until - from);
	put_period(b, &sub, p, &st);
	snprintf(comment, sizeof(comment), "tdrec export: %s (plan %s, host %s)", p->command,
		 p->plan, p->host);
	put_uint(b, PROFILE_COMMENT, str_id(&st, comment));
	put_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(&st, "samples"));
	/* The string table last: every index is known now. */
	for (size_t i = 0; i < st.cnt; i++)
		put_bytes(b, PROFILE_STRING_TABLE, st.list[i], strlen(st.list[i]));
	if (b->oom || sub.oom || pk.oom || st.oom)
		err = -ENOMEM;
	tdr_export_buf_release(&sub);
	tdr_export_buf_release(&pk);
	strtab_release(&st);
	return err;
}

/* gzip (RFC 1952) of in through zlib's deflate with a gzip wrapper. */
static int gzip(const struct ex_buf *in, uint8_t **buf, size_t *sz)
{
	z_stream z = {0};
	uLong cap;
	uint8_t *out;
	int zr;

	/* windowBits 15 + 16: a gzip header and trailer (zlib.h). */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, in->len) + 32;
	out = tdr_malloc(cap);
	if (!out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = in->p;
	z.avail_in = (uInt)in->len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	zr = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (zr != Z_STREAM_END || in->len > UINT32_MAX) {
		free(out);
		return -TDR_E_LIMIT;
	}
	*buf = out;
	*sz = cap - z.avail_out;
	return 0;
}

int tdr_export_pprof(const struct tdr_profile *p, uint8_t **buf, size_t *sz)
{
	struct ex_buf b = {0};
	int err = encode(p, &b);

	if (!err)
		err = gzip(&b, buf, sz);
	tdr_export_buf_release(&b);
	return err;
}
