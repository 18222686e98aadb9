// SPDX-License-Identifier: MIT
// Warm and cold answers (issue 20, defect 15): collision.h promises that a
// query given a simplex cache answers as one without, within stated
// tolerances. Random pairs of every shape kind, 2D and 3D, separated and
// overlapping, are queried cold (no cache) and warm, with a cache left by
// the same pair at a nearby previous pose, as a simulator's step leaves it;
// Levels 1, 2 and 3 are compared:
//   - Level 1 (overlap): equal, except within the distance tolerance of
//     touching;
//   - separated distances (Levels 2 and 3): within WARM_DISTANCE_TOL of the
//     scene's size;
//   - penetration depths: within WARM_DEPTH_TOL of the scene (curved cores
//     start their penetration from the cold simplex: before, a warm one led
//     the depth descent to another stop, 3.3e-6 of the scene away).
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

/// The tolerances collision.h states, relative to the scene's size (the
/// largest coordinate of the two shapes' bounding boxes).
#define WARM_DISTANCE_TOL 1e-9
#define WARM_DEPTH_TOL 1e-9

typedef struct rng {
	uint64_t s;
} rng;

static double uniform(rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (double)((r->s * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double between(rng *r, double lo, double hi)
{
	double u = uniform(r);
	return lo + (hi - lo) * u;
}

static int below(rng *r, int n)
{
	int k = (int)(uniform(r) * n);
	return k < n ? k : n - 1;
}

/// The worst differences seen, over the scene's size, for the report.
typedef struct worst {
	double level2, separated, depth_curved, depth_poly;
	int pairs, overlapping, curved_overlapping, failures;
} worst;

static void fail_pair(worst *w, const char *what, int i, double cold, double warm, double scene)
{
	if (w->failures++ < 12)
		print_message("%s, pair %d: cold %.17g, warm %.17g (scene %.3g)\n", what, i, cold, warm, scene);
}

// ---------------------------------------------------------------------------
// 2D.

static imp_shape *shape2(rng *r, bool *curved)
{
	imp_shape *s = NULL;
	int kind = below(r, 6);
	double rad = uniform(r) < 0.5 ? 0.0 : between(r, 0.05, 0.5);
	double w = between(r, 0.2, 1.5);
	double h = between(r, 0.2, 1.5);
	*curved = false;
	switch (kind) {
	case 0:
		imp_shape_circle(imp_vec2_make(0.0, 0.0), w, &s);
		break;
	case 1:
		imp_shape_capsule2(imp_vec2_make(-w, 0.0), imp_vec2_make(w, 0.0), h * 0.5, &s);
		break;
	case 2:
		imp_shape_box2(w, h, rad, &s);
		break;
	case 3: {
		imp_vec2 p[24];
		int n = 3 + below(r, 20);
		for (int i = 0; i < n; ++i) {
			double a = between(r, 0.0, 6.283185307179586);
			double l = between(r, 0.3, 1.0);
			p[i] = imp_vec2_make(w * l * cos(a), h * l * sin(a));
		}
		imp_shape_polygon(p, n, rad, &s);
		break;
	}
	case 4:
		imp_shape_segment2(imp_vec2_make(-w, -h), imp_vec2_make(w, h), &s);
		break;
	default: {
		imp_vec2 p[3] = {{-w, -h}, {w, -h}, {0.0, h}};
		imp_shape_polygon(p, 3, rad, &s);
		break;
	}
	}
	return s;
}

static imp_pose2 pose2(rng *r, double reach)
{
	imp_pose2 p;
	p.p.x = between(r, -reach, reach);
	p.p.y = between(r, -reach, reach);
	p.q = imp_rot2_make(between(r, -3.14159, 3.14159));
	return p;
}

/// The pose moved a little: a step of a simulation.
static imp_pose2 nudge2(rng *r, imp_pose2 p, double step)
{
	imp_pose2 m = p;
	m.p.x += between(r, -step, step);
	m.p.y += between(r, -step, step);
	double a = atan2(p.q.s, p.q.c) + between(r, -step, step);
	m.q = imp_rot2_make(a);
	return m;
}

static void test_warm2(void **state)
{
	(void)state;
	rng r = {0x6A09E667F3BCC908ULL};
	worst w = {0};
	for (int i = 0; i < 12000; ++i) {
		bool ca, cb;
		imp_shape *a = shape2(&r, &ca), *b = shape2(&r, &cb);
		assert_non_null(a);
		assert_non_null(b);
		imp_pose2 pa = pose2(&r, 1.0), pb = pose2(&r, 2.5);
		int how = below(&r, 4);
		double step = how == 0 ? 0.0 : how == 1 ? 1e-3 : how == 2 ? 5e-2 : 0.5;
		imp_pose2 pa0 = nudge2(&r, pa, step), pb0 = nudge2(&r, pb, step);
		imp_aabb2 ba, bb;
		imp_shape_aabb2(a, pa, &ba);
		imp_shape_aabb2(b, pb, &bb);
		double scene = 0.0;
		imp_vec2 corners[4] = {ba.lo, ba.hi, bb.lo, bb.hi};
		for (int k = 0; k < 4; ++k)
			scene = fmax(scene, fmax(fabs(corners[k].x), fabs(corners[k].y)));
		for (int level = 1; level <= 3; ++level) {
			imp_simplex_cache cache = {0};
			imp_closest2_result prev;
			// The cache as the previous step leaves it.
			if (level == 1)
				imp_overlap2(a, pa0, b, pb0, &cache);
			else if (level == 2)
				imp_distance2(a, pa0, b, pb0, &cache);
			else
				imp_closest2(a, pa0, b, pb0, &cache, &prev);
			if (level == 1) {
				bool cold = imp_overlap2(a, pa, b, pb, NULL), warm = imp_overlap2(a, pa, b, pb, &cache);
				double d = imp_distance2(a, pa, b, pb, NULL);
				if (cold != warm && d > WARM_DISTANCE_TOL * scene)
					fail_pair(&w, "2D overlap", i, cold, warm, scene);
			} else if (level == 2) {
				double cold = imp_distance2(a, pa, b, pb, NULL), warm = imp_distance2(a, pa, b, pb, &cache);
				double e = fabs(cold - warm) / scene;
				w.level2 = fmax(w.level2, e);
				if (!(e <= WARM_DISTANCE_TOL))
					fail_pair(&w, "2D distance", i, cold, warm, scene);
			} else {
				imp_closest2_result cold, warm;
				assert_int_equal(imp_closest2(a, pa, b, pb, NULL, &cold), IMP_OK);
				assert_int_equal(imp_closest2(a, pa, b, pb, &cache, &warm), IMP_OK);
				double e = fabs(cold.distance - warm.distance) / scene;
				bool over = cold.distance < 0.0 || warm.distance < 0.0;
				double tol = WARM_DISTANCE_TOL;
				if (over) {
					++w.overlapping;
					w.depth_poly = fmax(w.depth_poly, e);
				} else {
					w.separated = fmax(w.separated, e);
				}
				if (!(e <= tol))
					fail_pair(&w, over ? "2D depth" : "2D separated distance", i, cold.distance,
						  warm.distance, scene);
			}
		}
		++w.pairs;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	print_message("2D: %d pairs (%d overlapping); warm - cold over the scene: distance %.3g, separated %.3g, "
		      "depth %.3g\n",
		      w.pairs, w.overlapping, w.level2, w.separated, w.depth_poly);
	assert_int_equal(w.failures, 0);
}

// ---------------------------------------------------------------------------
// 3D.

static imp_quat quat(rng *r)
{
	double x = between(r, -1.0, 1.0);
	double y = between(r, -1.0, 1.0);
	double z = between(r, -1.0, 1.0);
	double s = between(r, -1.0, 1.0);
	double l = sqrt(x * x + y * y + z * z + s * s);
	return imp_quat_make(x / l, y / l, z / l, s / l);
}

static imp_shape *shape3(rng *r, bool *curved)
{
	imp_shape *s = NULL;
	int kind = below(r, 8);
	double rad = uniform(r) < 0.5 ? 0.0 : between(r, 0.05, 0.4);
	double e0 = between(r, 0.2, 1.5);
	double e1 = between(r, 0.2, 1.5);
	double e2 = between(r, 0.2, 1.5);
	if (uniform(r) < 0.25)
		e2 *= 0.05; // flat
	if (uniform(r) < 0.15)
		e1 *= 0.05; // a needle, with the above
	*curved = kind >= 4 && kind <= 6;
	switch (kind) {
	case 0:
		*curved = true; // a sphere's core is a point: its depth is in closed form, but curved for C
		imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), e0, &s);
		break;
	case 1:
		imp_shape_capsule3(imp_vec3_make(-e0, 0.0, 0.0), imp_vec3_make(e0, 0.0, 0.0), e1 * 0.5, &s);
		*curved = true;
		break;
	case 2:
		imp_shape_box3(e0, e1, e2, rad, &s);
		break;
	case 3: {
		imp_vec3 p[24];
		int n = 4 + below(r, 20);
		for (int i = 0; i < n; ++i) {
			double x = between(r, -1.0, 1.0);
			double y = between(r, -1.0, 1.0);
			double z = between(r, -1.0, 1.0);
			p[i] = imp_vec3_make(e0 * x, e1 * y, e2 * z);
		}
		imp_shape_polytope(p, n, rad, &s);
		break;
	}
	case 4:
		imp_shape_cylinder(e0, e1, rad, &s);
		break;
	case 5:
		imp_shape_cone(e0, e1, rad, &s);
		break;
	case 6:
		imp_shape_ellipsoid(e0, e1, e2, rad, &s);
		break;
	default: {
		imp_vec3 p[4] = {{e0, 0.0, 0.0}, {0.0, e1, 0.0}, {0.0, 0.0, e2}, {-e0, -e1, -e2}};
		imp_shape_polytope(p, 4, rad, &s);
		break;
	}
	}
	return s;
}

static imp_pose3 pose3(rng *r, double reach)
{
	imp_pose3 p;
	p.p.x = between(r, -reach, reach);
	p.p.y = between(r, -reach, reach);
	p.p.z = between(r, -reach, reach);
	p.q = quat(r);
	return p;
}

static imp_pose3 nudge3(rng *r, imp_pose3 p, double step)
{
	imp_pose3 m = p;
	m.p.x += between(r, -step, step);
	m.p.y += between(r, -step, step);
	m.p.z += between(r, -step, step);
	imp_vec3 axis = imp_vec3_make(between(r, -1.0, 1.0), between(r, -1.0, 1.0), between(r, -1.0, 1.0));
	double l = sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
	if (l > 0.0) {
		imp_quat t = imp_quat_from_axis_angle(imp_vec3_scale(1.0 / l, axis), between(r, -step, step));
		m.q = imp_quat_mul(t, p.q);
		double n = sqrt(m.q.x * m.q.x + m.q.y * m.q.y + m.q.z * m.q.z + m.q.w * m.q.w);
		m.q = imp_quat_make(m.q.x / n, m.q.y / n, m.q.z / n, m.q.w / n);
	}
	return m;
}

static void test_warm3(void **state)
{
	(void)state;
	rng r = {0xBB67AE8584CAA73BULL};
	worst w = {0};
	for (int i = 0; i < 20000; ++i) {
		bool ca, cb;
		imp_shape *a = shape3(&r, &ca), *b = shape3(&r, &cb);
		assert_non_null(a);
		assert_non_null(b);
		imp_pose3 pa = pose3(&r, 1.0), pb = pose3(&r, 2.5);
		int how = below(&r, 4);
		double step = how == 0 ? 0.0 : how == 1 ? 1e-3 : how == 2 ? 5e-2 : 0.5;
		imp_pose3 pa0 = nudge3(&r, pa, step), pb0 = nudge3(&r, pb, step);
		imp_aabb3 ba, bb;
		imp_shape_aabb3(a, pa, &ba);
		imp_shape_aabb3(b, pb, &bb);
		double scene = 0.0;
		imp_vec3 corners[4] = {ba.lo, ba.hi, bb.lo, bb.hi};
		for (int k = 0; k < 4; ++k)
			scene = fmax(scene, fmax(fabs(corners[k].x), fmax(fabs(corners[k].y), fabs(corners[k].z))));
		for (int level = 1; level <= 3; ++level) {
			imp_simplex_cache cache = {0};
			imp_closest3_result prev;
			if (level == 1)
				imp_overlap3(a, pa0, b, pb0, &cache);
			else if (level == 2)
				imp_distance3(a, pa0, b, pb0, &cache);
			else
				imp_closest3(a, pa0, b, pb0, &cache, &prev);
			if (level == 1) {
				bool cold = imp_overlap3(a, pa, b, pb, NULL), warm = imp_overlap3(a, pa, b, pb, &cache);
				double d = imp_distance3(a, pa, b, pb, NULL);
				if (cold != warm && d > WARM_DISTANCE_TOL * scene)
					fail_pair(&w, "3D overlap", i, cold, warm, scene);
			} else if (level == 2) {
				double cold = imp_distance3(a, pa, b, pb, NULL), warm = imp_distance3(a, pa, b, pb, &cache);
				double e = fabs(cold - warm) / scene;
				w.level2 = fmax(w.level2, e);
				if (!(e <= WARM_DISTANCE_TOL))
					fail_pair(&w, "3D distance", i, cold, warm, scene);
			} else {
				imp_closest3_result cold, warm;
				assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &cold), IMP_OK);
				assert_int_equal(imp_closest3(a, pa, b, pb, &cache, &warm), IMP_OK);
				double e = fabs(cold.distance - warm.distance) / scene;
				bool over = cold.distance < 0.0 || warm.distance < 0.0;
				bool curved = ca || cb;
				double tol = over && curved ? WARM_DEPTH_TOL : WARM_DISTANCE_TOL;
				if (over) {
					++w.overlapping;
					if (curved) {
						++w.curved_overlapping;
						w.depth_curved = fmax(w.depth_curved, e);
					} else {
						w.depth_poly = fmax(w.depth_poly, e);
					}
				} else {
					w.separated = fmax(w.separated, e);
				}
				if (!(e <= tol))
					fail_pair(&w, over ? "3D depth" : "3D separated distance", i, cold.distance,
						  warm.distance, scene);
			}
		}
		++w.pairs;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	print_message("3D: %d pairs (%d overlapping, %d of them curved); warm - cold over the scene: distance %.3g, "
		      "separated %.3g, depth %.3g curved, %.3g polytopes\n",
		      w.pairs, w.overlapping, w.curved_overlapping, w.level2, w.separated, w.depth_curved,
		      w.depth_poly);
	assert_int_equal(w.failures, 0);
}

// ---------------------------------------------------------------------------
// Caches that start GJK far from the answer in huge, stretched scenes
// (issue 20, findings 25 and 27). A cache holding anything is harmless
// (collision.h): with every start the answer is the cold one.

/// The scene's size as collision.h measures it.
static double scene3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb)
{
	imp_aabb3 ba, bb;
	imp_shape_aabb3(a, pa, &ba);
	imp_shape_aabb3(b, pb, &bb);
	imp_vec3 corners[4] = {ba.lo, ba.hi, bb.lo, bb.hi};
	double scene = 0.0;
	for (int k = 0; k < 4; ++k)
		scene = fmax(scene, fmax(fabs(corners[k].x), fmax(fabs(corners[k].y), fabs(corners[k].z))));
	return scene;
}

/// A cache holding only a direction, as a query on a curved core leaves it.
static imp_simplex_cache direction_cache(imp_vec3 d)
{
	imp_simplex_cache c;
	memset(&c, 0, sizeof c);
	c.count = 1;
	c.dim = 3;
	for (int k = 0; k < 4; ++k)
		c.index_a[k] = c.index_b[k] = -1;
	c.direction[0] = d.x;
	c.direction[1] = d.y;
	c.direction[2] = d.z;
	return c;
}

/// Levels 2 and 3 with a cache holding each of the 26 directions of the
/// cube's faces, edges and corners: the distance `expect` (Level 3 within
/// `tol`; Level 2 the same clamped at 0), and Level 3's own identity
/// normal . (point_b - point_a) = distance. The worst error found.
static double every_direction(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, double expect,
			      double tol, const char *what)
{
	double worst = 0.0;
	int bad = 0;
	for (int i = -1; i <= 1; ++i)
		for (int j = -1; j <= 1; ++j)
			for (int k = -1; k <= 1; ++k) {
				if (i == 0 && j == 0 && k == 0)
					continue;
				imp_vec3 d = imp_vec3_make(i, j, k);
				imp_simplex_cache c2 = direction_cache(d), c3 = direction_cache(d);
				double d2 = imp_distance3(a, pa, b, pb, &c2);
				imp_closest3_result r;
				assert_int_equal(imp_closest3(a, pa, b, pb, &c3, &r), IMP_OK);
				imp_vec3 ab = imp_vec3_sub(r.point_b, r.point_a);
				double e2 = fabs(d2 - fmax(expect, 0.0)), e3 = fabs(r.distance - expect);
				double along = fabs(imp_vec3_dot(ab, r.normal) - r.distance);
				double e = fmax(e2, fmax(e3, along));
				if (!(e <= tol) && bad++ < 4)
					print_message("%s, cache direction (%d %d %d): Level 2 %.17g, Level 3 %.17g, "
						      "normal . (b - a) %.17g, expected %.17g\n",
						      what, i, j, k, d2, r.distance, imp_vec3_dot(ab, r.normal), expect);
				worst = fmax(worst, e);
			}
	assert_int_equal(bad, 0);
	return worst;
}

/// A step of GJK whose descent is too small for |v|^2's rounding to show
/// (a new vertex 1e8 times farther than v) ended the search as if it had
/// converged: a shape at the origin crossed by a triangle's edge 1.5e29
/// long (distance 0: the edge runs along the z axis, through the shape)
/// answered 1e21 from some starts, 6.7e-9 of the scene. Every start, and a
/// cache left by the same pair 1e22 apart along y, must answer 0.
static void test_warm_stretched_triangle(void **state)
{
	(void)state;
	imp_shape *shapes[4];
	assert_int_equal(imp_shape_cone(1.0, 0.5, 0.0, &shapes[0]), IMP_OK);
	assert_int_equal(imp_shape_cone(0.0625, 1e-15, 0.0, &shapes[1]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(0.5, 0.25, 1.0, 0.0, &shapes[2]), IMP_OK);
	assert_int_equal(imp_shape_cylinder(1.0, 0.5, 0.0, &shapes[3]), IMP_OK);
	imp_pose3 at = imp_pose3_identity();
	double worst = 0.0;
	for (int s = 0; s < 4; ++s)
		for (double x = 1e19; x <= 1e22; x *= 3.1622776601683795) {
			imp_vec3 t[3] = {{0.0, 0.0, -1.5e29}, {0.0, 0.0, 38.0}, {x, 38.0, 109.0}};
			imp_shape *tri;
			assert_int_equal(imp_shape_polytope(t, 3, 0.0, &tri), IMP_OK);
			double scene = scene3(shapes[s], at, tri, at), tol = WARM_DISTANCE_TOL * scene;
			assert_true(imp_distance3(shapes[s], at, tri, at, NULL) <= tol);
			worst = fmax(worst, every_direction(shapes[s], at, tri, at, 0.0, tol, "stretched triangle") / scene);
			// The cache of a step before, the triangle 1e22 away along y.
			imp_pose3 before = at;
			before.p.y = 1e22;
			imp_simplex_cache cache = {0};
			assert_true(imp_distance3(shapes[s], at, tri, before, &cache) > 0.0);
			double d = imp_distance3(shapes[s], at, tri, at, &cache);
			worst = fmax(worst, d / scene);
			if (!(d <= tol))
				print_message("shape %d, x %g: warm from 1e22 apart: %.17g\n", s, x, d);
			assert_true(d <= tol);
			imp_shape_destroy(tri);
		}
	for (int s = 0; s < 4; ++s)
		imp_shape_destroy(shapes[s]);
	print_message("stretched triangle: worst error %.3g of the scene\n", worst);
}

/// The fuzz findings themselves (tests/fuzz/corpus/pairwise): a cache left
/// by the cold Level 3 query, then Level 2 with it. finding-cone-polytope-
/// cache: a cone 0.125 tall against a triangle 1.6e29 long, touching to
/// rounding, answered 2.5e20 warm (0 cold). finding-capsule3-cone-cache: a
/// capsule 2.6e21 long through the rim of a cone 2.1e21 wide and 6.3 tall,
/// touching to rounding, answered 2.4e12 warm.
static void test_warm_findings_cache(void **state)
{
	(void)state;
	imp_pose3 at = imp_pose3_identity();
	int failures = 0;
	for (int f = 0; f < 2; ++f) {
		imp_shape *a, *b;
		imp_pose3 pa = at, pb = at;
		if (f == 0) {
			imp_vec3 t[3] = {{-1.8203125, 3.4885963577522431e+21, -1.5733005685984849e+29},
					 {-9.9999999999999995e-21, -8.1466951240560803e-16, 38.125},
					 {2.5231867272305941e+20, 38.125, 109.0}};
			assert_int_equal(imp_shape_cone(0.0625, 1.0000000000000001e-15, 0.0, &a), IMP_OK);
			assert_int_equal(imp_shape_polytope(t, 3, 0.0, &b), IMP_OK);
		} else {
			assert_int_equal(imp_shape_capsule3(imp_vec3_make(-4.7659820449832649e-26, 109.75,
									  -1.5580292982880778e+21),
							    imp_vec3_make(-2.1483251086467835e+21, 0.0234375, 2.91796875),
							    109.375, &a),
					 IMP_OK);
			assert_int_equal(imp_shape_cone(3.1640625, 2.1483251086467835e+21, 8.4736484495806508e-10, &b),
					 IMP_OK);
			pa.p.x = -4.9591167925315254e-39;
		}
		double scene = scene3(a, pa, b, pb), tol = WARM_DISTANCE_TOL * scene;
		double cold = imp_distance3(a, pa, b, pb, NULL);
		imp_closest3_result r;
		imp_simplex_cache cache = {0};
		assert_int_equal(imp_closest3(a, pa, b, pb, &cache, &r), IMP_OK);
		for (int pass = 0; pass < 2; ++pass) {
			double warm = imp_distance3(a, pa, b, pb, &cache);
			if (!(fabs(warm - cold) <= tol) && failures++ < 4)
				print_message("finding %d, pass %d: warm %.17g, cold %.17g (tolerance %g)\n", f, pass, warm,
					      cold, tol);
		}
		if (failures == 0)
			(void)every_direction(a, pa, b, pb, fmin(cold, 0.0), tol,
					      f == 0 ? "cone-polytope" : "capsule-cone");
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warm2),
		cmocka_unit_test(test_warm3),
		cmocka_unit_test(test_warm_stretched_triangle),
		cmocka_unit_test(test_warm_findings_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
