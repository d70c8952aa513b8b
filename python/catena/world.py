"""catena.World: a Catena world from Python.

Settings, bodies, joints and shapes are passed by keyword under the names of the C API's description
structs (``ctn_world_desc``, ``ctn_body_desc``, ``ctn_joint_desc``, ...); enums by name (``solver="direct"``).
Bodies and joints are named by handles (ints; see :func:`catena.slot`). Bulk state comes and goes as NumPy
arrays in one library call each: row ``i`` of ``positions``, ``orientations``, ``velocities`` and
``angular_velocities`` is the body in slot ``i``, row ``j`` of ``joint_gaps``, ``joint_forces``, ... the
joint in slot ``j``; free slots read as zeros. In a world where nothing was removed, a handle is its
row.
"""

import logging
import os
import tempfile

import numpy as np

from . import _catena as _c
from .errors import Error, InvalidArgumentError

WORLD = _c.WORLD
"""The fixed world frame, usable as a joint's ``body_b``."""


def slot(handle):
    """The row of a body or joint handle in the bulk arrays: its slot index. Handles are ints in Python, the
    integer form of the C handle structs (``ctn_body_id_to_int``: ``generation << 32 | index``, ``WORLD`` is
    -1), each valid for the World that returned it; a removed body's slot is reused by a later one."""
    return handle & 0x7FFFFFFF


SOLVERS = {"gs": _c.SOLVER_GS, "jacobi": _c.SOLVER_JACOBI, "cg": _c.SOLVER_CG, "direct": _c.SOLVER_DIRECT,
           "auto": _c.SOLVER_AUTO}
BACKENDS = {"auto": _c.BACKEND_AUTO, "cpu": _c.BACKEND_CPU, "opencl": _c.BACKEND_OPENCL}
STABILIZATIONS = {"spook": _c.STAB_SPOOK, "baumgarte": _c.STAB_BAUMGARTE}
INTEGRATORS = {"rattle": _c.INTEGRATOR_RATTLE, "velocity": _c.INTEGRATOR_VELOCITY}
BOUNDED_ROWS = {"auto": 0, "exact": 1, "sweep": 2}  # ctn_bounded_rows
BODY_TYPES = {"dynamic": _c.BODY_DYNAMIC, "static": _c.BODY_STATIC, "kinematic": _c.BODY_KINEMATIC}
# the types add_joint takes: the module's JOINT_* constants (one per entry of the library's joint-type table),
# less contacts (add_contact) and curves (add_curve)
JOINT_TYPES = dict(sorted(((n[len("JOINT_"):].lower(), getattr(_c, n)) for n in dir(_c)
                           if n.startswith("JOINT_") and n not in ("JOINT_CONTACT", "JOINT_CURVE")), key=lambda kv: kv[1]))
CURVES = {"line": _c.CURVE_LINE, "circle": _c.CURVE_CIRCLE, "helix": _c.CURVE_HELIX, "polyline": _c.CURVE_POLYLINE}
CURVE_STABS = {"velocity": _c.CURVE_STAB_VELOCITY, "acceleration": _c.CURVE_STAB_ACCELERATION}
SHAPES = {"none": _c.SHAPE_NONE, "sphere": _c.SHAPE_SPHERE, "capsule": _c.SHAPE_CAPSULE, "box": _c.SHAPE_BOX}

# settings keys whose values are enum names, and their tables
_ENUM_SETTINGS = {"solver": SOLVERS, "backend": BACKENDS, "stabilization": STABILIZATIONS, "integrator": INTEGRATORS,
                  "bounded_rows": BOUNDED_ROWS}


def _code(table, field, value):
    """The enum value of a name (or of an int already)."""
    if isinstance(value, str):
        if value not in table:
            raise InvalidArgumentError(f"{field}: unknown name {value!r} (expected one of {', '.join(table)})")
        return table[value]
    return value


def _name(table, code):
    return next((name for name, value in table.items() if value == code), code)


def _settings_to_c(settings):
    return {key: _code(_ENUM_SETTINGS[key], key, value) if key in _ENUM_SETTINGS else value
            for key, value in settings.items()}


def _settings_from_c(desc):
    return {key: _name(_ENUM_SETTINGS[key], value) if key in _ENUM_SETTINGS else value for key, value in desc.items()}


def _inertia(mass, inertia, type, particle):
    """Principal moments for add_body: given, or of a solid named as scene files name it; a rigid dynamic body
    without either is refused, as scene files refuse it (no silent unit-cube inertia)."""
    if isinstance(inertia, dict):
        if len(inertia) != 1 or next(iter(inertia)) not in ("box", "sphere", "capsule"):
            raise InvalidArgumentError(f"body.inertia: {inertia!r} is not one of {{'box': (hx, hy, hz)}}, {{'sphere': r}}, "
                                       "{'capsule': {'radius': r, 'half_length': h, 'axis': 'x'}}")
        kind, size = next(iter(inertia.items()))
        m = 1.0 if mass is None else float(mass)
        if kind == "capsule":
            if not isinstance(size, dict) or "radius" not in size or "half_length" not in size:
                raise InvalidArgumentError(f"body.inertia.capsule: {size!r} needs 'radius' and 'half_length'")
            axis = {"x": 0, "y": 1, "z": 2}.get(size.get("axis", "x"))
            if axis is None:
                raise InvalidArgumentError(f"body.inertia.capsule.axis: {size.get('axis')!r} is not 'x', 'y' or 'z'")
            dims = (float(size["radius"]), float(size["half_length"]))
        else:
            dims = (float(size),) if kind == "sphere" else tuple(float(v) for v in size)
            axis = 0
        if any(not (d > 0) for d in dims) or (kind == "box" and len(dims) != 3):
            raise InvalidArgumentError(f"body.inertia.{kind}: {size!r} must be positive sizes (m)")
        return _c.solid_inertia(kind, m, dims + (0.0,) * (3 - len(dims)), axis)
    is_dynamic = type in ("dynamic", _c.BODY_DYNAMIC)
    if inertia is None and is_dynamic and not particle:
        raise InvalidArgumentError("body.inertia: a rigid dynamic body needs its inertia, as in scene files: principal "
                                   "moments (Ixx, Iyy, Izz) in kg m^2, or a solid such as {'box': (hx, hy, hz)}, "
                                   "{'sphere': r} or {'capsule': {'radius': r, 'half_length': h}}; or particle=True for "
                                   "a point mass")
    return inertia


class _StateArray(np.ndarray):
    """A copy of one body field (positions, velocities, ...) that writes element assignments back to its
    world: ``w.positions[0, 1] = 2.0`` moves body 0, as it reads. Only the rows an assignment changed are
    written, each whole, on top of the world's current values, so an array kept across steps does not put
    its stale rows back. Arithmetic on it gives plain arrays."""

    def __new__(cls, values, world, field, width):
        array = np.asarray(values).view(cls)
        array._world, array._field, array._width = world, field, width
        return array

    def __array_finalize__(self, obj):
        self._world = None  # slices and results of arithmetic do not write back

    def __setitem__(self, key, value):
        world = getattr(self, "_world", None)
        if world is None:
            return super().__setitem__(key, value)
        before = np.array(self)
        super().__setitem__(key, value)
        changed = np.any(np.asarray(self) != before, axis=1)
        if not changed.any():
            return
        current = np.empty(before.shape, dtype=np.float64)
        world._h.read_bodies(self._field, current)
        current[changed] = np.asarray(self)[changed]
        world._h.write_bodies(self._field, np.ascontiguousarray(current))


class World:
    """A simulated world (``ctn_world``). Every failing call raises a :class:`catena.Error` subclass and
    leaves the world unchanged. A world may be used from one thread at a time; :meth:`step` releases the GIL
    so other Python threads run meanwhile."""

    def __init__(self, gravity=None, time_step=None, substeps=None, iterations=None, solver=None, backend=None,
                 device=None, **settings):
        """Settings left out (or None) keep the library's defaults (``ctn_world_desc_default``: gravity
        (0, -9.81, 0) m/s^2, time_step 1/60 s, 4 substeps x 4 iterations, solver and backend "auto");
        substeps=0 chooses them per step with the solver (1 for "direct" where that is measured to hold).
        Other settings by their ``ctn_world_desc`` names: integrator ("rattle", the default: energy-true
        with the direct solver where its joints allow, or "velocity", the step of earlier versions;
        ``stats["integrator_reason"]`` says which ran and why), rattle_max_joints (RATTLE applies to worlds of at
        most this many joints; 0, the default: 1000), bounded_rows (the direct solver's limits and motors: "auto",
        the default: "exact" on the CPU and "sweep" on OpenCL; "exact": an active set in the exact solve, CPU
        only; "sweep": projected Gauss-Seidel between exact solves), stabilization ("spook" or "baumgarte"), compliance, damping_time, baumgarte, warm_start, max_colours, threads, geometric_stiffness,
        max_speed. device: "P:D" (OpenCL platform and device indices) or a name substring."""
        settings.update(gravity=gravity, time_step=time_step, substeps=substeps, iterations=iterations, solver=solver,
                        backend=backend, device=device)
        self._h = _c.WorldHandle(_settings_to_c(settings))
        self.info = {}
        self._reset_point = None

    @classmethod
    def _wrap(cls, handle, info):
        world = cls.__new__(cls)
        world._h = handle
        world.info = info
        world._reset_point = None
        return world

    @classmethod
    def from_scene(cls, path, **overrides):
        """A world with a JSON scene file's settings (changed by ``overrides``) and its bodies and joints.
        ``world.info["steps"]`` is the file's step count."""
        handle, steps = _c.world_from_scene(os.fspath(path), _settings_to_c(overrides))
        return cls._wrap(handle, {"steps": steps})

    @classmethod
    def load(cls, path, **overrides):
        """A world from a checkpoint written by :meth:`save`, with the saved settings (``overrides`` may
        change them, e.g. ``backend="cpu"``). ``world.info`` holds the saved step and user text."""
        handle, info = _c.load_checkpoint(os.fspath(path), _settings_to_c(overrides))
        world = cls._wrap(handle, info)
        # the saved step goes on counting; the checkpoint holds no clock, so the time is step x time step
        handle.set_clock(info["step"], info["step"] * world.settings["time_step"])
        return world

    def save(self, path, step=0, user=None):
        """Writes a checkpoint (atomically): the complete state, from which :meth:`load` steps bitwise
        identically."""
        self._h.save(os.fspath(path), step, user)

    def close(self):
        """Frees the world now (it is also freed when garbage collected)."""
        self._h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- settings and statistics ------------------------------------------------------------------------

    @property
    def settings(self):
        """The world's settings as a dict (enum values by name)."""
        return _settings_from_c(self._h.get_desc())

    def configure(self, **settings):
        """Changes settings of the live world (not backend or device)."""
        self._h.set_desc(_settings_to_c(settings))

    @property
    def stats(self):
        """Statistics of the last step (``ctn_step_stats``): ``solver`` is the solver that actually ran
        (what "auto" chose), ``max_joint_gap`` the largest joint gap (m, contacts excluded), ``max_penetration``
        the deepest contact penetration (m), ``max_gap`` the larger of the two, ``ms_total`` the step's wall time,
        ..."""
        stats = self._h.stats()
        stats["solver"] = _name(SOLVERS, stats["solver"])
        stats["integrator"] = _name(INTEGRATORS, stats["integrator"])
        return stats

    @property
    def backend(self):
        """"cpu" or "opencl": the backend in use."""
        return self._h.info()["backend"]

    @property
    def device(self):
        """The name of the device in use."""
        return self._h.info()["device"]

    @property
    def body_count(self):
        """Live bodies."""
        return self._h.info()["bodies"]

    @property
    def joint_count(self):
        """Live joints (springs and contacts included)."""
        return self._h.info()["joints"]

    def measure(self):
        """(largest joint gap in m, largest joint angle error in rad) of the current state; contacts are no
        joints here (their penetration is ``measure_contacts()``)."""
        return self._h.measure()

    def measure_contacts(self):
        """Deepest contact penetration (m) of the current state; 0 without contacts."""
        return self._h.measure_contacts()

    def assemble(self, tolerance=None, targets=(), gather_iterations=None, gather_tolerance=None,
                 newton_iterations=None, keep_velocities=False):
        """Moves the bodies the least (in the mass metric) so that every joint closes to ``tolerance`` (m and
        rad; default 1e-6), pulling the IK ``targets`` as close as the joints allow: each target is a dict
        ``{"body": handle, "point": body-frame point, "target": world point, "weight": w}`` (or a tuple
        ``(body, point, target[, weight])``). Velocities are zeroed unless ``keep_velocities``. Returns
        the report (``ctn_assemble_report`` as a dict: iterations of both phases, errors before and after,
        the farthest target's distance, the largest body move). Joints that cannot all be closed raise
        ``catena.InvalidArgumentError`` naming them, the world unchanged."""
        settings = {"keep_velocities": 1 if keep_velocities else 0}
        for key, value in (("tolerance", tolerance), ("gather_iterations", gather_iterations),
                           ("gather_tolerance", gather_tolerance), ("newton_iterations", newton_iterations)):
            if value is not None:
                settings[key] = value
        items = []
        for t in targets:
            if not isinstance(t, dict):
                t = dict(zip(("body", "point", "target", "weight"), t))
            items.append(t)
        return self._h.assemble(settings, items)

    # ---- stepping ---------------------------------------------------------------------------------------

    def step(self, n=1):
        """Advances the world by n time steps, releasing the GIL during each; Ctrl-C stops between steps.
        The first step after the world was created, loaded or :meth:`reset` records the state that
        :meth:`reset` returns to."""
        if self._reset_point is None and n > 0:
            self._reset_point = self._snapshot()
        self._h.step(n)

    @property
    def step_count(self):
        """Steps taken: by :meth:`step` since the world was created (0), or since the checkpoint's step for a
        world from :meth:`load`."""
        return self._h.clock()[0]

    @property
    def time(self):
        """Simulated time (s): the sum of the time steps of the steps taken (``step_count`` x ``time_step``
        while the time step is not changed; a world from :meth:`load` starts at its step x time step)."""
        return self._h.clock()[1]

    def _snapshot(self):
        """The complete state as checkpoint bytes, with the clock."""
        fd, path = tempfile.mkstemp(prefix="catena-reset-", suffix=".ckpt")
        os.close(fd)
        try:
            self._h.save(path, 0, None)
            with open(path, "rb") as f:
                data = f.read()
        finally:
            os.unlink(path)
        return data, self._h.clock()

    def reset(self):
        """Returns the world to the state it had before its first :meth:`step` (since it was created,
        loaded or last reset): every body and joint as it was built then (those added later are gone,
        removed ones are back), their states, shapes, settings, the solver's warm start, and
        ``step_count`` and ``time``. Handles stay valid. Changes made after that first step (a body added,
        a state set, ``configure``) are undone; to start again from a later state, save it with
        :meth:`save` and use :meth:`load`. A world that has not stepped is left as it is."""
        if self._reset_point is None:
            return
        data, clock = self._reset_point
        fd, path = tempfile.mkstemp(prefix="catena-reset-", suffix=".ckpt")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            handle, _ = _c.load_checkpoint(path, None)
        finally:
            os.unlink(path)
        old, self._h = self._h, handle
        old.close()
        self._h.set_clock(*clock)

    # ---- bodies, joints, shapes -------------------------------------------------------------------------

    def add_body(self, mass=None, inertia=None, position=None, orientation=None, velocity=None, angular_velocity=None,
                 type="dynamic", particle=False, name=None):
        """Adds a body and returns its handle. mass: kg (default 1). inertia: required for a rigid dynamic
        body, as in scene files: principal moments (Ixx, Iyy, Izz) in kg m^2 in the body frame, or a
        solid of the body's mass as scene files write it: ``{"box": (hx, hy, hz)}`` (half extents),
        ``{"sphere": r}`` or ``{"capsule": {"radius": r, "half_length": h, "axis": "x"}}``. Particles
        (``particle=True``, 3-DOF point masses) and static and kinematic bodies take none. Left out
        otherwise: at rest at the origin, orientation (w, x, y, z) = (1, 0, 0, 0); type "dynamic",
        "static" or "kinematic"; name: for :meth:`find_body`."""
        inertia = _inertia(mass, inertia, type, particle)
        body = self._h.add_body(dict(mass=mass, inertia=inertia, position=position, orientation=orientation,
                                     velocity=velocity, angular_velocity=angular_velocity,
                                     type=_code(BODY_TYPES, "body.type", type), particle=bool(particle)))
        if name is not None:
            try:
                self._h.set_name(body, name)
            except BaseException:
                self._h.remove_body(body)  # all or nothing
                raise
        return body

    def find_body(self, name):
        """The handle of the live body named ``name`` (scene files name their bodies);
        :class:`catena.NotFoundError` when none is."""
        return self._h.find_body(name)

    def find_joint(self, name):
        """The handle of the live joint named ``name`` (URDF joints keep their names);
        :class:`catena.NotFoundError` when none is."""
        return self._h.find_joint(name)

    def remove_body(self, body):
        """Removes a body (:class:`catena.InUseError` while joints reference it)."""
        self._h.remove_body(body)

    def add_joint(self, type, body_a, body_b=WORLD, *, pivot=None, axis=None, anchor_a=None, anchor_b=None,
                  rest_length=None, stiffness=None, damping=None, compliance=None, damping_time=None, limits=None,
                  motor=None, rope=False, implicit=False, axis2=None, swing_limit=None, ratio=None, relative=False):
        """Adds a joint and returns its handle. type: a name of JOINT_TYPES, the library's joint types less
        contacts (add_contact) and curves (add_curve): {types} (docs/scene-format.md gives each type's rows
        and keys; the keywords are the fields of ``ctn_joint_desc``).

        pivot: a world point where both anchors are placed in the bodies' current poses (else anchor_a /
        anchor_b in the body frames, the world frame for WORLD); axis: the hinge axis (world frame);
        rest_length (distance, spring; default the current distance); stiffness (N/m) and damping (N s/m)
        of a spring; compliance (m/N) and damping_time (s) of the SPOOK regularisation (default the
        world's); limits=(lower, upper) hinge angles (rad), slider positions (m) or cone-twist twist angles
        (rad); motor=(speed rad/s, max_torque N m) a hinge velocity motor, (speed m/s, max force N) a slider
        motor; swing_limit: the cone-twist cone angle (rad); rope=True: a distance joint that only pulls; implicit=True: a spring as a compliant
        row (SPOOK compliance 1/stiffness, damping time damping/stiffness), stable at any stiffness;
        axis2: a universal joint's cross axis on body_b (perpendicular to axis), a gear's body_b axis, a
        rack_pinion's rack axis; ratio: a gear keeps body_a's turn about axis + ratio x body_b's turn about
        axis2 constant, a rack_pinion moves its rack ratio metres along axis2 per radian its pinion turns;
        relative=True: a rack_pinion whose pinion and rack sit on one base that may move (the pinion's turn
        measured relative to the rack, the rack's travel at anchor_a, a point on the pinion's axis)."""
        return self._h.add_joint(dict(type=_code(JOINT_TYPES, "joint.type", type), body_a=body_a, body_b=body_b,
                                      pivot=pivot, axis=axis, anchor_a=anchor_a, anchor_b=anchor_b,
                                      rest_length=rest_length, stiffness=stiffness, damping=damping,
                                      compliance=compliance, damping_time=damping_time, limits=limits, motor=motor,
                                      rope=bool(rope), implicit=int(bool(implicit)), axis2=axis2,
                                      swing_limit=None if swing_limit is None else float(swing_limit),
                                      ratio=None if ratio is None else float(ratio), relative=int(bool(relative))))

    def add_curve(self, curve, body, frame=WORLD, *, anchor=None, origin=None, axis=None, reference=None, radius=None,
                  pitch=None, points=None, closed=False, compliance=None, damping_time=None, stabilization="velocity",
                  ks=None, kd=None):
        """Constrains a point of ``body`` to a curve fixed in ``frame`` (WORLD or a body) and returns the joint
        handle (a bead on a wire, Witkin and Baraff): 2 rows across the tangent at the closest point, the bead
        slides freely along it. curve: "line" (origin, axis), "circle" (origin = centre, axis = normal,
        radius, reference = direction of t = 0), "helix" (as circle, plus pitch: rise per turn along axis) or
        "polyline" (points: (x, y, z) vertices, closed=True joins the last to the first; the world keeps a
        copy). anchor: the bead point in the body's frame. stabilization: "velocity" (SPOOK with compliance
        and damping_time, the default) or "acceleration" (Witkin and Baraff's J a = -Jdot qdot - ks C - kd
        Cdot with gains ks 1/s^2 and kd 1/s). Geometry is in the frame of ``frame``."""
        return self._h.add_curve(dict(type=_code(CURVES, "curve.type", curve), body=body, frame=frame, anchor=anchor,
                                      origin=origin, axis=axis, reference=reference, radius=radius, pitch=pitch,
                                      points=points, closed=int(bool(closed)), compliance=compliance,
                                      damping_time=damping_time,
                                      stabilization=_code(CURVE_STABS, "curve.stabilization", stabilization), ks=ks,
                                      kd=kd))

    def curve_parameter(self, joint):
        """Where the bead of a curve constraint is: the arc length along a line, the angle (rad) on a circle
        or helix, segment index + fraction along a polyline."""
        return self._h.curve_parameter(joint)

    def remove_joint(self, joint):
        self._h.remove_joint(joint)

    def set_rest_length(self, joint, rest_length):
        """Changes the rest length (m) of a distance or spring joint, e.g. a winch reeling a cable in step
        by step; takes effect at the next step."""
        self._h.set_rest_length(joint, rest_length)

    def set_limits(self, joint, lower=None, upper=None):
        """Limits of an existing hinge (rad), slider (m) or cone-twist's twist (rad): lower <= q <= upper.
        ``set_limits(j)`` (no bounds) removes them. Takes effect at the next step."""
        if (lower is None) != (upper is None):
            raise InvalidArgumentError("set_limits: give both lower and upper, or neither to remove the limits")
        enabled = lower is not None
        self._h.set_limits(joint, enabled, float(lower) if enabled else 0.0, float(upper) if enabled else 0.0)

    def limits(self, joint):
        """The joint's limits as (lower, upper), or None when it has none."""
        enabled, lower, upper = self._h.limits(joint)
        return (lower, upper) if enabled else None

    def set_motor(self, joint, speed=None, max_force=None):
        """Velocity motor of an existing hinge (speed in rad/s, max_force a torque in N m) or slider (m/s,
        N): drives the joint towards ``speed`` with at most ``max_force``, as PyBullet's
        setJointMotorControl2 in VELOCITY_CONTROL. ``set_motor(j)`` (no speed) removes it. Call it between
        steps for a control loop; it takes effect at the next step."""
        if speed is None:
            self._h.set_motor(joint, False, 0.0, 0.0)
            return
        if max_force is None:
            raise InvalidArgumentError("set_motor: max_force (N m for a hinge, N for a slider) is required with speed")
        self._h.set_motor(joint, True, float(speed), float(max_force))

    def motor(self, joint):
        """The joint's motor as (speed, max_force), or None when it has none."""
        enabled, speed, max_force = self._h.motor(joint)
        return (speed, max_force) if enabled else None

    def body(self, body):
        """The body's description as a dict (``ctn_body_get_desc``): mass (kg), inertia (principal
        moments, kg m^2), type, shape and the state it was created with."""
        return self._h.body_desc(body)

    def mass(self, body):
        """The body's mass (kg)."""
        return self._h.body_desc(body)["mass"]

    def inertia(self, body):
        """The body's principal moments of inertia (kg m^2, body frame) as a tuple."""
        return tuple(self._h.body_desc(body)["inertia"])

    def save_scene(self, path):
        """Writes the world as a JSON scene file (atomically) that :meth:`from_scene` and ``catena run``
        read back: settings, bodies, joints and shapes, not the solver's impulses (for a bitwise
        continuation use :meth:`save`)."""
        self._h.save_scene(os.fspath(path))

    def __repr__(self):
        try:
            return (f"<catena.World {self.body_count} bodies, {self.joint_count} joints, backend {self.backend}, "
                    f"solver {self.settings.get('solver')}, step {self.step_count}, t = {self.time:.6g} s>")
        except (Error, RuntimeError):  # RuntimeError: closed
            return "<catena.World closed>"

    def joint_angle(self, joint):
        """The current angle of a hinge, or the twist angle of a cone-twist (rad)."""
        return self._h.joint_angle(joint)

    def joint_swing(self, joint):
        """The swing angle of a cone-twist (rad): the angle between its twist axis seen from each body
        (universal: the angle between the cross axes, pi/2 while the joint holds)."""
        return self._h.joint_swing(joint)

    def joint_translation(self, joint):
        """The position of a slider along its axis (m)."""
        return self._h.joint_translation(joint)

    def attach(self, body, master, point=None):
        """Welds a dynamic particle or body to ``master`` by eliminating its degrees of freedom (no constraint
        rows, Lloyd 2012): its joints act on the master, its mass joins the master's and its state follows
        the master's after every step. point: its centre of mass in the master's body frame (default: where
        it is now)."""
        self._h.attach(body, master, None if point is None else tuple(float(x) for x in point))

    def detach(self, body):
        """Lets an attached body go with the velocity of its point of the master."""
        self._h.detach(body)

    def attachment(self, body):
        """(master handle, (x, y, z) in the master's frame) of an attached body, None when not attached."""
        return self._h.attachment(body)

    def set_force(self, body, force=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
        """A force (N) and torque (N m), world frame, applied at the centre of mass until changed."""
        self._h.set_force(body, force, torque)

    def set_shape(self, body, type, radius=None, half_length=None, half_extents=None, friction=None,
                  restitution=None, group=None, offset=None, rotation=None):
        """A collision shape for the built-in contact detection: "sphere" (radius), "capsule" (radius,
        half_length along body x), "box" (half_extents) or "none". group (>= 0, default 0: none): bodies
        whose shapes share a nonzero group never collide with each other. offset (body frame, default
        the centre of mass) and rotation (quaternion w, x, y, z, default identity) place the shape on the
        body."""
        self._h.set_shape(body, dict(type=_code(SHAPES, "shape.type", type), radius=radius, half_length=half_length,
                                     half_extents=half_extents, friction=friction, restitution=restitution, group=group,
                                     offset=offset, rotation=rotation))

    def add_shape(self, body, type, radius=None, half_length=None, half_extents=None, friction=None,
                  restitution=None, group=None, offset=None, rotation=None):
        """One more collision shape on a body (a compound shape: each at its own offset and rotation,
        contacts of any act on the body; a body's own shapes never collide with each other). Arguments as
        :meth:`set_shape`; returns the shape's index on the body (0 for a body that had none)."""
        return self._h.add_shape(body, dict(type=_code(SHAPES, "shape.type", type), radius=radius, half_length=half_length,
                                            half_extents=half_extents, friction=friction, restitution=restitution,
                                            group=group, offset=offset, rotation=rotation))

    def shape_count(self, body):
        """Number of collision shapes on a body (0 when it has none)."""
        return self._h.shape_count(body)

    def add_plane(self, normal, offset=0.0, friction=0.5, restitution=0.0):
        """A static plane: the half-space normal . x <= offset is solid. Returns its index."""
        return self._h.add_plane(normal, offset, friction, restitution)

    def add_contact(self, body_a, body_b=WORLD, point=None, normal=None, depth=None, friction=None,
                    restitution=None):
        """A contact from the caller's own collision detection: world point (midway between the
        surfaces), normal from body_b to body_a, depth (m, < 0: separated), friction mu, restitution.
        It stays until removed (:meth:`remove_joint`), its depth re-evaluated every substep; returns its
        handle."""
        return self._h.add_contact(dict(body_a=body_a, body_b=body_b, point=point, normal=normal, depth=depth,
                                        friction=friction, restitution=restitution))

    def update_contact(self, contact, body_a, body_b=WORLD, point=None, normal=None, depth=None, friction=None,
                       restitution=None):
        """Moves a contact (same bodies) to a new point, normal, depth or material, keeping its impulses
        for the warm start."""
        self._h.update_contact(contact, dict(body_a=body_a, body_b=body_b, point=point, normal=normal, depth=depth,
                                             friction=friction, restitution=restitution))

    @property
    def contacts(self):
        """The live contacts of the last step (built-in and user) as dicts: joint, body_a, body_b, point,
        normal, separation, impulse (normal, friction 1, friction 2; N s), friction, user."""
        return self._h.contacts()

    def collision(self, **settings):
        """The built-in collision detection's settings (enabled, skip_jointed, margin), changed by the
        ones given; returns those in effect."""
        return self._h.collision(settings or None)

    # ---- scenes -----------------------------------------------------------------------------------------

    def load_scene(self, path_or_spec):
        """Adds a JSON scene file's bodies and joints (the world's settings are kept; see
        :meth:`from_scene`), or a generator spec such as "chain:1000", "grid:64x64", "pile:500". An
        argument naming an existing file, ending in ".json" or holding a "/" is a file."""
        text = os.fspath(path_or_spec)
        is_file = os.path.isfile(text) or text.endswith(".json") or os.sep in text
        self._h.load_scene("file" if is_file else "spec", text)

    def load_urdf(self, path, self_collision=False):
        """Adds the robot of a URDF file (``ctn_scene_load_urdf_ex``: links with mass become bodies named after
        them, revolute/continuous/prismatic/fixed joints Catena joints, collision spheres/boxes/cylinders shapes; see
        docs/urdf.md). The robot's links never collide with each other (its shapes share a fresh collision
        group, as in PyBullet) unless self_collision is true: then every pair may, except pairs joined by a
        joint. What could only be approximated or was ignored (meshes, mimic joints, damping, ...)
        is logged as a warning on the 'catena' logger and returned as text ("" for an exact import); what
        cannot be represented (planar joints) raises, leaving the world unchanged."""
        report = self._h.load_scene("urdf", os.fspath(path), bool(self_collision))
        if report:
            logging.getLogger("catena").warning("%s: %s", os.fspath(path), report)
        return report

    def add_chain(self, links, link_length=None, link_mass=None, end_mass_ratio=None, origin=None, direction=None,
                  particles=False):
        """A chain of rigid links on ball joints (a particle rope with particles=True), pinned to the world
        at origin and laid out along direction (``ctn_chain_desc_default``: 0.1 m, 0.1 kg links from the
        origin along +x; end_mass_ratio: the last link's mass over link_mass). Returns the first link's handle; the others follow it (first + 1, ...)."""
        return self._h.add_chain(dict(links=links, link_length=link_length, link_mass=link_mass,
                                      end_mass_ratio=end_mass_ratio, origin=origin, direction=direction,
                                      particles=bool(particles)))

    def add_grid(self, nx, ny, spacing=0.1):
        """An nx x ny net of rigid bodies on ball joints to their 4 neighbours, top row pinned."""
        self._h.generate("grid", nx, ny, spacing)

    def add_bridge(self, planks):
        """Hinged planks, both ends hinged to the world."""
        self._h.generate("bridge", planks)

    def add_cradle(self, balls):
        """Newton's cradle on distance joints, the first ball raised (no contacts)."""
        self._h.generate("cradle", balls)

    def add_double_pendulum(self):
        """Two hinged rods released from horizontal."""
        self._h.generate("double_pendulum")

    def add_capsule_chain(self, links):
        """Capsule links on ball joints dropped onto a floor (contacts)."""
        self._h.generate("capsule_chain", links)

    def add_pile(self, spheres):
        """Spheres dropped into a box (contacts)."""
        self._h.generate("pile", spheres)

    def add_bridge_limits(self, planks):
        """A bridge with hinge limits and a load of boxes."""
        self._h.generate("bridge_limits", planks)

    def add_wheel(self):
        """A motorised wheel on a fixed axle with balls dropped on it."""
        self._h.generate("wheel")

    def add_contact_cradle(self, balls):
        """Newton's cradle with contacts and restitution 1."""
        self._h.generate("contact_cradle", balls)

    # ---- bulk state as NumPy arrays ---------------------------------------------------------------------

    def _slots(self):
        info = self._h.info()
        return info["body_slots"], info["joint_slots"]

    def _read(self, field, width):
        out = np.empty((self._slots()[0], width), dtype=np.float64)
        self._h.read_bodies(field, out)
        return _StateArray(out, self, field, width)

    def _write(self, field, width, values, name):
        rows = self._slots()[0]
        array = np.ascontiguousarray(values, dtype=np.float64)
        if array.shape != (rows, width):
            raise InvalidArgumentError(f"{name}: expected shape ({rows}, {width}), got {array.shape}")
        self._h.write_bodies(field, array)

    positions = property(lambda self: self._read(_c.BODY_POSITION, 3),
                         lambda self, v: self._write(_c.BODY_POSITION, 3, v, "positions"),
                         doc="(bodies, 3) positions (m). Assigning the property writes every row; assigning "
                             "elements of the array it returns (``w.positions[0] = (1, 2, 3)``) writes the rows "
                             "changed, the others keep the world's current values.")
    orientations = property(lambda self: self._read(_c.BODY_ORIENTATION, 4),
                            lambda self, v: self._write(_c.BODY_ORIENTATION, 4, v, "orientations"),
                            doc="(bodies, 4) quaternions (w, x, y, z), body to world; normalised on write.")
    velocities = property(lambda self: self._read(_c.BODY_VELOCITY, 3),
                          lambda self, v: self._write(_c.BODY_VELOCITY, 3, v, "velocities"),
                          doc="(bodies, 3) linear velocities (m/s), read and write.")
    angular_velocities = property(lambda self: self._read(_c.BODY_ANGULAR_VELOCITY, 3),
                                  lambda self, v: self._write(_c.BODY_ANGULAR_VELOCITY, 3, v, "angular_velocities"),
                                  doc="(bodies, 3) angular velocities (rad/s, world frame), read and write.")

    def _joint_errors(self, which):
        out = np.empty(self._slots()[1], dtype=np.float64)
        self._h.read_joint_errors(out if which == 0 else None, out if which == 1 else None)
        return out

    joint_gaps = property(lambda self: self._joint_errors(0),
                          doc="(joints,) position error of each joint (m) in the current state, 0 in contact slots "
                              "(see contact_depths); its maximum is stats['max_joint_gap'] after a step.")
    joint_angles = property(lambda self: self._joint_errors(1),
                            doc="(joints,) angular error of each joint (rad) in the current state; 0 in contact slots.")

    def _contact_depths(self):
        out = np.empty(self._slots()[1], dtype=np.float64)
        self._h.read_contact_depths(out)
        return out

    contact_depths = property(_contact_depths,
                              doc="(joints,) penetration (m) of the contact in each joint slot in the current state, "
                                  "0 in the slots of other joints; its maximum is stats['max_penetration'] after a step.")

    def _joint_loads(self):
        out = np.empty((self._slots()[1], 6), dtype=np.float64)
        self._h.read_joint_forces(out)
        return out

    joint_forces = property(lambda self: self._joint_loads()[:, :3],
                            doc="(joints, 3) force (N, world frame) each joint applied to its body a in the last "
                                "substep (impulse / substep length); body b receives the opposite.")
    joint_torques = property(lambda self: self._joint_loads()[:, 3:],
                             doc="(joints, 3) torque (N m, about body a's centre of mass, world frame) each joint "
                                 "applied to its body a in the last substep.")

    def joint_loads(self):
        """(joints, 6): force (N) and torque (N m) of every joint in one call (see joint_forces)."""
        return self._joint_loads()


# the joint types in add_joint's documentation are the library's (JOINT_TYPES), not a list kept here
if World.add_joint.__doc__:  # None under python -OO
    World.add_joint.__doc__ = World.add_joint.__doc__.replace("{types}", ", ".join(f'"{n}"' for n in JOINT_TYPES))
