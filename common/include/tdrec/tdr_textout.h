/*
 * common/include/tdrec/tdr_textout.h - JSON string and CSV field writers
 * shared by every module that prints machine-readable output.
 *
 * One implementation of the escaping rules, so 'report', 'diff', 'stat',
 * 'info' and the CLI's JSON errors quote the same way. They write to a
 * stdio stream; write errors are left in the stream (ferror) for the caller.
 */
#ifndef TDREC_TDR_TEXTOUT_H
#define TDREC_TDR_TEXTOUT_H

#include <stdio.h>

/* s as a JSON string: '"' and '\\' escaped, \n \t \r by name, other
 * control characters and DEL as \u00XX; NULL as null. Well-formed UTF-8
 * passes through; any other byte >= 0x80 becomes \ufffd, so the output is
 * valid JSON whatever bytes s holds. */
void tdr_json_put_string(FILE *f, const char *s);

/* s as one CSV field (RFC 4180): quoted, with inner quotes doubled, when it
 * holds a comma, a quote, CR or LF; NULL writes nothing (an empty field). */
void tdr_csv_put_field(FILE *f, const char *s);

#endif /* TDREC_TDR_TEXTOUT_H */
