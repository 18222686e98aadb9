// SPDX-License-Identifier: MIT
// Meshes read from files (imp_shape_mesh_from_file): meshes written here as
// binary STL, ASCII STL and OBJ and read back corner by corner; OBJ's
// polygons, reference forms, skipped lines and CRLF; STL's merging of equal
// corners; every refusal with its status and line, *out untouched; the
// UR10 meshes beside the project when they are there.
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "data_dir.h"

#include <impact/impact.h>

// ---------------------------------------------------------------------------
// Files in a temporary directory, removed at the end.

static char tmp_dir[64];
static char tmp_names[64][32];
static int tmp_count;

static int make_dir(void **state)
{
	(void)state;
	strcpy(tmp_dir, "/tmp/impact_mesh_file_XXXXXX");
	return mkdtemp(tmp_dir) != NULL ? 0 : -1;
}

static void path_of(const char *name, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/%s", tmp_dir, name);
	assert_true(n > 0 && (size_t)n < size);
}

static int remove_dir(void **state)
{
	(void)state;
	char path[128];
	for (int i = 0; i < tmp_count; ++i) {
		path_of(tmp_names[i], path, sizeof path);
		remove(path);
	}
	tmp_count = 0;
	return rmdir(tmp_dir);
}

/// Opens tmp_dir/name for writing (binary: no newline translation).
static FILE *create(const char *name)
{
	int i = 0;
	while (i < tmp_count && strcmp(tmp_names[i], name) != 0)
		++i;
	if (i == tmp_count) {
		assert_true(tmp_count < 64 && strlen(name) < sizeof tmp_names[0]);
		strcpy(tmp_names[tmp_count++], name);
	}
	char path[128];
	path_of(name, path, sizeof path);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	return fp;
}

static void write_file(const char *name, const void *data, size_t size)
{
	FILE *fp = create(name);
	assert_int_equal(fwrite(data, 1, size, fp), size);
	assert_int_equal(fclose(fp), 0);
}

static void write_text(const char *name, const char *text)
{
	write_file(name, text, strlen(text));
}

/// Reads tmp_dir/name; the line goes to *line.
static imp_status read_mesh(const char *name, double radius, int *line, imp_shape **out)
{
	char path[128];
	path_of(name, path, sizeof path);
	return imp_shape_mesh_from_file_ex(path, radius, line, out);
}

// ---------------------------------------------------------------------------
// A torus of float-valued vertices: nu x nv, each shared by six triangles.

typedef struct mesh {
	imp_vec3 *v;
	int nv;
	int32_t *t;
	int nt;
} mesh;

static mesh torus(int nu, int nv)
{
	mesh m = {malloc((size_t)(nu * nv) * sizeof(imp_vec3)), nu * nv, malloc((size_t)(6 * nu * nv) * sizeof(int32_t)),
		  2 * nu * nv};
	assert_non_null(m.v);
	assert_non_null(m.t);
	for (int i = 0; i < nu; ++i)
		for (int j = 0; j < nv; ++j) {
			double a = 2 * 3.14159265358979 * i / nu, b = 2 * 3.14159265358979 * j / nv;
			double r = 0.5 + 0.2 * cos(b);
			m.v[i * nv + j] = (imp_vec3){(float)(r * cos(a)), (float)(r * sin(a)), (float)(0.2 * sin(b))};
		}
	int32_t *t = m.t;
	for (int i = 0; i < nu; ++i)
		for (int j = 0; j < nv; ++j) {
			int32_t a = i * nv + j, b = ((i + 1) % nu) * nv + j, c = ((i + 1) % nu) * nv + (j + 1) % nv,
				d = i * nv + (j + 1) % nv;
			*t++ = a, *t++ = b, *t++ = c;
			*t++ = a, *t++ = c, *t++ = d;
		}
	return m;
}

static void mesh_free(mesh *m)
{
	free(m->v);
	free(m->t);
}

static void put_u32(unsigned char *p, uint32_t x)
{
	for (int k = 0; k < 4; ++k)
		p[k] = (unsigned char)(x >> 8 * k);
}

static void put_float(unsigned char *p, float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	put_u32(p, bits);
}

/// The bytes of a binary STL of the mesh (the caller frees them), with a
/// header starting with `header`.
static unsigned char *binary_stl(const mesh *m, const char *header, size_t *size)
{
	*size = 84 + 50 * (size_t)m->nt;
	unsigned char *data = calloc(1, *size);
	assert_non_null(data);
	memcpy(data, header, strlen(header));
	put_u32(data + 80, (uint32_t)m->nt);
	for (int t = 0; t < m->nt; ++t) {
		unsigned char *r = data + 84 + 50 * (size_t)t;
		put_float(r + 8, 1.0f); // a normal, not read
		for (int k = 0; k < 3; ++k) {
			imp_vec3 v = m->v[m->t[3 * t + k]];
			put_float(r + 12 + 12 * k, (float)v.x);
			put_float(r + 16 + 12 * k, (float)v.y);
			put_float(r + 20 + 12 * k, (float)v.z);
		}
	}
	return data;
}

static void write_binary_stl(const char *name, const mesh *m, const char *header)
{
	size_t size;
	unsigned char *data = binary_stl(m, header, &size);
	write_file(name, data, size);
	free(data);
}

static void write_ascii_stl(const char *name, const mesh *m, const char *eol)
{
	FILE *fp = create(name);
	fprintf(fp, "solid the torus%s", eol);
	for (int t = 0; t < m->nt; ++t) {
		fprintf(fp, "  facet normal 0 0 1%s    outer loop%s", eol, eol);
		for (int k = 0; k < 3; ++k) {
			imp_vec3 v = m->v[m->t[3 * t + k]];
			fprintf(fp, "      vertex %.9g %.9g %.9g%s", (float)v.x, (float)v.y, (float)v.z, eol);
		}
		fprintf(fp, "    endloop%s  endfacet%s", eol, eol);
	}
	fprintf(fp, "endsolid the torus%s", eol);
	assert_int_equal(fclose(fp), 0);
}

static void write_obj(const char *name, const mesh *m)
{
	FILE *fp = create(name);
	fprintf(fp, "# a torus\no torus\n");
	for (int i = 0; i < m->nv; ++i)
		fprintf(fp, "v %.17g %.17g %.17g\n", m->v[i].x, m->v[i].y, m->v[i].z);
	for (int t = 0; t < m->nt; ++t)
		fprintf(fp, "f %d %d %d\n", m->t[3 * t] + 1, m->t[3 * t + 1] + 1, m->t[3 * t + 2] + 1);
	assert_int_equal(fclose(fp), 0);
}

/// The shape's vertices (the caller frees them).
static imp_vec3 *vertices_of(const imp_shape *s, int *count)
{
	*count = imp_shape_vertex_count(s);
	assert_true(*count >= 1);
	imp_vec3 *v = malloc((size_t)*count * sizeof *v);
	assert_non_null(v);
	assert_int_equal(imp_shape_vertices3(s, v, *count), *count);
	return v;
}

static bool same_float(double a, double b)
{
	return (float)a == (float)b;
}

/// Every triangle of s has the corners of m's, in order: as floats, or
/// exactly with the same indices (`exact`).
static void check_corners(const imp_shape *s, const mesh *m, bool exact)
{
	assert_int_equal(imp_shape_face_count(s), m->nt);
	int nv;
	imp_vec3 *v = vertices_of(s, &nv);
	for (int t = 0; t < m->nt; ++t) {
		int idx[4];
		assert_int_equal(imp_shape_face(s, t, idx, 4), 3);
		for (int k = 0; k < 3; ++k) {
			assert_true(idx[k] >= 0 && idx[k] < nv);
			imp_vec3 got = v[idx[k]], want = m->v[m->t[3 * t + k]];
			if (exact) {
				assert_int_equal(idx[k], m->t[3 * t + k]);
				assert_true(got.x == want.x && got.y == want.y && got.z == want.z);
			} else {
				assert_true(same_float(got.x, want.x) && same_float(got.y, want.y) && same_float(got.z, want.z));
			}
		}
	}
	free(v);
}

/// Reads the file written from m and checks it is m: one vertex per
/// distinct point (STL's corners merged), the corners of every triangle.
static void read_back(const char *name, double radius, const mesh *m, bool exact)
{
	imp_shape *s = NULL;
	int line = -1;
	assert_int_equal(read_mesh(name, radius, &line, &s), IMP_OK);
	assert_int_equal(line, 0);
	assert_int_equal(imp_shape_kind_of(s), IMP_SHAPE_MESH);
	assert_true(imp_shape_radius(s) == radius);
	assert_int_equal(imp_shape_vertex_count(s), m->nv);
	check_corners(s, m, exact);
	imp_shape_destroy(s);
}

// ---------------------------------------------------------------------------
// Round trips.

/// Binary and ASCII; each vertex of the torus is the corner of six
/// triangles, merged back into one.
static void test_stl(void **state)
{
	(void)state;
	mesh m = torus(12, 8);
	write_binary_stl("torus.stl", &m, "binary torus");
	read_back("torus.stl", 0.25, &m, false);
	// A header starting "solid" does not make a binary file ASCII: the
	// size matches the count.
	write_binary_stl("torus_solid.stl", &m, "solid torus (binary)");
	read_back("torus_solid.stl", 0.0, &m, false);
	write_ascii_stl("torus_lf.stl", &m, "\n");
	read_back("torus_lf.stl", 0.0, &m, false);
	write_ascii_stl("torus_crlf.stl", &m, "\r\n");
	read_back("torus_crlf.stl", 1.0, &m, false);
	mesh_free(&m);
}

static void test_ascii_stl_forms(void **state)
{
	(void)state;
	// Two solids, keywords in capitals, everything on few lines, a byte
	// order mark, no name, no final line end.
	write_text("two.stl", "\xEF\xBB\xBF  \n\tsolid\nFACET NORMAL 0 0 0 OUTER LOOP VERTEX 0 0 0 VERTEX 1 0 0\n"
			      "VERTEX 0 1 0 ENDLOOP ENDFACET ENDSOLID\nsolid b\nfacet normal nan 0 0\nouter loop\n"
			      "vertex 1e0 0 0\nvertex +0 -1.5 .25\nvertex 1. 0 -0\nendloop\nendfacet\nendsolid b");
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_mesh_from_file_ex(NULL, 0.0, NULL, &s), IMP_ERR_NULL_ARGUMENT);
	int line = -1;
	assert_int_equal(read_mesh("two.stl", 0.0, &line, &s), IMP_OK);
	assert_int_equal(line, 0);
	assert_int_equal(imp_shape_face_count(s), 2);
	// (0 0 0), (1 0 0), (0 1 0), (0 -1.5 0.25): (1 0 -0) is (1 0 0).
	assert_int_equal(imp_shape_vertex_count(s), 4);
	int idx[3];
	assert_int_equal(imp_shape_face(s, 1, idx, 3), 3);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 1);
	imp_shape_destroy(s);
}

static void test_obj(void **state)
{
	(void)state;
	mesh m = torus(9, 7);
	write_obj("torus.obj", &m);
	read_back("torus.obj", 0.5, &m, true);
	mesh_free(&m);
}

/// The OBJ test file, lines ending in `eol`.
static void write_polygons(const char *name, const char *eol)
{
	static const char *lines[] = {
		"# polygons, reference forms, lines that are skipped",
		"mtllib things.mtl",
		"o thing",
		"",
		"v 0 0 0",
		"v 1 0 0",
		"  v 1 1 0   ",
		"v\t0 1 0 1.0",
		"v 0.5 1.5 0 0.1 0.2 0.3",
		"vt 0 0",
		"vn 0 0 1",
		"vp 0.5",
		"g group",
		"s off",
		"usemtl red",
		"l 1 2",
		"   # an indented comment",
		"f 1 2 3 4",
		"f 1/1 2/1 3/1",
		"f 1//1 2//1 5//1",
		"f 1/1/1 3/1/1 4/1/1 5/1/1 2/1/1",
		"f -5 -4 -3",
		"f -1/-1 -2//-1 -3/1/-1 # a comment after a face",
		"\t",
	};
	FILE *fp = create(name);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i)
		fprintf(fp, "%s%s", lines[i], eol);
	assert_int_equal(fclose(fp), 0);
}

static void test_obj_polygons(void **state)
{
	(void)state;
	static const int32_t want[][3] = {
		{0, 1, 2}, {0, 2, 3},                   // the quad
		{0, 1, 2},                              // 1/1
		{0, 1, 4},                              // 1//1
		{0, 2, 3}, {0, 3, 4}, {0, 4, 1},        // the pentagon
		{0, 1, 2},                              // negative
		{4, 3, 2},                              // negative, mixed forms
	};
	const int nt = (int)(sizeof want / sizeof want[0]);
	const char *names[] = {"polygons.obj", "crlf.OBJ", "upper.Obj"};
	const char *eols[] = {"\n", "\r\n", "\n"};
	for (int f = 0; f < 3; ++f) {
		write_polygons(names[f], eols[f]);
		imp_shape *s = NULL;
		int line = -1;
		assert_int_equal(read_mesh(names[f], 0.0, &line, &s), IMP_OK);
		assert_int_equal(line, 0);
		assert_int_equal(imp_shape_vertex_count(s), 5);
		assert_int_equal(imp_shape_face_count(s), nt);
		for (int t = 0; t < nt; ++t) {
			int idx[3];
			assert_int_equal(imp_shape_face(s, t, idx, 3), 3);
			for (int k = 0; k < 3; ++k)
				assert_int_equal(idx[k], want[t][k]);
		}
		int nv;
		imp_vec3 *v = vertices_of(s, &nv);
		assert_true(v[4].x == 0.5 && v[4].y == 1.5 && v[4].z == 0.0);
		free(v);
		imp_shape_destroy(s);
	}
}

// ---------------------------------------------------------------------------
// Merging.

static void test_merging(void **state)
{
	(void)state;
	float next = nextafterf(1.0f, 2.0f);
	// Corners: (0 0 0) as +0 and -0 is one vertex; 1 and the float after
	// it are two; a triangle with a repeated corner stays.
	imp_vec3 v[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-0.0, 0, -0.0}, {next, 0, 0}, {0, 1, 0}};
	int32_t t[] = {0, 1, 2, 3, 4, 5, 0, 0, 1};
	mesh m = {v, 6, t, 3};
	write_binary_stl("merge.stl", &m, "merge");
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_mesh_from_file(tmp_dir, 0.0, &s), IMP_ERR_IO); // a directory
	char path[128];
	path_of("merge.stl", path, sizeof path);
	assert_int_equal(imp_shape_mesh_from_file(path, 0.0, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), 4);
	assert_int_equal(imp_shape_face_count(s), 3);
	static const int want[3][3] = {{0, 1, 2}, {0, 3, 2}, {0, 0, 1}};
	for (int i = 0; i < 3; ++i) {
		int idx[3];
		assert_int_equal(imp_shape_face(s, i, idx, 3), 3);
		for (int k = 0; k < 3; ++k)
			assert_int_equal(idx[k], want[i][k]);
	}
	imp_shape_destroy(s);
}

/// A large grid: the hash table grows many times; counts exact.
static void test_large(void **state)
{
	(void)state;
	const int n = 300; // points a side
	mesh m = {malloc((size_t)(n * n) * sizeof(imp_vec3)), n * n, malloc((size_t)(6 * (n - 1) * (n - 1)) * sizeof(int32_t)),
		  2 * (n - 1) * (n - 1)};
	assert_non_null(m.v);
	assert_non_null(m.t);
	for (int i = 0; i < n; ++i)
		for (int j = 0; j < n; ++j)
			m.v[i * n + j] = (imp_vec3){i * 0.25, j * 0.5, (float)sin(i * 0.1) * 0.125};
	int32_t *t = m.t;
	for (int i = 0; i + 1 < n; ++i)
		for (int j = 0; j + 1 < n; ++j) {
			int32_t a = i * n + j;
			*t++ = a, *t++ = a + n, *t++ = a + n + 1;
			*t++ = a, *t++ = a + n + 1, *t++ = a + 1;
		}
	write_binary_stl("large.stl", &m, "grid");
	read_back("large.stl", 0.0, &m, false);
	write_ascii_stl("large_ascii.stl", &m, "\n");
	read_back("large_ascii.stl", 0.0, &m, false);
	write_obj("large.obj", &m);
	read_back("large.obj", 0.0, &m, true);
	mesh_free(&m);
}

// ---------------------------------------------------------------------------
// Refusals.

typedef struct bad_case {
	const char *name;
	const char *text;
	imp_status status;
	int line;
} bad_case;

static void expect_refused(const char *name, imp_status status, int line)
{
	imp_shape *sentinel = (imp_shape *)&tmp_count, *s = sentinel;
	int got_line = -1;
	imp_status st = read_mesh(name, 0.0, &got_line, &s);
	if (st != status || got_line != line)
		print_error("%s: %s at line %d, expected %s at line %d\n", name, imp_status_string(st), got_line,
			    imp_status_string(status), line);
	assert_int_equal(st, status);
	assert_int_equal(got_line, line);
	assert_ptr_equal(s, sentinel);
	assert_int_equal(read_mesh(name, 0.0, NULL, &s), status);
	assert_ptr_equal(s, sentinel);
}

#define SOLID_START "solid t\n facet normal 0 0 1\n  outer loop\n"
#define FACET_END "  endloop\n endfacet\n"
#define VERTICES "   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n"
/// A solid of one facet with these corners (lines 4-6).
#define FACET3(a, b, c) SOLID_START "   vertex " a "\n   vertex " b "\n   vertex " c "\n" FACET_END "endsolid\n"
#define OBJ_TRI "v 0 0 0\nv 1 0 0\nv 0 1 0\n" // lines 1-3

static void test_bad_text(void **state)
{
	(void)state;
	static const bad_case cases[] = {
		{"empty.stl", "", IMP_ERR_PARSE, 0},
		{"empty.obj", "", IMP_ERR_PARSE, 0},
		{"blank.obj", "\n\n# nothing\n", IMP_ERR_PARSE, 0},
		{"text.stl", OBJ_TRI "f 1 2 3\n", IMP_ERR_PARSE, 0}, // OBJ by name only
		{"no_endloop.stl", SOLID_START VERTICES " endfacet\nendsolid t\n", IMP_ERR_PARSE, 7},
		{"four.stl", SOLID_START VERTICES "   vertex 1 1 0\n" FACET_END "endsolid t\n", IMP_ERR_PARSE, 7},
		{"two_vertices.stl", SOLID_START "   vertex 0 0 0\n   vertex 1 0 0\n" FACET_END "endsolid\n", IMP_ERR_PARSE, 6},
		{"word.stl", FACET3("0 0 0", "1 zero 0", "0 1 0"), IMP_ERR_PARSE, 5},
		{"comma.stl", FACET3("0 0 0", "1,5 0 0", "0 1 0"), IMP_ERR_PARSE, 5},
		{"hex.stl", FACET3("0x1p3 0 0", "1 0 0", "0 1 0"), IMP_ERR_PARSE, 4},
		{"exponent.stl", FACET3("1e 0 0", "1 0 0", "0 1 0"), IMP_ERR_PARSE, 4},
		{"normal.stl", "solid t\n facet normal 0 0\n  outer loop\n" VERTICES FACET_END "endsolid\n", IMP_ERR_PARSE, 3},
		{"nan.stl", FACET3("0 0 0", "1 0 0", "0 NaN 0"), IMP_ERR_NOT_FINITE, 6},
		{"inf.stl", FACET3("0 0 0", "-inf 0 0", "0 1 0"), IMP_ERR_NOT_FINITE, 5},
		{"huge.stl", FACET3("0 0 2e150", "1 0 0", "0 1 0"), IMP_ERR_OUT_OF_RANGE, 4},
		{"overflow.stl", FACET3("0 0 0", "1 0 0", "0 -1e400 0"), IMP_ERR_OUT_OF_RANGE, 6},
		{"no_endsolid.stl", SOLID_START VERTICES FACET_END, IMP_ERR_PARSE, 8},
		{"cut.stl", SOLID_START "   vertex 0 0 0\n   vertex 1", IMP_ERR_PARSE, 5},
		{"only_solid.stl", "solid t", IMP_ERR_PARSE, 1},
		{"no_facet.stl", "solid t\nendsolid t\n", IMP_ERR_PARSE, 0},
		{"trailing.stl", SOLID_START VERTICES FACET_END "endsolid\n\nsolid2\n", IMP_ERR_PARSE, 11},
		{"stray.stl", SOLID_START VERTICES FACET_END " vertex 0 0 0\nendsolid\n", IMP_ERR_PARSE, 9},
		{"index0.obj", OBJ_TRI "f 0 1 2\n", IMP_ERR_PARSE, 4},
		{"index4.obj", OBJ_TRI "f 1 2 3\nf 1 2 4\n", IMP_ERR_PARSE, 5},
		{"minus4.obj", OBJ_TRI "\nf -1 -2 -4\n", IMP_ERR_PARSE, 5},
		{"ahead.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", IMP_ERR_PARSE, 3},
		{"two.obj", OBJ_TRI "f 1 2\n", IMP_ERR_PARSE, 4},
		{"bare_f.obj", "v 0 0 0\nf\n", IMP_ERR_PARSE, 2},
		{"letter.obj", OBJ_TRI "f 1 2 c\n", IMP_ERR_PARSE, 4},
		{"slashes.obj", OBJ_TRI "f 1/1/1/1 2 3\n", IMP_ERR_PARSE, 4},
		{"open_slash.obj", OBJ_TRI "f 1/ 2 3\n", IMP_ERR_PARSE, 4},
		{"double_slash.obj", OBJ_TRI "f 1// 2 3\n", IMP_ERR_PARSE, 4},
		{"float_index.obj", OBJ_TRI "f 1.0 2 3\n", IMP_ERR_PARSE, 4},
		{"v2.obj", "v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", IMP_ERR_PARSE, 2},
		{"vword.obj", "v 0 0 0\r\nv 1 0 0 w\r\nv 0 1 0\r\nf 1 2 3\r\n", IMP_ERR_PARSE, 2},
		{"vnan.obj", "v 0 0 0\nv 1 0 0\n\nv 0 nan 0\nf 1 2 3\n", IMP_ERR_NOT_FINITE, 4},
		{"vinf.obj", "v 0 0 0\nv 1 0 0\nv 0 0 Infinity\nf 1 2 3\n", IMP_ERR_NOT_FINITE, 3},
		{"vhuge.obj", "v 0 0 0\nv 1e200 0 0\nv 0 1 0\nf 1 2 3\n", IMP_ERR_OUT_OF_RANGE, 2},
		{"only_v.obj", OBJ_TRI, IMP_ERR_PARSE, 0},
		{"big_index.obj", OBJ_TRI "f 1 2 99999999999999999999999\n", IMP_ERR_PARSE, 4},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		write_text(cases[i].name, cases[i].text);
		expect_refused(cases[i].name, cases[i].status, cases[i].line);
	}
}

static void test_bad_binary(void **state)
{
	(void)state;
	mesh m = torus(4, 3);
	size_t size;
	unsigned char *data = binary_stl(&m, "bin", &size);
	// Truncated: the last record cut.
	write_file("truncated.stl", data, size - 10);
	expect_refused("truncated.stl", IMP_ERR_PARSE, 0);
	// One byte more.
	unsigned char *longer = calloc(1, size + 1);
	assert_non_null(longer);
	memcpy(longer, data, size);
	write_file("longer.stl", longer, size + 1);
	expect_refused("longer.stl", IMP_ERR_PARSE, 0);
	free(longer);
	// A count that does not match the size.
	put_u32(data + 80, (uint32_t)m.nt + 1);
	write_file("count.stl", data, size);
	expect_refused("count.stl", IMP_ERR_PARSE, 0);
	put_u32(data + 80, 0xffffffffu);
	write_file("count_max.stl", data, size);
	expect_refused("count_max.stl", IMP_ERR_PARSE, 0);
	put_u32(data + 80, (uint32_t)m.nt);
	// Shorter than a header.
	write_file("short.stl", data, 50);
	expect_refused("short.stl", IMP_ERR_PARSE, 0);
	// No triangle.
	put_u32(data + 80, 0);
	write_file("zero.stl", data, 84);
	expect_refused("zero.stl", IMP_ERR_PARSE, 0);
	put_u32(data + 80, (uint32_t)m.nt);
	// NaN and infinite coordinates.
	unsigned char *corner = data + 84 + 50 * 5 + 12 + 12 * 2 + 4;
	put_float(corner, NAN);
	write_file("bin_nan.stl", data, size);
	expect_refused("bin_nan.stl", IMP_ERR_NOT_FINITE, 0);
	put_float(corner, -INFINITY);
	write_file("bin_inf.stl", data, size);
	expect_refused("bin_inf.stl", IMP_ERR_NOT_FINITE, 0);
	// The normal is not read: NaN there is fine.
	put_float(corner, 0.5f);
	put_float(data + 84 + 50 * 5, NAN);
	write_file("bin_normal.stl", data, size);
	imp_shape *s = NULL;
	assert_int_equal(read_mesh("bin_normal.stl", 0.0, NULL, &s), IMP_OK);
	imp_shape_destroy(s);
	free(data);
	mesh_free(&m);
}

/// More triangles than imp_shape_mesh takes (2^24): one OBJ polygon of
/// 2^24 + 3 corners, fanned.
static void test_too_many(void **state)
{
	(void)state;
	FILE *fp = create("many.obj");
	fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2", fp);
	for (long i = 0; i < (1L << 24) + 1; ++i)
		fputs(" 3", fp);
	fputs("\n", fp);
	assert_int_equal(fclose(fp), 0);
	expect_refused("many.obj", IMP_ERR_BAD_COUNT, 5);
}

static void test_arguments(void **state)
{
	(void)state;
	mesh m = torus(4, 3);
	write_binary_stl("args.stl", &m, "args");
	mesh_free(&m);
	char path[128];
	path_of("args.stl", path, sizeof path);
	imp_shape *sentinel = (imp_shape *)&tmp_count, *s = sentinel;
	int line = -1;
	assert_int_equal(imp_shape_mesh_from_file(NULL, 0.0, &s), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_mesh_from_file(path, 0.0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_mesh_from_file_ex(path, 0.0, &line, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(line, 0);
	const double bad[] = {-1.0, NAN, INFINITY, -0.5e-300};
	for (int i = 0; i < 4; ++i)
		assert_int_equal(imp_shape_mesh_from_file(path, bad[i], &s), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_mesh_from_file(path, 1e151, &s), IMP_ERR_OUT_OF_RANGE);
	line = -1;
	assert_int_equal(read_mesh("missing.stl", 0.0, &line, &s), IMP_ERR_IO);
	assert_int_equal(line, 0);
	assert_int_equal(read_mesh("missing.obj", 0.0, NULL, &s), IMP_ERR_IO);
	assert_ptr_equal(s, sentinel);
	assert_int_equal(imp_shape_mesh_from_file(path, 1e150, &s), IMP_OK);
	assert_true(imp_shape_radius(s) == 1e150);
	imp_shape_destroy(s);
}

/// Numbers are read the same in a locale whose decimal point is a comma
/// (when the system has one).
static void test_locale(void **state)
{
	(void)state;
	const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "de_DE", "fr_FR"};
	const char *found = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && found == NULL; ++i)
		if (setlocale(LC_NUMERIC, names[i]) != NULL)
			found = names[i];
	if (found == NULL || strcmp(localeconv()->decimal_point, ",") != 0) {
		setlocale(LC_NUMERIC, "C");
		print_message("no locale with a decimal comma: the locale test is skipped\n");
		skip();
	}
	write_text("locale.obj", "v 0.5 0 0\nv 1.25e1 0 0\nv 0 .75 0\nf 1 2 3\n");
	write_text("locale_bad.obj", "v 0,5 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
	imp_shape *s = NULL;
	imp_status st = read_mesh("locale.obj", 0.0, NULL, &s);
	int line = -1;
	imp_status bad = read_mesh("locale_bad.obj", 0.0, &line, &s);
	imp_vec3 v[3] = {{0}};
	if (st == IMP_OK) {
		imp_shape_vertices3(s, v, 3);
		imp_shape_destroy(s);
	}
	setlocale(LC_NUMERIC, "C");
	assert_int_equal(st, IMP_OK);
	assert_true(v[0].x == 0.5 && v[1].x == 12.5 && v[2].y == 0.75);
	assert_int_equal(bad, IMP_ERR_PARSE);
	assert_int_equal(line, 1);
}

// ---------------------------------------------------------------------------
// The UR10 meshes, when they are there (data_dir.h).

static void test_ur10(void **state)
{
	(void)state;
	char buf[4096];
	const char *dir = test_meshes_dir(buf, sizeof buf);
	if (dir == NULL) {
		print_message("no mesh directory (IMPACT_MESHES, or the data beside the source tree): the UR10 meshes are skipped\n");
		skip();
	}
	static const char *links[] = {"base", "shoulder", "upperarm", "forearm", "wrist1", "wrist2", "wrist3"};
	for (int i = 0; i < 7; ++i) {
		char path[1024];
		snprintf(path, sizeof path, "%s/ur10-%s.stl", dir, links[i]);
		imp_shape *s = NULL;
		int line = -1;
		assert_int_equal(imp_shape_mesh_from_file_ex(path, 0.0, &line, &s), IMP_OK);
		assert_int_equal(line, 0);
		int nv = imp_shape_vertex_count(s), nt = imp_shape_face_count(s);
		// Merged: a closed mesh has about half as many vertices as triangles.
		assert_true(nv >= 3 && nt >= 1 && nv < nt);
		imp_aabb3 box;
		assert_int_equal(imp_shape_aabb3(s, imp_pose3_identity(), &box), IMP_OK);
		double lo[3] = {box.lo.x, box.lo.y, box.lo.z}, hi[3] = {box.hi.x, box.hi.y, box.hi.z};
		for (int k = 0; k < 3; ++k) {
			assert_true(isfinite(lo[k]) && isfinite(hi[k]));
			assert_true(lo[k] <= hi[k] && hi[k] - lo[k] < 2.0 && fabs(lo[k]) < 2.0 && fabs(hi[k]) < 2.0);
		}
		print_message("ur10-%s: %d vertices, %d triangles, box (%.3f %.3f %.3f)..(%.3f %.3f %.3f)\n", links[i], nv, nt,
			      lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
		imp_shape_destroy(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stl),
		cmocka_unit_test(test_ascii_stl_forms),
		cmocka_unit_test(test_obj),
		cmocka_unit_test(test_obj_polygons),
		cmocka_unit_test(test_merging),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_bad_text),
		cmocka_unit_test(test_bad_binary),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_ur10),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
