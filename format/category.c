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

/* sum(num) / sum(den); NAN when the denominator is not positive. */
static double ratio_value(const struct tdr_ratio *r, const uint64_t *deltas, size_t event_cnt)
{
	double num, den;

	if (!terms_sum(r->num, r->num_cnt, deltas, event_cnt, &num) ||
	    !terms_sum(r->den, r->den_cnt, deltas, event_cnt, &den) || !(den > 0))
		return NAN;
	return num / den;
}

double tdr_category__value(const struct tdr_category *c, const uint64_t *deltas, size_t event_cnt)
{
	const struct tdr_ratio lin = {c->num_cnt, c->num, c->den_cnt, c->den};
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

static bool terms_valid(const struct tdr_term *t, size_t cnt, size_t event_cnt)
{
	for (size_t i = 0; i < cnt; i++)
		if (t[i].event_idx >= event_cnt || !isfinite(t[i].coef))
			return false;
	return true;
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
			if (!terms_valid(part->factors[f].num, part->factors[f].num_cnt, event_cnt) ||
			    !terms_valid(part->factors[f].den, part->factors[f].den_cnt, event_cnt))
				return false;
	}
	return true;
}

static void ratio_clear(struct tdr_ratio *r)
{
	zfree(&r->num);
	zfree(&r->den);
	r->num_cnt = 0;
	r->den_cnt = 0;
}

void tdr_category__clear(struct tdr_category *c)
{
	struct tdr_ratio lin = {c->num_cnt, c->num, c->den_cnt, c->den};

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

static int ratio_copy(struct tdr_ratio *d, const struct tdr_ratio *s)
{
	d->num_cnt = s->num ? s->num_cnt : 0;
	d->den_cnt = s->den ? s->den_cnt : 0;
	d->den = NULL;
	if (dup_terms(&d->num, s->num, d->num_cnt) || dup_terms(&d->den, s->den, d->den_cnt))
		return -ENOMEM;
	return 0;
}

int tdr_category__copy(struct tdr_category *dst, const struct tdr_category *src)
{
	struct tdr_ratio lin;
	const struct tdr_ratio slin = {src->num_cnt, src->num, src->den_cnt, src->den};

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
