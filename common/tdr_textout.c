/*
 * common/tdr_textout.c - JSON string escaping, CSV fields and rows, UTF-8
 * columns and line wrapping (tdr_textout.h).
 *
 * Responsibility: the escaping and quoting rules, the CSV row's commas, and
 * the one paragraph wrapper of the text outputs (report, diff, stat). What a
 * line, a row or a document holds stays with each renderer; the JSON
 * documents' layout and numbers are in tdr_json.c.
 */
#include "tdrec/tdr_textout.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, at most U+10FFFF), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* also stops at the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * Bytes of the character at s (at most avail bytes, avail > 0) and, in
 * *ctrl, whether a terminal could take it as a control: C0 (below 0x20),
 * DEL, C1 (U+0080..U+009F, which some terminals obey as ESC-sequences when
 * encoded in UTF-8), and a byte 0x80..0x9f outside well-formed UTF-8 (an
 * 8-bit C1 control, such as 0x9b CSI). Other bytes outside UTF-8 are
 * passed on: a terminal shows them as replacement glyphs.
 */
static size_t text_char(const unsigned char *s, size_t avail, bool *ctrl)
{
	size_t n;

	*ctrl = s[0] < 0x20 || s[0] == 0x7f;
	if (s[0] < 0x80)
		return 1;
	n = utf8_len(s);
	if (n && n <= avail) {
		*ctrl = s[0] == 0xc2 && s[1] < 0xa0;
		return n;
	}
	*ctrl = s[0] < 0xa0;
	return 1;
}

void tdr_text_put_n(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n && s[i];) {
		bool ctrl;
		size_t k = text_char(s + i, n - i, &ctrl);

		if (ctrl)
			fputc('?', f);
		else
			fwrite(s + i, 1, k, f);
		i += k;
	}
}

void tdr_text_put(FILE *f, const char *s)
{
	if (s)
		tdr_text_put_n(f, s, strlen(s));
}

const char *tdr_text_safe(const char *str, char *buf, size_t sz)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len = strlen((const char *)s), o = 0;

	if (!sz)
		return "";
	for (size_t i = 0; i < len;) {
		bool ctrl;
		size_t k = text_char(s + i, len - i, &ctrl);

		if (o + (ctrl ? 1 : k) >= sz)
			break; /* cut at a character, never inside one */
		if (ctrl) {
			buf[o++] = '?';
		} else {
			memcpy(buf + o, s + i, k);
			o += k;
		}
		i += k;
	}
	buf[o] = '\0';
	return buf;
}

void tdr_json_put_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		size_t n;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		default:
			/* JSON forbids raw control characters; DEL and C1
			 * (U+0080..U+009F) are escaped so a terminal showing the
			 * document stays sane. Strings come
			 * from files and command lines that may hold any bytes:
			 * what is not UTF-8 becomes U+FFFD, so the output stays
			 * valid JSON. */
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else if ((n = utf8_len(s)) && c == 0xc2 && s[1] < 0xa0) {
				fprintf(f, "\\u%04x", s[1]);
				s += n;
				continue;
			} else if (n) {
				fwrite(s, 1, n, f);
				s += n;
				continue;
			} else {
				fputs("\\ufffd", f);
			}
		}
		s++;
	}
	fputc('"', f);
}

void tdr_csv_put_field(FILE *f, const char *s)
{
	const char *q;

	if (!s)
		return;
	/* Control characters (line breaks too) as '?', as in every text
	 * output: a CSV is read on terminals as often as in spreadsheets. */
	if (!strpbrk(s, ",\"")) {
		tdr_text_put(f, s);
		return;
	}
	fputc('"', f);
	while ((q = strchr(s, '"')) != NULL) {
		tdr_text_put_n(f, s, (size_t)(q - s) + 1);
		fputc('"', f);
		s = q + 1;
	}
	tdr_text_put(f, s);
	fputc('"', f);
}

void tdr_csv__init(struct tdr_csv *c, FILE *f)
{
	*c = (struct tdr_csv){.f = f};
}

void tdr_csv__field(struct tdr_csv *c, const char *s)
{
	if (c->in_row)
		fputc(',', c->f);
	c->in_row = true;
	tdr_csv_put_field(c->f, s);
}

void tdr_csv__fieldf(struct tdr_csv *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tdr_csv__field(c, buf);
}

void tdr_csv__end_row(struct tdr_csv *c)
{
	fputc('\n', c->f);
	c->in_row = false;
}

size_t tdr_text_cols(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

size_t tdr_text_bytes_for_cols(const char *s, size_t cols)
{
	size_t i = 0, n = 0;

	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			if (n == cols)
				break;
			n++;
		}
	}
	return i;
}

void tdr_text_wrap(FILE *f, const struct tdr_wrap *w, const char *text)
{
	const char *p = text;
	size_t lead = w->prefix ? tdr_text_cols(w->prefix) : 0;
	bool first = true;

	while (*p) {
		size_t room = w->width > lead + 10 ? w->width - lead : 10;
		size_t n = tdr_text_bytes_for_cols(p, room);

		if (p[n]) {
			/* Break at the last space that fits (the one just after
			 * the room included), else cut the word. */
			size_t b = n;

			while (b > 0 && p[b] != ' ')
				b--;
			if (b > 0)
				n = b;
		}
		if (first)
			fputs(w->prefix ? w->prefix : "", f);
		else
			fprintf(f, "%*s", (int)w->indent, "");
		fputs(w->on ? w->on : "", f);
		tdr_text_put_n(f, p, n);
		fputs(w->off ? w->off : "", f);
		fputc('\n', f);
		p += n;
		while (*p == ' ')
			p++;
		first = false;
		lead = w->indent;
	}
}
