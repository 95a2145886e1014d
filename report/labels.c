/*
 * report/labels.c - the text table's column labels of events, distinct.
 *
 * Responsibility: one label of at most REPORT_EV_LABEL_W columns per event
 * of a report, no two alike, so the columns of an events-only table (and
 * its legend "label = full name") can be told apart. perf's long names
 * share their starts (de_no_dispatch_per_slot.no_ops_from_frontend,
 * .backend_stalls and .smt_contention; stalled-cycles-frontend and
 * -backend): a plain cut gave them one label. The rules, in order:
 *   1. the software events' short labels ("cpu-ms", "faults");
 *   2. the name without a PMU wrapper ("cpu_core/X/" -> X) or a term list
 *      ("page-faults/period=1/" -> page-faults), and a short modifier kept
 *      at the end ("instructions:u" -> "instru:u");
 *   3. a name that fits is itself; else a dotted name keeps the part after
 *      its last '.' ("backend_stalls"), or, when that part is short, the
 *      word before the dot too ("disp.all"); cut to the width without
 *      trailing separators;
 *   4. labels still alike lose the start their names share ("frontend",
 *      "backend" for stalled-cycles-*), and if that does not separate them,
 *      end in '~' and the event's position ("instru~3").
 * Objects and lifecycle: labels are allocated into the report
 * (tdr_report.event_labels) and freed with it.
 * See: docs/report.md "Columns".
 */
#include "report_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

#define W REPORT_EV_LABEL_W

static bool is_sep(char c)
{
	return c == '_' || c == '-' || c == '.';
}

/* Copy at most n bytes of s to buf without trailing separators. */
static void cut_to(char *buf, size_t sz, const char *s, size_t n)
{
	size_t len = strlen(s);

	if (len > n)
		len = n;
	while (len > 1 && is_sep(s[len - 1]))
		len--;
	snprintf(buf, sz, "%.*s", (int)len, s);
}

/* The event name without wrapper or modifiers into base; a short modifier
 * (":u", ":ppp") into mod, "" when none or too long to keep. */
static void split_name(const char *name, char *base, size_t bsz, char *mod, size_t msz)
{
	size_t len = strcspn(name, ":");
	const char *slash = memchr(name, '/', len);

	mod[0] = '\0';
	if (name[len] == ':' && strlen(name + len + 1) <= 3 && name[len + 1])
		snprintf(mod, msz, ":%s", name + len + 1);
	if (slash && slash > name) {
		const char *inner = slash + 1, *end = memchr(inner, '/', len - (size_t)(inner - name));
		size_t in_len = end ? (size_t)(end - inner) : len - (size_t)(inner - name);

		/* "pmu/event/" names an event; "event/term=v/" configures one. */
		if (in_len && !memchr(inner, '=', in_len)) {
			snprintf(base, bsz, "%.*s", (int)in_len, inner);
			return;
		}
		len = (size_t)(slash - name);
	}
	snprintf(base, bsz, "%.*s", (int)len, name);
}

/* Rule 3 on base with mod appended. */
static void shorten(const char *base, const char *mod, char *out, size_t sz)
{
	size_t room = W - strlen(mod);
	const char *dot = strrchr(base, '.');
	char tmp[256];

	if (strlen(base) <= room) {
		snprintf(out, sz, "%s%s", base, mod);
		return;
	}
	if (dot && strlen(dot + 1) >= 4) {
		base = dot + 1;
	} else if (dot && dot[1]) {
		const char *word = dot;

		while (word > base && !is_sep(word[-1]))
			word--;
		snprintf(tmp, sizeof(tmp), "%.*s%s", (int)(dot - word), word, dot);
		base = tmp;
	}
	cut_to(out, sz, base, room);
	snprintf(out + strlen(out), sz - strlen(out), "%s", mod);
}

/* labels hold W + 1 bytes; l is never longer (shorten, cut_to). */
static void set_label(char *dst, const char *l)
{
	size_t n = strlen(l);

	n = n > W ? W : n;
	memcpy(dst, l, n);
	dst[n] = '\0';
}

static bool taken(char *const *labels, size_t cnt, size_t skip, const char *l)
{
	for (size_t i = 0; i < cnt; i++)
		if (i != skip && labels[i] && !strcmp(labels[i], l))
			return true;
	return false;
}

/* Rule 4 for the events whose label equals labels[first]'s. */
static void separate(char *const *names, size_t cnt, char **labels, size_t first)
{
	char base[256], mod[8], lcp_base[256], l[W + 8];
	size_t grp[64] = {first}, n = 0, lcp = SIZE_MAX;
	bool ok = true;

	for (size_t i = first; i < cnt && n < 64; i++)
		if (!strcmp(labels[i], labels[first]))
			grp[n++] = i;
	split_name(names[grp[0]], lcp_base, sizeof(lcp_base), mod, sizeof(mod));
	for (size_t k = 1; k < n; k++) {
		size_t p = 0;

		split_name(names[grp[k]], base, sizeof(base), mod, sizeof(mod));
		while (base[p] && base[p] == lcp_base[p])
			p++;
		if (p < lcp)
			lcp = p;
	}
	/* Cut the shared start after its last separator, so words stay whole. */
	while (lcp && lcp != SIZE_MAX && !is_sep(lcp_base[lcp - 1]))
		lcp--;
	for (size_t k = 0; k < n && ok; k++) {
		split_name(names[grp[k]], base, sizeof(base), mod, sizeof(mod));
		if (lcp == SIZE_MAX || !lcp || !base[lcp])
			ok = false;
		else {
			shorten(base + lcp, mod, l, sizeof(l));
			for (size_t m = 0; m < k && ok; m++)
				ok = strcmp(labels[grp[m]], l) != 0;
			ok = ok && !taken(labels, cnt, grp[k], l);
			if (ok)
				set_label(labels[grp[k]], l);
		}
	}
	if (ok)
		return;
	/* Numbered: the event's position (1-based) tells them apart. */
	for (size_t k = 0; k < n; k++) {
		char num[24];

		split_name(names[grp[k]], base, sizeof(base), mod, sizeof(mod));
		snprintf(num, sizeof(num), "~%zu", grp[k] + 1);
		cut_to(l, sizeof(l), base, W - strlen(num));
		snprintf(l + strlen(l), sizeof(l) - strlen(l), "%s", num);
		set_label(labels[grp[k]], l);
	}
}

int tdr_report_event_labels(char *const *names, size_t cnt, char **labels)
{
	for (size_t i = 0; i < cnt; i++) {
		const char *s = tdr_report_event_short(names[i]);
		char base[256], mod[8];

		labels[i] = tdr_calloc(1, W + 1);
		if (!labels[i])
			return -ENOMEM;
		if (s) {
			snprintf(labels[i], W + 1, "%s", s);
			continue;
		}
		split_name(names[i], base, sizeof(base), mod, sizeof(mod));
		shorten(base, mod, labels[i], W + 1);
	}
	/* Each pass settles one group; the numbered form always separates. */
	for (size_t pass = 0; pass < cnt; pass++) {
		size_t dup = SIZE_MAX;

		for (size_t i = 0; i < cnt && dup == SIZE_MAX; i++)
			if (taken(labels, i, SIZE_MAX, labels[i]))
				dup = i;
		if (dup == SIZE_MAX)
			break;
		for (size_t i = 0; i < dup; i++)
			if (!strcmp(labels[i], labels[dup])) {
				dup = i;
				break;
			}
		separate(names, cnt, labels, dup);
	}
	return 0;
}
