/*
 * report/render_util.c - small writers shared by the JSON, CSV and text renderers.
 *
 * Responsibility: JSON string and number output (NAN and infinities become
 * null), CSV field quoting (RFC 4180: quote a field holding a comma, quote,
 * CR or LF, doubling inner quotes), and the tdr_report__render dispatcher.
 */
#include "report_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void json_put_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

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
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

void json_put_number(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.10g", v);
}

void csv_put_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int tdr_report__render(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out)
{
	struct tdr_render_opts defaults = {0};
	int err;

	if (!r->finished)
		return -EINVAL;
	if (!o)
		o = &defaults;
	switch (o->fmt) {
	case TDR_FMT_TEXT:
		err = render_text(r, o, out);
		break;
	case TDR_FMT_JSON:
		err = render_json(r, o, out);
		break;
	case TDR_FMT_CSV:
		err = render_csv(r, o, out);
		break;
	default:
		return -EINVAL;
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	return err;
}

bool report_duration(const struct tdr_report *r, uint64_t *ns, bool *from_samples)
{
	*from_samples = false;
	if (r->have_end && r->end.duration_ns) {
		*ns = r->end.duration_ns;
		return true;
	}
	if (r->first_ns <= r->last_ns) {
		*ns = r->last_ns - r->first_ns;
		*from_samples = true;
		return true;
	}
	return false;
}

const char *report_source_name(enum tdr_source_kind k)
{
	switch (k) {
	case TDR_SOURCE_TDR:
		return "tdr";
	case TDR_SOURCE_PERF_DATA:
		return "perf.data";
	case TDR_SOURCE_DIRECT:
		return "direct";
	}
	return "unknown";
}
