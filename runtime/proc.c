/*
 * runtime/proc.c - processes and threads listed from /proc.
 *
 * Responsibility: the pids of every process (-a) and the tids of one
 * process (-p), read from the numeric entries of /proc and /proc/PID/task.
 * A test hands in a fake tree as proc_root. Nothing is cached: a list is
 * as of the call.
 * See: proc(5).
 */
#include "tdrec/runtime.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "tdrec/tdr_mem.h"

const char *tdr_proc__root(const char *proc_root)
{
	return proc_root ? proc_root : "/proc";
}

/* The numeric entries of directory path (pids or tids) into *out (caller
 * frees; NULL when there are none). Returns the count or -errno. */
static int numeric_entries(const char *path, pid_t **out)
{
	struct dirent *de;
	size_t cnt = 0, cap = 0;
	pid_t *arr = NULL;
	DIR *d = opendir(path);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (tdr_ensure_cap(&arr, &cap, sizeof(*arr), cnt + 1)) {
			closedir(d);
			free(arr);
			return -ENOMEM;
		}
		arr[cnt++] = (pid_t)strtol(de->d_name, NULL, 10);
	}
	closedir(d);
	*out = arr;
	return (int)cnt;
}

int tdr_proc__tids(const char *proc_root, pid_t pid, pid_t **tids)
{
	char path[PATH_MAX];
	pid_t *arr = NULL;
	int n;

	snprintf(path, sizeof(path), "%s/%d/task", tdr_proc__root(proc_root), (int)pid);
	n = numeric_entries(path, &arr);
	if (n == -ENOMEM)
		return n;
	if (n <= 0) {
		free(arr);
		return -ENOENT; /* gone, or a process without threads: gone by now */
	}
	*tids = arr;
	return n;
}

int tdr_proc__pids(const char *proc_root, pid_t **pids)
{
	return numeric_entries(tdr_proc__root(proc_root), pids);
}

