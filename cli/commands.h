/*
 * cli/commands.h - the tdrec subcommands and the helpers they share.
 *
 * cli/ is the only code that touches argv, stdout and exit status. Each
 * subcommand lives in its own cmd_<name>.c and returns the process exit status.
 */
#ifndef TDREC_CLI_COMMANDS_H
#define TDREC_CLI_COMMANDS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdrec/plan.h"
#include "tdrec/recorder.h"
#include "tdrec/report.h"

/* Exit status for usage errors and for commands not built yet. */
#define CLI_EXIT_USAGE 2

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_archive(int argc, char **argv);

/*
 * Print one error line "tdrec <cmd>: <message>" to stderr, or, when JSON
 * output was asked for, {"error": "..."} to stdout. Never exits.
 */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Make cli_err print JSON (set once by a command that got --json). */
void cli_err_set_json(bool json);
/* Name of the running subcommand for messages ("record"). */
void cli_set_command(const char *name);
const char *cli_command(void);

/* True when argv[i] is -h or --help. */
bool cli_is_help(const char *arg);

/*
 * Hold module log messages back while a file loads: when the load fails, the
 * one cli_err line says what went wrong and they would only repeat it; when it
 * succeeds, cli_log_release(true) prints them as usual. Restores the default
 * log sink.
 */
void cli_log_hold(void);
void cli_log_release(bool print);

/*
 * tdr_report__load with this boot's id (kernel symbols apply to a recording
 * of this boot), holding the module log back while it loads (cli_log_hold).
 * Returns what tdr_report__load returned; the caller prints the error.
 */
int cli_load_report(const char *path, const struct tdr_report_opts *opts, struct tdr_report **out);
/* The load options of this boot (its id: kernel symbols apply to a
 * recording of it) and the cache directory, in the caller's buffers; used by
 * cli_load_report and the other loaders (export, archive). */
void cli_load_opts(struct tdr_report_load_opts *lo, char *boot_id, size_t boot_id_sz,
		   char *cache, size_t cache_sz);

/*
 * Option values. Each prints one cli_err line and returns -1 on bad input,
 * else 0. opt names the option in the message ("--limit").
 */
/* A decimal number from 0 to max. */
int cli_parse_uint(const char *opt, const char *text, uint64_t max, uint64_t *out);
/* A decimal number from min to max (a count, a period, milliseconds). */
int cli_parse_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* --plan: auto or a family of the TopDown table (tdr_plan_kind_parse). */
int cli_parse_plan(const char *text, enum tdr_plan_kind *out);

/*
 * The options 'report' and 'diff' both take, with the same meaning:
 * --inline, --dso, --comm, --min-samples, -n/--limit, -w/--width and --json.
 * A command lists them in its long options with these codes ('n' and 'w' for
 * the two with short forms) and numbers its own from CLI_OPT_REPORT_END.
 */
enum {
	CLI_OPT_INLINE = 256,
	CLI_OPT_DSO,
	CLI_OPT_COMM,
	CLI_OPT_MIN_SAMPLES,
	CLI_OPT_JSON,
	CLI_OPT_REPORT_END,
};

/* Help text shared by 'report' and 'diff': the -w line (ending with the
 * formats that keep names whole) and the environment variables. */
#define CLI_HELP_WIDTH                                                                             \
	"  -w, --width N        text width in columns (default 100, or the terminal's\n"           \
	"                       when narrower; at least 60; 0 = no limit); on a\n"                 \
	"                       terminal, or with -w, long names are cut in the middle\n"          \
	"                       ('...'); into a pipe or file they are whole, as in "
#define CLI_HELP_REPORT_ENV                                                                        \
	"  TDREC_CACHE_DIR  where kernel symbol tables (per boot) and uncompressed\n"              \
	"                   copies of compressed debug files (per build-id) are\n"                 \
	"                   cached (default $XDG_CACHE_HOME/tdrec or ~/.cache/tdrec;\n"            \
	"                   empty: no cache); docs/symbolize.md\n"                                 \
	"  NO_COLOR         no colour in text output\n"

#define CLI_MAX_LIST 64 /* names in --dso, --comm (and ids in --pid, --tid) */

struct cli_report_args {
	struct tdr_report_opts opts; /* its filter's lists point into dsos, comms */
	struct tdr_render_opts render;
	bool limit_given;	  /* -n was given */
	bool width_given;	  /* -w was given */
	const char *by_option;	  /* the option that chose opts.by, or NULL */
	char *dso_buf, *comm_buf; /* the names point into these copies */
	const char *dsos[CLI_MAX_LIST], *comms[CLI_MAX_LIST];
};

/* Apply option c (its value arg) to a when it is one of the shared ones.
 * Returns 1 when it was, 0 when c is not one of them, -1 after a cli_err
 * line (a bad value). */
int cli_report_option(struct cli_report_args *a, int c, const char *arg);
/* Group rows by `by`, as option `option` asks. Returns 0, or -1 after a
 * cli_err line when an earlier option chose another grouping. */
int cli_report_args__set_by(struct cli_report_args *a, enum tdr_report_by by, const char *option);
/* Free the name lists' copies. */
void cli_report_args__release(struct cli_report_args *a);
/* Text output without -w: the terminal's width when stdout is one narrower
 * than the renderer's default (100 columns); whole names when stdout is
 * not a terminal. */
void cli_report_args__text_width(struct cli_report_args *a);

#define CLI_MAX_PIDS 64 /* processes in -p */

/*
 * The options 'record' and 'stat' both take, with the same meaning: what to
 * measure (a program, -p PID[,PID...] or -a), -o FILE, --plan and --kernel.
 * A command lists CLI_TARGET_LONG_OPTS in its long options, "p:ao:" in its
 * short ones, and numbers its own from CLI_OPT_TARGET_END.
 */
enum {
	CLI_OPT_PLAN = 256,
	CLI_OPT_KERNEL,
	CLI_OPT_TARGET_END,
};

#define CLI_TARGET_LONG_OPTS                                                                       \
	{"pid", required_argument, NULL, 'p'}, {"all-cpus", no_argument, NULL, 'a'},               \
	    {"output", required_argument, NULL, 'o'},                                              \
	    {"plan", required_argument, NULL, CLI_OPT_PLAN},                                       \
	{                                                                                          \
		"kernel", no_argument, NULL, CLI_OPT_KERNEL                                        \
	}

struct cli_targets {
	struct tdr_target_opts what; /* its pids point into pids */
	pid_t pids[CLI_MAX_PIDS];
	const char *output; /* -o, or NULL */
	bool started;	    /* getopt reset by cli_targets_getopt */
};

#define CLI_OPT_BAD (-2) /* cli_targets_getopt: a shared option had a bad value */

/*
 * getopt_long over a 'record' or 'stat' command line (zeroed t first): the
 * shared options ("p:ao:" and CLI_TARGET_LONG_OPTS) are applied to t, and
 * the next other option is returned for the command: c as getopt_long gives
 * it (':' and '?' included), -1 after the last option (the program starts
 * at optind: the first non-option stops the scan), or CLI_OPT_BAD after a
 * cli_err line. shortopts are the command's own short options.
 */
int cli_targets_getopt(struct cli_targets *t, int argc, char **argv, const char *shortopts,
		       const struct option *longopts);
/* After the options: the program is what follows them; -p goes alone, and
 * one of the three is needed unless optional. verb says what is done
 * ("record", "count"). Returns 0, or -1 after a cli_err line. */
int cli_targets_finish(struct cli_targets *t, int argc, char **argv, bool optional,
		       const char *verb);
/* The getopt ':' (missing value) or unknown option c as one cli_err line.
 * Returns CLI_EXIT_USAGE. */
int cli_bad_option(int c, char **argv);
/* Commands of one FILE operand (info, archive): argv[*i], not one of the
 * command's options, is "--" (then FILE is the last argument; *i moves to
 * it), another option (unknown), or FILE (*path, which must be unset). A
 * NULL path checks that a FILE was given (argv unused). Returns 0, or
 * CLI_EXIT_USAGE after a cli_err line. */
int cli_file_operand(int argc, char **argv, int *i, const char **path);
int cli_file_given(const char *path);

/* How a run of 'record' or 'stat' ended (from their summaries). */
struct cli_run_end {
	int exec_err; /* -errno when the program could not be started */
	bool launched, exited;
	int exit_code, term_signal;
	int write_err;
};

/*
 * The exit status of a run that happened: 127 (126) when the program does
 * not exist (cannot be run), its own status, 128+N with a line on stderr
 * when it died of signal N, and 1 for a write error after a success.
 */
int cli_run_status(const struct cli_run_end *e);
/* The cli_run_end of a tdr_record_summary or tdr_stat_summary pointer s. */
#define CLI_RUN_END(s)                                                                             \
	((struct cli_run_end){.exec_err = (s)->exec_err,                                           \
			      .launched = (s)->launched,                                           \
			      .exited = (s)->exited,                                               \
			      .exit_code = (s)->exit_code,                                         \
			      .term_signal = (s)->term_signal,                                     \
			      .write_err = (s)->write_err})

#endif /* TDREC_CLI_COMMANDS_H */
