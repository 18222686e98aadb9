// SPDX-License-Identifier: MIT
// Bodies: slots named by generational ids (a slot's generation changes
// when its body is removed, so a stale id is refused), their poses and
// boxes, types, filters and user data. A body's box is kept relative to its
// position at its rotation (rel), so that a move without a turn places it
// again without the shape; the tight box is that at the pose, enlarged by
// half the margin, and the broad phase holds an enlarged (fat) box that the
// tight box must stay inside between updates. Every change of the user's
// puts the body in the moved list, which the next update looks at.
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
#include "core/sort.h"
#include "impact/collision.h"
#include "impact/world.h"
#include "narrow/composite_query.h"
#include "shape/composite.h"
#include "shape/shape_internal.h"
#include "shape/shape3_internal.h"

/* ---- validation ---- */

static imp_status check_pose(const imp_world *w, const imp_body_def *d)
{
	return w->dim == 2 ? imp_pose2_status(d->pose2) : imp_pose3_status(d->pose3);
}

/* ---- boxes ---- */

imp_status imp_world_shape_rel_box(const imp_world *w, const imp_shape *s, const imp_pose2 *p2, const imp_pose3 *p3,
				imp_box *rel)
{
	if (imp_shape_is_composite(s)) {
		// Non-convex: the turned boxes of the hierarchy's upper nodes
		// (imp_shape_aabb3's box), a few boxes at any number of children
		// (a mesh's tight box would take every vertex at every turn).
		imp_composite_rel_box(imp_composite_of(s), w->dim == 2 ? &p2->q : NULL, w->dim == 3 ? &p3->q : NULL, rel);
		return IMP_OK;
	}
	if (w->dim == 2) {
		imp_aabb2 a;
		imp_status st = imp_shape2_aabb_rel(s, p2->q, &a);
		if (st != IMP_OK)
			return st;
		*rel = (imp_box){{a.lo.x, a.lo.y, 0.0}, {a.hi.x, a.hi.y, 0.0}};
	} else {
		imp_aabb3 a;
		imp_status st = imp_shape3_aabb_rel(s, p3->q, &a);
		if (st != IMP_OK)
			return st;
		*rel = (imp_box){{a.lo.x, a.lo.y, a.lo.z}, {a.hi.x, a.hi.y, a.hi.z}};
	}
	return IMP_OK;
}

imp_status imp_world_shape_box(const imp_world *w, const imp_shape *s, const imp_pose2 *p2, const imp_pose3 *p3,
			       imp_box *out)
{
	imp_box rel;
	imp_status st = imp_world_shape_rel_box(w, s, p2, p3, &rel);
	return st != IMP_OK ? st : place_grown(w, &rel, p2, p3, 0.0, out);
}

bool imp_body_is_valid(const imp_world *w, imp_body_id id)
{
	return w != NULL && imp_world_slot_of(w, id) >= 0;
}

void imp_world_mark_moved(imp_world *w, int32_t s)
{
	body *b = &w->bodies[s];
	if (!b->moved) {
		b->moved = 1;
		w->moved[w->moved_count++] = s;
	}
}

void imp_world_mark_changed(imp_world *w, int32_t s)
{
	w->motions[s].pending = w->updates + 1u;
	imp_world_mark_moved(w, s);
}

static bool reserve_moved(imp_world *w)
{
	return imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, w->moved_count + 1, sizeof *w->moved);
}

imp_status imp_world_add_body(imp_world *w, const imp_body_def *def, imp_body_id *out)
{
	if (w == NULL || def == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
		return IMP_ERR_BUSY;
	if (def->shape == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_shape_dim(def->shape) == 0)
		return IMP_ERR_BAD_SHAPE;
	if (imp_shape_dim(def->shape) != w->dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	if (def->type != IMP_BODY_STATIC && def->type != IMP_BODY_KINEMATIC && def->type != IMP_BODY_DYNAMIC)
		return IMP_ERR_BAD_BODY_TYPE;
	imp_status st = check_pose(w, def);
	if (st != IMP_OK)
		return st;
	imp_box rel, tight;
	st = imp_world_shape_rel_box(w, def->shape, &def->pose2, &def->pose3, &rel);
	if (st == IMP_OK)
		st = place_box(w, &rel, &def->pose2, &def->pose3, &tight);
	if (st != IMP_OK)
		return st;
	int32_t s = w->free_head;
	if (s < 0) {
		if (w->body_high == INT32_MAX - 1)
			return IMP_ERR_OUT_OF_MEMORY;
		if (!imp_grow(&w->alloc, (void **)&w->bodies, &w->body_cap, w->body_high + 1, sizeof *w->bodies) ||
		    !imp_grow(&w->alloc, (void **)&w->motions, &w->motion_cap, w->body_high + 1, sizeof *w->motions) ||
		    !imp_grow(&w->alloc, (void **)&w->odo, &w->odo_cap, w->body_high + 1, sizeof *w->odo))
			return IMP_ERR_OUT_OF_MEMORY;
	}
	if (!reserve_moved(w))
		return IMP_ERR_OUT_OF_MEMORY;
	uint32_t generation = 1;
	bool reused = s >= 0;
	if (s >= 0) {
		w->free_head = w->bodies[s].next_free;
		generation = w->bodies[s].generation;
	} else {
		s = w->body_high++;
		memset(&w->motions[s], 0, sizeof w->motions[s]);
		w->odo[s] = 0.0; // a new slot's; a reused slot keeps its odometer: pairs read only its growth
	}
	motion *m = &w->motions[s];
	uint32_t serial = m->serial + 1u;
	uint8_t listed = m->listed;
	memset(m, 0, sizeof *m);
	m->serial = serial;
	m->listed = listed; // a stale entry in the movers list stays until the next step prunes it
	m->reach = imp_shape_reach(def->shape);
	m->core_reach = imp_shape_core_reach(def->shape);
	if (m->reach > w->max_reach)
		w->max_reach = m->reach;
	body *b = &w->bodies[s];
	uint8_t in_moved = reused ? b->moved : 0; // a removed body's entry in the moved list, taken over
	memset(b, 0, sizeof *b);
	b->moved = in_moved;
	b->generation = generation;
	b->tight = tight;
	b->rel = rel;
	b->shape = def->shape;
	b->pose2 = def->pose2;
	b->pose3 = def->pose3;
	b->filter = def->filter;
	b->user_data = def->user_data;
	b->type = (uint8_t)def->type;
	b->alive = 1;
	b->next_free = -1;
	w->body_count++;
	imp_world_mark_changed(w, s);
	*out = imp_world_id_of(w, s);
	return IMP_OK;
}

imp_status imp_world_remove_body(imp_world *w, imp_body_id id)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
		return IMP_ERR_BUSY;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	body *b = &w->bodies[s];
	int32_t ending = 0;
	for (pair *pr = b->pairs; pr != NULL; pr = list_next(pr, s))
		ending += pr->hot->touching;
	if (!imp_world_event_reserve(w, &w->pending_end, w->pending_end.count + ending))
		return IMP_ERR_OUT_OF_MEMORY;
	while (b->pairs != NULL) {
		pair *pr = b->pairs;
		if (pr->hot->touching)
			imp_world_event_push(w, &w->pending_end, imp_world_id_of(w, key_lo(pr->key)), imp_world_id_of(w, key_hi(pr->key)));
		imp_world_pair_delete(w, pr);
	}
	if (b->in_broad)
		imp_broad_remove(w->broad, s);
	motion *m = &w->motions[s];
	m->v = m->w = imp_vec3_make(0.0, 0.0, 0.0);
	m->has_target = 0;
	m->serial++;
	b->alive = 0;
	b->in_broad = 0;
	// Its entry in the moved list, if it has one, stays (moved set): a body
	// added in the slot before the next update takes it over, so that a
	// slot is listed once; the update drops it while the slot is dead.
	b->shape = NULL;
	w->body_count--;
	if (b->generation < UINT32_MAX) {
		b->generation++;
		b->next_free = w->free_head;
		w->free_head = s;
	}
	return IMP_OK;
}

/// A pose for slot s checked and its relative and tight boxes made from
/// the body's state now (the relative box computed only when the rotation
/// changes: *turned); nothing is stored.
IMP_ALWAYS_INLINE imp_status pose_boxes(const imp_world *w, const body *b, const imp_pose2 *p2, const imp_pose3 *p3,
					imp_box *rel, imp_box *tight, bool *turned)
{
	imp_status st = p2 != NULL ? imp_pose2_status(*p2) : imp_pose3_status(*p3);
	if (st != IMP_OK)
		return st;
	// A body that only translates keeps its relative box: no rotation to
	// compute.
	*turned = !same_rotation(w, b, p2, p3);
	if (*turned) {
		st = imp_world_shape_rel_box(w, b->shape, p2, p3, rel);
		if (st != IMP_OK)
			return st;
	} else {
		*rel = b->rel;
	}
	return place_box(w, rel, p2, p3, tight);
}

/// Stores a checked pose of slot s and its boxes; room in the moved list
/// reserved.
IMP_ALWAYS_INLINE void pose_store(imp_world *w, int32_t s, const imp_pose2 *p2, const imp_pose3 *p3, const imp_box *rel,
				  const imp_box *tight)
{
	body *b = &w->bodies[s];
	if (p2 != NULL)
		b->pose2 = *p2;
	else
		b->pose3 = *p3;
	set_tight(w, s, tight);
	b->rel = *rel;
	b->inside = box_contains_all(&b->fat, tight);
	w->motions[s].serial++;
	imp_world_mark_changed(w, s);
}

IMP_ALWAYS_INLINE imp_status set_pose(imp_world *w, imp_body_id id, const imp_pose2 *p2, const imp_pose3 *p3)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
		return IMP_ERR_BUSY;
	if ((p2 != NULL) != (w->dim == 2))
		return IMP_ERR_DIMENSION_MISMATCH;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	body *b = &w->bodies[s];
	imp_box rel, tight;
	bool turned;
	imp_status st = pose_boxes(w, b, p2, p3, &rel, &tight, &turned);
	if (st != IMP_OK)
		return st;
	if (!b->moved && w->moved_count >= w->moved_cap && !reserve_moved(w))
		return IMP_ERR_OUT_OF_MEMORY;
	pose_store(w, s, p2, p3, &rel, &tight);
	return IMP_OK;
}

/// Pass 1 of set_poses failed at entry `upto`: the marks of the entries
/// before it cleared.
static void unmark_batch(imp_world *w, const imp_body_id *ids, int upto)
{
	for (int i = 0; i < upto; i++)
		w->bodies[imp_world_slot_of(w, ids[i])].batch_mark = 0;
}

/// Poses for many bodies, as set_pose one after the other, or none of them.
/// Pass 1 checks every entry and keeps, in the world's scratch, the
/// relative boxes that pass 2 could not take from the body: those of a new
/// rotation, and every one of a body named again (the boxes pass 1 sees are
/// the ones before the call); pass 2 stores. A body named twice is marked
/// (batch_mark) between the passes.
IMP_ALWAYS_INLINE imp_status set_poses(imp_world *w, int dim, const imp_body_id *ids, const imp_pose2 *p2,
				       const imp_pose3 *p3, int count)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
		return IMP_ERR_BUSY;
	if (dim != w->dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	if (count < 0)
		return IMP_ERR_BAD_COUNT;
	if (count == 0)
		return IMP_OK;
	if (ids == NULL || (p2 == NULL && p3 == NULL))
		return IMP_ERR_NULL_ARGUMENT;
	// Room for every entry's slot, not past one entry a slot (a slot is
	// listed once).
	int64_t need = (int64_t)w->moved_count + count;
	int32_t room = need < w->body_high ? (int32_t)need : w->body_high;
	if (room > w->moved_cap &&
	    !imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, room, sizeof *w->moved))
		return IMP_ERR_OUT_OF_MEMORY;
	int32_t kept = 0;
	for (int i = 0; i < count; i++) {
		int32_t s = imp_world_slot_of(w, ids[i]);
		imp_status st = IMP_ERR_BAD_ID;
		imp_box rel, tight;
		bool turned = false;
		if (s >= 0)
			st = pose_boxes(w, &w->bodies[s], p2 != NULL ? &p2[i] : NULL, p3 != NULL ? &p3[i] : NULL, &rel,
					&tight, &turned);
		if (st == IMP_OK && (turned || w->bodies[s].batch_mark)) {
			if (kept == w->batch_cap &&
			    !imp_grow(&w->alloc, (void **)&w->batch, &w->batch_cap, kept + 1, sizeof *w->batch))
				st = IMP_ERR_OUT_OF_MEMORY;
			else
				w->batch[kept++] = (batch_rel){rel, i};
		}
		if (st != IMP_OK) {
			unmark_batch(w, ids, i);
			return st;
		}
		w->bodies[s].batch_mark = 1;
	}
	int32_t k = 0;
	for (int i = 0; i < count; i++) {
		int32_t s = (int32_t)ids[i].index - 1; // checked by pass 1
		body *b = &w->bodies[s];
		b->batch_mark = 0;
		const imp_pose2 *q2 = p2 != NULL ? &p2[i] : NULL;
		const imp_pose3 *q3 = p3 != NULL ? &p3[i] : NULL;
		imp_box rel = k < kept && w->batch[k].entry == i ? w->batch[k++].rel : b->rel, tight;
		imp_status st = place_box(w, &rel, q2, q3, &tight);
		assert(st == IMP_OK); // as in pass 1: the same sums
		(void)st;
		pose_store(w, s, q2, q3, &rel, &tight);
	}
	assert(k == kept);
	return IMP_OK;
}

imp_status imp_world_set_poses2(imp_world *w, const imp_body_id *ids, const imp_pose2 *poses, int count)
{
	return set_poses(w, 2, ids, poses, NULL, count);
}

imp_status imp_world_set_poses3(imp_world *w, const imp_body_id *ids, const imp_pose3 *poses, int count)
{
	return set_poses(w, 3, ids, NULL, poses, count);
}

imp_status imp_body_set_pose2(imp_world *w, imp_body_id id, imp_pose2 pose)
{
	return set_pose(w, id, &pose, NULL);
}

imp_status imp_body_set_pose3(imp_world *w, imp_body_id id, imp_pose3 pose)
{
	return set_pose(w, id, NULL, &pose);
}

/// The body an id names for a getter, or NULL with *st set.
static const body *get_body(const imp_world *w, imp_body_id id, const void *out, imp_status *st)
{
	if (w == NULL || out == NULL) {
		*st = IMP_ERR_NULL_ARGUMENT;
		return NULL;
	}
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0) {
		*st = IMP_ERR_BAD_ID;
		return NULL;
	}
	*st = IMP_OK;
	return &w->bodies[s];
}

/// A body's pose now: inside the step's callback, at the contact's time.
static void pose_now(const imp_world *w, const body *b, imp_pose2 *p2, imp_pose3 *p3)
{
	if (w->in_step) {
		imp_world_pose_at(w, (int32_t)(b - w->bodies), w->step_now, p2, p3);
		return;
	}
	*p2 = b->pose2;
	*p3 = b->pose3;
}

imp_status imp_body_get_pose2(const imp_world *w, imp_body_id id, imp_pose2 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 2)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose3 p3;
	pose_now(w, b, out, &p3);
	return IMP_OK;
}

imp_status imp_body_get_pose3(const imp_world *w, imp_body_id id, imp_pose3 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 3)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 p2;
	pose_now(w, b, &p2, out);
	return IMP_OK;
}

imp_status imp_body_get_aabb2(const imp_world *w, imp_body_id id, imp_aabb2 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 2)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 p2;
	imp_pose3 p3;
	pose_now(w, b, &p2, &p3);
	return imp_shape_aabb2(b->shape, p2, out);
}

imp_status imp_body_get_aabb3(const imp_world *w, imp_body_id id, imp_aabb3 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 3)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 p2;
	imp_pose3 p3;
	pose_now(w, b, &p2, &p3);
	return imp_shape_aabb3(b->shape, p3, out);
}

imp_status imp_body_get_type(const imp_world *w, imp_body_id id, imp_body_type *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = (imp_body_type)b->type;
	return st;
}

imp_status imp_body_get_shape(const imp_world *w, imp_body_id id, const imp_shape **out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = b->shape;
	return st;
}

imp_status imp_body_get_filter(const imp_world *w, imp_body_id id, imp_filter *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = b->filter;
	return st;
}

imp_status imp_body_get_user_data(const imp_world *w, imp_body_id id, void **out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = b->user_data;
	return st;
}

imp_status imp_body_set_user_data(imp_world *w, imp_body_id id, void *user_data)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_reading(w))
		return IMP_ERR_BUSY; // other threads may read it
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	w->bodies[s].user_data = user_data;
	return IMP_OK;
}

imp_status imp_body_set_filter(imp_world *w, imp_body_id id, imp_filter filter)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
		return IMP_ERR_BUSY;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	body *b = &w->bodies[s];
	if (!b->moved && !reserve_moved(w))
		return IMP_ERR_OUT_OF_MEMORY;
	b->filter = filter;
	b->refilter = 1;
	imp_world_mark_changed(w, s);
	return IMP_OK;
}
