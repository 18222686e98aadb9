// SPDX-License-Identifier: MIT
// bench/mesh: impact's queries on non-convex shapes (imp_shape_mesh,
// imp_shape_heightfield, imp_shape_compound3) against FCL 0.7 and Bullet in
// the same run: the UR10 arm's links (binary STL), procedural meshes of
// about 1k, 10k and 100k triangles (noisy spheres, tori) against each other
// and against convex shapes, a 512 x 512 height field under convex shapes,
// and compounds of 4, 16 and 64 children. Every cell is a set of queries at
// poses placed by impact's own closest points: distant (distance > 0.05),
// close (0 < distance < 1e-3) or overlapping. Prints Markdown tables: build
// time and memory of every model in every library; ns per overlap and
// distance query (median of repeated runs) with the ratios impact/peer; and
// the errors against a brute force over every pair of children with
// impact's convex imp_distance3 (see reference_distance).
//
// `meson test --benchmark mesh` runs --smoke (seconds); the full run is
// `build/bench/mesh [--out FILE]` (about 5 minutes on 2 cores). The UR10
// links are read from ../shared/data/meshes beside the source tree
// (MESH_SOURCE_ROOT, set by bench/meson.build) or --meshes DIR; without
// them those cells are skipped, and the report says so.
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#include "bench_util.h"
#include "peers_mesh.h"

#ifndef MESH_SOURCE_ROOT
#define MESH_SOURCE_ROOT "."
#endif

#define DEFAULT_REPS 5
#define DEFAULT_SEED 0x6d657368u
#define SMOKE_QUERIES 4
#define CHUNK 32         ///< elements a box in the reference's two-level search
#define REF_BIG 50000    ///< models with this many children get a subsample of references
#define REF_BIG_COUNT 20 ///< the size of that subsample
#define MAX_SIDE 8       ///< models one side of a cell draws from
#define MIN_TIMED 5      ///< the fewest queries a method is timed on
#define PI 3.14159265358979323846

static volatile double g_sink;

// ---------------------------------------------------------------------------
// Models.

/// Build time (median) and heap growth of one library's model.
typedef struct build_stat {
	bool done;
	double ms;
	size_t bytes;
} build_stat;

/// The reference's view of a model: its children ("elements") as convex
/// impact shapes in the model's frame, boxes, and boxes of CHUNK elements
/// in Morton order.
typedef struct elem_set {
	int count;
	imp_aabb3 *box;      ///< each element's box (model frame)
	imp_shape **shape;   ///< made when first needed; owned unless the model is convex
	int *order;          ///< elements in Morton order of their boxes' centres
	int chunk_count;
	imp_aabb3 *chunk_box; ///< the box of elements order[k CHUNK .. (k + 1) CHUNK)
} elem_set;

typedef struct model {
	char name[64];
	mb_geom geom;
	imp_shape *shape;
	int elements; ///< children: triangles, prisms, compound children; 1 for a convex shape
	// Storage behind geom.
	imp_vec3 *vertices;
	int32_t *triangles;
	double *heights;
	mb_geom *children;
	imp_pose3 *child_poses;
	imp_shape **child_shapes;
	// The peers' models.
	build_stat imp_build;
#ifdef HAVE_FCL
	fclm_model *fcl[FCLM_VARIANT_COUNT];
	build_stat fcl_build[FCLM_VARIANT_COUNT];
#endif
#ifdef HAVE_BULLET
	btm_model *bt[BTM_VARIANT_COUNT];
	build_stat bt_build[BTM_VARIANT_COUNT];
#endif
	elem_set *ref;
} model;

static bool is_convex_kind(mb_kind k)
{
	return k == MB_BOX || k == MB_SPHERE || k == MB_CAPSULE || k == MB_CONVEX;
}

/// Bytes the heap holds (main arena and mmapped blocks: the program is
/// single-threaded). Chunks in glibc's thread cache (up to 7 of each size
/// to 1 KiB) count as held: a build served from it grows nothing, which is
/// why small models are measured over many copies.
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

#define MAX_COPIES 256

/// The libraries a model is built in.
typedef enum library { LIB_IMPACT, LIB_FCL, LIB_BULLET } library;

static void *build_in(library lib, const model *m, int variant);
static void release_in(library lib, void *object);

/// The heap growth of one build: that of `copies` builds kept at once,
/// divided by their number.
static size_t measure_bytes(library lib, const model *m, int variant, int copies)
{
	void *objects[MAX_COPIES];
	int made = 0;
	size_t h0 = heap_in_use();
	while (made < copies && (objects[made] = build_in(lib, m, variant)) != NULL)
		++made;
	size_t h1 = heap_in_use();
	for (int k = 0; k < made; ++k)
		release_in(lib, objects[k]);
	return made > 0 && h1 > h0 ? (h1 - h0) / (size_t)made : 0;
}

/// Builds `reps` times, keeps the last; the median time, and the bytes of
/// one build (over copies enough to make the thread cache's share small).
static void *measure_build(library lib, const model *m, int variant, int reps, build_stat *st)
{
	double t[16];
	void *keep = NULL;
	if (reps > 16)
		reps = 16;
	int copies = 16384 / (m->elements > 0 ? m->elements : 1);
	st->bytes = measure_bytes(lib, m, variant, copies < 1 ? 1 : copies > MAX_COPIES ? MAX_COPIES : copies);
	for (int r = 0; r < reps; ++r) {
		double t0 = bench_now_ns();
		void *obj = build_in(lib, m, variant);
		t[r] = bench_now_ns() - t0;
		release_in(lib, keep);
		if (!obj)
			return NULL;
		keep = obj;
	}
	st->ms = bench_median(t, reps) * 1e-6;
	st->done = true;
	return keep;
}

static imp_status make_convex_shape(const mb_geom *g, imp_shape **out)
{
	switch (g->kind) {
	case MB_BOX:
		return imp_shape_box3(g->half.x, g->half.y, g->half.z, 0.0, out);
	case MB_SPHERE:
		return imp_shape_sphere(imp_vec3_make(0, 0, 0), g->radius, out);
	case MB_CAPSULE:
		return imp_shape_capsule3(imp_vec3_make(0, 0, -g->half_length), imp_vec3_make(0, 0, g->half_length),
					  g->radius, out);
	case MB_CONVEX:
		return imp_shape_polytope(g->vertices, g->vertex_count, 0.0, out);
	default:
		return IMP_ERR_BAD_SHAPE;
	}
}

static imp_shape *build_impact(const model *m)
{
	const mb_geom *g = &m->geom;
	imp_shape *s = NULL;
	imp_status st;
	switch (g->kind) {
	case MB_MESH:
		st = imp_shape_mesh(g->vertices, g->vertex_count, g->triangles, g->triangle_count, 0.0, &s);
		break;
	case MB_HEIGHTFIELD:
		st = imp_shape_heightfield(g->heights, g->rows, g->cols, g->dx, g->dy, g->base_z, 0.0, &s);
		break;
	case MB_COMPOUND:
		st = imp_shape_compound3((const imp_shape *const *)m->child_shapes, g->child_poses, g->child_count, &s);
		break;
	default:
		st = make_convex_shape(g, &s);
		break;
	}
	if (st != IMP_OK) {
		fprintf(stderr, "mesh: impact refused %s: %s\n", m->name, imp_status_string(st));
		return NULL;
	}
	return s;
}

/// The model in a library (variant: fclm_variant, btm_variant).
static void *build_in(library lib, const model *m, int variant)
{
	switch (lib) {
	case LIB_IMPACT:
		return build_impact(m);
#ifdef HAVE_FCL
	case LIB_FCL:
		return fclm_build(&m->geom, (fclm_variant)variant);
#endif
#ifdef HAVE_BULLET
	case LIB_BULLET:
		return btm_build(&m->geom, (btm_variant)variant);
#endif
	default:
		(void)variant;
		return NULL;
	}
}

static void release_in(library lib, void *object)
{
	switch (lib) {
	case LIB_IMPACT:
		imp_shape_destroy(object);
		break;
#ifdef HAVE_FCL
	case LIB_FCL:
		fclm_model_free(object);
		break;
#endif
#ifdef HAVE_BULLET
	case LIB_BULLET:
		btm_model_free(object);
		break;
#endif
	default:
		break;
	}
}

#ifdef HAVE_FCL
static bool has_bvh(const model *m)
{
	return m->geom.kind == MB_MESH || m->geom.kind == MB_HEIGHTFIELD;
}
#endif

/// impact's shape and the peers' models of m. The children of a compound
/// are made before (impact's compound does not own them: not counted).
static int build_model(model *m, int reps)
{
	const mb_geom *g = &m->geom;
	if (g->kind == MB_COMPOUND) {
		m->child_shapes = calloc((size_t)g->child_count, sizeof *m->child_shapes);
		if (!m->child_shapes)
			return -1;
		for (int i = 0; i < g->child_count; ++i)
			if (make_convex_shape(&g->children[i], &m->child_shapes[i]) != IMP_OK)
				return -1;
	}
	m->elements = g->kind == MB_MESH ? g->triangle_count
		      : g->kind == MB_HEIGHTFIELD ? 2 * (g->rows - 1) * (g->cols - 1)
		      : g->kind == MB_COMPOUND ? g->child_count
					       : 1;
	m->shape = measure_build(LIB_IMPACT, m, 0, reps, &m->imp_build);
	if (!m->shape)
		return -1;
#ifdef HAVE_FCL
	m->fcl[FCLM_OBBRSS] = measure_build(LIB_FCL, m, FCLM_OBBRSS, reps, &m->fcl_build[FCLM_OBBRSS]);
	if (has_bvh(m))
		m->fcl[FCLM_AABB] = measure_build(LIB_FCL, m, FCLM_AABB, reps, &m->fcl_build[FCLM_AABB]);
	else
		m->fcl[FCLM_AABB] = m->fcl[FCLM_OBBRSS];
	if (!m->fcl[FCLM_OBBRSS] || !m->fcl[FCLM_AABB])
		fprintf(stderr, "mesh: FCL could not build %s\n", m->name);
#endif
#ifdef HAVE_BULLET
	m->bt[BTM_BVH] = measure_build(LIB_BULLET, m, BTM_BVH, reps, &m->bt_build[BTM_BVH]);
	if (g->kind == MB_MESH)
		m->bt[BTM_GIMPACT] = measure_build(LIB_BULLET, m, BTM_GIMPACT, reps, &m->bt_build[BTM_GIMPACT]);
	else
		m->bt[BTM_GIMPACT] = m->bt[BTM_BVH];
	if (!m->bt[BTM_BVH] || !m->bt[BTM_GIMPACT])
		fprintf(stderr, "mesh: Bullet could not build %s\n", m->name);
#endif
	return 0;
}

static void free_elem_set(elem_set *e, bool owns_shapes)
{
	if (!e)
		return;
	if (owns_shapes && e->shape)
		for (int i = 0; i < e->count; ++i)
			imp_shape_destroy(e->shape[i]);
	free(e->box);
	free(e->shape);
	free(e->order);
	free(e->chunk_box);
	free(e);
}

static void free_model(model *m)
{
	bool convex = is_convex_kind(m->geom.kind);
	free_elem_set(m->ref, !convex && m->geom.kind != MB_COMPOUND);
#ifdef HAVE_FCL
	if (m->fcl[FCLM_AABB] != m->fcl[FCLM_OBBRSS])
		fclm_model_free(m->fcl[FCLM_AABB]);
	fclm_model_free(m->fcl[FCLM_OBBRSS]);
#endif
#ifdef HAVE_BULLET
	if (m->bt[BTM_GIMPACT] != m->bt[BTM_BVH])
		btm_model_free(m->bt[BTM_GIMPACT]);
	btm_model_free(m->bt[BTM_BVH]);
#endif
	imp_shape_destroy(m->shape);
	if (m->child_shapes)
		for (int i = 0; i < m->geom.child_count; ++i)
			imp_shape_destroy(m->child_shapes[i]);
	free(m->child_shapes);
	free(m->vertices);
	free(m->triangles);
	free(m->heights);
	free(m->children);
	free(m->child_poses);
	memset(m, 0, sizeof *m);
}

// ---------------------------------------------------------------------------
// Making the models' geometry.

static imp_quat random_rotation(bench_rng *r)
{
	// Shoemake's uniform quaternion.
	double u1 = bench_rng_unit(r), u2 = 2.0 * PI * bench_rng_unit(r), u3 = 2.0 * PI * bench_rng_unit(r);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	return imp_quat_make(a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3));
}

static imp_vec3 random_direction(bench_rng *r)
{
	double z = bench_rng_range(r, -1.0, 1.0), t = bench_rng_range(r, 0.0, 2.0 * PI), s = sqrt(1.0 - z * z);
	return imp_vec3_make(s * cos(t), s * sin(t), z);
}

static int alloc_mesh(model *m, int vertex_count, int triangle_count)
{
	m->vertices = malloc((size_t)vertex_count * sizeof *m->vertices);
	m->triangles = malloc((size_t)triangle_count * 3 * sizeof *m->triangles);
	if (!m->vertices || !m->triangles)
		return -1;
	m->geom = (mb_geom){.kind = MB_MESH,
			    .vertices = m->vertices,
			    .vertex_count = vertex_count,
			    .triangles = m->triangles,
			    .triangle_count = triangle_count};
	return 0;
}

/// A mesh file read by imp_shape_mesh_from_file, its arrays taken back
/// through imp_shape_vertices3 and imp_shape_face for the peers.
static int read_mesh_file(const char *path, model *m)
{
	imp_shape *s = NULL;
	imp_status st = imp_shape_mesh_from_file(path, 0.0, &s);
	if (st != IMP_OK) {
		fprintf(stderr, "mesh: %s: %s\n", path, imp_status_string(st));
		return -1;
	}
	int nv = imp_shape_vertices3(s, NULL, 0), nt = imp_shape_face_count(s);
	int rc = nv > 0 && nt > 0 ? alloc_mesh(m, nv, nt) : -1;
	if (rc == 0)
		imp_shape_vertices3(s, m->vertices, nv);
	for (int t = 0; rc == 0 && t < nt; ++t)
		if (imp_shape_face(s, t, &m->triangles[3 * t], 3) != 3)
			rc = -1;
	imp_shape_destroy(s);
	return rc;
}

/// A smooth function of a direction, about [-1, 1], with a fine ripple.
static double bumps(imp_vec3 d)
{
	return 0.5 * sin(5.0 * d.x + 1.0) * sin(4.0 * d.y + 2.0) * sin(6.0 * d.z + 3.0) +
	       0.3 * sin(13.0 * d.x) * sin(11.0 * d.y + 1.0) * sin(12.0 * d.z + 2.0) +
	       0.2 * sin(41.0 * d.x + 0.5) * sin(37.0 * d.y) * sin(43.0 * d.z + 1.5);
}

static void put_quad(int32_t *t, int v00, int v10, int v11, int v01)
{
	t[0] = v00, t[1] = v10, t[2] = v11;
	t[3] = v00, t[4] = v11, t[5] = v01;
}

/// A cube sphere of radius 1, n x n quads a face, 12 n^2 triangles, the
/// radius moved by up to 5% along bumps of the direction (the seams'
/// vertices are repeated, at the same points).
static int make_noisy_sphere(model *m, int n)
{
	int per_face = (n + 1) * (n + 1);
	if (alloc_mesh(m, 6 * per_face, 12 * n * n) != 0)
		return -1;
	int32_t *t = m->triangles;
	for (int f = 0; f < 6; ++f) {
		int axis = f / 2;
		double sign = f % 2 ? -1.0 : 1.0;
		for (int i = 0; i <= n; ++i)
			for (int j = 0; j <= n; ++j) {
				double u = -1.0 + 2.0 * i / n, w = -1.0 + 2.0 * j / n;
				double c[3];
				c[axis] = sign;
				c[(axis + 1) % 3] = sign * u;
				c[(axis + 2) % 3] = w;
				imp_vec3 d = imp_vec3_make(c[0], c[1], c[2]);
				d = imp_vec3_scale(1.0 / imp_vec3_length(d), d);
				m->vertices[f * per_face + i * (n + 1) + j] = imp_vec3_scale(1.0 + 0.05 * bumps(d), d);
			}
		for (int i = 0; i < n; ++i)
			for (int j = 0; j < n; ++j, t += 6) {
				int v = f * per_face + i * (n + 1) + j;
				put_quad(t, v, v + n + 1, v + n + 2, v + 1);
			}
	}
	return 0;
}

/// A torus about z, radii 1 and 0.35 (the tube's moved by up to 8%),
/// nu x nv quads, 2 nu nv triangles.
static int make_torus(model *m, int nu, int nv)
{
	if (alloc_mesh(m, nu * nv, 2 * nu * nv) != 0)
		return -1;
	for (int i = 0; i < nu; ++i)
		for (int j = 0; j < nv; ++j) {
			double u = 2.0 * PI * i / nu, v = 2.0 * PI * j / nv;
			double r = 0.35 * (1.0 + 0.08 * (0.6 * sin(3.0 * u + 2.0 * v) + 0.4 * sin(17.0 * u) * cos(5.0 * v)));
			double rho = 1.0 + r * cos(v);
			m->vertices[i * nv + j] = imp_vec3_make(rho * cos(u), rho * sin(u), r * sin(v));
		}
	int32_t *t = m->triangles;
	for (int i = 0; i < nu; ++i)
		for (int j = 0; j < nv; ++j, t += 6) {
			int i1 = (i + 1) % nu, j1 = (j + 1) % nv;
			put_quad(t, i * nv + j, i1 * nv + j, i1 * nv + j1, i * nv + j1);
		}
	return 0;
}

/// Rolling terrain of cells x cells cells, 0.05 apart, solid down to 1
/// below its lowest point.
static int make_terrain(model *m, int cells)
{
	int n = cells + 1;
	m->heights = malloc((size_t)n * (size_t)n * sizeof *m->heights);
	if (!m->heights)
		return -1;
	double dx = 0.05, lo = INFINITY;
	for (int r = 0; r < n; ++r)
		for (int c = 0; c < n; ++c) {
			double x = c * dx, y = r * dx;
			double h = 0.6 * sin(0.35 * x) * cos(0.27 * y) + 0.2 * sin(1.3 * x + 0.7 * y) +
				   0.03 * sin(7.1 * x) * sin(6.3 * y);
			m->heights[r * n + c] = h;
			lo = fmin(lo, h);
		}
	m->geom = (mb_geom){.kind = MB_HEIGHTFIELD,
			    .heights = m->heights,
			    .rows = n,
			    .cols = n,
			    .dx = dx,
			    .dy = dx,
			    .base_z = lo - 1.0};
	return 0;
}

static mb_geom convex_geom(mb_kind kind, double size)
{
	switch (kind) {
	case MB_BOX:
		return (mb_geom){.kind = MB_BOX, .half = imp_vec3_make(size, 0.6 * size, 0.4 * size)};
	case MB_SPHERE:
		return (mb_geom){.kind = MB_SPHERE, .radius = 0.8 * size};
	default:
		return (mb_geom){.kind = MB_CAPSULE, .radius = 0.4 * size, .half_length = 0.8 * size};
	}
}

/// count children (boxes, spheres, capsules in turn) at random poses about
/// the origin, within about 1 of it.
static int make_compound(model *m, int count, bench_rng *rng)
{
	m->children = calloc((size_t)count, sizeof *m->children);
	m->child_poses = calloc((size_t)count, sizeof *m->child_poses);
	if (!m->children || !m->child_poses)
		return -1;
	double size = 0.5 * pow(count, -1.0 / 3.0);
	static const mb_kind kinds[3] = {MB_BOX, MB_SPHERE, MB_CAPSULE};
	for (int i = 0; i < count; ++i) {
		m->children[i] = convex_geom(kinds[i % 3], size);
		imp_vec3 p = imp_vec3_scale(0.8 * cbrt(bench_rng_unit(rng)), random_direction(rng));
		m->child_poses[i] = imp_pose3_make(p, random_rotation(rng));
	}
	m->geom = (mb_geom){.kind = MB_COMPOUND,
			    .children = m->children,
			    .child_poses = m->child_poses,
			    .child_count = count};
	return 0;
}

/// The hull of 32 random points on an ellipsoid; its faces (impact's)
/// as fans of triangles, for FCL's fcl::Convex.
static int make_polytope32(model *m, bench_rng *rng)
{
	imp_vec3 pts[32];
	for (int i = 0; i < 32; ++i) {
		imp_vec3 d = random_direction(rng);
		pts[i] = imp_vec3_make(0.25 * d.x, 0.18 * d.y, 0.12 * d.z);
	}
	imp_shape *hull = NULL;
	if (imp_shape_polytope(pts, 32, 0.0, &hull) != IMP_OK)
		return -1;
	int nv = imp_shape_vertices3(hull, NULL, 0), nf = imp_shape_face_count(hull);
	int ntri = 0, idx[64];
	for (int f = 0; f < nf; ++f)
		ntri += imp_shape_face(hull, f, idx, 64) - 2;
	if (alloc_mesh(m, nv, ntri) != 0) {
		imp_shape_destroy(hull);
		return -1;
	}
	imp_shape_vertices3(hull, m->vertices, nv);
	int32_t *t = m->triangles;
	for (int f = 0; f < nf; ++f) {
		int k = imp_shape_face(hull, f, idx, 64);
		for (int j = 1; j + 1 < k; ++j, t += 3)
			t[0] = idx[0], t[1] = idx[j], t[2] = idx[j + 1];
	}
	imp_shape_destroy(hull);
	m->geom.kind = MB_CONVEX;
	return 0;
}

// ---------------------------------------------------------------------------
// The reference: a brute force over every pair of children.

static imp_aabb3 box_of_points(const imp_vec3 *p, int n)
{
	imp_aabb3 b = {p[0], p[0]};
	for (int i = 1; i < n; ++i) {
		b.lo = imp_vec3_make(fmin(b.lo.x, p[i].x), fmin(b.lo.y, p[i].y), fmin(b.lo.z, p[i].z));
		b.hi = imp_vec3_make(fmax(b.hi.x, p[i].x), fmax(b.hi.y, p[i].y), fmax(b.hi.z, p[i].z));
	}
	return b;
}

static imp_aabb3 box_union(imp_aabb3 a, imp_aabb3 b)
{
	imp_vec3 p[4] = {a.lo, a.hi, b.lo, b.hi};
	return box_of_points(p, 4);
}

/// Element e's corners in the model's frame: a triangle's three, or a
/// height-field prism's six (top then base). Returns the count.
static int element_points(const model *m, int e, imp_vec3 *out)
{
	const mb_geom *g = &m->geom;
	if (g->kind == MB_MESH) {
		for (int k = 0; k < 3; ++k)
			out[k] = g->vertices[g->triangles[3 * e + k]];
		return 3;
	}
	int cell = e / 2, t = e % 2, cw = g->cols - 1;
	int r = cell / cw, c = cell % cw;
	int cr[3][2] = {{c, r}, {c + 1, r + 1}, {c, r + 1}};
	if (t == 0)
		cr[1][0] = c + 1, cr[1][1] = r, cr[2][0] = c + 1, cr[2][1] = r + 1;
	for (int k = 0; k < 3; ++k) {
		double h = g->heights[(size_t)cr[k][1] * (size_t)g->cols + (size_t)cr[k][0]];
		out[k] = imp_vec3_make(cr[k][0] * g->dx, cr[k][1] * g->dy, h);
		out[k + 3] = imp_vec3_make(cr[k][0] * g->dx, cr[k][1] * g->dy, g->base_z);
	}
	return 6;
}

/// Element e as a convex shape in the model's frame, and its pose there.
static imp_shape *element_shape(const model *m, int e, imp_pose3 *local)
{
	*local = imp_pose3_identity();
	if (m->geom.kind == MB_COMPOUND) {
		*local = m->geom.child_poses[e];
		return m->child_shapes[e];
	}
	if (is_convex_kind(m->geom.kind))
		return m->shape;
	elem_set *s = m->ref;
	if (!s->shape[e]) {
		imp_vec3 p[6];
		int n = element_points(m, e, p);
		if (imp_shape_polytope(p, n, 0.0, &s->shape[e]) != IMP_OK)
			return NULL;
	}
	return s->shape[e];
}

typedef struct keyed {
	uint32_t key;
	int index;
} keyed;

static int compare_keyed(const void *x, const void *y)
{
	uint32_t a = ((const keyed *)x)->key, b = ((const keyed *)y)->key;
	return (a > b) - (a < b);
}

static uint32_t spread_bits(uint32_t v)
{
	uint32_t r = 0;
	for (int i = 0; i < 10; ++i)
		r |= ((v >> i) & 1u) << (3 * i);
	return r;
}

static uint32_t morton_of(imp_vec3 p, imp_aabb3 all)
{
	double c[3] = {p.x, p.y, p.z}, lo[3] = {all.lo.x, all.lo.y, all.lo.z}, hi[3] = {all.hi.x, all.hi.y, all.hi.z};
	uint32_t key = 0;
	for (int k = 0; k < 3; ++k) {
		double t = hi[k] > lo[k] ? (c[k] - lo[k]) / (hi[k] - lo[k]) : 0.0;
		uint32_t q = (uint32_t)fmin(1023.0, fmax(0.0, t * 1024.0));
		key |= spread_bits(q) << k;
	}
	return key;
}

static int make_elem_set(model *m)
{
	elem_set *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	m->ref = s;
	int n = s->count = m->elements;
	s->box = malloc((size_t)n * sizeof *s->box);
	s->shape = calloc((size_t)n, sizeof *s->shape);
	s->order = malloc((size_t)n * sizeof *s->order);
	s->chunk_count = (n + CHUNK - 1) / CHUNK;
	s->chunk_box = malloc((size_t)s->chunk_count * sizeof *s->chunk_box);
	keyed *keys = malloc((size_t)n * sizeof *keys);
	if (!s->box || !s->shape || !s->order || !s->chunk_box || !keys) {
		free(keys);
		return -1;
	}
	for (int e = 0; e < n; ++e) {
		if (m->geom.kind == MB_MESH || m->geom.kind == MB_HEIGHTFIELD) {
			imp_vec3 p[6];
			s->box[e] = box_of_points(p, element_points(m, e, p));
		} else {
			imp_pose3 local;
			const imp_shape *sh = element_shape(m, e, &local);
			imp_shape_aabb3(sh, local, &s->box[e]);
		}
	}
	imp_aabb3 all = s->box[0];
	for (int e = 1; e < n; ++e)
		all = box_union(all, s->box[e]);
	for (int e = 0; e < n; ++e) {
		imp_vec3 c = imp_vec3_scale(0.5, imp_vec3_add(s->box[e].lo, s->box[e].hi));
		keys[e] = (keyed){morton_of(c, all), e};
	}
	qsort(keys, (size_t)n, sizeof *keys, compare_keyed);
	for (int e = 0; e < n; ++e)
		s->order[e] = keys[e].index;
	free(keys);
	for (int k = 0; k < s->chunk_count; ++k) {
		int end = (k + 1) * CHUNK < n ? (k + 1) * CHUNK : n;
		imp_aabb3 b = s->box[s->order[k * CHUNK]];
		for (int j = k * CHUNK + 1; j < end; ++j)
			b = box_union(b, s->box[s->order[j]]);
		s->chunk_box[k] = b;
	}
	return 0;
}

/// A box of the model frame as a box of the world holding it.
static imp_aabb3 box_to_world(imp_aabb3 b, const imp_mat3 *r, imp_vec3 t)
{
	imp_vec3 c = imp_vec3_scale(0.5, imp_vec3_add(b.lo, b.hi)), h = imp_vec3_scale(0.5, imp_vec3_sub(b.hi, b.lo));
	imp_vec3 wc = imp_vec3_add(imp_mat3_apply(r, c), t);
	double w[3];
	for (int i = 0; i < 3; ++i)
		w[i] = fabs(r->m[i][0]) * h.x + fabs(r->m[i][1]) * h.y + fabs(r->m[i][2]) * h.z;
	imp_vec3 wh = imp_vec3_make(w[0], w[1], w[2]);
	return (imp_aabb3){imp_vec3_sub(wc, wh), imp_vec3_add(wc, wh)};
}

/// The distance between two boxes: a lower bound on that of anything in them.
static double box_gap(const imp_aabb3 *a, const imp_aabb3 *b)
{
	double dx = fmax(0.0, fmax(a->lo.x - b->hi.x, b->lo.x - a->hi.x));
	double dy = fmax(0.0, fmax(a->lo.y - b->hi.y, b->lo.y - a->hi.y));
	double dz = fmax(0.0, fmax(a->lo.z - b->hi.z, b->lo.z - a->hi.z));
	return sqrt(dx * dx + dy * dy + dz * dz);
}

/// The distance of elements ea of a and eb of b, impact's convex query.
static double element_distance(const model *a, int ea, imp_pose3 pa, const model *b, int eb, imp_pose3 pb)
{
	imp_pose3 la, lb;
	const imp_shape *sa = element_shape(a, ea, &la), *sb = element_shape(b, eb, &lb);
	if (!sa || !sb)
		return NAN;
	return imp_distance3(sa, imp_pose3_mul(pa, la), sb, imp_pose3_mul(pb, lb), NULL);
}

/// Every element's box in the world, in Morton order, and the chunks'.
static int world_boxes(const model *m, imp_pose3 p, imp_aabb3 **elems, imp_aabb3 **chunks)
{
	const elem_set *s = m->ref;
	imp_mat3 r = imp_mat3_from_quat(p.q);
	*elems = malloc((size_t)s->count * sizeof **elems);
	*chunks = malloc((size_t)s->chunk_count * sizeof **chunks);
	if (!*elems || !*chunks)
		return -1;
	for (int k = 0; k < s->count; ++k)
		(*elems)[k] = box_to_world(s->box[s->order[k]], &r, p.p);
	for (int k = 0; k < s->chunk_count; ++k)
		(*chunks)[k] = box_to_world(s->chunk_box[k], &r, p.p);
	return 0;
}

/// The least distance over every pair of children of a and b (0 when a
/// pair overlaps), each pair by impact's convex imp_distance3. Exact as a
/// brute force: a pair is skipped only when the boxes of its chunks or of
/// its children are at least the least distance found so far apart. That
/// bound starts from the pair of children impact's imp_closest3 names,
/// answered again here by the convex query (so any pair will do).
static double reference_distance(model *a, imp_pose3 pa, model *b, imp_pose3 pb)
{
	if ((!a->ref && make_elem_set(a) != 0) || (!b->ref && make_elem_set(b) != 0))
		return NAN;
	double best = INFINITY;
	imp_closest3_result cr;
	if (imp_closest3(a->shape, pa, b->shape, pb, NULL, &cr) == IMP_OK) {
		int ca = cr.child_a < 0 ? 0 : cr.child_a, cb = cr.child_b < 0 ? 0 : cr.child_b;
		if (ca < a->elements && cb < b->elements)
			best = element_distance(a, ca, pa, b, cb, pb);
		if (!(best > 0.0))
			return best;
	}
	imp_aabb3 *ea = NULL, *ca = NULL, *eb = NULL, *cb = NULL;
	if (world_boxes(a, pa, &ea, &ca) != 0 || world_boxes(b, pb, &eb, &cb) != 0) {
		best = NAN;
		goto done;
	}
	const elem_set *sa = a->ref, *sb = b->ref;
	for (int i = 0; i < sa->chunk_count; ++i) {
		for (int j = 0; j < sb->chunk_count; ++j) {
			if (box_gap(&ca[i], &cb[j]) >= best)
				continue;
			int ia_end = (i + 1) * CHUNK < sa->count ? (i + 1) * CHUNK : sa->count;
			int ib_end = (j + 1) * CHUNK < sb->count ? (j + 1) * CHUNK : sb->count;
			for (int x = i * CHUNK; x < ia_end; ++x) {
				if (box_gap(&ea[x], &cb[j]) >= best)
					continue;
				for (int y = j * CHUNK; y < ib_end; ++y) {
					if (box_gap(&ea[x], &eb[y]) >= best)
						continue;
					double d = element_distance(a, sa->order[x], pa, b, sb->order[y], pb);
					if (d < best)
						best = d;
					if (best <= 0.0)
						goto done;
				}
			}
		}
	}
done:
	free(ea);
	free(ca);
	free(eb);
	free(cb);
	return best;
}

// ---------------------------------------------------------------------------
// Cells.

typedef struct options {
	bool smoke;
	int reps, build_reps;
	double budget_ms;     ///< about the longest timed pass of a method
	double ref_budget_ms; ///< about the longest time a cell's references take
	int queries; ///< 0: each cell's own
	uint64_t seed;
	const char *only;
	const char *mesh_dir;
} options;

typedef enum group { G_DISTANT, G_CLOSE, G_OVERLAP, G_COUNT } group;

static const char *group_name(group g)
{
	static const char *const names[G_COUNT] = {"distant", "close", "overlapping"};
	return names[g];
}

/// Every timed method: four libraries (method % 4: a family) at two
/// levels (method / 4 + 1).
typedef enum method {
	M_IMP_OVERLAP,
	M_FCL_OBBRSS_OVERLAP,
	M_FCL_AABB_OVERLAP,
	M_BT_OVERLAP,
	M_IMP_DISTANCE,
	M_FCL_OBBRSS_DISTANCE,
	M_FCL_AABB_DISTANCE,
	M_BT_DISTANCE,
	M_COUNT
} method;

typedef enum family { F_IMPACT, F_FCL_OBBRSS, F_FCL_AABB, F_BULLET } family;

static int level_of(method m)
{
	return m < M_IMP_DISTANCE ? 1 : 2;
}

static family family_of(method m)
{
	return (family)(m % 4);
}

typedef struct cell {
	char name[64];
	group g;
	int a[MAX_SIDE], na, b[MAX_SIDE], nb; ///< models each side draws from
	int n;      ///< queries
	int nref;   ///< queries 0 .. nref-1 have a reference
	double scale;
	bool terrain; ///< a is a height field at the identity; b falls onto it
	mb_query *q;
	double *ref;
	double max_distance; ///< impact's, over the queries (Bullet's cutoff)
	// Results.
	bool avail[M_COUNT];
	double ns[M_COUNT];
	int timed[M_COUNT]; ///< queries 0 .. timed-1 were timed (fewer than n for slow methods)
	double err[M_COUNT];
	int wrong[M_COUNT]; ///< overlap verdicts (level 1) or distance signs (level 2) against the reference
	int none[M_COUNT];  ///< no answer (NaN)
	bool done;
} cell;

/// Whether impact's signed distance d is in the cell's group.
static bool in_group(group g, double d, bool overlap)
{
	switch (g) {
	case G_DISTANT:
		return d > 0.05 && !overlap;
	case G_CLOSE:
		return d > 0.0 && d < 1e-3 && !overlap;
	default:
		return d < 0.0 && overlap;
	}
}

static double bound_radius(const model *m)
{
	imp_aabb3 b;
	imp_shape_aabb3(m->shape, imp_pose3_identity(), &b);
	double r = 0.0;
	imp_vec3 c[2] = {b.lo, b.hi};
	for (int k = 0; k < 8; ++k)
		r = fmax(r, imp_vec3_length(imp_vec3_make(c[k & 1].x, c[(k >> 1) & 1].y, c[(k >> 2) & 1].z)));
	return r;
}

/// Where b starts: apart from a, from where it moves onto a's surface.
static bool start_pose(const cell *c, model *ma, imp_pose3 pa, model *mb, imp_pose3 *pb, bench_rng *rng)
{
	pb->q = random_rotation(rng);
	double rb = bound_radius(mb);
	imp_aabb3 box;
	imp_shape_aabb3(ma->shape, pa, &box);
	if (c->terrain) {
		double margin = 1.0;
		pb->p = imp_vec3_make(bench_rng_range(rng, box.lo.x + margin, box.hi.x - margin),
				      bench_rng_range(rng, box.lo.y + margin, box.hi.y - margin), box.hi.z + rb + 0.3);
		return true;
	}
	// Half the time anywhere in a's box (inside a torus's hole, a closed
	// mesh, between a compound's children), when b is apart from a there.
	if (bench_rng_unit(rng) < 0.5) {
		pb->p = imp_vec3_make(bench_rng_range(rng, box.lo.x, box.hi.x), bench_rng_range(rng, box.lo.y, box.hi.y),
				      bench_rng_range(rng, box.lo.z, box.hi.z));
		if (imp_distance3(ma->shape, pa, mb->shape, *pb, NULL) > 0.0)
			return true;
	}
	imp_vec3 centre = imp_vec3_scale(0.5, imp_vec3_add(box.lo, box.hi));
	double ra = 0.5 * imp_vec3_length(imp_vec3_sub(box.hi, box.lo));
	pb->p = imp_vec3_add(centre, imp_vec3_scale(ra + rb + 0.2 * c->scale, random_direction(rng)));
	return true;
}

/// Query i of the cell: b moved along the normal of impact's closest
/// points until impact's signed distance is in the group.
static bool place_query(cell *c, model *models, bench_rng *rng, mb_query *q)
{
	q->a = c->a[bench_rng_next(rng) % (uint64_t)c->na];
	q->b = c->b[bench_rng_next(rng) % (uint64_t)c->nb];
	model *ma = &models[q->a], *mb = &models[q->b];
	q->pa = imp_pose3_identity();
	if (!c->terrain)
		q->pa.q = random_rotation(rng);
	if (!start_pose(c, ma, q->pa, mb, &q->pb, rng))
		return false;
	double target = c->g == G_DISTANT ? c->scale * bench_rng_range(rng, 0.06, 0.5)
			: c->g == G_CLOSE ? bench_rng_range(rng, 1e-5, 9e-4)
					  : -c->scale * bench_rng_range(rng, 0.01, 0.1);
	for (int it = 0; it < 12; ++it) {
		imp_closest3_result r;
		if (imp_closest3(ma->shape, q->pa, mb->shape, q->pb, NULL, &r) != IMP_OK ||
		    r.state == IMP_STATE_ITERATION_LIMIT || r.state == IMP_STATE_DEGENERATE)
			return false;
		if (in_group(c->g, r.distance, imp_overlap3(ma->shape, q->pa, mb->shape, q->pb, NULL))) {
			c->max_distance = fmax(c->max_distance, fmax(r.distance, 0.0));
			return true;
		}
		q->pb.p = imp_vec3_add(q->pb.p, imp_vec3_scale(target - r.distance, r.normal));
	}
	return false;
}

static int make_queries(cell *c, model *models, uint64_t seed)
{
	bench_rng rng = {seed};
	c->q = malloc((size_t)c->n * sizeof *c->q);
	if (!c->q)
		return -1;
	int tries = 0;
	for (int i = 0; i < c->n;) {
		if (place_query(c, models, &rng, &c->q[i]))
			++i;
		else if (++tries > 50 * c->n + 100)
			return -1;
	}
	return 0;
}

// ---------------------------------------------------------------------------
// Running a cell.

typedef struct runner {
	cell *c;
	model *models;
#ifdef HAVE_FCL
	fclm_set *fcl[FCLM_VARIANT_COUNT];
#endif
#ifdef HAVE_BULLET
	btm_set *bt;
#endif
} runner;

/// Query i by method m: level 1, 1 (overlap) or 0; level 2, the distance
/// (0 when overlapping; NaN when the method gives none). One library call.
static double query_value(const runner *r, method m, int i)
{
	int level = level_of(m);
	switch (family_of(m)) {
	case F_IMPACT: {
		const mb_query *q = &r->c->q[i];
		const imp_shape *a = r->models[q->a].shape, *b = r->models[q->b].shape;
		return level == 1 ? (double)imp_overlap3(a, q->pa, b, q->pb, NULL) : imp_distance3(a, q->pa, b, q->pb, NULL);
	}
#ifdef HAVE_FCL
	case F_FCL_OBBRSS:
		return fclm_query(r->fcl[FCLM_OBBRSS], level, i);
	case F_FCL_AABB:
		return fclm_query(r->fcl[FCLM_AABB], level, i);
#endif
#ifdef HAVE_BULLET
	case F_BULLET:
		return btm_query(r->bt, level, i);
#endif
	default:
		return NAN;
	}
}

/// Queries 0 .. count-1, their answers summed so that no call can be dropped.
static double run_loop(const runner *r, method m, int count)
{
	double sum = 0.0;
	for (int i = 0; i < count; ++i) {
		double v = query_value(r, m, i);
		if (!isnan(v))
			sum += v;
	}
	return sum;
}

#ifdef HAVE_BULLET
/// The cell's mesh-against-mesh pairs use Bullet's GImpact shapes.
static bool cell_is_mesh_mesh(const cell *c, const model *models)
{
	for (int i = 0; i < c->na; ++i)
		for (int j = 0; j < c->nb; ++j)
			if (models[c->a[i]].geom.kind == MB_MESH && models[c->b[j]].geom.kind == MB_MESH)
				return true;
	return false;
}
#endif

#ifdef HAVE_FCL
static bool cell_has_bvh(const cell *c, const model *models)
{
	for (int i = 0; i < c->na; ++i)
		if (has_bvh(&models[c->a[i]]))
			return true;
	for (int j = 0; j < c->nb; ++j)
		if (has_bvh(&models[c->b[j]]))
			return true;
	return false;
}
#endif

static int prepare_runner(runner *r, cell *c, model *models, int model_count)
{
	memset(r, 0, sizeof *r);
	r->c = c;
	r->models = models;
	c->avail[M_IMP_OVERLAP] = c->avail[M_IMP_DISTANCE] = true;
#ifdef HAVE_FCL
	{
		fclm_model **fm = malloc((size_t)model_count * sizeof *fm);
		if (!fm)
			return -1;
		for (int v = 0; v < FCLM_VARIANT_COUNT; ++v) {
			if (v == FCLM_AABB && !cell_has_bvh(c, models))
				continue;
			for (int k = 0; k < model_count; ++k)
				fm[k] = models[k].fcl[v];
			r->fcl[v] = fclm_prepare(fm, c->q, c->n);
		}
		free(fm);
		c->avail[M_FCL_OBBRSS_OVERLAP] = c->avail[M_FCL_OBBRSS_DISTANCE] = r->fcl[FCLM_OBBRSS] != NULL;
		c->avail[M_FCL_AABB_OVERLAP] = c->avail[M_FCL_AABB_DISTANCE] = r->fcl[FCLM_AABB] != NULL;
		for (int i = 0; i < c->n && c->avail[M_FCL_AABB_DISTANCE]; ++i)
			c->avail[M_FCL_AABB_DISTANCE] = fclm_has_distance(models[c->q[i].a].fcl[FCLM_AABB],
									  models[c->q[i].b].fcl[FCLM_AABB]);
	}
#endif
#ifdef HAVE_BULLET
	{
		btm_model **bm = malloc((size_t)model_count * sizeof *bm);
		if (!bm)
			return -1;
		btm_variant v = cell_is_mesh_mesh(c, models) ? BTM_GIMPACT : BTM_BVH;
		for (int k = 0; k < model_count; ++k)
			bm[k] = models[k].bt[v];
		r->bt = btm_prepare(bm, c->q, c->n, 1.05 * c->max_distance + 1e-6);
		free(bm);
		c->avail[M_BT_OVERLAP] = r->bt != NULL;
		c->avail[M_BT_DISTANCE] = r->bt != NULL && c->n > 0 &&
					  btm_has_distance(models[c->q[0].a].bt[v], models[c->q[0].b].bt[v]);
	}
#endif
	(void)model_count;
	return 0;
}

static void free_runner(runner *r)
{
#ifdef HAVE_FCL
	for (int v = 0; v < FCLM_VARIANT_COUNT; ++v)
		if (r->fcl[v])
			fclm_set_free(r->fcl[v]);
#endif
#ifdef HAVE_BULLET
	if (r->bt)
		btm_set_free(r->bt);
#endif
	(void)r;
}

static void track_max(double *m, double v)
{
	if (!(v <= *m)) // NaN wins, so a NaN answer shows in the table
		*m = v;
}

/// The references, then every method's answers against them; no more
/// references (beyond REF_BIG_COUNT) once they have taken budget_ns.
static void check_cell(const runner *r, double budget_ns)
{
	cell *c = r->c;
	double spent = 0.0;
	for (int i = 0; i < c->nref; ++i) {
		if (i >= REF_BIG_COUNT && spent > budget_ns) {
			c->nref = i;
			break;
		}
		const mb_query *q = &c->q[i];
		double t0 = bench_now_ns();
		double ref = c->ref[i] = reference_distance(&r->models[q->a], q->pa, &r->models[q->b], q->pb);
		spent += bench_now_ns() - t0;
		for (int m = 0; m < M_COUNT; ++m) {
			if (!c->avail[m])
				continue;
			double v = query_value(r, (method)m, i);
			if (level_of((method)m) == 1) {
				c->wrong[m] += (v > 0.0) != (ref <= 0.0);
				continue;
			}
			if (isnan(v)) {
				c->none[m]++;
				continue;
			}
			c->wrong[m] += (v <= 0.0) != (ref <= 0.0);
			track_max(&c->err[m], fabs(v - ref));
		}
	}
}

/// The untimed passes of a method over 1, 2, 4, ... queries, until all
/// or until one pass takes half the budget: the number of queries to time.
static int warm_up(const runner *r, method m, double budget_ns)
{
	int n = r->c->n, k = 1;
	for (;;) {
		double t0 = bench_now_ns();
		g_sink += run_loop(r, m, k);
		if (k >= n || bench_now_ns() - t0 > 0.5 * budget_ns)
			break;
		k = 2 * k < n ? 2 * k : n;
	}
	int least = n < MIN_TIMED ? n : MIN_TIMED;
	return k > least ? k : least;
}

/// Every method `reps` times over the cell's first queries (all of them,
/// or as many as take about budget_ns), taking turns, after untimed passes.
static int time_cell(const runner *r, int reps, double budget_ns)
{
	cell *c = r->c;
	double *samples = malloc(sizeof(double) * (size_t)reps * M_COUNT);
	if (!samples)
		return -1;
	for (int m = 0; m < M_COUNT; ++m)
		if (c->avail[m])
			c->timed[m] = warm_up(r, (method)m, budget_ns);
	for (int rep = 0; rep < reps; ++rep) {
		for (int m = 0; m < M_COUNT; ++m) {
			if (!c->avail[m])
				continue;
			double t0 = bench_now_ns();
			double acc = run_loop(r, (method)m, c->timed[m]);
			samples[m * reps + rep] = (bench_now_ns() - t0) / c->timed[m];
			g_sink += acc;
		}
	}
	for (int m = 0; m < M_COUNT; ++m)
		c->ns[m] = c->avail[m] ? bench_median(samples + m * reps, reps) : NAN;
	free(samples);
	return 0;
}

static int run_cell(cell *c, model *models, int model_count, const options *opt, uint64_t seed)
{
	for (int m = 0; m < M_COUNT; ++m)
		c->ns[m] = NAN;
	if (make_queries(c, models, seed) != 0) {
		fprintf(stderr, "mesh: could not place the queries of %s %s\n", c->name, group_name(c->g));
		return -1;
	}
	c->ref = calloc((size_t)c->nref, sizeof *c->ref);
	runner r;
	if (!c->ref || prepare_runner(&r, c, models, model_count) != 0)
		return -1;
	double t0 = bench_now_ns();
	check_cell(&r, opt->ref_budget_ms * 1e6);
	double t1 = bench_now_ns();
	int rc = time_cell(&r, opt->reps, opt->budget_ms * 1e6);
	free_runner(&r);
	c->done = rc == 0;
	fprintf(stderr, "mesh: %s %s done (reference %.1f s, timing %.1f s)\n", c->name, group_name(c->g),
		(t1 - t0) * 1e-9, (bench_now_ns() - t1) * 1e-9);
	return rc;
}

// ---------------------------------------------------------------------------
// The report.


typedef struct report {
	options opt;
	char machine[400], cpu[256], date[64];
	int cpus;
	model *models[64];
	int model_count;
	cell *cells;
	int cell_count, cell_cap;
	char notes[4][1200];
	int note_count;
} report;

static void put_build(FILE *f, const build_stat *b)
{
	if (!b->done)
		fprintf(f, " - | - |");
	else
		fprintf(f, " %.2f | %zu |", b->ms, b->bytes);
}

static void put_err(FILE *f, const cell *c, method m)
{
	if (!c->avail[m] || c->nref == 0)
		fprintf(f, " - |");
	else if (c->wrong[m] > 0 || c->none[m] > 0)
		fprintf(f, " %.1e (%d wrong, %d none) |", c->err[m], c->wrong[m], c->none[m]);
	else
		fprintf(f, " %.1e |", c->err[m]);
}

static const char *kind_name(mb_kind k)
{
	static const char *const names[] = {"mesh", "height field", "compound", "box", "sphere", "capsule", "convex"};
	return names[k];
}

static void print_header(FILE *f, const report *rep)
{
	fprintf(f, "# mesh: non-convex queries, impact against FCL and Bullet\n\n");
	fprintf(f, "- machine: %s; CPU: %s (%d logical CPUs)\n", rep->machine, rep->cpu, rep->cpus);
#if defined(__OPTIMIZE__)
	const char *optimised = "optimised (-O2 from bench/meson.build)";
#else
	const char *optimised = "NOT optimised: the numbers mean nothing";
#endif
	fprintf(f, "- compiler: %s, %s\n", __VERSION__, optimised);
	fprintf(f, "- impact %d: imp_overlap3, imp_distance3, no cache; STL files read by imp_shape_mesh_from_file\n",
		imp_version());
	fprintf(f, "- peers:");
#ifdef HAVE_FCL
	fprintf(f, " FCL %s (fcl::collide, fcl::distance with default requests; BVHModel<OBBRSSd> and "
		   "<AABBd>; compounds: a loop over children with AABB checks);",
		fclm_version());
#else
	fprintf(f, " FCL skipped (not found at build time);");
#endif
#ifdef HAVE_BULLET
	fprintf(f, " Bullet %s (%s; btCollisionWorld::contactPairTest: btBvhTriangleMeshShape against convex, "
		   "btGImpactMeshShape mesh against mesh, btHeightfieldTerrainShape, btCompoundShape)",
		btm_version(), btm_precision());
#else
	fprintf(f, " Bullet skipped (not found at build time)");
#endif
	fprintf(f, "\n- seed 0x%" PRIx64 "%s; time: ns per query, median of %d round-robin repetitions over the "
		   "cell's N queries, after untimed passes of each method; a method slower than %.0f ms a pass is "
		   "timed on the first k >= %d queries only, shown as `ns (k)`; run %s\n",
		rep->opt.seed, rep->opt.smoke ? " (--smoke: small models, the numbers are not measurements)" : "",
		rep->opt.reps, rep->opt.budget_ms, MIN_TIMED, rep->date);
	for (int i = 0; i < rep->note_count; ++i)
		fprintf(f, "- %s\n", rep->notes[i]);
	fprintf(f, "\n");
}

static void print_models(FILE *f, const report *rep)
{
	fprintf(f, "## Models: build time (ms, median of %d) and memory (bytes, heap growth by mallinfo2 over "
		   "16384 / children copies, 1 to %d)\n\n",
		rep->opt.build_reps, MAX_COPIES);
	fprintf(f, "impact's compounds do not own their children (made before, not counted); FCL's and Bullet's "
		   "include theirs. Bullet's meshes count the vertex and index arrays the shapes point into.\n\n");
	fprintf(f, "| model | kind | children | impact ms | impact bytes | FCL OBBRSS ms | FCL OBBRSS bytes | "
		   "FCL AABB ms | FCL AABB bytes | Bullet ms | Bullet bytes | Bullet GImpact ms | Bullet GImpact "
		   "bytes |\n");
	fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < rep->model_count; ++i) {
		const model *m = rep->models[i];
		fprintf(f, "| %s | %s | %d |", m->name, kind_name(m->geom.kind), m->elements);
		put_build(f, &m->imp_build);
#ifdef HAVE_FCL
		put_build(f, &m->fcl_build[FCLM_OBBRSS]);
		put_build(f, &m->fcl_build[FCLM_AABB]);
#else
		fprintf(f, " - | - | - | - |");
#endif
#ifdef HAVE_BULLET
		put_build(f, &m->bt_build[BTM_BVH]);
		put_build(f, &m->bt_build[BTM_GIMPACT]);
#else
		fprintf(f, " - | - | - | - |");
#endif
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static void print_level(FILE *f, const report *rep, int level)
{
	method base = level == 1 ? M_IMP_OVERLAP : M_IMP_DISTANCE;
	if (level == 1) {
		fprintf(f, "## Overlap (yes/no): ns per query\n\n");
		fprintf(f, "wrong: verdicts against the reference over the first `ref` queries of the cell.\n\n");
		fprintf(f, "| cell | group | N | ref | impact | FCL OBBRSS | FCL AABB | Bullet | impact/FCL OBBRSS | "
			   "impact/FCL AABB | impact/Bullet | wrong impact/FCL OBBRSS/FCL AABB/Bullet |\n");
		fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	} else {
		fprintf(f, "## Distance: ns per query, and errors\n\n");
		fprintf(f, "err: max |distance - reference| over the first `ref` queries (0 for overlapping pairs); "
			   "wrong: distances that are 0 when the reference is not, or back; none: no answer (Bullet: "
			   "no contact within its cutoff). Bullet's cutoff (m_closestDistanceThreshold) is 1.05 times "
			   "the largest distance of the cell's queries. No Bullet distance for mesh against mesh: "
			   "btGImpactCollisionAlgorithm reports contacts of touching triangles only. No FCL AABB "
			   "distance against a convex shape: FCL 0.7 has none between BVHModel<AABBd> and a shape.\n\n");
		fprintf(f, "| cell | group | N | ref | impact | FCL OBBRSS | FCL AABB | Bullet | impact/FCL OBBRSS | "
			   "impact/FCL AABB | impact/Bullet | err impact | err FCL OBBRSS | err FCL AABB | err Bullet |\n");
		fprintf(f, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	}
	for (int i = 0; i < rep->cell_count; ++i) {
		const cell *c = &rep->cells[i];
		if (!c->done)
			continue;
		fprintf(f, "| %s | %s | %d | %d |", c->name, group_name(c->g), c->n, c->nref);
		for (int k = 0; k < 4; ++k) {
			if (c->avail[base + k] && c->timed[base + k] < c->n) {
				fprintf(f, " %.0f (%d) |", c->ns[base + k], c->timed[base + k]);
				continue;
			}
			bench_put_ns(f, c->ns[base + k]);
		}
		for (int k = 1; k < 4; ++k)
			bench_put_ratio(f, c->ns[base], c->ns[base + k]);
		if (level == 1) {
			fprintf(f, " %d/", c->wrong[base]);
			for (int k = 1; k < 4; ++k) {
				if (c->avail[base + k])
					fprintf(f, "%d", c->wrong[base + k]);
				else
					fprintf(f, "-");
				fprintf(f, k < 3 ? "/" : " |");
			}
		} else {
			for (int k = 0; k < 4; ++k)
				put_err(f, c, (method)(base + k));
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static void print_report(FILE *f, const report *rep)
{
	print_header(f, rep);
	print_models(f, rep);
	print_level(f, rep, 1);
	print_level(f, rep, 2);
}

// ---------------------------------------------------------------------------
// The sections: each makes its models, runs its cells, frees its models.

static cell *add_cell(report *rep, const char *name, group g, int n, int nref, double scale)
{
	if (rep->cell_count == rep->cell_cap) {
		int cap = rep->cell_cap ? 2 * rep->cell_cap : 64;
		cell *cells = realloc(rep->cells, (size_t)cap * sizeof *cells);
		if (!cells)
			return NULL;
		rep->cells = cells;
		rep->cell_cap = cap;
	}
	cell *c = &rep->cells[rep->cell_count++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	c->g = g;
	c->n = n;
	c->nref = nref < n ? nref : n;
	c->scale = scale;
	return c;
}

typedef struct section {
	model models[16];
	int count;
	int first_cell;
} section;

static model *new_model(section *s, const char *name)
{
	model *m = &s->models[s->count++];
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", name);
	return m;
}

static int model_index(const section *s, const model *m)
{
	return (int)(m - s->models);
}

static bool wanted(const report *rep, const char *name)
{
	return !rep->opt.only || strstr(name, rep->opt.only) != NULL;
}

/// The cells of one pairing, one a group.
static void add_groups(report *rep, const char *name, const int *a, int na, const int *b, int nb, int n, int nref,
		       double scale, bool terrain)
{
	if (!wanted(rep, name))
		return;
	for (int g = 0; g < G_COUNT; ++g) {
		cell *c = add_cell(rep, name, (group)g, n, nref, scale);
		if (!c)
			return;
		memcpy(c->a, a, (size_t)na * sizeof *a);
		memcpy(c->b, b, (size_t)nb * sizeof *b);
		c->na = na;
		c->nb = nb;
		c->terrain = terrain;
	}
}

/// Builds the section's models, runs the cells added since first_cell,
/// frees the models. Returns the number of failures.
static int run_section(report *rep, section *s)
{
	int failures = 0;
	if (rep->cell_count == s->first_cell)
		return 0; // --only left none: nothing to build
	for (int k = 0; k < s->count; ++k) {
		if (s->models[k].shape)
			continue; // the shared convex shapes, built once
		if (build_model(&s->models[k], rep->opt.build_reps) != 0) {
			fprintf(stderr, "mesh: could not build %s\n", s->models[k].name);
			return 1;
		}
		if (rep->model_count < 64) {
			model *copy = malloc(sizeof *copy);
			if (copy) {
				*copy = s->models[k];
				rep->models[rep->model_count++] = copy;
			}
		}
	}
	for (int i = s->first_cell; i < rep->cell_count; ++i) {
		cell *c = &rep->cells[i];
		if (run_cell(c, s->models, s->count, &rep->opt, rep->opt.seed + (uint64_t)i * 7919u) != 0)
			++failures;
		free(c->q);
		free(c->ref);
		c->q = NULL;
		c->ref = NULL;
	}
	return failures;
}

/// The four convex shapes every section may pair its models with.
enum { CX_BOX, CX_SPHERE, CX_CAPSULE, CX_POLY, CX_COUNT };

static int add_convex_models(section *s, bench_rng *rng)
{
	static const char *const names[CX_COUNT] = {"box", "sphere", "capsule", "polytope32"};
	static const mb_kind kinds[3] = {MB_BOX, MB_SPHERE, MB_CAPSULE};
	for (int k = 0; k < CX_COUNT; ++k) {
		model *m = new_model(s, names[k]);
		if (k < 3)
			m->geom = convex_geom(kinds[k], 0.25);
		else if (make_polytope32(m, rng) != 0)
			return -1;
	}
	return 0;
}

/// A section whose first CX_COUNT models are the shared convex ones (owned
/// by `shared`: their shapes, the peers' models, the reference's view).
static section *open_section(const report *rep, const section *shared)
{
	section *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	for (int k = 0; k < CX_COUNT; ++k)
		s->models[k] = shared->models[k];
	s->count = CX_COUNT;
	s->first_cell = rep->cell_count;
	return s;
}

/// Runs the section's cells when its models were made (made == 0), frees
/// its own models and it. Returns the number of failures.
static int close_section(report *rep, section *s, int made)
{
	int failures = made == 0 ? run_section(rep, s) : 1;
	if (made != 0)
		fprintf(stderr, "mesh: out of memory\n");
	for (int j = CX_COUNT; j < s->count; ++j)
		free_model(&s->models[j]);
	free(s);
	return failures;
}

/// The queries a cell of the section gets (`full` unless the options say).
static int queries_for(const report *rep, int full)
{
	return rep->opt.queries ? rep->opt.queries : rep->opt.smoke ? SMOKE_QUERIES : full;
}

static int section_ur10(report *rep, const section *convex)
{
	static const char *const links[7] = {"base", "shoulder", "upperarm", "forearm", "wrist1", "wrist2", "wrist3"};
	section *s = open_section(rep, convex);
	if (!s)
		return 1;
	int idx[7];
	for (int k = 0; k < 7; ++k) {
		char path[1024], name[64];
		snprintf(path, sizeof path, "%s/ur10-%s.stl", rep->opt.mesh_dir, links[k]);
		snprintf(name, sizeof name, "ur10 %s", links[k]);
		model *m = new_model(s, name);
		if (read_mesh_file(path, m) != 0) {
			fprintf(stderr, "mesh: cannot read %s: the UR10 cells are skipped\n", path);
			snprintf(rep->notes[rep->note_count++], sizeof rep->notes[0],
				 "UR10 cells skipped: cannot read %s", path);
			s->first_cell = rep->cell_count; // no cells: nothing runs
			close_section(rep, s, 0);
			return 0;
		}
		idx[k] = model_index(s, m);
	}
	int n = queries_for(rep, 100);
	add_groups(rep, "ur10 link-link", idx, 7, idx, 7, n, n, 0.5, false);
	return close_section(rep, s, 0);
}

static int section_procedural(report *rep, const section *convex, int size_index)
{
	static const char *const size_names[3] = {"1k", "10k", "100k"};
	static const int sphere_n[3] = {9, 29, 91};
	static const int torus_u[3] = {32, 100, 316};
	static const int default_n[3] = {100, 60, 40};
	section *s = open_section(rep, convex);
	if (!s)
		return 1;
	char name[64];
	snprintf(name, sizeof name, "sphere %s", size_names[size_index]);
	model *sphere = new_model(s, name);
	snprintf(name, sizeof name, "torus %s", size_names[size_index]);
	model *torus = new_model(s, name);
	if (make_noisy_sphere(sphere, sphere_n[size_index]) != 0 ||
	    make_torus(torus, torus_u[size_index], torus_u[size_index] / 2) != 0)
		return close_section(rep, s, -1);
	int n = queries_for(rep, default_n[size_index]);
	int nref = torus->elements >= REF_BIG ? REF_BIG_COUNT : n;
	int si = model_index(s, sphere), ti = model_index(s, torus);
	snprintf(name, sizeof name, "sphere-torus %s", size_names[size_index]);
	add_groups(rep, name, &si, 1, &ti, 1, n, nref, 1.0, false);
	static const char *const cx[CX_COUNT] = {"box", "sphere", "capsule", "polytope32"};
	for (int k = 0; k < CX_COUNT; ++k) {
		snprintf(name, sizeof name, "torus %s-%s", size_names[size_index], cx[k]);
		add_groups(rep, name, &ti, 1, &k, 1, n, nref, 1.0, false);
	}
	return close_section(rep, s, 0);
}

static int section_terrain(report *rep, const section *convex)
{
	section *s = open_section(rep, convex);
	if (!s)
		return 1;
	int cells = rep->opt.smoke ? 64 : 512;
	char name[64];
	snprintf(name, sizeof name, "terrain %dx%d", cells, cells);
	model *t = new_model(s, name);
	if (make_terrain(t, cells) != 0)
		return close_section(rep, s, -1);
	int n = queries_for(rep, 100);
	int ti = model_index(s, t);
	int nref = 2 * cells * cells >= REF_BIG ? REF_BIG_COUNT : n;
	static const char *const cx[3] = {"box", "sphere", "capsule"};
	for (int k = 0; k < 3; ++k) {
		snprintf(name, sizeof name, "terrain %d-%s", cells, cx[k]);
		add_groups(rep, name, &ti, 1, &k, 1, n, nref, 1.0, true);
	}
	return close_section(rep, s, 0);
}

static int section_compounds(report *rep, const section *convex, int children)
{
	section *s = open_section(rep, convex);
	if (!s)
		return 1;
	char name[64];
	snprintf(name, sizeof name, "compound %d", children);
	model *m = new_model(s, name);
	bench_rng rng = {rep->opt.seed ^ (uint64_t)children};
	if (make_compound(m, children, &rng) != 0)
		return close_section(rep, s, -1);
	int n = queries_for(rep, 300);
	int mi = model_index(s, m);
	static const int cx[3] = {CX_BOX, CX_SPHERE, CX_CAPSULE};
	snprintf(name, sizeof name, "compound %d-compound %d", children, children);
	add_groups(rep, name, &mi, 1, &mi, 1, n, n, 1.0, false);
	snprintf(name, sizeof name, "compound %d-convex", children);
	add_groups(rep, name, &mi, 1, cx, 3, n, n, 1.0, false);
	return close_section(rep, s, 0);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mesh [--smoke] [--reps N] [--queries N] [--budget MS] [--seed S] [--only TEXT] [--meshes DIR] [--out FILE]\n"
		   "  --smoke       small models, %d queries a cell, 1 repetition: checks every path quickly\n"
		   "  --reps N      timed repetitions per cell, the median is reported (default %d)\n"
		   "  --queries N   queries per cell (default: 100; 60 on 10k, 40 on 100k triangles; 300 on compounds)\n"
		   "  --budget MS   a method is timed on the first queries of a cell that take about MS\n"
		   "                (at least %d of them; default 100, --smoke 5)\n"
		   "  --seed S      seed (default 0x%x)\n"
		   "  --only TEXT   only the cells whose name contains TEXT (\"torus 10k\", \"compound\", ...)\n"
		   "  --meshes DIR  the UR10 STL files (default: %s/../shared/data/meshes)\n"
		   "  --out FILE    also write the Markdown report to FILE\n",
		SMOKE_QUERIES, DEFAULT_REPS, MIN_TIMED, DEFAULT_SEED, MESH_SOURCE_ROOT);
}

int main(int argc, char **argv)
{
	static report rep;
	rep.opt.reps = DEFAULT_REPS;
	rep.opt.seed = DEFAULT_SEED;
	static char default_dir[1024];
	snprintf(default_dir, sizeof default_dir, "%s/../shared/data/meshes", MESH_SOURCE_ROOT);
	rep.opt.mesh_dir = default_dir;
	const char *out_path = NULL;
	bool reps_set = false;
	int budget = 0;
	for (int i = 1; i < argc; ++i) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			rep.opt.smoke = true;
		} else if (!strcmp(a, "--reps") && v && bench_parse_int(v, 1, 1000, &rep.opt.reps)) {
			reps_set = true;
			++i;
		} else if (!strcmp(a, "--queries") && v && bench_parse_int(v, 1, 100000, &rep.opt.queries)) {
			++i;
		} else if (!strcmp(a, "--budget") && v && bench_parse_int(v, 1, 100000, &budget)) {
			rep.opt.budget_ms = budget;
			++i;
		} else if (!strcmp(a, "--seed") && v) {
			char *end;
			errno = 0;
			rep.opt.seed = strtoull(v, &end, 0);
			if (errno || end == v || *end) {
				usage(stderr);
				return 2;
			}
			++i;
		} else if (!strcmp(a, "--only") && v) {
			rep.opt.only = v;
			++i;
		} else if (!strcmp(a, "--meshes") && v) {
			rep.opt.mesh_dir = v;
			++i;
		} else if (!strcmp(a, "--out") && v) {
			out_path = v;
			++i;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "mesh: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (rep.opt.smoke && !reps_set)
		rep.opt.reps = 1;
	rep.opt.build_reps = rep.opt.smoke ? 1 : 3;
	if (rep.opt.budget_ms == 0.0)
		rep.opt.budget_ms = rep.opt.smoke ? 5.0 : 100.0;
	rep.opt.ref_budget_ms = rep.opt.smoke ? 200.0 : 5000.0;
	bench_describe_run(rep.machine, sizeof rep.machine, false, rep.date, sizeof rep.date);
	bench_cpu_model(rep.cpu, sizeof rep.cpu);
	rep.cpus = bench_cpu_count();
#ifndef HAVE_FCL
	fprintf(stderr, "mesh: peer FCL skipped (not found at build time)\n");
#endif
#ifndef HAVE_BULLET
	fprintf(stderr, "mesh: peer Bullet skipped (not found at build time)\n");
#endif

	static section convex;
	bench_rng rng = {rep.opt.seed};
	if (add_convex_models(&convex, &rng) != 0)
		return 1;
	for (int k = 0; k < convex.count; ++k) {
		model *m = &convex.models[k];
		if (build_model(m, rep.opt.build_reps) != 0 || make_elem_set(m) != 0) {
			fprintf(stderr, "mesh: could not build %s\n", m->name);
			return 1;
		}
		rep.models[rep.model_count++] = m;
	}
	int failures = section_ur10(&rep, &convex);
	int sizes = rep.opt.smoke ? 1 : 3;
	for (int k = 0; k < sizes; ++k)
		failures += section_procedural(&rep, &convex, k);
	failures += section_terrain(&rep, &convex);
	int compound_sizes[3] = {4, 16, 64};
	for (int k = 0; k < (rep.opt.smoke ? 2 : 3); ++k)
		failures += section_compounds(&rep, &convex, compound_sizes[k]);

	print_report(stdout, &rep);
	if (out_path) {
		FILE *f = fopen(out_path, "w");
		if (!f) {
			fprintf(stderr, "mesh: cannot write %s\n", out_path);
			return 1;
		}
		print_report(f, &rep);
		fclose(f);
	}
	for (int i = convex.count; i < rep.model_count; ++i)
		free(rep.models[i]);
	for (int k = 0; k < convex.count; ++k)
		free_model(&convex.models[k]);
	free(rep.cells);
	return failures ? 1 : 0;
}
