/*
 * format/writer.c - write a .tdr file: header, metadata, frames, sections,
 * trailer and footer.
 *
 * Responsibility: append self-describing blocks to a file so that at every
 * moment the file ends after its last complete block (docs/format.md
 * section 11). It compresses frames with zstd (codec 0) or splits their
 * samples into columns first (codec 1, codec_cols.c), counts totals from the
 * records (tdr_record_counts__add: types, and the 'lost' field of
 * PERF_RECORD_LOST), and keeps the frame and section index for the trailer.
 * Record layouts come from tdrec/records.h only.
 * Objects and lifecycle: tdr_writer__open -> __add_frame / __add_section
 * (repeat) -> __finish -> __free. __free without __finish leaves the file as
 * it is, readable by scanning, under its current name.
 * Ownership and threads: one thread per writer. The writer owns its fd, its
 * zstd context and a compression buffer reused for every frame; the caller's
 * record buffers are borrowed for the call only.
 * Invariants: w->off is the file size and the end of the last complete
 * block; a failed write is cut back to w->off (ftruncate), and if that is
 * impossible the writer refuses further writes (w->broken).
 * See: docs/format.md sections 2-11.
 */
#define LOG_PREFIX "format: "
#include "format_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <zstd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define DEFAULT_ZSTD_LEVEL 3

_Static_assert(TDR_FILE_HDR_SZ == 32 && TDR_BLOCK_HDR_SZ == 24 && TDR_FRAME_HDR_SZ == 24 &&
		       TDR_FOOTER_SZ == 24 && TDR_SECTION_HDR_SZ == 8,
	       "fixed header sizes are part of the format (docs/format.md)");
_Static_assert(sizeof(TDR_FILE_MAGIC) - 1 == 8 && sizeof(TDR_FOOTER_MAGIC) - 1 == 8,
	       "magics are 8 bytes");
_Static_assert(TDR_FH_CRC + 4 == TDR_FILE_HDR_SZ && TDR_BH_HDR_CRC + 4 == TDR_BLOCK_HDR_SZ &&
		       TDR_FR_CRC + 4 == TDR_FRAME_HDR_SZ,
	       "each fixed header ends with the CRC of the bytes before it");

struct tdr_writer {
	int fd;
	char *path;	/* final name */
	char *cur_path; /* name being written: path, or "<path>.partial" */
	bool atomic;
	bool finished;
	int broken; /* sticky error: a failed write could not be cut back */
	bool keep_partial; /* __finish does not rename (tdr_writer__keep_partial) */
	ZSTD_CCtx *cctx;
	uint8_t codec;		   /* TDR_CODEC_* for frames with samples */
	int level;		   /* zstd level */
	uint32_t cols_keys[2];	   /* codec 1 key columns, from the attrs */
	size_t cols_key_cnt;
	struct tdr_cols_enc cols; /* codec 1 state, reused */
	struct tdr_cols_chain *chains; /* codec 2: one chain per ring */
	size_t chain_cnt, chain_cap;
	uint8_t *zbuf; /* compressed frame, reused */
	size_t zcap;
	uint64_t off; /* bytes in the file, the end of the last complete block */
	struct tdr_totals totals;
	struct tdr_frame_info *frames; /* totals.frames of them */
	size_t frame_cap;
	struct tdr_section_ent *sections;
	size_t section_cnt, section_cap;
};

static const uint8_t zero_pad[8];

/*
 * Write iov[0..cnt) at the end of the file as one unit: either all of it is
 * written and w->off advances, or the file is cut back to w->off and an
 * error returned. iov is consumed.
 */
static int write_unit(struct tdr_writer *w, struct iovec *iov, int cnt, const char *what)
{
	size_t total = 0, done = 0;
	int err = 0;

	if (w->broken)
		return w->broken;
	for (int i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	while (cnt > 0) {
		ssize_t n = writev(w->fd, iov, cnt);

		if (n < 0) {
			err = -errno;
			if (err == -EINTR)
				continue;
			break;
		}
		if (n == 0) {
			err = -EIO;
			break;
		}
		done += (size_t)n;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	if (!err) {
		w->off += total;
		return 0;
	}
	/* The caller reports the error (with what it was recording); say
	 * where it happened at debug level only, so the user sees one line. */
	tdr_debug("failed to write %s to %s at offset %llu: %s", what, w->cur_path,
		  (unsigned long long)w->off, tdr_strerror(err));
	/* Keep the file ending after the last complete block (section 11). */
	if (done && (ftruncate(w->fd, (off_t)w->off) || lseek(w->fd, (off_t)w->off, SEEK_SET) < 0)) {
		tdr_warn("failed to cut %s back to %llu bytes: %s; no more writes", w->cur_path,
			 (unsigned long long)w->off, strerror(errno));
		w->broken = err;
	}
	return err;
}

/* Write one block: header, payload (p1 then p2), zero padding to 8. */
static int write_block(struct tdr_writer *w, uint16_t type, const void *p1, size_t s1,
		       const void *p2, size_t s2, const char *what)
{
	uint8_t hdr[TDR_BLOCK_HDR_SZ];
	uint64_t payload_sz = (uint64_t)s1 + s2;
	struct iovec iov[4] = {
		{ hdr, sizeof(hdr) },
		{ (void *)p1, s1 },
		{ (void *)p2, s2 },
		{ (void *)zero_pad, tdr_align8(payload_sz) - payload_sz },
	};

	tdr_block__put_hdr(hdr, type, payload_sz, tdr_crc32c(tdr_crc32c(0, p1, s1), p2, s2));
	return write_unit(w, iov, 4, what);
}

/*
 * Codec 1 key columns (docs/format.md section 6.1): the sample id and the
 * pid/tid word, when every event has the same sample_type (so the words are
 * at the same place in every sample): PERF_SAMPLE_IDENTIFIER's and
 * PERF_SAMPLE_TID's u64 index in the body (tdrec/records.h).
 */
static void cols_keys(struct tdr_writer *w, const struct tdr_meta *meta)
{
	struct tdr_sample_layout l;
	uint64_t st;

	w->cols_key_cnt = 0;
	if (!meta->event_cnt)
		return;
	st = meta->events[0].attr.sample_type;
	for (size_t i = 1; i < meta->event_cnt; i++)
		if (meta->events[i].attr.sample_type != st)
			return;
	tdr_sample_layout__init(&l, st, 0);
	if (l.identifier >= 0)
		w->cols_keys[w->cols_key_cnt++] = (uint32_t)l.identifier / 8;
	if (l.tid >= 0)
		w->cols_keys[w->cols_key_cnt++] = (uint32_t)l.tid / 8;
}

static int writer_create(struct tdr_writer *w, const struct tdr_writer_opts *opts)
{
	size_t len = strlen(opts->path);
	int level = opts->zstd_level ? opts->zstd_level : DEFAULT_ZSTD_LEVEL;
	size_t zret;

	if (opts->codec > TDR_CODEC_CHAINED)
		return -EINVAL;
	w->codec = opts->codec;
	w->atomic = opts->atomic_replace;
	w->path = tdr_strdup(opts->path);
	w->cur_path = tdr_malloc(len + sizeof(".partial"));
	if (!w->path || !w->cur_path)
		return -ENOMEM;
	memcpy(w->cur_path, opts->path, len + 1);
	if (w->atomic)
		memcpy(w->cur_path + len, ".partial", sizeof(".partial"));
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx)
		return -ENOMEM;
	w->level = level;
	zret = ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	if (ZSTD_isError(zret)) {
		tdr_warn("failed to set zstd level %d: %s", level, ZSTD_getErrorName(zret));
		return -TDR_E_ZSTD;
	}
	return 0;
}

int tdr_writer__open(const struct tdr_writer_opts *opts, const struct tdr_meta *meta,
		     struct tdr_writer **out)
{
	struct tdr_buf mb = { 0 };
	uint8_t fh[TDR_FILE_HDR_SZ] = { 0 };
	uint8_t bh[TDR_BLOCK_HDR_SZ];
	struct tdr_writer *w;
	struct stat st;
	uint16_t minor = 0; /* 1.0 unless a later part is used */
	int err;

	if (!opts || !opts->path || !meta)
		return -EINVAL;
	w = tdr_calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	err = writer_create(w, opts);
	if (err)
		goto err_out;
	cols_keys(w, meta);
	tdr_meta__encode(&mb, meta);
	err = mb.err;
	if (err) {
		tdr_warn("failed to encode the metadata of %s: %s", opts->path, tdr_strerror(err));
		goto err_out;
	}

	/* A "<path>.partial" that exists is another writer's, running or
	 * killed (its frames are readable): never truncated. O_NONBLOCK: a
	 * FIFO that no process reads fails (ENXIO) instead of waiting
	 * forever; writes block again below. */
	/* In place (not atomic): never through a symbolic link (the caller
	 * decided on what lstat() saw, tdr_outpath.h), and never a block
	 * device, even if one was put there since. */
	w->fd = open(w->cur_path,
		     O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK |
			 (w->atomic ? O_EXCL : O_TRUNC | O_NOFOLLOW | O_NOCTTY),
		     0644);
	if (w->fd < 0 || fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) & ~O_NONBLOCK)) {
		err = -errno;
		tdr_debug("failed to create %s: %s", w->cur_path, strerror(-err)); /* caller says */
		goto err_out;
	}
	if (fstat(w->fd, &st) ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		err = -TDR_E_NOTREG;
		tdr_debug("%s: not a file, FIFO or character device", w->cur_path);
		goto err_out;
	}

	/* Section 2: file header. */
	memcpy(fh, TDR_FILE_MAGIC, 8);
	tdr_put_le16(fh + TDR_FH_MAJOR, TDR_FORMAT_MAJOR);
	/* 1.0 unless codec 1 frames may follow, so that 1.0 readers read
	 * codec 0 files completely; trailer items of later minors (COUNTED)
	 * are skipped by every reader and do not count (docs/format.md
	 * section 2). A category in the product form makes it 3 (section
	 * 5.2): a reader of an older minor gets no value for it, never a
	 * wrong one, and the header says why. An ARCHIVE section (7.2) makes
	 * it 4: older readers skip the section and read the rest. Weighted
	 * terms (WPART, 5.2) make it 5, for the same reason as products. */
	if (tdr_meta__has_weighted(meta))
		minor = TDR_FORMAT_MINOR_WEIGHTED;
	else if (opts->archive || w->codec == TDR_CODEC_CHAIN)
		minor = TDR_FORMAT_MINOR_ARCHIVE; /* 1.4: ARCHIVE, codec 2 */
	else if (tdr_meta__has_products(meta))
		minor = TDR_FORMAT_MINOR_PRODUCTS;
	else if (w->codec == TDR_CODEC_COLS)
		minor = TDR_FORMAT_MINOR_COLS;
	tdr_put_le16(fh + TDR_FH_MINOR, minor);
	tdr_put_le32(fh + TDR_FH_HDR_SZ, TDR_FILE_HDR_SZ);
	tdr_put_le32(fh + TDR_FH_CRC, tdr_crc32c(0, fh, TDR_FH_CRC));
	/* Section 5: the metadata block, written with the header as one unit. */
	tdr_block__put_hdr(bh, TDR_BLOCK_METADATA, mb.sz, tdr_crc32c(0, mb.data, mb.sz));
	{
		struct iovec iov[4] = {
			{ fh, sizeof(fh) },
			{ bh, sizeof(bh) },
			{ mb.data, mb.sz },
			{ (void *)zero_pad, tdr_align8(mb.sz) - mb.sz },
		};

		err = write_unit(w, iov, 4, "the header and metadata");
	}
	if (err) {
		/* Nothing readable was written: remove the file we created, but
		 * only a regular file (never e.g. /dev/full). */
		if (!fstat(w->fd, &st) && S_ISREG(st.st_mode))
			unlink(w->cur_path);
		goto err_out;
	}
	tdr_buf__release(&mb);
	*out = w;
	return 0;

err_out:
	tdr_buf__release(&mb);
	tdr_writer__free(w);
	return err;
}

/* The codec 2 chain of a ring (section 6.2), made on its first frame. */
static struct tdr_cols_chain *chain_of(struct tdr_writer *w, uint32_t ring)
{
	struct tdr_cols_chain *ch;

	for (size_t i = 0; i < w->chain_cnt; i++)
		if (w->chains[i].ring == ring)
			return &w->chains[i];
	if (tdr_ensure_cap(&w->chains, &w->chain_cap, sizeof(*ch), w->chain_cnt + 1))
		return NULL;
	ch = &w->chains[w->chain_cnt++];
	memset(ch, 0, sizeof(*ch));
	ch->ring = ring;
	ch->level = w->level;
	return ch;
}

/* Count the records of a frame by type (tdrec/records.h), refusing one
 * that breaks the walker's size rule, so every frame written loads again. */
static int count_records(const uint8_t *p, size_t sz, struct tdr_record_counts *c)
{
	struct tdr_record_iter it = { .data = p, .sz = sz };
	const struct perf_event_header *h;
	int err;

	while ((err = tdr_records__next(&it, &h)) > 0)
		tdr_record_counts__add(c, h);
	TDR_BAIL_IF(err < 0, err, "bad record header at %zu of %zu", it.pos, sz);
	return 0;
}

int tdr_writer__add_frame(struct tdr_writer *w, uint32_t ring, const void *records, size_t sz)
{
	struct tdr_record_counts c = { 0 };
	struct tdr_frame_info fi = { 0 };
	uint8_t fh[TDR_FRAME_HDR_SZ];
	const uint8_t *data = NULL;
	uint8_t codec = TDR_CODEC_ZSTD;
	size_t bound, csz = 0;
	uint32_t link = 0;
	int err;

	if (w->finished)
		return -EINVAL;
	if (w->broken)
		return w->broken;
	if (sz > TDR_FRAME_MAX_RAW) {
		tdr_warn("frame of %zu bytes from ring %u is above the %u byte limit", sz, ring,
			 TDR_FRAME_MAX_RAW);
		return -TDR_E_LIMIT;
	}
	if (!sz)
		return 0; /* nothing to store; no empty frames in the file */
	err = count_records(records, sz, &c);
	if (err) {
		tdr_warn("refusing a frame from ring %u: a record overruns its %zu bytes", ring, sz);
		return err;
	}
	/* Reserve index room before writing, so a frame in the file is
	 * always in the index. */
	if (tdr_ensure_cap(&w->frames, &w->frame_cap, sizeof(*w->frames), w->totals.frames + 1))
		return -ENOMEM;
	if (w->codec == TDR_CODEC_COLS) {
		err = tdr_cols__encode(&w->cols, records, sz, c.records, w->cols_keys,
				       w->cols_key_cnt, w->cctx, &data, &csz);
		if (err < 0) {
			tdr_warn("failed to encode a frame from ring %u: %s", ring,
				 tdr_strerror(err));
			return err;
		}
		if (!err)
			codec = TDR_CODEC_COLS;
	} else if (w->codec == TDR_CODEC_CHAIN) {
		struct tdr_cols_chain *ch = chain_of(w, ring);

		if (!ch)
			return -ENOMEM;
		err = tdr_cols__encode_chained(&w->cols, ch, records, sz, c.records, w->cols_keys,
					       w->cols_key_cnt, w->cctx, &data, &csz, &link);
		if (err < 0) {
			tdr_warn("failed to encode a frame from ring %u: %s", ring,
				 tdr_strerror(err));
			return err;
		}
		if (!err)
			codec = TDR_CODEC_CHAIN;
	}
	if (codec == TDR_CODEC_ZSTD) {
		bound = ZSTD_compressBound(sz);
		if (tdr_ensure_cap(&w->zbuf, &w->zcap, 1, bound))
			return -ENOMEM;
		csz = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, records, sz);
		if (ZSTD_isError(csz)) {
			tdr_warn("failed to compress a frame from ring %u: %s", ring,
				 ZSTD_getErrorName(csz));
			return -TDR_E_ZSTD;
		}
		data = w->zbuf;
	}

	fi.offset = w->off;
	fi.ring = ring;
	fi.codec = codec;
	fi.raw_sz = (uint32_t)sz;      /* <= TDR_FRAME_MAX_RAW */
	fi.comp_sz = (uint32_t)csz;    /* <= ZSTD_compressBound(64 MiB) < 4 GiB */
	fi.record_cnt = (uint32_t)c.records;
	fi.link = link;
	tdr_frame__put_hdr(fh, &fi);
	err = write_block(w, TDR_BLOCK_FRAME, fh, sizeof(fh), data, csz, "a frame");
	if (err) {
		/* The frame is not in the file: its ring's next frame must not
		 * continue it (section 6.2). */
		if (codec == TDR_CODEC_CHAIN)
			chain_of(w, ring)->link = 0;
		return err;
	}

	w->frames[w->totals.frames++] = fi;
	w->totals.records += c.records;
	w->totals.samples += c.samples;
	w->totals.lost_records += c.lost_records;
	w->totals.lost_samples += c.lost_samples;
	w->totals.throttles += c.throttles;
	w->totals.unthrottles += c.unthrottles;
	w->totals.raw_bytes += sz;
	w->totals.compressed_bytes += csz;
	return 0;
}

int tdr_writer__copy_frame(struct tdr_writer *w, const struct tdr_frame_info *src,
			   const void *payload)
{
	struct tdr_frame_info fi = *src;
	uint8_t fh[TDR_FRAME_HDR_SZ];
	int err;

	if (w->finished)
		return -EINVAL;
	if (w->broken)
		return w->broken;
	/* A codec 1 or 2 frame needs a file whose minor announces it: one
	 * opened for that codec or a later one (section 14). Codec 2 frames
	 * keep their links: copied in order, their chains stay whole. */
	if (fi.codec > TDR_CODEC_CHAIN || (fi.codec != TDR_CODEC_ZSTD && fi.codec > w->codec) ||
	    fi.raw_sz > TDR_FRAME_MAX_RAW || !fi.raw_sz)
		return -EINVAL;
	if (tdr_ensure_cap(&w->frames, &w->frame_cap, sizeof(*w->frames), w->totals.frames + 1))
		return -ENOMEM;
	fi.offset = w->off;
	tdr_frame__put_hdr(fh, &fi);
	err = write_block(w, TDR_BLOCK_FRAME, fh, sizeof(fh), payload, fi.comp_sz, "a frame");
	if (err)
		return err;
	w->frames[w->totals.frames++] = fi;
	w->totals.records += fi.record_cnt;
	w->totals.raw_bytes += fi.raw_sz;
	w->totals.compressed_bytes += fi.comp_sz;
	return 0;
}

void tdr_writer__add_counts(struct tdr_writer *w, const struct tdr_record_counts *c)
{
	w->totals.samples += c->samples;
	w->totals.lost_records += c->lost_records;
	w->totals.lost_samples += c->lost_samples;
	w->totals.throttles += c->throttles;
	w->totals.unthrottles += c->unthrottles;
}

int tdr_writer__add_section(struct tdr_writer *w, uint32_t type, const void *data, size_t sz)
{
	uint8_t sh[TDR_SECTION_HDR_SZ] = { 0 };
	uint64_t off = w->off;
	int err;

	if (w->finished)
		return -EINVAL;
	if (w->broken)
		return w->broken;
	if (sz > TDR_MAX_SECTION_SZ) {
		tdr_warn("section %u of %zu bytes is above the %u byte limit", type, sz,
			 TDR_MAX_SECTION_SZ);
		return -TDR_E_LIMIT;
	}
	if (tdr_ensure_cap(&w->sections, &w->section_cap, sizeof(*w->sections),
			   w->section_cnt + 1))
		return -ENOMEM;
	tdr_put_le32(sh, type);
	err = write_block(w, TDR_BLOCK_SECTION, sh, sizeof(sh), data, sz, "a section");
	if (err)
		return err;
	w->sections[w->section_cnt].offset = off;
	w->sections[w->section_cnt].type = type;
	w->section_cnt++;
	return 0;
}

const struct tdr_totals *tdr_writer__totals(const struct tdr_writer *w)
{
	return &w->totals;
}

uint64_t tdr_writer__file_size(const struct tdr_writer *w)
{
	return w->off;
}

/* Write the trailer block and the footer as one unit (sections 8, 9). */
static int write_trailer(struct tdr_writer *w, const struct tdr_event_totals *ev_totals,
			 size_t ev_cnt, const struct tdr_run_end *end)
{
	struct tdr_trailer t = { 0 };
	struct tdr_buf tb = { 0 };
	uint8_t bh[TDR_BLOCK_HDR_SZ];
	uint8_t ft[TDR_FOOTER_SZ] = { 0 };
	int err;

	t.totals = w->totals;
	t.totals.events = (struct tdr_event_totals *)ev_totals; /* borrowed, encode only */
	t.totals.event_cnt = ev_totals ? ev_cnt : 0;
	t.has_totals = true;
	if (end) {
		t.end = *end;
		t.has_end = true;
	}
	t.frames = w->frames;
	t.frame_cnt = w->totals.frames;
	t.sections = w->sections;
	t.section_cnt = w->section_cnt;
	tdr_trailer__encode(&tb, &t);
	err = tb.err;
	if (err) {
		tdr_warn("failed to encode the trailer of %s: %s", w->cur_path, tdr_strerror(err));
		goto out;
	}
	tdr_block__put_hdr(bh, TDR_BLOCK_TRAILER, tb.sz, tdr_crc32c(0, tb.data, tb.sz));
	tdr_put_le64(ft + TDR_FT_TRAILER_OFF, w->off);
	tdr_put_le32(ft + TDR_FT_CRC, tdr_crc32c(0, ft, TDR_FT_CRC));
	memcpy(ft + TDR_FT_MAGIC, TDR_FOOTER_MAGIC, 8);
	{
		struct iovec iov[4] = {
			{ bh, sizeof(bh) },
			{ tb.data, tb.sz },
			{ (void *)zero_pad, tdr_align8(tb.sz) - tb.sz },
			{ ft, sizeof(ft) },
		};

		err = write_unit(w, iov, 4, "the trailer");
	}
out:
	tdr_buf__release(&tb);
	return err;
}

int tdr_writer__finish(struct tdr_writer *w, const struct tdr_event_totals *ev_totals,
		       size_t ev_cnt, const struct tdr_run_end *end)
{
	int err, err2;

	if (w->finished)
		return -EINVAL;
	w->finished = true;
	err = w->broken ? w->broken : write_trailer(w, ev_totals, ev_cnt, end);
	/* close() can report a delayed write error (NFS, quotas). */
	if (close(w->fd)) {
		err2 = -errno;
		tdr_warn("failed to close %s: %s", w->cur_path, strerror(-err2));
		if (!err)
			err = err2;
	}
	w->fd = -1;
	/* Renamed into place only when whole: after an error an existing file
	 * at path stays untouched, and what was written stays readable under
	 * the .partial name, which says what it is. */
	if (w->atomic && !err && !w->keep_partial && rename(w->cur_path, w->path)) {
		err2 = -errno;
		tdr_warn("failed to rename %s to %s: %s", w->cur_path, w->path, strerror(-err2));
		if (!err)
			err = err2;
	}
	return err;
}

void tdr_writer__keep_partial(struct tdr_writer *w)
{
	w->keep_partial = true;
}

void tdr_writer__free(struct tdr_writer *w)
{
	if (!w)
		return;
	/* Without __finish the file stays as it is, under cur_path. */
	zclose(w->fd);
	ZSTD_freeCCtx(w->cctx);
	tdr_cols_enc__release(&w->cols);
	for (size_t i = 0; i < w->chain_cnt; i++)
		tdr_cols_chain__release(&w->chains[i]);
	free(w->chains);
	free(w->zbuf);
	free(w->frames);
	free(w->sections);
	free(w->path);
	free(w->cur_path);
	free(w);
}
