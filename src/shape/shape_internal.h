// SPDX-License-Identifier: MIT
// The shape record and its support functions, shared by the narrow phase.
#ifndef IMPACT_SHAPE_INTERNAL_H
#define IMPACT_SHAPE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <math.h>

#include "core/inline.h"
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
#define IMP_HILL_CLIMB_MIN_VERTICES 12

/// What only user shapes and shapes with a custom allocator need, after
/// the vertex arrays in the same allocation.
typedef struct imp_shape_cold {
	imp_support2_fn *support; ///< user shapes
	const void *user;
	imp_allocator allocator;
	size_t bytes;             ///< size of the allocation
} imp_shape_cold;

/// A shape: this record, one cache line, and after it in the same
/// allocation the vertices (16 bytes each), the hill-climbing start table
/// (polygons of IMP_ANGLE_TABLE_MIN vertices or more) and, where needed,
/// the cold part. A 4-gon takes 128 bytes: the benchmark's 2000 shapes then
/// stay in the L2 cache, where with its earlier 280 bytes they did not
/// (bench/narrow2d: 6 L1 misses a query against Box2D's 1.8, whose float
/// vertices sit in one pool).
struct imp_shape {
	uint32_t magic;
	uint8_t dim;
	uint8_t kind;
	uint8_t climb_auto;   ///< hill climbing under the default options
	uint8_t sharp;        ///< a polygon vertex turns by a half turn less IMP_SHARP_TIP or less (see below)
	int32_t count;        ///< core vertices (polygon), 0 for user shapes
	int32_t base_offset;  ///< the allocation starts this many bytes before the record
	double radius;
	imp_vec2 center;      ///< a point inside the core, local frame
	const imp_vec2 *v;    ///< core vertices, counter-clockwise; NULL for user shapes
	double bound_radius;  ///< max distance of a point of the rounded shape from the local origin
	imp_shape_cold *cold; ///< NULL for polygons made with the default allocator
};

/// A polygon vertex whose two edges meet at an angle (the core's inside)
/// of this many radians or less makes the polygon `sharp`: a needle's tip.
/// There its edges are nearly opposite, and the polygon walk's merge by
/// cross products, which orders two edges by the sign of sin of the angle
/// between them, reads rounding once that sine falls to 1e-16 of the
/// edges (fuzz finding 71: a needle triangle whose tip turned within 1e-21
/// of a half turn; the walk answered depth 0 for 17.2, its witnesses 3.5e-8
/// of the scene apart along the normal). A sharp ring is merged by angle,
/// as a segment is.
#define IMP_SHARP_TIP 0x1p-20

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(struct imp_shape) == 64, "the query record is one cache line");
#endif

/// Larger and smaller of two numbers, neither NaN: unlike fmax and fmin,
/// which glibc calls out of line without -ffast-math, these inline to one
/// instruction (measured in bench/narrow2d: 16 calls made an AABB cost 350
/// instructions).
static inline double imp_max(double a, double b)
{
	return a > b ? a : b;
}

static inline double imp_min(double a, double b)
{
	return a < b ? a : b;
}

/// IMP_OK when `t` is a valid pose: finite, translation within
/// IMP_MAX_COORDINATE, rotation unit to 1e-9; else why not.
static inline imp_status imp_pose2_status(imp_pose2 t)
{
	// The common case in one test (this runs once per pose a world is
	// given): |q|^2 within 1e-9 of 1 holds only for a finite q, the range
	// test only for a finite translation.
	if (fabs(t.p.x) <= IMP_MAX_COORDINATE && fabs(t.p.y) <= IMP_MAX_COORDINATE &&
	    fabs(t.q.c * t.q.c + t.q.s * t.q.s - 1.0) <= 1e-9)
		return IMP_OK;
	// Which error: x * 0 is 0 for a finite x and NaN for an infinite or NaN
	// one, one test for all four.
	if (t.p.x * 0.0 + t.p.y * 0.0 + t.q.c * 0.0 + t.q.s * 0.0 != 0.0)
		return IMP_ERR_NOT_FINITE;
	if (!(fabs(t.p.x) <= IMP_MAX_COORDINATE && fabs(t.p.y) <= IMP_MAX_COORDINATE))
		return IMP_ERR_OUT_OF_RANGE;
	return IMP_ERR_BAD_ROTATION;
}

/// IMP_OK when `s` is a live shape of dimension `dim`, else the error.
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

/// Index of the vertex farthest along d, every vertex tried, the lowest of
/// equal ones. A plain loop with a branch: bench/narrow2d measured it
/// faster than branch-free forms (a tournament, two running maxima with
/// selects) by 10-35% on 4- and 8-gons, because the branch lets the CPU run
/// ahead on GJK's chain of dependent steps where selects make it wait.
IMP_ALWAYS_INLINE int imp_support_brute(const imp_vec2 *v, int n, imp_vec2 d)
{
	int best = 0;
	double bv = v[0].x * d.x + v[0].y * d.y;
	for (int i = 1; i < n; ++i) {
		double s = v[i].x * d.x + v[i].y * d.y;
		if (s > bv) {
			bv = s;
			best = i;
		}
	}
	return best;
}

/// Index of the vertex farthest along d by hill climbing from `i` along the
/// counter-clockwise ring (Cameron 1997; docs/narrow2d.md, "Supports"). The dot product
/// along a convex ring is unimodal, so the first vertex with no larger
/// neighbour is a support vertex. Needs n >= 3.
IMP_ALWAYS_INLINE int imp_support_climb(const imp_vec2 *v, int n, imp_vec2 d, int i)
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
	if (s->count < IMP_ANGLE_TABLE_MIN)
		return 0;
	const int32_t *table = (const int32_t *)(s->v + s->count);
	double a = imp_pseudo_angle(d) * (IMP_ANGLE_BUCKETS / 4.0);
	// Clamped before the conversion: a NaN or out-of-range double is not
	// converted to int (undefined behaviour).
	int k = a >= 0.0 && a < IMP_ANGLE_BUCKETS ? (int)a : 0;
	return table[k];
}

/// Convex hull of 2D points (Andrew's monotone chain), counter-clockwise,
/// without duplicate or collinear points. Writes into `out` and returns the vertex count (1 or more). `work` holds
/// `count` points of scratch space; `out` room for 2 * count points.
int imp_hull2(const imp_vec2 *points, int count, imp_vec2 *work, imp_vec2 *out);

/// The box of a user core rotated by q (no radius, no translation);
/// IMP_ERR_NOT_FINITE when a support is not finite.
imp_status imp_shape2_aabb_support(const imp_shape *shape, imp_rot2 q, imp_aabb2 *core);

/// The box of a checked shape rotated by q, radius included, relative to
/// its position: the box at pose (p, q) is this plus p (which is how the
/// world reuses it while a body only translates). Inline: polygons by
/// their vertices, user shapes by supports.
static inline imp_status imp_shape2_aabb_rel(const imp_shape *shape, imp_rot2 q, imp_aabb2 *rel)
{
	imp_aabb2 box;
	if (shape->kind == IMP_SHAPE_POLYGON) {
		imp_vec2 w = imp_rot2_apply(q, shape->v[0]);
		box.lo = box.hi = w;
		for (int i = 1; i < shape->count; ++i) {
			w = imp_rot2_apply(q, shape->v[i]);
			box.lo.x = imp_min(box.lo.x, w.x);
			box.lo.y = imp_min(box.lo.y, w.y);
			box.hi.x = imp_max(box.hi.x, w.x);
			box.hi.y = imp_max(box.hi.y, w.y);
		}
	} else {
		imp_status st = imp_shape2_aabb_support(shape, q, &box);
		if (st != IMP_OK)
			return st;
	}
	double r = shape->radius;
	rel->lo = imp_vec2_sub(box.lo, imp_vec2_make(r, r));
	rel->hi = imp_vec2_add(box.hi, imp_vec2_make(r, r));
	return IMP_OK;
}

/// imp_shape_aabb2 for a shape and pose the caller has checked (the world
/// checks each once, when the body is made and when its pose is set).
static inline imp_status imp_shape2_aabb_unchecked(const imp_shape *shape, imp_pose2 pose, imp_aabb2 *out)
{
	imp_aabb2 rel;
	imp_status st = imp_shape2_aabb_rel(shape, pose.q, &rel);
	if (st != IMP_OK)
		return st;
	out->lo = imp_vec2_add(rel.lo, pose.p);
	out->hi = imp_vec2_add(rel.hi, pose.p);
	return IMP_OK;
}

#endif
