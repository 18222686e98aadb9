// SPDX-License-Identifier: MIT
// Queries from many threads on one world: every query kind, run by 4 and
// 8 threads at once (on 2 cores too) over the same poses in different
// orders, against the same queries run one after another before: the
// answers must be identical, bit for bit. The threads start together on a
// world no query has touched, so that they race to make the query tree,
// and run long enough for its four-wide copy to be made under them.
// Changes of the world from inside the queries' callbacks are refused
// with IMP_ERR_BUSY on every thread; queries nested in a callback answer
// as outside it. The batch queries equal the single ones, from one thread
// and from several. A ThreadSanitizer build (-Dtsan=true) runs this too.
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
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

#define BODIES 600
#define POSES 160
#define KINDS 10

/// FNV-1a over bytes: answers compared as hashes of every bit they hold.
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; ++i) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t mix_result(uint64_t h, const imp_query_result *r)
{
	h = mix(h, &r->body.index, sizeof r->body.index);
	h = mix(h, &r->distance, sizeof r->distance);
	h = mix(h, &r->point, sizeof r->point);
	h = mix(h, &r->body_point, sizeof r->body_point);
	return mix(h, &r->normal, sizeof r->normal);
}

typedef struct scene {
	int dim;
	imp_world *world;
	imp_shape *shapes[4];
	imp_shape *probe;
	imp_body_id ids[BODIES];
	imp_pose2 p2[POSES], q2[POSES];
	imp_pose3 p3[POSES], q3[POSES];
} scene;

static imp_quat random_quat(rng *r)
{
	double a = uniform(r), b = uniform(r), c = uniform(r);
	double r1 = sqrt(1 - a), r2 = sqrt(a), t1 = 2 * 3.14159265358979323846 * b, t2 = 2 * 3.14159265358979323846 * c;
	imp_quat q = {r1 * sin(t1), r1 * cos(t1), r2 * sin(t2), r2 * cos(t2)};
	return q;
}

/// The workers of the worlds make_scene makes (the batches spread over
/// them).
static int scene_workers = 1;

static void make_scene(scene *sc, int dim, uint64_t seed)
{
	memset(sc, 0, sizeof *sc);
	sc->dim = dim;
	rng r = {seed};
	imp_world_def wd = imp_default_world_def();
	wd.dim = dim;
	wd.broad_phase = dim == 2 ? IMP_BROAD_SWEEP : IMP_BROAD_HASH;
	wd.worker_count = scene_workers;
	assert_int_equal(imp_world_create(&wd, &sc->world), IMP_OK);
	if (dim == 2) {
		imp_vec2 tri[3] = {{0, 0}, {0.6, 0}, {0, 0.5}};
		assert_int_equal(imp_shape_box2(0.3, 0.2, 0.0, &sc->shapes[0]), IMP_OK);
		assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.25, &sc->shapes[1]), IMP_OK);
		assert_int_equal(imp_shape_polygon(tri, 3, 0.05, &sc->shapes[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule2(imp_vec2_make(-0.3, 0), imp_vec2_make(0.3, 0), 0.1, &sc->shapes[3]),
				 IMP_OK);
		assert_int_equal(imp_shape_box2(0.4, 0.15, 0.02, &sc->probe), IMP_OK);
	} else {
		imp_vec3 tet[4] = {{0, 0, 0}, {0.6, 0, 0}, {0, 0.5, 0}, {0, 0, 0.4}};
		assert_int_equal(imp_shape_box3(0.3, 0.2, 0.25, 0.0, &sc->shapes[0]), IMP_OK);
		assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.25, &sc->shapes[1]), IMP_OK);
		assert_int_equal(imp_shape_polytope(tet, 4, 0.05, &sc->shapes[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule3(imp_vec3_make(-0.3, 0, 0), imp_vec3_make(0.3, 0, 0), 0.1, &sc->shapes[3]),
				 IMP_OK);
		assert_int_equal(imp_shape_box3(0.4, 0.15, 0.2, 0.02, &sc->probe), IMP_OK);
	}
	double side = dim == 2 ? 30.0 : 12.0;
	for (int i = 0; i < BODIES; ++i) {
		imp_body_def bd = imp_default_body_def();
		int k = (int)(uniform(&r) * 4.0);
		bd.shape = sc->shapes[k];
		bd.type = i % 3 == 0 ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
		double x = range(&r, 0, side), y = range(&r, 0, side), z = range(&r, 0, side);
		double a = range(&r, -3.14, 3.14);
		bd.pose2 = imp_pose2_make(x, y, a);
		bd.pose3 = imp_pose3_make(imp_vec3_make(x, y, z), random_quat(&r));
		assert_int_equal(imp_world_add_body(sc->world, &bd, &sc->ids[i]), IMP_OK);
	}
	assert_int_equal(imp_world_update(sc->world), IMP_OK);
	for (int i = 0; i < POSES; ++i) {
		double x = range(&r, -1, side + 1), y = range(&r, -1, side + 1), z = range(&r, -1, side + 1);
		double dx = range(&r, -3, 3), dy = range(&r, -3, 3), dz = range(&r, -3, 3);
		double a = range(&r, -3.14, 3.14);
		sc->p2[i] = imp_pose2_make(x, y, a);
		sc->q2[i] = imp_pose2_make(x + dx, y + dy, a + 0.5);
		sc->p3[i] = imp_pose3_make(imp_vec3_make(x, y, z), random_quat(&r));
		sc->q3[i] = imp_pose3_make(imp_vec3_make(x + dx, y + dy, z + dz), random_quat(&r));
	}
}

static void free_scene(scene *sc)
{
	imp_world_destroy(sc->world);
	for (int k = 0; k < 4; ++k)
		imp_shape_destroy(sc->shapes[k]);
	imp_shape_destroy(sc->probe);
}

/// What a callback saw, and what the changes it tried returned.
typedef struct seen {
	const scene *sc;
	uint64_t h;
	int n;
	int not_busy; ///< changes inside a callback that were not refused
	int nested_wrong; ///< nested queries whose answer differed from the outside one
	imp_status st; ///< the query's status
} seen;

/// Inside a query's callback (on whatever thread): a change of the world
/// must be refused; a nested query must answer.
static void try_inside(seen *s, imp_body_id id)
{
	const scene *sc = s->sc;
	imp_world *w = sc->world; // the changes below must all be refused
	imp_status st = sc->dim == 2 ? imp_body_set_pose2(w, id, imp_pose2_identity())
				     : imp_body_set_pose3(w, id, imp_pose3_identity());
	s->not_busy += st != IMP_ERR_BUSY;
	s->not_busy += imp_world_update(w) != IMP_ERR_BUSY;
	s->not_busy += imp_body_set_user_data(w, id, NULL) != IMP_ERR_BUSY;
	bool any = false;
	st = sc->dim == 2 ? imp_world_overlap_any2(w, sc->probe, sc->p2[0], NULL, &any)
			  : imp_world_overlap_any3(w, sc->probe, sc->p3[0], NULL, &any);
	s->nested_wrong += st != IMP_OK;
}

static bool on_overlap(imp_body_id id, void *user)
{
	seen *s = user;
	s->h = mix(s->h, &id.index, sizeof id.index);
	if (s->n++ == 0)
		try_inside(s, id);
	return true;
}

static double on_distance(const imp_query_result *hit, void *user)
{
	seen *s = user;
	s->h = mix_result(s->h, hit);
	s->n++;
	return INFINITY;
}

static bool on_clearance(imp_body_id a, const imp_query_result *pair, void *user)
{
	seen *s = user;
	s->h = mix(s->h, &a.index, sizeof a.index);
	s->h = mix_result(s->h, pair);
	s->n++;
	return true;
}

static bool on_ray(const imp_ray_hit *hit, void *user)
{
	seen *s = user;
	s->h = mix(s->h, &hit->body.index, sizeof hit->body.index);
	s->h = mix(s->h, &hit->t, sizeof hit->t);
	s->h = mix(s->h, &hit->point, sizeof hit->point);
	s->n++;
	return true;
}

/// Query `kind` at pose i: a hash of its whole answer. Kinds: overlap
/// shape, overlap any, nearest, within a distance, body to body, cast,
/// motion free, ray, every ray hit, clearance (pose 0 only).
static uint64_t ask(const scene *sc, int kind, int i, seen *s)
{
	const imp_world *w = sc->world;
	int d = sc->dim;
	imp_status st = IMP_OK;
	s->h = 1469598103934665603ULL;
	s->n = 0;
	switch (kind) {
	case 0:
		st = d == 2 ? imp_world_overlap_shape2(w, sc->probe, sc->p2[i], NULL, on_overlap, s)
			    : imp_world_overlap_shape3(w, sc->probe, sc->p3[i], NULL, on_overlap, s);
		break;
	case 1: {
		bool any = false;
		st = d == 2 ? imp_world_overlap_any2(w, sc->probe, sc->p2[i], NULL, &any)
			    : imp_world_overlap_any3(w, sc->probe, sc->p3[i], NULL, &any);
		s->h = mix(s->h, &any, sizeof any);
		break;
	}
	case 2: {
		imp_query_result r;
		st = d == 2 ? imp_world_nearest2(w, sc->probe, sc->p2[i], INFINITY, NULL, &r)
			    : imp_world_nearest3(w, sc->probe, sc->p3[i], INFINITY, NULL, &r);
		s->h = mix_result(s->h, &r);
		break;
	}
	case 3:
		st = d == 2 ? imp_world_query_distance2(w, sc->probe, sc->p2[i], 1.5, NULL, on_distance, s)
			    : imp_world_query_distance3(w, sc->probe, sc->p3[i], 1.5, NULL, on_distance, s);
		break;
	case 4: {
		imp_query_result r;
		st = imp_world_distance(w, sc->ids[i % BODIES], sc->ids[(7 * i + 3) % BODIES], &r);
		s->h = mix_result(s->h, &r);
		break;
	}
	case 5: {
		imp_cast_hit c;
		st = d == 2 ? imp_world_cast_shape2(w, sc->probe, sc->p2[i], sc->q2[i], NULL, &c)
			    : imp_world_cast_shape3(w, sc->probe, sc->p3[i], sc->q3[i], NULL, &c);
		s->h = mix(s->h, &c.body.index, sizeof c.body.index);
		s->h = mix(s->h, &c.t, sizeof c.t);
		s->h = mix(s->h, &c.state, sizeof c.state);
		break;
	}
	case 6: {
		bool free_motion = false;
		st = d == 2 ? imp_world_motion_free2(w, sc->probe, sc->p2[i], sc->q2[i], NULL, &free_motion)
			    : imp_world_motion_free3(w, sc->probe, sc->p3[i], sc->q3[i], NULL, &free_motion);
		s->h = mix(s->h, &free_motion, sizeof free_motion);
		break;
	}
	case 7: {
		imp_ray_hit h;
		st = d == 2 ? imp_world_ray_cast2(w, sc->p2[i].p, sc->q2[i].p, NULL, &h)
			    : imp_world_ray_cast3(w, sc->p3[i].p, sc->q3[i].p, NULL, &h);
		s->h = mix(s->h, &h.body.index, sizeof h.body.index);
		s->h = mix(s->h, &h.t, sizeof h.t);
		break;
	}
	case 8:
		st = d == 2 ? imp_world_ray_cast_all2(w, sc->p2[i].p, sc->q2[i].p, NULL, on_ray, s)
			    : imp_world_ray_cast_all3(w, sc->p3[i].p, sc->q3[i].p, NULL, on_ray, s);
		break;
	default:
		if (i == 0)
			st = imp_world_clearance(w, 0.05, on_clearance, s);
		break;
	}
	s->h = mix(s->h, &st, sizeof st);
	s->st = st;
	return s->h;
}

typedef struct job {
	const scene *sc;
	const uint64_t *want; ///< [KINDS][POSES], the serial answers
	int offset;           ///< where this thread starts in the list of queries
	int rounds;
	pthread_barrier_t *start;
	int wrong, not_busy, nested_wrong;
} job;

static void *run_job(void *arg)
{
	job *j = arg;
	pthread_barrier_wait(j->start);
	int total = KINDS * POSES;
	for (int round = 0; round < j->rounds; ++round)
		for (int q = 0; q < total; ++q) {
			int at = (q + j->offset * 97 + round * 31) % total;
			int kind = at / POSES, i = at % POSES;
			seen s = {j->sc, 0, 0, 0, 0, IMP_OK};
			uint64_t h = ask(j->sc, kind, i, &s);
			j->wrong += h != j->want[at];
			j->not_busy += s.not_busy;
			j->nested_wrong += s.nested_wrong;
		}
	return NULL;
}

/// The serial answers on a copy of the world no query has touched (the
/// threads then race to make its query tree), then `threads` threads.
static void run_threads(int dim, int threads, uint64_t seed)
{
	scene *serial = malloc(sizeof *serial), *fresh = malloc(sizeof *fresh);
	assert_non_null(serial);
	assert_non_null(fresh);
	make_scene(serial, dim, seed);
	make_scene(fresh, dim, seed);
	uint64_t *want = malloc(sizeof *want * KINDS * POSES);
	assert_non_null(want);
	int not_busy = 0, nested_wrong = 0, answered = 0;
	for (int kind = 0; kind < KINDS; ++kind)
		for (int i = 0; i < POSES; ++i) {
			seen s = {serial, 0, 0, 0, 0, IMP_OK};
			want[kind * POSES + i] = ask(serial, kind, i, &s);
			// Every query answers (a hash of refusals would match too).
			assert_int_equal(s.st, IMP_OK);
			not_busy += s.not_busy;
			nested_wrong += s.nested_wrong;
			answered += s.n;
		}
	assert_true(answered > POSES);
	assert_int_equal(not_busy, 0);
	assert_int_equal(nested_wrong, 0);
	pthread_barrier_t start;
	assert_int_equal(pthread_barrier_init(&start, NULL, (unsigned)threads), 0);
	pthread_t tid[8];
	job jobs[8];
	for (int t = 0; t < threads; ++t) {
		jobs[t] = (job){fresh, want, t, 2, &start, 0, 0, 0};
		assert_int_equal(pthread_create(&tid[t], NULL, run_job, &jobs[t]), 0);
	}
	int wrong = 0;
	for (int t = 0; t < threads; ++t) {
		assert_int_equal(pthread_join(tid[t], NULL), 0);
		wrong += jobs[t].wrong;
		not_busy += jobs[t].not_busy;
		nested_wrong += jobs[t].nested_wrong;
	}
	pthread_barrier_destroy(&start);
	printf("  %dD, %d threads: %d queries each (%d callbacks in the serial run), %d answers differ, "
	       "%d changes not refused, %d nested queries wrong\n",
	       dim, threads, 2 * KINDS * POSES, answered, wrong, not_busy, nested_wrong);
	assert_int_equal(wrong, 0);
	assert_int_equal(not_busy, 0);
	assert_int_equal(nested_wrong, 0);
	// The world still changes once the queries are done.
	assert_int_equal(imp_world_update(fresh->world), IMP_OK);
	free(want);
	free_scene(serial);
	free_scene(fresh);
	free(serial);
	free(fresh);
}

static void test_queries_2d(void **state)
{
	(void)state;
	run_threads(2, 4, 0x7a2d);
}

static void test_queries_3d(void **state)
{
	(void)state;
	run_threads(3, 4, 0x7a3d);
	run_threads(3, 8, 0x7a3e);
}

/// A path of poses: small steps from one to the next, as a planner's
/// motion checked state by state.
static void path_poses(const scene *sc, rng *r, imp_pose2 *p2, imp_pose3 *p3, int n)
{
	p2[0] = sc->p2[0];
	p3[0] = sc->p3[0];
	for (int i = 1; i < n; ++i) {
		double dx = range(r, -0.05, 0.05), dy = range(r, -0.05, 0.05), dz = range(r, -0.05, 0.05);
		p2[i] = imp_pose2_make(p2[i - 1].p.x + dx, p2[i - 1].p.y + dy, atan2(p2[i - 1].q.s, p2[i - 1].q.c) + 0.01);
		p3[i] = imp_pose3_make(imp_vec3_add(p3[i - 1].p, imp_vec3_make(dx, dy, dz)), p3[i - 1].q);
	}
}

typedef struct batch_job {
	const scene *sc;
	const imp_pose2 *p2;
	const imp_pose3 *p3;
	int n;
	const bool *any;
	const imp_query_result *near;
	pthread_barrier_t *start;
	int wrong;
} batch_job;

static bool same_result(const imp_query_result *a, const imp_query_result *b)
{
	return mix_result(1, a) == mix_result(1, b) && a->body.generation == b->body.generation;
}

static void *run_batch(void *arg)
{
	batch_job *j = arg;
	pthread_barrier_wait(j->start);
	bool *any = malloc(sizeof *any * (size_t)j->n);
	imp_query_result *near = malloc(sizeof *near * (size_t)j->n);
	if (any == NULL || near == NULL) {
		j->wrong = -1;
		free(any);
		free(near);
		return NULL;
	}
	imp_status a = j->sc->dim == 2 ? imp_world_overlap_any_batch2(j->sc->world, j->sc->probe, j->p2, j->n, NULL, any)
				       : imp_world_overlap_any_batch3(j->sc->world, j->sc->probe, j->p3, j->n, NULL, any);
	imp_status b = j->sc->dim == 2
			       ? imp_world_nearest_batch2(j->sc->world, j->sc->probe, j->p2, j->n, 2.0, NULL, near)
			       : imp_world_nearest_batch3(j->sc->world, j->sc->probe, j->p3, j->n, 2.0, NULL, near);
	j->wrong += (a != IMP_OK) + (b != IMP_OK);
	for (int i = 0; i < j->n; ++i)
		j->wrong += (any[i] != j->any[i]) + !same_result(&near[i], &j->near[i]);
	free(any);
	free(near);
	return NULL;
}

/// The batch queries: equal, bit for bit, to the single queries on a path
/// (where each pose starts from the body the one before found) and on
/// scattered poses, on one thread and from 4 at once; their errors with
/// nothing written.
static void run_batches(int dim, uint64_t seed)
{
	enum { N = 2 * POSES };
	scene *sc = malloc(sizeof *sc);
	assert_non_null(sc);
	make_scene(sc, dim, seed);
	rng r = {seed ^ 0x5a};
	static imp_pose2 p2[N];
	static imp_pose3 p3[N];
	path_poses(sc, &r, p2, p3, POSES);
	for (int i = 0; i < POSES; ++i) {
		p2[POSES + i] = sc->p2[i];
		p3[POSES + i] = sc->p3[i];
	}
	static bool any[N], any_batch[N];
	static imp_query_result near[N], near_batch[N];
	int hits = 0, found = 0;
	for (int i = 0; i < N; ++i) {
		assert_int_equal(dim == 2 ? imp_world_overlap_any2(sc->world, sc->probe, p2[i], NULL, &any[i])
					  : imp_world_overlap_any3(sc->world, sc->probe, p3[i], NULL, &any[i]),
				 IMP_OK);
		assert_int_equal(dim == 2 ? imp_world_nearest2(sc->world, sc->probe, p2[i], 2.0, NULL, &near[i])
					  : imp_world_nearest3(sc->world, sc->probe, p3[i], 2.0, NULL, &near[i]),
				 IMP_OK);
		hits += any[i];
		found += near[i].body.index != 0;
	}
	assert_int_equal(dim == 2 ? imp_world_overlap_any_batch2(sc->world, sc->probe, p2, N, NULL, any_batch)
				  : imp_world_overlap_any_batch3(sc->world, sc->probe, p3, N, NULL, any_batch),
			 IMP_OK);
	assert_int_equal(dim == 2 ? imp_world_nearest_batch2(sc->world, sc->probe, p2, N, 2.0, NULL, near_batch)
				  : imp_world_nearest_batch3(sc->world, sc->probe, p3, N, 2.0, NULL, near_batch),
			 IMP_OK);
	for (int i = 0; i < N; ++i) {
		assert_int_equal(any_batch[i], any[i]);
		assert_true(same_result(&near_batch[i], &near[i]));
	}
	printf("  %dD batches of %d poses (a path, then scattered), %d worker(s): %d overlapping, %d with a body "
	       "within 2, equal to the single queries\n",
	       dim, N, scene_workers, hits, found);
	assert_true(hits > 10 && hits < N - 10 && found > 10);
	// From 4 threads at once.
	pthread_barrier_t start;
	assert_int_equal(pthread_barrier_init(&start, NULL, 4), 0);
	pthread_t tid[4];
	batch_job jobs[4];
	for (int t = 0; t < 4; ++t) {
		jobs[t] = (batch_job){sc, p2, p3, N, any, near, &start, 0};
		assert_int_equal(pthread_create(&tid[t], NULL, run_batch, &jobs[t]), 0);
	}
	for (int t = 0; t < 4; ++t) {
		assert_int_equal(pthread_join(tid[t], NULL), 0);
		assert_int_equal(jobs[t].wrong, 0);
	}
	pthread_barrier_destroy(&start);
	// Errors, nothing written: a pose not finite at index 5, a negative
	// count, NULL arrays, the other dimension's call.
	bool mark[8];
	memset(mark, 1, sizeof mark);
	imp_pose2 bad2[8];
	imp_pose3 bad3[8];
	memcpy(bad2, p2, sizeof bad2);
	memcpy(bad3, p3, sizeof bad3);
	bad2[5].p.x = NAN;
	bad3[5].p.x = NAN;
	imp_status st = dim == 2 ? imp_world_overlap_any_batch2(sc->world, sc->probe, bad2, 8, NULL, mark)
				 : imp_world_overlap_any_batch3(sc->world, sc->probe, bad3, 8, NULL, mark);
	assert_int_equal(st, IMP_ERR_NOT_FINITE);
	for (int i = 0; i < 8; ++i)
		assert_true(mark[i]);
	imp_query_result nmark[8];
	memset(nmark, 0x5a, sizeof nmark);
	imp_query_result before = nmark[0];
	st = dim == 2 ? imp_world_nearest_batch2(sc->world, sc->probe, bad2, 8, 1.0, NULL, nmark)
		      : imp_world_nearest_batch3(sc->world, sc->probe, bad3, 8, 1.0, NULL, nmark);
	assert_int_equal(st, IMP_ERR_NOT_FINITE);
	for (int i = 0; i < 8; ++i)
		assert_memory_equal(&nmark[i], &before, sizeof before);
	assert_int_equal(dim == 2 ? imp_world_overlap_any_batch2(sc->world, sc->probe, p2, -1, NULL, mark)
				  : imp_world_overlap_any_batch3(sc->world, sc->probe, p3, -1, NULL, mark),
			 IMP_ERR_BAD_COUNT);
	assert_int_equal(dim == 2 ? imp_world_overlap_any_batch2(sc->world, sc->probe, NULL, 3, NULL, mark)
				  : imp_world_overlap_any_batch3(sc->world, sc->probe, NULL, 3, NULL, mark),
			 IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(dim == 2 ? imp_world_nearest_batch2(sc->world, sc->probe, p2, 3, 1.0, NULL, NULL)
				  : imp_world_nearest_batch3(sc->world, sc->probe, p3, 3, 1.0, NULL, NULL),
			 IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(dim == 2 ? imp_world_overlap_any_batch3(sc->world, sc->probe, p3, 3, NULL, mark)
				  : imp_world_overlap_any_batch2(sc->world, sc->probe, p2, 3, NULL, mark),
			 IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(dim == 2 ? imp_world_nearest_batch2(sc->world, sc->probe, p2, 0, 1.0, NULL, nmark)
				  : imp_world_nearest_batch3(sc->world, sc->probe, p3, 0, 1.0, NULL, nmark),
			 IMP_OK);
	for (int i = 0; i < 8; ++i)
		assert_true(mark[i]);
	free_scene(sc);
	free(sc);
}

static void test_batches(void **state)
{
	(void)state;
	// On the calling thread; then spread over the world's 3 workers (the
	// 4 threads at once taking turns with them).
	for (scene_workers = 1; scene_workers <= 3; scene_workers += 2) {
		run_batches(2, 0xba2d);
		run_batches(3, 0xba3d);
	}
	scene_workers = 1;
}

typedef struct walk_ctx {
	imp_world *w;
	const imp_shape *probe;
	int pairs, velocity_ok, velocity_set, pose_busy, query_ok;
} walk_ctx;

/// Inside a pair walk: velocities may be set (an impulse loop over the
/// touching pairs), bodies and pairs may not change, queries answer.
static bool walk_pair(imp_body_id a, imp_body_id b, void *user)
{
	walk_ctx *c = user;
	(void)a;
	c->pairs++;
	imp_status v = imp_body_set_velocity3(c->w, b, imp_vec3_make(0, 0, -1), imp_vec3_make(0, 0, 0));
	c->velocity_ok += v == IMP_OK || v == IMP_ERR_STATIC_BODY; // a static body has no velocity
	c->velocity_set += v == IMP_OK;
	c->pose_busy += imp_body_set_pose3(c->w, b, imp_pose3_identity()) == IMP_ERR_BUSY;
	bool any = false;
	c->query_ok += imp_world_overlap_any3(c->w, c->probe, imp_pose3_identity(), NULL, &any) == IMP_OK;
	return true;
}

static void test_pair_walk_rules(void **state)
{
	(void)state;
	scene *sc = malloc(sizeof *sc);
	assert_non_null(sc);
	make_scene(sc, 3, 0x3a1c);
	walk_ctx c = {sc->world, sc->probe, 0, 0, 0, 0, 0};
	assert_int_equal(imp_world_for_each_pair(sc->world, walk_pair, &c), IMP_OK);
	printf("  a pair walk over %d touching pairs: velocities set in %d, poses refused in %d, queries answered in %d\n",
	       c.pairs, c.velocity_ok, c.pose_busy, c.query_ok);
	assert_true(c.pairs > 0);
	assert_int_equal(c.velocity_ok, c.pairs);
	assert_true(c.velocity_set > 0);
	assert_int_equal(c.pose_busy, c.pairs);
	assert_int_equal(c.query_ok, c.pairs);
	free_scene(sc);
	free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries_2d),
		cmocka_unit_test(test_queries_3d),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_pair_walk_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
