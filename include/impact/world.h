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
/// A world is used by one thread at a time.
#ifndef IMPACT_WORLD_H
#define IMPACT_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "math.h"
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

/// How to make a world: fill from imp_default_world_def() and change fields.
typedef struct imp_world_def {
	int dim;                   ///< 2 or 3
	imp_broad_kind broad_phase;
	double hash_alpha;         ///< hash cells are 1/beta to 1/alpha times a box's size: 0 < alpha < 1
	double hash_beta;          ///< 1 <= beta <= 1e6 (a box spans at most (beta + 1)^dim cells of its level)
	double fat_ratio;          ///< the broad phase stores each box enlarged by this fraction of its
	                           ///< largest side on every side, so that small motions inside it
	                           ///< cost no broad-phase work; 0 <= fat_ratio <= 1e6, 0 = exact boxes
	double margin;             ///< pairs closer than this count as touching (a security margin:
	                           ///< needs the distance query); 0 <= margin <= IMP_MAX_COORDINATE,
	                           ///< 0 = touching or overlapping
	bool narrow_phase;         ///< false: pairs whose bounding boxes overlap count, no narrow phase
	imp_allocator allocator;   ///< zeroed: malloc
	int body_capacity;         ///< initial room for bodies (grows as needed), 0..2^30
	int pair_capacity;         ///< initial room for candidate pairs (grows as needed), 0..2^30
} imp_world_def;

/// dim 3, the hash with alpha 0.5 and beta 1 (Mirtich's example), fat_ratio
/// 0.1, margin 0, narrow phase on, malloc, no initial capacities.
IMP_API imp_world_def imp_default_world_def(void);

/// Makes a world. On error *out is untouched and nothing leaks:
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_OPTIONS (dim, kind, alpha, beta,
/// fat_ratio, capacities), IMP_ERR_BAD_RADIUS (margin), IMP_ERR_OUT_OF_MEMORY.
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
/// negative; otherwise they pair when each one's category is in the other's
/// mask.
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
	const imp_shape *shape; ///< required; its dimension must be the world's
	imp_pose2 pose2;
	imp_pose3 pose3;
	imp_filter filter;
	void *user_data;
} imp_body_def;

/// Dynamic, no shape, identity poses, the default filter, no user data.
IMP_API imp_body_def imp_default_body_def(void);

/// Adds a body. Errors (the world unchanged, *out untouched):
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH,
/// IMP_ERR_NOT_FINITE / IMP_ERR_BAD_ROTATION / IMP_ERR_OUT_OF_RANGE (pose),
/// IMP_ERR_BAD_OPTIONS (type), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_world_add_body(imp_world *world, const imp_body_def *def, imp_body_id *out);

/// Removes a body. The pairs it touched are reported as ended by the next
/// update (under this id). IMP_ERR_BAD_ID for a stale or foreign id.
IMP_API imp_status imp_world_remove_body(imp_world *world, imp_body_id id);

/// True when the id names a body of this world.
IMP_API bool imp_body_is_valid(const imp_world *world, imp_body_id id);

/// Moves a body (teleports it: no sweep). The next update looks at it.
IMP_API imp_status imp_body_set_pose2(imp_world *world, imp_body_id id, imp_pose2 pose);
IMP_API imp_status imp_body_set_pose3(imp_world *world, imp_body_id id, imp_pose3 pose);

IMP_API imp_status imp_body_get_pose2(const imp_world *world, imp_body_id id, imp_pose2 *out);
IMP_API imp_status imp_body_get_pose3(const imp_world *world, imp_body_id id, imp_pose3 *out);

/// The body's bounding box at its current pose (exact, not enlarged).
IMP_API imp_status imp_body_get_aabb2(const imp_world *world, imp_body_id id, imp_aabb2 *out);
IMP_API imp_status imp_body_get_aabb3(const imp_world *world, imp_body_id id, imp_aabb3 *out);

IMP_API imp_status imp_body_get_type(const imp_world *world, imp_body_id id, imp_body_type *out);
IMP_API imp_status imp_body_get_shape(const imp_world *world, imp_body_id id, const imp_shape **out);

IMP_API imp_status imp_body_get_filter(const imp_world *world, imp_body_id id, imp_filter *out);
/// New filter bits; the next update re-pairs the body.
IMP_API imp_status imp_body_set_filter(imp_world *world, imp_body_id id, imp_filter filter);

IMP_API imp_status imp_body_get_user_data(const imp_world *world, imp_body_id id, void **out);
IMP_API imp_status imp_body_set_user_data(imp_world *world, imp_body_id id, void *user_data);

/// Number of bodies in the world (0 for NULL).
IMP_API int imp_world_body_count(const imp_world *world);

/// Brings the pairs up to date with the bodies' poses: the broad phase looks
/// at the bodies added or moved since the last update, the narrow phase
/// (Level 1, or Level 2 with a margin) confirms the pairs whose boxes
/// overlap. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_OUT_OF_MEMORY (the world
/// stays consistent and a later update completes the work).
IMP_API imp_status imp_world_update(imp_world *world);

/// Called for each touching pair; return false to stop.
typedef bool imp_pair_fn(imp_body_id a, imp_body_id b, void *user);

/// Calls fn for every pair touching at the last update, each pair once, a
/// before b in index order. While fn runs, calls that change the world
/// (add, remove, set pose or filter, update) return IMP_ERR_BUSY. Errors:
/// IMP_ERR_NULL_ARGUMENT.
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
} imp_world_stats;

/// Zeroed for NULL.
IMP_API imp_world_stats imp_world_get_stats(const imp_world *world);

/// A 64-bit hash of the world's state: every body (id, type, filter, pose
/// and box bits) and every touching pair, in index order. Pointers (shapes,
/// user data) are left out, so equal scenes hash equal across runs. 0 for
/// NULL.
IMP_API uint64_t imp_world_state_hash(const imp_world *world);

#ifdef __cplusplus
}
#endif

#endif
