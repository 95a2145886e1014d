/*
 * tests/common/test_hmap.c - the hash functions, the hash map and the u64 map.
 *
 * FNV-1a against the reference vectors (kcache keys on disk depend on it),
 * the map under total collisions and growth, and every allocation failure
 * of a fill, which must leave the map usable and leak nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_mem.h"

static void test_hash__fnv1a_reference_vectors(void **state)
{
	(void)state;
	/* From the FNV reference test suite (64-bit FNV-1a). */
	assert_true(tdr_hash_bytes("", 0) == 0xcbf29ce484222325ull);
	assert_true(tdr_hash_bytes("a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(tdr_hash_bytes("foobar", 6) == 0x85944171f73967e8ull);
	assert_true(tdr_hash_str("foobar") == 0x85944171f73967e8ull);
	/* In parts, the same as at once (kcache hashes a file in pieces). */
	assert_true(tdr_fnv1a(tdr_fnv1a(TDR_FNV1A_INIT, "foo", 3), "bar", 3) ==
		    0x85944171f73967e8ull);
	assert_true(tdr_hash_u64(0) == 0);
	assert_true(tdr_hash_u64(1) != tdr_hash_u64(2));
}

/* A table of u64 keys with a chosen hash function. */
struct tab {
	uint64_t *keys;
	size_t cap;
	uint64_t (*hash)(uint64_t);
	struct tdr_hmap m;
};

static uint64_t hash_const(uint64_t k)
{
	(void)k;
	return 7; /* every key collides */
}

static uint64_t hash_id(uint64_t k)
{
	return k;
}

static uint64_t tab_hash(const void *ctx, uint32_t idx)
{
	const struct tab *t = ctx;

	return t->hash(t->keys[idx]);
}

static bool tab_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct tab *)ctx)->keys[idx] == *(const uint64_t *)key;
}

/* Find or add k. Returns its index, or -ENOMEM. */
static long tab_add(struct tab *t, uint64_t k)
{
	uint32_t i;
	size_t pos;
	int err;

	err = tdr_hmap__reserve(&t->m, 4, tab_hash, t);
	if (!err)
		err = tdr_ensure_cap(&t->keys, &t->cap, sizeof(*t->keys), t->m.cnt + 1);
	if (err)
		return err;
	i = tdr_hmap__find(&t->m, t->hash(k), tab_eq, t, &k, &pos);
	if (i != TDR_HMAP_NONE)
		return i;
	t->keys[t->m.cnt] = k;
	return tdr_hmap__add(&t->m, pos);
}

static long tab_get(const struct tab *t, uint64_t k)
{
	uint32_t i = tdr_hmap__find(&t->m, t->hash(k), tab_eq, t, &k, NULL);

	return i == TDR_HMAP_NONE ? -1 : (long)i;
}

static void tab_free(struct tab *t)
{
	tdr_hmap__fini(&t->m);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

static void check_fill(uint64_t (*hash)(uint64_t), size_t n)
{
	struct tab t = {.hash = hash};

	assert_int_equal(tab_get(&t, 1), -1); /* an empty map: no slots yet */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tab_add(&t, i * 3 + 1), (long)i);
	/* Adding again finds the same entries. */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tab_add(&t, i * 3 + 1), (long)i);
	assert_int_equal(t.m.cnt, n);
	/* Load at most one half, capacity a power of two. */
	assert_true(t.m.cap >= 2 * n);
	assert_int_equal(t.m.cap & (t.m.cap - 1), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(tab_get(&t, i * 3 + 1), (long)i);
		assert_int_equal(tab_get(&t, i * 3 + 2), -1);
	}
	tab_free(&t);
}

static void test_hmap__every_key_colliding_still_found(void **state)
{
	(void)state;
	check_fill(hash_const, 300);
}

static void test_hmap__growth_keeps_every_entry(void **state)
{
	(void)state;
	check_fill(hash_id, 20000);
	check_fill(tdr_hash_u64, 20000);
}

static void test_hmap__allocation_failure_leaves_map_usable(void **state)
{
	(void)state;
	for (long n = 0;; n++) {
		struct tab t = {.hash = tdr_hash_u64};
		long added = 0, r = 0;

		tdr_mem_fail_after(n);
		for (uint64_t k = 0; k < 100; k++) {
			r = tab_add(&t, k);
			if (r < 0)
				break;
			added++;
		}
		tdr_mem_fail_after(-1);
		/* What was added before the failure is all there. */
		for (uint64_t k = 0; k < (uint64_t)added; k++)
			assert_int_equal(tab_get(&t, k), (long)k);
		assert_int_equal(t.m.cnt, (size_t)added);
		if (r >= 0) {
			assert_int_equal(added, 100);
			tab_free(&t);
			break;
		}
		assert_int_equal(r, -ENOMEM);
		/* ... and the map goes on once memory is back. */
		assert_int_equal(tab_add(&t, 1000), added);
		tab_free(&t);
	}
}

static void test_u64map__put_get_replace(void **state)
{
	struct tdr_u64map m = {0};

	(void)state;
	assert_int_equal(tdr_u64map__get(&m, 0), TDR_HMAP_NONE);
	assert_int_equal(tdr_u64map__put(&m, UINT64_MAX, 1), 0);
	assert_int_equal(tdr_u64map__put(&m, 0, 2), 0);
	for (uint64_t k = 1; k < 5000; k++)
		assert_int_equal(tdr_u64map__put(&m, k << 20, (uint32_t)k + 10), 0);
	assert_int_equal(tdr_u64map__get(&m, UINT64_MAX), 1);
	assert_int_equal(tdr_u64map__get(&m, 0), 2);
	assert_int_equal(tdr_u64map__put(&m, 0, 3), 0); /* replace */
	assert_int_equal(tdr_u64map__get(&m, 0), 3);
	assert_int_equal(tdr_u64map__cnt(&m), 5001);
	for (uint64_t k = 1; k < 5000; k++) {
		assert_int_equal(tdr_u64map__get(&m, k << 20), k + 10);
		assert_int_equal(tdr_u64map__get(&m, (k << 20) + 1), TDR_HMAP_NONE);
	}
	/* Insertion order is kept. */
	assert_true(m.ents[0].key == UINT64_MAX);
	assert_true(m.ents[1].key == 0);
	tdr_u64map__fini(&m);
	assert_int_equal(tdr_u64map__get(&m, 0), TDR_HMAP_NONE);
}

static void test_u64map__allocation_failure(void **state)
{
	(void)state;
	for (long n = 0;; n++) {
		struct tdr_u64map m = {0};
		int err = 0;
		uint64_t k;

		tdr_mem_fail_after(n);
		for (k = 0; k < 200 && !err; k++)
			err = tdr_u64map__put(&m, k, (uint32_t)k);
		tdr_mem_fail_after(-1);
		/* Every key put before the failure is kept (the failed one is not). */
		assert_int_equal(tdr_u64map__cnt(&m), err ? k - 1 : k);
		for (uint64_t j = 0; j < tdr_u64map__cnt(&m); j++)
			assert_int_equal(tdr_u64map__get(&m, j), j);
		tdr_u64map__fini(&m);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash__fnv1a_reference_vectors),
	    cmocka_unit_test(test_hmap__every_key_colliding_still_found),
	    cmocka_unit_test(test_hmap__growth_keeps_every_entry),
	    cmocka_unit_test(test_hmap__allocation_failure_leaves_map_usable),
	    cmocka_unit_test(test_u64map__put_get_replace),
	    cmocka_unit_test(test_u64map__allocation_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
