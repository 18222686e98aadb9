// SPDX-License-Identifier: MIT
// Fuzz target: bytes -> two shapes (any constructor of shape.h, 2D or 3D)
// and two poses, then every pairwise query (overlap, distance, closest
// points, with and without a cache and with options; the time of impact),
// each answer checked against the others and against what the headers
// promise (docs/fuzzing.md lists the invariants).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/// A pose of either dimension.
typedef struct pose {
	imp_pose2 p2;
	imp_pose3 p3;
} pose;

/// A Level 3 answer of either dimension (z = 0 in 2D).
typedef struct answer {
	double distance;
	imp_vec3 point_a, point_b, normal;
	imp_query_state state;
} answer;

static imp_vec3 v3(imp_vec2 v)
{
	imp_vec3 r = {v.x, v.y, 0.0};
	return r;
}

static bool valid_pose(int dim, pose p)
{
	return dim == 2 ? imp_pose2_is_valid(p.p2) : imp_pose3_is_valid(p.p3);
}

/// imp_closest2/3(_ex), with the status contract checked: on error *out
/// as it was.
static imp_status closest(int dim, const imp_shape *a, pose pa, const imp_shape *b, pose pb,
			  imp_simplex_cache *cache, const imp_query_options *opts, answer *out)
{
	imp_status st;
	if (dim == 2) {
		imp_closest2_result r, before;
		memset(&r, 0xa5, sizeof r);
		before = r;
		st = opts ? imp_closest2_ex(a, pa.p2, b, pb.p2, cache, opts, &r) : imp_closest2(a, pa.p2, b, pb.p2, cache, &r);
		if (st != IMP_OK) {
			if (memcmp(&r, &before, sizeof r) != 0)
				fz_finding("closest.wrote_on_error", "imp_closest2 failed (%s) and wrote its result",
					   imp_status_string(st));
			return st;
		}
		out->distance = r.distance;
		out->point_a = v3(r.point_a);
		out->point_b = v3(r.point_b);
		out->normal = v3(r.normal);
		out->state = r.state;
		return st;
	}
	imp_closest3_result r, before;
	memset(&r, 0xa5, sizeof r);
	before = r;
	st = opts ? imp_closest3_ex(a, pa.p3, b, pb.p3, cache, opts, &r) : imp_closest3(a, pa.p3, b, pb.p3, cache, &r);
	if (st != IMP_OK) {
		if (memcmp(&r, &before, sizeof r) != 0)
			fz_finding("closest.wrote_on_error", "imp_closest3 failed (%s) and wrote its result",
				   imp_status_string(st));
		return st;
	}
	out->distance = r.distance;
	out->point_a = r.point_a;
	out->point_b = r.point_b;
	out->normal = r.normal;
	out->state = r.state;
	return st;
}

static double distance(int dim, const imp_shape *a, pose pa, const imp_shape *b, pose pb, imp_simplex_cache *cache)
{
	return dim == 2 ? imp_distance2(a, pa.p2, b, pb.p2, cache) : imp_distance3(a, pa.p3, b, pb.p3, cache);
}

static bool overlap(int dim, const imp_shape *a, pose pa, const imp_shape *b, pose pb, imp_simplex_cache *cache)
{
	return dim == 2 ? imp_overlap2(a, pa.p2, b, pb.p2, cache) : imp_overlap3(a, pa.p3, b, pb.p3, cache);
}

static bool finite3(imp_vec3 v)
{
	return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static bool curved(int kind)
{
	return kind == FZ_USER2 || kind == FZ_USER3 || kind == FZ_CYLINDER || kind == FZ_CONE || kind == FZ_ELLIPSOID;
}

/// The checks of one Level 3 answer on its own: finite, a unit normal,
/// normal . (point_b - point_a) = distance.
static void check_answer(const char *what, const answer *r, double tol)
{
	if (!isfinite(r->distance) || !finite3(r->point_a) || !finite3(r->point_b) || !finite3(r->normal)) {
		fz_finding("closest.finite", "%s: distance %g, a (%g %g %g), b (%g %g %g), normal (%g %g %g), state %s", what,
			   r->distance, r->point_a.x, r->point_a.y, r->point_a.z, r->point_b.x, r->point_b.y, r->point_b.z,
			   r->normal.x, r->normal.y, r->normal.z, imp_query_state_string(r->state));
		return;
	}
	double len = sqrt(r->normal.x * r->normal.x + r->normal.y * r->normal.y + r->normal.z * r->normal.z);
	if (fabs(len - 1.0) > 1e-9)
		fz_finding("closest.normal_unit", "%s: |normal| = %.17g", what, len);
	imp_vec3 ab = {r->point_b.x - r->point_a.x, r->point_b.y - r->point_a.y, r->point_b.z - r->point_a.z};
	double along = ab.x * r->normal.x + ab.y * r->normal.y + ab.z * r->normal.z;
	if (fabs(along - r->distance) > tol)
		fz_finding("closest.witness", "%s: normal.(b - a) = %.17g, distance %.17g (tolerance %g)", what, along,
			   r->distance, tol);
}

/// Options from the bytes, and whether the headers accept them.
static imp_query_options fz_options(fz *f, bool *ok)
{
	imp_query_options o = imp_default_query_options();
	uint8_t sel = fz_u8(f);
	if (sel & 1)
		o.max_iterations = fz_int(f, 8) == 0 ? fz_int(f, 3) - 1 : 1 + fz_int(f, 300);
	if (sel & 2)
		o.epa_max_iterations = fz_int(f, 8) == 0 ? fz_int(f, 3) - 1 : 1 + fz_int(f, 300);
	if (sel & 4)
		o.tolerance = fz_chance(f, 32) ? fz_num(f) : ldexp(1.0, -4 - fz_int(f, 50));
	if (sel & 8)
		o.support = (imp_support_mode)fz_int(f, 4);
	if (sel & 16)
		o.hill_climb_min_vertices = fz_int(f, 16);
	if (sel & 32)
		o.penetration = (imp_penetration_mode)fz_int(f, 3);
	if (sel & 64)
		o.acceleration = (imp_acceleration_mode)fz_int(f, 4);
	*ok = o.max_iterations >= 1 && o.epa_max_iterations >= 1 && o.tolerance > 0.0 && o.tolerance < 0.1 &&
	      o.support >= IMP_SUPPORT_AUTO && o.support <= IMP_SUPPORT_HILL_CLIMB && o.hill_climb_min_vertices >= 3 &&
	      o.penetration >= IMP_PENETRATION_AUTO && o.penetration <= IMP_PENETRATION_EPA &&
	      o.acceleration >= IMP_ACCELERATION_AUTO && o.acceleration <= IMP_ACCELERATION_NESTEROV;
	return o;
}

/// The equivalent polygon or polytope of a simple shape (a box, disc,
/// capsule, segment, sphere, ball-shaped ellipsoid), or NULL.
static imp_shape *equivalent(int dim, const fz_made *m)
{
	if (!m->equiv)
		return NULL;
	imp_shape *s = NULL;
	if (dim == 2) {
		imp_vec2 p[8];
		for (int k = 0; k < m->n; ++k)
			p[k] = (imp_vec2){m->pts[k].x, m->pts[k].y};
		(void)imp_shape_polygon(p, m->n, m->radius, &s);
	} else {
		(void)imp_shape_polytope(m->pts, m->n, m->radius, &s);
	}
	return s;
}

static double toi_check(int dim, const imp_shape *a, const imp_shape *b, fz *f, bool valid, double scale);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz f = {data, size, 0};
	fz_begin();
	int dim = 2 + (fz_u8(&f) & 1);
	// Rarely a shape of the other dimension: every query must refuse it.
	int dim_b = fz_chance(&f, 8) ? 5 - dim : dim;
	fz_made ma, mb;
	imp_shape *a = fz_shape(&f, dim, &ma);
	imp_shape *b = fz_shape(&f, dim_b, &mb);
	snprintf(fz_context, sizeof fz_context, "%dD: %s%s and %s%s", dim, fz_kind_name(ma.kind), a ? "" : " (refused)",
		 fz_kind_name(mb.kind), b ? "" : " (refused)");
	pose pa = {fz_pose2(&f), imp_pose3_identity()}, pb = {fz_pose2(&f), imp_pose3_identity()};
	if (dim == 3) {
		pa.p3 = fz_pose3(&f);
		pb.p3 = fz_pose3(&f);
	}
	if (getenv("FZ_VERBOSE")) {
		const fz_made *m2[2] = {&ma, &mb};
		for (int k = 0; k < 2; ++k) {
			fprintf(stderr, "shape %c: %s radius %.17g h (%.17g %.17g %.17g) points", "ab"[k],
				fz_kind_name(m2[k]->kind), m2[k]->radius, m2[k]->h[0], m2[k]->h[1], m2[k]->h[2]);
			for (int i = 0; i < m2[k]->n; ++i)
				fprintf(stderr, " (%.17g %.17g %.17g)", m2[k]->pts[i].x, m2[k]->pts[i].y, m2[k]->pts[i].z);
			fputc('\n', stderr);
		}
		fprintf(stderr, "poses 2D (%.17g %.17g; %.17g %.17g) (%.17g %.17g; %.17g %.17g)\n", pa.p2.p.x, pa.p2.p.y,
			pa.p2.q.c, pa.p2.q.s, pb.p2.p.x, pb.p2.p.y, pb.p2.q.c, pb.p2.q.s);
		fprintf(stderr, "poses 3D (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g) (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g)\n",
			pa.p3.p.x, pa.p3.p.y, pa.p3.p.z, pa.p3.q.x, pa.p3.q.y, pa.p3.q.z, pa.p3.q.w, pb.p3.p.x, pb.p3.p.y,
			pb.p3.p.z, pb.p3.q.x, pb.p3.q.y, pb.p3.q.z, pb.p3.q.w);
	}
	bool user = ma.kind == FZ_USER2 || ma.kind == FZ_USER3 || mb.kind == FZ_USER2 || mb.kind == FZ_USER3;
	bool round = curved(ma.kind) || curved(mb.kind);
	bool valid = a && b && dim_b == dim && valid_pose(dim, pa) && valid_pose(dim, pb);
	double scale = 0.0;
	if (valid)
		scale = dim == 2 ? fmax(fz_extent2(a, pa.p2), fz_extent2(b, pb.p2))
				 : fmax(fz_extent3(a, pa.p3), fz_extent3(b, pb.p3));
	double tol = fz_rel_tol(dim, scale) * scale + FZ_TINY;

	// Level 3, cold.
	answer r = {0};
	imp_status st = closest(dim, a, pa, b, pb, NULL, NULL, &r);
	if (!valid && st == IMP_OK)
		fz_finding("closest.accepted_invalid", "imp_closest%d accepted invalid input", dim);
	// The answers compared with this one: IMP_OK, finite (closest.finite
	// reports the others), not stopped early.
	bool good = st == IMP_OK && r.state != IMP_STATE_DEGENERATE && r.state != IMP_STATE_ITERATION_LIMIT &&
		    isfinite(r.distance) && finite3(r.point_a) && finite3(r.point_b) && finite3(r.normal);
	if (st == IMP_OK && r.state == IMP_STATE_DEGENERATE && !user)
		fz_finding("closest.degenerate", "a degenerate answer without a user shape");
	if (st == IMP_OK && r.state != IMP_STATE_DEGENERATE)
		check_answer("cold", &r, tol);
	if (valid && st != IMP_OK && st != IMP_ERR_OUT_OF_RANGE)
		fz_finding("closest.refused_valid", "imp_closest%d refused valid input: %s", dim, imp_status_string(st));

	// Level 2 and 1.
	double d = distance(dim, a, pa, b, pb, NULL);
	bool ov = overlap(dim, a, pa, b, pb, NULL);
	if (!valid && (!isnan(d) || ov))
		fz_finding("distance.accepted_invalid", "invalid input: distance %g, overlap %d", d, ov);
	if (valid && good) {
		if (!(d >= 0.0) || !isfinite(d))
			fz_finding("distance.nonnegative", "distance %.17g", d);
		else if (fabs(d - fmax(r.distance, 0.0)) > tol)
			fz_finding("distance.level3", "Level 2 %.17g, Level 3 %.17g (tolerance %g)", d, r.distance, tol);
		if (ov && d > tol)
			fz_finding("overlap.distance", "overlap true, distance %.17g", d);
		if (!ov && r.distance < -tol)
			fz_finding("overlap.distance", "overlap false, Level 3 distance %.17g", r.distance);
		// Swapped.
		double ds = distance(dim, b, pb, a, pa, NULL);
		if (!(fabs(ds - d) <= tol))
			fz_finding("distance.swap", "d(a, b) %.17g, d(b, a) %.17g", d, ds);
	}

	// With a cache: empty, then warm; and one holding bytes.
	imp_simplex_cache cache;
	memset(&cache, 0, sizeof cache);
	if (fz_chance(&f, 48))
		for (size_t k = 0; k < sizeof cache; ++k)
			((uint8_t *)&cache)[k] = fz_u8(&f);
	// Penetration depths of curved cores come from a numerical search.
	double pen_tol = round ? 1e-4 * scale + FZ_TINY : tol;
	for (int pass = 0; pass < 2; ++pass) {
		answer w = {0};
		imp_status sw = closest(dim, a, pa, b, pb, &cache, NULL, &w);
		if (sw != st)
			fz_finding("cache.status", "with a cache %s, without %s", imp_status_string(sw), imp_status_string(st));
		if (sw == IMP_OK && w.state != IMP_STATE_DEGENERATE)
			check_answer(pass ? "warm" : "cached", &w, tol);
		if (good && sw == IMP_OK && w.state != IMP_STATE_ITERATION_LIMIT && w.state != IMP_STATE_DEGENERATE) {
			double t = r.distance < 0.0 ? pen_tol : tol;
			if (!(fabs(w.distance - r.distance) <= t))
				fz_finding(r.distance < 0.0 ? "cache.closest:penetration" : "cache.closest:separated",
					   "pass %d: with a cache %.17g, without %.17g", pass, w.distance, r.distance);
		}
		double dw = distance(dim, a, pa, b, pb, &cache);
		if (valid && good && !(fabs(dw - d) <= tol))
			fz_finding("cache.distance", "pass %d: with a cache %.17g, without %.17g", pass, dw, d);
		bool ow = overlap(dim, a, pa, b, pb, &cache);
		if (valid && good && ow != ov && fabs(d) > tol && r.distance < -tol)
			fz_finding("cache.overlap", "pass %d: with a cache %d, without %d", pass, ow, ov);
	}

	// Options.
	bool opts_ok;
	imp_query_options o = fz_options(&f, &opts_ok);
	answer ro = {0};
	imp_status so = closest(dim, a, pa, b, pb, NULL, &o, &ro);
	if (getenv("FZ_VERBOSE"))
		fprintf(stderr,
			"options: iterations %d, epa %d, tolerance %g, support %d, hill climb from %d, penetration %d, "
			"acceleration %d: %s, distance %.17g state %s (defaults: %.17g %s)\n",
			o.max_iterations, o.epa_max_iterations, o.tolerance, (int)o.support, o.hill_climb_min_vertices,
			(int)o.penetration, (int)o.acceleration, imp_status_string(so), ro.distance,
			imp_query_state_string(ro.state), r.distance, imp_query_state_string(r.state));
	if (!opts_ok && so == IMP_OK)
		fz_finding("options.accepted_invalid", "bad options accepted");
	if (so == IMP_OK && ro.state != IMP_STATE_DEGENERATE)
		check_answer("options", &ro, tol);
	if (good && so == IMP_OK && ro.state != IMP_STATE_ITERATION_LIMIT && ro.state != IMP_STATE_DEGENERATE) {
		double t = round ? fmax(pen_tol, 4.0 * o.tolerance * scale) : tol;
		if (!(fabs(ro.distance - r.distance) <= t))
			fz_finding("options.closest", "with options %.17g, the defaults %.17g", ro.distance, r.distance);
	}

	// The same query on the equivalent polygons or polytopes.
	// One at a time, so that a finding names the shape that differs.
	imp_shape *ea = equivalent(dim, &ma), *eb = equivalent(dim, &mb);
	if (valid && good && ea) {
		double de = distance(dim, ea, pa, b, pb, NULL);
		if (!(fabs(de - d) <= fmax(tol, 1e-9 * fabs(d))))
			fz_finding(fz_named("equivalent.distance", ma.kind), "distance %.17g, with a's equivalent %.17g", d, de);
	}
	if (valid && good && eb) {
		double de = distance(dim, a, pa, eb, pb, NULL);
		if (!(fabs(de - d) <= fmax(tol, 1e-9 * fabs(d))))
			fz_finding(fz_named("equivalent.distance", mb.kind), "distance %.17g, with b's equivalent %.17g", d, de);
	}
	imp_shape_destroy(ea);
	imp_shape_destroy(eb);

	(void)toi_check(dim, a, b, &f, a && b && dim_b == dim, scale);
	imp_shape_destroy(a);
	imp_shape_destroy(b);
	fz_context[0] = 0;
	return 0;
}

/// Issue 20's defect 6 rule on a finite time-of-impact answer, as
/// check_answer's on a closest answer: a unit normal, normal . (point_b -
/// point_a) = distance within 1e-9 (fz_rel_tol) of the shapes' extent at its time or
/// of the witnesses' coordinates (the balls' answer, SEPARATED with no
/// query, has its points where the balls pass closest, not at t).
static void toi_answer_check(int dim, double distance, imp_vec3 a, imp_vec3 b, imp_vec3 n, int state, double extent)
{
	extent = fmax(extent, fmax(fmax(fabs(a.x), fabs(a.y)), fmax(fabs(a.z), fmax(fabs(b.x), fmax(fabs(b.y), fabs(b.z))))));
	double len = sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
	if (fabs(len - 1.0) > 1e-9)
		fz_finding("toi.normal_unit", "|normal| = %.17g, state %d", len, state);
	double along = (b.x - a.x) * n.x + (b.y - a.y) * n.y + (b.z - a.z) * n.z;
	double tol = fz_rel_tol(dim, extent) * extent + FZ_TINY;
	if (fabs(along - distance) > tol)
		fz_finding("toi.witness", "normal.(b - a) = %.17g, distance %.17g (tolerance %g), state %d", along,
			   distance, tol, state);
}

/// The time of impact of the two shapes on motions from the bytes: the
/// status contract, and no contact before the time it answers (the shapes
/// checked at eight times before it).
static double toi_check(int dim, const imp_shape *a, const imp_shape *b, fz *f, bool shapes_ok, double scale)
{
	double t_max = fz_chance(f, 224) ? 1.0 : fz_num(f);
	bool ok = shapes_ok && isfinite(t_max) && t_max >= 0.0;
	(void)scale;
	if (dim == 2) {
		imp_motion2 ma, mb;
		ma.pose = fz_pose2(f);
		ma.v = fz_vec2(f);
		ma.w = fz_num(f);
		mb.pose = fz_pose2(f);
		mb.v = fz_vec2(f);
		mb.w = fz_num(f);
		ok = ok && imp_pose2_is_valid(ma.pose) && imp_pose2_is_valid(mb.pose) && isfinite(ma.v.x) &&
		     isfinite(ma.v.y) && isfinite(ma.w) && isfinite(mb.v.x) && isfinite(mb.v.y) && isfinite(mb.w);
		imp_toi2_result r, before;
		memset(&r, 0xa5, sizeof r);
		before = r;
		imp_status st = imp_time_of_impact2(a, ma, b, mb, t_max, &r);
		if (st != IMP_OK) {
			if (memcmp(&r, &before, sizeof r) != 0)
				fz_finding("toi.wrote_on_error", "imp_time_of_impact2 failed (%s) and wrote", imp_status_string(st));
			return 0.0;
		}
		if (!ok)
			fz_finding("toi.accepted_invalid", "imp_time_of_impact2 accepted invalid input");
		if (r.state == IMP_TOI_FAILED)
			return 0.0;
		if (!(r.t >= 0.0 && r.t <= t_max) || !isfinite(r.distance) || !isfinite(r.point_a.x) ||
		    !isfinite(r.point_a.y) || !isfinite(r.point_b.x) || !isfinite(r.point_b.y) || !isfinite(r.normal.x) ||
		    !isfinite(r.normal.y))
			fz_finding("toi.finite", "t %g of %g, distance %g, state %d", r.t, t_max, r.distance, r.state);
		else
			toi_answer_check(2, r.distance, v3(r.point_a), v3(r.point_b), v3(r.normal), r.state,
					 fmax(fz_extent2(a, imp_motion2_at(ma, r.t)), fz_extent2(b, imp_motion2_at(mb, r.t))));
		for (int k = 0; k < 8 && r.t > 0.0; ++k) {
			double s = r.t * k / 8.0;
			imp_pose2 qa = imp_motion2_at(ma, s), qb = imp_motion2_at(mb, s);
			if (!imp_pose2_is_valid(qa) || !imp_pose2_is_valid(qb))
				break;
			imp_closest2_result c;
			if (imp_closest2(a, qa, b, qb, NULL, &c) != IMP_OK || c.state > IMP_STATE_OVERLAPPING)
				continue;
			double tol = 1e-9 * fmax(fz_extent2(a, qa), fz_extent2(b, qb)) + FZ_TINY;
			if (c.distance < -tol)
				fz_finding("toi.stepped_over", "overlap %.17g at t = %.17g before the answer %.17g", c.distance,
					   s, r.t);
		}
		return r.t;
	}
	imp_motion3 ma, mb;
	ma.pose = fz_pose3(f);
	ma.v = fz_vec3(f);
	ma.w = fz_vec3(f);
	mb.pose = fz_pose3(f);
	mb.v = fz_vec3(f);
	mb.w = fz_vec3(f);
	ok = ok && imp_pose3_is_valid(ma.pose) && imp_pose3_is_valid(mb.pose) && isfinite(ma.v.x + ma.v.y + ma.v.z) &&
	     isfinite(ma.w.x + ma.w.y + ma.w.z) && isfinite(mb.v.x + mb.v.y + mb.v.z) && isfinite(mb.w.x + mb.w.y + mb.w.z);
	imp_toi3_result r, before;
	memset(&r, 0xa5, sizeof r);
	before = r;
	imp_status st = imp_time_of_impact3(a, ma, b, mb, t_max, &r);
	if (st != IMP_OK) {
		if (memcmp(&r, &before, sizeof r) != 0)
			fz_finding("toi.wrote_on_error", "imp_time_of_impact3 failed (%s) and wrote", imp_status_string(st));
		return 0.0;
	}
	if (!ok)
		fz_finding("toi.accepted_invalid", "imp_time_of_impact3 accepted invalid input");
	if (r.state == IMP_TOI_FAILED)
		return 0.0;
	if (!(r.t >= 0.0 && r.t <= t_max) || !isfinite(r.distance) || !finite3(r.point_a) || !finite3(r.point_b) ||
	    !finite3(r.normal))
		fz_finding("toi.finite", "t %g of %g, distance %g, state %d", r.t, t_max, r.distance, r.state);
	else if (getenv("FZ_VERBOSE"))
		fprintf(stderr, "toi3: a (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g) v (%g %g %g) w (%g %g %g), b (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g) v (%g %g %g) w (%g %g %g), t %g, extents %g %g\n",
			ma.pose.p.x, ma.pose.p.y, ma.pose.p.z, ma.pose.q.x, ma.pose.q.y, ma.pose.q.z, ma.pose.q.w, ma.v.x, ma.v.y,
			ma.v.z, ma.w.x, ma.w.y, ma.w.z, mb.pose.p.x, mb.pose.p.y, mb.pose.p.z, mb.pose.q.x, mb.pose.q.y,
			mb.pose.q.z, mb.pose.q.w, mb.v.x, mb.v.y, mb.v.z, mb.w.x, mb.w.y, mb.w.z, r.t,
			fz_extent3(a, imp_motion3_at(ma, r.t)), fz_extent3(b, imp_motion3_at(mb, r.t)));
	if (r.state != IMP_TOI_FAILED && r.t >= 0.0 && r.t <= t_max && isfinite(r.distance) && finite3(r.point_a) &&
	    finite3(r.point_b) && finite3(r.normal))
		toi_answer_check(3, r.distance, r.point_a, r.point_b, r.normal, r.state,
				 fmax(fz_extent3(a, imp_motion3_at(ma, r.t)), fz_extent3(b, imp_motion3_at(mb, r.t))));
	for (int k = 0; k < 8 && r.t > 0.0; ++k) {
		double s = r.t * k / 8.0;
		imp_pose3 qa = imp_motion3_at(ma, s), qb = imp_motion3_at(mb, s);
		if (!imp_pose3_is_valid(qa) || !imp_pose3_is_valid(qb))
			break;
		imp_closest3_result c;
		if (imp_closest3(a, qa, b, qb, NULL, &c) != IMP_OK || c.state > IMP_STATE_OVERLAPPING)
			continue;
		double ext = fmax(fz_extent3(a, qa), fz_extent3(b, qb));
		double tol = fz_rel_tol(3, ext) * ext + FZ_TINY;
		if (c.distance < -tol)
			fz_finding("toi.stepped_over", "overlap %.17g at t = %.17g before the answer %.17g", c.distance, s, r.t);
	}
	return r.t;
}
