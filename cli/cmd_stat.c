/*
 * cli/cmd_stat.c - 'tdrec stat' (not built yet).
 *
 * Until this command is implemented it says so and exits 2; it never prints
 * pretend output.
 */
#include "commands.h"

#include <stdio.h>

int cmd_stat(int argc, char **argv)
{
	if (argc > 1 && cli_is_help(argv[1])) {
		printf("usage: tdrec stat ...\n\n'tdrec stat' is not built yet in this version of tdrec.\n");
		return 0;
	}
	cli_err("'tdrec stat' is not built yet in this version of tdrec");
	return CLI_EXIT_USAGE;
}
