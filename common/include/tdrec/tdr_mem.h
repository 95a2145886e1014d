/*
 * common/include/tdrec/tdr_mem.h - allocation, cleanup and growable arrays.
 *
 * All tdrec allocations go through tdr_malloc/tdr_calloc/tdr_strdup/
 * tdr_ensure_cap so that tests can make the Nth allocation fail
 * (tdr_mem_fail_after) and check that every error path is clean and leak-free.
 * The wrappers behave exactly like the libc functions otherwise.
 */
#ifndef TDREC_TDR_MEM_H
#define TDREC_TDR_MEM_H

#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "tdrec/tdr_api.h"

TDR_API void *tdr_malloc(size_t sz);
TDR_API void *tdr_calloc(size_t n, size_t sz);
TDR_API char *tdr_strdup(const char *s);
/* Copy of the first n bytes of s plus a NUL (s need not be terminated). */
TDR_API char *tdr_strndup(const char *s, size_t n);

/*
 * Fault injection for tests: after n more successful allocations, every
 * allocation fails (returns NULL) until tdr_mem_fail_after(-1) turns it off.
 * Not thread-safe; tests only.
 */
TDR_API void tdr_mem_fail_after(long n);

/*
 * Make sure *p (an array of elem_sz elements, *cap of them allocated) has room
 * for at least need elements, growing geometrically. On failure *p and *cap
 * are left untouched.
 * Returns: 0 or -ENOMEM (or -EOVERFLOW when need * elem_sz overflows).
 */
TDR_API int tdr_ensure_cap(void *p, size_t *cap, size_t elem_sz, size_t need);

/* Free *pp and set it to NULL. */
#define zfree(pp)                                                                                  \
	do {                                                                                       \
		free(*(pp));                                                                       \
		*(pp) = NULL;                                                                      \
	} while (0)

/* Close fd if it is open and set it to -1. */
#define zclose(fd)                                                                                 \
	do {                                                                                       \
		if ((fd) >= 0)                                                                     \
			close(fd);                                                                 \
		(fd) = -1;                                                                         \
	} while (0)

#define TDR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* TDREC_TDR_MEM_H */
