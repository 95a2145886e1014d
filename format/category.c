/*
 * format/category.c - evaluate a TopDown category formula (struct tdr_category).
 *
 * Responsibility: value = sum(num terms) / sum(den terms) over one vector of
 * member deltas, exactly as format.h defines the formula; nothing else. The
 * value is not clamped: a formula that subtracts (a derived level-2
 * category, a generic-counter bad speculation = dispatched - retired) can
 * come out below 0, and counters that do not add up to the slots above 1;
 * callers flag such values (tdr_category_out_of_range) instead of hiding
 * them. report/ and tdrec stat use it for every row.
 * Ownership and threads: pure function, no state.
 * See: format.h struct tdr_category; docs/format.md section 5.
 */
#include "tdrec/format.h"

#include <math.h>

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

double tdr_category__value(const struct tdr_category *c, const uint64_t *deltas, size_t event_cnt)
{
	double num, den;

	if (!terms_sum(c->num, c->num_cnt, deltas, event_cnt, &num) ||
	    !terms_sum(c->den, c->den_cnt, deltas, event_cnt, &den) || !(den > 0))
		return NAN;
	return num / den;
}

bool tdr_category_out_of_range(double v)
{
	return v < 0.0 || v > 1.0; /* false for NAN */
}
