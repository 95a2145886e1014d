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

/* The Arm Neoverse families (families_arm.c). */
extern const struct tdr_td_family tdr_td_arm_n2, tdr_td_arm_v1, tdr_td_arm_v2, tdr_td_arm_n3,
    tdr_td_arm_v3;

#endif /* TDREC_TOPDOWN_INT_H */
