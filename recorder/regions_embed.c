/*
 * recorder/regions_embed.c - the instrumented program's regions, embedded
 * in the recording.
 *
 * Responsibility: when the program ends, read the regions file libtdrec
 * wrote at the path tdrec record gave it (the environment variable
 * TDREC_REGIONS, set by cli/cmd_record.c), check its header with the
 * section's own iterator, and write its data, unchanged, as SECTION type
 * 4 (docs/format.md section 7.3). An empty file (a program without
 * libtdrec) adds nothing; a file last written before the recording
 * started (a user's TDREC_REGIONS from an earlier run) and a damaged one
 * are named in one warning and left out: the recording stays good
 * without them.
 * See: docs/regions.md "With tdrec record".
 */
#define LOG_PREFIX "record: "

#include "recorder_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tdrec/regions_fmt.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define REGIONS_EMBED_MAX (64u << 20)

static int read_all(const char *path, uint8_t **out, size_t *sz)
{
	FILE *f = fopen(path, "rbe");
	long len;
	uint8_t *b;
	int err = 0;

	*out = NULL;
	*sz = 0;
	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	if ((unsigned long)len > REGIONS_EMBED_MAX) {
		fclose(f);
		return -TDR_E_LIMIT;
	}
	b = tdr_malloc(len ? (size_t)len : 1);
	if (!b)
		err = -ENOMEM;
	else if (fread(b, 1, (size_t)len, f) != (size_t)len)
		err = -EIO;
	fclose(f);
	if (err) {
		free(b);
		return err;
	}
	*out = b;
	*sz = (size_t)len;
	return 0;
}

void tdr_record__embed_regions(struct tdr_recorder *rec)
{
	const char *path = rec->opts->regions_path;
	struct tdr_regions_iter it;
	struct tdr_regions_hdr h;
	struct stat st;
	uint8_t *b = NULL;
	size_t sz = 0;
	int err;

	if (!path)
		return;
	/* A file the user named may hold an earlier run's regions: only
	 * one written since this recording started is this run's. */
	if (!stat(path, &st) &&
	    (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec <
		rec->start_wall_ns) {
		if (st.st_size)
			tdr_warn("%s was written before this recording started: its regions are "
				 "not this run's and are left out",
				 path);
		return;
	}
	err = read_all(path, &b, &sz);
	if (err == -ENOENT || (!err && !sz))
		goto out; /* the program did not use libtdrec */
	if (!err && (sz < TDR_REGIONS_FILE_MAGIC_SZ ||
		     memcmp(b, TDR_REGIONS_FILE_MAGIC, TDR_REGIONS_FILE_MAGIC_SZ)))
		err = -TDR_E_FORMAT;
	if (!err)
		err = tdr_regions_iter__init(&it, b + TDR_REGIONS_FILE_MAGIC_SZ,
					     sz - TDR_REGIONS_FILE_MAGIC_SZ, &h);
	if (!err)
		err = tdr_writer__add_section(rec->writer, TDR_SECTION_REGIONS,
					      b + TDR_REGIONS_FILE_MAGIC_SZ,
					      sz - TDR_REGIONS_FILE_MAGIC_SZ);
	if (err)
		tdr_warn("the program's regions in %s are not in the recording: %s", path,
			 tdr_strerror(err));
	else
		tdr_info("%u regions of the program written to the recording", h.region_cnt);
out:
	free(b);
}
