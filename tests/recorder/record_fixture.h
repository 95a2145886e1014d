/*
 * tests/recorder/record_fixture.h - running the tdrec binary in the record
 * integration tests (test_record.c, test_record_errors.c).
 *
 * A fixture is a fresh directory under /tmp with out.tdr, its .partial and
 * the captured stderr; start_tdrec runs $TDREC (set by CMake) in its own
 * process group with stdout and stderr redirected; tests skip() when
 * perf_event_open is not allowed here. Static inline helpers only: each test
 * executable includes it once.
 */
#ifndef TDREC_TESTS_RECORD_FIXTURE_H
#define TDREC_TESTS_RECORD_FIXTURE_H

#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

struct fixture {
	char dir[256];
	char out[300];	/* dir/out.tdr */
	char errf[300]; /* dir/stderr */
	char partial[320];
	pid_t child; /* a tdrec still running when a check failed: teardown kills it */
};

static inline bool perf_allowed(void)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(a),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .disabled = 1,
	    .exclude_kernel = 1,
	};
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

#define SKIP_UNLESS_PERF()                                                                         \
	do {                                                                                       \
		if (!perf_allowed()) {                                                             \
			fprintf(stderr, "perf_event_open is not allowed here: skipped\n");         \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/tdrec-test-record.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->out, sizeof(f->out), "%s/out.tdr", f->dir);
	snprintf(f->errf, sizeof(f->errf), "%s/stderr", f->dir);
	snprintf(f->partial, sizeof(f->partial), "%s.partial", f->out);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[400];

	if (f->child > 0) { /* its own process group: tdrec and its program */
		kill(-f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "%s/small", f->dir);
	umount2(cmd, MNT_DETACH); /* the full-disk test's tmpfs, if a check failed */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd)) {
	}
	free(f);
	return 0;
}

/* Start $TDREC with args (NULL-terminated), stderr to f->errf, stdout to
 * outf (or /dev/null). Returns the pid. */
static inline pid_t start_tdrec(struct fixture *f, const char *outf, const char *const *args)
{
	const char *tdrec = getenv("TDREC");
	char *argv[32];
	size_t n = 0;
	pid_t pid;

	assert_non_null(tdrec);
	argv[n++] = (char *)tdrec;
	for (; *args && n < 31; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int e = open(f->errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int o = open(outf ? outf : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		/* Own process group, so a test can kill tdrec and its program. */
		setpgid(0, 0);
		dup2(e, 2);
		dup2(o, 1);
		execv(tdrec, argv);
		_exit(99);
	}
	return pid;
}

/* Wait and return the exit status (128+N for a signal). */
static inline int wait_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int run_tdrec(struct fixture *f, const char *outf, const char *const *args)
{
	return wait_status(start_tdrec(f, outf, args));
}

static inline char *slurp(const char *path)
{
	static char buf[16384];
	FILE *fp = fopen(path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (fp) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
	}
	buf[n] = 0;
	return buf;
}

static inline bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Wait (bounded) until path exists: the recorder has opened its file. */
static inline void wait_for_file(const char *path)
{
	for (int i = 0; i < 500 && !exists(path); i++)
		usleep(10000);
	assert_true(exists(path));
}

static inline off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* Lines in text (a last line without its newline counts too). */
static inline int count_lines(const char *text)
{
	int n = 0;

	for (const char *c = text; *c; c++)
		n += *c == '\n';
	return n + (text[0] && text[strlen(text) - 1] != '\n');
}

#endif /* TDREC_TESTS_RECORD_FIXTURE_H */
