// SPDX-License-Identifier: MIT
// Non-convex shapes: compounds of convex children, triangle meshes, height
// fields and 2D chains. Each is a set of convex children (a compound's
// shapes at their poses; a mesh's triangles; a height field's cells, two
// triangular prisms each; a chain's segments) under one bounding-volume
// hierarchy (shape/bvh.h), built when the shape is made. The narrow phase
// meets them one child at a time: composite_child2/3 give a child as a
// convex shape record on the caller's stack, which every convex query takes.
#ifndef IMPACT_SHAPE_COMPOSITE_H
#define IMPACT_SHAPE_COMPOSITE_H

#include <stdbool.h>
#include <stdint.h>

#include "shape/bvh.h"
#include "shape/shape3_internal.h"

/// The largest counts the constructors take: a hierarchy has 2 n - 1
/// nodes of 64 bytes, which stay within int32_t indices and a few GB.
#define IMP_COMPOUND_MAX_CHILDREN (1 << 20)
#define IMP_MESH_MAX_VERTICES (1 << 26)
#define IMP_MESH_MAX_TRIANGLES (1 << 24)
#define IMP_HEIGHTFIELD_MAX_CELLS (1 << 24)
#define IMP_CHAIN_MAX_POINTS (1 << 24)

/// A non-convex shape. Its first fields are those of struct imp_shape (the
/// same offsets, checked in composite.c), so the dimension-independent
/// accessors read either; `kind` is one of the IMP_SHAPE_COMPOUND2 ..
/// IMP_SHAPE_CHAIN kinds, which imp_shape_is_composite tells apart.
typedef struct imp_composite {
	uint32_t magic;
	uint8_t dim;
	uint8_t kind;
	uint8_t loop;         ///< chain: closed
	uint8_t reserved;
	int32_t count;        ///< children: compound children, triangles, 2 x cells, segments
	int32_t base_offset;  ///< 0: the record starts its allocation
	double radius;        ///< rounding of every child (0 for compounds, whose children carry their own)
	imp_bvh bvh;          ///< over the pieces: a piece is a child, except a height-field cell (two children)
	imp_box box;          ///< the shape's box in its own frame, rounding included
	double bound_radius;  ///< the largest distance of a point of the shape from its origin
	imp_allocator alloc;
	size_t bytes;         ///< of the record's allocation (the arrays below are separate)
	// Compounds.
	const imp_shape **children;
	imp_pose2 *poses2;
	imp_pose3 *poses3;
	// Meshes: vertices (also a height field's nothing) and corner indices.
	imp_vec3 *v3;
	int32_t vertex_count;
	int32_t *triangles;   ///< 3 per triangle
	// Height fields.
	double *heights;      ///< rows x cols
	int32_t rows, cols;
	double dx, dy, base_z;
	// Chains.
	imp_vec2 *v2;
	int32_t point_count;
} imp_composite;

static inline bool imp_kind_is_composite(int kind)
{
	return kind >= IMP_SHAPE_COMPOUND2 && kind <= IMP_SHAPE_CHAIN;
}

/// True for a live non-convex shape (NULL and foreign records: false).
static inline bool imp_shape_is_composite(const imp_shape *s)
{
	return s != NULL && s->magic == IMP_SHAPE_MAGIC && imp_kind_is_composite(s->kind);
}

static inline const imp_composite *imp_composite_of(const imp_shape *s)
{
	return (const imp_composite *)(const void *)s;
}

/// A 2D child as a convex shape: `shape` points at the compound's child or
/// at `rec` (a chain's segment), `pose` is its pose in the composite's
/// frame (identity for chains).
typedef struct imp_child2 {
	const imp_shape *shape;
	imp_pose2 pose;
	bool posed;           ///< pose is not the identity
	int corner[2];        ///< chain: the points rec's vertices are (indices into the chain)
	struct imp_shape rec;
	imp_vec2 v[2];
} imp_child2;

/// A 3D child as a convex shape: the compound's child at its pose, or a
/// triangle (a segment or point when degenerate) or a height-field prism in
/// `rec`, whose vertices are the corners named by corner[] (a prism: top
/// corners 0..2, the bottom ones below them 3..5).
typedef struct imp_child3 {
	const imp_shape *shape;
	imp_pose3 pose;
	bool posed;
	int corner[3];        ///< triangle: the triangle's corner (0..2) each of rec's vertices is
	imp_shape3 rec;
	imp_vec3 v[6];
	imp_vec3 normal[5];
} imp_child3;

/// Child k of a 2D / 3D composite (0 <= k < count).
void imp_composite_child2(const imp_composite *c, int32_t k, imp_child2 *out);
void imp_composite_child3(const imp_composite *c, int32_t k, imp_child3 *out);

/// The corners of child k of a mesh (3) or height field (6, a prism's)
/// into v[0 ..), their count: what a cheap bound needs of a child, without
/// its record.
int imp_composite_corners3(const imp_composite *c, int32_t k, imp_vec3 *v);

/// The children of piece p of the hierarchy: first, and how many (1, or 2
/// for a height-field cell).
static inline int32_t imp_composite_piece_first(const imp_composite *c, int32_t p, int *n)
{
	if (c->kind == IMP_SHAPE_HEIGHTFIELD) {
		*n = 2;
		return 2 * p;
	}
	*n = 1;
	return p;
}

/// The box of a composite at a pose (tight for meshes, chains and height
/// fields: their corners moved; compounds: their children's boxes).
imp_status imp_composite_aabb2(const imp_composite *c, imp_pose2 pose, imp_aabb2 *out);
imp_status imp_composite_aabb3(const imp_composite *c, imp_pose3 pose, imp_aabb3 *out);

/// A box holding the composite turned by a rotation (q2 in 2D, q3 in 3D;
/// no translation): its own box turned (imp_box_move), which costs the
/// same for any number of children. The world boxes non-convex bodies so.
void imp_composite_rel_box(const imp_composite *c, const imp_rot2 *q2, const imp_quat *q3, imp_box *out);

/// The point of the composite at `pose` farthest along world `direction`
/// (unit or not, finite, not zero): the support of its convex hull.
imp_status imp_composite_support2(const imp_composite *c, imp_pose2 pose, imp_vec2 direction, imp_vec2 *out);
imp_status imp_composite_support3(const imp_composite *c, imp_pose3 pose, imp_vec3 direction, imp_vec3 *out);

/// The world pose of a child of a composite at `pose` (its pose composed
/// with the composite's, the rotation unit).
imp_pose2 imp_composite_pose2(imp_pose2 pose, const imp_child2 *ch);
imp_pose3 imp_composite_pose3(imp_pose3 pose, const imp_child3 *ch);

/// The vertices of a shape of dimension dim (imp_shape_vertices2/3).
int imp_shape_vertices_copy(const imp_shape *shape, int dim, void *out, int capacity);

/// Frees a composite (imp_shape_destroy's part for them).
void imp_composite_release(imp_composite *c);

#endif
