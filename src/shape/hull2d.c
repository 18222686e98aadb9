// SPDX-License-Identifier: MIT
// Convex hull of a 2D point set: Andrew's monotone chain, O(n log n), on an
// exact orientation test.
#include <float.h>
#include <math.h>
#include <stdint.h>
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

// ---------------------------------------------------------------------------
// The exact sign of a determinant of doubles, for the cases the rounded one
// cannot decide. Every double is an integer of 53 bits times a power of two
// from 2^-1126 (a subnormal, normalised) to 2^971, so a product of two is an
// integer of 106 bits times 2^-2252 .. 2^1942: a fixed-point accumulator of
// 70 64-bit words holds any sum of them without rounding, underflow or
// overflow. Slow next
// to expansion arithmetic (Shewchuk 1997), which it replaces here because
// expansions are exact only while products and their rounding errors stay
// normal numbers, and hull points may be subnormal.

enum { WIDE_WORDS = 70, WIDE_OFFSET = 2256 };

/// A non-negative fixed-point number: word k holds bits 64k .. 64k + 63 of
/// the value times 2^WIDE_OFFSET.
typedef struct wide {
	uint64_t w[WIDE_WORDS];
} wide;

/// Adds v * 2^(bit - WIDE_OFFSET).
static void wide_add(wide *a, uint64_t v, int bit)
{
	int k = bit / 64, s = bit % 64;
	uint64_t lo = v << s, hi = s > 0 ? v >> (64 - s) : 0;
	uint64_t old = a->w[k];
	a->w[k] += lo;
	uint64_t carry = hi + (a->w[k] < old);
	for (++k; carry != 0 && k < WIDE_WORDS; ++k) {
		old = a->w[k];
		a->w[k] += carry;
		carry = a->w[k] < old;
	}
}

/// |x| as m * 2^e, m an integer below 2^53 (0 for x = 0).
static uint64_t split_double(double x, int *e)
{
	int ex = 0;
	double f = frexp(fabs(x), &ex); // f in [1/2, 1), or 0
	*e = ex - 53;
	return (uint64_t)ldexp(f, 53);
}

/// Adds sign * x * y to the accumulator of its sign.
static void add_product(wide *pos, wide *neg, double x, double y, int sign)
{
	if (x == 0.0 || y == 0.0)
		return;
	if (x < 0.0)
		sign = -sign;
	if (y < 0.0)
		sign = -sign;
	int ex, ey;
	uint64_t mx = split_double(x, &ex), my = split_double(y, &ey);
	// 53-bit integers in 32-bit halves: each partial product fits 64 bits.
	uint64_t xh = mx >> 32, xl = mx & 0xffffffffu, yh = my >> 32, yl = my & 0xffffffffu;
	int bit = ex + ey + WIDE_OFFSET;
	wide *acc = sign > 0 ? pos : neg;
	wide_add(acc, xl * yl, bit);
	wide_add(acc, xh * yl, bit + 32);
	wide_add(acc, xl * yh, bit + 32);
	wide_add(acc, xh * yh, bit + 64);
}

/// The sign of det [b - a, c - a], exactly, for any finite doubles. The
/// differences are not formed (they round); instead
/// det = ax by - ay bx + bx cy - by cx + cx ay - cy ax, summed exactly.
static int orient_exact(imp_vec2 a, imp_vec2 b, imp_vec2 c)
{
	wide pos, neg;
	memset(&pos, 0, sizeof pos);
	memset(&neg, 0, sizeof neg);
	add_product(&pos, &neg, a.x, b.y, 1);
	add_product(&pos, &neg, a.y, b.x, -1);
	add_product(&pos, &neg, b.x, c.y, 1);
	add_product(&pos, &neg, b.y, c.x, -1);
	add_product(&pos, &neg, c.x, a.y, 1);
	add_product(&pos, &neg, c.y, a.x, -1);
	for (int k = WIDE_WORDS - 1; k >= 0; --k)
		if (pos.w[k] != neg.w[k])
			return pos.w[k] > neg.w[k] ? 1 : -1;
	return 0;
}

/// The sign of det [b - a, c - a]: 1 when c is left of the line from a to
/// b, -1 right, 0 on it, exactly. The rounded determinant decides when it
/// exceeds a bound on its error (Shewchuk 1997's first filter, whose bound
/// (3 + 16u) u |terms| is rounded up to 8u here) and its terms are far from
/// underflow, where that bound holds; otherwise orient_exact does.
static int orient(imp_vec2 a, imp_vec2 b, imp_vec2 c)
{
	double l = (a.x - c.x) * (b.y - c.y), r = (a.y - c.y) * (b.x - c.x);
	double det = l - r, sum = fabs(l) + fabs(r);
	if (sum >= 0x1p-960 && sum <= DBL_MAX && fabs(det) > 4.0 * DBL_EPSILON * sum)
		return det > 0.0 ? 1 : -1;
	return orient_exact(a, b, c);
}

/// True when the chain keeps b between a and c: c makes a strict left turn
/// at b, exactly, and b is not on a straight run from a to c. A run is
/// straight when b lies within a relative 1e-14 of the segment [a, c] (not
/// of its line: a U-turn, where c comes back past b, is no straight run),
/// so nearly collinear points on the way are dropped, each within 1e-14 of
/// the chord's length of the hull: the narrow phase then never meets the
/// slivers such points would make. The distance is to the segment, ends
/// included: a box 1e-20 thin has its corner b at the end of [a, c] (the
/// projection rounds to the end), and is a segment, as before, at every
/// scale. (The test was the tolerance alone, and took a U-turn for a run:
/// of (-8, -8), (e, -8), (0, -7), (0, 4.5), with e from 1e-15 down to the
/// least subnormal, it dropped the top.)
static bool turns_left(imp_vec2 a, imp_vec2 b, imp_vec2 c)
{
	if (orient(a, b, c) <= 0)
		return false;
	// On copies scaled by their largest coordinate, so that no product
	// below underflows or overflows (a box 2e-208 by 1e-302 has squares
	// of 1e-416).
	imp_vec2 w = imp_vec2_sub(c, a), u = imp_vec2_sub(b, a);
	double m = fmax(fmax(fabs(w.x), fabs(w.y)), fmax(fabs(u.x), fabs(u.y)));
	w = imp_vec2_make(w.x / m, w.y / m);
	u = imp_vec2_make(u.x / m, u.y / m);
	double ww = imp_vec2_dot(w, w), t = imp_vec2_dot(u, w), tol = 1e-14;
	imp_vec2 d = u; // b before a along the chord
	if (t >= ww)
		d = imp_vec2_sub(u, w); // b past c
	else if (t > 0.0) {
		double cr = imp_vec2_cross(u, w); // b beside the chord
		return cr * cr > tol * tol * ww * ww;
	}
	return imp_vec2_dot(d, d) > tol * tol * ww;
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
