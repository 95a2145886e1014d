/*
 * topdown/topdown_int.h - the TopDown table's accessors that only the
 * module and its tests use.
 *
 * Responsibility: walking the category table by index (the tests check
 * every row); tdrec/topdown.h keeps the look-ups other modules make.
 */
#ifndef TDREC_TOPDOWN_INT_H
#define TDREC_TOPDOWN_INT_H

#include "tdrec/topdown.h"

/* ---------------------------------------------------------------------------
 * Used inside the module and by its tests only (no other module calls these).
 */
/* All categories, level 1 first. */
size_t tdr_topdown_category_cnt(void);
const struct tdr_td_category *tdr_topdown_category_at(size_t idx);

/* Row shorthands of the table's files (topdown.c, families_arm.c): an
 * event opened by terms through the core PMU's format/ files, or by a sysfs
 * alias of the same name; raw is the config the perf.data importer matches,
 * raw_ht the alternative (the HT-on alias; 0: none). */
#define TD_TERMS(n, t, raw, cat)                                                                   \
	{.name = (n), .source = TDR_TD_CORE_TERMS, .terms = (t), .config = (raw), .category = (cat)}
#define TD_ALIAS(n, raw, raw_ht, cat)                                                              \
	{.name = (n),                                                                              \
	 .source = TDR_TD_CORE_ALIAS,                                                              \
	 .alias = (n),                                                                             \
	 .config = (raw),                                                                          \
	 .category = (cat),                                                                        \
	 .config_alt = (raw_ht)}

/* The Arm Neoverse families (families_arm.c). */
extern const struct tdr_td_family tdr_td_arm_n2, tdr_td_arm_v1, tdr_td_arm_v2, tdr_td_arm_n3,
    tdr_td_arm_v3;

#endif /* TDREC_TOPDOWN_INT_H */
