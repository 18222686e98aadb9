// SPDX-License-Identifier: MIT
// The 3D convex hull (quickhull) behind imp_shape_polytope.
#ifndef IMPACT_HULL3D_H
#define IMPACT_HULL3D_H

#include <stdint.h>

#include "impact/base.h"
#include "impact/vecmath.h"

/// A convex hull in 3D, every array owned by the struct (one allocation
/// each, through the allocator given to imp_hull3_build).
///
/// - dim 3: a solid polytope. Faces are convex polygons, coplanar triangles
///   merged, vertices counter-clockwise seen from outside (the right-hand
///   rule gives the outward normal).
/// - dim 2: a flat convex polygon: its vertices in ring order, one face
///   (the ring, counter-clockwise about face_normal[0]), ring edges.
/// - dim 1: a segment: 2 vertices, 1 edge, no face.
/// - dim 0: a point: 1 vertex, no edge, no face.
///
/// In every case adjacency (adj_start/adj) lists each vertex's neighbours
/// along hull edges (the edge graph hill climbing walks), every hull vertex
/// is one of the input points (exactly, bit for bit), no two vertices
/// coincide, and no vertex lies inside or on an edge or face of the hull of
/// the others (within the tolerance).
typedef struct imp_hull3 {
	int dim;
	int nv;               ///< vertices
	imp_vec3 *v;
	int ne;               ///< edges
	int32_t *edges;       ///< 2 * ne vertex indices, edge i = (edges[2i], edges[2i+1]), lower index first
	int nf;               ///< faces
	int32_t *face_start;  ///< nf + 1 offsets into face_vertices
	int32_t *face_vertices;
	imp_vec3 *face_normal; ///< unit outward normals
	double *face_offset;   ///< plane: dot(face_normal[f], x) == face_offset[f] for x on face f
	int32_t *adj_start;   ///< nv + 1 offsets into adj
	int32_t *adj;         ///< neighbours of vertex i: adj[adj_start[i] .. adj_start[i+1])
} imp_hull3;

/// The hull of points[0 .. count), count >= 1, all finite. Returns IMP_OK,
/// IMP_ERR_OUT_OF_MEMORY (nothing left allocated) or IMP_ERR_BAD_COUNT.
/// Expected O(n log n) time on random input; at least 10,000 points.
imp_status imp_hull3_build(const imp_vec3 *points, int count, const imp_allocator *allocator, imp_hull3 *out);

/// Frees what imp_hull3_build allocated (a zeroed struct is fine).
void imp_hull3_free(imp_hull3 *hull, const imp_allocator *allocator);

#endif
