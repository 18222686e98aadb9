// SPDX-License-Identifier: MIT
// The planner queries (imp_world_overlap_shape, _any, _nearest,
// _query_distance, imp_world_distance, _clearance, _cast_shape) against
// brute force over every body: the pairwise queries called on each body in
// turn, the filter rule of the oracle (ow_filter_pairs), no world code.
// Random scenes in 2D and 3D with every broad phase, with bodies moved,
// added and removed since the last update, so that the queries must see
// poses the broad phase does not hold yet.
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counting_alloc.h"
#include "oracle_world.h"

#define MAX_BODIES 400
#define MAX_HITS MAX_BODIES

typedef struct scene {
	int dim;
	imp_world *w;
	ow_body body[MAX_BODIES];
	imp_body_id id[MAX_BODIES];
	imp_shape *shape[MAX_BODIES];
	int n;
	ow_rng rng;
	double extent; ///< bodies lie in [-extent, extent]^dim
} scene;

static imp_pose2 random_pose2(scene *sc)
{
	return imp_pose2_make(ow_range(&sc->rng, -sc->extent, sc->extent), ow_range(&sc->rng, -sc->extent, sc->extent),
			      ow_range(&sc->rng, 0, 6.283185307179586));
}

static imp_pose3 random_pose3(scene *sc)
{
	imp_pose3 p = {imp_vec3_make(ow_range(&sc->rng, -sc->extent, sc->extent),
				     ow_range(&sc->rng, -sc->extent, sc->extent),
				     ow_range(&sc->rng, -sc->extent, sc->extent)),
		       ow_quat(&sc->rng)};
	return p;
}

static imp_shape *random_shape(scene *sc)
{
	double size = 0.3 * pow(10.0, ow_range(&sc->rng, -0.5, 0.5));
	imp_shape *s = sc->dim == 2 ? ow_random_shape2(&sc->rng, size) : ow_random_shape3(&sc->rng, size);
	assert_non_null(s);
	return s;
}

static void add_body(scene *sc)
{
	assert_true(sc->n < MAX_BODIES);
	int i = sc->n++;
	ow_body *b = &sc->body[i];
	sc->shape[i] = random_shape(sc);
	b->live = true;
	b->shape = sc->shape[i];
	b->type = ow_random_type(&sc->rng);
	b->filter = ow_random_filter(&sc->rng);
	imp_body_def d = imp_default_body_def();
	d.shape = b->shape;
	d.type = b->type;
	d.filter = b->filter;
	if (sc->dim == 2)
		d.pose2 = b->pose2 = random_pose2(sc);
	else
		d.pose3 = b->pose3 = random_pose3(sc);
	assert_int_equal(imp_world_add_body(sc->w, &d, &sc->id[i]), IMP_OK);
}

static void move_body(scene *sc, int i)
{
	ow_body *b = &sc->body[i];
	if (sc->dim == 2) {
		b->pose2 = random_pose2(sc);
		assert_int_equal(imp_body_set_pose2(sc->w, sc->id[i], b->pose2), IMP_OK);
	} else {
		b->pose3 = random_pose3(sc);
		assert_int_equal(imp_body_set_pose3(sc->w, sc->id[i], b->pose3), IMP_OK);
	}
}

/// n bodies, an update, then some moved far, some nudged, some removed and
/// some added: the broad phase is behind the poses for all of those.
static void scene_make(scene *sc, int dim, imp_broad_kind kind, int n, uint64_t seed)
{
	memset(sc, 0, sizeof *sc);
	sc->dim = dim;
	sc->rng.s = seed;
	sc->extent = dim == 2 ? 4.0 : 2.5;
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	assert_int_equal(imp_world_create(&def, &sc->w), IMP_OK);
	for (int i = 0; i < n; i++)
		add_body(sc);
	assert_int_equal(imp_world_update(sc->w), IMP_OK);
	for (int k = 0; k < n / 10; k++)
		move_body(sc, ow_int(&sc->rng, sc->n));
	for (int k = 0; k < n / 20; k++) {
		int i = ow_int(&sc->rng, sc->n);
		if (sc->body[i].live) {
			assert_int_equal(imp_world_remove_body(sc->w, sc->id[i]), IMP_OK);
			sc->body[i].live = false;
		}
	}
	for (int k = 0; k < n / 20; k++)
		add_body(sc);
}

static void scene_free(scene *sc)
{
	imp_world_destroy(sc->w);
	for (int i = 0; i < sc->n; i++)
		imp_shape_destroy(sc->shape[i]);
}

/// The oracle's index of a body id.
static int index_of(const scene *sc, imp_body_id id)
{
	for (int i = 0; i < sc->n; i++)
		if (sc->body[i].live && imp_body_id_equal(sc->id[i], id))
			return i;
	fail_msg("an id the scene does not know");
	return -1;
}

/// A query: a shape at a pose with a filter, and maybe a body to ignore.
typedef struct query {
	ow_body q; ///< the shape, its pose and its filter
	imp_query_filter filter;
	int ignore; ///< oracle index, or -1
} query;

static void random_query(scene *sc, query *qu, imp_shape *shape)
{
	memset(qu, 0, sizeof *qu);
	qu->q.live = true;
	qu->q.shape = shape;
	if (sc->dim == 2)
		qu->q.pose2 = random_pose2(sc);
	else
		qu->q.pose3 = random_pose3(sc);
	qu->filter = imp_default_query_filter();
	qu->q.filter = qu->filter.filter = ow_int(&sc->rng, 3) == 0 ? ow_random_filter(&sc->rng) : imp_default_filter();
	qu->ignore = -1;
	if (ow_int(&sc->rng, 3) == 0) {
		int i = ow_int(&sc->rng, sc->n);
		if (sc->body[i].live) {
			qu->ignore = i;
			qu->filter.ignore = sc->id[i];
		}
	}
}

static bool sees(const scene *sc, const query *qu, int i)
{
	return sc->body[i].live && i != qu->ignore && ow_filter_pairs(qu->q.filter, sc->body[i].filter);
}

/// Signed distance, witnesses and normal between two oracle bodies.
static double pair_closest(const scene *sc, const ow_body *a, const ow_body *b, imp_query_result *r)
{
	if (sc->dim == 2) {
		imp_closest2_result c;
		assert_int_equal(imp_closest2(a->shape, a->pose2, b->shape, b->pose2, NULL, &c), IMP_OK);
		r->distance = c.distance;
		r->point = imp_vec3_make(c.point_a.x, c.point_a.y, 0);
		r->body_point = imp_vec3_make(c.point_b.x, c.point_b.y, 0);
		r->normal = imp_vec3_make(c.normal.x, c.normal.y, 0);
	} else {
		imp_closest3_result c;
		assert_int_equal(imp_closest3(a->shape, a->pose3, b->shape, b->pose3, NULL, &c), IMP_OK);
		r->distance = c.distance;
		r->point = c.point_a;
		r->body_point = c.point_b;
		r->normal = c.normal;
	}
	return r->distance;
}

static bool pair_overlap(const scene *sc, const ow_body *a, const ow_body *b)
{
	if (sc->dim == 2)
		return imp_overlap2(a->shape, a->pose2, b->shape, b->pose2, NULL);
	return imp_overlap3(a->shape, a->pose3, b->shape, b->pose3, NULL);
}

/* ---- overlap ---- */

typedef struct id_list {
	imp_body_id id[MAX_HITS];
	int n;
	int stop_after; ///< 0: never stop
} id_list;

static bool collect_id(imp_body_id id, void *user)
{
	id_list *l = user;
	assert_true(l->n < MAX_HITS);
	l->id[l->n++] = id;
	return l->stop_after == 0 || l->n < l->stop_after;
}

static void check_overlap(scene *sc, const query *qu)
{
	int truth[MAX_HITS], nt = 0;
	for (int i = 0; i < sc->n; i++)
		if (sees(sc, qu, i) && pair_overlap(sc, &qu->q, &sc->body[i]))
			truth[nt++] = i;
	id_list got = {.n = 0};
	imp_status st = sc->dim == 2 ? imp_world_overlap_shape(sc->w, qu->q.shape, qu->q.pose2, &qu->filter,
							       collect_id, &got)
				     : imp_world_overlap_shape(sc->w, qu->q.shape, qu->q.pose3, &qu->filter,
							       collect_id, &got);
	assert_int_equal(st, IMP_OK);
	assert_int_equal(got.n, nt);
	// Index order: the oracle's order is the world's slot order only for
	// bodies added in order; compare as sets, then check the ids ascend.
	for (int k = 0; k < nt; k++) {
		bool found = false;
		for (int j = 0; j < got.n; j++)
			found = found || imp_body_id_equal(got.id[j], sc->id[truth[k]]);
		assert_true(found);
	}
	for (int j = 1; j < got.n; j++)
		assert_true(got.id[j - 1].index < got.id[j].index);
	bool any = false;
	st = sc->dim == 2 ? imp_world_overlap_any(sc->w, qu->q.shape, qu->q.pose2, &qu->filter, &any)
			  : imp_world_overlap_any(sc->w, qu->q.shape, qu->q.pose3, &qu->filter, &any);
	assert_int_equal(st, IMP_OK);
	assert_int_equal(any, nt > 0);
	if (nt > 1) {
		id_list one = {.n = 0, .stop_after = 1};
		st = sc->dim == 2 ? imp_world_overlap_shape(sc->w, qu->q.shape, qu->q.pose2, &qu->filter, collect_id, &one)
				  : imp_world_overlap_shape(sc->w, qu->q.shape, qu->q.pose3, &qu->filter, collect_id, &one);
		assert_int_equal(st, IMP_OK);
		assert_int_equal(one.n, 1);
		assert_true(imp_body_id_equal(one.id[0], got.id[0]));
	}
}

/* ---- distances ---- */

static void assert_result_equal(const scene *sc, const imp_query_result *got, int want, double want_d)
{
	(void)sc;
	// The world calls the same pairwise query on the same data: the same bits.
	assert_true(got->distance == want_d);
	assert_int_equal(index_of(sc, got->body), want);
	assert_true(fabs(imp_vec3_dot(got->normal, got->normal) - 1.0) < 1e-9);
}

static void check_nearest(scene *sc, const query *qu, double max_distance)
{
	int best = -1;
	double bd = INFINITY;
	for (int i = 0; i < sc->n; i++) {
		if (!sees(sc, qu, i))
			continue;
		imp_query_result r;
		double d = pair_closest(sc, &qu->q, &sc->body[i], &r);
		// Ties go to the lower slot; oracle index order is slot order except
		// for reused slots, which a tie between two bodies never meets here.
		if (d <= max_distance && (best < 0 || d < bd)) {
			best = i;
			bd = d;
		}
	}
	imp_query_result got;
	imp_status st = sc->dim == 2
				? imp_world_nearest(sc->w, qu->q.shape, qu->q.pose2, max_distance, &qu->filter, &got)
				: imp_world_nearest(sc->w, qu->q.shape, qu->q.pose3, max_distance, &qu->filter, &got);
	assert_int_equal(st, IMP_OK);
	if (best < 0) {
		assert_int_equal(got.body.index, 0);
		assert_true(got.distance == INFINITY);
		return;
	}
	if (index_of(sc, got.body) != best)
		print_message("nearest: got %d d=%.17g, want %d d=%.17g (max %g)\n", index_of(sc, got.body), got.distance, best, bd, max_distance);
	assert_result_equal(sc, &got, best, bd);
}

typedef struct hit_list {
	imp_query_result hit[MAX_HITS];
	int n;
	int prune_at;  ///< after this many hits, return the last distance as the bound (0: never)
} hit_list;

static double collect_hit(const imp_query_result *r, void *user)
{
	hit_list *l = user;
	assert_true(l->n < MAX_HITS);
	l->hit[l->n++] = *r;
	if (l->prune_at > 0 && l->n >= l->prune_at)
		return r->distance;
	return INFINITY;
}

static void check_query_distance(scene *sc, const query *qu, double max_distance, int prune_at)
{
	int idx[MAX_HITS], nt = 0;
	double dist[MAX_HITS];
	for (int i = 0; i < sc->n; i++) {
		if (!sees(sc, qu, i))
			continue;
		imp_query_result r;
		double d = pair_closest(sc, &qu->q, &sc->body[i], &r);
		if (d <= max_distance) {
			idx[nt] = i;
			dist[nt++] = d;
		}
	}
	hit_list got = {.n = 0, .prune_at = prune_at};
	imp_status st = sc->dim == 2 ? imp_world_query_distance(sc->w, qu->q.shape, qu->q.pose2, max_distance,
								 &qu->filter, collect_hit, &got)
				     : imp_world_query_distance(sc->w, qu->q.shape, qu->q.pose3, max_distance,
								 &qu->filter, collect_hit, &got);
	assert_int_equal(st, IMP_OK);
	// Nearest first.
	for (int j = 1; j < got.n; j++)
		assert_true(got.hit[j - 1].distance <= got.hit[j].distance);
	if (prune_at == 0 || nt < prune_at) {
		if (got.n != nt) {
			for (int j = 0; j < got.n; j++) print_message("got %u:%u d=%.17g\n", got.hit[j].body.index, got.hit[j].body.generation, got.hit[j].distance);
			for (int k = 0; k < nt; k++) print_message("want %d (slot %u) d=%.17g\n", idx[k], sc->id[idx[k]].index, dist[k]);
		}
		assert_int_equal(got.n, nt);
	} else {
		// The bound fell to the prune_at-th distance: the hits are the
		// bodies within it, those at exactly it included.
		double cut = got.hit[prune_at - 1].distance;
		int within = 0;
		for (int k = 0; k < nt; k++)
			within += dist[k] <= cut;
		assert_int_equal(got.n, within);
	}
	for (int j = 0; j < got.n; j++) {
		int i = index_of(sc, got.hit[j].body);
		bool found = false;
		for (int k = 0; k < nt; k++)
			if (idx[k] == i) {
				found = true;
				assert_true(dist[k] == got.hit[j].distance);
			}
		assert_true(found);
	}
}

static void check_body_distance(scene *sc)
{
	for (int k = 0; k < 20; k++) {
		int a = ow_int(&sc->rng, sc->n), b = ow_int(&sc->rng, sc->n);
		if (a == b || !sc->body[a].live || !sc->body[b].live)
			continue;
		imp_query_result want, got;
		pair_closest(sc, &sc->body[a], &sc->body[b], &want);
		assert_int_equal(imp_world_distance(sc->w, sc->id[a], sc->id[b], &got), IMP_OK);
		assert_true(imp_body_id_equal(got.body, sc->id[b]));
		// The pair's cache may start GJK elsewhere: equal to rounding.
		double scale = 1.0 + fabs(want.distance);
		assert_true(fabs(got.distance - want.distance) <= 1e-9 * scale);
		assert_true(imp_vec3_dot(got.normal, want.normal) > 1.0 - 1e-6 || fabs(want.distance) < 1e-9);
		imp_vec3 gap = imp_vec3_sub(got.body_point, got.point);
		assert_true(fabs(imp_vec3_dot(gap, got.normal) - got.distance) <= 1e-9 * scale);
	}
}

typedef struct pair_list {
	int a[4 * MAX_BODIES], b[4 * MAX_BODIES];
	double d[4 * MAX_BODIES];
	int n;
	const scene *sc;
} pair_list;

static bool collect_pair(imp_body_id a, const imp_query_result *r, void *user)
{
	pair_list *l = user;
	assert_true(l->n < 4 * MAX_BODIES);
	l->a[l->n] = index_of(l->sc, a);
	l->b[l->n] = index_of(l->sc, r->body);
	l->d[l->n++] = r->distance;
	return true;
}

static void check_clearance(scene *sc, double margin)
{
	pair_list got = {.n = 0, .sc = sc};
	assert_int_equal(imp_world_clearance(sc->w, margin, collect_pair, &got), IMP_OK);
	int want = 0;
	for (int i = 0; i < sc->n; i++) {
		for (int j = i + 1; j < sc->n; j++) {
			const ow_body *a = &sc->body[i], *b = &sc->body[j];
			if (!a->live || !b->live || (a->type == IMP_BODY_STATIC && b->type == IMP_BODY_STATIC) ||
			    !ow_filter_pairs(a->filter, b->filter))
				continue;
			imp_query_result r;
			double d = pair_closest(sc, a, b, &r);
			bool edge = fabs(d - margin) <= 1e-9;
			bool in = d <= margin;
			int found = 0;
			for (int k = 0; k < got.n; k++)
				found += (got.a[k] == i && got.b[k] == j) || (got.a[k] == j && got.b[k] == i);
			assert_true(found <= 1);
			if (!edge)
				assert_int_equal(found, in);
			want += found;
		}
	}
	assert_int_equal(got.n, want);
}

/* ---- motion ---- */

static void check_cast(scene *sc, const query *qu)
{
	imp_motion2 m2;
	imp_motion3 m3;
	imp_pose2 to2 = random_pose2(sc);
	imp_pose3 to3 = random_pose3(sc);
	// Short motions mostly, some across the scene.
	double f = ow_int(&sc->rng, 2) == 0 ? 0.2 : 1.0;
	if (sc->dim == 2) {
		to2.p = imp_vec2_add(qu->q.pose2.p, imp_vec2_scale(f, imp_vec2_sub(to2.p, qu->q.pose2.p)));
		imp_rot2 d = imp_rot2_mul_inv(qu->q.pose2.q, to2.q);
		m2 = (imp_motion2){qu->q.pose2, imp_vec2_sub(to2.p, qu->q.pose2.p), atan2(d.s, d.c)};
	} else {
		to3.p = imp_vec3_add(qu->q.pose3.p, imp_vec3_scale(f, imp_vec3_sub(to3.p, qu->q.pose3.p)));
		to3.q = qu->q.pose3.q; // translation only in 3D: the oracle's motion is then exact
		m3 = (imp_motion3){qu->q.pose3, imp_vec3_sub(to3.p, qu->q.pose3.p), imp_vec3_make(0, 0, 0)};
	}
	int best = -1;
	double bt = 1.0;
	double hit_t[MAX_BODIES]; // each body's own first contact (2: none)
	for (int i = 0; i < sc->n; i++) {
		hit_t[i] = 2.0;
		if (!sees(sc, qu, i))
			continue;
		const ow_body *b = &sc->body[i];
		imp_toi_state state;
		double t;
		// One run with the cast's whole budget (the cast runs it 64
		// queries at a time, resuming where each run stopped).
		imp_toi_options o = imp_default_toi_options();
		o.max_iterations = imp_default_cast_options().max_iterations;
		if (sc->dim == 2) {
			imp_toi2_result r;
			imp_motion2 mb = {b->pose2, imp_vec2_make(0, 0), 0};
			assert_int_equal(imp_time_of_impact2_ex(qu->q.shape, m2, b->shape, mb, 1.0, &o, &r), IMP_OK);
			state = r.state;
			t = r.t;
		} else {
			imp_toi3_result r;
			imp_motion3 mb = {b->pose3, imp_vec3_make(0, 0, 0), imp_vec3_make(0, 0, 0)};
			assert_int_equal(imp_time_of_impact3_ex(qu->q.shape, m3, b->shape, mb, 1.0, &o, &r), IMP_OK);
			state = r.state;
			t = r.t;
		}
		if (state == IMP_TOI_SEPARATED)
			continue;
		assert_true(state == IMP_TOI_HIT || state == IMP_TOI_OVERLAPPED); // the budget is enough here
		hit_t[i] = t;
		if (best < 0 || t < bt) {
			best = i;
			bt = t;
		}
	}
	imp_cast_hit hit;
	imp_status st = sc->dim == 2 ? imp_world_cast_shape(sc->w, qu->q.shape, qu->q.pose2, to2, &qu->filter, &hit)
				     : imp_world_cast_shape(sc->w, qu->q.shape, qu->q.pose3, to3, &qu->filter, &hit);
	assert_int_equal(st, IMP_OK);
	// The motion check answers as the cast.
	bool free_motion = !(best < 0);
	st = sc->dim == 2 ? imp_world_motion_free(sc->w, qu->q.shape, qu->q.pose2, to2, &qu->filter, &free_motion)
			  : imp_world_motion_free(sc->w, qu->q.shape, qu->q.pose3, to3, &qu->filter, &free_motion);
	assert_int_equal(st, IMP_OK);
	assert_true(free_motion == (best < 0));
	if (best < 0) {
		assert_int_equal(hit.body.index, 0);
		assert_true(hit.t == 1.0);
		assert_int_equal(hit.state, IMP_CAST_FREE);
		assert_false(hit.started_inside);
		return;
	}
	assert_true(hit.body.index != 0);
	assert_int_equal(hit.state, IMP_CAST_HIT);
	assert_true(hit.started_inside == (hit.t == 0.0));
	// The world bounds each body's query by the earliest hit so far, so a
	// body's answer may come from a shorter run: the time agrees to the
	// time-of-impact tolerance's scale.
	assert_true(fabs(hit.t - bt) <= 1e-6);
	// The body reported is one the oracle sees hit then: the first, or one
	// hit at the same time to the tolerance.
	int got = index_of(sc, hit.body);
	assert_true(sees(sc, qu, got));
	assert_true(fabs(hit_t[got] - bt) <= 1e-6);
}

/* ---- rays ---- */

/// Distance from the point at position x to body i (the oracle's own point
/// shape).
static double point_distance(const scene *sc, const imp_shape *point, imp_vec3 x, int i)
{
	const ow_body *b = &sc->body[i];
	if (sc->dim == 2)
		return imp_distance2(point, imp_pose2_make(x.x, x.y, 0.0), b->shape, b->pose2, NULL);
	imp_pose3 p = {x, {0, 0, 0, 1}};
	return imp_distance3(point, p, b->shape, b->pose3, NULL);
}

/// The first t at which the segment meets body i, by sampling and
/// bisection on the distance (independent of the time-of-impact code): a
/// chord shorter than the sampling step may be missed. -1: none seen.
static double ray_oracle(const scene *sc, const imp_shape *point, imp_vec3 from, imp_vec3 to, int i)
{
	const int steps = 400;
	imp_vec3 d = imp_vec3_sub(to, from);
	double prev = 0.0;
	for (int k = 0; k <= steps; k++) {
		double t = (double)k / steps;
		if (point_distance(sc, point, imp_vec3_add(from, imp_vec3_scale(t, d)), i) > 0.0) {
			prev = t;
			continue;
		}
		if (k == 0)
			return 0.0;
		double lo = prev, hi = t;
		for (int it = 0; it < 60; it++) {
			double mid = 0.5 * (lo + hi);
			if (point_distance(sc, point, imp_vec3_add(from, imp_vec3_scale(mid, d)), i) > 0.0)
				lo = mid;
			else
				hi = mid;
		}
		return hi;
	}
	return -1.0;
}

typedef struct ray_list {
	imp_ray_hit hit[MAX_HITS];
	int n;
} ray_list;

static bool collect_ray(const imp_ray_hit *h, void *user)
{
	ray_list *l = user;
	assert_true(l->n < MAX_HITS);
	l->hit[l->n++] = *h;
	return true;
}

static void check_ray(scene *sc, const query *qu, const imp_shape *point)
{
	imp_vec3 from, to;
	if (sc->dim == 2) {
		from = imp_vec3_make(qu->q.pose2.p.x, qu->q.pose2.p.y, 0);
		imp_pose2 e = random_pose2(sc);
		to = imp_vec3_make(e.p.x, e.p.y, 0);
	} else {
		from = qu->q.pose3.p;
		to = random_pose3(sc).p;
	}
	double len = sqrt(imp_vec3_dot(imp_vec3_sub(to, from), imp_vec3_sub(to, from)));
	// What the time-of-impact tolerance allows: 1e-6 of the shapes' size,
	// as a fraction of the ray.
	double slack = 1e-5 / fmax(len, 1e-12);
	imp_ray_hit first;
	ray_list all = {.n = 0};
	imp_status st, st2;
	if (sc->dim == 2) {
		imp_vec2 f2 = {from.x, from.y}, t2 = {to.x, to.y};
		st = imp_world_ray_cast(sc->w, f2, t2, &qu->filter, &first);
		st2 = imp_world_ray_cast_all(sc->w, f2, t2, &qu->filter, collect_ray, &all);
	} else {
		st = imp_world_ray_cast(sc->w, from, to, &qu->filter, &first);
		st2 = imp_world_ray_cast_all(sc->w, from, to, &qu->filter, collect_ray, &all);
	}
	assert_int_equal(st, IMP_OK);
	assert_int_equal(st2, IMP_OK);
	double first_t = 2.0;
	int hits = 0;
	for (int i = 0; i < sc->n; i++) {
		if (!sees(sc, qu, i))
			continue;
		double t = ray_oracle(sc, point, from, to, i);
		int found = -1;
		for (int j = 0; j < all.n; j++)
			if (imp_body_id_equal(all.hit[j].body, sc->id[i]))
				found = j;
		if (t >= 0.0) {
			// Every body the oracle sees met is met, no later than the oracle says.
			assert_true(found >= 0);
			assert_true(all.hit[found].t <= t + slack);
			first_t = fmin(first_t, t);
			hits++;
		}
		if (found >= 0) {
			// Where the world says it met the body, it is within the tolerance.
			double tt = all.hit[found].t;
			double d = point_distance(sc, point, imp_vec3_add(from, imp_vec3_scale(tt, imp_vec3_sub(to, from))), i);
			assert_true(d <= 1e-5);
		}
	}
	assert_true(all.n >= hits);
	for (int j = 1; j < all.n; j++)
		assert_true(all.hit[j - 1].t <= all.hit[j].t);
	if (all.n == 0) {
		assert_int_equal(first.body.index, 0);
		assert_true(first.t == 1.0);
	} else {
		assert_true(imp_body_id_equal(first.body, all.hit[0].body) || first.t == all.hit[0].t);
		assert_true(first.t == all.hit[0].t);
		assert_true(first.t <= first_t + slack);
		assert_true(fabs(imp_vec3_dot(first.normal, first.normal) - 1.0) < 1e-9);
	}
}

/* ---- the runs ---- */

static void run_scene(int dim, imp_broad_kind kind, uint64_t seed)
{
	scene *sc = calloc(1, sizeof *sc);
	assert_non_null(sc);
	scene_make(sc, dim, kind, 300, seed);
	imp_shape *point = NULL;
	if (dim == 2)
		assert_int_equal(imp_shape_polygon(&(imp_vec2){0, 0}, 1, 0.0, &point), IMP_OK);
	else
		assert_int_equal(imp_shape_polytope(&(imp_vec3){0, 0, 0}, 1, 0.0, &point), IMP_OK);
	for (int k = 0; k < 60; k++) {
		imp_shape *shape = random_shape(sc);
		query qu;
		random_query(sc, &qu, shape);
		check_overlap(sc, &qu);
		check_nearest(sc, &qu, INFINITY);
		check_nearest(sc, &qu, ow_range(&sc->rng, -0.1, 0.5));
		check_query_distance(sc, &qu, ow_range(&sc->rng, -0.05, 0.8), 0);
		check_query_distance(sc, &qu, 1.0, 1 + ow_int(&sc->rng, 4));
		if (k % 10 == 0) {
			// The largest finite bounds: every body the query sees (the
			// bound widened by rounding overflows to +inf).
			check_query_distance(sc, &qu, DBL_MAX, 0);
			check_nearest(sc, &qu, DBL_MAX);
		}
		check_cast(sc, &qu);
		if (k % 4 == 0)
			check_ray(sc, &qu, point);
		imp_shape_destroy(shape);
	}
	imp_shape_destroy(point);
	check_body_distance(sc);
	check_clearance(sc, 0.0);
	check_clearance(sc, 0.2);
	scene_free(sc);
	free(sc);
}

static void test_queries_2d_hash(void **state)
{
	(void)state;
	run_scene(2, IMP_BROAD_HASH, 0x5101);
	run_scene(2, IMP_BROAD_HASH, 0x5102);
}

static void test_queries_2d_sweep(void **state)
{
	(void)state;
	run_scene(2, IMP_BROAD_SWEEP, 0x5201);
}

static void test_queries_2d_naive(void **state)
{
	(void)state;
	run_scene(2, IMP_BROAD_NAIVE, 0x5301);
}

static void test_queries_3d_hash(void **state)
{
	(void)state;
	run_scene(3, IMP_BROAD_HASH, 0x5401);
	run_scene(3, IMP_BROAD_HASH, 0x5402);
}

static void test_queries_3d_sweep(void **state)
{
	(void)state;
	run_scene(3, IMP_BROAD_SWEEP, 0x5501);
}

static void test_queries_3d_naive(void **state)
{
	(void)state;
	run_scene(3, IMP_BROAD_NAIVE, 0x5601);
}

/* ---- bounds at the edge ---- */

static double count_any(const imp_query_result *hit, void *user)
{
	(void)hit;
	++*(int *)user;
	return INFINITY;
}

/// A body exactly at max_distance (the narrow phase's own distance) is
/// found, touching bodies at max_distance 0 too: the lower bounds that
/// prune are rounded sums and square roots of coordinates, and must not
/// come out above the distance they bound. And mirrored bodies at the very
/// same distance give the lower index, whichever is met first.
static void test_query_bound_edges(void **state)
{
	(void)state;
	uint64_t s = 0x5701;
	ow_rng r = {s};
	int ties = 0;
	for (int t = 0; t < 3000; t++) {
		double rq = ow_range(&r, 0.1, 2.0), rb = ow_range(&r, 0.1, 2.0);
		imp_shape *qs, *bs;
		assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), rq, &qs), IMP_OK);
		if (t % 2)
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), rb, &bs), IMP_OK);
		else
			assert_int_equal(imp_shape_box2(rb, 0.5 * rb, 0.0, &bs), IMP_OK);
		imp_pose2 pq = imp_pose2_make(ow_range(&r, -10, 10), ow_range(&r, -10, 10), ow_range(&r, 0, 6.28));
		imp_pose2 pb = imp_pose2_make(ow_range(&r, -10, 10), ow_range(&r, -10, 10), ow_range(&r, 0, 6.28));
		if (t % 3 == 0) {
			// Touching: b moved along the line of centres to distance 0.
			imp_closest2_result c0;
			assert_int_equal(imp_closest2(qs, pq, bs, pb, NULL, &c0), IMP_OK);
			pb.p = imp_vec2_sub(pb.p, imp_vec2_scale(c0.distance, c0.normal));
		}
		imp_closest2_result c;
		assert_int_equal(imp_closest2(qs, pq, bs, pb, NULL, &c), IMP_OK);
		imp_world_def def = imp_default_world_def();
		def.dim = 2;
		imp_world *w;
		assert_int_equal(imp_world_create(&def, &w), IMP_OK);
		imp_body_def bd = imp_default_body_def();
		bd.shape = bs;
		bd.pose2 = pb;
		imp_body_id id;
		assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
		if (t % 4 < 2)
			assert_int_equal(imp_world_update(w), IMP_OK); // the tree's path, else the moved list's
		double d = c.distance > 0.0 ? c.distance : 0.0;
		imp_query_result near;
		// On the tree's path, enough times for its four-wide copy (made
		// after a run of queries on an unchanged tree) to answer too.
		for (int rep = 0; rep < (t % 4 < 2 ? 40 : 1); rep++) {
			int got = 0;
			assert_int_equal(imp_world_query_distance2(w, qs, pq, d, NULL, count_any, &got), IMP_OK);
			assert_int_equal(got, 1);
			assert_int_equal(imp_world_nearest2(w, qs, pq, d, NULL, &near), IMP_OK);
			assert_true(imp_body_id_equal(near.body, id));
		}
		// The mirror image of b about the vertical through the query's
		// centre: a disc there is at exactly the same distance.
		if (t % 2) {
			imp_body_id low, high, gone;
			imp_world_destroy(w);
			assert_int_equal(imp_world_create(&def, &w), IMP_OK);
			bd.pose2 = imp_pose2_make(2.0 * pq.p.x - pb.p.x, pb.p.y, 0.0);
			assert_int_equal(imp_world_add_body(w, &bd, &gone), IMP_OK);
			assert_int_equal(imp_world_add_body(w, &bd, &high), IMP_OK);
			// The lower slot again, for b itself, after `high` in the moved list.
			assert_int_equal(imp_world_remove_body(w, gone), IMP_OK);
			bd.pose2 = pb;
			assert_int_equal(imp_world_add_body(w, &bd, &low), IMP_OK);
			assert_true(low.index < high.index);
			imp_closest2_result cm;
			assert_int_equal(imp_closest2(qs, pq, bs, bd.pose2, NULL, &cm), IMP_OK);
			imp_closest2_result ch;
			imp_pose2 mirror = imp_pose2_make(2.0 * pq.p.x - pb.p.x, pb.p.y, 0.0);
			assert_int_equal(imp_closest2(qs, pq, bs, mirror, NULL, &ch), IMP_OK);
			if (cm.distance == ch.distance) {
				ties++;
				for (int u = 0; u < 2; u++) {
					assert_int_equal(imp_world_nearest2(w, qs, pq, INFINITY, NULL, &near), IMP_OK);
					assert_true(imp_body_id_equal(near.body, low));
					assert_int_equal(imp_world_update(w), IMP_OK);
				}
			}
		}
		imp_world_destroy(w);
		imp_shape_destroy(qs);
		imp_shape_destroy(bs);
	}
	assert_true(ties > 100);
}

/* ---- bad input ---- */

typedef struct nested {
	imp_world *w;
	const imp_shape *shape;
	imp_body_id body;
	int calls;
} nested;

/// Inside a query's callback: every change of the world is refused; other
/// queries answer (queries write nothing of the world's), as they would
/// outside it.
static bool nested_call(imp_body_id id, void *user)
{
	nested *n = user;
	(void)id;
	n->calls++;
	bool any = false;
	imp_query_result r;
	assert_int_equal(imp_world_overlap_any2(n->w, n->shape, imp_pose2_make(0, 0, 0), NULL, &any), IMP_OK);
	assert_true(any);
	assert_int_equal(imp_world_nearest2(n->w, n->shape, imp_pose2_make(0, 0, 0), INFINITY, NULL, &r), IMP_OK);
	assert_true(r.distance < 0.0);
	assert_int_equal(imp_world_remove_body(n->w, n->body), IMP_ERR_BUSY);
	assert_int_equal(imp_body_set_pose2(n->w, n->body, imp_pose2_make(5, 5, 0)), IMP_ERR_BUSY);
	assert_int_equal(imp_body_set_velocity2(n->w, n->body, imp_vec2_make(1, 0), 0.0), IMP_ERR_BUSY);
	assert_int_equal(imp_body_set_user_data(n->w, n->body, NULL), IMP_ERR_BUSY);
	assert_int_equal(imp_world_update(n->w), IMP_ERR_BUSY);
	return true;
}

static double nested_distance(const imp_query_result *hit, void *user)
{
	nested_call(hit->body, user);
	return INFINITY;
}

static void test_query_errors(void **state)
{
	(void)state;
	imp_world_def def = imp_default_world_def();
	def.dim = 2;
	imp_world *w = NULL, *other = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	assert_int_equal(imp_world_create(&def, &other), IMP_OK);
	imp_shape *box = NULL, *ball = NULL;
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &box), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.5, &ball), IMP_OK);
	imp_body_def bd = imp_default_body_def();
	bd.shape = box;
	imp_body_id a, b, gone, foreign;
	assert_int_equal(imp_world_add_body(w, &bd, &a), IMP_OK);
	bd.pose2 = imp_pose2_make(0.5, 0.2, 0.3);
	assert_int_equal(imp_world_add_body(w, &bd, &b), IMP_OK);
	assert_int_equal(imp_world_add_body(w, &bd, &gone), IMP_OK);
	assert_int_equal(imp_world_remove_body(w, gone), IMP_OK);
	assert_int_equal(imp_world_add_body(other, &bd, &foreign), IMP_OK);
	assert_int_equal(imp_world_update(w), IMP_OK);
	imp_pose2 p = imp_pose2_make(0.1, 0.1, 0.0);
	imp_pose3 p3 = {imp_vec3_make(0, 0, 0), {0, 0, 0, 1}};
	bool any = false;
	imp_query_result r = {.distance = 42.0};
	imp_cast_hit hit = {.t = 42.0};
	imp_ray_hit ray = {.t = 42.0};
	id_list ids = {.n = 0};

	// NULL world, shape, callback or result.
	assert_int_equal(imp_world_overlap_any2(NULL, box, p, NULL, &any), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_overlap_any2(w, NULL, p, NULL, &any), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_overlap_any2(w, box, p, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_overlap_shape2(w, box, p, NULL, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_nearest2(w, box, p, 1.0, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_query_distance2(w, box, p, 1.0, NULL, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_cast_shape2(w, box, p, p, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_ray_cast2(w, p.p, p.p, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_ray_cast_all2(w, p.p, p.p, NULL, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_clearance(NULL, 0.0, collect_pair, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_clearance(w, 0.0, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_distance(w, a, b, NULL), IMP_ERR_NULL_ARGUMENT);

	// Wrong dimension: a 3D shape, or the 3D call on a 2D world.
	assert_int_equal(imp_world_overlap_any2(w, ball, p, NULL, &any), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_overlap_any3(w, ball, p3, NULL, &any), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_nearest3(w, ball, p3, 1.0, NULL, &r), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_ray_cast3(w, p3.p, p3.p, NULL, &ray), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_cast_shape3(w, ball, p3, p3, NULL, &hit), IMP_ERR_DIMENSION_MISMATCH);

	// Bad poses: NaN, not unit, out of range; the end pose of a cast too.
	imp_pose2 nan_pose = imp_pose2_make(NAN, 0, 0), skew = {{0, 0}, {2.0, 0.0}}, far = imp_pose2_make(1e300, 0, 0);
	assert_int_equal(imp_world_overlap_any2(w, box, nan_pose, NULL, &any), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_overlap_any2(w, box, skew, NULL, &any), IMP_ERR_BAD_ROTATION);
	assert_int_equal(imp_world_overlap_any2(w, box, far, NULL, &any), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_world_cast_shape2(w, box, p, nan_pose, NULL, &hit), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_ray_cast2(w, p.p, imp_vec2_make(INFINITY, 0), NULL, &ray), IMP_ERR_NOT_FINITE);

	// Bad ignore ids: removed, or of another world.
	imp_query_filter f = imp_default_query_filter();
	f.ignore = gone;
	assert_int_equal(imp_world_overlap_any2(w, box, p, &f, &any), IMP_ERR_BAD_ID);
	f.ignore = foreign;
	assert_int_equal(imp_world_nearest2(w, box, p, 1.0, &f, &r), IMP_ERR_BAD_ID);
	assert_int_equal(imp_world_distance(w, a, gone, &r), IMP_ERR_BAD_ID);
	assert_int_equal(imp_world_distance(w, a, foreign, &r), IMP_ERR_BAD_ID);
	assert_int_equal(imp_world_distance(w, a, a, &r), IMP_ERR_BAD_ID);

	// Bad bounds.
	assert_int_equal(imp_world_nearest2(w, box, p, NAN, NULL, &r), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_query_distance2(w, box, p, INFINITY, NULL, collect_hit, NULL), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_clearance(w, -1.0, collect_pair, NULL), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_world_clearance(w, NAN, collect_pair, NULL), IMP_ERR_BAD_RADIUS);

	// Nothing written on error.
	assert_true(r.distance == 42.0 && hit.t == 42.0 && ray.t == 42.0 && !any);

	// The ignored body is not seen; the other one is.
	f = imp_default_query_filter();
	f.ignore = a;
	assert_int_equal(imp_world_overlap_shape2(w, box, p, &f, collect_id, &ids), IMP_OK);
	assert_int_equal(ids.n, 1);
	assert_true(imp_body_id_equal(ids.id[0], b));

	// Busy inside the callbacks.
	nested n = {w, box, a, 0};
	assert_int_equal(imp_world_overlap_shape2(w, box, p, NULL, nested_call, &n), IMP_OK);
	assert_int_equal(imp_world_query_distance2(w, box, p, 1.0, NULL, nested_distance, &n), IMP_OK);
	assert_int_equal(n.calls, 4);
	assert_int_equal(imp_world_overlap_any2(w, box, p, NULL, &any), IMP_OK);
	assert_true(any);

	imp_world_destroy(w);
	imp_world_destroy(other);

	// Out of memory: the query's buffer cannot grow; the world still works.
	// 200 boxes 0.02 apart: more candidates than a query holds on its own
	// stack, so that it grows its buffer from the allocator.
	counting c = {.fail_at = -1};
	def.allocator = counting_allocator(&c);
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	for (int i = 0; i < 200; i++) {
		bd.pose2 = imp_pose2_make(0.02 * i, 0, 0);
		assert_int_equal(imp_world_add_body(w, &bd, &a), IMP_OK);
	}
	assert_int_equal(imp_world_update(w), IMP_OK);
	ids.n = 0;
	assert_int_equal(imp_world_overlap_shape2(w, box, imp_pose2_make(2, 0, 0), NULL, collect_id, &ids), IMP_OK);
	int want = ids.n;
	assert_true(want > 64);
	int want_near = 0; // the distance query: its candidates and its answers past the stack's room
	assert_int_equal(imp_world_query_distance2(w, box, imp_pose2_make(2, 0, 0), 0.5, NULL, count_any, &want_near),
			 IMP_OK);
	assert_true(want_near > 64);
	imp_world_destroy(w);
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	for (int i = 0; i < 200; i++) {
		bd.pose2 = imp_pose2_make(0.02 * i, 0, 0);
		assert_int_equal(imp_world_add_body(w, &bd, &a), IMP_OK);
	}
	assert_int_equal(imp_world_update(w), IMP_OK);
	// Each allocation a first query makes fails in turn: the query tree's
	// (the broad phase answers without it), the candidates'. Each query
	// either fails with nothing reported or is right.
	int ooms = 0, near_ooms = 0;
	for (int k = 1; k <= 16; k++) {
		c.fail_at = c.calls + k;
		ids.n = 0;
		imp_status st = imp_world_overlap_shape2(w, box, imp_pose2_make(2, 0, 0), NULL, collect_id, &ids);
		assert_true(st == IMP_OK || st == IMP_ERR_OUT_OF_MEMORY);
		assert_int_equal(ids.n, st == IMP_OK ? want : 0);
		ooms += st != IMP_OK;
		ray.t = 42.0;
		st = imp_world_ray_cast2(w, imp_vec2_make(-5, 0), imp_vec2_make(5, 0), NULL, &ray);
		assert_true(st == IMP_OK || st == IMP_ERR_OUT_OF_MEMORY);
		assert_true(st == IMP_OK ? fabs(ray.t - 0.45) < 1e-6 : ray.t == 42.0);
		ooms += st != IMP_OK;
		int near = 0;
		st = imp_world_query_distance2(w, box, imp_pose2_make(2, 0, 0), 0.5, NULL, count_any, &near);
		assert_true(st == IMP_OK || st == IMP_ERR_OUT_OF_MEMORY);
		assert_int_equal(near, st == IMP_OK ? want_near : 0);
		near_ooms += st != IMP_OK;
		imp_world_destroy(w);
		c.fail_at = -1;
		assert_int_equal(imp_world_create(&def, &w), IMP_OK);
		for (int i = 0; i < 200; i++) {
			bd.pose2 = imp_pose2_make(0.02 * i, 0, 0);
			assert_int_equal(imp_world_add_body(w, &bd, &a), IMP_OK);
		}
		assert_int_equal(imp_world_update(w), IMP_OK);
	}
	assert_true(ooms > 0);
	assert_true(near_ooms >= 2); // its candidates' room and its answers'
	c.fail_at = -1;
	assert_int_equal(imp_world_overlap_shape2(w, box, imp_pose2_make(2, 0, 0), NULL, collect_id, &ids), IMP_OK);
	assert_true(ids.n > 0);
	assert_int_equal(imp_world_ray_cast2(w, imp_vec2_make(-5, 0), imp_vec2_make(5, 0), NULL, &ray), IMP_OK);
	assert_true(ray.body.index != 0 && fabs(ray.t - 0.45) < 1e-6);
	imp_world_destroy(w);
	assert_int_equal(c.live, 0);
	assert_false(c.size_mismatch);
	imp_shape_destroy(box);
	imp_shape_destroy(ball);
}

/// A ray or a cast whose ends are within range but whose length along an
/// axis is beyond IMP_MAX_COORDINATE: refused (the time of impact refuses
/// such a velocity, and the queries took that for "no hit" through a unit
/// ball on the way). Up to the range, it still hits.
static void test_long_rays(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_world_def def = imp_default_world_def();
		def.dim = dim;
		imp_world *w = NULL;
		assert_int_equal(imp_world_create(&def, &w), IMP_OK);
		imp_shape *ball = NULL, *probe = NULL;
		if (dim == 2) {
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 1.0, &ball), IMP_OK);
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.5, &probe), IMP_OK);
		} else {
			assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &ball), IMP_OK);
			assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.5, &probe), IMP_OK);
		}
		imp_body_def bd = imp_default_body_def();
		bd.shape = ball;
		imp_body_id id;
		assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
		const double ends[2] = {9e149, 4e149};
		for (int k = 0; k < 2; k++) {
			double e = ends[k];
			imp_status want = 2.0 * e > IMP_MAX_COORDINATE ? IMP_ERR_OUT_OF_RANGE : IMP_OK;
			imp_ray_hit rh = {.t = -1.0};
			imp_cast_hit ch = {.t = -1.0};
			imp_status ray, cast;
			if (dim == 2) {
				ray = imp_world_ray_cast2(w, imp_vec2_make(-e, 0), imp_vec2_make(e, 0), NULL, &rh);
				cast = imp_world_cast_shape2(w, probe, imp_pose2_make(-e, 0, 0), imp_pose2_make(e, 0, 0), NULL,
							     &ch);
			} else {
				ray = imp_world_ray_cast3(w, imp_vec3_make(-e, 0, 0), imp_vec3_make(e, 0, 0), NULL, &rh);
				cast = imp_world_cast_shape3(w, probe, imp_pose3_make(imp_vec3_make(-e, 0, 0), imp_quat_identity()),
							     imp_pose3_make(imp_vec3_make(e, 0, 0), imp_quat_identity()), NULL,
							     &ch);
			}
			assert_int_equal(ray, want);
			assert_int_equal(cast, want);
			if (want == IMP_OK) {
				assert_true(imp_body_id_equal(rh.body, id) && imp_body_id_equal(ch.body, id));
				assert_true(rh.t <= 0.5 && ch.t <= 0.5);
			}
		}
		imp_world_destroy(w);
		imp_shape_destroy(ball);
		imp_shape_destroy(probe);
	}
}

/* ---- issue 20, defects 11 and 12 ---- */

static imp_world *world_of(int dim)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	return w;
}

static imp_body_id add_at(imp_world *w, const imp_shape *shape, imp_pose2 p2, imp_pose3 p3)
{
	imp_body_def bd = imp_default_body_def();
	bd.shape = shape;
	bd.pose2 = p2;
	bd.pose3 = p3;
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
	return id;
}

static bool near3(imp_vec3 a, imp_vec3 b, double tol)
{
	return fabs(a.x - b.x) <= tol && fabs(a.y - b.y) <= tol && fabs(a.z - b.z) <= tol;
}

static bool collect_first_ray(const imp_ray_hit *h, void *user)
{
	*(imp_ray_hit *)user = *h;
	return false;
}

/// Defect 11: a ray from inside a unit ball answered t = 0 with the ball's
/// nearest boundary point, off the ray, and a normal along the ray. Now:
/// the ray's start, the ray's direction reversed, started_inside; a ray
/// from outside is unchanged (a boundary point, the outward normal against
/// the ray, started_inside false). 2D and 3D, ray_cast and ray_cast_all,
/// with and without an update (the tree, then the moved list).
static void test_ray_inside(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		for (int upd = 0; upd < 2; upd++) {
			imp_world *w = world_of(dim);
			imp_shape *ball = NULL;
			if (dim == 2)
				assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 1.0, &ball), IMP_OK);
			else
				assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &ball), IMP_OK);
			imp_body_id id = add_at(w, ball, imp_pose2_make(0, 0, 0),
						imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity()));
			if (upd)
				assert_int_equal(imp_world_update(w), IMP_OK);
			// The ray, and in 3D one along a diagonal.
			imp_vec3 from = imp_vec3_make(0.2, 0, 0), to = imp_vec3_make(5, 0, 0);
			if (dim == 3) {
				from = imp_vec3_make(0.1, -0.2, 0.3);
				to = imp_vec3_make(3.1, 1.8, -0.7);
			}
			imp_vec3 d = imp_vec3_sub(to, from);
			imp_vec3 back = imp_vec3_scale(-1.0 / imp_vec3_length(d), d);
			imp_ray_hit h, ha;
			memset(&ha, 0, sizeof ha);
			if (dim == 2) {
				imp_vec2 f2 = {from.x, from.y}, t2 = {to.x, to.y};
				assert_int_equal(imp_world_ray_cast2(w, f2, t2, NULL, &h), IMP_OK);
				assert_int_equal(imp_world_ray_cast_all2(w, f2, t2, NULL, collect_first_ray, &ha), IMP_OK);
			} else {
				assert_int_equal(imp_world_ray_cast3(w, from, to, NULL, &h), IMP_OK);
				assert_int_equal(imp_world_ray_cast_all3(w, from, to, NULL, collect_first_ray, &ha), IMP_OK);
			}
			const imp_ray_hit *hs[2] = {&h, &ha};
			for (int k = 0; k < 2; k++) {
				assert_true(imp_body_id_equal(hs[k]->body, id));
				assert_true(hs[k]->t == 0.0);
				assert_true(hs[k]->started_inside);
				assert_true(near3(hs[k]->point, from, 0.0));
				assert_true(near3(hs[k]->normal, back, 1e-15));
			}
			// A ray of length 0 inside: its start, a zero normal.
			if (dim == 2)
				assert_int_equal(imp_world_ray_cast2(w, imp_vec2_make(from.x, from.y),
								     imp_vec2_make(from.x, from.y), NULL, &h),
						 IMP_OK);
			else
				assert_int_equal(imp_world_ray_cast3(w, from, from, NULL, &h), IMP_OK);
			assert_true(h.started_inside && h.t == 0.0 && near3(h.point, from, 0.0));
			assert_true(near3(h.normal, imp_vec3_make(0, 0, 0), 0.0));
			// From outside: the boundary point on the ray and the outward
			// normal there, against the ray (analytic: the unit ball).
			imp_vec3 out_from = imp_vec3_make(-3, 0, 0), out_to = imp_vec3_make(3, 0, 0);
			if (dim == 2)
				assert_int_equal(imp_world_ray_cast2(w, imp_vec2_make(-3, 0), imp_vec2_make(3, 0), NULL, &h), IMP_OK);
			else
				assert_int_equal(imp_world_ray_cast3(w, out_from, out_to, NULL, &h), IMP_OK);
			assert_true(imp_body_id_equal(h.body, id));
			assert_false(h.started_inside);
			assert_true(fabs(h.t - 1.0 / 3.0) <= 1e-6);
			assert_true(near3(h.point, imp_vec3_make(-1, 0, 0), 1e-5));
			assert_true(near3(h.normal, imp_vec3_make(-1, 0, 0), 1e-5));
			imp_world_destroy(w);
			imp_shape_destroy(ball);
		}
	}
}

/// Issue 20's defect 19 (fuzz_world's finding-ray-point-off): a hit's point
/// is on the ray at its t. The time of impact stops once the gap is within
/// its tolerance, 1e-6 of the shapes' reach (here about 0.003, a box 3000
/// long), so the body's witness was up to that far off the ray: 0.0015
/// along z for this oblique ray. Oracle (analytic): the ray meets the face
/// z = 1 (y = 1 in 2D) at t = 1/2, point (0, 0, 1), normal +z; the reported
/// t is no later (nothing passed through) and within the tolerance of it
/// along the ray, the point is from + t (to - from) to rounding and within
/// the tolerance of the face. 2D and 3D, ray_cast and ray_cast_all.
static void test_ray_point_on_ray(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_world *w = world_of(dim);
		imp_shape *box = NULL;
		if (dim == 2)
			assert_int_equal(imp_shape_box2(3000.0, 1.0, 0.0, &box), IMP_OK);
		else
			assert_int_equal(imp_shape_box3(3000.0, 1.0, 1.0, 0.0, &box), IMP_OK);
		imp_body_id id = add_at(w, box, imp_pose2_make(0, 0, 0),
					imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity()));
		// In 2D the ray runs in x, y and meets y = 1; in 3D in x, z and
		// meets z = 1.
		imp_vec3 from = dim == 2 ? imp_vec3_make(-5, 11, 0) : imp_vec3_make(-5, 0, 11);
		imp_vec3 to = dim == 2 ? imp_vec3_make(5, -9, 0) : imp_vec3_make(5, 0, -9);
		imp_vec3 up = dim == 2 ? imp_vec3_make(0, 1, 0) : imp_vec3_make(0, 0, 1);
		imp_ray_hit h, ha;
		memset(&ha, 0, sizeof ha);
		if (dim == 2) {
			imp_vec2 f2 = {from.x, from.y}, t2 = {to.x, to.y};
			assert_int_equal(imp_world_ray_cast2(w, f2, t2, NULL, &h), IMP_OK);
			assert_int_equal(imp_world_ray_cast_all2(w, f2, t2, NULL, collect_first_ray, &ha), IMP_OK);
		} else {
			assert_int_equal(imp_world_ray_cast3(w, from, to, NULL, &h), IMP_OK);
			assert_int_equal(imp_world_ray_cast_all3(w, from, to, NULL, collect_first_ray, &ha), IMP_OK);
		}
		double tol = 1e-6 * sqrt(3000.0 * 3000.0 + 2.0); // 1e-6 x the box's reach (the point's is 0)
		double len = imp_vec3_length(imp_vec3_sub(to, from));
		const imp_ray_hit *hs[2] = {&h, &ha};
		for (int k = 0; k < 2; k++) {
			const imp_ray_hit *x = hs[k];
			assert_true(imp_body_id_equal(x->body, id));
			assert_false(x->started_inside);
			assert_true(x->t <= 0.5 && x->t >= 0.5 - tol / len);
			imp_vec3 at = imp_vec3_make(from.x + x->t * (to.x - from.x), from.y + x->t * (to.y - from.y),
						    from.z + x->t * (to.z - from.z));
			assert_true(near3(x->point, at, 1e-12 * 11.0));
			double height = dim == 2 ? x->point.y : x->point.z;
			assert_true(height >= 1.0 - 1e-12 && height <= 1.0 + tol);
			assert_true(near3(x->normal, up, 1e-12));
		}
		imp_world_destroy(w);
		imp_shape_destroy(box);
	}
}

/// Defect 11 for shape casts: a cast starting in a body is a hit at t = 0
/// with started_inside, the pose pose_from, the shape's point deepest in
/// the body and the direction of least penetration. A ball of radius 0.25
/// centred 0.5 from the centre of a unit ball: the deepest point is
/// 0.25 from the centre, towards it; moving the shape away from the centre
/// separates them soonest, so the normal (from the shape to the body,
/// -normal the way out) points at the centre. Whatever the motion.
static void test_cast_inside(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_world *w = world_of(dim);
		imp_shape *ball = NULL, *probe = NULL;
		if (dim == 2) {
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 1.0, &ball), IMP_OK);
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.25, &probe), IMP_OK);
		} else {
			assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &ball), IMP_OK);
			assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.25, &probe), IMP_OK);
		}
		imp_body_id id =
			add_at(w, ball, imp_pose2_make(0, 0, 0), imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity()));
		// The start on a unit direction u, 0.5 from the centre.
		imp_vec3 u = dim == 2 ? imp_vec3_make(0.6, 0.8, 0) : imp_vec3_make(0.48, 0.6, 0.64);
		imp_vec3 c = imp_vec3_scale(0.5, u);
		imp_cast_hit hit;
		bool free_motion = true;
		if (dim == 2) {
			imp_pose2 f = imp_pose2_make(c.x, c.y, 0.3), t = imp_pose2_make(4, -1, 1.0);
			assert_int_equal(imp_world_cast_shape2(w, probe, f, t, NULL, &hit), IMP_OK);
			assert_int_equal(imp_world_motion_free2(w, probe, f, t, NULL, &free_motion), IMP_OK);
			assert_true(near3(hit.pose.p, c, 0.0));
		} else {
			imp_pose3 f = imp_pose3_make(c, imp_quat_identity());
			imp_pose3 t = imp_pose3_make(imp_vec3_make(4, -1, 2), imp_quat_identity());
			assert_int_equal(imp_world_cast_shape3(w, probe, f, t, NULL, &hit), IMP_OK);
			assert_int_equal(imp_world_motion_free3(w, probe, f, t, NULL, &free_motion), IMP_OK);
			assert_true(near3(hit.pose.p, c, 0.0));
		}
		assert_false(free_motion);
		assert_true(imp_body_id_equal(hit.body, id));
		assert_int_equal(hit.state, IMP_CAST_HIT);
		assert_true(hit.t == 0.0);
		assert_true(hit.started_inside);
		assert_true(near3(hit.point, imp_vec3_scale(0.25, u), 1e-9));
		assert_true(near3(hit.normal, imp_vec3_scale(-1.0, u), 1e-9));
		// Starting 0.1 outside and moving in: a hit on the way, not inside.
		imp_vec3 c2 = imp_vec3_scale(1.35, u);
		if (dim == 2)
			assert_int_equal(imp_world_cast_shape2(w, probe, imp_pose2_make(c2.x, c2.y, 0), imp_pose2_make(0, 0, 0),
							       NULL, &hit),
					 IMP_OK);
		else
			assert_int_equal(imp_world_cast_shape3(w, probe, imp_pose3_make(c2, imp_quat_identity()),
							       imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity()), NULL, &hit),
					 IMP_OK);
		assert_int_equal(hit.state, IMP_CAST_HIT);
		assert_false(hit.started_inside);
		assert_true(fabs(hit.t - 0.1 / 1.35) <= 1e-6);
		assert_true(near3(hit.normal, imp_vec3_scale(-1.0, u), 1e-5));
		imp_world_destroy(w);
		imp_shape_destroy(ball);
		imp_shape_destroy(probe);
	}
}

/// The smallest distance between a shape and a body over the turn of
/// `turning` below, sampled at n + 1 times.
static double sampled_clearance(int dim, const imp_shape *a, double angle, const imp_shape *b, imp_pose2 b2,
				imp_pose3 b3, int n)
{
	double m = INFINITY;
	for (int k = 0; k <= n; k++) {
		double t = (double)k / n, d;
		if (dim == 2)
			d = imp_distance2(a, imp_pose2_make(0, 0, angle * t), b, b2, NULL);
		else
			d = imp_distance3(a,
					  imp_pose3_make(imp_vec3_make(0, 0, 0),
							 imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), angle * t)),
					  b, b3, NULL);
		m = fmin(m, d);
	}
	return m;
}

/// A disc's support, as the fuzz target's user ellipse (tests/fuzz/fuzz.c)
/// with both semi-axes `*user`.
static imp_vec2 user_disc_support(const void *user, imp_vec2 d)
{
	double h = *(const double *)user;
	double m = fmax(fabs(d.x), fabs(d.y));
	double x = d.x / m * h, y = d.y / m * h;
	double l = sqrt(x * x + y * y);
	return imp_vec2_make(x * h / l, y * h / l);
}

/// The first of 20,000 evenly spaced times in [0, 1] at which the disc of
/// radius r, its centre moving from `from` to `to`, meets the box [-hx, hx]
/// x [-hy, hy] (the analytic distance; the disc's turn does not change
/// it); INFINITY if none.
static double disc_meets_box(imp_vec2 from, imp_vec2 to, double r, double hx, double hy)
{
	for (int i = 0; i <= 20000; i++) {
		double t = i / 20000.0;
		double dx = fabs(from.x + t * (to.x - from.x)) - hx, dy = fabs(from.y + t * (to.y - from.y)) - hy;
		double d = dx <= 0.0 && dy <= 0.0 ? fmax(dx, dy) : hypot(fmax(dx, 0.0), fmax(dy, 0.0));
		if (d - r <= 0.0)
			return t;
	}
	return INFINITY;
}

/// Issue 20, defect 20 (fuzz_world's finding-cast-free-ends-inside): a user
/// disc of radius 2^-20 cast from (27.5625, 1.78515625) turned 67.5 degrees
/// to (-0.1875, 0), 4.08 deep in a box of half sizes 4.265625 x 4.25, was
/// called free: the pairwise time of impact's distance query at its eighth
/// step answered 3.96 for 3.1e-6 with its warm cache (test_toi's
/// test_turning_user_disc says why). The cast must hit the box no later
/// than a scan of the analytic distance meets it, and motion_free must say
/// not free; so for discs of other radii on other turning motions, each
/// cast hitting exactly when the scan meets the box.
static void test_cast_turning_user_disc(void **state)
{
	(void)state;
	double hx = 4.265625, hy = 4.25;
	imp_world *w = world_of(2);
	imp_shape *box = NULL;
	assert_int_equal(imp_shape_box2(hx, hy, 0.0, &box), IMP_OK);
	imp_body_id id = add_at(w, box, imp_pose2_make(0, 0, 0), imp_pose3_identity());
	double h = 0x1p-20;
	imp_shape *disc = NULL;
	assert_int_equal(imp_shape_user2(user_disc_support, &h, 0.0, &disc), IMP_OK);
	imp_pose2 from = {{27.5625, 1.78515625}, {0x1.87de2a6aea964p-2, 0x1.d906bcf328d46p-1}};
	imp_pose2 to = imp_pose2_make(-0.1875, 0.0, 0.0);
	double first = disc_meets_box(from.p, to.p, h, hx, hy);
	assert_true(first > 0.83 && first < 0.85);
	imp_cast_hit hit;
	bool free_motion = true;
	assert_int_equal(imp_world_cast_shape2(w, disc, from, to, NULL, &hit), IMP_OK);
	assert_int_equal(hit.state, IMP_CAST_HIT);
	assert_true(imp_body_id_equal(hit.body, id));
	assert_true(hit.t <= first && hit.t >= first - 1e-4);
	assert_false(hit.started_inside);
	assert_int_equal(imp_world_motion_free2(w, disc, from, to, NULL, &free_motion), IMP_OK);
	assert_false(free_motion);
	uint64_t s = 0x2020;
	int hits = 0;
	for (int i = 0; i < 200; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		double hr = ldexp(1.0, -2 - (int)(s % 23));
		imp_shape *u = NULL;
		assert_int_equal(imp_shape_user2(user_disc_support, &hr, 0.0, &u), IMP_OK);
		double x[5];
		for (int k = 0; k < 5; k++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			x[k] = (double)(s >> 11) * 0x1p-53;
		}
		imp_pose2 f = imp_pose2_make(10 + 20 * x[0], -8 + 16 * x[1], -3.1 + 6.2 * x[4]);
		imp_pose2 t = imp_pose2_make(-10 + 20 * x[2], -8 + 16 * x[3], 3.1 - 6.2 * x[0]);
		double tf = disc_meets_box(f.p, t.p, hr, hx, hy);
		assert_int_equal(imp_world_cast_shape2(w, u, f, t, NULL, &hit), IMP_OK);
		assert_int_equal(imp_world_motion_free2(w, u, f, t, NULL, &free_motion), IMP_OK);
		assert_true(free_motion == (hit.state == IMP_CAST_FREE));
		if (isfinite(tf)) {
			assert_int_equal(hit.state, IMP_CAST_HIT);
			assert_true(hit.t <= tf);
			hits++;
		} else if (hit.state == IMP_CAST_HIT) {
			// A graze within the tolerance (1e-6 of the reaches, under 1e-5):
			// the scan at the hit's time.
			double px = f.p.x + hit.t * (t.p.x - f.p.x), py = f.p.y + hit.t * (t.p.y - f.p.y);
			double dx = fabs(px) - hx, dy = fabs(py) - hy;
			assert_true(hypot(fmax(dx, 0.0), fmax(dy, 0.0)) - hr <= 1e-5);
		} else {
			assert_int_equal(hit.state, IMP_CAST_FREE);
		}
		imp_shape_destroy(u);
	}
	print_message("turning user discs cast: %d of 200 meet the box\n", hits);
	assert_true(hits > 50 && hits < 200);
	imp_world_destroy(w);
	imp_shape_destroy(disc);
	imp_shape_destroy(box);
}

/// Defect 12: a bar (a box 1 x 0.1 (x 0.1)) turning 1.5 rad about its
/// centre past a block whose near face is `gap` beyond the circle of the
/// bar's corners. At gap 2 mm the pairwise time of impact needs about 100
/// queries (64 is its default limit) to prove the turn free: the cast
/// called it a hit. Now the cast resumes: free, and motion_free says so;
/// with a budget of 64 it gives up (not free, the time it reached); the
/// oracle samples the turn at 20,000 times (the bar's corners move 3.8e-5
/// between samples). Closer, with the block in the corners' way, it hits.
static void test_cast_turning_box(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_shape *bar = NULL, *block = NULL;
		if (dim == 2) {
			assert_int_equal(imp_shape_box2(0.5, 0.05, 0.0, &bar), IMP_OK);
			assert_int_equal(imp_shape_box2(0.2, 0.2, 0.0, &block), IMP_OK);
		} else {
			assert_int_equal(imp_shape_box3(0.5, 0.05, 0.05, 0.0, &bar), IMP_OK);
			assert_int_equal(imp_shape_box3(0.2, 0.2, 0.2, 0.0, &block), IMP_OK);
		}
		const double gaps[3] = {0.002, 0.006, -0.002}, angle = 1.5;
		for (int k = 0; k < 3; k++) {
			double gap = gaps[k], corner = sqrt(0.5 * 0.5 + 0.05 * 0.05), c = corner + gap + 0.2, a = 0.7853981633974483;
			imp_pose2 b2 = imp_pose2_make(c * cos(a), c * sin(a), a);
			imp_pose3 b3 = imp_pose3_make(imp_vec3_make(c * cos(a), c * sin(a), 0),
						      imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), a));
			double clear = sampled_clearance(dim, bar, angle, block, b2, b3, 20000);
			// The oracle's answer is clear: the sampling step is far below it.
			// (imp_distance2/3 is 0 for overlapping shapes.)
			assert_true(gap > 0.0 ? fabs(clear - gap) <= 1e-4 : clear <= 0.0);
			imp_world *w = world_of(dim);
			imp_body_id id = add_at(w, block, b2, b3);
			imp_pose2 f2 = imp_pose2_make(0, 0, 0), t2 = imp_pose2_make(0, 0, angle);
			imp_pose3 f3 = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity());
			imp_pose3 t3 = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), angle));
			imp_cast_hit hit, h64;
			bool free_motion = gap < 0.0;
			imp_cast_options o = imp_default_cast_options();
			o.max_iterations = 64;
			if (dim == 2) {
				assert_int_equal(imp_world_cast_shape2(w, bar, f2, t2, NULL, &hit), IMP_OK);
				assert_int_equal(imp_world_cast_shape2_ex(w, bar, f2, t2, NULL, &o, &h64), IMP_OK);
				assert_int_equal(imp_world_motion_free2(w, bar, f2, t2, NULL, &free_motion), IMP_OK);
			} else {
				assert_int_equal(imp_world_cast_shape3(w, bar, f3, t3, NULL, &hit), IMP_OK);
				assert_int_equal(imp_world_cast_shape3_ex(w, bar, f3, t3, NULL, &o, &h64), IMP_OK);
				assert_int_equal(imp_world_motion_free3(w, bar, f3, t3, NULL, &free_motion), IMP_OK);
			}
			if (gap > 0.0) {
				assert_int_equal(hit.state, IMP_CAST_FREE);
				assert_int_equal(hit.body.index, 0);
				assert_true(hit.t == 1.0);
				assert_true(free_motion);
			} else {
				assert_int_equal(hit.state, IMP_CAST_HIT);
				assert_true(imp_body_id_equal(hit.body, id));
				assert_true(hit.t > 0.0 && hit.t < 1.0 && !hit.started_inside);
				assert_false(free_motion);
				// Where it says it meets the block, it does (to the tolerance),
				// and not before (sampled).
				double before = sampled_clearance(dim, bar, angle * hit.t, block, b2, b3, 2000);
				assert_true(before >= -1e-9 && before <= 1e-5);
			}
			if (gap == 0.002) {
				// 64 queries do not prove it: given up, never free.
				assert_int_equal(h64.state, IMP_CAST_GAVE_UP);
				assert_true(imp_body_id_equal(h64.body, id));
				assert_true(h64.t > 0.0 && h64.t < 1.0);
			} else if (gap > 0.0) {
				assert_int_equal(h64.state, IMP_CAST_FREE); // fewer than 64 queries at 6 mm
			}
			imp_world_destroy(w);
		}
		imp_shape_destroy(bar);
		imp_shape_destroy(block);
	}
}

/// The pose at t of the motion from f to e as the header defines it (the
/// origin on the segment, the turn through the smaller angle at a constant
/// rate), computed here: axis and angle of the relative rotation.
static imp_pose3 motion_pose3(imp_pose3 f, imp_pose3 e, double t)
{
	imp_quat d = imp_quat_mul(e.q, imp_quat_conj(f.q));
	if (d.w < 0.0)
		d = (imp_quat){-d.x, -d.y, -d.z, -d.w};
	double s = sqrt(d.x * d.x + d.y * d.y + d.z * d.z), angle = 2.0 * atan2(s, d.w);
	imp_quat turn = s > 0.0 ? imp_quat_from_axis_angle(imp_vec3_make(d.x / s, d.y / s, d.z / s), angle * t)
				: imp_quat_identity();
	return imp_pose3_make(imp_vec3_add(f.p, imp_vec3_scale(t, imp_vec3_sub(e.p, f.p))), imp_quat_mul(turn, f.q));
}

/// How far a point of `shape` can be from its origin: its box's farthest
/// corner at the identity.
static double shape_reach(const imp_shape *shape, int dim)
{
	if (dim == 2) {
		imp_aabb2 b;
		assert_int_equal(imp_shape_aabb2(shape, imp_pose2_make(0, 0, 0), &b), IMP_OK);
		double x = fmax(fabs(b.lo.x), fabs(b.hi.x)), y = fmax(fabs(b.lo.y), fabs(b.hi.y));
		return sqrt(x * x + y * y);
	}
	imp_aabb3 b;
	assert_int_equal(imp_shape_aabb3(shape, imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity()), &b), IMP_OK);
	double x = fmax(fabs(b.lo.x), fabs(b.hi.x)), y = fmax(fabs(b.lo.y), fabs(b.hi.y));
	double z = fmax(fabs(b.lo.z), fabs(b.hi.z));
	return sqrt(x * x + y * y + z * z);
}

/// Random motions (translation and turn, 2D and 3D, among 80 bodies):
/// motion_free answers exactly as the cast (free when the cast is
/// IMP_CAST_FREE), and as a dense-sampling oracle on the clear cases: free
/// when at every one of 256 sampled times every body is farther than a
/// point of the shape can move between samples (|v| + |w| reach) / 256, so
/// that nothing is met between them; not free when a sample overlaps a
/// body by more than 1e-6. Both kinds must occur often.
static void test_motion_free_random(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		scene *sc = calloc(1, sizeof *sc);
		assert_non_null(sc);
		scene_make(sc, dim, IMP_BROAD_SWEEP, 80, 0x5a01 + (uint64_t)dim);
		int clear_free = 0, clear_hit = 0, agree = 0;
		const int n = 256;
		for (int k = 0; k < 150; k++) {
			imp_shape *shape = random_shape(sc);
			query qu;
			random_query(sc, &qu, shape);
			double f = ow_int(&sc->rng, 2) == 0 ? 0.15 : 0.6;
			imp_pose3 from, to;
			imp_pose2 from2 = qu.q.pose2, to2 = random_pose2(sc);
			if (dim == 2) {
				to2.p = imp_vec2_add(from2.p, imp_vec2_scale(f, imp_vec2_sub(to2.p, from2.p)));
				from = imp_pose3_make(imp_vec3_make(from2.p.x, from2.p.y, 0),
						      imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), atan2(from2.q.s, from2.q.c)));
				to = imp_pose3_make(imp_vec3_make(to2.p.x, to2.p.y, 0),
						    imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), atan2(to2.q.s, to2.q.c)));
			} else {
				from = qu.q.pose3;
				to = random_pose3(sc);
				to.p = imp_vec3_add(from.p, imp_vec3_scale(f, imp_vec3_sub(to.p, from.p)));
			}
			bool free_motion = false;
			imp_cast_hit hit;
			if (dim == 2) {
				assert_int_equal(imp_world_motion_free2(sc->w, shape, from2, to2, &qu.filter, &free_motion), IMP_OK);
				assert_int_equal(imp_world_cast_shape2(sc->w, shape, from2, to2, &qu.filter, &hit), IMP_OK);
			} else {
				assert_int_equal(imp_world_motion_free3(sc->w, shape, from, to, &qu.filter, &free_motion), IMP_OK);
				assert_int_equal(imp_world_cast_shape3(sc->w, shape, from, to, &qu.filter, &hit), IMP_OK);
			}
			assert_true(free_motion == (hit.state == IMP_CAST_FREE));
			agree++;
			// The oracle.
			imp_quat d = imp_quat_mul(to.q, imp_quat_conj(from.q));
			double angle = 2.0 * atan2(sqrt(d.x * d.x + d.y * d.y + d.z * d.z), fabs(d.w));
			double step = (imp_vec3_length(imp_vec3_sub(to.p, from.p)) + angle * shape_reach(shape, dim)) / n;
			double least = INFINITY;
			for (int i = 0; i < sc->n; i++) {
				if (!sees(sc, &qu, i))
					continue;
				const ow_body *b = &sc->body[i];
				for (int j = 0; j <= n; j++) {
					imp_pose3 p = motion_pose3(from, to, (double)j / n);
					double dist;
					if (dim == 2) {
						imp_closest2_result c;
						imp_pose2 p2 = imp_pose2_make(p.p.x, p.p.y, 2.0 * atan2(p.q.z, p.q.w));
						assert_int_equal(imp_closest2(shape, p2, b->shape, b->pose2, NULL, &c), IMP_OK);
						dist = c.distance;
					} else {
						imp_closest3_result c;
						assert_int_equal(imp_closest3(shape, p, b->shape, b->pose3, NULL, &c), IMP_OK);
						dist = c.distance;
					}
					least = fmin(least, dist);
					if (dist > 4.0 * step)
						j += (int)floor(dist / step) - 2; // nothing is met before then
				}
			}
			if (least > step) {
				clear_free++;
				assert_true(free_motion);
			} else if (least < -1e-6) {
				clear_hit++;
				assert_false(free_motion);
			}
			imp_shape_destroy(shape);
		}
		print_message("motion_free %dD: %d motions, %d clearly free, %d clearly blocked\n", dim, agree, clear_free,
			      clear_hit);
		assert_true(clear_free >= 20 && clear_hit >= 20);
		scene_free(sc);
		free(sc);
	}
}

typedef struct busy_ctx {
	imp_world *w;
	const imp_shape *shape;
	int calls;
	bool inside_free; ///< the nested motion_free's answer
	double inside_t;  ///< the nested cast's time
} busy_ctx;

static bool busy_motion(imp_body_id id, void *user)
{
	busy_ctx *c = user;
	(void)id;
	// Queries answer inside another's callback, as outside it.
	bool out = true;
	imp_cast_hit hit = {.t = 42.0};
	assert_int_equal(imp_world_motion_free2(c->w, c->shape, imp_pose2_make(0, 0, 0), imp_pose2_make(1, 0, 0), NULL, &out),
			 IMP_OK);
	assert_int_equal(imp_world_cast_shape2_ex(c->w, c->shape, imp_pose2_make(0, 0, 0), imp_pose2_make(1, 0, 0), NULL, NULL,
						  &hit),
			 IMP_OK);
	c->inside_free = out;
	c->inside_t = hit.t;
	c->calls++;
	return true;
}

/// The new calls' arguments: NULL, wrong dimension, NaN and bad poses at
/// either end, a motion too long, a stale or foreign id to ignore, bad
/// options, busy; nothing written on error.
static void test_motion_free_errors(void **state)
{
	(void)state;
	imp_world *w = world_of(2), *other = world_of(2), *w3 = world_of(3);
	imp_shape *box = NULL, *ball = NULL;
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &box), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.5, &ball), IMP_OK);
	imp_pose3 o3 = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity());
	imp_body_id a = add_at(w, box, imp_pose2_make(3, 0, 0), o3);
	imp_body_id gone = add_at(w, box, imp_pose2_make(-3, 0, 0), o3);
	imp_body_id foreign = add_at(other, box, imp_pose2_make(0, 0, 0), o3);
	add_at(w3, ball, imp_pose2_make(0, 0, 0), imp_pose3_make(imp_vec3_make(3, 0, 0), imp_quat_identity()));
	assert_int_equal(imp_world_remove_body(w, gone), IMP_OK);
	imp_pose2 p = imp_pose2_make(0, 0, 0), q = imp_pose2_make(5, 0, 1.0);
	imp_pose2 nan_pose = imp_pose2_make(NAN, 0, 0), skew = {{0, 0}, {2.0, 0.0}}, far = imp_pose2_make(1e300, 0, 0);
	imp_pose3 p3 = o3, q3 = imp_pose3_make(imp_vec3_make(5, 0, 0), imp_quat_identity());
	imp_pose3 nan3 = imp_pose3_make(imp_vec3_make(0, NAN, 0), imp_quat_identity()), skew3 = {{0, 0, 0}, {0, 0, 0, 2}};
	bool out = true;
	imp_cast_hit hit = {.t = 42.0};
	imp_cast_options opt = imp_default_cast_options();

	assert_int_equal(imp_world_motion_free2(NULL, box, p, q, NULL, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_motion_free2(w, NULL, p, q, NULL, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_motion_free2(w, box, p, q, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_motion_free3(NULL, ball, p3, q3, NULL, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_motion_free3(w3, ball, p3, q3, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_cast_shape2_ex(NULL, box, p, q, NULL, &opt, &hit), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_cast_shape2_ex(w, box, p, q, NULL, &opt, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_cast_shape3_ex(w3, NULL, p3, q3, NULL, &opt, &hit), IMP_ERR_NULL_ARGUMENT);

	assert_int_equal(imp_world_motion_free2(w, ball, p, q, NULL, &out), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_motion_free3(w, ball, p3, q3, NULL, &out), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_motion_free2(w3, box, p, q, NULL, &out), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_world_cast_shape3_ex(w, ball, p3, q3, NULL, &opt, &hit), IMP_ERR_DIMENSION_MISMATCH);

	assert_int_equal(imp_world_motion_free2(w, box, nan_pose, q, NULL, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_motion_free2(w, box, p, nan_pose, NULL, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_motion_free2(w, box, p, skew, NULL, &out), IMP_ERR_BAD_ROTATION);
	assert_int_equal(imp_world_motion_free2(w, box, far, q, NULL, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_world_motion_free3(w3, ball, nan3, q3, NULL, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_motion_free3(w3, ball, p3, nan3, NULL, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_world_motion_free3(w3, ball, p3, skew3, NULL, &out), IMP_ERR_BAD_ROTATION);
	assert_int_equal(imp_world_cast_shape2_ex(w, box, p, nan_pose, NULL, &opt, &hit), IMP_ERR_NOT_FINITE);
	// Both ends in range, the motion longer than the range.
	assert_int_equal(imp_world_motion_free2(w, box, imp_pose2_make(-9e149, 0, 0), imp_pose2_make(9e149, 0, 0), NULL, &out),
			 IMP_ERR_OUT_OF_RANGE);

	imp_query_filter f = imp_default_query_filter();
	f.ignore = gone;
	assert_int_equal(imp_world_motion_free2(w, box, p, q, &f, &out), IMP_ERR_BAD_ID);
	f.ignore = foreign;
	assert_int_equal(imp_world_motion_free2(w, box, p, q, &f, &out), IMP_ERR_BAD_ID);
	assert_int_equal(imp_world_cast_shape2_ex(w, box, p, q, &f, &opt, &hit), IMP_ERR_BAD_ID);

	const double bad_tol[4] = {-1.0, NAN, INFINITY, 1e300};
	for (int k = 0; k < 4; k++) {
		opt = imp_default_cast_options();
		opt.tolerance = bad_tol[k];
		assert_int_equal(imp_world_cast_shape2_ex(w, box, p, q, NULL, &opt, &hit), IMP_ERR_BAD_OPTIONS);
	}
	opt = imp_default_cast_options();
	opt.max_iterations = 0;
	assert_int_equal(imp_world_cast_shape2_ex(w, box, p, q, NULL, &opt, &hit), IMP_ERR_BAD_OPTIONS);
	opt.max_iterations = -5;
	assert_int_equal(imp_world_cast_shape3_ex(w3, ball, p3, q3, NULL, &opt, &hit), IMP_ERR_BAD_OPTIONS);

	// Nothing written.
	assert_true(out && hit.t == 42.0);

	// Right arguments: blocked by a; free with a ignored; the _ex cast
	// with NULL options is the plain one; the generic names.
	assert_int_equal(imp_world_motion_free(w, box, p, q, NULL, &out), IMP_OK);
	assert_false(out);
	f.ignore = a;
	assert_int_equal(imp_world_motion_free(w, box, p, q, &f, &out), IMP_OK);
	assert_true(out);
	imp_cast_hit plain;
	assert_int_equal(imp_world_cast_shape_ex(w, box, p, q, NULL, NULL, &hit), IMP_OK);
	assert_int_equal(imp_world_cast_shape(w, box, p, q, NULL, &plain), IMP_OK);
	assert_true(hit.t == plain.t && hit.state == plain.state && imp_body_id_equal(hit.body, plain.body));
	assert_true(imp_body_id_equal(hit.body, a) && hit.state == IMP_CAST_HIT);
	assert_int_equal(imp_world_motion_free(w3, ball, p3, q3, NULL, &out), IMP_OK);
	assert_false(out);

	// Inside a query's callback, the same answers as outside it.
	busy_ctx bc = {w, box, 0, true, 0.0};
	assert_int_equal(imp_world_overlap_shape2(w, box, imp_pose2_make(3, 0, 0), NULL, busy_motion, &bc), IMP_OK);
	assert_int_equal(bc.calls, 1);
	imp_cast_hit outside = {.t = 42.0};
	assert_int_equal(imp_world_motion_free2(w, box, imp_pose2_make(0, 0, 0), imp_pose2_make(1, 0, 0), NULL, &out), IMP_OK);
	assert_int_equal(imp_world_cast_shape2_ex(w, box, imp_pose2_make(0, 0, 0), imp_pose2_make(1, 0, 0), NULL, NULL,
						  &outside),
			 IMP_OK);
	assert_true(bc.inside_free == out && bc.inside_t == outside.t);

	imp_world_destroy(w);
	imp_world_destroy(other);
	imp_world_destroy(w3);
	imp_shape_destroy(box);
	imp_shape_destroy(ball);
}

/// A unit square's support that gives no point (NaN) for a direction off
/// the axes: the shape's boxes (axis supports) are fine, the distance
/// queries of a time of impact against a tilted body are not.
static imp_vec2 axis_only_support(const void *user, imp_vec2 d)
{
	(void)user;
	if (d.x != 0.0 && d.y != 0.0)
		return imp_vec2_make(NAN, NAN);
	return imp_vec2_make(d.x > 0.0 ? 0.5 : -0.5, d.y > 0.0 ? 0.5 : -0.5);
}

/// A cast whose time of impact fails (a user support gives no point) on
/// the way through a body proved nothing: it was taken for no contact, and
/// the motion through the body was called free. Now the cast gives up
/// there (never IMP_CAST_FREE) and motion_free says not free; the body's
/// search and the body's box are both met before its time.
static void test_cast_failing_support(void **state)
{
	(void)state;
	imp_world *w = world_of(2);
	imp_shape *user = NULL, *block = NULL;
	assert_int_equal(imp_shape_user2(axis_only_support, NULL, 0.0, &user), IMP_OK);
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &block), IMP_OK);
	imp_body_id id =
		add_at(w, block, imp_pose2_make(3, 0.37, 0.3), imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity()));
	imp_pose2 f = imp_pose2_make(0, 0, 0), t = imp_pose2_make(6, 0, 0);
	imp_cast_hit hit;
	bool free_motion = true;
	assert_int_equal(imp_world_cast_shape2(w, user, f, t, NULL, &hit), IMP_OK);
	assert_int_equal(imp_world_motion_free2(w, user, f, t, NULL, &free_motion), IMP_OK);
	assert_int_equal(hit.state, IMP_CAST_GAVE_UP);
	assert_true(imp_body_id_equal(hit.body, id));
	assert_true(hit.t >= 0.0 && hit.t <= 2.0 / 6.0);
	assert_false(free_motion);
	// Away from the body the same shape moves freely.
	assert_int_equal(imp_world_cast_shape2(w, user, imp_pose2_make(0, 5, 0), imp_pose2_make(6, 5, 0), NULL, &hit),
			 IMP_OK);
	assert_int_equal(hit.state, IMP_CAST_FREE);
	imp_world_destroy(w);
	imp_shape_destroy(user);
	imp_shape_destroy(block);
}

/// A user ball of radius 0.1 about its origin that counts its supports.
typedef struct counted_ball {
	long supports;
} counted_ball;

static imp_vec3 counted_ball_support(const void *user, imp_vec3 d)
{
	counted_ball *b = (counted_ball *)user; // the test's own counter: written through
	b->supports++;
	double l = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	return l > 0.0 ? imp_vec3_scale(0.1 / l, d) : imp_vec3_make(0.1, 0.0, 0.0);
}

/// fuzz_world's finding-cast-grazing-heightfields: a height field cast onto
/// three copies of itself, ending on them, took 7 s (50 s under ASan). The
/// gap closed as the square of the time left while the bound on its rate
/// (the turn's |w| r) did not fall, so conservative advancement crawled,
/// about 5,400 queries to reach the tolerance; the cast's budget of 4,096
/// queries a body was spent in full on each body, and each query of two
/// height fields answered some 80 pairs of children twice (the closest
/// pair's walk and the advance's). The budget now counts those pairs, as
/// the world's step counts them against max_pair_calls. Here: 16 user
/// balls in a compound, turning about the axis through their centres (so
/// that they do not move while the bound counts the turn) and grazing a
/// sphere, to touch it at the end. Counted by queries the cast took 4,096
/// of them, each answering the 16 pairs twice; counted by pairs it stops
/// after 4,096 pairs. It gives up (never FREE) on the sphere.
static void test_cast_grazing_composite_bounded(void **state)
{
	(void)state;
	enum { CHILDREN = 16 };
	counted_ball ball = {0};
	imp_shape *user = NULL, *compound = NULL, *sphere = NULL;
	assert_int_equal(imp_shape_user3(counted_ball_support, &ball, 0.0, &user), IMP_OK);
	const imp_shape *children[CHILDREN];
	imp_pose3 poses[CHILDREN];
	for (int i = 0; i < CHILDREN; i++) {
		children[i] = user;
		poses[i] = imp_pose3_make(imp_vec3_make(10.0, 0.0, 0.0), imp_quat_identity());
	}
	assert_int_equal(imp_shape_compound3(children, poses, CHILDREN, &compound), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &sphere), IMP_OK);
	imp_world *w = world_of(3);
	imp_body_id id = add_at(w, sphere, imp_pose2_identity(), imp_pose3_identity());
	// The balls' centres from (-1, 1.1, 0) to (0, 1.1, 0): the gap
	// sqrt((1 - t)^2 + 1.21) - 1.1 falls to 0 at t = 1 as the square of
	// 1 - t. The turn, 3 rad about x, leaves them where they are.
	imp_pose3 from = imp_pose3_make(imp_vec3_make(-11.0, 1.1, 0.0), imp_quat_identity());
	imp_pose3 to = imp_pose3_make(imp_vec3_make(-10.0, 1.1, 0.0), imp_quat_make(sin(1.5), 0.0, 0.0, cos(1.5)));
	imp_cast_hit hit;
	ball.supports = 0;
	assert_int_equal(imp_world_cast_shape3(w, compound, from, to, NULL, &hit), IMP_OK);
	// 8,696 supports (269,186 counted by queries, giving up at 0.983):
	// at most 8 a pair over the budget's 4,096 pairs.
	assert_true(ball.supports <= 8 * 4096);
	assert_int_not_equal(hit.state, IMP_CAST_FREE);
	assert_true(imp_body_id_equal(hit.body, id));
	assert_true(hit.t >= 0.0 && hit.t <= 1.0);
	bool free_motion = true;
	assert_int_equal(imp_world_motion_free3(w, compound, from, to, NULL, &free_motion), IMP_OK);
	assert_false(free_motion);
	imp_world_destroy(w);
	imp_shape_destroy(compound);
	imp_shape_destroy(user);
	imp_shape_destroy(sphere);
}


static double count_first(const imp_query_result *hit, void *user)
{
	imp_query_result *first = user;
	if (isnan(first->distance))
		*first = *hit;
	return INFINITY;
}

/* ---- issue 20, defect 17 (found by fuzz_world: finding-nearest-deeper) ---- */

static imp_vec2 disc_support(const void *user, imp_vec2 d)
{
	double r = *(const double *)user, l = hypot(d.x, d.y);
	return (imp_vec2){r * d.x / l, r * d.y / l};
}

/// A box of half size h deep inside a large disc (a user support, so that
/// the narrow phase's expanding polygon walks the curve) next to a small
/// box it overlaps by less: the nearest body is the disc, at minus its
/// depth R + h - max(|c_x|, |c_y|) (the box's centre c, |c| < h: the
/// shortest way out is along the nearer axis). The narrow phase stops at
/// its default 64 iterations 173 short on the fuzz input's disc (radius
/// 144384, the box at (-1.1328125, 3.0078125)): the world answered
/// -144211.9 where the depth is 144385.2578125.
static void test_nearest_deep_in_curved(void **state)
{
	(void)state;
	static const double radii[] = {144384.0, 1e4, 1e6};
	const double h = 4.265625;
	static const imp_vec2 centres[] = {{-1.1328125, 3.0078125}, {0.5, -0.25}, {2.0, 1.0}, {-3.5, 0.0}};
	for (size_t ri = 0; ri < sizeof radii / sizeof radii[0]; ri++) {
		double radius = radii[ri];
		imp_world_def def = imp_default_world_def();
		def.dim = 2;
		def.broad_phase = IMP_BROAD_HASH;
		def.hash_beta = 4.0;
		def.margin = 0.0;
		imp_world *w = NULL;
		assert_int_equal(imp_world_create(&def, &w), IMP_OK);
		imp_shape *disc = NULL, *box = NULL;
		assert_int_equal(imp_shape_user2(disc_support, &radius, 0.0, &disc), IMP_OK);
		assert_int_equal(imp_shape_box2(h, h, 0.0, &box), IMP_OK);
		imp_pose3 p3 = imp_pose3_identity();
		imp_body_id small = add_at(w, box, imp_pose2_make(1.0, 2.0, 1.52), p3);
		imp_body_id big = add_at(w, disc, imp_pose2_identity(), p3);
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 1)
				assert_int_equal(imp_world_update(w), IMP_OK);
			for (size_t k = 0; k < sizeof centres / sizeof centres[0]; k++) {
				imp_vec2 c = centres[k];
				imp_pose2 at = imp_pose2_make(c.x, c.y, 0.0);
				double want = -(radius + h - fmax(fabs(c.x), fabs(c.y)));
				imp_query_result r;
				assert_int_equal(imp_world_nearest2(w, box, at, INFINITY, NULL, &r), IMP_OK);
				if (!imp_body_id_equal(r.body, big) || fabs(r.distance - want) > 1e-9 * radius)
					print_error("radius %g, box at (%g, %g): body %u at %.17g, want %.17g\n", radius,
						    c.x, c.y, r.body.index, r.distance, want);
				assert_true(imp_body_id_equal(r.body, big));
				assert_true(fabs(r.distance - want) <= 1e-9 * radius);
				// The same through query_distance, which lists it first.
				imp_query_result first = {0};
				first.distance = NAN;
				assert_int_equal(
					imp_world_query_distance2(w, box, at, 1.0, NULL, count_first, &first), IMP_OK);
				assert_true(imp_body_id_equal(first.body, big));
				assert_true(fabs(first.distance - want) <= 1e-9 * radius);
			}
		}
		(void)small;
		imp_world_destroy(w);
		imp_shape_destroy(disc);
		imp_shape_destroy(box);
	}
}

/* ---- a 3D box query's verdict from a body's origin (query.c box_verdict) ---- */

#define VB_BODIES 48

/// Bodies of every kind the verdict decides (spheres about their origin,
/// boxes sharp and rounded, capsules their origin halves) and of kinds it
/// leaves to the narrow phase (an offset sphere, a capsule from its origin,
/// a polytope), of size s about centre c, for box queries.
typedef struct vb_world {
	imp_world *w;
	int n;
	imp_shape *shape[VB_BODIES];
	imp_pose3 pose[VB_BODIES];
	imp_filter filter[VB_BODIES];
	imp_body_id id[VB_BODIES];
} vb_world;

static imp_shape *vb_shape(ow_rng *r, int kind, double s)
{
	imp_shape *out = NULL;
	imp_status st;
	double a = s * ow_range(r, 0.3, 1.0);
	switch (kind) {
	case 0: st = imp_shape_sphere(imp_vec3_make(0, 0, 0), a, &out); break;
	case 1: st = imp_shape_sphere(imp_vec3_make(0.3 * s, 0, -0.2 * s), a, &out); break;
	case 2: st = imp_shape_box3(a, s * ow_range(r, 0.2, 1.0), s * ow_range(r, 0.2, 1.0), 0.0, &out); break;
	case 3: st = imp_shape_box3(a, s * ow_range(r, 0.2, 1.0), s * ow_range(r, 0.2, 1.0), 0.2 * a, &out); break;
	case 4:
		st = imp_shape_capsule3(imp_vec3_make(0, 0, -a), imp_vec3_make(0, 0, a), s * ow_range(r, 0.1, 0.5), &out);
		break;
	case 5: st = imp_shape_capsule3(imp_vec3_make(0, 0, 0), imp_vec3_make(0, a, 0), 0.3 * s, &out); break;
	default: {
		imp_vec3 p[4] = {{a, 0, 0}, {0, a, 0}, {0, 0, a}, {-a, -a, -a}};
		st = imp_shape_polytope(p, 4, 0.0, &out);
		break;
	}
	}
	assert_int_equal(st, IMP_OK);
	return out;
}

static imp_pose3 vb_pose(ow_rng *r, imp_vec3 c, double spread)
{
	imp_pose3 p = {imp_vec3_make(c.x + ow_range(r, -spread, spread), c.y + ow_range(r, -spread, spread),
				     c.z + ow_range(r, -spread, spread)),
		       ow_quat(r)};
	return p;
}

/// n bodies of size s about c; the last third added after the update (the
/// broad phase does not hold them yet) when `late`; a quarter filtered.
static void vb_make(vb_world *v, ow_rng *r, int n, double s, imp_vec3 c, bool late)
{
	memset(v, 0, sizeof *v);
	imp_world_def def = imp_default_world_def();
	def.dim = 3;
	assert_int_equal(imp_world_create(&def, &v->w), IMP_OK);
	for (int i = 0; i < n; i++) {
		if (late && i == n - n / 3)
			assert_int_equal(imp_world_update(v->w), IMP_OK);
		v->shape[i] = vb_shape(r, i % 7, s);
		v->pose[i] = vb_pose(r, c, 3.0 * s);
		v->filter[i] = ow_int(r, 4) == 0 ? ow_random_filter(r) : imp_default_filter();
		imp_body_def d = imp_default_body_def();
		d.shape = v->shape[i];
		d.pose3 = v->pose[i];
		d.filter = v->filter[i];
		d.type = i % 2 ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
		assert_int_equal(imp_world_add_body(v->w, &d, &v->id[i]), IMP_OK);
		v->n++;
	}
	if (!late)
		assert_int_equal(imp_world_update(v->w), IMP_OK);
}

static void vb_free(vb_world *v)
{
	imp_world_destroy(v->w);
	for (int i = 0; i < v->n; i++)
		imp_shape_destroy(v->shape[i]);
}

/// The box query at pose p against brute force (imp_overlap3 on every body
/// the filter lets through but body `ignore`): any overlap, and the count
/// of all overlapping, which it returns.
static int vb_check_ignoring(const vb_world *v, const imp_shape *box, imp_pose3 p, imp_query_filter f, int ignore)
{
	int want = 0;
	for (int i = 0; i < v->n; i++)
		want += i != ignore && ow_filter_pairs(f.filter, v->filter[i]) &&
			imp_overlap3(box, p, v->shape[i], v->pose[i], NULL);
	if (ignore >= 0)
		f.ignore = v->id[ignore];
	bool any = !want;
	assert_int_equal(imp_world_overlap_any3(v->w, box, p, &f, &any), IMP_OK);
	id_list got = {.n = 0};
	assert_int_equal(imp_world_overlap_shape3(v->w, box, p, &f, collect_id, &got), IMP_OK);
	if (any != (want > 0) || got.n != want)
		print_error("box query at (%.17g, %.17g, %.17g): any %d, all %d; brute force %d\n", p.p.x, p.p.y,
			    p.p.z, any, got.n, want);
	assert_int_equal(any, want > 0);
	assert_int_equal(got.n, want);
	return want;
}

static int vb_check(const vb_world *v, const imp_shape *box, imp_pose3 p, const imp_query_filter *f)
{
	return vb_check_ignoring(v, box, p, *f, -1);
}

/// The offset along u from body i at which the box query at rotation q
/// stops overlapping it (by bisection on imp_overlap3): the boundary.
static imp_vec3 vb_boundary(const vb_world *v, int i, const imp_shape *box, imp_quat q, imp_vec3 u, double s)
{
	double in = 0.0, out = 8.0 * s;
	for (int k = 0; k < 200 && in < out; k++) {
		double mid = 0.5 * (in + out);
		if (mid == in || mid == out)
			break;
		imp_pose3 p = {imp_vec3_add(v->pose[i].p, imp_vec3_scale(mid, u)), q};
		if (imp_overlap3(box, p, v->shape[i], v->pose[i], NULL))
			in = mid;
		else
			out = mid;
	}
	return imp_vec3_add(v->pose[i].p, imp_vec3_scale(in, u));
}

static void test_box_query_verdict(void **state)
{
	(void)state;
	// Size and centre: unit, far out, tiny (below the verdict's 2^-300),
	// small, huge.
	static const double scales[][2] = {{1.0, 0.0},     {1.0, 1e12},     {1e-200, 1e-199},
					   {1e-80, 3e-80}, {1e100, 1e101}, {3e-7, -2e-6}};
	ow_rng r = {0x5EED0B0C5ull};
	for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
		double s = scales[si][0];
		imp_vec3 c = imp_vec3_make(scales[si][1], -0.5 * scales[si][1], 0.25 * scales[si][1]);
		for (int late = 0; late < 2; late++) {
			vb_world v;
			vb_make(&v, &r, 42, s, c, late);
			imp_shape *box[2];
			assert_int_equal(imp_shape_box3(0.5 * s, 0.3 * s, 0.4 * s, 0.0, &box[0]), IMP_OK);
			assert_int_equal(imp_shape_box3(0.2 * s, 0.6 * s, 0.1 * s, 0.15 * s, &box[1]), IMP_OK);
			int hits = 0, misses = 0;
			for (int k = 0; k < 300; k++) {
				imp_query_filter f = imp_default_query_filter();
				if (ow_int(&r, 4) == 0)
					f.filter = ow_random_filter(&r);
				bool a = vb_check(&v, box[k % 2], vb_pose(&r, c, 3.5 * s), &f) > 0;
				hits += a;
				misses += !a;
			}
			// Both answers common: the test reaches both exits.
			assert_true(hits > 30 && misses > 30);
			// At the boundary of one body: the last pose that overlaps, and
			// a few ulps on either side, where the verdict must leave the
			// answer to the narrow phase. (Turned: at a query turned as the
			// world's axes are, a face contact puts the boxes at touching
			// too, where the boxes' rounding, not the narrow phase, may
			// decide; the cases below touch exactly in numbers boxes hold.)
			for (int k = 0; k < 60; k++) {
				int i = ow_int(&r, v.n);
				imp_quat q = ow_quat(&r);
				imp_quat d = ow_quat(&r);
				double l = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
				imp_vec3 u = imp_vec3_make(d.x / l, d.y / l, d.z / l);
				imp_vec3 b = vb_boundary(&v, i, box[k % 2], q, u, s);
				imp_query_filter f = imp_default_query_filter();
				f.filter = v.filter[i];
				for (int step = -3; step <= 3; step++) {
					imp_vec3 at = b;
					for (int j = 0; j < (step < 0 ? -step : step); j++)
						at = imp_vec3_make(nextafter(at.x, step < 0 ? -INFINITY : INFINITY),
								   nextafter(at.y, step < 0 ? -INFINITY : INFINITY),
								   nextafter(at.z, step < 0 ? -INFINITY : INFINITY));
					vb_check(&v, box[k % 2], (imp_pose3){at, q}, &f);
				}
			}
			imp_shape_destroy(box[0]);
			imp_shape_destroy(box[1]);
			vb_free(&v);
		}
	}
}

/// Touching exactly, one shape inside the other, an empty world, filtered
/// bodies: the box query against brute force and the answer known.
static void test_box_query_verdict_cases(void **state)
{
	(void)state;
	imp_world_def def = imp_default_world_def();
	def.dim = 3;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	imp_shape *box = NULL, *tiny = NULL;
	assert_int_equal(imp_shape_box3(0.5, 0.25, 0.125, 0.0, &box), IMP_OK);
	assert_int_equal(imp_shape_box3(0.01, 0.01, 0.01, 0.0, &tiny), IMP_OK);
	imp_pose3 at0 = imp_pose3_identity();
	bool any = true;
	assert_int_equal(imp_world_overlap_any3(w, box, at0, NULL, &any), IMP_OK); // empty
	assert_false(any);
	vb_world v;
	memset(&v, 0, sizeof v);
	v.w = w;
	// A sphere and a box touching the query's +x face exactly, a capsule
	// its +y face; a sphere one ulp past touching.
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.25, &v.shape[0]), IMP_OK);
	v.pose[0] = (imp_pose3){imp_vec3_make(0.75, 0, 0), imp_quat_identity()};
	assert_int_equal(imp_shape_box3(0.25, 0.5, 0.5, 0.0, &v.shape[1]), IMP_OK);
	v.pose[1] = (imp_pose3){imp_vec3_make(-0.75, 0.1, 0), imp_quat_identity()};
	assert_int_equal(imp_shape_capsule3(imp_vec3_make(-0.5, 0, 0), imp_vec3_make(0.5, 0, 0), 0.125, &v.shape[2]),
			 IMP_OK);
	v.pose[2] = (imp_pose3){imp_vec3_make(0, 0.375, 0), imp_quat_identity()};
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.25, &v.shape[3]), IMP_OK);
	v.pose[3] = (imp_pose3){imp_vec3_make(0, 0, nextafter(0.375, 1.0)), imp_quat_identity()};
	// Big bodies far off, for the query inside them.
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 5.0, &v.shape[4]), IMP_OK);
	v.pose[4] = (imp_pose3){imp_vec3_make(100, 0, 0), imp_quat_identity()};
	assert_int_equal(imp_shape_box3(5.0, 4.0, 3.0, 0.5, &v.shape[5]), IMP_OK);
	v.pose[5] = (imp_pose3){imp_vec3_make(0, 100, 0), imp_quat_make(0.6, 0, 0, 0.8)};
	for (int i = 0; i < 6; i++) {
		v.filter[i] = imp_default_filter();
		imp_body_def d = imp_default_body_def();
		d.shape = v.shape[i];
		d.pose3 = v.pose[i];
		d.type = IMP_BODY_STATIC;
		assert_int_equal(imp_world_add_body(w, &d, &v.id[i]), IMP_OK);
		v.n++;
	}
	for (int pass = 0; pass < 2; pass++) {
		imp_query_filter f = imp_default_query_filter();
		// The three touching bodies, and each left out in turn.
		for (int i = 0; i < 3; i++)
			assert_true(imp_overlap3(box, at0, v.shape[i], v.pose[i], NULL));
		assert_true(vb_check(&v, box, at0, &f) >= 3);
		for (int i = 0; i < 3; i++)
			assert_true(vb_check_ignoring(&v, box, at0, f, i) >= 2);
		imp_pose3 past = {imp_vec3_make(0, 0, -0.75), imp_quat_identity()};
		vb_check(&v, box, past, &f);
		// Inside the big sphere and box, and a big box about a tiny query.
		assert_true(vb_check(&v, tiny, (imp_pose3){imp_vec3_make(100.5, 0.5, -0.5), imp_quat_identity()}, &f));
		assert_true(vb_check(&v, tiny, (imp_pose3){imp_vec3_make(1, 101, 0.5), imp_quat_make(0, 0.6, 0, 0.8)}, &f));
		// Filtered: a query that pairs with nothing.
		imp_query_filter none = imp_default_query_filter();
		none.filter.mask = 0;
		assert_int_equal(vb_check(&v, box, at0, &none), 0);
		assert_int_equal(imp_world_update(w), IMP_OK);
	}
	imp_world_destroy(w);
	v.w = NULL;
	for (int i = 0; i < v.n; i++)
		imp_shape_destroy(v.shape[i]);
	imp_shape_destroy(box);
	imp_shape_destroy(tiny);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries_2d_hash),  cmocka_unit_test(test_queries_2d_sweep),
		cmocka_unit_test(test_queries_2d_naive), cmocka_unit_test(test_queries_3d_hash),
		cmocka_unit_test(test_queries_3d_sweep), cmocka_unit_test(test_queries_3d_naive),
		cmocka_unit_test(test_query_errors),
		cmocka_unit_test(test_query_bound_edges),
		cmocka_unit_test(test_long_rays),
		cmocka_unit_test(test_ray_inside),
		cmocka_unit_test(test_ray_point_on_ray),
		cmocka_unit_test(test_cast_inside),
		cmocka_unit_test(test_cast_turning_box),
		cmocka_unit_test(test_cast_turning_user_disc),
		cmocka_unit_test(test_motion_free_random),
		cmocka_unit_test(test_motion_free_errors),
		cmocka_unit_test(test_cast_failing_support),
		cmocka_unit_test(test_cast_grazing_composite_bounded),
		cmocka_unit_test(test_nearest_deep_in_curved),
		cmocka_unit_test(test_box_query_verdict),
		cmocka_unit_test(test_box_query_verdict_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
