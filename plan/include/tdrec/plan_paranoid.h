/*
 * plan/include/tdrec/plan_paranoid.h - may this process count kernel mode.
 *
 * Responsibility: the one reading of perf_event_paranoid for kernel-mode
 * counts, shared by the plan (tdrec record/stat) and libtdrec, which
 * compiles plan/paranoid.c into its own objects (libtdrec/CMakeLists.txt).
 * Objects and lifecycle: a function of the process's credentials and
 * /proc; thread-safe.
 */
#ifndef TDREC_PLAN_PARANOID_H
#define TDREC_PLAN_PARANOID_H

#include <stdbool.h>

#include "tdrec/tdr_api.h"

/* Whether this process may count kernel-mode events of its targets: root, or
 * /proc/sys/kernel/perf_event_paranoid <= 1. */
TDR_API bool tdr_plan_kernel_counts_allowed(void);

#endif /* TDREC_PLAN_PARANOID_H */
