/*
 * report/render_stat_json.c - the JSON document of 'tdrec stat'.
 *
 * Responsibility: one document at the end of the run with the plan, its
 * events and categories (with thresholds), notes, warnings, the total, the
 * intervals kept during the run (struct tdr_stat_out), and the thread rows,
 * all from the stat view (tdrec/stat.h). Numbers that cannot be computed
 * are null, never NaN. Written through the common JSON writer (tdr_json.h:
 * its one number format, its escaping).
 * Ownership and threads: writes to the stream it is given; one thread.
 * See: docs/stat.md "JSON schema".
 */
#include "render_stat_int.h"

#include <string.h>

#include "tdrec/tdr_json.h"

/* A category name by index, null for none (bottlenecks). */
static void json_cat(const struct report_stat_doc *d, const char *key, int idx, struct tdr_json *j)
{
	tdr_json__key_string(j, key, idx >= 0 ? tdr_report_stat_cat_name(d, idx) : NULL);
}

static void json_row(const struct report_stat_doc *d, const struct tdr_stat_row *r,
		     struct tdr_json *j)
{
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	if (r->kind == TDR_STAT_ROW_THREAD) {
		tdr_json__key_int(j, "pid", r->pid);
		tdr_json__key_int(j, "tid", r->tid);
	}
	if (r->kind == TDR_STAT_ROW_THREAD || r->kind == TDR_STAT_ROW_UNATTRIBUTED) {
		tdr_json__key_string(j, "name", r->name);
	} else {
		tdr_json__key_double(j, "start_s", (double)r->start_ns / 1e9);
		tdr_json__key_double(j, "end_s", (double)r->end_ns / 1e9);
	}
	tdr_json__key(j, "events");
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < d->v.event_cnt; i++)
		tdr_json__key_uint(j, d->ev[i].name, r->values[i]);
	tdr_json__end_object(j);
	tdr_json__key_uint(j, "time_enabled_ns", r->time_enabled_ns);
	tdr_json__key_uint(j, "time_running_ns", r->time_running_ns);
	if (!r->task_run_ns)
		tdr_json__key_null(j, "task_run_ns");
	else
		tdr_json__key_uint(j, "task_run_ns", r->task_run_ns);
	tdr_json__key_double(j, "counted", r->counted);
	/* Each plan group's share: AMD level 2 counts in three groups. */
	tdr_json__key(j, "group_counted");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t g = 0; g < r->group_cnt; g++)
		tdr_json__double(j, r->group_counted[g]);
	tdr_json__end_array(j);
	if (!d->v.topdown) {
		tdr_json__key_null(j, "slots");
		tdr_json__key_null(j, "topdown");
		tdr_json__key_null(j, "out_of_range");
		tdr_json__key_null(j, "bottleneck");
		tdr_json__key_null(j, "bottleneck_l2");
		tdr_json__end_object(j);
		return;
	}
	tdr_json__key_double(j, "slots", r->slots);
	tdr_json__key(j, "topdown");
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t c = 0; c < d->v.category_cnt; c++)
		tdr_json__key_double(j, tdr_report_stat_cat_name(d, (int)c), r->cats[c]);
	tdr_json__end_object(j);
	/* As report --json: the categories the formula put below 0 or above
	 * 1 (shown as computed, not clamped). */
	tdr_json__key(j, "out_of_range");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t c = 0; c < d->v.category_cnt; c++)
		if (tdr_category_out_of_range(r->cats[c])) /* false for NAN */
			tdr_json__string(j, tdr_report_stat_cat_name(d, (int)c));
	tdr_json__end_array(j);
	json_cat(d, "bottleneck", r->bn, j);
	json_cat(d, "bottleneck_l2", r->bn_l2, j);
	tdr_json__end_object(j);
}

static void json_schema(const struct report_stat_doc *d, struct tdr_json *j)
{
	tdr_json__key(j, "events");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < d->v.event_cnt; i++) {
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_string(j, "name", d->ev[i].name);
		tdr_json__key_string(j, "pmu", d->ev[i].pmu);
		tdr_json__key_uint(j, "group", d->ev[i].group);
		tdr_json__key_string(j, "unit", d->ev[i].clock ? "ns" : "count");
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
	tdr_json__key(j, "categories");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t c = 0; c < d->v.category_cnt; c++) {
		const struct tdr_stat_category *k = &d->cat[c];

		tdr_json__begin_object(j, TDR_JSON_INLINE);
		/* The name rows use (hybrid parts: "retiring:atom"). */
		tdr_json__key_string(j, "name", tdr_report_stat_cat_name(d, (int)c));
		tdr_json__key_uint(j, "level", k->level);
		tdr_json__key_string(j, "parent", k->parent_idx >= 0
						      ? tdr_report_stat_cat_name(d, k->parent_idx)
						      : k->parent); /* null for level 1 */
		tdr_json__key_bool(j, "derived", k->derived);
		tdr_json__key_double(j, "threshold", k->threshold);
		if (k->core) /* hybrid parts only */
			tdr_json__key_string(j, "core", k->core);
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
}

static void json_program(const struct report_stat_doc *d, struct tdr_json *j)
{
	const struct tdr_stat_summary *s = d->sum;

	tdr_json__key(j, "program");
	if (!s->launched) {
		tdr_json__null(j);
		return;
	}
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_int(j, "pid", d->v.program_pid);
	if (s->exited && !s->term_signal)
		tdr_json__key_int(j, "exit_code", s->exit_code);
	else
		tdr_json__key_null(j, "exit_code");
	if (s->term_signal)
		tdr_json__key_int(j, "signal", s->term_signal);
	else
		tdr_json__key_null(j, "signal");
	tdr_json__end_object(j);
}

/* The notes of the plan, then the kernel note when there is one. */
static void json_notes(const struct report_stat_doc *d, struct tdr_json *j)
{
	const char *kernel_note = tdr_stat__kernel_note(d->st);

	tdr_json__key(j, "notes");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < d->v.note_cnt; i++)
		tdr_json__string(j, tdr_stat__note(d->st, i));
	if (kernel_note)
		tdr_json__string(j, kernel_note);
	tdr_json__end_array(j);
}

/* "threads" and "not_attributed": null without --per-thread. */
static void json_threads(const struct report_stat_doc *d, struct tdr_json *j)
{
	struct tdr_stat_row r;

	if (!d->v.per_thread) {
		tdr_json__key_null(j, "threads");
		tdr_json__key_null(j, "not_attributed");
		return;
	}
	tdr_json__key(j, "threads");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < d->v.thread_cnt; i++)
		if (tdr_stat__thread_row(d->st, i, &r))
			json_row(d, &r, j);
	tdr_json__end_array(j);
	tdr_json__key(j, "not_attributed");
	if (d->v.total_is_threads) {
		tdr_json__null(j);
		return;
	}
	/* Shown even when nothing is left: the key always holds a row. */
	tdr_stat__unattributed_row(d->st, &r);
	json_row(d, &r, j);
}

void tdr_report_stat_json(const struct report_stat_doc *d, const struct tdr_stat_row *rows,
			  size_t row_cnt, FILE *f)
{
	struct tdr_stat_warnings w;
	struct tdr_stat_row r;
	char why[1024];
	struct tdr_json j;

	tdr_json__init(&j, f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "tdrec_version", TDREC_VERSION);
	tdr_json__key_string(&j, "target", d->v.target);
	tdr_json__key_string(&j, "plan", d->v.plan);
	tdr_json__key_uint(&j, "cpus", d->v.cpu_cnt);
	tdr_json__key_bool(&j, "system_wide", d->v.system_wide);
	tdr_stat__topdown_why(d->st, why, sizeof(why));
	tdr_json__key_bool(&j, "topdown", d->v.topdown);
	tdr_json__key_string(&j, "topdown_unavailable", why[0] ? why : NULL);
	tdr_json__key_double(&j, "duration_s", (double)d->sum->duration_ns / 1e9);
	if (d->v.interval_ms)
		tdr_json__key_uint(&j, "interval_ms", d->v.interval_ms);
	else
		tdr_json__key_null(&j, "interval_ms");
	json_program(d, &j);
	json_schema(d, &j);
	json_notes(d, &j);
	tdr_stat__warnings(d->st, &w);
	tdr_json__key(&j, "warnings");
	tdr_json__begin_array(&j, TDR_JSON_INLINE);
	for (size_t i = 0; i < w.cnt; i++)
		tdr_json__string(&j, w.line[i]);
	tdr_json__end_array(&j);
	tdr_stat__total_row(d->st, &r);
	tdr_json__key(&j, "total");
	json_row(d, &r, &j);
	tdr_json__key(&j, "intervals");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (size_t i = 0; i < row_cnt; i++)
		json_row(d, &rows[i], &j);
	tdr_json__end_array(&j);
	json_threads(d, &j);
	tdr_json__end_object(&j);
}
