/*
 * tests/export/test_export_unit.c - export's format names, and the html page
 * against names that try to end its script.
 *
 * The profile is built by hand (export_int.h) around a report of an empty
 * schema: one stack whose function, object and thread names are HTML and
 * "</script>", so the test needs no recording and no symbolizer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export_int.h"
#include "tdrec/tdr_err.h"

static void test_format_names(void **state)
{
	enum tdr_export_format f;

	(void)state;
	assert_int_equal(tdr_export_format_from_path("a/b.pb.gz", &f), 0);
	assert_int_equal(f, TDR_EXPORT_PPROF);
	assert_int_equal(tdr_export_format_from_path("x.PPROF", &f), 0);
	assert_int_equal(f, TDR_EXPORT_PPROF);
	assert_int_equal(tdr_export_format_from_path("x.folded", &f), 0);
	assert_int_equal(f, TDR_EXPORT_FOLDED);
	assert_int_equal(tdr_export_format_from_path("x.speedscope.json", &f), 0);
	assert_int_equal(f, TDR_EXPORT_SPEEDSCOPE);
	assert_int_equal(tdr_export_format_from_path("x.html", &f), 0);
	assert_int_equal(f, TDR_EXPORT_HTML);
	assert_int_equal(tdr_export_format_from_path("x.txt", &f), -TDR_E_USAGE);
	assert_int_equal(tdr_export_format_from_path("gz", &f), -TDR_E_USAGE);
	for (int i = 0; i < TDR_EXPORT_FORMAT_CNT; i++) {
		assert_int_equal(tdr_export_format_parse(tdr_export_format_name(i), &f), 0);
		assert_int_equal(f, i);
	}
	assert_int_equal(tdr_export_format_parse("svg", &f), -TDR_E_USAGE);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

#define EVIL "</script><img src=x onerror=alert(1)>"

static void test_html_names_stay_inside_the_script(void **state)
{
	struct tdr_meta meta = {0};
	struct tdr_profile *p = calloc(1, sizeof(*p));
	char *out = NULL;
	size_t sz = 0;
	FILE *f;

	(void)state;
	assert_non_null(p);
	assert_int_equal(tdr_report__new_schema(&meta, &p->rules), 0);
	p->timeline = true;
	p->value_cnt = 1;
	p->values = calloc(1, sizeof(*p->values));
	p->values[0] = (struct ex_value){EXV_SAMPLES, 0, "samples", "count"};
	p->command = strdup("run " EVIL);
	p->plan = strdup("software");
	p->host = strdup("h");
	assert_true(tdr_export_func(p, EVIL, "/lib/" EVIL ".so", "</SCRIPT>.c") == 0);
	p->lines = calloc(1, sizeof(*p->lines));
	p->line_cnt = p->line_cap = 1;
	p->locs = calloc(1, sizeof(*p->locs));
	p->loc_cnt = p->loc_cap = 1;
	p->locs[0].line_cnt = 1;
	p->stack_locs = calloc(1, sizeof(*p->stack_locs));
	p->stack_loc_cnt = p->stack_loc_cap = 1;
	p->stacks = calloc(1, sizeof(*p->stacks));
	p->stack_cnt = p->stack_cap = 1;
	p->stacks[0] = (struct ex_stack){0, 1, 0, 3};
	p->threads = calloc(1, sizeof(*p->threads));
	p->thread_cnt = p->thread_cap = 1;
	p->threads[0] = (struct ex_thread){7, 7, EVIL};
	p->smp = calloc(3, sizeof(*p->smp));
	p->smp_cnt = p->smp_cap = 3;
	for (int i = 0; i < 3; i++)
		p->smp[i] = (struct ex_sample){1000u * (unsigned)i, 7, 0, true};
	p->first_ns = 0;
	p->last_ns = 2000;

	f = open_memstream(&out, &sz);
	assert_non_null(f);
	assert_int_equal(tdr_export_html(p, f), 0);
	fclose(f);
	/* The page's own two script elements end, nothing else does. */
	assert_int_equal(count(out, "</script>"), 2);
	assert_int_equal(count(out, "</SCRIPT>"), 0);
	assert_true(count(out, "<\\/script><img src=x onerror=alert(1)>") >= 3);
	assert_non_null(strstr(out, "\"cells\""));
	assert_non_null(strstr(out, "[0, 0, 0, 1]")); /* bucket 0, thread 0, stack 0: 1 sample */
	free(out);
	/* Without the timeline the page cannot be drawn. */
	p->timeline = false;
	f = open_memstream(&out, &sz);
	assert_int_equal(tdr_export_html(p, f), -EINVAL);
	fclose(f);
	free(out);
	p->threads[0].comm = NULL;
	free(p->values);
	p->values = NULL;
	p->value_cnt = 0;
	tdr_profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_names),
	    cmocka_unit_test(test_html_names_stay_inside_the_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
