# SPDX-License-Identifier: MIT
"""The batch calls equal loops of the single calls, bit for bit."""
import numpy as np
import pytest

import impact_collision as ic
from conftest import random_poses2, random_poses3, regular_polygon


def pairs2():
    return [
        (ic.polygon(regular_polygon(8)), ic.polygon(regular_polygon(5, 0.7), 0.1)),
        (ic.circle(0.5), ic.box2(1.0, 0.3)),
        (ic.capsule2((0, 0), (1, 0), 0.2), ic.segment2((0, 0), (0, 1))),
    ]


def pairs3(rng):
    return [
        (ic.box3(1, 0.5, 0.3), ic.polytope(rng.normal(size=(30, 3)))),
        (ic.sphere(0.5), ic.ellipsoid(1, 0.5, 0.3)),
        (ic.cylinder(0.5, 0.3), ic.cone(0.5, 0.4, radius=0.05)),
        (ic.capsule3((0, 0, 0), (0, 0, 1), 0.2), ic.box3(0.3, 0.3, 0.3)),
    ]


def loop(fn, a, pa, b, pb):
    return np.array([fn(a, x, b, y) for x, y in zip(pa, pb)])


@pytest.mark.parametrize("dim", [2, 3])
def test_batch_equals_loop(rng, dim):
    n = 500
    pairs = pairs2() if dim == 2 else pairs3(rng)
    for a, b in pairs:
        pa = random_poses2(rng, n, 2.0) if dim == 2 else random_poses3(rng, n, 2.0)
        pb = random_poses2(rng, n, 2.0) if dim == 2 else random_poses3(rng, n, 2.0)
        d = ic.distance_batch(a, pa, b, pb)
        o = ic.overlap_batch(a, pa, b, pb)
        assert d.dtype == np.float64 and d.shape == (n,)
        assert o.dtype == np.bool_ and o.shape == (n,)
        ld = loop(ic.distance, a, pa, b, pb)
        assert np.array_equal(d.view(np.uint64), ld.view(np.uint64))  # bit for bit
        assert np.array_equal(o, loop(ic.overlap, a, pa, b, pb))
        assert 0 < o.sum() < n  # both answers occur
        # The two levels agree: overlapping exactly when the distance is 0.
        assert np.array_equal(o, d == 0)


@pytest.mark.parametrize("dim", [2, 3])
def test_broadcast_single_pose(rng, dim):
    a, b = pairs2()[0] if dim == 2 else pairs3(rng)[0]
    n = 200
    stack = random_poses2(rng, n) if dim == 2 else random_poses3(rng, n)
    single = stack[7]
    left = ic.distance_batch(a, single, b, stack)
    right = ic.distance_batch(a, stack, b, single)
    assert np.array_equal(left, [ic.distance(a, single, b, p) for p in stack])
    assert np.array_equal(right, [ic.distance(a, p, b, single) for p in stack])
    assert np.array_equal(ic.overlap_batch(a, list(single), b, stack), [ic.overlap(a, single, b, p) for p in stack])
    both = ic.distance_batch(a, single, b, single)
    assert both.shape == (1,) and both[0] == ic.distance(a, single, b, single)


def test_batch_inputs(rng):
    a, b = pairs2()[0]
    pa = random_poses2(rng, 50)
    pb = random_poses2(rng, 50)
    ref = ic.distance_batch(a, pa, b, pb)
    # Fortran order, a strided view, float32 and lists are read (copied) alike.
    assert np.array_equal(ic.distance_batch(a, np.asfortranarray(pa), b, pb), ref)
    wide = np.zeros((50, 6))
    wide[:, ::2] = pa
    assert np.array_equal(ic.distance_batch(a, wide[:, ::2], b, pb), ref)
    assert np.array_equal(ic.distance_batch(a, pa.tolist(), b, pb.tolist()), ref)
    p32 = pa.astype(np.float32)
    assert np.array_equal(ic.distance_batch(a, p32, b, pb), ic.distance_batch(a, p32.astype(np.float64), b, pb))
    # Empty stacks give empty answers.
    assert ic.distance_batch(a, np.zeros((0, 3)), b, pb[0]).shape == (0,)
    assert ic.overlap_batch(a, np.zeros((0, 3)), b, np.zeros((0, 3))).shape == (0,)
    # The inputs are not written.
    before = pa.copy()
    ic.distance_batch(a, pa, b, pb)
    assert np.array_equal(before, pa)


def test_batch_shape_errors(rng):
    a, b = pairs2()[0]
    with pytest.raises(ValueError, match="poses_a has 5 poses and poses_b 4"):
        ic.distance_batch(a, np.zeros((5, 3)), b, np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"poses_b.*\(N, 3\)"):
        ic.distance_batch(a, np.zeros(3), b, np.zeros((4, 7)))
    with pytest.raises(ValueError, match="poses_a"):
        ic.overlap_batch(a, np.zeros((2, 2, 3)), b, np.zeros(3))
    with pytest.raises(TypeError, match="poses_a"):
        ic.overlap_batch(a, np.zeros((2, 3), dtype=complex), b, np.zeros(3))
    with pytest.raises(TypeError):
        ic.overlap_batch(a, np.zeros((2, 3)), b)


@pytest.mark.parametrize("fn", [ic.distance_batch, ic.overlap_batch])
def test_batch_errors_name_the_row(rng, fn):
    a, b = pairs3(rng)[0]
    pa = random_poses3(rng, 20)
    pb = random_poses3(rng, 20)
    pb[13, 0] = np.nan
    with pytest.raises(ic.Error) as e:
        fn(a, pa, b, pb)
    assert e.value.status_name == "IMP_ERR_NOT_FINITE" and "poses_b[13]" in str(e.value)
    pb[13, 0] = 0.0
    pa[4, 3:] *= 1.1  # not a unit quaternion
    with pytest.raises(ic.Error) as e:
        fn(a, pa, b, pb)
    assert e.value.status_name == "IMP_ERR_BAD_ROTATION" and "poses_a[4]" in str(e.value)
    pa[4, 3:] = (0, 0, 0, 1)
    pa[9, 1] = 1e200
    with pytest.raises(ic.Error) as e:
        fn(a, pa, b, pb[9])
    assert e.value.status_name == "IMP_ERR_OUT_OF_RANGE" and "poses_a[9]" in str(e.value)
    pa[9, 1] = 0.0
    fn(a, pa, b, pb)  # and all well again
