// SPDX-License-Identifier: MIT
// An SVG writer behind the debug draw: each callback writes one element.
// World y points up, SVG's down: the writer flips it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impact/draw.h"

struct imp_svg {
	FILE *f;
	imp_aabb2 view;
	double scale; ///< pixels per world unit
	bool failed;
};

static double px(const imp_svg *s, double x)
{
	return (x - s->view.lo.x) * s->scale;
}

static double py(const imp_svg *s, double y)
{
	return (s->view.hi.y - y) * s->scale;
}

static void rgb(char *out, size_t size, imp_color c)
{
	int r = (int)lround(fmin(fmax(c.r, 0.0f), 1.0f) * 255), g = (int)lround(fmin(fmax(c.g, 0.0f), 1.0f) * 255);
	int b = (int)lround(fmin(fmax(c.b, 0.0f), 1.0f) * 255);
	snprintf(out, size, "#%02x%02x%02x", r, g, b);
}

static double alpha(imp_color c)
{
	return fmin(fmax(c.a, 0.0f), 1.0f);
}

static void svg_polygon(const imp_vec2 *p, int n, double radius, imp_color c, void *user)
{
	imp_svg *s = user;
	if (p == NULL || n < 1)
		return;
	char col[8];
	rgb(col, sizeof col, c);
	// A polygon grown by r: the polygon filled and stroked 2r wide with
	// round joins, in the same colour.
	fprintf(s->f, "<polygon points=\"");
	for (int i = 0; i < n; i++)
		fprintf(s->f, "%s%.3f,%.3f", i ? " " : "", px(s, p[i].x), py(s, p[i].y));
	fprintf(s->f, "\" fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"%s\" stroke-opacity=\"%.2f\" "
		      "stroke-width=\"%.3f\" stroke-linejoin=\"round\"/>\n",
		col, 0.35 * alpha(c), col, alpha(c), radius > 0.0 ? 2.0 * radius * s->scale : 1.0);
}

static void svg_circle(imp_vec2 c0, double r, imp_color c, void *user)
{
	imp_svg *s = user;
	char col[8];
	rgb(col, sizeof col, c);
	fprintf(s->f, "<circle cx=\"%.3f\" cy=\"%.3f\" r=\"%.3f\" fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"%s\"/>\n",
		px(s, c0.x), py(s, c0.y), r * s->scale, col, 0.35 * alpha(c), col);
}

static void svg_capsule(imp_vec2 p0, imp_vec2 p1, double r, imp_color c, void *user)
{
	imp_svg *s = user;
	char col[8];
	rgb(col, sizeof col, c);
	fprintf(s->f, "<line x1=\"%.3f\" y1=\"%.3f\" x2=\"%.3f\" y2=\"%.3f\" stroke=\"%s\" stroke-opacity=\"%.2f\" "
		      "stroke-width=\"%.3f\" stroke-linecap=\"round\"/>\n",
		px(s, p0.x), py(s, p0.y), px(s, p1.x), py(s, p1.y), col, 0.6 * alpha(c), fmax(2.0 * r * s->scale, 1.0));
}

static void svg_segment(imp_vec2 p0, imp_vec2 p1, imp_color c, void *user)
{
	imp_svg *s = user;
	char col[8];
	rgb(col, sizeof col, c);
	fprintf(s->f, "<line x1=\"%.3f\" y1=\"%.3f\" x2=\"%.3f\" y2=\"%.3f\" stroke=\"%s\" stroke-opacity=\"%.2f\" "
		      "stroke-width=\"1.5\"/>\n",
		px(s, p0.x), py(s, p0.y), px(s, p1.x), py(s, p1.y), col, alpha(c));
}

static void svg_point(imp_vec2 p, double size, imp_color c, void *user)
{
	imp_svg *s = user;
	char col[8];
	rgb(col, sizeof col, c);
	fprintf(s->f, "<circle cx=\"%.3f\" cy=\"%.3f\" r=\"%.3f\" fill=\"%s\" fill-opacity=\"%.2f\"/>\n", px(s, p.x),
		py(s, p.y), fmax(0.5 * size * s->scale, 1.5), col, alpha(c));
}

static void svg_aabb(imp_aabb2 b, imp_color c, void *user)
{
	imp_svg *s = user;
	char col[8];
	rgb(col, sizeof col, c);
	fprintf(s->f, "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"none\" stroke=\"%s\" "
		      "stroke-opacity=\"%.2f\" stroke-dasharray=\"3 2\"/>\n",
		px(s, b.lo.x), py(s, b.hi.y), (b.hi.x - b.lo.x) * s->scale, (b.hi.y - b.lo.y) * s->scale, col, alpha(c));
}

static void svg_text(imp_vec2 p, const char *text, imp_color c, void *user)
{
	imp_svg *s = user;
	char col[8];
	rgb(col, sizeof col, c);
	fprintf(s->f, "<text x=\"%.3f\" y=\"%.3f\" fill=\"%s\" font-family=\"sans-serif\" font-size=\"14\">", px(s, p.x),
		py(s, p.y), col);
	// The characters XML gives a meaning to, escaped.
	for (const char *t = text; t != NULL && *t; t++) {
		switch (*t) {
		case '<': fputs("&lt;", s->f); break;
		case '>': fputs("&gt;", s->f); break;
		case '&': fputs("&amp;", s->f); break;
		default: fputc(*t, s->f); break;
		}
	}
	fputs("</text>\n", s->f);
}

imp_status imp_svg_open(const char *path, imp_aabb2 view, int width, imp_svg **out)
{
	if (path == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	double w = view.hi.x - view.lo.x, h = view.hi.y - view.lo.y;
	if (!(w > 0.0) || !(h > 0.0) || !isfinite(w) || !isfinite(h) || width < 16 || width > 16384)
		return IMP_ERR_BAD_OPTIONS;
	// The height follows the region's shape: it must be a size too.
	double height = ceil(h * (width / w));
	if (!(height >= 1.0) || !(height <= 16384.0))
		return IMP_ERR_BAD_OPTIONS;
	imp_svg *s = malloc(sizeof *s);
	if (s == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	s->f = fopen(path, "w");
	if (s->f == NULL) {
		free(s);
		return IMP_ERR_IO;
	}
	s->view = view;
	s->scale = width / w;
	s->failed = false;
	fprintf(s->f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, (int)ceil(h * s->scale), width, (int)ceil(h * s->scale));
	*out = s;
	return IMP_OK;
}

imp_debug_draw imp_svg_draw(imp_svg *svg)
{
	imp_debug_draw d = imp_default_debug_draw();
	if (svg == NULL)
		return d;
	d.polygon = svg_polygon;
	d.circle = svg_circle;
	d.capsule = svg_capsule;
	d.segment = svg_segment;
	d.point = svg_point;
	d.aabb = svg_aabb;
	d.text = svg_text;
	d.user = svg;
	return d;
}

imp_status imp_svg_close(imp_svg *svg)
{
	if (svg == NULL)
		return IMP_OK;
	fputs("</svg>\n", svg->f);
	bool ok = !ferror(svg->f);
	ok = fclose(svg->f) == 0 && ok;
	free(svg);
	return ok ? IMP_OK : IMP_ERR_IO;
}
