// SPDX-License-Identifier: MIT
// The byte reader, shapes and poses of the fuzz targets, and the report.
#include "fuzz.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "known.h"

const char *fz_input_name = NULL;
char fz_context[160];
/// The defect of the first known finding of this input (0: none yet).
static int taint;

void fz_begin(void)
{
	taint = 0;
	fz_context[0] = 0;
}
long fz_known_count = 0;

uint8_t fz_u8(fz *f)
{
	return f->i < f->n ? f->p[f->i++] : 0;
}

uint32_t fz_u32(fz *f)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; ++k)
		v = v << 8 | fz_u8(f);
	return v;
}

bool fz_done(const fz *f)
{
	return f->i >= f->n;
}

int fz_int(fz *f, int n)
{
	if (n <= 1)
		return 0;
	if (n <= 256)
		return fz_u8(f) % n;
	return (int)(fz_u32(f) % (uint32_t)n);
}

bool fz_chance(fz *f, int k)
{
	return fz_u8(f) < k;
}

/// Values where arithmetic tends to break.
static const double extremes[] = {
	0.0, 4.9406564584124654e-324, 1e-310, DBL_MIN, 1e-300, 1e-200, 1e-100, 1e-20, 1e-15, 1e-9,
	1e20, 1e100, 1e149, IMP_MAX_COORDINATE, 1.0000000000000002e150, 1e151, 1e200, 1e300, DBL_MAX,
};

double fz_num(fz *f)
{
	uint8_t sel = fz_u8(f);
	// One byte read a statement throughout: the order of calls within
	// one expression is the compiler's, and gcc and clang must decode alike.
	if (sel < 176) {
		// A multiple of 1/64 in [-16, 16), scaled by 2^-2 .. 2^2.
		int hi = fz_u8(f);
		int lo = fz_u8(f);
		int16_t m = (int16_t)(hi << 8 | lo);
		return ldexp((double)(m >> 5), (sel & 7) - 8);
	}
	if (sel < 224) {
		int hi = fz_u8(f);
		int lo = fz_u8(f);
		int16_t m = (int16_t)(hi << 8 | lo);
		return ldexp((double)m, fz_int(f, 241) - 140);
	}
	if (sel < 250) {
		double v = extremes[fz_int(f, (int)(sizeof extremes / sizeof extremes[0]))];
		return (sel & 1) ? -v : v;
	}
	uint64_t bits = 0;
	for (int k = 0; k < 8; ++k)
		bits = bits << 8 | fz_u8(f);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

double fz_size(fz *f)
{
	double v = fabs(fz_num(f));
	return v == 0.0 && fz_chance(f, 224) ? 1.0 : v;
}

double fz_radius(fz *f)
{
	return fz_chance(f, 128) ? 0.0 : fz_size(f);
}

imp_vec2 fz_vec2(fz *f)
{
	imp_vec2 v;
	v.x = fz_num(f);
	v.y = fz_num(f);
	return v;
}

imp_vec3 fz_vec3(fz *f)
{
	imp_vec3 v;
	v.x = fz_num(f);
	v.y = fz_num(f);
	v.z = fz_num(f);
	return v;
}

imp_pose2 fz_pose2(fz *f)
{
	imp_pose2 p;
	p.p = fz_vec2(f);
	uint8_t sel = fz_u8(f);
	if (sel < 240) {
		double a = 6.283185307179586 * fz_u8(f) / 256.0;
		p.q.c = cos(a);
		p.q.s = sin(a);
	} else {
		p.q.c = fz_num(f);
		p.q.s = fz_num(f);
	}
	return p;
}

imp_pose3 fz_pose3(fz *f)
{
	imp_pose3 p;
	p.p = fz_vec3(f);
	uint8_t sel = fz_u8(f);
	if (sel < 64) {
		p.q = imp_quat_identity();
	} else if (sel < 240) {
		// Components in [-1, 1) by 1/128, normalised (identity if all 0).
		double c[4];
		for (int k = 0; k < 4; ++k)
			c[k] = (int8_t)fz_u8(f) / 128.0;
		double l = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
		p.q = l > 0.0 ? imp_quat_make(c[0] / l, c[1] / l, c[2] / l, c[3] / l) : imp_quat_identity();
	} else {
		p.q.x = fz_num(f);
		p.q.y = fz_num(f);
		p.q.z = fz_num(f);
		p.q.w = fz_num(f);
	}
	return p;
}

static imp_vec2 user_support2(const void *user, imp_vec2 d)
{
	// An ellipse: x = A^2 d / |A d| with A = diag(h), d scaled first.
	const fz_made *u = user;
	double m = fmax(fabs(d.x), fabs(d.y));
	double x = d.x / m * u->h[0], y = d.y / m * u->h[1];
	double l = sqrt(x * x + y * y);
	imp_vec2 r = {x * u->h[0] / l, y * u->h[1] / l};
	return r;
}

static imp_vec3 user_support3(const void *user, imp_vec3 d)
{
	// A box.
	const fz_made *u = user;
	imp_vec3 r = {d.x >= 0.0 ? u->h[0] : -u->h[0], d.y >= 0.0 ? u->h[1] : -u->h[1],
		      d.z >= 0.0 ? u->h[2] : -u->h[2]};
	return r;
}

/// The sentinel a refused constructor must leave in *out.
static imp_shape *const sentinel = (imp_shape *)(uintptr_t)0x5a5a5a50u;

static void corners(fz_made *m, double hx, double hy, double hz, int dim)
{
	m->n = 0;
	for (int k = 0; k < (dim == 2 ? 4 : 8); ++k) {
		imp_vec3 c = {(k & 1) ? hx : -hx, (k & 2) ? hy : -hy, dim == 2 ? 0.0 : ((k & 4) ? hz : -hz)};
		m->pts[m->n++] = c;
	}
	m->equiv = true;
}

static imp_vec3 v3(imp_vec2 v)
{
	imp_vec3 r = {v.x, v.y, 0.0};
	return r;
}

static const char *const kind_names[] = {
	"polygon", "circle", "capsule2", "segment2", "box2", "user2",
	"polytope", "sphere", "capsule3", "box3", "cylinder", "cone", "ellipsoid", "user3",
};

/// A check's name with the constructor's: "shape.aabb_finite:ellipsoid".
const char *fz_named(const char *check, int kind)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "%s:%s", check, kind_names[kind]);
	return buf;
}

const char *fz_kind_name(int kind)
{
	return kind >= 0 && kind < (int)(sizeof kind_names / sizeof kind_names[0]) ? kind_names[kind] : "?";
}

/// The directions the shape checks look along: the axes, the diagonals.
static const double dirs[13][3] = {
	{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {1, 0, -1},
	{0, 1, 1}, {0, 1, -1}, {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1},
};

/// A shape's box is finite and holds its supports; a polygon or polytope
/// holds its input points (its support along d reaches every point's d).
static void check_shape(const imp_shape *s, int dim, const fz_made *m)
{
	double scale = 0.0;
	for (int k = 0; k < m->n; ++k)
		scale = fmax(scale, fmax(fmax(fabs(m->pts[k].x), fabs(m->pts[k].y)), fabs(m->pts[k].z)));
	imp_aabb3 box;
	if (dim == 2) {
		imp_aabb2 b2;
		if (imp_shape_aabb2(s, imp_pose2_identity(), &b2) != IMP_OK) {
			fz_finding(fz_named("shape.aabb", m->kind), "kind %d: no box at the identity pose", m->kind);
			return;
		}
		box.lo = (imp_vec3){b2.lo.x, b2.lo.y, 0.0};
		box.hi = (imp_vec3){b2.hi.x, b2.hi.y, 0.0};
	} else if (imp_shape_aabb3(s, imp_pose3_identity(), &box) != IMP_OK) {
		fz_finding(fz_named("shape.aabb", m->kind), "kind %d: no box at the identity pose", m->kind);
		return;
	}
	if (!isfinite(box.lo.x) || !isfinite(box.lo.y) || !isfinite(box.lo.z) || !isfinite(box.hi.x) ||
	    !isfinite(box.hi.y) || !isfinite(box.hi.z)) {
		fz_finding(fz_named("shape.aabb_finite", m->kind), "kind %d: box [%g %g %g] [%g %g %g]", m->kind, box.lo.x, box.lo.y,
			   box.lo.z, box.hi.x, box.hi.y, box.hi.z);
		return;
	}
	scale = fmax(scale, fmax(fmax(fmax(fabs(box.lo.x), fabs(box.hi.x)), fmax(fabs(box.lo.y), fabs(box.hi.y))),
				 fmax(fabs(box.lo.z), fabs(box.hi.z))));
	double tol = 1e-9 * scale + FZ_TINY;
	for (int sign = -1; sign <= 1; sign += 2)
		for (int k = 0; k < (dim == 2 ? 5 : 13); ++k) {
			if (dim == 2 && k == 2)
				continue;
			imp_vec3 d = {sign * dirs[k][0], sign * dirs[k][1], dim == 2 ? 0.0 : sign * dirs[k][2]};
			imp_vec3 p;
			imp_status st;
			if (dim == 2) {
				imp_vec2 p2;
				st = imp_shape_support2(s, imp_pose2_identity(), (imp_vec2){d.x, d.y}, &p2);
				p = v3(p2);
			} else {
				st = imp_shape_support3(s, imp_pose3_identity(), d, &p);
			}
			if (st != IMP_OK) {
				fz_finding(fz_named("shape.support", m->kind), "kind %d: support refused (%s)", m->kind, imp_status_string(st));
				return;
			}
			if (!(p.x >= box.lo.x - tol && p.x <= box.hi.x + tol && p.y >= box.lo.y - tol &&
			      p.y <= box.hi.y + tol && p.z >= box.lo.z - tol && p.z <= box.hi.z + tol))
				fz_finding(fz_named("shape.support_in_box", m->kind), "kind %d: support (%g %g %g) along (%g %g %g) outside its box",
					   m->kind, p.x, p.y, p.z, d.x, d.y, d.z);
			if (m->kind != FZ_POLYGON && m->kind != FZ_POLYTOPE && !m->equiv)
				continue;
			double reach = p.x * d.x + p.y * d.y + p.z * d.z;
			for (int i = 0; i < m->n; ++i) {
				double want = m->pts[i].x * d.x + m->pts[i].y * d.y + m->pts[i].z * d.z;
				if (reach < want - 2.0 * tol) {
					if (getenv("FZ_VERBOSE"))
						for (int j = 0; j < m->n; ++j)
							fprintf(stderr, "point %d: %.17g %.17g %.17g\n", j, m->pts[j].x,
								m->pts[j].y, m->pts[j].z);
					fz_finding(fz_named("shape.hull_holds_points", m->kind),
						   "kind %d: support along (%g %g %g) reaches %.17g, input point %d (%.17g %.17g %.17g) %.17g",
						   m->kind, d.x, d.y, d.z, reach, i, m->pts[i].x, m->pts[i].y, m->pts[i].z, want);
					return;
				}
			}
		}
}

imp_shape *fz_shape(fz *f, int dim, fz_made *m)
{
	imp_shape *s = sentinel;
	imp_status st;
	memset(m, 0, sizeof *m);
	int kind = dim == 2 ? fz_int(f, 6) : FZ_POLYTOPE + fz_int(f, 8);
	m->kind = kind;
	switch (kind) {
	case FZ_POLYGON: {
		imp_vec2 pts[16];
		int n = 1 + fz_int(f, 16);
		for (int k = 0; k < n; ++k) {
			// Some near earlier points, so that near-collinear and
			// near-duplicate points come up.
			if (k > 0 && fz_chance(f, 64)) {
				pts[k] = pts[fz_int(f, k)];
				if (fz_chance(f, 128))
					pts[k].x += fz_num(f);
				else
					pts[k].y += fz_num(f);
			} else {
				pts[k] = fz_vec2(f);
			}
			m->pts[k] = v3(pts[k]);
		}
		m->n = n;
		m->radius = fz_radius(f);
		st = imp_shape_polygon(pts, n, m->radius, &s);
		break;
	}
	case FZ_CIRCLE: {
		imp_vec2 c = fz_chance(f, 160) ? (imp_vec2){0.0, 0.0} : fz_vec2(f);
		m->radius = fz_size(f);
		m->pts[0] = v3(c);
		m->n = 1;
		m->equiv = true;
		st = imp_shape_circle(c, m->radius, &s);
		break;
	}
	case FZ_CAPSULE2:
	case FZ_SEGMENT2: {
		imp_vec2 a = fz_vec2(f), b = fz_vec2(f);
		m->pts[0] = v3(a);
		m->pts[1] = v3(b);
		m->n = 2;
		m->equiv = true;
		if (kind == FZ_CAPSULE2) {
			m->radius = fz_size(f);
			st = imp_shape_capsule2(a, b, m->radius, &s);
		} else {
			st = imp_shape_segment2(a, b, &s);
		}
		break;
	}
	case FZ_BOX2: {
		double hx = fz_size(f), hy = fz_size(f);
		m->radius = fz_radius(f);
		corners(m, hx, hy, 0.0, 2);
		st = imp_shape_box2(hx, hy, m->radius, &s);
		break;
	}
	case FZ_USER2:
	case FZ_USER3:
		// Sizes within 1e-6 .. 1e6: a user support must return finite points.
		for (int k = 0; k < 3; ++k) {
			double mantissa = 1.0 + fz_u8(f) / 64.0;
			m->h[k] = ldexp(mantissa, fz_int(f, 41) - 20);
		}
		m->radius = fz_radius(f);
		st = kind == FZ_USER2 ? imp_shape_user2(user_support2, m, m->radius, &s)
				      : imp_shape_user3(user_support3, m, m->radius, &s);
		break;
	case FZ_POLYTOPE: {
		int n = 1 + fz_int(f, 20);
		for (int k = 0; k < n; ++k) {
			if (k > 0 && fz_chance(f, 64)) {
				m->pts[k] = m->pts[fz_int(f, k)];
				double e = fz_num(f);
				int axis = fz_int(f, 3);
				if (axis == 0)
					m->pts[k].x += e;
				else if (axis == 1)
					m->pts[k].y += e;
				else
					m->pts[k].z += e;
			} else {
				m->pts[k] = fz_vec3(f);
			}
		}
		m->n = n;
		m->radius = fz_radius(f);
		st = imp_shape_polytope(m->pts, n, m->radius, &s);
		break;
	}
	case FZ_SPHERE: {
		imp_vec3 c = fz_chance(f, 160) ? (imp_vec3){0.0, 0.0, 0.0} : fz_vec3(f);
		m->radius = fz_size(f);
		m->pts[0] = c;
		m->n = 1;
		m->equiv = true;
		st = imp_shape_sphere(c, m->radius, &s);
		break;
	}
	case FZ_CAPSULE3: {
		m->pts[0] = fz_vec3(f);
		m->pts[1] = fz_vec3(f);
		m->n = 2;
		m->equiv = true;
		m->radius = fz_size(f);
		st = imp_shape_capsule3(m->pts[0], m->pts[1], m->radius, &s);
		break;
	}
	case FZ_BOX3: {
		double hx = fz_size(f), hy = fz_size(f), hz = fz_size(f);
		m->radius = fz_radius(f);
		corners(m, hx, hy, hz, 3);
		st = imp_shape_box3(hx, hy, hz, m->radius, &s);
		break;
	}
	case FZ_CYLINDER: {
		double h = fz_size(f), r = fz_size(f);
		m->radius = fz_radius(f);
		m->h[0] = h;
		m->h[1] = r;
		st = imp_shape_cylinder(h, r, m->radius, &s);
		break;
	}
	case FZ_CONE: {
		double h = fz_size(f), r = fz_size(f);
		m->radius = fz_radius(f);
		m->h[0] = h;
		m->h[1] = r;
		st = imp_shape_cone(h, r, m->radius, &s);
		break;
	}
	default: {
		// Some balls (equal semi-axes), which equal a sphere.
		double rx = fz_size(f), ry = fz_chance(f, 64) ? rx : fz_size(f), rz = fz_chance(f, 64) ? ry : fz_size(f);
		m->radius = fz_radius(f);
		if (rx == ry && ry == rz && isfinite(rx + m->radius)) {
			m->n = 1;
			m->equiv = true;
		}
		st = imp_shape_ellipsoid(rx, ry, rz, m->radius, &s);
		m->h[0] = rx; // printed only
		m->h[1] = ry;
		m->h[2] = rz;
		m->radius += rx;
		break;
	}
	}
	if (st != IMP_OK) {
		if (s != sentinel)
			fz_finding("shape.refused_wrote", "constructor %d refused (%s) but wrote *out", kind,
				   imp_status_string(st));
		return NULL;
	}
	if (s == sentinel || s == NULL || imp_shape_dim(s) != dim) {
		fz_finding("shape.made", "constructor %d said ok without a shape of dimension %d", kind, dim);
		return NULL;
	}
	check_shape(s, dim, m);
	return s;
}

static double box_extent2(const imp_shape *s, imp_pose2 p)
{
	imp_aabb2 b;
	if (imp_shape_aabb2(s, p, &b) != IMP_OK)
		return 0.0;
	return fmax(fmax(fabs(b.lo.x), fabs(b.hi.x)), fmax(fabs(b.lo.y), fabs(b.hi.y)));
}

static double box_extent3(const imp_shape *s, imp_pose3 p)
{
	imp_aabb3 b;
	if (imp_shape_aabb3(s, p, &b) != IMP_OK)
		return 0.0;
	return fmax(fmax(fmax(fabs(b.lo.x), fabs(b.hi.x)), fmax(fabs(b.lo.y), fabs(b.hi.y))),
		    fmax(fabs(b.lo.z), fabs(b.hi.z)));
}

// The scale of a shape at a pose is that of every number the queries
// form: its box there, its own box (its points' coordinates) and the
// pose's position. A capsule whose core is at z = -2.1e21, turned over and
// moved back by 2.1e21, ends near the origin with witnesses 0.66 off by
// rounding, which its box there (109) does not show.

double fz_extent2(const imp_shape *s, imp_pose2 p)
{
	imp_pose2 id = {{0.0, 0.0}, {1.0, 0.0}};
	double pos = fmax(fabs(p.p.x), fabs(p.p.y));
	return fmax(fmax(box_extent2(s, p), box_extent2(s, id)), isfinite(pos) ? pos : 0.0);
}

double fz_rel_tol(int dim, double scale)
{
	return dim == 3 && scale > 1e6 ? 1e-4 : 1e-9;
}

double fz_extent3(const imp_shape *s, imp_pose3 p)
{
	imp_pose3 id = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}};
	double pos = fmax(fmax(fabs(p.p.x), fabs(p.p.y)), fabs(p.p.z));
	return fmax(fmax(box_extent3(s, p), box_extent3(s, id)), isfinite(pos) ? pos : 0.0);
}

void fz_finding(const char *check, const char *fmt, ...)
{
	static const fz_known known[] = FZ_KNOWN_CHECKS;
	static long seen[sizeof known / sizeof known[0]];
	const char *strict = getenv("IMPACT_FUZZ_STRICT");
	int defect = 0;
	size_t which = 0;
	for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k)
		if (known[k].name && strcmp(known[k].name, check) == 0) {
			defect = known[k].defect;
			which = k;
		}
	bool after = false;
	if (defect == 0 && taint != 0) {
		defect = taint;
		after = true;
	}
	bool fatal = defect == 0 || (strict && strcmp(strict, "0") != 0);
	if (!after && defect != 0)
		taint = defect;
	// A known finding is printed the first time only.
	if (fatal || (!after && seen[which]++ == 0)) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "fuzz: %s%s: ", fatal ? "FINDING " : "known ", check);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		if (defect)
			fprintf(stderr, " (issue 20, defect %d%s)", defect, after ? ", met earlier in this input" : "");
		if (fz_context[0])
			fprintf(stderr, " {%s}", fz_context);
		if (fz_input_name)
			fprintf(stderr, " [input %s]", fz_input_name);
		fputc('\n', stderr);
	}
	if (fatal)
		abort();
	++fz_known_count;
}
