// SPDX-License-Identifier: MIT
// The 3D hill climb's own records (src/shape/shape3_internal.h), an internal
// module: each polytope's climb nodes against its vertices and adjacency,
// its start table against a brute-force support along every cell's centre
// direction, the cell of a direction against a search over all cells, and
// the climb from every start against the brute-force support over all
// vertices; then GJK's distance under the default options (which climb at
// 512 vertices) against brute-force supports. Fixed seeds; degenerate hulls:
// a cone whose apex has more neighbours than a node holds, a flat polygon,
// a prism with many vertices on each cap, duplicate points, points on a
// cube's faces.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "impact/impact.h"
#include "shape/shape3_internal.h"
#include "test_rng.h"

static int fails;

#include "test_expect.h"

/// The greatest v . d over every vertex.
static double brute_max(const imp_shape3 *s, imp_vec3 d)
{
	double best = -INFINITY;
	for (int i = 0; i < s->count; ++i)
		best = fmax(best, imp_vec3_dot(s->v[i], d));
	return best;
}

static imp_vec3 random_direction(rng *r)
{
	for (;;) {
		imp_vec3 d = imp_vec3_make(range(r, -1, 1), range(r, -1, 1), range(r, -1, 1));
		double l = imp_vec3_length(d);
		if (l > 1e-3 && l <= 1.0)
			return d;
	}
}

/// The centre direction of start table cell c, written out from the
/// table's definition: face c / G^2 (axis k / 2, sign - for odd k), grid
/// square (iu, iw) of the face's other two components in the order (y, z),
/// (z, x), (x, y).
static imp_vec3 cell_centre(int c)
{
	const int g = IMP_CLIMB_GRID;
	int k = c / (g * g), iu = c / g % g, iw = c % g;
	double sign = k & 1 ? -1.0 : 1.0;
	double u = -1.0 + 2.0 * (iu + 0.5) / g, w = -1.0 + 2.0 * (iw + 0.5) / g;
	double e[3];
	e[k / 2] = sign;
	e[(k / 2 + 1) % 3] = u;
	e[(k / 2 + 2) % 3] = w;
	return imp_vec3_make(e[0], e[1], e[2]);
}

/// Whether direction d lies in cell c: its largest component (in size) on
/// the cell's axis with the cell's sign, the other two over it within the
/// cell's square (closed, so directions on a border pass either cell).
static bool in_cell(imp_vec3 d, int c)
{
	const int g = IMP_CLIMB_GRID;
	int k = c / (g * g), iu = c / g % g, iw = c % g;
	double e[3] = {d.x, d.y, d.z};
	double m = e[k / 2];
	if ((k & 1) ? m > 0.0 : m < 0.0)
		return false;
	m = fabs(m);
	double u = e[(k / 2 + 1) % 3] / m, w = e[(k / 2 + 2) % 3] / m;
	if (fabs(u) > 1.0 || fabs(w) > 1.0)
		return false;
	double ulo = -1.0 + 2.0 * iu / g, uhi = -1.0 + 2.0 * (iu + 1) / g;
	double wlo = -1.0 + 2.0 * iw / g, whi = -1.0 + 2.0 * (iw + 1) / g;
	const double slack = 1e-12;
	return u >= ulo - slack && u <= uhi + slack && w >= wlo - slack && w <= whi + slack;
}

/// Every check of one shape's climb records and climbs; `name` for messages.
static void check_shape(const imp_shape *shape, const char *name, bool want_nodes, rng *r)
{
	const imp_shape3 *s = imp_shape3_of(shape);
	EXPECT((s->node != NULL) == want_nodes, "%s: %d vertices, nodes %d", name, s->count, s->node != NULL);
	EXPECT((s->start_cell != NULL) == want_nodes, "%s: start table %d", name, s->start_cell != NULL);
	if (s->node != NULL) {
		for (int i = 0; i < s->count; ++i) {
			const imp_climb_node3 *x = &s->node[i];
			EXPECT(x->p.x == s->v[i].x && x->p.y == s->v[i].y && x->p.z == s->v[i].z, "%s: node %d's point",
			       name, i);
			int n = s->adj_start[i + 1] - s->adj_start[i];
			EXPECT(x->n == n, "%s: node %d has %d neighbours, adjacency %d", name, i, x->n, n);
			const uint16_t *nb = x->nb;
			if (x->n > IMP_CLIMB_NODE_NB)
				nb = s->node_more + ((uint32_t)x->nb[0] | (uint32_t)x->nb[1] << 16);
			for (int k = 0; k < n && k < x->n; ++k)
				EXPECT(nb[k] == s->adj[s->adj_start[i] + k], "%s: node %d neighbour %d", name, i, k);
		}
		for (int c = 0; c < IMP_CLIMB_CELLS; ++c) {
			imp_vec3 d = cell_centre(c);
			int i = s->start_cell[c];
			EXPECT(i >= 0 && i < s->count, "%s: cell %d starts at %d", name, c, i);
			if (i >= 0 && i < s->count)
				EXPECT(imp_vec3_dot(s->v[i], d) == brute_max(s, d), "%s: cell %d's vertex %d is no support",
				       name, c, i);
		}
	}
	for (int t = 0; t < 400; ++t) {
		imp_vec3 d = random_direction(r);
		if (t % 4 == 0) // an axis or a diagonal: ties on boxes and prisms
			d = imp_vec3_make(t % 3 == 0, t % 5 < 2 ? -1.0 : 0.0, t % 7 < 3);
		if (d.x == 0.0 && d.y == 0.0 && d.z == 0.0)
			d.z = 1.0;
		int c = imp_climb_cell(d);
		EXPECT(c >= 0 && c < IMP_CLIMB_CELLS && in_cell(d, c), "%s: direction %d in cell %d", name, t, c);
		double want = brute_max(s, d);
		int start = imp_support3_start(s, d);
		EXPECT(start >= 0 && start < s->count, "%s: start %d", name, start);
		int i = imp_support3_climb(s, d, start);
		EXPECT(imp_vec3_dot(s->v[i], d) == want, "%s: direction %d: climbed to %.17g, support %.17g", name, t,
		       imp_vec3_dot(s->v[i], d), want);
		// From any vertex.
		int j = imp_support3_climb(s, d, (int)(uniform(r) * s->count));
		EXPECT(imp_vec3_dot(s->v[j], d) == want, "%s: direction %d from anywhere: %.17g, support %.17g", name,
		       t, imp_vec3_dot(s->v[j], d), want);
	}
}

static imp_shape *polytope(const imp_vec3 *p, int n)
{
	imp_shape *s = NULL;
	imp_status st = imp_shape_polytope(p, n, 0.0, &s);
	EXPECT(st == IMP_OK, "polytope of %d points: status %d", n, (int)st);
	return s;
}

/// check_shape on the hull of p[0 .. n-1], which should have `vertices`
/// vertices (0: any) and nodes when `nodes` (-1: when it has enough).
static void check_hull(const imp_vec3 *p, int n, const char *name, int vertices, int nodes, rng *r)
{
	imp_shape *s = polytope(p, n);
	if (s == NULL)
		return;
	const imp_shape3 *s3 = imp_shape3_of(s);
	EXPECT(vertices == 0 || s3->count == vertices, "%s: %d vertices, not %d", name, s3->count, vertices);
	check_shape(s, name, nodes < 0 ? s3->count >= IMP_CLIMB_NODE_MIN_VERTICES : nodes != 0, r);
	imp_shape_destroy(s);
}

static void sphere_points(rng *r, imp_vec3 *p, int n, double scale)
{
	for (int i = 0; i < n; ++i) {
		imp_vec3 d = random_direction(r);
		p[i] = imp_vec3_scale(scale / imp_vec3_length(d), d);
	}
}

static void test_random_hulls(void **state)
{
	(void)state;
	rng r = {0xc11b3dULL};
	static imp_vec3 p[2048];
	const int counts[] = {8, 31, 32, 40, 128, 512, 1500};
	for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
		int n = counts[k];
		sphere_points(&r, p, n, k % 2 ? 1e-3 : 7.5);
		char name[32];
		snprintf(name, sizeof name, "sphere %d", n);
		check_hull(p, n, name, 0, -1, &r);
		// Points inside the ball too: fewer vertices than points.
		for (int i = 0; i < n; ++i)
			p[i] = imp_vec3_scale(range(&r, 0.2, 1.0), p[i]);
		snprintf(name, sizeof name, "ball %d", n);
		check_hull(p, n, name, 0, -1, &r);
	}
	assert_int_equal(fails, 0);
}

static void test_degenerate_hulls(void **state)
{
	(void)state;
	rng r = {0xde9e4ULL};
	static imp_vec3 p[1024];
	const double tau = 6.283185307179586;
	// A cone: the apex's 64 neighbours go to node_more.
	int n = 0;
	for (int i = 0; i < 64; ++i)
		p[n++] = imp_vec3_make(cos(tau * i / 64), sin(tau * i / 64), 0.0);
	p[n++] = imp_vec3_make(0.1, -0.2, 2.0);
	imp_shape *s = polytope(p, n);
	if (s != NULL) {
		const imp_shape3 *s3 = imp_shape3_of(s);
		int most = 0;
		for (int i = 0; i < s3->count; ++i) {
			int k = s3->adj_start[i + 1] - s3->adj_start[i];
			most = most > k ? most : k;
		}
		EXPECT(most > IMP_CLIMB_NODE_NB, "cone: at most %d neighbours", most);
		imp_shape_destroy(s);
	}
	check_hull(p, n, "cone", 65, 1, &r);
	// Two cones on one rim (a bipyramid): two long lists.
	p[n++] = imp_vec3_make(-0.3, 0.2, -1.5);
	check_hull(p, n, "bipyramid", 66, 1, &r);
	// A flat polygon of 100 vertices (one face, dimension 2).
	n = 0;
	for (int i = 0; i < 100; ++i)
		p[n++] = imp_vec3_make(3.0 * cos(tau * i / 100), 0.5 * sin(tau * i / 100), 0.25 * cos(tau * i / 100));
	check_hull(p, n, "polygon", 100, 1, &r);
	// A prism of two 50-gons: 50 vertices on each cap face.
	n = 0;
	for (int i = 0; i < 50; ++i) {
		p[n++] = imp_vec3_make(cos(tau * i / 50), sin(tau * i / 50), -1.0);
		p[n++] = imp_vec3_make(cos(tau * i / 50), sin(tau * i / 50), 1.0);
	}
	check_hull(p, n, "prism", 100, 1, &r);
	// Every point twice, and more inside: duplicates are not vertices.
	sphere_points(&r, p, 300, 2.0);
	for (int i = 0; i < 300; ++i)
		p[300 + i] = p[i];
	for (int i = 600; i < 700; ++i)
		p[i] = imp_vec3_scale(0.5, p[i - 600]);
	check_hull(p, 700, "duplicates", 300, 1, &r);
	// A 9 x 9 grid on each face of a cube: coplanar points, the hull is
	// the cube's 8 corners (no nodes); a cube with its corners cut by
	// small random triangles: many faces, 3 neighbours a vertex.
	n = 0;
	for (int f = 0; f < 6; ++f)
		for (int a = 0; a < 9; ++a)
			for (int b = 0; b < 9; ++b) {
				double e[3];
				e[f / 2] = f & 1 ? -1.0 : 1.0;
				e[(f / 2 + 1) % 3] = -1.0 + a / 4.0;
				e[(f / 2 + 2) % 3] = -1.0 + b / 4.0;
				p[n++] = imp_vec3_make(e[0], e[1], e[2]);
			}
	check_hull(p, n, "cube grid", 8, 0, &r);
	n = 0;
	for (int c = 0; c < 8; ++c)
		for (int k = 0; k < 3; ++k) {
			double e[3] = {c & 1 ? 1.0 : -1.0, c & 2 ? 1.0 : -1.0, c & 4 ? 1.0 : -1.0};
			e[k] *= 1.0 - range(&r, 0.05, 0.2);
			p[n++] = imp_vec3_make(e[0], e[1], e[2]);
		}
	check_hull(p, n, "cut cube", 24, 0, &r);
	// Directions the cell must survive: zero, infinite, NaN, subnormal.
	const imp_vec3 odd[] = {{0, 0, 0},       {INFINITY, 1, 0}, {NAN, 0, 1},        {0, -INFINITY, INFINITY},
				{4e-320, 0, 1e-320}, {-5e-324, 5e-324, 0}, {1e300, -1e300, 1e300}};
	for (size_t k = 0; k < sizeof odd / sizeof odd[0]; ++k) {
		int c = imp_climb_cell(odd[k]);
		EXPECT(c >= 0 && c < IMP_CLIMB_CELLS, "odd direction %zu: cell %d", k, c);
	}
	assert_int_equal(fails, 0);
}

/// GJK's distance under the default options (climbing at this size) and
/// under brute-force supports, at random poses: the same to rounding.
/// imp_support3_brute (two vertices a step with SSE2) against the plain
/// loop it replaces: the first of the farthest vertices, on lists of 1 to
/// 40 vertices with repeated points and directions along axes (ties), and
/// a NaN direction (vertex 0).
static void test_brute_ties(void **state)
{
	(void)state;
	rng r = {0xb7e5};
	fails = 0;
	imp_vec3 v[40];
	for (int t = 0; t < 20000; ++t) {
		int n = 1 + (int)(uniform(&r) * 40);
		for (int i = 0; i < n; ++i) {
			v[i] = imp_vec3_make(floor(range(&r, -3, 3)), floor(range(&r, -3, 3)), floor(range(&r, -3, 3)));
			if (i > 0 && uniform(&r) < 0.3)
				v[i] = v[(int)(uniform(&r) * i)];
		}
		imp_vec3 d = imp_vec3_make(floor(range(&r, -2, 2)), floor(range(&r, -2, 2)), floor(range(&r, -2, 2)));
		if (t % 1000 == 0)
			d.x = NAN;
		int want = 0;
		double bv = imp_vec3_dot(v[0], d);
		for (int i = 1; i < n; ++i)
			if (imp_vec3_dot(v[i], d) > bv) {
				bv = imp_vec3_dot(v[i], d);
				want = i;
			}
		int got = imp_support3_brute(v, n, d);
		EXPECT(got == want, "case %d (%d vertices): vertex %d, the loop's %d", t, n, got, want);
	}
	assert_int_equal(fails, 0);
}

static void test_distance_climbing(void **state)
{
	(void)state;
	rng r = {0x512d15ULL};
	static imp_vec3 p[600];
	imp_shape *s[4];
	for (int k = 0; k < 4; ++k) {
		sphere_points(&r, p, 600, 1.0 + k);
		if (k == 3) // a squashed one: long climbs across flat sides
			for (int i = 0; i < 600; ++i)
				p[i].z *= 0.05;
		s[k] = polytope(p, 600);
		if (s[k] == NULL)
			return;
		EXPECT(imp_shape3_of(s[k])->climb_auto, "shape %d does not climb by default", k);
	}
	imp_query_options bf = imp_default_query_options();
	bf.support = IMP_SUPPORT_BRUTE_FORCE;
	for (int t = 0; t < 3000; ++t) {
		int a = t % 4, b = (t / 4) % 4;
		imp_pose3 pa = {{range(&r, -1, 1), range(&r, -1, 1), range(&r, -1, 1)},
				{range(&r, -1, 1), range(&r, -1, 1), range(&r, -1, 1), range(&r, -1, 1)}};
		imp_vec3 dir = random_direction(&r);
		double gap = t % 3 == 0 ? range(&r, 0.0, 3.0) : range(&r, 0.0, 12.0);
		imp_pose3 pb = {imp_vec3_add(pa.p, imp_vec3_scale(gap / imp_vec3_length(dir), dir)),
				{range(&r, -1, 1), range(&r, -1, 1), range(&r, -1, 1), range(&r, -1, 1)}};
		double qa = sqrt(pa.q.x * pa.q.x + pa.q.y * pa.q.y + pa.q.z * pa.q.z + pa.q.w * pa.q.w);
		double qb = sqrt(pb.q.x * pb.q.x + pb.q.y * pb.q.y + pb.q.z * pb.q.z + pb.q.w * pb.q.w);
		pa.q = (imp_quat){pa.q.x / qa, pa.q.y / qa, pa.q.z / qa, pa.q.w / qa};
		pb.q = (imp_quat){pb.q.x / qb, pb.q.y / qb, pb.q.z / qb, pb.q.w / qb};
		double climbed = imp_distance3(s[a], pa, s[b], pb, NULL);
		double brute = imp_distance3_ex(s[a], pa, s[b], pb, NULL, &bf);
		EXPECT(fabs(climbed - brute) <= 1e-12 * (1.0 + gap), "pair %d: %.17g climbing, %.17g brute force", t,
		       climbed, brute);
	}
	for (int k = 0; k < 4; ++k)
		imp_shape_destroy(s[k]);
	assert_int_equal(fails, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_hulls),
		cmocka_unit_test(test_degenerate_hulls),
		cmocka_unit_test(test_distance_climbing),
		cmocka_unit_test(test_brute_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
