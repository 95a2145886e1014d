/*
 * tests/report/test_archive_e2e.c - archived recordings report the same
 * whatever happens to the binaries (docs/symbolize.md "Archived symbols").
 *
 * A program with two functions and an inlined helper, built with -O2 -g
 * in a temporary directory, is recorded with the software plan. Its
 * report, report --inline and report --lines (stdout, byte for byte) are
 * taken while the binary is there; after `tdrec archive` they must be
 * identical, and stay identical after the binary is rebuilt from other
 * code with other options (-O1, no -g), after it is deleted, and after
 * the recording is moved to another directory. The same recording
 * without its archive shows `[changed]` and `[unknown]` there, which
 * shows each check can fail. A diff of the old build's archived profile
 * against the rebuilt program's names the functions on both sides, with
 * no `[changed]` row. `info` says whether a file is archived. A perf.data
 * (a bundled example, and one perf records here) converted into an
 * archived .tdr reports the same rows as the perf.data, also after the
 * binary is gone. A --call-graph dwarf recording keeps its stack views
 * (--children, --callers, --callees) after a rebuild and a deletion: its
 * unwound stacks are archived too (docs/format.md 7.2 "Stacks").
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/test_run.h"

struct env {
	char dir[64];
	const char *tdrec;
};

/* The program: work() (with an always-inline helper) and other(); VARIANT
 * changes the code of other() for the rebuild. */
static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"static inline __attribute__((always_inline)) double inner(double x)\n"
	"{\n"
	"\tfor (int i = 0; i < 40; i++)\n"
	"\t\tx = x * 1.0000001 + 0.5;\n"
	"\treturn x;\n"
	"}\n"
	"__attribute__((noinline)) double work(long n)\n"
	"{\n"
	"\tdouble s = 0;\n"
	"\tfor (long i = 0; i < n; i++)\n"
	"\t\ts += inner((double)i);\n"
	"\treturn s;\n"
	"}\n"
	"__attribute__((noinline)) double other(long n)\n"
	"{\n"
	"\tdouble s = 1;\n"
	"\tfor (long i = 0; i < n; i++)\n"
	"\t\ts = s * VARIANT + (double)i;\n"
	"\treturn s;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tlong n = argc > 1 ? atol(argv[1]) : 1;\n"
	"\tprintf(\"%f %f\\n\", work(n * 400000), other(n * 4000000));\n"
	"\treturn 0;\n"
	"}\n";

static void build(const struct env *e, const char *variant, const char *cflags)
{
	char *out = NULL;
	FILE *f;
	char path[256];

	snprintf(path, sizeof(path), "%s/app.c", e->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(prog_src, f);
	fclose(f);
	if (test_run(&out, "cd '%s' && cc %s -DVARIANT=%s -o app app.c 2>&1", e->dir, cflags,
		variant)) {
		print_error("cc failed: %s\n", out);
		fail();
	}
	free(out);
}

/* Record ./app into file with tdrec's options opts. */
static void record(const struct env *e, const char *opts, const char *file)
{
	char *out = NULL;
	int st = test_run(&out, "cd '%s' && '%s' record -q %s -o %s -- ./app 3 2>&1", e->dir, e->tdrec,
		     opts, file);

	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip();
	}
	if (st)
		print_error("tdrec record failed (%d): %s\n", st, out);
	assert_int_equal(st, 0);
	free(out);
}

/* stdout of 'tdrec report -i FILE MODE' run in dir (caller frees). Not
 * inlined: gcc 12 at -O2, inlining it into rows_of's callers, takes the
 * text it returns for its local out (a false -Wdangling-pointer). */
static __attribute__((noinline)) char *report(const struct env *e, const char *dir, const char *file, const char *mode)
{
	char *out = NULL;

	assert_int_equal(test_run(&out, "cd '%s' && '%s' report -i %s %s 2>/dev/null", dir, e->tdrec,
			     file, mode),
			 0);
	return out;
}

static const char *const modes[] = {"", "--inline", "--lines"};

struct snap {
	char *text[3];
};

static void take(const struct env *e, const char *dir, const char *file, struct snap *s)
{
	for (int m = 0; m < 3; m++)
		s->text[m] = report(e, dir, file, modes[m]);
}

static void same(const struct snap *a, const struct snap *b, const char *when)
{
	for (int m = 0; m < 3; m++)
		if (strcmp(a->text[m], b->text[m])) {
			print_error("report %s differs %s:\n--- before\n%s\n--- now\n%s\n", modes[m],
				    when, a->text[m], b->text[m]);
			fail();
		}
}

static void release(struct snap *s)
{
	for (int m = 0; m < 3; m++)
		free(s->text[m]);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->tdrec = getenv("TDREC");
	if (!e->tdrec) {
		fprintf(stderr, "TDREC must be set (run through ctest)\n");
		free(e);
		return -1;
	}
	snprintf(e->dir, sizeof(e->dir), "/tmp/tdrec-archive-e2e-XXXXXX");
	if (!mkdtemp(e->dir)) {
		free(e);
		return -1;
	}
	/* perf's build-id cache must not rescue the unarchived file. */
	setenv("HOME", e->dir, 1);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	test_run(NULL, "rm -rf '%s'", e->dir);
	free(e);
	return 0;
}

static void test_archive_e2e__rows_survive_rebuild_delete_and_move(void **state)
{
	struct env *e = *state;
	struct snap live, now, plain;
	char *out = NULL, moved[128];

	build(e, "0.999", "-O2 -g");
	record(e, "--no-archive", "old.tdr");
	assert_int_equal(test_run(NULL, "cd '%s' && cp old.tdr plain.tdr", e->dir), 0);
	take(e, e->dir, "old.tdr", &live);
	assert_non_null(strstr(live.text[0], " work "));
	assert_non_null(strstr(live.text[1], "inner"));
	assert_non_null(strstr(live.text[2], "app.c:"));

	/* Not archived yet: info says so. */
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info old.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "symbols:     not archived"));
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive old.tdr 2>&1", e->dir, e->tdrec), 0);
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info old.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "symbols:     archived: "));
	free(out);

	/* Right after archiving. */
	take(e, e->dir, "old.tdr", &now);
	same(&live, &now, "right after archiving");
	release(&now);
	assert_int_equal(test_run(NULL, "cd '%s' && '%s' export -i old.tdr -o live.folded", e->dir,
			     e->tdrec),
			 0);

	/* Rebuilt from other code with other options. */
	build(e, "0.998", "-O1");
	take(e, e->dir, "old.tdr", &now);
	same(&live, &now, "after the binary was rebuilt");
	release(&now);
	/* ... and the report did not open the rebuilt binary (which would
	 * say its build-id differs): every address is archived. */
	for (int m = 0; m < 3; m++) {
		assert_int_equal(test_run(&out, "cd '%s' && '%s' report -i old.tdr %s 2>&1 >/dev/null",
				     e->dir, e->tdrec, modes[m]),
				 0);
		if (strstr(out, "differs") || strstr(out, "files on disk")) {
			print_error("report %s of an archived file looked at the binary:\n%s\n",
				    modes[m], out);
			fail();
		}
		free(out);
	}
	take(e, e->dir, "plain.tdr", &plain);
	assert_non_null(strstr(plain.text[0], "[changed]"));
	release(&plain);

	/* Deleted. */
	assert_int_equal(test_run(NULL, "rm '%s/app'", e->dir), 0);
	take(e, e->dir, "old.tdr", &now);
	same(&live, &now, "after the binary was deleted");
	release(&now);
	take(e, e->dir, "plain.tdr", &plain);
	assert_non_null(strstr(plain.text[0], "[unknown]"));
	release(&plain);
	/* The export names the same functions from the archive. */
	assert_int_equal(test_run(NULL,
			     "cd '%s' && '%s' export -i old.tdr -o gone.folded && "
			     "cmp -s live.folded gone.folded && grep -q work gone.folded",
			     e->dir, e->tdrec),
			 0);

	/* Moved to another directory (same name, so the header is the same). */
	snprintf(moved, sizeof(moved), "%s/elsewhere", e->dir);
	assert_int_equal(test_run(NULL, "mkdir '%s' && mv '%s/old.tdr' '%s/'", moved, e->dir, moved), 0);
	take(e, moved, "old.tdr", &now);
	same(&live, &now, "after the recording was moved");
	release(&now);
	release(&live);
	assert_int_equal(test_run(NULL, "mv '%s/old.tdr' '%s/'", moved, e->dir), 0);
}

/* A .tdr archived to another file (-o): the source is untouched. */
static void test_archive_e2e__output_elsewhere_and_errors(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	build(e, "0.999", "-O2 -g");
	record(e, "--no-archive", "src.tdr");
	assert_int_equal(test_run(NULL, "cd '%s' && cp src.tdr src-copy.tdr", e->dir), 0);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive -o dst.tdr src.tdr 2>&1", e->dir,
			     e->tdrec),
			 0);
	assert_non_null(strstr(out, "dst.tdr: symbols of "));
	free(out);
	assert_int_equal(test_run(NULL, "cd '%s' && cmp src.tdr src-copy.tdr", e->dir), 0);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info dst.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "symbols:     archived: "));
	free(out);
	/* Bad input: one line naming the file, exit 1; usage: exit 2. */
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive app.c 2>&1", e->dir, e->tdrec), 1);
	assert_non_null(strstr(out, "tdrec archive: app.c: "));
	assert_null(strchr(strchr(out, '\n') + 1, '\n'));
	free(out);
	assert_int_equal(test_run(&out, "'%s' archive 2>&1", e->tdrec), 2);
	free(out);
	assert_int_equal(test_run(&out, "'%s' archive --bogus x 2>&1", e->tdrec), 2);
	free(out);
	/* A truncated recording is refused, and left as it was. */
	assert_int_equal(test_run(NULL, "cd '%s' && head -c 2000 src.tdr > cut.tdr && cp cut.tdr "
				   "cut-copy.tdr",
			     e->dir),
			 0);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive cut.tdr 2>&1", e->dir, e->tdrec), 1);
	assert_non_null(strstr(out, "truncated"));
	free(out);
	assert_int_equal(test_run(NULL, "cd '%s' && cmp cut.tdr cut-copy.tdr", e->dir), 0);
}

/* The diff's row of function fn ("name  object") is in both profiles. */
static bool row_in_both(const char *out, const char *fn)
{
	const char *p = strstr(out, fn), *eol;

	if (!p)
		return false;
	eol = strchr(p, '\n');
	return !memmem(p, eol ? (size_t)(eol - p) : strlen(p), "only in", 7);
}

/* Old build vs rebuilt binary: functions matched by name, no [changed]. */
static void test_archive_e2e__diff_of_two_builds(void **state)
{
	struct env *e = *state;
	char *out = NULL;

	build(e, "0.999", "-O2 -g");
	record(e, "--no-archive", "d-old.tdr");
	assert_int_equal(test_run(NULL, "cd '%s' && cp d-old.tdr d-old-plain.tdr && '%s' archive "
				   "d-old.tdr 2>/dev/null",
			     e->dir, e->tdrec),
			 0);
	build(e, "0.998", "-O1 -g");
	record(e, "", "d-new.tdr");
	assert_int_equal(test_run(&out, "cd '%s' && '%s' diff d-old.tdr d-new.tdr 2>&1", e->dir,
			     e->tdrec),
			 0);
	assert_null(strstr(out, "[changed]"));
	assert_null(strstr(out, "[unknown]"));
	/* Both functions on both sides (a sample or two in ld.so may be on
	 * one side only: that is the program's noise, not the archive's). */
	assert_true(row_in_both(out, "work  app"));
	assert_true(row_in_both(out, "other  app"));
	free(out);
	/* Without the archive, the old build's functions are lost. */
	assert_int_equal(test_run(&out, "cd '%s' && '%s' diff d-old-plain.tdr d-new.tdr 2>&1", e->dir,
			     e->tdrec),
			 0);
	assert_non_null(strstr(out, "[changed]"));
	free(out);
}

/* The rows of a file, without its header (which says how the file ends):
 * from the column header line to the line before the total. */
static char *rows_of(const char *text)
{
	const char *a = strstr(text, "\n samples "), *b = a ? strstr(a, "\n-----") : NULL;

	assert_non_null(a);
	assert_non_null(b);
	return strndup(a, (size_t)(b - a));
}

/* tdrec record archives by default, as its last block: a file cut just
 * before that block (a recorder killed while archiving) still reports
 * every sample. A damaged archive is not used, and said so. */
static void test_archive_e2e__record_archives_last(void **state)
{
	struct env *e = *state;
	struct snap live, arch, cut;
	char *out = NULL, cmd[512];
	long off = -1;

	build(e, "0.999", "-O2 -g");
	record(e, "", "r.tdr");
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info --json r.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "\"archive\": {\"damaged\": false"));
	assert_non_null(strstr(out, "\"format_version\": \"1.4\""));
	free(out);
	take(e, e->dir, "r.tdr", &arch);
	/* The archive is the last SECTION block: find the block whose
	 * section type is 3 by walking the block headers (docs/format.md 3). */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import struct,sys\n"
		 "b=open(sys.argv[1],\"rb\").read();o=32\n"
		 "while o+24<=len(b) and b[o:o+4]==b\"TDBK\":\n"
		 " t=struct.unpack_from(\"<H\",b,o+4)[0];n=struct.unpack_from(\"<Q\",b,o+8)[0]\n"
		 " if t==3 and struct.unpack_from(\"<I\",b,o+24)[0]==3: print(o)\n"
		 " o=(o+24+n+7)&~7' '%s/r.tdr'",
		 e->dir);
	assert_int_equal(test_run(&out, "%s", cmd), 0);
	off = strtol(out, NULL, 10);
	free(out);
	assert_true(off > 32);
	assert_int_equal(test_run(NULL, "cd '%s' && head -c %ld r.tdr > cut.tdr", e->dir, off), 0);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info cut.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "symbols:     not archived"));
	assert_non_null(strstr(out, "TRUNCATED"));
	free(out);
	take(e, e->dir, "cut.tdr", &cut);
	take(e, e->dir, "r.tdr", &live);
	for (int m = 0; m < 3; m++) {
		char *a = rows_of(arch.text[m]), *c = rows_of(cut.text[m]);

		/* With the binary there, the cut file's live answers are the
		 * archived ones, row for row. */
		assert_string_equal(a, c);
		free(a);
		free(c);
	}
	/* A damaged archive (one byte of its payload flipped: the section's
	 * CRC fails) is not used, and said so; the files on disk answer. */
	assert_int_equal(test_run(NULL, "cd '%s' && cp r.tdr bad.tdr && printf '\\377' | dd of=bad.tdr "
				   "bs=1 seek=%ld conv=notrunc status=none",
			     e->dir, off + 24 + 8 + 4),
			 0);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info bad.tdr 2>&1", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "symbols:     archive damaged, not used"));
	assert_non_null(strstr(out, "archive of symbols in the file is damaged"));
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' report -i bad.tdr 2>&1 >/dev/null", e->dir,
			     e->tdrec),
			 0);
	assert_non_null(strstr(out, "archive of symbols in the file is damaged"));
	free(out);
	{
		char *a = rows_of(arch.text[0]), *t = report(e, e->dir, "bad.tdr", ""), *b;

		b = rows_of(t);
		assert_string_equal(a, b);
		free(a);
		free(b);
		free(t);
	}
	/* Rebuilt: the archived file keeps its rows, the cut one cannot. */
	build(e, "0.998", "-O1");
	release(&live);
	take(e, e->dir, "r.tdr", &live);
	same(&arch, &live, "after a rebuild (archived by record)");
	release(&cut);
	take(e, e->dir, "cut.tdr", &cut);
	assert_non_null(strstr(cut.text[0], "[changed]"));
	release(&cut);
	release(&live);
	release(&arch);
}

/* The rows of 'tdrec report -i FILE MODE' run in dir (caller frees). */
static char *rows(const struct env *e, const char *dir, const char *file, const char *mode)
{
	char *t = report(e, dir, file, mode), *r = rows_of(t);

	free(t);
	return r;
}

static const char *const stack_modes[] = {"--children", "--callers work", "--callees main"};

static void same_stacks(const struct env *e, const char *file, char *const *want,
			const char *when)
{
	for (int m = 0; m < 3; m++) {
		char *now = rows(e, e->dir, file, stack_modes[m]);

		if (strcmp(want[m], now)) {
			print_error("%s: report %s differs %s:\n--- before\n%s\n--- now\n%s\n",
				    file, stack_modes[m], when, want[m], now);
			fail();
		}
		free(now);
	}
}

/* A perf.data recorded with --call-graph dwarf, converted by 'tdrec
 * archive': its stacks are stored at their place in the new file's
 * frames, so the converted file's stack views equal the perf.data's and
 * stay so once the binary is gone. Skips without a usable perf. */
static void dwarf_perf_data(const struct env *e)
{
	char *want[3], *out = NULL;

	build(e, "0.999", "-O2 -g");
	if (test_run(NULL, "command -v perf >/dev/null 2>&1") ||
	    test_run(&out, "cd '%s' && perf record -q -N -e cpu-clock --call-graph dwarf -o dw.data "
		      "./app 3 2>&1 >/dev/null",
		e->dir)) {
		free(out);
		print_message("perf missing or not allowed: no dwarf perf.data case\n");
		return; /* the .tdr cases above stand */
	}
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive dw.data 2>&1", e->dir, e->tdrec), 0);
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info dw.data.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "stacks:      archived: "));
	free(out);
	for (int m = 0; m < 3; m++)
		want[m] = rows(e, e->dir, "dw.data", stack_modes[m]);
	assert_non_null(strstr(want[0], " main "));
	same_stacks(e, "dw.data.tdr", want, "converted from the perf.data");
	assert_int_equal(test_run(NULL, "rm '%s/app'", e->dir), 0);
	same_stacks(e, "dw.data.tdr", want, "converted, after the binary was deleted");
	for (int m = 0; m < 3; m++)
		free(want[m]);
}

/* A --call-graph dwarf recording stores its unwound stacks in the archive
 * (docs/format.md 7.2 "Stacks"): the stack views stay the same after the
 * binary is rebuilt with other code (whose CFI would unwind the old stack
 * copies wrongly) and after it is deleted (nothing to unwind with), both
 * for the archive tdrec record makes and for 'tdrec archive' afterwards.
 * The same recording without its archive loses main as a caller. A
 * perf.data recorded with --call-graph dwarf and converted keeps them too. */
static void test_archive_e2e__dwarf_stacks_survive_rebuild_and_delete(void **state)
{
	struct env *e = *state;
	char *live[3], *plain[3], *out = NULL;

	build(e, "0.999", "-O2 -g");
	record(e, "--call-graph dwarf", "dw.tdr");
	record(e, "--call-graph dwarf --no-archive", "dwplain.tdr");
	assert_int_equal(test_run(NULL, "cd '%s' && cp dwplain.tdr dwlater.tdr", e->dir), 0);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive dwlater.tdr 2>&1", e->dir, e->tdrec), 0);
	free(out);
	for (int m = 0; m < 3; m++)
		live[m] = rows(e, e->dir, "dw.tdr", stack_modes[m]);
	/* The unwound callers are there: main calls work and other. */
	assert_non_null(strstr(live[0], " main "));
	assert_non_null(strstr(live[1], " main "));
	assert_non_null(strstr(live[2], " work "));
	assert_non_null(strstr(live[2], " other "));
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info dw.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "stacks:      archived: "));
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' info dwlater.tdr", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "stacks:      archived: "));
	free(out);
	/* 'tdrec archive' stored what the live unwind of the same file gives. */
	for (int m = 0; m < 3; m++)
		plain[m] = rows(e, e->dir, "dwplain.tdr", stack_modes[m]);
	same_stacks(e, "dwlater.tdr", plain, "right after 'tdrec archive'");

	build(e, "0.998", "-O1");
	same_stacks(e, "dw.tdr", live, "after the binary was rebuilt");
	same_stacks(e, "dwlater.tdr", plain, "after the binary was rebuilt");

	assert_int_equal(test_run(NULL, "rm '%s/app'", e->dir), 0);
	same_stacks(e, "dw.tdr", live, "after the binary was deleted");
	same_stacks(e, "dwlater.tdr", plain, "after the binary was deleted");
	dwarf_perf_data(e);
	{
		/* Without stored stacks nothing names main any more. */
		char *gone = rows(e, e->dir, "dwplain.tdr", "--children");

		assert_null(strstr(gone, " main "));
		free(gone);
	}
	/* A FIFO where the binary was is never opened by the unwinder (an
	 * open would block: timeout's exit 124), and gives no callers. */
	assert_int_equal(test_run(NULL, "mkfifo '%s/app'", e->dir), 0);
	assert_int_equal(test_run(&out,
				  "cd '%s' && timeout 60 '%s' report --children -i dwplain.tdr 2>&1",
				  e->dir, e->tdrec),
			 0);
	assert_null(strstr(out, " main "));
	free(out);
	for (int m = 0; m < 3; m++) {
		free(live[m]);
		free(plain[m]);
	}
}

/* A perf.data converted into an archived .tdr reports the same rows (with
 * TopDown categories: the bundled examples), and keeps them after the
 * binary is rebuilt and deleted, where the perf.data itself cannot. */
static void test_archive_e2e__perf_data_converted(void **state)
{
	struct env *e = *state;
	const char *src = getenv("TDR_SOURCE_DIR");
	char *out = NULL, *a, *b, ex[512];
	char *before[3];

	assert_non_null(src);
	snprintf(ex, sizeof(ex), "%s/examples/amd-zen4.perf.data", src);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive -o zen4.tdr '%s' 2>&1", e->dir,
			     e->tdrec, ex),
			 0);
	assert_non_null(strstr(out, "zen4.tdr: symbols of "));
	free(out);
	for (int m = 0; m < 3; m++) {
		char dir[512];

		snprintf(dir, sizeof(dir), "%s/examples", src);
		a = rows(e, dir, "amd-zen4.perf.data", modes[m]);
		b = rows(e, e->dir, "zen4.tdr", modes[m]);
		assert_non_null(strstr(a, "Retire")); /* the TopDown columns too */
		assert_string_equal(a, b);
		free(a);
		free(b);
	}

	/* A real perf.data (no build-id cache: -N), converted to FILE.tdr. */
	if (test_run(NULL, "command -v perf >/dev/null 2>&1"))
		skip();
	build(e, "0.999", "-O2 -g");
	if (test_run(&out, "cd '%s' && perf record -q -N -e cpu-clock -o p.data ./app 3 2>&1 >/dev/null",
		e->dir)) {
		free(out);
		skip(); /* perf_event_open not allowed here */
	}
	free(out);
	assert_int_equal(test_run(&out, "cd '%s' && '%s' archive p.data 2>&1", e->dir, e->tdrec), 0);
	assert_non_null(strstr(out, "p.data.tdr: symbols of "));
	free(out);
	for (int m = 0; m < 3; m++) {
		before[m] = rows(e, e->dir, "p.data", modes[m]);
		b = rows(e, e->dir, "p.data.tdr", modes[m]);
		assert_non_null(strstr(before[m], " app"));
		assert_string_equal(before[m], b);
		free(b);
	}
	build(e, "0.998", "-O1");
	assert_int_equal(test_run(NULL, "rm '%s/app'", e->dir), 0);
	for (int m = 0; m < 3; m++) {
		b = rows(e, e->dir, "p.data.tdr", modes[m]);
		assert_string_equal(before[m], b);
		free(b);
		free(before[m]);
	}
	a = rows(e, e->dir, "p.data", "");
	assert_non_null(strstr(a, "[unknown]"));
	free(a);
}

/* Kernel addresses are answered by the archive: a report of an archived
 * file gives the rows of the unarchived one, which needs the kernel symbol
 * table (its cache file is made in an empty cache), and makes no cache. */
static void test_archive_e2e__kernel_from_the_archive(void **state)
{
	struct env *e = *state;
	char *out = NULL, *live = NULL, *archived = NULL;
	char cache[128];
	int st;

	st = test_run(&out, "cd '%s' && '%s' record -q --kernel --no-archive -o k.tdr -- dd "
			    "if=/dev/zero of=/dev/null bs=1 count=200000 2>&1",
		      e->dir, e->tdrec);
	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip(); /* kernel samples are not allowed here */
	}
	assert_int_equal(st, 0);
	free(out);
	assert_int_equal(test_run(NULL, "cd '%s' && '%s' archive -o ka.tdr k.tdr 2>/dev/null &&"
					" mkdir -m 700 c1 c2",
				  e->dir, e->tdrec),
			 0);
	assert_int_equal(test_run(&live, "cd '%s' && TDREC_CACHE_DIR=c1 '%s' report k.tdr --csv",
				  e->dir, e->tdrec),
			 0);
	assert_int_equal(test_run(&archived,
				  "cd '%s' && TDREC_CACHE_DIR=c2 '%s' report ka.tdr --csv", e->dir,
				  e->tdrec),
			 0);
	assert_non_null(strstr(live, "[kernel.kallsyms]")); /* kernel rows there */
	assert_string_equal(live, archived);
	snprintf(cache, sizeof(cache), "%s/c1/kallsyms.bin", e->dir);
	assert_int_equal(access(cache, F_OK), 0);
	snprintf(cache, sizeof(cache), "%s/c2/kallsyms.bin", e->dir);
	assert_int_not_equal(access(cache, F_OK), 0);
	free(live);
	free(archived);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_archive_e2e__rows_survive_rebuild_delete_and_move),
	    cmocka_unit_test(test_archive_e2e__output_elsewhere_and_errors),
	    cmocka_unit_test(test_archive_e2e__diff_of_two_builds),
	    cmocka_unit_test(test_archive_e2e__record_archives_last),
	    cmocka_unit_test(test_archive_e2e__perf_data_converted),
	    cmocka_unit_test(test_archive_e2e__kernel_from_the_archive),
	    cmocka_unit_test(test_archive_e2e__dwarf_stacks_survive_rebuild_and_delete),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
