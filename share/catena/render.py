#!/usr/bin/env python3
"""catena render: PNG frames (and an MP4 movie) of a `catena run --vtk` series, without a display.

Usage (normally through `catena render`, host/cli/render.c, which checks the command line first):
    render.py PVD --out DIR [--view auto|x|y|z|iso] [--size WxH] [--mp4 FILE] [--fps N] [--quiet]

Reads the .pvd collection and its .vtp frames with VTK's XML reader and draws each frame offscreen: bodies as
their shapes, oriented by the frames' `orientation` quaternion and sized by `shape_size` (boxes, spheres,
capsules as a cylinder between two spheres), bodies without a shape as small spheres, joints as lines, and
the simulation time as a label. One camera for the whole series frames the bounds of every frame, looking
along the view axis (`auto`: the axis along which the scene is thinnest, `iso` when no axis is). Frames go
to DIR/frame_000000.png, ... (numbered in series order), each written to a temporary name in DIR and
renamed. --mp4 encodes them with ffmpeg (H.264 where ffmpeg has it, yuv420p) the same way.

Debian's VTK (python3-vtk9, or the one of python3-paraview) renders through X11: without $DISPLAY the
script runs itself again under xvfb-run (Debian package xvfb). Exit codes as the catena tool: 2 usage, 3 a
series that is not a VTK collection, 4 no renderer (VTK's Python modules, a display or xvfb-run, or
ffmpeg for --mp4 missing), 6 a file that cannot be read or written.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

EXIT_USAGE, EXIT_SCENE, EXIT_RENDERER, EXIT_IO = 2, 3, 4, 6
BACKGROUND = (0.11, 0.12, 0.15)
COLOURS = {0: (0.85, 0.85, 0.85), 1: (0.30, 0.60, 0.95), 2: (0.95, 0.60, 0.20), 3: (0.45, 0.80, 0.45)}
JOINT_COLOUR = (0.95, 0.85, 0.30)
AXES = {"x": ((1, 0, 0), (0, 1, 0)), "y": ((0, 1, 0), (0, 0, -1)), "z": ((0, 0, 1), (0, 1, 0)), "iso": ((1, 1, 1), (0, 1, 0))}


def fail(code, message):
    print(f"catena render: {message}", file=sys.stderr)
    sys.exit(code)


def parse(argv):
    p = argparse.ArgumentParser(prog="catena render", description="PNG frames (and an MP4) of a catena --vtk series")
    p.add_argument("pvd")
    p.add_argument("--out", required=True)
    p.add_argument("--view", default="auto", choices=["auto", "x", "y", "z", "iso"])
    p.add_argument("--size", default="1280x720")
    p.add_argument("--mp4")
    p.add_argument("--fps", type=float, default=25.0)
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    try:
        w, h = (int(v) for v in a.size.lower().split("x"))
    except ValueError:
        fail(EXIT_USAGE, f"--size: '{a.size}' is not WIDTHxHEIGHT")
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        fail(EXIT_USAGE, f"--size: {w}x{h} is outside 16x16 .. 8192x8192")
    if not (0 < a.fps <= 1000):
        fail(EXIT_USAGE, f"--fps: {a.fps} is not in (0, 1000]")
    a.width, a.height = w, h
    return a


def read_series(pvd):
    """[(time, path of the frame)] of a .pvd collection, in its order."""
    try:
        root = ET.parse(pvd).getroot()
    except OSError as e:
        fail(EXIT_IO, f"{pvd}: cannot read: {e.strerror}")
    except ET.ParseError as e:
        fail(EXIT_SCENE, f"{pvd}: not a VTK collection (XML error: {e})")
    if root.tag != "VTKFile" or root.get("type") != "Collection":
        fail(EXIT_SCENE, f"{pvd}: not a VTK collection (a .pvd written by catena run --vtk)")
    base = os.path.dirname(os.path.abspath(pvd))
    series = []
    for d in root.iter("DataSet"):
        try:
            t = float(d.get("timestep", "0"))
        except ValueError:
            fail(EXIT_SCENE, f"{pvd}: timestep '{d.get('timestep')}' is not a number")
        series.append((t, os.path.join(base, d.get("file", ""))))
    if not series:
        fail(EXIT_SCENE, f"{pvd}: the collection lists no frames")
    return series


def need_display(argv, args):
    """Runs this script again under xvfb-run when VTK renders through X11 and there is no display."""
    from vtkmodules.vtkRenderingCore import vtkRenderWindow
    import vtkmodules.vtkRenderingOpenGL2  # noqa: F401 (the OpenGL window factory)
    window = vtkRenderWindow()
    x11 = window.GetClassName() == "vtkXOpenGLRenderWindow"
    if not x11 or os.environ.get("DISPLAY"):
        return
    if os.environ.get("CATENA_RENDER_XVFB"):
        fail(EXIT_RENDERER, "xvfb-run started no X display")
    xvfb = shutil.which("xvfb-run")
    if not xvfb:
        fail(EXIT_RENDERER, "VTK renders through X11 and there is no display ($DISPLAY unset) and no xvfb-run "
                            "(Debian: apt-get install xvfb)")
    env = dict(os.environ, CATENA_RENDER_XVFB="1")
    screen = f"-screen 0 {max(args.width, 640)}x{max(args.height, 480)}x24"
    os.execve(xvfb, [xvfb, "-a", "-s", screen, sys.executable, os.path.abspath(__file__), *argv], env)


def read_frame(path):
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
    if not os.access(path, os.R_OK):
        fail(EXIT_IO, f"{path}: cannot read the frame")
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0 or r.GetOutput().GetPointData().GetArray("body_id") is None:
        fail(EXIT_SCENE, f"{path}: not a catena VTK frame")
    return r.GetOutput()


def arrays(poly):
    from vtkmodules.util.numpy_support import vtk_to_numpy
    import numpy as np
    pd = poly.GetPointData()
    n = poly.GetNumberOfPoints()

    def get(name, width, fill):
        a = pd.GetArray(name)
        return vtk_to_numpy(a).reshape(n, width).astype(np.float64) if a is not None else np.tile(np.array(fill, dtype=np.float64), (n, 1))
    pts = vtk_to_numpy(poly.GetPoints().GetData()).astype(np.float64) if n else np.zeros((0, 3))
    return {"points": pts, "body_id": get("body_id", 1, [0])[:, 0], "orientation": get("orientation", 4, [1, 0, 0, 0]),
            "shape_type": get("shape_type", 1, [0])[:, 0].astype(int), "shape_size": get("shape_size", 3, [0, 0, 0])}


def rotate(q, v):
    """Rotates the rows of v (n x 3) by the unit quaternions q (n x 4, w x y z)."""
    import numpy as np
    w, u = q[:, :1], q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def series_bounds(series):
    """Bounds of every frame's bodies, grown by their shapes, and the median joint length."""
    import numpy as np
    lo, hi, lengths = np.full(3, np.inf), np.full(3, -np.inf), []
    for _, path in series:
        poly = read_frame(path)
        a = arrays(poly)
        if len(a["points"]) == 0:
            continue
        grow = 0.5 * a["shape_size"].max(axis=1, initial=0.0)[:, None]
        lo = np.minimum(lo, (a["points"] - grow).min(axis=0))
        hi = np.maximum(hi, (a["points"] + grow).max(axis=0))
        if not lengths and poly.GetNumberOfLines():
            from vtkmodules.util.numpy_support import vtk_to_numpy
            c = vtk_to_numpy(poly.GetLines().GetConnectivityArray()).reshape(-1, 2)
            lengths = list(np.linalg.norm(a["points"][c[:, 0]] - a["points"][c[:, 1]], axis=1))
    if not np.isfinite(lo).all():
        lo, hi = np.zeros(3), np.zeros(3)
    positive = [x for x in lengths if x > 0]
    return lo, hi, (float(np.median(positive)) if positive else 0.0)


def glyphs(points, orientation, scale, source):
    """An actor drawing `source` (unit size, centred) at each point, turned and scaled per point."""
    from vtkmodules.util.numpy_support import numpy_to_vtk
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkPolyData
    from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper
    import numpy as np
    poly = vtkPolyData()
    p = vtkPoints()
    p.SetData(numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64), deep=True))
    poly.SetPoints(p)
    for name, values in (("orientation", orientation), ("scale", scale)):
        a = numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64), deep=True)
        a.SetName(name)
        poly.GetPointData().AddArray(a)
    m = vtkGlyph3DMapper()
    m.SetInputData(poly)
    m.SetSourceConnection(source.GetOutputPort())
    m.SetOrientationArray("orientation")
    m.SetOrientationModeToQuaternion()
    m.SetScaleArray("scale")
    m.SetScaleModeToScaleByVectorComponents()
    m.ScalingOn()
    actor = vtkActor()
    actor.SetMapper(m)
    return actor


def sources():
    from vtkmodules.vtkFiltersGeneral import vtkTransformPolyDataFilter
    from vtkmodules.vtkCommonTransforms import vtkTransform
    from vtkmodules.vtkFiltersSources import vtkCubeSource, vtkCylinderSource, vtkSphereSource
    sphere = vtkSphereSource()
    sphere.SetRadius(0.5)
    sphere.SetThetaResolution(20)
    sphere.SetPhiResolution(14)
    cube = vtkCubeSource()
    cylinder = vtkCylinderSource()  # along y, radius 0.5, height 1: turned onto x (capsules lie along body x)
    cylinder.SetRadius(0.5)
    cylinder.SetResolution(20)
    turn = vtkTransform()
    turn.RotateZ(-90.0)
    rod = vtkTransformPolyDataFilter()
    rod.SetTransform(turn)
    rod.SetInputConnection(cylinder.GetOutputPort())
    return {"sphere": sphere, "box": cube, "rod": rod}


def frame_actors(poly, src, dot):
    """The actors of one frame: shapes by type, shapeless bodies as dots of diameter `dot`, joints as lines."""
    import numpy as np
    from vtkmodules.vtkCommonDataModel import vtkPolyData
    from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper
    a = arrays(poly)
    body = a["body_id"] >= 0
    pts, q, size, kind = a["points"], a["orientation"], a["shape_size"], a["shape_type"]
    actors = []

    def add(mask, source, scale, colour, points=None, orient=None):
        if not mask.any():
            return
        actor = glyphs(pts[mask] if points is None else points, q[mask] if orient is None else orient, scale, src[source])
        actor.GetProperty().SetColor(*colour)
        actors.append(actor)
    add(body & (kind == 3), "box", size[body & (kind == 3)], COLOURS[3])
    add(body & (kind == 1), "sphere", size[body & (kind == 1)], COLOURS[1])
    none = body & ((kind == 0) | (kind > 3))
    add(none, "sphere", np.full((int(none.sum()), 3), dot), COLOURS[0])
    caps = body & (kind == 2)
    if caps.any():  # a capsule: the cylinder of its segment and a sphere at each end
        s, r = size[caps], 0.5 * size[caps][:, 1]
        half = np.maximum(0.5 * s[:, 0] - r, 0.0)
        add(caps, "rod", np.stack([2.0 * half, 2.0 * r, 2.0 * r], axis=1), COLOURS[2])
        axis = rotate(q[caps], np.stack([half, np.zeros_like(half), np.zeros_like(half)], axis=1))
        ends = np.concatenate([pts[caps] + axis, pts[caps] - axis])
        add(np.concatenate([caps[caps], caps[caps]]), "sphere", np.repeat(2.0 * r, 2)[:, None].repeat(3, axis=1), COLOURS[2],
            points=ends, orient=np.concatenate([q[caps], q[caps]]))
    if poly.GetNumberOfLines():
        lines = vtkPolyData()
        lines.SetPoints(poly.GetPoints())
        lines.SetLines(poly.GetLines())
        m = vtkPolyDataMapper()
        m.SetInputData(lines)
        m.ScalarVisibilityOff()
        actor = vtkActor()
        actor.SetMapper(m)
        actor.GetProperty().SetColor(*JOINT_COLOUR)
        actor.GetProperty().SetLineWidth(2.0)
        actors.append(actor)
    return actors


def place_camera(camera, lo, hi, view):
    import numpy as np
    extent = hi - lo
    if view == "auto":
        thin = int(np.argmin(extent))
        view = "xyz"[thin] if extent[thin] < 0.5 * extent.max() else "iso"
    direction, up = (np.array(v, dtype=float) for v in AXES[view])
    direction /= np.linalg.norm(direction)
    centre = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(extent)), 1e-3)
    angle = 30.0
    distance = radius / math.sin(math.radians(0.5 * angle)) * 1.05
    camera.SetViewAngle(angle)
    camera.SetFocalPoint(*centre)
    camera.SetPosition(*(centre + distance * direction))
    camera.SetViewUp(*up)
    camera.SetClippingRange(max(distance - 2 * radius, 1e-4 * distance), distance + 2 * radius)
    return view


def write_png(window, path):
    """The window's picture to `path`, through a temporary file in the same directory renamed over it."""
    from vtkmodules.vtkIOImage import vtkPNGWriter
    from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter
    grab = vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.SetInputBufferTypeToRGB()
    grab.ReadFrontBufferOff()
    grab.Update()
    tmp = f"{os.path.dirname(path)}/.{os.path.basename(path)}.tmp.{os.getpid()}"
    w = vtkPNGWriter()
    w.SetFileName(tmp)
    w.SetInputConnection(grab.GetOutputPort())
    w.Write()
    if w.GetErrorCode() != 0 or not os.path.exists(tmp):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        fail(EXIT_IO, f"{path}: cannot write the picture")
    os.replace(tmp, path)


def encode(out, count, fps, mp4, ffmpeg):
    tmp = f"{os.path.dirname(os.path.abspath(mp4))}/.{os.path.basename(mp4)}.tmp.{os.getpid()}"
    cmd = [ffmpeg, "-loglevel", "error", "-y", "-framerate", f"{fps:g}", "-i", os.path.join(out, "frame_%06d.png"),
           "-frames:v", str(count), "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", "-f", "mp4", tmp]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        fail(EXIT_IO, f"{mp4}: ffmpeg failed: {r.stderr.strip().replace(tmp, mp4)}")
    os.replace(tmp, mp4)


def main(argv):
    args = parse(argv)
    ffmpeg = None
    if args.mp4:
        ffmpeg = shutil.which("ffmpeg")
        if not ffmpeg:
            fail(EXIT_RENDERER, "--mp4 needs ffmpeg, which is not installed (Debian: apt-get install ffmpeg)")
    try:
        import numpy  # noqa: F401
        import vtkmodules.vtkRenderingCore  # noqa: F401
    except ImportError as e:
        # Debian's VTK is importable by Debian's own interpreter only: a python3 earlier on $PATH (pyenv, a
        # virtual environment) hands over to it, unless CATENA_PYTHON chose the interpreter
        system = "/usr/bin/python3"
        if (not os.environ.get("CATENA_PYTHON") and not os.environ.get("CATENA_RENDER_SYSTEM_PYTHON") and os.access(system, os.X_OK)
                and os.path.realpath(sys.executable) != os.path.realpath(system)):
            os.execve(system, [system, os.path.abspath(__file__), *argv], dict(os.environ, CATENA_RENDER_SYSTEM_PYTHON="1"))
        fail(EXIT_RENDERER, f"VTK's Python modules are not importable by {sys.executable} ({e}): install python3-vtk9 "
                            "(Debian), or set CATENA_PYTHON to a Python that has VTK")
    series = read_series(args.pvd)
    need_display(argv, args)
    if not os.path.isdir(args.out):
        try:
            os.makedirs(args.out)
        except OSError as e:
            fail(EXIT_IO, f"{args.out}: cannot create the directory: {e.strerror}")
    from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow, vtkTextActor
    import vtkmodules.vtkRenderingFreeType  # noqa: F401 (text)
    import vtkmodules.vtkRenderingOpenGL2  # noqa: F401
    lo, hi, link = series_bounds(series)
    dot = max(min(0.35 * link if link > 0 else math.inf, 0.03 * float(max((hi - lo).max(), 1e-3))), 1e-4)
    window = vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetSize(args.width, args.height)
    renderer = vtkRenderer()
    renderer.SetBackground(*BACKGROUND)
    window.AddRenderer(renderer)
    view = place_camera(renderer.GetActiveCamera(), lo, hi, args.view)
    label = vtkTextActor()
    label.GetTextProperty().SetFontSize(max(12, args.height // 30))
    label.GetTextProperty().SetColor(0.95, 0.95, 0.95)
    label.SetDisplayPosition(10, 10)
    src = sources()
    for k, (t, path) in enumerate(series):
        renderer.RemoveAllViewProps()
        for actor in frame_actors(read_frame(path), src, dot):
            renderer.AddActor(actor)
        label.SetInput(f"t = {t:.4g} s   ({k + 1}/{len(series)})")
        renderer.AddActor2D(label)
        window.Render()
        write_png(window, os.path.join(args.out, f"frame_{k:06d}.png"))
    if args.mp4:
        encode(args.out, len(series), args.fps, args.mp4, ffmpeg)
    if not args.quiet:
        movie = f"; movie {args.mp4}" if args.mp4 else ""
        print(f"catena render: {len(series)} frames of {args.width}x{args.height} in {args.out} (view {view}){movie}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
