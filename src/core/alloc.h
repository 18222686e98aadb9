// SPDX-License-Identifier: MIT
// The allocator indirection: every allocation of the library goes through here.
#ifndef IMPACT_CORE_ALLOC_H
#define IMPACT_CORE_ALLOC_H

#include <stdbool.h>
#include <stdlib.h>

#include "impact/base.h"

/// True when all three functions are set or none is.
static inline bool imp_allocator_is_valid(const imp_allocator *a)
{
	if (a == NULL)
		return true;
	bool any = a->alloc || a->realloc || a->free;
	bool all = a->alloc && a->realloc && a->free;
	return !any || all;
}

static inline void *imp_alloc(const imp_allocator *a, size_t size)
{
	if (a != NULL && a->alloc != NULL)
		return a->alloc(size, a->user);
	return malloc(size);
}

static inline void imp_free(const imp_allocator *a, void *ptr, size_t size)
{
	if (ptr == NULL)
		return;
	if (a != NULL && a->free != NULL)
		a->free(ptr, size, a->user);
	else
		free(ptr);
}

#endif
