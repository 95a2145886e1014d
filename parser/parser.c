/*
 * parser/parser.c - the parser object: setup, record dispatch, accessors.
 *
 * Responsibility: own the decoder, streams, address spaces and thread names
 * for one recording, and turn each fed record into state changes or, for a
 * SAMPLE, an attributed tdr_sample handed to the caller's callback. Reading
 * files (.tdr in run.c, perf.data in perfdata.c) ends up in tdr_parser__feed.
 * Objects and lifecycle: tdr_parser__new(meta) -> __feed (repeat) -> __free;
 * the file sources (tdr_parser__open/__run) live in run.c so that a program
 * using only __new/__feed does not pull the file reader in.
 * Ownership and threads: one parser per thread; no locking. A sample's deltas
 * and comm are valid during the callback, its mapping until __free.
 * Hot path: tdr_parser__feed allocates only when a new stream, thread or mapping
 * appears; per-record problems are counted in stats, never logged per record.
 * See: parser/include/tdrec/parser.h; docs/parser.md.
 */
#include "parser_int.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

/* ---------------------------------------------------------------------------
 * Threads: tid -> pid and comm.
 */
static struct thread *thread_get(struct tdr_parser *p, uint32_t tid, bool create)
{
	struct threads *t = &p->threads;
	uint32_t *rc = &t->recent[tid & (THREAD_RECENT - 1)];
	uint32_t i;

	if (t->last < t->cnt && t->t[t->last].tid == tid)
		return &t->t[t->last];
	if (*rc && t->t[*rc - 1].tid == tid) {
		t->last = *rc - 1;
		return &t->t[t->last];
	}
	i = tdr_u64map__get(&t->idx, tid);
	if (i != TDR_HMAP_NONE) {
		t->last = i;
		*rc = i + 1;
		return &t->t[i];
	}
	if (!create)
		return NULL;
	if (tdr_ensure_cap(&t->t, &t->cap, sizeof(*t->t), t->cnt + 1) ||
	    tdr_u64map__put(&t->idx, tid, (uint32_t)t->cnt))
		return NULL;
	t->t[t->cnt].tid = tid;
	t->t[t->cnt].pid = UINT32_MAX;
	t->t[t->cnt].comm = "";
	t->last = t->cnt;
	return &t->t[t->cnt++];
}

static int on_comm(struct tdr_parser *p, const struct dec_rec *r)
{
	struct thread *t = thread_get(p, r->comm.tid, true);

	if (!t)
		return -ENOMEM;
	t->pid = r->comm.pid;
	t->comm = tdr_intern__strn(&p->maps.strs, r->comm.comm, strlen(r->comm.comm));
	if (!t->comm) {
		t->comm = "";
		return -ENOMEM;
	}
	/* exec: the old image's mappings are gone; the new ones follow. */
	if (r->misc & PERF_RECORD_MISC_COMM_EXEC)
		tdr_parser_maps_exec(&p->maps, r->comm.pid);
	return 0;
}

static int on_fork(struct tdr_parser *p, const struct dec_rec *r)
{
	struct thread *parent = thread_get(p, r->task.ptid, false);
	const char *comm = parent ? parent->comm : "";
	struct thread *t = thread_get(p, r->task.tid, true);

	if (!t)
		return -ENOMEM;
	t->pid = r->task.pid;
	t->comm = comm;
	return tdr_parser_maps_fork(&p->maps, r->task.pid, r->task.ppid);
}

/* ---------------------------------------------------------------------------
 * Setup and teardown.
 */

/*
 * A .tdr file's DSO table (docs/format.md 7.1): the build-ids the recorder
 * read from the mapped files at the end, for the mappings of the same path,
 * device and inode. Entries without a build-id (another status) leave their
 * mappings without one: the report then checks the file's time. A damaged
 * table costs only the entries it loses, with one warning.
 */
static int apply_dso_table(struct tdr_parser *p)
{
	struct tdr_parse_stats *st = &p->stats;
	struct tdr_dso_iter it = {0};
	struct tdr_dso_entry e;
	const void *data;
	size_t sz;
	int err, ret = 0;

	err = tdr_reader__section(p->reader, TDR_SECTION_DSO_TABLE, &data, &sz);
	if (err == -ENOENT)
		return 0; /* no table: no build-ids */
	if (!err)
		err = tdr_dso_iter__init(&it, data, sz);
	while (!err && (ret = tdr_dso_iter__next(&it, &e)) > 0) {
		st->dso_entries++;
		if (e.status != TDR_DSO_BUILD_ID)
			continue;
		st->dso_build_ids++;
		err = tdr_parser_maps_set_file_build_id(&p->maps, e.path, e.path_len, e.maj, e.min,
							e.ino, e.build_id, e.build_id_sz);
		if (err)
			return err; /* -ENOMEM */
	}
	if (!err)
		err = ret;
	/* Entries left out: skipped ones, and all after one that broke the
	 * chain (or the whole table when its header or checksum is bad). */
	st->dso_damaged =
	    err ? (it.cnt > st->dso_entries ? it.cnt - st->dso_entries : 1) : it.skipped;
	if (st->dso_damaged)
		tdr_warn("the DSO table (build-ids of the mapped files) is damaged: %" PRIu64
			 " entries used, %" PRIu64 " lost; rebuilt binaries among those are told "
			 "by their file time only",
			 st->dso_entries, st->dso_damaged);
	return 0;
}

/*
 * A .tdr file's ARCHIVE section (docs/format.md 7.2): the symbols of the
 * sampled addresses, decoded whole or not at all. A damaged one is not
 * used (one warning): the report symbolizes from the files on disk, as for
 * a file without one.
 */
static int load_archive(struct tdr_parser *p)
{
	const void *data;
	size_t sz;
	int err;

	err = tdr_reader__section(p->reader, TDR_SECTION_ARCHIVE, &data, &sz);
	if (err == -ENOENT)
		return 0;
	if (!err)
		err = tdr_archive__decode(data, sz, &p->archive);
	if (err == -ENOMEM)
		return err;
	if (!err) {
		uint64_t frames;

		/* Stacks are named by frame: only for the frames they were made for. */
		p->stored_stacks = tdr_archive__has_stacks(p->archive, &frames) &&
				   frames == tdr_reader__frame_cnt(p->reader);
		if (tdr_archive__has_stacks(p->archive, &frames) && !p->stored_stacks)
			tdr_warn("the archive's stacks are for %llu frames, the file has %zu: "
				 "not used, stack copies are unwound from the files on disk",
				 (unsigned long long)frames, tdr_reader__frame_cnt(p->reader));
	}
	if (err) {
		p->stats.archive_damaged = 1;
		tdr_warn("the archive of symbols in the file is damaged (%s) and not used: "
			 "addresses are symbolized from the files on disk",
			 tdr_strerror(err));
	}
	return 0;
}

void tdr_parser__set_tap(struct tdr_parser *p, tdr_record_tap_fn tap, void *ctx)
{
	p->tap = tap;
	p->tap_ctx = ctx;
}

const struct tdr_archive *tdr_parser__archive(const struct tdr_parser *p)
{
	return p->archive;
}

const struct tdr_sample_stack *tdr_parser__sample_stack(const struct tdr_parser *p)
{
	return &p->ustack;
}

int tdr_parser_setup(struct tdr_parser *p)
{
	size_t i, j, max_gsz = 1;
	int err;

	err = tdr_decoder__init(&p->dec, &p->meta);
	if (err)
		return err;
	for (i = 0; i < p->dec.ev_cnt; i++) {
		if (p->dec.ev[i].group_sz > TDR_MAX_GROUP) {
			tdr_warn("failed to set up event '%s': group of %u members (limit %d)",
				 p->meta.events[i].name ? p->meta.events[i].name : "?",
				 p->dec.ev[i].group_sz, TDR_MAX_GROUP);
			return -TDR_E_LIMIT;
		}
		if (p->dec.ev[i].group_sz > max_gsz)
			max_gsz = p->dec.ev[i].group_sz;
	}
	p->system_wide = p->meta.flags & TDR_META_SYSTEM_WIDE;
	p->deltas = tdr_calloc(p->meta.event_cnt ? p->meta.event_cnt : 1, sizeof(*p->deltas));
	p->cur = tdr_calloc(max_gsz, sizeof(*p->cur));
	p->cur_ev = tdr_calloc(max_gsz, sizeof(*p->cur_ev));
	p->ev_clock = tdr_calloc(p->meta.event_cnt ? p->meta.event_cnt : 1, 1);
	if (!p->deltas || !p->cur || !p->cur_ev || !p->ev_clock)
		return -ENOMEM;
	for (i = 0; i < p->meta.event_cnt; i++) {
		const struct perf_event_attr *a = &p->meta.events[i].attr;

		p->ev_clock[i] = a->type == PERF_TYPE_SOFTWARE &&
				 (a->config == PERF_COUNT_SW_CPU_CLOCK ||
				  a->config == PERF_COUNT_SW_TASK_CLOCK);
	}
	for (i = 0; i < p->meta.event_cnt; i++) {
		const struct tdr_event_desc *ev = &p->meta.events[i];

		for (j = 0; j < ev->id_cnt; j++) {
			if (ev->ids[j].cpu != UINT32_MAX && ev->ids[j].pid != UINT32_MAX)
				continue; /* per-CPU task event: running < enabled after migration */
			err = tdr_u64map__put(&p->id_everywhere, ev->ids[j].id, 1);
			if (err)
				return err;
		}
	}
	err = tdr_parser_maps_init(&p->maps);
	if (!err && p->reader)
		err = apply_dso_table(p);
	if (!err && p->reader)
		err = load_archive(p);
	return err;
}

int tdr_parser__new(const struct tdr_meta *meta, struct tdr_parser **out)
{
	struct tdr_parser *p = tdr_calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	p->source = TDR_SOURCE_DIRECT;
	err = tdr_meta__copy(&p->meta, meta);
	if (!err)
		err = tdr_parser_setup(p);
	if (err) {
		tdr_parser__free(p);
		return err;
	}
	*out = p;
	return 0;
}

void tdr_parser__free(struct tdr_parser *p)
{
	if (!p)
		return;
	if (p->source_fini)
		p->source_fini(p);
	tdr_decoder__fini(&p->dec);
	tdr_parser_streams_fini(&p->streams);
	tdr_parser_maps_fini(&p->maps);
	zfree(&p->threads.t);
	tdr_u64map__fini(&p->threads.idx);
	tdr_u64map__fini(&p->id_everywhere);
	zfree(&p->deltas);
	zfree(&p->cur);
	zfree(&p->cur_ev);
	zfree(&p->ev_clock);
	zfree(&p->frames);
	zfree(&p->pcs);
	tdr_meta__clear(&p->meta);
	tdr_archive__free(p->archive);
	free(p);
}

/* ---------------------------------------------------------------------------
 * Records.
 */
static int on_sample(struct tdr_parser *p, uint32_t ring, const struct dec_rec *r,
		     tdr_sample_fn cb, void *ctx)
{
	struct tdr_sample s;
	const struct thread *t;
	uint32_t mode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool first;
	int ret;

	p->stats.samples++;
	if (r->ev < 0 || r->unknown_id)
		return 0; /* counted in unknown_ids */
	ret = tdr_parser_streams_sample(p, ring, r, &first);
	if (ret <= 0)
		return ret;

	memset(&s, 0, sizeof(s));
	s.time_ns = r->sid.time;
	s.cpu = (r->sid.have & DEC_HAVE_CPU) ? r->sid.cpu : ring;
	s.pid = r->sid.pid;
	s.tid = r->sid.tid;
	s.ip = r->sample.ip;
	/* misc cpumode values 0..5 are the enum's order; 6 and 7 are unused. */
	s.cpumode = mode <= PERF_RECORD_MISC_GUEST_USER ? (enum tdr_cpumode)mode
							: TDR_MODE_UNKNOWN;
	if (r->sample.has_ip) {
		s.map = tdr_parser_maps_find(&p->maps, s.pid, s.ip, s.cpumode);
		if (s.map)
			s.map_off = s.ip - s.map->start + s.map->pgoff;
		else if (s.cpumode == TDR_MODE_USER)
			p->stats.unmapped_samples++;
	}
	t = (r->sid.have & DEC_HAVE_TID) ? thread_get(p, s.tid, false) : NULL;
	s.comm = t ? t->comm : "";
	s.sampler_idx = (uint32_t)r->ev;
	s.period = r->sample.period;
	s.deltas = p->deltas;
	s.first_in_stream = first;
	p->ustack.cnt = 0;
	p->ustack.stored = false;
	if (r->sample.callchain_nr || p->dec.ev[r->ev].user_stack || p->dec.ev[r->ev].lbr_stack) {
		ret = tdr_parser_callchain(p, r, &s);
		if (ret)
			return ret;
	}
	p->stats.samples_delivered++;
	return cb ? cb(&s, ctx) : 0;
}

int tdr_parser__feed(struct tdr_parser *p, uint32_t ring, const struct perf_event_header *hdr,
		     tdr_sample_fn cb, void *ctx)
{
	struct dec_rec r;
	uint32_t x;
	int err;

	if (p->tap) {
		err = p->tap(p->tap_ctx, hdr);
		if (err)
			return err;
	}
	p->stats.records++;
	err = tdr_decoder__decode(&p->dec, hdr, &r);
	if (err == DEC_SKIP) {
		p->stats.unknown_records++;
		return 0;
	}
	if (err < 0) {
		p->stats.malformed_records++;
		return 0;
	}
	/* Only a sample is lost to an unknown id (it cannot be attributed). Other
	 * records are used all the same: perf synthesizes its initial MMAP and
	 * COMM records with id 0, which names no event. */
	if (r.type == PERF_RECORD_SAMPLE && (r.unknown_id || r.ev < 0))
		p->stats.unknown_ids++;
	/* perf.data has no rings: the record's CPU names its per-CPU buffer. */
	if (ring == TDR_RING_SYNTHETIC && (r.sid.have & DEC_HAVE_CPU))
		ring = r.sid.cpu;

	switch (r.type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, ring, &r, cb, ctx);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return tdr_parser_maps_mmap(&p->maps, &r);
	case PERF_RECORD_COMM:
		return on_comm(p, &r);
	case PERF_RECORD_FORK:
		return on_fork(p, &r);
	case PERF_RECORD_EXIT:
		/* The process is gone when its main thread exits. */
		if (r.task.pid == r.task.tid)
			tdr_parser_maps_exit(&p->maps, r.task.pid);
		return 0;
	case PERF_RECORD_LOST:
		p->stats.lost_records++;
		p->stats.lost_samples += r.lost.lost;
		return tdr_parser_streams_lost(&p->streams, ring);
	case PERF_RECORD_LOST_SAMPLES:
		p->stats.lost_samples_pmu += r.lost_samples.lost;
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (r.type == PERF_RECORD_THROTTLE)
			p->stats.throttles++;
		else
			p->stats.unthrottles++;
		if (p->system_wide)
			x = (r.sid.have & DEC_HAVE_CPU) ? r.sid.cpu : ring;
		else
			x = (r.sid.have & DEC_HAVE_TID) ? r.sid.tid : UINT32_MAX;
		tdr_parser_streams_throttle(&p->streams, r.throttle.id, x);
		return 0;
	default:
		return 0;
	}
}

/* ---------------------------------------------------------------------------
 * Accessors.
 */
void tdr_parser__set_unwinder(struct tdr_parser *p, tdr_unwind_fn fn, void *ctx)
{
	p->unwind = fn;
	p->unwind_ctx = ctx;
}

const struct tdr_mapping *tdr_parser__find_mapping(struct tdr_parser *p, uint32_t pid,
						   uint64_t addr)
{
	return tdr_parser_maps_find(&p->maps, pid, addr, TDR_MODE_USER);
}

const struct tdr_meta *tdr_parser__meta(const struct tdr_parser *p)
{
	return &p->meta;
}

const struct tdr_parse_stats *tdr_parser__stats(const struct tdr_parser *p)
{
	return &p->stats;
}

enum tdr_source_kind tdr_parser__source(const struct tdr_parser *p)
{
	return p->source;
}

const char *tdr_rebase_reason_name(enum tdr_rebase_reason r)
{
	switch (r) {
	case TDR_REBASE_BACKWARDS:
		return "counter went backwards";
	case TDR_REBASE_LOST:
		return "records lost";
	case TDR_REBASE_THROTTLE:
		return "sampler throttled";
	case TDR_REBASE_NOT_RUNNING:
		return "group not running";
	default:
		return "unknown";
	}
}
