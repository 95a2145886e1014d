/*
 * export/speedscope.c - a profile in speedscope's file format (JSON).
 *
 * Responsibility: one "sampled" profile per value, all over one shared
 * frame table (a frame per function: name, and its source file when
 * known); each profile lists every stack with a non-zero value as frame
 * indexes outermost first (inline frames expanded) with that value as its
 * weight. The fields are those of speedscope's
 * src/lib/file-format-spec.ts ($schema, shared.frames, profiles with type,
 * name, unit, startValue, endValue, samples, weights; exporter, name,
 * activeProfileIndex). Clocks are in nanoseconds, the rest unit "none".
 * docs/export.md "speedscope".
 */
#include "export_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_json.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

static void put_frames(struct tdr_json *j, const struct tdr_profile *p)
{
	tdr_json__key(j, "frames");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t i = 0; i < p->func_cnt; i++) {
		tdr_json__begin_object(j, TDR_JSON_INLINE);
		tdr_json__key_string(j, "name", p->funcs[i].name);
		if (p->funcs[i].file)
			tdr_json__key_string(j, "file", p->funcs[i].file);
		tdr_json__end_object(j);
	}
	tdr_json__end_array(j);
}

static void put_profile(struct tdr_json *j, const struct tdr_profile *p, size_t v)
{
	uint32_t frames[EX_MAX_FRAMES];
	double total = 0;

	for (size_t s = 0; s < p->stack_cnt; s++) {
		double x = round(tdr_export_stack_value(p, s, v));

		total += x > 0 ? x : 0;
	}
	tdr_json__begin_object(j, TDR_JSON_LINES);
	tdr_json__key_string(j, "type", "sampled");
	tdr_json__key_string(j, "name", p->values[v].name);
	tdr_json__key_string(j, "unit",
			     !strcmp(p->values[v].unit, "nanoseconds") ? "nanoseconds" : "none");
	tdr_json__key_uint(j, "startValue", 0);
	tdr_json__key_double(j, "endValue", total);
	tdr_json__key(j, "samples");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t s = 0; s < p->stack_cnt; s++) {
		size_t n = tdr_export_stack_frames(p, s, frames, EX_MAX_FRAMES);

		if (round(tdr_export_stack_value(p, s, v)) <= 0 || !n)
			continue;
		tdr_json__begin_array(j, TDR_JSON_INLINE);
		for (size_t i = 0; i < n; i++)
			tdr_json__uint(j, frames[i]);
		tdr_json__end_array(j);
	}
	tdr_json__end_array(j);
	tdr_json__key(j, "weights");
	tdr_json__begin_array(j, TDR_JSON_LINES);
	for (size_t s = 0; s < p->stack_cnt; s++) {
		double x = round(tdr_export_stack_value(p, s, v));

		if (x > 0 && tdr_export_stack_frames(p, s, frames, 1))
			tdr_json__double(j, x);
	}
	tdr_json__end_array(j);
	tdr_json__end_object(j);
}

int tdr_export_speedscope(const struct tdr_profile *p, FILE *out)
{
	struct tdr_json j;

	tdr_json__init(&j, out);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "$schema", SPEEDSCOPE_SCHEMA);
	tdr_json__key_string(&j, "exporter", "tdrec " TDREC_VERSION);
	tdr_json__key_string(&j, "name", p->command);
	tdr_json__key_uint(&j, "activeProfileIndex", 0);
	tdr_json__key(&j, "shared");
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	put_frames(&j, p);
	tdr_json__end_object(&j);
	tdr_json__key(&j, "profiles");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (size_t v = 0; v < p->value_cnt; v++)
		put_profile(&j, p, v);
	tdr_json__end_array(&j);
	tdr_json__end_object(&j);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}
