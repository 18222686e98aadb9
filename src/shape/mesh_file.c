// SPDX-License-Identifier: MIT
// Triangle meshes read from files (shape.h: imp_shape_mesh_from_file):
// binary STL, ASCII STL and Wavefront OBJ, parsed in one pass over the
// whole file held in memory, into the arrays imp_shape_mesh takes. STL
// names every corner of every triangle; its equal corners are merged
// through an open-addressing hash table, so that a file of n triangles is
// read in O(n).
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/uthash_imp.h"
#include "shape/composite.h"

// Binary STL stores IEEE single floats; they are read through their bits.
_Static_assert(sizeof(float) == 4 && FLT_RADIX == 2 && FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128,
	       "float is IEEE single");

#define STL_HEADER 84
#define STL_RECORD 50

// ---------------------------------------------------------------------------
// The arrays being built.

typedef struct mesh_builder {
	imp_vec3 *vertices;
	int32_t vertex_count, vertex_cap;
	int32_t *indices; ///< three a triangle
	int32_t index_count, index_cap;
	int32_t *slots;   ///< STL: vertex index a slot (-1 empty), a power of two of them; NULL for OBJ
	uint32_t slot_mask;
} mesh_builder;

static void builder_free(mesh_builder *b)
{
	imp_free(NULL, b->vertices, (size_t)b->vertex_cap * sizeof *b->vertices);
	imp_free(NULL, b->indices, (size_t)b->index_cap * sizeof *b->indices);
	if (b->slots != NULL)
		imp_free(NULL, b->slots, ((size_t)b->slot_mask + 1) * sizeof *b->slots);
}

static imp_status add_vertex(mesh_builder *b, imp_vec3 v)
{
	if (b->vertex_count >= IMP_MESH_MAX_VERTICES)
		return IMP_ERR_BAD_COUNT;
	if (!imp_grow(NULL, (void **)&b->vertices, &b->vertex_cap, b->vertex_count + 1, sizeof *b->vertices))
		return IMP_ERR_OUT_OF_MEMORY;
	b->vertices[b->vertex_count++] = v;
	return IMP_OK;
}

static imp_status add_triangle(mesh_builder *b, const int32_t corner[3])
{
	if (b->index_count / 3 >= IMP_MESH_MAX_TRIANGLES)
		return IMP_ERR_BAD_COUNT;
	if (!imp_grow(NULL, (void **)&b->indices, &b->index_cap, b->index_count + 3, sizeof *b->indices))
		return IMP_ERR_OUT_OF_MEMORY;
	memcpy(b->indices + b->index_count, corner, 3 * sizeof *corner);
	b->index_count += 3;
	return IMP_OK;
}

static uint32_t slot_of(const mesh_builder *b, imp_vec3 v)
{
	return imp_hash_key(&v, sizeof v) & b->slot_mask;
}

/// Makes the table `size` slots (a power of two) and enters every vertex.
static imp_status rehash(mesh_builder *b, uint32_t size)
{
	int32_t *slots = imp_alloc(NULL, (size_t)size * sizeof *slots);
	if (slots == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(slots, 0xff, (size_t)size * sizeof *slots);
	if (b->slots != NULL)
		imp_free(NULL, b->slots, ((size_t)b->slot_mask + 1) * sizeof *b->slots);
	b->slots = slots;
	b->slot_mask = size - 1;
	for (int32_t i = 0; i < b->vertex_count; ++i) {
		uint32_t s = slot_of(b, b->vertices[i]);
		while (slots[s] >= 0)
			s = (s + 1) & b->slot_mask;
		slots[s] = i;
	}
	return IMP_OK;
}

/// The index of the vertex equal to v, added when new. The coordinates are
/// finite, so after -0 is made +0 (by adding +0) equal values are equal
/// bits, and the hash of the bits finds them.
static imp_status merged_vertex(mesh_builder *b, imp_vec3 v, int32_t *index)
{
	v = (imp_vec3){v.x + 0.0, v.y + 0.0, v.z + 0.0};
	// At most half full: short probe runs.
	if (b->slots == NULL || (uint32_t)b->vertex_count >= (b->slot_mask + 1) / 2) {
		uint32_t size = b->slots == NULL ? 1024 : 2 * (b->slot_mask + 1);
		imp_status st = rehash(b, size);
		if (st != IMP_OK)
			return st;
	}
	uint32_t s = slot_of(b, v);
	for (; b->slots[s] >= 0; s = (s + 1) & b->slot_mask) {
		imp_vec3 w = b->vertices[b->slots[s]];
		if (w.x == v.x && w.y == v.y && w.z == v.z) {
			*index = b->slots[s];
			return IMP_OK;
		}
	}
	imp_status st = add_vertex(b, v);
	if (st != IMP_OK)
		return st;
	*index = b->slots[s] = b->vertex_count - 1;
	return IMP_OK;
}

static imp_status coordinate_status(double x)
{
	if (!isfinite(x))
		return IMP_ERR_NOT_FINITE;
	return fabs(x) <= IMP_MAX_COORDINATE ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

static imp_status point_status(imp_vec3 p)
{
	imp_status st = coordinate_status(p.x);
	if (st == IMP_OK)
		st = coordinate_status(p.y);
	return st == IMP_OK ? coordinate_status(p.z) : st;
}

// ---------------------------------------------------------------------------
// Binary STL: an 80-byte header, the triangle count (uint32), then 50 bytes
// a triangle: the normal and three corners (12 floats), a 16-bit attribute.

static uint32_t u32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double float_at(const unsigned char *p)
{
	uint32_t bits = u32_at(p);
	float f;
	memcpy(&f, &bits, sizeof f);
	return (double)f;
}

static bool is_binary_stl(const unsigned char *data, size_t size)
{
	return size >= STL_HEADER &&
	       (uint64_t)size == STL_HEADER + (uint64_t)STL_RECORD * u32_at(data + STL_HEADER - 4);
}

static imp_status read_binary_stl(const unsigned char *data, mesh_builder *b)
{
	uint32_t count = u32_at(data + STL_HEADER - 4);
	if (count > IMP_MESH_MAX_TRIANGLES)
		return IMP_ERR_BAD_COUNT;
	if (count == 0)
		return IMP_OK;
	// Sized for a closed mesh (about n / 2 vertices): one allocation of
	// each in the common case.
	if (!imp_grow(NULL, (void **)&b->indices, &b->index_cap, 3 * (int32_t)count, sizeof *b->indices) ||
	    !imp_grow(NULL, (void **)&b->vertices, &b->vertex_cap, (int32_t)(count / 2 + 3), sizeof *b->vertices))
		return IMP_ERR_OUT_OF_MEMORY;
	uint32_t slots = 1024;
	while (slots < count + 6)
		slots *= 2;
	imp_status st = rehash(b, slots);
	for (uint32_t t = 0; t < count && st == IMP_OK; ++t) {
		const unsigned char *corner = data + STL_HEADER + (size_t)STL_RECORD * t + 12;
		int32_t tri[3];
		for (int k = 0; k < 3 && st == IMP_OK; ++k, corner += 12) {
			imp_vec3 v = {float_at(corner), float_at(corner + 4), float_at(corner + 8)};
			st = point_status(v);
			if (st == IMP_OK)
				st = merged_vertex(b, v, &tri[k]);
		}
		if (st == IMP_OK)
			st = add_triangle(b, tri);
	}
	return st;
}

// ---------------------------------------------------------------------------
// Text: tokens separated by blanks, within lines or across them.

typedef struct cursor {
	const char *p, *end;
	int line; ///< of p, from 1 (stays at INT_MAX beyond)
} cursor;

typedef struct token {
	const char *s;
	size_t n; ///< 0: at a line end (within a line) or at the end of the file
	int line;
} token;

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/// The cursor at the start of text[0 .. size), after a UTF-8 byte order mark.
static cursor cursor_of(const char *text, size_t size)
{
	cursor c = {text, text + size, 1};
	if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		c.p += 3;
	return c;
}

static void next_line(cursor *c)
{
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	c->p = nl != NULL ? nl + 1 : c->end;
	if (nl != NULL && c->line < INT_MAX)
		++c->line;
}

/// The next token of the current line; n = 0 at the line's end.
static token token_in_line(cursor *c)
{
	while (c->p < c->end && is_blank(*c->p))
		++c->p;
	token t = {c->p, 0, c->line};
	while (c->p < c->end && !is_blank(*c->p) && *c->p != '\n')
		++c->p;
	t.n = (size_t)(c->p - t.s);
	return t;
}

/// The next token across line ends; n = 0 at the end of the file, with
/// the file's last line.
static token token_any(cursor *c)
{
	for (;;) {
		token t = token_in_line(c);
		if (t.n > 0)
			return t;
		if (c->p == c->end) {
			// A line end that ends the file starts no line.
			if (c->line > 1 && c->end[-1] == '\n')
				--t.line;
			return t;
		}
		next_line(c);
	}
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/// True when s[0 .. n) is `word`, in any case.
static bool spells(const char *s, size_t n, const char *word)
{
	size_t i = 0;
	for (; i < n && word[i] != '\0'; ++i)
		if (ascii_lower(s[i]) != word[i])
			return false;
	return i == n && word[i] == '\0';
}

/// A decimal as strtod reads it in the current locale: the text copied
/// with the locale's decimal point for '.' when that is not '.'. False for
/// a token too long to copy (over 500 characters, in such a locale only).
static bool decimal_value(const char *s, size_t n, const char *point, double *out)
{
	char buf[512];
	char *end;
	if (point[0] == '.' && point[1] == '\0') {
		// The token is followed by a blank, a line end or the NUL after
		// the file: strtod stops there.
		*out = strtod(s, &end);
		return end == s + n;
	}
	size_t len = strlen(point), k = 0;
	for (size_t i = 0; i < n; ++i) {
		if (k + len + 1 > sizeof buf)
			return false;
		if (s[i] == '.') {
			memcpy(buf + k, point, len);
			k += len;
		} else {
			buf[k++] = s[i];
		}
	}
	buf[k] = '\0';
	*out = strtod(buf, &end);
	return end == buf + k;
}

/// A number: a decimal ([+-] digits [. digits] or [+-] . digits, then an
/// optional exponent) or nan, inf, infinity (any case, with a sign). Hex,
/// and text strtod would stop within, are refused. A decimal beyond the
/// doubles is +-DBL_MAX: out of range rather than infinite.
static bool number_of(token t, const char *point, double *out)
{
	const char *s = t.s, *end = t.s + t.n;
	bool negative = s < end && *s == '-';
	if (s < end && (*s == '-' || *s == '+'))
		++s;
	if (spells(s, (size_t)(end - s), "nan")) {
		*out = NAN;
		return true;
	}
	if (spells(s, (size_t)(end - s), "inf") || spells(s, (size_t)(end - s), "infinity")) {
		*out = negative ? -INFINITY : INFINITY;
		return true;
	}
	size_t digits = 0;
	for (; s < end && is_digit(*s); ++s)
		++digits;
	if (s < end && *s == '.')
		for (++s; s < end && is_digit(*s); ++s)
			++digits;
	if (digits == 0)
		return false;
	if (s < end && (*s == 'e' || *s == 'E')) {
		++s;
		if (s < end && (*s == '-' || *s == '+'))
			++s;
		if (s == end || !is_digit(*s))
			return false;
		while (s < end && is_digit(*s))
			++s;
	}
	if (s != end || !decimal_value(t.s, t.n, point, out))
		return false;
	if (isinf(*out))
		*out = copysign(DBL_MAX, *out);
	return true;
}

/// The parse of a text file: the cursor, the locale's decimal point, and
/// where it failed.
typedef struct text_parse {
	cursor c;
	const char *point;
	int *error_line;
} text_parse;

static imp_status fail_at(text_parse *tp, int line, imp_status st)
{
	*tp->error_line = line;
	return st;
}

/// Three coordinates: tokens across lines (STL) or within the line (OBJ).
static imp_status read_point(text_parse *tp, bool across_lines, imp_vec3 *out)
{
	double x[3];
	for (int k = 0; k < 3; ++k) {
		token t = across_lines ? token_any(&tp->c) : token_in_line(&tp->c);
		if (!number_of(t, tp->point, &x[k]))
			return fail_at(tp, t.line, IMP_ERR_PARSE);
		imp_status st = coordinate_status(x[k]);
		if (st != IMP_OK)
			return fail_at(tp, t.line, st);
	}
	*out = (imp_vec3){x[0], x[1], x[2]};
	return IMP_OK;
}

// ---------------------------------------------------------------------------
// ASCII STL.

static imp_status expect_word(text_parse *tp, const char *word)
{
	token t = token_any(&tp->c);
	return spells(t.s, t.n, word) ? IMP_OK : fail_at(tp, t.line, IMP_ERR_PARSE);
}

/// A facet after its keyword: normal (read, not used), a loop of three
/// vertices, the closing keywords.
static imp_status read_facet(text_parse *tp, mesh_builder *b)
{
	imp_status st = expect_word(tp, "normal");
	for (int k = 0; k < 3 && st == IMP_OK; ++k) {
		token t = token_any(&tp->c);
		double ignored;
		if (!number_of(t, tp->point, &ignored))
			st = fail_at(tp, t.line, IMP_ERR_PARSE);
	}
	if (st == IMP_OK)
		st = expect_word(tp, "outer");
	if (st == IMP_OK)
		st = expect_word(tp, "loop");
	int32_t tri[3];
	for (int k = 0; k < 3 && st == IMP_OK; ++k) {
		imp_vec3 v;
		st = expect_word(tp, "vertex");
		if (st == IMP_OK)
			st = read_point(tp, true, &v);
		if (st == IMP_OK)
			st = merged_vertex(b, v, &tri[k]);
	}
	if (st == IMP_OK)
		st = expect_word(tp, "endloop");
	if (st == IMP_OK)
		st = expect_word(tp, "endfacet");
	if (st == IMP_OK) {
		int line = tp->c.line;
		st = add_triangle(b, tri);
		if (st != IMP_OK)
			return fail_at(tp, line, st);
	}
	return st;
}

static bool starts_with_solid(const char *text, size_t size)
{
	cursor c = cursor_of(text, size);
	while (c.p < c.end && (is_blank(*c.p) || *c.p == '\n'))
		++c.p;
	return c.end - c.p >= 5 && spells(c.p, 5, "solid");
}

/// One or more solids: `solid` [name], facets, `endsolid` [name].
static imp_status read_ascii_stl(text_parse *tp, mesh_builder *b)
{
	token t = token_any(&tp->c);
	while (t.n > 0) {
		if (!spells(t.s, t.n, "solid"))
			return fail_at(tp, t.line, IMP_ERR_PARSE);
		next_line(&tp->c); // the name
		for (t = token_any(&tp->c); !spells(t.s, t.n, "endsolid"); t = token_any(&tp->c)) {
			if (!spells(t.s, t.n, "facet"))
				return fail_at(tp, t.line, IMP_ERR_PARSE);
			imp_status st = read_facet(tp, b);
			if (st != IMP_OK)
				return st;
		}
		next_line(&tp->c);
		t = token_any(&tp->c);
	}
	return IMP_OK;
}

// ---------------------------------------------------------------------------
// OBJ.

/// A signed decimal integer at *s (saturated beyond 2^40: no such index
/// exists); false without digits.
static bool integer_at(const char **s, const char *end, int64_t *out)
{
	const char *p = *s;
	bool negative = p < end && *p == '-';
	if (p < end && (*p == '-' || *p == '+'))
		++p;
	if (p == end || !is_digit(*p))
		return false;
	int64_t v = 0;
	for (; p < end && is_digit(*p); ++p)
		if (v < ((int64_t)1 << 40))
			v = 10 * v + (*p - '0');
	*out = negative ? -v : v;
	*s = p;
	return true;
}

/// A face's vertex reference i, i/t, i//n or i/t/n as a vertex index, when
/// it names one of the `count` vertices above.
static bool reference_of(token t, int32_t count, int32_t *index)
{
	const char *s = t.s, *end = t.s + t.n;
	int64_t i, other;
	if (!integer_at(&s, end, &i))
		return false;
	if (s < end && *s == '/') {
		++s;
		bool texture = s < end && *s != '/';
		if (texture && !integer_at(&s, end, &other))
			return false;
		if (s < end && *s == '/') {
			++s;
			if (!integer_at(&s, end, &other))
				return false;
		} else if (!texture) {
			return false;
		}
	}
	if (s != end || i == 0)
		return false;
	int64_t k = i > 0 ? i - 1 : count + i;
	if (k < 0 || k >= count)
		return false;
	*index = (int32_t)k;
	return true;
}

static bool ends_line(token t)
{
	return t.n == 0 || t.s[0] == '#';
}

/// `v x y z` [more numbers]: the vertex.
static imp_status read_obj_vertex(text_parse *tp, mesh_builder *b)
{
	int line = tp->c.line;
	imp_vec3 v;
	imp_status st = read_point(tp, false, &v);
	if (st != IMP_OK)
		return st;
	for (token t = token_in_line(&tp->c); !ends_line(t); t = token_in_line(&tp->c)) {
		double ignored;
		if (!number_of(t, tp->point, &ignored))
			return fail_at(tp, t.line, IMP_ERR_PARSE);
	}
	st = add_vertex(b, v);
	return st == IMP_OK ? IMP_OK : fail_at(tp, line, st);
}

/// `f` and three or more references: the fan (r0, rk, rk+1).
static imp_status read_obj_face(text_parse *tp, mesh_builder *b)
{
	int line = tp->c.line;
	int32_t tri[3];
	int n = 0;
	for (token t = token_in_line(&tp->c); !ends_line(t); t = token_in_line(&tp->c), ++n) {
		int32_t k;
		if (!reference_of(t, b->vertex_count, &k))
			return fail_at(tp, t.line, IMP_ERR_PARSE);
		if (n < 2) {
			tri[n] = k;
			continue;
		}
		if (n > 2)
			tri[1] = tri[2];
		tri[2] = k;
		imp_status st = add_triangle(b, tri);
		if (st != IMP_OK)
			return fail_at(tp, line, st);
	}
	return n >= 3 ? IMP_OK : fail_at(tp, line, IMP_ERR_PARSE);
}

static imp_status read_obj(text_parse *tp, mesh_builder *b)
{
	while (tp->c.p < tp->c.end) {
		token t = token_in_line(&tp->c);
		imp_status st = IMP_OK;
		if (spells(t.s, t.n, "v"))
			st = read_obj_vertex(tp, b);
		else if (spells(t.s, t.n, "f"))
			st = read_obj_face(tp, b);
		if (st != IMP_OK)
			return st;
		next_line(&tp->c);
	}
	return IMP_OK;
}

// ---------------------------------------------------------------------------
// The file.

/// The whole file, followed by a NUL (which ends the last number for
/// strtod), in a block of *cap bytes.
static imp_status read_whole(const char *path, char **data, size_t *size, size_t *cap)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return IMP_ERR_IO;
	size_t n = 0, c = (size_t)1 << 16;
	char *buf = imp_alloc(NULL, c);
	imp_status st = buf != NULL ? IMP_OK : IMP_ERR_OUT_OF_MEMORY;
	while (st == IMP_OK) {
		if (n == c - 1) {
			char *grown = c <= SIZE_MAX / 2 ? imp_realloc(NULL, buf, c, 2 * c) : NULL;
			if (grown == NULL) {
				st = IMP_ERR_OUT_OF_MEMORY;
				break;
			}
			buf = grown;
			c *= 2;
		}
		size_t got = fread(buf + n, 1, c - 1 - n, fp);
		n += got;
		if (got == 0) {
			if (ferror(fp))
				st = IMP_ERR_IO;
			break;
		}
	}
	fclose(fp);
	if (st != IMP_OK) {
		imp_free(NULL, buf, c);
		return st;
	}
	buf[n] = '\0';
	*data = buf;
	*size = n;
	*cap = c;
	return IMP_OK;
}

static bool has_obj_name(const char *path)
{
	size_t n = strlen(path);
	return n >= 4 && spells(path + n - 4, 4, ".obj");
}

/// The radius checks of imp_shape_mesh, made before the file is read.
static imp_status radius_status(double radius)
{
	if (!isfinite(radius) || radius < 0.0)
		return IMP_ERR_BAD_RADIUS;
	return radius <= IMP_MAX_COORDINATE ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

static imp_status parse(const char *path, const char *data, size_t size, mesh_builder *b, int *error_line)
{
	// strtod reads numbers in the current locale: decimal_value swaps in
	// its decimal point when it is not '.'.
	text_parse tp = {cursor_of(data, size), localeconv()->decimal_point, error_line};
	if (has_obj_name(path))
		return read_obj(&tp, b);
	if (is_binary_stl((const unsigned char *)data, size))
		return read_binary_stl((const unsigned char *)data, b);
	if (starts_with_solid(data, size))
		return read_ascii_stl(&tp, b);
	return IMP_ERR_PARSE;
}

imp_status imp_shape_mesh_from_file_ex(const char *path, double radius, int *error_line, imp_shape **out)
{
	int line = 0;
	if (error_line == NULL)
		error_line = &line;
	*error_line = 0;
	if (path == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = radius_status(radius);
	if (st != IMP_OK)
		return st;
	char *data;
	size_t size, cap;
	st = read_whole(path, &data, &size, &cap);
	if (st != IMP_OK)
		return st;
	mesh_builder b = {0};
	st = parse(path, data, size, &b, error_line);
	imp_free(NULL, data, cap);
	if (st == IMP_OK && b.index_count == 0)
		st = IMP_ERR_PARSE;
	if (st == IMP_OK)
		st = imp_shape_mesh(b.vertices, b.vertex_count, b.indices, b.index_count / 3, radius, out);
	builder_free(&b);
	return st;
}

imp_status imp_shape_mesh_from_file(const char *path, double radius, imp_shape **out)
{
	return imp_shape_mesh_from_file_ex(path, radius, NULL, out);
}
