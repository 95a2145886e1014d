/*
 * common/tdr_log.c - default log sink and level filter.
 *
 * The sink and level are the only global state (docs/architecture.md "Conventions");
 * both are set once by cli/ before any thread starts.
 */
#include "tdrec/tdr_log.h"

#include <stdio.h>

#include "tdrec/tdr_textout.h"

static tdr_log_fn log_sink;
static enum tdr_log_level log_level = TDR_LOG_INFO;

static void default_sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	char msg[2048];

	(void)level;
	/* Messages name paths and names from files: shown without their
	 * control characters (tdr_textout.h). One message is one line. */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fputs("tdrec: ", stderr);
	tdr_text_put(stderr, msg);
	fputc('\n', stderr);
}

void tdr_log_set_sink(tdr_log_fn fn)
{
	log_sink = fn;
}

void tdr_log_set_level(enum tdr_log_level level)
{
	log_level = level;
}

enum tdr_log_level tdr_log_get_level(void)
{
	return log_level;
}

void tdr_log(enum tdr_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	(log_sink ? log_sink : default_sink)(level, fmt, ap);
	va_end(ap);
}
