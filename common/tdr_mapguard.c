/*
 * common/tdr_mapguard.c - file mappings that survive the file shrinking.
 *
 * Responsibility: tdr_mapguard.h. The SIGBUS handler looks the faulting
 * address (si_addr) up in a fixed table of guarded mappings; inside one,
 * it maps an anonymous read-only page of zeros over the faulting page
 * (MAP_FIXED), records the page's offset and returns, and the read runs
 * again on zeros. Outside every one, the previous action is restored and
 * the handler returns, so the fault repeats under it (a core dump for the
 * default action). mmap is not on POSIX's list of async-signal-safe
 * functions, but on Linux it is a plain system call, as the handler needs.
 * Threads: the table's slots are claimed and released by one thread
 * (the parser's) and read by the handler in any thread, with atomics.
 */
#include "tdrec/tdr_mapguard.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct guard_slot {
	uintptr_t start; /* 0: free (atomic) */
	size_t len;
	uint64_t lost; /* lowest faulted page offset + 1; 0: none (atomic) */
};

static struct guard_slot slots[TDR_MAPGUARD_SLOTS];
static struct sigaction before;
static uintptr_t page_sz;
static bool installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	for (int i = 0; i < TDR_MAPGUARD_SLOTS; i++) {
		uintptr_t start = __atomic_load_n(&slots[i].start, __ATOMIC_ACQUIRE);
		uintptr_t page = a & ~(page_sz - 1);
		uint64_t off, seen;

		if (!start || a < start || a - start >= slots[i].len)
			continue;
		if (mmap((void *)page, page_sz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			break;
		off = page - start + 1;
		seen = __atomic_load_n(&slots[i].lost, __ATOMIC_RELAXED);
		while ((!seen || off < seen) &&
		       !__atomic_compare_exchange_n(&slots[i].lost, &seen, off, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		return;
	}
	/* Not a guarded page: what SIGBUS did before, by the fault again. */
	if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction) {
		before.sa_sigaction(sig, si, uc);
		return;
	}
	sigaction(SIGBUS, &before, NULL);
}

int tdr_mapguard__add(const void *start, size_t len)
{
	if (!installed) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		page_sz = (uintptr_t)sysconf(_SC_PAGESIZE);
		if (sigaction(SIGBUS, &sa, &before))
			return -1;
		installed = true;
	}
	if (!start || !len)
		return -1;
	for (int i = 0; i < TDR_MAPGUARD_SLOTS; i++) {
		if (__atomic_load_n(&slots[i].start, __ATOMIC_RELAXED))
			continue;
		slots[i].len = len;
		__atomic_store_n(&slots[i].lost, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].start, (uintptr_t)start, __ATOMIC_RELEASE);
		return i;
	}
	return -1;
}

bool tdr_mapguard__faulted(int slot, uint64_t *off)
{
	uint64_t lost;

	if (slot < 0 || slot >= TDR_MAPGUARD_SLOTS)
		return false;
	lost = __atomic_load_n(&slots[slot].lost, __ATOMIC_RELAXED);
	if (!lost)
		return false;
	*off = lost - 1;
	return true;
}

void tdr_mapguard__remove(int slot)
{
	if (slot >= 0 && slot < TDR_MAPGUARD_SLOTS)
		__atomic_store_n(&slots[slot].start, 0, __ATOMIC_RELEASE);
}
