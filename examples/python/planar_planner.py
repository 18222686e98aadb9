# SPDX-License-Identifier: MIT
"""A planar motion planner on an impact_collision World.

A rounded rectangle (the robot) moves in SE(2), x, y and heading, through a
room full of random convex obstacles: polygons, discs and boxes, added to a
World as static bodies. The planner is RRT-Connect (Kuffner and LaValle,
2000): two trees, grown from the start and from the goal, take turns to
step towards a random pose and to reach for each other.

Every question a planner asks is one World query:

- is this pose free?                 World.overlap_any
- is this motion free?               World.motion_free: continuous (the time
                                     of impact), not sampled, so no thin
                                     obstacle is stepped over
- how far is the nearest obstacle?   World.nearest_batch over many poses

The planner plans for the robot inflated by a safety margin (the same
rectangle, rounded by `MARGIN` more): the true robot then keeps at least
`MARGIN` from every obstacle along the whole path, and the program checks it.
The path RRT-Connect finds is then shortened (random shortcuts, each one
motion-checked) and verified: every segment again with motion_free, for the
true robot too, and densely sampled with overlap_any_batch. The clearance
along the path comes from nearest_batch over densely interpolated poses.

usage: planar_planner.py [--seed N] [--smoke] [--out PICTURE.png]

--smoke is a small, fast run that prints one line and exits 0 only if a
path was found and verified. --out needs matplotlib.
"""

import argparse
import math
import sys
import time

import numpy as np

import impact_collision as ic

# The room, [0, WIDTH] x [0, HEIGHT], walled in by four static boxes.
WIDTH, HEIGHT = 12.0, 7.0
WALL = 0.25  # the walls' half thickness

# The robot: a box of half extents 0.5 x 0.12 rounded by 0.04, with its
# origin at its centre. Its pose is (x, y, heading).
ROBOT_HX, ROBOT_HY, ROBOT_ROUND = 0.5, 0.12, 0.04
# The clearance the planner keeps: it plans for the robot rounded by this
# much more (the Minkowski sum of the robot and a disc of radius MARGIN).
MARGIN = 0.05
# Angles count in the SE(2) distance as arcs at the robot's reach (the
# farthest its points are from its origin): turning by d radians moves no
# point of the robot farther than REACH * d.
REACH = math.hypot(ROBOT_HX, ROBOT_HY) + ROBOT_ROUND

START = np.array([1.0, 1.0, 0.0])
GOAL = np.array([WIDTH - 1.0, HEIGHT - 1.0, math.pi / 2])


# ---------------------------------------------------------------------------
# SE(2) helpers. A pose is a numpy array (x, y, angle). impact moves a shape
# from one pose to another with its origin on the straight segment while it
# turns through the smaller angle at a constant rate; interpolate() is that
# same motion, so what we sample is what motion_free checks.

def wrap(angle):
    """Angles mapped to (-pi, pi]."""
    return math.pi - np.mod(math.pi - angle, 2.0 * math.pi)


def delta(q_from, q_to):
    """The motion from q_from to q_to: (dx, dy, turn through the smaller angle)."""
    d = np.asarray(q_to, dtype=float) - q_from
    d[..., 2] = wrap(d[..., 2])
    return d


def se2_distance(q_from, q_to):
    """The length of the motion: sqrt(dx^2 + dy^2 + (REACH * dangle)^2)."""
    d = delta(q_from, q_to)
    return np.sqrt(d[..., 0] ** 2 + d[..., 1] ** 2 + (REACH * d[..., 2]) ** 2)


def interpolate(q_from, q_to, s):
    """Poses at fractions s (an array) of the motion, as an (len(s), 3) stack."""
    s = np.asarray(s, dtype=float)[:, None]
    q = q_from + s * delta(q_from, q_to)
    q[:, 2] = wrap(q[:, 2])
    return q


def densify(path, step):
    """The path's poses at most `step` apart (SE(2) distance), with the
    path length at each: the poses to check and to measure along it."""
    poses, lengths, walked = [], [], 0.0
    for a, b in zip(path[:-1], path[1:]):
        seg = float(se2_distance(a, b))
        s = np.linspace(0.0, 1.0, max(2, math.ceil(seg / step) + 1))[:-1]
        poses.append(interpolate(a, b, s))
        lengths.append(walked + s * seg)
        walked += seg
    poses.append(path[-1][None, :])
    lengths.append([walked])
    return np.vstack(poses), np.concatenate(lengths)


def path_length(path):
    return float(np.sum(se2_distance(path[:-1], path[1:])))


# ---------------------------------------------------------------------------
# The scene.

def random_obstacle(rng):
    """A random convex shape about 0.6 to 1.8 across, at a random angle."""
    kind = rng.choice(["polygon", "circle", "box"])
    if kind == "polygon":
        # Points around a circle: the polygon is their convex hull.
        n = rng.integers(4, 8)
        angles = np.sort(rng.uniform(0.0, 2.0 * math.pi, n))
        radii = rng.uniform(0.35, 0.9, n)
        return ic.polygon(np.c_[radii * np.cos(angles), radii * np.sin(angles)])
    if kind == "circle":
        return ic.circle(rng.uniform(0.3, 0.65))
    return ic.box2(rng.uniform(0.2, 0.8), rng.uniform(0.15, 0.5))


def build_world(rng, n_obstacles, robot):
    """A 2D World with the four walls and n_obstacles random obstacles, none
    within 0.3 of the robot at the start or at the goal. Returns the world
    and the (shape, pose, is_wall) of every body, for the picture."""
    world = ic.World(2)
    bodies = []
    walls = [((WIDTH / 2, -WALL), WIDTH / 2 + 2 * WALL, WALL),
             ((WIDTH / 2, HEIGHT + WALL), WIDTH / 2 + 2 * WALL, WALL),
             ((-WALL, HEIGHT / 2), WALL, HEIGHT / 2),
             ((WIDTH + WALL, HEIGHT / 2), WALL, HEIGHT / 2)]
    for (x, y), hx, hy in walls:
        shape, pose = ic.box2(hx, hy), (x, y, 0.0)
        world.add_body(shape, pose, "static")
        bodies.append((shape, np.array(pose), True))
    placed = 0
    while placed < n_obstacles:
        shape = random_obstacle(rng)
        pose = np.array([rng.uniform(0.0, WIDTH), rng.uniform(0.0, HEIGHT), rng.uniform(-math.pi, math.pi)])
        # Pairwise distance, no World needed: keep the ends clear.
        if min(ic.distance(shape, pose, robot, START), ic.distance(shape, pose, robot, GOAL)) < 0.3:
            continue
        world.add_body(shape, pose, "static")
        bodies.append((shape, pose, False))
        placed += 1
    return world, bodies


# ---------------------------------------------------------------------------
# RRT-Connect.

class Tree:
    """A tree of poses: an (n, 3) array of nodes and each node's parent."""

    def __init__(self, root):
        self.nodes = np.empty((256, 3))
        self.nodes[0] = root
        self.parent = [-1]

    def __len__(self):
        return len(self.parent)

    def add(self, q, parent):
        n = len(self.parent)
        if n == len(self.nodes):  # grow by doubling
            self.nodes = np.vstack([self.nodes, np.empty_like(self.nodes)])
        self.nodes[n] = q
        self.parent.append(parent)
        return n

    def nearest(self, q):
        """The index of the node nearest q (brute force: numpy is quick at
        a few thousand nodes; a k-d tree would take over beyond that)."""
        return int(np.argmin(se2_distance(self.nodes[: len(self)], q)))

    def branch(self, i):
        """The poses from the root to node i."""
        out = []
        while i >= 0:
            out.append(self.nodes[i])
            i = self.parent[i]
        return out[::-1]


TRAPPED, ADVANCED, REACHED = 0, 1, 2


class Planner:
    """RRT-Connect for `shape` among the bodies of `world`."""

    def __init__(self, world, shape, rng, step=1.0):
        self.world, self.shape, self.rng, self.step = world, shape, rng, step
        self.checks = {"states": 0, "motions": 0}

    def state_free(self, q):
        self.checks["states"] += 1
        return not self.world.overlap_any(self.shape, q)

    def motion_free(self, a, b):
        self.checks["motions"] += 1
        return self.world.motion_free(self.shape, a, b)

    def sample(self):
        return np.array([self.rng.uniform(0.0, WIDTH), self.rng.uniform(0.0, HEIGHT),
                         self.rng.uniform(-math.pi, math.pi)])

    def extend(self, tree, q):
        """One step of at most self.step from the node nearest q towards q."""
        i = tree.nearest(q)
        near = tree.nodes[i]
        d = float(se2_distance(near, q))
        reached = d <= self.step
        q_new = np.array(q, dtype=float) if reached else interpolate(near, q, [self.step / d])[0]
        # The cheap discrete check first, then the continuous one.
        if not self.state_free(q_new) or not self.motion_free(near, q_new):
            return TRAPPED, -1
        return (REACHED if reached else ADVANCED), tree.add(q_new, i)

    def connect(self, tree, q):
        """Extends the tree towards q until it reaches q or is stopped."""
        while True:
            state, j = self.extend(tree, q)
            if state != ADVANCED:
                return state, j

    def plan(self, start, goal, max_samples):
        """A path (a list of poses) from start to goal, or None."""
        if not self.state_free(start) or not self.state_free(goal):
            return None
        a, b = Tree(start), Tree(goal)
        a_is_start = True
        for _ in range(max_samples):
            state, i = self.extend(a, self.sample())
            if state != TRAPPED:
                state, j = self.connect(b, a.nodes[i])
                if state == REACHED:
                    path = a.branch(i) + b.branch(j)[::-1][1:]  # the meeting pose once
                    if not a_is_start:
                        path.reverse()  # a is the goal's tree this turn
                    return np.array(path)
            a, b = b, a
            a_is_start = not a_is_start
        return None

    def shortcut(self, path, attempts):
        """Random shortcuts: pick two points anywhere along the path (not
        only at its corners) and join them straight when that motion is
        free. The pieces kept are parts of motions already checked."""
        path = np.array(path)
        for _ in range(attempts):
            if len(path) < 3:
                break
            lengths = np.concatenate([[0.0], np.cumsum(se2_distance(path[:-1], path[1:]))])
            s1, s2 = np.sort(self.rng.uniform(0.0, lengths[-1], 2))
            i, j = np.searchsorted(lengths, [s1, s2], side="right") - 1
            j = min(j, len(path) - 2)
            if i >= j:  # both on one segment: nothing to cut
                continue
            qa = interpolate(path[i], path[i + 1], [(s1 - lengths[i]) / (lengths[i + 1] - lengths[i])])[0]
            qb = interpolate(path[j], path[j + 1], [(s2 - lengths[j]) / (lengths[j + 1] - lengths[j])])[0]
            if self.motion_free(qa, qb):
                path = np.vstack([path[: i + 1], qa, qb, path[j + 1:]])
        # Finally drop every corner whose neighbours see each other.
        keep = [path[0]]
        k = 0
        while k < len(path) - 1:
            far = len(path) - 1
            while far > k + 1 and not self.motion_free(path[k], path[far]):
                far -= 1
            keep.append(path[far])
            k = far
        return np.array(keep)


# ---------------------------------------------------------------------------
# Verification and clearance.

def verify(world, robot, inflated, path, start, goal, step=0.01):
    """The path's faults, as a list of messages (empty: verified). Every
    segment is checked again, continuously for both the inflated and the
    true robot, and by dense sampling of the true robot's poses."""
    faults = []
    if not (np.allclose(path[0], start) and np.allclose(path[-1], goal)):
        faults.append("the path does not join the start to the goal")
    for k, (a, b) in enumerate(zip(path[:-1], path[1:])):
        if not world.motion_free(inflated, a, b):
            faults.append(f"segment {k}: not free for the inflated robot")
        if not world.motion_free(robot, a, b):
            faults.append(f"segment {k}: not free for the robot")
    dense, _ = densify(path, step)
    hits = world.overlap_any_batch(robot, dense)
    if hits.any():
        faults.append(f"{int(hits.sum())} of {len(dense)} sampled poses overlap an obstacle")
    return faults


def clearance(world, robot, path, step=0.01):
    """The true robot's distance to the nearest obstacle at poses at most
    `step` apart along the path: poses, path lengths, distances, and the
    witness points (on the robot, on the obstacle) of each."""
    dense, lengths = densify(path, step)
    # nearest_batch gives ids, distances, points (on the robot), body points, normals.
    _, dist, points, body_points, _ = world.nearest_batch(robot, dense)
    return dense, lengths, dist, points, body_points


# ---------------------------------------------------------------------------
# The picture (matplotlib, imported only when a picture is asked for).

def draw(path_out, bodies, robot, raw_path, path, dense, lengths, dist, points, body_points, title):
    import matplotlib  # noqa: F401 (only whether it is there)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection

    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 6), dpi=100, gridspec_kw={"height_ratios": [3.2, 1]})
    cmap = plt.get_cmap("viridis")
    norm = matplotlib.colors.Normalize(vmin=MARGIN, vmax=max(float(dist.max()), MARGIN + 1e-3))

    # Obstacles and walls.
    ax.add_collection(PolyCollection([ic.outline(s, p) for s, p, wall in bodies if not wall],
                                     facecolor="0.72", edgecolor="0.35", linewidth=0.8, label="obstacles"))
    ax.add_collection(PolyCollection([ic.outline(s, p) for s, p, wall in bodies if wall],
                                     facecolor="0.35", edgecolor="none"))
    # The robot's footprint at evenly spaced points along the path,
    # coloured by its clearance there.
    picks = np.searchsorted(lengths, np.linspace(0.0, lengths[-1], 28))
    picks = np.clip(picks, 0, len(dense) - 1)
    ax.add_collection(PolyCollection([ic.outline(robot, dense[k]) for k in picks],
                                     facecolor=cmap(norm(dist[picks]), alpha=0.35),
                                     edgecolor=cmap(norm(dist[picks])), linewidth=0.9,
                                     label="robot footprint"))
    # The path of the robot's centre: RRT-Connect's, then the shortened one
    # coloured by clearance.
    ax.plot(raw_path[:, 0], raw_path[:, 1], color="0.25", linestyle=":", linewidth=1.0,
            label="RRT-Connect path")
    segs = np.stack([dense[:-1, :2], dense[1:, :2]], axis=1)
    line = LineCollection(segs, cmap=cmap, norm=norm, linewidth=2.5, label="shortened path")
    line.set_array(0.5 * (dist[:-1] + dist[1:]))
    ax.add_collection(line)
    ax.plot(path[:, 0], path[:, 1], "o", color="k", markersize=3)
    # Start, goal, and the witness of the smallest clearance.
    for q, colour, name in [(path[0], "tab:green", "start"), (path[-1], "tab:red", "goal")]:
        ax.fill(*ic.outline(robot, q).T, facecolor="none", edgecolor=colour, linewidth=2.0, label=name)
    m = int(np.argmin(dist))
    ax.plot([points[m, 0], body_points[m, 0]], [points[m, 1], body_points[m, 1]], color="tab:red",
            linewidth=2.0, marker="o", markersize=3, label=f"min clearance {dist[m]:.3f}")
    ax.annotate(f"{dist[m]:.3f}", xy=points[m], xytext=(12, -14), textcoords="offset points", fontsize=8,
                color="tab:red", arrowprops={"arrowstyle": "-", "color": "tab:red", "linewidth": 0.8})
    ax.set_xlim(-0.12, WIDTH + 0.12)  # the walls' inner faces, and a strip of them
    ax.set_ylim(-0.12, HEIGHT + 0.12)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=4, fontsize=7.5, frameon=False)
    fig.colorbar(line, ax=ax, fraction=0.03, pad=0.01).set_label("clearance", fontsize=8)

    # Clearance against path length.
    ax2.plot(lengths, dist, color="tab:blue", linewidth=1.2, label="clearance (nearest_batch)")
    ax2.axhline(MARGIN, color="tab:red", linestyle="--", linewidth=1.0, label=f"planning margin {MARGIN}")
    ax2.plot(lengths[m], dist[m], "o", color="tab:red", markersize=4)
    ax2.set_xlim(0.0, lengths[-1])
    ax2.set_ylim(0.0, None)
    ax2.set_xlabel(r"path length  $\int\sqrt{dx^2+dy^2+(\rho\, d\theta)^2}$", fontsize=8)
    ax2.set_ylabel("clearance", fontsize=8)
    ax2.tick_params(labelsize=7)
    ax2.grid(alpha=0.3)
    ax2.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path_out, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the scene's and the planner's seed (default 1)")
    parser.add_argument("--smoke", action="store_true", help="a small fast run: one line, exit 0 only if verified")
    parser.add_argument("--out", metavar="PATH", help="write a picture there (PNG; needs matplotlib)")
    args = parser.parse_args(argv)
    if args.out:
        try:
            import matplotlib  # noqa: F401  (only to fail before planning)
        except ImportError:
            print("planar_planner: --out needs matplotlib (pip install matplotlib, or apt-get install "
                  "python3-matplotlib)", file=sys.stderr)
            return 2

    n_obstacles, max_samples, attempts = (10, 5000, 100) if args.smoke else (26, 20000, 600)
    rng = np.random.default_rng(args.seed)
    robot = ic.box2(ROBOT_HX, ROBOT_HY, ROBOT_ROUND)
    inflated = ic.box2(ROBOT_HX, ROBOT_HY, ROBOT_ROUND + MARGIN)

    t0 = time.perf_counter()
    world, bodies = build_world(rng, n_obstacles, inflated)
    planner = Planner(world, inflated, rng)
    raw_path = planner.plan(START, GOAL, max_samples)
    if raw_path is None:
        print(f"planar_planner: seed {args.seed}: no path found in {max_samples} samples "
              f"({time.perf_counter() - t0:.2f} s)")
        return 1
    path = planner.shortcut(raw_path, attempts)
    t_plan = time.perf_counter() - t0

    faults = verify(world, robot, inflated, path, START, GOAL)
    dense, lengths, dist, points, body_points = clearance(world, robot, path)
    min_clear = float(dist.min())
    if min_clear < MARGIN - 1e-6:
        faults.append(f"clearance {min_clear:.4f} below the margin {MARGIN}")
    status = "verified" if not faults else "FAILED: " + "; ".join(faults)

    summary = (f"seed {args.seed}: {n_obstacles} obstacles, path found, {len(raw_path) - 1} -> "
               f"{len(path) - 1} segments, length {path_length(raw_path):.2f} -> {path_length(path):.2f}, "
               f"min clearance {min_clear:.4f} (margin {MARGIN}), {planner.checks['states']} state and "
               f"{planner.checks['motions']} motion checks, {t_plan:.2f} s: {status}")
    if args.smoke:
        print("planar_planner smoke: " + summary)
    else:
        print(summary)
        print(f"  clearance along the path ({len(dense)} poses): min {min_clear:.4f} at length "
              f"{lengths[np.argmin(dist)]:.2f}, mean {dist.mean():.4f}, max {dist.max():.4f}")
        for k, q in enumerate(path):
            print(f"  waypoint {k}: x {q[0]:6.3f}  y {q[1]:6.3f}  angle {q[2]:+.3f}")

    if args.out:
        title = (f"RRT-Connect in SE(2), seed {args.seed}: {n_obstacles} obstacles, "
                 f"path length {path_length(path):.2f}, min clearance {min_clear:.3f}")
        draw(args.out, bodies, robot, raw_path, path, dense, lengths, dist, points, body_points, title)
        print(f"wrote {args.out}")
    elif not args.smoke:
        print("(no picture: pass --out PATH.png)")
    world.close()
    return 0 if not faults else 1


if __name__ == "__main__":
    sys.exit(main())
