// SPDX-License-Identifier: MIT
/// @file dataset2d.h
/// The random data set of the barycode GJK paper (Zhang et al. 2020, sec. IV):
/// pairs of convex polygons with 4 to 24 vertices, in three cases (distant,
/// overlapping, touching), and the brute-force oracle that checks every answer.
/// Polygons are kept as local vertices (counter-clockwise) plus a pose, the way
/// a user of impact holds them.
#ifndef IMPACT_BENCH_DATASET2D_H
#define IMPACT_BENCH_DATASET2D_H

#include <stdint.h>

#include <impact/vecmath.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most vertices a data set polygon has.
#define DS_MAX_VERTICES 64

/// How far apart a touching pair is left (its oracle distance).
#define DS_TOUCH_GAP 1e-9

typedef enum ds_case {
	DS_DISTANT = 0,  ///< separated by more than 1e-3
	DS_OVERLAPPING,  ///< penetrating by more than 1e-3
	DS_TOUCHING,     ///< a distant pair moved along its separation until DS_TOUCH_GAP apart
	DS_CASE_COUNT
} ds_case;

/// One pair: a's and b's local vertices (each `vertices` long, CCW) and poses.
typedef struct ds_pair {
	const imp_vec2 *va, *vb;
	imp_pose2 pa, pb;
	double distance; ///< oracle signed distance: > 0 apart, < 0 minus the penetration depth
} ds_pair;

/// All pairs of one (vertex count, case) cell; vertices live in one pool.
typedef struct ds_cell {
	int vertices;
	ds_case kind;
	int count;
	ds_pair *pairs;
	imp_vec2 *pool;
} ds_cell;

/// "distant", "overlapping", "touching".
const char *ds_case_name(ds_case kind);

/// Makes `count` pairs of `vertices`-gons (3 .. DS_MAX_VERTICES) of the given
/// case; the same seed gives the same cell on every machine. Returns 0, or -1
/// on bad arguments, no memory, or a case that could not be sampled.
int ds_cell_make(ds_cell *cell, int vertices, ds_case kind, int count, uint64_t seed);

void ds_cell_free(ds_cell *cell);

/// Brute-force signed distance between two convex polygons (local CCW
/// vertices + poses), independent of GJK. Overlap and depth come from all
/// edge normals of both polygons (the normals of the Minkowski difference);
/// the distance of a separated pair from all vertex-edge pairs, whose closest
/// points go to *wa, *wb (world; may be NULL; both set to the origin when the
/// pair overlaps). Counts up to DS_MAX_VERTICES.
double ds_oracle_distance(const imp_vec2 *va, int na, imp_pose2 pa, const imp_vec2 *vb, int nb,
			  imp_pose2 pb, imp_vec2 *wa, imp_vec2 *wb);

#ifdef __cplusplus
}
#endif

#endif
