/*
 * common/tdr_arena.c - chunk allocator and string interner.
 *
 * Responsibility: see tdr_arena.h. The arena is the one bump allocator of
 * tdrec (report's string pool, the symbolizer's results and kernel names,
 * the parser's strings all draw from it); the interner is the one string
 * set.
 * Invariants: every chunk's data is 8-byte aligned and every allocation a
 * multiple of 8 bytes, so every pointer handed out is 8-byte aligned.
 */
#include "tdrec/tdr_arena.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_mem.h"

struct tdr_arena_chunk {
	struct tdr_arena_chunk *next;
	size_t used, cap;
	_Alignas(8) char data[];
};

void *tdr_arena__alloc(struct tdr_arena *a, size_t sz)
{
	struct tdr_arena_chunk *c = a->head;
	void *p;

	if (sz > SIZE_MAX - 7 - sizeof(*c))
		return NULL;
	sz = (sz + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < sz) {
		size_t cap = sz > TDR_ARENA_CHUNK_SZ ? sz : TDR_ARENA_CHUNK_SZ;

		c = tdr_malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* A one-off big chunk goes behind the partly used head, whose
		 * free tail stays usable. */
		if (a->head && cap > TDR_ARENA_CHUNK_SZ) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = c->data + c->used;
	c->used += sz;
	return p;
}

char *tdr_arena__strndup(struct tdr_arena *a, const char *s, size_t n)
{
	char *p = n < SIZE_MAX ? tdr_arena__alloc(a, n + 1) : NULL;

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *tdr_arena__strdup(struct tdr_arena *a, const char *s)
{
	return tdr_arena__strndup(a, s, strlen(s));
}

void tdr_arena__fini(struct tdr_arena *a)
{
	struct tdr_arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ---------------------------------------------------------------------------
 * Interner.
 */
struct intern_key {
	const char *s;
	size_t n;
	uint64_t hash;
};

static uint64_t intern_hash(const void *ctx, uint32_t idx)
{
	const struct tdr_intern_ent *e = ctx;

	return e[idx].hash;
}

static bool intern_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_intern_ent *e = (const struct tdr_intern_ent *)ctx + idx;
	const struct intern_key *k = key;

	return e->hash == k->hash && !strncmp(e->s, k->s, k->n) && e->s[k->n] == '\0';
}

uint32_t tdr_intern__idx(struct tdr_intern *t, const char *s, size_t n)
{
	struct intern_key k = {.s = s, .n = n, .hash = tdr_hash_bytes(s, n)};
	uint32_t i;
	size_t pos;
	char *copy;

	/* Room first, so that one probe finds the string or its slot. */
	if (tdr_hmap__reserve(&t->index, 256, intern_hash, t->ents))
		return UINT32_MAX;
	i = tdr_hmap__find(&t->index, k.hash, intern_eq, t->ents, &k, &pos);
	if (i != TDR_HMAP_NONE)
		return i;
	if (t->index.cnt >= UINT32_MAX - 1 ||
	    tdr_ensure_cap(&t->ents, &t->ents_cap, sizeof(*t->ents), t->index.cnt + 1))
		return UINT32_MAX;
	copy = tdr_arena__strndup(&t->mem, s, n);
	if (!copy)
		return UINT32_MAX;
	t->ents[t->index.cnt] = (struct tdr_intern_ent){.s = copy, .hash = k.hash};
	return tdr_hmap__add(&t->index, pos);
}

const char *tdr_intern__strn(struct tdr_intern *t, const char *s, size_t n)
{
	uint32_t i = tdr_intern__idx(t, s, n);

	return i == UINT32_MAX ? NULL : t->ents[i].s;
}

const char *tdr_intern__str(struct tdr_intern *t, const char *s)
{
	return tdr_intern__strn(t, s, strlen(s));
}

void tdr_intern__fini(struct tdr_intern *t)
{
	tdr_arena__fini(&t->mem);
	tdr_hmap__fini(&t->index);
	zfree(&t->ents);
	t->ents_cap = 0;
}
