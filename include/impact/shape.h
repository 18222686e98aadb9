// SPDX-License-Identifier: MIT
/// @file shape.h
/// Immutable convex shapes. A shape is a convex core (a polygon, or any set
/// given by a support function) rounded by a radius: the set of points within
/// `radius` of the core. Shapes are reentrant and may be shared between
/// threads and bodies; they are made once and destroyed by their owner.
#ifndef IMPACT_SHAPE_H
#define IMPACT_SHAPE_H

#include <stdbool.h>

#include "base.h"
#include "math.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An opaque convex shape.
typedef struct imp_shape imp_shape;

/// What a shape is made of.
typedef enum imp_shape_kind {
	IMP_SHAPE_POLYGON = 1, ///< a convex polygon core (1 vertex: disc; 2: capsule or segment)
	IMP_SHAPE_USER2 = 2,   ///< a 2D core given by a support callback
} imp_shape_kind;

/// The most points imp_shape_polygon accepts.
#define IMP_POLYGON_MAX_POINTS (1 << 20)

/// The support callback of a user shape: the point of the core (in the
/// shape's own frame) that is farthest along `direction`. `direction` is not
/// normalised and is never zero. The callback must be reentrant, return
/// finite points, and describe a bounded convex set; ties may be broken any
/// way. A query whose callback returns a NaN or infinity ends in
/// IMP_STATE_DEGENERATE.
typedef imp_vec2 imp_support2_fn(const void *user, imp_vec2 direction);

/// The convex hull of `points` (any order; duplicate and collinear points are
/// dropped), counter-clockwise, rounded by `radius`. One distinct point gives a
/// disc (a point if radius is 0), two a capsule (a segment if radius is 0).
/// Errors: IMP_ERR_NULL_ARGUMENT (points or out NULL), IMP_ERR_BAD_COUNT
/// (count < 1 or > IMP_POLYGON_MAX_POINTS), IMP_ERR_NOT_FINITE (a coordinate),
/// IMP_ERR_BAD_RADIUS (radius < 0, NaN or infinite), IMP_ERR_OUT_OF_MEMORY.
/// On error *out is unchanged and nothing is allocated.
IMP_API imp_status imp_shape_polygon(const imp_vec2 *points, int count, double radius, imp_shape **out);

/// imp_shape_polygon with an allocator (NULL: malloc). The shape keeps a copy
/// of the allocator and frees itself through it.
IMP_API imp_status imp_shape_polygon_ex(const imp_vec2 *points, int count, double radius,
					const imp_allocator *allocator, imp_shape **out);

/// A disc of `radius` centred at `center`. radius must be > 0.
IMP_API imp_status imp_shape_circle(imp_vec2 center, double radius, imp_shape **out);

/// The points within `radius` of segment [p0, p1]. radius must be > 0;
/// p0 == p1 gives a disc.
IMP_API imp_status imp_shape_capsule2(imp_vec2 p0, imp_vec2 p1, double radius, imp_shape **out);

/// The segment [p0, p1] (a capsule of radius 0).
IMP_API imp_status imp_shape_segment2(imp_vec2 p0, imp_vec2 p1, imp_shape **out);

/// The box [-hx, hx] x [-hy, hy] rounded by `radius`. hx, hy must be > 0.
IMP_API imp_status imp_shape_box2(double hx, double hy, double radius, imp_shape **out);

/// A 2D shape whose core is given by `support` (called with `user`, which
/// may be NULL), rounded by `radius`. `user` must stay valid while the shape
/// lives. The callback is called here, along the four axis directions, to
/// find a point inside the core and a bound: a non-finite answer gives
/// IMP_ERR_NOT_FINITE. Errors also: IMP_ERR_NULL_ARGUMENT (support or out),
/// IMP_ERR_BAD_RADIUS, IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_user2(imp_support2_fn *support, const void *user, double radius, imp_shape **out);

/// Frees a shape. NULL is ignored. The shape must not be used (nor
/// destroyed) again.
IMP_API void imp_shape_destroy(imp_shape *shape);

/// 2 or 3 for a live shape; 0 for NULL or anything that is not a shape.
IMP_API int imp_shape_dim(const imp_shape *shape);

/// The kind of a shape; 0 for NULL or anything that is not a shape.
IMP_API int imp_shape_kind_of(const imp_shape *shape);

/// The rounding radius (0 for a sharp shape); NaN for an invalid shape.
IMP_API double imp_shape_radius(const imp_shape *shape);

/// The number of core vertices of a polygon (0 for user shapes, -1 invalid).
IMP_API int imp_shape_vertex_count(const imp_shape *shape);

/// Copies the core vertices of a polygon (counter-clockwise, local frame)
/// into out[0 .. min(capacity, count)). Returns the vertex count, or -1 for
/// an invalid shape or a NULL `out` with capacity > 0.
IMP_API int imp_shape_vertices2(const imp_shape *shape, imp_vec2 *out, int capacity);

/// The point of the rounded shape at `pose` farthest along `direction`
/// (world frame; any finite non-zero length). Errors: IMP_ERR_NULL_ARGUMENT,
/// IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH, IMP_ERR_NOT_FINITE (a
/// non-finite or zero direction, a non-finite pose or user support),
/// IMP_ERR_BAD_ROTATION.
IMP_API imp_status imp_shape_support2(const imp_shape *shape, imp_pose2 pose, imp_vec2 direction, imp_vec2 *out);

/// The tight bounding box of the rounded shape at `pose`.
IMP_API imp_status imp_shape_aabb2(const imp_shape *shape, imp_pose2 pose, imp_aabb2 *out);

/// True when `pose` is finite with a unit rotation (|c^2 + s^2 - 1| <= 1e-9),
/// the condition every query checks.
IMP_API bool imp_pose2_is_valid(imp_pose2 pose);

#ifdef __cplusplus
}
#endif

#endif
