// SPDX-License-Identifier: MIT
// Self-checks of the oracle (no library queries): the tests are only as
// good as it is. Its hull against the definition, its SAT against a
// different overlap test, its distance and depth on analytic cases.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check2d.h"
#include "oracle2d.h"

#define V(x, y) imp_vec2_make((x), (y))

static void test_hull_known(void **state)
{
	(void)state;
	imp_vec2 sq[] = {V(0, 0), V(1, 0), V(1, 1), V(0, 1), V(0.5, 0.5), V(0, 0), V(1, 1), V(0.5, 0), V(0.25, 0.75)};
	imp_vec2 h[16];
	assert_int_equal(orc_hull(sq, 9, h), 4);
	assert_true(orc_area(h, 4) == 1.0);
	imp_vec2 line[] = {V(0, 0), V(2, 2), V(1, 1), V(-1, -1), V(0.5, 0.5)};
	assert_int_equal(orc_hull(line, 5, h), 2);
	assert_true((h[0].x == -1 && h[1].x == 2) || (h[0].x == 2 && h[1].x == -1));
	imp_vec2 pt[] = {V(3, 4), V(3, 4), V(3, 4)};
	assert_int_equal(orc_hull(pt, 3, h), 1);
	assert_true(h[0].x == 3 && h[0].y == 4);
	imp_vec2 tri[] = {V(0, 0), V(4, 0), V(0, 4), V(2, 0), V(2, 2), V(0, 2), V(1, 1)};
	assert_int_equal(orc_hull(tri, 7, h), 3);
	assert_true(orc_area(h, 3) == 8.0);
	enum { N = 1024 };
	imp_vec2 *c = malloc(N * sizeof *c), *ch = malloc(N * sizeof *ch);
	for (int i = 0; i < N; i++)
		c[i] = V(cos(2 * 3.141592653589793 * i / N), sin(2 * 3.141592653589793 * i / N));
	assert_int_equal(orc_hull(c, N, ch), N);
	free(c);
	free(ch);
}

// Every hull edge has every input point on its left; vertices are input
// points; counter-clockwise.
static void test_hull_definition(void **state)
{
	(void)state;
	orc_rng rng = {77};
	imp_vec2 p[64], h[64];
	for (int it = 0; it < 20000; it++) {
		int n = chk_random_points(&rng, p, 64, 1.0);
		int nh = orc_hull(p, n, h);
		assert_true(nh >= 1 && nh <= n);
		for (int i = 0; i < nh; i++) {
			bool found = false;
			for (int j = 0; j < n; j++)
				found |= p[j].x == h[i].x && p[j].y == h[i].y;
			assert_true(found);
		}
		if (nh >= 3) {
			// Nearly collinear inputs make slivers whose computed area is
			// rounding noise; the edge test below is what matters.
			assert_true(orc_area(h, nh) > -1e-14);
			for (int i = 0; i < nh; i++) {
				imp_vec2 e = imp_vec2_sub(h[(i + 1) % nh], h[i]);
				for (int j = 0; j < n; j++)
					assert_true(imp_vec2_cross(e, imp_vec2_sub(p[j], h[i])) >= -1e-14);
			}
		} else if (nh == 2) {
			imp_vec2 e = imp_vec2_sub(h[1], h[0]);
			for (int j = 0; j < n; j++)
				assert_true(orc_point_segment(p[j], h[0], h[1], NULL) <= 1e-14 * (1 + imp_vec2_length(e)));
		} else {
			for (int j = 0; j < n; j++)
				assert_true(p[j].x == h[0].x && p[j].y == h[0].y);
		}
	}
}

// SAT against edge intersection + containment; distance bounded below by
// the SAT gap and above by every vertex-vertex distance.
static void test_sat_vs_brute(void **state)
{
	(void)state;
	orc_rng rng = {88};
	imp_vec2 p[24], ha[24], hb[24];
	long checked = 0, overl = 0;
	for (int it = 0; it < 30000; it++) {
		int n = chk_random_points(&rng, p, 24, 1.0);
		int na = orc_hull(p, n, ha);
		n = chk_random_points(&rng, p, 24, 1.0);
		int nb = orc_hull(p, n, hb);
		imp_vec2 shift = orc_vec(&rng, -2, 2, -2, 2);
		for (int i = 0; i < nb; i++)
			hb[i] = imp_vec2_add(hb[i], shift);
		double depth = orc_sat_depth(ha, na, hb, nb, 0.0, NULL, NULL);
		double dist = orc_core_distance(ha, na, hb, nb, NULL, NULL);
		if (fabs(depth) > 1e-9) {
			checked++;
			overl += depth > 0;
			assert_int_equal(depth > 0, orc_overlap_brute(ha, na, hb, nb));
			assert_int_equal(depth > 0, orc_sat_overlap(ha, na, hb, nb));
			assert_int_equal(depth > 0, dist == 0.0);
		}
		if (depth < 0 && !(dist >= -depth - 1e-14))
			print_message("it %d: distance %.17g, SAT gap %.17g (na %d nb %d)\n", it, dist, -depth, na, nb);
		if (depth < 0)
			assert_true(dist >= -depth - 1e-14);
		for (int i = 0; i < na; i++)
			for (int j = 0; j < nb; j++)
				assert_true(dist <= imp_vec2_length(imp_vec2_sub(ha[i], hb[j])) + 1e-15);
		// Symmetry.
		double dist2 = orc_core_distance(hb, nb, ha, na, NULL, NULL);
		assert_true(fabs(dist - dist2) <= 1e-15);
	}
	print_message("oracle SAT vs brute: %ld checked, %ld overlapping\n", checked, overl);
	assert_true(overl > checked / 10 && overl < checked * 9 / 10);
}

static void test_analytic(void **state)
{
	(void)state;
	imp_vec2 a[] = {V(0, 0), V(1, 0), V(1, 1), V(0, 1)};
	imp_vec2 b[] = {V(2, 0.5), V(3, 0.5), V(3, 1.5), V(2, 1.5)};
	imp_vec2 pa, pb;
	assert_true(orc_core_distance(a, 4, b, 4, &pa, &pb) == 1.0);
	assert_true(pa.x == 1.0 && pb.x == 2.0 && pa.y == pb.y && pa.y >= 0.5 && pa.y <= 1.0);
	// Corner to corner: sqrt(2).
	imp_vec2 c[] = {V(2, 2), V(3, 2), V(3, 3), V(2, 3)};
	assert_true(fabs(orc_core_distance(a, 4, c, 4, NULL, NULL) - sqrt(2.0)) < 1e-15);
	// Overlap by 0.25 in x and 0.5 in y: depth 0.25 along +x.
	imp_vec2 d[] = {V(0.75, 0.5), V(1.75, 0.5), V(1.75, 1.5), V(0.75, 1.5)};
	imp_vec2 axis;
	bool uniq;
	assert_true(orc_sat_depth(a, 4, d, 4, 1e-9, &axis, &uniq) == 0.25);
	assert_true(axis.x == 1.0 && axis.y == 0.0 && uniq);
	orc_result o;
	orc_query(a, 4, 0.1, d, 4, 0.2, &o);
	assert_true(fabs(o.sd - (-0.55)) < 1e-15);
	assert_true(fabs(imp_vec2_dot(imp_vec2_sub(o.pb, o.pa), o.normal) - o.sd) < 1e-15);
	// Touching squares: overlap, depth 0.
	imp_vec2 e[] = {V(1, 0), V(2, 0), V(2, 1), V(1, 1)};
	assert_true(orc_sat_overlap(a, 4, e, 4));
	assert_true(orc_core_distance(a, 4, e, 4, NULL, NULL) == 0.0);
	assert_true(orc_sat_depth(a, 4, e, 4, 0.0, NULL, NULL) == 0.0);
	// Segments: collinear apart, parallel apart, crossing.
	imp_vec2 s1[] = {V(0, 0), V(1, 0)}, s2[] = {V(3, 0), V(4, 0)}, s3[] = {V(0, 2), V(1, 2)},
		 s4[] = {V(0.5, -1), V(0.5, 1)};
	assert_true(orc_core_distance(s1, 2, s2, 2, NULL, NULL) == 2.0);
	assert_true(orc_core_distance(s1, 2, s3, 2, NULL, NULL) == 2.0);
	assert_true(!orc_sat_overlap(s1, 2, s2, 2));
	assert_true(orc_sat_overlap(s1, 2, s4, 2));
	assert_true(orc_sat_depth(s1, 2, s4, 2, 0.0, NULL, NULL) == 0.5); // move s4 by 0.5 along x
	// Exact orientation, also where rounding would lie.
	assert_int_equal(orc_orient(V(0, 0), V(1, 1), V(2, 2)), 0);
	assert_int_equal(orc_orient(V(0, 0), V(1, 1), V(2, nextafter(2.0, 3.0))), 1);
	assert_int_equal(orc_orient(V(0, 0), V(1, 1), V(2, nextafter(2.0, 1.0))), -1);
	assert_int_equal(orc_orient(V(0.1, 0.1), V(0.3, 0.3), V(1e8 + 0.5, 1e8 + 0.5)), 0);
	assert_int_equal(orc_orient(V(1e-300, 0), V(0, 1e-300), V(-1e-300, 2e-300)), 0);
	assert_int_equal(orc_orient(V(0, 0), V(3, 1e-300), V(1, 0)), -1);
	// Points.
	imp_vec2 p1[] = {V(0, 0)}, p2[] = {V(3, 4)};
	assert_true(orc_core_distance(p1, 1, p2, 1, NULL, NULL) == 5.0);
	assert_true(orc_sat_overlap(p1, 1, p1, 1));
	assert_true(orc_signed_distance(p1, 1, 1.0, p2, 1, 1.5) == 2.5);
	// Point inside a square: depth 0.25 to the nearest side.
	imp_vec2 p3[] = {V(0.75, 0.5)};
	assert_true(orc_sat_depth(a, 4, p3, 1, 0.0, NULL, NULL) == 0.25);
	assert_true(orc_point_polygon_signed(p3[0], a, 4) == -0.25);
	assert_true(orc_point_polygon(p3[0], a, 4) == 0.0);
	assert_true(orc_point_polygon(V(2, 2), a, 4) == sqrt(2.0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hull_known),
		cmocka_unit_test(test_hull_definition),
		cmocka_unit_test(test_sat_vs_brute),
		cmocka_unit_test(test_analytic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
