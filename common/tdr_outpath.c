/*
 * common/tdr_outpath.c - the rule for where an output file may be written
 * (tdrec/tdr_outpath.h). It decides and checks; it opens nothing, so the
 * callers keep their own open flags (record's O_EXCL .partial, stat's
 * create-or-reuse).
 */
#include "tdrec/tdr_outpath.h"

#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>

#include "tdrec/tdr_err.h"

static const char *kind_words(mode_t m)
{
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int tdr_outpath_kind(const char *path, enum tdr_out_kind *kind, const char **why)
{
	struct stat st;

	*why = NULL;
	if (lstat(path, &st)) {
		if (errno == ENOENT) {
			*kind = TDR_OUT_FILE;
			return 0;
		}
		*why = "cannot be looked at";
		return -errno;
	}
	if (S_ISREG(st.st_mode)) {
		*kind = TDR_OUT_FILE;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		*why = "a directory";
		return -EISDIR;
	}
	if (S_ISLNK(st.st_mode)) {
		/* Replaced, not followed: fine when it names a file or nothing. */
		if (stat(path, &st) || S_ISREG(st.st_mode)) {
			*kind = TDR_OUT_FILE;
			return 0;
		}
		*why = S_ISDIR(st.st_mode)   ? "a symbolic link to a directory"
		       : S_ISBLK(st.st_mode) ? "a symbolic link to a block device (refused: "
					       "tdrec never writes over a disk)"
					     : "a symbolic link to a FIFO or device (refused: "
					       "name the FIFO or device itself)";
		return -TDR_E_NOTREG;
	}
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		*kind = TDR_OUT_IN_PLACE;
		return 0;
	}
	*why = S_ISBLK(st.st_mode) ? "a block device (refused: tdrec never writes over a disk)"
				   : kind_words(st.st_mode);
	return -TDR_E_NOTREG;
}

int tdr_outpath_check_fd(int fd, enum tdr_out_kind kind, const char **why)
{
	struct stat st;

	*why = NULL;
	if (fstat(fd, &st)) {
		*why = "cannot be looked at";
		return -errno;
	}
	if (kind == TDR_OUT_FILE ? S_ISREG(st.st_mode)
				 : S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		return 0;
	*why = kind == TDR_OUT_FILE ? "replaced while being opened: not a regular file now"
				    : kind_words(st.st_mode);
	return -TDR_E_NOTREG;
}
