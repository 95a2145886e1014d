/*
 * symbolize/unwind.c - user stacks unwound offline from a copy (--call-graph dwarf).
 *
 * Responsibility: given a sample's user registers (PERF_SAMPLE_REGS_USER,
 * in the order of the attr's sample_regs_user bits) and the copy of its user
 * stack from the stack pointer (PERF_SAMPLE_STACK_USER), walk the frames with
 * libdw's unwinder (the CFI of each module: .eh_frame, or .debug_frame from
 * the object or its debug file) and return the program counters, innermost
 * first: the interrupted pc, then each return address as found on the stack.
 * It does what perf's util/unwind-libdw.c does, with its own callbacks: one
 * libdwfl session per process, attached to a thread state whose registers
 * and memory are the current sample's (memory outside the copy cannot be
 * read: the walk stops there), and the mapped objects reported to the
 * session when the walk first needs them (their paths and mappings come
 * from the caller's find callback, i.e. from the recording's MMAP records;
 * the load bias from the mapping and the file's segments, open_object).
 * It does not symbolize, and reads nothing of the running system but the
 * object files.
 * Objects and lifecycle: tdr_unwinder__new -> __unwind (repeat) -> __free.
 * Ownership and threads: one unwinder per thread; the register and stack
 * buffers are borrowed for one __unwind call.
 * See: docs/symbolize.md "Unwinding stack copies"; libdwfl.h
 * (Dwfl_Thread_Callbacks); arch/x86/include/uapi/asm/perf_regs.h,
 * arch/arm64/include/uapi/asm/perf_regs.h; the DWARF register numbers of
 * the x86-64 psABI and of the AArch64 DWARF ABI.
 */
#include "symbolize_int.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "unwind: "
#include "tdrec/tdr_log.h"

/*
 * DWARF register n is perf register dwarf_to_perf[n]; the pc and the stack
 * pointer by their perf numbers. x86-64 DWARF: rax rdx rcx rbx rsi rdi rbp
 * rsp r8..r15; perf: ax bx cx dx si di bp sp ip flags cs ss ds es fs gs
 * r8..r15 (ip = 8, r8 = 16). AArch64: x0..x30 and sp are DWARF 0..31 and
 * perf 0..31, pc is perf 32.
 */
#if defined(__x86_64__)
static const uint8_t dwarf_to_perf[] = {0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23};
#define PERF_PC 8
#define PERF_SP 7
#elif defined(__aarch64__)
static const uint8_t dwarf_to_perf[] = {0,  1,	2,  3,	4,  5,	6,  7,	8,  9,	10,
					11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
					22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
#define PERF_PC 32
#define PERF_SP 31
#else
#define NO_UNWIND 1
#endif

#define MAX_REPORTS 16 /* objects reported to one walk before giving up on more */

/* The sample being unwound (valid during one __unwind). */
struct cur {
	uint32_t tid;
	uint64_t mask;
	const uint8_t *regs;
	const uint8_t *stack;
	uint64_t stack_sz, sp;
	uint64_t *pcs;
	uint32_t max, n;
};

/* One process: its libdwfl session and the objects reported to it. */
struct proc {
	uint32_t pid;
	Dwfl *dwfl;
	bool attached;
	struct cur *cur; /* the unwinder's, for the callbacks */
};

/* Host-endian u64 from a kernel record (unaligned-safe). */
static uint64_t ld64(const uint8_t *q)
{
	uint64_t v;

	memcpy(&v, q, sizeof(v));
	return v;
}

struct tdr_unwinder {
	tdr_unwind_find_fn find;
	void *find_ctx;
	struct tdr_u64map pids; /* pid -> index into procs */
	struct proc **procs;
	size_t proc_cnt, proc_cap;
	struct cur cur;
	char *debuginfo_path;
	Dwfl_Callbacks cbs;
	uint64_t stats_walks, stats_failed;
};

static bool reg_of(const struct cur *c, unsigned perf_reg, uint64_t *out)
{
	if (perf_reg >= 64 || !(c->mask & (1ull << perf_reg)))
		return false;
	/* The values come in the order of the mask's bits. */
	*out = ld64(c->regs + 8u * (unsigned)__builtin_popcountll(
					      c->mask & ((1ull << perf_reg) - 1)));
	return true;
}

/* ---- the thread state callbacks ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* Only the copied stack is readable: the walk ends where it leaves it. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct cur *c = ((struct proc *)arg)->cur;

	(void)dwfl;
	if (addr < c->sp || addr - c->sp > c->stack_sz || c->stack_sz - (addr - c->sp) < 8)
		return false;
	*result = ld64(c->stack + (addr - c->sp));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
#ifdef NO_UNWIND
	(void)thread;
	(void)arg;
	return false;
#else
	const struct cur *c = ((struct proc *)arg)->cur;
	Dwarf_Word regs[TDR_ARRAY_SIZE(dwarf_to_perf)];
	uint64_t pc;

	for (size_t i = 0; i < TDR_ARRAY_SIZE(dwarf_to_perf); i++) {
		uint64_t v = 0;

		reg_of(c, dwarf_to_perf[i], &v);
		regs[i] = v;
	}
	if (!reg_of(c, PERF_PC, &pc))
		return false;
	if (!dwfl_thread_state_registers(thread, 0, TDR_ARRAY_SIZE(regs), regs))
		return false;
	dwfl_thread_state_register_pc(thread, pc);
	return true;
#endif
}

static const Dwfl_Thread_Callbacks thread_cbs = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* ---- processes and their objects ---- */

static struct proc *proc_get(struct tdr_unwinder *u, uint32_t pid)
{
	uint32_t i = tdr_u64map__get(&u->pids, pid);
	struct proc *p;

	if (i != TDR_HMAP_NONE)
		return u->procs[i];
	if (tdr_ensure_cap(&u->procs, &u->proc_cap, sizeof(*u->procs), u->proc_cnt + 1))
		return NULL;
	p = tdr_calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->cur = &u->cur;
	p->dwfl = dwfl_begin(&u->cbs);
	if (!p->dwfl || tdr_u64map__put(&u->pids, pid, (uint32_t)u->proc_cnt)) {
		if (p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
		return NULL;
	}
	u->procs[u->proc_cnt++] = p;
	return p;
}

/*
 * The object file of mapping m, open, and its load bias for the sample
 * address addr in it: libdwfl's runtime address of file vaddr v is
 * bias + v. The mapping puts file offset pgoff at start, and the PT_LOAD
 * segment that holds addr's file offset (code segments first) says which
 * vaddr that offset has, so bias = start - pgoff - (p_vaddr - p_offset).
 * (start - pgoff alone is right only where a segment's vaddr equals its
 * offset, as in GNU ld's output; lld places code a page above its offset,
 * and the unwinder then found no caller in such a program.) Only a regular
 * file is opened (never blocking on a FIFO: tdr_symbolize_open_regular),
 * and not when its build-id differs from the recorded one: another build's
 * CFI would give wrong callers. Returns the fd, or -1.
 */
static int open_object(const struct tdr_unwind_map *m, uint64_t addr, uint64_t *bias)
{
	uint64_t off = addr - m->start + m->pgoff;
	const void *id;
	bool found = false;
	size_t n = 0;
	ssize_t id_sz;
	Elf *elf;
	int fd;

	fd = tdr_symbolize_open_regular(m->path);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n))
		goto out;
	if (m->build_id_sz) {
		id_sz = dwelf_elf_gnu_build_id(elf, &id);
		if (id_sz > 0 && !tdr_symbolize_build_id_matches(m->build_id, m->build_id_sz, id,
								 (int)id_sz)) {
			tdr_debug("%s is not the recorded build: not unwound through", m->path);
			goto out;
		}
	}
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) != (pass == 1))
				continue;
			if (off >= ph.p_offset && off - ph.p_offset < ph.p_filesz) {
				*bias = m->start - m->pgoff - (ph.p_vaddr - ph.p_offset);
				found = true;
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	if (!found) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Report the object mapped at addr to p's session when it is not yet.
 * Returns true when a new object was reported. */
static bool report_at(struct tdr_unwinder *u, struct proc *p, uint64_t addr)
{
	struct tdr_unwind_map m = { 0 };
	Dwfl_Module *mod;
	uint64_t bias = 0;
	int fd;

	if (dwfl_addrmodule(p->dwfl, addr))
		return false;
	if (!u->find(u->find_ctx, p->pid, addr, &m) || !m.path || m.path[0] != '/')
		return false; /* anonymous memory, [vdso], JIT code: no file to read */
	fd = open_object(&m, addr, &bias);
	if (fd < 0)
		return false;
	dwfl_report_begin_add(p->dwfl);
	/* Base bias plus p_vaddr: module addresses are runtime addresses
	 * (libdwfl ignores the base of an ET_EXEC, which needs none). On
	 * success libdwfl owns fd. */
	mod = dwfl_report_elf(p->dwfl, m.path, m.path, fd, bias, true);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!mod) {
		tdr_debug("cannot report %s at %#llx: %s", m.path, (unsigned long long)bias,
			  dwfl_errmsg(-1));
		close(fd);
	}
	return mod != NULL;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct cur *c = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	c->pcs[c->n++] = pc;
	return c->n < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int tdr_unwinder__new(tdr_unwind_find_fn find, void *ctx, struct tdr_unwinder **out)
{
	struct tdr_unwinder *u = tdr_calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->find = find;
	u->find_ctx = ctx;
	u->cbs.find_elf = dwfl_build_id_find_elf;
	u->cbs.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cbs.section_address = dwfl_offline_section_address;
	u->cbs.debuginfo_path = &u->debuginfo_path;
	*out = u;
	return 0;
}

int tdr_unwinder__unwind(struct tdr_unwinder *u, const struct tdr_unwind_regs *regs,
			 uint64_t *pcs, uint32_t max)
{
	struct cur *c = &u->cur;
	struct proc *p;
	uint64_t pc;

#ifdef NO_UNWIND
	(void)regs;
	(void)pcs;
	(void)max;
	(void)c;
	(void)p;
	(void)pc;
	return 0;
#else
	if (!max)
		return 0;
	memset(c, 0, sizeof(*c));
	c->tid = regs->tid;
	c->mask = regs->mask;
	c->regs = regs->regs;
	c->stack = regs->stack;
	c->stack_sz = regs->stack ? regs->stack_sz : 0;
	c->pcs = pcs;
	c->max = max;
	if (!regs->regs || !reg_of(c, PERF_PC, &pc) || !reg_of(c, PERF_SP, &c->sp))
		return 0;
	p = proc_get(u, regs->pid);
	if (!p)
		return -ENOMEM;
	u->stats_walks++;
	/* The walk needs the object of every frame: report them as it meets
	 * them and walk again, a few times at most (once the process's
	 * objects are known, one walk). */
	report_at(u, p, pc);
	/* No object at the pc (anonymous or JIT code, or not mapped yet):
	 * nothing to walk with, as perf's unwinder gives nothing there. */
	if (!dwfl_addrmodule(p->dwfl, pc)) {
		u->stats_failed++;
		return 0;
	}
	for (int round = 0; round < MAX_REPORTS; round++) {
		bool more = false;

		if (!p->attached) {
			/* The architecture comes from a reported object. */
			if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_cbs, p)) {
				u->stats_failed++;
				return 0;
			}
			p->attached = true;
		}
		c->n = 0;
		dwfl_getthread_frames(p->dwfl, (pid_t)c->tid, frame_cb, c);
		if (!c->n)
			c->pcs[c->n++] = pc;
		/* A caller in an object not reported yet: the walk stopped
		 * there (return addresses are looked up one byte back). */
		if (c->n < c->max) {
			uint64_t last = c->pcs[c->n - 1];

			more = report_at(u, p, c->n > 1 ? last - 1 : last);
		}
		if (!more)
			break;
	}
	if (c->n < 2)
		u->stats_failed++;
	return (int)c->n;
#endif
}

void tdr_unwinder__free(struct tdr_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->proc_cnt; i++) {
		if (u->procs[i]->dwfl)
			dwfl_end(u->procs[i]->dwfl);
		free(u->procs[i]);
	}
	free(u->procs);
	tdr_u64map__fini(&u->pids);
	free(u);
}
