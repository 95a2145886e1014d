/*
 * report/regions.c - a report whose rows are a program's instrumented
 * regions (libtdrec), from a standalone regions file or the REGIONS
 * section of a .tdr.
 *
 * Responsibility: decode the regions (format/regions_fmt.c), build the
 * metadata their family's formulas give (tdr_regions_fmt__meta, the same
 * function the library evaluates with), and add one row per region name
 * through tdr_report__add, so the columns, labels, thresholds, flags,
 * sorting and every renderer are the function report's own. A region's
 * "samples" are its completed begin/end pairs, summed over threads (one
 * row per thread with --by thread).
 * What it does not do: sample anything, or symbolize (a region is a name).
 * See: docs/regions.md "Reports"; docs/format.md section 7.3.
 */
#include "report_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/regions_fmt.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define REGIONS_FILE_MAX (1u << 30)

/*
 * A regions file, whole (*sz its size): -ENODATA when path is not one (its
 * first bytes are not the regions magic), so a big recording is never read
 * here. Only regular files, opened without blocking: a FIFO named by -i
 * has been read already, and waiting for a second writer would hang.
 */
static int slurp_regions_file(const char *path, uint8_t **out, size_t *sz)
{
	uint8_t magic[TDR_REGIONS_FILE_MAGIC_SZ];
	struct stat st;
	uint8_t *b;
	ssize_t n;
	int fd, err = 0;

	*out = NULL;
	*sz = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -TDR_E_NOTREG;
	else if ((uint64_t)st.st_size > REGIONS_FILE_MAX)
		err = -ENODATA; /* larger than any regions file: a recording */
	else if ((n = pread(fd, magic, sizeof(magic), 0)) != (ssize_t)sizeof(magic) ||
		 memcmp(magic, TDR_REGIONS_FILE_MAGIC, sizeof(magic)))
		err = n < 0 ? -errno : -ENODATA;
	if (err) {
		close(fd);
		return err;
	}
	b = tdr_malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, b, (size_t)st.st_size, 0);
	err = n < 0 ? -errno : (n != st.st_size ? -TDR_E_TRUNCATED : 0);
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	*out = b;
	*sz = (size_t)n;
	return 0;
}

const char *tdr_report_rows_name(const struct tdr_report *r)
{
	if (r->regions)
		return r->opts.by == TDR_BY_THREAD ? "region-thread" : "region";
	return tdr_report_by_name(r->opts.by);
}

static bool tid_wanted(const struct tdr_report_opts *o, uint32_t tid)
{
	if (!o->filter.tid_cnt)
		return true;
	for (size_t i = 0; i < o->filter.tid_cnt; i++)
		if (o->filter.tids[i] == tid)
			return true;
	return false;
}

static const char *method_name(uint32_t m)
{
	return m == TDR_REGIONS_RDPMC ? "rdpmc" : m == TDR_REGIONS_READ ? "read(2)" : "unknown";
}

static int add_regions(const void *data, size_t sz, const char *path,
		       const struct tdr_report_opts *opts, struct tdr_report **out)
{
	struct tdr_regions_iter it;
	struct tdr_regions_hdr h;
	struct tdr_regions_entry e;
	struct tdr_meta meta = {0};
	struct tdr_report *r = NULL;
	int err = tdr_regions_iter__init(&it, data, sz, &h);

	if (err)
		return err;
	err = tdr_regions_fmt__meta(&h, &meta);
	if (err < 0)
		goto out;
	err = tdr_report__new(&meta, opts, &r);
	if (err)
		goto out;
	r->regions = true;
	while ((err = tdr_regions_iter__next(&it, &e)) > 0) {
		char name[TDR_REGIONS_NAME_MAX + 1];
		struct tdr_row_key key = {.name = name};

		if (!tid_wanted(opts, e.tid))
			continue;
		memcpy(name, e.name.s, e.name.len);
		name[e.name.len] = 0;
		if (opts->by == TDR_BY_THREAD) {
			key.pid = h.pid;
			key.tid = e.tid;
		}
		err = tdr_report__add(r, &key, e.deltas, e.count);
		if (err)
			goto out;
	}
	if (err < 0)
		tdr_report__warn(r, "the regions are damaged from entry %u on: the rest is lost",
				 it.idx);
	if (it.skipped)
		tdr_report__warn(r, "%u regions with bad names left out", it.skipped);
	tdr_report__set_run(r, path, TDR_SOURCE_TDR, NULL);
	tdr_report__warn(r,
			 "regions of pid %u (%s, read with %s): 'samples' counts each region's "
			 "completed begin/end pairs; a row is the region's own deltas, nested "
			 "regions included (docs/regions.md)",
			 h.pid, meta.plan_name, method_name(h.method));
	if (h.errors)
		tdr_report__warn(r,
				 "%llu unbalanced begin/end calls or regions left open were "
				 "ignored",
				 (unsigned long long)h.errors);
	if (h.resets)
		tdr_report__warn(r, "the counters were reset %llu times to keep the perf "
				    "metrics' 8-bit fractions accurate (docs/regions.md \"Resets\")",
				 (unsigned long long)h.resets);
	if (!meta.category_cnt)
		tdr_report__warn(r, "no TopDown on family '%s': event totals only",
				 meta.plan_name);
	err = tdr_report__finish(r);
out:
	tdr_meta__clear(&meta);
	if (err) {
		tdr_report__free(r);
		return err;
	}
	*out = r;
	return 0;
}

int tdr_report__load_regions(const char *path, const struct tdr_report_opts *opts,
			     struct tdr_report **out)
{
	struct tdr_report_opts o = *opts;
	uint8_t *buf = NULL;
	size_t sz = 0;
	int err;

	*out = NULL;
	o.min_samples = 0; /* executions are counted, not sampled */
	err = slurp_regions_file(path, &buf, &sz);
	if (!err) {
		err = add_regions(buf + TDR_REGIONS_FILE_MAGIC_SZ, sz - TDR_REGIONS_FILE_MAGIC_SZ,
				  path, &o, out);
	} else if (err == -ENODATA) {
		struct tdr_reader *rd;
		const void *data;
		size_t dsz;

		err = tdr_reader__open(path, &rd);
		if (!err) {
			err = tdr_reader__section(rd, TDR_SECTION_REGIONS, &data, &dsz);
			err = err == -ENOENT ? -ENODATA : err;
			if (!err)
				err = add_regions(data, dsz, path, &o, out);
			tdr_reader__free(rd);
		}
	}
	free(buf);
	return err;
}
