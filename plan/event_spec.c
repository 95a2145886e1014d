/*
 * plan/event_spec.c - the sampler given with -e: parse the text, then
 * resolve it against the machine's PMUs.
 *
 * Responsibility: tdr_event_spec__parse is pure text parsing (cli/ calls it
 * once, docs/architecture.md "Conventions"); tdr_event_spec__resolve turns a parsed spec into
 * attr.type and config words using the sysfs snapshot (pmu.c). It knows the generic
 * hardware and software event names of perf_event_open(2) and nothing about
 * TopDown.
 * Syntax accepted (a subset of perf's):
 *   NAME[:MODS]        a generic name (cycles, instructions, cpu-clock, ...)
 *                      or an event alias in the core PMU's events/
 *   rHEX[:MODS]        a raw config, 1-16 hex digits, no "0x"
 *   PMU/TERMS/[MODS]   terms through PMU's format/ (":MODS" also accepted)
 *   MODS               "p", "pp" or "ppp": precise_ip 1, 2 or 3
 * A word made of "r" and letters or digits only (no '-', '_' or '.') is
 * always read as a raw config, so "rxyz" is an error rather than an unknown
 * event name; no sysfs core event alias has that shape.
 * See: plan_int.h; perf-list(1) "RAW HARDWARE EVENT DESCRIPTOR".
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* Check NUL-free text [s, s+n) is a non-empty name. */
static bool valid_name(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}

static bool valid_number(const char *s, size_t n)
{
	size_t i = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (!isxdigit((unsigned char)s[i]))
				return false;
		return n <= 18;
	}
	for (; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0 && n <= 20;
}

/* "key[=number],..." with names made of name characters. */
static bool valid_terms(const char *s, size_t n)
{
	size_t start = 0;

	if (!n)
		return false;
	for (size_t i = 0; i <= n; i++) {
		const char *t = s + start, *eq;
		size_t len;

		if (i < n && s[i] != ',')
			continue;
		len = i - start;
		eq = memchr(t, '=', len);
		if (eq) {
			if (!valid_name(t, (size_t)(eq - t)) ||
			    !valid_number(eq + 1, len - (size_t)(eq - t) - 1))
				return false;
		} else if (!valid_name(t, len)) {
			return false;
		}
		start = i + 1;
	}
	return true;
}

/* "p", "pp", "ppp" -> 1..3; anything else -> -1. */
static int parse_mods(const char *m)
{
	size_t n = strlen(m);

	if (n < 1 || n > 3 || strspn(m, "p") != n)
		return -1;
	return (int)n;
}

static int usage(const char *text, const char *why)
{
	tdr_warn("invalid event '%s': %s", text, why);
	return -TDR_E_USAGE;
}

static int parse_pmu_form(const char *text, const char *slash, struct tdr_event_spec *s)
{
	const char *terms = slash + 1, *close = strchr(terms, '/'), *mods;
	size_t name_n = (size_t)(slash - text);

	if (!valid_name(text, name_n) || name_n >= sizeof(s->name))
		return usage(text, "expected PMU/TERMS/ with a PMU name before the first '/'");
	if (!close)
		return usage(text, "missing the closing '/' of PMU/TERMS/");
	if ((size_t)(close - terms) >= sizeof(s->terms) ||
	    !valid_terms(terms, (size_t)(close - terms)))
		return usage(text, "terms must be NAME or NAME=NUMBER, separated by commas");
	/* perf writes the modifiers straight after the slash ("/pp"); accept
	 * the colon form too, since users carry it over from "cycles:pp". */
	mods = close + 1;
	if (*mods == ':')
		mods++;
	if (*mods || mods != close + 1) {
		s->precise = parse_mods(mods);
		if (s->precise < 0)
			return usage(text, "the only modifiers are p, pp and ppp");
	}
	s->kind = TDR_SPEC_PMU;
	memcpy(s->name, text, name_n);
	memcpy(s->terms, terms, (size_t)(close - terms));
	return 0;
}

int tdr_event_spec__parse(const char *text, struct tdr_event_spec *out)
{
	struct tdr_event_spec s = {0};
	const char *slash, *colon;
	size_t base_n;

	if (!text || !text[0])
		return usage("", "empty event");
	if (strlen(text) >= sizeof(s.text))
		return usage(text, "too long");
	strcpy(s.text, text);
	slash = strchr(text, '/');
	if (slash) {
		int err = parse_pmu_form(text, slash, &s);

		if (err)
			return err;
		*out = s;
		return 0;
	}
	colon = strchr(text, ':');
	base_n = colon ? (size_t)(colon - text) : strlen(text);
	if (colon) {
		s.precise = parse_mods(colon + 1);
		if (s.precise < 0)
			return usage(text, "the only modifiers are :p, :pp and :ppp");
	}
	if (!valid_name(text, base_n) || base_n >= sizeof(s.name))
		return usage(text, "expected an event name, rHEX or PMU/TERMS/");
	if (text[0] == 'r') {
		size_t alnum = 1;

		while (alnum < base_n && isalnum((unsigned char)text[alnum]))
			alnum++;
		if (alnum == base_n) { /* a raw word: must be r + hex digits */
			uint64_t v = 0;

			if (base_n < 2 || base_n > 17)
				return usage(text,
					     "a raw event is r followed by 1 to 16 hex digits");
			for (size_t i = 1; i < base_n; i++) {
				if (!isxdigit((unsigned char)text[i]))
					return usage(
					    text,
					    "a raw event is r followed by 1 to 16 hex digits");
				v = v << 4 |
				    (uint64_t)(isdigit((unsigned char)text[i])
						   ? text[i] - '0'
						   : tolower((unsigned char)text[i]) - 'a' + 10);
			}
			s.kind = TDR_SPEC_RAW;
			s.config = v;
			memcpy(s.name, text, base_n);
			*out = s;
			return 0;
		}
	}
	s.kind = TDR_SPEC_NAMED;
	memcpy(s.name, text, base_n);
	*out = s;
	return 0;
}

/* Generic events of perf_event_open(2) by the names perf uses for them. */
static const struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic_events[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

/* The event text without its modifiers, as the event's name. */
static void base_name(const struct tdr_event_spec *spec, char *buf, size_t sz)
{
	size_t n;

	if (spec->kind == TDR_SPEC_PMU) {
		const char *close = strchr(strchr(spec->text, '/') + 1, '/');

		n = (size_t)(close - spec->text) + 1;
	} else {
		n = strcspn(spec->text, ":");
	}
	if (n >= sz)
		n = sz - 1;
	memcpy(buf, spec->text, n);
	buf[n] = '\0';
}

/* Map an encode error on text that came from the user. */
static int user_err(int err)
{
	return err == -ENOENT || err == -EINVAL ? -TDR_E_USAGE : err;
}

static void set_pmu_name(struct tdr_plan_event *ev, const char *name)
{
	snprintf(ev->pmu_name, sizeof(ev->pmu_name), "%s", name);
}

int tdr_event_spec__resolve(const struct tdr_event_spec *spec, const struct tdr_plan_env *env,
			    struct tdr_plan_event *ev)
{
	const char *core_name = env->has_core ? env->core.name : "cpu";
	struct perf_event_attr *a = &ev->attr;
	char terms[TDR_SYSFS_MAX];
	struct tdr_pmu pmu;
	int err;

	base_name(spec, ev->name, sizeof(ev->name));
	a->config = a->config1 = a->config2 = 0;
	a->precise_ip = (unsigned)spec->precise & 3;
	switch (spec->kind) {
	case TDR_SPEC_NAMED:
		for (size_t i = 0; i < TDR_ARRAY_SIZE(generic_events); i++) {
			const struct generic_event *g = &generic_events[i];

			if (strcmp(g->name, spec->name))
				continue;
			a->type = g->type;
			a->config = g->config;
			if (g->type == PERF_TYPE_SOFTWARE) {
				set_pmu_name(ev, "software");
				return 0;
			}
			/* Hybrid: the extended type names the PMU in config bits
			 * 32-63 (PERF_PMU_CAP_EXTENDED_HW_TYPE; docs/kernel.md "Hybrid parts"). */
			if (env->hybrid)
				a->config |= (uint64_t)env->core.type << 32;
			set_pmu_name(ev, core_name);
			return 0;
		}
		/* Not generic: an alias of the core PMU, or a typo. Refuse typos
		 * instead of opening something else. */
		if (!env->has_core || !tdr_pmu__has_event(&env->core, spec->name)) {
			tdr_warn("unknown event '%s': not a generic event%s%s%s", spec->text,
				 env->has_core ? " and not in " : "",
				 env->has_core ? env->core.dir : "",
				 env->has_core ? "/events" : "");
			return -TDR_E_USAGE;
		}
		err = tdr_pmu__event_terms(&env->core, spec->name, terms, sizeof(terms));
		if (!err)
			err = tdr_pmu__encode(&env->core, terms, a);
		if (err)
			return err == -ENOMEM ? err : -TDR_E_CORRUPT; /* the kernel's own string */
		a->type = env->core.type;
		set_pmu_name(ev, core_name);
		return 0;
	case TDR_SPEC_RAW:
		/* perf uses PERF_TYPE_RAW; on hybrid parts the PMU must be named,
		 * and cpu_core's type (4) says it without the extended type. */
		a->type = env->has_core ? env->core.type : PERF_TYPE_RAW;
		a->config = spec->config;
		set_pmu_name(ev, core_name);
		return 0;
	case TDR_SPEC_PMU:
		err = tdr_pmu__open(env->sys, spec->name, &pmu);
		if (err == -ENOENT) {
			tdr_warn("invalid event '%s': no PMU named '%s' under "
				 "%s/bus/event_source/devices",
				 spec->text, spec->name, env->root);
			return -TDR_E_USAGE;
		}
		if (err)
			return err;
		err = tdr_pmu__encode(&pmu, spec->terms, a);
		if (err)
			return user_err(err);
		a->type = pmu.type;
		set_pmu_name(ev, pmu.name);
		return 0;
	}
	return usage(spec->text, "unknown kind");
}
