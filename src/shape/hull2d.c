// SPDX-License-Identifier: MIT
// Convex hull of a 2D point set: Andrew's monotone chain, O(n log n).
#include <stdlib.h>
#include <string.h>

#include "shape/shape_internal.h"

static int compare_points(const void *pa, const void *pb)
{
	const imp_vec2 *a = pa, *b = pb;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return 0;
}

/// True when c makes a strict left turn at b coming from a. Turns within a
/// relative 1e-14 of straight count as straight, so nearly collinear points
/// are dropped: each moves the boundary by at most 1e-14 of its distance.
static bool turns_left(imp_vec2 a, imp_vec2 b, imp_vec2 c)
{
	imp_vec2 u = imp_vec2_sub(b, a), w = imp_vec2_sub(c, a);
	double cr = imp_vec2_cross(u, w);
	if (cr <= 0.0)
		return false;
	double tol = 1e-14;
	// cr * (cr / |u|^2) grows as the square of the coordinates, not the
	// fourth power, so this holds from 1e-150 to 1e150.
	return cr * (cr / imp_vec2_dot(u, u)) > tol * tol * imp_vec2_dot(w, w);
}

int imp_hull2(const imp_vec2 *points, int count, imp_vec2 *work, imp_vec2 *out)
{
	memcpy(work, points, (size_t)count * sizeof *work);
	qsort(work, (size_t)count, sizeof *work, compare_points);
	int n = 0;
	for (int i = 0; i < count; ++i)
		if (n == 0 || compare_points(&work[n - 1], &work[i]) != 0)
			work[n++] = work[i];
	if (n == 1) {
		out[0] = work[0];
		return 1;
	}
	int k = 0;
	for (int i = 0; i < n; ++i) {
		while (k >= 2 && !turns_left(out[k - 2], out[k - 1], work[i]))
			--k;
		out[k++] = work[i];
	}
	for (int i = n - 2, lower = k + 1; i >= 0; --i) {
		while (k >= lower && !turns_left(out[k - 2], out[k - 1], work[i]))
			--k;
		out[k++] = work[i];
	}
	return k - 1;
}
