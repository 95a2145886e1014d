/*
 * stat/stat_render_json.c - the JSON document of 'tdrec stat'.
 *
 * Responsibility: one document at the end of the run with the plan, its
 * events and categories (with thresholds), notes, warnings, the total, the
 * intervals kept during the run, and the thread rows. Numbers that cannot
 * be computed are null, never NaN. Written through the common JSON writer
 * (tdr_json.h: its one number format, its escaping).
 * Ownership and threads: writes to the stream it is given; one thread.
 * See: docs/stat.md "JSON schema".
 */
#include "stat_int.h"

#include <string.h>

#include "tdrec/tdr_json.h"

/* A category name by index, null for none (bottlenecks). */
static void json_cat(const struct tdr_stat *st, const char *key, int idx, struct tdr_json *j)
{
	tdr_json__key_string(j, key, idx >= 0 ? stat_cat_name(st, idx) : NULL);
}

static void json_row(const struct tdr_stat *st, const struct stat_row *r, struct tdr_json *j)
{
	const struct tdr_meta *m = &st->sc.meta;
	struct stat_view v;

	stat_view_of(st, r, &v);
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	if (r->kind == STAT_ROW_THREAD) {
		tdr_json__key_int(j, "pid", r->pid);
		tdr_json__key_int(j, "tid", r->tid);
	}
	if (r->kind == STAT_ROW_THREAD || r->kind == STAT_ROW_UNATTRIBUTED) {
		tdr_json__key_string(j, "name", r->name);
	} else {
		tdr_json__key_double(j, "start_s", (double)r->start_ns / 1e9);
		tdr_json__key_double(j, "end_s", (double)r->end_ns / 1e9);
	}
	tdr_json__key(j, "events");
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < m->event_cnt; i++)
		tdr_json__key_uint(j, stat_ev_name(st, i), r->vals.v[i]);
	tdr_json__end_object(j);
	tdr_json__key_uint(j, "time_enabled_ns", r->vals.enabled_ns[0]);
	tdr_json__key_uint(j, "time_running_ns", r->vals.running_ns[0]);
	if (st->opts->what.system_wide || !r->vals.ref_ns)
		tdr_json__key_null(j, "task_run_ns");
	else
		tdr_json__key_uint(j, "task_run_ns", r->vals.ref_ns);
	tdr_json__key_double(j, "counted", v.counted);
	if (!stat_has_topdown(st)) {
		tdr_json__key_null(j, "slots");
		tdr_json__key_null(j, "topdown");
		tdr_json__key_null(j, "bottleneck");
		tdr_json__key_null(j, "bottleneck_l2");
		tdr_json__end_object(j);
		return;
	}
	tdr_json__key_double(j, "slots", v.slots);
	tdr_json__key(j, "topdown");
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t c = 0; c < m->category_cnt; c++)
		tdr_json__key_double(j, stat_cat_name(st, (int)c), v.cats[c]);
	tdr_json__end_object(j);
	json_cat(st, "bottleneck", v.bn, j);
	json_cat(st, "bottleneck_l2", v.bn_l2, j);
	tdr_json__end_object(j);
}

static void json_schema(const struct tdr_stat *st, struct tdr_json *j)
{
	const struct tdr_meta *m = &st->sc.meta;

	tdr_json__key(j, "events");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < m->event_cnt; i++) {
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_string(j, "name", stat_ev_name(st, i));
		tdr_json__key_string(j, "pmu", m->events[i].pmu_name);
		tdr_json__key_uint(j, "group", m->events[i].group_idx);
		tdr_json__key_string(j, "unit",
				     stat_is_clock(stat_ev_name(st, i)) ? "ns" : "count");
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
	tdr_json__key(j, "categories");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t c = 0; c < m->category_cnt; c++) {
		const struct tdr_category *k = &m->categories[c];

		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_string(j, "name", k->name);
		tdr_json__key_uint(j, "level", k->level ? k->level : 1);
		tdr_json__key_string(j, "parent", k->parent); /* null for level 1 */
		tdr_json__key_bool(j, "derived", k->flags & TDR_CATEGORY_DERIVED);
		tdr_json__key_double(j, "threshold", st->sc.threshold[c]);
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
}

static void json_program(const struct tdr_stat *st, struct tdr_json *j)
{
	const struct tdr_stat_summary *s = &st->sum;

	tdr_json__key(j, "program");
	if (!s->launched) {
		tdr_json__null(j);
		return;
	}
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_int(j, "pid",
			  st->launch ? (int)tdr_launch__pid(st->launch) : (int)st->tg.pids[0]);
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
static void json_notes(const struct tdr_stat *st, struct tdr_json *j)
{
	tdr_json__key(j, "notes");
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < st->sc.meta.note_cnt; i++)
		tdr_json__string(j, st->sc.meta.notes[i]);
	if (stat_kernel_note(st))
		tdr_json__string(j, stat_kernel_note(st));
	tdr_json__end_array(j);
}

/* "threads" and "not_attributed": null without --per-thread. */
static void json_threads(const struct tdr_stat *st, struct tdr_json *j)
{
	struct stat_row r;

	if (!st->per_thread) {
		tdr_json__key_null(j, "threads");
		tdr_json__key_null(j, "not_attributed");
		return;
	}
	tdr_json__key(j, "threads");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < st->th.cnt; i++) {
		if (!st->th.v[i].unit)
			continue;
		stat_thread_row(&st->th.v[i], &r);
		json_row(st, &r, j);
	}
	tdr_json__end_array(j);
	tdr_json__key(j, "not_attributed");
	if (st->total_is_threads) {
		tdr_json__null(j);
		return;
	}
	stat_unattributed_row(st, &r);
	json_row(st, &r, j);
}

void stat_render_json(const struct tdr_stat *st, FILE *f)
{
	const struct tdr_stat_summary *s = &st->sum;
	struct stat_row r;
	struct stat_warnings w;
	char why[1024];
	struct tdr_json j;

	tdr_json__init(&j, f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "tdrec_version", TDREC_VERSION);
	tdr_json__key_string(&j, "target", st->what);
	tdr_json__key_string(&j, "plan", st->sc.meta.plan_name);
	tdr_json__key_uint(&j, "cpus", st->plan->groups[0].cpu_cnt);
	tdr_json__key_bool(&j, "system_wide", st->opts->what.system_wide);
	stat_topdown_why(st, why, sizeof(why));
	tdr_json__key_bool(&j, "topdown", stat_has_topdown(st));
	tdr_json__key_string(&j, "topdown_unavailable", why[0] ? why : NULL);
	tdr_json__key_double(&j, "duration_s", (double)s->duration_ns / 1e9);
	if (st->opts->interval_ms)
		tdr_json__key_uint(&j, "interval_ms", st->opts->interval_ms);
	else
		tdr_json__key_null(&j, "interval_ms");
	json_program(st, &j);
	json_schema(st, &j);
	json_notes(st, &j);
	stat_collect_warnings(st, &w);
	tdr_json__key(&j, "warnings");
	tdr_json__begin_array(&j, TDR_JSON_INLINE);
	for (size_t i = 0; i < w.cnt; i++)
		tdr_json__string(&j, w.line[i]);
	tdr_json__end_array(&j);
	stat_total_row(st, &r);
	tdr_json__key(&j, "total");
	json_row(st, &r, &j);
	tdr_json__key(&j, "intervals");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (size_t i = 0; i < st->row_cnt; i++)
		json_row(st, &st->rows[i], &j);
	tdr_json__end_array(&j);
	json_threads(st, &j);
	tdr_json__end_object(&j);
}
