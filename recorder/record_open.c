/*
 * recorder/record_open.c - open the recording's session with the fallbacks,
 * and the one-time PERF_FORMAT_LOST probe.
 *
 * Responsibility: run the ladder (open_ladder.c: plan fallbacks, EMFILE,
 * explained refusals) with a session with rings as what is opened, the
 * inherit + PERF_SAMPLE_READ retry switched on, and the recorder's notes as
 * where the fallback lines go; then say (and note) what the run lost on the
 * way: inheritance, or ring size (the session halves rings down to its
 * minimum on mmap EPERM). Everything it says goes through tdr_warn
 * (stderr), once, where the context is known.
 * Objects and lifecycle: called by tdr_recorder__new (recorder.c) on its
 * half-built recorder; it owns nothing of its own.
 * See: docs/record.md "Fallbacks"; docs/kernel.md "inherit and PERF_SAMPLE_READ",
 * "Locked memory and perf_event_paranoid", "Lost samples".
 */
#define LOG_PREFIX "record: "

#include "recorder_int.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"

bool tdr_record__probe_read_lost(void)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(a),
	    .config = PERF_COUNT_SW_DUMMY,
	    .disabled = 1,
	    .exclude_kernel = 1,
	    .exclude_hv = 1,
	    .read_format = PERF_FORMAT_LOST,
	};
	int fd = tdr_sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	/* Only EINVAL says "unknown read_format bit"; anything else (no
	 * permission, no perf at all) is reported by the real open later. */
	return fd != -EINVAL;
}

/* The ladder's open: a session with rings of c->mmap_pages. */
static int open_session(void *ctx, const struct tdr_plan *plan, struct tdr_open_error *f)
{
	struct tdr_recorder *c = ctx;
	struct tdr_session_opts so = {
	    .plan = plan,
	    .pids = c->tg.pids,
	    .pid_cnt = c->tg.cnt,
	    .mmap_pages = c->mmap_pages,
	};

	return tdr_session__open(&so, &c->session, f);
}

static int add_note(void *ctx, const char *line)
{
	return tdr_record__add_note(ctx, line);
}

int tdr_record__open(struct tdr_recorder *c)
{
	struct tdr_ladder l = {
	    .tg = &c->tg,
	    .popts = &c->popts,
	    .plan = &c->plan,
	    .open = open_session,
	    .note = add_note,
	    .ctx = c,
	    .retry_noinherit = true,
	};
	char line[256];
	int err;

	err = tdr_ladder__open(&l); /* explains its failures itself */
	if (err)
		return err;
	if (l.noinherit) {
		snprintf(line, sizeof(line),
			 "this kernel cannot inherit sampling groups read with every sample "
			 "(needs Linux 6.12 or later): only the main thread is measured; -a covers "
			 "all threads");
		tdr_warn("%s", line);
		c->inherit_fallback = true;
		err = tdr_record__add_note(c, line);
		if (err)
			return err;
	}
	if (tdr_session__mmap_pages(c->session) &&
	    tdr_session__mmap_pages(c->session) < c->mmap_pages) {
		snprintf(
		    line, sizeof(line),
		    "ring buffers reduced from %zu to %zu pages per CPU (locked-memory budget, "
		    "perf_event_mlock_kb): samples may be lost at high rates",
		    c->mmap_pages, tdr_session__mmap_pages(c->session));
		tdr_warn("%s", line);
		err = tdr_record__add_note(c, line);
		if (err)
			return err;
	}
	return 0;
}
