// SPDX-License-Identifier: MIT
// The oracle of the world tests: every pair tested, in the plainest way.
#include "oracle_world.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

bool ow_filter_pairs(imp_filter a, imp_filter b)
{
	if (a.group != 0 && a.group == b.group)
		return a.group > 0;
	return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

bool ow_box2_overlap(imp_aabb2 a, imp_aabb2 b, double grow)
{
	return a.lo.x <= b.hi.x + grow && b.lo.x - grow <= a.hi.x && a.lo.y <= b.hi.y + grow &&
	       b.lo.y - grow <= a.hi.y;
}

bool ow_box3_overlap(imp_aabb3 a, imp_aabb3 b, double grow)
{
	return a.lo.x <= b.hi.x + grow && b.lo.x - grow <= a.hi.x && a.lo.y <= b.hi.y + grow &&
	       b.lo.y - grow <= a.hi.y && a.lo.z <= b.hi.z + grow && b.lo.z - grow <= a.hi.z;
}

/// Types and filters: whether the two may pair at all.
static bool may_pair(const ow_body *a, const ow_body *b)
{
	if (a->type == IMP_BODY_STATIC && b->type == IMP_BODY_STATIC)
		return false;
	return ow_filter_pairs(a->filter, b->filter);
}

/// The boxes of the two bodies within the margin, and the largest side of
/// either (the scale of the edge tolerance).
static bool boxes_close(const ow_body *a, const ow_body *b, double margin, double *size)
{
	if (imp_shape_dim(a->shape) == 2) {
		imp_aabb2 ba, bb;
		if (imp_shape_aabb2(a->shape, a->pose2, &ba) != IMP_OK ||
		    imp_shape_aabb2(b->shape, b->pose2, &bb) != IMP_OK)
			return false;
		if (size)
			*size = fmax(fmax(ba.hi.x - ba.lo.x, ba.hi.y - ba.lo.y), fmax(bb.hi.x - bb.lo.x, bb.hi.y - bb.lo.y));
		return ow_box2_overlap(ba, bb, margin);
	}
	imp_aabb3 ba, bb;
	if (imp_shape_aabb3(a->shape, a->pose3, &ba) != IMP_OK || imp_shape_aabb3(b->shape, b->pose3, &bb) != IMP_OK)
		return false;
	if (size) {
		double sa = fmax(fmax(ba.hi.x - ba.lo.x, ba.hi.y - ba.lo.y), ba.hi.z - ba.lo.z);
		double sb = fmax(fmax(bb.hi.x - bb.lo.x, bb.hi.y - bb.lo.y), bb.hi.z - bb.lo.z);
		*size = fmax(sa, sb);
	}
	return ow_box3_overlap(ba, bb, margin);
}

static bool narrow_says(const ow_body *a, const ow_body *b, double margin)
{
	if (imp_shape_dim(a->shape) == 2) {
		if (margin == 0.0)
			return imp_overlap2(a->shape, a->pose2, b->shape, b->pose2, NULL);
		return imp_distance2(a->shape, a->pose2, b->shape, b->pose2, NULL) <= margin;
	}
	if (margin == 0.0)
		return imp_overlap3(a->shape, a->pose3, b->shape, b->pose3, NULL);
	return imp_distance3(a->shape, a->pose3, b->shape, b->pose3, NULL) <= margin;
}

bool ow_touch(const ow_body *a, const ow_body *b, ow_rule rule)
{
	if (!a->live || !b->live || !may_pair(a, b))
		return false;
	if (!boxes_close(a, b, rule.margin, NULL))
		return false;
	return !rule.narrow_phase || narrow_says(a, b, rule.margin);
}

/// The gap between two boxes grown by `grow` (negative: they overlap by
/// that much along the axis they overlap least) and their largest
/// coordinate, in 2D (z zero) or 3D.
static double box_gap(imp_aabb3 a, imp_aabb3 b, double grow, double *coord)
{
	double lo_a[3] = {a.lo.x, a.lo.y, a.lo.z}, hi_a[3] = {a.hi.x, a.hi.y, a.hi.z};
	double lo_b[3] = {b.lo.x, b.lo.y, b.lo.z}, hi_b[3] = {b.hi.x, b.hi.y, b.hi.z};
	double gap = -INFINITY, m = 0.0;
	for (int k = 0; k < 3; ++k) {
		gap = fmax(gap, fmax(lo_a[k] - hi_b[k], lo_b[k] - hi_a[k]) - grow);
		m = fmax(m, fmax(fmax(fabs(lo_a[k]), fabs(hi_a[k])), fmax(fabs(lo_b[k]), fabs(hi_b[k]))));
	}
	*coord = m;
	return gap;
}

/// Box-only rules: whether the boxes grown by the margin are within
/// rounding of touching. The world keeps each box as its position plus a
/// box relative to it, grown by half the margin, each rounded: boxes that
/// touch to a few ulps of their coordinates may be judged either way (a
/// segment's box 1e-20 from a point's, grown by 0.1875 each: touching by
/// the world's sums).
static bool boxes_on_edge(const ow_body *a, const ow_body *b, double margin, double *coord)
{
	imp_aabb3 ba = {{0, 0, 0}, {0, 0, 0}}, bb = ba;
	*coord = 0.0;
	if (imp_shape_dim(a->shape) == 2) {
		imp_aabb2 x, y;
		if (imp_shape_aabb2(a->shape, a->pose2, &x) != IMP_OK || imp_shape_aabb2(b->shape, b->pose2, &y) != IMP_OK)
			return false;
		ba = (imp_aabb3){{x.lo.x, x.lo.y, 0.0}, {x.hi.x, x.hi.y, 0.0}};
		bb = (imp_aabb3){{y.lo.x, y.lo.y, 0.0}, {y.hi.x, y.hi.y, 0.0}};
	} else if (imp_shape_aabb3(a->shape, a->pose3, &ba) != IMP_OK || imp_shape_aabb3(b->shape, b->pose3, &bb) != IMP_OK) {
		return false;
	}
	double gap = box_gap(ba, bb, margin, coord);
	return fabs(gap) <= 64.0 * DBL_EPSILON * (*coord + margin) + 1e-300;
}

bool ow_on_edge(const ow_body *a, const ow_body *b, ow_rule rule)
{
	double coord;
	bool box_edge = boxes_on_edge(a, b, rule.margin, &coord);
	if (!rule.narrow_phase)
		return box_edge;
	double size = 0.0;
	// Boxes farther apart than the margin plus the tolerance are no edge case.
	(void)boxes_close(a, b, rule.margin, &size);
	// The margin test rounds at the coordinates' scale: two boxes 27 short
	// of a margin of 1e20 apart, the world touching, were apart by the
	// box test's sums here (1e20 - 5.7 rounds to 1e20), and the distance
	// was 16384 short of the margin, one ulp (finding-world-margin-1e20).
	double tol = 1e-9 * (1.0 + size) + 64.0 * DBL_EPSILON * (coord + rule.margin), d;
	if (imp_shape_dim(a->shape) == 2) {
		imp_closest2_result r;
		if (imp_closest2(a->shape, a->pose2, b->shape, b->pose2, NULL, &r) != IMP_OK)
			return false;
		d = r.distance;
	} else {
		imp_closest3_result r;
		if (imp_closest3(a->shape, a->pose3, b->shape, b->pose3, NULL, &r) != IMP_OK)
			return false;
		d = r.distance;
	}
	return box_edge || fabs(d - rule.margin) <= tol;
}

/// A body's box, in 2D or 3D (the unused half zeroed), and whether it was
/// valid.
typedef struct any_box {
	imp_aabb2 b2;
	imp_aabb3 b3;
	bool ok;
} any_box;

static any_box box_of(const ow_body *b)
{
	any_box x = {0};
	if (imp_shape_dim(b->shape) == 2)
		x.ok = imp_shape_aabb2(b->shape, b->pose2, &x.b2) == IMP_OK;
	else
		x.ok = imp_shape_aabb3(b->shape, b->pose3, &x.b3) == IMP_OK;
	return x;
}

int ow_touching_pairs(const ow_body *bodies, int n, ow_rule rule, ow_pair **out, int *cap)
{
	// The boxes once (ow_touch finds them again per pair: too slow here).
	any_box *box = malloc((size_t)(n > 0 ? n : 1) * sizeof *box);
	if (!box)
		abort();
	for (int i = 0; i < n; ++i)
		box[i] = bodies[i].live ? box_of(&bodies[i]) : (any_box){0};
	int count = 0;
	for (int i = 0; i < n; ++i) {
		if (!bodies[i].live || !box[i].ok)
			continue;
		bool two = imp_shape_dim(bodies[i].shape) == 2;
		for (int j = i + 1; j < n; ++j) {
			if (!bodies[j].live || !box[j].ok || !may_pair(&bodies[i], &bodies[j]))
				continue;
			bool close = two ? ow_box2_overlap(box[i].b2, box[j].b2, rule.margin)
					 : ow_box3_overlap(box[i].b3, box[j].b3, rule.margin);
			if (!close || (rule.narrow_phase && !narrow_says(&bodies[i], &bodies[j], rule.margin)))
				continue;
			if (count == *cap) {
				*cap = *cap ? 2 * *cap : 256;
				*out = realloc(*out, (size_t)*cap * sizeof **out);
				if (!*out)
					abort();
			}
			(*out)[count].a = i;
			(*out)[count].b = j;
			++count;
		}
	}
	free(box);
	return count;
}

uint64_t ow_next(ow_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

double ow_uniform(ow_rng *r)
{
	return (double)(ow_next(r) >> 11) * 0x1.0p-53;
}

double ow_range(ow_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * ow_uniform(r);
}

int ow_int(ow_rng *r, int n)
{
	return (int)(ow_next(r) % (uint64_t)n);
}

imp_quat ow_quat(ow_rng *r)
{
	// Four normals (Box-Muller) normalised: uniform on the 3-sphere.
	double g[4];
	for (int i = 0; i < 4; i += 2) {
		double u = 1.0 - ow_uniform(r), v = ow_uniform(r);
		double m = sqrt(-2.0 * log(u));
		g[i] = m * cos(6.283185307179586 * v);
		g[i + 1] = m * sin(6.283185307179586 * v);
	}
	return imp_quat_normalize(imp_quat_make(g[0], g[1], g[2], g[3]));
}

imp_body_type ow_random_type(ow_rng *r)
{
	int k = ow_int(r, 20);
	return k < 3 ? IMP_BODY_STATIC : (k < 8 ? IMP_BODY_KINEMATIC : IMP_BODY_DYNAMIC);
}

/// Mostly the default; some positive and negative groups, some categories
/// and masks that leave bits out.
imp_filter ow_random_filter(ow_rng *r)
{
	imp_filter f = imp_default_filter();
	switch (ow_int(r, 10)) {
	case 6:
		f.group = 1;
		f.mask = 0; // the group overrides the mask
		break;
	case 7:
		f.group = -1;
		break;
	case 8:
		f.category = 1ull << ow_int(r, 3);
		f.mask = ~(1ull << ow_int(r, 3));
		break;
	case 9:
		f.category = 2;
		f.mask = 2 | 4;
		f.group = ow_int(r, 2) ? 2 : -2;
		break;
	default:
		break;
	}
	return f;
}

imp_shape *ow_random_shape2(ow_rng *r, double s)
{
	imp_shape *out = NULL;
	imp_status st;
	switch (ow_int(r, 4)) {
	case 0:
		st = imp_shape_box2(s * ow_range(r, 0.4, 1.0), s * ow_range(r, 0.4, 1.0), ow_int(r, 3) == 0 ? 0.1 * s : 0.0,
				    &out);
		break;
	case 1: {
		imp_vec2 p[8];
		int n = 3 + ow_int(r, 6);
		for (int i = 0; i < n; ++i) {
			double a = ow_range(r, 0, 6.283185307179586), d = s * sqrt(ow_range(r, 0.2, 1.0));
			p[i] = imp_vec2_make(d * cos(a), d * sin(a));
		}
		st = imp_shape_polygon(p, n, ow_int(r, 3) == 0 ? 0.05 * s : 0.0, &out);
		break;
	}
	case 2:
		st = imp_shape_circle(imp_vec2_make(ow_range(r, -0.2, 0.2) * s, ow_range(r, -0.2, 0.2) * s),
				      s * ow_range(r, 0.5, 1.0), &out);
		break;
	default:
		st = imp_shape_capsule2(imp_vec2_make(-0.5 * s, 0), imp_vec2_make(0.5 * s, 0), s * ow_range(r, 0.2, 0.5),
					&out);
		break;
	}
	return st == IMP_OK ? out : NULL;
}

imp_shape *ow_random_shape3(ow_rng *r, double s)
{
	imp_shape *out = NULL;
	imp_status st;
	switch (ow_int(r, 4)) {
	case 0:
		st = imp_shape_box3(s * ow_range(r, 0.4, 1.0), s * ow_range(r, 0.4, 1.0), s * ow_range(r, 0.4, 1.0),
				    ow_int(r, 3) == 0 ? 0.1 * s : 0.0, &out);
		break;
	case 1: {
		imp_vec3 p[10];
		int n = 4 + ow_int(r, 7);
		for (int i = 0; i < n; ++i) {
			imp_quat q = ow_quat(r); // its vector part: a direction
			double d = s * cbrt(ow_range(r, 0.1, 1.0));
			double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z) + 1e-300;
			p[i] = imp_vec3_make(d * q.x / l, d * q.y / l, d * q.z / l);
		}
		st = imp_shape_polytope(p, n, ow_int(r, 3) == 0 ? 0.05 * s : 0.0, &out);
		break;
	}
	case 2:
		st = imp_shape_sphere(imp_vec3_make(ow_range(r, -0.2, 0.2) * s, 0, ow_range(r, -0.2, 0.2) * s),
				      s * ow_range(r, 0.5, 1.0), &out);
		break;
	default:
		st = imp_shape_capsule3(imp_vec3_make(0, 0, -0.5 * s), imp_vec3_make(0, 0, 0.5 * s),
					s * ow_range(r, 0.2, 0.5), &out);
		break;
	}
	return st == IMP_OK ? out : NULL;
}
