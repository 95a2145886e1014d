/*
 * common/include/tdrec/tdr_json.h - a small streaming JSON writer.
 *
 * Every JSON document tdrec prints ('report --json', 'diff --json',
 * 'stat --json', 'info --json' and the CLI's JSON errors) is written through
 * this writer, so they share one string escaper (tdr_json_put_string in
 * tdr_textout.h), one number format and one layout.
 *
 * Usage:
 *	struct tdr_json j;
 *
 *	tdr_json__init(&j, stdout);
 *	tdr_json__begin_object(&j, TDR_JSON_LINES);	   // the document
 *	tdr_json__key_string(&j, "schema", "x/1");
 *	tdr_json__key(&j, "events");
 *	tdr_json__begin_array(&j, TDR_JSON_INLINE);
 *	tdr_json__string(&j, "cycles");
 *	tdr_json__end_array(&j);
 *	tdr_json__end_object(&j);			   // writes the final '\n'
 *
 * Layout: the writer places every comma, colon, space, line break and
 * indentation; callers only say whether a container lists its members one
 * per line (TDR_JSON_LINES, indented two spaces per level) or on one line
 * separated by ", " (TDR_JSON_INLINE). Inside an inline container everything
 * is inline. A key and its value are separated by ": ". The document ends
 * with a line break when its outermost container closes.
 *
 * Numbers: integers exactly (tdr_json__uint, __int). A double (tdr_json__key_double)
 * is written in the one format all documents share: an integral value below
 * 2^53 as an integer ("1000"), any other finite value with the fewest
 * significant digits, from 15 to 17, that read back as the same double
 * ("0.1", "0.3333333333333333"): nothing the renderer computed is lost, and
 * no digit is printed that the double does not hold. NAN and infinities, which
 * JSON cannot represent, are written as null.
 *
 * The caller keeps the calls well nested (a key only inside an object, one
 * value after each key); misuse is a programming error caught by assert().
 * Write errors stay in the stream (ferror) for the caller.
 * Ownership and threads: the writer borrows f; one writer per thread.
 */
#ifndef TDREC_TDR_JSON_H
#define TDREC_TDR_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tdrec/tdr_api.h"

/* How deep containers may nest. */
#define TDR_JSON_MAX_DEPTH 32

enum tdr_json_layout {
	TDR_JSON_INLINE = 0, /* members on one line: {"a": 1, "b": 2} */
	TDR_JSON_LINES,	     /* one member per line, indented */
};

struct tdr_json {
	FILE *f;
	unsigned depth;	   /* containers open */
	uint32_t lines;	   /* bit d: the container at depth d + 1 is TDR_JSON_LINES */
	uint32_t nonempty; /* bit d: the container at depth d + 1 has a member */
	uint32_t is_object; /* bit d: the container at depth d + 1 is an object */
	bool after_key;	   /* a key is written: its value comes next */
};

/* Start a document on f (borrowed until the last call). */
TDR_API void tdr_json__init(struct tdr_json *j, FILE *f);

TDR_API void tdr_json__begin_object(struct tdr_json *j, enum tdr_json_layout layout);
TDR_API void tdr_json__end_object(struct tdr_json *j);
TDR_API void tdr_json__begin_array(struct tdr_json *j, enum tdr_json_layout layout);
TDR_API void tdr_json__end_array(struct tdr_json *j);

/* The key of the next member of the current object (escaped like a string). */
TDR_API void tdr_json__key(struct tdr_json *j, const char *key);

/* Values: a string (NULL writes null), integers, a double in the format
 * above (null when not finite), a boolean, null. */
TDR_API void tdr_json__string(struct tdr_json *j, const char *s);
TDR_API void tdr_json__uint(struct tdr_json *j, uint64_t v);
TDR_API void tdr_json__int(struct tdr_json *j, int64_t v);
TDR_API void tdr_json__double(struct tdr_json *j, double v);
TDR_API void tdr_json__bool(struct tdr_json *j, bool v);
TDR_API void tdr_json__null(struct tdr_json *j);

/* A key and its value in one call. */
TDR_API void tdr_json__key_string(struct tdr_json *j, const char *key, const char *s);
TDR_API void tdr_json__key_uint(struct tdr_json *j, const char *key, uint64_t v);
TDR_API void tdr_json__key_int(struct tdr_json *j, const char *key, int64_t v);
TDR_API void tdr_json__key_double(struct tdr_json *j, const char *key, double v);
TDR_API void tdr_json__key_bool(struct tdr_json *j, const char *key, bool v);
TDR_API void tdr_json__key_null(struct tdr_json *j, const char *key);

/* The number format of tdr_json__key_double into buf (at least 32 bytes);
 * "null" when v is not finite. Returns buf. */
TDR_API char *tdr_json_format_double(double v, char *buf, size_t sz);

#endif /* TDREC_TDR_JSON_H */
