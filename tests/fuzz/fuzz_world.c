// SPDX-License-Identifier: MIT
// Fuzz target: bytes -> a world (2D or 3D, any broad phase and options)
// and a stream of operations on it (add, remove, poses, velocities, target
// poses, filters, update, step with a callback that tries to change the
// world, every planner query), through an allocator that fails the
// allocation the bytes choose. After each successful update the touching
// pairs equal brute force (tests/oracle_world.c); the planner queries equal
// brute force; after each failed call the state hash is as it was; at the
// end no block is left (docs/fuzzing.md).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counting_alloc.h"
#include "fuzz.h"
#include "oracle_world.h"

#define MAX_SLOTS 64
#define MAX_SHAPES 6
#define MAX_OPS 48

typedef struct run {
	fz *f;
	imp_world *w;
	int dim;
	counting c;
	ow_rule rule;
	ow_body body[MAX_SLOTS];
	imp_body_id id[MAX_SLOTS];
	int slots; ///< slots used so far (the highest index + 1)
	imp_shape *shape[MAX_SHAPES];
	fz_made made[MAX_SHAPES];
	int shapes;
	imp_vec3 ray_from, ray_to; ///< the ray being cast (ray_fn checks its hits)
	bool velocity_in_callback; ///< the step's callback set a velocity (kept after a failed step)
	int callbacks;
} run;

static const char *const op_names[] = {
	"add", "remove", "set_pose", "set_velocity", "set_target", "set_filter", "update", "step",
	"overlap_shape", "overlap_any", "nearest", "query_distance", "distance", "clearance", "cast_shape",
	"ray_cast", "for_each_pair", "set_poses",
};
#define N_OPS ((int)(sizeof op_names / sizeof op_names[0]))

static imp_filter filter_from(fz *f)
{
	imp_filter flt = imp_default_filter();
	uint8_t sel = fz_u8(f);
	if (sel < 160)
		return flt;
	flt.category = 1ull << fz_int(f, 4);
	flt.mask = fz_chance(f, 128) ? ~0ull : (uint64_t)fz_u8(f);
	flt.group = fz_int(f, 5) - 2;
	return flt;
}

/// A live body's id, or a stale, null or made-up one.
static imp_body_id pick_id(run *r, int *slot)
{
	*slot = -1;
	int live[MAX_SLOTS], n = 0;
	for (int k = 0; k < r->slots; ++k)
		if (r->body[k].live)
			live[n++] = k;
	uint8_t sel = fz_u8(r->f);
	if (n > 0 && sel < 230) {
		*slot = live[sel % n];
		return r->id[*slot];
	}
	imp_body_id id = {0, 0, 0};
	if (sel & 1) {
		int k = fz_int(r->f, r->slots > 0 ? r->slots : 1);
		id = r->id[k];
		id.generation += (uint32_t)fz_int(r->f, 3);
		if (r->body[k].live && imp_body_id_equal(id, r->id[k]))
			*slot = k;
	}
	return id;
}

/// A small non-convex shape from the bytes: in 3D a triangle mesh (any
/// corners, indices taken modulo the corners) or a height field, in 2D a
/// chain, open or closed; NULL when refused. m gets its first points (its
/// kind stays unnamed) for FZ_VERBOSE.
static imp_shape *nonconvex_shape(fz *f, int dim, fz_made *m)
{
	memset(m, 0, sizeof *m);
	m->kind = -1;
	imp_shape *s = NULL;
	m->radius = fz_radius(f);
	if (dim == 2) {
		imp_vec2 p[10];
		int n = 2 + fz_int(f, 9);
		for (int i = 0; i < n; ++i) {
			p[i] = fz_vec2(f);
			m->pts[m->n++] = (imp_vec3){p[i].x, p[i].y, 0.0};
		}
		if (imp_shape_chain(p, n, fz_u8(f) & 1, m->radius, &s) != IMP_OK)
			s = NULL;
		return s;
	}
	if (fz_u8(f) & 1) {
		imp_vec3 v[8];
		int32_t t[24];
		int nv = 3 + fz_int(f, 6), nt = 1 + fz_int(f, 8);
		for (int i = 0; i < nv; ++i)
			m->pts[m->n++] = v[i] = fz_vec3(f);
		for (int i = 0; i < 3 * nt; ++i)
			t[i] = fz_int(f, nv);
		if (imp_shape_mesh(v, nv, t, nt, m->radius, &s) != IMP_OK)
			s = NULL;
		return s;
	}
	int rows = 2 + fz_int(f, 3), cols = 2 + fz_int(f, 3);
	double h[16], dx = fz_size(f), dy = fz_size(f), base = -fz_size(f);
	for (int i = 0; i < rows * cols; ++i)
		h[i] = base + fz_size(f);
	m->h[0] = dx;
	m->h[1] = dy;
	m->h[2] = base;
	if (imp_shape_heightfield(h, rows, cols, dx, dy, base, m->radius, &s) != IMP_OK)
		s = NULL;
	return s;
}

static const imp_shape *pick_shape(run *r)
{
	uint8_t sel = fz_u8(r->f);
	if (sel == 255)
		return NULL;
	return r->shapes > 0 ? r->shape[sel % r->shapes] : NULL;
}

/// A pose near the scene: coordinates mostly within a few units.
static void pick_pose(run *r, imp_pose2 *p2, imp_pose3 *p3)
{
	*p2 = fz_pose2(r->f);
	*p3 = fz_pose3(r->f);
}

static bool world_pose_ok(run *r, imp_pose2 p2, imp_pose3 p3)
{
	if (r->dim == 2)
		return imp_pose2_is_valid(p2) && fabs(p2.p.x) <= IMP_MAX_COORDINATE && fabs(p2.p.y) <= IMP_MAX_COORDINATE;
	return imp_pose3_is_valid(p3);
}

// ---- calls that must be refused while the world is busy ----

/// Tries a call that changes the world (or a query); it must get
/// IMP_ERR_BUSY. `inside` says which callback.
static void try_busy(run *r, const char *inside)
{
	int what = fz_int(r->f, 7);
	imp_status st = IMP_OK;
	imp_body_def def = imp_default_body_def();
	def.shape = r->shapes > 0 ? r->shape[0] : NULL;
	imp_body_id out = {0, 0, 0};
	int slot;
	imp_body_id id = pick_id(r, &slot);
	switch (what) {
	case 0:
		st = imp_world_add_body(r->w, &def, &out);
		break;
	case 1:
		st = imp_world_remove_body(r->w, id);
		break;
	case 2:
		st = r->dim == 2 ? imp_body_set_pose2(r->w, id, imp_pose2_identity())
				 : imp_body_set_pose3(r->w, id, imp_pose3_identity());
		break;
	case 3:
		st = imp_world_update(r->w);
		break;
	case 4:
		st = imp_world_step(r->w, 0.5, NULL);
		break;
	case 5:
		st = imp_body_set_filter(r->w, id, imp_default_filter());
		break;
	default: {
		bool any = false;
		st = r->dim == 2 ? imp_world_overlap_any2(r->w, def.shape, imp_pose2_identity(), NULL, &any)
				 : imp_world_overlap_any3(r->w, def.shape, imp_pose3_identity(), NULL, &any);
		break;
	}
	}
	// A query answers inside a pair walk (queries write nothing of the
	// world's); every call is refused inside the step's callback.
	bool query = what >= 6, walking = inside[0] == 'f';
	if (query && walking ? st == IMP_ERR_BUSY : st != IMP_ERR_BUSY)
		fz_finding("world.busy", "call %d inside %s returned %s", what, inside, imp_status_string(st));
}

static bool pair_fn(imp_body_id a, imp_body_id b, void *user)
{
	run *r = user;
	(void)a;
	(void)b;
	if (fz_chance(r->f, 32))
		try_busy(r, "for_each_pair");
	return true;
}

static void contact_fn(const imp_contact_event *e, void *user)
{
	run *r = user;
	++r->callbacks;
	if (!isfinite(e->t) || !isfinite(e->distance) || !isfinite(e->normal.x) || !isfinite(e->normal.y) ||
	    !isfinite(e->normal.z))
		fz_finding("step.contact_finite", "contact t %g distance %g", e->t, e->distance);
	uint8_t sel = fz_u8(r->f);
	if (sel < 48) {
		try_busy(r, "step's on_contact");
	} else if (sel < 96) {
		// The Impulse loop's change, allowed here.
		imp_body_id id = fz_chance(r->f, 128) ? e->a : e->b;
		imp_vec3 v = fz_vec3(r->f);
		imp_status st = r->dim == 2 ? imp_body_set_velocity2(r->w, id, (imp_vec2){v.x, v.y}, 0.0)
					    : imp_body_set_velocity3(r->w, id, v, (imp_vec3){0.0, 0.0, 0.0});
		if (st == IMP_OK)
			r->velocity_in_callback = true;
	}
}

struct collect {
	int n;
	ow_pair p[MAX_SLOTS * MAX_SLOTS / 2];
	run *r;
};

static bool collect_fn(imp_body_id a, imp_body_id b, void *user)
{
	struct collect *c = user;
	if (c->n < (int)(sizeof c->p / sizeof c->p[0])) {
		c->p[c->n].a = (int)a.index - 1;
		c->p[c->n].b = (int)b.index - 1;
		++c->n;
	}
	return true;
}

static int cmp_pair(const void *x, const void *y)
{
	const ow_pair *a = x, *b = y;
	return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/// A body's shape as FZ_VERBOSE prints it: its constructor and input.
static void describe_body(const run *r, int slot)
{
	const ow_body *b = &r->body[slot];
	int k = 0;
	while (k < r->shapes && r->shape[k] != b->shape)
		++k;
	const fz_made *m = k < r->shapes ? &r->made[k] : NULL;
	fprintf(stderr, "body %d: type %d, %s radius %.17g h (%.17g %.17g %.17g) points", slot, (int)b->type,
		m ? fz_kind_name(m->kind) : "?", m ? m->radius : NAN, m ? m->h[0] : NAN, m ? m->h[1] : NAN,
		m ? m->h[2] : NAN);
	for (int i = 0; m && i < m->n; ++i)
		fprintf(stderr, " (%.17g %.17g %.17g)", m->pts[i].x, m->pts[i].y, m->pts[i].z);
	if (r->dim == 2)
		fprintf(stderr, "; pose (%.17g %.17g; %.17g %.17g)\n", b->pose2.p.x, b->pose2.p.y, b->pose2.q.c,
			b->pose2.q.s);
	else
		fprintf(stderr, "; pose (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g)\n", b->pose3.p.x, b->pose3.p.y,
			b->pose3.p.z, b->pose3.q.x, b->pose3.q.y, b->pose3.q.z, b->pose3.q.w);
}

/// A pair the world and brute force disagree on, for FZ_VERBOSE: both
/// bodies and the pairwise answers between them.
static void describe_pair(const run *r, ow_pair p)
{
	describe_body(r, p.a);
	describe_body(r, p.b);
	const ow_body *a = &r->body[p.a], *b = &r->body[p.b];
	if (r->dim == 2) {
		imp_closest2_result c;
		imp_status st = imp_closest2(a->shape, a->pose2, b->shape, b->pose2, NULL, &c);
		fprintf(stderr, "overlap2 %d, distance2 %.17g, closest2 %s %.17g (%s)\n",
			imp_overlap2(a->shape, a->pose2, b->shape, b->pose2, NULL),
			imp_distance2(a->shape, a->pose2, b->shape, b->pose2, NULL), imp_status_string(st), c.distance,
			imp_query_state_string(c.state));
	} else {
		imp_closest3_result c;
		imp_status st = imp_closest3(a->shape, a->pose3, b->shape, b->pose3, NULL, &c);
		fprintf(stderr, "overlap3 %d, distance3 %.17g, closest3 %s %.17g (%s)\n",
			imp_overlap3(a->shape, a->pose3, b->shape, b->pose3, NULL),
			imp_distance3(a->shape, a->pose3, b->shape, b->pose3, NULL), imp_status_string(st), c.distance,
			imp_query_state_string(c.state));
	}
}

/// The touching pairs after an update, against every pair tested.
static void check_pairs(run *r)
{
	static struct collect got;
	got.n = 0;
	if (imp_world_for_each_pair(r->w, collect_fn, &got) != IMP_OK)
		fz_finding("world.for_each_pair", "refused after an update");
	for (int k = 0; k < got.n; ++k)
		if (got.p[k].a > got.p[k].b) {
			int t = got.p[k].a;
			got.p[k].a = got.p[k].b;
			got.p[k].b = t;
		}
	qsort(got.p, (size_t)got.n, sizeof got.p[0], cmp_pair);
	ow_pair *want = NULL;
	int cap = 0;
	int n = ow_touching_pairs(r->body, r->slots, r->rule, &want, &cap);
	int i = 0, j = 0;
	while (i < got.n || j < n) {
		int c = i == got.n ? 1 : (j == n ? -1 : cmp_pair(&got.p[i], &want[j]));
		ow_pair p = c <= 0 ? got.p[i] : want[j];
		if (c != 0) {
			bool bad = p.a < 0 || p.b >= r->slots || p.a >= MAX_SLOTS || p.b >= MAX_SLOTS;
			if (!bad && getenv("FZ_VERBOSE"))
				describe_pair(r, p);
			if (bad || !ow_on_edge(&r->body[p.a], &r->body[p.b], r->rule))
				fz_finding("world.pairs", "pair (%d, %d) %s by the world, %s by brute force", p.a, p.b,
					   c < 0 ? "touching" : "not touching", c < 0 ? "not touching" : "touching");
		}
		if (c <= 0)
			++i;
		if (c >= 0)
			++j;
	}
	free(want);
}

/// An oracle's Level 3 answer must be finite (the check of fuzz_pairwise):
/// a non-finite one is reported and not used.
static bool finite_answer(double d, double a, double b)
{
	if (isfinite(d) && isfinite(a) && isfinite(b))
		return true;
	fz_finding("closest.finite", "the oracle's imp_closest: distance %g", d);
	return false;
}

/// Signed distance from the query shape to a body (Level 3), and whether it
/// answered. An answer at the iteration limit is asked again with limits up
/// to 256 times the default, as the world does (a body it skipped would
/// make the oracle's nearest too shallow: finding-nearest-deeper).
static bool body_distance(run *r, const imp_shape *s, imp_pose2 p2, imp_pose3 p3, int k, double *d, double *scale)
{
	for (int limit = 64; limit <= 16384; limit *= 4) {
		imp_query_options o = imp_default_query_options();
		o.max_iterations = limit;
		o.epa_max_iterations = limit;
		if (r->dim == 2) {
			imp_closest2_result c;
			if (imp_closest2_ex(s, p2, r->body[k].shape, r->body[k].pose2, NULL, &o, &c) != IMP_OK ||
			    c.state == IMP_STATE_DEGENERATE)
				return false;
			if (c.state == IMP_STATE_ITERATION_LIMIT)
				continue;
			*d = c.distance;
			*scale = fmax(fz_extent2(s, p2), fz_extent2(r->body[k].shape, r->body[k].pose2));
			return finite_answer(*d, c.point_a.x + c.point_a.y, c.point_b.x + c.point_b.y);
		}
		imp_closest3_result c;
		if (imp_closest3_ex(s, p3, r->body[k].shape, r->body[k].pose3, NULL, &o, &c) != IMP_OK ||
		    c.state == IMP_STATE_DEGENERATE)
			return false;
		if (c.state == IMP_STATE_ITERATION_LIMIT)
			continue;
		*d = c.distance;
		*scale = fmax(fz_extent3(s, p3), fz_extent3(r->body[k].shape, r->body[k].pose3));
		return finite_answer(*d, c.point_a.x + c.point_a.y + c.point_a.z,
				     c.point_b.x + c.point_b.y + c.point_b.z);
	}
	return false;
}

static bool seen_by(const run *r, const imp_query_filter *qf, int k)
{
	return r->body[k].live && ow_filter_pairs(qf->filter, r->body[k].filter) &&
	       !imp_body_id_equal(qf->ignore, r->id[k]);
}

/// FZ_VERBOSE: what shape s was made from (kind, sizes, radius, first points).
static void print_made(const run *r, const imp_shape *s, const char *label)
{
	for (int j = 0; j < r->shapes; ++j) {
		if (r->shape[j] != s)
			continue;
		const fz_made *m = &r->made[j];
		fprintf(stderr, "%s%s: sizes %.17g %.17g %.17g, radius %.17g, %d points", label, fz_kind_name(m->kind),
			m->h[0], m->h[1], m->h[2], m->radius, m->n);
		for (int i = 0; i < m->n && i < 2; ++i)
			fprintf(stderr, " (%.17g %.17g %.17g)", m->pts[i].x, m->pts[i].y, m->pts[i].z);
		fprintf(stderr, "\n");
		return;
	}
}

struct found {
	int n;
	int slot[MAX_SLOTS];
};

static bool found_fn(imp_body_id id, void *user)
{
	struct found *fd = user;
	if (fd->n < MAX_SLOTS)
		fd->slot[fd->n++] = (int)id.index - 1;
	return true;
}

static double distance_fn(const imp_query_result *hit, void *user)
{
	(void)hit;
	(void)user;
	return INFINITY;
}

static bool clearance_fn(imp_body_id a, const imp_query_result *pair, void *user)
{
	(void)a;
	(void)user;
	if (!isfinite(pair->distance))
		fz_finding("world.clearance_finite", "distance %g", pair->distance);
	return true;
}

/// A ray's hit: t in [0, 1], and its point on the ray at t.
static void check_ray_hit(const run *r, const imp_ray_hit *hit)
{
	if (!(hit->t >= 0.0 && hit->t <= 1.0)) {
		fz_finding("world.ray_t", "hit at t = %g", hit->t);
		return;
	}
	imp_vec3 a = r->ray_from, b = r->ray_to;
	imp_vec3 at = {a.x + hit->t * (b.x - a.x), a.y + hit->t * (b.y - a.y), a.z + hit->t * (b.z - a.z)};
	double scale = fmax(fmax(fmax(fabs(a.x), fabs(b.x)), fmax(fabs(a.y), fabs(b.y))), fmax(fabs(a.z), fabs(b.z)));
	double off = fmax(fmax(fabs(hit->point.x - at.x), fabs(hit->point.y - at.y)), fabs(hit->point.z - at.z));
	// The point is the body's witness at a contact within the time of
	// impact's tolerance, 1e-6 x the body's reach (a cylinder rounded by 110
	// put it 2.9e-4 off a ray of scale 252: finding-ray-point-tolerance); the
	// reach is at most 2 x (the box's extent + the pose's offset).
	int k = (int)hit->body.index - 1;
	if (k >= 0 && k < r->slots && r->body[k].shape != NULL) {
		const ow_body *bk = &r->body[k];
		double reach = r->dim == 2 ? fz_extent2(bk->shape, bk->pose2) + fmax(fabs(bk->pose2.p.x), fabs(bk->pose2.p.y))
					   : fz_extent3(bk->shape, bk->pose3) +
						     fmax(fmax(fabs(bk->pose3.p.x), fabs(bk->pose3.p.y)), fabs(bk->pose3.p.z));
		scale += 2.0 * reach;
	}
	if (!(off <= 1e-6 * scale + FZ_TINY))
		fz_finding("world.ray_point", "hit at t = %.17g: point (%.17g %.17g %.17g) is %.3g off the ray", hit->t,
			   hit->point.x, hit->point.y, hit->point.z, off);
}

static bool ray_fn(const imp_ray_hit *hit, void *user)
{
	check_ray_hit(user, hit);
	return true;
}

/// A cast's answer: t in [0, 1]; FREE with no body at t = 1; a HIT or
/// GAVE_UP names a body, with a finite point and normal; started_inside
/// only on a HIT at t = 0.
static void check_cast_hit(const imp_cast_hit *h)
{
	if (!(h->t >= 0.0 && h->t <= 1.0))
		fz_finding("world.cast_t", "cast at t = %g", h->t);
	if (h->state != IMP_CAST_FREE && h->state != IMP_CAST_HIT && h->state != IMP_CAST_GAVE_UP) {
		fz_finding("world.cast_state", "state %d", (int)h->state);
		return;
	}
	if (h->state == IMP_CAST_FREE) {
		if (h->body.index != 0 || h->t != 1.0 || h->started_inside)
			fz_finding("world.cast_free", "free cast with body %u at t = %g", h->body.index, h->t);
		return;
	}
	if (h->body.index == 0)
		fz_finding("world.cast_body", "a cast %s with no body", h->state == IMP_CAST_HIT ? "hit" : "gave up");
	if (!(isfinite(h->point.x) && isfinite(h->point.y) && isfinite(h->point.z)) ||
	    !(isfinite(h->normal.x) && isfinite(h->normal.y) && isfinite(h->normal.z)))
		fz_finding("world.cast_finite", "point (%g %g %g) normal (%g %g %g)", h->point.x, h->point.y, h->point.z,
			   h->normal.x, h->normal.y, h->normal.z);
	if (h->started_inside && (h->t != 0.0 || h->state != IMP_CAST_HIT))
		fz_finding("world.cast_inside", "started inside at t = %g, state %d", h->t, (int)h->state);
}

/// The casts: imp_world_cast_shape2/3, their _ex forms with options from
/// the bytes (some invalid), and imp_world_motion_free2/3 on the same
/// motion, whose answer must be the default cast's state == FREE. A failed
/// call writes nothing and leaves the state hash as it was; a NaN pose and
/// bad options are refused.
static imp_status cast(run *r, const imp_shape *s, imp_pose2 p2, imp_pose3 p3, const imp_query_filter *qf, bool valid)
{
	fz *f = r->f;
	imp_pose2 t2;
	imp_pose3 t3;
	pick_pose(r, &t2, &t3);
	bool ex = fz_chance(f, 96), nan_pose = false, opts_ok = true;
	imp_cast_options o = imp_default_cast_options(), *op = &o;
	if (ex) {
		uint8_t sel = fz_u8(f);
		if (sel & 1)
			o.tolerance = (sel & 2) ? fz_num(f) : ldexp(fz_size(f), -20);
		if (sel & 4)
			o.max_iterations = (sel & 8) ? fz_int(f, 3) - 1 : 1 + fz_int(f, 64);
		if (sel & 16)
			op = NULL;
		if (sel & 32) {
			nan_pose = true;
			if (sel & 64) {
				t2.p.y = NAN;
				t3.p.z = NAN;
			} else {
				p2.p.x = NAN;
				p3.p.x = NAN;
			}
		}
		opts_ok = op == NULL || (isfinite(o.tolerance) && o.tolerance >= 0.0 && o.tolerance <= IMP_MAX_COORDINATE &&
					 o.max_iterations >= 1);
	}
	uint64_t hash = imp_world_state_hash(r->w);
	imp_cast_hit hit, untouched;
	memset(&hit, 0xA5, sizeof hit);
	untouched = hit;
	imp_status st;
	if (ex)
		st = r->dim == 2 ? imp_world_cast_shape2_ex(r->w, s, p2, t2, qf, op, &hit)
				 : imp_world_cast_shape3_ex(r->w, s, p3, t3, qf, op, &hit);
	else
		st = r->dim == 2 ? imp_world_cast_shape2(r->w, s, p2, t2, qf, &hit)
				 : imp_world_cast_shape3(r->w, s, p3, t3, qf, &hit);
	if (st != IMP_OK) {
		if (memcmp(&hit, &untouched, sizeof hit) != 0)
			fz_finding("world.cast_wrote", "a failed cast (%s) wrote its hit", imp_status_string(st));
		if (imp_world_state_hash(r->w) != hash)
			fz_finding("world.failed_call_hash", "a failed cast (%s) changed the state hash", imp_status_string(st));
	} else {
		check_cast_hit(&hit);
	}
	if (valid && !opts_ok && st == IMP_OK)
		fz_finding("world.cast_options", "options (tolerance %g, %d iterations) accepted", o.tolerance,
			   o.max_iterations);
	// (an ignored id that names no body may be refused first)
	if (valid && opts_ok && nan_pose && st != IMP_ERR_NOT_FINITE && st != IMP_ERR_BAD_ID)
		fz_finding("world.cast_nan", "a NaN pose answered %s", imp_status_string(st));
	// The default cast, to compare motion_free with.
	imp_cast_hit dflt = hit;
	imp_status dst = st;
	if (ex && (op != NULL || nan_pose)) {
		dst = r->dim == 2 ? imp_world_cast_shape2(r->w, s, p2, t2, qf, &dflt)
				  : imp_world_cast_shape3(r->w, s, p3, t3, qf, &dflt);
		if (dst == IMP_OK)
			check_cast_hit(&dflt);
	}
	bool free_motion;
	unsigned char mark[sizeof free_motion];
	memset(&free_motion, 0x5A, sizeof free_motion);
	memcpy(mark, &free_motion, sizeof mark);
	imp_status mst = r->dim == 2 ? imp_world_motion_free2(r->w, s, p2, t2, qf, &free_motion)
				     : imp_world_motion_free3(r->w, s, p3, t3, qf, &free_motion);
	if (mst != IMP_OK) {
		if (memcmp(&free_motion, mark, sizeof mark) != 0)
			fz_finding("world.motion_free_wrote", "a failed motion_free (%s) wrote its answer",
				   imp_status_string(mst));
		if (imp_world_state_hash(r->w) != hash)
			fz_finding("world.failed_call_hash", "a failed motion_free (%s) changed the state hash",
				   imp_status_string(mst));
		if (dst == IMP_OK && mst != IMP_ERR_OUT_OF_MEMORY)
			fz_finding("world.motion_free_status", "motion_free %s where the cast answered",
				   imp_status_string(mst));
	} else if (dst == IMP_OK) {
		if (free_motion != (dflt.state == IMP_CAST_FREE) && getenv("FZ_VERBOSE")) {
			print_made(r, s, "motion of ");
			if (r->dim == 2)
				fprintf(stderr, "  from (%.17g %.17g; %.17g %.17g) to (%.17g %.17g; %.17g %.17g)\n", p2.p.x, p2.p.y,
					p2.q.c, p2.q.s, t2.p.x, t2.p.y, t2.q.c, t2.q.s);
			else
				fprintf(stderr, "  from (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g) to (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g)\n",
					p3.p.x, p3.p.y, p3.p.z, p3.q.x, p3.q.y, p3.q.z, p3.q.w, t3.p.x, t3.p.y, t3.p.z, t3.q.x,
					t3.q.y, t3.q.z, t3.q.w);
			for (int k = 0; k < r->slots; ++k) {
				if (!seen_by(r, qf ? qf : &(imp_query_filter){0}, k))
					continue;
				imp_pose3 bp = r->body[k].pose3;
				imp_pose2 bp2 = r->body[k].pose2;
				if (r->dim == 2)
					fprintf(stderr, "  slot %d at (%.17g %.17g; %.17g %.17g): ", k, bp2.p.x, bp2.p.y, bp2.q.c,
						bp2.q.s);
				else
					fprintf(stderr, "  slot %d at (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g): ", k, bp.p.x,
						bp.p.y, bp.p.z, bp.q.x, bp.q.y, bp.q.z, bp.q.w);
				print_made(r, r->body[k].shape, "");
			}
		}
		if (free_motion != (dflt.state == IMP_CAST_FREE))
			fz_finding("world.motion_free", "motion_free %d, the cast's state %d at t = %g", free_motion,
				   (int)dflt.state, dflt.t);
	} else if (dst != IMP_ERR_OUT_OF_MEMORY) {
		fz_finding("world.motion_free_status", "motion_free answered where the cast failed (%s)",
			   imp_status_string(dst));
	}
	return st != IMP_OK ? st : mst;
}

static bool same_result(const imp_query_result *a, const imp_query_result *b)
{
	return a->body.index == b->body.index && a->body.generation == b->body.generation &&
	       a->body.world == b->body.world && memcmp(&a->distance, &b->distance, sizeof a->distance) == 0 &&
	       memcmp(&a->point, &b->point, sizeof a->point) == 0 &&
	       memcmp(&a->body_point, &b->body_point, sizeof a->body_point) == 0 &&
	       memcmp(&a->normal, &b->normal, sizeof a->normal) == 0;
}

/// The batch forms beside a single query, with no byte of their own (so
/// that the corpus keeps its meaning): the pose twice, whose answers must
/// be the single one's bit for bit, with the same status; nothing written
/// on error; a negative count refused.
static void check_batch_any(run *r, const imp_shape *s, imp_pose2 p2, imp_pose3 p3, const imp_query_filter *qf,
			    imp_status st, bool any)
{
	imp_pose2 b2[2] = {p2, p2};
	imp_pose3 b3[2] = {p3, p3};
	bool out[2] = {!any, !any};
	imp_status bst = r->dim == 2 ? imp_world_overlap_any_batch2(r->w, s, b2, 2, qf, out)
				     : imp_world_overlap_any_batch3(r->w, s, b3, 2, qf, out);
	if (st == IMP_ERR_OUT_OF_MEMORY || bst == IMP_ERR_OUT_OF_MEMORY)
		return;
	if (bst != st)
		fz_finding("world.batch_any", "batch %s, single %s", imp_status_string(bst), imp_status_string(st));
	else if (st == IMP_OK && (out[0] != any || out[1] != any))
		fz_finding("world.batch_any", "batch %d %d, single %d", out[0], out[1], any);
	else if (st != IMP_OK && (out[0] == any || out[1] == any))
		fz_finding("world.batch_any", "written on error %s", imp_status_string(st));
	bool none = false;
	imp_status neg = r->dim == 2 ? imp_world_overlap_any_batch2(r->w, s, b2, -1, qf, &none)
				     : imp_world_overlap_any_batch3(r->w, s, b3, -1, qf, &none);
	if (neg == IMP_OK)
		fz_finding("world.batch_any", "a negative count accepted");
}

static void check_batch_nearest(run *r, const imp_shape *s, imp_pose2 p2, imp_pose3 p3, double max_d,
				const imp_query_filter *qf, imp_status st, const imp_query_result *q)
{
	imp_pose2 b2[2] = {p2, p2};
	imp_pose3 b3[2] = {p3, p3};
	imp_query_result out[2];
	memset(out, 0xa5, sizeof out);
	imp_query_result mark = out[0];
	imp_status bst = r->dim == 2 ? imp_world_nearest_batch2(r->w, s, b2, 2, max_d, qf, out)
				     : imp_world_nearest_batch3(r->w, s, b3, 2, max_d, qf, out);
	if (st == IMP_ERR_OUT_OF_MEMORY || bst == IMP_ERR_OUT_OF_MEMORY)
		return;
	if (bst != st)
		fz_finding("world.batch_nearest", "batch %s, single %s", imp_status_string(bst), imp_status_string(st));
	else if (st == IMP_OK && (!same_result(&out[0], q) || !same_result(&out[1], q)))
		fz_finding("world.batch_nearest", "batch %.17g %.17g, single %.17g", out[0].distance, out[1].distance,
			   q->distance);
	else if (st != IMP_OK && (memcmp(&out[0], &mark, sizeof mark) != 0 || memcmp(&out[1], &mark, sizeof mark) != 0))
		fz_finding("world.batch_nearest", "written on error %s", imp_status_string(st));
}

/// A planner query from the bytes; the overlap and nearest queries checked
/// against every body.
static imp_status query(run *r, int op)
{
	const imp_shape *s = pick_shape(r);
	imp_pose2 p2;
	imp_pose3 p3;
	pick_pose(r, &p2, &p3);
	imp_query_filter qf = imp_default_query_filter();
	if (fz_chance(r->f, 64))
		qf.filter = filter_from(r->f);
	if (fz_chance(r->f, 64)) {
		int slot;
		qf.ignore = pick_id(r, &slot);
	}
	bool valid = s && imp_shape_dim(s) == r->dim && world_pose_ok(r, p2, p3);
	imp_status st;
	switch (op) {
	case 8: {
		struct found fd = {0};
		st = r->dim == 2 ? imp_world_overlap_shape2(r->w, s, p2, &qf, found_fn, &fd)
				 : imp_world_overlap_shape3(r->w, s, p3, &qf, found_fn, &fd);
		if (st != IMP_OK || !valid)
			break;
		bool in[MAX_SLOTS] = {false};
		for (int k = 0; k < fd.n; ++k) {
			if (fd.slot[k] < 0 || fd.slot[k] >= r->slots || !seen_by(r, &qf, fd.slot[k])) {
				fz_finding("world.overlap_shape", "reported slot %d it may not see", fd.slot[k]);
				continue;
			}
			if (k > 0 && fd.slot[k] <= fd.slot[k - 1])
				fz_finding("world.overlap_shape_order", "slot %d after %d", fd.slot[k], fd.slot[k - 1]);
			in[fd.slot[k]] = true;
		}
		for (int k = 0; k < r->slots; ++k) {
			double d, scale;
			if (!seen_by(r, &qf, k) || !body_distance(r, s, p2, p3, k, &d, &scale))
				continue;
			double tol = fz_rel_tol(r->dim, scale) * scale + FZ_TINY;
			if (((d < -tol && !in[k]) || (d > tol && in[k])) && getenv("FZ_VERBOSE")) {
				print_made(r, s, "query shape ");
				fprintf(stderr, "  at (%.17g %.17g; %.17g %.17g) / (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g)\n",
					p2.p.x, p2.p.y, p2.q.c, p2.q.s, p3.p.x, p3.p.y, p3.p.z, p3.q.x, p3.q.y, p3.q.z, p3.q.w);
				fprintf(stderr, "  slot %d at (%.17g %.17g; %.17g %.17g) / (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g): ",
					k, r->body[k].pose2.p.x, r->body[k].pose2.p.y, r->body[k].pose2.q.c, r->body[k].pose2.q.s,
					r->body[k].pose3.p.x, r->body[k].pose3.p.y, r->body[k].pose3.p.z, r->body[k].pose3.q.x,
					r->body[k].pose3.q.y, r->body[k].pose3.q.z, r->body[k].pose3.q.w);
				print_made(r, r->body[k].shape, "");
			}
			if ((d < -tol && !in[k]) || (d > tol && in[k]))
				fz_finding("world.overlap_shape", "slot %d at distance %.17g %s", k, d,
					   in[k] ? "reported" : "not reported");
		}
		break;
	}
	case 9: {
		bool any = false;
		st = r->dim == 2 ? imp_world_overlap_any2(r->w, s, p2, &qf, &any)
				 : imp_world_overlap_any3(r->w, s, p3, &qf, &any);
		check_batch_any(r, s, p2, p3, &qf, st, any);
		if (st != IMP_OK || !valid)
			break;
		bool want = false, sure = true;
		int which = -1;
		double d_which = 0.0;
		for (int k = 0; k < r->slots; ++k) {
			double d, scale;
			if (!seen_by(r, &qf, k))
				continue;
			if (!body_distance(r, s, p2, p3, k, &d, &scale)) {
				sure = false;
				continue;
			}
			if (fabs(d) <= fz_rel_tol(r->dim, scale) * scale + FZ_TINY)
				sure = false;
			if (d < 0.0 && !want) {
				which = k;
				d_which = d;
			}
			want |= d < 0.0;
		}
		if (sure && any != want && getenv("FZ_VERBOSE")) {
			// Which body the world found, and whether its pose is the oracle's.
			struct found fd = {0};
			(void)(r->dim == 2 ? imp_world_overlap_shape2(r->w, s, p2, &qf, found_fn, &fd)
					   : imp_world_overlap_shape3(r->w, s, p3, &qf, found_fn, &fd));
			for (int k = 0; k < fd.n; ++k) {
				int i = fd.slot[k];
				double d = NAN, scale = 0.0;
				(void)body_distance(r, s, p2, p3, i, &d, &scale);
				imp_pose3 wp;
				imp_pose2 wp2;
				(void)imp_body_get_pose3(r->w, r->id[i], &wp);
				(void)imp_body_get_pose2(r->w, r->id[i], &wp2);
				fprintf(stderr, "world found slot %d: oracle distance %.17g, world pose (%.17g %.17g %.17g) / (%.17g %.17g), oracle (%.17g %.17g %.17g)\n",
					i, d, wp.p.x, wp.p.y, wp.p.z, wp2.p.x, wp2.p.y, r->body[i].pose3.p.x, r->body[i].pose3.p.y,
					r->body[i].pose3.p.z);
			}
		}
		if (sure && any != want)
			fz_finding("world.overlap_any", "answered %d, brute force %d (slot %d at %.17g)", any, want, which,
				   d_which);
		break;
	}
	case 10: {
		double max_d = fz_chance(r->f, 128) ? INFINITY : fz_num(r->f);
		imp_query_result q;
		st = r->dim == 2 ? imp_world_nearest2(r->w, s, p2, max_d, &qf, &q)
				 : imp_world_nearest3(r->w, s, p3, max_d, &qf, &q);
		check_batch_nearest(r, s, p2, p3, max_d, &qf, st, &q);
		if (st != IMP_OK || !valid)
			break;
		double best = INFINITY, scale_best = 0.0;
		bool unknown = false; // a body the oracle has no converged distance for
		for (int k = 0; k < r->slots; ++k) {
			double d, scale;
			if (!seen_by(r, &qf, k))
				continue;
			if (!body_distance(r, s, p2, p3, k, &d, &scale)) {
				unknown = true;
				continue;
			}
			if (d <= max_d && d < best) {
				best = d;
				scale_best = scale;
			}
			scale_best = fmax(scale_best, scale);
		}
		double got = q.body.index ? q.distance : INFINITY;
		if (getenv("FZ_VERBOSE")) {
			// Every body the oracle looks at, and what it answers.
			print_made(r, s, "query shape ");
			fprintf(stderr, "  at (%.17g %.17g; %.17g %.17g)\n", p2.p.x, p2.p.y, p2.q.c, p2.q.s);
			for (int k = 0; k < r->slots; ++k) {
				double d = NAN, scale = 0.0;
				if (!seen_by(r, &qf, k))
					continue;
				bool known = body_distance(r, s, p2, p3, k, &d, &scale);
				double plain = NAN;
				if (r->dim == 2) {
					imp_closest2_result c2;
					if (imp_closest2(s, p2, r->body[k].shape, r->body[k].pose2, NULL, &c2) == IMP_OK)
						plain = c2.distance;
				}
				fprintf(stderr, "  slot %d at (%.17g %.17g; %.17g %.17g): oracle %s %.17g (defaults %.17g), scale %g; ", k,
					r->body[k].pose2.p.x, r->body[k].pose2.p.y, r->body[k].pose2.q.c, r->body[k].pose2.q.s,
					known ? "converged" : "unknown", d, plain, scale);
				print_made(r, r->body[k].shape, "");
			}
			fprintf(stderr, "nearest: body slot %d at %.17g\n", (int)q.body.index - 1, got);
		}
		// With a body unknown (its narrow phase stops at the iteration limit
		// however high: finding-nearest-epa-stall), the world may rightly
		// answer deeper than the bodies known, never farther.
		double tol = fz_rel_tol(r->dim, scale_best) * scale_best + FZ_TINY;
		bool off = unknown ? got > best + tol : !(got == best || fabs(got - best) <= tol);
		// Nothing found is right when the best is within the tolerance of
		// the cut (beyond 1e6 in 3D the oracle's distances are only good
		// to 1e-4 of the scene: a polytope with a vertex at 1e21 was 13.0
		// from a capsule for the oracle, 54.5 by their boxes).
		if (got == INFINITY && best >= max_d - tol)
			off = false;
		if (off)
			fz_finding("world.nearest", "distance %.17g, brute force %.17g", got, best);
		break;
	}
	case 11: {
		double max_d = fz_num(r->f);
		st = r->dim == 2 ? imp_world_query_distance2(r->w, s, p2, max_d, &qf, distance_fn, r)
				 : imp_world_query_distance3(r->w, s, p3, max_d, &qf, distance_fn, r);
		break;
	}
	case 12: {
		int sa, sb;
		imp_body_id a = pick_id(r, &sa), b = pick_id(r, &sb);
		imp_query_result q;
		st = imp_world_distance(r->w, a, b, &q);
		if (st == IMP_OK && (!isfinite(q.distance) || !isfinite(q.normal.x)))
			fz_finding("world.distance_finite", "distance %g", q.distance);
		break;
	}
	case 13:
		st = imp_world_clearance(r->w, fz_size(r->f), clearance_fn, r);
		break;
	case 14:
		st = cast(r, s, p2, p3, &qf, valid);
		break;
	default: {
		imp_vec3 a = fz_vec3(r->f), b = fz_vec3(r->f);
		if (r->dim == 2)
			a.z = b.z = 0.0;
		r->ray_from = a;
		r->ray_to = b;
		imp_ray_hit hit;
		if (fz_chance(r->f, 128)) {
			st = r->dim == 2 ? imp_world_ray_cast2(r->w, (imp_vec2){a.x, a.y}, (imp_vec2){b.x, b.y}, &qf, &hit)
					 : imp_world_ray_cast3(r->w, a, b, &qf, &hit);
			if (st == IMP_OK && hit.body.index != 0)
				check_ray_hit(r, &hit);
		} else
			st = r->dim == 2 ? imp_world_ray_cast_all2(r->w, (imp_vec2){a.x, a.y}, (imp_vec2){b.x, b.y}, &qf,
								    ray_fn, r)
					 : imp_world_ray_cast_all3(r->w, a, b, &qf, ray_fn, r);
		break;
	}
	}
	return st;
}

/// One operation; returns its status.
static imp_status operate(run *r, int op)
{
	fz *f = r->f;
	int slot;
	switch (op) {
	case 0: {
		imp_body_def def = imp_default_body_def();
		def.type = (imp_body_type)fz_int(f, 4);
		def.shape = pick_shape(r);
		pick_pose(r, &def.pose2, &def.pose3);
		def.filter = filter_from(f);
		imp_body_id id = {0, 0, 0};
		imp_status st = imp_world_add_body(r->w, &def, &id);
		if (st != IMP_OK)
			return st;
		int k = (int)id.index - 1;
		if (k < 0 || k >= MAX_SLOTS) {
			fz_finding("world.add_id", "new body at slot %d", k);
			return st;
		}
		if (r->body[k].live)
			fz_finding("world.add_id", "new body in the live slot %d", k);
		r->body[k] = (ow_body){true, def.shape, def.pose2, def.pose3, def.type, def.filter};
		r->id[k] = id;
		if (k >= r->slots)
			r->slots = k + 1;
		return st;
	}
	case 1: {
		imp_body_id id = pick_id(r, &slot);
		imp_status st = imp_world_remove_body(r->w, id);
		if (st == IMP_OK && slot >= 0)
			r->body[slot].live = false;
		else if (st == IMP_OK)
			fz_finding("world.remove", "removed an id that names no body");
		return st;
	}
	case 2: {
		imp_body_id id = pick_id(r, &slot);
		imp_pose2 p2;
		imp_pose3 p3;
		pick_pose(r, &p2, &p3);
		imp_status st = r->dim == 2 ? imp_body_set_pose2(r->w, id, p2) : imp_body_set_pose3(r->w, id, p3);
		if (st == IMP_OK && slot >= 0) {
			r->body[slot].pose2 = p2;
			r->body[slot].pose3 = p3;
		}
		return st;
	}
	case 3: {
		imp_body_id id = pick_id(r, &slot);
		imp_vec3 v = fz_vec3(f);
		imp_vec3 w = fz_vec3(f);
		if (r->dim == 2)
			return imp_body_set_velocity2(r->w, id, (imp_vec2){v.x, v.y}, w.z);
		return imp_body_set_velocity3(r->w, id, v, w);
	}
	case 4: {
		imp_body_id id = pick_id(r, &slot);
		imp_pose2 p2;
		imp_pose3 p3;
		pick_pose(r, &p2, &p3);
		return r->dim == 2 ? imp_body_set_target_pose2(r->w, id, p2) : imp_body_set_target_pose3(r->w, id, p3);
	}
	case 5: {
		imp_body_id id = pick_id(r, &slot);
		imp_filter flt = filter_from(f);
		imp_status st = imp_body_set_filter(r->w, id, flt);
		if (st == IMP_OK && slot >= 0)
			r->body[slot].filter = flt;
		return st;
	}
	case 6: {
		imp_status st = imp_world_update(r->w);
		if (st == IMP_OK)
			check_pairs(r);
		return st;
	}
	case 7: {
		imp_step_opts opts = imp_default_step_opts();
		opts.on_contact = contact_fn;
		opts.user = r;
		if (fz_chance(f, 64))
			opts.max_pair_calls = 1 + fz_int(f, 64);
		if (fz_chance(f, 32))
			opts.tolerance = fz_size(f);
		double dt = fz_chance(f, 224) ? ldexp(1.0, -fz_int(f, 8)) : fz_num(f);
		r->velocity_in_callback = false;
		imp_status st = imp_world_step(r->w, dt, &opts);
		if (st == IMP_OK) {
			// The oracle takes the poses the step reached.
			for (int k = 0; k < r->slots; ++k) {
				if (!r->body[k].live)
					continue;
				imp_status sp = r->dim == 2 ? imp_body_get_pose2(r->w, r->id[k], &r->body[k].pose2)
							    : imp_body_get_pose3(r->w, r->id[k], &r->body[k].pose3);
				if (sp != IMP_OK)
					fz_finding("world.get_pose", "a live body's pose refused: %s", imp_status_string(sp));
			}
		}
		return st;
	}
	case 16:
		return imp_world_for_each_pair(r->w, pair_fn, r);
	case 17: {
		// A batch of poses: a body may come twice, any entry may be bad,
		// and sometimes the count or an array is.
		enum { BATCH = 12 };
		imp_body_id ids[BATCH];
		imp_pose2 p2[BATCH];
		imp_pose3 p3[BATCH];
		int slots[BATCH];
		int count = fz_int(f, BATCH + 1);
		for (int k = 0; k < count; ++k) {
			ids[k] = pick_id(r, &slots[k]);
			pick_pose(r, &p2[k], &p3[k]);
		}
		uint8_t sel = fz_u8(f);
		int n = sel == 255 ? -1 - fz_int(f, 3) : count;
		const imp_body_id *pi = sel == 254 ? NULL : ids;
		bool as2 = (r->dim == 2) != (sel == 253);
		imp_status st = as2 ? imp_world_set_poses2(r->w, pi, sel == 252 ? NULL : p2, n)
				    : imp_world_set_poses3(r->w, pi, sel == 252 ? NULL : p3, n);
		if (st != IMP_OK)
			return st;
		for (int k = 0; k < n; ++k) {
			if (slots[k] < 0) {
				fz_finding("world.set_poses", "a batch with an id that names no body was taken");
				continue;
			}
			r->body[slots[k]].pose2 = p2[k];
			r->body[slots[k]].pose3 = p3[k];
		}
		return st;
	}
	default:
		return query(r, op);
	}
}

/// The fuzzer's scheduler: the ranges of a task, inline, last first, with
/// worker indices 0 .. 2 (the world's results must not depend on either).
static void *reverse_enqueue(imp_task_fn *task, int item_count, int min_range, void *task_context, void *user_context)
{
	(void)user_context;
	if (item_count <= 0 || min_range < 1)
		fz_finding("world.task", "a task of %d items in ranges of %d", item_count, min_range);
	int ranges = item_count > 0 && min_range > 0 ? (item_count + min_range - 1) / min_range : 0;
	for (int k = ranges - 1; k >= 0; k--) {
		int end = (k + 1) * min_range < item_count ? (k + 1) * min_range : item_count;
		task(k * min_range, end, k % 3, task_context);
	}
	return NULL;
}

static void reverse_finish(void *user_task, void *user_context)
{
	(void)user_task;
	(void)user_context;
	fz_finding("world.task", "finish_task called for a task enqueue ran");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz f = {data, size, 0};
	fz_begin();
	static run r;
	memset(&r, 0, sizeof r);
	r.f = &f;
	r.c.fail_at = -1;
	uint8_t first = fz_u8(&f);
	r.dim = 2 + (first & 1);
	imp_world_def def = imp_default_world_def();
	def.dim = r.dim;
	def.broad_phase = (imp_broad_kind)fz_int(&f, 3);
	uint8_t sel = fz_u8(&f);
	if (sel & 1)
		def.hash_alpha = (1 + fz_int(&f, 7)) / 8.0;
	if (sel & 2) {
		// hash_beta = 1000 with a 10x size spread takes gigabytes (defect 13).
		static const double betas[] = {1.0, 2.0, 4.0, 16.0, 1000.0};
		// IMPACT_FUZZ_AVOID=13 leaves 1000 out, so that a long run goes on
		// exploring while the defect stands (docs/fuzzing.md).
		const char *avoid = getenv("IMPACT_FUZZ_AVOID");
		bool big = fz_chance(&f, 8) && !(avoid && strstr(avoid, "13"));
		def.hash_beta = betas[fz_int(&f, big ? 5 : 4)];
	}
	if (sel & 4)
		def.fat_ratio = fz_int(&f, 3) * 0.25;
	if (sel & 8)
		def.margin = fz_chance(&f, 224) ? fz_int(&f, 5) * 0.125 : fz_size(&f);
	if (sel & 16)
		def.narrow_phase = false;
	if (sel & 32)
		def.body_capacity = fz_int(&f, 70);
	if (sel & 64)
		def.pair_capacity = fz_int(&f, 300);
	// Workers (the byte's last bit, the first byte's second): the world's
	// pool of 2, or 3 workers on a scheduler that runs the ranges last
	// first; the answers the oracle checks are the same.
	if (sel & 128) {
		def.worker_count = first & 2 ? 2 : 3;
		if (!(first & 2)) {
			def.enqueue_task = reverse_enqueue;
			def.finish_task = reverse_finish;
		}
	}
	def.allocator = counting_allocator(&r.c);
	r.rule = (ow_rule){def.margin, def.narrow_phase};
	snprintf(fz_context, sizeof fz_context,
		 "%dD world, broad phase %d, beta %g, margin %g, pair_capacity %d, workers %d%s", r.dim,
		 (int)def.broad_phase, def.hash_beta, def.margin, def.pair_capacity, def.worker_count,
		 def.enqueue_task != NULL ? " (reversed)" : "");
	if (getenv("FZ_VERBOSE"))
		fprintf(stderr, "%s\n", fz_context);
	if (fz_chance(&f, 16))
		r.c.fail_at = fz_int(&f, 8);
	imp_status st = imp_world_create(&def, &r.w);
	if (st != IMP_OK) {
		if (st != IMP_ERR_OUT_OF_MEMORY && st != IMP_ERR_BAD_RADIUS)
			fz_finding("world.create", "refused: %s", imp_status_string(st));
		if (r.c.live != 0)
			fz_finding("world.leak", "%ld blocks left by a failed create", r.c.live);
		fz_context[0] = 0;
		return 0;
	}
	r.shapes = 1 + fz_int(&f, MAX_SHAPES);
	for (int k = 0; k < r.shapes; ++k) {
		r.shape[k] = fz_shape(&f, r.dim, &r.made[k]);
		// Rarely a shape of the other dimension.
		if (r.shape[k] && fz_chance(&f, 4)) {
			imp_shape_destroy(r.shape[k]);
			r.shape[k] = fz_shape(&f, 5 - r.dim, &r.made[k]);
		}
		// Sometimes a non-convex one: a mesh or height field, a chain.
		if (fz_chance(&f, 40)) {
			imp_shape_destroy(r.shape[k]);
			r.shape[k] = nonconvex_shape(&f, r.dim, &r.made[k]);
		}
	}
	for (int n = 0; n < MAX_OPS && !fz_done(&f); ++n) {
		int op = fz_int(&f, N_OPS);
		r.c.fail_at = fz_chance(&f, 48) ? r.c.calls + fz_int(&f, 24) : -1;
		uint64_t before = imp_world_state_hash(r.w);
		int live = 0;
		for (int k = 0; k < r.slots; ++k)
			live += r.body[k].live;
		if (op == 0 && live >= MAX_SLOTS - 8)
			continue;
		st = operate(&r, op);
		if (getenv("FZ_VERBOSE"))
			fprintf(stderr, "op %d: %s: %s\n", n, op_names[op], imp_status_string(st));
		r.c.fail_at = -1;
		if (st != IMP_OK && !(op == 7 && st == IMP_ERR_OUT_OF_MEMORY && r.velocity_in_callback)) {
			uint64_t after = imp_world_state_hash(r.w);
			if (after != before)
				fz_finding(op == 6 ? "world.failed_call_hash:update"
						   : (op == 7 ? "world.failed_call_hash:step" : "world.failed_call_hash"),
					   "%s failed (%s) and changed the state hash", op_names[op], imp_status_string(st));
		}
	}
	// A last update with memory: the world still works.
	if (imp_world_update(r.w) == IMP_OK)
		check_pairs(&r);
	else
		fz_finding("world.works_after", "the last update failed with memory");
	imp_world_destroy(r.w);
	for (int k = 0; k < r.shapes; ++k)
		imp_shape_destroy(r.shape[k]);
	if (r.c.live != 0)
		fz_finding("world.leak", "%ld blocks left after imp_world_destroy", r.c.live);
	if (r.c.size_mismatch)
		fz_finding("world.free_size", "a block freed with another size than it was made with");
	fz_context[0] = 0;
	return 0;
}
