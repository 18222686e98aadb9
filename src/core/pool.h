// SPDX-License-Identifier: MIT
// A pool of POSIX threads that runs one task at a time over ranges of its
// items (imp_task_fn), the calling thread taking part as worker 0: the
// world's own scheduler when the user gives none (imp_world_def's
// worker_count).
#ifndef IMPACT_CORE_POOL_H
#define IMPACT_CORE_POOL_H

#include "impact/base.h"
#include "impact/world.h"

typedef struct imp_pool imp_pool;

/// Starts `threads` threads (>= 1), workers 1 .. threads, asleep until a
/// task comes. IMP_ERR_OUT_OF_MEMORY when memory or a thread could not be
/// had (nothing left running then).
imp_status imp_pool_create(const imp_allocator *a, int threads, imp_pool **out);

/// Wakes the threads to end, joins them and frees the pool. NULL is ignored.
void imp_pool_destroy(imp_pool *p);

/// Runs task over items 0 .. count - 1 in ranges of at least min_range
/// (cut finer when there are many items, so that a slow range does not hold
/// the others up), on the calling thread as worker 0 and on the pool's
/// threads, and returns once every range has run. One caller at a time.
void imp_pool_run(imp_pool *p, imp_task_fn *task, int count, int min_range, void *context);

#endif
