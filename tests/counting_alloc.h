// SPDX-License-Identifier: MIT
/// @file counting_alloc.h
/// A counting allocator for the error tests: a size header on every block
/// (to check the sizes the library frees with), live-block counts, and a
/// failure on the k-th call (or the k-th realloc call).
#ifndef IMPACT_TESTS_COUNTING_ALLOC_H
#define IMPACT_TESTS_COUNTING_ALLOC_H

#include <stdbool.h>

#include <impact/base.h>

typedef struct counting {
	long allocs, frees, reallocs, live;
	long fail_at; ///< the call number that fails (-1: none)
	long calls;
	bool size_mismatch; ///< a free or realloc gave another size than the block has
	bool only_realloc;  ///< count (and fail) only realloc calls, not alloc calls
} counting;

/// The allocator over `c` (which must outlive it).
imp_allocator counting_allocator(counting *c);

#endif
