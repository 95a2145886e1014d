/*
 * tests/report/json_mini.c - a strict little JSON parser (see json_mini.h).
 */
#include "json_mini.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *s;
	size_t pos;
	bool bad;
};

static void ws(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
	       p->s[p->pos] == '\r')
		p->pos++;
}

static bool value(struct parser *p, struct jm *v);

static char *string(struct parser *p)
{
	size_t cap = 16, n = 0;
	char *out = malloc(cap);

	if (p->s[p->pos] != '"')
		goto bad;
	p->pos++;
	for (;;) {
		unsigned char c = (unsigned char)p->s[p->pos++];

		if (n + 8 > cap)
			out = realloc(out, cap *= 2);
		if (c == '"')
			break;
		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			out[n++] = (char)c;
			break;
		case 'b':
			out[n++] = '\b';
			break;
		case 'f':
			out[n++] = '\f';
			break;
		case 'n':
			out[n++] = '\n';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case 'u': {
			unsigned cp = 0;

			for (int i = 0; i < 4; i++) {
				char h = p->s[p->pos++];

				if (!isxdigit((unsigned char)h))
					goto bad;
				cp = cp * 16 + (unsigned)(isdigit((unsigned char)h)
							      ? h - '0'
							      : (h | 32) - 'a' + 10);
			}
			if (cp < 0x80) {
				out[n++] = (char)cp;
			} else if (cp < 0x800) {
				out[n++] = (char)(0xc0 | cp >> 6);
				out[n++] = (char)(0x80 | (cp & 0x3f));
			} else {
				out[n++] = (char)(0xe0 | cp >> 12);
				out[n++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				out[n++] = (char)(0x80 | (cp & 0x3f));
			}
			break;
		}
		default:
			goto bad;
		}
	}
	out[n] = '\0';
	return out;
bad:
	free(out);
	p->bad = true;
	return NULL;
}

static bool number(struct parser *p, struct jm *v)
{
	size_t start = p->pos;
	char *end;

	if (p->s[p->pos] == '-')
		p->pos++;
	if (p->s[p->pos] == '0') {
		p->pos++;
	} else if (p->s[p->pos] >= '1' && p->s[p->pos] <= '9') {
		while (isdigit((unsigned char)p->s[p->pos]))
			p->pos++;
	} else {
		return false;
	}
	if (p->s[p->pos] == '.') {
		p->pos++;
		if (!isdigit((unsigned char)p->s[p->pos]))
			return false;
		while (isdigit((unsigned char)p->s[p->pos]))
			p->pos++;
	}
	if (p->s[p->pos] == 'e' || p->s[p->pos] == 'E') {
		p->pos++;
		if (p->s[p->pos] == '+' || p->s[p->pos] == '-')
			p->pos++;
		if (!isdigit((unsigned char)p->s[p->pos]))
			return false;
		while (isdigit((unsigned char)p->s[p->pos]))
			p->pos++;
	}
	v->t = JM_NUM;
	v->num = strtod(p->s + start, &end);
	return end == p->s + p->pos;
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(p->s + p->pos, word, n))
		return false;
	p->pos += n;
	return true;
}

static bool container(struct parser *p, struct jm *v, bool obj)
{
	size_t cap = 0;

	v->t = obj ? JM_OBJ : JM_ARR;
	p->pos++;
	ws(p);
	if (p->s[p->pos] == (obj ? '}' : ']')) {
		p->pos++;
		return true;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			v->items = realloc(v->items, cap * sizeof(*v->items));
			if (obj)
				v->keys = realloc(v->keys, cap * sizeof(*v->keys));
		}
		memset(&v->items[v->n], 0, sizeof(v->items[v->n]));
		ws(p);
		if (obj) {
			v->keys[v->n] = string(p);
			if (!v->keys[v->n])
				return false;
			ws(p);
			if (p->s[p->pos++] != ':') {
				v->n++;
				return false;
			}
		}
		v->n++;
		if (!value(p, &v->items[v->n - 1]))
			return false;
		ws(p);
		if (p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->s[p->pos] == (obj ? '}' : ']')) {
			p->pos++;
			return true;
		}
		return false;
	}
}

static bool value(struct parser *p, struct jm *v)
{
	ws(p);
	switch (p->s[p->pos]) {
	case '{':
		return container(p, v, true);
	case '[':
		return container(p, v, false);
	case '"':
		v->t = JM_STR;
		v->str = string(p);
		return v->str != NULL;
	case 't':
		v->t = JM_BOOL;
		v->b = true;
		return literal(p, "true");
	case 'f':
		v->t = JM_BOOL;
		return literal(p, "false");
	case 'n':
		v->t = JM_NULL;
		return literal(p, "null");
	default:
		return number(p, v);
	}
}

struct jm *jm_parse(const char *text, size_t *where)
{
	struct parser p = {.s = text};
	struct jm *v = calloc(1, sizeof(*v));

	if (value(&p, v)) {
		ws(&p);
		if (!p.s[p.pos])
			return v;
	}
	if (where)
		*where = p.pos;
	jm_free(v);
	return NULL;
}

const struct jm *jm_get(const struct jm *obj, const char *key)
{
	if (!obj || obj->t != JM_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (obj->keys[i] && !strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const struct jm *jm_at(const struct jm *arr, size_t i)
{
	return arr && arr->t == JM_ARR && i < arr->n ? &arr->items[i] : NULL;
}

static void clear(struct jm *v)
{
	for (size_t i = 0; i < v->n; i++) {
		clear(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void jm_free(struct jm *v)
{
	if (!v)
		return;
	clear(v);
	free(v);
}
