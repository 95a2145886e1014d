/*
 * format/reader.c - open a .tdr file and load its frames.
 *
 * Responsibility: validate the file header, decode the metadata, find the
 * frames and sections (from the trailer index when the file was closed
 * cleanly, else by scanning block headers up to the last complete block),
 * and decompress frames on request, checking their checksum, sizes and
 * record tiling. Every offset and length read from the file is checked
 * against the file size and the caps of docs/format.md section 10 before use.
 * Objects and lifecycle: tdr_reader__open / __open_mem -> accessors,
 * __load_frame, __section -> __free.
 * Reading: a file is read with pread, block by block, never mapped: a
 * report holds one compressed frame per struct tdr_frame_buf instead of
 * the whole file (its peak memory does not grow with the file), and a file
 * that shrinks while it is read (overwritten by cp, truncated) gives short
 * reads, reported as -TDR_E_TRUNCATED, where a mapping would die of
 * SIGBUS (docs/format.md section 12).
 * Ownership and threads: the reader owns its descriptor (open) or borrows
 * the caller's bytes (open_mem). After open only __section changes it (it
 * keeps the sections it read), so __load_frame may run on several threads,
 * each with its own struct tdr_frame_buf, while __section is called from
 * one. Frame payload checksums are checked in __load_frame, not at open,
 * to keep open fast.
 * See: docs/format.md sections 2-12 (section 12: reading a damaged file).
 */
#define LOG_PREFIX "format: "
#include "format_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

struct tdr_reader {
	const uint8_t *mem; /* open_mem: the caller's bytes, else NULL */
	int fd;		    /* open: the file, read with pread, else -1 */
	uint64_t sz;	    /* the size at open: nothing past it is read */
	uint64_t first_block; /* offset of the block after the metadata */
	bool footer;	      /* a valid footer follows the trailer */
	struct tdr_meta meta;
	struct tdr_file_status status;
	struct tdr_trailer tr; /* totals and run end; its arrays are moved below */
	struct tdr_frame_info *frames;
	size_t frame_cnt;
	struct tdr_section_ent *sections;
	size_t section_cnt;
	struct section_copy *section_data; /* per section: its payload once asked for */
	/* Codec 2 (section 6.2): per frame, the earlier codec 2 frame of its
	 * ring (SIZE_MAX: none); per ring, its chain's decoder state. */
	size_t *chain_prev;
	struct ring_chain *chains;
	size_t chain_cnt;
};

/* One ring's codec 2 state: the chain decoded up to frame idx. Loads of
 * that ring's codec 2 frames take the lock, so two threads may still load
 * frames of the same ring (in any order: a frame out of order replays its
 * chain from the start into scratch). */
struct ring_chain {
	uint32_t ring;
	pthread_mutex_t lock;
	size_t idx;
	struct tdr_cols_dchain st;
	struct tdr_frame_buf scratch;
};

/* A section's payload, read on the first __section call for it. */
struct section_copy {
	uint8_t *data;
	size_t sz;
};

/* A block header as read (section 3), with the first bytes of its payload:
 * enough for a frame header or a section header. */
struct blk {
	uint64_t off;
	uint16_t type;
	uint64_t payload_sz;
	uint32_t payload_crc;
	uint64_t end; /* after the padding: where the next block starts */
	uint8_t head[TDR_FRAME_HDR_SZ]; /* min(payload_sz, 24) bytes */
};

/*
 * Read len bytes at off into dst. Returns 0, -TDR_E_TRUNCATED when they lie
 * past the size seen at open or when the file has become shorter since (it
 * was truncated or overwritten while read), -errno on a read error.
 */
static int rd(const struct tdr_reader *r, uint64_t off, void *dst, size_t len)
{
	uint8_t *d = dst;

	if (off > r->sz || len > r->sz - off)
		return -TDR_E_TRUNCATED;
	if (r->mem) {
		if (len)
			memcpy(dst, r->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(r->fd, d, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -TDR_E_TRUNCATED;
		d += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Check the block header p (TDR_BLOCK_HDR_SZ bytes) of the block at off.
 * Returns 0 when the header is valid and the whole block (payload and
 * padding) lies in the file, -TDR_E_TRUNCATED when it does not (b's sizes
 * are set then), -TDR_E_CORRUPT for a bad magic or header checksum.
 */
static int parse_block(const struct tdr_reader *r, const uint8_t *p, uint64_t off,
		       struct blk *b)
{
	uint64_t room, pad;

	if (tdr_get_le32(p + TDR_BH_MAGIC) != TDR_BLOCK_MAGIC ||
	    tdr_get_le32(p + TDR_BH_HDR_CRC) != tdr_crc32c(0, p, TDR_BH_HDR_CRC))
		return -TDR_E_CORRUPT;
	b->off = off;
	b->type = tdr_get_le16(p + TDR_BH_TYPE);
	b->payload_sz = tdr_get_le64(p + TDR_BH_PAYLOAD_SZ);
	b->payload_crc = tdr_get_le32(p + TDR_BH_PAYLOAD_CRC);
	room = r->sz - off - TDR_BLOCK_HDR_SZ;
	if (b->payload_sz > room)
		return -TDR_E_TRUNCATED;
	pad = tdr_align8(b->payload_sz) - b->payload_sz;
	if (pad > room - b->payload_sz)
		return -TDR_E_TRUNCATED;
	b->end = off + TDR_BLOCK_HDR_SZ + b->payload_sz + pad;
	memcpy(b->head, p + TDR_BLOCK_HDR_SZ,
	       b->payload_sz < sizeof(b->head) ? (size_t)b->payload_sz : sizeof(b->head));
	return 0;
}

/* Read and check the block header at off (parse_block), with the payload's
 * first bytes in the same read. Also -errno on a read error. */
static int read_block(const struct tdr_reader *r, uint64_t off, struct blk *b)
{
	uint8_t p[TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ] = { 0 };
	int err;

	b->payload_sz = 0;
	if (off > r->sz || r->sz - off < TDR_BLOCK_HDR_SZ)
		return -TDR_E_TRUNCATED;
	err = rd(r, off, p, r->sz - off < sizeof(p) ? (size_t)(r->sz - off) : sizeof(p));
	return err ? err : parse_block(r, p, off, b);
}

/* Read block b's payload into *out (the caller frees it) and check its
 * checksum. Returns 0, -ENOMEM, -TDR_E_CORRUPT or rd's error. */
static int read_payload(const struct tdr_reader *r, const struct blk *b, uint8_t **out)
{
	uint8_t *p;
	int err;

	p = tdr_malloc(b->payload_sz ? (size_t)b->payload_sz : 1);
	if (!p)
		return -ENOMEM;
	err = rd(r, b->off + TDR_BLOCK_HDR_SZ, p, (size_t)b->payload_sz);
	if (!err && tdr_crc32c(0, p, (size_t)b->payload_sz) != b->payload_crc)
		err = -TDR_E_CORRUPT;
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

/* Decode and check the frame header of a FRAME block (section 6). */
static int read_frame_hdr(const struct blk *b, struct tdr_frame_info *fi)
{
	const uint8_t *p = b->head;

	TDR_BAIL_IF(b->payload_sz < TDR_FRAME_HDR_SZ, -TDR_E_CORRUPT, "frame block of %llu bytes",
		    (unsigned long long)b->payload_sz);
	TDR_BAIL_IF(tdr_get_le32(p + TDR_FR_CRC) != tdr_crc32c(0, p, TDR_FR_CRC), -TDR_E_CORRUPT,
		    "frame header checksum at %llu", (unsigned long long)b->off);
	fi->offset = b->off;
	fi->codec = p[TDR_FR_CODEC];
	fi->ring = tdr_get_le32(p + TDR_FR_RING);
	fi->raw_sz = tdr_get_le32(p + TDR_FR_RAW_SZ);
	fi->comp_sz = tdr_get_le32(p + TDR_FR_COMP_SZ);
	fi->record_cnt = tdr_get_le32(p + TDR_FR_RECORD_CNT);
	fi->link = fi->codec == TDR_CODEC_CHAIN ? (uint32_t)p[TDR_FR_LINK] |
						     (uint32_t)p[TDR_FR_LINK + 1] << 8 |
						     (uint32_t)p[TDR_FR_LINK + 2] << 16
						: 0;
	TDR_BAIL_IF(fi->comp_sz != b->payload_sz - TDR_FRAME_HDR_SZ, -TDR_E_CORRUPT,
		    "frame at %llu: %u compressed bytes in a %llu byte block",
		    (unsigned long long)b->off, fi->comp_sz, (unsigned long long)b->payload_sz);
	TDR_BAIL_IF(fi->raw_sz > TDR_FRAME_MAX_RAW, -TDR_E_LIMIT, "frame at %llu: %u raw bytes",
		    (unsigned long long)b->off, fi->raw_sz);
	TDR_BAIL_IF(fi->codec == TDR_CODEC_ZSTD && fi->comp_sz > ZSTD_compressBound(fi->raw_sz),
		    -TDR_E_CORRUPT, "frame at %llu: %u bytes compress to %u",
		    (unsigned long long)b->off, fi->raw_sz, fi->comp_sz);
	TDR_BAIL_IF((fi->codec == TDR_CODEC_COLS || fi->codec == TDR_CODEC_CHAIN) &&
			fi->comp_sz > tdr_cols__max_comp(fi->raw_sz),
		    -TDR_E_CORRUPT, "frame at %llu: %u bytes encode to %u",
		    (unsigned long long)b->off, fi->raw_sz, fi->comp_sz);
	TDR_BAIL_IF(fi->record_cnt > fi->raw_sz / sizeof(struct perf_event_header),
		    -TDR_E_CORRUPT, "frame at %llu: %u records in %u bytes",
		    (unsigned long long)b->off, fi->record_cnt, fi->raw_sz);
	return 0;
}

/* Section 2: the file header. Returns the offset of the first block. */
static int read_file_hdr(struct tdr_reader *r, uint64_t *first)
{
	uint8_t p[TDR_FILE_HDR_SZ] = { 0 };
	uint32_t hdr_sz;
	uint16_t major;
	int err;

	err = rd(r, 0, p, r->sz < sizeof(p) ? (size_t)r->sz : sizeof(p));
	if (err)
		return err;
	if (r->sz < 8)
		return memcmp(p, TDR_FILE_MAGIC, r->sz) ? -TDR_E_FORMAT : -TDR_E_TRUNCATED;
	if (memcmp(p, TDR_FILE_MAGIC, 8))
		return -TDR_E_FORMAT;
	if (r->sz < TDR_FH_MINOR + 2)
		return -TDR_E_TRUNCATED;
	/* The version comes before the checksum: a newer major may change
	 * everything after it. */
	major = tdr_get_le16(p + TDR_FH_MAJOR);
	r->status.major = major;
	r->status.minor = tdr_get_le16(p + TDR_FH_MINOR);
	if (major > TDR_FORMAT_MAJOR) {
		tdr_warn("file format %u.%u is newer than this tdrec's %u.%u", major,
			 r->status.minor, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR);
		return -TDR_E_VERSION;
	}
	if (major == 0)
		return -TDR_E_FORMAT;
	if (r->sz < TDR_FILE_HDR_SZ)
		return -TDR_E_TRUNCATED;
	TDR_BAIL_IF(tdr_get_le32(p + TDR_FH_CRC) != tdr_crc32c(0, p, TDR_FH_CRC), -TDR_E_CORRUPT,
		    "file header checksum");
	hdr_sz = tdr_get_le32(p + TDR_FH_HDR_SZ);
	TDR_BAIL_IF(hdr_sz < TDR_FILE_HDR_SZ || hdr_sz > TDR_FILE_HDR_MAX_SZ || hdr_sz % 8,
		    -TDR_E_CORRUPT, "file header of %u bytes", hdr_sz);
	if (hdr_sz > r->sz)
		return -TDR_E_TRUNCATED;
	*first = hdr_sz;
	return 0;
}

/* Section 5: the metadata block, which must come first. */
static int read_metadata(struct tdr_reader *r, uint64_t off)
{
	uint8_t *data;
	struct blk b;
	int err;

	err = read_block(r, off, &b);
	if (err == -TDR_E_TRUNCATED && b.payload_sz > TDR_MAX_META_SZ)
		err = -TDR_E_LIMIT; /* a huge size is not a cut file */
	if (err)
		return err;
	TDR_BAIL_IF(b.type != TDR_BLOCK_METADATA, -TDR_E_CORRUPT, "first block has type %u",
		    b.type);
	TDR_BAIL_IF(b.payload_sz > TDR_MAX_META_SZ, -TDR_E_LIMIT, "metadata of %llu bytes",
		    (unsigned long long)b.payload_sz);
	err = read_payload(r, &b, &data);
	TDR_BAIL_IF(err == -TDR_E_CORRUPT, err, "metadata checksum");
	if (err)
		return err;
	err = tdr_meta__decode(data, (size_t)b.payload_sz, &r->meta);
	free(data);
	if (err)
		return err;
	r->first_block = b.end;
	return 0;
}

/* A section block: the type in its 8-byte header, a capped size. */
static int read_section_ent(const struct blk *b, struct tdr_section_ent *s)
{
	TDR_BAIL_IF(b->payload_sz < TDR_SECTION_HDR_SZ ||
			    b->payload_sz - TDR_SECTION_HDR_SZ > TDR_MAX_SECTION_SZ,
		    -TDR_E_CORRUPT, "section block of %llu bytes",
		    (unsigned long long)b->payload_sz);
	s->offset = b->off;
	s->type = tdr_get_le32(b->head);
	return 0;
}

/* Section 9: the footer at the end of a file ending at end, pointing at a
 * trailer block. Returns true and sets *trailer_off when it is valid. */
static bool read_footer(const struct tdr_reader *r, uint64_t end, uint64_t *trailer_off)
{
	uint8_t f[TDR_FOOTER_SZ];

	if (end > r->sz || end < r->first_block + TDR_FOOTER_SZ ||
	    rd(r, end - TDR_FOOTER_SZ, f, sizeof(f)))
		return false;
	if (memcmp(f + TDR_FT_MAGIC, TDR_FOOTER_MAGIC, 8) ||
	    tdr_get_le32(f + TDR_FT_CRC) != tdr_crc32c(0, f, TDR_FT_CRC))
		return false;
	*trailer_off = tdr_get_le64(f + TDR_FT_TRAILER_OFF);
	return true;
}

/* Read and decode the trailer block at off (into r->tr). Returns 0, 1 when
 * it is unusable (not a valid trailer), or -ENOMEM. */
static int read_trailer_block(struct tdr_reader *r, uint64_t off, struct blk *b)
{
	uint8_t *data;
	int err;

	if (off < r->first_block || read_block(r, off, b) || b->type != TDR_BLOCK_TRAILER ||
	    b->payload_sz > TDR_MAX_TRAILER_SZ)
		return 1;
	err = read_payload(r, b, &data);
	if (err == -ENOMEM)
		return err;
	if (err)
		return 1;
	err = tdr_trailer__decode(data, (size_t)b->payload_sz, &r->tr);
	free(data);
	if (err == -ENOMEM)
		return err;
	return err ? 1 : 0;
}

/* Check every index entry against the block it points to. */
static bool index_matches(struct tdr_reader *r)
{
	for (size_t i = 0; i < r->tr.frame_cnt; i++) {
		struct tdr_frame_info *want = &r->tr.frames[i];
		struct tdr_frame_info got;
		struct blk b;

		if (want->offset < r->first_block || read_block(r, want->offset, &b) ||
		    b.type != TDR_BLOCK_FRAME || read_frame_hdr(&b, &got))
			return false;
		if (got.ring != want->ring || got.codec != want->codec ||
		    got.raw_sz != want->raw_sz || got.comp_sz != want->comp_sz ||
		    got.record_cnt != want->record_cnt)
			return false;
		want->link = got.link; /* the index does not hold it */
	}
	for (size_t i = 0; i < r->tr.section_cnt; i++) {
		struct tdr_section_ent got;
		struct blk b;

		if (r->tr.sections[i].offset < r->first_block ||
		    read_block(r, r->tr.sections[i].offset, &b) || b.type != TDR_BLOCK_SECTION ||
		    read_section_ent(&b, &got) || got.type != r->tr.sections[i].type)
			return false;
	}
	return true;
}

/*
 * Section 12, fast path: a valid footer, a valid trailer right before it,
 * and an index that matches the blocks. Returns 0 when used, 1 to fall back
 * to scanning, -ENOMEM.
 */
static int use_trailer(struct tdr_reader *r, const char *name)
{
	uint64_t off;
	struct blk b;
	int err;

	if (!read_footer(r, r->sz, &off))
		return 1;
	err = read_trailer_block(r, off, &b);
	if (err)
		return err;
	if (b.end != r->sz - TDR_FOOTER_SZ || !index_matches(r)) {
		tdr_warn("%s: the trailer index does not match the file; scanning it instead",
			 name);
		tdr_trailer__release(&r->tr);
		return 1;
	}
	/* The frame entries are exactly what the blocks say (checked). */
	r->frames = r->tr.frames;
	r->frame_cnt = r->tr.frame_cnt;
	r->sections = r->tr.sections;
	r->section_cnt = r->tr.section_cnt;
	r->tr.frames = NULL;
	r->tr.sections = NULL;
	r->tr.frame_cnt = r->tr.section_cnt = 0;
	r->status.has_trailer = true;
	r->status.intact_sz = r->sz;
	r->footer = true;
	return 0;
}

/*
 * Section 12, slow path: walk the blocks from the first one after the
 * metadata until one is incomplete or damaged. Frames with a bad frame
 * header are counted in bad_frames and left out.
 */
static int scan(struct tdr_reader *r, const char *name)
{
	size_t frame_cap = 0, section_cap = 0;
	uint64_t off = r->first_block, toff;
	bool footer = false;
	struct blk b;
	int err = 0;

	while (!read_block(r, off, &b)) {
		struct tdr_frame_info fi;
		struct tdr_section_ent se;

		switch (b.type) {
		case TDR_BLOCK_FRAME:
			if (read_frame_hdr(&b, &fi)) {
				r->status.bad_frames++;
				break;
			}
			if (tdr_ensure_cap(&r->frames, &frame_cap, sizeof(fi), r->frame_cnt + 1))
				return -ENOMEM;
			r->frames[r->frame_cnt++] = fi;
			break;
		case TDR_BLOCK_SECTION:
			if (read_section_ent(&b, &se))
				break;
			if (tdr_ensure_cap(&r->sections, &section_cap, sizeof(se),
					   r->section_cnt + 1))
				return -ENOMEM;
			r->sections[r->section_cnt++] = se;
			break;
		case TDR_BLOCK_TRAILER: {
			struct blk tb;

			tdr_trailer__release(&r->tr);
			err = read_trailer_block(r, off, &tb);
			if (err < 0)
				return err;
			if (err)
				break;
			/* Totals and run end come from the trailer; the frame
			 * list stays the scanned one. */
			zfree(&r->tr.frames);
			zfree(&r->tr.sections);
			r->tr.frame_cnt = r->tr.section_cnt = 0;
			r->status.has_trailer = true;
			footer = read_footer(r, b.end + TDR_FOOTER_SZ, &toff) && toff == off;
			break;
		}
		default:
			break; /* a second METADATA, or a newer minor's block type */
		}
		off = b.end;
		if (footer) {
			off += TDR_FOOTER_SZ;
			break;
		}
	}
	r->status.intact_sz = off;
	r->footer = footer;
	if (!footer || off != r->sz)
		tdr_info("%s is incomplete: %llu of %llu bytes readable, %zu frames%s", name,
			 (unsigned long long)off, (unsigned long long)r->sz, r->frame_cnt,
			 r->status.has_trailer ? "" : ", no trailer");
	return 0;
}

/* Section 6.2: find the frame each codec 2 frame continues (the earlier
 * codec 2 frame of its ring) and make one chain state per ring. */
static int link_chains(struct tdr_reader *r)
{
	size_t cap = 0;

	r->chain_prev = tdr_malloc((r->frame_cnt ? r->frame_cnt : 1) * sizeof(size_t));
	if (!r->chain_prev)
		return -ENOMEM;
	for (size_t i = 0; i < r->frame_cnt; i++) {
		struct ring_chain *rc = NULL;

		r->chain_prev[i] = SIZE_MAX;
		if (r->frames[i].codec != TDR_CODEC_CHAIN)
			continue;
		for (size_t j = 0; j < r->chain_cnt && !rc; j++)
			if (r->chains[j].ring == r->frames[i].ring)
				rc = &r->chains[j];
		if (!rc) {
			if (tdr_ensure_cap(&r->chains, &cap, sizeof(*rc), r->chain_cnt + 1))
				return -ENOMEM;
			rc = &r->chains[r->chain_cnt];
			memset(rc, 0, sizeof(*rc));
			rc->ring = r->frames[i].ring;
			rc->idx = SIZE_MAX;
			if (pthread_mutex_init(&rc->lock, NULL))
				return -ENOMEM;
			r->chain_cnt++;
		} else {
			r->chain_prev[i] = rc->idx;
		}
		rc->idx = i;
	}
	for (size_t j = 0; j < r->chain_cnt; j++)
		r->chains[j].idx = SIZE_MAX; /* nothing decoded yet */
	return 0;
}

static int reader_init(struct tdr_reader *r, const char *name)
{
	uint64_t first;
	int err;

	r->status.file_sz = r->sz;
	err = read_file_hdr(r, &first);
	if (!err)
		err = read_metadata(r, first);
	if (err) {
		tdr_warn("failed to read %s: %s", name, tdr_strerror(err));
		return err;
	}
	err = use_trailer(r, name);
	if (err > 0)
		err = scan(r, name);
	if (err) {
		tdr_warn("failed to read %s: %s", name, tdr_strerror(err));
		return err;
	}
	r->section_data = tdr_calloc(r->section_cnt ? r->section_cnt : 1,
				     sizeof(struct section_copy));
	if (!r->section_data || link_chains(r))
		return -ENOMEM;
	r->status.truncated = !(r->footer && r->status.intact_sz == r->sz);
	r->status.frame_cnt = r->frame_cnt;
	return 0;
}

int tdr_reader__open_mem(const void *data, size_t sz, struct tdr_reader **out)
{
	struct tdr_reader *r;
	int err;

	if (!data && sz)
		return -EINVAL;
	r = tdr_calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->mem = data ? data : (const uint8_t *)"";
	r->sz = sz;
	err = reader_init(r, "<memory>");
	if (err) {
		tdr_reader__free(r);
		return err;
	}
	*out = r;
	return 0;
}

int tdr_reader__open(const char *path, struct tdr_reader **out)
{
	struct tdr_reader *r;
	struct stat st;
	int err;

	r = tdr_calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* O_NONBLOCK: a FIFO without a writer is refused below, not waited on. */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		err = -errno;
		tdr_warn("failed to open %s: %s", path, strerror(-err));
		goto err_out;
	}
	if (fstat(r->fd, &st)) {
		err = -errno;
		tdr_warn("failed to stat %s: %s", path, strerror(-err));
		goto err_out;
	}
	if (!S_ISREG(st.st_mode)) {
		/* Frames are read by offset: a pipe or a device cannot be. */
		err = -TDR_E_NOTREG;
		tdr_warn("failed to read %s: %s", path, tdr_strerror(err));
		goto err_out;
	}
	r->sz = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	/* Frames are read front to back (one pass per ring, all rings
	 * interleaved in time): ask for a larger readahead. */
	(void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	err = reader_init(r, path);
	if (err)
		goto err_out;
	*out = r;
	return 0;

err_out:
	tdr_reader__free(r);
	return err;
}

void tdr_reader__free(struct tdr_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	for (size_t i = 0; r->section_data && i < r->section_cnt; i++)
		free(r->section_data[i].data);
	free(r->section_data);
	for (size_t i = 0; i < r->chain_cnt; i++) {
		pthread_mutex_destroy(&r->chains[i].lock);
		tdr_cols_dchain__release(&r->chains[i].st);
		tdr_frame_buf__release(&r->chains[i].scratch);
	}
	free(r->chains);
	free(r->chain_prev);
	tdr_meta__clear(&r->meta);
	tdr_trailer__release(&r->tr);
	free(r->frames);
	free(r->sections);
	free(r);
}

const struct tdr_meta *tdr_reader__meta(const struct tdr_reader *r)
{
	return &r->meta;
}

const struct tdr_file_status *tdr_reader__status(const struct tdr_reader *r)
{
	return &r->status;
}

const struct tdr_totals *tdr_reader__totals(const struct tdr_reader *r)
{
	return r->tr.has_totals ? &r->tr.totals : NULL;
}

const struct tdr_run_end *tdr_reader__run_end(const struct tdr_reader *r)
{
	return r->tr.has_end ? &r->tr.end : NULL;
}

size_t tdr_reader__frame_cnt(const struct tdr_reader *r)
{
	return r->frame_cnt;
}

const struct tdr_frame_info *tdr_reader__frame(const struct tdr_reader *r, size_t idx)
{
	return idx < r->frame_cnt ? &r->frames[idx] : NULL;
}

void tdr_frame_buf__release(struct tdr_frame_buf *buf)
{
	if (!buf)
		return;
	zfree(&buf->data);
	zfree(&buf->block);
	buf->block_cap = 0;
	ZSTD_freeDCtx(buf->dctx);
	buf->dctx = NULL;
	tdr_cols_dec__release(buf->codec);
	buf->codec = NULL;
	buf->sz = 0;
	buf->cap = 0;
}

/* Decode a verified frame payload into buf (exactly raw_sz bytes): codec 0
 * decompresses, codec 1 rebuilds the records from their columns. */
static int decompress(const struct tdr_frame_info *fi, const uint8_t *src,
		      struct tdr_frame_buf *buf, struct tdr_cols_dchain *ch)
{
	uint8_t dummy;
	size_t n;

	if (buf->cap < fi->raw_sz) {
		/* Old contents are not needed: free and allocate, no copy.
		 * raw_sz was checked against TDR_FRAME_MAX_RAW at open. */
		zfree(&buf->data);
		buf->cap = 0;
		buf->data = tdr_malloc(fi->raw_sz);
		if (!buf->data)
			return -ENOMEM;
		buf->cap = fi->raw_sz;
	}
	if (!buf->dctx) {
		buf->dctx = ZSTD_createDCtx();
		if (!buf->dctx)
			return -ENOMEM;
	}
	if (fi->codec == TDR_CODEC_CHAIN)
		return tdr_cols__decode_chained((struct tdr_cols_dec **)&buf->codec, ch, fi->link,
						buf->dctx, src, fi->comp_sz,
						fi->raw_sz ? buf->data : &dummy, fi->raw_sz,
						fi->record_cnt);
	if (fi->codec == TDR_CODEC_COLS)
		return tdr_cols__decode((struct tdr_cols_dec **)&buf->codec, buf->dctx, src,
					fi->comp_sz, fi->raw_sz ? buf->data : &dummy, fi->raw_sz,
					fi->record_cnt);
	n = ZSTD_decompressDCtx(buf->dctx, fi->raw_sz ? buf->data : &dummy, fi->raw_sz, src,
				fi->comp_sz);
	if (ZSTD_isError(n)) {
		tdr_debug("frame at %llu: zstd: %s", (unsigned long long)fi->offset,
			  ZSTD_getErrorName(n));
		return -TDR_E_ZSTD;
	}
	TDR_BAIL_IF(n != fi->raw_sz, -TDR_E_CORRUPT, "frame at %llu: %zu bytes, header says %u",
		    (unsigned long long)fi->offset, n, fi->raw_sz);
	return 0;
}

static int load_one(const struct tdr_reader *r, size_t idx, struct tdr_frame_buf *buf,
		    struct tdr_cols_dchain *ch)
{
	const struct perf_event_header *h;
	const struct tdr_frame_info *fi;
	struct tdr_record_iter it;
	struct tdr_frame_info got;
	uint32_t cnt = 0;
	size_t need;
	struct blk b;
	int err;

	buf->sz = 0;
	if (idx >= r->frame_cnt)
		return -EINVAL;
	fi = &r->frames[idx];
	/* The whole block in one read, into the buffer's own copy: only this
	 * frame's compressed bytes are held, whatever the file's size. */
	need = TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ + (size_t)fi->comp_sz;
	if (buf->block_cap < need) {
		zfree(&buf->block);
		buf->block_cap = 0;
		buf->block = tdr_malloc(need);
		if (!buf->block)
			return -ENOMEM;
		buf->block_cap = need;
	}
	err = rd(r, fi->offset, buf->block, need);
	TDR_BAIL_IF(err == -TDR_E_TRUNCATED, err,
		    "frame %zu at %llu: the file ends before it (it shrank while read)", idx,
		    (unsigned long long)fi->offset);
	if (err)
		return err;
	/* The headers were checked at open, but the file may have changed
	 * since: check them again, and that they still describe this frame;
	 * then the payload checksum (section 6). */
	err = parse_block(r, buf->block, fi->offset, &b);
	if (err || b.type != TDR_BLOCK_FRAME || read_frame_hdr(&b, &got) ||
	    got.codec != fi->codec || got.ring != fi->ring || got.raw_sz != fi->raw_sz ||
	    got.comp_sz != fi->comp_sz || got.record_cnt != fi->record_cnt ||
	    got.link != fi->link)
		return -TDR_E_CORRUPT;
	TDR_BAIL_IF(tdr_crc32c(0, buf->block + TDR_BLOCK_HDR_SZ, (size_t)b.payload_sz) !=
			b.payload_crc,
		    -TDR_E_CORRUPT, "frame %zu at %llu: payload checksum", idx,
		    (unsigned long long)fi->offset);
	TDR_BAIL_IF(fi->codec > TDR_CODEC_CHAIN, -TDR_E_CORRUPT,
		    "frame %zu: unknown codec %u (written by a newer tdrec?)", idx, fi->codec);
	err = decompress(fi, buf->block + TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ, buf, ch);
	if (err)
		return err;
	/* The records must tile the frame exactly, as many as the header says. */
	it = (struct tdr_record_iter){ .data = buf->data, .sz = fi->raw_sz };
	while ((err = tdr_records__next(&it, &h)) > 0)
		cnt++;
	TDR_BAIL_IF(err < 0 || cnt != fi->record_cnt, -TDR_E_CORRUPT,
		    "frame %zu: records do not tile its %u bytes (%u of %u)", idx, fi->raw_sz, cnt,
		    fi->record_cnt);
	buf->sz = fi->raw_sz;
	return 0;
}

/*
 * Section 6.2: a codec 2 frame decodes after the frames of its chain before
 * it. The ring's state is usually just after the previous one (a reader
 * going through the file); otherwise the chain is decoded again from its
 * first frame (link 0) into the ring's scratch buffer.
 */
static int load_chained(const struct tdr_reader *r, size_t idx, struct tdr_frame_buf *buf)
{
	const struct tdr_frame_info *fi = &r->frames[idx];
	struct ring_chain *rc = NULL;
	size_t *path = NULL, cnt = 0, j = idx;
	int err = 0;

	for (size_t i = 0; i < r->chain_cnt && !rc; i++)
		if (r->chains[i].ring == fi->ring)
			rc = &r->chains[i];
	if (!rc)
		return -TDR_E_CORRUPT; /* cannot happen: made at open */
	pthread_mutex_lock(&rc->lock);
	if (fi->link && !(rc->st.live && rc->idx == r->chain_prev[idx])) {
		/* The frames before it, back to the chain's first: each must
		 * be the ring's previous codec 2 frame with the link before. */
		/* Link k needs k earlier frames: no allocation beyond that. */
		if (fi->link > idx) {
			tdr_debug("frame %zu: link %u with %zu frames before it", idx, fi->link,
				  idx);
			err = -TDR_E_CORRUPT;
			goto out;
		}
		path = tdr_malloc(((size_t)fi->link) * sizeof(*path));
		if (!path) {
			err = -ENOMEM;
			goto out;
		}
		while (r->frames[j].link) {
			size_t p = r->chain_prev[j];

			if (p == SIZE_MAX || r->frames[p].link + 1 != r->frames[j].link) {
				tdr_debug("frame %zu: chain broken before frame %zu", idx, j);
				err = -TDR_E_CORRUPT;
				goto out;
			}
			path[cnt++] = p;
			j = p;
		}
		rc->st.live = false;
		while (cnt && !err)
			err = load_one(r, path[--cnt], &rc->scratch, &rc->st);
		if (err) {
			tdr_debug("frame %zu: an earlier frame of its chain: %s", idx,
				  tdr_strerror(err));
			err = -TDR_E_CORRUPT;
			goto out;
		}
	}
	rc->idx = SIZE_MAX;
	err = load_one(r, idx, buf, &rc->st);
	if (!err)
		rc->idx = idx;
out:
	pthread_mutex_unlock(&rc->lock);
	free(path);
	return err;
}

int tdr_reader__load_frame(const struct tdr_reader *r, size_t idx, struct tdr_frame_buf *buf)
{
	buf->sz = 0;
	if (idx >= r->frame_cnt)
		return -EINVAL;
	if (r->frames[idx].codec == TDR_CODEC_CHAIN)
		return load_chained(r, idx, buf);
	return load_one(r, idx, buf, NULL);
}

int tdr_reader__section(const struct tdr_reader *r, uint32_t type, const void **data, size_t *sz)
{
	for (size_t i = 0; i < r->section_cnt; i++) {
		struct section_copy *c = &r->section_data[i];
		struct blk b;
		int err;

		if (r->sections[i].type != type)
			continue;
		if (!c->data) {
			err = read_block(r, r->sections[i].offset, &b);
			if (err == -TDR_E_TRUNCATED)
				return err; /* the file shrank after open */
			if (err)
				return -TDR_E_CORRUPT;
			err = read_payload(r, &b, &c->data);
			TDR_BAIL_IF(err == -TDR_E_CORRUPT, err, "section %u at %llu: checksum",
				    type, (unsigned long long)b.off);
			if (err)
				return err;
			c->sz = (size_t)b.payload_sz;
		}
		*data = c->data + TDR_SECTION_HDR_SZ;
		*sz = c->sz - TDR_SECTION_HDR_SZ;
		return 0;
	}
	return -ENOENT;
}
