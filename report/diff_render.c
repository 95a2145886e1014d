/*
 * report/diff_render.c - a diff as text or JSON.
 *
 * Responsibility: write a tdr_diff. Text: one summary line naming OLD and
 * NEW, the warnings, then one line per function: OLD share, NEW share, the
 * change in points, and the change of each level-1 category in points of the
 * function's own slots (when the plans match); functions present on one side
 * only are marked. Fits the width (100 by default). JSON: the schema in
 * docs/report.md "Diff JSON schema", fractions not points, through the
 * common JSON writer (tdr_json.h).
 */
#include "diff_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_COLS 6

static void put_side_share(FILE *f, const struct tdr_diff_side *s)
{
	if (!s->samples)
		fprintf(f, " %6s", "-");
	else
		fprintf(f, " %6.1f", 100 * s->share);
}

static bool few(const struct tdr_diff *d, const struct tdr_diff_row *row)
{
	return (row->old.samples && row->old.samples < d->side[0].min_samples) ||
	       (row->new.samples && row->new.samples < d->side[1].min_samples);
}

/* File name cut from the left to at most w bytes ("...dir/file.tdr"). */
static const char *tail(const char *s, size_t w, char *buf, size_t sz)
{
	size_t n = strlen(s);
	char cut[4096];

	/* A path from the command line or a file: no control characters. */
	if (n <= w || w < 4)
		return tdr_text_safe(s, buf, sz);
	snprintf(cut, sizeof(cut), "...%s", s + n - (w - 3));
	return tdr_text_safe(cut, buf, sz);
}

static int render_diff_text(const struct tdr_diff *d, const struct tdr_render_opts *o, FILE *f)
{
	unsigned width = o->width ? o->width : 100;
	size_t cols[MAX_COLS], col_cnt = 0, n = d->row_cnt, name_w, fixed;
	char a[512], b[512], line[1200];
	struct tdr_wrap plain = {0}, warn = {.prefix = "warning: ", .indent = 9};

	if (width < TDR_RENDER_WIDTH_MIN)
		width = TDR_RENDER_WIDTH_MIN;
	for (size_t c = 0; c < d->cat_cnt; c++)
		if (d->cat_levels[c] == 1 && col_cnt < MAX_COLS)
			cols[col_cnt++] = c;
	fixed = 7 + 7 + 8 + 7 * col_cnt + 2;
	name_w = o->whole_names ? TDR_RENDER_WIDTH_MAX : width > fixed + 10 ? width - fixed : 10;
	if (o->limit && o->limit < n)
		n = o->limit;

	/* The summary: which file is OLD and which is NEW, both always visible. */
	fprintf(f, "tdrec diff: OLD = %s, NEW = %s\n",
		tail(d->side[0].file ? d->side[0].file : "?", (width - 30) / 2, a, sizeof(a)),
		tail(d->side[1].file ? d->side[1].file : "?", (width - 30) / 2, b, sizeof(b)));
	snprintf(line, sizeof(line),
		 "change = NEW - OLD in points; OLD: %s, %" PRIu64 " samples; NEW: %s, %" PRIu64
		 " samples",
		 d->side[0].plan ? d->side[0].plan : "?", d->side[0].samples,
		 d->side[1].plan ? d->side[1].plan : "?", d->side[1].samples);
	plain.width = warn.width = width;
	tdr_text_wrap(f, &plain, line);
	for (size_t i = 0; i < d->warnings.cnt; i++)
		tdr_text_wrap(f, &warn, d->warnings.v[i]);
	fprintf(f, "\n %6s %6s %7s", "old%", "new%", "change");
	for (size_t i = 0; i < col_cnt; i++)
		fprintf(f, " %6.6s",
			tdr_text_safe(tdr_report_category_label(d->cat_names[cols[i]]), a,
				      sizeof(a)));
	fprintf(f, "  %s\n", tdr_report_by_name(d->by));
	for (size_t i = 0; i < n; i++) {
		const struct tdr_diff_row *row = &d->rows[i];
		char name[1024];
		size_t keep;
		const char *tag = row->only_old	  ? "  [only in OLD]"
				  : row->only_new ? "  [only in NEW]"
						  : "";

		put_side_share(f, &row->old);
		put_side_share(f, &row->new);
		fprintf(f, " %+6.1f%c", 100 * row->share_change, few(d, row) ? '~' : ' ');
		for (size_t c = 0; c < col_cnt; c++) {
			double v = row->topdown_change ? row->topdown_change[cols[c]] : NAN;

			if (isnan(v))
				fprintf(f, " %6s", "-");
			else
				fprintf(f, " %+6.1f", 100 * v);
		}
		keep = tdr_report_text_row_name(name, sizeof(name),
						tdr_report_text_name_room(name_w, row->dso, tag),
						NULL, row->name, row->inlined_into);
		fputs("  ", f);
		tdr_report_text_put_name(f, name_w, name, keep, row->dso, tag, "", "");
		fputc('\n', f);
	}
	fputc('\n', f);
	fputs("functions are matched by (object basename, name), never by address\n", f);
	if (d->cat_cnt)
		fputs("category changes are points of each function's own slots\n", f);
	snprintf(line, sizeof(line), "~ fewer than %" PRIu64 " samples on a side: too few to trust",
		 d->side[0].min_samples);
	if (d->side[0].min_samples)
		fprintf(f, "%s\n", line);
	if (n < d->row_cnt)
		fprintf(f, "%zu more rows not shown (--limit 0 shows all)\n", d->row_cnt - n);
	return 0;
}

static void json_side_info(const struct tdr_diff *d, int s, struct tdr_json *j)
{
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_string(j, "file", d->side[s].file);
	tdr_json__key_string(j, "plan", d->side[s].plan);
	tdr_json__key_uint(j, "samples", d->side[s].samples);
	tdr_json__end_object(j);
}

/* Category name -> value, or null without values. */
static void json_topdown(const struct tdr_diff *d, const double *v, struct tdr_json *j)
{
	if (!v) {
		tdr_json__null(j);
		return;
	}
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t c = 0; c < d->cat_cnt; c++)
		tdr_json__key_double(j, d->cat_names[c], v[c]);
	tdr_json__end_object(j);
}

static void json_side(const struct tdr_diff *d, const struct tdr_diff_side *s, struct tdr_json *j)
{
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_uint(j, "samples", s->samples);
	tdr_json__key_double(j, "share", s->share);
	tdr_json__key(j, "topdown");
	json_topdown(d, s->topdown, j);
	tdr_json__end_object(j);
}

static void json_row(const struct tdr_diff *d, const struct tdr_diff_row *row, struct tdr_json *j)
{
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_string(j, "name", row->name);
	tdr_json__key_string(j, "dso", row->dso);
	if (d->by == TDR_BY_INLINE)
		tdr_json__key_string(j, "inlined_into", row->inlined_into);
	tdr_json__key_string(j, "only_in", row->only_old ? "old" : row->only_new ? "new" : NULL);
	tdr_json__key(j, "old");
	json_side(d, &row->old, j);
	tdr_json__key(j, "new");
	json_side(d, &row->new, j);
	tdr_json__key_double(j, "share_change", row->share_change);
	tdr_json__key(j, "topdown_change");
	json_topdown(d, row->topdown_change, j);
	tdr_json__end_object(j);
}

static int render_diff_json(const struct tdr_diff *d, const struct tdr_render_opts *o, FILE *f)
{
	size_t n = d->row_cnt;
	struct tdr_json j;

	if (o->limit && o->limit < n)
		n = o->limit;
	tdr_json__init(&j, f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "schema", "tdrec-diff/1");
	tdr_json__key_string(&j, "by", tdr_report_by_name(d->by));
	tdr_json__key(&j, "old");
	json_side_info(d, 0, &j);
	tdr_json__key(&j, "new");
	json_side_info(d, 1, &j);
	tdr_json__key(&j, "categories_compared");
	tdr_json__begin_array(&j, TDR_JSON_INLINE);
	for (size_t c = 0; c < d->cat_cnt; c++)
		tdr_json__string(&j, d->cat_names[c]);
	tdr_json__end_array(&j);
	tdr_json__key(&j, "warnings");
	tdr_report_json_put_strings(&j, &d->warnings);
	tdr_json__key_uint(&j, "rows_total", d->row_cnt);
	tdr_json__key(&j, "rows");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (size_t i = 0; i < n; i++)
		json_row(d, &d->rows[i], &j);
	tdr_json__end_array(&j);
	tdr_json__end_object(&j);
	return 0;
}

int tdr_diff__render(const struct tdr_diff *d, const struct tdr_render_opts *o, FILE *out)
{
	struct tdr_render_opts defaults = {0};
	int err;

	if (!o)
		o = &defaults;
	if (o->fmt == TDR_FMT_TEXT)
		err = render_diff_text(d, o, out);
	else if (o->fmt == TDR_FMT_JSON)
		err = render_diff_json(d, o, out);
	else
		return -EINVAL;
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	return err;
}
