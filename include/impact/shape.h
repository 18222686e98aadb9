// SPDX-License-Identifier: MIT
/// @file shape.h
/// Immutable convex shapes. A shape is a convex core (a polygon, or any set
/// given by a support function) rounded by a radius: the set of points within
/// `radius` of the core. Shapes are reentrant and may be shared between
/// threads and bodies; they are made once and destroyed by their owner.
#ifndef IMPACT_SHAPE_H
#define IMPACT_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "vecmath.h"

#ifdef __cplusplus
extern "C" {
#endif

/// An opaque shape: convex, or non-convex (a set of convex children).
typedef struct imp_shape imp_shape;

/// What a shape is made of.
typedef enum imp_shape_kind {
	IMP_SHAPE_POLYGON = 1, ///< a convex polygon core (1 vertex: disc; 2: capsule or segment)
	IMP_SHAPE_USER2 = 2,   ///< a 2D core given by a support callback
	IMP_SHAPE_POLYTOPE = 3,  ///< a convex polytope core (its hull may be a point, segment or flat polygon)
	IMP_SHAPE_SPHERE = 4,    ///< a point core rounded by the radius
	IMP_SHAPE_CAPSULE3 = 5,  ///< a segment core rounded by the radius
	IMP_SHAPE_BOX3 = 6,      ///< a box core [-hx, hx] x [-hy, hy] x [-hz, hz]
	IMP_SHAPE_CYLINDER = 7,  ///< a cylinder core about the z axis, z in [-h, h]
	IMP_SHAPE_CONE = 8,      ///< a cone core about the z axis: base disc at z = -h, apex at z = +h
	IMP_SHAPE_ELLIPSOID = 9, ///< an ellipsoid core with semi-axes along x, y, z
	IMP_SHAPE_USER3 = 10,    ///< a 3D core given by a support callback
	// Non-convex shapes: sets of convex children under a bounding-volume
	// hierarchy (see "Non-convex shapes" below).
	IMP_SHAPE_COMPOUND2 = 11,  ///< 2D convex shapes, each at a pose
	IMP_SHAPE_COMPOUND3 = 12,  ///< 3D convex shapes, each at a pose
	IMP_SHAPE_MESH = 13,       ///< a triangle mesh (a surface), rounded by a radius
	IMP_SHAPE_HEIGHTFIELD = 14, ///< a grid of heights over x-y, solid down to a base
	IMP_SHAPE_CHAIN = 15,      ///< a 2D polyline, open or closed, rounded by a radius
} imp_shape_kind;

/// What kind of feature of a shape's core holds a closest point.
typedef enum imp_feature_kind {
	IMP_FEATURE_NONE = 0, ///< not known (user shapes)
	IMP_FEATURE_VERTEX,   ///< vertex `index`
	IMP_FEATURE_EDGE,     ///< edge `index`: 2D from vertex index to vertex (index + 1) % count; 3D see imp_shape_edge
	IMP_FEATURE_FACE,     ///< face `index` (3D, see imp_shape_face)
} imp_feature_kind;

typedef struct imp_feature {
	imp_feature_kind kind;
	int index;
} imp_feature;

/// The most points imp_shape_polygon accepts.
#define IMP_POLYGON_MAX_POINTS (1 << 20)

/// The most points imp_shape_polytope accepts.
#define IMP_POLYTOPE_MAX_POINTS (1 << 20)

/// The support callback of a user shape: the point of the core (in the
/// shape's own frame) that is farthest along `direction`. `direction` is not
/// normalised and is never zero. The callback must be reentrant, return
/// finite points, and describe a bounded convex set; ties may be broken any
/// way. A query whose callback returns a NaN or infinity ends in
/// IMP_STATE_DEGENERATE.
typedef imp_vec2 imp_support2_fn(const void *user, imp_vec2 direction);

/// The convex hull of `points` (any order; duplicate and collinear points are
/// dropped), counter-clockwise, rounded by `radius`. Its vertices are input
/// points at strict corners (orientation decided exactly); a point on the
/// way of a nearly straight run (within 1e-14 of the chord's length of the
/// segment between its neighbours) is dropped too, so every input point is
/// inside the hull or within that of it. One distinct point gives a
/// disc (a point if radius is 0), two a capsule (a segment if radius is 0).
/// Errors: IMP_ERR_NULL_ARGUMENT (points or out NULL), IMP_ERR_BAD_COUNT
/// (count < 1 or > IMP_POLYGON_MAX_POINTS), IMP_ERR_NOT_FINITE (a coordinate),
/// IMP_ERR_OUT_OF_RANGE (a coordinate or the radius beyond
/// IMP_MAX_COORDINATE), IMP_ERR_BAD_RADIUS (radius < 0, NaN or infinite),
/// IMP_ERR_OUT_OF_MEMORY. On error *out is unchanged and nothing is allocated.
IMP_API imp_status imp_shape_polygon(const imp_vec2 *points, int count, double radius, imp_shape **out);

/// imp_shape_polygon with an allocator (NULL: malloc). The shape keeps a copy
/// of the allocator and frees itself through it. Errors as imp_shape_polygon,
/// and IMP_ERR_NULL_ARGUMENT for an allocator with only some functions set.
IMP_API imp_status imp_shape_polygon_ex(const imp_vec2 *points, int count, double radius,
					const imp_allocator *allocator, imp_shape **out);

/// A disc of `radius` centred at `center`. radius must be > 0.
/// Errors: IMP_ERR_NULL_ARGUMENT (out), IMP_ERR_BAD_RADIUS (radius not > 0,
/// or infinite), IMP_ERR_NOT_FINITE (a coordinate of center),
/// IMP_ERR_OUT_OF_RANGE (a coordinate or the radius beyond
/// IMP_MAX_COORDINATE), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_circle(imp_vec2 center, double radius, imp_shape **out);

/// The points within `radius` of segment [p0, p1]. radius must be > 0;
/// p0 == p1 gives a disc. Errors as imp_shape_circle (p0, p1 as center).
IMP_API imp_status imp_shape_capsule2(imp_vec2 p0, imp_vec2 p1, double radius, imp_shape **out);

/// The segment [p0, p1] (a capsule of radius 0). Errors:
/// IMP_ERR_NULL_ARGUMENT (out), IMP_ERR_NOT_FINITE (a coordinate),
/// IMP_ERR_OUT_OF_RANGE (a coordinate beyond IMP_MAX_COORDINATE),
/// IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_segment2(imp_vec2 p0, imp_vec2 p1, imp_shape **out);

/// The box [-hx, hx] x [-hy, hy] rounded by `radius`. hx, hy must be > 0.
/// Errors: IMP_ERR_NULL_ARGUMENT (out), IMP_ERR_BAD_RADIUS (hx or hy not > 0
/// or infinite; radius < 0, NaN or infinite), IMP_ERR_OUT_OF_RANGE (hx, hy
/// or radius beyond IMP_MAX_COORDINATE), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_box2(double hx, double hy, double radius, imp_shape **out);

/// A 2D shape whose core is given by `support` (called with `user`, which
/// may be NULL), rounded by `radius`. `user` must stay valid while the shape
/// lives. The callback is called here, along the four axis directions, to
/// find a point inside the core and a bound: a non-finite answer gives
/// IMP_ERR_NOT_FINITE. Errors also: IMP_ERR_NULL_ARGUMENT (support or out),
/// IMP_ERR_BAD_RADIUS (radius < 0, NaN or infinite), IMP_ERR_OUT_OF_RANGE
/// (the radius or a coordinate of an axis support beyond
/// IMP_MAX_COORDINATE), IMP_ERR_OUT_OF_MEMORY.
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

/// The number of core vertices of a polygon or polytope (0 for curved and
/// user shapes), of a mesh's vertices, of a chain's points (0 for compounds
/// and height fields); -1 invalid.
IMP_API int imp_shape_vertex_count(const imp_shape *shape);

/// Copies the core vertices of a polygon (counter-clockwise, local frame),
/// or a chain's points, into out[0 .. min(capacity, count)). Returns the vertex count, or -1 for
/// an invalid shape or a NULL `out` with capacity > 0.
IMP_API int imp_shape_vertices2(const imp_shape *shape, imp_vec2 *out, int capacity);

/// The point of the rounded shape at `pose` farthest along `direction`
/// (world frame; any finite non-zero length). Errors: IMP_ERR_NULL_ARGUMENT,
/// IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH, IMP_ERR_NOT_FINITE (a
/// non-finite or zero direction, a non-finite pose or user support),
/// IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE (the pose's translation
/// beyond IMP_MAX_COORDINATE; for a compound, also a child's pose composed
/// with `pose`); *out untouched then.
IMP_API imp_status imp_shape_support2(const imp_shape *shape, imp_pose2 pose, imp_vec2 direction, imp_vec2 *out);

/// The tight bounding box of the rounded shape at `pose`. A non-convex
/// shape's (compound, chain) is the union of the turned boxes of its
/// hierarchy's nodes three levels below the root: a few boxes a pose, not
/// every vertex; it holds the shape, and is the box a world gives its
/// body. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE,
/// IMP_ERR_DIMENSION_MISMATCH, the pose's (IMP_ERR_NOT_FINITE,
/// IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE), IMP_ERR_NOT_FINITE (a user
/// support's point).
IMP_API imp_status imp_shape_aabb2(const imp_shape *shape, imp_pose2 pose, imp_aabb2 *out);

/// True when `pose` is finite with a unit rotation (|c^2 + s^2 - 1| <= 1e-9),
/// the condition every query checks.
IMP_API bool imp_pose2_is_valid(imp_pose2 pose);

// ---------------------------------------------------------------------------
// 3D shapes. Poses are imp_pose3; a quaternion must have |q|^2 within 1e-6
// of 1 (IMP_ERR_BAD_ROTATION otherwise: a float-normalised quaternion
// passes) and is normalised before use.

/// The support callback of a 3D user shape: as imp_support2_fn, in 3D.
typedef imp_vec3 imp_support3_fn(const void *user, imp_vec3 direction);

/// The convex hull of `points` (any order; duplicate and coplanar points are
/// dropped; coplanar faces merged into polygons), rounded by `radius`.
/// Degenerate input gives the hull that exists: one distinct point (a
/// sphere, or a point), collinear points (a segment: a capsule), coplanar
/// points (a flat convex polygon). Vertex adjacency is kept for hill
/// climbing. Errors as imp_shape_polygon, with IMP_POLYTOPE_MAX_POINTS.
IMP_API imp_status imp_shape_polytope(const imp_vec3 *points, int count, double radius, imp_shape **out);

/// imp_shape_polytope with an allocator (NULL: malloc); IMP_ERR_NULL_ARGUMENT
/// also for an allocator with only some functions set.
IMP_API imp_status imp_shape_polytope_ex(const imp_vec3 *points, int count, double radius,
					 const imp_allocator *allocator, imp_shape **out);

/// A sphere of `radius` (> 0) centred at `center`. Errors:
/// IMP_ERR_NULL_ARGUMENT (out), IMP_ERR_NOT_FINITE (a coordinate of center),
/// IMP_ERR_BAD_RADIUS (radius not > 0, or infinite), IMP_ERR_OUT_OF_RANGE (a
/// coordinate or the radius beyond IMP_MAX_COORDINATE),
/// IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_sphere(imp_vec3 center, double radius, imp_shape **out);

/// The points within `radius` (> 0) of segment [p0, p1]. Errors as
/// imp_shape_sphere (p0, p1 as center).
IMP_API imp_status imp_shape_capsule3(imp_vec3 p0, imp_vec3 p1, double radius, imp_shape **out);

/// Boxes, cylinders, cones and ellipsoids are centred on their shape's
/// origin. One off a body's origin (a box whose centre is not the body's
/// reference point) is a compound of that one child at its pose
/// (imp_shape_compound3(&child, &pose, 1, &out)): it answers as the child
/// at the composed pose (tests/test_composite3.c, test_offset_primitive),
/// through the compound's path. A box may also be a polytope on its moved
/// corners.
///
/// The box [-hx, hx] x [-hy, hy] x [-hz, hz] rounded by `radius`. Half
/// sizes must be > 0. Errors: IMP_ERR_NULL_ARGUMENT (out), IMP_ERR_BAD_RADIUS
/// (a half size not > 0 or infinite; radius < 0, NaN or infinite),
/// IMP_ERR_OUT_OF_RANGE (a half size or the radius beyond
/// IMP_MAX_COORDINATE), IMP_ERR_OUT_OF_MEMORY. It keeps its eight
/// corners, 12 edges and 6 faces at every aspect ratio (vertex k is the
/// corner (+-hx, +-hy, +-hz) by the bits of k): those of imp_shape_polytope
/// on the same corners, except that the polytope flattens a box thinner
/// than its tolerance (about 1e-14 of the size) to four of them.
IMP_API imp_status imp_shape_box3(double hx, double hy, double hz, double radius, imp_shape **out);

/// The cylinder of `cylinder_radius` about the z axis, z in [-half_height,
/// half_height], rounded by `radius`. Sizes > 0. Errors as imp_shape_box3
/// (the sizes as its half sizes).
IMP_API imp_status imp_shape_cylinder(double half_height, double cylinder_radius, double radius, imp_shape **out);

/// The cone about the z axis with its base disc of `base_radius` at z =
/// -half_height and its apex at z = +half_height, rounded by `radius`.
/// Sizes > 0. Errors as imp_shape_box3 (the sizes as its half sizes).
IMP_API imp_status imp_shape_cone(double half_height, double base_radius, double radius, imp_shape **out);

/// The smallest semi-axis imp_shape_ellipsoid accepts: its square is a
/// normal number (1e-300), which the ellipsoid's support and curvature
/// divide by. (The other shapes' sizes may be any positive number: their
/// queries do not square them.)
#define IMP_MIN_SEMI_AXIS 1e-150

/// The largest ratio of an ellipsoid's longest semi-axis to its shortest
/// (2^40, about 1.1e12). The support of an ellipsoid with semi-axes E
/// along d is E^2 d / |E d|; a direction rounded by 1e-16 in the shape's
/// frame moves it along the long axis by the ratio times 1e-16 of its
/// length, and from a ratio near 1e16 the support lands anywhere on the
/// needle. Up to this ratio it moves by 1e-4 of the length at most, which
/// changes the support's value by 1e-20 of it.
#define IMP_MAX_ELLIPSOID_ASPECT 0x1p40

/// The ellipsoid with semi-axes rx, ry, rz along x, y, z, rounded by
/// `radius`. Semi-axes from IMP_MIN_SEMI_AXIS to IMP_MAX_COORDINATE, the
/// longest at most IMP_MAX_ELLIPSOID_ASPECT times the shortest:
/// IMP_ERR_BAD_RADIUS for one <= 0, NaN or infinite, IMP_ERR_OUT_OF_RANGE
/// for one outside that range (a semi-axis of 1e-200 made a shape whose
/// box and supports were NaN) or a ratio beyond the limit (a needle 4.2e16
/// by 0.156 was called overlapping a box 378 away). Errors also:
/// IMP_ERR_NULL_ARGUMENT (out), for the rounding radius IMP_ERR_BAD_RADIUS
/// (< 0, NaN or infinite) and IMP_ERR_OUT_OF_RANGE (beyond
/// IMP_MAX_COORDINATE), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_ellipsoid(double rx, double ry, double rz, double radius, imp_shape **out);

/// A 3D shape whose core is given by `support`, as imp_shape_user2 (six
/// axis supports are taken here), with the same errors.
IMP_API imp_status imp_shape_user3(imp_support3_fn *support, const void *user, double radius, imp_shape **out);

/// Copies the core vertices of a polytope or box (local frame), or a mesh's
/// vertices, into out[0 .. min(capacity, count)). Returns the vertex count (0 for curved
/// and user shapes), or -1 for an invalid or 2D shape or a NULL `out` with
/// capacity > 0.
IMP_API int imp_shape_vertices3(const imp_shape *shape, imp_vec3 *out, int capacity);

/// The number of faces of a polytope or box core (a flat polygon has 1, a
/// segment or point 0; curved and user shapes 0), or -1 for an invalid or
/// 2D shape.
IMP_API int imp_shape_face_count(const imp_shape *shape);

/// The number of edges of a polytope or box core (0 for curved and user
/// shapes), or -1 for an invalid or 2D shape.
IMP_API int imp_shape_edge_count(const imp_shape *shape);

/// The two vertex indices of edge `index` of a polytope core.
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH,
/// IMP_ERR_BAD_COUNT (index out of range).
IMP_API imp_status imp_shape_edge(const imp_shape *shape, int index, int *v0, int *v1);

/// The vertex indices of face `index` of a polytope core, counter-clockwise
/// seen from outside, into out[0 .. min(capacity, n)); returns n, or -1 for
/// a bad shape or index, or a NULL `out` with capacity > 0.
IMP_API int imp_shape_face(const imp_shape *shape, int index, int *out, int capacity);

/// The point of the rounded shape at `pose` farthest along `direction`
/// (world frame; any finite non-zero length). Errors as imp_shape_support2.
IMP_API imp_status imp_shape_support3(const imp_shape *shape, imp_pose3 pose, imp_vec3 direction, imp_vec3 *out);

/// The tight bounding box of the rounded shape at `pose`. A non-convex
/// shape's (compound, mesh, height field) is the union of the turned boxes
/// of its hierarchy's nodes three levels below the root (each the
/// intersection of its axis-aligned and oriented boxes turned): a few
/// boxes a pose, not every vertex; it holds the shape, and is the box a
/// world gives its body. Errors as imp_shape_aabb2.
IMP_API imp_status imp_shape_aabb3(const imp_shape *shape, imp_pose3 pose, imp_aabb3 *out);

/// True when `pose` is finite, its translation within IMP_MAX_COORDINATE
/// and |q|^2 within 1e-6 of 1: the condition every 3D query checks.
IMP_API bool imp_pose3_is_valid(imp_pose3 pose);

// ---------------------------------------------------------------------------
// Non-convex shapes. Each is a set of convex children: a compound's shapes,
// a mesh's triangles, a height field's cells (two triangular prisms each),
// a chain's segments. Every pairwise query takes them on either side or on
// both, as the union of their children: overlap when a child overlaps;
// distance and closest points those of the nearest pair of children; for
// shapes that overlap, the deepest penetration over the pairs of children
// that overlap (imp_closest2/3 name the children in child_a and child_b).
// A bounding-volume hierarchy over the children, built here, finds them.
// Children are numbered from 0: a compound's in the order given, a mesh's
// triangles, a chain's segments, and a height field's prisms 2 (r (cols -
// 1) + c) + t for triangle t (0 or 1) of the cell at row r, column c.

/// A compound: convex children (any shape kind made so far: polygons/polytopes, circles/spheres,
/// capsules, boxes, ..., user shapes), each at a pose in the compound's frame. The children stay
/// owned by the caller and must outlive the compound. count >= 1.
/// Errors: IMP_ERR_NULL_ARGUMENT (an array, a child or out), IMP_ERR_BAD_COUNT
/// (count < 1 or > 2^20), IMP_ERR_BAD_SHAPE (a child that is not a shape),
/// IMP_ERR_DIMENSION_MISMATCH (a child of the other dimension),
/// IMP_ERR_UNSUPPORTED (a non-convex child: compounds do not nest),
/// the pose errors of a query for a child's pose, IMP_ERR_NOT_FINITE (a user
/// child's support), IMP_ERR_OUT_OF_MEMORY. The compound's radius is 0 (its
/// children carry their own).
IMP_API imp_status imp_shape_compound2(const imp_shape *const *children, const imp_pose2 *poses, int count, imp_shape **out);
IMP_API imp_status imp_shape_compound3(const imp_shape *const *children, const imp_pose3 *poses, int count, imp_shape **out);

/// A triangle mesh: vertices and triangles (three vertex indices each, any winding, open or closed,
/// not necessarily manifold), rounded by radius >= 0. The mesh is the union of its triangles (a
/// surface), not the solid a closed mesh bounds: a shape entirely inside a closed mesh without
/// touching a triangle does not overlap it, as in FCL and Bullet. A triangle without area (repeated
/// or collinear corners) is the segment between its two corners farthest apart, or its point.
/// Copies what it needs. Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_COUNT (vertex_count < 1 or
/// > 2^26, triangle_count < 1 or > 2^24, an index outside [0, vertex_count)), IMP_ERR_NOT_FINITE,
/// IMP_ERR_OUT_OF_RANGE (a coordinate or the radius beyond IMP_MAX_COORDINATE), IMP_ERR_BAD_RADIUS
/// (radius < 0, NaN or infinite), IMP_ERR_OUT_OF_MEMORY.
/// imp_shape_face_count gives the triangle count and imp_shape_face a triangle's vertex indices.
IMP_API imp_status imp_shape_mesh(const imp_vec3 *vertices, int vertex_count, const int32_t *triangles, int triangle_count,
				  double radius, imp_shape **out);

/// A height field: rows x cols heights over the x-y plane (z up), heights[r * cols + c] at
/// (c * dx, r * dy); each grid cell is solid down to base_z (base_z below every height), so a body
/// pushed below the terrain still overlaps it. A cell is split along its diagonal from (c, r) to
/// (c + 1, r + 1): triangle 0 has corners (c, r), (c + 1, r), (c + 1, r + 1), triangle 1 (c, r),
/// (c + 1, r + 1), (c, r + 1); under each stands a prism down to base_z. Errors:
/// IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_COUNT (rows or cols < 2, more than 2^24 cells),
/// IMP_ERR_NOT_FINITE (dx, dy, base_z or a height), IMP_ERR_BAD_RADIUS (dx or dy not > 0; radius
/// < 0, NaN or infinite), IMP_ERR_OUT_OF_RANGE (a height at or below base_z; a coordinate or the
/// radius beyond IMP_MAX_COORDINATE), IMP_ERR_OUT_OF_MEMORY.
IMP_API imp_status imp_shape_heightfield(const double *heights, int rows, int cols, double dx, double dy, double base_z,
					 double radius, imp_shape **out);

/// A 2D chain: the segments p[0]p[1], ..., p[count-2]p[count-1] (and p[count-1]p[0] when loop),
/// rounded by radius >= 0. count >= 2. A segment whose two points are equal is that point.
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_COUNT (count < 2 or > 2^24), IMP_ERR_NOT_FINITE,
/// IMP_ERR_OUT_OF_RANGE (a coordinate or the radius), IMP_ERR_BAD_RADIUS, IMP_ERR_OUT_OF_MEMORY.
/// imp_shape_vertices2 gives the points back.
IMP_API imp_status imp_shape_chain(const imp_vec2 *points, int count, bool loop, double radius, imp_shape **out);

/// A triangle mesh (imp_shape_mesh) read from the file at `path`, rounded by radius >= 0.
/// Formats, told apart by the contents, except OBJ by the name:
/// - Wavefront OBJ, when the name ends in ".obj" (any case): its `v x y z` lines (further numbers,
///   such as w or a colour, are ignored) and `f` lines of three or more vertex references `i`,
///   `i/t`, `i//n` or `i/t/n`, where i counts the vertices above the face from 1, or back from
///   the face from -1; a polygon is fanned into triangles (i0 ik ik+1). Other lines (vn, vt,
///   o, g, s, usemtl, mtllib, l, ...), comments from `#` and blank lines are skipped; CRLF
///   line ends are taken. The vertices are the file's, in its order, not merged.
/// - binary STL, when the file is 84 + 50 n bytes long for the count n at byte 80
///   (little-endian; the single-precision coordinates widened to double; normals ignored);
/// - else ASCII STL, when it starts with "solid" after optional white space: `facet normal`,
///   `outer loop`, three `vertex x y z`, `endloop`, `endfacet`, `endsolid`, keywords in any case,
///   one or more solids.
/// STL repeats a vertex in each triangle it is in: equal coordinates (bitwise, with -0 taken as
/// +0) are merged into one vertex, in the order of first appearance. Text numbers are decimal
/// (or nan, inf, infinity) and read in any locale. Errors: IMP_ERR_NULL_ARGUMENT (path or out),
/// IMP_ERR_BAD_RADIUS, IMP_ERR_OUT_OF_RANGE (the radius or a coordinate beyond
/// IMP_MAX_COORDINATE), IMP_ERR_IO (the file cannot be opened or read), IMP_ERR_PARSE (a
/// binary STL of a size that does not match its count, a bad keyword or number, a missing
/// `endloop` or `endsolid`, a loop of other than three vertices, a face of fewer than three
/// vertices, a vertex reference 0 or to no vertex above, no triangle in the file),
/// IMP_ERR_NOT_FINITE (a NaN or infinite coordinate), IMP_ERR_BAD_COUNT (more vertices or
/// triangles than imp_shape_mesh takes: 2^26, 2^24), IMP_ERR_OUT_OF_MEMORY. On error *out is
/// unchanged and nothing stays allocated.
IMP_API imp_status imp_shape_mesh_from_file(const char *path, double radius, imp_shape **out);

/// imp_shape_mesh_from_file, and where a text file (ASCII STL, OBJ) went wrong: *error_line
/// (error_line may be NULL) is set to the 1-based line of the first thing that does not parse,
/// or of the number that is not finite or out of range, or of the face beyond the counts; to
/// the file's last line when it ends too early; to 0 on success, for a binary file, or when
/// the error is not tied to a line (IO, no triangle, radius, memory).
IMP_API imp_status imp_shape_mesh_from_file_ex(const char *path, double radius, int *error_line, imp_shape **out);

/// The number of children of a non-convex shape; 0 for a convex shape, -1
/// for NULL or anything that is not a shape.
IMP_API int imp_shape_child_count(const imp_shape *shape);

#ifdef __cplusplus
}
#endif

#endif
