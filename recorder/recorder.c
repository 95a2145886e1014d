/*
 * recorder/recorder.c - set up a recording: plan, program or targets,
 * session, metadata, file, synthesized records.
 *
 * Responsibility: tdr_recorder__new does everything that can fail before
 * the program runs, in an order that never touches an existing output file
 * on failure: signals, the PERF_FORMAT_LOST probe, the plan, the child held
 * before exec (or the -p threads: targets.c), the session (record_open.c), the
 * metadata, then the file and the synthesized MMAP2/COMM frame.
 * tdr_recorder__run releases the program and runs the loop (record_loop.c).
 * Every frame goes through tdr_record__add_frame, which notes the files its
 * MMAP2 records map (dso_set.c); tdr_record__write_dso_table reads their
 * build-ids at the end into the DSO table section.
 * Objects and lifecycle: tdr_recorder__new -> __run -> __summary -> __free.
 * Ownership and threads: the recorder owns every object it creates; opts
 * is borrowed for its life. One thread, plus the writer thread __run starts.
 * Invariants: the sample clock is read (start_clock_ns) before any event is
 * opened, so synthesized records sort before every kernel record.
 * See: docs/record.md; tdrec/recorder.h.
 */
#define LOG_PREFIX "record: "

#include "recorder_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_outpath.h"

#define SYNTH_FRAME_SZ (4u << 20)

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int tdr_record__add_note(struct tdr_recorder *rec, const char *line)
{
	size_t cap = rec->meta.note_cnt;
	char *n = tdr_strdup(line);

	if (!n || tdr_ensure_cap(&rec->meta.notes, &cap, sizeof(char *), rec->meta.note_cnt + 1)) {
		free(n);
		return -ENOMEM;
	}
	rec->meta.notes[rec->meta.note_cnt++] = n;
	return 0;
}

/* What the options say to record, checked: tg is filled even on failure. */
static int check_opts(const struct tdr_record_opts *o, struct tdr_targets *tg)
{
	int err;

	err = tdr_targets__init(tg, "record", "recording", &o->what);
	if (err)
		return err;
	if (o->sample_period && o->sample_freq) {
		tdr_warn("give -F or -c, not both");
		return -TDR_E_USAGE;
	}
	if (o->mmap_pages & (o->mmap_pages - 1)) {
		tdr_warn("--mmap-pages must be a power of two (got %zu)", o->mmap_pages);
		return -TDR_E_USAGE;
	}
	return 0;
}

/*
 * The plan options of a recording, for the real run and --dry-run alike.
 * A frequency above kernel.perf_event_max_sample_rate would be refused
 * with EINVAL by every plan (and look like a plan that does not fit): it
 * is lowered to the limit, as perf does, with a line in *note (else "").
 */
static void record_plan_opts(const struct tdr_record_opts *o, const struct tdr_targets *tg,
			     bool read_lost, struct tdr_plan_opts *p, char *note, size_t note_sz)
{
	int max_rate = tdr_machine__max_sample_rate(NULL);

	note[0] = '\0';
	memset(p, 0, sizeof(*p));
	p->sysfs_root = o->what.sysfs_root;
	p->sampler = o->sampler;
	p->extra = o->extra;
	p->extra_cnt = o->extra_cnt;
	p->sample_period = o->sample_period;
	p->sample_freq = o->sample_period ? 0
			 : o->sample_freq ? o->sample_freq
					  : TDR_RECORD_DEFAULT_FREQ;
	if (p->sample_freq && max_rate > 0 && p->sample_freq > (uint64_t)max_rate) {
		snprintf(note, note_sz,
			 "-F %llu is above the kernel's limit, kernel.perf_event_max_sample_rate = "
			 "%d: sampling at %d Hz (raise the limit with sysctl, or use -c)",
			 (unsigned long long)p->sample_freq, max_rate, max_rate);
		p->sample_freq = (uint64_t)max_rate;
	}
	tdr_targets__plan_opts(tg, p);
	p->inherit = p->inherit && !o->no_inherit;
	p->read_lost = read_lost;
	p->clockid = CLOCK_MONOTONIC;
	p->call_graph = o->call_graph;
	p->stack_size = o->stack_size;
}

/* Ring pages: --mmap-pages, else the default; a dwarf stack copy makes
 * every sample some KiB, so its rings are 8 times larger (perf's
 * --call-graph dwarf loses samples at the default size too; the session
 * halves the rings when they exceed the mlock budget). */
static size_t ring_pages(const struct tdr_record_opts *o)
{
	if (o->mmap_pages)
		return o->mmap_pages;
	return o->call_graph == TDR_CALL_GRAPH_DWARF ? 8 * TDR_RECORD_DEFAULT_PAGES
						     : TDR_RECORD_DEFAULT_PAGES;
}

static int choose_plan(struct tdr_recorder *rec)
{
	char note[256];
	int err;

	rec->read_lost = tdr_record__probe_read_lost();
	record_plan_opts(rec->opts, &rec->tg, rec->read_lost, &rec->popts, note, sizeof(note));
	if (note[0]) {
		tdr_warn("%s", note);
		err = tdr_record__add_note(rec, note);
		if (err)
			return err;
	}
	return tdr_targets__choose_plan(&rec->tg, &rec->popts, rec->opts->what.plan_kind,
					&rec->plan);
}

int tdr_recorder__plan(const struct tdr_record_opts *opts, struct tdr_plan **out)
{
	struct tdr_targets tg;
	struct tdr_plan_opts p;
	struct tdr_plan *plan = NULL;
	char note[256];
	int err;

	err = check_opts(opts, &tg);
	if (err)
		return err;
	/* PERF_FORMAT_LOST is what is tried first; probing it would open an
	 * event, and a dry run opens nothing. */
	record_plan_opts(opts, &tg, true, &p, note, sizeof(note));
	if (note[0])
		tdr_warn("%s", note);
	err = tdr_targets__choose_plan(&tg, &p, opts->what.plan_kind, &plan);
	if (err)
		return err;
	tdr_session__prepare_plan(plan, ring_pages(opts));
	*out = plan;
	return 0;
}

static int build_meta(struct tdr_recorder *rec)
{
	const struct tdr_record_opts *o = rec->opts;
	struct tdr_meta *m = &rec->meta;
	int err;

	m->tdrec_version = tdr_strdup(TDREC_VERSION);
	if (!m->tdrec_version)
		return -ENOMEM;
	if (o->tdrec_argc) {
		m->argv = tdr_calloc(o->tdrec_argc, sizeof(char *));
		if (!m->argv)
			return -ENOMEM;
		for (size_t i = 0; i < o->tdrec_argc; i++) {
			m->argv[i] = tdr_strdup(o->tdrec_argv[i] ? o->tdrec_argv[i] : "");
			if (!m->argv[i])
				return -ENOMEM;
			m->argc = i + 1;
		}
	}
	err = tdr_machine__fill(m, NULL);
	if (!err)
		err = tdr_plan__to_meta(rec->plan, m);
	if (!err)
		err = tdr_session__fill_meta(rec->session, m);
	if (err)
		return err;
	if (rec->popts.inherit && !rec->inherit_fallback)
		m->flags |= TDR_META_INHERIT;
	if (o->what.system_wide)
		m->flags |= TDR_META_SYSTEM_WIDE;
	if (o->what.pid_cnt)
		m->flags |= TDR_META_ATTACHED;
	if (o->what.kernel)
		m->flags |= TDR_META_KERNEL;
	m->clockid = CLOCK_MONOTONIC;
	m->start_wall_ns = rec->start_wall_ns;
	m->start_clock_ns = rec->start_clock_ns;
	return 0;
}

/* The file: atomic replace for regular files (and new ones, and symbolic
 * links to either: the link is replaced, never followed); a FIFO or
 * character device (/dev/null, /dev/full) not reached through a link is
 * written in place, never renamed over; anything else is refused
 * (tdr_outpath.h, docs/security.md). */
static int open_writer(struct tdr_recorder *rec)
{
	struct tdr_writer_opts wo = {
	    .path = rec->sum.path,
	    .atomic_replace = true,
	    .zstd_level = rec->opts->zstd_level,
	    .codec = TDR_CODEC_CHAINED, /* docs/format.md 6.1, 6.2: several times smaller */
	    .archive = rec->opts->archive != NULL, /* minor 4 (docs/format.md 7.2) */
	};
	enum tdr_out_kind kind;
	const char *why;
	int err;

	err = tdr_outpath_kind(wo.path, &kind, &why);
	if (err) {
		tdr_warn("cannot write %s: %s", wo.path, why);
		return err;
	}
	wo.atomic_replace = kind == TDR_OUT_FILE;
	if (wo.atomic_replace) {
		size_t n = strlen(wo.path);

		rec->partial_path = tdr_malloc(n + sizeof(".partial"));
		if (!rec->partial_path)
			return -ENOMEM;
		memcpy(rec->partial_path, wo.path, n);
		memcpy(rec->partial_path + n, ".partial", sizeof(".partial"));
	}
	err = tdr_writer__open(&wo, &rec->meta, &rec->writer);
	/* The writer leaves the one line naming the file to its caller. */
	if (err == -EEXIST && wo.atomic_replace)
		tdr_warn("cannot create %s: it exists, from another recording to %s that is "
			 "running or was killed (tdrec report -i %s reads it); remove it or "
			 "choose another -o",
			 rec->partial_path, wo.path, rec->partial_path);
	else if (err == -ENXIO && !wo.atomic_replace)
		tdr_warn("cannot write %s: a FIFO that no process reads", wo.path);
	else if (err)
		tdr_warn("cannot create %s: %s", wo.atomic_replace ? rec->partial_path : wo.path,
			 tdr_strerror(err));
	return err;
}

/* The sample_type of the first group's sampler, whose trailer the MMAP2
 * records carry (0 without a sampler: no MMAP2 records either). */
static uint64_t sampler_sample_type(const struct tdr_session *s)
{
	const struct tdr_session_group *g = &s->groups[0];

	return g->sampler_idx < 0 ? 0 : g->events[g->sampler_idx].attr.sample_type;
}

/* Synthesized MMAP2/COMM for -p / -a, one frame (ring TDR_RING_SYNTHETIC)
 * per SYNTH_FRAME_SZ, before any kernel record. */
static int write_synth(struct tdr_recorder *rec)
{
	const struct tdr_record_opts *o = rec->opts;
	const struct tdr_session_group *g = &rec->session->groups[0];
	struct tdr_synth_buf buf = {0};
	struct tdr_synth_id sid;
	pid_t *all = NULL;
	const pid_t *pids = o->what.pids;
	int n = (int)o->what.pid_cnt, err = 0;
	size_t pi = 0;

	if (g->sampler_idx < 0 || (!o->what.pid_cnt && !o->what.system_wide))
		return 0;
	if (o->what.system_wide) {
		n = tdr_proc__pids(NULL, &all);
		if (n < 0)
			return 0; /* no /proc: nothing to add */
		pids = all;
	} else {
		for (pi = 0; pi < rec->tg.cnt && rec->tg.pids[pi] != o->what.pids[0]; pi++)
			;
		if (pi == rec->tg.cnt)
			pi = 0;
	}
	sid.sample_type = g->events[g->sampler_idx].attr.sample_type;
	sid.time_ns = rec->start_clock_ns;
	sid.cpu = (uint32_t)g->cpus[0];
	sid.id = g->ids[tdr_session_slot(rec->session, g, 0, pi, (size_t)g->sampler_idx)];
	for (int i = 0; i < n && !err; i++) {
		int e = tdr_synth__process(&buf, NULL, pids[i], &sid);

		if (e == -ENOMEM)
			err = e; /* a process that ended meanwhile is fine */
		if (!err && buf.sz >= SYNTH_FRAME_SZ) {
			err = tdr_record__add_frame(rec, TDR_RING_SYNTHETIC, buf.data, buf.sz);
			buf.sz = 0;
		}
	}
	if (!err && buf.sz)
		err = tdr_record__add_frame(rec, TDR_RING_SYNTHETIC, buf.data, buf.sz);
	if (err)
		tdr_warn("cannot write the process maps to %s: %s", rec->sum.path,
			 tdr_strerror(err));
	free(buf.data);
	free(all);
	return err;
}

int tdr_record__add_frame(struct tdr_recorder *rec, uint32_t ring, const void *data, size_t sz)
{
	tdr_dso_set__scan(&rec->dsos, data, sz);
	return tdr_writer__add_frame(rec->writer, ring, data, sz);
}

void tdr_record__write_dso_table(struct tdr_recorder *rec)
{
	uint64_t t0_ns = clock_ns(CLOCK_MONOTONIC);
	size_t sz, with_id = 0;
	void *data;
	int err;

	/* Only now: the program has ended, and a file rebuilt by it (or by
	 * anyone) during the recording is told apart by its inode or time. */
	tdr_dso_set__resolve(&rec->dsos, NULL, (int64_t)(rec->start_wall_ns - rec->start_clock_ns));
	for (size_t i = 0; i < rec->dsos.cnt; i++)
		with_id += rec->dsos.files[i].status == TDR_DSO_BUILD_ID;
	if (rec->dsos.dropped)
		tdr_warn("%" PRIu64 " mappings of files beyond the first %zu were not kept: the "
			 "report tells those files apart by their time only",
			 rec->dsos.dropped, rec->dsos.cnt);
	err = tdr_dso_set__encode(&rec->dsos, &data, &sz);
	if (!err) {
		err = tdr_writer__add_section(rec->writer, TDR_SECTION_DSO_TABLE, data, sz);
		free(data);
	}
	if (err)
		tdr_warn("cannot write the build-ids of the mapped files to %s: %s; the report "
			 "tells rebuilt binaries by their file time only",
			 rec->sum.path, tdr_strerror(err));
	tdr_debug("build-ids of %zu of %zu mapped files read in %.2f ms", with_id, rec->dsos.cnt,
		  (double)(clock_ns(CLOCK_MONOTONIC) - t0_ns) / 1e6);
}

/*
 * The symbols of what the samples hit, into the file (docs/record.md
 * "Archiving"): last, after the samples and the DSO table, so that a
 * recorder killed meanwhile leaves every sample readable. A failure costs
 * only the archive.
 */
void tdr_record__write_archive(struct tdr_recorder *rec)
{
	uint64_t t0_ns = clock_ns(CLOCK_MONOTONIC);
	const char *path = rec->partial_path;
	void *data = NULL;
	size_t sz = 0;
	int err;

	/* A device or FIFO output (no .partial) cannot be read back. */
	if (!rec->opts->archive || !rec->partial_path)
		return;
	err = rec->opts->archive(rec->opts->archive_ctx, path, &data, &sz);
	if (!err)
		err = tdr_writer__add_section(rec->writer, TDR_SECTION_ARCHIVE, data, sz);
	free(data);
	if (err)
		tdr_warn("cannot store the symbols of the samples in %s: %s; 'tdrec archive %s' "
			 "can do it later, while the binaries are there",
			 rec->sum.path, tdr_strerror(err), rec->sum.path);
	tdr_debug("symbols archived in %.2f ms (%zu bytes)",
		  (double)(clock_ns(CLOCK_MONOTONIC) - t0_ns) / 1e6, sz);
}

int tdr_recorder__new(const struct tdr_record_opts *opts, struct tdr_recorder **out)
{
	struct tdr_targets tg;
	struct tdr_recorder *rec;
	int err;

	err = check_opts(opts, &tg);
	if (err)
		return err;
	rec = tdr_calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	rec->opts = opts;
	rec->tg = tg;
	rec->sw.fd = -1;
	rec->sum.path = opts->output ? opts->output : TDR_RECORD_DEFAULT_OUTPUT;
	rec->sum.exit_code = -1;
	rec->mmap_pages = ring_pages(opts);

	/* Before fork and before any thread: signals become an fd. */
	err = tdr_targets__open_signals(&rec->tg, &rec->sw);
	if (err)
		goto err_out;
	err = choose_plan(rec);
	if (err)
		goto err_out;
	err = tdr_targets__make(&rec->tg, &rec->sw.old_mask, &rec->launch);
	rec->sum.launched = rec->launch != NULL;
	if (err)
		goto err_out;
	/* The sample clock before any event exists (see Invariants). */
	rec->start_clock_ns = clock_ns(CLOCK_MONOTONIC);
	rec->start_wall_ns = clock_ns(CLOCK_REALTIME);
	err = tdr_record__open(rec);
	if (err)
		goto err_out;
	tdr_dso_set__init(&rec->dsos, sampler_sample_type(rec->session));
	err = build_meta(rec);
	if (err)
		goto err_out;
	err = open_writer(rec);
	if (err)
		goto err_out;
	err = write_synth(rec);
	if (err) {
		rec->sum.write_err = err;
		goto err_out;
	}
	*out = rec;
	return 0;
err_out:
	if (rec->writer && rec->partial_path) {
		/* Failed before recording anything: no half-made file. */
		tdr_writer__free(rec->writer);
		rec->writer = NULL;
		unlink(rec->partial_path);
	}
	tdr_recorder__free(rec);
	return err;
}

/* When recording starts: one line when this is not the best plan there is,
 * and the plan's own notes (hybrid CPUs not measured, an -e ignored). */
static void say_plan(const struct tdr_plan *plan)
{
	size_t skip = plan->skip_note_cnt;

	if (skip)
		tdr_info("plan %s%s (%s)", tdr_plan_kind_name(plan->kind),
			 plan->kind == TDR_PLAN_SOFTWARE ? ", no TopDown" : "",
			 plan->notes[skip - 1]);
	for (size_t i = skip; i < plan->note_cnt; i++)
		tdr_warn("%s", plan->notes[i]);
}

int tdr_recorder__run(struct tdr_recorder *rec)
{
	int err;

	if (rec->ran)
		return -EINVAL;
	rec->ran = true;
	/* The run's duration starts before the program is released: a short
	 * program may finish before tdr_launch__go returns. */
	rec->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	tdr_record__drain_priority(rec);
	if (rec->launch) {
		err = tdr_launch__go(rec->launch);
		if (err) {
			rec->sum.exec_err = err;
			tdr_record__drain_priority_restore(rec);
			tdr_warn("cannot run '%s': %s", rec->opts->what.argv[0], tdr_strerror(err));
			/* Nothing was recorded: leave no file behind, and an
			 * existing output file untouched. */
			tdr_writer__free(rec->writer);
			rec->writer = NULL;
			if (rec->partial_path)
				unlink(rec->partial_path);
			return err;
		}
	}
	say_plan(rec->plan);
	return tdr_record__loop(rec);
}

const struct tdr_record_summary *tdr_recorder__summary(const struct tdr_recorder *rec)
{
	return &rec->sum;
}

void tdr_recorder__free(struct tdr_recorder *rec)
{
	if (!rec)
		return;
	/* A writer still here was never finished: the file keeps its frames
	 * under its current (".partial") name. */
	tdr_writer__free(rec->writer);
	tdr_session__free(rec->session);
	tdr_dso_set__free(&rec->dsos);
	tdr_launch__free(rec->launch);
	tdr_plan__free(rec->plan);
	tdr_targets__release(&rec->tg);
	free(rec->partial_path);
	tdr_meta__clear(&rec->meta);
	tdr_sigwatch__close(&rec->sw);
	free(rec);
}
