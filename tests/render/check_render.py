"""catena render: PNG frames of a short run, drawn without a display, are pictures of the scene.

Usage: check_render.py CATENA SOURCE_DIR WORK_DIR

Runs chain:12 (a horizontal chain pinned at the origin that swings down in the x-y plane) with --vtk, renders
the series with `catena render --view z --size 320x240` and reads the PNGs back with VTK: one per frame, each
of the requested size, not blank (pixel variance, enough pixels that are not the background), the drawn
pixels in the upper left quadrant's rows and columns where the pin and the chain are (the camera fits the
series' bounds: x in [0, 1.2], y in [-1.2, 0]), and the first and last frames differ (the chain moved). A
scene of a box, a capsule and a sphere renders too. --mp4 writes a movie where ffmpeg is installed, and
without ffmpeg on $PATH the command fails with exit 4 naming ffmpeg. No temporary file is left behind.
Exits 77 (skipped) when VTK's Python modules, or both a display and xvfb-run, are missing.
"""
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOImage import vtkPNGReader
except ImportError as e:
    print(f"SKIP: VTK's Python modules are not importable ({e}); install python3-vtk9")
    sys.exit(77)
if not os.environ.get("DISPLAY") and not shutil.which("xvfb-run"):
    print("SKIP: no display and no xvfb-run (Debian: xvfb)")
    sys.exit(77)

failures = []
BACKGROUND = np.array([0.11, 0.12, 0.15]) * 255


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(cmd, env=None, expect=0):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    check(r.returncode == expect, f"{' '.join(cmd)}: exit {r.returncode}, expected {expect}: {r.stderr}")
    return r


def read_png(path):
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    a = vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3]  # row 0 at the top
    return a.astype(float)


def drawn(img):
    """Pixels that differ from the background (the time label aside: the bottom 15% of the picture)."""
    mask = np.abs(img - BACKGROUND).max(axis=2) > 40
    mask[int(0.85 * img.shape[0]):, :] = False
    return mask


def main():
    catena, src, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, CATENA_QUIET="1")
    vtk_dir, png_dir = os.path.join(work, "vtk"), os.path.join(work, "png")
    run([catena, "run", "chain:12", "--backend", "cpu", "--quiet", "--steps", "40", "--every", "20", "--dt", "0.01", "--vtk", vtk_dir], env)
    pvd = os.path.join(vtk_dir, "catena.pvd")
    mp4 = os.path.join(work, "chain.mp4")
    have_ffmpeg = shutil.which("ffmpeg") is not None
    cmd = [catena, "render", pvd, "--out", png_dir, "--view", "z", "--size", "320x240"] + (["--mp4", mp4] if have_ffmpeg else [])
    r = run(cmd, env)
    check("3 frames" in r.stdout, f"render's summary: {r.stdout!r}")
    names = sorted(os.listdir(png_dir)) if os.path.isdir(png_dir) else []
    check(names == [f"frame_{k:06d}.png" for k in range(3)], f"{png_dir}: {names}")
    pictures = []
    for name in names:
        img = read_png(os.path.join(png_dir, name))
        check(img.shape[:2] == (240, 320), f"{name}: {img.shape[1]}x{img.shape[0]}, expected 320x240")
        mask = drawn(img)
        share = mask.mean()
        check(img.std() > 5.0, f"{name}: blank picture (pixel standard deviation {img.std():.2f})")
        check(share > 0.002, f"{name}: only {100 * share:.3f}% of the pixels are drawn")
        if mask.any():
            rows, cols = np.nonzero(mask)
            # the pin (origin) is the top left corner of the series' bounds; the chain hangs right and down from it
            check(rows.min() < 0.5 * img.shape[0] and cols.min() < 0.5 * img.shape[1],
                  f"{name}: nothing drawn in the upper left quadrant (rows {rows.min()}.., columns {cols.min()}..)")
            check(cols.max() - cols.min() > 0.15 * img.shape[1] or rows.max() - rows.min() > 0.15 * img.shape[0],
                  f"{name}: the drawing spans only {cols.max() - cols.min()} x {rows.max() - rows.min()} pixels")
        pictures.append(img)
    if len(pictures) == 3:
        check(np.abs(pictures[0] - pictures[2]).max() > 40, "the first and last frames are the same picture: the chain did not move")
    if have_ffmpeg:
        with open(mp4, "rb") as f:
            head = f.read(12)
        check(head[4:8] == b"ftyp", f"{mp4}: not an MP4 file ({head!r})")
    # shapes: a box, a capsule and a sphere on a floor, default size and view
    shapes_vtk = os.path.join(work, "shapes-vtk")
    run([catena, "run", os.path.join(src, "tests", "paraview", "shapes.json"), "--backend", "cpu", "--quiet", "--steps", "20",
         "--every", "10", "--vtk", shapes_vtk], env)
    shapes_png = os.path.join(work, "shapes-png")
    run([catena, "render", os.path.join(shapes_vtk, "catena.pvd"), "--out", shapes_png, "--size", "400x300", "-q"], env)
    last = os.path.join(shapes_png, "frame_000002.png")
    if os.path.exists(last):
        img = read_png(last)
        check(drawn(img).mean() > 0.01, f"{last}: the shapes cover only {100 * drawn(img).mean():.3f}% of the picture")
    else:
        check(False, f"{last} missing")
    # --mp4 without ffmpeg: a clear error before any frame is drawn
    bare = os.path.join(work, "bin")
    os.makedirs(bare)
    os.symlink(shutil.which("python3"), os.path.join(bare, "python3"))
    r = run([catena, "render", pvd, "--out", os.path.join(work, "png-noffmpeg"), "--mp4", os.path.join(work, "x.mp4")],
            dict(env, PATH=bare), expect=4)
    check("ffmpeg" in r.stderr, f"--mp4 without ffmpeg: {r.stderr!r}")
    # bad input: a missing series names the user's path
    r = run([catena, "render", os.path.join(work, "nothing.pvd"), "--out", png_dir], env, expect=6)
    check("nothing.pvd" in r.stderr, f"missing .pvd: {r.stderr!r}")
    r = run([catena, "render", pvd, "--out", png_dir, "--size", "10x10"], env, expect=2)
    r = run([catena, "render", pvd, "--out", png_dir, "--bogus"], env, expect=2)
    check("unknown option --bogus" in r.stderr, f"render --bogus: {r.stderr!r}")
    # a movie that cannot be written is named by the user's path, before any frame is drawn
    r = run([catena, "render", pvd, "--out", os.path.join(work, "png-nomovie"), "--mp4", "/nonexistent-dir/x.mp4"], env, expect=6)
    check("/nonexistent-dir/x.mp4: cannot create" in r.stderr and ".tmp." not in r.stderr, f"unwritable --mp4: {r.stderr!r}")
    check(not os.path.exists(os.path.join(work, "png-nomovie", "frame_000000.png")), "frames drawn before the --mp4 check")
    leftovers = [f for d in (png_dir, work) for f in os.listdir(d) if ".tmp." in f]
    check(not leftovers, f"temporary files left behind: {leftovers}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("catena render: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
