/*
 * common/tdr_log.c - default log sink and level filter.
 *
 * The sink and level are the only global state (docs/architecture.md "Conventions");
 * both are set once by cli/ before any thread starts. A thread's capture
 * (tdr_log_capture__start) is its own: thread-local.
 */
#include "tdrec/tdr_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_textout.h"

/* One message as the sink receives it, at most (longer ones are cut). */
#define MSG_MAX 2048

static tdr_log_fn log_sink;
static enum tdr_log_level log_level = TDR_LOG_INFO;
static __thread struct tdr_log_capture *capture;

static void default_sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	char msg[MSG_MAX];

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

/* Keep one message in c: its level byte, its text, a NUL. */
static void keep(struct tdr_log_capture *c, enum tdr_log_level level, const char *fmt,
		 va_list ap)
{
	char msg[MSG_MAX];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	if (tdr_ensure_cap(&c->buf, &c->cap, 1, c->len + n + 2)) {
		c->lost++;
		return;
	}
	c->buf[c->len] = (char)level;
	memcpy(c->buf + c->len + 1, msg, n + 1);
	c->len += n + 2;
}

void tdr_log(enum tdr_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	if (capture)
		keep(capture, level, fmt, ap);
	else
		(log_sink ? log_sink : default_sink)(level, fmt, ap);
	va_end(ap);
}

void tdr_log_capture__start(struct tdr_log_capture *c)
{
	capture = c;
}

void tdr_log_capture__stop(void)
{
	capture = NULL;
}

static void emit(enum tdr_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(log_sink ? log_sink : default_sink)(level, fmt, ap);
	va_end(ap);
}

struct replayed {
	const char **rec; /* each distinct record shown, at its level byte */
	size_t cnt, cap;
};

static uint64_t rec_hash(const void *ctx, uint32_t idx)
{
	const char *r = ((const struct replayed *)ctx)->rec[idx];

	return tdr_hash_combine(tdr_hash_str(r + 1), (unsigned char)r[0]);
}

static bool rec_eq(const void *ctx, uint32_t idx, const void *key)
{
	const char *r = ((const struct replayed *)ctx)->rec[idx], *k = key;

	return r[0] == k[0] && !strcmp(r + 1, k + 1);
}

void tdr_log_capture__replay(struct tdr_log_capture *caps, size_t cnt)
{
	struct replayed seen = {0};
	struct tdr_hmap index = {0};
	unsigned long lost = 0;

	for (size_t i = 0; i < cnt; i++) {
		struct tdr_log_capture *c = &caps[i];

		for (size_t at = 0; at < c->len; at += strlen(c->buf + at + 1) + 2) {
			const char *r = c->buf + at;
			uint64_t h = rec_hash(&(struct replayed){.rec = &r}, 0);
			size_t pos;

			/* Without memory to tell repeats apart, a repeat is shown. */
			if (tdr_hmap__reserve(&index, 64, rec_hash, &seen) ||
			    tdr_ensure_cap(&seen.rec, &seen.cap, sizeof(*seen.rec), seen.cnt + 1)) {
				emit((enum tdr_log_level)r[0], "%s", r + 1);
				continue;
			}
			if (tdr_hmap__find(&index, h, rec_eq, &seen, r, &pos) != TDR_HMAP_NONE)
				continue;
			seen.rec[seen.cnt++] = r;
			tdr_hmap__add(&index, pos);
			emit((enum tdr_log_level)r[0], "%s", r + 1);
		}
		lost += c->lost;
	}
	if (lost)
		emit(TDR_LOG_WARN, "%lu messages were not shown (out of memory)", lost);
	tdr_hmap__fini(&index);
	free(seen.rec);
	for (size_t i = 0; i < cnt; i++) {
		free(caps[i].buf);
		memset(&caps[i], 0, sizeof(caps[i]));
	}
}
