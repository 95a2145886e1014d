/*
 * cli/cli_util.c - error printing and small helpers shared by the subcommands.
 */
#include "commands.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_log.h"

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
	for (size_t i = 0; print && i < held_cnt; i++)
		fprintf(stderr, "tdrec: %s\n", held[i]);
	held_cnt = 0;
}

void cli_read_boot_id(char *buf, size_t sz)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)sz, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}
