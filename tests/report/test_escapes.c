/*
 * tests/report/test_escapes.c - a recording made to attack the reader's
 * terminal (issue 17, finding 4): the program's path holds an OSC title
 * sequence, BEL, a colour CSI and a C1 CSI (U+009B), its argument a clear
 * screen. Every text output that shows them ('info', 'report' text and
 * CSV, by function and by object, 'diff', the warnings on stderr) must
 * show those characters as '?' (docs/security.md), and still name the
 * object; JSON keeps them exactly, escaped as \u001b.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* The hostile name as bytes, and as every text output must show it. */
#define EVIL_PRINTF "evil\\033]0;owned\\007\\033[31m\\302\\233"
#define EVIL_SHOWN "evil?]0;owned??[31m?"

static char dir[64];
static const char *tdrec;

/* Run a shell script (with $T = tdrec, $D = the directory), its stdout
 * and stderr into $D/out; returns its exit status and the output. */
static int sh(char **out, size_t *out_sz, const char *script)
{
	char cmd[512], path[128];
	FILE *f;
	long n;
	int st;

	/* The script as a file: no quoting of its quotes. */
	snprintf(path, sizeof(path), "%s/script", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "T='%s' D='%s' sh '%s' >'%s/out' 2>&1", tdrec, dir, path, dir);
	st = system(cmd);
	snprintf(path, sizeof(path), "%s/out", dir);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*out = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(*out, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*out_sz = (size_t)n;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* No byte a terminal takes as a control, except line breaks. */
static void expect_clean(const char *what, const char *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		bool ctrl = (c < 0x20 && c != '\n') || c == 0x7f ||
			    (c == 0xc2 && i + 1 < n && (unsigned char)out[i + 1] >= 0x80 &&
			     (unsigned char)out[i + 1] < 0xa0);

		if (ctrl)
			fail_msg("%s: control byte 0x%02x at %zu in:\n%s", what, c, i, out);
	}
}

static void test_escapes__every_text_output(void **state)
{
	const char *bin = getenv("TDR_BINARY_DIR");
	char script[2048], *out;
	size_t n;
	int st;

	(void)state;
	tdrec = getenv("TDREC");
	if (!tdrec || !bin)
		skip();
	snprintf(dir, sizeof(dir), "/tmp/tdrec-escapes-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof(script),
		 "E=\"$D/$(printf \"" EVIL_PRINTF "\")\" && cp %s/examples/hotloop \"$E\" && "
		 "TDREC_CACHE_DIR= $T record -q --plan software -o $D/h.tdr -- "
		 "sh -c 'exec \"$0\" 1' \"$E\" \"$(printf \"arg\\033[2J\")\"",
		 bin);
	st = sh(&out, &n, script);
	if (st && strstr(out, "perf_event_paranoid"))
		skip();
	if (st)
		print_error("%s\n", out);
	assert_int_equal(st, 0);
	free(out);

	/* info: the command line. */
	assert_int_equal(sh(&out, &n, "$T info $D/h.tdr"), 0);
	expect_clean("info", out, n);
	assert_non_null(strstr(out, EVIL_SHOWN));
	assert_non_null(strstr(out, "arg?[2J"));
	free(out);

	/* report, text and CSV, by function and by object. */
	assert_int_equal(sh(&out, &n, "$T report -i $D/h.tdr --color always -w 0"), 0);
	expect_clean("report", out + 0, 0); /* colours are ours: checked below */
	assert_null(strstr(out, "\033]"));
	assert_null(strstr(out, "\a"));
	assert_null(strstr(out, "\302\233"));
	assert_null(strstr(out, "\033[2J"));
	assert_non_null(strstr(out, EVIL_SHOWN));
	free(out);
	assert_int_equal(sh(&out, &n, "$T report -i $D/h.tdr --color never -w 0"), 0);
	expect_clean("report text", out, n);
	free(out);
	assert_int_equal(sh(&out, &n, "$T report -i $D/h.tdr --csv"), 0);
	expect_clean("report --csv", out, n);
	assert_non_null(strstr(out, EVIL_SHOWN));
	free(out);
	assert_int_equal(sh(&out, &n, "$T report -i $D/h.tdr --csv --by dso"), 0);
	expect_clean("report --csv --by dso", out, n);
	assert_non_null(strstr(out, EVIL_SHOWN));
	free(out);

	/* diff of the recording with itself. */
	assert_int_equal(sh(&out, &n, "$T diff -w 0 $D/h.tdr $D/h.tdr"), 0);
	expect_clean("diff", out, n);
	free(out);

	/* Warnings on stderr name the object: the binary is gone now. */
	assert_int_equal(sh(&out, &n, "rm -f \"$D\"/evil* && $T report -i $D/h.tdr --color never"),
			 0);
	expect_clean("report warnings", out, n);
	assert_non_null(strstr(out, EVIL_SHOWN));
	free(out);

	/* JSON keeps the bytes, escaped. */
	assert_int_equal(sh(&out, &n, "$T info --json $D/h.tdr"), 0);
	expect_clean("info --json", out, n);
	assert_non_null(strstr(out, "\\u001b[2J"));
	free(out);
	{
		char rm[128];

		snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
		assert_int_equal(system(rm), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes__every_text_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
