/*
 * plan/plan_int.h - private interfaces of the plan code (sysfs.c, pmu.c,
 * event_spec.c, plan.c).
 *
 * Responsibility: the sysfs side of plans. sysfs.c reads what plans need
 * once into a struct tdr_sysfs snapshot (only the core PMUs and the -e
 * PMU in full, because a real machine has dozens of uncore PMUs with
 * hundreds of events we never need); pmu.c answers questions about one PMU
 * of the snapshot (struct tdr_pmu); plan.c and event_spec.c build from
 * them without touching the file system.
 * Nothing here is used outside plan/ and its tests.
 * See: docs/kernel.md "sysfs event and format files"; docs/plans.md.
 */
#ifndef TDREC_PLAN_INT_H
#define TDREC_PLAN_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/cpuid.h"
#include "tdrec/plan.h"

/* Longest sysfs file we read (an event string, a format, a CPU list). */
#define TDR_SYSFS_MAX 4096

/* One file of the snapshot: its bytes as read, or the error reading gave. */
struct tdr_sysfs_file {
	char *name;   /* the file name, for files of a directory (events/, format/) */
	bool present; /* the path exists */
	bool is_reg;  /* and is a regular file */
	int err;      /* -errno of open or read, 0 */
	size_t len;   /* bytes read, at most TDR_SYSFS_MAX */
	char *text;   /* those bytes, NUL-terminated */
};

/* One directory of <root>/bus/event_source/devices. */
struct tdr_sysfs_pmu {
	char name[64];
	bool is_dir; /* a directory (through its symlink) */
	bool loaded; /* the files below were read (the PMUs a plan may use) */
	struct tdr_sysfs_file type, cpus, caps_name;
	struct tdr_sysfs_file caps_slots; /* arm64: PMMIR_EL1.SLOTS (arm_pmuv3.c slots_show) */
	struct tdr_sysfs_file caps_branches; /* x86: LBR entries (arch/x86/events/core.c) */
	size_t event_cnt; /* events/, in readdir order */
	struct tdr_sysfs_file *events;
	size_t format_cnt; /* format/ */
	struct tdr_sysfs_file *formats;
};

/* What plans read of sysfs, read once (sysfs.c). */
struct tdr_sysfs {
	char *root;
	struct tdr_sysfs_file online; /* devices/system/cpu/online */
	size_t pmu_cnt;		      /* every PMU directory, in readdir order */
	struct tdr_sysfs_pmu *pmus;
	/* The machine beside sysfs (tdr_sysfs__read_machine). */
	struct tdr_cpuid cpu;	/* cpu.known false: no identity found */
	char cpu_from[64];	/* "TDREC_CPUID", "/proc/cpuinfo", ".../midr_el1" */
	int nmi_watchdog;	/* <proc>/sys/kernel/nmi_watchdog: 0, 1; -1 unknown */
};

/*
 * Read the snapshot of root: the PMU list, and the type, cpus,
 * caps/pmu_name, events/ and format/ files of "cpu", "cpu_*" and extra_pmu
 * (NULL: none; the PMU of an -e PMU/TERMS/ sampler), and the online CPU
 * list. File errors are kept in the snapshot for its readers to judge.
 * Returns: 0 with *out (caller owns, tdr_sysfs__free), -ENOMEM.
 */
int tdr_sysfs__read(const char *root, const char *extra_pmu, struct tdr_sysfs **out);
void tdr_sysfs__free(struct tdr_sysfs *s);
/*
 * Fill s's CPU identity and NMI watchdog state: cpuid (perf's CPUID
 * text) when non-NULL, else <proc_root>/cpuinfo, else the arm64 MIDR under
 * the sysfs root (devices/system/cpu/cpu0/regs/identification/midr_el1);
 * the watchdog from <proc_root>/sys/kernel/nmi_watchdog. proc_root NULL:
 * nothing is read there. Returns 0, or -TDR_E_USAGE for a cpuid that is
 * not a CPUID (logged, naming from, e.g. "TDREC_CPUID").
 */
int tdr_sysfs__read_machine(struct tdr_sysfs *s, const char *proc_root, const char *cpuid,
			    const char *from);
/* The PMU directory name of s, or NULL. */
const struct tdr_sysfs_pmu *tdr_sysfs__pmu(const struct tdr_sysfs *s, const char *name);
/* The file name among files, or NULL. */
const struct tdr_sysfs_file *tdr_sysfs_pmu__file(const struct tdr_sysfs_file *files, size_t cnt,
						 const char *name);
/*
 * f's text as reading the file into buf[sz] gave it: trailing white space
 * stripped. Returns the length, -ENOENT (f NULL or missing), the read's
 * -errno, or -EFBIG when it does not fit sz.
 */
int tdr_sysfs_file__text(const struct tdr_sysfs_file *f, char *buf, size_t sz);

/* One PMU of a snapshot. Plain data: nothing to free; valid while the
 * snapshot is. */
struct tdr_pmu {
	char name[64];
	char dir[PATH_MAX]; /* <root>/bus/event_source/devices/<name>, for messages */
	uint32_t type;	    /* from <dir>/type */
	const struct tdr_sysfs_pmu *sp;
};

/* The sysfs root: opt when non-NULL, else $TDREC_SYSFS when set and
 * non-empty, else "/sys". The result is opt, the environment string or a
 * literal: borrowed, never freed. */
const char *tdr_sysfs_root(const char *opt);

/*
 * Open PMU name of snapshot sys: check its directory and read its type.
 * Returns: 0, -ENOENT when there is no such PMU directory (or sys did not
 * read it), -TDR_E_CORRUPT (logged) when the directory exists but type is
 * missing, unreadable or not a number, -ENAMETOOLONG.
 */
int tdr_pmu__open(const struct tdr_sysfs *sys, const char *name, struct tdr_pmu *out);

/* True when <dir>/events/<event> exists. Names ending in ".scale",
 * ".unit", ".per-pkg" or ".snapshot" are attributes of an event, not
 * events, and give false. */
bool tdr_pmu__has_event(const struct tdr_pmu *pmu, const char *event);

/*
 * Read the terms of sysfs event alias event (e.g. "event=0x00,umask=0x4"),
 * without the trailing newline, into buf.
 * Returns: 0, -ENOENT (no such event), -TDR_E_CORRUPT (unreadable, empty or
 * too long), -ENAMETOOLONG.
 */
int tdr_pmu__event_terms(const struct tdr_pmu *pmu, const char *event, char *buf, size_t sz);

/*
 * Turn terms ("event=0x3c,umask=0x0,any=1", or an alias name, "ldlat=3")
 * into attr->config/config1/config2 through <dir>/format/<term>. A term
 * without a value means 1, unless it names an event alias of this PMU, which
 * is expanded (one level). "config", "config1" and "config2" without a
 * format file set the word directly. Bits outside any term stay 0; bits of
 * the words the terms do not touch are left as they are in attr.
 * Returns: 0; -ENOENT for a term with no format file (logged, naming it);
 * -EINVAL for a value that does not fit its format or malformed terms
 * (logged); -TDR_E_CORRUPT for an unreadable or malformed format file.
 */
int tdr_pmu__encode(const struct tdr_pmu *pmu, const char *terms, struct perf_event_attr *attr);

/*
 * Read the PMU's CPU list (<dir>/cpus, hybrid PMUs only).
 * Returns: 0 with *cpus (caller owns, free()) and *cnt, -ENOENT when there is
 * no cpus file, -TDR_E_CORRUPT, -ENOMEM.
 */
int tdr_pmu__cpus(const struct tdr_pmu *pmu, int **cpus, size_t *cnt);

/* Read caps/pmu_name into buf ("" when absent). Never fails. */
void tdr_pmu__caps_name(const struct tdr_pmu *pmu, char *buf, size_t sz);

/*
 * Parse a kernel CPU list ("0-3,8,10-11", optional trailing newline; "" is
 * an empty list) into a sorted array without duplicates.
 * Returns: 0 with *cpus (caller owns; NULL when empty) and *cnt,
 * -TDR_E_CORRUPT for bad syntax or CPU numbers above 65535, -ENOMEM.
 */
int tdr_cpulist__parse(const char *text, int **cpus, size_t *cnt);

/* Format a sorted CPU array as a CPU list ("0-3,8"), truncated to sz. */
void tdr_cpulist__format(const int *cpus, size_t cnt, char *buf, size_t sz);

/* The online CPUs of the snapshot (<root>/devices/system/cpu/online). Same
 * returns as tdr_cpulist__parse, plus -errno when the file could not be
 * read (logged). */
int tdr_sysfs__online_cpus(const struct tdr_sysfs *sys, int **cpus, size_t *cnt);

/*
 * What the sampler resolution needs to know about the machine: the core PMU
 * ("cpu_core" on hybrid parts, else "cpu"), when there is one.
 */
struct tdr_plan_env {
	const char *root;
	const struct tdr_sysfs *sys; /* everything read of root */
	bool has_core;
	bool hybrid; /* the core PMU is cpu_core */
	struct tdr_pmu core;
};

/*
 * Resolve spec against env into ev: name, pmu_name, attr.type, attr.config
 * (and config1/config2) and attr.precise_ip. Nothing else of ev->attr is
 * touched. Generic names (cycles, instructions, cpu-clock, ...) map to
 * PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE, with the core PMU's type in config
 * bits 32-63 on hybrid parts for hardware events; other names are looked up
 * in the core PMU's events/; rNNNN is a raw config on the core PMU type
 * (PERF_TYPE_RAW when there is no core PMU); pmu/terms/ goes through that
 * PMU's format/ files.
 * Returns: 0, -TDR_E_USAGE (unknown event or PMU, bad term; logged),
 * -TDR_E_CORRUPT (damaged sysfs; logged).
 */
int tdr_event_spec__resolve(const struct tdr_event_spec *spec, const struct tdr_plan_env *env,
			    struct tdr_plan_event *ev);

/* ---------------------------------------------------------------------------
 * Building one plan (plan.c, plan_generic.c).
 */
struct tdr_plan_builder {
	const struct tdr_plan_opts *opts;
	struct tdr_plan_env env;
	bool core_probed;
	int core_err;
	int *online; /* sorted */
	size_t online_cnt;
	char why[256]; /* why the plan does not fit, for -TDR_E_NOPLAN */
	struct tdr_plan *plan;
	/* The first group of the plan this builder fills (1 for a hybrid
	 * part's E-core group) and the W it resolved (plan->width for group 0). */
	size_t group_base;
	uint32_t width;
};

/* The call-stack fields of every member of a built sampling plan
 * (call_graph.c). Returns 0, or -TDR_E_USAGE (logged in one line) for
 * lbr where the sampler's PMU has no LBR call stack, or dwarf on an
 * architecture tdrec cannot unwind. */
int tdr_plan_call_graph(struct tdr_plan_builder *b);

/* Append a note to plan (dropped past TDR_PLAN_MAX_NOTES). */
void tdr_plan_note(struct tdr_plan *plan, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* A new member of g with the attr rules every plan shares (flags:
 * TDR_EVENT_LEADER / TDR_EVENT_SAMPLER); NULL when g is full. */
struct tdr_plan_event *tdr_plan_add_event(struct tdr_plan_builder *b, struct tdr_plan_group *g,
					  uint32_t flags);
/* Add event name, sysfs alias of b->env.core, encoded through its format/
 * files. Returns 0, -TDR_E_LIMIT, -TDR_E_CORRUPT (logged), -ENOMEM. */
int tdr_plan_add_sysfs_event(struct tdr_plan_builder *b, struct tdr_plan_group *g,
			     const char *name, const char *alias, uint32_t flags);
/* g's CPUs: b->env.core's cpus file (hybrid), else all online CPUs.
 * -TDR_E_NOPLAN when none is online. */
int tdr_plan_group_cpus(struct tdr_plan_builder *b, struct tdr_plan_group *g);
/* Refuse a sampler of another hybrid core PMU than b->env.core, and a
 * sampler that is one of the group's counting-only members (logged,
 * -TDR_E_USAGE). */
int tdr_plan_check_sampler(struct tdr_plan_builder *b, const struct tdr_plan_group *g,
			   const struct tdr_plan_event *sampler, bool members_cannot_sample);

/* A generic-counter family (tdrec/topdown.h: its leader is
 * PERF_TYPE_HARDWARE cycles): identity, PMU, events, W, counter budget
 * (plan_generic.c). Same returns as tdr_plan__build. */
int tdr_plan_build_generic(struct tdr_plan_builder *b, const struct tdr_td_family *f);

/* On a hybrid part whose perf-metrics group b built on cpu_core (group 0):
 * the CPU's E-core family (gracemont, crestmont, skymont) on cpu_atom as
 * group 1, and PMU-qualified names where both groups have an event of
 * the same name ("cpu_atom/cycles/"). Without an E-core family for the
 * CPU (no identity, or another model) the plan stays as it is; an E-core
 * group that does not fit is left out with a note (plan_hybrid.c).
 * Returns 0, -TDR_E_USAGE, -TDR_E_CORRUPT, -ENOMEM. */
int tdr_plan_add_e_core_group(struct tdr_plan_builder *b);
/* On hybrid parts: a note naming the online CPUs no group of b's plan
 * covers, and their core PMUs (plan_hybrid.c). Returns 0 or -ENOMEM. */
int tdr_plan_note_unmeasured(struct tdr_plan_builder *b);

#endif /* TDREC_PLAN_INT_H */
