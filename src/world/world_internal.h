// SPDX-License-Identifier: MIT
// The world's records, shared by its files (world.c, body.c, pairs.c,
// update.c, motion.c, step.c; world.c's head says which holds what) and
// query.c (the planner queries), and what those files call of each other.
#ifndef IMPACT_WORLD_INTERNAL_H
#define IMPACT_WORLD_INTERNAL_H

#include <float.h>
#include <stdatomic.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broad/broad.h"
#include "core/inline.h"
#include "shape/shape_internal.h"
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

/// What the time-of-impact step (imp_world_step) keeps of a pair: in an
/// array beside its block's pairs that only a world that steps allocates.
typedef struct pair_step {
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
} pair_step;

typedef struct pair {
	uint64_t key;            ///< lower slot << 32 | higher slot (also in hot)
	pair_hot *hot;
	struct pair *next[2];    ///< next pair in the list of the lower [0] / higher [1] slot's body
	struct pair *prev[2];
	pair_step *st;           ///< its step record (NULL until the world steps)
	imp_simplex_cache cache;
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
	uint32_t step;           ///< the step stamp of the step it moves in (its step_motion holds how)
} motion;

/// A body's motion in the step in progress (when its motion's step is the
/// world's step stamp), per slot in an array of its own that only a world
/// that steps allocates (imp_world_step reserves it).
typedef struct step_motion {
	double t0;               ///< the step time of the base pose
	imp_pose2 base2;
	imp_pose3 base3;
	imp_vec3 sv, sw;         ///< the velocity from t0 on
	/// The motion as it was before the step's callback first set the
	/// body's velocity in step set_in (put back if the step fails).
	uint32_t set_in;
	uint8_t saved_target;
	imp_vec3 saved_v, saved_w;
} step_motion;

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
	uint8_t batch_mark;      ///< named by an entry of the imp_world_set_poses call in progress
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
	pair_step *steps;         ///< PAIR_BLOCK step records, items[i].st = &steps[i] (NULL until the world steps)
	pair_hot hot[PAIR_BLOCK]; ///< hot[i] is items[i]'s
	pair items[PAIR_BLOCK];
} pair_block;

/// A relative box imp_world_set_poses2/3 computed in its first pass for
/// its second: that of entry `entry`.
typedef struct batch_rel {
	imp_box rel;
	int32_t entry;
} batch_rel;

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

/// A visit of the update's pass 2 gathered for the workers (update.c).
typedef struct narrow_visit {
	pair *pr;
	double m;      ///< the pair's boxes' least overlap
	bool touching; ///< its touching state now (once decided)
	bool change;   ///< the world must change: doomed, or touching flips
} narrow_visit;

struct imp_world {
	imp_world_def def;
	imp_allocator alloc;
	uint32_t serial;
	int dim;
	bool busy;               ///< the step's callback runs (on the stepping thread)
	/// Queries in progress, on any thread: no call may change the world
	/// meanwhile (imp_world_busy), velocities and user data included.
	atomic_int readers;
	/// imp_world_for_each_pair walks in progress: the world's pairs and
	/// bodies may not change (velocities and user data may, as before).
	atomic_int walkers;
	bool oom;                ///< set by the broad-phase callback
	uint32_t stamp;

	body *bodies;
	int32_t body_cap, body_high, free_head, body_count;

	int32_t *moved;
	int32_t moved_count, moved_cap;
	batch_rel *batch;        ///< imp_world_set_poses2/3's scratch
	int32_t batch_cap;

	pair_slot *table;        ///< table_cap slots, a power of 2 (NULL: none yet)
	uint32_t table_cap;
	pair_block *blocks;
	bool pair_steps;         ///< every block has its step records (the world has stepped)
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
	step_motion *smotions;   ///< per slot, room for body_high once the world steps (zeroed when grown)
	int32_t smotion_cap;
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

	// The planner queries (query.c) keep their candidates in memory of
	// their own: queries on several threads read the world at once.
	imp_shape *ray_point;       ///< the point ray casts move (made with the world)

	// Workers (imp_world_run_task).
	int workers;                ///< def.worker_count, 0 made 1
	struct imp_pool *pool;      ///< the world's own threads (workers > 1, no user scheduler)
	atomic_bool tasks_taken;    ///< a task is running on the workers (a batch on another thread, say)
	/// Pass 2's visits when they are gathered first (workers > 1): the
	/// narrow phase of each runs on the workers, then they are applied in
	/// the order gathered.
	narrow_visit *visits;
	int32_t visit_count, visit_cap;
	/// Pass 2 over every pair on the workers: the pair blocks in list
	/// order, and each block's count of changes (its records in visits,
	/// from block * PAIR_BLOCK).
	pair_block **block_array;
	int32_t *block_changes;
	int32_t block_count, block_array_cap, block_changes_cap;
};

/// Runs task over items 0 .. count - 1 in ranges of at least min_range on
/// the world's workers (the pool, or the user's scheduler), the calling
/// thread among them, and returns when all have run; on the calling thread
/// alone, as worker 0, with one worker, fewer than 2 * min_range items, or
/// while another task holds the workers.
void imp_world_run_task(const imp_world *w, imp_task_fn *task, int count, int min_range, void *context);

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

/// Whether a call that changes the world must be refused now: the step's
/// callback runs (what it may change is its own rule), or a query or a
/// pair walk is in progress on some thread (its callbacks included).
static inline bool imp_world_busy(const imp_world *w)
{
	return w->busy || atomic_load_explicit(&w->readers, memory_order_acquire) > 0 ||
	       atomic_load_explicit(&w->walkers, memory_order_acquire) > 0;
}

/// Whether a query is in progress on some thread: then even velocities
/// and user data may not change (other threads may read them).
static inline bool imp_world_reading(const imp_world *w)
{
	return atomic_load_explicit(&w->readers, memory_order_acquire) > 0;
}

/// The slot an id names, or -1.
static inline int32_t imp_world_slot_of(const imp_world *w, imp_body_id id)
{
	if (id.world != w->serial || id.index == 0 || id.index > (uint32_t)w->body_high)
		return -1;
	int32_t s = (int32_t)(id.index - 1);
	const body *b = &w->bodies[s];
	return b->alive && b->generation == id.generation ? s : -1;
}

// ---------------------------------------------------------------------------
// Shared by the world's files (world.c, body.c, pairs.c, update.c,
// motion.c, step.c): small helpers inline, then each file's functions the
// others call, under the file that defines them.

// Pair keys and each body's list of pairs.

/// The key of the pair of slots p and q: lower << 32 | higher.
static inline uint64_t pair_key(int32_t p, int32_t q)
{
	uint32_t lo = (uint32_t)(p < q ? p : q), hi = (uint32_t)(p < q ? q : p);
	return (uint64_t)lo << 32 | hi;
}

/// The lower and the higher slot of a pair key.
static inline int32_t key_lo(uint64_t k)
{
	return (int32_t)(k >> 32);
}

static inline int32_t key_hi(uint64_t k)
{
	return (int32_t)(k & 0xffffffffu);
}

/// Which of the pair's two links belongs to slot s.
static inline int link_of(const pair *pr, int32_t s)
{
	return key_lo(pr->key) == s ? 0 : 1;
}

/// The next pair after pr in slot s's list.
static inline pair *list_next(const pair *pr, int32_t s)
{
	return pr->next[link_of(pr, s)];
}

// Boxes.

/// imp_box_contains on all three axes without a branch (a 2D box has 0 for
/// both z bounds).
static inline bool box_contains_all(const imp_box *outer, const imp_box *inner)
{
	return (inner->lo[0] >= outer->lo[0]) & (inner->hi[0] <= outer->hi[0]) & (inner->lo[1] >= outer->lo[1]) &
	       (inner->hi[1] <= outer->hi[1]) & (inner->lo[2] >= outer->lo[2]) & (inner->hi[2] <= outer->hi[2]);
}

/// Sets slot s's tight box and adds how far its coordinates moved to the
/// slot's odometer, rounded up so that the odometer is never short of the
/// true sum: with d within one rounding of the largest move, (odo + d) (1 +
/// 4 eps) rounded is at least odo + the move.
static inline void set_tight(imp_world *w, int32_t s, const imp_box *t)
{
	body *b = &w->bodies[s];
	double d = 0.0;
	for (int k = 0; k < 3; k++) {
		double lo = fabs(t->lo[k] - b->tight.lo[k]), hi = fabs(t->hi[k] - b->tight.hi[k]);
		d = d > lo ? d : lo;
		d = d > hi ? d : hi;
	}
	w->odo[s] = (w->odo[s] + d) * (1.0 + 4 * DBL_EPSILON);
	b->tight = *t;
}

/// The relative box placed at the position, enlarged by h on every side:
/// IMP_ERR_OUT_OF_RANGE unless finite. The sum of its sides is finite
/// exactly when every side is, and a box wider than DBL_MAX is out of
/// range anyway.
IMP_ALWAYS_INLINE imp_status place_grown(const imp_world *w, const imp_box *rel, const imp_pose2 *p2,
					 const imp_pose3 *p3, double h, imp_box *out)
{
	if (w->dim == 2) {
		*out = (imp_box){{(rel->lo[0] + p2->p.x) - h, (rel->lo[1] + p2->p.y) - h, 0.0},
				 {(rel->hi[0] + p2->p.x) + h, (rel->hi[1] + p2->p.y) + h, 0.0}};
	} else {
		*out = (imp_box){{(rel->lo[0] + p3->p.x) - h, (rel->lo[1] + p3->p.y) - h, (rel->lo[2] + p3->p.z) - h},
				 {(rel->hi[0] + p3->p.x) + h, (rel->hi[1] + p3->p.y) + h, (rel->hi[2] + p3->p.z) + h}};
	}
	double span = (out->hi[0] - out->lo[0]) + (out->hi[1] - out->lo[1]) + (out->hi[2] - out->lo[2]);
	return isfinite(span) ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

/// The tight box: the relative box placed at the position, enlarged by
/// half the margin.
IMP_ALWAYS_INLINE imp_status place_box(const imp_world *w, const imp_box *rel, const imp_pose2 *p2,
				       const imp_pose3 *p3, imp_box *out)
{
	return place_grown(w, rel, p2, p3, 0.5 * w->def.margin, out);
}

/// Whether a new pose keeps the body's rotation (bit for bit, or equal
/// zeros): its relative box is then the same.
IMP_ALWAYS_INLINE bool same_rotation(const imp_world *w, const body *b, const imp_pose2 *p2, const imp_pose3 *p3)
{
	if (w->dim == 2)
		return p2->q.c == b->pose2.q.c && p2->q.s == b->pose2.q.s;
	return p3->q.x == b->pose3.q.x && p3->q.y == b->pose3.q.y && p3->q.z == b->pose3.q.z &&
	       p3->q.w == b->pose3.q.w;
}

/// The enlarged box the broad phase holds for a body: its tight box grown
/// by fat_ratio times its largest side (not on an axis where that would
/// leave the finite numbers).
static inline imp_box fatten(const imp_world *w, const body *b)
{
	// A static body does not move on its own: enlarging its box would only
	// widen the region it answers to in the broad phase and the queries.
	const imp_box *t = &b->tight;
	if (b->type == IMP_BODY_STATIC)
		return *t;
	double size = 0.0;
	for (int k = 0; k < w->dim; k++)
		size = imp_max(size, t->hi[k] - t->lo[k]);
	double e = w->def.fat_ratio * size;
	imp_box f = *t;
	for (int k = 0; k < w->dim; k++) {
		f.lo[k] -= e;
		f.hi[k] += e;
		if (!isfinite(f.lo[k]) || !isfinite(f.hi[k])) {
			f.lo[k] = t->lo[k];
			f.hi[k] = t->hi[k];
		}
	}
	return f;
}

// Boxes meeting.

/// imp_box_overlap on all three axes without a branch (a 2D box has 0 for
/// both z bounds, so the third test holds).
static inline bool box_overlap_all(const imp_box *a, const imp_box *b)
{
	return (a->lo[0] <= b->hi[0]) & (b->lo[0] <= a->hi[0]) & (a->lo[1] <= b->hi[1]) & (b->lo[1] <= a->hi[1]) &
	       (a->lo[2] <= b->hi[2]) & (b->lo[2] <= a->hi[2]);
}

// Motions.

static inline bool within_range(double x)
{
	return fabs(x) <= IMP_MAX_COORDINATE; // false for NaN and infinities
}

static inline imp_status vec3_status(imp_vec3 v)
{
	if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z))
		return IMP_ERR_NOT_FINITE;
	return within_range(v.x) && within_range(v.y) && within_range(v.z) ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

static inline bool vec3_is_zero(imp_vec3 v)
{
	return v.x == 0.0 && v.y == 0.0 && v.z == 0.0;
}

static inline bool has_motion(const motion *m)
{
	return m->has_target || !vec3_is_zero(m->v) || !vec3_is_zero(m->w);
}

/// Whether slot s moves in the step in progress.
static inline bool in_step(const imp_world *w, int32_t s)
{
	return w->motions[s].step == w->step_stamp && w->step_stamp != 0;
}

/// Slot s's step motion (a slot that moves in the step in progress).
static inline step_motion *imp_world_smotion(const imp_world *w, int32_t s)
{
	return &w->smotions[s];
}

/// The body's pose at step time t: its base pose moved by the step's
/// velocity over t - t0 (imp_motion2/3_at), or its pose when it does not
/// move in this step.
static inline void imp_world_pose_at(const imp_world *w, int32_t s, double t, imp_pose2 *p2, imp_pose3 *p3)
{
	const body *b = &w->bodies[s];
	if (!in_step(w, s)) {
		*p2 = b->pose2;
		*p3 = b->pose3;
		return;
	}
	const step_motion *m = imp_world_smotion(w, s);
	if (w->dim == 2) {
		imp_motion2 mo = {m->base2, imp_vec2_make(m->sv.x, m->sv.y), m->sw.z};
		*p2 = imp_motion2_at(mo, t - m->t0);
	} else {
		imp_motion3 mo = {m->base3, m->sv, m->sw};
		*p3 = imp_motion3_at(mo, t - m->t0);
	}
}

/// The position of body s's origin at step time t.
static inline imp_vec3 imp_world_position_at(const imp_world *w, int32_t s, double t)
{
	const body *b = &w->bodies[s];
	if (!in_step(w, s))
		return w->dim == 2 ? imp_vec3_make(b->pose2.p.x, b->pose2.p.y, 0.0) : b->pose3.p;
	const step_motion *m = imp_world_smotion(w, s);
	imp_vec3 o = w->dim == 2 ? imp_vec3_make(m->base2.p.x, m->base2.p.y, 0.0) : m->base3.p;
	return imp_vec3_add(o, imp_vec3_scale(t - m->t0, m->sv));
}

/// The position of a pose of the world's dimension (z = 0 in 2D).
static inline imp_vec3 imp_world_position_of(const imp_world *w, const imp_pose2 *p2, const imp_pose3 *p3)
{
	return w->dim == 2 ? imp_vec3_make(p2->p.x, p2->p.y, 0.0) : p3->p;
}

/// Whether a body at position p moving at v from step time t0 stays within
/// the coordinate range up to step time t1.
static inline bool imp_world_path_in_range(imp_vec3 p, imp_vec3 v, double span)
{
	return within_range(p.x + v.x * span) && within_range(p.y + v.y * span) && within_range(p.z + v.z * span);
}

/// The velocity a body moves at in the step in progress: zero for a body
/// that does not move in it (at rest, or with a target and a step of dt 0).
static inline void imp_world_step_velocity(const imp_world *w, int32_t s, imp_vec3 *v, imp_vec3 *av)
{
	bool moving = in_step(w, s);
	*v = moving ? imp_world_smotion(w, s)->sv : imp_vec3_make(0.0, 0.0, 0.0);
	*av = moving ? imp_world_smotion(w, s)->sw : imp_vec3_make(0.0, 0.0, 0.0);
}

// pairs.c.

/// Appends the event of pair (a, b) to e, growing it; false when out of
/// memory.
bool imp_world_event_push(imp_world *w, event_array *e, imp_body_id a, imp_body_id b);

/// Room in e for `need` events in all; false when out of memory.
bool imp_world_event_reserve(const imp_world *w, event_array *e, int32_t need);

/// Sorts the events and, when failed updates left theirs, cancels a begin
/// against an end of the same pair: what remains is the difference between
/// the touching pairs of the last update that succeeded and this one.
void imp_world_events_finish(imp_world *w);

/// The broad phase's report of a candidate pair added or removed.
void imp_world_on_broad_pair(void *ctx, int32_t p, int32_t q, bool added);

/// A new block of free pairs, each tied to its hot record; false when out
/// of memory. Used by pair_alloc and by imp_world_create for pair_capacity.
bool imp_world_pair_block_add(imp_world *w);

/// Step records for every block of pairs that has none (and for the blocks
/// made from now on); false when out of memory (the blocks given theirs
/// keep them).
bool imp_world_pair_steps_reserve(imp_world *w);

/// Room in the table for `need` pairs (at most half full); false when out
/// of memory, the table as it was. The copy reads only the old slots.
bool imp_world_pair_table_reserve(imp_world *w, int64_t need);

/// Ends a pair: its touching state cleared (imp_world_set_touching), out
/// of its bodies' lists and the table, back on the free list.
void imp_world_pair_delete(imp_world *w, pair *pr);

/// Sets a pair's touching state; a pair that begins needs
/// imp_world_touch_reserve first.
void imp_world_set_touching(imp_world *w, pair *pr, bool t);

/// The end of an update: the pairs that began sorted and merged into the
/// small second run; the whole rebuilt into one (dead entries dropped)
/// only when the second run grows past 64 entries and a sixteenth of the
/// first, or dead entries pass a quarter, so that a frame in which a few
/// pairs begin and end costs what changed, not every touching pair. Cannot
/// fail: imp_world_touch_reserve made the room.
void imp_world_touch_rebuild(imp_world *w);

/// Room for one more touching pair in the walk's arrays.
bool imp_world_touch_reserve(imp_world *w);

// body.c.

/// imp_world_mark_moved for a change of the user's (an add, a pose, a
/// filter, a step's motion): also pending in the state hash until an
/// update succeeds.
void imp_world_mark_changed(imp_world *w, int32_t s);

/// Puts slot s in the moved list (room reserved by the caller).
void imp_world_mark_moved(imp_world *w, int32_t s);

/// The box of shape s at the rotation of the pose of the world's
/// dimension (the other is not read), relative to the position: the
/// shape's box at the pose is this plus the position.
imp_status imp_world_shape_rel_box(const imp_world *w, const imp_shape *s, const imp_pose2 *p2,
				   const imp_pose3 *p3, imp_box *rel);

// update.c.

/// Pass 1 over the moved list: the broad phase told of every body whose box
/// left its enlarged box, and of the bodies to insert; adds the bodies
/// looked at to *moved and the broad phase's moves and inserts to *moves.
/// Out of memory leaves the bodies it concerns for the next time.
imp_status imp_world_broad_update(imp_world *w, int *moved, int *moves);

// motion.c.

/// The velocity that takes a body from its pose to its target in dt > 0:
/// the straight segment, and the smaller turn.
void imp_world_target_velocity(const imp_world *w, int32_t s, double dt, imp_vec3 *v, imp_vec3 *av);

#endif
