/*
 * libtdrec/regions_read.c - reading a thread's counters: the perf mmap
 * page protocol with rdpmc, PERF_METRICS decoding, the periodic reset,
 * and the read(2) group fallback.
 *
 * Responsibility: turn the counters of one thread's group into monotonic
 * per-event values, so a region's deltas are plain subtractions whatever
 * happened between its begin and end (a counter that wrapped at pmc_width,
 * the kernel folding counts into the page's offset at a context switch, a
 * reset by this library). The rdpmc path follows the page protocol of
 * include/uapi/linux/perf_event.h (struct perf_event_mmap_page: lock,
 * index, offset, pmc_width, cap_user_rdpmc) for every event of the group
 * in one consistent snapshot; the perf metrics the way the kernel's
 * Documentation/arch/x86/topdown.rst and perf's
 * tools/perf/Documentation/topdown.txt describe (slots is fixed counter
 * 3, PERF_METRICS holds four or eight 8-bit fractions of the slots counted
 * since both were last cleared; a field's slots = field * slots / 0xff),
 * from the registers alone (tdr_regions_values says why).
 * The two paths are never mixed on one group: a read(2) of perf metrics
 * makes the kernel fold and clear them, which a later rdpmc would not see.
 * What it does not do: choose families or open groups (regions.c), or
 * evaluate categories (format/category.c through the family's formulas).
 * See: docs/regions.md "How the counters are read".
 */
#include "regions_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define barrier() __asm__ __volatile__("" ::: "memory")

uint64_t tdr_regions_metric_slots(uint64_t metrics, uint32_t field, uint64_t slots)
{
	uint64_t f = tdr_regions_metric_field(metrics, field);

	/* slots < 2^64 / 255 in practice (the leader is reset far earlier);
	 * split the product so that a 64-bit slots value cannot overflow. */
	return (slots / 0xff) * f + (slots % 0xff) * f / 0xff;
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t hw_rdpmc(uint32_t counter, void *arg)
{
	uint32_t lo, hi;

	(void)arg;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}
const tdr_rdpmc_fn tdr_regions_hw_rdpmc = hw_rdpmc;
#elif defined(__aarch64__)
/* Counter 31 is the cycle counter; the others through PMSELR_EL0 (what
 * PMUSERENR_EL0 opens to user space when kernel.perf_user_access is 1;
 * the kernel's Documentation/arch/arm64/perf.rst). */
static uint64_t hw_rdpmc(uint32_t counter, void *arg)
{
	uint64_t v;

	(void)arg;
	if (counter == 31) {
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		return v;
	}
	__asm__ __volatile__("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
			     : "=r"(v)
			     : "r"((uint64_t)counter));
	return v;
}
const tdr_rdpmc_fn tdr_regions_hw_rdpmc = hw_rdpmc;
#else
const tdr_rdpmc_fn tdr_regions_hw_rdpmc = NULL;
#endif

/* One page's fields; false when rdpmc is not allowed on it. */
static bool page_fields(volatile struct perf_event_mmap_page *pc, tdr_rdpmc_fn rdpmc, void *arg,
			struct tdr_pmc_read *r)
{
	uint32_t idx = pc->index;

	r->offset = (uint64_t)pc->offset;
	r->count = r->offset;
	r->raw = 0;
	r->width = pc->pmc_width;
	r->active = false;
	if (!pc->cap_user_rdpmc)
		return false;
	if (!idx)
		return true; /* not on the PMU now: the kernel's count is all */
	if (!r->width || r->width > 64)
		return false;
	r->raw = rdpmc(idx - 1, arg);
	r->active = true;
	/* Sign-extend from pmc_width bits: the kernel sets offset so that
	 * offset + that is the count, also after the counter wrapped. */
	r->count = r->offset + (uint64_t)(((int64_t)(r->raw << (64 - r->width))) >> (64 - r->width));
	return true;
}

int tdr_regions_pages_read(volatile struct perf_event_mmap_page *const *pages, size_t n,
			   tdr_rdpmc_fn rdpmc, void *arg, struct tdr_pmc_read *out)
{
	uint32_t seq[TDR_REGIONS_EVENT_MAX];
	bool again;

	if (n > TDR_REGIONS_EVENT_MAX || !rdpmc)
		return -EINVAL;
	do {
		again = false;
		for (size_t i = 0; i < n; i++)
			seq[i] = pages[i]->lock;
		barrier();
		for (size_t i = 0; i < n; i++)
			if (!page_fields(pages[i], rdpmc, arg, &out[i]))
				return -EOPNOTSUPP;
		barrier();
		for (size_t i = 0; i < n && !again; i++)
			again = pages[i]->lock != seq[i] || (seq[i] & 1);
	} while (again);
	return 0;
}

void tdr_regions_values(const struct tdr_ev *ev, size_t cnt, const struct tdr_pmc_read *rd,
			uint64_t *vals)
{
	uint64_t slots_raw = 0;

	if (cnt && rd[0].active)
		slots_raw = rd[0].width >= 64 ? rd[0].raw : rd[0].raw & ((1ull << rd[0].width) - 1);
	for (size_t i = 0; i < cnt; i++) {
		if (ev[i].kind == TDR_EV_SLOTS)
			vals[i] = slots_raw;
		else if (ev[i].kind == TDR_EV_METRIC)
			vals[i] = rd[i].active ? tdr_regions_metric_slots(rd[i].raw, ev[i].field,
									  slots_raw)
					       : 0;
		else
			vals[i] = rd[i].count;
	}
}

/* read(2) of the group: { nr, values[nr] } (PERF_FORMAT_GROUP alone). */
static int group_read(struct tdr_regions_thread *t, uint64_t *vals)
{
	uint64_t buf[1 + TDR_REGIONS_EVENT_MAX];
	ssize_t n = read(t->fds[0], buf, sizeof(uint64_t) * (1 + t->ev_cnt));

	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(uint64_t) * (1 + t->ev_cnt) || buf[0] != t->ev_cnt)
		return -EIO;
	memcpy(vals, buf + 1, sizeof(uint64_t) * t->ev_cnt);
	return 0;
}

static int pages_now(struct tdr_regions_thread *t, uint64_t *vals)
{
	struct tdr_pmc_read rd[TDR_REGIONS_EVENT_MAX];
	int err = tdr_regions_pages_read(t->pages, t->ev_cnt, t->rdpmc_fn, t->seam_arg, rd);

	if (err)
		return err;
	tdr_regions_values(t->ev, t->ev_cnt, rd, vals);
	/* vals[0] is the leader's raw slots for perf metrics, the only
	 * family with reset_slots set. */
	if (t->reset_slots && rd[0].active && vals[0] >= t->reset_slots && t->reset_fn) {
		/* Fold what the counters hold into carry, then clear them: the
		 * values stay the same, and the 8-bit fractions apply to fewer
		 * slots again. Slots counted between this read and the reset
		 * are lost (a few hundred: docs/regions.md "Resets"). */
		if (!t->reset_fn(t->seam_arg)) {
			for (size_t i = 0; i < t->ev_cnt; i++) {
				t->carry[i] += vals[i];
				vals[i] = t->carry[i];
			}
			t->resets++;
			return 0;
		}
		/* Not reset: the values read still hold; stop trying. */
		t->errors++;
		t->reset_slots = 0;
	}
	for (size_t i = 0; i < t->ev_cnt; i++)
		vals[i] += t->carry[i];
	return 0;
}

int tdr_regions_thread_now(struct tdr_regions_thread *t, uint64_t *vals)
{
	return t->rdpmc ? pages_now(t, vals) : group_read(t, vals);
}
