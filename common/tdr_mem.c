/*
 * common/tdr_mem.c - allocation wrappers with a fault-injection hook.
 */
#include "tdrec/tdr_mem.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* -1: never fail. Otherwise the number of allocations still allowed. */
static long alloc_budget = -1;

static int alloc_allowed(void)
{
	if (alloc_budget < 0)
		return 1;
	if (alloc_budget == 0)
		return 0;
	alloc_budget--;
	return 1;
}

void tdr_mem_fail_after(long n)
{
	alloc_budget = n;
}

void *tdr_malloc(size_t sz)
{
	return alloc_allowed() ? malloc(sz) : NULL;
}

void *tdr_calloc(size_t n, size_t sz)
{
	return alloc_allowed() ? calloc(n, sz) : NULL;
}

static void *mem_realloc(void *p, size_t sz)
{
	return alloc_allowed() ? realloc(p, sz) : NULL;
}

char *tdr_strndup(const char *s, size_t n)
{
	char *d = tdr_malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *tdr_strdup(const char *s)
{
	return tdr_strndup(s, strlen(s));
}

int tdr_ensure_cap(void *p, size_t *cap, size_t elem_sz, size_t need)
{
	void **data = p;
	size_t new_cap;
	void *n;

	if (need <= *cap)
		return 0;
	new_cap = *cap ? *cap : 16;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2)
			return -EOVERFLOW;
		new_cap *= 2;
	}
	if (elem_sz && new_cap > SIZE_MAX / elem_sz)
		return -EOVERFLOW;
	n = mem_realloc(*data, new_cap * elem_sz);
	if (!n)
		return -ENOMEM;
	*data = n;
	*cap = new_cap;
	return 0;
}
