/*
 * report/strpool.c - string interning for row keys, and lists of strings.
 *
 * Responsibility: keep one copy of every distinct string a report uses
 * (function names, object paths, file names, thread names), so row keys can
 * be compared and hashed by pointer, and strings borrowed from the parser or
 * the symbolizer outlive them.
 * Objects and lifecycle: a zeroed struct strpool is empty; __intern adds;
 * __release frees everything.
 * Invariants: slots is an open-addressing set (linear probing, load <= 1/2)
 * of pointers into chunks; strings never move once interned.
 */
#include "report_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

#define CHUNK_SZ (64u * 1024)

struct strpool_chunk {
	struct strpool_chunk *next;
	size_t used, cap;
	char data[];
};

uint64_t report_hash_bytes(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static char *pool_alloc(struct strpool *p, size_t n)
{
	struct strpool_chunk *c = p->chunks;
	char *s;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > CHUNK_SZ ? n : CHUNK_SZ;

		c = tdr_malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* A string bigger than a chunk gets its own chunk behind the
		 * current one, so the current chunk's free space is not lost. */
		if (p->chunks && cap > CHUNK_SZ) {
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
	}
	s = c->data + c->used;
	c->used += n;
	return s;
}

static int pool_grow(struct strpool *p)
{
	size_t cap = p->cap ? p->cap * 2 : 256;
	const char **slots = tdr_calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++) {
		const char *s = p->slots[i];
		size_t j;

		if (!s)
			continue;
		j = report_hash_bytes(s, strlen(s)) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = s;
	}
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
	return 0;
}

const char *strpool__intern_n(struct strpool *p, const char *s, size_t n, int *err)
{
	uint64_t h;
	size_t j;
	char *copy;

	if (!s)
		return NULL;
	if ((p->cnt + 1) * 2 > p->cap && pool_grow(p)) {
		*err = -ENOMEM;
		return NULL;
	}
	h = report_hash_bytes(s, n);
	for (j = h & (p->cap - 1); p->slots[j]; j = (j + 1) & (p->cap - 1)) {
		const char *t = p->slots[j];

		if (!strncmp(t, s, n) && t[n] == '\0')
			return t;
	}
	copy = pool_alloc(p, n + 1);
	if (!copy) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(copy, s, n);
	copy[n] = '\0';
	p->slots[j] = copy;
	p->cnt++;
	return copy;
}

const char *strpool__intern(struct strpool *p, const char *s, int *err)
{
	return s ? strpool__intern_n(p, s, strlen(s), err) : NULL;
}

void strpool__release(struct strpool *p)
{
	struct strpool_chunk *c = p->chunks;

	while (c) {
		struct strpool_chunk *next = c->next;

		free(c);
		c = next;
	}
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

int strlist__add(struct strlist *l, const char *s)
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

int strlist__vaddf(struct strlist *l, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	return strlist__add(l, buf);
}

int strlist__addf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = strlist__vaddf(l, fmt, ap);
	va_end(ap);
	return err;
}

const char *strlist__at(const struct strlist *l, size_t idx)
{
	return idx < l->cnt ? l->v[idx] : NULL;
}

void strlist__release(struct strlist *l)
{
	for (size_t i = 0; i < l->cnt; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
