#!/usr/bin/env python3
"""Runs a 10000-link chain released horizontally and plots its worst joint gap and the height of its free
end over time (matplotlib, Agg backend: no display needed).

    PYTHONPATH=build/python python3 python/examples/chain_plot.py docs/chain_plot.png

Options: --links N, --steps S, --solver auto|gs|jacobi|cg|direct, --backend auto|cpu|opencl.
"""
import argparse
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402

import catena  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", default="chain_plot.png", help="PNG file to write")
    parser.add_argument("--links", type=int, default=10000)
    parser.add_argument("--steps", type=int, default=600, help="60 Hz steps (default 600: 10 s)")
    parser.add_argument("--solver", default="auto")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    world = catena.World(solver=args.solver, backend=args.backend)
    world.add_chain(args.links)  # 0.1 m, 0.1 kg links along +x, pinned at the origin
    tip = args.links - 1
    dt = world.settings["time_step"]
    t = np.arange(1, args.steps + 1) * dt
    gap = np.empty(args.steps)
    tip_height = np.empty(args.steps)
    start = time.perf_counter()
    for i in range(args.steps):
        world.step()
        gap[i] = world.joint_gaps.max()  # the same as world.stats["max_joint_gap"]
        tip_height[i] = world.positions[tip, 1]
    seconds = time.perf_counter() - start
    stats = world.stats
    summary = (f"chain of {args.links} links released horizontally: solver {stats['solver']}, "
               f"{world.settings['substeps']} substeps, backend {world.backend}")
    print(summary, f"- {1000 * seconds / args.steps:.1f} ms/step, worst gap {gap.max():.3g} m, "
          f"final tip height {tip_height[-1]:.3f} m")

    fig, (ax_gap, ax_tip) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    ax_gap.semilogy(t, np.maximum(gap, 1e-12), color="tab:red")
    ax_gap.set_ylabel("worst joint gap (m)")
    ax_gap.set_title(summary, fontsize=10)
    ax_gap.grid(True, which="both", alpha=0.3)
    ax_tip.plot(t, tip_height, color="tab:blue")
    ax_tip.axhline(-args.links * 0.1, color="grey", linestyle=":", label="hanging straight down")
    ax_tip.set_ylabel("free end height y (m)")
    ax_tip.set_xlabel("time (s)")
    ax_tip.legend(loc="upper right")
    ax_tip.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
