# SPDX-License-Identifier: MIT
"""The World: bodies, update and events, the step and its callback, the
planner queries and their batches, against independent oracles (numpy
brute force over circles and spheres, closed forms, the pairwise calls),
plus lifetimes, errors and reference counts."""
import ast
import gc
import inspect
import math
import os
import sys
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import impact_collision as ic
from conftest import SANITIZED, random_poses2, random_poses3, regular_polygon

ID3 = (0.0, 0.0, 0.0, 1.0)


def pose_at(dim, c):
    """A pose with no rotation at centre c."""
    return (c[0], c[1], 0.0) if dim == 2 else (c[0], c[1], c[2]) + ID3


def ball(dim, r):
    return ic.circle(r) if dim == 2 else ic.sphere(r)


def pair_set(arr):
    return {frozenset((int(a), int(b))) for a, b in arr}


def brute_pairs(ids, centers, radii, margin=0.0, slack=1e-9):
    """Pairs of balls at most `margin` apart, by numpy, and the pairs too
    close to the boundary to decide (|gap - margin| < slack)."""
    d = np.linalg.norm(centers[:, None, :] - centers[None, :, :], axis=2)
    gap = d - (radii[:, None] + radii[None, :])
    iu = np.triu_indices(len(ids), 1)
    sure, unsure = set(), set()
    for i, j in zip(*iu):
        if abs(gap[i, j] - margin) < slack:
            unsure.add(frozenset((ids[i], ids[j])))
        elif gap[i, j] <= margin:
            sure.add(frozenset((ids[i], ids[j])))
    return sure, unsure


# ---------------------------------------------------------------------------
# The stub describes the class


def test_stub_world_methods():
    stub = os.path.join(os.path.dirname(__file__), "..", "impact_collision", "_impact.pyi")
    tree = ast.parse(open(stub).read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "World")
    seen = set()
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.name in ("__enter__", "__exit__"):
            continue
        seen.add(node.name)
        a = node.args
        stub_params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
        if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            assert isinstance(inspect.getattr_static(ic.World, node.name), type(ic.World.dim)), node.name
            continue
        if node.name == "__init__":
            assert ["self"] + list(inspect.signature(ic.World).parameters) == stub_params
            continue
        sig = inspect.signature(getattr(ic.World, node.name))
        assert list(sig.parameters) == stub_params, node.name
    public = {n for n in dir(ic.World) if not n.startswith("_")}
    assert public <= seen, sorted(public - seen)


# ---------------------------------------------------------------------------
# Touching pairs and events against numpy


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("broad", ["hash", "sweep", "naive"])
@pytest.mark.parametrize("margin", [0.0, 0.25])
def test_touching_pairs_and_events_vs_brute_force(dim, broad, margin):
    rng = np.random.default_rng(1000 * dim + len(broad) + int(margin * 100))
    n = 70
    size = 9.0 if dim == 2 else 5.0
    radii = rng.uniform(0.2, 0.6, n)
    centers = rng.uniform(0, size, (n, dim))
    with ic.World(dim, broad_phase=broad, margin=margin) as w:
        ids = [w.add_body(ball(dim, r), pose_at(dim, c)) for r, c in zip(radii, centers)]
        assert w.body_count == n
        w.update()
        sure, unsure = brute_pairs(ids, centers, radii, margin)
        got = pair_set(w.touching_pairs())
        assert sure <= got and got <= sure | unsure
        assert len(sure) > 5
        begin, end = w.events()
        assert pair_set(begin) == got and len(end) == 0
        assert w.touching_pairs().dtype == np.uint64 and w.touching_pairs().shape == (len(got), 2)

        # Move every body at once (ids as an array) and update again.
        centers2 = centers + rng.normal(scale=0.5, size=centers.shape)
        poses = np.array([pose_at(dim, c) for c in centers2])
        w.set_poses(np.array(ids, dtype=np.uint64), poses)
        w.update()
        sure2, unsure2 = brute_pairs(ids, centers2, radii, margin)
        got2 = pair_set(w.touching_pairs())
        assert sure2 <= got2 and got2 <= sure2 | unsure2
        begin, end = w.events()
        assert pair_set(begin) == got2 - got
        assert pair_set(end) == got - got2
        assert len(begin) > 0 and len(end) > 0
        # Events are sorted and unique, lower slot first.
        for ev in (begin, end):
            assert np.all((ev[:, 0] & 0xFFFFFFFF) < (ev[:, 1] & 0xFFFFFFFF))

        # A third update with nothing moved: no events, the same pairs.
        w.update()
        begin, end = w.events()
        assert len(begin) == 0 and len(end) == 0
        assert pair_set(w.touching_pairs()) == got2


def test_removed_body_ends_its_pairs():
    with ic.World(2) as w:
        c = ic.circle(1.0)
        a = w.add_body(c, (0, 0, 0))
        b = w.add_body(c, (1.5, 0, 0))
        w.update()
        assert pair_set(w.touching_pairs()) == {frozenset((a, b))}
        w.remove_body(b)
        w.update()
        begin, end = w.events()
        assert len(begin) == 0
        assert pair_set(end) == {frozenset((a, b))}  # names the removed id
        assert len(w.touching_pairs()) == 0


def test_filters_and_static_bodies():
    with ic.World(2) as w:
        c = ic.circle(1.0)
        s1 = w.add_body(c, (0, 0, 0), "static")
        s2 = w.add_body(c, (1, 0, 0), "static")
        k = w.add_body(c, (0, 1, 0), "kinematic")
        d = w.add_body(c, (1, 1, 0), category=2, mask=2)  # pairs only with category-2 bodies
        g1 = w.add_body(c, (0.5, 0.5, 0), group=-3)
        g2 = w.add_body(c, (0.5, 0.6, 0), group=-3)
        w.update()
        got = pair_set(w.touching_pairs())
        assert frozenset((s1, s2)) not in got  # static pairs never
        assert frozenset((s1, k)) in got and frozenset((s2, k)) in got
        assert not any(d in p for p in got)  # its mask matches no one's category
        assert frozenset((g1, g2)) not in got  # same negative group
        assert frozenset((g1, k)) in got


# ---------------------------------------------------------------------------
# Ids


def test_ids_are_ints_and_round_trip():
    with ic.World(2) as w:
        c = ic.circle(0.5)
        a = w.add_body(c, (0, 0, 0))
        b = w.add_body(c, (0.5, 0, 0))
        assert type(a) is int and a != b and a > 0 and a < 2**64
        w.update()
        (pa, pb), = w.touching_pairs().tolist()
        assert {pa, pb} == {a, b}
        # numpy integers are ids too, and the ids of the arrays name the bodies.
        for x in (np.uint64(a), np.int64(a), w.touching_pairs()[0, 0]):
            w.get_pose(x)
        assert w.get_pose(np.uint64(b))[0] == 0.5
        # A removed slot is reused under a new generation: the old id stays stale.
        w.remove_body(a)
        a2 = w.add_body(c, (3, 0, 0))
        assert a2 != a and (a2 & 0xFFFFFFFF) == (a & 0xFFFFFFFF)
        with pytest.raises(ic.Error) as e:
            w.get_pose(a)
        assert e.value.status == ic.IMP_ERR_BAD_ID


def test_stale_and_bad_ids():
    w = ic.World(3)
    s = ic.sphere(1.0)
    with pytest.raises(ic.Error) as e:
        w.get_pose(1)  # no body yet
    assert e.value.status_name == "IMP_ERR_BAD_ID"
    a = w.add_body(s, (0, 0, 0) + ID3)
    b = w.add_body(s, (5, 0, 0) + ID3)
    w.remove_body(b)
    calls = [
        lambda: w.get_pose(b),
        lambda: w.set_pose(b, (0, 0, 0) + ID3),
        lambda: w.remove_body(b),
        lambda: w.user(b),
        lambda: w.shape(b),
        lambda: w.distance(a, b),
        lambda: w.set_velocity(b, (1, 0, 0), (0, 0, 0)),
        lambda: w.get_velocity(b),
        lambda: w.overlap_any(s, (0, 0, 0) + ID3, ignore=b),
        lambda: w.get_pose(0),
        lambda: w.get_pose(-1),
        lambda: w.get_pose(2**64),
        lambda: w.distance(a, a),
    ]
    for call in calls:
        with pytest.raises(ic.Error) as e:
            call()
        assert e.value.status == ic.IMP_ERR_BAD_ID
    for bad in ("1", 1.0, None, True):
        with pytest.raises(TypeError):
            w.get_pose(bad)
    w.close()


# ---------------------------------------------------------------------------
# Poses


@pytest.mark.parametrize("dim", [2, 3])
def test_set_get_pose(dim, rng):
    poses = random_poses2(rng, 20) if dim == 2 else random_poses3(rng, 20)
    with ic.World(dim) as w:
        shape = ball(dim, 0.3)
        ids = [w.add_body(shape, p) for p in poses]
        for i, p in zip(ids, poses):
            got = w.get_pose(i)
            assert got.shape == (dim * 2 - 1 if dim == 2 else 7,)
            if dim == 2:
                assert np.allclose(got[:2], p[:2], rtol=0, atol=1e-15)
                assert abs(math.remainder(got[2] - p[2], 2 * math.pi)) < 1e-12
            else:
                assert np.array_equal(got[:3], p[:3])
                q = got[3:]
                assert min(np.abs(q - p[3:]).max(), np.abs(q + p[3:]).max()) < 1e-12
        new = random_poses2(rng, 20) if dim == 2 else random_poses3(rng, 20)
        w.set_poses(ids, new)  # a list of ints
        for i, p in zip(ids, new):
            assert np.allclose(w.get_pose(i)[:dim], p[:dim], rtol=0, atol=1e-15)
        w.set_pose(ids[0], list(new[1]))
        assert np.allclose(w.get_pose(ids[0])[:dim], new[1][:dim], rtol=0, atol=1e-15)


def test_set_poses_is_all_or_none_and_names_the_first_bad_row():
    with ic.World(2) as w:
        c = ic.circle(0.5)
        ids = [w.add_body(c, (i, 0, 0)) for i in range(5)]
        w.remove_body(ids[3])
        poses = np.array([[i, 10.0, 0.0] for i in range(5)])
        poses[4, 0] = np.inf  # a later bad row: the first one is named
        with pytest.raises(ic.Error) as e:
            w.set_poses(ids, poses)
        assert e.value.status == ic.IMP_ERR_BAD_ID and e.value.row == 3 and "ids[3]" in str(e.value)
        assert [w.get_pose(i)[1] for i in ids[:3] + ids[4:]] == [0.0] * 4  # none applied

        live = [ids[0], ids[1], ids[2], ids[4]]
        bad = np.array([[0, 20, 0], [1, 20, 0], [np.nan, 20, 0], [4, 20, 0]], dtype=float)
        with pytest.raises(ic.Error) as e:
            w.set_poses(np.array(live, dtype=np.int64), bad)
        assert e.value.status == ic.IMP_ERR_NOT_FINITE and e.value.row == 2 and "poses[2]" in str(e.value)
        assert [w.get_pose(i)[1] for i in live] == [0.0] * 4

        # Good rows all land, a body named twice taking its last pose.
        w.set_poses([ids[0], ids[1], ids[4], ids[4]], bad[[0, 1, 3, 0]])
        assert [w.get_pose(i)[1] for i in live] == [20.0, 20.0, 0.0, 20.0]
        assert w.get_pose(ids[4])[0] == 0.0

        with pytest.raises(ValueError):
            w.set_poses(live, np.zeros((3, 3)))  # count mismatch
        with pytest.raises(ValueError):
            w.set_poses(live[:1], np.zeros(3))  # a single pose is not a stack
        with pytest.raises(ValueError):
            w.set_poses(live, np.zeros((4, 7)))  # 3D rows in a 2D world
        with pytest.raises(TypeError):
            w.set_poses(np.array([0.5, 1.5]), np.zeros((2, 3)))
        with pytest.raises(ic.Error) as e:
            w.set_poses(np.array([ids[0], -1]), np.zeros((2, 3)))
        assert e.value.status == ic.IMP_ERR_BAD_ID and e.value.row == 1
        with pytest.raises(ic.Error) as e:
            w.set_poses([ids[0], ids[1], 2**64], np.zeros((3, 3)))
        assert e.value.status == ic.IMP_ERR_BAD_ID and e.value.row == 2 and "ids[2]" in str(e.value)
        assert w.get_pose(ids[0])[1] == 20.0  # ids that cannot be read: no row applied
        w.set_poses([], np.zeros((0, 3)))


# ---------------------------------------------------------------------------
# Planner queries


def scene(dim, rng, n=25):
    """Random convex bodies: polygons and boxes (2D), boxes, polytopes and spheres (3D)."""
    shapes, poses = [], []
    for k in range(n):
        if dim == 2:
            shapes.append(ic.polygon(regular_polygon(3 + k % 5, rng.uniform(0.3, 0.8))) if k % 2 else
                          ic.box2(rng.uniform(0.2, 0.6), rng.uniform(0.2, 0.6), rng.uniform(0, 0.1)))
        else:
            kind = k % 3
            shapes.append(ic.box3(*rng.uniform(0.2, 0.5, 3)) if kind == 0 else
                          ic.polytope(rng.normal(size=(8, 3)) * 0.4) if kind == 1 else ic.sphere(rng.uniform(0.2, 0.5)))
    poses = random_poses2(rng, n, 5.0) if dim == 2 else random_poses3(rng, n, 4.0)
    return shapes, poses


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("broad", ["hash", "sweep"])
def test_queries_vs_pairwise_brute_force(dim, broad, rng):
    shapes, poses = scene(dim, rng)
    q = ic.box2(0.3, 0.2) if dim == 2 else ic.capsule3((0, 0, -0.2), (0, 0, 0.2), 0.2)
    queries = random_poses2(rng, 60, 6.0) if dim == 2 else random_poses3(rng, 60, 5.0)
    with ic.World(dim, broad_phase=broad) as w:
        ids = [w.add_body(s, p) for s, p in zip(shapes, poses)]
        hits = 0
        for qp in queries:
            signed = np.array([ic.closest(q, qp, s, p).distance for s, p in zip(shapes, poses)])
            overl = [ic.overlap(q, qp, s, p) for s, p in zip(shapes, poses)]
            # overlap_any and overlap_shape
            assert w.overlap_any(q, qp) == any(overl)
            got = w.overlap_shape(q, qp)
            assert got.dtype == np.uint64
            assert sorted(got.tolist()) == sorted(i for i, o in zip(ids, overl) if o)
            hits += any(overl)
            # nearest: the smallest signed distance
            r = w.nearest(q, qp)
            best = signed.min()
            assert abs(r.distance - best) <= 1e-7 * max(1.0, abs(best))
            order = np.sort(signed)
            if order[1] - order[0] > 1e-6:
                assert r.id == ids[int(np.argmin(signed))]
            assert r.point.shape == (dim,) and r.body_point.shape == (dim,)
            assert abs(np.dot(r.normal, r.body_point - r.point) - r.distance) < 1e-7
            # within a bound
            bound = float(order[len(order) // 2] - 1e-3)
            rb = w.nearest(q, qp, max_distance=bound)
            if order[0] <= bound - 1e-6:
                assert rb.id == r.id or abs(rb.distance - r.distance) < 1e-7
            small = float(order[0] - 0.01)
            rn = w.nearest(q, qp, small)
            assert rn.id is None and rn.distance == math.inf
        assert 0 < hits < len(queries)
        # distance between two bodies: the signed distance of the pair
        for i in range(0, len(ids) - 1, 3):
            r = w.distance(ids[i], ids[i + 1])
            ref = ic.closest(shapes[i], poses[i], shapes[i + 1], poses[i + 1]).distance
            assert r.id == ids[i + 1]
            assert abs(r.distance - ref) <= 1e-7 * max(1.0, abs(ref))


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("workers", [1, 2])
def test_batches_equal_loops_bit_for_bit(dim, workers, rng):
    shapes, poses = scene(dim, rng)
    q = ball(dim, 0.25)
    n = 300
    queries = random_poses2(rng, n, 6.0) if dim == 2 else random_poses3(rng, n, 5.0)
    # A path too: consecutive poses help each other in the batch.
    path = np.linspace(queries[0], queries[1], 100)
    if dim == 3:
        path[:, 3:] = queries[0, 3:]
    with ic.World(dim, workers=workers) as w:
        ids = [w.add_body(s, p) for s, p in zip(shapes, poses)]
        for stack in (queries, path):
            o = w.overlap_any_batch(q, stack)
            assert o.dtype == np.bool_ and o.shape == (len(stack),)
            assert o.tolist() == [w.overlap_any(q, p) for p in stack]
            for bound in (math.inf, 0.5):
                bid, bd, bp, bbp, bn = w.nearest_batch(q, stack, bound)
                assert bid.dtype == np.uint64 and bp.shape == (len(stack), dim)
                singles = [w.nearest(q, p, bound) for p in stack]
                assert bid.tolist() == [r.id if r.id is not None else 0 for r in singles]
                assert np.array_equal(bd, [r.distance for r in singles])
                found = bid != 0
                if stack is queries:
                    assert found.any() and (bound == math.inf or not found.all())
                for arr, field in ((bp, "point"), (bbp, "body_point"), (bn, "normal")):
                    assert np.array_equal(arr[found], np.array([getattr(r, field) for r in singles])[found])
        # filters reach the batches
        o = w.overlap_any_batch(q, queries, mask=0)
        assert not o.any()
        empty = w.nearest_batch(q, np.zeros((0, 3 if dim == 2 else 7)))
        assert [a.shape[0] for a in empty] == [0] * 5


def test_batch_errors_name_the_row():
    with ic.World(3) as w:
        s = ic.sphere(0.5)
        w.add_body(s, (0, 0, 0) + ID3)
        stack = np.tile(np.array((0, 0, 0) + ID3, dtype=float), (6, 1))
        stack[4, 3:] = (1, 1, 0, 0)  # not a unit quaternion
        for call in (w.overlap_any_batch, w.nearest_batch):
            with pytest.raises(ic.Error) as e:
                call(s, stack)
            assert e.value.status == ic.IMP_ERR_BAD_ROTATION and e.value.row == 4
            assert "poses[4]" in str(e.value)
        with pytest.raises(ValueError):
            w.overlap_any_batch(s, stack[0])  # a single pose
        with pytest.raises(ValueError):
            w.overlap_any_batch(s, np.zeros((3, 3)))  # 2D rows
        with pytest.raises(ic.Error) as e:
            w.nearest_batch(s, stack[:2], math.nan)
        assert e.value.status == ic.IMP_ERR_NOT_FINITE
        with pytest.raises(ic.Error) as e:
            w.overlap_any_batch(ic.circle(1.0), np.zeros((2, 7)))
        assert e.value.status == ic.IMP_ERR_DIMENSION_MISMATCH and e.value.row is None
        with pytest.raises(ic.Error) as e:
            w.nearest_batch(s, stack[:2], ignore=12345)
        assert e.value.status == ic.IMP_ERR_BAD_ID and e.value.row is None and "ignore" in str(e.value)


def test_batches_from_threads():
    rng = np.random.default_rng(7)
    shapes, poses = scene(3, rng)
    q = ic.sphere(0.3)
    stack = random_poses3(rng, 2000 if not SANITIZED else 400, 5.0)
    with ic.World(3) as w:
        for s, p in zip(shapes, poses):
            w.add_body(s, p)
        ref = w.nearest_batch(q, stack)[1]
        out = [None] * 4

        def run(k):
            out[k] = w.nearest_batch(q, stack)[1]

        threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for o in out:
            assert np.array_equal(o, ref)


@pytest.mark.parametrize("dim", [2, 3])
def test_cast_ray_motion_free_closed_forms(dim):
    with ic.World(dim) as w:
        big = w.add_body(ball(dim, 1.0), pose_at(dim, (0, 0, 0)))
        small = ball(dim, 0.5)
        start, end = pose_at(dim, (-5, 0, 0)), pose_at(dim, (5, 0, 0))
        h = w.cast_shape(small, start, end)
        assert h.state == "hit" and h.id == big and not h.started_inside
        assert abs(h.t - 0.35) < 1e-6  # centres 1.5 apart at x = -1.5
        assert np.allclose(h.normal, [1] + [0] * (dim - 1), atol=1e-6)
        assert abs(h.pose[0] + 1.5) < 1e-5 and h.pose.shape == ((3,) if dim == 2 else (7,))
        assert abs(h.point[0] + 1.0) < 1e-5
        assert not w.motion_free(small, start, end)
        above_from, above_to = pose_at(dim, (-5, 3, 0)), pose_at(dim, (5, 3, 0))
        free = w.cast_shape(small, above_from, above_to)
        assert free.state == "free" and free.id is None and free.t == 1.0
        assert w.motion_free(small, above_from, above_to)
        inside = w.cast_shape(small, pose_at(dim, (0.2, 0, 0)), end)
        assert inside.started_inside and inside.t == 0.0
        # ignore the body: free
        assert w.cast_shape(small, start, end, ignore=big).state == "free"

        r = w.ray_cast((-5, 0, 0)[:dim], (5, 0, 0)[:dim])
        assert r.id == big and abs(r.t - 0.4) < 1e-6 and abs(r.point[0] + 1.0) < 1e-5
        assert np.allclose(r.normal, [-1] + [0] * (dim - 1), atol=1e-6)
        miss = w.ray_cast((-5, 3, 0)[:dim], (5, 3, 0)[:dim])
        assert miss.id is None and miss.t == 1.0
        with pytest.raises(ValueError):
            w.ray_cast((0, 0, 0, 0)[: dim + 1], (1, 0, 0)[:dim])


def test_cast_2d_pose_turns():
    with ic.World(2) as w:
        w.add_body(ic.box2(0.5, 0.5), (0, 0, 0))
        h = w.cast_shape(ic.box2(0.1, 1.0), (-5, 0, 0), (5, 0, 1.0))
        assert h.state == "hit"
        assert abs(h.pose[2] - h.t * 1.0) < 1e-9
        assert abs(h.pose[0] - (-5 + 10 * h.t)) < 1e-9


def test_query_errors():
    with ic.World(2) as w:
        c = ic.circle(1.0)
        w.add_body(c, (0, 0, 0))
        with pytest.raises(ic.Error) as e:
            w.overlap_any(ic.sphere(1.0), (0, 0, 0))
        assert e.value.status == ic.IMP_ERR_DIMENSION_MISMATCH
        with pytest.raises(ic.Error) as e:
            w.nearest(c, (np.nan, 0, 0))
        assert e.value.status == ic.IMP_ERR_NOT_FINITE and "pose" in str(e.value)
        with pytest.raises(ic.Error) as e:
            w.nearest(c, (0, 0, 0), math.nan)
        assert e.value.status == ic.IMP_ERR_NOT_FINITE
        with pytest.raises(ValueError):
            w.overlap_any(c, (0, 0, 0, 0, 0, 0, 1))
        with pytest.raises(TypeError):
            w.overlap_any("circle", (0, 0, 0))
        with pytest.raises(ValueError):
            w.overlap_any(c, (0, 0, 0), mask=-1)
        with pytest.raises(ic.Error) as e:
            w.cast_shape(c, (0, 0, 0), (1, 0, 0), max_iterations=0)
        assert e.value.status == ic.IMP_ERR_BAD_OPTIONS


# ---------------------------------------------------------------------------
# The step


@pytest.mark.parametrize("dim", [2, 3])
def test_step_contact_time_is_analytic(dim):
    with ic.World(dim) as w:
        r = 0.5
        a = w.add_body(ball(dim, r), pose_at(dim, (0, 0, 0)))
        b = w.add_body(ball(dim, r), pose_at(dim, (5, 0, 0)))
        zero = 0.0 if dim == 2 else (0, 0, 0)
        w.set_velocity(a, (2, 0, 0)[:dim], zero)
        w.set_velocity(b, (-1, 0, 0)[:dim], zero)
        lin, ang = w.get_velocity(a)
        assert lin.tolist() == [2, 0, 0][:dim]
        seen = []

        def on_contact(c):
            seen.append(c)
            # Stop both where they meet (allowed inside the callback).
            w.set_velocity(c.a, (0, 0, 0)[:dim], zero)
            w.set_velocity(c.b, (0, 0, 0)[:dim], zero)

        w.step(2.0, on_contact)
        t_hit = 4.0 / 3.0  # gap 4, closing speed 3
        assert len(seen) == 1
        c = seen[0]
        assert {c.a, c.b} == {a, b}
        assert abs(c.t - t_hit) < 1e-6 and c.t <= t_hit
        assert c.time == c.t and not c.capped
        assert 0 <= c.distance <= 2e-6
        assert np.allclose(c.normal, [1] + [0] * (dim - 1), atol=1e-9)
        assert abs(c.normal_speed + 3.0) < 1e-9
        assert abs(c.point_a[0] - (2 * c.t + r)) < 1e-6 and c.point_a.shape == (dim,)
        assert w.time == 2.0
        assert abs(w.get_pose(a)[0] - 2 * c.t) < 1e-12
        assert abs(w.get_pose(b)[0] - (5 - c.t)) < 1e-12
        (again,) = w.contacts()
        assert (again.a, again.b, again.t, again.distance) == (c.a, c.b, c.t, c.distance)
        assert np.array_equal(again.normal, c.normal)
        # Without a callback the contacts are still recorded: b meets a again.
        w.set_velocity(b, (-1, 0, 0)[:dim], zero)
        w.step(0.5)
        (c2,) = w.contacts()
        assert isinstance(c2, ic.Contact) and c2.t < 1e-6 and abs(c2.time - 2.0) < 1e-6


class Boom(Exception):
    pass


def test_callback_exception_propagates_and_later_contacts_are_skipped():
    with ic.World(2) as w:
        c = ic.circle(0.5)
        a = w.add_body(c, (0, 0, 0))
        w.add_body(c, (3, 0, 0), "static")  # met at t = 2
        d = w.add_body(c, (0, 10, 0))
        w.add_body(c, (5, 10, 0), "static")  # met at t = 4
        w.set_velocity(a, (1, 0), 0.0)
        w.set_velocity(d, (1, 0), 0.0)
        calls = []

        def on_contact(ct):
            calls.append(ct.t)
            raise Boom("stop")

        with pytest.raises(Boom):
            w.step(5.0, on_contact)
        assert len(calls) == 1 and abs(calls[0] - 2.0) < 1e-5
        # The step ran to its end; the world is usable.
        assert w.time == 5.0
        assert len(w.contacts()) == 2
        w.update()
        assert w.body_count == 4

        with pytest.raises(TypeError):
            w.step(1.0, on_contact=42)
        with pytest.raises(ic.Error) as e:
            w.step(-1.0)
        assert e.value.status == ic.IMP_ERR_OUT_OF_RANGE


def test_callback_cannot_change_or_close_the_world():
    with ic.World(2) as w:
        c = ic.circle(0.5)
        a = w.add_body(c, (0, 0, 0))
        w.add_body(c, (2, 0, 0))
        w.set_velocity(a, (1, 0), 0.0)
        statuses = []

        def on_contact(ct):
            for call in (lambda: w.add_body(c, (9, 9, 0)), lambda: w.remove_body(a), lambda: w.close(),
                         lambda: w.step(1.0), lambda: w.update(), lambda: w.set_pose(a, (0, 0, 0)),
                         lambda: w.overlap_any(c, (0, 0, 0))):
                try:
                    call()
                    statuses.append(None)
                except ic.Error as e:
                    statuses.append(e.status)

        w.step(2.0, on_contact)
        assert statuses and set(statuses) == {ic.IMP_ERR_BUSY}
        assert not w.closed and w.body_count == 2


def test_static_body_has_no_velocity():
    with ic.World(3) as w:
        s = w.add_body(ic.sphere(1.0), (0, 0, 0) + ID3, type="static")
        with pytest.raises(ic.Error) as e:
            w.set_velocity(s, (1, 0, 0), (0, 0, 0))
        assert e.value.status == ic.IMP_ERR_STATIC_BODY
        with pytest.raises(ValueError):
            w.set_velocity(s, (1, 0), (0, 0, 0))


# ---------------------------------------------------------------------------
# Lifetimes, closing, errors of the options


def test_shapes_and_user_objects_kept_alive():
    class User:
        pass

    with ic.World(2) as w:
        shape = ic.polygon(regular_polygon(6))
        user = User()
        wr = weakref.ref(user)
        base = sys.getrefcount(shape)
        a = w.add_body(shape, (0, 0, 0), user=user)
        assert sys.getrefcount(shape) == base + 1
        assert w.user(a) is user and w.shape(a) is shape
        del shape, user
        gc.collect()
        assert wr() is not None
        # The body's shape still answers.
        probe = ic.circle(0.5)
        assert w.overlap_any(probe, (0.5, 0, 0))
        assert abs(w.nearest(probe, (3, 0, 0)).distance - 1.5) < 1e-9
        w.update()
        shape = w.shape(a)
        w.remove_body(a)
        assert wr() is None  # released with the body
        assert sys.getrefcount(shape) == base
        b = w.add_body(shape, (0, 0, 0), user=User())
        wr2 = weakref.ref(w.user(b))
    assert wr2() is None  # released on close
    assert sys.getrefcount(shape) == base


def test_world_freed_by_the_cycle_collector():
    class User:
        pass

    w = ic.World(2)
    u = User()
    u.world = w  # a cycle: world -> entry -> user -> world
    w.add_body(ic.circle(1.0), (0, 0, 0), user=u)
    wr = weakref.ref(u)
    del w, u
    gc.collect()
    assert wr() is None


def test_closed_world_and_context_manager():
    with ic.World(3, broad_phase="sweep", margin=0.1, fat_ratio=0.0, narrow_phase=False, workers=2) as w:
        assert not w.closed and w.dim == 3
        s = w.add_body(ic.sphere(1.0), (0, 0, 0) + ID3)
    assert w.closed
    w.close()  # idempotent
    shape = ic.sphere(1.0)
    calls = [
        lambda: w.add_body(shape, (0, 0, 0) + ID3),
        lambda: w.remove_body(s),
        lambda: w.get_pose(s),
        lambda: w.set_pose(s, (0, 0, 0) + ID3),
        lambda: w.set_poses([s], np.zeros((1, 7))),
        lambda: w.user(s),
        lambda: w.update(),
        lambda: w.touching_pairs(),
        lambda: w.events(),
        lambda: w.step(0.1),
        lambda: w.contacts(),
        lambda: w.overlap_any(shape, (0, 0, 0) + ID3),
        lambda: w.nearest(shape, (0, 0, 0) + ID3),
        lambda: w.overlap_any_batch(shape, np.zeros((1, 7))),
        lambda: w.nearest_batch(shape, np.zeros((1, 7))),
        lambda: w.body_count,
        lambda: w.__enter__(),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="closed"):
            call()
    # An exception inside `with` still closes.
    with pytest.raises(Boom):
        with ic.World(2) as w2:
            raise Boom()
    assert w2.closed


def test_world_options():
    w = ic.World()
    assert w.dim == 3 and w.body_count == 0 and w.time == 0.0
    w.close()
    with pytest.raises(ic.Error) as e:
        ic.World(4)
    assert e.value.status == ic.IMP_ERR_BAD_OPTIONS
    with pytest.raises(ic.Error) as e:
        ic.World(2, margin=-1.0)
    assert e.value.status == ic.IMP_ERR_BAD_RADIUS
    with pytest.raises(ic.Error):
        ic.World(2, workers=100000)
    with pytest.raises(ValueError):
        ic.World(2, broad_phase="octree")
    with pytest.raises(TypeError):
        ic.World(2, "hash")  # options are keywords
    with ic.World(2) as w:
        with pytest.raises(ic.Error) as e:
            w.add_body(ic.sphere(1.0), (0, 0, 0))
        assert e.value.status == ic.IMP_ERR_DIMENSION_MISMATCH
        with pytest.raises(ValueError):
            w.add_body(ic.circle(1.0), (0, 0, 0), type="ghost")
        with pytest.raises(ic.Error) as e:
            w.add_body(ic.circle(1.0), (0, 0, math.inf))
        assert e.value.status == ic.IMP_ERR_NOT_FINITE and "pose" in str(e.value)
        assert w.body_count == 0


# ---------------------------------------------------------------------------
# Reference counts and memory


def world_calls(w, ids, shape, pose, stack, user, bad_id):
    w.set_pose(ids[0], pose)
    w.get_pose(ids[1])
    w.set_poses(ids, stack)
    w.update()
    w.touching_pairs()
    w.events()
    w.overlap_any(shape, pose)
    w.nearest(shape, pose)
    w.overlap_shape(shape, pose)
    w.distance(ids[0], ids[1])
    w.cast_shape(shape, pose, (3.0, 1.0, 0.0))
    w.ray_cast((0.0, 0.0), (3.0, 0.0))
    w.overlap_any_batch(shape, stack)
    w.nearest_batch(shape, stack)
    w.user(ids[2])
    w.set_velocity(ids[1], (0.1, 0.0), 0.0)
    w.step(0.01, lambda c: None)
    w.contacts()
    b = w.add_body(shape, pose, user=user)
    w.remove_body(b)
    try:
        w.get_pose(bad_id)
    except ic.Error:
        pass
    try:
        w.set_poses(ids, stack[:1])
    except ValueError:
        pass


def test_world_refcounts_and_memory():
    with ic.World(2) as w:
        shape = ic.circle(0.5)
        user = object()
        ids = [w.add_body(shape, (i * 0.8, 0.0, 0.0)) for i in range(3)]
        pose = np.array([0.0, 0.0, 0.1])
        stack = np.array([[i * 0.8, 0.0, 0.0] for i in range(3)])
        bad_id = w.add_body(shape, (9.0, 9.0, 0.0))
        w.remove_body(bad_id)
        objs = [shape, user, pose, stack]
        world_calls(w, ids, shape, pose, stack, user, bad_id)
        gc.collect()
        before = [sys.getrefcount(o) for o in objs]
        for _ in range(200):
            world_calls(w, ids, shape, pose, stack, user, bad_id)
        gc.collect()
        assert [sys.getrefcount(o) for o in objs] == before

        n = 300 if SANITIZED else 1000
        tracemalloc.start()
        for _ in range(n // 10):
            world_calls(w, ids, shape, pose, stack, user, bad_id)
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        for _ in range(n):
            world_calls(w, ids, shape, pose, stack, user, bad_id)
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert second - first < 64 * 1024, (first, second)


def test_many_worlds_freed():
    gc.collect()
    with open("/proc/self/statm") as f:
        rss0 = int(f.read().split()[1])
    shape = ic.sphere(1.0)
    base = sys.getrefcount(shape)
    for k in range(200 if SANITIZED else 2000):
        w = ic.World(3)
        for i in range(5):
            w.add_body(shape, (i, 0, 0) + ID3)
        w.update()
        if k % 2:
            w.close()
        del w
    gc.collect()
    assert sys.getrefcount(shape) == base
    with open("/proc/self/statm") as f:
        rss1 = int(f.read().split()[1])
    assert (rss1 - rss0) * 4096 < 32 * 1024 * 1024
