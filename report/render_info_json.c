/*
 * report/render_info_json.c - the JSON object of 'tdrec info', as a table.
 *
 * Responsibility: one row per key, in the order of the document: the key,
 * the type of its value, and where the value is (a field of the metadata,
 * the parser's counters, the file status, the run end or an event, found by
 * its offset) or the function that writes it when it is computed. A new key
 * is a new row here and a line in docs/format.md section 13.
 * Invariants: a value whose source struct is absent (no trailer: no file
 * status for perf.data, no run end, no event totals) is null; an object
 * whose source is absent is null as a whole. Offsets are checked against
 * the size of the field's type at compile time.
 * See: docs/format.md section 13 (every key and where it comes from).
 */
#include "info_int.h"

#include "tdrec/archive.h"

#include <stddef.h>
#include <string.h>

#include "report_int.h"
#include "tdrec/tdr_json.h"
#include "tdrec/tdr_mem.h"

/* Where a field's value is. */
enum src {
	SRC_NONE,	/* computed by the row's function */
	SRC_META,	/* struct tdr_meta */
	SRC_STATS,	/* struct tdr_parse_stats */
	SRC_FILE,	/* struct tdr_file_status, absent for perf.data */
	SRC_END,	/* struct tdr_run_end, absent without a trailer */
	SRC_EVENT,	/* struct tdr_event_desc of the current event */
	SRC_EV_TOTALS,	/* struct tdr_event_totals of the event, absent without a trailer */
	SRC_EV_COUNTED, /* the same, absent when it has no COUNTED value */
	SRC_CNT,
};

enum type {
	T_STR,	/* char * (NULL is null) */
	T_U64,	/* uint64_t */
	T_U32,	/* uint32_t */
	T_I32,	/* int32_t */
	T_BOOL, /* bool */
	T_FLAG, /* bit `flag` of a uint32_t: a bool */
	T_OBJ,	/* an object of the fields sub[] over the same sources */
	T_FN,	/* written by fn */
};

struct doc {
	const struct info *in;
	const void *base[SRC_CNT]; /* each source's struct, NULL when absent */
	size_t ev;		   /* the current event (event_totals) */
};

struct field {
	const char *key;
	enum type type;
	enum src src;
	size_t off;
	uint32_t flag;
	const struct field *sub;
	size_t sub_cnt;
	void (*fn)(const struct doc *d, struct tdr_json *j);
};

/* offsetof(T, m), or a compile error when m is not sz bytes wide. */
#define OFF(T, m, sz) (offsetof(T, m) + 0 * sizeof(char[sizeof(((T *)0)->m) == (sz) ? 1 : -1]))
#define F_STR(k, s, T, m) {.key = k, .type = T_STR, .src = s, .off = OFF(T, m, sizeof(char *))}
#define F_U64(k, s, T, m) {.key = k, .type = T_U64, .src = s, .off = OFF(T, m, 8)}
#define F_U32(k, s, T, m) {.key = k, .type = T_U32, .src = s, .off = OFF(T, m, 4)}
#define F_I32(k, s, T, m) {.key = k, .type = T_I32, .src = s, .off = OFF(T, m, 4)}
#define F_BOOL(k, s, T, m) {.key = k, .type = T_BOOL, .src = s, .off = OFF(T, m, sizeof(bool))}
#define F_FLAG(k, s, T, m, bit)                                                                    \
	{.key = k, .type = T_FLAG, .src = s, .off = OFF(T, m, 4), .flag = bit}
#define F_OBJ(k, s, tab)                                                                           \
	{.key = k, .type = T_OBJ, .src = s, .sub = tab, .sub_cnt = TDR_ARRAY_SIZE(tab)}
#define F_FN(k, f) {.key = k, .type = T_FN, .fn = f}

#define META struct tdr_meta
#define STATS struct tdr_parse_stats

static void put_fields(const struct doc *d, const struct field *t, size_t n, struct tdr_json *j)
{
	for (size_t i = 0; i < n; i++) {
		const struct field *fl = &t[i];
		const char *b = d->base[fl->src];
		const void *v = b ? b + fl->off : NULL;

		tdr_json__key(j, fl->key);
		if (fl->type == T_FN) {
			fl->fn(d, j);
			continue;
		}
		if (!v) {
			tdr_json__null(j);
			continue;
		}
		/* memcpy: the offsets are exact, the types are not known here. */
		switch (fl->type) {
		case T_STR: {
			const char *s;

			memcpy(&s, v, sizeof(s));
			tdr_json__string(j, s);
			break;
		}
		case T_U64: {
			uint64_t x;

			memcpy(&x, v, sizeof(x));
			tdr_json__uint(j, x);
			break;
		}
		case T_U32:
		case T_FLAG: {
			uint32_t x;

			memcpy(&x, v, sizeof(x));
			if (fl->type == T_FLAG)
				tdr_json__bool(j, x & fl->flag);
			else
				tdr_json__uint(j, x);
			break;
		}
		case T_I32: {
			int32_t x;

			memcpy(&x, v, sizeof(x));
			tdr_json__int(j, x);
			break;
		}
		case T_BOOL: {
			bool x;

			memcpy(&x, v, sizeof(x));
			tdr_json__bool(j, x);
			break;
		}
		case T_OBJ:
			tdr_json__begin_object(j, TDR_JSON_INLINE);
			put_fields(d, fl->sub, fl->sub_cnt, j);
			tdr_json__end_object(j);
			break;
		case T_FN:
			break;
		}
	}
}

/* ---- computed values ---- */

static void put_strings(char *const *v, size_t n, struct tdr_json *j)
{
	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < n; i++)
		tdr_json__string(j, v[i]);
	tdr_json__end_array(j);
}

static void fn_file(const struct doc *d, struct tdr_json *j)
{
	tdr_json__string(j, d->in->path);
}

static void fn_source(const struct doc *d, struct tdr_json *j)
{
	tdr_json__string(j, tdr_report_source_name(tdr_parser__source(d->in->p)));
}

static void fn_format_version(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_file_status *fs = tdr_parser__file_status(d->in->p);
	char v[16];

	if (tdr_parser__source(d->in->p) != TDR_SOURCE_TDR) {
		tdr_json__string(j, "perf.data");
		return;
	}
	snprintf(v, sizeof(v), "%u.%u", fs->major, fs->minor);
	tdr_json__string(j, v);
}

static void fn_events(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_meta *m = d->in->meta;

	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < m->event_cnt; i++)
		tdr_json__string(j, m->events[i].name);
	tdr_json__end_array(j);
}

static void fn_lost_samples(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_parse_stats *st = tdr_parser__stats(d->in->p);

	tdr_json__uint(j, st->lost_samples + st->lost_samples_pmu);
}

static void fn_frames(const struct doc *d, struct tdr_json *j)
{
	tdr_json__uint(j, tdr_report_info_frames(d->in));
}

static void fn_threads(const struct doc *d, struct tdr_json *j)
{
	tdr_json__uint(j, tdr_u64map__cnt(&d->in->tids));
}

static void fn_truncated(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_file_status *fs = tdr_parser__file_status(d->in->p);

	tdr_json__bool(j, fs && fs->truncated);
}

static void fn_duration(const struct doc *d, struct tdr_json *j)
{
	tdr_json__uint(j, tdr_report_info_duration(d->in));
}

static void fn_command_line(const struct doc *d, struct tdr_json *j)
{
	put_strings(d->in->meta->argv, d->in->meta->argc, j);
}

static void fn_notes(const struct doc *d, struct tdr_json *j)
{
	put_strings(d->in->meta->notes, d->in->meta->note_cnt, j);
}

static void fn_rebases(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_parse_stats *st = tdr_parser__stats(d->in->p);

	tdr_json__begin_object(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < TDR_REBASE_REASON_CNT; i++)
		tdr_json__key_uint(j, tdr_rebase_reason_name((enum tdr_rebase_reason)i),
				   st->rebases[i]);
	tdr_json__end_object(j);
}

/* The ARCHIVE section (docs/format.md 7.2): null without one. */
static void fn_archive(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_archive *a = tdr_parser__archive(d->in->p);
	const struct tdr_archive_stats *st;

	if (!a && !tdr_parser__stats(d->in->p)->archive_damaged) {
		tdr_json__null(j);
		return;
	}
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_bool(j, "damaged", !a);
	if (a) {
		st = tdr_archive__stats(a);
		tdr_json__key_uint(j, "objects", st->dsos);
		tdr_json__key_uint(j, "addresses", st->addrs);
		tdr_json__key_uint(j, "functions", st->functions);
		tdr_json__key_uint(j, "inline_frames", st->inline_frames);
		tdr_json__key_uint(j, "strings", st->strings);
		tdr_json__key_uint(j, "bytes", st->data_sz);
		tdr_json__key_uint(j, "body_bytes", st->raw_sz);
		tdr_json__key_uint(j, "stacks", st->stacks);
		tdr_json__key_uint(j, "stack_samples", st->stack_samples);
	}
	tdr_json__end_object(j);
}

/* ---- one event ---- */

static void fn_ev_samples(const struct doc *d, struct tdr_json *j)
{
	tdr_json__uint(j, d->in->ev_samples[d->ev]);
}

static void fn_ev_delta(const struct doc *d, struct tdr_json *j)
{
	tdr_json__uint(j, d->in->ev_delta[d->ev]);
}

/* The attr: its main fields, then every byte this build knows
 * (min(attr_disk_sz, sizeof)) in hex, so nothing is hidden. */
static void fn_ev_attr(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_event_desc *e = &d->in->meta->events[d->ev];
	const struct perf_event_attr *a = &e->attr;
	const uint8_t *bytes = (const uint8_t *)a;
	size_t n = e->attr_disk_sz < sizeof(*a) ? e->attr_disk_sz : sizeof(*a);
	char hex[2 * sizeof(*a) + 1];
	uint64_t bits;

	/* The bit fields (disabled, inherit, ..., freq, ...) are the u64 after
	 * read_format in every attr version. */
	memcpy(&bits, bytes + offsetof(struct perf_event_attr, read_format) + 8, sizeof(bits));
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
	hex[2 * n] = '\0';
	tdr_json__begin_object(j, TDR_JSON_INLINE);
	tdr_json__key_uint(j, "type", a->type);
	tdr_json__key_uint(j, "size", a->size);
	tdr_json__key_uint(j, "config", a->config);
	tdr_json__key_uint(j, "config1", a->config1);
	tdr_json__key_uint(j, "config2", a->config2);
	tdr_json__key_uint(j, a->freq ? "sample_freq" : "sample_period", a->sample_period);
	tdr_json__key_uint(j, "sample_type", a->sample_type);
	tdr_json__key_uint(j, "read_format", a->read_format);
	tdr_json__key_uint(j, "bits", bits);
	tdr_json__key_uint(j, "disk_size", e->attr_disk_sz);
	tdr_json__key_string(j, "hex", hex);
	tdr_json__end_object(j);
}

/* The kernel-assigned ids; cpu and pid are -1 for "any". */
static void fn_ev_ids(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_event_desc *e = &d->in->meta->events[d->ev];

	tdr_json__begin_array(j, TDR_JSON_INLINE);
	for (size_t i = 0; i < e->id_cnt; i++) {
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_int(j, "cpu", (int32_t)e->ids[i].cpu);
		tdr_json__key_int(j, "pid", (int32_t)e->ids[i].pid);
		tdr_json__key_uint(j, "id", e->ids[i].id);
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
}

#define EVENT struct tdr_event_desc
#define EVTOT struct tdr_event_totals

static const struct field event_fields[] = {
    F_STR("name", SRC_EVENT, EVENT, name),
    F_STR("pmu", SRC_EVENT, EVENT, pmu_name),
    F_U32("pmu_type", SRC_EVENT, EVENT, pmu_type),
    F_U32("group", SRC_EVENT, EVENT, group_idx),
    F_FLAG("leader", SRC_EVENT, EVENT, flags, TDR_EVENT_LEADER),
    F_FLAG("sampler", SRC_EVENT, EVENT, flags, TDR_EVENT_SAMPLER),
    F_FN("samples", fn_ev_samples),
    F_FN("delta_total", fn_ev_delta),
    /* The recorder's own count of the event's lost samples
     * (PERF_FORMAT_LOST, in the trailer). */
    F_U64("lost_samples", SRC_EV_TOTALS, EVTOT, lost_samples),
    /* The whole run's count (trailer COUNTED, docs/format.md 8.1). */
    F_U64("counted", SRC_EV_COUNTED, EVTOT, counted),
    F_U64("counted_time_enabled_ns", SRC_EV_COUNTED, EVTOT, time_enabled_ns),
    F_U64("counted_time_running_ns", SRC_EV_COUNTED, EVTOT, time_running_ns),
    F_FN("attr", fn_ev_attr),
    F_FN("ids", fn_ev_ids),
};

static void fn_event_totals(const struct doc *d, struct tdr_json *j)
{
	const struct tdr_totals *tot = tdr_parser__totals(d->in->p);
	const struct tdr_meta *m = d->in->meta;
	struct doc e = *d;

	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (e.ev = 0; e.ev < m->event_cnt; e.ev++) {
		const struct tdr_event_totals *t =
		    tot && e.ev < tot->event_cnt ? &tot->events[e.ev] : NULL;

		e.base[SRC_EVENT] = &m->events[e.ev];
		e.base[SRC_EV_TOTALS] = t;
		e.base[SRC_EV_COUNTED] = t && t->has_counted ? t : NULL;
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		put_fields(&e, event_fields, TDR_ARRAY_SIZE(event_fields), j);
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
}

/* ---- the document ---- */

static const struct field mode_fields[] = {
    F_FLAG("inherit", SRC_META, META, flags, TDR_META_INHERIT),
    F_FLAG("system_wide", SRC_META, META, flags, TDR_META_SYSTEM_WIDE),
    F_FLAG("attached", SRC_META, META, flags, TDR_META_ATTACHED),
    F_FLAG("kernel", SRC_META, META, flags, TDR_META_KERNEL),
};

static const struct field cpu_fields[] = {
    F_STR("vendor", SRC_META, META, cpu_vendor),
    F_U32("family", SRC_META, META, cpu_family),
    F_U32("model", SRC_META, META, cpu_model),
    F_U32("stepping", SRC_META, META, cpu_stepping),
    F_STR("model_name", SRC_META, META, cpu_model_name),
    F_U32("nr_cpus", SRC_META, META, nr_cpus),
};

static const struct field parse_fields[] = {
    F_U64("streams", SRC_STATS, STATS, streams),
    F_U64("first_samples", SRC_STATS, STATS, first_samples),
    F_U64("throttles", SRC_STATS, STATS, throttles),
    F_U64("unthrottles", SRC_STATS, STATS, unthrottles),
    F_U64("multiplexed_samples", SRC_STATS, STATS, multiplexed_samples),
    F_U64("unmapped_samples", SRC_STATS, STATS, unmapped_samples),
    F_U64("unknown_records", SRC_STATS, STATS, unknown_records),
    F_U64("malformed_records", SRC_STATS, STATS, malformed_records),
    F_U64("unknown_ids", SRC_STATS, STATS, unknown_ids),
    F_U64("implausible_samples", SRC_STATS, STATS, implausible_samples),
    F_U64("bad_frames", SRC_STATS, STATS, bad_frames),
    F_U64("dso_entries", SRC_STATS, STATS, dso_entries),
    F_U64("dso_build_ids", SRC_STATS, STATS, dso_build_ids),
    F_U64("dso_damaged", SRC_STATS, STATS, dso_damaged),
};

#define FSTAT struct tdr_file_status
static const struct field file_status_fields[] = {
    F_U64("file_size", SRC_FILE, FSTAT, file_sz),
    F_BOOL("has_trailer", SRC_FILE, FSTAT, has_trailer),
    F_BOOL("truncated", SRC_FILE, FSTAT, truncated),
    F_U64("intact_size", SRC_FILE, FSTAT, intact_sz),
    F_U32("bad_frames", SRC_FILE, FSTAT, bad_frames),
    F_BOOL("damaged", SRC_FILE, FSTAT, damaged),
};

static const struct field run_end_fields[] = {
    F_I32("exit_code", SRC_END, struct tdr_run_end, exit_code),
    F_I32("term_signal", SRC_END, struct tdr_run_end, term_signal),
    F_U32("flags", SRC_END, struct tdr_run_end, flags),
};

static const struct field doc_fields[] = {
    F_FN("file", fn_file),
    F_FN("source", fn_source),
    F_FN("format_version", fn_format_version),
    F_STR("tdrec_version", SRC_META, META, tdrec_version),
    F_STR("plan", SRC_META, META, plan_name),
    F_FN("events", fn_events),
    F_U64("samples", SRC_STATS, STATS, samples),
    F_U64("samples_attributed", SRC_STATS, STATS, samples_delivered),
    F_FN("lost_samples", fn_lost_samples),
    F_U64("lost_records", SRC_STATS, STATS, lost_records),
    F_U64("records", SRC_STATS, STATS, records),
    F_FN("frames", fn_frames),
    F_FN("threads", fn_threads),
    F_FN("truncated", fn_truncated),
    F_FN("duration_ns", fn_duration),
    F_U64("start_wall_ns", SRC_META, META, start_wall_ns),
    F_U64("start_clock_ns", SRC_META, META, start_clock_ns),
    F_I32("clockid", SRC_META, META, clockid),
    F_U64("sample_period", SRC_META, META, sample_period),
    F_U64("sample_freq", SRC_META, META, sample_freq),
    F_OBJ("mode", SRC_META, mode_fields),
    F_U32("page_size", SRC_META, META, page_sz),
    F_STR("boot_id", SRC_META, META, boot_id),
    F_STR("host", SRC_META, META, hostname),
    F_STR("kernel_release", SRC_META, META, kernel_release),
    F_OBJ("cpu", SRC_META, cpu_fields),
    F_FN("command_line", fn_command_line),
    F_FN("notes", fn_notes),
    F_FN("event_totals", fn_event_totals),
    F_FN("rebases", fn_rebases),
    F_OBJ("parse", SRC_STATS, parse_fields),
    F_FN("archive", fn_archive),
    F_OBJ("file_status", SRC_FILE, file_status_fields),
    F_OBJ("run_end", SRC_END, run_end_fields),
};

void tdr_report_info_render_json(const struct info *in, FILE *f)
{
	struct doc d = {.in = in};
	struct tdr_json j;

	d.base[SRC_META] = in->meta;
	d.base[SRC_STATS] = tdr_parser__stats(in->p);
	d.base[SRC_FILE] = tdr_parser__file_status(in->p);
	d.base[SRC_END] = tdr_parser__run_end(in->p);
	tdr_json__init(&j, f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	put_fields(&d, doc_fields, TDR_ARRAY_SIZE(doc_fields), &j);
	tdr_json__end_object(&j);
}
