// SPDX-License-Identifier: MIT
// narrow2d: the 2D narrow-phase benchmark of the barycode GJK paper (Zhang et
// al. 2020, sec. IV and tables I-VI). Random convex polygons of 4 to 24
// vertices, three cases each (distant, overlapping, touching), timed at the
// paper's three levels of answer against Box2D 2.4, libccd (GJK and MPR), a
// brute-force separating-axis test and the brute-force oracle, with every
// answer checked against the oracle in the same run.
//
// Usage: narrow2d [--smoke] [--pairs N] [--reps N] [--seed S] [--out FILE] [--strict]
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "dataset2d.h"
#include "peers.h"

#define N_SIZES 6
static const int k_sizes[N_SIZES] = {4, 8, 12, 16, 20, 24};

#define DEFAULT_PAIRS 1000
#define DEFAULT_REPS 7
#define DEFAULT_SEED UINT64_C(0x20201102) // the paper's preprint date
#define SMOKE_PAIRS 20
#define SMOKE_REPS 1

/// Every timed loop. L1 = overlap, L2 = distance, L3 = closest points;
/// AUTO is the default support mode, BF brute force, HC hill climbing.
typedef enum method {
	M_L1_AUTO,
	M_L1_BF,
	M_L1_HC,
	M_L1_B2D,
	M_L1_GJK,
	M_L1_MPR,
	M_L1_SAT,
	M_ORACLE,
	M_L2_AUTO,
	M_L2_BF,
	M_L2_HC,
	M_L2_B2D,
	M_L3_AUTO,
	M_L3_BF,
	M_L3_HC,
	M_L3_EPA,
	M_COUNT
} method;

/// One cell ready to run: the data set, impact's shapes, the peers' copies.
typedef struct bench_cell {
	const ds_cell *ds;
	imp_shape **sa, **sb;
	imp_query_options bf, hc, epa;
#ifdef HAVE_BOX2D
	b2p_set *b2d;
#endif
#ifdef HAVE_CCD
	ccdp_set *ccd;
#endif
} bench_cell;

/// What one cell measured.
typedef struct cell_result {
	int vertices;
	ds_case kind;
	int count;
	double ns[M_COUNT];  ///< median ns per query, NAN when not run
	int wrong[M_COUNT];  ///< Level-1 answers that disagree with the oracle
	double err[M_COUNT]; ///< max |distance - oracle| (Level 2 and 3)
	double imp_iterations;     ///< mean GJK iterations of imp_distance2_stats (defaults)
	double b2d_iterations;     ///< mean b2Distance iterations
	double l3_iterations;      ///< mean GJK iterations of imp_closest2
	double l3_epa_iterations;  ///< mean penetration iterations of imp_closest2
	int limit_states;          ///< queries that ended at an iteration limit
	int api_errors;            ///< error status, NaN or degenerate on valid input
	int hull_changed;          ///< shapes whose vertex count differs from the data
} cell_result;

/// The options a method runs with: the defaults (NULL), or one support or
/// penetration mode.
typedef enum mode { MODE_DEFAULT, MODE_BF, MODE_HC, MODE_EPA } mode;

typedef double loop_fn(const bench_cell *c, const imp_query_options *o, int count);

typedef struct method_info {
	const char *name;
	loop_fn *loop;
	bool available;
	mode mode;
} method_info;

static const imp_query_options *mode_options(const bench_cell *c, mode m)
{
	const imp_query_options *opts[] = {[MODE_DEFAULT] = NULL, [MODE_BF] = &c->bf, [MODE_HC] = &c->hc,
					   [MODE_EPA] = &c->epa};
	return opts[m];
}

#define PAIR(c, i) (&(c)->ds->pairs[(i)])

// The timed loops: each pair in order, one library call per pair, the
// answers summed so that no call can be dropped. impact's take the
// method's options: NULL times the calls without _ex, which users of the
// defaults make. The other libraries' loops ignore them.

static double loop_l1(const bench_cell *c, const imp_query_options *o, int count)
{
	int n = 0;
	for (int i = 0; i < count; i++)
		n += o == NULL ? imp_overlap2(c->sa[i], PAIR(c, i)->pa, c->sb[i], PAIR(c, i)->pb, NULL)
			       : imp_overlap2_ex(c->sa[i], PAIR(c, i)->pa, c->sb[i], PAIR(c, i)->pb, NULL, o);
	return n;
}

static double loop_l1_sat(const bench_cell *c, const imp_query_options *o, int count)
{
	(void)o;
	int n = 0;
	int v = c->ds->vertices;
	for (int i = 0; i < count; i++)
		n += sat2d_overlap(PAIR(c, i)->va, v, PAIR(c, i)->pa, PAIR(c, i)->vb, v, PAIR(c, i)->pb);
	return n;
}

static double loop_oracle(const bench_cell *c, const imp_query_options *o, int count)
{
	(void)o;
	double sum = 0.0;
	int v = c->ds->vertices;
	for (int i = 0; i < count; i++)
		sum += ds_oracle_distance(PAIR(c, i)->va, v, PAIR(c, i)->pa, PAIR(c, i)->vb, v,
					  PAIR(c, i)->pb, NULL, NULL);
	return sum;
}

static double loop_l2(const bench_cell *c, const imp_query_options *o, int count)
{
	double sum = 0.0;
	for (int i = 0; i < count; i++)
		sum += o == NULL ? imp_distance2(c->sa[i], PAIR(c, i)->pa, c->sb[i], PAIR(c, i)->pb, NULL)
				 : imp_distance2_ex(c->sa[i], PAIR(c, i)->pa, c->sb[i], PAIR(c, i)->pb, NULL, o);
	return sum;
}

static double loop_l3(const bench_cell *c, const imp_query_options *o, int count)
{
	double sum = 0.0;
	for (int i = 0; i < count; i++) {
		imp_closest2_result r;
		imp_status s = o == NULL ? imp_closest2(c->sa[i], PAIR(c, i)->pa, c->sb[i], PAIR(c, i)->pb, NULL, &r)
					 : imp_closest2_ex(c->sa[i], PAIR(c, i)->pa, c->sb[i], PAIR(c, i)->pb, NULL, o, &r);
		if (s == IMP_OK)
			sum += r.distance;
	}
	return sum;
}

#ifdef HAVE_BOX2D
static double loop_l1_b2d(const bench_cell *c, const imp_query_options *o, int count)
{
	(void)o;
	return b2p_overlap_loop(c->b2d, count);
}

static double loop_l2_b2d(const bench_cell *c, const imp_query_options *o, int count)
{
	(void)o;
	return b2p_distance_loop(c->b2d, count);
}
#define HAVE_BOX2D_FLAG true
#else
#define loop_l1_b2d NULL
#define loop_l2_b2d NULL
#define HAVE_BOX2D_FLAG false
#endif

#ifdef HAVE_CCD
static double loop_l1_gjk(const bench_cell *c, const imp_query_options *o, int count)
{
	(void)o;
	return ccdp_gjk_loop(c->ccd, count);
}

static double loop_l1_mpr(const bench_cell *c, const imp_query_options *o, int count)
{
	(void)o;
	return ccdp_mpr_loop(c->ccd, count);
}
#define HAVE_CCD_FLAG true
#else
#define loop_l1_gjk NULL
#define loop_l1_mpr NULL
#define HAVE_CCD_FLAG false
#endif

static const method_info k_methods[M_COUNT] = {
	[M_L1_AUTO] = {"imp_overlap2 AUTO", loop_l1, true, MODE_DEFAULT},
	[M_L1_BF] = {"imp_overlap2 BF", loop_l1, true, MODE_BF},
	[M_L1_HC] = {"imp_overlap2 HC", loop_l1, true, MODE_HC},
	[M_L1_B2D] = {"Box2D b2Distance < 10 eps", loop_l1_b2d, HAVE_BOX2D_FLAG, MODE_DEFAULT},
	[M_L1_GJK] = {"ccdGJKIntersect", loop_l1_gjk, HAVE_CCD_FLAG, MODE_DEFAULT},
	[M_L1_MPR] = {"ccdMPRIntersect", loop_l1_mpr, HAVE_CCD_FLAG, MODE_DEFAULT},
	[M_L1_SAT] = {"SAT", loop_l1_sat, true, MODE_DEFAULT},
	[M_ORACLE] = {"oracle", loop_oracle, true, MODE_DEFAULT},
	[M_L2_AUTO] = {"imp_distance2 AUTO", loop_l2, true, MODE_DEFAULT},
	[M_L2_BF] = {"imp_distance2 BF", loop_l2, true, MODE_BF},
	[M_L2_HC] = {"imp_distance2 HC", loop_l2, true, MODE_HC},
	[M_L2_B2D] = {"Box2D b2Distance", loop_l2_b2d, HAVE_BOX2D_FLAG, MODE_DEFAULT},
	[M_L3_AUTO] = {"imp_closest2 AUTO", loop_l3, true, MODE_DEFAULT},
	[M_L3_BF] = {"imp_closest2 BF", loop_l3, true, MODE_BF},
	[M_L3_HC] = {"imp_closest2 HC", loop_l3, true, MODE_HC},
	[M_L3_EPA] = {"imp_closest2 EPA", loop_l3, true, MODE_EPA},
};

static volatile double g_sink;

static void track_max(double *m, double v)
{
	if (!(v <= *m)) // NaN wins, so a NaN answer shows in the table
		*m = v;
}

static void note_state(cell_result *r, imp_query_state state)
{
	if (state == IMP_STATE_ITERATION_LIMIT)
		r->limit_states++;
	else if (state == IMP_STATE_DEGENERATE)
		r->api_errors++;
}

/// One untimed pass over the cell that checks every method against the
/// oracle (and warms the caches for the timed passes).
static void check_cell(const bench_cell *c, cell_result *r)
{
	const ds_cell *ds = c->ds;
	const method l1[3] = {M_L1_AUTO, M_L1_BF, M_L1_HC};
	const method l2[3] = {M_L2_AUTO, M_L2_BF, M_L2_HC};
	const method l3[3] = {M_L3_AUTO, M_L3_BF, M_L3_HC};
	double it = 0.0, b2d_it = 0.0, l3_it = 0.0, l3_epa = 0.0;
	for (int m = 0; m < M_COUNT; m++) {
		r->wrong[m] = 0;
		r->err[m] = 0.0;
	}
	for (int i = 0; i < ds->count; i++) {
		const ds_pair *p = &ds->pairs[i];
		bool truth = p->distance <= 0.0;
		double truth_d = p->distance > 0.0 ? p->distance : 0.0;
		for (int k = 0; k < 3; k++) {
			const imp_query_options *opts = mode_options(c, k_methods[l1[k]].mode);
			bool o = k == 0 ? imp_overlap2(c->sa[i], p->pa, c->sb[i], p->pb, NULL)
					: imp_overlap2_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, opts);
			r->wrong[l1[k]] += o != truth;
			double d = k == 0 ? imp_distance2(c->sa[i], p->pa, c->sb[i], p->pb, NULL)
					  : imp_distance2_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, opts);
			if (isnan(d))
				r->api_errors++;
			track_max(&r->err[l2[k]], fabs(d - truth_d));
			imp_closest2_result res;
			imp_status s = k == 0 ? imp_closest2(c->sa[i], p->pa, c->sb[i], p->pb, NULL, &res)
					      : imp_closest2_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, opts, &res);
			if (s != IMP_OK) {
				r->api_errors++;
				r->err[l3[k]] = NAN;
				continue;
			}
			note_state(r, res.state);
			track_max(&r->err[l3[k]], fabs(res.distance - p->distance));
			if (k == 0) {
				l3_it += res.iterations;
				l3_epa += res.epa_iterations;
			}
		}
		int iterations = 0;
		imp_query_state state = IMP_STATE_SEPARATED;
		double d = imp_distance2_stats(c->sa[i], p->pa, c->sb[i], p->pb, NULL, NULL, &iterations, &state);
		if (isnan(d))
			r->api_errors++;
		note_state(r, state);
		it += iterations;
		r->wrong[M_L1_SAT] += sat2d_overlap(p->va, ds->vertices, p->pa, p->vb, ds->vertices, p->pb) != truth;
		double od = ds_oracle_distance(p->va, ds->vertices, p->pa, p->vb, ds->vertices, p->pb, NULL, NULL);
		r->wrong[M_ORACLE] += (od <= 0.0) != truth;
#ifdef HAVE_BOX2D
		int b2_iterations = 0;
		double bd = b2p_distance_one(c->b2d, i, &b2_iterations, NULL, NULL);
		b2d_it += b2_iterations;
		track_max(&r->err[M_L2_B2D], fabs(bd - truth_d));
		r->wrong[M_L1_B2D] += b2p_overlap_one(c->b2d, i) != truth;
#endif
#ifdef HAVE_CCD
		r->wrong[M_L1_GJK] += ccdp_gjk_one(c->ccd, i) != truth;
		r->wrong[M_L1_MPR] += ccdp_mpr_one(c->ccd, i) != truth;
#endif
	}
	r->imp_iterations = it / ds->count;
	r->b2d_iterations = b2d_it / ds->count;
	r->l3_iterations = l3_it / ds->count;
	r->l3_epa_iterations = l3_epa / ds->count;
}

/// Times every available method: `reps` passes over the cell, the methods
/// taking turns inside each pass so that drift spreads evenly over them, each
/// timed pass right after an untimed one of the same method.
static int time_cell(const bench_cell *c, cell_result *r, int reps)
{
	double *samples = malloc(sizeof(double) * (size_t)reps * M_COUNT);
	if (!samples)
		return -1;
	int count = c->ds->count;
	for (int rep = 0; rep < reps; rep++) {
		for (int m = 0; m < M_COUNT; m++) {
			if (!k_methods[m].available)
				continue;
			// An untimed pass first: every method is timed with its own
			// data in the caches, not with what the method before it
			// left there (a 24-gon cell is ~1 MB per copy).
			const imp_query_options *opts = mode_options(c, k_methods[m].mode);
			g_sink += k_methods[m].loop(c, opts, count);
			double t0 = bench_now_ns();
			double acc = k_methods[m].loop(c, opts, count);
			double t1 = bench_now_ns();
			g_sink += acc;
			samples[m * reps + rep] = (t1 - t0) / count;
		}
	}
	for (int m = 0; m < M_COUNT; m++)
		r->ns[m] = k_methods[m].available ? bench_median(samples + m * reps, reps) : NAN;
	free(samples);
	return 0;
}

static void free_bench_cell(bench_cell *c)
{
	if (c->sa)
		for (int i = 0; i < c->ds->count; i++)
			imp_shape_destroy(c->sa[i]);
	if (c->sb)
		for (int i = 0; i < c->ds->count; i++)
			imp_shape_destroy(c->sb[i]);
	free(c->sa);
	free(c->sb);
	c->sa = c->sb = NULL;
#ifdef HAVE_BOX2D
	b2p_destroy(c->b2d);
	c->b2d = NULL;
#endif
#ifdef HAVE_CCD
	ccdp_destroy(c->ccd);
	c->ccd = NULL;
#endif
}

/// impact's shapes and the peers' copies of a cell. Returns 0 or -1 (message
/// printed).
static int make_bench_cell(bench_cell *c, const ds_cell *ds, cell_result *r)
{
	memset(c, 0, sizeof *c);
	c->ds = ds;
	c->bf = imp_default_query_options();
	c->bf.support = IMP_SUPPORT_BRUTE_FORCE;
	c->hc = imp_default_query_options();
	c->hc.support = IMP_SUPPORT_HILL_CLIMB;
	c->epa = imp_default_query_options();
	c->epa.penetration = IMP_PENETRATION_EPA;
	c->sa = calloc((size_t)ds->count, sizeof *c->sa);
	c->sb = calloc((size_t)ds->count, sizeof *c->sb);
	if (!c->sa || !c->sb) {
		fprintf(stderr, "narrow2d: out of memory\n");
		free_bench_cell(c);
		return -1;
	}
	for (int i = 0; i < ds->count; i++) {
		const ds_pair *p = &ds->pairs[i];
		imp_status sa = imp_shape_polygon(p->va, ds->vertices, 0.0, &c->sa[i]);
		imp_status sb = imp_shape_polygon(p->vb, ds->vertices, 0.0, &c->sb[i]);
		if (sa != IMP_OK || sb != IMP_OK) {
			fprintf(stderr, "narrow2d: imp_shape_polygon failed: %s\n",
				imp_status_string(sa != IMP_OK ? sa : sb));
			free_bench_cell(c);
			return -1;
		}
		r->hull_changed += imp_shape_vertex_count(c->sa[i]) != ds->vertices;
		r->hull_changed += imp_shape_vertex_count(c->sb[i]) != ds->vertices;
	}
#ifdef HAVE_BOX2D
	c->b2d = b2p_create(ds);
	if (!c->b2d) {
		fprintf(stderr, "narrow2d: out of memory (Box2D copy)\n");
		free_bench_cell(c);
		return -1;
	}
#endif
#ifdef HAVE_CCD
	c->ccd = ccdp_create(ds);
	if (!c->ccd) {
		fprintf(stderr, "narrow2d: out of memory (libccd copy)\n");
		free_bench_cell(c);
		return -1;
	}
#endif
	return 0;
}

// ---- report ----------------------------------------------------------------

typedef struct report {
	int pairs, reps;
	uint64_t seed;
	bool smoke;
	char machine[400];
	char cpu[256];
	int cpus;
	char date[64];
	cell_result cells[N_SIZES * DS_CASE_COUNT];
} report;

static void put_ns(FILE *f, double ns)
{
	if (isnan(ns))
		fprintf(f, " - |");
	else
		fprintf(f, " %.1f |", ns);
}

static void put_ratio(FILE *f, double num, double den)
{
	if (isnan(num) || isnan(den) || den <= 0.0)
		fprintf(f, " - |");
	else
		fprintf(f, " %.2f |", num / den);
}

static void put_wrong(FILE *f, const cell_result *r, method m, bool last)
{
	if (k_methods[m].available)
		fprintf(f, "%d", r->wrong[m]);
	else
		fprintf(f, "-");
	fprintf(f, last ? " |" : "/");
}

static void put_err(FILE *f, double e, bool available)
{
	if (!available)
		fprintf(f, " - |");
	else
		fprintf(f, " %.1e |", e);
}

static double max3(double a, double b, double c)
{
	double m = a;
	track_max(&m, b);
	track_max(&m, c);
	return m;
}

static void print_report(FILE *f, const report *rep)
{
	imp_query_options def = imp_default_query_options();
	fprintf(f, "# narrow2d: 2D narrow phase, impact against its peers\n\n");
	fprintf(f, "- machine: %s; CPU: %s (%d logical CPUs)\n", rep->machine, rep->cpu, rep->cpus);
#if defined(__OPTIMIZE__)
	const char *optimised = "optimised (-O2 from bench/meson.build)";
#else
	const char *optimised = "NOT optimised: the numbers mean nothing";
#endif
#if defined(__VERSION__)
	fprintf(f, "- compiler: %s, %s\n", __VERSION__, optimised);
#else
	fprintf(f, "- compiler: unknown, %s\n", optimised);
#endif
	fprintf(f, "- impact %d, default support mode AUTO climbs from %d vertices, max %d GJK iterations\n",
		imp_version(), def.hill_climb_min_vertices, def.max_iterations);
	fprintf(f, "- peers:");
#ifdef HAVE_BOX2D
#ifdef BOX2D_VERSION_TEXT
	const char *box2d_version = BOX2D_VERSION_TEXT;
#else
	const char *box2d_version = "?";
#endif
	// Box2D 2.4.1 still says 2.4.0 in b2_version: print both.
	fprintf(f, " Box2D %s (b2_version %s; b2Distance, float);", box2d_version, b2p_version());
#else
	fprintf(f, " Box2D skipped (not found at build time);");
#endif
#ifdef HAVE_CCD
#ifdef CCD_VERSION_TEXT
	const char *ccd_version = CCD_VERSION_TEXT;
#else
	const char *ccd_version = "?";
#endif
	fprintf(f, " libccd %s (ccdGJKIntersect, ccdMPRIntersect; polygons as prisms z in [-0.5, 0.5]);",
		ccd_version);
#else
	fprintf(f, " libccd skipped (not found at build time);");
#endif
	fprintf(f, " SAT (brute force, bench/sat2d.c); oracle (brute force, bench/dataset2d.c)\n");
	fprintf(f, "- data: the barycode paper's: random convex n-gons (ellipse of size ~1), %d pairs per "
		   "cell, seed 0x%" PRIx64 "; touching pairs are %.0e apart%s\n",
		rep->pairs, rep->seed, DS_TOUCH_GAP, rep->smoke ? " (--smoke: numbers are not measurements)" : "");
	fprintf(f, "- time: ns per query, median of %d repetitions of the %d-pair loop "
		   "after an untimed warm-up loop of the same method (CLOCK_MONOTONIC; no simplex cache "
		   "between queries); run %s\n",
		rep->reps, rep->pairs, rep->date);
	fprintf(f, "- modes: AUTO = imp_xxx2 defaults, BF = brute-force support, HC = hill climbing; "
		   "ratios use AUTO; wrong = Level-1 answers that disagree with the oracle "
		   "(touching pairs are apart: overlap is false)\n\n");

	fprintf(f, "## Level 1: overlap (yes/no)\n\n");
	fprintf(f, "| n | case | AUTO | BF | HC | Box2D | ccd GJK | ccd MPR | SAT | oracle | AUTO/Box2D | "
		   "AUTO/fastest peer | wrong A/B/H | wrong Box2D/GJK/MPR/SAT |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
	for (int i = 0; i < N_SIZES * DS_CASE_COUNT; i++) {
		const cell_result *r = &rep->cells[i];
		fprintf(f, "| %d | %s |", r->vertices, ds_case_name(r->kind));
		const method cols[] = {M_L1_AUTO, M_L1_BF, M_L1_HC, M_L1_B2D, M_L1_GJK, M_L1_MPR, M_L1_SAT, M_ORACLE};
		for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
			put_ns(f, r->ns[cols[k]]);
		put_ratio(f, r->ns[M_L1_AUTO], r->ns[M_L1_B2D]);
		const method peers[] = {M_L1_B2D, M_L1_GJK, M_L1_MPR, M_L1_SAT};
		const char *peer_names[] = {"Box2D", "GJK", "MPR", "SAT"};
		int fastest = -1;
		for (int k = 0; k < 4; k++)
			if (!isnan(r->ns[peers[k]]) && (fastest < 0 || r->ns[peers[k]] < r->ns[peers[fastest]]))
				fastest = k;
		if (fastest < 0 || !(r->ns[peers[fastest]] > 0.0))
			fprintf(f, " - |");
		else
			fprintf(f, " %.2f (%s) |", r->ns[M_L1_AUTO] / r->ns[peers[fastest]], peer_names[fastest]);
		fprintf(f, " ");
		put_wrong(f, r, M_L1_AUTO, false);
		put_wrong(f, r, M_L1_BF, false);
		put_wrong(f, r, M_L1_HC, true);
		fprintf(f, " ");
		put_wrong(f, r, M_L1_B2D, false);
		put_wrong(f, r, M_L1_GJK, false);
		put_wrong(f, r, M_L1_MPR, false);
		put_wrong(f, r, M_L1_SAT, true);
		fprintf(f, "\n");
	}

	fprintf(f, "\n## Level 2: distance\n\n");
	fprintf(f, "| n | case | AUTO | BF | HC | Box2D | oracle | AUTO/Box2D | GJK it. | Box2D it. | "
		   "max err A/B/H | max err Box2D |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < N_SIZES * DS_CASE_COUNT; i++) {
		const cell_result *r = &rep->cells[i];
		fprintf(f, "| %d | %s |", r->vertices, ds_case_name(r->kind));
		const method cols[] = {M_L2_AUTO, M_L2_BF, M_L2_HC, M_L2_B2D, M_ORACLE};
		for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
			put_ns(f, r->ns[cols[k]]);
		put_ratio(f, r->ns[M_L2_AUTO], r->ns[M_L2_B2D]);
		fprintf(f, " %.2f |", r->imp_iterations);
		if (k_methods[M_L2_B2D].available)
			fprintf(f, " %.2f |", r->b2d_iterations);
		else
			fprintf(f, " - |");
		put_err(f, max3(r->err[M_L2_AUTO], r->err[M_L2_BF], r->err[M_L2_HC]), true);
		put_err(f, r->err[M_L2_B2D], k_methods[M_L2_B2D].available);
		fprintf(f, "\n");
	}

	fprintf(f, "\n## Level 3: closest points, normal, penetration\n\n");
	fprintf(f, "Box2D's column is its b2Distance again (it finds witness points on every call, "
		   "but no penetration).\n\n");
	fprintf(f, "EPA: AUTO but with the expanding polygon for overlapping polygons (the default walks "
		   "the Minkowski difference's edges).\n\n");
	fprintf(f, "| n | case | AUTO | BF | HC | EPA | Box2D | AUTO/Box2D | GJK it. | EPA it. | max err A/B/H |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < N_SIZES * DS_CASE_COUNT; i++) {
		const cell_result *r = &rep->cells[i];
		fprintf(f, "| %d | %s |", r->vertices, ds_case_name(r->kind));
		const method cols[] = {M_L3_AUTO, M_L3_BF, M_L3_HC, M_L3_EPA, M_L2_B2D};
		for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
			put_ns(f, r->ns[cols[k]]);
		put_ratio(f, r->ns[M_L3_AUTO], r->ns[M_L2_B2D]);
		fprintf(f, " %.2f | %.2f |", r->l3_iterations, r->l3_epa_iterations);
		put_err(f, max3(r->err[M_L3_AUTO], r->err[M_L3_BF], r->err[M_L3_HC]), true);
		fprintf(f, "\n");
	}

	fprintf(f, "\n## Hill climbing against brute force (HC time / BF time, geometric mean of the 3 cases)\n\n");
	fprintf(f, "| n | Level 1 | Level 2 | Level 3 |\n|---|---:|---:|---:|\n");
	for (int s = 0; s < N_SIZES; s++) {
		fprintf(f, "| %d |", k_sizes[s]);
		const method bf[3] = {M_L1_BF, M_L2_BF, M_L3_BF};
		const method hc[3] = {M_L1_HC, M_L2_HC, M_L3_HC};
		for (int l = 0; l < 3; l++) {
			double log_sum = 0.0;
			for (int k = 0; k < DS_CASE_COUNT; k++) {
				const cell_result *r = &rep->cells[s * DS_CASE_COUNT + k];
				log_sum += log(r->ns[hc[l]] / r->ns[bf[l]]);
			}
			double g = exp(log_sum / DS_CASE_COUNT);
			if (isfinite(g))
				fprintf(f, " %.2f |", g);
			else
				fprintf(f, " - |");
		}
		fprintf(f, "\n");
	}

	bool notes = false;
	for (int i = 0; i < N_SIZES * DS_CASE_COUNT; i++) {
		const cell_result *r = &rep->cells[i];
		if (!r->limit_states && !r->api_errors && !r->hull_changed)
			continue;
		if (!notes)
			fprintf(f, "\n## Notes\n\n");
		notes = true;
		fprintf(f, "- n = %d, %s: %d queries ended at an iteration limit, %d API errors "
			   "(error status, NaN or degenerate), %d shapes whose hull lost vertices\n",
			r->vertices, ds_case_name(r->kind), r->limit_states, r->api_errors, r->hull_changed);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: narrow2d [--smoke] [--pairs N] [--reps N] [--seed S] [--out FILE] [--strict]\n"
		   "  --smoke     %d pairs, %d repetition: checks every code path in well under a second\n"
		   "  --pairs N   pairs per cell (default %d)\n"
		   "  --reps N    timed repetitions per cell, the median is reported (default %d)\n"
		   "  --seed S    data set seed (default 0x%" PRIx64 ")\n"
		   "  --out FILE  also write the Markdown report to FILE\n"
		   "  --strict    exit 1 when impact disagrees with the oracle (Level 1, or a\n"
		   "              distance off by more than 1e-9) or hits an iteration limit\n",
		SMOKE_PAIRS, SMOKE_REPS, DEFAULT_PAIRS, DEFAULT_REPS, DEFAULT_SEED);
}

int main(int argc, char **argv)
{
	static report rep;
	rep.pairs = DEFAULT_PAIRS;
	rep.reps = DEFAULT_REPS;
	rep.seed = DEFAULT_SEED;
	const char *out_path = NULL;
	bool strict = false, pairs_set = false, reps_set = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			rep.smoke = true;
		} else if (!strcmp(a, "--strict")) {
			strict = true;
		} else if (!strcmp(a, "--pairs") && v && bench_parse_int(v, 1, 10000000, &rep.pairs)) {
			pairs_set = true;
			i++;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &rep.reps)) {
			reps_set = true;
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			char *end;
			errno = 0;
			rep.seed = strtoull(v, &end, 0);
			if (errno || end == v || *end) {
				usage(stderr);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--out") && v) {
			out_path = v;
			i++;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "narrow2d: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (rep.smoke) {
		if (!pairs_set)
			rep.pairs = SMOKE_PAIRS;
		if (!reps_set)
			rep.reps = SMOKE_REPS;
	}

	bench_describe_run(rep.machine, sizeof rep.machine, true, rep.date, sizeof rep.date);
	bench_cpu_model(rep.cpu, sizeof rep.cpu);
	rep.cpus = bench_cpu_count();
#ifndef HAVE_BOX2D
	fprintf(stderr, "narrow2d: peer Box2D skipped (not found at build time)\n");
#endif
#ifndef HAVE_CCD
	fprintf(stderr, "narrow2d: peer libccd skipped (not found at build time)\n");
#endif

	// Busy the CPU for a moment first, so that the first cell is not timed
	// while the clock may still be ramping up.
	if (!rep.smoke) {
		double t0 = bench_now_ns();
		double x = 1.0;
		while (bench_now_ns() - t0 < 300e6)
			for (int i = 0; i < 1000; i++)
				x = x * 1.0000001 + 1e-9;
		g_sink += x;
	}

	int failures = 0;
	bool strict_fail = false;
	double start = bench_now_ns();
	for (int s = 0; s < N_SIZES; s++) {
		for (int k = 0; k < DS_CASE_COUNT; k++) {
			cell_result *r = &rep.cells[s * DS_CASE_COUNT + k];
			memset(r, 0, sizeof *r);
			r->vertices = k_sizes[s];
			r->kind = (ds_case)k;
			r->count = rep.pairs;
			for (int m = 0; m < M_COUNT; m++)
				r->ns[m] = NAN;
			ds_cell ds;
			if (ds_cell_make(&ds, k_sizes[s], (ds_case)k, rep.pairs, rep.seed) != 0) {
				fprintf(stderr, "narrow2d: could not make the %d-gon %s cell\n", k_sizes[s],
					ds_case_name((ds_case)k));
				return 1;
			}
			bench_cell c;
			if (make_bench_cell(&c, &ds, r) != 0) {
				ds_cell_free(&ds);
				return 1;
			}
			check_cell(&c, r);
			if (time_cell(&c, r, rep.reps) != 0) {
				fprintf(stderr, "narrow2d: out of memory\n");
				return 1;
			}
			free_bench_cell(&c);
			ds_cell_free(&ds);
			failures += r->api_errors;
			const method l1[3] = {M_L1_AUTO, M_L1_BF, M_L1_HC};
			for (int q = 0; q < 3; q++)
				strict_fail |= r->wrong[l1[q]] != 0;
			const method dm[6] = {M_L2_AUTO, M_L2_BF, M_L2_HC, M_L3_AUTO, M_L3_BF, M_L3_HC};
			for (int q = 0; q < 6; q++)
				strict_fail |= !(r->err[dm[q]] <= 1e-9);
			strict_fail |= r->limit_states != 0 || r->hull_changed != 0;
			if (!rep.smoke)
				fprintf(stderr, "narrow2d: %2d-gons %-11s done (%.1f s)\n", k_sizes[s],
					ds_case_name((ds_case)k), (bench_now_ns() - start) * 1e-9);
		}
	}

	print_report(stdout, &rep);
	if (out_path) {
		FILE *f = fopen(out_path, "w");
		if (!f) {
			fprintf(stderr, "narrow2d: cannot write %s: %s\n", out_path, strerror(errno));
			return 1;
		}
		print_report(f, &rep);
		if (fclose(f) != 0) {
			fprintf(stderr, "narrow2d: cannot write %s\n", out_path);
			return 1;
		}
	}
	if (failures) {
		fprintf(stderr, "narrow2d: %d impact queries failed on valid input (see Notes)\n", failures);
		return 1;
	}
	if (strict && strict_fail) {
		fprintf(stderr, "narrow2d: --strict: impact disagrees with the oracle (see the tables)\n");
		return 1;
	}
	return 0;
}
