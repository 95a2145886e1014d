/*
 * symbolize/kallsyms.c - the kernel symbol table, loaded ahead on a helper thread.
 *
 * Responsibility: build the sorted table of kernel text symbols (struct
 * sym_ktab) that kernel.c searches: from the per-boot cache when it holds
 * this boot's table (kcache.c), else by reading kallsyms, in which case the
 * table is then written to the cache. Reading /proc/kallsyms is mostly
 * kernel time (the kernel formats each of ~120k lines with vsnprintf), so a
 * report starts it on a helper thread as soon as it sees a kernel sample and
 * overlaps it with parsing; the table is waited for on the first kernel
 * lookup.
 * Parsing streams the file through a fixed buffer and keeps only the text
 * symbols (t T w W) with a nonzero address, as compact arrays: addresses,
 * name offsets (with the alias rank in the top two bits while building) and
 * one string table, no allocation per symbol and no strtoull. /proc/kallsyms
 * is in address order (core kernel, then modules), so the table is sorted
 * only when the input was not. Aliases at one address collapse to one name:
 * global (T) over weak (W) over local (t, w), then the shorter name.
 * Objects and lifecycle: tdr_kallsyms__new -> [__start] -> table wanted
 * (tdr_symbolize_kallsyms__table, by kernel.c) -> __free.
 * Ownership and threads: the helper thread owns the build until it marks
 * the table ready under the mutex; after that the table is read-only and
 * the helper at most writes the cache from it. The helper never logs: it
 * leaves error codes that the waiting thread (and __free, for the cache
 * write) logs. __free sets `cancel`, which the read loop checks between
 * reads, so a report that needs no kernel symbols after all does not wait
 * for the whole file.
 * See: docs/symbolize.md "Kernel"; kallsyms(5) format in kernel/kallsyms.c
 * (s_show: "%px %c %s\t[%s]").
 */
#include "symbolize_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define KALLSYMS_DEFAULT "/proc/kallsyms"
#define KALLSYMS_MAX_SZ (512u << 20)
#define READ_BUF_SZ (128u << 10)
#define RANK_SHIFT 30
#define OFF_MASK ((1u << RANK_SHIFT) - 1)

enum ks_state { KS_IDLE, KS_RUNNING, KS_READY };

struct tdr_kallsyms {
	char *path, *cache_dir, *boot_id, *modules_path;
	pthread_mutex_t mu;
	pthread_cond_t ready_cv;
	pthread_t thread;
	bool thread_started, joined;
	atomic_bool cancel;
	enum ks_state state;
	/* Results, written by whoever loads, read after KS_READY. */
	int err;	   /* -ENOMEM, or -ECANCELED: nothing built */
	int read_err;	   /* kallsyms could not be read (-errno) */
	bool no_addresses; /* kallsyms show only zero addresses */
	int cache_err;	   /* the cache file is damaged */
	const char *cache_why;
	int store_err; /* the cache could not be written */
	bool logged, have_tab;
	struct sym_ktab tab;
};

/* The table being built from kallsyms text. */
struct ktab_build {
	uint64_t *addr;
	uint32_t *off; /* string table offset | rank << RANK_SHIFT */
	size_t cnt, addr_cap, off_cap;
	char *str;
	size_t str_sz, str_cap;
	size_t nonzero; /* lines with a nonzero address, any type */
	bool sorted;
	uint64_t ref_addr[SYM_KREF_CNT];
};

static void sym_ktab__free(struct sym_ktab *t)
{
	for (size_t i = 0; i < TDR_ARRAY_SIZE(t->heap); i++)
		free(t->heap[i]);
	if (t->map)
		munmap(t->map, t->map_sz);
	if (t->str_in_file)
		close(t->str_fd);
	memset(t, 0, sizeof(*t));
}

/* hexval[c]: 1 + the value of hex digit c, 0 for any other byte. */
static const uint8_t hexval[256] = {
    ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,	['5'] = 6,  ['6'] = 7,	['7'] = 8,
    ['8'] = 9,	['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int type_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
		return 1;
	case 't':
		return 2;
	case 'w':
		return 3;
	default:
		return -1;
	}
}

/* One line "ADDR TYPE NAME[\t[MODULE]]" without its newline; other lines
 * are skipped. Returns 0 or -ENOMEM. */
static int build_line(struct ktab_build *b, const char *p, const char *end)
{
	const char *name;
	uint64_t addr = 0;
	size_t digits = 0, len;
	uint32_t v;
	int rank;

	while (p + digits < end && (v = hexval[(uint8_t)p[digits]])) {
		addr = addr << 4 | (v - 1);
		if (++digits > 16)
			return 0;
	}
	p += digits;
	if (!digits || end - p < 3 || p[0] != ' ' || p[2] != ' ')
		return 0;
	name = p + 3;
	for (len = 0; name + len < end; len++)
		if (name[len] == ' ' || name[len] == '\t' || name[len] == '\0')
			break;
	if (!addr)
		return 0;
	b->nonzero++;
	if (len == 5 && !memcmp(name, "_text", 5) && !b->ref_addr[SYM_KREF_TEXT])
		b->ref_addr[SYM_KREF_TEXT] = addr;
	else if (len == 6 && !memcmp(name, "_stext", 6) && !b->ref_addr[SYM_KREF_STEXT])
		b->ref_addr[SYM_KREF_STEXT] = addr;
	rank = type_rank(p[1]);
	if (!len || rank < 0)
		return 0;
	if (b->str_sz + len + 1 > OFF_MASK)
		return -EFBIG;
	if (tdr_ensure_cap(&b->addr, &b->addr_cap, sizeof(*b->addr), b->cnt + 1) ||
	    tdr_ensure_cap(&b->off, &b->off_cap, sizeof(*b->off), b->cnt + 1) ||
	    tdr_ensure_cap(&b->str, &b->str_cap, 1, b->str_sz + len + 1))
		return -ENOMEM;
	if (b->cnt && addr < b->addr[b->cnt - 1])
		b->sorted = false;
	b->addr[b->cnt] = addr;
	b->off[b->cnt] = (uint32_t)b->str_sz | (uint32_t)rank << RANK_SHIFT;
	b->cnt++;
	memcpy(b->str + b->str_sz, name, len);
	b->str[b->str_sz + len] = '\0';
	b->str_sz += len + 1;
	return 0;
}

/* The complete lines of buf[0, len): returns how many bytes they take, or
 * -ENOMEM / -EFBIG. *skip: drop text up to the next newline first (the
 * rest of an over-long line). */
static long build_lines(struct ktab_build *b, const char *buf, size_t len, bool *skip)
{
	const char *p = buf, *end = buf + len, *eol;
	int err;

	while ((eol = memchr(p, '\n', (size_t)(end - p)))) {
		if (!*skip && (err = build_line(b, p, eol)))
			return err;
		*skip = false;
		p = eol + 1;
	}
	return p - buf;
}

/* Read and parse kallsyms through one fixed buffer. Returns 0, -errno of
 * the file, -ENOMEM, -EFBIG or -ECANCELED. */
static int build_read(struct tdr_kallsyms *k, const char *path, struct ktab_build *b)
{
	char *buf = tdr_malloc(READ_BUF_SZ);
	size_t len = 0, total = 0;
	bool skip = false;
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(buf);
		return err;
	}
	for (;;) {
		ssize_t n;
		long used;

		if (atomic_load_explicit(&k->cancel, memory_order_relaxed)) {
			err = -ECANCELED;
			break;
		}
		n = read(fd, buf + len, READ_BUF_SZ - len);
		if (n < 0) {
			err = -errno;
			if (err == -EINTR)
				continue;
			break;
		}
		if (n == 0) {
			/* A last line without its newline. */
			if (len && !skip)
				err = build_line(b, buf, buf + len);
			break;
		}
		total += (size_t)n;
		if (total > KALLSYMS_MAX_SZ) {
			err = -EFBIG;
			break;
		}
		len += (size_t)n;
		used = build_lines(b, buf, len, &skip);
		if (used < 0) {
			err = (int)used;
			break;
		}
		memmove(buf, buf + used, len - (size_t)used);
		len -= (size_t)used;
		if (len == READ_BUF_SZ) {
			/* No newline in a whole buffer: not a kallsyms line. */
			skip = true;
			len = 0;
		}
	}
	close(fd);
	free(buf);
	return err;
}

struct kpair {
	uint64_t addr;
	uint32_t off;
};

static int kpair_cmp(const void *a, const void *b)
{
	const struct kpair *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sort by address (when kallsyms were not in order) and keep one name per
 * address; the table takes the build's arrays. Returns 0 or -ENOMEM. */
static int build_finish(struct ktab_build *b, struct sym_ktab *t)
{
	size_t out = 0;

	if (!b->sorted) {
		struct kpair *v = tdr_calloc(b->cnt, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < b->cnt; i++)
			v[i] = (struct kpair){b->addr[i], b->off[i]};
		/* Equal addresses are told apart by the alias rule below, so the
		 * order qsort leaves them in does not matter. */
		qsort(v, b->cnt, sizeof(*v), kpair_cmp);
		for (size_t i = 0; i < b->cnt; i++) {
			b->addr[i] = v[i].addr;
			b->off[i] = v[i].off;
		}
		free(v);
	}
	for (size_t i = 0; i < b->cnt;) {
		uint32_t best = b->off[i];
		size_t j = i + 1;

		for (; j < b->cnt && b->addr[j] == b->addr[i]; j++) {
			uint32_t o = b->off[j];

			if (tdr_symbolize_alias_cmp((int)(o >> RANK_SHIFT), b->str + (o & OFF_MASK),
						    (int)(best >> RANK_SHIFT),
						    b->str + (best & OFF_MASK), false) < 0)
				best = o;
		}
		b->addr[out] = b->addr[i];
		b->off[out++] = best & OFF_MASK;
		i = j;
	}
	memset(t, 0, sizeof(*t));
	t->cnt = out;
	t->addr = t->heap[0] = b->addr;
	t->name_off = t->heap[1] = b->off;
	t->str = t->heap[2] = b->str;
	t->str_sz = b->str_sz;
	memcpy(t->ref_addr, b->ref_addr, sizeof(t->ref_addr));
	b->addr = NULL;
	b->off = NULL;
	b->str = NULL;
	return 0;
}

static void build_free(struct ktab_build *b)
{
	free(b->addr);
	free(b->off);
	free(b->str);
}

static const char *ks_path(const struct tdr_kallsyms *k)
{
	return k->path ? k->path : KALLSYMS_DEFAULT;
}

static bool ks_caches(const struct tdr_kallsyms *k)
{
	return k->cache_dir && *k->cache_dir && k->boot_id && *k->boot_id;
}

/* Fill k->tab and the result fields; *store: the table came from kallsyms
 * and may be cached under key. */
static void ks_load(struct tdr_kallsyms *k, bool *store, uint64_t *key)
{
	struct ktab_build b = {.sorted = true};
	int err;

	*store = false;
	if (ks_caches(k) && !tdr_symbolize_kcache__key(k->modules_path, ks_path(k), key)) {
		err = tdr_symbolize_kcache__load(k->cache_dir, k->boot_id, *key, &k->tab,
						 &k->cache_why);
		if (err == 1) {
			k->have_tab = true;
			return;
		}
		if (err == -ENOMEM) {
			k->err = err;
			return;
		}
		k->cache_err = err;
		/* A directory another user could change is not written either. */
		*store = err != -TDR_E_UNSAFE;
	}
	err = build_read(k, ks_path(k), &b);
	if (!err && b.nonzero && b.cnt)
		err = build_finish(&b, &k->tab);
	build_free(&b);
	if (err == -ENOMEM || err == -ECANCELED) {
		k->err = err;
		*store = false;
		return;
	}
	if (err) {
		k->read_err = err;
		*store = false;
		return;
	}
	if (!k->tab.cnt) {
		/* Never cached: another user, or a later kptr_restrict, might see
		 * addresses where this one does not. */
		k->no_addresses = true;
		*store = false;
		return;
	}
	k->have_tab = true;
}

/* Write the cache, unless the modules changed while kallsyms were read
 * (the table might then hold either list's symbols). Returns 0 or -errno. */
static int ks_store(struct tdr_kallsyms *k, uint64_t key)
{
	uint64_t now;

	if (tdr_symbolize_kcache__key(k->modules_path, ks_path(k), &now) || now != key)
		return 0;
	return tdr_symbolize_kcache__store(k->cache_dir, k->boot_id, key, &k->tab);
}

static void *ks_main(void *arg)
{
	struct tdr_kallsyms *k = arg;
	uint64_t key = 0;
	bool store;

	ks_load(k, &store, &key);
	pthread_mutex_lock(&k->mu);
	k->state = KS_READY;
	pthread_cond_broadcast(&k->ready_cv);
	pthread_mutex_unlock(&k->mu);
	/* The table is read-only from here on; the waiter may already use it.
	 * A complete table is always cached, even when __free is waiting. */
	if (store)
		k->store_err = ks_store(k, key);
	return NULL;
}

static int dup_opt(const char *s, char **out)
{
	*out = NULL;
	return s && !(*out = tdr_strdup(s)) ? -ENOMEM : 0;
}

int tdr_kallsyms__new(const struct tdr_kallsyms_opts *opts, struct tdr_kallsyms **out)
{
	struct tdr_kallsyms_opts none = {0};
	struct tdr_kallsyms *k = tdr_calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	if (!opts)
		opts = &none;
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->ready_cv, NULL);
	atomic_init(&k->cancel, false);
	if (dup_opt(opts->path, &k->path) || dup_opt(opts->cache_dir, &k->cache_dir) ||
	    dup_opt(opts->boot_id, &k->boot_id) || dup_opt(opts->modules_path, &k->modules_path)) {
		tdr_kallsyms__free(k);
		return -ENOMEM;
	}
	*out = k;
	return 0;
}

int tdr_kallsyms__start(struct tdr_kallsyms *k)
{
	pthread_mutex_lock(&k->mu);
	if (k->state == KS_IDLE && !k->thread_started &&
	    !pthread_create(&k->thread, NULL, ks_main, k)) {
		k->thread_started = true;
		k->state = KS_RUNNING;
	}
	pthread_mutex_unlock(&k->mu);
	return 0;
}

/* Log what went wrong in the load, once. */
static void ks_log(struct tdr_kallsyms *k)
{
	if (k->logged)
		return;
	k->logged = true;
	if (k->cache_err)
		tdr_warn("ignoring the kernel symbol cache %s/%s: %s", k->cache_dir,
			 SYM_KCACHE_NAME, k->cache_why ? k->cache_why : strerror(-k->cache_err));
	if (k->read_err)
		tdr_warn("failed to read kernel symbols %s: %s", ks_path(k),
			 strerror(-k->read_err));
	else if (k->no_addresses)
		tdr_warn("kernel symbols in %s show no addresses (not root, or "
			 "kernel.kptr_restrict); kernel samples stay unsymbolized",
			 ks_path(k));
}

int tdr_symbolize_kallsyms__table(struct tdr_kallsyms *k, const struct sym_ktab **t,
				  const char **path)
{
	*t = NULL;
	*path = ks_path(k);
	pthread_mutex_lock(&k->mu);
	while (k->state == KS_RUNNING)
		pthread_cond_wait(&k->ready_cv, &k->mu);
	if (k->state == KS_IDLE) {
		/* Not started (or no thread could be): load here, and cache. */
		uint64_t key = 0;
		bool store;

		ks_load(k, &store, &key);
		k->state = KS_READY;
		if (store)
			k->store_err = ks_store(k, key);
	}
	pthread_mutex_unlock(&k->mu);
	if (k->err == -ENOMEM) {
		/* Nothing kept: the next call loads again (not on a thread). */
		k->err = 0;
		k->state = KS_IDLE;
		if (k->thread_started && !k->joined) {
			pthread_join(k->thread, NULL);
			k->joined = true;
		}
		return -ENOMEM;
	}
	ks_log(k);
	if (k->have_tab)
		*t = &k->tab;
	return 0;
}

void tdr_kallsyms__free(struct tdr_kallsyms *k)
{
	if (!k)
		return;
	atomic_store(&k->cancel, true);
	if (k->thread_started && !k->joined)
		pthread_join(k->thread, NULL);
	if (k->store_err)
		tdr_warn("failed to write the kernel symbol cache %s/%s: %s", k->cache_dir,
			 SYM_KCACHE_NAME, strerror(-k->store_err));
	sym_ktab__free(&k->tab);
	pthread_cond_destroy(&k->ready_cv);
	pthread_mutex_destroy(&k->mu);
	free(k->path);
	free(k->cache_dir);
	free(k->boot_id);
	free(k->modules_path);
	free(k);
}
