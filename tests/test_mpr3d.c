// SPDX-License-Identifier: MIT
// Level 1 in 3D by Minkowski portal refinement (src/narrow/gjk3d.c,
// mpr_overlap): imp_overlap3 without a cache on cores without rounding takes
// MPR, which answers only with a certificate and hands everything else to
// GJK. Checked against tests/oracle3d.c on random pairs of every kind with
// fixed seeds: polytopes (clouds, flat, collinear, one point, duplicate
// points, slivers), boxes, and the curved kinds (ellipsoid, cylinder, cone, a
// user support) through a sandwich of polytopes, one inside the shape and
// one around it, whose answers decide the pairs they agree on; scenes from
// 1e-6 to 1e6, coincident centres; pairs bisected to the overlap boundary,
// where a few ulps either side must get GJK's answer (MPR's margins make it
// defer) and 1e-9 of the scene either side the oracle's. Pairs with radii
// (GJK's path) ride along.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "impact/impact.h"
#include "oracle3d.h"

static int fails;

#include "test_expect.h"

static const double PI = 3.14159265358979323846;

enum { K_POLY, K_BOX, K_ELLIPSOID, K_CYLINDER, K_CONE, K_USER, K_COUNT };

/// A shape with its oracle: the polytope `in` inside it and `out` around
/// it (the same for polytopes and boxes), local frame.
typedef struct body {
	imp_shape *shape;
	int kind;
	double radius;
	o3_poly in, out;
	imp_vec3 semi; ///< the user shape's ellipsoid
} body;

/// Points spread evenly over the unit sphere (a Fibonacci spiral).
static imp_vec3 spiral(int i, int n)
{
	double z = 1.0 - (2.0 * i + 1.0) / n, r = sqrt(1.0 - z * z), phi = 2.399963229728653 * i;
	return imp_vec3_make(r * cos(phi), r * sin(phi), z);
}

static imp_vec3 ellipsoid_support(const void *user, imp_vec3 d)
{
	const body *b = user;
	imp_vec3 e = b->semi;
	imp_vec3 q = imp_vec3_make(e.x * e.x * d.x, e.y * e.y * d.y, e.z * e.z * d.z);
	double g = sqrt(imp_vec3_dot(q, d));
	return g > 0.0 ? imp_vec3_scale(1.0 / g, q) : imp_vec3_make(0.0, 0.0, 0.0);
}

/// The ellipsoid's sandwich: the hull of spiral points mapped by E inside
/// it, and the same points pushed out by the hull's inradius around it (a
/// linear map keeps the containment of the unit sphere).
static void ellipsoid_polys(body *b, imp_vec3 e)
{
	enum { N = 32 };
	imp_vec3 p[N];
	for (int i = 0; i < N; ++i)
		p[i] = spiral(i, N);
	o3_poly unit;
	o3_poly_make(&unit, p, N);
	double rin = INFINITY;
	for (int f = 0; f < unit.nf; ++f)
		rin = fmin(rin, unit.fd[f]);
	imp_vec3 q[N];
	for (int i = 0; i < N; ++i) {
		q[i] = imp_vec3_make(e.x * p[i].x, e.y * p[i].y, e.z * p[i].z);
		p[i] = imp_vec3_scale(1.0 / rin, q[i]);
	}
	o3_poly_make(&b->in, q, N);
	o3_poly_make(&b->out, p, N);
}

/// A cylinder (apex false) or a cone about z: rim polygons of n points
/// on the circle, and around it at radius r / cos(pi / n).
static void round_polys(body *b, double h, double r, bool cone)
{
	enum { N = 16 };
	imp_vec3 p[2 * N], q[2 * N];
	int n = 0;
	for (int i = 0; i < N; ++i) {
		double t = 2.0 * PI * i / N, c = cos(t), s = sin(t), grow = 1.0 / cos(PI / N);
		p[n] = imp_vec3_make(r * c, r * s, -h);
		q[n++] = imp_vec3_make(grow * r * c, grow * r * s, -h);
		if (!cone) {
			p[n] = imp_vec3_make(r * c, r * s, h);
			q[n++] = imp_vec3_make(grow * r * c, grow * r * s, h);
		}
	}
	if (cone) {
		p[n] = imp_vec3_make(0.0, 0.0, h);
		q[n++] = p[N];
	}
	o3_poly_make(&b->in, p, n);
	o3_poly_make(&b->out, q, n);
}

/// A polytope of one of seven families, scaled by s.
static void make_poly(body *b, o3_rng *r, double s)
{
	imp_vec3 p[12];
	int n = 1 + o3_int(r, 12), family = o3_int(r, 7);
	imp_vec3 axis = o3_unit(r);
	for (int i = 0; i < n; ++i) {
		imp_vec3 x = o3_vec(r, -1.0, 1.0);
		switch (family) {
		case 1: // flat
			x.z = 0.0;
			break;
		case 2: // collinear
			x = imp_vec3_scale(x.x, axis);
			break;
		case 3: // duplicates
			if (i > 0 && o3_int(r, 2))
				x = imp_vec3_scale(1.0 / s, p[o3_int(r, i)]);
			break;
		case 4: // a sliver
			x.z *= 1e-7;
			break;
		default:
			break;
		}
		p[i] = imp_vec3_scale(s, x);
	}
	if (family == 5)
		n = 1; // a point
	assert_int_equal(imp_shape_polytope(p, n, b->radius, &b->shape), IMP_OK);
	o3_poly_make(&b->in, p, n);
	b->out = b->in;
}

static void make_body(body *b, int kind, o3_rng *r, double s, bool rounded)
{
	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->radius = rounded ? s * o3_range(r, 0.01, 0.3) : 0.0;
	imp_vec3 e = imp_vec3_scale(s, o3_vec(r, 0.2, 1.2));
	switch (kind) {
	case K_POLY:
		make_poly(b, r, s);
		return;
	case K_BOX:
		if (o3_int(r, 4) == 0)
			e.z *= 1e-9; // a plate
		assert_int_equal(imp_shape_box3(e.x, e.y, e.z, b->radius, &b->shape), IMP_OK);
		o3_poly_box(&b->in, e);
		b->out = b->in;
		return;
	case K_ELLIPSOID:
		assert_int_equal(imp_shape_ellipsoid(e.x, e.y, e.z, b->radius, &b->shape), IMP_OK);
		ellipsoid_polys(b, e);
		return;
	case K_CYLINDER:
		assert_int_equal(imp_shape_cylinder(e.z, e.x, b->radius, &b->shape), IMP_OK);
		round_polys(b, e.z, e.x, false);
		return;
	case K_CONE:
		assert_int_equal(imp_shape_cone(e.z, e.x, b->radius, &b->shape), IMP_OK);
		round_polys(b, e.z, e.x, true);
		return;
	default:
		b->semi = e;
		assert_int_equal(imp_shape_user3(ellipsoid_support, b, b->radius, &b->shape), IMP_OK);
		ellipsoid_polys(b, e);
		return;
	}
}

/// The oracle's verdict: 1 overlap, 0 apart, -1 undecided (the sandwich's
/// polytopes disagree, or the signed distance is within `band` of the
/// scene of 0); *sd, *scene: the inner polytopes' answer.
static int oracle(const body *a, imp_pose3 pa, const body *b, imp_pose3 pb, double band, double *sd, double *scene)
{
	o3_result in, out;
	o3_query(&a->in, pa, a->radius, &b->in, pb, b->radius, &in);
	*sd = in.sd;
	*scene = in.scene;
	bool exact = a->kind <= K_BOX && b->kind <= K_BOX;
	if (exact)
		return fabs(in.sd) <= band * in.scene ? -1 : in.sd <= 0.0;
	if (in.sd < -band * in.scene)
		return 1;
	o3_query(&a->out, pa, a->radius, &b->out, pb, b->radius, &out);
	if (out.sd > band * out.scene)
		return 0;
	return -1;
}

/// imp_overlap3 through GJK: a zeroed cache keeps a pair on that path.
static bool gjk_overlap(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb)
{
	imp_simplex_cache cache;
	memset(&cache, 0, sizeof cache);
	return imp_overlap3(a, pa, b, pb, &cache);
}

/// One pair both ways round: the oracle's answer where it is more than
/// 1e-9 of the scene from touching, else the oracle's or GJK's, and GJK's
/// within 1e-13 of the scene (MPR's margin is 1e-12 of its reach).
static void check_pair(const body *a, imp_pose3 pa, const body *b, imp_pose3 pb, int i, int *decided)
{
	double sd, scene;
	int want = oracle(a, pa, b, pb, 1e-9, &sd, &scene);
	bool exact = a->kind <= K_BOX && b->kind <= K_BOX;
	for (int swap = 0; swap < 2; ++swap) {
		const body *x = swap ? b : a, *y = swap ? a : b;
		imp_pose3 px = swap ? pb : pa, py = swap ? pa : pb;
		bool got = imp_overlap3(x->shape, px, y->shape, py, NULL);
		if (want >= 0) {
			EXPECT(got == (want == 1), "pair %d (kinds %d %d, swap %d): overlap %d, oracle sd %.17g scene %g", i,
			       x->kind, y->kind, swap, got, sd, scene);
			continue;
		}
		if (!exact)
			continue; // curved, too near for the sandwich
		bool g = gjk_overlap(x->shape, px, y->shape, py);
		if (fabs(sd) <= 1e-13 * scene)
			EXPECT(got == g, "pair %d (swap %d): overlap %d, GJK %d, sd %.17g scene %g", i, swap, got, g, sd,
			       scene);
		else
			EXPECT(got == g || got == (sd <= 0.0), "pair %d (swap %d): overlap %d, GJK %d, sd %.17g scene %g", i,
			       swap, got, g, sd, scene);
	}
	*decided += want >= 0;
}

static const double scales[] = {1e-6, 1e-3, 1.0, 1e3, 1e6};

/// A pair at scale s: b at a distance along a random direction from a
/// (up to 2.5 s, so about half overlap), or at a's very position.
static void random_poses(o3_rng *r, double s, imp_pose3 *pa, imp_pose3 *pb)
{
	*pa = o3_pose(r, 2.0 * s);
	*pb = o3_pose(r, 0.0);
	pb->p = o3_int(r, 10) == 0 ? pa->p : imp_vec3_add(pa->p, imp_vec3_scale(s * o3_range(r, 0.0, 2.5), o3_unit(r)));
}

/// Curved shapes come from a pool made once (their oracle polytopes are
/// hulls of 16 to 32 points, which the oracle finds by brute force): per
/// kind and scale, three sizes, the third rounded.
enum { POOL_SIZES = 3 };
static body pool[K_COUNT][5][POOL_SIZES];
static bool pool_made;

static void make_pool(void)
{
	if (pool_made)
		return;
	o3_rng r = {0x3d3a10};
	for (int k = K_ELLIPSOID; k < K_COUNT; ++k)
		for (int j = 0; j < 5; ++j)
			for (int v = 0; v < POOL_SIZES; ++v)
				make_body(&pool[k][j][v], k, &r, scales[j], v == POOL_SIZES - 1);
	pool_made = true;
}

static int free_pool(void **state)
{
	(void)state;
	if (pool_made)
		for (int k = K_ELLIPSOID; k < K_COUNT; ++k)
			for (int j = 0; j < 5; ++j)
				for (int v = 0; v < POOL_SIZES; ++v)
					imp_shape_destroy(pool[k][j][v].shape);
	pool_made = false;
	return 0;
}

/// A body of `kind` at scale index j: a new polytope or box, a pooled
/// curved shape (*own false).
static body *take_body(body *fresh, int kind, o3_rng *r, int j, bool rounded, bool *own)
{
	*own = kind <= K_BOX;
	if (*own) {
		make_body(fresh, kind, r, scales[j], rounded);
		return fresh;
	}
	return &pool[kind][j][o3_int(r, POOL_SIZES)];
}

static void run_pairs(int ka_lo, int ka_hi, int kb_lo, int kb_hi, int count, uint64_t seed, int min_decided)
{
	o3_rng r = {seed};
	int decided = 0;
	fails = 0;
	make_pool();
	for (int i = 0; i < count; ++i) {
		int j = o3_int(&r, 5);
		bool rounded = o3_int(&r, 8) == 0, own_a, own_b;
		body fa, fb;
		body *a = take_body(&fa, ka_lo + o3_int(&r, ka_hi - ka_lo + 1), &r, j, rounded, &own_a);
		body *b = take_body(&fb, kb_lo + o3_int(&r, kb_hi - kb_lo + 1), &r, j, rounded && o3_int(&r, 2), &own_b);
		imp_pose3 pa, pb;
		random_poses(&r, scales[j], &pa, &pb);
		check_pair(a, pa, b, pb, i, &decided);
		if (own_a)
			imp_shape_destroy(a->shape);
		if (own_b)
			imp_shape_destroy(b->shape);
	}
	print_message("%d of %d pairs decided by the oracle\n", decided, count);
	assert_true(decided >= min_decided);
	assert_int_equal(fails, 0);
}

static void test_polytopes(void **state)
{
	(void)state;
	run_pairs(K_POLY, K_BOX, K_POLY, K_BOX, 12000, 0x3d3a11, 11000);
}

static void test_curved(void **state)
{
	(void)state;
	run_pairs(K_ELLIPSOID, K_USER, K_POLY, K_USER, 6000, 0x3d3a12, 3000);
}

/// b moved along u from a to the overlap boundary by bisection on the
/// oracle; a few ulps either side must get GJK's answer (MPR defers), 1e-9
/// of the scene either side the oracle's.
static void test_boundary(void **state)
{
	(void)state;
	o3_rng r = {0x3d3a13};
	fails = 0;
	int tried = 0;
	for (int i = 0; i < 400; ++i) {
		double s = scales[o3_int(&r, 5)];
		body a, b;
		make_body(&a, o3_int(&r, 2), &r, s, false);
		make_body(&b, o3_int(&r, 2), &r, s, false);
		imp_pose3 pa = o3_pose(&r, 2.0 * s), pb = o3_pose(&r, 0.0);
		imp_vec3 u = o3_unit(&r);
		double lo = 0.0, hi = 8.0 * s, sd, scene;
		pb.p = imp_vec3_add(pa.p, imp_vec3_scale(lo, u));
		if (oracle(&a, pa, &b, pb, 0.0, &sd, &scene) != 1) {
			imp_shape_destroy(a.shape);
			imp_shape_destroy(b.shape);
			continue; // the centres apart (a flat shape in its plane)
		}
		++tried;
		while (nextafter(lo, hi) < hi) {
			double mid = 0.5 * (lo + hi);
			if (mid <= lo || mid >= hi)
				break;
			pb.p = imp_vec3_add(pa.p, imp_vec3_scale(mid, u));
			if (oracle(&a, pa, &b, pb, 0.0, &sd, &scene) == 1)
				lo = mid;
			else
				hi = mid;
		}
		double t = lo;
		for (int k = 0; k < 4; ++k)
			t = nextafter(t, -INFINITY);
		for (int k = -4; k <= 5; ++k) {
			pb.p = imp_vec3_add(pa.p, imp_vec3_scale(t, u));
			bool got = imp_overlap3(a.shape, pa, b.shape, pb, NULL);
			bool g = gjk_overlap(a.shape, pa, b.shape, pb);
			EXPECT(got == g, "boundary pair %d, %d ulps: overlap %d, GJK %d", i, k, got, g);
			t = nextafter(t, INFINITY);
		}
		for (int side = 0; side < 2; ++side) {
			double tt = lo + (side ? 1e-9 : -1e-9) * s * 8.0;
			pb.p = imp_vec3_add(pa.p, imp_vec3_scale(tt, u));
			int want = oracle(&a, pa, &b, pb, 1e-12, &sd, &scene);
			if (want < 0)
				continue;
			bool got = imp_overlap3(a.shape, pa, b.shape, pb, NULL);
			EXPECT(got == (want == 1), "boundary pair %d side %d: overlap %d, oracle sd %.17g", i, side, got, sd);
		}
		imp_shape_destroy(a.shape);
		imp_shape_destroy(b.shape);
	}
	print_message("%d boundary pairs\n", tried);
	assert_true(tried >= 300);
	assert_int_equal(fails, 0);
}

/// Cases MPR must not decide wrongly on purpose: the same shape at the same
/// pose (no ray), coplanar flat polygons, a point on a face, a segment
/// through a triangle, a point at a vertex.
static void test_degenerate(void **state)
{
	(void)state;
	fails = 0;
	imp_pose3 id = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}};
	imp_vec3 sq[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
	imp_vec3 tri[3] = {{-1, -1, 0}, {1, -1, 0}, {0, 1, 0}};
	imp_vec3 seg[2] = {{0, 0, -1}, {0, 0, 1}};
	imp_vec3 pt[1] = {{0, 0, 0}};
	imp_shape *square, *triangle, *segment, *point, *cube;
	assert_int_equal(imp_shape_polytope(sq, 4, 0.0, &square), IMP_OK);
	assert_int_equal(imp_shape_polytope(tri, 3, 0.0, &triangle), IMP_OK);
	assert_int_equal(imp_shape_polytope(seg, 2, 0.0, &segment), IMP_OK);
	assert_int_equal(imp_shape_polytope(pt, 1, 0.0, &point), IMP_OK);
	assert_int_equal(imp_shape_box3(1.0, 1.0, 1.0, 0.0, &cube), IMP_OK);
	EXPECT(imp_overlap3(cube, id, cube, id, NULL), "the same box at the same pose");
	EXPECT(imp_overlap3(triangle, id, triangle, id, NULL), "the same triangle at the same pose");
	EXPECT(imp_overlap3(triangle, id, segment, id, NULL), "a segment through a triangle");
	imp_pose3 moved = id;
	for (int k = 0; k < 3; ++k) {
		double x = k == 0 ? 0.5 : (k == 1 ? 1.0 : 1.5);
		moved.p = imp_vec3_make(x, 0.25, 0.0);
		EXPECT(imp_overlap3(square, id, square, moved, NULL) == (x <= 1.0), "coplanar squares %g apart", x);
		EXPECT(imp_overlap3(square, id, triangle, moved, NULL) == gjk_overlap(square, id, triangle, moved),
		       "a square and a triangle %g apart", x);
	}
	// A point on a face, at a vertex, just off them.
	imp_vec3 spots[4] = {{1.0, 0.3, -0.2}, {1.0, 1.0, 1.0}, {1.0 + 1e-9, 0.3, 0.2}, {0.3, 0.3, 0.99999999}};
	bool want[4] = {true, true, false, true};
	for (int k = 0; k < 4; ++k) {
		moved.p = spots[k];
		EXPECT(imp_overlap3(cube, id, point, moved, NULL) == want[k], "point %d against the cube", k);
		EXPECT(imp_overlap3(point, moved, cube, id, NULL) == want[k], "the cube against point %d", k);
	}
	imp_shape_destroy(square);
	imp_shape_destroy(triangle);
	imp_shape_destroy(segment);
	imp_shape_destroy(point);
	imp_shape_destroy(cube);
	assert_int_equal(fails, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polytopes),
		cmocka_unit_test(test_curved),
		cmocka_unit_test(test_boundary),
		cmocka_unit_test(test_degenerate),
	};
	return cmocka_run_group_tests(tests, NULL, free_pool);
}
