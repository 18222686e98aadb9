// SPDX-License-Identifier: MIT
// Bodies bouncing in a box, stepped by the world's time-of-impact queue.
//
// Discs and boxes fly around a walled room at speeds up to 60 units per
// second (a few are "bullets" at 2000: they would cross the room, and the
// 0.2-thick walls, many times in one 1/60 s frame). Each step the world
// gives the contacts in time order to a callback that bounces the bodies:
// the normal part of their relative velocity is reversed (equal masses;
// static walls do not move). The program checks what the time-of-impact
// step promises: contacts in time order, and no body ever leaving the room
// (none tunnels through a wall, however fast). It writes SVG frames.
//
// usage: simulation2d [--smoke] [--out PREFIX]   (frames PREFIX-000.svg ...;
//        with a PREFIX ending in .svg, one picture of the last frame there)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#define ROOM_W 20.0
#define ROOM_H 12.0
#define WALL 0.2

typedef struct sim {
	imp_world *w;
	int contacts;     ///< this step's
	double last_t;    ///< the time of the last contact seen this step
	bool out_of_order;
} sim;

static double next_unit(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/// The Impulse loop's bounce: equal masses, perfectly elastic along the
/// normal; a static wall reflects the other body's velocity.
static void on_contact(const imp_contact_event *e, void *user)
{
	sim *s = user;
	s->contacts++;
	if (e->t < s->last_t)
		s->out_of_order = true;
	s->last_t = e->t;
	if (e->normal_speed >= 0.0)
		return; // already separating
	imp_vec2 n = imp_vec2_make(e->normal.x, e->normal.y);
	imp_body_type ta, tb;
	imp_body_get_type(s->w, e->a, &ta);
	imp_body_get_type(s->w, e->b, &tb);
	imp_vec2 va = {0, 0}, vb = {0, 0};
	double wa = 0.0, wb = 0.0;
	if (ta != IMP_BODY_STATIC)
		imp_body_get_velocity2(s->w, e->a, &va, &wa);
	if (tb != IMP_BODY_STATIC)
		imp_body_get_velocity2(s->w, e->b, &vb, &wb);
	// The change of relative normal speed from -u to +u, shared between
	// the moving bodies.
	double u = -e->normal_speed;
	if (ta != IMP_BODY_STATIC && tb != IMP_BODY_STATIC) {
		va = imp_vec2_sub(va, imp_vec2_scale(u, n));
		vb = imp_vec2_add(vb, imp_vec2_scale(u, n));
	} else if (ta != IMP_BODY_STATIC) {
		va = imp_vec2_sub(va, imp_vec2_scale(2.0 * u, n));
	} else {
		vb = imp_vec2_add(vb, imp_vec2_scale(2.0 * u, n));
	}
	if (ta != IMP_BODY_STATIC)
		imp_body_set_velocity2(s->w, e->a, va, wa);
	if (tb != IMP_BODY_STATIC)
		imp_body_set_velocity2(s->w, e->b, vb, wb);
}

static bool add(imp_world *w, const imp_shape *shape, imp_body_type type, imp_pose2 pose, imp_vec2 v, double av,
		imp_body_id *id)
{
	imp_body_def d = imp_default_body_def();
	d.type = type;
	d.shape = shape;
	d.pose2 = pose;
	if (imp_world_add_body(w, &d, id) != IMP_OK)
		return false;
	return type == IMP_BODY_STATIC || imp_body_set_velocity2(w, *id, v, av) == IMP_OK;
}

static void write_frame(const sim *s, const char *path, int step, int contacts)
{
	imp_svg *svg;
	imp_aabb2 view = {{-1.0, -1.0}, {ROOM_W + 1.0, ROOM_H + 1.0}};
	if (imp_svg_open(path, view, 900, &svg) != IMP_OK)
		return;
	imp_debug_draw d = imp_svg_draw(svg);
	imp_world_draw(s->w, &d);
	char label[80];
	snprintf(label, sizeof label, "step %d, t = %.3f s, %d contacts this step", step, imp_world_time(s->w), contacts);
	d.text(imp_vec2_make(0.0, ROOM_H + 0.4), label, imp_color_make(0, 0, 0, 1), d.user);
	imp_svg_close(svg);
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
	// The room: four thin static walls.
	imp_shape *hwall, *vwall, *disc, *box;
	imp_shape_box2(0.5 * ROOM_W + WALL, 0.5 * WALL, 0.0, &hwall);
	imp_shape_box2(0.5 * WALL, 0.5 * ROOM_H + WALL, 0.0, &vwall);
	imp_shape_circle(imp_vec2_make(0, 0), 0.25, &disc);
	imp_shape_box2(0.3, 0.2, 0.02, &box);
	imp_body_id id;
	bool ok = add(s.w, hwall, IMP_BODY_STATIC, imp_pose2_make(0.5 * ROOM_W, -0.5 * WALL, 0), imp_vec2_make(0, 0), 0, &id) &&
		  add(s.w, hwall, IMP_BODY_STATIC, imp_pose2_make(0.5 * ROOM_W, ROOM_H + 0.5 * WALL, 0), imp_vec2_make(0, 0), 0, &id) &&
		  add(s.w, vwall, IMP_BODY_STATIC, imp_pose2_make(-0.5 * WALL, 0.5 * ROOM_H, 0), imp_vec2_make(0, 0), 0, &id) &&
		  add(s.w, vwall, IMP_BODY_STATIC, imp_pose2_make(ROOM_W + 0.5 * WALL, 0.5 * ROOM_H, 0), imp_vec2_make(0, 0), 0, &id);
	// The movers on a grid, so that none starts overlapping another.
	int cols = smoke ? 8 : 16, rows = smoke ? 4 : 9, movers = 0;
	uint64_t seed = 7;
	imp_body_id *ids = malloc(sizeof *ids * (size_t)(cols * rows));
	for (int r = 0; r < rows && ok; r++) {
		for (int c = 0; c < cols && ok; c++) {
			double x = (c + 0.5) * ROOM_W / cols, y = (r + 0.5) * ROOM_H / rows;
			double speed = movers % 37 == 5 ? 2000.0 : 5.0 + 55.0 * next_unit(&seed);
			double a = 6.283185307179586 * next_unit(&seed);
			ok = add(s.w, (r + c) % 2 ? disc : box, IMP_BODY_DYNAMIC, imp_pose2_make(x, y, a),
				 imp_vec2_make(speed * cos(a), speed * sin(a)), (r + c) % 2 ? 0.0 : 4.0 * (next_unit(&seed) - 0.5),
				 &ids[movers]);
			movers++;
		}
	}
	if (!ok || ids == NULL) {
		fprintf(stderr, "simulation2d: could not build the scene\n");
		return 1;
	}
	imp_step_opts opts = imp_default_step_opts();
	opts.on_contact = on_contact;
	opts.user = &s;
	int steps = smoke ? 30 : 600, escaped = 0, total = 0, capped = 0, frames = 0;
	bool one_file = strlen(out) > 4 && !strcmp(out + strlen(out) - 4, ".svg");
	for (int k = 0; k < steps; k++) {
		s.contacts = 0;
		s.last_t = 0.0;
		imp_status st = imp_world_step(s.w, 1.0 / 60.0, &opts);
		if (st != IMP_OK) {
			fprintf(stderr, "simulation2d: step %d: %s\n", k, imp_status_string(st));
			return 1;
		}
		total += s.contacts;
		capped += imp_world_get_step_stats(s.w).state != IMP_STEP_COMPLETE;
		// Every mover must still be inside the room.
		for (int i = 0; i < movers; i++) {
			imp_pose2 p;
			imp_body_get_pose2(s.w, ids[i], &p);
			if (p.p.x < 0.0 || p.p.x > ROOM_W || p.p.y < 0.0 || p.p.y > ROOM_H)
				escaped++;
		}
		bool last = k + 1 == steps;
		if (!one_file && (k % (steps / 10 > 0 ? steps / 10 : 1) == 0 || last)) {
			char path[512];
			snprintf(path, sizeof path, "%s-%03d.svg", out, frames++);
			write_frame(&s, path, k, s.contacts);
		} else if (one_file && last) {
			write_frame(&s, out, k, s.contacts);
			frames = 1;
		}
	}
	printf("%d moving bodies (%d at 2000 units/s), %d steps of 1/60 s: %d contacts, all in time order: %s\n", movers,
	       (movers + 31) / 37, steps, total, s.out_of_order ? "NO" : "yes");
	printf("bodies found outside the room after a step: %d; steps that hit the per-pair cap: %d\n", escaped,
	       capped);
	printf("pictures: %d frame%s, %s%s\n", frames, frames == 1 ? "" : "s", out, one_file ? "" : "-NNN.svg");
	imp_world_destroy(s.w);
	imp_shape_destroy(hwall);
	imp_shape_destroy(vwall);
	imp_shape_destroy(disc);
	imp_shape_destroy(box);
	free(ids);
	return escaped == 0 && !s.out_of_order ? 0 : 1;
}
