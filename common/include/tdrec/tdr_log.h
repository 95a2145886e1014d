/*
 * common/include/tdrec/tdr_log.h - the one log output of tdrec.
 *
 * Modules never write to stdout or stderr themselves: they call tdr_warn(),
 * tdr_info() or tdr_debug(), which go to one sink the application may replace
 * (tdr_log_set_sink, once, before threads start). Each .c file defines
 * LOG_PREFIX (e.g. "format: ") before including this header to prefix its
 * messages. Message shape: "<module>: failed to <verb> <what>: <reason>".
 */
#ifndef TDREC_TDR_LOG_H
#define TDREC_TDR_LOG_H

#include <stdarg.h>
#include <stddef.h>

#include "tdrec/tdr_api.h"

enum tdr_log_level {
	TDR_LOG_WARN = 0,
	TDR_LOG_INFO = 1,
	TDR_LOG_DEBUG = 2,
};

typedef void (*tdr_log_fn)(enum tdr_log_level level, const char *fmt, va_list ap);

/* Replace the sink (NULL restores the default: stderr, "tdrec: " prefix). */
TDR_API void tdr_log_set_sink(tdr_log_fn fn);
/* Messages above this level are dropped (default TDR_LOG_INFO). */
TDR_API void tdr_log_set_level(enum tdr_log_level level);
TDR_API enum tdr_log_level tdr_log_get_level(void);

TDR_API void tdr_log(enum tdr_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Messages of workers that run side by side (threads, or forked processes
 * that send their capture back), shown once and in a fixed order: between
 * __start and __stop, the calling thread's messages (those
 * its level lets through) are kept in c instead of reaching the sink.
 * tdr_log_capture__replay then sends those of caps[0], caps[1], ... to the
 * sink in that order, each distinct (level, text) once, and frees them.
 */
struct tdr_log_capture {
	char *buf; /* records: level byte, text, NUL */
	size_t len, cap;
	unsigned long lost; /* messages not kept (out of memory) */
};

TDR_API void tdr_log_capture__start(struct tdr_log_capture *c);
TDR_API void tdr_log_capture__stop(void);
TDR_API void tdr_log_capture__replay(struct tdr_log_capture *caps, size_t cnt);

#ifndef LOG_PREFIX
#define LOG_PREFIX ""
#endif

#define tdr_warn(fmt, ...) tdr_log(TDR_LOG_WARN, LOG_PREFIX fmt, ##__VA_ARGS__)
#define tdr_info(fmt, ...) tdr_log(TDR_LOG_INFO, LOG_PREFIX fmt, ##__VA_ARGS__)
#define tdr_debug(fmt, ...) tdr_log(TDR_LOG_DEBUG, LOG_PREFIX fmt, ##__VA_ARGS__)

#ifdef TDR_DEBUG
#define tdr_trace(fmt, ...) tdr_log(TDR_LOG_DEBUG, LOG_PREFIX fmt, ##__VA_ARGS__)
#else
#define tdr_trace(fmt, ...) ((void)0)
#endif

#endif /* TDREC_TDR_LOG_H */
