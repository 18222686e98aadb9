# SPDX-License-Identifier: MIT
"""Falling bodies: a small 2D simulation stepped by an impact_collision World.

Discs and boxes fall under gravity into a box-shaped room (a static ground
and two static walls) with three static pegs in the way, bounce and pile up
on the ground. The World does the collision part: World.step(dt, on_contact)
moves every body by its velocity and calls `on_contact` at each contact, in
time order, at the time it happens (the time of impact: no body tunnels
through the ground however fast it falls). The physics is ours, in Python,
in the callback: an impulse along the contact normal, as
docs/guide-simulator.md describes,

- restitution above a speed only (slow approaches do not bounce, so that a
  resting body settles),
- a push-out of any overlap (a fraction of its depth per step),
- warm starting: a pair resting since the last frame first takes most of
  the impulse it took then (a pile settles in a few sweeps, not hundreds).

The bodies never turn (linear impulses only, no friction): a box lands on
whatever edge or corner it falls on and stays at its angle. A velocity set
inside the callback takes effect at the contact's time, and the World
re-schedules that body's pairs from then on. Gravity is added to the
velocities between steps.

Each frame the program records the contacts (World.contacts()), the deepest
overlap (World.nearest of each body, itself ignored: a negative distance is
a penetration depth) and the energy. It prints their statistics.

usage: falling_bodies.py [--smoke] [--frames N] [--seed N] [--out PICTURE.png]

--smoke runs a short scene and checks it: no body below the ground or out
through a wall, no overlap deeper than a small tolerance, the energy never
above the start's, every contact in time order; it exits 1 when a check
fails. --out needs matplotlib.
"""

import argparse
import math
import sys
import time
from dataclasses import dataclass

import numpy as np

import impact_collision as ic

WIDTH = 8.0            # the room's inside, x in [0, WIDTH], the ground's top at y = 0
GRAVITY = np.array([0.0, -9.81])
DT = 1.0 / 60.0
RESTITUTION = 0.5
RESTITUTION_SPEED = 0.5  # approaches slower than this do not bounce (Box2D's velocity threshold)
PUSH_BETA = 0.2          # an overlap is pushed out at this fraction of its depth per step
WARM_START = 0.98        # of the last frame's impulse, for a pair resting since then
WARM_NORMAL = 0.99       # ... whose normal is within this cosine of the last frame's
PITCH = 0.9              # the spacing of the grid the bodies start on (each is at most 0.85 across)


@dataclass
class Body:
    """What the simulation knows of a body: the World keeps it as the body's
    user object (World.add_body(..., user=...), World.user(id))."""
    id: int
    shape: ic.Shape
    kind: str         # "disc", "box", "ground", "wall" or "peg"
    inv_mass: float   # 0 for the static bodies: infinite mass
    bottom: float     # the lowest point's height below the origin at the body's angle (it never turns)


def lowest(shape, angle):
    """How far below its origin the shape reaches at that angle: a shape is
    a convex polygon rounded by its radius."""
    c, s = math.cos(angle), math.sin(angle)
    v = shape.vertices
    return -float(np.min(v[:, 0] * s + v[:, 1] * c)) + shape.radius


def build_world(rng, n_bodies):
    world = ic.World(2, broad_phase="sweep")  # every body moves a little each frame: the sweep's case
    bodies = {}

    def add(shape, pose, kind, inv_mass, type_="dynamic"):
        body = Body(0, shape, kind, inv_mass, lowest(shape, pose[2]))
        body.id = world.add_body(shape, pose, type_, user=body)
        bodies[body.id] = body
        return body

    # The room: the ground (its top at y = 0) and two walls, static.
    add(ic.box2(WIDTH / 2 + 0.5, 0.5), (WIDTH / 2, -0.5, 0.0), "ground", 0.0, "static")
    for x in (-0.25, WIDTH + 0.25):
        add(ic.box2(0.25, 6.0), (x, 6.0, 0.0), "wall", 0.0, "static")
    # Three pegs: discs at mid height, static.
    for x in (0.3 * WIDTH, 0.5 * WIDTH, 0.7 * WIDTH):
        add(ic.circle(0.25), (x, 1.6 + 0.4 * (x == 0.5 * WIDTH), 0.0), "peg", 0.0, "static")

    # The falling bodies on a grid above the pegs, mass = area (density 1).
    cols = int(WIDTH // PITCH)
    for i in range(n_bodies):
        row, col = divmod(i, cols)
        x = (WIDTH - cols * PITCH) / 2 + (col + 0.5) * PITCH
        y = 3.0 + row * PITCH
        if rng.random() < 0.5:
            r = rng.uniform(0.15, 0.3)
            shape, kind, area = ic.circle(r), "disc", math.pi * r * r
        else:
            hx, hy = rng.uniform(0.12, 0.3, 2)
            shape, kind, area = ic.box2(hx, hy), "box", 4 * hx * hy
        body = add(shape, (x, y, rng.uniform(-math.pi, math.pi)), kind, 1.0 / area)
        world.set_velocity(body.id, (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 0.0)), 0.0)
    return world, bodies


class ImpulseResponse:
    """The contact callback: sequential impulses along the contact normal.

    For a contact, the relative normal speed vn = (v_b - v_a) . n (n from a
    to b; negative: approaching) is raised to max(bounce, push-out) by the
    impulse j = (target - vn) / (1/m_a + 1/m_b), which b takes along n and
    a against it."""

    def __init__(self, world):
        self.world = world
        self.frame = 0
        self.memory = {}     # (a, b) -> (frame last reported, impulse taken then, normal then)
        self.calls = 0
        self.last_t = 0.0
        self.out_of_order = 0
        self.capped = 0

    def begin_frame(self):
        self.frame += 1
        self.last_t = 0.0
        # Forget pairs not reported in the last frame: they cannot warm start.
        self.memory = {k: m for k, m in self.memory.items() if m[0] >= self.frame - 1}

    def push(self, body, j, n):
        """Gives the body j along n, divided by its mass (a static body, of
        infinite mass, is not touched)."""
        if body.inv_mass > 0.0:
            v, _ = self.world.get_velocity(body.id)
            self.world.set_velocity(body.id, v + j * body.inv_mass * n, 0.0)

    def __call__(self, c):
        self.calls += 1
        self.capped += c.capped
        if c.t < self.last_t:
            self.out_of_order += 1
        self.last_t = c.t
        a, b = self.world.user(c.a), self.world.user(c.b)
        n = c.normal
        vn, k = c.normal_speed, a.inv_mass + b.inv_mass
        key = (c.a, c.b)
        frame, total, normal = self.memory.get(key, (-1, 0.0, n))
        warm = 0.0
        if frame != self.frame:
            # The pair's first report in this frame: warm start it if it
            # was resting in the last one.
            if frame == self.frame - 1 and vn > -RESTITUTION_SPEED and np.dot(normal, n) > WARM_NORMAL:
                warm = WARM_START * total
                self.push(a, -warm, n)
                self.push(b, warm, n)
                vn += warm * k
            total = 0.0
        bounce = -RESTITUTION * vn if vn < -RESTITUTION_SPEED else 0.0
        push_out = PUSH_BETA * max(0.0, -c.distance) / DT
        target = max(bounce, push_out)
        j = (target - vn) / k if vn < target else 0.0
        if j > 0.0:
            self.push(a, -j, n)
            self.push(b, j, n)
        self.memory[key] = (self.frame, total + warm + j, n)


def energy(world, bodies):
    """The kinetic and the potential energy of the dynamic bodies (mass =
    area, height from the ground's top)."""
    kinetic = potential = 0.0
    for body in bodies.values():
        if body.inv_mass > 0.0:
            v, _ = world.get_velocity(body.id)
            kinetic += 0.5 * float(v @ v) / body.inv_mass
            potential += -GRAVITY[1] * world.get_pose(body.id)[1] / body.inv_mass
    return kinetic, potential


def deepest_overlap(world, bodies):
    """The deepest overlap between bodies, from World queries: each dynamic
    body's nearest other body (itself ignored), whose signed distance is
    minus the depth when they overlap."""
    deepest = 0.0
    for body in bodies.values():
        if body.inv_mass > 0.0:
            near = world.nearest(body.shape, world.get_pose(body.id), ignore=body.id)
            deepest = max(deepest, -near.distance)
    return deepest


def run(world, bodies, frames):
    """Steps the world `frames` times. Returns the per-frame statistics and
    the dynamic bodies' positions at every frame."""
    response = ImpulseResponse(world)
    dynamic = [b for b in bodies.values() if b.inv_mass > 0.0]
    stats = {"contacts": [], "overlap": [], "energy": [energy(world, bodies)]}  # energy: (kinetic, potential)
    positions = [np.array([world.get_pose(b.id)[:2] for b in dynamic])]
    for _ in range(frames):
        # Gravity between steps, then the step with the impulse response.
        for b in dynamic:
            v, _ = world.get_velocity(b.id)
            world.set_velocity(b.id, v + GRAVITY * DT, 0.0)
        response.begin_frame()
        world.step(DT, response)
        stats["contacts"].append(len(world.contacts()))
        stats["overlap"].append(deepest_overlap(world, bodies))
        stats["energy"].append(energy(world, bodies))
        positions.append(np.array([world.get_pose(b.id)[:2] for b in dynamic]))
    stats = {k: np.array(v) for k, v in stats.items()}
    stats["kinetic"] = stats["energy"][:, 0]
    stats["energy"] = stats["energy"].sum(axis=1)
    return stats, np.array(positions), response, dynamic


def check(world, dynamic, stats, response, tolerance=1e-3):
    """The sanity checks of --smoke, as a list of failures."""
    faults = []
    for b in dynamic:
        x, y, _ = world.get_pose(b.id)
        if y - b.bottom < -tolerance:
            faults.append(f"a {b.kind} is below the ground (its lowest point at y = {y - b.bottom:.4f})")
        if not 0.0 < x < WIDTH:
            faults.append(f"a {b.kind} went through a wall (x = {x:.3f})")
    if stats["overlap"].max() > tolerance:
        faults.append(f"an overlap of {stats['overlap'].max():.2e} (tolerance {tolerance})")
    if stats["energy"].max() > stats["energy"][0] + 1e-6 * abs(stats["energy"][0]):
        faults.append(f"the energy rose from {stats['energy'][0]:.3f} to {stats['energy'].max():.3f}")
    if response.out_of_order:
        faults.append(f"{response.out_of_order} contacts out of time order")
    if response.capped:
        faults.append(f"{response.capped} capped contacts")
    return faults


# ---------------------------------------------------------------------------
# The picture (matplotlib, imported only when a picture is asked for).

def draw(path, world, bodies, dynamic, positions, stats, title):
    import matplotlib  # noqa: F401 (only whether it is there)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    fig = plt.figure(figsize=(8, 6), dpi=100)
    grid = fig.add_gridspec(3, 2, width_ratios=[1.5, 1])
    ax = fig.add_subplot(grid[:, 0])
    colours = {"disc": "tab:orange", "box": "tab:blue", "ground": "0.35", "wall": "0.35", "peg": "0.35"}
    # Each body's path, then every body at the last frame.
    for b, track in zip(dynamic, np.moveaxis(positions, 1, 0)):
        ax.plot(track[:, 0], track[:, 1], color=colours[b.kind], linewidth=0.6, alpha=0.4)
    shapes = list(bodies.values())
    ax.add_collection(PolyCollection([ic.outline(b.shape, world.get_pose(b.id)) for b in shapes],
                                     facecolor=[colours[b.kind] for b in shapes], edgecolor="k", linewidth=0.5))
    ax.plot([], [], color=colours["disc"], linewidth=5, label="discs")
    ax.plot([], [], color=colours["box"], linewidth=5, label="boxes")
    ax.plot([], [], color="0.3", linewidth=0.8, label="their paths")
    ax.plot([], [], color="0.35", linewidth=5, label="static: ground, walls, pegs")
    ax.set_xlim(-0.55, WIDTH + 0.55)
    ax.set_ylim(-0.55, max(positions[..., 1].max() + 0.4, 3.0))
    ax.set_aspect("equal")
    fig.suptitle(title, fontsize=10)
    ax.legend(loc="upper center", fontsize=7, ncol=2, framealpha=0.9)

    t = np.arange(len(stats["energy"])) * DT
    ax_e = fig.add_subplot(grid[0, 1])
    ax_e.plot(t, stats["energy"], color="tab:purple", label="total")
    ax_e.plot(t, stats["kinetic"], color="tab:red", label="kinetic")
    ax_e.set_ylabel("energy", fontsize=8)
    ax_e.legend(fontsize=7)
    ax_c = fig.add_subplot(grid[1, 1], sharex=ax_e)
    ax_c.semilogy(t[1:], np.where(stats["contacts"] > 0, stats["contacts"], np.nan), color="tab:green", linewidth=0.7)
    ax_c.set_ylabel("contacts per frame", fontsize=8)
    ax_o = fig.add_subplot(grid[2, 1], sharex=ax_e)
    ax_o.plot(t[1:], stats["overlap"] * 1e6, color="tab:brown", linewidth=0.7)
    ax_o.set_ylabel("deepest overlap (µm)", fontsize=8)
    ax_o.set_xlabel("time (s)", fontsize=8)
    for a in (ax_e, ax_c, ax_o):
        a.tick_params(labelsize=7)
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a short run, checked: exit 1 when a check fails")
    parser.add_argument("--frames", type=int, help="frames of 1/60 s (default 360; --smoke: 120)")
    parser.add_argument("--seed", type=int, default=1, help="the bodies' seed (default 1)")
    parser.add_argument("--out", metavar="PATH", help="write a picture there (PNG; needs matplotlib)")
    args = parser.parse_args(argv)
    if args.out:
        try:
            import matplotlib  # noqa: F401  (only to fail before simulating)
        except ImportError:
            print("falling_bodies: --out needs matplotlib (pip install matplotlib, or apt-get install "
                  "python3-matplotlib)", file=sys.stderr)
            return 2
    n_bodies = 16 if args.smoke else 40
    frames = args.frames if args.frames is not None else (120 if args.smoke else 360)

    rng = np.random.default_rng(args.seed)
    world, bodies = build_world(rng, n_bodies)
    t0 = time.perf_counter()
    stats, positions, response, dynamic = run(world, bodies, frames)
    elapsed = time.perf_counter() - t0
    faults = check(world, dynamic, stats, response)

    c, e = stats["contacts"], stats["energy"]
    summary = (f"seed {args.seed}: {n_bodies} bodies, {frames} frames in {elapsed:.2f} s; contacts per frame "
               f"mean {c.mean():.1f} max {c.max()}; deepest overlap {stats['overlap'].max():.2e}; energy "
               f"{e[0]:.2f} -> {e[-1]:.2f}: " + ("ok" if not faults else "FAILED: " + "; ".join(faults)))
    print(("falling_bodies smoke: " if args.smoke else "") + summary)
    if not args.smoke:
        print(f"  callback calls {response.calls} ({response.calls / frames:.1f} per frame); kinetic energy "
              f"{stats['kinetic'][0]:.2f} -> {stats['kinetic'][-1]:.2f} (no friction: what slides keeps sliding)")
        for q in (0, frames // 4, frames // 2, frames - 1):
            print(f"  frame {q + 1:4d}: {c[q]:3d} contacts, deepest overlap {stats['overlap'][q]:.2e}, "
                  f"energy {e[q + 1]:.3f}")
    if args.out:
        title = (f"Falling bodies, World.step with an impulse callback: {n_bodies} bodies, {frames} frames, "
                 f"{c.mean():.0f} contacts per frame")
        draw(args.out, world, bodies, dynamic, positions, stats, title)
        print(f"wrote {args.out}")
    world.close()
    return 0 if not faults else 1


if __name__ == "__main__":
    sys.exit(main())
