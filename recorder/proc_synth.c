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
 * The layouts and the writing are tdrec/records.h's (tdr_comm__write,
 * tdr_mmap2__write, tdr_sample_id__write).
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

/* The trailer layout and values of sid, as records.h writes them: the
 * sampler's id goes in ID, STREAM_ID and IDENTIFIER alike. */
static void trailer_of(const struct tdr_synth_id *sid, uint32_t pid, uint32_t tid,
		       struct tdr_sid_layout *l, struct tdr_sample_id *v)
{
	tdr_sid_layout__init(l, sid->sample_type);
	*v = (struct tdr_sample_id){.pid = pid, .tid = tid, .cpu = sid->cpu,
				    .time = sid->time_ns, .id = sid->id, .stream_id = sid->id};
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
	struct tdr_sid_layout l;
	struct tdr_sample_id v;
	size_t len = strlen(comm);
	uint8_t *p;

	trailer_of(sid, pid, tid, &l, &v);
	p = buf_reserve(buf, tdr_comm__size(len, l.sz));
	if (!p)
		return -ENOMEM;
	buf->sz += tdr_comm__write(p, 0, pid, tid, comm, len, &l, &v);
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
	struct tdr_mmap_rec r = {
	    .pid = pid,
	    .tid = pid, /* the mapping belongs to the whole process */
	    .addr = m->start,
	    .len = m->end - m->start,
	    .pgoff = m->pgoff,
	    .maj = m->maj,
	    .min = m->min,
	    .ino = m->ino,
	    .ino_generation = 0, /* not in /proc */
	    .prot = m->prot,
	    .flags = m->flags,
	    .filename = name,
	    .filename_len = strnlen(name, SYNTH_MAX_NAME - 1),
	};
	struct tdr_sid_layout l;
	struct tdr_sample_id v;
	uint8_t *p;

	trailer_of(sid, pid, pid, &l, &v);
	p = buf_reserve(buf, tdr_mmap2__size(r.filename_len, l.sz));
	if (!p)
		return -ENOMEM;
	buf->sz += tdr_mmap2__write(p, PERF_RECORD_MISC_USER, &r, &l, &v);
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
