# SPDX-License-Identifier: MIT
"""Hostile arguments: converting an argument runs Python code (__index__,
__float__, __array__, a finalizer run by the cycle collector) that closes
the World or mutates the sequence being read. Every call must end in a
clean exception or the right answer, never in a use of freed memory (the
-Dsanitize=true build catches those)."""
import gc
import threading

import numpy as np
import pytest

import impact_collision as ic

I3 = [0.0, 0, 0, 0, 0, 0, 1]


def world3():
    w = ic.World(3)
    s = ic.sphere(1.0)
    a = w.add_body(s, I3)
    b = w.add_body(s, [5.0, 0, 0, 0, 0, 0, 1])
    return w, s, a, b


class CloseOnFloat:
    def __init__(self, w):
        self.w = w

    def __float__(self):
        self.w.close()
        return 0.0


def close_on_index(w, value):
    class CloseOnIndex:
        def __index__(self):
            w.close()
            return value

    return CloseOnIndex()


def close_on_array(w, value):
    class CloseOnArray:
        def __array__(self, dtype=None, copy=None):
            w.close()
            return np.asarray(value, dtype=dtype)

    return CloseOnArray()


# ---- 1. the world closed while an argument is converted

CLOSING_CALLS = {
    "add_body": lambda w, s, a, b: w.add_body(s, [CloseOnFloat(w), 0, 0, 0, 0, 0, 1]),
    "add_body_array": lambda w, s, a, b: w.add_body(s, close_on_array(w, I3)),
    "remove_body": lambda w, s, a, b: w.remove_body(close_on_index(w, a)),
    "set_pose": lambda w, s, a, b: w.set_pose(a, [CloseOnFloat(w), 0, 0, 0, 0, 0, 1]),
    "set_pose_id": lambda w, s, a, b: w.set_pose(close_on_index(w, a), I3),
    "get_pose": lambda w, s, a, b: w.get_pose(close_on_index(w, a)),
    "user": lambda w, s, a, b: w.user(close_on_index(w, a)),
    "shape": lambda w, s, a, b: w.shape(close_on_index(w, a)),
    "set_poses": lambda w, s, a, b: w.set_poses([a], [[CloseOnFloat(w), 0, 0, 0, 0, 0, 1]]),
    "set_poses_array": lambda w, s, a, b: w.set_poses([a], close_on_array(w, [I3])),
    "set_poses_ids": lambda w, s, a, b: w.set_poses([close_on_index(w, a)], [I3]),
    "set_velocity": lambda w, s, a, b: w.set_velocity(a, [CloseOnFloat(w), 0, 0], [0, 0, 0]),
    "set_velocity_id": lambda w, s, a, b: w.set_velocity(close_on_index(w, a), [0, 0, 0], [0, 0, 0]),
    "get_velocity": lambda w, s, a, b: w.get_velocity(close_on_index(w, a)),
    "distance": lambda w, s, a, b: w.distance(a, close_on_index(w, b)),
    "overlap_any": lambda w, s, a, b: w.overlap_any(s, [CloseOnFloat(w), 0, 0, 0, 0, 0, 1]),
    "overlap_any_ignore": lambda w, s, a, b: w.overlap_any(s, I3, ignore=close_on_index(w, a)),
    "nearest": lambda w, s, a, b: w.nearest(s, close_on_array(w, I3)),
    "overlap_shape": lambda w, s, a, b: w.overlap_shape(s, [CloseOnFloat(w), 0, 0, 0, 0, 0, 1]),
    "cast_shape": lambda w, s, a, b: w.cast_shape(s, I3, [CloseOnFloat(w), 0, 0, 0, 0, 0, 1]),
    "motion_free": lambda w, s, a, b: w.motion_free(s, I3, [CloseOnFloat(w), 0, 0, 0, 0, 0, 1]),
    "ray_cast": lambda w, s, a, b: w.ray_cast([0, 0, 0], [CloseOnFloat(w), 0, 0]),
    "ray_cast_mask": lambda w, s, a, b: w.ray_cast([0, 0, 0], [1, 0, 0], mask=close_on_index(w, 1)),
    "overlap_any_batch": lambda w, s, a, b: w.overlap_any_batch(s, close_on_array(w, [I3])),
    "overlap_any_batch_filter": lambda w, s, a, b: w.overlap_any_batch(s, [I3], category=close_on_index(w, 1)),
    "nearest_batch": lambda w, s, a, b: w.nearest_batch(s, close_on_array(w, [I3])),
    "nearest_batch_list": lambda w, s, a, b: w.nearest_batch(s, [[CloseOnFloat(w), 0, 0, 0, 0, 0, 1]]),
}


@pytest.mark.parametrize("name", sorted(CLOSING_CALLS))
def test_close_during_argument_conversion(name):
    w, s, a, b = world3()
    with pytest.raises(ValueError, match="closed World") as e:
        CLOSING_CALLS[name](w, s, a, b)
    # The plain ValueError of a closed World, not the library's
    # IMP_ERR_NULL_ARGUMENT.
    assert not isinstance(e.value, ic.Error)
    assert w.closed


def test_close_during_argument_conversion_2d():
    w = ic.World(2)
    s = ic.circle(1.0)
    a = w.add_body(s, [0.0, 0, 0])
    with pytest.raises(ValueError, match="closed World"):
        w.set_velocity(a, [0, 0], CloseOnFloat(w))
    w = ic.World(2)
    a = w.add_body(s, [0.0, 0, 0])
    with pytest.raises(ValueError, match="closed World"):
        w.set_pose(a, (0.0, 0.0, CloseOnFloat(w)))


def test_close_from_another_thread_during_array_conversion():
    # An object whose __array__ runs Python code: another thread may close
    # the World meanwhile (r15). Either the answer or the closed World's
    # ValueError.
    class PoseLike:
        def __array__(self, dtype=None, copy=None):
            x = list(I3)
            for _ in range(20):
                x = list(x)
            return np.array(x, dtype=dtype)

    for _ in range(30):
        w = ic.World(3)
        s = ic.sphere(1.0)
        w.add_body(s, I3)
        go = threading.Event()

        def closer():
            go.wait()
            w.close()

        t = threading.Thread(target=closer)
        t.start()
        go.set()
        try:
            for _ in range(20):
                w.nearest(s, PoseLike())
        except ValueError as e:
            assert "closed World" in str(e)
        t.join()


# ---- 2. the list being read mutated by its own items' conversion


def test_pose_list_cleared_by_float():
    w, s, a, b = world3()
    pose = [1.0, 2.0, 3.0, 0, 0, 0, 1]

    class Clear:
        def __float__(self):
            pose.clear()
            return 4.0

    pose[0] = Clear()
    w.set_pose(a, pose)
    np.testing.assert_allclose(w.get_pose(a), [4.0, 2.0, 3.0, 0, 0, 0, 1])
    w.close()


def test_pose_list_replaced_by_float():
    # The items replaced (freed) while the others are still to be read.
    pose = [None, 0.5, 0.0]

    class Replace:
        def __float__(self):
            pose[1:] = [object(), object()]
            return 1.5

    pose[0] = Replace()
    w = ic.World(2)
    a = w.add_body(ic.circle(1.0), pose)
    np.testing.assert_allclose(w.get_pose(a), [1.5, 0.5, 0.0])
    w.close()


def test_id_list_cleared_by_index():
    w, s, a, b = world3()
    ids = [None, b]

    class Clear:
        def __index__(self):
            ids.clear()
            return a

    ids[0] = Clear()
    w.set_poses(ids, [[1.0, 0, 0, 0, 0, 0, 1], [7.0, 0, 0, 0, 0, 0, 1]])
    np.testing.assert_allclose(w.get_pose(a), [1.0, 0, 0, 0, 0, 0, 1])
    np.testing.assert_allclose(w.get_pose(b), [7.0, 0, 0, 0, 0, 0, 1])
    w.close()


def test_id_array_refusals_unchanged():
    w, s, a, b = world3()
    with pytest.raises(TypeError, match="ids: expected a sequence"):
        w.set_poses(5, [I3])
    w.set_poses((i for i in [a]), [I3])  # any iterable, as before
    w.close()


def test_motion_list_cleared_by_float():
    s = ic.sphere(1.0)
    ma = [list(I3), None, [0.0, 0, 0]]

    class Clear:
        def __float__(self):
            ma.clear()
            return 0.0

    ma[1] = [10.0, Clear(), 0]
    mb = [[5.0, 0, 0, 0, 0, 0, 1], [0.0, 0, 0], [0.0, 0, 0]]
    r = ic.time_of_impact(s, ma, s, mb)
    assert r.state == "hit"
    assert r.t == pytest.approx(0.3, abs=1e-6)


def test_motion2_list_cleared_by_float():
    s = ic.circle(1.0)
    ma = [[0.0, 0, 0], [10.0, 0], None]

    class Clear:
        def __float__(self):
            ma.clear()
            return 0.0

    ma[2] = Clear()
    r = ic.time_of_impact(s, ma, s, [[5.0, 0, 0], [0.0, 0], 0.0])
    assert r.state == "hit"
    assert r.t == pytest.approx(0.3, abs=1e-6)


# ---- 3. a list subclass whose __len__ lies


class LyingList(list):
    def __init__(self, items, length):
        super().__init__(items)
        self.length = length

    def __len__(self):
        return self.length


def test_motion_lying_len_too_long():
    s = ic.sphere(1.0)
    m = LyingList([list(I3)], 3)  # one item, claims three
    with pytest.raises((ValueError, TypeError)):
        ic.time_of_impact(s, m, s, [[5.0, 0, 0, 0, 0, 0, 1], [0, 0, 0], [0, 0, 0]])
    s2 = ic.circle(1.0)
    with pytest.raises((ValueError, TypeError)):
        ic.time_of_impact(s2, LyingList([[0.0, 0, 0]], 3), s2, [[5.0, 0, 0], [0, 0], 0])


def test_motion_lying_len_too_short():
    # Three real items, claims one: read as the three items they are.
    s = ic.sphere(1.0)
    m = LyingList([list(I3), [10.0, 0, 0], [0.0, 0, 0]], 1)
    r = ic.time_of_impact(s, m, s, [[5.0, 0, 0, 0, 0, 0, 1], [0, 0, 0], [0, 0, 0]])
    assert r.state == "hit"
    assert r.t == pytest.approx(0.3, abs=1e-6)


# ---- 4. contacts() / events(): a finalizer run by the cycle collector
# while the results are made closes the world


def stepped_world():
    w = ic.World(3)
    a = w.add_body(ic.sphere(1.0), I3)
    w.add_body(ic.sphere(1.0), [3.0, 0, 0, 0, 0, 0, 1])
    w.set_velocity(a, [10.0, 0, 0], [0, 0, 0])
    w.step(1.0)
    w.update()
    return w


@pytest.mark.parametrize("method", ["contacts", "events"])
def test_gc_finalizer_closes_world_while_results_made(method):
    w = stepped_world()
    expected = getattr(w, method)()
    if method == "contacts":
        assert len(expected) >= 1
    closed = []

    class Closer:
        def __del__(self):
            closed.append(True)
            w.close()

    meth = getattr(w, method)
    threshold = gc.get_threshold()
    gc.collect()
    gc.disable()
    try:
        c = Closer()
        c.me = c
        del c
        gc.set_threshold(1)
        gc.enable()
        r = meth()
    finally:
        gc.set_threshold(*threshold)
        gc.enable()
    gc.collect()
    assert closed and w.closed
    if method == "contacts":
        # The contacts as they were when the call began.
        assert len(r) == len(expected)
        for got, want in zip(r, expected):
            assert got.a == want.a and got.b == want.b and got.t == want.t
    else:
        np.testing.assert_array_equal(r[0], expected[0])
        np.testing.assert_array_equal(r[1], expected[1])


# ---- 5. polygon() / polytope(): the points read from a private copy


@pytest.mark.parametrize("dim", [2, 3])
def test_points_mutated_by_another_thread(dim):
    rng = np.random.default_rng(7)
    good = rng.normal(size=(64, dim))
    pts = good.copy()
    stop = threading.Event()

    def mutate():
        while not stop.is_set():
            pts[:] = np.nan
            pts[:] = good

    t = threading.Thread(target=mutate)
    t.start()
    make = ic.polygon if dim == 2 else ic.polytope
    try:
        for _ in range(100):
            try:
                shape = make(pts)
            except ic.Error:
                continue
            assert np.isfinite(shape.vertices).all()
    finally:
        stop.set()
        t.join()


def test_polygon_does_not_keep_the_input():
    pts = np.array([[0.0, 0], [1, 0], [1, 1], [0, 1]])
    p = ic.polygon(pts)
    v = p.vertices.copy()
    pts[:] = 100.0
    np.testing.assert_array_equal(p.vertices, v)
