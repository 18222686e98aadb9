// SPDX-License-Identifier: MIT
// bench/queries: the planner queries on worlds of static bodies, against
// FCL 0.7's DynamicAABBTreeCollisionManager (collide and distance with a
// query object) when it was found at build time.
//
// Scenes: 10k and 100k static bodies (2D: boxes, discs, capsules; 3D:
// boxes, spheres, capsules: shapes FCL has too) spread uniformly, about one
// body per 2^dim cube of side 2; random query poses of a box in the same
// region (scene_queries.c, shared with bench/threads). Each query kind
// runs over every query pose in one timed loop; each repetition times the
// hash world, the sweep world and FCL in turn (all three are kept at once),
// so that a slow spell of the machine falls on all of them. Reported: each
// one's median over the repetitions, and the median of the per-repetition
// ratios of the hash world's time to FCL's. Before timing, the first
// queries of each kind are checked against brute force over every body
// (the pairwise calls), and FCL's answers are compared with impact's. The
// world gets a counting allocator: the number of allocations during the
// timed loops is reported (no query allocates once the world's query
// buffer has grown).
//
// usage: queries [--smoke] [--n N] [--queries Q] [--reps R] [--dim 2|3] [--out FILE] [--strict]
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "scene_queries.h"

#ifdef HAVE_FCL
#include "peer_queries_fcl.h"
#endif

/// The allocator the worlds use: counts calls.
typedef struct counter {
	long calls;
} counter;

static void *count_alloc(size_t size, void *user)
{
	((counter *)user)->calls++;
	return malloc(size);
}

static void *count_realloc(void *p, size_t old_size, size_t size, void *user)
{
	(void)old_size;
	((counter *)user)->calls++;
	return realloc(p, size);
}

static void count_free(void *p, size_t size, void *user)
{
	(void)size;
	(void)user;
	free(p);
}

/// A world of the scene (scene_queries.c) on the broad phase `kind`, with
/// the counting allocator.
static imp_world *world_make(const sq_scene *sc, imp_broad_kind kind, counter *c)
{
	imp_world_def def = imp_default_world_def();
	def.broad_phase = kind;
	def.allocator = (imp_allocator){count_alloc, count_realloc, count_free, c};
	return sq_world_make(sc, &def);
}

/* ---- the methods ---- */

typedef enum method { M_ANY, M_NEAREST, M_WITHIN, M_OVERLAPS, M_CAST, M_FREE, M_RAY, M_COUNT } method;
static const char *const k_method_names[M_COUNT] = {"any overlap", "nearest", "all within 1.0", "all overlapping",
						    "cast (2 units)", "motion free (2 units)", "ray (2 units)"};

static double count_hit(const imp_query_result *hit, void *user)
{
	(void)hit;
	++*(long *)user;
	return 1.0;
}

static bool count_id(imp_body_id id, void *user)
{
	(void)id;
	++*(long *)user;
	return true;
}

/// One query of kind m on query i; returns a number that depends on the
/// answer (so that no call is dropped): the overlap flag, the distance,
/// the count or the time.
static double run_one(imp_world *w, const sq_scene *sc, method m, int i)
{
	const sq_body *q = &sc->queries[i];
	bool any = false;
	imp_query_result r;
	imp_cast_hit hit;
	imp_ray_hit ray;
	long count = 0;
	bool d2 = sc->dim == 2;
	switch (m) {
	case M_ANY:
		if (d2)
			imp_world_overlap_any2(w, sc->query_shape, q->p2, NULL, &any);
		else
			imp_world_overlap_any3(w, sc->query_shape, q->p3, NULL, &any);
		return any;
	case M_NEAREST:
		if (d2)
			imp_world_nearest2(w, sc->query_shape, q->p2, INFINITY, NULL, &r);
		else
			imp_world_nearest3(w, sc->query_shape, q->p3, INFINITY, NULL, &r);
		return r.distance;
	case M_WITHIN:
		if (d2)
			imp_world_query_distance2(w, sc->query_shape, q->p2, 1.0, NULL, count_hit, &count);
		else
			imp_world_query_distance3(w, sc->query_shape, q->p3, 1.0, NULL, count_hit, &count);
		return (double)count;
	case M_OVERLAPS:
		if (d2)
			imp_world_overlap_shape2(w, sc->query_shape, q->p2, NULL, count_id, &count);
		else
			imp_world_overlap_shape3(w, sc->query_shape, q->p3, NULL, count_id, &count);
		return (double)count;
	case M_CAST:
		if (d2)
			imp_world_cast_shape2(w, sc->query_shape, q->p2, sc->to2[i], NULL, &hit);
		else
			imp_world_cast_shape3(w, sc->query_shape, q->p3, sc->to3[i], NULL, &hit);
		return hit.t;
	case M_FREE:
		if (d2)
			imp_world_motion_free2(w, sc->query_shape, q->p2, sc->to2[i], NULL, &any);
		else
			imp_world_motion_free3(w, sc->query_shape, q->p3, sc->to3[i], NULL, &any);
		return any;
	case M_RAY:
		if (d2)
			imp_world_ray_cast2(w, q->p2.p, sc->to2[i].p, NULL, &ray);
		else
			imp_world_ray_cast3(w, q->p3.p, sc->to3[i].p, NULL, &ray);
		return ray.t;
	case M_COUNT:
		break;
	}
	return 0.0;
}

/* ---- brute force ---- */

/// The answer of query i by every body in turn (pairwise calls), for the
/// kinds that have one: any overlap, nearest distance, count within 1.0.
static double brute_one(const sq_scene *sc, method m, int i)
{
	const sq_body *q = &sc->queries[i];
	double best = INFINITY;
	long count = 0;
	for (int k = 0; k < sc->n; k++) {
		const sq_body *b = &sc->bodies[k];
		double d;
		if (sc->dim == 2) {
			imp_closest2_result c;
			imp_closest2(sc->query_shape, q->p2, sc->shapes[k], b->p2, NULL, &c);
			d = c.distance;
		} else {
			imp_closest3_result c;
			imp_closest3(sc->query_shape, q->p3, sc->shapes[k], b->p3, NULL, &c);
			d = c.distance;
		}
		best = fmin(best, d);
		count += d <= 1.0;
	}
	if (m == M_ANY)
		return best <= 0.0;
	if (m == M_NEAREST)
		return best;
	return (double)count;
}

/* ---- the run ---- */

typedef struct options {
	bool smoke, strict;
	int n, nq, reps, dim;
	const char *out;
} options;

#define KINDS 2
static const imp_broad_kind k_kinds[KINDS] = {IMP_BROAD_HASH, IMP_BROAD_SWEEP};

typedef struct row {
	double ns[KINDS];
	double fcl_ns;
	double ratio;      ///< the median over repetitions of the hash world's time over FCL's in the same repetition
	long allocs[KINDS];
	int wrong[KINDS];  ///< disagreements with brute force on the checked queries
	int fcl_disagree;  ///< FCL's answers off impact's (overlap flag, or distance by more than 1e-6)
	double fcl_max_diff;
} row;

static volatile double g_sink;

static int checked_count(const options *o, const sq_scene *sc)
{
	return o->smoke ? (sc->nq < 10 ? sc->nq : 10) : (sc->nq < 200 ? sc->nq : 200);
}

#ifdef HAVE_FCL
static void to_fcl(const sq_scene *sc, const sq_body *b, pqf_shape *f)
{
	memset(f, 0, sizeof *f);
	f->kind = b->kind;
	f->radius = b->radius;
	for (int k = 0; k < 3; k++)
		f->half[k] = b->half[k];
	f->pos[0] = sc->dim == 2 ? b->p2.p.x : b->p3.p.x;
	f->pos[1] = sc->dim == 2 ? b->p2.p.y : b->p3.p.y;
	f->pos[2] = sc->dim == 2 ? 0.0 : b->p3.p.z;
	imp_quat q = b->p3.q;
	f->quat[0] = q.x;
	f->quat[1] = q.y;
	f->quat[2] = q.z;
	f->quat[3] = q.w;
}

/// FCL's manager over the scene with its query objects made, or NULL
/// (with a message) when it cannot be set up.
static pqf_world *fcl_make(const sq_scene *sc)
{
	pqf_shape *fb = calloc((size_t)sc->n, sizeof *fb), *fq = calloc((size_t)sc->nq, sizeof *fq);
	pqf_world *fw = NULL;
	if (fb && fq) {
		for (int i = 0; i < sc->n; i++)
			to_fcl(sc, &sc->bodies[i], &fb[i]);
		for (int i = 0; i < sc->nq; i++)
			to_fcl(sc, &sc->queries[i], &fq[i]);
		fw = pqf_create(fb, sc->n);
	}
	if (fw != NULL && !pqf_prepare_queries(fw, fq, sc->nq)) {
		pqf_destroy(fw);
		fw = NULL;
	}
	if (fw == NULL)
		fprintf(stderr, "queries: FCL could not be set up; its columns are empty\n");
	free(fb);
	free(fq);
	return fw;
}

/// FCL's answer to query i of kind m (M_ANY, M_NEAREST or M_OVERLAPS).
static double fcl_one(pqf_world *fw, method m, int i)
{
	int index;
	if (m == M_ANY)
		return pqf_any_overlap_prepared(fw, i);
	if (m == M_NEAREST)
		return pqf_nearest_prepared(fw, i, &index);
	return pqf_overlap_count_prepared(fw, i);
}

/// FCL's answers to the checked queries against impact's (world w).
static void fcl_compare(pqf_world *fw, const sq_scene *sc, imp_world *w, method m, int checked, row *r)
{
	for (int i = 0; i < checked; i++) {
		double mine = run_one(w, sc, m, i), theirs = fcl_one(fw, m, i);
		// FCL reports overlapping pairs' distance as -1 or 0: compare the
		// separated ones only.
		if (m == M_NEAREST && mine <= 0.0)
			continue;
		double diff = fabs(mine - theirs);
		if (m == M_NEAREST)
			r->fcl_max_diff = fmax(r->fcl_max_diff, diff);
		r->fcl_disagree += diff > 1e-6;
	}
}
#endif

/// One timed loop of kind m over every query pose: FCL's when fw is not
/// NULL, else world w's; ns per query.
static double time_loop(const sq_scene *sc, imp_world *w, void *fw, method m)
{
	double sum = 0.0, t0 = bench_now_ns();
#ifdef HAVE_FCL
	if (fw != NULL) {
		for (int i = 0; i < sc->nq; i++)
			sum += fcl_one(fw, m, i);
		g_sink = sum;
		return (bench_now_ns() - t0) / sc->nq;
	}
#else
	(void)fw;
#endif
	for (int i = 0; i < sc->nq; i++)
		sum += run_one(w, sc, m, i);
	g_sink = sum;
	return (bench_now_ns() - t0) / sc->nq;
}

static void print_scene(FILE *f, const sq_scene *sc, const row rows[M_COUNT], int checked);

static bool run_scene(const options *o, int dim, int n, FILE *const fs[2], int *bad)
{
	sq_scene sc;
	if (!sq_scene_make(&sc, dim, n, o->nq, sq_seed(dim, n))) {
		fprintf(stderr, "queries: out of memory making the scene\n");
		sq_scene_free(&sc);
		return false;
	}
	row rows[M_COUNT];
	memset(rows, 0, sizeof rows);
	for (int m = 0; m < M_COUNT; m++)
		rows[m].fcl_ns = rows[m].ratio = NAN;
	int checked = checked_count(o, &sc);
	// Both worlds (and FCL's manager) at once: each repetition times them
	// in turn, so that a slow spell of the machine falls on all of them.
	counter c[KINDS] = {{0}};
	imp_world *w[KINDS] = {NULL};
	void *fw = NULL;
	bool ok = true;
	for (int k = 0; k < KINDS && ok; k++) {
		w[k] = world_make(&sc, k_kinds[k], &c[k]);
		ok = w[k] != NULL;
	}
#ifdef HAVE_FCL
	if (ok && dim == 3)
		fw = fcl_make(&sc);
#endif
	// Per repetition: each world's time, FCL's, and the hash world's time
	// over FCL's.
	double *t = calloc((size_t)o->reps * (KINDS + 2), sizeof *t);
	if (!ok || t == NULL) {
		fprintf(stderr, "queries: could not build the worlds\n");
		ok = false;
	}
	for (int m = 0; m < M_COUNT && ok; m++) {
		row *r = &rows[m];
		bool peer = fw != NULL && (m == M_ANY || m == M_NEAREST || m == M_OVERLAPS);
		for (int k = 0; k < KINDS; k++) {
			// Checked against brute force (the kinds that have an oracle
			// here; casts and rays are checked by tests/test_query.c).
			if (m == M_ANY || m == M_NEAREST || m == M_WITHIN)
				for (int i = 0; i < checked; i++)
					r->wrong[k] += run_one(w[k], &sc, (method)m, i) != brute_one(&sc, (method)m, i);
			*bad += r->wrong[k];
			// Warm-up: grows the query buffer to its size, makes the
			// query tree's copy.
			for (int i = 0; i < sc.nq; i++)
				g_sink = run_one(w[k], &sc, (method)m, i);
		}
#ifdef HAVE_FCL
		if (peer) {
			fcl_compare(fw, &sc, w[0], (method)m, checked, r);
			time_loop(&sc, NULL, fw, (method)m); // its warm-up
		}
#endif
		long before[KINDS];
		for (int k = 0; k < KINDS; k++)
			before[k] = c[k].calls;
		double *theirs = t + (size_t)o->reps * KINDS, *ratio = theirs + o->reps;
		for (int rep = 0; rep < o->reps; rep++) {
			for (int k = 0; k < KINDS; k++)
				t[(size_t)k * o->reps + rep] = time_loop(&sc, w[k], NULL, (method)m);
			if (peer) {
				theirs[rep] = time_loop(&sc, NULL, fw, (method)m);
				ratio[rep] = t[rep] / theirs[rep];
			}
		}
		for (int k = 0; k < KINDS; k++) {
			r->ns[k] = bench_median(t + (size_t)k * o->reps, o->reps);
			r->allocs[k] = c[k].calls - before[k];
		}
		if (peer) {
			r->fcl_ns = bench_median(theirs, o->reps);
			r->ratio = bench_median(ratio, o->reps);
		}
	}
	free(t);
#ifdef HAVE_FCL
	pqf_destroy(fw);
#endif
	for (int k = 0; k < KINDS; k++)
		imp_world_destroy(w[k]);
	for (int fi = 0; fi < 2 && ok; fi++) {
		FILE *f = fs[fi];
		if (f != NULL)
			print_scene(f, &sc, rows, checked);
	}
	sq_scene_free(&sc);
	return ok;
}

static void print_scene(FILE *f, const sq_scene *sc, const row rows[M_COUNT], int checked)
{
	int dim = sc->dim, n = sc->n;
	fprintf(f, "\n### %dD, %d static bodies, %d query poses\n\n", dim, n, sc->nq);
	fprintf(f, "| query | hash ns | sweep ns | FCL ns | hash/FCL | wrong (of %d checked) hash/sweep | "
		   "FCL disagrees | allocations in timed loops |\n",
		checked);
	fprintf(f, "|---|---:|---:|---:|---:|---|---|---|\n");
	for (int m = 0; m < M_COUNT; m++) {
		const row *r = &rows[m];
		bool has_oracle = m == M_ANY || m == M_NEAREST || m == M_WITHIN;
		char wrong[32], fcl[32], ratio[32], fcl_dis[48];
		if (has_oracle)
			snprintf(wrong, sizeof wrong, "%d/%d", r->wrong[0], r->wrong[1]);
		else
			snprintf(wrong, sizeof wrong, "(tests)");
		if (isnan(r->fcl_ns)) {
			snprintf(fcl, sizeof fcl, "-");
			snprintf(ratio, sizeof ratio, "-");
			snprintf(fcl_dis, sizeof fcl_dis, "-");
		} else {
			snprintf(fcl, sizeof fcl, "%.0f", r->fcl_ns);
			snprintf(ratio, sizeof ratio, "%.2f", r->ratio);
			if (m == M_NEAREST)
				snprintf(fcl_dis, sizeof fcl_dis, "%d (max diff %.1e)", r->fcl_disagree, r->fcl_max_diff);
			else
				snprintf(fcl_dis, sizeof fcl_dis, "%d", r->fcl_disagree);
		}
		fprintf(f, "| %s | %.0f | %.0f | %s | %s | %s | %s | %ld/%ld |\n", k_method_names[m], r->ns[0], r->ns[1],
			fcl, ratio, wrong, fcl_dis, r->allocs[0], r->allocs[1]);
	}
	fflush(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: queries [--smoke] [--n N] [--queries Q] [--reps R] [--dim 2|3] [--out FILE] [--strict]\n"
			"  --smoke      2000 bodies, 200 queries, 1 repetition\n"
			"  --n N        bodies per scene (default: 10000 and 100000)\n"
			"  --queries Q  query poses (default 100000)\n"
			"  --reps R     timed repetitions, round robin; medians are reported (default 5)\n"
			"  --dim D      only 2D or only 3D scenes\n"
			"  --out FILE   also write the report as Markdown to FILE\n"
			"  --strict     exit 1 when a checked answer differs from brute force\n");
}

int main(int argc, char **argv)
{
	options o = {.n = 0, .nq = 100000, .reps = 5, .dim = 0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			o.smoke = true;
		} else if (!strcmp(a, "--strict")) {
			o.strict = true;
		} else if (!strcmp(a, "--n") && v && bench_parse_int(v, 1, 10000000, &o.n)) {
			i++;
		} else if (!strcmp(a, "--queries") && v && bench_parse_int(v, 1, 10000000, &o.nq)) {
			i++;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &o.reps)) {
			i++;
		} else if (!strcmp(a, "--dim") && v && bench_parse_int(v, 2, 3, &o.dim)) {
			i++;
		} else if (!strcmp(a, "--out") && v) {
			o.out = v;
			i++;
		} else {
			usage();
			return 2;
		}
	}
	if (o.smoke) {
		o.nq = 200;
		o.reps = 1;
	}
	int sizes[2] = {10000, 100000}, nsizes = 2;
	if (o.n > 0) {
		sizes[0] = o.n;
		nsizes = 1;
	} else if (o.smoke) {
		sizes[0] = 2000;
		nsizes = 1;
	}
	char machine[256], date[64], cpu[256];
	bench_describe_run(machine, sizeof machine, false, date, sizeof date);
	bench_cpu_model(cpu, sizeof cpu);
	FILE *out = o.out ? fopen(o.out, "w") : NULL;
	if (o.out && !out) {
		fprintf(stderr, "queries: cannot write %s\n", o.out);
		return 2;
	}
	FILE *fs[2] = {stdout, out};
	for (int k = 0; k < 2; k++) {
		if (!fs[k])
			continue;
		fprintf(fs[k], "# queries: the planner queries on static worlds\n\n");
		fprintf(fs[k], "- machine: %s; CPU: %s (%d logical CPUs); run %s\n", machine, cpu, bench_cpu_count(), date);
		fprintf(fs[k],
			"- impact %d, -O2; ns per query, median of %d timed loops over every query pose, the hash "
			"world, the sweep world and FCL timed in turn in each; hash/FCL: the median of the %d "
			"loops' ratios\n",
			imp_version(), o.reps, o.reps);
#ifdef HAVE_FCL
		fprintf(fs[k], "- peer: %s, DynamicAABBTreeCollisionManager with a query object made before timing "
			       "(3D scenes only)\n",
			pqf_version());
#else
		fprintf(fs[k], "- peer: FCL not found at build time\n");
#endif
		fprintf(fs[k], "- bodies: static boxes, spheres (discs) and capsules of size 0.4 to 1.2, about one per "
			       "2^dim cube of side 2; query shape: a box 1.0 x 0.6 (x 0.8)\n");
	}
	int bad = 0;
	bool ok = true;
	for (int dim = 2; dim <= 3 && ok; dim++) {
		if (o.dim != 0 && dim != o.dim)
			continue;
		for (int s = 0; s < nsizes && ok; s++) {
			ok = run_scene(&o, dim, sizes[s], fs, &bad);
		}
	}
	if (out)
		fclose(out);
	if (!ok)
		return 1;
	if (bad > 0)
		fprintf(stderr, "queries: %d answers differ from brute force\n", bad);
	return o.strict && bad > 0 ? 1 : 0;
}
