// SPDX-License-Identifier: MIT
// The rules of the time-of-impact step's Impulse loop (imp_world_step), each
// on the smallest scene that breaks it, in 2D and 3D, against analytic
// answers. Each case is a defect the step once had:
// - a pair within the tolerance that a velocity change in the callback turns
//   back into an approach is reported again (a disc between a wall and a
//   second disc: the three bounce as sequential impulses say);
// - a time bound kept from a step with a smaller tolerance does not hide a
//   contact of a step with a larger one (against a fresh world);
// - a point body (one vertex, radius 0) passing within the tolerance of a
//   static body is reported;
// - a target pose that a tiny dt turns into a velocity beyond the
//   coordinate range is refused, the world unchanged;
// - a box turning on a floor: its far side's approach is reported, and a
//   callback that stops it keeps it within the tolerance;
// - simultaneous contacts go round in sweeps, in the order of the bodies'
//   slots: a resting column under gravity settles in a bounded number of
//   contacts, its first sweep bottom to top;
// - the order of equal-time contacts is the same with every broad phase;
// - inside the callback, a body's pose and box are the ones at the
//   contact's time;
// - a step's contact and the update's touching pair: a disc resting within
//   the tolerance is a contact, and a touching pair only within the
//   world's margin.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#define V2(x, y) imp_vec2_make((x), (y))
#define V3(x, y, z) imp_vec3_make((x), (y), (z))
#define MAX_BODIES 64

// ---------------------------------------------------------------------------
// A small simulator: bodies of either dimension through vec3 (z = 0 in 2D),
// a mass each, and the Impulse loop's callback: sequential impulses along
// the contact normal, linear only, restitution e.

typedef struct sim {
	imp_world *w;
	int dim;
	double restitution;
	double inv_mass[MAX_BODIES]; ///< by id index; 0: static
	int events, approaches;
	bool stop_on_approach;       ///< the callback stops both bodies instead
	bool passive;                ///< the callback only counts
	void (*inspect)(struct sim *s, const imp_contact_event *e);
	void *ctx;
} sim;

static void sim_make(sim *s, int dim, imp_broad_kind kind)
{
	memset(s, 0, sizeof *s);
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	assert_int_equal(imp_world_create(&def, &s->w), IMP_OK);
	s->dim = dim;
}

/// A body at position p (identity rotation) with mass m (0: static).
static imp_body_id sim_add(sim *s, const imp_shape *shape, imp_vec3 p, double m)
{
	imp_body_def d = imp_default_body_def();
	d.type = m > 0.0 ? IMP_BODY_DYNAMIC : IMP_BODY_STATIC;
	d.shape = shape;
	if (s->dim == 2)
		d.pose2 = imp_pose2_make(p.x, p.y, 0.0);
	else
		d.pose3 = imp_pose3_make(p, imp_quat_identity());
	imp_body_id id;
	assert_int_equal(imp_world_add_body(s->w, &d, &id), IMP_OK);
	assert_true(id.index < MAX_BODIES);
	s->inv_mass[id.index] = m > 0.0 ? 1.0 / m : 0.0;
	return id;
}

static imp_vec3 sim_velocity(const sim *s, imp_body_id id)
{
	if (s->inv_mass[id.index] == 0.0)
		return V3(0, 0, 0);
	if (s->dim == 2) {
		imp_vec2 v;
		assert_int_equal(imp_body_get_velocity2(s->w, id, &v, NULL), IMP_OK);
		return V3(v.x, v.y, 0.0);
	}
	imp_vec3 v;
	assert_int_equal(imp_body_get_velocity3(s->w, id, &v, NULL), IMP_OK);
	return v;
}

static void sim_set_velocity(sim *s, imp_body_id id, imp_vec3 v, imp_vec3 w)
{
	if (s->dim == 2)
		assert_int_equal(imp_body_set_velocity2(s->w, id, V2(v.x, v.y), w.z), IMP_OK);
	else
		assert_int_equal(imp_body_set_velocity3(s->w, id, v, w), IMP_OK);
}

static imp_vec3 sim_position(const sim *s, imp_body_id id)
{
	if (s->dim == 2) {
		imp_pose2 p;
		assert_int_equal(imp_body_get_pose2(s->w, id, &p), IMP_OK);
		return V3(p.p.x, p.p.y, 0.0);
	}
	imp_pose3 p;
	assert_int_equal(imp_body_get_pose3(s->w, id, &p), IMP_OK);
	return p.p;
}

static void sim_on_contact(const imp_contact_event *e, void *user)
{
	sim *s = user;
	s->events++;
	if (s->inspect)
		s->inspect(s, e);
	if (!(e->normal_speed < 0.0))
		return;
	s->approaches++;
	if (s->passive)
		return;
	double ia = s->inv_mass[e->a.index], ib = s->inv_mass[e->b.index];
	if (s->stop_on_approach) {
		if (ia > 0.0)
			sim_set_velocity(s, e->a, V3(0, 0, 0), V3(0, 0, 0));
		if (ib > 0.0)
			sim_set_velocity(s, e->b, V3(0, 0, 0), V3(0, 0, 0));
		return;
	}
	double j = -(1.0 + s->restitution) * e->normal_speed / (ia + ib);
	if (ia > 0.0)
		sim_set_velocity(s, e->a, imp_vec3_sub(sim_velocity(s, e->a), imp_vec3_scale(j * ia, e->normal)),
				 V3(0, 0, 0));
	if (ib > 0.0)
		sim_set_velocity(s, e->b, imp_vec3_add(sim_velocity(s, e->b), imp_vec3_scale(j * ib, e->normal)),
				 V3(0, 0, 0));
}

static imp_step_opts sim_opts(sim *s)
{
	imp_step_opts o = imp_default_step_opts();
	o.on_contact = sim_on_contact;
	o.user = s;
	return o;
}

static imp_shape *ball(int dim, double r)
{
	imp_shape *s = NULL;
	if (dim == 2)
		assert_int_equal(imp_shape_circle(V2(0, 0), r, &s), IMP_OK);
	else
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), r, &s), IMP_OK);
	return s;
}

static imp_shape *block(int dim, double hx, double hy, double hz)
{
	imp_shape *s = NULL;
	if (dim == 2)
		assert_int_equal(imp_shape_box2(hx, hy, 0.0, &s), IMP_OK);
	else
		assert_int_equal(imp_shape_box3(hx, hy, hz, 0.0, &s), IMP_OK);
	return s;
}

/// The signed distance of two bodies now.
static double body_distance(const sim *s, imp_body_id a, imp_body_id b)
{
	const imp_shape *sa, *sb;
	assert_int_equal(imp_body_get_shape(s->w, a, &sa), IMP_OK);
	assert_int_equal(imp_body_get_shape(s->w, b, &sb), IMP_OK);
	if (s->dim == 2) {
		imp_pose2 pa, pb;
		imp_body_get_pose2(s->w, a, &pa);
		imp_body_get_pose2(s->w, b, &pb);
		imp_closest2_result r;
		assert_int_equal(imp_closest2(sa, pa, sb, pb, NULL, &r), IMP_OK);
		return r.distance;
	}
	imp_pose3 pa, pb;
	imp_body_get_pose3(s->w, a, &pa);
	imp_body_get_pose3(s->w, b, &pb);
	imp_closest3_result r;
	assert_int_equal(imp_closest3(sa, pa, sb, pb, NULL, &r), IMP_OK);
	return r.distance;
}

// ---------------------------------------------------------------------------
// 1. A wall, disc A touching it, disc B touching A, both moving at -1 into
// the wall, restitution 1, equal masses, dt = 1. Sequential impulses: A off
// the wall (A +1), A and B swap (A -1, B +1), A off the wall again (A +1):
// both leave at +1 and end at 1.5 and 2.5. A step that does not report the
// A-B pair again after the wall turned A ends with them swapped through
// each other.

static void turned_back(int dim)
{
	sim s;
	sim_make(&s, dim, IMP_BROAD_HASH);
	imp_shape *wall = block(dim, 0.5, 5.0, 5.0), *disc = ball(dim, 0.5);
	imp_body_id w = sim_add(&s, wall, V3(-0.5, 0, 0), 0.0);
	imp_body_id a = sim_add(&s, disc, V3(0.5, 0, 0), 1.0);
	imp_body_id b = sim_add(&s, disc, V3(1.5, 0, 0), 1.0);
	s.restitution = 1.0;
	sim_set_velocity(&s, a, V3(-1, 0, 0), V3(0, 0, 0));
	sim_set_velocity(&s, b, V3(-1, 0, 0), V3(0, 0, 0));
	imp_step_opts o = sim_opts(&s);
	assert_int_equal(imp_world_step(s.w, 1.0, &o), IMP_OK);
	imp_vec3 pa = sim_position(&s, a), pb = sim_position(&s, b);
	imp_vec3 va = sim_velocity(&s, a), vb = sim_velocity(&s, b);
	print_message("%dD turned back: A at %.17g (v %g), B at %.17g (v %g), %d events\n", dim, pa.x, va.x, pb.x, vb.x,
		      s.events);
	assert_true(fabs(pa.x - 1.5) <= 1e-9 && fabs(pb.x - 2.5) <= 1e-9);
	assert_true(fabs(va.x - 1.0) <= 1e-12 && fabs(vb.x - 1.0) <= 1e-12);
	assert_true(body_distance(&s, a, b) >= -1e-6 && body_distance(&s, w, a) >= -1e-6);
	assert_int_equal(imp_world_get_step_stats(s.w).state, IMP_STEP_COMPLETE);
	imp_world_destroy(s.w);
	imp_shape_destroy(wall);
	imp_shape_destroy(disc);
}

static void test_turned_back(void **state)
{
	(void)state;
	turned_back(2);
	turned_back(3);
}

// ---------------------------------------------------------------------------
// 2. A disc passing 0.025 from a static one, diagonally (so that the boxes
// overlap before the discs come near): a first step with tolerance 0.01 up
// to just before the closest approach (the balls never come within it: the
// pair's bound is "never", kept), a second with tolerance 0.06 over the
// closest approach: reported, as by a fresh world in the same state.

static int passing_contacts(int dim, bool fresh)
{
	sim s;
	sim_make(&s, dim, IMP_BROAD_SWEEP);
	imp_shape *disc = ball(dim, 0.5);
	sim_add(&s, disc, V3(0, 0, 0), 0.0);
	const double h = sqrt(0.5), t1 = 4.8; // closest at t = 5, centres 1.025 apart
	double back = fresh ? 5.0 - t1 : 5.0;
	imp_body_id m = sim_add(&s, disc, V3(1.025 * h - back * h, 1.025 * h + back * h, 0), 1.0);
	sim_set_velocity(&s, m, V3(h, -h, 0), V3(0, 0, 0));
	imp_step_opts o = imp_default_step_opts();
	if (!fresh) {
		o.tolerance = 0.01;
		assert_int_equal(imp_world_step(s.w, t1, &o), IMP_OK);
		assert_int_equal(imp_world_get_contacts(s.w).count, 0);
	}
	o.tolerance = 0.06;
	assert_int_equal(imp_world_step(s.w, 1.0, &o), IMP_OK);
	imp_contact_events c = imp_world_get_contacts(s.w);
	for (int i = 0; i < c.count; i++)
		assert_true(c.items[i].distance <= 0.06);
	int n = c.count;
	imp_world_destroy(s.w);
	imp_shape_destroy(disc);
	return n;
}

static void test_tolerance_raised(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		int kept = passing_contacts(dim, false), fresh = passing_contacts(dim, true);
		print_message("%dD tolerance raised: %d contacts, a fresh world %d\n", dim, kept, fresh);
		assert_int_equal(fresh, 1);
		assert_int_equal(kept, 1);
	}
}

// ---------------------------------------------------------------------------
// 3. A point body passing above a static box, 0.3 of the pair's tolerance
// above its top face: reported (the default tolerance: 1e-6 x the box's
// bound diameter, the point having none).

static void point_passing(int dim)
{
	sim s;
	sim_make(&s, dim, IMP_BROAD_HASH);
	imp_shape *box = block(dim, 1.0, 1.0, 1.0), *point = NULL;
	if (dim == 2)
		assert_int_equal(imp_shape_polygon((imp_vec2[]){{0, 0}}, 1, 0.0, &point), IMP_OK);
	else
		assert_int_equal(imp_shape_polytope((imp_vec3[]){{0, 0, 0}}, 1, 0.0, &point), IMP_OK);
	double reach = dim == 2 ? sqrt(2.0) : sqrt(3.0);
	double tol = 2e-6 * reach, gap = 0.3 * tol;
	sim_add(&s, box, V3(0, 0, 0), 0.0);
	imp_body_id p = sim_add(&s, point, V3(-3, 1.0 + gap, 0), 1.0);
	sim_set_velocity(&s, p, V3(6, 0, 0), V3(0, 0, 0));
	imp_step_opts o = imp_default_step_opts();
	assert_int_equal(imp_world_step(s.w, 1.0, &o), IMP_OK);
	imp_contact_events c = imp_world_get_contacts(s.w);
	print_message("%dD point passing %g above a box (tolerance %g): %d contacts\n", dim, gap, tol, c.count);
	assert_int_equal(c.count, 1);
	assert_true(c.items[0].distance <= tol && c.items[0].distance >= gap - 1e-15);
	imp_world_destroy(s.w);
	imp_shape_destroy(box);
	imp_shape_destroy(point);
}

static void test_point_body(void **state)
{
	(void)state;
	point_passing(2);
	point_passing(3);
}

// ---------------------------------------------------------------------------
// 4. A kinematic body given a target 6 away and a step of 1e-160: the
// velocity that reaches it is beyond the coordinate range, as a velocity set
// would be: refused, the world as it was; with a step of 1, it hits the
// static body in its path.

static void tiny_step_target(int dim)
{
	sim s;
	sim_make(&s, dim, IMP_BROAD_HASH);
	imp_shape *box = block(dim, 0.5, 0.5, 0.5);
	sim_add(&s, box, V3(3, 0, 0), 0.0);
	imp_body_def d = imp_default_body_def();
	d.type = IMP_BODY_KINEMATIC;
	d.shape = box;
	d.pose2 = imp_pose2_make(0, 0, 0);
	d.pose3 = imp_pose3_make(V3(0, 0, 0), imp_quat_identity());
	imp_body_id k;
	assert_int_equal(imp_world_add_body(s.w, &d, &k), IMP_OK);
	if (dim == 2)
		assert_int_equal(imp_body_set_target_pose2(s.w, k, imp_pose2_make(6, 0, 0)), IMP_OK);
	else
		assert_int_equal(imp_body_set_target_pose3(s.w, k, imp_pose3_make(V3(6, 0, 0), imp_quat_identity())),
				 IMP_OK);
	uint64_t before = imp_world_state_hash(s.w);
	imp_step_opts o = imp_default_step_opts();
	assert_int_equal(imp_world_step(s.w, 1e-160, &o), IMP_ERR_OUT_OF_RANGE);
	assert_true(imp_world_state_hash(s.w) == before);
	assert_true(sim_position(&s, k).x == 0.0);
	assert_int_equal(imp_world_step(s.w, 1.0, &o), IMP_OK);
	assert_int_equal(imp_world_get_contacts(s.w).count, 1);
	assert_true(sim_position(&s, k).x == 6.0);
	imp_world_destroy(s.w);
	imp_shape_destroy(box);
}

static void test_tiny_step_target(void **state)
{
	(void)state;
	tiny_step_target(2);
	tiny_step_target(3);
}

// ---------------------------------------------------------------------------
// 5. A box resting on a floor, turning at 3 rad/s about an axis along the
// floor: one edge goes down at once (0.5 sin(3 dt) over the step, 0.025).
// The step reports the approach; a callback that stops the box on it keeps
// it within the tolerance, and a callback that leaves it turning still sees
// the approach (once).

static void turning_box(int dim, bool respond)
{
	sim s;
	sim_make(&s, dim, IMP_BROAD_SWEEP);
	imp_shape *floor = block(dim, 5.0, 0.5, 5.0), *box = block(dim, 0.5, 0.5, 0.5);
	imp_body_id f = sim_add(&s, floor, V3(0, -0.5, 0), 0.0);
	imp_body_id b = sim_add(&s, box, V3(0, 0.5, 0), 1.0);
	s.stop_on_approach = respond;
	s.passive = !respond;
	// About z: in 2D the only turn; in 3D one along the floor (y is up).
	sim_set_velocity(&s, b, V3(0, 0, 0), V3(0, 0, 3.0));
	imp_step_opts o = sim_opts(&s);
	const double dt = 1.0 / 60.0;
	assert_int_equal(imp_world_step(s.w, dt, &o), IMP_OK);
	imp_contact_events c = imp_world_get_contacts(s.w);
	int approaching = 0;
	for (int i = 0; i < c.count; i++)
		approaching += c.items[i].normal_speed < 0.0;
	double d = body_distance(&s, f, b), tol = 2e-6 * sqrt(dim == 2 ? 0.5 : 0.75);
	print_message("%dD turning box%s: %d contacts (%d approaching), ends %.3g from the floor (tolerance %.3g)\n", dim,
		      respond ? " stopped" : "", c.count, approaching, d, tol);
	assert_true(approaching >= 1);
	if (respond)
		assert_true(d >= -tol);
	else
		assert_int_equal(approaching, 1);
	assert_int_equal(imp_world_get_step_stats(s.w).state, IMP_STEP_COMPLETE);
	imp_world_destroy(s.w);
	imp_shape_destroy(floor);
	imp_shape_destroy(box);
}

static void test_turning_box(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		turning_box(dim, true);
		turning_box(dim, false);
	}
}

// ---------------------------------------------------------------------------
// 6. A column of 10 unit boxes resting on a static floor, gravity's
// velocity for one frame (-9.81 / 60) given to each, restitution 0, no cap
// to speak of: the contacts go round in sweeps, bottom to top, until no
// pair approaches fast enough to overlap by more than the tolerance at the
// step's end (about 2,300 contacts, 240 sweeps: Gauss-Seidel's rate on a
// column). Depth first, the two lowest contacts took turns: 54,413.

static void column(int dim, imp_broad_kind kind, int *events, int *most_calls)
{
	sim s;
	sim_make(&s, dim, kind);
	imp_shape *floor = block(dim, 5.0, 0.5, 5.0), *box = block(dim, 0.5, 0.5, 0.5);
	imp_body_id fl = sim_add(&s, floor, V3(0, -0.5, 0), 0.0);
	imp_body_id ids[10];
	for (int i = 0; i < 10; i++) {
		ids[i] = sim_add(&s, box, V3(0, 0.5 + i, 0), 1.0);
		sim_set_velocity(&s, ids[i], V3(0, -9.81 / 60.0, 0), V3(0, 0, 0));
	}
	imp_step_opts o = sim_opts(&s);
	o.max_pair_calls = 1 << 30;
	assert_int_equal(imp_world_step(s.w, 1.0 / 60.0, &o), IMP_OK);
	imp_contact_events c = imp_world_get_contacts(s.w);
	imp_step_stats st = imp_world_get_step_stats(s.w);
	// The first sweep: the pairs (floor, 1), (1, 2), ... in slot order.
	assert_true(c.count >= 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(c.items[i].a.index, i == 0 ? fl.index : ids[i - 1].index);
		assert_int_equal(c.items[i].b.index, ids[i].index);
	}
	// Nothing left approaching fast enough to sink beyond the tolerance by
	// the step's end (distance + tolerance <= 2 tolerances in a step).
	for (int i = 0; i < 10; i++) {
		double rel = sim_velocity(&s, ids[i]).y - (i > 0 ? sim_velocity(&s, ids[i - 1]).y : 0.0);
		double tol = 2e-6 * sqrt(dim == 2 ? 0.5 : 0.75);
		assert_true(rel >= -2.0 * tol * 60.0 * (1.0 + 1e-9));
	}
	*events = c.count;
	*most_calls = st.most_pair_calls;
	imp_world_destroy(s.w);
	imp_shape_destroy(floor);
	imp_shape_destroy(box);
}

static void test_column_sweeps(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		int events, calls;
		column(dim, IMP_BROAD_HASH, &events, &calls);
		print_message("%dD column of 10: %d contacts in one frame, at most %d looks a pair\n", dim, events, calls);
		assert_true(events <= 5000);
		assert_true(calls <= 500);
	}
}

// ---------------------------------------------------------------------------
// 7. Four boxes in a row, touching at the step's start, given velocities
// towards each other: the contacts come in the same order, at the same
// times, with the hash, the sort-and-sweep and the naive broad phase.

typedef struct logged {
	int n;
	uint32_t a[256], b[256];
	double t[256];
} logged;

static void log_contact(sim *s, const imp_contact_event *e)
{
	logged *l = s->ctx;
	if (l->n < 256) {
		l->a[l->n] = e->a.index;
		l->b[l->n] = e->b.index;
		l->t[l->n] = e->t;
		l->n++;
	}
}

static void four_boxes(int dim, imp_broad_kind kind, logged *l)
{
	sim s;
	sim_make(&s, dim, kind);
	imp_shape *box = block(dim, 0.5, 0.5, 0.5);
	s.restitution = 0.5;
	s.inspect = log_contact;
	s.ctx = l;
	memset(l, 0, sizeof *l);
	// Added out of order, so that slots and positions differ.
	const double x[4] = {2, 0, 3, 1}, v[4] = {-1, 2, -3, 0.5};
	imp_body_id ids[4];
	for (int i = 0; i < 4; i++) {
		ids[i] = sim_add(&s, box, V3(x[i], 0, 0), 1.0 + i);
		sim_set_velocity(&s, ids[i], V3(v[i], 0, 0), V3(0, 0, 0));
	}
	assert_int_equal(imp_world_update(s.w), IMP_OK); // the broad phases' pairs made in their own orders
	imp_step_opts o = sim_opts(&s);
	assert_int_equal(imp_world_step(s.w, 0.25, &o), IMP_OK);
	assert_true(l->n >= 3 && l->n < 256);
	imp_world_destroy(s.w);
	imp_shape_destroy(box);
}

static void test_order_of_equal_times(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		logged ref, got;
		four_boxes(dim, IMP_BROAD_HASH, &ref);
		const imp_broad_kind others[] = {IMP_BROAD_SWEEP, IMP_BROAD_NAIVE};
		for (int k = 0; k < 2; k++) {
			four_boxes(dim, others[k], &got);
			assert_int_equal(got.n, ref.n);
			for (int i = 0; i < ref.n; i++) {
				if (got.a[i] != ref.a[i] || got.b[i] != ref.b[i] || got.t[i] != ref.t[i])
					fail_msg("%dD contact %d: (%u %u) at %g with broad phase %d, (%u %u) at %g with the hash",
						 dim, i, got.a[i], got.b[i], got.t[i], (int)others[k], ref.a[i], ref.b[i],
						 ref.t[i]);
			}
		}
		print_message("%dD four boxes: %d contacts, the same order with every broad phase\n", dim, ref.n);
	}
}

// ---------------------------------------------------------------------------
// 8. Inside the callback a body's pose and box are those at the contact's
// time: a ball moving at +2 from x = 0 meets a wall whose face is at 1.5
// (contact at t = 0.5, centre at 1.0); after the step, its pose at the
// step's end.

typedef struct seen {
	imp_vec3 pos;
	double box_hi;
	int n;
} seen;

static void look_at_pose(sim *s, const imp_contact_event *e)
{
	seen *v = s->ctx;
	imp_body_id id = s->inv_mass[e->a.index] > 0.0 ? e->a : e->b;
	v->pos = sim_position(s, id);
	if (s->dim == 2) {
		imp_aabb2 b;
		assert_int_equal(imp_body_get_aabb2(s->w, id, &b), IMP_OK);
		v->box_hi = b.hi.x;
	} else {
		imp_aabb3 b;
		assert_int_equal(imp_body_get_aabb3(s->w, id, &b), IMP_OK);
		v->box_hi = b.hi.x;
	}
	v->n++;
}

static void test_pose_in_callback(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		sim s;
		sim_make(&s, dim, IMP_BROAD_HASH);
		imp_shape *wall = block(dim, 0.5, 5.0, 5.0), *disc = ball(dim, 0.5);
		sim_add(&s, wall, V3(2.0, 0, 0), 0.0);
		imp_body_id b = sim_add(&s, disc, V3(0, 0, 0), 1.0);
		sim_set_velocity(&s, b, V3(2, 0, 0), V3(0, 0, 0));
		seen v = {0};
		s.inspect = look_at_pose;
		s.ctx = &v;
		s.restitution = 1.0;
		imp_step_opts o = sim_opts(&s);
		assert_int_equal(imp_world_step(s.w, 1.0, &o), IMP_OK);
		assert_int_equal(v.n, 1);
		print_message("%dD pose in the callback: x %.17g, box to %.17g\n", dim, v.pos.x, v.box_hi);
		assert_true(fabs(v.pos.x - 1.0) <= 1e-6 && fabs(v.box_hi - 1.5) <= 1e-6);
		assert_true(fabs(sim_position(&s, b).x - 0.0) <= 2e-6); // back at +-2 after the bounce
		imp_world_destroy(s.w);
		imp_shape_destroy(wall);
		imp_shape_destroy(disc);
	}
}

// ---------------------------------------------------------------------------
// 9. Contact and touching (docs/toi.md): a disc 4e-7 above a floor is a
// contact of the step (its tolerance is 1e-6 x its diameter, 1e-6) but not
// a touching pair of the update in a world without a margin; with a margin
// no smaller than the tolerance it is both.

/// The pairs that begin touching at the next update.
static int touching_count(imp_world *w)
{
	assert_int_equal(imp_world_update(w), IMP_OK);
	return imp_world_get_events(w).begin_count;
}

static void test_contact_and_touching(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		for (int with_margin = 0; with_margin <= 1; with_margin++) {
			sim s;
			memset(&s, 0, sizeof s);
			imp_world_def def = imp_default_world_def();
			def.dim = dim;
			def.margin = with_margin ? 1e-6 : 0.0;
			assert_int_equal(imp_world_create(&def, &s.w), IMP_OK);
			s.dim = dim;
			imp_shape *floor = block(dim, 5.0, 0.5, 5.0), *disc = ball(dim, 0.5);
			sim_add(&s, floor, V3(0, -0.5, 0), 0.0);
			imp_body_id d = sim_add(&s, disc, V3(0, 0.5 + 4e-7, 0), 1.0);
			sim_set_velocity(&s, d, V3(1e-3, 0, 0), V3(0, 0, 0)); // moving along the floor
			imp_step_opts o = imp_default_step_opts();
			assert_int_equal(imp_world_step(s.w, 1.0 / 60.0, &o), IMP_OK);
			int contacts = imp_world_get_contacts(s.w).count;
			int touching = touching_count(s.w);
			print_message("%dD disc 4e-7 above a floor, margin %g: %d contacts, %d touching\n", dim,
				      def.margin, contacts, touching);
			assert_int_equal(contacts, 1);
			assert_int_equal(touching, with_margin);
			imp_world_destroy(s.w);
			imp_shape_destroy(floor);
			imp_shape_destroy(disc);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turned_back),
		cmocka_unit_test(test_tolerance_raised),
		cmocka_unit_test(test_point_body),
		cmocka_unit_test(test_tiny_step_target),
		cmocka_unit_test(test_turning_box),
		cmocka_unit_test(test_column_sweeps),
		cmocka_unit_test(test_order_of_equal_times),
		cmocka_unit_test(test_pose_in_callback),
		cmocka_unit_test(test_contact_and_touching),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
