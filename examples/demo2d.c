// SPDX-License-Identifier: MIT
// The 2D queries at work: a few shape pairs, their distance, witness points,
// normal and closest features, at the three levels of answer, with timings.
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#include <impact/impact.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static const char *feature_name(imp_feature f)
{
	switch (f.kind) {
	case IMP_FEATURE_VERTEX: return "vertex";
	case IMP_FEATURE_EDGE: return "edge";
	case IMP_FEATURE_FACE: return "face";
	default: return "-";
	}
}

/// Median-free quick timing: the mean of many calls of one query.
static double time_overlap(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	enum { N = 200000 };
	volatile int sink = 0;
	double t0 = now_ns();
	for (int i = 0; i < N; ++i)
		sink += imp_overlap2(a, pa, b, pb, NULL);
	(void)sink;
	return (now_ns() - t0) / N;
}

static double time_distance(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	enum { N = 200000 };
	volatile double sink = 0;
	double t0 = now_ns();
	for (int i = 0; i < N; ++i)
		sink += imp_distance2(a, pa, b, pb, NULL);
	(void)sink;
	return (now_ns() - t0) / N;
}

static double time_closest(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	enum { N = 200000 };
	volatile double sink = 0;
	imp_closest2_result r;
	double t0 = now_ns();
	for (int i = 0; i < N; ++i) {
		imp_closest2(a, pa, b, pb, NULL, &r);
		sink += r.distance;
	}
	(void)sink;
	return (now_ns() - t0) / N;
}

static void show(const char *name, const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	imp_closest2_result r;
	imp_status st = imp_closest2(a, pa, b, pb, NULL, &r);
	if (st != IMP_OK) {
		printf("%-28s error: %s\n", name, imp_status_string(st));
		return;
	}
	printf("%-28s %-11s d = %+.6f  a = (%.4f, %.4f) %s %d  b = (%.4f, %.4f) %s %d  n = (%.3f, %.3f)\n", name,
	       imp_query_state_string(r.state), r.distance, r.point_a.x, r.point_a.y, feature_name(r.feature_a),
	       r.feature_a.index, r.point_b.x, r.point_b.y, feature_name(r.feature_b), r.feature_b.index, r.normal.x,
	       r.normal.y);
	printf("%-28s overlap %s, distance %.6f; ns/query: L1 %.1f  L2 %.1f  L3 %.1f\n", "",
	       imp_overlap2(a, pa, b, pb, NULL) ? "yes" : "no", imp_distance2(a, pa, b, pb, NULL),
	       time_overlap(a, pa, b, pb), time_distance(a, pa, b, pb), time_closest(a, pa, b, pb));
}

int main(void)
{
	imp_shape *box = NULL, *tri = NULL, *disc = NULL, *cap = NULL, *hex = NULL;
	imp_vec2 t[3] = {{0, 0}, {2, 0}, {1, 1.5}};
	imp_vec2 h[6];
	for (int i = 0; i < 6; ++i)
		h[i] = imp_vec2_make(cos(i * 1.0471975511965976), sin(i * 1.0471975511965976));
	if (imp_shape_box2(1.0, 0.5, 0.0, &box) != IMP_OK || imp_shape_polygon(t, 3, 0.0, &tri) != IMP_OK ||
	    imp_shape_circle(imp_vec2_make(0, 0), 0.75, &disc) != IMP_OK ||
	    imp_shape_capsule2(imp_vec2_make(-1, 0), imp_vec2_make(1, 0), 0.25, &cap) != IMP_OK ||
	    imp_shape_polygon(h, 6, 0.1, &hex) != IMP_OK) {
		fprintf(stderr, "could not make the shapes\n");
		return 1;
	}
	printf("impact %d.%d.%d: 2D pairwise queries (barycode GJK)\n\n", IMP_VERSION_MAJOR, IMP_VERSION_MINOR,
	       IMP_VERSION_PATCH);
	show("box vs triangle, apart", box, imp_pose2_make(0, 0, 0.3), tri, imp_pose2_make(2.5, 0.8, -0.2));
	show("box vs disc, overlapping", box, imp_pose2_make(0, 0, 0), disc, imp_pose2_make(1.2, 0.6, 0));
	show("capsule vs hexagon, apart", cap, imp_pose2_make(0, 0, 0.8), hex, imp_pose2_make(0.5, 2.6, 0.1));
	show("box vs box, touching", box, imp_pose2_make(0, 0, 0), box, imp_pose2_make(2, 0.25, 0));
	show("triangle vs hexagon, deep", tri, imp_pose2_make(0, 0, 0), hex, imp_pose2_make(1, 0.5, 0.4));
	imp_shape_destroy(box);
	imp_shape_destroy(tri);
	imp_shape_destroy(disc);
	imp_shape_destroy(cap);
	imp_shape_destroy(hex);
	return 0;
}
