/*
 * recorder/record_loop.c - the drain loop of a recording, and its finish.
 *
 * Responsibility: poll() the signal fd, the writer thread's wake fd, the -p
 * pidfds and every ring fd; drain every ring into chunks on each wakeup
 * (drain.c) and queue partial chunks at least every TDR_RECORD_FLUSH_MS;
 * decide when the recording ends; then drain a last time, stop the writer
 * thread, collect the totals (samples per sampler, and from a read of
 * every group: PERF_FORMAT_LOST and each event's counted total), write
 * the DSO table (the mapped files' build-ids, read now that the program
 * has ended) and finish the file with the run's end.
 * When it ends:
 *   - launched program: when it exits. SIGINT/SIGTERM/SIGHUP are forwarded
 *     (except a terminal's, which the program got itself); the third one
 *     kills it with SIGKILL (tdr_targets__signals: one policy for record
 *     and stat).
 *   - -p: when every process has ended, or at the first signal (the
 *     processes keep running).
 *   - -a: when the program (if any) exits, else at the first signal.
 * A write error stops the recording at once (counters disabled, nothing
 * more drained) but not the program: the loop waits for it as usual.
 * Objects and lifecycle: tdr_record__loop runs once per recorder.
 * Ownership and threads: the loop's thread owns the rings and chunks being
 * filled; the writer thread owns the tdr_writer until it is joined.
 * See: docs/record.md "The drain loop"; docs/kernel.md "Ring buffer".
 */
#define LOG_PREFIX "record: "

#include "recorder_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define CHUNK_MIN_SZ (256u << 10) /* above the 64 KiB record limit */
#define CHUNK_MAX_SZ (4u << 20)

struct loop {
	struct tdr_recorder *rec;
	struct tdr_wthread *wt;
	struct tdr_drain drain;
	struct pollfd *pfds;
	size_t nfds;
	size_t pidfd_base, ring_base;
	bool recording;
	bool stop;
	struct tdr_sigstate sig;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * The draining thread's priority. With both CPUs busy with the program's
 * threads, a woken drainer waits for the scheduler while the rings fill;
 * at 100 kHz a 32 KiB ring is full in about 2.5 ms. Running it at nice -10
 * (where allowed: CAP_SYS_NICE or RLIMIT_NICE) cut the samples lost with
 * --mmap-pages 8 from about 11% to about 2% (docs/performance.md, goal 1
 * of issue 18). Raised before the program starts, so its first samples are
 * drained as promptly; only this thread: the program was forked before,
 * the writer thread (compression) moves itself back to the old priority
 * as it starts (the drain thread never drops, so anyone looking sees it
 * raised throughout), and the archive step at the end runs after it is
 * restored.
 */
void tdr_record__drain_priority(struct tdr_recorder *rec)
{
	errno = 0;
	rec->nice_before = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	if (errno || rec->nice_before <= TDR_DRAIN_NICE)
		return;
	if (tdr_record__set_own_nice(TDR_DRAIN_NICE)) {
		tdr_debug("drain thread stays at nice %d: %s", rec->nice_before, strerror(errno));
		return;
	}
	rec->nice_raised = true;
}

/* Back to the priority the thread had. */
static void drain_priority_lower(struct tdr_recorder *rec)
{
	if (rec->nice_raised && tdr_record__set_own_nice(rec->nice_before))
		tdr_debug("cannot set the drain thread's nice: %s", strerror(errno));
}

/* Runs on the writer thread. */
static int frame_sink(void *ctx, uint32_t ring, const void *data, size_t sz)
{
	return tdr_record__add_frame(ctx, ring, data, sz);
}

void tdr_record__drain_priority_restore(struct tdr_recorder *rec)
{
	drain_priority_lower(rec);
}

/* Signals (targets.c: the policy stat follows too). */
static void read_signals(struct loop *L)
{
	struct tdr_recorder *rec = L->rec;

	if (tdr_targets__signals(&rec->tg, rec->launch, &rec->sw, &L->sig))
		L->stop = true;
	rec->sum.stop_signal = L->sig.stop_signal;
}

static void stop_rings_in_poll(struct loop *L)
{
	for (size_t i = L->ring_base; i < L->nfds; i++)
		L->pfds[i].fd = -1;
}

/* After a write error the file keeps its .partial name (docs/record.md
 * "What happens on errors and kills"): an existing output file stays
 * untouched. Where the frames written so far are, for the one line. */
static const char *kept_file(const struct tdr_recorder *rec, char *buf, size_t sz)
{
	if (!rec->partial_path)
		return rec->sum.path;
	snprintf(buf, sz, "%s (%s is not replaced)", rec->partial_path, rec->sum.path);
	return buf;
}

/* The writer thread failed: stop recording, keep the program running. */
static void check_write_error(struct loop *L)
{
	struct tdr_recorder *rec = L->rec;
	int err = tdr_wthread__error(L->wt);
	char buf[2 * PATH_MAX + 32];

	if (!err || !L->recording)
		return;
	L->recording = false;
	rec->sum.write_err = err;
	tdr_session__disable(rec->session);
	stop_rings_in_poll(L);
	tdr_warn("stopped recording: cannot write %s: %s; the frames written before stay in %s%s",
		 rec->partial_path ? rec->partial_path : rec->sum.path, tdr_strerror(err),
		 kept_file(rec, buf, sizeof(buf)),
		 rec->launch ? "; the program runs on to its end" : "");
	if (!rec->launch)
		L->stop = true;
}

static void check_pids(struct loop *L, bool tick)
{
	if (tdr_targets__all_gone(&L->rec->tg, &L->pfds[L->pidfd_base], tick))
		L->stop = true;
}

static int loop_setup(struct loop *L)
{
	struct tdr_recorder *rec = L->rec;
	struct tdr_session *s = rec->session;
	struct tdr_ring **rings = NULL;
	size_t ring_sz = tdr_session__mmap_pages(s) * (size_t)sysconf(_SC_PAGESIZE);
	struct tdr_wthread_opts wo = {
	    .chunk_sz = ring_sz < CHUNK_MIN_SZ	 ? CHUNK_MIN_SZ
			: ring_sz > CHUNK_MAX_SZ ? CHUNK_MAX_SZ
						 : ring_sz,
	    .max_chunks = 2 * s->ring_cnt + 4,
	    .sink = frame_sink,
	    .ctx = rec,
	    .set_nice = rec->nice_raised,
	    .nice = rec->nice_before,
	};
	size_t i;
	int err;

	L->nfds = 2 + rec->tg.proc_cnt + s->ring_cnt;
	L->pfds = tdr_calloc(L->nfds, sizeof(*L->pfds));
	rings = tdr_calloc(s->ring_cnt + 1, sizeof(*rings));
	if (!L->pfds || !rings) {
		free(rings);
		return -ENOMEM;
	}
	for (i = 0; i < s->ring_cnt; i++)
		rings[i] = &s->rings[i];
	err = tdr_wthread__new(&wo, &L->wt);
	if (!err)
		err = tdr_drain__init(&L->drain, L->wt, rings, s->ring_cnt);
	free(rings);
	if (err)
		return err;
	L->pfds[0] = (struct pollfd){.fd = rec->sw.fd, .events = POLLIN};
	L->pfds[1] = (struct pollfd){.fd = tdr_wthread__wake_fd(L->wt), .events = POLLIN};
	L->pidfd_base = 2;
	tdr_targets__poll_fds(&rec->tg, &L->pfds[L->pidfd_base]);
	L->ring_base = L->pidfd_base + rec->tg.proc_cnt;
	for (i = 0; i < s->ring_cnt; i++)
		L->pfds[L->ring_base + i] = (struct pollfd){.fd = s->rings[i].fd, .events = POLLIN};
	L->recording = true;
	return 0;
}

static void loop_run(struct loop *L)
{
	struct tdr_recorder *rec = L->rec;
	uint64_t next_flush = mono_ms() + TDR_RECORD_FLUSH_MS;

	/* The program may have ended before the loop starts (SIGCHLD stays
	 * pending in the signalfd, so this is only a shortcut). */
	if (rec->launch && tdr_launch__poll(rec->launch) == 1)
		L->stop = true;
	while (!L->stop) {
		uint64_t now = mono_ms();
		int timeout = next_flush > now ? (int)(next_flush - now) : 0;
		int n = poll(L->pfds, L->nfds, timeout);
		bool tick;

		if (n < 0 && errno != EINTR) {
			tdr_warn("poll failed: %s", strerror(errno));
			break;
		}
		read_signals(L);
		if (n > 0 && (L->pfds[1].revents & POLLIN))
			tdr_wthread__clear_wake(L->wt);
		/* A ring fd whose task has exited reports POLLHUP for ever: take
		 * it out of the poll set; the ring is still drained below. */
		for (size_t i = L->ring_base; n > 0 && i < L->nfds; i++)
			if (L->pfds[i].revents & (POLLHUP | POLLERR))
				L->pfds[i].fd = -1;
		now = mono_ms();
		tick = now >= next_flush;
		check_pids(L, tick);
		if (L->recording) {
			tdr_drain__all(&L->drain);
			if (tick)
				tdr_drain__flush(&L->drain);
			check_write_error(L);
		}
		if (tick)
			next_flush = now + TDR_RECORD_FLUSH_MS;
	}
}

/* Drain what is left, waiting for free chunks when starved (bounded). */
static void loop_final_drain(struct loop *L)
{
	struct pollfd wake = {.fd = tdr_wthread__wake_fd(L->wt), .events = POLLIN};

	for (int i = 0; L->recording && i < 200; i++) {
		tdr_drain__all(&L->drain);
		tdr_drain__flush(&L->drain);
		check_write_error(L);
		if (!tdr_drain__starved(&L->drain))
			break;
		if (poll(&wake, 1, 50) > 0)
			tdr_wthread__clear_wake(L->wt);
	}
	tdr_drain__flush(&L->drain);
}

/*
 * Read every fd of group gi (one read(2) per CPU and target, the leader's
 * PERF_FORMAT_GROUP) into ev[base..]: PERF_FORMAT_LOST per event when the
 * plan has it, and the counted totals (docs/format.md 8.1). For inherited
 * groups the kernel has added the counts of every exited child thread and
 * process to these fds' events (sync_child_event at the child's exit), so
 * the sums are the whole run's. A group with an fd that cannot be read has
 * no counted totals: a partial sum would pass for a whole one.
 */
static void read_group_totals(struct tdr_recorder *rec, size_t gi, struct tdr_event_totals *ev,
			      size_t room, uint64_t *fmt_lost)
{
	struct tdr_session *s = rec->session;
	struct tdr_session_group *g = &s->groups[gi];
	size_t n = g->event_cnt < room ? g->event_cnt : room;
	uint64_t counted[TDR_PLAN_MAX_EVENTS] = {0}, ena = 0, run = 0;
	bool whole = g->cpu_cnt > 0 && s->pid_cnt > 0;

	for (size_t ci = 0; ci < g->cpu_cnt; ci++) {
		for (size_t pi = 0; pi < s->pid_cnt; pi++) {
			struct tdr_group_read rd;
			int err = tdr_session__read_group(s, gi, ci, pi, &rd);

			if (err || rd.value_cnt != g->event_cnt) {
				if (whole)
					tdr_debug("cannot read group %zu on CPU %d for pid %d: %s",
						  gi, g->cpus[ci], (int)s->pids[pi],
						  err ? tdr_strerror(err) : "short group");
				whole = false;
				continue;
			}
			for (size_t e = 0; e < n; e++) {
				if (rec->read_lost) {
					ev[e].lost_samples += rd.lost[e];
					*fmt_lost += rd.lost[e];
				}
				counted[e] += rd.values[e];
			}
			ena += rd.time_enabled;
			run += rd.time_running;
		}
	}
	/* A group that was enabled but never counted (time_running 0) was
	 * never scheduled: its counters were taken (docs/plans.md "Counter
	 * budget"), or, the E-core group of a hybrid part, the program never
	 * ran on its CPUs. Its zeros are not counts: say so once, store none. */
	if (whole && ena > 0 && run == 0 && rec->meta.plan_name &&
	    strcmp(rec->meta.plan_name, "software")) {
		const struct tdr_plan_group *pg =
		    rec->plan && gi < rec->plan->group_cnt ? &rec->plan->groups[gi] : NULL;

		if (pg && pg->kind)
			tdr_warn("the %s group on %s never ran (time_running 0): the program did "
				 "not run on its CPUs, or the PMU could not schedule it; it has no "
				 "counts",
				 tdr_plan_kind_name(pg->kind), pg->events[0].pmu_name);
		else
			tdr_warn("the %s group never ran (time_running 0): the PMU could not "
				 "schedule it, so it has no counts; free a counter with 'sysctl "
				 "kernel.nmi_watchdog=0', or use --plan with fewer events",
				 rec->meta.plan_name);
		whole = false;
	}
	/* After a write error the counters were stopped early: not the
	 * whole run. */
	for (size_t e = 0; whole && !rec->sum.write_err && e < n; e++) {
		ev[e].has_counted = true;
		ev[e].counted = counted[e];
		ev[e].time_enabled_ns = ena;
		ev[e].time_running_ns = run;
	}
}

struct tdr_event_totals *tdr_record__event_totals(struct tdr_recorder *rec, uint64_t *fmt_lost)
{
	struct tdr_session *s = rec->session;
	size_t cnt = rec->meta.event_cnt, base = 0;
	struct tdr_event_totals *ev = tdr_calloc(cnt ? cnt : 1, sizeof(*ev));

	*fmt_lost = 0;
	if (!ev)
		return NULL;
	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		struct tdr_session_group *g = &s->groups[gi];

		if (g->sampler_idx >= 0 && base + (size_t)g->sampler_idx < cnt) {
			struct tdr_event_totals *t = &ev[base + (size_t)g->sampler_idx];

			for (size_t r = 0; r < s->ring_cnt; r++) {
				t->samples += s->rings[r].group_samples[gi];
				if (!rec->read_lost && gi == 0)
					t->lost_samples += s->rings[r].cnt.lost_samples;
			}
		}
		if (base < cnt)
			read_group_totals(rec, gi, &ev[base], cnt - base, fmt_lost);
		base += g->event_cnt;
	}
	return ev;
}

/* Problems counted on the hot path, reported once (docs/architecture.md "Conventions"). */
static void report_ring_problems(struct loop *L)
{
	struct tdr_session *s = L->rec->session;
	uint64_t resyncs = 0, oversized = 0, bytes = 0;

	for (size_t r = 0; r < s->ring_cnt; r++) {
		resyncs += s->rings[r].cnt.resyncs;
		oversized += s->rings[r].cnt.oversized;
		bytes += s->rings[r].cnt.bytes;
	}
	if (resyncs || oversized)
		tdr_warn("ring buffers held %" PRIu64 " bad record headers and %" PRIu64
			 " oversized records; the rest of those rings was skipped",
			 resyncs, oversized);
	tdr_debug("drained %" PRIu64 " bytes from %zu rings; %" PRIu64
		  " times a ring waited for a free chunk",
		  bytes, s->ring_cnt, L->drain.starved_cnt);
}

static void loop_finish(struct loop *L)
{
	struct tdr_recorder *rec = L->rec;
	struct tdr_record_summary *sum = &rec->sum;
	const struct tdr_totals *tot;
	struct tdr_event_totals *ev;
	struct tdr_run_end end = {0};
	uint64_t fmt_lost = 0;
	char buf[2 * PATH_MAX + 32];
	struct timespec ts;
	int err;

	if (rec->launch) {
		int code = tdr_launch__exit_code(rec->launch, &sum->term_signal);

		sum->exited = tdr_launch__poll(rec->launch) == 1;
		sum->exit_code = code;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sum->duration_ns =
	    (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - rec->start_mono_ns;
	ev = tdr_record__event_totals(rec, &fmt_lost);
	report_ring_problems(L);
	end.duration_ns = sum->duration_ns;
	end.exit_code = sum->exit_code;
	end.term_signal = sum->term_signal;
	if (sum->term_signal)
		end.flags |= TDR_END_SIGNALLED;
	if (L->sig.interrupted)
		end.flags |= TDR_END_INTERRUPTED;
	if (sum->write_err)
		end.flags |= TDR_END_WRITE_ERROR;
	if (!rec->launch)
		end.flags |= TDR_END_NO_PROGRAM;
	if (!sum->write_err) {
		tdr_record__write_dso_table(rec);
		tdr_record__embed_regions(rec);
		tdr_record__write_archive(rec);
	} else
		tdr_writer__keep_partial(rec->writer); /* incomplete: not renamed */
	err = tdr_writer__finish(rec->writer, ev, ev ? rec->meta.event_cnt : 0, &end);
	if (err && !sum->write_err) {
		sum->write_err = err;
		tdr_warn("cannot finish %s: %s; the frames written so far stay readable in %s",
			 rec->partial_path ? rec->partial_path : sum->path, tdr_strerror(err),
			 kept_file(rec, buf, sizeof(buf)));
	}
	/* The summary names the file that holds the recording. */
	if (sum->write_err && rec->partial_path)
		sum->path = rec->partial_path;
	sum->file_written = !err;
	tot = tdr_writer__totals(rec->writer);
	sum->samples = tot->samples;
	sum->lost = tot->lost_samples > fmt_lost ? tot->lost_samples : fmt_lost;
	sum->throttles = tot->throttles;
	sum->file_sz = tdr_writer__file_size(rec->writer);
	tdr_writer__free(rec->writer);
	rec->writer = NULL;
	free(ev);
}

int tdr_record__loop(struct tdr_recorder *rec)
{
	struct loop L = {.rec = rec};
	int err;

	err = loop_setup(&L);
	if (err) {
		tdr_warn("failed to start the drain loop: %s", tdr_strerror(err));
		drain_priority_lower(rec);
		tdr_drain__release(&L.drain);
		tdr_wthread__free(L.wt);
		free(L.pfds);
		if (rec->launch) /* the program runs: let it finish */
			tdr_launch__wait(rec->launch);
		return err;
	}
	loop_run(&L);
	/* Stop counting where the recording stops (-p, -a: the targets run
	 * on), so that the counted totals read at the finish cover what the
	 * drained samples cover (docs/record.md "Counted totals"). */
	tdr_session__disable(rec->session);
	loop_final_drain(&L);
	drain_priority_lower(rec);
	tdr_wthread__stop(L.wt);
	check_write_error(&L);
	tdr_drain__release(&L.drain);
	/* Whatever stopped the recording, a launched program is waited for
	 * (a write error does not end it). Signals are still forwarded. */
	tdr_targets__wait_program(&rec->tg, rec->launch, &rec->sw, &L.sig);
	loop_finish(&L);
	tdr_wthread__free(L.wt);
	free(L.pfds);
	return rec->sum.write_err;
}
