/*
 * parser/perfdata_td.c - perf.data import: PMUs, event names and TopDown.
 *
 * Responsibility: the PMU_MAPPINGS feature (which PMU each attr.type is);
 * the core PMU each attr counts on (hardware events carry it in config
 * bits 32-63 on hybrid parts, PERF_PMU_TYPE_SHIFT in the kernel's
 * include/uapi/linux/perf_event.h); the TopDown family of each core PMU's
 * events, chosen from the TopDown table by the file's CPUID and the PMU's
 * name (Alder Lake: the perf metrics on cpu_core, Gracemont on cpu_atom);
 * tdrec's names for the events (the table's names, so that categories are
 * found; perf's names otherwise); and the categories of every family found,
 * each resolved to the events of its own core PMU. A family of several
 * groups (AMD level 2) is matched group by group, in the order the file's
 * groups come (the same raw config leads two of them).
 * It does not read the file's other sections (perfdata.c) nor its data
 * (perfdata_read.c).
 * See: docs/parser.md "perf.data import"; docs/plans.md "The TopDown table".
 */
#include "parser_int.h"
#include "perfdata_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

#ifndef PERF_PMU_TYPE_SHIFT
#define PERF_PMU_TYPE_SHIFT 32 /* include/uapi/linux/perf_event.h, v5.18+ */
#endif

/* Core PMUs of one file told apart; more are not looked at for TopDown. */
#define MAX_CORE_TYPES 8

static void free_pmus(struct pd_pmu *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static int cmp_pmu(const void *a, const void *b)
{
	uint32_t x = ((const struct pd_pmu *)a)->type, y = ((const struct pd_pmu *)b)->type;

	return x < y ? -1 : x > y;
}

/* PMU_MAPPINGS: u32 nr, then nr times {u32 type, perf_header_string name}
 * (perf's write_pmu_mappings). The first copy is kept; a damaged one is
 * dropped whole, so no name half read can be believed. */
int tdr_parser_perfdata_pmu_mappings(struct perfdata *pd, const uint8_t *b, size_t end)
{
	struct pd_pmu *v;
	size_t pos = 4, n;
	uint32_t nr;
	int err = 0;

	if (end < 4)
		return -TDR_E_CORRUPT;
	nr = tdr_get_le32(b);
	/* Each entry takes at least 8 bytes: its type and its string's length. */
	if (nr > (end - 4) / 8 || nr > PD_MAX_PMUS)
		return -TDR_E_CORRUPT;
	if (pd->pmus)
		return 0;
	v = tdr_calloc(nr ? nr : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (n = 0; n < nr && !err; n++) {
		if (end - pos < 4) {
			err = -TDR_E_CORRUPT;
			break;
		}
		v[n].type = tdr_get_le32(b + pos);
		pos += 4;
		err = tdr_parser_perfdata_read_str(b, &pos, end, &v[n].name);
	}
	if (err) {
		free_pmus(v, nr);
		return err;
	}
	/* By type, for a binary search: the TopDown choice looks a type up for
	 * every attr and family, and a server lists hundreds of PMUs. */
	qsort(v, nr, sizeof(*v), cmp_pmu);
	pd->pmus = v;
	pd->pmu_cnt = nr;
	return 0;
}

void tdr_parser_perfdata_pmus_free(struct perfdata *pd)
{
	free_pmus(pd->pmus, pd->pmu_cnt);
	pd->pmus = NULL;
	pd->pmu_cnt = 0;
}

uint32_t tdr_parser_perfdata_core_type(const struct perfdata *pd, const struct perf_event_attr *a)
{
	uint32_t core = pd->hw_type ? pd->hw_type : PERF_TYPE_RAW, ext;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		/* Without an extended type the kernel opens it on type 4
		 * (perf_init_event): the core PMU, cpu_core on hybrid parts; on
		 * arm64 the armv8_pmuv3 PMU (a dynamic type) takes it. */
		ext = (uint32_t)(a->config >> PERF_PMU_TYPE_SHIFT);
		return ext ? ext : core;
	case PERF_TYPE_RAW:
		return core;
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return 0;
	default:
		return a->type;
	}
}

const char *tdr_parser_perfdata_pmu_name(const struct perfdata *pd, uint32_t type)
{
	const struct pd_pmu key = {.type = type}, *e;

	if (!pd->pmu_cnt)
		return NULL;
	e = bsearch(&key, pd->pmus, pd->pmu_cnt, sizeof(*pd->pmus), cmp_pmu);
	return e && e->name && e->name[0] ? e->name : NULL;
}

/* Whether f runs on the core PMU of type t: by the PMU's name, or, for a
 * file without PMU_MAPPINGS, type 4 (the core PMU, whatever its name). A
 * dynamic type without a name is not known to be a core PMU. */
static bool runs_on_type(const struct perfdata *pd, const struct tdr_td_family *f, uint32_t t)
{
	const char *name = tdr_parser_perfdata_pmu_name(pd, t);

	return name ? tdr_td_family__runs_on(f, name) : t == PERF_TYPE_RAW;
}

/* Armv8 common event numbers (the Arm ARM's PMU events; the kernel's
 * include/linux/perf/arm_pmuv3.h ARMV8_PMUV3_PERFCTR_*). */
#define ARMV8_BR_MIS_PRED 0x10
#define ARMV8_CPU_CYCLES 0x11

/*
 * The raw config a generic hardware event counts on an arm64 file's CPU,
 * or 0: drivers/perf/arm_pmuv3.c (armv8_pmuv3_perf_map) opens cycles as
 * CPU_CYCLES and branch-misses as BR_MIS_PRED, so `perf record -e
 * '{cycles,stall_slot_frontend,...}'` names the family's events too.
 */
static uint64_t arm_hw_config(const struct perfdata *pd, const struct perf_event_attr *a)
{
	if (!pd->cpuid.midr || a->type != PERF_TYPE_HARDWARE)
		return 0;
	switch (a->config & 0xffffffffu) {
	case PERF_COUNT_HW_CPU_CYCLES:
		return ARMV8_CPU_CYCLES;
	case PERF_COUNT_HW_BRANCH_MISSES:
		return ARMV8_BR_MIS_PRED;
	default:
		return 0;
	}
}

/*
 * The event of family f an attr names, or NULL: on a core PMU f runs on,
 * a raw config equal to the event's config or its alternative encoding,
 * or the generic hardware event (cycles; bits 32-63 are the hybrid PMU
 * type; on arm64 the raw event it is opened as). Raw configs mean other
 * events on other CPUs (0x2c2 is retire slots on Skylake and retiring on
 * Skymont), so callers pass only the families the file's CPU matches.
 */
static const struct tdr_td_event *family_event_of(const struct perfdata *pd,
						  const struct tdr_td_family *f,
						  const struct perf_event_attr *a, int group)
{
	size_t n = tdr_td_family__event_cnt(f, false);
	uint32_t t = tdr_parser_perfdata_core_type(pd, a);
	bool raw = a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX;
	uint64_t arm = arm_hw_config(pd, a);
	bool groups = n && tdr_td_family__event(f, false, n - 1)->group;

	if (!t || !runs_on_type(pd, f, t))
		return NULL;
	for (size_t k = 0; k < n; k++) {
		const struct tdr_td_event *e = tdr_td_family__event(f, false, k);

		/* A family of several groups (AMD level 2) has one raw config
		 * in several of them (0x76: cycles, and the leaders of groups
		 * 1 and 2): the file's group position tells them apart. */
		if (groups && group >= 0 && e->group != (uint32_t)group)
			continue;
		switch (e->source) {
		case TDR_TD_HARDWARE:
			if ((a->type == PERF_TYPE_HARDWARE &&
			     (a->config & 0xffffffffu) == e->config) ||
			    (raw && e->config_alt && a->config == e->config_alt))
				return e;
			break;
		case TDR_TD_CORE_ALIAS:
		case TDR_TD_CORE_TERMS:
			if (raw && (a->config == e->config || (e->config_alt && a->config == e->config_alt)))
				return e;
			if (arm && arm == e->config)
				return e;
			break;
		default:
			break;
		}
	}
	return NULL;
}

/*
 * The position of event i's group among the file's groups on its core PMU
 * (0 for the first), as perf records `-e '{...}' -e '{...}'` in order; -1
 * when the event is not on a core PMU. For families of several groups.
 */
static int file_group(const struct perfdata *pd, const struct tdr_meta *m, size_t i)
{
	uint32_t t = tdr_parser_perfdata_core_type(pd, &m->events[i].attr);
	size_t lead = m->events[i].group_idx;
	int n = 0;

	if (!t)
		return -1;
	for (size_t j = 0; j < lead && j < m->event_cnt; j++)
		if (m->events[j].group_idx == j &&
		    tdr_parser_perfdata_core_type(pd, &m->events[j].attr) == t)
			n++;
	return n;
}

/* The file's CPU for the table, NULL when the file does not say. A CPUID
 * header tdrec cannot parse names a CPU no family is for. */
static const struct tdr_cpuid *file_cpu(const struct perfdata *pd)
{
	static const struct tdr_cpuid other = {.known = true, .vendor = "?"};

	if (!pd->cpuid_seen)
		return NULL;
	return pd->cpuid.known ? &pd->cpuid : &other;
}

/* The first TopDown family (best first) for the file's CPU that runs on
 * core PMU t and whose every event an attr of that PMU names, or NULL. */
static const struct tdr_td_family *type_family(const struct perfdata *pd,
					       const struct tdr_meta *m, uint32_t t)
{
	const struct tdr_cpuid *cpu = file_cpu(pd);

	for (size_t i = 0; i < tdr_topdown_family_cnt(); i++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(i);
		size_t n = tdr_td_family__event_cnt(f, false), k;

		if (!tdr_td_family__formula_cnt(f) || !f->vendor ||
		    !tdr_td_family__matches(f, cpu) || !runs_on_type(pd, f, t))
			continue;
		for (k = 0; k < n; k++) {
			const struct tdr_td_event *e = tdr_td_family__event(f, false, k);
			size_t j;

			for (j = 0; j < m->event_cnt; j++)
				if (tdr_parser_perfdata_core_type(pd, &m->events[j].attr) == t &&
				    family_event_of(pd, f, &m->events[j].attr,
						    file_group(pd, m, j)) == e)
					break;
			if (j == m->event_cnt)
				break;
		}
		if (k == n)
			return f;
	}
	return NULL;
}

/* tdrec's name for a TopDown event: the event of its PMU's family, or
 * without one (some of a family's events only) of the first family for
 * the file's CPU and that PMU that has it. NULL for any other event. */
static const char *topdown_name(const struct perfdata *pd, const struct perf_event_attr *a,
				int group, const struct tdr_td_family *fam)
{
	const struct tdr_cpuid *cpu = file_cpu(pd);
	const struct tdr_td_event *e;

	if (fam)
		return (e = family_event_of(pd, fam, a, group)) ? e->name : NULL;
	if (a->type == PERF_TYPE_HARDWARE)
		return NULL; /* "cycles" stays perf's name outside a TopDown group */
	for (size_t i = 0; i < tdr_topdown_family_cnt(); i++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(i);

		if (f->vendor && tdr_td_family__matches(f, cpu) &&
		    (e = family_event_of(pd, f, a, group)))
			return e->name;
	}
	return NULL;
}

/* Names of the generic hardware and software events (perf's names), indexed
 * by attr.config. */
static const char *const hw_names[] = {
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
};
static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches",
};

/* An event's name when EVENT_DESC has none (a file cut before its
 * features), from its attr: td (the table's name, from topdown_name) first, since on arm64 cycles is the family's cpu_cycles; then perf's
 * generic names; else "eventN". */
static char *name_from_attr(const struct perf_event_attr *a, size_t i, const char *td)
{
	uint64_t c = a->config & 0xffffffffu; /* high bits: hybrid PMU type */
	const char *n = td;
	char buf[32];

	if (!n && a->type == PERF_TYPE_HARDWARE && c < TDR_ARRAY_SIZE(hw_names))
		n = hw_names[c];
	else if (!n && a->type == PERF_TYPE_SOFTWARE && c < TDR_ARRAY_SIZE(sw_names))
		n = sw_names[c];
	if (!n) {
		snprintf(buf, sizeof(buf), "event%zu", i);
		n = buf;
	}
	return tdr_strdup(n);
}

/*
 * The categories of family f over the events of core PMU t: the family's
 * formulas (tdr_meta__add_family_categories, which finds events by name)
 * resolved against a scratch list of that PMU's events under the table's
 * names, then moved to m with m's event indexes. So two families with
 * events of the same name (cycles on cpu_core and on cpu_atom) each get
 * their own PMU's events.
 */
static int add_type_categories(const struct perfdata *pd, struct tdr_meta *m,
			       const struct tdr_td_family *f, uint32_t t)
{
	struct tdr_meta s = {0};
	size_t *idx = tdr_calloc(m->event_cnt + 1, sizeof(*idx)), n = 0, cap;
	int err = -ENOMEM;

	s.events = tdr_calloc(m->event_cnt + 1, sizeof(*s.events));
	if (!idx || !s.events)
		goto out;
	for (size_t i = 0; i < m->event_cnt; i++) {
		const struct tdr_td_event *e;

		if (tdr_parser_perfdata_core_type(pd, &m->events[i].attr) != t)
			continue;
		e = family_event_of(pd, f, &m->events[i].attr, file_group(pd, m, i));
		s.events[n].name = tdr_strdup(e ? e->name : "");
		idx[n] = i;
		s.event_cnt = ++n;
		if (!s.events[n - 1].name)
			goto out;
	}
	err = tdr_meta__add_family_categories(&s, f, 0);
	if (err <= 0)
		goto out;
	cap = m->category_cnt;
	err = tdr_ensure_cap(&m->categories, &cap, sizeof(*m->categories),
			     m->category_cnt + s.category_cnt);
	if (err)
		goto out;
	for (size_t c = 0; c < s.category_cnt; c++) {
		struct tdr_category *cat = &s.categories[c];

		for (size_t k = 0; k < cat->num_cnt; k++)
			cat->num[k].event_idx = (uint32_t)idx[cat->num[k].event_idx];
		for (size_t k = 0; k < cat->den_cnt; k++)
			cat->den[k].event_idx = (uint32_t)idx[cat->den[k].event_idx];
		m->categories[m->category_cnt++] = *cat;
	}
	s.category_cnt = 0; /* moved: only the array is s's now */
out:
	tdr_meta__clear(&s);
	free(idx);
	return err < 0 ? err : 0;
}

/* In a file with several core PMUs, events with the same name on
 * different PMUs, and generic hardware events, are told apart as perf
 * does: "cpu_atom/cycles/". */
static int qualify_duplicates(struct tdr_meta *m)
{
	bool *dup = tdr_calloc(m->event_cnt + 1, sizeof(*dup));

	if (!dup)
		return -ENOMEM;
	/* All found first: renaming one would hide its twin. A generic
	 * hardware event ("cycles") names no PMU: on a hybrid part it always
	 * gets one. */
	for (size_t i = 0; i < m->event_cnt; i++) {
		const struct tdr_event_desc *a = &m->events[i];

		if (a->attr.type == PERF_TYPE_HARDWARE && a->pmu_name && !strchr(a->name, '/'))
			dup[i] = true;

		for (size_t j = i + 1; j < m->event_cnt; j++) {
			const struct tdr_event_desc *b = &m->events[j];

			if (!strcmp(a->name, b->name) && a->pmu_name && b->pmu_name &&
			    strcmp(a->pmu_name, b->pmu_name))
				dup[i] = dup[j] = true;
		}
	}
	for (size_t i = 0; i < m->event_cnt; i++) {
		struct tdr_event_desc *a = &m->events[i];
		size_t sz;
		char *q;

		if (!dup[i])
			continue;
		sz = strlen(a->pmu_name) + strlen(a->name) + 3;
		q = tdr_malloc(sz);
		if (!q) {
			free(dup);
			return -ENOMEM;
		}
		snprintf(q, sz, "%s/%s/", a->pmu_name, a->name);
		free(a->name);
		a->name = q;
	}
	free(dup);
	return 0;
}

/*
 * On arm64 the core PMU is a dynamic type ("armv8_pmuv3_0"), and the
 * kernel opens generic hardware and PERF_TYPE_RAW events on it
 * (perf_init_event tries each PMU): the type of the one such PMU the
 * file's attrs name, or 0 (not arm64, or several: big.LITTLE, where
 * perf gives each event an extended type or its PMU's own type).
 */
static uint32_t arm_core_type(const struct perfdata *pd, const struct tdr_meta *m)
{
	const struct tdr_cpuid *cpu = file_cpu(pd);
	uint32_t found = 0;

	if (!pd->cpuid.midr)
		return 0;
	for (size_t i = 0; i < m->event_cnt; i++) {
		uint32_t t = m->events[i].attr.type;
		const char *name = t >= PERF_TYPE_MAX ? tdr_parser_perfdata_pmu_name(pd, t) : NULL;

		if (!name || t == found || !tdr_topdown_family_for_cpu(cpu, name))
			continue;
		if (found)
			return 0;
		found = t;
	}
	return found;
}

int tdr_parser_perfdata_topdown(struct perfdata *pd, struct tdr_meta *m)
{
	uint32_t types[MAX_CORE_TYPES];
	const struct tdr_td_family *fams[MAX_CORE_TYPES];
	size_t nt = 0, i, k;
	int err;

	pd->hw_type = arm_core_type(pd, m);
	/* The core PMUs in the order their first attr comes. */
	for (i = 0; i < m->event_cnt; i++) {
		uint32_t t = tdr_parser_perfdata_core_type(pd, &m->events[i].attr);

		for (k = 0; k < nt && types[k] != t; k++)
			;
		if (t && k == nt && nt < MAX_CORE_TYPES)
			types[nt++] = t;
	}
	for (k = 0; k < nt; k++)
		fams[k] = type_family(pd, m, types[k]);
	for (i = 0; i < m->event_cnt; i++) {
		struct tdr_event_desc *ev = &m->events[i];
		uint32_t t = tdr_parser_perfdata_core_type(pd, &ev->attr);
		const char *pmu = tdr_parser_perfdata_pmu_name(pd, t ? t : ev->attr.type), *td;
		const struct tdr_td_family *fam = NULL;

		for (k = 0; k < nt; k++)
			if (types[k] == t)
				fam = fams[k];
		/* TopDown categories are found by event name: perf's may carry a
		 * PMU ("cpu_core/topdown-retiring/") or modifiers. */
		td = topdown_name(pd, &ev->attr, file_group(pd, m, i), fam);
		if (td && ev->name && strcmp(ev->name, td))
			zfree(&ev->name);
		if (!ev->name) {
			ev->name = name_from_attr(&ev->attr, i, td);
			if (!ev->name)
				return -ENOMEM;
		}
		if (pmu && (!ev->pmu_name || strcmp(ev->pmu_name, pmu))) {
			free(ev->pmu_name);
			ev->pmu_name = tdr_strdup(pmu);
			if (!ev->pmu_name)
				return -ENOMEM;
		}
	}
	if (nt > 1) {
		err = qualify_duplicates(m);
		if (err)
			return err;
	}
	/* Each family's formulas with its own width (Zen 4 and Zen 5 have the
	 * same events, not the same width), over its own PMU's events. */
	for (k = 0; k < nt; k++) {
		if (!fams[k])
			continue;
		err = add_type_categories(pd, m, fams[k], types[k]);
		if (err)
			return err;
		/* caps/slots is a sysfs file of the recording machine, not in
		 * the file: the table's W stands in, and finish_meta says so. */
		if (fams[k]->width_caps_slots && !pd->width_from_table)
			pd->width_from_table = fams[k];
	}
	return 0;
}
