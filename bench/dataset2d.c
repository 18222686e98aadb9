// SPDX-License-Identifier: MIT
// The paper's random data set (barycode GJK, Zhang et al. 2020, sec. IV) and
// a brute-force oracle that shares no code with any GJK.
#define _POSIX_C_SOURCE 200809L

#include "dataset2d.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "bench_util.h"

#define DS_PI 3.14159265358979323846

/// Tries per pair before a cell is declared impossible to sample.
#define DS_MAX_TRIES 10000

const char *ds_case_name(ds_case kind)
{
	switch (kind) {
	case DS_DISTANT:
		return "distant";
	case DS_OVERLAPPING:
		return "overlapping";
	case DS_TOUCHING:
		return "touching";
	default:
		return "?";
	}
}

/// n points on an ellipse of random size ~1 (semi-axes in [0.6, 1.4]) centred
/// within 0.1 of the origin, at sorted random angles: one angle jittered in
/// each of n equal sectors, so neighbours are at least 0.2 sectors apart and
/// the polygon is strictly convex and counter-clockwise by construction.
static void random_polygon(bench_rng *rng, int n, imp_vec2 *out)
{
	double rx = bench_rng_range(rng, 0.6, 1.4);
	double ry = bench_rng_range(rng, 0.6, 1.4);
	double cx = bench_rng_range(rng, -0.1, 0.1);
	double cy = bench_rng_range(rng, -0.1, 0.1);
	double start = bench_rng_range(rng, 0.0, 2.0 * DS_PI);
	double sector = 2.0 * DS_PI / n;
	for (int i = 0; i < n; i++) {
		double t = start + (i + 0.1 + 0.8 * bench_rng_unit(rng)) * sector;
		out[i] = imp_vec2_make(cx + rx * cos(t), cy + ry * sin(t));
	}
}

static imp_pose2 random_pose(bench_rng *rng)
{
	// One draw a statement: C leaves the order of a call's arguments open
	// (GCC on x86-64 took them last first, which the order here keeps, so
	// the data set stays the one measured before).
	double angle = bench_rng_range(rng, -DS_PI, DS_PI);
	double y = bench_rng_range(rng, -5.0, 5.0);
	double x = bench_rng_range(rng, -5.0, 5.0);
	return imp_pose2_make(x, y, angle);
}

/// A pose for b at `reach` from a in a random direction, turned at random.
static imp_pose2 random_pose_near(bench_rng *rng, imp_pose2 pa, double reach)
{
	double phi = bench_rng_range(rng, -DS_PI, DS_PI);
	return imp_pose2_make(pa.p.x + reach * cos(phi), pa.p.y + reach * sin(phi),
			      bench_rng_range(rng, -DS_PI, DS_PI));
}

/// Samples one pair of the case into pair, its vertices into va and vb. Returns 0, or -1 when no try fitted.
static int sample_pair(bench_rng *rng, int n, ds_case kind, imp_vec2 *va, imp_vec2 *vb, ds_pair *pair)
{
	for (int tries = 0; tries < DS_MAX_TRIES; tries++) {
		random_polygon(rng, n, va);
		random_polygon(rng, n, vb);
		pair->pa = random_pose(rng);
		double reach = kind == DS_OVERLAPPING ? bench_rng_range(rng, 0.0, 1.6)
						      : bench_rng_range(rng, 1.0, 4.0);
		pair->pb = random_pose_near(rng, pair->pa, reach);
		imp_vec2 wa, wb;
		double d = ds_oracle_distance(va, n, pair->pa, vb, n, pair->pb, &wa, &wb);
		if (kind == DS_OVERLAPPING) {
			if (d < -1e-3) {
				pair->distance = d;
				return 0;
			}
			continue;
		}
		if (d <= 1e-3)
			continue;
		if (kind == DS_DISTANT) {
			pair->distance = d;
			return 0;
		}
		// Touching: slide b back along the unit separation until the gap is
		// DS_TOUCH_GAP. Moving a convex set along the separating direction
		// shrinks the distance by exactly the move.
		imp_vec2 u = imp_vec2_scale(1.0 / d, imp_vec2_sub(wb, wa));
		pair->pb.p = imp_vec2_sub(pair->pb.p, imp_vec2_scale(d - DS_TOUCH_GAP, u));
		double t = ds_oracle_distance(va, n, pair->pa, vb, n, pair->pb, NULL, NULL);
		if (t > 0.5 * DS_TOUCH_GAP && t < 1.5 * DS_TOUCH_GAP) {
			pair->distance = t;
			return 0;
		}
	}
	return -1;
}

int ds_cell_make(ds_cell *cell, int vertices, ds_case kind, int count, uint64_t seed)
{
	if (!cell || vertices < 3 || vertices > DS_MAX_VERTICES || count < 1 || (int)kind < 0 ||
	    (int)kind >= DS_CASE_COUNT)
		return -1;
	cell->vertices = vertices;
	cell->kind = kind;
	cell->count = count;
	cell->pairs = calloc((size_t)count, sizeof *cell->pairs);
	cell->pool = calloc((size_t)count * 2 * (size_t)vertices, sizeof *cell->pool);
	if (!cell->pairs || !cell->pool) {
		ds_cell_free(cell);
		return -1;
	}
	// One stream per cell, so a cell does not change when another is resized.
	bench_rng rng = {seed ^ ((uint64_t)vertices << 32) ^ ((uint64_t)kind << 48)};
	(void)bench_rng_next(&rng);
	for (int i = 0; i < count; i++) {
		ds_pair *p = &cell->pairs[i];
		imp_vec2 *va = cell->pool + (size_t)(2 * i) * (size_t)vertices;
		imp_vec2 *vb = va + vertices;
		p->va = va;
		p->vb = vb;
		if (sample_pair(&rng, vertices, kind, va, vb, p) != 0) {
			ds_cell_free(cell);
			return -1;
		}
	}
	return 0;
}

void ds_cell_free(ds_cell *cell)
{
	if (!cell)
		return;
	free(cell->pairs);
	free(cell->pool);
	cell->pairs = NULL;
	cell->pool = NULL;
	cell->count = 0;
}

/// The largest gap along the outward unit normals of p's edges between p and
/// q (world vertices): > 0 means that normal separates them.
static double max_gap_on_normals(const imp_vec2 *p, int np, const imp_vec2 *q, int nq)
{
	double best = -DBL_MAX;
	for (int i = 0; i < np; i++) {
		imp_vec2 e = imp_vec2_sub(p[(i + 1) % np], p[i]);
		double len = imp_vec2_length(e);
		imp_vec2 n = imp_vec2_make(e.y / len, -e.x / len);
		double p_max = imp_vec2_dot(n, p[i]);
		double q_min = DBL_MAX;
		for (int j = 0; j < nq; j++) {
			double s = imp_vec2_dot(n, q[j]);
			if (s < q_min)
				q_min = s;
		}
		if (q_min - p_max > best)
			best = q_min - p_max;
	}
	return best;
}

/// Closest pair between the vertices of p and the edges of q; updates *best
/// (squared distance) and the witnesses (on p, on q).
static void closest_vertex_edge(const imp_vec2 *p, int np, const imp_vec2 *q, int nq, double *best,
				imp_vec2 *on_p, imp_vec2 *on_q)
{
	for (int j = 0; j < nq; j++) {
		imp_vec2 q0 = q[j];
		imp_vec2 e = imp_vec2_sub(q[(j + 1) % nq], q0);
		double ee = imp_vec2_dot(e, e);
		for (int i = 0; i < np; i++) {
			double t = imp_vec2_dot(imp_vec2_sub(p[i], q0), e) / ee;
			t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
			imp_vec2 c = imp_vec2_add(q0, imp_vec2_scale(t, e));
			imp_vec2 d = imp_vec2_sub(p[i], c);
			double dd = imp_vec2_dot(d, d);
			if (dd < *best) {
				*best = dd;
				*on_p = p[i];
				*on_q = c;
			}
		}
	}
}

double ds_oracle_distance(const imp_vec2 *va, int na, imp_pose2 pa, const imp_vec2 *vb, int nb,
			  imp_pose2 pb, imp_vec2 *wa, imp_vec2 *wb)
{
	imp_vec2 a[DS_MAX_VERTICES], b[DS_MAX_VERTICES];
	for (int i = 0; i < na; i++)
		a[i] = imp_pose2_apply(pa, va[i]);
	for (int i = 0; i < nb; i++)
		b[i] = imp_pose2_apply(pb, vb[i]);
	// The Minkowski difference a - b has exactly the edge normals of a and
	// of b; its signed distance to the origin is the largest gap over them
	// when <= 0 (minus the penetration depth), and a mere lower bound when > 0.
	double gap_a = max_gap_on_normals(a, na, b, nb);
	double gap_b = max_gap_on_normals(b, nb, a, na);
	double gap = gap_a > gap_b ? gap_a : gap_b;
	if (gap <= 0.0) {
		if (wa)
			*wa = imp_vec2_make(0.0, 0.0);
		if (wb)
			*wb = imp_vec2_make(0.0, 0.0);
		return gap;
	}
	double best = DBL_MAX;
	imp_vec2 pa_w = {0.0, 0.0}, pb_w = {0.0, 0.0}, tmp_a, tmp_b;
	closest_vertex_edge(a, na, b, nb, &best, &pa_w, &pb_w);
	double before = best;
	closest_vertex_edge(b, nb, a, na, &best, &tmp_b, &tmp_a);
	if (best < before) {
		pa_w = tmp_a;
		pb_w = tmp_b;
	}
	if (wa)
		*wa = pa_w;
	if (wb)
		*wb = pb_w;
	return sqrt(best);
}
