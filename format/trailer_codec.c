/*
 * format/trailer_codec.c - the TRAILER payload: totals, run end, indexes.
 *
 * Responsibility: encode and decode the trailer's TLV items (totals,
 * per-event totals, per-event counted totals, run end, frame index,
 * section index). Unknown tags are
 * skipped; known tags must have exactly their documented length. The
 * frame-index entries are only decoded here: reader.c checks each against
 * the block it points to.
 * Ownership: struct tdr_trailer owns its arrays (tdr_trailer__release).
 * Invariants: an index of n entries is allocated only after its item length
 * was checked to hold n entries, so allocation never exceeds the payload.
 * See: docs/format.md sections 8 and 8.1.
 */
#define LOG_PREFIX "format: "
#include "format_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* Put an item of the shape "u32 count, u32 0, count entries". */
static uint8_t *put_list(struct tdr_buf *b, uint32_t tag, size_t cnt, size_t entry_sz)
{
	size_t len = 8 + cnt * entry_sz;
	uint8_t *p;

	if (cnt > UINT32_MAX || len > UINT32_MAX) {
		if (!b->err)
			b->err = -TDR_E_LIMIT;
		return NULL;
	}
	p = tdr_buf__put(b, TDR_TLV_HDR_SZ + len);
	if (!p)
		return NULL;
	memset(p, 0, TDR_TLV_HDR_SZ + len);
	tdr_put_le32(p, tag);
	tdr_put_le32(p + 4, (uint32_t)len);
	tdr_put_le32(p + 8, (uint32_t)cnt);
	return p + 16;
}

/* Section 8.1: COUNTED, only when at least one event has its count. */
static void put_counted(struct tdr_buf *b, const struct tdr_totals *tot)
{
	bool any = false;
	uint8_t *p;

	for (size_t i = 0; tot->events && i < tot->event_cnt; i++)
		any |= tot->events[i].has_counted;
	if (!any)
		return;
	p = put_list(b, TDR_TT_COUNTED, tot->event_cnt, TDR_COUNTED_ENTRY_SZ);
	for (size_t i = 0; p && i < tot->event_cnt; i++, p += TDR_COUNTED_ENTRY_SZ) {
		const struct tdr_event_totals *e = &tot->events[i];

		if (!e->has_counted)
			continue; /* all zero: flags bit 0 clear, "unknown" */
		tdr_put_le64(p, e->counted);
		tdr_put_le64(p + 8, e->time_enabled_ns);
		tdr_put_le64(p + 16, e->time_running_ns);
		tdr_put_le32(p + 24, TDR_COUNTED_KNOWN);
	}
}

void tdr_trailer__encode(struct tdr_buf *b, const struct tdr_trailer *t)
{
	const struct tdr_totals *tot = &t->totals;
	uint8_t v[TDR_TOTALS_SZ];
	uint8_t *p;

	if (t->has_totals) {
		const uint64_t f[9] = { tot->frames,	   tot->records,      tot->samples,
					tot->lost_records, tot->lost_samples, tot->throttles,
					tot->unthrottles,  tot->raw_bytes,    tot->compressed_bytes };

		for (size_t i = 0; i < 9; i++)
			tdr_put_le64(v + 8 * i, f[i]);
		tdr_buf__tlv(b, TDR_TT_TOTALS, v, TDR_TOTALS_SZ);
		if (tot->event_cnt > TDR_MAX_EVENTS) {
			if (!b->err)
				b->err = -TDR_E_LIMIT;
			return;
		}
		p = put_list(b, TDR_TT_EVENT_TOTALS, tot->events ? tot->event_cnt : 0, 16);
		for (size_t i = 0; p && tot->events && i < tot->event_cnt; i++, p += 16) {
			tdr_put_le64(p, tot->events[i].samples);
			tdr_put_le64(p + 8, tot->events[i].lost_samples);
		}
		put_counted(b, tot);
	}
	if (t->has_end) {
		memset(v, 0, TDR_RUN_END_SZ);
		tdr_put_le64(v, t->end.duration_ns);
		tdr_put_le32(v + 8, (uint32_t)t->end.exit_code);
		tdr_put_le32(v + 12, (uint32_t)t->end.term_signal);
		tdr_put_le32(v + 16, t->end.flags);
		tdr_buf__tlv(b, TDR_TT_RUN_END, v, TDR_RUN_END_SZ);
	}
	p = put_list(b, TDR_TT_FRAME_INDEX, t->frame_cnt, TDR_FRAME_ENTRY_SZ);
	for (size_t i = 0; p && i < t->frame_cnt; i++, p += TDR_FRAME_ENTRY_SZ) {
		const struct tdr_frame_info *fi = &t->frames[i];

		tdr_put_le64(p, fi->offset);
		tdr_put_le32(p + 8, fi->ring);
		tdr_put_le32(p + 12, fi->raw_sz);
		tdr_put_le32(p + 16, fi->comp_sz);
		tdr_put_le32(p + 20, fi->record_cnt);
		p[24] = fi->codec; /* bytes 25..31 stay zero */
	}
	p = put_list(b, TDR_TT_SECTION_INDEX, t->section_cnt, TDR_SECTION_ENTRY_SZ);
	for (size_t i = 0; p && i < t->section_cnt; i++, p += TDR_SECTION_ENTRY_SZ) {
		tdr_put_le64(p, t->sections[i].offset);
		tdr_put_le32(p + 8, t->sections[i].type);
	}
}

void tdr_trailer__release(struct tdr_trailer *t)
{
	zfree(&t->totals.events);
	zfree(&t->frames);
	zfree(&t->sections);
	memset(t, 0, sizeof(*t));
}

/* Check a "u32 count, u32 0, count entries" item; returns the count or a
 * negative code. */
static int64_t get_list(const uint8_t *val, size_t len, size_t entry_sz, size_t max)
{
	uint32_t n;

	TDR_BAIL_IF(len < 8, -TDR_E_CORRUPT, "list item of %zu bytes", len);
	n = tdr_get_le32(val);
	TDR_BAIL_IF(n > max, -TDR_E_LIMIT, "list of %u entries", n);
	TDR_BAIL_IF((len - 8) / entry_sz != n || (len - 8) % entry_sz, -TDR_E_CORRUPT,
		    "list of %u entries in %zu bytes", n, len);
	return n;
}

static int get_totals(struct tdr_trailer *t, const uint8_t *val, size_t len)
{
	struct tdr_totals *tot = &t->totals;
	uint64_t *f[9] = { &tot->frames,	&tot->records,	    &tot->samples,
			   &tot->lost_records,	&tot->lost_samples, &tot->throttles,
			   &tot->unthrottles,	&tot->raw_bytes,    &tot->compressed_bytes };

	TDR_BAIL_IF(len != TDR_TOTALS_SZ, -TDR_E_CORRUPT, "totals of %zu bytes", len);
	for (size_t i = 0; i < 9; i++)
		*f[i] = tdr_get_le64(val + 8 * i);
	t->has_totals = true;
	return 0;
}

/* Per-event entries for n events: EVENT_TOTALS and COUNTED fill the same
 * array, in either order and with either count (the longer one wins; the
 * fields the other item would give stay zero). */
static int ensure_events(struct tdr_trailer *t, size_t n)
{
	struct tdr_event_totals *ev;

	if (n <= t->totals.event_cnt)
		return 0;
	ev = tdr_calloc(n, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	if (t->totals.event_cnt)
		memcpy(ev, t->totals.events, t->totals.event_cnt * sizeof(*ev));
	free(t->totals.events);
	t->totals.events = ev;
	t->totals.event_cnt = n;
	return 0;
}

static int get_event_totals(struct tdr_trailer *t, const uint8_t *val, size_t len)
{
	int64_t n = get_list(val, len, 16, TDR_MAX_EVENTS);
	int err;

	if (n < 0)
		return (int)n;
	TDR_BAIL_IF(t->has_ev_totals, -TDR_E_CORRUPT, "two event totals items");
	t->has_ev_totals = true;
	err = ensure_events(t, (size_t)n);
	if (err)
		return err;
	val += 8;
	for (int64_t i = 0; i < n; i++, val += 16) {
		t->totals.events[i].samples = tdr_get_le64(val);
		t->totals.events[i].lost_samples = tdr_get_le64(val + 8);
	}
	return 0;
}

static int get_counted(struct tdr_trailer *t, const uint8_t *val, size_t len)
{
	int64_t n = get_list(val, len, TDR_COUNTED_ENTRY_SZ, TDR_MAX_EVENTS);
	int err;

	if (n < 0)
		return (int)n;
	TDR_BAIL_IF(t->has_counted, -TDR_E_CORRUPT, "two counted items");
	t->has_counted = true;
	err = ensure_events(t, (size_t)n);
	if (err)
		return err;
	val += 8;
	for (int64_t i = 0; i < n; i++, val += TDR_COUNTED_ENTRY_SZ) {
		struct tdr_event_totals *e = &t->totals.events[i];

		/* Flag bits other than KNOWN are reserved: ignored. */
		if (!(tdr_get_le32(val + 24) & TDR_COUNTED_KNOWN))
			continue;
		e->has_counted = true;
		e->counted = tdr_get_le64(val);
		e->time_enabled_ns = tdr_get_le64(val + 8);
		e->time_running_ns = tdr_get_le64(val + 16);
	}
	return 0;
}

static int get_run_end(struct tdr_trailer *t, const uint8_t *val, size_t len)
{
	TDR_BAIL_IF(len != TDR_RUN_END_SZ, -TDR_E_CORRUPT, "run end of %zu bytes", len);
	t->end.duration_ns = tdr_get_le64(val);
	t->end.exit_code = (int32_t)tdr_get_le32(val + 8);
	t->end.term_signal = (int32_t)tdr_get_le32(val + 12);
	t->end.flags = tdr_get_le32(val + 16);
	t->has_end = true;
	return 0;
}

static int get_frame_index(struct tdr_trailer *t, const uint8_t *val, size_t len)
{
	int64_t n = get_list(val, len, TDR_FRAME_ENTRY_SZ, UINT32_MAX);

	if (n < 0)
		return (int)n;
	TDR_BAIL_IF(t->frames, -TDR_E_CORRUPT, "two frame indexes");
	if (!n)
		return 0;
	/* n entries were checked to be present in len bytes. */
	t->frames = tdr_calloc((size_t)n, sizeof(*t->frames));
	if (!t->frames)
		return -ENOMEM;
	t->frame_cnt = (size_t)n;
	val += 8;
	for (int64_t i = 0; i < n; i++, val += TDR_FRAME_ENTRY_SZ) {
		struct tdr_frame_info *fi = &t->frames[i];

		fi->offset = tdr_get_le64(val);
		fi->ring = tdr_get_le32(val + 8);
		fi->raw_sz = tdr_get_le32(val + 12);
		fi->comp_sz = tdr_get_le32(val + 16);
		fi->record_cnt = tdr_get_le32(val + 20);
		fi->codec = val[24];
	}
	return 0;
}

static int get_section_index(struct tdr_trailer *t, const uint8_t *val, size_t len)
{
	int64_t n = get_list(val, len, TDR_SECTION_ENTRY_SZ, UINT32_MAX);

	if (n < 0)
		return (int)n;
	TDR_BAIL_IF(t->sections, -TDR_E_CORRUPT, "two section indexes");
	if (!n)
		return 0;
	t->sections = tdr_calloc((size_t)n, sizeof(*t->sections));
	if (!t->sections)
		return -ENOMEM;
	t->section_cnt = (size_t)n;
	val += 8;
	for (int64_t i = 0; i < n; i++, val += TDR_SECTION_ENTRY_SZ) {
		t->sections[i].offset = tdr_get_le64(val);
		t->sections[i].type = tdr_get_le32(val + 8);
	}
	return 0;
}

int tdr_trailer__decode(const uint8_t *data, size_t sz, struct tdr_trailer *t)
{
	struct tdr_tlv_iter it = { .data = data, .sz = sz };
	const uint8_t *val;
	uint32_t tag;
	size_t len;
	int err;

	memset(t, 0, sizeof(*t));
	while ((err = tdr_tlv__next(&it, &tag, &val, &len)) > 0) {
		err = 0; /* for tags that set nothing */
		switch (tag) {
		case TDR_TT_TOTALS:
			err = get_totals(t, val, len);
			break;
		case TDR_TT_EVENT_TOTALS:
			err = get_event_totals(t, val, len);
			break;
		case TDR_TT_COUNTED:
			err = get_counted(t, val, len);
			break;
		case TDR_TT_RUN_END:
			err = get_run_end(t, val, len);
			break;
		case TDR_TT_FRAME_INDEX:
			err = get_frame_index(t, val, len);
			break;
		case TDR_TT_SECTION_INDEX:
			err = get_section_index(t, val, len);
			break;
		default:
			break; /* a newer minor's item */
		}
		if (err)
			break;
	}
	if (err)
		tdr_trailer__release(t);
	return err;
}
