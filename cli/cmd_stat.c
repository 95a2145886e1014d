/*
 * cli/cmd_stat.c - 'tdrec stat': options, then counting, then the output and
 * the exit status.
 *
 * Responsibility: parse argv once into struct tdr_stat_opts (typed, bounds
 * checked: docs/architecture.md "Conventions"), run tdr_stat__new/__run with
 * the output of report/ (struct tdr_stat_out: interval rows written as each
 * interval ends, then the whole run), and turn the
 * summary into the exit status with cli_run_status, as 'tdrec record': the program's
 * own status (128+N with a line when it died of signal N), 127/126 when it
 * could not be started, 1 for a failure of tdrec itself (or a failed write
 * of the output while the program succeeded), 2 for bad usage. Bottlenecks
 * are marked with the TopDown table's thresholds (tdrec/topdown.h), as in
 * 'tdrec report', so both agree on what a bottleneck is. The output goes
 * to standard error, as perf stat's, unless -o FILE (or -o - for standard
 * output): the program's standard output is its own ('| jq' on it works).
 */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/plan.h"
#include "tdrec/report.h"
#include "tdrec/stat.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_outpath.h"

static const char usage_text[] =
    "usage: tdrec stat [options] [--] PROGRAM [ARGS...]\n"
    "       tdrec stat [options] -p PID[,PID...]\n"
    "       tdrec stat [options] -a [[--] PROGRAM [ARGS...]]\n"
    "\n"
    "Count TopDown for a whole run (no sampling): slots and where they went\n"
    "(retiring, bad speculation, frontend bound, backend bound, and level 2\n"
    "where the CPU has it), with the main bottleneck marked. On machines\n"
    "without TopDown events: task-clock, context switches, CPU migrations and\n"
    "page faults, and a line saying why TopDown is not available.\n"
    "\n"
    "what to count:\n"
    "  PROGRAM ARGS        run it; counters start when it execs, tdrec exits with\n"
    "                      its status (128+N if it died of signal N)\n"
    "  -p, --pid PID,...   running processes (all their threads, and threads they\n"
    "                      create) until they end or Ctrl-C\n"
    "  -a, --all-cpus      every process on every CPU; until PROGRAM ends if one\n"
    "                      is given, else until Ctrl-C\n"
    "\n"
    "options:\n"
    "  -I, --interval MS   also a row every MS milliseconds (10 or more) with that\n"
    "                      interval's counts, written as it happens\n"
    "      --per-thread    a row per thread (pid, tid, name) with its own counts and\n"
    "                      breakdown (a program or -p, not -a)\n"
    "      --json          one JSON document at the end (intervals included)\n"
    "      --csv           CSV: a header, interval rows as they happen, then the\n"
    "                      total and the thread rows\n"
    "  -o, --output FILE   write the output to FILE instead of standard error\n"
    "                      (where perf stat writes it: the program's standard\n"
    "                      output stays its own); - for standard output. An\n"
    "                      existing FILE is replaced once counting starts\n"
    "                      (a symbolic link to a FIFO or device, or a block\n"
    "                      device, is refused)\n"
    "      --plan PLAN     auto (default: the best that fits this CPU), or a\n"
    "                      family: topdown-l2, topdown-l1 (Intel perf metrics),\n"
    "                      intel-skl (Sandy Bridge..Cascade Lake), gracemont,\n"
    "                      crestmont, skymont (E-cores), amd-zen4-l2, amd-zen5-l2,\n"
    "                      intel-skl-l2 (the default on Zen 4/5 and Skylake-SP..\n"
    "                      Cascade Lake: level 2 in three groups; the last needs\n"
    "                      SMT off, with it on auto counts intel-skl),\n"
    "                      amd-zen4, amd-zen5 (Zen 5/6), neoverse-n2, -v1, -v2,\n"
    "                      -n3, -v3, software; a plan the kernel refuses falls\n"
    "                      back to the family it extends, else software, with a\n"
    "                      line saying why; one this machine does not have (no\n"
    "                      such PMU or events in sysfs, another CPU) is an error\n"
    "                      (exit 1). The CPU is TDREC_CPUID when set, else\n"
    "                      /proc/cpuinfo (with the real /sys), else the arm64\n"
    "                      MIDR under the sysfs root\n"
    "      --kernel        count kernel mode too (needs perf_event_paranoid <= 1)\n"
    "  -h, --help          this text\n"
    "\n"
    "Counts are never scaled: when the groups did not count all the time the\n"
    "program ran (multiplexing), the output says how much they did. SIGINT,\n"
    "SIGTERM and SIGHUP are passed to the program and the totals are still\n"
    "written; a third one kills it.\n"
    "\n"
    "exit status: the program's; 127 if it does not exist (126 if it cannot be\n"
    "run); 2 for bad options; 1 when counting failed.\n"
    "\n"
    "environment:\n"
    "  TDREC_SYSFS  root of the sysfs tree used to find PMUs and events\n"
    "               (default /sys)\n"
    "  TDREC_CPUID  the CPU the plan is for, in perf's form\n"
    "               (AuthenticAMD,25,17,1; an arm64 MIDR 0x00000000410fd4f0)\n"
    "\n"
    "See docs/stat.md.\n";

enum {
	OPT_PER_THREAD = CLI_OPT_TARGET_END,
	OPT_JSON,
	OPT_CSV,
};

static const struct option long_opts[] = {
    CLI_TARGET_LONG_OPTS,
    {"interval", required_argument, NULL, 'I'},
    {"per-thread", no_argument, NULL, OPT_PER_THREAD},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* -o FILE: created if missing (*created), but not emptied yet (see
 * empty_output), so that a run that cannot start leaves it as it was. */
static FILE *open_output(const char *path, bool *created)
{
	enum tdr_out_kind kind;
	const char *why;
	FILE *f;
	int fd;

	/* The rule of tdr_outpath.h: never a block device, nor a FIFO or
	 * device reached through a symbolic link. */
	*created = false;
	if (tdr_outpath_kind(path, &kind, &why)) {
		cli_err("cannot write %s: %s", path, why);
		return NULL;
	}
	if (kind == TDR_OUT_IN_PLACE) {
		/* O_NONBLOCK: a FIFO that no process reads fails (ENXIO) at
		 * once instead of waiting forever, as for record -o. */
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0)
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		*created = fd >= 0;
		if (fd < 0 && errno == EEXIST)
			fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	if (fd < 0 && errno == ENXIO && kind == TDR_OUT_IN_PLACE) {
		cli_err("cannot write %s: a FIFO that no process reads", path);
		return NULL;
	}
	if (fd < 0) {
		cli_err("cannot create %s: %s", path, strerror(errno));
		return NULL;
	}
	if (tdr_outpath_check_fd(fd, kind, &why)) {
		cli_err("cannot write %s: %s", path, why);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		cli_err("cannot create %s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

/* Standard error through a stream of its own: buffered (the JSON document
 * is not written a character at a time), while tdrec's messages on stderr
 * stay unbuffered. Falls back to stderr itself. */
static FILE *open_stderr(void)
{
	int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f && fd >= 0)
		close(fd);
	return f ? f : stderr;
}

/* Counting started: the output replaces what a regular file held (a device
 * or FIFO has nothing to empty). */
static void empty_output(FILE *f)
{
	struct stat sb;

	if (!fstat(fileno(f), &sb) && S_ISREG(sb.st_mode) && ftruncate(fileno(f), 0)) {
		/* Not fatal: the rows still go to the file; the old tail may stay. */
		cli_err("cannot empty the output file: %s", strerror(errno));
	}
}

int cmd_stat(int argc, char **argv)
{
	struct tdr_stat_opts o = {0};
	struct tdr_stat_out so;
	const struct tdr_stat_summary *sum;
	struct cli_run_end end;
	struct tdr_stat *st = NULL;
	const char *output;
	struct cli_targets t = {0};
	bool json = false, csv = false, created = false;
	FILE *out = stderr;
	int c, err, status;

	while ((c = cli_targets_getopt(&t, argc, argv, "I:h", long_opts)) != -1) {
		switch (c) {
		case CLI_OPT_BAD:
			return CLI_EXIT_USAGE;
		case 'I':
			if (cli_parse_count("-I", optarg, TDR_STAT_MIN_INTERVAL_MS,
					    TDR_STAT_MAX_INTERVAL_MS, &o.interval_ms))
				return CLI_EXIT_USAGE;
			break;
		case OPT_PER_THREAD:
			o.per_thread = true;
			break;
		case OPT_JSON:
			/* Errors stay plain lines on standard error: never inside
			 * the JSON document, wherever that goes. */
			json = true;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (json && csv) {
		cli_err("give --json or --csv, not both");
		return CLI_EXIT_USAGE;
	}
	if (cli_targets_finish(&t, argc, argv, false, "count"))
		return CLI_EXIT_USAGE;
	o.what = t.what;
	output = t.output;
	if (output && !strcmp(output, "-")) {
		output = NULL;
		out = stdout;
	}
	if (o.per_thread && o.what.system_wide) {
		cli_err("--per-thread needs a program or -p, not -a");
		return CLI_EXIT_USAGE;
	}
	if (output) {
		out = open_output(output, &created);
		if (!out)
			return 1;
	} else if (out == stderr) {
		out = open_stderr();
	}
	tdr_stat_out__init(&so, out, json ? TDR_FMT_JSON : csv ? TDR_FMT_CSV : TDR_FMT_TEXT);
	o.on_interval = tdr_stat_out__interval;
	o.interval_arg = &so;

	err = tdr_stat__new(&o, &st);
	if (!err)
		err = tdr_stat__start(st);
	if (err && out != stdout && out != stderr) {
		/* Nothing was counted: the file is left as it was (or not made). */
		fclose(out);
		out = NULL;
		if (created)
			unlink(output);
		output = NULL;
	}
	if (err && !st)
		return err == -TDR_E_USAGE ? CLI_EXIT_USAGE : 1;
	if (!err) {
		if (output)
			empty_output(out);
		err = tdr_stat__run(st);
		if (!err)
			tdr_stat_out__render(&so, st);
	}
	sum = tdr_stat__summary(st);
	/* Not CLI_RUN_END: the write error is the output's (stat writes nothing). */
	end = (struct cli_run_end){.exec_err = sum->exec_err,
				   .launched = sum->launched,
				   .exited = sum->exited,
				   .exit_code = sum->exit_code,
				   .term_signal = sum->term_signal,
				   .write_err = so.write_err};
	status = cli_run_status(&end);
	if (err && !status && !sum->exec_err)
		status = 1;
	err = so.write_err;
	tdr_stat__free(st);
	tdr_stat_out__clear(&so);
	if (out && out != stdout && out != stderr && fclose(out) && !err) {
		err = -errno;
		if (!status)
			status = 1;
	}
	if (err)
		cli_err("cannot write %s: %s",
			output		  ? output
			: out == stdout ? "to standard output"
					  : "to standard error",
			tdr_strerror(err));
	return status;
}
