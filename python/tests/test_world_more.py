# SPDX-License-Identifier: MIT
"""The World's remaining calls: query_distance, clearance, ray_cast_all,
target poses, filters and user objects changed after add_body, boxes,
types, membership, the statistics and the state hash; against numpy brute
force over circles and spheres and closed forms."""
import gc
import math
import weakref

import numpy as np
import pytest

import impact_collision as ic

ID3 = (0.0, 0.0, 0.0, 1.0)


def pose_at(dim, c):
    return (c[0], c[1], 0.0) if dim == 2 else (c[0], c[1], c[2]) + ID3


def ball(dim, r):
    return ic.circle(r) if dim == 2 else ic.sphere(r)


def ball_world(dim, n, seed, spread=10.0, broad="hash", static_every=0):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-spread, spread, size=(n, dim))
    radii = rng.uniform(0.2, 1.0, size=n)
    w = ic.World(dim, broad_phase=broad)
    ids = []
    for i in range(n):
        t = "static" if static_every and i % static_every == 0 else "dynamic"
        ids.append(w.add_body(ball(dim, radii[i]), pose_at(dim, centers[i]), t))
    return w, np.array(ids, dtype=np.uint64), centers, radii


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_query_distance_against_brute_force(dim, seed):
    w, ids, centers, radii = ball_world(dim, 200, seed)
    rng = np.random.default_rng(100 + seed)
    for _ in range(20):
        c = rng.uniform(-10, 10, size=dim)
        r = rng.uniform(0.1, 1.5)
        max_d = rng.uniform(-0.5, 4.0)
        hits = w.query_distance(ball(dim, r), pose_at(dim, c), max_d)
        gap = np.linalg.norm(centers - c, axis=1) - radii - r
        sure = {int(ids[i]) for i in np.flatnonzero(gap <= max_d - 1e-9)}
        maybe = {int(ids[i]) for i in np.flatnonzero(np.abs(gap - max_d) < 1e-9)}
        got = [h.id for h in hits]
        assert len(set(got)) == len(got)
        assert sure <= set(got) <= sure | maybe
        by_id = dict(zip((int(i) for i in ids), gap))
        for h in hits:
            assert h.distance == pytest.approx(by_id[h.id], abs=1e-9)
            # witness points: on the query ball and on the body's ball
            assert np.linalg.norm(h.point - c) == pytest.approx(r, abs=1e-9)
        d = [h.distance for h in hits]
        assert d == sorted(d)


def test_query_distance_errors_and_filter():
    w, ids, centers, radii = ball_world(3, 30, 7)
    with pytest.raises(ic.Error) as e:
        w.query_distance(ic.sphere(1.0), pose_at(3, (0, 0, 0)), math.inf)
    assert e.value.status == ic.IMP_ERR_NOT_FINITE
    with pytest.raises(ic.Error) as e:
        w.query_distance(ic.circle(1.0), pose_at(3, (0, 0, 0)), 1.0)
    assert e.value.status == ic.IMP_ERR_DIMENSION_MISMATCH
    with pytest.raises(ic.Error):
        w.query_distance(ic.sphere(1.0), (math.nan, 0, 0) + ID3, 1.0)
    all_hits = w.query_distance(ic.sphere(1.0), pose_at(3, (0, 0, 0)), 100.0)
    assert len(all_hits) == 30
    ignored = w.query_distance(ic.sphere(1.0), pose_at(3, (0, 0, 0)), 100.0, ignore=all_hits[0].id)
    assert [h.id for h in ignored] == [h.id for h in all_hits[1:]]
    assert w.query_distance(ic.sphere(1.0), pose_at(3, (0, 0, 0)), 100.0, mask=0) == []


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("broad", ["hash", "sweep", "naive"])
def test_clearance_against_brute_force(dim, broad):
    w, ids, centers, radii = ball_world(dim, 150, 11, spread=6.0, broad=broad, static_every=5)
    static = np.array([i % 5 == 0 for i in range(len(ids))])
    margin = 0.3
    pairs, dist, pa, pb, nrm = w.clearance(margin)
    assert pairs.shape == (len(dist), 2) and pairs.dtype == np.uint64
    assert pa.shape == pb.shape == nrm.shape == (len(dist), dim)
    index = {int(v): k for k, v in enumerate(ids)}
    gap = np.linalg.norm(centers[:, None] - centers[None], axis=2) - radii[:, None] - radii[None]
    sure, maybe = set(), set()
    for i in range(len(ids)):
        for j in range(i + 1, len(ids)):
            if static[i] and static[j]:
                continue
            if abs(gap[i, j] - margin) < 1e-9:
                maybe.add((i, j))
            elif gap[i, j] <= margin:
                sure.add((i, j))
    got = set()
    for (a, b), d, p, q, n in zip(pairs, dist, pa, pb, nrm):
        i, j = index[int(a)], index[int(b)]
        assert i < j
        got.add((i, j))
        assert d == pytest.approx(gap[i, j], abs=1e-9)
        assert np.dot(n, q - p) == pytest.approx(d, abs=1e-9)
    assert sure <= got <= sure | maybe
    # each pair once, a then b in order
    assert len(got) == len(pairs)
    with pytest.raises(ic.Error) as e:
        w.clearance(-1.0)
    assert e.value.status == ic.IMP_ERR_BAD_RADIUS
    with pytest.raises(ic.Error):
        w.clearance(math.nan)
    with pytest.raises(TypeError):
        w.clearance("1")


@pytest.mark.parametrize("dim", [2, 3])
def test_ray_cast_all_closed_form(dim):
    w = ic.World(dim)
    xs = [2.0, 5.0, 9.0, 14.0]
    rs = [0.5, 1.0, 0.25, 2.0]
    ids = [w.add_body(ball(dim, r), pose_at(dim, (x, 0.0, 0.0)), "static") for x, r in zip(xs, rs)]
    w.add_body(ball(dim, 1.0), pose_at(dim, (5.0, 10.0, 0.0)), "static")  # off the ray
    start, end = (0.0,) * dim, (20.0,) + (0.0,) * (dim - 1)
    hits = w.ray_cast_all(start, end)
    assert [h.id for h in hits] == ids
    for h, x, r in zip(hits, xs, rs):
        assert h.t == pytest.approx((x - r) / 20.0, abs=1e-6)
        assert h.normal[0] == pytest.approx(-1.0, abs=1e-6)
        assert not h.started_inside
    first = w.ray_cast(start, end)
    assert first.id == hits[0].id and first.t == hits[0].t
    # from inside the second ball: it comes first, at t = 0
    inside = w.ray_cast_all((5.0,) + (0.0,) * (dim - 1), end)
    assert inside[0].id == ids[1] and inside[0].t == 0.0 and inside[0].started_inside
    assert [h.id for h in inside[1:]] == ids[2:]
    assert w.ray_cast_all(start, end, ignore=ids[0])[0].id == ids[1]
    assert w.ray_cast_all((0.0, 50.0) + (0.0,) * (dim - 2), (20.0, 50.0) + (0.0,) * (dim - 2)) == []
    with pytest.raises(ic.Error):
        w.ray_cast_all((math.inf,) + (0.0,) * (dim - 1), end)
    with pytest.raises((TypeError, ValueError)):
        w.ray_cast_all((0.0,) * (dim + 1), end)


@pytest.mark.parametrize("dim", [2, 3])
def test_target_pose_reached_at_step_end(dim):
    w = ic.World(dim)
    k = w.add_body(ball(dim, 0.5), pose_at(dim, (0.0, 0.0, 0.0)), "kinematic")
    s = w.add_body(ball(dim, 0.5), pose_at(dim, (10.0, 0.0, 0.0)), "static")
    target = pose_at(dim, (4.0, 3.0, 1.0))
    w.set_target_pose(k, target)
    w.step(0.5)
    assert np.allclose(w.get_pose(k), target, atol=1e-12)
    # the target's velocity over the step hits the static ball: the contact
    # comes at the closed-form time
    w.set_pose(k, pose_at(dim, (0.0, 0.0, 0.0)))
    w.set_target_pose(k, pose_at(dim, (20.0, 0.0, 0.0)))
    w.step(2.0)
    c = w.contacts()
    assert len(c) >= 1 and {c[0].a, c[0].b} == {k, s}
    assert c[0].time == pytest.approx(w.time - 2.0 + 9.0 / 20.0 * 2.0, abs=1e-6)
    with pytest.raises(ic.Error) as e:
        w.set_target_pose(s, target)
    assert e.value.status == ic.IMP_ERR_STATIC_BODY
    with pytest.raises(ic.Error):
        w.set_target_pose(k, (math.nan,) * (3 if dim == 2 else 7))


def test_filters_after_add_body():
    w = ic.World(2)
    a = w.add_body(ic.circle(1.0), (0, 0, 0), category=2, mask=0b110, group=-3)
    b = w.add_body(ic.circle(1.0), (1.5, 0, 0), category=4)
    assert w.get_filter(a) == (2, 0b110, -3)
    w.update()
    assert len(w.touching_pairs()) == 1
    h = w.state_hash()
    w.set_filter(a, mask=0)
    assert w.get_filter(a) == (2, 0, -3)  # the others kept
    assert w.state_hash() != h
    w.update()
    begin, end = w.events()
    assert len(w.touching_pairs()) == 0 and {int(end[0][0]), int(end[0][1])} == {a, b}
    w.set_filter(a, category=1, mask=2**64 - 1, group=0)
    assert w.get_filter(a) == (1, 2**64 - 1, 0)
    w.update()
    assert len(w.touching_pairs()) == 1
    for bad in [dict(mask=-1), dict(category=2**64), dict(group=2**31), dict(mask=1.5), dict(group=True)]:
        before = w.state_hash()
        with pytest.raises((TypeError, ValueError)):
            w.set_filter(a, **bad)
        assert w.state_hash() == before
    with pytest.raises(ic.Error) as e:
        w.set_filter(a + (1 << 40), mask=0)
    assert e.value.status == ic.IMP_ERR_BAD_ID


def test_set_user_releases_the_old_object():
    class U:
        pass

    w = ic.World(3)
    u1, u2 = U(), U()
    r1 = weakref.ref(u1)
    b = w.add_body(ic.sphere(1.0), pose_at(3, (0, 0, 0)), user=u1)
    del u1
    assert w.user(b) is r1()
    w.set_user(b, u2)
    gc.collect()
    assert r1() is None and w.user(b) is u2
    w.remove_body(b)
    with pytest.raises(ic.Error):
        w.set_user(b, u2)


@pytest.mark.parametrize("dim", [2, 3])
def test_aabb_type_membership(dim):
    w = ic.World(dim)
    c = (1.0, -2.0, 3.0)[:dim]
    b = w.add_body(ball(dim, 0.75), pose_at(dim, (1.0, -2.0, 3.0)), "kinematic")
    lo, hi = w.get_aabb(b)
    assert np.allclose(lo, np.array(c) - 0.75, atol=1e-12) and np.allclose(hi, np.array(c) + 0.75, atol=1e-12)
    assert w.body_type(b) == "kinematic"
    assert b in w and (b + 1) not in w and "x" not in w and -1 not in w and 2**70 not in w
    w.remove_body(b)
    assert b not in w
    with pytest.raises(ic.Error):
        w.get_aabb(b)
    with pytest.raises(ic.Error):
        w.body_type(b)


@pytest.mark.parametrize("dim", [2, 3])
def test_stats_match_the_results(dim):
    w, ids, centers, radii = ball_world(dim, 300, 5, spread=8.0)
    w.update()
    s = w.stats()
    assert s["bodies"] == 300 and s["moved"] == 300
    assert s["touching"] == len(w.touching_pairs()) == s["begin_count"]
    assert s["end_count"] == 0 and s["narrow_calls"] >= s["touching"]
    rng = np.random.default_rng(3)
    for i in ids[:50]:
        w.set_velocity(int(i), rng.normal(size=dim), 0.0 if dim == 2 else (0.0, 0.0, 0.0))
    w.step(0.1)
    st = w.step_stats()
    assert st["moving"] == 50 and st["events"] == len(w.contacts()) and st["state"] == "complete"
    assert set(st) >= {"queued", "queue_peak", "heap_ops", "narrow_calls", "sweeps"}


def test_state_hash_equal_scenes_and_failed_calls():
    def build():
        w = ic.World(3)
        for i in range(20):
            w.add_body(ic.sphere(0.5 + 0.01 * i), pose_at(3, (i * 0.7, 0.0, 0.0)))
        w.update()
        return w

    w1, w2 = build(), build()
    assert w1.state_hash() == w2.state_hash() != 0
    h = w1.state_hash()
    body = int(w1.touching_pairs()[0][0])
    with pytest.raises(ic.Error):
        w1.set_pose(body, (math.nan, 0, 0) + ID3)
    assert w1.state_hash() == h
    w1.set_pose(body, (0.0, 5.0, 0.0) + ID3)
    assert w1.state_hash() != h


def test_closed_world_refuses_the_new_calls():
    w = ic.World(3)
    b = w.add_body(ic.sphere(1.0), pose_at(3, (0, 0, 0)))
    w.close()
    calls = [
        lambda: w.query_distance(ic.sphere(1.0), pose_at(3, (0, 0, 0)), 1.0),
        lambda: w.clearance(0.1),
        lambda: w.ray_cast_all((0, 0, 0), (1, 0, 0)),
        lambda: w.set_target_pose(b, pose_at(3, (0, 0, 0))),
        lambda: w.get_filter(b),
        lambda: w.set_filter(b, mask=0),
        lambda: w.set_user(b, 1),
        lambda: w.get_aabb(b),
        lambda: w.body_type(b),
        lambda: b in w,
        w.stats,
        w.step_stats,
        w.state_hash,
    ]
    for call in calls:
        with pytest.raises(ValueError):
            call()


def test_inside_step_callback():
    """Queries answer BUSY inside the step's callback (the C library's rule),
    user objects may change, and nothing crashes."""
    w = ic.World(2)
    a = w.add_body(ic.circle(0.5), (0, 0, 0))
    w.add_body(ic.circle(0.5), (3, 0, 0), "static")
    w.set_velocity(a, (10.0, 0.0), 0.0)
    seen = []

    def on_contact(c):
        w.set_user(a, "hit")
        with pytest.raises(ic.Error) as e:
            w.clearance(0.1)
        seen.append(e.value.status)
        with pytest.raises(ic.Error):
            w.set_filter(a, mask=0)

    w.step(1.0, on_contact)
    assert seen and all(s == ic.IMP_ERR_BUSY for s in seen)
    assert w.user(a) == "hit"


@pytest.mark.parametrize("dim", [2, 3])
def test_stacked_poses_and_velocities_equal_single_calls(dim):
    rng = np.random.default_rng(21)
    w, ids, centers, radii = ball_world(dim, 40, 9, static_every=7)
    moving = np.array([i for k, i in enumerate(ids) if k % 7 != 0], dtype=np.uint64)
    poses = w.get_poses(ids)
    assert poses.shape == (40, 3 if dim == 2 else 7)
    for i, p in zip(ids, poses):
        assert np.array_equal(p, w.get_pose(int(i)))
    lin = rng.normal(size=(len(moving), dim))
    ang = rng.normal(size=len(moving)) if dim == 2 else rng.normal(size=(len(moving), 3))
    w.set_velocities(moving, lin, ang)
    got_lin, got_ang = w.get_velocities(moving)
    assert np.array_equal(got_lin, lin) and np.array_equal(got_ang, ang)
    for k, i in enumerate(moving):
        v, a = w.get_velocity(int(i))
        assert np.array_equal(v, lin[k]) and np.array_equal(np.asarray(a), ang[k])
    # a static body in the middle: the rows before it applied, it and after not
    mixed = np.array([moving[0], ids[0], moving[1]], dtype=np.uint64)
    zero_lin = np.zeros((3, dim))
    zero_ang = np.zeros(3) if dim == 2 else np.zeros((3, 3))
    with pytest.raises(ic.Error) as e:
        w.set_velocities(mixed, zero_lin, zero_ang)
    assert e.value.status == ic.IMP_ERR_STATIC_BODY and e.value.row == 1
    assert not w.get_velocities([moving[0]])[0].any()
    assert np.array_equal(w.get_velocities([moving[1]])[0][0], lin[1])
    with pytest.raises(ValueError):
        w.set_velocities(moving, lin[:-1], ang)
    with pytest.raises(ic.Error) as e:
        w.set_velocities(moving[:2], np.full((2, dim), np.nan), ang[:2])
    assert e.value.row == 0
    w.remove_body(int(ids[3]))
    with pytest.raises(ic.Error) as e:
        w.get_poses(ids)
    assert e.value.status == ic.IMP_ERR_BAD_ID and e.value.row == 3
    with pytest.raises(ic.Error) as e:
        w.get_velocities([ids[3]])
    assert e.value.row == 0
    assert w.get_poses([]).shape == (0, 3 if dim == 2 else 7)
    w.set_velocities([], [], [])


def test_lazy_results_read_every_way_alike():
    """ClosestResult and QueryResult make their fields when read: attribute,
    index (negative too), unpacking and repr agree, a field read twice is
    the same object, and reading every field many times leaks nothing."""
    import sys
    import tracemalloc

    a = ic.polygon([[0, 0], [1, 0], [0, 1]])
    r = ic.closest(a, (0, 0, 0), ic.circle(0.5), (3.0, 0.5, 0.0))
    names = ["distance", "point_a", "point_b", "normal", "feature_a", "feature_b", "state", "iterations",
             "epa_iterations", "child_a", "child_b"]
    assert len(r) == len(names) and not isinstance(r, tuple)
    unpacked = list(r)
    for i, n in enumerate(names):
        v = getattr(r, n)
        assert v is r[i] is r[i - len(names)] is unpacked[i]
    assert r.distance == ic.distance(a, (0, 0, 0), ic.circle(0.5), (3.0, 0.5, 0.0))
    assert "ClosestResult(distance=" in repr(r) and "child_b=-1" in repr(r)
    with pytest.raises(IndexError):
        r[len(names)]
    w = ic.World(2)
    b = w.add_body(ic.circle(1.0), (4.0, 0.0, 0.0))
    q = w.nearest(ic.circle(1.0), (0.0, 0.0, 0.0))
    i, d, p, bp, n = q
    assert i == b == q.id and d == q.distance == 2.0 and p is q.point and n is q[-1]
    assert np.array_equal(bp, [3.0, 0.0]) and np.array_equal(n, [1.0, 0.0])
    assert repr(q).startswith("QueryResult(id=")
    with pytest.raises(AttributeError):
        q.distance = 1.0
    before = sys.getrefcount(b)
    tracemalloc.start()
    for k in range(2000):
        q = w.nearest(ic.circle(1.0), (0.0, 0.0, 0.0))
        tuple(q), q.point
        r = ic.closest(a, (0, 0, 0), ic.circle(0.5), (3.0, 0.5, 0.0))
        tuple(r), r.feature_a
        if k == 200:
            snap = tracemalloc.get_traced_memory()[0]
    grown = tracemalloc.get_traced_memory()[0] - snap
    tracemalloc.stop()
    assert grown < 64 * 1024, grown
    assert sys.getrefcount(b) == before


def test_queries_from_another_thread_inside_the_step_callback_are_busy():
    """While step()'s callback runs Python code, another thread may run: the
    queries that release the GIL refuse with IMP_ERR_BUSY (the C step is
    paused in the callback and goes on after it), the others get the
    library's own BUSY; nothing runs under the step."""
    import threading

    w = ic.World(2)
    a = w.add_body(ic.circle(0.5), (0, 0, 0))
    w.add_body(ic.circle(0.5), (3, 0, 0), "static")
    w.set_velocity(a, (10.0, 0.0), 0.0)
    calls = {
        "query_distance": lambda: w.query_distance(ic.circle(1.0), (1.0, 1.0, 0.0), 2.0),
        "clearance": lambda: w.clearance(0.5),
        "overlap_any_batch": lambda: w.overlap_any_batch(ic.circle(1.0), np.zeros((4, 3))),
        "nearest_batch": lambda: w.nearest_batch(ic.circle(1.0), np.zeros((4, 3))),
        "overlap_any": lambda: w.overlap_any(ic.circle(1.0), (0.0, 0.0, 0.0)),
    }
    seen = {}

    def other_thread():
        for name, call in calls.items():
            try:
                call()
                seen[name] = "answered"
            except ic.Error as e:
                seen[name] = e.status

    def on_contact(c):
        if not seen:
            t = threading.Thread(target=other_thread)
            t.start()
            t.join()

    w.step(1.0, on_contact)
    assert seen == {name: ic.IMP_ERR_BUSY for name in calls}
    # after the step, the same calls answer
    other_thread_seen = dict(seen)
    seen.clear()
    other_thread()
    assert all(v == "answered" for v in seen.values()), seen
    assert other_thread_seen
