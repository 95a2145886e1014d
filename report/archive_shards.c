/*
 * report/archive_shards.c - the archiving step's lookups, shared between
 * this process and forked workers.
 *
 * Responsibility: tdr_report_archive_lookup (report_int.h). With one job,
 * every address is looked up here, in lookup order. With more, each file's
 * addresses are first put in the order of their compile units (a unit's
 * code can lie in several places of the file: hot and cold parts), which
 * opens the files and reads their lists of units here; the work is then a
 * list of items, one per unit (and one per file without units, and the
 * kernel's), costliest first by the unit's size. This process and its
 * children, forked now, take the next item from a counter in shared
 * memory until none is left, so that no unit's line table and DIEs (the
 * cost of a lookup) are read twice and an item that costs more than its
 * size said holds up nobody. Children, not threads: libdw's handles are
 * not safe to share between threads, and a forked child shares, copy on
 * write, what the symbolizer has read so far instead of reading it again
 * (on glibc's libc, its list of 3,000 units is 40% of the step). A child
 * writes its answers and its messages into a memory file and exits; its
 * answers are read back, its messages shown with this process's, each
 * once. An address a child took but gave no answer for (it could not
 * start, failed or died) is looked up here afterwards: the answers are
 * the same, only later.
 * Ownership: answers borrow their strings from the symbolizer or from the
 * read-back buffers of struct tdr_report_arch_answers, freed together.
 */
#include "report_int.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "report: "
#include "tdrec/tdr_log.h"

/* The answer file of a child: "TDRSHRD1", then its answers, its messages
 * and the same mark again at the end (a child that died midway has none). */
#define SHARD_MAGIC 0x3144524853524454ull

/* Deeper inline chains than this in a child's answer mean a bad file. */
#define SHARD_MAX_INLINES 4096

/* What a lookup costs beyond reading its unit, in bytes of .debug_info
 * (measured: about 1 us a lookup, 20 ns a byte of a unit read). */
#define ADDR_COST 64

/* Less estimated work than this (about 20 ms) does not pay for a worker:
 * forking it, its copy-on-write faults and its exit cost about 2 ms. */
#define WORKER_MIN_COST 1000000

/* One item of work: order[start, end), one unit (or a file without units,
 * or the kernel), and its estimated cost. */
struct item {
	size_t start, end;
	uint64_t cost;
};

/* The work, as every worker sees it. */
struct work {
	const struct tdr_report_symbols *syms;
	const struct tdr_report_arch_addr *ents;
	size_t ent_cnt;
	const struct tdr_report_addr_order *order;
	const struct item *items;
	size_t item_cnt;
	size_t *next; /* the next item to take: in memory shared by all */
	struct tdr_sym *answers; /* [entry index] */
	bool *done;		 /* [entry index]: answered (this process) */
};

/* Look order[0 .. cnt) up into answers, telling the symbolizer first
 * when hint (it was not told of them yet). */
static int look_up(const struct tdr_report_symbols *syms, const struct tdr_report_arch_addr *ents,
		   const struct tdr_report_addr_order *o, size_t cnt, bool hint,
		   struct tdr_sym *answers)
{
	int err = hint ? tdr_report_expect(syms, o, cnt, tdr_report_arch_addr_is_file, ents) : 0;

	for (size_t i = 0; !err && i < cnt; i++) {
		const struct tdr_report_arch_addr *e = &ents[o[i].idx];
		struct tdr_sym *sym = &answers[o[i].idx];

		*sym = (struct tdr_sym){.status = TDR_SYM_MISSING};
		if (e->kernel) {
			err = syms->lookup_kernel(syms->ctx, e->off, sym);
			if (!err && sym->status == TDR_SYM_MISSING)
				sym->status = TDR_SYM_NO_KERNEL;
		} else {
			struct tdr_dso_ref ref = tdr_report_dso_ref(e->map->path, e->map);

			err = syms->lookup(syms->ctx, &ref, e->off, sym);
		}
	}
	return err;
}

/* Take items until none is left; each answered entry is marked in
 * w->done. Returns 0 or a lookup's error (then takes no more). */
static int take_items(const struct work *w)
{
	for (;;) {
		size_t it = __atomic_fetch_add(w->next, 1, __ATOMIC_RELAXED);
		const struct item *item;
		int err;

		if (it >= w->item_cnt)
			return 0;
		item = &w->items[it];
		err = look_up(w->syms, w->ents, w->order + item->start, item->end - item->start,
			      false, w->answers);
		if (err)
			return err;
		for (size_t i = item->start; i < item->end; i++)
			w->done[w->order[i].idx] = true;
	}
}

/* ---- a child's answer file ---------------------------------------------- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct wbuf *b, const void *src, size_t n)
{
	if (!n)
		return; /* src may be NULL then (no messages) */
	if (b->oom || tdr_ensure_cap(&b->p, &b->cap, 1, b->len + n)) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_u32(struct wbuf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

static void put_u64(struct wbuf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

/* Length (UINT32_MAX: NULL), then the bytes and their NUL. */
static void put_str(struct wbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= UINT32_MAX) {
		b->oom = true;
		return;
	}
	put_u32(b, s ? (uint32_t)n : UINT32_MAX);
	if (s)
		put(b, s, n + 1);
}

static void put_answer(struct wbuf *b, uint32_t idx, const struct tdr_sym *s)
{
	put_u32(b, idx);
	put_u32(b, (uint32_t)s->status);
	put_u64(b, s->function_offset);
	put_u64(b, s->function_size);
	put_u32(b, s->line);
	put_u32(b, s->column);
	put_u32(b, s->inline_cnt < SHARD_MAX_INLINES ? (uint32_t)s->inline_cnt : SHARD_MAX_INLINES);
	put_str(b, s->function);
	put_str(b, s->file);
	for (size_t i = 0; i < s->inline_cnt && i < SHARD_MAX_INLINES; i++) {
		put_str(b, s->inlines[i].function);
		put_str(b, s->inlines[i].call_file);
		put_u32(b, s->inlines[i].call_line);
		put_u32(b, s->inlines[i].call_column);
	}
}

static bool write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* A child: take items, write the answers and messages to fd, exit (never
 * returns; exit status 0 when the file is complete). */
static void __attribute__((noreturn)) child_run(const struct work *w, int fd)
{
	struct tdr_log_capture log = {0};
	struct wbuf b = {0};
	size_t cnt = 0;

	tdr_log_capture__start(&log);
	/* Only this child's answers are marked from here on. */
	memset(w->done, 0, w->ent_cnt * sizeof(*w->done));
	if (take_items(w))
		_exit(1);
	tdr_log_capture__stop();
	for (size_t i = 0; i < w->ent_cnt; i++)
		cnt += w->done[i];
	put_u64(&b, SHARD_MAGIC);
	put_u64(&b, cnt);
	for (size_t i = 0; i < w->ent_cnt; i++)
		if (w->done[i])
			put_answer(&b, (uint32_t)i, &w->answers[i]);
	put_u64(&b, log.len);
	put(&b, log.buf, log.len);
	put_u64(&b, log.lost);
	put_u64(&b, SHARD_MAGIC);
	/* _exit: none of the parent's exit handlers, buffers or files. */
	_exit(!b.oom && write_all(fd, b.p, b.len) ? 0 : 1);
}

struct rbuf {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

static const void *take(struct rbuf *r, size_t n)
{
	const void *q;

	if (r->bad || r->len - r->at < n) {
		r->bad = true;
		return NULL;
	}
	q = r->p + r->at;
	r->at += n;
	return q;
}

/* The next n bytes into v (zeros past the end). */
static void get(struct rbuf *r, void *v, size_t n)
{
	const void *q = take(r, n);

	if (q)
		memcpy(v, q, n);
	else
		memset(v, 0, n);
}

static uint32_t get_u32(struct rbuf *r)
{
	uint32_t v;

	get(r, &v, sizeof(v));
	return v;
}

static uint64_t get_u64(struct rbuf *r)
{
	uint64_t v;

	get(r, &v, sizeof(v));
	return v;
}

static const char *get_str(struct rbuf *r)
{
	uint32_t n = get_u32(r);
	const char *s;

	if (r->bad || n == UINT32_MAX)
		return NULL;
	s = take(r, (size_t)n + 1);
	if (s && s[n] != '\0')
		r->bad = true;
	return r->bad ? NULL : s;
}

/* A child's answers (strings into r's buffer, inline frames into out's
 * arena) into out and w->done, its messages into *log. False when the file
 * is not complete; answers taken before that stay (they are whole). */
static bool read_answers(struct rbuf *r, const struct work *w, struct tdr_report_arch_answers *out,
			 struct tdr_log_capture *log, uint64_t *answered)
{
	uint64_t cnt, log_len;
	const void *log_buf;

	if (get_u64(r) != SHARD_MAGIC)
		return false;
	cnt = get_u64(r);
	for (uint64_t i = 0; i < cnt && !r->bad; i++) {
		uint32_t idx = get_u32(r);
		struct tdr_sym s = {.status = (enum tdr_sym_status)get_u32(r)};
		struct tdr_inline_frame *fr = NULL;

		s.function_offset = get_u64(r);
		s.function_size = get_u64(r);
		s.line = get_u32(r);
		s.column = get_u32(r);
		s.inline_cnt = get_u32(r);
		s.function = get_str(r);
		s.file = get_str(r);
		if (r->bad || idx >= w->ent_cnt || w->done[idx] || s.inline_cnt > SHARD_MAX_INLINES)
			return false;
		if (s.inline_cnt &&
		    !(fr = tdr_arena__alloc(&out->frames, s.inline_cnt * sizeof(*fr))))
			return false;
		for (size_t k = 0; k < s.inline_cnt; k++) {
			fr[k].function = get_str(r);
			fr[k].call_file = get_str(r);
			fr[k].call_line = get_u32(r);
			fr[k].call_column = get_u32(r);
		}
		if (r->bad)
			return false;
		s.inlines = fr;
		out->sym[idx] = s;
		w->done[idx] = true;
		++*answered;
	}
	log_len = get_u64(r);
	log_buf = take(r, log_len);
	if (r->bad || (log_len && tdr_ensure_cap(&log->buf, &log->cap, 1, log_len)))
		return false;
	if (log_len)
		memcpy(log->buf, log_buf, log_len);
	log->len = log_len;
	log->lost = get_u64(r);
	return get_u64(r) == SHARD_MAGIC && !r->bad && r->at == r->len;
}

/* A child, as started. */
struct child {
	pid_t pid;
	int fd; /* its answer file */
};

/* Wait for c and take its answers (how many into *answered); false when
 * some may be missing. */
static bool collect(const struct child *c, const struct work *w,
		    struct tdr_report_arch_answers *out, struct tdr_log_capture *log,
		    uint64_t *answered)
{
	struct rbuf r = {0};
	struct stat st;
	uint8_t *buf;
	int status;

	while (waitpid(c->pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || fstat(c->fd, &st) || st.st_size <= 0)
		return false;
	if (out->buf_cnt == TDR_ARCHIVE_JOBS_MAX || !(buf = tdr_malloc((size_t)st.st_size)))
		return false;
	out->bufs[out->buf_cnt++] = buf;
	r = (struct rbuf){.p = buf, .len = (size_t)st.st_size};
	if (pread(c->fd, buf, r.len, 0) != (ssize_t)r.len)
		return false;
	if (read_answers(&r, w, out, log, answered))
		return true;
	free(log->buf);
	memset(log, 0, sizeof(*log));
	return false;
}

/* ---- the items of work -------------------------------------------------- */

/*
 * The positions of unit[0 .. n) (in offset order) in unit order, keeping
 * the offset order inside each unit, into out: a counting sort by unit
 * (an index into the file's list of units), the addresses without one
 * (UINT64_MAX) last. Returns 0, -ENOMEM, or 1 when the indexes are too
 * sparse for it (a file of millions of units with few sampled: then the
 * caller counts the file as one unit; the plan only guides the work).
 */
static int by_unit(uint64_t *unit, size_t n, size_t *out)
{
	uint64_t max = 0;
	size_t *start, buckets;

	for (size_t i = 0; i < n; i++)
		if (unit[i] != UINT64_MAX && unit[i] > max)
			max = unit[i];
	if (max > 4 * (uint64_t)n + 65536) {
		for (size_t i = 0; i < n; i++) {
			unit[i] = 0;
			out[i] = i;
		}
		return 1;
	}
	buckets = (size_t)max + 2;
	if (!(start = tdr_calloc(buckets + 1, sizeof(*start))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		start[(unit[i] == UINT64_MAX ? buckets - 1 : unit[i]) + 1]++;
	for (size_t b = 1; b <= buckets; b++)
		start[b] += start[b - 1];
	for (size_t i = 0; i < n; i++)
		out[start[unit[i] == UINT64_MAX ? buckets - 1 : unit[i]]++] = i;
	free(start);
	return 0;
}

/*
 * One file's addresses o[0 .. n), in offset order: put in the order of
 * their compile units (a unit's code may lie in several places: hot and
 * cold parts), with the cost of each place, ADDR_COST plus its unit's size
 * where a unit starts, and whether an item starts there (where a unit
 * starts).
 */
static int file_plan(const struct tdr_report_symbols *syms, struct tdr_report_addr_order *o,
		     size_t n, uint64_t *cost, bool *cut)
{
	const struct tdr_mapping *map = o->obj;
	struct tdr_dso_ref ref = tdr_report_dso_ref(map->path, map);
	uint64_t *offs = tdr_malloc(n * sizeof(*offs)), *unit = tdr_calloc(n, sizeof(*unit));
	uint64_t *bytes = tdr_calloc(n, sizeof(*bytes));
	struct tdr_report_addr_order *was = tdr_malloc(n * sizeof(*was));
	size_t *pos = tdr_malloc(n * sizeof(*pos));
	int err = offs && unit && bytes && was && pos ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < n; i++)
		offs[i] = o[i].off;
	if (!err && syms->units) /* else (unknown): the file is one unit */
		err = syms->units(syms->ctx, &ref, offs, n, unit, bytes);
	if (!err)
		err = by_unit(unit, n, pos) < 0 ? -ENOMEM : 0;
	if (!err) {
		memcpy(was, o, n * sizeof(*was));
		for (size_t i = 0; i < n; i++) {
			size_t p = pos[i];

			cut[i] = !i || unit[pos[i - 1]] != unit[p];
			cost[i] = ADDR_COST + (cut[i] ? bytes[p] : 0);
			o[i] = was[p];
		}
	}
	free(offs);
	free(unit);
	free(bytes);
	free(was);
	free(pos);
	return err;
}

static int item_cost_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * The items of order[0 .. cnt), costliest first, into *items (*item_cnt);
 * each file's addresses are put in unit order first (file_plan). *worth:
 * whether workers pay off: enough work (WORKER_MIN_COST), and not most of
 * it in one unit (the costliest item under 85% of all: not a big
 * generated file or an interpreter loop, which a worker would only wait
 * for or take alone).
 */
static int make_items(const struct tdr_report_symbols *syms, struct tdr_report_addr_order *order,
		      size_t cnt, struct item **items, size_t *item_cnt, bool *worth)
{
	uint64_t *cost = tdr_malloc((cnt + 1) * sizeof(*cost)), total = 0;
	bool *cut = tdr_malloc((cnt + 1) * sizeof(*cut));
	struct item *it = NULL;
	size_t n = 0, cap = 0;
	int err = cost && cut ? 0 : -ENOMEM;

	for (size_t lo = 0, hi; !err && lo < cnt; lo = hi) {
		for (hi = lo + 1; hi < cnt && order[hi].obj == order[lo].obj; hi++)
			;
		if (order[lo].obj) {
			err = file_plan(syms, order + lo, hi - lo, cost + lo, cut + lo);
			continue;
		}
		for (size_t i = lo; i < hi; i++) {
			cost[i] = ADDR_COST;
			cut[i] = i == lo; /* the kernel: one item */
		}
	}
	for (size_t i = 0; !err && i < cnt; i++) {
		if (cut[i]) {
			if ((err = tdr_ensure_cap(&it, &cap, sizeof(*it), n + 1)))
				break;
			it[n++] = (struct item){.start = i, .end = i};
		}
		it[n - 1].end = i + 1;
		it[n - 1].cost += cost[i];
		total += cost[i];
	}
	free(cost);
	free(cut);
	if (err) {
		free(it);
		return err;
	}
	qsort(it, n, sizeof(*it), item_cost_cmp);
	*items = it;
	*item_cnt = n;
	*worth = n > 1 && total >= WORKER_MIN_COST && it[0].cost < total / 20 * 17;
	return 0;
}

static size_t shard_cnt(size_t addrs, size_t max)
{
	size_t n = addrs / TDR_ARCHIVE_SHARD_MIN;

	if (max > TDR_ARCHIVE_JOBS_MAX)
		max = TDR_ARCHIVE_JOBS_MAX;
	return n < 1 ? 1 : n < max ? n : max;
}

size_t tdr_report_archive_jobs(unsigned asked, size_t addrs)
{
	cpu_set_t cpus;

	if (!asked)
		asked = sched_getaffinity(0, sizeof(cpus), &cpus) ? 1 : (unsigned)CPU_COUNT(&cpus);
	return shard_cnt(addrs, asked);
}

/* Start a child that takes items; false when it cannot. */
static bool start(const struct work *w, struct child *c)
{
	pid_t parent = getpid();

	c->fd = memfd_create("tdrec-archive", MFD_CLOEXEC);
	if (c->fd < 0)
		return false;
	c->pid = fork();
	if (c->pid == 0) {
		/* Killed with tdrec (SIGKILL included), never left behind. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		child_run(w, c->fd);
	}
	if (c->pid > 0)
		return true;
	close(c->fd);
	return false;
}

/* Every entry nobody answered, looked up here. */
static int look_up_rest(const struct work *w)
{
	struct tdr_report_addr_order *rest = tdr_malloc((w->ent_cnt + 1) * sizeof(*rest));
	size_t n = 0;
	int err;

	if (!rest)
		return -ENOMEM;
	for (size_t i = 0; i < w->ent_cnt; i++)
		if (!w->done[w->order[i].idx])
			rest[n++] = w->order[i];
	if (n)
		tdr_debug("archiving: %zu addresses a worker did not answer, looked up again", n);
	err = look_up(w->syms, w->ents, rest, n, false, w->answers);
	free(rest);
	return err;
}

int tdr_report_archive_lookup(struct tdr_report_archiver *a, const struct tdr_report_symbols *syms,
			      size_t jobs, struct tdr_report_addr_order *order,
			      struct tdr_report_arch_answers *out, uint64_t *workers)
{
	struct tdr_log_capture logs[TDR_ARCHIVE_JOBS_MAX] = {0};
	struct child kids[TDR_ARCHIVE_JOBS_MAX];
	struct work w = {.syms = syms, .ents = a->ents, .ent_cnt = a->cnt, .order = order,
			 .answers = out->sym};
	struct tdr_report_addr_order *sorted;
	struct item *items = NULL;
	size_t kernel = 0, n, kid_cnt = 0;
	bool worth = false;
	int err;

	*workers = 1;
	while (kernel < a->cnt && !order[kernel].obj)
		kernel++; /* the kernel's addresses sort first */
	n = shard_cnt(a->cnt - kernel, jobs);
	if (n == 1)
		return look_up(syms, a->ents, order, a->cnt, true, out->sym);
	/* The order as it came (file by file, by offset), put back at the
	 * end: make_items changes it. */
	if (!(sorted = tdr_malloc(a->cnt * sizeof(*sorted))))
		return -ENOMEM;
	memcpy(sorted, order, a->cnt * sizeof(*sorted));
	err = make_items(syms, order, a->cnt, &items, &w.item_cnt, &worth);
	if (!err && !worth)
		err = look_up(syms, a->ents, order, a->cnt, true, out->sym);
	if (err || !worth)
		goto out;
	w.items = items;
	w.next = mmap(NULL, sizeof(*w.next), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	w.done = tdr_calloc(a->cnt + 1, sizeof(*w.done));
	if (w.next == MAP_FAILED || !w.done) {
		/* No shared counter: all of it here. */
		w.next = w.next == MAP_FAILED ? NULL : w.next;
		err = look_up(syms, a->ents, order, a->cnt, true, out->sym);
		goto out;
	}
	*w.next = 0;
	/* Every offset told once, before the fork, not per item (each telling
	 * sorts the object's list again): a worker walks whole units only, and
	 * all the offsets expected in them are its own. */
	err = tdr_report_expect(syms, order, a->cnt, tdr_report_arch_addr_is_file, a->ents);
	if (err)
		goto out;
	for (size_t k = 1; k < n; k++)
		if (start(&w, &kids[kid_cnt]))
			kid_cnt++;
	tdr_debug("archiving: %zu items of work for %zu processes", w.item_cnt, kid_cnt + 1);
	/* Messages from here on are shown with the children's, each once. */
	tdr_log_capture__start(&logs[0]);
	err = take_items(&w);
	if (err) /* the children take no more; waited for all the same */
		__atomic_store_n(w.next, w.item_cnt, __ATOMIC_RELAXED);
	for (size_t k = 0; k < kid_cnt; k++) {
		uint64_t answered = 0;

		collect(&kids[k], &w, out, &logs[k + 1], &answered);
		*workers += answered > 0;
		close(kids[k].fd);
	}
	if (!err)
		err = look_up_rest(&w);
	tdr_log_capture__stop();
	tdr_log_capture__replay(logs, kid_cnt + 1);
out:
	if (w.next)
		munmap(w.next, sizeof(*w.next));
	memcpy(order, sorted, a->cnt * sizeof(*order));
	free(sorted);
	free(w.done);
	free(items);
	return err;
}

void tdr_report_arch_answers__fini(struct tdr_report_arch_answers *out)
{
	free(out->sym);
	for (size_t i = 0; i < out->buf_cnt; i++)
		free(out->bufs[i]);
	tdr_arena__fini(&out->frames);
	memset(out, 0, sizeof(*out));
}
