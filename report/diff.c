/*
 * report/diff.c - compare two finished reports function by function.
 *
 * Responsibility: match the rows of OLD and NEW by (object basename,
 * function name without GCC's clone suffixes, inlined-into), never by
 * address, so rebuilt binaries compare; sum rows that fall on the same key; compute each side's share
 * and, when both plans have the same categories, each side's TopDown
 * fractions from the summed deltas through that side's own formulas; sort
 * by the largest absolute change of share. Rendering is in diff_render.c.
 * Ownership: the diff copies every string it keeps; the reports are
 * borrowed for tdr_diff__new only.
 * Invariants: the merged table's per-row sums are laid out as
 * [OLD samples, OLD events..., NEW samples, NEW events...].
 */
#include "diff_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* Map OLD's categories to NEW's by name; false when the sets differ. */
static bool match_categories(const struct tdr_report *a, const struct tdr_report *b, int *map)
{
	if (!a->cat_cnt || a->cat_cnt != b->cat_cnt)
		return false;
	if ((a->plan || b->plan) && (!a->plan || !b->plan || strcmp(a->plan, b->plan)))
		return false;
	for (size_t i = 0; i < a->cat_cnt; i++) {
		map[i] = -1;
		for (size_t j = 0; j < b->cat_cnt; j++)
			if (!strcmp(a->cats[i].name, b->cats[j].name))
				map[i] = (int)j;
		if (map[i] < 0)
			return false;
	}
	return true;
}

/* Whether name[0..len) ends with one of the suffixes GCC gives the copies
 * it makes of a function (.isra.N, .constprop.N, .part.N, .cold, ...):
 * the length without it, else len. */
static size_t without_clone_suffix(const char *name, size_t len)
{
	static const char *const kinds[] = {".isra", ".constprop", ".part", ".cold",
					    ".lto_priv", ".localalias", ".clone"};
	size_t end = len;

	/* The demangler's form: "f(int) [clone .isra.0]". */
	if (end > 9 && name[end - 1] == ']') {
		const char *open = NULL;

		for (size_t i = end; i-- > 0;)
			if (name[i] == '[') {
				open = name + i;
				break;
			}
		if (open && open > name && open[-1] == ' ' && !strncmp(open, "[clone .", 8))
			return (size_t)(open - name) - 1;
		return len;
	}
	/* A C name's form: "f.isra.0" ("f.cold", "f.part.0"). */
	while (end && name[end - 1] >= '0' && name[end - 1] <= '9')
		end--;
	if (end < len && end && name[end - 1] == '.')
		end--;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = strlen(kinds[k]);

		if (end > n && !strncmp(name + end - n, kinds[k], n))
			return end - n;
	}
	return len;
}

/*
 * The name a function is matched by: without the clone suffixes (a rebuild
 * with other options turns f into f.isra.0 or back; perf's own names hide
 * them), repeatedly ("f.constprop.0.isra.0", "f [clone .a] [clone .b]").
 */
static const char *match_name(struct tdr_diff *d, const char *name, int *err)
{
	size_t len = name ? strlen(name) : 0, cut = len;
	char *tmp;
	const char *out;

	while (cut && (len = without_clone_suffix(name, cut)) < cut)
		cut = len;
	if (!name || cut == strlen(name))
		return tdr_report_strpool__intern(&d->pool, name, err);
	tmp = tdr_strndup(name, cut);
	if (!tmp) {
		*err = -ENOMEM;
		return NULL;
	}
	out = tdr_report_strpool__intern(&d->pool, tmp, err);
	free(tmp);
	return out;
}

/* Sum every row of report side (0 OLD, 1 NEW) into the merged table. */
static int merge_side(struct tdr_diff *d, const struct tdr_report *r, int side)
{
	size_t stride = d->stride, base = side ? 1 + d->old_ev : 0;
	int err = 0;

	for (size_t i = 0; i < r->rows.cnt; i++) {
		const struct tdr_report_row *row = &r->view[i];
		struct tdr_row_key k = {0};
		uint64_t *sums;
		int idx;

		k.name = match_name(d, row->name, &err);
		k.dso = tdr_report_strpool__intern(&d->pool, tdr_report_basename(row->dso), &err);
		k.inlined_into = tdr_report_strpool__intern(&d->pool, row->inlined_into, &err);
		if (err)
			return err;
		idx = tdr_report_rowtab__find_or_add(&d->tab, stride, &k);
		if (idx < 0)
			return idx;
		sums = d->tab.sums + (size_t)idx * stride + base;
		sums[0] += row->samples;
		for (size_t e = 0; e < r->event_cnt; e++)
			sums[1 + e] += row->events[e];
	}
	return 0;
}

static void fill_side(const struct tdr_report *r, const uint64_t *sums, struct tdr_diff_side *s,
		      double *vals, const int *cat_map, size_t cat_cnt)
{
	uint64_t total = r->totals.samples;

	s->samples = sums[0];
	s->share = total ? (double)sums[0] / (double)total : 0;
	s->topdown = NULL;
	if (!cat_cnt)
		return;
	for (size_t c = 0; c < cat_cnt; c++)
		vals[c] =
		    sums[0] ? tdr_report_category_value(r, &r->cats[cat_map[c]], sums + 1) : NAN;
	s->topdown = vals;
}

static int cmp_diff_rows(const void *pa, const void *pb)
{
	const struct tdr_diff_row *a = pa, *b = pb;
	double ca = fabs(a->share_change), cb = fabs(b->share_change);
	double ma = fmax(a->old.share, a->new.share), mb = fmax(b->old.share, b->new.share);
	int c;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (!c && a->dso != b->dso)
		c = !a->dso ? -1 : !b->dso ? 1 : strcmp(a->dso, b->dso);
	if (!c && a->inlined_into != b->inlined_into)
		c = !a->inlined_into   ? -1
		    : !b->inlined_into ? 1
				       : strcmp(a->inlined_into, b->inlined_into);
	return c;
}

static int copy_side_info(struct tdr_diff *d, int side, const struct tdr_report *r,
			  const char *file)
{
	struct diff_side_info *s = &d->side[side];

	s->samples = r->totals.samples;
	s->min_samples = r->opts.min_samples;
	if (file && !(s->file = tdr_strdup(file)))
		return -ENOMEM;
	if (r->plan && !(s->plan = tdr_strdup(r->plan)))
		return -ENOMEM;
	/* The plans' notes are information about each recording, not about
	 * the comparison: only real warnings are repeated. */
	for (size_t i = 0; i < r->warnings.cnt; i++)
		if (strncmp(r->warnings.v[i], "note: ", 6) &&
		    tdr_report_strlist__addf(&d->warnings, "%s: %s", side ? "NEW" : "OLD",
					     r->warnings.v[i]))
			return -ENOMEM;
	return 0;
}

static int build(struct tdr_diff *d, const struct tdr_report *old, const struct tdr_report *new)
{
	int cat_map_new[64] = {0}, cat_map_old[64];
	size_t cc, n;
	int err;

	if (old->cat_cnt <= 64 && match_categories(old, new, cat_map_new))
		d->cat_cnt = old->cat_cnt;
	for (size_t c = 0; c < 64; c++)
		cat_map_old[c] = (int)c;
	cc = d->cat_cnt;
	if (cc) {
		d->cat_names = tdr_calloc(cc, sizeof(*d->cat_names));
		d->cat_levels = tdr_calloc(cc, sizeof(*d->cat_levels));
		if (!d->cat_names || !d->cat_levels)
			return -ENOMEM;
		for (size_t c = 0; c < cc; c++) {
			d->cat_levels[c] = old->cats[c].level;
			if (!(d->cat_names[c] = tdr_strdup(old->cats[c].name)))
				return -ENOMEM;
		}
	} else if (old->cat_cnt || new->cat_cnt) {
		err = tdr_report_strlist__addf(
		    &d->warnings,
		    "the plans differ (OLD %s, NEW %s): comparing shares of samples "
		    "only, no TopDown changes",
		    old->plan ? old->plan : "?", new->plan ? new->plan : "?");
		if (err)
			return err;
	}
	d->old_ev = old->event_cnt;
	d->stride = 2 + old->event_cnt + new->event_cnt;
	err = merge_side(d, old, 0);
	if (!err)
		err = merge_side(d, new, 1);
	if (err)
		return err;
	n = d->tab.cnt;
	d->rows = tdr_calloc(n + 1, sizeof(*d->rows));
	d->vals = tdr_calloc(3 * cc * n + 1, sizeof(*d->vals));
	if (!d->rows || !d->vals)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct row_ent *e = &d->tab.rows[i];
		const uint64_t *sums = d->tab.sums + i * d->stride;
		struct tdr_diff_row *row = &d->rows[i];
		double *v = d->vals + 3 * cc * i;

		row->name = e->key.name;
		row->dso = e->key.dso;
		row->inlined_into = e->key.inlined_into;
		fill_side(old, sums, &row->old, v, cat_map_old, cc);
		fill_side(new, sums + 1 + d->old_ev, &row->new, v + cc, cat_map_new, cc);
		row->only_old = row->old.samples && !row->new.samples;
		row->only_new = row->new.samples && !row->old.samples;
		row->share_change = row->new.share - row->old.share;
		row->topdown_change = NULL;
		if (cc) {
			for (size_t c = 0; c < cc; c++)
				v[2 * cc + c] = row->new.topdown[c] - row->old.topdown[c];
			row->topdown_change = v + 2 * cc;
		}
	}
	qsort(d->rows, n, sizeof(*d->rows), cmp_diff_rows);
	d->row_cnt = n;
	return 0;
}

int tdr_diff__new(const struct tdr_report *old, const char *old_file, const struct tdr_report *new,
		  const char *new_file, struct tdr_diff **out)
{
	struct tdr_diff *d;
	int err;

	if (!old->finished || !new->finished || old->opts.by != new->opts.by ||
	    old->opts.by > TDR_BY_INLINE)
		return -EINVAL;
	d = tdr_calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->by = old->opts.by;
	err = copy_side_info(d, 0, old, old_file);
	if (!err)
		err = copy_side_info(d, 1, new, new_file);
	if (!err)
		err = build(d, old, new);
	if (err) {
		tdr_diff__free(d);
		return err;
	}
	*out = d;
	return 0;
}

size_t tdr_diff__row_cnt(const struct tdr_diff *d)
{
	return d->row_cnt;
}

const struct tdr_diff_row *tdr_diff__row(const struct tdr_diff *d, size_t idx)
{
	return idx < d->row_cnt ? &d->rows[idx] : NULL;
}

size_t tdr_diff__category_cnt(const struct tdr_diff *d)
{
	return d->cat_cnt;
}

const char *tdr_diff__category_name(const struct tdr_diff *d, size_t idx)
{
	return idx < d->cat_cnt ? d->cat_names[idx] : NULL;
}

size_t tdr_diff__warning_cnt(const struct tdr_diff *d)
{
	return d->warnings.cnt;
}

const char *tdr_diff__warning(const struct tdr_diff *d, size_t idx)
{
	return tdr_report_strlist__at(&d->warnings, idx);
}

void tdr_diff__free(struct tdr_diff *d)
{
	if (!d)
		return;
	for (int s = 0; s < 2; s++) {
		free(d->side[s].file);
		free(d->side[s].plan);
	}
	for (size_t c = 0; d->cat_names && c < d->cat_cnt; c++)
		free(d->cat_names[c]);
	free(d->cat_names);
	free(d->cat_levels);
	tdr_report_strlist__release(&d->warnings);
	free(d->rows);
	free(d->vals);
	tdr_report_rowtab__release(&d->tab);
	tdr_report_strpool__release(&d->pool);
	free(d);
}
