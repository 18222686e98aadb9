// SPDX-License-Identifier: MIT
// Penetration of two overlapping polygon cores by one walk around their
// Minkowski difference C = A - B. C's edges are A's edges and -B's edges,
// merged by angle (the Minkowski sum construction); the origin is inside C,
// so the penetration depth is the least distance from the origin to the
// line of an edge of C, and that edge gives the normal and the witnesses.
//
// Why not only the expanding polygon (epa2d.c) for polygons: each EPA step
// waits on a support search and a division before the next can start (7.4
// steps on the benchmark's overlapping 24-gons); the walk visits the
// na + nb edges once, with no search, and is exact: it needs no tolerance.
// bench/narrow2d's Level 3 table has both: the walk is 16-27% faster on
// every overlapping cell. EPA remains for user shapes, which have no edges,
// for polygons too large for the walk's buffers, and as an option for
// polygons (IMP_PENETRATION_EPA), against which the tests check the walk.
#include <math.h>

#include "narrow/gjk2d_internal.h"

/// The vertex of the ring farthest along d, moved back to the first vertex
/// of a tie, so that the walk starts at the start of every edge of C whose
/// direction is d turned a quarter counter-clockwise.
static int support_first(const imp_vec2 *v, int n, imp_vec2 d)
{
	int i = imp_support_brute(v, n, d);
	int k = i == 0 ? n - 1 : i - 1;
	if (n >= 2 && imp_vec2_dot(v[k], d) >= imp_vec2_dot(v[i], d))
		i = k;
	return i;
}

/// Where a ring of n edge angles ang[0..n) must start its walk: at its
/// least angle, found as the edge after the ring's largest drop (its
/// angles rise around the ring but at the wrap). Not the first least
/// angle: two edges of a needle, at its two ends, can turn by 1e-22 of a
/// turn, and their angles are then equal; the first of them in the array
/// may be the later on the ring, and the earlier one waited to the end of
/// the walk. A segment across a polygon 1.6e28 long then answered depth 0
/// with its far end as the witness, 9.7e19 off along the normal (fuzz
/// finding 69).
static int least_angle(const double *ang, int n)
{
	if (n < 2)
		return 0; // no edge (a point), or one
	int k0 = 0;
	double drop = ang[n - 1] - ang[0];
	for (int k = 1; k < n; ++k) {
		double d = ang[k - 1] - ang[k];
		k0 = d > drop ? k : k0;
		drop = d > drop ? d : drop;
	}
	return k0;
}

/// Turns a ring's n edges and their angles to start at edge k0 (rare: a
/// sliver's tip; see imp_walk2_rings).
static IMP_NOINLINE void rotate_ring(imp_vec2 *e, double *ang, int n, int k0)
{
	imp_vec2 te[IMP_WALK_MAX_EDGES];
	double ta[IMP_WALK_MAX_EDGES];
	for (int k = 0; k < n; ++k) {
		int from = k + k0 < n ? k + k0 : k + k0 - n;
		te[k] = e[from];
		ta[k] = ang[from];
	}
	for (int k = 0; k < n; ++k) {
		e[k] = te[k];
		ang[k] = ta[k];
	}
}

/// Whether the walk's next edge of C, with i of a's ea edges and j of -b's
/// eb edges taken, is a's: the edge that turns least comes first. With a
/// segment, by angle: a cross product alone cannot order edges half a turn
/// apart, whose cross product is 0 as that of parallel ones; nearly equal
/// angles are still ordered by the cross product, exact to rounding. Ties
/// (parallel edges) take a's first, then b's on the same line. Needs
/// i < ea or j < eb.
IMP_ALWAYS_INLINE bool take_a_edge(const imp_vec2 *e, const double *ang, int ea, int eb, bool by_angle, int i, int j)
{
	if (!by_angle) {
		// Without branches: which ring's edge comes next is a coin toss
		// for the branch predictor. Both reads stay in the array (its
		// last edge stands in for an exhausted ring's).
		int last = ea + eb - 1;
		int ic = i < ea ? i : last, jc = j < eb ? ea + j : last;
		double cr = imp_vec2_cross(e[ic], e[jc]);
		return (i < ea) & ((j == eb) | (cr >= 0.0));
	}
	if (i == ea)
		return false;
	if (j == eb)
		return true;
	double cr = imp_vec2_cross(e[i], e[ea + j]);
	double da = ang[i], db = ang[ea + j];
	return da < db - 1e-9 || (da <= db + 1e-9 && cr >= 0.0);
}

/// One step of the walk: edge k of e[] (i of a's and j of -b's taken
/// before it), starting at u.
typedef struct walk_step {
	int k, i, j;
	imp_vec2 u;
} walk_step;

/// The step before or after `at` (after: forward) in the walk, around the
/// ring of C's edges: found by walking again from the start u0.
static walk_step walk_neighbour(const imp_vec2 *e, const double *ang, int ea, int eb, bool by_angle, imp_vec2 u0,
				walk_step at, bool forward)
{
	walk_step prev = {-1, 0, 0, u0}, first = prev, cur;
	imp_vec2 u = u0;
	bool seen = false;
	for (int i = 0, j = 0; i < ea || j < eb;) {
		bool ta = take_a_edge(e, ang, ea, eb, by_angle, i, j);
		cur = (walk_step){ta ? i : ea + j, i, j, u};
		if (first.k < 0)
			first = cur;
		if (seen)
			return cur; // the one after `at`
		if (cur.i == at.i && cur.j == at.j) {
			if (!forward && prev.k >= 0)
				return prev;
			seen = forward;
		}
		prev = cur;
		u = imp_vec2_add(u, e[cur.k]);
		i += ta;
		j += !ta;
	}
	// Around the ring: after the last edge comes the first, before the
	// first the last.
	return forward ? first : prev;
}

void imp_walk2(const imp_gjk2_ctx *c, imp_epa2_result *out)
{
	imp_walk2_rings(c->a.v, c->a.n, c->b.shape->v, c->b.n, c->q, c->p, c->a.shape->sharp || c->b.shape->sharp,
			out);
}

void imp_walk2_rings(const imp_vec2 *va, int na, const imp_vec2 *vb, int nb, imp_rot2 q, imp_vec2 p_b, bool sharp,
		     imp_epa2_result *out)
{
	const int ea = na >= 2 ? na : 0, eb = nb >= 2 ? nb : 0;

	// Start at C's vertex farthest along -x: a's support along -x and b's
	// along +x (in b's own frame).
	int i0 = support_first(va, na, imp_vec2_make(-1.0, 0.0));
	int j0 = support_first(vb, nb, imp_rot2_apply_inv(q, imp_vec2_make(1.0, 0.0)));
	// Both rings' edges in walk order in one array (a's, then -b's, in a's
	// frame), so that each step picks its edge by index, with their squared
	// lengths and their angles from the start's tangent (0, -1), as
	// pseudo-angles in [0, 4): nondecreasing along each ring. (A branch-free
	// merge and a merge split from the distances both measured slower: the
	// branches let the CPU run ahead.)
	imp_vec2 e[IMP_WALK_MAX_EDGES];
	double len2[IMP_WALK_MAX_EDGES], ang[IMP_WALK_MAX_EDGES];
	// Two candidate edges are less than a half turn apart when both rings
	// have 3 or more vertices (a convex ring turns by less than a half turn
	// at a vertex), and a cross product orders them; a segment turns by
	// exactly a half turn, and then only the angles can; so does a sharp
	// ring's tip, by as little as rounding (IMP_SHARP_TIP).
	const bool by_angle = na == 2 || nb == 2 || sharp;
	for (int k = 0, i = i0; k < ea; ++k) {
		int i1 = i + 1 == na ? 0 : i + 1;
		e[k] = imp_vec2_sub(va[i1], va[i]);
		i = i1;
	}
	for (int k = 0, j = j0; k < eb; ++k) {
		int j1 = j + 1 == nb ? 0 : j + 1;
		e[ea + k] = imp_rot2_apply(q, imp_vec2_sub(vb[j], vb[j1]));
		j = j1;
	}
	if (by_angle) {
		// Merged by angle, each ring must start at its edge of least angle
		// from the tangent. The support's tie test decides the start by dot
		// products, which round: on a sliver the short edge at the tip can
		// lie a hair before the tangent and still be taken first; its angle
		// is then nearly 4, and every edge of the ring waited behind it (a
		// capsule across a box 1e-94 thin: depth 0, a witness at the box's
		// end). Such a ring is turned to start at its least angle. So is a
		// ring of two (a segment, or a box thinner than 1e-17 of its
		// length, kept as two points), whose vertices tie along its normal,
		// so that "the first of the tie" means nothing: it starts at the
		// edge of the lesser angle. (A test of one edge's angle against a
		// half turn, 2, did this before: a nearly vertical edge's angle
		// 2 - 1e-300 rounds to 2, the ring started at its other edge, of
		// angle 4, which the merge took last, and a segment across such a
		// box answered depth 0 with normal . (b - a) = 1; issue 20, defect
		// 18.) (The angles do not change under the power-of-two scaling
		// below.)
		for (int k = 0; k < ea + eb; ++k)
			ang[k] = imp_pseudo_angle(imp_vec2_make(-e[k].y, e[k].x));
		int ka = least_angle(ang, ea), kb = least_angle(ang + ea, eb);
		if (ka != 0) {
			rotate_ring(e, ang, ea, ka);
			i0 = (i0 + ka) % na;
		}
		if (kb != 0) {
			rotate_ring(e + ea, ang + ea, eb, kb);
			j0 = (j0 + kb) % nb;
		}
	}
	imp_vec2 u0 = imp_vec2_sub(va[i0], imp_vec2_add(imp_rot2_apply(q, vb[j0]), p_b));
	// The squares below leave double's range for edges shorter than 1e-154
	// or longer than 1e154 (a 1e-200 segment gave a depth of -inf, issue
	// 20, defect 6): such scenes are scaled by a power of two (exact) to
	// unit size, and back at the end. An edge whose square still vanishes
	// against the others' has no line to speak of and is never the nearest.
	double m = imp_max(fabs(u0.x), fabs(u0.y));
	for (int k = 0; k < ea + eb; ++k)
		m = imp_max(m, imp_max(fabs(e[k].x), fabs(e[k].y)));
	double scale = 1.0;
	if (m > 0.0 && (m < 0x1p-400 || m > 0x1p400)) {
		scale = imp_unit_scale2(m);
		u0 = imp_vec2_scale(scale, u0);
		for (int k = 0; k < ea + eb; ++k)
			e[k] = imp_vec2_scale(scale, e[k]);
	}
	for (int k = 0; k < ea + eb; ++k)
		len2[k] = imp_vec2_dot(e[k], e[k]);
	imp_vec2 u = u0;

	double best = INFINITY;
	int best_k = 0, best_i = 0, best_j = 0;
	imp_vec2 best_u = u;
	for (int i = 0, j = 0; i < ea || j < eb;) {
		bool take_a = take_a_edge(e, ang, ea, eb, by_angle, i, j);
		int k = take_a ? i : ea + j;
		imp_vec2 ek = e[k];
		// Distance from the origin to the edge's line (outward normal: the
		// edge turned clockwise; the ring is counter-clockwise), squared
		// with its sign: the divisions of successive steps do not wait on
		// each other, and no square root is taken until the end.
		double hk = u.x * ek.y - u.y * ek.x;
		double h = hk / len2[k] * (hk < 0.0 ? -hk : hk); // in this order: no overflow
		bool better = h < best && len2[k] > 0.0;
		best = better ? h : best;
		best_k = better ? k : best_k;
		best_i = better ? i : best_i;
		best_j = better ? j : best_j;
		best_u.x = better ? u.x : best_u.x;
		best_u.y = better ? u.y : best_u.y;
		u = imp_vec2_add(u, ek);
		i += take_a;
		j += !take_a;
	}

	out->iterations = 1; // one pass, not an iteration that can be cut short
	out->limit = false;
	if (ea + eb == 0 || best == INFINITY) {
		// Two points on each other (or edges too short for a line): C is
		// the origin alone.
		int ia = i0, ib = j0;
		out->e0 = out->e1 = (imp_svert2){imp_vec2_scale(1.0 / scale, u0), va[ia], ia, ib};
		out->normal = imp_vec2_make(1.0, 0.0);
		out->depth = 0.0;
		out->t = 0.0;
		return;
	}
	walk_step at = {best_k, best_i, best_j, best_u};
	imp_vec2 be = e[best_k];
	double t = -imp_vec2_dot(best_u, be) / len2[best_k];
	if (t > 1.0 || t < 0.0) {
		// The origin's foot lies beyond the nearest line's edge: an edge
		// next to it on the same line (parallel edges of a and -b), or
		// nearly so, holds it, and rounding (or the tie) made that one
		// look no nearer. The answer's witnesses are on it.
		walk_step nb_step = walk_neighbour(e, ang, ea, eb, by_angle, u0, at, t > 1.0);
		imp_vec2 ne = e[nb_step.k];
		double nt = -imp_vec2_dot(nb_step.u, ne) / len2[nb_step.k];
		if (nt >= 0.0 && nt <= 1.0 && len2[nb_step.k] > 0.0) {
			at = nb_step;
			be = ne;
			t = nt;
			double hk = nb_step.u.x * ne.y - nb_step.u.y * ne.x;
			best = hk / len2[nb_step.k] * (hk < 0.0 ? -hk : hk);
		}
	}
	// Vertex indices of the edge's start on each ring.
	int ia = i0 + at.i, ib = j0 + at.j;
	ia -= ia >= na ? na : 0;
	ib -= ib >= nb ? nb : 0;
	imp_svert2 *e0 = &out->e0, *e1 = &out->e1;
	e0->ia = e1->ia = ia;
	e0->ib = e1->ib = ib;
	e0->a = e1->a = va[ia];
	double back = 1.0 / scale;
	e0->w = imp_vec2_scale(back, at.u);
	// Its normal from the edge brought to unit size first: after the
	// scene's scaling an edge 1e-9 long beside one of 1e149 is 1e-158
	// long, its square subnormal, and 1 / sqrt of it gave a normal of
	// length 1 + 2.9e-9 (CI's seeded fuzz run, a segment 1e-9 long at the
	// end of a polygon reaching 1e149).
	out->normal = imp_robust_unit2(imp_vec2_make(be.y, -be.x), imp_vec2_make(1.0, 0.0));
	out->depth = best > 0.0 ? sqrt(best) * back : 0.0;
	e1->w = imp_vec2_scale(back, imp_vec2_add(at.u, be));
	if (at.k < ea) {
		e1->ia = ia + 1 == na ? 0 : ia + 1;
		e1->a = va[e1->ia];
	} else {
		e1->ib = ib + 1 == nb ? 0 : ib + 1;
	}
	out->t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}
