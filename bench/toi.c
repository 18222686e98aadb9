// SPDX-License-Identifier: MIT
// bench/toi: the world's time-of-impact step (imp_world_step, Mirtich's
// priority queue) against fixed-interval checking, and the pairwise
// imp_time_of_impact2 against Box2D 2.4's b2TimeOfImpact.
//
// Scenes (2D and 3D, N moving bodies, a fixed number of frames of 1/60,
// ballistic: bodies pass through each other and the floor, the contacts are
// what is counted): gas (discs/spheres, boxes and convex polygons/polytopes
// with random velocities, the fast ones travelling about their size a
// frame), falling (the same bodies moving down onto a static floor, spinning)
// and bullets (slow bodies with 1% small bullets 100 times faster).
//
// (a) TOI: a world (margin 0) whose bodies carry their velocities, one
//     imp_world_step a frame with the contact tolerance; the contact pairs
//     of every frame are recorded and each event is checked (time order,
//     range, its distance recomputed); an oracle (a Lipschitz scan of the
//     distance, independent of the library's conservative advancement)
//     checks that every pair coming within tolerance / 2 in a frame is
//     reported.
// (b) Fixed interval: a world with margin = the tolerance (touching = the
//     same contact definition), bodies teleported to their poses at K
//     substeps a frame, imp_world_update at each; a pair is found when it
//     touches at a substep of the frame. K is the smallest power of two at
//     which every pair TOI found is found (searched pair by pair with the
//     same distance test, then confirmed by the world run), capped.
// (c) Pairwise, 2D: the pairs whose swept boxes overlap in some frame get
//     imp_time_of_impact2 and b2TimeOfImpact (when Box2D was found at build
//     time); ns per pair and the accuracy against an oracle of the first
//     contact time (dense Lipschitz scan + bisection, outside timing).
// (d) Piles (2d-pile, 3d-pile; `--only pile` runs them alone): a simulation,
//     not a ballistic scene. 500 bodies (2D: discs, boxes, convex polygons)
//     or 200 (3D: spheres, boxes, capsules), 0.2-0.4 across, dropped from a
//     grid into a closed container of static walls, gravity, restitution 0.5,
//     600 frames (scene_pile.c, shared with bench/threads). The physics is
//     the one tests/test_impulse.c gives the step (one function, sp_contact,
//     for both methods): linear sequential impulses, restitution only above
//     an approach of 0.5, a push-out of 0.2 x depth / dt for overlapping
//     contacts, and warm starting (a pair reported in the last frame with
//     nearly the same normal and a slow approach first takes 0.98 x the
//     impulse it took then). The TOI run
//     applies it in the step's contact callback; the fixed-interval run at k
//     substeps a frame adds gravity, teleports the bodies, updates the world
//     (margin = the contact tolerance) and sweeps the impulses over the
//     touching pairs that approach (imp_closest), a substep standing for a
//     frame in the warm starting, for k = 1, 2, 4, ... within a time budget. Each run is
//     checked at every frame end (outside the timing): bodies outside the
//     container, and the deepest overlap of every pair whose boxes overlap
//     against the pair's contact tolerance. Reported: the smallest k that
//     loses no body and keeps every overlap within its tolerance, or, when
//     none tried does, the k the bound k >= v_max dt / tol asks for and its
//     cost extrapolated from the measured cost a substep. Lost bodies and
//     deep overlaps are measurements, not --strict failures.
//
// Usage: toi [--smoke] [--n N]... [--frames F] [--reps R] [--only SCENE]
//            [--broad sweep|hash|both] [--k-cap K] [--pair-calls C]
//            [--pile-n N] [--pile-frames F] [--pile-budget S] [--out FILE] [--strict]
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "scene_pile.h"
#ifdef HAVE_BOX2D
#include "peer_toi_box2d.h"
#endif

#define DEFAULT_SEED SP_SEED
#define DEFAULT_REPS 3
#define DEFAULT_FRAMES 10
#define DEFAULT_K_CAP 4096
#define SMOKE_COUNT 100
#define SMOKE_FRAMES 2
#define SMOKE_K_CAP 256
/// The step: 1/60; the bodies are about 1 across (Box2D's metre).
#define STEP_DT (1.0 / 60.0)
/// The contact tolerance: 1e-3 x the bodies' size.
#define TOLERANCE 1e-3
/// The fixed-interval runs of one scene and broad phase stop starting new
/// frames (and repetitions) after this much time; at least one frame runs.
#define FIXED_BUDGET_NS 8e9
/// The oracle's smallest step, a fraction of the frame: a contact that
/// starts and ends within it may be missed by the oracle (never by the
/// Lipschitz steps, which cannot jump over a crossing).
#define ORACLE_MIN_STEP 1e-4
/// Error lines kept for the report, and printed to stderr, per scene.
#define MAX_NOTES 12
#define MAX_STDERR_NOTES 100
#define BENCH_PI 3.14159265358979323846
#define SHAPE_POOL 48
#define BULLET_POOL 6

static const int k_default_counts[] = {1000, 10000};

// ---- pair lists ----------------------------------------------------------------

/// Two body numbers, a < b.
typedef struct ipair {
	int a, b;
} ipair;

typedef struct pair_list {
	ipair *items;
	int count, cap;
} pair_list;

static bool pl_push(pair_list *l, int a, int b)
{
	if (l->count == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		ipair *p = realloc(l->items, sizeof *p * (size_t)cap);
		if (!p)
			return false;
		l->items = p;
		l->cap = cap;
	}
	l->items[l->count++] = a < b ? (ipair){a, b} : (ipair){b, a};
	return true;
}

static int ipair_cmp(const void *x, const void *y)
{
	const ipair *p = x, *q = y;
	if (p->a != q->a)
		return (p->a > q->a) - (p->a < q->a);
	return (p->b > q->b) - (p->b < q->b);
}

static void pl_sort_unique(pair_list *l)
{
	if (l->count < 2)
		return;
	qsort(l->items, (size_t)l->count, sizeof l->items[0], ipair_cmp);
	int n = 1;
	for (int i = 1; i < l->count; ++i)
		if (ipair_cmp(&l->items[i], &l->items[n - 1]) != 0)
			l->items[n++] = l->items[i];
	l->count = n;
}

/// Whether sorted list l holds (a, b), a < b.
static bool pl_has(const pair_list *l, int a, int b)
{
	ipair key = {a, b};
	return l->count > 0 && bsearch(&key, l->items, (size_t)l->count, sizeof key, ipair_cmp) != NULL;
}

static void pl_free(pair_list *l)
{
	free(l->items);
	memset(l, 0, sizeof *l);
}

// ---- scenes ----------------------------------------------------------------------

typedef enum scene_kind { SK_GAS, SK_FALLING, SK_BULLETS, SK_COUNT } scene_kind;

static const char *const k_kind_names[SK_COUNT] = {"gas", "falling", "bullets"};

typedef struct shape_info {
	imp_shape *shape;
	imp_shape *core;   ///< 2D: the core (radius 0), Box2D's proxy without its radius; shape when sharp
	double reach;      ///< the largest distance of a point of the shape from its origin
	double b2_radius;  ///< 2D: Box2D's proxy radius (b2_polygonRadius for polygons, a disc's radius)
	imp_vec2 verts[8]; ///< 2D: the core's vertices
	int nverts;
} shape_info;

/// A scene: bodies, their shapes, and every frame's motions, computed once.
typedef struct scene {
	int dim;
	scene_kind kind;
	int n;     ///< moving bodies
	int count; ///< bodies: the moving ones, then the floor (falling)
	int bullets;
	int frames;
	double dt, tol;
	double side[3]; ///< the region the bodies start in
	int nshapes;
	shape_info *shapes;
	int *shape_of;
	bool *fixed;     ///< a static body (the floor)
	imp_motion2 *m2; ///< [f * count + i]: body i's motion from the start of frame f (f = 0 .. frames)
	imp_motion3 *m3;
	pair_list *cand; ///< per frame: the pairs whose swept bounding boxes overlap
	long cand_total;
} scene;

static void scene_free(scene *s)
{
	for (int i = 0; i < s->nshapes; ++i) {
		if (s->shapes[i].core != s->shapes[i].shape)
			imp_shape_destroy(s->shapes[i].core);
		imp_shape_destroy(s->shapes[i].shape);
	}
	free(s->shapes);
	free(s->shape_of);
	free(s->fixed);
	free(s->m2);
	free(s->m3);
	if (s->cand)
		for (int f = 0; f < s->frames; ++f)
			pl_free(&s->cand[f]);
	free(s->cand);
	memset(s, 0, sizeof *s);
}

/// Fills si from a made 2D polygon shape: its core, reach and Box2D proxy.
static bool shape_info2(shape_info *si, double b2_polygon_radius)
{
	si->nverts = imp_shape_vertex_count(si->shape);
	if (si->nverts < 1 || si->nverts > 8)
		return false;
	imp_shape_vertices2(si->shape, si->verts, 8);
	double r = imp_shape_radius(si->shape), far = 0.0;
	for (int k = 0; k < si->nverts; ++k)
		far = fmax(far, imp_vec2_length(si->verts[k]));
	si->reach = far + r;
	if (r > 0.0) {
		si->b2_radius = r;
		if (imp_shape_polygon(si->verts, si->nverts, 0.0, &si->core) != IMP_OK)
			return false;
	} else {
		si->b2_radius = b2_polygon_radius;
		si->core = si->shape;
	}
	return true;
}

static double b2_polygon_radius_value(void)
{
#ifdef HAVE_BOX2D
	return b2t_polygon_radius();
#else
	return 0.01; // b2_polygonRadius of Box2D 2.4, for the record only
#endif
}

/// A 2D shape: kind 0 disc, 1 box, 2 polygon; scale 1 for bodies, small
/// for bullets.
static bool make_shape2(shape_info *si, int kind, double scale, bench_rng *r)
{
	imp_status st;
	if (kind == 0) {
		st = imp_shape_circle(imp_vec2_make(0.0, 0.0), scale * bench_rng_range(r, 0.25, 0.5), &si->shape);
	} else if (kind == 1) {
		st = imp_shape_box2(scale * bench_rng_range(r, 0.2, 0.45), scale * bench_rng_range(r, 0.05, 0.45), 0.0,
				    &si->shape);
	} else {
		imp_vec2 p[8];
		int m = 3 + (int)(bench_rng_next(r) % 6);
		double rad = scale * bench_rng_range(r, 0.3, 0.5);
		for (int k = 0; k < m; ++k) {
			double a = bench_rng_range(r, 0.0, 2.0 * BENCH_PI);
			p[k] = imp_vec2_make(rad * cos(a), rad * sin(a));
		}
		st = imp_shape_polygon(p, m, 0.0, &si->shape);
	}
	return st == IMP_OK && shape_info2(si, b2_polygon_radius_value());
}

/// A 3D shape: kind 0 sphere, 1 box, 2 polytope.
static bool make_shape3(shape_info *si, int kind, double scale, bench_rng *r)
{
	imp_status st;
	if (kind == 0) {
		double rad = scale * bench_rng_range(r, 0.25, 0.5);
		st = imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), rad, &si->shape);
		si->reach = rad;
	} else if (kind == 1) {
		imp_vec3 h = {scale * bench_rng_range(r, 0.2, 0.45), scale * bench_rng_range(r, 0.05, 0.45),
			      scale * bench_rng_range(r, 0.1, 0.45)};
		st = imp_shape_box3(h.x, h.y, h.z, 0.0, &si->shape);
		si->reach = imp_vec3_length(h);
	} else {
		imp_vec3 p[12];
		int m = 6 + (int)(bench_rng_next(r) % 7);
		double rad = scale * bench_rng_range(r, 0.3, 0.5);
		si->reach = rad;
		for (int k = 0; k < m; ++k) {
			double z = bench_rng_range(r, -1.0, 1.0), a = bench_rng_range(r, 0.0, 2.0 * BENCH_PI);
			double q = sqrt(fmax(0.0, 1.0 - z * z));
			p[k] = imp_vec3_make(rad * q * cos(a), rad * q * sin(a), rad * z);
		}
		st = imp_shape_polytope(p, m, 0.0, &si->shape);
	}
	si->core = si->shape;
	return st == IMP_OK;
}

static imp_vec3 random_direction(bench_rng *r, int dim)
{
	if (dim == 2) {
		double a = bench_rng_range(r, 0.0, 2.0 * BENCH_PI);
		return imp_vec3_make(cos(a), sin(a), 0.0);
	}
	double z = bench_rng_range(r, -1.0, 1.0), a = bench_rng_range(r, 0.0, 2.0 * BENCH_PI);
	double q = sqrt(fmax(0.0, 1.0 - z * z));
	return imp_vec3_make(q * cos(a), q * sin(a), z);
}

/// Sets body i's initial motion: position p, a random rotation, velocity v
/// and a random spin of at most spin radians a frame.
static void set_motion(scene *s, int i, imp_vec3 p, imp_vec3 v, double spin, bench_rng *r)
{
	double w = spin / s->dt;
	if (s->dim == 2) {
		imp_motion2 *m = &s->m2[i];
		m->pose = imp_pose2_make(p.x, p.y, bench_rng_range(r, -BENCH_PI, BENCH_PI));
		m->v = imp_vec2_make(v.x, v.y);
		m->w = bench_rng_range(r, -w, w);
	} else {
		imp_motion3 *m = &s->m3[i];
		m->pose.p = p;
		m->pose.q = sp_random_quat(r);
		m->v = v;
		m->w = imp_vec3_scale(bench_rng_range(r, 0.0, w), random_direction(r, 3));
	}
}

/// The box of body i over frame f: its bound sphere swept along the frame
/// (moving bodies), its exact box (static ones).
static void swept_box_exact(const scene *s, int f, int i, double lo[3], double hi[3])
{
	const shape_info *si = &s->shapes[s->shape_of[i]];
	if (s->dim == 2) {
		imp_motion2 m = s->m2[(size_t)f * (size_t)s->count + (size_t)i];
		if (s->fixed[i]) {
			imp_aabb2 b;
			imp_shape_aabb2(si->shape, m.pose, &b);
			lo[0] = b.lo.x, lo[1] = b.lo.y, hi[0] = b.hi.x, hi[1] = b.hi.y;
		} else {
			double p0[2] = {m.pose.p.x, m.pose.p.y}, p1[2] = {p0[0] + m.v.x * s->dt, p0[1] + m.v.y * s->dt};
			for (int a = 0; a < 2; ++a) {
				lo[a] = fmin(p0[a], p1[a]) - si->reach;
				hi[a] = fmax(p0[a], p1[a]) + si->reach;
			}
		}
		lo[2] = hi[2] = 0.0;
		return;
	}
	imp_motion3 m = s->m3[(size_t)f * (size_t)s->count + (size_t)i];
	if (s->fixed[i]) {
		imp_aabb3 b;
		imp_shape_aabb3(si->shape, m.pose, &b);
		lo[0] = b.lo.x, lo[1] = b.lo.y, lo[2] = b.lo.z, hi[0] = b.hi.x, hi[1] = b.hi.y, hi[2] = b.hi.z;
		return;
	}
	double p0[3] = {m.pose.p.x, m.pose.p.y, m.pose.p.z};
	double v[3] = {m.v.x, m.v.y, m.v.z};
	for (int a = 0; a < 3; ++a) {
		double p1 = p0[a] + v[a] * s->dt;
		lo[a] = fmin(p0[a], p1) - si->reach;
		hi[a] = fmax(p0[a], p1) + si->reach;
	}
}

/// That box enlarged by the tolerance (a pair within it counts).
static void swept_box(const scene *s, int f, int i, double lo[3], double hi[3])
{
	swept_box_exact(s, f, i, lo, hi);
	for (int a = 0; a < s->dim; ++a) {
		lo[a] -= s->tol;
		hi[a] += s->tol;
	}
}

typedef struct sweep_entry {
	double lo[3], hi[3];
	int i;
} sweep_entry;

static int sweep_entry_cmp(const void *x, const void *y)
{
	const sweep_entry *p = x, *q = y;
	return (p->lo[0] > q->lo[0]) - (p->lo[0] < q->lo[0]);
}

/// The candidate pairs of every frame (a sort-and-sweep of the swept boxes;
/// the bench's own, independent of the library's broad phases).
static bool scene_candidates(scene *s)
{
	sweep_entry *e = malloc(sizeof *e * (size_t)s->count);
	s->cand = calloc((size_t)s->frames, sizeof *s->cand);
	if (!e || !s->cand) {
		free(e);
		return false;
	}
	bool ok = true;
	for (int f = 0; f < s->frames && ok; ++f) {
		for (int i = 0; i < s->count; ++i) {
			swept_box(s, f, i, e[i].lo, e[i].hi);
			e[i].i = i;
		}
		qsort(e, (size_t)s->count, sizeof e[0], sweep_entry_cmp);
		for (int x = 0; x < s->count && ok; ++x)
			for (int y = x + 1; y < s->count && e[y].lo[0] <= e[x].hi[0]; ++y) {
				if (s->fixed[e[x].i] && s->fixed[e[y].i])
					continue;
				bool over = true;
				for (int a = 1; a < s->dim; ++a)
					over = over && e[x].lo[a] <= e[y].hi[a] && e[y].lo[a] <= e[x].hi[a];
				if (over && !pl_push(&s->cand[f], e[x].i, e[y].i))
					ok = false;
			}
		pl_sort_unique(&s->cand[f]);
		s->cand_total += s->cand[f].count;
	}
	free(e);
	return ok;
}

/// Makes a scene; false when out of memory or a shape could not be made.
static bool scene_make(scene *s, int dim, scene_kind kind, int n, int frames, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	s->dim = dim;
	s->kind = kind;
	s->n = n;
	s->frames = frames;
	s->dt = STEP_DT;
	s->tol = TOLERANCE;
	s->bullets = kind == SK_BULLETS ? (n / 100 > 1 ? n / 100 : 1) : 0;
	s->count = n + (kind == SK_FALLING ? 1 : 0);
	s->nshapes = SHAPE_POOL + BULLET_POOL + 1;
	s->shapes = calloc((size_t)s->nshapes, sizeof *s->shapes);
	s->shape_of = calloc((size_t)s->count, sizeof *s->shape_of);
	s->fixed = calloc((size_t)s->count, sizeof *s->fixed);
	size_t rows = (size_t)(frames + 1) * (size_t)s->count;
	if (dim == 2)
		s->m2 = calloc(rows, sizeof *s->m2);
	else
		s->m3 = calloc(rows, sizeof *s->m3);
	if (!s->shapes || !s->shape_of || !s->fixed || (!s->m2 && !s->m3))
		return false;
	bench_rng r = {seed};
	int made = SHAPE_POOL + BULLET_POOL;
	for (int k = 0; k < made; ++k) {
		bool bullet = k >= SHAPE_POOL;
		bool ok = dim == 2 ? make_shape2(&s->shapes[k], k % 3, bullet ? 0.3 : 1.0, &r)
				   : make_shape3(&s->shapes[k], k % 3, bullet ? 0.3 : 1.0, &r);
		if (!ok) {
			s->nshapes = k + 1;
			return false;
		}
	}
	s->nshapes = made; // the floor's shape is added below when there is one
	// Which shape each moving body has, and the room they fill: the bound
	// spheres of the bodies (bullets aside) fill `fill` of the region.
	double vol = 0.0;
	for (int i = 0; i < n; ++i) {
		bool bullet = kind == SK_BULLETS && i >= n - s->bullets;
		s->shape_of[i] = bullet ? SHAPE_POOL + (int)(bench_rng_next(&r) % BULLET_POOL)
					: (int)(bench_rng_next(&r) % SHAPE_POOL);
		double q = s->shapes[s->shape_of[i]].reach;
		if (!bullet)
			vol += dim == 2 ? BENCH_PI * q * q : 4.0 / 3.0 * BENCH_PI * q * q * q;
	}
	double fill = kind == SK_GAS ? 0.08 : kind == SK_FALLING ? 0.15 : 0.3;
	// Falling: a column 20 high over the floor, as wide as the density needs.
	double height = 20.0;
	double side = kind == SK_FALLING ? pow(vol / fill / height, 1.0 / (dim - 1)) : pow(vol / fill, 1.0 / dim);
	s->side[0] = side;
	s->side[1] = kind == SK_FALLING ? height : side;
	s->side[2] = dim == 3 ? side : 0.0;
	for (int i = 0; i < n; ++i) {
		bool bullet = kind == SK_BULLETS && i >= n - s->bullets;
		imp_vec3 p = {bench_rng_range(&r, 0.0, s->side[0]), bench_rng_range(&r, 0.0, s->side[1]),
			      dim == 3 ? bench_rng_range(&r, 0.0, s->side[2]) : 0.0};
		imp_vec3 v;
		double spin;
		if (kind == SK_GAS) {
			// Up to 1 a frame (about a body's size), spinning up to 0.5 rad a frame.
			v = imp_vec3_scale(bench_rng_range(&r, 0.0, 1.0) / s->dt, random_direction(&r, dim));
			spin = 0.5;
		} else if (kind == SK_FALLING) {
			p.y += 1.0;
			v = imp_vec3_make(bench_rng_range(&r, -0.1, 0.1), -bench_rng_range(&r, 0.5, 1.5),
					  dim == 3 ? bench_rng_range(&r, -0.1, 0.1) : 0.0);
			v = imp_vec3_scale(1.0 / s->dt, v);
			spin = 0.3;
		} else if (!bullet) {
			// Slow bodies: up to 0.1 a frame; bullets 100 times that.
			v = imp_vec3_scale(bench_rng_range(&r, 0.0, 0.1) / s->dt, random_direction(&r, dim));
			spin = 0.05;
		} else {
			v = imp_vec3_scale(10.0 / s->dt, random_direction(&r, dim));
			spin = 0.5;
		}
		set_motion(s, i, p, v, spin, &r);
	}
	if (kind == SK_FALLING) {
		// The floor: a static box under the column, its top at y = 0.
		shape_info *fl = &s->shapes[s->nshapes];
		double hx = 0.5 * s->side[0] + 3.0, hz = 0.5 * s->side[2] + 3.0;
		imp_status st = dim == 2 ? imp_shape_box2(hx, 0.5, 0.0, &fl->shape)
					 : imp_shape_box3(hx, 0.5, hz, 0.0, &fl->shape);
		s->nshapes++;
		if (st != IMP_OK)
			return false;
		if (dim == 2) {
			if (!shape_info2(fl, b2_polygon_radius_value()))
				return false;
			s->m2[n].pose = imp_pose2_make(0.5 * s->side[0], -0.5, 0.0);
		} else {
			fl->core = fl->shape;
			fl->reach = sqrt(hx * hx + 0.25 + hz * hz);
			s->m3[n].pose = (imp_pose3){{0.5 * s->side[0], -0.5, 0.5 * s->side[2]}, imp_quat_identity()};
		}
		s->shape_of[n] = s->nshapes - 1;
		s->fixed[n] = true;
	}
	// Every frame's start: the end of the one before, by the same motion.
	for (int f = 1; f <= frames; ++f)
		for (int i = 0; i < s->count; ++i) {
			size_t at = (size_t)f * (size_t)s->count + (size_t)i, before = at - (size_t)s->count;
			if (dim == 2) {
				s->m2[at] = s->m2[before];
				s->m2[at].pose = imp_motion2_at(s->m2[before], s->dt);
			} else {
				s->m3[at] = s->m3[before];
				s->m3[at].pose = imp_motion3_at(s->m3[before], s->dt);
			}
		}
	return scene_candidates(s);
}

// ---- distances and the oracle -----------------------------------------------------

/// The distance of bodies i and j at time t of frame f (the cores in 2D
/// when `core`).
static double body_distance(const scene *s, int f, int i, int j, double t, bool core)
{
	const shape_info *a = &s->shapes[s->shape_of[i]], *b = &s->shapes[s->shape_of[j]];
	size_t row = (size_t)f * (size_t)s->count;
	if (s->dim == 2)
		return imp_distance2(core ? a->core : a->shape, imp_motion2_at(s->m2[row + (size_t)i], t),
				     core ? b->core : b->shape, imp_motion2_at(s->m2[row + (size_t)j], t), NULL);
	return imp_distance3(a->shape, imp_motion3_at(s->m3[row + (size_t)i], t), b->shape,
			     imp_motion3_at(s->m3[row + (size_t)j], t), NULL);
}

/// A bound on how fast the distance of bodies i and j can change: no point
/// of a body moves faster than |v| + |w| reach.
static double distance_rate_bound(const scene *s, int f, int i, int j)
{
	size_t row = (size_t)f * (size_t)s->count;
	double ra = s->shapes[s->shape_of[i]].reach, rb = s->shapes[s->shape_of[j]].reach;
	if (s->dim == 2) {
		imp_motion2 a = s->m2[row + (size_t)i], b = s->m2[row + (size_t)j];
		return imp_vec2_length(imp_vec2_sub(a.v, b.v)) + fabs(a.w) * ra + fabs(b.w) * rb;
	}
	imp_motion3 a = s->m3[row + (size_t)i], b = s->m3[row + (size_t)j];
	return imp_vec3_length(imp_vec3_sub(a.v, b.v)) + imp_vec3_length(a.w) * ra + imp_vec3_length(b.w) * rb;
}

/// The oracle: the first time in [from, dt] of frame f at which the distance
/// of i and j is at most `target`, or -1. Steps of (d - target) / rate
/// cannot pass a crossing; steps are at least ORACLE_MIN_STEP x dt; the
/// crossing is then refined by bisection to 1e-13 x dt.
static double oracle_first(const scene *s, int f, int i, int j, bool core, double target, double from)
{
	double rate = distance_rate_bound(s, f, i, j), h_min = ORACLE_MIN_STEP * s->dt;
	double t = from, d = body_distance(s, f, i, j, t, core);
	if (d <= target)
		return t;
	while (t < s->dt) {
		double step = rate > 0.0 ? (d - target) / rate : INFINITY;
		double tn = fmin(t + fmax(step, h_min), s->dt);
		double dn = body_distance(s, f, i, j, tn, core);
		if (dn <= target) {
			double lo = t, hi = tn;
			while (hi - lo > 1e-13 * s->dt) {
				double mid = 0.5 * (lo + hi);
				if (body_distance(s, f, i, j, mid, core) <= target)
					hi = mid;
				else
					lo = mid;
			}
			return hi;
		}
		t = tn;
		d = dn;
	}
	return -1.0;
}

// ---- notes (error lines) -------------------------------------------------------------

typedef struct notes {
	char line[MAX_NOTES][320];
	int kept;
	long total;
} notes;

/// An error line: printed to stderr, and the first MAX_NOTES kept for the report.
static void note(notes *nt, const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (nt->total < MAX_STDERR_NOTES)
		fprintf(stderr, "toi: ERROR: %s\n", buf);
	else if (nt->total == MAX_STDERR_NOTES)
		fprintf(stderr, "toi: (more errors in this scene: counted in the report, not printed)\n");
	if (nt->kept < MAX_NOTES)
		snprintf(nt->line[nt->kept++], sizeof nt->line[0], "%s", buf);
	nt->total++;
}

// ---- worlds ----------------------------------------------------------------------------

/// A world holding a scene's bodies at the start of frame 0.
typedef struct sworld {
	imp_world *w;
	imp_body_id *ids;
	int *body_of; ///< id index - 1 -> body
	int slots;
} sworld;

static void sworld_destroy(sworld *sw)
{
	imp_world_destroy(sw->w);
	free(sw->ids);
	free(sw->body_of);
	memset(sw, 0, sizeof *sw);
}

static const char *const k_broad_names[] = {"hash", "sweep", "naive"};

static bool sworld_create(sworld *sw, const scene *s, imp_broad_kind kind, double margin)
{
	memset(sw, 0, sizeof *sw);
	imp_world_def def = imp_default_world_def();
	def.dim = s->dim;
	def.broad_phase = kind;
	def.margin = margin;
	def.body_capacity = s->count;
	imp_status st = imp_world_create(&def, &sw->w);
	sw->ids = calloc((size_t)s->count, sizeof *sw->ids);
	if (st != IMP_OK || !sw->ids) {
		fprintf(stderr, "toi: imp_world_create: %s\n", imp_status_string(st));
		sworld_destroy(sw);
		return false;
	}
	for (int i = 0; i < s->count; ++i) {
		imp_body_def bd = imp_default_body_def();
		bd.type = s->fixed[i] ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
		bd.shape = s->shapes[s->shape_of[i]].shape;
		if (s->dim == 2)
			bd.pose2 = s->m2[i].pose;
		else
			bd.pose3 = s->m3[i].pose;
		st = imp_world_add_body(sw->w, &bd, &sw->ids[i]);
		if (st != IMP_OK) {
			fprintf(stderr, "toi: imp_world_add_body: %s\n", imp_status_string(st));
			sworld_destroy(sw);
			return false;
		}
		if ((int)sw->ids[i].index > sw->slots)
			sw->slots = (int)sw->ids[i].index;
	}
	sw->body_of = malloc(sizeof *sw->body_of * (size_t)(sw->slots + 1));
	if (!sw->body_of) {
		sworld_destroy(sw);
		return false;
	}
	for (int k = 0; k <= sw->slots; ++k)
		sw->body_of[k] = -1;
	for (int i = 0; i < s->count; ++i)
		sw->body_of[sw->ids[i].index - 1] = i;
	return true;
}

/// The body an id names, or -1.
static int body_of_id(const sworld *sw, imp_body_id id)
{
	if (id.index == 0 || (int)id.index > sw->slots)
		return -1;
	return sw->body_of[id.index - 1];
}

// ---- (a) the TOI step ---------------------------------------------------------------

typedef struct toi_result {
	bool ran, failed;
	double ms;         ///< median over repetitions of the step's ms per frame
	long narrow_calls; ///< over all frames (the first repetition; every one must agree)
	long events;
	long pairs; ///< contact pairs, summed over the frames
	long candidates, queued, heap_ops, capped, rescheduled;
	int queue_peak;
	int most_pair_calls;      ///< the most calls one pair took in a step
	int capped_frames;
	bool calls_vary;          ///< the repetitions disagreed on the narrow calls
	double pose_dev;          ///< the largest difference of a body's pose from the motion's
	long oracle_deep;         ///< candidate pairs the oracle sees within tol / 2 in a frame
	long oracle_missed;       ///< of those, not reported
	long missed_at_start;     ///< of those, within tol / 2 at the start of their frame
	long missed_later;        ///< the others
	long missed_later_capped; ///< of the others, in a frame whose step capped pairs
	long bad_events;
	pair_list *found; ///< per frame: the contact pairs
	int *capped_in;   ///< per frame: pairs that reached max_pair_calls
} toi_result;

/// Checks one frame's contacts and records their pairs.
static void check_contacts(const scene *s, const sworld *sw, int f, double clock0, toi_result *tr, notes *nt)
{
	imp_contact_events ev = imp_world_get_contacts(sw->w);
	double last = -INFINITY;
	for (int k = 0; k < ev.count; ++k) {
		const imp_contact_event *e = &ev.items[k];
		int a = body_of_id(sw, e->a), b = body_of_id(sw, e->b);
		if (a < 0 || b < 0 || e->a.index >= e->b.index) {
			note(nt, "%dD %s: frame %d: contact %d names bodies %u and %u (bad ids or order)", s->dim,
			     k_kind_names[s->kind], f, k, e->a.index, e->b.index);
			tr->bad_events++;
			continue;
		}
		bool bad = !(e->t >= 0.0 && e->t <= s->dt) || e->t < last || !(e->distance <= s->tol) ||
			   fabs(e->time - (clock0 + e->t)) > 1e-9 * (1.0 + fabs(clock0));
		// The distance at the event's time, recomputed from the motions.
		double d = body_distance(s, f, a, b, e->t, false);
		if (!(d <= s->tol * (1.0 + 1e-9) + 1e-12))
			bad = true;
		if (bad) {
			note(nt,
			     "%dD %s N=%d: frame %d: contact %d of bodies %d, %d: t %.17g (previous %.17g, dt %g), "
			     "time %.17g (clock %.17g), distance %.3g reported, %.3g recomputed (tolerance %g)",
			     s->dim, k_kind_names[s->kind], s->n, f, k, a, b, e->t, last, s->dt, e->time, clock0,
			     e->distance, d, s->tol);
			tr->bad_events++;
		}
		last = fmax(last, e->t);
		pl_push(&tr->found[f], a, b);
	}
	tr->events += ev.count;
	pl_sort_unique(&tr->found[f]);
	tr->pairs += tr->found[f].count;
}

/// The largest difference between the world's poses and the motions' at
/// the end of frame f.
static double pose_deviation(const scene *s, const sworld *sw, int f)
{
	double dev = 0.0;
	size_t row = (size_t)(f + 1) * (size_t)s->count;
	for (int i = 0; i < s->count; ++i) {
		if (s->dim == 2) {
			imp_pose2 p, q = s->m2[row + (size_t)i].pose;
			if (imp_body_get_pose2(sw->w, sw->ids[i], &p) != IMP_OK)
				return INFINITY;
			dev = fmax(dev, fmax(imp_vec2_length(imp_vec2_sub(p.p, q.p)),
					     fmax(fabs(p.q.c - q.q.c), fabs(p.q.s - q.q.s))));
		} else {
			imp_pose3 p, q = s->m3[row + (size_t)i].pose;
			if (imp_body_get_pose3(sw->w, sw->ids[i], &p) != IMP_OK)
				return INFINITY;
			// q and -q are the same rotation.
			double dot = p.q.x * q.q.x + p.q.y * q.q.y + p.q.z * q.q.z + p.q.w * q.q.w;
			dev = fmax(dev, fmax(imp_vec3_length(imp_vec3_sub(p.p, q.p)), 1.0 - fabs(dot)));
		}
	}
	return dev;
}

/// --pair-calls: the steps' max_pair_calls (0: the default).
static int g_pair_calls = 0;

/// One repetition of the TOI run: a world, velocities, one step a frame.
/// Returns the step time in ns (all frames), or -1 on an error. `check`:
/// record and check the contacts.
static double toi_rep(const scene *s, imp_broad_kind kind, bool check, toi_result *tr, notes *nt)
{
	sworld sw;
	if (!sworld_create(&sw, s, kind, 0.0))
		return -1.0;
	for (int i = 0; i < s->count; ++i) {
		if (s->fixed[i])
			continue;
		imp_status st = s->dim == 2 ? imp_body_set_velocity2(sw.w, sw.ids[i], s->m2[i].v, s->m2[i].w)
					    : imp_body_set_velocity3(sw.w, sw.ids[i], s->m3[i].v, s->m3[i].w);
		if (st != IMP_OK) {
			fprintf(stderr, "toi: imp_body_set_velocity: %s\n", imp_status_string(st));
			sworld_destroy(&sw);
			return -1.0;
		}
	}
	imp_step_opts opts = imp_default_step_opts();
	opts.tolerance = s->tol;
	if (g_pair_calls > 0)
		opts.max_pair_calls = g_pair_calls;
	double total = 0.0;
	long calls = 0;
	for (int f = 0; f < s->frames; ++f) {
		double clock0 = imp_world_time(sw.w);
		double t0 = bench_now_ns();
		imp_status st = imp_world_step(sw.w, s->dt, &opts);
		total += bench_now_ns() - t0;
		if (st != IMP_OK) {
			note(nt, "%dD %s N=%d %s: imp_world_step returned %s at frame %d", s->dim,
			     k_kind_names[s->kind], s->n, k_broad_names[kind], imp_status_string(st), f);
			sworld_destroy(&sw);
			return -1.0;
		}
		imp_step_stats ss = imp_world_get_step_stats(sw.w);
		calls += ss.narrow_calls;
		if (!check)
			continue;
		tr->candidates += ss.candidates;
		tr->queued += ss.queued;
		tr->heap_ops += ss.heap_ops;
		tr->capped += ss.capped_pairs;
		tr->rescheduled += ss.rescheduled;
		tr->queue_peak = ss.queue_peak > tr->queue_peak ? ss.queue_peak : tr->queue_peak;
		tr->most_pair_calls = ss.most_pair_calls > tr->most_pair_calls ? ss.most_pair_calls : tr->most_pair_calls;
		if (ss.state != IMP_STEP_COMPLETE)
			tr->capped_frames++;
		tr->capped_in[f] = ss.capped_pairs;
		check_contacts(s, &sw, f, clock0, tr, nt);
		tr->pose_dev = fmax(tr->pose_dev, pose_deviation(s, &sw, f));
	}
	if (check)
		tr->narrow_calls = calls;
	else if (calls != tr->narrow_calls)
		tr->calls_vary = true;
	sworld_destroy(&sw);
	return total;
}

/// A pair the oracle finds within tol / 2 that the step did not report.
typedef struct miss {
	int frame;
	ipair p;
	double t; ///< when it is first within tol / 2
} miss;

/// Every candidate pair that comes within tol / 2 in a frame must have been
/// reported (the step's guarantee: its keys are lower bounds on the time
/// the distance can reach tol / 2). The misses later in a frame are listed
/// first: those at t = 0 of a frame are one pattern (see the counts).
static void toi_oracle_check(const scene *s, toi_result *tr, notes *nt, const char *broad)
{
	miss *ms = NULL;
	int count = 0, cap = 0;
	for (int f = 0; f < s->frames; ++f)
		for (int k = 0; k < s->cand[f].count; ++k) {
			ipair p = s->cand[f].items[k];
			double t = oracle_first(s, f, p.a, p.b, false, 0.5 * s->tol, 0.0);
			if (t < 0.0)
				continue;
			tr->oracle_deep++;
			if (pl_has(&tr->found[f], p.a, p.b))
				continue;
			tr->oracle_missed++;
			if (t == 0.0) {
				tr->missed_at_start++;
			} else {
				tr->missed_later++;
				tr->missed_later_capped += tr->capped_in[f] > 0;
			}
			if (count == cap) {
				int c = cap ? 2 * cap : 64;
				miss *m = realloc(ms, sizeof *m * (size_t)c);
				if (!m)
					continue;
				ms = m;
				cap = c;
			}
			ms[count++] = (miss){f, p, t};
		}
	for (int pass = 0; pass < 2; ++pass)
		for (int k = 0; k < count; ++k) {
			const miss *m = &ms[k];
			if ((m->t == 0.0) != (pass == 1))
				continue;
			double t0 = oracle_first(s, m->frame, m->p.a, m->p.b, false, 0.0, 0.0);
			note(nt,
			     "%dD %s N=%d %s: frame %d: TOI missed bodies %d and %d: within tol/2 at t = %.9g, "
			     "touching (d <= 0) at %s%.9g (dt %g); that step capped %d pair%s",
			     s->dim, k_kind_names[s->kind], s->n, broad, m->frame, m->p.a, m->p.b, m->t,
			     t0 < 0.0 ? "never: " : "", t0, s->dt, tr->capped_in[m->frame],
			     tr->capped_in[m->frame] == 1 ? "" : "s");
		}
	free(ms);
	// A reported pair must be a candidate (its swept boxes overlap).
	for (int f = 0; f < s->frames; ++f)
		for (int k = 0; k < tr->found[f].count; ++k) {
			ipair p = tr->found[f].items[k];
			if (!pl_has(&s->cand[f], p.a, p.b))
				note(nt,
				     "%dD %s N=%d %s: frame %d: TOI reported bodies %d and %d, whose swept boxes are "
				     "apart",
				     s->dim, k_kind_names[s->kind], s->n, broad, f, p.a, p.b);
		}
}

static int toi_run(const scene *s, imp_broad_kind kind, int reps, toi_result *tr, notes *nt)
{
	memset(tr, 0, sizeof *tr);
	tr->ran = true;
	tr->found = calloc((size_t)s->frames, sizeof *tr->found);
	tr->capped_in = calloc((size_t)s->frames, sizeof *tr->capped_in);
	double *ms = calloc((size_t)reps, sizeof *ms);
	if (!tr->found || !tr->capped_in || !ms) {
		free(ms);
		tr->failed = true;
		return -1;
	}
	for (int r = 0; r < reps; ++r) {
		double ns = toi_rep(s, kind, r == 0, tr, nt);
		if (ns < 0.0) {
			tr->failed = true;
			free(ms);
			return -1;
		}
		ms[r] = ns * 1e-6 / s->frames;
	}
	tr->ms = bench_median(ms, reps);
	free(ms);
	toi_oracle_check(s, tr, nt, k_broad_names[kind]);
	return 0;
}

static void toi_result_free(toi_result *tr, int frames)
{
	if (tr->found)
		for (int f = 0; f < frames; ++f)
			pl_free(&tr->found[f]);
	free(tr->found);
	free(tr->capped_in);
	tr->found = NULL;
	tr->capped_in = NULL;
}

// ---- (b) fixed-interval checking ---------------------------------------------------------

/// The smallest power of two K at which a sample k dt / K (k = 0 .. K) of
/// frame f has bodies a and b within the tolerance (the world's test with
/// margin = tol: distance <= margin); 2 x cap when none up to cap.
static int pair_k_needed(const scene *s, int f, int a, int b, int cap)
{
	if (body_distance(s, f, a, b, 0.0, false) <= s->tol || body_distance(s, f, a, b, s->dt, false) <= s->tol)
		return 1;
	for (int K = 2; K <= cap; K *= 2)
		for (int k = 1; k < K; k += 2)
			if (body_distance(s, f, a, b, (double)k * s->dt / K, false) <= s->tol)
				return K;
	return 2 * cap;
}

typedef struct fixed_result {
	bool ran, failed;
	int k;         ///< substeps a frame
	int k_needed;  ///< by the pair search: every TOI pair found (2 x cap: not reached)
	int k99;       ///< the same for 99% of the TOI pairs
	long k_missed; ///< TOI pairs not found at the cap
	int frames;    ///< frames run (fewer than the scene's when over budget)
	int reps;
	double ms;         ///< median ms per frame
	long narrow_calls; ///< over the frames run
	long pairs;        ///< pairs found, summed over the frames run
	long toi_pairs;    ///< TOI's pairs over the same frames
	long not_found;    ///< TOI pairs the run did not find
	long extra;        ///< pairs the run found that TOI did not
	long extra_grazes; ///< of those, never within tol / 2 (the step guarantees tol / 2 only)
} fixed_result;

static int int_cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/// K from the pairs TOI found, pair by pair.
static void fixed_find_k(const scene *s, const toi_result *tr, int cap, fixed_result *fr)
{
	long total = 0;
	for (int f = 0; f < s->frames; ++f)
		total += tr->found[f].count;
	int *ks = malloc(sizeof *ks * (size_t)(total > 0 ? total : 1));
	long n = 0;
	fr->k_needed = 1;
	for (int f = 0; f < s->frames; ++f)
		for (int k = 0; k < tr->found[f].count; ++k) {
			ipair p = tr->found[f].items[k];
			int kn = pair_k_needed(s, f, p.a, p.b, cap);
			if (kn > cap)
				fr->k_missed++;
			fr->k_needed = kn > fr->k_needed ? kn : fr->k_needed;
			if (ks)
				ks[n++] = kn;
		}
	fr->k99 = 1;
	if (ks && n > 0) {
		qsort(ks, (size_t)n, sizeof ks[0], int_cmp);
		fr->k99 = ks[(size_t)((double)(n - 1) * 0.99)];
	}
	free(ks);
	fr->k = fr->k_needed > cap ? cap : fr->k_needed;
}

static bool collect_pair(imp_body_id a, imp_body_id b, void *user)
{
	void **u = user;
	const sworld *sw = u[0];
	pl_push(u[1], body_of_id(sw, a), body_of_id(sw, b));
	return true;
}

/// Moves every moving body to its pose at time t of frame f.
static imp_status teleport(const scene *s, const sworld *sw, int f, double t)
{
	imp_status bad = IMP_OK;
	size_t row = (size_t)f * (size_t)s->count;
	for (int i = 0; i < s->count; ++i) {
		if (s->fixed[i])
			continue;
		imp_status st =
			s->dim == 2 ? imp_body_set_pose2(sw->w, sw->ids[i], imp_motion2_at(s->m2[row + (size_t)i], t))
				    : imp_body_set_pose3(sw->w, sw->ids[i], imp_motion3_at(s->m3[row + (size_t)i], t));
		if (st != IMP_OK)
			bad = st;
	}
	return bad;
}

/// One repetition at K substeps over `frames` frames (0: as many as the
/// budget allows, which sets fr->frames). Returns the time in ns, or -1.
/// `found` (when not NULL): the pairs found in each frame.
static double fixed_rep(const scene *s, imp_broad_kind kind, int frames, double budget_ns, fixed_result *fr,
			pair_list *found, notes *nt)
{
	sworld sw;
	if (!sworld_create(&sw, s, kind, s->tol))
		return -1.0;
	double total = 0.0, start = bench_now_ns();
	long calls = 0;
	int K = fr->k;
	// The update at t = 0 belongs to frame 0: it finds the pairs touching then.
	double t0 = bench_now_ns();
	imp_status st = imp_world_update(sw.w);
	total += bench_now_ns() - t0;
	calls += imp_world_get_stats(sw.w).narrow_calls;
	int f = 0;
	for (; st == IMP_OK && (frames > 0 ? f < frames : f < s->frames); ++f) {
		if (frames == 0 && f > 0 && bench_now_ns() - start > budget_ns)
			break;
		if (found) {
			// The pairs touching at the frame's start (sample k = 0).
			void *u[2] = {&sw, &found[f]};
			imp_world_for_each_pair(sw.w, collect_pair, u);
		}
		for (int k = 1; k <= K && st == IMP_OK; ++k) {
			t0 = bench_now_ns();
			st = teleport(s, &sw, f, (double)k * s->dt / K);
			if (st == IMP_OK)
				st = imp_world_update(sw.w);
			total += bench_now_ns() - t0;
			calls += imp_world_get_stats(sw.w).narrow_calls;
			if (found) {
				imp_pair_events ev = imp_world_get_events(sw.w);
				for (int e = 0; e < ev.begin_count; ++e)
					pl_push(&found[f], body_of_id(&sw, ev.begin[e].a),
						body_of_id(&sw, ev.begin[e].b));
			}
		}
		if (found)
			pl_sort_unique(&found[f]);
	}
	sworld_destroy(&sw);
	if (st != IMP_OK) {
		note(nt, "%dD %s N=%d %s: the fixed-interval run failed: %s", s->dim, k_kind_names[s->kind], s->n,
		     k_broad_names[kind], imp_status_string(st));
		return -1.0;
	}
	if (frames == 0)
		fr->frames = f;
	fr->narrow_calls = calls;
	return total;
}

/// Compares the fixed-interval pairs with TOI's, frame by frame.
static void fixed_compare(const scene *s, const toi_result *tr, const pair_list *found, fixed_result *fr, notes *nt,
			  const char *broad)
{
	for (int f = 0; f < fr->frames; ++f) {
		fr->pairs += found[f].count;
		fr->toi_pairs += tr->found[f].count;
		for (int k = 0; k < tr->found[f].count; ++k) {
			ipair p = tr->found[f].items[k];
			if (pl_has(&found[f], p.a, p.b))
				continue;
			fr->not_found++;
			// Expected only for the pairs the search could not reach at the cap.
			if (fr->k_needed <= fr->k)
				note(nt,
				     "%dD %s N=%d %s: frame %d: the fixed-interval world at K = %d missed bodies %d "
				     "and %d, which the pair search finds at K = %d",
				     s->dim, k_kind_names[s->kind], s->n, broad, f, fr->k, p.a, p.b,
				     pair_k_needed(s, f, p.a, p.b, fr->k));
		}
		for (int k = 0; k < found[f].count; ++k) {
			ipair p = found[f].items[k];
			if (pl_has(&tr->found[f], p.a, p.b))
				continue;
			fr->extra++;
			double t_half = oracle_first(s, f, p.a, p.b, false, 0.5 * s->tol, 0.0);
			double t_tol = oracle_first(s, f, p.a, p.b, false, s->tol, 0.0);
			if (t_half < 0.0) {
				// Closest between tol / 2 and tol: the step guarantees tol / 2
				// only (world.h), so this is counted (the scene's "grazes"),
				// not an error.
				fr->extra_grazes++;
			} else {
				note(nt,
				     "%dD %s N=%d %s: frame %d: fixed interval (K = %d) found bodies %d and %d, TOI "
				     "did not: within tol at t = %.9g, within tol/2 at t = %.9g (dt %g)",
				     s->dim, k_kind_names[s->kind], s->n, broad, f, fr->k, p.a, p.b, t_tol, t_half,
				     s->dt);
			}
		}
	}
}

static int fixed_run(const scene *s, imp_broad_kind kind, int reps, int cap, const toi_result *tr, fixed_result *fr,
		     notes *nt)
{
	memset(fr, 0, sizeof *fr);
	fr->ran = true;
	fixed_find_k(s, tr, cap, fr);
	pair_list *found = calloc((size_t)s->frames, sizeof *found);
	double *ms = calloc((size_t)reps, sizeof *ms);
	if (!found || !ms) {
		free(found);
		free(ms);
		fr->failed = true;
		return -1;
	}
	double start = bench_now_ns();
	int done = 0;
	for (int r = 0; r < reps; ++r) {
		if (r > 0 && bench_now_ns() - start > FIXED_BUDGET_NS)
			break;
		double ns = fixed_rep(s, kind, r == 0 ? 0 : fr->frames, FIXED_BUDGET_NS, fr, r == 0 ? found : NULL, nt);
		if (ns < 0.0) {
			fr->failed = true;
			break;
		}
		ms[done++] = ns * 1e-6 / fr->frames;
	}
	fr->reps = done;
	if (!fr->failed) {
		fr->ms = bench_median(ms, done);
		fixed_compare(s, tr, found, fr, nt, k_broad_names[kind]);
	}
	for (int f = 0; f < s->frames; ++f)
		pl_free(&found[f]);
	free(found);
	free(ms);
	return fr->failed ? -1 : 0;
}

// ---- (c) pairwise: imp_time_of_impact2 and b2TimeOfImpact ----------------------------------

/// The accuracy of one method's answers against the oracle.
typedef struct accuracy {
	int contacts;                ///< pairs that touch (d <= 0) in the frame (oracle)
	int contacts_found;          ///< of those, reported as a contact
	double max_err_c, med_err_c; ///< |t - t_contact| over those
	int targets;                 ///< pairs reaching the method's own target (oracle)
	int targets_found;
	int beyond_missed;           ///< pairs passing the target by more than the method's tolerance, not reported
	double max_err_t, med_err_t; ///< |t - t_target| over the targets found
	int hits;                    ///< contacts reported (any time)
	int at_start;                ///< of those, at t = 0 (overlapping at the start)
	int extra;                   ///< reported, but the oracle never reaches the target
	int gave_up;                 ///< iteration limit (impact), e_failed (Box2D)
} accuracy;

/// The pairs are timed and scored twice: all of them, and those apart (by
/// more than the tolerance) at the frame's start, which are the ones whose
/// answer takes a search; in these ballistic scenes many pairs start
/// overlapping, which both methods answer at once.
enum { PW_ALL, PW_APART, PW_SUBSETS };

static const char *const k_subset_names[PW_SUBSETS] = {"all", "apart at start"};

typedef struct pairwise_result {
	bool ran;
	bool box2d;
	int reps;
	int pairs[PW_SUBSETS];
	double imp_ns[PW_SUBSETS], b2_ns[PW_SUBSETS];
	double imp_iters[PW_SUBSETS]; ///< mean distance queries per pair
	accuracy imp[PW_SUBSETS], b2[PW_SUBSETS];
	double b2_target_poly; ///< Box2D's core separation target for two polygons
	double b2_tol;         ///< Box2D's tolerance about it
} pairwise_result;

/// What the oracle says of one pair.
typedef struct pair_oracle {
	double contact;    ///< first d <= 0 (impact's shapes), -1 none
	double imp_target; ///< first d <= tol
	double imp_deep;   ///< first d <= tol / 2
	double b2_target;  ///< first core distance <= Box2D's target
	double b2_deep;    ///< first core distance <= target - Box2D's tolerance
} pair_oracle;

/// Fills acc from the answers (hit[i]: reported a contact at t[i]; gave[i]:
/// gave up) and the oracle times (target: the method's own; deep: beyond
/// its tolerance).
static void accuracy_of(accuracy *acc, int n, const bool *hit, const bool *gave, const double *t, const pair_oracle *o,
			bool box2d, double *scratch_c, double *scratch_t)
{
	memset(acc, 0, sizeof *acc);
	int nc = 0, nt = 0;
	for (int i = 0; i < n; ++i) {
		double target = box2d ? o[i].b2_target : o[i].imp_target;
		double deep = box2d ? o[i].b2_deep : o[i].imp_deep;
		acc->gave_up += gave[i];
		if (hit[i]) {
			acc->hits++;
			acc->at_start += t[i] == 0.0;
			if (target < 0.0)
				acc->extra++;
		}
		if (o[i].contact >= 0.0) {
			acc->contacts++;
			if (hit[i]) {
				acc->contacts_found++;
				scratch_c[nc++] = fabs(t[i] - o[i].contact);
			}
		}
		if (target >= 0.0) {
			acc->targets++;
			if (hit[i]) {
				acc->targets_found++;
				scratch_t[nt++] = fabs(t[i] - target);
			} else if (deep >= 0.0) {
				acc->beyond_missed++;
			}
		}
	}
	for (int i = 0; i < nc; ++i)
		acc->max_err_c = fmax(acc->max_err_c, scratch_c[i]);
	for (int i = 0; i < nt; ++i)
		acc->max_err_t = fmax(acc->max_err_t, scratch_t[i]);
	acc->med_err_c = bench_median(scratch_c, nc);
	acc->med_err_t = bench_median(scratch_t, nt);
}

/// One pair: its frame and bodies.
typedef struct pw_pair {
	int frame, a, b;
} pw_pair;

static double chained(const scene *s, int f, int a, int b, bool core, double target, double from)
{
	return from < 0.0 ? -1.0 : oracle_first(s, f, a, b, core, target, from);
}

#ifdef HAVE_BOX2D
static double angle_of(imp_rot2 q)
{
	return atan2(q.s, q.c);
}
#endif

/// Times and scores both methods on the pairs of one subset.
static int pairwise_subset(const scene *s, const pw_pair *pp, const pair_oracle *oracle, int n, int reps, int k,
			   pairwise_result *pr, notes *nt)
{
	pr->pairs[k] = n;
	int m = n > 0 ? n : 1;
	const imp_shape **sa = malloc(sizeof *sa * (size_t)m), **sb = malloc(sizeof *sb * (size_t)m);
	imp_motion2 *ma = malloc(sizeof *ma * (size_t)m), *mb = malloc(sizeof *mb * (size_t)m);
	imp_toi2_result *res = malloc(sizeof *res * (size_t)m);
	double *t = malloc(sizeof *t * (size_t)m), *sc = malloc(sizeof *sc * (size_t)m),
	       *st = malloc(sizeof *st * (size_t)m), *ns = malloc(sizeof *ns * (size_t)reps);
	bool *hit = malloc((size_t)m), *gave = malloc((size_t)m);
	int status = 0;
	if (!sa || !sb || !ma || !mb || !res || !t || !sc || !st || !ns || !hit || !gave) {
		status = -1;
		goto done;
	}
	for (int i = 0; i < n; ++i) {
		size_t row = (size_t)pp[i].frame * (size_t)s->count;
		sa[i] = s->shapes[s->shape_of[pp[i].a]].shape;
		sb[i] = s->shapes[s->shape_of[pp[i].b]].shape;
		ma[i] = s->m2[row + (size_t)pp[i].a];
		mb[i] = s->m2[row + (size_t)pp[i].b];
	}
	imp_toi_options opts = imp_default_toi_options();
	opts.tolerance = s->tol;
	// impact: imp_time_of_impact2 on every pair, t_max = dt; one untimed
	// pass first (caches, branch predictors), as for Box2D.
	for (int r = -1; r < reps; ++r) {
		double t0 = bench_now_ns();
		for (int i = 0; i < n; ++i)
			imp_time_of_impact2_ex(sa[i], ma[i], sb[i], mb[i], s->dt, &opts, &res[i]);
		if (r >= 0)
			ns[r] = (bench_now_ns() - t0) / m;
	}
	pr->imp_ns[k] = bench_median(ns, reps);
	long iters = 0;
	for (int i = 0; i < n; ++i) {
		hit[i] = res[i].state == IMP_TOI_HIT || res[i].state == IMP_TOI_OVERLAPPED;
		gave[i] = res[i].state == IMP_TOI_ITERATION_LIMIT || res[i].state == IMP_TOI_FAILED;
		t[i] = res[i].t;
		iters += res[i].iterations;
		if (k != PW_ALL)
			continue;
		// impact's guarantees: no contact missed, never after the first one.
		const pair_oracle *o = &oracle[i];
		if (o->imp_deep >= 0.0 && !hit[i])
			note(nt,
			     "%dD %s N=%d: imp_time_of_impact2 missed bodies %d and %d (frame %d): %s at t %.9g, the "
			     "oracle has d <= tol/2 at %.9g",
			     s->dim, k_kind_names[s->kind], s->n, pp[i].a, pp[i].b, pp[i].frame,
			     res[i].state == IMP_TOI_SEPARATED ? "separated" : "gave up", res[i].t, o->imp_deep);
		else if (hit[i] && o->contact >= 0.0 && res[i].t > o->contact + 1e-12 * s->dt)
			note(nt,
			     "%dD %s N=%d: imp_time_of_impact2 on bodies %d and %d (frame %d): t %.12g after the "
			     "contact at %.12g",
			     s->dim, k_kind_names[s->kind], s->n, pp[i].a, pp[i].b, pp[i].frame, res[i].t, o->contact);
	}
	pr->imp_iters[k] = n > 0 ? (double)iters / n : 0.0;
	accuracy_of(&pr->imp[k], n, hit, gave, t, oracle, false, sc, st);
#ifdef HAVE_BOX2D
	b2t_shape *shapes = malloc(sizeof *shapes * (size_t)s->nshapes);
	b2t_pair *pairs = malloc(sizeof *pairs * (size_t)m);
	int *state = malloc(sizeof *state * (size_t)m);
	float *tf = malloc(sizeof *tf * (size_t)m);
	b2t_set *set = NULL;
	if (shapes && pairs && state && tf) {
		for (int j = 0; j < s->nshapes; ++j)
			shapes[j] = (b2t_shape){s->shapes[j].verts, s->shapes[j].nverts, s->shapes[j].b2_radius};
		for (int i = 0; i < n; ++i) {
			imp_motion2 mm[2] = {ma[i], mb[i]};
			b2t_sweep w[2];
			for (int q = 0; q < 2; ++q) {
				w[q].c0 = mm[q].pose.p;
				w[q].c = imp_vec2_add(mm[q].pose.p, imp_vec2_scale(s->dt, mm[q].v));
				w[q].a0 = angle_of(mm[q].pose.q);
				w[q].a = w[q].a0 + mm[q].w * s->dt;
			}
			pairs[i] = (b2t_pair){s->shape_of[pp[i].a], s->shape_of[pp[i].b], w[0], w[1]};
		}
		set = b2t_create(shapes, s->nshapes, pairs, n);
	}
	if (set) {
		pr->box2d = true;
		for (int r = -1; r < reps; ++r) {
			double t0 = bench_now_ns();
			b2t_run(set, state, tf);
			if (r >= 0)
				ns[r] = (bench_now_ns() - t0) / m;
		}
		pr->b2_ns[k] = bench_median(ns, reps);
		for (int i = 0; i < n; ++i) {
			hit[i] = state[i] == B2T_TOUCHING || state[i] == B2T_OVERLAPPED;
			gave[i] = state[i] == B2T_FAILED;
			t[i] = (double)tf[i] * s->dt;
		}
		accuracy_of(&pr->b2[k], n, hit, gave, t, oracle, true, sc, st);
	} else {
		note(nt, "%dD %s N=%d: Box2D's pairs could not be made (out of memory?)", s->dim, k_kind_names[s->kind],
		     s->n);
	}
	b2t_destroy(set);
	free(shapes);
	free(pairs);
	free(state);
	free(tf);
#endif
done:
	free(sa);
	free(sb);
	free(ma);
	free(mb);
	free(res);
	free(t);
	free(sc);
	free(st);
	free(ns);
	free(hit);
	free(gave);
	return status;
}

/// The pairwise comparison on a 2D scene: every frame's candidate pairs.
static int pairwise_run(const scene *s, int reps, pairwise_result *pr, notes *nt)
{
	memset(pr, 0, sizeof *pr);
	if (s->dim != 2)
		return 0;
	pr->ran = true;
	pr->reps = reps;
	int n = (int)s->cand_total, m = n > 0 ? n : 1;
	pw_pair *pp = malloc(sizeof *pp * (size_t)m), *apart = malloc(sizeof *apart * (size_t)m);
	pair_oracle *o = malloc(sizeof *o * (size_t)m), *o_apart = malloc(sizeof *o_apart * (size_t)m);
	if (!pp || !apart || !o || !o_apart) {
		free(pp);
		free(apart);
		free(o);
		free(o_apart);
		return -1;
	}
	double slop = 0.005; // b2_linearSlop, for the record when Box2D is absent
#ifdef HAVE_BOX2D
	slop = b2t_linear_slop();
#endif
	pr->b2_tol = 0.25 * slop;
	pr->b2_target_poly = fmax(slop, 2.0 * b2_polygon_radius_value() - 3.0 * slop);
	// The pairs and the oracle (outside any timing).
	int i = 0, na = 0;
	for (int f = 0; f < s->frames; ++f)
		for (int k = 0; k < s->cand[f].count; ++k, ++i) {
			ipair p = s->cand[f].items[k];
			const shape_info *a = &s->shapes[s->shape_of[p.a]], *b = &s->shapes[s->shape_of[p.b]];
			pp[i] = (pw_pair){f, p.a, p.b};
			pair_oracle *q = &o[i];
			q->imp_target = oracle_first(s, f, p.a, p.b, false, s->tol, 0.0);
			q->imp_deep = chained(s, f, p.a, p.b, false, 0.5 * s->tol, q->imp_target);
			q->contact = chained(s, f, p.a, p.b, false, 0.0, q->imp_deep);
			// Box2D's target: b2TimeOfImpact's, on the cores.
			double target = fmax(slop, a->b2_radius + b->b2_radius - 3.0 * slop);
			q->b2_target = oracle_first(s, f, p.a, p.b, true, target, 0.0);
			q->b2_deep = chained(s, f, p.a, p.b, true, target - pr->b2_tol, q->b2_target);
			if (q->imp_target != 0.0) {
				apart[na] = pp[i];
				o_apart[na++] = *q;
			}
		}
	int status = pairwise_subset(s, pp, o, n, reps, PW_ALL, pr, nt);
	if (status == 0)
		status = pairwise_subset(s, apart, o_apart, na, reps, PW_APART, pr, nt);
	free(pp);
	free(apart);
	free(o);
	free(o_apart);
	return status;
}

// ---- tables -----------------------------------------------------------------------

#define TABLE_ROWS 40
#define TABLE_COLS 15

/// A small table printed as aligned text or as Markdown; row 0 is the header.
typedef struct table {
	int rows, cols;
	char cell[TABLE_ROWS][TABLE_COLS][40];
} table;

static void table_set(table *t, int row, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->cell[row][col], sizeof t->cell[row][col], fmt, ap);
	va_end(ap);
	if (row + 1 > t->rows)
		t->rows = row + 1;
	if (col + 1 > t->cols)
		t->cols = col + 1;
}

static void table_print(FILE *f, const table *t, bool markdown)
{
	int width[TABLE_COLS] = {0};
	for (int r = 0; r < t->rows; ++r)
		for (int c = 0; c < t->cols; ++c) {
			int w = (int)strlen(t->cell[r][c]);
			width[c] = w > width[c] ? w : width[c];
		}
	for (int r = 0; r < t->rows; ++r) {
		for (int c = 0; c < t->cols; ++c) {
			if (markdown)
				fprintf(f, "| %s ", t->cell[r][c]);
			else if (c == 0)
				fprintf(f, "  %-*s", width[c], t->cell[r][c]);
			else
				fprintf(f, "  %*s", width[c], t->cell[r][c]);
		}
		fprintf(f, markdown ? "|\n" : "\n");
		if (markdown && r == 0) {
			for (int c = 0; c < t->cols; ++c)
				fprintf(f, c == 0 ? "|---" : "|---:");
			fprintf(f, "|\n");
		}
	}
}

// ---- one scene -----------------------------------------------------------------------

#define MAX_BROAD 2

typedef struct scene_result {
	int dim;
	scene_kind kind;
	int n, frames, reps, k_cap;
	double side[3];
	int bullets;
	long candidates;
	int broad_count;
	imp_broad_kind broad[MAX_BROAD];
	toi_result toi[MAX_BROAD];
	fixed_result fixed[MAX_BROAD];
	pairwise_result pw;
	notes nt;
	bool failed;
} scene_result;

static int run_scene(scene_result *res)
{
	scene s;
	if (!scene_make(&s, res->dim, res->kind, res->n, res->frames,
			DEFAULT_SEED + (uint64_t)(res->dim * 16 + (int)res->kind) * 0x9e3779b97f4a7c15ull +
				(uint64_t)res->n)) {
		fprintf(stderr, "toi: could not make the scene (out of memory, or a shape failed)\n");
		scene_free(&s);
		return -1;
	}
	memcpy(res->side, s.side, sizeof res->side);
	res->bullets = s.bullets;
	res->candidates = s.cand_total;
	int status = 0;
	for (int b = 0; b < res->broad_count; ++b) {
		fprintf(stderr, "toi:   TOI step, %s...\n", k_broad_names[res->broad[b]]);
		if (toi_run(&s, res->broad[b], res->reps, &res->toi[b], &res->nt) != 0) {
			status = -1;
			continue;
		}
		fprintf(stderr, "toi:   fixed interval, %s...\n", k_broad_names[res->broad[b]]);
		if (fixed_run(&s, res->broad[b], res->reps, res->k_cap, &res->toi[b], &res->fixed[b], &res->nt) != 0)
			status = -1;
	}
	if (s.dim == 2) {
		fprintf(stderr, "toi:   pairwise (%ld pairs)...\n", s.cand_total);
		if (pairwise_run(&s, res->reps, &res->pw, &res->nt) != 0)
			status = -1;
	}
	for (int b = 0; b < res->broad_count; ++b)
		toi_result_free(&res->toi[b], s.frames);
	scene_free(&s);
	res->failed = status != 0;
	return status;
}

// ---- report ---------------------------------------------------------------------------

typedef struct options {
	int counts[8];
	int count_n;
	int frames;
	int reps;
	int k_cap;
	const char *only;
	int broad_count;
	imp_broad_kind broad[MAX_BROAD];
	bool smoke, strict;
	int pile_n;         ///< bodies of both pile scenes (0: PILE_N2 and PILE_N3)
	int pile_frames;
	double pile_budget; ///< seconds, each pile scene's fixed-interval search
} options;

typedef struct run_info {
	char machine[400], cpu[256], date[64], load[64];
	int cpus;
} run_info;

/// The 1, 5 and 15 minute load averages (a shared machine's timings vary
/// with them), or "unknown".
static void load_average(char *out, size_t size)
{
	snprintf(out, size, "unknown");
	FILE *f = fopen("/proc/loadavg", "r");
	if (!f)
		return;
	double l1, l5, l15;
	if (fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
		snprintf(out, size, "%.2f %.2f %.2f", l1, l5, l15);
	fclose(f);
}

static void print_header(FILE *f, const run_info *ri, const options *o, bool md)
{
	const char *b = md ? "- " : "";
	fprintf(f,
		"%stoi: the world's time-of-impact step against fixed-interval checking; imp_time_of_impact2 "
		"against Box2D's b2TimeOfImpact\n\n",
		md ? "# " : "");
	fprintf(f, "%smachine: %s; CPU: %s (%d logical CPUs); run %s; load average at the start %s\n", b, ri->machine,
		ri->cpu, ri->cpus, ri->date, ri->load);
#if defined(__OPTIMIZE__)
	const char *optimised = "optimised (-O2 from bench/meson.build)";
#else
	const char *optimised = "NOT optimised: the numbers mean nothing";
#endif
	fprintf(f, "%scompiler: %s, %s; impact %d\n", b, __VERSION__, optimised, imp_version());
#if defined(HAVE_BOX2D)
	// bench/meson.build defines the version (pkg-config's) with HAVE_BOX2D.
	fprintf(f, "%speer: Box2D %s (b2TimeOfImpact; b2_linearSlop %g, b2_polygonRadius %g)\n", b, BOX2D_VERSION_TEXT,
		b2t_linear_slop(), b2t_polygon_radius());
#else
	fprintf(f, "%speer: Box2D skipped (not found at build time)\n", b);
#endif
	fprintf(f,
		"%sscenes: N moving bodies about 1 across (discs/spheres r 0.25-0.5, boxes, convex polygons of 3-8 / "
		"polytopes of 6-12 points), ballistic (no response: they pass through each other and the floor); "
		"gas: random directions, up to 1 a frame, spin up to 0.5 rad a frame, bound spheres filling 8%% of "
		"the region; falling: down at 0.5-1.5 a frame, spin up to 0.3, over a static floor, 15%%; bullets: "
		"slow bodies up to 0.1 a frame, 30%%, plus 1%% bullets (0.3 scale) at 10 a frame; dt = 1/60, "
		"%d frames, seeds fixed%s\n",
		b, o->frames, o->smoke ? " (--smoke: the numbers are not measurements)" : "");
	fprintf(f,
		"%scontact: distance <= tolerance %g. TOI: imp_world_step(dt) with that tolerance (margin 0, "
		"max_pair_calls %d%s); calls = its narrow-phase calls (Level 3). Fixed interval: margin = the "
		"tolerance, every moving body teleported to its pose at k dt / K (k = 1..K) and imp_world_update "
		"each time, K = the smallest power of two at which every pair TOI found in a frame touches at "
		"some sample (cap %d); calls = the updates' narrow-phase calls (Level 2). ms/frame: median of %d "
		"repetitions (fixed interval: fewer frames or repetitions when over %.0f s); ratios TOI / fixed "
		"from the same run\n",
		b, TOLERANCE, g_pair_calls > 0 ? g_pair_calls : imp_default_step_opts().max_pair_calls,
		g_pair_calls > 0 ? ", --pair-calls" : "", o->k_cap, o->reps, FIXED_BUDGET_NS * 1e-9);
	fprintf(f,
		"%spairwise (2D): every pair whose swept bound boxes overlap in a frame, from the frame's start, "
		"t_max = dt; impact: imp_time_of_impact2_ex (tolerance %g, 64 iterations); Box2D: b2TimeOfImpact, "
		"float, tMax 1 (t x dt), proxies = the core's vertices with radius b2_polygonRadius (polygons) or the "
		"disc's radius, sweeps about the origin. Box2D stops when the cores are about max(b2_linearSlop, "
		"r_a + r_b - 3 b2_linearSlop) apart (+- b2_linearSlop / 4): polygons 0.005 apart, discs overlapping "
		"by 0.015; impact stops at distance in (tol/2, tol]. Accuracy against an oracle (Lipschitz scan of "
		"imp_distance2 + bisection): 'vs contact' = the first time the shapes touch (d <= 0); 'vs own target' "
		"= the first time each method's own stopping distance is reached\n",
		b, TOLERANCE);
	fprintf(f, "\n");
}

static void fmt_ms(char *out, size_t size, double ms)
{
	if (isnan(ms))
		snprintf(out, size, "-");
	else if (ms >= 100.0)
		snprintf(out, size, "%.0f", ms);
	else if (ms >= 1.0)
		snprintf(out, size, "%.2f", ms);
	else
		snprintf(out, size, "%.3f", ms);
}

static void print_scene(FILE *f, const scene_result *r, bool md)
{
	if (md)
		fprintf(f, "\n## %dD %s, N = %d\n\n", r->dim, k_kind_names[r->kind], r->n);
	else
		fprintf(f, "== %dD %s, N = %d\n", r->dim, k_kind_names[r->kind], r->n);
	if (r->dim == 2)
		fprintf(f, "region %.1f x %.1f", r->side[0], r->side[1]);
	else
		fprintf(f, "region %.1f x %.1f x %.1f", r->side[0], r->side[1], r->side[2]);
	if (r->bullets > 0)
		fprintf(f, ", %d of the bodies bullets", r->bullets);
	fprintf(f, "; %d frames; %ld candidate pairs (swept bound boxes overlap) over the frames\n\n", r->frames,
		r->candidates);
	table t;
	memset(&t, 0, sizeof t);
	const char *head[] = {"broad", "N", "frames", "contact pairs/frame", "TOI calls/frame", "K",
			      "fixed calls/frame", "calls TOI/fixed", "TOI ms/frame", "fixed ms/frame",
			      "time TOI/fixed"};
	for (int c = 0; c < 11; ++c)
		table_set(&t, 0, c, "%s", head[c]);
	for (int b = 0; b < r->broad_count; ++b) {
		const toi_result *tr = &r->toi[b];
		const fixed_result *fr = &r->fixed[b];
		int row = b + 1;
		table_set(&t, row, 0, "%s", k_broad_names[r->broad[b]]);
		table_set(&t, row, 1, "%d", r->n);
		table_set(&t, row, 2, "%d", r->frames);
		if (tr->failed || !tr->ran) {
			table_set(&t, row, 3, "failed");
			continue;
		}
		char a[32], c[32];
		table_set(&t, row, 3, "%.1f", (double)tr->pairs / r->frames);
		table_set(&t, row, 4, "%.0f", (double)tr->narrow_calls / r->frames);
		if (fr->failed || !fr->ran) {
			table_set(&t, row, 5, "failed");
			continue;
		}
		if (fr->k_needed > fr->k)
			table_set(&t, row, 5, "%d (cap; %ld missed)", fr->k, fr->k_missed);
		else
			table_set(&t, row, 5, "%d", fr->k);
		double fcalls = (double)fr->narrow_calls / fr->frames;
		table_set(&t, row, 6, "%.0f", fcalls);
		table_set(&t, row, 7, "%.3f", fcalls > 0 ? (double)tr->narrow_calls / r->frames / fcalls : NAN);
		fmt_ms(a, sizeof a, tr->ms);
		fmt_ms(c, sizeof c, fr->ms);
		table_set(&t, row, 8, "%s", a);
		table_set(&t, row, 9, "%s%s", c, fr->frames < r->frames ? "*" : "");
		table_set(&t, row, 10, "%.3f", tr->ms / fr->ms);
	}
	table_print(f, &t, md);
	fprintf(f, "\n");
	for (int b = 0; b < r->broad_count; ++b) {
		const toi_result *tr = &r->toi[b];
		const fixed_result *fr = &r->fixed[b];
		if (!tr->ran || tr->failed)
			continue;
		fprintf(f,
			"%s%s: TOI over %d frames: %ld events, %ld candidates, %ld queued, queue peak %d, %ld heap "
			"ops, %ld capped pairs (%d frames not complete), at most %d calls for a pair%s; poses within %.1e of the motions'; "
			"oracle: %ld pairs within tol/2, %ld missed (%ld within it at the frame's start, %ld later "
			"in the frame, %ld of these in a step that capped pairs); %ld bad events\n",
			md ? "- " : "", k_broad_names[r->broad[b]], r->frames, tr->events, tr->candidates, tr->queued,
			tr->queue_peak, tr->heap_ops, tr->capped, tr->capped_frames, tr->most_pair_calls,
			tr->calls_vary ? "; narrow calls differ between repetitions" : "", tr->pose_dev,
			tr->oracle_deep, tr->oracle_missed, tr->missed_at_start, tr->missed_later,
			tr->missed_later_capped, tr->bad_events);
		if (fr->ran && !fr->failed)
			fprintf(f,
				"%s%s: fixed interval: K for every TOI pair %s%d, for 99%% %d; %d of %d frames "
				"timed%s, %d repetition%s; pairs found %ld (TOI %ld), TOI pairs not found %ld, found "
				"but not by TOI %ld (%ld of them grazes: closest between tol/2 and tol)\n",
				md ? "- " : "", k_broad_names[r->broad[b]], fr->k_needed > fr->k ? "> " : "",
				fr->k_needed > fr->k ? fr->k : fr->k_needed, fr->k99, fr->frames, r->frames,
				fr->frames < r->frames ? " (*: over budget)" : "", fr->reps, fr->reps == 1 ? "" : "s",
				fr->pairs, fr->toi_pairs, fr->not_found, fr->extra, fr->extra_grazes);
	}
	const pairwise_result *pw = &r->pw;
	if (pw->ran) {
		fprintf(f,
			"\npairwise: every frame's candidate pairs from the frame's start; median of %d repetitions; "
			"times in the units of t (dt = %.6g)\n\n",
			pw->reps, STEP_DT);
		memset(&t, 0, sizeof t);
		const char *ph[] = {"pairs", "method", "ns/pair", "contacts found", "missed contacts",
				    "max err contact", "median", "own target found", "missed beyond tol",
				    "max err target", "median", "at t=0", "extra hits", "gave up"};
		for (int c = 0; c < 14; ++c)
			table_set(&t, 0, c, "%s", ph[c]);
		int row = 1;
		for (int k = 0; k < PW_SUBSETS; ++k)
			for (int m = 0; m < (pw->box2d ? 2 : 1); ++m, ++row) {
				const accuracy *a = m == 0 ? &pw->imp[k] : &pw->b2[k];
				table_set(&t, row, 0, "%s (%d)", k_subset_names[k], pw->pairs[k]);
				table_set(&t, row, 1, "%s", m == 0 ? "imp_time_of_impact2" : "b2TimeOfImpact");
				table_set(&t, row, 2, "%.0f", m == 0 ? pw->imp_ns[k] : pw->b2_ns[k]);
				table_set(&t, row, 3, "%d / %d", a->contacts_found, a->contacts);
				table_set(&t, row, 4, "%d", a->contacts - a->contacts_found);
				table_set(&t, row, 5, "%.2e", a->max_err_c);
				table_set(&t, row, 6, "%.2e", a->med_err_c);
				table_set(&t, row, 7, "%d / %d", a->targets_found, a->targets);
				table_set(&t, row, 8, "%d", a->beyond_missed);
				table_set(&t, row, 9, "%.2e", a->max_err_t);
				table_set(&t, row, 10, "%.2e", a->med_err_t);
				table_set(&t, row, 11, "%d", a->at_start);
				table_set(&t, row, 12, "%d", a->extra);
				table_set(&t, row, 13, "%d", a->gave_up);
			}
		table_print(f, &t, md);
		fprintf(f, "\n");
		for (int k = 0; k < PW_SUBSETS && pw->box2d; ++k)
			fprintf(f, "%s%s: impact / Box2D time %.3f; impact %.2f distance queries a pair\n",
				md ? "- " : "", k_subset_names[k], pw->imp_ns[k] / pw->b2_ns[k], pw->imp_iters[k]);
		fprintf(f,
			"%serr contact = abs(t - the oracle's first time the shapes touch), over the pairs both "
			"find; err target = abs(t - the oracle's first time the method's own target is reached); own "
			"targets: impact distance <= %g (missed beyond tol: the oracle reaches tol/2, no hit); Box2D "
			"core separation %g for two polygons, r_a + r_b - 3 b2_linearSlop when a disc is in the pair "
			"(missed beyond tol: the oracle reaches %g below it, no hit); missed contacts: the shapes "
			"touch (d <= 0) in the frame, no hit; extra hits: a hit whose own target the oracle never "
			"reaches (within the method's tolerance of it)\n",
			md ? "- " : "", TOLERANCE, pw->b2_target_poly, pw->b2_tol);
	}
	if (r->nt.total > 0) {
		fprintf(f, "\nERRORS (%ld; the first %d):\n", r->nt.total, r->nt.kept);
		for (int k = 0; k < r->nt.kept; ++k)
			fprintf(f, "%serror: %s\n", md ? "- " : "", r->nt.line[k]);
	}
	fprintf(f, "\n");
}

/// The pairwise summary of a 2D scene.
typedef struct pw_summary_row {
	char scene[48];
	double ratio[PW_SUBSETS]; ///< impact / Box2D ns per pair
	double imp_max, b2_max;   ///< max |t - t_contact|, apart at start
	double imp_med, b2_med;
	int imp_missed, b2_missed; ///< missed contacts, all pairs
} pw_summary_row;

/// The summary: each scene's ratios against the issue's targets.
typedef struct summary_row {
	char scene[48];
	char broad[8];
	double calls_ratio, time_ratio;
	bool complete; ///< K reached every pair
} summary_row;

// ---- (d) piles: a simulation with gravity and impulses ---------------------------------
//
// Unlike the ballistic scenes, the bodies here respond: they are dropped from
// a grid into a closed static container and pile up. The scene and the
// physics are scene_pile.c's (shared with bench/threads), tests/test_impulse.c's
// physics_on_contact (the bench's own code, the same constants; one
// function, sp_contact, for both methods): linear sequential impulses, no
// angular velocity, mass proportional to area (2D) or volume (3D), static
// walls of infinite mass, restitution only for an approach faster than
// SP_RESTITUTION_SPEED, a push-out of overlapping contacts, and warm
// starting from a per-pair memory (sp_memory). Gravity is added to every
// dynamic body's velocity before the step (TOI) or before each substep,
// g dt / k (fixed interval). What is measured is what the contact detection
// lets the response keep: bodies inside the container and overlaps within
// the contact tolerance at every frame end.

#define PILE_SMOKE_N 100
#define PILE_SMOKE_FRAMES 30
/// Fixed interval: sequential-impulse sweeps over the touching pairs a substep.
#define PILE_SWEEPS 4
/// The fixed-interval search of one pile scene starts no k that would take
/// it (by the last run's time, doubled) past this budget.
#define PILE_BUDGET_S 60.0
#define PILE_SMOKE_BUDGET_S 1.0
#define PILE_K_MAX (1 << 16)
#define PILE_SMOKE_K_MAX 8
/// Timed repetitions beyond the first (checked) run are made only for runs
/// shorter than this.
#define PILE_REPEAT_BELOW_NS 5e9
#define PILE_MAX_K_RUNS 17

static const char *const k_pile_kinds2[3] = {"discs", "boxes", "convex polygons"};
static const char *const k_pile_kinds3[3] = {"spheres", "boxes", "capsules"};

/// What a run (the TOI step, or fixed interval at k substeps) did.
typedef struct pile_run {
	bool ran, failed;
	int k;             ///< substeps a frame; 0: the TOI step
	int frames, reps;
	double ms;         ///< median over the repetitions of ms per frame (checks excluded)
	double wall_ns;    ///< all the repetitions, checks included (for the budget)
	long narrow_calls; ///< TOI: the steps'; fixed: the updates' plus the impulses' imp_closest calls
	long contacts;     ///< TOI: contact events; fixed: touching pairs, over the substeps
	int most_pair_calls;
	int capped_steps;
	long capped_pairs;
	bool calls_vary;   ///< the repetitions disagreed on the narrow-phase calls
	long out_of_order; ///< TOI: contacts earlier than the one before in the same step
	int escaped;       ///< dynamic bodies whose origin is outside the container at the end
	int first_escape;  ///< the first frame that ended with one outside (-1: none)
	double deepest;    ///< the deepest overlap at any frame end (0: none)
	double worst_ratio; ///< the largest overlap / the pair's tolerance at any frame end
	long over_tol;     ///< pair-frames with an overlap beyond the pair's tolerance
	int over_frames;   ///< frames that ended with one
	double v_max;      ///< the largest speed a body inside the container started a frame with
} pile_run;

static bool pile_run_holds(const pile_run *r)
{
	return r->ran && !r->failed && r->escaped == 0 && r->first_escape < 0 && r->over_tol == 0;
}

/// A touching pair of the fixed-interval run, with its normal and distance.
typedef struct pile_pair {
	int a, b;
	imp_vec3 n;
	double d;
} pile_pair;

/// A world holding a pile (the physics' state in sim), and the state of one
/// run.
typedef struct pile_sim {
	sp_sim sim;
	imp_vec3 *v;  ///< fixed interval: the velocities (the TOI run keeps them in the world)
	imp_vec3 *x;  ///< fixed interval: the positions
	pile_pair *pairs;
	int npairs, pair_cap;
	bool pairs_oom;
	double last_t; ///< TOI: the time of the last contact of this step
	long out_of_order;
} pile_sim;

static void pile_sim_destroy(pile_sim *s)
{
	sp_sim_destroy(&s->sim);
	free(s->v);
	free(s->x);
	free(s->pairs);
	memset(s, 0, sizeof *s);
}

static bool pile_sim_create(pile_sim *s, const sp_pile *p, imp_broad_kind kind, double margin)
{
	memset(s, 0, sizeof *s);
	if (!sp_sim_create(&s->sim, p, kind, margin, 1, "toi"))
		return false;
	s->v = calloc((size_t)p->count, sizeof *s->v);
	s->x = calloc((size_t)p->count, sizeof *s->x);
	if (!s->v || !s->x) {
		pile_sim_destroy(s);
		return false;
	}
	for (int i = 0; i < p->count; ++i)
		s->x[i] = p->dim == 2 ? imp_vec3_make(p->pose2[i].p.x, p->pose2[i].p.y, 0.0) : p->pose3[i].p;
	return true;
}

/// The TOI run's contact callback: the impulse (sp_on_contact), at the
/// contact's time.
static void pile_on_contact(const imp_contact_event *e, void *user)
{
	pile_sim *s = user;
	if (e->t < s->last_t)
		s->out_of_order++;
	s->last_t = fmax(s->last_t, e->t);
	sp_on_contact(e, &s->sim);
}

/// One TOI frame: gravity, then one step.
static imp_status pile_toi_frame(pile_sim *s, const imp_step_opts *opts)
{
	sp_gravity(&s->sim);
	if (s->sim.bad != IMP_OK)
		return s->sim.bad;
	s->sim.frame++;
	s->last_t = 0.0;
	imp_status st = imp_world_step(s->sim.w, s->sim.dt, opts);
	return st != IMP_OK ? st : s->sim.bad;
}

static bool pile_collect(imp_body_id a, imp_body_id b, void *user)
{
	pile_sim *s = user;
	if (s->npairs == s->pair_cap) {
		int cap = s->pair_cap ? 2 * s->pair_cap : 256;
		pile_pair *q = realloc(s->pairs, sizeof *q * (size_t)cap);
		if (!q) {
			s->pairs_oom = true;
			return false;
		}
		s->pairs = q;
		s->pair_cap = cap;
	}
	s->pairs[s->npairs++] = (pile_pair){sp_body_of(&s->sim, a), sp_body_of(&s->sim, b), {0.0, 0.0, 0.0}, 0.0};
	return true;
}

/// Body i's pose in the fixed-interval run: its position, its start rotation.
static imp_pose2 pile_pose2(const pile_sim *s, int i)
{
	imp_pose2 q = s->sim.p->pose2[i];
	q.p = imp_vec2_make(s->x[i].x, s->x[i].y);
	return q;
}

static imp_pose3 pile_pose3(const pile_sim *s, int i)
{
	imp_pose3 q = s->sim.p->pose3[i];
	q.p = s->x[i];
	return q;
}

/// One fixed-interval frame: k substeps, each gravity (g dt / k), a
/// teleport to x + v dt / k, an update, and PILE_SWEEPS sweeps over the
/// touching pairs (normal and distance from imp_closest once a substep).
/// A sweep gives a pair to sp_contact when it approaches, as the step
/// reports a pair in contact only when it approaches; a substep is a frame
/// of the warm starting (its memory: the pairs given in the last substep
/// and their impulses). Giving it every touching pair would warm-start the
/// overlapping ones that are already separating, adding their last impulse
/// again at every substep (the runs at small k then blew up: speeds of 100,
/// against 5 for the TOI run). Adds the narrow-phase calls and touching
/// pairs to *calls and *touching.
static imp_status pile_fixed_frame(pile_sim *s, int k, long *calls, long *touching)
{
	const sp_pile *p = s->sim.p;
	double h = s->sim.dt / k;
	for (int sub = 0; sub < k; ++sub) {
		s->sim.frame++;
		for (int i = 0; i < p->n; ++i) {
			s->v[i].y -= SP_GRAVITY * h;
			s->x[i] = imp_vec3_add(s->x[i], imp_vec3_scale(h, s->v[i]));
			imp_status st = p->dim == 2 ? imp_body_set_pose2(s->sim.w, s->sim.ids[i], pile_pose2(s, i))
						    : imp_body_set_pose3(s->sim.w, s->sim.ids[i], pile_pose3(s, i));
			if (st != IMP_OK)
				return st;
		}
		imp_status st = imp_world_update(s->sim.w);
		if (st != IMP_OK)
			return st;
		*calls += imp_world_get_stats(s->sim.w).narrow_calls;
		s->npairs = 0;
		imp_world_for_each_pair(s->sim.w, pile_collect, s);
		if (s->pairs_oom)
			return IMP_ERR_OUT_OF_MEMORY;
		*touching += s->npairs;
		for (int q = 0; q < s->npairs; ++q) {
			pile_pair *pp = &s->pairs[q];
			if (pp->a < 0 || pp->b < 0)
				return IMP_ERR_BAD_ID;
			if (p->dim == 2) {
				imp_closest2_result c;
				st = imp_closest2(p->shape[pp->a], pile_pose2(s, pp->a), p->shape[pp->b], pile_pose2(s, pp->b),
						  NULL, &c);
				pp->n = imp_vec3_make(c.normal.x, c.normal.y, 0.0);
				pp->d = c.distance;
			} else {
				imp_closest3_result c;
				st = imp_closest3(p->shape[pp->a], pile_pose3(s, pp->a), p->shape[pp->b], pile_pose3(s, pp->b),
						  NULL, &c);
				pp->n = c.normal;
				pp->d = c.distance;
			}
			if (st != IMP_OK)
				return st;
		}
		*calls += s->npairs;
		for (int sweep = 0; sweep < PILE_SWEEPS; ++sweep)
			for (int q = 0; q < s->npairs; ++q) {
				const pile_pair *pp = &s->pairs[q];
				imp_vec3 *va = &s->v[pp->a], *vb = &s->v[pp->b];
				double vn = imp_vec3_dot(imp_vec3_sub(*vb, *va), pp->n);
				if (vn < 0.0)
					sp_contact(&s->sim, pp->a, pp->b, s->sim.ids[pp->a], s->sim.ids[pp->b], pp->n, pp->d, vn, va, vb);
			}
		if (s->sim.bad != IMP_OK)
			return s->sim.bad;
	}
	return IMP_OK;
}

/// Whether a position is inside the container (a NaN is not).
static bool pile_inside(const sp_pile *p, imp_vec3 x)
{
	double c[3] = {x.x, x.y, x.z};
	for (int a = 0; a < p->dim; ++a)
		if (!(c[a] >= 0.0 && c[a] <= p->inside[a]))
			return false;
	return true;
}

/// The check at a frame's end (outside the timed region), on the world's
/// poses: bodies outside the container, and every pair (not two walls)
/// whose boxes overlap: imp_distance2/3, and for the pairs it finds touching
/// or overlapping, the depth from imp_closest2/3 against the pair's
/// tolerance. `toi`: the velocities are the world's (else s->v).
static void pile_check(pile_sim *s, bool toi, int frame, pile_run *r, imp_aabb3 *box, imp_vec3 *pos)
{
	const sp_pile *p = s->sim.p;
	for (int i = 0; i < p->count; ++i) {
		if (p->dim == 2) {
			imp_aabb2 b = {{NAN, NAN}, {NAN, NAN}};
			imp_pose2 q = p->pose2[i];
			imp_body_get_aabb2(s->sim.w, s->sim.ids[i], &b);
			imp_body_get_pose2(s->sim.w, s->sim.ids[i], &q);
			box[i] = (imp_aabb3){{b.lo.x, b.lo.y, 0.0}, {b.hi.x, b.hi.y, 0.0}};
			pos[i] = imp_vec3_make(q.p.x, q.p.y, 0.0);
		} else {
			imp_aabb3 b = {{NAN, NAN, NAN}, {NAN, NAN, NAN}};
			imp_pose3 q = p->pose3[i];
			imp_body_get_aabb3(s->sim.w, s->sim.ids[i], &b);
			imp_body_get_pose3(s->sim.w, s->sim.ids[i], &q);
			box[i] = b;
			pos[i] = q.p;
		}
	}
	int outside = 0;
	for (int i = 0; i < p->n; ++i) {
		if (!pile_inside(p, pos[i])) {
			outside++;
			continue;
		}
		// The speed it starts the next frame with (gravity added).
		imp_vec3 v = toi ? sp_velocity(&s->sim, i) : s->v[i];
		v.y -= SP_GRAVITY * s->sim.dt;
		r->v_max = fmax(r->v_max, imp_vec3_length(v));
	}
	r->escaped = outside;
	if (outside > 0 && r->first_escape < 0)
		r->first_escape = frame;
	bool over = false;
	for (int i = 0; i < p->n; ++i)
		for (int j = i + 1; j < p->count; ++j) {
			const imp_aabb3 *a = &box[i], *b = &box[j];
			if (!(a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
			      a->lo.z <= b->hi.z && b->lo.z <= a->hi.z))
				continue;
			double d, depth;
			if (p->dim == 2) {
				imp_pose2 qa = {{pos[i].x, pos[i].y}, p->pose2[i].q}, qb = {{pos[j].x, pos[j].y}, p->pose2[j].q};
				d = imp_distance2(p->shape[i], qa, p->shape[j], qb, NULL);
				if (d > 0.0)
					continue;
				imp_closest2_result c;
				c.distance = NAN;
				imp_closest2(p->shape[i], qa, p->shape[j], qb, NULL, &c);
				depth = -c.distance;
			} else {
				imp_pose3 qa = {pos[i], p->pose3[i].q}, qb = {pos[j], p->pose3[j].q};
				d = imp_distance3(p->shape[i], qa, p->shape[j], qb, NULL);
				if (d > 0.0)
					continue;
				imp_closest3_result c;
				c.distance = NAN;
				imp_closest3(p->shape[i], qa, p->shape[j], qb, NULL, &c);
				depth = -c.distance;
			}
			if (isnan(depth))
				depth = INFINITY; // a query that failed counts as the worst
			if (depth <= 0.0)
				continue;
			double tol = sp_contact_tolerance(p->reach[i], p->reach[j]);
			r->deepest = fmax(r->deepest, depth);
			r->worst_ratio = fmax(r->worst_ratio, depth / tol);
			if (depth > tol) {
				r->over_tol++;
				over = true;
			}
		}
	r->over_frames += over;
}

/// The runs of a pile scene: the TOI step (k = 0) or fixed interval at k
/// substeps; `reps` repetitions (the first checked, the others only timed;
/// fixed interval: more than one only while each takes under
/// PILE_REPEAT_BELOW_NS, the search's budget being what it is).
static void pile_run_method(const sp_pile *p, imp_broad_kind kind, int frames, int k, int reps, pile_run *r, notes *nt)
{
	memset(r, 0, sizeof *r);
	r->ran = true;
	r->k = k;
	r->first_escape = -1;
	double *ms = calloc((size_t)reps, sizeof *ms);
	imp_aabb3 *box = malloc(sizeof *box * (size_t)p->count);
	imp_vec3 *pos = malloc(sizeof *pos * (size_t)p->count);
	if (!ms || !box || !pos) {
		r->failed = true;
		goto done;
	}
	double wall0 = bench_now_ns();
	for (int rep = 0; rep < reps; ++rep) {
		if (k > 0 && rep > 0 && (bench_now_ns() - wall0) / rep > PILE_REPEAT_BELOW_NS)
			break;
		bool check = rep == 0;
		pile_sim s;
		// Fixed interval: the world's margin is the contact tolerance (the
		// largest pair's), so a pair within it touches.
		if (!pile_sim_create(&s, p, kind, k > 0 ? p->tol_max : 0.0)) {
			r->failed = true;
			break;
		}
		imp_step_opts opts = imp_default_step_opts();
		opts.on_contact = pile_on_contact;
		opts.user = &s;
		if (g_pair_calls > 0)
			opts.max_pair_calls = g_pair_calls;
		double total = 0.0;
		long calls = 0, contacts = 0;
		if (check)
			pile_check(&s, k == 0, -1, r, box, pos);
		int f = 0;
		for (; f < frames; ++f) {
			double t0 = bench_now_ns();
			imp_status st = k == 0 ? pile_toi_frame(&s, &opts) : pile_fixed_frame(&s, k, &calls, &contacts);
			total += bench_now_ns() - t0;
			if (st != IMP_OK) {
				note(nt, "%dD pile N=%d %s: %s failed at frame %d: %s", p->dim, p->n, k_broad_names[kind],
				     k == 0 ? "the TOI run" : "the fixed-interval run", f, imp_status_string(st));
				r->failed = true;
				break;
			}
			if (k == 0) {
				imp_step_stats ss = imp_world_get_step_stats(s.sim.w);
				calls += ss.narrow_calls;
				contacts += ss.events;
				if (check) {
					r->most_pair_calls = ss.most_pair_calls > r->most_pair_calls ? ss.most_pair_calls
												   : r->most_pair_calls;
					r->capped_steps += ss.state != IMP_STEP_COMPLETE;
					r->capped_pairs += ss.capped_pairs;
				}
			}
			if (check)
				pile_check(&s, k == 0, f, r, box, pos);
		}
		if (check) {
			r->out_of_order = s.out_of_order;
			if (s.out_of_order > 0)
				note(nt, "%dD pile N=%d %s: %ld contacts came earlier than the one before them in their step",
				     p->dim, p->n, k_broad_names[kind], s.out_of_order);
			r->narrow_calls = calls;
			r->contacts = contacts;
			r->frames = f;
		} else if (calls != r->narrow_calls) {
			r->calls_vary = true;
		}
		pile_sim_destroy(&s);
		if (r->failed)
			break;
		ms[r->reps++] = total * 1e-6 / frames;
	}
	r->wall_ns = bench_now_ns() - wall0;
	if (r->reps > 0)
		r->ms = bench_median(ms, r->reps);
done:
	free(ms);
	free(box);
	free(pos);
}

typedef struct pile_result {
	int dim, n, frames, reps;
	imp_broad_kind broad;
	double inside[3], drop, tol_min, tol_max;
	int kinds[3];
	pile_run toi;
	pile_run fixed[PILE_MAX_K_RUNS];
	int nfixed;
	double budget_s;
	int k_max;
	bool budget_hit;    ///< the search stopped on the budget (not on k_max)
	int k_same;         ///< the smallest k that gives the same guarantee (0: none tried did)
	double v_max;       ///< the largest speed seen (every run)
	double k_bound;     ///< v_max dt / tol_min, when no k tried did
	double ms_per_substep; ///< measured at the largest k tried
	double fixed_ms;    ///< at k_same (measured) or k_bound (extrapolated)
	notes nt;
	bool failed;
} pile_result;

static int run_pile(pile_result *res)
{
	sp_pile p;
	uint64_t seed = DEFAULT_SEED ^ (UINT64_C(0x9113) * (uint64_t)res->dim) ^ (uint64_t)res->n;
	if (!sp_pile_make(&p, res->dim, res->n, seed)) {
		fprintf(stderr, "toi: could not make the pile (out of memory, or a shape failed)\n");
		sp_pile_free(&p);
		res->failed = true;
		return -1;
	}
	memcpy(res->inside, p.inside, sizeof res->inside);
	memcpy(res->kinds, p.kinds, sizeof res->kinds);
	res->drop = p.drop;
	res->tol_min = p.tol_min;
	res->tol_max = p.tol_max;
	fprintf(stderr, "toi:   TOI step, %s...\n", k_broad_names[res->broad]);
	pile_run_method(&p, res->broad, res->frames, 0, res->reps, &res->toi, &res->nt);
	res->v_max = res->toi.v_max;
	double start = bench_now_ns(), budget_ns = res->budget_s * 1e9;
	for (int k = 1; k <= res->k_max && res->nfixed < PILE_MAX_K_RUNS; k *= 2) {
		if (res->nfixed > 0) {
			// The next k costs about twice the last (its substeps double).
			double next = 2.0 * res->fixed[res->nfixed - 1].wall_ns;
			if (bench_now_ns() - start + next > budget_ns) {
				res->budget_hit = true;
				break;
			}
		}
		fprintf(stderr, "toi:   fixed interval, k = %d...\n", k);
		pile_run *fr = &res->fixed[res->nfixed++];
		pile_run_method(&p, res->broad, res->frames, k, res->reps, fr, &res->nt);
		if (fr->failed)
			break;
		res->v_max = fmax(res->v_max, fr->v_max);
		if (pile_run_holds(fr)) {
			res->k_same = k;
			break;
		}
	}
	const pile_run *last = res->nfixed > 0 ? &res->fixed[res->nfixed - 1] : NULL;
	if (res->k_same > 0) {
		res->fixed_ms = last->ms;
	} else if (last && !last->failed && last->reps > 0) {
		res->k_bound = ceil(res->v_max * STEP_DT / res->tol_min);
		res->ms_per_substep = last->ms / last->k;
		res->fixed_ms = res->ms_per_substep * res->k_bound;
	}
	res->failed = res->toi.failed || (last && last->failed);
	sp_pile_free(&p);
	return res->failed ? -1 : 0;
}

static void fmt_k(char *out, size_t size, double k)
{
	if (k < 1e5)
		snprintf(out, size, "%.0f", k);
	else
		snprintf(out, size, "%.3g", k);
}

static void print_pile(FILE *f, const pile_result *r, bool md)
{
	const char *const *kn = r->dim == 2 ? k_pile_kinds2 : k_pile_kinds3;
	if (md)
		fprintf(f, "\n## %dD pile, N = %d\n\n", r->dim, r->n);
	else
		fprintf(f, "== %dD pile, N = %d\n", r->dim, r->n);
	char inside[64];
	if (r->dim == 2)
		snprintf(inside, sizeof inside, "%.2f x %.2f", r->inside[0], r->inside[1]);
	else
		snprintf(inside, sizeof inside, "%.2f x %.2f x %.2f", r->inside[0], r->inside[1], r->inside[2]);
	fprintf(f,
		"%d dynamic bodies (%d %s, %d %s, %d %s; %.1f-%.1f across, random rotations, no angular velocity, "
		"mass = %s) dropped from a grid (origins up to %.2f high) into a closed container of %d static "
		"walls (inside %s, walls %.2f thick); gravity %.2f; %d frames of 1/60; broad phase %s; contact "
		"tolerance of a pair: 1e-6 x the smaller bound diameter, here %.2e to %.2e\n"
		"physics (tests/test_impulse.c's): linear sequential impulses, restitution %.1f for approaches faster "
		"than %.1f, push-out %.1f x depth / dt, warm start %.2f x the last frame's impulse (normal within "
		"cos %.2f, approach slower than %.1f); fixed interval: gravity g dt / k and %d sweeps over the "
		"touching pairs a substep (each pair when it approaches), a substep warm-started from the last\n\n",
		r->n, r->kinds[0], kn[0], r->kinds[1], kn[1], r->kinds[2], kn[2], SP_SIZE_LO, SP_SIZE_HI,
		r->dim == 2 ? "area" : "volume", r->drop, 2 * r->dim, inside, SP_WALL, SP_GRAVITY, r->frames,
		k_broad_names[r->broad], r->tol_min, r->tol_max, SP_RESTITUTION, SP_RESTITUTION_SPEED,
		SP_PUSH_BETA, SP_WARM_START, SP_WARM_NORMAL, SP_RESTITUTION_SPEED, PILE_SWEEPS);
	table t;
	memset(&t, 0, sizeof t);
	const char *head[] = {"method", "k", "frames", "reps", "ms/frame", "calls/frame", "contacts/frame",
			      "most pair calls", "capped steps", "escaped (end)", "first escape", "deepest overlap",
			      "worst depth/tol", "frames over tol", "v_max"};
	for (int c = 0; c < 15; ++c)
		table_set(&t, 0, c, "%s", head[c]);
	for (int q = -1; q < r->nfixed && q + 2 < TABLE_ROWS; ++q) {
		const pile_run *pr = q < 0 ? &r->toi : &r->fixed[q];
		int row = q + 2;
		table_set(&t, row, 0, "%s", q < 0 ? "TOI step" : "fixed");
		table_set(&t, row, 1, q < 0 ? "-" : "%d", pr->k);
		if (!pr->ran || pr->frames == 0) {
			table_set(&t, row, 2, "failed");
			continue;
		}
		char ms[32];
		fmt_ms(ms, sizeof ms, pr->ms);
		table_set(&t, row, 2, "%d%s", pr->frames, pr->failed ? " (failed)" : "");
		table_set(&t, row, 3, "%d", pr->reps);
		table_set(&t, row, 4, "%s", ms);
		table_set(&t, row, 5, "%.0f", (double)pr->narrow_calls / pr->frames);
		table_set(&t, row, 6, "%.0f", (double)pr->contacts / pr->frames);
		table_set(&t, row, 7, q < 0 ? "%d" : "-", pr->most_pair_calls);
		table_set(&t, row, 8, q < 0 ? "%d" : "-", pr->capped_steps);
		table_set(&t, row, 9, "%d", pr->escaped);
		table_set(&t, row, 10, pr->first_escape < 0 ? "-" : "%d", pr->first_escape);
		table_set(&t, row, 11, "%.2e", pr->deepest);
		table_set(&t, row, 12, "%.3g", pr->worst_ratio);
		table_set(&t, row, 13, "%d", pr->over_frames);
		table_set(&t, row, 14, "%.3g", pr->v_max);
	}
	table_print(f, &t, md);
	fprintf(f, "\n");
	const char *b = md ? "- " : "";
	fprintf(f,
		"%scolumns: calls = narrow-phase calls (TOI: the steps' Level 3; fixed: the updates' plus the "
		"impulses' imp_closest); contacts = TOI contact events, fixed touching pairs summed over the "
		"substeps; escaped = origins outside the container at the end (first escape: the first frame that "
		"ended with one); overlaps checked at every frame end (outside the timing) on every pair whose "
		"boxes overlap; depth/tol against the pair's own tolerance; v_max = the largest speed of a body inside "
		"the container at a frame's start; ms/frame: gravity + the step or the k substeps, median of the "
		"repetitions\n",
		b);
	const pile_run *tr = &r->toi;
	if (tr->ran && tr->frames > 0) {
		fprintf(f,
			"%sTOI step: %s; %ld capped pairs over the run; contacts out of time order %ld%s\n", b,
			pile_run_holds(tr) ? "holds the pile (no body lost, every overlap within its tolerance)"
					   : "does NOT hold the pile (bodies lost or overlaps beyond the tolerance)",
			tr->capped_pairs, tr->out_of_order, tr->calls_vary ? "; narrow calls differ between repetitions" : "");
	}
	fprintf(f, "%slargest speed of a body inside the container at a frame's start (every run): v_max = %.3g\n", b,
		r->v_max);
	if (r->k_same > 0) {
		const pile_run *fr = &r->fixed[r->nfixed - 1];
		fprintf(f,
			"%sfixed interval, the same guarantee (no body lost, every overlap within its tolerance): k = "
			"%d, %.3g ms/frame measured; time TOI / fixed at that k = %.3g (same run)\n",
			b, r->k_same, fr->ms, tr->ms / fr->ms);
	} else if (r->nfixed > 0 && r->fixed_ms > 0.0) {
		const pile_run *fr = &r->fixed[r->nfixed - 1];
		char kb[32];
		fmt_k(kb, sizeof kb, r->k_bound);
		fprintf(f,
			"%sfixed interval, the same guarantee (no body lost, every overlap within its tolerance): NONE up "
			"to k = %d (the largest tried; %s). The bound k >= v_max dt / tol_min = %.3g x %.4g / %.2e "
			"needs k = %s: EXTRAPOLATED %.4g ms/frame (%.3g ms a substep, measured at k = %d, times k); "
			"time TOI / fixed at that k = %.3g (EXTRAPOLATED; TOI measured in the same run). Measured at "
			"k = %d, which does not give the guarantee: time TOI / fixed = %.3g\n",
			b, fr->k,
			r->budget_hit ? "the next k would pass the time budget" : "the largest k allowed",
			r->v_max, STEP_DT, r->tol_min, kb, r->fixed_ms, r->ms_per_substep, fr->k, tr->ms / r->fixed_ms,
			fr->k, tr->ms / fr->ms);
	} else {
		fprintf(f, "%sfixed interval: no run completed\n", b);
	}
	if (r->nt.total > 0) {
		fprintf(f, "\nERRORS (%ld; the first %d):\n", r->nt.total, r->nt.kept);
		for (int k = 0; k < r->nt.kept; ++k)
			fprintf(f, "%serror: %s\n", b, r->nt.line[k]);
	}
	fprintf(f, "\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: toi [--smoke] [--n N]... [--frames F] [--reps R] [--only SCENE] [--broad sweep|hash|both]\n"
		"           [--k-cap K] [--pair-calls C] [--pile-n N] [--pile-frames F] [--pile-budget S]\n"
		"           [--out FILE] [--strict]\n"
		"  --smoke        N = %d, %d frames, 1 repetition, K cap %d: every code path, quickly;\n"
		"                 piles of %d bodies, %d frames, k up to %d, budget %g s\n"
		"  --n N          N moving bodies (repeatable; default 1000 and 10000)\n"
		"  --frames F     frames a scene (default %d)\n"
		"  --reps R       repetitions of each timed run (default %d)\n"
		"  --only SCENE   only the scenes whose name contains SCENE: 2d-gas, 2d-falling, 2d-bullets,\n"
		"                 2d-pile, 3d-gas, 3d-falling, 3d-bullets, 3d-pile (\"2d\", \"gas\" select several;\n"
		"                 \"pile\" the two pile scenes only)\n"
		"  --broad B      the worlds' broad phase: sweep, hash, or both (default)\n"
		"  --k-cap K      the largest substep count tried (power of two, default %d)\n"
		"  --pair-calls C the steps' max_pair_calls (default: imp_default_step_opts()'s)\n"
		"  --pile-n N     bodies in each pile scene (default %d in 2D, %d in 3D)\n"
		"  --pile-frames F frames of the pile scenes (default %d)\n"
		"  --pile-budget S seconds for each pile scene's fixed-interval search (default %g)\n"
		"  --out FILE     also write the report as Markdown to FILE\n"
		"  --strict       exit 1 when a check fails (a missed contact, a bad event, contacts out of time\n"
		"                 order in a pile, ...); bodies lost from a pile and overlaps beyond the tolerance\n"
		"                 are measurements, reported, not failed\n",
		SMOKE_COUNT, SMOKE_FRAMES, SMOKE_K_CAP, PILE_SMOKE_N, PILE_SMOKE_FRAMES, PILE_SMOKE_K_MAX,
		PILE_SMOKE_BUDGET_S, DEFAULT_FRAMES, DEFAULT_REPS, DEFAULT_K_CAP, SP_N2, SP_N3, SP_FRAMES,
		PILE_BUDGET_S);
}

int main(int argc, char **argv)
{
	options o;
	memset(&o, 0, sizeof o);
	o.reps = 0;
	const char *out_path = NULL;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int n;
		if (!strcmp(a, "--smoke")) {
			o.smoke = true;
		} else if (!strcmp(a, "--strict")) {
			o.strict = true;
		} else if (!strcmp(a, "--n") && v && bench_parse_int(v, 2, 1000000, &n) && o.count_n < 8) {
			o.counts[o.count_n++] = n;
			++i;
		} else if (!strcmp(a, "--frames") && v && bench_parse_int(v, 1, 10000, &o.frames)) {
			++i;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &o.reps)) {
			++i;
		} else if (!strcmp(a, "--k-cap") && v && bench_parse_int(v, 1, 1 << 20, &n) && (n & (n - 1)) == 0) {
			o.k_cap = n;
			++i;
		} else if (!strcmp(a, "--pair-calls") && v && bench_parse_int(v, 1, 1 << 30, &g_pair_calls)) {
			++i;
		} else if (!strcmp(a, "--pile-n") && v && bench_parse_int(v, 1, 100000, &o.pile_n)) {
			++i;
		} else if (!strcmp(a, "--pile-frames") && v && bench_parse_int(v, 1, 100000, &o.pile_frames)) {
			++i;
		} else if (!strcmp(a, "--pile-budget") && v && (o.pile_budget = strtod(v, NULL)) > 0.0 &&
			   o.pile_budget < 1e6) {
			++i;
		} else if (!strcmp(a, "--only") && v) {
			o.only = v;
			++i;
		} else if (!strcmp(a, "--broad") && v &&
			   (!strcmp(v, "sweep") || !strcmp(v, "hash") || !strcmp(v, "both"))) {
			if (!strcmp(v, "both")) {
				o.broad[0] = IMP_BROAD_SWEEP;
				o.broad[1] = IMP_BROAD_HASH;
				o.broad_count = 2;
			} else {
				o.broad[0] = !strcmp(v, "hash") ? IMP_BROAD_HASH : IMP_BROAD_SWEEP;
				o.broad_count = 1;
			}
			++i;
		} else if (!strcmp(a, "--out") && v) {
			out_path = v;
			++i;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "toi: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (o.smoke) {
		if (o.count_n == 0)
			o.counts[o.count_n++] = SMOKE_COUNT;
		if (o.frames == 0)
			o.frames = SMOKE_FRAMES;
		if (o.reps == 0)
			o.reps = 1;
		if (o.k_cap == 0)
			o.k_cap = SMOKE_K_CAP;
		if (o.pile_n == 0)
			o.pile_n = PILE_SMOKE_N;
		if (o.pile_frames == 0)
			o.pile_frames = PILE_SMOKE_FRAMES;
		if (o.pile_budget == 0.0)
			o.pile_budget = PILE_SMOKE_BUDGET_S;
	}
	if (o.pile_frames == 0)
		o.pile_frames = SP_FRAMES;
	if (o.pile_budget == 0.0)
		o.pile_budget = PILE_BUDGET_S;
	if (o.count_n == 0)
		for (size_t k = 0; k < sizeof k_default_counts / sizeof k_default_counts[0]; ++k)
			o.counts[o.count_n++] = k_default_counts[k];
	if (o.frames == 0)
		o.frames = DEFAULT_FRAMES;
	if (o.reps == 0)
		o.reps = DEFAULT_REPS;
	if (o.k_cap == 0)
		o.k_cap = DEFAULT_K_CAP;
	if (o.broad_count == 0) {
		o.broad[0] = IMP_BROAD_SWEEP;
		o.broad[1] = IMP_BROAD_HASH;
		o.broad_count = 2;
	}
#ifndef HAVE_BOX2D
	fprintf(stderr, "toi: peer Box2D skipped (not found at build time)\n");
#endif

	run_info ri;
	bench_describe_run(ri.machine, sizeof ri.machine, false, ri.date, sizeof ri.date);
	bench_cpu_model(ri.cpu, sizeof ri.cpu);
	ri.cpus = bench_cpu_count();
	load_average(ri.load, sizeof ri.load);
	FILE *out = NULL;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "toi: cannot write %s\n", out_path);
			return 1;
		}
	}
	print_header(stdout, &ri, &o, false);
	if (out)
		print_header(out, &ri, &o, true);
	fflush(stdout);

	static scene_result res;
	summary_row rows[8 * 2 * SK_COUNT * MAX_BROAD];
	pw_summary_row pw_rows[8 * SK_COUNT];
	int nrows = 0, npw = 0, failures = 0;
	long errors = 0;
	for (int c = 0; c < o.count_n; ++c)
		for (int dim = 2; dim <= 3; ++dim)
			for (int k = 0; k < SK_COUNT; ++k) {
				char slug[32];
				snprintf(slug, sizeof slug, "%dd-%s", dim, k_kind_names[k]);
				if (o.only && !strstr(slug, o.only))
					continue;
				memset(&res, 0, sizeof res);
				res.dim = dim;
				res.kind = (scene_kind)k;
				res.n = o.counts[c];
				res.frames = o.frames;
				res.reps = o.reps;
				res.k_cap = o.k_cap;
				res.broad_count = o.broad_count;
				memcpy(res.broad, o.broad, sizeof res.broad);
				fprintf(stderr, "toi: %s N=%d\n", slug, res.n);
				if (run_scene(&res) != 0)
					++failures;
				errors += res.nt.total;
				print_scene(stdout, &res, false);
				fflush(stdout);
				if (out) {
					print_scene(out, &res, true);
					fflush(out);
				}
				if (res.pw.ran && res.pw.box2d) {
					pw_summary_row *pr = &pw_rows[npw++];
					snprintf(pr->scene, sizeof pr->scene, "%s N=%d", slug, res.n);
					for (int k = 0; k < PW_SUBSETS; ++k)
						pr->ratio[k] = res.pw.imp_ns[k] / res.pw.b2_ns[k];
					pr->imp_max = res.pw.imp[PW_APART].max_err_c;
					pr->b2_max = res.pw.b2[PW_APART].max_err_c;
					pr->imp_med = res.pw.imp[PW_APART].med_err_c;
					pr->b2_med = res.pw.b2[PW_APART].med_err_c;
					pr->imp_missed =
						res.pw.imp[PW_ALL].contacts - res.pw.imp[PW_ALL].contacts_found;
					pr->b2_missed = res.pw.b2[PW_ALL].contacts - res.pw.b2[PW_ALL].contacts_found;
				}
				for (int b = 0; b < res.broad_count; ++b) {
					const toi_result *tr = &res.toi[b];
					const fixed_result *fr = &res.fixed[b];
					if (!tr->ran || tr->failed || !fr->ran || fr->failed)
						continue;
					summary_row *sr = &rows[nrows++];
					snprintf(sr->scene, sizeof sr->scene, "%s N=%d", slug, res.n);
					snprintf(sr->broad, sizeof sr->broad, "%s", k_broad_names[res.broad[b]]);
					double fcalls = (double)fr->narrow_calls / fr->frames;
					sr->calls_ratio = (double)tr->narrow_calls / res.frames / fcalls;
					sr->time_ratio = tr->ms / fr->ms;
					sr->complete = fr->k_needed <= fr->k;
				}
			}
	// The pile scenes: once each (not per --n), after the ballistic ones.
	static pile_result piles[2];
	int npiles = 0;
	for (int dim = 2; dim <= 3; ++dim) {
		char slug[32];
		snprintf(slug, sizeof slug, "%dd-pile", dim);
		if (o.only && !strstr(slug, o.only))
			continue;
		pile_result *pr = &piles[npiles++];
		memset(pr, 0, sizeof *pr);
		pr->dim = dim;
		pr->n = o.pile_n > 0 ? o.pile_n : dim == 2 ? SP_N2 : SP_N3;
		pr->frames = o.pile_frames;
		pr->reps = o.reps;
		pr->broad = o.broad[0];
		pr->budget_s = o.pile_budget;
		pr->k_max = o.smoke ? PILE_SMOKE_K_MAX : PILE_K_MAX;
		fprintf(stderr, "toi: %s N=%d\n", slug, pr->n);
		if (run_pile(pr) != 0)
			++failures;
		errors += pr->nt.total;
		print_pile(stdout, pr, false);
		fflush(stdout);
		if (out) {
			print_pile(out, pr, true);
			fflush(out);
		}
	}
	// The summary against the targets: TOI <= 0.2 x the calls and <= 0.5 x
	// the time of fixed-interval checking that misses nothing.
	table t;
	memset(&t, 0, sizeof t);
	for (int pass = 0; pass < (out ? 2 : 1); ++pass) {
		FILE *f = pass == 0 ? stdout : out;
		bool md = pass == 1;
		fprintf(f, md ? "\n## Summary\n\n"
			      : "== summary (targets: calls TOI/fixed <= 0.2, time TOI/fixed <= 0.5)\n");
		if (md)
			fprintf(f, "Targets: calls TOI/fixed <= 0.2, time TOI/fixed <= 0.5.\n\n");
		for (int start = 0; start < nrows; start += TABLE_ROWS - 1) {
			memset(&t, 0, sizeof t);
			const char *h[] = {"scene", "broad", "calls TOI/fixed", "time TOI/fixed", "targets met"};
			for (int c = 0; c < 5; ++c)
				table_set(&t, 0, c, "%s", h[c]);
			for (int k = start; k < nrows && k < start + TABLE_ROWS - 1; ++k) {
				int row = k - start + 1;
				table_set(&t, row, 0, "%s", rows[k].scene);
				table_set(&t, row, 1, "%s", rows[k].broad);
				table_set(&t, row, 2, "%.3f", rows[k].calls_ratio);
				table_set(&t, row, 3, "%.3f", rows[k].time_ratio);
				bool met = rows[k].calls_ratio <= 0.2 && rows[k].time_ratio <= 0.5;
				table_set(&t, row, 4, "%s%s", met ? "yes" : "no",
					  rows[k].complete ? "" : " (K capped)");
			}
			table_print(f, &t, md);
		}
		if (npw > 0) {
			fprintf(f, "\n%s (target: impact <= 0.5 x Box2D's time, at least as accurate: max and median "
				   "err contact over the pairs apart at start, missed contacts over all)%s\n",
				md ? "Pairwise" : "pairwise", md ? ":\n" : "");
			memset(&t, 0, sizeof t);
			const char *h[] = {"scene", "time impact/Box2D all", "apart at start", "max err impact",
					   "max err Box2D", "median impact", "median Box2D", "missed impact",
					   "missed Box2D", "targets met"};
			for (int c = 0; c < 10; ++c)
				table_set(&t, 0, c, "%s", h[c]);
			for (int k = 0; k < npw && k < TABLE_ROWS - 1; ++k) {
				const pw_summary_row *pr = &pw_rows[k];
				table_set(&t, k + 1, 0, "%s", pr->scene);
				table_set(&t, k + 1, 1, "%.3f", pr->ratio[PW_ALL]);
				table_set(&t, k + 1, 2, "%.3f", pr->ratio[PW_APART]);
				table_set(&t, k + 1, 3, "%.2e", pr->imp_max);
				table_set(&t, k + 1, 4, "%.2e", pr->b2_max);
				table_set(&t, k + 1, 5, "%.2e", pr->imp_med);
				table_set(&t, k + 1, 6, "%.2e", pr->b2_med);
				table_set(&t, k + 1, 7, "%d", pr->imp_missed);
				table_set(&t, k + 1, 8, "%d", pr->b2_missed);
				bool fast = pr->ratio[PW_ALL] <= 0.5 && pr->ratio[PW_APART] <= 0.5;
				bool accurate = pr->imp_max <= pr->b2_max && pr->imp_med <= pr->b2_med &&
						pr->imp_missed <= pr->b2_missed;
				table_set(&t, k + 1, 9, "%s",
					  fast && accurate     ? "yes"
					  : !fast && !accurate ? "no (time, accuracy)"
					  : !fast              ? "no (time)"
							       : "no (accuracy)");
			}
			table_print(f, &t, md);
		}
		if (npiles > 0) {
			fprintf(f, "\n%s (the same guarantee: no body lost, every overlap within its pair's tolerance at "
				   "every frame end)%s\n",
				md ? "Piles" : "piles", md ? ":\n" : "");
			memset(&t, 0, sizeof t);
			const char *h[] = {"scene", "TOI ms/frame", "TOI calls/frame", "TOI contacts/frame",
					   "most pair calls", "capped steps", "TOI holds", "TOI escaped (end)",
					   "TOI worst depth/tol", "fixed k", "fixed ms/frame", "time TOI/fixed"};
			for (int c = 0; c < 12; ++c)
				table_set(&t, 0, c, "%s", h[c]);
			for (int k = 0; k < npiles; ++k) {
				const pile_result *pr = &piles[k];
				const pile_run *tr = &pr->toi;
				char ms[32], kb[32];
				table_set(&t, k + 1, 0, "%dd-pile N=%d", pr->dim, pr->n);
				if (!tr->ran || tr->frames == 0) {
					table_set(&t, k + 1, 1, "failed");
					continue;
				}
				fmt_ms(ms, sizeof ms, tr->ms);
				table_set(&t, k + 1, 1, "%s", ms);
				table_set(&t, k + 1, 2, "%.0f", (double)tr->narrow_calls / tr->frames);
				table_set(&t, k + 1, 3, "%.0f", (double)tr->contacts / tr->frames);
				table_set(&t, k + 1, 4, "%d", tr->most_pair_calls);
				table_set(&t, k + 1, 5, "%d", tr->capped_steps);
				table_set(&t, k + 1, 6, "%s", pile_run_holds(tr) ? "yes" : "no");
				table_set(&t, k + 1, 7, "%d", tr->escaped);
				table_set(&t, k + 1, 8, "%.3g", tr->worst_ratio);
				if (pr->fixed_ms <= 0.0) {
					table_set(&t, k + 1, 9, "-");
					continue;
				}
				fmt_k(kb, sizeof kb, pr->k_same > 0 ? pr->k_same : pr->k_bound);
				fmt_ms(ms, sizeof ms, pr->fixed_ms);
				bool ex = pr->k_same == 0;
				table_set(&t, k + 1, 9, "%s%s", kb, ex ? " (bound)" : "");
				table_set(&t, k + 1, 10, "%s%s", ms, ex ? " (extrapolated)" : "");
				table_set(&t, k + 1, 11, "%.3g%s", tr->ms / pr->fixed_ms, ex ? " (extrapolated)" : "");
			}
			table_print(f, &t, md);
		}
		fprintf(f, "\n%ld error line%s in all\n", errors, errors == 1 ? "" : "s");
	}
	if (out)
		fclose(out);
	if (failures)
		return 1;
	if (o.strict && errors > 0) {
		fprintf(stderr, "toi: --strict: %ld checks failed\n", errors);
		return 1;
	}
	return 0;
}
