// SPDX-License-Identifier: MIT
// bench/python/c_side: the C half of bench/python/bench_python.py. It reads
// the scene the Python script wrote (the bodies' shapes and poses, the
// query shapes, the query poses), builds the same world as the script does
// through impact_collision.World (imp_default_world_def, its dim, static
// bodies, the default filter, one update), and times the world queries
// imp_world_overlap_any2/3 and imp_world_nearest2/3 over the same poses:
// the same calls the module makes, on identical data.
//
// The scene file is little-endian float64 throughout (numpy's tofile):
//   header  8 values: magic 0x1A5C3E (as a double), version 1, dim, n, nqs, nq, 0, 0
//   bodies  n rows of 12: kind (0 box, 1 sphere/disc), hx, hy, hz, radius, pose[7]
//   shapes  nqs rows of 5: kind, hx, hy, hz, radius (the query shapes)
//   poses   nq rows of 7 (the query poses)
// A 3D pose is x y z qx qy qz qw; a 2D pose is x y angle in its first three.
// Poses are made exactly as the module makes them (imp_pose2_make from the
// angle, imp_quat_make from the four numbers as given).
//
// usage:
//   c_side SCENE --serve      commands on standard input, one answer line each:
//                             "single any|nearest Q N"  a loop of single calls over poses 0..N-1
//                             "rows any|nearest Q N"    the same loop, each pose made from its row in the loop
//                             "batch any|nearest Q N"   one imp_world_*_batch call over poses 0..N-1
//                             with query shape Q; answers "NS_PER_CALL CHECK_HITS CHECK_INDEX CHECK_DIST"
//                             (the hits, the sum of the nearest bodies' indices, the sum of the
//                             nearest distances in pose order, %.17g); "quit" ends.
//   c_side SCENE [--reps R] [--single N] [--batch M]
//                             standalone: each measurement R times (default 7), prints the medians.
//
// Timing: CLOCK_MONOTONIC around the whole loop; the poses are made into
// imp_pose2/3 structs before the clock starts (except "rows").
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#include "../bench_util.h"

#define MAGIC ((double)0x1A5C3E)
#define BODY_COLS 12
#define SHAPE_COLS 5

typedef struct scene {
	int dim, n, nqs, nq;
	double *body_rows;  ///< n x BODY_COLS
	double *shape_rows; ///< nqs x SHAPE_COLS
	double *pose_rows;  ///< nq x 7
	imp_shape **body_shapes;
	imp_shape **query_shapes;
	imp_pose2 *q2; ///< the query poses as structs
	imp_pose3 *q3;
	imp_world *world;
	bool *any_out;
	imp_query_result *near_out;
} scene;

static int fail(const char *what)
{
	fprintf(stderr, "c_side: %s\n", what);
	return 1;
}

static imp_shape *make_shape(int dim, const double *r)
{
	imp_shape *s = NULL;
	imp_status st;
	int kind = (int)r[0];
	if (dim == 2)
		st = kind == 0 ? imp_shape_box2(r[1], r[2], 0.0, &s) : imp_shape_circle(imp_vec2_make(0, 0), r[4], &s);
	else
		st = kind == 0 ? imp_shape_box3(r[1], r[2], r[3], 0.0, &s) : imp_shape_sphere(imp_vec3_make(0, 0, 0), r[4], &s);
	return st == IMP_OK ? s : NULL;
}

static imp_pose2 row_pose2(const double *r)
{
	return imp_pose2_make(r[0], r[1], r[2]);
}

static imp_pose3 row_pose3(const double *r)
{
	imp_pose3 p = {imp_vec3_make(r[0], r[1], r[2]), imp_quat_make(r[3], r[4], r[5], r[6])};
	return p;
}

static double *read_doubles(FILE *f, size_t count)
{
	double *d = malloc((count ? count : 1) * sizeof *d);
	if (d && fread(d, sizeof *d, count, f) != count) {
		free(d);
		return NULL;
	}
	return d;
}

static int scene_load(scene *sc, const char *path)
{
	memset(sc, 0, sizeof *sc);
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail("cannot open the scene file");
	double h[8];
	if (fread(h, sizeof h[0], 8, f) != 8 || h[0] != MAGIC || h[1] != 1.0) {
		fclose(f);
		return fail("not a scene file of version 1");
	}
	sc->dim = (int)h[2];
	sc->n = (int)h[3];
	sc->nqs = (int)h[4];
	sc->nq = (int)h[5];
	if ((sc->dim != 2 && sc->dim != 3) || sc->n < 0 || sc->nqs < 1 || sc->nq < 1) {
		fclose(f);
		return fail("bad scene header");
	}
	sc->body_rows = read_doubles(f, (size_t)sc->n * BODY_COLS);
	sc->shape_rows = sc->body_rows ? read_doubles(f, (size_t)sc->nqs * SHAPE_COLS) : NULL;
	sc->pose_rows = sc->shape_rows ? read_doubles(f, (size_t)sc->nq * 7) : NULL;
	fclose(f);
	if (!sc->pose_rows)
		return fail("short scene file");

	sc->body_shapes = calloc((size_t)sc->n + 1, sizeof *sc->body_shapes);
	sc->query_shapes = calloc((size_t)sc->nqs, sizeof *sc->query_shapes);
	sc->q2 = calloc((size_t)sc->nq, sizeof *sc->q2);
	sc->q3 = calloc((size_t)sc->nq, sizeof *sc->q3);
	sc->any_out = calloc((size_t)sc->nq, sizeof *sc->any_out);
	sc->near_out = calloc((size_t)sc->nq, sizeof *sc->near_out);
	if (!sc->body_shapes || !sc->query_shapes || !sc->q2 || !sc->q3 || !sc->any_out || !sc->near_out)
		return fail("out of memory");

	imp_world_def def = imp_default_world_def();
	def.dim = sc->dim;
	if (imp_world_create(&def, &sc->world) != IMP_OK)
		return fail("imp_world_create failed");
	for (int i = 0; i < sc->n; i++) {
		const double *r = sc->body_rows + (size_t)i * BODY_COLS;
		sc->body_shapes[i] = make_shape(sc->dim, r);
		if (!sc->body_shapes[i])
			return fail("a body's shape was refused");
		imp_body_def bd = imp_default_body_def();
		bd.type = IMP_BODY_STATIC;
		bd.shape = sc->body_shapes[i];
		if (sc->dim == 2)
			bd.pose2 = row_pose2(r + 5);
		else
			bd.pose3 = row_pose3(r + 5);
		imp_body_id id;
		if (imp_world_add_body(sc->world, &bd, &id) != IMP_OK)
			return fail("imp_world_add_body failed");
	}
	if (imp_world_update(sc->world) != IMP_OK)
		return fail("imp_world_update failed");
	for (int k = 0; k < sc->nqs; k++) {
		sc->query_shapes[k] = make_shape(sc->dim, sc->shape_rows + (size_t)k * SHAPE_COLS);
		if (!sc->query_shapes[k])
			return fail("a query shape was refused");
	}
	for (int i = 0; i < sc->nq; i++) {
		if (sc->dim == 2)
			sc->q2[i] = row_pose2(sc->pose_rows + (size_t)i * 7);
		else
			sc->q3[i] = row_pose3(sc->pose_rows + (size_t)i * 7);
	}
	return 0;
}

static void scene_free(scene *sc)
{
	imp_world_destroy(sc->world);
	for (int i = 0; sc->body_shapes && i < sc->n; i++)
		imp_shape_destroy(sc->body_shapes[i]);
	for (int k = 0; sc->query_shapes && k < sc->nqs; k++)
		imp_shape_destroy(sc->query_shapes[k]);
	free(sc->body_shapes);
	free(sc->query_shapes);
	free(sc->body_rows);
	free(sc->shape_rows);
	free(sc->pose_rows);
	free(sc->q2);
	free(sc->q3);
	free(sc->any_out);
	free(sc->near_out);
}

typedef enum mode { SINGLE, ROWS, BATCH } mode;

typedef struct answer {
	double ns_per_call;
	long hits;
	unsigned long long index_sum;
	double dist_sum;
	int status; ///< the first status other than IMP_OK, else IMP_OK
} answer;

/// One timed run of `nearest` (else overlap_any) with query shape q over
/// poses 0..count-1, in `m`.
static answer run(scene *sc, mode m, bool nearest, int q, int count)
{
	answer a = {0};
	const imp_world *w = sc->world;
	const imp_shape *s = sc->query_shapes[q];
	const imp_query_filter qf = imp_default_query_filter();
	bool d2 = sc->dim == 2;
	int bad = IMP_OK;
	double t0 = bench_now_ns();
	if (m == BATCH) {
		if (nearest)
			bad = d2 ? imp_world_nearest_batch2(w, s, sc->q2, count, INFINITY, &qf, sc->near_out)
				 : imp_world_nearest_batch3(w, s, sc->q3, count, INFINITY, &qf, sc->near_out);
		else
			bad = d2 ? imp_world_overlap_any_batch2(w, s, sc->q2, count, &qf, sc->any_out)
				 : imp_world_overlap_any_batch3(w, s, sc->q3, count, &qf, sc->any_out);
	} else {
		for (int i = 0; i < count; i++) {
			imp_status st;
			imp_pose2 p2;
			imp_pose3 p3;
			if (m == ROWS) {
				if (d2)
					p2 = row_pose2(sc->pose_rows + (size_t)i * 7);
				else
					p3 = row_pose3(sc->pose_rows + (size_t)i * 7);
			} else if (d2) {
				p2 = sc->q2[i];
			} else {
				p3 = sc->q3[i];
			}
			if (nearest)
				st = d2 ? imp_world_nearest2(w, s, p2, INFINITY, &qf, &sc->near_out[i])
					: imp_world_nearest3(w, s, p3, INFINITY, &qf, &sc->near_out[i]);
			else
				st = d2 ? imp_world_overlap_any2(w, s, p2, &qf, &sc->any_out[i])
					: imp_world_overlap_any3(w, s, p3, &qf, &sc->any_out[i]);
			if (st != IMP_OK && bad == IMP_OK)
				bad = st;
		}
	}
	double t1 = bench_now_ns();
	a.ns_per_call = (t1 - t0) / count;
	a.status = bad;
	for (int i = 0; i < count; i++) {
		if (nearest) {
			a.index_sum += sc->near_out[i].body.index;
			a.dist_sum += sc->near_out[i].distance;
			a.hits += sc->near_out[i].distance <= 0.0;
		} else {
			a.hits += sc->any_out[i];
		}
	}
	return a;
}

static bool parse_command(const scene *sc, const char *line, mode *m, bool *nearest, int *q, int *count)
{
	char ms[16], op[16];
	if (sscanf(line, "%15s %15s %d %d", ms, op, q, count) != 4)
		return false;
	if (strcmp(ms, "single") == 0)
		*m = SINGLE;
	else if (strcmp(ms, "rows") == 0)
		*m = ROWS;
	else if (strcmp(ms, "batch") == 0)
		*m = BATCH;
	else
		return false;
	if (strcmp(op, "any") == 0)
		*nearest = false;
	else if (strcmp(op, "nearest") == 0)
		*nearest = true;
	else
		return false;
	return *q >= 0 && *q < sc->nqs && *count >= 1 && *count <= sc->nq;
}

static int serve(scene *sc)
{
	char line[256];
	while (fgets(line, sizeof line, stdin)) {
		if (strncmp(line, "quit", 4) == 0)
			break;
		mode m;
		bool nearest;
		int q, count;
		if (!parse_command(sc, line, &m, &nearest, &q, &count)) {
			printf("error bad command\n");
			fflush(stdout);
			continue;
		}
		answer a = run(sc, m, nearest, q, count);
		if (a.status != IMP_OK)
			printf("error %s\n", imp_status_string(a.status));
		else
			printf("%.3f %ld %llu %.17g\n", a.ns_per_call, a.hits, a.index_sum, a.dist_sum);
		fflush(stdout);
	}
	return 0;
}

static int standalone(scene *sc, int reps, int single_n, int batch_n)
{
	static const char *const mode_names[3] = {"single", "rows", "batch"};
	printf("c_side: %dD world of %d bodies, %d query poses; medians of %d runs, ns per call\n", sc->dim, sc->n,
	       sc->nq, reps);
	printf("| query shape | op | single calls | rows | batch call | hits |\n| --- | --- | ---: | ---: | ---: | ---: |\n");
	double *t = malloc((size_t)reps * sizeof *t);
	if (!t)
		return fail("out of memory");
	for (int q = 0; q < sc->nqs; q++) {
		for (int op = 0; op < 2; op++) {
			printf("| %d | %s |", q, op ? "nearest" : "overlap_any");
			long hits = 0;
			for (int m = 0; m < 3; m++) {
				int count = m == BATCH ? batch_n : single_n;
				for (int r = 0; r < reps; r++) {
					answer a = run(sc, (mode)m, op == 1, q, count);
					if (a.status != IMP_OK) {
						free(t);
						fprintf(stderr, "c_side: %s %s: %s\n", mode_names[m], op ? "nearest" : "any",
							imp_status_string(a.status));
						return 1;
					}
					t[r] = a.ns_per_call;
					hits = a.hits;
				}
				bench_put_ns(stdout, bench_median(t, reps));
			}
			printf(" %ld |\n", hits);
		}
	}
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return fail("usage: c_side SCENE (--serve | [--reps R] [--single N] [--batch M])");
	bool serve_mode = false;
	int reps = 7, single_n = 10000, batch_n = 100000;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--serve") == 0)
			serve_mode = true;
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc && bench_parse_int(argv[i + 1], 1, 1000, &reps))
			i++;
		else if (strcmp(argv[i], "--single") == 0 && i + 1 < argc &&
			 bench_parse_int(argv[i + 1], 1, 1 << 30, &single_n))
			i++;
		else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc &&
			 bench_parse_int(argv[i + 1], 1, 1 << 30, &batch_n))
			i++;
		else
			return fail("unknown argument");
	}
	scene sc;
	int rc = scene_load(&sc, argv[1]);
	if (rc == 0) {
		if (single_n > sc.nq)
			single_n = sc.nq;
		if (batch_n > sc.nq)
			batch_n = sc.nq;
		rc = serve_mode ? serve(&sc) : standalone(&sc, reps, single_n, batch_n);
	}
	scene_free(&sc);
	return rc;
}
