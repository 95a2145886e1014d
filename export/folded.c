/*
 * export/folded.c - a profile as folded stacks ("outer;...;leaf N").
 *
 * Responsibility: one line per stack with one value (samples, an event,
 * the slots or a TopDown category's slots; rounded to an integer), the
 * frames outermost first and each location's inline frames expanded
 * (physical function, then its inlined callees), as flamegraph.pl,
 * inferno and speedscope read them. Stacks whose value rounds to 0 are
 * left out (those tools would draw nothing for them). A ';' in a name
 * would split a frame, so it is written as ':'; line breaks as spaces.
 * docs/export.md "folded".
 */
#include "export_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

static void put_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

int tdr_export_folded(const struct tdr_profile *p, size_t value, FILE *out)
{
	uint32_t frames[EX_MAX_FRAMES];

	if (value >= p->value_cnt)
		return -EINVAL;
	for (size_t s = 0; s < p->stack_cnt; s++) {
		long long v = llround(tdr_export_stack_value(p, s, value));
		size_t n = tdr_export_stack_frames(p, s, frames, EX_MAX_FRAMES);

		if (v <= 0 || !n)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputc(';', out);
			put_name(out, p->funcs[frames[i]].name);
		}
		fprintf(out, " %lld\n", v);
	}
	return ferror(out) ? -EIO : 0;
}
