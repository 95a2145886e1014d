/*
 * parser/preload.c - load .tdr frames on a helper thread, ahead of the merge.
 *
 * Responsibility: while the parser works through the current frame of a
 * ring, the next frame of that ring is checked, decompressed and decoded
 * (tdr_reader__load_frame) on one helper thread, so on a machine with two
 * or more CPUs loading overlaps parsing. Each ring has one slot: at most one
 * job in flight, into the ring's spare buffer. Jobs run in the order they
 * were submitted.
 * Objects and lifecycle: tdr_parser_preload__new -> (__submit -> __wait) per frame ->
 * __free (waits for a running job, then joins the thread).
 * Ownership and threads: the parser's thread submits and waits; the helper
 * only loads into the buffer it was given, which the parser does not touch
 * until __wait returns. The reader is immutable after open, so loading on
 * another thread is safe (format.h). The helper never logs above debug
 * level; run.c does not start it when debug messages are on.
 * See: run.c (the merge); format.h (tdr_reader__load_frame).
 */
#include "parser_int.h"

#include <errno.h>
#include <pthread.h>

#include "tdrec/tdr_mem.h"

enum slot_state { SLOT_IDLE, SLOT_QUEUED, SLOT_DONE };

struct preload_slot {
	enum slot_state state;
	size_t frame;
	struct tdr_frame_buf *buf;
	int err;
};

struct preload {
	const struct tdr_reader *reader;
	pthread_t thread;
	bool started, stopping;
	pthread_mutex_t mu;
	pthread_cond_t work; /* a job was queued, or stop */
	pthread_cond_t done; /* a job finished */
	struct preload_slot *slots;
	size_t slot_cnt;
	size_t *queue; /* slot indexes, FIFO; at most one entry per slot */
	size_t q_head, q_cnt;
};

static void *preload_main(void *arg)
{
	struct preload *pl = arg;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		struct preload_slot *s;
		size_t idx;
		int err;

		while (!pl->q_cnt && !pl->stopping)
			pthread_cond_wait(&pl->work, &pl->mu);
		if (pl->stopping)
			break;
		idx = pl->queue[pl->q_head];
		pl->q_head = (pl->q_head + 1) % pl->slot_cnt;
		pl->q_cnt--;
		s = &pl->slots[idx];
		pthread_mutex_unlock(&pl->mu);

		err = tdr_reader__load_frame(pl->reader, s->frame, s->buf);

		pthread_mutex_lock(&pl->mu);
		s->err = err;
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&pl->done);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

int tdr_parser_preload__new(const struct tdr_reader *r, size_t slot_cnt, struct preload **out)
{
	struct preload *pl;
	int err;

	if (!slot_cnt)
		return -EINVAL;
	pl = tdr_calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	pl->reader = r;
	pl->slot_cnt = slot_cnt;
	pl->slots = tdr_calloc(slot_cnt, sizeof(*pl->slots));
	pl->queue = tdr_calloc(slot_cnt, sizeof(*pl->queue));
	pthread_mutex_init(&pl->mu, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->done, NULL);
	if (!pl->slots || !pl->queue) {
		tdr_parser_preload__free(pl);
		return -ENOMEM;
	}
	err = -pthread_create(&pl->thread, NULL, preload_main, pl);
	if (err) {
		tdr_parser_preload__free(pl);
		return err;
	}
	pl->started = true;
	*out = pl;
	return 0;
}

void tdr_parser_preload__submit(struct preload *pl, size_t slot, size_t frame,
				struct tdr_frame_buf *buf)
{
	struct preload_slot *s = &pl->slots[slot];

	pthread_mutex_lock(&pl->mu);
	s->frame = frame;
	s->buf = buf;
	s->err = 0;
	s->state = SLOT_QUEUED;
	pl->queue[(pl->q_head + pl->q_cnt) % pl->slot_cnt] = slot;
	pl->q_cnt++;
	pthread_cond_signal(&pl->work);
	pthread_mutex_unlock(&pl->mu);
}

int tdr_parser_preload__wait(struct preload *pl, size_t slot)
{
	struct preload_slot *s = &pl->slots[slot];
	int err;

	pthread_mutex_lock(&pl->mu);
	while (s->state == SLOT_QUEUED)
		pthread_cond_wait(&pl->done, &pl->mu);
	err = s->state == SLOT_DONE ? s->err : -EINVAL;
	s->state = SLOT_IDLE;
	pthread_mutex_unlock(&pl->mu);
	return err;
}

void tdr_parser_preload__free(struct preload *pl)
{
	if (!pl)
		return;
	if (pl->started) {
		/* A job being loaded finishes first; queued ones are dropped. */
		pthread_mutex_lock(&pl->mu);
		pl->stopping = true;
		pthread_cond_signal(&pl->work);
		pthread_mutex_unlock(&pl->mu);
		pthread_join(pl->thread, NULL);
	}
	pthread_cond_destroy(&pl->done);
	pthread_cond_destroy(&pl->work);
	pthread_mutex_destroy(&pl->mu);
	free(pl->slots);
	free(pl->queue);
	free(pl);
}
