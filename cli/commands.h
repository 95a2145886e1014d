/*
 * cli/commands.h - the tdrec subcommands and the helpers they share.
 *
 * cli/ is the only code that touches argv, stdout and exit status. Each
 * subcommand lives in its own cmd_<name>.c and returns the process exit status.
 */
#ifndef TDREC_CLI_COMMANDS_H
#define TDREC_CLI_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

/* Exit status for usage errors and for commands not built yet. */
#define CLI_EXIT_USAGE 2

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_info(int argc, char **argv);

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

/* This boot's id (empty when unknown), to decide whether /proc/kallsyms
 * fits a recording. */
void cli_read_boot_id(char *buf, size_t sz);

#endif /* TDREC_CLI_COMMANDS_H */
