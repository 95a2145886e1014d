/*
 * common/include/tdrec/tdr_num.h - whole unsigned numbers read from text.
 *
 * Responsibility: the one number reader of sysfs event strings, perf's
 * CPUID strings and /proc/cpuinfo values: decimal or 0x-prefixed hex, no
 * sign, no octal, no white space, no trailing junk, no overflow. A text
 * that is not wholly a number is an error, never a silently cut value.
 * Objects and lifecycle: a pure function. Thread-safe.
 */
#ifndef TDREC_TDR_NUM_H
#define TDREC_TDR_NUM_H

#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

/*
 * The number spelled by the len bytes at s, in base 10 or 16; base 0
 * reads a 0x prefix as hex and anything else as decimal, base 16 takes an
 * optional 0x prefix.
 * Returns: 0 with *out set, -EINVAL (not a number), -ERANGE (above max).
 */
TDR_API int tdr_num_parse_u64(const char *s, size_t len, int base, uint64_t max, uint64_t *out);

#endif /* TDREC_TDR_NUM_H */
