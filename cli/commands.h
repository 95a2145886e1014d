/*
 * cli/commands.h - the tdrec subcommands and the helpers they share.
 *
 * cli/ is the only code that touches argv, stdout and exit status. Each
 * subcommand lives in its own cmd_<name>.c and returns the process exit status.
 */
#ifndef TDREC_CLI_COMMANDS_H
#define TDREC_CLI_COMMANDS_H

#include <stdbool.h>

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

#endif /* TDREC_CLI_COMMANDS_H */
