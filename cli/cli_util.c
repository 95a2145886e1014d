/*
 * cli/cli_util.c - error printing and the helpers the subcommands share:
 * number and list options, the options report and diff share, the targets
 * record and stat share, the exit status of a launched program, loading a
 * recording for report and diff.
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tdrec/plan.h"
#include "tdrec/report.h"
#include "tdrec/tdr_json.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_textout.h"

static bool err_json;
static const char *command_name = "";

void cli_err_set_json(bool json)
{
	err_json = json;
}

void cli_set_command(const char *name)
{
	command_name = name;
}

const char *cli_command(void)
{
	return command_name;
}

bool cli_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

void cli_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err_json) {
		struct tdr_json j;

		tdr_json__init(&j, stdout);
		tdr_json__begin_object(&j, TDR_JSON_INLINE);
		tdr_json__key_string(&j, "error", msg);
		tdr_json__end_object(&j);
		fflush(stdout);
		return;
	}
	/* msg may name a path from a recording: no control characters. */
	if (*command_name)
		fprintf(stderr, "tdrec %s: ", command_name);
	else
		fputs("tdrec: ", stderr);
	tdr_text_put(stderr, msg);
	fputc('\n', stderr);
}

#define HELD_MAX 32
static char held[HELD_MAX][512];
static size_t held_cnt;

static void hold_sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (held_cnt < HELD_MAX)
		vsnprintf(held[held_cnt++], sizeof(held[0]), fmt, ap);
}

void cli_log_hold(void)
{
	held_cnt = 0;
	tdr_log_set_sink(hold_sink);
}

void cli_log_release(bool print)
{
	tdr_log_set_sink(NULL);
	for (size_t i = 0; print && i < held_cnt; i++) {
		fputs("tdrec: ", stderr);
		tdr_text_put(stderr, held[i]);
		fputc('\n', stderr);
	}
	held_cnt = 0;
}

/* This boot's id (empty when unknown), to decide whether /proc/kallsyms
 * fits a recording. */
static void read_boot_id(char *buf, size_t sz)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)sz, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* The per-boot cache directory (docs/symbolize.md "Kernel symbol cache"):
 * $TDREC_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/tdrec, else
 * ~/.cache/tdrec. Empty when there is none. */
static void cache_dir(char *buf, size_t sz)
{
	const char *own = getenv("TDREC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	buf[0] = '\0';
	if (own)
		snprintf(buf, sz, "%s", own);
	else if (xdg && xdg[0] == '/')
		snprintf(buf, sz, "%s/tdrec", xdg);
	else if (home && home[0] == '/')
		snprintf(buf, sz, "%s/.cache/tdrec", home);
}

void cli_load_opts(struct tdr_report_load_opts *lo, char *boot_id, size_t boot_id_sz,
		   char *cache, size_t cache_sz)
{
	memset(lo, 0, sizeof(*lo));
	read_boot_id(boot_id, boot_id_sz);
	lo->boot_id = boot_id[0] ? boot_id : NULL;
	cache_dir(cache, cache_sz);
	lo->cache_dir = cache;
}

int cli_load_report(const char *path, const struct tdr_report_opts *opts, struct tdr_report **out)
{
	struct tdr_report_load_opts lo;
	char boot_id[64], cache[PATH_MAX];
	int err;

	cli_load_opts(&lo, boot_id, sizeof(boot_id), cache, sizeof(cache));
	cli_log_hold();
	err = tdr_report__load(path, opts, &lo, out);
	cli_log_release(!err);
	return err;
}

/* text as a whole decimal number in [min, max]: no sign, nothing after it. */
static bool decimal_in(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int cli_parse_uint(const char *opt, const char *text, uint64_t max, uint64_t *out)
{
	if (decimal_in(text, 0, max, out))
		return 0;
	cli_err("%s: '%s' is not a number from 0 to %" PRIu64, opt, text, max);
	return -1;
}

int cli_parse_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	if (decimal_in(text, min, max, out))
		return 0;
	if (min == 1)
		cli_err("%s needs a positive number up to %" PRIu64 ", not '%s'", opt, max, text);
	else
		cli_err("%s needs a number from %" PRIu64 " to %" PRIu64 ", not '%s'", opt, min,
			max, text);
	return -1;
}

/* -p PID[,PID...]: appends to pids[*cnt], at most max in all. */
static int parse_pids(const char *text, pid_t *pids, size_t max, size_t *cnt)
{
	char buf[1024], *next = buf, *tok;
	uint64_t v;

	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf)) {
		cli_err("-p: list too long (%zu characters)", strlen(text));
		return -1;
	}
	/* Every element is a pid: "1," or "1,,2" is a mistake, not "1" or "1,2". */
	while ((tok = strsep(&next, ","))) {
		if (*cnt >= max) {
			cli_err("-p: at most %zu processes", max);
			return -1;
		}
		if (cli_parse_count("-p", tok, 1, INT_MAX, &v))
			return -1;
		/* A process given twice would be counted twice. */
		for (size_t i = 0; i < *cnt && v; i++)
			if (pids[i] == (pid_t)v)
				v = 0;
		if (v)
			pids[(*cnt)++] = (pid_t)v;
	}
	if (!*cnt) {
		cli_err("-p needs a process id");
		return -1;
	}
	return 0;
}

/* A comma-separated list of at most max names, pointing into *buf (a copy of
 * text that replaces the previous one; caller frees *buf). */
static int parse_names(const char *opt, const char *text, char **buf, const char **names,
		       size_t max, size_t *cnt)
{
	char *save = NULL, *tok;

	free(*buf);
	*buf = tdr_strdup(text);
	if (!*buf)
		return -1;
	*cnt = 0;
	for (tok = strtok_r(*buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*cnt == max) {
			cli_err("%s: at most %zu names", opt, max);
			return -1;
		}
		names[(*cnt)++] = tok;
	}
	if (!*cnt) {
		cli_err("%s: empty list", opt);
		return -1;
	}
	return 0;
}

int cli_report_option(struct cli_report_args *a, int c, const char *arg)
{
	struct tdr_report_filter *f = &a->opts.filter;
	uint64_t v;

	switch (c) {
	case CLI_OPT_INLINE:
		return cli_report_args__set_by(a, TDR_BY_INLINE, "--inline") ? -1 : 1;
	case CLI_OPT_DSO:
		if (parse_names("--dso", arg, &a->dso_buf, a->dsos, CLI_MAX_LIST, &f->dso_cnt))
			return -1;
		f->dsos = a->dsos;
		return 1;
	case CLI_OPT_COMM:
		if (parse_names("--comm", arg, &a->comm_buf, a->comms, CLI_MAX_LIST, &f->comm_cnt))
			return -1;
		f->comms = a->comms;
		return 1;
	case CLI_OPT_MIN_SAMPLES:
		return cli_parse_uint("--min-samples", arg, UINT32_MAX, &a->opts.min_samples) ? -1
											      : 1;
	case 'n':
		if (cli_parse_uint("--limit", arg, SIZE_MAX, &v))
			return -1;
		a->render.limit = (size_t)v;
		a->limit_given = true;
		return 1;
	case 'w':
		if (cli_parse_uint("--width", arg, TDR_RENDER_WIDTH_MAX, &v))
			return -1;
		if (v && v < TDR_RENDER_WIDTH_MIN) {
			cli_err("--width: %" PRIu64 " is too narrow (at least %u columns, or 0 for "
				"no limit)",
				v, TDR_RENDER_WIDTH_MIN);
			return -1;
		}
		a->render.width = v ? (unsigned)v : TDR_RENDER_WIDTH_MAX;
		a->width_given = true;
		return 1;
	case CLI_OPT_JSON:
		a->render.fmt = TDR_FMT_JSON;
		cli_err_set_json(true);
		return 1;
	default:
		return 0;
	}
}

int cli_report_args__set_by(struct cli_report_args *a, enum tdr_report_by by, const char *option)
{
	if (a->by_option && a->opts.by != by) {
		bool by1 = !strcmp(a->by_option, "--by"), by2 = !strcmp(option, "--by");

		cli_err("%s%s%s and %s%s%s group rows differently: give one of them", a->by_option,
			by1 ? " " : "", by1 ? tdr_report_by_name(a->opts.by) : "", option,
			by2 ? " " : "", by2 ? tdr_report_by_name(by) : "");
		return -1;
	}
	a->opts.by = by;
	a->by_option = option;
	return 0;
}

void cli_report_args__text_width(struct cli_report_args *a)
{
	struct winsize ws;

	if (a->width_given)
		return;
	if (!isatty(STDOUT_FILENO)) {
		/* Into a pipe or a file: names whole, as perf prints them
		 * (grep, sort and diff see what the row is). */
		a->render.whole_names = true;
		return;
	}
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_col)
		return;
	/* 100 columns at most unless asked: a wide terminal does not make the
	 * default report wider, a narrow one makes it narrower. */
	if (ws.ws_col < TDR_RENDER_WIDTH_DEFAULT)
		a->render.width =
		    ws.ws_col < TDR_RENDER_WIDTH_MIN ? TDR_RENDER_WIDTH_MIN : ws.ws_col;
}

void cli_report_args__release(struct cli_report_args *a)
{
	zfree(&a->dso_buf);
	zfree(&a->comm_buf);
}

/* Apply option c (its value arg) to t when it is one of the shared ones.
 * Returns 1 when it was, 0 when c is not one of them, -1 after a cli_err
 * line (a bad value). */
static int targets_option(struct cli_targets *t, int c, const char *arg)
{
	switch (c) {
	case 'p':
		if (parse_pids(arg, t->pids, CLI_MAX_PIDS, &t->what.pid_cnt))
			return -1;
		t->what.pids = t->pids;
		return 1;
	case 'a':
		t->what.system_wide = true;
		return 1;
	case 'o':
		if (!*arg) {
			cli_err("-o needs a file name");
			return -1;
		}
		t->output = arg;
		return 1;
	case CLI_OPT_PLAN:
		return cli_parse_plan(arg, &t->what.plan_kind) ? -1 : 1;
	case CLI_OPT_KERNEL:
		t->what.kernel = true;
		return 1;
	default:
		return 0;
	}
}

int cli_targets_getopt(struct cli_targets *t, int argc, char **argv, const char *shortopts,
		       const struct option *longopts)
{
	char opts[64];
	int c, done;

	if (!t->started) {
		optind = 1;
		opterr = 0;
		t->started = true;
	}
	/* '+': stop at the first non-option, which starts the program. */
	snprintf(opts, sizeof(opts), "+:p:ao:%s", shortopts);
	while ((c = getopt_long(argc, argv, opts, longopts, NULL)) != -1) {
		done = targets_option(t, c, optarg);
		if (done < 0)
			return CLI_OPT_BAD;
		if (!done)
			return c;
	}
	return -1;
}

int cli_targets_finish(struct cli_targets *t, int argc, char **argv, bool optional,
		       const char *verb)
{
	struct tdr_target_opts *w = &t->what;

	if (optind < argc)
		w->argv = argv + optind; /* NULL-terminated like main's argv */
	if (w->pid_cnt && (w->system_wide || w->argv)) {
		cli_err("-p cannot be combined with -a or a program");
		return -1;
	}
	if (!optional && !w->argv && !w->pid_cnt && !w->system_wide) {
		cli_err("nothing to %s: give a program, -p PID or -a (see 'tdrec %s --help')", verb,
			cli_command());
		return -1;
	}
	return 0;
}

int cli_bad_option(int c, char **argv)
{
	if (c == ':')
		cli_err("option '%s' needs a value", argv[optind - 1]);
	else
		cli_err("unknown option '%s' (see 'tdrec %s --help')", argv[optind - 1],
			cli_command());
	return CLI_EXIT_USAGE;
}

int cli_file_operand(int argc, char **argv, int *i, const char **path)
{
	const char *arg = argv[*i];

	if (!strcmp(arg, "--")) {
		if (*i + 2 == argc && !*path) {
			*path = argv[++*i];
			return 0;
		}
		cli_err("one FILE after '--' (see 'tdrec %s --help')", cli_command());
		return CLI_EXIT_USAGE;
	}
	if (arg[0] == '-' && arg[1]) {
		cli_err("unknown option '%s' (see 'tdrec %s --help')", arg, cli_command());
		return CLI_EXIT_USAGE;
	}
	if (*path) {
		cli_err("one FILE only (see 'tdrec %s --help')", cli_command());
		return CLI_EXIT_USAGE;
	}
	*path = arg;
	return 0;
}

int cli_file_given(const char *path)
{
	if (path)
		return 0;
	cli_err("missing FILE (see 'tdrec %s --help')", cli_command());
	return CLI_EXIT_USAGE;
}

int cli_parse_plan(const char *text, enum tdr_plan_kind *out)
{
	if (!tdr_plan_kind_parse(text, out))
		return 0;
	cli_err("unknown plan '%s': use one of %s", text, tdr_plan_kind_names());
	return -1;
}

int cli_run_status(const struct cli_run_end *e)
{
	int status = 0;

	if (e->exec_err)
		return e->exec_err == -ENOENT || e->exec_err == -ENOTDIR ? 127 : 126;
	if (e->launched && e->exited) {
		if (e->term_signal) {
			const char *abbr = sigabbrev_np(e->term_signal);

			fprintf(stderr, "tdrec %s: the program was killed by signal %d (SIG%s)\n",
				cli_command(), e->term_signal, abbr ? abbr : "?");
			status = 128 + e->term_signal;
		} else {
			status = e->exit_code;
		}
	}
	if (e->write_err && !status)
		status = 1;
	return status;
}
