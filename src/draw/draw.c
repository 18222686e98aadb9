// SPDX-License-Identifier: MIT
// The debug draw: shapes, worlds and query answers drawn through the
// user's callbacks (include/impact/draw.h). Shapes are read through the
// public shape API only; the world's bodies through its records.
#include <math.h>
#include <string.h>

#include "impact/draw.h"
#include "shape/composite.h"
#include "shape/shape3_internal.h"
#include "shape/shape_internal.h"
#include "world/world_internal.h"

/// Directions an outline is sampled in: enough that the chords of a unit
/// circle stay within 0.12% of it.
#define OUTLINE_DIRECTIONS 64
#define TWO_PI 6.283185307179586

imp_debug_draw imp_default_debug_draw(void)
{
	imp_debug_draw d;
	memset(&d, 0, sizeof d);
	d.view = (imp_quat){0.0, 0.0, 0.0, 1.0};
	d.draw_shapes = true;
	return d;
}

imp_vec2 imp_draw_project(const imp_debug_draw *draw, imp_vec3 p)
{
	if (draw == NULL)
		return imp_vec2_make(p.x, p.y); // the identity view
	imp_vec3 v = imp_quat_rotate(draw->view, p);
	return imp_vec2_make(v.x, v.y);
}

static imp_status check_draw(const imp_debug_draw *draw, const imp_shape *shape, int dim)
{
	if (draw == NULL || shape == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	return imp_shape_check(shape, dim);
}

/// A 2D non-convex shape: each child drawn as a convex shape.
static imp_status draw_composite2(const imp_debug_draw *draw, const imp_composite *c, imp_pose2 pose, imp_color color)
{
	for (int32_t k = 0; k < c->count; ++k) {
		imp_child2 ch;
		imp_composite_child2(c, k, &ch);
		imp_status st = imp_draw_shape2(draw, ch.shape, imp_composite_pose2(pose, &ch), color);
		if (st != IMP_OK)
			return st;
	}
	return IMP_OK;
}

/// A 3D non-convex shape: a compound's children as convex shapes; a mesh's
/// triangles and a height field's surface as their edges, seen through the
/// view.
static imp_status draw_composite3(const imp_debug_draw *draw, const imp_composite *c, imp_pose3 pose, imp_color color)
{
	if (c->kind == IMP_SHAPE_COMPOUND3) {
		for (int32_t k = 0; k < c->count; ++k) {
			imp_child3 ch;
			imp_composite_child3(c, k, &ch);
			imp_status st = imp_draw_shape3(draw, ch.shape, imp_composite_pose3(pose, &ch), color);
			if (st != IMP_OK)
				return st;
		}
		return IMP_OK;
	}
	if (draw->segment == NULL)
		return IMP_OK;
	imp_mat3 r = imp_pose3_matrix(pose);
	for (int32_t k = 0; k < c->count; ++k) {
		imp_child3 ch;
		imp_composite_child3(c, k, &ch);
		// A triangle's three corners; a prism's top (the terrain's surface).
		int n = c->kind == IMP_SHAPE_MESH ? ch.rec.count : 3;
		imp_vec2 p[3];
		for (int i = 0; i < n; ++i)
			p[i] = imp_draw_project(draw, imp_vec3_add(imp_mat3_apply(&r, ch.v[i]), pose.p));
		for (int i = 0; i < n && n > 1; ++i)
			if (n > 2 || i == 0)
				draw->segment(p[i], p[(i + 1) % n], color, draw->user);
		if (n == 1 && draw->point != NULL)
			draw->point(p[0], 0.0, color, draw->user);
	}
	return IMP_OK;
}

imp_status imp_draw_shape2(const imp_debug_draw *draw, const imp_shape *shape, imp_pose2 pose, imp_color color)
{
	imp_status st = check_draw(draw, shape, 2);
	if (st == IMP_OK)
		st = imp_pose2_status(pose);
	if (st != IMP_OK)
		return st;
	if (imp_shape_is_composite(shape))
		return draw_composite2(draw, imp_composite_of(shape), pose, color);
	double r = imp_shape_radius(shape);
	int n = imp_shape_vertex_count(shape);
	if (n > 0) {
		// A polygon's core vertices, placed: a dot grown by the radius is a
		// circle, a segment a capsule.
		imp_vec2 buf[64];
		if (n <= 64) {
			imp_shape_vertices2(shape, buf, n);
			for (int i = 0; i < n; i++)
				buf[i] = imp_pose2_apply(pose, buf[i]);
			if (n == 1 && draw->circle != NULL)
				draw->circle(buf[0], r, color, draw->user);
			else if (n == 2 && draw->capsule != NULL)
				draw->capsule(buf[0], buf[1], r, color, draw->user);
			else if (n >= 3 && draw->polygon != NULL)
				draw->polygon(buf, n, r, color, draw->user);
			return IMP_OK;
		}
	}
	// A user shape, or a polygon of more vertices than the buffer: the
	// outline from supports.
	imp_vec2 out[OUTLINE_DIRECTIONS];
	for (int k = 0; k < OUTLINE_DIRECTIONS; k++) {
		double a = TWO_PI * k / OUTLINE_DIRECTIONS;
		st = imp_shape_support2(shape, pose, imp_vec2_make(cos(a), sin(a)), &out[k]);
		if (st != IMP_OK)
			return st;
	}
	if (draw->polygon != NULL)
		draw->polygon(out, OUTLINE_DIRECTIONS, 0.0, color, draw->user);
	return IMP_OK;
}

imp_status imp_draw_shape3(const imp_debug_draw *draw, const imp_shape *shape, imp_pose3 pose, imp_color color)
{
	imp_status st = check_draw(draw, shape, 3);
	if (st == IMP_OK)
		st = imp_pose3_status(pose);
	if (st != IMP_OK)
		return st;
	if (imp_shape_is_composite(shape))
		return draw_composite3(draw, imp_composite_of(shape), pose, color);
	if (imp_shape_kind_of(shape) == IMP_SHAPE_SPHERE && draw->circle != NULL) {
		// Its centre is its support along any direction minus the radius.
		imp_vec3 s;
		imp_vec3 x = imp_quat_rotate(imp_quat_conj(draw->view), imp_vec3_make(1.0, 0.0, 0.0));
		st = imp_shape_support3(shape, pose, x, &s);
		if (st != IMP_OK)
			return st;
		double r = imp_shape_radius(shape);
		draw->circle(imp_draw_project(draw, imp_vec3_sub(s, imp_vec3_scale(r, x))), r, color, draw->user);
		return IMP_OK;
	}
	// The projection's outline: the support along each direction of the
	// picture's plane, turned back into the world, projects onto the
	// outline's point along that direction.
	imp_quat back = imp_quat_conj(draw->view);
	imp_vec2 out[OUTLINE_DIRECTIONS];
	for (int k = 0; k < OUTLINE_DIRECTIONS; k++) {
		double a = TWO_PI * k / OUTLINE_DIRECTIONS;
		imp_vec3 d = imp_quat_rotate(back, imp_vec3_make(cos(a), sin(a), 0.0));
		imp_vec3 s;
		st = imp_shape_support3(shape, pose, d, &s);
		if (st != IMP_OK)
			return st;
		out[k] = imp_draw_project(draw, s);
	}
	if (draw->polygon != NULL)
		draw->polygon(out, OUTLINE_DIRECTIONS, 0.0, color, draw->user);
	return IMP_OK;
}

static imp_color type_color(int type)
{
	switch (type) {
	case IMP_BODY_STATIC: return imp_color_make(0.55f, 0.57f, 0.6f, 1.0f);
	case IMP_BODY_KINEMATIC: return imp_color_make(0.25f, 0.5f, 0.85f, 1.0f);
	default: return imp_color_make(0.95f, 0.6f, 0.2f, 1.0f);
	}
}

imp_status imp_world_draw(const imp_world *w, const imp_debug_draw *draw)
{
	if (w == NULL || draw == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	for (int32_t s = 0; s < w->body_high; s++) {
		const body *b = &w->bodies[s];
		if (!b->alive)
			continue;
		imp_color c = type_color(b->type);
		if (draw->draw_shapes) {
			if (w->dim == 2)
				imp_draw_shape2(draw, b->shape, b->pose2, c);
			else
				imp_draw_shape3(draw, b->shape, b->pose3, c);
		}
		if (draw->draw_aabbs && draw->aabb != NULL) {
			imp_aabb2 box;
			if (w->dim == 2) {
				box.lo = imp_vec2_make(b->tight.lo[0], b->tight.lo[1]);
				box.hi = imp_vec2_make(b->tight.hi[0], b->tight.hi[1]);
			} else {
				// The box of the projected corners.
				box.lo = box.hi = imp_draw_project(draw, imp_vec3_make(b->tight.lo[0], b->tight.lo[1], b->tight.lo[2]));
				for (int k = 1; k < 8; k++) {
					imp_vec3 corner = imp_vec3_make(k & 1 ? b->tight.hi[0] : b->tight.lo[0],
									k & 2 ? b->tight.hi[1] : b->tight.lo[1],
									k & 4 ? b->tight.hi[2] : b->tight.lo[2]);
					imp_vec2 p = imp_draw_project(draw, corner);
					box.lo = imp_vec2_make(fmin(box.lo.x, p.x), fmin(box.lo.y, p.y));
					box.hi = imp_vec2_make(fmax(box.hi.x, p.x), fmax(box.hi.y, p.y));
				}
			}
			draw->aabb(box, c, draw->user);
		}
	}
	return IMP_OK;
}

void imp_draw_query_result(const imp_debug_draw *draw, const imp_query_result *r, imp_color color)
{
	if (draw == NULL || r == NULL || r->body.index == 0)
		return;
	imp_vec2 a = imp_draw_project(draw, r->point), b = imp_draw_project(draw, r->body_point);
	if (draw->segment != NULL)
		draw->segment(a, b, color, draw->user);
	double size = 0.02 * (1.0 + fabs(r->distance));
	if (draw->point != NULL) {
		draw->point(a, size, color, draw->user);
		draw->point(b, size, color, draw->user);
	}
}
