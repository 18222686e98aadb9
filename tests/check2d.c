// SPDX-License-Identifier: MIT
#include "check2d.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	assert_non_null(p);
	return p;
}

static void body_common(chk_body *b, const imp_vec2 *points, int n, double radius)
{
	memset(b, 0, sizeof *b);
	b->n_in = n;
	b->in = xmalloc((size_t)n * sizeof *b->in);
	memcpy(b->in, points, (size_t)n * sizeof *points);
	b->radius = radius;
	b->hull = xmalloc((size_t)n * sizeof *b->hull);
	b->nh = orc_hull(points, n, b->hull);
	b->world = xmalloc((size_t)n * sizeof *b->world);
	b->lib = xmalloc((size_t)n * sizeof *b->lib);
	b->pose = imp_pose2_identity();
}

void chk_body_make(chk_body *b, const imp_vec2 *points, int n, double radius)
{
	body_common(b, points, n, radius);
	imp_status st = imp_shape_polygon(points, n, radius, &b->shape);
	assert_int_equal(st, IMP_OK);
	assert_non_null(b->shape);
	int nl = imp_shape_vertex_count(b->shape);
	assert_true(nl >= 1 && nl <= n);
	b->nl = imp_shape_vertices2(b->shape, b->lib, n);
	assert_int_equal(b->nl, nl);
	chk_body_place(b, b->pose);
}

imp_vec2 chk_polygon_support(const void *user, imp_vec2 d)
{
	const chk_body *b = user;
	int best = 0;
	for (int i = 1; i < b->nh; i++)
		if (imp_vec2_dot(b->hull[i], d) > imp_vec2_dot(b->hull[best], d))
			best = i;
	return b->hull[best];
}

void chk_body_make_user(chk_body *b, const imp_vec2 *points, int n, double radius)
{
	body_common(b, points, n, radius);
	b->user = true;
	imp_status st = imp_shape_user2(chk_polygon_support, b, radius, &b->shape);
	assert_int_equal(st, IMP_OK);
	assert_non_null(b->shape);
	b->nl = 0;
	chk_body_place(b, b->pose);
}

void chk_body_free(chk_body *b)
{
	imp_shape_destroy(b->shape);
	free(b->in);
	free(b->hull);
	free(b->world);
	free(b->lib);
	memset(b, 0, sizeof *b);
}

void chk_body_place(chk_body *b, imp_pose2 pose)
{
	b->pose = pose;
	orc_transform(pose, b->hull, b->nh, b->world);
}

int chk_random_points(orc_rng *rng, imp_vec2 *out, int max_n, double scale)
{
	int n = 1 + orc_int(rng, max_n);
	imp_vec2 c = orc_vec(rng, -scale, scale, -scale, scale);
	double rx = scale * orc_range(rng, 0.1, 1.0), ry = scale * orc_range(rng, 0.1, 1.0);
	int family = orc_int(rng, 20);
	if (family < 12) { // scattered in a box
		for (int i = 0; i < n; i++)
			out[i] = imp_vec2_add(c, orc_vec(rng, -rx, rx, -ry, ry));
	} else if (family < 15) { // on an ellipse
		for (int i = 0; i < n; i++) {
			double t = orc_range(rng, 0.0, 6.283185307179586);
			out[i] = imp_vec2_make(c.x + rx * cos(t), c.y + ry * sin(t));
		}
	} else if (family < 16) { // collinear: the hull is a segment
		imp_vec2 d = orc_vec(rng, -rx, rx, -ry, ry);
		for (int i = 0; i < n; i++) {
			double t = orc_range(rng, -1.0, 1.0);
			out[i] = imp_vec2_make(c.x + t * d.x, c.y + t * d.y);
		}
	} else if (family < 18) { // few distinct points, repeated
		int k = 1 + orc_int(rng, 4);
		for (int i = 0; i < n; i++) {
			if (i < k)
				out[i] = imp_vec2_add(c, orc_vec(rng, -rx, rx, -ry, ry));
			else
				out[i] = out[orc_int(rng, k < i ? k : i)];
		}
	} else { // integer grid: exact collinear and repeated points
		double step = scale / 4.0;
		int cx = (int)floor(c.x / step), cy = (int)floor(c.y / step);
		for (int i = 0; i < n; i++) {
			int ix = orc_int(rng, 5) - 2;
			int iy = orc_int(rng, 5) - 2;
			out[i] = imp_vec2_make(step * (cx + ix), step * (cy + iy));
		}
	}
	return n;
}

imp_pose2 chk_random_pose(orc_rng *rng, double extent)
{
	imp_vec2 p = orc_vec(rng, -extent, extent, -extent, extent);
	double angle = orc_range(rng, -3.141592653589793, 3.141592653589793);
	return imp_pose2_make(p.x, p.y, angle);
}

void chk_stats_init(chk_stats *s, const char *name)
{
	memset(s, 0, sizeof *s);
	s->name = name;
	s->tol_dist = 1e-12;
	s->tol_depth = 1e-9;
	s->tol_point = 1e-9;
}

void chk_stats_print(const chk_stats *s)
{
	print_message("[ %-22s ] pairs %ld, checked %ld, near zero %ld, overlapping %ld, failures %ld\n"
		      "  max rel err: distance %.3g, depth %.3g, points %.3g, normal %.3g, touch %.3g;"
		      " max iterations %d gjk, %d epa\n",
		      s->name, s->pairs, s->checked, s->near_zero, s->overlapping, s->failures,
		      s->max_dist_err, s->max_depth_err, s->max_point_err, s->max_normal_err,
		      s->max_touch_err, s->max_iterations, s->max_epa_iterations);
}

void chk_oracle(const chk_body *a, const chk_body *b, orc_result *o)
{
	orc_query(a->world, a->nh, a->radius, b->world, b->nh, b->radius, o);
}

void chk_print_body(const char *label, const chk_body *b)
{
	print_message("  %s: %s radius %.17g pose {{%.17g, %.17g}, {%.17g, %.17g}} (%d points, hull %d, lib %d)\n",
		      label, b->user ? "user" : "polygon", b->radius, b->pose.p.x, b->pose.p.y, b->pose.q.c,
		      b->pose.q.s, b->n_in, b->nh, b->nl);
	for (int i = 0; i < b->n_in; i += 3) {
		char line[256] = "    ";
		size_t len = strlen(line);
		for (int k = i; k < b->n_in && k < i + 3; k++)
			len += (size_t)snprintf(line + len, sizeof line - len, "{%.17g, %.17g}, ", b->in[k].x, b->in[k].y);
		print_message("%s\n", line);
	}
}

void chk_fail(chk_stats *st, const chk_body *a, const chk_body *b, const char *fmt, ...)
{
	st->failures++;
	if (st->failures > 5)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	print_message("FAIL [%s] %s\n", st->name, msg);
	if (a)
		chk_print_body("a", a);
	if (b)
		chk_print_body("b", b);
}

static double boundary_error(const chk_body *s, imp_vec2 p)
{
	return fabs(orc_point_polygon_signed(p, s->world, s->nh) - s->radius);
}

// Distance from p to a feature of the library's core at the body's pose.
static bool feature_distance(const chk_body *s, imp_feature f, imp_vec2 p, double *dist, char *why,
			     size_t n, const char *which)
{
	if (s->user) {
		if (f.kind != IMP_FEATURE_NONE) {
			snprintf(why, n, "%s: user shape with feature kind %d", which, (int)f.kind);
			return false;
		}
		*dist = s->radius;
		return true;
	}
	if (f.index < 0 || f.index >= s->nl) {
		snprintf(why, n, "%s: feature index %d out of [0, %d)", which, f.index, s->nl);
		return false;
	}
	imp_vec2 v0 = imp_pose2_apply(s->pose, s->lib[f.index]);
	if (f.kind == IMP_FEATURE_VERTEX) {
		*dist = imp_vec2_length(imp_vec2_sub(p, v0));
		return true;
	}
	if (f.kind == IMP_FEATURE_EDGE && s->nl >= 2) {
		imp_vec2 v1 = imp_pose2_apply(s->pose, s->lib[(f.index + 1) % s->nl]);
		*dist = orc_point_segment(p, v0, v1, NULL);
		return true;
	}
	snprintf(why, n, "%s: bad feature kind %d (index %d, %d vertices)", which, (int)f.kind, f.index, s->nl);
	return false;
}

static double moved_sd(const chk_body *a, const chk_body *b, imp_vec2 t)
{
	imp_vec2 small[64] = {{0, 0}};
	imp_vec2 *w = b->nh <= 64 ? small : malloc((size_t)b->nh * sizeof *w);
	for (int i = 0; i < b->nh; i++)
		w[i] = imp_vec2_add(b->world[i], t);
	double sd = orc_signed_distance(a->world, a->nh, a->radius, w, b->nh, b->radius);
	if (w != small)
		free(w);
	return sd;
}

#define FAILF(...)                                                                                 \
	do {                                                                                       \
		snprintf(why, why_len, __VA_ARGS__);                                               \
		return false;                                                                      \
	} while (0)

bool chk_closest(const chk_body *a, const chk_body *b, const imp_closest2_result *r,
		 const orc_result *o, bool moves, chk_stats *st, char *why, size_t why_len)
{
	double sc = o->scene;
	double d = r->distance;
	st->checked++;
	if (r->iterations > st->max_iterations)
		st->max_iterations = r->iterations;
	if (r->epa_iterations > st->max_epa_iterations)
		st->max_epa_iterations = r->epa_iterations;
	if (r->state == IMP_STATE_ITERATION_LIMIT || r->state == IMP_STATE_DEGENERATE)
		FAILF("state %s (%d), oracle sd %.17g", imp_query_state_string(r->state), (int)r->state, o->sd);
	if (!isfinite(d))
		FAILF("distance not finite: %g", d);
	if (r->iterations < 0 || r->epa_iterations < 0)
		FAILF("negative iteration counts %d %d", r->iterations, r->epa_iterations);
	// State against the sign.
	double zero_tol = st->tol_depth * sc;
	if (r->state == IMP_STATE_SEPARATED && !(d > 0.0))
		FAILF("state separated but distance %.17g", d);
	if (r->state == IMP_STATE_OVERLAPPING && !(d < 0.0))
		FAILF("state overlapping but distance %.17g", d);
	if (r->state == IMP_STATE_TOUCHING && !(fabs(d) <= zero_tol))
		FAILF("state touching but distance %.17g", d);
	if (o->sd > zero_tol && r->state != IMP_STATE_SEPARATED)
		FAILF("oracle sd %.17g > 0 but state %d", o->sd, (int)r->state);
	if (o->sd < -zero_tol && r->state != IMP_STATE_OVERLAPPING)
		FAILF("oracle sd %.17g < 0 but state %d", o->sd, (int)r->state);
	// Distance / depth against the oracle (exact SAT depth when overlapping).
	double err = fabs(d - o->sd) / sc;
	if (o->sd > 0.0) {
		if (err > st->max_dist_err)
			st->max_dist_err = err;
		if (err > st->tol_dist)
			FAILF("distance %.17g, oracle %.17g (rel err %.3g > %.3g)", d, o->sd, err, st->tol_dist);
	} else {
		if (err > st->max_depth_err)
			st->max_depth_err = err;
		if (err > st->tol_depth)
			FAILF("signed distance %.17g, oracle (SAT depth) %.17g (rel err %.3g)", d, o->sd, err);
	}
	// Normal, witness points.
	imp_vec2 n = r->normal;
	if (!(isfinite(n.x) && isfinite(n.y)) || fabs(imp_vec2_length(n) - 1.0) > 1e-12)
		FAILF("normal not unit: (%.17g, %.17g)", n.x, n.y);
	imp_vec2 pa = r->point_a, pb = r->point_b;
	if (!(isfinite(pa.x) && isfinite(pa.y) && isfinite(pb.x) && isfinite(pb.y)))
		FAILF("witness not finite");
	imp_vec2 ab = imp_vec2_sub(pb, pa);
	double ptol = st->tol_point * sc;
	double e1 = fabs(imp_vec2_dot(n, ab) - d), e2 = fabs(imp_vec2_length(ab) - fabs(d));
	double ea = boundary_error(a, pa), eb = boundary_error(b, pb);
	double pe = fmax(fmax(e1, e2), fmax(ea, eb)) / sc;
	if (pe > st->max_point_err)
		st->max_point_err = pe;
	if (e1 > ptol)
		FAILF("normal . (pb - pa) = %.17g, distance %.17g", imp_vec2_dot(n, ab), d);
	if (e2 > ptol)
		FAILF("|pb - pa| = %.17g, |distance| %.17g", imp_vec2_length(ab), fabs(d));
	if (ea > ptol)
		FAILF("point_a (%.17g, %.17g) off a's boundary by %.3g", pa.x, pa.y, ea);
	if (eb > ptol)
		FAILF("point_b (%.17g, %.17g) off b's boundary by %.3g", pb.x, pb.y, eb);
	// Features.
	double fd;
	if (!feature_distance(a, r->feature_a, pa, &fd, why, why_len, "feature_a"))
		return false;
	if (fabs(fd - a->radius) > ptol)
		FAILF("point_a is %.17g from feature_a (kind %d index %d), radius %.17g", fd,
		      (int)r->feature_a.kind, r->feature_a.index, a->radius);
	if (!feature_distance(b, r->feature_b, pb, &fd, why, why_len, "feature_b"))
		return false;
	if (fabs(fd - b->radius) > ptol)
		FAILF("point_b is %.17g from feature_b (kind %d index %d), radius %.17g", fd,
		      (int)r->feature_b.kind, r->feature_b.index, b->radius);
	// Against the oracle's normal and points where they are unique.
	if (o->unique_normal) {
		double ne = imp_vec2_length(imp_vec2_sub(n, o->normal));
		if (ne > st->max_normal_err)
			st->max_normal_err = ne;
		if (ne > 1e-6)
			FAILF("normal (%.17g, %.17g), oracle (%.17g, %.17g)", n.x, n.y, o->normal.x, o->normal.y);
	}
	if (o->unique_points) {
		double pe2 = fmax(imp_vec2_length(imp_vec2_sub(pa, o->pa)), imp_vec2_length(imp_vec2_sub(pb, o->pb)));
		if (pe2 > 1e-6 * sc)
			FAILF("witnesses (%.17g, %.17g) (%.17g, %.17g), oracle (%.17g, %.17g) (%.17g, %.17g)", pa.x,
			      pa.y, pb.x, pb.y, o->pa.x, o->pa.y, o->pb.x, o->pb.y);
	}
	if (moves) {
		// Moving b by -distance * normal makes them touch...
		double sd0 = moved_sd(a, b, imp_vec2_scale(-d, n));
		// ... and by a little more separates them by that much.
		double eps = 1e-6 * sc;
		double sd1 = moved_sd(a, b, imp_vec2_scale(-d + eps, n));
		double te = fmax(fabs(sd0), fabs(sd1 - eps) - 1e-3 * eps) / sc;
		if (te > st->max_touch_err)
			st->max_touch_err = te;
		if (fabs(sd0) > ptol)
			FAILF("moving b by -distance*normal leaves oracle sd %.17g (distance %.17g)", sd0, d);
		if (fabs(sd1 - eps) > 1e-3 * eps + 2.0 * ptol)
			FAILF("moving b by (-distance + %.3g)*normal gives oracle sd %.17g", eps, sd1);
	}
	return true;
}
