/*
 * parser/perfdata_pipe.c - perf.data import: pipe-mode files and pipes.
 *
 * Responsibility: a pipe-mode perf.data (perf record -o -, written to a
 * pipe or redirected to a file) has a 16-byte header (magic, size 16) and
 * then records only: the attrs with their ids as PERF_RECORD_HEADER_ATTR
 * (64), each feature section as PERF_RECORD_HEADER_FEATURE (80: the
 * feature's bit, then the same payload as in a file), build-ids as
 * HEADER_BUILD_ID (67), mixed with the kernel's records. This file scans
 * those records once for the attrs and features, so that perfdata.c builds
 * the meta as it does for a file, and perfdata_read.c then reads every
 * record from offset 16 (skipping perf's own). It also copies a pipe
 * (standard input) whole into an anonymous memory file, because both
 * readers map their input.
 * Not here: the meta itself (perfdata.c), the record walk (perfdata_read.c).
 * Limits: a stream that ends inside a record is cut there (truncated);
 * HEADER_TRACING_DATA and AUXTRACE carry bytes after the record that its
 * size does not count: they are skipped.
 * See: docs/parser.md "perf.data import"; tools/perf/util/session.c
 * (perf_session__process_pipe_events) and
 * tools/perf/Documentation/perf.data-file-format.txt "Pipe-mode data".
 */
#include "parser_int.h"
#include "perfdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

int tdr_parser_spool(int fd, const char *name, int *out)
{
	static uint8_t buf[1 << 16];
	int mfd = memfd_create("tdrec-input", MFD_CLOEXEC);
	int err = 0;

	if (mfd < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* Opened O_NONBLOCK, with a writer: wait for it. */
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				err = -errno;
				break;
			}
			continue;
		}
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		while (w < n) {
			ssize_t k = write(mfd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				err = -errno;
				break;
			}
			w += k;
		}
		if (err)
			break;
	}
	close(fd);
	if (!err && lseek(mfd, 0, SEEK_END) == 0)
		err = -ENODATA; /* a pipe closed before anything came */
	if (err) {
		tdr_warn("failed to read %s: %s", name, tdr_strerror(err));
		close(mfd);
		return err;
	}
	*out = mfd;
	return 0;
}

uint64_t tdr_parser_perfdata_trailing(const struct perfdata *pd, const uint8_t *rec, size_t sz)
{
	uint32_t type = tdr_get_le32(rec);

	/* perf_record_header_tracing_data: u32 size, then size bytes padded
	 * to 8 after the record (a file keeps them in a feature section). */
	if (type == PD_REC_HEADER_TRACING_DATA && pd->pipe && sz >= 12)
		return ((uint64_t)tdr_get_le32(rec + 8) + 7) & ~(uint64_t)7;
	/* perf_record_auxtrace: u64 size first; the trace follows. */
	if (type == PD_REC_AUXTRACE && sz >= 16)
		return tdr_get_le64(rec + 8);
	return 0;
}

/* One HEADER_ATTR record: struct perf_event_attr (attr.size bytes), then
 * the event's ids to the end of the record (perf's
 * perf_event__process_attr reads it so). */
static int pipe_attr(struct tdr_meta *m, size_t i, const uint8_t *rec, size_t sz)
{
	uint32_t asz;

	if (sz < 8 + PERF_ATTR_SIZE_VER0)
		return -TDR_E_CORRUPT;
	asz = tdr_get_le32(rec + 8 + 4);
	if (asz < PERF_ATTR_SIZE_VER0 || asz > sz - 8)
		return -TDR_E_CORRUPT;
	return tdr_parser_perfdata_attr(m, i, rec + 8, asz, rec + 8 + asz, (sz - 8 - asz) / 8);
}

/*
 * Walk the records: count the attrs (pass 0), then read attrs and features
 * (pass 1). A record with a bad size ends the walk: what follows has no
 * boundaries; the data read (perfdata_read.c) stops there too.
 */
static int walk(struct perfdata *pd, struct tdr_meta *m, const char *name, bool fill,
		size_t *attr_cnt, bool *have_groups)
{
	uint64_t pos = PD_PIPE_HEADER_SZ;
	int err, bad = 0, bad_bit = -1;

	while (pd->sz - pos >= 8) {
		const uint8_t *rec = pd->map + pos;
		uint32_t type = tdr_get_le32(rec);
		uint16_t sz = tdr_get_le16(rec + 6);
		uint64_t extra;

		if (sz < 8 || sz > pd->sz - pos)
			break;
		extra = tdr_parser_perfdata_trailing(pd, rec, sz);
		if (type == PD_REC_HEADER_ATTR) {
			if (fill) {
				err = pipe_attr(m, *attr_cnt, rec, sz);
				if (err) {
					tdr_warn("failed to read perf.data %s: attr record %zu: %s",
						 name, *attr_cnt, tdr_strerror(err));
					return err;
				}
			}
			if (++*attr_cnt > PD_MAX_ATTRS)
				return -TDR_E_CORRUPT;
		} else if (type == PD_REC_HEADER_FEATURE && fill && sz >= 16) {
			uint64_t bit = tdr_get_le64(rec + 8);

			err = bit < 256
				  ? tdr_parser_perfdata_feature(pd, m, (int)bit, pos + 16, sz - 16u)
				  : 0;
			if (err == -ENOMEM)
				return err;
			if (!err && bit == PD_FEAT_GROUP_DESC)
				*have_groups = true;
			if (err && !bad++)
				bad_bit = (int)bit;
		}
		if (extra > pd->sz - pos - sz)
			break;
		pos += sz + extra;
	}
	if (fill && bad)
		tdr_warn("perf.data %s: %d damaged feature records ignored (bit %d%s)", name, bad,
			 bad_bit, bad > 1 ? ", ..." : "");
	return 0;
}

int tdr_parser_perfdata_pipe_scan(struct perfdata *pd, struct tdr_meta *m, const char *name,
				  bool *have_groups)
{
	size_t n = 0;
	int err;

	pd->data_off = PD_PIPE_HEADER_SZ;
	pd->data_sz = pd->sz - PD_PIPE_HEADER_SZ;
	/* Nothing says where a pipe's stream ends but its end: a record cut
	 * there is where the writer stopped (perfdata_read.c). */
	pd->data_to_eof = true;
	pd->status.has_trailer = true; /* unless the stream was cut */
	err = walk(pd, m, name, false, &n, have_groups);
	if (!err && !n) {
		tdr_warn("failed to read perf.data %s: a pipe-mode file without attr records",
			 name);
		err = -TDR_E_CORRUPT;
	}
	if (err)
		return err;
	m->events = tdr_calloc(n, sizeof(*m->events));
	if (!m->events)
		return -ENOMEM;
	m->event_cnt = n;
	n = 0;
	return walk(pd, m, name, true, &n, have_groups);
}
