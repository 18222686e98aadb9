// SPDX-License-Identifier: MIT
// impact_collision._impact: the CPython extension over the C library
// (CPython and numpy C APIs). Shapes, poses as numpy arrays or sequences,
// the pairwise queries and their batch forms.
//
// Conventions (python/impact_collision/_impact.pyi has the signatures):
// - a 2D pose is (x, y, angle); a 3D pose (x, y, z, qx, qy, qz, qw), the
//   quaternion's order that of scipy's Rotation.as_quat and of imp_quat;
// - numbers are float64: other dtypes are converted when numpy calls the
//   cast safe (integers, float32, bool), refused otherwise (TypeError);
//   arrays of the wrong shape are refused (ValueError); non-contiguous
//   arrays are read (copied when they are stacks);
// - every imp_status error raises impact_collision.Error (a ValueError)
//   with .status (int), .status_name ("IMP_ERR_NOT_FINITE") and
//   .status_text (imp_status_string); NaN, infinite, non-unit and
//   out-of-range poses are the C library's errors, found by it.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <impact/impact.h>

_Static_assert(sizeof(imp_vec2) == 2 * sizeof(double), "imp_vec2 is two packed doubles");
_Static_assert(sizeof(imp_vec3) == 3 * sizeof(double), "imp_vec3 is three packed doubles");

// ---------------------------------------------------------------------------
// Errors

static PyObject *Error; // impact_collision.Error, a subclass of ValueError

#define STATUS_NAME(s) [s] = #s
static const char *const status_names[] = {
	STATUS_NAME(IMP_OK),
	STATUS_NAME(IMP_ERR_NULL_ARGUMENT),
	STATUS_NAME(IMP_ERR_NOT_FINITE),
	STATUS_NAME(IMP_ERR_BAD_COUNT),
	STATUS_NAME(IMP_ERR_BAD_RADIUS),
	STATUS_NAME(IMP_ERR_BAD_ROTATION),
	STATUS_NAME(IMP_ERR_DIMENSION_MISMATCH),
	STATUS_NAME(IMP_ERR_BAD_SHAPE),
	STATUS_NAME(IMP_ERR_BAD_OPTIONS),
	STATUS_NAME(IMP_ERR_OUT_OF_MEMORY),
	STATUS_NAME(IMP_ERR_OUT_OF_RANGE),
	STATUS_NAME(IMP_ERR_BAD_ID),
	STATUS_NAME(IMP_ERR_BUSY),
	STATUS_NAME(IMP_ERR_UNSUPPORTED),
	STATUS_NAME(IMP_ERR_IO),
	STATUS_NAME(IMP_ERR_PARSE),
	STATUS_NAME(IMP_ERR_STATIC_BODY),
	STATUS_NAME(IMP_ERR_BAD_BODY_TYPE),
};
#undef STATUS_NAME
// A status added to base.h must be named here too.
_Static_assert(sizeof status_names / sizeof status_names[0] == IMP_STATUS_COUNT, "every imp_status named");

static PyObject *status_name_object(int status)
{
	if (status >= 0 && status < IMP_STATUS_COUNT && status_names[status])
		return PyUnicode_FromString(status_names[status]);
	return PyUnicode_FromFormat("IMP_STATUS_%d", status);
}

// Raises Error for `status`; `context` (may be NULL) names the argument.
// Always returns NULL.
static PyObject *raise_status(imp_status status, const char *context)
{
	PyObject *name = status_name_object((int)status);
	if (!name)
		return NULL;
	const char *text = imp_status_string(status);
	PyObject *msg = context ? PyUnicode_FromFormat("%U: %s (%s)", name, text, context)
				: PyUnicode_FromFormat("%U: %s", name, text);
	PyObject *exc = msg ? PyObject_CallOneArg(Error, msg) : NULL;
	Py_XDECREF(msg);
	if (!exc) {
		Py_DECREF(name);
		return NULL;
	}
	PyObject *code = PyLong_FromLong((long)status);
	PyObject *text_obj = PyUnicode_FromString(text);
	if (!code || !text_obj || PyObject_SetAttrString(exc, "status", code) < 0 ||
	    PyObject_SetAttrString(exc, "status_name", name) < 0 ||
	    PyObject_SetAttrString(exc, "status_text", text_obj) < 0) {
		Py_XDECREF(code);
		Py_XDECREF(text_obj);
		Py_DECREF(name);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(code);
	Py_DECREF(text_obj);
	Py_DECREF(name);
	PyErr_SetObject(Error, exc);
	Py_DECREF(exc);
	return NULL;
}

// ---------------------------------------------------------------------------
// Shapes

typedef struct {
	PyObject_HEAD
	imp_shape *shape;
	int dim;
	int kind;
} ShapeObject;

static PyTypeObject Shape_Type; // defined below, after its methods

static const char *kind_name(int kind)
{
	switch (kind) {
	case IMP_SHAPE_POLYGON: return "polygon";
	case IMP_SHAPE_USER2: return "user2";
	case IMP_SHAPE_POLYTOPE: return "polytope";
	case IMP_SHAPE_SPHERE: return "sphere";
	case IMP_SHAPE_CAPSULE3: return "capsule3";
	case IMP_SHAPE_BOX3: return "box3";
	case IMP_SHAPE_CYLINDER: return "cylinder";
	case IMP_SHAPE_CONE: return "cone";
	case IMP_SHAPE_ELLIPSOID: return "ellipsoid";
	case IMP_SHAPE_USER3: return "user3";
	case IMP_SHAPE_COMPOUND2: return "compound2";
	case IMP_SHAPE_COMPOUND3: return "compound3";
	case IMP_SHAPE_MESH: return "mesh";
	case IMP_SHAPE_HEIGHTFIELD: return "heightfield";
	case IMP_SHAPE_CHAIN: return "chain";
	default: return "unknown";
	}
}

// Wraps a new C shape (or destroys it when the wrapper cannot be made).
static PyObject *shape_wrap(imp_shape *shape)
{
	ShapeObject *self = PyObject_New(ShapeObject, &Shape_Type);
	if (!self) {
		imp_shape_destroy(shape);
		return NULL;
	}
	self->shape = shape;
	self->dim = imp_shape_dim(shape);
	self->kind = imp_shape_kind_of(shape);
	return (PyObject *)self;
}

static void Shape_dealloc(ShapeObject *self)
{
	imp_shape_destroy(self->shape);
	self->shape = NULL;
	PyObject_Free(self);
}

static PyObject *Shape_repr(ShapeObject *self)
{
	PyObject *r = PyFloat_FromDouble(imp_shape_radius(self->shape));
	if (!r)
		return NULL;
	PyObject *out = PyUnicode_FromFormat("<impact_collision.Shape %s dim=%d vertices=%d radius=%R>",
					     kind_name(self->kind), self->dim,
					     imp_shape_vertex_count(self->shape), r);
	Py_DECREF(r);
	return out;
}

static PyObject *Shape_get_dim(ShapeObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(self->dim);
}

static PyObject *Shape_get_kind(ShapeObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(kind_name(self->kind));
}

static PyObject *Shape_get_radius(ShapeObject *self, void *closure)
{
	(void)closure;
	return PyFloat_FromDouble(imp_shape_radius(self->shape));
}

static PyObject *Shape_get_vertex_count(ShapeObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(imp_shape_vertex_count(self->shape));
}

// The core's vertices as a new (n, dim) float64 array (n = 0 for curved
// cores).
static PyObject *Shape_get_vertices(ShapeObject *self, void *closure)
{
	(void)closure;
	int n = imp_shape_vertex_count(self->shape);
	if (n < 0)
		return raise_status(IMP_ERR_BAD_SHAPE, "vertices");
	npy_intp dims[2] = {n, self->dim};
	PyArrayObject *arr = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
	if (!arr)
		return NULL;
	if (n > 0) {
		int got = self->dim == 2 ? imp_shape_vertices2(self->shape, (imp_vec2 *)PyArray_DATA(arr), n)
					 : imp_shape_vertices3(self->shape, (imp_vec3 *)PyArray_DATA(arr), n);
		if (got != n) {
			Py_DECREF(arr);
			return raise_status(IMP_ERR_BAD_SHAPE, "vertices");
		}
	}
	return (PyObject *)arr;
}

// 3D cores: the edges as an (E, 2) int32 array of vertex indices; None in 2D
// (edge k of a polygon joins vertices k and (k + 1) % n).
static PyObject *Shape_get_edges(ShapeObject *self, void *closure)
{
	(void)closure;
	if (self->dim != 3)
		Py_RETURN_NONE;
	int n = imp_shape_edge_count(self->shape);
	if (n < 0)
		return raise_status(IMP_ERR_BAD_SHAPE, "edges");
	npy_intp dims[2] = {n, 2};
	PyArrayObject *arr = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT32);
	if (!arr)
		return NULL;
	int32_t *data = (int32_t *)PyArray_DATA(arr);
	for (int i = 0; i < n; i++) {
		int v0, v1;
		imp_status st = imp_shape_edge(self->shape, i, &v0, &v1);
		if (st != IMP_OK) {
			Py_DECREF(arr);
			return raise_status(st, "edges");
		}
		data[2 * i] = v0;
		data[2 * i + 1] = v1;
	}
	return (PyObject *)arr;
}

// 3D cores: a list of int32 arrays, each a face's vertex indices
// counter-clockwise seen from outside; None in 2D.
static PyObject *Shape_get_faces(ShapeObject *self, void *closure)
{
	(void)closure;
	if (self->dim != 3)
		Py_RETURN_NONE;
	int n = imp_shape_face_count(self->shape);
	if (n < 0)
		return raise_status(IMP_ERR_BAD_SHAPE, "faces");
	PyObject *list = PyList_New(n);
	if (!list)
		return NULL;
	for (int i = 0; i < n; i++) {
		int count = imp_shape_face(self->shape, i, NULL, 0);
		if (count < 0) {
			Py_DECREF(list);
			return raise_status(IMP_ERR_BAD_SHAPE, "faces");
		}
		npy_intp dims[1] = {count};
		PyArrayObject *arr = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT);
		if (!arr) {
			Py_DECREF(list);
			return NULL;
		}
		if (count > 0)
			imp_shape_face(self->shape, i, (int *)PyArray_DATA(arr), count);
		PyList_SET_ITEM(list, i, (PyObject *)arr);
	}
	return list;
}

static PyGetSetDef Shape_getset[] = {
	{"dim", (getter)Shape_get_dim, NULL, "2 or 3.", NULL},
	{"kind", (getter)Shape_get_kind, NULL, "The kind: 'polygon', 'polytope', 'sphere', 'box3', ...", NULL},
	{"radius", (getter)Shape_get_radius, NULL, "The rounding radius (0 for a sharp shape).", NULL},
	{"vertex_count", (getter)Shape_get_vertex_count, NULL, "The core's vertex count (0 for curved cores).", NULL},
	{"vertices", (getter)Shape_get_vertices, NULL,
	 "The core's vertices, a new (n, dim) float64 array in the shape's frame (n = 0 for curved cores).", NULL},
	{"edges", (getter)Shape_get_edges, NULL, "3D: the core's edges as an (E, 2) int32 array; None in 2D.", NULL},
	{"faces", (getter)Shape_get_faces, NULL, "3D: the core's faces, a list of int arrays of vertex indices; None in 2D.",
	 NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Shape_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "impact_collision.Shape",
	.tp_basicsize = sizeof(ShapeObject),
	.tp_dealloc = (destructor)Shape_dealloc,
	.tp_repr = (reprfunc)Shape_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An immutable impact shape, made by polygon(), sphere(), ... (not by Shape()); "
		  "its C memory is freed with it.",
	.tp_getset = Shape_getset,
};

// ---------------------------------------------------------------------------
// Reading numbers

// Reads `n` doubles from a 1-D sequence or array `o` into out. Fast paths
// for float64 arrays and for tuples and lists; anything else through numpy
// with safe casting. `what` names the argument, `form` what it should be.
static int read_doubles(PyObject *o, int n, double *out, const char *what, const char *form)
{
	if (PyArray_Check(o)) {
		PyArrayObject *a = (PyArrayObject *)o;
		if (PyArray_TYPE(a) == NPY_DOUBLE && PyArray_NDIM(a) == 1 && PyArray_DIM(a, 0) == n &&
		    PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) {
			const char *p = PyArray_BYTES(a);
			npy_intp stride = PyArray_STRIDE(a, 0);
			for (int i = 0; i < n; i++)
				out[i] = *(const double *)(p + i * stride);
			return 0;
		}
	} else if (PyTuple_CheckExact(o) || PyList_CheckExact(o)) {
		Py_ssize_t len = PySequence_Fast_GET_SIZE(o);
		if (len != n) {
			PyErr_Format(PyExc_ValueError, "%s: expected %s, got a sequence of length %zd", what, form, len);
			return -1;
		}
		PyObject **items = PySequence_Fast_ITEMS(o);
		for (int i = 0; i < n; i++) {
			PyObject *item = items[i];
			if (PyFloat_CheckExact(item)) {
				out[i] = PyFloat_AS_DOUBLE(item);
				continue;
			}
			if (PyComplex_Check(item) || PyArray_IsScalar(item, ComplexFloating) || PyUnicode_Check(item) ||
			    PyBytes_Check(item) || !PyNumber_Check(item)) {
				PyErr_Format(PyExc_TypeError, "%s: expected %s, item %d is a %s", what, form, i,
					     Py_TYPE(item)->tp_name);
				return -1;
			}
			out[i] = PyFloat_AsDouble(item);
			if (out[i] == -1.0 && PyErr_Occurred()) {
				// PyNumber_Check passed but __float__ failed: a numpy
				// complex scalar, say.
				PyErr_Clear();
				PyErr_Format(PyExc_TypeError, "%s: expected %s, item %d (a %s) is not a real number", what,
					     form, i, Py_TYPE(item)->tp_name);
				return -1;
			}
		}
		return 0;
	}
	PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF(o, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_TypeError, "%s: expected %s as float64 (or a dtype numpy casts safely): %S", what,
			     form, value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return -1;
	}
	if (PyArray_NDIM(a) != 1 || PyArray_DIM(a, 0) != n) {
		PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
		PyErr_Format(PyExc_ValueError, "%s: expected %s, got an array of shape %R", what, form,
			     shape ? shape : Py_None);
		Py_XDECREF(shape);
		Py_DECREF(a);
		return -1;
	}
	memcpy(out, PyArray_DATA(a), (size_t)n * sizeof(double));
	Py_DECREF(a);
	return 0;
}

static const char *pose_form(int dim)
{
	return dim == 2 ? "a 2D pose (x, y, angle)" : "a 3D pose (x, y, z, qx, qy, qz, qw)";
}

static int read_pose2(PyObject *o, imp_pose2 *out, const char *what)
{
	double v[3];
	if (read_doubles(o, 3, v, what, pose_form(2)) < 0)
		return -1;
	*out = imp_pose2_make(v[0], v[1], v[2]);
	return 0;
}

static int read_pose3(PyObject *o, imp_pose3 *out, const char *what)
{
	double v[7];
	if (read_doubles(o, 7, v, what, pose_form(3)) < 0)
		return -1;
	out->p = imp_vec3_make(v[0], v[1], v[2]);
	out->q = imp_quat_make(v[3], v[4], v[5], v[6]);
	return 0;
}

static int read_vec2(PyObject *o, imp_vec2 *out, const char *what)
{
	double v[2];
	if (read_doubles(o, 2, v, what, "a 2D point (x, y)") < 0)
		return -1;
	*out = imp_vec2_make(v[0], v[1]);
	return 0;
}

static int read_vec3(PyObject *o, imp_vec3 *out, const char *what)
{
	double v[3];
	if (read_doubles(o, 3, v, what, "a 3D point (x, y, z)") < 0)
		return -1;
	*out = imp_vec3_make(v[0], v[1], v[2]);
	return 0;
}

// An (N, cols) float64 C-contiguous array from `o` (new reference), for
// point clouds.
static PyArrayObject *read_points(PyObject *o, int cols, const char *what)
{
	PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF(o, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_TypeError, "%s: expected an (N, %d) array of float64 (or a dtype numpy casts safely): %S",
			     what, cols, value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return NULL;
	}
	if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 1) != cols) {
		PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
		PyErr_Format(PyExc_ValueError, "%s: expected an (N, %d) array, got shape %R", what, cols,
			     shape ? shape : Py_None);
		Py_XDECREF(shape);
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

// A pose or a stack of poses for the batch calls: *count is -1 for a single
// pose (broadcast), else the stack's length. Returns a new reference to a
// C-contiguous float64 array of shape (n,) or (N, n).
static PyArrayObject *read_pose_stack(PyObject *o, int dim, npy_intp *count, const char *what)
{
	int n = dim == 2 ? 3 : 7;
	PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF(o, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_TypeError, "%s: expected %s or an (N, %d) stack of them as float64 (or a dtype numpy casts safely): %S",
			     what, pose_form(dim), n, value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return NULL;
	}
	if (PyArray_NDIM(a) == 1 && PyArray_DIM(a, 0) == n) {
		*count = -1;
		return a;
	}
	if (PyArray_NDIM(a) == 2 && PyArray_DIM(a, 1) == n) {
		*count = PyArray_DIM(a, 0);
		return a;
	}
	PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
	PyErr_Format(PyExc_ValueError, "%s: expected %s of shape (%d,) or a stack of shape (N, %d), got shape %R", what,
		     pose_form(dim), n, n, shape ? shape : Py_None);
	Py_XDECREF(shape);
	Py_DECREF(a);
	return NULL;
}

static ShapeObject *as_shape(PyObject *o, const char *what)
{
	if (!PyObject_TypeCheck(o, &Shape_Type)) {
		PyErr_Format(PyExc_TypeError, "%s: expected an impact_collision.Shape, got %s", what, Py_TYPE(o)->tp_name);
		return NULL;
	}
	return (ShapeObject *)o;
}

// ---------------------------------------------------------------------------
// Constructors

static PyObject *make_polygon(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"points", "radius", NULL};
	PyObject *pts;
	double radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|d:polygon", names, &pts, &radius))
		return NULL;
	PyArrayObject *a = read_points(pts, 2, "points");
	if (!a)
		return NULL;
	npy_intp n = PyArray_DIM(a, 0);
	if (n > INT_MAX) {
		Py_DECREF(a);
		return raise_status(IMP_ERR_BAD_COUNT, "points");
	}
	imp_shape *s = NULL;
	imp_status st;
	Py_BEGIN_ALLOW_THREADS
	st = imp_shape_polygon((const imp_vec2 *)PyArray_DATA(a), (int)n, radius, &s);
	Py_END_ALLOW_THREADS
	Py_DECREF(a);
	if (st != IMP_OK)
		return raise_status(st, "polygon");
	return shape_wrap(s);
}

static PyObject *make_polytope(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"points", "radius", NULL};
	PyObject *pts;
	double radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|d:polytope", names, &pts, &radius))
		return NULL;
	PyArrayObject *a = read_points(pts, 3, "points");
	if (!a)
		return NULL;
	npy_intp n = PyArray_DIM(a, 0);
	if (n > INT_MAX) {
		Py_DECREF(a);
		return raise_status(IMP_ERR_BAD_COUNT, "points");
	}
	imp_shape *s = NULL;
	imp_status st;
	Py_BEGIN_ALLOW_THREADS
	st = imp_shape_polytope((const imp_vec3 *)PyArray_DATA(a), (int)n, radius, &s);
	Py_END_ALLOW_THREADS
	Py_DECREF(a);
	if (st != IMP_OK)
		return raise_status(st, "polytope");
	return shape_wrap(s);
}

static PyObject *make_circle(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"radius", "center", NULL};
	double radius;
	PyObject *center_obj = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "d|O:circle", names, &radius, &center_obj))
		return NULL;
	imp_vec2 c = imp_vec2_make(0.0, 0.0);
	if (center_obj && read_vec2(center_obj, &c, "center") < 0)
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_circle(c, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "circle");
	return shape_wrap(s);
}

static PyObject *make_sphere(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"radius", "center", NULL};
	double radius;
	PyObject *center_obj = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "d|O:sphere", names, &radius, &center_obj))
		return NULL;
	imp_vec3 c = imp_vec3_make(0.0, 0.0, 0.0);
	if (center_obj && read_vec3(center_obj, &c, "center") < 0)
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_sphere(c, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "sphere");
	return shape_wrap(s);
}

static PyObject *make_capsule2(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"p0", "p1", "radius", NULL};
	PyObject *o0, *o1;
	double radius;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOd:capsule2", names, &o0, &o1, &radius))
		return NULL;
	imp_vec2 p0, p1;
	if (read_vec2(o0, &p0, "p0") < 0 || read_vec2(o1, &p1, "p1") < 0)
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_capsule2(p0, p1, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "capsule2");
	return shape_wrap(s);
}

static PyObject *make_segment2(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"p0", "p1", NULL};
	PyObject *o0, *o1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:segment2", names, &o0, &o1))
		return NULL;
	imp_vec2 p0, p1;
	if (read_vec2(o0, &p0, "p0") < 0 || read_vec2(o1, &p1, "p1") < 0)
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_segment2(p0, p1, &s);
	if (st != IMP_OK)
		return raise_status(st, "segment2");
	return shape_wrap(s);
}

static PyObject *make_capsule3(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"p0", "p1", "radius", NULL};
	PyObject *o0, *o1;
	double radius;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOd:capsule3", names, &o0, &o1, &radius))
		return NULL;
	imp_vec3 p0, p1;
	if (read_vec3(o0, &p0, "p0") < 0 || read_vec3(o1, &p1, "p1") < 0)
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_capsule3(p0, p1, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "capsule3");
	return shape_wrap(s);
}

static PyObject *make_box2(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"hx", "hy", "radius", NULL};
	double hx, hy, radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "dd|d:box2", names, &hx, &hy, &radius))
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_box2(hx, hy, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "box2");
	return shape_wrap(s);
}

static PyObject *make_box3(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"hx", "hy", "hz", "radius", NULL};
	double hx, hy, hz, radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "ddd|d:box3", names, &hx, &hy, &hz, &radius))
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_box3(hx, hy, hz, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "box3");
	return shape_wrap(s);
}

static PyObject *make_cylinder(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"half_height", "cylinder_radius", "radius", NULL};
	double h, r, radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "dd|d:cylinder", names, &h, &r, &radius))
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_cylinder(h, r, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "cylinder");
	return shape_wrap(s);
}

static PyObject *make_cone(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"half_height", "base_radius", "radius", NULL};
	double h, r, radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "dd|d:cone", names, &h, &r, &radius))
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_cone(h, r, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "cone");
	return shape_wrap(s);
}

static PyObject *make_ellipsoid(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"rx", "ry", "rz", "radius", NULL};
	double rx, ry, rz, radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "ddd|d:ellipsoid", names, &rx, &ry, &rz, &radius))
		return NULL;
	imp_shape *s = NULL;
	imp_status st = imp_shape_ellipsoid(rx, ry, rz, radius, &s);
	if (st != IMP_OK)
		return raise_status(st, "ellipsoid");
	return shape_wrap(s);
}

// ---------------------------------------------------------------------------
// Result types

static PyTypeObject ClosestResult_Type;
static PyTypeObject TimeOfImpactResult_Type;

static PyStructSequence_Field closest_fields[] = {
	{"distance", "signed distance: > 0 apart, < 0 penetration depth"},
	{"point_a", "witness point on a (world frame), float64 array"},
	{"point_b", "witness point on b (world frame); normal . (point_b - point_a) == distance"},
	{"normal", "unit normal from a to b"},
	{"feature_a", "(kind, index) of a's core feature holding point_a: kind 'none', 'vertex', 'edge' or 'face'"},
	{"feature_b", "(kind, index) of b's core feature holding point_b"},
	{"state", "'separated', 'touching', 'overlapping', 'iteration limit' or 'degenerate'"},
	{"iterations", "GJK iterations"},
	{"epa_iterations", "penetration solver iterations (0 when the cores are apart)"},
	{"child_a", "the child of a non-convex a holding point_a; -1 for a convex a"},
	{"child_b", "the same for b"},
	{NULL, NULL},
};

static PyStructSequence_Desc closest_desc = {
	"impact_collision.ClosestResult",
	"The answer of closest(): imp_closest2_result / imp_closest3_result.",
	closest_fields,
	11,
};

static PyStructSequence_Field toi_fields[] = {
	{"state", "'separated', 'hit', 'overlapped', 'iteration limit' or 'failed'"},
	{"t", "the time of impact, or how far the query got"},
	{"distance", "the distance at the last query"},
	{"point_a", "witness on a at that time (world)"},
	{"point_b", "witness on b at that time (world)"},
	{"normal", "unit normal from a to b at that time"},
	{"iterations", "distance queries made"},
	{NULL, NULL},
};

static PyStructSequence_Desc toi_desc = {
	"impact_collision.TimeOfImpactResult",
	"The answer of time_of_impact(): imp_toi2_result / imp_toi3_result.",
	toi_fields,
	7,
};

static const char *feature_kind_name(imp_feature_kind k)
{
	switch (k) {
	case IMP_FEATURE_NONE: return "none";
	case IMP_FEATURE_VERTEX: return "vertex";
	case IMP_FEATURE_EDGE: return "edge";
	case IMP_FEATURE_FACE: return "face";
	}
	return "unknown";
}

static const char *toi_state_name(imp_toi_state s)
{
	switch (s) {
	case IMP_TOI_SEPARATED: return "separated";
	case IMP_TOI_HIT: return "hit";
	case IMP_TOI_OVERLAPPED: return "overlapped";
	case IMP_TOI_ITERATION_LIMIT: return "iteration limit";
	case IMP_TOI_FAILED: return "failed";
	}
	return "unknown";
}

static PyObject *vec_array(const double *v, int n)
{
	npy_intp dims[1] = {n};
	PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
	if (!a)
		return NULL;
	memcpy(PyArray_DATA(a), v, (size_t)n * sizeof(double));
	return (PyObject *)a;
}

static PyObject *feature_tuple(imp_feature f)
{
	return Py_BuildValue("(si)", feature_kind_name(f.kind), f.index);
}

// Fills a struct sequence from the items (stolen); on a NULL item drops it.
static PyObject *fill_struct(PyObject *seq, PyObject **items, int n)
{
	int ok = seq != NULL;
	for (int i = 0; i < n; i++)
		ok = ok && items[i] != NULL;
	if (!ok) {
		for (int i = 0; i < n; i++)
			Py_XDECREF(items[i]);
		Py_XDECREF(seq);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		PyStructSequence_SET_ITEM(seq, i, items[i]);
	return seq;
}

static PyObject *closest_object(double distance, const double *pa, const double *pb, const double *normal, int dim,
				imp_feature fa, imp_feature fb, imp_query_state state, int iterations,
				int epa_iterations, int child_a, int child_b)
{
	PyObject *items[11] = {
		PyFloat_FromDouble(distance),
		vec_array(pa, dim),
		vec_array(pb, dim),
		vec_array(normal, dim),
		feature_tuple(fa),
		feature_tuple(fb),
		PyUnicode_FromString(imp_query_state_string(state)),
		PyLong_FromLong(iterations),
		PyLong_FromLong(epa_iterations),
		PyLong_FromLong(child_a),
		PyLong_FromLong(child_b),
	};
	return fill_struct(PyStructSequence_New(&ClosestResult_Type), items, 11);
}

static PyObject *toi_object(imp_toi_state state, double t, double distance, const double *pa, const double *pb,
			    const double *normal, int dim, int iterations)
{
	PyObject *items[7] = {
		PyUnicode_FromString(toi_state_name(state)),
		PyFloat_FromDouble(t),
		PyFloat_FromDouble(distance),
		vec_array(pa, dim),
		vec_array(pb, dim),
		vec_array(normal, dim),
		PyLong_FromLong(iterations),
	};
	return fill_struct(PyStructSequence_New(&TimeOfImpactResult_Type), items, 7);
}

// ---------------------------------------------------------------------------
// Pairwise queries

// The checks behind a false overlap: a pose the queries refuse (they answer
// false for it). Inline, and stricter than the library's own tests (half
// their rotation tolerances: imp_pose2_is_valid, imp_pose3_is_valid, and
// the translation's range), so that no refused pose passes: a pose that
// fails here only sends a false answer through the full query, which
// names the status, or answers IMP_OK and the false stands.
static inline int pose2_ok(imp_pose2 p)
{
	double n = p.q.c * p.q.c + p.q.s * p.q.s - 1.0;
	return fabs(p.p.x) <= IMP_MAX_COORDINATE && fabs(p.p.y) <= IMP_MAX_COORDINATE && fabs(n) <= 0.5e-9;
}

static inline int pose3_ok(imp_pose3 p)
{
	double n = p.q.x * p.q.x + p.q.y * p.q.y + p.q.z * p.q.z + p.q.w * p.q.w - 1.0;
	return fabs(p.p.x) <= IMP_MAX_COORDINATE && fabs(p.p.y) <= IMP_MAX_COORDINATE &&
	       fabs(p.p.z) <= IMP_MAX_COORDINATE && fabs(n) <= 0.5e-6;
}

// The status of a query the fast call refused (NaN, or false with a bad
// pose): the full query's, which names it.
static imp_status diagnose2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb)
{
	imp_closest2_result r;
	return imp_closest2(a, pa, b, pb, NULL, &r);
}

static imp_status diagnose3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb)
{
	imp_closest3_result r;
	return imp_closest3(a, pa, b, pb, NULL, &r);
}

// Which pose a status is about, for the message.
static const char *blame2(imp_pose2 pa, imp_pose2 pb)
{
	return !pose2_ok(pa) ? "pose_a" : !pose2_ok(pb) ? "pose_b" : NULL;
}

static const char *blame3(imp_pose3 pa, imp_pose3 pb)
{
	return !pose3_ok(pa) ? "pose_a" : !pose3_ok(pb) ? "pose_b" : NULL;
}

// The four arguments of a pairwise call: shapes checked, poses read by a's
// dimension. Returns the dimension, or 0 with an exception set.
static int pair_args(PyObject *const *args, Py_ssize_t nargs, const char *fname, ShapeObject **a, ShapeObject **b,
		     imp_pose2 *pa2, imp_pose2 *pb2, imp_pose3 *pa3, imp_pose3 *pb3)
{
	if (nargs != 4) {
		PyErr_Format(PyExc_TypeError, "%s() takes 4 positional arguments (a, pose_a, b, pose_b), got %zd", fname,
			     nargs);
		return 0;
	}
	if (!(*a = as_shape(args[0], "a")) || !(*b = as_shape(args[2], "b")))
		return 0;
	if ((*a)->dim != (*b)->dim) {
		raise_status(IMP_ERR_DIMENSION_MISMATCH, "a and b");
		return 0;
	}
	if ((*a)->dim == 2) {
		if (read_pose2(args[1], pa2, "pose_a") < 0 || read_pose2(args[3], pb2, "pose_b") < 0)
			return 0;
		return 2;
	}
	if (read_pose3(args[1], pa3, "pose_a") < 0 || read_pose3(args[3], pb3, "pose_b") < 0)
		return 0;
	return 3;
}

// Every query of a pair here, as the batch loops call it: the value, and
// the status when the C call refused the input (IMP_OK otherwise).
static inline double distance2_checked(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				       imp_status *st)
{
	double d = imp_distance2(a, pa, b, pb, NULL);
	*st = isnan(d) ? diagnose2(a, pa, b, pb) : IMP_OK;
	return d;
}

static inline double distance3_checked(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				       imp_status *st)
{
	double d = imp_distance3(a, pa, b, pb, NULL);
	*st = isnan(d) ? diagnose3(a, pa, b, pb) : IMP_OK;
	return d;
}

static inline bool overlap2_checked(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				    imp_status *st)
{
	bool o = imp_overlap2(a, pa, b, pb, NULL);
	*st = !o && !(pose2_ok(pa) && pose2_ok(pb)) ? diagnose2(a, pa, b, pb) : IMP_OK;
	return o;
}

static inline bool overlap3_checked(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				    imp_status *st)
{
	bool o = imp_overlap3(a, pa, b, pb, NULL);
	*st = !o && !(pose3_ok(pa) && pose3_ok(pb)) ? diagnose3(a, pa, b, pb) : IMP_OK;
	return o;
}

static PyObject *py_overlap(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	ShapeObject *a, *b;
	imp_pose2 pa2, pb2;
	imp_pose3 pa3, pb3;
	int dim = pair_args(args, nargs, "overlap", &a, &b, &pa2, &pb2, &pa3, &pb3);
	if (!dim)
		return NULL;
	imp_status st;
	bool o = dim == 2 ? overlap2_checked(a->shape, pa2, b->shape, pb2, &st)
			  : overlap3_checked(a->shape, pa3, b->shape, pb3, &st);
	if (st != IMP_OK)
		return raise_status(st, dim == 2 ? blame2(pa2, pb2) : blame3(pa3, pb3));
	return PyBool_FromLong(o);
}

static PyObject *py_distance(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	ShapeObject *a, *b;
	imp_pose2 pa2, pb2;
	imp_pose3 pa3, pb3;
	int dim = pair_args(args, nargs, "distance", &a, &b, &pa2, &pb2, &pa3, &pb3);
	if (!dim)
		return NULL;
	imp_status st;
	double d = dim == 2 ? distance2_checked(a->shape, pa2, b->shape, pb2, &st)
			    : distance3_checked(a->shape, pa3, b->shape, pb3, &st);
	if (st != IMP_OK)
		return raise_status(st, dim == 2 ? blame2(pa2, pb2) : blame3(pa3, pb3));
	return PyFloat_FromDouble(d);
}

static PyObject *py_closest(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	ShapeObject *a, *b;
	imp_pose2 pa2, pb2;
	imp_pose3 pa3, pb3;
	int dim = pair_args(args, nargs, "closest", &a, &b, &pa2, &pb2, &pa3, &pb3);
	if (!dim)
		return NULL;
	if (dim == 2) {
		imp_closest2_result r;
		imp_status st = imp_closest2(a->shape, pa2, b->shape, pb2, NULL, &r);
		if (st != IMP_OK)
			return raise_status(st, blame2(pa2, pb2));
		return closest_object(r.distance, &r.point_a.x, &r.point_b.x, &r.normal.x, 2, r.feature_a, r.feature_b,
				      r.state, r.iterations, r.epa_iterations, r.child_a, r.child_b);
	}
	imp_closest3_result r;
	imp_status st = imp_closest3(a->shape, pa3, b->shape, pb3, NULL, &r);
	if (st != IMP_OK)
		return raise_status(st, blame3(pa3, pb3));
	return closest_object(r.distance, &r.point_a.x, &r.point_b.x, &r.normal.x, 3, r.feature_a, r.feature_b, r.state,
			      r.iterations, r.epa_iterations, r.child_a, r.child_b);
}

// A motion: (pose, linear_velocity, angular_velocity) as a tuple or list of
// three, or one flat array of 6 (2D: x, y, angle, vx, vy, w) or 13 numbers
// (3D: x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz).
static int read_motion2(PyObject *o, imp_motion2 *m, const char *what)
{
	if ((PyTuple_Check(o) || PyList_Check(o)) && PySequence_Size(o) == 3) {
		PyObject *seq = PySequence_Fast(o, what);
		if (!seq)
			return -1;
		PyObject **items = PySequence_Fast_ITEMS(seq);
		char name[64];
		int rc = 0;
		snprintf(name, sizeof name, "%s pose", what);
		rc = read_pose2(items[0], &m->pose, name);
		if (rc == 0) {
			snprintf(name, sizeof name, "%s linear velocity", what);
			rc = read_vec2(items[1], &m->v, name);
		}
		if (rc == 0) {
			m->w = PyFloat_AsDouble(items[2]);
			if (m->w == -1.0 && PyErr_Occurred()) {
				PyErr_Format(PyExc_TypeError, "%s angular velocity: expected a number", what);
				rc = -1;
			}
		}
		Py_DECREF(seq);
		return rc;
	}
	double v[6];
	if (read_doubles(o, 6, v, what, "a 2D motion ((x, y, angle), (vx, vy), w) or 6 numbers") < 0)
		return -1;
	m->pose = imp_pose2_make(v[0], v[1], v[2]);
	m->v = imp_vec2_make(v[3], v[4]);
	m->w = v[5];
	return 0;
}

static int read_motion3(PyObject *o, imp_motion3 *m, const char *what)
{
	if ((PyTuple_Check(o) || PyList_Check(o)) && PySequence_Size(o) == 3) {
		PyObject *seq = PySequence_Fast(o, what);
		if (!seq)
			return -1;
		PyObject **items = PySequence_Fast_ITEMS(seq);
		char name[64];
		int rc;
		snprintf(name, sizeof name, "%s pose", what);
		rc = read_pose3(items[0], &m->pose, name);
		if (rc == 0) {
			snprintf(name, sizeof name, "%s linear velocity", what);
			rc = read_vec3(items[1], &m->v, name);
		}
		if (rc == 0) {
			snprintf(name, sizeof name, "%s angular velocity", what);
			rc = read_vec3(items[2], &m->w, name);
		}
		Py_DECREF(seq);
		return rc;
	}
	double v[13];
	if (read_doubles(o, 13, v, what,
			 "a 3D motion ((x, y, z, qx, qy, qz, qw), (vx, vy, vz), (wx, wy, wz)) or 13 numbers") < 0)
		return -1;
	m->pose.p = imp_vec3_make(v[0], v[1], v[2]);
	m->pose.q = imp_quat_make(v[3], v[4], v[5], v[6]);
	m->v = imp_vec3_make(v[7], v[8], v[9]);
	m->w = imp_vec3_make(v[10], v[11], v[12]);
	return 0;
}

static PyObject *py_time_of_impact(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"a", "motion_a", "b", "motion_b", "t_max", "tolerance", "max_iterations", NULL};
	PyObject *ao, *mao, *bo, *mbo;
	double t_max = 1.0;
	imp_toi_options opt = imp_default_toi_options();
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|d$di:time_of_impact", names, &ao, &mao, &bo, &mbo, &t_max,
					 &opt.tolerance, &opt.max_iterations))
		return NULL;
	ShapeObject *a = as_shape(ao, "a"), *b = a ? as_shape(bo, "b") : NULL;
	if (!a || !b)
		return NULL;
	if (a->dim != b->dim)
		return raise_status(IMP_ERR_DIMENSION_MISMATCH, "a and b");
	if (a->dim == 2) {
		imp_motion2 ma, mb;
		if (read_motion2(mao, &ma, "motion_a") < 0 || read_motion2(mbo, &mb, "motion_b") < 0)
			return NULL;
		imp_toi2_result r;
		imp_status st = imp_time_of_impact2_ex(a->shape, ma, b->shape, mb, t_max, &opt, &r);
		if (st != IMP_OK)
			return raise_status(st, "time_of_impact");
		return toi_object(r.state, r.t, r.distance, &r.point_a.x, &r.point_b.x, &r.normal.x, 2, r.iterations);
	}
	imp_motion3 ma, mb;
	if (read_motion3(mao, &ma, "motion_a") < 0 || read_motion3(mbo, &mb, "motion_b") < 0)
		return NULL;
	imp_toi3_result r;
	imp_status st = imp_time_of_impact3_ex(a->shape, ma, b->shape, mb, t_max, &opt, &r);
	if (st != IMP_OK)
		return raise_status(st, "time_of_impact");
	return toi_object(r.state, r.t, r.distance, &r.point_a.x, &r.point_b.x, &r.normal.x, 3, r.iterations);
}

// ---------------------------------------------------------------------------
// Batch queries

enum batch_op { OP_OVERLAP, OP_DISTANCE };

// Reads row i of a pose stack (or the broadcast single pose).
static inline imp_pose2 row_pose2(const double *d, npy_intp count, npy_intp i)
{
	const double *r = count < 0 ? d : d + 3 * i;
	return imp_pose2_make(r[0], r[1], r[2]);
}

static const imp_pose3 identity3 = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}};

static inline imp_pose3 row_pose3(const double *d, npy_intp count, npy_intp i)
{
	const double *r = count < 0 ? d : d + 7 * i;
	imp_pose3 p = {imp_vec3_make(r[0], r[1], r[2]), imp_quat_make(r[3], r[4], r[5], r[6])};
	return p;
}

static PyObject *batch(PyObject *const *args, Py_ssize_t nargs, enum batch_op op, const char *fname)
{
	if (nargs != 4) {
		PyErr_Format(PyExc_TypeError, "%s() takes 4 positional arguments (a, poses_a, b, poses_b), got %zd", fname,
			     nargs);
		return NULL;
	}
	ShapeObject *a = as_shape(args[0], "a"), *b = a ? as_shape(args[2], "b") : NULL;
	if (!a || !b)
		return NULL;
	if (a->dim != b->dim)
		return raise_status(IMP_ERR_DIMENSION_MISMATCH, "a and b");
	int dim = a->dim;
	npy_intp ca, cb;
	PyArrayObject *xa = read_pose_stack(args[1], dim, &ca, "poses_a");
	if (!xa)
		return NULL;
	PyArrayObject *xb = read_pose_stack(args[3], dim, &cb, "poses_b");
	if (!xb) {
		Py_DECREF(xa);
		return NULL;
	}
	if (ca >= 0 && cb >= 0 && ca != cb) {
		PyErr_Format(PyExc_ValueError, "%s: poses_a has %zd poses and poses_b %zd: give as many, or one pose on a side",
			     fname, (Py_ssize_t)ca, (Py_ssize_t)cb);
		Py_DECREF(xa);
		Py_DECREF(xb);
		return NULL;
	}
	npy_intp n = ca >= 0 ? ca : cb >= 0 ? cb : 1;
	npy_intp dims[1] = {n};
	PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, dims, op == OP_OVERLAP ? NPY_BOOL : NPY_DOUBLE);
	if (!out) {
		Py_DECREF(xa);
		Py_DECREF(xb);
		return NULL;
	}
	const double *da = (const double *)PyArray_DATA(xa), *db = (const double *)PyArray_DATA(xb);
	const imp_shape *sa = a->shape, *sb = b->shape;
	npy_intp bad = -1;
	imp_status bad_status = IMP_OK;
	Py_BEGIN_ALLOW_THREADS
	imp_status st = IMP_OK;
	// A single pose (count < 0) is made once, not once a row: a 2D pose's
	// angle costs a sincos.
	if (dim == 2) {
		// (Read only when single: a stack's first row may not exist.)
		imp_pose2 fa = ca < 0 ? row_pose2(da, -1, 0) : imp_pose2_identity();
		imp_pose2 fb = cb < 0 ? row_pose2(db, -1, 0) : imp_pose2_identity();
#define POSE_A2(i) (ca < 0 ? fa : row_pose2(da, ca, i))
#define POSE_B2(i) (cb < 0 ? fb : row_pose2(db, cb, i))
		if (op == OP_OVERLAP) {
			npy_bool *o = (npy_bool *)PyArray_DATA(out);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = overlap2_checked(sa, POSE_A2(i), sb, POSE_B2(i), &st);
				bad = i;
			}
		} else {
			double *o = (double *)PyArray_DATA(out);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = distance2_checked(sa, POSE_A2(i), sb, POSE_B2(i), &st);
				bad = i;
			}
		}
#undef POSE_A2
#undef POSE_B2
	} else {
		imp_pose3 fa = ca < 0 ? row_pose3(da, -1, 0) : identity3;
		imp_pose3 fb = cb < 0 ? row_pose3(db, -1, 0) : identity3;
#define POSE_A3(i) (ca < 0 ? fa : row_pose3(da, ca, i))
#define POSE_B3(i) (cb < 0 ? fb : row_pose3(db, cb, i))
		if (op == OP_OVERLAP) {
			npy_bool *o = (npy_bool *)PyArray_DATA(out);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = overlap3_checked(sa, POSE_A3(i), sb, POSE_B3(i), &st);
				bad = i;
			}
		} else {
			double *o = (double *)PyArray_DATA(out);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = distance3_checked(sa, POSE_A3(i), sb, POSE_B3(i), &st);
				bad = i;
			}
		}
#undef POSE_A3
#undef POSE_B3
	}
	bad_status = st;
	Py_END_ALLOW_THREADS
	if (bad_status != IMP_OK) {
		// Name the row, and the side whose pose the library refused.
		int a_bad, b_bad;
		if (dim == 2) {
			a_bad = !pose2_ok(row_pose2(da, ca, bad));
			b_bad = !pose2_ok(row_pose2(db, cb, bad));
		} else {
			a_bad = !pose3_ok(row_pose3(da, ca, bad));
			b_bad = !pose3_ok(row_pose3(db, cb, bad));
		}
		char context[96];
		int side_a = a_bad || !b_bad;
		npy_intp count = side_a ? ca : cb;
		if (count >= 0)
			snprintf(context, sizeof context, "%s[%zd]", side_a ? "poses_a" : "poses_b", (Py_ssize_t)bad);
		else
			snprintf(context, sizeof context, "%s", side_a ? "poses_a" : "poses_b");
		Py_DECREF(xa);
		Py_DECREF(xb);
		Py_DECREF(out);
		return raise_status(bad_status, context);
	}
	Py_DECREF(xa);
	Py_DECREF(xb);
	return (PyObject *)out;
}

static PyObject *py_overlap_batch(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	return batch(args, nargs, OP_OVERLAP, "overlap_batch");
}

static PyObject *py_distance_batch(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	return batch(args, nargs, OP_DISTANCE, "distance_batch");
}

// ---------------------------------------------------------------------------
// The C side of bench/python_quick.py: times the plain C loop over the same
// shapes and poses (poses made into imp_pose2/3 before the clock starts),
// for the overhead of the Python calls. Not part of the API.

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static PyObject *py_c_loop_time(PyObject *mod, PyObject *args)
{
	(void)mod;
	const char *opname;
	PyObject *ao, *pao, *bo, *pbo;
	Py_ssize_t repeat;
	int convert = 0;
	if (!PyArg_ParseTuple(args, "sOOOOn|p:_c_loop_time", &opname, &ao, &pao, &bo, &pbo, &repeat, &convert))
		return NULL;
	int overlap = strcmp(opname, "overlap") == 0;
	if (!overlap && strcmp(opname, "distance") != 0) {
		PyErr_SetString(PyExc_ValueError, "op: 'overlap' or 'distance'");
		return NULL;
	}
	ShapeObject *a = as_shape(ao, "a"), *b = a ? as_shape(bo, "b") : NULL;
	if (!a || !b)
		return NULL;
	if (a->dim != b->dim)
		return raise_status(IMP_ERR_DIMENSION_MISMATCH, "a and b");
	int dim = a->dim;
	npy_intp ca, cb;
	PyArrayObject *xa = read_pose_stack(pao, dim, &ca, "poses_a");
	if (!xa)
		return NULL;
	PyArrayObject *xb = read_pose_stack(pbo, dim, &cb, "poses_b");
	if (!xb) {
		Py_DECREF(xa);
		return NULL;
	}
	npy_intp n = ca >= 0 ? ca : cb >= 0 ? cb : 1;
	if ((ca >= 0 && ca != n) || (cb >= 0 && cb != n) || repeat < 1) {
		Py_DECREF(xa);
		Py_DECREF(xb);
		PyErr_SetString(PyExc_ValueError, "stacks of different lengths, or repeat < 1");
		return NULL;
	}
	size_t psize = dim == 2 ? sizeof(imp_pose2) : sizeof(imp_pose3);
	char *poses = PyMem_RawMalloc((size_t)(2 * n) * psize);
	double *out = PyMem_RawMalloc((size_t)n * sizeof(double));
	if (!poses || !out) {
		PyMem_RawFree(poses);
		PyMem_RawFree(out);
		Py_DECREF(xa);
		Py_DECREF(xb);
		return PyErr_NoMemory();
	}
	const double *da = (const double *)PyArray_DATA(xa), *db = (const double *)PyArray_DATA(xb);
	for (npy_intp i = 0; i < n; i++) {
		if (dim == 2) {
			((imp_pose2 *)poses)[2 * i] = row_pose2(da, ca, i);
			((imp_pose2 *)poses)[2 * i + 1] = row_pose2(db, cb, i);
		} else {
			((imp_pose3 *)poses)[2 * i] = row_pose3(da, ca, i);
			((imp_pose3 *)poses)[2 * i + 1] = row_pose3(db, cb, i);
		}
	}
	double t0, t1;
	const imp_shape *sa = a->shape, *sb = b->shape;
	Py_BEGIN_ALLOW_THREADS
	t0 = now_seconds();
	for (Py_ssize_t k = 0; k < repeat; k++) {
		if (convert) {
			// The rows read and made into poses in the loop, as the batch
			// calls do (a 2D angle's sincos included; a single pose made
			// once, before the loop).
			if (dim == 2) {
				imp_pose2 fa = ca < 0 ? row_pose2(da, -1, 0) : imp_pose2_identity();
				imp_pose2 fb = cb < 0 ? row_pose2(db, -1, 0) : imp_pose2_identity();
				for (npy_intp i = 0; i < n; i++) {
					imp_pose2 pa = ca < 0 ? fa : row_pose2(da, ca, i), pb = cb < 0 ? fb : row_pose2(db, cb, i);
					out[i] = overlap ? (double)imp_overlap2(sa, pa, sb, pb, NULL) : imp_distance2(sa, pa, sb, pb, NULL);
				}
			} else {
				imp_pose3 fa = ca < 0 ? row_pose3(da, -1, 0) : identity3;
				imp_pose3 fb = cb < 0 ? row_pose3(db, -1, 0) : identity3;
				for (npy_intp i = 0; i < n; i++) {
					imp_pose3 pa = ca < 0 ? fa : row_pose3(da, ca, i), pb = cb < 0 ? fb : row_pose3(db, cb, i);
					out[i] = overlap ? (double)imp_overlap3(sa, pa, sb, pb, NULL) : imp_distance3(sa, pa, sb, pb, NULL);
				}
			}
			continue;
		}
		for (npy_intp i = 0; i < n; i++) {
			if (dim == 2) {
				const imp_pose2 *p = (const imp_pose2 *)poses + 2 * i;
				out[i] = overlap ? (double)imp_overlap2(sa, p[0], sb, p[1], NULL)
						 : imp_distance2(sa, p[0], sb, p[1], NULL);
			} else {
				const imp_pose3 *p = (const imp_pose3 *)poses + 2 * i;
				out[i] = overlap ? (double)imp_overlap3(sa, p[0], sb, p[1], NULL)
						 : imp_distance3(sa, p[0], sb, p[1], NULL);
			}
		}
	}
	t1 = now_seconds();
	Py_END_ALLOW_THREADS
	double check = 0.0;
	for (npy_intp i = 0; i < n; i++)
		check += out[i];
	PyMem_RawFree(poses);
	PyMem_RawFree(out);
	Py_DECREF(xa);
	Py_DECREF(xb);
	return Py_BuildValue("(dd)", t1 - t0, check);
}

// ---------------------------------------------------------------------------
// Module

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f)
#define KWCALL(f) (PyCFunction)(void (*)(void))(f)

static PyMethodDef module_methods[] = {
	{"polygon", KWCALL(make_polygon), METH_VARARGS | METH_KEYWORDS,
	 "polygon($module, /, points, radius=0.0)\n--\n\nReturns Shape. The convex hull of an (N, 2) array of points, rounded by radius."},
	{"circle", KWCALL(make_circle), METH_VARARGS | METH_KEYWORDS,
	 "circle($module, /, radius, center=(0.0, 0.0))\n--\n\nReturns Shape. A disc (radius > 0) centred at center."},
	{"capsule2", KWCALL(make_capsule2), METH_VARARGS | METH_KEYWORDS,
	 "capsule2($module, /, p0, p1, radius)\n--\n\nReturns Shape. The points within radius (> 0) of segment [p0, p1]."},
	{"segment2", KWCALL(make_segment2), METH_VARARGS | METH_KEYWORDS,
	 "segment2($module, /, p0, p1)\n--\n\nReturns Shape. The segment [p0, p1]."},
	{"box2", KWCALL(make_box2), METH_VARARGS | METH_KEYWORDS,
	 "box2($module, /, hx, hy, radius=0.0)\n--\n\nReturns Shape. The box [-hx, hx] x [-hy, hy] rounded by radius."},
	{"polytope", KWCALL(make_polytope), METH_VARARGS | METH_KEYWORDS,
	 "polytope($module, /, points, radius=0.0)\n--\n\nReturns Shape. The convex hull of an (N, 3) array of points, rounded by radius."},
	{"sphere", KWCALL(make_sphere), METH_VARARGS | METH_KEYWORDS,
	 "sphere($module, /, radius, center=(0.0, 0.0, 0.0))\n--\n\nReturns Shape. A sphere (radius > 0) centred at center."},
	{"capsule3", KWCALL(make_capsule3), METH_VARARGS | METH_KEYWORDS,
	 "capsule3($module, /, p0, p1, radius)\n--\n\nReturns Shape. The points within radius (> 0) of segment [p0, p1]."},
	{"box3", KWCALL(make_box3), METH_VARARGS | METH_KEYWORDS,
	 "box3($module, /, hx, hy, hz, radius=0.0)\n--\n\nReturns Shape. The box [-hx, hx] x [-hy, hy] x [-hz, hz] rounded by radius."},
	{"cylinder", KWCALL(make_cylinder), METH_VARARGS | METH_KEYWORDS,
	 "cylinder($module, /, half_height, cylinder_radius, radius=0.0)\n--\n\nReturns Shape. A cylinder about the z axis, rounded by radius."},
	{"cone", KWCALL(make_cone), METH_VARARGS | METH_KEYWORDS,
	 "cone($module, /, half_height, base_radius, radius=0.0)\n--\n\nReturns Shape. A cone about z: base disc at z = -half_height, apex at +half_height."},
	{"ellipsoid", KWCALL(make_ellipsoid), METH_VARARGS | METH_KEYWORDS,
	 "ellipsoid($module, /, rx, ry, rz, radius=0.0)\n--\n\nReturns Shape. An ellipsoid with semi-axes rx, ry, rz, rounded by radius."},
	{"overlap", FASTCALL(py_overlap), METH_FASTCALL,
	 "overlap($module, a, pose_a, b, pose_b, /)\n--\n\nReturns bool. Do the two rounded shapes overlap (touching counts)?"},
	{"distance", FASTCALL(py_distance), METH_FASTCALL,
	 "distance($module, a, pose_a, b, pose_b, /)\n--\n\nReturns float. The distance between the shapes, 0 when they overlap."},
	{"closest", FASTCALL(py_closest), METH_FASTCALL,
	 "closest($module, a, pose_a, b, pose_b, /)\n--\n\nReturns ClosestResult. Signed distance, witness points, normal, features."},
	{"time_of_impact", KWCALL(py_time_of_impact), METH_VARARGS | METH_KEYWORDS,
	 "time_of_impact($module, /, a, motion_a, b, motion_b, t_max=1.0, *, tolerance=0.0, max_iterations=64)\n--\n\nReturns TimeOfImpactResult. "
	 "The first time in [0, t_max] the moving shapes come within the tolerance. A motion is\n"
	 "(pose, linear_velocity, angular_velocity) or a flat array of 6 (2D) or 13 (3D) numbers."},
	{"overlap_batch", FASTCALL(py_overlap_batch), METH_FASTCALL,
	 "overlap_batch($module, a, poses_a, b, poses_b, /)\n--\n\nReturns numpy.ndarray[bool]. "
	 "overlap() over stacks of poses ((N, 3) or (N, 7)); a single pose is used for every row. GIL released."},
	{"distance_batch", FASTCALL(py_distance_batch), METH_FASTCALL,
	 "distance_batch($module, a, poses_a, b, poses_b, /)\n--\n\nReturns numpy.ndarray[float64]. "
	 "distance() over stacks of poses ((N, 3) or (N, 7)); a single pose is used for every row. GIL released."},
	{"_c_loop_time", (PyCFunction)py_c_loop_time, METH_VARARGS,
	 "_c_loop_time($module, op, a, poses_a, b, poses_b, repeat, convert=False, /)\n--\n\nReturns (seconds, checksum). The plain C loop over\n"
	 "ready imp_pose2/3 structs (convert: over the rows, made into poses in the loop), for benchmarks."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	"impact_collision._impact",
	"The C extension of impact_collision: impact's shapes and pairwise queries.",
	-1,
	module_methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

static int add_status_constants(PyObject *m)
{
	PyObject *names = PyTuple_New(IMP_STATUS_COUNT);
	if (!names)
		return -1;
	for (int i = 0; i < IMP_STATUS_COUNT; i++) {
		PyObject *s = status_name_object(i);
		if (!s) {
			Py_DECREF(names);
			return -1;
		}
		PyTuple_SET_ITEM(names, i, s);
		if (PyModule_AddIntConstant(m, status_names[i], i) < 0) {
			Py_DECREF(names);
			return -1;
		}
	}
	return PyModule_AddObject(m, "STATUS_NAMES", names) < 0 ? (Py_DECREF(names), -1) : 0;
}

PyMODINIT_FUNC PyInit__impact(void)
{
	import_array();

	if (PyType_Ready(&Shape_Type) < 0)
		return NULL;
	if (PyStructSequence_InitType2(&ClosestResult_Type, &closest_desc) < 0 ||
	    PyStructSequence_InitType2(&TimeOfImpactResult_Type, &toi_desc) < 0)
		return NULL;

	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	Error = PyErr_NewExceptionWithDoc(
		"impact_collision.Error",
		"An imp_status error of the C library. Attributes: status (int), status_name (e.g. 'IMP_ERR_NOT_FINITE'), "
		"status_text (imp_status_string).",
		PyExc_ValueError, NULL);
	if (!Error)
		goto fail;
	Py_INCREF(Error);
	if (PyModule_AddObject(m, "Error", Error) < 0) {
		Py_DECREF(Error);
		goto fail;
	}
	Py_INCREF(&Shape_Type);
	if (PyModule_AddObject(m, "Shape", (PyObject *)&Shape_Type) < 0) {
		Py_DECREF(&Shape_Type);
		goto fail;
	}
	Py_INCREF(&ClosestResult_Type);
	if (PyModule_AddObject(m, "ClosestResult", (PyObject *)&ClosestResult_Type) < 0) {
		Py_DECREF(&ClosestResult_Type);
		goto fail;
	}
	Py_INCREF(&TimeOfImpactResult_Type);
	if (PyModule_AddObject(m, "TimeOfImpactResult", (PyObject *)&TimeOfImpactResult_Type) < 0) {
		Py_DECREF(&TimeOfImpactResult_Type);
		goto fail;
	}
	if (add_status_constants(m) < 0)
		goto fail;
	if (PyModule_AddIntConstant(m, "C_VERSION", imp_version()) < 0 ||
	    PyModule_AddObject(m, "MAX_COORDINATE", PyFloat_FromDouble(IMP_MAX_COORDINATE)) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
