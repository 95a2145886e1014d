/*
 * tests/support/test_log.h - what tdrec logs, kept for a test to read.
 *
 * test_log_start() sends every log line (tdr_log.h) into test_log_text,
 * one line each, until test_log_stop() gives the default sink back;
 * test_log_capture(level) also sets the level kept; test_log_quiet()
 * drops every message instead. The text keeps the first
 * sizeof(test_log_text) - 1 bytes.
 */
#ifndef TDREC_TESTS_SUPPORT_TEST_LOG_H
#define TDREC_TESTS_SUPPORT_TEST_LOG_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_log.h"

static char test_log_text[16384];

static inline void test_log_keep(enum tdr_log_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(test_log_text);

	(void)level;
	vsnprintf(test_log_text + n, sizeof(test_log_text) - n, fmt, ap);
	n = strlen(test_log_text);
	snprintf(test_log_text + n, sizeof(test_log_text) - n, "\n");
}

static inline void test_log_start(void)
{
	test_log_text[0] = '\0';
	tdr_log_set_sink(test_log_keep);
}

/* Start keeping messages up to level. */
static inline void test_log_capture(enum tdr_log_level level)
{
	test_log_start();
	tdr_log_set_level(level);
}

static inline void test_log_drop(enum tdr_log_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
}

/* Drop every message (a test of damaged input that warns a lot). */
static inline void test_log_quiet(void)
{
	tdr_log_set_sink(test_log_drop);
}

static inline void test_log_stop(void)
{
	tdr_log_set_sink(NULL);
}

#endif /* TDREC_TESTS_SUPPORT_TEST_LOG_H */
