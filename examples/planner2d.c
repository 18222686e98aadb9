// SPDX-License-Identifier: MIT
// A motion planner's questions about a path, asked of an impact world.
//
// A vehicle (a convex footprint) follows a sampled path through a field of
// static obstacles. For every pose along the path the program asks:
//   - is the pose free?                      imp_world_overlap_any2
//   - how far is the nearest obstacle, where? imp_world_nearest2
//   - is the motion to the next pose free?   imp_world_cast_shape2
// and prints the clearance profile and the first collision along the path.
// It writes an SVG picture of the scene: the footprint at every pose,
// coloured by its clearance (red: colliding, yellow: close, green: clear),
// the witness segment to the nearest obstacle every few poses, and the
// first contact.
//
// usage: planner2d [--smoke] [--out FILE.svg]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#define PI 3.14159265358979323846

/// A small deterministic generator, so that every run draws the same scene.
static double next_unit(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/// The path: a smooth curve across the field, heading along its tangent.
static imp_pose2 path_pose(double u)
{
	double x = 1.0 + 22.0 * u;
	double y = 7.0 + 3.5 * sin(2.0 * PI * u * 1.3) - 2.0 * u;
	double dx = 22.0, dy = 3.5 * 2.0 * PI * 1.3 * cos(2.0 * PI * u * 1.3) - 2.0;
	return imp_pose2_make(x, y, atan2(dy, dx));
}

/// Distance from (x, y) to the path's centre line (sampled).
static double path_gap(double x, double y)
{
	double best = INFINITY;
	for (int k = 0; k <= 400; k++) {
		imp_pose2 p = path_pose(k / 400.0);
		best = fmin(best, hypot(p.p.x - x, p.p.y - y));
	}
	return best;
}

/// The field: static boxes, discs and polygons, kept clear of a corridor
/// around the path, but for a few placed in it or at its edge (a planner's
/// path that is not free everywhere).
static int add_obstacles(imp_world *w, imp_shape **shapes, int max)
{
	uint64_t seed = 20261125;
	// Obstacles at the corridor: (u along the path, offset across it).
	const double intruders[4][2] = {{0.30, 0.75}, {0.52, -0.95}, {0.71, 0.35}, {0.86, -1.1}};
	int n = 0, tries = 0;
	while (n < max && tries++ < 100000) {
		double x = 0.5 + 23.0 * next_unit(&seed), y = 0.5 + 13.0 * next_unit(&seed);
		double size = 0.3 + 0.6 * next_unit(&seed);
		if (n < 4) {
			imp_pose2 p = path_pose(intruders[n][0]);
			x = p.p.x - intruders[n][1] * sin(p.q.s == 0.0 && p.q.c == 1.0 ? 0.0 : atan2(p.q.s, p.q.c));
			y = p.p.y + intruders[n][1] * cos(atan2(p.q.s, p.q.c));
			size = 0.45;
		} else if (path_gap(x, y) < size + 1.0) {
			continue;
		}
		imp_shape *s = NULL;
		int kind = (int)(3.0 * next_unit(&seed));
		if (kind == 0) {
			imp_shape_box2(size, 0.5 * size, 0.0, &s);
		} else if (kind == 1) {
			imp_shape_circle(imp_vec2_make(0, 0), 0.7 * size, &s);
		} else {
			imp_vec2 p[6];
			for (int k = 0; k < 6; k++) {
				double a = 2.0 * PI * (k + 0.4 * next_unit(&seed)) / 6.0;
				p[k] = imp_vec2_make(size * cos(a), size * sin(a));
			}
			imp_shape_polygon(p, 6, 0.05, &s);
		}
		if (s == NULL)
			return -1;
		imp_body_def d = imp_default_body_def();
		d.type = IMP_BODY_STATIC;
		d.shape = s;
		d.pose2 = imp_pose2_make(x, y, 2.0 * PI * next_unit(&seed));
		imp_body_id id;
		if (imp_world_add_body(w, &d, &id) != IMP_OK) {
			imp_shape_destroy(s);
			return -1;
		}
		shapes[n++] = s;
	}
	return n;
}

/// Red when colliding, through yellow at clearance 0.5, to green from 1.
static imp_color clearance_color(double d)
{
	if (d <= 0.0)
		return imp_color_make(0.85f, 0.1f, 0.1f, 1.0f);
	double t = fmin(d, 1.0);
	return t < 0.5 ? imp_color_make(0.95f, (float)(0.3 + 1.2 * t), 0.1f, 1.0f)
		       : imp_color_make((float)(0.95 - 1.6 * (t - 0.5)), 0.75f, 0.2f, 1.0f);
}

int main(int argc, char **argv)
{
	bool smoke = false;
	const char *out = "planner2d.svg";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke")) {
			smoke = true;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else {
			fprintf(stderr, "usage: planner2d [--smoke] [--out FILE.svg]\n");
			return 2;
		}
	}
	imp_world_def def = imp_default_world_def();
	def.dim = 2;
	imp_world *w = NULL;
	if (imp_world_create(&def, &w) != IMP_OK)
		return 1;
	enum { OBSTACLES = 70 };
	imp_shape *obstacles[OBSTACLES];
	int n = add_obstacles(w, obstacles, OBSTACLES);
	if (n < 0 || imp_world_update(w) != IMP_OK) {
		fprintf(stderr, "planner2d: could not build the scene\n");
		return 1;
	}
	// The footprint: a car of 1.2 x 0.6 with a pointed front.
	const imp_vec2 car[5] = {{-0.6, -0.3}, {0.4, -0.3}, {0.6, 0.0}, {0.4, 0.3}, {-0.6, 0.3}};
	imp_shape *footprint = NULL;
	if (imp_shape_polygon(car, 5, 0.02, &footprint) != IMP_OK)
		return 1;

	int poses = smoke ? 40 : 240;
	imp_svg *svg = NULL;
	imp_aabb2 view = {{0.0, 0.0}, {24.0, 14.0}};
	if (imp_svg_open(out, view, 1200, &svg) != IMP_OK) {
		fprintf(stderr, "planner2d: cannot write %s\n", out);
		return 1;
	}
	imp_debug_draw draw = imp_svg_draw(svg);
	imp_world_draw(w, &draw);

	int free_poses = 0, first_blocked = -1;
	double min_clearance = INFINITY, first_t = 1.0;
	imp_cast_hit first_hit = {.t = 1.0};
	printf("pose      x      y   free  clearance  nearest body\n");
	for (int i = 0; i < poses; i++) {
		imp_pose2 p = path_pose((double)i / (poses - 1));
		bool hit = false;
		imp_query_result near;
		if (imp_world_overlap_any(w, footprint, p, NULL, &hit) != IMP_OK ||
		    imp_world_nearest(w, footprint, p, INFINITY, NULL, &near) != IMP_OK) {
			fprintf(stderr, "planner2d: a query failed\n");
			return 1;
		}
		free_poses += !hit;
		min_clearance = fmin(min_clearance, near.distance);
		if (i % (poses / 20) == 0)
			printf("%4d %6.2f %6.2f %6s %10.4f  %u\n", i, p.p.x, p.p.y, hit ? "no" : "yes", near.distance,
			       near.body.index);
		if (i % 3 == 0)
			imp_draw_shape2(&draw, footprint, p, clearance_color(near.distance));
		if (i % 6 == 0)
			imp_draw_query_result(&draw, &near, imp_color_make(0.2f, 0.2f, 0.8f, 0.9f));
		// The motion to the next pose: its first contact.
		if (i + 1 < poses && first_blocked < 0) {
			imp_pose2 q = path_pose((double)(i + 1) / (poses - 1));
			imp_cast_hit c;
			if (imp_world_cast_shape(w, footprint, p, q, NULL, &c) != IMP_OK) {
				fprintf(stderr, "planner2d: a cast failed\n");
				return 1;
			}
			if (c.body.index != 0) {
				first_blocked = i;
				first_t = c.t;
				first_hit = c;
			}
		}
	}
	if (first_blocked >= 0) {
		imp_vec2 at = imp_vec2_make(first_hit.point.x, first_hit.point.y);
		draw.point(at, 0.3, imp_color_make(0.0f, 0.0f, 0.0f, 1.0f), draw.user);
		char label[96];
		snprintf(label, sizeof label, "first contact: step %d, t = %.3f", first_blocked, first_t);
		draw.text(imp_vec2_make(at.x + 0.2, at.y + 0.3), label, imp_color_make(0.0f, 0.0f, 0.0f, 1.0f), draw.user);
	}
	if (imp_svg_close(svg) != IMP_OK) {
		fprintf(stderr, "planner2d: writing %s failed\n", out);
		return 1;
	}
	printf("\n%d obstacles, %d poses: %d free, smallest clearance %.4f\n", n, poses, free_poses, min_clearance);
	if (first_blocked >= 0)
		printf("first collision along the path: moving from pose %d to %d, at t = %.4f of that step\n",
		       first_blocked, first_blocked + 1, first_t);
	else
		printf("the whole path is free\n");
	printf("picture: %s\n", out);
	imp_shape_destroy(footprint);
	imp_world_destroy(w);
	for (int i = 0; i < n; i++)
		imp_shape_destroy(obstacles[i]);
	return 0;
}
