// SPDX-License-Identifier: MIT
// The shape record and its support functions, shared by the narrow phase.
#ifndef IMPACT_SHAPE_INTERNAL_H
#define IMPACT_SHAPE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <math.h>

#include "impact/shape.h"

#define IMP_SHAPE_MAGIC 0x53504d49u /* "IMPS" */

/// Buckets of the pseudo-angle table that gives hill climbing its first
/// vertex on large polygons (see support_table below).
#define IMP_ANGLE_BUCKETS 64

/// Polygons with at least this many vertices get the start table.
#define IMP_ANGLE_TABLE_MIN 8

/// Below this many vertices brute-force support beats hill climbing: the
/// default of imp_query_options.hill_climb_min_vertices (bench/narrow2d,
/// support modes compared on the paper's dataset).
#define IMP_HILL_CLIMB_MIN_VERTICES 10

struct imp_shape {
	uint32_t magic;
	int dim;
	int kind;
	int count;            ///< core vertices (polygon), 0 for user shapes
	double radius;
	imp_vec2 center;      ///< a point inside the core, local frame
	double bound_radius;  ///< max distance of a core point from the local origin
	const imp_vec2 *v;    ///< core vertices, counter-clockwise
	const int32_t *start; ///< IMP_ANGLE_BUCKETS start vertices, or NULL
	bool climb_auto;      ///< hill climbing under the default options
	imp_support2_fn *support;
	const void *user;
	imp_allocator allocator;
	size_t bytes;         ///< size of the allocation holding this record
};

/// NULL when `s` is a live shape of dimension `dim`, else the error.
static inline imp_status imp_shape_check(const imp_shape *s, int dim)
{
	if (s == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (s->magic != IMP_SHAPE_MAGIC)
		return IMP_ERR_BAD_SHAPE;
	if (s->dim != dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	return IMP_OK;
}

/// A monotone stand-in for the angle of d in [0, 4): no trigonometry, one
/// division. Zero only for d along +x.
static inline double imp_pseudo_angle(imp_vec2 d)
{
	double ax = fabs(d.x), ay = fabs(d.y);
	double sum = ax + ay;
	double t = sum > 0.0 ? ay / sum : 0.0;
	if (d.y >= 0.0)
		return d.x >= 0.0 ? t : 2.0 - t;
	return d.x < 0.0 ? 2.0 + t : 4.0 - t;
}

/// Index of the vertex farthest along d, every vertex tried. The first of
/// equal vertices wins, so the answer is deterministic.
static inline int imp_support_brute(const imp_vec2 *v, int n, imp_vec2 d)
{
	int best = 0;
	double bv = v[0].x * d.x + v[0].y * d.y;
	for (int i = 1; i < n; ++i) {
		// Written as selects: the branch is a coin toss on random directions.
		double s = v[i].x * d.x + v[i].y * d.y;
		bool gt = s > bv;
		best = gt ? i : best;
		bv = gt ? s : bv;
	}
	return best;
}

/// Index of the vertex farthest along d by hill climbing from `i` along the
/// counter-clockwise ring (Cameron 1997; ALGORITHMS.md §3). The dot product
/// along a convex ring is unimodal, so the first vertex with no larger
/// neighbour is a support vertex. Needs n >= 3.
static inline int imp_support_climb(const imp_vec2 *v, int n, imp_vec2 d, int i)
{
	double s = v[i].x * d.x + v[i].y * d.y;
	int j = i + 1 == n ? 0 : i + 1;
	double sj = v[j].x * d.x + v[j].y * d.y;
	if (sj > s) {
		do {
			i = j;
			s = sj;
			j = i + 1 == n ? 0 : i + 1;
			sj = v[j].x * d.x + v[j].y * d.y;
		} while (sj > s);
		return i;
	}
	j = i == 0 ? n - 1 : i - 1;
	sj = v[j].x * d.x + v[j].y * d.y;
	while (sj > s) {
		i = j;
		s = sj;
		j = i == 0 ? n - 1 : i - 1;
		sj = v[j].x * d.x + v[j].y * d.y;
	}
	return i;
}

/// A good first vertex for climbing along d: from the pseudo-angle table
/// when the polygon has one, else vertex 0.
static inline int imp_support_start(const imp_shape *s, imp_vec2 d)
{
	if (s->start == NULL)
		return 0;
	int k = (int)(imp_pseudo_angle(d) * (IMP_ANGLE_BUCKETS / 4.0));
	k = k < 0 ? 0 : (k >= IMP_ANGLE_BUCKETS ? IMP_ANGLE_BUCKETS - 1 : k);
	return s->start[k];
}

/// Convex hull of 2D points (Andrew's monotone chain), counter-clockwise,
/// without duplicate or collinear points. Writes into `out` and returns the vertex count (1 or more). `work` holds
/// `count` points of scratch space; `out` room for 2 * count points.
int imp_hull2(const imp_vec2 *points, int count, imp_vec2 *work, imp_vec2 *out);

#endif
