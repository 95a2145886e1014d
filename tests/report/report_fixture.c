/*
 * tests/report/report_fixture.c - hand-built metadata, a fake symbolizer and
 * output helpers for the report tests (see report_fixture.h).
 */
#include "report_fixture.h"
#include "json_mini.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void add_event(struct fx_meta *m, const char *name, uint32_t type, uint64_t config,
		      uint32_t flags)
{
	struct tdr_event_desc *e = &m->events[m->meta.event_cnt++];

	e->name = (char *)name;
	e->pmu_name = (char *)(type == PERF_TYPE_SOFTWARE ? "software" : "cpu");
	e->pmu_type = type;
	e->flags = flags;
	e->attr.type = type;
	e->attr.config = config;
	e->attr.size = sizeof(e->attr);
}

static struct tdr_term *terms(struct fx_meta *m, size_t n, ...)
{
	struct tdr_term *t = &m->terms[m->term_cnt];
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		t[i].event_idx = va_arg(ap, unsigned);
		t[i].coef = va_arg(ap, double);
	}
	va_end(ap);
	m->term_cnt += n;
	assert_true(m->term_cnt <= 64);
	return t;
}

/* name = sum num / slots */
static void add_cat(struct fx_meta *m, const char *name, const char *parent, uint32_t level,
		    bool derived, struct tdr_term *num, size_t num_cnt)
{
	struct tdr_category *c = &m->cats[m->meta.category_cnt++];

	c->name = (char *)name;
	c->parent = (char *)parent;
	c->level = level;
	c->flags = derived ? TDR_CATEGORY_DERIVED : 0;
	c->num = num;
	c->num_cnt = num_cnt;
	c->den = terms(m, 1, (unsigned)EV_SLOTS, 1.0);
	c->den_cnt = 1;
}

static void base(struct fx_meta *m, const char *plan)
{
	memset(m, 0, sizeof(*m));
	m->meta.events = m->events;
	m->meta.categories = m->cats;
	m->meta.plan_name = (char *)plan;
	m->meta.hostname = (char *)"testhost";
	m->meta.cpu_model_name = (char *)"Test CPU";
	m->meta.cpu_family = 6;
	m->meta.cpu_model = 143;
}

static void l1_events(struct fx_meta *m)
{
	add_event(m, "slots", PERF_TYPE_RAW, 0x400, TDR_EVENT_LEADER);
	add_event(m, "cycles", PERF_TYPE_HARDWARE, 0, TDR_EVENT_SAMPLER);
	add_event(m, "topdown-retiring", PERF_TYPE_RAW, 0x8000, 0);
	add_event(m, "topdown-bad-spec", PERF_TYPE_RAW, 0x8100, 0);
	add_event(m, "topdown-fe-bound", PERF_TYPE_RAW, 0x8200, 0);
	add_event(m, "topdown-be-bound", PERF_TYPE_RAW, 0x8300, 0);
}

static void l1_cats(struct fx_meta *m)
{
	add_cat(m, "retiring", NULL, 1, false, terms(m, 1, (unsigned)EV_RET, 1.0), 1);
	add_cat(m, "bad-spec", NULL, 1, false, terms(m, 1, (unsigned)EV_BAD, 1.0), 1);
	add_cat(m, "fe-bound", NULL, 1, false, terms(m, 1, (unsigned)EV_FE, 1.0), 1);
	add_cat(m, "be-bound", NULL, 1, false, terms(m, 1, (unsigned)EV_BE, 1.0), 1);
}

void fx_meta_l1(struct fx_meta *m)
{
	base(m, "topdown-l1");
	l1_events(m);
	l1_cats(m);
}

void fx_meta_l2(struct fx_meta *m)
{
	base(m, "topdown-l2");
	l1_events(m);
	add_event(m, "topdown-heavy-ops", PERF_TYPE_RAW, 0x8400, 0);
	add_event(m, "topdown-br-mispredict", PERF_TYPE_RAW, 0x8500, 0);
	add_event(m, "topdown-fetch-lat", PERF_TYPE_RAW, 0x8600, 0);
	add_event(m, "topdown-mem-bound", PERF_TYPE_RAW, 0x8700, 0);
	l1_cats(m);
	add_cat(m, "heavy-ops", "retiring", 2, false, terms(m, 1, (unsigned)EV_HEAVY, 1.0), 1);
	add_cat(m, "br-mispredict", "bad-spec", 2, false, terms(m, 1, (unsigned)EV_BRM, 1.0), 1);
	add_cat(m, "fetch-lat", "fe-bound", 2, false, terms(m, 1, (unsigned)EV_FLAT, 1.0), 1);
	add_cat(m, "mem-bound", "be-bound", 2, false, terms(m, 1, (unsigned)EV_MEM, 1.0), 1);
	add_cat(m, "light-ops", "retiring", 2, true,
		terms(m, 2, (unsigned)EV_RET, 1.0, (unsigned)EV_HEAVY, -1.0), 2);
	add_cat(m, "machine-clears", "bad-spec", 2, true,
		terms(m, 2, (unsigned)EV_BAD, 1.0, (unsigned)EV_BRM, -1.0), 2);
	add_cat(m, "fetch-bw", "fe-bound", 2, true,
		terms(m, 2, (unsigned)EV_FE, 1.0, (unsigned)EV_FLAT, -1.0), 2);
	add_cat(m, "core-bound", "be-bound", 2, true,
		terms(m, 2, (unsigned)EV_BE, 1.0, (unsigned)EV_MEM, -1.0), 2);
}

void fx_meta_sw(struct fx_meta *m)
{
	base(m, "software");
	add_event(m, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
		  TDR_EVENT_LEADER | TDR_EVENT_SAMPLER);
	add_event(m, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	add_event(m, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0);
	add_event(m, "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0);
}

void fx_meta_generic(struct fx_meta *m)
{
	struct tdr_category *c;

	base(m, "generic");
	add_event(m, "uops_issued", PERF_TYPE_RAW, 0x10e, 0);
	add_event(m, "cycles", PERF_TYPE_HARDWARE, 0, TDR_EVENT_SAMPLER);
	c = &m->cats[m->meta.category_cnt++];
	c->name = (char *)"retiring";
	c->level = 1;
	c->num = terms(m, 2, 0u, 2.0, 1u, -1.0);
	c->num_cnt = 2;
	c->den = terms(m, 1, 1u, 4.0);
	c->den_cnt = 1;
}

struct tdr_report *fx_report(const struct fx_meta *m, const struct tdr_report_opts *opts)
{
	struct tdr_report *r = NULL;

	assert_int_equal(tdr_report__new(&m->meta, opts, &r), 0);
	assert_non_null(r);
	return r;
}

void fx_add(struct tdr_report *r, const char *name, const char *dso, const uint64_t *deltas,
	    uint64_t samples)
{
	struct tdr_row_key k = {.name = name, .dso = dso};

	assert_int_equal(tdr_report__add(r, &k, deltas, samples), 0);
}

const struct tdr_report_row *fx_row(const struct tdr_report *r, const char *name, const char *dso)
{
	for (size_t i = 0; i < tdr_report__row_cnt(r); i++) {
		const struct tdr_report_row *row = tdr_report__row(r, i);

		if (!strcmp(row->name, name) && (!dso || (row->dso && !strcmp(row->dso, dso))))
			return row;
	}
	return NULL;
}

const struct tdr_report_row *fx_row_named(const struct tdr_report *r, const char *name)
{
	const struct tdr_report_row *row = fx_row(r, name, NULL);

	if (!row)
		fail_msg("no row %s", name);
	return row;
}

int fx_cat(const struct tdr_report *r, const char *name)
{
	for (size_t i = 0; i < tdr_report__category_cnt(r); i++)
		if (!strcmp(tdr_report__category_name(r, i), name))
			return (int)i;
	fail_msg("no category %s", name);
	return -1;
}

int fx_to_report(const struct tdr_sample *s, void *ctx)
{
	return tdr_report__add_sample(ctx, s);
}

static int fake_lookup(void *ctx, const struct tdr_dso_ref *dso, uint64_t off, struct tdr_sym *out)
{
	struct fx_syms *s = ctx;
	bool known = false;

	s->lookups++;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->cnt; i++) {
		const struct fx_sym_entry *e = &s->entries[i];

		if (strcmp(e->path, dso->path))
			continue;
		known = true;
		if (e->status != TDR_SYM_OK) {
			out->status = e->status;
			return 0;
		}
		if (off < e->lo || off >= e->hi)
			continue;
		out->status = TDR_SYM_OK;
		out->function = e->function;
		out->function_offset = off - e->lo;
		out->file = e->file;
		out->line = e->line;
		if (e->inlined) {
			s->frame.function = e->inlined;
			s->frame.call_file = e->file;
			s->frame.call_line = e->line;
			out->inlines = &s->frame;
			out->inline_cnt = 1;
		}
		return 0;
	}
	out->status = known ? TDR_SYM_NO_SYMBOL : TDR_SYM_MISSING;
	return 0;
}

static int fake_lookup_kernel(void *ctx, uint64_t ip, struct tdr_sym *out)
{
	struct fx_syms *s = ctx;

	(void)ip;
	s->kernel_lookups++;
	memset(out, 0, sizeof(*out));
	out->status = s->kernel_function ? TDR_SYM_OK : TDR_SYM_NO_KERNEL;
	out->function = s->kernel_function;
	return 0;
}

void fx_syms_init(struct fx_syms *s, const struct fx_sym_entry *entries, size_t cnt)
{
	memset(s, 0, sizeof(*s));
	s->entries = entries;
	s->cnt = cnt;
	s->rs.lookup = fake_lookup;
	s->rs.lookup_kernel = fake_lookup_kernel;
	s->rs.ctx = s;
}

static char *render_with(int (*fn)(const void *, const struct tdr_render_opts *, FILE *),
			 const void *obj, const struct tdr_render_opts *o)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	assert_int_equal(fn(obj, o, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static int render_report_fn(const void *obj, const struct tdr_render_opts *o, FILE *f)
{
	return tdr_report__render(obj, o, f);
}

static int render_diff_fn(const void *obj, const struct tdr_render_opts *o, FILE *f)
{
	return tdr_diff__render(obj, o, f);
}

char *fx_render(const struct tdr_report *r, enum tdr_report_format fmt, bool colour, size_t limit)
{
	struct tdr_render_opts o = {.fmt = fmt, .colour = colour, .limit = limit};

	return render_with(render_report_fn, r, &o);
}

char *fx_render_diff(const struct tdr_diff *d, enum tdr_report_format fmt, size_t limit)
{
	struct tdr_render_opts o = {.fmt = fmt, .limit = limit};

	return render_with(render_diff_fn, d, &o);
}

struct jm *fx_json(const char *text)
{
	size_t where = 0;
	struct jm *j = jm_parse(text, &where);

	if (!j) {
		print_error("invalid JSON at byte %zu: '%.40s'\n", where, text + where);
		fail();
	}
	return j;
}

void fx_assert_width(const char *text, size_t width)
{
	const char *p = text;
	size_t lineno = 1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > width) {
			print_error("line %zu has %zu columns: '%.*s'\n", lineno, len, (int)len, p);
			fail();
		}
		if (!nl)
			break;
		p = nl + 1;
		lineno++;
	}
}
