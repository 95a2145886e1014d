/*
 * report/strpool.c - string interning for row keys, and lists of strings.
 *
 * Responsibility: keep one copy of every distinct string a report uses
 * (function names, object paths, file names, thread names), so row keys can
 * be compared and hashed by pointer, and strings borrowed from the parser or
 * the symbolizer outlive them.
 * The strings are kept by common/'s interner (tdr_arena.h); this file
 * adds the report's conventions (NULL in, NULL out; errors through *err).
 * Objects and lifecycle: a zeroed struct strpool is empty; __intern adds;
 * __release frees everything.
 * Invariants: strings never move once interned.
 */
#include "report_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* Interned copy of the first n bytes of s. */
static const char *strpool__intern_n(struct strpool *p, const char *s, size_t n, int *err)
{
	const char *t;

	if (!s)
		return NULL;
	t = tdr_intern__strn(&p->in, s, n);
	if (!t)
		*err = -ENOMEM;
	return t;
}

const char *tdr_report_strpool__intern(struct strpool *p, const char *s, int *err)
{
	return s ? strpool__intern_n(p, s, strlen(s), err) : NULL;
}

void tdr_report_strpool__release(struct strpool *p)
{
	tdr_intern__fini(&p->in);
}

/* Append a copy of s. Returns 0 or -ENOMEM (the list unchanged). */
static int strlist__add(struct strlist *l, const char *s)
{
	char *copy;

	if (tdr_ensure_cap(&l->v, &l->cap, sizeof(*l->v), l->cnt + 1))
		return -ENOMEM;
	copy = tdr_strdup(s);
	if (!copy)
		return -ENOMEM;
	l->v[l->cnt++] = copy;
	return 0;
}

int tdr_report_strlist__vaddf(struct strlist *l, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return strlist__add(l, buf);
}

int tdr_report_strlist__addf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = tdr_report_strlist__vaddf(l, fmt, ap);
	va_end(ap);
	return err;
}

const char *tdr_report_strlist__at(const struct strlist *l, size_t idx)
{
	return idx < l->cnt ? l->v[idx] : NULL;
}

void tdr_report_strlist__release(struct strlist *l)
{
	for (size_t i = 0; i < l->cnt; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
