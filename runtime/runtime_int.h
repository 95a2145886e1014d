/*
 * runtime/runtime_int.h - runtime's functions shared between its own files.
 *
 * Responsibility: the parts of the program launcher, the signal watcher,
 * the machine facts, the rings and the session that only runtime/ itself
 * (and its tests) calls; tdrec/runtime.h keeps what the recorder and stat
 * modules use.
 */
#ifndef TDREC_RUNTIME_INT_H
#define TDREC_RUNTIME_INT_H

#include "tdrec/runtime.h"

/* ---------------------------------------------------------------------------
 * Used inside the module and by its tests only (no other module calls these).
 */
/* Block the signals and open the fd. Call before starting any thread.
 * Returns: 0 or -errno. */
int tdr_sigwatch__open(struct tdr_sigwatch *sw);
/* Read one pending signal. Returns 1 with *si set, 0 when none is pending, -errno. */
int tdr_sigwatch__read(struct tdr_sigwatch *sw, struct signalfd_siginfo *si);

/*
 * Fork a child that waits on a start pipe, then (after tdr_launch__go)
 * restores child_mask (NULL: empty mask) and execvp()s argv[0]. The child is
 * in tdrec's process group, so the terminal's Ctrl-C reaches it directly.
 * argv is borrowed for the call (the child has its own copy).
 * Returns: 0 or -errno (pipe, fork).
 */
int tdr_launch__start(char *const argv[], const sigset_t *child_mask, struct tdr_launch **out);

/* Send sig to the child unless it has been reaped. Returns 0 or -errno. */
int tdr_launch__signal(struct tdr_launch *l, int sig);

/* Whether the child has moved to a process group of its own (setsid,
 * setpgid): a terminal's signals to tdrec's group then miss it. */
bool tdr_launch__left_pgrp(const struct tdr_launch *l);

/* The attr as opened (after the session's own changes) of event e of group g. */
const struct perf_event_attr *tdr_session__attr(const struct tdr_session *s, size_t g, size_t e);

/* Use memory at base (one page_sz header page, then data_sz bytes, a power
 * of two) as a ring. For tests and benchmarks. */
void tdr_ring__init_mem(struct tdr_ring *r, void *base, size_t page_sz, uint64_t data_sz);

/* Add a sampler id to count samples by (group). Returns 0 or -ENOMEM. */
int tdr_ring__add_id(struct tdr_ring *r, uint64_t id, uint32_t group);

/* perf_event_paranoid's value, or INT_MIN when it cannot be read. */
int tdr_machine__paranoid(const char *proc_root);
/* kernel.perf_event_mlock_kb, or INT_MIN. */
int tdr_machine__mlock_kb(const char *proc_root);

#endif /* TDREC_RUNTIME_INT_H */
