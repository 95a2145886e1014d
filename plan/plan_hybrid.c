/*
 * plan/plan_hybrid.c - the E-core group of a hybrid part's plan.
 *
 * Responsibility: on a hybrid Intel part (cpu_core and cpu_atom PMUs) the
 * perf metrics exist on cpu_core only, so the P-cores get the perf-metrics
 * group (plan.c) and the E-cores a second group, the generic TopDown
 * family of the CPU's E-core (gracemont on Alder/Raptor Lake, crestmont on
 * Meteor Lake, skymont on Lunar/Arrow Lake), built by plan_generic.c on
 * cpu_atom's CPUs. A task follows its thread across core types, and the
 * kernel counts each group only while the thread runs on its PMU's CPUs,
 * so every sample is a sample of one core type's group, read with that
 * core type's events: the report attributes it with that core type's
 * formulas (docs/report.md "Core types").
 * Why both groups sample on the same generic event: one sampling event
 * per core type is one sampling event for the report (report/cores.c),
 * and the E-cores' PMU cannot count a cpu_core raw event.
 * Also the note naming the online CPUs no group of a plan covers.
 * See: plan_int.h; docs/plans.md "Hybrid parts"; docs/kernel.md "Hybrid
 * parts".
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define ATOM_PMU "cpu_atom"

/* The E-core family of the CPU: the first family of the table for this
 * identity that runs on cpu_atom and samples. NULL without an identity. */
static const struct tdr_td_family *e_core_family(const struct tdr_sysfs *sys,
						 enum tdr_plan_kind *kind)
{
	for (size_t i = 0; i < tdr_topdown_family_cnt(); i++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(i);

		if (f->ident_required && !f->counting_only && tdr_td_family__formula_cnt(f) &&
		    tdr_td_family__runs_on(f, ATOM_PMU) && tdr_td_family__matches(f, &sys->cpu)) {
			*kind = (enum tdr_plan_kind)(i + 1); /* kind k is family k - 1 */
			return f;
		}
	}
	return NULL;
}

/* Events of the same name in both groups (cycles), and generic hardware
 * events, which name no PMU, get the PMU in their name as perf prints
 * them ("cpu_atom/cycles/"): the file's names stay distinct. */
static void qualify_names(struct tdr_plan *plan)
{
	bool dup[TDR_PLAN_MAX_GROUPS][TDR_PLAN_MAX_EVENTS] = {{false}};

	for (size_t g = 0; g < plan->group_cnt; g++) {
		for (size_t i = 0; i < plan->groups[g].event_cnt; i++) {
			const struct tdr_plan_event *a = &plan->groups[g].events[i];

			dup[g][i] |= a->attr.type == PERF_TYPE_HARDWARE;
			for (size_t h = g + 1; h < plan->group_cnt; h++)
				for (size_t j = 0; j < plan->groups[h].event_cnt; j++)
					if (!strcmp(a->name, plan->groups[h].events[j].name))
						dup[g][i] = dup[h][j] = true;
		}
	}
	for (size_t g = 0; g < plan->group_cnt; g++) {
		for (size_t i = 0; i < plan->groups[g].event_cnt; i++) {
			struct tdr_plan_event *a = &plan->groups[g].events[i];
			char q[sizeof(a->pmu_name) + sizeof(a->name) + 2];
			int n;

			if (!dup[g][i] || strchr(a->name, '/'))
				continue;
			n = snprintf(q, sizeof(q), "%s/%s/", a->pmu_name, a->name);
			/* Every name of the table fits; one that would not keeps
			 * its plain name rather than a cut one. */
			if (n > 0 && (size_t)n < sizeof(a->name))
				memcpy(a->name, q, (size_t)n + 1);
		}
	}
}

/* Names of the other hybrid PMUs ("cpu_atom") whose CPUs are in left, in
 * the snapshot's (readdir) order. */
static void other_hybrid_pmus(struct tdr_plan_builder *b, const int *left, size_t left_cnt, char *buf,
			      size_t sz)
{
	const struct tdr_sysfs *sys = b->env.sys;

	buf[0] = '\0';
	for (size_t p = 0; p < sys->pmu_cnt; p++) {
		const char *name = sys->pmus[p].name;
		struct tdr_pmu pmu;
		bool hit = false;
		int *cpus = NULL;
		size_t cnt = 0;

		if (strncmp(name, "cpu_", 4) || !strcmp(name, b->env.core.name) ||
		    tdr_pmu__open(sys, name, &pmu) || tdr_pmu__cpus(&pmu, &cpus, &cnt))
			continue;
		for (size_t i = 0; i < cnt && !hit; i++)
			for (size_t j = 0; j < left_cnt && !hit; j++)
				hit = cpus[i] == left[j];
		free(cpus);
		if (hit && strlen(buf) + strlen(name) + 3 < sz)
			strcat(strcat(buf, buf[0] ? ", " : ""), name);
	}
}

/* On hybrid parts, say which online CPUs no group of the plan covers. */
int tdr_plan_note_unmeasured(struct tdr_plan_builder *b)
{
	char left_txt[96], in_txt[96], pmus[64];
	size_t left_cnt = 0, in_cnt = 0;
	int *left, *in;

	left = tdr_calloc(b->online_cnt, sizeof(*left));
	in = tdr_calloc(b->online_cnt, sizeof(*in));
	if (!left || !in) {
		free(left);
		free(in);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->online_cnt; i++) {
		bool hit = false;

		for (size_t g = 0; g < b->plan->group_cnt && !hit; g++)
			for (size_t j = 0; j < b->plan->groups[g].cpu_cnt && !hit; j++)
				hit = b->plan->groups[g].cpus[j] == b->online[i];
		if (hit)
			in[in_cnt++] = b->online[i];
		else
			left[left_cnt++] = b->online[i];
	}
	if (left_cnt) {
		tdr_cpulist__format(left, left_cnt, left_txt, sizeof(left_txt));
		tdr_cpulist__format(in, in_cnt, in_txt, sizeof(in_txt));
		other_hybrid_pmus(b, left, left_cnt, pmus, sizeof(pmus));
		tdr_plan_note(b->plan,
			 "hybrid CPU: TopDown is measured on %s CPUs %s only; CPUs %s%s%s%s are "
			 "not measured",
			 b->env.core.name, in_txt, left_txt, pmus[0] ? " (" : "", pmus,
			 pmus[0] ? ")" : "");
	}
	free(left);
	free(in);
	return 0;
}

/* Drop the groups from base on and the notes past note_cnt. */
static void undo(struct tdr_plan *plan, size_t base, size_t note_cnt)
{
	for (size_t g = base; g < TDR_PLAN_MAX_GROUPS; g++) {
		free(plan->groups[g].cpus);
		memset(&plan->groups[g], 0, sizeof(plan->groups[g]));
	}
	plan->group_cnt = base;
	plan->note_cnt = note_cnt;
}

int tdr_plan_add_e_core_group(struct tdr_plan_builder *b)
{
	struct tdr_plan *plan = b->plan;
	const struct tdr_plan_group *core = &plan->groups[0];
	struct tdr_plan_opts o = *b->opts;
	struct tdr_plan_builder a = {.opts = &o};
	const struct tdr_td_family *f;
	enum tdr_plan_kind kind = TDR_PLAN_AUTO;
	size_t notes = plan->note_cnt, base = plan->group_cnt;
	int err;

	f = e_core_family(b->env.sys, &kind);
	if (!f || base != 1 || !strcmp(b->env.core.name, ATOM_PMU))
		return 0;
	err = tdr_pmu__open(b->env.sys, ATOM_PMU, &a.env.core);
	if (err)
		return err == -ENOENT ? 0 : err;
	a.env.root = b->env.root;
	a.env.sys = b->env.sys;
	a.env.has_core = a.env.hybrid = true;
	a.online = b->online;
	a.online_cnt = b->online_cnt;
	a.plan = plan;
	a.group_base = base;
	/* A generic hardware -e (cycles, instructions) names no PMU: the
	 * E-cores sample it too; any other -e is a cpu_core event. */
	for (size_t i = 0; o.sampler && !o.counting && i < core->event_cnt; i++) {
		const struct tdr_plan_event *s = &core->events[i];

		if ((s->flags & TDR_EVENT_SAMPLER) && s->attr.type != PERF_TYPE_HARDWARE) {
			tdr_plan_note(plan, "the %s group on %s samples on cycles: -e %s is an event "
					    "of %s",
				      f->name, ATOM_PMU, o.sampler->text, b->env.core.name);
			o.sampler = NULL;
		}
	}
	err = tdr_plan_build_generic(&a, f);
	if (err == -TDR_E_NOPLAN) {
		undo(plan, base, notes);
		tdr_plan_note(plan, "%s on %s not available: %s", f->name, ATOM_PMU, a.why);
		return 0;
	}
	if (err)
		return err;
	for (size_t g = base; g < plan->group_cnt; g++) {
		plan->groups[g].kind = kind;
		plan->groups[g].width = a.width;
	}
	qualify_names(plan);
	return 0;
}
