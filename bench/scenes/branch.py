# Bench scene: a chain of N rigid links (the chain generator, hanging from the origin) with a side
# branch of B links (explicit bodies, ball joints) from link N/2. Writes bench/scenes/branch_N.json.
# Usage: python3 bench/scenes/branch.py N [B=100]     (results: bench/results/opencl-tree.md)
import json, os, sys

N = int(sys.argv[1])
B = int(sys.argv[2]) if len(sys.argv) > 2 else 100
L = 0.1
mid = N // 2
y = -(mid + 0.5) * L  # centre of link `mid`; the branch starts there, horizontally
bodies = [{"mass": 0.1, "inertia": {"box": [0.05, 0.005, 0.005]}, "position": [L * (i + 0.5), y, 0]} for i in range(B)]
# explicit bodies come first (ids 0..B-1), so chain link k is body B + k
cons = [{"type": "ball", "a": i, "b": (B + mid) if i == 0 else i - 1, "pivot": [L * i, y, 0]} for i in range(B)]
scene = {"version": 1, "description": f"chain of {N} links with a side branch of {B} links at link {mid}",
         "world": {"steps": 20, "solver": "direct"}, "bodies": bodies,
         "generators": [{"chain": {"links": N, "origin": [0, 0, 0], "direction": [0, -1, 0]}}],
         "constraints": cons}
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"branch_{N}.json")
with open(out, "w") as f:
    json.dump(scene, f)
print(out)
