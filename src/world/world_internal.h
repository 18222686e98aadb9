// SPDX-License-Identifier: MIT
// The world's records, shared by world.c (bodies, pairs, update, step) and
// query.c (the planner queries).
#ifndef IMPACT_WORLD_INTERNAL_H
#define IMPACT_WORLD_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broad/broad.h"
#include "world/heap.h"
#include "impact/collision.h"
#include "impact/world.h"

/// What pass 2 reads of every pair, apart from the rest: a walk over the
/// pairs reads 24 bytes of each, not the whole record.
typedef struct pair_hot {
	uint64_t key;            ///< lower slot << 32 | higher slot
	/// Pass 2 leaves the pair as it is while the odometers of its two
	/// bodies (imp_world.odo) sum below this: its boxes cannot have changed
	/// from overlapping to apart or back (pair_limit). 0 (fresh): never.
	double limit;
	uint32_t stamp;          ///< the update that last looked at it
	uint8_t touching;
	uint8_t doomed;          ///< the broad phase removed it during this update
	uint8_t live;            ///< in the table (not on the free list)
	uint8_t reserved;
} pair_hot;

typedef struct pair {
	uint64_t key;            ///< lower slot << 32 | higher slot (also in hot)
	pair_hot *hot;
	struct pair *next[2];    ///< next pair in the list of the lower [0] / higher [1] slot's body
	struct pair *prev[2];
	imp_simplex_cache cache;
	// The time-of-impact step (imp_world_step):
	double toi;              ///< world time before which the pair cannot come within toi_tol
	uint32_t toi_serial[2];  ///< the lower and higher body's motion serials toi was found with
	uint32_t step;           ///< the step that last queued it
	int32_t slot;            ///< its place in the step's queued array
	int32_t handle;          ///< its queue handle, while queued
	uint32_t calls;          ///< narrow-phase calls in that step
	double toi_tol;          ///< the contact tolerance toi was found for (it holds for no larger one)
	double rep_distance;     ///< its distance when last reported in the step
	uint32_t rep_serial[2];  ///< the motion serials when the pair was last reported in the step
	int32_t rep_child[2];    ///< a non-convex pair: the children of that report (-1: a convex side)
	uint8_t rep_approach;    ///< that report was of an approaching contact
	uint8_t toi_ok;          ///< toi holds (while the serials match, for a tolerance up to toi_tol)
	uint8_t contact;         ///< within the tolerance at its last look, reported in this step
	uint8_t queued;          ///< in the queue now
	uint8_t deferred;        ///< 1: waits for the next sweep at the current time; 2: listed, no longer
	uint8_t capped;          ///< reached max_pair_calls in this step: 1, then 2 once reported at its end
} pair;

/// A slot of the pair table: open addressing, linear probing, at most half
/// full; key 0 marks an empty slot (a key has two different slots, never 0).
/// A look-up reads the slots, not the pairs: uthash's chains walked 256-byte
/// pairs at random, and its growth read every pair again (docs/broad.md).
typedef struct pair_slot {
	uint64_t key;
	pair *pr;
} pair_slot;

/// A body's motion (one per slot, beside the bodies, so that the update's
/// walks over bodies read none of it).
typedef struct motion {
	imp_vec3 v, w;           ///< as set (2D: v.x, v.y and w.z)
	imp_pose2 target2;
	imp_pose3 target3;
	double reach;            ///< the shape's largest distance from its origin
	double core_reach;       ///< the same for its core (what a turn moves)
	uint32_t serial;         ///< changes with every change of motion and every teleport
	/// imp_world.updates + 1 when the body was added, given a pose or a
	/// filter, or moved by a step since the last update that succeeded (the
	/// state hash's "moved": unlike body.moved, which also marks the work a
	/// failed call left for the next update, it changes only with the user's
	/// changes).
	uint64_t pending;
	uint8_t has_target;
	uint8_t listed;          ///< in the movers list
	uint8_t changed;         ///< in the step's list of motions changed by the callback
	uint8_t started;         ///< began moving inside the step's callback
	// The step in progress (when step is the world's step stamp):
	uint32_t step;
	double t0;               ///< the step time of the base pose
	imp_pose2 base2;
	imp_pose3 base3;
	imp_vec3 sv, sw;         ///< the velocity from t0 on
	/// The motion as it was before the step's callback first set the
	/// body's velocity in step set_in (put back if the step fails).
	uint32_t set_in;
	uint8_t saved_target;
	imp_vec3 saved_v, saved_w;
} motion;

typedef struct body {
	// First, in 64 bytes (one cache line for a body that starts on one:
	// the array is not aligned, so most straddle two), what every frame
	// reads of every moved body: set_pose, pass 1 and the end of the update
	// read only the box and the flags; then what set_pose reads besides (the shape, the relative box,
	// the fat box to tell pass 1 whether it must move).
	imp_box tight;           ///< the shape's box at its pose, enlarged by margin / 2
	uint8_t alive;
	uint8_t moved;           ///< in the moved list, to be looked at by the next update
	uint8_t in_broad;
	uint8_t refilter;
	uint8_t inside;          ///< tight lies in fat (set by set_pose and pass 1)
	uint8_t inserting;       ///< pass 1 of an update: to be inserted
	uint8_t type;
	uint8_t qmark;           ///< query.c: met in the moved list during this query
	uint32_t generation;
	int32_t next_free;
	const imp_shape *shape;
	imp_box rel;             ///< the shape's box at the pose's rotation, minus the position
	imp_box fat;             ///< what the broad phase holds
	imp_pose3 pose3;
	imp_pose2 pose2;
	imp_filter filter;
	void *user_data;
	pair *pairs;
} body;

_Static_assert(offsetof(body, shape) == 64, "the flags and the tight box fill the first 64 bytes");

#define PAIR_BLOCK 256

typedef struct pair_block {
	struct pair_block *next;
	pair_hot hot[PAIR_BLOCK]; ///< hot[i] is items[i]'s
	pair items[PAIR_BLOCK];
} pair_block;

/// A touching pair in the walk's array: its slots (the key) and their
/// generations when it began, so that a walk reads nothing else.
typedef struct touch_entry {
	uint64_t key;
	uint32_t gen_lo, gen_hi;
	uint32_t dead;           ///< it stopped touching since the array was last rebuilt
} touch_entry;

/// Events are kept with slots (sortable) and turned into ids on the way.
typedef struct event_array {
	imp_pair_event *items;
	int32_t count, cap;
} event_array;

struct imp_world {
	imp_world_def def;
	imp_allocator alloc;
	uint32_t serial;
	int dim;
	bool busy;
	bool oom;                ///< set by the broad-phase callback
	uint32_t stamp;

	body *bodies;
	int32_t body_cap, body_high, free_head, body_count;

	int32_t *moved;
	int32_t moved_count, moved_cap;

	pair_slot *table;        ///< table_cap slots, a power of 2 (NULL: none yet)
	uint32_t table_cap;
	pair_block *blocks;
	pair *free_pairs;
	int32_t pair_count;
	int32_t touching;

	event_array begin, end, pending_end;
	uint64_t updates;        ///< updates that succeeded

	// The touching pairs in key order, for the walks: the array as of the
	// last update (ended pairs marked dead since), and the pairs that began
	// in this update, merged in when it ends.
	touch_entry *touch;
	int32_t touch_count, touch_cap, touch_dead;
	touch_entry *touch_new;
	int32_t touch_new_count, touch_new_cap;
	/// A second sorted run of touching pairs: the pairs that began since
	/// touch was last rebuilt, while they are few; the walk merges the two.
	touch_entry *touch_extra;
	int32_t touch_extra_count, touch_extra_cap, touch_extra_dead;

	imp_broad *broad;
	imp_world_stats stats;

	// Motion and the time-of-impact step.
	motion *motions;         ///< per slot, room for body_cap
	int32_t motion_cap;
	/// Per slot, room for body_cap: a bound on how far any coordinate of
	/// the body's tight box has moved in all, rounded up (never decreases).
	double *odo;
	int32_t odo_cap;
	int32_t *movers;         ///< slots that may have a motion (lazily pruned at each step)
	int32_t mover_count, mover_cap;
	double time;
	uint32_t step_stamp;
	bool in_step;            ///< the step's callback is running: velocities may change
	double step_now;         ///< the time of the contact being reported
	double step_dt;
	int32_t *step_bodies;    ///< the bodies moving in this step
	int32_t step_body_count, step_body_cap;
	int32_t *changed;        ///< bodies whose motion the callback changed
	int32_t changed_count, changed_cap;
	pair **queued;           ///< the pairs the step looked at; queue values index this
	int32_t queued_count, queued_cap;
	imp_heap queue;
	double queue_now;        ///< the time being processed: of the pair last taken from the queue, or dt
	                         ///< while the capped pairs are reported (-inf before the first)
	/// The pairs queued again at queue_now while it is processed: they go
	/// into the queue, in one sweep, once every pair now due has been seen.
	pair **deferred;
	int32_t deferred_count, deferred_cap;
	pair **capped;           ///< room for the step's pairs: the capped ones, at its end
	int32_t capped_cap;
	double max_reach;        ///< the largest reach of any body added (never decreases)
	imp_contact_event *contacts;
	int32_t contact_count, contact_cap;
	imp_step_stats step_stats;

	// The planner queries (query.c): their candidates, kept between queries.
	struct query_item *qitems;
	int32_t qitem_cap;
	imp_query_result *qresults; ///< distance queries: found, not yet delivered (a heap)
	int32_t qresult_cap;
	imp_shape *ray_point;       ///< the point ray casts move (made at the first one)
};

/// A query's candidate: a body slot and a lower bound on its distance.
typedef struct query_item {
	double lb;
	int32_t slot;
	int32_t reserved;
} query_item;

/// The box of shape s at the pose of the world's dimension (the other is
/// not read), without the world's margin; IMP_ERR_OUT_OF_RANGE when it is
/// not finite.
imp_status imp_world_shape_box(const imp_world *w, const imp_shape *s, const imp_pose2 *p2, const imp_pose3 *p3,
			       imp_box *out);

/// The angle that turns `from` into `to` through the smaller angle
/// (counter-clockwise positive, in [-pi, pi]).
static inline double imp_turn2(imp_rot2 from, imp_rot2 to)
{
	imp_rot2 d = imp_rot2_mul_inv(from, to);
	return atan2(d.s, d.c);
}

/// The rotation vector (axis times angle, world frame) that turns `from`
/// into `to` along the shorter arc.
static inline imp_vec3 imp_turn3(imp_quat from, imp_quat to)
{
	imp_quat d = imp_quat_mul(to, imp_quat_conj(from));
	if (d.w < 0.0)
		d = (imp_quat){-d.x, -d.y, -d.z, -d.w};
	double sn = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	if (!(sn > 0.0))
		return imp_vec3_make(0.0, 0.0, 0.0);
	return imp_vec3_scale(2.0 * atan2(sn, d.w) / sn, imp_vec3_make(d.x, d.y, d.z));
}

/// Level 3 between shapes a and b at poses of the world's dimension (the
/// other pose is not read), with options o (NULL: the defaults), into r's
/// distance, point (on a), body_point and normal (a to b; z = 0 in 2D),
/// and the state it ended in into *state (may be NULL). False when the
/// narrow phase had no answer (a user shape's support failed). r->body is
/// not touched.
bool imp_world_closest(const imp_world *w, const imp_shape *a, const imp_pose2 *a2, const imp_pose3 *a3,
		       const imp_shape *b, const imp_pose2 *b2, const imp_pose3 *b3, imp_simplex_cache *cache,
		       const imp_query_options *o, imp_query_result *r, imp_query_state *state);

/// The id of the body in a live slot.
static inline imp_body_id imp_world_id_of(const imp_world *w, int32_t slot)
{
	imp_body_id id = {(uint32_t)slot + 1u, w->bodies[slot].generation, w->serial};
	return id;
}

/// The pair of key (lower slot << 32 | higher), or NULL.
pair *imp_world_find_pair(const imp_world *w, uint64_t key);

/// The slot an id names, or -1.
static inline int32_t imp_world_slot_of(const imp_world *w, imp_body_id id)
{
	if (id.world != w->serial || id.index == 0 || id.index > (uint32_t)w->body_high)
		return -1;
	int32_t s = (int32_t)(id.index - 1);
	const body *b = &w->bodies[s];
	return b->alive && b->generation == id.generation ? s : -1;
}

#endif
