/*
 * report/report.c - report lifecycle, the copied schema, warnings, accessors.
 *
 * Responsibility: tdr_report__new copies from the recording's metadata what a
 * report needs (event names and units, TopDown category formulas, the
 * recording's command, host, CPU, plan and notes), validates the formulas,
 * and attaches the bottleneck threshold of every category; __free releases
 * everything. The counting and math live in aggregate.c, collect.c, topdown.c.
 * Ownership: everything is copied; meta is borrowed for the call only.
 */
#include "report_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

#define LOG_PREFIX "report: "
#include "tdrec/tdr_log.h"

/* Labels, glyphs and thresholds come from the TopDown table
 * (tdrec/topdown.h); a category the table does not know (a file from a
 * newer tdrec) is shown by its own name and its first letter, and is never
 * flagged. See docs/report.md "Thresholds". */
char tdr_report_category_glyph(const char *name)
{
	const struct tdr_td_category *c = tdr_topdown_category(name);

	if (c)
		return c->glyph;
	return name[0] >= 'A' && name[0] <= 'Z' ? (char)(name[0] + 32) : name[0] ? name[0] : '?';
}

const char *tdr_report_category_label(const char *name)
{
	const struct tdr_td_category *c = tdr_topdown_category(name);

	return c ? c->label : name;
}

const char *tdr_report_by_name(enum tdr_report_by by)
{
	static const char *const names[] = {"function", "inline", "lines",
					    "dso",	"thread", "process"};

	return (unsigned)by < TDR_ARRAY_SIZE(names) ? names[by] : "unknown";
}

void tdr_report_opts__init(struct tdr_report_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->min_samples = TDR_REPORT_MIN_SAMPLES_DEFAULT;
}

const char *tdr_report_basename(const char *path)
{
	const char *s;

	if (!path)
		return NULL;
	s = strrchr(path, '/');
	return s && s[1] ? s + 1 : path;
}

void tdr_report__warn(struct tdr_report *r, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = tdr_report_strlist__vaddf(&r->warnings, fmt, ap);
	va_end(ap);
	if (err)
		tdr_warn("failed to keep a warning of the report: out of memory");
}

/* Does the event count nanoseconds (by attr first, by name for imports), or
 * nothing at all? */
static uint32_t event_unit(const struct tdr_event_desc *e)
{
	if (e->attr.type == PERF_TYPE_SOFTWARE && (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						   e->attr.config == PERF_COUNT_SW_TASK_CLOCK))
		return UNIT_NS;
	if (e->name && (!strcmp(e->name, "cpu-clock") || !strcmp(e->name, "task-clock")))
		return UNIT_NS;
	if (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY)
		return UNIT_DUMMY;
	return UNIT_COUNT;
}

static int copy_schema(struct tdr_report *r, const struct tdr_meta *meta)
{
	int err;

	r->event_cnt = meta->event_cnt;
	r->event_names = tdr_calloc(meta->event_cnt + 1, sizeof(*r->event_names));
	r->event_units = tdr_calloc(meta->event_cnt + 1, sizeof(*r->event_units));
	r->event_labels = tdr_calloc(meta->event_cnt + 1, sizeof(*r->event_labels));
	if (!r->event_names || !r->event_units || !r->event_labels)
		return -ENOMEM;
	for (size_t i = 0; i < meta->event_cnt; i++) {
		char tmp[32];
		const char *name = meta->events[i].name;

		if (!name || !*name) {
			snprintf(tmp, sizeof(tmp), "event%zu", i);
			name = tmp;
		}
		r->event_names[i] = tdr_strdup(name);
		if (!r->event_names[i])
			return -ENOMEM;
		r->event_units[i] = event_unit(&meta->events[i]);
	}
	err = tdr_report_event_labels(r->event_names, r->event_cnt, r->event_labels);
	if (err)
		return err;
	r->primary_sampler = -1;
	for (size_t i = 0, first = SIZE_MAX; i < meta->event_cnt; i++) {
		if (!(meta->events[i].flags & TDR_EVENT_SAMPLER))
			continue;
		if (first == SIZE_MAX)
			first = i;
		else if (strcmp(r->event_names[i], r->event_names[first]))
			r->primary_sampler = (int)first;
	}

	r->slots_cat = -1;
	r->cat_cnt = meta->category_cnt;
	r->cats = tdr_calloc(meta->category_cnt + 1, sizeof(*r->cats));
	if (!r->cats)
		return -ENOMEM;
	for (size_t i = 0; i < meta->category_cnt; i++) {
		const struct tdr_category *mc = &meta->categories[i];
		struct rep_category *c = &r->cats[i];

		c->parent_idx = -1;
		if (!mc->name || !*mc->name || (!mc->den_cnt && !mc->part_cnt)) {
			tdr_warn("failed to use category %zu: no name or no denominator", i);
			return -EINVAL;
		}
		if (!tdr_category__valid(mc, meta->event_cnt)) {
			tdr_warn("failed to use category %s: a term names no event of the file", mc->name);
			return -EINVAL;
		}
		c->name = tdr_strdup(mc->name);
		c->parent = mc->parent ? tdr_strdup(mc->parent) : NULL;
		if (!c->name || (mc->parent && !c->parent))
			return -ENOMEM;
		c->level = mc->level ? mc->level : 1;
		c->threshold = tdr_topdown_threshold(c->name);
		err = tdr_category__copy(&c->f, mc);
		if (err)
			return err;
		/* A row's slots: the denominator of the first linear level-1
		 * category (Arm's retiring is a product; its FE bound is not). */
		if (c->level == 1 && r->slots_cat < 0 && tdr_category__linear(mc))
			r->slots_cat = (int)i;
	}
	err = tdr_report_cores__init(r, meta);
	if (err)
		return err;
	tdr_report_groups__init(r, meta);
	/* Level-2 categories point at their level-1 parent by name. */
	for (size_t i = 0; i < r->cat_cnt; i++) {
		struct rep_category *c = &r->cats[i];

		for (size_t j = 0; c->level > 1 && c->parent && j < r->cat_cnt; j++)
			if (r->cats[j].level == 1 && !strcmp(r->cats[j].name, c->parent))
				c->parent_idx = (int)j;
	}
	return 0;
}

/* "a b 'c d'": the command line for the header. */
static char *join_argv(size_t argc, char *const *argv)
{
	size_t sz = 1;
	char *s, *p;

	for (size_t i = 0; i < argc; i++)
		sz += (argv[i] ? strlen(argv[i]) : 0) + 3;
	s = tdr_malloc(sz);
	if (!s)
		return NULL;
	p = s;
	for (size_t i = 0; i < argc; i++) {
		const char *a = argv[i] ? argv[i] : "";
		bool quote = !*a || strpbrk(a, " \t\"") != NULL;

		p += sprintf(p, "%s%s%s%s", i ? " " : "", quote ? "'" : "", a, quote ? "'" : "");
	}
	*p = '\0';
	return s;
}

/* The plan's notes as "note: " warnings; consecutive ones that differ only
 * by what is not available ("topdown-l2 not available: R", "topdown-l1 not
 * available: R") become one ("topdown-l2, topdown-l1 not available: R"). */
static void copy_notes(struct tdr_report *r, const struct tdr_meta *meta)
{
	static const char na[] = " not available: ";

	for (size_t i = 0; i < meta->note_cnt; i++) {
		const char *n = meta->notes[i], *why = n ? strstr(n, na) : NULL;
		char names[512];
		size_t len = 0, j = i + 1;

		if (!n)
			continue;
		if (!why) {
			tdr_report__warn(r, "note: %s", n);
			continue;
		}
		len = (size_t)snprintf(names, sizeof(names), "%.*s", (int)(why - n), n);
		for (; j < meta->note_cnt && meta->notes[j] && len < sizeof(names); j++) {
			const char *w = strstr(meta->notes[j], na);

			if (!w || strcmp(w, why))
				break;
			len += (size_t)snprintf(names + len, sizeof(names) - len, ", %.*s",
						(int)(w - meta->notes[j]), meta->notes[j]);
		}
		tdr_report__warn(r, "note: %s%s", names, why);
		i = j - 1;
	}
}

static int copy_recording(struct tdr_report *r, const struct tdr_meta *meta)
{
	char cpu[256];

	if (meta->plan_name && !(r->plan = tdr_strdup(meta->plan_name)))
		return -ENOMEM;
	r->user_only = !(meta->flags & TDR_META_KERNEL);
	r->system_wide = meta->flags & TDR_META_SYSTEM_WIDE;
	if (meta->hostname && !(r->host = tdr_strdup(meta->hostname)))
		return -ENOMEM;
	if (meta->boot_id && !(r->boot_id = tdr_strdup(meta->boot_id)))
		return -ENOMEM;
	if (meta->argc && !(r->command = join_argv(meta->argc, meta->argv)))
		return -ENOMEM;
	if (meta->cpu_model_name || meta->cpu_vendor) {
		snprintf(cpu, sizeof(cpu), "%s (family %u model %u)",
			 meta->cpu_model_name ? meta->cpu_model_name : meta->cpu_vendor,
			 meta->cpu_family, meta->cpu_model);
		if (!(r->cpu = tdr_strdup(cpu)))
			return -ENOMEM;
	}
	copy_notes(r, meta);
	return 0;
}

static int copy_filter(struct tdr_report *r, const struct tdr_report_filter *f)
{
	struct tdr_report_filter *d = &r->opts.filter;

	if ((f->pid_cnt && !f->pids) || (f->tid_cnt && !f->tids) || (f->dso_cnt && !f->dsos) ||
	    (f->comm_cnt && !f->comms))
		return -EINVAL;
	if (f->pid_cnt) {
		if (!(r->f_pids = tdr_calloc(f->pid_cnt, sizeof(*r->f_pids))))
			return -ENOMEM;
		memcpy(r->f_pids, f->pids, f->pid_cnt * sizeof(*r->f_pids));
	}
	if (f->tid_cnt) {
		if (!(r->f_tids = tdr_calloc(f->tid_cnt, sizeof(*r->f_tids))))
			return -ENOMEM;
		memcpy(r->f_tids, f->tids, f->tid_cnt * sizeof(*r->f_tids));
	}
	if (f->dso_cnt && !(r->f_dsos = tdr_calloc(f->dso_cnt, sizeof(*r->f_dsos))))
		return -ENOMEM;
	for (size_t i = 0; i < f->dso_cnt; i++)
		if (!(r->f_dsos[i] = tdr_strdup(f->dsos[i] ? f->dsos[i] : "")))
			return -ENOMEM;
	if (f->comm_cnt && !(r->f_comms = tdr_calloc(f->comm_cnt, sizeof(*r->f_comms))))
		return -ENOMEM;
	for (size_t i = 0; i < f->comm_cnt; i++)
		if (!(r->f_comms[i] = tdr_strdup(f->comms[i] ? f->comms[i] : "")))
			return -ENOMEM;
	d->pids = r->f_pids;
	d->pid_cnt = f->pid_cnt;
	d->tids = r->f_tids;
	d->tid_cnt = f->tid_cnt;
	d->dso_cnt = f->dso_cnt;
	d->comm_cnt = f->comm_cnt;
	d->dsos = (const char *const *)r->f_dsos;
	d->comms = (const char *const *)r->f_comms;
	return 0;
}

int tdr_report__new(const struct tdr_meta *meta, const struct tdr_report_opts *opts,
		    struct tdr_report **out)
{
	struct tdr_report_opts defaults;
	struct tdr_report *r;
	int err;

	if (!opts) {
		tdr_report_opts__init(&defaults);
		opts = &defaults;
	}
	if (!meta || (unsigned)opts->by > TDR_BY_PROCESS || !(opts->min_share >= 0) ||
	    opts->min_share > 1)
		return -EINVAL;
	/* Stack views are by function; the edge views need their function. */
	if ((unsigned)opts->stacks > TDR_STACKS_CALLEES ||
	    (opts->stacks && opts->by != TDR_BY_FUNCTION) ||
	    ((opts->stacks == TDR_STACKS_CALLERS || opts->stacks == TDR_STACKS_CALLEES) &&
	     !opts->stack_func))
		return -EINVAL;
	if ((meta->event_cnt && !meta->events) || (meta->category_cnt && !meta->categories))
		return -EINVAL;
	r = tdr_calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->opts = *opts;
	memset(&r->opts.filter, 0, sizeof(r->opts.filter));
	r->opts.stack_func = NULL;
	r->first_ns = UINT64_MAX;
	err = copy_filter(r, &opts->filter);
	if (!err && opts->stack_func && opts->stacks != TDR_STACKS_CHILDREN) {
		r->stack_func = tdr_strdup(opts->stack_func);
		r->opts.stack_func = r->stack_func;
		if (!r->stack_func)
			err = -ENOMEM;
	}
	if (!err)
		err = copy_schema(r, meta);
	if (!err)
		err = tdr_report_counted__init(r);
	if (!err)
		err = copy_recording(r, meta);
	if (!err && (r->opts.sort.key == TDR_SORT_CATEGORY || r->opts.sort.key == TDR_SORT_EVENT) &&
	    r->opts.sort.idx >= (r->opts.sort.key == TDR_SORT_CATEGORY ? r->cat_cnt : r->event_cnt))
		err = -EINVAL;
	if (err) {
		tdr_report__free(r);
		return err;
	}
	*out = r;
	return 0;
}

/* Names to match a --sort argument against: cnt strings, the first at
 * *first and each next one stride bytes further (a field of a struct array). */
struct name_table {
	const char *const *first;
	size_t cnt, stride;
};

static int name_idx(const struct name_table *t, const char *text)
{
	for (size_t i = 0; i < t->cnt; i++) {
		const char *n = *(const char *const *)((const char *)t->first + i * t->stride);

		if (n && !strcmp(n, text))
			return (int)i;
	}
	return -1;
}

/* An event by its name, its name without perf's modifiers ("cpu-clock" for
 * "cpu-clock:ppp") or the text table's label ("faults"). */
static int event_idx(const struct name_table *t, const char *text)
{
	int i = name_idx(t, text);

	for (size_t k = 0; i < 0 && k < t->cnt; k++) {
		const char *n = *(const char *const *)((const char *)t->first + k * t->stride);
		const char *label = n ? tdr_report_event_short(n) : NULL;

		if (n && ((strcspn(n, ":") == strlen(text) && !strncmp(n, text, strlen(text))) ||
			  (label && !strcmp(label, text))))
			i = (int)k;
	}
	return i;
}

static int parse_sort(const char *text, const struct name_table *cats,
		      const struct name_table *events, struct tdr_report_sort *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	if (!strcmp(text, "samples") || !strcmp(text, "share"))
		out->key = TDR_SORT_SAMPLES;
	else if (!strcmp(text, "slots") && cats->cnt) /* no slots without TopDown */
		out->key = TDR_SORT_SLOTS;
	else if (!strcmp(text, "name"))
		out->key = TDR_SORT_NAME;
	else if ((i = name_idx(cats, text)) >= 0)
		*out = (struct tdr_report_sort){.key = TDR_SORT_CATEGORY, .idx = (size_t)i};
	else if ((i = event_idx(events, text)) >= 0)
		*out = (struct tdr_report_sort){.key = TDR_SORT_EVENT, .idx = (size_t)i};
	else
		return -TDR_E_USAGE;
	return 0;
}

int tdr_report_sort__parse(const struct tdr_meta *meta, const char *text,
			   struct tdr_report_sort *out)
{
	struct name_table cats = {0}, events = {0};

	if (meta && meta->category_cnt)
		cats = (struct name_table){(const char *const *)&meta->categories[0].name,
					   meta->category_cnt, sizeof(*meta->categories)};
	if (meta && meta->event_cnt)
		events = (struct name_table){(const char *const *)&meta->events[0].name,
					     meta->event_cnt, sizeof(*meta->events)};
	return parse_sort(text, &cats, &events, out);
}

int tdr_report__parse_sort(const struct tdr_report *r, const char *text,
			   struct tdr_report_sort *out)
{
	struct name_table cats = {0}, events = {(const char *const *)r->event_names, r->event_cnt,
					       sizeof(*r->event_names)};

	if (r->cat_cnt)
		cats = (struct name_table){(const char *const *)&r->cats[0].name, r->cat_cnt,
					   sizeof(*r->cats)};
	/* The text table's label of an event ("no_ops_f") names it too, unless
	 * it is a name the sort already knows. */
	for (size_t i = 0; r->event_labels && i < r->event_cnt; i++)
		if (!strcmp(text, r->event_labels[i]) && name_idx(&cats, text) < 0 &&
		    name_idx(&events, text) < 0 && strcmp(text, "samples") &&
		    strcmp(text, "share") && strcmp(text, "slots") && strcmp(text, "name")) {
			*out = (struct tdr_report_sort){.key = TDR_SORT_EVENT, .idx = i};
			return 0;
		}
	return parse_sort(text, &cats, &events, out);
}

static void free_cats(struct tdr_report *r)
{
	for (size_t i = 0; r->cats && i < r->cat_cnt; i++) {
		free(r->cats[i].name);
		free(r->cats[i].parent);
		tdr_category__clear(&r->cats[i].f);
	}
	zfree(&r->cats);
}

void tdr_report__free(struct tdr_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->event_names && i < r->event_cnt; i++)
		free(r->event_names[i]);
	free(r->event_names);
	for (size_t i = 0; r->event_labels && i < r->event_cnt; i++)
		free(r->event_labels[i]);
	free(r->event_labels);
	free(r->event_units);
	free_cats(r);
	tdr_report_cores__release(r);
	for (size_t i = 0; r->f_dsos && i < r->opts.filter.dso_cnt; i++)
		free(r->f_dsos[i]);
	for (size_t i = 0; r->f_comms && i < r->opts.filter.comm_cnt; i++)
		free(r->f_comms[i]);
	free(r->f_dsos);
	free(r->f_comms);
	free(r->f_pids);
	free(r->f_tids);
	free(r->plan);
	free(r->command);
	free(r->host);
	free(r->cpu);
	free(r->file);
	free(r->boot_id);
	tdr_report_strlist__release(&r->warnings);
	free(r->view);
	free(r->cat_vals);
	free(r->total_sums);
	free(r->visible);
	tdr_report_counted__release(r);
	tdr_report_rowtab__release(&r->rows);
	tdr_report_addrtab__release(&r->addrs);
	tdr_report_stacks__release(&r->stacks);
	free(r->stack_func);
	tdr_report_strpool__release(&r->pool);
	free(r);
}

/* ---- accessors ---- */

size_t tdr_report__event_cnt(const struct tdr_report *r)
{
	return r->event_cnt;
}

const char *tdr_report__event_name(const struct tdr_report *r, size_t idx)
{
	return idx < r->event_cnt ? r->event_names[idx] : NULL;
}

size_t tdr_report__category_cnt(const struct tdr_report *r)
{
	return r->cat_cnt;
}

const char *tdr_report__category_name(const struct tdr_report *r, size_t idx)
{
	return idx < r->cat_cnt ? r->cats[idx].name : NULL;
}

uint32_t tdr_report__category_level(const struct tdr_report *r, size_t idx)
{
	return idx < r->cat_cnt ? r->cats[idx].level : 0;
}

double tdr_report__threshold(const struct tdr_report *r, size_t idx)
{
	return idx < r->cat_cnt ? r->cats[idx].threshold : NAN;
}

size_t tdr_report__warning_cnt(const struct tdr_report *r)
{
	return r->warnings.cnt;
}

const char *tdr_report__warning(const struct tdr_report *r, size_t idx)
{
	return tdr_report_strlist__at(&r->warnings, idx);
}

uint64_t tdr_report__samples_seen(const struct tdr_report *r)
{
	return r->seen;
}

uint64_t tdr_report__samples_kept(const struct tdr_report *r)
{
	return r->kept;
}
