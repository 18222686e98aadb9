// SPDX-License-Identifier: MIT
// Level 1 of small sharp polygons, which imp_overlap2 answers by the
// separating-axis test (no cache, default options, both cores with area,
// 16 vertices or fewer together): the same answers as the oracle's
// signed distance and as GJK (imp_overlap2_ex with options equal to the
// defaults but not the defaults' own record, which keeps GJK), on random
// pairs apart, overlapping and 1e-9 of the scene from touching, up to 30
// vertices each (the calipers, the start table, the order of axes), on
// exact contacts, on hulls of degenerate point sets, at scales from 1e-25
// to 1e25, at the bounding circles' margin with rotations off unit, and
// on the pairs the test must leave to GJK (points, segments, rounded
// polygons, too many vertices, a cache).
//
// Also Level 2's quick answer for polygons (imp_distance2 with no cache): 0
// without GJK when a point between the two centres lies inside both cores
// by a margin. The same pairs, and pairs made for it (one shape inside
// another, a small shape on a large one, far poses, rotations just off
// unit), against the oracle and against GJK (the same query with a cache,
// which the quick answer leaves to GJK).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "oracle2d.h"

#define V(x, y) imp_vec2_make((x), (y))

static imp_shape *polygon(const imp_vec2 *pts, int n, double radius)
{
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_polygon(pts, n, radius, &s), IMP_OK);
	return s;
}

/// The shape's core vertices in the world at pose.
static int world_vertices(const imp_shape *s, imp_pose2 pose, imp_vec2 *out)
{
	imp_vec2 local[64];
	int n = imp_shape_vertices2(s, local, 64);
	assert_true(n >= 1 && n <= 64);
	orc_transform(pose, local, n, out);
	return n;
}

/// The oracle's signed distance of a and b at their poses.
static double oracle_sd(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	imp_vec2 wa[64], wb[64];
	int na = world_vertices(a, pa, wa), nb = world_vertices(b, pb, wb);
	return orc_signed_distance(wa, na, imp_shape_radius(a), wb, nb, imp_shape_radius(b));
}

/// GJK's Level 1: options equal to the defaults in another record.
static bool gjk_overlap(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	imp_query_options o = imp_default_query_options();
	return imp_overlap2_ex(a, pa, b, pb, NULL, &o);
}

/// A random convex polygon of n points on an ellipse about the origin
/// (scale s), hulled by the library.
static imp_shape *random_polygon(orc_rng *r, int n, double s)
{
	imp_vec2 p[16];
	double rx = orc_range(r, 0.3, 1.5) * s, ry = orc_range(r, 0.3, 1.5) * s;
	for (int i = 0; i < n; i++) {
		double t = orc_range(r, 0.0, 6.283185307179586);
		p[i] = V(rx * cos(t), ry * sin(t));
	}
	return polygon(p, n, 0.0);
}

static imp_pose2 random_pose(orc_rng *r, double spread)
{
	imp_vec2 c = orc_vec(r, -spread, spread, -spread, spread);
	return imp_pose2_make(c.x, c.y, orc_range(r, -3.2, 3.2));
}

/// Moves pb along the closest normal so that the signed distance becomes
/// `target` (GJK's Level 3 gives the normal and the distance).
static imp_pose2 placed_at(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, double target)
{
	imp_closest2_result c;
	assert_int_equal(imp_closest2(a, pa, b, pb, NULL, &c), IMP_OK);
	pb.p = imp_vec2_add(pb.p, imp_vec2_scale(target - c.distance, c.normal));
	return pb;
}

static int checked, undecided;

/// SAT (imp_overlap2 with no cache and no options), GJK and the oracle
/// agree wherever the oracle's distance is beyond rounding of the scene.
static void check_pair(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, double scene)
{
	double sd = oracle_sd(a, pa, b, pb);
	bool sat = imp_overlap2(a, pa, b, pb, NULL);
	bool gjk = gjk_overlap(a, pa, b, pb);
	if (fabs(sd) <= 1e-12 * scene) {
		undecided++;
		return;
	}
	checked++;
	if (sat != (sd <= 0.0) || gjk != (sd <= 0.0))
		fail_msg("sd %.17g (scene %g): SAT says %d, GJK %d", sd, scene, sat, gjk);
}

static void test_random_pairs_agree(void **state)
{
	(void)state;
	orc_rng r = {0x5a72d};
	checked = undecided = 0;
	for (int k = 0; k < 20000; k++) {
		int na = 3 + orc_int(&r, 6), nb = 3 + orc_int(&r, 6);
		imp_shape *a = random_polygon(&r, na, 1.0), *b = random_polygon(&r, nb, 1.0);
		imp_pose2 pa = random_pose(&r, 1.0), pb = random_pose(&r, 3.0);
		check_pair(a, pa, b, pb, 5.0);
		// Near contact, both ways, 1e-9 of the scene.
		check_pair(a, pa, b, placed_at(a, pa, b, pb, 1e-9), 5.0);
		check_pair(a, pa, b, placed_at(a, pa, b, pb, -1e-9), 5.0);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	assert_true(checked > 55000);
	assert_true(undecided < 100);
}

static void check_distance(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, double scene);

static void test_scales(void **state)
{
	(void)state;
	orc_rng r = {0x5ca1e};
	// 1e-25 .. 1e25 go by the SAT (and Level 2's quick answer); 1e-40 and
	// 1e40 by GJK's scaled loops.
	const double scales[] = {1e-40, 1e-25, 1e-8, 1.0, 1e8, 1e25, 1e40};
	for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
		double L = scales[s];
		for (int k = 0; k < 500; k++) {
			imp_shape *a = random_polygon(&r, 3 + orc_int(&r, 6), L);
			imp_shape *b = random_polygon(&r, 3 + orc_int(&r, 6), L);
			imp_pose2 pa = random_pose(&r, L), pb = random_pose(&r, 3.0 * L);
			check_pair(a, pa, b, pb, 5.0 * L);
			check_pair(a, pa, b, placed_at(a, pa, b, pb, 1e-9 * L), 5.0 * L);
			check_pair(a, pa, b, placed_at(a, pa, b, pb, -1e-9 * L), 5.0 * L);
			// Level 2's quick answer on the same pairs, a small shape deep
			// in a large one (the quick answer's point is near the small
			// one's centre), poses far from the origin and rotations off
			// unit by up to 1e-9 in |q|^2, which its margin covers.
			imp_shape *small = random_polygon(&r, 3 + orc_int(&r, 8), 1e-3 * L);
			check_distance(a, pa, b, pb, 5.0 * L);
			check_distance(a, pa, b, placed_at(a, pa, b, pb, -1e-9 * L), 5.0 * L);
			check_distance(a, pa, b, placed_at(a, pa, b, pb, 1e-9 * L), 5.0 * L);
			imp_pose2 ps = random_pose(&r, 0.05 * L);
			ps.p = imp_vec2_add(ps.p, pa.p);
			check_distance(a, pa, small, ps, 5.0 * L);
			check_distance(small, ps, a, pa, 5.0 * L);
			// Far from the origin (1e6 of the shapes' size).
			imp_pose2 fa = pa, fb = pb;
			fa.p = imp_vec2_add(fa.p, V(1e6 * L, -3e6 * L));
			fb.p = imp_vec2_add(fb.p, V(1e6 * L, -3e6 * L));
			check_distance(a, fa, b, fb, 4e6 * L);
			// Rotations whose |q|^2 is 1 -+ 1e-9 (within the pose check).
			double f = 1.0 + (k % 2 ? 4.9e-10 : -4.9e-10);
			imp_pose2 ra = pa, rb = pb;
			ra.q.c *= f;
			ra.q.s *= f;
			rb.q.c /= f;
			rb.q.s /= f;
			check_distance(a, ra, b, rb, 5.0 * L);
			check_distance(a, ra, b, placed_at(a, pa, b, pb, -1e-6 * L), 5.0 * L);
			imp_shape_destroy(a);
			imp_shape_destroy(b);
			imp_shape_destroy(small);
		}
	}
}

// Exact contacts on integer coordinates: an edge on an edge, a corner on a
// corner, a corner on an edge: touching overlaps (Level 1 counts touching),
// and the smallest gap of a double does not.
static void test_exact_contacts(void **state)
{
	(void)state;
	imp_shape *box = NULL, *tri = NULL;
	assert_int_equal(imp_shape_box2(1.0, 1.0, 0.0, &box), IMP_OK);
	imp_vec2 t[] = {V(0, 0), V(2, 0), V(1, 2)};
	tri = polygon(t, 3, 0.0);
	imp_pose2 o = imp_pose2_identity();
	struct {
		imp_pose2 pb;
		const imp_shape *b;
		bool overlap;
	} cases[] = {
		{imp_pose2_make(2.0, 0.0, 0.0), box, true},           // edge on edge
		{imp_pose2_make(2.0, 2.0, 0.0), box, true},           // corner on corner
		{imp_pose2_make(2.0, 0.5, 0.0), box, true},           // edge on edge, shifted
		{imp_pose2_make(nextafter(2.0, 3.0), 0.0, 0.0), box, false},
		{imp_pose2_make(2.0, nextafter(2.0, 3.0), 0.0), box, false},
		{imp_pose2_make(-1.0, 1.0, 0.0), tri, true},          // its base on the box's top edge
		{imp_pose2_make(-1.0, nextafter(1.0, 2.0), 0.0), tri, false},
		{imp_pose2_make(0.0, 0.0, 0.0), box, true},           // coincident
		{imp_pose2_make(-2.0, -3.0, 0.0), tri, true},         // apex on the corner (-1, -1)
		{imp_pose2_make(-2.0, nextafter(-3.0, -4.0), 0.0), tri, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool sat = imp_overlap2(box, o, cases[i].b, cases[i].pb, NULL);
		bool gjk = gjk_overlap(box, o, cases[i].b, cases[i].pb);
		if (sat != cases[i].overlap || gjk != cases[i].overlap)
			fail_msg("case %zu: SAT %d, GJK %d, expected %d", i, sat, gjk, cases[i].overlap);
		// Either order.
		assert_true(imp_overlap2(cases[i].b, cases[i].pb, box, o, NULL) == cases[i].overlap);
	}
	imp_shape_destroy(box);
	imp_shape_destroy(tri);
}

// Point sets with duplicates and collinear points hull to proper polygons
// (the SAT's) or to a segment or a point (GJK's): each answer still the
// oracle's.
static void test_degenerate_inputs(void **state)
{
	(void)state;
	imp_vec2 dup[] = {V(0, 0), V(1, 0), V(1, 0), V(0, 1), V(0, 0), V(0.5, 0)};
	imp_vec2 seg[] = {V(0, 0), V(1, 0), V(0.5, 0), V(1, 0)};
	imp_vec2 pt[] = {V(0.25, 0.25), V(0.25, 0.25)};
	imp_shape *d = polygon(dup, 6, 0.0), *s = polygon(seg, 4, 0.0), *p = polygon(pt, 2, 0.0);
	// Two collinear segments apart along their line: no edge normal of
	// either separates them; the SAT must not be asked.
	imp_pose2 o = imp_pose2_identity();
	assert_false(imp_overlap2(s, o, s, imp_pose2_make(1.5, 0.0, 0.0), NULL));
	assert_true(imp_overlap2(s, o, s, imp_pose2_make(0.5, 0.0, 0.0), NULL));
	// Two points: no axis at all.
	assert_false(imp_overlap2(p, o, p, imp_pose2_make(1e-9, 0.0, 0.0), NULL));
	assert_true(imp_overlap2(p, o, p, o, NULL));
	orc_rng r = {0xd0d0};
	for (int k = 0; k < 3000; k++) {
		const imp_shape *x[] = {d, s, p};
		const imp_shape *a = x[orc_int(&r, 3)], *b = x[orc_int(&r, 3)];
		imp_pose2 pa = random_pose(&r, 0.5), pb = random_pose(&r, 1.5);
		check_pair(a, pa, b, pb, 3.0);
	}
	imp_shape_destroy(d);
	imp_shape_destroy(s);
	imp_shape_destroy(p);
}

// What the SAT does not answer: rounded polygons (the rounding needs
// vertex axes), a cache to keep, options of the caller's. Each is GJK's
// answer, the oracle's. (Up to 32 vertices together: the SAT's since it
// takes 48.)
static void test_left_to_gjk(void **state)
{
	(void)state;
	orc_rng r = {0x6a6a};
	for (int k = 0; k < 3000; k++) {
		int na = 3 + orc_int(&r, 14), nb = 3 + orc_int(&r, 14);
		imp_vec2 pts[16];
		for (int i = 0; i < na; i++)
			pts[i] = orc_vec(&r, -1, 1, -1, 1);
		imp_shape *a = polygon(pts, na, k % 3 == 0 ? 0.1 : 0.0);
		imp_shape *b = random_polygon(&r, nb, 1.0);
		imp_pose2 pa = random_pose(&r, 1.0), pb = random_pose(&r, 3.0);
		check_pair(a, pa, b, pb, 5.0);
		imp_pose2 near = placed_at(a, pa, b, pb, 1e-9);
		check_pair(a, pa, b, near, 5.0);
		// With a cache (GJK, warm-started the second time): the same answer.
		imp_simplex_cache cache;
		memset(&cache, 0, sizeof cache);
		bool first = imp_overlap2(a, pa, b, near, &cache);
		bool again = imp_overlap2(a, pa, b, near, &cache);
		assert_true(first == again && first == imp_overlap2(a, pa, b, near, NULL));
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
}

/// A random convex polygon of up to 32 points on an ellipse about a
/// random centre (scale s), hulled by the library.
static imp_shape *random_polygon_off(orc_rng *r, int n, double s)
{
	imp_vec2 p[32];
	double rx = orc_range(r, 0.2, 1.5) * s, ry = orc_range(r, 0.2, 1.5) * s;
	imp_vec2 c = orc_vec(r, -0.5 * s, 0.5 * s, -0.5 * s, 0.5 * s);
	for (int i = 0; i < n; i++) {
		double t = orc_range(r, 0.0, 6.283185307179586);
		p[i] = V(c.x + rx * cos(t), c.y + ry * sin(t));
	}
	return polygon(p, n, 0.0);
}

// Polygons of 9 to 30 points (the SAT's calipers, its facing vertices
// from the start table and its order of axes; over 48 vertices together
// GJK), local centres off the origin (the bounding circles are about the
// origin, the quick point between the centres): apart, 1e-9 from
// touching either way, overlapping deep (a small one inside a large
// one: Level 2's point tried first) and shallow, at three scales and far
// from the origin. Both orders of each pair.
static void test_large_pairs_agree(void **state)
{
	(void)state;
	orc_rng r = {0x1a29e};
	checked = undecided = 0;
	const double scales[] = {1e-20, 1.0, 1e20};
	for (int k = 0; k < 6000; k++) {
		double L = scales[k % 3];
		int na = 9 + orc_int(&r, 22), nb = 3 + orc_int(&r, 28);
		imp_shape *a = random_polygon_off(&r, na, L), *b = random_polygon_off(&r, nb, orc_range(&r, 0.05, 1.5) * L);
		imp_pose2 pa = random_pose(&r, L), pb = random_pose(&r, 3.0 * L);
		if (k % 5 == 0) {
			pa.p = imp_vec2_add(pa.p, V(1e5 * L, -2e5 * L));
			pb.p = imp_vec2_add(pb.p, V(1e5 * L, -2e5 * L));
		}
		double scene = 5.0 * L + fabs(pa.p.x) + fabs(pa.p.y);
		// 1e-9 of the shapes, or 2e-12 of a scene far from the origin
		// (the oracle's own rounding is 1e-12 of it).
		double gap = fmax(1e-9 * L, 2e-12 * scene);
		const imp_pose2 poses[] = {pb, placed_at(a, pa, b, pb, gap), placed_at(a, pa, b, pb, -gap),
					   placed_at(a, pa, b, pb, -0.1 * L)};
		for (size_t i = 0; i < sizeof poses / sizeof poses[0]; i++) {
			check_pair(a, pa, b, poses[i], scene);
			check_pair(b, poses[i], a, pa, scene);
		}
		imp_pose2 deep = random_pose(&r, 0.3 * L);
		deep.p = imp_vec2_add(deep.p, pa.p);
		check_pair(a, pa, b, deep, scene);
		check_pair(b, deep, a, pa, scene);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	assert_true(checked > 58000);
	assert_true(undecided < 100);
}

// The bounding circles' test with rotations off unit: b's |q| is 1 +
// 4.9e-10 (|q|^2 within the pose check's 1e-9), which moves its corner
// 4.9e-10 farther out than its bound radius says. Corner to corner along
// each diagonal, b's origin 2e-10 beyond the sum of the radii, its corner
// 2.9e-10 inside a's: overlapping; 8e-10 beyond: apart. The test rejected
// the first without its factor 1 + 2^-20.
static void test_circle_margin(void **state)
{
	(void)state;
	imp_shape *box = NULL;
	assert_int_equal(imp_shape_box2(1.0, 1.0, 0.0, &box), IMP_OK);
	const double f = 1.0 + 4.9e-10;
	const imp_vec2 dirs[] = {V(1, 1), V(-1, 1), V(-1, -1), V(1, -1)};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		for (int apart = 0; apart < 2; apart++) {
			double reach = 2.0 + (apart ? 8e-10 : 2e-10);
			imp_pose2 pa = imp_pose2_identity();
			imp_pose2 pb = {V(reach * dirs[i].x, reach * dirs[i].y), {f, 0.0}};
			assert_true(imp_overlap2(box, pa, box, pb, NULL) == !apart);
			// The other order moves a's corner by a's transposed rotation
			// (pose inverses are transposes), not as the world does: the
			// SAT and GJK still agree.
			assert_true(imp_overlap2(box, pb, box, pa, NULL) == gjk_overlap(box, pb, box, pa));
			assert_true(gjk_overlap(box, pa, box, pb) == !apart);
			double sd = oracle_sd(box, pa, box, pb);
			assert_true((sd <= 0.0) == !apart);
		}
	}
	imp_shape_destroy(box);
}

static int quick_checked;

/// Level 2 without a cache (the quick answer where it applies) is the
/// oracle's distance (0 for overlap), GJK's with a cache and GJK's through
/// imp_distance2_stats (neither takes the quick answer), wherever the
/// oracle is beyond rounding of the scene; Level 1 agrees. The quick
/// answer's share is not visible here: a wrong frame for either point, a
/// margin of the wrong sign or an edge left out each failed these tests.
static void check_distance(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, double scene)
{
	double d = imp_distance2(a, pa, b, pb, NULL);
	int it = -1;
	double s = imp_distance2_stats(a, pa, b, pb, NULL, NULL, &it, NULL);
	imp_simplex_cache cache;
	memset(&cache, 0, sizeof cache);
	double g = imp_distance2(a, pa, b, pb, &cache);
	double sd = oracle_sd(a, pa, b, pb);
	if (fabs(sd) <= 1e-12 * scene)
		return;
	quick_checked++;
	double want = sd > 0.0 ? sd : 0.0;
	if (!(fabs(d - want) <= 1e-9 * scene) || !(fabs(g - want) <= 1e-9 * scene) ||
	    !(fabs(s - want) <= 1e-9 * scene))
		fail_msg("oracle %.17g (scene %g): imp_distance2 %.17g, with a cache %.17g, stats %.17g (%d iterations)",
			 sd, scene, d, g, s, it);
	if (sd < 0.0 && !(d == 0.0 && g == 0.0 && s == 0.0))
		fail_msg("oracle %.17g: overlapping pair not at 0 (%.17g %.17g %.17g)", sd, d, g, s);
	assert_true(imp_overlap2(a, pa, b, pb, NULL) == (sd <= 0.0));
}

static void test_quick_distance_random(void **state)
{
	(void)state;
	orc_rng r = {0x9c1c};
	quick_checked = 0;
	for (int k = 0; k < 20000; k++) {
		int na = 3 + orc_int(&r, 14), nb = 3 + orc_int(&r, 14);
		imp_shape *a = random_polygon(&r, na, 1.0), *b = random_polygon(&r, nb, orc_range(&r, 0.05, 2.0));
		imp_pose2 pa = random_pose(&r, 1.0), pb = random_pose(&r, 2.0);
		check_distance(a, pa, b, pb, 5.0);
		check_distance(b, pb, a, pa, 5.0);
		check_distance(a, pa, b, placed_at(a, pa, b, pb, 1e-9), 5.0);
		check_distance(a, pa, b, placed_at(a, pa, b, pb, -1e-9), 5.0);
		check_distance(a, pa, b, placed_at(a, pa, b, pb, -1e-3), 5.0);
		imp_pose2 deep = random_pose(&r, 0.7);
		deep.p = imp_vec2_add(deep.p, pa.p);
		check_distance(a, pa, b, deep, 5.0);
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	assert_true(quick_checked > 115000);
}

// Exact contacts on integer coordinates (touching: 0; one ulp apart: the
// ulp), and the hulls of duplicate and collinear points, segments and
// points, whose centres lie on their boundary or are all of them: no point
// is deep inside a segment, so those go to GJK.
static void test_quick_distance_degenerate(void **state)
{
	(void)state;
	imp_shape *box = NULL;
	assert_int_equal(imp_shape_box2(1.0, 1.0, 0.0, &box), IMP_OK);
	imp_pose2 o = imp_pose2_identity();
	const imp_pose2 touching[] = {imp_pose2_make(2.0, 0.0, 0.0), imp_pose2_make(2.0, 2.0, 0.0),
				      imp_pose2_make(0.0, 2.0, 1.5707963267948966)};
	for (size_t i = 0; i < sizeof touching / sizeof touching[0]; i++) {
		assert_true(imp_distance2(box, o, box, touching[i], NULL) == 0.0);
		imp_pose2 apart = touching[i];
		apart.p.y = nextafter(apart.p.y, 3.0);
		if (apart.p.y == touching[i].p.y || touching[i].p.y == 0.0)
			apart.p.x = nextafter(apart.p.x, 3.0);
		assert_true(imp_distance2(box, o, box, apart, NULL) > 0.0);
	}
	assert_true(imp_distance2(box, o, box, o, NULL) == 0.0); // coincident
	imp_vec2 dup[] = {V(0, 0), V(1, 0), V(1, 0), V(0, 1), V(0, 0), V(0.5, 0)};
	imp_vec2 seg[] = {V(0, 0), V(1, 0), V(0.5, 0), V(1, 0)};
	imp_vec2 pt[] = {V(0.25, 0.25), V(0.25, 0.25)};
	imp_shape *d = polygon(dup, 6, 0.0), *s = polygon(seg, 4, 0.0), *p = polygon(pt, 2, 0.0);
	// A segment through a box's centre, a point at it: 0 (by GJK).
	assert_true(imp_distance2(box, o, s, imp_pose2_make(-0.5, 0.0, 0.0), NULL) == 0.0);
	assert_true(imp_distance2(s, imp_pose2_make(-0.5, 0.0, 0.0), box, o, NULL) == 0.0);
	assert_true(imp_distance2(p, imp_pose2_make(-0.25, -0.25, 0.0), box, o, NULL) == 0.0);
	orc_rng r = {0xdede};
	for (int k = 0; k < 3000; k++) {
		const imp_shape *x[] = {d, s, p, box};
		const imp_shape *a = x[orc_int(&r, 4)], *b = x[orc_int(&r, 4)];
		imp_pose2 pa = random_pose(&r, 0.5), pb = random_pose(&r, 1.5);
		check_distance(a, pa, b, pb, 3.0);
		check_distance(a, pa, b, placed_at(a, pa, b, pb, -1e-9), 3.0);
	}
	imp_shape_destroy(box);
	imp_shape_destroy(d);
	imp_shape_destroy(s);
	imp_shape_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_pairs_agree), cmocka_unit_test(test_scales),
		cmocka_unit_test(test_exact_contacts),	   cmocka_unit_test(test_degenerate_inputs),
		cmocka_unit_test(test_left_to_gjk),	   cmocka_unit_test(test_quick_distance_random),
		cmocka_unit_test(test_quick_distance_degenerate), cmocka_unit_test(test_large_pairs_agree),
		cmocka_unit_test(test_circle_margin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
