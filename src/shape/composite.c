// SPDX-License-Identifier: MIT
// Non-convex shapes (composite.h): the constructors of compounds, meshes,
// height fields and chains, their children as convex records, their boxes
// and supports.
#include "shape/composite.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "core/alloc.h"

_Static_assert(offsetof(imp_composite, magic) == offsetof(struct imp_shape, magic), "shared header");
_Static_assert(offsetof(imp_composite, dim) == offsetof(struct imp_shape, dim), "shared header");
_Static_assert(offsetof(imp_composite, kind) == offsetof(struct imp_shape, kind), "shared header");
_Static_assert(offsetof(imp_composite, count) == offsetof(struct imp_shape, count), "shared header");
_Static_assert(offsetof(imp_composite, base_offset) == offsetof(struct imp_shape, base_offset), "shared header");
_Static_assert(offsetof(imp_composite, radius) == offsetof(struct imp_shape, radius), "shared header");

static bool finite2(imp_vec2 v)
{
	return isfinite(v.x) && isfinite(v.y);
}

static bool finite3(imp_vec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool in_range(double x)
{
	return fabs(x) <= IMP_MAX_COORDINATE;
}

static imp_status check_radius(double radius)
{
	if (!isfinite(radius) || radius < 0.0)
		return IMP_ERR_BAD_RADIUS;
	return radius <= IMP_MAX_COORDINATE ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

/// The status of a point: not finite, beyond IMP_MAX_COORDINATE, or fine.
static imp_status point2_status(imp_vec2 p)
{
	if (!finite2(p))
		return IMP_ERR_NOT_FINITE;
	return in_range(p.x) && in_range(p.y) ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

static imp_status point3_status(imp_vec3 p)
{
	if (!finite3(p))
		return IMP_ERR_NOT_FINITE;
	return in_range(p.x) && in_range(p.y) && in_range(p.z) ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

/// v / l, each coordinate divided: 1 / l overflows for a subnormal l.
static imp_vec3 div3(imp_vec3 v, double l)
{
	return imp_vec3_make(v.x / l, v.y / l, v.z / l);
}

/// |v| without overflow or underflow of its squares.
static double safe_length3(imp_vec3 v)
{
	double m = imp_max3(fabs(v.x), fabs(v.y), fabs(v.z));
	if (!(m > 0.0))
		return 0.0;
	// Divided, not multiplied by 1 / m, which overflows for a subnormal m
	// (fuzz finding 75: a mesh of one point 4.9e-324 from the origin had an
	// infinite bound radius, and its distance to an ellipsoid came out
	// 3e-6 of the answer too far).
	imp_vec3 u = div3(v, m);
	return m * sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
}

static double safe_length2(imp_vec2 v)
{
	return hypot(v.x, v.y);
}

// ---------------------------------------------------------------------------
// The record, the hierarchy, release.

static imp_composite *record_new(int dim, int kind, int32_t count, double radius)
{
	imp_composite *c = imp_alloc(NULL, sizeof *c);
	if (c == NULL)
		return NULL;
	memset(c, 0, sizeof *c);
	c->magic = 0; // set once the shape is complete
	c->dim = (uint8_t)dim;
	c->kind = (uint8_t)kind;
	c->count = count;
	c->radius = radius;
	c->bytes = sizeof *c;
	return c;
}

void imp_composite_release(imp_composite *c)
{
	const imp_allocator *a = &c->alloc;
	imp_bvh_free(&c->bvh, a);
	imp_free(a, c->children, 0);
	imp_free(a, c->poses2, 0);
	imp_free(a, c->poses3, 0);
	imp_free(a, c->v3, 0);
	imp_free(a, c->triangles, 0);
	imp_free(a, c->heights, 0);
	imp_free(a, c->v2, 0);
	c->magic = 0;
	imp_free(NULL, c, c->bytes);
}

/// Allocates n items of `size` bytes, or NULL (n * size checked).
static void *array_new(int64_t n, size_t size)
{
	if (n <= 0 || (uint64_t)n > SIZE_MAX / size)
		return NULL;
	return imp_alloc(NULL, (size_t)n * size);
}

/// The box of piece p (a child, or a height-field cell's two prisms),
/// rounding included.
static imp_status piece_box(const imp_composite *c, int32_t p, imp_box *out)
{
	int n;
	int32_t first = imp_composite_piece_first(c, p, &n);
	imp_box b = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
	for (int i = 0; i < n; ++i) {
		imp_box bi = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
		if (c->dim == 2) {
			imp_child2 ch;
			imp_composite_child2(c, first + i, &ch);
			imp_aabb2 a;
			imp_status st = imp_shape2_aabb_unchecked(ch.shape, ch.pose, &a);
			if (st != IMP_OK)
				return st;
			bi = (imp_box){{a.lo.x, a.lo.y, 0.0}, {a.hi.x, a.hi.y, 0.0}};
		} else {
			imp_child3 ch;
			imp_composite_child3(c, first + i, &ch);
			imp_aabb3 a;
			imp_status st = imp_shape3_aabb_unchecked(ch.shape, ch.pose, &a);
			if (st != IMP_OK)
				return st;
			bi = (imp_box){{a.lo.x, a.lo.y, a.lo.z}, {a.hi.x, a.hi.y, a.hi.z}};
		}
		b = i == 0 ? bi : imp_box_union(&b, &bi);
	}
	for (int k = 0; k < 3; ++k)
		if (!isfinite(b.lo[k]) || !isfinite(b.hi[k]))
			return IMP_ERR_NOT_FINITE;
	*out = b;
	return IMP_OK;
}

/// The corners of piece p of a mesh or height field (imp_bvh_points_fn).
static int piece_points(void *ctx, int32_t p, double (*out)[3])
{
	const imp_composite *c = ctx;
	int n, m = 0;
	int32_t first = imp_composite_piece_first(c, p, &n);
	for (int i = 0; i < n; ++i) {
		imp_vec3 v[6];
		int k = imp_composite_corners3(c, first + i, v);
		for (int j = 0; j < k; ++j, ++m) {
			out[m][0] = v[j].x;
			out[m][1] = v[j].y;
			out[m][2] = v[j].z;
		}
	}
	return m;
}

/// Builds the hierarchy, the box and the bound radius, and publishes the
/// record; on failure frees it.
static imp_status finish(imp_composite *c, imp_shape **out)
{
	int32_t pieces = c->kind == IMP_SHAPE_HEIGHTFIELD ? c->count / 2 : c->count;
	imp_box *boxes = array_new(pieces, sizeof *boxes);
	if (boxes == NULL) {
		imp_composite_release(c);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	imp_status st = IMP_OK;
	for (int32_t p = 0; p < pieces && st == IMP_OK; ++p)
		st = piece_box(c, p, &boxes[p]);
	if (st == IMP_OK && !imp_bvh_build(&c->bvh, boxes, pieces, c->dim, &c->alloc))
		st = IMP_ERR_OUT_OF_MEMORY;
	// Meshes and height fields: oriented boxes too, which follow a turned
	// surface where the axis-aligned ones do not.
	if (st == IMP_OK && (c->kind == IMP_SHAPE_MESH || c->kind == IMP_SHAPE_HEIGHTFIELD) &&
	    !imp_bvh_fit_obbs(&c->bvh, piece_points, c, c->radius, &c->alloc))
		st = IMP_ERR_OUT_OF_MEMORY;
	imp_free(NULL, boxes, (size_t)pieces * sizeof *boxes);
	if (st != IMP_OK) {
		imp_composite_release(c);
		return st;
	}
	c->box = c->bvh.nodes[0].box;
	// The farthest corner of the box bounds every point's distance from
	// the origin.
	imp_vec3 far = {imp_max(fabs(c->box.lo[0]), fabs(c->box.hi[0])), imp_max(fabs(c->box.lo[1]), fabs(c->box.hi[1])),
			imp_max(fabs(c->box.lo[2]), fabs(c->box.hi[2]))};
	c->bound_radius = safe_length3(far);
	c->magic = IMP_SHAPE_MAGIC;
	*out = (imp_shape *)(void *)c;
	return IMP_OK;
}

// ---------------------------------------------------------------------------
// Compounds.

static imp_status compound_check(const imp_shape *const *children, const void *poses, int count, int dim,
				 imp_shape **out)
{
	if (children == NULL || poses == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (count < 1 || count > IMP_COMPOUND_MAX_CHILDREN)
		return IMP_ERR_BAD_COUNT;
	for (int i = 0; i < count; ++i) {
		const imp_shape *s = children[i];
		if (s == NULL)
			return IMP_ERR_NULL_ARGUMENT;
		if (s->magic != IMP_SHAPE_MAGIC)
			return IMP_ERR_BAD_SHAPE;
		if (s->dim != dim)
			return IMP_ERR_DIMENSION_MISMATCH;
		// Children are convex: a compound of compounds (or of meshes) is
		// not taken; make one compound of all the convex pieces.
		if (imp_kind_is_composite(s->kind))
			return IMP_ERR_UNSUPPORTED;
		imp_status st = dim == 2 ? imp_pose2_status(((const imp_pose2 *)poses)[i])
					 : imp_pose3_status(((const imp_pose3 *)poses)[i]);
		if (st != IMP_OK)
			return st;
	}
	return IMP_OK;
}

/// A compound of either dimension (poses: imp_pose2 or imp_pose3).
static imp_status compound_make(const imp_shape *const *children, const void *poses, int count, int dim, imp_shape **out)
{
	imp_status st = compound_check(children, poses, count, dim, out);
	if (st != IMP_OK)
		return st;
	imp_composite *c = record_new(dim, dim == 2 ? IMP_SHAPE_COMPOUND2 : IMP_SHAPE_COMPOUND3, count, 0.0);
	if (c == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	c->children = array_new(count, sizeof *c->children);
	if (dim == 2)
		c->poses2 = array_new(count, sizeof *c->poses2);
	else
		c->poses3 = array_new(count, sizeof *c->poses3);
	if (c->children == NULL || (c->poses2 == NULL && c->poses3 == NULL)) {
		imp_composite_release(c);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	for (int i = 0; i < count; ++i) {
		c->children[i] = children[i];
		// Rotations stored unit, so that a child's pose composed with the
		// compound's stays within the check of a pose.
		if (dim == 2) {
			imp_pose2 p = ((const imp_pose2 *)poses)[i];
			double n = sqrt(p.q.c * p.q.c + p.q.s * p.q.s);
			c->poses2[i] = (imp_pose2){p.p, {p.q.c / n, p.q.s / n}};
		} else {
			imp_pose3 p = ((const imp_pose3 *)poses)[i];
			c->poses3[i] = (imp_pose3){p.p, imp_quat_normalize(p.q)};
		}
	}
	return finish(c, out);
}

imp_status imp_shape_compound2(const imp_shape *const *children, const imp_pose2 *poses, int count, imp_shape **out)
{
	return compound_make(children, poses, count, 2, out);
}

imp_status imp_shape_compound3(const imp_shape *const *children, const imp_pose3 *poses, int count, imp_shape **out)
{
	return compound_make(children, poses, count, 3, out);
}

// ---------------------------------------------------------------------------
// Meshes.

imp_status imp_shape_mesh(const imp_vec3 *vertices, int vertex_count, const int32_t *triangles, int triangle_count,
			  double radius, imp_shape **out)
{
	if (vertices == NULL || triangles == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (vertex_count < 1 || vertex_count > IMP_MESH_MAX_VERTICES || triangle_count < 1 ||
	    triangle_count > IMP_MESH_MAX_TRIANGLES)
		return IMP_ERR_BAD_COUNT;
	for (int i = 0; i < vertex_count; ++i) {
		imp_status st = point3_status(vertices[i]);
		if (st != IMP_OK)
			return st;
	}
	for (int64_t i = 0; i < 3 * (int64_t)triangle_count; ++i)
		if (triangles[i] < 0 || triangles[i] >= vertex_count)
			return IMP_ERR_BAD_COUNT;
	imp_status st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	imp_composite *c = record_new(3, IMP_SHAPE_MESH, triangle_count, radius);
	if (c == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	c->v3 = array_new(vertex_count, sizeof *c->v3);
	c->triangles = array_new(3 * (int64_t)triangle_count, sizeof *c->triangles);
	if (c->v3 == NULL || c->triangles == NULL) {
		imp_composite_release(c);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	memcpy(c->v3, vertices, (size_t)vertex_count * sizeof *c->v3);
	memcpy(c->triangles, triangles, 3 * (size_t)triangle_count * sizeof *c->triangles);
	c->vertex_count = vertex_count;
	return finish(c, out);
}

// ---------------------------------------------------------------------------
// Height fields.

imp_status imp_shape_heightfield(const double *heights, int rows, int cols, double dx, double dy, double base_z,
				 double radius, imp_shape **out)
{
	if (heights == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (rows < 2 || cols < 2 || (int64_t)(rows - 1) * (cols - 1) > IMP_HEIGHTFIELD_MAX_CELLS)
		return IMP_ERR_BAD_COUNT;
	if (!isfinite(dx) || !isfinite(dy) || !isfinite(base_z))
		return IMP_ERR_NOT_FINITE;
	if (!(dx > 0.0) || !(dy > 0.0))
		return IMP_ERR_BAD_RADIUS;
	// The far corner (cols - 1) dx is a coordinate too.
	if (!in_range((cols - 1) * dx) || !in_range((rows - 1) * dy) || !in_range(base_z))
		return IMP_ERR_OUT_OF_RANGE;
	int64_t n = (int64_t)rows * cols;
	for (int64_t i = 0; i < n; ++i) {
		if (!isfinite(heights[i]))
			return IMP_ERR_NOT_FINITE;
		if (!in_range(heights[i]))
			return IMP_ERR_OUT_OF_RANGE;
		// Every column is solid from base_z up to its height: a height
		// at or below the base leaves a prism flat or inverted.
		if (!(base_z < heights[i]))
			return IMP_ERR_OUT_OF_RANGE;
	}
	imp_status st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	int32_t cells = (rows - 1) * (cols - 1);
	imp_composite *c = record_new(3, IMP_SHAPE_HEIGHTFIELD, 2 * cells, radius);
	if (c == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	c->heights = array_new(n, sizeof *c->heights);
	if (c->heights == NULL) {
		imp_composite_release(c);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	memcpy(c->heights, heights, (size_t)n * sizeof *c->heights);
	c->rows = rows;
	c->cols = cols;
	c->dx = dx;
	c->dy = dy;
	c->base_z = base_z;
	return finish(c, out);
}

// ---------------------------------------------------------------------------
// Chains.

imp_status imp_shape_chain(const imp_vec2 *points, int count, bool loop, double radius, imp_shape **out)
{
	if (points == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (count < 2 || count > IMP_CHAIN_MAX_POINTS)
		return IMP_ERR_BAD_COUNT;
	for (int i = 0; i < count; ++i) {
		imp_status st = point2_status(points[i]);
		if (st != IMP_OK)
			return st;
	}
	imp_status st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	imp_composite *c = record_new(2, IMP_SHAPE_CHAIN, loop ? count : count - 1, radius);
	if (c == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	c->v2 = array_new(count, sizeof *c->v2);
	if (c->v2 == NULL) {
		imp_composite_release(c);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	memcpy(c->v2, points, (size_t)count * sizeof *c->v2);
	c->point_count = count;
	c->loop = loop;
	return finish(c, out);
}

// ---------------------------------------------------------------------------
// Children as convex records.

void imp_composite_child2(const imp_composite *c, int32_t k, imp_child2 *out)
{
	if (c->kind == IMP_SHAPE_COMPOUND2) {
		out->shape = c->children[k];
		out->pose = c->poses2[k];
		out->posed = true;
		return;
	}
	// A chain's segment k: points k and k + 1 (the last of a loop wraps).
	int32_t i = k, j = k + 1 == c->point_count ? 0 : k + 1;
	imp_vec2 p = c->v2[i], q = c->v2[j];
	struct imp_shape *s = &out->rec;
	memset(s, 0, sizeof *s);
	s->magic = IMP_SHAPE_MAGIC;
	s->dim = 2;
	s->kind = IMP_SHAPE_POLYGON;
	s->radius = c->radius;
	out->v[0] = p;
	out->corner[0] = i;
	out->corner[1] = j;
	if (p.x == q.x && p.y == q.y) {
		s->count = 1; // a segment of no length: its point
		s->center = p;
		s->bound_radius = safe_length2(p) + c->radius;
	} else {
		out->v[1] = q;
		s->count = 2;
		s->center = imp_vec2_scale(0.5, imp_vec2_add(p, q));
		s->bound_radius = imp_max(safe_length2(p), safe_length2(q)) + c->radius;
	}
	s->v = out->v;
	out->shape = s;
	out->pose = imp_pose2_identity();
	out->posed = false;
}

// Topology of the records: a triangle's edges run corner 0 -> 1 -> 2 -> 0,
// so that its edge k joins corners k and k + 1.
static const int32_t tri_adj_start[4] = {0, 2, 4, 6};
static const int32_t tri_adj[6] = {1, 2, 0, 2, 1, 0};
static const int32_t tri_adj_edge[6] = {0, 2, 0, 1, 1, 2};
static const int32_t tri_edges[6] = {0, 1, 1, 2, 2, 0};
static const int32_t tri_face_start[2] = {0, 3};
static const int32_t tri_face_vertices[3] = {0, 1, 2};
static const int32_t tri_vface_start[4] = {0, 1, 2, 3};
static const int32_t tri_vface[3] = {0, 0, 0};

static const int32_t seg_adj_start[3] = {0, 1, 2};
static const int32_t seg_adj[2] = {1, 0};
static const int32_t seg_adj_edge[2] = {0, 0};
static const int32_t seg_edges[2] = {0, 1};
static const int32_t seg_face_start[1] = {0};
static const int32_t seg_vface_start[3] = {0, 0, 0};

static const int32_t pt_adj_start[2] = {0, 0};
static const int32_t pt_vface_start[2] = {0, 0};

// A prism: top corners 0, 1, 2 (counter-clockwise seen from above), bottom
// corners 3, 4, 5 below them. Edges: the top's 0..2 (k joins k and k + 1),
// the bottom's 3..5 (3 + k joins 3 + k and 3 + (k + 1) % 3), the sides'
// 6..8 (6 + k joins k and 3 + k). Faces: 0 top, 1 bottom, 2 + k the side
// below top edge k.
static const int32_t prism_adj_start[7] = {0, 3, 6, 9, 12, 15, 18};
static const int32_t prism_adj[18] = {1, 2, 3, 2, 0, 4, 0, 1, 5, 4, 5, 0, 5, 3, 1, 3, 4, 2};
static const int32_t prism_adj_edge[18] = {0, 2, 6, 1, 0, 7, 2, 1, 8, 3, 5, 6, 4, 3, 7, 5, 4, 8};
static const int32_t prism_edges[18] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3, 0, 3, 1, 4, 2, 5};
static const int32_t prism_face_start[6] = {0, 3, 6, 10, 14, 18};
static const int32_t prism_face_vertices[18] = {0, 1, 2, 3, 5, 4, 0, 3, 4, 1, 1, 4, 5, 2, 2, 5, 3, 0};
static const int32_t prism_vface_start[7] = {0, 3, 6, 9, 12, 15, 18};
static const int32_t prism_vface[18] = {0, 2, 4, 0, 2, 3, 0, 3, 4, 1, 2, 4, 1, 2, 3, 1, 3, 4};

/// The largest |v| of n points, without overflow or underflow of the
/// squares (directly when the coordinates allow, which is the common case:
/// this runs for every child a query meets).
static double max_norm3(const imp_vec3 *v, int n)
{
	double m = 0.0;
	for (int i = 0; i < n; ++i)
		m = imp_max(m, imp_max3(fabs(v[i].x), fabs(v[i].y), fabs(v[i].z)));
	if (m > 0x1p-400 && m < 0x1p400) {
		double d = 0.0;
		for (int i = 0; i < n; ++i)
			d = imp_max(d, imp_vec3_dot(v[i], v[i]));
		return sqrt(d);
	}
	double r = 0.0;
	for (int i = 0; i < n; ++i)
		r = imp_max(r, safe_length3(v[i]));
	return r;
}

/// The fields of a polytope record every kind below shares; the topology
/// fields are the caller's.
static void rec3_init(imp_child3 *out, double radius, int count, int hull_dim)
{
	imp_shape3 *s = &out->rec;
	s->magic = IMP_SHAPE_MAGIC;
	s->dim = 3;
	s->kind = IMP_SHAPE_POLYTOPE;
	s->climb_auto = 0;
	s->reserved = 0;
	s->base_offset = 0;
	s->radius = radius;
	s->count = count;
	s->hull_dim = hull_dim;
	s->v = out->v;
	s->size = imp_vec3_make(0.0, 0.0, 0.0);
	s->cold = NULL;
	s->ne = s->nf = 0;
	s->adj = s->adj_edge = s->edges = s->face_vertices = s->vface = NULL;
	s->face_normal = NULL;
	s->node = NULL;
	s->node_more = s->start_cell = NULL;
	for (int k = 0; k < 6; ++k)
		s->axis_start[k] = 0;
	imp_vec3 m = out->v[0];
	for (int i = 1; i < count; ++i)
		m = imp_vec3_add(m, out->v[i]);
	s->center = imp_vec3_scale(1.0 / count, m);
	s->bound_radius = max_norm3(out->v, count) + radius;
	out->shape = (const imp_shape *)(const void *)s;
	out->pose = imp_pose3_identity();
	out->posed = false;
}

/// A triangle's record: the triangle, or where it has no area the segment
/// between its two corners farthest apart, or its one point.
static void triangle_child(imp_vec3 a, imp_vec3 b, imp_vec3 d, double radius, imp_child3 *out)
{
	imp_vec3 p[3] = {a, b, d};
	imp_vec3 n = imp_vec3_cross(imp_vec3_sub(b, a), imp_vec3_sub(d, a));
	double nn = imp_vec3_dot(n, n);
	double nl = nn > 0x1p-900 && nn < 0x1p900 ? sqrt(nn) : safe_length3(n);
	imp_shape3 *s = &out->rec;
	if (nl > 0.0 && isfinite(nl)) {
		out->v[0] = a;
		out->v[1] = b;
		out->v[2] = d;
		out->corner[0] = 0;
		out->corner[1] = 1;
		out->corner[2] = 2;
		out->normal[0] = div3(n, nl);
		rec3_init(out, radius, 3, 2);
		s->adj_start = tri_adj_start;
		s->adj = tri_adj;
		s->adj_edge = tri_adj_edge;
		s->edges = tri_edges;
		s->ne = 3;
		s->face_start = tri_face_start;
		s->face_vertices = tri_face_vertices;
		s->face_normal = out->normal;
		s->nf = 1;
		s->vface_start = tri_vface_start;
		s->vface = tri_vface;
		return;
	}
	// No area: collinear corners, or repeated ones. The two farthest apart
	// hold the third between them.
	int bi = 0, bj = 1;
	double best = -1.0;
	for (int i = 0; i < 3; ++i) {
		int j = i == 2 ? 0 : i + 1;
		double l = safe_length3(imp_vec3_sub(p[j], p[i]));
		if (l > best) {
			best = l;
			bi = i;
			bj = j;
		}
	}
	if (best > 0.0) {
		out->v[0] = p[bi];
		out->v[1] = p[bj];
		out->corner[0] = bi;
		out->corner[1] = bj;
		rec3_init(out, radius, 2, 1);
		s->adj_start = seg_adj_start;
		s->adj = seg_adj;
		s->adj_edge = seg_adj_edge;
		s->edges = seg_edges;
		s->ne = 1;
		s->face_start = seg_face_start;
		s->vface_start = seg_vface_start;
		return;
	}
	out->v[0] = a;
	out->corner[0] = 0;
	rec3_init(out, radius, 1, 0);
	s->adj_start = pt_adj_start;
	s->face_start = seg_face_start;
	s->vface_start = pt_vface_start;
}

/// Cell corner (r, c) of a height field, at height z.
static imp_vec3 grid_point(const imp_composite *c, int32_t r, int32_t col, double z)
{
	return imp_vec3_make(col * c->dx, r * c->dy, z);
}

/// The prism under triangle t (0 or 1) of cell (r, col): corners
/// (c, r), (c + 1, r), (c + 1, r + 1) for 0 and (c, r), (c + 1, r + 1),
/// (c, r + 1) for 1, all counter-clockwise seen from above.
/// The corners of prism t of a cell: its top's three grid points, then
/// the points below them at base_z (and their grid indices into corner).
static void prism_corners(const imp_composite *c, int32_t cell, int t, imp_vec3 *v, int32_t *corner)
{
	int32_t r = cell / (c->cols - 1), col = cell % (c->cols - 1);
	int32_t rr[3], cc[3];
	rr[0] = r;
	cc[0] = col;
	if (t == 0) {
		rr[1] = r, cc[1] = col + 1;
		rr[2] = r + 1, cc[2] = col + 1;
	} else {
		rr[1] = r + 1, cc[1] = col + 1;
		rr[2] = r + 1, cc[2] = col;
	}
	for (int i = 0; i < 3; ++i) {
		double h = c->heights[(int64_t)rr[i] * c->cols + cc[i]];
		v[i] = grid_point(c, rr[i], cc[i], h);
		v[3 + i] = grid_point(c, rr[i], cc[i], c->base_z);
		if (corner != NULL)
			corner[i] = rr[i] * c->cols + cc[i];
	}
}

static void prism_child(const imp_composite *c, int32_t cell, int t, imp_child3 *out)
{
	prism_corners(c, cell, t, out->v, out->corner);
	// Normals: the top's from its corners (pointing up: the corners turn
	// counter-clockwise in x-y), the bottom's down, the sides' level.
	imp_vec3 n = imp_vec3_cross(imp_vec3_sub(out->v[1], out->v[0]), imp_vec3_sub(out->v[2], out->v[0]));
	out->normal[0] = div3(n, safe_length3(n));
	out->normal[1] = imp_vec3_make(0.0, 0.0, -1.0);
	for (int k = 0; k < 3; ++k) {
		imp_vec3 e = imp_vec3_sub(out->v[3 + (k + 1) % 3], out->v[3 + k]);
		imp_vec3 o = imp_vec3_make(e.y, -e.x, 0.0); // e turned clockwise: outward
		out->normal[2 + k] = div3(o, safe_length3(o));
	}
	rec3_init(out, c->radius, 6, 3);
	imp_shape3 *s = &out->rec;
	s->adj_start = prism_adj_start;
	s->adj = prism_adj;
	s->adj_edge = prism_adj_edge;
	s->edges = prism_edges;
	s->ne = 9;
	s->face_start = prism_face_start;
	s->face_vertices = prism_face_vertices;
	s->face_normal = out->normal;
	s->nf = 5;
	s->vface_start = prism_vface_start;
	s->vface = prism_vface;
	// Climbing starts: any vertex will do on a convex polytope.
	for (int k = 0; k < 6; ++k)
		s->axis_start[k] = 0;
}

int imp_composite_corners3(const imp_composite *c, int32_t k, imp_vec3 *v)
{
	if (c->kind == IMP_SHAPE_MESH) {
		const int32_t *t = c->triangles + 3 * (int64_t)k;
		v[0] = c->v3[t[0]];
		v[1] = c->v3[t[1]];
		v[2] = c->v3[t[2]];
		return 3;
	}
	prism_corners(c, k / 2, k % 2, v, NULL);
	return 6;
}

void imp_composite_child3(const imp_composite *c, int32_t k, imp_child3 *out)
{
	switch (c->kind) {
	case IMP_SHAPE_COMPOUND3:
		out->shape = c->children[k];
		out->pose = c->poses3[k];
		out->posed = true;
		return;
	case IMP_SHAPE_MESH: {
		const int32_t *t = c->triangles + 3 * (int64_t)k;
		triangle_child(c->v3[t[0]], c->v3[t[1]], c->v3[t[2]], c->radius, out);
		return;
	}
	default:
		prism_child(c, k / 2, k % 2, out);
		return;
	}
}

// ---------------------------------------------------------------------------
// Boxes and supports.

/// Calls fn on every point of the composite's convex hull's vertices (its
/// corners: a mesh's triangles' corners, a height field's grid points and
/// base corners, a chain's points), in the composite's frame.
typedef void point3_fn(void *ctx, imp_vec3 p);

static void each_corner3(const imp_composite *c, point3_fn *fn, void *ctx)
{
	if (c->kind == IMP_SHAPE_MESH) {
		for (int64_t i = 0; i < 3 * (int64_t)c->count; ++i)
			fn(ctx, c->v3[c->triangles[i]]);
		return;
	}
	// A height field: the grid's points, and the base under its four corners.
	for (int32_t r = 0; r < c->rows; ++r)
		for (int32_t col = 0; col < c->cols; ++col)
			fn(ctx, grid_point(c, r, col, c->heights[(int64_t)r * c->cols + col]));
	fn(ctx, grid_point(c, 0, 0, c->base_z));
	fn(ctx, grid_point(c, 0, c->cols - 1, c->base_z));
	fn(ctx, grid_point(c, c->rows - 1, 0, c->base_z));
	fn(ctx, grid_point(c, c->rows - 1, c->cols - 1, c->base_z));
}

/// A pose with its rotation brought to unit length (poses are checked to
/// 1e-6 only; a child's pose composed with it must pass the check too).
static imp_pose3 unit_pose3(imp_pose3 p)
{
	p.q = imp_quat_normalize(p.q);
	return p;
}

static imp_pose2 unit_pose2(imp_pose2 p)
{
	double n = sqrt(p.q.c * p.q.c + p.q.s * p.q.s);
	p.q.c /= n;
	p.q.s /= n;
	return p;
}

imp_pose3 imp_composite_pose3(imp_pose3 pose, const imp_child3 *ch)
{
	if (!ch->posed)
		return pose;
	imp_pose3 u = unit_pose3(pose);
	imp_pose3 o = {imp_vec3_add(imp_quat_rotate(u.q, ch->pose.p), u.p), imp_quat_normalize(imp_quat_mul(u.q, ch->pose.q))};
	return o;
}

imp_pose2 imp_composite_pose2(imp_pose2 pose, const imp_child2 *ch)
{
	if (!ch->posed)
		return pose;
	imp_pose2 u = unit_pose2(pose);
	return unit_pose2(imp_pose2_mul(u, ch->pose));
}

imp_status imp_composite_aabb3(const imp_composite *c, imp_pose3 pose, imp_aabb3 *out)
{
	imp_box rel;
	imp_composite_rel_box(c, NULL, &pose.q, &rel);
	out->lo = imp_vec3_add(imp_vec3_make(rel.lo[0], rel.lo[1], rel.lo[2]), pose.p);
	out->hi = imp_vec3_add(imp_vec3_make(rel.hi[0], rel.hi[1], rel.hi[2]), pose.p);
	return IMP_OK;
}

imp_status imp_composite_aabb2(const imp_composite *c, imp_pose2 pose, imp_aabb2 *out)
{
	imp_box rel;
	imp_composite_rel_box(c, &pose.q, NULL, &rel);
	out->lo = imp_vec2_add(imp_vec2_make(rel.lo[0], rel.lo[1]), pose.p);
	out->hi = imp_vec2_add(imp_vec2_make(rel.hi[0], rel.hi[1]), pose.p);
	return IMP_OK;
}

typedef struct support3_ctx {
	imp_vec3 d;
	imp_vec3 best;
	double value;
	bool any;
} support3_ctx;

static void support3_add(void *ctx, imp_vec3 p)
{
	support3_ctx *s = ctx;
	double v = imp_vec3_dot(p, s->d);
	if (!s->any || v > s->value) {
		s->value = v;
		s->best = p;
		s->any = true;
	}
}

imp_status imp_composite_support3(const imp_composite *c, imp_pose3 pose, imp_vec3 direction, imp_vec3 *out)
{
	if (c->kind == IMP_SHAPE_COMPOUND3) {
		imp_vec3 best = {0, 0, 0};
		double value = -INFINITY;
		for (int32_t k = 0; k < c->count; ++k) {
			imp_child3 ch;
			imp_composite_child3(c, k, &ch);
			imp_vec3 p;
			imp_status st = imp_shape_support3(ch.shape, imp_composite_pose3(pose, &ch), direction, &p);
			if (st != IMP_OK)
				return st;
			double v = imp_vec3_dot(p, direction);
			if (k == 0 || v > value) {
				value = v;
				best = p;
			}
		}
		*out = best;
		return IMP_OK;
	}
	imp_mat3 r = imp_pose3_matrix(pose);
	support3_ctx s = {.d = imp_mat3_apply_t(&r, direction), .any = false};
	each_corner3(c, support3_add, &s);
	imp_vec3 p = imp_vec3_add(s.best, imp_vec3_scale(c->radius / safe_length3(s.d), s.d));
	*out = imp_vec3_add(imp_mat3_apply(&r, p), pose.p);
	return IMP_OK;
}

imp_status imp_composite_support2(const imp_composite *c, imp_pose2 pose, imp_vec2 direction, imp_vec2 *out)
{
	if (c->kind == IMP_SHAPE_COMPOUND2) {
		imp_vec2 best = {0, 0};
		double value = -INFINITY;
		for (int32_t k = 0; k < c->count; ++k) {
			imp_child2 ch;
			imp_composite_child2(c, k, &ch);
			imp_vec2 p;
			imp_status st = imp_shape_support2(ch.shape, imp_composite_pose2(pose, &ch), direction, &p);
			if (st != IMP_OK)
				return st;
			double v = imp_vec2_dot(p, direction);
			if (k == 0 || v > value) {
				value = v;
				best = p;
			}
		}
		*out = best;
		return IMP_OK;
	}
	imp_vec2 d = imp_rot2_apply_inv(pose.q, direction);
	int i = imp_support_brute(c->v2, c->point_count, d);
	imp_vec2 p = imp_vec2_add(c->v2[i], imp_vec2_scale(c->radius / safe_length2(d), d));
	*out = imp_pose2_apply(pose, p);
	return IMP_OK;
}

int imp_shape_child_count(const imp_shape *shape)
{
	if (shape == NULL || shape->magic != IMP_SHAPE_MAGIC)
		return -1;
	return imp_kind_is_composite(shape->kind) ? shape->count : 0;
}

/// The depth of the hierarchy's nodes whose turned boxes make a
/// composite's box: up to 2^REL_BOX_DEPTH of them.
#define REL_BOX_DEPTH 3

/// The box of node n of c's hierarchy turned by x: its box moved, and in
/// 3D also its oriented box's, the two intersected (both hold the node).
static imp_box turned_node_box(const imp_composite *c, int32_t n, const imp_bvh_xform *x)
{
	imp_box b;
	imp_box_move(&c->bvh.nodes[n].box, x, c->dim, &b);
	if (c->bvh.obb == NULL)
		return b;
	imp_bvh_obb o;
	imp_obb_move(&c->bvh.obb[n], x, &o);
	for (int k = 0; k < 3; ++k) {
		double h = o.e[0] * fabs(o.ax[0][k]) + o.e[1] * fabs(o.ax[1][k]) + o.e[2] * fabs(o.ax[2][k]);
		// The sums' rounding: a few ulps of the largest term.
		h += 8.0 * DBL_EPSILON * (h + fabs(o.c[k]));
		b.lo[k] = imp_max(b.lo[k], o.c[k] - h);
		b.hi[k] = imp_min(b.hi[k], o.c[k] + h);
	}
	return b;
}

void imp_composite_rel_box(const imp_composite *c, const imp_rot2 *q2, const imp_quat *q3, imp_box *out)
{
	imp_bvh_xform x;
	memset(&x, 0, sizeof x);
	if (c->dim == 2) {
		double n = sqrt(q2->c * q2->c + q2->s * q2->s);
		x.r[0][0] = x.r[1][1] = q2->c / n;
		x.r[0][1] = -q2->s / n;
		x.r[1][0] = q2->s / n;
		x.r[2][2] = 1.0;
	} else {
		imp_mat3 r = imp_mat3_from_quat(imp_quat_normalize(*q3));
		memcpy(x.r, r.m, sizeof x.r);
	}
	// The union of the turned boxes of the nodes REL_BOX_DEPTH below the
	// root (or of shallower leaves): a turned root box is up to sqrt(3)
	// times the shape's size along each axis, these follow its parts.
	int32_t stack[REL_BOX_DEPTH + 2], depth[REL_BOX_DEPTH + 2];
	int sp = 0;
	bool any = false;
	stack[sp] = 0;
	depth[sp++] = 0;
	while (sp > 0) {
		--sp;
		int32_t n = stack[sp], d = depth[sp];
		const imp_bvh_node *nd = &c->bvh.nodes[n];
		if (nd->right >= 0 && d < REL_BOX_DEPTH) {
			stack[sp] = nd->right;
			depth[sp++] = d + 1;
			stack[sp] = n + 1;
			depth[sp++] = d + 1;
			continue;
		}
		imp_box b = turned_node_box(c, n, &x);
		*out = any ? imp_box_union(out, &b) : b;
		any = true;
	}
	for (int k = c->dim; k < 3; ++k)
		out->lo[k] = out->hi[k] = 0.0;
}
