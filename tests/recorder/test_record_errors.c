/*
 * tests/recorder/test_record_errors.c - the failure paths of 'tdrec record'
 * that can be provoked here, run as a user would: the tdrec binary
 * ($TDREC) with a bad program, target, output, option or limit.
 *
 * Each must end with one line naming the thing and the reason, the exit
 * status docs/record.md gives, and no half-made file; a program is not
 * started when tdrec cannot record it. (Refusals that need a PMU or another
 * user, like EACCES or the mlock budget, are driven through the fake
 * syscall layer in test_session.c.) Tests skip() when perf_event_open is
 * forbidden here.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "record_fixture.h"
#include "tdrec/format.h"

static void test_record__missing_program_exits_127_and_keeps_file(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "-o", f->out, "--", "/nonexistent/tdrec-no-such-program",
			      NULL};
	FILE *fp;
	const char *err;

	SKIP_UNLESS_PERF();
	fp = fopen(f->out, "w");
	fputs("precious", fp);
	fclose(fp);
	assert_int_equal(run_tdrec(f, NULL, args), 127);
	err = slurp(f->errf);
	assert_non_null(strstr(err, "cannot run"));
	assert_int_equal(count_lines(err), 1);
	assert_string_equal(slurp(f->out), "precious");
	assert_false(exists(f->partial));
}

/* A file that exists but cannot be run: 126, one line, nothing written. */
static void test_record__not_executable_exits_126(void **state)
{
	struct fixture *f = *state;
	char prog[320];
	const char *args[] = {"record", "-o", f->out, "--", prog, NULL};
	FILE *fp;

	SKIP_UNLESS_PERF();
	snprintf(prog, sizeof(prog), "%s/not-executable", f->dir);
	fp = fopen(prog, "w");
	assert_non_null(fp);
	fputs("echo should not run\n", fp);
	fclose(fp);
	assert_int_equal(chmod(prog, 0644), 0);
	assert_int_equal(run_tdrec(f, NULL, args), 126);
	assert_non_null(strstr(slurp(f->errf), prog));
	assert_non_null(strstr(slurp(f->errf), "Permission denied"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(f->out));
	assert_false(exists(f->partial));

	/* A directory: 126 too, and the line says what it is. */
	snprintf(prog, sizeof(prog), "%s/", f->dir);
	assert_int_equal(run_tdrec(f, NULL, args), 126);
	assert_non_null(strstr(slurp(f->errf), "Is a directory"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(f->out));
	assert_false(exists(f->partial));
}

/* -p of a process that does not exist: exit 1, one line naming it. */
static void test_record__attach_to_missing_pid_fails(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "-o", f->out, "-p", "2147483647", NULL};

	SKIP_UNLESS_PERF();
	assert_int_equal(run_tdrec(f, NULL, args), 1);
	assert_non_null(strstr(slurp(f->errf), "process 2147483647 does not exist"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(f->out));
}

/* An output in a directory that does not exist: exit 1, one line naming
 * the file, and the program never runs (it would leave a mark). */
static void test_record__output_dir_missing_fails_before_the_program(void **state)
{
	struct fixture *f = *state;
	char out[320], mark[320], script[400];
	const char *args[] = {"record", "-o", out, "--", "/bin/sh", "-c", script, NULL};

	SKIP_UNLESS_PERF();
	snprintf(out, sizeof(out), "%s/no-such-dir/out.tdr", f->dir);
	snprintf(mark, sizeof(mark), "%s/ran", f->dir);
	snprintf(script, sizeof(script), "touch %s", mark);
	assert_int_equal(run_tdrec(f, NULL, args), 1);
	assert_non_null(strstr(slurp(f->errf), out));
	assert_non_null(strstr(slurp(f->errf), "No such file or directory"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(mark));
}

/* FILE.partial exists (a recording to the same FILE running, or killed):
 * never truncated; one line saying so, exit 1, the program not started. */
static void test_record__existing_partial_is_kept(void **state)
{
	struct fixture *f = *state;
	char mark[320], script[400];
	const char *args[] = {"record", "-o", f->out, "--", "/bin/sh", "-c", script, NULL};
	FILE *fp;

	SKIP_UNLESS_PERF();
	snprintf(mark, sizeof(mark), "%s/ran", f->dir);
	snprintf(script, sizeof(script), "touch %s", mark);
	fp = fopen(f->partial, "w");
	assert_non_null(fp);
	fputs("killed recording", fp);
	fclose(fp);
	fp = fopen(f->out, "w");
	assert_non_null(fp);
	fputs("precious", fp);
	fclose(fp);
	assert_int_equal(run_tdrec(f, NULL, args), 1);
	assert_non_null(strstr(slurp(f->errf), f->partial));
	assert_non_null(strstr(slurp(f->errf), "it exists"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(mark));
	assert_string_equal(slurp(f->partial), "killed recording");
	assert_string_equal(slurp(f->out), "precious");
}

/* -o names a FIFO that no process reads: one line at once, exit 1, the
 * program not started (before, tdrec waited in open() forever, with the
 * signals that could stop it blocked). A hang fails the test after 30 s. */
static void test_record__fifo_without_reader_fails(void **state)
{
	struct fixture *f = *state;
	char fifo[320], mark[320], script[400];
	const char *args[] = {"record", "-o", fifo, "--", "/bin/sh", "-c", script, NULL};
	pid_t rec;
	int st, i;

	SKIP_UNLESS_PERF();
	snprintf(fifo, sizeof(fifo), "%s/fifo", f->dir);
	snprintf(mark, sizeof(mark), "%s/ran", f->dir);
	snprintf(script, sizeof(script), "touch %s", mark);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	rec = start_tdrec(f, NULL, args);
	for (i = 0; i < 3000 && waitpid(rec, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 3000) {
		kill(rec, SIGKILL);
		waitpid(rec, &st, 0);
		fail_msg("tdrec record -o FIFO without a reader did not return");
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	assert_non_null(strstr(slurp(f->errf), "a FIFO that no process reads"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(mark));
}

/* Bytes waiting on the pty master fd (non-blocking): what was written to
 * its terminal. */
static ssize_t pty_pending(int master)
{
	char buf[256];
	ssize_t n, total = 0;

	while ((n = read(master, buf, sizeof(buf))) > 0)
		total += n;
	return total;
}

/* -o a symbolic link to a character device (a pseudo-terminal): refused
 * with one line, before the program starts; the terminal receives nothing
 * (before, stat() followed the link and the recording was written to the
 * device) and the link is left as it was. 'stat -o' follows the same
 * rule (issue 17, finding 2). */
static void test_record__symlink_to_device_refused(void **state)
{
	struct fixture *f = *state;
	char link[320], mark[320], script[400], target[320];
	const char *rec[] = {"record", "-o", link, "--", "/bin/sh", "-c", script, NULL};
	const char *st[] = {"stat", "-o", link, "--", "/bin/true", NULL};
	int master, slave;
	ssize_t n;

	SKIP_UNLESS_PERF();
	master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (master < 0)
		skip();
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	/* Held open, so that what reaches the terminal waits on the master. */
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	assert_true(slave >= 0);
	snprintf(link, sizeof(link), "%s/out.tdr", f->dir);
	snprintf(mark, sizeof(mark), "%s/ran", f->dir);
	snprintf(script, sizeof(script), "touch %s", mark);
	assert_int_equal(symlink(ptsname(master), link), 0);

	assert_int_equal(run_tdrec(f, NULL, rec), 1);
	assert_non_null(strstr(slurp(f->errf), "a symbolic link to a FIFO or device"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(mark));
	n = pty_pending(master);
	assert_int_equal(n, 0);
	assert_int_equal(readlink(link, target, sizeof(target) - 1), strlen(ptsname(master)));

	assert_int_equal(run_tdrec(f, NULL, st), 1);
	assert_non_null(strstr(slurp(f->errf), "a symbolic link to a FIFO or device"));
	assert_int_equal(pty_pending(master), 0);
	close(slave);
	close(master);
}

/* stat -o a FIFO that no process reads: one line at once, not a hang (a
 * hang fails the test through ctest's timeout). */
static void test_record__stat_fifo_without_reader_fails(void **state)
{
	struct fixture *f = *state;
	char fifo[320];
	const char *st[] = {"stat", "-o", fifo, "--", "/bin/true", NULL};

	SKIP_UNLESS_PERF();
	snprintf(fifo, sizeof(fifo), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(run_tdrec(f, NULL, st), 1);
	assert_non_null(strstr(slurp(f->errf), "a FIFO that no process reads"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
}

/* The reported case: -o a symbolic link to a block device (a loop device
 * over a file of zeros, when this runs as root with losetup), and -o the
 * device itself: both refused, the device's bytes untouched. */
static void test_record__block_device_never_written(void **state)
{
	struct fixture *f = *state;
	char img[320], link[320], dev[64] = "", *out;
	const char *rec[] = {"record", "-o", link, "--", "/bin/true", NULL};
	const char *direct[] = {"record", "-o", dev, "--", "/bin/true", NULL};
	unsigned char *bytes;
	char err_link[1024];
	size_t sz = 0;
	int rc_link, rc_dev;

	SKIP_UNLESS_PERF();
	snprintf(img, sizeof(img), "%s/disk.img", f->dir);
	snprintf(link, sizeof(link), "%s/out.tdr", f->dir);
	if (geteuid() != 0 || system("command -v losetup >/dev/null 2>&1"))
		skip();
	{
		FILE *z = fopen(img, "w");

		assert_non_null(z);
		assert_int_equal(ftruncate(fileno(z), 1 << 20), 0);
		fclose(z);
	}
	{
		char cmd[400];
		FILE *p;

		snprintf(cmd, sizeof(cmd), "losetup -f --show '%s' 2>/dev/null", img);
		p = popen(cmd, "r");
		assert_non_null(p);
		out = fgets(dev, sizeof(dev), p);
		pclose(p);
		if (!out || dev[0] != '/')
			skip(); /* no loop devices here (a container) */
		dev[strcspn(dev, "\n")] = '\0';
	}
	assert_int_equal(symlink(dev, link), 0);
	/* Run both, detach, then check: a failed assertion leaves no loop
	 * device behind. */
	rc_link = run_tdrec(f, NULL, rec);
	snprintf(err_link, sizeof(err_link), "%s", slurp(f->errf));
	rc_dev = run_tdrec(f, NULL, direct);
	{
		char cmd[200];

		snprintf(cmd, sizeof(cmd), "losetup -d '%s'", dev);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(rc_link, 1);
	assert_non_null(strstr(err_link, "a symbolic link to a block device"));
	assert_int_equal(count_lines(err_link), 1);
	assert_int_equal(rc_dev, 1);
	assert_non_null(strstr(slurp(f->errf), "a block device"));
	bytes = malloc(2 << 20);
	assert_non_null(bytes);
	{
		FILE *z = fopen(img, "r");

		assert_non_null(z);
		sz = fread(bytes, 1, 2 << 20, z);
		fclose(z);
	}
	assert_int_equal(sz, 1 << 20);
	for (size_t i = 0; i < sz; i++)
		if (bytes[i])
			fail_msg("byte %zu of the device was written", i);
	free(bytes);
}

/* -o a symbolic link to a regular file: the link is replaced by the new
 * recording (rename), the file it named is left as it was. */
static void test_record__symlink_to_file_replaced_not_followed(void **state)
{
	struct fixture *f = *state;
	char link[320], victim[320];
	const char *rec[] = {"record", "--plan", "software", "-o", link, "--", SPIN_PATH, "0.05",
			     NULL};
	struct stat st;

	SKIP_UNLESS_PERF();
	snprintf(link, sizeof(link), "%s/out.tdr", f->dir);
	snprintf(victim, sizeof(victim), "%s/victim", f->dir);
	{
		FILE *v = fopen(victim, "w");

		assert_non_null(v);
		fputs("keep me\n", v);
		fclose(v);
	}
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(run_tdrec(f, NULL, rec), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(slurp(victim), "keep me\n");
}

static void test_record__dev_full_fails_clearly(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "-o", "/dev/full", "--", SPIN_PATH, "0.05", NULL};
	struct stat st;

	SKIP_UNLESS_PERF();
	assert_int_equal(run_tdrec(f, NULL, args), 1);
	assert_non_null(strstr(slurp(f->errf), "/dev/full"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	/* Still the device: never renamed over. */
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_false(exists("/dev/full.partial"));
}

/* Fill the file system holding dir until it refuses a write. */
static void fill_up(const char *dir)
{
	static char block[4096];
	char path[400];
	int fd;

	snprintf(path, sizeof(path), "%s/filler", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	assert_int_equal(errno, ENOSPC);
	close(fd);
}

/* The disk fills up while recording: stop, say so naming the file, keep
 * what was written readable under the .partial name (the older file at -o
 * is not replaced by an incomplete one), let the program run to its end,
 * exit 1. The disk is filled once the recording runs (not sized to the
 * recording), so the result does not depend on how much CPU the program
 * gets. */
static void test_record__full_disk_keeps_readable_file(void **state)
{
	struct fixture *f = *state;
	char mnt[300], out[320], partial[340], done[320], script[700];
	const char *args[] = {"record", "--plan", "software", "-F", "20000", "-o",
			      out,	"--",	  "/bin/sh",  "-c", script,  NULL};
	struct tdr_reader *r = NULL;
	const char *err;
	FILE *fp;
	pid_t rec;

	SKIP_UNLESS_PERF();
	snprintf(mnt, sizeof(mnt), "%s/small", f->dir);
	snprintf(out, sizeof(out), "%s/out.tdr", mnt);
	snprintf(partial, sizeof(partial), "%s.partial", out);
	snprintf(done, sizeof(done), "%s/done", f->dir);
	/* The program's last act proves it ran to its end. */
	snprintf(script, sizeof(script), "%s 1 2 && touch %s", SPIN_PATH, done);
	assert_int_equal(mkdir(mnt, 0755), 0);
	if (mount("tdrec-test", mnt, "tmpfs", 0, "size=256k")) {
		fprintf(stderr, "cannot mount a tmpfs (%s): skipped\n", strerror(errno));
		skip();
	}
	fp = fopen(out, "w");
	assert_non_null(fp);
	fputs("precious", fp);
	fclose(fp);
	rec = start_tdrec(f, NULL, args);
	wait_for_file(partial);
	/* The header and metadata are written (bounded wait, 5 s). */
	for (int i = 0; i < 500 && file_size(partial) <= 0; i++)
		usleep(10000);
	assert_true(file_size(partial) > 0);
	fill_up(mnt);
	assert_int_equal(wait_status(rec), 1);
	assert_true(exists(done));
	err = slurp(f->errf);
	assert_non_null(strstr(err, "No space left on device"));
	assert_non_null(strstr(err, "stopped recording"));
	assert_non_null(strstr(err, partial));
	assert_non_null(strstr(err, "is not replaced"));
	/* The summary names the file that holds the samples. */
	assert_non_null(strstr(err, "KiB in"));
	assert_non_null(strstr(strstr(err, "KiB in"), partial));
	assert_string_equal(slurp(out), "precious");
	/* What was written is readable, and says how the recording ended. */
	assert_int_equal(tdr_reader__open(partial, &r), 0);
	assert_true(tdr_reader__status(r)->intact_sz > 0);
	assert_non_null(tdr_reader__run_end(r));
	assert_true(tdr_reader__run_end(r)->flags & TDR_END_WRITE_ERROR);
	tdr_reader__free(r);
	umount(mnt);
}

/* Start $TDREC with args and RLIMIT_NOFILE (soft and hard) at nofile. */
static int run_tdrec_nofile(struct fixture *f, rlim_t nofile, const char *const *args)
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
		struct rlimit rl = {.rlim_cur = nofile, .rlim_max = nofile};
		int e = open(f->errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(e, 2);
		/* Only stdio is inherited, so the count of free fds is known. */
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(98);
		execv(tdrec, argv);
		_exit(99);
	}
	return wait_status(pid);
}

/* Too few fds even at the hard limit: exit 1, one line with the numbers,
 * and the program never runs. */
static void test_record__too_many_open_files_is_explained(void **state)
{
	struct fixture *f = *state;
	char mark[320], script[400];
	const char *args[] = {"record", "--plan",  "software", "-o",   f->out,
			      "--",	"/bin/sh", "-c",       script, NULL};
	const char *err;

	SKIP_UNLESS_PERF();
	snprintf(mark, sizeof(mark), "%s/ran", f->dir);
	snprintf(script, sizeof(script), "touch %s", mark);
	/* stdio, the signalfd and the start pipes leave room for 2 events: the
	 * plan needs at least 4. */
	assert_int_equal(run_tdrec_nofile(f, 8, args), 1);
	err = slurp(f->errf);
	assert_non_null(strstr(err, "too many open files"));
	assert_non_null(strstr(err, "the open-file limit is 8"));
	assert_int_equal(count_lines(err), 1);
	/* The numbers explain the failure: tdrec's own descriptors (at least
	 * the three standard streams) count too (issue 17, finding 7). */
	{
		size_t need = 0, own = 0;
		const char *p = strstr(err, "needs about ");
		const char *q = strstr(err, "tdrec holds ");

		assert_non_null(p);
		assert_non_null(q);
		assert_int_equal(sscanf(p, "needs about %zu", &need), 1);
		assert_int_equal(sscanf(q, "tdrec holds %zu", &own), 1);
		assert_true(own >= 3);
		assert_true(need + own > 8);
	}
	assert_false(exists(mark));
	assert_false(exists(f->out));
	assert_false(exists(f->partial));
}

/* -F above kernel.perf_event_max_sample_rate would be refused by every
 * plan: it is lowered to the limit, with one line saying so. */
static void test_record__freq_above_the_kernel_limit_is_lowered(void **state)
{
	struct fixture *f = *state;
	char stdout_path[320], freq[32], want[64];
	const char *args[] = {"record", "--dry-run", "--plan", "software", "-F",
			      freq,	"--",	     "true",   NULL};
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	int max = 0;

	if (!fp || fscanf(fp, "%d", &max) != 1 || max <= 0 || max >= 10000000) {
		if (fp)
			fclose(fp);
		fprintf(stderr, "no usable perf_event_max_sample_rate: skipped\n");
		skip();
	}
	fclose(fp);
	snprintf(freq, sizeof(freq), "%d", max + 1);
	snprintf(want, sizeof(want), "    sample_freq          %d\n", max);
	snprintf(stdout_path, sizeof(stdout_path), "%s/stdout", f->dir);
	assert_int_equal(run_tdrec(f, stdout_path, args), 0);
	assert_non_null(strstr(slurp(stdout_path), want));
	assert_non_null(strstr(slurp(f->errf), "perf_event_max_sample_rate"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
}

/* An explicit plan this machine cannot run (a VM's sysfs has no core
 * PMU): exit 1, one line saying what is missing, the program not run. */
static void test_record__explicit_plan_that_does_not_fit(void **state)
{
	struct fixture *f = *state;
	char root[600];
	const char *src = getenv("TDR_SOURCE_DIR");
	const char *args[] = {"record", "--plan", "topdown-l1", "-o", f->out, "--", "true", NULL};

	SKIP_UNLESS_PERF();
	assert_non_null(src);
	snprintf(root, sizeof(root), "%s/tests/fixtures/sysfs/vm", src);
	setenv("TDREC_SYSFS", root, 1);
	assert_int_equal(run_tdrec(f, NULL, args), 1);
	unsetenv("TDREC_SYSFS");
	assert_non_null(strstr(slurp(f->errf), "plan topdown-l1 does not fit this machine: no core "
					       "PMU"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	assert_false(exists(f->out));
}

/* Bad -e text, or an -e that resolves to nothing here: exit 2, one line
 * naming the event. */
static void test_record__bad_events_are_one_line_usage_errors(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
	    "rxyz", "r12345678901234567", "cycles:u",	   "cycles:pppp", "cpu/event=0x3c",
	    "",	    "nosuchpmu/event=1/", "no-such-event",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = {"record", "-o", f->out, "-e", bad[i], "--", "true", NULL};

		assert_int_equal(run_tdrec(f, NULL, args), 2);
		if (!strstr(slurp(f->errf), bad[i]) || count_lines(slurp(f->errf)) != 1)
			fail_msg("-e '%s': %s", bad[i], slurp(f->errf));
	}
	assert_false(exists(f->out));
}

static void test_record__dry_run_prints_plan_and_opens_nothing(void **state)
{
	struct fixture *f = *state;
	char stdout_path[320];
	const char *args[] = {"record", "--dry-run", "--plan", "software", "-o",
			      f->out,	"--",	     "true",   NULL};
	const char *text;

	snprintf(stdout_path, sizeof(stdout_path), "%s/stdout", f->dir);
	assert_int_equal(run_tdrec(f, stdout_path, args), 0);
	text = slurp(stdout_path);
	assert_non_null(strstr(text, "plan: software"));
	assert_non_null(strstr(text, "sampler"));
	assert_non_null(strstr(text, "sample_type"));
	assert_false(exists(f->out));
	assert_false(exists(f->partial));
	/* A plan that could not be printed is not a success. */
	assert_int_equal(run_tdrec(f, "/dev/full", args), 1);
	assert_non_null(strstr(slurp(f->errf), "cannot write to standard output"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
}

/* -a (and -p) count from the open: the leader is shown as opened, stopped
 * (the session starts the group whole), without enable_on_exec; the
 * sampler with the ring's wakeup watermark. */
static void test_record__dry_run_shows_attrs_as_opened(void **state)
{
	struct fixture *f = *state;
	char stdout_path[320];
	const char *args[] = {"record", "--dry-run",	"--plan", "software",
			      "-a",	"--mmap-pages", "16",	  NULL};
	const char *text;
	char want[64];

	snprintf(stdout_path, sizeof(stdout_path), "%s/stdout", f->dir);
	assert_int_equal(run_tdrec(f, stdout_path, args), 0);
	text = slurp(stdout_path);
	assert_non_null(strstr(text, "    disabled             1\n"));
	assert_null(strstr(text, "enable_on_exec"));
	assert_null(strstr(text, "inherit"));
	assert_non_null(strstr(text, "    watermark            1\n"));
	snprintf(want, sizeof(want), "    wakeup_watermark     %ld\n",
		 16 * sysconf(_SC_PAGESIZE) / 4);
	assert_non_null(strstr(text, want));
}

static void test_record__usage_errors(void **state)
{
	struct fixture *f = *state;
	const char *none[] = {"record", "-o", f->out, NULL};
	const char *both[] = {"record", "-F", "100", "-c", "1000", "true", NULL};
	const char *pages[] = {"record", "--mmap-pages", "3", "true", NULL};
	const char *plan[] = {"record", "--plan", "topdown", "true", NULL};
	const char *help[] = {"record", "--help", NULL};
	/* An empty element of a -p list is a mistake, not a pid to skip (the
	 * pid does not exist: the old reading failed with 1, not 2). */
	const char *pids[][4] = {{"record", "-p", "999999,", NULL},
				 {"record", "-p", ",999999", NULL},
				 {"record", "-p", "999999,,999998", NULL}};
	char stdout_path[320];

	assert_int_equal(run_tdrec(f, NULL, none), 2);
	assert_int_equal(run_tdrec(f, NULL, both), 2);
	assert_int_equal(run_tdrec(f, NULL, pages), 2);
	/* One line naming the value, not one from the plan code as well. */
	assert_int_equal(run_tdrec(f, NULL, plan), 2);
	assert_non_null(strstr(slurp(f->errf), "unknown plan 'topdown'"));
	assert_int_equal(count_lines(slurp(f->errf)), 1);
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		assert_int_equal(run_tdrec(f, NULL, pids[i]), 2);
		assert_non_null(strstr(slurp(f->errf), "-p needs a positive number"));
		assert_int_equal(count_lines(slurp(f->errf)), 1);
	}
	snprintf(stdout_path, sizeof(stdout_path), "%s/help", f->dir);
	assert_int_equal(run_tdrec(f, stdout_path, help), 0);
	assert_non_null(strstr(slurp(stdout_path), "TDREC_SYSFS"));
	assert_false(exists(f->out));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_record__missing_program_exits_127_and_keeps_file,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__not_executable_exits_126, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__attach_to_missing_pid_fails, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_record__output_dir_missing_fails_before_the_program, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__existing_partial_is_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__fifo_without_reader_fails, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__symlink_to_device_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__block_device_never_written, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__stat_fifo_without_reader_fails, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__symlink_to_file_replaced_not_followed,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__dev_full_fails_clearly, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__full_disk_keeps_readable_file, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__too_many_open_files_is_explained, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__freq_above_the_kernel_limit_is_lowered,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__explicit_plan_that_does_not_fit, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__bad_events_are_one_line_usage_errors,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__dry_run_prints_plan_and_opens_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__dry_run_shows_attrs_as_opened, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__usage_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
