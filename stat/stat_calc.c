/*
 * stat/stat_calc.c - the arithmetic of 'tdrec stat': group reads into
 * deltas, deltas into TopDown categories, bottlenecks and the fraction of
 * the time that was counted.
 *
 * Responsibility: everything between a struct tdr_group_read and the
 * numbers a row shows, with no system calls, so tests can drive it with
 * synthetic reads. Categories come only from the plan's formulas
 * (tdr_category__value in format/); counts are never scaled.
 * Why differences are valid: for slots and the metric events the kernel
 * keeps event->count monotonic even though it resets the hardware registers
 * on every read (docs/kernel.md "TopDown metric values"); a value that goes down anyway re-bases
 * instead of turning into a huge delta (docs/parser.md "Deltas and re-bases").
 * Every number the output shows is made here (tdr_stat_row_view); the
 * renderers in report/ only format it.
 * Objects and lifecycle: struct stat_schema (init -> use -> clear); the
 * rest are plain functions on plain structs.
 * See: docs/stat.md "How the numbers are made"; report.md "Thresholds"
 * (the thresholds are the TopDown table's, tdrec/topdown.h).
 */
#include "stat_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

static bool same_core(const struct stat_schema *sc, size_t a, size_t b)
{
	if (!sc->core[a] || !sc->core[b])
		return sc->core[a] == sc->core[b];
	return !strcmp(sc->core[a], sc->core[b]);
}

/* Category i is the first linear level-1 one of its core type. */
static bool new_core(const struct stat_schema *sc, size_t i)
{
	for (size_t k = 0; k < sc->core_cnt; k++)
		if (same_core(sc, (size_t)sc->core_slots_cat[k], i))
			return false;
	return true;
}

int tdr_stat_schema__init(struct stat_schema *sc, const struct tdr_plan *plan, bool system_wide)
{
	size_t base = 0;
	int err;

	memset(sc, 0, sizeof(*sc));
	sc->slots_cat = -1;
	sc->clock_ev = -1;
	sc->system_wide = system_wide;
	if (plan->group_cnt > TDR_PLAN_MAX_GROUPS)
		return -E2BIG;
	sc->group_cnt = plan->group_cnt;
	for (size_t g = 0; g < plan->group_cnt; g++) {
		sc->base[g] = base;
		base += plan->groups[g].event_cnt;
	}
	err = tdr_plan__to_meta(plan, &sc->meta);
	if (err)
		return err;
	if (sc->meta.event_cnt > STAT_MAX_EVENTS || sc->meta.category_cnt > STAT_MAX_CATS)
		return -E2BIG;
	for (size_t i = 0; i < sc->meta.event_cnt && sc->clock_ev < 0; i++)
		if (sc->meta.events[i].name && tdr_stat_is_clock(sc->meta.events[i].name))
			sc->clock_ev = (int)i;
	/* A hybrid part's plan has a group of another family (docs/plans.md
	 * "Hybrid parts"): its categories come per core PMU, same keys. */
	for (size_t g = 1; g < plan->group_cnt; g++)
		sc->hybrid |= plan->groups[g].kind != TDR_PLAN_AUTO;
	for (size_t i = 0; sc->hybrid && i < sc->meta.category_cnt; i++) {
		const struct tdr_category *c = &sc->meta.categories[i];

		if (c->den_cnt && c->den[0].event_idx < sc->meta.event_cnt)
			sc->core[i] = sc->meta.events[c->den[0].event_idx].pmu_name;
	}
	for (size_t i = 0; i < sc->meta.category_cnt; i++) {
		const struct tdr_category *c = &sc->meta.categories[i];

		/* The TopDown table's, as report's: both mark the same rows. */
		sc->threshold[i] = tdr_topdown_threshold(c->name);
		sc->parent[i] = -1;
		/* Slots: the denominator of the first linear level-1 category
		 * (Arm's retiring is a product), of each core type. */
		if (c->level <= 1 && tdr_category__linear(c) && new_core(sc, i) &&
		    sc->core_cnt < TDR_PLAN_MAX_GROUPS) {
			sc->core_slots_cat[sc->core_cnt++] = (int)i;
			if (sc->slots_cat < 0)
				sc->slots_cat = (int)i;
		}
		for (size_t p = 0; c->parent && p < sc->meta.category_cnt; p++) {
			const char *pn = sc->meta.categories[p].name;

			if (pn && sc->meta.categories[p].level <= 1 && !strcmp(pn, c->parent) &&
			    same_core(sc, p, i)) {
				sc->parent[i] = (int)p;
				break;
			}
		}
	}
	return 0;
}

void tdr_stat_schema__clear(struct stat_schema *sc)
{
	tdr_meta__clear(&sc->meta);
}

int tdr_stat_schema__note(struct stat_schema *sc, const char *line)
{
	size_t cap = sc->meta.note_cnt;
	char *n = tdr_strdup(line);

	if (!n || tdr_ensure_cap(&sc->meta.notes, &cap, sizeof(char *), sc->meta.note_cnt + 1)) {
		free(n);
		return -ENOMEM;
	}
	sc->meta.notes[sc->meta.note_cnt++] = n;
	return 0;
}

/* cur - *prev when it did not go down, else 0 (and count it); *prev = cur. */
static uint64_t step(uint64_t *prev, uint64_t cur, unsigned *backwards)
{
	uint64_t d = 0;

	if (cur >= *prev)
		d = cur - *prev;
	else
		(*backwards)++;
	*prev = cur;
	return d;
}

unsigned tdr_stat_delta(struct stat_prev *prev, const struct tdr_group_read *rd, size_t g,
			size_t base, struct stat_vals *acc)
{
	unsigned backwards = 0;
	size_t n = rd->value_cnt;

	if (n > TDR_PLAN_MAX_EVENTS)
		n = TDR_PLAN_MAX_EVENTS;
	if (base + n > STAT_MAX_EVENTS)
		n = base < STAT_MAX_EVENTS ? STAT_MAX_EVENTS - base : 0;
	for (size_t i = 0; i < n; i++)
		acc->v[base + i] += step(&prev->v[i], rd->values[i], &backwards);
	if (g < TDR_PLAN_MAX_GROUPS) {
		acc->enabled_ns[g] += step(&prev->ena, rd->time_enabled, &backwards);
		acc->running_ns[g] += step(&prev->run, rd->time_running, &backwards);
	}
	return backwards;
}

void tdr_stat_vals__add(struct stat_vals *dst, const struct stat_vals *src)
{
	for (size_t i = 0; i < STAT_MAX_EVENTS; i++)
		dst->v[i] += src->v[i];
	for (size_t g = 0; g < TDR_PLAN_MAX_GROUPS; g++) {
		dst->enabled_ns[g] += src->enabled_ns[g];
		dst->running_ns[g] += src->running_ns[g];
	}
	dst->ref_ns += src->ref_ns;
}

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void tdr_stat_vals__sub_sat(struct stat_vals *dst, const struct stat_vals *a,
			    const struct stat_vals *b)
{
	for (size_t i = 0; i < STAT_MAX_EVENTS; i++)
		dst->v[i] = sub_sat(a->v[i], b->v[i]);
	for (size_t g = 0; g < TDR_PLAN_MAX_GROUPS; g++) {
		dst->enabled_ns[g] = sub_sat(a->enabled_ns[g], b->enabled_ns[g]);
		dst->running_ns[g] = sub_sat(a->running_ns[g], b->running_ns[g]);
	}
	dst->ref_ns = sub_sat(a->ref_ns, b->ref_ns);
}

bool tdr_stat_vals__empty(const struct stat_vals *v, size_t event_cnt)
{
	for (size_t i = 0; i < event_cnt && i < STAT_MAX_EVENTS; i++)
		if (v->v[i])
			return false;
	return true;
}

double tdr_stat_group_counted(const struct stat_schema *sc, const struct stat_vals *v, size_t g)
{
	double den = sc->system_wide ? (double)v->enabled_ns[g] : (double)v->ref_ns;
	double f;

	if (g >= sc->group_cnt || !(den > 0))
		return NAN;
	f = (double)v->running_ns[g] / den;
	return f > 1 ? 1 : f;
}

double tdr_stat_counted(const struct stat_schema *sc, const struct stat_vals *v)
{
	double best = NAN;

	/* Hybrid: the core types' groups are on disjoint CPUs, and a task
	 * runs on one at a time: their running times add up. */
	if (sc->hybrid) {
		uint64_t run = 0, ena = 0;

		for (size_t g = 0; g < sc->group_cnt; g++) {
			run += v->running_ns[g];
			ena += v->enabled_ns[g];
		}
		best = sc->system_wide ? (double)ena : (double)v->ref_ns;
		if (!(best > 0))
			return NAN;
		best = (double)run / best;
		return best > 1 ? 1 : best;
	}

	for (size_t g = 0; g < sc->group_cnt; g++) {
		/* Task mode: a per-CPU task group is enabled but not running
		 * whenever its task runs on another CPU, so time_enabled says
		 * nothing; the tasks' own run time (the reference clock) does. */
		double den = sc->system_wide ? (double)v->enabled_ns[g] : (double)v->ref_ns;
		double f;

		if (!(den > 0))
			return NAN;
		f = (double)v->running_ns[g] / den;
		if (f > 1)
			f = 1;
		if (isnan(best) || f < best)
			best = f;
	}
	return best;
}

double tdr_stat_slots(const struct stat_schema *sc, const struct stat_vals *v)
{
	const struct tdr_category *c;
	double s = 0;

	/* Hybrid: each core type's slots are one issue slot of its own core. */
	for (size_t k = 0; k < sc->core_cnt; k++) {
		c = &sc->meta.categories[sc->core_slots_cat[k]];
		for (size_t i = 0; i < c->den_cnt; i++)
			if (c->den[i].event_idx < sc->meta.event_cnt)
				s += c->den[i].coef * (double)v->v[c->den[i].event_idx];
	}
	return s;
}

/* The largest category above its threshold: of level 1 when parent < 0,
 * else among the children of parent; -1 when none is above. */
static int pick(const struct stat_schema *sc, const double *vals, int parent)
{
	double best = -1;
	int idx = -1;

	for (size_t i = 0; i < sc->meta.category_cnt; i++) {
		const struct tdr_category *c = &sc->meta.categories[i];
		bool level1 = c->level <= 1;

		if ((parent < 0) != level1 || (parent >= 0 && sc->parent[i] != parent))
			continue;
		if (isnan(sc->threshold[i]) || isnan(vals[i]))
			continue;
		if (vals[i] > sc->threshold[i] && vals[i] > best) {
			best = vals[i];
			idx = (int)i;
		}
	}
	return idx;
}

void tdr_stat_topdown(const struct stat_schema *sc, const struct stat_vals *v, double *vals,
		      int *bn, int *bn_l2)
{
	for (size_t i = 0; i < sc->meta.category_cnt; i++)
		vals[i] = tdr_category__value(&sc->meta.categories[i], v->v, sc->meta.event_cnt);
	*bn = pick(sc, vals, -1);
	*bn_l2 = *bn >= 0 ? pick(sc, vals, *bn) : -1;
}

/* Software clocks count nanoseconds (shown in milliseconds, and as CPUs
 * utilized over the wall time). */
bool tdr_stat_is_clock(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

void tdr_stat_row_view(const struct stat_schema *sc, const struct stat_row *row,
		       struct tdr_stat_row *out)
{
	const struct stat_vals *v = &row->vals;
	double wall_ns = (double)(row->end_ns - row->start_ns);

	memset(out, 0, sizeof(*out));
	out->kind = row->kind;
	out->start_ns = row->start_ns;
	out->end_ns = row->end_ns;
	out->pid = row->pid;
	out->tid = row->tid;
	out->name = row->name;
	memcpy(out->values, v->v, sizeof(out->values));
	out->time_enabled_ns = v->enabled_ns[0];
	out->time_running_ns = v->running_ns[0];
	/* System-wide there are no tasks to time. */
	out->task_run_ns = sc->system_wide ? 0 : v->ref_ns;
	tdr_stat_topdown(sc, v, out->cats, &out->bn, &out->bn_l2);
	/* A difference of running times says nothing about multiplexing. */
	out->counted = row->kind == TDR_STAT_ROW_UNATTRIBUTED ? NAN : tdr_stat_counted(sc, v);
	out->multiplexed = !isnan(out->counted) && out->counted < STAT_COUNTED_FULL;
	out->group_cnt = sc->group_cnt < TDR_PLAN_MAX_GROUPS ? sc->group_cnt : TDR_PLAN_MAX_GROUPS;
	for (size_t g = 0; g < out->group_cnt; g++)
		out->group_counted[g] = row->kind == TDR_STAT_ROW_UNATTRIBUTED
					    ? NAN
					    : tdr_stat_group_counted(sc, v, g);
	out->slots = tdr_stat_slots(sc, v);
	out->cpus = sc->clock_ev >= 0 && wall_ns > 0 ? (double)v->v[sc->clock_ev] / wall_ns : NAN;
}
