/*
 * symbolize/tables.c - the sorted range tables of symbolize/.
 *
 * Responsibility: a small data structure used by every other file of the
 * module (result strings and inline arrays live in the symbolizer's
 * tdr_arena, common/tdr_arena.h, until __free). A range table
 * answers "which [lo, hi) contains this address" by binary search; it is used
 * for ELF symbols, compile units, subprograms and kernel symbols.
 * Ownership and threads: single owner, no locking.
 */
#include "symbolize_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

static int range_cmp(const void *a, const void *b)
{
	const struct sym_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* Same start: the longer range first, so the shorter (inner) one is
	 * found first when walking back from the end. */
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int tdr_symbolize_range_table__build(struct sym_range_table *t, struct sym_range *r, size_t cnt)
{
	uint64_t m = 0;

	memset(t, 0, sizeof(*t));
	if (!cnt) {
		free(r);
		return 0;
	}
	t->max_hi = tdr_malloc(cnt * sizeof(*t->max_hi));
	if (!t->max_hi) {
		free(r);
		return -ENOMEM;
	}
	/* load_symbols hands its ranges over in order already: then qsort's
	 * n log n comparisons are skipped. The few ranges of one subprogram's
	 * inlines are sorted in place (range_cmp is a total order on distinct
	 * ranges, so the result is the same). */
	if (cnt <= 16) {
		for (size_t i = 1; i < cnt; i++) {
			struct sym_range x = r[i];
			size_t j = i;

			for (; j > 0 && range_cmp(&r[j - 1], &x) > 0; j--)
				r[j] = r[j - 1];
			r[j] = x;
		}
	} else {
		for (size_t i = 1; i < cnt; i++) {
			if (range_cmp(&r[i - 1], &r[i]) > 0) {
				qsort(r, cnt, sizeof(*r), range_cmp);
				break;
			}
		}
	}
	for (size_t i = 0; i < cnt; i++) {
		if (r[i].hi > m)
			m = r[i].hi;
		t->max_hi[i] = m;
	}
	t->r = r;
	t->cnt = cnt;
	return 0;
}

const struct sym_range *tdr_symbolize_range_table__find(const struct sym_range_table *t,
							uint64_t addr)
{
	size_t lo = 0, hi = t->cnt;

	/* First index whose lo is above addr; candidates are before it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Walk back to the latest-starting range that still covers addr; once
	 * max_hi says nothing earlier reaches addr, stop. */
	while (lo > 0) {
		lo--;
		if (t->max_hi[lo] <= addr)
			return NULL;
		if (t->r[lo].hi > addr)
			return &t->r[lo];
	}
	return NULL;
}

void tdr_symbolize_range_table__free(struct sym_range_table *t)
{
	zfree(&t->r);
	zfree(&t->max_hi);
	t->cnt = 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

int tdr_symbolize_alias_cmp(int rank_a, const char *a, int rank_b, const char *b,
			    bool by_underscores)
{
	size_t la, lb;

	if (rank_a != rank_b)
		return rank_a - rank_b;
	if (by_underscores) {
		la = leading_underscores(a);
		lb = leading_underscores(b);
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}
