/*
 * tests/fuzz/fuzz_tmp.h - a private temporary directory for a fuzz target.
 *
 * The symbolizer reads objects, kallsyms and cache files by path, so the
 * targets write the fuzzer's bytes to files in one directory made once per
 * process (mkdtemp) and rewritten for every input. The directory is removed
 * at exit; a killed run leaves it in $TMPDIR (tdrec-fuzz-*).
 */
#ifndef TDREC_TESTS_FUZZ_TMP_H
#define TDREC_TESTS_FUZZ_TMP_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Remove every file of dir and, when rm_self, dir itself (one level of
 * subdirectories, which is all the targets make). */
static inline void fuzz_tmp_clear(const char *dir, int rm_self)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4096];

	while (d && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		if (unlink(p))
			fuzz_tmp_clear(p, 1);
	}
	if (d)
		closedir(d);
	if (rm_self)
		rmdir(dir);
}

static char fuzz_tmp_dir[4096];

static inline void fuzz_tmp_atexit(void)
{
	fuzz_tmp_clear(fuzz_tmp_dir, 1);
}

/* The directory, made on the first call; NULL when it cannot be. */
static inline const char *fuzz_tmp(void)
{
	const char *base = getenv("TMPDIR");

	if (fuzz_tmp_dir[0])
		return fuzz_tmp_dir;
	snprintf(fuzz_tmp_dir, sizeof(fuzz_tmp_dir), "%s/tdrec-fuzz-XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(fuzz_tmp_dir)) {
		fuzz_tmp_dir[0] = '\0';
		return NULL;
	}
	atexit(fuzz_tmp_atexit);
	return fuzz_tmp_dir;
}

/* Write data to dir/name (replacing it), mode 0600. Returns 0 or -1. */
static inline int fuzz_tmp_write(const char *dir, const char *name, const uint8_t *data,
				 size_t size, char *path, size_t path_sz)
{
	int fd;
	size_t done = 0;

	if (snprintf(path, path_sz, "%s/%s", dir, name) >= (int)path_sz)
		return -1;
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

#endif /* TDREC_TESTS_FUZZ_TMP_H */
