// SPDX-License-Identifier: MIT
// Fuzz target: bytes -> a mesh file read by imp_shape_mesh_from_file_ex.
// The first byte chooses how: bit 0 the name (.obj, else .stl: binary or
// ASCII by the contents), bit 1 whether error_line is given, bits 2-3 the
// radius (0, 0.01, 1000, -1: refused); the rest is the file. A refusal
// must leave *out alone, give a status the header lists and a line within
// the file; a mesh must have triangles whose corners are its vertices and
// a finite box.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

/// The lines of the file: one a line end, one more after the last.
static long lines_of(const uint8_t *p, size_t n)
{
	long lines = 1;
	for (size_t i = 0; i < n; ++i)
		lines += p[i] == '\n';
	return lines;
}

static bool listed_refusal(imp_status st, bool bad_radius)
{
	if (bad_radius)
		return st == IMP_ERR_BAD_RADIUS;
	return st == IMP_ERR_PARSE || st == IMP_ERR_NOT_FINITE || st == IMP_ERR_OUT_OF_RANGE ||
	       st == IMP_ERR_BAD_COUNT || st == IMP_ERR_OUT_OF_MEMORY;
}

static void check_mesh(const imp_shape *s, bool stl)
{
	int nv = imp_shape_vertex_count(s), nt = imp_shape_face_count(s);
	if (imp_shape_kind_of(s) != IMP_SHAPE_MESH || nv < 1 || nt < 1)
		fz_finding("mesh_file.counts", "kind %d, %d vertices, %d triangles", imp_shape_kind_of(s), nv, nt);
	// STL's corners are merged: never more vertices than corners.
	if (stl && (long)nv > 3L * nt)
		fz_finding("mesh_file.merged", "%d vertices for %d triangles", nv, nt);
	for (int t = 0; t < nt; ++t) {
		int idx[3];
		if (imp_shape_face(s, t, idx, 3) != 3) {
			fz_finding("mesh_file.face", "triangle %d: no 3 corners", t);
			continue;
		}
		for (int k = 0; k < 3; ++k)
			if (idx[k] < 0 || idx[k] >= nv)
				fz_finding("mesh_file.index", "triangle %d: corner %d of %d vertices", t, idx[k], nv);
	}
	imp_aabb3 box;
	if (imp_shape_aabb3(s, imp_pose3_identity(), &box) != IMP_OK)
		fz_finding("mesh_file.aabb", "no box");
	else if (!isfinite(box.lo.x) || !isfinite(box.lo.y) || !isfinite(box.lo.z) || !isfinite(box.hi.x) ||
		 !isfinite(box.hi.y) || !isfinite(box.hi.z))
		fz_finding("mesh_file.aabb_finite", "box [%g %g %g] [%g %g %g]", box.lo.x, box.lo.y, box.lo.z, box.hi.x,
			   box.hi.y, box.hi.z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	fz_begin();
	static const double radii[4] = {0.0, 0.01, 1000.0, -1.0};
	bool obj = data[0] & 1, with_line = !(data[0] & 2);
	int r = (data[0] >> 2) & 3;
	const uint8_t *body = data + 1;
	size_t n = size - 1;

	// One file a process (libFuzzer's -jobs and -fork run several).
	char path[512];
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/impact_fuzz_mesh_%ld%s", dir && *dir ? dir : "/tmp", (long)getpid(),
		 obj ? ".obj" : ".stl");
	FILE *fp = fopen(path, "wb");
	if (fp == NULL || fwrite(body, 1, n, fp) != n || fclose(fp) != 0) {
		fprintf(stderr, "fuzz_mesh_file: cannot write %s\n", path);
		abort();
	}
	snprintf(fz_context, sizeof fz_context, "%s file of %zu bytes, radius %g", obj ? "obj" : "stl", n, radii[r]);

	static int sentinel_storage;
	imp_shape *sentinel = (imp_shape *)&sentinel_storage, *s = sentinel;
	int line = -7;
	imp_status st = imp_shape_mesh_from_file_ex(path, radii[r], with_line ? &line : NULL, &s);
	// The plain form answers the same status.
	imp_shape *plain = sentinel;
	imp_status st_plain = imp_shape_mesh_from_file(path, radii[r], &plain);
	if (st_plain != st)
		fz_finding("mesh_file.plain", "imp_shape_mesh_from_file %s, the _ex form %s", imp_status_string(st_plain),
			   imp_status_string(st));
	if (st_plain == IMP_OK)
		imp_shape_destroy(plain);
	else if (plain != sentinel)
		fz_finding("mesh_file.refused_wrote", "plain form refused (%s) and wrote *out", imp_status_string(st_plain));
	remove(path);
	if (st != IMP_OK) {
		if (s != sentinel)
			fz_finding("mesh_file.refused_wrote", "refused (%s) and wrote *out", imp_status_string(st));
		if (!listed_refusal(st, radii[r] < 0.0))
			fz_finding("mesh_file.status", "refused with %s", imp_status_string(st));
		if (with_line && (line < 0 || line > lines_of(body, n)))
			fz_finding("mesh_file.line", "%s at line %d of a file of %ld lines", imp_status_string(st), line,
				   lines_of(body, n));
		return 0;
	}
	if (radii[r] < 0.0)
		fz_finding("mesh_file.bad_radius", "radius %g taken", radii[r]);
	if (with_line && line != 0)
		fz_finding("mesh_file.line_ok", "read with line %d", line);
	if (s == sentinel || s == NULL) {
		fz_finding("mesh_file.no_shape", "ok without a shape");
		return 0;
	}
	if (imp_shape_radius(s) != radii[r])
		fz_finding("mesh_file.radius", "radius %g for %g", imp_shape_radius(s), radii[r]);
	check_mesh(s, !obj);
	imp_shape_destroy(s);
	return 0;
}
