/*
 * tdrec/tdr_mapguard.h - file mappings that survive the file shrinking.
 *
 * Reading a page of a mapped file past the file's end raises SIGBUS
 * (mmap(2)), so a reader of a file that is truncated or rewritten under it
 * (`cp other x` over it) would die with no message. A guarded mapping's
 * faults are answered instead: a page of zeros is mapped over the faulting
 * page and the read goes on; the reader asks afterwards whether that
 * happened and reports the file as cut. common/tdr_mapguard.c.
 */
#ifndef TDREC_TDR_MAPGUARD_H
#define TDREC_TDR_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many mappings can be guarded at once (a diff reads two files). */
#define TDR_MAPGUARD_SLOTS 8

/*
 * Guard the mapping [start, start + len) (start page-aligned, as mmap
 * returns it). The first call installs the SIGBUS handler; a fault outside
 * every guarded mapping gets the action SIGBUS had before. Returns the
 * slot, or -1 when all are taken or the handler cannot be installed (the
 * mapping is then read unguarded). Call from one thread at a time.
 */
int tdr_mapguard__add(const void *start, size_t len);

/* Whether a read of slot's mapping faulted; *off: the lowest offset of a
 * page that did (unchanged when none). Any thread. */
bool tdr_mapguard__faulted(int slot, uint64_t *off);

/* Stop guarding slot (before unmapping it). -1 is ignored. */
void tdr_mapguard__remove(int slot);

#endif /* TDREC_TDR_MAPGUARD_H */
