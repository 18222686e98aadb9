// SPDX-License-Identifier: MIT
// bench/broad: impact's world (its broad phases, and with the narrow phase)
// against the broad phases of Box2D, Chipmunk2D, Bullet and FCL, on the
// moving boxes of scene_broad.c (2D and 3D; uniform sizes, mixed sizes, a
// pile, teleports; 1,000 to 100,000 boxes, about 3 overlaps per box). Every frame every
// box moves; a method is given every box's new pose or box, updates, and
// walks all its pairs, counting those whose exact boxes overlap. Prints a
// Markdown table per scene: median ms per frame, the pairs per frame
// (checked against a sort-and-sweep count of every frame), and the ratio to
// the fastest peer.
#define _GNU_SOURCE // mallinfo2, for the peers' heap bytes

#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "peers_broad.h"
#include "scene_broad.h"

#define DEFAULT_SEED 0xb0ad2026u
#define DEFAULT_REPS 1
#define WARMUP_FRAMES 3
#define SMOKE_COUNT 200
#define SMOKE_FRAMES 2
#define SMOKE_WARMUP 1
/// The naive broad phase is O(N^2): only up to this many boxes.
#define NAIVE_MAX 1000
/// btAxisSweep3's set-up is O(N^2): only up to this many boxes.
#define SAP_MAX 20000
/// A method whose warm-up frames take longer than this (median) is not
/// timed further: its warm-up frames are reported.
#define SLOW_FRAME_NS 2e9
/// A method's timed frames are cut so that they take about this long at
/// most (but 3 frames at least).
#define METHOD_BUDGET_NS 30e9

static const int k_default_counts[] = {1000, 10000, 100000};

typedef enum method {
	M_IMP_HASH,
	M_IMP_SWEEP,
	M_IMP_NAIVE,
	M_BOX2D,
	M_CP_BBTREE,
	M_CP_HASH,
	M_BT_DBVT,
	M_BT_SAP,
	M_FCL_TREE,
	M_FCL_HASH,
	M_IMP_HASH_NARROW,
	M_IMP_SWEEP_NARROW,
	M_IMP_NAIVE_NARROW,
	M_COUNT
} method;

typedef enum family { F_IMPACT, F_BOX2D, F_CHIPMUNK, F_BULLET, F_FCL } family;

typedef struct method_info {
	const char *name;
	family fam;
	int dims;    ///< bit 2: 2D, bit 3: 3D
	int variant; ///< impact: the imp_broad_kind; peers: their method
	bool narrow; ///< impact: the narrow phase on
	bool built;  ///< false: the peer was not found at build time
} method_info;

/// Methods whose cost grows as N^2 run up to a size only (--no-limits
/// lifts it): the naive broad phase (every pair, every frame), and
/// btAxisSweep3, whose proxies are added one at a time, each sorted in from
/// the end of every axis (2 s to set up 10,000 boxes, 457 s for 100,000).
static int max_count(int m);

enum { D2 = 1 << 2, D3 = 1 << 3 };

static const method_info k_methods[M_COUNT] = {
	[M_IMP_HASH] = {"impact hash", F_IMPACT, D2 | D3, IMP_BROAD_HASH, false, true},
	[M_IMP_SWEEP] = {"impact sweep", F_IMPACT, D2 | D3, IMP_BROAD_SWEEP, false, true},
	[M_IMP_NAIVE] = {"impact naive", F_IMPACT, D2 | D3, IMP_BROAD_NAIVE, false, true},
	[M_IMP_HASH_NARROW] = {"impact hash + narrow", F_IMPACT, D2 | D3, IMP_BROAD_HASH, true, true},
	[M_IMP_SWEEP_NARROW] = {"impact sweep + narrow", F_IMPACT, D2 | D3, IMP_BROAD_SWEEP, true, true},
	[M_IMP_NAIVE_NARROW] = {"impact naive + narrow", F_IMPACT, D2 | D3, IMP_BROAD_NAIVE, true, true},
#ifdef HAVE_BOX2D
	[M_BOX2D] = {"Box2D b2BroadPhase", F_BOX2D, D2, 0, false, true},
#else
	[M_BOX2D] = {"Box2D b2BroadPhase", F_BOX2D, D2, 0, false, false},
#endif
#ifdef HAVE_CHIPMUNK
	[M_CP_BBTREE] = {"Chipmunk cpBBTree", F_CHIPMUNK, D2, CPBP_BBTREE, false, true},
	[M_CP_HASH] = {"Chipmunk cpSpaceHash", F_CHIPMUNK, D2, CPBP_SPACE_HASH, false, true},
#else
	[M_CP_BBTREE] = {"Chipmunk cpBBTree", F_CHIPMUNK, D2, 0, false, false},
	[M_CP_HASH] = {"Chipmunk cpSpaceHash", F_CHIPMUNK, D2, 1, false, false},
#endif
#ifdef HAVE_BULLET
	[M_BT_DBVT] = {"Bullet btDbvtBroadphase", F_BULLET, D3, BTBP_DBVT, false, true},
	[M_BT_SAP] = {"Bullet btAxisSweep3", F_BULLET, D3, BTBP_SAP, false, true},
#else
	[M_BT_DBVT] = {"Bullet btDbvtBroadphase", F_BULLET, D3, 0, false, false},
	[M_BT_SAP] = {"Bullet btAxisSweep3", F_BULLET, D3, 1, false, false},
#endif
#ifdef HAVE_FCL
	[M_FCL_TREE] = {"FCL DynamicAABBTree", F_FCL, D3, FCLBP_DYNAMIC_TREE, false, true},
	[M_FCL_HASH] = {"FCL SpatialHashing", F_FCL, D3, FCLBP_SPATIAL_HASH, false, true},
#else
	[M_FCL_TREE] = {"FCL DynamicAABBTree", F_FCL, D3, 0, false, false},
	[M_FCL_HASH] = {"FCL SpatialHashing", F_FCL, D3, 1, false, false},
#endif
};

static int max_count(int m)
{
	if (m == M_IMP_NAIVE || m == M_IMP_NAIVE_NARROW)
		return NAIVE_MAX;
	if (m == M_BT_SAP)
		return SAP_MAX;
	return 0;
}

// ---- impact ------------------------------------------------------------------

/// A world holding the scene's boxes.
typedef struct imp_run {
	const sb_scene *scene;
	imp_world *world;
	imp_body_id *ids;
	imp_pose2 *p2;    ///< the frame's poses, for imp_world_set_poses2/3
	imp_pose3 *p3;
	int *box_of_slot; ///< body id index - 1 -> box
	int slots;
	bool failed;      ///< a call returned an error
} imp_run;

static bool count_pair(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	++*(long *)user;
	return true;
}

typedef struct verify_data {
	const imp_run *run;
	long false_pairs; ///< reported, but the exact boxes do not overlap
	long bad_ids;
} verify_data;

static bool verify_pair(imp_body_id a, imp_body_id b, void *user)
{
	verify_data *d = user;
	const imp_run *r = d->run;
	if (a.index == 0 || b.index == 0 || (int)a.index > r->slots || (int)b.index > r->slots) {
		d->bad_ids++;
		return true;
	}
	int i = r->box_of_slot[a.index - 1], j = r->box_of_slot[b.index - 1];
	if (i < 0 || j < 0)
		d->bad_ids++;
	else if (!sb_overlap(r->scene, i, j))
		d->false_pairs++;
	return true;
}

static void imp_run_destroy(imp_run *r)
{
	if (!r)
		return;
	imp_world_destroy(r->world);
	free(r->ids);
	free(r->p2);
	free(r->p3);
	free(r->box_of_slot);
	free(r);
}

static imp_status set_pose(imp_run *r, int i)
{
	const double *c = r->scene->center + 3 * i;
	if (r->scene->dim == 2) {
		imp_pose2 p = {{c[0], c[1]}, {1.0, 0.0}};
		return imp_body_set_pose2(r->world, r->ids[i], p);
	}
	imp_pose3 p = {{c[0], c[1], c[2]}, {0.0, 0.0, 0.0, 1.0}};
	return imp_body_set_pose3(r->world, r->ids[i], p);
}

/// --fat: impact's fat_ratio, or negative for the default.
static double g_fat_ratio = -1.0;

/// The bytes an impact world holds: live now and at most, counted by its
/// allocator (the sizes the library gives; malloc's own headers not
/// counted).
typedef struct byte_count {
	size_t live, peak;
} byte_count;

static void count_bytes(byte_count *c, size_t add, size_t sub)
{
	c->live = c->live + add - sub;
	if (c->live > c->peak)
		c->peak = c->live;
}

static void *counted_alloc(size_t size, void *user)
{
	void *p = malloc(size);
	if (p != NULL)
		count_bytes(user, size, 0);
	return p;
}

static void *counted_realloc(void *ptr, size_t old_size, size_t new_size, void *user)
{
	void *p = realloc(ptr, new_size);
	if (p != NULL)
		count_bytes(user, new_size, old_size);
	return p;
}

static void counted_free(void *ptr, size_t size, void *user)
{
	if (ptr != NULL)
		count_bytes(user, 0, size);
	free(ptr);
}

/// When set, the worlds imp_run_create makes count their bytes here.
static byte_count *g_bytes = NULL;

static imp_run *imp_run_create(const sb_scene *s, imp_shape *const *shapes, const method_info *mi)
{
	imp_run *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->scene = s;
	r->ids = calloc((size_t)s->count, sizeof *r->ids);
	r->p2 = calloc((size_t)s->count + 1, sizeof *r->p2);
	r->p3 = calloc((size_t)s->count + 1, sizeof *r->p3);
	if (!r->ids || !r->p2 || !r->p3) {
		imp_run_destroy(r);
		return NULL;
	}
	imp_world_def def = imp_default_world_def();
	def.dim = s->dim;
	def.broad_phase = (imp_broad_kind)mi->variant;
	def.narrow_phase = mi->narrow;
	if (g_fat_ratio >= 0.0)
		def.fat_ratio = g_fat_ratio;
	if (g_bytes != NULL)
		def.allocator = (imp_allocator){counted_alloc, counted_realloc, counted_free, g_bytes};
	imp_status st = imp_world_create(&def, &r->world);
	if (st != IMP_OK) {
		fprintf(stderr, "broad: imp_world_create: %s\n", imp_status_string(st));
		imp_run_destroy(r);
		return NULL;
	}
	for (int i = 0; i < s->count; ++i) {
		imp_body_def bd = imp_default_body_def();
		bd.shape = shapes[i];
		const double *c = s->center + 3 * i;
		bd.pose2 = (imp_pose2){{c[0], c[1]}, {1.0, 0.0}};
		bd.pose3 = (imp_pose3){{c[0], c[1], c[2]}, {0.0, 0.0, 0.0, 1.0}};
		st = imp_world_add_body(r->world, &bd, &r->ids[i]);
		if (st != IMP_OK) {
			fprintf(stderr, "broad: imp_world_add_body: %s\n", imp_status_string(st));
			imp_run_destroy(r);
			return NULL;
		}
		if ((int)r->ids[i].index > r->slots)
			r->slots = (int)r->ids[i].index;
	}
	r->box_of_slot = malloc(sizeof *r->box_of_slot * (size_t)(r->slots > 0 ? r->slots : 1));
	if (!r->box_of_slot) {
		imp_run_destroy(r);
		return NULL;
	}
	for (int k = 0; k < r->slots; ++k)
		r->box_of_slot[k] = -1;
	for (int i = 0; i < s->count; ++i)
		if (r->ids[i].index > 0)
			r->box_of_slot[r->ids[i].index - 1] = i;
	return r;
}

/// --single-poses: one imp_body_set_pose2/3 call per body instead of the
/// frame's one imp_world_set_poses2/3.
static bool g_single_poses = false;

/// Every body's pose: the scene's centres written as poses (the user's own
/// array), then given in one call.
static imp_status set_all_poses(imp_run *r)
{
	int n = r->scene->count;
	if (g_single_poses) {
		imp_status bad = IMP_OK;
		for (int i = 0; i < n; ++i) {
			imp_status st = set_pose(r, i);
			if (st != IMP_OK)
				bad = st;
		}
		return bad;
	}
	const double *c = r->scene->center;
	if (r->scene->dim == 2) {
		for (int i = 0; i < n; ++i)
			r->p2[i] = (imp_pose2){{c[3 * i], c[3 * i + 1]}, {1.0, 0.0}};
		return imp_world_set_poses2(r->world, r->ids, r->p2, n);
	}
	for (int i = 0; i < n; ++i)
		r->p3[i] = (imp_pose3){{c[3 * i], c[3 * i + 1], c[3 * i + 2]}, {0.0, 0.0, 0.0, 1.0}};
	return imp_world_set_poses3(r->world, r->ids, r->p3, n);
}

/// One frame: every body's pose, the update, a walk counting the pairs.
static long imp_run_frame(imp_run *r)
{
	imp_status bad = set_all_poses(r);
	imp_status st = imp_world_update(r->world);
	if (st != IMP_OK)
		bad = st;
	long count = 0;
	st = imp_world_for_each_pair(r->world, count_pair, &count);
	if (st != IMP_OK)
		bad = st;
	if (bad != IMP_OK && !r->failed) {
		fprintf(stderr, "broad: impact returned %s\n", imp_status_string(bad));
		r->failed = true;
	}
	return count;
}

// ---- the first update of a large world ------------------------------------------

/// The first-update rows: N boxes of the 3D uniform scene added to an empty
/// world, then its first imp_world_update (in which the broad phase takes
/// them all in). 1M outside --smoke only.
static const int k_first_counts[] = {100000, 1000000};
#define FIRST_REPS 3

static double cpu_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

typedef struct first_result {
	bool ran, failed;
	double add_ms, update_ms, update_cpu_ms; ///< medians over the repetitions
	size_t bytes, peak_bytes; ///< the world's, after its first update and at most until then
	size_t heap; ///< the heap's growth from before the world was made to after its first update (malloc's own)
	long pairs;                               ///< after the first update
	bool ok;                                  ///< pairs equal the reference
} first_result;

/// The bytes glibc's heap holds for the program: its small blocks and its
/// mapped large ones, with malloc's headers and rounding. The same measure
/// for impact and for the peers, which have no allocator hook in common.
static size_t heap_bytes(void)
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

/// The growth of heap_bytes() from `before` (0 when it shrank).
static size_t heap_growth(size_t before)
{
	size_t now = heap_bytes();
	return now > before ? now - before : 0;
}

/// A first update's times, one per repetition (at most 16).
typedef struct first_samples {
	double add[16], upd[16], cpu[16];
} first_samples;

/// Repetition `rep`'s sample: wall times t[0] (before making), t[1] (made),
/// t[2] (after the first update), CPU times c[0], c[1] around the update.
static void first_sample(first_result *fr, first_samples *x, int rep, const double t[3], const double c[2],
			 long count, long ref)
{
	x->add[rep] = (t[1] - t[0]) * 1e-6;
	x->upd[rep] = (t[2] - t[1]) * 1e-6;
	x->cpu[rep] = (c[1] - c[0]) * 1e-6;
	fr->pairs = count;
	fr->ok &= count == ref;
}

/// The medians of `reps` samples (bench_median sorts them).
static void first_finish(first_result *fr, first_samples *x, int reps)
{
	int n = reps < 16 ? reps : 16;
	fr->add_ms = bench_median(x->add, n);
	fr->update_ms = bench_median(x->upd, n);
	fr->update_cpu_ms = bench_median(x->cpu, n);
}

/// One method's first update at s->count boxes, `reps` times.
static void run_first(first_result *fr, const sb_scene *s, imp_shape *const *shapes, method m, int reps, long ref)
{
	first_samples x;
	memset(fr, 0, sizeof *fr);
	fr->ran = true;
	fr->ok = true;
	for (int rep = 0; rep < reps && rep < 16; ++rep) {
		byte_count bytes = {0, 0};
		g_bytes = &bytes;
		size_t heap0 = heap_bytes();
		double t0 = bench_now_ns();
		imp_run *r = imp_run_create(s, shapes, &k_methods[m]);
		g_bytes = NULL;
		if (r == NULL) {
			fr->failed = true;
			return;
		}
		double t1 = bench_now_ns(), c1 = cpu_now_ns();
		imp_status st = imp_world_update(r->world);
		double t2 = bench_now_ns(), c2 = cpu_now_ns();
		fr->bytes = bytes.live;
		fr->peak_bytes = bytes.peak;
		fr->heap = heap_growth(heap0);
		long count = 0;
		if (st == IMP_OK)
			st = imp_world_for_each_pair(r->world, count_pair, &count);
		imp_run_destroy(r);
		if (st != IMP_OK) {
			fprintf(stderr, "broad: first update: %s\n", imp_status_string(st));
			fr->failed = true;
			return;
		}
		first_sample(fr, &x, rep, (double[3]){t0, t1, t2}, (double[2]){c1, c2}, count, ref);
	}
	first_finish(fr, &x, reps);
}

// ---- methods -----------------------------------------------------------------

typedef struct runner {
	method m;
	void *state;
} runner;

static bool method_applies(method m, const sb_scene *s)
{
	return (k_methods[m].dims & (1 << s->dim)) != 0;
}

static bool runner_create(runner *r, method m, const sb_scene *s, imp_shape *const *shapes)
{
	const method_info *mi = &k_methods[m];
	r->m = m;
	r->state = NULL;
	switch (mi->fam) {
	case F_IMPACT:
		r->state = imp_run_create(s, shapes, mi);
		break;
#ifdef HAVE_BOX2D
	case F_BOX2D:
		r->state = b2bp_create(s);
		break;
#endif
#ifdef HAVE_CHIPMUNK
	case F_CHIPMUNK:
		r->state = cpbp_create(s, (cpbp_method)mi->variant);
		break;
#endif
#ifdef HAVE_BULLET
	case F_BULLET:
		r->state = btbp_create(s, (btbp_method)mi->variant);
		break;
#endif
#ifdef HAVE_FCL
	case F_FCL:
		r->state = fclbp_create(s, (fclbp_method)mi->variant);
		break;
#endif
	default:
		break;
	}
	return r->state != NULL;
}

static long runner_frame(runner *r)
{
	switch (k_methods[r->m].fam) {
	case F_IMPACT:
		return imp_run_frame(r->state);
#ifdef HAVE_BOX2D
	case F_BOX2D:
		return b2bp_frame(r->state);
#endif
#ifdef HAVE_CHIPMUNK
	case F_CHIPMUNK:
		return cpbp_frame(r->state);
#endif
#ifdef HAVE_BULLET
	case F_BULLET:
		return btbp_frame(r->state);
#endif
#ifdef HAVE_FCL
	case F_FCL:
		return fclbp_frame(r->state);
#endif
	default:
		return -1;
	}
}

static void runner_destroy(runner *r)
{
	switch (k_methods[r->m].fam) {
	case F_IMPACT:
		imp_run_destroy(r->state);
		break;
#ifdef HAVE_BOX2D
	case F_BOX2D:
		b2bp_destroy(r->state);
		break;
#endif
#ifdef HAVE_CHIPMUNK
	case F_CHIPMUNK:
		cpbp_destroy(r->state);
		break;
#endif
#ifdef HAVE_BULLET
	case F_BULLET:
		btbp_destroy(r->state);
		break;
#endif
#ifdef HAVE_FCL
	case F_FCL:
		fclbp_destroy(r->state);
		break;
#endif
	default:
		break;
	}
	r->state = NULL;
}

// ---- one scene -----------------------------------------------------------------

/// What a method measured in a scene.
typedef struct method_result {
	bool ran;
	bool failed;       ///< could not be made, or impact returned an error
	bool slow;         ///< stopped after its warm-up frames
	bool too_big;      ///< not run: N above the method's limit
	double ms;         ///< median ms per frame (timed frames; the warm-up ones when slow)
	double setup_ms;   ///< median over repetitions: made, boxes added, first frame
	double pairs;      ///< mean pairs per frame over the frames reported
	int frames;        ///< timed frames per repetition (0 when slow)
	int off_frames;    ///< frames whose count differs from the reference
	long max_off;      ///< the largest |count - reference|
	long false_pairs;  ///< impact: reported pairs whose boxes do not overlap
	imp_world_stats stats; ///< impact: of the last frame
} method_result;

typedef struct scene_result {
	int dim;
	sb_kind kind;
	int count;
	uint64_t seed;
	double side[3];   ///< the world's sides
	long ref0;        ///< reference pairs at frame 0
	double ref_mean;  ///< mean reference pairs over the timed frames
	int warmup, frames, reps;
	method_result r[M_COUNT];
} scene_result;

typedef struct options {
	int counts[8];
	int count_n;
	int frames;     ///< 0: by N
	int warmup;
	int reps;
	uint64_t seed;
	const char *only;
	const char *method_filter;
	bool smoke;
	bool strict;
	bool no_limits;
	bool no_first;  ///< no first-update rows
	bool reps_set;  ///< --reps given: the first-update rows repeat that many times too
} options;

static int default_frames(int n)
{
	return n <= 2000 ? 50 : n <= 20000 ? 20 : 10;
}

static void scene_slug(char *out, size_t size, int dim, sb_kind kind)
{
	snprintf(out, size, "%dd-%s", dim, sb_kind_name(kind));
}

/// Whether needle is in hay; a needle ending in '$' must end hay.
static bool contains(const char *hay, const char *needle)
{
	if (needle == NULL)
		return true;
	size_t n = strlen(needle), h = strlen(hay);
	if (n > 0 && needle[n - 1] == '$')
		return h >= n - 1 && strncmp(hay + h - (n - 1), needle, n - 1) == 0;
	return strstr(hay, needle) != NULL;
}

/// Runs every method that applies on a scene; 0, or -1 on a hard error.
static int run_scene(scene_result *res, const bool *want, bool no_limits)
{
	sb_scene s;
	if (sb_scene_make(&s, res->dim, res->kind, res->count, res->seed) != 0) {
		fprintf(stderr, "broad: could not make the scene (out of memory?)\n");
		return -1;
	}
	for (int a = 0; a < 3; ++a)
		res->side[a] = s.world_hi[a] - s.world_lo[a];
	int total = 1 + res->warmup + res->frames; // frame 0: setup
	long *ref = calloc((size_t)total, sizeof *ref);
	long *counts = calloc((size_t)total, sizeof *counts);
	double *samples = calloc((size_t)(res->frames * res->reps + res->warmup), sizeof *samples);
	imp_shape **shapes = calloc((size_t)s.count, sizeof *shapes);
	double *setup = calloc((size_t)res->reps, sizeof *setup);
	if (!ref || !counts || !samples || !shapes || !setup) {
		free(ref);
		free(counts);
		free(samples);
		free(shapes);
		free(setup);
		sb_scene_free(&s);
		return -1;
	}
	int status = 0;
	// The reference count of every frame (the motion is the same for
	// every method).
	sb_scene_reset(&s);
	for (int f = 0; f < total; ++f) {
		if (f > 0)
			sb_scene_step(&s);
		ref[f] = sb_scene_count_pairs(&s);
	}
	res->ref0 = ref[0];
	double sum = 0.0;
	for (int f = 1 + res->warmup; f < total; ++f)
		sum += (double)ref[f];
	res->ref_mean = sum / res->frames;

	for (int i = 0; i < s.count && status == 0; ++i) {
		const double *h = s.half + 3 * i;
		imp_status st = s.dim == 2 ? imp_shape_box2(h[0], h[1], 0.0, &shapes[i])
					   : imp_shape_box3(h[0], h[1], h[2], 0.0, &shapes[i]);
		if (st != IMP_OK) {
			fprintf(stderr, "broad: making a box failed: %s\n", imp_status_string(st));
			status = -1;
		}
	}

	bool shapes_made = status == 0;
	for (int m = 0; m < M_COUNT; ++m) {
		method_result *mr = &res->r[m];
		memset(mr, 0, sizeof *mr);
		mr->ms = mr->setup_ms = NAN;
		if (!want[m] || !k_methods[m].built || !method_applies((method)m, &s))
			continue;
		if (!shapes_made && k_methods[m].fam == F_IMPACT)
			continue;
		mr->ran = true;
		if (!no_limits && max_count(m) > 0 && s.count > max_count(m)) {
			mr->too_big = true;
			continue;
		}
		int nsamples = 0, nwarm = 0, frames_done = 0;
		double pair_sum = 0.0;
		int pair_frames = 0;
		int frames = res->frames;
		for (int rep = 0; rep < res->reps && !mr->failed && !mr->slow; ++rep) {
			sb_scene_reset(&s);
			runner run;
			double t0 = bench_now_ns();
			bool made = runner_create(&run, (method)m, &s, shapes);
			if (!made) {
				fprintf(stderr, "broad: %s could not be made\n", k_methods[m].name);
				mr->failed = true;
				break;
			}
			counts[0] = runner_frame(&run);
			setup[rep] = (bench_now_ns() - t0) * 1e-6;
			double warm[16];
			nwarm = 0;
			int last = res->warmup + frames;
			for (int f = 1; f <= last; ++f) {
				sb_scene_step(&s);
				double t = bench_now_ns();
				counts[f] = runner_frame(&run);
				double dt = bench_now_ns() - t;
				frames_done = f;
				if (f <= res->warmup) {
					if (nwarm < 16)
						warm[nwarm++] = dt;
					if (f == res->warmup || dt > SLOW_FRAME_NS) {
						double est = bench_median(warm, nwarm);
						if (dt > SLOW_FRAME_NS || est > SLOW_FRAME_NS) {
							mr->slow = true;
							for (int k = 0; k < nwarm; ++k)
								samples[k] = warm[k];
							nsamples = nwarm;
							break;
						}
						// Keep the method within its budget.
						if (est * frames > METHOD_BUDGET_NS / res->reps) {
							int cut = (int)(METHOD_BUDGET_NS / res->reps / est);
							frames = cut < 3 ? 3 : cut < frames ? cut : frames;
							last = res->warmup + frames;
						}
					}
				} else {
					samples[nsamples++] = dt;
					pair_sum += (double)counts[f];
					pair_frames++;
				}
				if (k_methods[m].fam == F_IMPACT) {
					verify_data vd = {run.state, 0, 0};
					imp_run *ir = run.state;
					imp_world_for_each_pair(ir->world, verify_pair, &vd);
					mr->false_pairs += vd.false_pairs + vd.bad_ids;
				}
			}
			for (int f = 0; f <= frames_done; ++f) {
				long d = labs(counts[f] - ref[f]);
				if (d != 0) {
					mr->off_frames++;
					if (d > mr->max_off)
						mr->max_off = d;
				}
			}
			if (mr->slow) {
				for (int f = 1; f <= frames_done; ++f)
					pair_sum += (double)counts[f];
				pair_frames += frames_done;
			}
			if (k_methods[m].fam == F_IMPACT) {
				imp_run *ir = run.state;
				mr->stats = imp_world_get_stats(ir->world);
				if (ir->failed)
					mr->failed = true;
			}
			runner_destroy(&run);
		}
		if (mr->failed) {
			status = -1;
			continue;
		}
		mr->frames = mr->slow ? 0 : frames;
		mr->ms = bench_median(samples, nsamples) * 1e-6;
		mr->setup_ms = bench_median(setup, res->reps);
		mr->pairs = pair_frames > 0 ? pair_sum / pair_frames : NAN;
		fprintf(stderr, "broad:   %-26s %10.3f ms/frame%s\n", k_methods[m].name, mr->ms,
			mr->slow ? " (slow: warm-up only)" : "");
	}
	for (int i = 0; i < s.count; ++i)
		imp_shape_destroy(shapes[i]); // NULL (not made) is ignored
	free(shapes);
	free(ref);
	free(counts);
	free(samples);
	free(setup);
	sb_scene_free(&s);
	return status;
}

// ---- report --------------------------------------------------------------------

typedef struct run_info {
	char machine[400], cpu[256], date[64];
	int cpus;
} run_info;

static void print_header(FILE *f, const run_info *ri, const options *o)
{
	fprintf(f, "# broad: broad phase, impact's world against its peers\n\n");
	fprintf(f, "- machine: %s; CPU: %s (%d logical CPUs); run %s\n", ri->machine, ri->cpu, ri->cpus, ri->date);
#if defined(__OPTIMIZE__)
	const char *optimised = "optimised (-O2 from bench/meson.build)";
#else
	const char *optimised = "NOT optimised: the numbers mean nothing";
#endif
	fprintf(f, "- compiler: %s, %s\n", __VERSION__, optimised);
	imp_world_def dd = imp_default_world_def();
	fprintf(f, "- impact %d: a world per method (imp_default_world_def(): hash alpha %g beta %g, fat ratio %g%s, "
		   "margin 0), box shapes, identity rotations; broad only: narrow_phase false (pairs = overlapping "
		   "boxes); + narrow: narrow_phase true (boxes with identity rotations: the same pairs)\n",
		imp_version(), dd.hash_alpha, dd.hash_beta, g_fat_ratio >= 0.0 ? g_fat_ratio : dd.fat_ratio,
		g_fat_ratio >= 0.0 ? " (--fat)" : "");
	fprintf(f, "- peers (broad phase only; the pairs each reports are tested exactly, as a user would, and "
		   "counted):");
#if defined(HAVE_BOX2D) && defined(BOX2D_VERSION_TEXT)
	// pkg-config's version: 2.4.1's library says 2.4.0 in b2_version.
	fprintf(f, " Box2D %s (2D);", BOX2D_VERSION_TEXT);
#elif defined(HAVE_BOX2D)
	fprintf(f, " Box2D %s (2D);", b2bp_version());
#else
	fprintf(f, " Box2D skipped (not found at build time);");
#endif
#ifdef HAVE_CHIPMUNK
	fprintf(f, " Chipmunk2D %s (2D);", cpbp_version());
#else
	fprintf(f, " Chipmunk2D skipped (not found at build time);");
#endif
#ifdef HAVE_BULLET
	fprintf(f, " Bullet %s (3D);", btbp_version());
#else
	fprintf(f, " Bullet skipped (not found at build time);");
#endif
#ifdef HAVE_FCL
	fprintf(f, " FCL %s (3D)\n", fclbp_version());
#else
	fprintf(f, " FCL skipped (not found at build time)\n");
#endif
	fprintf(f, "- scenes (bench/scene_broad.c): uniform = sides 0.5-1.5, each box moving 1%% of its size per "
		   "frame and bouncing off the walls; sizes = scale log-uniform 0.1-10, the same motion; pile = "
		   "uniform sizes resting on the floor y = 0 (y up), one box thick, jittered by 1e-3 of its size "
		   "every frame; jump = the uniform scene with 1%% of the boxes jumping to a random place every "
		   "frame; density calibrated to about 3 overlaps per box; seed 0x%" PRIx64 "%s\n",
		o->seed, o->smoke ? " (--smoke: the numbers are not measurements)" : "");
	fprintf(f, "- a frame: every box moves; the method is given every pose (impact: %s, "
		   "peers: their box or transform), updates, and walks all its pairs; ms/frame: median over "
		   "the timed frames (after %d warm-up frames; setup = making the structure, adding the boxes "
		   "and the first frame); pairs/frame: mean over the timed frames; check: every frame's count "
		   "against a sort-and-sweep count of the exact boxes; vs best peer: ms/frame over the fastest "
		   "peer's in the scene\n",
		g_single_poses ? "imp_body_set_pose2/3 once per box (--single-poses)"
			       : "one imp_world_set_poses2/3 call with every box's pose",
		o->warmup);
}

static void put_ms(FILE *f, double ms)
{
	if (isnan(ms))
		fprintf(f, " - |");
	else if (ms >= 100.0)
		fprintf(f, " %.0f |", ms);
	else if (ms >= 1.0)
		fprintf(f, " %.2f |", ms);
	else
		fprintf(f, " %.3f |", ms);
}

static void print_scene(FILE *f, const scene_result *res)
{
	fprintf(f, "\n## %dD %s, N = %d\n\n", res->dim, sb_kind_name(res->kind), res->count);
	if (res->dim == 3)
		fprintf(f, "World %.1f x %.1f x %.1f; ", res->side[0], res->side[1], res->side[2]);
	else
		fprintf(f, "World %.1f x %.1f; ", res->side[0], res->side[1]);
	fprintf(f, "overlapping pairs at frame 0: %ld (%.2f per box), over the timed frames: %.1f on average; "
		   "%d warm-up and up to %d timed frames, %d repetition%s.\n\n",
		res->ref0, 2.0 * (double)res->ref0 / res->count, res->ref_mean, res->warmup, res->frames, res->reps,
		res->reps == 1 ? "" : "s");
	double best = NAN;
	int best_m = -1;
	for (int m = 0; m < M_COUNT; ++m) {
		const method_result *mr = &res->r[m];
		if (k_methods[m].fam != F_IMPACT && mr->ran && !mr->failed && !isnan(mr->ms) &&
		    (best_m < 0 || mr->ms < best)) {
			best = mr->ms;
			best_m = m;
		}
	}
	fprintf(f, "| method | ms/frame | setup ms | pairs/frame | frames | check | vs best peer |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---|---:|\n");
	for (int m = 0; m < M_COUNT; ++m) {
		const method_result *mr = &res->r[m];
		if (!mr->ran)
			continue;
		fprintf(f, "| %s |", k_methods[m].name);
		if (mr->failed) {
			fprintf(f, " failed | - | - | - | - | - |\n");
			continue;
		}
		if (mr->too_big) {
			fprintf(f, " - | - | - | not run: N > %d (O(N^2); --no-limits) | - | - |\n", max_count(m));
			continue;
		}
		put_ms(f, mr->ms);
		put_ms(f, mr->setup_ms);
		fprintf(f, " %.1f |", mr->pairs);
		if (mr->slow)
			fprintf(f, " warm-up only (> %.0f s/frame) |", SLOW_FRAME_NS * 1e-9);
		else
			fprintf(f, " %d |", mr->frames);
		if (mr->off_frames == 0 && mr->false_pairs == 0) {
			fprintf(f, " ok |");
		} else {
			fprintf(f, " **");
			if (mr->off_frames)
				fprintf(f, "%d frames off (max %ld)", mr->off_frames, mr->max_off);
			if (mr->false_pairs)
				fprintf(f, "%s%ld false pairs", mr->off_frames ? ", " : "", mr->false_pairs);
			fprintf(f, "** |");
		}
		if (best_m < 0)
			fprintf(f, " - |\n");
		else
			fprintf(f, " %.2f |\n", mr->ms / best);
	}
	if (best_m >= 0)
		fprintf(f, "\nBest peer: %s.\n", k_methods[best_m].name);
	bool any = false;
	for (int m = 0; m < M_COUNT; ++m) {
		const method_result *mr = &res->r[m];
		if (!mr->ran || mr->failed || mr->too_big || k_methods[m].fam != F_IMPACT)
			continue;
		if (!any)
			fprintf(f, "\nimpact's statistics of the last frame:");
		any = true;
		fprintf(f,
			" %s: %d moved, %d broad moves (%d end-point swaps, %d cells entered or left, %d box tests),"
			" %d candidates, %d box tests, %d narrow calls, %d touching;",
			k_methods[m].name, mr->stats.moved, mr->stats.broad_moves, mr->stats.broad_swaps,
			mr->stats.broad_cells, mr->stats.broad_tests, mr->stats.candidates, mr->stats.box_tests,
			mr->stats.narrow_calls, mr->stats.touching);
	}
	if (any)
		fprintf(f, "\n");
}

/// Warnings for the counts that differ from the reference.
static bool warn_mismatches(const scene_result *res)
{
	bool impact_off = false;
	for (int m = 0; m < M_COUNT; ++m) {
		const method_result *mr = &res->r[m];
		if (!mr->ran || mr->failed || (mr->off_frames == 0 && mr->false_pairs == 0))
			continue;
		fprintf(stderr,
			"broad: WARNING: %dD %s N=%d: %s: %d frames with a pair count off the reference (max %ld), %ld "
			"reported pairs whose boxes do not overlap%s\n",
			res->dim, sb_kind_name(res->kind), res->count, k_methods[m].name, mr->off_frames, mr->max_off,
			mr->false_pairs,
			k_methods[m].fam == F_IMPACT && k_methods[m].narrow
				? " (the narrow phase should agree with the box test here)"
				: "");
		if (k_methods[m].fam == F_IMPACT)
			impact_off = true;
	}
	// The narrow phase against the broad phase of the same kind.
	const method pairs[3][2] = {{M_IMP_HASH, M_IMP_HASH_NARROW},
				    {M_IMP_SWEEP, M_IMP_SWEEP_NARROW},
				    {M_IMP_NAIVE, M_IMP_NAIVE_NARROW}};
	for (int k = 0; k < 3; ++k) {
		const method_result *a = &res->r[pairs[k][0]], *b = &res->r[pairs[k][1]];
		bool both = a->ran && b->ran && !a->failed && !b->failed && !a->too_big && !b->too_big;
		if (both && !a->slow && !b->slow && a->frames == b->frames && a->pairs != b->pairs)
			fprintf(stderr, "broad: WARNING: %dD %s N=%d: %s finds %.1f pairs/frame, %s %.1f\n", res->dim,
				sb_kind_name(res->kind), res->count, k_methods[pairs[k][0]].name, a->pairs,
				k_methods[pairs[k][1]].name, b->pairs);
	}
	return impact_off;
}

/// The first-update table: for each of the first `nf` sizes of
/// A peer's first frame at s->count boxes, as run_first's: made with every
/// box (add ms), then its first frame (update ms), `reps` times; the heap's
/// growth over both. A peer whose set-up grows as N^2 is left out above its
/// limit.
static void run_first_peer(first_result *fr, const sb_scene *s, method m, int reps, long ref)
{
	first_samples x;
	memset(fr, 0, sizeof *fr);
	if (!k_methods[m].built || !method_applies(m, s) || (max_count(m) > 0 && s->count > max_count(m)))
		return;
	fr->ran = true;
	fr->ok = true;
	for (int rep = 0; rep < reps && rep < 16; ++rep) {
		runner run;
		size_t heap0 = heap_bytes();
		double t0 = bench_now_ns();
		if (!runner_create(&run, m, s, NULL)) {
			fr->failed = true;
			return;
		}
		double t1 = bench_now_ns(), c1 = cpu_now_ns();
		long count = runner_frame(&run);
		double t2 = bench_now_ns(), c2 = cpu_now_ns();
		fr->heap = heap_growth(heap0);
		runner_destroy(&run);
		first_sample(fr, &x, rep, (double[3]){t0, t1, t2}, (double[2]){c1, c2}, count, ref);
	}
	first_finish(fr, &x, reps);
}

/// k_first_counts, each impact broad phase (but the naive one) wanted;
/// then the growth from the first size to the last.
static int run_first_rows(FILE *f, FILE *out, const options *o, const bool *want, int nf, int reps)
{
	static const method ms[] = {M_IMP_HASH, M_IMP_SWEEP, M_BT_DBVT, M_BT_SAP, M_FCL_TREE, M_FCL_HASH};
	enum { NM = sizeof ms / sizeof ms[0], NC = sizeof k_first_counts / sizeof k_first_counts[0] };
	first_result fr[NM][NC];
	memset(fr, 0, sizeof fr);
	int status = 0;
	for (int c = 0; c < nf && c < NC; ++c) {
		int n = k_first_counts[c];
		sb_scene s;
		if (sb_scene_make(&s, 3, SB_UNIFORM, n, o->seed ^ 0xf125u) != 0)
			return -1;
		long ref = sb_scene_count_pairs(&s);
		imp_shape **shapes = calloc((size_t)n, sizeof *shapes);
		bool made = shapes != NULL;
		for (int i = 0; made && i < n; ++i) {
			const double *h = s.half + 3 * i;
			made = imp_shape_box3(h[0], h[1], h[2], 0.0, &shapes[i]) == IMP_OK;
		}
		for (int k = 0; made && k < NM; ++k) {
			if (!want[ms[k]])
				continue;
			fprintf(stderr, "broad: first update, %s, N=%d\n", k_methods[ms[k]].name, n);
			if (k_methods[ms[k]].fam == F_IMPACT) {
				run_first(&fr[k][c], &s, shapes, ms[k], reps, ref);
				if (fr[k][c].failed || !fr[k][c].ok)
					status = -1;
			} else {
				run_first_peer(&fr[k][c], &s, ms[k], reps, ref);
			}
		}
		for (int i = 0; shapes && i < n; ++i)
			imp_shape_destroy(shapes[i]);
		free(shapes);
		sb_scene_free(&s);
		if (!made)
			return -1;
	}
	for (int pass = 0; pass < 2; ++pass) {
		FILE *g = pass == 0 ? f : out;
		if (g == NULL)
			continue;
		fprintf(g, "\n## First update, 3D uniform\n\n");
		fprintf(g, "N boxes of the 3D uniform scene added to an empty world (add ms: making the world and "
			   "adding them), then its first imp_world_update, in which the broad phase takes them all in "
			   "(update ms: wall time; cpu: the process's CPU time); a peer: made with every box, then its "
			   "first frame (bench/peers_broad.h). Median of %d repetition%s; check: the pairs after it "
			   "against the scene's sort-and-sweep count. Bytes per body: what the world holds after the "
			   "update over N, counted by its allocator (the sizes impact asks for; the shapes, which the "
			   "user makes and may share, are not the world's), and in brackets the most it held until "
			   "then; heap per body: the growth of glibc's heap (mallinfo2: in-use blocks and mapped "
			   "ones, with malloc's headers) over the same span, for impact and for the peers alike "
			   "(with the benchmark's own per-box arrays: ids or proxy handles).%s\n\n",
			reps, reps == 1 ? "" : "s", o->smoke ? " --smoke: 100,000 only." : "");
		fprintf(g, "| method | N | add ms | update ms | update cpu ms | pairs | check | bytes per body (peak) "
			   "| heap per body |\n");
		fprintf(g, "|---|---:|---:|---:|---:|---:|---|---:|---:|\n");
		for (int k = 0; k < NM; ++k)
			for (int c = 0; c < nf && c < NC; ++c) {
				const first_result *r = &fr[k][c];
				if (!r->ran)
					continue;
				fprintf(g, "| %s | %d |", k_methods[ms[k]].name, k_first_counts[c]);
				if (r->failed) {
					fprintf(g, " failed | - | - | - | - | - | - |\n");
					continue;
				}
				put_ms(g, r->add_ms);
				put_ms(g, r->update_ms);
				put_ms(g, r->update_cpu_ms);
				int nb = k_first_counts[c];
				fprintf(g, " %ld | %s |", r->pairs, r->ok ? "ok" : "**off**");
				if (k_methods[ms[k]].fam == F_IMPACT)
					fprintf(g, " %.0f (%.0f) |", (double)r->bytes / nb, (double)r->peak_bytes / nb);
				else
					fprintf(g, " - |");
				fprintf(g, " %.0f |\n", (double)r->heap / nb);
			}
		if (nf == 2) {
			fprintf(g, "\nGrowth from %d to %d boxes (x%d):", k_first_counts[0], k_first_counts[1],
				k_first_counts[1] / k_first_counts[0]);
			for (int k = 0; k < NM; ++k) {
				const first_result *a = &fr[k][0], *b = &fr[k][1];
				if (a->ran && b->ran && !a->failed && !b->failed)
					fprintf(g, " %s x%.1f (cpu x%.1f);", k_methods[ms[k]].name, b->update_ms / a->update_ms,
						b->update_cpu_ms / a->update_cpu_ms);
			}
			fprintf(g, "\n");
		}
		fflush(g);
	}
	return status;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: broad [--smoke] [--n N]... [--only SCENE] [--method NAME] [--frames K] [--reps R]\n"
		"             [--seed S] [--fat R] [--out FILE] [--strict] [--no-limits] [--no-first]\n"
		"  --smoke        N = %d, %d warm-up and %d timed frames, every scene: checks every code path quickly\n"
		"  --n N          only this many boxes (repeatable; default 1000, 10000, 100000)\n"
		"  --only SCENE   only the scenes whose name contains SCENE: 3d-uniform, 3d-sizes, 3d-pile,\n"
		"                 3d-jump, 2d-uniform, 2d-sizes, 2d-pile, 2d-jump (\"3d\", \"pile\", ... select\n"
		"                 several)\n"
		"  --method NAME  only the methods whose name contains NAME (\"impact\", \"Bullet\", ...;\n"
		"                 a final $ anchors it at the end: \"impact sweep$\")\n"
		"  --frames K     timed frames per scene (default 50 up to 2,000 boxes, 20 up to 20,000, 10 above)\n"
		"  --reps R       repetitions of each method's run, each from frame 0 (default %d), and of\n"
		"                 each first-update row (at most 16; default 3)\n"
		"  --seed S       scene seed (default 0x%x)\n"
		"  --fat R        impact's fat_ratio (default: imp_default_world_def's)\n"
		"  --out FILE     also write the Markdown report to FILE\n"
		"  --strict       exit 1 when impact's pair counts differ from the reference\n"
		"  --no-limits    also run the O(N^2) methods above their limit (impact naive above %d boxes,\n"
		"                 Bullet btAxisSweep3 above %d: its set-up takes minutes at 100,000)\n"
		"  --no-first     no first-update rows (3D uniform, 100,000 and 1,000,000 boxes added at once,\n"
		"                 then the world's first update; 100,000 only with --smoke; --only 3d-first:\n"
		"                 those rows alone)\n"
		"  --single-poses impact's frames give each pose with its own imp_body_set_pose2/3 call\n"
		"                 (default: one imp_world_set_poses2/3 call per frame)\n",
		SMOKE_COUNT, SMOKE_WARMUP, SMOKE_FRAMES, DEFAULT_REPS, DEFAULT_SEED, NAIVE_MAX, SAP_MAX);
}

int main(int argc, char **argv)
{
	options o;
	memset(&o, 0, sizeof o);
	o.reps = DEFAULT_REPS;
	o.warmup = WARMUP_FRAMES;
	o.seed = DEFAULT_SEED;
	const char *out_path = NULL;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int n;
		if (!strcmp(a, "--smoke")) {
			o.smoke = true;
		} else if (!strcmp(a, "--strict")) {
			o.strict = true;
		} else if (!strcmp(a, "--no-limits")) {
			o.no_limits = true;
		} else if (!strcmp(a, "--no-first")) {
			o.no_first = true;
		} else if (!strcmp(a, "--single-poses")) {
			g_single_poses = true;
		} else if (!strcmp(a, "--n") && v && bench_parse_int(v, 2, 10000000, &n) && o.count_n < 8) {
			o.counts[o.count_n++] = n;
			++i;
		} else if (!strcmp(a, "--frames") && v && bench_parse_int(v, 1, 100000, &o.frames)) {
			++i;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &o.reps)) {
			o.reps_set = true;
			++i;
		} else if (!strcmp(a, "--fat") && v) {
			char *end;
			g_fat_ratio = strtod(v, &end);
			if (end == v || *end || !(g_fat_ratio >= 0.0 && g_fat_ratio <= 1e6)) {
				usage(stderr);
				return 2;
			}
			++i;
		} else if (!strcmp(a, "--seed") && v) {
			char *end;
			errno = 0;
			o.seed = strtoull(v, &end, 0);
			if (errno || end == v || *end) {
				usage(stderr);
				return 2;
			}
			++i;
		} else if (!strcmp(a, "--only") && v) {
			o.only = v;
			++i;
		} else if (!strcmp(a, "--method") && v) {
			o.method_filter = v;
			++i;
		} else if (!strcmp(a, "--out") && v) {
			out_path = v;
			++i;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "broad: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (o.smoke) {
		if (o.count_n == 0)
			o.counts[o.count_n++] = SMOKE_COUNT;
		if (o.frames == 0)
			o.frames = SMOKE_FRAMES;
		o.warmup = SMOKE_WARMUP;
	}
	if (o.count_n == 0)
		for (size_t k = 0; k < sizeof k_default_counts / sizeof k_default_counts[0]; ++k)
			o.counts[o.count_n++] = k_default_counts[k];

	bool want[M_COUNT];
	for (int m = 0; m < M_COUNT; ++m)
		want[m] = contains(k_methods[m].name, o.method_filter);
#ifndef HAVE_BOX2D
	fprintf(stderr, "broad: peer Box2D skipped (not found at build time)\n");
#endif
#ifndef HAVE_CHIPMUNK
	fprintf(stderr, "broad: peer Chipmunk2D skipped (not found at build time)\n");
#endif
#ifndef HAVE_BULLET
	fprintf(stderr, "broad: peer Bullet skipped (not found at build time)\n");
#endif
#ifndef HAVE_FCL
	fprintf(stderr, "broad: peer FCL skipped (not found at build time)\n");
#endif

	run_info ri;
	bench_describe_run(ri.machine, sizeof ri.machine, false, ri.date, sizeof ri.date);
	bench_cpu_model(ri.cpu, sizeof ri.cpu);
	ri.cpus = bench_cpu_count();

	FILE *out = NULL;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "broad: cannot write %s\n", out_path);
			return 1;
		}
	}
	print_header(stdout, &ri, &o);
	if (out)
		print_header(out, &ri, &o);
	fflush(stdout);

	static scene_result res;
	int failures = 0;
	bool impact_off = false;
	for (int c = 0; c < o.count_n; ++c) {
		for (int dim = 3; dim >= 2; --dim) {
			for (int k = 0; k < SB_KIND_COUNT; ++k) {
				char slug[32];
				scene_slug(slug, sizeof slug, dim, (sb_kind)k);
				if (!contains(slug, o.only))
					continue;
				memset(&res, 0, sizeof res);
				res.dim = dim;
				res.kind = (sb_kind)k;
				res.count = o.counts[c];
				res.seed = o.seed + (uint64_t)(dim * 16 + k) * 0x9e3779b97f4a7c15ull;
				res.seed += (uint64_t)o.counts[c];
				res.warmup = o.warmup;
				res.frames = o.frames > 0 ? o.frames : default_frames(o.counts[c]);
				res.reps = o.reps;
				fprintf(stderr, "broad: %s N=%d\n", slug, res.count);
				if (run_scene(&res, want, o.no_limits) != 0)
					++failures;
				print_scene(stdout, &res);
				fflush(stdout);
				if (out) {
					print_scene(out, &res);
					fflush(out);
				}
				impact_off |= warn_mismatches(&res);
			}
		}
	}
	if (!o.no_first && contains("3d-first", o.only)) {
		int nf = o.smoke ? 1 : (int)(sizeof k_first_counts / sizeof k_first_counts[0]);
		int reps = o.smoke ? 1 : o.reps_set ? (o.reps < 16 ? o.reps : 16) : FIRST_REPS;
		if (run_first_rows(stdout, out, &o, want, nf, reps) != 0)
			++failures;
	}
	if (out)
		fclose(out);
	if (failures)
		return 1;
	if (o.strict && impact_off) {
		fprintf(stderr, "broad: --strict: impact's pair counts differ from the reference\n");
		return 1;
	}
	return 0;
}
