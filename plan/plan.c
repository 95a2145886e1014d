/*
 * plan/plan.c - event plans: which perf_event groups to open, with every
 * perf_event_attr field decided here.
 *
 * Responsibility: build a TopDown L2, TopDown L1 or software plan from the
 * TopDown table's family of that name (tdrec/topdown.h) for the machine
 * described by one sysfs snapshot (sysfs.c, pmu.c), choose the first that
 * fits under
 * "auto", and hand the plan to the session (which opens it) and to the file
 * metadata (tdr_plan__to_meta). It opens nothing and never guesses: a plan
 * whose events are missing is skipped with a note naming them.
 * Objects and lifecycle: tdr_plan__build / __choose -> use -> __free. Each
 * reads the snapshot once; a struct tdr_plan_builder lives for one build on it.
 * Invariants (the kernel's TopDown rules, docs/kernel.md "TopDown group rules"):
 *   - group order {slots, sampler, metrics...}: slots leads and never samples;
 *   - the sampler is the only member with sample_period or freq/sample_freq;
 *   - every member has the same exclude_*, clock, sample_type, read_format
 *     and inherit; only the leader has disabled/enable_on_exec (it gates the
 *     group); only the sampler asks for side-band records (mmap, comm, task),
 *     so they are not duplicated.
 * See: docs/plans.md; docs/kernel.md "TopDown group rules", "Hybrid parts",
 * "sysfs event and format files", "perf's TopDown sampling".
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

#define PLAN_SAMPLE_TYPE                                                                           \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_IDENTIFIER)
#define PLAN_READ_FORMAT                                                                           \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Kind k is the table's family k - 1 (tdrec/plan.h). */
static const struct tdr_td_family *kind_family(enum tdr_plan_kind kind)
{
	return kind > TDR_PLAN_AUTO && kind < TDR_PLAN_KIND_CNT
		   ? tdr_topdown_family_at((size_t)kind - 1)
		   : NULL;
}

const char *tdr_plan_kind_name(enum tdr_plan_kind kind)
{
	const struct tdr_td_family *f = kind_family(kind);

	return kind == TDR_PLAN_AUTO ? "auto" : f ? f->name : "none";
}

int tdr_plan_kind_parse(const char *text, enum tdr_plan_kind *out)
{
	for (int k = 0; text && k < TDR_PLAN_KIND_CNT; k++) {
		if (!strcmp(text, tdr_plan_kind_name((enum tdr_plan_kind)k))) {
			*out = (enum tdr_plan_kind)k;
			return 0;
		}
	}
	return -TDR_E_USAGE; /* the caller names the option in its one line */
}

enum tdr_plan_kind tdr_plan_kind__fallback(enum tdr_plan_kind kind)
{
	const struct tdr_td_family *f = kind_family(kind);

	if (!f || kind == TDR_PLAN_SOFTWARE)
		return TDR_PLAN_KIND_CNT;
	/* A family falls back to the one it extends, else to software. */
	for (int k = 1; f->base && k < TDR_PLAN_KIND_CNT; k++)
		if (kind_family((enum tdr_plan_kind)k) == f->base)
			return (enum tdr_plan_kind)k;
	return TDR_PLAN_SOFTWARE;
}

const char *tdr_plan_kind_names(void)
{
	/* Every name is a literal of the table: 24 characters at most. */
	static char names[TDR_PLAN_KIND_CNT * 25];

	if (!names[0]) {
		for (int k = 0; k < TDR_PLAN_KIND_CNT; k++) {
			size_t len = strlen(names);

			snprintf(names + len, sizeof(names) - len, "%s%s", k ? "|" : "",
				 tdr_plan_kind_name((enum tdr_plan_kind)k));
		}
	}
	return names;
}

static void vfmt(char *buf, size_t sz, const char *fmt, va_list ap)
{
	vsnprintf(buf, sz, fmt, ap);
}

static void fmt(char *buf, size_t sz, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t sz, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vfmt(buf, sz, f, ap);
	va_end(ap);
}

void tdr_plan_note(struct tdr_plan *plan, const char *f, ...)
{
	va_list ap;

	if (plan->note_cnt >= TDR_PLAN_MAX_NOTES)
		return; /* cannot happen with today's plans: at most 11 notes */
	va_start(ap, f);
	vfmt(plan->notes[plan->note_cnt++], sizeof(plan->notes[0]), f, ap);
	va_end(ap);
}

/* Find the core PMU once: cpu_core (hybrid) first, then cpu. */
static int probe_core(struct tdr_plan_builder *b)
{
	char caps[64];
	int err;

	if (b->core_probed)
		return b->core_err;
	b->core_probed = true;
	/* Hybrid parts register cpu_core and cpu_atom and no "cpu" PMU; only
	 * cpu_core has perf metrics (docs/kernel.md "Hybrid parts"). */
	err = tdr_pmu__open(b->env.sys, "cpu_core", &b->env.core);
	if (!err) {
		b->env.has_core = b->env.hybrid = true;
	} else if (err == -ENOENT) {
		err = tdr_pmu__open(b->env.sys, "cpu", &b->env.core);
		if (!err)
			b->env.has_core = true;
		else if (err == -ENOENT)
			err = 0;
	}
	b->core_err = err;
	if (b->env.has_core) {
		tdr_pmu__caps_name(&b->env.core, caps, sizeof(caps));
		tdr_debug("core PMU %s, type %u%s%s", b->env.core.name, b->env.core.type,
			  caps[0] ? ", " : "", caps);
	}
	return err;
}

/* The attr rules shared by all plans (see the file comment). */
static void common_attr(const struct tdr_plan_opts *o, uint32_t flags, struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->read_format = PLAN_READ_FORMAT | (o->read_lost ? PERF_FORMAT_LOST : 0);
	if (!o->counting) {
		/* perf sets the group's sample_type on every member
		 * (evsel__config_leader_sampling; docs/kernel.md "perf's TopDown sampling"). */
		a->sample_type = PLAN_SAMPLE_TYPE;
		a->sample_id_all = 1;
	}
	/* exclude_* act on fixed counter 3 as a whole: the same everywhere (1.4). */
	a->exclude_kernel = !o->kernel;
	a->exclude_hv = 1;
	a->inherit = o->inherit;
	if ((flags & TDR_EVENT_LEADER) && o->enable_on_exec) {
		a->disabled = 1;
		a->enable_on_exec = o->enable_on_exec;
	}
	if (o->clockid >= 0) { /* the kernel refuses groups with mixed clocks */
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
	if (flags & TDR_EVENT_SAMPLER) {
		if (o->sample_freq) {
			a->freq = 1;
			a->sample_freq = o->sample_freq;
		} else {
			a->sample_period = o->sample_period;
		}
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	}
}

struct tdr_plan_event *tdr_plan_add_event(struct tdr_plan_builder *b, struct tdr_plan_group *g,
					  uint32_t flags)
{
	struct tdr_plan_event *ev;

	if (g->event_cnt >= TDR_PLAN_MAX_EVENTS)
		return NULL;
	ev = &g->events[g->event_cnt++];
	memset(ev, 0, sizeof(*ev));
	ev->flags = flags;
	common_attr(b->opts, flags, &ev->attr);
	return ev;
}

/* Add event name, the core PMU's sysfs alias, encoded through its format/
 * files. */
int tdr_plan_add_sysfs_event(struct tdr_plan_builder *b, struct tdr_plan_group *g,
			     const char *name, const char *alias, uint32_t flags)
{
	struct tdr_plan_event *ev = tdr_plan_add_event(b, g, flags);
	char terms[TDR_SYSFS_MAX];
	int err;

	if (!ev)
		return -TDR_E_LIMIT;
	fmt(ev->name, sizeof(ev->name), "%s", name);
	fmt(ev->pmu_name, sizeof(ev->pmu_name), "%s", b->env.core.name);
	err = tdr_pmu__event_terms(&b->env.core, alias, terms, sizeof(terms));
	if (!err)
		err = tdr_pmu__encode(&b->env.core, terms, &ev->attr);
	if (err == -ENOMEM)
		return err;
	if (err) {
		/* The kernel printed both the event and its formats: a mismatch
		 * means a damaged (or badly faked) sysfs, not a user error. */
		tdr_warn("failed to encode %s/%s from %s", b->env.core.name, alias, b->env.core.dir);
		return -TDR_E_CORRUPT;
	}
	ev->attr.type = b->env.core.type;
	return 0;
}

static int add_software_event(struct tdr_plan_builder *b, struct tdr_plan_group *g, const char *name,
			      uint64_t config, uint32_t flags)
{
	struct tdr_plan_event *ev = tdr_plan_add_event(b, g, flags);

	if (!ev)
		return -TDR_E_LIMIT;
	fmt(ev->name, sizeof(ev->name), "%s", name);
	fmt(ev->pmu_name, sizeof(ev->pmu_name), "software");
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = config;
	/* Software events have no shared counter, so unlike TopDown members
	 * their exclude_* may differ from the leader's (the rule in docs/kernel.md
	 * "TopDown group rules" is about fixed counter 3). */
	if (b->opts->kernel_sw_counts &&
	    (config == PERF_COUNT_SW_CONTEXT_SWITCHES || config == PERF_COUNT_SW_CPU_MIGRATIONS))
		ev->attr.exclude_kernel = 0;
	return 0;
}

/* g->cpus = a ∩ online (a == NULL: all online CPUs). */
static int set_cpus(struct tdr_plan_builder *b, struct tdr_plan_group *g, const int *a, size_t n)
{
	/* Offline CPUs cannot be opened on, and the session opens one group
	 * per listed CPU, so every list is cut down to online CPUs. */
	g->cpus = tdr_calloc(b->online_cnt, sizeof(*g->cpus));
	if (!g->cpus)
		return -ENOMEM;
	g->cpu_cnt = 0;
	for (size_t i = 0; i < b->online_cnt; i++) {
		bool keep = !a;

		for (size_t j = 0; a && j < n && !keep; j++)
			keep = a[j] == b->online[i];
		if (keep)
			g->cpus[g->cpu_cnt++] = b->online[i];
	}
	return 0;
}

/* The CPUs of a TopDown group: the core PMU's cpus file (hybrid), else all
 * online CPUs; opening outside the PMU's CPUs gives ENOENT (1.5). */
int tdr_plan_group_cpus(struct tdr_plan_builder *b, struct tdr_plan_group *g)
{
	int *pcpus = NULL, err;
	size_t pcnt = 0;

	err = tdr_pmu__cpus(&b->env.core, &pcpus, &pcnt);
	if (err == -ENOENT && b->env.hybrid) {
		tdr_warn("hybrid PMU %s has no cpus file in %s", b->env.core.name, b->env.core.dir);
		return -TDR_E_CORRUPT;
	}
	if (err && err != -ENOENT)
		return err;
	err = set_cpus(b, g, err ? NULL : pcpus, pcnt);
	free(pcpus);
	if (err)
		return err;
	if (!g->cpu_cnt) {
		fmt(b->why, sizeof(b->why), "no online CPU belongs to the %s PMU",
		    b->env.core.name);
		return -TDR_E_NOPLAN;
	}
	return 0;
}

/* The names of f's events missing from the core PMU, into buf. */
static void find_missing(struct tdr_plan_builder *b, const struct tdr_td_family *f, char *buf, size_t sz)
{
	size_t cnt = tdr_td_family__event_cnt(f, false);

	buf[0] = '\0';
	for (size_t i = 0; i < cnt; i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, false, i);
		size_t len = strlen(buf);

		if (!tdr_pmu__has_event(&b->env.core, e->alias))
			fmt(buf + len, sz - len, "%s%s", len ? ", " : "", e->alias);
	}
}

/* A TopDown plan: the family's events, all aliases of the core PMU. */
static int build_topdown(struct tdr_plan_builder *b, const struct tdr_td_family *f)
{
	const struct tdr_event_spec *spec = b->opts->sampler;
	struct tdr_plan_group *g = &b->plan->groups[0];
	size_t cnt = tdr_td_family__event_cnt(f, b->opts->counting);
	struct tdr_plan_event *sampler = NULL;
	struct tdr_event_spec cycles;
	char missing[200];
	int err;

	err = probe_core(b);
	if (err)
		return err;
	if (!b->env.has_core) {
		fmt(b->why, sizeof(b->why),
		    "no core PMU (cpu or cpu_core) in %s/bus/event_source/devices", b->env.root);
		return -TDR_E_NOPLAN;
	}
	/* Gate on the sysfs event files, never on a CPU model (docs/kernel.md "TopDown group rules"). */
	find_missing(b, f, missing, sizeof(missing));
	if (missing[0]) {
		fmt(b->why, sizeof(b->why), "the %s PMU has no %s", b->env.core.name, missing);
		return -TDR_E_NOPLAN;
	}
	/* {leader, sampler, metrics...}: slots leads and counts, the sampler
	 * is the second member (docs/kernel.md "TopDown group rules"); counting plans have none. */
	b->plan->group_cnt = 1;
	for (size_t i = 0; !err && i < cnt; i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, b->opts->counting, i);

		err = tdr_plan_add_sysfs_event(b, g, e->name, e->alias,
				      (e->flags & TDR_TD_LEADER) ? TDR_EVENT_LEADER : 0);
		if (err || i || b->opts->counting)
			continue;
		if (!spec) {
			err = tdr_event_spec__parse("cycles", &cycles);
			spec = &cycles;
		}
		sampler = tdr_plan_add_event(b, g, TDR_EVENT_SAMPLER);
		if (!err)
			err = tdr_event_spec__resolve(spec, &b->env, sampler);
	}
	if (err)
		return err;
	err = tdr_plan_check_sampler(b, g, sampler, true);
	if (!err)
		err = tdr_plan_group_cpus(b, g);
	/* A hybrid part's E-cores get a group of their own where the CPU's
	 * E-core family is known (plan_hybrid.c). */
	return err || !b->env.hybrid ? err : tdr_plan_add_e_core_group(b);
}

int tdr_plan_check_sampler(struct tdr_plan_builder *b, const struct tdr_plan_group *g,
			   const struct tdr_plan_event *sampler, bool members_cannot_sample)
{
	const char *text = b->opts->sampler ? b->opts->sampler->text : "cycles";

	if (!sampler)
		return 0;
	/* A hybrid part's other core PMU (cpu_atom) is another PMU context:
	 * the kernel refuses it in cpu_core's group (EINVAL), which would only
	 * look like a plan that does not fit (1.5). */
	if (b->env.hybrid && sampler->attr.type != b->env.core.type &&
	    !strncmp(sampler->pmu_name, "cpu", 3) && strcmp(sampler->pmu_name, b->env.core.name)) {
		tdr_warn("invalid event '%s': TopDown is measured on %s, and the kernel does not "
			 "group events of %s with it; sample a %s event or use --plan software",
			 text, b->env.core.name, sampler->pmu_name, b->env.core.name);
		return -TDR_E_USAGE;
	}
	/* A TopDown event cannot sample (1.4): refuse -e slots and friends. */
	for (size_t i = 0; members_cannot_sample && i < g->event_cnt; i++) {
		const struct perf_event_attr *a = &g->events[i].attr;

		if (&g->events[i] != sampler && a->type == sampler->attr.type &&
		    a->config == sampler->attr.config) {
			tdr_warn(
			    "invalid event '%s': it is the TopDown event %s, which cannot sample",
			    text, g->events[i].name);
			return -TDR_E_USAGE;
		}
	}
	return 0;
}

/* One more -e event of the software plan: read in the group when it is a
 * software event the group does not read yet. */
static int add_extra(struct tdr_plan_builder *b, struct tdr_plan_group *g,
		     const struct tdr_event_spec *spec)
{
	struct tdr_plan_event *ev = tdr_plan_add_event(b, g, 0);
	char name[sizeof(ev->name)];
	uint64_t config;
	int err;

	if (!ev)
		return -TDR_E_LIMIT;
	err = tdr_event_spec__resolve(spec, &b->env, ev);
	g->event_cnt--; /* re-added below as the software members are */
	if (err)
		return err;
	if (ev->attr.type != PERF_TYPE_SOFTWARE) {
		tdr_plan_note(b->plan,
			      "the software plan reads software events only: -e %s was ignored",
			      spec->text);
		return 0;
	}
	config = ev->attr.config;
	fmt(name, sizeof(name), "%s", ev->name);
	for (size_t i = 0; i < g->event_cnt; i++)
		if (g->events[i].attr.config == config)
			return 0; /* read already */
	return add_software_event(b, g, name, config, 0);
}

static int build_software(struct tdr_plan_builder *b, const struct tdr_td_family *f)
{
	const struct tdr_plan_opts *o = b->opts;
	size_t cnt = tdr_td_family__event_cnt(f, o->counting);
	struct tdr_plan_group *g = &b->plan->groups[0];
	const struct tdr_td_event *dflt;
	struct tdr_plan_event *lead;
	int err = 0;

	b->plan->group_cnt = 1;
	if (o->counting) {
		for (size_t i = 0; !err && i < cnt; i++) {
			const struct tdr_td_event *e = tdr_td_family__event(f, true, i);

			err = add_software_event(b, g, e->name, e->config,
						 (e->flags & TDR_TD_LEADER) ? TDR_EVENT_LEADER : 0);
		}
		return err ? err : set_cpus(b, g, NULL, 0);
	}
	/* The leader samples: without metric events nothing forbids it. */
	lead = tdr_plan_add_event(b, g, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER);
	if (o->sampler) {
		/* A damaged core PMU only matters to names looked up in it. */
		(void)probe_core(b);
		err = tdr_event_spec__resolve(o->sampler, &b->env, lead);
		if (err)
			return err;
		if (lead->attr.type != PERF_TYPE_SOFTWARE)
			tdr_plan_note(b->plan,
				 "the software plan samples cpu-clock: -e %s is not a software "
				 "event and was ignored",
				 o->sampler->text);
	}
	/* The family's leader is the default sampler (cpu-clock). */
	dflt = tdr_td_family__event(f, false, 0);
	if (!o->sampler || lead->attr.type != PERF_TYPE_SOFTWARE) {
		fmt(lead->name, sizeof(lead->name), "%s", dflt->name);
		fmt(lead->pmu_name, sizeof(lead->pmu_name), "software");
		lead->attr.type = PERF_TYPE_SOFTWARE;
		lead->attr.config = dflt->config;
		lead->attr.config1 = lead->attr.config2 = 0;
		lead->attr.precise_ip = 0;
	}
	/* The family's events after the sampler, minus the sampler's own event
	 * (two identical software events would be a wasted slot). */
	for (size_t i = 0; !err && i < cnt; i++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, false, i);

		if (e->config != lead->attr.config)
			err = add_software_event(b, g, e->name, e->config, 0);
	}
	for (size_t i = 0; !err && i < o->extra_cnt; i++)
		err = add_extra(b, g, &o->extra[i]);
	return err ? err : set_cpus(b, g, NULL, 0);
}

/* Build kind; on -TDR_E_NOPLAN, why says what is missing. */
static int build_kind(const struct tdr_plan_opts *opts, const struct tdr_sysfs *sys,
		      enum tdr_plan_kind kind, char *why, size_t why_sz, struct tdr_plan **out)
{
	struct tdr_plan_builder b = {.opts = opts};
	const struct tdr_td_family *family;
	int err;

	if (!kind_family(kind)) {
		tdr_warn("cannot build plan kind %d: build a concrete kind or use choose",
			 (int)kind);
		return -EINVAL;
	}
	/* period and freq share a union in the attr: exactly one must be
	 * given, or the sampler would silently take whichever came last. */
	if (!opts->counting && !opts->sample_period == !opts->sample_freq) {
		tdr_warn("a sampling plan needs exactly one of a sample period and a frequency");
		return -TDR_E_USAGE;
	}
	b.env.root = sys->root;
	b.env.sys = sys;
	b.plan = tdr_calloc(1, sizeof(*b.plan));
	if (!b.plan)
		return -ENOMEM;
	b.plan->kind = kind;
	err = tdr_sysfs__online_cpus(sys, &b.online, &b.online_cnt);
	if (!err && !b.online_cnt) {
		tdr_warn("no online CPUs in %s/devices/system/cpu/online", b.env.root);
		err = -TDR_E_CORRUPT;
	}
	/* Kind k is the table's family k - 1 (tdrec/plan.h). */
	family = kind_family(kind);
	b.width = family->width;
	tdr_cpuid_format(&sys->cpu, b.plan->cpuid, sizeof(b.plan->cpuid));
	snprintf(b.plan->cpuid_from, sizeof(b.plan->cpuid_from), "%s", sys->cpu_from);
	/* The file's CPU fields are this machine's (/proc/cpuinfo): say in its
	 * notes when the plan was chosen for another identity. */
	if (sys->cpu.known && !strcmp(sys->cpu_from, "TDREC_CPUID"))
		tdr_plan_note(b.plan, "plan chosen for CPU %s from TDREC_CPUID, not read from "
				      "this machine",
			      b.plan->cpuid);
	/* A known CPU of another kind never gets the family (generic counters
	 * mean other events there); an unknown one is the generic builder's
	 * question. */
	if (!err && sys->cpu.known && !tdr_td_family__matches(family, &sys->cpu)) {
		fmt(b.why, sizeof(b.why), "the CPU (%s, from %s) is not one of its CPUs",
		    b.plan->cpuid, sys->cpu_from);
		err = -TDR_E_NOPLAN;
	}
	if (!err) {
		const struct tdr_td_event *lead = tdr_td_family__event(family, false, 0);

		if (kind == TDR_PLAN_SOFTWARE) {
			err = build_software(&b, family);
		} else if (lead->source == TDR_TD_HARDWARE || family->ident_required) {
			err = tdr_plan_build_generic(&b, family);
		} else {
			err = build_topdown(&b, family);
		}
		for (size_t i = 0; !err && kind != TDR_PLAN_SOFTWARE && i < opts->extra_cnt; i++)
			tdr_plan_note(b.plan,
				      "a TopDown plan samples one event in its family's group: -e %s "
				      "was ignored",
				      opts->extra[i].text);
		b.plan->width = kind == TDR_PLAN_SOFTWARE ? 0 : b.width;
	}
	/* On hybrid parts, the CPUs no group covers are said. */
	if (!err && b.env.hybrid)
		err = tdr_plan_note_unmeasured(&b);
	if (!err && !opts->counting && opts->call_graph != TDR_CALL_GRAPH_NONE)
		err = tdr_plan_call_graph(&b);
	free(b.online);
	if (err) {
		if (err == -TDR_E_NOPLAN)
			fmt(why, why_sz, "%s", b.why);
		tdr_plan__free(b.plan);
		return err;
	}
	*out = b.plan;
	return 0;
}

/* Read what plans need of opts' sysfs root and the machine beside it,
 * once (sysfs.c). */
static int read_sysfs(const struct tdr_plan_opts *opts, struct tdr_sysfs **out)
{
	const struct tdr_event_spec *spec = opts->sampler;
	const char *root = tdr_sysfs_root(opts->sysfs_root), *proc = opts->proc_root;
	const char *cpuid = opts->cpuid, *from = "the plan options";
	int err;

	err = tdr_sysfs__read(root, spec && spec->kind == TDR_SPEC_PMU ? spec->name : NULL, out);
	if (err)
		return err;
	/* The real /proc describes the real /sys only: a fake sysfs tree gets
	 * its identity from TDREC_CPUID (docs/plans.md "CPU identity"). */
	if (!proc && !strcmp(root, "/sys"))
		proc = "/proc";
	if (!cpuid) {
		cpuid = getenv("TDREC_CPUID");
		from = "TDREC_CPUID";
		if (cpuid && !cpuid[0])
			cpuid = NULL;
	}
	err = tdr_sysfs__read_machine(*out, proc, cpuid, from);
	if (err) {
		tdr_sysfs__free(*out);
		*out = NULL;
	}
	return err;
}

int tdr_plan__build(const struct tdr_plan_opts *opts, enum tdr_plan_kind kind,
		    struct tdr_plan **out)
{
	struct tdr_sysfs *sys;
	char why[256] = "";
	int err;

	err = read_sysfs(opts, &sys);
	if (err)
		return err;
	err = build_kind(opts, sys, kind, why, sizeof(why), out);
	tdr_sysfs__free(sys);
	if (err == -TDR_E_NOPLAN)
		tdr_warn("plan %s does not fit this machine: %s", tdr_plan_kind_name(kind), why);
	return err;
}

/* AUTO: the first plan that fits the snapshot, best first. */
static int choose_auto(const struct tdr_plan_opts *opts, const struct tdr_sysfs *sys,
		       struct tdr_plan **out)
{
	char skipped[TDR_PLAN_KIND_CNT][256];
	struct tdr_plan *plan;
	size_t n = 0;
	int err;

	/* Each attempt is a fresh build from the same snapshot: plans share
	 * no state. Only "does not fit" moves on; damage and usage errors
	 * stop here (docs/plans.md). Families for other CPUs (or that need
	 * an identity this machine did not give) are not tried, and say
	 * nothing: one line per plan that could have been. */
	for (int k = TDR_PLAN_TOPDOWN_L2; k <= TDR_PLAN_SOFTWARE; k++) {
		const struct tdr_td_family *f = kind_family((enum tdr_plan_kind)k);
		char why[256] = "";

		if (!tdr_td_family__matches(f, &sys->cpu)) {
			tdr_debug("%s not tried: not for this CPU", f->name);
			continue;
		}
		/* A family of several groups (AMD level 2) is stat's default;
		 * record builds it only when asked by name. */
		if (!opts->counting && f->counting_only) {
			tdr_debug("%s not tried: only asked for by name", f->name);
			continue;
		}
		err = build_kind(opts, sys, (enum tdr_plan_kind)k, why, sizeof(why), &plan);
		if (err == -TDR_E_NOPLAN && k != TDR_PLAN_SOFTWARE) {
			fmt(skipped[n++], sizeof(skipped[0]), "%s not available: %s", f->name, why);
			tdr_debug("%s", skipped[n - 1]);
			continue;
		}
		if (err == -TDR_E_NOPLAN)
			tdr_warn("no plan fits this machine: %s", why);
		if (err)
			return err;
		/* A CPU no family is for (Zen 3, Ice Lake without a PMU...)
		 * would otherwise get software without a word. */
		if (!n && k == TDR_PLAN_SOFTWARE && sys->cpu.known)
			fmt(skipped[n++], sizeof(skipped[0]),
			    "no TopDown plan for this CPU (%s, from %s)", plan->cpuid, sys->cpu_from);
		/* The skipped plans come first in the notes. */
		if (plan->note_cnt + n > TDR_PLAN_MAX_NOTES)
			plan->note_cnt = TDR_PLAN_MAX_NOTES - n;
		memmove(plan->notes[n], plan->notes[0], plan->note_cnt * sizeof(plan->notes[0]));
		for (size_t i = 0; i < n; i++)
			memcpy(plan->notes[i], skipped[i], sizeof(plan->notes[0]));
		plan->note_cnt += n;
		plan->skip_note_cnt = n;
		*out = plan;
		return 0;
	}
	return -TDR_E_NOPLAN; /* not reached: the software plan always fits */
}

int tdr_plan__choose(const struct tdr_plan_opts *opts, enum tdr_plan_kind kind,
		     struct tdr_plan **out)
{
	struct tdr_sysfs *sys;
	int err;

	if (kind != TDR_PLAN_AUTO)
		return tdr_plan__build(opts, kind, out);
	err = read_sysfs(opts, &sys);
	if (err)
		return err;
	err = choose_auto(opts, sys, out);
	tdr_sysfs__free(sys);
	return err;
}

void tdr_plan__free(struct tdr_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < TDR_PLAN_MAX_GROUPS; i++)
		free(plan->groups[i].cpus);
	free(plan);
}

/* A hybrid plan: each core PMU's family over its own events, so that the
 * file holds both core types' formulas (docs/report.md "Core types"). */
static int hybrid_categories(const struct tdr_plan *plan, struct tdr_meta *meta)
{
	for (size_t g = 0; g < plan->group_cnt; g++) {
		const struct tdr_plan_group *pg = &plan->groups[g];
		enum tdr_plan_kind kind = pg->kind ? pg->kind : plan->kind;
		const struct tdr_td_family *f = kind_family(kind);
		int err;

		/* A family's later groups share its first group's PMU. */
		if (!f || !pg->event_cnt || (g && pg->kind == plan->groups[g - 1].kind))
			continue;
		err = tdr_meta__add_family_categories_on(meta, f, pg->kind ? pg->width : plan->width,
							 pg->events[0].pmu_name);
		if (err < 0)
			return err;
	}
	return 0;
}

int tdr_plan__to_meta(const struct tdr_plan *plan, struct tdr_meta *meta)
{
	const struct tdr_td_family *family;
	size_t total = meta->event_cnt, cap = meta->event_cnt;
	char *name;
	int err;

	for (size_t g = 0; g < plan->group_cnt; g++)
		total += plan->groups[g].event_cnt;
	family = kind_family(plan->kind);
	name = tdr_strdup(tdr_plan_kind_name(plan->kind));
	if (!name)
		return -ENOMEM;
	free(meta->plan_name);
	meta->plan_name = name;
	meta->clockid = -1;
	/* event_cnt only counts complete entries, so a failure part-way
	 * leaves meta valid for tdr_meta__clear. */
	if (tdr_ensure_cap(&meta->events, &cap, sizeof(*meta->events), total))
		return -ENOMEM;
	for (size_t g = 0; g < plan->group_cnt; g++) {
		for (size_t i = 0; i < plan->groups[g].event_cnt; i++) {
			const struct tdr_plan_event *pe = &plan->groups[g].events[i];
			struct tdr_event_desc *d = &meta->events[meta->event_cnt];

			memset(d, 0, sizeof(*d));
			d->name = tdr_strdup(pe->name);
			d->pmu_name = tdr_strdup(pe->pmu_name);
			if (!d->name || !d->pmu_name) {
				zfree(&d->name);
				zfree(&d->pmu_name);
				return -ENOMEM;
			}
			d->pmu_type = pe->attr.type;
			d->flags = pe->flags;
			d->group_idx = (uint32_t)g;
			d->attr = pe->attr;
			d->attr_disk_sz = sizeof(pe->attr);
			meta->event_cnt++;
			if (pe->attr.use_clockid)
				meta->clockid = pe->attr.clockid;
			if (pe->flags & TDR_EVENT_SAMPLER) {
				meta->sample_freq = pe->attr.freq ? pe->attr.sample_freq : 0;
				meta->sample_period = pe->attr.freq ? 0 : pe->attr.sample_period;
			}
		}
	}
	for (size_t i = 0; i < plan->note_cnt; i++) {
		char **notes = meta->notes, *note;
		size_t ncap = meta->note_cnt;

		note = tdr_strdup(plan->notes[i]);
		if (!note || tdr_ensure_cap(&notes, &ncap, sizeof(*notes), meta->note_cnt + 1)) {
			free(note);
			return -ENOMEM;
		}
		meta->notes = notes;
		meta->notes[meta->note_cnt++] = note;
	}
	/* The formulas live in format/ so perf.data import shares them; the
	 * plan's family and resolved W say which (Zen 4 and Zen 5 share event
	 * names). */
	if (plan->group_cnt > 1 && plan->groups[plan->group_cnt - 1].kind != TDR_PLAN_AUTO)
		return hybrid_categories(plan, meta);
	err = family ? tdr_meta__add_family_categories(meta, family, plan->width) : 0;
	return err < 0 ? err : 0;
}
