/*
 * export/html.c - a profile as one self-contained HTML page.
 *
 * Responsibility: the profile's data as one JSON document inside the page
 * (export/page.html, embedded at build time by export/embed.cmake): the
 * values and TopDown categories (names, levels, thresholds), functions and
 * objects, each stack's frames (outermost first, inline frames expanded)
 * and the physical function of its sampled address, the threads, and the
 * values per (time bucket, thread, stack) cell from which the page draws
 * the timeline and, for any selected span, the flame graph and the table.
 * The page does the drawing; nothing here is about layout.
 * The JSON goes into a <script> element, so every "</" in it is written as
 * "<\/" (the same string to JSON, never the end of the element).
 * docs/export.md "html".
 */
#include "export_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_json.h"
#include "tdrec/tdr_mem.h"

/* export/page.html as bytes (page_html.c, generated). */
extern const unsigned char tdr_export_html_page[];
extern const size_t tdr_export_html_page_len;

#define DATA_MARK "/*TDR_DATA*/"
#define HTML_BUCKETS 150

/* The cells: samples and summed deltas per (bucket, thread, stack). */
struct cell {
	uint64_t key; /* bucket << 56 | thread << 32 | stack */
	uint64_t samples;
};

struct cells {
	struct tdr_u64map index; /* key -> cell */
	struct cell *v;
	uint64_t *sums; /* cnt * event_cnt */
	size_t cnt, cap, sums_cap;
};

static uint64_t cell_key(uint32_t bucket, uint32_t thread, uint32_t stack)
{
	return (uint64_t)bucket << 56 | (uint64_t)(thread & 0xffffff) << 32 | stack;
}

static int cells_build(const struct tdr_profile *p, struct cells *c, uint32_t *thread_of_tid_fail)
{
	struct tdr_u64map tids = {0};
	uint64_t span = p->first_ns <= p->last_ns ? p->last_ns - p->first_ns + 1 : 1;
	int err = 0;

	*thread_of_tid_fail = 0;
	for (size_t i = 0; i < p->thread_cnt && !err; i++)
		err = tdr_u64map__put(&tids, p->threads[i].tid, (uint32_t)i);
	for (size_t i = 0; i < p->smp_cnt && !err; i++) {
		const struct ex_sample *s = &p->smp[i];
		uint32_t th = tdr_u64map__get(&tids, s->tid), idx;
		uint64_t b = (uint64_t)((double)(s->time_ns - p->first_ns) / (double)span * HTML_BUCKETS);
		uint64_t key;

		if (th == TDR_HMAP_NONE || th > 0xffffff) {
			(*thread_of_tid_fail)++;
			continue;
		}
		key = cell_key((uint32_t)(b < HTML_BUCKETS ? b : HTML_BUCKETS - 1), th, s->stack);
		idx = tdr_u64map__get(&c->index, key);
		if (idx == TDR_HMAP_NONE) {
			size_t old = c->sums_cap;

			err = tdr_ensure_cap(&c->v, &c->cap, sizeof(*c->v), c->cnt + 1);
			if (!err && p->event_cnt)
				err = tdr_ensure_cap(&c->sums, &c->sums_cap,
						     p->event_cnt * sizeof(*c->sums), c->cnt + 1);
			if (!err && c->sums_cap > old)
				memset(c->sums + old * p->event_cnt, 0,
				       (c->sums_cap - old) * p->event_cnt * sizeof(*c->sums));
			if (!err)
				err = tdr_u64map__put(&c->index, key, (uint32_t)c->cnt);
			if (err)
				break;
			idx = (uint32_t)c->cnt++;
			c->v[idx] = (struct cell){key, 0};
		}
		c->v[idx].samples += s->counts;
		for (size_t e = 0; e < p->event_cnt; e++)
			c->sums[(size_t)idx * p->event_cnt + e] += p->smp_deltas[i * p->event_cnt + e];
	}
	tdr_u64map__fini(&tids);
	return err;
}

static void cells_release(struct cells *c)
{
	tdr_u64map__fini(&c->index);
	free(c->v);
	free(c->sums);
}

static const char *kind_name(enum ex_value_kind k)
{
	static const char *const n[] = {"samples", "event", "slots", "category"};

	return n[k];
}

static void put_schema(struct tdr_json *j, const struct tdr_profile *p)
{
	tdr_json__key(j, "values");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t v = 0; v < p->value_cnt; v++) {
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_string(j, "name", p->values[v].name);
		tdr_json__key_string(j, "unit", p->values[v].unit);
		tdr_json__key_string(j, "kind", kind_name(p->values[v].kind));
		tdr_json__key_uint(j, "cat", p->values[v].kind == EXV_CATEGORY ? p->values[v].idx : 0);
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
	tdr_json__key_bool(j, "topdown", tdr_report__has_slots(p->rules) && p->cat_cnt);
	tdr_json__key(j, "cats");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t c = 0; c < p->cat_cnt; c++) {
		int parent = tdr_report__category_parent(p->rules, c);

		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_string(j, "name", tdr_report__category_name(p->rules, c));
		tdr_json__key_uint(j, "level", tdr_report__category_depth(p->rules, c));
		if (parent >= 0)
			tdr_json__key_string(j, "parent",
					     tdr_report__category_name(p->rules, (size_t)parent));
		else
			tdr_json__key_null(j, "parent");
		tdr_json__key_double(j, "threshold", tdr_report__category_threshold(p->rules, c));
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
}

/* Functions as [name, object index or -1, file or null]; objects by name. */
static int put_funcs(struct tdr_json *j, const struct tdr_profile *p)
{
	struct tdr_u64map dso_idx = {0};
	const char **dsos = NULL;
	size_t dso_cnt = 0, dso_cap = 0;
	int err = 0;

	tdr_json__key(j, "funcs");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < p->func_cnt; i++) {
		const struct ex_func *f = &p->funcs[i];
		long d = -1;

		if (f->dso && !err) {
			uint32_t k = tdr_u64map__get(&dso_idx, (uintptr_t)f->dso);

			if (k == TDR_HMAP_NONE) {
				err = tdr_ensure_cap(&dsos, &dso_cap, sizeof(*dsos), dso_cnt + 1);
				if (!err)
					err = tdr_u64map__put(&dso_idx, (uintptr_t)f->dso,
							      (uint32_t)dso_cnt);
				if (!err)
					dsos[dso_cnt] = f->dso;
				k = (uint32_t)dso_cnt++;
			}
			d = err ? -1 : (long)k;
		}
		tdr_json__begin_array(j, TDR_JSON_INLINE);
		tdr_json__string(j, f->name);
		tdr_json__int(j, d);
		if (f->file)
			tdr_json__string(j, f->file);
		else
			tdr_json__null(j);
		tdr_json__end_array(j);
	}
	tdr_json__end_array(j);
	tdr_json__key(j, "dsos");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < dso_cnt; i++)
		tdr_json__string(j, dsos[i]);
	tdr_json__end_array(j);
	free(dsos);
	tdr_u64map__fini(&dso_idx);
	return err;
}

static void put_stacks(struct tdr_json *j, const struct tdr_profile *p)
{
	uint32_t frames[EX_MAX_FRAMES];

	tdr_json__key(j, "stacks");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t s = 0; s < p->stack_cnt; s++) {
		size_t n = tdr_export_stack_frames(p, s, frames, EX_MAX_FRAMES);

		tdr_json__begin_array(j, TDR_JSON_INLINE);
		for (size_t i = 0; i < n; i++)
			tdr_json__uint(j, frames[i]);
		tdr_json__end_array(j);
	}
	tdr_json__end_array(j);
	/* The physical function of the sampled address: the table's rows,
	 * as 'tdrec report' charges samples. */
	tdr_json__key(j, "self");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t s = 0; s < p->stack_cnt; s++) {
		const struct ex_loc *l = &p->locs[p->stack_locs[p->stacks[s].first]];

		tdr_json__uint(j, l->line_cnt ? p->lines[l->line_first + l->line_cnt - 1].func : 0);
	}
	tdr_json__end_array(j);
}

static void put_cells(struct tdr_json *j, const struct tdr_profile *p, const struct cells *c)
{
	tdr_json__key(j, "cells");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < c->cnt; i++) {
		uint64_t k = c->v[i].key;
		const uint64_t *sums = p->event_cnt ? c->sums + i * p->event_cnt : NULL;

		tdr_json__begin_array(j, TDR_JSON_INLINE);
		tdr_json__uint(j, k >> 56);
		tdr_json__uint(j, (k >> 32) & 0xffffff);
		tdr_json__uint(j, k & 0xffffffff);
		for (size_t v = 0; v < p->value_cnt; v++)
			tdr_json__int(j, llround(tdr_export_value(p, v, c->v[i].samples, sums)));
		tdr_json__end_array(j);
	}
	tdr_json__end_array(j);
}

static int put_data(const struct tdr_profile *p, FILE *f)
{
	struct cells c = {0};
	struct tdr_json j;
	uint32_t lost;
	int err = cells_build(p, &c, &lost);

	if (err) {
		cells_release(&c);
		return err;
	}
	tdr_json__init(&j, f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "title", p->command);
	tdr_json__key_string(&j, "plan", p->plan);
	tdr_json__key_string(&j, "host", p->host);
	tdr_json__key_uint(&j, "buckets", HTML_BUCKETS);
	tdr_json__key_uint(&j, "span_ns", p->first_ns <= p->last_ns ? p->last_ns - p->first_ns : 0);
	put_schema(&j, p);
	err = put_funcs(&j, p);
	put_stacks(&j, p);
	tdr_json__key(&j, "threads");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (size_t i = 0; i < p->thread_cnt; i++) {
		tdr_json__begin_array(&j, TDR_JSON_INLINE);
		tdr_json__uint(&j, p->threads[i].tid);
		tdr_json__uint(&j, p->threads[i].pid);
		tdr_json__string(&j, p->threads[i].comm ? p->threads[i].comm : "");
		tdr_json__end_array(&j);
	}
	tdr_json__end_array(&j);
	put_cells(&j, p, &c);
	tdr_json__end_object(&j);
	cells_release(&c);
	return err;
}

/* s as it may stand inside a <script> element. */
static void put_script_safe(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<' && i + 1 < n && s[i + 1] == '/') {
			fputs("<\\/", out);
			i++;
			continue;
		}
		fputc(s[i], out);
	}
}

int tdr_export_html(const struct tdr_profile *p, FILE *out)
{
	const char *page = (const char *)tdr_export_html_page;
	const char *mark = strstr(page, DATA_MARK);
	char *data = NULL;
	size_t data_sz = 0;
	FILE *mem;
	int err;

	if (!mark || !p->timeline)
		return -EINVAL;
	mem = open_memstream(&data, &data_sz);
	if (!mem)
		return -ENOMEM;
	err = put_data(p, mem);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err) {
		fwrite(page, 1, (size_t)(mark - page), out);
		put_script_safe(out, data, data_sz);
		fputs(mark + strlen(DATA_MARK), out);
	}
	free(data);
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}
