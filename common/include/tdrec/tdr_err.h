/*
 * common/include/tdrec/tdr_err.h - tdrec error codes.
 *
 * Responsibility: the one error convention of tdrec. A function that can fail
 * returns int: 0 (or a non-negative count) on success, a negative code on
 * failure. The code is either -errno or -TDR_E_* below; tdr_strerror() turns
 * both kinds into text.
 */
#ifndef TDREC_TDR_ERR_H
#define TDREC_TDR_ERR_H

#include "tdrec/tdr_api.h"

enum tdr_err {
	TDR_E_FIRST = 4096,
	TDR_E_FORMAT = TDR_E_FIRST, /* not a tdrec (or perf.data) file */
	TDR_E_VERSION,		    /* written by a newer, incompatible version */
	TDR_E_CORRUPT,		    /* damaged or inconsistent content */
	TDR_E_TRUNCATED,	    /* ends before a required part */
	TDR_E_ZSTD,		    /* zstd (de)compression failed */
	TDR_E_ELF,		    /* libelf failed */
	TDR_E_DWARF,		    /* libdw failed */
	TDR_E_LIMIT,		    /* a size is above a documented cap */
	TDR_E_NOPLAN,		    /* no event plan fits this machine */
	TDR_E_USAGE,		    /* bad option or argument */
	TDR_E_NOTREG,		    /* a recording that is not a regular file (pipe, device) */
	TDR_E_UNSAFE,		    /* a cache directory another user could change (or a link) */
	TDR_E_LAST,
};

/* Text for a negative (or positive) error code of either kind. Never NULL. */
TDR_API const char *tdr_strerror(int err);

#endif /* TDREC_TDR_ERR_H */
