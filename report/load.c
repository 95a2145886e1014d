/*
 * report/load.c - one recording file to a finished report.
 *
 * Responsibility: the glue between the parser, the symbolizer and the
 * report for the commands: open the file (.tdr or perf.data), run every
 * sample into the report's address table, take the run end and the parser's
 * statistics as warnings, symbolize each unique address once, finish.
 * This is the only report/ file that calls the parser and the symbolizer, so
 * everything else builds and tests without them. It also gives the parser
 * symbolize's unwinder for recordings with user stack copies
 * (tdr_report_attach_unwinder, which other commands may use too).
 * The kernel symbol table starts loading on a helper thread at the first
 * kernel sample, so reading kallsyms overlaps parsing.
 * Ownership: the parser, symbolizer and kernel symbol table live only
 * inside tdr_report__load.
 */
#include "report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

#define LOG_PREFIX "report: "
#include "tdrec/tdr_log.h"


/* The symbolizer, the directory of the recording, the parser (for the
 * jitdump files the processes mapped) and where perf map files are. */
struct sym_ctx {
	struct tdr_symbolizer *s;
	char dir[PATH_MAX];
	const struct tdr_parser *p;
	const char *jit_map_dir;
	char jit_path[PATH_MAX];
	bool archived; /* the recording has an archive of symbols */
};

/* dso's path relative to dir into path (PATH_MAX bytes) when it is a
 * relative path; false otherwise. */
static bool near_path(const char *dir, const struct tdr_dso_ref *dso, char *path)
{
	return dso->path && dso->path[0] && dso->path[0] != '/' && dso->path[0] != '[' &&
	       (size_t)snprintf(path, PATH_MAX, "%s/%s", dir, dso->path) < PATH_MAX;
}

/*
 * An object named by a relative path is looked up next to the recording.
 * The kernel only writes absolute paths, so no real recording has one:
 * the synthetic examples do (the examples/ perf.data files name
 * synthetic-demo.elf,
 * which ships beside them), and `tdrec report -i examples/X` then finds
 * it from any directory. Bracketed names ("[vdso]") are not paths.
 */
int tdr_report_lookup_near(struct tdr_symbolizer *s, const char *dir, const struct tdr_dso_ref *dso,
			   uint64_t file_off, struct tdr_sym *out)
{
	struct tdr_dso_ref near = *dso;
	char path[PATH_MAX];

	if (near_path(dir, dso, path)) {
		/* Archived under the recorded name. */
		int got = tdr_symbolizer__lookup_archived(s, dso, file_off, out);

		if (got)
			return got < 0 ? got : 0;
		near.path = path;
		dso = &near;
	}
	return tdr_symbolizer__lookup(s, dso, file_off, out);
}

static int sym_lookup(void *ctx, const struct tdr_dso_ref *dso, uint64_t file_off,
		      struct tdr_sym *out)
{
	struct sym_ctx *c = ctx;

	return tdr_report_lookup_near(c->s, c->dir, dso, file_off, out);
}

/* The object a hint or a plan is about, into *near: dso, or for a
 * relative path the file next to the recording (path, PATH_MAX bytes).
 * False when the recording is archived: its archive knows such an object
 * by the recorded name, and a hint or a plan only saves time. */
static bool near_ref(const char *dir, const struct tdr_dso_ref *dso, bool archived,
		     struct tdr_dso_ref *near, char *path)
{
	*near = *dso;
	if (!near_path(dir, dso, path))
		return true;
	near->path = path;
	return !archived;
}

int tdr_report_expect_near(struct tdr_symbolizer *s, const char *dir, const struct tdr_dso_ref *dso,
			   const uint64_t *file_offs, size_t cnt, bool archived)
{
	struct tdr_dso_ref near;
	char path[PATH_MAX];

	if (!near_ref(dir, dso, archived, &near, path))
		return 0;
	return tdr_symbolizer__expect(s, &near, file_offs, cnt);
}

static int sym_expect(void *ctx, const struct tdr_dso_ref *dso, const uint64_t *file_offs,
		      size_t cnt)
{
	struct sym_ctx *c = ctx;

	return tdr_report_expect_near(c->s, c->dir, dso, file_offs, cnt, c->archived);
}

static int sym_units(void *ctx, const struct tdr_dso_ref *dso, const uint64_t *file_offs,
		     size_t cnt, uint64_t *unit, uint64_t *bytes)
{
	struct sym_ctx *c = ctx;
	struct tdr_dso_ref near;
	char path[PATH_MAX];

	if (!near_ref(c->dir, dso, c->archived, &near, path))
		near.path = NULL; /* no object: every offset without a unit */
	return tdr_symbolizer__units(c->s, &near, file_offs, cnt, unit, bytes);
}

static int sym_lookup_kernel(void *ctx, uint64_t ip, struct tdr_sym *out)
{
	struct sym_ctx *c = ctx;

	return tdr_symbolizer__lookup_kernel(c->s, ip, out);
}

/*
 * JIT code of process pid: the JIT's perf map file (<dir>/perf-PID.map,
 * /tmp as perf reads it, for recordings and perf.data alike), else the
 * jitdump file the process mapped (its marker mmap in the recording).
 * Both are objects of the symbolizer, their offsets addresses.
 */
static int sym_lookup_jit(void *ctx, uint32_t pid, uint64_t ip, struct tdr_sym *out,
			  const char **source)
{
	struct sym_ctx *c = ctx;
	struct tdr_dso_ref ref = {.path = c->jit_path};
	const char *dump;
	int err;

	*source = NULL;
	snprintf(c->jit_path, sizeof(c->jit_path), "%s/perf-%u.map", c->jit_map_dir, pid);
	err = tdr_symbolizer__lookup(c->s, &ref, ip, out);
	if (!err && out->status == TDR_SYM_MISSING && c->p && (dump = tdr_parser__jitdump(c->p, pid))) {
		snprintf(c->jit_path, sizeof(c->jit_path), "%s", dump);
		err = tdr_symbolizer__lookup(c->s, &ref, ip, out);
	}
	if (!err && out->status == TDR_SYM_OK)
		*source = c->jit_path;
	return err;
}

static const char *sym_kernel_why(void *ctx)
{
	return tdr_symbolizer__kernel_why(((struct sym_ctx *)ctx)->s);
}

/* Symbols from a tdr_symbolizer (borrowed; must outlive the __resolve call). */
static void report_symbols_init(struct tdr_report_symbols *rs, struct sym_ctx *c)
{
	rs->lookup = sym_lookup;
	rs->lookup_kernel = sym_lookup_kernel;
	rs->expect = sym_expect;
	rs->units = sym_units;
	rs->lookup_jit = sym_lookup_jit;
	rs->kernel_why = sym_kernel_why;
	rs->ctx = c;
}

/* ---- user stack copies (--call-graph dwarf) ---- */

static bool unwind_find(void *ctx, uint32_t pid, uint64_t addr, struct tdr_unwind_map *out)
{
	const struct tdr_mapping *m = tdr_parser__find_mapping(ctx, pid, addr);

	if (!m || m->kind != TDR_MAP_FILE)
		return false;
	out->path = m->path;
	out->start = m->start;
	out->len = m->len;
	out->pgoff = m->pgoff;
	out->build_id_sz = m->build_id_sz <= sizeof(out->build_id) ? m->build_id_sz : 0;
	memcpy(out->build_id, m->build_id, out->build_id_sz);
	return true;
}

static int unwind_sample(void *ctx, const struct tdr_sample *s, const struct tdr_user_stack *u,
			 uint64_t *pcs, uint32_t max)
{
	const struct tdr_unwind_regs regs = {.pid = s->pid,
					     .tid = s->tid,
					     .mask = u->mask,
					     .regs = u->regs,
					     .stack = u->stack,
					     .stack_sz = u->stack_sz};

	return tdr_unwinder__unwind(ctx, &regs, pcs, max);
}

int tdr_report_attach_unwinder(struct tdr_parser *p, struct tdr_unwinder **out)
{
	const struct tdr_meta *meta = tdr_parser__meta(p);
	const uint64_t want = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	bool any = false;
	int err;

	*out = NULL;
	for (size_t i = 0; i < meta->event_cnt; i++)
		any |= (meta->events[i].attr.sample_type & want) == want;
	if (!any)
		return 0;
	err = tdr_unwinder__new(unwind_find, p, out);
	if (err)
		return err;
	tdr_parser__set_unwinder(p, unwind_sample, *out);
	return 0;
}

struct load_ctx {
	struct tdr_report *r;
	struct tdr_kallsyms *ks; /* NULL when the report names no functions */
	bool ks_started;
	bool ks_archived; /* the file's archive answers the kernel: no early load */
};

/* An archived file: say when addresses were not in its archive (then
 * symbolized from the files on disk, which may have changed since). */
static void note_live(struct tdr_report *r, const struct tdr_symbolizer *sym,
		      const struct tdr_archive *a)
{
	uint64_t archived, live;

	if (!a)
		return;
	tdr_symbolizer__archive_counts(sym, &archived, &live);
	if (live)
		tdr_report__warn(r,
				 "note: %" PRIu64 " of %" PRIu64 " addresses were not in the file's "
				 "archive of symbols and were symbolized from the files on disk now",
				 live, archived + live);
}

static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct load_ctx *c = ctx;

	/* The first kernel sample: kernel symbols will be wanted, so load them
	 * on a helper thread while the parser goes on (kallsyms.c). */
	if (!c->ks_started && !c->ks_archived && report_kernel_sample(s) && c->ks) {
		tdr_kallsyms__start(c->ks);
		c->ks_started = true;
	}
	return tdr_report__add_sample(c->r, s);
}

uint64_t tdr_report_recorded_until(const struct tdr_meta *meta, uint64_t duration_ns,
				   uint64_t first_ns, uint64_t last_ns)
{
	if (!meta->start_wall_ns)
		return 0;
	if (duration_ns)
		return meta->start_wall_ns + duration_ns;
	if (first_ns <= last_ns && last_ns >= meta->start_clock_ns)
		return meta->start_wall_ns + (last_ns - meta->start_clock_ns);
	return 0;
}

void tdr_report_recording_dir(const char *path, char *dir, size_t sz)
{
	const char *slash = strrchr(path, '/');

	if (slash)
		snprintf(dir, sz, "%.*s", (int)(slash - path + (slash == path)), path);
	else
		snprintf(dir, sz, ".");
}

int tdr_report_kallsyms_new(const struct tdr_report_load_opts *lopts, struct tdr_kallsyms **out)
{
	struct tdr_kallsyms_opts ko = {.path = lopts->kallsyms_path,
				       .cache_dir = lopts->cache_dir,
				       .boot_id = lopts->boot_id};

	return tdr_kallsyms__new(&ko, out);
}

/* What the symbolizer needs to know about the recorded kernel: kallsyms
 * describe it when the report runs in the recording's boot (.tdr files
 * carry the boot id), or when the recording names its kernel image (a
 * perf.data "[kernel.kallsyms]_text" mapping with a build-id: its pgoff is
 * the address of the relocation symbol named after the prefix) and that
 * image is the running kernel. */
void tdr_report_symbolizer_opts(const struct tdr_meta *meta, const struct tdr_mapping *k,
				const struct tdr_report_load_opts *lopts, struct tdr_kallsyms *ks,
				struct tdr_symbolizer_opts *so)
{
	so->cache_dir = lopts->cache_dir;
	so->kallsyms = ks;
	so->kallsyms_path = lopts->kallsyms_path;
	so->kernel_notes_path = lopts->kernel_notes_path;
	so->kallsyms_usable = meta->boot_id && lopts->boot_id && *meta->boot_id &&
			      !strcmp(meta->boot_id, lopts->boot_id);
	if (k && k->path[strlen(TDR_KERNEL_DSO)]) {
		so->kernel_build_id = k->build_id;
		so->kernel_build_id_sz = k->build_id_sz;
		so->kernel_ref_sym = k->path + strlen(TDR_KERNEL_DSO);
		so->kernel_ref_addr = k->pgoff;
	}
	/* Without the image's build-id, its release names it (perf.data's
	 * OSRELEASE; a .tdr's boot id decides before this is asked). */
	so->kernel_release = meta->kernel_release;
	so->running_release = lopts->running_release;
}

int tdr_report__load(const char *path, const struct tdr_report_opts *opts,
		     const struct tdr_report_load_opts *lopts, struct tdr_report **out)
{
	struct tdr_report_load_opts no_lopts = {0};
	struct tdr_parser *p = NULL;
	struct tdr_symbolizer *sym = NULL;
	struct tdr_unwinder *unw = NULL;
	struct tdr_report *r = NULL;
	struct load_ctx ctx = {0};
	const struct tdr_meta *meta;
	int err;

	if (!lopts)
		lopts = &no_lopts;
	err = tdr_parser__open(path, &p);
	if (err)
		goto out;
	meta = tdr_parser__meta(p);
	err = tdr_report__new(meta, opts, &r);
	if (err)
		goto out;
	if (r->opts.by <= TDR_BY_LINE) {
		err = tdr_report_kallsyms_new(lopts, &ctx.ks);
		if (err)
			goto out;
	}
	ctx.r = r;
	/* A file whose archive holds the kernel's symbols answers from it: the
	 * kernel table is read only for an address it lacks, when asked
	 * (that read, 30-60 ms of /proc/kallsyms, is most of a first report). */
	ctx.ks_archived = tdr_parser__archive(p) &&
			  tdr_archive__find_dso(tdr_parser__archive(p), TDR_ARCHIVE_KERNEL,
						TDR_KERNEL_DSO, NULL, 0) >= 0;
	/* Stack copies are unwound only for the views that use stacks. */
	if (r->opts.stacks) {
		err = tdr_report_attach_unwinder(p, &unw);
		if (err)
			goto out;
	}
	err = tdr_parser__run(p, on_sample, &ctx);
	if (err)
		goto out;
	tdr_report__set_run(r, path, tdr_parser__source(p), tdr_parser__run_end(p));
	tdr_report__note_parse(r, tdr_parser__stats(p), tdr_parser__file_status(p));
	{
		const struct tdr_totals *tot = tdr_parser__totals(p);

		err = tdr_report__set_counted(r, tot ? tot->events : NULL,
					      tot ? tot->event_cnt : 0);
		if (err)
			goto out;
	}
	if (r->opts.by <= TDR_BY_LINE) {
		struct tdr_symbolizer_opts so = {
		    .want_lines = r->opts.by == TDR_BY_LINE,
		    .want_inlines = r->opts.by == TDR_BY_INLINE,
		    .recorded_until_ns = tdr_report_recorded_until(
			meta, r->have_end ? r->end.duration_ns : 0, r->first_ns, r->last_ns),
		    .archive = tdr_parser__archive(p),
		};
		struct tdr_report_symbols rs;
		struct sym_ctx sc;

		tdr_report_symbolizer_opts(meta, r->kernel_image, lopts, ctx.ks, &so);
		err = tdr_symbolizer__new(&so, &sym);
		if (err)
			goto out;
		sc.s = sym;
		sc.p = p;
		sc.archived = so.archive != NULL;
		sc.jit_map_dir = lopts->jit_map_dir ? lopts->jit_map_dir : "/tmp";
		tdr_report_recording_dir(path, sc.dir, sizeof(sc.dir));
		report_symbols_init(&rs, &sc);
		err = tdr_report__resolve(r, &rs);
		if (!err)
			note_live(r, sym, so.archive);
	} else {
		err = tdr_report__resolve(r, NULL);
	}
	if (!err)
		err = tdr_report__finish(r);
out:
	tdr_unwinder__free(unw);
	tdr_symbolizer__free(sym);
	tdr_kallsyms__free(ctx.ks);
	tdr_parser__free(p);
	if (err) {
		tdr_report__free(r);
		return err;
	}
	*out = r;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Archiving (docs/symbolize.md "Archived symbols").
 */
struct arch_run {
	struct tdr_report_archiver a;
	const struct tdr_parser *p;
	const struct tdr_report_archive_hooks *h;
};

/* The sample's addresses, and its unwound user stack by its place in the
 * file written (the one read, or the converter's). */
static int on_archive_sample(const struct tdr_sample *s, void *ctx)
{
	struct arch_run *c = ctx;
	const struct tdr_sample_stack *st = tdr_parser__sample_stack(c->p);
	uint64_t frame = st->frame;
	uint32_t ord = st->ord;
	int err = tdr_report_archiver__add_sample(&c->a, s);

	if (err || st->cnt < 2)
		return err;
	if (c->h && c->h->pos ? !c->h->pos(c->h->ctx, &frame, &ord) : !st->has_pos)
		return 0;
	return tdr_report_archiver__add_stack(&c->a, s, st, frame, ord);
}

/* The frames of the file the stacks are named in. */
static uint64_t arch_frame_cnt(const struct arch_run *c)
{
	const struct tdr_file_status *fs;

	if (c->h && c->h->frame_cnt)
		return c->h->frame_cnt(c->h->ctx);
	fs = tdr_parser__file_status(c->p);
	return tdr_parser__source(c->p) == TDR_SOURCE_TDR && fs ? fs->frame_cnt : 0;
}

/* The section data; without the stacks when they make the body too big
 * (the symbols alone are worth keeping). */
static int arch_encode(struct tdr_archive_builder *b, int zstd_level, void **data, size_t *sz,
		       struct tdr_archive_summary *sum)
{
	int err = tdr_archive_builder__encode(b, zstd_level, data, sz);

	if (err == -TDR_E_LIMIT && tdr_archive_builder__stack_cnt(b)) {
		tdr_warn("the unwound stacks of %" PRIu64 " samples do not fit in the archive: "
			 "left out, stack copies are unwound when reported",
			 sum->stack_samples);
		sum->stacks_left += sum->stack_samples;
		sum->stack_samples = sum->stacks = 0;
		tdr_archive_builder__drop_stacks(b);
		err = tdr_archive_builder__encode(b, zstd_level, data, sz);
	}
	return err;
}

int tdr_report__archive(const char *path, const struct tdr_report_load_opts *lopts,
			int zstd_level, void **data, size_t *sz, struct tdr_archive_summary *sum)
{
	return tdr_report_archive_run(path, lopts, zstd_level, NULL, data, sz, sum);
}

int tdr_report_archive_run(const char *path, const struct tdr_report_load_opts *lopts,
			   int zstd_level, const struct tdr_report_archive_hooks *h, void **data,
			   size_t *sz, struct tdr_archive_summary *sum)
{
	struct tdr_report_load_opts no_lopts = {0};
	struct arch_run run = {.h = h};
	struct tdr_report_archiver *a = &run.a;
	struct tdr_archive_builder *b = NULL;
	struct tdr_symbolizer *sym = NULL;
	struct tdr_kallsyms *ks = NULL;
	struct tdr_parser *p = NULL;
	struct tdr_unwinder *unw = NULL;
	const struct tdr_meta *meta;
	int err;

	*data = NULL;
	*sz = 0;
	memset(sum, 0, sizeof(*sum));
	if (!lopts)
		lopts = &no_lopts;
	err = tdr_parser__open(path, &p);
	/* Stack copies (--call-graph dwarf): the unwound callers are
	 * addresses the stack views look up, so they are archived too. */
	if (!err)
		err = tdr_report_attach_unwinder(p, &unw);
	if (!err)
		err = tdr_archive_builder__new(&b);
	if (err)
		goto out;
	meta = tdr_parser__meta(p);
	run.p = p;
	if (h && h->opened)
		err = h->opened(h->ctx, p);
	if (!err)
		err = tdr_parser__run(p, on_archive_sample, &run);
	if (!err && h && h->ran)
		err = h->ran(h->ctx, a);
	if (err)
		goto out;
	{
		/* Lines and inlines: everything any report may ask for. An
		 * archive the file has already answers first, so archiving
		 * again keeps what the files on disk no longer give. */
		const struct tdr_run_end *end = tdr_parser__run_end(p);
		struct tdr_symbolizer_opts so = {
		    .want_lines = true,
		    .want_inlines = true,
		    .recorded_until_ns = tdr_report_recorded_until(
			meta, end ? end->duration_ns : 0, a->first_ns, a->last_ns),
		    .archive = tdr_parser__archive(p),
		    .debuginfod = true,
		};
		struct tdr_report_symbols rs;
		struct sym_ctx sc = {0}; /* the archiver looks up no JIT code: no parser */

		err = tdr_report_kallsyms_new(lopts, &ks);
		if (err)
			goto out;
		tdr_report_symbolizer_opts(meta, a->kernel_image, lopts, ks, &so);
		err = tdr_symbolizer__new(&so, &sym);
		if (err)
			goto out;
		sc.s = sym;
		sc.archived = so.archive != NULL;
		tdr_report_recording_dir(path, sc.dir, sizeof(sc.dir));
		report_symbols_init(&rs, &sc);
		err = tdr_report_archiver__resolve(
		    a, &rs, tdr_report_archive_jobs(lopts->jobs, a->cnt), b, sum);
	}
	if (!err)
		err = tdr_report_archiver__stacks(a, b, arch_frame_cnt(&run), sum);
	if (!err)
		err = arch_encode(b, zstd_level, data, sz, sum);
	if (!err) {
		sum->bytes = *sz;
		sum->objects = tdr_archive_builder__dso_cnt(b);
	}
out:
	tdr_symbolizer__free(sym);
	tdr_kallsyms__free(ks);
	tdr_archive_builder__free(b);
	tdr_report_archiver__release(a);
	tdr_parser__free(p);
	tdr_unwinder__free(unw);
	if (err) {
		free(*data);
		*data = NULL;
		*sz = 0;
	}
	return err;
}
