/*
 * export/model.c - one recording read once into the profile every format writes.
 *
 * Responsibility: run the parser over a recording and keep, per sample, its
 * stack (the sample's own address, then its callers, tdr_sample.frames,
 * when the recording has call stacks), summing the deltas per unique stack, counting samples by the
 * report's rules (tdrec/report.h: the first sampling event of a perf.data
 * file with several), and keeping each sample's time, thread and deltas for
 * the html timeline. Addresses are keyed as report/collect.c keys them
 * (mapping and file offset, the ip for kernel code), so each is symbolized
 * once (resolve.c). The values (samples, events, slots, category slots)
 * are computed here from the summed deltas through the report's formulas.
 * Not here: symbols (resolve.c), any output format.
 * Ownership: the parser's mappings are borrowed until resolve.c is done;
 * everything kept is copied or interned.
 */
#include "export_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "export: "
#include "tdrec/tdr_log.h"

static const char *const format_names[TDR_EXPORT_FORMAT_CNT] = {"pprof", "folded", "speedscope",
								 "html"};

const char *tdr_export_format_name(enum tdr_export_format f)
{
	return (unsigned)f < TDR_EXPORT_FORMAT_CNT ? format_names[f] : "unknown";
}

int tdr_export_format_parse(const char *name, enum tdr_export_format *out)
{
	for (size_t i = 0; i < TDR_EXPORT_FORMAT_CNT; i++) {
		if (!strcmp(name, format_names[i])) {
			*out = (enum tdr_export_format)i;
			return 0;
		}
	}
	return -TDR_E_USAGE;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

int tdr_export_format_from_path(const char *path, enum tdr_export_format *out)
{
	static const struct {
		const char *suffix;
		enum tdr_export_format f;
	} map[] = {
	    {".pb.gz", TDR_EXPORT_PPROF},  {".pprof", TDR_EXPORT_PPROF},
	    {".pb", TDR_EXPORT_PPROF},	   {".folded", TDR_EXPORT_FOLDED},
	    {".collapsed", TDR_EXPORT_FOLDED}, {".json", TDR_EXPORT_SPEEDSCOPE},
	    {".html", TDR_EXPORT_HTML},	   {".htm", TDR_EXPORT_HTML},
	};

	for (size_t i = 0; i < TDR_ARRAY_SIZE(map); i++) {
		if (ends_with(path, map[i].suffix)) {
			*out = map[i].f;
			return 0;
		}
	}
	return -TDR_E_USAGE;
}

/* ---- values ---------------------------------------------------------------- */

double tdr_export_value(const struct tdr_profile *p, size_t v, uint64_t samples,
			const uint64_t *sums)
{
	const struct ex_value *val = &p->values[v];
	double slots, f;

	switch (val->kind) {
	case EXV_SAMPLES:
		return (double)samples;
	case EXV_EVENT:
		return (double)sums[val->idx];
	case EXV_SLOTS:
		return tdr_report__slots_of(p->rules, sums);
	case EXV_CATEGORY:
		/* Linear categories: exactly the numerator's sum; product
		 * categories (Arm) their ratio of these sums times the slots. */
		slots = tdr_report__slots_of(p->rules, sums);
		f = tdr_report__category_of(p->rules, val->idx, sums);
		return isfinite(f) && slots > 0 ? f * slots : 0.0;
	}
	return 0.0;
}

double tdr_export_stack_value(const struct tdr_profile *p, size_t i, size_t v)
{
	return tdr_export_value(p, v, p->stacks[i].samples, p->sums + i * p->event_cnt);
}

size_t tdr_profile__value_cnt(const struct tdr_profile *p)
{
	return p->value_cnt;
}

const char *tdr_profile__value_name(const struct tdr_profile *p, size_t idx)
{
	return idx < p->value_cnt ? p->values[idx].name : NULL;
}

int tdr_profile__value_find(const struct tdr_profile *p, const char *name)
{
	for (size_t i = 0; i < p->value_cnt; i++)
		if (!strcmp(p->values[i].name, name))
			return (int)i;
	return -TDR_E_USAGE;
}

bool tdr_profile__span(const struct tdr_profile *p, uint64_t *from_ns, uint64_t *until_ns)
{
	uint64_t len = p->first_ns <= p->last_ns ? p->last_ns - p->first_ns : p->duration_ns;

	*from_ns = 0;
	*until_ns = len;
	if (!p->start_wall_ns)
		return false;
	if (p->first_ns <= p->last_ns && p->first_ns >= p->start_clock_ns)
		*from_ns = p->start_wall_ns + (p->first_ns - p->start_clock_ns);
	else
		*from_ns = p->start_wall_ns;
	*until_ns = *from_ns + len;
	return true;
}

static int add_value(struct tdr_profile *p, enum ex_value_kind kind, size_t idx, const char *name,
		     const char *unit)
{
	struct ex_value *v = &p->values[p->value_cnt++];

	v->kind = kind;
	v->idx = idx;
	v->name = tdr_intern__str(&p->strs, name);
	v->unit = tdr_intern__str(&p->strs, unit);
	return v->name && v->unit ? 0 : -ENOMEM;
}

static int make_values(struct tdr_profile *p)
{
	int err;

	p->values = tdr_calloc(2 + p->event_cnt + p->cat_cnt, sizeof(*p->values));
	if (!p->values)
		return -ENOMEM;
	err = add_value(p, EXV_SAMPLES, 0, "samples", "count");
	for (size_t e = 0; !err && e < p->event_cnt; e++) {
		const char *unit = tdr_report__event_unit(p->rules, e);

		if (unit)
			err = add_value(p, EXV_EVENT, e, tdr_report__event_name(p->rules, e), unit);
	}
	if (!err && tdr_report__has_slots(p->rules)) {
		/* Intel's slots event is "slots" already: on hybrid parts the
		 * slots of every core type are more than that event's. */
		bool taken = false;

		for (size_t e = 0; e < p->event_cnt; e++)
			taken |= !strcmp(tdr_report__event_name(p->rules, e), "slots");
		err = add_value(p, EXV_SLOTS, 0, taken ? "slots.total" : "slots", "count");
		for (size_t c = 0; !err && c < p->cat_cnt; c++)
			err = add_value(p, EXV_CATEGORY, c, tdr_report__category_name(p->rules, c),
					"count");
	}
	return err;
}

/* ---- loading --------------------------------------------------------------- */

static uint64_t loc_hash(const void *ctx, uint32_t idx)
{
	return ((const struct ex_loc *)ctx)[idx].hash;
}

static bool loc_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct ex_loc *a = (const struct ex_loc *)ctx + idx, *b = key;

	return a->hash == b->hash && a->map == b->map && a->off == b->off && a->kind == b->kind &&
	       a->caller == b->caller;
}

static void classify(const struct tdr_sample *s, uint64_t ip, const struct tdr_mapping *map,
		     uint64_t map_off, enum tdr_cpumode mode, struct ex_loc *k)
{
	(void)s;
	memset(k, 0, sizeof(*k));
	k->map = map;
	k->address = ip;
	k->kind = tdr_addr_place(mode, map);
	if (k->kind == EX_HYPERVISOR || k->kind == EX_GUEST)
		k->map = NULL;
	else if (k->kind == EX_KERNEL)
		k->off = ip;
	else if (k->kind == EX_FILE || k->kind == EX_VDSO)
		k->off = map_off;
}

static long loc_find_or_add(struct tdr_profile *p, struct ex_loc *k)
{
	uint32_t idx;
	size_t pos;
	int err;

	k->hash = tdr_hash_combine((uintptr_t)k->map ^ (k->off * 0x9e3779b97f4a7c15ull),
				   (uint64_t)k->kind << 1 | k->caller);
	err = tdr_hmap__reserve(&p->loc_index, 1024, loc_hash, p->locs);
	if (err)
		return err;
	idx = tdr_hmap__find(&p->loc_index, k->hash, loc_eq, p->locs, k, &pos);
	if (idx != TDR_HMAP_NONE)
		return idx;
	err = tdr_ensure_cap(&p->locs, &p->loc_cap, sizeof(*p->locs), p->loc_cnt + 1);
	if (err)
		return err;
	p->locs[p->loc_cnt] = *k;
	tdr_hmap__add(&p->loc_index, pos);
	return (long)p->loc_cnt++;
}

static uint64_t stack_hash(const void *ctx, uint32_t idx)
{
	return ((const struct tdr_profile *)ctx)->stacks[idx].hash;
}

struct stack_key {
	const uint32_t *locs;
	uint32_t cnt;
	uint64_t hash;
};

static bool stack_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_profile *p = ctx;
	const struct ex_stack *s = &p->stacks[idx];
	const struct stack_key *k = key;

	return s->hash == k->hash && s->cnt == k->cnt &&
	       !memcmp(p->stack_locs + s->first, k->locs, k->cnt * sizeof(*k->locs));
}

static long stack_find_or_add(struct tdr_profile *p, const uint32_t *locs, uint32_t cnt)
{
	struct stack_key k = {locs, cnt, tdr_hash_bytes(locs, cnt * sizeof(*locs))};
	uint32_t idx;
	size_t pos;
	int err;

	err = tdr_hmap__reserve(&p->stack_index, 1024, stack_hash, p);
	if (err)
		return err;
	idx = tdr_hmap__find(&p->stack_index, k.hash, stack_eq, p, &k, &pos);
	if (idx != TDR_HMAP_NONE)
		return idx;
	err = tdr_ensure_cap(&p->stacks, &p->stack_cap, sizeof(*p->stacks), p->stack_cnt + 1);
	if (!err)
		err = tdr_ensure_cap(&p->stack_locs, &p->stack_loc_cap, sizeof(*p->stack_locs),
				     p->stack_loc_cnt + cnt);
	if (!err && p->event_cnt) {
		size_t old = p->sums_cap;

		err = tdr_ensure_cap(&p->sums, &p->sums_cap, p->event_cnt * sizeof(*p->sums),
				     p->stack_cnt + 1);
		if (!err && p->sums_cap > old)
			memset(p->sums + old * p->event_cnt, 0,
			       (p->sums_cap - old) * p->event_cnt * sizeof(*p->sums));
	}
	if (err)
		return err;
	memcpy(p->stack_locs + p->stack_loc_cnt, locs, cnt * sizeof(*locs));
	p->stacks[p->stack_cnt] = (struct ex_stack){.first = (uint32_t)p->stack_loc_cnt,
						    .cnt = cnt,
						    .hash = k.hash};
	p->stack_loc_cnt += cnt;
	tdr_hmap__add(&p->stack_index, pos);
	return (long)p->stack_cnt++;
}

static uint64_t thread_hash(const void *ctx, uint32_t idx)
{
	return tdr_hash_combine(((const struct ex_thread *)ctx)[idx].tid, 0);
}

static bool thread_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct ex_thread *)ctx)[idx].tid == *(const uint32_t *)key;
}

static int note_thread(struct tdr_profile *p, const struct tdr_sample *s)
{
	uint32_t idx;
	size_t pos;
	int err;

	err = tdr_hmap__reserve(&p->thread_index, 64, thread_hash, p->threads);
	if (err)
		return err;
	idx = tdr_hmap__find(&p->thread_index, tdr_hash_combine(s->tid, 0), thread_eq, p->threads,
			     &s->tid, &pos);
	if (idx == TDR_HMAP_NONE) {
		err = tdr_ensure_cap(&p->threads, &p->thread_cap, sizeof(*p->threads),
				     p->thread_cnt + 1);
		if (err)
			return err;
		idx = (uint32_t)p->thread_cnt++;
		p->threads[idx] = (struct ex_thread){.pid = s->pid, .tid = s->tid};
		tdr_hmap__add(&p->thread_index, pos);
	}
	if (s->comm && *s->comm && (!p->threads[idx].comm || strcmp(p->threads[idx].comm, s->comm))) {
		p->threads[idx].comm = tdr_intern__str(&p->strs, s->comm);
		if (!p->threads[idx].comm)
			return -ENOMEM;
	}
	return 0;
}

static int keep_sample(struct tdr_profile *p, const struct tdr_sample *s, uint32_t stack,
		       bool counts)
{
	int err = tdr_ensure_cap(&p->smp, &p->smp_cap, sizeof(*p->smp), p->smp_cnt + 1);

	if (!err && p->event_cnt)
		err = tdr_ensure_cap(&p->smp_deltas, &p->smp_deltas_cap,
				     p->event_cnt * sizeof(*p->smp_deltas), p->smp_cnt + 1);
	if (err)
		return err;
	p->smp[p->smp_cnt] = (struct ex_sample){s->time_ns, s->tid, stack, counts};
	if (p->event_cnt) {
		uint64_t *d = p->smp_deltas + p->smp_cnt * p->event_cnt;

		if (s->deltas)
			memcpy(d, s->deltas, p->event_cnt * sizeof(*d));
		else
			memset(d, 0, p->event_cnt * sizeof(*d));
	}
	p->smp_cnt++;
	return note_thread(p, s);
}


static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct tdr_profile *p = ctx;
	uint32_t locs[EX_MAX_FRAMES];
	uint32_t cnt = 0;
	struct ex_loc k;
	bool counts = tdr_report__sample_counts(p->rules, s);
	long idx;

	classify(s, s->ip, s->map, s->map_off, s->cpumode, &k);
	if (k.kind == EX_KERNEL)
		p->kernel_image = tdr_report_kernel_image(p->kernel_image, s->map);
	idx = loc_find_or_add(p, &k);
	if (idx < 0)
		return (int)idx;
	locs[cnt++] = (uint32_t)idx;
	/* The callers, innermost first; the deepest ones beyond
	 * EX_MAX_FRAMES are cut (docs/export.md "The profile"). */
	for (uint32_t i = 0; s->frames && i < s->frame_cnt && cnt < EX_MAX_FRAMES; i++) {
		const struct tdr_frame *f = &s->frames[i];

		classify(s, f->ip, f->map, f->map_off, f->cpumode, &k);
		k.caller = true;
		idx = loc_find_or_add(p, &k);
		if (idx < 0)
			return (int)idx;
		locs[cnt++] = (uint32_t)idx;
	}
	if (s->frames && s->frame_cnt >= EX_MAX_FRAMES)
		p->cut_stacks++;
	idx = stack_find_or_add(p, locs, cnt);
	if (idx < 0)
		return (int)idx;
	if (counts) {
		p->stacks[idx].samples++;
		p->samples++;
	}
	for (size_t e = 0; s->deltas && e < p->event_cnt; e++)
		p->sums[(size_t)idx * p->event_cnt + e] += s->deltas[e];
	if (s->time_ns < p->first_ns)
		p->first_ns = s->time_ns;
	if (s->time_ns > p->last_ns)
		p->last_ns = s->time_ns;
	/* The threads (their names) are kept in every format: the html timeline
	 * lists them, pprof names its main binary after them (resolve.c). */
	return p->timeline ? keep_sample(p, s, (uint32_t)idx, counts) : note_thread(p, s);
}

static char *join_argv(const struct tdr_meta *m)
{
	size_t sz = 1;
	char *s;

	for (size_t i = 0; i < m->argc; i++)
		sz += strlen(m->argv[i] ? m->argv[i] : "") + 1;
	s = tdr_calloc(1, sz);
	for (size_t i = 0; s && i < m->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, m->argv[i] ? m->argv[i] : "");
	}
	return s;
}

int tdr_profile__load(const char *path, const struct tdr_report_load_opts *lopts,
		      bool timeline, struct tdr_profile **out)
{
	struct tdr_report_load_opts none = {0};
	struct tdr_parser *parser = NULL;
	struct tdr_unwinder *unw = NULL;
	const struct tdr_meta *meta;
	struct tdr_profile *p;
	int err;

	p = tdr_calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->first_ns = UINT64_MAX;
	p->timeline = timeline;
	err = tdr_parser__open(path, &parser);
	/* --call-graph dwarf: the user callers come from unwinding the
	 * samples' stack copies, as in report's stack views. */
	if (!err)
		err = tdr_report_attach_unwinder(parser, &unw);
	if (err)
		goto out;
	meta = tdr_parser__meta(parser);
	err = tdr_report__new_schema(meta, &p->rules);
	if (err)
		goto out;
	p->event_cnt = tdr_report__event_cnt(p->rules);
	p->cat_cnt = tdr_report__category_cnt(p->rules);
	p->start_wall_ns = meta->start_wall_ns;
	p->start_clock_ns = meta->start_clock_ns;
	p->period = meta->sample_period;
	p->command = join_argv(meta);
	p->plan = tdr_strdup(meta->plan_name ? meta->plan_name : "");
	p->host = tdr_strdup(meta->hostname ? meta->hostname : "");
	err = !p->command || !p->plan || !p->host ? -ENOMEM : make_values(p);
	if (!err)
		err = tdr_parser__run(parser, on_sample, p);
	if (!err) {
		const struct tdr_run_end *end = tdr_parser__run_end(parser);

		p->duration_ns = end ? end->duration_ns : 0;
		err = tdr_export_resolve(p, path, meta, tdr_parser__archive(parser),
					 lopts ? lopts : &none);
	}
out:
	tdr_parser__free(parser);
	tdr_unwinder__free(unw);
	for (size_t i = 0; i < p->map_cnt; i++)
		p->maps[i].src = NULL;
	for (size_t i = 0; i < p->loc_cnt; i++)
		p->locs[i].map = NULL;
	p->kernel_image = NULL;
	if (err) {
		tdr_profile__free(p);
		return err;
	}
	*out = p;
	return 0;
}

void tdr_profile__free(struct tdr_profile *p)
{
	if (!p)
		return;
	tdr_report__free(p->rules);
	free(p->values);
	free(p->command);
	free(p->plan);
	free(p->host);
	free(p->maps);
	free(p->funcs);
	tdr_hmap__fini(&p->func_index);
	free(p->lines);
	free(p->locs);
	tdr_hmap__fini(&p->loc_index);
	free(p->stack_locs);
	free(p->stacks);
	tdr_hmap__fini(&p->stack_index);
	free(p->sums);
	free(p->smp);
	free(p->smp_deltas);
	free(p->threads);
	tdr_hmap__fini(&p->thread_index);
	tdr_intern__fini(&p->strs);
	free(p);
}

size_t tdr_export_stack_frames(const struct tdr_profile *p, size_t s, uint32_t *out, size_t cap)
{
	const struct ex_stack *st = &p->stacks[s];
	size_t n = 0, total = 0, skip;

	for (size_t i = 0; i < st->cnt; i++)
		total += p->locs[p->stack_locs[st->first + i]].line_cnt;
	/* Too many: the outermost go, the leaf stays. */
	skip = total > cap ? total - cap : 0;
	/* Outermost caller first; within a location, the physical function
	 * first and its innermost inline last. */
	for (size_t i = st->cnt; i-- > 0;) {
		const struct ex_loc *l = &p->locs[p->stack_locs[st->first + i]];

		for (size_t j = l->line_cnt; j-- > 0;) {
			if (skip) {
				skip--;
				continue;
			}
			out[n++] = p->lines[l->line_first + j].func;
		}
	}
	return n;
}
