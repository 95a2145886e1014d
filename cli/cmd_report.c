/*
 * cli/cmd_report.c - 'tdrec report': options, then tdr_report__load, then output.
 *
 * Responsibility: parse argv once into struct tdr_report_opts (modes,
 * filters as typed lists, bounds-checked numbers: docs/architecture.md "Conventions"), load the
 * recording (.tdr or perf.data) through report/, apply --sort against the
 * recording's own columns, and print text (colour only on a terminal without
 * NO_COLOR), JSON or CSV. Errors: one line naming the file and the reason,
 * exit 1; bad usage exits 2.
 * See: docs/report.md.
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/report.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define DEFAULT_FILE "tdrec.tdr"
#define TEXT_LIMIT_DEFAULT 50

static const char usage_text[] =
    "usage: tdrec report [-i FILE | FILE] [options]\n"
    "\n"
    "Attribute a recording's samples to functions (or inlined functions, source\n"
    "lines, objects, threads, processes) and show each row's TopDown split:\n"
    "retiring, bad speculation, frontend bound, backend bound as % of the row's\n"
    "own slots (level 2 too when recorded). Recordings of the software plan show\n"
    "samples and event totals instead. perf.data files are read the same way.\n"
    "\n"
    "input:\n"
    "  -i, --input FILE     the recording (default tdrec.tdr; - reads standard\n"
    "                       input, e.g. from perf record -o -)\n"
    "      --regions FILE   the instrumented regions (libtdrec) of FILE instead:\n"
    "                       a regions file, or a recording of an instrumented\n"
    "                       program; one row per region (--by thread: per\n"
    "                       thread), samples = its begin/end pairs (docs/regions.md)\n"
    "\n"
    "rows:\n"
    "      --inline         innermost inlined function, with the function it is\n"
    "                       inlined into\n"
    "      --lines          source file:line of each sample, within its function\n"
    "      --by WHAT        function (default), inline, lines, dso, thread, process\n"
    "                       (one grouping: these three may not disagree)\n"
    "\n"
    "call stacks (recorded with -g or --call-graph; by function):\n"
    "      --children, -g   inclusive rows: a sample counts once for every\n"
    "                       function on its stack; TopDown of all those samples;\n"
    "                       a self column beside (perf report --children)\n"
    "      --callers FUNC   rows are the callers of FUNC, each with its share of\n"
    "                       FUNC's samples and the TopDown of those samples\n"
    "      --callees FUNC   rows are what FUNC calls, and [self] for FUNC's own\n"
    "\n"
    "filters (comma-separated lists; a sample must match every filter given):\n"
    "      --pid PIDS       these processes\n"
    "      --tid TIDS       these threads\n"
    "      --dso NAMES      samples in these objects (full path or basename;\n"
    "                       [kernel.kallsyms] for the kernel)\n"
    "      --comm NAMES     these thread names\n"
    "      --min-share PCT  hide rows under PCT percent of the samples (default 0)\n"
    "\n"
    "display:\n"
    "  -s, --sort COLUMN    samples, share, name, and with TopDown slots or a\n"
    "                       category (retiring, bad-spec, fe-bound, be-bound,\n"
    "                       mem-bound, ...), or an event name (page-faults, ...)\n"
    "                       or its column label (faults, cpu-ms, ...);\n"
    "                       default: slots, or samples when the plan has no TopDown;\n"
    "                       perf's keys choose the rows: sym, dso, comm / pid /\n"
    "                       comm,pid (process), tid (thread), srcline (--lines)\n"
    "      --min-samples N  mark rows with fewer samples as too few to trust\n"
    "                       (default 30; 0 = never)\n"
    "  -n, --limit N        at most N rows (default 50 for text, all for JSON and\n"
    "                       CSV; 0 = all)\n" CLI_HELP_WIDTH "JSON and CSV\n"

    "      --json           JSON (schema in docs/report.md)\n"
    "      --csv            CSV, one line per row after a header line\n"
    "      --stdio          text (the default; perf report's option)\n"
    "      --color WHEN     auto (default: on a terminal unless NO_COLOR is set),\n"
    "                       always, never\n"
    "  -h, --help           this text\n"
    "\n"
    "A row's TopDown numbers are sums over the sampling intervals that ended in\n"
    "it: trust rows with many samples. Rows under --min-samples are marked '~';\n"
    "a bottleneck (a category above its threshold in a row with over 5% of the\n"
    "samples) is marked '*'. Thresholds and schemas: docs/report.md.\n"
    "\n"
    "exit status: 0; 1 when the file cannot be read, or is damaged (its records\n"
    "go out of step: the report shows what comes before); 2 for bad options.\n"
    "\n"
    "environment:\n" CLI_HELP_REPORT_ENV;

enum {
	OPT_LINES = CLI_OPT_REPORT_END,
	OPT_BY,
	OPT_PID,
	OPT_TID,
	OPT_MIN_SHARE,
	OPT_CSV,
	OPT_COLOR,
	OPT_STDIO,
	OPT_REGIONS,
	OPT_CHILDREN,
	OPT_CALLERS,
	OPT_CALLEES,
};

static const struct option long_opts[] = {
    {"input", required_argument, NULL, 'i'},
    {"inline", no_argument, NULL, CLI_OPT_INLINE},
    {"lines", no_argument, NULL, OPT_LINES},
    {"by", required_argument, NULL, OPT_BY},
    {"pid", required_argument, NULL, OPT_PID},
    {"tid", required_argument, NULL, OPT_TID},
    {"dso", required_argument, NULL, CLI_OPT_DSO},
    {"comm", required_argument, NULL, CLI_OPT_COMM},
    {"min-share", required_argument, NULL, OPT_MIN_SHARE},
    {"min-samples", required_argument, NULL, CLI_OPT_MIN_SAMPLES},
    {"sort", required_argument, NULL, 's'},
    {"limit", required_argument, NULL, 'n'},
    {"width", required_argument, NULL, 'w'},
    {"json", no_argument, NULL, CLI_OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"color", required_argument, NULL, OPT_COLOR},
    {"colour", required_argument, NULL, OPT_COLOR},
    {"stdio", no_argument, NULL, OPT_STDIO},
    {"regions", required_argument, NULL, OPT_REGIONS},
    {"children", no_argument, NULL, OPT_CHILDREN},
    {"callers", required_argument, NULL, OPT_CALLERS},
    {"callees", required_argument, NULL, OPT_CALLEES},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct report_args {
	struct cli_report_args c; /* the options diff takes too */
	const char *file;
	bool file_given;
	const char *regions; /* --regions FILE */
	const char *sort;
	bool csv;   /* --csv given (--json is in c.render.fmt) */
	const char *stacks_option; /* the first of -g, --children, --callers, --callees */
	int colour; /* -1 auto, 0 never, 1 always */
	uint32_t pids[CLI_MAX_LIST], tids[CLI_MAX_LIST];
};

static int parse_ids(const char *opt, const char *text, uint32_t *ids, size_t *cnt)
{
	char *copy = tdr_strdup(text), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -1;
	*cnt = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (*cnt == CLI_MAX_LIST) {
			cli_err("%s: at most %d ids", opt, CLI_MAX_LIST);
			err = -1;
		} else if (!(err = cli_parse_uint(opt, tok, UINT32_MAX, &v))) {
			ids[(*cnt)++] = (uint32_t)v;
		}
	}
	if (!err && !*cnt) {
		cli_err("%s: empty list", opt);
		err = -1;
	}
	free(copy);
	return err;
}

static int parse_by(const char *text, enum tdr_report_by *by)
{
	for (int b = TDR_BY_FUNCTION; b <= TDR_BY_PROCESS; b++) {
		if (!strcmp(text, tdr_report_by_name((enum tdr_report_by)b))) {
			*by = (enum tdr_report_by)b;
			return 0;
		}
	}
	cli_err("--by: '%s' is not one of function, inline, lines, dso, thread, process", text);
	return -1;
}

static int parse_min_share(const char *text, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= 0 && v <= 100)) {
		cli_err("--min-share: '%s' is not a percentage from 0 to 100", text);
		return -1;
	}
	*out = v / 100;
	return 0;
}

/* perf report's sort keys (-s): the grouping tdrec has for them. */
static bool perf_sort_key(const char *keys, enum tdr_report_by *by)
{
	static const struct {
		const char *keys;
		enum tdr_report_by by;
	} map[] = {
	    {"sym", TDR_BY_FUNCTION},	   {"symbol", TDR_BY_FUNCTION},
	    {"dso,sym", TDR_BY_FUNCTION},  {"sym,dso", TDR_BY_FUNCTION},
	    {"dso", TDR_BY_DSO},	   {"comm", TDR_BY_PROCESS},
	    {"pid", TDR_BY_PROCESS},	   {"comm,pid", TDR_BY_PROCESS},
	    {"pid,comm", TDR_BY_PROCESS},  {"tid", TDR_BY_THREAD},
	    {"srcline", TDR_BY_LINE},	   {"sym,srcline", TDR_BY_LINE},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(keys, map[i].keys)) {
			*by = map[i].by;
			return true;
		}
	return false;
}

/* --regions rows are regions: only --by thread and the --tid filter apply. */
static int regions_args(struct report_args *a)
{
	const struct tdr_report_filter *f = &a->c.opts.filter;

	if (!a->regions)
		return 0;
	if (a->c.opts.by != TDR_BY_FUNCTION && a->c.opts.by != TDR_BY_THREAD) {
		cli_err("--regions: rows are regions; only --by thread changes them");
		return -1;
	}
	if (f->pid_cnt || f->dso_cnt || f->comm_cnt) {
		cli_err("--regions: --pid, --dso and --comm do not apply to regions (--tid does)");
		return -1;
	}
	return 0;
}

/* -g / --children / --callers F / --callees F: one view. */
static int set_stacks(struct report_args *a, enum tdr_report_stacks m, const char *option,
		      const char *func)
{
	struct tdr_report_opts *o = &a->c.opts;

	if (a->stacks_option && (o->stacks != m || (func && strcmp(func, o->stack_func)))) {
		cli_err("%s and %s are different views: give one of them", a->stacks_option,
			option);
		return -1;
	}
	if (func && !*func) {
		cli_err("%s needs a function name", option);
		return -1;
	}
	o->stacks = m;
	o->stack_func = func;
	a->stacks_option = option;
	return 0;
}

static int parse_args(int argc, char **argv, struct report_args *a)
{
	struct tdr_report_filter *f = &a->c.opts.filter;
	enum tdr_report_by perf_by;
	int c, done;

	opterr = 0; /* cli_bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":i:s:n:w:gh", long_opts, NULL)) != -1) {
		done = cli_report_option(&a->c, c, optarg);
		if (done < 0)
			return -1;
		if (done)
			continue;
		switch (c) {
		case 'i':
			a->file = optarg;
			a->file_given = true;
			break;
		case 's':
			/* perf's sort keys choose rows; anything else is a column. */
			if (perf_sort_key(optarg, &perf_by)) {
				if (cli_report_args__set_by(&a->c, perf_by, "-s"))
					return -1;
			} else {
				a->sort = optarg;
			}
			break;
		case OPT_STDIO:
			break;
		case OPT_LINES:
			if (cli_report_args__set_by(&a->c, TDR_BY_LINE, "--lines"))
				return -1;
			break;
		case OPT_BY: {
			enum tdr_report_by by;

			if (parse_by(optarg, &by) || cli_report_args__set_by(&a->c, by, "--by"))
				return -1;
			break;
		}
		case OPT_PID:
			if (parse_ids("--pid", optarg, a->pids, &f->pid_cnt))
				return -1;
			f->pids = a->pids;
			break;
		case OPT_TID:
			if (parse_ids("--tid", optarg, a->tids, &f->tid_cnt))
				return -1;
			f->tids = a->tids;
			break;
		case OPT_MIN_SHARE:
			if (parse_min_share(optarg, &a->c.opts.min_share))
				return -1;
			break;
		case OPT_CSV:
			a->csv = true;
			break;
		case 'g':
			if (set_stacks(a, TDR_STACKS_CHILDREN, "-g", NULL))
				return -1;
			break;
		case OPT_CHILDREN:
			if (set_stacks(a, TDR_STACKS_CHILDREN, "--children", NULL))
				return -1;
			break;
		case OPT_CALLERS:
			if (set_stacks(a, TDR_STACKS_CALLERS, "--callers", optarg))
				return -1;
			break;
		case OPT_CALLEES:
			if (set_stacks(a, TDR_STACKS_CALLEES, "--callees", optarg))
				return -1;
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "auto"))
				a->colour = -1;
			else if (!strcmp(optarg, "always"))
				a->colour = 1;
			else if (!strcmp(optarg, "never"))
				a->colour = 0;
			else {
				cli_err("--color: '%s' is not auto, always or never", optarg);
				return -1;
			}
			break;
		case OPT_REGIONS:
			a->regions = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		default:
			cli_bad_option(c, argv);
			return -1;
		}
	}
	/* tdrec report FILE, as info and diff take it (and perf report -i). */
	if (optind < argc && !a->file_given) {
		a->file = argv[optind++];
		a->file_given = true;
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s' (one FILE, with -i or alone)", argv[optind]);
		return -1;
	}
	if (a->csv && a->c.render.fmt == TDR_FMT_JSON) {
		cli_err("give --json or --csv, not both");
		return -1;
	}
	if (a->csv)
		a->c.render.fmt = TDR_FMT_CSV;
	if (a->stacks_option && a->c.opts.by != TDR_BY_FUNCTION) {
		cli_err("%s shows functions: it does not go with %s", a->stacks_option,
			a->c.by_option);
		return -1;
	}
	return regions_args(a);
}

/* "samples, share, name, slots, retiring, ..., cpu-clock, ...": what --sort
 * takes for this recording. */
static void sort_columns(const struct tdr_report *r, char *buf, size_t sz)
{
	size_t len = (size_t)snprintf(buf, sz, "samples, share, name%s",
				      tdr_report__category_cnt(r) ? ", slots" : "");

	for (size_t i = 0; i < tdr_report__category_cnt(r) && len < sz; i++)
		len +=
		    (size_t)snprintf(buf + len, sz - len, ", %s", tdr_report__category_name(r, i));
	for (size_t i = 0; i < tdr_report__event_cnt(r) && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, ", %s", tdr_report__event_name(r, i));
}

static bool want_colour(int setting)
{
	const char *no_color = getenv("NO_COLOR");

	if (setting >= 0)
		return setting;
	return isatty(STDOUT_FILENO) && !(no_color && *no_color);
}

/* A recording of a program instrumented with libtdrec: its regions after
 * the functions (text only; --regions FILE gives them in JSON and CSV). */
static int regions_beside(const struct report_args *a)
{
	struct tdr_report_opts o;
	struct tdr_report *r;
	int err;

	tdr_report_opts__init(&o);
	/* A perf.data or a recording without regions is the common case: the
	 * reader's lines about it are not news here. */
	cli_log_hold();
	err = tdr_report__load_regions(a->file, &o, &r);
	cli_log_release(false);
	if (err)
		return 0; /* none, or not a .tdr: nothing to add */
	if (fputs("\nregions of the program (libtdrec; tdrec report --regions FILE for them "
		  "alone):\n",
		  stdout) == EOF)
		err = -EIO;
	else
		err = tdr_report__render(r, &a->c.render, stdout);
	tdr_report__free(r);
	return err;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = {.file = DEFAULT_FILE, .colour = -1};
	struct tdr_report *r = NULL;
	int err, ret = 1;

	tdr_report_opts__init(&a.c.opts);
	err = parse_args(argc, argv, &a);
	if (err) {
		ret = err > 0 ? 0 : CLI_EXIT_USAGE;
		goto out;
	}
	if (a.regions) {
		err = tdr_report__load_regions(a.regions, &a.c.opts, &r);
		if (err) {
			cli_err("%s: %s", a.regions,
				err == -ENODATA ? "a recording without regions (docs/regions.md)"
						: tdr_strerror(err));
			goto out;
		}
	} else if ((err = cli_load_report(a.file, &a.c.opts, &r))) {
		cli_err("%s: %s%s", a.file, tdr_strerror(err),
			err == -ENOENT && !strcmp(a.file, DEFAULT_FILE)
			    ? " (record one with 'tdrec record -- PROGRAM')"
			    : "");
		goto out;
	}
	if ((a.c.opts.stacks == TDR_STACKS_CALLERS || a.c.opts.stacks == TDR_STACKS_CALLEES) &&
	    !tdr_report__stack_samples(r)) {
		cli_err("%s %s: no sample has %s on its stack (function names as tdrec report "
			"prints them)",
			a.stacks_option, a.c.opts.stack_func, a.c.opts.stack_func);
		goto out;
	}
	if (a.sort) {
		struct tdr_report_sort s;

		if (tdr_report__parse_sort(r, a.sort, &s)) {
			char cols[1024];

			sort_columns(r, cols, sizeof(cols));
			cli_err("--sort: this recording has no column '%s'; it has %s", a.sort,
				cols);
			ret = CLI_EXIT_USAGE;
			goto out;
		}
		tdr_report__sort(r, &s);
	}
	if (a.c.render.fmt == TDR_FMT_TEXT) {
		if (!a.c.limit_given)
			a.c.render.limit = TEXT_LIMIT_DEFAULT;
		a.c.render.colour = want_colour(a.colour);
		cli_report_args__text_width(&a.c);
	}
	err = tdr_report__render(r, &a.c.render, stdout);
	if (!err && !a.regions && a.c.render.fmt == TDR_FMT_TEXT)
		err = regions_beside(&a);
	if (err) {
		cli_err("failed to write the report: %s", tdr_strerror(err));
		goto out;
	}
	if (tdr_report__damaged(r)) {
		/* What was read is shown, but this is not a whole recording. */
		cli_err("%s: the file is damaged (its records go out of step): the report covers "
			"only what comes before",
			a.file);
		goto out;
	}
	ret = 0;
out:
	tdr_report__free(r);
	cli_report_args__release(&a.c);
	return ret;
}
