/*
 * stat/stat_loop.c - the counting loop of 'tdrec stat'.
 *
 * Responsibility: release the program, then poll() the signal fd, the -p
 * pidfds and the side-band rings (--per-thread), with a timeout that is the
 * next read: every group is read at least every TDR_STAT_READ_MS (the kernel
 * resets the metric registers on each read, docs/kernel.md "TopDown metric values", so short read
 * intervals keep TopDown precise), and at every -I mark, when the interval's
 * deltas become a row. Decide when counting ends, read a last time and fill
 * the summary.
 * When it ends:
 *   - launched program: when it exits. SIGINT/SIGTERM/SIGHUP are forwarded
 *     (except a terminal's, which the program got itself); the third one
 *     kills it with SIGKILL (tdr_targets__signals: one policy for record
 *     and stat).
 *   - -p: when every process has ended, or at the first signal.
 *   - -a: when the program (if any) exits, else at the first signal.
 * Objects and lifecycle: tdr_stat__run runs once per stat object.
 * Ownership and threads: the caller's thread; no other thread.
 * See: docs/stat.md "Signals and exit status"; docs/record.md "Signals".
 */
#define LOG_PREFIX "stat: "

#include "stat_int.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define NS_PER_MS 1000000ull

struct sloop {
	struct tdr_stat *st;
	struct pollfd *pfds;
	size_t nfds, pid_base, ring_base;
	bool stop;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Signals (targets.c: the policy record follows too). */
static void read_signals(struct sloop *L)
{
	struct tdr_stat *st = L->st;

	if (tdr_targets__signals(&st->tg, st->launch, &st->sw, &st->sig))
		L->stop = true;
	st->sum.stop_signal = st->sig.stop_signal;
}

static void check_pids(struct sloop *L, bool tick)
{
	if (tdr_targets__all_gone(&L->st->tg, &L->pfds[L->pid_base], tick))
		L->stop = true;
}

static int setup(struct sloop *L)
{
	struct tdr_stat *st = L->st;

	L->nfds = 1 + st->tg.proc_cnt + st->th.ring_cnt;
	L->pfds = tdr_calloc(L->nfds, sizeof(*L->pfds));
	if (!L->pfds)
		return -ENOMEM;
	L->pfds[0] = (struct pollfd){.fd = st->sw.fd, .events = POLLIN};
	L->pid_base = 1;
	tdr_targets__poll_fds(&st->tg, &L->pfds[L->pid_base]);
	L->ring_base = L->pid_base + st->tg.proc_cnt;
	for (size_t i = 0; i < st->th.ring_cnt; i++)
		L->pfds[L->ring_base + i] =
		    (struct pollfd){.fd = st->th.rings[i].fd, .events = POLLIN};
	return 0;
}

/* Read every unit once (final: the threads are closed too). */
static int read_all(struct tdr_stat *st, bool final)
{
	int err = 0;

	tdr_stat_unit__read(st->total, &st->sc);
	if (st->per_thread) {
		/* New threads first, so their groups exist for this read. */
		err = tdr_stat_threads__drain(&st->th);
		tdr_stat_threads__read(&st->th, &st->sc, final);
	}
	return err;
}

void tdr_stat__total(const struct tdr_stat *st, bool cur, struct stat_vals *out)
{
	const struct stat_vals *t = cur ? &st->total->cur : &st->total->sum;

	if (!st->total_is_threads) {
		*out = *t;
		return;
	}
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < st->th.cnt; i++) {
		const struct stat_unit *u = st->th.v[i].unit;

		if (u)
			tdr_stat_vals__add(out, cur ? &u->cur : &u->sum);
	}
	/* How long the program ran: the inherited reference clocks. */
	out->ref_ns = t->ref_ns;
}

/* The interval [mark, now] becomes a row; every unit starts a new one. */
static int emit_interval(struct tdr_stat *st, uint64_t now)
{
	struct stat_row row = {
	    .kind = TDR_STAT_ROW_INTERVAL,
	    .start_ns = st->mark_ns - st->start_ns,
	    .end_ns = now - st->start_ns,
	};
	struct stat_vals skip;

	tdr_stat__total(st, true, &row.vals);
	tdr_stat_unit__take(st->total, &skip);
	for (size_t i = 0; i < st->th.cnt; i++)
		if (st->th.v[i].unit)
			tdr_stat_unit__take(st->th.v[i].unit, &skip);
	st->mark_ns = now;
	st->sum.intervals++;
	return tdr_stat__interval(st, &row);
}

static int loop_run(struct sloop *L)
{
	struct tdr_stat *st = L->st;
	const uint64_t ival = st->opts->interval_ms * NS_PER_MS;
	const uint64_t period =
	    ival && ival < TDR_STAT_READ_MS * NS_PER_MS ? ival : TDR_STAT_READ_MS * NS_PER_MS;
	uint64_t next_read = st->start_ns + period, next_mark = st->start_ns + ival;
	int err = 0;

	/* The program may have ended before the loop starts (SIGCHLD stays
	 * pending in the signalfd, so this is only a shortcut). */
	if (st->launch && tdr_launch__poll(st->launch) == 1)
		L->stop = true;
	while (!L->stop && !err) {
		uint64_t now = mono_ns();
		uint64_t due = ival && next_mark < next_read ? next_mark : next_read;
		uint64_t wait = due > now ? due - now : 0;
		int n = poll(L->pfds, L->nfds, (int)((wait + NS_PER_MS - 1) / NS_PER_MS));
		bool tick;

		if (n < 0 && errno != EINTR) {
			tdr_warn("poll failed: %s", strerror(errno));
			break;
		}
		read_signals(L);
		/* A ring whose tasks have all exited reports POLLHUP for ever. */
		for (size_t i = L->ring_base; n > 0 && i < L->nfds; i++)
			if (L->pfds[i].revents & (POLLHUP | POLLERR))
				L->pfds[i].fd = -1;
		if (st->per_thread)
			err = tdr_stat_threads__drain(&st->th);
		now = mono_ns();
		tick = now >= due;
		check_pids(L, tick);
		if (!tick || L->stop)
			continue;
		if (!err)
			err = read_all(st, false);
		/* Deadlines stay on the grid from the start; a late wakeup
		 * skips the reads it missed rather than catching up. */
		while (next_read <= now)
			next_read += period;
		if (!err && ival && now >= next_mark) {
			err = emit_interval(st, now);
			while (next_mark <= now)
				next_mark += ival;
		}
	}
	return err;
}

/* After the loop: last read, the final partial interval, the summary. */
static int finish(struct sloop *L)
{
	struct tdr_stat *st = L->st;
	struct tdr_stat_summary *sum = &st->sum;
	int err = read_all(st, true);

	st->end_ns = mono_ns();
	sum->duration_ns = st->end_ns - st->start_ns;
	if (!err && st->opts->interval_ms) {
		struct stat_vals cur;

		/* The tail since the last mark, unless it is empty and tiny. */
		tdr_stat__total(st, true, &cur);
		if (!tdr_stat_vals__empty(&cur, st->sc.meta.event_cnt) ||
		    st->end_ns - st->mark_ns >= NS_PER_MS)
			err = emit_interval(st, st->end_ns);
	}
	if (st->launch) {
		sum->exit_code = tdr_launch__exit_code(st->launch, &sum->term_signal);
		sum->exited = tdr_launch__poll(st->launch) == 1;
	}
	sum->threads = 0;
	for (size_t i = 0; i < st->th.cnt; i++)
		sum->threads += st->th.v[i].unit != NULL;
	st->done = true;
	return err;
}

static int stat__loop(struct tdr_stat *st)
{
	struct sloop L = {.st = st};
	int err;

	err = setup(&L);
	if (!err)
		err = loop_run(&L);
	if (err) {
		tdr_warn("counting stopped early: %s", tdr_strerror(err));
		if (st->launch) /* the program runs: let it finish */
			tdr_launch__wait(st->launch);
	}
	/* A launched program is always waited for; signals are still
	 * forwarded meanwhile. */
	tdr_targets__wait_program(&st->tg, st->launch, &st->sw, &st->sig);
	if (!err)
		err = finish(&L);
	else
		finish(&L);
	free(L.pfds);
	return err;
}

int tdr_stat__start(struct tdr_stat *st)
{
	int err;

	if (st->started || st->ran)
		return -EINVAL;
	st->started = true;
	/* Before the release: the program may run (and end) before go
	 * returns, and its run must fit in the wall time ("CPUs"). */
	st->start_ns = st->mark_ns = mono_ns();
	if (st->launch) {
		err = tdr_launch__go(st->launch);
		if (err) {
			st->sum.exec_err = err;
			tdr_warn("cannot run '%s': %s", st->opts->what.argv[0], tdr_strerror(err));
			return err;
		}
	}
	return 0;
}

int tdr_stat__run(struct tdr_stat *st)
{
	int err;

	if (st->ran)
		return -EINVAL;
	err = st->started ? st->sum.exec_err : tdr_stat__start(st);
	st->ran = true;
	if (err)
		return err;
	return stat__loop(st);
}
