# SPDX-License-Identifier: MIT
"""Every constructor, the attributes read back, constructor errors."""
import math

import numpy as np
import pytest

import impact_collision as ic
from conftest import regular_polygon


def test_polygon_hull_and_vertices(rng):
    pts = regular_polygon(8)
    inner = 0.3 * rng.uniform(-1, 1, size=(20, 2))  # inside the hull: dropped
    s = ic.polygon(np.vstack([inner, pts[::-1]]), 0.25)
    assert s.dim == 2 and s.kind == "polygon" and s.radius == 0.25
    assert s.vertex_count == 8
    v = s.vertices
    assert v.shape == (8, 2) and v.dtype == np.float64
    # The hull's vertices are input points, counter-clockwise.
    assert sorted(map(tuple, v)) == sorted(map(tuple, pts))
    area2 = np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1])
    assert area2 > 0
    assert s.edges is None and s.faces is None
    assert "polygon" in repr(s)


def test_polygon_accepts_lists_ints_float32_and_views():
    sq = [[0, 0], [1, 0], [1, 1], [0, 1]]
    assert ic.polygon(sq).vertex_count == 4
    assert ic.polygon(np.array(sq, dtype=np.int32)).vertex_count == 4
    assert ic.polygon(np.array(sq, dtype=np.float32)).vertex_count == 4
    big = np.zeros((4, 5))
    big[:, 1:3] = sq
    view = big[:, 1:3]  # not contiguous: copied
    assert not view.flags.c_contiguous
    assert ic.polygon(view).vertex_count == 4


def test_2d_primitives():
    c = ic.circle(0.5, center=(1.0, 2.0))
    assert c.dim == 2 and c.radius == 0.5 and c.vertex_count == 1
    np.testing.assert_array_equal(c.vertices, [[1.0, 2.0]])
    cap = ic.capsule2((0, 0), (2, 0), 0.1)
    assert cap.radius == 0.1 and cap.vertex_count == 2
    seg = ic.segment2((0, 0), [0, 3])
    assert seg.radius == 0.0 and seg.vertex_count == 2
    b = ic.box2(1.0, 0.5, radius=0.05)
    assert b.vertex_count == 4 and b.radius == 0.05
    assert sorted(map(tuple, b.vertices)) == [(-1, -0.5), (-1, 0.5), (1, -0.5), (1, 0.5)]


def test_3d_primitives():
    cube = ic.box3(1, 2, 3)
    assert cube.dim == 3 and cube.kind == "box3"
    v = cube.vertices
    assert v.shape == (8, 3)
    assert sorted(map(tuple, np.abs(v))) == [(1.0, 2.0, 3.0)] * 8
    assert cube.edges.shape == (12, 2) and cube.edges.dtype == np.int32
    faces = cube.faces
    assert len(faces) == 6 and all(len(f) == 4 for f in faces)
    # Each face's vertices share one coordinate of the same sign.
    for f in faces:
        pts = v[f]
        assert any(np.all(pts[:, k] == pts[0, k]) for k in range(3))
    for shape, kind in [
        (ic.sphere(0.5), "sphere"),
        (ic.sphere(0.5, center=(1, 2, 3)), "sphere"),
        (ic.capsule3((0, 0, 0), (0, 0, 1), 0.2), "capsule3"),
        (ic.cylinder(1.0, 0.5), "cylinder"),
        (ic.cone(1.0, 0.5, radius=0.1), "cone"),
        (ic.ellipsoid(1.0, 2.0, 3.0), "ellipsoid"),
    ]:
        assert shape.dim == 3 and shape.kind == kind
        assert shape.vertices.shape[1] == 3


def test_polytope(rng):
    pts = rng.normal(size=(200, 3))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    s = ic.polytope(pts, radius=0.1)
    assert s.dim == 3 and s.kind == "polytope" and s.radius == 0.1
    v = s.vertices
    # Points on the sphere are all strict corners: the hull keeps them all.
    assert v.shape == (200, 3)
    assert sorted(map(tuple, v)) == sorted(map(tuple, pts))
    # Euler: V - E + F = 2 with F faces that may be merged polygons.
    assert s.vertex_count - len(s.edges) + len(s.faces) == 2
    # Faces are counter-clockwise from outside: their normals point away from the centre.
    for f in s.faces:
        p = v[f]
        n = np.cross(p[1] - p[0], p[2] - p[0])
        assert np.dot(n, p.mean(axis=0)) > 0


def test_shape_cannot_be_made_directly():
    with pytest.raises(TypeError):
        ic.Shape()


@pytest.mark.parametrize(
    "make, status",
    [
        (lambda: ic.circle(-1.0), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.circle(0.0), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.circle(float("nan")), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.circle(1.0, center=(float("nan"), 0)), "IMP_ERR_NOT_FINITE"),
        (lambda: ic.circle(1e200), "IMP_ERR_OUT_OF_RANGE"),
        (lambda: ic.polygon(np.zeros((0, 2))), "IMP_ERR_BAD_COUNT"),
        (lambda: ic.polygon([[0, 0], [1, float("inf")]]), "IMP_ERR_NOT_FINITE"),
        (lambda: ic.polygon([[0, 0], [1, 0]], radius=-1), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.box2(0, 1), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.capsule2((0, 0), (1, 0), 0), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.segment2((0, 0), (float("nan"), 0)), "IMP_ERR_NOT_FINITE"),
        (lambda: ic.polytope(np.zeros((0, 3))), "IMP_ERR_BAD_COUNT"),
        (lambda: ic.sphere(0), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.capsule3((0, 0, 0), (0, 0, 1), -0.5), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.box3(1, 1, -1), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.cylinder(1, 0), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.cone(float("inf"), 1), "IMP_ERR_BAD_RADIUS"),
        (lambda: ic.ellipsoid(1, 1, 1e-200), "IMP_ERR_OUT_OF_RANGE"),
        (lambda: ic.ellipsoid(1e13, 1, 1), "IMP_ERR_OUT_OF_RANGE"),  # aspect beyond 2^40
    ],
)
def test_constructor_statuses(make, status):
    with pytest.raises(ic.Error) as e:
        make()
    assert e.value.status_name == status
    assert ic.STATUS_NAMES[e.value.status] == status
    assert getattr(ic, status) == e.value.status
    assert status in str(e.value)
    assert e.value.status_text in str(e.value)
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize(
    "make, exc, words",
    [
        (lambda: ic.polygon([1.0, 2.0]), ValueError, "(N, 2)"),
        (lambda: ic.polygon(np.zeros((4, 3))), ValueError, "(N, 2)"),
        (lambda: ic.polytope(np.zeros((4, 2))), ValueError, "(N, 3)"),
        (lambda: ic.polygon(np.zeros((4, 2), dtype=np.complex128)), TypeError, "float64"),
        (lambda: ic.polygon(np.zeros((4, 2), dtype=np.longdouble)), TypeError, "float64"),
        (lambda: ic.polygon([["a", "b"]]), (TypeError, ValueError), "points"),
        (lambda: ic.circle(1.0, center=(0, 0, 0)), ValueError, "center"),
        (lambda: ic.circle(1.0, center=("x", 0)), TypeError, "center"),
        (lambda: ic.circle("1"), TypeError, ""),
        (lambda: ic.sphere(1.0, center=(1j, 0, 0)), TypeError, "center"),
        (lambda: ic.capsule3((0, 0), (0, 0, 1), 0.5), ValueError, "p0"),
    ],
)
def test_constructor_bad_arrays(make, exc, words):
    with pytest.raises(exc) as e:
        make()
    assert words in str(e.value)


def test_keywords():
    assert ic.polygon(points=[[0, 0], [1, 0], [0, 1]], radius=0.1).radius == 0.1
    assert ic.circle(radius=1.0, center=(1, 1)).radius == 1.0
    assert ic.capsule2(p0=(0, 0), p1=(1, 0), radius=0.5).kind == "polygon"
    assert ic.segment2(p0=(0, 0), p1=(1, 0)).radius == 0.0
    assert ic.box2(hx=1, hy=2, radius=0.1).radius == 0.1
    assert ic.polytope(points=np.eye(3), radius=0.1).dim == 3
    assert ic.sphere(radius=1.0, center=(0, 0, 1)).radius == 1.0
    assert ic.capsule3(p0=(0, 0, 0), p1=(0, 0, 1), radius=0.2).radius == 0.2
    assert ic.box3(hx=1, hy=1, hz=1, radius=0.0).kind == "box3"
    assert ic.cylinder(half_height=1, cylinder_radius=0.5, radius=0.1).radius == 0.1
    assert ic.cone(half_height=1, base_radius=0.5, radius=0.1).radius == 0.1
    assert ic.ellipsoid(rx=1, ry=2, rz=3, radius=0.1).radius == 0.1


@pytest.mark.parametrize("make", [
    lambda: ic.circle(0.7),
    lambda: ic.capsule2((-1.0, 0.2), (1.5, -0.3), 0.4),
    lambda: ic.box2(1.0, 0.5, 0.2),
    lambda: ic.polygon([[0, 0], [2, 0], [2.5, 1], [0.5, 1.5]], 0.3),
    lambda: ic.polygon([[0, 0], [2, 0], [2.5, 1], [0.5, 1.5]]),
])
def test_outline_points_on_the_boundary(make):
    """outline() for drawing: every point on the shape's boundary (its
    distance to the shape, by the library, is 0), counter-clockwise, and
    the polygon's area close to the shape's (analytic for the circle)."""
    shape = make()
    pose = (0.3, -1.2, 0.8)
    pts = ic.outline(shape, pose, arc_points=64)
    point = ic.polygon([[0.0, 0.0]])  # a point
    for p in pts:
        assert ic.distance(shape, pose, point, (p[0], p[1], 0.0)) < 1e-9
        # just inside, the point overlaps
        centre = np.mean(pts, axis=0)
        q = p + 1e-6 * (centre - p) / np.linalg.norm(centre - p)
        assert ic.overlap(shape, pose, point, (q[0], q[1], 0.0))
    x, y = pts[:, 0], pts[:, 1]
    area = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    assert area > 0  # counter-clockwise
    if shape.vertex_count == 1:
        assert area == pytest.approx(math.pi * 0.7**2, rel=2e-3)


def test_outline_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError):
        ic.outline(ic.sphere(1.0), (0, 0, 0))
    with pytest.raises(TypeError):
        ic.outline("circle", (0, 0, 0))
    with pytest.raises(ValueError):
        ic.outline(ic.circle(1.0), (0, 0, 0), arc_points=1)
