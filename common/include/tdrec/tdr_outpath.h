/*
 * common/include/tdrec/tdr_outpath.h - where an output file named by -o may
 * be written, and how.
 *
 * One rule for 'record -o' and 'stat -o' (docs/security.md "Output
 * files"): the path is looked at with lstat(), never through a symbolic
 * link. A new path, a regular file, or a symbolic link to a regular file
 * (or to nothing) is an ordinary output (record writes FILE.partial and
 * renames it over the path, which replaces a link, never its target). A
 * FIFO or a character device (/dev/null, a terminal) that is not reached
 * through a symbolic link is written in place. Anything else is refused:
 * a directory, a block device, a socket, and a symbolic link to a FIFO or
 * device (as root with a predictable -o in a shared directory, such a link
 * would have the recording written over a disk).
 */
#ifndef TDREC_TDR_OUTPATH_H
#define TDREC_TDR_OUTPATH_H

#include "tdrec/tdr_api.h"

enum tdr_out_kind {
	TDR_OUT_FILE,	  /* absent, a regular file, or a link to one (or to nothing) */
	TDR_OUT_IN_PLACE, /* a FIFO or character device, not through a link */
};

/* Decide for path. Returns 0 with *kind, or -EISDIR / -TDR_E_NOTREG /
 * -errno (lstat failed other than ENOENT) with *why saying it in words
 * (for "cannot write PATH: WHY"). */
TDR_API int tdr_outpath_kind(const char *path, enum tdr_out_kind *kind, const char **why);

/*
 * Check the output just opened as fd against kind (what it was decided
 * for: the path may have been replaced in between). Returns 0 when fd is
 * a regular file (TDR_OUT_FILE) or a FIFO or character device
 * (TDR_OUT_IN_PLACE), else -TDR_E_NOTREG with *why. An in-place output is
 * to be opened with O_NOFOLLOW, so that a link put there in between is
 * refused by open() itself.
 */
TDR_API int tdr_outpath_check_fd(int fd, enum tdr_out_kind kind, const char **why);

#endif /* TDREC_TDR_OUTPATH_H */
