/*
 * tests/report/test_render.c - JSON, CSV and text output of reports.
 *
 * JSON is parsed back with a strict parser (json_mini.c) and its documented
 * keys are read; CSV is split with RFC 4180 quoting and every line must have
 * the header's number of fields; text lines must fit 100 columns when colour
 * is off, in every mode and plan, with long names and warnings.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_mini.h"
#include "report_fixture.h"

static const char long_name[] =
    "std::__detail::_Hashtable_base<std::basic_string<char>, std::pair<const std::basic_string"
    "<char>, int>, std::__detail::_Select1st>::_M_equals(const std::basic_string<char>&)";
static const char odd_name[] = "odd \"name\", with\ttab and \\ backslash\n";

static struct tdr_report *l2_report(struct fx_meta *m, enum tdr_report_by by)
{
	static char *argv[] = {
	    (char *)"tdrec", (char *)"record", (char *)"--", (char *)"./app with space",
	    (char *)"--size=1000000000000000000000"
		    "00000000000000000000000000000000000000000000000000000000000000000"};
	struct tdr_report_opts o;
	struct tdr_report *r;
	const uint64_t hot[EV_L2_CNT] = {
	    [EV_SLOTS] = 10000, [EV_RET] = 2000, [EV_BAD] = 500,   [EV_FE] = 1500, [EV_BE] = 6000,
	    [EV_HEAVY] = 100,	[EV_BRM] = 300,	 [EV_FLAT] = 1000, [EV_MEM] = 4500};
	const uint64_t mild[EV_L2_CNT] = {
	    [EV_SLOTS] = 1000, [EV_RET] = 700, [EV_BAD] = 100, [EV_FE] = 100, [EV_BE] = 100,
	    [EV_HEAVY] = 100,  [EV_BRM] = 50,  [EV_FLAT] = 50, [EV_MEM] = 50};
	struct tdr_row_key k = {.dso = "/usr/lib/x86_64-linux-gnu/libsomething-really-long.so.6"};

	fx_meta_l2(m);
	m->meta.argv = argv;
	m->meta.argc = 5;
	tdr_report_opts__init(&o);
	o.by = by;
	r = fx_report(m, &o);
	k.name = "compute_kernel";
	if (by == TDR_BY_INLINE)
		k.inlined_into = "a_very_long_function_name_that_it_was_inlined_into_for_testing";
	if (by == TDR_BY_LINE) {
		k.file = "/home/user/src/project/a/very/deep/directory/structure/kernel.c";
		k.line = 1234;
	}
	if (by == TDR_BY_THREAD || by == TDR_BY_PROCESS) {
		k.pid = 4242;
		k.tid = by == TDR_BY_THREAD ? 4243 : 0;
		k.dso = NULL;
	}
	assert_int_equal(tdr_report__add(r, &k, hot, 500), 0);
	k.name = long_name;
	assert_int_equal(tdr_report__add(r, &k, mild, 300), 0);
	k.name = odd_name;
	assert_int_equal(tdr_report__add(r, &k, mild, 10), 0);
	tdr_report__warn(r, "a long warning that goes on and on about lost samples in "
			    "/some/very/long/path/name/that/does/not/fit/on/one/line/at/all/"
			    "because/it/is/much/longer/than/a/hundred/columns/libx.so and more");
	assert_int_equal(tdr_report__finish(r), 0);
	return r;
}

static struct tdr_report *sw_report(struct fx_meta *m)
{
	struct tdr_report *r;
	const uint64_t d[SW_CNT] = {123456789012ull, 123456789000ull, 77, 5};
	const uint64_t small[SW_CNT] = {1000000, 1000000, 0, 0};

	fx_meta_sw(m);
	r = fx_report(m, NULL);
	fx_add(r, "main", "/usr/bin/app", d, 40);
	fx_add(r, long_name, "/usr/bin/app", small, 2);
	assert_int_equal(tdr_report__finish(r), 0);
	return r;
}

static void check_row_keys(const struct jm *row, bool topdown)
{
	assert_non_null(row);
	assert_int_equal(jm_get(row, "name")->t, JM_STR);
	assert_non_null(jm_get(row, "dso"));
	assert_int_equal(jm_get(row, "samples")->t, JM_NUM);
	assert_int_equal(jm_get(row, "share")->t, JM_NUM);
	assert_true(jm_get(row, "share")->num >= 0 && jm_get(row, "share")->num <= 1);
	assert_int_equal(jm_get(row, "events")->t, JM_OBJ);
	assert_int_equal(jm_get(row, "topdown")->t, topdown ? JM_OBJ : JM_NULL);
	assert_int_equal(jm_get(row, "out_of_range")->t, topdown ? JM_ARR : JM_NULL);
	assert_int_equal(jm_get(row, "low_confidence")->t, JM_BOOL);
	assert_non_null(jm_get(row, "slots_share"));
	assert_non_null(jm_get(row, "bottleneck"));
}

static void test_render__json_topdown_is_valid_with_documented_keys(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = l2_report(&m, TDR_BY_FUNCTION);
	char *out = fx_render(r, TDR_FMT_JSON, false, 0);
	struct jm *j = fx_json(out);
	const struct jm *rows = jm_get(j, "rows"), *row, *td, *rec;

	(void)state;
	assert_string_equal(jm_get(j, "schema")->str, "tdrec-report/1");
	rec = jm_get(j, "recording");
	assert_string_equal(jm_get(rec, "plan")->str, "topdown-l2");
	assert_string_equal(jm_get(rec, "host")->str, "testhost");
	assert_non_null(strstr(jm_get(rec, "command")->str, "'./app with space'"));
	assert_non_null(jm_get(rec, "cpu"));
	assert_non_null(jm_get(rec, "duration_ns"));
	assert_int_equal(jm_get(j, "warnings")->t, JM_ARR);
	assert_int_equal(jm_get(j, "warnings")->n, 1);
	check_row_keys(jm_get(j, "totals"), true);
	assert_int_equal(rows->n, 3);
	for (size_t i = 0; i < rows->n; i++)
		check_row_keys(jm_at(rows, i), true);
	row = jm_at(rows, 0);
	assert_string_equal(jm_get(row, "name")->str, "compute_kernel");
	assert_int_equal(jm_get(row, "samples")->num, 500);
	assert_true(fabs(jm_get(row, "share")->num - 500.0 / 810) < 1e-9);
	assert_int_equal(jm_get(jm_get(row, "events"), "slots")->num, 10000);
	assert_int_equal(jm_get(jm_get(row, "events"), "topdown-mem-bound")->num, 4500);
	td = jm_get(row, "topdown");
	assert_int_equal(td->n, CAT_L2_CNT);
	assert_true(fabs(jm_get(td, "be-bound")->num - 0.60) < 1e-9);
	assert_true(fabs(jm_get(td, "mem-bound")->num - 0.45) < 1e-9);
	assert_true(fabs(jm_get(td, "core-bound")->num - 0.15) < 1e-9);
	assert_string_equal(jm_get(row, "bottleneck")->str, "be-bound");
	assert_string_equal(jm_get(row, "bottleneck_l2")->str, "mem-bound");
	/* Control characters, quotes and backslashes survive the round trip. */
	row = jm_at(rows, 2);
	assert_string_equal(jm_get(row, "name")->str, odd_name);
	assert_true(jm_get(row, "low_confidence")->b);
	assert_int_equal(jm_get(j, "categories")->n, CAT_L2_CNT);
	jm_free(j);
	free(out);
	tdr_report__free(r);
}

static void test_render__json_software_plan_has_null_topdown(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = sw_report(&m);
	char *out = fx_render(r, TDR_FMT_JSON, false, 0);
	struct jm *j = fx_json(out);
	const struct jm *row = jm_at(jm_get(j, "rows"), 0), *ev;

	(void)state;
	check_row_keys(row, false);
	check_row_keys(jm_get(j, "totals"), false);
	ev = jm_get(row, "events");
	assert_int_equal(jm_get(ev, "cpu-clock")->num, 123456789012.0);
	assert_int_equal(jm_get(ev, "page-faults")->num, 77);
	assert_int_equal(jm_get(row, "slots_share")->t, JM_NULL);
	assert_int_equal(jm_get(j, "categories")->n, 0);
	assert_string_equal(jm_get(jm_at(jm_get(j, "events"), 0), "unit")->str, "ns");
	assert_string_equal(jm_get(jm_at(jm_get(j, "events"), 2), "unit")->str, "count");
	jm_free(j);
	free(out);
	tdr_report__free(r);
}

static void test_render__json_mode_specific_keys(void **state)
{
	struct fx_meta m;

	(void)state;
	for (int by = TDR_BY_FUNCTION; by <= TDR_BY_PROCESS; by++) {
		struct tdr_report *r = l2_report(&m, (enum tdr_report_by)by);
		char *out = fx_render(r, TDR_FMT_JSON, false, 2);
		struct jm *j = fx_json(out);
		const struct jm *row = jm_at(jm_get(j, "rows"), 0);

		assert_int_equal(jm_get(j, "rows")->n, 2); /* limit */
		assert_int_equal(jm_get(j, "rows_total")->num, 3);
		assert_string_equal(jm_get(j, "by")->str,
				    tdr_report_by_name((enum tdr_report_by)by));
		check_row_keys(row, true);
		assert_int_equal(jm_get(row, "inlined_into") != NULL, by == TDR_BY_INLINE);
		assert_int_equal(jm_get(row, "file") != NULL, by == TDR_BY_LINE);
		assert_int_equal(jm_get(row, "line") != NULL, by == TDR_BY_LINE);
		assert_int_equal(jm_get(row, "pid") != NULL,
				 by == TDR_BY_THREAD || by == TDR_BY_PROCESS);
		assert_int_equal(jm_get(row, "tid") != NULL, by == TDR_BY_THREAD);
		if (by == TDR_BY_INLINE)
			assert_string_equal(
			    jm_get(row, "inlined_into")->str,
			    "a_very_long_function_name_that_it_was_inlined_into_for_testing");
		if (by == TDR_BY_LINE)
			assert_int_equal(jm_get(row, "line")->num, 1234);
		if (by == TDR_BY_THREAD)
			assert_int_equal(jm_get(row, "tid")->num, 4243);
		jm_free(j);
		free(out);
		tdr_report__free(r);
	}
}

/* Split one CSV record (RFC 4180) starting at *p; returns the field count. */
static size_t csv_fields(const char **p, char fields[][512], size_t max)
{
	size_t n = 0;

	for (;;) {
		size_t len = 0;
		char *f = fields[n < max ? n : max - 1];

		if (**p == '"') {
			(*p)++;
			for (;;) {
				assert_true(**p != '\0');
				if (**p == '"' && (*p)[1] == '"') {
					f[len++] = '"';
					*p += 2;
				} else if (**p == '"') {
					(*p)++;
					break;
				} else {
					f[len++] = *(*p)++;
				}
				assert_true(len < 511);
			}
		} else {
			while (**p && **p != ',' && **p != '\n') {
				assert_true(**p != '"');
				f[len++] = *(*p)++;
				assert_true(len < 511);
			}
		}
		f[len] = '\0';
		n++;
		if (**p == ',') {
			(*p)++;
			continue;
		}
		assert_int_equal(**p, '\n');
		(*p)++;
		return n;
	}
}

static void test_render__csv_quotes_and_has_one_line_per_row(void **state)
{
	static char fields[64][512], header[64][512];
	struct fx_meta m;
	struct tdr_report *r = l2_report(&m, TDR_BY_FUNCTION);
	char *out = fx_render(r, TDR_FMT_CSV, false, 0);
	const char *p = out;
	size_t cols = csv_fields(&p, header, 64), lines = 0;
	bool saw_odd = false;

	(void)state;
	assert_int_equal(cols, 13 + CAT_L2_CNT + EV_L2_CNT);
	memcpy(fields, header, sizeof(fields));
	assert_string_equal(header[0], "kind");
	assert_string_equal(header[1], "name");
	assert_string_equal(header[9], "share");
	assert_string_equal(header[13], "topdown:retiring");
	assert_string_equal(header[13 + CAT_L2_CNT], "event:slots");
	while (*p) {
		assert_int_equal(csv_fields(&p, fields, 64), cols);
		assert_string_equal(fields[0], lines ? "row" : "total");
		/* Its tab is shown as '?' (a control character, issue 17). */
		if (!strcmp(fields[1], "odd \"name\", with?tab and \\ backslash?"))
			saw_odd = true;
		if (!strcmp(fields[1], "compute_kernel")) {
			assert_true(fabs(atof(fields[13 + CAT_BE]) - 0.6) < 1e-9);
			assert_string_equal(fields[12], "be-bound");
			assert_string_equal(fields[13 + CAT_L2_CNT], "10000");
		}
		lines++;
	}
	assert_int_equal(lines, 4); /* totals + 3 rows */
	assert_true(saw_odd);
	assert_non_null(strstr(out, "\"odd \"\"name\"\", with?tab"));
	free(out);
	tdr_report__free(r);
}

static void test_render__text_fits_100_columns_everywhere(void **state)
{
	struct fx_meta m;

	(void)state;
	for (int by = TDR_BY_FUNCTION; by <= TDR_BY_PROCESS; by++) {
		struct tdr_report *r = l2_report(&m, (enum tdr_report_by)by);
		char *out = fx_render(r, TDR_FMT_TEXT, false, 0);

		fx_assert_width(out, 100);
		assert_null(strchr(out, '\033'));
		/* Long names are cut in the middle, never the start of the
		 * row's name (nor the line of a --lines row)... */
		assert_non_null(
		    strstr(out, by == TDR_BY_LINE ? "kernel.c:1234 co" : "compute_kernel"));
		/* ... and the object does not disappear behind a long name. */
		if (by <= TDR_BY_LINE)
			for (const char *p = strstr(out, "std::__detail"); p; p = NULL) {
				const char *eol = strchr(p, '\n');

				assert_non_null(strstr(p, "  libsome"));
				assert_true(strstr(p, "  libsome") < eol);
			}
		free(out);
		tdr_report__free(r);
	}
	{
		struct tdr_report *r = sw_report(&m);
		char *out = fx_render(r, TDR_FMT_TEXT, false, 0);

		fx_assert_width(out, 100);
		free(out);
		tdr_report__free(r);
	}
}

/* Text at a width: the lines fit it, and a name too long for its column is
 * cut in the middle, so rows whose names differ only at the end (template
 * arguments, parameters, "inlined into f.constprop.3") or only at the start
 * stay apart; with no limit the names are whole. */
static char *render_width(const struct tdr_report *r, unsigned width)
{
	struct tdr_render_opts o = {.fmt = TDR_FMT_TEXT, .width = width};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(tdr_report__render(r, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The rendered line of the row whose name starts as name does and ends
 * (before "  app") with its last "::method(" and the parameters (whole or
 * "(...)"): the line is cut in the middle of the name. */
/* Not inlined: inlined into the loop that frees each output, gcc 12 -O3
 * warns of a dangling pointer that is not there (-Wdangling-pointer). */
__attribute__((noinline)) static bool has_cut_row(const char *out, const char *name)
{
	const char *method = strrchr(name, ':') + 1;
	char head[9], tail[64];

	snprintf(head, sizeof(head), "%s", name);
	snprintf(tail, sizeof(tail), "::%.*s", (int)(strchr(method, '(') - method + 1), method);
	/* this row, not another with the same start */
	for (const char *line = strstr(out, head); line; line = strstr(line + 1, head)) {
		const char *eol = strchr(line, '\n'), *t = strstr(line, tail),
			   *cut = strstr(line, "...");

		if (t && t < eol && cut && cut < t && strstr(t, ")  app\n") &&
		    strstr(t, ")  app\n") < eol)
			return true;
	}
	return false;
}

static void assert_cut_row(const char *out, const char *name)
{
	if (!has_cut_row(out, name))
		fail_msg("no row of '%s' cut in the middle and ending in '...)  app' in\n%s", name,
			 out);
}

/* The line of out holding needle, copied into buf. Not inlined: inlined
 * into the loop that frees each output, gcc 12 -O3 (aarch64) warns of a
 * dangling pointer that is not there. */
__attribute__((noinline)) static const char *line_with(const char *out, const char *needle,
						   char *buf, size_t sz)
{
	const char *p = strstr(out, needle), *b, *e;

	if (!p)
		return NULL;
	for (b = p; b > out && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	snprintf(buf, sz, "%.*s", (int)((e ? e : p + strlen(p)) - b), b);
	return buf;
}

/* A short name never loses its object where a longer one keeps its own:
 * at every width, if the long row shows the object, the short row does. */
static void test_render__short_names_keep_their_object(void **state)
{
	const uint64_t d[SW_CNT] = {1000000, 1000000, 1, 0};
	struct fx_meta m;
	struct tdr_report *r;
	char a[512], b[512];
	unsigned checked = 0;

	(void)state;
	fx_meta_sw(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "dense", "/opt/x/synthetic-object-with-a-long-name-for-this-test.so", d, 40);
	fx_add(r, "pointer_chase_everything", "/opt/x/synthetic-object-with-a-long-name-for-this-test.so", d, 40);
	assert_int_equal(tdr_report__finish(r), 0);
	for (unsigned w = TDR_RENDER_WIDTH_MIN; w <= 120; w++) {
		char *out = render_width(r, w);

		assert_non_null(line_with(out, "dense", a, sizeof(a)));
		/* Where the long name is cut in the middle, its row is "po...". */
		if (!line_with(out, "  po", b, sizeof(b)) || !strstr(b, "  synthetic")) {
			free(out);
			continue;
		}
		checked++;
		if (!strstr(a, "  synthetic"))
			fail_msg("width %u: the short row lost its object:\n%s\n%s", w, a, b);
		free(out);
	}
	assert_true(checked > 10);
	tdr_report__free(r);
}

static void test_render__text_width_and_middle_cut(void **state)
{
	static const char *const names[] = {
	    "geo::detail::Accumulator<double, std::allocator<double> >::step(int)",
	    "geo::detail::Accumulator<float, std::allocator<float> >::step(int)",
	    "geo::detail::Accumulator<float, std::allocator<float> >::reset(long)",
	    "other_ns::detail::Accumulator<float, std::allocator<float> >::step(int)",
	};
	const uint64_t d[SW_CNT] = {1000000, 1000000, 1, 0};
	struct fx_meta m;
	struct tdr_report *r;
	char *out;

	(void)state;
	fx_meta_sw(&m);
	r = fx_report(&m, NULL);
	for (size_t i = 0; i < 4; i++)
		fx_add(r, names[i], "/usr/bin/app", d, 40 + (unsigned)i);
	fx_add(r, "memcpy_impl@@GLIBC_2.2.5_and_a_very_long_version_string", "/usr/bin/app", d, 1);
	assert_int_equal(tdr_report__finish(r), 0);

	for (unsigned w = TDR_RENDER_WIDTH_MIN; w <= 120; w += 30) {
		out = render_width(r, w);
		fx_assert_width(out, w);
		for (size_t i = 0; i < 4; i++)
			assert_cut_row(out, names[i]);
		/* A versioned symbol keeps its name before its version. */
		assert_non_null(strstr(out, "  memcpy_impl@"));
		if (w >= 120) { /* room for the first template argument */
			assert_non_null(strstr(out, "Accumulator<double, ...>::step(...)  app\n"));
			assert_non_null(strstr(out, "Accumulator<float, ...>::step(...)  app\n"));
		}
		free(out);
	}
	/* Below the minimum: the minimum. */
	out = render_width(r, 10);
	fx_assert_width(out, TDR_RENDER_WIDTH_MIN);
	assert_non_null(strstr(out, "  app\n"));
	free(out);
	/* No limit: every name whole, followed by its object. */
	out = render_width(r, TDR_RENDER_WIDTH_MAX);
	for (size_t i = 0; i < 4; i++) {
		char whole[200];

		snprintf(whole, sizeof(whole), "%s  app\n", names[i]);
		assert_non_null(strstr(out, whole));
	}
	free(out);
	tdr_report__free(r);
}

/* Whole names (the output is not a terminal, no -w): every row's name and
 * object whole, while the prose (the long warning) still wraps at 100. */
static void test_render__text_whole_names(void **state)
{
	struct tdr_render_opts o = {.fmt = TDR_FMT_TEXT, .whole_names = true};
	struct fx_meta m;
	struct tdr_report *r = l2_report(&m, TDR_BY_FUNCTION);
	char *buf = NULL, whole[400];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(tdr_report__render(r, &o, f), 0);
	assert_int_equal(fclose(f), 0);
	snprintf(whole, sizeof(whole), "  %s  libsome", long_name);
	if (!strstr(buf, whole))
		fail_msg("no whole name in:\n%s", buf);
	/* The warning's lines: none over 100 columns. */
	for (const char *p = strstr(buf, "warning: a long warning"); p && *p != '\n' && *p;) {
		const char *eol = strchr(p, '\n');

		assert_true(eol - p <= 100);
		p = eol + 1;
		if (strncmp(p, "         ", 9))
			break;
	}
	free(buf);
	tdr_report__free(r);
}

/* The row of JSON report j named name, or NULL. */
static const struct jm *row_named_json(const struct jm *j, const char *name)
{
	const struct jm *rows = jm_get(j, "rows");

	for (size_t i = 0; rows && i < rows->n; i++)
		if (!strcmp(jm_get(jm_at(rows, i), "name")->str, name))
			return jm_at(rows, i);
	return NULL;
}

/* Long C++ names lose their least telling parts before they are cut:
 * return type, parameters, nested then all template arguments, stopping as
 * soon as the name fits; operators and "(anonymous namespace)" survive;
 * JSON keeps the full names. */
static void test_render__text_shortens_cxx_names(void **state)
{
#define ITER "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >"
	static const struct {
		const char *name, *shown;
	} cases[] = {
	    {"void std::__introsort_loop<" ITER ", long, __gnu_cxx::__ops::_Iter_less_iter>(" ITER
	     ", " ITER ", long, __gnu_cxx::__ops::_Iter_less_iter)",
	     "  std::__introsort_loop<...>(...)  app\n"},
	    {"void std::__final_insertion_sort<" ITER ", __gnu_cxx::__ops::_Iter_less_iter>(" ITER
	     ", " ITER ", __gnu_cxx::__ops::_Iter_less_iter)",
	     "  std::__final_insertion_sort<...>(...)  app\n"},
	    {"std::map<std::string, int, std::less<std::string>, "
	     "std::allocator<std::pair<std::string "
	     "const, int> > >::operator[](std::string const&)",
	     "  std::map<std::string, ...>::operator[](...)  app\n"},
	    {"bool operator< <int>(Foo<int, std::allocator<int> > const&, Foo<int, "
	     "std::allocator<int> > const&)",
	     "  operator< <int>(...)  app\n"},
	    {"operator new(unsigned long)", "  operator new(unsigned long)  app\n"},
	    {"(anonymous namespace)::helper(int)", "  (anonymous namespace)::helper(int)  app\n"},
	};
#undef ITER
	const uint64_t d[SW_CNT] = {1000000, 1000000, 1, 0};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct fx_meta m;
	struct tdr_report *r;
	struct jm *j;
	char *out;

	(void)state;
	fx_meta_sw(&m);
	r = fx_report(&m, NULL);
	for (size_t i = 0; i < n; i++)
		fx_add(r, cases[i].name, "/usr/bin/app", d, 40 + (unsigned)i);
	assert_int_equal(tdr_report__finish(r), 0);
	out = render_width(r, 120);
	fx_assert_width(out, 120);
	for (size_t i = 0; i < n; i++) {
		if (!strstr(out, cases[i].shown))
			print_error("no '%s' in\n%s", cases[i].shown, out);
		assert_non_null(strstr(out, cases[i].shown));
	}
	free(out);
	out = fx_render(r, TDR_FMT_JSON, false, 0);
	j = jm_parse(out, NULL);
	assert_non_null(j);
	for (size_t i = 0; i < n; i++)
		assert_non_null(row_named_json(j, cases[i].name));
	jm_free(j);
	free(out);
	tdr_report__free(r);
}

/* perf.data files bring perf's dummy event (side-band records only) and any
 * number of events: the text table leaves out the dummy, shows as many
 * event columns as leave names room, and says how many more JSON has. */
static void test_render__text_event_columns_dummy_and_overflow(void **state)
{
	static const struct {
		const char *name;
		uint64_t config;
	} more[] = {
	    {"dummy:HG", PERF_COUNT_SW_DUMMY},
	    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
	    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	};
	const uint64_t d[8] = {1000000, 1000000, 1, 2, 3, 4, 5, 6};
	struct fx_meta m;
	struct tdr_report *r;
	char *out, *header;
	struct jm *j;

	(void)state;
	fx_meta_sw(&m);
	for (size_t i = 0; i < 4; i++) {
		struct tdr_event_desc *e = &m.events[m.meta.event_cnt++];

		*e = m.events[1];
		e->name = (char *)more[i].name;
		e->attr.config = more[i].config;
	}
	r = fx_report(&m, NULL);
	fx_add(r, "f", "/bin/x", d, 40);
	assert_int_equal(tdr_report__finish(r), 0);
	out = fx_render(r, TDR_FMT_TEXT, false, 0);
	fx_assert_width(out, 100);
	header = strstr(out, " samples ");
	assert_non_null(header);
	assert_null(strstr(out, "dummy"));
	assert_non_null(strstr(header, "cpu-ms"));
	/* 7 events count something; 4 columns leave the names 30 columns or more. */
	assert_non_null(strstr(out, "3 more events do not fit here: see --json or --csv"));
	free(out);
	out = fx_render(r, TDR_FMT_JSON, false, 0);
	j = jm_parse(out, NULL);
	assert_non_null(j);
	assert_int_equal(jm_get(j, "events")->n, 8);
	assert_int_equal(jm_get(jm_get(jm_at(jm_get(j, "rows"), 0), "events"), "dummy:HG")->num, 3);
	jm_free(j);
	free(out);
	tdr_report__free(r);
}

/* perf.data event names carry modifiers ("cpu-clock:ppp" for perf record's
 * default event): the column still gets its short label and unit. */
static void test_render__text_event_labels_ignore_modifiers(void **state)
{
	const uint64_t d[SW_CNT] = {2000000, 1000000, 3, 0};
	struct fx_meta m;
	struct tdr_report *r;
	char *out, *header;

	(void)state;
	fx_meta_sw(&m);
	m.events[0].name = (char *)"cpu-clock:ppp";
	m.events[1].name = (char *)"task-clock:u";
	m.events[2].name = (char *)"page-faults/period=1/";
	r = fx_report(&m, NULL);
	fx_add(r, "f", "/bin/x", d, 40);
	assert_int_equal(tdr_report__finish(r), 0);
	out = fx_render(r, TDR_FMT_TEXT, false, 0);
	header = strstr(out, " samples ");
	assert_non_null(header);
	for (const char *const *l = (const char *const[]){"cpu-ms", "task-ms", "faults", NULL}; *l;
	     l++) {
		const char *p = strstr(header, *l);

		assert_non_null(p);
		assert_true(p < strchr(header, '\n'));
	}
	assert_non_null(strstr(out, "cpu-ms = cpu-clock:ppp (ms)"));
	assert_non_null(strstr(out, "     2.0 ")); /* 2,000,000 ns in ms */
	free(out);
	/* --sort takes the name without modifiers, or the label. */
	{
		struct tdr_report_sort s;

		assert_int_equal(tdr_report__parse_sort(r, "cpu-clock", &s), 0);
		assert_int_equal(s.key, TDR_SORT_EVENT);
		assert_int_equal(s.idx, 0);
		assert_int_equal(tdr_report__parse_sort(r, "task-ms", &s), 0);
		assert_int_equal(s.idx, 1);
		assert_int_not_equal(tdr_report__parse_sort(r, "cpu", &s), 0);
	}
	tdr_report__free(r);
}

static void test_render__text_shows_markers_and_units(void **state)
{
	struct fx_meta m;
	struct tdr_report *r = l2_report(&m, TDR_BY_FUNCTION);
	char *out = fx_render(r, TDR_FMT_TEXT, false, 0);
	const char *line;

	(void)state;
	/* compute_kernel: be-bound 60.0% is its bottleneck, mem-bound 45.0% below it. */
	line = strstr(out, "     500 ");
	assert_non_null(line);
	assert_non_null(strstr(line, " 60.0*"));
	assert_non_null(strstr(line, "mem 45.0*"));
	assert_non_null(strstr(out, "      10~")); /* 10 samples: low confidence */
	assert_non_null(strstr(out, "testhost, Test CPU (family 6 model 143)"));
	assert_non_null(strstr(out, "warning: a long warning"));
	/* Names with control characters cannot break lines (the name is cut
	 * in the middle: its start and its end, the newline, show). */
	assert_non_null(strstr(out, "odd \"nam"));
	assert_non_null(strstr(out, "backslash?  "));
	assert_null(strchr(out, '\t'));
	free(out);
	out = fx_render(r, TDR_FMT_TEXT, true, 1);
	assert_non_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "2 more rows not shown"));
	free(out);
	tdr_report__free(r);

	r = sw_report(&m);
	out = fx_render(r, TDR_FMT_TEXT, false, 0);
	/* 123456789012 ns of cpu-clock = 123456.8 ms; 1 ms for the small row. */
	assert_non_null(strstr(out, " 123456.8 "));
	assert_non_null(strstr(out, "      1.0 "));
	assert_non_null(strstr(out, "cpu-ms = cpu-clock (ms)"));
	assert_non_null(strstr(out, "  main  app\n")); /* object basename after the name */
	assert_non_null(strstr(out, "no TopDown"));
	assert_null(strstr(out, "Retire"));
	free(out);
	tdr_report__free(r);
}

static void test_render__unfinished_report_is_refused(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	struct tdr_render_opts o = {.fmt = TDR_FMT_JSON};
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void)state;
	fx_meta_sw(&m);
	r = fx_report(&m, NULL);
	assert_int_equal(tdr_report__render(r, &o, f), -EINVAL);
	fclose(f);
	free(buf);
	tdr_report__free(r);
}

/* A generic formula can leave [0, 1]: the value is printed as computed with
 * '!' (never '*'), one warning says why, JSON lists the category, and the
 * split bar leaves the negative value out. c0 = (2a - b) / 4b. */
static void test_render__out_of_range_values_are_flagged(void **state)
{
	struct fx_meta m;
	struct tdr_report *r;
	const uint64_t neg[] = {100, 400};  /* (200 - 400) / 1600 = -12.5% */
	const uint64_t over[] = {700, 200}; /* (1400 - 200) / 800 = 150% */
	const uint64_t ok[] = {300, 400};   /* (600 - 400) / 1600 = 12.5% */
	struct jm *j;
	const struct jm *rows, *w;
	char *out;
	size_t warned = 0;

	(void)state;
	fx_meta_generic(&m);
	r = fx_report(&m, NULL);
	fx_add(r, "negf", NULL, neg, 40);
	fx_add(r, "overf", NULL, over, 40);
	fx_add(r, "okf", NULL, ok, 40);
	assert_int_equal(tdr_report__finish(r), 0);
	out = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(out, "-12.5! "));
	assert_non_null(strstr(out, "150.0! "));
	assert_non_null(strstr(out, " 12.5  "));
	assert_non_null(strstr(out, "2 rows have a category below 0% or above 100%"));
	assert_null(strstr(strstr(out, "2 rows have") + 1, "2 rows have")); /* once */
	free(out);
	out = fx_render(r, TDR_FMT_JSON, false, 0);
	j = jm_parse(out, NULL);
	assert_non_null(j);
	rows = jm_get(j, "rows");
	for (size_t i = 0; i < rows->n; i++) {
		const struct jm *row = jm_at(rows, i), *o = jm_get(row, "out_of_range");

		assert_int_equal(o->t, JM_ARR);
		if (!strcmp(jm_get(row, "name")->str, "okf")) {
			assert_int_equal(o->n, 0);
		} else {
			assert_int_equal(o->n, 1);
			assert_string_equal(jm_at(o, 0)->str, m.cats[0].name);
		}
	}
	/* Totals: (2*1100 - 1000) / 4000 = 30%, in range. */
	assert_int_equal(jm_get(jm_get(j, "totals"), "out_of_range")->n, 0);
	w = jm_get(j, "warnings");
	for (size_t i = 0; i < w->n; i++)
		warned += strstr(jm_at(w, i)->str, "below 0%") != NULL;
	assert_int_equal(warned, 1);
	jm_free(j);
	free(out);
	tdr_report__free(r);
}

/* Labels of an event list, checked one by one and for being distinct. */
static void check_labels(const char *const *names, const char *const *want, size_t cnt)
{
	char *labels[16] = {0};

	assert_int_equal(tdr_report_event_labels((char *const *)names, cnt, labels), 0);
	for (size_t i = 0; i < cnt; i++) {
		assert_string_equal(labels[i], want[i]);
		assert_true(strlen(labels[i]) <= REPORT_EV_LABEL_W);
		for (size_t k = 0; k < i; k++)
			assert_string_not_equal(labels[i], labels[k]);
	}
	for (size_t i = 0; i < cnt; i++)
		free(labels[i]);
}

/* AMD's three de_no_dispatch_per_slot events used to print as one label
 * (a plain 8-column cut); perf's other long names must stay apart too. */
static void test_render__event_labels_are_distinct(void **state)
{
	const char *const amd[] = {
	    "cycles", "de_no_dispatch_per_slot.no_ops_from_frontend",
	    "de_no_dispatch_per_slot.backend_stalls", "de_no_dispatch_per_slot.smt_contention",
	    "de_src_op_disp.all", "ex_ret_ops", "ls_not_halted_cyc"};
	const char *const amd_want[] = {"cycles",   "no_ops_f", "backend", "smt_cont",
					"disp.all", "ex_ret_o", "ls_not_h"};
	const char *const perf[] = {"stalled-cycles-frontend", "stalled-cycles-backend",
				    "instructions:u", "instructions:k", "L1-dcache-load-misses",
				    "L1-dcache-loads", "cpu_core/topdown-retiring/",
				    "cpu-clock:ppp", "page-faults/period=1/", "branch-misses"};
	const char *const perf_want[] = {"frontend", "backend", "instru:u", "instru:k",
					 "load-mis", "loads",	 "topdown", "cpu-ms",
					 "faults",   "branch-m"};
	/* Names alike up to their last characters: numbered by position. */
	const char *const same[] = {"abcdefghij_x1", "abcdefghij_x2", "abcdefghij"};
	const char *const same_want[] = {"abcdef~1", "abcdef~2", "abcdef~3"};

	(void)state;
	check_labels(amd, amd_want, 7);
	check_labels(perf, perf_want, 10);
	check_labels(same, same_want, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render__json_topdown_is_valid_with_documented_keys),
	    cmocka_unit_test(test_render__json_software_plan_has_null_topdown),
	    cmocka_unit_test(test_render__json_mode_specific_keys),
	    cmocka_unit_test(test_render__csv_quotes_and_has_one_line_per_row),
	    cmocka_unit_test(test_render__text_fits_100_columns_everywhere),
	    cmocka_unit_test(test_render__text_width_and_middle_cut),
	    cmocka_unit_test(test_render__text_whole_names),
	    cmocka_unit_test(test_render__short_names_keep_their_object),
	    cmocka_unit_test(test_render__text_shortens_cxx_names),
	    cmocka_unit_test(test_render__text_event_columns_dummy_and_overflow),
	    cmocka_unit_test(test_render__text_event_labels_ignore_modifiers),
	    cmocka_unit_test(test_render__text_shows_markers_and_units),
	    cmocka_unit_test(test_render__unfinished_report_is_refused),
	    cmocka_unit_test(test_render__out_of_range_values_are_flagged),
	    cmocka_unit_test(test_render__event_labels_are_distinct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
