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
// (2) imp_world_step on the piles of bench/toi: toi.c's pile scene code is
//     static there, so a compact equivalent is written here: the same
//     bodies (the same seed, shapes, sizes, grid and walls, drawn in the
//     same order as toi.c's pile_make), gravity added before each step and
//     toi.c's impulse callback (restitution above an approach of 0.5, a
//     push-out of overlaps, warm starting from the impulse a pair took in
//     the frame before); the sweep broad phase, as bench/toi's pile rows. After every step the contact count,
//     a digest of the contacts (ids, times, distances, normals) and the
//     state hash must equal the 1-worker world's.
// (3) imp_world_overlap_any_batch3 and imp_world_nearest_batch3 (max
//     distance infinite) on the 3D static worlds of bench/queries (10,000
//     and 100,000 bodies, made as queries.c makes them, the same seeds),
//     the hash broad phase, one call a batch of 100,000 poses of its query
//     box: queries.c's scattered poses (the same ones), and paths as a
//     planner checks its edges: 100 straight motions of 5 units (the
//     rotation interpolated) at 1,000 poses each. The answers must be equal
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

#define PI 3.14159265358979323846
/// bench/broad's default seed (its scenes' seeds derive from it).
#define BROAD_SEED UINT64_C(0xb0ad2026)
/// bench/toi's default seed (its piles' seeds derive from it).
#define TOI_SEED UINT64_C(0x701c0de5)
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

// bench/toi's pile constants (toi.c, section (d)).
#define PILE_N2 500
#define PILE_N3 200
#define PILE_FRAMES 600
#define PILE_SMOKE_N 60
#define PILE_SMOKE_FRAMES 10
#define PILE_DT (1.0 / 60.0)
#define PILE_RESTITUTION 0.5
#define PILE_RESTITUTION_SPEED 0.5
#define PILE_GRAVITY 9.81
#define PILE_PUSH_BETA 0.2
#define PILE_SIZE_LO 0.2
#define PILE_SIZE_HI 0.4
#define PILE_PITCH 0.45
#define PILE_WALL 0.25
#define PILE_WARM_START 0.98
#define PILE_WARM_NORMAL 0.99

/// The dynamic bodies 0 .. n-1, then the 2 dim static walls.
typedef struct pile {
	int dim, n, count;
	imp_shape **shape;
	double *inv_mass;
	imp_pose2 *pose2;
	imp_pose3 *pose3;
} pile;

static void pile_free(pile *p)
{
	for (int i = 0; p->shape && i < p->count; ++i)
		imp_shape_destroy(p->shape[i]);
	free(p->shape);
	free(p->inv_mass);
	free(p->pose2);
	free(p->pose3);
	memset(p, 0, sizeof *p);
}

/// bench/toi's uniformly random rotation (Shoemake), normalised.
static imp_quat toi_random_quat(bench_rng *r)
{
	double u1 = bench_rng_unit(r), u2 = bench_rng_unit(r), u3 = bench_rng_unit(r);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	return imp_quat_normalize(imp_quat_make(a * sin(2.0 * PI * u2), a * cos(2.0 * PI * u2), b * sin(2.0 * PI * u3),
						b * cos(2.0 * PI * u3)));
}

/// Body i's shape and inverse mass (toi.c's pile_shape: kind i % 3; 2D
/// discs, boxes, polygons; 3D spheres, boxes, capsules).
static imp_status pile_shape(pile *p, int i, bench_rng *r)
{
	double reach = 0.5 * bench_rng_range(r, PILE_SIZE_LO, PILE_SIZE_HI), mass = 0.0;
	int kind = i % 3;
	imp_status st;
	if (p->dim == 2) {
		if (kind == 0) {
			st = imp_shape_circle(imp_vec2_make(0.0, 0.0), reach, &p->shape[i]);
			mass = PI * reach * reach;
		} else if (kind == 1) {
			double a = bench_rng_range(r, 0.3, 0.5 * PI - 0.3);
			double hx = reach * cos(a), hy = reach * sin(a);
			st = imp_shape_box2(hx, hy, 0.0, &p->shape[i]);
			mass = 4.0 * hx * hy;
		} else {
			imp_vec2 v[8];
			int m = 3 + (int)(bench_rng_next(r) % 6);
			for (int k = 0; k < m; ++k) {
				double a = 2.0 * PI * (k + bench_rng_range(r, -0.3, 0.3)) / m;
				v[k] = imp_vec2_make(reach * cos(a), reach * sin(a));
			}
			st = imp_shape_polygon(v, m, 0.0, &p->shape[i]);
			if (st == IMP_OK) {
				int h = imp_shape_vertices2(p->shape[i], v, 8);
				for (int k = 0; k < h; ++k)
					mass += 0.5 * imp_vec2_cross(v[k], v[(k + 1) % h]);
			}
		}
	} else {
		if (kind == 0) {
			st = imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), reach, &p->shape[i]);
			mass = 4.0 / 3.0 * PI * reach * reach * reach;
		} else if (kind == 1) {
			imp_vec3 h = {bench_rng_range(r, 0.4, 1.0), bench_rng_range(r, 0.4, 1.0), bench_rng_range(r, 0.4, 1.0)};
			h = imp_vec3_scale(reach / imp_vec3_length(h), h);
			st = imp_shape_box3(h.x, h.y, h.z, 0.0, &p->shape[i]);
			mass = 8.0 * h.x * h.y * h.z;
		} else {
			double rad = reach * bench_rng_range(r, 0.3, 0.6), half = reach - rad;
			st = imp_shape_capsule3(imp_vec3_make(-half, 0.0, 0.0), imp_vec3_make(half, 0.0, 0.0), rad, &p->shape[i]);
			mass = PI * rad * rad * 2.0 * half + 4.0 / 3.0 * PI * rad * rad * rad;
		}
	}
	p->inv_mass[i] = mass > 0.0 ? 1.0 / mass : 0.0;
	return st;
}

/// toi.c's pile_make: a grid of n bodies (random shapes, sizes and
/// rotations, none overlapping) in a closed container of static slabs.
static bool pile_make(pile *p, int dim, int n, uint64_t seed)
{
	memset(p, 0, sizeof *p);
	p->dim = dim;
	p->n = n;
	p->count = n + 2 * dim;
	p->shape = calloc((size_t)p->count, sizeof *p->shape);
	p->inv_mass = calloc((size_t)p->count, sizeof *p->inv_mass);
	p->pose2 = calloc((size_t)p->count, sizeof *p->pose2);
	p->pose3 = calloc((size_t)p->count, sizeof *p->pose3);
	if (!p->shape || !p->inv_mass || !p->pose2 || !p->pose3)
		return false;
	bench_rng r = {seed};
	int cols = dim == 2 ? (int)lround(sqrt(0.8 * n)) : (int)lround(cbrt(1.7 * n));
	cols = cols < 2 ? 2 : cols;
	int per_layer = dim == 2 ? cols : cols * cols, layers = (n + per_layer - 1) / per_layer;
	double layer_pitch = dim == 2 ? PILE_PITCH : 2.0 * PILE_PITCH, inside[3];
	inside[0] = cols * PILE_PITCH;
	inside[1] = 0.5 * PILE_PITCH + (layers - 1) * layer_pitch + 0.5 * PILE_PITCH + 1.0;
	inside[2] = dim == 3 ? cols * PILE_PITCH : 0.0;
	for (int i = 0; i < n; ++i) {
		if (pile_shape(p, i, &r) != IMP_OK)
			return false;
		int layer = i / per_layer, c = i % per_layer;
		double x = (c % cols + 0.5) * PILE_PITCH, y = 0.5 * PILE_PITCH + layer * layer_pitch;
		double z = dim == 3 ? (c / cols + 0.5) * PILE_PITCH : 0.0;
		x += bench_rng_range(&r, -0.02, 0.02);
		z += dim == 3 ? bench_rng_range(&r, -0.02, 0.02) : 0.0;
		if (dim == 2)
			p->pose2[i] = imp_pose2_make(x, y, bench_rng_range(&r, -PI, PI));
		else
			p->pose3[i] = (imp_pose3){{x, y, z}, toi_random_quat(&r)};
	}
	for (int a = 0; a < dim; ++a)
		for (int side = 0; side < 2; ++side) {
			int i = n + 2 * a + side;
			double h[3] = {0.0, 0.0, 0.0}, c[3] = {0.0, 0.0, 0.0};
			for (int b = 0; b < dim; ++b) {
				h[b] = b == a ? 0.5 * PILE_WALL : 0.5 * inside[b] + PILE_WALL;
				c[b] = b == a ? (side ? inside[b] + 0.5 * PILE_WALL : -0.5 * PILE_WALL) : 0.5 * inside[b];
			}
			imp_status st = dim == 2 ? imp_shape_box2(h[0], h[1], 0.0, &p->shape[i])
						 : imp_shape_box3(h[0], h[1], h[2], 0.0, &p->shape[i]);
			p->pose2[i] = imp_pose2_make(c[0], c[1], 0.0);
			p->pose3[i] = (imp_pose3){{c[0], c[1], c[2]}, imp_quat_identity()};
			if (st != IMP_OK)
				return false;
		}
	return true;
}

/// What the callback remembers of a pair (toi.c's pile_memory): the
/// impulse it took in the frame it was last reported in.
typedef struct pile_memory {
	uint64_t key; ///< a.index << 32 | b.index (0: an empty slot)
	long frame;
	double impulse;
	imp_vec3 normal;
} pile_memory;

/// A world holding a pile.
typedef struct pile_sim {
	const pile *p;
	imp_world *w;
	imp_body_id *ids;
	int *body_of; ///< id index - 1 -> body
	int slots;
	long frame;   ///< the frame being stepped, from 1
	pile_memory *memory; ///< open addressing, memory_size slots (a power of two)
	size_t memory_size, memory_used;
	imp_status bad; ///< the first error inside the callback
} pile_sim;

static void pile_sim_destroy(pile_sim *s)
{
	imp_world_destroy(s->w);
	free(s->ids);
	free(s->body_of);
	free(s->memory);
	memset(s, 0, sizeof *s);
}

static pile_memory *pile_memory_slot(pile_memory *table, size_t size, uint64_t key)
{
	for (size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32);; ++h) {
		pile_memory *m = &table[h & (size - 1)];
		if (m->key == key || m->key == 0)
			return m;
	}
}

/// The pair's memory, made on first use (frame -1). A table three quarters
/// full is remade with the pairs reported in this frame or the last only
/// (toi.c's pile_remembered), twice as large when they fill half of it.
static pile_memory *pile_remembered(pile_sim *s, imp_body_id a, imp_body_id b)
{
	uint64_t key = (uint64_t)a.index << 32 | b.index;
	pile_memory *m = pile_memory_slot(s->memory, s->memory_size, key);
	if (m->key == key)
		return m;
	if (4 * (s->memory_used + 1) > 3 * s->memory_size) {
		size_t live = 0;
		for (size_t i = 0; i < s->memory_size; ++i)
			live += s->memory[i].key != 0 && s->memory[i].frame >= s->frame - 1;
		size_t size = 2 * live > s->memory_size ? 2 * s->memory_size : s->memory_size;
		pile_memory *table = calloc(size, sizeof *table);
		if (!table)
			return NULL;
		for (size_t i = 0; i < s->memory_size; ++i)
			if (s->memory[i].key != 0 && s->memory[i].frame >= s->frame - 1)
				*pile_memory_slot(table, size, s->memory[i].key) = s->memory[i];
		free(s->memory);
		s->memory = table;
		s->memory_size = size;
		s->memory_used = live;
		m = pile_memory_slot(table, size, key);
	}
	s->memory_used++;
	*m = (pile_memory){key, -1, 0.0, {0.0, 0.0, 0.0}};
	return m;
}

static bool pile_sim_create(pile_sim *s, const pile *p, int workers)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	imp_world_def def = imp_default_world_def();
	def.dim = p->dim;
	def.broad_phase = IMP_BROAD_SWEEP;
	def.body_capacity = p->count;
	def.worker_count = workers;
	imp_status st = imp_world_create(&def, &s->w);
	s->ids = calloc((size_t)p->count, sizeof *s->ids);
	for (s->memory_size = 64; s->memory_size < 8 * (size_t)p->count;)
		s->memory_size *= 2;
	s->memory = calloc(s->memory_size, sizeof *s->memory);
	if (st != IMP_OK || !s->ids || !s->memory)
		return false;
	for (int i = 0; i < p->count; ++i) {
		imp_body_def bd = imp_default_body_def();
		bd.type = i < p->n ? IMP_BODY_DYNAMIC : IMP_BODY_STATIC;
		bd.shape = p->shape[i];
		bd.pose2 = p->pose2[i];
		bd.pose3 = p->pose3[i];
		if (imp_world_add_body(s->w, &bd, &s->ids[i]) != IMP_OK)
			return false;
		if ((int)s->ids[i].index > s->slots)
			s->slots = (int)s->ids[i].index;
	}
	s->body_of = malloc(sizeof *s->body_of * (size_t)(s->slots + 1));
	if (!s->body_of)
		return false;
	for (int k = 0; k <= s->slots; ++k)
		s->body_of[k] = -1;
	for (int i = 0; i < p->count; ++i)
		s->body_of[s->ids[i].index - 1] = i;
	return true;
}

static imp_vec3 pile_velocity(pile_sim *s, int i)
{
	imp_vec3 v = {0.0, 0.0, 0.0};
	imp_status st;
	if (s->p->dim == 2) {
		imp_vec2 v2 = {0.0, 0.0};
		st = imp_body_get_velocity2(s->w, s->ids[i], &v2, NULL);
		v = imp_vec3_make(v2.x, v2.y, 0.0);
	} else {
		st = imp_body_get_velocity3(s->w, s->ids[i], &v, NULL);
	}
	if (st != IMP_OK && s->bad == IMP_OK)
		s->bad = st;
	return v;
}

static void pile_set_velocity(pile_sim *s, int i, imp_vec3 v)
{
	if (i >= s->p->n)
		return;
	imp_status st = s->p->dim == 2 ? imp_body_set_velocity2(s->w, s->ids[i], imp_vec2_make(v.x, v.y), 0.0)
				       : imp_body_set_velocity3(s->w, s->ids[i], v, imp_vec3_make(0.0, 0.0, 0.0));
	if (st != IMP_OK && s->bad == IMP_OK)
		s->bad = st;
}

static int pile_body_of(const pile_sim *s, imp_body_id id)
{
	return id.index == 0 || (int)id.index > s->slots ? -1 : s->body_of[id.index - 1];
}

/// toi.c's pile_contact: on the pair's first report in the frame, when it
/// was reported in the last one with nearly the same normal and approaches
/// slowly, it first takes PILE_WARM_START x the impulse it took then; then
/// the approach is raised to max(bounce, push-out) by an impulse along the
/// normal.
static void pile_on_contact(const imp_contact_event *e, void *user)
{
	pile_sim *s = user;
	const pile *p = s->p;
	int a = pile_body_of(s, e->a), b = pile_body_of(s, e->b);
	if (a < 0 || b < 0) {
		s->bad = IMP_ERR_BAD_ID;
		return;
	}
	double k = p->inv_mass[a] + p->inv_mass[b], vn = e->normal_speed, j = 0.0;
	if (!(k > 0.0))
		return;
	pile_memory *m = pile_remembered(s, e->a, e->b);
	if (!m) {
		s->bad = IMP_ERR_OUT_OF_MEMORY;
		return;
	}
	if (m->frame != s->frame) {
		bool resting = m->frame == s->frame - 1 && vn > -PILE_RESTITUTION_SPEED &&
			       imp_vec3_dot(m->normal, e->normal) > PILE_WARM_NORMAL;
		j = resting ? PILE_WARM_START * m->impulse : 0.0;
		m->frame = s->frame;
		m->normal = e->normal;
		m->impulse = j;
		vn += j * k;
	}
	double push = PILE_PUSH_BETA * fmax(0.0, -e->distance) / PILE_DT;
	double target = fmax(vn < -PILE_RESTITUTION_SPEED ? -PILE_RESTITUTION * vn : 0.0, push);
	if (vn < target) {
		m->impulse += (target - vn) / k;
		j += (target - vn) / k;
	}
	if (j == 0.0)
		return;
	imp_vec3 va = pile_velocity(s, a), vb = pile_velocity(s, b);
	pile_set_velocity(s, a, imp_vec3_sub(va, imp_vec3_scale(j * p->inv_mass[a], e->normal)));
	pile_set_velocity(s, b, imp_vec3_add(vb, imp_vec3_scale(j * p->inv_mass[b], e->normal)));
}

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
	pile p;
	pile_sim sim[MAX_COUNTS];
	memset(sim, 0, sizeof sim);
	double *samples = calloc((size_t)nc * (size_t)frames, sizeof *samples);
	bool ok = samples != NULL && pile_make(&p, dim, n, TOI_SEED ^ (UINT64_C(0x9113) * (uint64_t)dim) ^ (uint64_t)n);
	for (int k = 0; ok && k < nc; ++k)
		ok = pile_sim_create(&sim[k], &p, o->counts[k]);
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
			pile_sim *s = &sim[k];
			for (int i = 0; i < p.n; ++i) {
				imp_vec3 v = pile_velocity(s, i);
				v.y -= PILE_GRAVITY * PILE_DT;
				pile_set_velocity(s, i, v);
			}
			imp_step_opts opts = imp_default_step_opts();
			opts.on_contact = pile_on_contact;
			opts.user = s;
			s->frame++;
			double t0 = bench_now_ns();
			imp_status st = imp_world_step(s->w, PILE_DT, &opts);
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
		pile_sim_destroy(&sim[k]);
	pile_free(&p);
	free(samples);
	if (!same)
		fprintf(stderr, "threads: WARNING: step, %dD pile: a world's contacts or state differ from the 1-worker "
				"world's\n",
			dim);
	return ok && same;
}

// ---- (3) the batch queries: bench/queries' static worlds ------------------------------

/// One body of bench/queries' scenes (queries.c's body_spec).
typedef struct qbody {
	int kind; ///< 0 box, 1 sphere, 2 capsule along local z
	double half[3];
	double radius;
	imp_pose3 pose;
} qbody;

/// queries.c's random_quat (not normalised: the same bits).
static imp_quat queries_random_quat(bench_rng *r)
{
	double u1 = bench_rng_unit(r), u2 = 2 * PI * bench_rng_unit(r), u3 = 2 * PI * bench_rng_unit(r);
	double a = sqrt(1 - u1), b = sqrt(u1);
	return (imp_quat){a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
}

static imp_pose3 queries_random_pose(bench_rng *r, double side)
{
	double x = bench_rng_range(r, 0, side), y = bench_rng_range(r, 0, side), z = bench_rng_range(r, 0, side);
	return (imp_pose3){imp_vec3_make(x, y, z), queries_random_quat(r)};
}

/// A 3D scene of queries.c (scene_make, dim 3): n bodies and nq scattered
/// query poses, drawn in the same order (the cast ends too, thrown away).
typedef struct qscene {
	int n, nq;
	double side;
	imp_shape **shapes;
	imp_pose3 *bodies;
	imp_pose3 *scattered;
	imp_pose3 *path;
	imp_shape *probe;
} qscene;

static void qscene_free(qscene *sc)
{
	for (int i = 0; sc->shapes && i < sc->n; ++i)
		imp_shape_destroy(sc->shapes[i]);
	imp_shape_destroy(sc->probe);
	free(sc->shapes);
	free(sc->bodies);
	free(sc->scattered);
	free(sc->path);
	memset(sc, 0, sizeof *sc);
}

static bool qscene_make(qscene *sc, int n, int nq, int path_poses)
{
	memset(sc, 0, sizeof *sc);
	sc->n = n;
	sc->nq = nq;
	sc->side = 2.0 * pow((double)n, 1.0 / 3);
	sc->shapes = calloc((size_t)n, sizeof *sc->shapes);
	sc->bodies = calloc((size_t)n, sizeof *sc->bodies);
	sc->scattered = calloc((size_t)nq, sizeof *sc->scattered);
	sc->path = calloc((size_t)nq, sizeof *sc->path);
	if (!sc->shapes || !sc->bodies || !sc->scattered || !sc->path)
		return false;
	bench_rng r = {UINT64_C(0x51E7) + (uint64_t)n * 7 + 3};
	for (int i = 0; i < n; i++) {
		qbody b;
		b.kind = (int)(bench_rng_unit(&r) * 3);
		for (int k = 0; k < 3; k++)
			b.half[k] = bench_rng_range(&r, 0.2, 0.6);
		b.radius = bench_rng_range(&r, 0.2, 0.5);
		sc->bodies[i] = queries_random_pose(&r, sc->side);
		imp_status st = b.kind == 0   ? imp_shape_box3(b.half[0], b.half[1], b.half[2], 0.0, &sc->shapes[i])
				: b.kind == 1 ? imp_shape_sphere(imp_vec3_make(0, 0, 0), b.radius, &sc->shapes[i])
					      : imp_shape_capsule3(imp_vec3_make(0, 0, -b.half[2]),
								   imp_vec3_make(0, 0, b.half[2]), b.radius, &sc->shapes[i]);
		if (st != IMP_OK)
			return false;
	}
	if (imp_shape_box3(0.5, 0.3, 0.4, 0.0, &sc->probe) != IMP_OK)
		return false;
	for (int i = 0; i < nq; i++) {
		sc->scattered[i] = queries_random_pose(&r, sc->side);
		(void)queries_random_quat(&r); // queries.c: the cast's direction
	}
	// Paths: straight motions of PATH_LENGTH from a random pose, turning
	// to another random rotation (normalised linear interpolation, the
	// shorter way), at path_poses poses each: a planner checking its edges
	// state by state.
	bench_rng pr = {UINT64_C(0x9a7b5) + (uint64_t)n};
	for (int i = 0; i < nq; i += path_poses) {
		imp_pose3 a = queries_random_pose(&pr, sc->side);
		imp_quat qb = imp_quat_normalize(queries_random_quat(&pr));
		imp_quat qa = imp_quat_normalize(a.q);
		if (qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w < 0.0)
			qb = imp_quat_scale(-1.0, qb);
		double z = bench_rng_range(&pr, -1.0, 1.0), phi = bench_rng_range(&pr, 0.0, 2.0 * PI);
		double rho = sqrt(fmax(0.0, 1.0 - z * z));
		imp_vec3 d = imp_vec3_make(PATH_LENGTH * rho * cos(phi), PATH_LENGTH * rho * sin(phi), PATH_LENGTH * z);
		int m = nq - i < path_poses ? nq - i : path_poses;
		for (int k = 0; k < m; ++k) {
			double t = m > 1 ? (double)k / (m - 1) : 0.0;
			imp_quat q = imp_quat_make(qa.x + t * (qb.x - qa.x), qa.y + t * (qb.y - qa.y),
						   qa.z + t * (qb.z - qa.z), qa.w + t * (qb.w - qa.w));
			sc->path[i + k] = (imp_pose3){imp_vec3_add(a.p, imp_vec3_scale(t, d)), imp_quat_normalize(q)};
		}
	}
	return true;
}

/// queries.c's world_make (dim 3, the hash), on `workers` workers.
static imp_world *query_world(const qscene *sc, int workers)
{
	imp_world_def def = imp_default_world_def();
	def.dim = 3;
	def.broad_phase = IMP_BROAD_HASH;
	def.worker_count = workers;
	imp_world *w = NULL;
	if (imp_world_create(&def, &w) != IMP_OK)
		return NULL;
	for (int i = 0; i < sc->n; i++) {
		imp_body_def bd = imp_default_body_def();
		bd.type = IMP_BODY_STATIC;
		bd.shape = sc->shapes[i];
		bd.pose3 = sc->bodies[i];
		imp_body_id id;
		if (imp_world_add_body(w, &bd, &id) != IMP_OK) {
			imp_world_destroy(w);
			return NULL;
		}
	}
	if (imp_world_update(w) != IMP_OK) {
		imp_world_destroy(w);
		return NULL;
	}
	return w;
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
		UPDATE_N, UPDATE_FRAMES, UPDATE_WARMUP, BATCH_REPS, PILE_FRAMES);
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
	o.pile_n2 = PILE_N2;
	o.pile_n3 = PILE_N3;
	o.pile_frames = PILE_FRAMES;
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
