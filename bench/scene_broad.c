// SPDX-License-Identifier: MIT
// The scenes of bench/broad (see scene_broad.h): sizes, calibrated world,
// motion, and the reference pair count.
#define _POSIX_C_SOURCE 200809L

#include "scene_broad.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/// Jitter of the pile, as a fraction of a box's side.
#define PILE_JITTER 1e-3
/// Speed of the moving kinds, as a fraction of a box's mean side per frame.
#define SPEED 0.01
/// Boxes that jump each frame in the jump kind, as a fraction of all.
#define JUMP_FRACTION 0.01
/// Overlapping pairs wanted per box (each pair counts for two boxes).
#define PAIRS_PER_BOX 1.5

const char *sb_kind_name(sb_kind kind)
{
	static const char *const names[SB_KIND_COUNT] = {"uniform", "sizes", "pile", "jump"};
	return (int)kind >= 0 && kind < SB_KIND_COUNT ? names[kind] : "?";
}

void sb_scene_free(sb_scene *s)
{
	free(s->half);
	free(s->center);
	free(s->lo);
	free(s->hi);
	free(s->velocity);
	free(s->start);
	free(s->start_velocity);
	memset(s, 0, sizeof *s);
}

static void update_box(sb_scene *s, int i)
{
	for (int a = 0; a < 3; ++a) {
		s->lo[3 * i + a] = s->center[3 * i + a] - s->half[3 * i + a];
		s->hi[3 * i + a] = s->center[3 * i + a] + s->half[3 * i + a];
	}
}

void sb_scene_reset(sb_scene *s)
{
	size_t n = (size_t)s->count * 3;
	memcpy(s->center, s->start, n * sizeof(double));
	memcpy(s->velocity, s->start_velocity, n * sizeof(double));
	s->rng = s->start_rng;
	s->frame = 0;
	for (int i = 0; i < s->count; ++i)
		update_box(s, i);
}

void sb_scene_step(sb_scene *s)
{
	if (s->kind == SB_PILE) {
		bench_rng r = {s->rng};
		for (int i = 0; i < s->count; ++i)
			for (int a = 0; a < s->dim; ++a) {
				double side = 2.0 * s->half[3 * i + a];
				double jitter = bench_rng_range(&r, -PILE_JITTER, PILE_JITTER) * side;
				s->center[3 * i + a] = s->start[3 * i + a] + jitter;
			}
		s->rng = r.state;
	} else {
		for (int i = 0; i < s->count; ++i)
			for (int a = 0; a < s->dim; ++a) {
				double *c = &s->center[3 * i + a], *v = &s->velocity[3 * i + a];
				double h = s->half[3 * i + a];
				double lo = s->world_lo[a] + h, hi = s->world_hi[a] - h;
				*c += *v;
				// A wall reflects the box: the part of the step beyond it
				// is taken back the other way.
				if (*c < lo) {
					*c = 2.0 * lo - *c;
					*v = -*v;
				} else if (*c > hi) {
					*c = 2.0 * hi - *c;
					*v = -*v;
				}
			}
	}
	if (s->kind == SB_JUMP) {
		bench_rng r = {s->rng};
		int jumps = (int)(JUMP_FRACTION * s->count);
		for (int k = 0; k < (jumps > 0 ? jumps : 1); ++k) {
			int i = (int)(bench_rng_unit(&r) * s->count);
			if (i >= s->count)
				i = s->count - 1;
			for (int a = 0; a < s->dim; ++a) {
				double h = s->half[3 * i + a];
				double lo = s->world_lo[a] + h, hi = s->world_hi[a] - h;
				s->center[3 * i + a] = lo + bench_rng_unit(&r) * (hi - lo);
			}
		}
		s->rng = r.state;
	}
	for (int i = 0; i < s->count; ++i)
		update_box(s, i);
	s->frame++;
}

typedef struct sweep_key {
	double lo;
	int index;
} sweep_key;

static int compare_keys(const void *a, const void *b)
{
	double x = ((const sweep_key *)a)->lo, y = ((const sweep_key *)b)->lo;
	return (x > y) - (x < y);
}

/// The strip of coordinate v: strips of width w from `base`, `count` of them.
static int strip_of(double v, double base, double w, int count)
{
	double k = floor((v - base) / w);
	return k < 0.0 ? 0 : k >= count ? count - 1 : (int)k;
}

long sb_scene_count_pairs(const sb_scene *s)
{
	// Sort and sweep on x within strips across a second axis (y; z for the
	// 3D pile, whose boxes all overlap in y; none for the 2D pile): a box
	// is in every strip it crosses, and a pair is counted in the strip of
	// the lower end of its overlap on that axis only, which holds both.
	int axis = s->kind != SB_PILE ? 1 : s->dim == 3 ? 2 : -1;
	int strips = 1;
	double base = 0.0, width = 1.0;
	if (axis >= 0) {
		base = s->world_lo[axis];
		double extent = s->world_hi[axis] - base;
		double n = extent / (4.0 * s->mean_side);
		strips = n < 1.0 ? 1 : n > 4096.0 ? 4096 : (int)n;
		width = extent / strips;
	}
	int *start = calloc((size_t)strips + 1, sizeof *start);
	if (!start)
		return -1;
	long entries = 0;
	for (int i = 0; i < s->count; ++i) {
		int a = 0, b = 0;
		if (axis >= 0) {
			a = strip_of(s->lo[3 * i + axis], base, width, strips);
			b = strip_of(s->hi[3 * i + axis], base, width, strips);
		}
		for (int k = a; k <= b; ++k)
			start[k + 1]++;
		entries += b - a + 1;
	}
	for (int k = 0; k < strips; ++k)
		start[k + 1] += start[k];
	sweep_key *keys = malloc(sizeof *keys * (size_t)entries);
	int *fill = malloc(sizeof *fill * (size_t)strips);
	if (!keys || !fill) {
		free(start);
		free(keys);
		free(fill);
		return -1;
	}
	memcpy(fill, start, sizeof *fill * (size_t)strips);
	for (int i = 0; i < s->count; ++i) {
		int a = 0, b = 0;
		if (axis >= 0) {
			a = strip_of(s->lo[3 * i + axis], base, width, strips);
			b = strip_of(s->hi[3 * i + axis], base, width, strips);
		}
		for (int k = a; k <= b; ++k)
			keys[fill[k]++] = (sweep_key){s->lo[3 * i], i};
	}
	long pairs = 0;
	for (int strip = 0; strip < strips; ++strip) {
		sweep_key *e = keys + start[strip];
		int n = start[strip + 1] - start[strip];
		qsort(e, (size_t)n, sizeof *e, compare_keys);
		for (int k = 0; k < n; ++k) {
			int i = e[k].index;
			double end = s->hi[3 * i];
			const double *li = s->lo + 3 * i, *hi = s->hi + 3 * i;
			// Sorted by lo.x: every later box whose lo.x is within i's
			// x range overlaps it in x; the other axes decide.
			for (int m = k + 1; m < n && e[m].lo <= end; ++m) {
				int j = e[m].index;
				const double *lj = s->lo + 3 * j, *hj = s->hi + 3 * j;
				if (li[1] > hj[1] || lj[1] > hi[1])
					continue;
				if (s->dim == 3 && (li[2] > hj[2] || lj[2] > hi[2]))
					continue;
				// Counted in the strip of the overlap's lower end only.
				if (axis >= 0 && strip_of(fmax(li[axis], lj[axis]), base, width, strips) != strip)
					continue;
				pairs++;
			}
		}
	}
	free(start);
	free(keys);
	free(fill);
	return pairs;
}

/// The axes along which the boxes are spread (the pile's boxes all share
/// the floor, so all overlap in y); their count.
static int free_axes(const sb_scene *s, int axes[3])
{
	if (s->kind == SB_PILE) {
		axes[0] = 0;
		axes[1] = 2;
		return s->dim == 3 ? 2 : 1;
	}
	for (int a = 0; a < s->dim; ++a)
		axes[a] = a;
	return s->dim;
}

/// sum over pairs i < j of prod over the free axes of (side_i + side_j):
/// the expected number of overlapping pairs times the world's free volume,
/// for centres spread uniformly. Exactly, in O(N 2^k): the product expands
/// into a sum over the subsets A of the axes of (prod over A of side_i)
/// (prod over the others of side_j), so the sum over all i, j is the sum
/// over A of M(A) M(complement of A), M(A) = sum_i prod over A of side_i.
static double pair_volume(const sb_scene *s, const int *axes, int k)
{
	double moment[8] = {0};
	double diagonal = 0.0;
	for (int i = 0; i < s->count; ++i) {
		double self = 1.0;
		for (int subset = 0; subset < (1 << k); ++subset) {
			double p = 1.0;
			for (int b = 0; b < k; ++b)
				if (subset & (1 << b))
					p *= 2.0 * s->half[3 * i + axes[b]];
			moment[subset] += p;
		}
		for (int b = 0; b < k; ++b)
			self *= 4.0 * s->half[3 * i + axes[b]];
		diagonal += self;
	}
	double all = 0.0;
	for (int subset = 0; subset < (1 << k); ++subset)
		all += moment[subset] * moment[((1 << k) - 1) ^ subset];
	return 0.5 * (all - diagonal);
}

/// Centres from the unit coordinates kept in `start` (free axes) for a
/// world of free side `side`; the world's box.
static void place(sb_scene *s, const double *unit, double side, const int *axes, int k)
{
	double max_side = 0.0;
	for (int i = 0; i < 3 * s->count; ++i)
		if (2.0 * s->half[i] > max_side)
			max_side = 2.0 * s->half[i];
	for (int a = 0; a < 3; ++a)
		s->world_lo[a] = s->world_hi[a] = 0.0;
	for (int b = 0; b < k; ++b)
		s->world_hi[axes[b]] = side;
	if (s->kind == SB_PILE) {
		// The jitter may take a box by 1e-3 of its side out of its range.
		double pad = 2.0 * PILE_JITTER * max_side;
		for (int a = 0; a < s->dim; ++a)
			s->world_lo[a] = -pad;
		s->world_hi[1] = max_side + pad;
		for (int b = 0; b < k; ++b)
			s->world_hi[axes[b]] = side + pad;
	}
	for (int i = 0; i < s->count; ++i) {
		for (int b = 0; b < k; ++b) {
			int a = axes[b];
			double h = s->half[3 * i + a];
			s->start[3 * i + a] = h + unit[3 * i + a] * (side - 2.0 * h);
		}
		if (s->kind == SB_PILE)
			s->start[3 * i + 1] = s->half[3 * i + 1];
	}
}

int sb_scene_make(sb_scene *s, int dim, sb_kind kind, int count, uint64_t seed)
{
	memset(s, 0, sizeof *s);
	if ((dim != 2 && dim != 3) || (int)kind < 0 || kind >= SB_KIND_COUNT || count < 2)
		return -1;
	s->dim = dim;
	s->kind = kind;
	s->count = count;
	size_t n = (size_t)count * 3;
	s->half = calloc(n, sizeof(double));
	s->center = calloc(n, sizeof(double));
	s->lo = calloc(n, sizeof(double));
	s->hi = calloc(n, sizeof(double));
	s->velocity = calloc(n, sizeof(double));
	s->start = calloc(n, sizeof(double));
	s->start_velocity = calloc(n, sizeof(double));
	double *unit = calloc(n, sizeof(double));
	if (!s->half || !s->center || !s->lo || !s->hi || !s->velocity || !s->start || !s->start_velocity || !unit) {
		free(unit);
		sb_scene_free(s);
		return -1;
	}
	bench_rng r = {seed};
	double max_side = 0.0, side_sum = 0.0;
	for (int i = 0; i < count; ++i) {
		double scale = kind == SB_SIZES ? exp(bench_rng_range(&r, log(0.1), log(10.0))) : 1.0;
		double mean = 0.0;
		for (int a = 0; a < dim; ++a) {
			double side = kind == SB_SIZES ? scale * exp(bench_rng_range(&r, log(0.8), log(1.25)))
						       : bench_rng_range(&r, 0.5, 1.5);
			s->half[3 * i + a] = 0.5 * side;
			mean += side / dim;
			if (side > max_side)
				max_side = side;
		}
		side_sum += mean;
		for (int a = 0; a < dim; ++a)
			unit[3 * i + a] = bench_rng_unit(&r);
		if (kind != SB_PILE) {
			// A direction uniform on the sphere (circle), by rejection.
			double d[3], len2;
			do {
				len2 = 0.0;
				for (int a = 0; a < dim; ++a) {
					d[a] = bench_rng_range(&r, -1.0, 1.0);
					len2 += d[a] * d[a];
				}
			} while (len2 > 1.0 || len2 < 1e-6);
			double speed = SPEED * mean / sqrt(len2);
			for (int a = 0; a < dim; ++a)
				s->start_velocity[3 * i + a] = speed * d[a];
		}
	}
	s->mean_side = side_sum / count;
	s->start_rng = bench_rng_next(&r);

	int axes[3];
	int k = free_axes(s, axes);
	double target = PAIRS_PER_BOX * count;
	double side = pow(pair_volume(s, axes, k) / target, 1.0 / k);
	// Every box must fit, with room to move.
	double min_side = 1.5 * max_side;
	if (side < min_side)
		side = min_side;
	place(s, unit, side, axes, k);
	// Walls and (for the sizes) the spread of sizes make the estimate off
	// by some percent: one correction from the measured count.
	sb_scene_reset(s);
	long measured = sb_scene_count_pairs(s);
	if (measured < 0) {
		free(unit);
		sb_scene_free(s);
		return -1;
	}
	if (measured > 0) {
		side *= pow((double)measured / target, 1.0 / k);
		if (side < min_side)
			side = min_side;
		place(s, unit, side, axes, k);
	}
	free(unit);
	sb_scene_reset(s);
	return 0;
}
