/*
 * report/info_int.h - what 'tdrec info' counts while reading a recording,
 * shared by render_info.c (counting, text) and render_info_json.c (JSON).
 */
#ifndef TDREC_REPORT_INFO_INT_H
#define TDREC_REPORT_INFO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tdrec/parser.h"
#include "tdrec/tdr_hmap.h"

/* Counts gathered while running the parser. */
struct info {
	const char *path; /* the file as the user named it */
	const struct tdr_parser *p;
	const struct tdr_meta *meta;
	uint64_t *ev_samples; /* samples per sampler event */
	uint64_t *ev_delta;   /* sum of deltas per event */
	struct tdr_u64map tids; /* the threads seen (values unused) */
	/* Samples in anonymous memory (JIT code), and the processes they
	 * were in (values: samples, capped), for the JIT line. */
	uint64_t anon_samples;
	struct tdr_u64map anon_pids;
	uint64_t first_ns, last_ns;
	bool have_time;
};

/* RUN_END's duration; without a trailer, from the start of recording (or
 * the first sample) to the last sample. */
uint64_t tdr_report_info_duration(const struct info *in);
/* FRAME blocks the file holds, readable or not (0 for perf.data). */
uint64_t tdr_report_info_frames(const struct info *in);

/* The JSON object (render_info_json.c; keys in docs/format.md section 13). */
void tdr_report_info_render_json(const struct info *in, FILE *f);

#endif /* TDREC_REPORT_INFO_INT_H */
