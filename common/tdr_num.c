/*
 * common/tdr_num.c - whole unsigned numbers read from text (tdr_num.h).
 */
#include "tdrec/tdr_num.h"

#include <errno.h>

int tdr_num_parse_u64(const char *s, size_t len, int base, uint64_t max, uint64_t *out)
{
	const char *end = s + len;
	uint64_t v = 0;

	if ((base == 0 || base == 16) && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (base == 0)
		base = 10;
	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (d > max || v > (max - d) / (unsigned)base)
			return -ERANGE;
		v = v * (unsigned)base + d;
	}
	*out = v;
	return 0;
}
