/*
 * runtime/launch.c - start a program held before exec; signals as an fd.
 *
 * Responsibility: fork a child that blocks on a start pipe until the
 * parent has opened every perf_event group on it (so enable_on_exec starts
 * the counters exactly at exec), then execvp()s. A second, close-on-exec
 * pipe tells the parent whether the exec worked: EOF means it did, four
 * bytes of errno mean it failed. Also the signal watcher: SIGINT, SIGTERM,
 * SIGHUP and SIGCHLD blocked and read from a signalfd, so the recorder's
 * poll() loop handles them without handlers or global state, whatever
 * disposition tdrec inherited (but SIGHUP left ignored under nohup).
 * It does not decide what a signal means (recorder.c does) and it does not
 * touch perf fds (the child is forked before any exists).
 * Objects and lifecycle: tdr_launch__start -> __go -> __poll / __wait ->
 * __exit_code -> __free; tdr_sigwatch__open -> __read -> __close.
 * Ownership and threads: single owner; the child copies argv at fork.
 * Invariants: the child only calls async-signal-safe functions between
 * fork and exec; it never returns into tdrec's code (it _exit()s).
 * See: docs/record.md "Launching"; signalfd(2), fork(2).
 */
#define LOG_PREFIX "record: "

#include "runtime_int.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

struct tdr_launch {
	pid_t pid;
	int go_fd;   /* write end of the start pipe, -1 once released */
	int exec_fd; /* read end of the exec-status pipe */
	bool released;
	bool reaped;
	int status; /* waitpid status once reaped */
};

int tdr_sigwatch__open(struct tdr_sigwatch *sw)
{
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigemptyset(&sw->ignored);
	/* What tdrec inherited as ignored (a script's 'cmd &' ignores SIGINT,
	 * nohup SIGHUP) is also what the program inherits, as it would
	 * without tdrec. tdrec reads SIGINT and SIGTERM all the same (a
	 * blocked signal is queued even when ignored), as perf installs its
	 * handlers whatever it inherited; an ignored SIGHUP (nohup) stays
	 * ignored by tdrec too. */
	for (size_t i = 0; i < 3; i++) {
		static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
		struct sigaction sa;

		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler == SIG_IGN)
			sigaddset(&sw->ignored, sigs[i]);
		if (sigs[i] != SIGHUP || !sigismember(&sw->ignored, SIGHUP))
			sigaddset(&set, sigs[i]);
	}
	sigaddset(&set, SIGCHLD);
	sw->fd = -1;
	/* Blocked first, so a signal between here and signalfd() stays
	 * pending and is read from the fd. Threads started later inherit it. */
	err = -pthread_sigmask(SIG_BLOCK, &set, &sw->old_mask);
	if (err)
		return err;
	sw->fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sw->fd < 0) {
		err = -errno;
		pthread_sigmask(SIG_SETMASK, &sw->old_mask, NULL);
		return err;
	}
	return 0;
}

int tdr_sigwatch__read(struct tdr_sigwatch *sw, struct signalfd_siginfo *si)
{
	ssize_t n = read(sw->fd, si, sizeof(*si));

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	return n == (ssize_t)sizeof(*si) ? 1 : 0;
}

void tdr_sigwatch__close(struct tdr_sigwatch *sw)
{
	if (sw->fd < 0)
		return;
	zclose(sw->fd);
	pthread_sigmask(SIG_SETMASK, &sw->old_mask, NULL);
}

/* In the child: wait for the go byte, exec, report errno if exec failed.
 * Only async-signal-safe calls. */
static void child_run(char *const argv[], const sigset_t *mask, int go_rd, int exec_wr)
{
	sigset_t empty;
	struct stat st;
	char c;
	ssize_t n;
	int e;

	do {
		n = read(go_rd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* the parent gave up (or died) before releasing us */
	close(go_rd);
	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, mask ? mask : &empty, NULL);
	execvp(argv[0], argv);
	e = errno;
	/* execve says EACCES for a directory; say what it is, as a shell does. */
	if (e == EACCES && strchr(argv[0], '/') && !stat(argv[0], &st) && S_ISDIR(st.st_mode))
		e = EISDIR;
	if (write(exec_wr, &e, sizeof(e)) < 0) {
		/* nothing else to do: the parent sees EOF and our 127 */
	}
	_exit(127);
}

int tdr_launch__start(char *const argv[], const sigset_t *child_mask, struct tdr_launch **out)
{
	struct tdr_launch *l;
	int go[2] = {-1, -1}, ex[2] = {-1, -1};
	int err;

	if (!argv || !argv[0])
		return -EINVAL;
	l = tdr_calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->go_fd = l->exec_fd = -1;
	l->pid = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		err = -errno;
		goto err_out;
	}
	l->pid = fork();
	if (l->pid < 0) {
		err = -errno;
		goto err_out;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_run(argv, child_mask, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	l->go_fd = go[1];
	l->exec_fd = ex[0];
	*out = l;
	return 0;
err_out:
	zclose(go[0]);
	zclose(go[1]);
	zclose(ex[0]);
	zclose(ex[1]);
	free(l);
	return err;
}

pid_t tdr_launch__pid(const struct tdr_launch *l)
{
	return l->pid;
}

static int launch_reap(struct tdr_launch *l, int flags)
{
	pid_t r;

	if (l->reaped)
		return 1;
	do {
		r = waitpid(l->pid, &l->status, flags);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return 0;
	/* Only exits and deaths count; a stopped child (job control) is not
	 * reported because we never pass WUNTRACED. */
	l->reaped = true;
	return 1;
}

int tdr_launch__go(struct tdr_launch *l)
{
	char c = 'g';
	int e = 0;
	ssize_t n;
	int err;

	if (l->released)
		return 0;
	n = write(l->go_fd, &c, 1);
	err = n == 1 ? 0 : -errno;
	zclose(l->go_fd);
	l->released = true;
	if (err)
		return err;
	/* EOF: the exec-status pipe was closed by a successful exec. */
	do {
		n = read(l->exec_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	zclose(l->exec_fd);
	if (n == (ssize_t)sizeof(e)) {
		launch_reap(l, 0);
		return e > 0 ? -e : -ENOEXEC;
	}
	return 0;
}

int tdr_launch__signal(struct tdr_launch *l, int sig)
{
	if (l->reaped)
		return -ESRCH;
	if (kill(l->pid, sig) < 0)
		return -errno;
	return 0;
}

bool tdr_launch__left_pgrp(const struct tdr_launch *l)
{
	pid_t g;

	if (l->reaped)
		return false;
	g = getpgid(l->pid);
	return g >= 0 && g != getpgrp();
}

int tdr_launch__poll(struct tdr_launch *l)
{
	return launch_reap(l, WNOHANG);
}

int tdr_launch__wait(struct tdr_launch *l)
{
	int r = launch_reap(l, 0);

	return r < 0 ? r : 0;
}

int tdr_launch__exit_code(const struct tdr_launch *l, int *term_signal)
{
	if (term_signal)
		*term_signal = 0;
	if (!l->reaped)
		return -1;
	if (WIFSIGNALED(l->status)) {
		if (term_signal)
			*term_signal = WTERMSIG(l->status);
		return -1;
	}
	return WEXITSTATUS(l->status);
}

void tdr_launch__free(struct tdr_launch *l)
{
	if (!l)
		return;
	if (!l->released && l->pid > 0) {
		/* Never released: it must not run the program. Closing the
		 * pipe alone would do, the kill makes it immediate. */
		kill(l->pid, SIGKILL);
		zclose(l->go_fd);
		launch_reap(l, 0);
	}
	zclose(l->go_fd);
	zclose(l->exec_fd);
	free(l);
}
