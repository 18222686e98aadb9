# SPDX-License-Identifier: MIT
"""The queries against answers found without the C library: closed forms,
and brute force over vertex and edge pairs in numpy."""
import numpy as np
import pytest

import impact_collision as ic
from conftest import quat_matrix, random_poses2, random_poses3, random_quats, regular_polygon, rot2


def point_segment(p, a, b):
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t * ab))


def segments_intersect(p, q, r, s):
    def orient(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    return orient(p, q, r) != orient(p, q, s) and orient(r, s, p) != orient(r, s, q)


def inside_convex(p, poly):
    """p strictly inside the counter-clockwise convex polygon poly."""
    e = np.roll(poly, -1, axis=0) - poly
    w = p - poly
    return np.all(e[:, 0] * w[:, 1] - e[:, 1] * w[:, 0] > 0)


def polygon_distance(P, Q):
    """Distance between two convex polygons (counter-clockwise), 0 when they overlap: brute force."""
    n, m = len(P), len(Q)
    for i in range(n):
        for j in range(m):
            if segments_intersect(P[i], P[(i + 1) % n], Q[j], Q[(j + 1) % m]):
                return 0.0
    if inside_convex(P[0], Q) or inside_convex(Q[0], P):
        return 0.0
    d = np.inf
    for i in range(n):
        for j in range(m):
            d = min(d, point_segment(P[i], Q[j], Q[(j + 1) % m]), point_segment(Q[j], P[i], P[(i + 1) % n]))
    return d


def place2(points, pose):
    return points @ rot2(pose[2]).T + pose[:2]


def test_circles_closed_form(rng):
    for _ in range(200):
        ra, rb = rng.uniform(0.1, 2.0, 2)
        pa, pb = random_poses2(rng, 2)
        a, b = ic.circle(ra), ic.circle(rb)
        gap = np.linalg.norm(pa[:2] - pb[:2]) - ra - rb
        assert ic.distance(a, pa, b, pb) == pytest.approx(max(gap, 0.0), abs=1e-12)
        assert ic.overlap(a, pa, b, pb) == (gap <= 0)
        r = ic.closest(a, pa, b, pb)
        assert r.distance == pytest.approx(gap, abs=1e-12)
        u = (pb[:2] - pa[:2]) / np.linalg.norm(pb[:2] - pa[:2])
        np.testing.assert_allclose(r.normal, u, atol=1e-12)
        np.testing.assert_allclose(r.point_a, pa[:2] + ra * u, atol=1e-12)
        np.testing.assert_allclose(r.point_b, pb[:2] - rb * u, atol=1e-12)


def test_spheres_closed_form(rng):
    for _ in range(200):
        ra, rb = rng.uniform(0.1, 2.0, 2)
        pa, pb = random_poses3(rng, 2)
        ca, cb = rng.normal(size=(2, 3)) * 0.5
        a, b = ic.sphere(ra, center=ca), ic.sphere(rb, center=cb)
        wa = pa[:3] + quat_matrix(pa[3:]) @ ca
        wb = pb[:3] + quat_matrix(pb[3:]) @ cb
        gap = np.linalg.norm(wa - wb) - ra - rb
        assert ic.distance(a, pa, b, pb) == pytest.approx(max(gap, 0.0), abs=1e-12)
        assert ic.overlap(a, pa, b, pb) == (gap <= 0)
        r = ic.closest(a, pa, b, pb)
        assert r.distance == pytest.approx(gap, abs=1e-12)
        np.testing.assert_allclose(r.normal, (wb - wa) / np.linalg.norm(wb - wa), atol=1e-12)


def test_polygons_brute_force(rng):
    count = 0
    for _ in range(150):
        na, nb = rng.integers(3, 12, 2)
        A = regular_polygon(na, rng.uniform(0.3, 1.5), rng.uniform(0, 1))
        B = regular_polygon(nb, rng.uniform(0.3, 1.5), rng.uniform(0, 1))
        ra, rb = rng.choice([0.0, 0.0, 0.1]), rng.choice([0.0, 0.2])
        a, b = ic.polygon(A, ra), ic.polygon(B, rb)
        pa, pb = random_poses2(rng, 2, spread=1.5)
        d_core = polygon_distance(place2(A, pa), place2(B, pb))
        expect = max(d_core - ra - rb, 0.0)
        d = ic.distance(a, pa, b, pb)
        assert d == pytest.approx(expect, abs=1e-9)
        if abs(d_core - ra - rb) > 1e-9:
            assert ic.overlap(a, pa, b, pb) == (d_core - ra - rb < 0)
        r = ic.closest(a, pa, b, pb)
        if expect > 0:
            count += 1
            assert r.distance == pytest.approx(expect, abs=1e-9)
            assert r.state == "separated"
            # The witnesses lie on the shapes and are the distance apart along the normal.
            assert np.linalg.norm(r.normal) == pytest.approx(1.0, abs=1e-12)
            assert np.dot(r.normal, r.point_b - r.point_a) == pytest.approx(r.distance, abs=1e-9)
            assert r.feature_a[0] in ("vertex", "edge") and r.feature_b[0] in ("vertex", "edge")
            assert 0 <= r.feature_a[1] < na and 0 <= r.feature_b[1] < nb
        else:
            assert r.distance <= 1e-9
    assert count > 30


def test_2d_angle_turns_counter_clockwise():
    bar = ic.box2(1.0, 0.1)
    disc = ic.circle(0.5)
    # The bar turned a quarter turn lies along y: the disc above it is 2 - 1 - 0.5 away.
    assert ic.distance(bar, (0, 0, np.pi / 2), disc, (0, 2, 0)) == pytest.approx(0.5, abs=1e-12)
    assert ic.distance(bar, (0, 0, 0), disc, (0, 2, 0)) == pytest.approx(1.4, abs=1e-12)


def test_quaternion_order_is_xyzw():
    bar = ic.box3(1.0, 0.1, 0.1)
    ball = ic.sphere(0.5)
    s = np.sqrt(0.5)
    about_z = (0, 0, 0, 0, 0, s, s)  # (x, y, z, qx, qy, qz, qw): a quarter turn about z
    assert ic.distance(bar, about_z, ball, (0, 2, 0, 0, 0, 0, 1)) == pytest.approx(0.5, abs=1e-12)
    identity = (0, 0, 0, 0, 0, 0, 1)
    assert ic.distance(bar, identity, ball, (0, 2, 0, 0, 0, 0, 1)) == pytest.approx(1.4, abs=1e-12)


def box_point_distance(half, p):
    q = np.abs(p) - half
    return np.linalg.norm(np.maximum(q, 0.0)) + min(np.max(q), 0.0)


def test_sphere_box_closed_form(rng):
    for _ in range(200):
        half = rng.uniform(0.2, 1.5, 3)
        rb = rng.choice([0.0, 0.1])
        rs = rng.uniform(0.1, 0.8)
        box, ball = ic.box3(*half, radius=rb), ic.sphere(rs)
        pb, ps = random_poses3(rng, 2)
        local = quat_matrix(pb[3:]).T @ (ps[:3] - pb[:3])
        expect = box_point_distance(half, local) - rb - rs
        d = ic.distance(box, pb, ball, ps)
        assert d == pytest.approx(max(expect, 0.0), abs=1e-9)
        if expect > 0:
            assert ic.closest(box, pb, ball, ps).distance == pytest.approx(expect, abs=1e-9)


def test_box3_against_polytope_of_its_corners(rng):
    """Two paths of the C library: boxes by the separating-axis test, polytopes by GJK."""
    for _ in range(100):
        ha, hb = rng.uniform(0.2, 1.0, (2, 3))
        a, b = ic.box3(*ha), ic.box3(*hb)
        pa_ = ic.polytope(a.vertices)
        pb_ = ic.polytope(b.vertices)
        qa, qb = random_poses3(rng, 2, spread=1.5)
        d1 = ic.distance(a, qa, b, qb)
        d2 = ic.distance(pa_, qa, pb_, qb)
        assert d1 == pytest.approx(d2, abs=1e-9)
        assert ic.overlap(a, qa, b, qb) == ic.overlap(pa_, qa, pb_, qb) or abs(d1) < 1e-9


def test_capsules_closed_form(rng):
    for _ in range(100):
        p0, p1 = rng.normal(size=(2, 2))
        r = rng.uniform(0.05, 0.5)
        cap = ic.capsule2(p0, p1, r)
        seg = ic.segment2(p0, p1)
        c = rng.normal(size=2) * 2
        rc = rng.uniform(0.05, 0.5)
        disc = ic.circle(rc, center=c)
        expect = point_segment(c, p0, p1) - r - rc
        zero = (0, 0, 0)
        assert ic.distance(cap, zero, disc, zero) == pytest.approx(max(expect, 0), abs=1e-9)
        assert ic.distance(seg, zero, disc, zero) == pytest.approx(max(expect + r, 0), abs=1e-9)
        q0, q1 = rng.normal(size=(2, 3))
        cap3 = ic.capsule3(q0, q1, r)
        c3 = rng.normal(size=3) * 2
        expect3 = point_segment(c3, q0, q1) - r - rc
        ident = (0, 0, 0, 0, 0, 0, 1)
        assert ic.distance(cap3, ident, ic.sphere(rc, center=c3), ident) == pytest.approx(max(expect3, 0), abs=1e-9)


def test_cylinder_cone_ellipsoid_closed_form(rng):
    ident = np.array([0, 0, 0, 0, 0, 0, 1.0])
    for _ in range(50):
        h, R = rng.uniform(0.3, 1.5, 2)
        rs = rng.uniform(0.05, 0.3)
        ball = ic.sphere(rs)
        c = rng.normal(size=3) * 2
        radial = np.hypot(c[0], c[1])
        dr, dz = radial - R, abs(c[2]) - h
        if dr <= 0 and dz <= 0:
            continue
        expect = np.hypot(max(dr, 0), max(dz, 0)) - rs
        p = np.concatenate([c, [0, 0, 0, 1]])
        assert ic.distance(ic.cylinder(h, R), ident, ball, p) == pytest.approx(max(expect, 0), abs=1e-8)
        # A cone seen from its axis: the apex above, the base disc below.
        cone = ic.cone(h, R)
        up = rng.uniform(0.5, 2)
        assert ic.distance(cone, ident, ball, (0, 0, h + up, 0, 0, 0, 1)) == pytest.approx(up - rs, abs=1e-8)
        assert ic.distance(cone, ident, ball, (0, 0, -h - up, 0, 0, 0, 1)) == pytest.approx(up - rs, abs=1e-8)
        # An ellipsoid seen from along an axis: its vertex on that axis is the closest point.
        axes = rng.uniform(0.3, 1.5, 3)
        ell = ic.ellipsoid(*axes)
        k = rng.integers(3)
        pos = np.zeros(3)
        pos[k] = axes[k] + up
        q = random_quats(rng, 1)[0]
        pe = np.concatenate([rng.normal(size=3), q])
        world = pe[:3] + quat_matrix(q) @ pos
        got = ic.distance(ell, pe, ball, np.concatenate([world, [0, 0, 0, 1]]))
        assert got == pytest.approx(up - rs, abs=1e-8)


def test_polygon_against_polytope_prism(rng):
    """A 2D pair and the 3D prisms over it are as far apart (poses turning about z)."""
    for _ in range(60):
        A = regular_polygon(rng.integers(3, 9), rng.uniform(0.3, 1.0), rng.uniform(0, 1))
        B = regular_polygon(rng.integers(3, 9), rng.uniform(0.3, 1.0), rng.uniform(0, 1))
        pa, pb = random_poses2(rng, 2, spread=1.5)
        d2 = ic.distance(ic.polygon(A), pa, ic.polygon(B), pb)

        def prism(P):
            return ic.polytope(np.vstack([np.column_stack([P, -np.ones(len(P))]), np.column_stack([P, np.ones(len(P))])]))

        def pose3(p):
            return (p[0], p[1], 0.0, 0.0, 0.0, np.sin(p[2] / 2), np.cos(p[2] / 2))

        d3 = ic.distance(prism(A), pose3(pa), prism(B), pose3(pb))
        assert d2 == pytest.approx(d3, abs=1e-9)


def test_time_of_impact_closed_form():
    a, b = ic.circle(1.0), ic.circle(0.5)
    r = ic.time_of_impact(a, ((0, 0, 0), (0, 0), 0.0), b, ((10, 0, 0), (-2, 0), 0.0), 10.0)
    assert r.state == "hit"
    assert r.t <= 4.25 and r.t == pytest.approx(4.25, abs=1e-5)
    np.testing.assert_allclose(r.normal, [1, 0], atol=1e-9)
    # The flat form of a motion: (x, y, angle, vx, vy, w).
    flat = ic.time_of_impact(a, np.zeros(6), b, np.array([10, 0, 0, -2, 0, 0.0]), 10.0)
    assert flat.t == r.t
    miss = ic.time_of_impact(a, np.zeros(6), b, np.array([10, 0, 0, -2, 0, 0.0]), 1.0)
    assert miss.state == "separated" and miss.t == 1.0
    touching = ic.time_of_impact(a, np.zeros(6), b, np.array([1.2, 0, 0, 1, 0, 0.0]), 1.0)
    assert touching.state == "overlapped" and touching.t == 0.0

    s1, s2 = ic.sphere(0.5), ic.sphere(0.5)
    m1 = ((0, 0, 0, 0, 0, 0, 1), (1, 0, 0), (0, 0, 3.0))
    m2 = ((5, 0, 0, 0, 0, 0, 1), (-1, 0, 0), (0, 0, 0))
    r3 = ic.time_of_impact(s1, m1, s2, m2, 5.0, tolerance=1e-9)
    assert r3.state == "hit" and r3.t == pytest.approx(2.0, abs=1e-8) and r3.t <= 2.0
    assert r3.point_a.shape == (3,)
    flat3 = ic.time_of_impact(s1, np.concatenate(m1), s2, np.concatenate(m2), 5.0, tolerance=1e-9)
    assert flat3.t == r3.t


def test_time_of_impact_errors():
    a, b = ic.circle(1.0), ic.circle(0.5)
    with pytest.raises(ic.Error) as e:
        ic.time_of_impact(a, np.zeros(6), b, np.zeros(6), -1.0)
    assert e.value.status_name == "IMP_ERR_OUT_OF_RANGE"
    with pytest.raises(ic.Error) as e:
        ic.time_of_impact(a, np.zeros(6), b, np.array([3, 0, 0, np.nan, 0, 0]), 1.0)
    assert e.value.status_name == "IMP_ERR_NOT_FINITE"
    with pytest.raises(ic.Error) as e:
        ic.time_of_impact(a, np.zeros(6), b, np.array([3, 0, 0, 0, 0, 0]), 1.0, max_iterations=0)
    assert e.value.status_name == "IMP_ERR_BAD_OPTIONS"
    with pytest.raises(ValueError, match="motion_b"):
        ic.time_of_impact(a, np.zeros(6), b, np.zeros(5), 1.0)
    with pytest.raises(ic.Error) as e:
        ic.time_of_impact(a, np.zeros(6), ic.sphere(1.0), np.zeros(13), 1.0)
    assert e.value.status_name == "IMP_ERR_DIMENSION_MISMATCH"
