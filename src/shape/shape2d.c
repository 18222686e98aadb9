// SPDX-License-Identifier: MIT
// 2D shapes: convex polygons rounded by a radius, and user support shapes.
#include <math.h>
#include <stdalign.h>
#include <string.h>

#include "core/alloc.h"
#include "shape/composite.h"
#include "shape/shape3_internal.h"

static bool is_finite2(imp_vec2 v)
{
	return isfinite(v.x) && isfinite(v.y);
}

static bool in_range2(imp_vec2 v)
{
	return fabs(v.x) <= IMP_MAX_COORDINATE && fabs(v.y) <= IMP_MAX_COORDINATE;
}

bool imp_pose2_is_valid(imp_pose2 t)
{
	return imp_pose2_status(t) == IMP_OK;
}

static imp_status check_radius(double radius)
{
	if (!isfinite(radius) || radius < 0.0)
		return IMP_ERR_BAD_RADIUS;
	return radius <= IMP_MAX_COORDINATE ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

/// Fills the pseudo-angle start table: bucket k holds the support vertex of
/// the direction at the middle of its pseudo-angle range, so hill climbing
/// from it takes a step or two.
static void fill_start_table(const imp_vec2 *v, int n, int32_t *table)
{
	for (int k = 0; k < IMP_ANGLE_BUCKETS; ++k) {
		double p = (k + 0.5) * (4.0 / IMP_ANGLE_BUCKETS);
		imp_vec2 d;
		if (p < 1.0)
			d = imp_vec2_make(1.0 - p, p);
		else if (p < 2.0)
			d = imp_vec2_make(1.0 - p, 2.0 - p);
		else if (p < 3.0)
			d = imp_vec2_make(p - 3.0, 2.0 - p);
		else
			d = imp_vec2_make(p - 3.0, p - 4.0);
		table[k] = imp_support_brute(v, n, d);
	}
}

/// One allocation: the record, `tail` bytes (vertices, start table), and
/// the cold part when the shape needs one (a user shape, or an allocator
/// to free it with). See struct imp_shape for why the cold part is not
/// always there.
static imp_shape *shape_alloc(const imp_allocator *alloc, size_t tail, bool user)
{
	bool custom = alloc != NULL && alloc->alloc != NULL;
	bool cold = user || custom;
	size_t off_cold = (sizeof(imp_shape) + tail + alignof(imp_shape_cold) - 1) / alignof(imp_shape_cold) *
			  alignof(imp_shape_cold);
	size_t used = cold ? off_cold + sizeof(imp_shape_cold) : sizeof(imp_shape) + tail;
	// The record starts a cache line, so that a 4-gon's record and vertices
	// are exactly two lines.
	enum { LINE = 64 };
	size_t bytes = used + LINE - 1;
	char *base = imp_alloc(alloc, bytes);
	if (base == NULL)
		return NULL;
	char *mem = (char *)(((uintptr_t)base + LINE - 1) & ~(uintptr_t)(LINE - 1));
	imp_shape *s = (imp_shape *)mem;
	memset(s, 0, sizeof *s);
	s->magic = IMP_SHAPE_MAGIC;
	s->dim = 2;
	s->base_offset = (int32_t)(mem - base);
	if (cold) {
		s->cold = (imp_shape_cold *)(mem + off_cold);
		memset(s->cold, 0, sizeof *s->cold);
		s->cold->bytes = bytes;
		if (custom)
			s->cold->allocator = *alloc;
	}
	return s;
}

/// Whether a vertex of the ring v[0..n) (3 or more) has its edges meeting
/// at IMP_SHARP_TIP or less: their directions nearly opposite, sin^2 of
/// the angle between them within IMP_SHARP_TIP^2. The two edges are first
/// brought to unit size by their largest coordinate, so that no square
/// leaves double's range (an edge that still underflows against the other
/// can call a tip sharp that is not, which only costs the walk its faster
/// merge). No hypot: with it, bench/narrow2d --smoke took 2.1% more
/// instructions (the polygons it makes), without it 0.8%.
static bool has_sharp_tip(const imp_vec2 *v, int n)
{
	for (int i = 0; n >= 3 && i < n; ++i) {
		imp_vec2 p = v[i == 0 ? n - 1 : i - 1], q = v[i + 1 == n ? 0 : i + 1];
		imp_vec2 e = imp_vec2_sub(v[i], p), f = imp_vec2_sub(q, v[i]);
		double m = imp_max(imp_max(fabs(e.x), fabs(e.y)), imp_max(fabs(f.x), fabs(f.y)));
		if (!(m > 0.0))
			continue;
		e = imp_vec2_scale(1.0 / m, e);
		f = imp_vec2_scale(1.0 / m, f);
		double cr = imp_vec2_cross(e, f);
		if (imp_vec2_dot(e, f) < 0.0 &&
		    cr * cr <= IMP_SHARP_TIP * IMP_SHARP_TIP * imp_vec2_dot(e, e) * imp_vec2_dot(f, f))
			return true;
	}
	return false;
}

/// Makes the shape record for a hull of n vertices.
static imp_status make_polygon(const imp_vec2 *hull, int n, double radius, const imp_allocator *alloc,
			       imp_shape **out)
{
	bool table = n >= IMP_ANGLE_TABLE_MIN;
	size_t tail = (size_t)n * sizeof(imp_vec2) + (table ? IMP_ANGLE_BUCKETS * sizeof(int32_t) : 0);
	imp_shape *s = shape_alloc(alloc, tail, false);
	if (s == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	imp_vec2 *v = (imp_vec2 *)(s + 1);
	memcpy(v, hull, (size_t)n * sizeof *v);
	s->kind = IMP_SHAPE_POLYGON;
	s->count = n;
	s->radius = radius;
	s->v = v;
	s->climb_auto = n >= IMP_HILL_CLIMB_MIN_VERTICES;
	s->sharp = has_sharp_tip(v, n);
	if (table)
		fill_start_table(v, n, (int32_t *)(v + n));
	imp_vec2 c = {0.0, 0.0};
	double r = 0.0;
	for (int i = 0; i < n; ++i) {
		c = imp_vec2_add(c, v[i]);
		// hypot, not the square root of a sum of squares, which
		// underflows: a box 1e-310 across had reach 0, and a time of
		// impact took two such boxes through each other for apart (fuzz
		// finding 68).
		double d = hypot(v[i].x, v[i].y);
		r = d > r ? d : r;
	}
	s->center = imp_vec2_scale(1.0 / n, c);
	s->bound_radius = r + radius;
	*out = s;
	return IMP_OK;
}

imp_status imp_shape_polygon_ex(const imp_vec2 *points, int count, double radius, const imp_allocator *allocator,
				imp_shape **out)
{
	if (points == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (count < 1 || count > IMP_POLYGON_MAX_POINTS)
		return IMP_ERR_BAD_COUNT;
	if (!imp_allocator_is_valid(allocator))
		return IMP_ERR_NULL_ARGUMENT;
	for (int i = 0; i < count; ++i) {
		if (!is_finite2(points[i]))
			return IMP_ERR_NOT_FINITE;
		if (!in_range2(points[i]))
			return IMP_ERR_OUT_OF_RANGE;
	}
	imp_status st = check_radius(radius);
	if (st != IMP_OK)
		return st;

	// Scratch: the sorted copy (count) and the chain (2 * count).
	enum { SMALL = 64 };
	imp_vec2 small[3 * SMALL];
	imp_vec2 *work = small;
	size_t scratch = 3 * (size_t)count * sizeof(imp_vec2);
	if (count > SMALL) {
		work = imp_alloc(allocator, scratch);
		if (work == NULL)
			return IMP_ERR_OUT_OF_MEMORY;
	}
	imp_vec2 *chain = work + count;
	int n = imp_hull2(points, count, work, chain);
	st = make_polygon(chain, n, radius, allocator, out);
	if (work != small)
		imp_free(allocator, work, scratch);
	return st;
}

imp_status imp_shape_polygon(const imp_vec2 *points, int count, double radius, imp_shape **out)
{
	return imp_shape_polygon_ex(points, count, radius, NULL, out);
}

imp_status imp_shape_circle(imp_vec2 center, double radius, imp_shape **out)
{
	if (!(radius > 0.0))
		return IMP_ERR_BAD_RADIUS;
	return imp_shape_polygon(&center, 1, radius, out);
}

imp_status imp_shape_capsule2(imp_vec2 p0, imp_vec2 p1, double radius, imp_shape **out)
{
	if (!(radius > 0.0))
		return IMP_ERR_BAD_RADIUS;
	imp_vec2 p[2] = {p0, p1};
	return imp_shape_polygon(p, 2, radius, out);
}

imp_status imp_shape_segment2(imp_vec2 p0, imp_vec2 p1, imp_shape **out)
{
	imp_vec2 p[2] = {p0, p1};
	return imp_shape_polygon(p, 2, 0.0, out);
}

imp_status imp_shape_box2(double hx, double hy, double radius, imp_shape **out)
{
	if (!(hx > 0.0) || !(hy > 0.0) || !isfinite(hx) || !isfinite(hy))
		return IMP_ERR_BAD_RADIUS;
	if (hx > IMP_MAX_COORDINATE || hy > IMP_MAX_COORDINATE)
		return IMP_ERR_OUT_OF_RANGE;
	imp_vec2 p[4] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
	return imp_shape_polygon(p, 4, radius, out);
}

imp_status imp_shape_user2(imp_support2_fn *support, const void *user, double radius, imp_shape **out)
{
	if (support == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_radius(radius);
	if (st != IMP_OK)
		return st;
	// A point inside the core (the middle of two of its points) for the first
	// search direction, and the bound from the four axis supports.
	imp_vec2 e[4] = {support(user, imp_vec2_make(1, 0)), support(user, imp_vec2_make(-1, 0)),
			 support(user, imp_vec2_make(0, 1)), support(user, imp_vec2_make(0, -1))};
	for (int i = 0; i < 4; ++i)
		if (!is_finite2(e[i]))
			return IMP_ERR_NOT_FINITE;
		else if (!in_range2(e[i]))
			return IMP_ERR_OUT_OF_RANGE;
	imp_shape *s = shape_alloc(NULL, 0, true);
	if (s == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	imp_shape_cold *cold = s->cold;
	s->kind = IMP_SHAPE_USER2;
	s->radius = radius;
	cold->support = support;
	cold->user = user;
	s->center = imp_vec2_scale(0.5, imp_vec2_add(e[0], e[1]));
	double hx = imp_max(fabs(e[0].x), fabs(e[1].x)), hy = imp_max(fabs(e[2].y), fabs(e[3].y));
	s->bound_radius = hypot(hx, hy) + radius; // not sqrt(hx^2 + hy^2): see make_polygon's
	*out = s;
	return IMP_OK;
}

void imp_shape_destroy(imp_shape *shape)
{
	if (shape == NULL || shape->magic != IMP_SHAPE_MAGIC)
		return;
	if (imp_kind_is_composite(shape->kind)) {
		imp_composite_release((imp_composite *)(void *)shape);
		return;
	}
	if (shape->dim == 3) {
		imp_shape3_release((imp_shape3 *)(void *)shape);
		return;
	}
	imp_allocator a = {0};
	size_t bytes = 0;
	if (shape->cold != NULL) {
		a = shape->cold->allocator;
		bytes = shape->cold->bytes;
	}
	shape->magic = 0;
	imp_free(&a, (char *)shape - shape->base_offset, bytes);
}

int imp_shape_dim(const imp_shape *shape)
{
	return shape != NULL && shape->magic == IMP_SHAPE_MAGIC ? shape->dim : 0;
}

int imp_shape_kind_of(const imp_shape *shape)
{
	return shape != NULL && shape->magic == IMP_SHAPE_MAGIC ? shape->kind : 0;
}

double imp_shape_radius(const imp_shape *shape)
{
	return shape != NULL && shape->magic == IMP_SHAPE_MAGIC ? shape->radius : NAN;
}

/// The vertices a shape's vertex accessors give: the core's, a mesh's, a
/// chain's points; none for compounds and height fields.
static int shape_vertices(const imp_shape *shape, const void **v)
{
	if (!imp_kind_is_composite(shape->kind)) {
		*v = shape->dim == 2 ? (const void *)shape->v : (const void *)imp_shape3_of(shape)->v;
		return shape->count;
	}
	const imp_composite *c = imp_composite_of(shape);
	*v = c->kind == IMP_SHAPE_MESH ? (const void *)c->v3 : (const void *)c->v2;
	return c->kind == IMP_SHAPE_MESH ? c->vertex_count : (c->kind == IMP_SHAPE_CHAIN ? c->point_count : 0);
}

int imp_shape_vertex_count(const imp_shape *shape)
{
	const void *v;
	return shape != NULL && shape->magic == IMP_SHAPE_MAGIC ? shape_vertices(shape, &v) : -1;
}

int imp_shape_vertices_copy(const imp_shape *shape, int dim, void *out, int capacity)
{
	if (imp_shape_check(shape, dim) != IMP_OK || (out == NULL && capacity > 0) || capacity < 0)
		return -1;
	const void *v;
	int count = shape_vertices(shape, &v);
	int n = count < capacity ? count : capacity;
	if (n > 0)
		memcpy(out, v, (size_t)n * (dim == 2 ? sizeof(imp_vec2) : sizeof(imp_vec3)));
	return count;
}

int imp_shape_vertices2(const imp_shape *shape, imp_vec2 *out, int capacity)
{
	return imp_shape_vertices_copy(shape, 2, out, capacity);
}

/// Support point of the core in local direction d (not normalised).
static imp_vec2 core_support(const imp_shape *s, imp_vec2 d)
{
	if (s->kind == IMP_SHAPE_USER2)
		return s->cold->support(s->cold->user, d);
	return s->v[imp_support_brute(s->v, s->count, d)];
}

imp_status imp_shape_support2(const imp_shape *shape, imp_pose2 pose, imp_vec2 direction, imp_vec2 *out)
{
	imp_status st = imp_shape_check(shape, 2);
	if (st != IMP_OK)
		return st;
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (!is_finite2(direction))
		return IMP_ERR_NOT_FINITE;
	// Scaled first, so that directions near the limits of double do not
	// overflow or vanish on the way to their length.
	double big = imp_max(fabs(direction.x), fabs(direction.y));
	if (!(big > 0.0))
		return IMP_ERR_NOT_FINITE;
	direction = imp_vec2_make(direction.x / big, direction.y / big);
	double len = imp_vec2_length(direction);
	st = imp_pose2_status(pose);
	if (st != IMP_OK)
		return st;
	if (imp_kind_is_composite(shape->kind))
		return imp_composite_support2(imp_composite_of(shape), pose, direction, out);
	imp_vec2 d = imp_rot2_apply_inv(pose.q, direction);
	imp_vec2 p = core_support(shape, d);
	if (!is_finite2(p))
		return IMP_ERR_NOT_FINITE;
	p = imp_vec2_add(p, imp_vec2_scale(shape->radius / len, d));
	*out = imp_pose2_apply(pose, p);
	return IMP_OK;
}

imp_status imp_shape_aabb2(const imp_shape *shape, imp_pose2 pose, imp_aabb2 *out)
{
	imp_status st = imp_shape_check(shape, 2);
	if (st != IMP_OK)
		return st;
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	st = imp_pose2_status(pose);
	if (st != IMP_OK)
		return st;
	if (imp_kind_is_composite(shape->kind))
		return imp_composite_aabb2(imp_composite_of(shape), pose, out);
	return imp_shape2_aabb_unchecked(shape, pose, out);
}

imp_status imp_shape2_aabb_support(const imp_shape *shape, imp_rot2 q, imp_aabb2 *core)
{
	// The support along each world axis, taken in the local frame.
	imp_vec2 ax = imp_rot2_apply_inv(q, imp_vec2_make(1, 0));
	imp_vec2 ay = imp_rot2_apply_inv(q, imp_vec2_make(0, 1));
	imp_vec2 px = imp_rot2_apply(q, core_support(shape, ax));
	imp_vec2 nx = imp_rot2_apply(q, core_support(shape, imp_vec2_scale(-1, ax)));
	imp_vec2 py = imp_rot2_apply(q, core_support(shape, ay));
	imp_vec2 ny = imp_rot2_apply(q, core_support(shape, imp_vec2_scale(-1, ay)));
	if (!is_finite2(px) || !is_finite2(nx) || !is_finite2(py) || !is_finite2(ny))
		return IMP_ERR_NOT_FINITE;
	core->lo = imp_vec2_make(nx.x, ny.y);
	core->hi = imp_vec2_make(px.x, py.y);
	return IMP_OK;
}
