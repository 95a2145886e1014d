/*
 * export/include/tdrec/export.h - recordings as profiles for other tools.
 *
 * Responsibility: read a recording once into a profile (struct
 * tdr_profile: stacks of symbolized frames with their summed values) and
 * write it as gzip'd pprof (profile.proto), folded stacks, speedscope JSON
 * or one self-contained HTML page; send the pprof to a Pyroscope ingest
 * endpoint. The values of a profile are the samples, every recorded event,
 * the slots, and the slots of every TopDown category the plan has, counted
 * by the report's own rules (tdrec/report.h), so that every format gives
 * each function the share 'tdrec report' gives it.
 * Objects and lifecycle: tdr_profile__load -> writers (repeat) -> __free.
 * Ownership and threads: the profile owns every string and number it
 * holds (the parser and symbolizer are freed by __load); one per thread.
 * See: docs/export.md.
 */
#ifndef TDREC_EXPORT_H
#define TDREC_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tdrec/tdr_api.h"
#include "tdrec/report.h"

struct tdr_profile;

enum tdr_export_format {
	TDR_EXPORT_PPROF = 0, /* .pb.gz */
	TDR_EXPORT_FOLDED,    /* .folded, .txt */
	TDR_EXPORT_SPEEDSCOPE, /* .speedscope.json, .json */
	TDR_EXPORT_HTML,      /* .html */
	TDR_EXPORT_FORMAT_CNT,
};

/* "pprof", "folded", "speedscope", "html". */
TDR_API const char *tdr_export_format_name(enum tdr_export_format f);
/* By name. Returns 0 or -TDR_E_USAGE. */
TDR_API int tdr_export_format_parse(const char *name, enum tdr_export_format *out);
/* By the output file's name (".pb.gz", ".pprof", ".folded", ".json",
 * ".html"...). Returns 0 or -TDR_E_USAGE when the name says nothing. */
TDR_API int tdr_export_format_from_path(const char *path, enum tdr_export_format *out);

/*
 * Read the recording at path (.tdr or perf.data), symbolize every address
 * once (functions, inline chains, source lines, as 'tdrec report' does;
 * lopts as for tdr_report__load, may be NULL), and keep the stacks with
 * their values. timeline: also keep every sample's time, thread and deltas
 * (what tdr_export_html needs; 24 + 8 bytes per event per sample).
 * Returns: 0, or the parser's / symbolizer's error.
 */
TDR_API int tdr_profile__load(const char *path, const struct tdr_report_load_opts *lopts,
			      bool timeline, struct tdr_profile **out);
TDR_API void tdr_profile__free(struct tdr_profile *p);

/* The values: 0 is "samples", then the events (those that count
 * something), "slots" and one per TopDown category when the plan has them. */
TDR_API size_t tdr_profile__value_cnt(const struct tdr_profile *p);
TDR_API const char *tdr_profile__value_name(const struct tdr_profile *p, size_t idx);
/* A value by its name (an event name, a category name, "samples",
 * "slots"). Returns its index or -TDR_E_USAGE. */
TDR_API int tdr_profile__value_find(const struct tdr_profile *p, const char *name);
/* The first and last sample time on the wall clock (ns since the epoch):
 * true. false when the recording has no wall clock (a perf.data file
 * without perf's clock data): *from_ns is 0 and *until_ns the span's length. */
TDR_API bool tdr_profile__span(const struct tdr_profile *p, uint64_t *from_ns, uint64_t *until_ns);

/* The profile as gzip'd profile.proto into *buf (allocated, caller frees).
 * Returns 0, -ENOMEM or -TDR_E_LIMIT (zlib refused). */
TDR_API int tdr_export_pprof(const struct tdr_profile *p, uint8_t **buf, size_t *sz);
/* Folded stacks, one line per stack: "outer;...;leaf N" with value idx.
 * Returns 0 or -EIO (the stream's error is left in it). */
TDR_API int tdr_export_folded(const struct tdr_profile *p, size_t value, FILE *out);
/* speedscope's file format: one sampled profile per value, shared frames. */
TDR_API int tdr_export_speedscope(const struct tdr_profile *p, FILE *out);
/* One HTML page: flame graph, timeline, table (docs/export.md "html"); the
 * profile must be loaded with timeline (-EINVAL otherwise). */
TDR_API int tdr_export_html(const struct tdr_profile *p, FILE *out);

/* Was tdrec built with libcurl (--push)? */
TDR_API bool tdr_export_push_available(void);
/*
 * POST the gzip'd pprof buf to URL/ingest?format=pprof&name=NAME&from=S&until=S
 * (Pyroscope's ingest API; URL is the server's base address). err (may be
 * NULL) receives a one-line reason on failure. Returns 0, -ENOTSUP (built
 * without libcurl), -EIO (transport or HTTP status >= 300), -ENOMEM.
 */
TDR_API int tdr_export_push(const char *url, const char *name, uint64_t from_s, uint64_t until_s,
			    const uint8_t *buf, size_t sz, char *err, size_t err_sz);

#endif /* TDREC_EXPORT_H */
