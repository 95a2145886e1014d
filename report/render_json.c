/*
 * report/render_json.c - the report as JSON and as CSV.
 *
 * Responsibility: write a finished report in the machine-readable schemas of
 * docs/report.md ("JSON schema", "CSV schema"). Fractions stay fractions
 * (0..1), deltas stay raw counter units; nothing is rounded beyond %.10g.
 * Keys present in every row: name, dso, samples, share, slots_share,
 * low_confidence, bottleneck, bottleneck_l2, events, topdown; plus
 * inlined_into (--inline), file and line (--lines), pid and tid (--by thread
 * or process); the totals also have attributed and counted (counted.c).
 * CSV adds an "attributed" and a "counted" line when the recording has
 * counted totals.
 */
#include "report_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "tdrec/tdr_mem.h"

#define JSON_SCHEMA "tdrec-report/1"

static const char *cat_name_or_null(const struct tdr_report *r, int idx)
{
	return idx >= 0 ? r->cats[idx].name : NULL;
}

/* ", "key": {event name: value, ...}" with null where known says so. */
static void put_events(const struct tdr_report *r, const char *key, const uint64_t *v,
		       const bool *known, FILE *f)
{
	fprintf(f, ", \"%s\": {", key);
	for (size_t e = 0; e < r->event_cnt; e++) {
		fputs(e ? ", " : "", f);
		tdr_json_put_string(f, r->event_names[e]);
		if (!known || known[e])
			fprintf(f, ": %" PRIu64, v[e]);
		else
			fputs(": null", f);
	}
	fputc('}', f);
}

static void put_row(const struct tdr_report *r, const struct tdr_report_row *row, FILE *f)
{
	fputs("{\"name\": ", f);
	tdr_json_put_string(f, row->name);
	fputs(", \"dso\": ", f);
	tdr_json_put_string(f, row->dso);
	if (r->opts.by == TDR_BY_INLINE) {
		fputs(", \"inlined_into\": ", f);
		tdr_json_put_string(f, row->inlined_into);
	}
	if (r->opts.by == TDR_BY_LINE) {
		fputs(", \"file\": ", f);
		tdr_json_put_string(f, row->file);
		fputs(", \"line\": ", f);
		if (row->file)
			fprintf(f, "%" PRIu32, row->line);
		else
			fputs("null", f);
	}
	if (r->opts.by == TDR_BY_THREAD || r->opts.by == TDR_BY_PROCESS)
		fprintf(f, ", \"pid\": %" PRIu32, row->pid);
	if (r->opts.by == TDR_BY_THREAD)
		fprintf(f, ", \"tid\": %" PRIu32, row->tid);
	fprintf(f, ", \"samples\": %" PRIu64 ", \"share\": ", row->samples);
	json_put_number(f, row->share);
	fputs(", \"slots_share\": ", f);
	json_put_number(f, row->slots_share);
	fprintf(f, ", \"low_confidence\": %s, \"bottleneck\": ",
		row->low_confidence ? "true" : "false");
	tdr_json_put_string(f, cat_name_or_null(r, row->bottleneck));
	fputs(", \"bottleneck_l2\": ", f);
	tdr_json_put_string(f, cat_name_or_null(r, row->bottleneck_l2));
	put_events(r, "events", row->events, NULL, f);
	fputs(", \"topdown\": ", f);
	if (!row->topdown) {
		fputs("null", f);
	} else {
		fputc('{', f);
		for (size_t c = 0; c < r->cat_cnt; c++) {
			fputs(c ? ", " : "", f);
			tdr_json_put_string(f, r->cats[c].name);
			fputs(": ", f);
			json_put_number(f, row->topdown[c]);
		}
		fputc('}', f);
	}
	/* The totals' attributed (all samples, before filters) and counted
	 * (the whole run) totals: counted.c. */
	if (row == &r->totals) {
		put_events(r, "attributed", r->attributed, NULL, f);
		put_events(r, "counted", r->counted, r->has_counted, f);
	}
	fputc('}', f);
}

static void put_recording(const struct tdr_report *r, FILE *f)
{
	uint64_t ns;
	bool from_samples;
	char end[64];

	const char *const strs[][2] = {
	    {"file", r->file}, {"source", report_source_name(r->source)}, {"command", r->command},
	    {"host", r->host}, {"cpu", r->cpu},				  {"plan", r->plan},
	};

	fputs("  \"recording\": {", f);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(strs); i++) {
		fprintf(f, "%s\"%s\": ", i ? ", " : "", strs[i][0]);
		tdr_json_put_string(f, strs[i][1]);
	}
	fputs(", \"duration_ns\": ", f);
	if (report_duration(r, &ns, &from_samples))
		fprintf(f, "%" PRIu64 ", \"duration_from_samples\": %s", ns,
			from_samples ? "true" : "false");
	else
		fputs("null, \"duration_from_samples\": false", f);
	report_describe_end(r, end, sizeof(end));
	fputs(", \"end\": ", f);
	tdr_json_put_string(f, r->have_end ? end : NULL);
	if (r->have_end && !(r->end.flags & (TDR_END_SIGNALLED | TDR_END_NO_PROGRAM)))
		fprintf(f, ", \"exit_code\": %" PRId32, r->end.exit_code);
	else
		fputs(", \"exit_code\": null", f);
	fputs("},\n", f);
}

int render_json(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *f)
{
	size_t n = r->visible_cnt;

	if (o->limit && o->limit < n)
		n = o->limit;
	fputs("{\n  \"schema\": \"" JSON_SCHEMA "\",\n", f);
	put_recording(r, f);
	fputs("  \"by\": ", f);
	tdr_json_put_string(f, tdr_report_by_name(r->opts.by));
	fprintf(f,
		",\n  \"samples_seen\": %" PRIu64 ", \"samples_kept\": %" PRIu64
		", \"min_samples\": %" PRIu64 ", \"min_share\": ",
		r->seen ? r->seen : r->totals.samples, r->seen ? r->kept : r->totals.samples,
		r->opts.min_samples);
	json_put_number(f, r->opts.min_share);
	fputs(",\n  \"events\": [", f);
	for (size_t e = 0; e < r->event_cnt; e++) {
		fputs(e ? ", " : "", f);
		fputs("{\"name\": ", f);
		tdr_json_put_string(f, r->event_names[e]);
		fprintf(f, ", \"unit\": \"%s\"}", r->event_units[e] == UNIT_NS ? "ns" : "count");
	}
	fputs("],\n  \"categories\": [", f);
	for (size_t c = 0; c < r->cat_cnt; c++) {
		fputs(c ? ", " : "", f);
		fputs("{\"name\": ", f);
		tdr_json_put_string(f, r->cats[c].name);
		fprintf(f, ", \"level\": %" PRIu32 ", \"parent\": ", r->cats[c].level);
		tdr_json_put_string(f, r->cats[c].parent);
		fputs(", \"threshold\": ", f);
		json_put_number(f, r->cats[c].threshold);
		fputc('}', f);
	}
	fputs("],\n  \"warnings\": ", f);
	json_put_lines(f, &r->warnings);
	fputs(",\n  \"totals\": ", f);
	put_row(r, &r->totals, f);
	fprintf(f, ",\n  \"rows_total\": %zu,\n  \"rows\": [", r->visible_cnt);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		put_row(r, r->visible[i], f);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
	return 0;
}

/* ---- CSV ---- */

static void csv_number(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
}

static void csv_row(const struct tdr_report *r, const char *kind, const struct tdr_report_row *row,
		    FILE *f)
{
	const char *const strs[] = {row->name, row->dso, row->inlined_into, row->file};

	fputs(kind, f);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(strs); i++) {
		fputc(',', f);
		tdr_csv_put_field(f, strs[i]);
	}
	fputc(',', f);
	if (row->file)
		fprintf(f, "%" PRIu32, row->line);
	fputc(',', f);
	if (r->opts.by == TDR_BY_THREAD || r->opts.by == TDR_BY_PROCESS)
		fprintf(f, "%" PRIu32, row->pid);
	fputc(',', f);
	if (r->opts.by == TDR_BY_THREAD)
		fprintf(f, "%" PRIu32, row->tid);
	fprintf(f, ",%" PRIu64 ",", row->samples);
	csv_number(f, row->share);
	fputc(',', f);
	csv_number(f, row->slots_share);
	fprintf(f, ",%d,", row->low_confidence ? 1 : 0);
	tdr_csv_put_field(f, cat_name_or_null(r, row->bottleneck));
	for (size_t c = 0; c < r->cat_cnt; c++) {
		fputc(',', f);
		csv_number(f, row->topdown ? row->topdown[c] : NAN);
	}
	for (size_t e = 0; e < r->event_cnt; e++)
		fprintf(f, ",%" PRIu64, row->events[e]);
	fputc('\n', f);
}

/* A line of per-event totals only: kind, empty fields up to the events,
 * then each value (empty where known is given and false). */
static void csv_events(const struct tdr_report *r, const char *kind, const uint64_t *v,
		       const bool *known, FILE *f)
{
	fputs(kind, f);
	/* name .. bottleneck: 12 fields, then one per category. */
	for (size_t i = 0; i < 12 + r->cat_cnt; i++)
		fputc(',', f);
	for (size_t e = 0; e < r->event_cnt; e++) {
		fputc(',', f);
		if (!known || known[e])
			fprintf(f, "%" PRIu64, v[e]);
	}
	fputc('\n', f);
}

int render_csv(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *f)
{
	size_t n = r->visible_cnt;
	char col[512];

	if (o->limit && o->limit < n)
		n = o->limit;
	fputs("kind,name,dso,inlined_into,file,line,pid,tid,samples,share,slots_share,"
	      "low_confidence,bottleneck",
	      f);
	for (size_t c = 0; c < r->cat_cnt; c++) {
		snprintf(col, sizeof(col), "topdown:%s", r->cats[c].name);
		fputc(',', f);
		tdr_csv_put_field(f, col);
	}
	for (size_t e = 0; e < r->event_cnt; e++) {
		snprintf(col, sizeof(col), "event:%s", r->event_names[e]);
		fputc(',', f);
		tdr_csv_put_field(f, col);
	}
	fputc('\n', f);
	csv_row(r, "total", &r->totals, f);
	if (r->any_counted) {
		csv_events(r, "attributed", r->attributed, NULL, f);
		csv_events(r, "counted", r->counted, r->has_counted, f);
	}
	for (size_t i = 0; i < n; i++)
		csv_row(r, "row", r->visible[i], f);
	return 0;
}
