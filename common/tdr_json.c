/*
 * common/tdr_json.c - the streaming JSON writer (tdr_json.h).
 *
 * Responsibility: separators, line breaks, indentation and the number
 * format; strings go through tdr_json_put_string (tdr_textout.c), the one
 * escaper. What the documents hold is each renderer's business.
 * Invariants: depth counts the open containers; bit d of lines, nonempty
 * and is_object describes the container at depth d + 1. A LINES container
 * inside an INLINE one is written inline, so a line never breaks inside a
 * one-line container.
 */
#include "tdrec/tdr_json.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "tdrec/tdr_textout.h"

void tdr_json__init(struct tdr_json *j, FILE *f)
{
	*j = (struct tdr_json){.f = f};
}

static bool bit(uint32_t v, unsigned d)
{
	return v >> d & 1;
}

static void indent(const struct tdr_json *j, unsigned level)
{
	fputc('\n', j->f);
	for (unsigned i = 0; i < level; i++)
		fputs("  ", j->f);
}

/* What goes before a value or a key: nothing after a key (its ": " is
 * written), else a comma after an earlier member, then a line break and
 * indentation in a LINES container or a space in an INLINE one. */
static void before_member(struct tdr_json *j)
{
	unsigned d;

	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->depth)
		return;
	d = j->depth - 1;
	if (bit(j->nonempty, d))
		fputc(',', j->f);
	if (bit(j->lines, d))
		indent(j, j->depth);
	else if (bit(j->nonempty, d))
		fputc(' ', j->f);
	j->nonempty |= 1u << d;
}

/* Values sit in arrays, after keys, or at the top. */
static void before_value(struct tdr_json *j)
{
	assert(j->after_key || !j->depth || !bit(j->is_object, j->depth - 1));
	before_member(j);
}

static void begin(struct tdr_json *j, enum tdr_json_layout layout, bool object)
{
	unsigned d = j->depth;
	bool parent_lines = !d || bit(j->lines, d - 1);

	before_value(j);
	assert(d < TDR_JSON_MAX_DEPTH);
	fputc(object ? '{' : '[', j->f);
	j->lines &= ~(1u << d);
	j->nonempty &= ~(1u << d);
	j->is_object &= ~(1u << d);
	if (layout == TDR_JSON_LINES && parent_lines)
		j->lines |= 1u << d;
	if (object)
		j->is_object |= 1u << d;
	j->depth++;
}

static void end(struct tdr_json *j, bool object)
{
	unsigned d;

	assert(j->depth && !j->after_key);
	d = j->depth - 1;
	assert(bit(j->is_object, d) == object);
	(void)object;
	if (bit(j->lines, d) && bit(j->nonempty, d))
		indent(j, d);
	fputc(object ? '}' : ']', j->f);
	j->depth--;
	if (!j->depth)
		fputc('\n', j->f);
}

void tdr_json__begin_object(struct tdr_json *j, enum tdr_json_layout layout)
{
	begin(j, layout, true);
}

void tdr_json__end_object(struct tdr_json *j)
{
	end(j, true);
}

void tdr_json__begin_array(struct tdr_json *j, enum tdr_json_layout layout)
{
	begin(j, layout, false);
}

void tdr_json__end_array(struct tdr_json *j)
{
	end(j, false);
}

void tdr_json__key(struct tdr_json *j, const char *key)
{
	assert(j->depth && bit(j->is_object, j->depth - 1) && !j->after_key);
	before_member(j);
	tdr_json_put_string(j->f, key);
	fputs(": ", j->f);
	j->after_key = true;
}

void tdr_json__string(struct tdr_json *j, const char *s)
{
	before_value(j);
	tdr_json_put_string(j->f, s);
}

void tdr_json__uint(struct tdr_json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRIu64, v);
}

void tdr_json__int(struct tdr_json *j, int64_t v)
{
	before_value(j);
	fprintf(j->f, "%" PRId64, v);
}

char *tdr_json_format_double(double v, char *buf, size_t sz)
{
	/* 2^53: above it not every integer is a double, and %.0f would print
	 * digits the value does not have. */
	const double exact_int = 9007199254740992.0;

	if (!isfinite(v)) {
		snprintf(buf, sz, "null");
	} else if (v == trunc(v) && fabs(v) < exact_int) {
		/* "-0" is valid JSON but reads oddly; 0 is the same number. */
		snprintf(buf, sz, "%.0f", v == 0 ? 0.0 : v);
	} else {
		/* 17 significant digits always read back as the same double
		 * (IEEE 754 binary64); fewer often do, and are what a person
		 * expects to see ("0.1", not "0.10000000000000001"). */
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sz, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	}
	return buf;
}

void tdr_json__double(struct tdr_json *j, double v)
{
	char buf[40];

	before_value(j);
	fputs(tdr_json_format_double(v, buf, sizeof(buf)), j->f);
}

void tdr_json__bool(struct tdr_json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->f);
}

void tdr_json__null(struct tdr_json *j)
{
	before_value(j);
	fputs("null", j->f);
}

void tdr_json__key_string(struct tdr_json *j, const char *key, const char *s)
{
	tdr_json__key(j, key);
	tdr_json__string(j, s);
}

void tdr_json__key_uint(struct tdr_json *j, const char *key, uint64_t v)
{
	tdr_json__key(j, key);
	tdr_json__uint(j, v);
}

void tdr_json__key_int(struct tdr_json *j, const char *key, int64_t v)
{
	tdr_json__key(j, key);
	tdr_json__int(j, v);
}

void tdr_json__key_double(struct tdr_json *j, const char *key, double v)
{
	tdr_json__key(j, key);
	tdr_json__double(j, v);
}

void tdr_json__key_bool(struct tdr_json *j, const char *key, bool v)
{
	tdr_json__key(j, key);
	tdr_json__bool(j, v);
}

void tdr_json__key_null(struct tdr_json *j, const char *key)
{
	tdr_json__key(j, key);
	tdr_json__null(j);
}
