/*
 * plan/plan_generic.c - plans of the generic-counter TopDown families
 * (AMD Zen 4/5 level 1, and level 2 in three groups; Intel before
 * Ice Lake; the Intel E-cores; Arm Neoverse).
 *
 * Responsibility: turn one such family of the TopDown table
 * (tdrec/topdown.h) into a group for this machine: check the CPU identity
 * and find the core PMU the family runs on ("cpu", "cpu_atom"), check the
 * aliases it needs, resolve its width W (the .scale of an alias where the
 * kernel prints one: 4 with Hyper-Threading off, 2 with it on), encode
 * every event (sysfs alias, or terms through the PMU's format/ files, or
 * PERF_TYPE_HARDWARE cycles with the hybrid PMU type in config bits 32-63),
 * and count the general-purpose counters the group needs against those
 * free (the NMI watchdog holds one).
 * Group order: the sampler leads (cycles when no -e is given; another -e
 * sampler leads and cycles becomes a member), every other event is a member
 * read with PERF_SAMPLE_READ. A counting plan leads with cycles. Nothing
 * here forbids a member to sample (these are ordinary counters), so an -e
 * that is one of the family's events is that event, not a second copy.
 * Why refuse ":p" on AMD: precise_ip on a core event is redirected to IBS
 * (arch/x86/events/amd/core.c amd_pmu_hw_config), another PMU, which cannot
 * lead a group of core counters.
 * See: plan_int.h; docs/plans.md "Families", "Counter budget".
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"

/* The PMU of the snapshot that pattern names: itself, or for "name*"
 * the first PMU whose name starts with "name". */
static const char *pmu_named(const struct tdr_sysfs *sys, const char *pattern)
{
	size_t n = strlen(pattern);

	if (!n || pattern[n - 1] != '*')
		return pattern;
	for (size_t i = 0; i < sys->pmu_cnt; i++)
		if (sys->pmus[i].is_dir && !strncmp(sys->pmus[i].name, pattern, n - 1))
			return sys->pmus[i].name;
	return pattern; /* opening it says ENOENT */
}

/* Open the first of f's core PMUs that this machine has into b->env. */
static int open_pmu(struct tdr_plan_builder *b, const struct tdr_td_family *f)
{
	char names[64] = "";

	for (size_t i = 0; i < TDR_TD_MAX_PMUS && f->pmus[i]; i++) {
		int err = tdr_pmu__open(b->env.sys, pmu_named(b->env.sys, f->pmus[i]),
					&b->env.core);

		if (!err) {
			b->env.has_core = true;
			/* cpu_core / cpu_atom: hybrid, the PMU type goes in the
			 * hardware config and CPUs come from its cpus file. */
			b->env.hybrid = strcmp(f->pmus[i], "cpu") != 0;
			return 0;
		}
		if (err != -ENOENT)
			return err;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? " or " : "", f->pmus[i]);
	}
	b->env.has_core = false;
	snprintf(b->why, sizeof(b->why), "no %s PMU in %s/bus/event_source/devices", names,
		 b->env.root);
	return -TDR_E_NOPLAN;
}

/* The aliases f needs that the PMU lacks, into buf. */
static void find_missing(struct tdr_plan_builder *b, const struct tdr_td_family *f, char *buf,
			 size_t sz)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(f->gate) / sizeof(f->gate[0]) && f->gate[i]; i++)
		if (!tdr_pmu__has_event(&b->env.core, f->gate[i]))
			snprintf(buf + strlen(buf), sz - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 f->gate[i]);
	for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, false, i);

		if (e->source == TDR_TD_CORE_ALIAS && !tdr_pmu__has_event(&b->env.core, e->alias))
			snprintf(buf + strlen(buf), sz - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 e->alias);
	}
}

/* The .scale beside alias: 0 when there is none, -1 when it is not a
 * positive whole number. */
static long alias_scale(const struct tdr_plan_builder *b, const char *alias)
{
	const struct tdr_sysfs_pmu *sp = b->env.core.sp;
	const struct tdr_sysfs_file *file;
	char name[128], text[32], *end;
	long v;

	snprintf(name, sizeof(name), "%s.scale", alias);
	file = tdr_sysfs_pmu__file(sp->events, sp->event_cnt, name);
	if (!file || !file->present)
		return 0;
	if (tdr_sysfs_file__text(file, text, sizeof(text)) <= 0)
		return -1;
	v = strtol(text, &end, 10);
	return *end || v <= 0 || v > 64 ? -1 : v;
}

/* W from the PMU's caps/slots (arm64: PMMIR_EL1.SLOTS): 0 when the file
 * is absent or reads 0 (no PMMIR_EL1), -1 when it is not a number. */
static long caps_slots(const struct tdr_plan_builder *b)
{
	const struct tdr_sysfs_file *file = &b->env.core.sp->caps_slots;
	char text[32], *end;
	long v;

	if (!file->present)
		return 0;
	if (tdr_sysfs_file__text(file, text, sizeof(text)) <= 0)
		return -1;
	v = strtol(text, &end, 0);
	return (*end && *end != '\n') || v < 0 || v > 64 ? -1 : v;
}

/* W: the .scale of f->width_scale, which every other scaled alias of f
 * must repeat (the per-width terms share one W); or caps/slots. */
static int resolve_width(struct tdr_plan_builder *b, const struct tdr_td_family *f)
{
	long w;

	b->width = f->width;
	if (f->width_caps_slots) {
		w = caps_slots(b);
		if (w < 0) {
			tdr_warn("%s/caps/slots is not a whole number: the %s plan takes its "
				 "width from it", b->env.core.dir, f->name);
			return -TDR_E_CORRUPT;
		}
		if (w > 0)
			b->width = (uint32_t)w;
		else
			tdr_plan_note(b->plan, "%s: W = %u from the TopDown table (%s/caps/slots "
					       "is absent or 0)",
				      f->name, f->width, b->env.core.dir);
		return 0;
	}
	if (!f->width_scale)
		return 0;
	w = alias_scale(b, f->width_scale);
	if (w <= 0) {
		tdr_warn("%s/events/%s.scale is %s: the %s plan takes its width from it",
			 b->env.core.dir, f->width_scale, w ? "not a whole number" : "missing",
			 f->name);
		return -TDR_E_CORRUPT;
	}
	for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, false, i);
		long s = e->source == TDR_TD_CORE_ALIAS ? alias_scale(b, e->alias) : 0;

		if (s && s != w) {
			tdr_warn("%s/events/%s.scale is not %ld like %s.scale", b->env.core.dir,
				 e->alias, w, f->width_scale);
			return -TDR_E_CORRUPT;
		}
	}
	b->width = (uint32_t)w;
	return 0;
}

/* Add table event e as a member (or the leader, flags) of g. */
static int add_table_event(struct tdr_plan_builder *b, struct tdr_plan_group *g,
			   const struct tdr_td_event *e, uint32_t flags)
{
	struct tdr_plan_event *ev;
	int err;

	if (e->source == TDR_TD_CORE_ALIAS)
		return tdr_plan_add_sysfs_event(b, g, e->name, e->alias, flags);
	ev = tdr_plan_add_event(b, g, flags);
	if (!ev)
		return -TDR_E_LIMIT;
	snprintf(ev->name, sizeof(ev->name), "%s", e->name);
	snprintf(ev->pmu_name, sizeof(ev->pmu_name), "%s", b->env.core.name);
	if (e->source == TDR_TD_HARDWARE) {
		ev->attr.type = PERF_TYPE_HARDWARE;
		ev->attr.config = e->config;
		/* The extended type names the hybrid PMU (docs/kernel.md "Hybrid parts"). */
		if (b->env.hybrid)
			ev->attr.config |= (uint64_t)b->env.core.type << 32;
		return 0;
	}
	err = tdr_pmu__encode(&b->env.core, e->terms, &ev->attr);
	if (err == -ENOMEM)
		return err;
	if (err) {
		/* A format file the terms need is missing or too narrow: this
		 * PMU does not speak the family's encodings. */
		snprintf(b->why, sizeof(b->why), "the %s PMU cannot encode %s (%s)",
			 b->env.core.name, e->name, e->terms);
		return -TDR_E_NOPLAN;
	}
	ev->attr.type = b->env.core.type;
	return 0;
}

/* The sampler from -e, leading g; *dup is the family event it is (or
 * NULL). */
static int add_sampler(struct tdr_plan_builder *b, const struct tdr_td_family *f,
		       struct tdr_plan_group *g, const struct tdr_td_event **dup)
{
	struct tdr_plan_event *ev = tdr_plan_add_event(b, g, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER);
	struct tdr_plan_group probe = {0};
	int err;

	*dup = NULL;
	if (!ev)
		return -TDR_E_LIMIT;
	err = tdr_event_spec__resolve(b->opts->sampler, &b->env, ev);
	if (err)
		return err;
	/* Is it one of the family's events? Encode each to compare. */
	for (size_t i = 0; i < tdr_td_family__event_cnt(f, false) && !*dup; i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, false, i);

		probe.event_cnt = 0;
		err = add_table_event(b, &probe, e, 0);
		if (err)
			return err;
		if (probe.events[0].attr.type == ev->attr.type &&
		    probe.events[0].attr.config == ev->attr.config)
			*dup = e;
	}
	if (*dup) /* files name it as the table does */
		snprintf(ev->name, sizeof(ev->name), "%s", (*dup)->name);
	return 0;
}

/* The general-purpose counters group g needs, cycles taking the fixed
 * counter when fixed_free. */
static uint32_t general_needed(const struct tdr_td_family *f, const struct tdr_plan_group *g,
			       bool fixed_free)
{
	uint32_t need = 0;

	for (size_t i = 0; i < g->event_cnt; i++) {
		const struct perf_event_attr *a = &g->events[i].attr;
		/* cycles, or the family's own cycle event leading it (Arm's
		 * cpu_cycles goes to the cycle counter, arm_pmuv3.c). */
		bool cycles = (a->type == PERF_TYPE_HARDWARE &&
			       (a->config & 0xffffffffu) == PERF_COUNT_HW_CPU_CYCLES) ||
			      !strcmp(g->events[i].name, tdr_td_family__event(f, false, 0)->name);

		if (a->type == PERF_TYPE_SOFTWARE)
			continue;
		/* Intel's fixed counter 0 counts instructions (INST_RETIRED.ANY);
		 * the watchdog does not hold it. */
		if (f->fixed_cycles && a->type == PERF_TYPE_HARDWARE &&
		    (a->config & 0xffffffffu) == PERF_COUNT_HW_INSTRUCTIONS)
			continue;
		if (cycles && fixed_free) {
			fixed_free = false; /* the fixed cycles counter */
			continue;
		}
		need++;
	}
	return need;
}

/* Counter budget: a note when the group needs more general-purpose
 * counters than this machine leaves free (it would open and never
 * count). With Hyper-Threading on, a group that needs more than a thread
 * has even with the NMI watchdog off does not fit at all (-TDR_E_NOPLAN,
 * b->why says so): the kernel refuses it at open (the fake scheduling of
 * arch/x86/events/core.c validate_group), and only turning SMT off, not a
 * sysctl, makes room (intel-skl-l2's group 2 on Skylake-SP). */
static int check_budget(struct tdr_plan_builder *b, const struct tdr_td_family *f,
			const struct tdr_plan_group *g, size_t group_no)
{
	int wd = b->env.sys->nmi_watchdog;
	uint32_t avail = f->counters, need, bare;

	if (!avail)
		return 0;
	/* SMT off doubles Intel's per-thread counters; the kernel says so by
	 * printing the no-HT .scale (4), which is W. */
	if (f->counters_smt_off && f->width_scale && b->width == f->width) {
		avail = f->counters_smt_off;
	} else if (f->counters_smt_off && f->width_scale) {
		bare = general_needed(f, g, f->fixed_cycles);
		if (bare > avail) {
			snprintf(b->why, sizeof(b->why),
				 "counter budget: its group %zu needs %u general counters and a "
				 "thread has %u with Hyper-Threading on (%u with it off), so the "
				 "kernel refuses the group",
				 group_no, bare, avail, f->counters_smt_off);
			return -TDR_E_NOPLAN;
		}
	}
	need = general_needed(f, g, f->fixed_cycles && wd != 1);
	/* The watchdog's pinned cycles event takes the fixed counter on
	 * Intel (then tdrec's cycles needs a general one: counted above) and
	 * a general counter on AMD. */
	if (wd == 1 && !f->fixed_cycles)
		avail--;
	if (need <= avail)
		return 0;
	tdr_plan_note(b->plan,
		      "counter budget: the %s group needs %u general counters and %u are free%s; "
		      "it would never be scheduled and count nothing: free one with 'sysctl "
		      "kernel.nmi_watchdog=0', or use --plan with fewer events",
		      f->name, need, avail, wd == 1 ? " (the NMI watchdog holds one)" : "");
	return 0;
}

int tdr_plan_build_generic(struct tdr_plan_builder *b, const struct tdr_td_family *f)
{
	const struct tdr_plan_opts *o = b->opts;
	size_t base = b->group_base;
	struct tdr_plan_group *g = &b->plan->groups[base];
	size_t cnt = tdr_td_family__event_cnt(f, o->counting), last = base;
	const struct tdr_td_event *dup = NULL;
	char missing[160]; /* fits b->why after the PMU name */
	int err;

	/* A known CPU of another kind was refused before; an unknown one only
	 * gets the family when it was asked for by name. */
	if (!b->env.sys->cpu.known)
		tdr_plan_note(b->plan,
			      "no CPU identity (TDREC_CPUID, /proc/cpuinfo): %s built as asked, "
			      "not checked against the CPUs its raw events are for",
			      f->name);
	err = b->env.has_core ? 0 : open_pmu(b, f);
	if (err)
		return err;
	find_missing(b, f, missing, sizeof(missing));
	if (missing[0]) {
		snprintf(b->why, sizeof(b->why), "the %s PMU has no %s", b->env.core.name, missing);
		return -TDR_E_NOPLAN;
	}
	err = resolve_width(b, f);
	if (err)
		return err;
	if (!o->counting && o->sampler) {
		err = add_sampler(b, f, g, &dup);
		if (err)
			return err;
		/* Several groups sample on cycles each: a group's samples then
		 * stand for its share of the time (docs/plans.md "Level 2 in
		 * record"); another sampler in group 0 alone would not. */
		if (f->counting_only && dup != tdr_td_family__event(f, false, 0)) {
			tdr_warn("invalid event '%s': %s samples each of its groups on cycles; "
				 "use --plan %s to sample on another event",
				 o->sampler->text, f->name, f->base ? f->base->name : "software");
			return -TDR_E_USAGE;
		}
		if (g->events[0].attr.precise_ip && !strcmp(f->vendor, "AuthenticAMD")) {
			tdr_warn("invalid event '%s': on AMD, precise sampling (:p) goes to IBS, "
				 "not to the core counters of the %s group; drop the :p",
				 o->sampler->text, f->name);
			return -TDR_E_USAGE;
		}
	}
	for (size_t i = 0; !err && i < cnt; i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, o->counting, i);
		struct tdr_plan_group *eg;
		uint32_t flags = 0;

		if (e == dup)
			continue;
		if (base + e->group >= TDR_PLAN_MAX_GROUPS)
			return -TDR_E_LIMIT; /* a table bug, caught by its unit test */
		eg = &b->plan->groups[base + e->group];
		if (base + e->group > last)
			last = base + e->group;
		/* Without -e the family's leader (cycles) samples and leads;
		 * a further group is led by its first event, which samples
		 * too when recording (cycles, by the table). */
		if (!eg->event_cnt)
			flags = TDR_EVENT_LEADER | (o->counting ? 0 : TDR_EVENT_SAMPLER);
		err = add_table_event(b, eg, e, flags);
		/* Side-band records (mmap, comm, task) come once, from group
		 * 0's sampler: the groups share CPUs and tasks. */
		if (!err && e->group && (flags & TDR_EVENT_SAMPLER)) {
			struct perf_event_attr *a = &eg->events[0].attr;

			a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 0;
		}
	}
	if (err)
		return err;
	b->plan->group_cnt = last + 1;
	if (!o->counting && last > base)
		tdr_plan_note(b->plan,
			      "%s samples in %zu groups the kernel takes turns to count: each "
			      "sample's counts come from its own group, and each category from the "
			      "groups its formula reads (the report shows each group's share)",
			      f->name, last - base + 1);
	err = tdr_plan_check_sampler(b, g, o->counting ? NULL : &g->events[0], false);
	for (size_t i = base; !err && i <= last; i++) {
		err = check_budget(b, f, &b->plan->groups[i], i - base);
		if (!err)
			err = tdr_plan_group_cpus(b, &b->plan->groups[i]);
	}
	return err;
}
