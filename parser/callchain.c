/*
 * parser/callchain.c - a sample's callers from its PERF_SAMPLE_CALLCHAIN.
 *
 * Responsibility: turn the kernel's callchain (u64 entries, innermost first,
 * with PERF_CONTEXT_* markers saying where the entries after them are) into
 * struct tdr_frame entries: markers dropped, each frame's cpumode taken from
 * the last marker before it (user when none came yet, as perf's
 * thread__resolve_callchain_sample assumes), and its mapping and map offset
 * found as for the sample's own ip. The kernel stores the interrupted ip as
 * the first entry of the context the sample was taken in (kernel/events/
 * callchain.c get_perf_callchain; arch perf_callchain_kernel/_user store
 * regs->ip first): that entry is the sample itself, not a caller, and is
 * dropped. It is not dropped when the callchain starts in another context
 * (a kernel sample whose kernel part was excluded): then the first entry is
 * a real caller (the user-mode ip the kernel was entered from).
 * A sample with a copy of its user stack (--call-graph dwarf: the kernel
 * writes no user callchain then, exclude_callchain_user) gets its user
 * frames from the caller's unwinder (tdr_parser__set_unwinder), after the
 * kernel ones: the user pc first when the sample was taken in the kernel
 * (where the program entered it), then each return address. When the
 * file's archive stores the sample's unwound stack (docs/format.md 7.2,
 * "Stacks"; the sample named by its place in the file, run.c), that stack
 * is used instead of unwinding: it does not depend on the binaries now.
 * A sample with an LBR call stack (--call-graph lbr) gets its user part
 * from the LBR entries instead of the frame-pointer walk, as perf's
 * resolve_lbr_callchain_sample orders them: the kernel part, then (for a
 * kernel sample) the entry point of the user function that entered the
 * kernel (entry 0's target), then each entry's call instruction, innermost
 * first. Those addresses are not return addresses: they are stored plus
 * one, so that the one lookup rule for callers (address - 1) lands on the
 * call instruction itself (or the function's first byte).
 * It does not symbolize: return addresses stay as the kernel or the
 * unwinder gave them.
 * Hot path: allocates only when a sample has more frames than any before.
 * See: uapi linux/perf_event.h (PERF_SAMPLE_CALLCHAIN, enum perf_callchain_context);
 * docs/parser.md "Call stacks".
 */
#include "parser_int.h"

#include <errno.h>

#include "tdrec/archive.h"
#include "tdrec/tdr_mem.h"

/* The cpumode of the entries after a PERF_CONTEXT_* marker. */
static enum tdr_cpumode marker_mode(uint64_t m)
{
	switch (m) {
	case PERF_CONTEXT_HV:
		return TDR_MODE_HYPERVISOR;
	case PERF_CONTEXT_KERNEL:
		return TDR_MODE_KERNEL;
	case PERF_CONTEXT_USER:
		return TDR_MODE_USER;
	case PERF_CONTEXT_GUEST_KERNEL:
		return TDR_MODE_GUEST_KERNEL;
	case PERF_CONTEXT_GUEST_USER:
		return TDR_MODE_GUEST_USER;
	default:
		/* PERF_CONTEXT_GUEST precedes GUEST_KERNEL/GUEST_USER; others
		 * are not defined by the kernel. */
		return TDR_MODE_UNKNOWN;
	}
}

static void put_frame(struct tdr_parser *p, const struct tdr_sample *s, uint32_t n, uint64_t ip,
		      enum tdr_cpumode mode)
{
	struct tdr_frame *f = &p->frames[n];

	f->ip = ip;
	f->cpumode = mode;
	f->map = tdr_parser_maps_find(&p->maps, s->pid, ip, mode);
	f->map_off = f->map ? ip - f->map->start + f->map->pgoff : 0;
}

/* The stack the file's archive stores for the record being fed: its pc
 * count (pcs set), or 0. */
static uint32_t stored_stack(struct tdr_parser *p, const uint64_t **pcs)
{
	if (!p->stored_stacks || !p->rec_pos || p->rec_ord == UINT32_MAX)
		return 0;
	return tdr_archive__stack(p->archive, p->rec_frame, p->rec_ord, pcs);
}

/* Append the unwound user frames of r's stack copy after frames[0..n):
 * stored in the archive, else from the caller's unwinder. */
static int unwind_user(struct tdr_parser *p, const struct dec_rec *r, struct tdr_sample *s,
		       uint32_t *n)
{
	const struct tdr_user_stack u = {.mask = p->dec.ev[r->ev].regs_mask,
					 .regs = r->user.regs,
					 .stack = r->user.stack,
					 .stack_sz = r->user.stack_sz};
	const uint64_t *pcs = p->pcs;
	int cnt;

	p->ustack = (struct tdr_sample_stack){.has_pos = p->rec_pos && p->rec_ord != UINT32_MAX,
					      .frame = p->rec_frame,
					      .ord = p->rec_ord};
	if (!r->user.regs_abi || !r->user.regs)
		return 0; /* a kernel thread: no user state */
	p->stats.user_stacks++;
	if (!p->unwind)
		return 0;
	cnt = (int)stored_stack(p, &pcs);
	if (cnt) {
		p->stats.user_stacks_stored++;
		p->ustack.stored = true;
	} else {
		if (!p->pcs && !(p->pcs = tdr_calloc(TDR_UNWIND_MAX_PCS, sizeof(*p->pcs))))
			return -ENOMEM;
		pcs = p->pcs;
		s->frames = p->frames;
		s->frame_cnt = *n;
		cnt = p->unwind(p->unwind_ctx, s, &u, p->pcs, TDR_UNWIND_MAX_PCS);
		if (cnt < 0)
			return cnt;
		if (cnt > TDR_UNWIND_MAX_PCS)
			cnt = TDR_UNWIND_MAX_PCS;
	}
	p->ustack.pcs = pcs;
	p->ustack.cnt = (uint32_t)cnt;
	if (cnt > 1)
		p->stats.user_stacks_unwound++;
	if (*n + (size_t)cnt > p->frame_cap &&
	    tdr_ensure_cap(&p->frames, &p->frame_cap, sizeof(*p->frames), *n + (size_t)cnt))
		return -ENOMEM;
	/* The user pc is the sample itself when it was taken in user mode. */
	for (int i = s->cpumode == TDR_MODE_USER ? 1 : 0; i < cnt; i++)
		put_frame(p, s, (*n)++, pcs[i], TDR_MODE_USER);
	return 0;
}

/* The LBR call stack's user frames after frames[0..n). */
static int lbr_user(struct tdr_parser *p, const struct dec_rec *r, struct tdr_sample *s,
		    uint32_t *n)
{
	const uint8_t *e = r->user.branches;
	uint64_t nr = r->user.branch_nr;

	if (*n + nr + 1 > p->frame_cap &&
	    tdr_ensure_cap(&p->frames, &p->frame_cap, sizeof(*p->frames), *n + nr + 1))
		return -ENOMEM;
	/* entry 0's target: the user function the sample (or syscall) is in */
	if (s->cpumode != TDR_MODE_USER)
		put_frame(p, s, (*n)++, ld64(e + 8) + 1, TDR_MODE_USER);
	for (uint64_t i = 0; i < nr; i++)
		put_frame(p, s, (*n)++, ld64(e + 24 * i) + 1, TDR_MODE_USER);
	return 0;
}

int tdr_parser_callchain(struct tdr_parser *p, const struct dec_rec *r, struct tdr_sample *s)
{
	bool lbr = p->dec.ev[r->ev].lbr_stack && r->user.branch_nr;
	const uint8_t *cc = r->sample.callchain;
	uint64_t nr = r->sample.callchain_nr, i;
	enum tdr_cpumode mode = TDR_MODE_USER;
	bool first = true;
	uint32_t n = 0;
	int err = 0;

	s->frames = NULL;
	s->frame_cnt = 0;
	if (nr > UINT32_MAX - TDR_UNWIND_MAX_PCS)
		nr = UINT32_MAX - TDR_UNWIND_MAX_PCS;
	if (nr > p->frame_cap &&
	    tdr_ensure_cap(&p->frames, &p->frame_cap, sizeof(*p->frames), (size_t)nr))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		uint64_t ip = ld64(cc + 8 * i);

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			mode = marker_mode(ip);
			/* The LBR replaces the frame-pointer walk of user code. */
			if (lbr && mode == TDR_MODE_USER)
				break;
			continue;
		}
		if (first) {
			first = false;
			if (mode == s->cpumode)
				continue; /* the sample's own ip */
		}
		put_frame(p, s, n++, ip, mode);
	}
	if (lbr)
		err = lbr_user(p, r, s, &n);
	else if (p->dec.ev[r->ev].user_stack)
		err = unwind_user(p, r, s, &n);
	s->frames = n ? p->frames : NULL;
	s->frame_cnt = n;
	return err;
}
