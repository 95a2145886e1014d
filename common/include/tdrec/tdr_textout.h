/*
 * common/include/tdrec/tdr_textout.h - text output shared by every module
 * that prints: the JSON string escaper, CSV fields and rows, the width of
 * UTF-8 text, and wrapping long lines.
 *
 * One implementation of the escaping rules, so 'report', 'diff', 'stat',
 * 'info' and the CLI's JSON errors quote the same way (the JSON documents
 * themselves are written by tdr_json.h), and every text output shows the
 * control characters of a string from a file (a path, a command line, a
 * symbol name) as '?': a recording from someone else cannot send escape
 * sequences to the reader's terminal (docs/security.md). They write to a stdio stream;
 * write errors are left in the stream (ferror) for the caller.
 */
#ifndef TDREC_TDR_TEXTOUT_H
#define TDREC_TDR_TEXTOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tdrec/tdr_api.h"

/* s as a JSON string: '"' and '\\' escaped, \n \t \r by name, other
 * control characters, DEL and C1 (U+0080..U+009F) as \u00XX; NULL as
 * null. Other well-formed UTF-8 passes through; any other byte >= 0x80
 * becomes \ufffd, so the output is valid JSON whatever bytes s holds. */
TDR_API void tdr_json_put_string(FILE *f, const char *s);

/* s as one CSV field (RFC 4180): quoted, with inner quotes doubled, when it
 * holds a comma or a quote; control characters (CR and LF included) as '?'
 * (tdr_text_put); NULL writes nothing (an empty field). */
TDR_API void tdr_csv_put_field(FILE *f, const char *s);

/*
 * A CSV row writer: fields joined with commas, each through
 * tdr_csv_put_field, the row ended by a line break.
 *
 *	struct tdr_csv c;
 *
 *	tdr_csv__init(&c, f);
 *	tdr_csv__field(&c, "name");
 *	tdr_csv__fieldf(&c, "%.4f", share);
 *	tdr_csv__end_row(&c);
 *
 * Numbers are formatted by the caller: each CSV schema (docs/report.md,
 * docs/stat.md) says how its columns are written.
 */
struct tdr_csv {
	FILE *f;
	bool in_row; /* a field of the current row is written */
};

TDR_API void tdr_csv__init(struct tdr_csv *c, FILE *f);
/* The next field; NULL or "" is an empty field. */
TDR_API void tdr_csv__field(struct tdr_csv *c, const char *s);
/* The next field from a printf format (quoted like any field if needed). */
TDR_API void tdr_csv__fieldf(struct tdr_csv *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* End the row (a row of no fields is an empty line). */
TDR_API void tdr_csv__end_row(struct tdr_csv *c);

/* Text for a terminal: s (n bytes of it, stopping at a NUL) with each
 * control character shown as '?': C0 (line breaks and tabs included), DEL,
 * C1 (U+0080..U+009F) and the bytes 0x80..0x9f outside well-formed UTF-8
 * (8-bit C1 controls such as CSI). Everything else is written as it is. */
TDR_API void tdr_text_put_n(FILE *f, const char *s, size_t n);
/* The same for all of s (NULL writes nothing). */
TDR_API void tdr_text_put(FILE *f, const char *s);
/* The same into buf (sz bytes, cut at a character boundary, always
 * NUL-terminated; NULL s gives ""). Returns buf. */
TDR_API const char *tdr_text_safe(const char *s, char *buf, size_t sz);

/* Display columns of UTF-8 text: its code points (a continuation byte
 * takes no column). */
TDR_API size_t tdr_text_cols(const char *s);
/* Bytes of the first cols code points of s (all of s when shorter). */
TDR_API size_t tdr_text_bytes_for_cols(const char *s, size_t cols);

/* How tdr_text_wrap lays out a paragraph. */
struct tdr_wrap {
	unsigned width;	    /* columns per line, prefix or indent included */
	const char *prefix; /* before the first line ("warning: "), NULL for none */
	unsigned indent;    /* spaces before every later line */
	const char *on;	    /* before each line's text (a colour), NULL for none */
	const char *off;    /* after each line's text, NULL for none */
};

/* text broken at spaces into lines of at most w->width columns (a word
 * longer than a line is cut); the room for text is never below 10 columns.
 * Control characters are shown as '?', so a message holding a newline or
 * a tab cannot break the layout. Every line ends with '\n'; empty text
 * writes nothing. */
TDR_API void tdr_text_wrap(FILE *f, const struct tdr_wrap *w, const char *text);

#endif /* TDREC_TDR_TEXTOUT_H */
