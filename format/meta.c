/*
 * format/meta.c - the in-memory recording metadata (struct tdr_meta).
 *
 * Responsibility: free, deep-copy and query struct tdr_meta, and build the
 * TopDown categories of a plan's events from the TopDown table
 * (tdrec/topdown.h), for the recorder and for perf.data import alike. It does not
 * read or write bytes: writer.c and reader.c (via meta_codec.c) do.
 * Objects and lifecycle: struct tdr_meta is plain data owned by its holder;
 * tdr_meta__clear releases everything it points to.
 * Ownership and threads: no shared state; every function works on the
 * struct it is given.
 * See: docs/format.md section 5 (metadata); docs/plans.md "The TopDown table".
 */
#include "format_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

static void free_strv(char **v, size_t cnt)
{
	if (!v)
		return;
	for (size_t i = 0; i < cnt; i++)
		free(v[i]);
	free(v);
}

void tdr_meta__clear(struct tdr_meta *meta)
{
	if (!meta)
		return;
	free(meta->tdrec_version);
	free_strv(meta->argv, meta->argc);
	free(meta->hostname);
	free(meta->kernel_release);
	free(meta->boot_id);
	free(meta->cpu_vendor);
	free(meta->cpu_model_name);
	free(meta->plan_name);
	if (meta->events) {
		for (size_t i = 0; i < meta->event_cnt; i++) {
			free(meta->events[i].name);
			free(meta->events[i].pmu_name);
			free(meta->events[i].ids);
		}
		free(meta->events);
	}
	if (meta->categories) {
		for (size_t i = 0; i < meta->category_cnt; i++)
			tdr_category__clear(&meta->categories[i]);
		free(meta->categories);
	}
	free_strv(meta->notes, meta->note_cnt);
	memset(meta, 0, sizeof(*meta));
}

/* Copy an optional string: NULL stays NULL. Returns 0 or -ENOMEM. */
static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = tdr_strdup(src);
	return *dst ? 0 : -ENOMEM;
}

/* Copy a string vector; on failure *dst holds what was copied so far, with
 * NULL in the remaining slots, so tdr_meta__clear can free it. */
static int dup_strv(char ***dst, char *const *src, size_t cnt)
{
	*dst = NULL;
	if (!cnt || !src)
		return 0;
	*dst = tdr_calloc(cnt, sizeof(char *));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		if (dup_opt(&(*dst)[i], src[i]))
			return -ENOMEM;
	}
	return 0;
}

static int dup_mem(void *dst, const void *src, size_t cnt, size_t elem_sz)
{
	void **d = dst;

	*d = NULL;
	if (!cnt || !src)
		return 0;
	*d = tdr_calloc(cnt, elem_sz);
	if (!*d)
		return -ENOMEM;
	memcpy(*d, src, cnt * elem_sz);
	return 0;
}

static int copy_events(struct tdr_meta *dst, const struct tdr_meta *src)
{
	if (!src->event_cnt || !src->events)
		return 0;
	dst->events = tdr_calloc(src->event_cnt, sizeof(*dst->events));
	if (!dst->events)
		return -ENOMEM;
	dst->event_cnt = src->event_cnt;
	for (size_t i = 0; i < src->event_cnt; i++) {
		const struct tdr_event_desc *s = &src->events[i];
		struct tdr_event_desc *d = &dst->events[i];

		/* Scalars and the attr first; pointers are replaced below so a
		 * failure never leaves a pointer shared with src. */
		*d = *s;
		d->name = NULL;
		d->pmu_name = NULL;
		d->ids = NULL;
		d->id_cnt = 0;
		if (dup_opt(&d->name, s->name) || dup_opt(&d->pmu_name, s->pmu_name) ||
		    dup_mem(&d->ids, s->ids, s->id_cnt, sizeof(*s->ids)))
			return -ENOMEM;
		d->id_cnt = s->ids ? s->id_cnt : 0;
	}
	return 0;
}

static int copy_categories(struct tdr_meta *dst, const struct tdr_meta *src)
{
	if (!src->category_cnt || !src->categories)
		return 0;
	dst->categories = tdr_calloc(src->category_cnt, sizeof(*dst->categories));
	if (!dst->categories)
		return -ENOMEM;
	dst->category_cnt = src->category_cnt;
	for (size_t i = 0; i < src->category_cnt; i++) {
		const struct tdr_category *s = &src->categories[i];
		struct tdr_category *d = &dst->categories[i];

		if (tdr_category__copy(d, s))
			return -ENOMEM;
	}
	return 0;
}

int tdr_meta__copy(struct tdr_meta *dst, const struct tdr_meta *src)
{
	int err = -ENOMEM;

	memset(dst, 0, sizeof(*dst));
	/* Scalars in one go, then every pointer is reset and copied. */
	dst->cpu_family = src->cpu_family;
	dst->cpu_model = src->cpu_model;
	dst->cpu_stepping = src->cpu_stepping;
	dst->page_sz = src->page_sz;
	dst->nr_cpus = src->nr_cpus;
	dst->flags = src->flags;
	dst->clockid = src->clockid;
	dst->start_wall_ns = src->start_wall_ns;
	dst->start_clock_ns = src->start_clock_ns;
	dst->sample_period = src->sample_period;
	dst->sample_freq = src->sample_freq;

	if (dup_opt(&dst->tdrec_version, src->tdrec_version) ||
	    dup_opt(&dst->hostname, src->hostname) ||
	    dup_opt(&dst->kernel_release, src->kernel_release) ||
	    dup_opt(&dst->boot_id, src->boot_id) || dup_opt(&dst->cpu_vendor, src->cpu_vendor) ||
	    dup_opt(&dst->cpu_model_name, src->cpu_model_name) ||
	    dup_opt(&dst->plan_name, src->plan_name))
		goto err_out;
	if (dup_strv(&dst->argv, src->argv, src->argc))
		goto err_out;
	dst->argc = dst->argv ? src->argc : 0;
	if (dup_strv(&dst->notes, src->notes, src->note_cnt))
		goto err_out;
	dst->note_cnt = dst->notes ? src->note_cnt : 0;
	err = copy_events(dst, src);
	if (err)
		goto err_out;
	err = copy_categories(dst, src);
	if (err)
		goto err_out;
	return 0;

err_out:
	/* dup_strv leaves argv/notes allocated with a NULL tail on failure; set
	 * the counts so that clear frees what exists. */
	if (dst->argv)
		dst->argc = src->argc;
	if (dst->notes)
		dst->note_cnt = src->note_cnt;
	tdr_meta__clear(dst);
	return -ENOMEM;
}

int tdr_meta__event_idx(const struct tdr_meta *meta, const char *name)
{
	if (!meta || !name)
		return -1;
	for (size_t i = 0; i < meta->event_cnt && i < INT32_MAX; i++) {
		if (meta->events[i].name && !strcmp(meta->events[i].name, name))
			return (int)i;
	}
	return -1;
}

/* ---------------------------------------------------------------------------
 * TopDown categories: the formulas of the TopDown table (tdrec/topdown.h)
 * resolved against this meta's event indexes. The file stores the resolved
 * formulas, so what a file means never depends on the table of the build
 * that reads it.
 */
static bool has_category(const struct tdr_meta *meta, const char *name)
{
	for (size_t i = 0; i < meta->category_cnt; i++) {
		if (meta->categories[i].name && !strcmp(meta->categories[i].name, name))
			return true;
	}
	return false;
}

/* Every event of f (and its base) is in meta, by name. */
static bool has_family_list(const struct tdr_meta *meta, const struct tdr_td_family *f,
			    bool counting)
{
	size_t cnt = tdr_td_family__event_cnt(f, counting);

	for (size_t i = 0; i < cnt; i++) {
		if (tdr_meta__event_idx(meta, tdr_td_family__event(f, counting, i)->name) < 0)
			return false;
	}
	return true;
}

/* All the events of f's sampling plan or of its counting plan (AMD level
 * 2 samples with one more event than it counts with). */
static bool has_family_events(const struct tdr_meta *meta, const struct tdr_td_family *f)
{
	return has_family_list(meta, f, false) || has_family_list(meta, f, true);
}

static size_t term_cnt(const struct tdr_td_term *t)
{
	size_t n = 0;

	while (n < TDR_TD_MAX_TERMS && t[n].event)
		n++;
	return n;
}

/* Resolve table terms into meta event indexes. Returns 0, -ENOMEM, or
 * -ENOENT for a term naming an event meta lacks (a table bug: the family's
 * events were all checked present). */
static int resolve_terms(const struct tdr_meta *meta, const struct tdr_td_family *f,
			 uint32_t width, const struct tdr_td_term *src, size_t cnt,
			 struct tdr_term **out)
{
	*out = tdr_calloc(cnt ? cnt : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		int idx = tdr_meta__event_idx(meta, src[i].event);

		if (idx < 0)
			return -ENOENT;
		(*out)[i].event_idx = (uint32_t)idx;
		(*out)[i].coef = tdr_td_family__coef_w(f, &src[i], width);
	}
	return 0;
}

/* Table ratio r into d: its plain terms, and with weighted its weighted
 * terms (a weight is a plain ratio). -EINVAL: a weighted term where the
 * form has none (a table bug, caught by its unit test). */
static int resolve_ratio(const struct tdr_meta *meta, const struct tdr_td_family *f,
			 uint32_t width, const struct tdr_td_ratio *r, struct tdr_ratio *d,
			 bool weighted)
{
	const struct tdr_td_term *side[2] = {r->num, r->den};
	int err = 0;

	for (size_t s = 0; !err && s < 2; s++) {
		struct tdr_term **plain = s ? &d->den : &d->num;
		size_t *plain_cnt = s ? &d->den_cnt : &d->num_cnt;
		struct tdr_wterm **wt = s ? &d->wden : &d->wnum;
		size_t *wt_cnt = s ? &d->wden_cnt : &d->wnum_cnt;
		struct tdr_td_term flat[TDR_TD_MAX_TERMS];
		size_t n = 0, w = 0, all = term_cnt(side[s]);

		for (size_t i = 0; i < all; i++)
			w += side[s][i].weight != NULL;
		if (w && !weighted)
			return -EINVAL;
		for (size_t i = 0; i < all; i++)
			if (!side[s][i].weight)
				flat[n++] = side[s][i];
		*plain_cnt = n;
		err = resolve_terms(meta, f, width, flat, n, plain);
		if (err || !w)
			continue;
		*wt = tdr_calloc(w, sizeof(**wt));
		if (!*wt)
			return -ENOMEM;
		for (size_t i = 0; !err && i < all; i++) {
			const struct tdr_td_term *t = &side[s][i];
			struct tdr_wterm *o = &(*wt)[*wt_cnt];
			int idx;

			if (!t->weight)
				continue;
			(*wt_cnt)++;
			idx = tdr_meta__event_idx(meta, t->event);
			if (idx < 0)
				return -ENOENT;
			o->event_idx = (uint32_t)idx;
			o->coef = tdr_td_family__coef_w(f, t, width);
			err = resolve_ratio(meta, f, width, t->weight, &o->w, false);
		}
	}
	return err;
}

/* The product form of fo (tdrec/topdown.h) into c->parts. */
static int resolve_parts(const struct tdr_meta *meta, const struct tdr_td_family *f,
			 uint32_t width, const struct tdr_td_formula *fo, struct tdr_category *c)
{
	int err = 0;

	c->parts = tdr_calloc(fo->part_cnt, sizeof(*c->parts));
	if (!c->parts)
		return -ENOMEM;
	c->part_cnt = fo->part_cnt;
	for (size_t p = 0; !err && p < fo->part_cnt; p++) {
		for (size_t i = 0; !err && i < TDR_TD_MAX_FACTORS && fo->parts[p].f[i].den[0].event;
		     i++) {
			const struct tdr_td_ratio *r = &fo->parts[p].f[i];
			struct tdr_ratio *d = &c->parts[p].factors[i];

			c->parts[p].factor_cnt = i + 1;
			err = resolve_ratio(meta, f, width, r, d, true);
		}
	}
	return err;
}

/* Append the category of formula fo; on error meta is unchanged. */
static int add_category(struct tdr_meta *meta, const struct tdr_td_family *f, uint32_t width,
			const struct tdr_td_formula *fo, size_t *cap)
{
	const struct tdr_td_category *def = tdr_topdown_category(fo->category);
	struct tdr_category c = { 0 };
	int err;

	if (!def)
		return -ENOENT; /* a table bug, caught by its unit test */
	c.level = def->level;
	c.flags = fo->derived ? TDR_CATEGORY_DERIVED : 0;
	c.name = tdr_strdup(def->key);
	c.parent = def->parent ? tdr_strdup(def->parent) : NULL;
	if (!c.name || (def->parent && !c.parent)) {
		err = -ENOMEM;
		goto err_out;
	}
	if (fo->part_cnt) {
		err = resolve_parts(meta, f, width, fo, &c);
	} else {
		struct tdr_td_ratio lin;
		struct tdr_ratio out = {0};

		/* The linear form has no weighted terms. */
		memcpy(lin.num, fo->num, sizeof(lin.num));
		memcpy(lin.den, fo->den, sizeof(lin.den));
		err = resolve_ratio(meta, f, width, &lin, &out, false);
		c.num_cnt = out.num_cnt;
		c.num = out.num;
		c.den_cnt = out.den_cnt;
		c.den = out.den;
	}
	if (!err && tdr_ensure_cap(&meta->categories, cap, sizeof(c), meta->category_cnt + 1))
		err = -ENOMEM;
	if (err)
		goto err_out;
	meta->categories[meta->category_cnt++] = c;
	return 0;
err_out:
	tdr_category__clear(&c);
	return err;
}

int tdr_meta__add_family_categories(struct tdr_meta *meta, const struct tdr_td_family *f,
				   uint32_t width)
{
	/* The array may have been allocated with exactly category_cnt entries
	 * elsewhere: treat its capacity as that, so ensure_cap reallocates. */
	size_t cap = meta->category_cnt, cnt = tdr_td_family__formula_cnt(f);
	int added = 0, err;

	if (!cnt || !has_family_events(meta, f))
		return 0;
	for (size_t j = 0; j < cnt; j++) {
		const struct tdr_td_formula *fo = tdr_td_family__formula(f, j);

		if (has_category(meta, fo->category))
			continue;
		err = add_category(meta, f, width ? width : f->width, fo, &cap);
		if (err)
			return err;
		added++;
	}
	return added;
}

int tdr_meta__add_topdown_categories(struct tdr_meta *meta)
{
	/* The first family (best first) whose events meta has all of gives
	 * the formulas: a level-2 file has the level-1 events too. */
	for (size_t i = 0; i < tdr_topdown_family_cnt(); i++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(i);

		if (tdr_td_family__formula_cnt(f) && has_family_events(meta, f))
			return tdr_meta__add_family_categories(meta, f, 0);
	}
	return 0;
}

/* name without a "pmu/.../" qualification ("cpu_atom/cycles/" -> "cycles"),
 * as a new string. */
static char *bare_name(const char *name, const char *pmu)
{
	size_t pl = strlen(pmu), nl = strlen(name);

	if (nl > pl + 2 && !strncmp(name, pmu, pl) && name[pl] == '/' && name[nl - 1] == '/')
		return tdr_strndup(name + pl + 1, nl - pl - 2);
	return tdr_strdup(name);
}

static void remap_terms(struct tdr_term *t, size_t cnt, const size_t *idx)
{
	for (size_t k = 0; k < cnt; k++)
		t[k].event_idx = (uint32_t)idx[t[k].event_idx];
}

int tdr_meta__add_family_categories_on(struct tdr_meta *meta, const struct tdr_td_family *f,
				       uint32_t width, const char *pmu)
{
	struct tdr_meta s = { 0 };
	size_t *idx = tdr_calloc(meta->event_cnt + 1, sizeof(*idx)), cap = meta->category_cnt;
	int err = -ENOMEM;

	/* A scratch meta of pmu's events under their bare names, so that the
	 * family's formulas find its own core type's "cycles" (hybrid parts
	 * have one per core PMU), then moved here with this meta's indexes. */
	s.events = tdr_calloc(meta->event_cnt + 1, sizeof(*s.events));
	if (!idx || !s.events)
		goto out;
	for (size_t i = 0; i < meta->event_cnt; i++) {
		const struct tdr_event_desc *e = &meta->events[i];

		if (!e->name || !e->pmu_name || strcmp(e->pmu_name, pmu))
			continue;
		idx[s.event_cnt] = i;
		s.events[s.event_cnt].name = bare_name(e->name, pmu);
		if (!s.events[s.event_cnt++].name)
			goto out;
	}
	err = tdr_meta__add_family_categories(&s, f, width);
	if (err <= 0)
		goto out;
	if (tdr_ensure_cap(&meta->categories, &cap, sizeof(*meta->categories),
			   meta->category_cnt + s.category_cnt)) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < s.category_cnt; c++) {
		struct tdr_category *cat = &s.categories[c];

		remap_terms(cat->num, cat->num_cnt, idx);
		remap_terms(cat->den, cat->den_cnt, idx);
		for (size_t p = 0; p < cat->part_cnt; p++) {
			for (size_t q = 0; q < cat->parts[p].factor_cnt; q++) {
				struct tdr_ratio *r = &cat->parts[p].factors[q];

				remap_terms(r->num, r->num_cnt, idx);
				remap_terms(r->den, r->den_cnt, idx);
			}
		}
		meta->categories[meta->category_cnt++] = *cat;
	}
	s.category_cnt = 0; /* moved: only the array is s's now */
out:
	tdr_meta__clear(&s);
	free(idx);
	return err;
}
