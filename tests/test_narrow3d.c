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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polytope_pairs),
		cmocka_unit_test(test_invariance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
