// SPDX-License-Identifier: MIT
// Property tests of the 2D narrow phase against the brute-force oracle:
// overlap (level 1), distance (level 2), closest points and penetration
// (level 3), symmetry, rigid-motion invariance, warm and garbage caches,
// support modes, user shapes.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "check2d.h"
#include "oracle2d.h"

#define MAX_IN 24
#define PAIRS 100000

// A random pair: 1..24 input points each, radius 0 in half the cases, b
// placed around a so that about half of the pairs overlap.
static void random_pair(orc_rng *rng, chk_body *a, chk_body *b, bool b_user)
{
	imp_vec2 pts[MAX_IN];
	double scale = pow(10.0, orc_range(rng, -1.0, 1.5));
	int n = chk_random_points(rng, pts, MAX_IN, scale);
	double r = orc_int(rng, 2) ? 0.0 : orc_range(rng, 0.0, 0.5) * scale;
	chk_body_make(a, pts, n, r);
	double scale_b = scale * pow(10.0, orc_range(rng, -0.5, 0.5));
	n = chk_random_points(rng, pts, MAX_IN, scale_b);
	r = orc_int(rng, 2) ? 0.0 : orc_range(rng, 0.0, 0.5) * scale_b;
	if (b_user)
		chk_body_make_user(b, pts, n, r);
	else
		chk_body_make(b, pts, n, r);
	imp_pose2 pa = chk_random_pose(rng, 10.0 * scale);
	double t = orc_range(rng, 0.0, 6.283185307179586);
	double dist = orc_range(rng, 0.0, 1.2) * (scale + scale_b);
	imp_pose2 pb = imp_pose2_make(pa.p.x + dist * cos(t), pa.p.y + dist * sin(t),
				      orc_range(rng, -3.141592653589793, 3.141592653589793));
	chk_body_place(a, pa);
	chk_body_place(b, pb);
}

// Every pair has its own generator, so a failing pair can be rebuilt alone
// from (seed, index): random_pair(pair_rng(seed, i), ...).
static orc_rng pair_rng(uint64_t seed, int i)
{
	orc_rng r = {seed * 0x100000001b3ull + (uint64_t)i * 0x9e3779b97f4a7c15ull};
	orc_next(&r);
	return r;
}

/// Nesterov-accelerated GJK (an option in 2D): same answers.
static imp_query_options nesterov_options(void)
{
	imp_query_options o = imp_default_query_options();
	o.acceleration = IMP_ACCELERATION_NESTEROV;
	return o;
}

static imp_query_options mode_options(imp_support_mode mode)
{
	imp_query_options o = imp_default_query_options();
	o.support = mode;
	return o;
}

static void garbage_cache(orc_rng *rng, imp_simplex_cache *c)
{
	unsigned char *p = (unsigned char *)c;
	for (size_t i = 0; i < sizeof *c; i++)
		p[i] = (unsigned char)orc_next(rng);
	// Half of the time, make it look plausible: a 2D cache whose indices
	// may or may not fit.
	if (orc_int(rng, 2)) {
		c->dim = 2;
		c->count = (uint8_t)(1 + orc_int(rng, 4));
		for (int i = 0; i < 4; i++) {
			int32_t pick[] = {-1, 0, 1, 2, 23, 24, 1000, INT32_MAX, INT32_MIN};
			c->index_a[i] = pick[orc_int(rng, 9)];
			c->index_b[i] = pick[orc_int(rng, 9)];
		}
		double dirs[] = {0.0, NAN, INFINITY, 1e308, -1.0, 1e-300};
		c->direction[0] = dirs[orc_int(rng, 6)];
		c->direction[1] = dirs[orc_int(rng, 6)];
	}
}

// Level 1: imp_overlap2 (with and without cache, both support modes) equals
// the oracle wherever the oracle is not within 1e-9 * scene of contact.
static void test_overlap_random(void **state)
{
	(void)state;
	const uint64_t seed = 0x1001;
	chk_stats st;
	chk_stats_init(&st, "overlap2 random");
	imp_query_options brute = mode_options(IMP_SUPPORT_BRUTE_FORCE);
	imp_query_options climb = mode_options(IMP_SUPPORT_HILL_CLIMB);
	imp_query_options nest = nesterov_options();
	long agree = 0;
	for (int i = 0; i < PAIRS; i++) {
		chk_body a, b;
		orc_rng rng = pair_rng(seed, i);
		random_pair(&rng, &a, &b, false);
		st.pairs++;
		double sd = orc_signed_distance(a.world, a.nh, a.radius, b.world, b.nh, b.radius);
		double sc = orc_scene(a.world, a.nh, a.radius, b.world, b.nh, b.radius);
		imp_simplex_cache cache;
		memset(&cache, 0, sizeof cache);
		bool r0 = imp_overlap2(a.shape, a.pose, b.shape, b.pose, NULL);
		bool r1 = imp_overlap2(a.shape, a.pose, b.shape, b.pose, &cache);
		bool r2 = imp_overlap2(a.shape, a.pose, b.shape, b.pose, &cache); // warm
		bool r3 = imp_overlap2_ex(a.shape, a.pose, b.shape, b.pose, NULL, &brute);
		bool r4 = imp_overlap2_ex(a.shape, a.pose, b.shape, b.pose, NULL, &climb);
		bool r5 = imp_overlap2(b.shape, b.pose, a.shape, a.pose, NULL);
		garbage_cache(&rng, &cache);
		bool r6 = imp_overlap2(a.shape, a.pose, b.shape, b.pose, &cache);
		bool r7 = imp_overlap2_ex(a.shape, a.pose, b.shape, b.pose, NULL, &nest);
		if (fabs(sd) <= 1e-9 * sc) {
			st.near_zero++;
		} else {
			bool want = sd < 0.0;
			st.overlapping += want;
			st.checked++;
			if (r0 != want || r1 != want || r2 != want || r3 != want || r4 != want || r5 != want ||
			    r6 != want || r7 != want)
				chk_fail(&st, &a, &b,
					 "pair %d: oracle sd %.17g (overlap %d); got plain %d, cache %d, warm %d, "
					 "brute %d, climb %d, swapped %d, garbage cache %d, Nesterov %d",
					 i, sd, want, r0, r1, r2, r3, r4, r5, r6, r7);
			else
				agree++;
		}
		chk_body_free(&a);
		chk_body_free(&b);
	}
	chk_stats_print(&st);
	assert_int_equal(st.failures, 0);
	assert_true(st.overlapping > PAIRS / 5 && st.overlapping < PAIRS * 4 / 5);
	assert_int_equal(agree, st.checked);
}

// Level 2: imp_distance2 is max(0, oracle sd) within 1e-12 * scene, exactly 0
// for clear overlaps, never negative; the same with caches, modes, swapped,
// and imp_distance2_stats.
static void test_distance_random(void **state)
{
	(void)state;
	const uint64_t seed = 0x2002;
	chk_stats st;
	chk_stats_init(&st, "distance2 random");
	imp_query_options brute = mode_options(IMP_SUPPORT_BRUTE_FORCE);
	imp_query_options climb = mode_options(IMP_SUPPORT_HILL_CLIMB);
	imp_query_options nest = nesterov_options();
	for (int i = 0; i < PAIRS; i++) {
		chk_body a, b;
		orc_rng rng = pair_rng(seed, i);
		random_pair(&rng, &a, &b, false);
		st.pairs++;
		st.checked++;
		double sd = orc_signed_distance(a.world, a.nh, a.radius, b.world, b.nh, b.radius);
		double sc = orc_scene(a.world, a.nh, a.radius, b.world, b.nh, b.radius);
		double want = fmax(0.0, sd);
		imp_simplex_cache cache;
		memset(&cache, 0, sizeof cache);
		double d[9];
		d[0] = imp_distance2(a.shape, a.pose, b.shape, b.pose, NULL);
		d[1] = imp_distance2(a.shape, a.pose, b.shape, b.pose, &cache);
		d[2] = imp_distance2(a.shape, a.pose, b.shape, b.pose, &cache);
		d[3] = imp_distance2_ex(a.shape, a.pose, b.shape, b.pose, NULL, &brute);
		d[4] = imp_distance2_ex(a.shape, a.pose, b.shape, b.pose, NULL, &climb);
		d[5] = imp_distance2(b.shape, b.pose, a.shape, a.pose, NULL);
		garbage_cache(&rng, &cache);
		d[6] = imp_distance2(a.shape, a.pose, b.shape, b.pose, &cache);
		int iters = -1;
		imp_query_state qs = (imp_query_state)-1;
		d[7] = imp_distance2_stats(a.shape, a.pose, b.shape, b.pose, NULL, NULL, &iters, &qs);
		d[8] = imp_distance2_ex(a.shape, a.pose, b.shape, b.pose, NULL, &nest);
		if (fabs(sd) <= 1e-9 * sc)
			st.near_zero++;
		if (sd < 0.0)
			st.overlapping++;
		double worst = 0.0;
		int wi = -1;
		for (int k = 0; k < 9; k++) {
			double e = fabs(d[k] - want) / sc;
			if (!(e <= worst)) {
				worst = e;
				wi = k;
			}
		}
		if (worst > st.max_dist_err || isnan(worst))
			st.max_dist_err = worst;
		bool bad = !(worst <= st.tol_dist);
		for (int k = 0; k < 9; k++) {
			if (!(d[k] >= 0.0))
				bad = true;
			if (sd < -1e-9 * sc && d[k] != 0.0)
				bad = true;
		}
		if (bad)
			chk_fail(&st, &a, &b,
				 "pair %d: oracle sd %.17g; got %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g "
				 "(plain, cache, warm, brute, climb, swapped, garbage, stats, Nesterov; worst #%d rel "
				 "%.3g)",
				 i, sd, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], wi, worst);
		if (iters > st.max_iterations)
			st.max_iterations = iters;
		if (iters < 1 || iters > imp_default_query_options().max_iterations)
			chk_fail(&st, &a, &b, "pair %d: imp_distance2_stats iterations %d", i, iters);
		if (sd > 1e-9 * sc && qs != IMP_STATE_SEPARATED)
			chk_fail(&st, &a, &b, "pair %d: separated (sd %.17g) but stats state %d", i, sd, (int)qs);
		if (sd < -1e-9 * sc && qs != IMP_STATE_OVERLAPPING)
			chk_fail(&st, &a, &b, "pair %d: overlapping (sd %.17g) but stats state %d", i, sd, (int)qs);
		chk_body_free(&a);
		chk_body_free(&b);
	}
	chk_stats_print(&st);
	assert_int_equal(st.failures, 0);
	assert_true(st.overlapping > PAIRS / 5 && st.overlapping < PAIRS * 4 / 5);
}

// Level 3: every closest result checked against the oracle, including the
// penetration depth (exact SAT depth), the touching move and the
// separating move.
static void test_closest_random(void **state)
{
	(void)state;
	const uint64_t seed = 0x3003;
	chk_stats st;
	chk_stats_init(&st, "closest2 random");
	long unique_n = 0, unique_p = 0;
	for (int i = 0; i < PAIRS; i++) {
		chk_body a, b;
		orc_rng rng = pair_rng(seed, i);
		random_pair(&rng, &a, &b, false);
		st.pairs++;
		orc_result o;
		chk_oracle(&a, &b, &o);
		if (fabs(o.sd) <= 1e-9 * o.scene)
			st.near_zero++;
		if (o.sd < 0.0)
			st.overlapping++;
		unique_n += o.unique_normal;
		unique_p += o.unique_points;
		imp_closest2_result r;
		memset(&r, 0xA5, sizeof r);
		imp_status s = imp_closest2(a.shape, a.pose, b.shape, b.pose, NULL, &r);
		char why[512];
		if (s != IMP_OK)
			chk_fail(&st, &a, &b, "pair %d: status %s", i, imp_status_string(s));
		else if (!chk_closest(&a, &b, &r, &o, true, &st, why, sizeof why))
			chk_fail(&st, &a, &b, "pair %d: %s", i, why);
		chk_body_free(&a);
		chk_body_free(&b);
	}
	chk_stats_print(&st);
	print_message("  unique normals %ld, unique witness pairs %ld\n", unique_n, unique_p);
	assert_int_equal(st.failures, 0);
	assert_true(st.overlapping > PAIRS / 5 && st.overlapping < PAIRS * 4 / 5);
}

static orc_result swap_oracle(const orc_result *o)
{
	orc_result s = *o;
	s.pa = o->pb;
	s.pb = o->pa;
	s.normal = imp_vec2_scale(-1.0, o->normal);
	return s;
}

// Compares a variant's answer with the base answer.
static bool same_answer(const imp_closest2_result *r0, const imp_closest2_result *r, const orc_result *o,
			double tol_dist, char *why, size_t n)
{
	double tol = (o->sd > 0.0 ? tol_dist : 1e-9) * o->scene;
	if (!(fabs(r->distance - r0->distance) <= tol)) {
		snprintf(why, n, "distance %.17g vs base %.17g", r->distance, r0->distance);
		return false;
	}
	if (o->unique_normal && imp_vec2_length(imp_vec2_sub(r->normal, r0->normal)) > 1e-6) {
		snprintf(why, n, "normal (%.17g, %.17g) vs base (%.17g, %.17g)", r->normal.x, r->normal.y,
			 r0->normal.x, r0->normal.y);
		return false;
	}
	if (o->unique_points && (imp_vec2_length(imp_vec2_sub(r->point_a, r0->point_a)) > 1e-6 * o->scene ||
				 imp_vec2_length(imp_vec2_sub(r->point_b, r0->point_b)) > 1e-6 * o->scene)) {
		snprintf(why, n, "witnesses differ from base");
		return false;
	}
	return true;
}

/// One variant of a closest2 query (a cache, options): valid against the
/// oracle and the same answer as the base query r0.
static bool variant_ok(const chk_body *a, const chk_body *b, imp_simplex_cache *cache,
		       const imp_query_options *opt, const orc_result *o, const imp_closest2_result *r0,
		       imp_closest2_result *r, chk_stats *st, char *why, size_t n)
{
	imp_status s = imp_closest2_ex(a->shape, a->pose, b->shape, b->pose, cache, opt, r);
	if (s != IMP_OK) {
		snprintf(why, n, "%s", imp_status_string(s));
		return false;
	}
	return chk_closest(a, b, r, o, false, st, why, n) && same_answer(r0, r, o, st->tol_dist, why, n);
}

// Symmetry, rigid motion, warm cache, garbage cache, support modes: each
// variant must be a valid answer (checked against the oracle) and equal
// the base answer.
static void test_closest_variants(void **state)
{
	(void)state;
	const uint64_t seed = 0x4004;
	chk_stats st;
	chk_stats_init(&st, "closest2 variants");
	imp_query_options brute = mode_options(IMP_SUPPORT_BRUTE_FORCE);
	imp_query_options climb = mode_options(IMP_SUPPORT_HILL_CLIMB);
	imp_query_options climb_auto = mode_options(IMP_SUPPORT_AUTO);
	climb_auto.hill_climb_min_vertices = 3;
	imp_query_options epa = imp_default_query_options();
	epa.penetration = IMP_PENETRATION_EPA;
	long bad_cache = 0;
	for (int i = 0; i < PAIRS; i++) {
		chk_body a, b;
		orc_rng rng = pair_rng(seed, i);
		random_pair(&rng, &a, &b, false);
		st.pairs++;
		orc_result o;
		chk_oracle(&a, &b, &o);
		if (o.sd < 0.0)
			st.overlapping++;
		char why[512];
		imp_closest2_result r0, r;
		const char *variant = "base";
		imp_status s = imp_closest2(a.shape, a.pose, b.shape, b.pose, NULL, &r0);
		if (s != IMP_OK || !chk_closest(&a, &b, &r0, &o, false, &st, why, sizeof why)) {
			chk_fail(&st, &a, &b, "pair %d base: %s", i, s != IMP_OK ? imp_status_string(s) : why);
			goto next;
		}
		// Swapped: same distance, normal negated, witnesses swapped.
		variant = "swapped";
		orc_result os = swap_oracle(&o);
		s = imp_closest2(b.shape, b.pose, a.shape, a.pose, NULL, &r);
		if (s != IMP_OK || !chk_closest(&b, &a, &r, &os, false, &st, why, sizeof why))
			goto fail;
		{
			imp_closest2_result sw = r;
			sw.normal = imp_vec2_scale(-1.0, r.normal);
			sw.point_a = r.point_b;
			sw.point_b = r.point_a;
			if (!same_answer(&r0, &sw, &o, st.tol_dist, why, sizeof why))
				goto fail;
		}
		// Caches: cold, warm from a nearby pose, garbage; and support modes.
		{
			imp_simplex_cache cache;
			memset(&cache, 0, sizeof cache);
			variant = "cache cold";
			if (!variant_ok(&a, &b, &cache, NULL, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			if (cache.dim != 2 || cache.count < 1 || cache.count > 3)
				bad_cache++;
			imp_pose2 pa2 = a.pose, pb2 = b.pose;
			double sc = o.scene;
			pa2.p.x += orc_range(&rng, -0.05, 0.05) * sc;
			double dx = orc_range(&rng, -0.05, 0.05) * sc;
			double dth = orc_range(&rng, -0.2, 0.2);
			pb2 = imp_pose2_mul(pb2, imp_pose2_make(dx, 0.0, dth));
			memset(&cache, 0, sizeof cache);
			imp_closest2(a.shape, pa2, b.shape, pb2, &cache, &r);
			variant = "cache warm";
			if (!variant_ok(&a, &b, &cache, NULL, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			variant = "cache garbage";
			garbage_cache(&rng, &cache);
			if (!variant_ok(&a, &b, &cache, NULL, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			variant = "brute force";
			if (!variant_ok(&a, &b, NULL, &brute, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			variant = "hill climb";
			if (!variant_ok(&a, &b, NULL, &climb, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			variant = "EPA penetration";
			if (!variant_ok(&a, &b, NULL, &epa, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			variant = "hill climb + warm cache";
			memset(&cache, 0, sizeof cache);
			imp_closest2_ex(a.shape, pa2, b.shape, pb2, &cache, &climb_auto, &r);
			if (!variant_ok(&a, &b, &cache, &climb_auto, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
			variant = "hill climb + garbage cache";
			garbage_cache(&rng, &cache);
			if (!variant_ok(&a, &b, &cache, &climb, &o, &r0, &r, &st, why, sizeof why))
				goto fail;
		}
		// A common rigid motion of both poses moves the answer with it.
		{
			variant = "rigid motion";
			imp_pose2 t = chk_random_pose(&rng, 20.0 * o.scene);
			imp_pose2 pa0 = a.pose, pb0 = b.pose;
			chk_body_place(&a, imp_pose2_mul(t, pa0));
			chk_body_place(&b, imp_pose2_mul(t, pb0));
			orc_result om;
			chk_oracle(&a, &b, &om);
			s = imp_closest2(a.shape, a.pose, b.shape, b.pose, NULL, &r);
			if (s != IMP_OK || !chk_closest(&a, &b, &r, &om, false, &st, why, sizeof why))
				goto fail;
			imp_closest2_result back = r;
			back.normal = imp_rot2_apply_inv(t.q, r.normal);
			back.point_a = imp_pose2_apply_inv(t, r.point_a);
			back.point_b = imp_pose2_apply_inv(t, r.point_b);
			orc_result ot = o;
			ot.scene = fmax(o.scene, om.scene);
			ot.unique_normal = o.unique_normal && om.unique_normal;
			ot.unique_points = o.unique_points && om.unique_points;
			// The moved scene is larger: compare at its scale.
			if (!same_answer(&r0, &back, &ot, 1e-12, why, sizeof why))
				goto fail;
		}
		goto next;
	fail:
		chk_fail(&st, &a, &b, "pair %d %s: %s", i, variant, s != IMP_OK ? imp_status_string(s) : why);
	next:
		chk_body_free(&a);
		chk_body_free(&b);
	}
	chk_stats_print(&st);
	if (bad_cache)
		print_message("  %ld caches written with dim != 2 or count outside 1..3\n", bad_cache);
	assert_int_equal(st.failures, 0);
	assert_int_equal(bad_cache, 0);
}

// User shapes: the same polygon through a support callback gives the same
// answers as the built-in polygon (features NONE on the user side).
static void test_user_vs_polygon(void **state)
{
	(void)state;
	const uint64_t seed = 0x5005;
	chk_stats st;
	chk_stats_init(&st, "user vs polygon");
	const int pairs = 20000;
	for (int i = 0; i < pairs; i++) {
		chk_body a, b, bp;
		orc_rng rng = pair_rng(seed, i);
		random_pair(&rng, &a, &b, true);
		chk_body_make(&bp, b.in, b.n_in, b.radius);
		chk_body_place(&bp, b.pose);
		st.pairs++;
		orc_result o;
		chk_oracle(&a, &b, &o);
		if (o.sd < 0.0)
			st.overlapping++;
		orc_result os = swap_oracle(&o);
		char why[512];
		imp_closest2_result ru, rp;
		imp_status s1 = imp_closest2(a.shape, a.pose, b.shape, b.pose, NULL, &ru);
		imp_status s2 = imp_closest2(a.shape, a.pose, bp.shape, bp.pose, NULL, &rp);
		if (s1 != IMP_OK || s2 != IMP_OK) {
			chk_fail(&st, &a, &b, "pair %d: status %d %d", i, (int)s1, (int)s2);
		} else if (!chk_closest(&a, &b, &ru, &o, true, &st, why, sizeof why)) {
			chk_fail(&st, &a, &b, "pair %d user: %s", i, why);
		} else if (!same_answer(&rp, &ru, &o, st.tol_dist, why, sizeof why)) {
			chk_fail(&st, &a, &b, "pair %d user vs polygon: %s", i, why);
		} else if ((s1 = imp_closest2(b.shape, b.pose, a.shape, a.pose, NULL, &ru)) != IMP_OK ||
			   !chk_closest(&b, &a, &ru, &os, true, &st, why, sizeof why)) {
			chk_fail(&st, &a, &b, "pair %d user as shape a: %s", i, s1 != IMP_OK ? "status" : why);
		} else {
			double sc = o.scene;
			double du = imp_distance2(a.shape, a.pose, b.shape, b.pose, NULL);
			bool ou = imp_overlap2(a.shape, a.pose, b.shape, b.pose, NULL);
			double du2 = imp_distance2(b.shape, b.pose, a.shape, a.pose, NULL);
			if (!(fabs(du - fmax(0.0, o.sd)) <= st.tol_dist * sc) ||
			    !(fabs(du2 - fmax(0.0, o.sd)) <= st.tol_dist * sc))
				chk_fail(&st, &a, &b, "pair %d user distance2 %.17g / swapped %.17g, oracle %.17g", i,
					 du, du2, o.sd);
			if (fabs(o.sd) > 1e-9 * sc && ou != (o.sd < 0.0))
				chk_fail(&st, &a, &b, "pair %d user overlap2 %d, oracle sd %.17g", i, ou, o.sd);
		}
		chk_body_free(&a);
		chk_body_free(&b);
		chk_body_free(&bp);
	}
	chk_stats_print(&st);
	assert_int_equal(st.failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_random),
		cmocka_unit_test(test_distance_random),
		cmocka_unit_test(test_closest_random),
		cmocka_unit_test(test_closest_variants),
		cmocka_unit_test(test_user_vs_polygon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
