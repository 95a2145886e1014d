/*
 * cli/cli_util.c - error printing shared by the subcommands.
 */
#include "commands.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void cli_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err_json) {
		fputs("{\"error\": ", stdout);
		json_string(stdout, msg);
		fputs("}\n", stdout);
		fflush(stdout);
		return;
	}
	if (*command_name)
		fprintf(stderr, "tdrec %s: %s\n", command_name, msg);
	else
		fprintf(stderr, "tdrec: %s\n", msg);
}
