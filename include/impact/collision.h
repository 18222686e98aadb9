// SPDX-License-Identifier: MIT
/// @file collision.h
/// Pairwise queries on two shapes at two poses, at three levels of answer
/// (barycode GJK, Zhang et al. 2020): overlap yes/no, distance, and closest
/// points with normal, features and penetration. Reentrant; no allocation.
#ifndef IMPACT_COLLISION_H
#define IMPACT_COLLISION_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "vecmath.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Warm start for a pair of shapes, owned by the caller: zeroed means empty.
/// Every query that is given one reads it (if it fits the two shapes) and
/// writes the final simplex back, so the next query on the same pair starts
/// where this one ended. Results with and without it agree within what the
/// searches guarantee (docs/narrow3d.md, "Warm and cold"), relative to the
/// scene's size (the largest coordinate of the two shapes' bounding boxes):
/// polygons and polytopes (cores of vertices) within rounding; separated
/// distances of curved and user shapes within 1e-9 (GJK stops within its
/// tolerance of the distance, from wherever it started; 1.1e-10 seen); a
/// 3D penetration of curved cores starts from the simplex a query without
/// the cache would reach, so it is the same with or without it (1e-9 stated;
/// 3e-11 seen); Level 1 answers agree except within that tolerance of
/// touching. Iteration counts and, for touching pairs, witnesses may differ.
/// A cache holding anything else (another pair, garbage) is detected or
/// harmless. For a pair with a non-convex side the cache keeps the pair of
/// children that answered last and its simplex: the next query answers
/// that pair first, and its distance bounds the search of the others.
typedef struct imp_simplex_cache {
	uint8_t count;      ///< number of simplex vertices, 0 = empty
	uint8_t dim;        ///< 2 or 3 once written
	uint16_t reserved;
	int32_t index_a[4]; ///< vertex index on shape a of each simplex vertex (-1: none)
	int32_t index_b[4]; ///< vertex index on shape b
	double direction[3]; ///< last separating direction in a's frame (for shapes without vertices)
	int32_t child_a;    ///< a pair with a non-convex side: 1 + the child of a whose pair the simplex is (0: a is convex)
	int32_t child_b;    ///< the same for b
} imp_simplex_cache;

/// How a support point is found on polygons.
typedef enum imp_support_mode {
	IMP_SUPPORT_AUTO = 0,   ///< hill climbing from `hill_climb_min_vertices` vertices, else brute force
	IMP_SUPPORT_BRUTE_FORCE, ///< every vertex every time
	IMP_SUPPORT_HILL_CLIMB, ///< walk from the last support vertex (kept in the cache)
} imp_support_mode;

/// How the penetration of overlapping cores is found (Level 3).
typedef enum imp_penetration_mode {
	IMP_PENETRATION_AUTO = 0, ///< polygon pairs: exact walk of the Minkowski difference's edges; else EPA
	IMP_PENETRATION_EPA,      ///< the expanding polygon (EPA) for every pair
} imp_penetration_mode;

/// How GJK picks its search directions (docs/narrow3d.md, "Nesterov acceleration").
typedef enum imp_acceleration_mode {
	IMP_ACCELERATION_AUTO = 0, ///< the measured default: plain GJK (docs/narrow3d.md has the measurements)
	IMP_ACCELERATION_NONE,     ///< plain GJK: the direction is the current nearest point
	IMP_ACCELERATION_NESTEROV, ///< Nesterov momentum (Montaut et al. 2022), normalised for polytopes, with the switch back to plain GJK
} imp_acceleration_mode;

/// Query options; start from imp_default_query_options().
typedef struct imp_query_options {
	int max_iterations;          ///< GJK iteration limit, >= 1 (default 64; 3D pairs with a curved core get 4 times as many)
	int epa_max_iterations;      ///< EPA iteration limit, >= 1 (default 64); the polygon edge walk is one pass and ignores it; in 3D on curved cores it also bounds the depth descent after EPA, and an answer it stopped is IMP_STATE_ITERATION_LIMIT
	double tolerance;            ///< relative distance tolerance for curved (user) shapes, in (0, 0.1) (default 1e-12)
	imp_support_mode support;    ///< default IMP_SUPPORT_AUTO
	int hill_climb_min_vertices; ///< 2D: AUTO climbs from this many vertices, >= 3 (default 12, the crossover bench/narrow2d measured); 3D AUTO climbs from 512 (docs/narrow3d.md)
	imp_penetration_mode penetration; ///< default IMP_PENETRATION_AUTO
	imp_acceleration_mode acceleration; ///< 3D queries; default IMP_ACCELERATION_AUTO
} imp_query_options;

/// The defaults, the fastest measured by bench/narrow2d.
IMP_API imp_query_options imp_default_query_options(void);

/// How a query ended.
typedef enum imp_query_state {
	IMP_STATE_SEPARATED = 0, ///< distance > 0
	IMP_STATE_TOUCHING,      ///< |distance| within rounding of 0
	IMP_STATE_OVERLAPPING,   ///< distance < 0 (penetration)
	IMP_STATE_ITERATION_LIMIT, ///< stopped at an iteration limit; the answer is the best found
	IMP_STATE_DEGENERATE,    ///< a user support returned a non-finite point; nothing is valid
} imp_query_state;

/// The full answer of imp_closest2.
typedef struct imp_closest2_result {
	double distance;    ///< signed: > 0 apart, < 0 penetration depth (rounded shapes included)
	imp_vec2 point_a;   ///< witness on a (world); for penetration the deepest point of a in b
	imp_vec2 point_b;   ///< witness on b (world); normal . (point_b - point_a) == distance
	imp_vec2 normal;    ///< unit, from a to b: moving b by -distance * normal makes them touch
	imp_feature feature_a; ///< feature of a's core holding point_a
	imp_feature feature_b;
	int iterations;     ///< GJK iterations
	int epa_iterations; ///< EPA iterations, or 1 for the polygon edge walk (0 when the cores are apart)
	imp_query_state state;
	int child_a;        ///< for a non-convex a: the child holding point_a (numbered as in shape.h), whose feature feature_a is; -1 for a convex a
	int child_b;        ///< the same for b
} imp_closest2_result;

/// Level 1: do the two rounded shapes overlap (touching counts)? The
/// barycode boolean GJK (Alg. 6) with both early exits. Returns false for
/// invalid input (NULL, not a 2D shape, non-finite, non-unit or out-of-range
/// pose).
IMP_API bool imp_overlap2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			  imp_simplex_cache *cache);

/// Level 2: the distance between the rounded shapes, 0 when they overlap,
/// NaN for invalid input.
IMP_API double imp_distance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			     imp_simplex_cache *cache);

/// Level 3: signed distance, witness points, normal, features, and for
/// overlapping shapes the penetration from the expanding-polygon solver.
/// An IMP_OK answer (other than IMP_STATE_DEGENERATE) is finite, its normal
/// unit, and normal . (point_b - point_a) = distance within 1e-8 of the
/// scene's size (the largest coordinate of the two shapes' boxes), in 2D
/// and 3D; in scenes below 1e-100 or above 1e100 only for 2D polygons of at
/// most 256 vertices, which are answered on scaled copies (docs/narrow2d.md,
/// "Range").
/// Errors (*out untouched): IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE,
/// IMP_ERR_DIMENSION_MISMATCH, the poses' (IMP_ERR_NOT_FINITE,
/// IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE: a translation beyond
/// IMP_MAX_COORDINATE); for a pair with a non-convex side also
/// IMP_ERR_OUT_OF_RANGE when b's pose taken in a's frame, or a child's pose
/// composed with it, leaves that range (two poses within it may be up to
/// twice that apart).
IMP_API imp_status imp_closest2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				imp_simplex_cache *cache, imp_closest2_result *out);

/// The same three queries with options (NULL: the defaults). Invalid options
/// make the query invalid (false, NaN, IMP_ERR_BAD_OPTIONS).
IMP_API bool imp_overlap2_ex(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			     imp_simplex_cache *cache, const imp_query_options *options);
IMP_API double imp_distance2_ex(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				imp_simplex_cache *cache, const imp_query_options *options);
IMP_API imp_status imp_closest2_ex(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				   imp_simplex_cache *cache, const imp_query_options *options,
				   imp_closest2_result *out);

/// imp_distance2_ex that also reports its GJK iterations and end state (for
/// benchmarks and diagnostics); `iterations` and `state` may be NULL. Returns
/// NaN for invalid input (and writes neither) and when a user support gave a
/// non-finite point (state IMP_STATE_DEGENERATE).
IMP_API double imp_distance2_stats(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				   imp_simplex_cache *cache, const imp_query_options *options,
				   int *iterations, imp_query_state *state);

/// The name of a query state ("separated", ...); "unknown state" for a value
/// out of range.
IMP_API const char *imp_query_state_string(imp_query_state state);

// ---------------------------------------------------------------------------
// 3D. The same three levels, on 3D shapes at imp_pose3 poses; a 2D shape
// or pose problem is an error as in 2D.

/// The full answer of imp_closest3.
typedef struct imp_closest3_result {
	double distance;    ///< signed: > 0 apart, < 0 penetration depth (rounded shapes included)
	imp_vec3 point_a;   ///< witness on a (world); for penetration the deepest point of a in b
	imp_vec3 point_b;   ///< witness on b (world); normal . (point_b - point_a) == distance
	imp_vec3 normal;    ///< unit, from a to b: moving b by -distance * normal makes them touch
	imp_feature feature_a; ///< feature of a's core holding point_a (vertex, edge or face; NONE for curved and user shapes)
	imp_feature feature_b;
	int iterations;     ///< GJK iterations
	int epa_iterations; ///< EPA iterations (0 when the cores are apart)
	imp_query_state state;
	int child_a;        ///< for a non-convex a: the child holding point_a (numbered as in shape.h), whose feature feature_a is (a triangle's: corners 0..2, edge k from corner k to k + 1, face 0; a height-field prism's: see imp_shape_heightfield); -1 for a convex a
	int child_b;        ///< the same for b
} imp_closest3_result;

/// Level 1 in 3D: do the two rounded shapes overlap (touching counts)?
/// false for invalid input.
IMP_API bool imp_overlap3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			  imp_simplex_cache *cache);

/// Level 2 in 3D: the distance, 0 when overlapping, NaN for invalid input.
IMP_API double imp_distance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			     imp_simplex_cache *cache);

/// Level 3 in 3D: signed distance, witness points, normal, features; for
/// overlapping shapes the penetration from EPA. Errors as imp_closest2.
IMP_API imp_status imp_closest3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				imp_simplex_cache *cache, imp_closest3_result *out);

/// The 3D queries with options (NULL: the defaults). Invalid options make
/// the query invalid (false, NaN, IMP_ERR_BAD_OPTIONS).
IMP_API bool imp_overlap3_ex(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			     imp_simplex_cache *cache, const imp_query_options *options);
IMP_API double imp_distance3_ex(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				imp_simplex_cache *cache, const imp_query_options *options);
IMP_API imp_status imp_closest3_ex(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				   imp_simplex_cache *cache, const imp_query_options *options,
				   imp_closest3_result *out);

/// imp_distance3_ex with its GJK iterations and end state, as
/// imp_distance2_stats.
IMP_API double imp_distance3_stats(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				   imp_simplex_cache *cache, const imp_query_options *options,
				   int *iterations, imp_query_state *state);

/* ---- time of impact (pairwise) ---- */

/// A rigid motion from t = 0: the pose at 0, and a constant linear velocity
/// of the shape's origin and angular velocity about it (world frame; 2D:
/// radians per unit time, counter-clockwise; 3D: a rotation vector).
typedef struct imp_motion2 {
	imp_pose2 pose;
	imp_vec2 v;
	double w;
} imp_motion2;

typedef struct imp_motion3 {
	imp_pose3 pose;
	imp_vec3 v;
	imp_vec3 w;
} imp_motion3;

/// How a time-of-impact query ended.
typedef enum imp_toi_state {
	IMP_TOI_SEPARATED = 0,   ///< no contact in [0, t_max]; t = t_max
	IMP_TOI_HIT,             ///< first contact at t: the distance fell within the tolerance
	IMP_TOI_OVERLAPPED,      ///< already within the tolerance (or overlapping) at t = 0
	IMP_TOI_ITERATION_LIMIT, ///< stopped at the iteration limit; no contact before t
	IMP_TOI_FAILED,          ///< a distance query failed (a user support returned a non-finite point)
} imp_toi_state;

/// Options of the time-of-impact queries.
typedef struct imp_toi_options {
	double tolerance;   ///< contact when the distance is at most this; 0: 1e-6 x the sum of the shapes' bound radii,
	                    ///< at least the scene's rounding (2^-44 x the poses' largest coordinate, and 2^-1068)
	int max_iterations; ///< conservative-advancement steps, at least 1
} imp_toi_options;

/// tolerance 0 (automatic), 64 iterations.
IMP_API imp_toi_options imp_default_toi_options(void);

typedef struct imp_toi2_result {
	imp_toi_state state;
	double t;          ///< the time of impact, or how far the query got (see state)
	double distance;   ///< the distance at the last query: at t (SEPARATED: the last time looked at, before t_max)
	imp_vec2 point_a;  ///< witness on a at that time (world)
	imp_vec2 point_b;  ///< witness on b at that time (world)
	imp_vec2 normal;   ///< unit, from a to b, at that time
	int iterations;    ///< distance queries made; 0 when the balls of the shapes' reach about their origins
	                   ///< never come within the tolerance: SEPARATED, and distance, points and normal
	                   ///< are those balls' where their centres pass closest (a lower bound on the distance)
} imp_toi2_result;

typedef struct imp_toi3_result {
	imp_toi_state state;
	double t;
	double distance;
	imp_vec3 point_a;
	imp_vec3 point_b;
	imp_vec3 normal;
	int iterations;
} imp_toi3_result;

/// The first time in [0, t_max] at which shapes a and b, moving rigidly,
/// come within the tolerance of each other: conservative advancement
/// (Mirtich 1996; docs/toi.md), from the first time the balls of their
/// reach about their origins (which hold them however they turn) come
/// within the tolerance, found in closed form: a pair whose balls never do
/// needs no distance query at all. Every step advances by a lower bound
/// on the time the separation along the current closest direction needs to
/// fall to half the tolerance (the relative speed along it, plus |w| times
/// the reach of each shape's core: the rounding does not turn), so no
/// contact is ever stepped over, however fast the motion. The answer is no
/// later than the first contact, and
/// within the tolerance of it in distance. Errors (*out untouched):
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH,
/// the poses' (IMP_ERR_NOT_FINITE, IMP_ERR_BAD_ROTATION,
/// IMP_ERR_OUT_OF_RANGE), IMP_ERR_NOT_FINITE (a velocity component or
/// t_max NaN or infinite), IMP_ERR_OUT_OF_RANGE (t_max negative; a velocity
/// component, |w| t_max or a position p + v t on the motion beyond
/// IMP_MAX_COORDINATE), and for the _ex forms IMP_ERR_BAD_OPTIONS.
IMP_API imp_status imp_time_of_impact2(const imp_shape *a, imp_motion2 ma, const imp_shape *b, imp_motion2 mb,
				       double t_max, imp_toi2_result *out);
IMP_API imp_status imp_time_of_impact2_ex(const imp_shape *a, imp_motion2 ma, const imp_shape *b, imp_motion2 mb,
					  double t_max, const imp_toi_options *options, imp_toi2_result *out);
IMP_API imp_status imp_time_of_impact3(const imp_shape *a, imp_motion3 ma, const imp_shape *b, imp_motion3 mb,
				       double t_max, imp_toi3_result *out);
IMP_API imp_status imp_time_of_impact3_ex(const imp_shape *a, imp_motion3 ma, const imp_shape *b, imp_motion3 mb,
					  double t_max, const imp_toi_options *options, imp_toi3_result *out);

/// The pose of a motion at time t.
IMP_API imp_pose2 imp_motion2_at(imp_motion2 m, double t);
IMP_API imp_pose3 imp_motion3_at(imp_motion3 m, double t);

#ifdef __cplusplus
}
#endif

#endif
