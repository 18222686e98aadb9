// SPDX-License-Identifier: MIT
/// @file world.h
/// A world of bodies and, each update, every pair of bodies that touch.
///
/// A world is 2D or 3D (chosen when it is made). It holds bodies; each body
/// has a shape (shared, owned by the user, alive while a body uses it), a
/// pose, a type, filter bits and user data, and is named by an id with a
/// generation. imp_world_update() finds the pairs whose bounding boxes
/// overlap with a broad phase that only looks at what moved, confirms each
/// with the narrow phase (keeping a simplex cache per pair), and reports the
/// pairs that began and ended touching since the last update.
///
/// A world is changed by one thread at a time; its queries may run on many
/// threads at once while none changes it (docs/queries.md). Its update and
/// step may spread their work over worker threads (imp_world_def's
/// worker_count), with the same answers as on one.
#ifndef IMPACT_WORLD_H
#define IMPACT_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "vecmath.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An opaque world.
typedef struct imp_world imp_world;

/// Which structure finds the pairs of overlapping boxes. All three give the
/// same pairs; they differ in speed (docs/broad.md says which to pick).
typedef enum imp_broad_kind {
	IMP_BROAD_HASH = 0,  ///< Mirtich's hierarchical spatial hash, coherent variant
	IMP_BROAD_SWEEP = 1, ///< sort-and-sweep: sorted box end-points, insertion sort
	IMP_BROAD_NAIVE = 2, ///< every pair tested, O(n^2): the oracle of the tests
} imp_broad_kind;

/// A range of a task's items, [start, end), run by worker `worker` (0 ..
/// worker_count - 1; no two ranges run at once with the same worker index).
typedef void imp_task_fn(int start, int end, int worker, void *task_context);

/// The user's scheduler (Box2D v3's shape of task system): run `task` over
/// items 0 .. item_count - 1, cut into ranges of at least min_range items
/// (the last may be shorter), each range once, on any threads, each call
/// with a distinct worker index in 0 .. worker_count - 1 among the calls
/// running at the same time. Return a handle for finish_task, or NULL when
/// every range has already run (on the calling thread, say); then
/// finish_task is not called.
typedef void *imp_enqueue_task_fn(imp_task_fn *task, int item_count, int min_range, void *task_context,
				  void *user_context);

/// Waits until every range of the task behind user_task has run.
typedef void imp_finish_task_fn(void *user_task, void *user_context);

/// How to make a world: fill from imp_default_world_def() and change fields.
typedef struct imp_world_def {
	int dim;                   ///< 2 or 3
	imp_broad_kind broad_phase;
	double hash_alpha;         ///< hash cells are 1/beta to 1/alpha times a box's size: 0 < alpha < 1
	double hash_beta;          ///< 1 <= beta <= 1e6. The hash uses min(beta, 4) and a level ratio beta / alpha
	                           ///< clamped to [2, 16] (docs/broad.md): a box spans at most 5^dim cells of a
	                           ///< level, and memory stays linear in the bodies whatever the options
	double fat_ratio;          ///< the broad phase stores each box enlarged by this fraction of its
	                           ///< largest side on every side, so that small motions inside it
	                           ///< cost no broad-phase work (static bodies' boxes are kept exact);
	                           ///< 0 <= fat_ratio <= 1e6, 0 = exact boxes
	double margin;             ///< pairs at most this far apart count as touching (a security margin:
	                           ///< needs the distance query); 0 <= margin <= IMP_MAX_COORDINATE,
	                           ///< 0 = touching or overlapping
	bool narrow_phase;         ///< false: pairs whose bounding boxes overlap count, no narrow phase (the
	                           ///< boxes of imp_shape_aabb2/3 grown by half the margin each, as the world
	                           ///< sums them: boxes touching to a few ulps of their coordinates may go either way)
	imp_allocator allocator;   ///< zeroed: malloc
	int body_capacity;         ///< initial room for bodies (grows as needed), 0..2^30
	int pair_capacity;         ///< initial room for candidate pairs (grows as needed), 0..2^30
	/// Threads the update, the step and the batch queries may use, the
	/// calling one included: 1..IMP_MAX_WORKERS (0 counts as 1). Every
	/// answer, event, contact and state hash is the same for every count.
	/// With more than 1 and no enqueue_task, the world runs a pool of
	/// worker_count - 1 POSIX threads of its own, made by imp_world_create
	/// and joined by imp_world_destroy (sleeping between tasks).
	int worker_count;
	/// The user's scheduler instead of the world's pool (both set or both
	/// NULL): the world hands it tasks from the thread that called the
	/// update, step or batch, one task at a time, and calls the task's
	/// ranges with worker indices below worker_count.
	imp_enqueue_task_fn *enqueue_task;
	imp_finish_task_fn *finish_task;
	void *user_task_context; ///< passed to enqueue_task and finish_task
} imp_world_def;

/// The most workers a world takes.
#define IMP_MAX_WORKERS 256

/// dim 3, the hash (docs/broad.md: the sweep is up to 1.8 times faster
/// when every body moves a little, the hash 6 to 60 times when some jump)
/// with alpha 0.5 and beta 1 (Mirtich's example), fat_ratio 0.1, margin 0, narrow phase on, malloc, no initial capacities, one worker
/// (the calling thread), no scheduler.
IMP_API imp_world_def imp_default_world_def(void);

/// Makes a world. On error *out is untouched and nothing leaks:
/// IMP_ERR_NULL_ARGUMENT (def or out, or an allocator with only some
/// functions set), IMP_ERR_BAD_OPTIONS (dim, kind, alpha, beta,
/// fat_ratio, capacities, worker_count, one of enqueue_task and finish_task
/// without the other), IMP_ERR_BAD_RADIUS (margin), IMP_ERR_OUT_OF_MEMORY
/// (memory, or a pool thread the system would not start).
IMP_API imp_status imp_world_create(const imp_world_def *def, imp_world **out);

/// Frees the world and everything it owns (not the shapes). NULL is ignored.
IMP_API void imp_world_destroy(imp_world *world);

/// The world's dimension (2 or 3), or 0 for NULL.
IMP_API int imp_world_dim(const imp_world *world);

/// A body's id: a value, valid until the body is removed. A zeroed id is
/// never valid; a stale id (its body removed, even if the slot is reused)
/// or an id of another world is refused with IMP_ERR_BAD_ID.
typedef struct imp_body_id {
	uint32_t index;      ///< slot + 1 (0: null id)
	uint32_t generation; ///< counts the slot's reuses
	uint32_t world;      ///< the world's serial number
} imp_body_id;

/// True when the two ids are the same value.
static inline bool imp_body_id_equal(imp_body_id a, imp_body_id b)
{
	return a.index == b.index && a.generation == b.generation && a.world == b.world;
}

/// True for the null id (zeroed: what a query reports when it found no
/// body), which names no body of any world.
static inline bool imp_body_id_is_null(imp_body_id id)
{
	return id.index == 0;
}

/// Static bodies never move on their own and never pair with each other;
/// kinematic and dynamic bodies move (issue of the time-of-impact step:
/// kinematic bodies follow paths, dynamic ones velocities). Every type may
/// be given a new pose at any time.
typedef enum imp_body_type {
	IMP_BODY_STATIC = 0,
	IMP_BODY_KINEMATIC = 1,
	IMP_BODY_DYNAMIC = 2,
} imp_body_type;

/// Which bodies may pair (Box2D's rule): two bodies of the same nonzero
/// group always pair when the group is positive and never when it is
/// negative; otherwise they pair when each one's category shares a bit with
/// the other's mask ((a.category & b.mask) != 0 and (b.category & a.mask) != 0).
typedef struct imp_filter {
	uint64_t category; ///< the bits this body is
	uint64_t mask;     ///< the bits it pairs with
	int32_t group;
} imp_filter;

/// category 1, mask all bits, group 0.
IMP_API imp_filter imp_default_filter(void);

/// True when bodies with these filters may pair.
IMP_API bool imp_filter_should_pair(imp_filter a, imp_filter b);

/// How to make a body: fill from imp_default_body_def() and change fields.
/// The pose used is pose2 in a 2D world, pose3 in a 3D one.
typedef struct imp_body_def {
	imp_body_type type;
	const imp_shape *shape; ///< required; its dimension must be the world's. Any kind: non-convex ones
	                        ///< (meshes, height fields, compounds, chains) are boxed as
	                        ///< imp_shape_aabb2/3 boxes them (their hierarchy's upper nodes turned)
	imp_pose2 pose2;
	imp_pose3 pose3;
	imp_filter filter;
	void *user_data;
} imp_body_def;

/// Dynamic, no shape, identity poses, the default filter, no user data.
IMP_API imp_body_def imp_default_body_def(void);

/// Adds a body. Errors (the world unchanged, *out untouched):
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (inside the callback of
/// imp_world_for_each_pair or of the step, or while a query runs),
/// IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH, IMP_ERR_BAD_BODY_TYPE,
/// IMP_ERR_NOT_FINITE / IMP_ERR_BAD_ROTATION / IMP_ERR_OUT_OF_RANGE (pose),
/// IMP_ERR_NOT_FINITE (a user support's point for the body's box),
/// IMP_ERR_OUT_OF_RANGE (a box not finite), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_world_add_body(imp_world *world, const imp_body_def *def, imp_body_id *out);

/// Removes a body. The pairs it touched are reported as ended by the next
/// update (under this id). Errors (the world unchanged):
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (as imp_world_add_body),
/// IMP_ERR_BAD_ID (a stale or foreign id), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_world_remove_body(imp_world *world, imp_body_id id);

/// True when the id names a body of this world.
IMP_API bool imp_body_is_valid(const imp_world *world, imp_body_id id);

/// Moves a body (teleports it: no sweep). The next update looks at it.
/// Errors (the world unchanged): IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (as
/// imp_world_add_body), IMP_ERR_DIMENSION_MISMATCH (a world of the other
/// dimension), IMP_ERR_BAD_ID, the pose's (IMP_ERR_NOT_FINITE,
/// IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE), the box's (as
/// imp_world_add_body), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_body_set_pose2(imp_world *world, imp_body_id id, imp_pose2 pose);
IMP_API imp_status imp_body_set_pose3(imp_world *world, imp_body_id id, imp_pose3 pose);

/// Moves many bodies at once: body ids[i] to poses[i] for i in 0 ..
/// count - 1, as many imp_body_set_pose2/3 calls in that order (a body
/// named twice takes its last pose), or none of them. For a frame that
/// moves many bodies: the world's checks are made once, and a body that
/// keeps its rotation does not compute its box again. Errors (the world
/// unchanged: every entry is checked before any is stored):
/// IMP_ERR_NULL_ARGUMENT (world, or ids or poses when count > 0),
/// IMP_ERR_BUSY (as imp_world_add_body), IMP_ERR_DIMENSION_MISMATCH (a
/// world of the other dimension), IMP_ERR_BAD_COUNT (count < 0),
/// IMP_ERR_BAD_ID (any entry's), the poses' (IMP_ERR_NOT_FINITE,
/// IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE), the boxes' (as
/// imp_world_add_body), IMP_ERR_OUT_OF_MEMORY. The error is the first
/// entry's that fails.
IMP_API imp_status imp_world_set_poses2(imp_world *world, const imp_body_id *ids, const imp_pose2 *poses, int count);
IMP_API imp_status imp_world_set_poses3(imp_world *world, const imp_body_id *ids, const imp_pose3 *poses, int count);

/// The body's pose; inside the contact callback of imp_world_step, its pose
/// at the contact's time. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_ID,
/// IMP_ERR_DIMENSION_MISMATCH (a world of the other dimension).
IMP_API imp_status imp_body_get_pose2(const imp_world *world, imp_body_id id, imp_pose2 *out);
IMP_API imp_status imp_body_get_pose3(const imp_world *world, imp_body_id id, imp_pose3 *out);

/// The body's bounding box at its current pose (exact, not enlarged); inside
/// the contact callback of imp_world_step, at its pose at the contact's time.
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_ID, IMP_ERR_DIMENSION_MISMATCH,
/// IMP_ERR_NOT_FINITE (a user support's point).
IMP_API imp_status imp_body_get_aabb2(const imp_world *world, imp_body_id id, imp_aabb2 *out);
IMP_API imp_status imp_body_get_aabb3(const imp_world *world, imp_body_id id, imp_aabb3 *out);

/// The body's type and shape (any dimension). Errors: IMP_ERR_NULL_ARGUMENT,
/// IMP_ERR_BAD_ID.
IMP_API imp_status imp_body_get_type(const imp_world *world, imp_body_id id, imp_body_type *out);
IMP_API imp_status imp_body_get_shape(const imp_world *world, imp_body_id id, const imp_shape **out);

/// The body's filter. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_ID.
IMP_API imp_status imp_body_get_filter(const imp_world *world, imp_body_id id, imp_filter *out);
/// New filter bits; the next update re-pairs the body. Errors (the world
/// unchanged): IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (as imp_world_add_body),
/// IMP_ERR_BAD_ID, IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_body_set_filter(imp_world *world, imp_body_id id, imp_filter filter);

/// The body's user data. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_ID.
IMP_API imp_status imp_body_get_user_data(const imp_world *world, imp_body_id id, void **out);
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_ID, IMP_ERR_BUSY (while a
/// query runs: other threads may read it).
IMP_API imp_status imp_body_set_user_data(imp_world *world, imp_body_id id, void *user_data);

/// Number of bodies in the world (0 for NULL).
IMP_API int imp_world_body_count(const imp_world *world);

/// Brings the pairs up to date with the bodies' poses: the broad phase looks
/// at the bodies added or moved since the last update, the narrow phase
/// (Level 1, or Level 2 with a margin) confirms the pairs whose boxes
/// overlap. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (as
/// imp_world_add_body), IMP_ERR_OUT_OF_MEMORY (nothing changes: the
/// touching pairs, the events of the last update that succeeded and the
/// state hash stay; a later update does the work).
IMP_API imp_status imp_world_update(imp_world *world);

/// Called for each touching pair; return false to stop.
typedef bool imp_pair_fn(imp_body_id a, imp_body_id b, void *user);

/// Calls fn for every pair touching at the last update, each pair once, a
/// before b in index order. While fn runs, calls that change the world's
/// bodies or pairs (add, remove, set pose or filter, target poses, update,
/// step) return IMP_ERR_BUSY; velocities and user data may be set (an
/// impulse loop over the pairs), and queries answer. Errors:
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (inside the step's contact callback).
IMP_API imp_status imp_world_for_each_pair(const imp_world *world, imp_pair_fn *fn, void *user);

/// A pair that began or ended touching; a's index is below b's.
typedef struct imp_pair_event {
	imp_body_id a, b;
} imp_pair_event;

/// The events of the last update, sorted by (a, b) index. The arrays stay
/// valid until the next update or body removal. An ended pair whose body
/// was removed names the removed id.
typedef struct imp_pair_events {
	const imp_pair_event *begin;
	int begin_count;
	const imp_pair_event *end;
	int end_count;
} imp_pair_events;

/// The events of the last update (all empty for NULL).
IMP_API imp_pair_events imp_world_get_events(const imp_world *world);

/// What the last update did.
typedef struct imp_world_stats {
	int bodies;
	int moved;         ///< bodies added or moved since the update before
	int broad_moves;   ///< bodies whose enlarged box had to change in the broad phase
	int candidates;    ///< pairs the broad phase holds (boxes close or overlapping)
	int box_tests;     ///< exact box tests of candidate pairs
	int narrow_calls;  ///< narrow-phase queries
	int touching;      ///< touching pairs after the update
	int begin_count;
	int end_count;
	int broad_swaps;   ///< sort-and-sweep: end-point exchanges
	int broad_cells;   ///< hash: cells entered or left
	int broad_tests;   ///< box tests inside the broad phase
	int settled;       ///< candidate pairs the update left without a box test: the bodies had not moved
	                   ///< far enough since the last test to change whether the boxes overlap. Those
	                   ///< of moved bodies; when a quarter or more of the bodies moved, the update walks
	                   ///< every pair and counts every settled one, moved or not (it reads no body)
} imp_world_stats;

/// Zeroed for NULL.
IMP_API imp_world_stats imp_world_get_stats(const imp_world *world);

/// A 64-bit hash of the world's state: every body (id, type, filter, pose,
/// box bits, motion, and whether it changed since the last update that
/// succeeded), the clock and every touching pair, in index order.
/// Pointers (shapes, user data) are left out, so equal scenes hash equal
/// across runs. 0 for NULL.
IMP_API uint64_t imp_world_state_hash(const imp_world *world);

// ---------------------------------------------------------------------------
// Motion and the time-of-impact step (Mirtich's scheduling; docs/toi.md).
//
// Kinematic and dynamic bodies carry a motion: a linear velocity of their
// origin and an angular velocity about it (a scalar in 2D, a vector in 3D),
// or a target pose to reach at the end of the next step. imp_world_step()
// advances the world by dt: the broad phase takes each moving body's box
// swept over the step, every pair that survives goes into a priority queue
// keyed by a lower bound on its time of impact, and the queue is processed
// in time order: a pair is looked at (Level 3, with its simplex cache) only
// when it can have come within the contact tolerance. Contacts therefore
// come out in time order and none is stepped over, however fast a body is.
// docs/toi.md describes the method and its guarantees.

/// Sets a body's motion: the velocity of its origin and its angular
/// velocity (radians per unit time, counter-clockwise) about the origin; it
/// holds from now until changed, and drops a target pose. Allowed inside the
/// contact callback of imp_world_step (the change takes effect at the
/// contact's time). Errors (the motion unchanged): IMP_ERR_NULL_ARGUMENT,
/// IMP_ERR_BAD_ID, IMP_ERR_DIMENSION_MISMATCH (a world of the other
/// dimension: 3D for imp_body_set_velocity2, 2D for imp_body_set_velocity3),
/// IMP_ERR_STATIC_BODY, IMP_ERR_NOT_FINITE, IMP_ERR_OUT_OF_RANGE (a
/// component beyond IMP_MAX_COORDINATE; inside the step's callback also a
/// path over the rest of the step that would leave the range),
/// IMP_ERR_BUSY (while a query runs), IMP_ERR_OUT_OF_MEMORY (outside the
/// step's callback).
IMP_API imp_status imp_body_set_velocity2(imp_world *world, imp_body_id id, imp_vec2 linear, double angular);
/// The 3D form: `angular` is the rotation axis times the rate (radians per
/// unit time, right-handed).
IMP_API imp_status imp_body_set_velocity3(imp_world *world, imp_body_id id, imp_vec3 linear, imp_vec3 angular);

/// A body's velocity as set (during a step towards a target pose: the
/// velocity that reaches it; zero for a static body, which cannot be given
/// one). Either output may be NULL, not both. Errors: IMP_ERR_NULL_ARGUMENT,
/// IMP_ERR_BAD_ID, IMP_ERR_DIMENSION_MISMATCH.
IMP_API imp_status imp_body_get_velocity2(const imp_world *world, imp_body_id id, imp_vec2 *linear,
					  double *angular);
IMP_API imp_status imp_body_get_velocity3(const imp_world *world, imp_body_id id, imp_vec3 *linear,
					  imp_vec3 *angular);

/// Gives a kinematic or dynamic body the pose it must reach at the end of
/// the next step with dt > 0 (a planner's path, one waypoint a step): over
/// that step its origin moves on the straight segment and it turns about
/// its origin at a constant rate through the smaller angle (2D: at most pi;
/// 3D: the shorter arc), and it ends exactly on the target. Then it stops
/// (velocity zero) until given another target or a velocity. A velocity set
/// later drops the target. Errors (the motion unchanged):
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (as imp_world_add_body: the contact
/// callback included), IMP_ERR_DIMENSION_MISMATCH, IMP_ERR_BAD_ID,
/// IMP_ERR_STATIC_BODY, the pose's (IMP_ERR_NOT_FINITE,
/// IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_body_set_target_pose2(imp_world *world, imp_body_id id, imp_pose2 target);
IMP_API imp_status imp_body_set_target_pose3(imp_world *world, imp_body_id id, imp_pose3 target);

/// A contact found by a step: the first time in the step at which a pair
/// was found within the contact tolerance (or the step's start, for a pair
/// that was already within it). Every pair whose distance comes within half
/// the tolerance is reported, no later than that moment; a pair that only
/// grazes, its distance between half the tolerance and the tolerance, may
/// or may not be.
typedef struct imp_contact_event {
	imp_body_id a, b;     ///< a's index below b's
	double t;             ///< time of impact from the step's start, in [0, dt]
	double time;          ///< the same on the world's clock (imp_world_time before the step + t)
	double distance;      ///< the distance then (at most the tolerance; negative when overlapping)
	imp_vec3 point_a;     ///< witness point on a then (world frame; z = 0 in 2D)
	imp_vec3 point_b;     ///< witness point on b then
	imp_vec3 normal;      ///< unit, from a to b (z = 0 in 2D)
	double normal_speed;  ///< (velocity of b's point - velocity of a's point) . normal, from the
	                      ///< bodies' motions then: negative when they approach
	bool capped;          ///< the pair reached max_pair_calls: this is its report at the step's
	                      ///< end (t = dt), where its contact may have been missed before
} imp_contact_event;

/// Called for each contact, in time order, during the step. It may change
/// the velocities of any bodies (imp_body_set_velocity2/3: the Impulse loop);
/// the pairs of a body whose motion changed are scheduled again from the
/// contact's time, so the queue stays correct. Calls that add, remove,
/// teleport or re-filter bodies, or step or update the world, return
/// IMP_ERR_BUSY.
typedef void imp_contact_fn(const imp_contact_event *event, void *user);

/// Options of a step: fill from imp_default_step_opts().
typedef struct imp_step_opts {
	double tolerance;       ///< contact when the distance is at most this; 0: 1e-6 x the smaller of
	                        ///< the two shapes' bound diameters (the larger when one is a point), per
	                        ///< pair (why not the pairwise query's rule: docs/toi.md);
	                        ///< 0 <= tolerance <= IMP_MAX_COORDINATE
	int max_pair_calls;     ///< narrow-phase calls one pair may take in one step, >= 1 (a look at a
	                        ///< pair with a non-convex body counts one per pair of children it
	                        ///< answers); a pair that reaches the cap is left for the rest of the
	                        ///< step and reported again at its end, with one more look
	                        ///< (imp_contact_event.capped; see imp_step_stats)
	imp_contact_fn *on_contact; ///< optional
	void *user;             ///< passed to on_contact
	double resting_speed;   ///< a pair within the tolerance that approaches is reported again only
	                        ///< when, at its speed, it would overlap by more than the tolerance at
	                        ///< the step's end (slower, it counts as resting), or, when this is > 0,
	                        ///< when it approaches faster than this; >= 0, finite (0: that rule alone)
} imp_step_opts;

/// tolerance 0 (automatic), 65536 narrow-phase calls per pair, resting speed
/// 0, no callback.
IMP_API imp_step_opts imp_default_step_opts(void);

/// How a step ended.
typedef enum imp_step_state {
	IMP_STEP_COMPLETE = 0,  ///< every pair processed to the end of the step
	IMP_STEP_PAIR_CAPPED,   ///< some pairs reached max_pair_calls: a contact of theirs may be missing
} imp_step_state;

/// What the last step did.
typedef struct imp_step_stats {
	imp_step_state state;
	int moving;          ///< bodies with a motion in the step
	int candidates;      ///< pairs whose swept boxes overlap (at least one body moving)
	int queued;          ///< pairs put in the queue (the others had a time of impact past the step)
	int queue_peak;      ///< the most pairs in the queue at once
	int narrow_calls;    ///< narrow-phase queries (Level 3; a pair of children one each)
	int64_t heap_ops;    ///< pushes, pops, removals and key changes of the queue
	int events;          ///< contact events
	int rescheduled;     ///< pairs scheduled again after a motion changed in the callback
	int capped_pairs;    ///< pairs that reached max_pair_calls
	int most_pair_calls; ///< the most narrow-phase calls one pair took (to set max_pair_calls by)
	int broad_moves;     ///< bodies whose enlarged box had to change in the broad phase
	int sweeps;          ///< sweeps over pairs queued again at the time they were looked at
} imp_step_stats;

/// Advances the world by dt >= 0 (see the top of this section). Bodies end
/// at their poses at t + dt; the contacts of the step are then in
/// imp_world_get_contacts(), in nondecreasing time order, the order in which
/// they were found and given to opts->on_contact (NULL opts: the defaults);
/// equal times come out in the order of the pairs' body slots, whatever the
/// broad phase, and pairs queued again at that time by the callback in
/// sweeps after them (docs/toi.md). A pair within the tolerance is reported
/// the first time in the step it is found so (a resting contact: once per
/// step), and again when it approaches (see imp_step_opts.resting_speed)
/// after a callback changed either body's motion, or after a report that
/// was not of an approach (a turn bringing a resting body's far side down);
/// an approach left as it was is not reported again, and a pair overlapping
/// by more than the tolerance only once it has sunk half the tolerance
/// deeper. Pairs neither of whose
/// bodies moves are not looked at. The touching pairs of imp_world_update()
/// are brought up to date at the next update (the moved bodies are marked
/// moved); a step's contact (within the tolerance) is a touching pair of the
/// update only within the world's margin: docs/toi.md says how they differ.
/// Inside the callback, imp_body_get_pose2/3 and imp_body_get_aabb2/3 give a
/// body at the contact's time.
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BUSY (as imp_world_add_body),
/// IMP_ERR_NOT_FINITE (dt), IMP_ERR_OUT_OF_RANGE (dt negative or beyond
/// IMP_MAX_COORDINATE, a moving body that would leave the coordinate range
/// or whose shape reaches farther than it from the body's origin, or a
/// target pose whose velocity over dt would be beyond it), IMP_ERR_BAD_OPTIONS: nothing
/// changed. IMP_ERR_OUT_OF_MEMORY: the world as it was (poses, boxes,
/// clock, state hash) and no contacts; the callback may have been called
/// for contacts before the failure, and velocities it set are put back.
IMP_API imp_status imp_world_step(imp_world *world, double dt, const imp_step_opts *opts);

/// The contacts of the last step (empty for NULL); valid until the next
/// step.
typedef struct imp_contact_events {
	const imp_contact_event *items;
	int count;
} imp_contact_events;
IMP_API imp_contact_events imp_world_get_contacts(const imp_world *world);

/// Zeroed for NULL.
IMP_API imp_step_stats imp_world_get_step_stats(const imp_world *world);

/// The world's clock: the sum of the dt of the steps taken (0 for NULL).
IMP_API double imp_world_time(const imp_world *world);

// ---------------------------------------------------------------------------
// Queries for motion planners: a shape at a pose (or moving between two
// poses) against the bodies of the world, as they are now (poses set since
// the last update included). The first query makes the broad phase's query
// tree, which every change of the world then keeps up to date (made once,
// whatever the threads asking); none rebuilds anything: each asks the tree
// for the bodies whose boxes can matter. A query keeps its candidates in
// memory of its own (on the stack up to 64, else from the world's
// allocator, freed when it returns) and writes nothing of the world's, so
// queries may run on several threads at once, and inside each other's
// callbacks, while no thread changes the world. Results are the same for
// every broad phase, and callbacks come in body index order (nearest and
// distance queries: nearest first). While a query runs (its callbacks, and
// the support callbacks of user shapes, included), calls that change the
// world return IMP_ERR_BUSY, on any thread. Queries are refused with
// IMP_ERR_BUSY inside the step's contact callback.
//
// Each query has a 2D and a 3D function (suffix 2 or 3, taking imp_pose2 or
// imp_pose3); the name without the suffix picks one by the type of the
// pose (C11: _Generic macros; C++: overloads). Common errors of the queries
// of a shape (overlap, nearest, query_distance, casts, motion_free), with
// nothing written:
// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH (the
// shape's or the call's dimension is not the world's), the pose's error
// (IMP_ERR_NOT_FINITE, IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE),
// IMP_ERR_NOT_FINITE / IMP_ERR_OUT_OF_RANGE also for the shape's box at the
// pose (a user support's point not finite; a box not finite), IMP_ERR_BAD_ID
// (an `ignore` id that is neither zeroed nor a live body), IMP_ERR_BUSY
// (inside the step's contact callback), IMP_ERR_OUT_OF_MEMORY (the query
// buffer could not grow). imp_world_distance, imp_world_clearance and the
// rays have lists of their own.

/// Which bodies a query sees: those whose filter pairs with `filter`
/// (imp_filter_should_pair), except `ignore`: the querying body itself, so
/// that a body in the world can ask about its surroundings (a zeroed id
/// ignores nothing).
typedef struct imp_query_filter {
	imp_filter filter;
	imp_body_id ignore;
} imp_query_filter;

/// The default filter (sees every body with the default filter) and no
/// body ignored. A NULL filter pointer means the same.
IMP_API imp_query_filter imp_default_query_filter(void);

/// A body found by a distance query. 2D worlds leave z at 0.
typedef struct imp_query_result {
	imp_body_id body;     ///< the body (zeroed: none found)
	double distance;      ///< signed: > 0 apart, < 0 overlapping (minus the penetration depth)
	imp_vec3 point;       ///< witness on the query shape (or body a), world frame
	imp_vec3 body_point;  ///< witness on the body; normal . (body_point - point) == distance
	imp_vec3 normal;      ///< unit, from the query shape towards the body
} imp_query_result;

/// Called with each body found; return false to stop the query.
typedef bool imp_query_fn(imp_body_id id, void *user);

/// Every body overlapping `shape` at `pose` (touching counts), in index
/// order; fn may stop early (the call still returns IMP_OK).
IMP_API imp_status imp_world_overlap_shape2(const imp_world *world, const imp_shape *shape, imp_pose2 pose,
					    const imp_query_filter *filter, imp_query_fn *fn, void *user);
IMP_API imp_status imp_world_overlap_shape3(const imp_world *world, const imp_shape *shape, imp_pose3 pose,
					    const imp_query_filter *filter, imp_query_fn *fn, void *user);

/// Whether any body overlaps `shape` at `pose` (touching counts): the state
/// validity check, which stops at the first overlap found.
IMP_API imp_status imp_world_overlap_any2(const imp_world *world, const imp_shape *shape, imp_pose2 pose,
					  const imp_query_filter *filter, bool *out);
IMP_API imp_status imp_world_overlap_any3(const imp_world *world, const imp_shape *shape, imp_pose3 pose,
					  const imp_query_filter *filter, bool *out);

/// The body nearest to `shape` at `pose` with a distance at most
/// max_distance (which may be INFINITY): the smallest signed distance, so
/// that among overlapping bodies the deepest penetration comes first (ties:
/// the lower index). Branch and bound: candidates are taken in order of a
/// lower bound from their boxes (the gap between boxes, or minus the
/// smallest overlap of boxes that overlap: a penetration can be no deeper),
/// and the search stops when the bound passes the best distance so far.
/// None within max_distance: IMP_OK with out->body zeroed and
/// out->distance INFINITY. Errors as above, plus IMP_ERR_NOT_FINITE for a
/// NaN max_distance.
IMP_API imp_status imp_world_nearest2(const imp_world *world, const imp_shape *shape, imp_pose2 pose,
				      double max_distance, const imp_query_filter *filter, imp_query_result *out);
IMP_API imp_status imp_world_nearest3(const imp_world *world, const imp_shape *shape, imp_pose3 pose,
				      double max_distance, const imp_query_filter *filter, imp_query_result *out);

/// Batches: out[i] is the answer of imp_world_overlap_any2/3 (or
/// imp_world_nearest2/3) for poses[i], the same bit for bit. Consecutive
/// poses (a path) help each other: each asks first the body that
/// overlapped, or was nearest to, the pose before. The poses are cut into
/// ranges of 64 spread over the world's workers (imp_world_def's
/// worker_count), unless another batch holds them: then on the calling
/// thread. count >= 0. Errors: as the single queries, plus
/// IMP_ERR_BAD_COUNT. The arguments (shape, filter, count, max_distance,
/// every pose's own values) are checked before any answer is written
/// (nothing written then). An error found while answering (out of memory,
/// a user support's point not finite, a box not finite at a pose) gives
/// the status of the lowest pose that failed, whose answer is not written,
/// and answers of other poses may have been written.
IMP_API imp_status imp_world_overlap_any_batch2(const imp_world *world, const imp_shape *shape, const imp_pose2 *poses,
						int count, const imp_query_filter *filter, bool *out);
IMP_API imp_status imp_world_overlap_any_batch3(const imp_world *world, const imp_shape *shape, const imp_pose3 *poses,
						int count, const imp_query_filter *filter, bool *out);
IMP_API imp_status imp_world_nearest_batch2(const imp_world *world, const imp_shape *shape, const imp_pose2 *poses,
					    int count, double max_distance, const imp_query_filter *filter,
					    imp_query_result *out);
IMP_API imp_status imp_world_nearest_batch3(const imp_world *world, const imp_shape *shape, const imp_pose3 *poses,
					    int count, double max_distance, const imp_query_filter *filter,
					    imp_query_result *out);

/// Called with each body within the distance, nearest first; returns the
/// bound for the rest of the query: max_distance (or any larger value) to
/// go on, a smaller one to prune farther bodies, -INFINITY to stop.
typedef double imp_distance_fn(const imp_query_result *hit, void *user);

/// Every body within max_distance of `shape` at `pose` (signed distances,
/// so overlapping bodies come first), with exact distances and witness
/// points, in order of distance (ties: index). max_distance must be finite
/// (IMP_ERR_NOT_FINITE otherwise); a negative one finds only the bodies
/// overlapping the shape by at least its magnitude.
IMP_API imp_status imp_world_query_distance2(const imp_world *world, const imp_shape *shape, imp_pose2 pose,
					     double max_distance, const imp_query_filter *filter,
					     imp_distance_fn *fn, void *user);
IMP_API imp_status imp_world_query_distance3(const imp_world *world, const imp_shape *shape, imp_pose3 pose,
					     double max_distance, const imp_query_filter *filter,
					     imp_distance_fn *fn, void *user);

/// The signed distance between two bodies of the world, with witness
/// points (point on a, body_point on b, normal from a to b; body is b),
/// warm-started from the simplex cache of the pair when the world keeps it.
/// An answer that stops at the narrow phase's iteration limit is asked again
/// with higher limits (up to 256 times the default), as the planner queries
/// do. When a user shape's support returns a non-finite point (the pairwise
/// state IMP_STATE_DEGENERATE) there is no answer: the call returns IMP_OK
/// with distance, points and normal NaN, and body b.
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_ID (either id, or a and b the
/// same body), IMP_ERR_BUSY (inside the step's contact callback).
IMP_API imp_status imp_world_distance(const imp_world *world, imp_body_id a, imp_body_id b, imp_query_result *closest);

/// Called with each pair at most the margin apart: a, and the result with b
/// as its body; return false to stop.
typedef bool imp_clearance_fn(imp_body_id a, const imp_query_result *pair, void *user);

/// The clearance of the whole world: every pair of bodies that may pair
/// (their filters, and not both static) at a signed distance at most
/// `margin`, each pair once (a's index below b's), in order of a then b.
/// Errors (fn not called): IMP_ERR_NULL_ARGUMENT (world or fn), IMP_ERR_BUSY
/// (inside the step's contact callback), IMP_ERR_BAD_RADIUS (margin
/// negative or not finite), IMP_ERR_OUT_OF_MEMORY; no other error of the
/// shape queries applies.
IMP_API imp_status imp_world_clearance(const imp_world *world, double margin, imp_clearance_fn *fn, void *user);

/// How a cast ended.
typedef enum imp_cast_state {
	IMP_CAST_FREE = 0, ///< no body comes within the tolerance over the whole motion: body zeroed, t = 1
	IMP_CAST_HIT,      ///< `body` comes within the tolerance at t, and no body before t
	IMP_CAST_GAVE_UP,  ///< no body before t, but the search against `body` ran out of its budget (or a user
	                   ///< support failed) at t: the motion past t is not proven free
} imp_cast_state;

/// The first contact of a shape moving from one pose to another.
typedef struct imp_cast_hit {
	imp_body_id body;  ///< the body hit first, or given up on (zeroed: none)
	double t;          ///< fraction of the motion at the contact, in [0, 1] (1 when no hit)
	imp_vec3 point;    ///< contact point on the shape at t (world frame)
	imp_vec3 normal;   ///< unit, from the moving shape towards the body
	imp_pose3 pose;    ///< the shape's pose at t (2D: x, y and a rotation about z)
	imp_cast_state state; ///< free, hit, or gave up (see imp_cast_state)
	bool started_inside;  ///< hit at t = 0: the shape at pose_from overlaps the body (or is within the
	                      ///< tolerance of it); point is then the shape's point deepest in the body and
	                      ///< normal the direction of least penetration (moving the shape along -normal by
	                      ///< the depth separates them), not a contact of the motion
} imp_cast_hit;

/// Options of the casts.
typedef struct imp_cast_options {
	double tolerance;   ///< contact when the distance is at most this; 0: 1e-6 x the sum of the two shapes' reach
	int max_iterations; ///< the budget of narrow-phase calls against one body, at least 1 (a query on a
	                    ///< pair with a non-convex side counts each pair of children it answers)
} imp_cast_options;

/// tolerance 0 (automatic), 4096 iterations: what imp_world_cast_shape2/3,
/// the rays and imp_world_motion_free2/3 use.
IMP_API imp_cast_options imp_default_cast_options(void);

/// Motion validity: `shape` moves from pose_from to pose_to over t in
/// [0, 1], its origin on the straight segment while it turns through the
/// smaller angle (3D: the shorter arc) at a constant rate, and the first
/// body it comes within the time-of-impact tolerance of is reported (the
/// conservative advancement of imp_time_of_impact2/3: no body is passed
/// through, however long the motion). The time of impact runs against a
/// body in runs of 64 queries; a run that stops at its limit is resumed
/// where it stopped while it advanced the time and the budget
/// (options->max_iterations narrow-phase calls against that body: one a
/// query, or, for a pair with a non-convex side, one per pair of children
/// the query answers) lasts. Otherwise the
/// cast gives up there: IMP_CAST_GAVE_UP, with the body and the time it got
/// to (nothing met before it), never IMP_CAST_FREE. A body overlapping the
/// shape at pose_from is hit at t = 0 with started_inside set.
/// IMP_ERR_OUT_OF_RANGE also for a motion longer than IMP_MAX_COORDINATE
/// along an axis (both ends within range); _ex: IMP_ERR_BAD_OPTIONS for a
/// tolerance negative, not finite or above IMP_MAX_COORDINATE, or
/// max_iterations < 1 (NULL options: the defaults).
IMP_API imp_status imp_world_cast_shape2(const imp_world *world, const imp_shape *shape, imp_pose2 pose_from,
					 imp_pose2 pose_to, const imp_query_filter *filter, imp_cast_hit *hit);
IMP_API imp_status imp_world_cast_shape3(const imp_world *world, const imp_shape *shape, imp_pose3 pose_from,
					 imp_pose3 pose_to, const imp_query_filter *filter, imp_cast_hit *hit);
IMP_API imp_status imp_world_cast_shape2_ex(const imp_world *world, const imp_shape *shape, imp_pose2 pose_from,
					    imp_pose2 pose_to, const imp_query_filter *filter,
					    const imp_cast_options *options, imp_cast_hit *hit);
IMP_API imp_status imp_world_cast_shape3_ex(const imp_world *world, const imp_shape *shape, imp_pose3 pose_from,
					    imp_pose3 pose_to, const imp_query_filter *filter,
					    const imp_cast_options *options, imp_cast_hit *hit);

/// Whether the motion of imp_world_cast_shape2/3 (default options) is free:
/// *out is true exactly when the cast's state would be IMP_CAST_FREE, with
/// the same guarantee (no body passed through). It stops at the first
/// contact it proves, not the earliest: an overlap at pose_to or at the
/// middle of the motion (one boolean query a candidate), or the first
/// candidate the time of impact meets or gives up on. Errors as imp_world_cast_shape2/3.
IMP_API imp_status imp_world_motion_free2(const imp_world *world, const imp_shape *shape, imp_pose2 pose_from,
					  imp_pose2 pose_to, const imp_query_filter *filter, bool *out);
IMP_API imp_status imp_world_motion_free3(const imp_world *world, const imp_shape *shape, imp_pose3 pose_from,
					  imp_pose3 pose_to, const imp_query_filter *filter, bool *out);

/// A body a ray meets.
typedef struct imp_ray_hit {
	imp_body_id body;  ///< zeroed: none
	double t;          ///< fraction along the ray, from + t (to - from), in [0, 1] (1 when no hit)
	imp_vec3 point;    ///< where the ray meets the body: the ray's point at t, from + t (to - from), which
	                   ///< is within the time-of-impact tolerance of the body (z = 0 in 2D)
	imp_vec3 normal;   ///< the body's outward normal there (against the ray)
	bool started_inside; ///< met at t = 0: `from` is inside the body (or within the tolerance of it); point
	                     ///< is then `from` and normal the unit (from - to) (zero when from == to)
} imp_ray_hit;

/// Called with each body a ray meets, nearest first; return false to stop.
typedef bool imp_ray_fn(const imp_ray_hit *hit, void *user);

/// The first body the segment from `from` to `to` meets (a point cast
/// along it: imp_world_cast_shape with a point, so exact to the
/// time-of-impact tolerance). A ray starting inside a body hits it at t =
/// 0 with started_inside set (see imp_ray_hit). A body the time of impact
/// gives up on (see imp_world_cast_shape2/3) is reported met where it
/// stopped: no body is passed through. The point shape is made with the
/// world. Errors, with nothing written: IMP_ERR_NULL_ARGUMENT (world, hit
/// or fn), IMP_ERR_DIMENSION_MISMATCH (the call's dimension is not the
/// world's), IMP_ERR_NOT_FINITE / IMP_ERR_OUT_OF_RANGE (an end point),
/// IMP_ERR_OUT_OF_RANGE (a segment longer than IMP_MAX_COORDINATE along an
/// axis), IMP_ERR_BAD_ID (the filter's `ignore`), IMP_ERR_BUSY (inside the
/// step's contact callback), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_world_ray_cast2(const imp_world *world, imp_vec2 from, imp_vec2 to, const imp_query_filter *filter,
				       imp_ray_hit *hit);
IMP_API imp_status imp_world_ray_cast3(const imp_world *world, imp_vec3 from, imp_vec3 to, const imp_query_filter *filter,
				       imp_ray_hit *hit);
/// Every body the segment meets, in order of t (ties: index).
IMP_API imp_status imp_world_ray_cast_all2(const imp_world *world, imp_vec2 from, imp_vec2 to,
					   const imp_query_filter *filter, imp_ray_fn *fn, void *user);
IMP_API imp_status imp_world_ray_cast_all3(const imp_world *world, imp_vec3 from, imp_vec3 to,
					   const imp_query_filter *filter, imp_ray_fn *fn, void *user);

#ifndef __cplusplus
#define imp_world_overlap_shape(world, shape, pose, filter, fn, user)                                      \
	_Generic((pose), imp_pose2: imp_world_overlap_shape2, imp_pose3: imp_world_overlap_shape3)(           \
		world, shape, pose, filter, fn, user)
#define imp_world_overlap_any(world, shape, pose, filter, out)                                              \
	_Generic((pose), imp_pose2: imp_world_overlap_any2, imp_pose3: imp_world_overlap_any3)(world, shape, \
												 pose, filter, out)
#define imp_world_nearest(world, shape, pose, max_distance, filter, result)                                 \
	_Generic((pose), imp_pose2: imp_world_nearest2, imp_pose3: imp_world_nearest3)(world, shape, pose,   \
											   max_distance, filter, result)
#define imp_world_query_distance(world, shape, pose, max_distance, filter, fn, user)                        \
	_Generic((pose), imp_pose2: imp_world_query_distance2, imp_pose3: imp_world_query_distance3)(         \
		world, shape, pose, max_distance, filter, fn, user)
#define imp_world_ray_cast(world, from, to, filter, hit)                                                     \
	_Generic((from), imp_vec2: imp_world_ray_cast2, imp_vec3: imp_world_ray_cast3)(world, from, to, filter, hit)
#define imp_world_ray_cast_all(world, from, to, filter, fn, user)                                             \
	_Generic((from), imp_vec2: imp_world_ray_cast_all2, imp_vec3: imp_world_ray_cast_all3)(world, from, to,  \
											     filter, fn, user)
#define imp_world_cast_shape_ex(world, shape, pose_from, pose_to, filter, options, hit)                    \
	_Generic((pose_from), imp_pose2: imp_world_cast_shape2_ex, imp_pose3: imp_world_cast_shape3_ex)(      \
		world, shape, pose_from, pose_to, filter, options, hit)
#define imp_world_motion_free(world, shape, pose_from, pose_to, filter, out)                                \
	_Generic((pose_from), imp_pose2: imp_world_motion_free2, imp_pose3: imp_world_motion_free3)(          \
		world, shape, pose_from, pose_to, filter, out)
#define imp_world_cast_shape(world, shape, pose_from, pose_to, filter, hit)                                 \
	_Generic((pose_from), imp_pose2: imp_world_cast_shape2, imp_pose3: imp_world_cast_shape3)(            \
		world, shape, pose_from, pose_to, filter, hit)
#endif

#ifdef __cplusplus
}

// C++: the names without the suffix as overloads on the pose's type.
inline imp_status imp_world_overlap_shape(const imp_world *w, const imp_shape *s, imp_pose2 p, const imp_query_filter *f,
					  imp_query_fn *fn, void *u)
{
	return imp_world_overlap_shape2(w, s, p, f, fn, u);
}
inline imp_status imp_world_overlap_shape(const imp_world *w, const imp_shape *s, imp_pose3 p, const imp_query_filter *f,
					  imp_query_fn *fn, void *u)
{
	return imp_world_overlap_shape3(w, s, p, f, fn, u);
}
inline imp_status imp_world_overlap_any(const imp_world *w, const imp_shape *s, imp_pose2 p, const imp_query_filter *f,
					bool *out)
{
	return imp_world_overlap_any2(w, s, p, f, out);
}
inline imp_status imp_world_overlap_any(const imp_world *w, const imp_shape *s, imp_pose3 p, const imp_query_filter *f,
					bool *out)
{
	return imp_world_overlap_any3(w, s, p, f, out);
}
inline imp_status imp_world_nearest(const imp_world *w, const imp_shape *s, imp_pose2 p, double d, const imp_query_filter *f,
				    imp_query_result *out)
{
	return imp_world_nearest2(w, s, p, d, f, out);
}
inline imp_status imp_world_nearest(const imp_world *w, const imp_shape *s, imp_pose3 p, double d, const imp_query_filter *f,
				    imp_query_result *out)
{
	return imp_world_nearest3(w, s, p, d, f, out);
}
inline imp_status imp_world_query_distance(const imp_world *w, const imp_shape *s, imp_pose2 p, double d,
					   const imp_query_filter *f, imp_distance_fn *fn, void *u)
{
	return imp_world_query_distance2(w, s, p, d, f, fn, u);
}
inline imp_status imp_world_query_distance(const imp_world *w, const imp_shape *s, imp_pose3 p, double d,
					   const imp_query_filter *f, imp_distance_fn *fn, void *u)
{
	return imp_world_query_distance3(w, s, p, d, f, fn, u);
}
inline imp_status imp_world_cast_shape(const imp_world *w, const imp_shape *s, imp_pose2 from, imp_pose2 to,
				       const imp_query_filter *f, imp_cast_hit *hit)
{
	return imp_world_cast_shape2(w, s, from, to, f, hit);
}
inline imp_status imp_world_cast_shape(const imp_world *w, const imp_shape *s, imp_pose3 from, imp_pose3 to,
				       const imp_query_filter *f, imp_cast_hit *hit)
{
	return imp_world_cast_shape3(w, s, from, to, f, hit);
}
inline imp_status imp_world_cast_shape_ex(const imp_world *w, const imp_shape *s, imp_pose2 from, imp_pose2 to,
					  const imp_query_filter *f, const imp_cast_options *o, imp_cast_hit *hit)
{
	return imp_world_cast_shape2_ex(w, s, from, to, f, o, hit);
}
inline imp_status imp_world_cast_shape_ex(const imp_world *w, const imp_shape *s, imp_pose3 from, imp_pose3 to,
					  const imp_query_filter *f, const imp_cast_options *o, imp_cast_hit *hit)
{
	return imp_world_cast_shape3_ex(w, s, from, to, f, o, hit);
}
inline imp_status imp_world_motion_free(const imp_world *w, const imp_shape *s, imp_pose2 from, imp_pose2 to,
					const imp_query_filter *f, bool *out)
{
	return imp_world_motion_free2(w, s, from, to, f, out);
}
inline imp_status imp_world_motion_free(const imp_world *w, const imp_shape *s, imp_pose3 from, imp_pose3 to,
					const imp_query_filter *f, bool *out)
{
	return imp_world_motion_free3(w, s, from, to, f, out);
}
inline imp_status imp_world_ray_cast(const imp_world *w, imp_vec2 from, imp_vec2 to, const imp_query_filter *f,
				     imp_ray_hit *hit)
{
	return imp_world_ray_cast2(w, from, to, f, hit);
}
inline imp_status imp_world_ray_cast(const imp_world *w, imp_vec3 from, imp_vec3 to, const imp_query_filter *f,
				     imp_ray_hit *hit)
{
	return imp_world_ray_cast3(w, from, to, f, hit);
}
inline imp_status imp_world_ray_cast_all(const imp_world *w, imp_vec2 from, imp_vec2 to, const imp_query_filter *f,
					 imp_ray_fn *fn, void *u)
{
	return imp_world_ray_cast_all2(w, from, to, f, fn, u);
}
inline imp_status imp_world_ray_cast_all(const imp_world *w, imp_vec3 from, imp_vec3 to, const imp_query_filter *f,
					 imp_ray_fn *fn, void *u)
{
	return imp_world_ray_cast_all3(w, from, to, f, fn, u);
}
#endif

#endif
