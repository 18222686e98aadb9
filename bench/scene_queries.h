// SPDX-License-Identifier: MIT
/// @file scene_queries.h
/// The static worlds of bench/queries, shared with bench/threads: n static
/// bodies (2D: boxes, discs, capsules; 3D: boxes, spheres, capsules: shapes
/// FCL has too), sides 0.4 to 1.2, spread uniformly over a square (cube) of
/// side 2 n^(1/dim) (about one body per 2^dim cube of side 2), and nq poses
/// of a query box (1.0 x 0.6, x 0.8 in 3D) in the same region, each with the
/// end of a cast: 2 units in a random direction (2D: turning a little).
///
/// Everything comes from a fixed seed (sq_seed), drawn in a fixed order:
/// for each body its kind, sides, radius and pose; then for each query
/// pose the pose and its cast's direction. Include bench_util.h (which
/// needs _POSIX_C_SOURCE) first.
#ifndef IMPACT_BENCH_SCENE_QUERIES_H
#define IMPACT_BENCH_SCENE_QUERIES_H

#include <stdbool.h>
#include <stdint.h>

#include <impact/impact.h>

#include "bench_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One body or query shape, in the form both libraries are given.
typedef struct sq_body {
	int kind;        ///< 0 box, 1 sphere (disc), 2 capsule (along local z in 3D, local x in 2D)
	double half[3];
	double radius;
	imp_pose2 p2;
	imp_pose3 p3;
} sq_body;

typedef struct sq_scene {
	int dim, n, nq;
	double side;
	sq_body *bodies;
	imp_shape **shapes;
	sq_body *queries;
	imp_pose2 *to2;  ///< cast end poses
	imp_pose3 *to3;
	imp_shape *query_shape;
} sq_scene;

/// bench/queries' seed of its dim-D scene of n bodies.
uint64_t sq_seed(int dim, int n);

/// A uniformly random rotation (Shoemake), not normalised.
imp_quat sq_random_quat(bench_rng *r);

/// A random pose in [0, side)^3 with sq_random_quat's rotation.
imp_pose3 sq_random_pose3(bench_rng *r, double side);

/// Makes the scene of n bodies and nq query poses. False when out of memory
/// or a shape failed (free it with sq_scene_free all the same).
bool sq_scene_make(sq_scene *sc, int dim, int n, int nq, uint64_t seed);
void sq_scene_free(sq_scene *sc);

/// A world of the scene's bodies, all static, made with `def` (its dim set
/// to the scene's), updated once. NULL on a failure.
imp_world *sq_world_make(const sq_scene *sc, const imp_world_def *def);

#ifdef __cplusplus
}
#endif

#endif
