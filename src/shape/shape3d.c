// SPDX-License-Identifier: MIT
// 3D shapes: convex polytopes (quickhull, hull3d.c), spheres, capsules,
// boxes, cylinders, cones, ellipsoids and user support shapes, each rounded
// by a radius.
#include <math.h>
#include <stdalign.h>
#include <string.h>

#include "core/alloc.h"
#include "shape/composite.h"
#include "shape/hull3d.h"
#include "shape/shape3_internal.h"

static bool is_finite3(imp_vec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool in_range3(imp_vec3 v)
{
	return fabs(v.x) <= IMP_MAX_COORDINATE && fabs(v.y) <= IMP_MAX_COORDINATE && fabs(v.z) <= IMP_MAX_COORDINATE;
}

static imp_status check_radius(double radius)
{
	if (!isfinite(radius) || radius < 0.0)
		return IMP_ERR_BAD_RADIUS;
	return radius <= IMP_MAX_COORDINATE ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

/// A size that must be positive (half sizes, semi-axes, radii of curved
/// cores).
static imp_status check_size(double size)
{
	if (!isfinite(size) || !(size > 0.0))
		return IMP_ERR_BAD_RADIUS;
	return size <= IMP_MAX_COORDINATE ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

bool imp_pose3_is_valid(imp_pose3 t)
{
	return imp_pose3_status(t) == IMP_OK;
}

/// Bytes from `offset` rounded up to the alignment `align`.
static size_t align_up(size_t offset, size_t align)
{
	return (offset + align - 1) / align * align;
}

/// The layout of a polytope's arrays after the record.
typedef struct layout3 {
	size_t v, adj_start, adj, adj_edge, edges, face_start, face_vertices, vface_start, vface, face_normal, node,
		node_more, start_cell, cold, used;
	int more; ///< neighbours in node_more
} layout3;

/// Whether a hull gets climb nodes and a start table: solid or flat, from
/// IMP_CLIMB_NODE_MIN_VERTICES vertices, indices within uint16_t.
static bool has_nodes(const imp_hull3 *h)
{
	return h->dim >= 2 && h->nv >= IMP_CLIMB_NODE_MIN_VERTICES && h->nv <= UINT16_MAX;
}

static layout3 plan_layout(const imp_hull3 *h, bool cold)
{
	layout3 l;
	size_t at = sizeof(imp_shape3);
	l.v = at = align_up(at, alignof(imp_vec3));
	at += (size_t)h->nv * sizeof(imp_vec3);
	l.face_normal = at;
	at += (size_t)h->nf * sizeof(imp_vec3);
	l.adj_start = at = align_up(at, alignof(int32_t));
	at += (size_t)(h->nv + 1) * sizeof(int32_t);
	l.adj = at;
	at += (size_t)h->adj_start[h->nv] * sizeof(int32_t);
	l.adj_edge = at;
	at += (size_t)h->adj_start[h->nv] * sizeof(int32_t);
	l.edges = at;
	at += (size_t)h->ne * 2 * sizeof(int32_t);
	l.face_start = at;
	at += (size_t)(h->nf + 1) * sizeof(int32_t);
	l.face_vertices = at;
	at += (size_t)(h->nf > 0 ? h->face_start[h->nf] : 0) * sizeof(int32_t);
	l.vface_start = at;
	at += (size_t)(h->nv + 1) * sizeof(int32_t);
	l.vface = at;
	at += (size_t)(h->nf > 0 ? h->face_start[h->nf] : 0) * sizeof(int32_t);
	l.more = 0;
	l.node = l.node_more = l.start_cell = at;
	if (has_nodes(h)) {
		// The nodes start a cache line (the record does).
		l.node = at = align_up(at, sizeof(imp_climb_node3));
		at += (size_t)h->nv * sizeof(imp_climb_node3);
		for (int i = 0; i < h->nv; ++i) {
			int n = h->adj_start[i + 1] - h->adj_start[i];
			l.more += n > IMP_CLIMB_NODE_NB ? n : 0;
		}
		l.node_more = at;
		at += (size_t)l.more * sizeof(uint16_t);
		l.start_cell = at;
		at += (size_t)IMP_CLIMB_CELLS * sizeof(uint16_t);
	}
	l.cold = at = align_up(at, alignof(imp_shape_cold3));
	if (cold)
		at += sizeof(imp_shape_cold3);
	l.used = at;
	return l;
}

/// One allocation whose record starts a cache line, `used` bytes from it.
static imp_shape3 *shape3_alloc(const imp_allocator *alloc, size_t used, size_t cold_offset, bool cold)
{
	enum { LINE = 64 };
	size_t bytes = used + LINE - 1;
	char *base = imp_alloc(alloc, bytes);
	if (base == NULL)
		return NULL;
	char *mem = (char *)(((uintptr_t)base + LINE - 1) & ~(uintptr_t)(LINE - 1));
	imp_shape3 *s = (imp_shape3 *)(void *)mem;
	memset(s, 0, sizeof *s);
	s->magic = IMP_SHAPE_MAGIC;
	s->dim = 3;
	s->base_offset = (int32_t)(mem - base);
	if (cold) {
		s->cold = (imp_shape_cold3 *)(void *)(mem + cold_offset);
		memset(s->cold, 0, sizeof *s->cold);
		s->cold->bytes = bytes;
		if (alloc != NULL && alloc->alloc != NULL)
			s->cold->allocator = *alloc;
	}
	return s;
}

void imp_shape3_release(imp_shape3 *s)
{
	imp_allocator a = {0};
	size_t bytes = 0;
	if (s->cold != NULL) {
		a = s->cold->allocator;
		bytes = s->cold->bytes;
	}
	s->magic = 0;
	imp_free(&a, (char *)s - s->base_offset, bytes);
}

/// The edge index of every adjacency entry, and the faces around each
/// vertex, for finding the feature that holds a witness point.
static void fill_incidence(const imp_hull3 *h, int32_t *adj_edge, int32_t *vface_start, int32_t *vface)
{
	for (int e = 0; e < h->ne; ++e) {
		for (int side = 0; side < 2; ++side) {
			int u = h->edges[2 * e + side], w = h->edges[2 * e + 1 - side];
			for (int k = h->adj_start[u]; k < h->adj_start[u + 1]; ++k)
				if (h->adj[k] == w)
					adj_edge[k] = e;
		}
	}
	for (int i = 0; i <= h->nv; ++i)
		vface_start[i] = 0;
	for (int f = 0; f < h->nf; ++f)
		for (int k = h->face_start[f]; k < h->face_start[f + 1]; ++k)
			++vface_start[h->face_vertices[k] + 1];
	for (int i = 0; i < h->nv; ++i)
		vface_start[i + 1] += vface_start[i];
	// Filled from each vertex's start, which then moves back into place.
	for (int f = 0; f < h->nf; ++f)
		for (int k = h->face_start[f]; k < h->face_start[f + 1]; ++k)
			vface[vface_start[h->face_vertices[k]]++] = f;
	for (int i = h->nv; i > 0; --i)
		vface_start[i] = vface_start[i - 1];
	vface_start[0] = 0;
}

static bool face_has(const imp_shape3 *s, int f, int v)
{
	for (int k = s->face_start[f]; k < s->face_start[f + 1]; ++k)
		if (s->face_vertices[k] == v)
			return true;
	return false;
}

imp_feature imp_shape3_feature(const imp_shape3 *s, const int *idx, int k)
{
	imp_feature none = {IMP_FEATURE_NONE, -1};
	if (k == 1)
		return (imp_feature){IMP_FEATURE_VERTEX, idx[0]};
	int u = idx[0];
	if (k == 2)
		for (int j = s->adj_start[u]; j < s->adj_start[u + 1]; ++j)
			if (s->adj[j] == idx[1])
				return (imp_feature){IMP_FEATURE_EDGE, s->adj_edge[j]};
	for (int j = s->vface_start[u]; j < s->vface_start[u + 1]; ++j) {
		int f = s->vface[j];
		if (face_has(s, f, idx[1]) && (k == 2 || face_has(s, f, idx[2])))
			return (imp_feature){IMP_FEATURE_FACE, f};
	}
	return none;
}

/// The climb nodes of a hull (has_nodes) and its start table, in the
/// arrays planned by plan_layout; the shape's v, adj_start and adj are set.
static void fill_nodes(imp_shape3 *s, imp_climb_node3 *node, uint16_t *more, uint16_t *start_cell)
{
	uint32_t at = 0;
	for (int i = 0; i < s->count; ++i) {
		imp_climb_node3 *x = &node[i];
		memset(x, 0, sizeof *x);
		x->p = s->v[i];
		int n = s->adj_start[i + 1] - s->adj_start[i];
		x->n = (uint16_t)n;
		uint16_t *nb = x->nb;
		if (n > IMP_CLIMB_NODE_NB) {
			x->nb[0] = (uint16_t)(at & 0xffffu);
			x->nb[1] = (uint16_t)(at >> 16);
			nb = more + at;
			at += (uint32_t)n;
		}
		for (int k = 0; k < n; ++k)
			nb[k] = (uint16_t)s->adj[s->adj_start[i] + k];
	}
	s->node = node;
	s->node_more = more;
	// Each cell's centre direction, climbed to from the last cell's
	// vertex (neighbouring directions have near support vertices).
	const double half = 0.5 * IMP_CLIMB_GRID;
	int last = s->axis_start[0];
	for (int k = 0; k < 6; ++k) {
		double sign = k & 1 ? -1.0 : 1.0;
		for (int iu = 0; iu < IMP_CLIMB_GRID; ++iu)
			for (int iw = 0; iw < IMP_CLIMB_GRID; ++iw) {
				double u = (iu + 0.5) / half - 1.0, w = (iw + 0.5) / half - 1.0;
				imp_vec3 d = k / 2 == 0   ? imp_vec3_make(sign, u, w)
					     : k / 2 == 1 ? imp_vec3_make(w, sign, u)
							  : imp_vec3_make(u, w, sign);
				last = imp_support3_climb(s, d, last);
				start_cell[(k * IMP_CLIMB_GRID + iu) * IMP_CLIMB_GRID + iw] = (uint16_t)last;
			}
	}
	s->start_cell = start_cell;
}

/// The shape record of a hull: vertices, adjacency and topology copied
/// into one allocation.
static imp_status make_polytope(const imp_hull3 *h, int kind, double radius, const imp_allocator *alloc,
				imp_shape **out)
{
	bool custom = alloc != NULL && alloc->alloc != NULL;
	layout3 l = plan_layout(h, custom);
	imp_shape3 *s = shape3_alloc(alloc, l.used, l.cold, custom);
	if (s == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	char *mem = (char *)s;
	imp_vec3 *v = (imp_vec3 *)(void *)(mem + l.v);
	imp_vec3 *fn = (imp_vec3 *)(void *)(mem + l.face_normal);
	int32_t *adj_start = (int32_t *)(void *)(mem + l.adj_start);
	int32_t *adj = (int32_t *)(void *)(mem + l.adj);
	int32_t *edges = (int32_t *)(void *)(mem + l.edges);
	int32_t *face_start = (int32_t *)(void *)(mem + l.face_start);
	int32_t *face_vertices = (int32_t *)(void *)(mem + l.face_vertices);
	memcpy(v, h->v, (size_t)h->nv * sizeof *v);
	if (h->nf > 0)
		memcpy(fn, h->face_normal, (size_t)h->nf * sizeof *fn);
	memcpy(adj_start, h->adj_start, (size_t)(h->nv + 1) * sizeof *adj_start);
	if (h->adj_start[h->nv] > 0)
		memcpy(adj, h->adj, (size_t)h->adj_start[h->nv] * sizeof *adj);
	if (h->ne > 0)
		memcpy(edges, h->edges, (size_t)h->ne * 2 * sizeof *edges);
	face_start[0] = 0;
	if (h->nf > 0) {
		memcpy(face_start, h->face_start, (size_t)(h->nf + 1) * sizeof *face_start);
		memcpy(face_vertices, h->face_vertices, (size_t)h->face_start[h->nf] * sizeof *face_vertices);
	}
	int32_t *adj_edge = (int32_t *)(void *)(mem + l.adj_edge);
	int32_t *vface_start = (int32_t *)(void *)(mem + l.vface_start);
	int32_t *vface = (int32_t *)(void *)(mem + l.vface);
	fill_incidence(h, adj_edge, vface_start, vface);
	s->adj_edge = adj_edge;
	s->vface_start = vface_start;
	s->vface = vface;
	s->kind = (uint8_t)kind;
	s->count = h->nv;
	s->radius = radius;
	s->v = v;
	s->adj_start = adj_start;
	s->adj = adj;
	s->ne = h->ne;
	s->nf = h->nf;
	s->edges = edges;
	s->face_start = face_start;
	s->face_vertices = face_vertices;
	s->face_normal = fn;
	s->hull_dim = h->dim;
	s->climb_auto = h->dim >= 2 && h->nv >= IMP_HILL_CLIMB3_MIN_VERTICES;
	for (int k = 0; k < 6; ++k) {
		double sign = k & 1 ? -1.0 : 1.0;
		imp_vec3 axis = imp_vec3_make(k / 2 == 0 ? sign : 0.0, k / 2 == 1 ? sign : 0.0, k / 2 == 2 ? sign : 0.0);
		s->axis_start[k] = imp_support3_brute(v, h->nv, axis);
	}
	if (has_nodes(h))
		fill_nodes(s, (imp_climb_node3 *)(void *)(mem + l.node), (uint16_t *)(void *)(mem + l.node_more),
			   (uint16_t *)(void *)(mem + l.start_cell));
	imp_vec3 c = {0.0, 0.0, 0.0};
	double r = 0.0;
	for (int i = 0; i < h->nv; ++i) {
		c = imp_vec3_add(c, imp_vec3_scale(1.0 / h->nv, v[i]));
		// hypot: the square root of a sum of squares underflows (a 2D
		// box 1e-310 across had reach 0; fuzz finding 68).
		r = imp_max(r, hypot(hypot(v[i].x, v[i].y), v[i].z));
	}
	s->center = c;
	s->bound_radius = r + radius;
	*out = (imp_shape *)(void *)s;
	return IMP_OK;
}

static imp_status check_points3(const imp_vec3 *points, int count)
{
	for (int i = 0; i < count; ++i) {
		if (!is_finite3(points[i]))
			return IMP_ERR_NOT_FINITE;
		if (!in_range3(points[i]))
			return IMP_ERR_OUT_OF_RANGE;
	}
	return IMP_OK;
}

/// The hull of checked points made into a shape of `kind`.
static imp_status hull_shape(const imp_vec3 *points, int count, int kind, double radius,
			     const imp_allocator *alloc, imp_shape **out)
{
	imp_hull3 h;
	imp_status st = imp_hull3_build(points, count, alloc, &h);
	if (st != IMP_OK)
		return st;
	st = make_polytope(&h, kind, radius, alloc, out);
	imp_hull3_free(&h, alloc);
	return st;
}

imp_status imp_shape_polytope_ex(const imp_vec3 *points, int count, double radius, const imp_allocator *allocator,
				 imp_shape **out)
{
	if (points == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (count < 1 || count > IMP_POLYTOPE_MAX_POINTS)
		return IMP_ERR_BAD_COUNT;
	if (!imp_allocator_is_valid(allocator))
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_points3(points, count);
	if (st == IMP_OK)
		st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	return hull_shape(points, count, IMP_SHAPE_POLYTOPE, radius, allocator, out);
}

imp_status imp_shape_polytope(const imp_vec3 *points, int count, double radius, imp_shape **out)
{
	return imp_shape_polytope_ex(points, count, radius, NULL, out);
}

imp_status imp_shape_sphere(imp_vec3 center, double radius, imp_shape **out)
{
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_points3(&center, 1);
	if (st == IMP_OK)
		st = check_size(radius);
	if (st != IMP_OK)
		return st;
	return hull_shape(&center, 1, IMP_SHAPE_SPHERE, radius, NULL, out);
}

imp_status imp_shape_capsule3(imp_vec3 p0, imp_vec3 p1, double radius, imp_shape **out)
{
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_vec3 p[2] = {p0, p1};
	imp_status st = check_points3(p, 2);
	if (st == IMP_OK)
		st = check_size(radius);
	if (st != IMP_OK)
		return st;
	return hull_shape(p, 2, IMP_SHAPE_CAPSULE3, radius, NULL, out);
}

/// A box's hull, whatever its sizes: corner k at (+-hx, +-hy, +-hz) by
/// the bits of k, the 12 edges, the 6 faces counter-clockwise seen from
/// outside and each corner's 3 neighbours. These are the arrays that
/// imp_hull3_build gives for the cube's corners; a box has the same ones
/// with its own coordinates, so it is made directly (about 1% of the
/// quickhull's time, whose exact predicates work hardest on a box's
/// coplanar corners).
static const int32_t box_edges[24] = {0, 1, 0, 2, 0, 4, 1, 3, 1, 5, 2, 3, 2, 6, 3, 7, 4, 5, 4, 6, 5, 7, 6, 7};
static const int32_t box_face_start[7] = {0, 4, 8, 12, 16, 20, 24};
static const int32_t box_face_vertices[24] = {0, 2, 3, 1, 0, 4, 6, 2, 4, 5, 7, 6,
					      0, 1, 5, 4, 2, 6, 7, 3, 1, 3, 7, 5};
static const int32_t box_adj_start[9] = {0, 3, 6, 9, 12, 15, 18, 21, 24};
static const int32_t box_adj[24] = {1, 2, 4, 0, 3, 5, 0, 3, 6, 1, 2, 7, 0, 5, 6, 1, 4, 7, 2, 4, 7, 3, 5, 6};

static imp_status box_polytope(imp_vec3 *corners, double hx, double hy, double hz, double radius,
			       imp_shape **out)
{
	int32_t edges[24], face_start[7], face_vertices[24], adj_start[9], adj[24];
	memcpy(edges, box_edges, sizeof edges);
	memcpy(face_start, box_face_start, sizeof face_start);
	memcpy(face_vertices, box_face_vertices, sizeof face_vertices);
	memcpy(adj_start, box_adj_start, sizeof adj_start);
	memcpy(adj, box_adj, sizeof adj);
	// Outward normals of the faces in that order: -z, -x, +z, -y, +y, +x.
	imp_vec3 normal[6] = {{0, 0, -1}, {-1, 0, 0}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {1, 0, 0}};
	double offset[6] = {hz, hx, hz, hy, hy, hx};
	imp_hull3 h = {.dim = 3,
		       .nv = 8,
		       .v = corners,
		       .ne = 12,
		       .edges = edges,
		       .nf = 6,
		       .face_start = face_start,
		       .face_vertices = face_vertices,
		       .face_normal = normal,
		       .face_offset = offset,
		       .adj_start = adj_start,
		       .adj = adj};
	return make_polytope(&h, IMP_SHAPE_BOX3, radius, NULL, out);
}

imp_status imp_shape_box3(double hx, double hy, double hz, double radius, imp_shape **out)
{
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_size(hx);
	if (st == IMP_OK)
		st = check_size(hy);
	if (st == IMP_OK)
		st = check_size(hz);
	if (st == IMP_OK)
		st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	imp_vec3 p[8];
	for (int k = 0; k < 8; ++k)
		p[k] = imp_vec3_make(k & 1 ? hx : -hx, k & 2 ? hy : -hy, k & 4 ? hz : -hz);
	// Its own hull at every aspect ratio: the eight corners, whose face
	// normals are the axes however thin the box. (The hull of the corners
	// flattens a box thinner than its tolerance to four of them, and the
	// corner table then named corners the shape did not have: a plate of
	// 1.375 x 1e-20 x 1.25 answered its bottom along +z.)
	st = box_polytope(p, hx, hy, hz, radius, out);
	if (st != IMP_OK)
		return st;
	imp_shape3 *s = (imp_shape3 *)(void *)*out;
	// Corner k by the signs of a direction: one lookup instead of a search.
	for (int k = 0; k < 8; ++k)
		s->box_vertex[k] = (int8_t)k;
	s->size = imp_vec3_make(hx, hy, hz);
	return IMP_OK;
}

/// The argument checks of a curved core (cylinder, cone, ellipsoid).
static imp_status curved_shape_check(imp_vec3 size, double radius, imp_shape **out)
{
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_size(size.x);
	if (st == IMP_OK)
		st = check_size(size.y);
	if (st == IMP_OK)
		st = check_size(size.z);
	if (st == IMP_OK)
		st = check_radius(radius);
	return st;
}

/// A curved core (cylinder, cone, ellipsoid) with its sizes.
static imp_status curved_shape(int kind, imp_vec3 size, double radius, imp_shape **out)
{
	imp_status st = curved_shape_check(size, radius, out);
	if (st != IMP_OK)
		return st;
	imp_shape3 *s = shape3_alloc(NULL, sizeof(imp_shape3), 0, false);
	if (s == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	s->kind = (uint8_t)kind;
	s->radius = radius;
	s->size = size;
	s->center = imp_vec3_make(0.0, 0.0, 0.0);
	double reach = kind == IMP_SHAPE_ELLIPSOID ? imp_max3(size.x, size.y, size.z) : hypot(size.x, size.z);
	s->bound_radius = reach + radius;
	*out = (imp_shape *)(void *)s;
	return IMP_OK;
}

imp_status imp_shape_cylinder(double half_height, double cylinder_radius, double radius, imp_shape **out)
{
	return curved_shape(IMP_SHAPE_CYLINDER, imp_vec3_make(cylinder_radius, cylinder_radius, half_height), radius,
			    out);
}

imp_status imp_shape_cone(double half_height, double base_radius, double radius, imp_shape **out)
{
	return curved_shape(IMP_SHAPE_CONE, imp_vec3_make(base_radius, base_radius, half_height), radius, out);
}

imp_status imp_shape_ellipsoid(double rx, double ry, double rz, double radius, imp_shape **out)
{
	// Its support and curvature divide by |E d| and E^2 terms: a semi-axis
	// whose square underflows (1e-200 was accepted) made its box and
	// supports NaN along that axis. The other checks come first, so that
	// bad values keep their own errors.
	imp_status st = curved_shape_check(imp_vec3_make(rx, ry, rz), radius, out);
	if (st != IMP_OK)
		return st;
	if (rx < IMP_MIN_SEMI_AXIS || ry < IMP_MIN_SEMI_AXIS || rz < IMP_MIN_SEMI_AXIS)
		return IMP_ERR_OUT_OF_RANGE;
	// Its support along d is E^2 d / |E d|: where the long axis over the
	// short one, A, reaches 1/eps, a direction's rounding (1e-16 in its
	// own frame) moves the support the whole length along the long axis
	// (a needle 4.2e16 by 0.156 was called overlapping a box 378 away).
	if (imp_max3(rx, ry, rz) > IMP_MAX_ELLIPSOID_ASPECT * imp_min(rx, imp_min(ry, rz)))
		return IMP_ERR_OUT_OF_RANGE;
	return curved_shape(IMP_SHAPE_ELLIPSOID, imp_vec3_make(rx, ry, rz), radius, out);
}

imp_status imp_shape_user3(imp_support3_fn *support, const void *user, double radius, imp_shape **out)
{
	if (support == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	// A point inside the core (the middle of two of its points) for the
	// first search direction, and the bound from the six axis supports.
	imp_vec3 e[6];
	for (int k = 0; k < 6; ++k) {
		double sgn = k & 1 ? -1.0 : 1.0;
		imp_vec3 d = imp_vec3_make(k / 2 == 0 ? sgn : 0.0, k / 2 == 1 ? sgn : 0.0, k / 2 == 2 ? sgn : 0.0);
		e[k] = support(user, d);
		if (!is_finite3(e[k]))
			return IMP_ERR_NOT_FINITE;
		if (!in_range3(e[k]))
			return IMP_ERR_OUT_OF_RANGE;
	}
	size_t cold_at = align_up(sizeof(imp_shape3), alignof(imp_shape_cold3));
	imp_shape3 *s = shape3_alloc(NULL, cold_at + sizeof(imp_shape_cold3), cold_at, true);
	if (s == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	s->kind = IMP_SHAPE_USER3;
	s->radius = radius;
	s->cold->support = support;
	s->cold->user = user;
	s->center = imp_vec3_scale(0.5, imp_vec3_add(e[0], e[1]));
	double hx = imp_max(fabs(e[0].x), fabs(e[1].x)), hy = imp_max(fabs(e[2].y), fabs(e[3].y)),
	       hz = imp_max(fabs(e[4].z), fabs(e[5].z));
	s->bound_radius = hypot(hypot(hx, hy), hz) + radius; // hypot: see the polytope's
	*out = (imp_shape *)(void *)s;
	return IMP_OK;
}

static bool is_hull_kind(const imp_shape3 *s)
{
	return s->v != NULL;
}

int imp_shape_vertices3(const imp_shape *shape, imp_vec3 *out, int capacity)
{
	return imp_shape_vertices_copy(shape, 3, out, capacity);
}

int imp_shape_face_count(const imp_shape *shape)
{
	if (imp_shape_check(shape, 3) != IMP_OK)
		return -1;
	if (imp_kind_is_composite(shape->kind))
		return shape->kind == IMP_SHAPE_MESH ? shape->count : 0;
	return imp_shape3_of(shape)->nf;
}

int imp_shape_edge_count(const imp_shape *shape)
{
	if (imp_shape_check(shape, 3) != IMP_OK)
		return -1;
	if (imp_kind_is_composite(shape->kind))
		return 0;
	return imp_shape3_of(shape)->ne;
}

imp_status imp_shape_edge(const imp_shape *shape, int index, int *v0, int *v1)
{
	imp_status st = imp_shape_check(shape, 3);
	if (st != IMP_OK)
		return st;
	if (v0 == NULL || v1 == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_kind_is_composite(shape->kind))
		return IMP_ERR_BAD_COUNT; // no edges: see imp_shape_edge_count
	const imp_shape3 *s = imp_shape3_of(shape);
	if (index < 0 || index >= s->ne)
		return IMP_ERR_BAD_COUNT;
	*v0 = s->edges[2 * index];
	*v1 = s->edges[2 * index + 1];
	return IMP_OK;
}

int imp_shape_face(const imp_shape *shape, int index, int *out, int capacity)
{
	if (imp_shape_check(shape, 3) != IMP_OK || (out == NULL && capacity > 0) || capacity < 0)
		return -1;
	if (imp_kind_is_composite(shape->kind)) {
		// A mesh's faces are its triangles.
		const imp_composite *c = imp_composite_of(shape);
		if (c->kind != IMP_SHAPE_MESH || index < 0 || index >= c->count)
			return -1;
		for (int i = 0; i < 3 && i < capacity; ++i)
			out[i] = c->triangles[3 * (int64_t)index + i];
		return 3;
	}
	const imp_shape3 *s = imp_shape3_of(shape);
	if (index < 0 || index >= s->nf)
		return -1;
	int first = s->face_start[index], n = s->face_start[index + 1] - first;
	for (int i = 0; i < n && i < capacity; ++i)
		out[i] = s->face_vertices[first + i];
	return n;
}

/// The core's support point along local direction d (not normalised).
static imp_vec3 core_support3(const imp_shape3 *s, imp_vec3 d)
{
	if (s->kind == IMP_SHAPE_BOX3)
		return s->v[s->box_vertex[(d.x > 0.0) | (d.y > 0.0) << 1 | (d.z > 0.0) << 2]];
	if (is_hull_kind(s))
		return s->v[imp_support3_brute(s->v, s->count, d)];
	return imp_support3_curved(s, d);
}

imp_status imp_shape_support3(const imp_shape *shape, imp_pose3 pose, imp_vec3 direction, imp_vec3 *out)
{
	imp_status st = imp_shape_check(shape, 3);
	if (st != IMP_OK)
		return st;
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (!is_finite3(direction))
		return IMP_ERR_NOT_FINITE;
	// Scaled first, so that directions near the limits of double do not
	// overflow or vanish on the way to their length.
	double big = imp_max3(fabs(direction.x), fabs(direction.y), fabs(direction.z));
	if (!(big > 0.0))
		return IMP_ERR_NOT_FINITE;
	direction = imp_vec3_scale(1.0 / big, direction);
	st = imp_pose3_status(pose);
	if (st != IMP_OK)
		return st;
	if (imp_kind_is_composite(shape->kind))
		return imp_composite_support3(imp_composite_of(shape), pose, direction, out);
	const imp_shape3 *s = imp_shape3_of(shape);
	imp_mat3 r = imp_pose3_matrix(pose);
	imp_vec3 d = imp_mat3_apply_t(&r, direction);
	imp_vec3 p = core_support3(s, d);
	if (!is_finite3(p))
		return IMP_ERR_NOT_FINITE;
	p = imp_vec3_add(p, imp_vec3_scale(s->radius / imp_vec3_length(d), d));
	*out = imp_vec3_add(imp_mat3_apply(&r, p), pose.p);
	return IMP_OK;
}

imp_status imp_shape3_aabb_support(const imp_shape3 *s, const imp_mat3 *r, imp_aabb3 *core)
{
	// The support along each world axis, taken in the local frame: row k
	// of the matrix is world axis k in the local frame.
	imp_vec3 up[3], down[3];
	for (int k = 0; k < 3; ++k) {
		imp_vec3 axis = imp_vec3_make(r->m[k][0], r->m[k][1], r->m[k][2]);
		up[k] = imp_mat3_apply(r, core_support3(s, axis));
		down[k] = imp_mat3_apply(r, core_support3(s, imp_vec3_neg(axis)));
		if (!is_finite3(up[k]) || !is_finite3(down[k]))
			return IMP_ERR_NOT_FINITE;
	}
	core->lo = imp_vec3_make(down[0].x, down[1].y, down[2].z);
	core->hi = imp_vec3_make(up[0].x, up[1].y, up[2].z);
	return IMP_OK;
}

imp_status imp_shape_aabb3(const imp_shape *shape, imp_pose3 pose, imp_aabb3 *out)
{
	imp_status st = imp_shape_check(shape, 3);
	if (st != IMP_OK)
		return st;
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	st = imp_pose3_status(pose);
	if (st != IMP_OK)
		return st;
	if (imp_kind_is_composite(shape->kind))
		return imp_composite_aabb3(imp_composite_of(shape), pose, out);
	return imp_shape3_aabb_unchecked(shape, pose, out);
}
