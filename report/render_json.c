/*
 * report/render_json.c - the report as JSON and as CSV.
 *
 * Responsibility: write a finished report in the machine-readable schemas of
 * docs/report.md ("JSON schema", "CSV schema") through the common writers
 * (tdr_json.h, struct tdr_csv). Fractions stay fractions (0..1), deltas
 * stay raw counter units; JSON numbers are in tdr_json.h's one format, CSV
 * fractions are %.10g.
 * Keys present in every row: name, dso, samples, share, slots_share,
 * low_confidence, bottleneck, bottleneck_l2, events, topdown; plus
 * inlined_into (--inline), file and line (--lines), pid and tid (--by thread
 * or process); core when the report is split by core type (cores.c, with
 * totals_by_core next to totals); the totals also have attributed and
 * counted (counted.c).
 * CSV adds an "attributed" and a "counted" line when the recording has
 * counted totals.
 */
#include "report_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "tdrec/tdr_json.h"
#include "tdrec/tdr_mem.h"

#define JSON_SCHEMA "tdrec-report/1"

static const char *cat_name_or_null(const struct tdr_report *r, int idx)
{
	return idx >= 0 ? r->cats[idx].name : NULL;
}

/* "key": {event name: value, ...} with null where known says so. */
static void put_events(const struct tdr_report *r, const char *key, const uint64_t *v,
		       const bool *known, struct tdr_json *j)
{
	tdr_json__key(j, key);
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t e = 0; e < r->event_cnt; e++) {
		if (!known || known[e])
			tdr_json__key_uint(j, r->event_names[e], v[e]);
		else
			tdr_json__key_null(j, r->event_names[e]);
	}
	tdr_json__end_object(j);
}

static void put_row(const struct tdr_report *r, const struct tdr_report_row *row,
		    struct tdr_json *j)
{
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_string(j, "name", row->name);
	tdr_json__key_string(j, "dso", row->dso);
	if (r->opts.by == TDR_BY_INLINE)
		tdr_json__key_string(j, "inlined_into", row->inlined_into);
	if (r->opts.by == TDR_BY_LINE) {
		tdr_json__key_string(j, "file", row->file);
		if (row->file)
			tdr_json__key_uint(j, "line", row->line);
		else
			tdr_json__key_null(j, "line");
	}
	if (r->opts.by == TDR_BY_THREAD || r->opts.by == TDR_BY_PROCESS)
		tdr_json__key_uint(j, "pid", row->pid);
	if (r->opts.by == TDR_BY_THREAD)
		tdr_json__key_uint(j, "tid", row->tid);
	if (r->core_cnt)
		tdr_json__key_string(j, "core", tdr_report_core_name(r, row->core));
	tdr_json__key_uint(j, "samples", row->samples);
	tdr_json__key_double(j, "share", row->share);
	if (r->opts.stacks == TDR_STACKS_CHILDREN) {
		tdr_json__key_uint(j, "self_samples", row->self_samples);
		tdr_json__key_double(j, "self_share", row->self_share);
	}
	tdr_json__key_double(j, "slots_share", row->slots_share);
	tdr_json__key_bool(j, "low_confidence", row->low_confidence);
	tdr_json__key_string(j, "bottleneck", cat_name_or_null(r, row->bottleneck));
	tdr_json__key_string(j, "bottleneck_l2", cat_name_or_null(r, row->bottleneck_l2));
	/* Sampled in several groups (docs/report.md "Sampling groups"). */
	if (r->sgroup_cnt) {
		tdr_json__key(j, "group_shares");
		tdr_json__begin_array(j, TDR_JSON_INLINE);
		for (size_t g = 0; g < r->sgroup_cnt; g++)
			tdr_json__double(j, tdr_report_group_share(r, row, g));
		tdr_json__end_array(j);
		tdr_json__key_bool(j, "groups_unbalanced", tdr_report_groups_unbalanced(r, row));
	}
	put_events(r, "events", row->events, NULL, j);
	tdr_json__key(j, "topdown");
	if (!row->topdown) {
		tdr_json__null(j);
	} else {
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		for (size_t c = 0; c < r->cat_cnt; c++)
			tdr_json__key_double(j, r->cats[c].name, row->topdown[c]);
		tdr_json__end_object(j);
	}
	/* The categories whose value is below 0 or above 1, as computed. */
	tdr_json__key(j, "out_of_range");
	if (!row->topdown) {
		tdr_json__null(j);
	} else {
		tdr_json__begin_array(j, TDR_JSON_INLINE);
		for (size_t c = 0; c < r->cat_cnt; c++)
			if (tdr_report_row_out_of_range(r, row, (int)c))
				tdr_json__string(j, r->cats[c].name);
		tdr_json__end_array(j);
	}
	/* The totals' attributed (all samples, before filters) and counted
	 * (the whole run) totals: counted.c. */
	if (row == &r->totals) {
		put_events(r, "attributed", r->attributed, NULL, j);
		put_events(r, "counted", r->counted, r->has_counted, j);
	}
	tdr_json__end_object(j);
}

static void put_recording(const struct tdr_report *r, struct tdr_json *j)
{
	uint64_t ns;
	bool from_samples;
	char end[64];

	const char *const strs[][2] = {
	    {"file", r->file},
	    {"source", tdr_report_source_name(r->source)},
	    {"command", r->command},
	    {"host", r->host},
	    {"cpu", r->cpu},
	    {"plan", r->plan},
	};

	tdr_json__key(j, "recording");
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(strs); i++)
		tdr_json__key_string(j, strs[i][0], strs[i][1]);
	if (tdr_report_duration(r, &ns, &from_samples)) {
		tdr_json__key_uint(j, "duration_ns", ns);
		tdr_json__key_bool(j, "duration_from_samples", from_samples);
	} else {
		tdr_json__key_null(j, "duration_ns");
		tdr_json__key_bool(j, "duration_from_samples", false);
	}
	tdr_report_describe_end(r, end, sizeof(end));
	tdr_json__key_string(j, "end", r->have_end ? end : NULL);
	if (r->have_end && !(r->end.flags & (TDR_END_SIGNALLED | TDR_END_NO_PROGRAM)))
		tdr_json__key_int(j, "exit_code", r->end.exit_code);
	else
		tdr_json__key_null(j, "exit_code");
	tdr_json__end_object(j);
}

int tdr_report_render_json(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *f)
{
	size_t n = r->visible_cnt;
	struct tdr_json j;

	if (o->limit && o->limit < n)
		n = o->limit;
	tdr_json__init(&j, f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "schema", JSON_SCHEMA);
	put_recording(r, &j);
	tdr_json__key_string(&j, "by", tdr_report_rows_name(r));
	/* Call-stack views only (docs/report.md "Call stacks"). */
	if (r->opts.stacks) {
		tdr_json__key(&j, "stacks");
		tdr_json__begin_object(&j, TDR_JSON_INLINE);
		tdr_json__key_string(&j, "view", tdr_report_stacks_name(r->opts.stacks));
		tdr_json__key_string(&j, "function", r->opts.stack_func);
		tdr_json__key_uint(&j, "stack_samples", tdr_report__stack_samples(r));
		tdr_json__end_object(&j);
	}
	tdr_json__key_uint(&j, "samples_seen", r->seen ? r->seen : r->totals.samples);
	tdr_json__key_uint(&j, "samples_kept", r->seen ? r->kept : r->totals.samples);
	tdr_json__key_uint(&j, "min_samples", r->opts.min_samples);
	tdr_json__key_double(&j, "min_share", r->opts.min_share);
	tdr_json__key(&j, "events");
	tdr_json__begin_array(&j, TDR_JSON_INLINE);
	for (size_t e = 0; e < r->event_cnt; e++) {
		tdr_json__begin_object(&j, TDR_JSON_INLINE);
		tdr_json__key_string(&j, "name", r->event_names[e]);
		tdr_json__key_string(&j, "unit", r->event_units[e] == UNIT_NS ? "ns" : "count");
		tdr_json__end_object(&j);
	}
	tdr_json__end_array(&j);
	tdr_json__key(&j, "categories");
	tdr_json__begin_array(&j, TDR_JSON_INLINE);
	for (size_t c = 0; c < r->cat_cnt; c++) {
		tdr_json__begin_object(&j, TDR_JSON_INLINE);
		tdr_json__key_string(&j, "name", r->cats[c].name);
		tdr_json__key_uint(&j, "level", r->cats[c].level);
		tdr_json__key_string(&j, "parent", r->cats[c].parent);
		tdr_json__key_double(&j, "threshold", r->cats[c].threshold);
		tdr_json__end_object(&j);
	}
	tdr_json__end_array(&j);
	/* The sampler of each group, when the file samples in several. */
	if (r->sgroup_cnt) {
		tdr_json__key(&j, "sampling_groups");
		tdr_json__begin_array(&j, TDR_JSON_INLINE);
		for (size_t g = 0; g < r->sgroup_cnt; g++)
			tdr_json__string(&j, r->event_names[r->sgroup_sampler[g]]);
		tdr_json__end_array(&j);
	}
	tdr_json__key(&j, "warnings");
	tdr_report_json_put_strings(&j, &r->warnings);
	tdr_json__key(&j, "totals");
	put_row(r, &r->totals, &j);
	/* Split by core type (docs/report.md "Core types"): the totals of each. */
	if (r->core_cnt) {
		tdr_json__key(&j, "totals_by_core");
		tdr_json__begin_array(&j, TDR_JSON_LINES);
		for (size_t k = 0; k < r->core_cnt; k++)
			put_row(r, &r->core_totals[k], &j);
		tdr_json__end_array(&j);
	}
	tdr_json__key_uint(&j, "rows_total", r->visible_cnt);
	tdr_json__key(&j, "rows");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (size_t i = 0; i < n; i++)
		put_row(r, r->visible[i], &j);
	tdr_json__end_array(&j);
	tdr_json__end_object(&j);
	return 0;
}

/* ---- CSV ---- */

/* A fraction as a CSV field: %.10g, empty when it does not exist. */
static void csv_number(struct tdr_csv *c, double v)
{
	if (isfinite(v))
		tdr_csv__fieldf(c, "%.10g", v);
	else
		tdr_csv__field(c, NULL);
}

static void csv_row(const struct tdr_report *r, const char *kind, const struct tdr_report_row *row,
		    struct tdr_csv *c)
{
	const char *const strs[] = {kind, row->name, row->dso, row->inlined_into, row->file};

	for (size_t i = 0; i < TDR_ARRAY_SIZE(strs); i++)
		tdr_csv__field(c, strs[i]);
	if (row->file)
		tdr_csv__fieldf(c, "%" PRIu32, row->line);
	else
		tdr_csv__field(c, NULL);
	if (r->opts.by == TDR_BY_THREAD || r->opts.by == TDR_BY_PROCESS)
		tdr_csv__fieldf(c, "%" PRIu32, row->pid);
	else
		tdr_csv__field(c, NULL);
	if (r->opts.by == TDR_BY_THREAD)
		tdr_csv__fieldf(c, "%" PRIu32, row->tid);
	else
		tdr_csv__field(c, NULL);
	tdr_csv__fieldf(c, "%" PRIu64, row->samples);
	csv_number(c, row->share);
	csv_number(c, row->slots_share);
	tdr_csv__field(c, row->low_confidence ? "1" : "0");
	tdr_csv__field(c, cat_name_or_null(r, row->bottleneck));
	for (size_t k = 0; k < r->cat_cnt; k++)
		csv_number(c, row->topdown ? row->topdown[k] : NAN);
	for (size_t e = 0; e < r->event_cnt; e++)
		tdr_csv__fieldf(c, "%" PRIu64, row->events[e]);
	if (r->core_cnt)
		tdr_csv__field(c, tdr_report_core_name(r, row->core));
	if (r->opts.stacks == TDR_STACKS_CHILDREN) {
		tdr_csv__fieldf(c, "%" PRIu64, row->self_samples);
		csv_number(c, row->self_share);
	}
	for (size_t g = 0; g < r->sgroup_cnt; g++)
		csv_number(c, tdr_report_group_share(r, row, g));
	tdr_csv__end_row(c);
}

/* A line of per-event totals only: kind, empty fields up to the events,
 * then each value (empty where known is given and false). */
static void csv_events(const struct tdr_report *r, const char *kind, const uint64_t *v,
		       const bool *known, struct tdr_csv *c)
{
	tdr_csv__field(c, kind);
	/* name .. bottleneck: 12 fields, then one per category. */
	for (size_t i = 0; i < 12 + r->cat_cnt; i++)
		tdr_csv__field(c, NULL);
	for (size_t e = 0; e < r->event_cnt; e++) {
		if (!known || known[e])
			tdr_csv__fieldf(c, "%" PRIu64, v[e]);
		else
			tdr_csv__field(c, NULL);
	}
	if (r->core_cnt)
		tdr_csv__field(c, NULL);
	for (int i = 0; r->opts.stacks == TDR_STACKS_CHILDREN && i < 2; i++)
		tdr_csv__field(c, NULL);
	for (size_t g = 0; g < r->sgroup_cnt; g++)
		tdr_csv__field(c, NULL);
	tdr_csv__end_row(c);
}

int tdr_report_render_csv(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *f)
{
	static const char *const head[] = {
	    "kind", "name", "dso", "inlined_into", "file", "line", "pid", "tid", "samples",
	    "share", "slots_share", "low_confidence", "bottleneck",
	};
	size_t n = r->visible_cnt;
	struct tdr_csv c;

	if (o->limit && o->limit < n)
		n = o->limit;
	tdr_csv__init(&c, f);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(head); i++)
		tdr_csv__field(&c, head[i]);
	for (size_t k = 0; k < r->cat_cnt; k++)
		tdr_csv__fieldf(&c, "topdown:%s", r->cats[k].name);
	for (size_t e = 0; e < r->event_cnt; e++)
		tdr_csv__fieldf(&c, "event:%s", r->event_names[e]);
	if (r->core_cnt)
		tdr_csv__field(&c, "core"); /* split by core type only */
	if (r->opts.stacks == TDR_STACKS_CHILDREN) {
		tdr_csv__field(&c, "self_samples");
		tdr_csv__field(&c, "self_share");
	}
	for (size_t g = 0; g < r->sgroup_cnt; g++)
		tdr_csv__fieldf(&c, "group_share:%zu", g);
	tdr_csv__end_row(&c);
	csv_row(r, "total", &r->totals, &c);
	for (size_t k = 0; k < r->core_cnt; k++)
		csv_row(r, "core_total", &r->core_totals[k], &c);
	if (r->any_counted) {
		csv_events(r, "attributed", r->attributed, NULL, &c);
		csv_events(r, "counted", r->counted, r->has_counted, &c);
	}
	for (size_t i = 0; i < n; i++)
		csv_row(r, "row", r->visible[i], &c);
	return 0;
}
