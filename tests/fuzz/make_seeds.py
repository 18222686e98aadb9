#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the hand-made seeds of the fuzz corpus (corpus/*/seed-*): inputs
that encode the defects of issue 20, in the byte format fuzz.c and the
targets read (docs/fuzzing.md). Run from tests/fuzz; the files are
committed, so this only needs running again when the format changes."""
import struct

def num(v):
    # The raw-bits form of fz_num: selector >= 250, then the 8 bytes.
    return bytes([0xFA]) + struct.pack('>d', v)

def u8(*b):
    return bytes(b)

NO = u8(0xFF)      # fz_chance(k) false
YES = u8(0x00)     # fz_chance(k) true
ZERO_RADIUS = u8(0x00)  # fz_radius: 0

# fz_shape kinds: 2D byte % 6, 3D byte % 8 (+ FZ_POLYTOPE).
POLYGON, CIRCLE, CAPSULE2, SEGMENT2, BOX2 = 0, 1, 2, 3, 4
POLYTOPE, SPHERE, CAPSULE3, BOX3, CYLINDER, CONE, ELLIPSOID = 0, 1, 2, 3, 4, 5, 6

def radius(r):
    return ZERO_RADIUS if r == 0 else u8(0xFF) + num(r)

def polygon(points, r=0.0):
    out = u8(POLYGON, len(points) - 1)
    for k, (x, y) in enumerate(points):
        if k > 0:
            out += NO
        out += num(x) + num(y)
    return out + radius(r)

def circle(c, r):
    return u8(CIRCLE) + NO + num(c[0]) + num(c[1]) + num(r)

def segment2(a, b):
    return u8(SEGMENT2) + num(a[0]) + num(a[1]) + num(b[0]) + num(b[1])

def box2(hx, hy, r=0.0):
    return u8(BOX2) + num(hx) + num(hy) + radius(r)

def polytope(points, r=0.0):
    out = u8(POLYTOPE, len(points) - 1)
    for k, p in enumerate(points):
        if k > 0:
            out += NO
        out += b''.join(num(c) for c in p)
    return out + radius(r)

def sphere(c, r):
    return u8(SPHERE) + NO + b''.join(num(v) for v in c) + num(r)

def box3(hx, hy, hz, r=0.0):
    return u8(BOX3) + num(hx) + num(hy) + num(hz) + radius(r)

def cone(h, rb, r=0.0):
    return u8(CONE) + num(h) + num(rb) + radius(r)

def ellipsoid(rx, ry, rz, r=0.0):
    return u8(ELLIPSOID) + num(rx) + NO + num(ry) + NO + num(rz) + radius(r)

def pose2(x=0.0, y=0.0):
    return num(x) + num(y) + u8(0, 0)          # angle 0

def pose3(x=0.0, y=0.0, z=0.0):
    return num(x) + num(y) + num(z) + u8(0)    # identity rotation

def pairwise(dim, a, b, pa=(0.0, 0.0, 0.0), pb=(0.0, 0.0, 0.0)):
    out = u8(dim - 2) + NO + a + b
    out += pose2(pa[0], pa[1]) + pose2(pb[0], pb[1])
    if dim == 3:
        out += pose3(*pa) + pose3(*pb)
    # No cache bytes, default options, time of impact with t_max 1 and zero
    # motions (the rest of the input reads as zeros).
    return out + NO + u8(0)

seeds = {
    # 3: a plate 1.375 x 1e-20 x 1.25 and a point 2.625 above its face.
    'pairwise/seed-d03-flat-box3': pairwise(3, box3(1.375, 1e-20, 1.25), polytope([(0.0, 0.0, 3.875)])),
    # 4: the near-collinear U-turn.
    'pairwise/seed-d04-polygon-uturn': pairwise(2, polygon([(-8, -8), (1e-300, -8), (0, -7), (0, 4.5)]),
                                                circle((0.0, 0.0), 1.0), pb=(20.0, 0.0)),
    # 5: an ellipsoid of semi-axes 1e-200 and a unit sphere 2 away.
    'pairwise/seed-d05-tiny-ellipsoid': pairwise(3, ellipsoid(1e-200, 1e-200, 1e-200), sphere((0, 0, 0), 1.0),
                                                 pb=(3.0, 0.0, 0.0)),
    # 6: two concentric spheres 1e-310 from the origin, overlapping by 2.25.
    'pairwise/seed-d06-concentric-tiny-spheres': pairwise(3, sphere((0, 0, 0), 1.0), sphere((0, 0, 0), 1.25),
                                                          pa=(1e-310, 0.0, 0.0), pb=(1e-310, 0.0, 0.0)),
    # 6: a point and a 1e-200-long segment.
    'pairwise/seed-d06-point-tiny-segment': pairwise(2, polygon([(0.0, 0.0)]), segment2((0.0, 0.0), (1e-200, 0.0))),
    # 6: a segment against a rounded box of half width 1e-300.
    'pairwise/seed-d06-segment-rounded-box': pairwise(2, segment2((-1.0, 0.0), (1.0, 0.0)), box2(1e-300, 1e-300, 0.5)),
    # 2: a cone against a rounded ellipsoid of size 1e25, a needle-thin
    # ellipsoid against a sphere, a flat ellipsoid and a cone at one pose.
    'pairwise/seed-d02-cone-huge-ellipsoid': pairwise(3, cone(1.0, 1.0), ellipsoid(1e25, 2e25, 3e25, 1e24)),
    'pairwise/seed-d02-needle-ellipsoid': pairwise(3, ellipsoid(1.0, 1e-9, 1e-9), sphere((0, 0, 0), 1.0),
                                                   pb=(0.5, 0.0, 0.0)),
    'pairwise/seed-d02-flat-ellipsoid-cone': pairwise(3, ellipsoid(1.0, 1.0, 1e-9), cone(1.0, 1.0)),
}

# World inputs.
OP_ADD, OP_REMOVE, OP_UPDATE, OP_STEP, OP_RAY = 0, 1, 6, 7, 15

def world(dim, broad=0, beta=None, margin=None, pair_capacity=None, shapes=(), ops=b''):
    sel = 0
    extra = b''
    if beta is not None:
        sel |= 2
        extra += NO + u8({1.0: 0, 2.0: 1, 4.0: 2, 16.0: 3}[beta]) if beta != 1000.0 else YES + u8(4)
    if margin is not None:
        sel |= 8
        extra += u8(0) + u8(int(margin / 0.125))
    if pair_capacity is not None:
        sel |= 64
        extra += struct.pack('>I', pair_capacity)
    out = u8(dim - 2, broad, sel) + extra + NO           # no failure at create
    out += u8(len(shapes) - 1)
    for s in shapes:
        out += s + NO                                     # not swapped for the other dimension
    return out + ops

def add(dim, shape, at, fail=None):
    out = u8(OP_ADD) + (NO if fail is None else YES + u8(fail)) + u8(2, shape)   # dynamic
    out += pose2(at[0], at[1]) + pose3(*at) if dim == 3 else pose2(at[0], at[1]) + pose3()
    return out + u8(0)                                    # default filter

def update(fail=None):
    return u8(OP_UPDATE) + (NO if fail is None else YES + u8(fail))

def ray3(a, b, single=True):
    out = u8(OP_RAY) + NO + u8(0) + pose2() + pose3() + NO + NO
    return out + b''.join(num(v) for v in a) + b''.join(num(v) for v in b) + (YES if single else NO)

def ray2(a, b, single=True):
    return ray3((a[0], a[1], 0.0), (b[0], b[1], 0.0), single)

OP_CAST = 14

def cast(dim, shape, a, b, ex=None):
    # The query's shape and from pose, no filter, no ignored id, the to pose;
    # then the _ex form or not (ex: its option bytes, see cast() in fuzz_world.c).
    def at(p):
        return pose2(p[0], p[1]) + (pose3(*p) if dim == 3 else pose3())
    out = u8(OP_CAST) + NO + u8(shape) + at(a) + NO + NO + at(b)
    return out + (NO if ex is None else YES + ex)

cube = box3(0.5, 0.5, 0.5)
seeds.update({
    # 1: pair_capacity > 0, two overlapping boxes, an update.
    'world/seed-d01-pair-capacity': world(3, pair_capacity=256, shapes=[cube],
                                          ops=add(3, 0, (0, 0, 0)) + add(3, 0, (0.5, 0, 0)) + update()),
    # 9: ten overlapping boxes, the first update failing at its allocations.
    'world/seed-d09-failed-update': world(3, shapes=[cube], ops=b''.join(add(3, 0, (0.25 * k, 0, 0)) for k in range(10))
                                          + update(fail=0) + update(fail=3) + update(fail=7) + update()),
    # 10: a ray longer than 1e150 through a unit ball; one within range.
    'world/seed-d10-long-ray': world(3, shapes=[sphere((0, 0, 0), 1.0)],
                                     ops=add(3, 0, (0, 0, 0)) + ray3((-9e149, 0, 0), (9e149, 0, 0))
                                     + ray3((-4e149, 0, 0), (4e149, 0, 0)) + ray3((-4e149, 0, 0), (4e149, 0, 0), False)),
    # 11: a ray from inside a unit disc.
    'world/seed-d11-ray-inside': world(2, shapes=[circle((0.0, 0.0), 1.0)],
                                       ops=add(2, 0, (0, 0, 0)) + ray2((0.2, 0.0), (5.0, 0.0))),
    # 13: hash_beta 1000 and spheres of radii 0.1 and 1.
    'world/seed-d13-hash-beta': world(3, beta=1000.0, shapes=[sphere((0, 0, 0), 0.1), sphere((0, 0, 0), 1.0)],
                                      ops=add(3, 0, (0, 0, 0)) + add(3, 1, (0.5, 0, 0)) + update()),
    # The casts and motion_free: 2D, a unit disc and a small one cast through
    # it (a hit), past it (free), from inside it (started_inside), with
    # options (the defaults given, NULL, max_iterations -1 refused, a NaN
    # from pose refused).
    'world/seed-cast-motion-free2': world(2, shapes=[circle((0.0, 0.0), 1.0), circle((0.0, 0.0), 0.25)],
                                          ops=add(2, 0, (0, 0, 0)) + update()
                                          + cast(2, 1, (-5.0, 0.0), (5.0, 0.0))
                                          + cast(2, 1, (-5.0, 3.0), (5.0, 3.0))
                                          + cast(2, 1, (0.2, 0.0), (5.0, 0.0))
                                          + cast(2, 1, (-5.0, 0.0), (5.0, 0.0), ex=u8(0))
                                          + cast(2, 1, (-5.0, 0.0), (5.0, 0.0), ex=u8(16))
                                          + cast(2, 1, (-5.0, 0.0), (5.0, 0.0), ex=u8(4 | 8, 0))
                                          + cast(2, 1, (-5.0, 0.0), (5.0, 0.0), ex=u8(32))),
    # 3D: a cube and a sphere cast through it, beside it, from inside it,
    # with one query of budget (max_iterations 1), and a NaN to pose.
    'world/seed-cast-motion-free3': world(3, shapes=[cube, sphere((0, 0, 0), 0.25)],
                                          ops=add(3, 0, (0, 0, 0)) + add(3, 0, (3, 0, 0))
                                          + cast(3, 1, (-5.0, 0.0, 0.0), (5.0, 0.0, 0.0))
                                          + cast(3, 1, (-5.0, 2.0, 0.0), (5.0, 2.0, 0.0))
                                          + cast(3, 1, (0.1, 0.0, 0.0), (0.1, 0.0, 5.0))
                                          + cast(3, 1, (-5.0, 0.0, 0.0), (5.0, 0.0, 0.0), ex=u8(4, 0))
                                          + cast(3, 1, (-5.0, 0.0, 0.0), (5.0, 0.0, 0.0), ex=u8(32 | 64))
                                          + update()),
})

for name, data in seeds.items():
    with open('corpus/' + name, 'wb') as f:
        f.write(data)
