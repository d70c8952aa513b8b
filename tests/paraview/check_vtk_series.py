"""catena run --vtk DIR read back with VTK's own readers (Debian python3-vtk9).

Usage: check_vtk_series.py CATENA SOURCE_DIR WORK_DIR

Runs three scenes with --vtk and --csv and checks every frame through vtkXMLPolyDataReader: point, vertex
and line counts, the point arrays (body_id, velocity, angular_velocity, orientation, mass, shape_type,
shape_size), the cell arrays (joint_id, joint_type, gap, angle_error, contact_depth, force, torque; vertex
cells first; contacts carry contact_depth and no gap, joints the reverse),
positions, orientations and velocities against the CSV of the same run, the shapes and masses of a scene
of boxes, capsules and spheres, a hanging body's joint force against its weight, and the .pvd
collection's times (simulation seconds) against each frame's TimeValue. Exits 77 (skipped) when vtk cannot
be imported.
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


# ctn_joint_type's CTN_JOINT_CONTACT (include/catena/core.h)
CONTACT = 5


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
    orient, mass, stype, ssize = (array(pd, n) for n in ("orientation", "mass", "shape_type", "shape_size"))
    joint_id, joint_type, gap, angle, depth, force, torque = (array(cd, n) for n in ("joint_id", "joint_type", "gap", "angle_error",
                                                                                      "contact_depth", "force", "torque"))
    if any(a is None for a in (body_id, vel, ang, orient, mass, stype, ssize, joint_id, joint_type, gap, angle, depth, force, torque)):
        return
    check(vel.shape == (n_points, 3) and ang.shape == (n_points, 3), f"{path}: velocity arrays of shape {vel.shape}")
    check(orient.shape == (n_points, 4) and ssize.shape == (n_points, 3), f"{path}: orientation {orient.shape}, shape_size {ssize.shape}")
    pts = vtk_to_numpy(poly.GetPoints().GetData())
    check(str(pts.dtype) == "float64", f"{path}: points are {pts.dtype}, expected float64 (two-float positions)")
    # one vertex cell per body, on its own point, before the lines (VTK's cell order)
    n_verts = poly.GetNumberOfVerts()
    check(n_verts == n_bodies, f"{path}: {n_verts} vertex cells for {n_bodies} bodies")
    vconn = vtk_to_numpy(poly.GetVerts().GetConnectivityArray())
    check(list(vconn) == list(range(n_bodies)), f"{path}: vertex cells must be the body points in order")
    n_cells = n_verts + n_lines
    check(len(joint_id) == n_cells and force.shape == (n_cells, 3) and torque.shape == (n_cells, 3),
          f"{path}: cell arrays of {len(joint_id)} tuples for {n_cells} cells")
    check(all(j == -1 for j in joint_id[:n_verts]) and all(t == -1 for t in joint_type[:n_verts]),
          f"{path}: vertex cells must carry joint_id and joint_type -1")
    check(not force[:n_verts].any() and not gap[:n_verts].any() and not depth[:n_verts].any(),
          f"{path}: vertex cells carry no force, gap or contact depth")
    joint_id, joint_type, gap, angle, depth = joint_id[n_verts:], joint_type[n_verts:], gap[n_verts:], angle[n_verts:], depth[n_verts:]
    # a contact's penetration is contact_depth, never gap; a joint's error is gap, never contact_depth
    contact = joint_type == CONTACT
    check(not gap[contact].any() and not angle[contact].any(), f"{path}: contact lines carry a gap or angle_error")
    check(not depth[~contact].any(), f"{path}: joint lines carry a contact_depth")
    check(all(math.isfinite(d) and d >= 0 for d in depth), f"{path}: bad contact_depth")
    # bodies first, in id order, exactly the CSV's positions (%.17g round-trips doubles)
    for k, row in enumerate(rows):
        check(body_id[k] == int(row["body"]), f"{path}: point {k} is body {body_id[k]}, CSV row says {row['body']}")
        for c, axis in enumerate("xyz"):
            check(pts[k, c] == float(row[axis]), f"{path}: body {row['body']} {axis} = {pts[k, c]!r}, CSV {row[axis]}")
            check(abs(vel[k, c] - float(row["v" + axis])) <= 1e-6 * (1 + abs(float(row["v" + axis]))),
                  f"{path}: body {row['body']} v{axis} = {vel[k, c]}, CSV {row['v' + axis]}")
        for c, comp in enumerate(("qw", "qx", "qy", "qz")):
            check(abs(orient[k, c] - float(row[comp])) <= 1e-6, f"{path}: body {row['body']} {comp} = {orient[k, c]}, CSV {row[comp]}")
    check(all(b == -1 for b in body_id[n_bodies:]), f"{path}: anchor points must have body_id -1")
    check(all(list(orient[k]) == [1, 0, 0, 0] and mass[k] == 0 and stype[k] == 0 for k in range(n_bodies, n_points)),
          f"{path}: anchor points carry the identity orientation, no mass, no shape")
    check(list(joint_id) == sorted(set(joint_id)), f"{path}: joint ids not increasing: {list(joint_id)}")
    check(sorted(set(int(t) for t in joint_type)) == sorted(expect_types), f"{path}: joint types {sorted(set(joint_type))}, expected {expect_types}")
    check(all(math.isfinite(g) and g >= 0 for g in gap) and all(math.isfinite(a) and a >= 0 for a in angle), f"{path}: bad gap or angle")
    check(bool((abs(force) < 1e30).all() and (abs(torque) < 1e30).all()), f"{path}: force or torque not finite")
    conn = vtk_to_numpy(poly.GetLines().GetConnectivityArray())
    offs = vtk_to_numpy(poly.GetLines().GetOffsetsArray())
    check(list(offs) == list(range(0, 2 * n_lines + 1, 2)), f"{path}: every line must have two points")
    check(all(body_id[conn[2 * l]] >= 0 for l in range(n_lines)), f"{path}: a line must start at body a")
    anchors = [conn[2 * l + 1] for l in range(n_lines) if conn[2 * l + 1] >= n_bodies]
    check(sorted(anchors) == list(range(n_bodies, n_points)), f"{path}: each world anchor point must end one line")
    return {"pts": pts, "body_id": body_id, "conn": conn, "gap": gap, "depth": depth, "force": force[n_verts:], "mass": mass,
            "shape_type": stype, "shape_size": ssize, "orientation": orient, "joint_type": joint_type}


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


def check_shapes(catena, src, work):
    """Bodies without joints are vertex cells; shapes, masses and a hanging body's joint force."""
    scene = os.path.join(src, "tests", "paraview", "shapes.json")
    out = run_catena(catena, work, "shapes", scene, "--steps", "20", "--every", "10", "--solver", "gs", "--iterations", "20")
    vtk_dir = os.path.join(out, "vtk")
    series = read_pvd(os.path.join(vtk_dir, "catena.pvd"))
    check([t for t, _ in series] == [0.0, 0.1, 0.2], f"shapes: .pvd times {[t for t, _ in series]}, expected 0, 0.1, 0.2 s")
    csv_frames = read_csv(os.path.join(out, "bodies.csv"))
    frames = {}
    for t, name in series:
        step = int(name[6:12])
        # contacts between the box and the floor come and go: count the lines of the frame itself
        poly = read_frame(os.path.join(vtk_dir, name))
        types = sorted(set(int(x) for x in vtk_to_numpy(poly.GetCellData().GetArray("joint_type"))[poly.GetNumberOfVerts():]))
        frames[step] = check_frame(os.path.join(vtk_dir, name), t, csv_frames.get(step, []), poly.GetNumberOfLines(), types)
    f = frames.get(20)
    if not f:
        return
    # box (3), capsule (2), sphere (1), static post without a shape (0): full extents along the body axes
    check(list(f["shape_type"][:4]) == [3, 2, 1, 0], f"shapes: shape_type {list(f['shape_type'][:4])}, expected [3, 2, 1, 0]")
    want = [(0.6, 0.2, 0.4), (0.6, 0.1, 0.1), (0.2, 0.2, 0.2), (0, 0, 0)]
    for k, w in enumerate(want):
        check(all(abs(a - b) < 1e-6 for a, b in zip(f["shape_size"][k], w)), f"shapes: body {k} shape_size {list(f['shape_size'][k])}, expected {w}")
    # masses as the world holds them (1 / a float32 inverse mass)
    check(all(abs(a - b) <= 1e-6 * b for a, b in zip(f["mass"][:4], [2.0, 0.5, 1.5, 0.0])), f"shapes: mass {list(f['mass'][:4])}, expected [2, 0.5, 1.5, 0]")
    # the box has no joint: it is still drawn, a vertex cell on its point, resting on the floor (y = 0.1)
    check(abs(f["pts"][0][1] - 0.1) < 0.01, f"shapes: the box rests at y = {f['pts'][0][1]}, expected 0.1")
    # the capsule was turned 45 degrees about z: its orientation is read back
    q = frames[0]["orientation"][1]
    check(abs(q[0] - 0.9238795) < 1e-5 and abs(q[3] - 0.3826834) < 1e-5, f"shapes: capsule orientation {list(q)}")
    # the ball hangs at rest from its ball joint (type 1): the joint holds its weight, 1.5 kg x 9.81 m/s^2 upwards
    ball = [k for k, t in enumerate(f["joint_type"]) if t == 1]
    check(len(ball) == 1, f"shapes: {len(ball)} ball joints, expected 1")
    if ball:
        check(f["gap"][ball[0]] < 1e-4 and f["depth"][ball[0]] == 0, f"shapes: ball joint gap {f['gap'][ball[0]]} m, "
              f"contact_depth {f['depth'][ball[0]]} (a joint has none)")
        fy = f["force"][ball[0]]
        check(abs(fy[1] - 1.5 * 9.81) < 0.05 * 1.5 * 9.81 and abs(fy[0]) < 0.1 and abs(fy[2]) < 0.1,
              f"shapes: ball joint force {list(fy)}, expected (0, {1.5 * 9.81:.3f}, 0) N")


def check_joint_type_legend(src):
    """docs/visualisation.md's joint_type legend: each "value name" pair it gives is the joint-type table's
    (CTN_JT_LIST in kernels/ctn_joint_rows.h, in value order); the legend points to the enum for the rest, so a
    new type needs no line there."""
    import re
    with open(os.path.join(src, "kernels", "ctn_joint_rows.h")) as f:
        m = re.search(r"#define CTN_JT_LIST\(X\)(.*?)\n\n", f.read(), re.S)
    check(m is not None, "kernels/ctn_joint_rows.h: the joint-type list CTN_JT_LIST not found")
    if not m:
        return
    names = re.findall(r"X\([A-Z_]+, ([a-z_]+)\)", m.group(1))
    with open(os.path.join(src, "docs", "visualisation.md")) as f:
        legend = f.read().split("`joint_type` legend", 1)[-1].split("\n\n", 1)[0]
    pairs = re.findall(r"(\d+) ([a-z_]+)", legend.replace("\n", " "))
    check(len(pairs) >= 5, f"docs/visualisation.md: the joint_type legend gives {len(pairs)} value-name pairs")
    for value, name in pairs:
        ok = int(value) < len(names) and names[int(value)] == name
        check(ok, f"docs/visualisation.md: the joint_type legend says '{value} {name}', the table "
                  f"'{value} {names[int(value)] if int(value) < len(names) else '(none)'}'")
    check(len(names) >= 12, f"only {len(names)} joint type names found")


def main():
    catena, src, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    # chain:50: 50 bodies + the pin's world anchor, 50 ball joints; --dt makes the times exact decimals
    out = run_catena(catena, work, "chain", "chain:50", "--steps", "30", "--every", "10", "--dt", "0.01")
    frames = check_series(out, 10, 30, 0.01, 50, [1])
    if frames.get(0):
        f0 = frames[0]
        pts, body_id, conn, gap = f0["pts"], f0["body_id"], f0["conn"], f0["gap"]
        check(len(pts) == 51 and body_id[50] == -1 and list(pts[50]) == [0.0, 0.0, 0.0], "chain:50: the pin is a point at the origin")
        check(conn[0] == 0 and conn[1] == 50, f"chain:50: the first joint joins body 0 to the pin, not {conn[:2]}")
        check(max(gap) < 1e-6, f"chain:50: the initial chain is assembled, gap {max(gap)}")
    # every joint type but contacts, world anchors and body-body joints (time step 0.01 s in the file)
    out = run_catena(catena, work, "mechanisms", os.path.join(src, "examples", "mechanisms.json"), "--steps", "20", "--every", "5")
    check_series(out, 5, 20, 0.01, 8, [0, 1, 2, 3, 4])
    check_shapes(catena, src, work)
    check_joint_type_legend(src)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("VTK series read back: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
