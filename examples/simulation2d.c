// SPDX-License-Identifier: MIT
// A pile: bodies falling into a closed room and piling up on its wavy
// floor, stepped by the world's time-of-impact queue.
//
// Discs, boxes, convex polygons and capsules (0.3 to 0.6 across) start on a
// grid in a room and fall under gravity. The room is a level: one static
// body whose shape is a closed chain (imp_shape_chain), its floor a wave of
// 48 segments with valleys 0.7 deep, its walls and ceiling straight, all
// rounded by 0.05. Each step the
// world gives the contacts in time order to a callback that applies an
// impulse: the physics of the project's tests (tests/test_impulse.c's
// physics_on_contact, written again here with the same constants):
// sequential impulses, linear only (the bodies never turn), mass
// proportional to area, walls of infinite mass. A contact's relative normal
// speed is raised to the larger of a bounce (restitution 0.5, only for an
// approach faster than 0.5) and a push-out of any overlap (0.2 x depth /
// dt); a pair reported in the last frame with nearly the same normal and a
// slow approach first takes 0.98 of the impulse it took then (warm
// starting, from a small memory of each pair). Gravity is added to the
// velocities between steps. The bodies bounce, collide and pile up on the
// floor (the top of the pile keeps moving: the program prints the kinetic
// energy and the fastest body at the end).
//
// The program checks what the time-of-impact step promises, after every
// step: contacts in time order, no body leaving the room (its origin stays
// inside the level's polygon: none tunnels through a wall or the floor,
// however fast it falls), and no two bodies
// overlapping by more than their contact tolerance (the default of
// imp_step_opts: 1e-6 x the smaller bound diameter of the pair; the
// response gets every contact in time, so no overlap can grow past it).
// It exits 1 when a check fails. It writes SVG frames, the last one the
// pile.
//
// usage: simulation2d [--smoke] [--out PREFIX]   (frames PREFIX-000.svg ...;
//        with a PREFIX ending in .svg, one picture of the last frame there)
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#define ROOM_W 12.0
#define ROOM_H 10.0
/// The level: a floor of FLOOR_SEGMENTS segments, y = -FLOOR_DEPTH / 2 (1 -
/// cos(2 pi x / FLOOR_WAVE)), level where it meets the walls (no corner
/// sharper than a right angle: with bouncing, linear-only impulses, a body
/// wedged in an acute corner can take contact after contact without end);
/// then the walls and the ceiling; rounded by LEVEL_RADIUS.
#define FLOOR_SEGMENTS 48
#define FLOOR_DEPTH 0.7
#define FLOOR_WAVE 3.0
#define LEVEL_RADIUS 0.05
#define LEVEL_POINTS (FLOOR_SEGMENTS + 3)
/// The grid the bodies start on (they are at most 0.6 across).
#define PITCH 0.65
#define GRAVITY 9.81
#define RESTITUTION 0.5
/// Slower approaches do not bounce (Box2D's velocity threshold).
#define RESTITUTION_SPEED 0.5
/// The push-out of an overlap: this fraction of its depth in one step.
#define PUSH_BETA 0.2
/// Warm starting: the fraction of the last frame's impulse a pair resting
/// since then first takes, when the cosine between its normals then and now
/// is above WARM_NORMAL.
#define WARM_START 0.98
#define WARM_NORMAL 0.99
#define DT (1.0 / 60.0)
#define PI 3.14159265358979323846

/// What the simulation knows of a body (its user data).
typedef struct body {
	imp_body_id id;
	imp_shape *shape;
	double inv_mass; ///< 0 for a wall
	double reach;    ///< its bound radius: the farthest point of the shape from its origin
} body;

/// What the callback remembers of a pair between frames: the impulse it
/// gave the pair in the frame it was last reported in, to warm-start the
/// next (Box2D's accumulated impulses).
typedef struct memory {
	uint64_t key;   ///< a.index << 32 | b.index (the ids' indices); 0: an empty slot
	long frame;     ///< the frame it was last reported in
	double impulse; ///< the impulse it took then, along the normal
	imp_vec2 normal;
} memory;

typedef struct sim {
	imp_world *w;
	long frame;       ///< the frame being stepped, from 1
	memory *mem;      ///< open addressing, mem_size slots (a power of two)
	size_t mem_size, mem_used;
	int contacts;     ///< this step's
	double last_t;    ///< the time of the last contact seen this step
	bool out_of_order;
	bool failed;      ///< a call in the callback failed
} sim;

static double next_unit(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/// The contact tolerance of a pair with the default step options
/// (imp_step_opts.tolerance 0, world.h): 1e-6 x the smaller of the two
/// bound diameters, the larger when one is a point. The one place that
/// knows the rule.
static double contact_tolerance(const body *a, const body *b)
{
	double r = fmin(a->reach, b->reach) > 0.0 ? fmin(a->reach, b->reach) : fmax(a->reach, b->reach);
	return 2e-6 * r;
}

static const body *body_of(const imp_world *w, imp_body_id id)
{
	void *u = NULL;
	imp_body_get_user_data(w, id, &u);
	return u;
}

/// The slot of `key` in a table of `size` slots (a power of two): the first
/// from its hash on that holds it or is empty.
static memory *memory_slot(memory *table, size_t size, uint64_t key)
{
	for (size_t h = (size_t)((key * 0x9e3779b97f4a7c15u) >> 32);; h++) {
		memory *m = &table[h & (size - 1)];
		if (m->key == key || m->key == 0)
			return m;
	}
}

/// The memory of the pair (a, b), made (frame -1: never reported) on first
/// use; NULL when out of memory. A table three quarters full is remade with
/// only the pairs reported in this frame or the last (the others cannot warm
/// start), twice as large when they fill half of it.
static memory *remembered(sim *s, imp_body_id a, imp_body_id b)
{
	uint64_t key = (uint64_t)a.index << 32 | b.index;
	memory *m = memory_slot(s->mem, s->mem_size, key);
	if (m->key == key)
		return m;
	if (4 * (s->mem_used + 1) > 3 * s->mem_size) {
		size_t live = 0;
		for (size_t i = 0; i < s->mem_size; i++)
			live += s->mem[i].key != 0 && s->mem[i].frame >= s->frame - 1;
		size_t size = 2 * live > s->mem_size ? 2 * s->mem_size : s->mem_size;
		memory *table = calloc(size, sizeof *table);
		if (!table)
			return NULL;
		for (size_t i = 0; i < s->mem_size; i++)
			if (s->mem[i].key != 0 && s->mem[i].frame >= s->frame - 1)
				*memory_slot(table, size, s->mem[i].key) = s->mem[i];
		free(s->mem);
		s->mem = table;
		s->mem_size = size;
		s->mem_used = live;
		m = memory_slot(table, size, key);
	}
	s->mem_used++;
	*m = (memory){key, -1, 0.0, {0.0, 0.0}};
	return m;
}

/// Gives b j along n and a -j along n, each divided by its mass (walls,
/// of infinite mass, are not touched).
static void push_apart(sim *s, const body *a, const body *b, double j, imp_vec2 n)
{
	const body *both[2] = {a, b};
	for (int q = 0; q < 2; q++) {
		const body *c = both[q];
		if (c->inv_mass == 0.0)
			continue;
		imp_vec2 v;
		if (imp_body_get_velocity2(s->w, c->id, &v, NULL) != IMP_OK) {
			s->failed = true;
			continue;
		}
		v = imp_vec2_add(v, imp_vec2_scale((q == 0 ? -j : j) * c->inv_mass, n));
		if (imp_body_set_velocity2(s->w, c->id, v, 0.0) != IMP_OK)
			s->failed = true;
	}
}

/// The Impulse loop: sequential impulses along the contact normal (from a
/// to b). The relative normal speed vn (negative when approaching) is
/// raised to max(bounce, push-out) by the impulse j = (target - vn) /
/// (1/ma + 1/mb): bounce -RESTITUTION vn for an approach faster than
/// RESTITUTION_SPEED (else 0), push-out PUSH_BETA x depth / DT for an
/// overlap. On a pair's first report in a frame, when it was reported in
/// the last one with a normal within WARM_NORMAL of this one and approaches
/// slower than RESTITUTION_SPEED, it first takes WARM_START x the impulse
/// it took then.
static void on_contact(const imp_contact_event *e, void *user)
{
	sim *s = user;
	s->contacts++;
	if (e->t < s->last_t)
		s->out_of_order = true;
	s->last_t = e->t;
	const body *a = body_of(s->w, e->a), *b = body_of(s->w, e->b);
	memory *m = remembered(s, e->a, e->b);
	if (!a || !b || !m) {
		s->failed = true;
		return;
	}
	imp_vec2 n = imp_vec2_make(e->normal.x, e->normal.y);
	double vn = e->normal_speed, k = a->inv_mass + b->inv_mass;
	if (m->frame != s->frame) {
		bool resting = m->frame == s->frame - 1 && vn > -RESTITUTION_SPEED &&
			       imp_vec2_dot(m->normal, n) > WARM_NORMAL;
		double warm = resting ? WARM_START * m->impulse : 0.0;
		m->frame = s->frame;
		m->normal = n;
		m->impulse = 0.0;
		if (warm > 0.0) {
			push_apart(s, a, b, warm, n);
			vn += warm * k;
			m->impulse = warm;
		}
	}
	double push = PUSH_BETA * fmax(0.0, -e->distance) / DT;
	double bounce = vn < -RESTITUTION_SPEED ? -RESTITUTION * vn : 0.0;
	double target = fmax(bounce, push);
	if (!(vn < target))
		return;
	double j = (target - vn) / k;
	push_apart(s, a, b, j, n);
	m->impulse += j;
}

/// A random body shape about 0.3 to 0.6 across (kind: 0 disc, 1 box, 2
/// polygon, 3 capsule), with its reach and inverse mass (density 1).
static bool make_shape(body *b, int kind, uint64_t *seed)
{
	double reach = 0.15 + 0.15 * next_unit(seed), area = 0.0;
	imp_status st;
	if (kind == 0) {
		st = imp_shape_circle(imp_vec2_make(0, 0), reach, &b->shape);
		area = PI * reach * reach;
	} else if (kind == 1) {
		double a = 0.35 + (0.5 * PI - 0.7) * next_unit(seed);
		double hx = reach * cos(a), hy = reach * sin(a);
		st = imp_shape_box2(hx, hy, 0.0, &b->shape);
		area = 4.0 * hx * hy;
	} else if (kind == 2) {
		imp_vec2 v[8];
		int m = 3 + (int)(next_unit(seed) * 6.0);
		for (int k = 0; k < m; k++) {
			double a = 2.0 * PI * (k + 0.6 * (next_unit(seed) - 0.5)) / m;
			v[k] = imp_vec2_make(reach * cos(a), reach * sin(a));
		}
		st = imp_shape_polygon(v, m, 0.0, &b->shape);
		if (st == IMP_OK) {
			int h = imp_shape_vertices2(b->shape, v, 8);
			for (int k = 0; k < h; k++)
				area += 0.5 * imp_vec2_cross(v[k], v[(k + 1) % h]);
		}
	} else {
		double r = reach * (0.35 + 0.25 * next_unit(seed)), half = reach - r;
		st = imp_shape_capsule2(imp_vec2_make(-half, 0), imp_vec2_make(half, 0), r, &b->shape);
		area = 4.0 * half * r + PI * r * r;
	}
	b->reach = reach;
	b->inv_mass = area > 0.0 ? 1.0 / area : 0.0;
	return st == IMP_OK;
}

static bool add(imp_world *w, body *b, imp_body_type type, imp_pose2 pose)
{
	imp_body_def d = imp_default_body_def();
	d.type = type;
	d.shape = b->shape;
	d.pose2 = pose;
	d.user_data = b;
	return imp_world_add_body(w, &d, &b->id) == IMP_OK;
}

/// The overlap check of a step's end: every pair at a signed distance at
/// most 0 (imp_world_clearance), its depth against the pair's tolerance.
typedef struct overlaps {
	int beyond;      ///< pairs overlapping by more than their tolerance, this step
	double deepest;  ///< over the run
	double worst;    ///< the largest depth / tolerance over the run
} overlaps;

static bool on_close_pair(imp_body_id a, const imp_query_result *pair, void *user)
{
	void **u = user;
	const imp_world *w = u[0];
	overlaps *o = u[1];
	double depth = -pair->distance;
	if (!(depth > 0.0))
		return true;
	double tol = contact_tolerance(body_of(w, a), body_of(w, pair->body));
	o->deepest = fmax(o->deepest, depth);
	o->worst = fmax(o->worst, depth / tol);
	o->beyond += depth > tol;
	return true;
}

static void write_frame(const sim *s, const char *path, int step, int contacts, const char *note)
{
	imp_svg *svg;
	imp_aabb2 view = {{-1.0, -1.5}, {ROOM_W + 1.0, ROOM_H + 1.6}};
	if (imp_svg_open(path, view, 900, &svg) != IMP_OK)
		return;
	imp_debug_draw d = imp_svg_draw(svg);
	imp_world_draw(s->w, &d);
	char label[160];
	snprintf(label, sizeof label, "step %d, t = %.3f s, %d contacts this step%s", step, imp_world_time(s->w),
		 contacts, note);
	d.text(imp_vec2_make(0.0, ROOM_H + 0.6), label, imp_color_make(0, 0, 0, 1), d.user);
	imp_svg_close(svg);
}

/// The level's corners: the wavy floor from (0, 0) to (ROOM_W, 0), then
/// the top corners (a closed chain joins the last back to the first).
static void level_points(imp_vec2 *p)
{
	for (int i = 0; i <= FLOOR_SEGMENTS; i++) {
		double x = ROOM_W * i / FLOOR_SEGMENTS;
		p[i] = imp_vec2_make(x, -0.5 * FLOOR_DEPTH * (1.0 - cos(2.0 * PI * x / FLOOR_WAVE)));
	}
	p[FLOOR_SEGMENTS + 1] = imp_vec2_make(ROOM_W, ROOM_H);
	p[FLOOR_SEGMENTS + 2] = imp_vec2_make(0.0, ROOM_H);
}

/// Whether q is inside the polygon p[0 .. n) (crossings of a ray to +x).
static bool inside(const imp_vec2 *p, int n, imp_vec2 q)
{
	bool in = false;
	for (int i = 0, j = n - 1; i < n; j = i++)
		if ((p[i].y > q.y) != (p[j].y > q.y) &&
		    q.x < p[j].x + (q.y - p[j].y) * (p[i].x - p[j].x) / (p[i].y - p[j].y))
			in = !in;
	return in;
}

int main(int argc, char **argv)
{
	bool smoke = false;
	const char *out = "simulation2d";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = true;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: simulation2d [--smoke] [--out PREFIX]\n");
			return 2;
		}
	}
	imp_world_def def = imp_default_world_def();
	def.dim = 2;
	def.broad_phase = IMP_BROAD_SWEEP;
	sim s = {0};
	if (imp_world_create(&def, &s.w) != IMP_OK)
		return 1;
	// The bodies on a grid (none starts overlapping another or the floor,
	// whose crests are at y = 0), then the level.
	int cols = 16, rows = smoke ? 4 : 13, movers = cols * rows, walls = 1;
	uint64_t seed = 7;
	body *bodies = calloc((size_t)(movers + walls), sizeof *bodies);
	bool ok = bodies != NULL;
	int kinds[4] = {0, 0, 0, 0};
	for (int i = 0; i < movers && ok; i++) {
		int r = i / cols, c = i % cols, kind = (int)(next_unit(&seed) * 4.0);
		double x = 0.5 * (ROOM_W - cols * PITCH) + (c + 0.5) * PITCH, y = (r + 0.6) * PITCH + 2.0 * LEVEL_RADIUS;
		kinds[kind]++;
		ok = make_shape(&bodies[i], kind, &seed) &&
		     add(s.w, &bodies[i], IMP_BODY_DYNAMIC, imp_pose2_make(x, y, 2.0 * PI * next_unit(&seed)));
	}
	// The room: one static body, a closed chain.
	body *wall = bodies ? bodies + movers : NULL;
	imp_vec2 level[LEVEL_POINTS];
	level_points(level);
	if (ok) {
		ok = imp_shape_chain(level, LEVEL_POINTS, true, LEVEL_RADIUS, &wall[0].shape) == IMP_OK;
		wall[0].reach = hypot(ROOM_W, ROOM_H) + LEVEL_RADIUS;
		ok = ok && add(s.w, &wall[0], IMP_BODY_STATIC, imp_pose2_make(0, 0, 0));
	}
	bool *lost = calloc((size_t)(movers > 0 ? movers : 1), sizeof *lost);
	// The pairs' memory: room for eight a body before it first grows.
	for (s.mem_size = 64; s.mem_size < 8 * (size_t)(movers + walls);)
		s.mem_size *= 2;
	s.mem = calloc(s.mem_size, sizeof *s.mem);
	if (!ok || !lost || !s.mem) {
		fprintf(stderr, "simulation2d: could not build the scene\n");
		return 1;
	}
	imp_step_opts opts = imp_default_step_opts();
	opts.on_contact = on_contact;
	opts.user = &s;
	int steps = smoke ? 90 : 420, escaped = 0, total = 0, capped = 0, frames = 0, bad_steps = 0, first_bad = -1;
	overlaps ov = {0, 0.0, 0.0};
	double fastest = 0.0, energy = 0.0;
	int moving = 0; ///< bodies in the room faster than RESTITUTION_SPEED after the step
	bool one_file = strlen(out) > 4 && !strcmp(out + strlen(out) - 4, ".svg");
	for (int k = 0; k < steps; k++) {
		// Gravity, between steps.
		for (int i = 0; i < movers; i++) {
			imp_vec2 v;
			if (imp_body_get_velocity2(s.w, bodies[i].id, &v, NULL) != IMP_OK ||
			    imp_body_set_velocity2(s.w, bodies[i].id, imp_vec2_make(v.x, v.y - GRAVITY * DT), 0.0) != IMP_OK)
				s.failed = true;
		}
		s.frame++;
		s.contacts = 0;
		s.last_t = 0.0;
		imp_status st = imp_world_step(s.w, DT, &opts);
		if (st != IMP_OK || s.failed) {
			fprintf(stderr, "simulation2d: step %d: %s\n", k, st != IMP_OK ? imp_status_string(st) : "a call failed");
			return 1;
		}
		total += s.contacts;
		capped += imp_world_get_step_stats(s.w).state != IMP_STEP_COMPLETE;
		// Every body must still be inside the room...
		fastest = 0.0;
		energy = 0.0;
		moving = 0;
		for (int i = 0; i < movers; i++) {
			imp_pose2 p;
			imp_vec2 v = {0, 0};
			imp_body_get_pose2(s.w, bodies[i].id, &p);
			imp_body_get_velocity2(s.w, bodies[i].id, &v, NULL);
			if (!inside(level, LEVEL_POINTS, p.p)) {
				escaped += !lost[i];
				lost[i] = true;
				continue;
			}
			fastest = fmax(fastest, imp_vec2_length(v));
			moving += imp_vec2_length(v) > RESTITUTION_SPEED;
			energy += 0.5 * imp_vec2_dot(v, v) / bodies[i].inv_mass;
		}
		// ... and no pair may overlap by more than its tolerance.
		ov.beyond = 0;
		void *u[2] = {s.w, &ov};
		if (imp_world_clearance(s.w, 0.0, on_close_pair, u) != IMP_OK) {
			fprintf(stderr, "simulation2d: step %d: imp_world_clearance failed\n", k);
			return 1;
		}
		if (ov.beyond > 0) {
			bad_steps++;
			if (first_bad < 0)
				first_bad = k;
		}
		bool last = k + 1 == steps;
		char note[96] = "";
		if (last)
			snprintf(note, sizeof note, "; the pile: fastest body in the room %.2f units/s", fastest);
		if (!one_file && (k % (steps / 10 > 0 ? steps / 10 : 1) == 0 || last)) {
			char path[512];
			snprintf(path, sizeof path, "%s-%03d.svg", out, frames++);
			write_frame(&s, path, k, s.contacts, note);
		} else if (one_file && last) {
			write_frame(&s, out, k, s.contacts, note);
			frames = 1;
		}
	}
	printf("%d bodies (%d discs, %d boxes, %d polygons, %d capsules) dropped into a %.0f x %.0f room with a wavy "
	       "floor (a chain of %d segments), restitution %.1f, %d steps of 1/60 s: %d contacts, all in time order: %s\n",
	       movers, kinds[0], kinds[1], kinds[2], kinds[3], ROOM_W, ROOM_H, LEVEL_POINTS, RESTITUTION, steps, total,
	       s.out_of_order ? "NO" : "yes");
	printf("bodies found outside the room after a step: %d; steps that hit the per-pair cap: %d\n", escaped,
	       capped);
	printf("steps ending with an overlap beyond the contact tolerance: %d", bad_steps);
	if (bad_steps > 0)
		printf(" (the first: step %d)", first_bad);
	printf("; deepest overlap at a step end %.3g (%.3g x its pair's tolerance)\n", ov.deepest, ov.worst);
	printf("at the end, the bodies in the room: kinetic energy %.4g, fastest %.3g units/s, %d of them faster than "
	       "%.1f\n",
	       energy, fastest, moving, RESTITUTION_SPEED);
	printf("pictures: %d frame%s, %s%s\n", frames, frames == 1 ? "" : "s", out, one_file ? "" : "-NNN.svg");
	imp_world_destroy(s.w);
	for (int i = 0; i < movers + walls; i++)
		imp_shape_destroy(bodies[i].shape);
	free(bodies);
	free(lost);
	free(s.mem);
	return escaped == 0 && !s.out_of_order && bad_steps == 0 ? 0 : 1;
}
