"""Loads a catena .pvd series through ParaView's own reader (pvpython) and checks its time steps.

Usage: pvpython check_pvd_paraview.py PVD_FILE TIME... (the times the series must report, in seconds)

ParaView's PVD reader must find the frames' data type, report the collection's times (simulation
seconds) as the animation's time steps, and give each frame's points, vertex cells (one per body of
chain:20), lines and arrays.
"""
import sys

from paraview import servermanager
from paraview.simple import PVDReader

path, want = sys.argv[1], [float(t) for t in sys.argv[2:]]
reader = PVDReader(FileName=path)
reader.UpdatePipelineInformation()
times = list(reader.TimestepValues)
bad = []
if len(times) != len(want) or any(abs(a - b) > 1e-12 for a, b in zip(times, want)):
    bad.append(f"time steps {times}, expected {want}")
for t in want:
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    if data is None or data.GetNumberOfPoints() == 0 or data.GetNumberOfLines() == 0:
        bad.append(f"t = {t}: no points or lines ({data})")
        continue
    if data.GetNumberOfVerts() != 20:
        bad.append(f"t = {t}: {data.GetNumberOfVerts()} vertex cells, expected one per body (20)")
    for name in ("body_id", "velocity", "angular_velocity", "orientation", "mass", "shape_type", "shape_size"):
        if data.GetPointData().GetArray(name) is None:
            bad.append(f"t = {t}: point array {name} missing")
    for name in ("joint_id", "joint_type", "gap", "angle_error", "contact_depth", "force", "torque"):
        if data.GetCellData().GetArray(name) is None:
            bad.append(f"t = {t}: cell array {name} missing")
for b in bad:
    print("FAIL:", b)
if bad:
    sys.exit(1)
print(f"ParaView {servermanager.vtkSMProxyManager.GetParaViewSourceVersion()} read {len(times)} time steps: ok")
