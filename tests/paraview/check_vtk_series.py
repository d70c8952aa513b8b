"""catena run --vtk DIR read back with VTK's own readers (Debian python3-vtk9).

Usage: check_vtk_series.py CATENA SOURCE_DIR WORK_DIR

Runs two scenes with --vtk and --csv and checks every frame through vtkXMLPolyDataReader: point and line
counts, the point arrays (body_id, velocity, angular_velocity), the cell arrays (joint_id, joint_type,
gap, angle_error), positions and velocities against the CSV of the same run, and the .pvd collection's
times (simulation seconds) against each frame's TimeValue. Exits 77 (skipped) when vtk cannot be imported.
"""
import csv
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

try:
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
except ImportError as e:
    print(f"SKIP: VTK's Python modules are not importable ({e}); install python3-vtk9")
    sys.exit(77)

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run_catena(catena, work, name, scene, *args):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [catena, "run", scene, "--backend", "cpu", "--quiet", "--vtk", os.path.join(out, "vtk"),
           "--csv", os.path.join(out, "bodies.csv"), *args]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, CATENA_QUIET="1"))
    check(r.returncode == 0, f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr}")
    return out


def read_csv(path):
    frames = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            frames.setdefault(int(row["step"]), []).append(row)
    return frames


def read_pvd(path):
    root = ET.parse(path).getroot()
    check(root.tag == "VTKFile" and root.get("type") == "Collection", f"{path}: not a VTK collection")
    return [(float(d.get("timestep")), d.get("file")) for d in root.iter("DataSet")]


def read_frame(path):
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    check(r.GetErrorCode() == 0, f"{path}: vtkXMLPolyDataReader error {r.GetErrorCode()}")
    return r.GetOutput()


def array(data, name):
    a = data.GetArray(name)
    check(a is not None, f"array {name} missing")
    return vtk_to_numpy(a) if a is not None else None


def check_frame(path, time, rows, expect_lines, expect_types):
    poly = read_frame(path)
    pd, cd = poly.GetPointData(), poly.GetCellData()
    n_bodies = len(rows)
    n_points, n_lines = poly.GetNumberOfPoints(), poly.GetNumberOfLines()
    check(n_lines == expect_lines, f"{path}: {n_lines} lines, expected {expect_lines}")
    check(n_points >= n_bodies, f"{path}: {n_points} points for {n_bodies} bodies")
    tv = vtk_to_numpy(poly.GetFieldData().GetArray("TimeValue"))
    check(abs(tv[0] - time) <= 1e-12 * max(1.0, time), f"{path}: TimeValue {tv[0]} but the .pvd says {time}")
    body_id, vel, ang = array(pd, "body_id"), array(pd, "velocity"), array(pd, "angular_velocity")
    joint_id, joint_type, gap, angle = (array(cd, n) for n in ("joint_id", "joint_type", "gap", "angle_error"))
    if any(a is None for a in (body_id, vel, ang, joint_id, joint_type, gap, angle)):
        return
    check(vel.shape == (n_points, 3) and ang.shape == (n_points, 3), f"{path}: velocity arrays of shape {vel.shape}")
    pts = vtk_to_numpy(poly.GetPoints().GetData())
    check(str(pts.dtype) == "float64", f"{path}: points are {pts.dtype}, expected float64 (two-float positions)")
    # bodies first, in id order, exactly the CSV's positions (%.17g round-trips doubles)
    for k, row in enumerate(rows):
        check(body_id[k] == int(row["body"]), f"{path}: point {k} is body {body_id[k]}, CSV row says {row['body']}")
        for c, axis in enumerate("xyz"):
            check(pts[k, c] == float(row[axis]), f"{path}: body {row['body']} {axis} = {pts[k, c]!r}, CSV {row[axis]}")
            check(abs(vel[k, c] - float(row["v" + axis])) <= 1e-6 * (1 + abs(float(row["v" + axis]))),
                  f"{path}: body {row['body']} v{axis} = {vel[k, c]}, CSV {row['v' + axis]}")
    check(all(b == -1 for b in body_id[n_bodies:]), f"{path}: anchor points must have body_id -1")
    check(list(joint_id) == sorted(set(joint_id)), f"{path}: joint ids not increasing: {list(joint_id)}")
    check(sorted(set(int(t) for t in joint_type)) == sorted(expect_types), f"{path}: joint types {sorted(set(joint_type))}, expected {expect_types}")
    check(all(math.isfinite(g) and g >= 0 for g in gap) and all(math.isfinite(a) and a >= 0 for a in angle), f"{path}: bad gap or angle")
    conn = vtk_to_numpy(poly.GetLines().GetConnectivityArray())
    offs = vtk_to_numpy(poly.GetLines().GetOffsetsArray())
    check(list(offs) == list(range(0, 2 * n_lines + 1, 2)), f"{path}: every line must have two points")
    check(all(body_id[conn[2 * l]] >= 0 for l in range(n_lines)), f"{path}: a line must start at body a")
    anchors = [conn[2 * l + 1] for l in range(n_lines) if conn[2 * l + 1] >= n_bodies]
    check(sorted(anchors) == list(range(n_bodies, n_points)), f"{path}: each world anchor point must end one line")
    return pts, body_id, conn, gap


def check_series(out, every, steps, dt, expect_lines, expect_types):
    vtk_dir = os.path.join(out, "vtk")
    series = read_pvd(os.path.join(vtk_dir, "catena.pvd"))
    want = list(range(0, steps + 1, every))
    check([f for _, f in series] == [f"frame_{s:06d}.vtp" for s in want], f"{out}: .pvd lists {[f for _, f in series]}")
    for (t, _), s in zip(series, want):
        check(abs(t - s * dt) <= 1e-12, f"{out}: frame of step {s} at time {t}, expected {s * dt} s")
    csv_frames = read_csv(os.path.join(out, "bodies.csv"))
    result = {}
    for t, name in series:
        step = int(name[6:12])
        result[step] = check_frame(os.path.join(vtk_dir, name), t, csv_frames.get(step, []), expect_lines, expect_types)
    leftovers = [f for f in os.listdir(vtk_dir) if ".tmp." in f]
    check(not leftovers, f"{vtk_dir}: temporary files left behind: {leftovers}")
    return result


def main():
    catena, src, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    # chain:50: 50 bodies + the pin's world anchor, 50 ball joints; --dt makes the times exact decimals
    out = run_catena(catena, work, "chain", "chain:50", "--steps", "30", "--every", "10", "--dt", "0.01")
    frames = check_series(out, 10, 30, 0.01, 50, [1])
    if frames.get(0):
        pts, body_id, conn, gap = frames[0]
        check(len(pts) == 51 and body_id[50] == -1 and list(pts[50]) == [0.0, 0.0, 0.0], "chain:50: the pin is a point at the origin")
        check(conn[0] == 0 and conn[1] == 50, f"chain:50: the first joint joins body 0 to the pin, not {conn[:2]}")
        check(max(gap) < 1e-6, f"chain:50: the initial chain is assembled, gap {max(gap)}")
    # every joint type but contacts, world anchors and body-body joints (time step 0.01 s in the file)
    out = run_catena(catena, work, "mechanisms", os.path.join(src, "examples", "mechanisms.json"), "--steps", "20", "--every", "5")
    check_series(out, 5, 20, 0.01, 8, [0, 1, 2, 3, 4])
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("VTK series read back: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
