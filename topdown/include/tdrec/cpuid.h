/*
 * topdown/include/tdrec/cpuid.h - which CPU a plan or a recording is for.
 *
 * Responsibility: one description of a CPU's identity, parsed from the
 * texts that carry it: perf's CPUID string (the perf.data CPUID header and
 * the PERF_CPUID environment variable: "GenuineIntel,6,85,7",
 * "AuthenticAMD,25,17,1", or on arm64 the MIDR "0x00000000410fd4f0"), and
 * /proc/cpuinfo (x86 "vendor_id", "cpu family", "model", "stepping"; arm64
 * "CPU implementer", "CPU variant", "CPU part", "CPU revision"). The TopDown
 * table matches families on it. It reads no file itself: callers hand in
 * the text (plan/sysfs.c for plans, runtime/machine.c for metadata,
 * parser/perfdata.c for imports).
 * Objects and lifecycle: plain data; nothing to free. Thread-safe.
 * See: docs/plans.md "CPU identity"; perf's tools/perf/arch/x86/util/header.c
 * (get_cpuid) and tools/perf/arch/arm64/util/header.c (MIDR).
 */
#ifndef TDREC_CPUID_H
#define TDREC_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

#define TDR_CPUID_VENDOR_MAX 16

struct tdr_cpuid {
	bool known;				/* false: nothing could be read */
	char vendor[TDR_CPUID_VENDOR_MAX];	/* "GenuineIntel", "AuthenticAMD";
						 * arm64: "ARM" for implementer 0x41,
						 * else "arm64" */
	uint32_t family, model, stepping;	/* x86 */
	uint64_t midr;				/* arm64 MIDR_EL1; 0 on x86 */
};

/* The MIDR fields of an arm64 identity (implementer 0x41 is Arm Ltd;
 * part 0xd4f is Neoverse V2). */
static inline uint32_t tdr_cpuid_arm_implementer(const struct tdr_cpuid *c)
{
	return (uint32_t)(c->midr >> 24) & 0xff;
}

static inline uint32_t tdr_cpuid_arm_part(const struct tdr_cpuid *c)
{
	return (uint32_t)(c->midr >> 4) & 0xfff;
}

/*
 * Parse perf's CPUID string: "VENDOR,FAMILY,MODEL,STEPPING" (decimal, or
 * 0x-prefixed hex; what perf writes in perf.data and takes in PERF_CPUID),
 * "VENDOR-FAMILY-MODEL-STEPPING" (perf's event-table key: family decimal,
 * model and stepping hex), or an arm64 MIDR as hex ("0x410fd4f0", with or
 * without leading zeros). A trailing '$' or newline is ignored.
 * Returns: 0 with *out filled (known = true), -EINVAL for any other text
 * (*out cleared).
 */
TDR_API int tdr_cpuid_parse(const char *text, struct tdr_cpuid *out);

/*
 * The identity of the first CPU listed in text, the contents of
 * /proc/cpuinfo. Returns: 0 with *out filled, -ENOENT when text names no
 * vendor and no arm64 implementer (*out cleared).
 */
TDR_API int tdr_cpuid_from_cpuinfo(const char *text, struct tdr_cpuid *out);

/* The CPUID string in perf's comma form ("AuthenticAMD,25,17,1", or the
 * MIDR as 0x%016llx on arm64), "" when not known. Returns what snprintf
 * returns. */
TDR_API int tdr_cpuid_format(const struct tdr_cpuid *c, char *buf, size_t sz);

#endif /* TDREC_CPUID_H */
