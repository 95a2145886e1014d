/*
 * format/records.c - walk the kernel record headers of a buffer.
 *
 * Responsibility: bounds-checked iteration over a run of perf records
 * (struct perf_event_header + body), as drained from a ring or loaded from a
 * frame. Only the header is looked at; bodies are parser/'s business.
 * Objects and lifecycle: struct tdr_record_iter is caller-owned plain data.
 * Invariants: a record is accepted only when 8 <= size and it ends within
 * the buffer, so a caller can read h->size bytes at h without checks.
 * See: docs/format.md section 6 (frame payload); perf_event_open(2),
 * "MMAP layout" (struct perf_event_header).
 */
#include "tdrec/format.h"

#include "tdrec/tdr_err.h"

int tdr_records__next(struct tdr_record_iter *it, const struct perf_event_header **hdr)
{
	const struct perf_event_header *h;

	if (it->pos >= it->sz)
		return it->pos == it->sz ? 0 : -TDR_E_CORRUPT;
	if (it->sz - it->pos < sizeof(*h))
		return -TDR_E_CORRUPT;
	/* Records are host-endian (kernel ABI) and 8-byte aligned when the
	 * buffer is: the kernel pads every record to a multiple of 8. */
	h = (const struct perf_event_header *)(it->data + it->pos);
	if (h->size < sizeof(*h) || h->size > it->sz - it->pos)
		return -TDR_E_CORRUPT;
	it->pos += h->size;
	*hdr = h;
	return 1;
}
