// SPDX-License-Identifier: MIT
/// @file peer_toi_box2d.h
/// Box2D 2.4's b2TimeOfImpact as bench/toi's peer (peer_toi_box2d.cpp, built
/// when HAVE_BOX2D). The pairs are copied into Box2D's float types once; the
/// timed loop runs inside the peer's file, one library call per pair.
#ifndef IMPACT_BENCH_PEER_TOI_BOX2D_H
#define IMPACT_BENCH_PEER_TOI_BOX2D_H

#include <impact/vecmath.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A distance proxy: a convex core (at most b2t_max_vertices() points, in
/// the body's frame) rounded by `radius`.
typedef struct b2t_shape {
	const imp_vec2 *vertices;
	int count;
	double radius;
} b2t_shape;

/// A body's motion over the step as Box2D's b2Sweep: the origin moves from
/// c0 to c and the angle from a0 to a (localCenter 0, alpha0 0).
typedef struct b2t_sweep {
	imp_vec2 c0, c;
	double a0, a;
} b2t_sweep;

typedef struct b2t_pair {
	int shape_a, shape_b; ///< indices into the shapes given to b2t_create
	b2t_sweep sweep_a, sweep_b;
} b2t_pair;

/// b2TOIOutput::State, in Box2D's order.
typedef enum b2t_state {
	B2T_UNKNOWN = 0,
	B2T_FAILED,
	B2T_OVERLAPPED,
	B2T_TOUCHING,
	B2T_SEPARATED,
} b2t_state;

typedef struct b2t_set b2t_set;

/// b2_linearSlop, b2_polygonRadius and b2_maxPolygonVertices.
double b2t_linear_slop(void);
double b2t_polygon_radius(void);
int b2t_max_vertices(void);

/// Float copies of the shapes and pairs. NULL when out of memory or a shape
/// has more than b2t_max_vertices() points.
b2t_set *b2t_create(const b2t_shape *shapes, int shape_count, const b2t_pair *pairs, int pair_count);
void b2t_destroy(b2t_set *set);

/// b2TimeOfImpact on every pair in order, tMax = 1 (Box2D's time is the
/// fraction of the step): each pair's state (b2t_state) and t.
void b2t_run(const b2t_set *set, int *state, float *t);

#ifdef __cplusplus
}
#endif

#endif
