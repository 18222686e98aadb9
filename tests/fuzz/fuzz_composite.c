// SPDX-License-Identifier: MIT
// Fuzz target: bytes -> two shapes of which one or both are non-convex
// (compounds of any convex shape fz_shape makes, meshes, height fields,
// chains; their arguments sometimes wrong), two poses, then every pairwise
// query. Besides the invariants of every answer (fuzz_pairwise.c), each is
// checked against a brute force over every pair of children, the children
// made as convex shapes of their own (a triangle, a prism, a segment as a
// polytope or polygon; a compound's children as given) and queried one
// pair at a time.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_KIDS 24

/// A shape and the convex children the brute force uses.
typedef struct made {
	imp_shape *shape;
	int kind;           ///< 0 convex, else IMP_SHAPE_COMPOUND2 .. IMP_SHAPE_CHAIN
	imp_shape *own[8];  ///< a compound's children
	fz_made own_made[8]; ///< (user shapes point into these: they live as long as the shapes)
	fz_made self_made;   ///< a convex side's
	int n_own;
	imp_shape *kid[MAX_KIDS]; ///< the brute force's children
	bool kid_owned[MAX_KIDS];
	imp_pose2 kp2[MAX_KIDS];
	imp_pose3 kp3[MAX_KIDS];
	int n_kids;
	bool complete;      ///< every child made (a refusal leaves the brute force out)
	bool user;          ///< a child is a user shape
} made;

static void made_free(made *m)
{
	imp_shape_destroy(m->shape);
	for (int i = 0; i < m->n_kids; ++i)
		if (m->kid_owned[i])
			imp_shape_destroy(m->kid[i]);
	for (int i = 0; i < m->n_own; ++i)
		imp_shape_destroy(m->own[i]);
}

static void add_kid(made *m, imp_shape *s, bool owned, imp_pose2 p2, imp_pose3 p3)
{
	if (s == NULL) {
		m->complete = false;
		return;
	}
	m->kid[m->n_kids] = s;
	m->kid_owned[m->n_kids] = owned;
	m->kp2[m->n_kids] = p2;
	m->kp3[m->n_kids] = p3;
	++m->n_kids;
}

static bool in_range(double x)
{
	return isfinite(x) && fabs(x) <= IMP_MAX_COORDINATE;
}

/// A constructor's answer checked: a refusal leaves *out alone; valid
/// arguments are taken.
static imp_shape *constructed(imp_status st, imp_shape *s, imp_shape *sentinel, bool valid, const char *what)
{
	if (st != IMP_OK) {
		if (s != sentinel)
			fz_finding("composite.refused_wrote", "%s refused (%s) and wrote *out", what, imp_status_string(st));
		if (valid && st != IMP_ERR_OUT_OF_MEMORY)
			fz_finding("composite.refused_valid", "%s refused valid arguments: %s", what, imp_status_string(st));
		return NULL;
	}
	if (!valid)
		fz_finding("composite.accepted_invalid", "%s accepted invalid arguments", what);
	return s;
}

static void make_compound(fz *f, int dim, made *m)
{
	int n = 1 + fz_int(f, 4);
	const imp_shape *kids[8];
	imp_pose2 p2[8];
	imp_pose3 p3[8];
	bool valid = true;
	for (int i = 0; i < n; ++i) {
		m->own[i] = fz_shape(f, dim, &m->own_made[i]);
		if (getenv("FZ_VERBOSE")) {
			const fz_made *x = &m->own_made[i];
			fprintf(stderr, "child %d: %s radius %.17g h (%.17g %.17g %.17g) points", i, fz_kind_name(x->kind),
				x->radius, x->h[0], x->h[1], x->h[2]);
			for (int k = 0; k < x->n; ++k)
				fprintf(stderr, " (%.17g %.17g %.17g)", x->pts[k].x, x->pts[k].y, x->pts[k].z);
			fputc('\n', stderr);
		}
		m->user |= m->own_made[i].kind == FZ_USER2 || m->own_made[i].kind == FZ_USER3;
		kids[i] = m->own[i];
		valid = valid && m->own[i] != NULL;
		p2[i] = fz_pose2(f);
		p3[i] = fz_pose3(f);
		if (getenv("FZ_VERBOSE"))
			fprintf(stderr, "child %d pose 3D (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g)\n", i, p3[i].p.x, p3[i].p.y,
				p3[i].p.z, p3[i].q.x, p3[i].q.y, p3[i].q.z, p3[i].q.w);
		valid = valid && (dim == 2 ? imp_pose2_is_valid(p2[i]) : imp_pose3_is_valid(p3[i]));
	}
	m->n_own = n;
	imp_shape *sentinel = (imp_shape *)&m->shape, *s = sentinel;
	imp_status st = dim == 2 ? imp_shape_compound2(kids, p2, n, &s) : imp_shape_compound3(kids, p3, n, &s);
	// A user child whose support is not finite is refused too.
	if (st == IMP_ERR_NOT_FINITE && m->user)
		valid = false;
	m->shape = constructed(st, s, sentinel, valid, "compound");
	if (m->shape == NULL)
		return;
	for (int i = 0; i < n; ++i) {
		imp_pose2 q2 = p2[i];
		imp_pose3 q3 = p3[i];
		add_kid(m, m->own[i], false, q2, q3);
	}
}

static void make_mesh(fz *f, made *m)
{
	int nv = 1 + fz_int(f, 8), nt = 1 + fz_int(f, 10);
	imp_vec3 v[8];
	int32_t t[30];
	bool valid = true;
	for (int i = 0; i < nv; ++i) {
		v[i] = fz_vec3(f);
		valid = valid && in_range(v[i].x) && in_range(v[i].y) && in_range(v[i].z);
	}
	for (int i = 0; i < 3 * nt; ++i) {
		// Rarely an index out of range.
		t[i] = fz_chance(f, 4) ? nv + fz_int(f, 3) - 1 + (fz_int(f, 2) ? 0 : -nv - 1) : fz_int(f, nv);
		valid = valid && t[i] >= 0 && t[i] < nv;
	}
	double radius = fz_radius(f);
	valid = valid && in_range(radius);
	if (getenv("FZ_VERBOSE")) {
		fprintf(stderr, "mesh: radius %.17g\n", radius);
		for (int i = 0; i < nv; ++i)
			fprintf(stderr, "  v%d %.17g %.17g %.17g\n", i, v[i].x, v[i].y, v[i].z);
		for (int i = 0; i < nt; ++i)
			fprintf(stderr, "  t%d %d %d %d\n", i, t[3 * i], t[3 * i + 1], t[3 * i + 2]);
	}
	imp_shape *sentinel = (imp_shape *)&m->shape, *s = sentinel;
	imp_status st = imp_shape_mesh(v, nv, t, nt, radius, &s);
	m->shape = constructed(st, s, sentinel, valid, "mesh");
	if (m->shape == NULL)
		return;
	for (int i = 0; i < nt; ++i) {
		imp_vec3 p[3] = {v[t[3 * i]], v[t[3 * i + 1]], v[t[3 * i + 2]]};
		imp_shape *k = NULL;
		if (imp_shape_polytope(p, 3, radius, &k) != IMP_OK)
			k = NULL;
		add_kid(m, k, true, imp_pose2_identity(), imp_pose3_identity());
	}
}

static void make_heightfield(fz *f, made *m)
{
	int rows = 1 + fz_int(f, 4), cols = 1 + fz_int(f, 4);
	double h[16];
	double dx = fz_size(f), dy = fz_size(f), base = fz_num(f), radius = fz_radius(f);
	bool valid = rows >= 2 && cols >= 2 && isfinite(dx) && isfinite(dy) && dx > 0.0 && dy > 0.0 &&
		     in_range((cols - 1) * dx) && in_range((rows - 1) * dy) && in_range(base) && in_range(radius);
	for (int i = 0; i < rows * cols; ++i) {
		// Mostly above the base.
		h[i] = fz_chance(f, 16) ? fz_num(f) : base + fz_size(f);
		valid = valid && in_range(h[i]) && h[i] > base;
	}
	imp_shape *sentinel = (imp_shape *)&m->shape, *s = sentinel;
	imp_status st = imp_shape_heightfield(h, rows, cols, dx, dy, base, radius, &s);
	m->shape = constructed(st, s, sentinel, valid, "height field");
	if (m->shape == NULL)
		return;
	for (int r = 0; r + 1 < rows; ++r)
		for (int c = 0; c + 1 < cols; ++c) {
			int corner[2][3][2] = {{{c, r}, {c + 1, r}, {c + 1, r + 1}}, {{c, r}, {c + 1, r + 1}, {c, r + 1}}};
			for (int t = 0; t < 2; ++t) {
				imp_vec3 p[6];
				for (int k = 0; k < 3; ++k) {
					int x = corner[t][k][0], y = corner[t][k][1];
					p[k] = (imp_vec3){x * dx, y * dy, h[y * cols + x]};
					p[3 + k] = (imp_vec3){x * dx, y * dy, base};
				}
				imp_shape *k = NULL;
				if (imp_shape_polytope(p, 6, radius, &k) != IMP_OK)
					k = NULL;
				add_kid(m, k, true, imp_pose2_identity(), imp_pose3_identity());
			}
		}
}

static void make_chain(fz *f, made *m)
{
	int n = 1 + fz_int(f, 10);
	bool loop = fz_u8(f) & 1;
	imp_vec2 p[10];
	bool valid = n >= 2;
	for (int i = 0; i < n; ++i) {
		// Sometimes a point repeated.
		p[i] = i > 0 && fz_chance(f, 24) ? p[i - 1] : fz_vec2(f);
		valid = valid && in_range(p[i].x) && in_range(p[i].y);
	}
	double radius = fz_radius(f);
	valid = valid && in_range(radius);
	imp_shape *sentinel = (imp_shape *)&m->shape, *s = sentinel;
	imp_status st = imp_shape_chain(p, n, loop, radius, &s);
	m->shape = constructed(st, s, sentinel, valid, "chain");
	if (m->shape == NULL)
		return;
	for (int i = 0; i < (loop ? n : n - 1); ++i) {
		imp_vec2 q[2] = {p[i], p[(i + 1) % n]};
		imp_shape *k = NULL;
		if (imp_shape_polygon(q, 2, radius, &k) != IMP_OK)
			k = NULL;
		add_kid(m, k, true, imp_pose2_identity(), imp_pose3_identity());
	}
}

/// A side of the pair: convex (from fz_shape) or non-convex.
static void make_side(fz *f, int dim, bool composite, made *m)
{
	memset(m, 0, sizeof *m);
	m->complete = true;
	if (!composite) {
		m->shape = fz_shape(f, dim, &m->self_made);
		m->user = m->self_made.kind == FZ_USER2 || m->self_made.kind == FZ_USER3;
		if (getenv("FZ_VERBOSE")) {
			const fz_made *x = &m->self_made;
			fprintf(stderr, "convex: %s radius %.17g h (%.17g %.17g %.17g) points", fz_kind_name(x->kind), x->radius,
				x->h[0], x->h[1], x->h[2]);
			for (int i = 0; i < x->n; ++i)
				fprintf(stderr, " (%.17g %.17g %.17g)", x->pts[i].x, x->pts[i].y, x->pts[i].z);
			fputc('\n', stderr);
		}
		add_kid(m, m->shape, false, imp_pose2_identity(), imp_pose3_identity());
		return;
	}
	int k = fz_int(f, 2);
	if (dim == 2) {
		m->kind = k ? IMP_SHAPE_CHAIN : IMP_SHAPE_COMPOUND2;
		if (k)
			make_chain(f, m);
		else
			make_compound(f, 2, m);
	} else {
		k = fz_int(f, 3);
		m->kind = k == 0 ? IMP_SHAPE_COMPOUND3 : (k == 1 ? IMP_SHAPE_MESH : IMP_SHAPE_HEIGHTFIELD);
		if (k == 0)
			make_compound(f, 3, m);
		else if (k == 1)
			make_mesh(f, m);
		else
			make_heightfield(f, m);
	}
	if (m->shape != NULL && imp_shape_kind_of(m->shape) != m->kind)
		fz_finding("composite.kind", "kind %d, made %d", imp_shape_kind_of(m->shape), m->kind);
	if (m->shape != NULL && imp_shape_child_count(m->shape) != m->n_kids && m->complete)
		fz_finding("composite.children", "%d children, %d made", imp_shape_child_count(m->shape), m->n_kids);
}

/// A child's world pose: its pose in the shape composed with the shape's
/// (rotations brought to unit length first, as a query does).
static imp_pose3 compose3(imp_pose3 a, imp_pose3 b, bool posed)
{
	if (!posed)
		return a;
	double n = sqrt(a.q.x * a.q.x + a.q.y * a.q.y + a.q.z * a.q.z + a.q.w * a.q.w);
	a.q = imp_quat_scale(1.0 / n, a.q);
	imp_pose3 o = imp_pose3_mul(a, b);
	double m = sqrt(o.q.x * o.q.x + o.q.y * o.q.y + o.q.z * o.q.z + o.q.w * o.q.w);
	o.q = imp_quat_scale(1.0 / m, o.q);
	return o;
}

static imp_pose2 compose2(imp_pose2 a, imp_pose2 b, bool posed)
{
	if (!posed)
		return a;
	double n = sqrt(a.q.c * a.q.c + a.q.s * a.q.s);
	a.q.c /= n;
	a.q.s /= n;
	imp_pose2 o = imp_pose2_mul(a, b);
	double m = sqrt(o.q.c * o.q.c + o.q.s * o.q.s);
	o.q.c /= m;
	o.q.s /= m;
	return o;
}

/// The least signed distance over every pair of children; false when a
/// child query was refused or stopped (no brute force then).
static bool brute(int dim, const made *a, imp_pose2 a2, imp_pose3 a3, const made *b, imp_pose2 b2, imp_pose3 b3,
		  double *best)
{
	*best = INFINITY;
	for (int i = 0; i < a->n_kids; ++i)
		for (int j = 0; j < b->n_kids; ++j) {
			bool pa = a->kind == IMP_SHAPE_COMPOUND2 || a->kind == IMP_SHAPE_COMPOUND3;
			bool pb = b->kind == IMP_SHAPE_COMPOUND2 || b->kind == IMP_SHAPE_COMPOUND3;
			double d;
			imp_query_state state;
			if (dim == 2) {
				imp_closest2_result r;
				if (imp_closest2(a->kid[i], compose2(a2, a->kp2[i], pa), b->kid[j], compose2(b2, b->kp2[j], pb), NULL,
						 &r) != IMP_OK)
					return false;
				d = r.distance;
				state = r.state;
			} else {
				imp_closest3_result r;
				if (imp_closest3(a->kid[i], compose3(a3, a->kp3[i], pa), b->kid[j], compose3(b3, b->kp3[j], pb), NULL,
						 &r) != IMP_OK)
					return false;
				d = r.distance;
				state = r.state;
			}
			if (state == IMP_STATE_DEGENERATE || state == IMP_STATE_ITERATION_LIMIT)
				return false;
			if (getenv("FZ_VERBOSE"))
				fprintf(stderr, "brute: children %d %d: %.17g (%s)\n", i, j, d, imp_query_state_string(state));
			*best = fmin(*best, d);
		}
	return true;
}

static bool curved_kid(const made *m)
{
	for (int i = 0; i < m->n_own; ++i) {
		int k = m->own_made[i].kind;
		if (k == FZ_USER2 || k == FZ_USER3 || k == FZ_CYLINDER || k == FZ_CONE || k == FZ_ELLIPSOID)
			return true;
	}
	return false;
}

/// The debug draw of a shape: every point it draws finite.
static bool drawn_ok;

static void draw_check(imp_vec2 p)
{
	if (!isfinite(p.x) || !isfinite(p.y))
		drawn_ok = false;
}

static void d_polygon(const imp_vec2 *p, int n, double radius, imp_color c, void *user)
{
	(void)radius, (void)c, (void)user;
	for (int i = 0; i < n; ++i)
		draw_check(p[i]);
}

static void d_circle(imp_vec2 p, double radius, imp_color c, void *user)
{
	(void)radius, (void)c, (void)user;
	draw_check(p);
}

static void d_capsule(imp_vec2 a, imp_vec2 b, double radius, imp_color c, void *user)
{
	(void)radius, (void)c, (void)user;
	draw_check(a);
	draw_check(b);
}

static void d_segment(imp_vec2 a, imp_vec2 b, imp_color c, void *user)
{
	(void)c, (void)user;
	draw_check(a);
	draw_check(b);
}

static void d_point(imp_vec2 p, double size, imp_color c, void *user)
{
	(void)size, (void)c, (void)user;
	draw_check(p);
}

static void draw_side(int dim, const imp_shape *s, imp_pose2 p2, imp_pose3 p3)
{
	imp_debug_draw d = imp_default_debug_draw();
	d.polygon = d_polygon;
	d.circle = d_circle;
	d.capsule = d_capsule;
	d.segment = d_segment;
	d.point = d_point;
	drawn_ok = true;
	imp_status st = dim == 2 ? imp_draw_shape2(&d, s, p2, imp_color_make(0, 0, 0, 1))
				 : imp_draw_shape3(&d, s, p3, imp_color_make(0, 0, 0, 1));
	if (st == IMP_OK && !drawn_ok)
		fz_finding("composite.draw", "a drawn point is not finite");
}

typedef struct step_log {
	double last_t;
	int contacts;
	bool out_of_order, bad;
} step_log;

static void on_contact(const imp_contact_event *e, void *user)
{
	step_log *l = user;
	if (e->t < l->last_t)
		l->out_of_order = true;
	l->last_t = e->t;
	l->contacts++;
	if (!isfinite(e->distance) || !isfinite(e->normal.x + e->normal.y + e->normal.z) ||
	    !isfinite(e->point_a.x + e->point_a.y + e->point_a.z))
		l->bad = true;
}

/// The two shapes as bodies of a world (bytes read after everything else,
/// so that the corpus's earlier inputs decode as before): the touching pair
/// equals the pairwise answer away from touching, the queries with either
/// shape agree with it, and a step with velocities from the bytes reports
/// finite contacts in time order. pen_tol: the tolerance of a depth (the
/// swap check's: a curved child's depth is EPA's, to 1e-4 of the scene).
static void world_check(fz *f, int dim, const made *a, imp_pose2 a2, imp_pose3 a3, const made *b, imp_pose2 b2,
			imp_pose3 b3, double d, double tol, double pen_tol)
{
	imp_world_def wd = imp_default_world_def();
	wd.dim = dim;
	wd.broad_phase = (imp_broad_kind)fz_int(f, 3);
	imp_world *w;
	if (imp_world_create(&wd, &w) != IMP_OK)
		return;
	imp_body_def bd = imp_default_body_def();
	bd.type = fz_u8(f) & 1 ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
	bd.shape = a->shape;
	bd.pose2 = a2;
	bd.pose3 = a3;
	imp_body_id ia, ib;
	imp_status st = imp_world_add_body(w, &bd, &ia);
	bd.type = IMP_BODY_DYNAMIC;
	bd.shape = b->shape;
	bd.pose2 = b2;
	bd.pose3 = b3;
	if (st == IMP_OK)
		st = imp_world_add_body(w, &bd, &ib);
	if (st != IMP_OK) {
		if (st != IMP_ERR_OUT_OF_RANGE)
			fz_finding("composite.world_add", "a body refused: %s", imp_status_string(st));
		imp_world_destroy(w);
		return;
	}
	if (imp_world_update(w) != IMP_OK) {
		imp_world_destroy(w);
		return;
	}
	int pairs = 0;
	imp_pair_events ev = imp_world_get_events(w);
	pairs = ev.begin_count;
	if (fabs(d) > tol && pairs != (d <= 0.0))
		fz_finding("composite.world_pair", "%d touching pairs, distance %.17g", pairs, d);
	// A query with b's shape at b's pose, b's own body filtered out.
	imp_query_filter qf = imp_default_query_filter();
	qf.ignore = ib;
	bool any = false;
	st = dim == 2 ? imp_world_overlap_any2(w, b->shape, b2, &qf, &any) : imp_world_overlap_any3(w, b->shape, b3, &qf, &any);
	if (st == IMP_OK && fabs(d) > tol && any != (d <= 0.0))
		fz_finding("composite.world_overlap_any", "overlap_any %d, distance %.17g", any, d);
	imp_query_result near;
	st = dim == 2 ? imp_world_nearest2(w, b->shape, b2, INFINITY, &qf, &near)
		      : imp_world_nearest3(w, b->shape, b3, INFINITY, &qf, &near);
	// The world answers with the query's shape first, the order (b, a),
	// whose depth may differ from (a, b)'s by the swap check's tolerance
	// (a 2D chain and a compound with a curved user child, 42.5 deep:
	// 0.0156; finding-world-nearest-curved-depth).
	double near_tol = fmax(d < 0.0 ? pen_tol : tol, 1e-4 * fabs(d));
	if (st == IMP_OK && near.body.index != 0 && !(fabs(near.distance - d) <= near_tol))
		fz_finding("composite.world_nearest", "nearest %.17g, pairwise %.17g", near.distance, d);
	// A step.
	imp_vec3 v = fz_vec3(f), av = fz_vec3(f);
	st = dim == 2 ? imp_body_set_velocity2(w, ib, (imp_vec2){v.x, v.y}, av.z) : imp_body_set_velocity3(w, ib, v, av);
	if (st == IMP_OK) {
		step_log log = {0.0, 0, false, false};
		imp_step_opts so = imp_default_step_opts();
		so.on_contact = on_contact;
		so.user = &log;
		so.max_pair_calls = 256; // a bounded time an input
		st = imp_world_step(w, 1.0 / 64.0, &so);
		if (st == IMP_OK && (log.out_of_order || log.bad))
			fz_finding("composite.world_step", "contacts out of order %d, not finite %d", log.out_of_order, log.bad);
	}
	imp_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz f = {data, size, 0};
	fz_begin();
	int dim = 2 + (fz_u8(&f) & 1);
	int sides = fz_int(&f, 3); // which sides are non-convex: a, b, or both
	made a, b;
	make_side(&f, dim, sides != 1, &a);
	make_side(&f, dim, sides != 0, &b);
	snprintf(fz_context, sizeof fz_context, "%dD composite: kinds %d and %d%s%s", dim, a.kind, b.kind,
		 a.shape ? "" : " (a refused)", b.shape ? "" : " (b refused)");
	imp_pose2 a2 = fz_pose2(&f), b2 = fz_pose2(&f);
	imp_pose3 a3 = fz_pose3(&f), b3 = fz_pose3(&f);
	if (getenv("FZ_VERBOSE"))
		fprintf(stderr, "poses 3D (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g) (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g)\n",
			a3.p.x, a3.p.y, a3.p.z, a3.q.x, a3.q.y, a3.q.z, a3.q.w, b3.p.x, b3.p.y, b3.p.z, b3.q.x, b3.q.y, b3.q.z,
			b3.q.w);
	bool valid = a.shape && b.shape &&
		     (dim == 2 ? imp_pose2_is_valid(a2) && imp_pose2_is_valid(b2) : imp_pose3_is_valid(a3) && imp_pose3_is_valid(b3));
	if (!valid) {
		// Every query refuses.
		imp_closest3_result r3;
		imp_closest2_result r2;
		imp_status st = dim == 2 ? imp_closest2(a.shape, a2, b.shape, b2, NULL, &r2)
					 : imp_closest3(a.shape, a3, b.shape, b3, NULL, &r3);
		double d = dim == 2 ? imp_distance2(a.shape, a2, b.shape, b2, NULL) : imp_distance3(a.shape, a3, b.shape, b3, NULL);
		bool ov = dim == 2 ? imp_overlap2(a.shape, a2, b.shape, b2, NULL) : imp_overlap3(a.shape, a3, b.shape, b3, NULL);
		if (st == IMP_OK || !isnan(d) || ov)
			fz_finding("composite.accepted_invalid", "a query took invalid input");
		made_free(&a);
		made_free(&b);
		return 0;
	}
	double scale = dim == 2 ? fmax(fz_extent2(a.shape, a2), fz_extent2(b.shape, b2))
				: fmax(fz_extent3(a.shape, a3), fz_extent3(b.shape, b3));
	double tol = fz_rel_tol(dim, scale) * scale + FZ_TINY;
	bool round = curved_kid(&a) || curved_kid(&b);
	double pen_tol = round ? 1e-4 * scale + FZ_TINY : tol;

	// Level 3, cold, both orders.
	double dist[2] = {0, 0};
	imp_query_state state[2] = {IMP_STATE_SEPARATED, IMP_STATE_SEPARATED};
	for (int order = 0; order < 2; ++order) {
		const imp_shape *x = order ? b.shape : a.shape, *y = order ? a.shape : b.shape;
		imp_status st;
		double d;
		imp_vec3 pa, pb, n;
		int ca, cb;
		if (dim == 2) {
			imp_closest2_result r;
			st = imp_closest2(x, order ? b2 : a2, y, order ? a2 : b2, NULL, &r);
			d = r.distance;
			pa = (imp_vec3){r.point_a.x, r.point_a.y, 0};
			pb = (imp_vec3){r.point_b.x, r.point_b.y, 0};
			n = (imp_vec3){r.normal.x, r.normal.y, 0};
			state[order] = r.state;
			ca = r.child_a;
			cb = r.child_b;
		} else {
			imp_closest3_result r;
			st = imp_closest3(x, order ? b3 : a3, y, order ? a3 : b3, NULL, &r);
			d = r.distance;
			pa = r.point_a;
			pb = r.point_b;
			n = r.normal;
			state[order] = r.state;
			ca = r.child_a;
			cb = r.child_b;
		}
		if (st != IMP_OK) {
			if (st != IMP_ERR_OUT_OF_RANGE)
				fz_finding("composite.refused_valid", "closest refused: %s", imp_status_string(st));
			made_free(&a);
			made_free(&b);
			return 0;
		}
		dist[order] = d;
		if (getenv("FZ_VERBOSE"))
			fprintf(stderr, "closest, order %d: %.17g (%s), children %d %d\n", order, d,
				imp_query_state_string(state[order]), ca, cb);
		if (state[order] == IMP_STATE_DEGENERATE) {
			if (!a.user && !b.user)
				fz_finding("composite.degenerate", "a degenerate answer without a user shape");
			continue;
		}
		int nx = imp_shape_child_count(x), ny = imp_shape_child_count(y);
		if (!(nx == 0 ? ca == -1 : ca >= 0 && ca < nx) || !(ny == 0 ? cb == -1 : cb >= 0 && cb < ny))
			fz_finding("composite.child", "children %d of %d and %d of %d", ca, nx, cb, ny);
		double len = sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
		if (!isfinite(d) || fabs(len - 1.0) > 1e-9)
			fz_finding("composite.finite", "distance %g, |normal| %.17g", d, len);
		double along = (pb.x - pa.x) * n.x + (pb.y - pa.y) * n.y + (pb.z - pa.z) * n.z;
		if (fabs(along - d) > tol)
			fz_finding("composite.witness", "normal.(b - a) %.17g, distance %.17g", along, d);
	}
	bool good = state[0] <= IMP_STATE_OVERLAPPING && state[1] <= IMP_STATE_OVERLAPPING;
	if (good) {
		double t = fmin(dist[0], dist[1]) < 0.0 ? pen_tol : tol;
		if (!(fabs(dist[0] - dist[1]) <= t))
			fz_finding("composite.swap", "closest(a, b) %.17g, closest(b, a) %.17g", dist[0], dist[1]);
		double want;
		if (a.complete && b.complete && brute(dim, &a, a2, a3, &b, b2, b3, &want) && !(fabs(want - dist[0]) <= t))
			fz_finding("composite.brute_force", "closest %.17g, over the children %.17g", dist[0], want);
		double d = dim == 2 ? imp_distance2(a.shape, a2, b.shape, b2, NULL) : imp_distance3(a.shape, a3, b.shape, b3, NULL);
		if (!(fabs(d - fmax(dist[0], 0.0)) <= tol))
			fz_finding("composite.distance", "Level 2 %.17g, Level 3 %.17g", d, dist[0]);
		bool ov = dim == 2 ? imp_overlap2(a.shape, a2, b.shape, b2, NULL) : imp_overlap3(a.shape, a3, b.shape, b3, NULL);
		if (ov != (dist[0] <= 0.0) && fabs(dist[0]) > tol)
			fz_finding("composite.overlap", "overlap %d, distance %.17g", ov, dist[0]);
		// A cache: empty, warm, and holding bytes.
		imp_simplex_cache cache;
		memset(&cache, 0, sizeof cache);
		if (fz_chance(&f, 48))
			for (size_t k = 0; k < sizeof cache; ++k)
				((uint8_t *)&cache)[k] = fz_u8(&f);
		for (int pass = 0; pass < 2; ++pass) {
			double w;
			imp_query_state ws;
			if (dim == 2) {
				imp_closest2_result r;
				if (imp_closest2(a.shape, a2, b.shape, b2, &cache, &r) != IMP_OK)
					fz_finding("composite.cache", "refused with a cache");
				w = r.distance;
				ws = r.state;
			} else {
				imp_closest3_result r;
				if (imp_closest3(a.shape, a3, b.shape, b3, &cache, &r) != IMP_OK)
					fz_finding("composite.cache", "refused with a cache");
				w = r.distance;
				ws = r.state;
			}
			if (ws <= IMP_STATE_OVERLAPPING && !(fabs(w - dist[0]) <= t))
				fz_finding("composite.cache", "pass %d: with a cache %.17g, without %.17g", pass, w, dist[0]);
		}
	}
	if (good)
		world_check(&f, dim, &a, a2, a3, &b, b2, b3, dist[0], tol, pen_tol);
	draw_side(dim, a.shape, a2, a3);
	draw_side(dim, b.shape, b2, b3);
	// The shape's own promises: supports inside its box.
	for (int side = 0; side < 2; ++side) {
		const imp_shape *s = side ? b.shape : a.shape;
		if (dim == 2) {
			imp_aabb2 box;
			imp_vec2 p;
			if (imp_shape_aabb2(s, a2, &box) == IMP_OK && imp_shape_support2(s, a2, (imp_vec2){1, 0.5}, &p) == IMP_OK &&
			    !(p.x <= box.hi.x + tol && p.y <= box.hi.y + tol && p.x >= box.lo.x - tol && p.y >= box.lo.y - tol))
				fz_finding("composite.support_in_box", "support (%g %g) outside its box", p.x, p.y);
		} else {
			imp_aabb3 box;
			imp_vec3 p;
			if (imp_shape_aabb3(s, a3, &box) == IMP_OK && imp_shape_support3(s, a3, (imp_vec3){1, 0.5, -0.25}, &p) == IMP_OK &&
			    !(p.x <= box.hi.x + tol && p.y <= box.hi.y + tol && p.z <= box.hi.z + tol && p.x >= box.lo.x - tol &&
			      p.y >= box.lo.y - tol && p.z >= box.lo.z - tol))
				fz_finding("composite.support_in_box", "support (%g %g %g) outside its box", p.x, p.y, p.z);
		}
	}
	made_free(&a);
	made_free(&b);
	fz_context[0] = 0;
	return 0;
}
