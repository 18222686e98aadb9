// SPDX-License-Identifier: MIT
// Brute-force separating-axis test for two convex polygons, the SAT row of
// the barycode paper's Level-1 tables (Gottschalk 1996). Like impact it starts
// from local vertices and poses, so it pays for moving them to the world.
#include <stdbool.h>

#include "peers.h"

/// True when an outward edge normal of p (world, CCW) has all of q beyond p.
static bool some_normal_separates(const imp_vec2 *p, int np, const imp_vec2 *q, int nq)
{
	for (int i = 0; i < np; i++) {
		imp_vec2 p0 = p[i];
		imp_vec2 p1 = p[i + 1 == np ? 0 : i + 1];
		// Outward normal of a CCW edge, unnormalised: only signs matter.
		imp_vec2 n = imp_vec2_make(p1.y - p0.y, p0.x - p1.x);
		double p_max = imp_vec2_dot(n, p0);
		int j = 0;
		while (j < nq && imp_vec2_dot(n, q[j]) > p_max)
			j++;
		if (j == nq)
			return true;
	}
	return false;
}

bool sat2d_overlap(const imp_vec2 *va, int na, imp_pose2 pa, const imp_vec2 *vb, int nb, imp_pose2 pb)
{
	imp_vec2 a[DS_MAX_VERTICES], b[DS_MAX_VERTICES];
	for (int i = 0; i < na; i++)
		a[i] = imp_pose2_apply(pa, va[i]);
	for (int i = 0; i < nb; i++)
		b[i] = imp_pose2_apply(pb, vb[i]);
	return !some_normal_separates(a, na, b, nb) && !some_normal_separates(b, nb, a, na);
}
