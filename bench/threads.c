// SPDX-License-Identifier: MIT
// bench/threads: impact's world on 1, 2, ... workers (imp_world_def's
// worker_count; the world's own pool of worker_count - 1 POSIX threads, no
// user scheduler), up to the number of online processors (at least 2).
//
// (1) imp_world_update per frame on the 3D pile and 3D uniform scenes of
//     bench/broad (scene_broad.c, the same seeds as bench/broad), 100,000
//     boxes, narrow phase on, the hash broad phase: bench/broad's "impact
//     hash + narrow" world, with worker_count set. Every frame every box
//     gets its pose (imp_body_set_pose3, outside the timing), then the
//     update is timed. After every frame (setup and warm-up included) each
//     world's state hash and touching-pair count must equal the 1-worker
//     world's.
// (2) imp_world_step on the piles of bench/toi (scene_pile.c, shared with
//     bench/toi: the same seeds, bodies and walls), gravity added before
//     each step and bench/toi's impulse callback sp_on_contact (restitution
//     above an approach of 0.5, a push-out of overlaps, warm starting from
//     the impulse a pair took in the frame before); the sweep broad phase,
//     as bench/toi's pile rows. After every step the contact count, a
//     digest of the contacts (ids, times, distances, normals) and the state
//     hash must equal the 1-worker world's.
// (3) imp_world_overlap_any_batch3 and imp_world_nearest_batch3 (max
//     distance infinite) on the 3D static worlds of bench/queries (10,000
//     and 100,000 bodies; scene_queries.c, shared with bench/queries: the
//     same seeds), the hash broad phase, one call a batch of 100,000 poses
//     of its query box: bench/queries' scattered poses (the same ones), and
//     paths as a planner checks its edges: 100 straight motions of 5 units
//     (the rotation interpolated) at 1,000 poses each. The answers must be equal
//     to the 1-worker world's, bit for bit (the overlap flags by memcmp;
//     the nearest results field by field, the body id's world serial aside).
//
// Each worker count has a world of its own, all made before timing, and
// the counts are timed in turn within each frame, step or batch, the
// first one rotating, so that a slow spell of the machine falls on all of
// them. Reported: the median time, the speedup (the 1-worker median over
// this count's) and the parallel efficiency (speedup / workers).
//
// usage: threads [--smoke] [--out FILE] [--strict] [--only update|step|batch]
//                [--max-workers W] [--n N] [--frames F] [--reps R] [--pile-frames F]
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "scene_broad.h"
#include "scene_pile.h"
#include "scene_queries.h"

#define PI 3.14159265358979323846
/// bench/broad's default seed (its scenes' seeds derive from it).
#define BROAD_SEED UINT64_C(0xb0ad2026)
#define UPDATE_N 100000
#define UPDATE_FRAMES 20
#define UPDATE_WARMUP 3
#define SMOKE_UPDATE_N 2000
#define BATCH_POSES 100000
#define BATCH_REPS 7
#define SMOKE_BATCH_N 2000
#define SMOKE_BATCH_POSES 400
#define PATH_POSES 1000
#define SMOKE_PATH_POSES 100
#define PATH_LENGTH 5.0
#define MAX_COUNTS 64

static bool contains(const char *hay, const char *needle)
{
	return needle == NULL || strstr(hay, needle) != NULL;
}

/// Everything printed goes to stdout and, with --out, to the file too.
static FILE *g_out[2];

static void emit(const char *fmt, ...)
{
	for (int k = 0; k < 2; ++k) {
		if (g_out[k] == NULL)
			continue;
		va_list ap;
		va_start(ap, fmt);
		vfprintf(g_out[k], fmt, ap);
		va_end(ap);
		fflush(g_out[k]);
	}
}

typedef struct options {
	bool smoke;
	const char *only;
	int counts[MAX_COUNTS]; ///< worker counts, 1 first
	int nc;
	int update_n, frames, warmup, reps;
	int pile_n2, pile_n3, pile_frames;
	int batch_sizes[2], nsizes, poses, path_poses;
} options;

/// A table cell of milliseconds ("-" for NaN).
static void put_ms(double ms)
{
	if (isnan(ms))
		emit(" - |");
	else if (ms >= 100.0)
		emit(" %.0f |", ms);
	else if (ms >= 1.0)
		emit(" %.2f |", ms);
	else
		emit(" %.3f |", ms);
}

/// Speedup and efficiency cells of worker count index k (medians in ms).
static void put_speedup(const options *o, const double *med, int k)
{
	if (isnan(med[0]) || isnan(med[k]) || !(med[k] > 0.0)) {
		emit(" - | - |");
		return;
	}
	double s = med[0] / med[k];
	emit(" %.2f | %.2f |", s, s / o->counts[k]);
}

static void put_check(int k, int off, int of)
{
	if (k == 0)
		emit(" reference |\n");
	else if (off == 0)
		emit(" same |\n");
	else
		emit(" **%d of %d differ** |\n", off, of);
}

// ---- (1) the update -----------------------------------------------------------

/// A world of bench/broad's scene on `workers` workers: bench/broad's
/// imp_run_create with the narrow phase on, the hash broad phase.
static imp_world *update_world(const sb_scene *s, imp_shape *const *shapes, int workers, imp_body_id *ids)
{
	imp_world_def def = imp_default_world_def();
	def.dim = 3;
	def.broad_phase = IMP_BROAD_HASH;
	def.narrow_phase = true;
	def.worker_count = workers;
	imp_world *w = NULL;
	imp_status st = imp_world_create(&def, &w);
	if (st != IMP_OK) {
		fprintf(stderr, "threads: imp_world_create: %s\n", imp_status_string(st));
		return NULL;
	}
	for (int i = 0; i < s->count; ++i) {
		imp_body_def bd = imp_default_body_def();
		bd.shape = shapes[i];
		const double *c = s->center + 3 * i;
		bd.pose3 = (imp_pose3){{c[0], c[1], c[2]}, {0.0, 0.0, 0.0, 1.0}};
		st = imp_world_add_body(w, &bd, &ids[i]);
		if (st != IMP_OK) {
			fprintf(stderr, "threads: imp_world_add_body: %s\n", imp_status_string(st));
			imp_world_destroy(w);
			return NULL;
		}
	}
	return w;
}

static imp_status update_poses(imp_world *w, const sb_scene *s, const imp_body_id *ids)
{
	imp_status bad = IMP_OK;
	for (int i = 0; i < s->count; ++i) {
		const double *c = s->center + 3 * i;
		imp_status st = imp_body_set_pose3(w, ids[i], (imp_pose3){{c[0], c[1], c[2]}, {0.0, 0.0, 0.0, 1.0}});
		if (st != IMP_OK)
			bad = st;
	}
	return bad;
}

/// The update rows of one scene; false on a failure or a mismatch.
static bool run_update(const options *o, sb_kind kind)
{
	const int nc = o->nc, n = o->update_n, total = o->warmup + o->frames;
	sb_scene s;
	uint64_t seed = BROAD_SEED + (uint64_t)(3 * 16 + kind) * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)n;
	if (sb_scene_make(&s, 3, kind, n, seed) != 0) {
		fprintf(stderr, "threads: could not make the scene\n");
		return false;
	}
	imp_shape **shapes = calloc((size_t)n, sizeof *shapes);
	imp_world *w[MAX_COUNTS] = {NULL};
	imp_body_id *ids = calloc((size_t)nc * (size_t)n, sizeof *ids);
	double *samples = calloc((size_t)nc * (size_t)o->frames, sizeof *samples);
	bool ok = shapes && ids && samples;
	for (int i = 0; ok && i < n; ++i) {
		const double *h = s.half + 3 * i;
		ok = imp_shape_box3(h[0], h[1], h[2], 0.0, &shapes[i]) == IMP_OK;
	}
	for (int k = 0; ok && k < nc; ++k) {
		fprintf(stderr, "threads: update, 3D %s, N=%d: making the world of %d workers\n", sb_kind_name(kind), n,
			o->counts[k]);
		w[k] = update_world(&s, shapes, o->counts[k], ids + (size_t)k * n);
		// The setup frame: every body taken in.
		ok = w[k] != NULL && imp_world_update(w[k]) == IMP_OK;
	}
	int off[MAX_COUNTS] = {0};
	imp_world_stats last[MAX_COUNTS];
	memset(last, 0, sizeof last);
	for (int f = -1; ok && f < total; ++f) {
		if (f >= 0)
			sb_scene_step(&s);
		uint64_t hash[MAX_COUNTS];
		for (int j = 0; ok && j < nc; ++j) {
			int k = (f + 1 + j) % nc;
			if (f >= 0) {
				imp_status st = update_poses(w[k], &s, ids + (size_t)k * n);
				double t0 = bench_now_ns();
				if (st == IMP_OK)
					st = imp_world_update(w[k]);
				double dt = bench_now_ns() - t0;
				if (st != IMP_OK) {
					fprintf(stderr, "threads: update: %s\n", imp_status_string(st));
					ok = false;
				}
				if (f >= o->warmup)
					samples[(size_t)k * o->frames + (f - o->warmup)] = dt * 1e-6;
			}
			hash[k] = imp_world_state_hash(w[k]);
			last[k] = imp_world_get_stats(w[k]);
		}
		for (int k = 1; ok && k < nc; ++k)
			off[k] += hash[k] != hash[0] || last[k].touching != last[0].touching;
	}
	double med[MAX_COUNTS];
	for (int k = 0; k < nc; ++k)
		med[k] = ok ? bench_median(samples + (size_t)k * o->frames, o->frames) : NAN;
	bool same = true;
	for (int k = 0; k < nc; ++k) {
		emit("| 3D %s | %d | %d |", sb_kind_name(kind), n, o->counts[k]);
		put_ms(med[k]);
		put_speedup(o, med, k);
		emit(" %d | %d |", last[k].touching, last[k].narrow_calls);
		if (!ok)
			emit(" **failed** |\n");
		else
			put_check(k, off[k], total + 1);
		same &= off[k] == 0;
	}
	for (int k = 0; k < nc; ++k)
		imp_world_destroy(w[k]);
	for (int i = 0; shapes && i < n; ++i)
		imp_shape_destroy(shapes[i]);
	free(shapes);
	free(ids);
	free(samples);
	sb_scene_free(&s);
	if (!same)
		fprintf(stderr, "threads: WARNING: update, 3D %s: a world's state differs from the 1-worker world's\n",
			sb_kind_name(kind));
	return ok && same;
}

// ---- (2) the step: bench/toi's piles ------------------------------------------------

// --smoke: piles smaller and shorter than bench/toi's --smoke ones (100
// bodies, 30 frames).
#define PILE_SMOKE_N 60
#define PILE_SMOKE_FRAMES 10

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return h * UINT64_C(0xbf58476d1ce4e5b9);
}

static uint64_t mix_double(uint64_t h, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return mix(h, u);
}

/// A digest of the last step's contacts.
static uint64_t contacts_digest(const imp_world *w)
{
	imp_contact_events ce = imp_world_get_contacts(w);
	uint64_t h = (uint64_t)ce.count;
	for (int i = 0; i < ce.count; ++i) {
		const imp_contact_event *e = &ce.items[i];
		h = mix(h, (uint64_t)e->a.index << 32 | e->b.index);
		h = mix_double(mix_double(h, e->t), e->distance);
		h = mix_double(mix_double(mix_double(h, e->normal.x), e->normal.y), e->normal.z);
		h = mix(h, e->capped);
	}
	return h;
}

/// The step rows of one pile; false on a failure or a mismatch.
static bool run_step(const options *o, int dim)
{
	const int nc = o->nc, n = dim == 2 ? o->pile_n2 : o->pile_n3, frames = o->pile_frames;
	sp_pile p;
	sp_sim sim[MAX_COUNTS];
	memset(&p, 0, sizeof p);
	memset(sim, 0, sizeof sim);
	double *samples = calloc((size_t)nc * (size_t)frames, sizeof *samples);
	bool ok = samples != NULL && sp_pile_make(&p, dim, n, sp_pile_seed(dim, n));
	for (int k = 0; ok && k < nc; ++k)
		ok = sp_sim_create(&sim[k], &p, IMP_BROAD_SWEEP, 0.0, o->counts[k], "threads");
	if (!ok)
		fprintf(stderr, "threads: could not make the %dD pile\n", dim);
	fprintf(stderr, "threads: step, %dD pile of %d, %d frames\n", dim, n, frames);
	int off[MAX_COUNTS] = {0};
	long contacts[MAX_COUNTS] = {0};
	double total_ms[MAX_COUNTS] = {0};
	for (int f = 0; ok && f < frames; ++f) {
		uint64_t hash[MAX_COUNTS], digest[MAX_COUNTS];
		int count[MAX_COUNTS];
		for (int j = 0; ok && j < nc; ++j) {
			int k = (f + j) % nc;
			sp_sim *s = &sim[k];
			sp_gravity(s);
			imp_step_opts opts = imp_default_step_opts();
			opts.on_contact = sp_on_contact;
			opts.user = s;
			s->frame++;
			double t0 = bench_now_ns();
			imp_status st = imp_world_step(s->w, s->dt, &opts);
			double dt = (bench_now_ns() - t0) * 1e-6;
			if (st == IMP_OK)
				st = s->bad;
			if (st != IMP_OK) {
				fprintf(stderr, "threads: %dD pile, %d workers: frame %d: %s\n", dim, o->counts[k], f,
					imp_status_string(st));
				ok = false;
			}
			samples[(size_t)k * frames + f] = dt;
			total_ms[k] += dt;
			hash[k] = imp_world_state_hash(s->w);
			digest[k] = contacts_digest(s->w);
			count[k] = imp_world_get_contacts(s->w).count;
			contacts[k] += count[k];
		}
		for (int k = 1; ok && k < nc; ++k)
			off[k] += hash[k] != hash[0] || digest[k] != digest[0] || count[k] != count[0];
		if ((f + 1) % 100 == 0)
			fprintf(stderr, "threads:   frame %d: %.1f s so far (1 worker)\n", f + 1, total_ms[0] * 1e-3);
	}
	double med[MAX_COUNTS];
	for (int k = 0; k < nc; ++k)
		med[k] = ok ? bench_median(samples + (size_t)k * frames, frames) : NAN;
	bool same = true;
	for (int k = 0; k < nc; ++k) {
		emit("| %dD pile | %d | %d |", dim, n, o->counts[k]);
		put_ms(med[k]);
		put_ms(ok ? total_ms[k] * 1e-3 : NAN);
		put_speedup(o, med, k);
		emit(" %ld |", contacts[k]);
		if (!ok)
			emit(" **failed** |\n");
		else
			put_check(k, off[k], frames);
		same &= off[k] == 0;
	}
	for (int k = 0; k < nc; ++k)
		sp_sim_destroy(&sim[k]);
	sp_pile_free(&p);
	free(samples);
	if (!same)
		fprintf(stderr, "threads: WARNING: step, %dD pile: a world's contacts or state differ from the 1-worker "
				"world's\n",
			dim);
	return ok && same;
}

// ---- (3) the batch queries: bench/queries' static worlds ------------------------------

/// bench/queries' 3D scene (scene_queries.c: its seed, bodies, query box
/// and scattered poses, the cast ends unused), and the paths.
typedef struct qscene {
	sq_scene sc;
	int nq;
	imp_pose3 *scattered; ///< the scene's query poses
	imp_pose3 *path;
	imp_shape *probe;     ///< the scene's query box
} qscene;

static void qscene_free(qscene *q)
{
	sq_scene_free(&q->sc);
	free(q->scattered);
	free(q->path);
	memset(q, 0, sizeof *q);
}

static bool qscene_make(qscene *q, int n, int nq, int path_poses)
{
	memset(q, 0, sizeof *q);
	q->nq = nq;
	bool ok = sq_scene_make(&q->sc, 3, n, nq, sq_seed(3, n));
	q->probe = q->sc.query_shape;
	q->scattered = calloc((size_t)nq, sizeof *q->scattered);
	q->path = calloc((size_t)nq, sizeof *q->path);
	if (!ok || !q->scattered || !q->path)
		return false;
	for (int i = 0; i < nq; i++)
		q->scattered[i] = q->sc.queries[i].p3;
	// Paths: straight motions of PATH_LENGTH from a random pose, turning
	// to another random rotation (normalised linear interpolation, the
	// shorter way), at path_poses poses each: a planner checking its edges
	// state by state.
	bench_rng pr = {UINT64_C(0x9a7b5) + (uint64_t)n};
	for (int i = 0; i < nq; i += path_poses) {
		imp_pose3 a = sq_random_pose3(&pr, q->sc.side);
		imp_quat qb = imp_quat_normalize(sq_random_quat(&pr));
		imp_quat qa = imp_quat_normalize(a.q);
		if (qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w < 0.0)
			qb = imp_quat_scale(-1.0, qb);
		double z = bench_rng_range(&pr, -1.0, 1.0), phi = bench_rng_range(&pr, 0.0, 2.0 * PI);
		double rho = sqrt(fmax(0.0, 1.0 - z * z));
		imp_vec3 d = imp_vec3_make(PATH_LENGTH * rho * cos(phi), PATH_LENGTH * rho * sin(phi), PATH_LENGTH * z);
		int m = nq - i < path_poses ? nq - i : path_poses;
		for (int k = 0; k < m; ++k) {
			double t = m > 1 ? (double)k / (m - 1) : 0.0;
			imp_quat r = imp_quat_make(qa.x + t * (qb.x - qa.x), qa.y + t * (qb.y - qa.y),
						   qa.z + t * (qb.z - qa.z), qa.w + t * (qb.w - qa.w));
			q->path[i + k] = (imp_pose3){imp_vec3_add(a.p, imp_vec3_scale(t, d)), imp_quat_normalize(r)};
		}
	}
	return true;
}

/// bench/queries' world (sq_world_make, the hash), on `workers` workers.
static imp_world *query_world(const qscene *q, int workers)
{
	imp_world_def def = imp_default_world_def();
	def.broad_phase = IMP_BROAD_HASH;
	def.worker_count = workers;
	return sq_world_make(&q->sc, &def);
}

/// Bit for bit, the body id's world serial (each world has its own) aside.
static bool same_result(const imp_query_result *a, const imp_query_result *b)
{
	return a->body.index == b->body.index && a->body.generation == b->body.generation &&
	       memcmp(&a->distance, &b->distance, sizeof *a - offsetof(imp_query_result, distance)) == 0;
}

/// Whether a batch's answers differ from the reference's.
static bool answers_differ(const qscene *sc, bool nearest, const bool *any, const bool *any_ref,
			   const imp_query_result *near, const imp_query_result *near_ref)
{
	if (!nearest)
		return memcmp(any, any_ref, sizeof *any * (size_t)sc->nq) != 0;
	for (int i = 0; i < sc->nq; ++i)
		if (!same_result(&near[i], &near_ref[i]))
			return true;
	return false;
}

/// One batch: the time in ms, the answers in any or near.
static double run_batch(imp_world *w, const qscene *sc, const imp_pose3 *poses, bool nearest, bool *any,
			imp_query_result *near, imp_status *st)
{
	if (nearest)
		memset(near, 0, sizeof *near * (size_t)sc->nq);
	else
		memset(any, 0, sizeof *any * (size_t)sc->nq);
	double t0 = bench_now_ns();
	*st = nearest ? imp_world_nearest_batch3(w, sc->probe, poses, sc->nq, INFINITY, NULL, near)
		      : imp_world_overlap_any_batch3(w, sc->probe, poses, sc->nq, NULL, any);
	return (bench_now_ns() - t0) * 1e-6;
}

/// The batch rows of one world size; false on a failure or a mismatch.
static bool run_batches(const options *o, int n)
{
	const int nc = o->nc, reps = o->reps;
	qscene sc;
	imp_world *w[MAX_COUNTS] = {NULL};
	bool ok = qscene_make(&sc, n, o->poses, o->path_poses);
	bool *any_ref = ok ? malloc(sizeof *any_ref * (size_t)sc.nq) : NULL;
	bool *any = ok ? malloc(sizeof *any * (size_t)sc.nq) : NULL;
	imp_query_result *near_ref = ok ? malloc(sizeof *near_ref * (size_t)sc.nq) : NULL;
	imp_query_result *near = ok ? malloc(sizeof *near * (size_t)sc.nq) : NULL;
	double *samples = malloc(sizeof *samples * (size_t)nc * (size_t)reps);
	ok = ok && any_ref && any && near_ref && near && samples;
	for (int k = 0; ok && k < nc; ++k) {
		fprintf(stderr, "threads: batches, %d static bodies: making the world of %d workers\n", n, o->counts[k]);
		w[k] = query_world(&sc, o->counts[k]);
		ok = w[k] != NULL;
	}
	if (!ok)
		fprintf(stderr, "threads: could not make the static world of %d bodies\n", n);
	bool all_same = true;
	for (int cell = 0; cell < 4 && ok; ++cell) {
		bool path = cell < 2, nearest = cell % 2 == 1;
		const imp_pose3 *poses = path ? sc.path : sc.scattered;
		const char *qname = nearest ? "nearest_batch3" : "overlap_any_batch3";
		const char *pname = path ? "paths" : "scattered";
		fprintf(stderr, "threads: batches, %d static bodies, %s, %s\n", n, pname, qname);
		imp_status st = IMP_OK;
		int off[MAX_COUNTS] = {0};
		// Warm-up, each world once (grows the query buffers): the
		// 1-worker world's answers are the reference.
		for (int k = 0; k < nc && ok; ++k) {
			run_batch(w[k], &sc, poses, nearest, k == 0 ? any_ref : any, k == 0 ? near_ref : near, &st);
			ok = st == IMP_OK;
			if (ok && k > 0)
				off[k] += answers_differ(&sc, nearest, any, any_ref, near, near_ref);
		}
		for (int rep = 0; rep < reps && ok; ++rep)
			for (int j = 0; j < nc && ok; ++j) {
				int k = (rep + j) % nc;
				samples[(size_t)k * reps + rep] = run_batch(w[k], &sc, poses, nearest, any, near, &st);
				ok = st == IMP_OK;
				if (ok)
					off[k] += answers_differ(&sc, nearest, any, any_ref, near, near_ref);
			}
		if (st != IMP_OK)
			fprintf(stderr, "threads: %s: %s\n", qname, imp_status_string(st));
		// What the answers were: overlapping poses, or the mean distance.
		long hits = 0;
		double sum = 0.0;
		for (int i = 0; ok && i < sc.nq; ++i) {
			hits += nearest ? near_ref[i].distance <= 0.0 : any_ref[i];
			sum += nearest ? near_ref[i].distance : 0.0;
		}
		double med[MAX_COUNTS];
		for (int k = 0; k < nc; ++k)
			med[k] = ok ? bench_median(samples + (size_t)k * reps, reps) : NAN;
		for (int k = 0; k < nc; ++k) {
			emit("| %d | %s | %s | %d | %d |", n, pname, qname, sc.nq, o->counts[k]);
			put_ms(med[k]);
			emit(" %.0f |", ok ? med[k] * 1e6 / sc.nq : NAN);
			put_speedup(o, med, k);
			if (nearest)
				emit(" %ld overlapping, mean distance %.3f |", hits, sum / sc.nq);
			else
				emit(" %ld overlapping |", hits);
			if (!ok)
				emit(" **failed** |\n");
			else
				put_check(k, off[k], reps + (k > 0));
			all_same &= off[k] == 0;
		}
	}
	for (int k = 0; k < nc; ++k)
		imp_world_destroy(w[k]);
	qscene_free(&sc);
	free(any_ref);
	free(any);
	free(near_ref);
	free(near);
	free(samples);
	if (!all_same)
		fprintf(stderr, "threads: WARNING: batches on %d bodies: answers differ from the 1-worker world's\n", n);
	return ok && all_same;
}

// ---- the run ----------------------------------------------------------------------

static void usage(FILE *f)
{
	fprintf(f,
		"usage: threads [--smoke] [--out FILE] [--strict] [--only update|step|batch] [--max-workers W]\n"
		"               [--n N] [--frames F] [--reps R] [--pile-frames F]\n"
		"  --smoke          tiny sizes, 1 timed frame or batch: checks every code path in seconds\n"
		"  --out FILE       also write the Markdown report to FILE\n"
		"  --strict         accepted for CI (a world that differs from the 1-worker world always fails)\n"
		"  --only SECTION   update, step or batch\n"
		"  --max-workers W  worker counts 1 .. W (default: the online processors, at least 2)\n"
		"  --n N            bodies of the update scenes (default %d)\n"
		"  --frames F       timed frames of the update (default %d, after %d warm-up frames)\n"
		"  --reps R         timed batches per cell (default %d)\n"
		"  --pile-frames F  frames of the piles (default %d)\n",
		UPDATE_N, UPDATE_FRAMES, UPDATE_WARMUP, BATCH_REPS, SP_FRAMES);
}

/// What Meson found of Bullet's multithreaded dispatcher (bench/meson.build
/// runs a probe): 0 not found, 1 Bullet built without BT_THREADSAFE, 2 with.
#ifndef BULLET_MT
#define BULLET_MT 0
#endif

static void print_header(const options *o, long online)
{
	char machine[400], date[64], cpu[256];
	bench_describe_run(machine, sizeof machine, false, date, sizeof date);
	bench_cpu_model(cpu, sizeof cpu);
#if defined(__OPTIMIZE__)
	const char *optimised = "optimised (-O2 from bench/meson.build)";
#else
	const char *optimised = "NOT optimised: the numbers mean nothing";
#endif
	emit("# threads: impact's world on several workers\n\n");
	emit("- machine: %s; CPU: %s; %ld online processors; run %s\n", machine, cpu, online, date);
	emit("- compiler: %s, %s; impact %d\n", __VERSION__, optimised, imp_version());
	emit("- worker counts:");
	for (int k = 0; k < o->nc; ++k)
		emit("%s %d", k ? "," : "", o->counts[k]);
	emit(" (imp_world_def.worker_count; the world's own pool of worker_count - 1 POSIX threads); a world "
	     "per count, timed in turn within each frame, step or batch (the first rotating); speedup = the "
	     "1-worker median over this count's; efficiency = speedup / workers; check: every frame's state hash "
	     "and touching count, every step's contacts and state hash, every batch's answers against the "
	     "1-worker world's%s\n",
	     o->smoke ? " (--smoke: the numbers are not measurements)" : "");
#if BULLET_MT == 1
	emit("- Bullet: Debian's libbullet is built without BT_THREADSAFE: btCreateDefaultTaskScheduler() returns "
	     "NULL and btParallelFor runs its body inline, whatever scheduler btSetTaskScheduler was given, so "
	     "btCollisionDispatcherMt runs serially: no Bullet rows\n");
#elif BULLET_MT == 2
	emit("- Bullet: built with BT_THREADSAFE (btCreateDefaultTaskScheduler() gives a scheduler), but "
	     "bench/threads has no Bullet peer: no Bullet rows\n");
#else
	emit("- Bullet: not found at build time (or no C++ compiler): no Bullet rows\n");
#endif
}

int main(int argc, char **argv)
{
	options o;
	memset(&o, 0, sizeof o);
	o.update_n = UPDATE_N;
	o.frames = UPDATE_FRAMES;
	o.warmup = UPDATE_WARMUP;
	o.reps = BATCH_REPS;
	int max_workers = 0, pile_frames = 0;
	bool n_set = false, frames_set = false, reps_set = false;
	const char *out_path = NULL;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			o.smoke = true;
		} else if (!strcmp(a, "--strict")) {
			// Always strict.
		} else if (!strcmp(a, "--out") && v) {
			out_path = v;
			++i;
		} else if (!strcmp(a, "--only") && v) {
			o.only = v;
			++i;
		} else if (!strcmp(a, "--max-workers") && v && bench_parse_int(v, 1, MAX_COUNTS, &max_workers)) {
			++i;
		} else if (!strcmp(a, "--n") && v && bench_parse_int(v, 2, 10000000, &o.update_n)) {
			n_set = true;
			++i;
		} else if (!strcmp(a, "--frames") && v && bench_parse_int(v, 1, 100000, &o.frames)) {
			frames_set = true;
			++i;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &o.reps)) {
			reps_set = true;
			++i;
		} else if (!strcmp(a, "--pile-frames") && v && bench_parse_int(v, 1, 100000, &pile_frames)) {
			++i;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "threads: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	if (max_workers == 0)
		max_workers = online > 2 ? (online < MAX_COUNTS ? (int)online : MAX_COUNTS) : 2;
	for (int k = 1; k <= max_workers; ++k)
		o.counts[o.nc++] = k;
	o.pile_n2 = SP_N2;
	o.pile_n3 = SP_N3;
	o.pile_frames = SP_FRAMES;
	o.batch_sizes[0] = 10000;
	o.batch_sizes[1] = 100000;
	o.nsizes = 2;
	o.poses = BATCH_POSES;
	o.path_poses = PATH_POSES;
	if (pile_frames > 0)
		o.pile_frames = pile_frames;
	if (o.smoke) {
		if (!n_set)
			o.update_n = SMOKE_UPDATE_N;
		if (!frames_set)
			o.frames = 1;
		o.warmup = 1;
		if (!reps_set)
			o.reps = 1;
		o.pile_n2 = o.pile_n3 = PILE_SMOKE_N;
		o.pile_frames = pile_frames > 0 ? pile_frames : PILE_SMOKE_FRAMES;
		o.batch_sizes[0] = SMOKE_BATCH_N;
		o.nsizes = 1;
		o.poses = SMOKE_BATCH_POSES;
		o.path_poses = SMOKE_PATH_POSES;
	}
	g_out[0] = stdout;
	if (out_path) {
		g_out[1] = fopen(out_path, "w");
		if (!g_out[1]) {
			fprintf(stderr, "threads: cannot write %s\n", out_path);
			return 2;
		}
	}
	print_header(&o, online);
	bool ok = true;
	if (contains("update", o.only)) {
		emit("\n## imp_world_update, narrow phase on\n\n");
		emit("bench/broad's 3D scenes (every box moved each frame; poses set outside the timing), the hash "
		     "broad phase; ms per update: median of %d frames after %d warm-up frames; touching pairs and "
		     "narrow calls: the last frame's (imp_world_get_stats); check: the %d frames (setup included).\n\n",
		     o.frames, o.warmup, o.frames + o.warmup + 1);
		emit("| scene | bodies | workers | ms/update | speedup | efficiency | touching pairs | narrow calls | check |\n");
		emit("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		ok &= run_update(&o, SB_PILE);
		ok &= run_update(&o, SB_UNIFORM);
	}
	if (contains("step", o.only)) {
		emit("\n## imp_world_step, bench/toi's piles\n\n");
		emit("Bodies dropped into a static box under gravity, bench/toi's impulse callback (sequential "
		     "impulses, restitution, push-out, warm start), %d frames of 1/60, the sweep broad phase; ms/step: median over the frames (each frame "
		     "a sample, all worker counts on the same frames); s total: the %d steps; contacts: over every "
		     "step; check: the %d steps' contacts and state hashes.\n\n",
		     o.pile_frames, o.pile_frames, o.pile_frames);
		emit("| pile | bodies | workers | ms/step | s total | speedup | efficiency | contacts | check |\n");
		emit("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		ok &= run_step(&o, 2);
		ok &= run_step(&o, 3);
	}
	if (contains("batch", o.only)) {
		emit("\n## Batch queries, bench/queries' 3D static worlds\n\n");
		emit("One call a batch of %d poses of bench/queries' query box (1.0 x 0.6 x 0.8): paths (%d straight "
		     "motions of %.0f units at %d poses each) or bench/queries' scattered poses; nearest with no "
		     "distance limit; ms/batch: median of %d batches; ns/query: that over the poses; check: the "
		     "warm-up batch and the %d timed ones.\n\n",
		     o.poses, o.poses / o.path_poses, PATH_LENGTH, o.path_poses, o.reps, o.reps);
		emit("| bodies | poses | query | batch size | workers | ms/batch | ns/query | speedup | efficiency | answers "
		     "(1 worker) | check |\n");
		emit("|---:|---|---|---:|---:|---:|---:|---:|---:|---|---|\n");
		for (int s = 0; s < o.nsizes; ++s)
			ok &= run_batches(&o, o.batch_sizes[s]);
	}
	if (g_out[1])
		fclose(g_out[1]);
	if (!ok)
		fprintf(stderr, "threads: FAILED: a run failed or a world differs from the 1-worker world\n");
	return ok ? 0 : 1;
}
