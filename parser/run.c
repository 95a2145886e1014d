/*
 * parser/run.c - parse whole files: tdr_parser__open and tdr_parser__run.
 *
 * Responsibility: tell a .tdr file from a perf.data file by its magic, open
 * it, and feed every record to the parser in time order. For .tdr files the
 * frames of each ring (CPU) are in time order, so the rings are merged by
 * record timestamp (a k-way merge on a small heap), after the records tdrec
 * synthesized itself (TDR_RING_SYNTHETIC frames), which describe the state
 * before the first sample. This keeps each stream's deltas in time order and
 * side-band records (mmap, comm, fork) before the samples that need them.
 * A frame that fails to load (checksum, codec) is counted in
 * stats.bad_frames and skipped; its ring goes on with the next frame. A
 * frame past the file's end (it shrank while read) is counted in
 * stats.truncated_frames.
 * With two or more CPUs, each ring's next frame is loaded on a helper thread
 * (preload.c) while the current one is parsed.
 * Objects and lifecycle: called on a parser from tdr_parser__open; __run once.
 * Ownership: two decompression buffers per ring (the current frame and the
 * one being loaded), released at the end of __run.
 * See: docs/format.md (frames); docs/parser.md "Reading files".
 */
#include "parser_int.h"
#include "perfdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

/* One ring's cursor in the merge. */
struct ring_cur {
	uint32_t ring;
	size_t *frames; /* frame indexes of this ring, in file order */
	size_t frame_cnt, frame_cap, next_frame;
	struct tdr_frame_buf bufs[2]; /* bufs[cur]: being parsed; the other: loading */
	unsigned cur;
	bool pending; /* frames[next_frame] is queued for the helper */
	struct tdr_record_iter it;
	const struct perf_event_header *rec; /* current record, NULL when done */
	uint64_t time;
	/* rec's place: its frame and, for a sample, its ordinal among the
	 * frame's PERF_RECORD_SAMPLE records (stored stacks, format.md 7.2) */
	uint64_t rec_frame;
	uint32_t rec_ord, samples;
};

struct merge {
	struct ring_cur *rings;
	size_t ring_cnt, ring_cap;
	size_t *heap; /* indexes into rings, min-heap on (time, ring) */
	size_t heap_cnt;
	struct preload *pl; /* NULL: frames are loaded on the parser's thread */
};

static void tdr_source_fini(struct tdr_parser *p)
{
	tdr_reader__free(p->reader);
	p->reader = NULL;
}

int tdr_parser__open(const char *path, struct tdr_parser **out)
{
	const char *name = path;
	struct tdr_parser *p;
	uint8_t magic[8] = { 0 };
	char fdpath[40];
	struct stat st;
	ssize_t n;
	int fd, err;

	/* "-": standard input (perf's -i -). O_NONBLOCK: a device must not
	 * block the open (a FIFO is opened again below, to wait). */
	if (!strcmp(path, "-")) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		name = "standard input";
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (S_ISFIFO(st.st_mode) && name == path) {
		/* A named FIFO: it was opened without blocking to learn what
		 * it is; now wait for its writer, as cat and perf do, so the
		 * order in which reader and writer start does not matter. */
		close(fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
		/* A pipe (perf record -o - | tdrec report -i -): the readers
		 * map their input, so it is read whole into memory first. */
		err = tdr_parser_spool(fd, name, &fd);
		if (err)
			return err;
	} else if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -TDR_E_NOTREG;
	}
	n = pread(fd, magic, sizeof(magic), 0);
	if (n < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	p = tdr_calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	if (n == 8 && (!memcmp(magic, "PERFILE2", 8) || !memcmp(magic, "2ELIFREP", 8))) {
		err = tdr_parser_perfdata_open(p, fd, name); /* takes fd */
	} else {
		/* The .tdr reader opens a path: the spooled copy's, for a pipe. */
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		p->source = TDR_SOURCE_TDR;
		p->source_fini = tdr_source_fini;
		err = tdr_reader__open(name == path && S_ISREG(st.st_mode) ? path : fdpath,
				       &p->reader);
		close(fd);
		if (!err)
			err = tdr_meta__copy(&p->meta, tdr_reader__meta(p->reader));
		if (!err)
			err = tdr_parser_setup(p);
	}
	if (err) {
		tdr_parser__free(p);
		return err;
	}
	*out = p;
	return 0;
}

/* ---------------------------------------------------------------------------
 * Merge.
 */
static bool before(const struct merge *m, size_t a, size_t b)
{
	const struct ring_cur *x = &m->rings[a], *y = &m->rings[b];

	if (x->time != y->time)
		return x->time < y->time;
	return x->ring < y->ring;
}

static void sift_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i, t;

		if (l < m->heap_cnt && before(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->heap_cnt && before(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[min];
		m->heap[min] = t;
		i = min;
	}
}

/* Load the ring's next frame into its current buffer: from the helper
 * (queueing the one after it), or here. Returns the load's result. */
static int ring_load_next(struct merge *m, size_t i, const struct tdr_reader *reader)
{
	struct ring_cur *rc = &m->rings[i];
	int err;

	if (!m->pl) {
		rc->cur = 0;
		return tdr_reader__load_frame(reader, rc->frames[rc->next_frame++], &rc->bufs[0]);
	}
	if (!rc->pending)
		tdr_parser_preload__submit(m->pl, i, rc->frames[rc->next_frame],
					   &rc->bufs[rc->cur ^ 1]);
	err = tdr_parser_preload__wait(m->pl, i);
	rc->pending = false;
	rc->next_frame++;
	rc->cur ^= 1;
	/* The buffer of the frame just finished is free: load ahead into it. */
	if (rc->next_frame < rc->frame_cnt) {
		tdr_parser_preload__submit(m->pl, i, rc->frames[rc->next_frame],
					   &rc->bufs[rc->cur ^ 1]);
		rc->pending = true;
	}
	return err;
}

/* Move ring i to its next record, loading frames as needed. Returns 0
 * (rc->rec NULL when the ring is done) or -ENOMEM. */
static int ring_advance(struct tdr_parser *p, struct merge *m, size_t i)
{
	struct ring_cur *rc = &m->rings[i];
	int err;

	for (;;) {
		if (rc->it.data) {
			err = tdr_records__next(&rc->it, &rc->rec);
			if (err > 0) {
				uint64_t t;

				rc->rec_frame = rc->frames[rc->next_frame - 1];
				rc->rec_ord = rc->rec->type == PERF_RECORD_SAMPLE ? rc->samples++
										 : UINT32_MAX;

				/* no time: keep the place after the ring's previous record */
				if (tdr_decoder__time(&p->dec, rc->rec, &t))
					rc->time = t;
				return 0;
			}
			if (err < 0)
				p->stats.bad_frames++; /* the rest of this frame is damaged */
			rc->it.data = NULL;
		}
		rc->rec = NULL;
		if (rc->next_frame >= rc->frame_cnt)
			return 0;
		err = ring_load_next(m, i, p->reader);
		if (err == -ENOMEM)
			return err;
		if (err == -TDR_E_TRUNCATED) {
			p->stats.truncated_frames++;
			continue;
		}
		if (err) {
			p->stats.bad_frames++;
			continue;
		}
		rc->it.data = rc->bufs[rc->cur].data;
		rc->it.sz = rc->bufs[rc->cur].sz;
		rc->it.pos = 0;
		rc->samples = 0;
	}
}

static void merge_fini(struct merge *m)
{
	size_t i;

	tdr_parser_preload__free(m->pl); /* first: it may be loading into a buffer */
	for (i = 0; i < m->ring_cnt; i++) {
		free(m->rings[i].frames);
		tdr_frame_buf__release(&m->rings[i].bufs[0]);
		tdr_frame_buf__release(&m->rings[i].bufs[1]);
	}
	free(m->rings);
	free(m->heap);
}

static int merge_build(struct tdr_parser *p, struct merge *m, size_t *syn_idx)
{
	size_t i, j, cnt = tdr_reader__frame_cnt(p->reader);

	*syn_idx = SIZE_MAX;
	for (i = 0; i < cnt; i++) {
		const struct tdr_frame_info *fi = tdr_reader__frame(p->reader, i);
		struct ring_cur *rc;

		for (j = 0; j < m->ring_cnt && m->rings[j].ring != fi->ring; j++)
			;
		if (j == m->ring_cnt) {
			if (tdr_ensure_cap(&m->rings, &m->ring_cap, sizeof(*m->rings), j + 1))
				return -ENOMEM;
			memset(&m->rings[j], 0, sizeof(m->rings[j]));
			m->rings[j].ring = fi->ring;
			m->ring_cnt++;
			if (fi->ring == TDR_RING_SYNTHETIC)
				*syn_idx = j;
		}
		rc = &m->rings[j];
		if (tdr_ensure_cap(&rc->frames, &rc->frame_cap, sizeof(size_t), rc->frame_cnt + 1))
			return -ENOMEM;
		rc->frames[rc->frame_cnt++] = i;
	}
	m->heap = tdr_calloc(m->ring_cnt ? m->ring_cnt : 1, sizeof(*m->heap));
	if (!m->heap)
		return -ENOMEM;
	/* A helper thread pays off with a few frames and a second CPU. Debug
	 * messages stay on one thread (the log sink is not thread-safe). */
	if (cnt > 2 && sysconf(_SC_NPROCESSORS_ONLN) > 1 && tdr_log_get_level() < TDR_LOG_DEBUG &&
	    tdr_parser_preload__new(p->reader, m->ring_cnt, &m->pl))
		m->pl = NULL; /* no thread: load on this one */
	return 0;
}

/* The place of the record about to be fed (tdr_parser_callchain). */
static void set_pos(struct tdr_parser *p, const struct ring_cur *rc)
{
	p->rec_pos = true;
	p->rec_frame = rc->rec_frame;
	p->rec_ord = rc->rec_ord;
}

static int run_tdr(struct tdr_parser *p, tdr_sample_fn cb, void *ctx)
{
	struct merge m = { 0 };
	size_t i, syn;
	int err;

	err = merge_build(p, &m, &syn);
	if (err)
		goto out;
	/* Every ring's first frame goes to the helper at once (the synthetic
	 * ring's first: it comes first in the file), not one after the other
	 * as each ring's first record is wanted. */
	for (i = 0; m.pl && i < m.ring_cnt; i++) {
		struct ring_cur *rc = &m.rings[i];

		if (!rc->frame_cnt)
			continue;
		tdr_parser_preload__submit(m.pl, i, rc->frames[0], &rc->bufs[rc->cur ^ 1]);
		rc->pending = true;
	}
	/* tdrec's own records (initial mmaps, comms) come before every ring. */
	if (syn != SIZE_MAX) {
		for (err = ring_advance(p, &m, syn); !err && m.rings[syn].rec;
		     err = ring_advance(p, &m, syn)) {
			set_pos(p, &m.rings[syn]);
			err = tdr_parser__feed(p, TDR_RING_SYNTHETIC, m.rings[syn].rec, cb, ctx);
			if (err)
				goto out;
		}
		if (err)
			goto out;
	}
	for (i = 0; i < m.ring_cnt; i++) {
		if (i == syn)
			continue;
		err = ring_advance(p, &m, i);
		if (err)
			goto out;
		if (m.rings[i].rec)
			m.heap[m.heap_cnt++] = i;
	}
	for (i = m.heap_cnt; i-- > 0;)
		sift_down(&m, i);
	while (m.heap_cnt) {
		struct ring_cur *rc = &m.rings[m.heap[0]];

		set_pos(p, rc);
		err = tdr_parser__feed(p, rc->ring, rc->rec, cb, ctx);
		if (!err)
			err = ring_advance(p, &m, m.heap[0]);
		if (err)
			goto out;
		if (!rc->rec)
			m.heap[0] = m.heap[--m.heap_cnt];
		sift_down(&m, 0);
	}
out:
	p->rec_pos = false;
	merge_fini(&m);
	return err;
}

int tdr_parser__run(struct tdr_parser *p, tdr_sample_fn cb, void *ctx)
{
	if (p->ran || p->source == TDR_SOURCE_DIRECT)
		return -EINVAL;
	p->ran = true;
	if (p->source == TDR_SOURCE_PERF_DATA)
		return tdr_parser_perfdata_read_data(p, cb, ctx);
	return run_tdr(p, cb, ctx);
}

const struct tdr_file_status *tdr_parser__file_status(const struct tdr_parser *p)
{
	if (p->pd)
		return &p->pd->status;
	return p->reader ? tdr_reader__status(p->reader) : NULL;
}

const struct tdr_totals *tdr_parser__totals(const struct tdr_parser *p)
{
	return p->reader ? tdr_reader__totals(p->reader) : NULL;
}

const struct tdr_run_end *tdr_parser__run_end(const struct tdr_parser *p)
{
	return p->reader ? tdr_reader__run_end(p->reader) : NULL;
}
