/*
 * export/folded.c - a profile as folded stacks ("outer;...;leaf N").
 *
 * Responsibility: one line per distinct frame sequence with one value
 * (samples, an event, the slots or a TopDown category's slots; summed over
 * the stacks with those frames, then rounded to an integer), the frames
 * outermost first and each location's inline frames expanded (physical
 * function, then its inlined callees), as flamegraph.pl, inferno and
 * speedscope read them. Lines whose value rounds to 0 or below are left out
 * (those tools draw widths). A ';' in a name would split a frame, so it is
 * written as ':'; line breaks as spaces. docs/export.md "folded".
 */
#include "export_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* One distinct frame sequence: the first stack that has it, and the sum. */
struct fold {
	uint32_t stack;
	uint64_t hash;
	double sum;
};

struct fold_tab {
	const struct tdr_profile *p;
	struct fold *v;
	size_t cnt, cap;
	struct tdr_hmap index;
	const uint32_t *key; /* the frames looked for */
	size_t key_n;
};

static uint64_t fold_hash(const void *ctx, uint32_t idx)
{
	return ((const struct fold_tab *)ctx)->v[idx].hash;
}

static bool fold_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct fold_tab *t = ctx;
	uint32_t frames[EX_MAX_FRAMES];
	size_t n;

	(void)key;
	n = tdr_export_stack_frames(t->p, t->v[idx].stack, frames, EX_MAX_FRAMES);
	return n == t->key_n && !memcmp(frames, t->key, n * sizeof(*frames));
}

static void put_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

int tdr_export_folded(const struct tdr_profile *p, size_t value, FILE *out)
{
	uint32_t frames[EX_MAX_FRAMES];
	struct fold_tab t = {.p = p};
	int err = 0;

	if (value >= p->value_cnt)
		return -EINVAL;
	for (size_t s = 0; s < p->stack_cnt && !err; s++) {
		size_t n = tdr_export_stack_frames(p, s, frames, EX_MAX_FRAMES), pos;
		uint64_t h = tdr_hash_bytes(frames, n * sizeof(*frames));
		uint32_t idx;

		t.key = frames;
		t.key_n = n;
		err = tdr_hmap__reserve(&t.index, 256, fold_hash, &t);
		if (err)
			break;
		idx = tdr_hmap__find(&t.index, h, fold_eq, &t, NULL, &pos);
		if (idx == TDR_HMAP_NONE) {
			err = tdr_ensure_cap(&t.v, &t.cap, sizeof(*t.v), t.cnt + 1);
			if (err)
				break;
			t.v[t.cnt] = (struct fold){(uint32_t)s, h, 0.0};
			idx = tdr_hmap__add(&t.index, pos);
			t.cnt++;
		}
		t.v[idx].sum += tdr_export_stack_value(p, s, value);
	}
	for (size_t i = 0; i < t.cnt && !err; i++) {
		long long v = llround(t.v[i].sum);
		size_t n = tdr_export_stack_frames(p, t.v[i].stack, frames, EX_MAX_FRAMES);

		if (v <= 0 || !n)
			continue;
		for (size_t f = 0; f < n; f++) {
			if (f)
				fputc(';', out);
			put_name(out, p->funcs[frames[f]].name);
		}
		fprintf(out, " %lld\n", v);
	}
	free(t.v);
	tdr_hmap__fini(&t.index);
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}
