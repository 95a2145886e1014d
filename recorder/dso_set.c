/*
 * recorder/dso_set.c - the files a recording saw mapped executable, and
 * their build-ids, read once when the recording ends.
 *
 * Responsibility: build-ids without attr.build_id, the way perf record gets
 * them: the kernel's MMAP2 records (and those tdrec synthesizes for -p/-a)
 * carry device and inode; this file notes each distinct (path, device,
 * inode) as frames are written, and at the end reads each file's build-id
 * (build_id.c), but only from the file that was mapped: a regular file at
 * the path with that device and inode, not changed since its first MMAP2
 * record. Anything else is recorded as unknown with the reason
 * (enum tdr_dso_status), and the report falls back to the file's time.
 * Why not attr.build_id: the kernel (seen on 6.18) leaves
 * PERF_RECORD_MISC_MMAP_BUILD_ID set in the MMAP2 records it writes for the
 * other events of the same mapping, so another tool recording the same
 * processes (perf record without --buildid-mmap) reads device and inode as
 * a build-id and fails (docs/record.md "Build-ids").
 * Record layouts (MMAP2, the sample_id trailer, the walk) come from
 * tdrec/records.h.
 * Cost: the scan walks record headers on the writer thread, where the frame
 * is compressed anyway, and looks up MMAP2 records only (one hash of the
 * path); it allocates only for a file not seen before. The end costs a
 * stat, an open, an fstat and one or two preads per file.
 * Objects and lifecycle: struct tdr_dso_set, embedded in the recorder:
 * __init -> __scan (repeat) -> __resolve -> __encode -> __free.
 * Ownership and threads: one thread at a time (the recorder's thread writes
 * the synthesized frames, then the writer thread the kernel's until it is
 * joined, then the recorder's thread resolves).
 * See: docs/record.md "Build-ids"; docs/format.md section 7.1.
 */
#define LOG_PREFIX "record: "

#include "recorder_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

void tdr_dso_set__init(struct tdr_dso_set *s, uint64_t sample_type)
{
	memset(s, 0, sizeof(*s));
	/* The trailer's TIME gives the time a file was first seen mapped. */
	tdr_sid_layout__init(&s->sid, sample_type);
}

static uint64_t file_hash(const char *path, size_t len, uint32_t maj, uint32_t min, uint64_t ino)
{
	uint64_t h = tdr_hash_bytes(path, len);

	h ^= ino * 0x9e3779b97f4a7c15ull;
	h ^= (((uint64_t)maj << 32) | min) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

/* A file as looked up: the record's path (not NUL-terminated) and its
 * hash, device and inode. */
struct file_key {
	const struct tdr_dso_file *f;
	const char *path;
};

static uint64_t file_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct tdr_dso_set *)ctx)->files[idx].hash;
}

static bool file_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_dso_set *s = ctx;
	const struct tdr_dso_file *f = &s->files[idx];
	const struct file_key *k = key;

	return f->hash == k->f->hash && f->ino == k->f->ino && f->maj == k->f->maj &&
	       f->min == k->f->min && f->path_len == k->f->path_len &&
	       !memcmp(s->names + f->path_off, k->path, f->path_len);
}

/* A file not seen before: kept in files, names and the index at pos (the
 * empty slot its lookup ended on). */
static void add_file(struct tdr_dso_set *s, size_t pos, const struct tdr_dso_file *f,
		     const char *path)
{
	size_t need = s->names_sz + f->path_len + 1;

	if (s->cnt >= TDR_DSO_SET_MAX_FILES || need > TDR_DSO_SET_MAX_NAMES ||
	    tdr_ensure_cap(&s->names, &s->names_cap, 1, need) ||
	    tdr_ensure_cap(&s->files, &s->cap, sizeof(*s->files), s->cnt + 1)) {
		s->dropped++;
		return;
	}
	s->files[s->cnt] = *f;
	s->files[s->cnt].path_off = (uint32_t)s->names_sz;
	memcpy(s->names + s->names_sz, path, f->path_len);
	s->names[s->names_sz + f->path_len] = '\0';
	s->names_sz = need;
	s->cnt++;
	tdr_hmap__add(&s->index, pos);
}

/* One MMAP2 record. */
static void note_mmap2(struct tdr_dso_set *s, const struct perf_event_header *h)
{
	struct tdr_sample_id sid = {0};
	struct tdr_dso_file f = {0};
	struct tdr_mmap_rec m;
	const char *path;
	struct file_key k = {.f = &f};
	size_t pos;

	/* A record too short for a name, or a name without its NUL, is not
	 * one to trust. */
	if (tdr_mmap__parse(h, &m) || !(m.prot & PROT_EXEC))
		return;
	path = m.filename;
	/* Files only ("//anon" is the kernel's name for anonymous memory). */
	if (path[0] != '/' || path[1] == '/' || m.filename_len > TDR_DSO_PATH_MAX)
		return;
	f.path_len = (uint16_t)m.filename_len;
	f.maj = m.maj;
	f.min = m.min;
	f.ino = m.ino;
	f.hash = file_hash(path, f.path_len, f.maj, f.min, f.ino);
	if (tdr_hmap__reserve(&s->index, 64, file_hash_of, s)) {
		s->dropped++;
		return;
	}
	k.path = path;
	if (tdr_hmap__find(&s->index, f.hash, file_eq, s, &k, &pos) != TDR_HMAP_NONE)
		return; /* the usual case: a file seen before */
	f.pid = m.pid;
	/* The trailer's TIME, when the record has a trailer after its name
	 * (synthesized and kernel records alike). */
	if (tdr_sample_id__read_tail(&s->sid, h, m.tail, &sid) && (sid.have & TDR_SID_TIME))
		f.first_ns = sid.time;
	add_file(s, pos, &f, path);
}

void tdr_dso_set__scan(struct tdr_dso_set *s, const void *records, size_t sz)
{
	struct tdr_record_iter it = {.data = records, .sz = sz};
	const struct perf_event_header *h;

	/* A bad header ends the scan: the writer refuses such a frame anyway. */
	while (tdr_records__next(&it, &h) > 0)
		if (tdr_record__type(h) == PERF_RECORD_MMAP2)
			note_mmap2(s, h);
}

/* ---- the end: read each file's build-id ---- */

bool tdr_dso__same_file(uint32_t maj, uint32_t min, uint64_t ino, const struct stat *st,
			long fs_type)
{
	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_ino != ino)
		return false;
	if (major(st->st_dev) == maj && minor(st->st_dev) == min)
		return true;
	/* Their mappings show the device of the superblock (btrfs) or of
	 * the file under the overlay, stat another one: only the inode can
	 * be compared there. */
	return fs_type == (long)BTRFS_SUPER_MAGIC || fs_type == (long)OVERLAYFS_SUPER_MAGIC;
}

static enum tdr_dso_status open_error(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP ? TDR_DSO_REPLACED
							       : TDR_DSO_UNREADABLE;
}

/* Look at the file at path: is it f's, and what is its build-id? */
static enum tdr_dso_status check_path(const char *path, const struct tdr_dso_file *f,
				      int64_t clock_to_wall_ns, struct tdr_build_id *bid)
{
	struct stat st, ost;
	struct statfs sfs;
	long fs_type = 0;
	enum tdr_dso_status status;
	int fd, err;

	/* stat first: a path that now names a FIFO or a device is never
	 * opened. */
	if (stat(path, &st))
		return open_error(errno);
	if (S_ISREG(st.st_mode) && (major(st.st_dev) != f->maj || minor(st.st_dev) != f->min) &&
	    !statfs(path, &sfs))
		fs_type = (long)sfs.f_type;
	if (!tdr_dso__same_file(f->maj, f->min, f->ino, &st, fs_type))
		return TDR_DSO_REPLACED;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return open_error(errno);
	/* What was opened is what stat saw (the path may have changed). */
	if (fstat(fd, &ost) || !S_ISREG(ost.st_mode) || ost.st_dev != st.st_dev ||
	    ost.st_ino != st.st_ino) {
		status = TDR_DSO_REPLACED;
	} else if (f->first_ns && (int64_t)ost.st_ctim.tv_sec * 1000000000 + ost.st_ctim.tv_nsec >
				      (int64_t)f->first_ns + clock_to_wall_ns) {
		/* Written (or its inode changed) after it was mapped: its
		 * build-id now may not be the one that ran. */
		status = TDR_DSO_MODIFIED;
	} else {
		err = tdr_build_id__read(fd, bid);
		status = !err		  ? TDR_DSO_BUILD_ID
			 : err == -ENOENT ? TDR_DSO_NO_BUILD_ID
					  : TDR_DSO_UNREADABLE;
	}
	close(fd);
	return status;
}

void tdr_dso_set__resolve(struct tdr_dso_set *s, const char *proc_root, int64_t clock_to_wall_ns)
{
	char root_path[PATH_MAX + 64];

	for (size_t i = 0; i < s->cnt; i++) {
		struct tdr_dso_file *f = &s->files[i];
		const char *path = s->names + f->path_off;
		int n;

		memset(&f->bid, 0, sizeof(f->bid));
		f->status = (uint8_t)check_path(path, f, clock_to_wall_ns, &f->bid);
		if (f->status != TDR_DSO_REPLACED || !f->pid || f->pid == UINT32_MAX)
			continue;
		/* The path as the process saw it: another mount namespace
		 * (a container) has other files at the same paths. Its answer
		 * counts only when it found the file. */
		n = snprintf(root_path, sizeof(root_path), "%s/%u/root%s",
			     proc_root ? proc_root : "/proc", f->pid, path);
		if (n > 0 && (size_t)n < sizeof(root_path)) {
			struct tdr_build_id bid = {0};
			enum tdr_dso_status st = check_path(root_path, f, clock_to_wall_ns, &bid);

			if (st != TDR_DSO_REPLACED && st != TDR_DSO_UNREADABLE) {
				f->status = (uint8_t)st;
				f->bid = bid;
			}
		}
	}
}

int tdr_dso_set__encode(const struct tdr_dso_set *s, void **out, size_t *sz)
{
	struct tdr_dso_entry *e = tdr_calloc(s->cnt ? s->cnt : 1, sizeof(*e));
	int err;

	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < s->cnt; i++) {
		const struct tdr_dso_file *f = &s->files[i];

		e[i].path = s->names + f->path_off;
		e[i].path_len = f->path_len;
		e[i].maj = f->maj;
		e[i].min = f->min;
		e[i].ino = f->ino;
		e[i].status = f->status;
		if (f->status == TDR_DSO_BUILD_ID) {
			e[i].build_id_sz = f->bid.sz;
			memcpy(e[i].build_id, f->bid.id, f->bid.sz);
		}
	}
	/* Every entry is within the caps (scan and build_id.c keep them), so
	 * only memory can fail. */
	err = tdr_dso_table__encode(e, s->cnt, out, sz);
	free(e);
	return err;
}

void tdr_dso_set__free(struct tdr_dso_set *s)
{
	zfree(&s->files);
	tdr_hmap__fini(&s->index);
	zfree(&s->names);
	memset(s, 0, sizeof(*s));
}
