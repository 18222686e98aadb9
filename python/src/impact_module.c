// SPDX-License-Identifier: MIT
// impact_collision._impact: the CPython extension over the C library
// (CPython and numpy C APIs). Shapes, poses as numpy arrays or sequences,
// the pairwise queries and their batch forms, the World and its queries.
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

// Raises Error for `status`; `context` (may be NULL) names the argument,
// `row` (-1: none) the row of a batch or of World.set_poses (the
// exception's .row, else None), `line` (0: none) the line of a mesh file
// that did not parse (.line, else None). Always returns NULL.
static PyObject *raise_status_full(imp_status status, const char *context, Py_ssize_t row, int line)
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
	PyObject *row_obj = row >= 0 ? PyLong_FromSsize_t(row) : Py_NewRef(Py_None);
	PyObject *line_obj = line > 0 ? PyLong_FromLong(line) : Py_NewRef(Py_None);
	if (!code || !text_obj || !row_obj || !line_obj || PyObject_SetAttrString(exc, "status", code) < 0 ||
	    PyObject_SetAttrString(exc, "status_name", name) < 0 ||
	    PyObject_SetAttrString(exc, "status_text", text_obj) < 0 || PyObject_SetAttrString(exc, "row", row_obj) < 0 ||
	    PyObject_SetAttrString(exc, "line", line_obj) < 0) {
		Py_XDECREF(code);
		Py_XDECREF(text_obj);
		Py_XDECREF(row_obj);
		Py_XDECREF(line_obj);
		Py_DECREF(name);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(code);
	Py_DECREF(text_obj);
	Py_DECREF(row_obj);
	Py_DECREF(line_obj);
	Py_DECREF(name);
	PyErr_SetObject(Error, exc);
	Py_DECREF(exc);
	return NULL;
}

static PyObject *raise_status_row(imp_status status, const char *context, Py_ssize_t row)
{
	return raise_status_full(status, context, row, 0);
}

static PyObject *raise_status(imp_status status, const char *context)
{
	return raise_status_row(status, context, -1);
}

// ---------------------------------------------------------------------------
// Shapes

typedef struct {
	PyObject_HEAD
	imp_shape *shape;
	int dim;
	int kind;
	// Compounds: the C compound borrows its children (shape.h: "The
	// children stay owned by the caller and must outlive the compound"),
	// so it holds their Shape objects (a tuple) until it is freed. No
	// cycle can form: a child is convex and holds no objects. child_poses
	// is the (N, 3) / (N, 7) float64 array of their poses as given. Both
	// NULL for the other shapes.
	PyObject *children;
	PyObject *child_poses;
	// A pair with a non-convex side may be refused for a pose the pairwise
	// check below passes (a child's pose composed with the relative pose
	// beyond the range): `far` is set for a compound with a child pose
	// beyond IMP_MAX_COORDINATE / 8, whose false overlaps are always
	// diagnosed (see overlap2_checked).
	int far;
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
	self->children = NULL;
	self->child_poses = NULL;
	self->far = 0;
	return (PyObject *)self;
}

// A constructor's end: the new shape wrapped, or its status raised (the
// status read first: s is written by the constructor's call).
static PyObject *shape_made(imp_status st, imp_shape *s, const char *what)
{
	return st == IMP_OK ? shape_wrap(s) : raise_status(st, what);
}

static inline int kind_is_nonconvex(int kind)
{
	return kind >= IMP_SHAPE_COMPOUND2 && kind <= IMP_SHAPE_CHAIN;
}

static void Shape_dealloc(ShapeObject *self)
{
	// The C shape first: a compound points at its children's C shapes,
	// which the tuple's Shape objects own.
	imp_shape_destroy(self->shape);
	self->shape = NULL;
	Py_CLEAR(self->children);
	Py_CLEAR(self->child_poses);
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

// The number of children of a non-convex shape (a compound's shapes, a
// mesh's triangles, a height field's prisms, a chain's segments); 0 for a
// convex shape.
static PyObject *Shape_get_child_count(ShapeObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(imp_shape_child_count(self->shape));
}

// A mesh's triangles as a new (T, 3) int32 array of vertex indices (in the
// order given); None for the other shapes.
static PyObject *Shape_get_triangles(ShapeObject *self, void *closure)
{
	(void)closure;
	if (self->kind != IMP_SHAPE_MESH)
		Py_RETURN_NONE;
	int n = imp_shape_face_count(self->shape);
	if (n < 0)
		return raise_status(IMP_ERR_BAD_SHAPE, "triangles");
	npy_intp dims[2] = {n, 3};
	PyArrayObject *arr = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT32);
	if (!arr)
		return NULL;
	int32_t *data = (int32_t *)PyArray_DATA(arr);
	for (int i = 0; i < n; i++) {
		int t[3];
		if (imp_shape_face(self->shape, i, t, 3) != 3) {
			Py_DECREF(arr);
			return raise_status(IMP_ERR_BAD_SHAPE, "triangles");
		}
		data[3 * (npy_intp)i] = t[0];
		data[3 * (npy_intp)i + 1] = t[1];
		data[3 * (npy_intp)i + 2] = t[2];
	}
	return (PyObject *)arr;
}

// A compound's children: the tuple of Shape objects it holds; None for the
// other shapes.
static PyObject *Shape_get_children(ShapeObject *self, void *closure)
{
	(void)closure;
	if (!self->children)
		Py_RETURN_NONE;
	return Py_NewRef(self->children);
}

// A compound's child poses as given, a new (N, 3) / (N, 7) float64 array;
// None for the other shapes.
static PyObject *Shape_get_child_poses(ShapeObject *self, void *closure)
{
	(void)closure;
	if (!self->child_poses)
		Py_RETURN_NONE;
	return PyArray_NewCopy((PyArrayObject *)self->child_poses, NPY_CORDER);
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
	{"child_count", (getter)Shape_get_child_count, NULL,
	 "Non-convex shapes: the number of children (compound shapes, mesh triangles, height-field prisms, chain "
	 "segments); 0 for a convex shape.",
	 NULL},
	{"triangles", (getter)Shape_get_triangles, NULL, "A mesh's triangles, a new (T, 3) int32 array; None otherwise.",
	 NULL},
	{"children", (getter)Shape_get_children, NULL, "A compound's children, a tuple of Shape; None otherwise.", NULL},
	{"child_poses", (getter)Shape_get_child_poses, NULL,
	 "A compound's child poses as given, a new (N, 3) / (N, 7) float64 array; None otherwise.", NULL},
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
		// A list is snapshot into a tuple first: converting an item can
		// run Python code (__float__) that mutates the list, which would
		// free the items under a pointer into its storage. The tuple (ours)
		// keeps every item alive until the end.
		PyObject *t = PyList_CheckExact(o) ? PyList_AsTuple(o) : Py_NewRef(o);
		if (!t)
			return -1;
		Py_ssize_t len = PyTuple_GET_SIZE(t);
		if (len != n) {
			Py_DECREF(t);
			PyErr_Format(PyExc_ValueError, "%s: expected %s, got a sequence of length %zd", what, form, len);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			PyObject *item = Py_NewRef(PyTuple_GET_ITEM(t, i));
			if (PyFloat_CheckExact(item)) {
				out[i] = PyFloat_AS_DOUBLE(item);
				Py_DECREF(item);
				continue;
			}
			if (PyComplex_Check(item) || PyArray_IsScalar(item, ComplexFloating) || PyUnicode_Check(item) ||
			    PyBytes_Check(item) || !PyNumber_Check(item)) {
				PyErr_Format(PyExc_TypeError, "%s: expected %s, item %d is a %s", what, form, i,
					     Py_TYPE(item)->tp_name);
				Py_DECREF(item);
				Py_DECREF(t);
				return -1;
			}
			out[i] = PyFloat_AsDouble(item);
			if (out[i] == -1.0 && PyErr_Occurred()) {
				// PyNumber_Check passed but __float__ failed: an int
				// beyond float64's range (an OverflowError, as float()
				// raises), or a numpy complex scalar, say.
				if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
					PyErr_Clear();
					PyErr_Format(PyExc_OverflowError, "%s: expected %s, item %d (a %s) is beyond float64's range",
						     what, form, i, Py_TYPE(item)->tp_name);
				} else {
					PyErr_Clear();
					PyErr_Format(PyExc_TypeError, "%s: expected %s, item %d (a %s) is not a real number",
						     what, form, i, Py_TYPE(item)->tp_name);
				}
				Py_DECREF(item);
				Py_DECREF(t);
				return -1;
			}
			Py_DECREF(item);
		}
		Py_DECREF(t);
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
// point clouds. Always a private copy: the constructors read it with the
// GIL released, and another thread must not be able to change the points
// between the library's checks and its use of them.
static PyArrayObject *read_points(PyObject *o, int cols, const char *what)
{
	PyArrayObject *a =
		(PyArrayObject *)PyArray_FROM_OTF(o, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_ENSURECOPY);
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
	if (PyArray_NDIM(a) == 1 && PyArray_DIM(a, 0) == 0) {
		// An empty sequence ([] or ()): the empty stack, shape (0, n).
		Py_DECREF(a);
		npy_intp dims[2] = {0, n};
		*count = 0;
		return (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
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
	return shape_made(st, s, "circle");
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
	return shape_made(st, s, "sphere");
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
	return shape_made(st, s, "capsule2");
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
	return shape_made(st, s, "segment2");
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
	return shape_made(st, s, "capsule3");
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
	return shape_made(st, s, "box2");
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
	return shape_made(st, s, "box3");
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
	return shape_made(st, s, "cylinder");
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
	return shape_made(st, s, "cone");
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
	return shape_made(st, s, "ellipsoid");
}

// ---------------------------------------------------------------------------
// Non-convex constructors

// A 2-D float64 C-contiguous private copy of `o` (new reference), any
// number of columns: a height field's grid.
static PyArrayObject *read_grid(PyObject *o, const char *what)
{
	PyArrayObject *a =
		(PyArrayObject *)PyArray_FROM_OTF(o, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_ENSURECOPY);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_TypeError,
			     "%s: expected a (rows, cols) array of float64 (or a dtype numpy casts safely): %S", what,
			     value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return NULL;
	}
	if (PyArray_NDIM(a) != 2) {
		PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
		PyErr_Format(PyExc_ValueError, "%s: expected a (rows, cols) array, got shape %R", what,
			     shape ? shape : Py_None);
		Py_XDECREF(shape);
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

// A mesh's triangles: a (T, 3) array of any integer dtype (not bool, not
// float) read into a new C-contiguous int32 array, every index checked
// against [0, vertex_count) first (IMP_ERR_BAD_COUNT naming the entry, as
// the library would without naming it), so that no value is cut by the
// narrowing.
static PyArrayObject *read_triangles(PyObject *o, npy_intp vertex_count, const char *what)
{
	PyArrayObject *a = (PyArrayObject *)PyArray_FromAny(o, NULL, 0, 0, 0, NULL);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_TypeError, "%s: expected a (T, 3) array of integers: %S", what, value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return NULL;
	}
	if (!PyArray_ISINTEGER(a)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a (T, 3) array of integers, got dtype %R", what,
			     (PyObject *)PyArray_DESCR(a));
		Py_DECREF(a);
		return NULL;
	}
	if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 1) != 3) {
		PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
		PyErr_Format(PyExc_ValueError, "%s: expected a (T, 3) array, got shape %R", what, shape ? shape : Py_None);
		Py_XDECREF(shape);
		Py_DECREF(a);
		return NULL;
	}
	npy_intp t = PyArray_DIM(a, 0);
	if (t > INT_MAX) {
		Py_DECREF(a);
		return (PyArrayObject *)raise_status(IMP_ERR_BAD_COUNT, what);
	}
	int is_unsigned = PyArray_ISUNSIGNED(a);
	// Same-kind widening casts: every value kept.
	PyArrayObject *w = (PyArrayObject *)PyArray_FROM_OTF((PyObject *)a, is_unsigned ? NPY_UINT64 : NPY_INT64,
							    NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
	Py_DECREF(a);
	if (!w)
		return NULL;
	npy_intp dims[2] = {t, 3};
	PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_INT32);
	if (!out) {
		Py_DECREF(w);
		return NULL;
	}
	int32_t *dst = (int32_t *)PyArray_DATA(out);
	for (npy_intp i = 0; i < 3 * t; i++) {
		char value[32];
		int ok;
		if (is_unsigned) {
			uint64_t u = ((const uint64_t *)PyArray_DATA(w))[i];
			ok = u < (uint64_t)vertex_count;
			if (ok)
				dst[i] = (int32_t)u;
			else
				snprintf(value, sizeof value, "%llu", (unsigned long long)u);
		} else {
			int64_t x = ((const int64_t *)PyArray_DATA(w))[i];
			ok = x >= 0 && x < (int64_t)vertex_count;
			if (ok)
				dst[i] = (int32_t)x;
			else
				snprintf(value, sizeof value, "%lld", (long long)x);
		}
		if (!ok) {
			char context[128];
			snprintf(context, sizeof context, "%s[%zd, %d] = %s, not in [0, %zd)", what, (Py_ssize_t)(i / 3),
				 (int)(i % 3), value, (Py_ssize_t)vertex_count);
			Py_DECREF(w);
			Py_DECREF(out);
			return (PyArrayObject *)raise_status_row(IMP_ERR_BAD_COUNT, context, (Py_ssize_t)(i / 3));
		}
	}
	Py_DECREF(w);
	return out;
}

// The check of a child's pose in a compound, as the library makes it (the
// translation's range, finite numbers, a unit rotation): names the row it
// refused.
static int child_pose_ok(int dim, const double *r)
{
	if (dim == 2) {
		imp_pose2 p = imp_pose2_make(r[0], r[1], r[2]);
		return isfinite(r[2]) && fabs(r[0]) <= IMP_MAX_COORDINATE && fabs(r[1]) <= IMP_MAX_COORDINATE &&
		       imp_pose2_is_valid(p);
	}
	imp_pose3 p = {imp_vec3_make(r[0], r[1], r[2]), imp_quat_make(r[3], r[4], r[5], r[6])};
	return imp_pose3_is_valid(p);
}

static PyObject *make_compound(PyObject *args, PyObject *kw, int dim)
{
	static char *names[] = {"children", "poses", NULL};
	PyObject *co, *po;
	if (!PyArg_ParseTupleAndKeywords(args, kw, dim == 2 ? "OO:compound2" : "OO:compound3", names, &co, &po))
		return NULL;
	const char *fname = dim == 2 ? "compound2" : "compound3";
	// The children snapshot into a tuple (ours, immutable; its real length,
	// whatever a __len__ says), which the compound keeps: reading the
	// poses below may run Python code that changes the caller's sequence.
	PyObject *kids = PySequence_Tuple(co);
	if (!kids) {
		if (PyErr_ExceptionMatches(PyExc_TypeError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError, "children: expected a sequence of impact_collision.Shape, got %s",
				     Py_TYPE(co)->tp_name);
		}
		return NULL;
	}
	Py_ssize_t n = PyTuple_GET_SIZE(kids);
	if (n > INT_MAX) {
		Py_DECREF(kids);
		return raise_status(IMP_ERR_BAD_COUNT, "children");
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		char context[48];
		snprintf(context, sizeof context, "children[%zd]", i);
		ShapeObject *c = as_shape(PyTuple_GET_ITEM(kids, i), context);
		imp_status st = !c ? IMP_OK
			      : c->dim != dim ? IMP_ERR_DIMENSION_MISMATCH
			      : kind_is_nonconvex(c->kind) ? IMP_ERR_UNSUPPORTED
							     : IMP_OK;
		if (!c || st != IMP_OK) {
			Py_DECREF(kids);
			return c ? raise_status_row(st, context, i) : NULL;
		}
	}
	int cols = dim == 2 ? 3 : 7;
	PyArrayObject *pa = read_points(po, cols, "poses");
	if (!pa) {
		Py_DECREF(kids);
		return NULL;
	}
	if (PyArray_DIM(pa, 0) != n) {
		PyErr_Format(PyExc_ValueError, "poses: expected one pose a child (%zd), got %zd", n,
			     (Py_ssize_t)PyArray_DIM(pa, 0));
		Py_DECREF(kids);
		Py_DECREF(pa);
		return NULL;
	}
	const double *d = (const double *)PyArray_DATA(pa);
	size_t psize = dim == 2 ? sizeof(imp_pose2) : sizeof(imp_pose3);
	const imp_shape **shapes = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *shapes);
	void *poses = PyMem_Malloc((size_t)(n > 0 ? n : 1) * psize);
	if (!shapes || !poses) {
		PyMem_Free(shapes);
		PyMem_Free(poses);
		Py_DECREF(kids);
		Py_DECREF(pa);
		return PyErr_NoMemory();
	}
	int far = 0;
	for (Py_ssize_t i = 0; i < n; i++) {
		shapes[i] = ((ShapeObject *)PyTuple_GET_ITEM(kids, i))->shape;
		const double *r = d + cols * i;
		for (int k = 0; k < dim; k++)
			far = far || !(fabs(r[k]) <= IMP_MAX_COORDINATE / 8);
		if (dim == 2)
			((imp_pose2 *)poses)[i] = imp_pose2_make(r[0], r[1], r[2]);
		else
			((imp_pose3 *)poses)[i] = (imp_pose3){imp_vec3_make(r[0], r[1], r[2]),
							      imp_quat_make(r[3], r[4], r[5], r[6])};
	}
	imp_shape *s = NULL;
	imp_status st;
	Py_BEGIN_ALLOW_THREADS
	st = dim == 2 ? imp_shape_compound2(shapes, (const imp_pose2 *)poses, (int)n, &s)
		      : imp_shape_compound3(shapes, (const imp_pose3 *)poses, (int)n, &s);
	Py_END_ALLOW_THREADS
	PyMem_Free(shapes);
	PyMem_Free(poses);
	if (st != IMP_OK) {
		Py_ssize_t bad = -1;
		if (st == IMP_ERR_NOT_FINITE || st == IMP_ERR_BAD_ROTATION || st == IMP_ERR_OUT_OF_RANGE)
			for (Py_ssize_t i = 0; i < n && bad < 0; i++)
				if (!child_pose_ok(dim, d + cols * i))
					bad = i;
		Py_DECREF(kids);
		Py_DECREF(pa);
		if (bad >= 0) {
			char context[48];
			snprintf(context, sizeof context, "poses[%zd]", bad);
			return raise_status_row(st, context, bad);
		}
		return raise_status(st, n == 0 ? "children" : fname);
	}
	ShapeObject *self = (ShapeObject *)shape_wrap(s);
	if (!self) {
		Py_DECREF(kids);
		Py_DECREF(pa);
		return NULL;
	}
	PyArray_CLEARFLAGS(pa, NPY_ARRAY_WRITEABLE);
	self->children = kids;
	self->child_poses = (PyObject *)pa;
	self->far = far;
	return (PyObject *)self;
}

static PyObject *make_compound2(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	return make_compound(args, kw, 2);
}

static PyObject *make_compound3(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	return make_compound(args, kw, 3);
}

static PyObject *make_mesh(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"vertices", "triangles", "radius", NULL};
	PyObject *vo, *to;
	double radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d:mesh", names, &vo, &to, &radius))
		return NULL;
	PyArrayObject *v = read_points(vo, 3, "vertices");
	if (!v)
		return NULL;
	npy_intp nv = PyArray_DIM(v, 0);
	if (nv > INT_MAX) {
		Py_DECREF(v);
		return raise_status(IMP_ERR_BAD_COUNT, "vertices");
	}
	PyArrayObject *t = read_triangles(to, nv, "triangles");
	if (!t) {
		Py_DECREF(v);
		return NULL;
	}
	imp_shape *s = NULL;
	imp_status st;
	Py_BEGIN_ALLOW_THREADS
	st = imp_shape_mesh((const imp_vec3 *)PyArray_DATA(v), (int)nv, (const int32_t *)PyArray_DATA(t),
			    (int)PyArray_DIM(t, 0), radius, &s);
	Py_END_ALLOW_THREADS
	Py_DECREF(v);
	Py_DECREF(t);
	if (st != IMP_OK)
		return raise_status(st, "mesh");
	return shape_wrap(s);
}

static PyObject *make_heightfield(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"heights", "dx", "dy", "base_z", "radius", NULL};
	PyObject *ho;
	double dx, dy, base_z, radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "Oddd|d:heightfield", names, &ho, &dx, &dy, &base_z, &radius))
		return NULL;
	PyArrayObject *h = read_grid(ho, "heights");
	if (!h)
		return NULL;
	npy_intp rows = PyArray_DIM(h, 0), cols = PyArray_DIM(h, 1);
	if (rows > INT_MAX || cols > INT_MAX) {
		Py_DECREF(h);
		return raise_status(IMP_ERR_BAD_COUNT, "heights");
	}
	imp_shape *s = NULL;
	imp_status st;
	Py_BEGIN_ALLOW_THREADS
	st = imp_shape_heightfield((const double *)PyArray_DATA(h), (int)rows, (int)cols, dx, dy, base_z, radius, &s);
	Py_END_ALLOW_THREADS
	Py_DECREF(h);
	if (st != IMP_OK)
		return raise_status(st, "heightfield");
	return shape_wrap(s);
}

static PyObject *make_chain(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"points", "loop", "radius", NULL};
	PyObject *pts, *loop_o = Py_False;
	double radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Od:chain", names, &pts, &loop_o, &radius))
		return NULL;
	// A bool, not any truthy object: chain(points, 0.1) meant a radius.
	if (!PyBool_Check(loop_o) && !PyArray_IsScalar(loop_o, Bool)) {
		PyErr_Format(PyExc_TypeError, "loop: expected a bool, got %s", Py_TYPE(loop_o)->tp_name);
		return NULL;
	}
	int loop = PyObject_IsTrue(loop_o);
	if (loop < 0)
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
	st = imp_shape_chain((const imp_vec2 *)PyArray_DATA(a), (int)n, loop != 0, radius, &s);
	Py_END_ALLOW_THREADS
	Py_DECREF(a);
	if (st != IMP_OK)
		return raise_status(st, "chain");
	return shape_wrap(s);
}

static PyObject *make_mesh_from_file(PyObject *mod, PyObject *args, PyObject *kw)
{
	(void)mod;
	static char *names[] = {"path", "radius", NULL};
	PyObject *path = NULL; // bytes, from str, bytes or os.PathLike
	double radius = 0.0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|d:mesh_from_file", names, PyUnicode_FSConverter, &path, &radius))
		return NULL;
	imp_shape *s = NULL;
	int line = 0;
	imp_status st;
	const char *p = PyBytes_AS_STRING(path);
	Py_BEGIN_ALLOW_THREADS
	st = imp_shape_mesh_from_file_ex(p, radius, &line, &s);
	Py_END_ALLOW_THREADS
	if (st != IMP_OK) {
		char context[512];
		if (line > 0)
			snprintf(context, sizeof context, "mesh_from_file: %s, line %d", p, line);
		else
			snprintf(context, sizeof context, "mesh_from_file: %s", p);
		Py_DECREF(path);
		return raise_status_full(st, context, -1, line);
	}
	Py_DECREF(path);
	return shape_wrap(s);
}

// ---------------------------------------------------------------------------
// Result types

static PyTypeObject ClosestResult_Type;
static PyTypeObject TimeOfImpactResult_Type;


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

// ---- lazy results: ClosestResult and QueryResult
//
// Not struct sequences: a result holds the C answer and makes each field a
// Python object only when it is read (then keeps it), so that a caller who
// reads the distance does not pay for three arrays, two feature tuples and
// a string (about 1 us a call, measured by bench/python). Each still
// indexes and unpacks as the tuple of its fields. Not tracked by the
// collector: the fields are floats, ints, strings, tuples of those and
// float64 arrays, none of which can refer back to the result.

static PyObject *id_object(imp_body_id id);

enum lazy_kind { LAZY_FLOAT, LAZY_INT, LAZY_VEC, LAZY_FEATURE, LAZY_QUERY_STATE, LAZY_ID };

typedef struct {
	const char *name, *doc;
	enum lazy_kind kind;
	size_t offset; // into LazyResult.u
} lazy_field;

// closest()'s answer in either dimension (points with z = 0 in 2D).
typedef struct {
	double distance;
	imp_vec3 point_a, point_b, normal;
	imp_feature feature_a, feature_b;
	imp_query_state state;
	int iterations, epa_iterations, child_a, child_b;
} closest_answer;

#define LAZY_MAX_FIELDS 11

typedef struct {
	PyObject_HEAD
	int dim;
	PyObject *cache[LAZY_MAX_FIELDS]; // NULL until read
	union {
		closest_answer closest;
		imp_query_result query;
	} u;
} LazyResult;

#define CLOSEST_AT(f) offsetof(closest_answer, f)
static const lazy_field closest_fields[] = {
	{"distance", "signed distance: > 0 apart, < 0 penetration depth", LAZY_FLOAT, CLOSEST_AT(distance)},
	{"point_a", "witness point on a (world frame), float64 array", LAZY_VEC, CLOSEST_AT(point_a)},
	{"point_b", "witness point on b (world frame); normal . (point_b - point_a) == distance", LAZY_VEC,
	 CLOSEST_AT(point_b)},
	{"normal", "unit normal from a to b", LAZY_VEC, CLOSEST_AT(normal)},
	{"feature_a", "(kind, index) of a's core feature holding point_a: kind 'none', 'vertex', 'edge' or 'face'",
	 LAZY_FEATURE, CLOSEST_AT(feature_a)},
	{"feature_b", "(kind, index) of b's core feature holding point_b", LAZY_FEATURE, CLOSEST_AT(feature_b)},
	{"state", "'separated', 'touching', 'overlapping', 'iteration limit' or 'degenerate'", LAZY_QUERY_STATE,
	 CLOSEST_AT(state)},
	{"iterations", "GJK iterations", LAZY_INT, CLOSEST_AT(iterations)},
	{"epa_iterations", "penetration solver iterations (0 when the cores are apart)", LAZY_INT,
	 CLOSEST_AT(epa_iterations)},
	{"child_a", "the child of a non-convex a holding point_a; -1 for a convex a", LAZY_INT, CLOSEST_AT(child_a)},
	{"child_b", "the same for b", LAZY_INT, CLOSEST_AT(child_b)},
};
#undef CLOSEST_AT

#define QUERY_AT(f) offsetof(imp_query_result, f)
static const lazy_field query_fields[] = {
	{"id", "the body found (None: none within max_distance)", LAZY_ID, QUERY_AT(body)},
	{"distance", "signed distance: > 0 apart, < 0 penetration depth (inf when none found)", LAZY_FLOAT,
	 QUERY_AT(distance)},
	{"point", "witness point on the query shape (World.distance: on body a), world frame", LAZY_VEC,
	 QUERY_AT(point)},
	{"body_point", "witness point on the body; normal . (body_point - point) == distance", LAZY_VEC,
	 QUERY_AT(body_point)},
	{"normal", "unit normal from the query shape (or body a) towards the body", LAZY_VEC, QUERY_AT(normal)},
};
#undef QUERY_AT

_Static_assert(sizeof closest_fields / sizeof closest_fields[0] <= LAZY_MAX_FIELDS, "cache size");
_Static_assert(sizeof query_fields / sizeof query_fields[0] <= LAZY_MAX_FIELDS, "cache size");

static PyTypeObject QueryResult_Type;

static void lazy_spec(PyTypeObject *type, const lazy_field **fields, Py_ssize_t *count)
{
	if (type == &ClosestResult_Type) {
		*fields = closest_fields;
		*count = (Py_ssize_t)(sizeof closest_fields / sizeof closest_fields[0]);
	} else {
		*fields = query_fields;
		*count = (Py_ssize_t)(sizeof query_fields / sizeof query_fields[0]);
	}
}

static LazyResult *lazy_new(PyTypeObject *type, int dim)
{
	LazyResult *o = PyObject_New(LazyResult, type);
	if (!o)
		return NULL;
	o->dim = dim;
	for (int k = 0; k < LAZY_MAX_FIELDS; k++)
		o->cache[k] = NULL;
	memset(&o->u, 0, sizeof o->u);
	return o;
}

static void Lazy_dealloc(LazyResult *self)
{
	for (int k = 0; k < LAZY_MAX_FIELDS; k++)
		Py_XDECREF(self->cache[k]);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Lazy_length(PyObject *self)
{
	const lazy_field *fields;
	Py_ssize_t n;
	lazy_spec(Py_TYPE(self), &fields, &n);
	return n;
}

static PyObject *Lazy_item(PyObject *o, Py_ssize_t i)
{
	LazyResult *self = (LazyResult *)o;
	const lazy_field *fields;
	Py_ssize_t n;
	lazy_spec(Py_TYPE(o), &fields, &n);
	if (i < 0 || i >= n) {
		PyErr_Format(PyExc_IndexError, "%s index out of range", Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (!self->cache[i]) {
		const char *at = (const char *)&self->u + fields[i].offset;
		PyObject *v = NULL;
		switch (fields[i].kind) {
		case LAZY_FLOAT: v = PyFloat_FromDouble(*(const double *)at); break;
		case LAZY_INT: v = PyLong_FromLong(*(const int *)at); break;
		case LAZY_VEC: v = vec_array((const double *)at, self->dim); break;
		case LAZY_FEATURE: v = feature_tuple(*(const imp_feature *)at); break;
		case LAZY_QUERY_STATE: v = PyUnicode_FromString(imp_query_state_string(*(const imp_query_state *)at)); break;
		case LAZY_ID: v = id_object(*(const imp_body_id *)at); break;
		}
		if (!v)
			return NULL;
		self->cache[i] = v;
	}
	return Py_NewRef(self->cache[i]);
}

static PyObject *Lazy_get(PyObject *self, void *closure)
{
	const lazy_field *fields;
	Py_ssize_t n;
	lazy_spec(Py_TYPE(self), &fields, &n);
	return Lazy_item(self, (const lazy_field *)closure - fields);
}

static PyObject *Lazy_repr(PyObject *self)
{
	const lazy_field *fields;
	Py_ssize_t n;
	lazy_spec(Py_TYPE(self), &fields, &n);
	PyObject *parts = PyList_New(0), *out = NULL;
	if (!parts)
		return NULL;
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *v = Lazy_item(self, i);
		PyObject *part = v ? PyUnicode_FromFormat("%s=%R", fields[i].name, v) : NULL;
		Py_XDECREF(v);
		if (!part || PyList_Append(parts, part) < 0) {
			Py_XDECREF(part);
			goto done;
		}
		Py_DECREF(part);
	}
	PyObject *sep = PyUnicode_FromString(", ");
	PyObject *body = sep ? PyUnicode_Join(sep, parts) : NULL;
	Py_XDECREF(sep);
	if (body) {
		const char *name = strrchr(Py_TYPE(self)->tp_name, '.');
		out = PyUnicode_FromFormat("%s(%U)", name ? name + 1 : Py_TYPE(self)->tp_name, body);
		Py_DECREF(body);
	}
done:
	Py_DECREF(parts);
	return out;
}

static PySequenceMethods Lazy_as_sequence = {
	.sq_length = Lazy_length,
	.sq_item = Lazy_item,
};

// The getters: one per field, the closure its entry of the table.
static PyGetSetDef closest_getset[LAZY_MAX_FIELDS + 1];
static PyGetSetDef query_getset[LAZY_MAX_FIELDS + 1];

static void lazy_fill_getset(PyGetSetDef *g, const lazy_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		g[i] = (PyGetSetDef){(char *)fields[i].name, (getter)Lazy_get, NULL, (char *)fields[i].doc,
				     (void *)&fields[i]};
	}
	g[n] = (PyGetSetDef){NULL, NULL, NULL, NULL, NULL};
}

static PyTypeObject ClosestResult_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "impact_collision.ClosestResult",
	.tp_basicsize = sizeof(LazyResult),
	.tp_dealloc = (destructor)Lazy_dealloc,
	.tp_repr = Lazy_repr,
	.tp_as_sequence = &Lazy_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The answer of closest() (imp_closest2/3_result): distance, point_a, point_b, normal, feature_a,\n"
		  "feature_b, state, iterations, epa_iterations, child_a, child_b; indexes and unpacks as that tuple.",
	.tp_getset = closest_getset,
};

static PyTypeObject QueryResult_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "impact_collision.QueryResult",
	.tp_basicsize = sizeof(LazyResult),
	.tp_dealloc = (destructor)Lazy_dealloc,
	.tp_repr = Lazy_repr,
	.tp_as_sequence = &Lazy_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A body found by World.nearest(), World.distance() or World.query_distance() (imp_query_result):\n"
		  "id, distance, point, body_point, normal; indexes and unpacks as that tuple.",
	.tp_getset = query_getset,
};

static PyObject *closest_object(double distance, const double *pa, const double *pb, const double *normal, int dim,
				imp_feature fa, imp_feature fb, imp_query_state state, int iterations,
				int epa_iterations, int child_a, int child_b)
{
	LazyResult *o = lazy_new(&ClosestResult_Type, dim);
	if (!o)
		return NULL;
	closest_answer *c = &o->u.closest;
	c->distance = distance;
	memcpy(&c->point_a, pa, (size_t)dim * sizeof(double));
	memcpy(&c->point_b, pb, (size_t)dim * sizeof(double));
	memcpy(&c->normal, normal, (size_t)dim * sizeof(double));
	c->feature_a = fa;
	c->feature_b = fb;
	c->state = state;
	c->iterations = iterations;
	c->epa_iterations = epa_iterations;
	c->child_a = child_a;
	c->child_b = child_b;
	return (PyObject *)o;
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

static const imp_pose3 identity3 = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}};

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

// A pair with a non-convex side is also refused (a false overlap) when b's
// pose in a's frame, or a child's pose composed with it, leaves the range
// of a pose, which the check above does not see. Such a pair's false
// overlap is diagnosed too when a pose is beyond IMP_MAX_COORDINATE / 8
// (below it, the relative pose and a child's pose within the same bound
// compose to at most 0.87 of the range), or always when a compound has a
// child's pose beyond that bound: `guard` (pair_guard) is 0 for a convex
// pair, 1 for a non-convex one, 2 for one with such a compound.
static inline int pose2_near(imp_pose2 p)
{
	return fabs(p.p.x) <= IMP_MAX_COORDINATE / 8 && fabs(p.p.y) <= IMP_MAX_COORDINATE / 8;
}

static inline int pose3_near(imp_pose3 p)
{
	return fabs(p.p.x) <= IMP_MAX_COORDINATE / 8 && fabs(p.p.y) <= IMP_MAX_COORDINATE / 8 &&
	       fabs(p.p.z) <= IMP_MAX_COORDINATE / 8;
}

static inline int pair_guard(const ShapeObject *a, const ShapeObject *b)
{
	if (a->far || b->far)
		return 2;
	return kind_is_nonconvex(a->kind) || kind_is_nonconvex(b->kind);
}

static inline bool overlap2_checked(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, int guard,
				    imp_status *st)
{
	bool o = imp_overlap2(a, pa, b, pb, NULL);
	*st = !o && (!(pose2_ok(pa) && pose2_ok(pb)) || (guard && (guard == 2 || !(pose2_near(pa) && pose2_near(pb)))))
		      ? diagnose2(a, pa, b, pb)
		      : IMP_OK;
	return o;
}

static inline bool overlap3_checked(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, int guard,
				    imp_status *st)
{
	bool o = imp_overlap3(a, pa, b, pb, NULL);
	*st = !o && (!(pose3_ok(pa) && pose3_ok(pb)) || (guard && (guard == 2 || !(pose3_near(pa) && pose3_near(pb)))))
		      ? diagnose3(a, pa, b, pb)
		      : IMP_OK;
	return o;
}

static PyObject *py_overlap(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	ShapeObject *a, *b;
	// Initialised: only the dimension's pair is written, which -O3's
	// flow analysis cannot see (-Werror=maybe-uninitialized).
	imp_pose2 pa2 = imp_pose2_identity(), pb2 = imp_pose2_identity();
	imp_pose3 pa3 = identity3, pb3 = identity3;
	int dim = pair_args(args, nargs, "overlap", &a, &b, &pa2, &pb2, &pa3, &pb3);
	if (!dim)
		return NULL;
	imp_status st;
	int guard = pair_guard(a, b);
	bool o = dim == 2 ? overlap2_checked(a->shape, pa2, b->shape, pb2, guard, &st)
			  : overlap3_checked(a->shape, pa3, b->shape, pb3, guard, &st);
	if (st != IMP_OK)
		return raise_status(st, dim == 2 ? blame2(pa2, pb2) : blame3(pa3, pb3));
	return PyBool_FromLong(o);
}

static PyObject *py_distance(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	ShapeObject *a, *b;
	// Initialised: only the dimension's pair is written, which -O3's
	// flow analysis cannot see (-Werror=maybe-uninitialized).
	imp_pose2 pa2 = imp_pose2_identity(), pb2 = imp_pose2_identity();
	imp_pose3 pa3 = identity3, pb3 = identity3;
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
	// Initialised: only the dimension's pair is written, which -O3's
	// flow analysis cannot see (-Werror=maybe-uninitialized).
	imp_pose2 pa2 = imp_pose2_identity(), pb2 = imp_pose2_identity();
	imp_pose3 pa3 = identity3, pb3 = identity3;
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
	// A snapshot (a tuple, immutable) first, its real size checked: a list
	// subclass's __len__ may lie, and converting an item may mutate a list.
	PyObject *seq = NULL;
	if (PyTuple_Check(o) || PyList_Check(o)) {
		seq = PySequence_Tuple(o);
		if (!seq)
			return -1;
		if (PyTuple_GET_SIZE(seq) != 3)
			o = seq; // read below as flat numbers, from the snapshot
	}
	if (seq && PyTuple_GET_SIZE(seq) == 3) {
		PyObject *items[3] = {PyTuple_GET_ITEM(seq, 0), PyTuple_GET_ITEM(seq, 1), PyTuple_GET_ITEM(seq, 2)};
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
	int rc = read_doubles(o, 6, v, what, "a 2D motion ((x, y, angle), (vx, vy), w) or 6 numbers");
	Py_XDECREF(seq);
	if (rc < 0)
		return -1;
	m->pose = imp_pose2_make(v[0], v[1], v[2]);
	m->v = imp_vec2_make(v[3], v[4]);
	m->w = v[5];
	return 0;
}

static int read_motion3(PyObject *o, imp_motion3 *m, const char *what)
{
	// A snapshot (a tuple, immutable) first, its real size checked: a list
	// subclass's __len__ may lie, and converting an item may mutate a list.
	PyObject *seq = NULL;
	if (PyTuple_Check(o) || PyList_Check(o)) {
		seq = PySequence_Tuple(o);
		if (!seq)
			return -1;
		if (PyTuple_GET_SIZE(seq) != 3)
			o = seq; // read below as flat numbers, from the snapshot
	}
	if (seq && PyTuple_GET_SIZE(seq) == 3) {
		PyObject *items[3] = {PyTuple_GET_ITEM(seq, 0), PyTuple_GET_ITEM(seq, 1), PyTuple_GET_ITEM(seq, 2)};
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
	int rc = read_doubles(o, 13, v, what,
			      "a 3D motion ((x, y, z, qx, qy, qz, qw), (vx, vy, vz), (wx, wy, wz)) or 13 numbers");
	Py_XDECREF(seq);
	if (rc < 0)
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

enum batch_op { OP_OVERLAP, OP_DISTANCE, OP_CLOSEST };

// Reads row i of a pose stack (or the broadcast single pose).
static inline imp_pose2 row_pose2(const double *d, npy_intp count, npy_intp i)
{
	const double *r = count < 0 ? d : d + 3 * i;
	return imp_pose2_make(r[0], r[1], r[2]);
}


static inline imp_pose3 row_pose3(const double *d, npy_intp count, npy_intp i)
{
	const double *r = count < 0 ? d : d + 7 * i;
	imp_pose3 p = {imp_vec3_make(r[0], r[1], r[2]), imp_quat_make(r[3], r[4], r[5], r[6])};
	return p;
}

// closest_batch's answer: the arrays of ClosestResult's fields that are
// numbers a row. The first four are the sequence (d, pa, pb, n = ...).
static PyStructSequence_Field closest_batch_fields[] = {
	{"distance", "(N,) float64: signed distances"},
	{"point_a", "(N, dim) float64: witness points on a (world frame)"},
	{"point_b", "(N, dim) float64: witness points on b (world frame)"},
	{"normal", "(N, dim) float64: unit normals from a to b"},
	{"child_a", "(N,) int32: the child of a non-convex a holding point_a; -1 for a convex a"},
	{"child_b", "(N,) int32: the same for b"},
	{NULL, NULL},
};

static PyStructSequence_Desc closest_batch_desc = {
	"impact_collision.ClosestBatchResult",
	"The answer of closest_batch(): arrays of closest()'s fields, a row a pose. Unpacks as (distance, point_a, "
	"point_b, normal); child_a and child_b by name.",
	closest_batch_fields,
	4,
};

static PyTypeObject ClosestBatchResult_Type;

// The rows of closest_batch, written by the loop (GIL released).
typedef struct {
	double *d, *pa, *pb, *n;
	int32_t *ca, *cb;
} closest_rows;

static inline imp_status closest2_row(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				      const closest_rows *o, npy_intp i)
{
	imp_closest2_result r;
	imp_status st = imp_closest2(a, pa, b, pb, NULL, &r);
	if (st != IMP_OK)
		return st;
	o->d[i] = r.distance;
	memcpy(o->pa + 2 * i, &r.point_a, sizeof r.point_a);
	memcpy(o->pb + 2 * i, &r.point_b, sizeof r.point_b);
	memcpy(o->n + 2 * i, &r.normal, sizeof r.normal);
	o->ca[i] = r.child_a;
	o->cb[i] = r.child_b;
	return IMP_OK;
}

static inline imp_status closest3_row(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				      const closest_rows *o, npy_intp i)
{
	imp_closest3_result r;
	imp_status st = imp_closest3(a, pa, b, pb, NULL, &r);
	if (st != IMP_OK)
		return st;
	o->d[i] = r.distance;
	memcpy(o->pa + 3 * i, &r.point_a, sizeof r.point_a);
	memcpy(o->pb + 3 * i, &r.point_b, sizeof r.point_b);
	memcpy(o->n + 3 * i, &r.normal, sizeof r.normal);
	o->ca[i] = r.child_a;
	o->cb[i] = r.child_b;
	return IMP_OK;
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
	npy_intp dims2[2] = {n, dim};
	// out[0] the answer of overlap/distance, or closest's distances; out[1 ..
	// 5] closest's points, normals and children.
	PyArrayObject *out[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
	int nout = op == OP_CLOSEST ? 6 : 1;
	out[0] = (PyArrayObject *)PyArray_SimpleNew(1, dims, op == OP_OVERLAP ? NPY_BOOL : NPY_DOUBLE);
	if (op == OP_CLOSEST) {
		for (int k = 1; k <= 3; k++)
			out[k] = (PyArrayObject *)PyArray_SimpleNew(2, dims2, NPY_DOUBLE);
		out[4] = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT32);
		out[5] = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_INT32);
	}
	int made = 1;
	for (int k = 0; k < nout; k++)
		made = made && out[k] != NULL;
	if (!made) {
		for (int k = 0; k < nout; k++)
			Py_XDECREF(out[k]);
		Py_DECREF(xa);
		Py_DECREF(xb);
		return NULL;
	}
	closest_rows rows = {0};
	if (op == OP_CLOSEST)
		rows = (closest_rows){(double *)PyArray_DATA(out[0]), (double *)PyArray_DATA(out[1]),
				      (double *)PyArray_DATA(out[2]), (double *)PyArray_DATA(out[3]),
				      (int32_t *)PyArray_DATA(out[4]), (int32_t *)PyArray_DATA(out[5])};
	const double *da = (const double *)PyArray_DATA(xa), *db = (const double *)PyArray_DATA(xb);
	const imp_shape *sa = a->shape, *sb = b->shape;
	int guard = pair_guard(a, b);
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
			npy_bool *o = (npy_bool *)PyArray_DATA(out[0]);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = overlap2_checked(sa, POSE_A2(i), sb, POSE_B2(i), guard, &st);
				bad = i;
			}
		} else if (op == OP_DISTANCE) {
			double *o = (double *)PyArray_DATA(out[0]);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = distance2_checked(sa, POSE_A2(i), sb, POSE_B2(i), &st);
				bad = i;
			}
		} else {
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				st = closest2_row(sa, POSE_A2(i), sb, POSE_B2(i), &rows, i);
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
			npy_bool *o = (npy_bool *)PyArray_DATA(out[0]);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = overlap3_checked(sa, POSE_A3(i), sb, POSE_B3(i), guard, &st);
				bad = i;
			}
		} else if (op == OP_DISTANCE) {
			double *o = (double *)PyArray_DATA(out[0]);
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				o[i] = distance3_checked(sa, POSE_A3(i), sb, POSE_B3(i), &st);
				bad = i;
			}
		} else {
			for (npy_intp i = 0; i < n && st == IMP_OK; i++) {
				st = closest3_row(sa, POSE_A3(i), sb, POSE_B3(i), &rows, i);
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
		for (int k = 0; k < nout; k++)
			Py_DECREF(out[k]);
		return raise_status_row(bad_status, context, count >= 0 ? (Py_ssize_t)bad : -1);
	}
	Py_DECREF(xa);
	Py_DECREF(xb);
	if (op != OP_CLOSEST)
		return (PyObject *)out[0];
	PyObject *res = PyStructSequence_New(&ClosestBatchResult_Type);
	if (!res) {
		for (int k = 0; k < nout; k++)
			Py_DECREF(out[k]);
		return NULL;
	}
	// The function, not the macro: the last two items are beyond the
	// visible sequence, which the macro's bounds assertion checks against.
	for (int k = 0; k < nout; k++)
		PyStructSequence_SetItem(res, k, (PyObject *)out[k]);
	return res;
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

static PyObject *py_closest_batch(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
	(void)mod;
	return batch(args, nargs, OP_CLOSEST, "closest_batch");
}

// ---------------------------------------------------------------------------
// World
//
// A body's id in Python is the int index | generation << 32: imp_body_id's
// first two fields (the null id is 0, which no body has). Its third field,
// the world's serial number, is the same for every id a world hands out:
// the World keeps it (learned from its first body) and puts it back when it
// reads an id, so that the conversion is lossless both ways for every id of
// that world. An int is not tied to its World, though: an id of another
// World that happens to have the same index and generation as a live body
// of this one names that body (the C library would refuse it; the 64 bits
// the issue asks for have no room for the serial).
//
// The World keeps a dict id -> (shape, user) while a body exists, so that
// the shapes the C world points to stay alive; the entry goes with
// remove_body() and close(). The C world is destroyed by close(), by
// `with`'s exit, or when the object is freed (reference count or the
// cycle collector: the World is a GC type, the user objects may refer
// back to it), always before the shapes are released.

typedef struct {
	PyObject_HEAD
	imp_world *world; // NULL once closed
	PyObject *bodies; // dict: id (int) -> (shape, user); NULL once closed
	int dim;
	uint32_t serial; // the C world's serial number, from its first body's id (0: no body yet)
	int active;      // batch queries running with the GIL released (counted under the GIL)
	int in_step;     // step() calls under way (their contact callbacks may run Python code)
} WorldObject;

static PyTypeObject World_Type;
static PyTypeObject CastHit_Type;
static PyTypeObject RayHit_Type;
static PyTypeObject Contact_Type;

_Static_assert(sizeof(bool) == sizeof(npy_bool), "C bool arrays are numpy bool arrays");

static inline uint64_t id_pack(imp_body_id id)
{
	return (uint64_t)id.index | (uint64_t)id.generation << 32;
}

static inline imp_body_id id_unpack(const WorldObject *w, uint64_t v)
{
	imp_body_id id = {(uint32_t)v, (uint32_t)(v >> 32), w->serial};
	return id;
}

// An id as a Python int; None for the null id.
static PyObject *id_object(imp_body_id id)
{
	if (imp_body_id_is_null(id))
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(id_pack(id));
}

// Reads a body id (a Python or numpy int). An int outside 0 .. 2**64 - 1
// can be no body's: IMP_ERR_BAD_ID, as a stale id (`row`: the error's .row,
// -1 for none).
static int read_id_row(PyObject *o, uint64_t *out, const char *what, Py_ssize_t row)
{
	if (PyBool_Check(o) || !PyIndex_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s: expected a body id (an int), got %s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	PyObject *n = PyNumber_Index(o);
	if (!n)
		return -1;
	unsigned long long v = PyLong_AsUnsignedLongLong(n);
	Py_DECREF(n);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
			PyErr_Clear();
			raise_status_row(IMP_ERR_BAD_ID, what, row);
		}
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

static int read_id(PyObject *o, uint64_t *out, const char *what)
{
	return read_id_row(o, out, what, -1);
}

// Filter bits: an int in 0 .. 2**64 - 1 (o NULL: keep *out).
static int read_bits(PyObject *o, uint64_t *out, const char *what)
{
	if (!o)
		return 0;
	if (PyBool_Check(o) || !PyIndex_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s: expected an int (bits), got %s", what, Py_TYPE(o)->tp_name);
		return -1;
	}
	PyObject *n = PyNumber_Index(o);
	if (!n)
		return -1;
	unsigned long long v = PyLong_AsUnsignedLongLong(n);
	Py_DECREF(n);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
			PyErr_Clear();
			PyErr_Format(PyExc_ValueError, "%s: expected an int in 0 .. 2**64 - 1", what);
		}
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

static int read_filter(PyObject *category, PyObject *mask, int group, imp_filter *f)
{
	*f = imp_default_filter();
	if (read_bits(category, &f->category, "category") < 0 || read_bits(mask, &f->mask, "mask") < 0)
		return -1;
	f->group = (int32_t)group;
	return 0;
}

static imp_world *world_live(WorldObject *self)
{
	if (!self->world)
		PyErr_SetString(PyExc_ValueError, "operation on a closed World");
	return self->world;
}

// Before a call that changes the world: not closed, and no batch query of
// another thread running (the C library would answer IMP_ERR_BUSY too;
// close() must not free the world under it).
static imp_world *world_mutable(WorldObject *self, const char *what)
{
	imp_world *w = world_live(self);
	if (w && self->active > 0) {
		raise_status(IMP_ERR_BUSY, what);
		return NULL;
	}
	return w;
}

// Before a query that releases the GIL: not closed, and no step() whose
// contact callback runs Python code (the callback may let this thread run
// while the C step is paused in it; the step would go on under a query
// running without the GIL, where the library's own BUSY answer is read
// unsynchronised). Queries that keep the GIL answer IMP_ERR_BUSY from the
// library there; these answer it here.
static imp_world *world_query_nogil(WorldObject *self, const char *what)
{
	imp_world *w = world_live(self);
	if (w && self->in_step > 0) {
		raise_status(IMP_ERR_BUSY, what);
		return NULL;
	}
	return w;
}

static int read_query_filter(WorldObject *self, PyObject *ignore, PyObject *category, PyObject *mask, int group,
			     imp_query_filter *qf)
{
	*qf = imp_default_query_filter();
	if (read_filter(category, mask, group, &qf->filter) < 0)
		return -1;
	if (ignore && ignore != Py_None) {
		uint64_t v;
		if (read_id(ignore, &v, "ignore") < 0)
			return -1;
		qf->ignore = id_unpack(self, v);
	}
	return 0;
}

// A pose in the world's dimension.
static int read_world_pose(WorldObject *self, PyObject *o, imp_pose2 *p2, imp_pose3 *p3, const char *what)
{
	return self->dim == 2 ? read_pose2(o, p2, what) : read_pose3(o, p3, what);
}

// A pose as its row of numbers: (x, y, angle) or (x, y, z, qx, qy, qz, qw).
static void pose_row(int dim, imp_pose2 p2, imp_pose3 p3, double *v)
{
	if (dim == 2) {
		v[0] = p2.p.x;
		v[1] = p2.p.y;
		v[2] = atan2(p2.q.s, p2.q.c);
		return;
	}
	const double row[7] = {p3.p.x, p3.p.y, p3.p.z, p3.q.x, p3.q.y, p3.q.z, p3.q.w};
	memcpy(v, row, sizeof row);
}

static PyObject *pose_object(int dim, imp_pose2 p2, imp_pose3 p3)
{
	double v[7];
	pose_row(dim, p2, p3, v);
	return vec_array(v, dim == 2 ? 3 : 7);
}

// ---- growable id buffer, filled by the C callbacks

typedef struct {
	uint64_t *data;
	size_t count, cap;
	bool failed;
} id_buffer;

static bool id_buffer_push(id_buffer *b, uint64_t v)
{
	if (b->count == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		uint64_t *d = PyMem_RawRealloc(b->data, cap * sizeof *d);
		if (!d) {
			b->failed = true;
			return false;
		}
		b->data = d;
		b->cap = cap;
	}
	b->data[b->count++] = v;
	return true;
}

// The buffer as a new uint64 array of shape (count / cols, cols) (cols 1:
// a 1-D array); frees the buffer.
static PyObject *id_buffer_array(id_buffer *b, int cols)
{
	if (b->failed) {
		PyMem_RawFree(b->data);
		return PyErr_NoMemory();
	}
	npy_intp dims[2] = {(npy_intp)(b->count / (size_t)cols), cols};
	PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(cols == 1 ? 1 : 2, dims, NPY_UINT64);
	if (a && b->count)
		memcpy(PyArray_DATA(a), b->data, b->count * sizeof(uint64_t));
	PyMem_RawFree(b->data);
	return (PyObject *)a;
}

static bool pair_to_buffer(imp_body_id a, imp_body_id b, void *user)
{
	id_buffer *buf = user;
	return id_buffer_push(buf, id_pack(a)) && id_buffer_push(buf, id_pack(b));
}

static bool id_to_buffer(imp_body_id id, void *user)
{
	return id_buffer_push(user, id_pack(id));
}

static PyObject *events_array(const imp_pair_event *ev, int n)
{
	npy_intp dims[2] = {n, 2};
	PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_UINT64);
	if (!a)
		return NULL;
	uint64_t *d = (uint64_t *)PyArray_DATA(a);
	for (int i = 0; i < n; i++) {
		d[2 * i] = id_pack(ev[i].a);
		d[2 * i + 1] = id_pack(ev[i].b);
	}
	return (PyObject *)a;
}

// ---- result objects

static PyStructSequence_Field cast_hit_fields[] = {
	{"state", "'free' (no body met: id None, t = 1), 'hit', or 'gave up' (the search ran out of budget at t)"},
	{"id", "the body met first (or given up on); None when free"},
	{"t", "fraction of the motion at the contact, in [0, 1]"},
	{"point", "contact point on the shape at t (world frame)"},
	{"normal", "unit normal from the moving shape towards the body"},
	{"pose", "the shape's pose at t: (x, y, angle) in 2D, (x, y, z, qx, qy, qz, qw) in 3D"},
	{"started_inside", "hit at t = 0: the shape at pose_from overlaps the body"},
	{NULL, NULL},
};

static PyStructSequence_Desc cast_hit_desc = {
	"impact_collision.CastHit",
	"The answer of World.cast_shape(): imp_cast_hit.",
	cast_hit_fields,
	7,
};

static PyStructSequence_Field ray_hit_fields[] = {
	{"id", "the body met first; None when the segment meets none"},
	{"t", "fraction along the segment, in [0, 1] (1 when no hit)"},
	{"point", "where the segment meets the body: start + t (end - start)"},
	{"normal", "the body's outward normal there"},
	{"started_inside", "met at t = 0: start is inside the body"},
	{NULL, NULL},
};

static PyStructSequence_Desc ray_hit_desc = {
	"impact_collision.RayHit",
	"The answer of World.ray_cast(): imp_ray_hit.",
	ray_hit_fields,
	5,
};

static PyStructSequence_Field contact_fields[] = {
	{"a", "id of the first body (the lower slot)"},
	{"b", "id of the second body"},
	{"t", "time of the contact from the step's start, in [0, dt]"},
	{"time", "the same on the world's clock"},
	{"distance", "the distance then (at most the tolerance; negative when overlapping)"},
	{"point_a", "witness point on a then (world frame)"},
	{"point_b", "witness point on b then"},
	{"normal", "unit normal from a to b"},
	{"normal_speed", "relative speed along the normal: negative when they approach"},
	{"capped", "the pair reached max_pair_calls: its report at the step's end"},
	{NULL, NULL},
};

static PyStructSequence_Desc contact_desc = {
	"impact_collision.Contact",
	"A contact found by World.step(): imp_contact_event.",
	contact_fields,
	10,
};

static PyObject *query_result_object(const imp_query_result *r, int dim)
{
	LazyResult *o = lazy_new(&QueryResult_Type, dim);
	if (o)
		o->u.query = *r;
	return (PyObject *)o;
}

static const char *cast_state_name(imp_cast_state s)
{
	switch (s) {
	case IMP_CAST_FREE: return "free";
	case IMP_CAST_HIT: return "hit";
	case IMP_CAST_GAVE_UP: return "gave up";
	}
	return "unknown";
}

static PyObject *cast_hit_object(const imp_cast_hit *h, int dim)
{
	PyObject *pose;
	if (dim == 2) {
		double v[3] = {h->pose.p.x, h->pose.p.y, 2.0 * atan2(h->pose.q.z, h->pose.q.w)};
		pose = vec_array(v, 3);
	} else {
		pose = pose_object(3, imp_pose2_identity(), h->pose);
	}
	PyObject *items[7] = {
		PyUnicode_FromString(cast_state_name(h->state)),
		id_object(h->body),
		PyFloat_FromDouble(h->t),
		vec_array(&h->point.x, dim),
		vec_array(&h->normal.x, dim),
		pose,
		PyBool_FromLong(h->started_inside),
	};
	return fill_struct(PyStructSequence_New(&CastHit_Type), items, 7);
}

static PyObject *ray_hit_object(const imp_ray_hit *h, int dim)
{
	PyObject *items[5] = {
		id_object(h->body),
		PyFloat_FromDouble(h->t),
		vec_array(&h->point.x, dim),
		vec_array(&h->normal.x, dim),
		PyBool_FromLong(h->started_inside),
	};
	return fill_struct(PyStructSequence_New(&RayHit_Type), items, 5);
}

static PyObject *contact_object(const imp_contact_event *e, int dim)
{
	PyObject *items[10] = {
		id_object(e->a),
		id_object(e->b),
		PyFloat_FromDouble(e->t),
		PyFloat_FromDouble(e->time),
		PyFloat_FromDouble(e->distance),
		vec_array(&e->point_a.x, dim),
		vec_array(&e->point_b.x, dim),
		vec_array(&e->normal.x, dim),
		PyFloat_FromDouble(e->normal_speed),
		PyBool_FromLong(e->capped),
	};
	return fill_struct(PyStructSequence_New(&Contact_Type), items, 10);
}

// ---- making and closing

static void world_release(WorldObject *self)
{
	imp_world *w = self->world;
	self->world = NULL;
	imp_world_destroy(w); // before the shapes go
	Py_CLEAR(self->bodies);
}

static PyObject *World_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *names[] = {"dim", "broad_phase", "margin", "fat_ratio", "narrow_phase", "workers", NULL};
	imp_world_def def = imp_default_world_def();
	const char *broad = "hash";
	int narrow = def.narrow_phase;
	int workers = 1;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|i$sddpi:World", names, &def.dim, &broad, &def.margin, &def.fat_ratio,
					 &narrow, &workers))
		return NULL;
	if (strcmp(broad, "hash") == 0)
		def.broad_phase = IMP_BROAD_HASH;
	else if (strcmp(broad, "sweep") == 0)
		def.broad_phase = IMP_BROAD_SWEEP;
	else if (strcmp(broad, "naive") == 0)
		def.broad_phase = IMP_BROAD_NAIVE;
	else {
		PyErr_Format(PyExc_ValueError, "broad_phase: expected 'hash', 'sweep' or 'naive', got '%s'", broad);
		return NULL;
	}
	def.narrow_phase = narrow != 0;
	def.worker_count = workers;
	PyObject *bodies = PyDict_New();
	if (!bodies)
		return NULL;
	imp_world *w = NULL;
	imp_status st = imp_world_create(&def, &w);
	if (st != IMP_OK) {
		Py_DECREF(bodies);
		return raise_status(st, st == IMP_ERR_BAD_RADIUS ? "margin" : "World");
	}
	WorldObject *self = (WorldObject *)type->tp_alloc(type, 0);
	if (!self) {
		imp_world_destroy(w);
		Py_DECREF(bodies);
		return NULL;
	}
	self->world = w;
	self->bodies = bodies;
	self->dim = def.dim;
	self->serial = 0;
	self->active = 0;
	self->in_step = 0;
	return (PyObject *)self;
}

static void World_dealloc(WorldObject *self)
{
	PyObject_GC_UnTrack(self);
	world_release(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int World_traverse(WorldObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->bodies);
	return 0;
}

static int World_clear(WorldObject *self)
{
	world_release(self);
	return 0;
}

static PyObject *World_close(WorldObject *self, PyObject *unused)
{
	(void)unused;
	if (!self->world)
		Py_RETURN_NONE;
	if (self->active > 0 || self->in_step > 0)
		return raise_status(IMP_ERR_BUSY, self->in_step ? "close() inside step()" : "close() while a batch query runs");
	world_release(self);
	Py_RETURN_NONE;
}

static PyObject *World_enter(WorldObject *self, PyObject *unused)
{
	(void)unused;
	if (!world_live(self))
		return NULL;
	return Py_NewRef(self);
}

static PyObject *World_exit(WorldObject *self, PyObject *args)
{
	(void)args;
	PyObject *r = World_close(self, NULL);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

// ---- bodies

static int body_type_of(const char *s, imp_body_type *out)
{
	if (strcmp(s, "dynamic") == 0)
		*out = IMP_BODY_DYNAMIC;
	else if (strcmp(s, "kinematic") == 0)
		*out = IMP_BODY_KINEMATIC;
	else if (strcmp(s, "static") == 0)
		*out = IMP_BODY_STATIC;
	else {
		PyErr_Format(PyExc_ValueError, "type: expected 'dynamic', 'kinematic' or 'static', got '%s'", s);
		return -1;
	}
	return 0;
}

static int world_pose_ok(int dim, imp_pose2 p2, imp_pose3 p3)
{
	return dim == 2 ? pose2_ok(p2) : pose3_ok(p3);
}

static PyObject *World_add_body(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose", "type", "category", "mask", "group", "user", NULL};
	PyObject *so, *po, *cat = NULL, *mask = NULL, *user = Py_None;
	const char *type_s = "dynamic";
	int group = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|s$OOiO:add_body", names, &so, &po, &type_s, &cat, &mask, &group,
					 &user))
		return NULL;
	// Every argument is converted (which may run Python code that closes
	// the world) before the world is looked at.
	ShapeObject *shape = as_shape(so, "shape");
	if (!shape)
		return NULL;
	imp_body_def def = imp_default_body_def();
	def.shape = shape->shape;
	if (body_type_of(type_s, &def.type) < 0 || read_filter(cat, mask, group, &def.filter) < 0 ||
	    read_world_pose(self, po, &def.pose2, &def.pose3, "pose") < 0)
		return NULL;
	PyObject *entry = PyTuple_Pack(2, so, user);
	if (!entry)
		return NULL;
	imp_world *w = world_mutable(self, "add_body");
	if (!w) {
		Py_DECREF(entry);
		return NULL;
	}
	imp_body_id id;
	imp_status st = imp_world_add_body(w, &def, &id);
	if (st != IMP_OK) {
		Py_DECREF(entry);
		const char *ctx = st == IMP_ERR_BAD_SHAPE || st == IMP_ERR_DIMENSION_MISMATCH ? "shape"
				  : !world_pose_ok(self->dim, def.pose2, def.pose3) ? "pose"
										     : "add_body";
		return raise_status(st, ctx);
	}
	self->serial = id.world;
	PyObject *key = PyLong_FromUnsignedLongLong(id_pack(id));
	if (!key || PyDict_SetItem(self->bodies, key, entry) < 0) {
		imp_world_remove_body(w, id);
		Py_XDECREF(key);
		Py_DECREF(entry);
		return NULL;
	}
	Py_DECREF(entry);
	return key;
}

// Reads an id argument; *key (may be NULL) gets the dict key, a new int.
static int world_id_arg(WorldObject *self, PyObject *o, imp_body_id *id, const char *what)
{
	uint64_t v;
	if (read_id(o, &v, what) < 0)
		return -1;
	*id = id_unpack(self, v);
	return 0;
}

static PyObject *World_remove_body(WorldObject *self, PyObject *arg)
{
	uint64_t v;
	if (read_id(arg, &v, "id") < 0)
		return NULL;
	imp_world *w = world_mutable(self, "remove_body");
	if (!w)
		return NULL;
	imp_status st = imp_world_remove_body(w, id_unpack(self, v));
	if (st != IMP_OK)
		return raise_status(st, "id");
	PyObject *key = PyLong_FromUnsignedLongLong(v);
	if (!key)
		return NULL;
	// The shape and user object go now (their finalizers may run).
	if (PyDict_DelItem(self->bodies, key) < 0)
		PyErr_Clear();
	Py_DECREF(key);
	Py_RETURN_NONE;
}

typedef imp_status body_pose2_fn(imp_world *world, imp_body_id id, imp_pose2 pose);
typedef imp_status body_pose3_fn(imp_world *world, imp_body_id id, imp_pose3 pose);

// A call (id, pose) that changes one body: set_pose, set_target_pose.
static PyObject *world_body_pose_call(WorldObject *self, PyObject *const *args, Py_ssize_t nargs, const char *name,
				      body_pose2_fn *f2, body_pose3_fn *f3)
{
	if (nargs != 2) {
		PyErr_Format(PyExc_TypeError, "%s() takes 2 positional arguments (id, pose), got %zd", name, nargs);
		return NULL;
	}
	imp_body_id id;
	imp_pose2 p2;
	imp_pose3 p3;
	if (world_id_arg(self, args[0], &id, "id") < 0 || read_world_pose(self, args[1], &p2, &p3, "pose") < 0)
		return NULL;
	imp_world *w = world_mutable(self, name);
	if (!w)
		return NULL;
	imp_status st = self->dim == 2 ? f2(w, id, p2) : f3(w, id, p3);
	if (st != IMP_OK)
		return raise_status(st, st == IMP_ERR_BAD_ID || st == IMP_ERR_STATIC_BODY ? "id" : "pose");
	Py_RETURN_NONE;
}

static PyObject *World_set_pose(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	return world_body_pose_call(self, args, nargs, "set_pose", imp_body_set_pose2, imp_body_set_pose3);
}

static PyObject *World_get_pose(WorldObject *self, PyObject *arg)
{
	imp_body_id id;
	if (world_id_arg(self, arg, &id, "id") < 0)
		return NULL;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	imp_pose2 p2 = imp_pose2_identity();
	imp_pose3 p3 = identity3;
	imp_status st = self->dim == 2 ? imp_body_get_pose2(w, id, &p2) : imp_body_get_pose3(w, id, &p3);
	if (st != IMP_OK)
		return raise_status(st, "id");
	return pose_object(self->dim, p2, p3);
}

// A 1-D sequence or array of ids as a new C-contiguous uint64 array.
// Integer arrays are taken as they are (negative values refused), other
// sequences item by item.
static PyArrayObject *read_id_array(PyObject *o, const char *what)
{
	if (PyArray_Check(o)) {
		PyArrayObject *a = (PyArrayObject *)o;
		if (PyArray_NDIM(a) != 1 || !PyArray_ISINTEGER(a)) {
			PyErr_Format(PyExc_TypeError, "%s: expected a 1-D array of ints (body ids), got a %d-D array of %S", what,
				     PyArray_NDIM(a), (PyObject *)PyArray_DESCR(a));
			return NULL;
		}
		if (PyArray_ISSIGNED(a)) {
			PyArrayObject *s = (PyArrayObject *)PyArray_FROM_OTF(o, NPY_INT64, NPY_ARRAY_IN_ARRAY);
			if (!s)
				return NULL;
			const int64_t *d = (const int64_t *)PyArray_DATA(s);
			for (npy_intp i = 0; i < PyArray_DIM(s, 0); i++) {
				if (d[i] < 0) {
					char ctx[64];
					snprintf(ctx, sizeof ctx, "%s[%zd]", what, (Py_ssize_t)i);
					Py_DECREF(s);
					return (PyArrayObject *)raise_status_row(IMP_ERR_BAD_ID, ctx, (Py_ssize_t)i);
				}
			}
			Py_DECREF(s);
		}
		return (PyArrayObject *)PyArray_FROM_OTF(o, NPY_UINT64, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
	}
	// A snapshot (a tuple, immutable): converting an item (__index__) may
	// mutate a list; the tuple keeps every item alive.
	PyObject *seq = PySequence_Tuple(o);
	if (!seq) {
		if (PyErr_ExceptionMatches(PyExc_TypeError)) // as PySequence_Fast's message
			PyErr_SetString(PyExc_TypeError, "ids: expected a sequence or a 1-D array of ints (body ids)");
		return NULL;
	}
	npy_intp n = PyTuple_GET_SIZE(seq);
	npy_intp dims[1] = {n};
	PyArrayObject *a = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_UINT64);
	if (!a) {
		Py_DECREF(seq);
		return NULL;
	}
	uint64_t *d = (uint64_t *)PyArray_DATA(a);
	for (npy_intp i = 0; i < n; i++) {
		char ctx[64];
		snprintf(ctx, sizeof ctx, "%s[%zd]", what, (Py_ssize_t)i);
		if (read_id_row(PyTuple_GET_ITEM(seq, i), &d[i], ctx, (Py_ssize_t)i) < 0) {
			Py_DECREF(seq);
			Py_DECREF(a);
			return NULL;
		}
	}
	Py_DECREF(seq);
	return a;
}

// A stack of poses for the world's calls: (N, 3) or (N, 7), no single pose.
static PyArrayObject *read_world_stack(WorldObject *self, PyObject *o, npy_intp *count, const char *what)
{
	PyArrayObject *a = read_pose_stack(o, self->dim, count, what);
	if (a && *count < 0) {
		PyErr_Format(PyExc_ValueError, "%s: expected an (N, %d) stack of poses, got a single pose", what,
			     self->dim == 2 ? 3 : 7);
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

// The row a failed imp_world_set_poses2/3 names (its error is the first
// failing entry's): the first whose id, pose or box fails as
// imp_body_set_pose2/3 would fail on it, when that error is the batch's;
// -1 when no row explains it (out of memory).
static npy_intp failed_row(const imp_world *w, const imp_body_id *ids, const imp_pose2 *p2, const imp_pose3 *p3,
			   npy_intp n, imp_status st)
{
	for (npy_intp i = 0; i < n; i++) {
		const imp_shape *shape;
		imp_status r = imp_body_get_shape(w, ids[i], &shape);
		if (r == IMP_OK) {
			imp_aabb2 b2;
			imp_aabb3 b3;
			r = p2 ? imp_shape_aabb2(shape, p2[i], &b2) : imp_shape_aabb3(shape, p3[i], &b3);
		}
		if (r != IMP_OK)
			return r == st ? i : -1;
	}
	return -1;
}

static PyObject *World_set_poses(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs != 2) {
		PyErr_Format(PyExc_TypeError, "set_poses() takes 2 positional arguments (ids, poses), got %zd", nargs);
		return NULL;
	}
	PyArrayObject *ids = read_id_array(args[0], "ids");
	if (!ids)
		return NULL;
	npy_intp n;
	PyArrayObject *poses = read_world_stack(self, args[1], &n, "poses");
	if (!poses) {
		Py_DECREF(ids);
		return NULL;
	}
	if (n != PyArray_DIM(ids, 0)) {
		PyErr_Format(PyExc_ValueError, "set_poses: %zd ids and %zd poses: give one pose an id",
			     (Py_ssize_t)PyArray_DIM(ids, 0), (Py_ssize_t)n);
		Py_DECREF(ids);
		Py_DECREF(poses);
		return NULL;
	}
	// The world last, after every conversion (which may close it).
	imp_world *w = world_mutable(self, "set_poses");
	if (!w) {
		Py_DECREF(ids);
		Py_DECREF(poses);
		return NULL;
	}
	if (n > INT_MAX) {
		Py_DECREF(ids);
		Py_DECREF(poses);
		return raise_status(IMP_ERR_BAD_COUNT, "set_poses: more than 2^31 - 1 rows");
	}
	// One imp_world_set_poses2/3 call, which applies every row or none:
	// the ids and poses as the library's records first.
	const uint64_t *iv = (const uint64_t *)PyArray_DATA(ids);
	const double *pv = (const double *)PyArray_DATA(poses);
	size_t nn = n > 0 ? (size_t)n : 1;
	imp_body_id *idv = PyMem_Malloc(nn * sizeof *idv);
	void *posev = PyMem_Malloc(nn * (self->dim == 2 ? sizeof(imp_pose2) : sizeof(imp_pose3)));
	if (!idv || !posev) {
		PyMem_Free(idv);
		PyMem_Free(posev);
		Py_DECREF(ids);
		Py_DECREF(poses);
		return PyErr_NoMemory();
	}
	imp_pose2 *p2 = self->dim == 2 ? posev : NULL;
	imp_pose3 *p3 = self->dim == 3 ? posev : NULL;
	for (npy_intp i = 0; i < n; i++) {
		idv[i] = id_unpack(self, iv[i]);
		if (p2)
			p2[i] = row_pose2(pv, n, i);
		else
			p3[i] = row_pose3(pv, n, i);
	}
	Py_DECREF(ids);
	Py_DECREF(poses);
	imp_status st = p2 ? imp_world_set_poses2(w, idv, p2, (int)n) : imp_world_set_poses3(w, idv, p3, (int)n);
	npy_intp row = st == IMP_OK ? -1 : failed_row(w, idv, p2, p3, n, st);
	PyMem_Free(idv);
	PyMem_Free(posev);
	if (st != IMP_OK) {
		// No row was applied.
		if (row < 0)
			return raise_status(st, "set_poses");
		char ctx[64];
		snprintf(ctx, sizeof ctx, "%s[%zd]", st == IMP_ERR_BAD_ID ? "ids" : "poses", (Py_ssize_t)row);
		return raise_status_row(st, ctx, (Py_ssize_t)row);
	}
	Py_RETURN_NONE;
}

// The ids' error: Error naming ids[i] (.row i).
static PyObject *raise_id_row(imp_status st, npy_intp i)
{
	char ctx[64];
	snprintf(ctx, sizeof ctx, "ids[%zd]", (Py_ssize_t)i);
	return raise_status_row(st, ctx, (Py_ssize_t)i);
}

static PyObject *World_get_poses(WorldObject *self, PyObject *arg)
{
	PyArrayObject *ids = read_id_array(arg, "ids");
	if (!ids)
		return NULL;
	npy_intp n = PyArray_DIM(ids, 0);
	int cols = self->dim == 2 ? 3 : 7;
	npy_intp dims[2] = {n, cols};
	PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(2, dims, NPY_DOUBLE);
	imp_world *w = out ? world_live(self) : NULL; // after the conversions, which may close it
	if (!w) {
		Py_DECREF(ids);
		Py_XDECREF(out);
		return NULL;
	}
	const uint64_t *iv = (const uint64_t *)PyArray_DATA(ids);
	double *o = (double *)PyArray_DATA(out);
	for (npy_intp i = 0; i < n; i++) {
		imp_body_id id = id_unpack(self, iv[i]);
		imp_pose2 p2 = imp_pose2_identity();
		imp_pose3 p3 = identity3;
		imp_status st = self->dim == 2 ? imp_body_get_pose2(w, id, &p2) : imp_body_get_pose3(w, id, &p3);
		if (st != IMP_OK) {
			Py_DECREF(ids);
			Py_DECREF(out);
			return raise_id_row(st, i);
		}
		pose_row(self->dim, p2, p3, o + i * cols);
	}
	Py_DECREF(ids);
	return (PyObject *)out;
}

// An (N, cols) float64 array (cols 1: an (N,) array), a new reference;
// NULL with the exception set.
static PyArrayObject *read_rows(PyObject *o, npy_intp n, int cols, const char *what)
{
	PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF(o, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
	if (!a) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_Format(PyExc_TypeError, "%s: expected float64 numbers (or a dtype numpy casts safely): %S", what,
			     value ? value : Py_None);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return NULL;
	}
	bool ok = cols == 1 ? PyArray_NDIM(a) == 1 && PyArray_DIM(a, 0) == n
			    : (PyArray_NDIM(a) == 2 && PyArray_DIM(a, 0) == n && PyArray_DIM(a, 1) == cols) ||
				      (n == 0 && PyArray_SIZE(a) == 0);
	if (!ok) {
		PyObject *shape = PyObject_GetAttrString((PyObject *)a, "shape");
		if (cols == 1)
			PyErr_Format(PyExc_ValueError, "%s: expected shape (%zd,), got %R", what, (Py_ssize_t)n,
				     shape ? shape : Py_None);
		else
			PyErr_Format(PyExc_ValueError, "%s: expected shape (%zd, %d), got %R", what, (Py_ssize_t)n, cols,
				     shape ? shape : Py_None);
		Py_XDECREF(shape);
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

static PyObject *World_set_velocities(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs != 3) {
		PyErr_Format(PyExc_TypeError, "set_velocities() takes 3 positional arguments (ids, linear, angular), got %zd",
			     nargs);
		return NULL;
	}
	PyArrayObject *ids = read_id_array(args[0], "ids");
	if (!ids)
		return NULL;
	npy_intp n = PyArray_DIM(ids, 0);
	int dim = self->dim;
	PyArrayObject *lin = read_rows(args[1], n, dim, "linear");
	PyArrayObject *ang = lin ? read_rows(args[2], n, dim == 2 ? 1 : 3, "angular") : NULL;
	imp_world *w = ang ? world_mutable(self, "set_velocities") : NULL; // the world last
	if (!w) {
		Py_DECREF(ids);
		Py_XDECREF(lin);
		Py_XDECREF(ang);
		return NULL;
	}
	const uint64_t *iv = (const uint64_t *)PyArray_DATA(ids);
	const double *lv = (const double *)PyArray_DATA(lin), *av = (const double *)PyArray_DATA(ang);
	imp_status st = IMP_OK;
	npy_intp i = 0;
	for (; i < n && st == IMP_OK; i++) {
		imp_body_id id = id_unpack(self, iv[i]);
		if (dim == 2) {
			imp_vec2 v = {lv[2 * i], lv[2 * i + 1]};
			st = imp_body_set_velocity2(w, id, v, av[i]);
		} else {
			imp_vec3 v = {lv[3 * i], lv[3 * i + 1], lv[3 * i + 2]};
			imp_vec3 a = {av[3 * i], av[3 * i + 1], av[3 * i + 2]};
			st = imp_body_set_velocity3(w, id, v, a);
		}
	}
	Py_DECREF(ids);
	Py_DECREF(lin);
	Py_DECREF(ang);
	if (st != IMP_OK) {
		// Rows before i - 1 were applied; that row and those after were not.
		i--;
		if (st == IMP_ERR_BAD_ID || st == IMP_ERR_STATIC_BODY)
			return raise_id_row(st, i);
		char ctx[64];
		snprintf(ctx, sizeof ctx, "linear[%zd], angular[%zd]", (Py_ssize_t)i, (Py_ssize_t)i);
		return raise_status_row(st, ctx, (Py_ssize_t)i);
	}
	Py_RETURN_NONE;
}

static PyObject *World_get_velocities(WorldObject *self, PyObject *arg)
{
	PyArrayObject *ids = read_id_array(arg, "ids");
	if (!ids)
		return NULL;
	npy_intp n = PyArray_DIM(ids, 0);
	int dim = self->dim;
	npy_intp dl[2] = {n, dim}, da[2] = {n, 3};
	PyArrayObject *lin = (PyArrayObject *)PyArray_SimpleNew(2, dl, NPY_DOUBLE);
	PyArrayObject *ang = lin ? (PyArrayObject *)PyArray_SimpleNew(dim == 2 ? 1 : 2, da, NPY_DOUBLE) : NULL;
	imp_world *w = ang ? world_live(self) : NULL; // after the conversions, which may close it
	if (!w) {
		Py_DECREF(ids);
		Py_XDECREF(lin);
		Py_XDECREF(ang);
		return NULL;
	}
	const uint64_t *iv = (const uint64_t *)PyArray_DATA(ids);
	double *lv = (double *)PyArray_DATA(lin), *av = (double *)PyArray_DATA(ang);
	for (npy_intp i = 0; i < n; i++) {
		imp_body_id id = id_unpack(self, iv[i]);
		imp_status st;
		if (dim == 2) {
			imp_vec2 v;
			st = imp_body_get_velocity2(w, id, &v, &av[i]);
			lv[2 * i] = v.x;
			lv[2 * i + 1] = v.y;
		} else {
			imp_vec3 v, a;
			st = imp_body_get_velocity3(w, id, &v, &a);
			memcpy(lv + 3 * i, &v, sizeof v);
			memcpy(av + 3 * i, &a, sizeof a);
		}
		if (st != IMP_OK) {
			Py_DECREF(ids);
			Py_DECREF(lin);
			Py_DECREF(ang);
			return raise_id_row(st, i);
		}
	}
	Py_DECREF(ids);
	return Py_BuildValue("(NN)", lin, ang);
}

// The (shape, user) entry of a live body (borrowed), or NULL with Error.
static PyObject *body_entry(WorldObject *self, PyObject *arg)
{
	uint64_t v;
	if (read_id(arg, &v, "id") < 0)
		return NULL;
	PyObject *key = PyLong_FromUnsignedLongLong(v);
	if (!key)
		return NULL;
	if (!world_live(self)) { // after read_id, whose __index__ may close the world
		Py_DECREF(key);
		return NULL;
	}
	PyObject *entry = PyDict_GetItemWithError(self->bodies, key);
	Py_DECREF(key);
	if (!entry && !PyErr_Occurred())
		raise_status(IMP_ERR_BAD_ID, "id");
	return entry;
}

static PyObject *World_user(WorldObject *self, PyObject *arg)
{
	PyObject *entry = body_entry(self, arg);
	return entry ? Py_NewRef(PyTuple_GET_ITEM(entry, 1)) : NULL;
}

static PyObject *World_shape(WorldObject *self, PyObject *arg)
{
	PyObject *entry = body_entry(self, arg);
	return entry ? Py_NewRef(PyTuple_GET_ITEM(entry, 0)) : NULL;
}

static PyObject *World_get_dim(WorldObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromLong(self->dim);
}

static PyObject *World_get_body_count(WorldObject *self, void *closure)
{
	(void)closure;
	imp_world *w = world_live(self);
	return w ? PyLong_FromLong(imp_world_body_count(w)) : NULL;
}

static PyObject *World_get_time(WorldObject *self, void *closure)
{
	(void)closure;
	imp_world *w = world_live(self);
	return w ? PyFloat_FromDouble(imp_world_time(w)) : NULL;
}

static PyObject *World_get_closed(WorldObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(self->world == NULL);
}

// ---- update and pairs

static PyObject *World_update(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_mutable(self, "update");
	if (!w)
		return NULL;
	imp_status st = imp_world_update(w);
	if (st != IMP_OK)
		return raise_status(st, "update");
	Py_RETURN_NONE;
}

static PyObject *World_touching_pairs(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	id_buffer b = {0};
	imp_status st = imp_world_for_each_pair(w, pair_to_buffer, &b);
	if (st != IMP_OK) {
		PyMem_RawFree(b.data);
		return raise_status(st, "touching_pairs");
	}
	return id_buffer_array(&b, 2);
}

static PyObject *World_events(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	// The events are copied out before any Python object is made: making
	// one may run the cycle collector, whose finalizers may close or
	// update the world (freeing the library's arrays).
	imp_pair_events ev = imp_world_get_events(w);
	int nb = ev.begin_count > 0 ? ev.begin_count : 0, ne = ev.end_count > 0 ? ev.end_count : 0;
	imp_pair_event *copy = PyMem_Malloc(((size_t)nb + (size_t)ne + 1) * sizeof *copy);
	if (!copy)
		return PyErr_NoMemory();
	if (nb)
		memcpy(copy, ev.begin, (size_t)nb * sizeof *copy);
	if (ne)
		memcpy(copy + nb, ev.end, (size_t)ne * sizeof *copy);
	PyObject *begin = events_array(copy, nb);
	PyObject *end = begin ? events_array(copy + nb, ne) : NULL;
	PyMem_Free(copy);
	if (!end) {
		Py_XDECREF(begin);
		return NULL;
	}
	PyObject *r = PyTuple_Pack(2, begin, end);
	Py_DECREF(begin);
	Py_DECREF(end);
	return r;
}

// ---- motion and the step

static PyObject *World_set_velocity(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs != 3) {
		PyErr_Format(PyExc_TypeError, "set_velocity() takes 3 positional arguments (id, linear, angular), got %zd",
			     nargs);
		return NULL;
	}
	imp_body_id id;
	if (world_id_arg(self, args[0], &id, "id") < 0)
		return NULL;
	imp_vec2 v2 = {0.0, 0.0};
	imp_vec3 v3 = {0.0, 0.0, 0.0}, a3 = {0.0, 0.0, 0.0};
	double a2 = 0.0;
	if (self->dim == 2) {
		if (read_vec2(args[1], &v2, "linear") < 0)
			return NULL;
		if (!PyNumber_Check(args[2])) {
			PyErr_Format(PyExc_TypeError, "angular: expected a number (2D), got %s", Py_TYPE(args[2])->tp_name);
			return NULL;
		}
		a2 = PyFloat_AsDouble(args[2]);
		if (a2 == -1.0 && PyErr_Occurred())
			return NULL;
	} else {
		if (read_vec3(args[1], &v3, "linear") < 0 || read_vec3(args[2], &a3, "angular") < 0)
			return NULL;
	}
	// The world last: the conversions above may have closed it.
	imp_world *w = world_mutable(self, "set_velocity");
	if (!w)
		return NULL;
	imp_status st = self->dim == 2 ? imp_body_set_velocity2(w, id, v2, a2) : imp_body_set_velocity3(w, id, v3, a3);
	if (st != IMP_OK)
		return raise_status(st, st == IMP_ERR_BAD_ID || st == IMP_ERR_STATIC_BODY ? "id" : "set_velocity");
	Py_RETURN_NONE;
}

static PyObject *World_get_velocity(WorldObject *self, PyObject *arg)
{
	imp_body_id id;
	if (world_id_arg(self, arg, &id, "id") < 0)
		return NULL;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	if (self->dim == 2) {
		imp_vec2 v;
		double a;
		imp_status st = imp_body_get_velocity2(w, id, &v, &a);
		if (st != IMP_OK)
			return raise_status(st, "id");
		return Py_BuildValue("(Nd)", vec_array(&v.x, 2), a);
	}
	imp_vec3 v, a;
	imp_status st = imp_body_get_velocity3(w, id, &v, &a);
	if (st != IMP_OK)
		return raise_status(st, "id");
	return Py_BuildValue("(NN)", vec_array(&v.x, 3), vec_array(&a.x, 3));
}

typedef struct {
	PyObject *fn;
	int dim;
	bool failed; // the callback raised: the exception is held below, later contacts are not passed on
	PyObject *type, *value, *traceback;
} step_call;

static void step_on_contact(const imp_contact_event *e, void *user)
{
	step_call *c = user;
	if (c->failed)
		return;
	PyObject *contact = contact_object(e, c->dim);
	PyObject *r = contact ? PyObject_CallOneArg(c->fn, contact) : NULL;
	Py_XDECREF(contact);
	if (!r) {
		c->failed = true;
		PyErr_Fetch(&c->type, &c->value, &c->traceback);
		return;
	}
	Py_DECREF(r);
}

static PyObject *World_step(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"dt", "on_contact", "tolerance", "max_pair_calls", "resting_speed", NULL};
	imp_step_opts o = imp_default_step_opts();
	double dt;
	PyObject *fn = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "d|O$did:step", names, &dt, &fn, &o.tolerance, &o.max_pair_calls,
					 &o.resting_speed))
		return NULL;
	imp_world *w = world_mutable(self, "step");
	if (!w)
		return NULL;
	if (self->in_step > 0)
		return raise_status(IMP_ERR_BUSY, "step() inside step()");
	if (fn != Py_None && !PyCallable_Check(fn)) {
		PyErr_Format(PyExc_TypeError, "on_contact: expected a callable or None, got %s", Py_TYPE(fn)->tp_name);
		return NULL;
	}
	step_call call = {fn, self->dim, false, NULL, NULL, NULL};
	if (fn != Py_None) {
		o.on_contact = step_on_contact;
		o.user = &call;
	}
	// The GIL is held: the callback runs Python code on this thread, and
	// in_step keeps it from closing the world under the step.
	self->in_step++;
	imp_status st = imp_world_step(w, dt, &o);
	self->in_step--;
	if (call.failed) {
		// The C step cannot be stopped: it ran to its end (the world is at
		// t + dt), without passing later contacts to the callback.
		PyErr_Restore(call.type, call.value, call.traceback);
		return NULL;
	}
	if (st != IMP_OK)
		return raise_status(st, st == IMP_ERR_BAD_OPTIONS ? "step options" : "step");
	Py_RETURN_NONE;
}

static PyObject *World_contacts(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	// The contacts are copied out before any Python object is made: making
	// one (GC-tracked) may run the cycle collector, whose finalizers may
	// close or step the world (freeing the library's array).
	imp_contact_events ev = imp_world_get_contacts(w);
	int n = ev.count > 0 ? ev.count : 0;
	imp_contact_event *copy = PyMem_Malloc(((size_t)n + 1) * sizeof *copy);
	if (!copy)
		return PyErr_NoMemory();
	if (n)
		memcpy(copy, ev.items, (size_t)n * sizeof *copy);
	int dim = self->dim;
	PyObject *list = PyList_New(n);
	if (!list) {
		PyMem_Free(copy);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		PyObject *c = contact_object(&copy[i], dim);
		if (!c) {
			PyMem_Free(copy);
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, i, c);
	}
	PyMem_Free(copy);
	return list;
}

// ---- planner queries

#define FILTER_NAMES "ignore", "category", "mask", "group"
#define FILTER_FORMAT "OOOi"
#define FILTER_VARS                                                                                                    \
	PyObject *ignore_o = NULL, *category_o = NULL, *mask_o = NULL;                                                   \
	int group = 0
#define FILTER_ARGS &ignore_o, &category_o, &mask_o, &group

// The shape argument of a query, in the world's dimension (a shape of the
// other one is the C library's IMP_ERR_DIMENSION_MISMATCH).
static const char *shape_blame(imp_status st, int dim, imp_pose2 p2, imp_pose3 p3)
{
	if (st == IMP_ERR_BAD_ID)
		return "ignore";
	if (st == IMP_ERR_DIMENSION_MISMATCH || st == IMP_ERR_BAD_SHAPE)
		return "shape";
	return !world_pose_ok(dim, p2, p3) ? "pose" : NULL;
}

/// What a query of a shape at one pose reads: the live world, the shape,
/// the query filter and the pose. NULL with the exception set.
static imp_world *shape_query_args(WorldObject *self, PyObject *so, PyObject *po, PyObject *ignore_o,
				   PyObject *category_o, PyObject *mask_o, int group, ShapeObject **s,
				   imp_query_filter *qf, imp_pose2 *p2, imp_pose3 *p3)
{
	// The arguments first (converting them may run Python code that closes
	// the world), the world last.
	*s = as_shape(so, "shape");
	if (*s == NULL || read_query_filter(self, ignore_o, category_o, mask_o, group, qf) < 0 ||
	    read_world_pose(self, po, p2, p3, "pose") < 0)
		return NULL;
	return world_live(self);
}

static PyObject *World_overlap_any(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose", FILTER_NAMES, NULL};
	PyObject *so, *po;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$" FILTER_FORMAT ":overlap_any", names, &so, &po, FILTER_ARGS))
		return NULL;
	ShapeObject *s;
	imp_query_filter qf;
	imp_pose2 p2;
	imp_pose3 p3;
	imp_world *w = shape_query_args(self, so, po, ignore_o, category_o, mask_o, group, &s, &qf, &p2, &p3);
	if (w == NULL)
		return NULL;
	bool out = false;
	imp_status st = self->dim == 2 ? imp_world_overlap_any2(w, s->shape, p2, &qf, &out)
				       : imp_world_overlap_any3(w, s->shape, p3, &qf, &out);
	if (st != IMP_OK)
		return raise_status(st, shape_blame(st, self->dim, p2, p3));
	return PyBool_FromLong(out);
}

static PyObject *World_nearest(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose", "max_distance", FILTER_NAMES, NULL};
	PyObject *so, *po;
	double max_distance = INFINITY;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d$" FILTER_FORMAT ":nearest", names, &so, &po, &max_distance,
					 FILTER_ARGS))
		return NULL;
	ShapeObject *s;
	imp_query_filter qf;
	imp_pose2 p2;
	imp_pose3 p3;
	imp_world *w = shape_query_args(self, so, po, ignore_o, category_o, mask_o, group, &s, &qf, &p2, &p3);
	if (w == NULL)
		return NULL;
	imp_query_result r;
	memset(&r, 0, sizeof r);
	imp_status st = self->dim == 2 ? imp_world_nearest2(w, s->shape, p2, max_distance, &qf, &r)
				       : imp_world_nearest3(w, s->shape, p3, max_distance, &qf, &r);
	if (st != IMP_OK)
		return raise_status(st, isnan(max_distance) ? "max_distance" : shape_blame(st, self->dim, p2, p3));
	return query_result_object(&r, self->dim);
}

static PyObject *World_overlap_shape(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose", FILTER_NAMES, NULL};
	PyObject *so, *po;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$" FILTER_FORMAT ":overlap_shape", names, &so, &po, FILTER_ARGS))
		return NULL;
	ShapeObject *s;
	imp_query_filter qf;
	imp_pose2 p2;
	imp_pose3 p3;
	imp_world *w = shape_query_args(self, so, po, ignore_o, category_o, mask_o, group, &s, &qf, &p2, &p3);
	if (w == NULL)
		return NULL;
	id_buffer b = {0};
	imp_status st = self->dim == 2 ? imp_world_overlap_shape2(w, s->shape, p2, &qf, id_to_buffer, &b)
				       : imp_world_overlap_shape3(w, s->shape, p3, &qf, id_to_buffer, &b);
	if (st != IMP_OK) {
		PyMem_RawFree(b.data);
		return raise_status(st, shape_blame(st, self->dim, p2, p3));
	}
	return id_buffer_array(&b, 1);
}

static PyObject *World_distance(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs != 2) {
		PyErr_Format(PyExc_TypeError, "distance() takes 2 positional arguments (id_a, id_b), got %zd", nargs);
		return NULL;
	}
	imp_body_id a, b;
	if (world_id_arg(self, args[0], &a, "id_a") < 0 || world_id_arg(self, args[1], &b, "id_b") < 0)
		return NULL;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	imp_query_result r;
	memset(&r, 0, sizeof r);
	imp_status st = imp_world_distance(w, a, b, &r);
	if (st != IMP_OK)
		return raise_status(st, st == IMP_ERR_BAD_ID ? "id_a, id_b" : "distance");
	return query_result_object(&r, self->dim);
}

static PyObject *World_cast_shape(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose_from", "pose_to", FILTER_NAMES, "tolerance", "max_iterations", NULL};
	PyObject *so, *pf, *pt;
	FILTER_VARS;
	imp_cast_options opt = imp_default_cast_options();
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$" FILTER_FORMAT "di:cast_shape", names, &so, &pf, &pt, FILTER_ARGS,
					 &opt.tolerance, &opt.max_iterations))
		return NULL;
	ShapeObject *s = as_shape(so, "shape");
	imp_query_filter qf;
	imp_pose2 f2, t2;
	imp_pose3 f3, t3;
	if (!s || read_query_filter(self, ignore_o, category_o, mask_o, group, &qf) < 0 ||
	    read_world_pose(self, pf, &f2, &f3, "pose_from") < 0 || read_world_pose(self, pt, &t2, &t3, "pose_to") < 0)
		return NULL;
	imp_world *w = world_live(self); // after the conversions, which may close it
	if (!w)
		return NULL;
	imp_cast_hit h;
	memset(&h, 0, sizeof h);
	imp_status st = self->dim == 2 ? imp_world_cast_shape2_ex(w, s->shape, f2, t2, &qf, &opt, &h)
				       : imp_world_cast_shape3_ex(w, s->shape, f3, t3, &qf, &opt, &h);
	if (st != IMP_OK) {
		const char *ctx = st == IMP_ERR_BAD_OPTIONS			  ? "tolerance, max_iterations"
				  : !world_pose_ok(self->dim, f2, f3)		  ? "pose_from"
				  : !world_pose_ok(self->dim, t2, t3)		  ? "pose_to"
										  : shape_blame(st, self->dim, f2, f3);
		return raise_status(st, ctx);
	}
	return cast_hit_object(&h, self->dim);
}

static PyObject *World_motion_free(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose_from", "pose_to", FILTER_NAMES, NULL};
	PyObject *so, *pf, *pt;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$" FILTER_FORMAT ":motion_free", names, &so, &pf, &pt,
					 FILTER_ARGS))
		return NULL;
	ShapeObject *s = as_shape(so, "shape");
	imp_query_filter qf;
	imp_pose2 f2, t2;
	imp_pose3 f3, t3;
	if (!s || read_query_filter(self, ignore_o, category_o, mask_o, group, &qf) < 0 ||
	    read_world_pose(self, pf, &f2, &f3, "pose_from") < 0 || read_world_pose(self, pt, &t2, &t3, "pose_to") < 0)
		return NULL;
	imp_world *w = world_live(self); // after the conversions, which may close it
	if (!w)
		return NULL;
	bool out = false;
	imp_status st = self->dim == 2 ? imp_world_motion_free2(w, s->shape, f2, t2, &qf, &out)
				       : imp_world_motion_free3(w, s->shape, f3, t3, &qf, &out);
	if (st != IMP_OK) {
		const char *ctx = !world_pose_ok(self->dim, f2, f3)   ? "pose_from"
				  : !world_pose_ok(self->dim, t2, t3) ? "pose_to"
								      : shape_blame(st, self->dim, f2, f3);
		return raise_status(st, ctx);
	}
	return PyBool_FromLong(out);
}

static PyObject *World_ray_cast(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"start", "end", FILTER_NAMES, NULL};
	PyObject *a, *b;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$" FILTER_FORMAT ":ray_cast", names, &a, &b, FILTER_ARGS))
		return NULL;
	imp_query_filter qf;
	if (read_query_filter(self, ignore_o, category_o, mask_o, group, &qf) < 0)
		return NULL;
	imp_vec2 s2, e2;
	imp_vec3 s3, e3;
	if (self->dim == 2) {
		if (read_vec2(a, &s2, "start") < 0 || read_vec2(b, &e2, "end") < 0)
			return NULL;
	} else {
		if (read_vec3(a, &s3, "start") < 0 || read_vec3(b, &e3, "end") < 0)
			return NULL;
	}
	imp_world *w = world_live(self); // after the conversions, which may close it
	if (!w)
		return NULL;
	imp_ray_hit h;
	memset(&h, 0, sizeof h);
	imp_status st = self->dim == 2 ? imp_world_ray_cast2(w, s2, e2, &qf, &h) : imp_world_ray_cast3(w, s3, e3, &qf, &h);
	if (st != IMP_OK)
		return raise_status(st, st == IMP_ERR_BAD_ID ? "ignore" : "start, end");
	return ray_hit_object(&h, self->dim);
}

// ---- batch queries: the rows made into imp_pose2/3 structs, then the C
// batch with the GIL released.

// The rows of a stack as C poses (PyMem_RawMalloc'd), or NULL with an
// exception.
static void *stack_poses(const double *d, npy_intp n, int dim)
{
	size_t size = dim == 2 ? sizeof(imp_pose2) : sizeof(imp_pose3);
	void *p = PyMem_RawMalloc((size_t)(n > 0 ? n : 1) * size);
	if (!p)
		return PyErr_NoMemory();
	for (npy_intp i = 0; i < n; i++) {
		if (dim == 2)
			((imp_pose2 *)p)[i] = row_pose2(d, n, i);
		else
			((imp_pose3 *)p)[i] = row_pose3(d, n, i);
	}
	return p;
}

// A batch failed with `st`: the first row whose single query fails names
// the row (the C batch reports only the status), when the status is about
// a pose (the pose's, or its box's); the shape's and the filter's errors
// are no row's.
static PyObject *raise_batch_row(WorldObject *self, imp_status st, const ShapeObject *s, const void *poses, npy_intp n,
				 const imp_query_filter *qf)
{
	bool about_pose = st == IMP_ERR_NOT_FINITE || st == IMP_ERR_BAD_ROTATION || st == IMP_ERR_OUT_OF_RANGE ||
			  st == IMP_ERR_OUT_OF_MEMORY;
	for (npy_intp i = 0; about_pose && i < n; i++) {
		bool o;
		imp_status si = self->dim == 2 ? imp_world_overlap_any2(self->world, s->shape, ((const imp_pose2 *)poses)[i], qf, &o)
					       : imp_world_overlap_any3(self->world, s->shape, ((const imp_pose3 *)poses)[i], qf, &o);
		if (si != IMP_OK) {
			char ctx[64];
			snprintf(ctx, sizeof ctx, "poses[%zd]", (Py_ssize_t)i);
			return raise_status_row(si, ctx, (Py_ssize_t)i);
		}
	}
	return raise_status(st, st == IMP_ERR_BAD_ID ? "ignore" : st == IMP_ERR_BAD_COUNT ? "poses" : about_pose ? NULL : "shape");
}

// The common arguments of the two batches. Returns the C poses (or NULL).
static void *batch_args(WorldObject *self, PyObject *so, PyObject *po, ShapeObject **s, npy_intp *n)
{
	// The world is not looked at here: the caller checks it after the
	// last conversion.
	if (!(*s = as_shape(so, "shape")))
		return NULL;
	PyArrayObject *a = read_world_stack(self, po, n, "poses");
	if (!a)
		return NULL;
	if (*n > INT_MAX) {
		Py_DECREF(a);
		raise_status(IMP_ERR_BAD_COUNT, "poses");
		return NULL;
	}
	void *poses = stack_poses((const double *)PyArray_DATA(a), *n, self->dim);
	Py_DECREF(a);
	return poses;
}

static PyObject *World_overlap_any_batch(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "poses", FILTER_NAMES, NULL};
	PyObject *so, *po;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$" FILTER_FORMAT ":overlap_any_batch", names, &so, &po,
					 FILTER_ARGS))
		return NULL;
	imp_query_filter qf;
	ShapeObject *s;
	npy_intp n;
	void *poses = batch_args(self, so, po, &s, &n);
	if (!poses)
		return NULL;
	if (read_query_filter(self, ignore_o, category_o, mask_o, group, &qf) < 0) {
		PyMem_RawFree(poses);
		return NULL;
	}
	npy_intp dims[1] = {n};
	PyArrayObject *out = (PyArrayObject *)PyArray_ZEROS(1, dims, NPY_BOOL, 0);
	if (!out) {
		PyMem_RawFree(poses);
		return NULL;
	}
	imp_world *w = world_query_nogil(self, "overlap_any_batch"); // after the conversions, which may close it
	if (!w) {
		Py_DECREF(out);
		PyMem_RawFree(poses);
		return NULL;
	}
	bool *o = (bool *)PyArray_DATA(out);
	imp_status st;
	self->active++;
	Py_BEGIN_ALLOW_THREADS
	st = self->dim == 2 ? imp_world_overlap_any_batch2(w, s->shape, poses, (int)n, &qf, o)
			    : imp_world_overlap_any_batch3(w, s->shape, poses, (int)n, &qf, o);
	Py_END_ALLOW_THREADS
	self->active--;
	if (st != IMP_OK) {
		Py_DECREF(out);
		raise_batch_row(self, st, s, poses, n, &qf);
		PyMem_RawFree(poses);
		return NULL;
	}
	PyMem_RawFree(poses);
	return (PyObject *)out;
}

static PyObject *World_nearest_batch(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "poses", "max_distance", FILTER_NAMES, NULL};
	PyObject *so, *po;
	double max_distance = INFINITY;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d$" FILTER_FORMAT ":nearest_batch", names, &so, &po, &max_distance,
					 FILTER_ARGS))
		return NULL;
	imp_query_filter qf;
	ShapeObject *s;
	npy_intp n;
	void *poses = batch_args(self, so, po, &s, &n);
	if (!poses)
		return NULL;
	if (read_query_filter(self, ignore_o, category_o, mask_o, group, &qf) < 0) {
		PyMem_RawFree(poses);
		return NULL;
	}
	if (isnan(max_distance)) {
		PyMem_RawFree(poses);
		return raise_status(IMP_ERR_NOT_FINITE, "max_distance");
	}
	int dim = self->dim;
	imp_query_result *r = PyMem_RawCalloc((size_t)(n > 0 ? n : 1), sizeof *r);
	npy_intp d1[1] = {n}, d2[2] = {n, dim};
	PyArrayObject *ids = (PyArrayObject *)PyArray_SimpleNew(1, d1, NPY_UINT64);
	PyArrayObject *dist = (PyArrayObject *)PyArray_SimpleNew(1, d1, NPY_DOUBLE);
	PyArrayObject *pt = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
	PyArrayObject *bp = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
	PyArrayObject *nr = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_DOUBLE);
	if (!r || !ids || !dist || !pt || !bp || !nr) {
		if (!r)
			PyErr_NoMemory();
		goto fail;
	}
	imp_world *w = world_query_nogil(self, "nearest_batch"); // after the conversions, which may close it
	if (!w)
		goto fail;
	imp_status st;
	self->active++;
	Py_BEGIN_ALLOW_THREADS
	st = dim == 2 ? imp_world_nearest_batch2(w, s->shape, poses, (int)n, max_distance, &qf, r)
		      : imp_world_nearest_batch3(w, s->shape, poses, (int)n, max_distance, &qf, r);
	if (st == IMP_OK) {
		uint64_t *di = (uint64_t *)PyArray_DATA(ids);
		double *dd = (double *)PyArray_DATA(dist), *dp = (double *)PyArray_DATA(pt),
		       *db = (double *)PyArray_DATA(bp), *dn = (double *)PyArray_DATA(nr);
		for (npy_intp i = 0; i < n; i++) {
			di[i] = imp_body_id_is_null(r[i].body) ? 0 : id_pack(r[i].body);
			dd[i] = r[i].distance;
			memcpy(dp + i * dim, &r[i].point.x, (size_t)dim * sizeof(double));
			memcpy(db + i * dim, &r[i].body_point.x, (size_t)dim * sizeof(double));
			memcpy(dn + i * dim, &r[i].normal.x, (size_t)dim * sizeof(double));
		}
	}
	Py_END_ALLOW_THREADS
	self->active--;
	if (st != IMP_OK) {
		raise_batch_row(self, st, s, poses, n, &qf);
		goto fail;
	}
	PyMem_RawFree(r);
	PyMem_RawFree(poses);
	return Py_BuildValue("(NNNNN)", ids, dist, pt, bp, nr);
fail:
	PyMem_RawFree(r);
	PyMem_RawFree(poses);
	Py_XDECREF(ids);
	Py_XDECREF(dist);
	Py_XDECREF(pt);
	Py_XDECREF(bp);
	Py_XDECREF(nr);
	return NULL;
}


// ---- the remaining world calls: every body within a distance, the
// world's clearance, every body along a ray, target poses, filters and user
// objects changed after add_body, the statistics and the state hash.

// A growing array of query results (PyMem_Raw: filled with the GIL
// released).
typedef struct {
	imp_query_result *data;
	imp_body_id *a; // clearance: body a of each pair (NULL otherwise)
	size_t count, cap;
	bool failed;
} result_buffer;

static bool result_buffer_push(result_buffer *b, const imp_query_result *r, const imp_body_id *a)
{
	if (b->count == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 32;
		imp_query_result *d = PyMem_RawRealloc(b->data, cap * sizeof *d);
		if (!d) {
			b->failed = true;
			return false;
		}
		b->data = d;
		if (a) {
			imp_body_id *ad = PyMem_RawRealloc(b->a, cap * sizeof *ad);
			if (!ad) {
				b->failed = true;
				return false;
			}
			b->a = ad;
		}
		b->cap = cap;
	}
	b->data[b->count] = *r;
	if (a)
		b->a[b->count] = *a;
	b->count++;
	return true;
}

static void result_buffer_free(result_buffer *b)
{
	PyMem_RawFree(b->data);
	PyMem_RawFree(b->a);
}

static double distance_to_buffer(const imp_query_result *hit, void *user)
{
	result_buffer *b = user;
	// Out of memory stops the query (-INFINITY); the caller raises.
	return result_buffer_push(b, hit, NULL) ? INFINITY : -INFINITY;
}

// The buffer's results as a list of QueryResult; frees nothing.
static PyObject *result_list(const result_buffer *b, int dim)
{
	PyObject *list = PyList_New((Py_ssize_t)b->count);
	if (!list)
		return NULL;
	for (size_t i = 0; i < b->count; i++) {
		PyObject *r = query_result_object(&b->data[i], dim);
		if (!r) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, r);
	}
	return list;
}

static PyObject *World_query_distance(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"shape", "pose", "max_distance", FILTER_NAMES, NULL};
	PyObject *so, *po;
	double max_distance;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOd|$" FILTER_FORMAT ":query_distance", names, &so, &po,
					 &max_distance, FILTER_ARGS))
		return NULL;
	ShapeObject *s;
	imp_query_filter qf;
	imp_pose2 p2;
	imp_pose3 p3;
	imp_world *w = shape_query_args(self, so, po, ignore_o, category_o, mask_o, group, &s, &qf, &p2, &p3);
	if (w == NULL || world_query_nogil(self, "query_distance") == NULL)
		return NULL;
	result_buffer b = {0};
	// The library's callback only records (no Python code runs in it), so
	// the query runs without the GIL, as the batches do.
	imp_status st;
	self->active++;
	Py_BEGIN_ALLOW_THREADS
	st = self->dim == 2 ? imp_world_query_distance2(w, s->shape, p2, max_distance, &qf, distance_to_buffer, &b)
			    : imp_world_query_distance3(w, s->shape, p3, max_distance, &qf, distance_to_buffer, &b);
	Py_END_ALLOW_THREADS
	self->active--;
	PyObject *out = NULL;
	if (st != IMP_OK)
		raise_status(st, !isfinite(max_distance) ? "max_distance" : shape_blame(st, self->dim, p2, p3));
	else if (b.failed)
		PyErr_NoMemory();
	else
		out = result_list(&b, self->dim);
	result_buffer_free(&b);
	return out;
}

static bool clearance_to_buffer(imp_body_id a, const imp_query_result *pair, void *user)
{
	return result_buffer_push(user, pair, &a);
}

// Five arrays from the results: ids (M, cols) uint64 (cols 2: a, body;
// cols 1: body), distances (M,), points, body points and normals (M, dim).
static PyObject *result_arrays(const result_buffer *b, int cols, int dim)
{
	npy_intp m = (npy_intp)b->count;
	npy_intp dims_id[2] = {m, cols}, dims_d[1] = {m}, dims_v[2] = {m, dim};
	PyArrayObject *ids = (PyArrayObject *)PyArray_SimpleNew(cols == 1 ? 1 : 2, dims_id, NPY_UINT64);
	PyArrayObject *dist = (PyArrayObject *)PyArray_SimpleNew(1, dims_d, NPY_FLOAT64);
	PyArrayObject *pa = (PyArrayObject *)PyArray_SimpleNew(2, dims_v, NPY_FLOAT64);
	PyArrayObject *pb = (PyArrayObject *)PyArray_SimpleNew(2, dims_v, NPY_FLOAT64);
	PyArrayObject *nv = (PyArrayObject *)PyArray_SimpleNew(2, dims_v, NPY_FLOAT64);
	if (!ids || !dist || !pa || !pb || !nv) {
		Py_XDECREF(ids);
		Py_XDECREF(dist);
		Py_XDECREF(pa);
		Py_XDECREF(pb);
		Py_XDECREF(nv);
		return NULL;
	}
	uint64_t *di = (uint64_t *)PyArray_DATA(ids);
	double *dd = (double *)PyArray_DATA(dist), *da = (double *)PyArray_DATA(pa), *db = (double *)PyArray_DATA(pb),
	       *dn = (double *)PyArray_DATA(nv);
	for (npy_intp i = 0; i < m; i++) {
		const imp_query_result *r = &b->data[i];
		if (cols == 2) {
			di[2 * i] = id_pack(b->a[i]);
			di[2 * i + 1] = id_pack(r->body);
		} else {
			di[i] = id_pack(r->body);
		}
		dd[i] = r->distance;
		const double *p = &r->point.x, *q = &r->body_point.x, *n = &r->normal.x;
		for (int k = 0; k < dim; k++) {
			da[i * dim + k] = p[k];
			db[i * dim + k] = q[k];
			dn[i * dim + k] = n[k];
		}
	}
	return Py_BuildValue("(NNNNN)", ids, dist, pa, pb, nv);
}

static PyObject *World_clearance(WorldObject *self, PyObject *arg)
{
	if (!PyNumber_Check(arg)) {
		PyErr_Format(PyExc_TypeError, "margin: expected a number, got %s", Py_TYPE(arg)->tp_name);
		return NULL;
	}
	double margin = PyFloat_AsDouble(arg);
	if (margin == -1.0 && PyErr_Occurred())
		return NULL;
	imp_world *w = world_query_nogil(self, "clearance"); // after the conversion, which may close it
	if (!w)
		return NULL;
	result_buffer b = {0};
	imp_status st;
	self->active++;
	Py_BEGIN_ALLOW_THREADS
	st = imp_world_clearance(w, margin, clearance_to_buffer, &b);
	Py_END_ALLOW_THREADS
	self->active--;
	PyObject *out = NULL;
	if (st != IMP_OK)
		raise_status(st, st == IMP_ERR_BAD_RADIUS ? "margin" : "clearance");
	else if (b.failed)
		PyErr_NoMemory();
	else
		out = result_arrays(&b, 2, self->dim);
	result_buffer_free(&b);
	return out;
}

typedef struct {
	imp_ray_hit *data;
	size_t count, cap;
	bool failed;
} ray_buffer;

static bool ray_to_buffer(const imp_ray_hit *hit, void *user)
{
	ray_buffer *b = user;
	if (b->count == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		imp_ray_hit *d = PyMem_RawRealloc(b->data, cap * sizeof *d);
		if (!d) {
			b->failed = true;
			return false;
		}
		b->data = d;
		b->cap = cap;
	}
	b->data[b->count++] = *hit;
	return true;
}

static PyObject *World_ray_cast_all(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"start", "end", FILTER_NAMES, NULL};
	PyObject *a, *b;
	FILTER_VARS;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$" FILTER_FORMAT ":ray_cast_all", names, &a, &b, FILTER_ARGS))
		return NULL;
	imp_query_filter qf;
	if (read_query_filter(self, ignore_o, category_o, mask_o, group, &qf) < 0)
		return NULL;
	imp_vec2 s2 = {0.0, 0.0}, e2 = {0.0, 0.0};
	imp_vec3 s3 = {0.0, 0.0, 0.0}, e3 = {0.0, 0.0, 0.0};
	if (self->dim == 2) {
		if (read_vec2(a, &s2, "start") < 0 || read_vec2(b, &e2, "end") < 0)
			return NULL;
	} else {
		if (read_vec3(a, &s3, "start") < 0 || read_vec3(b, &e3, "end") < 0)
			return NULL;
	}
	imp_world *w = world_live(self); // after the conversions, which may close it
	if (!w)
		return NULL;
	ray_buffer rb = {0};
	imp_status st = self->dim == 2 ? imp_world_ray_cast_all2(w, s2, e2, &qf, ray_to_buffer, &rb)
				       : imp_world_ray_cast_all3(w, s3, e3, &qf, ray_to_buffer, &rb);
	PyObject *list = NULL;
	if (st != IMP_OK) {
		raise_status(st, st == IMP_ERR_BAD_ID ? "ignore" : "start, end");
	} else if (rb.failed) {
		PyErr_NoMemory();
	} else if ((list = PyList_New((Py_ssize_t)rb.count)) != NULL) {
		for (size_t i = 0; i < rb.count; i++) {
			PyObject *h = ray_hit_object(&rb.data[i], self->dim);
			if (!h) {
				Py_CLEAR(list);
				break;
			}
			PyList_SET_ITEM(list, (Py_ssize_t)i, h);
		}
	}
	PyMem_RawFree(rb.data);
	return list;
}

static PyObject *World_set_target_pose(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	return world_body_pose_call(self, args, nargs, "set_target_pose", imp_body_set_target_pose2,
				    imp_body_set_target_pose3);
}

static PyObject *World_get_filter(WorldObject *self, PyObject *arg)
{
	imp_body_id id;
	if (world_id_arg(self, arg, &id, "id") < 0)
		return NULL;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	imp_filter f;
	imp_status st = imp_body_get_filter(w, id, &f);
	if (st != IMP_OK)
		return raise_status(st, "id");
	return Py_BuildValue("(KKi)", (unsigned long long)f.category, (unsigned long long)f.mask, (int)f.group);
}

static PyObject *World_set_filter(WorldObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = {"id", "category", "mask", "group", NULL};
	PyObject *io, *cat = NULL, *mask = NULL, *group_o = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOO:set_filter", names, &io, &cat, &mask, &group_o))
		return NULL;
	imp_body_id id;
	if (world_id_arg(self, io, &id, "id") < 0)
		return NULL;
	uint64_t category = 0, mask_bits = 0;
	long group = 0;
	if (read_bits(cat, &category, "category") < 0 || read_bits(mask, &mask_bits, "mask") < 0)
		return NULL;
	if (group_o) {
		if (PyBool_Check(group_o) || !PyIndex_Check(group_o)) {
			PyErr_Format(PyExc_TypeError, "group: expected an int, got %s", Py_TYPE(group_o)->tp_name);
			return NULL;
		}
		group = PyLong_AsLong(group_o);
		if (group == -1 && PyErr_Occurred())
			return NULL;
		if (group < INT32_MIN || group > INT32_MAX) {
			PyErr_SetString(PyExc_ValueError, "group: expected an int in -2**31 .. 2**31 - 1");
			return NULL;
		}
	}
	// The fields not given keep the body's: read after every conversion
	// (which may close the world).
	imp_world *w = world_mutable(self, "set_filter");
	if (!w)
		return NULL;
	imp_filter f;
	imp_status st = imp_body_get_filter(w, id, &f);
	if (st != IMP_OK)
		return raise_status(st, "id");
	if (cat)
		f.category = category;
	if (mask)
		f.mask = mask_bits;
	if (group_o)
		f.group = (int32_t)group;
	st = imp_body_set_filter(w, id, f);
	if (st != IMP_OK)
		return raise_status(st, st == IMP_ERR_BAD_ID ? "id" : "set_filter");
	Py_RETURN_NONE;
}

static PyObject *World_set_user(WorldObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	if (nargs != 2) {
		PyErr_Format(PyExc_TypeError, "set_user() takes 2 positional arguments (id, user), got %zd", nargs);
		return NULL;
	}
	uint64_t v;
	if (read_id(args[0], &v, "id") < 0)
		return NULL;
	PyObject *key = PyLong_FromUnsignedLongLong(v);
	if (!key)
		return NULL;
	if (!world_live(self)) { // after read_id, whose __index__ may close the world
		Py_DECREF(key);
		return NULL;
	}
	PyObject *entry = PyDict_GetItemWithError(self->bodies, key);
	if (!entry) {
		Py_DECREF(key);
		if (!PyErr_Occurred())
			raise_status(IMP_ERR_BAD_ID, "id");
		return NULL;
	}
	PyObject *fresh = PyTuple_Pack(2, PyTuple_GET_ITEM(entry, 0), args[1]);
	if (!fresh) {
		Py_DECREF(key);
		return NULL;
	}
	// The old user object goes now (its finalizer may run).
	int rc = PyDict_SetItem(self->bodies, key, fresh);
	Py_DECREF(fresh);
	Py_DECREF(key);
	if (rc < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *World_get_aabb(WorldObject *self, PyObject *arg)
{
	imp_body_id id;
	if (world_id_arg(self, arg, &id, "id") < 0)
		return NULL;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	if (self->dim == 2) {
		imp_aabb2 b;
		imp_status st = imp_body_get_aabb2(w, id, &b);
		if (st != IMP_OK)
			return raise_status(st, "id");
		return Py_BuildValue("(NN)", vec_array(&b.lo.x, 2), vec_array(&b.hi.x, 2));
	}
	imp_aabb3 b;
	imp_status st = imp_body_get_aabb3(w, id, &b);
	if (st != IMP_OK)
		return raise_status(st, "id");
	return Py_BuildValue("(NN)", vec_array(&b.lo.x, 3), vec_array(&b.hi.x, 3));
}

static PyObject *World_body_type(WorldObject *self, PyObject *arg)
{
	imp_body_id id;
	if (world_id_arg(self, arg, &id, "id") < 0)
		return NULL;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	imp_body_type t;
	imp_status st = imp_body_get_type(w, id, &t);
	if (st != IMP_OK)
		return raise_status(st, "id");
	return PyUnicode_FromString(t == IMP_BODY_STATIC ? "static" : t == IMP_BODY_KINEMATIC ? "kinematic" : "dynamic");
}

static int World_contains(WorldObject *self, PyObject *o)
{
	if (PyBool_Check(o) || !PyIndex_Check(o))
		return 0;
	PyObject *n = PyNumber_Index(o);
	if (!n)
		return -1;
	unsigned long long v = PyLong_AsUnsignedLongLong(n);
	Py_DECREF(n);
	if (v == (unsigned long long)-1 && PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError))
			return -1;
		PyErr_Clear();
		return 0;
	}
	imp_world *w = world_live(self);
	if (!w)
		return -1;
	return imp_body_is_valid(w, id_unpack(self, (uint64_t)v));
}

// A dict from named int fields (the statistics).
static PyObject *stats_dict(const char *const *names, const long long *values, int n)
{
	PyObject *d = PyDict_New();
	if (!d)
		return NULL;
	for (int i = 0; i < n; i++) {
		PyObject *v = PyLong_FromLongLong(values[i]);
		if (!v || PyDict_SetItemString(d, names[i], v) < 0) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(v);
	}
	return d;
}

static PyObject *World_stats(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	imp_world_stats s = imp_world_get_stats(w);
	static const char *const names[] = {"bodies",	 "moved",	"broad_moves",	 "candidates", "box_tests",
					    "narrow_calls", "touching",	"begin_count",	 "end_count",  "broad_swaps",
					    "broad_cells",  "broad_tests", "settled"};
	const long long values[] = {s.bodies,	 s.moved,     s.broad_moves, s.candidates,  s.box_tests,
				    s.narrow_calls, s.touching,    s.begin_count, s.end_count,   s.broad_swaps,
				    s.broad_cells,  s.broad_tests, s.settled};
	_Static_assert(sizeof names / sizeof names[0] == sizeof values / sizeof values[0], "one name per field");
	return stats_dict(names, values, (int)(sizeof values / sizeof values[0]));
}

static PyObject *World_step_stats(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_live(self);
	if (!w)
		return NULL;
	imp_step_stats s = imp_world_get_step_stats(w);
	static const char *const names[] = {"moving",	  "candidates",	 "queued",  "queue_peak",
					    "narrow_calls", "heap_ops",	 "events",  "rescheduled",
					    "capped_pairs", "most_pair_calls", "broad_moves", "sweeps"};
	const long long values[] = {s.moving,	    s.candidates,	s.queued,      s.queue_peak,
				    s.narrow_calls, (long long)s.heap_ops, s.events,      s.rescheduled,
				    s.capped_pairs, s.most_pair_calls,	s.broad_moves, s.sweeps};
	_Static_assert(sizeof names / sizeof names[0] == sizeof values / sizeof values[0], "one name per field");
	PyObject *d = stats_dict(names, values, (int)(sizeof values / sizeof values[0]));
	if (!d)
		return NULL;
	PyObject *state = PyUnicode_FromString(s.state == IMP_STEP_COMPLETE ? "complete" : "pair capped");
	if (!state || PyDict_SetItemString(d, "state", state) < 0) {
		Py_XDECREF(state);
		Py_DECREF(d);
		return NULL;
	}
	Py_DECREF(state);
	return d;
}

static PyObject *World_state_hash(WorldObject *self, PyObject *unused)
{
	(void)unused;
	imp_world *w = world_live(self);
	return w ? PyLong_FromUnsignedLongLong(imp_world_state_hash(w)) : NULL;
}

#undef FILTER_NAMES
#undef FILTER_FORMAT
#undef FILTER_VARS
#undef FILTER_ARGS

#define WFAST(f) (PyCFunction)(void (*)(void))(f)
#define FILTER_SIG "ignore=None, category=1, mask=18446744073709551615, group=0"

static PyMethodDef World_methods[] = {
	{"close", (PyCFunction)World_close, METH_NOARGS,
	 "close($self, /)\n--\n\nDestroys the C world and releases the bodies' shapes and user objects. "
	 "Idempotent; a closed World refuses every call (ValueError)."},
	{"__enter__", (PyCFunction)World_enter, METH_NOARGS, "__enter__($self, /)\n--\n\nReturns self."},
	{"__exit__", (PyCFunction)World_exit, METH_VARARGS, "__exit__($self, *args)\n--\n\nCloses the world."},
	{"add_body", WFAST(World_add_body), METH_VARARGS | METH_KEYWORDS,
	 "add_body($self, /, shape, pose, type='dynamic', *, category=1, mask=18446744073709551615, group=0, user=None)\n--\n\n"
	 "Returns the new body's id (an int). type: 'dynamic', 'kinematic' or 'static'. The World keeps the shape and\n"
	 "the user object alive while the body exists."},
	{"remove_body", (PyCFunction)World_remove_body, METH_O,
	 "remove_body($self, id, /)\n--\n\nRemoves the body (its pairs end at the next update) and releases its shape and user object."},
	{"set_pose", WFAST(World_set_pose), METH_FASTCALL,
	 "set_pose($self, id, pose, /)\n--\n\nTeleports the body (the next update looks at it)."},
	{"get_pose", (PyCFunction)World_get_pose, METH_O,
	 "get_pose($self, id, /)\n--\n\nReturns the body's pose as a new array: (x, y, angle) or (x, y, z, qx, qy, qz, qw)."},
	{"set_poses", WFAST(World_set_poses), METH_FASTCALL,
	 "set_poses($self, ids, poses, /)\n--\n\nset_pose() over a 1-D sequence of ids and an (N, 3) / (N, 7) stack, in order, all or none\n"
	 "(imp_world_set_poses2/3). On a row refused, raises Error naming the first (.row); no row was applied."},
	{"get_poses", (PyCFunction)World_get_poses, METH_O,
	 "get_poses($self, ids, /)\n--\n\nReturns the bodies' poses as an (N, 3) / (N, 7) array, in the order of ids.\n"
	 "A stale id raises Error naming it (.row)."},
	{"set_velocities", WFAST(World_set_velocities), METH_FASTCALL,
	 "set_velocities($self, ids, linear, angular, /)\n--\n\nset_velocity() over N ids: linear (N, dim), angular (N,) in 2D\n"
	 "or (N, 3) in 3D, in order. On the first row refused, raises Error naming it (.row): the rows before it were\n"
	 "applied, it and the rest not."},
	{"get_velocities", (PyCFunction)World_get_velocities, METH_O,
	 "get_velocities($self, ids, /)\n--\n\nReturns (linear, angular) arrays: (N, dim), and (N,) in 2D or (N, 3) in 3D."},
	{"user", (PyCFunction)World_user, METH_O, "user($self, id, /)\n--\n\nReturns the body's user object."},
	{"shape", (PyCFunction)World_shape, METH_O, "shape($self, id, /)\n--\n\nReturns the body's Shape."},
	{"update", (PyCFunction)World_update, METH_NOARGS,
	 "update($self, /)\n--\n\nBrings the touching pairs and the begin/end events up to date with the poses."},
	{"touching_pairs", (PyCFunction)World_touching_pairs, METH_NOARGS,
	 "touching_pairs($self, /)\n--\n\nReturns the pairs touching at the last update as an (M, 2) uint64 array of ids "
	 "(each pair once, the lower slot first)."},
	{"events", (PyCFunction)World_events, METH_NOARGS,
	 "events($self, /)\n--\n\nReturns (begin, end): the pairs that began and ended touching at the last update, "
	 "each an (M, 2) uint64 array of ids. An ended pair of a removed body names the removed id."},
	{"set_velocity", WFAST(World_set_velocity), METH_FASTCALL,
	 "set_velocity($self, id, linear, angular, /)\n--\n\nThe body's motion for step(): linear velocity of its origin, "
	 "angular velocity (2D: a number; 3D: a vector). Allowed inside step()'s on_contact."},
	{"get_velocity", (PyCFunction)World_get_velocity, METH_O,
	 "get_velocity($self, id, /)\n--\n\nReturns (linear, angular)."},
	{"step", WFAST(World_step), METH_VARARGS | METH_KEYWORDS,
	 "step($self, /, dt, on_contact=None, *, tolerance=0.0, max_pair_calls=65536, resting_speed=0.0)\n--\n\n"
	 "Advances the world by dt (the time-of-impact step), calling on_contact(Contact) for each contact in time order.\n"
	 "An exception raised by on_contact propagates out of step(); the step itself cannot be stopped: it runs to its\n"
	 "end (the bodies at t + dt) without calling on_contact again."},
	{"contacts", (PyCFunction)World_contacts, METH_NOARGS,
	 "contacts($self, /)\n--\n\nReturns the contacts of the last step, a list of Contact in time order."},
	{"overlap_any", WFAST(World_overlap_any), METH_VARARGS | METH_KEYWORDS,
	 "overlap_any($self, /, shape, pose, *, " FILTER_SIG ")\n--\n\nReturns bool: does any body overlap the shape at the pose?"},
	{"nearest", WFAST(World_nearest), METH_VARARGS | METH_KEYWORDS,
	 "nearest($self, /, shape, pose, max_distance=math.inf, *, " FILTER_SIG ")\n--\n\n"
	 "Returns QueryResult: the body nearest to the shape (smallest signed distance) within max_distance\n"
	 "(default: no bound; id None and distance inf when none)."},
	{"overlap_shape", WFAST(World_overlap_shape), METH_VARARGS | METH_KEYWORDS,
	 "overlap_shape($self, /, shape, pose, *, " FILTER_SIG ")\n--\n\n"
	 "Returns the ids of every body overlapping the shape at the pose, a uint64 array in slot order."},
	{"distance", WFAST(World_distance), METH_FASTCALL,
	 "distance($self, id_a, id_b, /)\n--\n\nReturns QueryResult: the signed distance between two bodies "
	 "(id = id_b, point on a, body_point on b)."},
	{"cast_shape", WFAST(World_cast_shape), METH_VARARGS | METH_KEYWORDS,
	 "cast_shape($self, /, shape, pose_from, pose_to, *, " FILTER_SIG ", tolerance=0.0, max_iterations=4096)\n--\n\n"
	 "Returns CastHit: the first body the shape meets moving from pose_from to pose_to."},
	{"motion_free", WFAST(World_motion_free), METH_VARARGS | METH_KEYWORDS,
	 "motion_free($self, /, shape, pose_from, pose_to, *, " FILTER_SIG ")\n--\n\n"
	 "Returns bool: True exactly when cast_shape() would be 'free'."},
	{"ray_cast", WFAST(World_ray_cast), METH_VARARGS | METH_KEYWORDS,
	 "ray_cast($self, /, start, end, *, " FILTER_SIG ")\n--\n\nReturns RayHit: the first body the segment meets."},
	{"query_distance", WFAST(World_query_distance), METH_VARARGS | METH_KEYWORDS,
	 "query_distance($self, /, shape, pose, max_distance, *, " FILTER_SIG ")\n--\n\n"
	 "Returns a list of QueryResult: every body within max_distance (finite; negative: overlapping by at least\n"
	 "its magnitude) of the shape at the pose, nearest first (ties: slot order). GIL released."},
	{"clearance", (PyCFunction)World_clearance, METH_O,
	 "clearance($self, margin, /)\n--\n\n"
	 "Returns (pairs, distances, points_a, points_b, normals) arrays: every pair of bodies that may pair (filters,\n"
	 "not both static) at a signed distance <= margin, each once (a's slot below b's), ordered by a then b;\n"
	 "pairs is (M, 2) uint64. GIL released."},
	{"ray_cast_all", WFAST(World_ray_cast_all), METH_VARARGS | METH_KEYWORDS,
	 "ray_cast_all($self, /, start, end, *, " FILTER_SIG ")\n--\n\n"
	 "Returns a list of RayHit: every body the segment meets, in order of t (ties: slot order)."},
	{"set_target_pose", WFAST(World_set_target_pose), METH_FASTCALL,
	 "set_target_pose($self, id, pose, /)\n--\n\nThe pose a kinematic or dynamic body reaches at the end of the next "
	 "step() (its motion over the step: the velocity that gets it there)."},
	{"get_filter", (PyCFunction)World_get_filter, METH_O,
	 "get_filter($self, id, /)\n--\n\nReturns (category, mask, group)."},
	{"set_filter", WFAST(World_set_filter), METH_VARARGS | METH_KEYWORDS,
	 "set_filter($self, /, id, *, category=None, mask=None, group=None)\n--\n\n"
	 "Changes the body's filter; the fields not given keep their values. Pairs follow at the next update."},
	{"set_user", WFAST(World_set_user), METH_FASTCALL,
	 "set_user($self, id, user, /)\n--\n\nReplaces the body's user object (the old one is released)."},
	{"get_aabb", (PyCFunction)World_get_aabb, METH_O,
	 "get_aabb($self, id, /)\n--\n\nReturns (lo, hi): the body's exact bounding box at its pose."},
	{"body_type", (PyCFunction)World_body_type, METH_O,
	 "body_type($self, id, /)\n--\n\nReturns 'static', 'kinematic' or 'dynamic'."},
	{"stats", (PyCFunction)World_stats, METH_NOARGS,
	 "stats($self, /)\n--\n\nReturns a dict: what the last update did (imp_world_stats)."},
	{"step_stats", (PyCFunction)World_step_stats, METH_NOARGS,
	 "step_stats($self, /)\n--\n\nReturns a dict: what the last step did (imp_step_stats; 'state': "
	 "'complete' or 'pair capped')."},
	{"state_hash", (PyCFunction)World_state_hash, METH_NOARGS,
	 "state_hash($self, /)\n--\n\nReturns a 64-bit hash of the world's state (bodies, clock, touching pairs); "
	 "equal scenes hash equal across runs."},
	{"overlap_any_batch", WFAST(World_overlap_any_batch), METH_VARARGS | METH_KEYWORDS,
	 "overlap_any_batch($self, /, shape, poses, *, " FILTER_SIG ")\n--\n\n"
	 "Returns a bool array: overlap_any() over an (N, 3) / (N, 7) stack of poses. GIL released."},
	{"nearest_batch", WFAST(World_nearest_batch), METH_VARARGS | METH_KEYWORDS,
	 "nearest_batch($self, /, shape, poses, max_distance=math.inf, *, " FILTER_SIG ")\n--\n\n"
	 "Returns (ids, distances, points, body_points, normals) arrays: nearest() over a stack of poses\n"
	 "(id 0 and distance inf where none). GIL released."},
	{NULL, NULL, 0, NULL},
};

#undef WFAST
#undef FILTER_SIG

static PyGetSetDef World_getset[] = {
	{"dim", (getter)World_get_dim, NULL, "2 or 3.", NULL},
	{"body_count", (getter)World_get_body_count, NULL, "The number of bodies.", NULL},
	{"time", (getter)World_get_time, NULL, "The world's clock: the sum of the steps' dt.", NULL},
	{"closed", (getter)World_get_closed, NULL, "True once close() ran.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods World_as_sequence = {
	.sq_contains = (objobjproc)World_contains,
};

static PyTypeObject World_Type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "impact_collision.World",
	.tp_basicsize = sizeof(WorldObject),
	.tp_dealloc = (destructor)World_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "World(dim=3, *, broad_phase='hash', margin=0.0, fat_ratio=0.1, narrow_phase=True, workers=1)\n--\n\n"
		  "A world of bodies (imp_world): keyword options over imp_default_world_def(). A context manager;\n"
		  "close() (or the object's end) destroys the C world.",
	.tp_traverse = (traverseproc)World_traverse,
	.tp_clear = (inquiry)World_clear,
	.tp_methods = World_methods,
	.tp_getset = World_getset,
	.tp_as_sequence = &World_as_sequence,
	.tp_new = World_new,
};

// ---------------------------------------------------------------------------
// The C side of bench/python/bench_python.py's pairwise rows: times the plain C loop over the same
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
	{"compound2", KWCALL(make_compound2), METH_VARARGS | METH_KEYWORDS,
	 "compound2($module, /, children, poses)\n--\n\nReturns Shape. A non-convex 2D shape: convex 2D shapes (a sequence), "
	 "each at its pose (an (N, 3) array).\nThe compound holds its children while it exists."},
	{"compound3", KWCALL(make_compound3), METH_VARARGS | METH_KEYWORDS,
	 "compound3($module, /, children, poses)\n--\n\nReturns Shape. A non-convex 3D shape: convex 3D shapes (a sequence), "
	 "each at its pose (an (N, 7) array).\nThe compound holds its children while it exists."},
	{"mesh", KWCALL(make_mesh), METH_VARARGS | METH_KEYWORDS,
	 "mesh($module, /, vertices, triangles, radius=0.0)\n--\n\nReturns Shape. A triangle mesh (a surface): (V, 3) "
	 "vertices, (T, 3) integer vertex indices, rounded by radius."},
	{"heightfield", KWCALL(make_heightfield), METH_VARARGS | METH_KEYWORDS,
	 "heightfield($module, /, heights, dx, dy, base_z, radius=0.0)\n--\n\nReturns Shape. A (rows, cols) grid of "
	 "heights, heights[r, c] at (c dx, r dy), solid down to base_z."},
	{"chain", KWCALL(make_chain), METH_VARARGS | METH_KEYWORDS,
	 "chain($module, /, points, loop=False, radius=0.0)\n--\n\nReturns Shape. A 2D polyline through (N, 2) points "
	 "(closed when loop), rounded by radius."},
	{"mesh_from_file", KWCALL(make_mesh_from_file), METH_VARARGS | METH_KEYWORDS,
	 "mesh_from_file($module, /, path, radius=0.0)\n--\n\nReturns Shape. A mesh read from an OBJ (by the name), binary "
	 "or ASCII STL file; a parse error's Error has .line."},
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
	{"closest_batch", FASTCALL(py_closest_batch), METH_FASTCALL,
	 "closest_batch($module, a, poses_a, b, poses_b, /)\n--\n\nReturns ClosestBatchResult (distance, point_a, point_b, "
	 "normal; child_a, child_b by name).\nclosest() over stacks of poses ((N, 3) or (N, 7)); a single pose is used for "
	 "every row. GIL released."},
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
	lazy_fill_getset(closest_getset, closest_fields, sizeof closest_fields / sizeof closest_fields[0]);
	lazy_fill_getset(query_getset, query_fields, sizeof query_fields / sizeof query_fields[0]);
	if (PyType_Ready(&World_Type) < 0 || PyType_Ready(&QueryResult_Type) < 0 ||
	    PyType_Ready(&ClosestResult_Type) < 0)
		return NULL;
	if (	    PyStructSequence_InitType2(&TimeOfImpactResult_Type, &toi_desc) < 0 ||
	    PyStructSequence_InitType2(&ClosestBatchResult_Type, &closest_batch_desc) < 0 ||
	    PyStructSequence_InitType2(&CastHit_Type, &cast_hit_desc) < 0 ||
	    PyStructSequence_InitType2(&RayHit_Type, &ray_hit_desc) < 0 ||
	    PyStructSequence_InitType2(&Contact_Type, &contact_desc) < 0)
		return NULL;

	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	Error = PyErr_NewExceptionWithDoc(
		"impact_collision.Error",
		"An imp_status error of the C library. Attributes: status (int), status_name (e.g. 'IMP_ERR_NOT_FINITE'), "
		"status_text (imp_status_string), row (the row of a batch or of World.set_poses the error is about, else None), "
		"line (the line of a mesh file that did not parse, else None).",
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
	Py_INCREF(&ClosestBatchResult_Type);
	if (PyModule_AddObject(m, "ClosestBatchResult", (PyObject *)&ClosestBatchResult_Type) < 0) {
		Py_DECREF(&ClosestBatchResult_Type);
		goto fail;
	}
	static const struct {
		const char *name;
		PyTypeObject *type;
	} world_types[] = {
		{"World", &World_Type},
		{"QueryResult", &QueryResult_Type},
		{"CastHit", &CastHit_Type},
		{"RayHit", &RayHit_Type},
		{"Contact", &Contact_Type},
	};
	for (size_t i = 0; i < sizeof world_types / sizeof world_types[0]; i++) {
		Py_INCREF(world_types[i].type);
		if (PyModule_AddObject(m, world_types[i].name, (PyObject *)world_types[i].type) < 0) {
			Py_DECREF(world_types[i].type);
			goto fail;
		}
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
