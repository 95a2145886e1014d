/*
 * cli/cmd_diff.c - 'tdrec diff OLD NEW': compare two recordings function by function.
 *
 * Responsibility: parse the options, load both recordings through report/
 * (by function, or by inlined function with --inline), build the diff and
 * print it as text or JSON. Functions are matched by (object basename,
 * name), so rebuilt binaries compare. Errors name the file: exit 1; bad
 * usage exits 2.
 * See: docs/report.md "Diff".
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/report.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"

#define TEXT_LIMIT_DEFAULT 40

static const char usage_text[] =
    "usage: tdrec diff [options] OLD NEW\n"
    "\n"
    "Compare two recordings (.tdr or perf.data) function by function. Functions\n"
    "are matched by (object basename, function name), never by address, so a\n"
    "rebuilt binary compares with the old one. For each: its share of samples in\n"
    "OLD and NEW, the change in points (NEW - OLD), and when both recordings have\n"
    "the same TopDown plan the change of each category in points of the\n"
    "function's own slots. Rows are sorted by the largest change of share;\n"
    "functions found in one recording only are marked.\n"
    "\n"
    "options:\n"
    "      --inline         compare inlined functions (innermost) instead\n"
    "      --dso NAMES      only samples in these objects (comma-separated,\n"
    "                       full path or basename), in both recordings\n"
    "      --comm NAMES     only these thread names, in both recordings\n"
    "      --min-samples N  mark rows with fewer samples on a side as too few to\n"
    "                       trust (default 30; 0 = never)\n"
    "  -n, --limit N        at most N rows (default 40 for text, all for JSON;\n"
    "                       0 = all)\n" CLI_HELP_WIDTH "JSON\n"

    "      --json           JSON (schema in docs/report.md)\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0; 1 when a file cannot be read or is damaged (its records\n"
    "go out of step); 2 for bad options.\n"
    "\n"
    "environment:\n" CLI_HELP_REPORT_ENV;

static const struct option long_opts[] = {
    {"inline", no_argument, NULL, CLI_OPT_INLINE},
    {"dso", required_argument, NULL, CLI_OPT_DSO},
    {"comm", required_argument, NULL, CLI_OPT_COMM},
    {"min-samples", required_argument, NULL, CLI_OPT_MIN_SAMPLES},
    {"limit", required_argument, NULL, 'n'},
    {"width", required_argument, NULL, 'w'},
    {"json", no_argument, NULL, CLI_OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_args(int argc, char **argv, struct cli_report_args *a)
{
	int c, done;

	opterr = 0; /* cli_bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":n:w:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		done = cli_report_option(a, c, optarg);
		if (done < 0)
			return -1;
		if (!done) {
			cli_bad_option(c, argv);
			return -1;
		}
	}
	if (argc - optind != 2) {
		cli_err("need two recordings, OLD and NEW (see 'tdrec diff --help')");
		return -1;
	}
	if (a->render.fmt == TDR_FMT_TEXT && !a->limit_given)
		a->render.limit = TEXT_LIMIT_DEFAULT;
	if (a->render.fmt == TDR_FMT_TEXT)
		cli_report_args__text_width(a);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct cli_report_args a = {0};
	struct tdr_report *old = NULL, *new = NULL;
	struct tdr_diff *d = NULL;
	const char *old_file, *new_file;
	int err, ret = 1;

	tdr_report_opts__init(&a.opts);
	err = parse_args(argc, argv, &a);
	if (err) {
		ret = err > 0 ? 0 : CLI_EXIT_USAGE;
		goto out;
	}
	old_file = argv[optind];
	new_file = argv[optind + 1];
	err = cli_load_report(old_file, &a.opts, &old);
	if (err) {
		cli_err("%s: %s", old_file, tdr_strerror(err));
		goto out;
	}
	err = cli_load_report(new_file, &a.opts, &new);
	if (err) {
		cli_err("%s: %s", new_file, tdr_strerror(err));
		goto out;
	}
	err = tdr_diff__new(old, old_file, new, new_file, &d);
	if (err) {
		cli_err("failed to compare %s and %s: %s", old_file, new_file, tdr_strerror(err));
		goto out;
	}
	err = tdr_diff__render(d, &a.render, stdout);
	if (err) {
		cli_err("failed to write the diff: %s", tdr_strerror(err));
		goto out;
	}
	for (int i = 0; i < 2; i++)
		if (tdr_report__damaged(i ? new : old)) {
			cli_err("%s: the file is damaged (its records go out of step): the diff "
				"covers only what comes before",
				i ? new_file : old_file);
			goto out;
		}
	ret = 0;
out:
	tdr_diff__free(d);
	tdr_report__free(old);
	tdr_report__free(new);
	cli_report_args__release(&a);
	return ret;
}
