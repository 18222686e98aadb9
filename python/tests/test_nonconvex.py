# SPDX-License-Identifier: MIT
"""Non-convex shapes (compounds, meshes, height fields, chains, meshes read
from files) and closest_batch, against independent oracles: a compound is
the union of its children, a mesh the union of its triangles (numpy brute
force point-triangle distances), a height field the compound of its
prisms, a chain the union of its segments (numpy point-segment distances);
closest_batch equals a loop of closest() bit for bit. Bad input raises,
never crashes; a compound keeps its children alive."""
import gc
import os
import struct
import sys
import threading
import weakref

import numpy as np
import pytest

import impact_collision as ic
from conftest import SANITIZED, quat_matrix, random_poses2, random_poses3, random_quats, rot2

I2 = (0.0, 0.0, 0.0)
I3 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)


# ---------------------------------------------------------------------------
# Oracles (numpy only)


def quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def compose3(outer, inner):
    """The pose `inner` (in outer's frame) in the world: outer * inner."""
    outer, inner = np.asarray(outer, float), np.asarray(inner, float)
    p = outer[:3] + quat_matrix(outer[3:]) @ inner[:3]
    return np.concatenate([p, quat_mul(outer[3:], inner[3:])])


def compose2(outer, inner):
    outer, inner = np.asarray(outer, float), np.asarray(inner, float)
    p = outer[:2] + rot2(outer[2]) @ inner[:2]
    return np.array([p[0], p[1], outer[2] + inner[2]])


def point_segment_distance(p, a, b):
    """Distance from p to segments [a, b] (a, b: one segment, or stacks of them)."""
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    ab = b - a
    denom = np.einsum("ij,ij->i", ab, ab)
    t = np.where(denom > 0, np.einsum("ij,ij->i", p - a, ab) / np.where(denom > 0, denom, 1.0), 0.0)
    t = np.clip(t, 0.0, 1.0)
    d = np.linalg.norm(p - (a + t[:, None] * ab), axis=1)
    return d if len(d) > 1 else d[0]


def point_triangles_distance(p, a, b, c):
    """Brute force, over stacks of triangles: the plane's foot when it falls
    inside the triangle, else the nearest of the three edges."""
    a, b, c = np.atleast_2d(a), np.atleast_2d(b), np.atleast_2d(c)
    best = np.minimum.reduce([np.atleast_1d(point_segment_distance(p, a, b)),
                              np.atleast_1d(point_segment_distance(p, b, c)),
                              np.atleast_1d(point_segment_distance(p, c, a))])
    n = np.cross(b - a, c - a)
    nn = np.einsum("ij,ij->i", n, n)
    ok = nn > 0
    h = np.einsum("ij,ij->i", p - a, n) / np.where(ok, nn, 1.0)
    foot = p - h[:, None] * n

    def side(u, v):
        return np.einsum("ij,ij->i", np.cross(v - u, foot - u), n)

    inside = ok & (side(a, b) >= 0) & (side(b, c) >= 0) & (side(c, a) >= 0)
    plane = np.abs(h) * np.sqrt(nn)
    return np.where(inside, np.minimum(best, plane), best)


def point_triangle_distance(p, a, b, c):
    return float(point_triangles_distance(p, a, b, c)[0])


def mesh_core_distance(p, v, t):
    return float(point_triangles_distance(p, v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]).min())


def random_soup(rng, nv=30, nt=24, spread=2.0):
    v = rng.uniform(-spread, spread, size=(nv, 3))
    t = np.array([rng.choice(nv, 3, replace=False) for _ in range(nt)])
    return v, t


def box_mesh(hx=1.0, hy=1.0, hz=1.0):
    v = np.array([[x, y, z] for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    t = [(q[0], q[1], q[2]) for q in quads] + [(q[0], q[2], q[3]) for q in quads]
    return v, np.array(t)


def bits(x):
    return np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)


def test_oracles_closed_forms():
    a, b, c = np.array([0.0, 0, 0]), np.array([2.0, 0, 0]), np.array([0.0, 2, 0])
    assert point_triangle_distance(np.array([0.5, 0.5, 3.0]), a, b, c) == pytest.approx(3.0)  # above the inside
    assert point_triangle_distance(np.array([-3.0, -4.0, 0.0]), a, b, c) == pytest.approx(5.0)  # off a corner
    assert point_triangle_distance(np.array([1.0, -1.0, 1.0]), a, b, c) == pytest.approx(np.sqrt(2))  # off an edge
    assert point_triangle_distance(np.array([2.0, 2.0, 0.0]), a, b, c) == pytest.approx(np.sqrt(2))  # hypotenuse
    assert point_segment_distance(np.array([1.0, 1.0]), np.array([0.0, 0]), np.array([2.0, 0])) == pytest.approx(1)
    q = random_quats(np.random.default_rng(3), 2)
    pose = compose3(np.concatenate([[1, 2, 3], q[0]]), np.concatenate([[0, 0, 1], q[1]]))
    np.testing.assert_allclose(quat_matrix(pose[3:]), quat_matrix(q[0]) @ quat_matrix(q[1]), atol=1e-12)
    np.testing.assert_allclose(pose[:3], [1, 2, 3] + quat_matrix(q[0]) @ [0, 0, 1], atol=1e-12)


# ---------------------------------------------------------------------------
# Compounds


def children3(rng):
    shapes = [ic.box3(0.5, 0.3, 0.2), ic.sphere(0.4), ic.capsule3((0, 0, -0.3), (0, 0, 0.3), 0.2),
              ic.polytope(rng.normal(size=(12, 3)) * 0.5), ic.cylinder(0.3, 0.2, radius=0.05)]
    poses = random_poses3(rng, len(shapes), 2.0)
    return shapes, poses


def children2(rng):
    from conftest import regular_polygon
    shapes = [ic.box2(0.5, 0.3), ic.circle(0.4), ic.capsule2((0, 0), (0.6, 0), 0.1),
              ic.polygon(regular_polygon(6, 0.5), 0.05), ic.segment2((0, 0), (0, 0.7))]
    poses = random_poses2(rng, len(shapes), 2.0)
    return shapes, poses


def test_compound3_is_the_union_of_its_children(rng):
    shapes, poses = children3(rng)
    c = ic.compound3(shapes, poses)
    assert c.kind == "compound3" and c.dim == 3 and c.child_count == 5 and c.radius == 0.0
    other = ic.box3(0.4, 0.2, 0.3, radius=0.05)
    hits = misses = 0
    for cp, op in zip(random_poses3(rng, 200, 1.0), random_poses3(rng, 200, 2.5)):
        per_child = [ic.distance(s, compose3(cp, p), other, op) for s, p in zip(shapes, poses)]
        want = min(per_child)
        got = ic.distance(c, cp, other, op)
        assert got == pytest.approx(want, abs=1e-9)
        if want > 1e-6:
            assert not ic.overlap(c, cp, other, op)
            r = ic.closest(c, cp, other, op)
            assert r.distance == pytest.approx(want, abs=1e-9)
            assert r.child_b == -1
            second = sorted(per_child)[1]
            if second - want > 1e-6:
                assert r.child_a == int(np.argmin(per_child))
            misses += 1
        elif want == 0:
            assert ic.overlap(c, cp, other, op)
            hits += 1
    assert hits > 5 and misses > 5


def test_compound2_is_the_union_of_its_children(rng):
    shapes, poses = children2(rng)
    c = ic.compound2(shapes, poses)
    assert c.kind == "compound2" and c.dim == 2 and c.child_count == 5
    other = ic.circle(0.3)
    hits = misses = 0
    for cp, op in zip(random_poses2(rng, 200, 1.0), random_poses2(rng, 200, 2.5)):
        per_child = [ic.distance(s, compose2(cp, p), other, op) for s, p in zip(shapes, poses)]
        want = min(per_child)
        assert ic.distance(c, cp, other, op) == pytest.approx(want, abs=1e-9)
        assert ic.distance(other, op, c, cp) == pytest.approx(want, abs=1e-9)
        if want > 1e-6:
            misses += 1
            assert not ic.overlap(c, cp, other, op)
        elif want == 0:
            hits += 1
            assert ic.overlap(c, cp, other, op)
    assert hits > 5 and misses > 5


def test_compound_readback(rng):
    shapes, poses = children3(rng)
    c = ic.compound3(shapes, poses)
    assert c.children == tuple(shapes)
    assert all(a is b for a, b in zip(c.children, shapes))
    cp = c.child_poses
    np.testing.assert_array_equal(cp, poses)
    cp[:] = 0  # a copy: the compound's is not changed
    np.testing.assert_array_equal(c.child_poses, poses)
    assert c.vertex_count == 0 and c.vertices.shape == (0, 3)
    assert c.edges.shape == (0, 2) and c.faces == [] and c.triangles is None
    assert "compound3" in repr(c)
    # Convex shapes: no children.
    s = ic.sphere(1.0)
    assert s.child_count == 0 and s.children is None and s.child_poses is None and s.triangles is None


def test_compound_keeps_children_alive(rng):
    poses = random_poses3(rng, 3, 1.0)
    other = ic.sphere(0.5)
    kids = [ic.box3(0.5, 0.5, 0.5), ic.sphere(0.3), ic.ellipsoid(0.4, 0.2, 0.3)]
    want = min(ic.distance(k, p, other, (3.0, 0, 0, 0, 0, 0, 1)) for k, p in zip(kids, poses))
    refs = [sys.getrefcount(k) for k in kids]
    c = ic.compound3(kids, poses)
    assert [sys.getrefcount(k) for k in kids] == [r + 1 for r in refs]
    del kids
    gc.collect()
    # Other allocations must not reuse the children's memory.
    junk = [ic.polytope(rng.normal(size=(20, 3))) for _ in range(50)]
    assert ic.distance(c, I3, other, (3.0, 0, 0, 0, 0, 0, 1)) == pytest.approx(want, abs=1e-12)
    del junk
    # Children of children of a list that goes away with them.
    c2 = ic.compound2([ic.circle(1.0), ic.box2(0.5, 0.5)], [[0, 0, 0], [3, 0, 0.3]])
    gc.collect()
    assert ic.distance(c2, I2, ic.circle(0.5), (0, 5, 0)) == pytest.approx(3.5)
    # The compound lets them go when it goes.
    k = ic.sphere(1.0)
    r0 = sys.getrefcount(k)
    c3 = ic.compound3([k, k], [I3, (1, 0, 0, 0, 0, 0, 1)])
    assert sys.getrefcount(k) == r0 + 2
    del c3
    assert sys.getrefcount(k) == r0


def test_compound_in_a_world_outlives_every_reference():
    w = ic.World(3)
    c = ic.compound3([ic.box3(1, 1, 1), ic.sphere(0.5)], [I3, (3, 0, 0, 0, 0, 0, 1)])
    a = w.add_body(c, I3)
    del c
    gc.collect()
    r = w.nearest(ic.sphere(0.5), (5.0, 0, 0, 0, 0, 0, 1))
    assert r.id == a and r.distance == pytest.approx(1.0)
    w.close()


def test_compound_errors():
    b = ic.box3(1, 1, 1)
    with pytest.raises(ic.Error) as e:
        ic.compound3([], np.zeros((0, 7)))
    assert e.value.status_name == "IMP_ERR_BAD_COUNT"
    with pytest.raises(TypeError, match=r"children\[1\]"):
        ic.compound3([b, "box"], [I3, I3])
    with pytest.raises(TypeError, match="children"):
        ic.compound3(5, [I3])
    with pytest.raises(ic.Error) as e:
        ic.compound3([b, ic.circle(1.0)], [I3, I3])
    assert e.value.status_name == "IMP_ERR_DIMENSION_MISMATCH" and e.value.row == 1
    inner = ic.compound3([b], [I3])
    with pytest.raises(ic.Error) as e:
        ic.compound3([b, inner], [I3, I3])
    assert e.value.status_name == "IMP_ERR_UNSUPPORTED" and "children[1]" in str(e.value)
    with pytest.raises(ic.Error) as e:
        ic.compound2([ic.chain([[0, 0], [1, 0]])], [I2])
    assert e.value.status_name == "IMP_ERR_UNSUPPORTED"
    with pytest.raises(ValueError, match="one pose a child"):
        ic.compound3([b, b], [I3])
    with pytest.raises(ValueError, match=r"\(N, 7\)"):
        ic.compound3([b], [I2])
    with pytest.raises(TypeError):
        ic.compound3([b], np.zeros((1, 7), dtype=complex))
    for bad, status in [((np.nan, 0, 0, 0, 0, 0, 1), "IMP_ERR_NOT_FINITE"),
                        ((0, 0, 0, 0, 0, 0, 1.5), "IMP_ERR_BAD_ROTATION"),
                        ((1e200, 0, 0, 0, 0, 0, 1), "IMP_ERR_OUT_OF_RANGE")]:
        with pytest.raises(ic.Error) as e:
            ic.compound3([b, b, b], [I3, I3, bad])
        assert e.value.status_name == status and e.value.row == 2 and "poses[2]" in str(e.value)
    with pytest.raises(ic.Error) as e:
        ic.compound2([ic.circle(1.0)], [(0, np.inf, 0)])
    assert e.value.status_name == "IMP_ERR_NOT_FINITE" and e.value.row == 0
    # Non-contiguous and integer pose arrays are read.
    wide = np.zeros((2, 14))
    wide[:, ::2] = [I3, (2, 0, 0, 0, 0, 0, 1)]
    c = ic.compound3([b, b], wide[:, ::2])
    np.testing.assert_array_equal(c.child_poses, [I3, (2, 0, 0, 0, 0, 0, 1)])
    c = ic.compound2([ic.circle(1.0)], np.array([[1, 2, 0]], dtype=np.int32))
    assert ic.distance(c, I2, ic.circle(1.0), (1, 5, 0)) == pytest.approx(1.0)


class LyingList(list):
    def __init__(self, items, length):
        super().__init__(items)
        self.length = length

    def __len__(self):
        return self.length


def test_compound_hostile_sequences():
    b, s = ic.box3(1, 1, 1), ic.sphere(0.5)
    # A __len__ that lies either way: the real items are read.
    for length in (1, 5, 0):
        c = ic.compound3(LyingList([b, s], length), [I3, (3, 0, 0, 0, 0, 0, 1)])
        assert c.child_count == 2
    # Any iterable.
    c = ic.compound3((x for x in [b, s]), [I3, (3, 0, 0, 0, 0, 0, 1)])
    assert c.children == (b, s)
    # Reading a pose clears the children list (and frees its items, were they
    # not held): the compound holds its own snapshot.
    kids = [ic.box3(1, 1, 1), ic.sphere(0.5)]

    class Clear:
        def __float__(self):
            kids.clear()
            gc.collect()
            return 3.0

    c = ic.compound3(kids, [list(I3), [Clear(), 0, 0, 0, 0, 0, 1]])
    assert kids == [] and c.child_count == 2
    gc.collect()
    assert ic.distance(c, I3, ic.sphere(0.5), (6, 0, 0, 0, 0, 0, 1)) == pytest.approx(2.0)
    # The pose list itself mutated by an item's __float__.
    poses = [[0.0, 0, 0], None]

    class Replace:
        def __float__(self):
            poses[:] = [object()]
            return 0.0

    poses[1] = [Replace(), 4.0, 0.0]
    try:
        c = ic.compound2([ic.circle(1.0)] * 2, poses)
    except (TypeError, ValueError):
        pass
    else:
        assert c.child_count == 2


# ---------------------------------------------------------------------------
# Meshes


def test_mesh_sphere_distance_brute_force(rng):
    v, t = random_soup(rng)
    for mr in (0.0, 0.1):
        m = ic.mesh(v, t, mr)
        assert m.kind == "mesh" and m.child_count == len(t) and m.radius == mr
        sr = 0.3
        s = ic.sphere(sr)
        centers = rng.uniform(-4, 4, size=(80, 3))
        seen_zero = seen_apart = 0
        for c in centers:
            d_core = mesh_core_distance(c, v, t)
            want = max(0.0, d_core - sr - mr)
            pose = np.concatenate([c, [0, 0, 0, 1]])
            assert ic.distance(m, I3, s, pose) == pytest.approx(want, abs=1e-9)
            assert ic.overlap(m, I3, s, pose) == (want == 0.0)
            if want > 1e-6:
                r = ic.closest(m, I3, s, pose)
                assert r.distance == pytest.approx(want, abs=1e-9)
                # point_a is on the (rounded) triangle child_a.
                tri = v[t[r.child_a]]
                assert point_triangle_distance(r.point_a, *tri) == pytest.approx(mr, abs=1e-9)
                seen_apart += 1
            else:
                seen_zero += 1
        assert seen_zero > 3 and seen_apart > 20


def test_mesh_posed_equals_compound_of_triangles(rng):
    v, t = random_soup(rng, 20, 12)
    m = ic.mesh(v, t, 0.05)
    tris = ic.compound3([ic.polytope(v[tri], 0.05) for tri in t], np.tile(I3, (len(t), 1)))
    box = ic.box3(0.3, 0.2, 0.5)
    pm, pb = random_poses3(rng, 100, 1.0), random_poses3(rng, 100, 3.0)
    dm = ic.distance_batch(m, pm, box, pb)
    dc = ic.distance_batch(tris, pm, box, pb)
    np.testing.assert_allclose(dm, dc, atol=1e-9)
    assert (dm == 0).sum() > 3 and (dm > 0).sum() > 3
    np.testing.assert_array_equal(ic.overlap_batch(m, pm, box, pb), dm == 0)


def test_mesh_readback_and_inputs(rng):
    v, t = box_mesh()
    m = ic.mesh(v, t)
    np.testing.assert_array_equal(m.vertices, v)
    assert m.triangles.dtype == np.int32
    np.testing.assert_array_equal(m.triangles, t)
    assert m.vertex_count == 8 and m.child_count == 12 and len(m.faces) == 12
    np.testing.assert_array_equal(np.array(m.faces), t)
    assert m.edges.shape == (0, 2) and m.children is None and m.child_poses is None
    # Index dtypes: any integer type, the same mesh.
    ref = ic.distance(m, I3, ic.sphere(0.5), (3, 1, 0.5, 0, 0, 0, 1))
    for tt in (t.astype(np.int32), t.astype(np.int64), t.astype(np.uint8), t.astype(np.uint64), t.tolist(),
               np.asfortranarray(t), np.repeat(t, 2, axis=1)[:, ::2]):
        mm = ic.mesh(v, tt)
        np.testing.assert_array_equal(mm.triangles, t)
        assert ic.distance(mm, I3, ic.sphere(0.5), (3, 1, 0.5, 0, 0, 0, 1)) == ref
    # Non-contiguous and float32 vertices.
    wide = np.zeros((8, 6))
    wide[:, ::2] = v
    assert ic.distance(ic.mesh(wide[:, ::2], t), I3, ic.sphere(0.5), (3, 1, 0.5, 0, 0, 0, 1)) == ref
    assert ic.distance(ic.mesh(v.astype(np.float32), t), I3, ic.sphere(0.5), (3, 1, 0.5, 0, 0, 0, 1)) == ref
    # The mesh keeps copies.
    v2, t2 = v.copy(), t.copy()
    m2 = ic.mesh(v2, t2)
    v2[:] = 100
    t2[:] = 0
    np.testing.assert_array_equal(m2.vertices, v)
    np.testing.assert_array_equal(m2.triangles, t)


@pytest.mark.parametrize(
    "vertices, triangles, radius, exc, status",
    [
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]], 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, -1, 2]], 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.array([[0, 1, 2**40]]), 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.array([[0, 1, 2**63]], dtype=np.uint64), 0.0, ic.Error,
         "IMP_ERR_BAD_COUNT"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.array([[0, 1, -2**32 + 2]]), 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.zeros((0, 3), dtype=int), 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        (np.zeros((0, 3)), np.zeros((0, 3), dtype=int), 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        ([[0, 0, 0], [1, np.nan, 0], [0, 1, 0]], [[0, 1, 2]], 0.0, ic.Error, "IMP_ERR_NOT_FINITE"),
        ([[0, 0, 0], [1, np.inf, 0], [0, 1, 0]], [[0, 1, 2]], 0.0, ic.Error, "IMP_ERR_NOT_FINITE"),
        ([[0, 0, 0], [1e200, 0, 0], [0, 1, 0]], [[0, 1, 2]], 0.0, ic.Error, "IMP_ERR_OUT_OF_RANGE"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], -1.0, ic.Error, "IMP_ERR_BAD_RADIUS"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], np.nan, ic.Error, "IMP_ERR_BAD_RADIUS"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0.0, 1.0, 2.0]], 0.0, TypeError, None),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.ones((1, 3), dtype=bool), 0.0, TypeError, None),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [["a", "b", "c"]], 0.0, TypeError, None),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, object()]], 0.0, TypeError, None),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [0, 1, 2], 0.0, ValueError, None),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2, 0]], 0.0, ValueError, None),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[[0, 1, 2]]], 0.0, ValueError, None),
        ([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]], 0.0, ValueError, None),
        ([0, 0, 0], [[0, 1, 2]], 0.0, ValueError, None),
        (np.zeros((3, 3), dtype=complex), [[0, 1, 2]], 0.0, TypeError, None),
        ("vertices", [[0, 1, 2]], 0.0, TypeError, None),
    ],
)
def test_mesh_bad_inputs(vertices, triangles, radius, exc, status):
    with pytest.raises(exc) as e:
        ic.mesh(vertices, triangles, radius)
    if status:
        assert e.value.status_name == status


def test_mesh_index_error_names_the_entry():
    v, t = box_mesh()
    t = t.copy()
    t[7, 2] = 8
    with pytest.raises(ic.Error) as e:
        ic.mesh(v, t)
    assert e.value.row == 7 and "triangles[7, 2] = 8" in str(e.value)


# ---------------------------------------------------------------------------
# Height fields


def heightfield_prisms(h, dx, dy, base_z, radius=0.0):
    """The compound of a height field's prisms, numbered as the library's children."""
    rows, cols = h.shape
    shapes = []
    for r in range(rows - 1):
        for c in range(cols - 1):
            def corner(rr, cc):
                return np.array([cc * dx, rr * dy, h[rr, cc]])
            for tri in (((r, c), (r, c + 1), (r + 1, c + 1)), ((r, c), (r + 1, c + 1), (r + 1, c))):
                top = np.array([corner(*k) for k in tri])
                bottom = top.copy()
                bottom[:, 2] = base_z
                shapes.append(ic.polytope(np.vstack([top, bottom]), radius))
    return ic.compound3(shapes, np.tile(I3, (len(shapes), 1)))


def test_heightfield_equals_compound_of_prisms(rng):
    rows, cols, dx, dy, base = 5, 6, 0.7, 0.5, -2.0
    h = rng.uniform(-0.5, 0.5, size=(rows, cols))
    for radius in (0.0, 0.05):
        hf = ic.heightfield(h, dx, dy, base, radius)
        assert hf.kind == "heightfield" and hf.child_count == 2 * (rows - 1) * (cols - 1)
        assert hf.vertex_count == 0 and hf.vertices.shape == (0, 3) and hf.triangles is None
        prisms = heightfield_prisms(h, dx, dy, base, radius)
        other = ic.capsule3((0, 0, -0.3), (0, 0, 0.3), 0.2)
        poses = random_poses3(rng, 150, 1.0)
        poses[:, :3] += [dx * (cols - 1) / 2, dy * (rows - 1) / 2, 0.5]
        d_hf = ic.distance_batch(hf, I3, other, poses)
        d_pr = ic.distance_batch(prisms, I3, other, poses)
        np.testing.assert_allclose(d_hf, d_pr, atol=1e-9)
        assert (d_hf == 0).sum() > 5 and (d_hf > 0).sum() > 5
        r1 = ic.closest_batch(hf, I3, other, poses)
        r2 = ic.closest_batch(prisms, I3, other, poses)
        apart = d_hf > 1e-6
        np.testing.assert_allclose(r1.point_b[apart], r2.point_b[apart], atol=1e-7)
        # The same child numbering: the height field's child_a is a nearest
        # prism of the compound made in the library's order.
        for k in np.flatnonzero(apart)[:40]:
            prism = prisms.children[r1.child_a[k]]
            assert ic.distance(prism, I3, other, poses[k]) == pytest.approx(d_hf[k], abs=1e-9)


def test_heightfield_flat_closed_form():
    h = np.full((4, 4), 0.25)
    hf = ic.heightfield(h, 1.0, 1.0, -1.0)
    s = ic.sphere(0.5)
    for z in (1.0, 2.0, 5.0):
        assert ic.distance(hf, I3, s, (1.3, 1.7, z, 0, 0, 0, 1)) == pytest.approx(z - 0.25 - 0.5)
    # Solid down to its base: a sphere below the surface overlaps it.
    assert ic.overlap(hf, I3, ic.sphere(0.1), (1.5, 1.5, -0.5, 0, 0, 0, 1))
    # A falling sphere meets it at the closed-form time.
    r = ic.time_of_impact(s, ((1.5, 1.5, 3.0, 0, 0, 0, 1), (0, 0, -1.0), (0, 0, 0)), hf, (I3, (0, 0, 0), (0, 0, 0)),
                          5.0)
    assert r.state == "hit" and r.t == pytest.approx(3.0 - 0.5 - 0.25, abs=1e-4) and r.t <= 2.25


@pytest.mark.parametrize(
    "heights, dx, dy, base, exc, status",
    [
        (np.zeros((1, 4)), 1, 1, -1, ic.Error, "IMP_ERR_BAD_COUNT"),
        (np.zeros((4, 1)), 1, 1, -1, ic.Error, "IMP_ERR_BAD_COUNT"),
        (np.zeros((0, 0)), 1, 1, -1, ic.Error, "IMP_ERR_BAD_COUNT"),
        (np.zeros((3, 3)), 0.0, 1, -1, ic.Error, "IMP_ERR_BAD_RADIUS"),
        (np.zeros((3, 3)), 1, -1.0, -1, ic.Error, "IMP_ERR_BAD_RADIUS"),
        (np.zeros((3, 3)), np.nan, 1, -1, ic.Error, "IMP_ERR_NOT_FINITE"),
        (np.zeros((3, 3)), 1, 1, np.inf, ic.Error, "IMP_ERR_NOT_FINITE"),
        (np.zeros((3, 3)), 1, 1, 0.0, ic.Error, "IMP_ERR_OUT_OF_RANGE"),
        (np.array([[0, 0, 0], [0, np.nan, 0]]), 1, 1, -1, ic.Error, "IMP_ERR_NOT_FINITE"),
        (np.array([[0, 0, 0], [0, -2.0, 0]]), 1, 1, -1, ic.Error, "IMP_ERR_OUT_OF_RANGE"),
        (np.zeros(9), 1, 1, -1, ValueError, None),
        (np.zeros((3, 3, 1)), 1, 1, -1, ValueError, None),
        (np.zeros((3, 3), dtype=complex), 1, 1, -1, TypeError, None),
        ([[0, 0], [0]], 1, 1, -1, (TypeError, ValueError), None),
        ("heights", 1, 1, -1, (TypeError, ValueError), None),
    ],
)
def test_heightfield_bad_inputs(heights, dx, dy, base, exc, status):
    with pytest.raises(exc) as e:
        ic.heightfield(heights, dx, dy, base)
    if status:
        assert e.value.status_name == status


def test_heightfield_reads_any_layout():
    h = np.arange(12, dtype=float).reshape(3, 4) * 0.1
    ref = ic.distance(ic.heightfield(h, 1, 1, -1), I3, ic.sphere(0.3), (1.2, 0.7, 2, 0, 0, 0, 1))
    for hh in (np.asfortranarray(h), h.tolist(), np.repeat(h, 2, axis=1)[:, ::2]):
        assert ic.distance(ic.heightfield(hh, 1, 1, -1), I3, ic.sphere(0.3), (1.2, 0.7, 2, 0, 0, 0, 1)) == ref


# ---------------------------------------------------------------------------
# Chains


def test_chain_brute_force(rng):
    pts = rng.uniform(-2, 2, size=(9, 2))
    for loop in (False, True):
        for cr in (0.0, 0.1):
            ch = ic.chain(pts, loop, cr)
            nseg = len(pts) if loop else len(pts) - 1
            assert ch.kind == "chain" and ch.dim == 2 and ch.child_count == nseg and ch.radius == cr
            np.testing.assert_array_equal(ch.vertices, pts)
            assert ch.vertex_count == len(pts) and ch.edges is None and ch.faces is None
            seg_a = pts[:nseg]
            seg_b = pts[(np.arange(nseg) + 1) % len(pts)]
            circle = ic.circle(0.2)
            apart = 0
            for c in rng.uniform(-3, 3, size=(100, 2)):
                per = point_segment_distance(c, seg_a, seg_b)
                want = max(0.0, min(per) - 0.2 - cr)
                assert ic.distance(ch, I2, circle, (c[0], c[1], 0.3)) == pytest.approx(want, abs=1e-9)
                if want > 1e-6 and sorted(per)[1] - min(per) > 1e-6:
                    assert ic.closest(ch, I2, circle, (c[0], c[1], 0.3)).child_a == int(np.argmin(per))
                    apart += 1
            assert apart > 20


def test_chain_equals_compound_of_segments(rng):
    pts = rng.uniform(-2, 2, size=(7, 2))
    ch = ic.chain(pts, True, 0.05)
    segs = ic.compound2([ic.capsule2(pts[i], pts[(i + 1) % 7], 0.05) for i in range(7)], np.zeros((7, 3)))
    box = ic.box2(0.3, 0.2)
    pc, pb = random_poses2(rng, 200, 1.0), random_poses2(rng, 200, 3.0)
    np.testing.assert_allclose(ic.distance_batch(ch, pc, box, pb), ic.distance_batch(segs, pc, box, pb), atol=1e-9)


@pytest.mark.parametrize(
    "points, loop, radius, exc, status",
    [
        ([[0, 0]], False, 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        (np.zeros((0, 2)), True, 0.0, ic.Error, "IMP_ERR_BAD_COUNT"),
        ([[0, 0], [np.nan, 1]], False, 0.0, ic.Error, "IMP_ERR_NOT_FINITE"),
        ([[0, 0], [1e200, 1]], False, 0.0, ic.Error, "IMP_ERR_OUT_OF_RANGE"),
        ([[0, 0], [1, 1]], False, -0.5, ic.Error, "IMP_ERR_BAD_RADIUS"),
        ([[0, 0], [1, 1]], 0.1, 0.0, TypeError, None),
        ([[0, 0], [1, 1]], None, 0.0, TypeError, None),
        ([[0, 0, 0], [1, 1, 1]], False, 0.0, ValueError, None),
        ([0, 0, 1, 1], False, 0.0, ValueError, None),
        (np.zeros((2, 2), dtype=complex), False, 0.0, TypeError, None),
    ],
)
def test_chain_bad_inputs(points, loop, radius, exc, status):
    with pytest.raises(exc) as e:
        ic.chain(points, loop, radius)
    if status:
        assert e.value.status_name == status


def test_chain_loop_flag_forms():
    pts = [[0, 0], [1, 0], [1, 1]]
    assert ic.chain(pts).child_count == 2
    assert ic.chain(pts, loop=True).child_count == 3
    assert ic.chain(pts, np.bool_(True)).child_count == 3
    assert ic.chain(pts, radius=0.5).radius == 0.5


# ---------------------------------------------------------------------------
# Meshes from files

CUBE_OBJ = """# a unit cube, quads fanned
o cube
v -1 -1 -1
v 1 -1 -1
v 1 1 -1
v -1 1 -1
v -1 -1 1
v 1 -1 1
v 1 1 1
v -1 1 1
vn 0 0 1
f 1 4 3 2
f 5 6 7 8
f 1/1 2/1 6/1 5/1
f 2//1 3//1 7//1 6//1
f 3/1/1 4/1/1 8/1/1 7/1/1
f -4 -8 -5 -1
"""

STL_TRI = [((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((1, 0, 0), (1, 1, 0), (0, 1, 0)), ((0, 0, 0), (0, 1, 0), (0, 0, 2))]


def test_mesh_from_obj(tmp_path):
    path = tmp_path / "cube.obj"
    path.write_text(CUBE_OBJ)
    for p in (path, str(path), os.fsencode(path)):
        m = ic.mesh_from_file(p, 0.1)
        assert m.kind == "mesh" and m.radius == 0.1 and m.child_count == 12
        assert m.vertices.shape == (8, 3) and m.triangles.shape == (12, 3)
    # Against the oracle: the same cube made from arrays.
    v = m.vertices
    np.testing.assert_array_equal(v[0], [-1, -1, -1])
    np.testing.assert_array_equal(m.triangles[:2], [[0, 3, 2], [0, 2, 1]])
    s = ic.sphere(0.5)
    for c in ([3.0, 0, 0], [2, 2, 2], [0.3, -0.2, 1.9]):
        pose = np.concatenate([c, [0, 0, 0, 1]])
        d_core = mesh_core_distance(np.array(c), v, m.triangles)
        assert ic.distance(m, I3, s, pose) == pytest.approx(max(0.0, d_core - 0.6), abs=1e-9)
    # A surface: a small sphere inside the cube, away from its faces, is apart.
    assert not ic.overlap(m, I3, ic.sphere(0.2), I3)


def test_mesh_from_stl(tmp_path):
    ascii_stl = ["solid t"]
    for tri in STL_TRI:
        ascii_stl += ["  facet normal 0 0 1", "    outer loop"]
        ascii_stl += [f"      vertex {x} {y} {z}" for x, y, z in tri]
        ascii_stl += ["    endloop", "  endfacet"]
    ascii_stl.append("endsolid t")
    (tmp_path / "a.stl").write_text("\n".join(ascii_stl) + "\n")
    binary = bytearray(b"\0" * 80) + struct.pack("<I", len(STL_TRI))
    for tri in STL_TRI:
        binary += struct.pack("<12fH", 0, 0, 1, *[c for p in tri for c in p], 0)
    (tmp_path / "b.stl").write_bytes(bytes(binary))
    for name in ("a.stl", "b.stl"):
        m = ic.mesh_from_file(tmp_path / name)
        # Shared corners merged, in order of first appearance.
        np.testing.assert_array_equal(m.vertices, [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 2]])
        np.testing.assert_array_equal(m.triangles, [[0, 1, 2], [1, 3, 2], [0, 2, 4]])


@pytest.mark.parametrize(
    "name, text, line",
    [
        ("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n# ok so far\nf 1 2 0\n", 5),
        ("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", 4),
        ("bad.obj", "v 0 0 0\nv 1 zero 0\nv 0 1 0\nf 1 2 3\n", 2),
        ("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", 4),
        ("bad.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\n", 6),
    ],
)
def test_mesh_from_file_parse_error_has_the_line(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ic.Error) as e:
        ic.mesh_from_file(path)
    assert e.value.status == ic.IMP_ERR_PARSE and e.value.status_name == "IMP_ERR_PARSE"
    assert e.value.line == line
    assert f"line {line}" in str(e.value) and name in str(e.value)
    assert e.value.row is None


def test_mesh_from_file_other_errors(tmp_path):
    with pytest.raises(ic.Error) as e:
        ic.mesh_from_file(tmp_path / "missing.obj")
    assert e.value.status_name == "IMP_ERR_IO" and e.value.line is None
    (tmp_path / "empty.obj").write_text("# nothing\n")
    with pytest.raises(ic.Error) as e:
        ic.mesh_from_file(tmp_path / "empty.obj")
    assert e.value.status_name == "IMP_ERR_PARSE"
    (tmp_path / "nan.obj").write_text("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n")
    with pytest.raises(ic.Error) as e:
        ic.mesh_from_file(tmp_path / "nan.obj")
    assert e.value.status_name == "IMP_ERR_NOT_FINITE" and e.value.line == 2
    (tmp_path / "ok.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    with pytest.raises(ic.Error) as e:
        ic.mesh_from_file(tmp_path / "ok.obj", -1.0)
    assert e.value.status_name == "IMP_ERR_BAD_RADIUS"
    with pytest.raises(ValueError):
        ic.mesh_from_file(str(tmp_path / "ok.obj") + "\0x")
    with pytest.raises(TypeError):
        ic.mesh_from_file(5)
    with pytest.raises(TypeError):
        ic.mesh_from_file(None)
    # Errors of other calls carry line None.
    with pytest.raises(ic.Error) as e:
        ic.sphere(-1.0)
    assert e.value.line is None


# ---------------------------------------------------------------------------
# Pairwise calls, batches and the world with non-convex shapes on both sides


def nonconvex_pairs(rng):
    v, t = random_soup(rng, 16, 10, 1.0)
    shapes3, poses3 = children3(rng)
    shapes2, poses2 = children2(rng)
    pts = rng.uniform(-1, 1, size=(6, 2))
    near3 = poses3.copy()
    near3[:, :3] *= 0.5
    return {
        3: [
            (ic.mesh(v, t, 0.02), ic.compound3(shapes3, near3)),
            (ic.heightfield(rng.uniform(0, 0.3, (4, 4)), 0.5, 0.5, -0.5), ic.mesh(v, t)),
            (ic.box3(0.5, 0.5, 0.5), ic.heightfield(rng.uniform(0, 0.3, (3, 5)), 0.4, 0.6, -0.2, 0.05)),
        ],
        2: [
            (ic.chain(pts, True, 0.05), ic.compound2(shapes2, poses2)),
            (ic.chain(pts), ic.chain(pts[::-1], False, 0.1)),
            (ic.polygon(pts), ic.compound2(shapes2, poses2)),
        ],
    }


@pytest.mark.parametrize("dim", [2, 3])
def test_batches_equal_loops(rng, dim):
    n = 120
    for a, b in nonconvex_pairs(rng)[dim]:
        pa = random_poses2(rng, n, 1.5) if dim == 2 else random_poses3(rng, n, 1.5)
        pb = random_poses2(rng, n, 1.5) if dim == 2 else random_poses3(rng, n, 1.5)
        d = ic.distance_batch(a, pa, b, pb)
        o = ic.overlap_batch(a, pa, b, pb)
        assert np.array_equal(bits(d), bits([ic.distance(a, x, b, y) for x, y in zip(pa, pb)]))
        assert np.array_equal(o, [ic.overlap(a, x, b, y) for x, y in zip(pa, pb)])
        assert np.array_equal(o, d == 0)
        assert 0 < o.sum() < n
        # Both orders of the pair agree.
        np.testing.assert_allclose(ic.distance_batch(b, pb, a, pa), d, atol=1e-9)


@pytest.mark.parametrize("dim", [2, 3])
def test_closest_signs_and_witnesses(rng, dim):
    for a, b in nonconvex_pairs(rng)[dim]:
        for _ in range(30):
            pa = random_poses2(rng, 1, 1.5)[0] if dim == 2 else random_poses3(rng, 1, 1.5)[0]
            pb = random_poses2(rng, 1, 1.5)[0] if dim == 2 else random_poses3(rng, 1, 1.5)[0]
            r = ic.closest(a, pa, b, pb)
            assert r.point_a.shape == (dim,) and r.normal.shape == (dim,)
            assert np.linalg.norm(r.normal) == pytest.approx(1.0)
            assert r.normal @ (r.point_b - r.point_a) == pytest.approx(r.distance, abs=1e-8)
            d = ic.distance(a, pa, b, pb)
            assert d == pytest.approx(max(r.distance, 0.0), abs=1e-9)
            if a.child_count:
                assert 0 <= r.child_a < a.child_count
            else:
                assert r.child_a == -1
            assert 0 <= r.child_b < b.child_count


def test_time_of_impact_against_a_mesh():
    v, t = box_mesh(2.0, 2.0, 0.5)
    m = ic.mesh(v, t)
    s = ic.sphere(0.5)
    # The time of impact is no later than the contact, and within the
    # tolerance of it in distance.
    r = ic.time_of_impact(s, ((0.3, 0.2, 4.0, 0, 0, 0, 1), (0, 0, -2.0), (0, 0, 0)), m, (I3, (0, 0, 0), (0, 0, 0)),
                          5.0)
    assert r.state == "hit" and r.t == pytest.approx((4.0 - 0.5 - 0.5) / 2.0, abs=1e-4) and r.t <= 1.5
    c = ic.chain([[-5, 0], [5, 0]])
    r = ic.time_of_impact(ic.circle(1.0), ((0, 3, 0), (0, -1), 0.0), c, (I2, (0, 0), 0.0), 5.0)
    assert r.state == "hit" and r.t == pytest.approx(2.0, abs=1e-4) and r.t <= 2.0


def test_world_with_nonconvex_bodies(rng):
    w = ic.World(3)
    v, t = box_mesh()
    m = ic.mesh(v, t)
    hf = ic.heightfield(np.zeros((5, 5)), 1.0, 1.0, -1.0)
    c = ic.compound3([ic.sphere(0.5), ic.sphere(0.5)], [I3, (2, 0, 0, 0, 0, 0, 1)])
    ground = w.add_body(hf, (-2, -2, -0.4, 0, 0, 0, 1), "static")
    bm = w.add_body(m, (0, 0, 0.5, 0, 0, 0, 1))
    bc = w.add_body(c, (5, 5, 5, 0, 0, 0, 1))
    w.update()
    pairs = {tuple(sorted(map(int, p))) for p in w.touching_pairs()}
    assert tuple(sorted((ground, bm))) in pairs and all(bc not in p for p in pairs)
    probe = ic.sphere(0.25)
    for p in random_poses3(rng, 30, 4.0):
        r = w.nearest(probe, p)
        want = min(ic.distance(m, (0, 0, 0.5, 0, 0, 0, 1), probe, p), ic.distance(hf, (-2, -2, -0.4, 0, 0, 0, 1), probe, p),
                   ic.distance(c, (5, 5, 5, 0, 0, 0, 1), probe, p))
        assert max(r.distance, 0.0) == pytest.approx(want, abs=1e-9)
        assert w.overlap_any(probe, p) == (want == 0.0)
    assert w.distance(bm, bc).distance == pytest.approx(
        ic.distance(m, (0, 0, 0.5, 0, 0, 0, 1), c, (5, 5, 5, 0, 0, 0, 1)), abs=1e-9)
    w.close()
    w2 = ic.World(2)
    ch = ic.chain([[-3, 0], [0, 1], [3, 0]], False, 0.0)
    a = w2.add_body(ch, I2, "static")
    assert w2.nearest(ic.circle(0.5), (0, 3, 0)).id == a
    assert w2.nearest(ic.circle(0.5), (0, 3, 0)).distance == pytest.approx(1.5)
    w2.close()


def test_far_poses_of_a_nonconvex_pair_raise_like_closest():
    # b's pose in a's frame beyond the range: overlap raises as closest does
    # (the library answers it false), rather than a silent False.
    m = ic.mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    s = ic.sphere(0.5)
    pa, pb = (-0.9e150, 0, 0, 0, 0, 0, 1), (0.9e150, 0, 0, 0, 0, 0, 1)
    for fn in (ic.closest, ic.overlap):
        with pytest.raises(ic.Error) as e:
            fn(m, pa, s, pb)
        assert e.value.status_name == "IMP_ERR_OUT_OF_RANGE"
    with pytest.raises(ic.Error) as e:
        ic.overlap_batch(m, [I3, pa], s, [I3, pb])
    assert e.value.status_name == "IMP_ERR_OUT_OF_RANGE" and e.value.row == 1
    c = ic.chain([[0, 0], [1, 0]])
    with pytest.raises(ic.Error):
        ic.overlap(c, (-0.9e150, 0, 0), ic.circle(1.0), (0.9e150, 0, 0))
    # A compound whose child is far out: its false overlaps agree with closest.
    far = ic.compound3([ic.box3(1, 1, 1)], [(0.9e150, 0, 0, 0, 0, 0, 1)])
    assert not ic.overlap(far, (0.5e150, 0, 0, 0, 0, 0, 1), s, I3)
    ic.closest(far, (0.5e150, 0, 0, 0, 0, 0, 1), s, I3)
    assert ic.overlap(far, (-0.9e150, 0, 0, 0, 0, 0, 1), s, I3)


# ---------------------------------------------------------------------------
# closest_batch


def closest_loop(a, pa, b, pb):
    rs = [ic.closest(a, x, b, y) for x, y in zip(pa, pb)]
    return (np.array([r.distance for r in rs]), np.array([r.point_a for r in rs]), np.array([r.point_b for r in rs]),
            np.array([r.normal for r in rs]), np.array([r.child_a for r in rs]), np.array([r.child_b for r in rs]))


def convex_pairs(rng):
    return {
        2: [(ic.box2(0.5, 0.3), ic.circle(0.4)), (ic.capsule2((0, 0), (1, 0), 0.1), ic.segment2((0, 0), (0, 1)))],
        3: [(ic.box3(0.5, 0.4, 0.3), ic.polytope(rng.normal(size=(20, 3)) * 0.5)),
            (ic.sphere(0.5), ic.cone(0.5, 0.3, radius=0.05))],
    }


@pytest.mark.parametrize("dim", [2, 3])
def test_closest_batch_equals_loop(rng, dim):
    n = 150
    pairs = convex_pairs(rng)[dim] + nonconvex_pairs(rng)[dim]
    for a, b in pairs:
        pa = random_poses2(rng, n, 1.5) if dim == 2 else random_poses3(rng, n, 1.5)
        pb = random_poses2(rng, n, 1.5) if dim == 2 else random_poses3(rng, n, 1.5)
        r = ic.closest_batch(a, pa, b, pb)
        assert isinstance(r, ic.ClosestBatchResult) and len(r) == 4
        d, pta, ptb, nrm = r
        assert d.shape == (n,) and d.dtype == np.float64
        assert pta.shape == ptb.shape == nrm.shape == (n, dim)
        assert r.child_a.shape == r.child_b.shape == (n,) and r.child_a.dtype == np.int32
        ld, lpa, lpb, ln, lca, lcb = closest_loop(a, pa, b, pb)
        for got, want in ((d, ld), (pta, lpa), (ptb, lpb), (nrm, ln)):
            assert np.array_equal(bits(got), bits(want))  # bit for bit
        assert np.array_equal(r.child_a, lca) and np.array_equal(r.child_b, lcb)
        assert (d < 0).any() and (d > 0).any()


@pytest.mark.parametrize("dim", [2, 3])
def test_closest_batch_broadcast(rng, dim):
    a, b = nonconvex_pairs(rng)[dim][0]
    stack = random_poses2(rng, 60) if dim == 2 else random_poses3(rng, 60)
    single = stack[3]
    for left, right in ((single, stack), (stack, single), (list(single), stack.tolist())):
        r = ic.closest_batch(a, left, b, right)
        la = [left] * 60 if np.ndim(left) == 1 else left
        lb = [right] * 60 if np.ndim(right) == 1 else right
        want = closest_loop(a, la, b, lb)
        assert np.array_equal(bits(r.distance), bits(want[0]))
        assert np.array_equal(bits(r.normal), bits(want[3]))
    both = ic.closest_batch(a, single, b, single)
    assert both.distance.shape == (1,) and both.point_a.shape == (1, dim)
    assert both.distance[0] == ic.closest(a, single, b, single).distance
    empty = ic.closest_batch(a, np.zeros((0, 3 if dim == 2 else 7)), b, single)
    assert empty.distance.shape == (0,) and empty.point_b.shape == (0, dim)


def test_closest_batch_errors(rng):
    a, b = convex_pairs(rng)[3][0]
    pa, pb = random_poses3(rng, 20), random_poses3(rng, 20)
    pb[11, 1] = np.nan
    with pytest.raises(ic.Error) as e:
        ic.closest_batch(a, pa, b, pb)
    assert e.value.status_name == "IMP_ERR_NOT_FINITE" and e.value.row == 11 and "poses_b[11]" in str(e.value)
    pb[11, 1] = 0
    pa[5, 3:] = 0
    with pytest.raises(ic.Error) as e:
        ic.closest_batch(a, pa, b, pb)
    assert e.value.status_name == "IMP_ERR_BAD_ROTATION" and e.value.row == 5
    with pytest.raises(ValueError, match="poses_a has 20 poses and poses_b 3"):
        ic.closest_batch(a, pa, b, pb[:3])
    with pytest.raises(ValueError):
        ic.closest_batch(a, np.zeros((4, 3)), b, pb[0])
    with pytest.raises(TypeError):
        ic.closest_batch(a, np.zeros((4, 7), dtype=complex), b, pb[0])
    with pytest.raises(TypeError):
        ic.closest_batch(a, pa, b)
    with pytest.raises(TypeError):
        ic.closest_batch(a, pa, "b", pb)
    with pytest.raises(ic.Error) as e:
        ic.closest_batch(a, pa, ic.circle(1.0), (0, 0, 0))
    assert e.value.status_name == "IMP_ERR_DIMENSION_MISMATCH"


def test_closest_batch_from_threads(rng):
    v, t = random_soup(rng, 30, 30, 1.5)
    m = ic.mesh(v, t, 0.05)
    s = ic.box3(0.3, 0.3, 0.3)
    n = 100 if SANITIZED else 400
    poses = random_poses3(rng, n, 2.0)
    want = ic.closest_batch(m, I3, s, poses)
    results = [None] * 4

    def work(k):
        results[k] = ic.closest_batch(m, I3, s, poses)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results:
        for got, exp in zip(r, want):
            assert np.array_equal(bits(got), bits(exp))


def test_closest_batch_memory(rng):
    # The arrays of a result, the hidden fields too, are freed with it.
    a, b = convex_pairs(rng)[2][0]
    r = ic.closest_batch(a, I2, b, random_poses2(rng, 10))
    refs = [weakref.ref(x) for x in list(r) + [r.child_a, r.child_b]]
    assert all(ref() is not None for ref in refs)
    del r
    assert all(ref() is None for ref in refs)


# ---------------------------------------------------------------------------
# Memory


def make_nonconvex(v, t, h, pts, kids, poses, obj, bad_t):
    ic.mesh(v, t, 0.1).triangles
    ic.heightfield(h, 0.5, 0.5, -1.0)
    ic.chain(pts, True).vertices
    c = ic.compound3(kids, poses)
    c.children, c.child_poses
    ic.mesh_from_file(obj)
    for call in (lambda: ic.mesh(v, bad_t), lambda: ic.compound3(kids, poses[:1]),
                 lambda: ic.heightfield(h, 0.0, 1.0, -1.0), lambda: ic.mesh_from_file(obj + ".missing.obj")):
        try:
            call()
        except ValueError:
            pass


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_nonconvex_refcounts_and_memory(rng, tmp_path):
    v, t = random_soup(rng, 100, 150)
    h = rng.uniform(0, 1, (12, 12))
    pts = rng.uniform(-1, 1, (50, 2))
    kids = [ic.box3(1, 1, 1), ic.sphere(0.5), ic.cone(0.5, 0.5)]
    poses = random_poses3(rng, 3)
    obj = str(tmp_path / "m.obj")
    with open(obj, "w") as f:
        f.writelines(f"v {x} {y} {z}\n" for x, y, z in v)
        f.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in t)
    bad_t = t.copy()
    bad_t[5, 1] = 1000
    args = (v, t, h, pts, kids, poses, obj, bad_t)
    objs = list(args) + kids
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(50):
        make_nonconvex(*args)
    gc.collect()
    assert [sys.getrefcount(o) for o in objs] == before
    rss0 = rss_bytes()
    for _ in range(30 if SANITIZED else 400):
        make_nonconvex(*args)
    gc.collect()
    rss1 = rss_bytes()
    # 400 meshes of 150 triangles, height fields of 242 prisms and their
    # hierarchies kept alive would take tens of megabytes.
    if not SANITIZED:  # AddressSanitizer holds freed blocks back (its quarantine)
        assert rss1 - rss0 < 4 * 1024 * 1024, f"resident memory grew by {rss1 - rss0} bytes"


def test_properties_of_every_nonconvex_kind():
    v, t = box_mesh()
    shapes = {
        "compound2": (ic.compound2([ic.circle(1.0)], [I2]), 2, 1, 0, (0, 2)),
        "compound3": (ic.compound3([ic.sphere(1.0)], [I3]), 3, 1, 0, (0, 3)),
        "mesh": (ic.mesh(v, t, 0.25), 3, 12, 8, (8, 3)),
        "heightfield": (ic.heightfield(np.zeros((3, 4)), 1, 1, -1, 0.5), 3, 12, 0, (0, 3)),
        "chain": (ic.chain([[0, 0], [1, 0], [1, 1]], False, 0.25), 2, 2, 3, (3, 2)),
    }
    for kind, (s, dim, children, nv, vshape) in shapes.items():
        assert s.kind == kind and s.dim == dim and s.child_count == children
        assert s.vertex_count == nv and s.vertices.shape == vshape and s.vertices.dtype == np.float64
        assert s.radius == {"mesh": 0.25, "heightfield": 0.5, "chain": 0.25}.get(kind, 0.0)
        assert kind in repr(s)
        if dim == 2:
            assert s.edges is None and s.faces is None
        else:
            assert s.edges.shape == (0, 2)
            assert len(s.faces) == (12 if kind == "mesh" else 0)
        assert (s.triangles is not None) == (kind == "mesh")
        assert (s.children is not None) == kind.startswith("compound")
        assert (s.child_poses is not None) == kind.startswith("compound")
    assert shapes["compound2"][0].child_poses.shape == (1, 3)
    assert shapes["compound3"][0].child_poses.shape == (1, 7)
    with pytest.raises(AttributeError):
        shapes["compound3"][0].children = ()
    with pytest.raises(TypeError):
        ic.Shape()
