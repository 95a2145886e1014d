/*
 * report/rules.c - the report's counting rules, for modules that count samples too.
 *
 * Responsibility: what tdrec/report.h's "rules for other modules" block
 * promises: a report made for a schema only, whether a sample counts as a
 * sample (the first sampling event of a perf.data file with several), the
 * merged category formulas and the slots of summed deltas. export/ asks
 * these so that its profiles count exactly as 'tdrec report' does; the
 * rules themselves live in report.c, cores.c and topdown.c.
 * Ownership: everything borrowed from the report.
 */
#include "report_int.h"

#include <math.h>

int tdr_report__new_schema(const struct tdr_meta *meta, struct tdr_report **out)
{
	struct tdr_report_opts o;

	tdr_report_opts__init(&o);
	return tdr_report__new(meta, &o, out);
}

bool tdr_report__sample_counts(const struct tdr_report *r, const struct tdr_sample *s)
{
	return r->primary_sampler < 0 || s->sampler_idx == (uint32_t)r->primary_sampler;
}

double tdr_report__category_of(const struct tdr_report *r, size_t idx, const uint64_t *sums)
{
	if (idx >= r->cat_cnt)
		return NAN;
	return tdr_report_category_value(r, &r->cats[idx], sums);
}

double tdr_report__slots_of(const struct tdr_report *r, const uint64_t *sums)
{
	return tdr_report_slots(r, sums);
}

bool tdr_report__has_slots(const struct tdr_report *r)
{
	return r->slots_cat >= 0;
}

int tdr_report__category_parent(const struct tdr_report *r, size_t idx)
{
	return idx < r->cat_cnt ? r->cats[idx].parent_idx : -1;
}

uint32_t tdr_report__category_depth(const struct tdr_report *r, size_t idx)
{
	return idx < r->cat_cnt ? r->cats[idx].level : 0;
}

double tdr_report__category_threshold(const struct tdr_report *r, size_t idx)
{
	return idx < r->cat_cnt ? r->cats[idx].threshold : NAN;
}

const char *tdr_report__event_unit(const struct tdr_report *r, size_t idx)
{
	if (idx >= r->event_cnt || r->event_units[idx] == UNIT_DUMMY)
		return NULL;
	return r->event_units[idx] == UNIT_NS ? "nanoseconds" : "count";
}
