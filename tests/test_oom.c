// SPDX-License-Identifier: MIT
// The out-of-memory sweep: a scripted scenario over every public world
// operation (create with options, adds of several shapes, removes, poses,
// velocities, targets, filters, updates that make and end pairs, a step
// with a contact callback, every planner query), in 2D and 3D, with the
// hash and the sweep broad phases. It runs once without failures to count
// the allocation calls and record what every call answered; then, for each
// k, from the start with the k-th allocation call failing (and again with
// only the k-th realloc call failing). The call that meets the failure must
// return IMP_ERR_OUT_OF_MEMORY (or IMP_OK, if it could do without) and
// leave imp_world_state_hash as it was; it is then called again with
// memory back, and the rest of the scenario must answer what the run
// without failures answered (the pairs, events, contacts and query
// results); after destroy no block is left.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counting_alloc.h"
#include <impact/impact.h>

enum { NBODY = 12 };

/// The shapes of one dimension, made once (with malloc: they are the
/// user's, not the world's).
typedef struct shapes {
	imp_shape *s[6];
	imp_shape *probe; ///< the queries' shape
} shapes;

typedef struct run {
	int dim;
	imp_broad_kind kind;
	const shapes *sh;
	counting c;
	imp_world *w;
	imp_body_id id[NBODY + 2];
	uint64_t trace;    ///< every answer so far, mixed
	uint64_t op_trace; ///< the current call's callbacks (reset when it is called again)
	long ops;          ///< calls made
	long failed;       ///< calls that answered IMP_ERR_OUT_OF_MEMORY
	long hit_op;       ///< the call during which the failing allocation came (-1: none)
	bool stop;         ///< the contact callback stops body 4
} run;

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdu;
	return h ^ (h >> 33);
}

/// A distance or time, rounded to 1e-9: a pair's simplex cache (warm or
/// cold after a failure) may change the last bits, not the answer.
static uint64_t mix_d(uint64_t h, double x)
{
	if (!isfinite(x))
		return mix(h, x > 0 ? 1u : x < 0 ? 2u : 3u);
	return mix(h, (uint64_t)llround(x * 1e9));
}

static uint64_t mix_id(uint64_t h, imp_body_id id)
{
	return mix(h, (uint64_t)id.index << 32 | id.generation);
}

/// One call of the scenario, with the failure rules: on
/// IMP_ERR_OUT_OF_MEMORY the state hash must be as before the call, which
/// is then made again (allocation back: only one call fails); anything but
/// IMP_OK after that fails the test. `call` may be evaluated twice.
#define CALL(r, call)                                                                                          \
	do {                                                                                                   \
		uint64_t h_ = imp_world_state_hash((r)->w);                                                   \
		long calls_ = (r)->c.calls;                                                                    \
		(r)->op_trace = 0;                                                                             \
		imp_status st_ = (call);                                                                       \
		if ((r)->c.fail_at >= calls_ && (r)->c.fail_at < (r)->c.calls)                                 \
			(r)->hit_op = (r)->ops;                                                                \
		if (st_ == IMP_ERR_OUT_OF_MEMORY) {                                                            \
			assert_true((r)->hit_op == (r)->ops);                                                  \
			if (imp_world_state_hash((r)->w) != h_)                                                \
				fail_msg("%dD kind %d: call %ld (line %d) failed and changed the state hash", \
					 (r)->dim, (int)(r)->kind, (r)->ops, __LINE__);                        \
			(r)->failed++;                                                                         \
			(r)->op_trace = 0;                                                                     \
			st_ = (call);                                                                          \
		}                                                                                              \
		if (st_ != IMP_OK)                                                                             \
			fail_msg("%dD kind %d: call %ld (line %d) answered %d", (r)->dim, (int)(r)->kind,      \
				 (r)->ops, __LINE__, (int)st_);                                                \
		(r)->trace = mix((r)->trace, (r)->op_trace);                                                   \
		(r)->ops++;                                                                                    \
	} while (0)

/* ---- the callbacks: each mixes what it is told into op_trace ---- */

static bool on_body(imp_body_id id, void *user)
{
	run *r = user;
	r->op_trace = mix_id(r->op_trace, id);
	return true;
}

static bool on_pair(imp_body_id a, imp_body_id b, void *user)
{
	run *r = user;
	r->op_trace = mix_id(mix_id(r->op_trace, a), b);
	return true;
}

static double on_distance(const imp_query_result *hit, void *user)
{
	run *r = user;
	r->op_trace = mix_d(mix_id(r->op_trace, hit->body), hit->distance);
	return 100.0;
}

static bool on_clearance(imp_body_id a, const imp_query_result *p, void *user)
{
	run *r = user;
	r->op_trace = mix_d(mix_id(mix_id(r->op_trace, a), p->body), p->distance);
	return true;
}

static bool on_ray(const imp_ray_hit *hit, void *user)
{
	run *r = user;
	r->op_trace = mix_d(mix_id(r->op_trace, hit->body), hit->t);
	return true;
}

/// Contacts come in time order; the pairs are summed (an order-free
/// multiset), since a step made again after a failure starts with no kept
/// bounds and may meet equal times in another order of sweeps.
static void on_contact(const imp_contact_event *e, void *user)
{
	run *r = user;
	r->op_trace += mix(mix_id(mix_id(0, e->a), e->b), 0x5eed);
	// Body 4 stops at its first contact (a change of motion that a failed
	// step must put back).
	if (r->stop && (imp_body_id_equal(e->a, r->id[4]) || imp_body_id_equal(e->b, r->id[4]))) {
		imp_status st = r->dim == 2 ? imp_body_set_velocity2(r->w, r->id[4], imp_vec2_make(0, 0), 0.0)
					    : imp_body_set_velocity3(r->w, r->id[4], imp_vec3_make(0, 0, 0),
								     imp_vec3_make(0, 0, 0));
		assert_int_equal(st, IMP_OK);
	}
}

/* ---- the world's calls, by dimension ---- */

static imp_pose2 p2(double x, double y, double a)
{
	return imp_pose2_make(x, y, a);
}

static imp_pose3 p3(double x, double y, double z, double a)
{
	return imp_pose3_make(imp_vec3_make(x, y, z), imp_quat_from_axis_angle(imp_vec3_make(0.3, 0.5, 0.81), a));
}

static imp_status add(run *r, int i, imp_body_type type, double x, double y, double a, imp_filter f)
{
	imp_body_def d = imp_default_body_def();
	d.type = type;
	d.shape = r->sh->s[i % 6];
	d.pose2 = p2(x, y, a);
	d.pose3 = p3(x, y, 0.25 * (i % 3), a);
	d.filter = f;
	return imp_world_add_body(r->w, &d, &r->id[i]);
}

static imp_status set_pose(run *r, int i, double x, double y, double a)
{
	return r->dim == 2 ? imp_body_set_pose2(r->w, r->id[i], p2(x, y, a))
			   : imp_body_set_pose3(r->w, r->id[i], p3(x, y, 0.1, a));
}

static imp_status set_velocity(run *r, int i, double vx, double vy, double av)
{
	return r->dim == 2 ? imp_body_set_velocity2(r->w, r->id[i], imp_vec2_make(vx, vy), av)
			   : imp_body_set_velocity3(r->w, r->id[i], imp_vec3_make(vx, vy, 0.1 * vx),
						    imp_vec3_make(0.0, 0.0, av));
}

static imp_status set_target(run *r, int i, double x, double y, double a)
{
	return r->dim == 2 ? imp_body_set_target_pose2(r->w, r->id[i], p2(x, y, a))
			   : imp_body_set_target_pose3(r->w, r->id[i], p3(x, y, 0.0, a));
}

/// An update, then its pairs and events into the trace.
static imp_status update(run *r)
{
	imp_status st = imp_world_update(r->w);
	if (st != IMP_OK)
		return st;
	assert_int_equal(imp_world_for_each_pair(r->w, on_pair, r), IMP_OK);
	imp_pair_events ev = imp_world_get_events(r->w);
	r->op_trace = mix(r->op_trace, (uint64_t)ev.begin_count << 32 | (uint32_t)ev.end_count);
	for (int i = 0; i < ev.begin_count; i++)
		r->op_trace = mix_id(mix_id(r->op_trace, ev.begin[i].a), ev.begin[i].b);
	for (int i = 0; i < ev.end_count; i++)
		r->op_trace = mix_id(mix_id(r->op_trace, ev.end[i].a), ev.end[i].b);
	return IMP_OK;
}

static imp_status step(run *r, double dt)
{
	imp_step_opts o = imp_default_step_opts();
	o.on_contact = on_contact;
	o.user = r;
	imp_status st = imp_world_step(r->w, dt, &o);
	if (st == IMP_OK)
		r->op_trace = mix(r->op_trace, (uint64_t)imp_world_get_contacts(r->w).count);
	return st;
}

/// Every planner query, from a probe at (x, y); their answers into the
/// trace. Each query is one call of the scenario.
static void queries(run *r, double x, double y)
{
	imp_query_filter f = imp_default_query_filter();
	const imp_shape *q = r->sh->probe;
	imp_query_result res;
	imp_cast_hit cast;
	imp_ray_hit ray;
	bool any;
	if (r->dim == 2) {
		imp_pose2 at = p2(x, y, 0.2), to = p2(x + 6.0, y + 1.0, 0.5);
		CALL(r, imp_world_overlap_shape2(r->w, q, at, &f, on_body, r));
		CALL(r, imp_world_overlap_any2(r->w, q, at, &f, &any));
		r->trace = mix(r->trace, any);
		CALL(r, imp_world_nearest2(r->w, q, at, 50.0, &f, &res));
		r->trace = mix_d(mix_id(r->trace, res.body), res.distance);
		CALL(r, imp_world_query_distance2(r->w, q, at, 3.0, &f, on_distance, r));
		CALL(r, imp_world_cast_shape2(r->w, q, at, to, &f, &cast));
		r->trace = mix_d(mix_id(r->trace, cast.body), cast.t);
		CALL(r, imp_world_ray_cast2(r->w, imp_vec2_make(x - 1.0, y + 0.3), imp_vec2_make(x + 9.0, y + 0.5), &f,
					    &ray));
		r->trace = mix_d(mix_id(r->trace, ray.body), ray.t);
		CALL(r, imp_world_ray_cast_all2(r->w, imp_vec2_make(x - 1.0, y + 0.3), imp_vec2_make(x + 9.0, y + 0.5),
						&f, on_ray, r));
	} else {
		imp_pose3 at = p3(x, y, 0.2, 0.2), to = p3(x + 6.0, y + 1.0, 0.0, 0.5);
		CALL(r, imp_world_overlap_shape3(r->w, q, at, &f, on_body, r));
		CALL(r, imp_world_overlap_any3(r->w, q, at, &f, &any));
		r->trace = mix(r->trace, any);
		CALL(r, imp_world_nearest3(r->w, q, at, 50.0, &f, &res));
		r->trace = mix_d(mix_id(r->trace, res.body), res.distance);
		CALL(r, imp_world_query_distance3(r->w, q, at, 3.0, &f, on_distance, r));
		CALL(r, imp_world_cast_shape3(r->w, q, at, to, &f, &cast));
		r->trace = mix_d(mix_id(r->trace, cast.body), cast.t);
		CALL(r, imp_world_ray_cast3(r->w, imp_vec3_make(x - 1.0, y + 0.3, 0.1),
					    imp_vec3_make(x + 9.0, y + 0.5, 0.2), &f, &ray));
		r->trace = mix_d(mix_id(r->trace, ray.body), ray.t);
		CALL(r, imp_world_ray_cast_all3(r->w, imp_vec3_make(x - 1.0, y + 0.3, 0.1),
						imp_vec3_make(x + 9.0, y + 0.5, 0.2), &f, on_ray, r));
	}
	CALL(r, imp_world_distance(r->w, r->id[0], r->id[1], &res));
	r->trace = mix_d(r->trace, res.distance);
	CALL(r, imp_world_clearance(r->w, 0.5, on_clearance, r));
}

static imp_status create(run *r)
{
	imp_world_def d = imp_default_world_def();
	d.dim = r->dim;
	d.broad_phase = r->kind;
	d.allocator = counting_allocator(&r->c);
	d.fat_ratio = 0.05;
	d.margin = 0.01;
	// The hash world with initial room (the blocks made at creation), the
	// sweep world without.
	d.body_capacity = r->kind == IMP_BROAD_HASH ? 4 : 0;
	d.pair_capacity = r->kind == IMP_BROAD_HASH ? 300 : 0;
	imp_world *w = NULL;
	imp_status st = imp_world_create(&d, &w);
	if (st != IMP_OK) {
		assert_null(w);
		assert_int_equal(r->c.live, 0);
		return st;
	}
	r->w = w;
	return IMP_OK;
}

/// The scenario; the world is destroyed at its end and the trace holds
/// every answer.
static void scenario(run *r)
{
	imp_filter f = imp_default_filter();
	CALL(r, create(r));
	// The first query, on a world whose broad phase holds no body yet: it
	// makes the (empty) query tree.
	{
		bool any;
		imp_query_filter qf = imp_default_query_filter();
		if (r->dim == 2)
			CALL(r, imp_world_overlap_any2(r->w, r->sh->probe, p2(0, 0, 0), &qf, &any));
		else
			CALL(r, imp_world_overlap_any3(r->w, r->sh->probe, p3(0, 0, 0, 0), &qf, &any));
		r->trace = mix(r->trace, any);
	}
	// Twelve bodies on a 4 x 3 grid 1.6 apart: neighbours of size about 1
	// overlap, some do not. Bodies 0 and 6 static, 3 and 9 kinematic.
	for (int i = 0; i < NBODY; i++) {
		imp_body_type t = i % 6 == 0 ? IMP_BODY_STATIC : i % 6 == 3 ? IMP_BODY_KINEMATIC : IMP_BODY_DYNAMIC;
		CALL(r, add(r, i, t, 1.6 * (i % 4), 1.6 * (i / 4), 0.3 * i, f));
	}
	CALL(r, update(r));
	queries(r, 1.0, 1.0);
	// Separate some pairs, bring others together, re-filter, remove, add.
	CALL(r, set_pose(r, 1, 1.6, -4.0, 0.1));
	CALL(r, set_pose(r, 5, 1.9, 1.4, 0.7));
	CALL(r, set_pose(r, 11, 4.4, 2.6, -0.4));
	imp_filter lone = {2, 2, 0};
	CALL(r, imp_body_set_filter(r->w, r->id[2], lone));
	CALL(r, imp_world_remove_body(r->w, r->id[7]));
	CALL(r, add(r, NBODY, IMP_BODY_DYNAMIC, 3.0, 0.8, 0.2, f));
	CALL(r, update(r));
	CALL(r, imp_body_set_filter(r->w, r->id[2], f));
	CALL(r, set_pose(r, 1, 1.6, 0.1, 0.1));
	CALL(r, update(r));
	queries(r, 2.5, 0.5);
	// Motion: bodies pushed into their neighbours, a kinematic one to a
	// target; a step with a contact callback, then an update.
	CALL(r, set_velocity(r, 4, 1.5, 0.0, 0.5));
	CALL(r, set_velocity(r, 10, -1.0, -1.2, -0.3));
	CALL(r, set_target(r, 3, 4.0, 1.0, 0.6));
	r->stop = true;
	CALL(r, step(r, 0.5));
	r->stop = false;
	CALL(r, update(r));
	CALL(r, step(r, 0.25));
	CALL(r, set_velocity(r, 4, 0.0, 0.0, 0.0));
	CALL(r, update(r));
	queries(r, 0.5, 2.5);
	// Removes and an update that ends their pairs.
	CALL(r, imp_world_remove_body(r->w, r->id[5]));
	CALL(r, imp_world_remove_body(r->w, r->id[8]));
	CALL(r, add(r, NBODY + 1, IMP_BODY_STATIC, 1.6, 1.6, 0.0, f));
	CALL(r, update(r));
	// The poses, rounded: body 4 stops at a contact whose time may differ
	// in its last bits after a failed step (the pairs' simplex caches it
	// warmed stay warm; warm and cold answers differ by about 1e-12).
	for (int i = 0; i < NBODY + 2; i++) {
		if (!imp_body_is_valid(r->w, r->id[i]))
			continue;
		imp_pose2 a;
		imp_pose3 b;
		if (r->dim == 2) {
			assert_int_equal(imp_body_get_pose2(r->w, r->id[i], &a), IMP_OK);
			const double v[4] = {a.p.x, a.p.y, a.q.c, a.q.s};
			for (int k = 0; k < 4; k++)
				r->trace = mix_d(r->trace, v[k]);
		} else {
			assert_int_equal(imp_body_get_pose3(r->w, r->id[i], &b), IMP_OK);
			const double v[7] = {b.p.x, b.p.y, b.p.z, b.q.x, b.q.y, b.q.z, b.q.w};
			for (int k = 0; k < 7; k++)
				r->trace = mix_d(r->trace, v[k]);
		}
	}
	imp_world_destroy(r->w);
	r->w = NULL;
}

static void make_shapes(int dim, shapes *sh)
{
	if (dim == 2) {
		const imp_vec2 tri[] = {{-0.6, -0.5}, {0.7, -0.4}, {0.1, 0.8}};
		assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.8, &sh->s[0]), IMP_OK);
		assert_int_equal(imp_shape_box2(0.7, 0.5, 0.0, &sh->s[1]), IMP_OK);
		assert_int_equal(imp_shape_polygon(tri, 3, 0.1, &sh->s[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule2(imp_vec2_make(-0.5, 0), imp_vec2_make(0.5, 0), 0.35, &sh->s[3]),
				 IMP_OK);
		assert_int_equal(imp_shape_segment2(imp_vec2_make(-0.9, -0.2), imp_vec2_make(0.8, 0.3), &sh->s[4]),
				 IMP_OK);
		assert_int_equal(imp_shape_box2(0.5, 0.6, 0.2, &sh->s[5]), IMP_OK);
		assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.6, &sh->probe), IMP_OK);
	} else {
		const imp_vec3 tet[] = {{-0.6, -0.5, -0.4}, {0.7, -0.4, -0.3}, {0.1, 0.8, -0.2}, {0.0, 0.1, 0.7}};
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.8, &sh->s[0]), IMP_OK);
		assert_int_equal(imp_shape_box3(0.7, 0.5, 0.4, 0.0, &sh->s[1]), IMP_OK);
		assert_int_equal(imp_shape_polytope(tet, 4, 0.1, &sh->s[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule3(imp_vec3_make(-0.5, 0, 0), imp_vec3_make(0.5, 0, 0), 0.35,
						    &sh->s[3]),
				 IMP_OK);
		assert_int_equal(imp_shape_cylinder(0.5, 0.6, 0.05, &sh->s[4]), IMP_OK);
		assert_int_equal(imp_shape_ellipsoid(0.8, 0.5, 0.4, 0.0, &sh->s[5]), IMP_OK);
		assert_int_equal(imp_shape_cone(0.5, 0.6, 0.0, &sh->probe), IMP_OK);
	}
}

static void free_shapes(shapes *sh)
{
	for (int i = 0; i < 6; i++)
		imp_shape_destroy(sh->s[i]);
	imp_shape_destroy(sh->probe);
}

/// The sweep for one dimension and broad phase: every allocation call in
/// turn (only realloc calls when realloc_only), the whole scenario each time.
static void sweep(int dim, imp_broad_kind kind, bool realloc_only)
{
	shapes sh;
	make_shapes(dim, &sh);
	run clean = {.dim = dim, .kind = kind, .sh = &sh, .hit_op = -1};
	clean.c.fail_at = -1;
	clean.c.only_realloc = realloc_only;
	scenario(&clean);
	assert_int_equal(clean.c.live, 0);
	assert_false(clean.c.size_mismatch);
	assert_int_equal(clean.failed, 0);
	long total = clean.c.calls, failed = 0, did_without = 0;
	assert_true(total > 20);
	for (long k = 0; k < total; k++) {
		run r = {.dim = dim, .kind = kind, .sh = &sh, .hit_op = -1};
		r.c.fail_at = k;
		r.c.only_realloc = realloc_only;
		scenario(&r);
		// The failure came in some call, which failed or did without.
		assert_true(r.hit_op >= 0);
		failed += r.failed;
		did_without += r.failed == 0;
		if (r.trace != clean.trace)
			fail_msg("%dD kind %d%s: allocation %ld failing (in call %ld): the scenario answered otherwise "
				 "after it",
				 dim, (int)kind, realloc_only ? " (realloc only)" : "", k, r.hit_op);
		if (r.c.live != 0)
			fail_msg("%dD kind %d%s: allocation %ld failing (in call %ld): %ld blocks leaked", dim,
				 (int)kind, realloc_only ? " (realloc only)" : "", k, r.hit_op, r.c.live);
		assert_false(r.c.size_mismatch);
	}
	print_message("%dD kind %d%s: %ld calls, %ld allocation calls failed in turn: %ld calls answered "
		      "IMP_ERR_OUT_OF_MEMORY, %ld did without\n",
		      dim, (int)kind, realloc_only ? " (realloc only)" : "", clean.ops, total, failed, did_without);
	assert_true(failed > 0);
	free_shapes(&sh);
}

static void test_oom_sweep_2d_hash(void **state)
{
	(void)state;
	sweep(2, IMP_BROAD_HASH, false);
	sweep(2, IMP_BROAD_HASH, true);
}

static void test_oom_sweep_2d_sweep(void **state)
{
	(void)state;
	sweep(2, IMP_BROAD_SWEEP, false);
	sweep(2, IMP_BROAD_SWEEP, true);
}

static void test_oom_sweep_3d_hash(void **state)
{
	(void)state;
	sweep(3, IMP_BROAD_HASH, false);
	sweep(3, IMP_BROAD_HASH, true);
}

static void test_oom_sweep_3d_sweep(void **state)
{
	(void)state;
	sweep(3, IMP_BROAD_SWEEP, false);
	sweep(3, IMP_BROAD_SWEEP, true);
}

/* ---- the defects, one by one ---- */

/// A world of n bodies over the counting allocator: discs or spheres of
/// radius 0.5 to 0.9 at pseudo-random places in a square of side 6, so
/// that many overlap; every third one moving to the right at 2 (a step of
/// 0.5 makes contacts).
static imp_world *cluster(int dim, imp_broad_kind kind, counting *c, const imp_shape *const *s, int n,
			  imp_body_id *ids)
{
	imp_world_def d = imp_default_world_def();
	d.dim = dim;
	d.broad_phase = kind;
	d.allocator = counting_allocator(c);
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&d, &w), IMP_OK);
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < n; i++) {
		double v[3];
		for (int k = 0; k < 3; k++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			v[k] = 6.0 * (double)(x >> 11) / 9007199254740992.0;
		}
		imp_body_def b = imp_default_body_def();
		b.shape = s[i % 3];
		b.pose2 = p2(v[0], v[1], 0.0);
		b.pose3 = p3(v[0], v[1], v[2], 0.0);
		assert_int_equal(imp_world_add_body(w, &b, &ids[i]), IMP_OK);
	}
	for (int i = 0; i < n; i += 3) {
		if (dim == 2)
			assert_int_equal(imp_body_set_velocity2(w, ids[i], imp_vec2_make(2.0, 0.0), 0.3), IMP_OK);
		else
			assert_int_equal(imp_body_set_velocity3(w, ids[i], imp_vec3_make(2.0, 0.0, 0.0),
								imp_vec3_make(0.0, 0.3, 0.0)),
					 IMP_OK);
	}
	return w;
}

static bool count_pair(imp_body_id a, imp_body_id b, void *user)
{
	(void)a, (void)b;
	++*(int *)user;
	return true;
}

static int pair_count(const imp_world *w)
{
	int n = 0;
	assert_int_equal(imp_world_for_each_pair(w, count_pair, &n), IMP_OK);
	return n;
}

static uint64_t pairs_hash(const imp_world *w)
{
	run r = {0};
	assert_int_equal(imp_world_for_each_pair(w, on_pair, &r), IMP_OK);
	return r.op_trace;
}

static void make_balls(int dim, imp_shape **s)
{
	for (int i = 0; i < 3; i++) {
		double radius = 0.5 + 0.2 * i;
		if (dim == 2)
			assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), radius, &s[i]), IMP_OK);
		else
			assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), radius, &s[i]), IMP_OK);
	}
}

enum { CLUSTER = 60 };

static bool same_event(imp_pair_event x, imp_pair_event y)
{
	return x.a.index == y.a.index && x.a.generation == y.a.generation && x.b.index == y.b.index &&
	       x.b.generation == y.b.generation;
}

/// Defect 8: the first planner query on a world whose broad phase holds no
/// body (none added, or added and not yet updated) makes the empty query
/// tree; with each allocation failing in turn, it answers (the query falls
/// back on the broad phase's own structure) or refuses, the state hash
/// stays, the world goes on, and destroy leaves no block (one leaked
/// before: the tree's reserve failing part way kept its node array).
static void test_first_query_tree_oom(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_shape *s[3];
		make_balls(dim, s);
		for (int k = 0; k < 3; k++) {
			for (int bodies = 0; bodies <= 3; bodies += 3) {
				long fails = 0;
				for (long fail = 0;; fail++) {
					assert_true(fail < 100);
					counting c = {.fail_at = -1};
					imp_body_id ids[3];
					imp_world *w = cluster(dim, (imp_broad_kind)k, &c, (const imp_shape *const *)s,
							       bodies, ids);
					imp_query_filter qf = imp_default_query_filter();
					imp_pose2 at2 = p2(1, 1, 0);
					imp_pose3 at3 = p3(1, 1, 1, 0);
					if (bodies > 0 && dim == 2)
						assert_int_equal(imp_body_get_pose2(w, ids[0], &at2), IMP_OK);
					else if (bodies > 0)
						assert_int_equal(imp_body_get_pose3(w, ids[0], &at3), IMP_OK);
					uint64_t h = imp_world_state_hash(w);
					long live = c.live;
					bool any = false;
					c.fail_at = c.calls + fail;
					imp_status st = dim == 2 ? imp_world_overlap_any2(w, s[0], at2, &qf, &any)
								 : imp_world_overlap_any3(w, s[0], at3, &qf, &any);
					bool reached = c.calls > c.fail_at;
					c.fail_at = -1;
					assert_true(st == IMP_OK || st == IMP_ERR_OUT_OF_MEMORY);
					assert_true(imp_world_state_hash(w) == h);
					if (st == IMP_OK)
						assert_int_equal(any, bodies > 0);
					if (reached)
						fails++;
					assert_true(c.live >= live);
					// The world goes on: a query, an update, a query.
					assert_int_equal(dim == 2 ? imp_world_overlap_any2(w, s[0], at2, &qf, &any)
								  : imp_world_overlap_any3(w, s[0], at3, &qf, &any),
							 IMP_OK);
					assert_int_equal(any, bodies > 0);
					assert_int_equal(imp_world_update(w), IMP_OK);
					imp_world_destroy(w);
					assert_int_equal(c.live, 0);
					assert_false(c.size_mismatch);
					if (!reached)
						break;
				}
				assert_true(fails > 0);
			}
		}
		for (int i = 0; i < 3; i++)
			imp_shape_destroy(s[i]);
	}
}

/// Defect 9, the update: a first update (and a later one, after a third of
/// the bodies moved) with each allocation failing in turn answers
/// IMP_ERR_OUT_OF_MEMORY with the touching pairs, events and state hash
/// of before (a failed first update left 83 pairs of 0 and another hash);
/// the update after it gives the pairs and events of a world that never
/// failed.
static void test_failed_update_changes_nothing(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_shape *s[3];
		make_balls(dim, s);
		for (int k = 0; k < 3; k++) {
			for (int later = 0; later < 2; later++) {
				// The reference: no failure.
				counting c0 = {.fail_at = -1};
				imp_body_id ids[CLUSTER];
				imp_world *ref = cluster(dim, (imp_broad_kind)k, &c0, (const imp_shape *const *)s, CLUSTER, ids);
				if (later) {
					assert_int_equal(imp_world_update(ref), IMP_OK);
					for (int i = 0; i < CLUSTER; i += 3)
						assert_int_equal(dim == 2 ? imp_body_set_pose2(ref, ids[i], p2(i * 0.1, 3, 0))
									  : imp_body_set_pose3(ref, ids[i], p3(i * 0.1, 3, 3, 0)),
								 IMP_OK);
				}
				assert_int_equal(imp_world_update(ref), IMP_OK);
				uint64_t want_pairs = pairs_hash(ref), want_hash = imp_world_state_hash(ref);
				imp_pair_events want = imp_world_get_events(ref);
				assert_true(pair_count(ref) > 20);
				long fails = 0;
				for (long fail = 0;; fail++) {
					assert_true(fail < 1000);
					counting c = {.fail_at = -1};
					imp_world *w = cluster(dim, (imp_broad_kind)k, &c, (const imp_shape *const *)s, CLUSTER, ids);
					if (later) {
						assert_int_equal(imp_world_update(w), IMP_OK);
						for (int i = 0; i < CLUSTER; i += 3)
							assert_int_equal(dim == 2 ? imp_body_set_pose2(w, ids[i], p2(i * 0.1, 3, 0))
										  : imp_body_set_pose3(w, ids[i], p3(i * 0.1, 3, 3, 0)),
									 IMP_OK);
					}
					uint64_t h = imp_world_state_hash(w), before = pairs_hash(w);
					int n_before = pair_count(w);
					imp_pair_events ev0 = imp_world_get_events(w);
					int b0 = ev0.begin_count, e0 = ev0.end_count;
					c.fail_at = c.calls + fail;
					imp_status st = imp_world_update(w);
					bool reached = c.calls > c.fail_at;
					c.fail_at = -1;
					if (st != IMP_OK) {
						fails++;
						assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
						if (imp_world_state_hash(w) != h || pair_count(w) != n_before)
							fail_msg("%dD kind %d, %s update, allocation %ld failing: %d pairs before, "
								 "%d after, the state hash %s",
								 dim, k, later ? "a later" : "the first", fail, n_before,
								 pair_count(w), imp_world_state_hash(w) == h ? "kept" : "changed");
						assert_true(pairs_hash(w) == before);
						imp_pair_events ev = imp_world_get_events(w);
						assert_int_equal(ev.begin_count, b0);
						assert_int_equal(ev.end_count, e0);
						assert_int_equal(imp_world_update(w), IMP_OK);
					}
					assert_true(pairs_hash(w) == want_pairs);
					assert_true(imp_world_state_hash(w) == want_hash);
					imp_pair_events ev = imp_world_get_events(w);
					assert_int_equal(ev.begin_count, want.begin_count);
					assert_int_equal(ev.end_count, want.end_count);
					for (int i = 0; i < ev.begin_count; i++) // the same but for the world's serial
						assert_true(same_event(ev.begin[i], want.begin[i]));
					for (int i = 0; i < ev.end_count; i++)
						assert_true(same_event(ev.end[i], want.end[i]));
					imp_world_destroy(w);
					assert_int_equal(c.live, 0);
					if (!reached)
						break;
				}
				assert_true(fails > 0);
				imp_world_destroy(ref);
			}
		}
		for (int i = 0; i < 3; i++)
			imp_shape_destroy(s[i]);
	}
}

/// Defect 9, the step: a step with each allocation failing in turn
/// answers IMP_ERR_OUT_OF_MEMORY with the state hash and the clock of
/// before (the hash changed: the bodies the step had marked moved); the
/// step after it and an update give the world that never failed.
static void test_failed_step_changes_nothing(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		imp_shape *s[3];
		make_balls(dim, s);
		for (int k = 0; k < 3; k++) {
			counting c0 = {.fail_at = -1};
			imp_body_id ids[CLUSTER];
			imp_world *ref = cluster(dim, (imp_broad_kind)k, &c0, (const imp_shape *const *)s, CLUSTER, ids);
			assert_int_equal(imp_world_update(ref), IMP_OK);
			assert_int_equal(imp_world_step(ref, 0.5, NULL), IMP_OK);
			assert_true(imp_world_get_contacts(ref).count > 0);
			uint64_t want_step = imp_world_state_hash(ref);
			assert_int_equal(imp_world_update(ref), IMP_OK);
			uint64_t want_pairs = pairs_hash(ref), want_hash = imp_world_state_hash(ref);
			long fails = 0;
			for (long fail = 0;; fail++) {
				assert_true(fail < 1000);
				counting c = {.fail_at = -1};
				imp_world *w = cluster(dim, (imp_broad_kind)k, &c, (const imp_shape *const *)s, CLUSTER, ids);
				assert_int_equal(imp_world_update(w), IMP_OK);
				uint64_t h = imp_world_state_hash(w);
				c.fail_at = c.calls + fail;
				imp_status st = imp_world_step(w, 0.5, NULL);
				bool reached = c.calls > c.fail_at;
				c.fail_at = -1;
				if (st != IMP_OK) {
					fails++;
					assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
					if (imp_world_state_hash(w) != h)
						fail_msg("%dD kind %d, allocation %ld failing: the failed step changed the state hash",
							 dim, k, fail);
					assert_true(imp_world_time(w) == 0.0);
					assert_int_equal(imp_world_get_contacts(w).count, 0);
					assert_int_equal(imp_world_step(w, 0.5, NULL), IMP_OK);
				}
				assert_true(imp_world_state_hash(w) == want_step);
				assert_int_equal(imp_world_update(w), IMP_OK);
				assert_true(pairs_hash(w) == want_pairs);
				assert_true(imp_world_state_hash(w) == want_hash);
				imp_world_destroy(w);
				assert_int_equal(c.live, 0);
				if (!reached)
					break;
			}
			assert_true(fails > 0);
			imp_world_destroy(ref);
		}
		for (int i = 0; i < 3; i++)
			imp_shape_destroy(s[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_query_tree_oom),
		cmocka_unit_test(test_failed_update_changes_nothing),
		cmocka_unit_test(test_failed_step_changes_nothing),
		cmocka_unit_test(test_oom_sweep_2d_hash),
		cmocka_unit_test(test_oom_sweep_2d_sweep),
		cmocka_unit_test(test_oom_sweep_3d_hash),
		cmocka_unit_test(test_oom_sweep_3d_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
