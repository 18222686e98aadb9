// SPDX-License-Identifier: MIT
// Pairwise queries with a non-convex side (composite_query.c): the public
// queries hand such pairs here.
#ifndef IMPACT_NARROW_COMPOSITE_QUERY_H
#define IMPACT_NARROW_COMPOSITE_QUERY_H

#include <stdbool.h>

#include "impact/collision.h"
#include "shape/bvh.h"
#include "shape/shape_internal.h"

/// True when a or b is (or claims to be, by its kind) a non-convex shape:
/// the public queries' one test before their convex paths.
static inline bool imp_pair_has_composite(const imp_shape *a, const imp_shape *b)
{
	return (a != NULL && a->kind >= IMP_SHAPE_COMPOUND2) || (b != NULL && b->kind >= IMP_SHAPE_COMPOUND2);
}

bool imp_composite_overlap2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			    imp_simplex_cache *cache, const imp_query_options *options);
bool imp_composite_overlap3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			    imp_simplex_cache *cache, const imp_query_options *options);
double imp_composite_distance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state);
double imp_composite_distance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state);
/// Level 3 on a pair with a non-convex side; *pairs (pairs may be NULL)
/// gets the number of pairs of children answered (the time of impact
/// counts them against the world's cast budget).
imp_status imp_composite_closest2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				  imp_simplex_cache *cache, const imp_query_options *options, imp_closest2_result *out,
				  int *pairs);
imp_status imp_composite_closest3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				  imp_simplex_cache *cache, const imp_query_options *options, imp_closest3_result *out,
				  int *pairs);

/// Conservative advancement on a pair with a non-convex side (docs/toi.md):
/// the least time in which some pair of children could come within
/// `level` (below the pair's present distance), each pair at the rate
/// its separation along its own normal can fall, (v_a - v_b) . n + spin;
/// `dv` = v_a - v_b (world frame), `spin` the turns' part (|w_a| r_a +
/// |w_b| r_b). A branch and bound: pairs of children whose boxes' gap
/// exceeds level + t (|dv| + spin), t the least time so far, cannot come
/// sooner. INFINITY when no pair approaches; NaN when a query failed.
/// With tol > 0 (the world's schedule) `level` is ignored and each pair
/// has its own: half the tolerance for a pair farther than it (where a new
/// contact is to be seen), else half the tolerance below the contact or
/// below its distance, whichever is lower (schedule_contact's rule for one
/// pair, in src/world/step.c), every pair within tol looked at. *pairs
/// (pairs may be NULL) gets the number of pairs of children answered, the
/// narrow-phase calls the world's step counts against max_pair_calls.
double imp_composite_advance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, imp_vec2 dv,
			      double spin, double level, double tol, int *pairs);
double imp_composite_advance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_vec3 dv,
			      double spin, double level, double tol, int *pairs);

/// imp_composite_closest2/3 for the world's step: when the closest pair of
/// children is within `tol`, the answer is instead that of the pair within
/// `tol` whose witnesses approach fastest along its normal (each witness's
/// velocity v + w x (p - origin), its body's origin at its pose), if one
/// approaches: a body in a corner of a level touches two of its segments,
/// and the one it moves into is the contact to report, not the nearer.
/// Velocities in the world frame (2D: w counter-clockwise). *least gets
/// the least distance over the pairs (the closest pair's), which the
/// answer's may exceed; *pairs the number of pairs of children answered
/// (also on an error).
imp_status imp_composite_contact2(const imp_shape *a, imp_pose2 pa, imp_vec2 va, double wa, const imp_shape *b,
				  imp_pose2 pb, imp_vec2 vb, double wb, double tol, imp_simplex_cache *cache,
				  imp_closest2_result *out, double *least, int *pairs);
imp_status imp_composite_contact3(const imp_shape *a, imp_pose3 pa, imp_vec3 va, imp_vec3 wa, const imp_shape *b,
				  imp_pose3 pb, imp_vec3 vb, imp_vec3 wb, double tol, imp_simplex_cache *cache,
				  imp_closest3_result *out, double *least, int *pairs);

/// A lower bound on the distance between two oriented boxes (one frame),
/// at least lb (their imp_obb_bound or less): GJK on the boxes until a
/// plane holds them more than `bound` apart, their simplex comes within
/// bound, or a few steps have passed (the hierarchies' pair key).
double imp_obb_gap(const imp_bvh_obb *a, const imp_bvh_obb *b, double lb, double bound);

#endif
