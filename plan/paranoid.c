/*
 * plan/paranoid.c - may this process count kernel mode (perf_event_paranoid).
 *
 * Responsibility: tdr_plan_kernel_counts_allowed, alone in its file so
 * that libtdrec compiles it without the rest of the plan.
 */
#include "tdrec/plan_paranoid.h"

#include <stdio.h>
#include <unistd.h>

bool tdr_plan_kernel_counts_allowed(void)
{
	FILE *f;
	int paranoid = 2;

	if (geteuid() == 0)
		return true;
	/* "e": libtdrec runs inside programs that may fork and exec. */
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (!f)
		return false;
	if (fscanf(f, "%d", &paranoid) != 1)
		paranoid = 2;
	fclose(f);
	return paranoid <= 1;
}
