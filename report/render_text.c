/*
 * report/render_text.c - the report as a table for people.
 *
 * Responsibility: a header (what was recorded, warnings), one table line per
 * row (TopDown plans: samples, share, slots share, level-1 categories and a
 * stacked bar of the row's level-1 split, plus a level-2 line when the plan
 * has level 2; the software plan: samples, share, each event's total with
 * its unit and a share bar), the totals, and a legend. Every line fits the
 * width (100 columns by default); colour (ANSI) only when the caller asks.
 * Markers work without colour: '~' after a sample count (too few samples),
 * '*' after a bottleneck value, '!' after a value outside 0-100% (shown as
 * computed; the report's warnings say why once).
 * See: docs/report.md "Text output".
 */
#include "report_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define BAR_W 10
#define MAX_CAT_COLS 6
#define MAX_EV_COLS 6
#define EV_W REPORT_EV_LABEL_W
#define NAME_MIN_W 30 /* fewer event columns rather than narrower names */
#define CORE_W 8      /* "cpu_core", "cpu_atom" */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_HOT "\033[1;31m"
#define C_WARN "\033[33m"

struct text {
	const struct tdr_report *r;
	FILE *f;
	unsigned width;
	bool colour;
	bool topdown;
	size_t cols[MAX_CAT_COLS]; /* level-1 categories shown */
	size_t col_cnt;
	bool has_l2;
	size_t evs[MAX_EV_COLS]; /* software plan: events shown */
	size_t ev_cnt;
	unsigned name_w;
	bool cores; /* split by core type: a core column before the name */
	bool children; /* --children: a self column after the share */
};

static void colour_on(const struct text *t, const char *code)
{
	if (t->colour)
		fputs(code, t->f);
}

static void colour_off(const struct text *t)
{
	if (t->colour)
		fputs(C_RESET, t->f);
}

static void put_wrapped(const struct text *t, const char *prefix, const char *code,
			const char *text)
{
	const struct tdr_wrap w = {
	    .width = t->width,
	    .prefix = prefix,
	    .indent = (unsigned)tdr_text_cols(prefix),
	    .on = t->colour ? code : "",
	    .off = t->colour && *code ? C_RESET : "",
	};

	tdr_text_wrap(t->f, &w, text);
}

/* One header line "  key       value", cut to the width. */
static void put_field(const struct text *t, const char *key, const char *value)
{
	fprintf(t->f, "  %-9s ", key);
	tdr_report_text_put_fit(t->f, value, t->width > 12 ? t->width - 12 : 1, CUT_END);
	fputc('\n', t->f);
}

static void put_header(const struct text *t)
{
	const struct tdr_report *r = t->r;
	char buf[1024], end[64], dur[64];
	uint64_t ns;
	bool from_samples, edges;

	colour_on(t, C_BOLD);
	snprintf(buf, sizeof(buf), "tdrec report: %s%s%s", r->file ? r->file : "(no file)",
		 r->source == TDR_SOURCE_PERF_DATA ? " (perf.data)" : "", "");
	tdr_report_text_put_fit(t->f, buf, t->width, CUT_START);
	colour_off(t);
	fputc('\n', t->f);
	if (r->command)
		put_field(t, "command", r->command);
	snprintf(buf, sizeof(buf), "%s%s%s", r->host ? r->host : "?", r->cpu ? ", " : "",
		 r->cpu ? r->cpu : "");
	put_field(t, "host", buf);
	dur[0] = '\0';
	if (tdr_report_duration(r, &ns, &from_samples))
		snprintf(dur, sizeof(dur), ", %s%.3f s", from_samples ? "samples span " : "",
			 (double)ns / 1e9);
	tdr_report_describe_end(r, end, sizeof(end));
	/* --callers/--callees: the whole is F's samples, said on a line of
	 * its own; the plan line keeps the recording's (kept) samples. */
	edges = r->opts.stacks == TDR_STACKS_CALLERS || r->opts.stacks == TDR_STACKS_CALLEES;
	snprintf(buf, sizeof(buf), "%s%s, %" PRIu64 " samples%s%s%s",
		 r->plan ? r->plan : "unknown plan", t->topdown ? "" : " (no TopDown)",
		 edges && r->seen ? r->kept : r->totals.samples, dur, r->have_end ? ", " : "",
		 r->have_end ? end : "");
	put_field(t, "plan", buf);
	if (r->seen && r->kept != r->seen) {
		snprintf(buf, sizeof(buf),
			 "kept %" PRIu64 " of %" PRIu64 " samples (%.1f%%); shares are of "
			 "the kept samples",
			 r->kept, r->seen, 100.0 * (double)r->kept / (double)r->seen);
		put_field(t, "filter", buf);
	}
	if (edges && r->seen) {
		snprintf(buf, sizeof(buf),
			 "%s is on the stack of %" PRIu64 " of %" PRIu64 " samples (%.1f%%); "
			 "shares are of those",
			 r->opts.stack_func, r->totals.samples, r->kept,
			 r->kept ? 100.0 * (double)r->totals.samples / (double)r->kept : 0.0);
		put_field(t, "stacks", buf);
	}
	for (size_t i = 0; i < r->warnings.cnt; i++) {
		const char *w = r->warnings.v[i];

		/* The plan's notes are information, not trouble. */
		if (!strncmp(w, "note: ", 6))
			put_wrapped(t, "note:    ", "", w + 6);
		else
			put_wrapped(t, "warning: ", C_WARN, w);
	}
	fputc('\n', t->f);
}

/* Format v into exactly w columns, scaling with k/M/G when it does not fit. */
static void fmt_value(char *buf, size_t sz, int w, double v, bool decimals)
{
	static const char suffix[] = " kMGTP";
	int n;

	if (isnan(v)) {
		snprintf(buf, sz, "%*s", w, "-");
		return;
	}
	n = snprintf(buf, sz, decimals ? "%*.1f" : "%*.0f", w, v);
	for (size_t s = 1; n > w && s < sizeof(suffix) - 1; s++) {
		v /= 1000;
		n = snprintf(buf, sz, "%*.1f%c", w - 1, v, suffix[s]);
	}
}

static void put_num_col(const struct text *t, double v, bool decimals)
{
	char buf[64];

	fmt_value(buf, sizeof(buf), EV_W, v, decimals);
	fprintf(t->f, " %s", buf);
}

static void put_pct(const struct text *t, double v)
{
	if (isnan(v))
		fprintf(t->f, " %6s", "-");
	else
		fprintf(t->f, " %5.1f%%", 100.0 * v);
}

static const char *glyph_colour(const char *name)
{
	switch (tdr_report_category_glyph(name)) {
	case 'r':
		return "\033[32m";
	case 's':
		return "\033[31m";
	case 'f':
		return "\033[35m";
	case 'b':
		return "\033[34m";
	default:
		return "";
	}
}

/* Stacked bar of the row's level-1 split (largest remainder, BAR_W cells). */
static void put_topdown_bar(const struct text *t, const struct tdr_report_row *row)
{
	size_t cells[MAX_CAT_COLS] = {0}, used = 0;
	double rem[MAX_CAT_COLS] = {0}, sum = 0;

	fputc(' ', t->f);
	/* The bar shows shares of what is there: a negative value (printed as
	 * computed in its column, marked '!') gets no cells. */
	for (size_t i = 0; row->topdown && i < t->col_cnt; i++) {
		double v = row->topdown[t->cols[i]];

		sum += isnan(v) || v < 0 ? 0 : v;
	}
	if (!(sum > 0)) {
		fprintf(t->f, "%*s", BAR_W, "");
		return;
	}
	for (size_t i = 0; i < t->col_cnt; i++) {
		double v = row->topdown[t->cols[i]], x = (isnan(v) || v < 0 ? 0 : v) / sum * BAR_W;

		cells[i] = (size_t)x;
		rem[i] = x - (double)cells[i];
		used += cells[i];
	}
	while (used < BAR_W) {
		size_t best = 0;

		for (size_t i = 1; i < t->col_cnt; i++)
			if (rem[i] > rem[best])
				best = i;
		cells[best]++;
		rem[best] = -1;
		used++;
	}
	for (size_t i = 0; i < t->col_cnt; i++) {
		const char *name = t->r->cats[t->cols[i]].name;

		if (!cells[i])
			continue;
		colour_on(t, glyph_colour(name));
		for (size_t c = 0; c < cells[i]; c++)
			fputc(tdr_report_category_glyph(name), t->f);
		colour_off(t);
	}
}

static void put_share_bar(const struct text *t, double share)
{
	double x = share * BAR_W;
	size_t full = (size_t)x, n = 0;

	fputc(' ', t->f);
	for (; n < full && n < BAR_W; n++)
		fputc('#', t->f);
	if (n < BAR_W && x - (double)full > 0) {
		fputc(x - (double)full >= 0.5 ? '+' : '.', t->f);
		n++;
	}
	fprintf(t->f, "%*s", (int)(BAR_W - n), "");
}

static void put_name(const struct text *t, const struct tdr_report_row *row, bool total)
{
	const struct tdr_report *r = t->r;
	char main[1024], suffix[512];
	size_t keep = 0;

	suffix[0] = '\0';
	fputs("  ", t->f);
	if (total) {
		colour_on(t, C_BOLD);
		fputs("total", t->f);
		colour_off(t);
		/* The category columns are right for what was sampled; say
		 * next to them when that is much less than what ran. */
		if (t->topdown && r->slots_attributed < TDR_REPORT_ATTRIBUTED_MIN) {
			snprintf(main, sizeof(main), "  covers %.0f%% of counted slots",
				 100 * r->slots_attributed);
			tdr_report_text_put_fit(t->f, main, t->name_w > 5 ? t->name_w - 5 : 0,
						CUT_END);
		}
		return;
	} else if (r->opts.by == TDR_BY_THREAD) {
		snprintf(main, sizeof(main), "%s", row->name);
		snprintf(suffix, sizeof(suffix), "%" PRIu32 "/%" PRIu32, row->pid, row->tid);
	} else if (r->opts.by == TDR_BY_PROCESS) {
		snprintf(main, sizeof(main), "%s", row->name);
		snprintf(suffix, sizeof(suffix), "pid %" PRIu32, row->pid);
	} else if (r->opts.by == TDR_BY_DSO) {
		tdr_report_text_put_fit(t->f, row->name, t->name_w, CUT_START);
		return;
	} else {
		char prefix[512];

		/* "[unknown] PATH", "PATH+0x..." already name their object. */
		if (row->dso && !strstr(row->name, row->dso))
			snprintf(suffix, sizeof(suffix), "%s", tdr_report_basename(row->dso));
		if (row->file)
			snprintf(prefix, sizeof(prefix), "%s:%" PRIu32 " ",
				 tdr_report_basename(row->file), row->line);
		/* Long C++ names lose their least telling parts first; a cut
		 * keeps what tells the row apart. */
		keep = tdr_report_text_row_name(
		    main, sizeof(main), tdr_report_text_name_room(t->name_w, suffix, NULL),
		    row->file && !row->inlined_into ? prefix : NULL, row->name, row->inlined_into);
	}
	tdr_report_text_put_name(t->f, t->name_w, main, keep, suffix, NULL, t->colour ? C_DIM : "",
				 t->colour ? C_RESET : "");
}

static void put_l2_line(const struct text *t, const struct tdr_report_row *row)
{
	const struct tdr_report *r = t->r;
	char line[1024];
	size_t indent = 9;

	for (int pass = 0; pass < 2; pass++) {
		size_t len = 0;
		bool any_group = false;

		line[0] = '\0';
		for (size_t i = 0; i < t->col_cnt; i++) {
			bool first = true;

			for (size_t c = 0; c < r->cat_cnt; c++) {
				double v = row->topdown[c];

				if (r->cats[c].parent_idx != (int)t->cols[i] || len > 900)
					continue;
				len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s ",
							first ? (any_group ? " | " : "") : " ",
							tdr_report_category_label(r->cats[c].name));
				if (isnan(v))
					len +=
					    (size_t)snprintf(line + len, sizeof(line) - len, "-");
				else
					len += (size_t)snprintf(
					    line + len, sizeof(line) - len, pass ? "%.0f%s" : "%.1f%s",
					    100 * v,
					    tdr_report_row_out_of_range(r, row, (int)c) ? "!"
					    : (int)c == row->bottleneck_l2		  ? "*"
											  : "");
				first = false;
				any_group = true;
			}
		}
		if (len + indent <= t->width || pass)
			break;
	}
	fprintf(t->f, "%*s", (int)indent, "");
	colour_on(t, C_DIM);
	tdr_report_text_put_fit(t->f, line, t->width - indent, CUT_END);
	colour_off(t);
	fputc('\n', t->f);
}

static void put_row(const struct text *t, const struct tdr_report_row *row, bool total)
{
	const struct tdr_report *r = t->r;

	if (row->low_confidence)
		colour_on(t, C_DIM);
	fprintf(t->f, "%8" PRIu64 "%c", row->samples, row->low_confidence ? '~' : ' ');
	put_pct(t, row->share);
	if (t->children)
		put_pct(t, row->self_share);
	if (t->topdown) {
		put_pct(t, row->slots_share);
		for (size_t i = 0; i < t->col_cnt; i++) {
			/* NULL: the totals of a report split by core type */
			double v = row->topdown ? row->topdown[t->cols[i]] : NAN;
			bool hot = (int)t->cols[i] == row->bottleneck;

			if (isnan(v)) {
				fprintf(t->f, " %5s ", "-");
				continue;
			}
			fputc(' ', t->f);
			if (hot)
				colour_on(t, C_HOT);
			fprintf(t->f, "%5.1f%c", 100 * v,
				tdr_report_row_out_of_range(r, row, (int)t->cols[i]) ? '!'
				: hot							? '*'
											: ' ');
			if (hot) {
				colour_off(t);
				if (row->low_confidence)
					colour_on(t, C_DIM);
			}
		}
		put_topdown_bar(t, row);
		if (t->cores) {
			const char *core = tdr_report_core_name(r, row->core);
			char safe[64];

			/* Names from the file: no control characters (tdr_textout.h). */
			fprintf(t->f, "  %-*.*s", CORE_W, CORE_W,
				tdr_text_safe(core ? core : "all", safe, sizeof(safe)));
		}
	} else {
		for (size_t i = 0; i < t->ev_cnt; i++) {
			size_t e = t->evs[i];
			double v = (double)row->events[e];

			if (r->event_units[e] == UNIT_NS)
				put_num_col(t, v / 1e6, true);
			else
				put_num_col(t, v, false);
		}
		put_share_bar(t, row->share);
	}
	put_name(t, row, total);
	colour_off(t);
	fputc('\n', t->f);
	if (t->has_l2 && row->topdown)
		put_l2_line(t, row);
}

/* Under the total row: each event's count over the whole run, and the
 * share of it the samples attribute (counted.c). */
static void put_counted(const struct text *t)
{
	const struct tdr_report *r = t->r;
	char buf[2048], v[48];
	size_t len = 0;

	if (!r->any_counted)
		return;
	for (size_t e = 0; e < r->event_cnt && len < 1800; e++) {
		const char *sep = len ? ", " : "";

		if (r->event_units[e] == UNIT_DUMMY)
			continue;
		if (!r->has_counted[e]) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s unknown", sep,
						r->event_names[e]);
			continue;
		}
		tdr_report_counted__fmt(r, e, r->counted[e], v, sizeof(v));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %s", sep,
					r->event_names[e], v);
		if (r->counted[e])
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " (%.1f%%%s)",
						100.0 * (double)r->attributed[e] /
						    (double)r->counted[e],
						sep[0] ? "" : " attributed");
	}
	put_wrapped(t, "counted: ", "", buf);
}

static void put_table_header(const struct text *t)
{
	const struct tdr_report *r = t->r;
	char safe[64]; /* labels from the file: no control characters */

	colour_on(t, C_BOLD);
	fprintf(t->f, "%8s  %6s", "samples", t->children ? "incl" : "share");
	if (t->children)
		fprintf(t->f, " %6s", "self");
	if (t->topdown) {
		fprintf(t->f, " %6s", "slots");
		for (size_t i = 0; i < t->col_cnt; i++)
			fprintf(t->f, " %6.6s",
				tdr_text_safe(tdr_report_category_label(r->cats[t->cols[i]].name),
					      safe, sizeof(safe)));
		fprintf(t->f, " %-*s", BAR_W, "split");
		if (t->cores)
			fprintf(t->f, "  %-*s", CORE_W, "core");
	} else {
		for (size_t i = 0; i < t->ev_cnt; i++)
			fprintf(t->f, " %*s", EV_W,
				tdr_text_safe(r->event_labels[t->evs[i]], safe, sizeof(safe)));
		fprintf(t->f, " %-*s", BAR_W, "bar");
	}
	if (r->opts.stacks == TDR_STACKS_CALLERS || r->opts.stacks == TDR_STACKS_CALLEES)
		fprintf(t->f, "  %s of %s", tdr_report_stacks_name(r->opts.stacks),
			r->opts.stack_func);
	else
		fprintf(t->f, "  %s", tdr_report_rows_name(r));
	colour_off(t);
	fputc('\n', t->f);
}

/* What the rows of a call-stack view are (docs/report.md "Call stacks"). */
static void put_stacks_legend(const struct text *t)
{
	const struct tdr_report *r = t->r;
	char buf[1024];

	switch (r->opts.stacks) {
	case TDR_STACKS_CHILDREN:
		put_wrapped(t, "", "",
			    "children: samples, incl and the other columns count each sample "
			    "once for every function on its stack (as perf report --children); "
			    "self is the share of samples taken in the function itself");
		break;
	case TDR_STACKS_CALLERS:
	case TDR_STACKS_CALLEES:
		snprintf(buf, sizeof(buf),
			 "%s of %s: each of the %" PRIu64 " samples with %s on its stack counts "
			 "once, for the %s of its outermost %s frame%s; shares and categories "
			 "are of those samples",
			 tdr_report_stacks_name(r->opts.stacks), r->opts.stack_func,
			 r->totals.samples, r->opts.stack_func,
			 r->opts.stacks == TDR_STACKS_CALLERS ? "caller" : "callee",
			 r->opts.stack_func,
			 r->opts.stacks == TDR_STACKS_CALLERS
			     ? " ([no caller]: it is the outermost)"
			     : " ([self]: the sample was taken in it)");
		put_wrapped(t, "", "", buf);
		break;
	default:
		break;
	}
}

/* A file sampled in several groups (docs/report.md "Sampling groups"):
 * each group's share of the totals. */
static void put_group_shares(const struct text *t)
{
	const struct tdr_report *r = t->r;
	char buf[512];
	size_t len;

	len = (size_t)snprintf(buf, sizeof(buf), "sampled in %zu groups, each sample's counts "
						 "from its own group; share of the sampled cycles:",
			       r->sgroup_cnt);
	for (size_t g = 0; g < r->sgroup_cnt && len < sizeof(buf); g++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s group %zu (%s) %.1f%%",
					g ? "," : "", g, r->event_names[r->sgroup_sampler[g]],
					100 * tdr_report_group_share(r, &r->totals, g));
	put_wrapped(t, "", "", buf);
}

static void put_legend(const struct text *t, size_t shown)
{
	const struct tdr_report *r = t->r;
	char buf[1024];
	size_t len = 0;
	bool any = false;

	if (t->topdown) {
		len = (size_t)snprintf(buf, sizeof(buf),
				       "category columns are %% of the row's "
				       "slots; split:");
		for (size_t i = 0; i < t->col_cnt && len < 900; i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %c=%s",
						tdr_report_category_glyph(r->cats[t->cols[i]].name),
						r->cats[t->cols[i]].name);
		put_wrapped(t, "", "", buf);
		if (t->cores)
			put_wrapped(t, "", "",
				    "rows per core type (core column), each with its core type's "
				    "own formulas; slots is the share of every core type's slots; "
				    "the totals line 'all' mixes core types, so has no categories");
		if (r->sgroup_cnt)
			put_group_shares(t);
		len = (size_t)snprintf(buf, sizeof(buf), "* bottleneck: above its threshold (");
		for (size_t c = 0; c < r->cat_cnt && len < 900; c++) {
			if (isnan(r->cats[c].threshold))
				continue;
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s %.0f%%",
						any ? ", " : "", r->cats[c].name,
						100 * r->cats[c].threshold);
			any = true;
		}
		snprintf(buf + len, sizeof(buf) - len, ") in a row with over %.0f%% of samples",
			 100 * TDR_REPORT_HOT_SHARE);
		if (any)
			put_wrapped(t, "", "", buf);
		put_wrapped(t, "", "",
			    "deltas are charged to the function where each sampling interval "
			    "ended: trust rows with many samples (docs/report.md)");
	} else {
		len = 0;
		for (size_t i = 0; i < t->ev_cnt && len < 900; i++) {
			size_t e = t->evs[i];

			len += (size_t)snprintf(
			    buf + len, sizeof(buf) - len, "%s%s = %s%s",
			    i ? ", " : "columns: ", r->event_labels[e],
			    r->event_names[e], r->event_units[e] == UNIT_NS ? " (ms)" : "");
		}
		if (len)
			put_wrapped(t, "", "", buf);
		len = 0;
		for (size_t e = 0; e < r->event_cnt; e++)
			len += r->event_units[e] != UNIT_DUMMY;
		if (len > t->ev_cnt) {
			snprintf(buf, sizeof(buf),
				 "%zu more events do not fit here: see --json or --csv",
				 len - t->ev_cnt);
			put_wrapped(t, "", "", buf);
		}
		put_wrapped(t, "", "",
			    "no TopDown categories in this plan: samples and event "
			    "totals only");
	}
	put_stacks_legend(t);
	if (r->opts.min_samples) {
		snprintf(buf, sizeof(buf), "~ fewer than %" PRIu64 " samples: too few to trust",
			 r->opts.min_samples);
		put_wrapped(t, "", "", buf);
	}
	if (shown < r->visible_cnt) {
		snprintf(buf, sizeof(buf), "%zu more rows not shown (--limit 0 shows all)",
			 r->visible_cnt - shown);
		put_wrapped(t, "", "", buf);
	}
	if (r->visible_cnt < r->view_cnt) {
		snprintf(buf, sizeof(buf), "%zu rows under --min-share %.2f%% hidden",
			 r->view_cnt - r->visible_cnt, 100 * r->opts.min_share);
		put_wrapped(t, "", "", buf);
	}
}

static void plan_columns(struct text *t)
{
	const struct tdr_report *r = t->r;
	unsigned fixed;

	t->topdown = r->slots_cat >= 0;
	t->cores = t->topdown && r->core_cnt;
	t->children = r->opts.stacks == TDR_STACKS_CHILDREN;
	for (size_t c = 0; c < r->cat_cnt; c++) {
		if (r->cats[c].level == 1 && t->col_cnt < MAX_CAT_COLS)
			t->cols[t->col_cnt++] = c;
		if (r->cats[c].level > 1 && r->cats[c].parent_idx >= 0)
			t->has_l2 = true;
	}
	if (t->topdown) {
		fixed = 9 + 7 + 7 + 7 * (unsigned)t->col_cnt + 1 + BAR_W + 2 +
			(t->cores ? CORE_W + 2 : 0) + (t->children ? 7 : 0);
	} else {
		for (size_t e = 0; e < r->event_cnt && t->ev_cnt < MAX_EV_COLS; e++)
			if (r->event_units[e] != UNIT_DUMMY)
				t->evs[t->ev_cnt++] = e;
		fixed = 9 + 7 + 1 + BAR_W + 2 + (t->children ? 7 : 0);
		/* Drop event columns rather than squeeze the names. */
		while (t->ev_cnt &&
		       fixed + (EV_W + 1) * (unsigned)t->ev_cnt + NAME_MIN_W > t->width)
			t->ev_cnt--;
		fixed += (EV_W + 1) * (unsigned)t->ev_cnt;
	}
	t->name_w = t->width > fixed + 10 ? t->width - fixed : 10;
}

int tdr_report_render_text(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *f)
{
	struct text t = {.r = r, .f = f, .colour = o->colour};
	size_t n = r->visible_cnt;

	t.width = o->width ? o->width : TDR_RENDER_WIDTH_DEFAULT;
	if (t.width < TDR_RENDER_WIDTH_MIN)
		t.width = TDR_RENDER_WIDTH_MIN;
	plan_columns(&t);
	if (o->whole_names)
		t.name_w = TDR_RENDER_WIDTH_MAX;
	put_header(&t);
	if (o->limit && o->limit < n)
		n = o->limit;
	put_table_header(&t);
	for (size_t i = 0; i < n; i++)
		put_row(&t, r->visible[i], false);
	fprintf(f, "%.*s\n",
		(int)(t.width < TDR_RENDER_WIDTH_DEFAULT ? t.width : TDR_RENDER_WIDTH_DEFAULT),
		"----------------------------------------------------------------------------------"
		"------------------");
	put_row(&t, &r->totals, true);
	for (size_t k = 0; t.cores && k < r->core_cnt; k++)
		put_row(&t, &r->core_totals[k], true);
	put_counted(&t);
	fputc('\n', f);
	put_legend(&t, n);
	return 0;
}
