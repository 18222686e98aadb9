// SPDX-License-Identifier: MIT
// Worker counts and schedulers give the same world: scenes of the world
// and step tests (3D and 2D bodies of every convex kind, a compound, a
// mesh and a chain; random motion, removals, re-filters and teleports; a
// margin; the hash and the sweep; time-of-impact steps with an impulse
// callback) run with 1 worker, with the world's pool of 2, 3 and 8, and
// with a test scheduler that runs the ranges in a shuffled order (inline,
// or later in finish_task); every update's events, touching pairs,
// statistics and state hash, and every step's contacts and statistics,
// must be bitwise those of the single worker. The scheduler also checks
// the ranges it is given (they cover the items once, each at least
// min_range but the last), and counts them, so that the tests know the
// work was really handed out. Batch queries spread over the workers equal
// the single queries.
#define _POSIX_C_SOURCE 200809L

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

#include "test_rng.h"

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; ++i) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* ---- the test scheduler ---- */

typedef struct shuffler {
	uint64_t seed;
	int worker_count;
	bool defer;        ///< run the ranges in finish_task rather than in enqueue
	int tasks, ranges; ///< handed out so far
	// The task waiting for finish_task (defer).
	imp_task_fn *task;
	int count, min_range;
	void *context;
} shuffler;

static void run_shuffled(shuffler *s, imp_task_fn *task, int count, int min_range, void *context)
{
	assert_true(count > 0);
	assert_true(min_range >= 1);
	int n = (count + min_range - 1) / min_range;
	int *order = malloc((size_t)n * sizeof *order);
	unsigned char *seen = calloc((size_t)count, 1);
	assert_non_null(order);
	assert_non_null(seen);
	for (int i = 0; i < n; i++)
		order[i] = i;
	rng r = {s->seed + (uint64_t)s->tasks * 7919u};
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(uniform(&r) * (i + 1));
		int t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < n; i++) {
		int start = order[i] * min_range;
		int end = start + min_range < count ? start + min_range : count;
		for (int k = start; k < end; k++)
			seen[k]++;
		task(start, end, (order[i] * 5 + 3) % s->worker_count, context);
	}
	for (int k = 0; k < count; k++)
		assert_int_equal(seen[k], 1);
	s->tasks++;
	s->ranges += n;
	free(order);
	free(seen);
}

static void *shuffle_enqueue(imp_task_fn *task, int item_count, int min_range, void *task_context, void *user_context)
{
	shuffler *s = user_context;
	if (!s->defer) {
		run_shuffled(s, task, item_count, min_range, task_context);
		return NULL;
	}
	assert_null(s->task); // one task at a time
	s->task = task;
	s->count = item_count;
	s->min_range = min_range;
	s->context = task_context;
	return s;
}

static void shuffle_finish(void *user_task, void *user_context)
{
	shuffler *s = user_context;
	assert_ptr_equal(user_task, s);
	assert_non_null(s->task);
	run_shuffled(s, s->task, s->count, s->min_range, s->context);
	s->task = NULL;
}

/* ---- the configurations ---- */

typedef struct config {
	int workers;
	bool scheduler, defer;
} config;

static const config CONFIGS[] = {
	{1, false, false}, {2, false, false}, {3, false, false}, {8, false, false},
	{3, true, false},  {8, true, true},   {2, true, true},
};
#define CONFIG_COUNT ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

static imp_world *make_world(imp_world_def d, const config *c, shuffler *s, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	s->seed = seed;
	s->worker_count = c->workers;
	s->defer = c->defer;
	d.worker_count = c->workers;
	if (c->scheduler) {
		d.enqueue_task = shuffle_enqueue;
		d.finish_task = shuffle_finish;
		d.user_task_context = s;
	}
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&d, &w), IMP_OK);
	return w;
}

/* ---- what a run leaves, hashed ---- */

/// An id without its world's serial number (each run has its own world).
static uint64_t mix_id(uint64_t h, imp_body_id id)
{
	h = mix(h, &id.index, sizeof id.index);
	return mix(h, &id.generation, sizeof id.generation);
}

static bool hash_pair(imp_body_id a, imp_body_id b, void *user)
{
	uint64_t *h = user;
	*h = mix_id(mix_id(*h, a), b);
	return true;
}

static uint64_t hash_update(uint64_t h, imp_world *w)
{
	imp_pair_events e = imp_world_get_events(w);
	h = mix(h, &e.begin_count, sizeof e.begin_count);
	for (int i = 0; i < e.begin_count; i++)
		h = mix_id(mix_id(h, e.begin[i].a), e.begin[i].b);
	h = mix(h, &e.end_count, sizeof e.end_count);
	for (int i = 0; i < e.end_count; i++)
		h = mix_id(mix_id(h, e.end[i].a), e.end[i].b);
	imp_world_stats st = imp_world_get_stats(w);
	h = mix(h, &st, sizeof st);
	uint64_t state = imp_world_state_hash(w);
	h = mix(h, &state, sizeof state);
	assert_int_equal(imp_world_for_each_pair(w, hash_pair, &h), IMP_OK);
	return h;
}

static uint64_t hash_step(uint64_t h, imp_world *w)
{
	imp_contact_events c = imp_world_get_contacts(w);
	h = mix(h, &c.count, sizeof c.count);
	for (int i = 0; i < c.count; i++) {
		const imp_contact_event *e = &c.items[i];
		h = mix_id(mix_id(h, e->a), e->b);
		h = mix(h, &e->t, sizeof e->t);
		h = mix(h, &e->distance, sizeof e->distance);
		h = mix(h, &e->point_a, sizeof e->point_a);
		h = mix(h, &e->point_b, sizeof e->point_b);
		h = mix(h, &e->normal, sizeof e->normal);
		h = mix(h, &e->normal_speed, sizeof e->normal_speed);
		h = mix(h, &e->capped, sizeof e->capped);
	}
	imp_step_stats st = imp_world_get_step_stats(w);
	h = mix(h, &st, sizeof st);
	uint64_t state = imp_world_state_hash(w);
	return mix(h, &state, sizeof state);
}

/* ---- shapes ---- */

#define SHAPES 8

typedef struct shapes {
	int dim;
	imp_shape *s[SHAPES];
} shapes;

static void make_shapes3(shapes *sh)
{
	sh->dim = 3;
	imp_vec3 pts[12];
	rng r = {99};
	for (int i = 0; i < 12; i++) {
		double x = range(&r, -0.6, 0.6);
		double y = range(&r, -0.6, 0.6);
		double z = range(&r, -0.6, 0.6);
		pts[i] = imp_vec3_make(x, y, z);
	}
	assert_int_equal(imp_shape_box3(0.5, 0.3, 0.4, 0.0, &sh->s[0]), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), 0.45, &sh->s[1]), IMP_OK);
	assert_int_equal(imp_shape_polytope(pts, 12, 0.02, &sh->s[2]), IMP_OK);
	assert_int_equal(imp_shape_capsule3(imp_vec3_make(-0.4, 0, 0), imp_vec3_make(0.4, 0, 0), 0.2, &sh->s[3]), IMP_OK);
	assert_int_equal(imp_shape_cylinder(0.4, 0.3, 0.0, &sh->s[4]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(0.5, 0.3, 0.2, 0.0, &sh->s[5]), IMP_OK);
	// A compound of two boxes, and a mesh: an octahedron.
	const imp_shape *kids[2] = {sh->s[0], sh->s[1]};
	imp_pose3 kp[2] = {{imp_vec3_make(-0.3, 0, 0), {0, 0, 0, 1}}, {imp_vec3_make(0.4, 0.1, 0), {0, 0, 0, 1}}};
	assert_int_equal(imp_shape_compound3(kids, kp, 2, &sh->s[6]), IMP_OK);
	imp_vec3 v[6] = {{0.7, 0, 0}, {-0.7, 0, 0}, {0, 0.7, 0}, {0, -0.7, 0}, {0, 0, 0.7}, {0, 0, -0.7}};
	int32_t t[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
	assert_int_equal(imp_shape_mesh(v, 6, t, 8, 0.0, &sh->s[7]), IMP_OK);
}

static void make_shapes2(shapes *sh)
{
	sh->dim = 2;
	imp_vec2 pts[7];
	for (int i = 0; i < 7; i++)
		pts[i] = (imp_vec2){0.5 * cos(i * 0.9), 0.45 * sin(i * 0.9)};
	assert_int_equal(imp_shape_box2(0.5, 0.3, 0.0, &sh->s[0]), IMP_OK);
	assert_int_equal(imp_shape_circle((imp_vec2){0, 0}, 0.4, &sh->s[1]), IMP_OK);
	assert_int_equal(imp_shape_polygon(pts, 7, 0.02, &sh->s[2]), IMP_OK);
	assert_int_equal(imp_shape_capsule2((imp_vec2){-0.4, 0}, (imp_vec2){0.4, 0}, 0.2, &sh->s[3]), IMP_OK);
	assert_int_equal(imp_shape_segment2((imp_vec2){-0.5, 0.1}, (imp_vec2){0.5, -0.1}, &sh->s[4]), IMP_OK);
	assert_int_equal(imp_shape_box2(0.2, 0.6, 0.05, &sh->s[5]), IMP_OK);
	const imp_shape *kids[2] = {sh->s[0], sh->s[1]};
	imp_pose2 kp[2] = {{{-0.3, 0}, {1, 0}}, {{0.4, 0.1}, {1, 0}}};
	assert_int_equal(imp_shape_compound2(kids, kp, 2, &sh->s[6]), IMP_OK);
	imp_vec2 c[5] = {{-0.7, 0}, {-0.3, 0.3}, {0, -0.2}, {0.4, 0.3}, {0.7, 0}};
	assert_int_equal(imp_shape_chain(c, 5, false, 0.0, &sh->s[7]), IMP_OK);
}

static void free_shapes(shapes *sh)
{
	// Compounds first: they hold their children.
	imp_shape_destroy(sh->s[6]);
	for (int i = 0; i < SHAPES; i++)
		if (i != 6)
			imp_shape_destroy(sh->s[i]);
}

static imp_quat random_quat(rng *r)
{
	double a = uniform(r), b = uniform(r), c = uniform(r);
	double s1 = sqrt(1.0 - a), s2 = sqrt(a);
	return (imp_quat){s1 * sin(6.283185307179586 * b), s1 * cos(6.283185307179586 * b),
			  s2 * sin(6.283185307179586 * c), s2 * cos(6.283185307179586 * c)};
}

static void random_pose(rng *r, int dim, double extent, imp_pose2 *p2, imp_pose3 *p3)
{
	double x = range(r, -extent, extent), y = range(r, -extent, extent);
	if (dim == 2) {
		double a = range(r, -3.14159, 3.14159);
		*p2 = (imp_pose2){{x, y}, {cos(a), sin(a)}};
		return;
	}
	double z = range(r, -extent, extent);
	p3->p = imp_vec3_make(x, y, z);
	p3->q = random_quat(r);
}

/* ---- the update scene ---- */

#define UPDATE_BODIES 500
#define FRAMES 14

typedef struct update_scene {
	int dim;
	imp_broad_kind kind;
	double margin;
	bool narrow;
	double jitter; ///< the share of bodies that move a little each frame
} update_scene;

/// One run of an update scene: a hash of every update's outcome.
static uint64_t run_updates(const update_scene *sc, const config *c, int *ranges)
{
	shapes sh;
	if (sc->dim == 3)
		make_shapes3(&sh);
	else
		make_shapes2(&sh);
	imp_world_def d = imp_default_world_def();
	d.dim = sc->dim;
	d.broad_phase = sc->kind;
	d.margin = sc->margin;
	d.narrow_phase = sc->narrow;
	shuffler s;
	imp_world *w = make_world(d, c, &s, 5);
	rng r = {1234};
	imp_body_id ids[UPDATE_BODIES];
	imp_pose2 p2[UPDATE_BODIES];
	imp_pose3 p3[UPDATE_BODIES];
	double extent = sc->dim == 3 ? 5.0 : 9.0;
	for (int i = 0; i < UPDATE_BODIES; i++) {
		imp_body_def bd = imp_default_body_def();
		bd.shape = sh.s[i % SHAPES];
		bd.type = i % 17 == 0 ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
		random_pose(&r, sc->dim, extent, &p2[i], &p3[i]);
		bd.pose2 = p2[i];
		bd.pose3 = p3[i];
		assert_int_equal(imp_world_add_body(w, &bd, &ids[i]), IMP_OK);
	}
	uint64_t h = 14695981039346656037ULL;
	for (int f = 0; f < FRAMES; f++) {
		assert_int_equal(imp_world_update(w), IMP_OK);
		h = hash_update(h, w);
		// Most bodies jitter (the pile); some jump (a teleport); a few
		// are removed and added back, or re-filtered.
		for (int i = 0; i < UPDATE_BODIES; i++) {
			double u = uniform(&r);
			if (u < 0.02) {
				assert_int_equal(imp_world_remove_body(w, ids[i]), IMP_OK);
				imp_body_def bd = imp_default_body_def();
				bd.shape = sh.s[(i + f) % SHAPES];
				bd.pose2 = p2[i];
				bd.pose3 = p3[i];
				assert_int_equal(imp_world_add_body(w, &bd, &ids[i]), IMP_OK);
			} else if (u < 0.04) {
				imp_filter fl = imp_default_filter();
				fl.category = 1u + (uint64_t)(f & 1);
				assert_int_equal(imp_body_set_filter(w, ids[i], fl), IMP_OK);
			} else if (u < 0.07) {
				random_pose(&r, sc->dim, extent, &p2[i], &p3[i]);
			} else if (u < 0.07 + sc->jitter) {
				double s = 0.15;
				if (sc->dim == 2) {
					p2[i].p.x += range(&r, -s, s);
					p2[i].p.y += range(&r, -s, s);
				} else {
					p3[i].p.x += range(&r, -s, s);
					p3[i].p.y += range(&r, -s, s);
					p3[i].p.z += range(&r, -s, s);
				}
			} else {
				continue;
			}
			if (u >= 0.04)
				assert_int_equal(sc->dim == 2 ? imp_body_set_pose2(w, ids[i], p2[i]) : imp_body_set_pose3(w, ids[i], p3[i]),
						 IMP_OK);
		}
	}
	*ranges = s.ranges;
	imp_world_destroy(w);
	free_shapes(&sh);
	return h;
}

static void test_update_same_for_every_worker_count(void **state)
{
	(void)state;
	static const update_scene scenes[] = {
		// Most bodies moving (pass 2 over every pair block), and a few
		// (over the moved bodies' lists).
		{3, IMP_BROAD_HASH, 0.0, true, 0.73},
		{3, IMP_BROAD_SWEEP, 0.05, true, 0.73},
		{2, IMP_BROAD_HASH, 0.0, true, 0.73},
		{2, IMP_BROAD_SWEEP, 0.05, true, 0.73},
		{3, IMP_BROAD_HASH, 0.0, false, 0.73},
		{3, IMP_BROAD_SWEEP, 0.0, true, 0.08},
		{2, IMP_BROAD_HASH, 0.05, true, 0.08},
	};
	for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
		int ranges = 0;
		uint64_t ref = run_updates(&scenes[k], &CONFIGS[0], &ranges);
		for (int c = 1; c < CONFIG_COUNT; c++) {
			uint64_t h = run_updates(&scenes[k], &CONFIGS[c], &ranges);
			if (h != ref)
				print_error("update scene %zu, %d workers%s: %016llx, one worker %016llx\n", k,
					    CONFIGS[c].workers, CONFIGS[c].scheduler ? " (shuffled)" : "",
					    (unsigned long long)h, (unsigned long long)ref);
			assert_true(h == ref);
			// The narrow phase was handed to the user's scheduler.
			if (CONFIGS[c].scheduler && scenes[k].narrow)
				assert_true(ranges > 0);
		}
	}
}

/* ---- the step scene ---- */

#define STEP_BODIES 160
#define STEPS 10

typedef struct step_run {
	imp_world *w;
	int dim;
} step_run;

/// The impulse loop: the two bodies' velocities along the normal swapped
/// when they approach (equal masses, elastic), as a simulator's would.
static void on_contact(const imp_contact_event *e, void *user)
{
	step_run *run = user;
	if (!(e->normal_speed < 0.0))
		return;
	if (run->dim == 3) {
		imp_vec3 va, wa, vb, wb;
		assert_int_equal(imp_body_get_velocity3(run->w, e->a, &va, &wa), IMP_OK);
		assert_int_equal(imp_body_get_velocity3(run->w, e->b, &vb, &wb), IMP_OK);
		double j = -e->normal_speed;
		imp_vec3 dv = imp_vec3_scale(j, e->normal);
		imp_body_set_velocity3(run->w, e->a, imp_vec3_sub(va, dv), wa);
		imp_body_set_velocity3(run->w, e->b, imp_vec3_add(vb, dv), wb);
	} else {
		imp_vec2 va, vb;
		double wa, wb;
		assert_int_equal(imp_body_get_velocity2(run->w, e->a, &va, &wa), IMP_OK);
		assert_int_equal(imp_body_get_velocity2(run->w, e->b, &vb, &wb), IMP_OK);
		double j = -e->normal_speed;
		imp_vec2 dv = {j * e->normal.x, j * e->normal.y};
		imp_body_set_velocity2(run->w, e->a, (imp_vec2){va.x - dv.x, va.y - dv.y}, wa);
		imp_body_set_velocity2(run->w, e->b, (imp_vec2){vb.x + dv.x, vb.y + dv.y}, wb);
	}
}

static uint64_t run_steps(int dim, imp_broad_kind kind, const config *c, int *ranges)
{
	shapes sh;
	if (dim == 3)
		make_shapes3(&sh);
	else
		make_shapes2(&sh);
	imp_world_def d = imp_default_world_def();
	d.dim = dim;
	d.broad_phase = kind;
	shuffler s;
	imp_world *w = make_world(d, c, &s, 11);
	rng r = {777};
	step_run run = {w, dim};
	double extent = 1.0;
	for (int i = 0; i < STEP_BODIES; i++) {
		imp_body_def bd = imp_default_body_def();
		bd.shape = sh.s[i % SHAPES];
		bd.type = i % 13 == 0 ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
		// On a grid (apart at the start), turned at random.
		random_pose(&r, dim, extent, &bd.pose2, &bd.pose3);
		int gx = i % 6, gy = (i / 6) % 6, gz = i / 36;
		bd.pose2.p = (imp_vec2){1.6 * gx, 1.6 * (i / 6)};
		bd.pose3.p = imp_vec3_make(1.6 * gx, 1.6 * gy, 1.6 * gz);
		imp_body_id id;
		assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
		if (bd.type == IMP_BODY_STATIC)
			continue;
		double vx = range(&r, -6, 6), vy = range(&r, -6, 6), vz = range(&r, -6, 6), om = range(&r, -3, 3);
		if (dim == 2)
			assert_int_equal(imp_body_set_velocity2(w, id, (imp_vec2){vx, vy}, om), IMP_OK);
		else
			assert_int_equal(imp_body_set_velocity3(w, id, imp_vec3_make(vx, vy, vz), imp_vec3_make(0, om, 0)), IMP_OK);
	}
	imp_step_opts o = imp_default_step_opts();
	o.tolerance = 1e-4;
	o.on_contact = on_contact;
	o.user = &run;
	uint64_t h = 14695981039346656037ULL;
	for (int k = 0; k < STEPS; k++) {
		assert_int_equal(imp_world_step(w, 0.05, &o), IMP_OK);
		h = hash_step(h, w);
		assert_int_equal(imp_world_update(w), IMP_OK);
		h = hash_update(h, w);
	}
	*ranges = s.ranges;
	imp_world_destroy(w);
	free_shapes(&sh);
	return h;
}

static void test_step_same_for_every_worker_count(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		for (int kind = 0; kind < 2; kind++) {
			int ranges = 0;
			uint64_t ref = run_steps(dim, (imp_broad_kind)kind, &CONFIGS[0], &ranges);
			for (int c = 1; c < CONFIG_COUNT; c++) {
				uint64_t h = run_steps(dim, (imp_broad_kind)kind, &CONFIGS[c], &ranges);
				if (h != ref)
					print_error("step %dD kind %d, %d workers%s: %016llx, one worker %016llx\n", dim, kind,
						    CONFIGS[c].workers, CONFIGS[c].scheduler ? " (shuffled)" : "",
						    (unsigned long long)h, (unsigned long long)ref);
				assert_true(h == ref);
			}
		}
	}
}

/* ---- batches ---- */

/// Batch queries handed to the user's scheduler in shuffled ranges (and
/// to the pool) equal the single queries, bit for bit.
static void test_batches_on_workers(void **state)
{
	(void)state;
	shapes sh;
	make_shapes3(&sh);
	enum { N = 700 };
	static imp_pose3 poses[N];
	static bool any[N], any_b[N];
	static imp_query_result near[N], near_b[N];
	for (int c = 0; c < CONFIG_COUNT; c++) {
		imp_world_def d = imp_default_world_def();
		shuffler s;
		imp_world *w = make_world(d, &CONFIGS[c], &s, 3);
		rng r = {42};
		for (int i = 0; i < 300; i++) {
			imp_body_def bd = imp_default_body_def();
			bd.type = IMP_BODY_STATIC;
			bd.shape = sh.s[i % SHAPES];
			random_pose(&r, 3, 6.0, &bd.pose2, &bd.pose3);
			imp_body_id id;
			assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
		}
		assert_int_equal(imp_world_update(w), IMP_OK);
		for (int i = 0; i < N; i++) {
			imp_pose2 unused;
			random_pose(&r, 3, 6.5, &unused, &poses[i]);
		}
		int hits = 0;
		for (int i = 0; i < N; i++) {
			assert_int_equal(imp_world_overlap_any3(w, sh.s[2], poses[i], NULL, &any[i]), IMP_OK);
			assert_int_equal(imp_world_nearest3(w, sh.s[2], poses[i], 3.0, NULL, &near[i]), IMP_OK);
			hits += any[i];
		}
		assert_true(hits > 20 && hits < N - 20);
		assert_int_equal(imp_world_overlap_any_batch3(w, sh.s[2], poses, N, NULL, any_b), IMP_OK);
		assert_int_equal(imp_world_nearest_batch3(w, sh.s[2], poses, N, 3.0, NULL, near_b), IMP_OK);
		for (int i = 0; i < N; i++) {
			assert_int_equal(any_b[i], any[i]);
			assert_int_equal(near_b[i].body.index, near[i].body.index);
			assert_memory_equal(&near_b[i].distance, &near[i].distance, sizeof near[i].distance);
			assert_memory_equal(&near_b[i].point, &near[i].point, sizeof near[i].point);
			assert_memory_equal(&near_b[i].body_point, &near[i].body_point, sizeof near[i].body_point);
			assert_memory_equal(&near_b[i].normal, &near[i].normal, sizeof near[i].normal);
		}
		if (CONFIGS[c].scheduler)
			assert_true(s.ranges >= 2 * (N / 64));
		imp_world_destroy(w);
	}
	free_shapes(&sh);
}

/* ---- options ---- */

static void test_worker_options(void **state)
{
	(void)state;
	imp_world_def d = imp_default_world_def();
	assert_int_equal(d.worker_count, 1);
	assert_null(d.enqueue_task);
	assert_null(d.finish_task);
	imp_world *w = NULL;
	int bad[] = {-1, IMP_MAX_WORKERS + 1, -1000000};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		d.worker_count = bad[i];
		assert_int_equal(imp_world_create(&d, &w), IMP_ERR_BAD_OPTIONS);
		assert_null(w);
	}
	d.worker_count = 2;
	d.enqueue_task = shuffle_enqueue;
	assert_int_equal(imp_world_create(&d, &w), IMP_ERR_BAD_OPTIONS);
	d.enqueue_task = NULL;
	d.finish_task = shuffle_finish;
	assert_int_equal(imp_world_create(&d, &w), IMP_ERR_BAD_OPTIONS);
	assert_null(w);
	// 0 counts as 1; the largest count makes its pool and joins it.
	d.finish_task = NULL;
	int good[] = {0, 1, IMP_MAX_WORKERS};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		d.worker_count = good[i];
		assert_int_equal(imp_world_create(&d, &w), IMP_OK);
		assert_int_equal(imp_world_update(w), IMP_OK);
		imp_world_destroy(w);
		w = NULL;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_options),
		cmocka_unit_test(test_update_same_for_every_worker_count),
		cmocka_unit_test(test_step_same_for_every_worker_count),
		cmocka_unit_test(test_batches_on_workers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
