// SPDX-License-Identifier: MIT
// Property tests of the 3D narrow phase against the brute-force oracle
// (oracle3d.c): overlap (level 1), distance (level 2), closest points and
// penetration (level 3) on random polytope pairs, with symmetry, rigid
// motion, warm caches, support modes and Nesterov on and off; analytic
// spheres, capsules, boxes and ellipsoids; user shapes; 2D polygons lifted
// into prisms.
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "oracle3d.h"

#define MAX_IN 12
#define PAIRS 100000

/// A shape under test with what the oracle needs.
typedef struct body3 {
	int n;
	imp_vec3 in[O3_MAX_POINTS];
	double radius;
	imp_shape *shape;
	o3_poly poly;
	imp_pose3 pose;
} body3;

/// Random input points of a random family: scattered in a ball, on a
/// sphere, on a box's corners, flat (coplanar), collinear, a single point
/// repeated, duplicates of a few points.
static int random_points(o3_rng *r, imp_vec3 *out, int max_n, double scale)
{
	int n = 1 + o3_int(r, max_n);
	int family = o3_int(r, 8);
	imp_vec3 c = o3_vec(r, -0.2 * scale, 0.2 * scale);
	imp_vec3 u = o3_unit(r), v = o3_unit(r);
	for (int i = 0; i < n; ++i) {
		imp_vec3 p;
		switch (family) {
		case 0:
		case 1:
			p = imp_vec3_scale(scale * cbrt(o3_uniform(r)), o3_unit(r));
			break;
		case 2:
			p = imp_vec3_scale(scale, o3_unit(r));
			break;
		case 3: {
			int k = o3_int(r, 8);
			p = imp_vec3_make(k & 1 ? scale : -scale, k & 2 ? 0.5 * scale : -0.5 * scale,
					  k & 4 ? 0.3 * scale : -0.3 * scale);
			break;
		}
		case 4: // flat: on the plane spanned by u and v
			p = imp_vec3_add(imp_vec3_scale(o3_range(r, -scale, scale), u),
					 imp_vec3_scale(o3_range(r, -scale, scale), v));
			break;
		case 5: // collinear
			p = imp_vec3_scale(o3_range(r, -scale, scale), u);
			break;
		case 6: // repeated
			p = imp_vec3_scale(0.3 * scale, u);
			break;
		default: // duplicates of earlier points
			p = i > 0 && o3_int(r, 2) ? imp_vec3_sub(out[o3_int(r, i)], c)
						  : imp_vec3_scale(scale, o3_unit(r));
			break;
		}
		out[i] = imp_vec3_add(p, c);
	}
	return n;
}

static void body_make(body3 *b, const imp_vec3 *pts, int n, double radius)
{
	b->n = n;
	memcpy(b->in, pts, (size_t)n * sizeof *pts);
	b->radius = radius;
	assert_int_equal(imp_shape_polytope(pts, n, radius, &b->shape), IMP_OK);
	o3_poly_make(&b->poly, pts, n);
}

static void body_free(body3 *b)
{
	imp_shape_destroy(b->shape);
	b->shape = NULL;
}

/// Each pair has its own generator: a failing pair is rebuilt from
/// (seed, index) alone.
static o3_rng pair_rng(uint64_t seed, int i)
{
	o3_rng r = {seed * 0x100000001b3ull + (uint64_t)i * 0x9e3779b97f4a7c15ull};
	o3_next(&r);
	return r;
}

/// A random pair: 1..MAX_IN points each, radius 0 half of the time, b
/// placed about a so that about half of the pairs overlap.
static void random_pair(o3_rng *r, body3 *a, body3 *b)
{
	imp_vec3 pts[MAX_IN];
	double scale = pow(10.0, o3_range(r, -1.0, 1.5));
	int n = random_points(r, pts, MAX_IN, scale);
	body_make(a, pts, n, o3_int(r, 2) ? 0.0 : o3_range(r, 0.0, 0.5) * scale);
	double scale_b = scale * pow(10.0, o3_range(r, -0.5, 0.5));
	n = random_points(r, pts, MAX_IN, scale_b);
	body_make(b, pts, n, o3_int(r, 2) ? 0.0 : o3_range(r, 0.0, 0.5) * scale_b);
	a->pose = o3_pose(r, 10.0 * scale);
	imp_vec3 dir = o3_unit(r);
	double dist = o3_range(r, 0.0, 1.2) * (scale + scale_b);
	b->pose = o3_pose(r, 0.0);
	b->pose.p = imp_vec3_add(a->pose.p, imp_vec3_scale(dist, dir));
}

/// Running maxima of the errors, relative to the scene.
typedef struct stats3 {
	long pairs, overlapping, near_contact, flat;
	double dist, depth, point, normal;
	int max_it, max_epa;
} stats3;

static void report(const char *name, const stats3 *s)
{
	printf("  %s: %ld pairs (%ld overlapping, %ld near contact, %ld flat differences): max error / scene "
	       "distance %.2e, depth %.2e, points %.2e, normal %.2e; max iterations %d, EPA %d\n",
	       name, s->pairs, s->overlapping, s->near_contact, s->flat, s->dist, s->depth, s->point, s->normal,
	       s->max_it, s->max_epa);
}

static void track(double *m, double v)
{
	if (v > *m)
		*m = v;
}

/// Distance from a world point to a body's core.
static double core_distance(const body3 *b, imp_vec3 p)
{
	return o3_point_polytope_distance(p, &b->poly, b->pose, NULL);
}

/// All three levels of one pair against the oracle.
static void check_pair(const body3 *a, const body3 *b, stats3 *st, int i)
{
	o3_result o;
	o3_query(&a->poly, a->pose, a->radius, &b->poly, b->pose, b->radius, &o);
	double scene = o.scene;
	double tol_dist = 1e-10 * scene, tol_depth = 1e-9 * scene, tol_point = 1e-8 * scene;
	bool flat = !o3_difference_is_solid(&a->poly, a->pose, &b->poly, b->pose);
	bool near = fabs(o.sd) <= 1e-9 * scene;
	++st->pairs;
	st->overlapping += o.sd < 0.0;
	st->near_contact += near;
	st->flat += flat;

	// Level 1.
	bool ov = imp_overlap3(a->shape, a->pose, b->shape, b->pose, NULL);
	if (!near && ov != (o.sd <= 0.0))
		fail_msg("pair %d: overlap %d, oracle signed distance %.17g (scene %g)", i, ov, o.sd, scene);

	// Level 2.
	int it;
	imp_query_state state;
	double d = imp_distance3_stats(a->shape, a->pose, b->shape, b->pose, NULL, NULL, &it, &state);
	double want = o.sd > 0.0 ? o.sd : 0.0;
	if (!(fabs(d - want) <= tol_dist))
		fail_msg("pair %d: distance %.17g, oracle %.17g (scene %g, state %d, %d iterations)", i, d, want, scene,
			 state, it);
	track(&st->dist, fabs(d - want) / scene);
	if (it > st->max_it)
		st->max_it = it;

	// Level 3.
	imp_closest3_result r;
	assert_int_equal(imp_closest3(a->shape, a->pose, b->shape, b->pose, NULL, &r), IMP_OK);
	if (r.state == IMP_STATE_ITERATION_LIMIT || r.state == IMP_STATE_DEGENERATE)
		fail_msg("pair %d: closest3 ended %s", i, imp_query_state_string(r.state));
	if (r.epa_iterations > st->max_epa)
		st->max_epa = r.epa_iterations;
	double err = fabs(r.distance - o.sd);
	double tol = o.sd >= 0.0 || o.core_sd >= 0.0 ? tol_dist : tol_depth;
	if (!(err <= tol))
		fail_msg("pair %d: signed distance %.17g, oracle %.17g (scene %g, flat %d)", i, r.distance, o.sd, scene,
			 flat);
	track(o.sd >= 0.0 ? &st->dist : &st->depth, err / scene);
	// Witnesses: the normal is unit, joins them, and each lies on its own
	// rounded shape's boundary (at its radius from the core).
	double nl = imp_vec3_length(r.normal);
	if (!(fabs(nl - 1.0) <= 1e-12))
		fail_msg("pair %d: normal length %.17g", i, nl);
	imp_vec3 gap = imp_vec3_sub(r.point_b, r.point_a);
	imp_vec3 along = imp_vec3_sub(gap, imp_vec3_scale(r.distance, r.normal));
	double perr = imp_vec3_length(along);
	if (!(perr <= tol_point))
		fail_msg("pair %d: point_b - point_a off distance * normal by %g", i, perr);
	track(&st->point, perr / scene);
	double da = core_distance(a, r.point_a), db = core_distance(b, r.point_b);
	if (o.core_sd > 0.0) {
		if (!(fabs(da - a->radius) <= tol_point && fabs(db - b->radius) <= tol_point))
			fail_msg("pair %d: witnesses %g and %g from the cores, radii %g and %g", i, da, db, a->radius,
				 b->radius);
	} else if (!(da <= a->radius + tol_point && db <= b->radius + tol_point)) {
		fail_msg("pair %d: penetration witnesses %g and %g from the cores", i, da, db);
	}
	track(&st->point, fmax(fabs(da - a->radius), fabs(db - b->radius)) / scene * (o.core_sd > 0.0));
	if (o.unique_normal && !near) {
		double nerr = imp_vec3_length(imp_vec3_sub(r.normal, o.normal));
		if (!(nerr <= 1e-6))
			fail_msg("pair %d: normal off the oracle's by %g (signed distance %g)", i, nerr, o.sd);
		track(&st->normal, nerr);
	}
}

static void test_polytope_pairs(void **state)
{
	(void)state;
	stats3 st = {0};
	body3 *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	assert_non_null(a);
	assert_non_null(b);
	for (int i = 0; i < PAIRS; ++i) {
		o3_rng r = pair_rng(31, i);
		random_pair(&r, a, b);
		check_pair(a, b, &st, i);
		body_free(a);
		body_free(b);
	}
	report("polytopes, all levels", &st);
	free(a);
	free(b);
}

/// The answers that must not change: b and a swapped, a common rigid
/// motion, warm caches (the same pair queried twice), each support mode,
/// Nesterov on and off.
static void test_invariance(void **state)
{
	(void)state;
	body3 *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	assert_non_null(a);
	assert_non_null(b);
	imp_query_options modes[4];
	for (int m = 0; m < 4; ++m)
		modes[m] = imp_default_query_options();
	modes[1].support = IMP_SUPPORT_BRUTE_FORCE;
	modes[2].support = IMP_SUPPORT_HILL_CLIMB;
	modes[3].acceleration = IMP_ACCELERATION_NESTEROV;
	double worst = 0.0;
	for (int i = 0; i < PAIRS; ++i) {
		o3_rng r = pair_rng(47, i);
		random_pair(&r, a, b);
		imp_closest3_result base, x;
		assert_int_equal(imp_closest3(a->shape, a->pose, b->shape, b->pose, NULL, &base), IMP_OK);
		double scene = fmax(1.0, imp_vec3_length(a->pose.p) + imp_vec3_length(b->pose.p) + 30.0);
		double tol = 1e-9 * scene;
		// Swapped.
		assert_int_equal(imp_closest3(b->shape, b->pose, a->shape, a->pose, NULL, &x), IMP_OK);
		if (!(fabs(x.distance - base.distance) <= tol))
			fail_msg("pair %d swapped: %.17g against %.17g", i, x.distance, base.distance);
		track(&worst, fabs(x.distance - base.distance) / scene);
		// A common rigid motion.
		imp_pose3 m = o3_pose(&r, 5.0);
		imp_pose3 pa = imp_pose3_mul(m, a->pose), pb = imp_pose3_mul(m, b->pose);
		pa.q = imp_quat_normalize(pa.q);
		pb.q = imp_quat_normalize(pb.q);
		double d0 = imp_distance3(a->shape, a->pose, b->shape, b->pose, NULL);
		double d1 = imp_distance3(a->shape, pa, b->shape, pb, NULL);
		if (!(fabs(d1 - d0) <= tol))
			fail_msg("pair %d moved: %.17g against %.17g", i, d1, d0);
		// Warm cache: the second query starts from the first's simplex.
		imp_simplex_cache cache = {0};
		double c0 = imp_distance3(a->shape, a->pose, b->shape, b->pose, &cache);
		double c1 = imp_distance3(a->shape, a->pose, b->shape, b->pose, &cache);
		bool o0 = imp_overlap3(a->shape, a->pose, b->shape, b->pose, &cache);
		if (!(fabs(c0 - d0) <= tol && fabs(c1 - d0) <= tol) || o0 != (d0 == 0.0 || base.distance <= 0.0))
			fail_msg("pair %d cached: %.17g %.17g against %.17g, overlap %d", i, c0, c1, d0, o0);
		for (int k = 1; k < 4; ++k) {
			assert_int_equal(imp_closest3_ex(a->shape, a->pose, b->shape, b->pose, NULL, &modes[k], &x),
					 IMP_OK);
			if (!(fabs(x.distance - base.distance) <= tol))
				fail_msg("pair %d mode %d: %.17g against %.17g", i, k, x.distance, base.distance);
		}
		body_free(a);
		body_free(b);
	}
	printf("  invariance: %d pairs, max difference / scene %.2e\n", PAIRS, worst);
	free(a);
	free(b);
}


/// One query of every level on a pair with a known signed distance `sd`
/// (radii included): overlap, distance, closest's distance, and for
/// separated pairs the witnesses `sd` apart along the normal.
static void check_known(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, double sd, double tol,
			const char *what, int i, double *worst)
{
	bool ov = imp_overlap3(a, pa, b, pb, NULL);
	double d = imp_distance3(a, pa, b, pb, NULL);
	imp_closest3_result r;
	assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &r), IMP_OK);
	if (fabs(sd) > tol && ov != (sd <= 0.0))
		fail_msg("%s %d: overlap %d, signed distance %.17g", what, i, ov, sd);
	if (!(fabs(d - fmax(sd, 0.0)) <= tol))
		fail_msg("%s %d: distance %.17g, want %.17g", what, i, d, fmax(sd, 0.0));
	if (!(fabs(r.distance - sd) <= tol))
		fail_msg("%s %d: closest %.17g, want %.17g (state %s)", what, i, r.distance, sd,
			 imp_query_state_string(r.state));
	imp_vec3 gap = imp_vec3_sub(imp_vec3_sub(r.point_b, r.point_a), imp_vec3_scale(r.distance, r.normal));
	if (!(imp_vec3_length(gap) <= 10 * tol))
		fail_msg("%s %d: witnesses off distance * normal by %g", what, i, imp_vec3_length(gap));
	track(worst, fabs(r.distance - sd));
}

/// Spheres, capsules, boxes, cylinders and ellipsoids against analytic
/// distances (oracle3d's point and segment distances).
static void test_analytic(void **state)
{
	(void)state;
	o3_rng r = {101};
	double worst[5] = {0, 0, 0, 0, 0};
	const int n = 100000;
	for (int i = 0; i < n; ++i) {
		imp_shape *a, *b;
		imp_pose3 pa = o3_pose(&r, 5.0), pb = o3_pose(&r, 0.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(o3_range(&r, 0.0, 3.0), o3_unit(&r)));
		imp_vec3 rel = imp_pose3_apply_inv(pa, pb.p); // b's centre in a's frame
		double ra = o3_range(&r, 0.1, 1.0), rb = o3_range(&r, 0.1, 1.0);
		// Sphere and sphere: |c| - ra - rb, depth included.
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), ra, &a), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rb, &b), IMP_OK);
		check_known(a, pa, b, pb, imp_vec3_length(rel) - ra - rb, 1e-12, "spheres", i, &worst[0]);
		imp_shape_destroy(b);
		// Capsule and capsule: segment distance less the radii (also
		// when overlapping, while the segments do not meet).
		imp_vec3 h1 = imp_vec3_scale(o3_range(&r, 0.1, 1.0), o3_unit(&r)),
			 h2 = imp_vec3_scale(o3_range(&r, 0.1, 1.0), o3_unit(&r));
		imp_shape_destroy(a);
		assert_int_equal(imp_shape_capsule3(imp_vec3_neg(h1), h1, ra, &a), IMP_OK);
		assert_int_equal(imp_shape_capsule3(imp_vec3_neg(h2), h2, rb, &b), IMP_OK);
		imp_vec3 a0 = imp_pose3_apply(pa, imp_vec3_neg(h1)), a1 = imp_pose3_apply(pa, h1);
		imp_vec3 b0 = imp_pose3_apply(pb, imp_vec3_neg(h2)), b1 = imp_pose3_apply(pb, h2);
		double seg = o3_segment_segment_distance(a0, a1, b0, b1, NULL, NULL);
		if (seg > 1e-6)
			check_known(a, pa, b, pb, seg - ra - rb, 1e-12, "capsules", i, &worst[1]);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
		// Box and sphere (separated): the point's distance to the box.
		imp_vec3 half = {o3_range(&r, 0.1, 1.0), o3_range(&r, 0.1, 1.0), o3_range(&r, 0.1, 1.0)};
		double rr = o3_range(&r, 0.0, 0.5);
		assert_int_equal(imp_shape_box3(half.x, half.y, half.z, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rr > 0.0 ? rr : 0.1, &b), IMP_OK);
		double pd = o3_point_box_distance(rel, half, NULL);
		if (pd > 0.0)
			check_known(a, pa, b, pb, pd - (rr > 0.0 ? rr : 0.1), 1e-12, "box-sphere", i, &worst[2]);
		imp_shape_destroy(a);
		// Ellipsoid and sphere (separated): the point-ellipsoid oracle.
		imp_vec3 e = {o3_range(&r, 0.2, 1.2), o3_range(&r, 0.2, 1.2), o3_range(&r, 0.2, 1.2)};
		assert_int_equal(imp_shape_ellipsoid(e.x, e.y, e.z, 0.0, &a), IMP_OK);
		double ed = o3_point_ellipsoid_distance(rel, e, NULL);
		if (ed > 0.0)
			check_known(a, pa, b, pb, ed - (rr > 0.0 ? rr : 0.1), 1e-12, "ellipsoid-sphere", i, &worst[3]);
		imp_shape_destroy(a);
		// Cylinder and sphere (separated): radial and axial gaps.
		double rho = o3_range(&r, 0.2, 1.0), hh = o3_range(&r, 0.2, 1.0);
		assert_int_equal(imp_shape_cylinder(hh, rho, 0.0, &a), IMP_OK);
		double dr = fmax(sqrt(rel.x * rel.x + rel.y * rel.y) - rho, 0.0), dz = fmax(fabs(rel.z) - hh, 0.0);
		double cd = sqrt(dr * dr + dz * dz);
		if (cd > 0.0)
			check_known(a, pa, b, pb, cd - (rr > 0.0 ? rr : 0.1), 1e-9, "cylinder-sphere", i, &worst[4]);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  analytic, %d pairs each: max error spheres %.1e, capsules %.1e, box-sphere %.1e, "
	       "ellipsoid-sphere %.1e, cylinder-sphere %.1e\n",
	       n, worst[0], worst[1], worst[2], worst[3], worst[4]);
}

/// imp_closest3 on (a, b), or on (b, a) when `swap`.
static void closest_either(bool swap, const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			   imp_closest3_result *x)
{
	if (swap)
		assert_int_equal(imp_closest3(b, pb, a, pa, NULL, x), IMP_OK);
	else
		assert_int_equal(imp_closest3(a, pa, b, pb, NULL, x), IMP_OK);
}

/// How far x (a's frame of an ellipsoid with semi-axes e at pose p) is
/// from its surface, in units of the surface's level |E^-1 x| - 1, and the
/// outward normal there (world, unit).
static double ellipsoid_level(imp_vec3 e, imp_pose3 p, imp_vec3 x, imp_vec3 *normal)
{
	imp_vec3 l = imp_pose3_apply_inv(p, x);
	imp_vec3 q = {l.x / e.x, l.y / e.y, l.z / e.z};
	imp_vec3 g = {q.x / e.x, q.y / e.y, q.z / e.z}; // E^-2 l, the gradient of |E^-1 l|^2 / 2
	imp_vec3 gw = imp_quat_rotate(p.q, g);
	*normal = imp_vec3_scale(1.0 / imp_vec3_length(gw), gw);
	return imp_vec3_length(q) - 1.0;
}

/// h(n) for the pair: how far C = A - B reaches along unit n, from the
/// shapes' public supports (world frame).
static double support_gap(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_vec3 n)
{
	imp_vec3 sa, sb;
	assert_int_equal(imp_shape_support3(a, pa, n, &sa), IMP_OK);
	assert_int_equal(imp_shape_support3(b, pb, imp_vec3_neg(n), &sb), IMP_OK);
	return imp_vec3_dot(imp_vec3_sub(sa, sb), n);
}

/// The shrinking pattern search of test_smooth_newton's oracle: from unit
/// n with h(n) = best, the least h it reaches.
static double refine_gap(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_vec3 bn, double best)
{
	for (double step = 0.05; step > 1e-12; step *= 0.5) {
		for (bool better = true; better;) {
			better = false;
			for (int k = 0; k < 6; ++k) {
				imp_vec3 d = {k / 2 == 0 ? (k % 2 ? step : -step) : 0.0, k / 2 == 1 ? (k % 2 ? step : -step) : 0.0,
					      k / 2 == 2 ? (k % 2 ? step : -step) : 0.0};
				imp_vec3 m = imp_vec3_add(bn, d);
				m = imp_vec3_scale(1.0 / imp_vec3_length(m), m);
				double h = support_gap(a, pa, b, pb, m);
				if (h < best) {
					best = h;
					bn = m;
					better = true;
				}
			}
		}
	}
	return best;
}

/// Separated ellipsoid pairs (and an ellipsoid with a sphere), where
/// Levels 2 and 3 finish by Newton's method: the answer must satisfy the
/// optimality conditions, which for two convex shapes single out the
/// nearest pair: each witness on its surface, the witnesses `distance`
/// apart, the normal along a's outward normal at a's witness and against
/// b's at b's. Semi-axes from 0.01 to 2 (needles and discs), distances
/// from 1e-9 (touching) to 3, scenes scaled by 1e-6 and 1e6.
static void test_smooth_newton(void **state)
{
	(void)state;
	o3_rng r = {303};
	double worst_level = 0.0, worst_gap = 0.0, worst_normal = 0.0, worst_touch = 0.0;
	long iterations = 0, queries = 0;
	for (int i = 0; i < 20000; ++i) {
		double k = i % 10 == 0 ? 1e-6 : (i % 10 == 1 ? 1e6 : 1.0); // the scene's scale
		bool flat = i % 3 == 0;
		imp_vec3 ea = {k * o3_range(&r, flat ? 0.01 : 0.2, 2.0), k * o3_range(&r, 0.2, 2.0), k * o3_range(&r, 0.2, 2.0)};
		imp_vec3 eb = {k * o3_range(&r, 0.2, 2.0), k * o3_range(&r, flat ? 0.01 : 0.2, 2.0), k * o3_range(&r, 0.2, 2.0)};
		bool sphere = i % 7 == 0;
		if (sphere)
			eb.x = eb.y = eb.z = k * o3_range(&r, 0.05, 1.0);
		imp_shape *a, *b;
		assert_int_equal(imp_shape_ellipsoid(ea.x, ea.y, ea.z, 0.0, &a), IMP_OK);
		if (sphere)
			assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), eb.x, &b), IMP_OK);
		else
			assert_int_equal(imp_shape_ellipsoid(eb.x, eb.y, eb.z, 0.0, &b), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 5.0 * k), pb = o3_pose(&r, 0.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(k * o3_range(&r, 0.5, 6.0), o3_unit(&r)));
		imp_closest3_result x;
		assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
		if (!(x.distance > 0.0)) {
			imp_shape_destroy(a);
			imp_shape_destroy(b);
			continue;
		}
		if (i % 5 == 0) {
			// Touching: b moved along the normal until 1e-9 k apart.
			pb.p = imp_vec3_sub(pb.p, imp_vec3_scale(x.distance - 1e-9 * k, x.normal));
			assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
			track(&worst_touch, fabs(x.distance - 1e-9 * k) / k);
			if (!(fabs(x.distance - 1e-9 * k) <= 1e-13 * k))
				fail_msg("pair %d: touching pair at %.17g, want %.17g", i, x.distance, 1e-9 * k);
		}
		if (x.state != IMP_STATE_SEPARATED)
			fail_msg("pair %d: %s at distance %.17g", i, imp_query_state_string(x.state), x.distance);
		iterations += x.iterations;
		++queries;
		imp_vec3 na, nb;
		double la = ellipsoid_level(ea, pa, x.point_a, &na);
		double lb = sphere ? imp_vec3_length(imp_vec3_sub(x.point_b, pb.p)) / eb.x - 1.0
				   : ellipsoid_level(eb, pb, x.point_b, &nb);
		if (sphere)
			nb = imp_vec3_scale(1.0 / imp_vec3_length(imp_vec3_sub(x.point_b, pb.p)), imp_vec3_sub(x.point_b, pb.p));
		double gap = fabs(imp_vec3_length(imp_vec3_sub(x.point_b, x.point_a)) - x.distance) / k;
		double off = fmax(imp_vec3_length(imp_vec3_sub(na, x.normal)), imp_vec3_length(imp_vec3_add(nb, x.normal)));
		track(&worst_level, fmax(fabs(la), fabs(lb)));
		track(&worst_gap, gap);
		// The normal's direction is fixed to ~1e-8 only where the pair
		// touches (the witnesses' difference is then tiny).
		if (x.distance > 1e-6 * k)
			track(&worst_normal, off);
		if (!(fabs(la) <= 1e-12 && fabs(lb) <= 1e-12 && gap <= 1e-13 && (x.distance <= 1e-6 * k || off <= 1e-8)))
			fail_msg("pair %d (scale %g%s): witness levels %.3g %.3g, gap %.3g, normals off by %.3g", i, k,
				 sphere ? ", sphere" : "", la, lb, gap, off);
		// Level 2 and the swapped pair agree.
		double d2 = imp_distance3(a, pa, b, pb, NULL), d3 = imp_distance3(b, pb, a, pa, NULL);
		if (!(fabs(d2 - x.distance) <= 1e-13 * k && fabs(d3 - x.distance) <= 1e-13 * k))
			fail_msg("pair %d: distance %.17g, swapped %.17g, closest %.17g", i, d2, d3, x.distance);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	// Overlapping smooth pairs: the depth is the minimum over unit n of
	// h(n) = a's support along n plus b's along -n, less n . (pb - pa); the
	// oracle samples 4,000 directions (a Fibonacci sphere) and refines the
	// best by a shrinking pattern search. The query's depth is h at its
	// own normal, so it can be at most the oracle's (and rounding): a
	// larger one is a local minimum that EPA's starts missed. Needles and
	// discs (semi-axes 0.05 to 2) give h several minima.
	double worst_over = 0.0, worst_under = 0.0;
	int deep = 0;
	for (int i = 0; i < 300; ++i) {
		imp_vec3 ea = {o3_range(&r, 0.05, 2.0), o3_range(&r, 0.05, 2.0), o3_range(&r, 0.05, 2.0)};
		imp_vec3 eb = {o3_range(&r, 0.05, 2.0), o3_range(&r, 0.05, 2.0), o3_range(&r, 0.05, 2.0)};
		imp_shape *a, *b;
		assert_int_equal(imp_shape_ellipsoid(ea.x, ea.y, ea.z, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_ellipsoid(eb.x, eb.y, eb.z, 0.0, &b), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 2.0), pb = o3_pose(&r, 0.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(o3_range(&r, 0.0, 1.0), o3_unit(&r)));
		imp_closest3_result x;
		assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
		if (x.distance >= 0.0) {
			imp_shape_destroy(a);
			imp_shape_destroy(b);
			continue;
		}
		double best = INFINITY;
		imp_vec3 bn = {0, 0, 1};
		for (int k = 0; k < 4000; ++k) {
			double z = 1.0 - (2.0 * k + 1.0) / 4000.0, rho = sqrt(1.0 - z * z), t = 2.399963229728653 * k;
			imp_vec3 n = {rho * cos(t), rho * sin(t), z};
			double h = support_gap(a, pa, b, pb, n);
			if (h < best) {
				best = h;
				bn = n;
			}
		}
		best = refine_gap(a, pa, b, pb, bn, best);
		// The search can stall in a curved valley where the query's
		// normal went further (clang's rounding met one, pair 94): the
		// oracle also refines from the query's normal, whose h must be the
		// query's depth.
		double depth = -x.distance, at_normal = support_gap(a, pa, b, pb, x.normal);
		if (!(fabs(at_normal - depth) <= 1e-12))
			fail_msg("overlapping pair %d: depth %.17g, h at its normal %.17g", i, depth, at_normal);
		best = fmin(best, refine_gap(a, pa, b, pb, x.normal, at_normal));
		track(&worst_over, depth - best);
		track(&worst_under, best - depth);
		if (!(depth <= best + 1e-10 && depth >= best - 1e-6))
			fail_msg("overlapping pair %d: depth %.17g, oracle %.17g", i, depth, best);
		++deep;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  smooth overlapping pairs: %d, depth above the sampled minimum by at most %.1e, below by %.1e\n", deep,
	       worst_over, worst_under);
	assert_true(deep > 100);
	// Small iteration limits bound GJK and Newton together (curved cores
	// get 4 times the limit): the answer is an upper bound of the distance
	// or the converged one, never a hang.
	for (int lim = 1; lim <= 6; ++lim) {
		imp_query_options o = imp_default_query_options();
		o.max_iterations = lim;
		imp_shape *a, *b;
		assert_int_equal(imp_shape_ellipsoid(1.0, 0.5, 0.25, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_ellipsoid(0.3, 0.9, 0.6, 0.0, &b), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 1.0), pb = o3_pose(&r, 0.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_make(2.5, 0.3, -0.2));
		imp_closest3_result x, full;
		assert_int_equal(imp_closest3_ex(a, pa, b, pb, NULL, &o, &x), IMP_OK);
		assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &full), IMP_OK);
		assert_true(x.iterations <= 4 * lim);
		assert_true(x.distance >= full.distance - 1e-12);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  smooth pairs (Newton): %ld queries, %.2f iterations each; surfaces to %.1e, gap %.1e, normals %.1e, "
	       "touching %.1e\n",
	       queries, (double)iterations / (double)queries, worst_level, worst_gap, worst_normal, worst_touch);
	assert_true(queries > 10000);
}

/// Separated pairs of a vertex core (box, polytope, capsule) and an
/// ellipsoid, which finish on the vertex core's feature (a face, an edge
/// or a vertex) by Newton's method on the rest: the answer must satisfy
/// the optimality conditions. Each witness on its shape's surface, the
/// witnesses `distance` apart along the normal, the normal against the
/// ellipsoid's outward normal at its witness, and the vertex core's
/// witness a support point of it along the normal.
static void test_vertex_ellipsoid(void **state)
{
	(void)state;
	o3_rng r = {404};
	double worst_level = 0.0, worst_support = 0.0, worst_gap = 0.0, worst_normal = 0.0;
	long iterations = 0, queries = 0, coarse = 0;
	for (int i = 0; i < 20000; ++i) {
		double k = i % 10 == 0 ? 1e-6 : (i % 10 == 1 ? 1e6 : 1.0);
		imp_vec3 e = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		imp_shape *a, *b;
		int kind = o3_int(&r, 3);
		if (kind == 0) {
			assert_int_equal(imp_shape_box3(k * o3_range(&r, 0.05, 1.5), k * o3_range(&r, 0.05, 1.5),
							k * o3_range(&r, 0.05, 1.5), 0.0, &a),
					 IMP_OK);
		} else if (kind == 1) {
			imp_vec3 pts[12];
			for (int j = 0; j < 12; ++j)
				pts[j] = imp_vec3_scale(k * o3_range(&r, 0.3, 1.2), o3_unit(&r));
			assert_int_equal(imp_shape_polytope(pts, 12, 0.0, &a), IMP_OK);
		} else {
			imp_vec3 h = imp_vec3_scale(k * o3_range(&r, 0.1, 1.0), o3_unit(&r));
			assert_int_equal(imp_shape_capsule3(imp_vec3_neg(h), h, k * o3_range(&r, 0.05, 0.5), &a), IMP_OK);
		}
		assert_int_equal(imp_shape_ellipsoid(e.x, e.y, e.z, 0.0, &b), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 5.0 * k), pb = o3_pose(&r, 0.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(k * o3_range(&r, 0.5, 5.0), o3_unit(&r)));
		bool swap = i % 2 == 1; // the ellipsoid as a, too
		imp_closest3_result x;
		closest_either(swap, a, pa, b, pb, &x);
		if (!(x.distance > 1e-6 * k)) {
			imp_shape_destroy(a);
			imp_shape_destroy(b);
			continue;
		}
		// As if unswapped: p on the vertex core, q on the ellipsoid, n from p to q.
		imp_vec3 p = swap ? x.point_b : x.point_a, q = swap ? x.point_a : x.point_b;
		imp_vec3 n = swap ? imp_vec3_neg(x.normal) : x.normal;
		double rad = imp_shape_kind_of(a) == IMP_SHAPE_CAPSULE3 ? imp_shape_radius(a) : 0.0;
		imp_vec3 ne;
		double level = ellipsoid_level(e, pb, q, &ne);
		// p's core point is p less the radius along n; it must be the
		// core's support along n.
		imp_vec3 core_p = imp_vec3_sub(p, imp_vec3_scale(rad, n)), sup;
		assert_int_equal(imp_shape_support3(a, pa, n, &sup), IMP_OK);
		double off_support = fabs(imp_vec3_dot(imp_vec3_sub(sup, p), n)) / k;
		(void)core_p;
		double gap = imp_vec3_length(imp_vec3_sub(imp_vec3_sub(q, p), imp_vec3_scale(x.distance, n))) / k;
		double off_normal = imp_vec3_length(imp_vec3_add(ne, n));
		track(&worst_level, fabs(level));
		track(&worst_support, off_support);
		track(&worst_gap, gap);
		track(&worst_normal, off_normal);
		iterations += x.iterations;
		++queries;
		// Every answer to GJK's own accuracy (its witnesses, hence the
		// normal, only converge linearly); nearly all to Newton's.
		if (!(fabs(level) <= 1e-10 && off_support <= 1e-10 && gap <= 1e-10 && off_normal <= 1e-5))
			fail_msg("pair %d (kind %d, scale %g%s): ellipsoid level %.3g, support off %.3g, gap %.3g, normal off %.3g",
				 i, kind, k, swap ? ", swapped" : "", level, off_support, gap, off_normal);
		coarse += !(fabs(level) <= 1e-12 && off_support <= 1e-12 && gap <= 1e-12 && off_normal <= 1e-9);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  vertex core - ellipsoid: %ld queries, %.2f iterations each; surface %.1e, support %.1e, gap %.1e, "
	       "normal %.1e; %ld answered to GJK's accuracy only\n",
	       queries, (double)iterations / (double)queries, worst_level, worst_support, worst_gap, worst_normal, coarse);
	assert_true(queries > 10000);
	assert_true(coarse * 100 <= queries); // 17 of 14,961 when written
}

/// Poses for a random pair at scale k: a anywhere within 3k, b's centre
/// up to `reach` k from a's in a random direction, turned like a when
/// `aligned`, else at random.
static void pose_pair(o3_rng *r, double k, bool aligned, double reach, imp_pose3 *pa, imp_pose3 *pb)
{
	*pa = o3_pose(r, 3.0 * k);
	*pb = o3_pose(r, 0.0);
	if (aligned)
		pb->q = pa->q;
	pb->p = imp_vec3_add(pa->p, imp_vec3_scale(k * o3_range(r, 0.0, reach), o3_unit(r)));
}

/// Overlapping boxes, whose depth comes from the separating-axis test in
/// closed form: against the oracle's own separating-axis depth over the
/// boxes as polytopes, with the witnesses on the boxes' surfaces, depth
/// apart along the normal, and b moved by the depth touching a. Sizes 0.05
/// to 2 (slabs and sticks), axis-aligned pairs (whose deepest features
/// are faces, where the test leaves the answer to EPA), rounded boxes,
/// swapped pairs, scales 1e-6 and 1e6.
static void test_box_depth(void **state)
{
	(void)state;
	o3_rng r = {505};
	double worst = 0.0, worst_wit = 0.0;
	int deep = 0, by_axes = 0;
	for (int i = 0; i < 20000; ++i) {
		double k = i % 10 == 0 ? 1e-6 : (i % 10 == 1 ? 1e6 : 1.0);
		imp_vec3 ha = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		imp_vec3 hb = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		double ra = i % 4 == 3 ? k * o3_range(&r, 0.0, 0.2) : 0.0, rb = i % 4 == 3 ? k * o3_range(&r, 0.0, 0.2) : 0.0;
		imp_shape *a, *b;
		assert_int_equal(imp_shape_box3(ha.x, ha.y, ha.z, ra, &a), IMP_OK);
		assert_int_equal(imp_shape_box3(hb.x, hb.y, hb.z, rb, &b), IMP_OK);
		imp_pose3 pa, pb;
		pose_pair(&r, k, i % 7 == 0, 2.0, &pa, &pb); // aligned: faces against faces
		o3_poly oa, ob;
		o3_poly_box(&oa, ha);
		o3_poly_box(&ob, hb);
		double sat = o3_sat_depth(&oa, pa, &ob, pb, NULL);
		if (!(sat > 1e-6 * k)) {
			imp_shape_destroy(a);
			imp_shape_destroy(b);
			continue;
		}
		bool swap = i % 2 == 1;
		imp_closest3_result x;
		closest_either(swap, a, pa, b, pb, &x);
		double want = -(sat + ra + rb);
		double err = fabs(x.distance - want) / k;
		track(&worst, err);
		if (!(err <= 1e-12))
			fail_msg("pair %d (scale %g%s): depth %.17g, oracle %.17g", i, k, swap ? ", swapped" : "", x.distance,
				 want);
		// The witnesses: distance apart along the normal, each on its
		// shape's surface (the rounded box's: its core box's point plus
		// the radius along the normal).
		imp_vec3 gap = imp_vec3_sub(imp_vec3_sub(x.point_b, x.point_a), imp_vec3_scale(x.distance, x.normal));
		const imp_pose3 *p1 = swap ? &pb : &pa, *p2 = swap ? &pa : &pb;
		imp_vec3 h1 = swap ? hb : ha, h2 = swap ? ha : hb;
		double r1 = swap ? rb : ra, r2 = swap ? ra : rb;
		imp_vec3 c1 = imp_pose3_apply_inv(*p1, imp_vec3_sub(x.point_a, imp_vec3_scale(r1, x.normal)));
		imp_vec3 c2 = imp_pose3_apply_inv(*p2, imp_vec3_add(x.point_b, imp_vec3_scale(r2, x.normal)));
		double out1 = fmax(fmax(fabs(c1.x) - h1.x, fabs(c1.y) - h1.y), fabs(c1.z) - h1.z);
		double out2 = fmax(fmax(fabs(c2.x) - h2.x, fabs(c2.y) - h2.y), fabs(c2.z) - h2.z);
		double wit = fmax(imp_vec3_length(gap), fmax(fabs(out1), fabs(out2))) / k;
		track(&worst_wit, wit);
		if (!(wit <= 1e-12))
			fail_msg("pair %d (scale %g%s): witnesses off by %.3g (gap), %.3g and %.3g (surfaces)", i, k,
				 swap ? ", swapped" : "", imp_vec3_length(gap) / k, out1 / k, out2 / k);
		if (x.feature_a.kind == IMP_FEATURE_NONE || x.feature_b.kind == IMP_FEATURE_NONE)
			fail_msg("pair %d: no feature (%d, %d)", i, (int)x.feature_a.kind, (int)x.feature_b.kind);
		++deep;
		by_axes += x.epa_iterations == 1; // the closed form (EPA reports its own count)
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  box depths: %d pairs (%d by the axes' closed form), max error %.1e, witnesses %.1e (relative to the "
	       "scene)\n",
	       deep, by_axes, worst, worst_wit);
	assert_true(deep > 5000);
	assert_true(by_axes * 100 >= deep * 99); // 18,396 of 18,474 when written
}

/// Level 1 on two sharp boxes, which the separating-axis test decides:
/// against the oracle's separating-axis depth (overlap when it is not
/// negative) on random pairs, aligned ones included, and on pairs moved to
/// 1e-9 apart and 1e-9 into each other along the normal of the depth.
static void test_box_overlap(void **state)
{
	(void)state;
	o3_rng r = {606};
	int checked = 0, near = 0;
	for (int i = 0; i < 20000; ++i) {
		double k = i % 10 == 0 ? 1e-6 : (i % 10 == 1 ? 1e6 : 1.0);
		imp_vec3 ha = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		imp_vec3 hb = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		imp_shape *a, *b;
		assert_int_equal(imp_shape_box3(ha.x, ha.y, ha.z, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_box3(hb.x, hb.y, hb.z, 0.0, &b), IMP_OK);
		imp_pose3 pa, pb;
		pose_pair(&r, k, i % 7 == 0, 4.0, &pa, &pb);
		o3_poly oa, ob;
		o3_poly_box(&oa, ha);
		o3_poly_box(&ob, hb);
		double sat = o3_sat_depth(&oa, pa, &ob, pb, NULL);
		if (fabs(sat) > 1e-12 * k) {
			bool want = sat > 0.0;
			if (imp_overlap3(a, pa, b, pb, NULL) != want || imp_overlap3(b, pb, a, pa, NULL) != want)
				fail_msg("pair %d (scale %g): overlap %d, oracle depth %.17g", i, k, !want, sat);
			++checked;
		}
		if (sat > 1e-6 * k) {
			// Along the depth's normal: 1e-9 apart, then 1e-9 in.
			imp_closest3_result x;
			assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
			for (int side = 0; side < 2; ++side) {
				imp_pose3 moved = pb;
				double by = -x.distance + (side == 0 ? 1e-9 : -1e-9) * k;
				moved.p = imp_vec3_add(pb.p, imp_vec3_scale(by, x.normal));
				bool want = side == 1;
				if (imp_overlap3(a, pa, b, moved, NULL) != want)
					fail_msg("pair %d (scale %g): moved 1e-9 %s, overlap %d", i, k, side ? "in" : "apart", !want);
			}
			++near;
		}
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  box overlap: %d pairs against the oracle, %d moved to 1e-9 apart and in\n", checked, near);
	assert_true(checked > 15000 && near > 5000);
}

/// A core of one or two points (sphere or capsule) at pose p, scaled by k:
/// its world ends and its shape.
typedef struct seg_core {
	imp_vec3 e0, e1; ///< local ends (e1 = e0 for a sphere)
	double radius;
	bool sphere;
} seg_core;

static seg_core random_seg_core(o3_rng *r)
{
	seg_core c;
	c.sphere = o3_int(r, 4) == 0;
	imp_vec3 mid = o3_int(r, 3) == 0 ? o3_vec(r, -0.5, 0.5) : imp_vec3_make(0, 0, 0);
	imp_vec3 half = imp_vec3_scale(o3_range(r, 0.05, 1.0), o3_unit(r));
	c.e0 = c.sphere ? mid : imp_vec3_sub(mid, half);
	c.e1 = c.sphere ? mid : imp_vec3_add(mid, half);
	c.radius = o3_int(r, 5) == 0 ? 0.0 : o3_range(r, 0.01, 0.6);
	return c;
}

static imp_shape *seg_shape(const seg_core *c, double k)
{
	imp_shape *s;
	if (c->radius == 0.0) {
		// A point or a segment: a polytope of one or two points (its
		// vertex order is the hull's).
		imp_vec3 pts[2] = {imp_vec3_scale(k, c->e0), imp_vec3_scale(k, c->e1)};
		assert_int_equal(imp_shape_polytope(pts, c->sphere ? 1 : 2, 0.0, &s), IMP_OK);
	} else if (c->sphere)
		assert_int_equal(imp_shape_sphere(imp_vec3_scale(k, c->e0), k * c->radius, &s), IMP_OK);
	else
		assert_int_equal(
			imp_shape_capsule3(imp_vec3_scale(k, c->e0), imp_vec3_scale(k, c->e1), k * c->radius, &s),
			IMP_OK);
	return s;
}

/// The expected feature of a core at oracle parameter u along it, or NONE
/// when rounding could make it either of two.
static imp_feature expected_feature(const seg_core *c, double u, bool ambiguous)
{
	imp_feature none = {IMP_FEATURE_NONE, -1};
	if (c->sphere)
		return (imp_feature){IMP_FEATURE_VERTEX, 0};
	if (ambiguous)
		return none;
	if (u <= 0.0)
		return (imp_feature){IMP_FEATURE_VERTEX, 0};
	if (u >= 1.0)
		return (imp_feature){IMP_FEATURE_VERTEX, 1};
	if (u > 1e-9 && u < 1.0 - 1e-9)
		return (imp_feature){IMP_FEATURE_EDGE, 0};
	return none;
}

/// got against want, whose vertex index counts the ends of c (0: e0, 1:
/// e1): the shape's own vertex order is its hull's, read back here.
static void check_feature(imp_feature got, imp_feature want, const imp_shape *shape, const seg_core *c, double k,
			  const char *what, int i)
{
	if (want.kind == IMP_FEATURE_VERTEX && !c->sphere) {
		imp_vec3 v[2];
		assert_int_equal(imp_shape_vertices3(shape, v, 2), 2);
		imp_vec3 end = imp_vec3_scale(k, want.index == 0 ? c->e0 : c->e1);
		want.index = imp_vec3_length(imp_vec3_sub(v[0], end)) <= imp_vec3_length(imp_vec3_sub(v[1], end)) ? 0 : 1;
	}
	if (want.kind != IMP_FEATURE_NONE && (got.kind != want.kind || got.index != want.index))
		fail_msg("pair %d: %s feature %d/%d, want %d/%d", i, what, (int)got.kind, got.index, (int)want.kind,
			 want.index);
}

/// Spheres and capsules (cores of one or two points), which the queries
/// answer in closed form without GJK's set-up: every field of the three
/// levels against the segment oracle (distance, witnesses on the
/// surfaces, normal, features, state), with quaternions off unit length by
/// up to 4e-7; and the same pairs scaled by 2^-230 and 2^220, which leave
/// the closed form's range and take GJK's scaled set-up, must give the
/// same answers scaled.
static void test_segment_cores(void **state)
{
	(void)state;
	o3_rng r = {3107};
	const int n = 30000;
	double worst = 0.0, worst_scaled = 0.0;
	int checked_features = 0, met = 0;
	for (int i = 0; i < n; ++i) {
		seg_core ca = random_seg_core(&r), cb = random_seg_core(&r);
		imp_pose3 pa = o3_pose(&r, 4.0), pb = o3_pose(&r, 0.0);
		pa.q = imp_quat_scale(1.0 + o3_range(&r, -2e-7, 2e-7), pa.q);
		pb.q = imp_quat_scale(1.0 + o3_range(&r, -2e-7, 2e-7), pb.q);
		// Distant, close, touching-close and crossing placements.
		double reach = o3_int(&r, 3) == 0 ? o3_range(&r, 0.0, 0.5) : o3_range(&r, 0.0, 3.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(reach, o3_unit(&r)));
		imp_pose3 na = pa, nb = pb;
		na.q = imp_quat_scale(1.0 / sqrt(pa.q.x * pa.q.x + pa.q.y * pa.q.y + pa.q.z * pa.q.z + pa.q.w * pa.q.w), pa.q);
		nb.q = imp_quat_scale(1.0 / sqrt(pb.q.x * pb.q.x + pb.q.y * pb.q.y + pb.q.z * pb.q.z + pb.q.w * pb.q.w), pb.q);
		int mode = i % 8;
		if (mode == 0) {
			// Cores that meet (to rounding): b's core through a point
			// of a's.
			imp_vec3 x = imp_pose3_apply(na, imp_vec3_add(ca.e0, imp_vec3_scale(o3_uniform(&r), imp_vec3_sub(ca.e1, ca.e0))));
			imp_vec3 y = imp_quat_rotate(nb.q, imp_vec3_add(cb.e0, imp_vec3_scale(o3_uniform(&r), imp_vec3_sub(cb.e1, cb.e0))));
			pb.p = nb.p = imp_vec3_sub(x, y);
		} else if (mode == 1 && !ca.sphere) {
			// Parallel cores: b turned as a, its core along a's.
			pb.q = pa.q;
			nb.q = na.q;
			cb.e1 = imp_vec3_add(cb.e0, imp_vec3_scale(o3_range(&r, 0.1, 2.0), imp_vec3_sub(ca.e1, ca.e0)));
			cb.sphere = false;
		}
		imp_vec3 a0 = imp_pose3_apply(na, ca.e0), a1 = imp_pose3_apply(na, ca.e1);
		imp_vec3 b0 = imp_pose3_apply(nb, cb.e0), b1 = imp_pose3_apply(nb, cb.e1);
		imp_vec3 cp, cq;
		double seg = o3_segment_segment_distance(a0, a1, b0, b1, &cp, &cq);
		// The closed form's worst error here is 2.7e-15 of the scene.
		double sd = seg - ca.radius - cb.radius, scene = 8.0, tol = 2e-15 * scene;
		imp_shape *a = seg_shape(&ca, 1.0), *b = seg_shape(&cb, 1.0);
		met += seg <= 1e-9;
		bool ov = imp_overlap3(a, pa, b, pb, NULL);
		double d = imp_distance3(a, pa, b, pb, NULL);
		imp_closest3_result x;
		assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
		if (fabs(sd) > tol && ov != (sd <= 0.0))
			fail_msg("pair %d: overlap %d, signed distance %.17g", i, ov, sd);
		if (!(fabs(d - fmax(sd, 0.0)) <= tol))
			fail_msg("pair %d: distance %.17g, want %.17g", i, d, fmax(sd, 0.0));
		track(&worst, fabs(d - fmax(sd, 0.0)));
		// Level 2's state: overlapping pairs (cores that meet among them)
		// are not separated.
		imp_query_state st2;
		double d2 = imp_distance3_stats(a, pa, b, pb, NULL, NULL, NULL, &st2);
		imp_query_state want2 = sd > tol ? IMP_STATE_SEPARATED : (sd < -tol ? IMP_STATE_OVERLAPPING : st2);
		if (d2 != d || st2 != want2)
			fail_msg("pair %d: Level 2 state %s (distance %.17g), want %s", i, imp_query_state_string(st2), d2,
				 imp_query_state_string(want2));
		if (seg > 1e-9) {
			// Cores apart (the closed form answers; cores that meet go
			// to EPA, whose depth no oracle here gives).
			if (!(fabs(x.distance - sd) <= tol))
				fail_msg("pair %d: closest %.17g, want %.17g", i, x.distance, sd);
			track(&worst, fabs(x.distance - sd));
			if (!(fabs(imp_vec3_length(x.normal) - 1.0) <= 1e-14))
				fail_msg("pair %d: normal not unit", i);
			double da = o3_point_segment_distance(x.point_a, a0, a1, NULL);
			double db = o3_point_segment_distance(x.point_b, b0, b1, NULL);
			if (!(fabs(da - ca.radius) <= tol && fabs(db - cb.radius) <= tol))
				fail_msg("pair %d: witnesses %.3g and %.3g from the cores, radii %.3g and %.3g", i, da, db,
					 ca.radius, cb.radius);
			imp_vec3 gap = imp_vec3_sub(imp_vec3_sub(x.point_b, x.point_a), imp_vec3_scale(x.distance, x.normal));
			if (!(imp_vec3_length(gap) <= 10 * tol))
				fail_msg("pair %d: witnesses off distance * normal by %g", i, imp_vec3_length(gap));
			imp_query_state want = sd > tol ? IMP_STATE_SEPARATED : (sd < -tol ? IMP_STATE_OVERLAPPING : x.state);
			if (x.state != want)
				fail_msg("pair %d: state %s, want %s", i, imp_query_state_string(x.state),
					 imp_query_state_string(want));
			// Features, where the nearest pair is unique (segments
			// not parallel) and not within rounding of an end.
			imp_vec3 ua = imp_vec3_sub(a1, a0), ub = imp_vec3_sub(b1, b0);
			double la = imp_vec3_dot(ua, ua), lb = imp_vec3_dot(ub, ub);
			bool parallel = la > 0.0 && lb > 0.0 &&
					imp_vec3_length(imp_vec3_cross(ua, ub)) <= 1e-6 * sqrt(la * lb);
			double sa = la > 0.0 ? imp_vec3_dot(imp_vec3_sub(cp, a0), ua) / la : 0.0;
			double sb = lb > 0.0 ? imp_vec3_dot(imp_vec3_sub(cq, b0), ub) / lb : 0.0;
			imp_feature fa = expected_feature(&ca, sa, parallel), fb = expected_feature(&cb, sb, parallel);
			check_feature(x.feature_a, fa, a, &ca, 1.0, "a's", i);
			check_feature(x.feature_b, fb, b, &cb, 1.0, "b's", i);
			checked_features += fa.kind != IMP_FEATURE_NONE && fb.kind != IMP_FEATURE_NONE;
			// The same pair far from unit size: GJK's scaled set-up.
			for (int k = 0; k < 2; ++k) {
				double f = ldexp(1.0, k == 0 ? -230 : 220);
				imp_shape *sa = seg_shape(&ca, f), *sb = seg_shape(&cb, f);
				imp_pose3 qa = pa, qb = pb;
				qa.p = imp_vec3_scale(f, pa.p);
				qb.p = imp_vec3_scale(f, pb.p);
				imp_closest3_result y;
				assert_int_equal(imp_closest3(sa, qa, sb, qb, NULL, &y), IMP_OK);
				double dy = imp_distance3(sa, qa, sb, qb, NULL) / f;
				if (!(fabs(y.distance / f - x.distance) <= tol && fabs(dy - d) <= tol))
					fail_msg("pair %d scaled by 2^%d: closest %.17g, distance %.17g, want %.17g", i,
						 k == 0 ? -230 : 220, y.distance / f, dy, x.distance);
				track(&worst_scaled, fabs(y.distance / f - x.distance));
				if (fabs(sd) > tol && y.state != x.state)
					fail_msg("pair %d scaled: state %s, want %s", i, imp_query_state_string(y.state),
						 imp_query_state_string(x.state));
				check_feature(y.feature_a, fa, sa, &ca, f, "a's scaled", i);
				check_feature(y.feature_b, fb, sb, &cb, f, "b's scaled", i);
				imp_shape_destroy(sa);
				imp_shape_destroy(sb);
			}
		}
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  spheres and capsules: %d pairs (%d with cores that meet), max error %.1e, scaled copies %.1e "
	       "(of the scene), features checked on %d\n",
	       n, met, worst, worst_scaled, checked_features);
}

/// A box and a sphere, answered in closed form (the sphere's centre
/// against the box): the signed distance against the analytic one, the
/// centre outside (o3_point_box_distance) or inside (the nearest face), in
/// both orders, the witnesses distance apart along the normal.
static void test_box_sphere(void **state)
{
	(void)state;
	o3_rng r = {707};
	double worst = 0.0;
	for (int i = 0; i < 50000; ++i) {
		double k = i % 10 == 0 ? 1e-6 : (i % 10 == 1 ? 1e6 : 1.0);
		imp_vec3 h = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		double rb = k * o3_range(&r, 0.01, 1.0), ra = i % 3 == 0 ? k * o3_range(&r, 0.0, 0.3) : 0.0;
		imp_shape *a, *b;
		assert_int_equal(imp_shape_box3(h.x, h.y, h.z, ra, &a), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rb, &b), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 3.0 * k), pb = o3_pose(&r, 0.0);
		// The centre in the box's frame: inside, on a face, or outside.
		imp_vec3 q = {o3_range(&r, -2.5, 2.5) * h.x, o3_range(&r, -2.5, 2.5) * h.y, o3_range(&r, -2.5, 2.5) * h.z};
		if (i % 11 == 0)
			q.y = h.y; // on a face
		pb.p = imp_pose3_apply(pa, q);
		q = imp_pose3_apply_inv(pa, pb.p); // as the library sees it
		double out = o3_point_box_distance(q, h, NULL);
		double in = fmin(fmin(h.x - fabs(q.x), h.y - fabs(q.y)), h.z - fabs(q.z));
		double want = (out > 0.0 ? out : -in) - ra - rb;
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, a, pa, b, pb, &x);
			double err = fabs(x.distance - want) / k;
			imp_vec3 gap = imp_vec3_sub(imp_vec3_sub(x.point_b, x.point_a), imp_vec3_scale(x.distance, x.normal));
			double off = imp_vec3_length(gap) / k;
			track(&worst, fmax(err, off));
			if (!(err <= 1e-13 && off <= 1e-13 && fabs(imp_vec3_length(x.normal) - 1.0) <= 1e-14))
				fail_msg("pair %d (scale %g%s): distance %.17g, want %.17g; witnesses off by %.3g", i, k,
					 swap ? ", swapped" : "", x.distance, want, off);
			if (x.feature_a.kind == IMP_FEATURE_NONE || x.feature_b.kind == IMP_FEATURE_NONE)
				fail_msg("pair %d: no feature", i);
			assert_int_equal(x.iterations, 0); // the closed form, not GJK
			double d2 = swap ? imp_distance3(b, pb, a, pa, NULL) : imp_distance3(a, pa, b, pb, NULL);
			if (!(fabs(d2 - fmax(want, 0.0)) <= 1e-13 * k))
				fail_msg("pair %d: Level 2 %.17g, want %.17g", i, d2, fmax(want, 0.0));
		}
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  box-sphere: 50000 pairs, both orders, max error %.1e (relative to the scene)\n", worst);
}

/// A box and a capsule apart, answered in closed form (the core segment
/// against the box, piece by piece): against the oracle's brute-force
/// feature distance between the box and the segment, in both orders,
/// with segments parallel to a face and along an axis among them.
/// A box thinner than rounding crossed by a segment: closest answers the
/// penetration in both orders (fuzz finding 76: the box-segment closed
/// form found them 9.5e-17 apart, touching, in one order and 1.9 deep in
/// the other, while overlap said overlapping).
static void test_thin_box_segment(void **state)
{
	(void)state;
	imp_vec3 v[2] = {{-3.6910062198192498e-29, 0, -2.75}, {4.578125, 219.25, 2.9639941743001974e-81}};
	imp_shape *box, *seg;
	assert_int_equal(imp_shape_box3(52.75, 1.2712948098750343e-16, 146.5, 0, &box), IMP_OK);
	assert_int_equal(imp_shape_polytope(v, 2, 0, &seg), IMP_OK);
	imp_pose3 pbox = {{-15.6875, -15.6875, 0}, {0, 0, 0, 1}};
	imp_pose3 pseg = {{-15.6875, -15.71875, 4.125}, {-0.091795823270317475, 0.92560788464236787, 0.3671832930812699, 0}};
	imp_closest3_result r1, r2;
	assert_int_equal(imp_closest3(box, pbox, seg, pseg, NULL, &r1), IMP_OK);
	assert_int_equal(imp_closest3(seg, pseg, box, pbox, NULL, &r2), IMP_OK);
	assert_true(imp_overlap3(box, pbox, seg, pseg, NULL));
	assert_true(r1.distance < -1.0 && fabs(r1.distance - r2.distance) <= 1e-9 * 300);
	assert_int_equal(r1.state, IMP_STATE_OVERLAPPING);
	imp_shape_destroy(box);
	imp_shape_destroy(seg);
}

static void test_box_capsule(void **state)
{
	(void)state;
	o3_rng r = {808};
	double worst = 0.0;
	int apart = 0;
	for (int i = 0; i < 30000; ++i) {
		double k = i % 10 == 0 ? 1e-6 : (i % 10 == 1 ? 1e6 : 1.0);
		imp_vec3 h = {k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0), k * o3_range(&r, 0.05, 2.0)};
		imp_vec3 e = imp_vec3_scale(k * o3_range(&r, 0.05, 2.0), o3_unit(&r));
		if (i % 5 == 0)
			e = imp_vec3_make(0.0, 0.0, e.z); // along the box's axis, once turned with it
		double rb = k * o3_range(&r, 0.01, 0.5);
		imp_shape *a, *b;
		assert_int_equal(imp_shape_box3(h.x, h.y, h.z, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_capsule3(imp_vec3_neg(e), e, rb, &b), IMP_OK);
		imp_pose3 pa, pb;
		pose_pair(&r, k, i % 5 == 0, 5.0, &pa, &pb);
		o3_poly ob, os;
		o3_poly_box(&ob, h);
		imp_vec3 ends[2] = {imp_vec3_neg(e), e};
		o3_poly_make(&os, ends, 2);
		double core = o3_feature_distance(&ob, pa, &os, pb, NULL, NULL);
		if (!(o3_sat_depth(&ob, pa, &os, pb, NULL) < 0.0) || !(core > 1e-9 * k)) {
			imp_shape_destroy(a);
			imp_shape_destroy(b);
			continue; // the cores meet: GJK and EPA answer
		}
		double want = core - rb;
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, a, pa, b, pb, &x);
			imp_vec3 gap = imp_vec3_sub(imp_vec3_sub(x.point_b, x.point_a), imp_vec3_scale(x.distance, x.normal));
			double err = fmax(fabs(x.distance - want), imp_vec3_length(gap)) / k;
			track(&worst, err);
			if (!(err <= 1e-13))
				fail_msg("pair %d (scale %g%s): distance %.17g, want %.17g, witnesses off by %.3g", i, k,
					 swap ? ", swapped" : "", x.distance, want, imp_vec3_length(gap) / k);
			assert_int_equal(x.iterations, 0); // the closed form, not GJK
			if (x.feature_a.kind == IMP_FEATURE_NONE || x.feature_b.kind == IMP_FEATURE_NONE)
				fail_msg("pair %d: no feature", i);
		}
		++apart;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	printf("  box-capsule: %d pairs apart, both orders, max error %.1e (relative to the scene)\n", apart, worst);
	assert_true(apart > 10000);
}

static imp_vec3 ellipsoid_support(const void *user, imp_vec3 d)
{
	const imp_vec3 *e = user;
	imp_vec3 u = {e->x * d.x, e->y * d.y, e->z * d.z};
	double l = imp_vec3_length(u);
	return imp_vec3_make(e->x * u.x / l, e->y * u.y / l, e->z * u.z / l);
}

/// Curved pairs without an analytic answer: the same distance with
/// Nesterov on and off, from a user shape with the same support, and with
/// a and b swapped; overlapping pairs give a depth whose witnesses are
/// depth apart along the normal.
static void test_curved_consistency(void **state)
{
	(void)state;
	o3_rng r = {202};
	imp_query_options plain = imp_default_query_options(), nest = plain;
	plain.acceleration = IMP_ACCELERATION_NONE;
	nest.acceleration = IMP_ACCELERATION_NESTEROV;
	double worst = 0.0, worst_depth = 0.0;
	long kinked_over = 0, depths = 0;
	const int n = 20000;
	for (int i = 0; i < n; ++i) {
		imp_vec3 e = {o3_range(&r, 0.2, 1.2), o3_range(&r, 0.2, 1.2), o3_range(&r, 0.2, 1.2)};
		imp_shape *a, *b, *u, *c;
		assert_int_equal(imp_shape_ellipsoid(e.x, e.y, e.z, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_user3(ellipsoid_support, &e, 0.0, &u), IMP_OK);
		int kind = o3_int(&r, 3);
		if (kind == 0)
			assert_int_equal(imp_shape_ellipsoid(o3_range(&r, 0.2, 1.2), o3_range(&r, 0.2, 1.2),
							 o3_range(&r, 0.2, 1.2), 0.0, &b),
					 IMP_OK);
		else if (kind == 1)
			assert_int_equal(imp_shape_cone(o3_range(&r, 0.2, 1.0), o3_range(&r, 0.2, 1.0), 0.05, &b), IMP_OK);
		else
			assert_int_equal(imp_shape_box3(o3_range(&r, 0.2, 1.0), o3_range(&r, 0.2, 1.0),
							o3_range(&r, 0.2, 1.0), 0.0, &b),
					 IMP_OK);
		imp_pose3 pa = o3_pose(&r, 5.0), pb = o3_pose(&r, 0.0);
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(o3_range(&r, 0.0, 3.0), o3_unit(&r)));
		double d0 = imp_distance3_ex(a, pa, b, pb, NULL, &plain);
		double d1 = imp_distance3_ex(a, pa, b, pb, NULL, &nest);
		double d2 = imp_distance3(u, pa, b, pb, NULL);
		double d3 = imp_distance3(b, pb, a, pa, NULL);
		double m = fmax(fmax(fabs(d1 - d0), fabs(d2 - d0)), fabs(d3 - d0));
		if (!(m <= 1e-9)) {
			int i0, i1;
			imp_query_state s0, s1;
			imp_distance3_stats(a, pa, b, pb, NULL, &plain, &i0, &s0);
			imp_distance3_stats(a, pa, b, pb, NULL, &nest, &i1, &s1);
			fail_msg("curved pair %d (kind %d): %.17g %.17g %.17g %.17g (plain %d iterations, %s; Nesterov %d, %s)",
				 i, kind, d0, d1, d2, d3, i0, imp_query_state_string(s0), i1, imp_query_state_string(s1));
		}
		track(&worst, m);
		imp_closest3_result x, y;
		assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
		assert_int_equal(imp_closest3(b, pb, a, pa, NULL, &y), IMP_OK);
		if (x.state == IMP_STATE_ITERATION_LIMIT || x.state == IMP_STATE_DEGENERATE)
			fail_msg("curved pair %d (kind %d): closest ended %s after %d GJK and %d EPA iterations, distance %g", i,
				 kind, imp_query_state_string(x.state), x.iterations, x.epa_iterations, x.distance);
		if (x.distance < 0.0) {
			// A depth: moving b by it along the normal makes them touch.
			imp_pose3 moved = pb;
			moved.p = imp_vec3_add(pb.p, imp_vec3_scale(-x.distance, x.normal));
			double after = imp_distance3(a, pa, b, moved, NULL);
			imp_closest3_result z;
			assert_int_equal(imp_closest3(a, pa, b, moved, NULL, &z), IMP_OK);
			// Smooth pairs to 1e-7; where h is kinked (a box or a cone's
			// rim against a curved core) the descent may stop up to
			// 2e-3 of the depth short of the minimum (counted below; a
			// known weakness, see docs/narrow3d.md).
			double err = fmax(fabs(z.distance), fabs(x.distance - y.distance));
			kinked_over += err > 1e-7;
			double tol = kind == 0 ? 1e-7 : 2e-3 * fabs(x.distance);
			if (!(after <= tol && err <= tol))
				fail_msg("curved pair %d (kind %d): depth %.17g (swapped %.17g), after the move %.3g, "
					 "%d and %d EPA iterations",
					 i, kind, x.distance, y.distance, z.distance, x.epa_iterations, y.epa_iterations);
			track(&worst_depth, err);
			++depths;
		}
		c = NULL;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
		imp_shape_destroy(u);
		imp_shape_destroy(c);
	}
	printf("  curved, %d pairs: max difference %.1e (distance), %.1e (depth, after the move); %ld of %ld depths "
	       "off by more than 1e-7\n",
	       n, worst, worst_depth, kinked_over, depths);
}

/// 2D polygons extruded into prisms (z in [-1, 1]) at poses turned about z
/// give the 2D library's distance.
static void test_lift2d(void **state)
{
	(void)state;
	o3_rng r = {303};
	double worst = 0.0;
	for (int i = 0; i < 20000; ++i) {
		imp_vec2 p2[2][10];
		imp_vec3 p3[2][20];
		int n[2];
		imp_shape *s2[2], *s3[2];
		for (int k = 0; k < 2; ++k) {
			n[k] = 3 + o3_int(&r, 8);
			for (int j = 0; j < n[k]; ++j) {
				p2[k][j] = imp_vec2_make(o3_range(&r, -1, 1), o3_range(&r, -1, 1));
				p3[k][2 * j] = imp_vec3_make(p2[k][j].x, p2[k][j].y, -1.0);
				p3[k][2 * j + 1] = imp_vec3_make(p2[k][j].x, p2[k][j].y, 1.0);
			}
			assert_int_equal(imp_shape_polygon(p2[k], n[k], 0.0, &s2[k]), IMP_OK);
			assert_int_equal(imp_shape_polytope(p3[k], 2 * n[k], 0.0, &s3[k]), IMP_OK);
		}
		double x[2] = {o3_range(&r, -3, 3), o3_range(&r, -3, 3)}, y[2] = {o3_range(&r, -3, 3), o3_range(&r, -3, 3)};
		double t[2] = {o3_range(&r, -3.2, 3.2), o3_range(&r, -3.2, 3.2)};
		imp_pose2 q2[2];
		imp_pose3 q3[2];
		for (int k = 0; k < 2; ++k) {
			q2[k] = imp_pose2_make(x[k], y[k], t[k]);
			q3[k] = imp_pose3_make(imp_vec3_make(x[k], y[k], 0.0),
					       imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), t[k]));
		}
		double d2 = imp_distance2(s2[0], q2[0], s2[1], q2[1], NULL);
		double d3 = imp_distance3(s3[0], q3[0], s3[1], q3[1], NULL);
		if (!(fabs(d2 - d3) <= 1e-12 * 10))
			fail_msg("lifted pair %d: 2D %.17g, 3D %.17g", i, d2, d3);
		track(&worst, fabs(d2 - d3));
		imp_closest2_result c2;
		imp_closest3_result c3;
		assert_int_equal(imp_closest2(s2[0], q2[0], s2[1], q2[1], NULL, &c2), IMP_OK);
		assert_int_equal(imp_closest3(s3[0], q3[0], s3[1], q3[1], NULL, &c3), IMP_OK);
		// Overlapping prisms of height 2: the depth is the 2D one, or 2.
		double want = c2.distance < 0.0 ? fmax(c2.distance, -2.0) : c2.distance;
		if (!(fabs(c3.distance - want) <= 1e-10))
			fail_msg("lifted pair %d: closest 2D %.17g, 3D %.17g", i, c2.distance, c3.distance);
		for (int k = 0; k < 2; ++k) {
			imp_shape_destroy(s2[k]);
			imp_shape_destroy(s3[k]);
		}
	}
	printf("  2D lift: 20000 pairs, max |3D - 2D| %.1e\n", worst);
}

/// Touching faces, parallel edges, scales from 1e-6 to 1e6, a 10,000-point
/// hull.
static void test_degenerate(void **state)
{
	(void)state;
	imp_shape *c1, *c2;
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &c1), IMP_OK);
	assert_int_equal(imp_shape_box3(0.5, 0.5, 0.5, 0, &c2), IMP_OK);
	imp_pose3 id = imp_pose3_identity();
	// Face on face, exactly touching, sliding along the face.
	for (int k = 0; k <= 20; ++k) {
		imp_pose3 p = {{1.5, -1.4 + 0.14 * k, 0.3}, imp_quat_identity()};
		assert_true(imp_overlap3(c1, id, c2, p, NULL));
		assert_true(imp_distance3(c1, id, c2, p, NULL) == 0.0);
		imp_closest3_result r;
		assert_int_equal(imp_closest3(c1, id, c2, p, NULL, &r), IMP_OK);
		assert_true(fabs(r.distance) <= 1e-15);
		assert_true(r.state == IMP_STATE_TOUCHING);
		if (!(fabs(fabs(r.normal.x) - 1.0) <= 1e-12))
			fail_msg("touching faces %d: normal %g %g %g", k, r.normal.x, r.normal.y, r.normal.z);
		// 1e-9 apart: separated, the face normal.
		p.p.x += 1e-9;
		assert_false(imp_overlap3(c1, id, c2, p, NULL));
		assert_int_equal(imp_closest3(c1, id, c2, p, NULL, &r), IMP_OK);
		assert_true(fabs(r.distance - 1e-9) <= 1e-15);
		assert_true(fabs(r.normal.x - 1.0) <= 1e-12);
		assert_int_equal(r.feature_a.kind, IMP_FEATURE_FACE);
	}
	// Parallel edges: b turned 45 degrees about z and x... an edge of each
	// along z, 0.1 apart.
	imp_quat q45 = imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), 0.7853981633974483);
	imp_pose3 p = {{1.0 + 0.5 * sqrt(2.0) + 0.1, 1.0, 0.0}, q45};
	imp_closest3_result r;
	assert_int_equal(imp_closest3(c1, id, c2, p, NULL, &r), IMP_OK);
	assert_true(fabs(r.distance - 0.1) <= 1e-14);
	// Scales: the same random pairs at 1e-6 .. 1e6 give the same answers,
	// scaled.
	o3_rng rng = {404};
	for (int i = 0; i < 2000; ++i) {
		imp_vec3 pts[2][8];
		for (int k = 0; k < 2; ++k)
			for (int j = 0; j < 8; ++j)
				pts[k][j] = o3_vec(&rng, -1, 1);
		imp_pose3 pa = o3_pose(&rng, 2.0), pb = o3_pose(&rng, 2.0);
		double base = NAN;
		for (int e = -6; e <= 6; e += 3) {
			double s = pow(10.0, e);
			imp_vec3 q[2][8];
			for (int k = 0; k < 2; ++k)
				for (int j = 0; j < 8; ++j)
					q[k][j] = imp_vec3_scale(s, pts[k][j]);
			imp_shape *a, *b;
			assert_int_equal(imp_shape_polytope(q[0], 8, 0.0, &a), IMP_OK);
			assert_int_equal(imp_shape_polytope(q[1], 8, 0.0, &b), IMP_OK);
			imp_pose3 sa = pa, sb = pb;
			sa.p = imp_vec3_scale(s, pa.p);
			sb.p = imp_vec3_scale(s, pb.p);
			imp_closest3_result x;
			assert_int_equal(imp_closest3(a, sa, b, sb, NULL, &x), IMP_OK);
			double d = x.distance / s;
			if (isnan(base))
				base = d;
			else if (!(fabs(d - base) <= 1e-12))
				fail_msg("scale pair %d at 1e%d: %.17g against %.17g", i, e, d, base);
			imp_shape_destroy(a);
			imp_shape_destroy(b);
		}
	}
	// A 10,000-point hull against spheres: the witness on the hull and a
	// supporting plane through it (no vertex beyond) certify the answer.
	enum { N = 10000 };
	imp_vec3 *pts = malloc(N * sizeof *pts);
	assert_non_null(pts);
	for (int i = 0; i < N; ++i)
		pts[i] = imp_vec3_scale(o3_range(&rng, 0.9, 1.0), o3_unit(&rng));
	imp_shape *big, *ball;
	assert_int_equal(imp_shape_polytope(pts, N, 0.0, &big), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.25, &ball), IMP_OK);
	int nv = imp_shape_vertex_count(big);
	imp_vec3 *v = malloc((size_t)nv * sizeof *v);
	assert_non_null(v);
	imp_shape_vertices3(big, v, nv);
	for (int i = 0; i < 200; ++i) {
		imp_pose3 pb = {imp_vec3_scale(o3_range(&rng, 1.3, 3.0), o3_unit(&rng)), imp_quat_identity()};
		imp_closest3_result x;
		assert_int_equal(imp_closest3(big, id, ball, pb, NULL, &x), IMP_OK);
		double top = imp_vec3_dot(x.normal, x.point_a);
		for (int j = 0; j < nv; ++j)
			if (!(imp_vec3_dot(x.normal, v[j]) <= top + 1e-12))
				fail_msg("10k hull, query %d: vertex %d beyond the supporting plane", i, j);
		double centre = imp_vec3_length(imp_vec3_sub(pb.p, x.point_b));
		assert_true(fabs(centre - 0.25) <= 1e-12);
	}
	free(v);
	free(pts);
	imp_shape_destroy(big);
	imp_shape_destroy(ball);
	imp_shape_destroy(c1);
	imp_shape_destroy(c2);
}

/// normal . (point_b - point_a) = distance, to 1e-8 of the scene's size.
static void check_identity3(const imp_closest3_result *r, double scene, const char *what)
{
	if (!(isfinite(r->distance) && isfinite(r->point_a.x) && isfinite(r->point_a.y) && isfinite(r->point_a.z) &&
	      isfinite(r->point_b.x) && isfinite(r->point_b.y) && isfinite(r->point_b.z) && isfinite(r->normal.x) &&
	      isfinite(r->normal.y) && isfinite(r->normal.z)))
		fail_msg("%s: not finite: distance %g, a (%g %g %g), b (%g %g %g), normal (%g %g %g)", what, r->distance,
			 r->point_a.x, r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z, r->normal.x,
			 r->normal.y, r->normal.z);
	if (!(fabs(imp_vec3_length(r->normal) - 1.0) <= 1e-12))
		fail_msg("%s: normal not unit", what);
	double id = imp_vec3_dot(r->normal, imp_vec3_sub(r->point_b, r->point_a));
	if (!(fabs(id - r->distance) <= 1e-8 * scene))
		fail_msg("%s: normal . (b - a) = %.17g, distance %.17g", what, id, r->distance);
}

/// Issue 20, defect 6 (finding-capsule3-polytope-toi-nan): a capsule whose
/// core is a segment 1e-284 long, and a one-point polytope on that core,
/// answered IMP_OK with NaN witnesses and normal. The cores meet, so the
/// distance is minus the capsule's radius, exactly.
static void test_tiny_core_capsule(void **state)
{
	(void)state;
	const double lengths[] = {1.3449746190494519e-284, 1e-300, 4.9406564584124654e-324, 1e-200, 1e-100, 1e-20};
	const double radii[] = {1.0, 1e-3, 1e3};
	for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; ++i) {
		for (size_t j = 0; j < sizeof radii / sizeof radii[0]; ++j) {
			for (int k = 0; k < 3; ++k) {
				imp_shape *cap, *pt;
				double len = lengths[i], rad = radii[j];
				imp_vec3 p0 = {len, 0, 0}, p1 = {0, 0, 0};
				// The point at the segment's end, its middle, its other end.
				imp_vec3 q = {0.5 * k * len, 0, 0};
				assert_int_equal(imp_shape_capsule3(p0, p1, rad, &cap), IMP_OK);
				assert_int_equal(imp_shape_polytope(&q, 1, 0.0, &pt), IMP_OK);
				imp_pose3 id = imp_pose3_identity();
				for (int swap = 0; swap < 2; ++swap) {
					imp_closest3_result r;
					char what[96];
					snprintf(what, sizeof what, "core %g, radius %g, point %d, swap %d", len, rad, k, swap);
					assert_int_equal(swap ? imp_closest3(pt, id, cap, id, NULL, &r)
							      : imp_closest3(cap, id, pt, id, NULL, &r),
							 IMP_OK);
					check_identity3(&r, rad, what);
					if (!(fabs(r.distance + rad) <= 1e-12 * rad))
						fail_msg("%s: distance %.17g", what, r.distance);
					assert_int_equal(r.state, IMP_STATE_OVERLAPPING);
				}
				imp_shape_destroy(cap);
				imp_shape_destroy(pt);
			}
		}
	}
}

/// Issue 20, defect 6 (finding-tiny-points-witness): two points 1.3e-284
/// apart (one a polytope of three equal points) answered distance -0 with
/// normal . (b - a) = -1.3e-284. The distance is their separation.
static void test_tiny_points(void **state)
{
	(void)state;
	const double sizes[] = {1.3449746190494519e-284, 1e-300, 1e-250, 1e-200, 1e-150};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
		for (int axis = 0; axis < 3; ++axis) {
			double s = sizes[i];
			imp_vec3 p = {axis == 0 ? s : 0.0, axis == 1 ? s : 0.0, axis == 2 ? s : 0.0};
			imp_vec3 three[3] = {p, p, p}, o = {0, 0, 0};
			imp_shape *a, *b;
			assert_int_equal(imp_shape_polytope(three, 3, 0.0, &a), IMP_OK);
			assert_int_equal(imp_shape_polytope(&o, 1, 0.0, &b), IMP_OK);
			imp_pose3 id = imp_pose3_identity();
			for (int swap = 0; swap < 2; ++swap) {
				imp_closest3_result r;
				char what[96];
				snprintf(what, sizeof what, "points %g apart along %d, swap %d", s, axis, swap);
				assert_int_equal(swap ? imp_closest3(b, id, a, id, NULL, &r) : imp_closest3(a, id, b, id, NULL, &r),
						 IMP_OK);
				check_identity3(&r, s, what);
				if (!(fabs(r.distance - s) <= 1e-12 * s))
					fail_msg("%s: distance %.17g", what, r.distance);
				assert_int_equal(r.state, IMP_STATE_SEPARATED);
				double d = imp_distance3(a, id, b, id, NULL);
				if (!(fabs(d - s) <= 1e-12 * s))
					fail_msg("%s: imp_distance3 %.17g", what, d);
			}
			imp_shape_destroy(a);
			imp_shape_destroy(b);
		}
	}
}

/// Issue 20, defect 16 (finding-cylinders-epa-limit): a small cylinder
/// inside a large one, EPA limited to one iteration, answered
/// IMP_STATE_OVERLAPPING with depth 252.9 where the depth is 214.0625. An
/// answer is either IMP_STATE_ITERATION_LIMIT or right. The depth is
/// analytic: b's centre is on a's axis, b's axis is not vertical, so the
/// least push out is sideways, a's radius plus b's radius. The search
/// along the rim's kink (try_kink_circle) finds it from early starts too,
/// so the limit's path is also taken by a ball at the centre of an ellipsoid
/// (depth: its least semi-axis plus the ball's radius, to 1e-7: the ball is
/// 0.012 off the centre along the longest), which has no kink.
// Level 1's bounding-sphere exit: shapes whose bounding spheres only just
// touch may themselves touch there. Two octahedra (bound radius 1, the
// reach of their vertices) vertex to vertex at exactly 2 along each axis
// touch and overlap; one ulp farther they do not; and a turn of b (any
// rotation keeps its bound) never makes a pair beyond 2 overlap.
static void test_bounding_sphere_exit(void **state)
{
	(void)state;
	const imp_vec3 oct[] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
	imp_shape *a = NULL;
	assert_int_equal(imp_shape_polytope(oct, 6, 0.0, &a), IMP_OK);
	imp_pose3 o = imp_pose3_identity();
	for (int axis = 0; axis < 3; axis++) {
		for (int sign = -1; sign <= 1; sign += 2) {
			imp_vec3 at = {0, 0, 0}, past = {0, 0, 0};
			double *c = axis == 0 ? &at.x : axis == 1 ? &at.y : &at.z;
			double *d = axis == 0 ? &past.x : axis == 1 ? &past.y : &past.z;
			*c = 2.0 * sign;
			*d = nextafter(2.0, 3.0) * sign;
			imp_pose3 touch = {at, {0, 0, 0, 1}}, apart = {past, {0, 0, 0, 1}};
			assert_true(imp_overlap3(a, o, a, touch, NULL));
			assert_false(imp_overlap3(a, o, a, apart, NULL));
			assert_true(imp_distance3(a, o, a, touch, NULL) == 0.0);
		}
	}
	// Random turns of b at distances just past the sum of the bounds: never
	// overlapping; just inside it: the answer of GJK's own distance.
	uint64_t seed = 0x5ea;
	for (int k = 0; k < 2000; k++) {
		double u[7];
		for (int i = 0; i < 7; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			u[i] = (double)(seed >> 11) * 0x1p-53 * 2.0 - 1.0;
		}
		double qn = sqrt(u[3] * u[3] + u[4] * u[4] + u[5] * u[5] + u[6] * u[6]);
		double dn = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
		if (qn < 1e-3 || dn < 1e-3)
			continue;
		double r = k % 2 == 0 ? 2.0 * (1.0 + 1e-12) : 2.0 * (1.0 - 1e-3);
		imp_pose3 pb = {{r * u[0] / dn, r * u[1] / dn, r * u[2] / dn},
				{u[3] / qn, u[4] / qn, u[5] / qn, u[6] / qn}};
		bool hit = imp_overlap3(a, o, a, pb, NULL);
		if (k % 2 == 0)
			assert_false(hit);
		else
			assert_true(hit == (imp_distance3(a, o, a, pb, NULL) == 0.0));
	}
	imp_shape_destroy(a);
}

static void test_epa_limit_state(void **state)
{
	(void)state;
	imp_shape *a[2], *b[2];
	assert_int_equal(imp_shape_cylinder(420.5, 210.75, 0.0, &a[0]), IMP_OK);
	assert_int_equal(imp_shape_cylinder(4.125, 3.3125, 0.0, &b[0]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(210.75, 260.25, 420.5, 0.0, &a[1]), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 3.3125, &b[1]), IMP_OK);
	imp_pose3 pa = imp_pose3_identity();
	imp_pose3 pb = {{0, 0, 0.01171875},
			{0.50159021808221671, 0.51966554125635067, 0.45640191014688192, 0.51966554125635067}};
	const double depth = 210.75 + 3.3125;
	int limited[2] = {0, 0};
	for (int pair = 0; pair < 2; ++pair) {
		imp_closest3_result r;
		assert_int_equal(imp_closest3(a[pair], pa, b[pair], pb, NULL, &r), IMP_OK);
		assert_int_equal(r.state, IMP_STATE_OVERLAPPING);
		assert_true(fabs(r.distance + depth) <= 1e-6 * depth);
		for (int it = 1; it <= 64; ++it) {
			for (int pen = 0; pen < 2; ++pen) {
				imp_query_options o = imp_default_query_options();
				o.epa_max_iterations = it;
				o.tolerance = pen ? 3.7252902984e-09 : o.tolerance;
				o.penetration = pen ? IMP_PENETRATION_EPA : o.penetration;
				assert_int_equal(imp_closest3_ex(a[pair], pa, b[pair], pb, NULL, &o, &r), IMP_OK);
				char what[64];
				snprintf(what, sizeof what, "pair %d, epa_max_iterations %d, mode %d", pair, it, pen);
				check_identity3(&r, 2 * 420.5, what);
				if (r.state == IMP_STATE_ITERATION_LIMIT) {
					++limited[pair];
					// The best found: no shallower than the true depth.
					if (!(r.distance <= -depth * (1 - 1e-9)))
						fail_msg("%s: limited answer %.17g shallower than %.17g", what, r.distance,
							 -depth);
				} else if (!(fabs(r.distance + depth) <= 1e-6 * depth)) {
					fail_msg("%s: state %s, distance %.17g, not %.17g", what,
						 imp_query_state_string(r.state), r.distance, -depth);
				}
			}
		}
		imp_shape_destroy(a[pair]);
		imp_shape_destroy(b[pair]);
	}
	printf("  answers at the iteration limit: %d (cylinders), %d (ball in an ellipsoid) of 128 each\n", limited[0],
	       limited[1]);
	assert_true(limited[1] > 0); // one iteration cannot find the ellipsoid's
}

/// The distance in the (rho, z) half-plane from (x, y) to the segment p q.
static double meridian_segment_distance(double x, double y, double px, double py, double qx, double qy)
{
	double ex = qx - px, ey = qy - py;
	double t = ((x - px) * ex + (y - py) * ey) / (ex * ex + ey * ey);
	t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
	return hypot(x - px - t * ex, y - py - t * ey);
}

/// Fuzz finding 54: a capsule on a cylinder's axis, pushed out through the
/// bottom cap 0.25 less deep than through the side, was answered the side
/// (the descents go down h's smooth side; along the cap's normal h is
/// kinked), and the world's nearest query ranked bodies by it. A ball whose
/// centre is inside a cylinder or a cone is as deep as its radius plus the
/// centre's distance to the boundary: the least of the cap or base plane's
/// and the side's (the side's in the meridian half-plane), both orders, and
/// the finding's capsule. Balls on a cone's axis also met EPA stopping at
/// its first face through the origin (depth 0 for 1.64).
static void test_capped_depth3(void **state)
{
	(void)state;
	o3_rng r = {5401};
	int caps = 0;
	double worst = 0.0;
	for (int i = 0; i < 4000; ++i) {
		bool cone = i % 2 == 1;
		double hh = o3_range(&r, 0.2, 50.0), rho = o3_range(&r, 0.2, 50.0), rs = o3_range(&r, 0.01, 3.0);
		imp_shape *k, *ball;
		assert_int_equal(cone ? imp_shape_cone(hh, rho, 0.0, &k) : imp_shape_cylinder(hh, rho, 0.0, &k), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rs, &ball), IMP_OK);
		// A centre inside: z anywhere, rho within the section at z; on the
		// axis one time in two.
		double z = o3_range(&r, -0.98, 0.98) * hh;
		double section = cone ? rho * (hh - z) / (2.0 * hh) : rho;
		double rad = i % 4 < 2 ? 0.0 : o3_range(&r, 0.0, 0.98) * section, ang = o3_range(&r, 0.0, 6.283185307179586);
		imp_vec3 local = {rad * cos(ang), rad * sin(ang), z};
		double inside = cone ? fmin(z + hh, meridian_segment_distance(rad, z, rho, -hh, 0.0, hh))
				     : fmin(rho - rad, hh - fabs(z));
		caps += (cone ? z + hh : hh - fabs(z)) == inside;
		double depth = rs + inside;
		imp_pose3 pk = o3_pose(&r, 10.0);
		imp_pose3 pb = {imp_pose3_apply(pk, local), o3_quat(&r)};
		double scene = 2.0 * (hh + rho) + rs;
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, k, pk, ball, pb, &x);
			char what[96];
			snprintf(what, sizeof what, "%s %d (h %g, r %g, ball %g), swap %d", cone ? "cone" : "cylinder", i, hh,
				 rho, rs, swap);
			check_identity3(&x, scene, what);
			// 3.8e-12 of the scene at worst when written; the side's way
			// out for the cap's was 5e-3 off, the descent alone 3e-7.
			worst = fmax(worst, fabs(x.distance + depth) / scene);
			if (!(x.state == IMP_STATE_OVERLAPPING && fabs(x.distance + depth) <= 1e-9 * scene))
				fail_msg("%s: state %s, distance %.17g, not %.17g", what, imp_query_state_string(x.state),
					 x.distance, -depth);
		}
		imp_shape_destroy(k);
		imp_shape_destroy(ball);
	}
	// Flat ones, up to 1e8 wide and 0.1 to 2 thick, with balls from 1e-12:
	// GJK's simplex goes long and thin there and rounding stalls it (a
	// ball 6.4e-13 across, 0.08 inside a cone 0.17 thick and 5.3e7 wide,
	// was apart by 0.087 for the overlap test and the distance alike).
	int flat_fails = 0;
	for (int i = 0; i < 2000; ++i) {
		bool cone = i % 2 == 1;
		double hh = o3_range(&r, 0.05, 1.0), rho = pow(10.0, o3_range(&r, 3.0, 8.0));
		double rs = pow(10.0, o3_range(&r, -12.0, -2.0));
		imp_shape *k, *ball;
		assert_int_equal(cone ? imp_shape_cone(hh, rho, 0.0, &k) : imp_shape_cylinder(hh, rho, 0.0, &k), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rs, &ball), IMP_OK);
		double z = o3_range(&r, -0.95, 0.95) * hh, ang = o3_range(&r, 0.0, 6.283185307179586);
		double rad = o3_range(&r, 0.0, 10.0 * hh);
		imp_vec3 local = {rad * cos(ang), rad * sin(ang), z};
		double inside = cone ? fmin(z + hh, meridian_segment_distance(rad, z, rho, -hh, 0.0, hh)) : hh - fabs(z);
		imp_pose3 pk = o3_pose(&r, 0.0);
		imp_pose3 pb = {imp_pose3_apply(pk, local), o3_quat(&r)};
		double scene = rho;
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, k, pk, ball, pb, &x);
			bool ov = swap ? imp_overlap3(ball, pb, k, pk, NULL) : imp_overlap3(k, pk, ball, pb, NULL);
			double d = swap ? imp_distance3(ball, pb, k, pk, NULL) : imp_distance3(k, pk, ball, pb, NULL);
			if (!ov || d != 0.0 || x.state != IMP_STATE_OVERLAPPING ||
			    !(fabs(x.distance + rs + inside) <= 1e-9 * scene)) {
				if (++flat_fails <= 3)
					printf("  flat %s %d (h %g, r %g, ball %g), swap %d: overlap %d, distance %.17g, "
					       "closest %.17g (%s) for %.17g\n",
					       cone ? "cone" : "cylinder", i, hh, rho, rs, swap, ov, d, x.distance,
					       imp_query_state_string(x.state), -(rs + inside));
			}
		}
		imp_shape_destroy(k);
		imp_shape_destroy(ball);
	}
	assert_int_equal(flat_fails, 0);
	printf("  balls in cylinders and cones, 4000: %d out through a flat face; worst depth error %.1e of the scene; "
	       "2000 flat ones\n",
	       caps, worst);
	assert_true(caps > 1000); // the flat face is the way out often enough to tell
	// The finding: depth 47.6875 through the bottom cap, 47.9375 sideways.
	imp_shape *cyl, *cap;
	assert_int_equal(imp_shape_cylinder(45.6875, 45.9375, 0.0, &cyl), IMP_OK);
	assert_int_equal(imp_shape_capsule3(imp_vec3_make(4.265625, 4.265625, 4.265625),
					    imp_vec3_make(4.265625, 4.265625, 0.00390625), 2.0, &cap),
			 IMP_OK);
	const double xs[] = {4.265625, 4.34375};
	for (int j = 0; j < 2; ++j) {
		imp_pose3 pc = {{xs[j], 4.265625, 4.265625}, {0, 0, 0, 1}};
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, cap, imp_pose3_identity(), cyl, pc, &x);
			check_identity3(&x, 100.0, "finding 54");
			if (!(fabs(x.distance + 47.6875) <= 1e-12 * 100.0))
				fail_msg("finding 54, x %g, swap %d: distance %.17g, not -47.6875", xs[j], swap, x.distance);
		}
	}
	imp_shape_destroy(cyl);
	imp_shape_destroy(cap);
}

/// Fuzz findings 52 and 46: a box corner level with a cone's base rim,
/// 7.9570433 and 7.9570435 by the two orders for 7.95704327: GJK creeps
/// along a rim, a factor 4 of the gap every two steps, and rounding stalls
/// it. A box whose face is level with a cylinder's cap (or a cone's base)
/// and lies outside the disc is as far as its rectangle is from the disc in
/// the cap's plane (every other pair of points is as far across and farther
/// along the axis): the distance from the axis to the rectangle, less the
/// radius. Random sizes, turns about the axis and poses of the whole scene,
/// both orders.
static void test_rim_level_box3(void **state)
{
	(void)state;
	o3_rng r = {5201};
	double worst = 0.0;
	for (int i = 0; i < 3000; ++i) {
		bool cone = i % 2 == 1;
		double hh = o3_range(&r, 0.2, 40.0), rho = o3_range(&r, 0.2, 40.0);
		imp_vec3 half = {o3_range(&r, 0.1, 40.0), o3_range(&r, 0.1, 40.0), o3_range(&r, 0.1, 40.0)};
		double theta = o3_range(&r, 0.0, 6.283185307179586);
		// The box's centre across the axis: its rectangle clear of the disc.
		double ang = o3_range(&r, 0.0, 6.283185307179586), out = rho + o3_range(&r, 0.01, 10.0) * rho;
		imp_vec3 c = {out * cos(ang), out * sin(ang), 0.0};
		// The rectangle's nearest point to the axis, in the box's frame.
		double ox = -(cos(theta) * c.x + sin(theta) * c.y), oy = -(-sin(theta) * c.x + cos(theta) * c.y);
		double gx = fmax(fabs(ox) - half.x, 0.0), gy = fmax(fabs(oy) - half.y, 0.0);
		double gap = hypot(gx, gy) - rho;
		if (!(gap > 1e-3 * rho)) {
			--i; // the rectangle reaches over the disc: another draw
			continue;
		}
		// Level: a cylinder's top cap (box above), a cone's base (box below).
		c.z = cone ? -hh - half.z : hh + half.z;
		imp_shape *k, *box;
		assert_int_equal(cone ? imp_shape_cone(hh, rho, 0.0, &k) : imp_shape_cylinder(hh, rho, 0.0, &k), IMP_OK);
		assert_int_equal(imp_shape_box3(half.x, half.y, half.z, 0.0, &box), IMP_OK);
		imp_pose3 world = o3_pose(&r, 50.0);
		imp_pose3 local = {c, {0.0, 0.0, sin(0.5 * theta), cos(0.5 * theta)}};
		imp_pose3 pb = {imp_pose3_apply(world, local.p), imp_quat_mul(world.q, local.q)};
		double scene = fmax(fmax(hh, rho), fmax(fmax(half.x, half.y), half.z)) + imp_vec3_length(world.p) + out;
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, k, world, box, pb, &x);
			char what[96];
			snprintf(what, sizeof what, "%s %d, swap %d", cone ? "cone" : "cylinder", i, swap);
			check_identity3(&x, scene, what);
			double d = imp_distance3(swap ? box : k, swap ? pb : world, swap ? k : box, swap ? world : pb, NULL);
			worst = fmax(worst, fmax(fabs(x.distance - gap), fabs(d - gap)) / scene);
			// 4.4e-12 of the scene at worst when written; 2e-9 before the
			// rim finish.
			if (!(fabs(x.distance - gap) <= 1e-10 * scene && fabs(d - gap) <= 1e-10 * scene))
				fail_msg("%s: distance %.17g (Level 2 %.17g), not %.17g", what, x.distance, d, gap);
		}
		imp_shape_destroy(k);
		imp_shape_destroy(box);
	}
	printf("  boxes level with a rim, 3000: worst %.1e of the scene\n", worst);
	// The finding.
	imp_shape *box, *cone;
	assert_int_equal(imp_shape_box3(37.125, 37.125, 37.125, 0.0, &box), IMP_OK);
	assert_int_equal(imp_shape_cone(37.125, 37.125, 9.3765979346832516e-28, &cone), IMP_OK);
	imp_pose3 pa = {{76.75, -58.625, 1.0588318416493436e-15}, {1, 0, 0, 0}};
	const double want = hypot(39.625, 21.5) - 37.125;
	for (int swap = 0; swap < 2; ++swap) {
		imp_closest3_result x;
		closest_either(swap, box, pa, cone, imp_pose3_identity(), &x);
		if (!(fabs(x.distance - want) <= 1e-12 * 114.0))
			fail_msg("finding 52, swap %d: %.17g, not %.17g", swap, x.distance, want);
	}
	imp_shape_destroy(box);
	imp_shape_destroy(cone);
}

/// Fuzz findings 58 and 61: curved cores level with a cylinder's cap (a
/// cone's base), outside its disc: an ellipsoid whose equator lies in the
/// cap's plane, 2.4e-8 long with a warm cache; a needle (a cylinder 1e-15
/// thin) lying in that plane, 2.2e-7 apart by order. A cylinder's support
/// jumps between its rims there, and GJK's simplex went long and thin and
/// stalled. Projecting both shapes on the plane moves no point out of its
/// shape and brings every pair nearer, so the distance is the plane's: from
/// the axis to the needle's segment, or to the equator's ellipse, less the
/// radii. Random sizes and poses, both orders, cold, and warm after a
/// distance and an overlap query shared the cache.
static void test_curved_level_rim(void **state)
{
	(void)state;
	o3_rng r = {5801};
	double worst = 0.0;
	int fails = 0;
	for (int i = 0; i < 2000; ++i) {
		bool cone = i % 2 == 1, needle = (i / 2) % 2 == 0;
		double hh = o3_range(&r, 0.2, 40.0), rho = o3_range(&r, 0.2, 40.0);
		double level = cone ? -hh : hh;
		double ang = o3_range(&r, 0.0, 6.283185307179586), out = rho + o3_range(&r, 0.05, 3.0) * rho;
		imp_vec3 c = {out * cos(ang), out * sin(ang), level};
		double phi = o3_range(&r, 0.0, 6.283185307179586);
		double rad = o3_int(&r, 2) ? 0.0 : o3_range(&r, 0.0, 2.0);
		imp_shape *k, *o;
		imp_quat lq;
		double gap;
		if (needle) {
			// The needle's axis along (cos phi, sin phi, 0): z turned a
			// quarter about (-sin phi, cos phi, 0).
			double hl = o3_range(&r, 0.5, 30.0), rn = 1e-15 * hl, h = sqrt(0.5);
			assert_int_equal(imp_shape_cylinder(hl, rn, rad, &o), IMP_OK);
			lq = (imp_quat){-sin(phi) * h, cos(phi) * h, 0.0, h};
			imp_vec3 p0 = {c.x - hl * cos(phi), c.y - hl * sin(phi), 0.0};
			imp_vec3 p1 = {c.x + hl * cos(phi), c.y + hl * sin(phi), 0.0};
			gap = o3_point_segment_distance(imp_vec3_make(0.0, 0.0, 0.0), p0, p1, NULL) - rho - rn - rad;
		} else {
			imp_vec3 e = {o3_range(&r, 0.3, 30.0), o3_range(&r, 0.3, 30.0), o3_range(&r, 0.3, 30.0)};
			assert_int_equal(imp_shape_ellipsoid(e.x, e.y, e.z, rad, &o), IMP_OK);
			lq = (imp_quat){0.0, 0.0, sin(0.5 * phi), cos(0.5 * phi)};
			// The axis in the ellipsoid's frame.
			imp_vec3 q = {-(cos(phi) * c.x + sin(phi) * c.y), -(-sin(phi) * c.x + cos(phi) * c.y), 0.0};
			gap = o3_point_ellipsoid_distance(q, e, NULL) - rho - rad;
		}
		if (!(gap > 1e-3 * rho)) {
			imp_shape_destroy(o);
			--i; // the shape reaches over the disc: another draw
			continue;
		}
		assert_int_equal(cone ? imp_shape_cone(hh, rho, 0.0, &k) : imp_shape_cylinder(hh, rho, 0.0, &k), IMP_OK);
		imp_pose3 world = o3_pose(&r, 50.0);
		imp_pose3 po = {imp_pose3_apply(world, c), imp_quat_mul(world.q, lq)};
		double scene = fmax(hh, rho) + imp_vec3_length(world.p) + out + 30.0;
		for (int swap = 0; swap < 2; ++swap) {
			const imp_shape *a = swap ? o : k, *b = swap ? k : o;
			imp_pose3 pa = swap ? po : world, pb = swap ? world : po;
			imp_simplex_cache cache = {0};
			double got[4];
			imp_closest3_result x;
			assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &x), IMP_OK);
			check_identity3(&x, scene, "level");
			got[0] = x.distance;
			got[1] = imp_distance3(a, pa, b, pb, &cache);
			(void)imp_overlap3(a, pa, b, pb, &cache);
			got[2] = imp_distance3(a, pa, b, pb, &cache);
			assert_int_equal(imp_closest3(a, pa, b, pb, &cache, &x), IMP_OK);
			check_identity3(&x, scene, "level, warm");
			got[3] = x.distance;
			for (int j = 0; j < 4; ++j) {
				double err = fabs(got[j] - gap) / scene;
				worst = fmax(worst, err);
				if (!(err <= 1e-10) && ++fails <= 5)
					printf("  %s %s %d, swap %d, answer %d: %.17g, not %.17g\n", needle ? "needle" : "ellipsoid",
					       cone ? "cone" : "cylinder", i, swap, j, got[j], gap);
			}
		}
		imp_shape_destroy(k);
		imp_shape_destroy(o);
	}
	printf("  needles and ellipsoids level with a rim, 2000: worst %.1e of the scene\n", worst);
	assert_int_equal(fails, 0);
}

/// A user box (a support function only) and a round ellipsoid of radius
/// R, overlapping: C is a rounded box, whose depth function h has a local
/// minimum near each of the box's face normals and is kinked along the
/// circles normal to its edges. From the faces EPA had after 48
/// iterations the descents could reach the wrong face's minimum: 102.07
/// deep (102.28 with the momentum) for 100.54 (fuzz finding 63); and they
/// stopped off a kink where the minimum sits on one (71.2592 for 71.2556).
/// The oracle: the same box as a polytope against a ball of radius R (a
/// point core), which EPA answers exactly. A curved core's depth is a
/// numerical search, held to 1e-4 of the scene (docs/narrow3d.md); the
/// test asks that of every answer, and prints how many are beyond 1e-9.
/// Both orders.
typedef struct user_box3 {
	double h[3];
} user_box3;

static imp_vec3 user_box3_support(const void *user, imp_vec3 d)
{
	const user_box3 *b = user;
	return imp_vec3_make(d.x >= 0.0 ? b->h[0] : -b->h[0], d.y >= 0.0 ? b->h[1] : -b->h[1],
			     d.z >= 0.0 ? b->h[2] : -b->h[2]);
}

static void test_user_box_round_depth(void **state)
{
	(void)state;
	o3_rng r = {6301};
	int fails = 0, checked = 0, loose = 0;
	double worst = 0.0;
	for (int i = 0; i < 2000; ++i) {
		user_box3 ub = {{o3_range(&r, 0.5, 20.0), o3_range(&r, 0.5, 20.0), o3_range(&r, 0.5, 20.0)}};
		double R = o3_range(&r, 1.0, 100.0);
		imp_shape *user, *poly, *round, *ball;
		assert_int_equal(imp_shape_user3(user_box3_support, &ub, 0.0, &user), IMP_OK);
		assert_int_equal(imp_shape_box3(ub.h[0], ub.h[1], ub.h[2], 0.0, &poly), IMP_OK);
		assert_int_equal(imp_shape_ellipsoid(R, R, R, 0.0, &round), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), R, &ball), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 20.0);
		// The ball's centre inside the box's reach.
		double m = fmax(ub.h[0], fmax(ub.h[1], ub.h[2]));
		imp_pose3 pb = {imp_vec3_add(pa.p, o3_vec(&r, -m, m)), o3_quat(&r)};
		imp_closest3_result want;
		assert_int_equal(imp_closest3(poly, pa, ball, pb, NULL, &want), IMP_OK);
		if (want.distance < 0.0) {
			++checked;
			double scene = m + R + imp_vec3_length(pa.p) + 40.0;
			for (int swap = 0; swap < 2; ++swap) {
				imp_closest3_result x;
				closest_either(swap, user, pa, round, pb, &x);
				check_identity3(&x, scene, "user box in a round ellipsoid");
				double err = fabs(x.distance - want.distance) / scene;
				worst = fmax(worst, err);
				loose += !(err <= 1e-9);
				if (!(err <= 1e-4) && ++fails <= 5)
					printf("  case %d, box (%g %g %g), R %g, swap %d: %.17g (state %d), not %.17g\n", i,
					       ub.h[0], ub.h[1], ub.h[2], R, swap, x.distance, (int)x.state, want.distance);
			}
		}
		imp_shape_destroy(user);
		imp_shape_destroy(poly);
		imp_shape_destroy(round);
		imp_shape_destroy(ball);
	}
	printf("  user boxes in round ellipsoids, %d overlapping: worst %.1e of the scene, %d of %d answers beyond "
	       "1e-9\n",
	       checked, worst, loose, 2 * checked);
	assert_int_equal(fails, 0);
}

/// A user box nearly centred in a large ball (an ellipsoid of equal
/// semi-axes, rounded too): each of the box's six faces is a local minimum
/// of the depth function h, and they differ by less than EPA's polytope
/// sags on the ball, so the descents from EPA's six nearest faces (taken
/// distinct by 0.999 in their normals' dot product) could all fall into
/// the wrong faces: 102.838 for 102.731 (CI's seeded fuzz run, finding
/// 74). With the box's centre delta off the ball's (|delta_k| < h_k in the
/// box's frame), h(u) >= sum |u_k| (h_k - |delta_k|) + R, least at a face
/// normal: the cores' depth is R + min_k (h_k - |delta_k|).
static void test_user_box_centred_ball(void **state)
{
	(void)state;
	o3_rng r = {7401};
	int fails = 0, limited = 0;
	double worst = 0.0;
	for (int i = 0; i < 1500; ++i) {
		user_box3 ub = {{o3_range(&r, 2.0, 20.0), o3_range(&r, 2.0, 20.0), o3_range(&r, 2.0, 20.0)}};
		double R = o3_range(&r, 30.0, 200.0), rad = o3_int(&r, 2) ? 0.0 : o3_range(&r, 1.0, 100.0);
		imp_shape *user, *round;
		assert_int_equal(imp_shape_user3(user_box3_support, &ub, 0.0, &user), IMP_OK);
		assert_int_equal(imp_shape_ellipsoid(R, R, R, rad, &round), IMP_OK);
		imp_pose3 pa = o3_pose(&r, 20.0);
		imp_vec3 delta = {o3_range(&r, -0.02, 0.02) * ub.h[0], o3_range(&r, -0.02, 0.02) * ub.h[1],
				  o3_range(&r, -0.02, 0.02) * ub.h[2]};
		imp_pose3 pb = {imp_vec3_sub(pa.p, imp_quat_rotate(pa.q, delta)), o3_quat(&r)};
		double depth = R + fmin(fmin(ub.h[0] - fabs(delta.x), ub.h[1] - fabs(delta.y)), ub.h[2] - fabs(delta.z));
		double want = -depth - rad, scene = R + rad + 40.0 + imp_vec3_length(pa.p);
		for (int swap = 0; swap < 2; ++swap) {
			imp_closest3_result x;
			closest_either(swap, user, pa, round, pb, &x);
			if (x.state == IMP_STATE_ITERATION_LIMIT) {
				++limited;
				continue;
			}
			check_identity3(&x, scene, "user box centred in a ball");
			double err = fabs(x.distance - want) / scene;
			worst = fmax(worst, err);
			if (!(err <= 1e-9) && ++fails <= 5)
				printf("  case %d, box (%g %g %g), R %g, radius %g, swap %d: %.17g (state %d), not %.17g\n", i,
				       ub.h[0], ub.h[1], ub.h[2], R, rad, swap, x.distance, (int)x.state, want);
		}
		imp_shape_destroy(user);
		imp_shape_destroy(round);
	}
	printf("  user boxes centred in balls, 3000 queries: %d beyond 1e-9, worst %.1e of the scene, %d at the "
	       "iteration limit\n",
	       fails, worst, limited);
	// 173 answers were beyond 1e-9 before the descents also started from
	// EPA's spread faces; one is left (case 941: a box 17.7 x 2.112 x
	// 2.121, answered by the face opposite the right one, 1e-4 of the
	// scene deeper).
	assert_true(fails <= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polytope_pairs),
		cmocka_unit_test(test_invariance),
		cmocka_unit_test(test_analytic),
		cmocka_unit_test(test_capped_depth3),
		cmocka_unit_test(test_rim_level_box3),
		cmocka_unit_test(test_curved_level_rim),
		cmocka_unit_test(test_user_box_round_depth),
		cmocka_unit_test(test_user_box_centred_ball),
		cmocka_unit_test(test_curved_consistency),
		cmocka_unit_test(test_smooth_newton),
		cmocka_unit_test(test_vertex_ellipsoid),
		cmocka_unit_test(test_box_depth),
		cmocka_unit_test(test_box_overlap),
		cmocka_unit_test(test_segment_cores),
		cmocka_unit_test(test_box_sphere),
		cmocka_unit_test(test_box_capsule),
		cmocka_unit_test(test_thin_box_segment),
		cmocka_unit_test(test_lift2d),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_tiny_core_capsule),
		cmocka_unit_test(test_tiny_points),
		cmocka_unit_test(test_epa_limit_state),
		cmocka_unit_test(test_bounding_sphere_exit),
	};
	// IMPACT_TEST_FILTER: run only the tests whose names match (cmocka's
	// pattern), to iterate on one.
	const char *filter = getenv("IMPACT_TEST_FILTER");
	if (filter != NULL)
		cmocka_set_test_filter(filter);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
