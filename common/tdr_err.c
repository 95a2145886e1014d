/*
 * common/tdr_err.c - text for tdrec error codes.
 */
#include "tdrec/tdr_err.h"

#include <string.h>

static const char *const tdr_err_text[TDR_E_LAST - TDR_E_FIRST] = {
	[TDR_E_FORMAT - TDR_E_FIRST] = "not a tdrec or perf.data file",
	[TDR_E_VERSION - TDR_E_FIRST] = "written by a newer, incompatible format version",
	[TDR_E_CORRUPT - TDR_E_FIRST] = "corrupt data",
	[TDR_E_TRUNCATED - TDR_E_FIRST] = "file is truncated",
	[TDR_E_ZSTD - TDR_E_FIRST] = "zstd error",
	[TDR_E_ELF - TDR_E_FIRST] = "ELF error",
	[TDR_E_DWARF - TDR_E_FIRST] = "DWARF error",
	[TDR_E_LIMIT - TDR_E_FIRST] = "size above the documented limit",
	[TDR_E_NOPLAN - TDR_E_FIRST] = "no event plan can be opened on this machine",
	[TDR_E_USAGE - TDR_E_FIRST] = "invalid usage",
	[TDR_E_NOTREG - TDR_E_FIRST] = "not a regular file",
	[TDR_E_UNSAFE - TDR_E_FIRST] =
	    "not trusted (a symbolic link, another user's, or writable by others)",
};

const char *tdr_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= TDR_E_FIRST && err < TDR_E_LAST)
		return tdr_err_text[err - TDR_E_FIRST];
	/* strerror() is not thread-safe in theory; glibc returns static text for
	 * known codes, which is all we pass. */
	return strerror(err);
}
