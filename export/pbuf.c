/*
 * export/pbuf.c - a growable byte buffer for the writers that build their output in memory.
 *
 * Responsibility: append bytes, remember an allocation failure (oom) so a
 * writer checks once at the end instead of after every append.
 */
#include "export_int.h"

#include <string.h>

#include "tdrec/tdr_mem.h"

void tdr_export_buf_put(struct ex_buf *b, const void *src, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n < b->len || tdr_ensure_cap(&b->p, &b->cap, 1, b->len + n)) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

void tdr_export_buf_release(struct ex_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
