/*
 * format/category.c - evaluate, copy and free a TopDown category formula
 * (struct tdr_category).
 *
 * Responsibility: the two forms of format.h exactly: linear, value =
 * sum(num terms) / sum(den terms), and product, value = the sum over parts
 * of the product of each part's ratios (each ratio sum(num) / sum(den)),
 * over one vector of member deltas. report/ and tdrec stat hand in a row's
 * SUMMED deltas, so every ratio is a ratio of sums, never an average of
 * per-sample ratios (Arm's retiring = OP_RETIRED/OP_SPEC * (1 -
 * STALL_SLOT/(W*CPU_CYCLES)) is only meaningful so). The value is not
 * clamped: a formula that subtracts (a derived level-2 category, a
 * generic-counter bad speculation = dispatched - retired, Arm's mispredict
 * corrections) can come out below 0, and counters that do not add up to
 * the slots above 1; callers flag such values (tdr_category_out_of_range)
 * instead of hiding them.
 * Ownership and threads: pure functions on caller-owned structs.
 * See: format.h struct tdr_category; docs/format.md section 5.2.
 */
#include "tdrec/format.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* Sum of coef * delta over terms; false when a term is out of range. */
static bool terms_sum(const struct tdr_term *t, size_t cnt, const uint64_t *deltas,
		      size_t event_cnt, double *out)
{
	double v = 0;

	for (size_t i = 0; i < cnt; i++) {
		if (t[i].event_idx >= event_cnt)
			return false;
		v += t[i].coef * (double)deltas[t[i].event_idx];
	}
	*out = v;
	return true;
}

static double ratio_value(const struct tdr_ratio *r, const uint64_t *deltas, size_t event_cnt);

/* Sum of coef * delta * weight over weighted terms; false when a term is out
 * of range or a weight has no value (its denominator is not positive). */
static bool wterms_sum(const struct tdr_wterm *t, size_t cnt, const uint64_t *deltas,
		       size_t event_cnt, double *out)
{
	double v = 0;

	for (size_t i = 0; i < cnt; i++) {
		double w;

		/* A weight is a plain ratio: one level, never recursive. */
		if (t[i].event_idx >= event_cnt || t[i].w.wnum_cnt || t[i].w.wden_cnt)
			return false;
		w = ratio_value(&t[i].w, deltas, event_cnt);
		if (isnan(w))
			return false;
		v += t[i].coef * (double)deltas[t[i].event_idx] * w;
	}
	*out = v;
	return true;
}

/* (sum(num) + sum(wnum)) / (sum(den) + sum(wden)); NAN when the
 * denominator is not positive. */
static double ratio_value(const struct tdr_ratio *r, const uint64_t *deltas, size_t event_cnt)
{
	double num, den, wnum, wden;

	if (!terms_sum(r->num, r->num_cnt, deltas, event_cnt, &num) ||
	    !terms_sum(r->den, r->den_cnt, deltas, event_cnt, &den) ||
	    !wterms_sum(r->wnum, r->wnum_cnt, deltas, event_cnt, &wnum) ||
	    !wterms_sum(r->wden, r->wden_cnt, deltas, event_cnt, &wden) || !(den + wden > 0))
		return NAN;
	return (num + wnum) / (den + wden);
}

double tdr_category__value(const struct tdr_category *c, const uint64_t *deltas, size_t event_cnt)
{
	const struct tdr_ratio lin = {
	    .num_cnt = c->num_cnt, .num = c->num, .den_cnt = c->den_cnt, .den = c->den};
	double v = 0;

	if (!c->part_cnt)
		return ratio_value(&lin, deltas, event_cnt);
	for (size_t p = 0; p < c->part_cnt; p++) {
		const struct tdr_part *part = &c->parts[p];
		double prod = 1;

		if (!part->factor_cnt || part->factor_cnt > TDR_CATEGORY_MAX_FACTORS)
			return NAN;
		for (size_t f = 0; f < part->factor_cnt; f++)
			prod *= ratio_value(&part->factors[f], deltas, event_cnt);
		v += prod;
	}
	return isfinite(v) ? v : NAN;
}

bool tdr_category_out_of_range(double v)
{
	return v < 0.0 || v > 1.0; /* false for NAN */
}

bool tdr_category__linear(const struct tdr_category *c)
{
	return !c->part_cnt && c->den_cnt;
}

bool tdr_category__weighted(const struct tdr_category *c)
{
	for (size_t p = 0; p < c->part_cnt; p++)
		for (size_t f = 0; f < c->parts[p].factor_cnt && f < TDR_CATEGORY_MAX_FACTORS; f++)
			if (c->parts[p].factors[f].wnum_cnt || c->parts[p].factors[f].wden_cnt)
				return true;
	return false;
}

static bool terms_valid(const struct tdr_term *t, size_t cnt, size_t event_cnt)
{
	for (size_t i = 0; i < cnt; i++)
		if (t[i].event_idx >= event_cnt || !isfinite(t[i].coef))
			return false;
	return true;
}

/* A weight is a plain ratio with a denominator. */
static bool wterms_valid(const struct tdr_wterm *t, size_t cnt, size_t event_cnt)
{
	for (size_t i = 0; i < cnt; i++)
		if (t[i].event_idx >= event_cnt || !isfinite(t[i].coef) || t[i].w.wnum_cnt ||
		    t[i].w.wden_cnt || !t[i].w.den_cnt ||
		    !terms_valid(t[i].w.num, t[i].w.num_cnt, event_cnt) ||
		    !terms_valid(t[i].w.den, t[i].w.den_cnt, event_cnt))
			return false;
	return true;
}

static bool ratio_valid(const struct tdr_ratio *r, size_t event_cnt)
{
	return terms_valid(r->num, r->num_cnt, event_cnt) &&
	       terms_valid(r->den, r->den_cnt, event_cnt) &&
	       wterms_valid(r->wnum, r->wnum_cnt, event_cnt) &&
	       wterms_valid(r->wden, r->wden_cnt, event_cnt);
}

bool tdr_category__valid(const struct tdr_category *c, size_t event_cnt)
{
	if (!terms_valid(c->num, c->num_cnt, event_cnt) ||
	    !terms_valid(c->den, c->den_cnt, event_cnt) || c->part_cnt > TDR_CATEGORY_MAX_PARTS)
		return false;
	for (size_t p = 0; p < c->part_cnt; p++) {
		const struct tdr_part *part = &c->parts[p];

		if (!part->factor_cnt || part->factor_cnt > TDR_CATEGORY_MAX_FACTORS)
			return false;
		for (size_t f = 0; f < part->factor_cnt; f++)
			if (!ratio_valid(&part->factors[f], event_cnt))
				return false;
	}
	return true;
}

static void ratio_clear(struct tdr_ratio *r);

static void wterms_clear(struct tdr_wterm **t, size_t *cnt)
{
	for (size_t i = 0; *t && i < *cnt; i++)
		ratio_clear(&(*t)[i].w);
	zfree(t);
	*cnt = 0;
}

static void ratio_clear(struct tdr_ratio *r)
{
	zfree(&r->num);
	zfree(&r->den);
	r->num_cnt = 0;
	r->den_cnt = 0;
	wterms_clear(&r->wnum, &r->wnum_cnt);
	wterms_clear(&r->wden, &r->wden_cnt);
}

void tdr_category__clear(struct tdr_category *c)
{
	struct tdr_ratio lin = {
	    .num_cnt = c->num_cnt, .num = c->num, .den_cnt = c->den_cnt, .den = c->den};

	zfree(&c->name);
	zfree(&c->parent);
	ratio_clear(&lin);
	for (size_t p = 0; c->parts && p < c->part_cnt; p++)
		for (size_t f = 0; f < TDR_CATEGORY_MAX_FACTORS; f++)
			ratio_clear(&c->parts[p].factors[f]);
	zfree(&c->parts);
	memset(c, 0, sizeof(*c));
}

static int dup_terms(struct tdr_term **dst, const struct tdr_term *src, size_t cnt)
{
	*dst = NULL;
	if (!cnt || !src)
		return 0;
	*dst = tdr_malloc(cnt * sizeof(*src));
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, cnt * sizeof(*src));
	return 0;
}

static int ratio_copy(struct tdr_ratio *d, const struct tdr_ratio *s);

/* Weighted terms with their weights; on -ENOMEM *dst holds what was
 * copied (*dst_cnt of them), for ratio_clear. */
static int dup_wterms(struct tdr_wterm **dst, size_t *dst_cnt, const struct tdr_wterm *src,
		      size_t cnt)
{
	*dst = NULL;
	*dst_cnt = 0;
	if (!cnt || !src)
		return 0;
	*dst = tdr_calloc(cnt, sizeof(*src));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		(*dst)[i].event_idx = src[i].event_idx;
		(*dst)[i].coef = src[i].coef;
		(*dst_cnt)++;
		if (ratio_copy(&(*dst)[i].w, &src[i].w))
			return -ENOMEM;
	}
	return 0;
}

/* On -ENOMEM d holds a partial copy: ratio_clear frees it. */
static int ratio_copy(struct tdr_ratio *d, const struct tdr_ratio *s)
{
	memset(d, 0, sizeof(*d));
	d->num_cnt = s->num ? s->num_cnt : 0;
	d->den_cnt = s->den ? s->den_cnt : 0;
	if (dup_terms(&d->num, s->num, d->num_cnt) || dup_terms(&d->den, s->den, d->den_cnt) ||
	    dup_wterms(&d->wnum, &d->wnum_cnt, s->wnum, s->wnum_cnt) ||
	    dup_wterms(&d->wden, &d->wden_cnt, s->wden, s->wden_cnt))
		return -ENOMEM;
	return 0;
}

int tdr_category__copy(struct tdr_category *dst, const struct tdr_category *src)
{
	struct tdr_ratio lin;
	const struct tdr_ratio slin = {
	    .num_cnt = src->num_cnt, .num = src->num, .den_cnt = src->den_cnt, .den = src->den};

	memset(dst, 0, sizeof(*dst));
	dst->level = src->level;
	dst->flags = src->flags;
	if ((src->name && !(dst->name = tdr_strdup(src->name))) ||
	    (src->parent && !(dst->parent = tdr_strdup(src->parent))))
		goto err_out;
	memset(&lin, 0, sizeof(lin));
	if (ratio_copy(&lin, &slin)) {
		ratio_clear(&lin);
		goto err_out;
	}
	dst->num_cnt = lin.num_cnt;
	dst->num = lin.num;
	dst->den_cnt = lin.den_cnt;
	dst->den = lin.den;
	if (src->part_cnt && src->parts) {
		dst->parts = tdr_calloc(src->part_cnt, sizeof(*dst->parts));
		if (!dst->parts)
			goto err_out;
		dst->part_cnt = src->part_cnt;
		for (size_t p = 0; p < src->part_cnt; p++) {
			dst->parts[p].factor_cnt = src->parts[p].factor_cnt;
			for (size_t f = 0; f < TDR_CATEGORY_MAX_FACTORS; f++)
				if (ratio_copy(&dst->parts[p].factors[f], &src->parts[p].factors[f]))
					goto err_out;
		}
	}
	return 0;
err_out:
	tdr_category__clear(dst);
	return -ENOMEM;
}
