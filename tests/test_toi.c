// SPDX-License-Identifier: MIT
// Pairwise time of impact (imp_time_of_impact2/3) against independent
// oracles: the closed form for discs and spheres moving linearly; the
// closed form for a small body shot at a thin wall at speeds from 1 to
// 10^6, with and without spin; and, for random polygons and polytopes
// moving and spinning, a dense scan of the distance (imp_distance at 4,000
// times) refined by bisection. The answer must never come after a contact
// the scan sees, and the distance at the answer must be within the
// tolerance. Plus separated, parallel and already-touching motions, and
// every error path.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double rng_range(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rng_next(s) >> 11) * 0x1p-53);
}

/// The first t >= 0 with |p + v t| = r, or INFINITY.
static double first_root(double px, double py, double pz, double vx, double vy, double vz, double r)
{
	double a = vx * vx + vy * vy + vz * vz, b = 2.0 * (px * vx + py * vy + pz * vz);
	double c = px * px + py * py + pz * pz - r * r;
	if (c <= 0.0)
		return 0.0;
	if (a == 0.0)
		return INFINITY;
	double disc = b * b - 4.0 * a * c;
	if (disc < 0.0)
		return INFINITY;
	double t = (-b - sqrt(disc)) / (2.0 * a);
	return t >= 0.0 ? t : INFINITY;
}

static void test_discs_and_spheres_closed_form(void **state)
{
	(void)state;
	uint64_t s = 11;
	imp_toi_options o = imp_default_toi_options();
	o.tolerance = 1e-9;
	for (int i = 0; i < 2000; i++) {
		double ra = rng_range(&s, 0.01, 2.0), rb = rng_range(&s, 0.01, 2.0);
		imp_vec3 pa = {rng_range(&s, -10, 10), rng_range(&s, -10, 10), rng_range(&s, -10, 10)};
		imp_vec3 pb = {rng_range(&s, -10, 10), rng_range(&s, -10, 10), rng_range(&s, -10, 10)};
		imp_vec3 va = {rng_range(&s, -5, 5), rng_range(&s, -5, 5), rng_range(&s, -5, 5)};
		imp_vec3 vb = {rng_range(&s, -5, 5), rng_range(&s, -5, 5), rng_range(&s, -5, 5)};
		double t_max = 4.0;
		for (int dim = 2; dim <= 3; dim++) {
			double z = dim == 3 ? 1.0 : 0.0;
			double t_true = first_root(pb.x - pa.x, pb.y - pa.y, z * (pb.z - pa.z), vb.x - va.x, vb.y - va.y,
						   z * (vb.z - va.z), ra + rb);
			double speed = sqrt((vb.x - va.x) * (vb.x - va.x) + (vb.y - va.y) * (vb.y - va.y) +
					    z * (vb.z - va.z) * (vb.z - va.z));
			double t, d;
			imp_toi_state st;
			if (dim == 2) {
				imp_shape *a = NULL, *b = NULL;
				imp_vec2 o2 = {0, 0};
				assert_int_equal(imp_shape_polygon(&o2, 1, ra, &a), IMP_OK);
				assert_int_equal(imp_shape_polygon(&o2, 1, rb, &b), IMP_OK);
				imp_motion2 ma = {imp_pose2_make(pa.x, pa.y, 0.3), {va.x, va.y}, 0.0};
				imp_motion2 mb = {imp_pose2_make(pb.x, pb.y, -1.0), {vb.x, vb.y}, 0.0};
				imp_toi2_result r;
				assert_int_equal(imp_time_of_impact2_ex(a, ma, b, mb, t_max, &o, &r), IMP_OK);
				t = r.t, d = r.distance, st = r.state;
				imp_shape_destroy(a);
				imp_shape_destroy(b);
			} else {
				imp_shape *a = NULL, *b = NULL;
				assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), ra, &a), IMP_OK);
				assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rb, &b), IMP_OK);
				imp_motion3 ma = {{pa, imp_quat_identity()}, va, {0, 0, 0}};
				imp_motion3 mb = {{pb, imp_quat_identity()}, vb, {0, 0, 0}};
				imp_toi3_result r;
				assert_int_equal(imp_time_of_impact3_ex(a, ma, b, mb, t_max, &o, &r), IMP_OK);
				t = r.t, d = r.distance, st = r.state;
				imp_shape_destroy(a);
				imp_shape_destroy(b);
			}
			if (t_true == 0.0) {
				assert_int_equal(st, IMP_TOI_OVERLAPPED);
			} else if (t_true > t_max) {
				assert_int_equal(st, IMP_TOI_SEPARATED);
				assert_true(t == t_max);
			} else {
				assert_int_equal(st, IMP_TOI_HIT);
				assert_true(t <= t_true + 1e-12);
				assert_true(d <= o.tolerance && d >= -1e-12);
				// The distance at t by the closed form: within the tolerance.
				double gx = pb.x - pa.x + (vb.x - va.x) * t, gy = pb.y - pa.y + (vb.y - va.y) * t;
				double gz = z * (pb.z - pa.z + (vb.z - va.z) * t);
				double exact = sqrt(gx * gx + gy * gy + gz * gz) - (ra + rb);
				assert_true(exact >= -1e-12 * (1.0 + speed) && exact <= o.tolerance + 1e-12 * (1.0 + speed));
			}
		}
	}
}

/// A 0.01-thick wall and a small body shot at it at 1 to 10^6 per unit time
/// over one unit of time: the hit is always found, at the time the body's
/// face meets the wall's, within the tolerance.
static void test_thin_wall_no_tunnelling(void **state)
{
	(void)state;
	imp_shape *wall2 = NULL, *body2 = NULL, *wall3 = NULL, *body3 = NULL;
	assert_int_equal(imp_shape_box2(0.005, 5.0, 0.0, &wall2), IMP_OK);
	assert_int_equal(imp_shape_box2(0.05, 0.05, 0.0, &body2), IMP_OK);
	assert_int_equal(imp_shape_box3(0.005, 5.0, 5.0, 0.0, &wall3), IMP_OK);
	assert_int_equal(imp_shape_box3(0.05, 0.05, 0.05, 0.0, &body3), IMP_OK);
	imp_toi_options o = imp_default_toi_options();
	o.tolerance = 1e-7;
	o.max_iterations = 200;
	for (double speed = 1.0; speed <= 1e6; speed *= 3.7) {
		for (int spin = 0; spin < 2; spin++) {
			double x0 = -0.3 * speed; // the wall at 0, reached at about t = 0.3
			double w = spin ? 50.0 : 0.0;
			// Without spin the body's face meets the wall at x0 + v t + 0.05 = -0.005.
			double t_face = (-0.005 - 0.05 - x0) / speed;
			imp_motion2 mw2 = {imp_pose2_make(0, 0, 0), {0, 0}, 0.0};
			imp_motion2 mb2 = {imp_pose2_make(x0, 0.01, 0), {speed, 0}, w};
			imp_toi2_result r2;
			assert_int_equal(imp_time_of_impact2_ex(wall2, mw2, body2, mb2, 1.0, &o, &r2), IMP_OK);
			assert_int_equal(r2.state, IMP_TOI_HIT);
			assert_true(r2.distance <= o.tolerance);
			// A spinning square reaches further (its half-diagonal): no later than
			// the flat face, no earlier than the corner could.
			double t_corner = (-0.005 - 0.05 * sqrt(2.0) - x0) / speed;
			assert_true(r2.t <= t_face + 1e-12);
			assert_true(r2.t >= (spin ? t_corner : t_face - o.tolerance / speed) - 1e-9);
			imp_motion3 mw3 = {{{0, 0, 0}, imp_quat_identity()}, {0, 0, 0}, {0, 0, 0}};
			imp_motion3 mb3 = {{{x0, 0.01, -0.02}, imp_quat_identity()}, {speed, 0, 0}, {0, w, w * 0.5}};
			imp_toi3_result r3;
			assert_int_equal(imp_time_of_impact3_ex(wall3, mw3, body3, mb3, 1.0, &o, &r3), IMP_OK);
			assert_int_equal(r3.state, IMP_TOI_HIT);
			assert_true(r3.distance <= o.tolerance);
			assert_true(r3.t <= t_face + 1e-12);
			t_corner = (-0.005 - 0.05 * sqrt(3.0) - x0) / speed;
			assert_true(r3.t >= (spin ? t_corner : t_face - o.tolerance / speed) - 1e-9);
		}
	}
	imp_shape_destroy(wall2);
	imp_shape_destroy(body2);
	imp_shape_destroy(wall3);
	imp_shape_destroy(body3);
}

enum { SCAN = 4000 };

/// The distance of the pair at time t.
typedef double distance_at(const void *pair, double t);

typedef struct pair2 {
	const imp_shape *a, *b;
	imp_motion2 ma, mb;
} pair2;

typedef struct pair3 {
	const imp_shape *a, *b;
	imp_motion3 ma, mb;
} pair3;

static double distance2_at(const void *pair, double t)
{
	const pair2 *p = pair;
	return imp_distance2(p->a, imp_motion2_at(p->ma, t), p->b, imp_motion2_at(p->mb, t), NULL);
}

static double distance3_at(const void *pair, double t)
{
	const pair3 *p = pair;
	return imp_distance3(p->a, imp_motion3_at(p->ma, t), p->b, imp_motion3_at(p->mb, t), NULL);
}

/// The scan oracle: the first of SCAN + 1 evenly spaced times in [0, t_max]
/// at which the distance is at most 0, refined by bisection to 1e-12 of
/// t_max; INFINITY when no sample touches.
static double scan(distance_at *d, const void *pair, double t_max)
{
	double prev = 0.0;
	for (int i = 0; i <= SCAN; i++) {
		double t = t_max * i / SCAN;
		if (d(pair, t) <= 0.0) {
			if (i == 0)
				return 0.0;
			double lo = prev, hi = t;
			while (hi - lo > 1e-12 * t_max) {
				double mid = 0.5 * (lo + hi);
				if (d(pair, mid) <= 0.0)
					hi = mid;
				else
					lo = mid;
			}
			return hi;
		}
		prev = t;
	}
	return INFINITY;
}

static void test_random_motions_against_scan(void **state)
{
	(void)state;
	uint64_t s = 0x701;
	imp_toi_options o = imp_default_toi_options();
	o.tolerance = 1e-8;
	o.max_iterations = 500;
	int hits[2] = {0, 0};
	for (int i = 0; i < 150; i++) {
		// 2D: random polygons (some rounded).
		imp_vec2 pts[6];
		imp_shape *a2 = NULL, *b2 = NULL;
		for (int k = 0; k < 6; k++)
			pts[k] = (imp_vec2){rng_range(&s, -1, 1), rng_range(&s, -0.5, 0.5)};
		assert_int_equal(imp_shape_polygon(pts, 6, i % 3 ? 0.0 : 0.1, &a2), IMP_OK);
		for (int k = 0; k < 6; k++)
			pts[k] = (imp_vec2){rng_range(&s, -0.7, 0.7), rng_range(&s, -0.7, 0.7)};
		assert_int_equal(imp_shape_polygon(pts, 6, i % 4 ? 0.0 : 0.05, &b2), IMP_OK);
		imp_motion2 ma = {imp_pose2_make(rng_range(&s, -4, -2), rng_range(&s, -1, 1), rng_range(&s, -3, 3)),
				  {rng_range(&s, 0, 3), rng_range(&s, -1, 1)}, rng_range(&s, -6, 6)};
		imp_motion2 mb = {imp_pose2_make(rng_range(&s, 2, 4), rng_range(&s, -1, 1), rng_range(&s, -3, 3)),
				  {rng_range(&s, -3, 0), rng_range(&s, -1, 1)}, rng_range(&s, -6, 6)};
		imp_toi2_result r2;
		assert_int_equal(imp_time_of_impact2_ex(a2, ma, b2, mb, 2.0, &o, &r2), IMP_OK);
		pair2 p2 = {a2, b2, ma, mb};
		double t2 = scan(distance2_at, &p2, 2.0);
		assert_true(r2.state == IMP_TOI_HIT || r2.state == IMP_TOI_SEPARATED);
		if (isfinite(t2)) {
			assert_int_equal(r2.state, IMP_TOI_HIT);
			assert_true(r2.t <= t2 + 1e-9);
			hits[0]++;
		}
		if (r2.state == IMP_TOI_HIT) {
			assert_true(r2.distance <= o.tolerance);
			double d = imp_distance2(a2, imp_motion2_at(ma, r2.t), b2, imp_motion2_at(mb, r2.t), NULL);
			assert_true(fabs(d - fmax(r2.distance, 0.0)) <= 1e-12);
		}
		imp_shape_destroy(a2);
		imp_shape_destroy(b2);

		// 3D: random polytopes.
		imp_vec3 q[8];
		imp_shape *a3 = NULL, *b3 = NULL;
		for (int k = 0; k < 8; k++)
			q[k] = imp_vec3_make(rng_range(&s, -1, 1), rng_range(&s, -0.5, 0.5), rng_range(&s, -0.5, 0.5));
		assert_int_equal(imp_shape_polytope(q, 8, i % 3 ? 0.0 : 0.1, &a3), IMP_OK);
		for (int k = 0; k < 8; k++)
			q[k] = imp_vec3_make(rng_range(&s, -0.6, 0.6), rng_range(&s, -0.6, 0.6), rng_range(&s, -0.6, 0.6));
		assert_int_equal(imp_shape_polytope(q, 8, 0.0, &b3), IMP_OK);
		imp_motion3 na = {{{rng_range(&s, -4, -2), rng_range(&s, -0.4, 0.4), rng_range(&s, -0.4, 0.4)},
				   imp_quat_from_axis_angle(imp_vec3_make(1, 2, 3), rng_range(&s, -3, 3))},
				  {rng_range(&s, 0, 3), rng_range(&s, -0.3, 0.3), rng_range(&s, -0.3, 0.3)},
				  {rng_range(&s, -5, 5), rng_range(&s, -5, 5), rng_range(&s, -5, 5)}};
		imp_motion3 nb = {{{rng_range(&s, 2, 4), rng_range(&s, -0.4, 0.4), rng_range(&s, -0.4, 0.4)}, imp_quat_identity()},
				  {rng_range(&s, -3, 0), rng_range(&s, -0.3, 0.3), rng_range(&s, -0.3, 0.3)},
				  {rng_range(&s, -5, 5), 0.0, rng_range(&s, -5, 5)}};
		imp_toi3_result r3;
		assert_int_equal(imp_time_of_impact3_ex(a3, na, b3, nb, 2.0, &o, &r3), IMP_OK);
		pair3 p3 = {a3, b3, na, nb};
		double t3 = scan(distance3_at, &p3, 2.0);
		assert_true(r3.state == IMP_TOI_HIT || r3.state == IMP_TOI_SEPARATED);
		if (isfinite(t3)) {
			assert_int_equal(r3.state, IMP_TOI_HIT);
			assert_true(r3.t <= t3 + 1e-9);
			hits[1]++;
		}
		if (r3.state == IMP_TOI_HIT)
			assert_true(r3.distance <= o.tolerance);
		imp_shape_destroy(a3);
		imp_shape_destroy(b3);
	}
	// The scenes are made to collide often, so that the oracle has
	// something to compare with.
	print_message("scan oracle contacts: %d of 150 in 2D, %d of 150 in 3D\n", hits[0], hits[1]);
	assert_true(hits[0] > 40);
	assert_true(hits[1] > 40);
}

/// The rule of issue 20's defect 6 on a time of impact's answer: every
/// coordinate finite, the normal unit, normal . (point_b - point_a) =
/// distance within 1e-9 of the scene's size `size`.
static void check_answer2(const imp_toi2_result *r, double size)
{
	assert_true(isfinite(r->t) && isfinite(r->distance));
	assert_true(isfinite(r->point_a.x) && isfinite(r->point_a.y) && isfinite(r->point_b.x) &&
		    isfinite(r->point_b.y) && isfinite(r->normal.x) && isfinite(r->normal.y));
	assert_true(fabs(hypot(r->normal.x, r->normal.y) - 1.0) <= 1e-9);
	double along = r->normal.x * (r->point_b.x - r->point_a.x) + r->normal.y * (r->point_b.y - r->point_a.y);
	assert_true(fabs(along - r->distance) <= 1e-9 * size);
}

static void check_answer3(const imp_toi3_result *r, double size)
{
	assert_true(isfinite(r->t) && isfinite(r->distance));
	assert_true(isfinite(r->point_a.x) && isfinite(r->point_a.y) && isfinite(r->point_a.z) &&
		    isfinite(r->point_b.x) && isfinite(r->point_b.y) && isfinite(r->point_b.z) &&
		    isfinite(r->normal.x) && isfinite(r->normal.y) && isfinite(r->normal.z));
	// The length without squares, which underflow at these scales.
	imp_vec3 n = r->normal;
	assert_true(fabs(sqrt(n.x * n.x + n.y * n.y + n.z * n.z) - 1.0) <= 1e-9);
	imp_vec3 d = imp_vec3_sub(r->point_b, r->point_a);
	double m = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
	double along = m > 0.0 ? m * (n.x * (d.x / m) + n.y * (d.y / m) + n.z * (d.z / m)) : 0.0;
	assert_true(fabs(along - r->distance) <= 1e-9 * size);
}

/// Issue 20's fuzz findings 32, 33 and 36 (toi.finite): a time of impact
/// whose shapes overlap at t = 0 answered NaN witnesses, because the
/// closest-point query it ends with scaled a scene a few subnormals across
/// by 2^1030 = inf (the 2D walk over a capsule whose core is 1e-310 long;
/// the 3D set-up for two spheres of radius 1e-310). The answer at an
/// overlapping start is the penetration at t = 0, finite with a unit
/// normal, at every scale: the findings' pairs, then pairs of known depth
/// from 1e-310 to 1e100 across.
static void test_overlapped_start_finite(void **state)
{
	(void)state;
	imp_motion2 still2 = {imp_pose2_make(0, 0, 0), {0, 0}, 0.0};
	imp_motion3 still3 = {imp_pose3_identity(), {0, 0, 0}, {0, 0, 0}};
	imp_toi2_result r2;
	imp_toi3_result r3;
	// Finding 32: a circle of radius 1.3125 on a capsule of radius 1 whose
	// core, from its centre, is 1e-310 long: depth 2.3125.
	imp_shape *circle = NULL, *capsule = NULL;
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 1.3125, &circle), IMP_OK);
	assert_int_equal(imp_shape_capsule2(imp_vec2_make(0, 0), imp_vec2_make(-1e-310, 0), 1.0, &capsule), IMP_OK);
	assert_int_equal(imp_time_of_impact2(circle, still2, capsule, still2, 1.0, &r2), IMP_OK);
	assert_int_equal(r2.state, IMP_TOI_OVERLAPPED);
	assert_true(r2.t == 0.0);
	assert_true(fabs(r2.distance + 2.3125) <= 1e-12);
	check_answer2(&r2, 2.3125);
	imp_shape_destroy(circle);
	imp_shape_destroy(capsule);
	// Finding 33: two spheres of radius 1e-310 on the same centre
	// (-1e-310, -1e-310, -1e-310): depth 2e-310.
	imp_shape *s1 = NULL, *s2 = NULL;
	imp_vec3 c = {-1e-310, -1e-310, -1e-310};
	assert_int_equal(imp_shape_sphere(c, 1e-310, &s1), IMP_OK);
	assert_int_equal(imp_shape_sphere(c, 1e-310, &s2), IMP_OK);
	assert_int_equal(imp_time_of_impact3(s1, still3, s2, still3, 1.0, &r3), IMP_OK);
	assert_int_equal(r3.state, IMP_TOI_OVERLAPPED);
	assert_true(r3.t == 0.0);
	assert_true(fabs(r3.distance + 2e-310) <= 1e-320);
	check_answer3(&r3, 2e-310);
	imp_shape_destroy(s1);
	imp_shape_destroy(s2);
	// Scale sweep: a disc (sphere) of radius 1.25 s on a capsule of radius
	// s whose core is 1e-310 long (or s / 2 when that is longer) along x,
	// both at the origin, moving together: depth 2.25 s.
	for (double size = 1e-310; size <= 1e100; size *= 1e10) {
		double len = fmax(1e-310, 0.5 * size);
		imp_shape *a = NULL, *b = NULL;
		assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 1.25 * size, &a), IMP_OK);
		assert_int_equal(imp_shape_capsule2(imp_vec2_make(0, 0), imp_vec2_make(-len, 0), size, &b), IMP_OK);
		imp_motion2 m2 = {imp_pose2_make(0, 0, 0.5), {size, -size}, 1.0};
		assert_int_equal(imp_time_of_impact2(a, m2, b, m2, 1.0, &r2), IMP_OK);
		assert_int_equal(r2.state, IMP_TOI_OVERLAPPED);
		assert_true(r2.t == 0.0);
		assert_true(fabs(r2.distance + 2.25 * size) <= 1e-9 * size);
		check_answer2(&r2, 2.25 * size);
		assert_int_equal(imp_time_of_impact2(b, m2, a, m2, 1.0, &r2), IMP_OK);
		assert_int_equal(r2.state, IMP_TOI_OVERLAPPED);
		check_answer2(&r2, 2.25 * size);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
		imp_shape *a3 = NULL, *b3 = NULL;
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.25 * size, &a3), IMP_OK);
		assert_int_equal(imp_shape_capsule3(imp_vec3_make(0, 0, 0), imp_vec3_make(-len, 0, 0), size, &b3), IMP_OK);
		imp_motion3 m3 = {imp_pose3_identity(), {size, 0, -size}, {0, 1, 0}};
		assert_int_equal(imp_time_of_impact3(a3, m3, b3, m3, 1.0, &r3), IMP_OK);
		assert_int_equal(r3.state, IMP_TOI_OVERLAPPED);
		assert_true(r3.t == 0.0);
		assert_true(fabs(r3.distance + 2.25 * size) <= 1e-9 * size);
		check_answer3(&r3, 2.25 * size);
		assert_int_equal(imp_time_of_impact3(b3, m3, a3, m3, 1.0, &r3), IMP_OK);
		assert_int_equal(r3.state, IMP_TOI_OVERLAPPED);
		check_answer3(&r3, 2.25 * size);
		imp_shape_destroy(a3);
		imp_shape_destroy(b3);
	}
}

/// Shapes whose balls never meet are answered SEPARATED without a query,
/// from the gap of the balls where their centres come closest. That gap's
/// length and normal came from squared coordinates: two points 1e-160
/// apart answered a normal of length 1.00001 and a distance 6e-6 short (at
/// 1e-320 the inverse length is infinite). Points d apart, from 1e-200 to
/// 1e100, and the same moving past each other (closest at t = 0.5): the
/// balls' answer (no query) is the distance d, a query's (below 1e-154,
/// where the balls' squared gap vanishes and the loop runs) the distance
/// at its time, from d to d sqrt 2; the normal unit either way.
static void test_separated_tiny_gap(void **state)
{
	(void)state;
	imp_shape *p2 = NULL, *p3 = NULL;
	imp_vec2 o2 = {0, 0};
	imp_vec3 o3 = {0, 0, 0};
	assert_int_equal(imp_shape_polygon(&o2, 1, 0.0, &p2), IMP_OK);
	assert_int_equal(imp_shape_polytope(&o3, 1, 0.0, &p3), IMP_OK);
	int by_balls = 0;
	for (double d = 1e-200; d <= 1e100; d *= 7.3) {
		// b at (d, 0) still, then moving along y from -d to d (closest at
		// t = 0.5): the gap is d either way.
		for (int moving = 0; moving < 2; moving++) {
			imp_motion2 ma = {imp_pose2_make(0, 0, 0), {0, 0}, 0.0};
			imp_motion2 mb = {imp_pose2_make(d, moving ? -d : 0.0, 0), {0, moving ? 2 * d : 0.0}, 0.0};
			imp_toi2_result r2;
			assert_int_equal(imp_time_of_impact2(p2, ma, p2, mb, 1.0, &r2), IMP_OK);
			assert_int_equal(r2.state, IMP_TOI_SEPARATED);
			if (r2.iterations == 0 || !moving)
				assert_true(fabs(r2.distance - d) <= 1e-9 * d);
			else
				assert_true(r2.distance >= d * (1 - 1e-9) && r2.distance <= d * sqrt(2.0) * (1 + 1e-9));
			by_balls += r2.iterations == 0;
			check_answer2(&r2, d);
			imp_motion3 na = {imp_pose3_identity(), {0, 0, 0}, {0, 0, 0}};
			imp_motion3 nb = {imp_pose3_make(imp_vec3_make(d, 0, moving ? -d : 0.0), imp_quat_identity()),
					  {0, 0, moving ? 2 * d : 0.0}, {0, 0, 0}};
			imp_toi3_result r3;
			assert_int_equal(imp_time_of_impact3(p3, na, p3, nb, 1.0, &r3), IMP_OK);
			assert_int_equal(r3.state, IMP_TOI_SEPARATED);
			if (r3.iterations == 0 || !moving)
				assert_true(fabs(r3.distance - d) <= 1e-9 * d);
			else
				assert_true(r3.distance >= d * (1 - 1e-9) && r3.distance <= d * sqrt(2.0) * (1 + 1e-9));
			by_balls += r3.iterations == 0;
			check_answer3(&r3, d);
		}
	}
	// Most scales are answered by the balls, the path under test.
	assert_true(by_balls >= 100);
	imp_shape_destroy(p2);
	imp_shape_destroy(p3);
}

/// A disc's support, written as the fuzz target's user ellipse
/// (tests/fuzz/fuzz.c) with both semi-axes `*user`: d scaled by its largest
/// coordinate first.
static imp_vec2 disc_support(const void *user, imp_vec2 d)
{
	double h = *(const double *)user;
	double m = fmax(fabs(d.x), fabs(d.y));
	double x = d.x / m * h, y = d.y / m * h;
	double l = sqrt(x * x + y * y);
	return imp_vec2_make(x * h / l, y * h / l);
}

/// The distance from a disc of radius r centred at c to the box [-hx, hx]
/// x [-hy, hy]: the analytic oracle.
static double disc_box_distance(imp_vec2 c, double r, double hx, double hy)
{
	double dx = fabs(c.x) - hx, dy = fabs(c.y) - hy;
	if (dx <= 0.0 && dy <= 0.0)
		return fmax(dx, dy) - r;
	return hypot(fmax(dx, 0.0), fmax(dy, 0.0)) - r;
}

/// The first time in [0, 1] the disc of radius r on motion m meets the box:
/// 20,000 samples of the analytic distance, then bisection; INFINITY if
/// none meets.
static double disc_box_first(imp_motion2 m, double r, double hx, double hy)
{
	enum { N = 20000 };
	double prev = 0.0;
	for (int i = 0; i <= N; i++) {
		double t = (double)i / N;
		if (disc_box_distance(imp_motion2_at(m, t).p, r, hx, hy) <= 0.0) {
			double lo = prev, hi = t;
			for (int k = 0; k < 60 && i > 0; k++) {
				double mid = 0.5 * (lo + hi);
				if (disc_box_distance(imp_motion2_at(m, mid).p, r, hx, hy) <= 0.0)
					hi = mid;
				else
					lo = mid;
			}
			return i == 0 ? 0.0 : hi;
		}
		prev = t;
	}
	return INFINITY;
}

/// Issue 20, defect 20 (fuzz_world's finding-cast-free-ends-inside): a user
/// disc of radius 2^-20 turning 67.5 degrees from (27.5625, 1.78515625) to
/// (-0.1875, 0), through the box of half sizes 4.265625 x 4.25 at the
/// origin, was answered SEPARATED. The motion bound was right: the
/// distance query at the eighth step, 3.1e-6 from the box, answered 3.96
/// with the step's warm cache. Its GJK had the nearest point 3.1e-6 from
/// the origin on an edge of C 8 long; the next support lay 1e-16 from the
/// edge's end, the edge with it was solved to that end alone, 3.96 away,
/// and the stall exit kept that simplex instead of the one before. The
/// time of impact must hit, no later than the first contact of a dense
/// scan of the analytic distance; the same for the disc's motion turned
/// through other angles and radii, and the warm query at the step itself.
static void test_turning_user_disc(void **state)
{
	(void)state;
	double hx = 4.265625, hy = 4.25;
	imp_shape *box = NULL;
	assert_int_equal(imp_shape_box2(hx, hy, 0.0, &box), IMP_OK);
	imp_motion2 still = {imp_pose2_make(0, 0, 0), {0, 0}, 0.0};
	// The finding's motion, bit for bit as fuzz_world made it.
	double h = 0x1p-20;
	imp_shape *disc = NULL;
	assert_int_equal(imp_shape_user2(disc_support, &h, 0.0, &disc), IMP_OK);
	imp_motion2 m = {{{27.5625, 1.78515625}, {0x1.87de2a6aea964p-2, 0x1.d906bcf328d46p-1}},
			 {-27.75, -1.78515625},
			 -0x1.2d97c7f3321d2p+0};
	double first = disc_box_first(m, h, hx, hy);
	assert_true(first > 0.83 && first < 0.85);
	imp_toi2_result r;
	assert_int_equal(imp_time_of_impact2(disc, m, box, still, 1.0, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_HIT);
	assert_true(r.t <= first);
	// Within the tolerance (1e-6 of the reaches) of the contact: the disc
	// moves 27.8 a unit of time.
	assert_true(r.t >= first - 1e-5 / 27.0);
	check_answer2(&r, 30.0);
	// The warm query of the step that went wrong, against the cold one
	// and the analytic distance.
	double t0 = 0.7767291876925535, t1 = 0.83952688056982605;
	imp_simplex_cache cache;
	memset(&cache, 0, sizeof cache);
	imp_closest2_result c;
	assert_int_equal(imp_closest2(disc, imp_motion2_at(m, t0), box, still.pose, &cache, &c), IMP_OK);
	assert_int_equal(imp_closest2(disc, imp_motion2_at(m, t1), box, still.pose, &cache, &c), IMP_OK);
	double exact = disc_box_distance(imp_motion2_at(m, t1).p, h, hx, hy);
	assert_true(exact > 3e-6 && exact < 3.2e-6);
	assert_true(fabs(c.distance - exact) <= 1e-12);
	// The family: discs of radius 2^-24 to 2^-2 on the finding's path,
	// turning through -2 pi to 2 pi, some missing the box: the answer is
	// a hit exactly when the scan meets the box, and never after it.
	uint64_t s = 0x20;
	int hits = 0;
	for (int i = 0; i < 300; i++) {
		double hr = ldexp(1.0, -2 - (int)(rng_next(&s) % 23));
		imp_shape *u = NULL;
		assert_int_equal(imp_shape_user2(disc_support, &hr, 0.0, &u), IMP_OK);
		imp_vec2 from = {rng_range(&s, 10, 30), rng_range(&s, -8, 8)};
		imp_vec2 to = {rng_range(&s, -10, 10), rng_range(&s, -8, 8)};
		imp_motion2 mu = {imp_pose2_make(from.x, from.y, rng_range(&s, -3.2, 3.2)),
				  {to.x - from.x, to.y - from.y},
				  rng_range(&s, -6.3, 6.3)};
		double tf = disc_box_first(mu, hr, hx, hy);
		imp_toi_options o = imp_default_toi_options();
		o.max_iterations = 1000;
		assert_int_equal(imp_time_of_impact2_ex(u, mu, box, still, 1.0, &o, &r), IMP_OK);
		if (isfinite(tf)) {
			assert_true(r.state == IMP_TOI_HIT || r.state == IMP_TOI_OVERLAPPED);
			assert_true(r.t <= tf);
			hits++;
		} else if (r.state == IMP_TOI_HIT) {
			// A graze within the tolerance (1e-6 of the reaches, under 1e-5).
			assert_true(disc_box_distance(imp_motion2_at(mu, r.t).p, hr, hx, hy) <= 1e-5);
		} else {
			assert_int_equal(r.state, IMP_TOI_SEPARATED);
		}
		imp_shape_destroy(u);
	}
	print_message("turning user discs: %d of 300 meet the box\n", hits);
	assert_true(hits > 100 && hits < 300);
	imp_shape_destroy(disc);
	imp_shape_destroy(box);
}

/// An axis-aligned ellipse's support, as the fuzz target's user ellipse
/// (tests/fuzz/fuzz.c): semi-axes h[0], h[1].
static imp_vec2 ellipse_support(const void *user, imp_vec2 d)
{
	const double *h = user;
	double m = fmax(fabs(d.x), fabs(d.y));
	double x = d.x / m * h[0], y = d.y / m * h[1];
	double l = sqrt(x * x + y * y);
	return imp_vec2_make(x * h[0] / l, y * h[1] / l);
}

/// fuzz_pairwise's crash-cc69d81d (cache.distance, found by this branch's
/// run; it failed before the fixes above too): a flat user ellipse of
/// semi-axes 3.8e-5 x 0.0047 at (12.78125, 0) under the segment from
/// (-1e-9, 12.78125) to (12.78125, 12.78125). The distance is 12.78125 -
/// 0.0047454833984375; the cold query answered 3.8e-8 more (the warm one
/// right), 3e-9 of the scene where collision.h states 1e-9. Its GJK's
/// first support was the ellipse 1.5e-7 aside its top, the second the
/// segment's far end; the edge between them is no nearer in rounding, and
/// the stalled-descent exit stopped there, its gap 1.9e-7 still above the
/// tolerance, when the edge's normal finds the top. Now one or two such
/// level steps go on. The finding, then flat ellipses under segments
/// whose span holds the ellipse's top: cold and warm distances equal the
/// analytic one within 1e-12 of the scene.
static void test_flat_user_ellipse_level_step(void **state)
{
	(void)state;
	double h[2] = {3.814697265625e-05, 0.0047454833984375};
	imp_shape *e = NULL, *seg = NULL;
	assert_int_equal(imp_shape_user2(ellipse_support, h, 0.0, &e), IMP_OK);
	assert_int_equal(imp_shape_segment2(imp_vec2_make(-1e-9, 12.78125), imp_vec2_make(12.78125, 12.78125), &seg),
			 IMP_OK);
	imp_pose2 pe = imp_pose2_make(12.78125, 0, 0), ps = imp_pose2_make(0, 0, 0);
	double exact = 12.78125 - 0.0047454833984375;
	assert_true(fabs(imp_distance2(e, pe, seg, ps, NULL) - exact) <= 1e-12 * 12.8);
	imp_closest2_result c;
	assert_int_equal(imp_closest2(e, pe, seg, ps, NULL, &c), IMP_OK);
	assert_true(fabs(c.distance - exact) <= 1e-12 * 12.8);
	imp_shape_destroy(e);
	imp_shape_destroy(seg);
	uint64_t s = 0xe11;
	for (int i = 0; i < 2000; i++) {
		double hh[2] = {ldexp(rng_range(&s, 1, 2), -(int)(rng_next(&s) % 30)), rng_range(&s, 1e-3, 1.0)};
		double y = rng_range(&s, 1.0, 20.0), cx = rng_range(&s, -5, 20);
		double x0 = cx - rng_range(&s, 1e-9, 20.0), x1 = cx + rng_range(&s, 1e-9, 20.0);
		assert_int_equal(imp_shape_user2(ellipse_support, hh, 0.0, &e), IMP_OK);
		assert_int_equal(imp_shape_segment2(imp_vec2_make(x0, y), imp_vec2_make(x1, y), &seg), IMP_OK);
		pe = imp_pose2_make(cx, 0, 0);
		double want = y - hh[1], scene = fmax(fmax(fabs(x0), fabs(x1)), fmax(fabs(cx), y));
		imp_simplex_cache cache;
		memset(&cache, 0, sizeof cache);
		for (int pass = 0; pass < 3; pass++) {
			double d = imp_distance2(e, pe, seg, ps, pass ? &cache : NULL);
			assert_true(fabs(d - want) <= 1e-12 * scene);
		}
		imp_shape_destroy(e);
		imp_shape_destroy(seg);
	}
}

static void test_separated_parallel_and_touching(void **state)
{
	(void)state;
	imp_shape *a = NULL, *b = NULL;
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &a), IMP_OK);
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &b), IMP_OK);
	imp_toi2_result r;
	// Apart and moving apart.
	imp_motion2 ma = {imp_pose2_make(0, 0, 0), {-1, 0}, 0.0}, mb = {imp_pose2_make(3, 0, 0), {1, 0}, 0.0};
	assert_int_equal(imp_time_of_impact2(a, ma, b, mb, 10.0, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_SEPARATED);
	assert_true(r.t == 10.0);
	// The balls of the boxes' reach never come within the tolerance: no
	// query, and the balls' gap where the centres pass closest (at t = 0).
	assert_true(r.iterations == 0);
	assert_true(fabs(r.distance - (3.0 - sqrt(2.0))) <= 1e-15);
	assert_true(r.normal.x == 1.0 && r.normal.y == 0.0);
	assert_true(fabs(r.point_a.x - sqrt(0.5)) <= 1e-15 && fabs(r.point_b.x - (3.0 - sqrt(0.5))) <= 1e-15);
	// Moving apart but with balls that overlap: one query, whose
	// separation never falls.
	mb.pose = imp_pose2_make(1.2, 0, 0);
	assert_int_equal(imp_time_of_impact2(a, ma, b, mb, 10.0, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_SEPARATED);
	assert_true(r.iterations == 1);
	mb.pose = imp_pose2_make(3, 0, 0);
	// Sliding past side by side, never closer than 1.
	ma.v = (imp_vec2){0, 0};
	mb = (imp_motion2){imp_pose2_make(-5, 2, 0), {10, 0}, 0.0};
	assert_int_equal(imp_time_of_impact2(a, ma, b, mb, 1.0, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_SEPARATED);
	// Touching at the start.
	mb = (imp_motion2){imp_pose2_make(1, 0, 0), {0, 0}, 0.0};
	assert_int_equal(imp_time_of_impact2(a, ma, b, mb, 1.0, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_OVERLAPPED);
	assert_true(r.t == 0.0);
	// t_max 0: only the start is looked at.
	mb = (imp_motion2){imp_pose2_make(3, 0, 0), {-100, 0}, 0.0};
	assert_int_equal(imp_time_of_impact2(a, ma, b, mb, 0.0, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_SEPARATED);
	assert_true(r.t == 0.0);
	// An iteration limit of 1 stops at once with a lower bound: the time
	// the balls of reach sqrt(0.5) come within the tolerance (2e-6 x
	// sqrt(0.5) here), where the one query is made; the faces touch at
	// 0.02.
	imp_toi_options o = imp_default_toi_options();
	o.max_iterations = 1;
	assert_int_equal(imp_time_of_impact2_ex(a, ma, b, mb, 1.0, &o, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_ITERATION_LIMIT);
	double t_balls = (3.0 - sqrt(2.0) - 1e-6 * sqrt(0.5)) / 100.0;
	assert_true(r.t <= t_balls && r.t >= t_balls * (1.0 - 1e-8));
	assert_true(r.t < 0.02);
	imp_shape_destroy(a);
	imp_shape_destroy(b);
}

/// The motions' poses against long double cosine and sine: angles from 0
/// to 1e6 radians (beyond 1e5 the library falls back to libm), near the
/// multiples of pi/2 where the reduction cancels, tiny and negative ones;
/// the 3D turn about random axes against the same half-angle values.
static void test_motion_poses(void **state)
{
	(void)state;
	uint64_t seed = 0x7a11c0de;
	double worst2 = 0.0, worst3 = 0.0;
	for (int i = 0; i < 200000; ++i) {
		double angle;
		switch (i % 5) {
		case 0: angle = rng_range(&seed, -1.0, 1.0); break;
		case 1: angle = rng_range(&seed, -100.0, 100.0); break;
		case 2: angle = rng_range(&seed, -1e6, 1e6); break;
		case 3: angle = (double)((int)rng_range(&seed, -2000, 2000)) * 1.5707963267948966 + rng_range(&seed, -1e-7, 1e-7); break;
		default: angle = ldexp(rng_range(&seed, -1.0, 1.0), -(int)rng_range(&seed, 10, 1000)); break;
		}
		// 2D: the rotation after t = 1 from the identity is the angle's.
		imp_motion2 m2 = {imp_pose2_identity(), {0.5, -2.0}, angle};
		imp_pose2 p2 = imp_motion2_at(m2, 1.0);
		long double c = cosl((long double)angle), s = sinl((long double)angle);
		worst2 = fmax(worst2, fmax(fabs((double)(p2.q.c - c)), fabs((double)(p2.q.s - s))));
		assert_true(p2.p.x == 0.5 && p2.p.y == -2.0);
		// 3D: about a random axis with |w| = |angle|; the half-angle's
		// cosine is w of the quaternion, its sine the axis part's length.
		imp_vec3 axis = {rng_range(&seed, -1, 1), rng_range(&seed, -1, 1), rng_range(&seed, -1, 1)};
		double l = imp_vec3_length(axis);
		if (!(l > 0.1))
			continue;
		imp_vec3 w = imp_vec3_scale(fabs(angle) / l, axis);
		double speed = imp_vec3_length(w);
		imp_motion3 m3 = {imp_pose3_identity(), {0, 0, 0}, w};
		imp_pose3 p3 = imp_motion3_at(m3, 1.0);
		long double ch = cosl(0.5L * speed), sh = sinl(0.5L * speed);
		double vlen = sqrt(p3.q.x * p3.q.x + p3.q.y * p3.q.y + p3.q.z * p3.q.z);
		worst3 = fmax(worst3, fmax(fabs((double)(p3.q.w - ch)), fabs((double)(vlen - fabsl(sh)))));
	}
	// An ulp or two of a value at most 1 (2.2e-16 each), and the 3D axis
	// part's length adds its own rounding.
	assert_true(worst2 <= 5e-16);
	assert_true(worst3 <= 8e-16);
	// No turn leaves the rotation as it was, bit for bit.
	imp_pose2 q0 = imp_pose2_make(1, 2, 0.3);
	imp_motion2 still = {q0, {1, 1}, 0.0};
	imp_pose2 r0 = imp_motion2_at(still, 0.25);
	assert_true(r0.q.c == q0.q.c && r0.q.s == q0.q.s);
	imp_motion2 spin = {q0, {1, 1}, 3.0};
	r0 = imp_motion2_at(spin, 0.0);
	assert_true(r0.q.c == q0.q.c && r0.q.s == q0.q.s);
	// Beyond double's trigonometry: NaN, never a crash.
	imp_motion2 wild = {q0, {0, 0}, INFINITY};
	r0 = imp_motion2_at(wild, 1.0);
	assert_true(isnan(r0.q.c) && isnan(r0.q.s));
}

static void test_errors(void **state)
{
	(void)state;
	imp_shape *a2 = NULL, *a3 = NULL;
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &a2), IMP_OK);
	assert_int_equal(imp_shape_box3(0.5, 0.5, 0.5, 0.0, &a3), IMP_OK);
	imp_motion2 m2 = {imp_pose2_make(0, 0, 0), {1, 0}, 0.0};
	imp_motion3 m3 = {{{0, 0, 0}, imp_quat_identity()}, {1, 0, 0}, {0, 0, 0}};
	imp_toi2_result r2, keep2;
	imp_toi3_result r3, keep3;
	memset(&r2, 0x5a, sizeof r2);
	memset(&r3, 0x5a, sizeof r3);
	keep2 = r2;
	keep3 = r3;
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, m2, 1.0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_time_of_impact2(NULL, m2, a2, m2, 1.0, &r2), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_time_of_impact2(a3, m2, a2, m2, 1.0, &r2), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_time_of_impact3(a2, m3, a3, m3, 1.0, &r3), IMP_ERR_DIMENSION_MISMATCH);
	imp_motion2 bad2 = m2;
	bad2.v.y = NAN;
	assert_int_equal(imp_time_of_impact2(a2, bad2, a2, m2, 1.0, &r2), IMP_ERR_NOT_FINITE);
	bad2 = m2;
	bad2.w = INFINITY;
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, bad2, 1.0, &r2), IMP_ERR_NOT_FINITE);
	bad2 = m2;
	bad2.v.x = -INFINITY;
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, bad2, 1.0, &r2), IMP_ERR_NOT_FINITE);
	bad2 = m2;
	bad2.pose.q.c = 2.0;
	assert_int_equal(imp_time_of_impact2(a2, bad2, a2, m2, 1.0, &r2), IMP_ERR_BAD_ROTATION);
	bad2 = m2;
	bad2.v.x = 1e149;
	assert_int_equal(imp_time_of_impact2(a2, bad2, a2, m2, 100.0, &r2), IMP_ERR_OUT_OF_RANGE);
	// A turn whose angle over t_max overflows (each part in range): the
	// search's poses would have NaN rotations.
	bad2 = m2;
	bad2.v.x = 0.0;
	bad2.w = 1e150;
	assert_int_equal(imp_time_of_impact2(a2, bad2, a2, m2, 6e158, &r2), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, bad2, 2.0, &r2), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, m2, -1.0, &r2), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, m2, NAN, &r2), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_time_of_impact2(a2, m2, a2, m2, INFINITY, &r2), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_time_of_impact3(a3, m3, a3, m3, -INFINITY, &r3), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_time_of_impact3(a3, m3, a3, m3, -1e-300, &r3), IMP_ERR_OUT_OF_RANGE);
	imp_toi_options o = imp_default_toi_options();
	o.tolerance = -1.0;
	assert_int_equal(imp_time_of_impact2_ex(a2, m2, a2, m2, 1.0, &o, &r2), IMP_ERR_BAD_OPTIONS);
	o = imp_default_toi_options();
	o.max_iterations = 0;
	assert_int_equal(imp_time_of_impact3_ex(a3, m3, a3, m3, 1.0, &o, &r3), IMP_ERR_BAD_OPTIONS);
	imp_motion3 bad3 = m3;
	bad3.w.z = NAN;
	assert_int_equal(imp_time_of_impact3(a3, bad3, a3, m3, 1.0, &r3), IMP_ERR_NOT_FINITE);
	bad3 = m3;
	bad3.v.y = INFINITY;
	assert_int_equal(imp_time_of_impact3(a3, m3, a3, bad3, 1.0, &r3), IMP_ERR_NOT_FINITE);
	bad3 = m3;
	bad3.v.z = 2e150;
	assert_int_equal(imp_time_of_impact3(a3, bad3, a3, m3, 1.0, &r3), IMP_ERR_OUT_OF_RANGE);
	bad3 = m3;
	bad3.v.x = 0.0;
	bad3.w.y = 1e150;
	assert_int_equal(imp_time_of_impact3(a3, bad3, a3, m3, 6e158, &r3), IMP_ERR_OUT_OF_RANGE);
	bad3 = m3;
	bad3.pose.q.w = 0.5;
	assert_int_equal(imp_time_of_impact3(a3, m3, a3, bad3, 1.0, &r3), IMP_ERR_BAD_ROTATION);
	assert_memory_equal(&r2, &keep2, sizeof r2);
	assert_memory_equal(&r3, &keep3, sizeof r3);
	imp_shape_destroy(a2);
	imp_shape_destroy(a3);
}

static double hypot3(double x, double y, double z)
{
	return hypot(hypot(x, y), z);
}

/// The first t >= 0 with |c + u t| <= r, by bisection on lengths taken
/// with hypot (no square of a coordinate), up to the time the centres are
/// closest; INFINITY when they do not come within r.
static double first_contact_bisected(imp_vec3 c, imp_vec3 u, double r)
{
	double speed = hypot3(u.x, u.y, u.z);
	if (hypot3(c.x, c.y, c.z) <= r)
		return 0.0;
	double along = -(c.x * (u.x / speed) + c.y * (u.y / speed) + c.z * (u.z / speed));
	double hi = along / speed;
	if (!(hi > 0.0) || hypot3(c.x + u.x * hi, c.y + u.y * hi, c.z + u.z * hi) > r)
		return INFINITY;
	double lo = 0.0;
	for (int k = 0; k < 400 && lo < hi; k++) {
		double m = 0.5 * (lo + hi);
		if (m <= lo || m >= hi)
			break;
		if (hypot3(c.x + u.x * m, c.y + u.y * m, c.z + u.z * m) <= r)
			hi = m;
		else
			lo = m;
	}
	return hi;
}

/// Fuzz finding 68: two 2D boxes 1e-310 across, one's corner on the
/// other's centre, were called apart by the time of impact (and the
/// world's cast, where motion_free found them in contact): a shape's reach
/// was the square root of a sum of squares, 0 for sizes that small, so the
/// shapes' balls never met and no distance was asked. Boxes, polygons and
/// 3D boxes and polytopes from 1e-300 down to a few subnormal units, each
/// overlapping a copy of itself moved by a fraction of its size, still or
/// moving: overlapped at t = 0.
static void test_subnormal_shapes_overlapped(void **state)
{
	(void)state;
	const double sizes[] = {1e-300, 1e-308, 9.9999999999999694e-311, 1e-315, 1e-320, 2e-322};
	uint64_t seed = 6801;
	int fails = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
		double h = sizes[i];
		for (int kind = 0; kind < 4; ++kind) {
			imp_shape *s = NULL;
			const imp_vec2 tri[3] = {{-h, -h}, {h, -h}, {0.0, h}};
			const imp_vec3 tet[4] = {{-h, -h, -h}, {h, -h, -h}, {0.0, h, -h}, {0.0, 0.0, h}};
			imp_status st = kind == 0   ? imp_shape_box2(h, h, 0.0, &s)
					: kind == 1 ? imp_shape_polygon(tri, 3, 0.0, &s)
					: kind == 2 ? imp_shape_box3(h, h, h, 0.0, &s)
						    : imp_shape_polytope(tet, 4, 0.0, &s);
			assert_int_equal(st, IMP_OK);
			for (int k = 0; k < 20; ++k) {
				double f = (double)(rng_next(&seed) % 1000) / 4000.0, ang = (double)(rng_next(&seed) % 628) / 100.0;
				double v = k % 2 ? 0.0 : h; // still, or moving by its size over the step
				imp_toi_state got;
				if (kind < 2) {
					imp_motion2 ma = {{{0.0, 0.0}, {1.0, 0.0}}, {v, 0.0}, 0.0};
					imp_motion2 mb = {{{f * h, f * h}, {cos(ang), sin(ang)}}, {0.0, v}, 0.0};
					imp_toi2_result r;
					assert_int_equal(imp_time_of_impact2(s, ma, s, mb, 1.0, &r), IMP_OK);
					got = r.state;
				} else {
					imp_motion3 ma = {{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}}, {v, 0.0, 0.0}, {0.0, 0.0, 0.0}};
					imp_motion3 mb = {{{f * h, f * h, f * h}, {0.0, 0.0, sin(0.5 * ang), cos(0.5 * ang)}},
							  {0.0, v, 0.0},
							  {0.0, 0.0, 0.0}};
					imp_toi3_result r;
					assert_int_equal(imp_time_of_impact3(s, ma, s, mb, 1.0, &r), IMP_OK);
					got = r.state;
				}
				if (got != IMP_TOI_OVERLAPPED && ++fails <= 5)
					print_message("size %g, kind %d, case %d: state %d, not overlapped\n", h, kind, k, (int)got);
			}
			imp_shape_destroy(s);
		}
	}
	assert_int_equal(fails, 0);
}

/// Fuzz finding 51: two points (reach 0, so the automatic tolerance was 0)
/// meeting exactly at the end of a motion 1.4e-310 long that turns: the
/// rotation's rounding left them 1.6e-322 apart at t = 1, the time of
/// impact answered separated, and the world's cast called free a motion
/// that motion_free found ending in contact. At every scale, turning or
/// not, 2D and 3D: a hit at t within 1e-9 of 1 (within the tolerance's
/// floor, 64 subnormal units, of it at 1e-320); a motion stopping 1e-3 of
/// its length short is separated (scales down to 1e-300: below, 1e-3 of
/// the scale is a few subnormal units, within the scene's rounding).
static void test_points_meet_at_end(void **state)
{
	(void)state;
	const double scales[] = {1.0, 1e-100, 1e-300, 9.9999999999999694e-311, 2e-310, 1e-320};
	imp_vec3 o3 = {0.0, 0.0, 0.0};
	imp_vec2 o2 = {0.0, 0.0};
	imp_shape *p3 = NULL, *p2 = NULL;
	assert_int_equal(imp_shape_polytope(&o3, 1, 0.0, &p3), IMP_OK);
	assert_int_equal(imp_shape_polygon(&o2, 1, 0.0, &p2), IMP_OK);
	for (size_t i = 0; i < sizeof scales / sizeof scales[0]; ++i) {
		double s = scales[i];
		for (int turn = 0; turn < 2; ++turn) {
			for (int shortfall = 0; shortfall < 2; ++shortfall) {
				if (shortfall && s < 1e-300)
					continue;
				double end = shortfall ? 0.999 : 1.0;
				imp_motion3 ma = {{{0, 0, 0}, {-0.5, -0.5, -0.5, -0.5}},
						  {end * s, end * s, 0.0},
						  {turn ? -1.3833066240278407 : 0.0, turn ? -1.3833066240278402 : 0.0,
						   turn ? 1.3833066240278402 : 0.0}};
				imp_motion3 mb = {{{s, s, 0}, {0, 0, 0, 1}}, {0, 0, 0}, {0, 0, 0}};
				imp_toi3_result r3;
				assert_int_equal(imp_time_of_impact3(p3, ma, p3, mb, 1.0, &r3), IMP_OK);
				imp_motion2 na = {{{0, 0}, {cos(0.3), sin(0.3)}}, {end * s, end * s}, turn ? 2.5 : 0.0};
				imp_motion2 nb = {{{s, s}, {1, 0}}, {0, 0}, 0.0};
				imp_toi2_result r2;
				assert_int_equal(imp_time_of_impact2(p2, na, p2, nb, 1.0, &r2), IMP_OK);
				// The tolerance's floor (2^-1068) is 3% of the path at 1e-320.
				double early = 1.0 - fmax(1e-9, 0x1p-1068 / s);
				bool ok3 = shortfall ? r3.state == IMP_TOI_SEPARATED
						     : r3.state == IMP_TOI_HIT && r3.t >= early && r3.t <= 1.0;
				bool ok2 = shortfall ? r2.state == IMP_TOI_SEPARATED
						     : r2.state == IMP_TOI_HIT && r2.t >= early && r2.t <= 1.0;
				if (!ok3 || !ok2)
					fail_msg("scale %g, turn %d, shortfall %d: 3D state %d at %.17g (distance %g), 2D state "
						 "%d at %.17g (distance %g)",
						 s, turn, shortfall, (int)r3.state, r3.t, r3.distance, (int)r2.state, r2.t,
						 r2.distance);
			}
		}
	}
	imp_shape_destroy(p3);
	imp_shape_destroy(p2);
}

/// fuzz_pairwise (corpus finding-ellipsoid-sphere-huge-toi, toi.stepped_over):
/// a ball of radius 4.1e28 (an ellipsoid of equal semi-axes) moving at
/// 1e150 towards a unit sphere 4.2e28 away was answered a hit at t =
/// 5.55e-126, 2.75e24 deep, where the shapes first touch at 2.77e-126. The
/// closed-form start of the search, the first time the balls of the
/// shapes' reach come within range, squared products of 4e28 and 1e150:
/// the discriminant overflowed to NaN, the root lost its square root and
/// came out twice the first contact. The finding's motion, then 300 balls
/// of radius 1e20 to 1e40 shot at speeds 1e100 to 1e149 at a sphere (and
/// discs at circles in 2D), against the first contact bisected on lengths
/// taken with hypot: the answer is a hit no later than the contact, no
/// earlier than the tolerance allows, and the shapes do not overlap at
/// it beyond 1e-9 of the scene.
static void test_huge_scene_ball_start(void **state)
{
	(void)state;
	uint64_t seed = 0x70190ULL;
	int bad = 0;
	for (int i = 0; i < 301; i++) {
		double ra, rb = 1.0390625, rr = 0.0, gap = 0.0;
		imp_vec3 dir = {1.0, 0.0, 0.0}, aim = {0.0, 0.0, 0.0};
		imp_motion3 ma, mb;
		memset(&ma, 0, sizeof ma);
		memset(&mb, 0, sizeof mb);
		mb.pose = imp_pose3_identity();
		if (i == 0) {
			ra = 4.1016435207885139e+28;
			rr = 2.1411578233870791e-25;
			ma.pose.p = imp_vec3_make(-4.2254375247170519e+28, -4.1016435207885139e+28, -6.0855365500943864e-39);
			ma.pose.q = imp_quat_make(0.0078698694108314277, 0.0, 0.9994734151755913, -0.031479477643325711);
			ma.v = imp_vec3_make(-5.296875, 9.9999999999999998e+149, -4.1016435207885139e+28);
			ma.w = imp_vec3_make(-6.0855365500943864e-39, 0.0, -1.0390625);
			mb.pose.p = imp_vec3_make(-4.1775640622603126e+28, -3.1905737867758856e-33, 1.375);
		} else {
			ra = pow(10.0, rng_range(&seed, 20, 40));
			double th = rng_range(&seed, -3.14159, 3.14159), z = rng_range(&seed, -1, 1);
			dir = imp_vec3_make(sqrt(1 - z * z) * cos(th), sqrt(1 - z * z) * sin(th), z);
			gap = ra * pow(10.0, rng_range(&seed, -6, 1));
			mb.pose.p = imp_vec3_make(rng_range(&seed, -1, 1) * ra, rng_range(&seed, -1, 1) * ra, 0.0);
			ma.pose.p = imp_vec3_sub(mb.pose.p, imp_vec3_scale(ra + rb + gap, dir));
			ma.pose.q = imp_quat_identity();
			// Aimed within half the radius of the sphere's centre.
			aim = imp_vec3_make(rng_range(&seed, -0.5, 0.5) * ra, rng_range(&seed, -0.5, 0.5) * ra,
						     rng_range(&seed, -0.5, 0.5) * ra);
			imp_vec3 to = imp_vec3_sub(imp_vec3_add(mb.pose.p, aim), ma.pose.p);
			double speed = pow(10.0, rng_range(&seed, 100, 149));
			ma.v = imp_vec3_scale(speed / hypot3(to.x, to.y, to.z), to);
		}
		imp_shape *A = NULL, *B = NULL, *Ca = NULL, *Cb = NULL;
		assert_int_equal(imp_shape_ellipsoid(ra, ra, ra, rr, &A), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), rb, &B), IMP_OK);
		double want = first_contact_bisected(imp_vec3_sub(mb.pose.p, ma.pose.p), imp_vec3_sub(mb.v, ma.v), ra + rr + rb);
		assert_true(want > 0.0 && want < 1.0);
		double speed = hypot3(ma.v.x, ma.v.y, ma.v.z);
		double scene = fabs(ma.pose.p.x) + fabs(ma.pose.p.y) + fabs(ma.pose.p.z) + ra + 1.0;
		imp_toi3_result r;
		assert_int_equal(imp_time_of_impact3(A, ma, B, mb, 1.0, &r), IMP_OK);
		// The tolerance is 1e-6 of the reaches: no earlier than that gap
		// allows at this speed.
		double slack = 1e-6 * (ra + rb) / speed;
		bool ok = r.state == IMP_TOI_HIT && r.t <= want && r.t >= want - 2.0 * slack;
		imp_closest3_result c;
		assert_int_equal(imp_closest3(A, imp_motion3_at(ma, r.t), B, imp_motion3_at(mb, r.t), NULL, &c), IMP_OK);
		ok = ok && c.distance >= -1e-9 * scene;
		if (!ok && bad++ < 5)
			print_message("FAIL 3D %d: t %.17g (state %d, %d iterations), first contact %.17g, distance there %.17g\n",
				      i, r.t, (int)r.state, r.iterations, want, c.distance);
		if (i > 0) {
			// The same in the plane: a disc at a circle.
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), ra, &Ca), IMP_OK);
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), rb, &Cb), IMP_OK);
			// The 3D motion's gap along its direction in the plane, aimed as
			// near the centre.
			double dl = hypot(dir.x, dir.y);
			imp_vec2 d2 = dl > 1e-3 ? imp_vec2_make(dir.x / dl, dir.y / dl) : imp_vec2_make(1.0, 0.0);
			imp_vec2 from = imp_vec2_make(mb.pose.p.x - (ra + rb + gap) * d2.x, mb.pose.p.y - (ra + rb + gap) * d2.y);
			imp_vec2 to2 = imp_vec2_make(mb.pose.p.x + aim.x - from.x, mb.pose.p.y + aim.y - from.y);
			double s2 = speed / hypot(to2.x, to2.y);
			imp_motion2 na = {imp_pose2_make(from.x, from.y, 0.0), imp_vec2_make(s2 * to2.x, s2 * to2.y), 0.0};
			imp_motion2 nb = {imp_pose2_make(mb.pose.p.x, mb.pose.p.y, 0.0), imp_vec2_make(0, 0), 0.0};
			imp_vec3 c2 = imp_vec3_make(nb.pose.p.x - na.pose.p.x, nb.pose.p.y - na.pose.p.y, 0.0);
			double want2 = first_contact_bisected(c2, imp_vec3_make(-na.v.x, -na.v.y, 0.0), ra + rb);
			imp_toi2_result r2;
			assert_int_equal(imp_time_of_impact2(Ca, na, Cb, nb, 1.0, &r2), IMP_OK);
			double speed2 = hypot(na.v.x, na.v.y), slack2 = 1e-6 * (ra + rb) / speed2;
			bool ok2 = isinf(want2) ? r2.state == IMP_TOI_SEPARATED
					       : r2.state == IMP_TOI_HIT && r2.t <= want2 && r2.t >= want2 - 2.0 * slack2;
			if (ok2 && !isinf(want2)) {
				imp_closest2_result c2r;
				assert_int_equal(imp_closest2(Ca, imp_motion2_at(na, r2.t), Cb, imp_motion2_at(nb, r2.t), NULL, &c2r),
						 IMP_OK);
				ok2 = c2r.distance >= -1e-9 * scene;
			}
			if (!ok2 && bad++ < 5)
				print_message("FAIL 2D %d: t %.17g (state %d), first contact %.17g\n", i, r2.t, (int)r2.state,
					      want2);
			imp_shape_destroy(Ca);
			imp_shape_destroy(Cb);
		}
		imp_shape_destroy(A);
		imp_shape_destroy(B);
	}
	print_message("huge balls at huge speeds: %d of 601 times of impact wrong\n", bad);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discs_and_spheres_closed_form),
		cmocka_unit_test(test_thin_wall_no_tunnelling),
		cmocka_unit_test(test_random_motions_against_scan),
		cmocka_unit_test(test_separated_parallel_and_touching),
		cmocka_unit_test(test_overlapped_start_finite),
		cmocka_unit_test(test_separated_tiny_gap),
		cmocka_unit_test(test_turning_user_disc),
		cmocka_unit_test(test_flat_user_ellipse_level_step),
		cmocka_unit_test(test_motion_poses),
		cmocka_unit_test(test_huge_scene_ball_start),
		cmocka_unit_test(test_points_meet_at_end),
		cmocka_unit_test(test_subnormal_shapes_overlapped),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
