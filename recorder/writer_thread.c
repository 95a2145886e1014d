/*
 * recorder/writer_thread.c - the thread that turns filled chunks into frames.
 *
 * Responsibility: a pool of chunk buffers, a FIFO of filled chunks and one
 * thread that hands each to the frame sink (tdr_writer__add_frame, which
 * compresses and writes). The drain loop only ever takes a free chunk or
 * queues a full one, both O(1) under a mutex, so draining never waits on
 * compression or disk. When the pool is exhausted the drainer gets NULL and
 * leaves the ring alone; the kernel then drops and counts (PERF_RECORD_LOST).
 * Objects and lifecycle: tdr_wthread__new -> __get / __submit / __put
 * (repeat) -> __stop -> __free.
 * Ownership and threads: exactly one producer (the drain loop) and the
 * thread; a chunk belongs to whoever holds it: pool, drainer, queue, thread.
 * Invariants: chunks leave the queue in submission order, so one ring's
 * frames are written in the order its records were drained. After the
 * sink's first error no further frame is written (the file stays readable
 * up to the last good frame); chunks are dropped and counted.
 * See: docs/record.md "What happens on errors".
 */
#include "recorder_int.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

struct tdr_wthread {
	struct tdr_wthread_opts opts;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct tdr_chunk *q_head, *q_tail; /* filled, in order */
	struct tdr_chunk *free_list;
	size_t chunk_cnt; /* allocated so far */
	bool stopping;
	bool running; /* the thread has started (and set its nice) */
	int err;	  /* first sink error (atomic access) */
	uint64_t dropped; /* bytes not written after an error (atomic access) */
	int wake_fd;	  /* eventfd: a chunk came back */
};

static void *wthread_main(void *arg)
{
	struct tdr_wthread *w = arg;
	struct tdr_chunk *c;
	uint64_t one = 1;
	int err;

	if (w->opts.set_nice && tdr_record__set_own_nice(w->opts.nice))
		tdr_debug("writer thread keeps its creator's nice: %s", strerror(errno));
	pthread_mutex_lock(&w->mu);
	w->running = true;
	pthread_cond_broadcast(&w->cv);
	for (;;) {
		while (!w->q_head && !w->stopping)
			pthread_cond_wait(&w->cv, &w->mu);
		c = w->q_head;
		if (!c)
			break; /* stopping, and nothing left */
		w->q_head = c->next;
		if (!w->q_head)
			w->q_tail = NULL;
		pthread_mutex_unlock(&w->mu);

		/* Compression and write happen outside the lock: the drainer
		 * keeps queueing meanwhile. */
		if (__atomic_load_n(&w->err, __ATOMIC_ACQUIRE)) {
			__atomic_fetch_add(&w->dropped, c->sz, __ATOMIC_RELAXED);
		} else {
			err = w->opts.sink(w->opts.ctx, c->ring, c->data, c->sz);
			if (err) {
				__atomic_store_n(&w->err, err, __ATOMIC_RELEASE);
				__atomic_fetch_add(&w->dropped, c->sz, __ATOMIC_RELAXED);
			}
		}

		pthread_mutex_lock(&w->mu);
		c->sz = 0;
		c->next = w->free_list;
		w->free_list = c;
		/* Wake a drain loop that may be waiting for a free chunk; a
		 * failed write only means a wakeup is already pending. */
		if (write(w->wake_fd, &one, sizeof(one)) < 0) {
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int tdr_wthread__new(const struct tdr_wthread_opts *opts, struct tdr_wthread **out)
{
	struct tdr_wthread *w;
	int err;

	if (!opts->sink || opts->chunk_sz < 64 || opts->max_chunks < 2)
		return -EINVAL;
	w = tdr_calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->opts = *opts;
	w->wake_fd = -1;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->wake_fd < 0) {
		err = -errno;
		goto err_out;
	}
	err = -pthread_create(&w->thread, NULL, wthread_main, w);
	if (err)
		goto err_out;
	w->started = true;
	/* Return once the thread runs at its own nice: nobody looking at the
	 * process afterwards sees it at its creator's. */
	pthread_mutex_lock(&w->mu);
	while (!w->running)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	*out = w;
	return 0;
err_out:
	tdr_wthread__free(w);
	return err;
}

struct tdr_chunk *tdr_wthread__get(struct tdr_wthread *w)
{
	struct tdr_chunk *c;

	pthread_mutex_lock(&w->mu);
	c = w->free_list;
	if (c) {
		w->free_list = c->next;
	} else if (w->chunk_cnt < w->opts.max_chunks) {
		/* Grow the pool: at most max_chunks times per run, never per
		 * record. */
		c = tdr_malloc(sizeof(*c) + w->opts.chunk_sz);
		if (c) {
			c->cap = w->opts.chunk_sz;
			w->chunk_cnt++;
		}
	}
	pthread_mutex_unlock(&w->mu);
	if (c) {
		c->next = NULL;
		c->sz = 0;
	}
	return c;
}

void tdr_wthread__put(struct tdr_wthread *w, struct tdr_chunk *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&w->mu);
	c->sz = 0;
	c->next = w->free_list;
	w->free_list = c;
	pthread_mutex_unlock(&w->mu);
}

void tdr_wthread__submit(struct tdr_wthread *w, struct tdr_chunk *c)
{
	if (!c->sz) {
		tdr_wthread__put(w, c);
		return;
	}
	pthread_mutex_lock(&w->mu);
	c->next = NULL;
	if (w->q_tail)
		w->q_tail->next = c;
	else
		w->q_head = c;
	w->q_tail = c;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

int tdr_wthread__wake_fd(const struct tdr_wthread *w)
{
	return w->wake_fd;
}

void tdr_wthread__clear_wake(struct tdr_wthread *w)
{
	uint64_t v;

	if (read(w->wake_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nothing pending */
	}
}

int tdr_wthread__error(const struct tdr_wthread *w)
{
	return __atomic_load_n(&w->err, __ATOMIC_ACQUIRE);
}

uint64_t tdr_wthread__dropped(const struct tdr_wthread *w)
{
	return __atomic_load_n(&w->dropped, __ATOMIC_RELAXED);
}

int tdr_wthread__stop(struct tdr_wthread *w)
{
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->stopping = true;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	return tdr_wthread__error(w);
}

void tdr_wthread__free(struct tdr_wthread *w)
{
	struct tdr_chunk *c;

	if (!w)
		return;
	tdr_wthread__stop(w);
	while ((c = w->free_list)) {
		w->free_list = c->next;
		free(c);
	}
	while ((c = w->q_head)) { /* only if the thread never started */
		w->q_head = c->next;
		free(c);
	}
	zclose(w->wake_fd);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
