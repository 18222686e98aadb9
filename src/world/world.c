// SPDX-License-Identifier: MIT
// The world: its record and lifetime (imp_world_create, imp_world_destroy),
// the definitions' defaults, and the narrow phase that the update, the step
// and the queries share (imp_world_closest). The world's code by concern:
//   body.c    bodies in slots named by generational ids: adding and removing,
//             poses, boxes (the tight box and the enlarged box the broad phase
//             holds), types, filters, user data;
//   pairs.c   the persistent pair table (open addressing) with a simplex cache
//             per candidate pair, each body's list of its pairs, the touching
//             pairs in key order and their walks, the begin/end events, the
//             state hash;
//   update.c  imp_world_update's passes over the bodies that moved;
//   motion.c  velocities and target poses, and a body's pose along its motion;
//   step.c    the time-of-impact step: the queue, the looks at pairs, the
//             user's callback;
//   query.c   the planner queries, which read the others and are called by
//             none of them.
// world_internal.h holds the records and what the files share.
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "broad/broad.h"
#include "world/heap.h"
#include "world/world_internal.h"
#include "core/alloc.h"
#include "core/inline.h"
#include "core/pool.h"
#include "core/sort.h"
#include "impact/collision.h"
#include "impact/world.h"
#include "narrow/composite_query.h"
#include "shape/composite.h"
#include "shape/shape_internal.h"
#include "shape/shape3_internal.h"

static atomic_uint world_serial = 1;

imp_world_def imp_default_world_def(void)
{
	imp_world_def d;
	memset(&d, 0, sizeof d);
	d.dim = 3;
	d.broad_phase = IMP_BROAD_HASH;
	d.hash_alpha = 0.5;
	d.hash_beta = 1.0;
	d.fat_ratio = 0.1;
	d.margin = 0.0;
	d.narrow_phase = true;
	d.worker_count = 1;
	return d;
}

imp_filter imp_default_filter(void)
{
	imp_filter f = {1u, ~(uint64_t)0, 0};
	return f;
}

bool imp_filter_should_pair(imp_filter a, imp_filter b)
{
	if (a.group == b.group && a.group != 0)
		return a.group > 0;
	return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

imp_body_def imp_default_body_def(void)
{
	imp_body_def d;
	memset(&d, 0, sizeof d);
	d.type = IMP_BODY_DYNAMIC;
	d.pose2.q.c = 1.0;
	d.pose3.q.w = 1.0;
	d.filter = imp_default_filter();
	return d;
}

/* ---- the world ---- */

static bool finite_nonneg(double x)
{
	return isfinite(x) && x >= 0.0;
}

static imp_status check_def(const imp_world_def *d)
{
	if (d->dim != 2 && d->dim != 3)
		return IMP_ERR_BAD_OPTIONS;
	if (d->broad_phase != IMP_BROAD_HASH && d->broad_phase != IMP_BROAD_SWEEP &&
	    d->broad_phase != IMP_BROAD_NAIVE)
		return IMP_ERR_BAD_OPTIONS;
	if (!(d->hash_alpha > 0.0 && d->hash_alpha < 1.0) || !(d->hash_beta >= 1.0 && d->hash_beta <= 1e6))
		return IMP_ERR_BAD_OPTIONS;
	if (!(finite_nonneg(d->fat_ratio) && d->fat_ratio <= 1e6))
		return IMP_ERR_BAD_OPTIONS;
	if (d->body_capacity < 0 || d->pair_capacity < 0 || d->body_capacity > (1 << 30) ||
	    d->pair_capacity > (1 << 30))
		return IMP_ERR_BAD_OPTIONS;
	if (!finite_nonneg(d->margin) || d->margin > IMP_MAX_COORDINATE)
		return IMP_ERR_BAD_RADIUS;
	if (!imp_allocator_is_valid(&d->allocator))
		return IMP_ERR_NULL_ARGUMENT;
	if (d->worker_count < 0 || d->worker_count > IMP_MAX_WORKERS || (d->enqueue_task == NULL) != (d->finish_task == NULL))
		return IMP_ERR_BAD_OPTIONS;
	return IMP_OK;
}

static void free_arrays(imp_world *w)
{
	const imp_allocator *a = &w->alloc;
	imp_free(a, w->bodies, (size_t)w->body_cap * sizeof *w->bodies);
	imp_free(a, w->moved, (size_t)w->moved_cap * sizeof *w->moved);
	imp_free(a, w->batch, (size_t)w->batch_cap * sizeof *w->batch);
	imp_free(a, w->begin.items, (size_t)w->begin.cap * sizeof *w->begin.items);
	imp_free(a, w->end.items, (size_t)w->end.cap * sizeof *w->end.items);
	imp_free(a, w->pending_end.items, (size_t)w->pending_end.cap * sizeof *w->pending_end.items);
	imp_free(a, w->touch, (size_t)w->touch_cap * sizeof *w->touch);
	imp_free(a, w->touch_new, (size_t)w->touch_new_cap * sizeof *w->touch_new);
	imp_free(a, w->touch_extra, (size_t)w->touch_extra_cap * sizeof *w->touch_extra);
	imp_free(a, w->motions, (size_t)w->motion_cap * sizeof *w->motions);
	imp_free(a, w->smotions, (size_t)w->smotion_cap * sizeof *w->smotions);
	imp_free(a, w->odo, (size_t)w->odo_cap * sizeof *w->odo);
	imp_free(a, w->movers, (size_t)w->mover_cap * sizeof *w->movers);
	imp_free(a, w->step_bodies, (size_t)w->step_body_cap * sizeof *w->step_bodies);
	imp_free(a, w->changed, (size_t)w->changed_cap * sizeof *w->changed);
	imp_free(a, w->queued, (size_t)w->queued_cap * sizeof *w->queued);
	imp_free(a, w->deferred, (size_t)w->deferred_cap * sizeof *w->deferred);
	imp_free(a, w->capped, (size_t)w->capped_cap * sizeof *w->capped);
	imp_free(a, w->contacts, (size_t)w->contact_cap * sizeof *w->contacts);
	imp_free(a, w->table, (size_t)w->table_cap * sizeof *w->table);
	imp_free(a, w->visits, (size_t)w->visit_cap * sizeof *w->visits);
	imp_free(a, w->block_array, (size_t)w->block_array_cap * sizeof *w->block_array);
	imp_free(a, w->block_changes, (size_t)w->block_changes_cap * sizeof *w->block_changes);
	imp_heap_clear(&w->queue);
	for (pair_block *b = w->blocks; b != NULL;) {
		pair_block *n = b->next;
		imp_free(a, b->steps, PAIR_BLOCK * sizeof *b->steps);
		imp_free(a, b, sizeof *b);
		b = n;
	}
}

imp_status imp_world_create(const imp_world_def *def, imp_world **out)
{
	if (def == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_def(def);
	if (st != IMP_OK)
		return st;
	imp_world *w = imp_alloc(&def->allocator, sizeof *w);
	if (w == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(w, 0, sizeof *w);
	w->def = *def;
	w->alloc = def->allocator;
	w->dim = def->dim;
	w->free_head = -1;
	w->workers = def->worker_count > 0 ? def->worker_count : 1;
	atomic_init(&w->tasks_taken, false);
	imp_heap_init(&w->queue, &w->alloc);
	w->serial = atomic_fetch_add(&world_serial, 1u);
	if (w->serial == 0)
		w->serial = atomic_fetch_add(&world_serial, 1u);
	bool ok = imp_grow(&w->alloc, (void **)&w->bodies, &w->body_cap, def->body_capacity, sizeof *w->bodies) &&
		imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, def->body_capacity, sizeof *w->moved) &&
		imp_grow(&w->alloc, (void **)&w->motions, &w->motion_cap, def->body_capacity, sizeof *w->motions) &&
		imp_grow(&w->alloc, (void **)&w->odo, &w->odo_cap, def->body_capacity, sizeof *w->odo);
	for (int32_t i = 0; ok && i < def->pair_capacity; i += PAIR_BLOCK)
		ok = imp_world_pair_block_add(w);
	if (ok && def->pair_capacity > 0)
		ok = imp_world_pair_table_reserve(w, def->pair_capacity);
	imp_broad_def bd = {def->broad_phase, def->dim, def->hash_alpha, def->hash_beta, &w->alloc, imp_world_on_broad_pair, w};
	if (ok)
		ok = imp_broad_create(&bd, &w->broad) == IMP_OK;
	if (ok) {
		// The point the ray casts move: made here, so that casts on
		// several threads at once find it made.
		imp_vec2 o2 = {0.0, 0.0};
		imp_vec3 o3 = {0.0, 0.0, 0.0};
		ok = (def->dim == 2 ? imp_shape_polygon_ex(&o2, 1, 0.0, &w->alloc, &w->ray_point)
				    : imp_shape_polytope_ex(&o3, 1, 0.0, &w->alloc, &w->ray_point)) == IMP_OK;
	}
	if (ok && w->workers > 1 && def->enqueue_task == NULL)
		ok = imp_pool_create(&w->alloc, w->workers - 1, &w->pool) == IMP_OK;
	if (!ok) {
		imp_shape_destroy(w->ray_point);
		imp_broad_destroy(w->broad);
		free_arrays(w);
		imp_free(&def->allocator, w, sizeof *w);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	*out = w;
	return IMP_OK;
}

void imp_world_destroy(imp_world *w)
{
	if (w == NULL)
		return;
	imp_pool_destroy(w->pool);
	imp_broad_destroy(w->broad);
	imp_shape_destroy(w->ray_point);
	free_arrays(w);
	imp_allocator a = w->alloc;
	imp_free(&a, w, sizeof *w);
}

int imp_world_dim(const imp_world *w)
{
	return w != NULL ? w->dim : 0;
}

int imp_world_body_count(const imp_world *w)
{
	return w != NULL ? w->body_count : 0;
}

/* ---- workers ---- */

void imp_world_run_task(const imp_world *cw, imp_task_fn *task, int count, int min_range, void *context)
{
	imp_world *w = (imp_world *)cw; // only the atomic flag is written
	bool expected = false;
	if (count <= 0)
		return;
	if (w->workers <= 1 || count < 2 * min_range ||
	    !atomic_compare_exchange_strong_explicit(&w->tasks_taken, &expected, true, memory_order_acquire,
						     memory_order_relaxed)) {
		task(0, count, 0, context);
		return;
	}
	if (w->pool != NULL) {
		imp_pool_run(w->pool, task, count, min_range, context);
	} else {
		void *handle = w->def.enqueue_task(task, count, min_range, context, w->def.user_task_context);
		if (handle != NULL)
			w->def.finish_task(handle, w->def.user_task_context);
	}
	atomic_store_explicit(&w->tasks_taken, false, memory_order_release);
}

/* ---- the narrow phase of the update, the step and the queries ---- */

bool imp_world_closest(const imp_world *w, const imp_shape *a, const imp_pose2 *a2, const imp_pose3 *a3,
		       const imp_shape *b, const imp_pose2 *b2, const imp_pose3 *b3, imp_simplex_cache *cache,
		       const imp_query_options *o, imp_query_result *r, imp_query_state *state)
{
	imp_query_state st;
	if (w->dim == 2) {
		imp_closest2_result c;
		if (imp_closest2_ex(a, *a2, b, *b2, cache, o, &c) != IMP_OK || c.state == IMP_STATE_DEGENERATE ||
		    !isfinite(c.distance))
			return false;
		r->distance = c.distance;
		r->point = imp_vec3_make(c.point_a.x, c.point_a.y, 0.0);
		r->body_point = imp_vec3_make(c.point_b.x, c.point_b.y, 0.0);
		r->normal = imp_vec3_make(c.normal.x, c.normal.y, 0.0);
		st = c.state;
	} else {
		imp_closest3_result c;
		if (imp_closest3_ex(a, *a3, b, *b3, cache, o, &c) != IMP_OK || c.state == IMP_STATE_DEGENERATE ||
		    !isfinite(c.distance))
			return false;
		r->distance = c.distance;
		r->point = c.point_a;
		r->body_point = c.point_b;
		r->normal = c.normal;
		st = c.state;
	}
	if (state != NULL)
		*state = st;
	return true;
}
