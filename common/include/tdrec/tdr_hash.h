/*
 * common/include/tdrec/tdr_hash.h - the hash functions of tdrec.
 *
 * Responsibility: one byte-string hash (64-bit FNV-1a) and one integer mixer
 * (the splitmix64 finaliser, and a combining step built on it), so that
 * every table of the project hashes the same way.
 * Invariants: tdr_fnv1a() is the exact FNV-1a of the FNV reference
 * (offset basis 0xcbf29ce484222325, prime 0x100000001b3). Values computed
 * with it are persisted (symbolize/kcache.c names its cache files by one),
 * so it must never change.
 * See: http://www.isthe.com/chongo/tech/comp/fnv/ (FNV-1a);
 * Steele, Lea, Flood, "Fast splittable pseudorandom number generators"
 * (OOPSLA 2014) for splitmix64.
 */
#ifndef TDREC_TDR_HASH_H
#define TDREC_TDR_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64 offset basis: the state before the first byte. */
#define TDR_FNV1A_INIT 0xcbf29ce484222325ull

/* Continue an FNV-1a hash h over n bytes at p. A hash of a message in parts
 * is the hash of the parts' concatenation; start from TDR_FNV1A_INIT. */
static inline uint64_t tdr_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* FNV-1a of n bytes at p. */
static inline uint64_t tdr_hash_bytes(const void *p, size_t n)
{
	return tdr_fnv1a(TDR_FNV1A_INIT, p, n);
}

/* FNV-1a of a NUL-terminated string (the NUL not included), in one pass. */
static inline uint64_t tdr_hash_str(const char *s)
{
	uint64_t h = TDR_FNV1A_INIT;

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	return h;
}

/* The splitmix64 finaliser: every input bit reaches every output bit, so
 * pointers, offsets and small integers spread over a power-of-two table. */
static inline uint64_t tdr_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Fold v into the running hash h (for keys of several fields). */
static inline uint64_t tdr_hash_combine(uint64_t h, uint64_t v)
{
	return tdr_hash_u64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}

#endif /* TDREC_TDR_HASH_H */
