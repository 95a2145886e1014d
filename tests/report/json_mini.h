/*
 * tests/report/json_mini.h - a strict little JSON parser for checking output.
 *
 * Responsibility: parse a whole JSON text (RFC 8259 grammar: no trailing
 * commas, no comments, strings with escapes, numbers as in the RFC) into a
 * tree, so tests can check that tdrec's JSON is valid and read its keys.
 */
#ifndef TDREC_TESTS_JSON_MINI_H
#define TDREC_TESTS_JSON_MINI_H

#include <stdbool.h>
#include <stddef.h>

enum jm_type { JM_NULL, JM_BOOL, JM_NUM, JM_STR, JM_ARR, JM_OBJ };

struct jm {
	enum jm_type t;
	bool b;
	double num;
	char *str;
	size_t n;	  /* items of an array or object */
	char **keys;	  /* object keys */
	struct jm *items; /* values */
};

/* Parse text; NULL when invalid (with *where set to the offending byte offset). */
struct jm *jm_parse(const char *text, size_t *where);
/* Value of key in an object, NULL when absent or not an object. */
const struct jm *jm_get(const struct jm *obj, const char *key);
/* Item i of an array, NULL when out of range or not an array. */
const struct jm *jm_at(const struct jm *arr, size_t i);
void jm_free(struct jm *v);

#endif /* TDREC_TESTS_JSON_MINI_H */
