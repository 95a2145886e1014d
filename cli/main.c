/*
 * cli/main.c - tdrec entry point: global options and subcommand dispatch.
 */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_log.h"

static const char usage_text[] =
	"usage: tdrec <command> [options]\n"
	"\n"
	"Find the functions that lose CPU pipeline slots, and to what (TopDown:\n"
	"retiring, bad speculation, frontend bound, backend bound).\n"
	"\n"
	"commands:\n"
	"  record   run a program (or attach) and record TopDown samples into a .tdr file\n"
	"  report   attribute a recording's samples to functions, inlines and lines\n"
	"           (--regions: the regions a program marked with libtdrec)\n"
	"  diff     compare two recordings function by function\n"
	"  stat     count TopDown for a whole run (or per interval), no sampling\n"
	"  info     show what a recording holds\n"
	"  export   write a recording as pprof, folded stacks, speedscope or html (--push)\n"
	"  archive  store the symbols of a recording in it (a perf.data: into a .tdr)\n"
	"\n"
	"options:\n"
	"  -h, --help     this text; 'tdrec <command> --help' for a command's options\n"
	"  -V, --version  print the version\n"
	"\n"
	"environment:\n"
	"  TDREC_SYSFS      root of the sysfs tree used for PMU discovery (default /sys)\n"
	"  TDREC_CACHE_DIR  cache of kernel symbols and uncompressed debug files\n"
	"                   for report and diff (default $XDG_CACHE_HOME/tdrec or\n"
	"                   ~/.cache/tdrec; empty: none)\n"
	"  NO_COLOR         no colour in text output\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "record", cmd_record }, { "report", cmd_report }, { "diff", cmd_diff },
	{ "stat", cmd_stat },	  { "info", cmd_info },
	{ "export", cmd_export },
	{ "archive", cmd_archive },
};

/* Output that never reached standard output (a full disk, a closed or
 * broken pipe) fails a command that succeeded otherwise: one line, exit 1.
 * A command that failed has said why already; report, diff and stat check
 * their own writes. */
static int stdout_status(int status)
{
	int e = fflush(stdout) ? errno : ferror(stdout) ? EIO : 0;

	if (!e || status)
		return status;
	cli_err_set_json(false); /* the JSON error would go where writes fail */
	cli_err("cannot write to standard output: %s", strerror(e));
	return 1;
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_text, stderr);
		return CLI_EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("tdrec %s\n", TDREC_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			cli_set_command(commands[i].name);
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	cli_err("unknown command '%s' (see 'tdrec --help')", argv[1]);
	return CLI_EXIT_USAGE;
}

/*
 * A standard stream the caller closed (prog >&-) would be taken by tdrec's
 * next open(): its output or log lines would go into a signalfd, a perf
 * event or the recording. Each one closed is held by /dev/null opened
 * read-only, so writes to it fail (EBADF) as they would have, and
 * close-on-exec, so a launched program gets it closed, as given.
 */
static void hold_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY | O_CLOEXEC) != fd)
			break; /* a lower one could not be held: nothing to do */
}

int main(int argc, char **argv)
{
	hold_closed_std_fds();
	return stdout_status(run_command(argc, argv));
}
