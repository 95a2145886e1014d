/*
 * format/meta_codec.c - struct tdr_meta to and from the METADATA payload.
 *
 * Responsibility: encode the recording metadata as TLV items and decode them
 * back, with every length checked against the caps of docs/format.md
 * section 10 before anything is allocated. Unknown tags are skipped (a newer
 * minor version may add fields); known tags with a wrong length are corrupt.
 * Ownership: decode fills a caller-owned struct tdr_meta; on failure it is
 * cleared again, so the caller never sees a half-built one.
 * Invariants: every allocation is bounded by the payload bytes that describe
 * it (an array grows one present item at a time, or is sized from a count
 * that was checked against the item length).
 * See: docs/format.md sections 4 (TLV) and 5 (metadata).
 */
#define LOG_PREFIX "format: "
#include "format_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* ---------------------------------------------------------------------------
 * Encoding (writer side). Caps are enforced here too, so that a file this
 * version writes is always one this version reads.
 */

static void put_terms(struct tdr_buf *b, uint32_t tag, const struct tdr_term *t, size_t cnt)
{
	for (size_t i = 0; i < cnt; i++) {
		uint8_t v[TDR_TERM_SZ];
		uint64_t bits;

		memcpy(&bits, &t[i].coef, sizeof(bits)); /* IEEE-754 binary64 */
		tdr_put_le32(v, t[i].event_idx);
		tdr_put_le32(v + 4, 0);
		tdr_put_le64(v + 8, bits);
		tdr_buf__tlv(b, tag, v, sizeof(v));
	}
}

/* Weighted terms (section 5.2, WPART): each a nested item of its TERM and
 * its weight's NUM and DEN. */
static void put_wterms(struct tdr_buf *b, uint32_t tag, const struct tdr_wterm *t, size_t cnt)
{
	for (size_t i = 0; t && i < cnt; i++) {
		size_t pos = tdr_buf__tlv_begin(b, tag);
		const struct tdr_term term = {t[i].event_idx, t[i].coef};

		put_terms(b, TDR_WT_TERM, &term, 1);
		put_terms(b, TDR_CT_NUM, t[i].w.num, t[i].w.num ? t[i].w.num_cnt : 0);
		put_terms(b, TDR_CT_DEN, t[i].w.den, t[i].w.den ? t[i].w.den_cnt : 0);
		tdr_buf__tlv_end(b, pos);
	}
}

static void put_event(struct tdr_buf *b, const struct tdr_event_desc *e)
{
	size_t pos = tdr_buf__tlv_begin(b, TDR_MT_EVENT);
	uint8_t *p;

	tdr_buf__tlv_str(b, TDR_ET_NAME, e->name ? e->name : "");
	tdr_buf__tlv_str(b, TDR_ET_PMU_NAME, e->pmu_name);
	tdr_buf__tlv_u32(b, TDR_ET_PMU_TYPE, e->pmu_type);
	tdr_buf__tlv_u32(b, TDR_ET_FLAGS, e->flags);
	tdr_buf__tlv_u32(b, TDR_ET_GROUP_IDX, e->group_idx);
	/* The attr in the kernel's own layout (little-endian hosts only, see
	 * format_int.h): all of this build's struct, whatever attr.size says. */
	tdr_buf__tlv(b, TDR_ET_ATTR, &e->attr, sizeof(e->attr));
	if (e->id_cnt && e->ids) {
		p = tdr_buf__put(b, TDR_TLV_HDR_SZ + 8 + e->id_cnt * TDR_ID_ENTRY_SZ);
		if (p) {
			tdr_put_le32(p, TDR_ET_IDS);
			tdr_put_le32(p + 4, (uint32_t)(8 + e->id_cnt * TDR_ID_ENTRY_SZ));
			tdr_put_le32(p + 8, (uint32_t)e->id_cnt);
			tdr_put_le32(p + 12, 0);
			p += 16;
			for (size_t i = 0; i < e->id_cnt; i++, p += TDR_ID_ENTRY_SZ) {
				tdr_put_le32(p, e->ids[i].cpu);
				tdr_put_le32(p + 4, e->ids[i].pid);
				tdr_put_le64(p + 8, e->ids[i].id);
			}
		}
	}
	tdr_buf__tlv_end(b, pos);
}

static void put_category(struct tdr_buf *b, const struct tdr_category *c)
{
	size_t pos = tdr_buf__tlv_begin(b, TDR_MT_CATEGORY);

	tdr_buf__tlv_str(b, TDR_CT_NAME, c->name ? c->name : "");
	tdr_buf__tlv_str(b, TDR_CT_PARENT, c->parent);
	tdr_buf__tlv_u32(b, TDR_CT_LEVEL, c->level);
	tdr_buf__tlv_u32(b, TDR_CT_FLAGS, c->flags);
	put_terms(b, TDR_CT_NUM, c->num, c->num ? c->num_cnt : 0);
	put_terms(b, TDR_CT_DEN, c->den, c->den ? c->den_cnt : 0);
	/* A category with a weighted term writes every part as WPART: an
	 * older reader skips them all and gets no value, never a part of one. */
	bool weighted = tdr_category__weighted(c);

	for (size_t p = 0; c->parts && p < c->part_cnt; p++) {
		size_t part_pos = tdr_buf__tlv_begin(b, weighted ? TDR_CT_WPART : TDR_CT_PART);

		for (size_t f = 0; f < c->parts[p].factor_cnt; f++) {
			const struct tdr_ratio *r = &c->parts[p].factors[f];
			size_t fpos = tdr_buf__tlv_begin(b, TDR_PT_FACTOR);

			put_terms(b, TDR_CT_NUM, r->num, r->num ? r->num_cnt : 0);
			put_terms(b, TDR_CT_DEN, r->den, r->den ? r->den_cnt : 0);
			put_wterms(b, TDR_FT_WNUM, r->wnum, r->wnum_cnt);
			put_wterms(b, TDR_FT_WDEN, r->wden, r->wden_cnt);
			tdr_buf__tlv_end(b, fpos);
		}
		tdr_buf__tlv_end(b, part_pos);
	}
	tdr_buf__tlv_end(b, pos);
}

/* The product form's caps (section 10); a category has one form. */
static bool category_within_caps(const struct tdr_category *c)
{
	if (c->num_cnt > TDR_MAX_TERMS || c->den_cnt > TDR_MAX_TERMS ||
	    c->part_cnt > TDR_CATEGORY_MAX_PARTS || (c->part_cnt && (c->num_cnt || c->den_cnt)))
		return false;
	for (size_t p = 0; p < c->part_cnt; p++) {
		const struct tdr_part *part = &c->parts[p];

		if (!part->factor_cnt || part->factor_cnt > TDR_CATEGORY_MAX_FACTORS)
			return false;
		for (size_t f = 0; f < part->factor_cnt; f++) {
			const struct tdr_ratio *r = &part->factors[f];

			/* A factor needs a plain denominator term (section 5.2). */
			if (r->num_cnt > TDR_MAX_TERMS || !r->den_cnt || r->den_cnt > TDR_MAX_TERMS ||
			    r->wnum_cnt > TDR_MAX_TERMS || r->wden_cnt > TDR_MAX_TERMS)
				return false;
			for (size_t k = 0; k < r->wnum_cnt + r->wden_cnt; k++) {
				const struct tdr_ratio *w = k < r->wnum_cnt
								? &r->wnum[k].w
								: &r->wden[k - r->wnum_cnt].w;

				if (w->num_cnt > TDR_MAX_TERMS || !w->den_cnt ||
				    w->den_cnt > TDR_MAX_TERMS || w->wnum_cnt || w->wden_cnt)
					return false;
			}
		}
	}
	return true;
}

bool tdr_meta__has_products(const struct tdr_meta *m)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (m->categories[i].part_cnt)
			return true;
	return false;
}

bool tdr_meta__has_weighted(const struct tdr_meta *m)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (tdr_category__weighted(&m->categories[i]))
			return true;
	return false;
}

static bool meta_within_caps(const struct tdr_meta *m)
{
	if (m->event_cnt > TDR_MAX_EVENTS || m->category_cnt > TDR_MAX_CATEGORIES ||
	    m->argc > TDR_MAX_STRV || m->note_cnt > TDR_MAX_STRV)
		return false;
	for (size_t i = 0; i < m->event_cnt; i++) {
		if (m->events[i].id_cnt > TDR_MAX_IDS)
			return false;
	}
	for (size_t i = 0; i < m->category_cnt; i++) {
		if (!category_within_caps(&m->categories[i]))
			return false;
	}
	return true;
}

void tdr_meta__encode(struct tdr_buf *b, const struct tdr_meta *m)
{
	uint8_t sig[TDR_CPU_SIG_SZ];
	size_t start = b->sz;

	if (!meta_within_caps(m)) {
		if (!b->err)
			b->err = -TDR_E_LIMIT;
		return;
	}
	tdr_buf__tlv_str(b, TDR_MT_TDREC_VERSION, m->tdrec_version);
	for (size_t i = 0; m->argv && i < m->argc; i++)
		tdr_buf__tlv_str(b, TDR_MT_ARG, m->argv[i] ? m->argv[i] : "");
	tdr_buf__tlv_str(b, TDR_MT_HOSTNAME, m->hostname);
	tdr_buf__tlv_str(b, TDR_MT_KERNEL_RELEASE, m->kernel_release);
	tdr_buf__tlv_str(b, TDR_MT_BOOT_ID, m->boot_id);
	tdr_buf__tlv_str(b, TDR_MT_CPU_VENDOR, m->cpu_vendor);
	tdr_buf__tlv_str(b, TDR_MT_CPU_MODEL_NAME, m->cpu_model_name);
	tdr_put_le32(sig, m->cpu_family);
	tdr_put_le32(sig + 4, m->cpu_model);
	tdr_put_le32(sig + 8, m->cpu_stepping);
	tdr_buf__tlv(b, TDR_MT_CPU_SIG, sig, sizeof(sig));
	tdr_buf__tlv_u32(b, TDR_MT_PAGE_SZ, m->page_sz);
	tdr_buf__tlv_u32(b, TDR_MT_NR_CPUS, m->nr_cpus);
	tdr_buf__tlv_str(b, TDR_MT_PLAN_NAME, m->plan_name);
	tdr_buf__tlv_u32(b, TDR_MT_FLAGS, m->flags);
	tdr_buf__tlv_u32(b, TDR_MT_CLOCKID, (uint32_t)m->clockid);
	tdr_buf__tlv_u64(b, TDR_MT_START_WALL_NS, m->start_wall_ns);
	tdr_buf__tlv_u64(b, TDR_MT_START_CLOCK_NS, m->start_clock_ns);
	tdr_buf__tlv_u64(b, TDR_MT_SAMPLE_PERIOD, m->sample_period);
	tdr_buf__tlv_u64(b, TDR_MT_SAMPLE_FREQ, m->sample_freq);
	for (size_t i = 0; m->events && i < m->event_cnt; i++)
		put_event(b, &m->events[i]);
	for (size_t i = 0; m->categories && i < m->category_cnt; i++)
		put_category(b, &m->categories[i]);
	for (size_t i = 0; m->notes && i < m->note_cnt; i++)
		tdr_buf__tlv_str(b, TDR_MT_NOTE, m->notes[i] ? m->notes[i] : "");
	if (!b->err && b->sz - start > TDR_MAX_META_SZ)
		b->err = -TDR_E_LIMIT;
}

/* ---------------------------------------------------------------------------
 * Decoding (reader side). Every function returns 0 or a negative code and
 * leaves what it allocated reachable from meta, so one tdr_meta__clear on
 * failure frees everything.
 */

/* A string value: at most TDR_MAX_STR_SZ bytes, no NUL inside. Replaces and
 * frees a previous value (a repeated tag: the last one wins). */
static int get_str(const uint8_t *val, size_t len, char **out)
{
	char *s;

	TDR_BAIL_IF(len > TDR_MAX_STR_SZ, -TDR_E_LIMIT, "string of %zu bytes", len);
	TDR_BAIL_IF(memchr(val, '\0', len), -TDR_E_CORRUPT, "string with a NUL byte");
	s = tdr_strndup((const char *)val, len);
	if (!s)
		return -ENOMEM;
	free(*out);
	*out = s;
	return 0;
}

static int get_u32(const uint8_t *val, size_t len, uint32_t *out)
{
	TDR_BAIL_IF(len != 4, -TDR_E_CORRUPT, "u32 field of %zu bytes", len);
	*out = tdr_get_le32(val);
	return 0;
}

static int get_u64(const uint8_t *val, size_t len, uint64_t *out)
{
	TDR_BAIL_IF(len != 8, -TDR_E_CORRUPT, "u64 field of %zu bytes", len);
	*out = tdr_get_le64(val);
	return 0;
}

/* Append a string to a vector (argv, notes). */
static int push_str(char ***v, size_t *cnt, size_t *cap, const uint8_t *val, size_t len)
{
	char *s = NULL;
	int err;

	TDR_BAIL_IF(*cnt >= TDR_MAX_STRV, -TDR_E_LIMIT, "more than %d strings", TDR_MAX_STRV);
	err = get_str(val, len, &s);
	if (err)
		return err;
	if (tdr_ensure_cap(v, cap, sizeof(char *), *cnt + 1)) {
		free(s);
		return -ENOMEM;
	}
	(*v)[(*cnt)++] = s;
	return 0;
}

static int get_ids(struct tdr_event_desc *e, const uint8_t *val, size_t len)
{
	uint32_t n;

	TDR_BAIL_IF(e->ids, -TDR_E_CORRUPT, "event with two id lists");
	TDR_BAIL_IF(len < 8, -TDR_E_CORRUPT, "id list of %zu bytes", len);
	n = tdr_get_le32(val);
	TDR_BAIL_IF(n > TDR_MAX_IDS, -TDR_E_LIMIT, "%u ids", n);
	/* n is capped, so this product cannot overflow. */
	TDR_BAIL_IF(len != 8 + (size_t)n * TDR_ID_ENTRY_SZ, -TDR_E_CORRUPT,
		    "id list of %u entries in %zu bytes", n, len);
	if (!n)
		return 0;
	e->ids = tdr_calloc(n, sizeof(*e->ids));
	if (!e->ids)
		return -ENOMEM;
	e->id_cnt = n;
	val += 8;
	for (uint32_t i = 0; i < n; i++, val += TDR_ID_ENTRY_SZ) {
		e->ids[i].cpu = tdr_get_le32(val);
		e->ids[i].pid = tdr_get_le32(val + 4);
		e->ids[i].id = tdr_get_le64(val + 8);
	}
	return 0;
}

static int get_event(struct tdr_event_desc *e, const uint8_t *data, size_t sz)
{
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		err = 0; /* for tags that set nothing */
		switch (tag) {
		case TDR_ET_NAME:
			err = get_str(val, len, &e->name);
			break;
		case TDR_ET_PMU_NAME:
			err = get_str(val, len, &e->pmu_name);
			break;
		case TDR_ET_PMU_TYPE:
			err = get_u32(val, len, &e->pmu_type);
			break;
		case TDR_ET_FLAGS:
			err = get_u32(val, len, &e->flags);
			break;
		case TDR_ET_GROUP_IDX:
			err = get_u32(val, len, &e->group_idx);
			break;
		case TDR_ET_ATTR:
			TDR_BAIL_IF(len < TDR_MIN_ATTR_SZ || len > TDR_MAX_ATTR_SZ, -TDR_E_CORRUPT,
				    "attr of %zu bytes", len);
			/* Larger attrs (a newer kernel ABI) are truncated to this
			 * build's struct, smaller ones zero-extended; attr_disk_sz
			 * keeps what the file holds. */
			memset(&e->attr, 0, sizeof(e->attr));
			memcpy(&e->attr, val, len < sizeof(e->attr) ? len : sizeof(e->attr));
			e->attr_disk_sz = (uint32_t)len;
			break;
		case TDR_ET_IDS:
			err = get_ids(e, val, len);
			break;
		default:
			break; /* a newer minor's field */
		}
		if (err)
			return err;
	}
	if (err)
		return err;
	TDR_BAIL_IF(!e->name, -TDR_E_CORRUPT, "event without a name");
	TDR_BAIL_IF(!e->attr_disk_sz, -TDR_E_CORRUPT, "event %s without an attr", e->name);
	return 0;
}

static int push_term(struct tdr_term **t, size_t *cnt, size_t *cap, const uint8_t *val,
		     size_t len)
{
	uint64_t bits;

	TDR_BAIL_IF(len != TDR_TERM_SZ, -TDR_E_CORRUPT, "term of %zu bytes", len);
	TDR_BAIL_IF(*cnt >= TDR_MAX_TERMS, -TDR_E_LIMIT, "more than %d terms", TDR_MAX_TERMS);
	if (tdr_ensure_cap(t, cap, sizeof(**t), *cnt + 1))
		return -ENOMEM;
	bits = tdr_get_le64(val + 8);
	(*t)[*cnt].event_idx = tdr_get_le32(val);
	memcpy(&(*t)[*cnt].coef, &bits, sizeof(bits));
	(*cnt)++;
	return 0;
}

static int get_factor(struct tdr_ratio *r, const uint8_t *data, size_t sz, bool weighted);

/* A WNUM or WDEN item: one TERM and its weight (a plain factor). */
static int push_wterm(struct tdr_wterm **t, size_t *cnt, size_t *cap, const uint8_t *data,
		      size_t sz)
{
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	struct tdr_term *term = NULL;
	size_t term_cnt = 0, term_cap = 0;
	struct tdr_wterm *w;
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	TDR_BAIL_IF(*cnt >= TDR_MAX_TERMS, -TDR_E_LIMIT, "more than %d terms", TDR_MAX_TERMS);
	if (tdr_ensure_cap(t, cap, sizeof(**t), *cnt + 1))
		return -ENOMEM;
	w = &(*t)[(*cnt)++];
	memset(w, 0, sizeof(*w));
	/* The weight: the item's NUM and DEN, no weighted terms of its own. */
	err = get_factor(&w->w, data, sz, false);
	if (err)
		return err;
	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		if (tag != TDR_WT_TERM)
			continue;
		if (term_cnt) {
			tdr_debug("weighted term with two terms");
			err = -TDR_E_CORRUPT;
			break;
		}
		err = push_term(&term, &term_cnt, &term_cap, val, len);
		if (err)
			break;
		w->event_idx = term->event_idx;
		w->coef = term->coef;
	}
	zfree(&term);
	if (err)
		return err;
	TDR_BAIL_IF(!term_cnt, -TDR_E_CORRUPT, "weighted term without a term");
	return 0;
}

/* A FACTOR item: NUM and DEN terms, at least one DEN; in a WPART (weighted)
 * also WNUM and WDEN items. */
static int get_factor(struct tdr_ratio *r, const uint8_t *data, size_t sz, bool weighted)
{
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	size_t num_cap = 0, den_cap = 0, wnum_cap = 0, wden_cap = 0;
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		err = 0;
		if (tag == TDR_CT_NUM)
			err = push_term(&r->num, &r->num_cnt, &num_cap, val, len);
		else if (tag == TDR_CT_DEN)
			err = push_term(&r->den, &r->den_cnt, &den_cap, val, len);
		else if (tag == TDR_FT_WNUM || tag == TDR_FT_WDEN) {
			/* In a PART a reader of 1.3 would skip it and read
			 * another value: a writer never puts it there. */
			TDR_BAIL_IF(!weighted, -TDR_E_CORRUPT, "weighted term outside a WPART");
			err = tag == TDR_FT_WNUM
				  ? push_wterm(&r->wnum, &r->wnum_cnt, &wnum_cap, val, len)
				  : push_wterm(&r->wden, &r->wden_cnt, &wden_cap, val, len);
		}
		if (err)
			return err;
	}
	if (err)
		return err;
	TDR_BAIL_IF(!r->den_cnt, -TDR_E_CORRUPT, "factor without a denominator");
	return 0;
}

/* A PART (or WPART, weighted) item: 1 to TDR_CATEGORY_MAX_FACTORS FACTOR
 * items. */
static int get_part(struct tdr_category *c, size_t *cap, const uint8_t *data, size_t sz,
		    bool weighted)
{
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	struct tdr_part *part;
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	TDR_BAIL_IF(c->part_cnt >= TDR_CATEGORY_MAX_PARTS, -TDR_E_LIMIT, "more than %d parts",
		    TDR_CATEGORY_MAX_PARTS);
	if (tdr_ensure_cap(&c->parts, cap, sizeof(*c->parts), c->part_cnt + 1))
		return -ENOMEM;
	part = &c->parts[c->part_cnt++];
	memset(part, 0, sizeof(*part));
	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		if (tag != TDR_PT_FACTOR)
			continue;
		TDR_BAIL_IF(part->factor_cnt >= TDR_CATEGORY_MAX_FACTORS, -TDR_E_LIMIT,
			    "more than %d factors", TDR_CATEGORY_MAX_FACTORS);
		err = get_factor(&part->factors[part->factor_cnt++], val, len, weighted);
		if (err)
			return err;
	}
	if (err)
		return err;
	TDR_BAIL_IF(!part->factor_cnt, -TDR_E_CORRUPT, "part without a factor");
	return 0;
}

static int get_category(struct tdr_category *c, const uint8_t *data, size_t sz)
{
	bool wpart = false;
	size_t part_cap = 0;
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	size_t num_cap = 0, den_cap = 0;
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		err = 0; /* for tags that set nothing */
		switch (tag) {
		case TDR_CT_NAME:
			err = get_str(val, len, &c->name);
			break;
		case TDR_CT_PARENT:
			err = get_str(val, len, &c->parent);
			break;
		case TDR_CT_LEVEL:
			err = get_u32(val, len, &c->level);
			break;
		case TDR_CT_FLAGS:
			err = get_u32(val, len, &c->flags);
			break;
		case TDR_CT_NUM:
			err = push_term(&c->num, &c->num_cnt, &num_cap, val, len);
			break;
		case TDR_CT_DEN:
			err = push_term(&c->den, &c->den_cnt, &den_cap, val, len);
			break;
		case TDR_CT_PART:
		case TDR_CT_WPART:
			/* One kind in a category: a 1.3 reader of a mix would
			 * read the PARTs alone, a wrong value. */
			TDR_BAIL_IF(c->part_cnt && (tag == TDR_CT_WPART) != wpart, -TDR_E_CORRUPT,
				    "category with PART and WPART items");
			wpart = tag == TDR_CT_WPART;
			err = get_part(c, &part_cap, val, len, wpart);
			break;
		default:
			break;
		}
		if (err)
			return err;
	}
	if (err)
		return err;
	TDR_BAIL_IF(!c->name, -TDR_E_CORRUPT, "category without a name");
	TDR_BAIL_IF(c->part_cnt && (c->num_cnt || c->den_cnt), -TDR_E_CORRUPT,
		    "category %s has both terms and parts", c->name);
	return 0;
}

static int get_cpu_sig(struct tdr_meta *m, const uint8_t *val, size_t len)
{
	TDR_BAIL_IF(len != TDR_CPU_SIG_SZ, -TDR_E_CORRUPT, "cpu signature of %zu bytes", len);
	m->cpu_family = tdr_get_le32(val);
	m->cpu_model = tdr_get_le32(val + 4);
	m->cpu_stepping = tdr_get_le32(val + 8);
	return 0;
}

/* Every term must name an event of this file: report/ indexes by it. */
static bool terms_name_events(const struct tdr_term *t, size_t cnt, size_t event_cnt)
{
	for (size_t j = 0; j < cnt; j++)
		if (t[j].event_idx >= event_cnt)
			return false;
	return true;
}

/* Weighted terms and their weights. */
static bool wterms_name_events(const struct tdr_wterm *t, size_t cnt, size_t event_cnt)
{
	for (size_t j = 0; j < cnt; j++)
		if (t[j].event_idx >= event_cnt ||
		    !terms_name_events(t[j].w.num, t[j].w.num_cnt, event_cnt) ||
		    !terms_name_events(t[j].w.den, t[j].w.den_cnt, event_cnt))
			return false;
	return true;
}

static int check_terms(const struct tdr_meta *m)
{
	for (size_t i = 0; i < m->category_cnt; i++) {
		const struct tdr_category *c = &m->categories[i];

		for (size_t j = 0; j < c->num_cnt; j++)
			TDR_BAIL_IF(c->num[j].event_idx >= m->event_cnt, -TDR_E_CORRUPT,
				    "category %s names event %u", c->name, c->num[j].event_idx);
		for (size_t j = 0; j < c->den_cnt; j++)
			TDR_BAIL_IF(c->den[j].event_idx >= m->event_cnt, -TDR_E_CORRUPT,
				    "category %s names event %u", c->name, c->den[j].event_idx);
		for (size_t p = 0; p < c->part_cnt; p++)
			for (size_t f = 0; f < c->parts[p].factor_cnt; f++) {
				const struct tdr_ratio *r = &c->parts[p].factors[f];

				for (size_t j = 0; j < r->num_cnt; j++)
					TDR_BAIL_IF(r->num[j].event_idx >= m->event_cnt,
						    -TDR_E_CORRUPT, "category %s names event %u",
						    c->name, r->num[j].event_idx);
				for (size_t j = 0; j < r->den_cnt; j++)
					TDR_BAIL_IF(r->den[j].event_idx >= m->event_cnt,
						    -TDR_E_CORRUPT, "category %s names event %u",
						    c->name, r->den[j].event_idx);
				TDR_BAIL_IF(!wterms_name_events(r->wnum, r->wnum_cnt, m->event_cnt) ||
						    !wterms_name_events(r->wden, r->wden_cnt,
									m->event_cnt),
					    -TDR_E_CORRUPT, "category %s names an event past %zu",
					    c->name, m->event_cnt);
			}
	}
	return 0;
}

static int decode_item(struct tdr_meta *m, uint32_t tag, const uint8_t *val, size_t len,
		       size_t caps[4])
{
	uint32_t u32 = 0;
	int err;

	switch (tag) {
	case TDR_MT_TDREC_VERSION:
		return get_str(val, len, &m->tdrec_version);
	case TDR_MT_ARG:
		return push_str(&m->argv, &m->argc, &caps[0], val, len);
	case TDR_MT_HOSTNAME:
		return get_str(val, len, &m->hostname);
	case TDR_MT_KERNEL_RELEASE:
		return get_str(val, len, &m->kernel_release);
	case TDR_MT_BOOT_ID:
		return get_str(val, len, &m->boot_id);
	case TDR_MT_CPU_VENDOR:
		return get_str(val, len, &m->cpu_vendor);
	case TDR_MT_CPU_MODEL_NAME:
		return get_str(val, len, &m->cpu_model_name);
	case TDR_MT_CPU_SIG:
		return get_cpu_sig(m, val, len);
	case TDR_MT_PAGE_SZ:
		return get_u32(val, len, &m->page_sz);
	case TDR_MT_NR_CPUS:
		return get_u32(val, len, &m->nr_cpus);
	case TDR_MT_PLAN_NAME:
		return get_str(val, len, &m->plan_name);
	case TDR_MT_FLAGS:
		return get_u32(val, len, &m->flags);
	case TDR_MT_CLOCKID:
		err = get_u32(val, len, &u32);
		if (!err)
			m->clockid = (int32_t)u32;
		return err;
	case TDR_MT_START_WALL_NS:
		return get_u64(val, len, &m->start_wall_ns);
	case TDR_MT_START_CLOCK_NS:
		return get_u64(val, len, &m->start_clock_ns);
	case TDR_MT_SAMPLE_PERIOD:
		return get_u64(val, len, &m->sample_period);
	case TDR_MT_SAMPLE_FREQ:
		return get_u64(val, len, &m->sample_freq);
	case TDR_MT_EVENT:
		TDR_BAIL_IF(m->event_cnt >= TDR_MAX_EVENTS, -TDR_E_LIMIT, "more than %d events",
			    TDR_MAX_EVENTS);
		if (tdr_ensure_cap(&m->events, &caps[1], sizeof(*m->events), m->event_cnt + 1))
			return -ENOMEM;
		/* Count the slot before filling it, so clear frees a partial one. */
		memset(&m->events[m->event_cnt], 0, sizeof(*m->events));
		return get_event(&m->events[m->event_cnt++], val, len);
	case TDR_MT_CATEGORY:
		TDR_BAIL_IF(m->category_cnt >= TDR_MAX_CATEGORIES, -TDR_E_LIMIT,
			    "more than %d categories", TDR_MAX_CATEGORIES);
		if (tdr_ensure_cap(&m->categories, &caps[2], sizeof(*m->categories),
				   m->category_cnt + 1))
			return -ENOMEM;
		memset(&m->categories[m->category_cnt], 0, sizeof(*m->categories));
		return get_category(&m->categories[m->category_cnt++], val, len);
	case TDR_MT_NOTE:
		return push_str(&m->notes, &m->note_cnt, &caps[3], val, len);
	default:
		return 0; /* a newer minor's field: skipped */
	}
}

int tdr_meta__decode(const uint8_t *data, size_t sz, struct tdr_meta *m)
{
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	size_t caps[4] = { 0 }; /* argv, events, categories, notes */
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	memset(m, 0, sizeof(*m));
	m->clockid = -1;
	if (sz > TDR_MAX_META_SZ) {
		tdr_debug("metadata of %zu bytes", sz);
		return -TDR_E_LIMIT;
	}
	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		err = decode_item(m, tag, val, len, caps);
		if (err)
			break;
	}
	if (!err)
		err = check_terms(m);
	if (err)
		tdr_meta__clear(m);
	return err;
}
