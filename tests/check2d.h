// SPDX-License-Identifier: MIT
/// @file check2d.h
/// Shared test helpers: a body (input points, library shape, oracle hull,
/// pose), random bodies, and the checker that holds an imp_closest2_result
/// against the oracle. Only the public API of impact is used.
#ifndef IMPACT_TESTS_CHECK2D_H
#define IMPACT_TESTS_CHECK2D_H

#include <stdbool.h>
#include <stddef.h>

#include <impact/impact.h>

#include "oracle2d.h"

/// A shape under test with everything the oracle needs.
typedef struct chk_body {
	int n_in;
	imp_vec2 *in;     ///< input points (local)
	double radius;
	imp_shape *shape; ///< the library's shape
	bool user;        ///< made by imp_shape_user2 (support over `hull`)
	int nh;
	imp_vec2 *hull;   ///< the oracle's hull (local)
	int nl;
	imp_vec2 *lib;    ///< the library's core vertices (local; 0 for user shapes)
	imp_pose2 pose;
	imp_vec2 *world;  ///< the oracle hull at `pose`
} chk_body;

/// Makes a polygon body (imp_shape_polygon must succeed, else the test fails).
void chk_body_make(chk_body *b, const imp_vec2 *points, int n, double radius);
/// Makes the same polygon as a user shape whose support is brute force over
/// the oracle hull.
void chk_body_make_user(chk_body *b, const imp_vec2 *points, int n, double radius);
void chk_body_free(chk_body *b);
/// Sets the pose and the world vertices.
void chk_body_place(chk_body *b, imp_pose2 pose);

/// The user-shape support used by chk_body_make_user: `user` is the chk_body.
imp_vec2 chk_polygon_support(const void *user, imp_vec2 d);

/// Random input points for a polygon: 1..max_n points of a random family
/// (scattered, on a circle, collinear, repeated, integer grid), within about
/// `scale` of a random centre. Returns the count.
int chk_random_points(orc_rng *rng, imp_vec2 *out, int max_n, double scale);
/// A random pose within `extent` of the origin.
imp_pose2 chk_random_pose(orc_rng *rng, double extent);

/// Tolerances (relative to the scene size) and the running maxima.
typedef struct chk_stats {
	const char *name;
	double tol_dist;   ///< separated distance vs oracle (default 1e-12)
	double tol_depth;  ///< penetration depth vs oracle (default 1e-9)
	double tol_point;  ///< witness points, normals, touching moves (default 1e-9)
	long pairs, checked, near_zero, overlapping, failures;
	double max_dist_err, max_depth_err, max_point_err, max_normal_err, max_touch_err;
	int max_iterations, max_epa_iterations;
} chk_stats;

void chk_stats_init(chk_stats *s, const char *name);
/// One line through print_message.
void chk_stats_print(const chk_stats *s);

/// Holds a closest result for the pair (a, b) at their current poses
/// against the oracle answer o. With `moves`, also checks with the oracle
/// that moving b by -distance * normal makes them touch and a little more
/// separates them. Returns false and fills `why` at the first failure.
bool chk_closest(const chk_body *a, const chk_body *b, const imp_closest2_result *r,
		 const orc_result *o, bool moves, chk_stats *st, char *why, size_t why_len);

/// Runs the oracle on the pair at its current poses.
void chk_oracle(const chk_body *a, const chk_body *b, orc_result *o);

/// Prints a body as C-ish text (points, radius, pose) via print_message.
void chk_print_body(const char *label, const chk_body *b);

/// Records a failure: prints the message and (for the first few) the pair.
void chk_fail(chk_stats *st, const chk_body *a, const chk_body *b, const char *fmt, ...);

#endif
