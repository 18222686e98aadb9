// SPDX-License-Identifier: MIT
// bench/narrow3d: impact's 3D narrow phase against libccd, FCL and Bullet
// on the data set of dataset3d.c (polytopes of 8 to 512 vertices, boxes,
// capsules, ellipsoids; distant, close and overlapping), with every answer
// checked against the brute-force oracle. Prints Markdown tables of median
// ns per query, ratios to the peers measured in the same run, iterations
// and errors; and the Nesterov study (iterations of plain against
// accelerated GJK by separation, on ellipsoids).
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "dataset3d.h"
#include "peers3.h"

#define DEFAULT_PAIRS 1000
#define DEFAULT_REPS 7
#define DEFAULT_SEED 0x3d3d2026u
#define SMOKE_PAIRS 20
#define SMOKE_REPS 1

/// Every timed method. M1: overlap, M2: distance, M3: signed distance with
/// witness points (penetration when overlapping).
typedef enum method {
	M1_AUTO,
	M1_PLAIN,
	M1_NEST,
	M1_CCD_GJK,
	M1_CCD_MPR,
	M1_FCL_CCD,
	M1_FCL_INDEP,
	M2_AUTO,
	M2_PLAIN,
	M2_NEST,
	M2_BF,
	M2_HC,
	M2_FCL_CCD,
	M2_FCL_INDEP,
	M3_AUTO,
	M3_FCL_SIGNED,
	M3_BULLET,
	M3_CCD_GJK_PEN,
	M3_CCD_MPR_PEN,
	M_COUNT
} method;

typedef enum family { F_IMPACT, F_CCD, F_FCL, F_BULLET } family;

typedef struct method_info {
	const char *name;
	family fam;
	int level;
	int peer_method; ///< the peer's own method number; impact: which options
} method_info;

enum { OPT_AUTO, OPT_PLAIN, OPT_NEST, OPT_BF, OPT_HC, OPT_COUNT };

static const method_info k_methods[M_COUNT] = {
	[M1_AUTO] = {"imp_overlap3", F_IMPACT, 1, OPT_AUTO},
	[M1_PLAIN] = {"imp_overlap3 plain", F_IMPACT, 1, OPT_PLAIN},
	[M1_NEST] = {"imp_overlap3 Nesterov", F_IMPACT, 1, OPT_NEST},
#ifdef HAVE_CCD
	[M1_CCD_GJK] = {"ccdGJKIntersect", F_CCD, 1, CCD3_GJK},
	[M1_CCD_MPR] = {"ccdMPRIntersect", F_CCD, 1, CCD3_MPR},
	[M3_CCD_GJK_PEN] = {"ccdGJKPenetration", F_CCD, 3, CCD3_GJK_PENETRATION},
	[M3_CCD_MPR_PEN] = {"ccdMPRPenetration", F_CCD, 3, CCD3_MPR_PENETRATION},
#endif
#ifdef HAVE_FCL
	[M1_FCL_CCD] = {"FCL libccd collide", F_FCL, 1, FCL3_CCD_COLLIDE},
	[M1_FCL_INDEP] = {"FCL indep collide", F_FCL, 1, FCL3_INDEP_COLLIDE},
	[M2_FCL_CCD] = {"FCL libccd distance", F_FCL, 2, FCL3_CCD_DISTANCE},
	[M2_FCL_INDEP] = {"FCL indep distance", F_FCL, 2, FCL3_INDEP_DISTANCE},
	[M3_FCL_SIGNED] = {"FCL libccd signed distance", F_FCL, 3, FCL3_CCD_SIGNED_DISTANCE},
#endif
#ifdef HAVE_BULLET
	[M3_BULLET] = {"Bullet btGjkPairDetector", F_BULLET, 3, BT3_GJK_EPA},
#endif
	[M2_AUTO] = {"imp_distance3", F_IMPACT, 2, OPT_AUTO},
	[M2_PLAIN] = {"imp_distance3 plain", F_IMPACT, 2, OPT_PLAIN},
	[M2_NEST] = {"imp_distance3 Nesterov", F_IMPACT, 2, OPT_NEST},
	[M2_BF] = {"imp_distance3 brute force", F_IMPACT, 2, OPT_BF},
	[M2_HC] = {"imp_distance3 hill climbing", F_IMPACT, 2, OPT_HC},
	[M3_AUTO] = {"imp_closest3", F_IMPACT, 3, OPT_AUTO},
};

static bool available(method m)
{
	return k_methods[m].name != NULL;
}

/// One cell: the data set's pairs, impact's shapes and the peers' copies.
typedef struct bench_cell {
	const ds3_cell *ds;
	imp_shape **sa, **sb;
	imp_query_options opts[OPT_COUNT];
#ifdef HAVE_CCD
	ccd3_set *ccd;
#endif
#ifdef HAVE_FCL
	fcl3_set *fcl;
#endif
#ifdef HAVE_BULLET
	bt3_set *bt;
#endif
} bench_cell;

/// What one cell measured.
typedef struct cell_result {
	ds3_pairing pairing;
	ds3_case kind;
	double ns[M_COUNT];
	double err[M_COUNT]; ///< max |signed distance - oracle| where the oracle has one
	int wrong[M_COUNT];  ///< overlap verdicts against the oracle's
	int missing[M_COUNT]; ///< no answer (NaN, error status, iteration limit)
	double it_plain, it_nest, it_auto; ///< mean GJK iterations of imp_distance3
	double epa_it;       ///< mean EPA (and descent) iterations of imp_closest3
} cell_result;

static volatile double g_sink;

static const imp_query_options *options_of(const bench_cell *c, method m)
{
	int k = k_methods[m].peer_method;
	return k == OPT_AUTO ? NULL : &c->opts[k];
}

/// The timed loop of a method over pairs 0 .. count-1: one library call per
/// pair, the answers summed so that no call can be dropped.
static double run_loop(const bench_cell *c, method m, int count)
{
	const method_info *mi = &k_methods[m];
	double sum = 0.0;
	switch (mi->fam) {
	case F_IMPACT: {
		const imp_query_options *o = options_of(c, m);
		const ds3_pair *p = c->ds->pairs;
		if (mi->level == 1) {
			for (int i = 0; i < count; ++i)
				sum += o == NULL ? imp_overlap3(c->sa[i], p[i].pa, c->sb[i], p[i].pb, NULL)
						 : imp_overlap3_ex(c->sa[i], p[i].pa, c->sb[i], p[i].pb, NULL, o);
		} else if (mi->level == 2) {
			for (int i = 0; i < count; ++i)
				sum += o == NULL ? imp_distance3(c->sa[i], p[i].pa, c->sb[i], p[i].pb, NULL)
						 : imp_distance3_ex(c->sa[i], p[i].pa, c->sb[i], p[i].pb, NULL, o);
		} else {
			for (int i = 0; i < count; ++i) {
				imp_closest3_result r;
				if (imp_closest3(c->sa[i], p[i].pa, c->sb[i], p[i].pb, NULL, &r) == IMP_OK)
					sum += r.distance;
			}
		}
		return sum;
	}
#ifdef HAVE_CCD
	case F_CCD:
		return ccd3_loop(c->ccd, (ccd3_method)mi->peer_method, count);
#endif
#ifdef HAVE_FCL
	case F_FCL:
		return fcl3_loop(c->fcl, (fcl3_method)mi->peer_method, count);
#endif
#ifdef HAVE_BULLET
	case F_BULLET:
		return bt3_loop(c->bt, (bt3_method)mi->peer_method, count);
#endif
	default:
		return 0.0;
	}
}

/// A method's answer for pair i, in the peers' form.
static void run_one(const bench_cell *c, method m, int i, peer3_answer *out)
{
	const method_info *mi = &k_methods[m];
	const ds3_pair *p = &c->ds->pairs[i];
	imp_vec3 nan3 = {NAN, NAN, NAN};
	switch (mi->fam) {
	case F_IMPACT: {
		const imp_query_options *o = options_of(c, m);
		*out = (peer3_answer){false, NAN, nan3, nan3, nan3, 0};
		if (mi->level == 1) {
			out->overlap = imp_overlap3_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, o);
		} else if (mi->level == 2) {
			out->distance = imp_distance3_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, o);
			out->overlap = out->distance <= 0.0;
		} else {
			imp_closest3_result r;
			out->status = imp_closest3_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, o, &r);
			if (out->status == IMP_OK && r.state != IMP_STATE_ITERATION_LIMIT &&
			    r.state != IMP_STATE_DEGENERATE) {
				out->distance = r.distance;
				out->overlap = r.distance <= 0.0;
				out->point_a = r.point_a;
				out->point_b = r.point_b;
				out->normal = r.normal;
			}
		}
		return;
	}
#ifdef HAVE_CCD
	case F_CCD:
		ccd3_one(c->ccd, (ccd3_method)mi->peer_method, i, out);
		return;
#endif
#ifdef HAVE_FCL
	case F_FCL:
		fcl3_one(c->fcl, (fcl3_method)mi->peer_method, i, out);
		return;
#endif
#ifdef HAVE_BULLET
	case F_BULLET:
		bt3_one(c->bt, (bt3_method)mi->peer_method, i, out);
		return;
#endif
	default:
		*out = (peer3_answer){false, NAN, nan3, nan3, nan3, -1};
	}
}

static void track_max(double *m, double v)
{
	if (!(v <= *m)) // NaN wins, so a NaN answer shows in the table
		*m = v;
}

/// An untimed pass checking every method against the oracle.
static void check_cell(const bench_cell *c, cell_result *r)
{
	const ds3_cell *ds = c->ds;
	double it[3] = {0, 0, 0}, epa = 0.0;
	for (int i = 0; i < ds->count; ++i) {
		const ds3_pair *p = &ds->pairs[i];
		const ds3_answer *ref = &p->ref;
		for (int m = 0; m < M_COUNT; ++m) {
			if (!available((method)m))
				continue;
			peer3_answer a;
			run_one(c, (method)m, i, &a);
			int level = k_methods[m].level;
			// Penetration methods only answer overlapping pairs.
			bool pen_only = m == M3_CCD_GJK_PEN || m == M3_CCD_MPR_PEN;
			if (level == 1 || pen_only)
				r->wrong[m] += a.overlap != ref->overlap;
			if (level == 1 || (pen_only && !ref->overlap))
				continue;
			if (isnan(a.distance)) {
				r->missing[m]++;
				continue;
			}
			double want = level == 2 ? fmax(ref->distance, 0.0) : ref->distance;
			if (!isnan(want))
				track_max(&r->err[m], fabs(a.distance - want));
			if (level >= 2 && !pen_only)
				r->wrong[m] += (a.distance <= 0.0) != ref->overlap;
		}
		const imp_query_options *modes[3] = {NULL, &c->opts[OPT_PLAIN], &c->opts[OPT_NEST]};
		for (int k = 0; k < 3; ++k) {
			int n = 0;
			imp_distance3_stats(c->sa[i], p->pa, c->sb[i], p->pb, NULL, modes[k], &n, NULL);
			it[k] += n;
		}
		imp_closest3_result cr;
		if (imp_closest3(c->sa[i], p->pa, c->sb[i], p->pb, NULL, &cr) == IMP_OK)
			epa += cr.epa_iterations;
	}
	r->it_auto = it[0] / ds->count;
	r->it_plain = it[1] / ds->count;
	r->it_nest = it[2] / ds->count;
	r->epa_it = epa / ds->count;
}

/// Every method `reps` times over the cell, taking turns inside each
/// repetition; each timed pass after an untimed pass of the same method.
static int time_cell(const bench_cell *c, cell_result *r, int reps)
{
	double *samples = malloc(sizeof(double) * (size_t)reps * M_COUNT);
	if (!samples)
		return -1;
	int count = c->ds->count;
	for (int rep = 0; rep < reps; ++rep) {
		for (int m = 0; m < M_COUNT; ++m) {
			if (!available((method)m))
				continue;
			g_sink += run_loop(c, (method)m, count);
			double t0 = bench_now_ns();
			double acc = run_loop(c, (method)m, count);
			double t1 = bench_now_ns();
			g_sink += acc;
			samples[m * reps + rep] = (t1 - t0) / count;
		}
	}
	for (int m = 0; m < M_COUNT; ++m)
		r->ns[m] = available((method)m) ? bench_median(samples + m * reps, reps) : NAN;
	free(samples);
	return 0;
}

static void free_bench_cell(bench_cell *c)
{
	if (c->sa)
		for (int i = 0; i < c->ds->count; ++i)
			imp_shape_destroy(c->sa[i]);
	if (c->sb)
		for (int i = 0; i < c->ds->count; ++i)
			imp_shape_destroy(c->sb[i]);
	free(c->sa);
	free(c->sb);
	c->sa = c->sb = NULL;
#ifdef HAVE_CCD
	if (c->ccd)
		ccd3_destroy(c->ccd);
	c->ccd = NULL;
#endif
#ifdef HAVE_FCL
	if (c->fcl)
		fcl3_destroy(c->fcl);
	c->fcl = NULL;
#endif
#ifdef HAVE_BULLET
	if (c->bt)
		bt3_destroy(c->bt);
	c->bt = NULL;
#endif
}

/// impact's shape for a data set shape.
static imp_status make_shape(const ds3_shape *s, imp_shape **out)
{
	switch (s->kind) {
	case DS3_POLYTOPE:
		return imp_shape_polytope(s->vertices, s->vertex_count, 0.0, out);
	case DS3_BOX:
		return imp_shape_box3(s->size.x, s->size.y, s->size.z, 0.0, out);
	case DS3_CAPSULE:
		return imp_shape_capsule3(imp_vec3_make(0, 0, -s->half_length), imp_vec3_make(0, 0, s->half_length),
					  s->radius, out);
	case DS3_ELLIPSOID:
		return imp_shape_ellipsoid(s->size.x, s->size.y, s->size.z, 0.0, out);
	default:
		return IMP_ERR_BAD_SHAPE;
	}
}

static int make_bench_cell(bench_cell *c, const ds3_cell *ds)
{
	memset(c, 0, sizeof *c);
	c->ds = ds;
	for (int k = 0; k < OPT_COUNT; ++k)
		c->opts[k] = imp_default_query_options();
	c->opts[OPT_PLAIN].acceleration = IMP_ACCELERATION_NONE;
	c->opts[OPT_NEST].acceleration = IMP_ACCELERATION_NESTEROV;
	c->opts[OPT_BF].support = IMP_SUPPORT_BRUTE_FORCE;
	c->opts[OPT_HC].support = IMP_SUPPORT_HILL_CLIMB;
	c->sa = calloc((size_t)ds->count, sizeof *c->sa);
	c->sb = calloc((size_t)ds->count, sizeof *c->sb);
	if (!c->sa || !c->sb) {
		fprintf(stderr, "narrow3d: out of memory\n");
		free_bench_cell(c);
		return -1;
	}
	for (int i = 0; i < ds->count; ++i) {
		imp_status sa = make_shape(ds->pairs[i].a, &c->sa[i]);
		imp_status sb = make_shape(ds->pairs[i].b, &c->sb[i]);
		if (sa != IMP_OK || sb != IMP_OK) {
			fprintf(stderr, "narrow3d: making a shape failed: %s\n",
				imp_status_string(sa != IMP_OK ? sa : sb));
			free_bench_cell(c);
			return -1;
		}
	}
#ifdef HAVE_CCD
	c->ccd = ccd3_create(ds);
#endif
#ifdef HAVE_FCL
	c->fcl = fcl3_create(ds);
#endif
#ifdef HAVE_BULLET
	c->bt = bt3_create(ds);
#endif
	return 0;
}

// ---- report ----------------------------------------------------------------

typedef struct report {
	int pairs, reps;
	uint64_t seed;
	bool smoke;
	char machine[400], cpu[256], date[64];
	int cpus;
	cell_result cells[DS3_PAIRING_COUNT * DS3_CASE_COUNT];
	/// The Nesterov study: ellipsoid pairs binned by reference distance.
	long study_n[6];
	double study_plain[6], study_nest[6], study_ns_plain[6], study_ns_nest[6];
} report;

static void put_err(FILE *f, const cell_result *r, method m)
{
	if (!available(m))
		fprintf(f, " - |");
	else if (r->missing[m] > 0 || r->wrong[m] > 0)
		fprintf(f, " %.1e (%d wrong, %d none) |", r->err[m], r->wrong[m], r->missing[m]);
	else
		fprintf(f, " %.1e |", r->err[m]);
}

/// The fastest of the available methods in `ms`; its index into ms, or -1.
static int fastest(const cell_result *r, const method *ms, int n)
{
	int best = -1;
	for (int k = 0; k < n; ++k)
		if (available(ms[k]) && !isnan(r->ns[ms[k]]) && (best < 0 || r->ns[ms[k]] < r->ns[ms[best]]))
			best = k;
	return best;
}

static void put_vs_fastest(FILE *f, const cell_result *r, method m, const method *ms, int n)
{
	int k = fastest(r, ms, n);
	if (k < 0)
		fprintf(f, " - |");
	else
		fprintf(f, " %.2f (%s) |", r->ns[m] / r->ns[ms[k]], k_methods[ms[k]].name);
}

static void print_header(FILE *f, const report *rep)
{
	fprintf(f, "# narrow3d: 3D narrow phase, impact against its peers\n\n");
	fprintf(f, "- machine: %s; CPU: %s (%d logical CPUs)\n", rep->machine, rep->cpu, rep->cpus);
#if defined(__OPTIMIZE__)
	const char *optimised = "optimised (-O2 from bench/meson.build)";
#else
	const char *optimised = "NOT optimised: the numbers mean nothing";
#endif
	fprintf(f, "- compiler: %s, %s\n", __VERSION__, optimised);
	fprintf(f, "- impact %d with its default options (plain GJK; brute-force supports up to 1023 vertices); "
		   "plain = acceleration NONE, Nesterov = acceleration NESTEROV\n",
		imp_version());
	fprintf(f, "- peers:");
#ifdef HAVE_CCD
	fprintf(f, " libccd %s;", CCD_VERSION_TEXT);
#else
	fprintf(f, " libccd skipped (not found at build time);");
#endif
#ifdef HAVE_FCL
	fprintf(f, " FCL %s (GJKSolver_libccd, GJKSolver_indep);", fcl3_version());
#else
	fprintf(f, " FCL skipped (not found at build time);");
#endif
#ifdef HAVE_BULLET
	fprintf(f, " Bullet %s (%s);", bt3_version(), bt3_precision());
#else
	fprintf(f, " Bullet skipped (not found at build time);");
#endif
	fprintf(f, " oracle: brute force, bench/dataset3d.c\n");
	fprintf(f, "- data: %d pairs per cell, seed 0x%" PRIx64 "%s\n", rep->pairs, rep->seed,
		rep->smoke ? " (--smoke: the numbers are not measurements)" : "");
	fprintf(f, "- time: ns per query, median of %d round-robin repetitions, each after an untimed pass of "
		   "the same method; run %s\n",
		rep->reps, rep->date);
	fprintf(f, "- errors: max |answer - oracle| over the cell (Level 2: the distance, 0 when overlapping; "
		   "Level 3: the signed distance, minus the depth when overlapping; ellipsoid depths have no "
		   "oracle); wrong: overlap verdicts against the oracle's; none: no answer\n\n");
}

static void print_report(FILE *f, const report *rep)
{
	print_header(f, rep);
	int ncells = DS3_PAIRING_COUNT * DS3_CASE_COUNT;
	fprintf(f, "## Level 1: overlap (yes/no)\n\n");
	fprintf(f, "| cell | case | impact | plain | Nesterov | ccd GJK | ccd MPR | FCL ccd | FCL indep | "
		   "impact/MPR | impact/fastest peer | wrong impact/plain/Nesterov | wrong GJK/MPR/FCL ccd/FCL indep |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
	const method l1peers[] = {M1_CCD_GJK, M1_CCD_MPR, M1_FCL_CCD, M1_FCL_INDEP};
	for (int i = 0; i < ncells; ++i) {
		const cell_result *r = &rep->cells[i];
		fprintf(f, "| %s | %s |", ds3_pairing_name(r->pairing), ds3_case_name(r->kind));
		const method cols[] = {M1_AUTO, M1_PLAIN, M1_NEST, M1_CCD_GJK, M1_CCD_MPR, M1_FCL_CCD, M1_FCL_INDEP};
		for (size_t k = 0; k < sizeof cols / sizeof cols[0]; ++k)
			bench_put_ns(f, r->ns[cols[k]]);
		bench_put_ratio(f, r->ns[M1_AUTO], r->ns[M1_CCD_MPR]);
		put_vs_fastest(f, r, M1_AUTO, l1peers, 4);
		fprintf(f, " %d/%d/%d | %d/%d/%d/%d |\n", r->wrong[M1_AUTO], r->wrong[M1_PLAIN], r->wrong[M1_NEST],
			r->wrong[M1_CCD_GJK], r->wrong[M1_CCD_MPR], r->wrong[M1_FCL_CCD], r->wrong[M1_FCL_INDEP]);
	}

	fprintf(f, "\n## Level 2: distance\n\n");
	fprintf(f, "| cell | case | impact | plain | Nesterov | brute force | hill climbing | FCL ccd | FCL indep | "
		   "Bullet | impact/fastest of FCL, Bullet | it. plain | it. Nesterov | err impact | err FCL ccd | "
		   "err FCL indep | err Bullet |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	const method l2peers[] = {M2_FCL_CCD, M2_FCL_INDEP, M3_BULLET};
	for (int i = 0; i < ncells; ++i) {
		const cell_result *r = &rep->cells[i];
		fprintf(f, "| %s | %s |", ds3_pairing_name(r->pairing), ds3_case_name(r->kind));
		const method cols[] = {M2_AUTO, M2_PLAIN, M2_NEST, M2_BF, M2_HC, M2_FCL_CCD, M2_FCL_INDEP, M3_BULLET};
		for (size_t k = 0; k < sizeof cols / sizeof cols[0]; ++k)
			bench_put_ns(f, r->ns[cols[k]]);
		put_vs_fastest(f, r, M2_AUTO, l2peers, 3);
		fprintf(f, " %.2f | %.2f |", r->it_plain, r->it_nest);
		put_err(f, r, M2_AUTO);
		put_err(f, r, M2_FCL_CCD);
		put_err(f, r, M2_FCL_INDEP);
		put_err(f, r, M3_BULLET);
		fprintf(f, "\n");
	}

	fprintf(f, "\n## Level 3: closest points, normal, penetration\n\n");
	fprintf(f, "| cell | case | impact | FCL signed | Bullet | ccd GJK+EPA | ccd MPR pen. | "
		   "impact/fastest of FCL, Bullet | impact/ccd GJK+EPA | EPA it. | err impact | err FCL signed | "
		   "err Bullet | err ccd GJK+EPA | err ccd MPR |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	const method l3peers[] = {M3_FCL_SIGNED, M3_BULLET};
	for (int i = 0; i < ncells; ++i) {
		const cell_result *r = &rep->cells[i];
		bool pen = r->kind == DS3_OVERLAPPING;
		fprintf(f, "| %s | %s |", ds3_pairing_name(r->pairing), ds3_case_name(r->kind));
		const method cols[] = {M3_AUTO, M3_FCL_SIGNED, M3_BULLET};
		for (size_t k = 0; k < sizeof cols / sizeof cols[0]; ++k)
			bench_put_ns(f, r->ns[cols[k]]);
		bench_put_ns(f, pen ? r->ns[M3_CCD_GJK_PEN] : NAN);
		bench_put_ns(f, pen ? r->ns[M3_CCD_MPR_PEN] : NAN);
		put_vs_fastest(f, r, M3_AUTO, l3peers, 2);
		bench_put_ratio(f, r->ns[M3_AUTO], pen ? r->ns[M3_CCD_GJK_PEN] : NAN);
		fprintf(f, " %.2f |", r->epa_it);
		put_err(f, r, M3_AUTO);
		put_err(f, r, M3_FCL_SIGNED);
		put_err(f, r, M3_BULLET);
		if (pen) {
			put_err(f, r, M3_CCD_GJK_PEN);
			put_err(f, r, M3_CCD_MPR_PEN);
		} else {
			fprintf(f, " - | - |");
		}
		fprintf(f, "\n");
	}

	static const char *bins[6] = {"overlapping", "< 1e-2", "1e-2 .. 1e-1", "0.1 .. 0.5", "0.5 .. 1",
				      "> 1"};
	fprintf(f, "\n## Nesterov study: ellipsoid pairs, plain against accelerated GJK (Level 2)\n\n");
	fprintf(f, "| distance | pairs | it. plain | it. Nesterov | ratio | ns plain | ns Nesterov | ratio |\n");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int b = 0; b < 6; ++b) {
		long n = rep->study_n[b];
		if (n == 0)
			continue;
		fprintf(f, "| %s | %ld | %.2f | %.2f |", bins[b], n, rep->study_plain[b] / n, rep->study_nest[b] / n);
		bench_put_ratio(f, rep->study_nest[b], rep->study_plain[b]);
		bench_put_ns(f, rep->study_ns_plain[b] / n);
		bench_put_ns(f, rep->study_ns_nest[b] / n);
		bench_put_ratio(f, rep->study_ns_nest[b], rep->study_ns_plain[b]);
		fprintf(f, "\n");
	}
}

/// Iterations and time of plain and accelerated GJK on every ellipsoid
/// pair of a cell, binned by the oracle's distance.
static void study_nesterov(report *rep, const bench_cell *c, int reps)
{
	for (int i = 0; i < c->ds->count; ++i) {
		const ds3_pair *p = &c->ds->pairs[i];
		double d = p->ref.distance;
		int b = p->ref.overlap ? 0 : d < 1e-2 ? 1 : d < 0.1 ? 2 : d < 0.5 ? 3 : d < 1.0 ? 4 : 5;
		const imp_query_options *o[2] = {&c->opts[OPT_PLAIN], &c->opts[OPT_NEST]};
		double ns[2];
		int it[2];
		for (int k = 0; k < 2; ++k) {
			imp_distance3_stats(c->sa[i], p->pa, c->sb[i], p->pb, NULL, o[k], &it[k], NULL);
			// One call is too short for the clock: 16 calls per sample.
			double samples[64];
			int n = reps < 64 ? reps : 64;
			for (int s = 0; s < n; ++s) {
				double t0 = bench_now_ns(), acc = 0.0;
				for (int j = 0; j < 16; ++j)
					acc += imp_distance3_ex(c->sa[i], p->pa, c->sb[i], p->pb, NULL, o[k]);
				samples[s] = (bench_now_ns() - t0) / 16;
				g_sink += acc;
			}
			ns[k] = bench_median(samples, n);
		}
		rep->study_n[b]++;
		rep->study_plain[b] += it[0];
		rep->study_nest[b] += it[1];
		rep->study_ns_plain[b] += ns[0];
		rep->study_ns_nest[b] += ns[1];
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: narrow3d [--smoke] [--pairs N] [--reps N] [--seed S] [--only NAME] [--out FILE] [--strict]\n"
		   "  --smoke     %d pairs, %d repetition: checks every code path quickly\n"
		   "  --pairs N   pairs per cell (default %d)\n"
		   "  --reps N    timed repetitions per cell, the median is reported (default %d)\n"
		   "  --seed S    data set seed (default 0x%x)\n"
		   "  --only NAME run only the cells of one pairing (poly8, box, ellipsoid, ...)\n"
		   "  --out FILE  also write the Markdown report to FILE\n"
		   "  --strict    exit 1 when impact disagrees with the oracle (overlap, or a signed\n"
		   "              distance off by more than 1e-9) or gives no answer\n",
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
	const char *only = NULL;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			rep.smoke = true;
		} else if (!strcmp(a, "--strict")) {
			strict = true;
		} else if (!strcmp(a, "--pairs") && v && bench_parse_int(v, 1, 1000000, &rep.pairs)) {
			pairs_set = true;
			++i;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &rep.reps)) {
			reps_set = true;
			++i;
		} else if (!strcmp(a, "--seed") && v) {
			char *end;
			errno = 0;
			rep.seed = strtoull(v, &end, 0);
			if (errno || end == v || *end) {
				usage(stderr);
				return 2;
			}
			++i;
		} else if (!strcmp(a, "--only") && v) {
			only = v;
			++i;
		} else if (!strcmp(a, "--out") && v) {
			out_path = v;
			++i;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "narrow3d: bad argument '%s'\n", a);
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
	bench_describe_run(rep.machine, sizeof rep.machine, false, rep.date, sizeof rep.date);
	bench_cpu_model(rep.cpu, sizeof rep.cpu);
	rep.cpus = bench_cpu_count();
#ifndef HAVE_CCD
	fprintf(stderr, "narrow3d: peer libccd skipped (not found at build time)\n");
#endif
#ifndef HAVE_FCL
	fprintf(stderr, "narrow3d: peer FCL skipped (not found at build time)\n");
#endif
#ifndef HAVE_BULLET
	fprintf(stderr, "narrow3d: peer Bullet skipped (not found at build time)\n");
#endif

	int failures = 0;
	bool strict_fail = false;
	for (int pg = 0; pg < DS3_PAIRING_COUNT; ++pg) {
		for (int k = 0; k < DS3_CASE_COUNT; ++k) {
			cell_result *r = &rep.cells[pg * DS3_CASE_COUNT + k];
			memset(r, 0, sizeof *r);
			r->pairing = (ds3_pairing)pg;
			r->kind = (ds3_case)k;
			for (int m = 0; m < M_COUNT; ++m)
				r->ns[m] = NAN;
			if (only && strcmp(only, ds3_pairing_name((ds3_pairing)pg)) != 0)
				continue;
			ds3_cell ds;
			if (ds3_cell_make(&ds, (ds3_pairing)pg, (ds3_case)k, rep.pairs, rep.seed + (uint64_t)(pg * 16 + k)) !=
			    0) {
				fprintf(stderr, "narrow3d: could not make cell %s %s\n", ds3_pairing_name((ds3_pairing)pg),
					ds3_case_name((ds3_case)k));
				++failures;
				continue;
			}
			bench_cell c;
			if (make_bench_cell(&c, &ds) != 0) {
				ds3_cell_free(&ds);
				++failures;
				continue;
			}
			check_cell(&c, r);
			if (time_cell(&c, r, rep.reps) != 0)
				++failures;
			if (pg == DS3_ELLIPSOIDS)
				study_nesterov(&rep, &c, rep.reps);
			const method mine[] = {M1_AUTO, M1_PLAIN, M1_NEST, M2_AUTO, M2_PLAIN, M2_NEST, M2_BF, M2_HC, M3_AUTO};
			for (size_t q = 0; q < sizeof mine / sizeof mine[0]; ++q)
				if (r->wrong[mine[q]] > 0 || r->missing[mine[q]] > 0 || !(r->err[mine[q]] <= 1e-9))
					strict_fail = true;
			fprintf(stderr, "narrow3d: %s %s done\n", ds3_pairing_name((ds3_pairing)pg),
				ds3_case_name((ds3_case)k));
			free_bench_cell(&c);
			ds3_cell_free(&ds);
		}
	}
	print_report(stdout, &rep);
	if (out_path) {
		FILE *f = fopen(out_path, "w");
		if (!f) {
			fprintf(stderr, "narrow3d: cannot write %s\n", out_path);
			return 1;
		}
		print_report(f, &rep);
		fclose(f);
	}
	if (failures)
		return 1;
	if (strict && strict_fail) {
		fprintf(stderr, "narrow3d: --strict: impact disagreed with the oracle\n");
		return 1;
	}
	return 0;
}
