# SPDX-License-Identifier: MIT
"""Bad input to the pairwise calls: exceptions with the status, never a crash or a silent answer."""
import numpy as np
import pytest

import impact_collision as ic

A2, B2 = ic.box2(1, 1), ic.circle(0.5)
A3, B3 = ic.box3(1, 1, 1), ic.sphere(0.5)
P2 = (3.0, 0.0, 0.0)
P3 = (3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
PAIRWISE = [ic.overlap, ic.distance, ic.closest]


@pytest.mark.parametrize("fn", PAIRWISE)
@pytest.mark.parametrize(
    "dim, pose_b, status",
    [
        (2, (np.nan, 0, 0), "IMP_ERR_NOT_FINITE"),
        (2, (0, np.inf, 0), "IMP_ERR_NOT_FINITE"),
        (2, (0, 0, np.nan), "IMP_ERR_NOT_FINITE"),
        (2, (1e200, 0, 0), "IMP_ERR_OUT_OF_RANGE"),
        (3, (np.nan, 0, 0, 0, 0, 0, 1), "IMP_ERR_NOT_FINITE"),
        (3, (3, 0, 0, 0, 0, 0, 1.01), "IMP_ERR_BAD_ROTATION"),
        (3, (3, 0, 0, 0, 0, 0, 0), "IMP_ERR_BAD_ROTATION"),
        (3, (3, 0, 0, 1, 0, 0, 1), "IMP_ERR_BAD_ROTATION"),
        (3, (0, 1e200, 0, 0, 0, 0, 1), "IMP_ERR_OUT_OF_RANGE"),
    ],
)
def test_pose_statuses(fn, dim, pose_b, status):
    a, b, pa = (A2, B2, P2) if dim == 2 else (A3, B3, P3)
    with pytest.raises(ic.Error) as e:
        fn(a, pa, b, pose_b)
    assert e.value.status_name == status
    assert "pose_b" in str(e.value)
    # The same pose on the other side is blamed there.
    with pytest.raises(ic.Error) as e:
        fn(b, pose_b, a, pa)
    assert e.value.status_name == status and "pose_a" in str(e.value)


def test_float_normalised_quaternion_passes():
    q = np.array([0.1, 0.2, 0.3, 0.9], dtype=np.float32)
    q = q / np.linalg.norm(q)
    assert ic.distance(A3, np.concatenate([[0, 0, 0], q]), B3, P3) >= 0


@pytest.mark.parametrize("fn", PAIRWISE + [ic.distance_batch, ic.overlap_batch])
def test_dimension_mismatch(fn):
    with pytest.raises(ic.Error) as e:
        fn(A2, P2, B3, P3)
    assert e.value.status_name == "IMP_ERR_DIMENSION_MISMATCH"


@pytest.mark.parametrize("fn", PAIRWISE)
@pytest.mark.parametrize(
    "args, exc, words",
    [
        ((A2, (0, 0), B2, P2), ValueError, "pose_a: expected a 2D pose (x, y, angle)"),
        ((A2, P2, B2, (0, 0, 0, 0)), ValueError, "pose_b"),
        ((A3, P3, B3, P2), ValueError, "pose_b: expected a 3D pose"),
        ((A2, np.zeros((1, 3)), B2, P2), ValueError, "shape (1, 3)"),
        ((A2, np.zeros(4)[:3:2], B2, P2), ValueError, "pose_a"),
        ((A2, "abc", B2, P2), (TypeError, ValueError), "pose_a"),
        ((A2, ("a", 0, 0), B2, P2), TypeError, "item 0 is a str"),
        ((A2, (None, 0, 0), B2, P2), TypeError, "pose_a"),
        ((A2, (1j, 0, 0), B2, P2), TypeError, "pose_a"),
        ((A2, (np.complex64(1), 0, 0), B2, P2), TypeError, "pose_a"),
        ((A2, np.zeros(3, dtype=complex), B2, P2), TypeError, "pose_a"),
        ((A2, np.zeros(3, dtype=np.longdouble), B2, P2), TypeError, "pose_a"),
        ((A2, object(), B2, P2), TypeError, "pose_a"),
        (("not a shape", P2, B2, P2), TypeError, "a: expected an impact_collision.Shape"),
        ((A2, P2, None, P2), TypeError, "b: expected an impact_collision.Shape"),
        ((A2, P2, B2), TypeError, "4 positional arguments"),
    ],
)
def test_bad_arguments(fn, args, exc, words):
    with pytest.raises(exc) as e:
        fn(*args)
    assert words in str(e.value)


def test_accepted_pose_forms():
    ref = ic.distance(A2, P2, B2, (0, 0, 0))
    for pose in [[3, 0, 0], np.array(P2), np.array(P2, dtype=np.float32), np.array([3, 0, 0], dtype=np.int64),
                 np.array([3.0, 9, 0, 9, 0, 9])[::2], (np.float64(3), np.int32(0), 0.0)]:
        assert ic.distance(A2, pose, B2, (0, 0, 0)) == ref
    swapped = np.array(P2, dtype=">f8")
    assert ic.distance(A2, swapped, B2, (0, 0, 0)) == ref


def test_error_is_a_value_error_with_fields():
    with pytest.raises(ValueError) as e:
        ic.distance(A2, (np.nan, 0, 0), B2, P2)
    err = e.value
    assert isinstance(err, ic.Error)
    assert err.status == ic.IMP_ERR_NOT_FINITE
    assert err.status_name == "IMP_ERR_NOT_FINITE"
    assert err.status_text == "not finite"
    assert str(err) == "IMP_ERR_NOT_FINITE: not finite (pose_a)"
    assert ic.STATUS_NAMES[0] == "IMP_OK" and len(ic.STATUS_NAMES) == ic.IMP_ERR_BAD_BODY_TYPE + 1


def test_input_rules_empty_huge_bool_object():
    """The conversion rules docs/python.md states: an empty sequence is the
    empty stack; an int beyond float64's range is an OverflowError, as for
    float(); a bool is a number where a float is wanted (float(True) is
    1.0) and refused where an id or bits are; object arrays are refused."""
    w = ic.World(2)
    b = w.add_body(ic.circle(1.0), (0.0, 0.0, 0.0))
    w.set_poses([], [])
    w.set_poses((), np.zeros((0, 3)))
    out = ic.distance_batch(ic.circle(1.0), (0.0, 0.0, 0.0), ic.circle(1.0), [])
    assert out.shape == (0,)
    assert w.overlap_any_batch(ic.circle(1.0), []).shape == (0,)
    with pytest.raises(OverflowError, match="beyond float64"):
        ic.distance(ic.circle(1.0), (10**400, 0, 0), ic.circle(1.0), (0, 0, 0))
    with pytest.raises(OverflowError):
        w.set_velocity(b, (10**400, 0.0), 0.0)
    assert ic.distance(ic.circle(1.0), (True, 0, 0), ic.circle(1.0), (4.0, 0, 0)) == 1.0
    w.set_velocity(b, (1.0, 0.0), True)
    assert w.get_velocity(b)[1] == 1.0
    assert len(w.clearance(False)[0]) == 0
    with pytest.raises(TypeError):
        w.get_pose(True)
    with pytest.raises(TypeError):
        w.set_filter(b, mask=True)
    with pytest.raises(TypeError, match="float64"):
        ic.polygon(np.array([[0, 0], [1, 0], [0, 1]], dtype=object))
