/*
 * recorder/drain.c - from rings to chunks for the writer thread.
 *
 * Responsibility: each ring has a current chunk; draining copies the ring's
 * records into it, and a full chunk is queued to the writer thread and
 * replaced by a free one. tdr_drain__flush queues partly filled chunks (the
 * recorder calls it at least every TDR_RECORD_FLUSH_MS, and at the end).
 * It never blocks and never allocates per record: when the pool has no free
 * chunk, the ring is marked starved and left for the kernel to fill; the
 * next call (after the writer thread's wake fd fires) carries on.
 * Objects and lifecycle: tdr_drain__init -> __all / __flush (repeat) ->
 * __flush -> __release.
 * Ownership and threads: the drain loop's thread only. Rings and the writer
 * thread are borrowed; current chunks are owned until queued.
 * See: writer_thread.c; ring.c.
 */
#include "recorder_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

int tdr_drain__init(struct tdr_drain *d, struct tdr_wthread *wt, struct tdr_ring **rings,
		    size_t ring_cnt)
{
	memset(d, 0, sizeof(*d));
	d->wt = wt;
	if (!ring_cnt)
		return 0;
	d->rings = tdr_calloc(ring_cnt, sizeof(*d->rings));
	if (!d->rings)
		return -ENOMEM;
	d->ring_cnt = ring_cnt;
	for (size_t i = 0; i < ring_cnt; i++) {
		d->rings[i].ring = rings[i];
		d->rings[i].ring_id = rings[i]->cpu >= 0 ? (uint32_t)rings[i]->cpu : (uint32_t)i;
	}
	return 0;
}

/* Drain one ring until it is empty or no chunk is left. */
static uint64_t drain_ring(struct tdr_drain *d, struct tdr_drain_ring *dr)
{
	uint64_t moved = 0;
	size_t copied;
	int more;

	dr->starved = false;
	for (;;) {
		if (!dr->cur) {
			if (!tdr_ring__pending(dr->ring))
				break;
			dr->cur = tdr_wthread__get(d->wt);
			if (!dr->cur) {
				dr->starved = true;
				d->starved_cnt++;
				break;
			}
			dr->cur->ring = dr->ring_id;
		}
		more = tdr_ring__read(dr->ring, dr->cur->data + dr->cur->sz,
				      dr->cur->cap - dr->cur->sz, &copied);
		if (more && !copied && !dr->cur->sz) {
			/* Larger than a whole chunk: it can never be written
			 * (chunks are sized above the 64 KiB record limit, so
			 * only a broken ring gets here). Drop it, or the ring
			 * stalls. */
			tdr_ring__skip(dr->ring);
			continue;
		}
		dr->cur->sz += copied;
		moved += copied;
		if (!more)
			break;
		/* The chunk is full (the next record does not fit): hand it
		 * over and continue with a fresh one. */
		tdr_wthread__submit(d->wt, dr->cur);
		dr->cur = NULL;
	}
	return moved;
}

uint64_t tdr_drain__all(struct tdr_drain *d)
{
	uint64_t moved = 0;

	for (size_t i = 0; i < d->ring_cnt; i++)
		moved += drain_ring(d, &d->rings[i]);
	return moved;
}

void tdr_drain__flush(struct tdr_drain *d)
{
	for (size_t i = 0; i < d->ring_cnt; i++) {
		struct tdr_drain_ring *dr = &d->rings[i];

		if (dr->cur && dr->cur->sz) {
			tdr_wthread__submit(d->wt, dr->cur);
			dr->cur = NULL;
		}
	}
}

bool tdr_drain__starved(const struct tdr_drain *d)
{
	for (size_t i = 0; i < d->ring_cnt; i++)
		if (d->rings[i].starved)
			return true;
	return false;
}

void tdr_drain__release(struct tdr_drain *d)
{
	for (size_t i = 0; i < d->ring_cnt; i++) {
		if (d->rings[i].cur)
			tdr_wthread__put(d->wt, d->rings[i].cur);
		d->rings[i].cur = NULL;
	}
	zfree(&d->rings);
	d->ring_cnt = 0;
}
