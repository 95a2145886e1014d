/*
 * libtdrec/regions.c - libtdrec's objects: choosing the family, per-thread
 * groups, begin/end bookkeeping, per-region totals, and the regions file.
 *
 * Responsibility: the API of tdrec/regions.h over the counter reading of
 * regions_read.c. The family comes from tdrec's TopDown table (topdown/),
 * best first, as tdrec stat chooses one, but opened without sysfs: each
 * event by the raw config the table gives (PERF_TYPE_RAW on the core PMU),
 * its hardware or software config, so the library reads no file but
 * /proc/cpuinfo and perf_event_paranoid. Categories are the family's
 * formulas resolved by format/regions_fmt.c and evaluated by
 * format/category.c, as report does. The begin/end path touches only the
 * thread's own object: a stack of open regions and one accumulator per
 * region id, all allocated at tdr_regions__thread_open.
 * What it does not do: resolve a .scale width (the family's W is used:
 * 4 on Intel before Ice Lake, where Hyper-Threading on makes the kernel
 * print 2; docs/regions.md) or open on a hybrid part's second core PMU.
 * See: docs/regions.md.
 */
#include "regions_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tdrec/cpuid.h"
#include "tdrec/plan_paranoid.h"
#include "tdrec/regions_fmt.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

struct closed_entry {
	uint32_t id, tid;
	struct tdr_region_acc acc;
};

struct tdr_regions {
	const struct tdr_td_family *fam;
	size_t ev_cnt;
	struct tdr_ev ev[TDR_REGIONS_EVENT_MAX];
	bool rdpmc;
	bool no_rdpmc;
	uint64_t reset_slots;
	struct tdr_meta meta;
	char *path;
	pthread_mutex_t lock;
	uint32_t max_regions;
	uint32_t name_cnt;
	char **names;
	struct closed_entry *closed;
	size_t closed_cnt, closed_cap;
	uint64_t resets, errors;
};

static int sys_perf_event_open(struct perf_event_attr *a, int group_fd)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

size_t tdr_regions_family_events(const struct tdr_td_family *fam, struct tdr_ev *ev)
{
	size_t n = 0, cnt = tdr_td_family__event_cnt(fam, true);
	bool metrics, kernel_sw = tdr_plan_kernel_counts_allowed();

	metrics = cnt && !strcmp(tdr_td_family__event(fam, true, 0)->name, "slots");
	for (size_t i = 0; i < cnt; i++) {
		const struct tdr_td_event *te = tdr_td_family__event(fam, true, i);
		struct tdr_ev *e;

		if (te->group)
			continue; /* a further counting group: one group per thread here */
		if (n == TDR_REGIONS_EVENT_MAX || strlen(te->name) >= sizeof(e->name))
			return 0;
		e = &ev[n++];
		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", te->name);
		e->attr.size = sizeof(e->attr);
		e->attr.read_format = PERF_FORMAT_GROUP;
		e->attr.exclude_kernel = 1;
		e->attr.exclude_hv = 1;
		e->attr.config = te->config;
		switch (te->source) {
		case TDR_TD_SOFTWARE:
			e->attr.type = PERF_TYPE_SOFTWARE;
			/* As tdrec stat counts them (plan/plan.c): a switch
			 * happens in the kernel. */
			if (kernel_sw && (te->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
					  te->config == PERF_COUNT_SW_CPU_MIGRATIONS))
				e->attr.exclude_kernel = 0;
			break;
		case TDR_TD_HARDWARE:
			e->attr.type = PERF_TYPE_HARDWARE;
			break;
		default:
			e->attr.type = PERF_TYPE_RAW;
			break;
		}
		/* Opened disabled, enabled as a group once complete: a member
		 * of another software PMU (page-faults under task-clock) added
		 * to the running thread's enabled group does not count until
		 * the thread is next scheduled in (measured on Linux 6.18:
		 * 0 faults of 64 touched pages; docs/regions.md). */
		e->attr.disabled = n == 1;
		if (metrics && n == 1) {
			e->kind = TDR_EV_SLOTS;
		} else if (metrics) {
			e->kind = TDR_EV_METRIC;
			e->field = (uint32_t)((te->config >> 8) & 0xff) - 0x80;
		}
#if defined(__aarch64__)
		/* arm_pmuv3's "rdpmc" format bit (config1:1): user access. */
		if (e->attr.type != PERF_TYPE_SOFTWARE)
			e->attr.config1 |= 2;
#endif
	}
	return n;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Open rs's events as one group counting the calling thread. */
static int open_group(const struct tdr_ev *ev, size_t n, int *fds)
{
	for (size_t i = 0; i < n; i++)
		fds[i] = -1;
	for (size_t i = 0; i < n; i++) {
		struct perf_event_attr a = ev[i].attr;
		int fd = sys_perf_event_open(&a, i ? fds[0] : -1);

		if (fd < 0) {
			close_fds(fds, i);
			return fd;
		}
		fds[i] = fd;
	}
	if (ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP)) {
		int err = -errno;

		close_fds(fds, n);
		return err;
	}
	return 0;
}

static void unmap_pages(volatile struct perf_event_mmap_page **pages, size_t n, size_t page_sz)
{
	for (size_t i = 0; i < n; i++)
		if (pages[i])
			munmap((void *)pages[i], page_sz);
}

/* Map every event's page; true when each allows rdpmc. */
static bool map_pages(const int *fds, size_t n, size_t page_sz,
		      volatile struct perf_event_mmap_page **pages)
{
	bool ok = tdr_regions_hw_rdpmc != NULL;

	for (size_t i = 0; i < n; i++)
		pages[i] = NULL;
	for (size_t i = 0; i < n && ok; i++) {
		void *p = mmap(NULL, page_sz, PROT_READ, MAP_SHARED, fds[i], 0);

		if (p == MAP_FAILED) {
			ok = false;
			break;
		}
		pages[i] = p;
		ok = pages[i]->cap_user_rdpmc;
	}
	if (!ok)
		unmap_pages(pages, n, page_sz);
	return ok;
}

#define CPUINFO_MAX 65536 /* the first CPU's lines come first */

static void read_cpuid(struct tdr_cpuid *cpu)
{
	const char *env = getenv("TDREC_CPUID");
	char *text;
	FILE *f;
	size_t n;

	memset(cpu, 0, sizeof(*cpu));
	if (env && *env) {
		(void)tdr_cpuid_parse(env, cpu);
		return;
	}
	f = fopen("/proc/cpuinfo", "re");
	text = tdr_malloc(CPUINFO_MAX);
	if (f && text) {
		n = fread(text, 1, CPUINFO_MAX - 1, f);
		text[n] = 0;
		(void)tdr_cpuid_from_cpuinfo(text, cpu);
	}
	if (f)
		fclose(f);
	free(text);
}

/* Whether fam's group opens here; sets rs's events. */
static int try_family(struct tdr_regions *rs, const struct tdr_td_family *fam)
{
	int fds[TDR_REGIONS_EVENT_MAX];
	volatile struct perf_event_mmap_page *pages[TDR_REGIONS_EVENT_MAX];
	size_t page_sz = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = tdr_regions_family_events(fam, rs->ev);
	int err;

	if (!n)
		return -EINVAL;
	err = open_group(rs->ev, n, fds);
	if (err)
		return err;
	rs->fam = fam;
	rs->ev_cnt = n;
	rs->rdpmc = !rs->no_rdpmc && map_pages(fds, n, page_sz, pages);
	if (rs->rdpmc)
		unmap_pages(pages, n, page_sz);
	close_fds(fds, n);
	return 0;
}

static int choose_family(struct tdr_regions *rs, const char *plan)
{
	struct tdr_cpuid cpu;
	int err = -ENOENT;

	if (plan) {
		const struct tdr_td_family *f = tdr_topdown_family(plan);

		return f ? try_family(rs, f) : -ENOENT;
	}
	read_cpuid(&cpu);
	for (size_t i = 0; i < tdr_topdown_family_cnt(); i++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(i);

		if (f->counting_only || !tdr_td_family__matches(f, &cpu))
			continue;
		err = try_family(rs, f);
		if (!err)
			return 0;
	}
	return err;
}

static int make_meta(struct tdr_regions *rs)
{
	struct tdr_regions_hdr h = {.event_cnt = (uint32_t)rs->ev_cnt};

	h.family.s = rs->fam->name;
	h.family.len = strlen(rs->fam->name);
	for (size_t i = 0; i < rs->ev_cnt; i++) {
		h.events[i].s = rs->ev[i].name;
		h.events[i].len = strlen(rs->ev[i].name);
	}
	return tdr_regions_fmt__meta(&h, &rs->meta);
}

int tdr_regions__open(const struct tdr_regions_opts *opts, struct tdr_regions **out)
{
	struct tdr_regions_opts o = {0};
	struct tdr_regions *rs;
	const char *plan, *path;
	int err;

	*out = NULL;
	if (opts)
		o = *opts;
	plan = o.plan ? o.plan : getenv("TDREC_REGIONS_PLAN");
	path = o.path ? o.path : getenv("TDREC_REGIONS");
	if (plan && !*plan)
		plan = NULL;
	if (o.max_regions > 1u << 20)
		return -EINVAL;
	rs = tdr_calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	pthread_mutex_init(&rs->lock, NULL);
	rs->no_rdpmc = o.no_rdpmc;
	rs->reset_slots = o.reset_slots ? o.reset_slots : TDR_REGIONS_RESET_SLOTS_DEFAULT;
	rs->max_regions = o.max_regions ? o.max_regions : TDR_REGIONS_MAX_DEFAULT;
	rs->names = tdr_calloc(rs->max_regions, sizeof(*rs->names));
	err = rs->names ? 0 : -ENOMEM;
	if (!err && path && *path && !(rs->path = tdr_strdup(path)))
		err = -ENOMEM;
	if (!err)
		err = choose_family(rs, plan);
	if (!err) {
		err = make_meta(rs);
		err = err < 0 ? err : 0;
	}
	if (err) {
		rs->path = (free(rs->path), NULL);
		tdr_regions__free(rs);
		return err;
	}
	*out = rs;
	return 0;
}

int tdr_regions__region(struct tdr_regions *rs, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	int id = -ENOSPC;

	if (!len || len > TDR_REGIONS_NAME_MAX)
		return -EINVAL;
	pthread_mutex_lock(&rs->lock);
	for (uint32_t i = 0; i < rs->name_cnt; i++) {
		if (!strcmp(rs->names[i], name)) {
			id = (int)i;
			goto out;
		}
	}
	if (rs->name_cnt < rs->max_regions) {
		rs->names[rs->name_cnt] = tdr_strdup(name);
		id = rs->names[rs->name_cnt] ? (int)rs->name_cnt++ : -ENOMEM;
	}
out:
	pthread_mutex_unlock(&rs->lock);
	return id;
}

const char *tdr_regions__family(const struct tdr_regions *rs)
{
	return rs->fam->name;
}

bool tdr_regions__rdpmc(const struct tdr_regions *rs)
{
	return rs->rdpmc;
}

size_t tdr_regions__event_cnt(const struct tdr_regions *rs)
{
	return rs->ev_cnt;
}

const char *tdr_regions__event_name(const struct tdr_regions *rs, size_t idx)
{
	return idx < rs->ev_cnt ? rs->ev[idx].name : NULL;
}

size_t tdr_regions__category_cnt(const struct tdr_regions *rs)
{
	return rs->meta.category_cnt < TDR_REGIONS_CATEGORY_MAX ? rs->meta.category_cnt
								: TDR_REGIONS_CATEGORY_MAX;
}

const char *tdr_regions__category_name(const struct tdr_regions *rs, size_t idx)
{
	return idx < tdr_regions__category_cnt(rs) ? rs->meta.categories[idx].name : NULL;
}

static int reset_group(void *arg)
{
	struct tdr_regions_thread *t = arg;

	return ioctl(t->fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) ? -errno : 0;
}

int tdr_regions__thread_open(struct tdr_regions *rs, struct tdr_regions_thread **out)
{
	struct tdr_regions_thread *t;
	int err;

	*out = NULL;
	t = tdr_calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->acc = tdr_calloc(rs->max_regions, sizeof(*t->acc));
	if (!t->acc) {
		free(t);
		return -ENOMEM;
	}
	t->rs = rs;
	t->ev = rs->ev;
	t->ev_cnt = rs->ev_cnt;
	t->acc_cnt = rs->max_regions;
	t->tid = (uint32_t)syscall(SYS_gettid);
	t->page_sz = (size_t)sysconf(_SC_PAGESIZE);
	err = open_group(rs->ev, rs->ev_cnt, t->fds);
	if (err) {
		free(t->acc);
		free(t);
		return err;
	}
	t->rdpmc = rs->rdpmc && map_pages(t->fds, t->ev_cnt, t->page_sz, t->pages);
	t->rdpmc_fn = tdr_regions_hw_rdpmc;
	t->reset_fn = reset_group;
	t->seam_arg = t;
	/* Only perf metrics lose precision as their slots grow; they are
	 * also read raw, so the reset must come before fixed counter 3
	 * wraps at pmc_width (tdr_regions_values). */
	t->reset_slots = t->ev[0].kind == TDR_EV_SLOTS ? rs->reset_slots : 0;
	if (t->reset_slots && t->rdpmc && t->pages[0]->pmc_width > 1 &&
	    t->pages[0]->pmc_width < 64 && t->reset_slots > 1ull << (t->pages[0]->pmc_width - 1))
		t->reset_slots = 1ull << (t->pages[0]->pmc_width - 1);
	*out = t;
	return 0;
}

bool tdr_regions_thread__rdpmc(const struct tdr_regions_thread *t)
{
	return t->rdpmc;
}

void tdr_regions_thread__begin(struct tdr_regions_thread *t, int id)
{
	struct tdr_open_region *o;

	if (id < 0 || (uint32_t)id >= t->acc_cnt || t->depth == TDR_REGIONS_DEPTH_MAX) {
		t->errors++;
		return;
	}
	o = &t->stack[t->depth];
	if (tdr_regions_thread_now(t, o->begin)) {
		t->errors++;
		return;
	}
	o->id = id;
	t->depth++;
}

void tdr_regions_thread__end(struct tdr_regions_thread *t, int id)
{
	uint64_t now[TDR_REGIONS_EVENT_MAX];
	int err = tdr_regions_thread_now(t, now);
	struct tdr_open_region *o;
	struct tdr_region_acc *a;

	if (!t->depth || t->stack[t->depth - 1].id != id) {
		t->errors++;
		return;
	}
	o = &t->stack[--t->depth];
	if (err) {
		t->errors++;
		return;
	}
	a = &t->acc[id];
	a->count++;
	for (size_t i = 0; i < t->ev_cnt; i++)
		a->deltas[i] += now[i] - o->begin[i];
}

void tdr_regions_categories(const struct tdr_regions *rs, const uint64_t *deltas,
			    struct tdr_region_value *out)
{
	const struct tdr_category *slots_cat = NULL;
	size_t n = tdr_regions__category_cnt(rs);

	out->total_slots = NAN;
	for (size_t c = 0; c < n; c++) {
		const struct tdr_category *cat = &rs->meta.categories[c];

		if (!slots_cat && cat->level == 1 && tdr_category__linear(cat))
			slots_cat = cat;
	}
	if (slots_cat) {
		out->total_slots = 0;
		for (size_t i = 0; i < slots_cat->den_cnt; i++)
			out->total_slots +=
			    slots_cat->den[i].coef * (double)deltas[slots_cat->den[i].event_idx];
	}
	for (size_t c = 0; c < n; c++) {
		out->share[c] = tdr_category__value(&rs->meta.categories[c], deltas, rs->ev_cnt);
		out->slots[c] = out->share[c] * out->total_slots;
	}
}

int tdr_regions_thread__read(const struct tdr_regions_thread *t, int id,
			     struct tdr_region_value *out)
{
	memset(out, 0, sizeof(*out));
	if (id < 0 || (uint32_t)id >= t->acc_cnt)
		return -EINVAL;
	out->count = t->acc[id].count;
	memcpy(out->events, t->acc[id].deltas, sizeof(out->events));
	tdr_regions_categories(t->rs, out->events, out);
	return 0;
}

void tdr_regions_thread__close(struct tdr_regions_thread *t)
{
	struct tdr_regions *rs;

	if (!t)
		return;
	rs = t->rs;
	if (t->rdpmc)
		unmap_pages(t->pages, t->ev_cnt, t->page_sz);
	close_fds(t->fds, t->ev_cnt);
	pthread_mutex_lock(&rs->lock);
	rs->resets += t->resets;
	rs->errors += t->errors + t->depth; /* regions left open */
	for (uint32_t id = 0; id < rs->name_cnt; id++) {
		struct closed_entry *e;

		if (!t->acc[id].count)
			continue;
		if (tdr_ensure_cap(&rs->closed, &rs->closed_cap, sizeof(*rs->closed),
				   rs->closed_cnt + 1)) {
			rs->errors++; /* lost: reported as an error count */
			continue;
		}
		e = &rs->closed[rs->closed_cnt++];
		e->id = id;
		e->tid = t->tid;
		e->acc = t->acc[id];
	}
	pthread_mutex_unlock(&rs->lock);
	free(t->acc);
	free(t);
}

static int encode(struct tdr_regions *rs, void **buf, size_t *sz)
{
	struct tdr_regions_hdr h = {0};
	struct tdr_regions_entry *ents;
	int err;

	h.method = rs->rdpmc ? TDR_REGIONS_RDPMC : TDR_REGIONS_READ;
	h.pid = (uint32_t)getpid();
	h.event_cnt = (uint32_t)rs->ev_cnt;
	h.resets = rs->resets;
	h.errors = rs->errors;
	h.family.s = rs->fam->name;
	h.family.len = strlen(rs->fam->name);
	for (size_t i = 0; i < rs->ev_cnt; i++) {
		h.events[i].s = rs->ev[i].name;
		h.events[i].len = strlen(rs->ev[i].name);
	}
	ents = tdr_calloc(rs->closed_cnt ? rs->closed_cnt : 1, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (size_t i = 0; i < rs->closed_cnt; i++) {
		const struct closed_entry *c = &rs->closed[i];

		ents[i].name.s = rs->names[c->id];
		ents[i].name.len = strlen(rs->names[c->id]);
		ents[i].tid = c->tid;
		ents[i].count = c->acc.count;
		memcpy(ents[i].deltas, c->acc.deltas, sizeof(ents[i].deltas));
	}
	err = tdr_regions_fmt__encode(&h, ents, rs->closed_cnt, buf, sz);
	free(ents);
	return err;
}

int tdr_regions__write(struct tdr_regions *rs, const char *path)
{
	void *buf = NULL;
	size_t sz = 0;
	FILE *f;
	int err;

	pthread_mutex_lock(&rs->lock);
	err = encode(rs, &buf, &sz);
	pthread_mutex_unlock(&rs->lock);
	if (err)
		return err;
	f = fopen(path, "we");
	if (!f) {
		err = -errno;
		free(buf);
		return err;
	}
	if (fwrite(TDR_REGIONS_FILE_MAGIC, 1, TDR_REGIONS_FILE_MAGIC_SZ, f) !=
		TDR_REGIONS_FILE_MAGIC_SZ ||
	    fwrite(buf, 1, sz, f) != sz)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	free(buf);
	return err;
}

void tdr_regions__free(struct tdr_regions *rs)
{
	if (!rs)
		return;
	if (rs->path) {
		int err = tdr_regions__write(rs, rs->path);

		if (err)
			fprintf(stderr, "libtdrec: cannot write regions to %s: %s\n", rs->path,
				tdr_strerror(err));
		free(rs->path);
	}
	for (uint32_t i = 0; i < rs->name_cnt; i++)
		free(rs->names[i]);
	free(rs->names);
	free(rs->closed);
	tdr_meta__clear(&rs->meta);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}
