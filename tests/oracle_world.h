// SPDX-License-Identifier: MIT
/// @file oracle_world.h
/// The oracle of the world tests: the touching pairs of a list of bodies,
/// found by testing every pair, written plainly against the public shape
/// and narrow-phase API (no world code). The filter rule is written out
/// here again (Box2D's rule), not taken from imp_filter_should_pair.
#ifndef IMPACT_TESTS_ORACLE_WORLD_H
#define IMPACT_TESTS_ORACLE_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include <impact/impact.h>

/// One body as the oracle sees it: what the world was told.
typedef struct ow_body {
	bool live;
	const imp_shape *shape;
	imp_pose2 pose2; ///< used when the shape is 2D
	imp_pose3 pose3; ///< used when the shape is 3D
	imp_body_type type;
	imp_filter filter;
} ow_body;

/// A pair of body indices (indices into the oracle's list), a < b.
typedef struct ow_pair {
	int a, b;
} ow_pair;

/// What counts as touching: the world's def.margin and def.narrow_phase.
typedef struct ow_rule {
	double margin;
	bool narrow_phase;
} ow_rule;

/// Box2D's filter rule: the same nonzero group pairs when positive and
/// never when negative; otherwise each category must be in the other mask.
bool ow_filter_pairs(imp_filter a, imp_filter b);

/// The closed boxes overlap, the second enlarged by `grow` on every side.
bool ow_box2_overlap(imp_aabb2 a, imp_aabb2 b, double grow);
bool ow_box3_overlap(imp_aabb3 a, imp_aabb3 b, double grow);

/// Whether live bodies a and b touch under `rule` (types and filters
/// included): not both static, the filter rule, the boxes within the
/// margin of each other, and with the narrow phase
/// imp_overlap (margin 0) or imp_distance <= margin.
bool ow_touch(const ow_body *a, const ow_body *b, ow_rule rule);

/// Whether the answer for a and b sits on the edge of the rule, where
/// rounding may decide it: the signed distance within 1e-9 (relative to
/// the bodies' size) plus 64 ulps of the coordinates and the margin of the
/// margin, or the boxes grown by the margin within rounding of touching;
/// for box-only rules, the boxes alone (64 ulps of their coordinates).
bool ow_on_edge(const ow_body *a, const ow_body *b, ow_rule rule);

/// Every touching pair among bodies[0 .. n) (dead ones skipped), sorted by
/// (a, b), into *out (grown with realloc; *cap its room). Returns the count.
int ow_touching_pairs(const ow_body *bodies, int n, ow_rule rule, ow_pair **out, int *cap);

/// A small deterministic generator (splitmix64).
typedef struct ow_rng {
	uint64_t s;
} ow_rng;

uint64_t ow_next(ow_rng *r);
/// Uniform in [0, 1).
double ow_uniform(ow_rng *r);
/// Uniform in [lo, hi).
double ow_range(ow_rng *r, double lo, double hi);
/// Uniform integer in [0, n).
int ow_int(ow_rng *r, int n);
/// A uniformly random unit quaternion.
imp_quat ow_quat(ow_rng *r);
/// A body type: 15% static, 25% kinematic, the rest dynamic.
imp_body_type ow_random_type(ow_rng *r);
/// Mostly the default filter; some positive and negative groups, some
/// categories and masks that leave bits out.
imp_filter ow_random_filter(ow_rng *r);
/// A random 2D shape of size about s: a box, a polygon of 3 to 8 points,
/// a disc or a capsule, some rounded. NULL if the library refused it.
imp_shape *ow_random_shape2(ow_rng *r, double s);
/// The same in 3D: a box, a polytope of 4 to 10 points, a sphere or a
/// capsule.
imp_shape *ow_random_shape3(ow_rng *r, double s);

#endif
