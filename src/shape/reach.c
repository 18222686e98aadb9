// SPDX-License-Identifier: MIT
// A shape's reach: the largest distance of a point of the shape (or of its
// core) from its origin, about which a body turns. The time of impact, the
// world's step and the planner queries bound a turn's motion by it.
#include <math.h>

#include "shape/composite.h"
#include "shape/shape3_internal.h"
#include "shape/shape_internal.h"

/// The farthest corner of a user shape's box (whose faces its supports give
/// exactly) from its origin, the box shrunk by `shrink` on every side; +inf
/// when a support is not finite.
static double user_reach(const imp_shape *s, double shrink)
{
	double x, y, z = 0.0;
	if (s->dim == 2) {
		imp_aabb2 box;
		if (imp_shape2_aabb_rel(s, imp_rot2_make(0.0), &box) != IMP_OK)
			return INFINITY;
		x = fmax(fabs(box.lo.x + shrink), fabs(box.hi.x - shrink));
		y = fmax(fabs(box.lo.y + shrink), fabs(box.hi.y - shrink));
	} else {
		imp_aabb3 box;
		if (imp_shape3_aabb_rel(s, imp_quat_identity(), &box) != IMP_OK)
			return INFINITY;
		x = fmax(fabs(box.lo.x + shrink), fabs(box.hi.x - shrink));
		y = fmax(fabs(box.lo.y + shrink), fabs(box.hi.y - shrink));
		z = fmax(fabs(box.lo.z + shrink), fabs(box.hi.z - shrink));
	}
	return hypot(hypot(x, y), z); // not sqrt(x^2 + y^2 + z^2), which underflows (fuzz finding 68)
}

static bool is_user(const imp_shape *s)
{
	return s->kind == (s->dim == 2 ? IMP_SHAPE_USER2 : IMP_SHAPE_USER3);
}

double imp_shape_reach(const imp_shape *s)
{
	if (imp_kind_is_composite(s->kind))
		return imp_composite_of(s)->bound_radius;
	if (is_user(s))
		return user_reach(s, 0.0);
	return s->dim == 2 ? s->bound_radius : imp_shape3_of(s)->bound_radius;
}

double imp_shape_core_reach(const imp_shape *s)
{
	if (imp_kind_is_composite(s->kind)) {
		// A compound's children carry their own radii: its bound radius
		// holds them, which bounds what a turn moves from above.
		const imp_composite *c = imp_composite_of(s);
		return imp_max(c->bound_radius - c->radius, 0.0);
	}
	double r = s->dim == 2 ? s->radius : imp_shape3_of(s)->radius;
	if (is_user(s))
		return user_reach(s, r);
	return imp_max((s->dim == 2 ? s->bound_radius : imp_shape3_of(s)->bound_radius) - r, 0.0);
}
