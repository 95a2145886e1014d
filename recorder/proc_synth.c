/*
 * recorder/proc_synth.c - MMAP2 and COMM records for processes that already
 * run (-p, -a), made from /proc.
 *
 * Responsibility: the kernel only reports mappings and names that change
 * after the events are opened, so for an attached process the recorder
 * writes what /proc says first, in the kernel's own record layout, into a
 * frame with ring TDR_RING_SYNTHETIC ahead of any kernel record. COMM comes
 * from /proc/PID/task/TID/comm for every thread; MMAP2 from /proc/PID/maps
 * for every executable mapping (file-backed, [vdso], anonymous JIT code).
 * Each record ends with the sampler's sample_id trailer (sample_id_all):
 * TID {pid, tid}, TIME, ID, STREAM_ID, CPU {cpu, 0}, IDENTIFIER, each
 * present when the sampler's sample_type has it. TIME is the sample clock
 * read before the events were opened, so these records sort before every
 * kernel record; ID/IDENTIFIER is the sampler's id on the first CPU of the
 * first group (docs/record.md "Synthesized records").
 * Objects and lifecycle: functions appending to a struct tdr_synth_buf.
 * Ownership: the caller frees buf->data.
 * Invariants: records are 8-byte aligned and at most 64 KiB (u16 size).
 * See: perf_event_open(2) PERF_RECORD_MMAP2 / PERF_RECORD_COMM; proc(5).
 */
#include "recorder_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tdrec/tdr_mem.h"

#define SYNTH_MAX_NAME 4096

static size_t id_trailer_sz(const struct tdr_synth_id *sid)
{
	uint64_t t = sid->sample_type;

	return 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		    !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		    !!(t & PERF_SAMPLE_IDENTIFIER));
}

static void put_u32(uint8_t **p, uint32_t v)
{
	memcpy(*p, &v, 4); /* kernel records are host-endian */
	*p += 4;
}

static void put_u64(uint8_t **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

/* The sample_id trailer, in the order of the uapi struct sample_id. */
static void put_trailer(uint8_t **p, const struct tdr_synth_id *sid, uint32_t pid, uint32_t tid)
{
	uint64_t t = sid->sample_type;

	if (t & PERF_SAMPLE_TID) {
		put_u32(p, pid);
		put_u32(p, tid);
	}
	if (t & PERF_SAMPLE_TIME)
		put_u64(p, sid->time_ns);
	if (t & PERF_SAMPLE_ID)
		put_u64(p, sid->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(p, sid->id);
	if (t & PERF_SAMPLE_CPU) {
		put_u32(p, sid->cpu);
		put_u32(p, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(p, sid->id);
}

/* Room for one record of sz bytes at the end of buf. */
static uint8_t *buf_reserve(struct tdr_synth_buf *buf, size_t sz)
{
	if (tdr_ensure_cap(&buf->data, &buf->cap, 1, buf->sz + sz))
		return NULL;
	memset(buf->data + buf->sz, 0, sz);
	return buf->data + buf->sz;
}

static int emit_comm(struct tdr_synth_buf *buf, const struct tdr_synth_id *sid, uint32_t pid,
		     uint32_t tid, const char *comm)
{
	size_t name_sz = (strlen(comm) + 1 + 7) & ~(size_t)7;
	size_t sz = 8 + 8 + name_sz + id_trailer_sz(sid);
	struct perf_event_header h = {.type = PERF_RECORD_COMM, .misc = 0, .size = (uint16_t)sz};
	uint8_t *p = buf_reserve(buf, sz);

	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	put_u32(&p, pid);
	put_u32(&p, tid);
	memcpy(p, comm, strlen(comm)); /* NUL and padding already zero */
	p += name_sz;
	put_trailer(&p, sid, pid, tid);
	buf->sz += sz;
	return 0;
}

struct maps_line {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *name;
};

/* "start-end perms offset maj:min inode   name" (proc(5)). */
static int parse_maps_line(char *line, struct maps_line *m)
{
	char perms[8];
	int name_off = 0;
	unsigned long long start, end, off, ino;
	unsigned maj, min;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min,
		   &ino, &name_off) < 7)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->ino = ino;
	m->maj = maj;
	m->min = min;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	m->name = name_off ? line + name_off : "";
	line[strcspn(line, "\n")] = 0;
	return 0;
}

static int emit_mmap2(struct tdr_synth_buf *buf, const struct tdr_synth_id *sid, uint32_t pid,
		      const struct maps_line *m)
{
	const char *name = m->name[0] ? m->name : "//anon";
	size_t len = strnlen(name, SYNTH_MAX_NAME - 1);
	size_t name_sz = (len + 1 + 7) & ~(size_t)7;
	/* header, pid tid, addr len pgoff, maj min, ino ino_generation, prot flags */
	size_t sz = 8 + 8 + 3 * 8 + 2 * 4 + 2 * 8 + 2 * 4 + name_sz + id_trailer_sz(sid);
	struct perf_event_header h = {
	    .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER, .size = (uint16_t)sz};
	uint8_t *p;

	p = buf_reserve(buf, sz);
	if (!p)
		return -ENOMEM;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	put_u32(&p, pid);
	put_u32(&p, pid); /* tid: the mapping belongs to the whole process */
	put_u64(&p, m->start);
	put_u64(&p, m->end - m->start);
	put_u64(&p, m->pgoff);
	put_u32(&p, m->maj);
	put_u32(&p, m->min);
	put_u64(&p, m->ino);
	put_u64(&p, 0); /* ino_generation: not in /proc */
	put_u32(&p, m->prot);
	put_u32(&p, m->flags);
	memcpy(p, name, len);
	p += name_sz;
	put_trailer(&p, sid, pid, pid);
	buf->sz += sz;
	return 0;
}

int tdr_synth__process(struct tdr_synth_buf *buf, const char *proc_root, pid_t pid,
		       const struct tdr_synth_id *sid)
{
	char path[PATH_MAX], line[SYNTH_MAX_NAME + 128];
	pid_t *tids = NULL;
	int n, err = 0;
	FILE *f;

	n = tdr_proc__tids(proc_root, pid, &tids);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !err; i++) {
		snprintf(path, sizeof(path), "%s/%d/task/%d/comm", tdr_proc__root(proc_root), (int)pid,
			 (int)tids[i]);
		f = fopen(path, "re");
		if (!f)
			continue; /* the thread ended meanwhile */
		if (fgets(line, 64, f)) {
			line[strcspn(line, "\n")] = 0;
			err = emit_comm(buf, sid, (uint32_t)pid, (uint32_t)tids[i], line);
		}
		fclose(f);
	}
	free(tids);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/%d/maps", tdr_proc__root(proc_root), (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (!err && fgets(line, sizeof(line), f)) {
		struct maps_line m;

		if (!strchr(line, '\n') && !feof(f)) {
			/* A name longer than the buffer: skip the rest of it. */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (parse_maps_line(line, &m) || !(m.prot & PROT_EXEC) || m.end <= m.start)
			continue;
		if (!strcmp(m.name, "[vsyscall]"))
			continue; /* a kernel address, not the process's */
		err = emit_mmap2(buf, sid, (uint32_t)pid, &m);
	}
	fclose(f);
	return err;
}
