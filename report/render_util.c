/*
 * report/render_util.c - small writers shared by the JSON, CSV and text renderers.
 *
 * Responsibility: the pieces report and diff output share on top of the
 * common writers (tdr_json.h, tdr_textout.h): a list of strings as a JSON
 * array, the text pieces of the report and diff tables (cutting to a width,
 * the name column with its object), and the tdr_report__render dispatcher.
 */
#include "report_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void tdr_report_json_put_strings(struct tdr_json *j, const struct strlist *l)
{
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < l->cnt; i++)
		tdr_json__string(j, l->v[i]);
	tdr_json__end_array(j);
}

const char *tdr_report_event_short(const char *name)
{
	static const struct {
		const char *name, *label;
	} short_names[] = {
	    {"cpu-clock", "cpu-ms"},	   {"task-clock", "task-ms"},
	    {"page-faults", "faults"},	   {"context-switches", "ctx-sw"},
	    {"cpu-migrations", "migrate"}, {"minor-faults", "minflt"},
	    {"major-faults", "majflt"},
	};
	/* perf's names carry modifiers: "cpu-clock:ppp", "page-faults:u",
	 * "cpu-clock/period=100000/". */
	size_t len = strcspn(name, ":/");

	for (size_t i = 0; i < sizeof(short_names) / sizeof(short_names[0]); i++)
		if (strlen(short_names[i].name) == len && !strncmp(short_names[i].name, name, len))
			return short_names[i].label;
	return NULL;
}

/* ---- text ---- */

/* The object keeps at least this many columns when a name is cut for it. */
#define OBJ_MIN_W 10
/* Below this many columns for the name, the object is left out instead. */
#define NAME_MIN_W 12

/* Copy s into buf (sz bytes) with control characters shown as '?', so a
 * name holding a newline, a tab or an escape sequence cannot break the
 * table or reach the terminal (tdr_textout.h). */
static const char *printable(const char *s, char *buf, size_t sz)
{
	return tdr_text_safe(s, buf, sz);
}

/* s (cols columns, more than w > 3) in w columns cut in the middle: its
 * first keep columns whole (at most three quarters of the room), then two
 * fifths of what is left from the start and three fifths from the end. */
static void put_cut_middle(FILE *f, const char *s, size_t cols, size_t w, size_t keep)
{
	size_t avail = w - 3, head, tail;

	if (keep > avail - avail / 4)
		keep = avail - avail / 4;
	head = keep + (avail - keep) * 2 / 5;
	tail = avail - head;
	fwrite(s, 1, tdr_text_bytes_for_cols(s, head), f);
	fputs("...", f);
	fputs(s + tdr_text_bytes_for_cols(s, cols - tail), f);
}

void tdr_report_text_put_fit(FILE *f, const char *raw, size_t w, enum text_cut cut)
{
	char buf[2048];
	const char *s = printable(raw, buf, sizeof(buf));
	size_t cols = tdr_text_cols(s);

	if (cols <= w) {
		fputs(s, f);
		return;
	}
	if (w <= 3) {
		fwrite(s, 1, tdr_text_bytes_for_cols(s, w), f);
		return;
	}
	if (cut == CUT_START) {
		fputs("...", f);
		fputs(s + tdr_text_bytes_for_cols(s, cols - (w - 3)), f);
	} else if (cut == CUT_MIDDLE) {
		put_cut_middle(f, s, cols, w, 0);
	} else {
		fwrite(s, 1, tdr_text_bytes_for_cols(s, w - 3), f);
		fputs("...", f);
	}
}

/* The row name at one shortening level (tdr_report_text_row_name); returns its keep. */
static size_t row_name_at(char *buf, size_t sz, unsigned level, const char *prefix,
			  const char *name, const char *inlined_into)
{
	char a[1024], b[1024];
	const char *at;

	tdr_report_cxx_shorten(name, level, a, sizeof(a));
	if (inlined_into) {
		tdr_report_cxx_shorten(inlined_into, level, b, sizeof(b));
		snprintf(buf, sz, "%s (inlined into %s)", a, b);
		return tdr_text_cols(a);
	}
	if (prefix) {
		snprintf(buf, sz, "%s%s", prefix, a);
		return tdr_text_cols(prefix);
	}
	/* A versioned symbol keeps its name before its version
	 * ("clock_gettime@@GLIBC_2.17"). */
	snprintf(buf, sz, "%s", a);
	at = strchr(a, '@');
	if (!at || at == a)
		return 0;
	a[at - a] = '\0';
	return tdr_text_cols(a);
}

size_t tdr_report_text_row_name(char *buf, size_t sz, size_t fit, const char *prefix,
				const char *name, const char *inlined_into)
{
	size_t cols[REPORT_CXX_LEVELS], best = 0;
	unsigned level = 0;

	/* The first level that fits; else the first within half as much again
	 * (a cut in the middle still shows most of it); else the shortest. */
	for (level = 0; level < REPORT_CXX_LEVELS; level++) {
		row_name_at(buf, sz, level, prefix, name, inlined_into);
		cols[level] = tdr_text_cols(buf);
		if (cols[level] <= fit)
			break;
	}
	if (level == REPORT_CXX_LEVELS) {
		for (level = 0; level < REPORT_CXX_LEVELS && cols[level] > fit + fit / 2; level++)
			if (cols[level] < cols[best])
				best = level;
		if (level == REPORT_CXX_LEVELS)
			level = (unsigned)best;
	}
	return row_name_at(buf, sz, level, prefix, name, inlined_into);
}

size_t tdr_report_text_name_room(size_t w, const char *obj, const char *tag)
{
	size_t t = tag ? tdr_text_cols(tag) : 0, avail = w > t ? w - t : 0;
	size_t o = obj ? tdr_text_cols(obj) : 0, obj_w = o < OBJ_MIN_W ? o : OBJ_MIN_W;

	if (avail < obj_w + 2 + NAME_MIN_W)
		obj_w = 0;
	return avail - (obj_w ? obj_w + 2 : 0);
}

void tdr_report_text_put_name(FILE *f, size_t w, const char *name, size_t keep, const char *obj,
			      const char *tag, const char *on, const char *off)
{
	size_t n = tdr_text_cols(name), o = obj ? tdr_text_cols(obj) : 0;
	size_t t = tag ? tdr_text_cols(tag) : 0;
	size_t avail = w > t ? w - t : 0, obj_w = o;

	if (n + (o ? 2 + o : 0) > avail) {
		/* Too long: the object keeps what the whole name leaves, but at
		 * least OBJ_MIN_W columns (so it never disappears), and the name
		 * is cut; in a very narrow column the object goes. */
		size_t left = avail > n + 2 ? avail - n - 2 : 0;
		size_t name_min = n < NAME_MIN_W ? n : NAME_MIN_W;

		obj_w = o < OBJ_MIN_W ? o : left > OBJ_MIN_W ? left : OBJ_MIN_W;
		if (obj_w > o)
			obj_w = o;
		/* A short name needs only its own width: asking NAME_MIN_W of
		 * it dropped the object of short names while longer ones kept
		 * theirs. */
		if (avail < obj_w + 2 + name_min)
			obj_w = 0;
	}
	{
		char buf[2048];
		const char *p = printable(name, buf, sizeof(buf));
		size_t name_w = avail - (obj_w ? obj_w + 2 : 0);

		if (n <= name_w || name_w <= 3)
			tdr_report_text_put_fit(f, p, name_w, CUT_END);
		else
			put_cut_middle(f, p, tdr_text_cols(p), name_w, keep);
	}
	if (obj_w) {
		fputs("  ", f);
		fputs(on, f);
		tdr_report_text_put_fit(f, obj, obj_w, CUT_END);
		fputs(off, f);
	}
	if (t && w >= t)
		fputs(tag, f);
}

int tdr_report__render(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out)
{
	struct tdr_render_opts defaults = {0};
	int err;

	if (!r->finished)
		return -EINVAL;
	if (!o)
		o = &defaults;
	switch (o->fmt) {
	case TDR_FMT_TEXT:
		err = tdr_report_render_text(r, o, out);
		break;
	case TDR_FMT_JSON:
		err = tdr_report_render_json(r, o, out);
		break;
	case TDR_FMT_CSV:
		err = tdr_report_render_csv(r, o, out);
		break;
	default:
		return -EINVAL;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	return err;
}

bool tdr_report_duration(const struct tdr_report *r, uint64_t *ns, bool *from_samples)
{
	*from_samples = false;
	if (r->have_end && r->end.duration_ns) {
		*ns = r->end.duration_ns;
		return true;
	}
	if (r->first_ns <= r->last_ns) {
		*ns = r->last_ns - r->first_ns;
		*from_samples = true;
		return true;
	}
	return false;
}

const char *tdr_report_source_name(enum tdr_source_kind k)
{
	switch (k) {
	case TDR_SOURCE_TDR:
		return "tdr";
	case TDR_SOURCE_PERF_DATA:
		return "perf.data";
	case TDR_SOURCE_DIRECT:
		return "direct";
	}
	return "unknown";
}
