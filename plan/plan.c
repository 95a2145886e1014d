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
 * reads the snapshot once; a struct builder lives for one build on it.
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

static const char *const kind_names[TDR_PLAN_KIND_CNT] = {
    [TDR_PLAN_AUTO] = "auto",
    [TDR_PLAN_TOPDOWN_L2] = "topdown-l2",
    [TDR_PLAN_TOPDOWN_L1] = "topdown-l1",
    [TDR_PLAN_SOFTWARE] = "software",
};

const char *tdr_plan_kind_name(enum tdr_plan_kind kind)
{
	return (unsigned)kind < TDR_PLAN_KIND_CNT ? kind_names[kind] : "none";
}

int tdr_plan_kind_parse(const char *text, enum tdr_plan_kind *out)
{
	for (int k = 0; text && k < TDR_PLAN_KIND_CNT; k++) {
		if (!strcmp(text, kind_names[k])) {
			*out = (enum tdr_plan_kind)k;
			return 0;
		}
	}
	return -TDR_E_USAGE; /* the caller names the option in its one line */
}

enum tdr_plan_kind tdr_plan_kind__fallback(enum tdr_plan_kind kind)
{
	switch (kind) {
	case TDR_PLAN_TOPDOWN_L2:
		return TDR_PLAN_TOPDOWN_L1;
	case TDR_PLAN_TOPDOWN_L1:
		return TDR_PLAN_SOFTWARE;
	default:
		return TDR_PLAN_KIND_CNT;
	}
}

struct builder {
	const struct tdr_plan_opts *opts;
	struct tdr_plan_env env;
	bool core_probed;
	int core_err;
	int *online; /* sorted */
	size_t online_cnt;
	char why[256]; /* why the plan does not fit, for -TDR_E_NOPLAN */
	struct tdr_plan *plan;
};

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

static void add_note(struct tdr_plan *plan, const char *f, ...)
    __attribute__((format(printf, 2, 3)));
static void add_note(struct tdr_plan *plan, const char *f, ...)
{
	va_list ap;

	if (plan->note_cnt >= TDR_PLAN_MAX_NOTES)
		return; /* cannot happen with today's plans: at most 4 notes */
	va_start(ap, f);
	vfmt(plan->notes[plan->note_cnt++], sizeof(plan->notes[0]), f, ap);
	va_end(ap);
}

/* Find the core PMU once: cpu_core (hybrid) first, then cpu. */
static int probe_core(struct builder *b)
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

static struct tdr_plan_event *add_event(struct builder *b, struct tdr_plan_group *g, uint32_t flags)
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
static int add_sysfs_event(struct builder *b, struct tdr_plan_group *g, const char *name,
			   const char *alias, uint32_t flags)
{
	struct tdr_plan_event *ev = add_event(b, g, flags);
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

static int add_software_event(struct builder *b, struct tdr_plan_group *g, const char *name,
			      uint64_t config, uint32_t flags)
{
	struct tdr_plan_event *ev = add_event(b, g, flags);

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
static int set_cpus(struct builder *b, struct tdr_plan_group *g, const int *a, size_t n)
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

/* Names of the other hybrid PMUs ("cpu_atom") whose CPUs are in left, in
 * the snapshot's (readdir) order. */
static void other_hybrid_pmus(struct builder *b, const int *left, size_t left_cnt, char *buf,
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

/* On hybrid parts, say which online CPUs the group does not cover. */
static int note_unmeasured(struct builder *b, const struct tdr_plan_group *g)
{
	char left_txt[96], in_txt[96], pmus[64];
	size_t left_cnt = 0;
	int *left;

	left = tdr_calloc(b->online_cnt, sizeof(*left));
	if (!left)
		return -ENOMEM;
	for (size_t i = 0; i < b->online_cnt; i++) {
		bool in = false;

		for (size_t j = 0; j < g->cpu_cnt && !in; j++)
			in = g->cpus[j] == b->online[i];
		if (!in)
			left[left_cnt++] = b->online[i];
	}
	if (left_cnt) {
		tdr_cpulist__format(left, left_cnt, left_txt, sizeof(left_txt));
		tdr_cpulist__format(g->cpus, g->cpu_cnt, in_txt, sizeof(in_txt));
		other_hybrid_pmus(b, left, left_cnt, pmus, sizeof(pmus));
		add_note(b->plan,
			 "hybrid CPU: TopDown is measured on %s CPUs %s only; CPUs %s%s%s%s are "
			 "not measured",
			 b->env.core.name, in_txt, left_txt, pmus[0] ? " (" : "", pmus,
			 pmus[0] ? ")" : "");
	}
	free(left);
	return 0;
}

/* The CPUs of a TopDown group: the core PMU's cpus file (hybrid), else all
 * online CPUs; opening outside the PMU's CPUs gives ENOENT (1.5). */
static int topdown_cpus(struct builder *b, struct tdr_plan_group *g)
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
	return b->env.hybrid ? note_unmeasured(b, g) : 0;
}

/* The names of f's events missing from the core PMU, into buf. */
static void find_missing(struct builder *b, const struct tdr_td_family *f, char *buf, size_t sz)
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
static int build_topdown(struct builder *b, const struct tdr_td_family *f)
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

		err = add_sysfs_event(b, g, e->name, e->alias,
				      (e->flags & TDR_TD_LEADER) ? TDR_EVENT_LEADER : 0);
		if (err || i || b->opts->counting)
			continue;
		if (!spec) {
			err = tdr_event_spec__parse("cycles", &cycles);
			spec = &cycles;
		}
		sampler = add_event(b, g, TDR_EVENT_SAMPLER);
		if (!err)
			err = tdr_event_spec__resolve(spec, &b->env, sampler);
	}
	if (err)
		return err;
	/* A hybrid part's other core PMU (cpu_atom) is another PMU context:
	 * the kernel refuses it in cpu_core's group (EINVAL), which would only
	 * look like a plan that does not fit (1.5). */
	if (sampler && b->env.hybrid && sampler->attr.type != b->env.core.type &&
	    !strncmp(sampler->pmu_name, "cpu", 3) && strcmp(sampler->pmu_name, b->env.core.name)) {
		tdr_warn("invalid event '%s': TopDown is measured on %s, and the kernel does not "
			 "group events of %s with it; sample a %s event or use --plan software",
			 spec->text, b->env.core.name, sampler->pmu_name, b->env.core.name);
		return -TDR_E_USAGE;
	}
	/* A TopDown event cannot sample (1.4): refuse -e slots and friends. */
	for (size_t i = 0; sampler && i < g->event_cnt; i++) {
		const struct perf_event_attr *a = &g->events[i].attr;

		if (&g->events[i] != sampler && a->type == sampler->attr.type &&
		    a->config == sampler->attr.config) {
			tdr_warn(
			    "invalid event '%s': it is the TopDown event %s, which cannot sample",
			    spec->text, g->events[i].name);
			return -TDR_E_USAGE;
		}
	}
	return topdown_cpus(b, g);
}

static int build_software(struct builder *b, const struct tdr_td_family *f)
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
	lead = add_event(b, g, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER);
	if (o->sampler) {
		/* A damaged core PMU only matters to names looked up in it. */
		(void)probe_core(b);
		err = tdr_event_spec__resolve(o->sampler, &b->env, lead);
		if (err)
			return err;
		if (lead->attr.type != PERF_TYPE_SOFTWARE)
			add_note(b->plan,
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
	return err ? err : set_cpus(b, g, NULL, 0);
}

/* Build kind; on -TDR_E_NOPLAN, why says what is missing. */
static int build_kind(const struct tdr_plan_opts *opts, const struct tdr_sysfs *sys,
		      enum tdr_plan_kind kind, char *why, size_t why_sz, struct tdr_plan **out)
{
	struct builder b = {.opts = opts};
	const struct tdr_td_family *family;
	int err;

	if (kind <= TDR_PLAN_AUTO || kind >= TDR_PLAN_KIND_CNT) {
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
	/* The TopDown table names a family per plan (tdrec/topdown.h). */
	family = tdr_topdown_family(kind_names[kind]);
	if (!err && !family) {
		tdr_warn("no TopDown table family for plan %s", kind_names[kind]);
		err = -EINVAL;
	}
	if (!err)
		err = kind == TDR_PLAN_SOFTWARE ? build_software(&b, family)
						: build_topdown(&b, family);
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

/* Read what plans need of opts' sysfs root, once (sysfs.c). */
static int read_sysfs(const struct tdr_plan_opts *opts, struct tdr_sysfs **out)
{
	const struct tdr_event_spec *spec = opts->sampler;

	return tdr_sysfs__read(tdr_sysfs_root(opts->sysfs_root),
			       spec && spec->kind == TDR_SPEC_PMU ? spec->name : NULL, out);
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
	char skipped[2][256];
	struct tdr_plan *plan;
	size_t n = 0;
	int err;

	/* Each attempt is a fresh build from the same snapshot: plans share
	 * no state. Only "does not fit" moves on; damage and usage errors
	 * stop here (docs/plans.md). */
	for (int k = TDR_PLAN_TOPDOWN_L2; k <= TDR_PLAN_SOFTWARE; k++) {
		char why[256] = "";

		err = build_kind(opts, sys, (enum tdr_plan_kind)k, why, sizeof(why), &plan);
		if (err == -TDR_E_NOPLAN && k != TDR_PLAN_SOFTWARE) {
			fmt(skipped[n++], sizeof(skipped[0]), "%s not available: %s", kind_names[k],
			    why);
			tdr_debug("%s", skipped[n - 1]);
			continue;
		}
		if (err == -TDR_E_NOPLAN)
			tdr_warn("no plan fits this machine: %s", why);
		if (err)
			return err;
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

int tdr_plan__to_meta(const struct tdr_plan *plan, struct tdr_meta *meta)
{
	size_t total = meta->event_cnt, cap = meta->event_cnt;
	char *name;
	int err;

	for (size_t g = 0; g < plan->group_cnt; g++)
		total += plan->groups[g].event_cnt;
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
	/* The formulas live in format/ so perf.data import shares them. */
	err = tdr_meta__add_topdown_categories(meta);
	return err < 0 ? err : 0;
}

bool tdr_plan_kernel_counts_allowed(void)
{
	FILE *f;
	int paranoid = 2;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (!f)
		return false;
	if (fscanf(f, "%d", &paranoid) != 1)
		paranoid = 2;
	fclose(f);
	return paranoid <= 1;
}
