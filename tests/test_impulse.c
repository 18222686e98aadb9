// SPDX-License-Identifier: MIT
// The world's Impulse loop as a simulator drives it, written against the
// public headers only. Between steps the simulator adds gravity to the
// velocities (imp_body_get_velocity, + g dt, imp_body_set_velocity); then
// imp_world_step(w, dt, &opts), with the default options and one contact
// callback, the physics, shared by every scene (physics_on_contact:
// sequential impulses, linear only, per-body masses, static bodies of
// infinite mass, a small push-out of overlapping contacts, restitution only
// above an approach speed and warm starting from the last frame's impulse,
// as a simulator's solver has them). What is checked:
// - Newton's cradle (2D discs, 3D spheres; hash and sweep): five equal
//   balls touching in a row, a sixth striking them at 1 with restitution 1,
//   one step of 2: contacts in nondecreasing time, no pair overlapping
//   beyond its contact tolerance, momentum kept to 1e-12, and only the last
//   ball leaving, at 1 (to 1e-9);
// - a stack of ten boxes on a static floor under gravity, restitution 0,
//   600 frames of 1/60 (2D and 3D; hash and sweep): after every step no
//   pair overlapping beyond its tolerance and no capped step; at the end
//   the stack standing in order where it started (0.01 across, 0.05 up);
// - piles: 500 discs, boxes and polygons (2D), 200 spheres, boxes and
//   capsules (3D), dropped with small random velocities into a closed
//   static container, restitution 0.5 and 1, 600 frames of 1/60: after
//   every step no body outside the container, no pair overlapping beyond
//   its tolerance (brute force over every pair, walls included: box test,
//   then the signed distance), no capped step; the most narrow-phase calls
//   one pair took is printed;
// - determinism: the 2D pile run twice (120 frames) ends with the same
//   state hash and the same poses, bit for bit.
// Each scene runs to its end and prints what went wrong (first and worst
// overlap, bodies outside, capped steps) before the test fails. Seeds are
// fixed.
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

#include "oracle_world.h"

#define V2(x, y) imp_vec2_make((x), (y))
#define V3(x, y, z) imp_vec3_make((x), (y), (z))
#define TWO_PI 6.283185307179586

/// Gravity, along -y in 2D and -z in 3D.
#define GRAVITY 9.81
/// The simulator's frame.
#define FRAME_DT (1.0 / 60.0)
/// Frames of the stack and the piles: ten seconds.
#define FRAMES 600
/// The push-out of an overlapping contact (Baumgarte stabilisation): the
/// contact is given a separating normal speed of PUSH_BETA x depth / dt,
/// which removes that fraction of the overlap over a step.
#define PUSH_BETA 0.2
/// Below this approach speed a contact does not bounce (Box2D's velocity
/// threshold): resting contacts take no restitution.
#define RESTITUTION_SPEED 0.5
/// A contact resting since the last frame starts the frame from this much
/// of the impulse it took then (warm starting, as Box2D's solver does): the
/// ten-box stack takes about 1,400 contacts a frame instead of 2,300 cold.
/// Slightly under one: the callback cannot take back an impulse (a pair is
/// reported again only when it approaches), so a full one (about 22
/// contacts a frame) overshoots and makes the stack hop.
#define WARM_START 0.98
/// The overlap left alone by the push-out: none.
#define PUSH_SLOP 0.0

// ---------------------------------------------------------------------------
// Shapes with their bound radius, and the contact tolerance of a pair.

/// A shape made here, with its bound radius worked out from the numbers it
/// was made from (not asked of the library).
typedef struct sized_shape {
	imp_shape *shape;
	double bound;     ///< the largest distance of a point of the shape from the body's origin
	const char *kind; ///< for messages
} sized_shape;

static sized_shape disc(double r)
{
	sized_shape s = {NULL, r, "disc"};
	assert_int_equal(imp_shape_circle(V2(0, 0), r, &s.shape), IMP_OK);
	return s;
}

static sized_shape box2(double hx, double hy, double radius)
{
	sized_shape s = {NULL, sqrt(hx * hx + hy * hy) + radius, "box"};
	assert_int_equal(imp_shape_box2(hx, hy, radius, &s.shape), IMP_OK);
	return s;
}

static sized_shape polygon(const imp_vec2 *p, int n, double radius)
{
	double far = 0.0;
	for (int i = 0; i < n; ++i)
		far = fmax(far, imp_vec2_length(p[i]));
	sized_shape s = {NULL, far + radius, "polygon"};
	assert_int_equal(imp_shape_polygon(p, n, radius, &s.shape), IMP_OK);
	return s;
}

static sized_shape sphere(double r)
{
	sized_shape s = {NULL, r, "sphere"};
	assert_int_equal(imp_shape_sphere(V3(0, 0, 0), r, &s.shape), IMP_OK);
	return s;
}

static sized_shape box3(double hx, double hy, double hz, double radius)
{
	sized_shape s = {NULL, sqrt(hx * hx + hy * hy + hz * hz) + radius, "box"};
	assert_int_equal(imp_shape_box3(hx, hy, hz, radius, &s.shape), IMP_OK);
	return s;
}

static sized_shape capsule3(imp_vec3 p0, imp_vec3 p1, double radius)
{
	sized_shape s = {NULL, fmax(imp_vec3_length(p0), imp_vec3_length(p1)) + radius, "capsule"};
	assert_int_equal(imp_shape_capsule3(p0, p1, radius, &s.shape), IMP_OK);
	return s;
}

/// What the tests keep of a body; the world's user data points here.
typedef struct body {
	imp_body_id id;
	sized_shape shape;
	double inv_mass; ///< 1 / mass: 0 for a static body (infinite mass)
} body;

/// The contact tolerance of a pair under the default step options: 1e-6
/// times the smaller of the two bound diameters (the larger when one shape
/// is a point). The one place the tests state the rule.
static double pair_tol(const body *a, const body *b)
{
	double r = fmin(a->shape.bound, b->shape.bound);
	return 2e-6 * (r > 0.0 ? r : fmax(a->shape.bound, b->shape.bound));
}

// ---------------------------------------------------------------------------
// Scenes: a world, its bodies, the shapes they use.

typedef struct scene {
	imp_world *w;
	int dim;
	body *bodies;       ///< room for `cap`, never moved: the world's user data points into it
	int n, cap;
	imp_shape **shapes; ///< owned (room for `cap`: a body uses one shape)
	int shape_count;
	imp_aabb3 *boxes;   ///< the checks' copy of each body's box (z 0 in 2D)
	imp_pose2 *pose2;   ///< and of its pose
	imp_pose3 *pose3;
} scene;

static void scene_init(scene *sc, int dim, imp_broad_kind kind, int cap)
{
	memset(sc, 0, sizeof *sc);
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	assert_int_equal(imp_world_create(&def, &sc->w), IMP_OK);
	sc->dim = dim;
	sc->cap = cap;
	sc->bodies = calloc((size_t)cap, sizeof *sc->bodies);
	sc->shapes = calloc((size_t)cap, sizeof *sc->shapes);
	sc->boxes = calloc((size_t)cap, sizeof *sc->boxes);
	sc->pose2 = calloc((size_t)cap, sizeof *sc->pose2);
	sc->pose3 = calloc((size_t)cap, sizeof *sc->pose3);
	assert_true(sc->bodies && sc->shapes && sc->boxes && sc->pose2 && sc->pose3);
}

static void scene_free(scene *sc)
{
	imp_world_destroy(sc->w);
	for (int i = 0; i < sc->shape_count; ++i)
		imp_shape_destroy(sc->shapes[i]);
	free(sc->bodies);
	free(sc->shapes);
	free(sc->boxes);
	free(sc->pose2);
	free(sc->pose3);
	memset(sc, 0, sizeof *sc);
}

/// Hands a shape to the scene, which destroys it with the world.
static sized_shape own(scene *sc, sized_shape s)
{
	assert_true(sc->shape_count < sc->cap);
	sc->shapes[sc->shape_count++] = s.shape;
	return s;
}

/// Adds a body at the pose of its dimension (the other is ignored); an
/// infinite mass makes it static, any other dynamic. Returns its number.
static int add_body(scene *sc, sized_shape s, imp_pose2 pose2, imp_pose3 pose3, double mass)
{
	assert_true(sc->n < sc->cap && mass > 0.0);
	body *b = &sc->bodies[sc->n];
	b->shape = s;
	b->inv_mass = 1.0 / mass;
	imp_body_def d = imp_default_body_def();
	d.type = isinf(mass) ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
	d.shape = s.shape;
	d.pose2 = pose2;
	d.pose3 = pose3;
	d.user_data = b;
	assert_int_equal(imp_world_add_body(sc->w, &d, &b->id), IMP_OK);
	return sc->n++;
}

/// Adds a body at `p`, unturned.
static int add_at(scene *sc, sized_shape s, imp_vec3 p, double mass)
{
	return add_body(sc, s, imp_pose2_make(p.x, p.y, 0.0), imp_pose3_make(p, imp_quat_identity()), mass);
}

static const body *body_of(const scene *sc, imp_body_id id)
{
	void *p = NULL;
	assert_int_equal(imp_body_get_user_data(sc->w, id, &p), IMP_OK);
	assert_non_null(p);
	return p;
}

/// The position of body i's origin (z 0 in 2D).
static imp_vec3 position(const scene *sc, int i)
{
	if (sc->dim == 2) {
		imp_pose2 p;
		assert_int_equal(imp_body_get_pose2(sc->w, sc->bodies[i].id, &p), IMP_OK);
		return V3(p.p.x, p.p.y, 0.0);
	}
	imp_pose3 p;
	assert_int_equal(imp_body_get_pose3(sc->w, sc->bodies[i].id, &p), IMP_OK);
	return p.p;
}

/// A body's linear velocity (z 0 in 2D). Its angular velocity must be
/// zero: nothing here ever sets one.
static imp_vec3 get_velocity(const scene *sc, imp_body_id id)
{
	if (sc->dim == 2) {
		imp_vec2 v;
		double w;
		assert_int_equal(imp_body_get_velocity2(sc->w, id, &v, &w), IMP_OK);
		assert_true(w == 0.0);
		return V3(v.x, v.y, 0.0);
	}
	imp_vec3 v, w;
	assert_int_equal(imp_body_get_velocity3(sc->w, id, &v, &w), IMP_OK);
	assert_true(w.x == 0.0 && w.y == 0.0 && w.z == 0.0);
	return v;
}

/// Sets a dynamic body's linear velocity, its angular velocity kept 0.
static void set_velocity(scene *sc, imp_body_id id, imp_vec3 v)
{
	if (sc->dim == 2)
		assert_int_equal(imp_body_set_velocity2(sc->w, id, V2(v.x, v.y), 0.0), IMP_OK);
	else
		assert_int_equal(imp_body_set_velocity3(sc->w, id, v, V3(0, 0, 0)), IMP_OK);
}

static double component(imp_vec3 v, int axis)
{
	return axis == 0 ? v.x : (axis == 1 ? v.y : v.z);
}

/// The unit vector of an axis.
static imp_vec3 axis_vec(int axis)
{
	return V3(axis == 0, axis == 1, axis == 2);
}

/// The vertical axis: y in 2D, z in 3D.
static int up_axis(int dim)
{
	return dim - 1;
}

static const char *broad_name(imp_broad_kind kind)
{
	return kind == IMP_BROAD_HASH ? "hash" : (kind == IMP_BROAD_SWEEP ? "sweep" : "naive");
}

// ---------------------------------------------------------------------------
// The physics: one callback for every scene.

/// What the physics remembers of a pair between frames: the impulse it
/// gave the pair in the frame it was last reported, to warm-start the next
/// (Box2D's accumulated impulses). Open addressing on the pair's id indices.
typedef struct contact_memory {
	uint64_t key;   ///< a.index << 32 | b.index, 0: empty
	long frame;     ///< the frame it was last reported in
	double impulse; ///< the impulse given in that frame (along normal)
	imp_vec3 normal;
} contact_memory;

#define MEMORY_SIZE (1 << 16)

typedef struct physics {
	scene *sc;
	contact_memory *memory; ///< MEMORY_SIZE entries
	long frame;
	double restitution;
	double dt;          ///< the frame's, for the push-out
	imp_step_opts opts; ///< the defaults, with this callback
	long calls;         ///< callback calls
	long impulses;      ///< calls that changed velocities
	long events;        ///< contacts reported by the steps (imp_step_stats.events, summed)
} physics;

/// Adds s n to a dynamic body's velocity.
static void kick(scene *sc, const body *b, double s, imp_vec3 n)
{
	set_velocity(sc, b->id, imp_vec3_add(get_velocity(sc, b->id), imp_vec3_scale(s, n)));
}

/// The pair's memory (made empty on first use).
static contact_memory *remembered(physics *ph, imp_body_id a, imp_body_id b)
{
	uint64_t key = (uint64_t)a.index << 32 | b.index;
	for (uint64_t h = key * 0x9e3779b97f4a7c15u;; h++) {
		contact_memory *m = &ph->memory[h % MEMORY_SIZE];
		if (m->key == key)
			return m;
		if (m->key == 0) {
			memset(m, 0, sizeof *m);
			m->key = key;
			m->frame = -2;
			return m;
		}
	}
}

/// Gives b j along n and a -j along n (each divided by its mass).
static void push_apart(physics *ph, const body *a, const body *b, double j, imp_vec3 n)
{
	if (a->inv_mass > 0.0)
		kick(ph->sc, a, -j * a->inv_mass, n);
	if (b->inv_mass > 0.0)
		kick(ph->sc, b, j * b->inv_mass, n);
}

/// Sequential impulses, linear only. The contact's normal speed vn (b's
/// point relative to a's along the normal from a to b; negative when they
/// approach) is raised to max(-restitution vn, push-out), the push-out
/// being PUSH_BETA x (depth beyond PUSH_SLOP) / dt for an overlapping
/// contact, by the impulse j = (target - vn) / (1/ma + 1/mb) along the
/// normal: a's velocity loses j/ma n, b's gains j/mb n. Static bodies have
/// infinite mass (1/m = 0) and are not touched. A contact already
/// separating fast enough is left alone. Restitution only above
/// RESTITUTION_SPEED; a contact resting since the last frame first takes
/// WARM_START of the impulse it took then.
static void physics_on_contact(const imp_contact_event *e, void *user)
{
	physics *ph = user;
	ph->calls++;
	const body *a = body_of(ph->sc, e->a), *b = body_of(ph->sc, e->b);
	double vn = e->normal_speed, k = a->inv_mass + b->inv_mass;
	contact_memory *m = remembered(ph, e->a, e->b);
	if (m->frame != ph->frame) {
		// First report this frame: a contact resting since the last frame
		// (reported at the step's start, the same normal) starts from the
		// impulse it took then.
		bool resting = m->frame == ph->frame - 1 && vn > -RESTITUTION_SPEED &&
			       imp_vec3_dot(m->normal, e->normal) > 0.99;
		double warm = resting ? WARM_START * m->impulse : 0.0;
		m->frame = ph->frame;
		m->normal = e->normal;
		m->impulse = 0.0;
		if (warm > 0.0) {
			push_apart(ph, a, b, warm, e->normal);
			vn += warm * k;
			m->impulse = warm;
		}
	}
	double push = PUSH_BETA * fmax(0.0, -e->distance - PUSH_SLOP) / ph->dt;
	double bounce = vn < -RESTITUTION_SPEED ? -ph->restitution * vn : 0.0;
	double target = fmax(bounce, push);
	if (!(vn < target))
		return;
	double j = (target - vn) / k;
	push_apart(ph, a, b, j, e->normal);
	m->impulse += j;
	ph->impulses++;
}

static void physics_init(physics *ph, scene *sc, double restitution, double dt)
{
	memset(ph, 0, sizeof *ph);
	ph->memory = calloc(MEMORY_SIZE, sizeof *ph->memory);
	assert_non_null(ph->memory);
	ph->sc = sc;
	ph->restitution = restitution;
	ph->dt = dt;
	ph->opts = imp_default_step_opts();
	ph->opts.on_contact = physics_on_contact;
	ph->opts.user = ph;
}

static void physics_free(physics *ph)
{
	free(ph->memory);
	ph->memory = NULL;
}

/// One frame of the simulator: `gravity` (an acceleration) added to every
/// dynamic body's velocity, then the step. The step must succeed and the
/// callback must have been given each of its contacts.
static void frame(physics *ph, imp_vec3 gravity)
{
	scene *sc = ph->sc;
	for (int i = 0; i < sc->n; ++i) {
		const body *b = &sc->bodies[i];
		if (b->inv_mass > 0.0)
			set_velocity(sc, b->id, imp_vec3_add(get_velocity(sc, b->id), imp_vec3_scale(ph->dt, gravity)));
	}
	long before = ph->calls;
	ph->frame++;
	imp_status st = imp_world_step(sc->w, ph->dt, &ph->opts);
	if (st != IMP_OK)
		fail_msg("imp_world_step: %s", imp_status_string(st));
	imp_step_stats stats = imp_world_get_step_stats(sc->w);
	assert_int_equal(ph->calls - before, stats.events);
	ph->events += stats.events;
}

// ---------------------------------------------------------------------------
// Checks after a step, by brute force over the bodies.

/// Copies every body's box and pose into the scene's scratch arrays.
static void take_snapshot(scene *sc)
{
	for (int i = 0; i < sc->n; ++i) {
		imp_body_id id = sc->bodies[i].id;
		if (sc->dim == 2) {
			imp_aabb2 b;
			assert_int_equal(imp_body_get_aabb2(sc->w, id, &b), IMP_OK);
			sc->boxes[i] = (imp_aabb3){V3(b.lo.x, b.lo.y, 0.0), V3(b.hi.x, b.hi.y, 0.0)};
			assert_int_equal(imp_body_get_pose2(sc->w, id, &sc->pose2[i]), IMP_OK);
		} else {
			assert_int_equal(imp_body_get_aabb3(sc->w, id, &sc->boxes[i]), IMP_OK);
			assert_int_equal(imp_body_get_pose3(sc->w, id, &sc->pose3[i]), IMP_OK);
		}
	}
}

/// The signed distance of bodies i and j at the snapshot (negative: minus
/// the depth of the overlap). imp_distance2/3 answer 0 for every overlap, so
/// the Level 3 query gives it.
static double signed_distance(const scene *sc, int i, int j)
{
	const imp_shape *a = sc->bodies[i].shape.shape, *b = sc->bodies[j].shape.shape;
	if (sc->dim == 2) {
		imp_closest2_result r;
		assert_int_equal(imp_closest2(a, sc->pose2[i], b, sc->pose2[j], NULL, &r), IMP_OK);
		return r.distance;
	}
	imp_closest3_result r;
	assert_int_equal(imp_closest3(a, sc->pose3[i], b, sc->pose3[j], NULL, &r), IMP_OK);
	return r.distance;
}

/// The pairs overlapping beyond their tolerance, and the worst of them.
typedef struct overlap_check {
	int pairs;
	double excess;   ///< the worst: how far beyond its tolerance, -distance - tol
	double distance; ///< its signed distance
	double tol;      ///< its tolerance
	int a, b;        ///< its bodies
} overlap_check;

/// Every pair that may touch (not both static): the box test first, which
/// is exact as a filter (boxes apart: shapes apart), then the signed
/// distance against pair_tol. Needs take_snapshot.
static overlap_check find_overlaps(const scene *sc)
{
	overlap_check o = {0, 0.0, 0.0, 0.0, -1, -1};
	for (int i = 0; i < sc->n; ++i) {
		const imp_aabb3 bi = sc->boxes[i];
		for (int j = i + 1; j < sc->n; ++j) {
			const imp_aabb3 *bj = &sc->boxes[j];
			if (bi.lo.x > bj->hi.x || bj->lo.x > bi.hi.x || bi.lo.y > bj->hi.y || bj->lo.y > bi.hi.y ||
			    bi.lo.z > bj->hi.z || bj->lo.z > bi.hi.z)
				continue;
			if (sc->bodies[i].inv_mass == 0.0 && sc->bodies[j].inv_mass == 0.0)
				continue;
			double tol = pair_tol(&sc->bodies[i], &sc->bodies[j]);
			double d = signed_distance(sc, i, j);
			if (!(d < -tol))
				continue;
			o.pairs++;
			if (-d - tol > o.excess)
				o = (overlap_check){o.pairs, -d - tol, d, tol, i, j};
		}
	}
	return o;
}

/// A closed container: the region inside its static walls.
typedef struct container {
	imp_aabb3 inner; ///< z 0 in 2D
	int wall[6];     ///< the wall on each face (body numbers): lo x, hi x, lo y, hi y, lo z, hi z
} container;

/// The bodies whose box leaves the container's inner region by more than
/// the tolerance of the body and that face's wall, and the worst of them.
typedef struct outside_check {
	int bodies;
	double excess; ///< the worst: how far beyond the face grown by the tolerance
	int body;      ///< its body
} outside_check;

/// Needs take_snapshot. The slack of 1e-9 of the container's largest side
/// only forgives rounding.
static outside_check find_outside(const scene *sc, const container *box)
{
	double size = 0.0;
	for (int k = 0; k < sc->dim; ++k)
		size = fmax(size, component(box->inner.hi, k) - component(box->inner.lo, k));
	outside_check o = {0, 0.0, -1};
	for (int i = 0; i < sc->n; ++i) {
		if (sc->bodies[i].inv_mass == 0.0)
			continue;
		double worst = 0.0;
		for (int k = 0; k < sc->dim; ++k) {
			double lo_grow = pair_tol(&sc->bodies[i], &sc->bodies[box->wall[2 * k]]) + 1e-9 * size;
			double hi_grow = pair_tol(&sc->bodies[i], &sc->bodies[box->wall[2 * k + 1]]) + 1e-9 * size;
			worst = fmax(worst, component(box->inner.lo, k) - lo_grow - component(sc->boxes[i].lo, k));
			worst = fmax(worst, component(sc->boxes[i].hi, k) - component(box->inner.hi, k) - hi_grow);
		}
		if (worst > 0.0) {
			o.bodies++;
			if (worst > o.excess) {
				o.excess = worst;
				o.body = i;
			}
		}
	}
	return o;
}

/// What went wrong over a run, frame by frame (frames counted from 1).
typedef struct run_log {
	int overlap_frames;        ///< frames ending with a pair overlapping beyond its tolerance
	int first_overlap;         ///< the first of them (0: none)
	overlap_check first;       ///< its worst pair
	overlap_check worst;       ///< the worst pair of the run
	int worst_overlap;         ///< its frame
	int outside_frames;        ///< frames ending with a body outside the container
	int first_outside;         ///< the first of them (0: none)
	outside_check first_out;   ///< its worst body
	outside_check last_out;    ///< the bodies outside at the last frame
	int capped_frames;         ///< steps whose state was not IMP_STEP_COMPLETE
	int first_capped;          ///< the first of them (0: none)
	int capped_pairs;          ///< summed over the run
	int most_pair_calls;       ///< the most narrow-phase calls one pair took in a step
} run_log;

/// Checks the world after frame `f`: the step's state, overlaps, and with a
/// container the bodies outside it.
static void log_frame(run_log *log, int f, scene *sc, const container *box)
{
	imp_step_stats st = imp_world_get_step_stats(sc->w);
	if (st.most_pair_calls > log->most_pair_calls)
		log->most_pair_calls = st.most_pair_calls;
	if (st.state != IMP_STEP_COMPLETE) {
		if (log->capped_frames++ == 0)
			log->first_capped = f;
		log->capped_pairs += st.capped_pairs;
	}
	take_snapshot(sc);
	overlap_check o = find_overlaps(sc);
	if (o.pairs > 0) {
		if (log->overlap_frames++ == 0) {
			log->first_overlap = f;
			log->first = o;
		}
		if (o.excess > log->worst.excess) {
			log->worst = o;
			log->worst_overlap = f;
		}
	}
	if (box != NULL) {
		outside_check x = find_outside(sc, box);
		if (x.bodies > 0 && log->outside_frames++ == 0) {
			log->first_outside = f;
			log->first_out = x;
		}
		log->last_out = x;
	}
}

static void print_overlap(const char *label, const scene *sc, const char *what, int f, overlap_check o)
{
	const body *a = &sc->bodies[o.a], *b = &sc->bodies[o.b];
	print_message("%s: %s at frame %d: pairs beyond tolerance %d, the deepest bodies %d (%s%s) and %d (%s%s): "
		      "distance %.6g, tolerance %.3g\n",
		      label, what, f, o.pairs, o.a, a->inv_mass == 0.0 ? "static " : "", a->shape.kind, o.b,
		      b->inv_mass == 0.0 ? "static " : "", b->shape.kind, o.distance, o.tol);
}

/// Prints what went wrong; returns the number of failed checks.
static int log_report(const char *label, const scene *sc, const run_log *log, int frames)
{
	int bad = 0;
	if (log->overlap_frames > 0) {
		print_message("%s: %d of %d frames end with overlaps beyond tolerance\n", label, log->overlap_frames,
			      frames);
		print_overlap(label, sc, "first overlap", log->first_overlap, log->first);
		print_overlap(label, sc, "worst overlap", log->worst_overlap, log->worst);
		bad++;
	}
	if (log->outside_frames > 0) {
		const body *b = &sc->bodies[log->first_out.body];
		print_message("%s: bodies outside the container in %d of %d frames; first at frame %d: %d bodies, the "
			      "farthest body %d (%s) by %.6g; at the end %d bodies outside, the farthest by %.6g\n",
			      label, log->outside_frames, frames, log->first_outside, log->first_out.bodies,
			      log->first_out.body, b->shape.kind, log->first_out.excess, log->last_out.bodies,
			      log->last_out.excess);
		bad++;
	}
	if (log->capped_frames > 0) {
		print_message("%s: %d of %d steps capped (first at frame %d), %d capped pairs in all\n", label,
			      log->capped_frames, frames, log->first_capped, log->capped_pairs);
		bad++;
	}
	return bad;
}

// ---------------------------------------------------------------------------
// Newton's cradle.

/// Five equal balls of radius 0.5 touching in a row at x = 0 .. 4, a sixth
/// at x = -2 moving at +1; no gravity, restitution 1, one step of 2. It hits
/// at t = 1 and the velocity passes down the row, contact by contact at
/// that time: only the last ball moves on, at 1. Returns the number of
/// failed checks (each printed).
static int cradle(int dim, imp_broad_kind kind)
{
	char label[64];
	snprintf(label, sizeof label, "%dD cradle (%s)", dim, broad_name(kind));
	scene sc;
	scene_init(&sc, dim, kind, 6);
	sized_shape ball = own(&sc, dim == 2 ? disc(0.5) : sphere(0.5));
	for (int i = 0; i < 5; ++i)
		add_at(&sc, ball, V3(i, 0, 0), 1.0);
	int striker = add_at(&sc, ball, V3(-2, 0, 0), 1.0);
	set_velocity(&sc, sc.bodies[striker].id, V3(1, 0, 0));
	physics ph;
	physics_init(&ph, &sc, 1.0, 2.0);
	frame(&ph, V3(0, 0, 0));

	int bad = 0;
	imp_contact_events c = imp_world_get_contacts(sc.w);
	for (int i = 1; i < c.count; ++i) {
		if (c.items[i].t < c.items[i - 1].t) {
			print_message("%s: contact %d at t %.17g before contact %d at t %.17g\n", label, i, c.items[i].t,
				      i - 1, c.items[i - 1].t);
			bad++;
		}
	}
	run_log log = {0};
	log_frame(&log, 1, &sc, NULL);
	bad += log_report(label, &sc, &log, 1);
	imp_vec3 momentum = V3(0, 0, 0);
	for (int i = 0; i < sc.n; ++i) {
		imp_vec3 v = get_velocity(&sc, sc.bodies[i].id);
		momentum = imp_vec3_add(momentum, v);
		double want = i == 4 ? 1.0 : 0.0;
		if (fabs(v.x - want) > 1e-9 || fabs(v.y) > 1e-9 || fabs(v.z) > 1e-9) {
			print_message("%s: ball %d (%s) ends with velocity (%.17g %.17g %.17g), expected (%g 0 0)\n", label,
				      i, i == striker ? "the striker" : "in the row", v.x, v.y, v.z, want);
			bad++;
		}
	}
	if (fabs(momentum.x - 1.0) > 1e-12 || fabs(momentum.y) > 1e-12 || fabs(momentum.z) > 1e-12) {
		print_message("%s: momentum (%.17g %.17g %.17g), expected (1 0 0)\n", label, momentum.x, momentum.y,
			      momentum.z);
		bad++;
	}
	print_message("%s: %d contacts, %ld impulses, most pair calls %d\n", label, c.count, ph.impulses,
		      log.most_pair_calls);
	physics_free(&ph);
	scene_free(&sc);
	return bad;
}

static void test_newtons_cradle(void **state)
{
	(void)state;
	int bad = 0;
	for (int dim = 2; dim <= 3; ++dim) {
		bad += cradle(dim, IMP_BROAD_HASH);
		bad += cradle(dim, IMP_BROAD_SWEEP);
	}
	if (bad)
		fail_msg("Newton's cradle: %d failed checks (printed above)", bad);
}

// ---------------------------------------------------------------------------
// A stack of boxes.

/// Ten unit boxes stacked touching on a static floor whose top is at height
/// 0, restitution 0, FRAMES frames under gravity. Returns the number of
/// failed checks (each printed).
static int box_stack(int dim, imp_broad_kind kind)
{
	enum { BOXES = 10 };
	char label[64];
	snprintf(label, sizeof label, "%dD stack (%s)", dim, broad_name(kind));
	int up = up_axis(dim);
	scene sc;
	scene_init(&sc, dim, kind, BOXES + 1);
	sized_shape slab = own(&sc, dim == 2 ? box2(5.0, 0.5, 0.0) : box3(5.0, 5.0, 0.5, 0.0));
	sized_shape cube = own(&sc, dim == 2 ? box2(0.5, 0.5, 0.0) : box3(0.5, 0.5, 0.5, 0.0));
	add_at(&sc, slab, imp_vec3_scale(-0.5, axis_vec(up)), INFINITY);
	for (int i = 0; i < BOXES; ++i)
		add_at(&sc, cube, imp_vec3_scale(0.5 + i, axis_vec(up)), 1.0);
	physics ph;
	physics_init(&ph, &sc, 0.0, FRAME_DT);
	run_log log = {0};
	for (int f = 1; f <= FRAMES; ++f) {
		frame(&ph, imp_vec3_scale(-GRAVITY, axis_vec(up)));
		log_frame(&log, f, &sc, NULL);
	}
	int bad = log_report(label, &sc, &log, FRAMES);
	double below = -INFINITY;
	for (int i = 1; i <= BOXES; ++i) {
		imp_vec3 p = position(&sc, i);
		double height = component(p, up), want = 0.5 + (i - 1);
		double across = 0.0;
		for (int k = 0; k < dim; ++k)
			if (k != up)
				across = fmax(across, fabs(component(p, k)));
		if (across > 0.01 || fabs(height - want) > 0.05 || !(height > below)) {
			print_message("%s: body %d (box %d of the stack) ends at height %.6g (expected %g, the one below "
				      "at %.6g), %.3g off its start across\n",
				      label, i, i - 1, height, want, below, across);
			bad++;
		}
		below = height;
	}
	print_message("%s: %ld contacts, %ld impulses, most pair calls %d\n", label, ph.events, ph.impulses,
		      log.most_pair_calls);
	physics_free(&ph);
	scene_free(&sc);
	return bad;
}

static void test_box_stack(void **state)
{
	(void)state;
	int bad = 0;
	for (int dim = 2; dim <= 3; ++dim) {
		bad += box_stack(dim, IMP_BROAD_HASH);
		bad += box_stack(dim, IMP_BROAD_SWEEP);
	}
	if (bad)
		fail_msg("box stack: %d failed checks (printed above)", bad);
}

// ---------------------------------------------------------------------------
// Piles in a closed container.

/// A random body shape of size 0.2 to 0.4: in 2D a disc, a box (half of
/// them rounded by 0.05) or a polygon of 3 to 8 points around the origin;
/// in 3D a sphere, a box (half rounded) or a capsule.
static sized_shape random_shape(ow_rng *r, int dim)
{
	int kind = ow_int(r, 3);
	if (dim == 2) {
		if (kind == 0)
			return disc(ow_range(r, 0.2, 0.4));
		if (kind == 1) {
			// One draw a statement: the order of arguments is the compiler's.
			double hx = ow_range(r, 0.2, 0.4), hy = ow_range(r, 0.2, 0.4);
			return box2(hx, hy, ow_int(r, 2) ? 0.05 : 0.0);
		}
		imp_vec2 p[8];
		int n = 3 + ow_int(r, 6);
		for (int i = 0; i < n; ++i) {
			double a = TWO_PI * (i + ow_range(r, -0.3, 0.3)) / n, d = ow_range(r, 0.2, 0.4);
			p[i] = V2(d * cos(a), d * sin(a));
		}
		return polygon(p, n, 0.0);
	}
	if (kind == 0)
		return sphere(ow_range(r, 0.2, 0.4));
	if (kind == 1) {
		double hx = ow_range(r, 0.2, 0.4), hy = ow_range(r, 0.2, 0.4), hz = ow_range(r, 0.2, 0.4);
		return box3(hx, hy, hz, ow_int(r, 2) ? 0.05 : 0.0);
	}
	double h = ow_range(r, 0.1, 0.25);
	return capsule3(V3(-h, 0, 0), V3(h, 0, 0), ow_range(r, 0.15, 0.25));
}

/// The pile scene: a closed container of static walls 1 thick around the
/// region 24 x 40 (2D, 500 bodies) or 6 x 6 x 20 (3D, 200 bodies), the
/// bodies on a grid in its upper part, each in a cell wider than its bound
/// diameter (so none overlap), turned at random, with random velocities of
/// up to 0.5 per axis and a mass that grows with their size.
static void pile_make(scene *sc, container *box, int dim, imp_broad_kind kind, uint64_t seed)
{
	const int count = dim == 2 ? 500 : 200;
	const imp_vec3 size = dim == 2 ? V3(24, 40, 0) : V3(6, 6, 20);
	scene_init(sc, dim, kind, count + 2 * dim);
	box->inner = (imp_aabb3){V3(-0.5 * size.x, dim == 2 ? 0.0 : -0.5 * size.y, 0.0),
				 V3(0.5 * size.x, dim == 2 ? size.y : 0.5 * size.y, size.z)};
	// The walls: each face's box reaches 1 past the region on the other
	// axes, so the corners are closed.
	for (int k = 0; k < dim; ++k) {
		double h[3], c[3];
		for (int j = 0; j < 3; ++j) {
			double lo = component(box->inner.lo, j), hi = component(box->inner.hi, j);
			h[j] = j == k ? 0.5 : 0.5 * (hi - lo) + 1.0;
			c[j] = 0.5 * (lo + hi);
		}
		sized_shape wall = own(sc, dim == 2 ? box2(h[0], h[1], 0.0) : box3(h[0], h[1], h[2], 0.0));
		for (int side = 0; side < 2; ++side) {
			double face = component(side ? box->inner.hi : box->inner.lo, k);
			imp_vec3 p = V3(c[0], c[1], dim == 2 ? 0.0 : c[2]);
			p = imp_vec3_add(p, imp_vec3_scale(face + (side ? 0.5 : -0.5) - component(p, k), axis_vec(k)));
			box->wall[2 * k + side] = add_at(sc, wall, p, INFINITY);
		}
	}
	ow_rng r = {seed};
	sized_shape *shapes = calloc((size_t)count, sizeof *shapes);
	assert_non_null(shapes);
	double reach = 0.0;
	for (int i = 0; i < count; ++i) {
		shapes[i] = own(sc, random_shape(&r, dim));
		reach = fmax(reach, shapes[i].bound);
	}
	// The grid, filled from the top down.
	const double cell = 2.0 * reach + 0.05;
	const int up = up_axis(dim);
	const int across = (int)(size.x / cell), per_layer = dim == 2 ? across : across * across;
	assert_true((count + per_layer - 1) / per_layer * cell <= component(size, up));
	for (int i = 0; i < count; ++i) {
		int layer = i / per_layer, slot = i % per_layer;
		imp_vec3 p = V3(box->inner.lo.x + (slot % across + 0.5) * cell, box->inner.lo.y + (slot / across + 0.5) * cell,
				0.0);
		p = imp_vec3_add(p, imp_vec3_scale(component(box->inner.hi, up) - (layer + 0.5) * cell - component(p, up),
						   axis_vec(up)));
		imp_pose2 pose2 = imp_pose2_make(p.x, p.y, ow_range(&r, 0.0, TWO_PI));
		imp_pose3 pose3 = imp_pose3_make(p, ow_quat(&r));
		int b = add_body(sc, shapes[i], pose2, pose3, pow(shapes[i].bound, dim));
		double vx = ow_range(&r, -0.5, 0.5), vy = ow_range(&r, -0.5, 0.5);
		imp_vec3 v = V3(vx, vy, dim == 2 ? 0.0 : ow_range(&r, -0.5, 0.5));
		set_velocity(sc, sc->bodies[b].id, v);
	}
	free(shapes);
	// The scene is what it claims: nothing overlaps, nothing is outside.
	take_snapshot(sc);
	assert_int_equal(find_overlaps(sc).pairs, 0);
	assert_int_equal(find_outside(sc, box).bodies, 0);
}

/// Runs a pile of restitution e for FRAMES frames, checking every frame.
/// Returns the number of failed checks (each printed).
static int pile(int dim, double e, imp_broad_kind kind)
{
	char label[64];
	snprintf(label, sizeof label, "%dD pile e=%g (%s)", dim, e, broad_name(kind));
	scene sc;
	container box;
	pile_make(&sc, &box, dim, kind, 0x9113u + (uint64_t)dim);
	physics ph;
	physics_init(&ph, &sc, e, FRAME_DT);
	run_log log = {0};
	for (int f = 1; f <= FRAMES; ++f) {
		frame(&ph, imp_vec3_scale(-GRAVITY, axis_vec(up_axis(dim))));
		log_frame(&log, f, &sc, &box);
	}
	int bad = log_report(label, &sc, &log, FRAMES);
	print_message("%s: %d bodies, %ld contacts, %ld impulses, most calls of one pair in a step %d\n", label,
		      sc.n - 2 * dim, ph.events, ph.impulses, log.most_pair_calls);
	physics_free(&ph);
	scene_free(&sc);
	return bad;
}

static void test_pile_2d(void **state)
{
	(void)state;
	int bad = pile(2, 0.5, IMP_BROAD_HASH) + pile(2, 1.0, IMP_BROAD_HASH);
	if (bad)
		fail_msg("2D piles: %d failed checks (printed above)", bad);
}

static void test_pile_3d(void **state)
{
	(void)state;
	int bad = pile(3, 0.5, IMP_BROAD_HASH) + pile(3, 1.0, IMP_BROAD_HASH);
	if (bad)
		fail_msg("3D piles: %d failed checks (printed above)", bad);
}

/// A 2D pile in a level: one static body, a closed chain (a floor of 40
/// segments with valleys 0.7 deep, walls, a ceiling; rounded by 0.05),
/// 100 bodies dropped onto it from a grid, restitution 0.5, 150 frames: no pair
/// (the level's pairs included) may overlap beyond its tolerance and every
/// body stays inside the level. A body in a valley touches two segments of
/// the one chain: the step must report each (the two segments as bodies of
/// their own would be two pairs) and catch a new contact of another pair of
/// children within the tolerance; before it did, the pile pushed bodies
/// into the floor and walls beyond the tolerance.
static void test_pile_chain_2d(void **state)
{
	(void)state;
	enum { FLOOR = 40, POINTS = FLOOR + 3, COUNT = 100, ACROSS = 7, FRAMES_LEVEL = 150 };
	// The shapes first: the grid's cell holds the largest.
	ow_rng r = {0x5eedu};
	sized_shape shapes[COUNT];
	double reach = 0.0;
	for (int i = 0; i < COUNT; ++i) {
		shapes[i] = random_shape(&r, 2);
		reach = fmax(reach, shapes[i].bound);
	}
	const double cell = 2.0 * reach + 0.05, width = ACROSS * cell + 0.2;
	const double height = (COUNT / ACROSS + 1) * cell + 1.0;
	scene sc;
	scene_init(&sc, 2, IMP_BROAD_HASH, COUNT + 1);
	imp_vec2 level[POINTS];
	for (int i = 0; i <= FLOOR; ++i) {
		double x = width * i / FLOOR;
		level[i] = V2(x, -0.35 * (1.0 - cos(TWO_PI * x / (width / 4.0))));
	}
	level[FLOOR + 1] = V2(width, height);
	level[FLOOR + 2] = V2(0.0, height);
	sized_shape chain = {NULL, sqrt(width * width + height * height) + 0.05, "chain"};
	assert_int_equal(imp_shape_chain(level, POINTS, true, 0.05, &chain.shape), IMP_OK);
	add_at(&sc, own(&sc, chain), V3(0, 0, 0), INFINITY);
	for (int i = 0; i < COUNT; ++i) {
		sized_shape s = own(&sc, shapes[i]);
		imp_vec3 p = V3(0.1 + cell * (i % ACROSS + 0.5), 0.1 + cell * (i / ACROSS + 0.5), 0.0);
		int b = add_body(&sc, s, imp_pose2_make(p.x, p.y, ow_range(&r, 0.0, TWO_PI)), imp_pose3_identity(), pow(s.bound, 2));
		double vx = ow_range(&r, -0.5, 0.5), vy = ow_range(&r, -0.5, 0.5);
		set_velocity(&sc, sc.bodies[b].id, V3(vx, vy, 0.0));
	}
	take_snapshot(&sc);
	assert_int_equal(find_overlaps(&sc).pairs, 0);
	physics ph;
	physics_init(&ph, &sc, 0.5, FRAME_DT);
	int bad = 0;
	double worst = 0.0;
	for (int f = 1; f <= FRAMES_LEVEL; ++f) {
		frame(&ph, V3(0.0, -GRAVITY, 0.0));
		take_snapshot(&sc);
		overlap_check o = find_overlaps(&sc);
		if (o.pairs > 0) {
			bad++;
			worst = fmax(worst, o.excess);
			print_message("frame %d: %d pairs beyond, worst bodies %d %d distance %.3g tol %.3g\n", f, o.pairs, o.a, o.b, o.distance, o.tol);
		}
		for (int i = 1; i < sc.n; ++i) {
			// Inside the level's polygon (crossings of a ray to +x).
			imp_vec2 q = sc.pose2[i].p;
			bool in = false;
			for (int k = 0, j = POINTS - 1; k < POINTS; j = k++)
				if ((level[k].y > q.y) != (level[j].y > q.y) &&
				    q.x < level[j].x + (q.y - level[j].y) * (level[k].x - level[j].x) / (level[k].y - level[j].y))
					in = !in;
			bad += !in;
		}
	}
	print_message("2D pile in a chain level: %d bodies, %ld contacts, %d frames with an overlap beyond the tolerance "
		      "or a body outside (worst excess %.3g)\n",
		      COUNT, ph.events, bad, worst);
	physics_free(&ph);
	scene_free(&sc);
	assert_int_equal(bad, 0);
}

// ---------------------------------------------------------------------------
// Determinism.

/// The 2D pile of restitution 0.5 run twice for 120 frames (no checks):
/// the same state hash and every pose the same bit for bit.
static void test_determinism(void **state)
{
	(void)state;
	enum { RUN_FRAMES = 120 };
	scene sc[2];
	container box[2];
	physics ph[2];
	for (int k = 0; k < 2; ++k) {
		pile_make(&sc[k], &box[k], 2, IMP_BROAD_HASH, 0x9113u + 2u);
		physics_init(&ph[k], &sc[k], 0.5, FRAME_DT);
		for (int f = 0; f < RUN_FRAMES; ++f)
			frame(&ph[k], V3(0, -GRAVITY, 0));
	}
	assert_int_equal(sc[0].n, sc[1].n);
	for (int i = 0; i < sc[0].n; ++i) {
		imp_pose2 p[2];
		for (int k = 0; k < 2; ++k)
			assert_int_equal(imp_body_get_pose2(sc[k].w, sc[k].bodies[i].id, &p[k]), IMP_OK);
		if (memcmp(&p[0], &p[1], sizeof p[0]) != 0)
			fail_msg("2D pile run twice: body %d ends at (%.17g %.17g) and at (%.17g %.17g)", i, p[0].p.x,
				 p[0].p.y, p[1].p.x, p[1].p.y);
	}
	uint64_t h0 = imp_world_state_hash(sc[0].w), h1 = imp_world_state_hash(sc[1].w);
	if (h0 != h1)
		fail_msg("2D pile run twice: state hashes %016llx and %016llx", (unsigned long long)h0,
			 (unsigned long long)h1);
	assert_true(ph[0].events == ph[1].events && ph[0].impulses == ph[1].impulses);
	print_message("2D pile run twice: %ld contacts, %ld impulses over %d frames, state hash %016llx both times\n",
		      ph[0].events, ph[0].impulses, RUN_FRAMES, (unsigned long long)h0);
	for (int k = 0; k < 2; ++k) {
		physics_free(&ph[k]);
		scene_free(&sc[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newtons_cradle),
		cmocka_unit_test(test_box_stack),
		cmocka_unit_test(test_pile_2d),
		cmocka_unit_test(test_pile_3d),
		cmocka_unit_test(test_pile_chain_2d),
		cmocka_unit_test(test_determinism),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
