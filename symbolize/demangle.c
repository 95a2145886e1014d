/*
 * symbolize/demangle.c - C++ names for display, without a build dependency.
 *
 * Responsibility: turn Itanium-ABI mangled names ("_Z...") into readable ones
 * with __cxa_demangle, looked up at run time by dlopen("libstdc++.so.6"). When
 * the library is missing (a pure C system) or a name does not demangle, the
 * mangled name is used as it is. libdw has no demangler of its own.
 * Objects and lifecycle: the library handle and a cache (mangled pointer ->
 * demangled copy in the arena) live in the symbolizer; every name is
 * demangled once however many addresses it covers.
 * Ownership and threads: the mangled strings are borrowed from libelf/libdw
 * and live as long as the symbolizer, so their address is a valid cache key.
 */
#include "symbolize_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

static void demangler_load(struct tdr_symbolizer *s)
{
	s->cxx_tried = true;
	s->cxx_lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!s->cxx_lib) {
		tdr_debug("no C++ demangler (libstdc++.so.6: %s); showing mangled names",
			  dlerror());
		return;
	}
	*(void **)&s->cxa_demangle = dlsym(s->cxx_lib, "__cxa_demangle");
	if (!s->cxa_demangle) {
		dlclose(s->cxx_lib);
		s->cxx_lib = NULL;
	}
}

static uint64_t dm_hash(const void *ctx, uint32_t idx)
{
	return tdr_hash_u64((uintptr_t)((const struct sym_demangle_ent *)ctx)[idx].mangled);
}

static bool dm_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct sym_demangle_ent *)ctx)[idx].mangled == key;
}

const char *tdr_symbolize_demangle(struct tdr_symbolizer *s, const char *name)
{
	uint64_t h = tdr_hash_u64((uintptr_t)name);
	const char *out = name;
	uint32_t i;
	size_t j;
	char *d;
	int st = -1;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	if (!s->cxx_tried)
		demangler_load(s);
	if (!s->cxa_demangle)
		return name;

	i = tdr_hmap__find(&s->dm_index, h, dm_eq, s->dm, name, NULL);
	if (i != TDR_HMAP_NONE)
		return s->dm[i].out;
	if (tdr_hmap__reserve(&s->dm_index, 256, dm_hash, s->dm) ||
	    tdr_ensure_cap(&s->dm, &s->dm_cap, sizeof(*s->dm), s->dm_index.cnt + 1))
		return NULL;

	/* __cxa_demangle allocates with malloc; copy into the arena. */
	d = s->cxa_demangle(name, NULL, NULL, &st);
	if (d && st == 0) {
		out = tdr_arena__strdup(&s->arena, d);
		free(d);
		if (!out)
			return NULL;
	} else {
		free(d);
		if (st == -1) /* the demangler itself ran out of memory */
			return NULL;
	}
	(void)tdr_hmap__find(&s->dm_index, h, dm_eq, s->dm, name, &j);
	s->dm[s->dm_index.cnt] = (struct sym_demangle_ent){.mangled = name, .out = out};
	tdr_hmap__add(&s->dm_index, j);
	return out;
}

void tdr_symbolize_demangle__free(struct tdr_symbolizer *s)
{
	zfree(&s->dm);
	s->dm_cap = 0;
	tdr_hmap__fini(&s->dm_index);
	if (s->cxx_lib)
		dlclose(s->cxx_lib);
	s->cxx_lib = NULL;
	s->cxa_demangle = NULL;
}
