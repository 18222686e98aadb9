// SPDX-License-Identifier: MIT
// Non-convex 2D shapes (chains and compounds) in the pairwise queries,
// against a brute force over every pair of children with the independent
// polygon oracle (oracle2d.h): open and closed chains (zigzags, random
// walks, rings with repeated points), compounds of polygons, discs and
// capsules, against polygons and each other; both orders, touching pairs
// made on purpose, scaled scenes, a warm path. Also the constructors'
// refusals and the accessors.
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

#include "oracle2d.h"

#define MAX_CHILDREN 96

/// A child as the oracle sees it: its hull (in the body's frame, after its
/// pose) and radius.
typedef struct child {
	imp_vec2 v[16];
	int n;
	double radius;
} child;

typedef struct body {
	imp_shape *shape;
	imp_shape *owned[8];
	int n_owned;
	int n;
	child c[MAX_CHILDREN];
	double scale;
} body;

static void body_free(body *b)
{
	imp_shape_destroy(b->shape);
	for (int i = 0; i < b->n_owned; ++i)
		imp_shape_destroy(b->owned[i]);
}

static void set_child(child *c, const imp_vec2 *p, int n, double radius, imp_pose2 pose)
{
	imp_vec2 w[16];
	orc_transform(pose, p, n, w);
	c->n = orc_hull(w, n, c->v);
	c->radius = radius;
}

static double max_coord(const child *c)
{
	double m = 0.0;
	for (int i = 0; i < c->n; ++i)
		m = fmax(m, fmax(fabs(c->v[i].x), fabs(c->v[i].y)));
	return m + c->radius;
}

static void chain_body(body *b, const imp_vec2 *p, int n, bool loop, double radius)
{
	memset(b, 0, sizeof *b);
	assert_int_equal(imp_shape_chain(p, n, loop, radius, &b->shape), IMP_OK);
	b->n = loop ? n : n - 1;
	assert_int_equal(imp_shape_child_count(b->shape), b->n);
	for (int i = 0; i < b->n; ++i) {
		imp_vec2 s[2] = {p[i], p[(i + 1) % n]};
		set_child(&b->c[i], s, 2, radius, imp_pose2_identity());
		b->scale = fmax(b->scale, max_coord(&b->c[i]));
	}
}

/// A point with coordinates in [lo, hi) (one draw a statement: the order
/// of a call's arguments is the compiler's, and gcc and clang must draw
/// the same scenes).
static imp_vec2 rvec2(orc_rng *r, double xlo, double xhi, double ylo, double yhi)
{
	double x = orc_range(r, xlo, xhi);
	double y = orc_range(r, ylo, yhi);
	return imp_vec2_make(x, y);
}

static imp_pose2 rpose2(orc_rng *r, double extent, double turn)
{
	imp_vec2 p = rvec2(r, -extent, extent, -extent, extent);
	double a = orc_range(r, -turn, turn);
	return imp_pose2_make(p.x, p.y, a);
}

/// A random convex shape (polygon, disc, capsule) as a shape and its hull.
static imp_shape *random_convex(orc_rng *r, double size, child *c)
{
	imp_vec2 p[8];
	int kind = orc_int(r, 3);
	int n = kind == 0 ? 6 : (kind == 1 ? 1 : 2);
	double radius = kind == 0 ? (orc_int(r, 2) ? 0.0 : 0.1 * size) : orc_range(r, 0.1, 0.4) * size;
	for (int i = 0; i < n; ++i)
		p[i] = rvec2(r, -size, size, -size, size);
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_polygon(p, n, radius, &s), IMP_OK);
	set_child(c, p, n, radius, imp_pose2_identity());
	return s;
}

static void convex_body(body *b, orc_rng *r, double size)
{
	memset(b, 0, sizeof *b);
	b->n = 1;
	b->shape = random_convex(r, size, &b->c[0]);
	b->scale = max_coord(&b->c[0]);
}

static void compound_body(body *b, orc_rng *r, int n)
{
	memset(b, 0, sizeof *b);
	const imp_shape *kids[8];
	imp_pose2 poses[8];
	for (int i = 0; i < n; ++i) {
		child local;
		b->owned[i] = random_convex(r, orc_range(r, 0.2, 0.5), &local);
		kids[i] = b->owned[i];
		poses[i] = rpose2(r, 0.8, 3.0);
		set_child(&b->c[i], local.v, local.n, local.radius, poses[i]);
		b->scale = fmax(b->scale, max_coord(&b->c[i]));
	}
	b->n = b->n_owned = n;
	assert_int_equal(imp_shape_compound2(kids, poses, n, &b->shape), IMP_OK);
}

/// Chains: a zigzag, a random walk, a ring with a repeated point.
static void random_chain(body *b, orc_rng *r, int kind, double scale)
{
	imp_vec2 p[40];
	int n = 0;
	bool loop = false;
	switch (kind) {
	case 0:
		for (n = 0; n < 16; ++n)
			p[n] = imp_vec2_make(-2.0 + 0.25 * n, n % 2 ? 0.3 : -0.3);
		break;
	case 1: {
		imp_vec2 at = {-1.5, 0};
		for (n = 0; n < 30; ++n) {
			p[n] = at;
			at = imp_vec2_add(at, rvec2(r, -0.1, 0.3, -0.4, 0.4));
		}
		break;
	}
	default:
		loop = true;
		for (n = 0; n < 20; ++n) {
			double a = 2 * 3.14159265358979 * n / 20, rr = 1.0 + orc_range(r, -0.2, 0.2);
			p[n] = imp_vec2_make(rr * cos(a), rr * sin(a));
		}
		p[7] = p[6]; // a segment of no length
		break;
	}
	for (int i = 0; i < n; ++i)
		p[i] = imp_vec2_scale(scale, p[i]);
	chain_body(b, p, n, loop, kind == 1 ? 0.05 * scale : 0.0);
}

// ---------------------------------------------------------------------------
// The brute force and the checks.

static double child_sd(const body *a, int i, imp_pose2 pa, const body *b, int j, imp_pose2 pb)
{
	imp_vec2 wa[16], wb[16];
	orc_transform(pa, a->c[i].v, a->c[i].n, wa);
	orc_transform(pb, b->c[j].v, b->c[j].n, wb);
	return orc_signed_distance(wa, a->c[i].n, a->c[i].radius, wb, b->c[j].n, b->c[j].radius);
}

static double brute(const body *a, imp_pose2 pa, const body *b, imp_pose2 pb, int *bi, int *bj)
{
	double best = INFINITY;
	for (int i = 0; i < a->n; ++i)
		for (int j = 0; j < b->n; ++j) {
			double d = child_sd(a, i, pa, b, j, pb);
			if (d < best) {
				best = d;
				*bi = i;
				*bj = j;
			}
		}
	return best;
}

typedef struct stats {
	int pairs, overlapping, touching;
	double worst;
} stats;

static void check_pair(const body *a, imp_pose2 pa, const body *b, imp_pose2 pb, imp_simplex_cache *cache,
		       stats *st)
{
	int bi = -1, bj = -1;
	double want = brute(a, pa, b, pb, &bi, &bj);
	double scene = fmax(a->scale, b->scale) +
		       fmax(fabs(pa.p.x) + fabs(pa.p.y), fabs(pb.p.x) + fabs(pb.p.y));
	double tol = 1e-9 * scene;
	st->pairs++;
	st->overlapping += want < -tol;
	st->touching += fabs(want) <= tol;
	for (int order = 0; order < 2; ++order) {
		const body *x = order ? b : a, *y = order ? a : b;
		imp_pose2 px = order ? pb : pa, py = order ? pa : pb;
		imp_closest2_result r;
		assert_int_equal(imp_closest2(x->shape, px, y->shape, py, order ? NULL : cache, &r), IMP_OK);
		double err = fabs(r.distance - want);
		if (!(err <= tol)) {
			print_error("closest: %.17g, brute force %.17g (children %d %d; got %d %d; order %d)\n",
				    r.distance, want, order ? bj : bi, order ? bi : bj, r.child_a, r.child_b, order);
			fail();
		}
		st->worst = fmax(st->worst, err / scene);
		bool xc = imp_shape_child_count(x->shape) > 0, yc = imp_shape_child_count(y->shape) > 0;
		assert_true(xc ? r.child_a >= 0 && r.child_a < x->n : r.child_a == -1);
		assert_true(yc ? r.child_b >= 0 && r.child_b < y->n : r.child_b == -1);
		double named = child_sd(x, r.child_a < 0 ? 0 : r.child_a, px, y, r.child_b < 0 ? 0 : r.child_b, py);
		assert_true(fabs(named - want) <= tol);
		assert_true(fabs(imp_vec2_length(r.normal) - 1.0) <= 1e-9);
		double along = imp_vec2_dot(r.normal, imp_vec2_sub(r.point_b, r.point_a));
		assert_true(fabs(along - r.distance) <= 1e-8 * scene);
		double d = imp_distance2(x->shape, px, y->shape, py, NULL);
		assert_true(fabs(d - fmax(want, 0.0)) <= tol);
		if (fabs(want) > tol)
			assert_int_equal(imp_overlap2(x->shape, px, y->shape, py, NULL), want < 0.0);
	}
}

static void report(const char *name, const stats *s)
{
	printf("  %-28s %4d pairs (%d overlapping, %d touching), worst error %.2g of the scene\n", name, s->pairs,
	       s->overlapping, s->touching, s->worst);
}

/// b's pose moved so that the pair touches: along the normal of the
/// nearest pair's oracle answer.
static imp_pose2 touching_pose(const body *a, imp_pose2 pa, const body *b, imp_pose2 pb)
{
	int bi = 0, bj = 0;
	brute(a, pa, b, pb, &bi, &bj);
	imp_vec2 wa[16], wb[16];
	orc_transform(pa, a->c[bi].v, a->c[bi].n, wa);
	orc_transform(pb, b->c[bj].v, b->c[bj].n, wb);
	orc_result q;
	orc_query(wa, a->c[bi].n, a->c[bi].radius, wb, b->c[bj].n, b->c[bj].radius, &q);
	pb.p = imp_vec2_sub(pb.p, imp_vec2_scale(q.sd, q.normal));
	return pb;
}

static imp_pose2 near_pose(orc_rng *r, double extent)
{
	return rpose2(r, extent, 3.2);
}

static void test_chain_convex(void **state)
{
	(void)state;
	static const char *names[] = {"zigzag chain", "random walk chain", "ring chain"};
	for (int kind = 0; kind < 3; ++kind) {
		stats st = {0};
		orc_rng r = {100 + (uint64_t)kind};
		body cb;
		random_chain(&cb, &r, kind, 1.0);
		for (int i = 0; i < 80; ++i) {
			body xb;
			convex_body(&xb, &r, orc_range(&r, 0.1, 0.5));
			imp_pose2 pc = near_pose(&r, 0.3), px = near_pose(&r, 1.6);
			check_pair(&cb, pc, &xb, px, NULL, &st);
			if (i % 4 == 0)
				check_pair(&cb, pc, &xb, touching_pose(&cb, pc, &xb, px), NULL, &st);
			body_free(&xb);
		}
		body_free(&cb);
		report(names[kind], &st);
		assert_true(st.overlapping > 5 && st.pairs - st.overlapping > 5);
	}
}

static void test_chain_chain_compound(void **state)
{
	(void)state;
	stats st = {0};
	orc_rng r = {200};
	for (int i = 0; i < 60; ++i) {
		body a, b;
		if (i % 3 == 0) {
			random_chain(&a, &r, i % 3, 1.0);
			random_chain(&b, &r, (i + 1) % 3, 0.6);
		} else {
			compound_body(&a, &r, 1 + orc_int(&r, 6));
			if (i % 3 == 1)
				compound_body(&b, &r, 1 + orc_int(&r, 6));
			else
				random_chain(&b, &r, i % 3, 0.8);
		}
		imp_pose2 pa = near_pose(&r, 0.3), pb = near_pose(&r, 1.4);
		check_pair(&a, pa, &b, pb, NULL, &st);
		if (i % 4 == 0)
			check_pair(&a, pa, &b, touching_pose(&a, pa, &b, pb), NULL, &st);
		body_free(&a);
		body_free(&b);
	}
	report("chains and compounds", &st);
	assert_true(st.overlapping > 5 && st.pairs - st.overlapping > 5);
}

static void test_scaled_and_warm(void **state)
{
	(void)state;
	double scales[] = {1e-6, 1e6};
	for (int s = 0; s < 2; ++s) {
		stats st = {0};
		orc_rng r = {300 + (uint64_t)s};
		body cb;
		random_chain(&cb, &r, 2, scales[s]);
		for (int i = 0; i < 40; ++i) {
			body xb;
			convex_body(&xb, &r, orc_range(&r, 0.1, 0.5) * scales[s]);
			imp_pose2 px = near_pose(&r, 1.5 * scales[s]);
			check_pair(&cb, imp_pose2_identity(), &xb, px, NULL, &st);
			body_free(&xb);
		}
		body_free(&cb);
		report(s == 0 ? "scaled by 1e-6" : "scaled by 1e6", &st);
	}
	stats st = {0};
	orc_rng r = {400};
	body a, b;
	random_chain(&a, &r, 1, 1.0);
	compound_body(&b, &r, 4);
	imp_simplex_cache cache = {0};
	for (int i = 0; i < 80; ++i) {
		double t = i / 79.0;
		imp_pose2 pb = imp_pose2_make(-2.0 + 4.0 * t, 0.6 * sin(4 * t), 2 * t);
		check_pair(&a, imp_pose2_identity(), &b, pb, &cache, &st);
	}
	body_free(&a);
	body_free(&b);
	report("a warm path", &st);
}

/// The time of impact in 2D: a fast small disc dropped through a chain
/// level hits it at the analytic time (no tunnelling), and random motions
/// of compounds and chains never pass through overlap before the answer.
static void test_time_of_impact2(void **state)
{
	(void)state;
	imp_vec2 floor_pts[5] = {{-4, 0}, {-2, 0}, {0, 0}, {2, 0}, {4, 0}};
	imp_shape *level, *disc;
	assert_int_equal(imp_shape_chain(floor_pts, 5, false, 0.0, &level), IMP_OK);
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.01, &disc), IMP_OK);
	orc_rng r = {500};
	for (int i = 0; i < 40; ++i) {
		double x = orc_range(&r, -3.9, 3.9), speed = orc_range(&r, 10, 1000);
		imp_motion2 still = {imp_pose2_identity(), {0, 0}, 0};
		imp_motion2 fast = {imp_pose2_make(x, 3.0, 0), {0, -speed}, 0};
		imp_toi2_result t;
		assert_int_equal(imp_time_of_impact2(level, still, disc, fast, 1.0, &t), IMP_OK);
		assert_int_equal(t.state, IMP_TOI_HIT);
		double want = (3.0 - 0.01) / speed;
		assert_true(t.t <= want && t.t >= want - 1e-5 * 3.0 / speed);
	}
	imp_shape_destroy(disc);
	imp_shape_destroy(level);
	int hits = 0, other = 0;
	for (int i = 0; i < 30; ++i) {
		body a, b;
		random_chain(&a, &r, i % 3, 1.0);
		compound_body(&b, &r, 1 + orc_int(&r, 4));
		imp_motion2 ma = {rpose2(&r, 0.2, 3.0), rvec2(&r, -0.3, 0.3, -0.3, 0.3), orc_range(&r, -1, 1)};
		imp_motion2 mb = {imp_pose2_make(3.0, orc_range(&r, -1, 1), 0.0), rvec2(&r, -5, -2, -1, 1), orc_range(&r, -3, 3)};
		imp_toi2_result t;
		assert_int_equal(imp_time_of_impact2(a.shape, ma, b.shape, mb, 1.0, &t), IMP_OK);
		double end = t.state == IMP_TOI_SEPARATED ? 1.0 : t.t;
		for (int k = 0; k < 100 && t.state != IMP_TOI_OVERLAPPED; ++k) {
			double s = end * k / 100.0;
			int bi, bj;
			double d = brute(&a, imp_motion2_at(ma, s), &b, imp_motion2_at(mb, s), &bi, &bj);
			if (!(d > -1e-9)) {
				print_error("case %d: overlap %.3g at %.6g before %.6g (state %d)\n", i, d, s, t.t, t.state);
				fail();
			}
		}
		if (t.state == IMP_TOI_HIT || t.state == IMP_TOI_OVERLAPPED) {
			int bi, bj;
			assert_true(brute(&a, imp_motion2_at(ma, t.t), &b, imp_motion2_at(mb, t.t), &bi, &bj) <= 1e-5);
			++hits;
		} else {
			++other;
		}
		body_free(&a);
		body_free(&b);
	}
	printf("  time of impact: %d hits, %d others; no overlap before any answer\n", hits, other);
	assert_true(hits > 5 && other > 3);
}

static void on_first_contact(const imp_contact_event *e, void *user)
{
	double *t = user;
	if (*t < 0.0)
		*t = e->t;
	(void)e;
}

static bool count_pair(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	++*(int *)user;
	return true;
}

/// A 2D world with a chain level: its touching pairs equal the pairwise
/// queries, and a fast disc stepped onto the level makes contact when the
/// brute force says.
/// A relative velocity too small for its reciprocal (subnormal): the pair
/// stays non-convex. Scaled by 1 / |v| it was NaN, took the chain for a
/// polygon and read its record as one (UBSan: a misaligned vertex array;
/// fuzz_world, a cast against a chain body).
static void test_toi_tiny_velocity(void **state)
{
	(void)state;
	imp_vec2 pts[3] = {{-1, 0}, {0, 0.5}, {1, 0}};
	imp_shape *chain, *disc;
	assert_int_equal(imp_shape_chain(pts, 3, false, 0.0, &chain), IMP_OK);
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.25, &disc), IMP_OK);
	const double tiny[3] = {4.9406564584124654e-324, -1e-310, 2.2e-308};
	for (int i = 0; i < 3; ++i) {
		imp_motion2 still = {imp_pose2_identity(), {0, 0}, 0};
		// Within the bounding balls' reach: the advance runs.
		imp_motion2 slow = {imp_pose2_make(0.0, 1.0, 0), {tiny[i], -tiny[i]}, 0};
		imp_toi2_result t;
		assert_int_equal(imp_time_of_impact2(chain, still, disc, slow, 1.0, &t), IMP_OK);
		assert_int_equal(t.state, IMP_TOI_SEPARATED);
		assert_true(t.t == 1.0);
		// Apart by the chain's peak to the disc: 1 - 0.5 - 0.25.
		assert_true(fabs(t.distance - 0.25) <= 1e-12);
	}
	imp_shape_destroy(chain);
	imp_shape_destroy(disc);
}

/// A user disc that counts its support calls: the work a step does on it.
typedef struct counted_disc {
	double r;
	long calls;
} counted_disc;

static imp_vec2 counted_support(const void *user, imp_vec2 d)
{
	counted_disc *c = (counted_disc *)(uintptr_t)user;
	c->calls++;
	double n = hypot(d.x, d.y);
	return n > 0.0 ? imp_vec2_make(c->r * d.x / n, c->r * d.y / n) : imp_vec2_make(c->r, 0.0);
}

/// max_pair_calls bounds a step's work on a pair with a non-convex body as
/// on a convex pair: each pair of children a look answers is one call. A
/// chain of 400 segments about its origin and one far point (reach 1e12),
/// turning at 0.1 rad/s beside a disc, with a tolerance that holds every
/// segment: its turn bounds each look's advance to half the tolerance over
/// 1e11 units a second. Counted by looks, the 2,000 looks answered every
/// pair of children each (fuzz finding: 25 s in one step).
static void test_step_cap_counts_children(void **state)
{
	(void)state;
	imp_vec2 pts[402];
	for (int i = 0; i <= 400; ++i)
		pts[i] = imp_vec2_make(-10.0 + 0.05 * i, (i & 1) ? 0.3 : -0.3);
	pts[401] = imp_vec2_make(1e12, 0.0);
	imp_shape *chain, *disc;
	assert_int_equal(imp_shape_chain(pts, 402, false, 0.0, &chain), IMP_OK);
	counted_disc cd = {0.1, 0};
	assert_int_equal(imp_shape_user2(counted_support, &cd, 0.0, &disc), IMP_OK);
	imp_world_def wd = imp_default_world_def();
	wd.dim = 2;
	imp_world *w;
	assert_int_equal(imp_world_create(&wd, &w), IMP_OK);
	imp_body_def bd = imp_default_body_def();
	imp_body_id id;
	bd.type = IMP_BODY_KINEMATIC;
	bd.shape = chain;
	bd.pose2 = imp_pose2_identity();
	assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
	assert_int_equal(imp_body_set_velocity2(w, id, imp_vec2_make(0.0, 0.0), 0.1), IMP_OK);
	bd.type = IMP_BODY_STATIC;
	bd.shape = disc;
	bd.pose2 = imp_pose2_make(0.0, 1.0, 0.0);
	assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
	imp_step_opts so = imp_default_step_opts();
	so.tolerance = 20.0;
	so.max_pair_calls = 2000;
	cd.calls = 0;
	assert_int_equal(imp_world_step(w, 1.0, &so), IMP_OK);
	imp_step_stats st = imp_world_get_step_stats(w);
	printf("  a disc beside a turning 400-segment chain of reach 1e12: %d narrow calls, most %d on a pair, "
	       "%d capped, %ld support calls\n",
	       st.narrow_calls, st.most_pair_calls, st.capped_pairs, cd.calls);
	assert_int_equal(st.capped_pairs, 1);
	// The cap, plus the pairs of the look that passed it (every segment,
	// for the contact and the advance) and of the capped pair's report at
	// the step's end.
	assert_true(st.most_pair_calls >= 2000 && st.most_pair_calls <= 2000 + 4 * 401);
	// Each narrow call is one GJK of a segment and a disc: a few dozen
	// supports at most.
	assert_true(cd.calls <= 64L * (2000 + 4 * 401));
	imp_world_destroy(w);
	imp_shape_destroy(disc);
	imp_shape_destroy(chain);
}

static void test_world2(void **state)
{
	(void)state;
	orc_rng r = {600};
	body level, bodies[10];
	random_chain(&level, &r, 0, 2.0); // the zigzag: points (-4 + n / 2, -0.6 or 0.6)
	imp_world_def wd = imp_default_world_def();
	wd.dim = 2;
	imp_world *w;
	assert_int_equal(imp_world_create(&wd, &w), IMP_OK);
	const imp_shape *shapes[11];
	imp_pose2 poses[11];
	imp_body_id ids[11];
	imp_body_def bd = imp_default_body_def();
	bd.type = IMP_BODY_STATIC;
	bd.shape = level.shape;
	bd.pose2 = imp_pose2_identity();
	shapes[0] = bd.shape;
	poses[0] = bd.pose2;
	assert_int_equal(imp_world_add_body(w, &bd, &ids[0]), IMP_OK);
	bd.type = IMP_BODY_DYNAMIC;
	for (int i = 0; i < 10; ++i) {
		if (i % 2)
			compound_body(&bodies[i], &r, 1 + orc_int(&r, 4));
		else
			random_chain(&bodies[i], &r, i % 3, 0.3);
		bd.shape = bodies[i].shape;
		bd.pose2 = rpose2(&r, 1.5, 3.0);
		shapes[i + 1] = bd.shape;
		poses[i + 1] = bd.pose2;
		assert_int_equal(imp_world_add_body(w, &bd, &ids[i + 1]), IMP_OK);
	}
	assert_int_equal(imp_world_update(w), IMP_OK);
	int pairs = 0, want = 0;
	assert_int_equal(imp_world_for_each_pair(w, count_pair, &pairs), IMP_OK);
	for (int i = 0; i < 11; ++i)
		for (int j = i + 1; j < 11; ++j)
			want += imp_overlap2(shapes[i], poses[i], shapes[j], poses[j], NULL);
	printf("  2D world: 11 bodies, %d touching pairs\n", pairs);
	assert_int_equal(pairs, want);
	assert_true(pairs > 2);
	imp_world_destroy(w);

	// A disc at 300 units a second onto the level.
	imp_shape *disc;
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.02, &disc), IMP_OK);
	assert_int_equal(imp_world_create(&wd, &w), IMP_OK);
	bd.type = IMP_BODY_STATIC;
	bd.shape = level.shape;
	bd.pose2 = imp_pose2_identity();
	assert_int_equal(imp_world_add_body(w, &bd, &ids[0]), IMP_OK);
	bd.type = IMP_BODY_DYNAMIC;
	bd.shape = disc;
	bd.pose2 = imp_pose2_make(0.3, 10.0, 0.0);
	assert_int_equal(imp_world_add_body(w, &bd, &ids[1]), IMP_OK);
	assert_int_equal(imp_body_set_velocity2(w, ids[1], imp_vec2_make(0, -300.0), 0.0), IMP_OK);
	double t_contact = -1.0;
	imp_step_opts so = imp_default_step_opts();
	so.on_contact = on_first_contact;
	so.user = &t_contact;
	assert_int_equal(imp_world_step(w, 0.1, &so), IMP_OK);
	body db;
	memset(&db, 0, sizeof db);
	db.n = 1;
	imp_vec2 c0 = {0, 0};
	set_child(&db.c[0], &c0, 1, 0.02, imp_pose2_identity());
	double lo = 0.0, hi = (10.0 - 0.12) / 300.0; // the disc's centre on the zigzag (at x = 0.3, y = 0.12)
	for (int it = 0; it < 60; ++it) {
		double mid = 0.5 * (lo + hi);
		int bi, bj;
		if (brute(&level, imp_pose2_identity(), &db, imp_pose2_make(0.3, 10.0 - 300.0 * mid, 0.0), &bi, &bj) > 0.0)
			lo = mid;
		else
			hi = mid;
	}
	printf("  a disc at 300 units/s onto a chain: contact at t = %.9f, brute force %.9f\n", t_contact, lo);
	assert_true(t_contact >= lo - 1e-6 && t_contact <= hi);
	imp_world_destroy(w);
	imp_shape_destroy(disc);
	for (int i = 0; i < 10; ++i)
		body_free(&bodies[i]);
	body_free(&level);
}

static void test_constructors(void **state)
{
	(void)state;
	imp_vec2 p[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	imp_shape *keep = (imp_shape *)&keep, *out = keep;
	assert_int_equal(imp_shape_chain(NULL, 4, false, 0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_chain(p, 4, false, 0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_chain(p, 1, false, 0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_chain(p, 4, true, -1, &out), IMP_ERR_BAD_RADIUS);
	imp_vec2 bad[2] = {{0, 0}, {INFINITY, 0}};
	assert_int_equal(imp_shape_chain(bad, 2, false, 0, &out), IMP_ERR_NOT_FINITE);
	bad[1].x = -1e151;
	assert_int_equal(imp_shape_chain(bad, 2, false, 0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, keep);

	imp_shape *open, *ring, *disc, *ball;
	assert_int_equal(imp_shape_chain(p, 4, false, 0.1, &open), IMP_OK);
	assert_int_equal(imp_shape_chain(p, 4, true, 0, &ring), IMP_OK);
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 1, &disc), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1, &ball), IMP_OK);
	assert_int_equal(imp_shape_kind_of(open), IMP_SHAPE_CHAIN);
	assert_int_equal(imp_shape_dim(open), 2);
	assert_int_equal(imp_shape_child_count(open), 3);
	assert_int_equal(imp_shape_child_count(ring), 4);
	assert_int_equal(imp_shape_vertex_count(ring), 4);
	imp_vec2 back[4];
	assert_int_equal(imp_shape_vertices2(ring, back, 4), 4);
	assert_memory_equal(back, p, sizeof back);

	const imp_shape *kids[2] = {disc, open};
	imp_pose2 poses[2] = {imp_pose2_identity(), imp_pose2_make(2, 0, 0)};
	assert_int_equal(imp_shape_compound2(kids, poses, 2, &out), IMP_ERR_UNSUPPORTED);
	kids[1] = ball;
	assert_int_equal(imp_shape_compound2(kids, poses, 2, &out), IMP_ERR_DIMENSION_MISMATCH);
	kids[1] = disc;
	poses[1].q.c = 3;
	assert_int_equal(imp_shape_compound2(kids, poses, 2, &out), IMP_ERR_BAD_ROTATION);
	poses[1].q.c = 1;
	assert_int_equal(imp_shape_compound2(kids, poses, -1, &out), IMP_ERR_BAD_COUNT);
	assert_ptr_equal(out, keep);
	imp_shape *compound;
	assert_int_equal(imp_shape_compound2(kids, poses, 2, &compound), IMP_OK);
	assert_int_equal(imp_shape_kind_of(compound), IMP_SHAPE_COMPOUND2);
	assert_true(imp_shape_radius(compound) == 0.0);

	// Supports and boxes against their definitions.
	orc_rng r = {9};
	for (int i = 0; i < 50; ++i) {
		imp_pose2 at = near_pose(&r, 2.0);
		imp_vec2 d = rvec2(&r, -1, 1, -1, 1);
		imp_vec2 s;
		assert_int_equal(imp_shape_support2(open, at, d, &s), IMP_OK);
		double best = -INFINITY;
		for (int k = 0; k < 4; ++k)
			best = fmax(best, imp_vec2_dot(imp_pose2_apply(at, p[k]), d));
		assert_true(fabs(imp_vec2_dot(s, d) - (best + 0.1 * imp_vec2_length(d))) <= 1e-12);
		assert_int_equal(imp_shape_support2(compound, at, d, &s), IMP_OK);
		imp_vec2 s0, s1;
		imp_shape_support2(disc, imp_pose2_mul(at, poses[0]), d, &s0);
		imp_shape_support2(disc, imp_pose2_mul(at, poses[1]), d, &s1);
		assert_true(fabs(imp_vec2_dot(s, d) - fmax(imp_vec2_dot(s0, d), imp_vec2_dot(s1, d))) <= 1e-12);
		// The box holds the shape (its supports along the axes) and
		// is no larger than the boxes of its children turned.
		imp_aabb2 box;
		assert_int_equal(imp_shape_aabb2(compound, at, &box), IMP_OK);
		imp_vec2 ax[4] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
		for (int k = 0; k < 4; ++k) {
			assert_int_equal(imp_shape_support2(compound, at, ax[k], &s), IMP_OK);
			assert_true(s.x <= box.hi.x + 1e-12 && s.x >= box.lo.x - 1e-12);
			assert_true(s.y <= box.hi.y + 1e-12 && s.y >= box.lo.y - 1e-12);
		}
		double loose_lo_y = INFINITY, loose_hi_y = -INFINITY;
		for (int k = 0; k < 2; ++k) {
			imp_aabb2 cb;
			assert_int_equal(imp_shape_aabb2(disc, imp_pose2_identity(), &cb), IMP_OK);
			imp_vec2 c = imp_pose2_apply(imp_pose2_mul(at, poses[k]), imp_vec2_scale(0.5, imp_vec2_add(cb.lo, cb.hi)));
			double n = sqrt(at.q.c * at.q.c + at.q.s * at.q.s), hx = 0.5 * (cb.hi.x - cb.lo.x), hy = 0.5 * (cb.hi.y - cb.lo.y);
			double reach = (fabs(at.q.s) * hx + fabs(at.q.c) * hy) / n;
			loose_lo_y = fmin(loose_lo_y, c.y - reach);
			loose_hi_y = fmax(loose_hi_y, c.y + reach);
		}
		assert_true(box.lo.y >= loose_lo_y - 1e-12 && box.hi.y <= loose_hi_y + 1e-12);
	}
	imp_closest2_result res;
	assert_int_equal(imp_closest2(open, imp_pose2_identity(), ball, imp_pose2_identity(), NULL, &res),
			 IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_closest2(open, imp_pose2_identity(), disc, imp_pose2_identity(), NULL, NULL),
			 IMP_ERR_NULL_ARGUMENT);
	imp_query_options o = imp_default_query_options();
	o.max_iterations = 0;
	assert_true(isnan(imp_distance2_ex(open, imp_pose2_identity(), disc, imp_pose2_identity(), NULL, &o)));
	imp_shape_destroy(compound);
	imp_shape_destroy(ball);
	imp_shape_destroy(disc);
	imp_shape_destroy(ring);
	imp_shape_destroy(open);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constructors),
		cmocka_unit_test(test_chain_convex),
		cmocka_unit_test(test_chain_chain_compound),
		cmocka_unit_test(test_scaled_and_warm),
		cmocka_unit_test(test_time_of_impact2),
		cmocka_unit_test(test_toi_tiny_velocity),
		cmocka_unit_test(test_world2),
		cmocka_unit_test(test_step_cap_counts_children),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
