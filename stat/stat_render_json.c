/*
 * stat/stat_render_json.c - the JSON document of 'tdrec stat'.
 *
 * Responsibility: one document at the end of the run with the plan, its
 * events and categories (with thresholds), notes, warnings, the total, the
 * intervals kept during the run, and the thread rows. Numbers that cannot
 * be computed are null, never NaN. Strings are escaped by
 * tdr_json_put_string (common/).
 * Ownership and threads: writes to the stream it is given; one thread.
 * See: docs/stat.md "JSON schema".
 */
#include "stat_int.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "tdrec/tdr_textout.h"

static void json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void json_row(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	const struct tdr_meta *m = &st->sc.meta;
	struct stat_view v;

	stat_view_of(st, r, &v);
	fputc('{', f);
	if (r->kind == STAT_ROW_THREAD)
		fprintf(f, "\"pid\": %d, \"tid\": %d, ", (int)r->pid, (int)r->tid);
	if (r->kind == STAT_ROW_THREAD || r->kind == STAT_ROW_UNATTRIBUTED) {
		fputs("\"name\": ", f);
		tdr_json_put_string(f, r->name);
		fputs(", ", f);
	} else {
		fprintf(f, "\"start_s\": %.6f, \"end_s\": %.6f, ", (double)r->start_ns / 1e9,
			(double)r->end_ns / 1e9);
	}
	fputs("\"events\": {", f);
	for (size_t i = 0; i < m->event_cnt; i++) {
		fputs(i ? ", " : "", f);
		tdr_json_put_string(f, stat_ev_name(st, i));
		fprintf(f, ": %" PRIu64, r->vals.v[i]);
	}
	fprintf(f, "}, \"time_enabled_ns\": %" PRIu64 ", \"time_running_ns\": %" PRIu64,
		r->vals.enabled_ns[0], r->vals.running_ns[0]);
	fputs(", \"task_run_ns\": ", f);
	if (st->opts->what.system_wide || !r->vals.ref_ns)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu64, r->vals.ref_ns);
	fputs(", \"counted\": ", f);
	json_num(f, v.counted);
	if (!stat_has_topdown(st)) {
		fputs(", \"slots\": null, \"topdown\": null, \"bottleneck\": null, "
		      "\"bottleneck_l2\": null}",
		      f);
		return;
	}
	fprintf(f, ", \"slots\": %.0f, \"topdown\": {", v.slots);
	for (size_t c = 0; c < m->category_cnt; c++) {
		fputs(c ? ", " : "", f);
		tdr_json_put_string(f, stat_cat_name(st, (int)c));
		fputs(": ", f);
		json_num(f, v.cats[c]);
	}
	fputs("}, \"bottleneck\": ", f);
	if (v.bn >= 0)
		tdr_json_put_string(f, stat_cat_name(st, v.bn));
	else
		fputs("null", f);
	fputs(", \"bottleneck_l2\": ", f);
	if (v.bn_l2 >= 0)
		tdr_json_put_string(f, stat_cat_name(st, v.bn_l2));
	else
		fputs("null", f);
	fputc('}', f);
}

static void json_schema(const struct tdr_stat *st, FILE *f)
{
	const struct tdr_meta *m = &st->sc.meta;

	fputs("  \"events\": [", f);
	for (size_t i = 0; i < m->event_cnt; i++) {
		fputs(i ? ", " : "", f);
		fputs("{\"name\": ", f);
		tdr_json_put_string(f, stat_ev_name(st, i));
		fputs(", \"pmu\": ", f);
		tdr_json_put_string(f, m->events[i].pmu_name);
		fprintf(f, ", \"group\": %u, \"unit\": \"%s\"}", m->events[i].group_idx,
			stat_is_clock(stat_ev_name(st, i)) ? "ns" : "count");
	}
	fputs("],\n  \"categories\": [", f);
	for (size_t c = 0; c < m->category_cnt; c++) {
		const struct tdr_category *k = &m->categories[c];

		fputs(c ? ", " : "", f);
		fputs("{\"name\": ", f);
		tdr_json_put_string(f, k->name);
		fprintf(f, ", \"level\": %u, \"parent\": ", k->level ? k->level : 1);
		tdr_json_put_string(f, k->parent); /* null for level 1 */
		fprintf(f, ", \"derived\": %s, \"threshold\": ",
			k->flags & TDR_CATEGORY_DERIVED ? "true" : "false");
		json_num(f, st->sc.threshold[c]);
		fputc('}', f);
	}
	fputs("],\n", f);
}

static void json_strings(FILE *f, const char *key, char **v, size_t n, bool last)
{
	fprintf(f, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		tdr_json_put_string(f, v[i]);
	}
	fprintf(f, "]%s\n", last ? "" : ",");
}

void stat_render_json(const struct tdr_stat *st, FILE *f)
{
	const struct tdr_stat_summary *s = &st->sum;
	struct stat_row r;
	struct stat_warnings w;
	char why[1024], *wl[STAT_MAX_WARNINGS];
	bool first = true;

	fputs("{\n  \"tdrec_version\": ", f);
	tdr_json_put_string(f, TDREC_VERSION);
	fputs(",\n  \"target\": ", f);
	tdr_json_put_string(f, st->what);
	fputs(",\n  \"plan\": ", f);
	tdr_json_put_string(f, st->sc.meta.plan_name);
	fprintf(f, ",\n  \"cpus\": %zu,\n  \"system_wide\": %s,\n", st->plan->groups[0].cpu_cnt,
		st->opts->what.system_wide ? "true" : "false");
	stat_topdown_why(st, why, sizeof(why));
	fprintf(f, "  \"topdown\": %s,\n  \"topdown_unavailable\": ",
		stat_has_topdown(st) ? "true" : "false");
	if (why[0])
		tdr_json_put_string(f, why);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"duration_s\": %.6f,\n  \"interval_ms\": ", (double)s->duration_ns / 1e9);
	if (st->opts->interval_ms)
		fprintf(f, "%" PRIu64, st->opts->interval_ms);
	else
		fputs("null", f);
	fputs(",\n  \"program\": ", f);
	if (!s->launched) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"pid\": %d, \"exit_code\": ",
			st->launch ? (int)tdr_launch__pid(st->launch) : (int)st->tg.pids[0]);
		if (s->exited && !s->term_signal)
			fprintf(f, "%d", s->exit_code);
		else
			fputs("null", f);
		fputs(", \"signal\": ", f);
		if (s->term_signal)
			fprintf(f, "%d", s->term_signal);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs(",\n", f);
	json_schema(st, f);
	fputs("  \"notes\": [", f);
	for (size_t i = 0; i < st->sc.meta.note_cnt; i++) {
		fputs(i ? ", " : "", f);
		tdr_json_put_string(f, st->sc.meta.notes[i]);
	}
	if (stat_kernel_note(st)) {
		fputs(st->sc.meta.note_cnt ? ", " : "", f);
		tdr_json_put_string(f, stat_kernel_note(st));
	}
	fputs("],\n", f);
	stat_collect_warnings(st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		wl[i] = w.line[i];
	json_strings(f, "warnings", wl, w.cnt, false);
	stat_total_row(st, &r);
	fputs("  \"total\": ", f);
	json_row(st, &r, f);
	fputs(",\n  \"intervals\": [", f);
	for (size_t i = 0; i < st->row_cnt; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_row(st, &st->rows[i], f);
	}
	fputs(st->row_cnt ? "\n  ],\n  \"threads\": " : "],\n  \"threads\": ", f);
	if (!st->per_thread) {
		fputs("null,\n  \"not_attributed\": null\n}\n", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < st->th.cnt; i++) {
		if (!st->th.v[i].unit)
			continue;
		stat_thread_row(&st->th.v[i], &r);
		fputs(first ? "\n    " : ",\n    ", f);
		json_row(st, &r, f);
		first = false;
	}
	fputs(first ? "],\n  \"not_attributed\": " : "\n  ],\n  \"not_attributed\": ", f);
	if (st->total_is_threads) {
		fputs("null\n}\n", f);
		return;
	}
	stat_unattributed_row(st, &r);
	json_row(st, &r, f);
	fputs("\n}\n", f);
}
