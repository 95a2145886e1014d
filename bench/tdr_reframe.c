/*
 * bench/tdr_reframe.c - rewrite a .tdr with K frames of each ring merged.
 *
 * What does a frame cost beyond its samples? At 1 kHz the recorder writes
 * a frame of about 500 samples per ring every 500 ms (the flush
 * guarantee), and each codec 1 frame carries its own column directory
 * and zstd tables. Merging K consecutive frames of each ring into one
 * (the records unchanged, in the same order) and comparing the sizes
 * measures that cost, and so what carrying tables across frames could
 * save. The synthetic frame and the sections are copied as they are;
 * totals are left out (a few hundred bytes).
 * With CODEC 2 the frames are written as codec 2 chains (docs/format.md
 * section 6.2) instead of codec 1: K = 1 then measures what carrying the
 * model and block 0 across frames saves with the frames left as they are.
 * usage: tdr_reframe IN.tdr OUT.tdr K [CODEC]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

struct pend {
	uint32_t ring;
	uint8_t *data;
	size_t sz, cap;
	unsigned frames;
};

static int flush(struct tdr_writer *w, struct pend *p)
{
	int err = p->sz ? tdr_writer__add_frame(w, p->ring, p->data, p->sz) : 0;

	p->sz = 0;
	p->frames = 0;
	return err;
}

int main(int argc, char **argv)
{
	struct tdr_writer_opts o = {.codec = TDR_CODEC_COLUMNS};
	struct tdr_frame_buf buf = {0};
	struct pend pend[256] = {{0}};
	struct tdr_reader *r;
	struct tdr_writer *w;
	size_t npend = 0;
	unsigned k;
	int err;

	if ((argc != 4 && argc != 5) || (k = (unsigned)strtoul(argv[3], NULL, 10)) == 0) {
		fprintf(stderr, "usage: tdr_reframe IN.tdr OUT.tdr K [CODEC]\n");
		return 2;
	}
	if (argc == 5)
		o.codec = (uint8_t)strtoul(argv[4], NULL, 10);
	if (tdr_reader__open(argv[1], &r))
		return 1;
	o.path = argv[2];
	err = tdr_writer__open(&o, tdr_reader__meta(r), &w);
	for (size_t i = 0; !err && i < tdr_reader__frame_cnt(r); i++) {
		const struct tdr_frame_info *fi = tdr_reader__frame(r, i);
		struct pend *p = NULL;

		if (tdr_reader__load_frame(r, i, &buf))
			continue;
		if (fi->ring == TDR_RING_SYNTHETIC) {
			err = tdr_writer__add_frame(w, fi->ring, buf.data, buf.sz);
			continue;
		}
		for (size_t j = 0; j < npend; j++)
			if (pend[j].ring == fi->ring)
				p = &pend[j];
		if (!p) {
			if (npend == 256)
				break;
			p = &pend[npend++];
			p->ring = fi->ring;
		}
		if (p->sz + buf.sz > TDR_FRAME_MAX_RAW)
			err = flush(w, p);
		if (p->sz + buf.sz > p->cap) {
			p->cap = (p->sz + buf.sz) * 2;
			p->data = realloc(p->data, p->cap);
			if (!p->data)
				return 1;
		}
		memcpy(p->data + p->sz, buf.data, buf.sz);
		p->sz += buf.sz;
		if (!err && ++p->frames == k)
			err = flush(w, p);
	}
	for (size_t j = 0; !err && j < npend; j++)
		err = flush(w, &pend[j]);
	if (!err)
		err = tdr_writer__finish(w, NULL, 0, tdr_reader__run_end(r));
	tdr_writer__free(w);
	for (size_t j = 0; j < npend; j++)
		free(pend[j].data);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
	if (err) {
		fprintf(stderr, "tdr_reframe: %s\n", tdr_strerror(err));
		return 1;
	}
	return 0;
}
