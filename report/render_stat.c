/*
 * report/render_stat.c - the output of 'tdrec stat': what every format
 * shares, CSV, and the entry points (struct tdr_stat_out, tdrec/report.h).
 *
 * Responsibility: read the stat view (tdrec/stat.h) once per write, CSV
 * with one header line, and the two entry points: interval rows as they
 * happen (text and CSV; JSON keeps them for the document) and the
 * whole-run output. Every number comes from the view (stat/stat_calc.c):
 * nothing is computed here but its format. Text is in render_stat_text.c,
 * JSON in render_stat_json.c. The schemas are documented in docs/stat.md
 * and must change with it.
 * Objects and lifecycle: struct tdr_stat_out (init -> __interval during the
 * run -> __render -> __clear).
 * Ownership and threads: writes only to the stream it is given (borrowed);
 * one thread.
 * See: docs/stat.md "Text output", "JSON schema", "CSV schema".
 */
#include "render_stat_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "tdrec/report.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_textout.h"

static void report_stat_doc__init(struct report_stat_doc *d, const struct tdr_stat *st)
{
	d->st = st;
	tdr_stat__view(st, &d->v);
	d->sum = tdr_stat__summary(st);
	d->clock_ev = -1;
	for (size_t i = 0; i < d->v.event_cnt; i++) {
		tdr_stat__event(st, i, &d->ev[i]);
		if (d->ev[i].clock && d->clock_ev < 0)
			d->clock_ev = (int)i;
	}
	for (size_t c = 0; c < d->v.category_cnt; c++) {
		const char *core;

		tdr_stat__category(st, c, &d->cat[c]);
		core = d->cat[c].core;
		if (core && !strncmp(core, "cpu_", 4))
			core += 4;
		snprintf(d->cat_name[c], sizeof(d->cat_name[c]), "%s%s%s",
			 d->cat[c].key ? d->cat[c].key : "-", core ? ":" : "", core ? core : "");
	}
}

const char *tdr_report_stat_cat_name(const struct report_stat_doc *d, int i)
{
	return i >= 0 && d->cat[i].key ? d->cat_name[i] : "-";
}

/* ---------------------------------------------------------------------------
 * CSV.
 */
/* The plan's groups: 1 + the highest group of an event. Their shares get
 * columns of their own only when there are several (AMD level 2). */
static size_t csv_group_cnt(const struct report_stat_doc *d)
{
	size_t n = 1;

	for (size_t i = 0; i < d->v.event_cnt; i++)
		if (d->ev[i].group + 1 > n)
			n = d->ev[i].group + 1;
	return n;
}

static void csv_header(const struct report_stat_doc *d, FILE *f)
{
	static const char *const head[] = {"type", "start_s", "end_s", "pid", "tid", "name"};
	static const char *const mid[] = {"time_enabled_ns", "time_running_ns", "task_run_ns",
					  "counted"};
	size_t groups = csv_group_cnt(d);
	struct tdr_csv c;

	tdr_csv__init(&c, f);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(head); i++)
		tdr_csv__field(&c, head[i]);
	for (size_t i = 0; i < d->v.event_cnt; i++)
		tdr_csv__field(&c, d->ev[i].name);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(mid); i++)
		tdr_csv__field(&c, mid[i]);
	for (size_t g = 0; groups > 1 && g < groups; g++)
		tdr_csv__fieldf(&c, "counted_group%zu", g);
	tdr_csv__field(&c, "slots");
	for (size_t k = 0; k < d->v.category_cnt; k++)
		tdr_csv__field(&c, tdr_report_stat_cat_name(d, (int)k));
	tdr_csv__field(&c, "bottleneck");
	tdr_csv__field(&c, "bottleneck_l2");
	tdr_csv__end_row(&c);
}

/* A fraction with four decimals, empty when it cannot be told. */
static void csv_fraction(struct tdr_csv *c, double v)
{
	if (isnan(v))
		tdr_csv__field(c, NULL);
	else
		tdr_csv__fieldf(c, "%.4f", v);
}

static void csv_row(const struct report_stat_doc *d, const struct tdr_stat_row *r, FILE *f)
{
	static const char *const kinds[] = {"total", "interval", "thread", "not-attributed"};
	struct tdr_csv c;

	tdr_csv__init(&c, f);
	tdr_csv__field(&c, kinds[r->kind]);
	if (r->kind == TDR_STAT_ROW_TOTAL || r->kind == TDR_STAT_ROW_INTERVAL) {
		tdr_csv__fieldf(&c, "%.6f", (double)r->start_ns / 1e9);
		tdr_csv__fieldf(&c, "%.6f", (double)r->end_ns / 1e9);
	} else {
		tdr_csv__field(&c, NULL);
		tdr_csv__field(&c, NULL);
	}
	if (r->kind == TDR_STAT_ROW_THREAD) {
		tdr_csv__fieldf(&c, "%d", (int)r->pid);
		tdr_csv__fieldf(&c, "%d", (int)r->tid);
	} else {
		tdr_csv__field(&c, NULL);
		tdr_csv__field(&c, NULL);
	}
	tdr_csv__field(&c, r->name);
	for (size_t i = 0; i < d->v.event_cnt; i++)
		tdr_csv__fieldf(&c, "%" PRIu64, r->values[i]);
	tdr_csv__fieldf(&c, "%" PRIu64, r->time_enabled_ns);
	tdr_csv__fieldf(&c, "%" PRIu64, r->time_running_ns);
	if (r->task_run_ns)
		tdr_csv__fieldf(&c, "%" PRIu64, r->task_run_ns);
	else
		tdr_csv__field(&c, NULL);
	csv_fraction(&c, r->counted);
	for (size_t g = 0, groups = csv_group_cnt(d); groups > 1 && g < groups; g++)
		csv_fraction(&c, g < r->group_cnt ? r->group_counted[g] : NAN);
	if (d->v.topdown)
		tdr_csv__fieldf(&c, "%.0f", r->slots);
	else
		tdr_csv__field(&c, NULL);
	for (size_t k = 0; k < d->v.category_cnt; k++)
		csv_fraction(&c, r->cats[k]);
	tdr_csv__field(&c, r->bn >= 0 ? tdr_report_stat_cat_name(d, r->bn) : NULL);
	tdr_csv__field(&c, r->bn_l2 >= 0 ? tdr_report_stat_cat_name(d, r->bn_l2) : NULL);
	tdr_csv__end_row(&c);
}

static void tdr_report_render_csv(const struct report_stat_doc *d, FILE *f)
{
	struct tdr_stat_row r;

	tdr_stat__total_row(d->st, &r);
	csv_row(d, &r, f);
	if (!d->v.per_thread)
		return;
	for (size_t i = 0; i < d->v.thread_cnt; i++)
		if (tdr_stat__thread_row(d->st, i, &r))
			csv_row(d, &r, f);
	if (tdr_stat__unattributed_row(d->st, &r))
		csv_row(d, &r, f);
}

/* ---------------------------------------------------------------------------
 * Entry points.
 */
void tdr_stat_out__init(struct tdr_stat_out *o, FILE *f, enum tdr_report_format fmt)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->fmt = fmt;
}

/* Flush the stream and keep the first write error; the caller, who knows
 * the stream's name, reports it (cli: "cannot write FILE: reason"). */
static void flush_out(struct tdr_stat_out *o)
{
	errno = 0;
	if ((fflush(o->f) == EOF || ferror(o->f)) && !o->write_err)
		o->write_err = errno ? -errno : -EIO;
}

int tdr_stat_out__interval(void *arg, const struct tdr_stat *st, const struct tdr_stat_row *row)
{
	struct tdr_stat_out *o = arg;
	struct report_stat_doc d;

	if (o->fmt == TDR_FMT_JSON) {
		if (tdr_ensure_cap(&o->rows, &o->row_cap, sizeof(*o->rows), o->row_cnt + 1))
			return -ENOMEM;
		o->rows[o->row_cnt++] = *row;
		return 0;
	}
	report_stat_doc__init(&d, st);
	if (o->fmt == TDR_FMT_CSV) {
		if (!o->header_done)
			csv_header(&d, o->f);
		csv_row(&d, row, o->f);
	} else {
		if (!o->header_done)
			tdr_report_stat_text_interval_header(&d, o->f);
		tdr_report_stat_text_interval(&d, row, o->f);
	}
	o->header_done = true;
	/* A row is worth nothing late: the reader watches it live. */
	flush_out(o);
	return 0;
}

int tdr_stat_out__render(struct tdr_stat_out *o, const struct tdr_stat *st)
{
	struct report_stat_doc d;

	report_stat_doc__init(&d, st);
	if (!d.v.complete || (unsigned)o->fmt > TDR_FMT_CSV)
		return -EINVAL;
	switch (o->fmt) {
	case TDR_FMT_TEXT:
		tdr_report_stat_text(&d, o->f);
		break;
	case TDR_FMT_JSON:
		tdr_report_stat_json(&d, o->rows, o->row_cnt, o->f);
		break;
	case TDR_FMT_CSV:
		if (!o->header_done)
			csv_header(&d, o->f);
		o->header_done = true;
		tdr_report_render_csv(&d, o->f);
		break;
	}
	flush_out(o);
	return o->write_err;
}

void tdr_stat_out__clear(struct tdr_stat_out *o)
{
	free(o->rows);
	o->rows = NULL;
	o->row_cnt = o->row_cap = 0;
}
