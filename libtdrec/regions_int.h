/*
 * libtdrec/regions_int.h - libtdrec's private declarations: the objects,
 * the counter-reading math (tested on hand-written pages and values), and
 * the seams the tests replace (rdpmc, reset).
 */
#ifndef TDREC_REGIONS_INT_H
#define TDREC_REGIONS_INT_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/format.h"
#include "tdrec/regions.h"
#include "tdrec/topdown.h"

/* The rdpmc counter numbers of Intel's fixed counter 3 (slots) and of
 * PERF_METRICS, as the kernel puts them in the pages' index (index - 1):
 * arch/x86/events/intel/core.c, Documentation/arch/x86/topdown.rst. */
#define TDR_RDPMC_FIXED (1u << 30)
#define TDR_RDPMC_METRIC (1u << 29)

/* The 8-bit field i of a PERF_METRICS value. */
static inline uint32_t tdr_regions_metric_field(uint64_t metrics, uint32_t i)
{
	return (uint32_t)(metrics >> (8 * i)) & 0xff;
}

/* Slots of field i: field * slots / 0xff, rounded down (the kernel's
 * mul_u64_u32_div in icl_get_metrics_event_value). */
uint64_t tdr_regions_metric_slots(uint64_t metrics, uint32_t field, uint64_t slots);

/* Reads counter (index - 1 of a page) from user space. */
typedef uint64_t (*tdr_rdpmc_fn)(uint32_t counter, void *arg);

/* The hardware's rdpmc (x86 rdpmc, arm64 PMEVCNTR<n>_EL0 / PMCCNTR_EL0);
 * NULL on other architectures. */
extern const tdr_rdpmc_fn tdr_regions_hw_rdpmc;

/* What a page read gave: the full count (offset + the raw value
 * sign-extended from pmc_width bits), the page's offset, the raw rdpmc
 * value as returned, the page's pmc_width, and whether the counter was on
 * the PMU (index != 0) when read (if not: count = offset, raw = 0). */
struct tdr_pmc_read {
	uint64_t count;
	uint64_t offset;
	uint64_t raw;
	uint32_t width;
	bool active;
};

/*
 * One consistent read of n pages (the lock protocol of struct
 * perf_event_mmap_page, include/uapi/linux/perf_event.h): every page's
 * lock before, the fields and rdpmc, every lock again; retried while a
 * lock changed or was odd. Returns 0, or -EOPNOTSUPP when a page does not
 * allow rdpmc (cap_user_rdpmc 0) or has pmc_width 0 while active.
 */
int tdr_regions_pages_read(volatile struct perf_event_mmap_page *const *pages, size_t n,
			   tdr_rdpmc_fn rdpmc, void *arg, struct tdr_pmc_read *out);

/* How an event's value comes out of a page read. */
enum tdr_ev_kind {
	TDR_EV_COUNTER = 0, /* the page's full count: offset + raw */
	TDR_EV_SLOTS,	    /* perf metrics' leader: fixed counter 3, raw */
	TDR_EV_METRIC,	    /* a PERF_METRICS field over the slots leader */
};

struct tdr_ev {
	char name[64];
	struct perf_event_attr attr;
	enum tdr_ev_kind kind;
	uint32_t field; /* TDR_EV_METRIC: its 8-bit field */
};

/*
 * Values of every event from page reads (cnt events, rd[0] the leader):
 * counters as read (rd[i].count). Perf metrics from the registers alone,
 * never the pages' offset: the slots leader as its raw value masked to
 * rd[0].width bits, a metric event i as its field of the PERF_METRICS
 * value rd[i].raw times those slots over 255. For a thread that reads them
 * with rdpmc the kernel saves both registers when it switches the thread
 * out and restores them when it comes back, and clears them only at a
 * read (read(2), PERF_EVENT_IOC_RESET), while it adds each update's delta
 * to the events' counts, which the pages' offset carries: adding it would
 * count those slots twice (arch/x86/events/intel/core.c, commit
 * "perf/x86/intel: Support per-thread RDPMC TopDown metrics").
 */
void tdr_regions_values(const struct tdr_ev *ev, size_t cnt, const struct tdr_pmc_read *rd,
			uint64_t *vals);

/* Resets the thread's group (PERF_EVENT_IOC_RESET of the leader, group). */
typedef int (*tdr_reset_fn)(void *arg);

struct tdr_region_acc {
	uint64_t count;
	uint64_t deltas[TDR_REGIONS_EVENT_MAX];
};

struct tdr_open_region {
	int id;
	uint64_t begin[TDR_REGIONS_EVENT_MAX];
};

struct tdr_regions_thread {
	struct tdr_regions *rs;
	size_t ev_cnt;
	const struct tdr_ev *ev;
	uint32_t tid;
	int fds[TDR_REGIONS_EVENT_MAX];
	volatile struct perf_event_mmap_page *pages[TDR_REGIONS_EVENT_MAX];
	size_t page_sz;
	bool rdpmc;
	tdr_rdpmc_fn rdpmc_fn;
	tdr_reset_fn reset_fn;
	void *seam_arg;
	/* rdpmc: what earlier resets took away from every event (the values
	 * read just before each), so values stay monotonic across resets. */
	uint64_t carry[TDR_REGIONS_EVENT_MAX];
	uint64_t reset_slots; /* reset when the leader's raw count passes it; 0: never */
	uint64_t resets;
	uint64_t errors;
	uint32_t depth;
	struct tdr_open_region stack[TDR_REGIONS_DEPTH_MAX];
	uint32_t acc_cnt;
	struct tdr_region_acc *acc; /* per region id */
};

/* The thread's monotonic values now (carry + what the counters say). On
 * the rdpmc path it may reset the group first (the leader's raw count at
 * or past reset_slots), folding the values read into carry. Returns 0 or
 * -errno (a read(2) that failed, a page that stopped allowing rdpmc). */
int tdr_regions_thread_now(struct tdr_regions_thread *t, uint64_t *vals);

/* Evaluate the family's categories over deltas (event order of rs). */
void tdr_regions_categories(const struct tdr_regions *rs, const uint64_t *deltas,
			    struct tdr_region_value *out);

/* The family's events a regions group counts: its counting events of
 * group 0 (leader first). Returns how many (at most TDR_REGIONS_EVENT_MAX),
 * 0 when the family cannot be used (too many events). */
size_t tdr_regions_family_events(const struct tdr_td_family *fam, struct tdr_ev *ev);

#endif /* TDREC_REGIONS_INT_H */
