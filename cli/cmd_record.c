/*
 * cli/cmd_record.c - 'tdrec record': options, then the recorder, then the
 * exit status and the one summary line.
 *
 * Responsibility: parse argv once into struct tdr_record_opts (typed, bounds
 * checked: docs/architecture.md "Conventions"), run tdr_recorder__new/__run, and turn the
 * summary into the exit status: the program's own status (128+N with a
 * line when it died of signal N), 127/126 when it could not be started,
 * 1 for a failure of tdrec itself (or a write error while the program
 * succeeded), 2 for bad usage. --dry-run prints the plan and opens nothing.
 */
#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/plan.h"
#include "tdrec/recorder.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

static const char usage_text[] =
    "usage: tdrec record [options] [--] PROGRAM [ARGS...]\n"
    "       tdrec record [options] -p PID[,PID...]\n"
    "       tdrec record [options] -a [[--] PROGRAM [ARGS...]]\n"
    "\n"
    "Record TopDown samples of a program (or of running processes, or of the\n"
    "whole system) into a .tdr file for 'tdrec report'. The first argument\n"
    "that is not an option starts the program; use -- when the program's\n"
    "name starts with '-'.\n"
    "\n"
    "what to record:\n"
    "  PROGRAM ARGS       run it; counters start when it execs, tdrec exits with\n"
    "                     its status (128+N if it died of signal N)\n"
    "  -p, --pid PID,...  attach to running processes (all their threads, and\n"
    "                     threads they create); Ctrl-C stops recording and\n"
    "                     leaves them running\n"
    "  -a, --all-cpus     every process on every CPU; until PROGRAM ends if one\n"
    "                     is given, else until Ctrl-C\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  output file (default tdrec.tdr); an existing file is\n"
    "                     replaced only once the new one is complete (written\n"
    "                     as FILE.partial until then; an existing FILE.partial,\n"
    "                     from a recording killed or still running, is kept);\n"
    "                     a FIFO or character device is written in place, a\n"
    "                     symbolic link to one or a block device is refused\n"
    "  -F, --freq HZ      samples per second per thread (default 4000; lowered to\n"
    "                     kernel.perf_event_max_sample_rate when above it)\n"
    "  -c, --count N      one sample every N events of the sampler instead of -F\n"
    "  -e, --event EVENT  the sampling event: cycles (default for TopDown plans;\n"
    "                     cpu_cycles on Arm), instructions, cpu-clock, a sysfs\n"
    "                     event name, rNNNN, or pmu/event=0x3c,umask=0x0/;\n"
    "                     :p/:pp/:ppp set precision (refused on AMD). A list\n"
    "                     (-e a,b) or -e again: the first samples; the software\n"
    "                     plan reads the other software events in its group\n"
    "      --plan PLAN    auto (default: the best that fits this CPU), or a\n"
    "                     family: topdown-l2, topdown-l1 (Intel perf metrics),\n"
    "                     intel-skl (Sandy Bridge..Cascade Lake), gracemont,\n"
    "                     crestmont, skymont (E-cores), amd-zen4, amd-zen5\n"
    "                     (Zen 5/6), amd-zen4-l2, amd-zen5-l2, intel-skl-l2\n"
    "                     (level 2 in three sampling groups, only when asked;\n"
    "                     -e must be cycles; intel-skl-l2 needs SMT off),\n"
    "                     neoverse-n2, -v1, -v2, -n3, -v3, software;\n"
    "                     a plan the kernel refuses falls back to the family it\n"
    "                     extends, else software, with a line saying why; one\n"
    "                     this machine does not have (no such PMU or events in\n"
    "                     sysfs, another CPU) is an error (exit 1). The CPU is\n"
    "                     TDREC_CPUID when set, else /proc/cpuinfo (with the\n"
    "                     real /sys), else the arm64 MIDR under the sysfs root\n"
    "      --mmap-pages N data pages per CPU ring, a power of two (default 128 =\n"
    "                     512 KiB); halved automatically when over the\n"
    "                     perf_event_mlock_kb budget\n"
    "      --no-inherit   measure the program's main thread only, not the\n"
    "                     threads and processes it creates\n"
    "      --kernel       also sample kernel code (needs perf_event_paranoid <= 1\n"
    "                     or root)\n"
    "  -g                 record call stacks (--call-graph fp)\n"
    "      --call-graph MODE[,SIZE]\n"
    "                     fp: the kernel walks frame pointers (code built\n"
    "                     without them loses callers); dwarf[,SIZE]: copy the\n"
    "                     user registers and SIZE bytes of stack (default 8192,\n"
    "                     at most 65528) per sample, unwound with DWARF CFI at\n"
    "                     report time (bigger files; larger rings by default);\n"
    "                     lbr: Intel's LBR call stack (refused where the\n"
    "                     sampler's PMU has none)\n"
    "      --no-archive   do not store the symbols of the sampled code in the\n"
    "                     file at the end (by default: function, inline chain,\n"
    "                     file and line of every sampled address, so reports\n"
    "                     stay the same after a rebuild; 'tdrec archive' does\n"
    "                     it later)\n"
    "  -q, --quiet        no plan line and no summary line (warnings are still\n"
    "                     printed)\n"
    "      --dry-run      print the plan and every perf_event_attr it would\n"
    "                     open, field by field, and exit without opening anything\n"
    "  -h, --help         this text\n"
    "\n"
    "When the best plan cannot run here (no TopDown on a VM), one line says\n"
    "which plan runs and why. At the end one line says how many samples were\n"
    "written and lost, the throttles, the file size and the bytes per sample.\n"
    "Ctrl-C (SIGINT), SIGTERM and SIGHUP are passed to the program and the\n"
    "file is finished cleanly (as SIGTERM when the program inherited the\n"
    "signal ignored, as in a script's 'tdrec record ... &'); a third one\n"
    "kills the program. If the disk\n"
    "fills up, recording stops, what was written stays in FILE.partial (an\n"
    "existing FILE is not replaced), the program runs to its end and tdrec\n"
    "exits non-zero.\n"
    "\n"
    "exit status: the program's; 127 if it does not exist (126 if it cannot be\n"
    "run); 2 for bad options; 1 when recording failed.\n"
    "\n"
    "environment:\n"
    "  TDREC_SYSFS  root of the sysfs tree used to find PMUs and events\n"
    "               (default /sys), e.g. a fake tree for tests\n"
    "  TDREC_CPUID  the CPU the plan is for, in perf's form\n"
    "               (AuthenticAMD,25,17,1; an arm64 MIDR 0x00000000410fd4f0)\n"
    "  TDREC_REGIONS  where a program using libtdrec writes its regions; record\n"
    "               sets it for the program it runs (a file of its own unless\n"
    "               set) and puts the regions in the recording (docs/regions.md)\n"
    "\n"
    "See docs/record.md and docs/plans.md.\n";

enum {
	OPT_MMAP_PAGES = CLI_OPT_TARGET_END,
	OPT_NO_INHERIT,
	OPT_DRY_RUN,
	OPT_CALL_GRAPH,
	OPT_NO_ARCHIVE,
};

static const struct option long_opts[] = {
    CLI_TARGET_LONG_OPTS,
    {"freq", required_argument, NULL, 'F'},
    {"count", required_argument, NULL, 'c'},
    {"event", required_argument, NULL, 'e'},
    {"mmap-pages", required_argument, NULL, OPT_MMAP_PAGES},
    {"no-inherit", no_argument, NULL, OPT_NO_INHERIT},
    {"quiet", no_argument, NULL, 'q'},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
    {"no-archive", no_argument, NULL, OPT_NO_ARCHIVE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* --call-graph fp | dwarf[,SIZE] | lbr. Returns 0 or CLI_EXIT_USAGE (said). */
static int parse_call_graph(const char *arg, struct tdr_record_opts *o)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t sz;

	if (len == 2 && !strncmp(arg, "fp", 2))
		o->call_graph = TDR_CALL_GRAPH_FP;
	else if (len == 5 && !strncmp(arg, "dwarf", 5))
		o->call_graph = TDR_CALL_GRAPH_DWARF;
	else if (len == 3 && !strncmp(arg, "lbr", 3))
		o->call_graph = TDR_CALL_GRAPH_LBR;
	else {
		cli_err("--call-graph: '%.*s' is not a mode (fp, dwarf[,SIZE] or lbr)", (int)len,
			arg);
		return CLI_EXIT_USAGE;
	}
	o->stack_size = 0;
	if (!comma)
		return 0;
	if (o->call_graph != TDR_CALL_GRAPH_DWARF) {
		cli_err("--call-graph %s takes no size (only dwarf,SIZE does)",
			tdr_call_graph_name(o->call_graph));
		return CLI_EXIT_USAGE;
	}
	if (cli_parse_count("--call-graph dwarf,SIZE", comma + 1, 8, TDR_CALL_GRAPH_STACK_MAX,
			    &sz))
		return CLI_EXIT_USAGE;
	if (sz % 8) {
		cli_err("--call-graph dwarf,SIZE: %" PRIu64 " is not a multiple of 8", sz);
		return CLI_EXIT_USAGE;
	}
	o->stack_size = (uint32_t)sz;
	return 0;
}

/* The plan and every attr as it would be opened; tdr_recorder__plan logs
 * its own errors (one line each). */
static int dry_run(const struct tdr_record_opts *o)
{
	struct tdr_plan *plan = NULL;
	int err = tdr_recorder__plan(o, &plan);

	if (err == -ENOMEM)
		cli_err("cannot build the plan: %s", tdr_strerror(err));
	if (err)
		return err == -TDR_E_USAGE ? CLI_EXIT_USAGE : 1;
	tdr_plan__print(plan, stdout);
	printf("not opened (--dry-run). PERF_FORMAT_LOST is shown as tried first; a kernel that "
	       "refuses it\nis recorded without it.\n");
	tdr_plan__free(plan);
	return 0;
}

static void print_summary(const struct tdr_record_summary *s)
{
	double pct =
	    s->samples + s->lost ? 100.0 * (double)s->lost / (double)(s->samples + s->lost) : 0.0;
	double sz = (double)s->file_sz;
	const char *unit = "bytes";

	if (sz >= 1024.0 * 1024.0) {
		sz /= 1024.0 * 1024.0;
		unit = "MiB";
	} else if (sz >= 1024.0) {
		sz /= 1024.0;
		unit = "KiB";
	}
	fprintf(stderr,
		"tdrec record: %" PRIu64 " samples written, %" PRIu64 " lost (%.2f%%), %" PRIu64
		" throttles, %.1f %s in %s (%.1f bytes/sample)\n",
		s->samples, s->lost, pct, s->throttles, sz, unit, s->path,
		s->samples ? (double)s->file_sz / (double)s->samples : 0.0);
}

#define MAX_EVENTS 16

/*
 * -e TEXT: one event or a comma-separated list (perf's -e a,b), appended
 * to what earlier -e gave; commas between a PMU's slashes
 * (cpu/event=0x3c,umask=0/) belong to the event. The first is the
 * sampler; the software plan reads the others in its group.
 */
static int add_events(const char *text, struct tdr_event_spec *specs, size_t *cnt)
{
	char buf[sizeof(specs->text)];
	size_t len = 0;
	bool in_pmu = false;

	if (strchr(text, '{')) {
		cli_err("-e %s: event groups ({...}) are not taken: tdrec builds the group from its "
			"plan (see --dry-run)",
			text);
		return -1;
	}
	for (const char *p = text;; p++) {
		if (*p == '/')
			in_pmu = !in_pmu;
		if (*p && (*p != ',' || in_pmu)) {
			if (len + 1 < sizeof(buf))
				buf[len++] = *p;
			continue;
		}
		buf[len] = '\0';
		if (*cnt == MAX_EVENTS) {
			cli_err("-e: at most %d events", MAX_EVENTS);
			return -1;
		}
		/* The parser says what is wrong, in one line. */
		if (tdr_event_spec__parse(buf, &specs[*cnt]))
			return -1;
		++*cnt;
		len = 0;
		if (!*p)
			return 0;
	}
}

/*
 * A launched program that uses libtdrec writes its regions where
 * TDREC_REGIONS says (docs/regions.md "With tdrec record"): a file of our
 * own in TMPDIR unless the user set one, embedded in the recording at the
 * end. Without it, nothing changes.
 */
static void regions_setup(struct tdr_record_opts *o, char *tmp, size_t sz)
{
	const char *dir = getenv("TMPDIR"), *given = getenv("TDREC_REGIONS");
	int fd;

	if (!o->what.argv)
		return; /* -p, -a: the programs already run, with their own environment */
	if (given && *given) {
		o->regions_path = given;
		return;
	}
	snprintf(tmp, sz, "%s/tdrec-regions-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0 || setenv("TDREC_REGIONS", tmp, 1)) {
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		tmp[0] = 0;
		return;
	}
	close(fd);
	o->regions_path = tmp;
}

static void regions_cleanup(char *tmp)
{
	if (tmp[0])
		unlink(tmp);
	tmp[0] = 0;
}

/* The archiving step (docs/record.md "Archiving"): the samples' symbols,
 * looked up as a report of this boot would. */
struct archive_ctx {
	struct tdr_archive_summary sum;
};

static int archive_cb(void *ctx, const char *path, void **data, size_t *sz)
{
	struct archive_ctx *c = ctx;
	struct tdr_report_load_opts lo;
	char boot_id[64], cache[PATH_MAX];
	int err;

	cli_load_opts(&lo, boot_id, sizeof(boot_id), cache, sizeof(cache));
	/* The file has no trailer yet: the parser's notes about that are not
	 * news. Real problems come back as the error, which the recorder
	 * reports. */
	cli_log_hold();
	err = tdr_report__archive(path, &lo, 3, data, sz, &c->sum);
	cli_log_release(false);
	if (!err)
		tdr_debug("symbols of %" PRIu64 " of %" PRIu64 " sampled addresses archived",
			  c->sum.archived, c->sum.addrs);
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct tdr_record_opts o = {0};
	struct tdr_event_spec specs[MAX_EVENTS];
	size_t spec_cnt = 0;
	struct tdr_recorder *rec = NULL;
	struct cli_targets t = {0};
	bool quiet = false, dry = false, no_archive = false;
	char regions_tmp[PATH_MAX] = "";
	struct archive_ctx actx = {0};
	uint64_t v;
	int c, err, status;

	while ((c = cli_targets_getopt(&t, argc, argv, "F:c:e:gqh", long_opts)) != -1) {
		switch (c) {
		case CLI_OPT_BAD:
			return CLI_EXIT_USAGE;
		case 'F':
			if (cli_parse_count("-F", optarg, 1, 10000000, &o.sample_freq))
				return CLI_EXIT_USAGE;
			break;
		case 'c':
			if (cli_parse_count("-c", optarg, 1, UINT64_MAX >> 1, &o.sample_period))
				return CLI_EXIT_USAGE;
			break;
		case 'e':
			if (add_events(optarg, specs, &spec_cnt))
				return CLI_EXIT_USAGE;
			o.sampler = &specs[0];
			o.extra = &specs[1];
			o.extra_cnt = spec_cnt - 1;
			break;
		case OPT_MMAP_PAGES:
			if (cli_parse_count("--mmap-pages", optarg, 1, 1u << 20, &v))
				return CLI_EXIT_USAGE;
			if (v & (v - 1)) {
				cli_err("--mmap-pages must be a power of two, not %" PRIu64, v);
				return CLI_EXIT_USAGE;
			}
			o.mmap_pages = (size_t)v;
			break;
		case OPT_NO_INHERIT:
			o.no_inherit = true;
			break;
		case 'q':
			quiet = true;
			/* Warnings stay; which plan runs and the summary go. */
			tdr_log_set_level(TDR_LOG_WARN);
			break;
		case OPT_DRY_RUN:
			dry = true;
			break;
		case 'g':
			o.call_graph = TDR_CALL_GRAPH_FP;
			o.stack_size = 0;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(optarg, &o))
				return CLI_EXIT_USAGE;
			break;
		case OPT_NO_ARCHIVE:
			no_archive = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return cli_bad_option(c, argv);
		}
	}
	if (o.sample_freq && o.sample_period) {
		cli_err("give -F or -c, not both");
		return CLI_EXIT_USAGE;
	}
	if (cli_targets_finish(&t, argc, argv, dry, "record"))
		return CLI_EXIT_USAGE;
	o.what = t.what;
	o.output = t.output;
	o.tdrec_argc = (size_t)argc + 1;
	o.tdrec_argv = argv - 1; /* "tdrec", "record", ... */
	if (dry)
		return dry_run(&o);
	if (!no_archive) {
		o.archive = archive_cb;
		o.archive_ctx = &actx;
	}

	regions_setup(&o, regions_tmp, sizeof(regions_tmp));
	err = tdr_recorder__new(&o, &rec);
	if (err) {
		regions_cleanup(regions_tmp);
		return err == -TDR_E_USAGE ? CLI_EXIT_USAGE : 1;
	}
	err = tdr_recorder__run(rec);
	regions_cleanup(regions_tmp);
	status = cli_run_status(&CLI_RUN_END(tdr_recorder__summary(rec)));
	if (!err && !quiet)
		print_summary(tdr_recorder__summary(rec));
	else if (err && !tdr_recorder__summary(rec)->exec_err && !quiet)
		print_summary(tdr_recorder__summary(rec)); /* what the file holds */
	tdr_recorder__free(rec);
	return status;
}
