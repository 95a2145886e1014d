/*
 * symbolize/cachefile.c - files in tdrec's cache directory: paths, atomic
 * writes and the checks every cache file passes before it is read.
 *
 * Responsibility: what the kernel symbol cache (kcache.c) and the debug file
 * cache (debugcache.c) share. A cache file is written as a temporary file
 * (mkstemp: mode 0600) in its final directory (created 0700 when missing)
 * and renamed over the final name only once complete, so that a reader sees
 * the old file or the new one, never half of one. Before a cache file is
 * read it must be a regular file of this user that group and others cannot
 * write: the cache is untrusted input, and a file someone else could have
 * put or changed there is not used.
 * The cache directory itself is resolved once, by the CLI ($TDREC_CACHE_DIR,
 * $XDG_CACHE_HOME/tdrec, ~/.cache/tdrec), and handed down in the options.
 * The directories get the same distrust as the files: before a file is read,
 * written or removed in one, it and the cache directory above it must be
 * real directories (not symbolic links) of this user that group and others
 * cannot write; else another user's link (cache/debug -> /root-only) would
 * have tdrec write and prune where that user cannot (docs/security.md).
 * Ownership and threads: no state; callable from any thread.
 * See: docs/symbolize.md "Kernel symbol cache", "Debug file cache".
 */
#include "symbolize_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

char *tdr_symbolize_cache__path(const char *dir, const char *name, const char *suffix)
{
	size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
	char *p = tdr_malloc(n);

	if (p)
		snprintf(p, n, "%s/%s%s", dir, name, suffix);
	return p;
}

/* mkdir -p, new directories 0700. Returns 0 or -errno. */
static int make_dirs(const char *dir)
{
	char *p = tdr_strdup(dir);
	int err = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c && c != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST) {
			err = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return err;
}

int tdr_symbolize_cache__write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int tdr_symbolize_cache__dir_check(const char *dir, int levels, const char **why)
{
	char *p = tdr_strdup(dir);
	int err = 0;

	*why = NULL;
	if (!p)
		return -ENOMEM;
	for (int i = 0; i < levels && p[0]; i++) {
		struct stat st;
		char *slash;

		if (lstat(p, &st)) {
			/* Absent (made later, 0700): its parent still counts. */
			if (errno != ENOENT) {
				err = -errno;
				break;
			}
			err = -ENOENT;
		} else if (S_ISLNK(st.st_mode)) {
			*why = "a cache directory is a symbolic link";
		} else if (!S_ISDIR(st.st_mode)) {
			*why = "a cache directory is not a directory";
		} else if (st.st_uid != geteuid()) {
			*why = "a cache directory is another user's";
		} else if (st.st_mode & 022) {
			*why = "a cache directory is writable by group or others";
		}
		if (*why) {
			err = -TDR_E_UNSAFE;
			break;
		}
		slash = strrchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	free(p);
	return err;
}

int tdr_symbolize_cache__create(const char *dir, int levels, const char *name, char **tmp)
{
	const char *why;
	size_t n;
	int fd, err;

	*tmp = NULL;
	err = make_dirs(dir);
	if (!err)
		err = tdr_symbolize_cache__dir_check(dir, levels, &why);
	if (err)
		return err;
	/* A hidden name: a crashed writer's leftover never looks like a cache
	 * file (debugcache.c's pruning removes old ones). */
	n = strlen(dir) + strlen(name) + sizeof("/..XXXXXX");
	*tmp = tdr_malloc(n);
	if (!*tmp)
		return -ENOMEM;
	snprintf(*tmp, n, "%s/.%s.XXXXXX", dir, name);
	fd = mkstemp(*tmp); /* mode 0600 */
	if (fd < 0) {
		err = -errno;
		zfree(tmp);
		return err;
	}
	return fd;
}

int tdr_symbolize_cache__finish(const char *dir, const char *name, char *tmp, int err)
{
	char *dst = err ? NULL : tdr_symbolize_cache__path(dir, name, "");

	if (!err && !dst)
		err = -ENOMEM;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	free(dst);
	free(tmp);
	return err;
}

int tdr_symbolize_cache__check(int fd, struct stat *st, const char **why)
{
	*why = NULL;
	if (fstat(fd, st))
		return -errno;
	if (!S_ISREG(st->st_mode) || st->st_uid != geteuid() || (st->st_mode & 022)) {
		*why = "not a regular file of this user, writable by this user only";
		return -TDR_E_CORRUPT;
	}
	return 0;
}
