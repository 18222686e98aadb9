// SPDX-License-Identifier: MIT
// Shapes: polygon hulls (CCW, strictly convex, contain their input, made of
// input points, same area as the oracle's hull), the helper constructors,
// support points, bounding boxes, user shapes.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "check2d.h"
#include "oracle2d.h"

#define V(x, y) imp_vec2_make((x), (y))
#define PI 3.141592653589793

static int fails;

#define EXPECT_SHOWN 5
#include "test_expect.h"

static bool has_point(const imp_vec2 *p, int n, imp_vec2 q)
{
	for (int i = 0; i < n; i++)
		if (p[i].x == q.x && p[i].y == q.y)
			return true;
	return false;
}

static double max_abs(const imp_vec2 *p, int n)
{
	double s = 0.0;
	for (int i = 0; i < n; i++)
		s = fmax(s, fmax(fabs(p[i].x), fabs(p[i].y)));
	return fmax(s, 1e-300);
}

// Checks the library hull of p[0..n) against the definition and the oracle;
// returns the vertex count. `exact` when the coordinates make every
// orientation test exact (then the count must equal the oracle's).
static int check_hull(const imp_vec2 *p, int n, double radius, bool exact)
{
	imp_shape *s = NULL;
	imp_status st = imp_shape_polygon(p, n, radius, &s);
	EXPECT(st == IMP_OK, "status %s for %d points", imp_status_string(st), n);
	if (st != IMP_OK)
		return -1;
	EXPECT(imp_shape_dim(s) == 2, "dim %d", imp_shape_dim(s));
	EXPECT(imp_shape_kind_of(s) == IMP_SHAPE_POLYGON, "kind %d", imp_shape_kind_of(s));
	EXPECT(imp_shape_radius(s) == radius, "radius %.17g", imp_shape_radius(s));
	int nv = imp_shape_vertex_count(s);
	EXPECT(nv >= 1 && nv <= n, "vertex count %d of %d points", nv, n);
	if (nv < 1 || nv > n) {
		imp_shape_destroy(s);
		return -1;
	}
	imp_vec2 *v = malloc((size_t)nv * sizeof *v);
	imp_vec2 *oh = malloc((size_t)n * sizeof *oh);
	EXPECT(imp_shape_vertices2(s, v, nv) == nv, "vertices2 count");
	double scale = max_abs(p, n);
	for (int i = 0; i < nv; i++) {
		EXPECT(has_point(p, n, v[i]), "vertex %d (%.17g, %.17g) is not an input point", i, v[i].x, v[i].y);
		for (int j = 0; j < i; j++)
			EXPECT(v[i].x != v[j].x || v[i].y != v[j].y, "duplicate vertices %d %d", j, i);
	}
	if (nv >= 3) {
		for (int i = 0; i < nv; i++) {
			imp_vec2 e0 = imp_vec2_sub(v[(i + 1) % nv], v[i]);
			imp_vec2 e1 = imp_vec2_sub(v[(i + 2) % nv], v[(i + 1) % nv]);
			// Exact orientation: a left turn at every vertex, no collinear ones.
			EXPECT(orc_orient(v[i], v[(i + 1) % nv], v[(i + 2) % nv]) > 0,
			       "not strictly convex CCW at vertex %d (cross %.3g): (%.17g, %.17g) (%.17g, %.17g) (%.17g, %.17g)",
			       (i + 1) % nv, imp_vec2_cross(e0, e1), v[i].x, v[i].y, v[(i + 1) % nv].x, v[(i + 1) % nv].y,
			       v[(i + 2) % nv].x, v[(i + 2) % nv].y);
		}
		for (int j = 0; j < n; j++)
			for (int i = 0; i < nv; i++) {
				imp_vec2 e = imp_vec2_sub(v[(i + 1) % nv], v[i]);
				double c = imp_vec2_cross(e, imp_vec2_sub(p[j], v[i]));
				EXPECT(c >= -1e-12 * imp_vec2_length(e) * scale, "point %d outside edge %d by %.3g", j, i,
				       c / imp_vec2_length(e));
			}
	} else if (nv == 2) {
		for (int j = 0; j < n; j++)
			EXPECT(orc_point_segment(p[j], v[0], v[1], NULL) <= 1e-12 * scale,
			       "point %d off the segment hull", j);
	} else {
		for (int j = 0; j < n; j++)
			EXPECT(p[j].x == v[0].x && p[j].y == v[0].y, "point %d differs from the single vertex", j);
	}
	int nh = orc_hull(p, n, oh);
	if (exact)
		EXPECT(nh == nv, "oracle hull has %d vertices, library %d", nh, nv);
	if (nh >= 3 && nv >= 3) {
		double ao = orc_area(oh, nh), al = orc_area(v, nv);
		EXPECT(fabs(ao - al) <= 1e-12 * scale * scale, "area %.17g, oracle %.17g", al, ao);
	} else if ((nh >= 3) != (nv >= 3)) {
		// One of them kept a sliver of nearly collinear points the other
		// dropped: allowed only when the sliver has no area to speak of.
		double sliver = nh >= 3 ? orc_area(oh, nh) : orc_area(v, nv);
		EXPECT(fabs(sliver) <= 1e-12 * scale * scale, "oracle hull %d vertices, library %d, area %.3g", nh, nv,
		       sliver);
	}
	free(v);
	free(oh);
	imp_shape_destroy(s);
	return nv;
}

static void test_hull_known(void **state)
{
	(void)state;
	fails = 0;
	// A square with interior points, points on its edges and duplicates.
	imp_vec2 sq[] = {V(0, 0), V(0.5, 0.5), V(1, 0), V(1, 1), V(0.5, 0), V(0, 1), V(1, 1), V(0, 0),
			 V(0.25, 0.75), V(1, 0.5), V(0, 0.3), V(0.5, 1), V(1, 0)};
	assert_int_equal(check_hull(sq, 13, 0.0, true), 4);
	// A triangle with points on its edges and inside.
	imp_vec2 tri[] = {V(0, 0), V(2, 0), V(4, 0), V(2, 2), V(0, 4), V(0, 2), V(1, 1), V(1, 2)};
	assert_int_equal(check_hull(tri, 8, 0.5, true), 3);
	// Collinear: a segment between the extremes.
	imp_vec2 line[] = {V(1, 1), V(3, 3), V(-2, -2), V(0, 0), V(3, 3), V(2.5, 2.5)};
	assert_int_equal(check_hull(line, 6, 0.0, true), 2);
	imp_shape *s;
	assert_int_equal(imp_shape_polygon(line, 6, 0.0, &s), IMP_OK);
	imp_vec2 v[4];
	assert_int_equal(imp_shape_vertices2(s, v, 4), 2);
	assert_true(has_point(v, 2, V(-2, -2)) && has_point(v, 2, V(3, 3)));
	imp_shape_destroy(s);
	// All points equal: a point (a disc with a radius).
	imp_vec2 same[] = {V(0.3, -7), V(0.3, -7), V(0.3, -7), V(0.3, -7)};
	assert_int_equal(check_hull(same, 4, 0.0, true), 1);
	assert_int_equal(check_hull(same, 4, 2.0, true), 1);
	assert_int_equal(check_hull(same, 1, 0.0, true), 1);
	// Two distinct points (with repeats).
	imp_vec2 two[] = {V(1, 2), V(5, -1), V(1, 2), V(5, -1), V(5, -1)};
	assert_int_equal(check_hull(two, 5, 0.0, true), 2);
	// A pentagon given clockwise is returned counter-clockwise.
	imp_vec2 cw[5];
	for (int i = 0; i < 5; i++)
		cw[i] = V(cos(-2 * PI * i / 5), sin(-2 * PI * i / 5));
	assert_int_equal(check_hull(cw, 5, 0.0, false), 5);
	// Integer grid 7x7: a square of 4 corners.
	imp_vec2 grid[49];
	for (int i = 0; i < 49; i++)
		grid[i] = V(i % 7, i / 7);
	assert_int_equal(check_hull(grid, 49, 0.0, true), 4);
	// 1024 points on a circle: all of them are vertices.
	enum { N = 1024 };
	imp_vec2 *c = malloc(N * sizeof *c);
	for (int i = 0; i < N; i++)
		c[i] = V(100.0 * cos(2 * PI * i / N), 100.0 * sin(2 * PI * i / N));
	assert_int_equal(check_hull(c, N, 0.0, false), N);
	free(c);
	assert_int_equal(fails, 0);
}

static void test_hull_large(void **state)
{
	(void)state;
	fails = 0;
	orc_rng rng = {4242};
	enum { N = 5000 };
	imp_vec2 *p = malloc(N * sizeof *p);
	// Uniform in a disc.
	for (int i = 0; i < N; i++) {
		double r = sqrt(orc_uniform(&rng)), t = orc_range(&rng, 0, 2 * PI);
		p[i] = V(r * cos(t), r * sin(t));
	}
	int nv = check_hull(p, N, 0.0, false);
	print_message("5000 points in a disc: %d hull vertices\n", nv);
	// On a circle, in random order (near-collinear neighbours).
	for (int i = 0; i < N; i++) {
		double t = orc_range(&rng, 0, 2 * PI);
		p[i] = V(1e3 * cos(t), 1e3 * sin(t));
	}
	nv = check_hull(p, N, 0.0, false);
	print_message("5000 points on a circle: %d hull vertices\n", nv);
	// Integer grid, exact: the count must match the oracle.
	for (int i = 0; i < N; i++)
		p[i] = orc_vec(&rng, -500, 500, -500, 500), p[i] = V(floor(p[i].x), floor(p[i].y));
	check_hull(p, N, 0.0, true);
	free(p);
	assert_int_equal(fails, 0);
}

static void test_hull_random(void **state)
{
	(void)state;
	fails = 0;
	orc_rng rng = {999};
	imp_vec2 p[64];
	for (int it = 0; it < 20000; it++) {
		double scale = pow(10.0, orc_range(&rng, -3, 3));
		int n = chk_random_points(&rng, p, 64, scale);
		check_hull(p, n, orc_int(&rng, 2) ? 0.0 : scale * orc_uniform(&rng), false);
		// Integer coordinates: exact orientation tests, so the vertex count
		// is determined.
		for (int i = 0; i < n; i++)
			p[i] = orc_vec(&rng, -4, 5, -4, 5), p[i] = V(floor(p[i].x), floor(p[i].y));
		check_hull(p, n, 0.0, true);
		// Shuffled input: the same vertex set.
		imp_shape *s1, *s2;
		assert_int_equal(imp_shape_polygon(p, n, 0.0, &s1), IMP_OK);
		for (int i = n - 1; i > 0; i--) {
			int j = orc_int(&rng, i + 1);
			imp_vec2 t = p[i];
			p[i] = p[j];
			p[j] = t;
		}
		assert_int_equal(imp_shape_polygon(p, n, 0.0, &s2), IMP_OK);
		imp_vec2 v1[64], v2[64];
		int n1 = imp_shape_vertices2(s1, v1, 64), n2 = imp_shape_vertices2(s2, v2, 64);
		EXPECT(n1 == n2, "shuffled input: %d vs %d vertices", n1, n2);
		for (int i = 0; i < n1 && n1 == n2; i++)
			EXPECT(has_point(v2, n2, v1[i]), "shuffled input: vertex %d missing", i);
		imp_shape_destroy(s1);
		imp_shape_destroy(s2);
		if (fails)
			break;
	}
	assert_int_equal(fails, 0);
}

/// The vertices of shape s (at most 16) must be exactly want[0 .. n) in
/// counter-clockwise order, starting anywhere.
static bool same_ring(const imp_shape *s, const imp_vec2 *want, int n)
{
	imp_vec2 v[16];
	if (imp_shape_vertices2(s, v, 16) != n)
		return false;
	for (int start = 0; start < n; start++) {
		bool same = true;
		for (int i = 0; i < n; i++)
			same = same && v[(start + i) % n].x == want[i].x && v[(start + i) % n].y == want[i].y;
		if (same)
			return true;
	}
	return false;
}

/// Issue 20, defect 4: of (-8, -8), (e, -8), (0, -7), (0, 4.5) the hull is
/// the triangle (-8, -8), (e, -8), (0, 4.5) (analytically: (0, -7) is
/// 0.92 e inside the edge from (e, -8) to (0, 4.5)); with e from 1e-15 down
/// to the least subnormal the monotone chain took the U-turn at (0, 4.5)
/// for a straight run and kept (0, -7) as the top. Every e halving from
/// 1e-15, each under the eight symmetries of the square (which turn the
/// chain's sweep in every direction) and in every input order.
static void test_hull_uturn(void **state)
{
	(void)state;
	int bad = 0, cases = 0;
	static const int perm[24][4] = {
		{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1},
		{1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
		{2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0},
		{3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
	for (double e = 1e-15; e > 0.0; e *= 0.5) {
		imp_vec2 p[4] = {V(-8, -8), V(e, -8), V(0, -7), V(0, 4.5)};
		for (int sym = 0; sym < 8; sym++) {
			imp_vec2 q[4];
			for (int i = 0; i < 4; i++) {
				double x = p[i].x, y = p[i].y;
				if (sym & 1)
					x = -x;
				if (sym & 2)
					y = -y;
				q[i] = sym & 4 ? V(y, x) : V(x, y);
			}
			// A reflection turns the ring clockwise: the hull runs the
			// other way then.
			bool flip = ((sym & 1) != 0) ^ ((sym & 2) != 0) ^ ((sym & 4) != 0);
			imp_vec2 want[3] = {q[0], flip ? q[3] : q[1], flip ? q[1] : q[3]};
			for (int o = 0; o < 24; o += sym == 0 ? 1 : 5) {
				imp_vec2 in[4];
				for (int i = 0; i < 4; i++)
					in[i] = q[perm[o][i]];
				imp_shape *s = NULL;
				assert_int_equal(imp_shape_polygon(in, 4, 0.0, &s), IMP_OK);
				if (!same_ring(s, want, 3) && bad++ < 3) {
					imp_vec2 v[4];
					int n = imp_shape_vertices2(s, v, 4);
					print_message("e %.3g symmetry %d order %d: %d vertices, (%.17g, %.17g) ...\n", e, sym,
						      o, n, v[0].x, v[0].y);
				}
				cases++;
				imp_shape_destroy(s);
			}
		}
	}
	print_message("U-turns: %d of %d hulls wrong\n", bad, cases);
	assert_int_equal(bad, 0);
}

/// A point set near a degenerate one: points on a few lines (through
/// integer points, along integer directions) moved off them by
/// +-k * delta with delta from 2^-52 down to 2^-400, so that turns are
/// decided by a few units of the last place or far below it; U-turns
/// like test_hull_uturn's, and duplicates. Coordinates stay at least
/// delta apart from zero or zero, so that the oracle's expansion
/// arithmetic (products of two coordinates, split with fma) stays exact.
static int near_degenerate_points(orc_rng *rng, imp_vec2 *p, int cap)
{
	int n = 3 + orc_int(rng, cap - 3);
	double delta = ldexp(1.0, -52 - orc_int(rng, 349));
	int lines = 1 + orc_int(rng, 3);
	imp_vec2 o[3], d[3];
	for (int l = 0; l < lines; l++) {
		o[l] = V(orc_int(rng, 17) - 8, orc_int(rng, 17) - 8);
		d[l] = V(orc_int(rng, 9) - 4, orc_int(rng, 9) - 4);
		if (d[l].x == 0 && d[l].y == 0)
			d[l].x = 1;
	}
	for (int i = 0; i < n; i++) {
		int l = orc_int(rng, lines), kind = orc_int(rng, 8);
		double t = orc_int(rng, 9) - 4;
		imp_vec2 q = V(o[l].x + t * d[l].x, o[l].y + t * d[l].y);
		if (kind < 5) { // off the line by a multiple of delta
			double k = (orc_int(rng, 7) - 3) * delta;
			if (orc_int(rng, 2))
				q.x += k;
			else
				q.y += k;
		} else if (kind == 5 && i > 0) { // a duplicate
			q = p[orc_int(rng, i)];
		} else if (kind == 6) { // a U-turn tip far along the line
			q = V(o[l].x + 64 * d[l].x, o[l].y + 64 * d[l].y);
		}
		p[i] = q;
	}
	return n;
}

/// Distance from q to the segment [a, b] in long double (the oracle's
/// precision for the excursion of a dropped point).
static long double segment_distance_ld(imp_vec2 q, imp_vec2 a, imp_vec2 b)
{
	long double ex = (long double)b.x - a.x, ey = (long double)b.y - a.y;
	long double qx = (long double)q.x - a.x, qy = (long double)q.y - a.y;
	long double ee = ex * ex + ey * ey, t = ee > 0 ? (qx * ex + qy * ey) / ee : 0;
	t = t < 0 ? 0 : (t > 1 ? 1 : t);
	long double dx = qx - t * ex, dy = qy - t * ey;
	return sqrtl(dx * dx + dy * dy);
}

/// Issue 20, defect 4, as a property: for near-degenerate point sets every
/// hull vertex is an input point at a strict left turn, by the oracle's
/// exact orientation (expansion arithmetic), and every input point is
/// inside or on the hull by that orientation, or (a point dropped from a
/// nearly straight run, shape.h) outside by at most 1e-13 of the size of
/// the points (distance to the hull's boundary in long double).
static void test_hull_near_degenerate(void **state)
{
	(void)state;
	fails = 0;
	orc_rng rng = {2020};
	enum { CAP = 40 };
	imp_vec2 p[CAP], v[CAP];
	int outside = 0, not_corner = 0, not_input = 0, dropped = 0;
	long double worst = 0;
	for (int it = 0; it < 20000; it++) {
		int n = near_degenerate_points(&rng, p, CAP);
		imp_shape *s = NULL;
		assert_int_equal(imp_shape_polygon(p, n, 0.0, &s), IMP_OK);
		int nv = imp_shape_vertices2(s, v, CAP);
		assert_true(nv >= 1 && nv <= n);
		double lo_x = p[0].x, hi_x = p[0].x, lo_y = p[0].y, hi_y = p[0].y;
		for (int j = 1; j < n; j++) {
			lo_x = fmin(lo_x, p[j].x), hi_x = fmax(hi_x, p[j].x);
			lo_y = fmin(lo_y, p[j].y), hi_y = fmax(hi_y, p[j].y);
		}
		long double size = hypotl((long double)hi_x - lo_x, (long double)hi_y - lo_y);
		for (int i = 0; i < nv; i++)
			not_input += !has_point(p, n, v[i]);
		if (nv >= 3)
			for (int i = 0; i < nv; i++)
				not_corner += orc_orient(v[i], v[(i + 1) % nv], v[(i + 2) % nv]) <= 0;
		for (int j = 0; j < n; j++) {
			bool in = true;
			if (nv >= 3) {
				for (int i = 0; i < nv; i++)
					in = in && orc_orient(v[i], v[(i + 1) % nv], p[j]) >= 0;
			} else if (nv == 2) {
				imp_vec2 a = v[0], b = v[1], q = p[j];
				in = orc_orient(a, b, q) == 0 && segment_distance_ld(q, a, b) == 0;
			} else {
				in = p[j].x == v[0].x && p[j].y == v[0].y;
			}
			if (in)
				continue;
			long double d = INFINITY;
			for (int i = 0; i < nv; i++)
				d = fminl(d, segment_distance_ld(p[j], v[i], v[(i + 1) % nv]));
			dropped++;
			worst = fmaxl(worst, d / size);
			outside += !(d <= 1e-13L * size);
		}
		imp_shape_destroy(s);
	}
	print_message("near-degenerate sets: %d points outside, %d vertices not corners, %d not input points; %d "
		      "points dropped from straight runs, at most %.3Lg of the size outside\n",
		      outside, not_corner, not_input, dropped, worst);
	assert_int_equal(outside, 0);
	assert_int_equal(not_corner, 0);
	assert_int_equal(not_input, 0);
}

/// A shape at the origin against a unit circle at p: the distance `want`
/// at every level, a finite unit normal with normal . (b - a) = distance,
/// and the box [lo, hi] exactly.
static int check_against_unit_circle(imp_shape *s, imp_vec2 p, double want, imp_vec2 lo, imp_vec2 hi)
{
	int bad = 0;
	imp_shape *u = NULL;
	assert_int_equal(imp_shape_circle(V(0, 0), 1.0, &u), IMP_OK);
	imp_pose2 id = {{0, 0}, {1, 0}}, at = {p, {1, 0}};
	imp_aabb2 box;
	bad += imp_shape_aabb2(s, id, &box) != IMP_OK;
	bad += !(box.lo.x == lo.x && box.lo.y == lo.y && box.hi.x == hi.x && box.hi.y == hi.y);
	bad += !(fabs(imp_distance2(s, id, u, at, NULL) - want) <= 1e-12);
	bad += imp_overlap2(s, id, u, at, NULL) != (want <= 0.0);
	imp_closest2_result r;
	bad += imp_closest2(s, id, u, at, NULL, &r) != IMP_OK;
	bad += !(fabs(r.distance - want) <= 1e-12) || !(fabs(imp_vec2_length(r.normal) - 1.0) <= 1e-12);
	bad += !(fabs(imp_vec2_dot(r.normal, imp_vec2_sub(r.point_b, r.point_a)) - r.distance) <= 1e-12);
	imp_shape_destroy(u);
	return bad;
}

/// Issue 20, defect 5's class in 2D: radii and half sizes whose squares
/// underflow (down to the least subnormal). The 2D queries square no
/// size, so these are accepted and answer right (sizes beyond
/// IMP_MAX_COORDINATE are refused).
/// A box thinner than 1e-14 of its width is the segment between two of its
/// corners, at every scale and angle (its corner's projection on the chord
/// rounds to the chord's end, and the hull took it for a true corner: a
/// 4-vertex sliver the narrow phase answered wrong), and a box thicker than
/// 1e-13 keeps its four corners.
static void test_thin_box2(void **state)
{
	(void)state;
	const double scales[] = {1e-200, 1e-120, 1e-3, 1.0, 1e3, 1e120};
	for (int si = 0; si < 6; ++si)
		for (int e = 14; e <= 300; e += 2) {
			double w = scales[si], h = w * pow(10.0, -e);
			if (!(h > 0.0))
				continue;
			imp_shape *s = NULL;
			assert_int_equal(imp_shape_box2(w, h, 0.0, &s), IMP_OK);
			imp_vec2 v[8];
			int n = imp_shape_vertices2(s, v, 8);
			if (n != 2)
				fail_msg("box %.17g x %.17g: %d vertices, expected 2", w, h, n);
			imp_shape_destroy(s);
		}
	for (int si = 0; si < 6; ++si) {
		double w = scales[si];
		imp_shape *s = NULL;
		assert_int_equal(imp_shape_box2(w, w * 1e-13, 0.0, &s), IMP_OK);
		assert_int_equal(imp_shape_vertex_count(s), 4);
		imp_shape_destroy(s);
	}
}

static void test_tiny_sizes(void **state)
{
	(void)state;
	const double tiny[] = {1e-151, 1e-200, 1e-300, 4.9406564584124654e-324};
	int bad = 0;
	for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++) {
		double t = tiny[i];
		imp_shape *s = NULL;
		assert_int_equal(imp_shape_circle(V(0, 0), t, &s), IMP_OK);
		bad += check_against_unit_circle(s, V(3, 0), 2.0, V(-t, -t), V(t, t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_capsule2(V(0, -1), V(0, 1), t, &s), IMP_OK);
		bad += check_against_unit_circle(s, V(3, 0), 2.0, V(-t, -1 - t), V(t, 1 + t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_box2(1, t, 0.0, &s), IMP_OK);
		bad += check_against_unit_circle(s, V(0, 3), 2.0, V(-1, -t), V(1, t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_box2(1, 1, t, &s), IMP_OK);
		bad += check_against_unit_circle(s, V(0, 3), 1.0, V(-1 - t, -1 - t), V(1 + t, 1 + t));
		imp_shape_destroy(s);
	}
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_circle(V(0, 0), 1e151, &s), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_box2(1e151, 1, 0.0, &s), IMP_ERR_OUT_OF_RANGE);
	assert_null(s);
	print_message("tiny 2D sizes: %d bad answers\n", bad);
	assert_int_equal(bad, 0);
}

static void test_vertices_capacity(void **state)
{
	(void)state;
	imp_vec2 sq[] = {V(0, 0), V(1, 0), V(1, 1), V(0, 1)};
	imp_shape *s;
	assert_int_equal(imp_shape_polygon(sq, 4, 0.0, &s), IMP_OK);
	imp_vec2 out[6];
	for (int i = 0; i < 6; i++)
		out[i] = V(-99, -99);
	assert_int_equal(imp_shape_vertices2(s, out, 2), 4);
	assert_true(has_point(sq, 4, out[0]) && has_point(sq, 4, out[1]));
	for (int i = 2; i < 6; i++)
		assert_true(out[i].x == -99 && out[i].y == -99);
	assert_int_equal(imp_shape_vertices2(s, NULL, 0), 4);
	for (int i = 0; i < 6; i++)
		out[i] = V(-99, -99);
	assert_int_equal(imp_shape_vertices2(s, out, 0), 4);
	for (int i = 0; i < 6; i++)
		assert_true(out[i].x == -99 && out[i].y == -99);
	assert_int_equal(imp_shape_vertices2(s, out, 6), 4);
	for (int i = 4; i < 6; i++)
		assert_true(out[i].x == -99 && out[i].y == -99);
	imp_shape_destroy(s);
}

static void test_helpers(void **state)
{
	(void)state;
	imp_shape *s;
	imp_vec2 v[8];
	// Circle: one vertex at the centre, the radius.
	assert_int_equal(imp_shape_circle(V(1.5, -2), 0.75, &s), IMP_OK);
	assert_int_equal(imp_shape_dim(s), 2);
	assert_int_equal(imp_shape_kind_of(s), IMP_SHAPE_POLYGON);
	assert_int_equal(imp_shape_vertex_count(s), 1);
	assert_int_equal(imp_shape_vertices2(s, v, 8), 1);
	assert_true(v[0].x == 1.5 && v[0].y == -2);
	assert_true(imp_shape_radius(s) == 0.75);
	imp_shape_destroy(s);
	// Capsule: the two end points, the radius.
	assert_int_equal(imp_shape_capsule2(V(-1, 0), V(2, 3), 0.25, &s), IMP_OK);
	assert_int_equal(imp_shape_kind_of(s), IMP_SHAPE_POLYGON);
	assert_int_equal(imp_shape_vertices2(s, v, 8), 2);
	assert_true(has_point(v, 2, V(-1, 0)) && has_point(v, 2, V(2, 3)));
	assert_true(imp_shape_radius(s) == 0.25);
	imp_shape_destroy(s);
	// Segment: a capsule of radius 0.
	assert_int_equal(imp_shape_segment2(V(4, 4), V(-4, 5), &s), IMP_OK);
	assert_int_equal(imp_shape_vertices2(s, v, 8), 2);
	assert_true(has_point(v, 2, V(4, 4)) && has_point(v, 2, V(-4, 5)));
	assert_true(imp_shape_radius(s) == 0.0);
	imp_shape_destroy(s);
	// Box: the four corners, counter-clockwise.
	assert_int_equal(imp_shape_box2(2.0, 0.5, 0.1, &s), IMP_OK);
	assert_int_equal(imp_shape_vertices2(s, v, 8), 4);
	assert_true(has_point(v, 4, V(2, 0.5)) && has_point(v, 4, V(-2, 0.5)) && has_point(v, 4, V(-2, -0.5)) &&
		    has_point(v, 4, V(2, -0.5)));
	assert_true(orc_area(v, 4) == 4.0);
	assert_true(imp_shape_radius(s) == 0.1);
	imp_shape_destroy(s);
	assert_int_equal(imp_shape_box2(1.0, 1.0, 0.0, &s), IMP_OK);
	assert_true(imp_shape_radius(s) == 0.0);
	imp_shape_destroy(s);
}

typedef struct ellipse {
	double a, b;
	imp_vec2 c;
} ellipse;

static imp_vec2 ellipse_support(const void *user, imp_vec2 d)
{
	const ellipse *e = user;
	double k = sqrt(e->a * e->a * d.x * d.x + e->b * e->b * d.y * d.y);
	return V(e->c.x + e->a * e->a * d.x / k, e->c.y + e->b * e->b * d.y / k);
}

static void test_user_shape(void **state)
{
	(void)state;
	ellipse e = {3.0, 1.0, {0.5, -0.25}};
	imp_shape *s;
	assert_int_equal(imp_shape_user2(ellipse_support, &e, 0.5, &s), IMP_OK);
	assert_int_equal(imp_shape_dim(s), 2);
	assert_int_equal(imp_shape_kind_of(s), IMP_SHAPE_USER2);
	assert_int_equal(imp_shape_vertex_count(s), 0);
	imp_vec2 v[2];
	assert_int_equal(imp_shape_vertices2(s, v, 2), 0);
	assert_true(imp_shape_radius(s) == 0.5);
	orc_rng rng = {5};
	for (int it = 0; it < 2000; it++) {
		imp_pose2 pose = chk_random_pose(&rng, 10.0);
		imp_vec2 d = orc_vec(&rng, -1, 1, -1, 1);
		imp_vec2 out;
		assert_int_equal(imp_shape_support2(s, pose, d, &out), IMP_OK);
		imp_vec2 dl = imp_rot2_apply_inv(pose.q, d);
		imp_vec2 want = imp_pose2_apply(pose, ellipse_support(&e, dl));
		want = imp_vec2_add(want, imp_vec2_scale(0.5 / imp_vec2_length(d), d));
		assert_true(imp_vec2_length(imp_vec2_sub(out, want)) <= 1e-12 * 20);
		// Tight box of a rotated ellipse, analytic.
		imp_aabb2 box;
		assert_int_equal(imp_shape_aabb2(s, pose, &box), IMP_OK);
		double c = pose.q.c, sn = pose.q.s;
		double hx = sqrt(9.0 * c * c + 1.0 * sn * sn) + 0.5, hy = sqrt(9.0 * sn * sn + 1.0 * c * c) + 0.5;
		imp_vec2 ctr = imp_pose2_apply(pose, e.c);
		assert_true(fabs(box.lo.x - (ctr.x - hx)) <= 1e-12 * 20);
		assert_true(fabs(box.hi.x - (ctr.x + hx)) <= 1e-12 * 20);
		assert_true(fabs(box.lo.y - (ctr.y - hy)) <= 1e-12 * 20);
		assert_true(fabs(box.hi.y - (ctr.y + hy)) <= 1e-12 * 20);
	}
	imp_shape_destroy(s);
}

// Support points and boxes of random polygons (and the same polygons as
// user shapes) against brute force over the oracle's world hull.
static void test_support_aabb_random(void **state)
{
	(void)state;
	fails = 0;
	orc_rng rng = {31337};
	imp_vec2 p[32];
	double max_err = 0.0;
	for (int it = 0; it < 20000; it++) {
		double scale = pow(10.0, orc_range(&rng, -2, 2));
		int n = chk_random_points(&rng, p, 32, scale);
		double r = orc_int(&rng, 2) ? 0.0 : orc_uniform(&rng) * scale;
		chk_body bodies[2];
		chk_body_make(&bodies[0], p, n, r);
		chk_body_make_user(&bodies[1], p, n, r);
		imp_pose2 pose = chk_random_pose(&rng, 10 * scale);
		for (int k = 0; k < 2; k++) {
			chk_body *b = &bodies[k];
			chk_body_place(b, pose);
			double sc = orc_scene(b->world, b->nh, b->radius, b->world, b->nh, b->radius);
			double tol = 1e-12 * sc;
			imp_vec2 d = orc_vec(&rng, -1, 1, -1, 1);
			if (it % 7 == 0)
				d = orc_vec(&rng, -1, 2, -1, 2), d = V(floor(d.x), floor(d.y)); // axis and diagonal ties
			if (d.x == 0 && d.y == 0)
				d.x = 1e-3;
			double dl = imp_vec2_length(d);
			imp_vec2 out;
			imp_status st = imp_shape_support2(b->shape, pose, d, &out);
			EXPECT(st == IMP_OK, "support2 status %d", (int)st);
			double best = -INFINITY;
			for (int i = 0; i < b->nh; i++)
				best = fmax(best, imp_vec2_dot(b->world[i], d) / dl);
			double got = imp_vec2_dot(out, d) / dl;
			double err = fmax(fabs(got - (best + r)),
					  fabs(orc_point_polygon_signed(out, b->world, b->nh) - r));
			max_err = fmax(max_err, err / sc);
			EXPECT(fabs(got - (best + r)) <= tol, "%s support along (%.17g, %.17g): %.17g, want %.17g",
			       k ? "user" : "polygon", d.x, d.y, got, best + r);
			if (fabs(got - (best + r)) > tol)
				chk_print_body("shape", b);
			EXPECT(fabs(orc_point_polygon_signed(out, b->world, b->nh) - r) <= tol,
			       "support point off the boundary");
			// Scaling the direction changes nothing.
			imp_vec2 out2;
			assert_int_equal(imp_shape_support2(b->shape, pose, imp_vec2_scale(1e6, d), &out2), IMP_OK);
			EXPECT(fabs(imp_vec2_dot(out2, d) / dl - got) <= tol, "support depends on |direction|");
			imp_aabb2 box;
			st = imp_shape_aabb2(b->shape, pose, &box);
			EXPECT(st == IMP_OK, "aabb2 status %d", (int)st);
			double lox = INFINITY, loy = INFINITY, hix = -INFINITY, hiy = -INFINITY;
			for (int i = 0; i < b->nh; i++) {
				lox = fmin(lox, b->world[i].x);
				loy = fmin(loy, b->world[i].y);
				hix = fmax(hix, b->world[i].x);
				hiy = fmax(hiy, b->world[i].y);
			}
			// Contains the shape and touches it on every side.
			EXPECT(box.lo.x <= lox - r + tol && box.lo.x >= lox - r - tol, "%s lo.x %.17g want %.17g",
			       k ? "user" : "polygon", box.lo.x, lox - r);
			EXPECT(box.lo.y <= loy - r + tol && box.lo.y >= loy - r - tol, "lo.y %.17g want %.17g",
			       box.lo.y, loy - r);
			EXPECT(box.hi.x >= hix + r - tol && box.hi.x <= hix + r + tol, "hi.x %.17g want %.17g",
			       box.hi.x, hix + r);
			EXPECT(box.hi.y >= hiy + r - tol && box.hi.y <= hiy + r + tol, "hi.y %.17g want %.17g",
			       box.hi.y, hiy + r);
		}
		chk_body_free(&bodies[0]);
		chk_body_free(&bodies[1]);
		if (fails)
			break;
	}
	print_message("support/aabb: max rel err %.3g\n", max_err);
	assert_int_equal(fails, 0);
}

// Directions of any finite non-zero length are valid: tiny and huge ones
// (whose squared length under- or overflows) give the same support point.
static void test_support_extreme_directions(void **state)
{
	(void)state;
	imp_shape *s[3];
	imp_vec2 tri[] = {V(0, 0), V(2, 0), V(0, 1)};
	assert_int_equal(imp_shape_polygon(tri, 3, 0.0, &s[0]), IMP_OK);
	assert_int_equal(imp_shape_polygon(tri, 3, 0.5, &s[1]), IMP_OK);
	assert_int_equal(imp_shape_circle(V(1, 1), 2.0, &s[2]), IMP_OK);
	imp_pose2 pose = imp_pose2_make(1.0, -2.0, 0.3);
	double scales[] = {1e-300, 1e-200, 1e-160, 1e160, 1e200, 1e300};
	for (int k = 0; k < 3; k++) {
		imp_vec2 ref;
		assert_int_equal(imp_shape_support2(s[k], pose, V(0.6, 0.8), &ref), IMP_OK);
		for (int i = 0; i < 6; i++) {
			imp_vec2 out = V(NAN, NAN);
			imp_status st = imp_shape_support2(s[k], pose, V(0.6 * scales[i], 0.8 * scales[i]), &out);
			if (st != IMP_OK || !(imp_vec2_length(imp_vec2_sub(out, ref)) <= 1e-12 * 10))
				print_message("shape %d, direction scale %g: status %d, (%.17g, %.17g) vs (%.17g, %.17g)\n", k,
					      scales[i], (int)st, out.x, out.y, ref.x, ref.y);
			assert_int_equal(st, IMP_OK);
			assert_true(imp_vec2_length(imp_vec2_sub(out, ref)) <= 1e-12 * 10);
		}
	}
	for (int k = 0; k < 3; k++)
		imp_shape_destroy(s[k]);
}

// The callback gets non-zero finite directions only.
static int bad_directions, calls;
static imp_vec2 watched_support(const void *user, imp_vec2 d)
{
	calls++;
	if (!(isfinite(d.x) && isfinite(d.y)) || (d.x == 0.0 && d.y == 0.0))
		bad_directions++;
	return chk_polygon_support(user, d);
}

static void test_user_directions(void **state)
{
	(void)state;
	orc_rng rng = {17};
	imp_vec2 p[16];
	bad_directions = calls = 0;
	for (int it = 0; it < 3000; it++) {
		int n = chk_random_points(&rng, p, 16, 1.0);
		chk_body b;
		chk_body_make(&b, p, n, 0.0); // for the hull only
		imp_shape *u;
		double r = orc_int(&rng, 2) ? 0.0 : 0.2;
		assert_int_equal(imp_shape_user2(watched_support, &b, r, &u), IMP_OK);
		// Against itself at the same pose (identical shapes: v can be 0), at a
		// touching pose, and at random poses.
		imp_pose2 pose = chk_random_pose(&rng, 2.0);
		imp_pose2 other = orc_int(&rng, 3) == 0 ? pose : chk_random_pose(&rng, 2.0);
		imp_closest2_result res;
		assert_int_equal(imp_closest2(u, pose, u, other, NULL, &res), IMP_OK);
		imp_overlap2(u, pose, u, other, NULL);
		imp_distance2(u, pose, u, other, NULL);
		assert_int_equal(imp_closest2(u, pose, b.shape, other, NULL, &res), IMP_OK);
		imp_vec2 out;
		assert_int_equal(imp_shape_support2(u, pose, V(1e-3, 0), &out), IMP_OK);
		imp_aabb2 box;
		assert_int_equal(imp_shape_aabb2(u, pose, &box), IMP_OK);
		imp_shape_destroy(u);
		chk_body_free(&b);
	}
	print_message("user support: %d calls, %d with a zero or non-finite direction\n", calls, bad_directions);
	assert_true(calls > 0);
	assert_int_equal(bad_directions, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hull_known),
		cmocka_unit_test(test_hull_large),
		cmocka_unit_test(test_hull_random),
		cmocka_unit_test(test_hull_uturn),
		cmocka_unit_test(test_hull_near_degenerate),
		cmocka_unit_test(test_tiny_sizes),
		cmocka_unit_test(test_thin_box2),
		cmocka_unit_test(test_vertices_capacity),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_user_shape),
		cmocka_unit_test(test_support_aabb_random),
		cmocka_unit_test(test_support_extreme_directions),
		cmocka_unit_test(test_user_directions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
