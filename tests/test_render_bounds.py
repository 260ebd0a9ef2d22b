"""Rendering is bounded whatever the numbers: any finite parameters and
states (huge, tiny, negative, subnormal, link lengths summing to almost
zero) and NaN/inf states give a frame of the right shape, drawn the same way
each time, in bounded time. Each case runs in a subprocess with a timeout, so
a hang or a crash fails the test instead of killing pytest. Scenes that are
partly off the canvas agree with what pygame draws for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import importlib.util  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from gymnasium.envs import classic_control as gcc  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import ccgym  # noqa: E402
from ccgym import _core, rendering  # noqa: E402
from reference import NEWEST_GYM_IDS  # noqa: E402

# A hang shows as a timeout: a frame takes milliseconds (seconds under ASan).
TIMEOUT = 60.0

HUGE = [1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, 1e18, -1e18,
        2.0**31, -(2.0**31), 7e4, -7e4, 3.3e4, -3.3e4]
TINY = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, -1e-300, 1e-9]
HOSTILE = HUGE + TINY + [1.0, -1.0, 2.5, -2.5]
NONFINITE = [float("nan"), float("inf"), float("-inf")]

# Parameter fields that Gymnasium fixes (no constructor argument): written
# into the params structs directly, found there by their default value.
RAW_DEFAULTS = {
    "CartPole-v1": {"x_threshold": 2.4},
    "MountainCar-v0": {"min_position": -1.2, "max_position": 0.6, "goal_position": 0.5},
    "MountainCarContinuous-v0": {"min_position": -1.2, "max_position": 0.6,
                                 "goal_position": 0.45},
    "Pendulum-v1": {},
    "Acrobot-v1": {},
}


def _state_fields(env_id: str) -> list[str]:
    """The float fields of an env's state, from its def; an array field's
    elements as its name and index (Acrobot's "s" as s0 .. s3)."""
    info = _core.env_info(rendering.kind_of(env_id))
    dtype = np.dtype(info.state_dtype)
    return [f"{name}{j}" if dtype[name].shape else name
            for name in info.state_float_fields for j in range(int(np.prod(dtype[name].shape)))]


# The newest id of each of Gymnasium's classic-control classes, from its registry.
ENVS = list(NEWEST_GYM_IDS)
STATE_FIELDS = {env_id: _state_fields(env_id) for env_id in ENVS}

# Runs in the subprocess: reads [env_id, cases] (JSON, NaN/Infinity allowed)
# from stdin; each case is {"state": {...}, "physics": {...}, "raw": {...}},
# one instance each. Draws all of them through venv.render(), render_batch on
# the raw buffers (full frames, twice: the same pixels) and render_pixels.
WORKER = r'''
import json, sys, warnings
warnings.simplefilter("ignore")
import numpy as np
import ccgym
from ccgym import _core, rendering

env_id, cases, raw_defaults = json.load(sys.stdin)
kind = rendering.kind_of(env_id)
n = len(cases)
base = ccgym.make_vec(env_id, num_envs=1).get_physics()
names = sorted({k for c in cases for k in c.get("physics", {})}) or [sorted(base)[0]]
# arrays give every instance its own params struct, so raw fields can differ
physics = {k: np.array([c.get("physics", {}).get(k, base[k]) for c in cases]) for k in names}
venv = ccgym.make_vec(env_id, num_envs=n, render_mode="rgb_array", **physics)
venv.reset(seed=0)
snap = venv.get_state()
states = snap["state_buffer"].view(_core.state_dtype(kind))
for i, c in enumerate(cases):
    for k, v in c.get("state", {}).items():
        if k in states.dtype.names:
            states[i][k] = v
        else:  # an array field's element, as _state_fields names it (Acrobot's s0 .. s3)
            name = k.rstrip("0123456789")
            states[i][name][int(k[len(name):])] = v
params = venv._core.params_buffer.copy()
fields = params.view(np.float64).reshape(n, -1)
for name, default in raw_defaults.items():
    where = np.flatnonzero(fields[0] == default)
    assert len(where) == 1, (name, where)
    fields[:, where[0]] = [c.get("raw", {}).get(name, default) for c in cases]
state_bytes = snap["state_buffer"]
h, w = rendering.canvas_size(env_id)
frames = rendering.render_batch(kind, state_bytes, params_buffer=params)
assert frames.shape == (n, h, w, 3) and frames.dtype == np.uint8, frames.shape
again = rendering.render_batch(kind, state_bytes, params_buffer=params, num_threads=2)
assert np.array_equal(frames, again), "not deterministic"
for gray in (False, True):
    px = rendering.render_pixels(kind, state_bytes, shape=(37, 53), grayscale=gray,
                                 params_buffer=params)
    assert px.shape == (n, 37, 53, 1 if gray else 3), px.shape
try:
    venv.set_state(snap)  # through the env's own front end, where it accepts the state
except (ValueError, TypeError, OverflowError):
    pass
else:
    f = venv.render()
    assert f.shape == (n, h, w, 3), f.shape
print("ok", n)
'''


def render_in_subprocess(env_id: str, cases: list[dict]) -> None:
    """Renders cases in a fresh interpreter; fails on a timeout, a crash
    (sanitizer reports included) or a wrong frame."""
    payload = json.dumps([env_id, cases, RAW_DEFAULTS[env_id]])
    try:
        proc = subprocess.run([sys.executable, "-c", textwrap.dedent(WORKER)], input=payload,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"rendering {env_id} did not finish in {TIMEOUT:.0f} s: {payload[:2000]}")
    assert proc.returncode == 0 and proc.stdout.startswith("ok"), (
        f"render subprocess exited with {proc.returncode} (negative: a signal)\n"
        f"cases: {payload[:2000]}\nstdout:\n{proc.stdout[-2000:]}\n"
        f"stderr:\n{proc.stderr[-5000:]}")


def _state(env_id: str, **values) -> dict:
    """A case with every state field at 0.5 except those given."""
    return {"state": {k: values.get(k, 0.5) for k in STATE_FIELDS[env_id]}}


# ------------------------------------------------------------ fixed cases

def _state_cases(env_id: str) -> list[dict]:
    fields = STATE_FIELDS[env_id]
    cases = [_state(env_id, **{f: v}) for f in fields for v in HOSTILE]
    cases += [_state(env_id, **{f: v for f in fields}) for v in HOSTILE]
    return cases


def _nonfinite_cases(env_id: str) -> list[dict]:
    fields = STATE_FIELDS[env_id]
    cases = [_state(env_id, **{f: v}) for f in fields for v in NONFINITE]
    cases += [_state(env_id, **{f: v for f in fields}) for v in NONFINITE]
    cases += [_state(env_id, **{f: NONFINITE[i % 3] if i % 2 else 1e300
                                for i, f in enumerate(fields)})]
    return cases


PHYSICS_CASES = {
    "CartPole-v1": [{"physics": {"length": v}} for v in HOSTILE],
    "MountainCar-v0": [{"physics": {"force": v, "gravity": v}} for v in HOSTILE],
    "MountainCarContinuous-v0": [{"physics": {"power": v}} for v in HOSTILE],
    "Pendulum-v1": [{"physics": {"l": v, "g": v, "max_speed": v}} for v in HOSTILE],
    "Acrobot-v1": (
        [{"physics": {"link_length_1": a, "link_length_2": b}} for a, b in [
            (-0.1, -0.0999999), (-0.1, -0.0999999875), (-0.1, -0.09999999999),
            (-0.1, -0.1 + 1e-17), (-0.2, 0.0), (-0.1, -0.1), (1.0, -1.2), (2.0, -1.9),
            (1e300, 1e300), (-1e300, 1e300), (1e-300, 1e-300), (-1e300, -1e300),
            (1.7976931348623157e308, 1.7976931348623157e308), (5e-324, -5e-324)]]
        + [{"physics": {"link_length_1": v, "link_length_2": 1.0}} for v in HOSTILE]),
}

RAW_CASES = {
    "CartPole-v1": (
        [{"raw": {"x_threshold": v}} for v in HOSTILE]
        + [{"raw": {"x_threshold": t}, "physics": {"length": ln}, **_state("CartPole-v1", x=x)}
           for t, ln, x in [(1e-300, 1.0, 1.0), (5e-324, 1e300, -1e300), (1e300, 1e300, 1e300),
                            (-1e-9, 1e9, 3.0), (0.0, 0.0, 0.0)]]),
    **{env: [{"raw": {"min_position": lo, "max_position": hi, "goal_position": g}}
              for lo, hi, g in [
                  (0.0, 0.0, 0.0), (0.3, 0.3, 0.3), (0.3, 0.3 + 1e-15, 0.3),
                  (-1.7976931348623157e308, 1.7976931348623157e308, 0.0),
                  (-1e300, 1e300, 1e300), (1.0, -1.0, 0.5), (-1.2, 0.6, 1e300),
                  (-1.2, 0.6, -1e300), (-1.2, 0.6, 5e4), (-1e-300, 1e-300, 0.0),
                  (-1.2, -1.2 + 1e-9, -1.2), (1e18, 2e18, 1.5e18)]]
        + [{"raw": {"min_position": -1.2, "max_position": -1.2 + 1e-12}, **_state(env, position=p)}
           for p in HOSTILE]
        for env in ("MountainCar-v0", "MountainCarContinuous-v0")},
    "Pendulum-v1": [],
    "Acrobot-v1": [],
}

FIXED = [(env, "states", _state_cases(env)) for env in ENVS]
FIXED += [(env, "nonfinite_states", _nonfinite_cases(env)) for env in ENVS]
FIXED += [(env, "physics", PHYSICS_CASES[env]) for env in ENVS]
FIXED += [(env, "raw_params", RAW_CASES[env]) for env in ENVS if RAW_CASES[env]]


@pytest.mark.parametrize(("env_id", "what", "cases"), FIXED,
                         ids=[f"{e}-{w}" for e, w, _ in FIXED])
def test_hostile_inputs_render_in_bounded_time(env_id, what, cases):
    render_in_subprocess(env_id, cases)


@pytest.mark.parametrize("lengths", [(-0.1, -0.0999999), (-0.1, -0.0999999875)])
def test_acrobot_link_lengths_summing_to_about_zero(lengths):
    """The reported hang: a scale of ~1e9 made the joint circles 1e8-1e9
    pixels wide (and their int radius overflow just above)."""
    l1, l2 = lengths
    render_in_subprocess("Acrobot-v1", [
        {"physics": {"link_length_1": l1, "link_length_2": l2},
         **_state("Acrobot-v1", s0=a, s1=b)} for a, b in [(0, 0), (1, 2), (3.1, -1), (2e-9, 0)]])


# ------------------------------------------------------------ property

finite = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-10, 10),
    st.sampled_from(HOSTILE),
)


almost_zero = st.floats(-1e-6, 1e-6)


@st.composite
def cases(draw):
    env_id = draw(st.sampled_from(ENVS))
    out = []
    for _ in range(draw(st.integers(1, 24))):
        case = {"state": {f: draw(finite) for f in STATE_FIELDS[env_id]}}
        names = {"CartPole-v1": ["length"], "MountainCar-v0": ["force"],
                 "MountainCarContinuous-v0": ["power"], "Pendulum-v1": ["l"],
                 "Acrobot-v1": ["link_length_1", "link_length_2"]}[env_id]
        case["physics"] = {k: draw(finite) for k in names if draw(st.booleans())}
        case["raw"] = {k: draw(finite) for k in RAW_DEFAULTS[env_id] if draw(st.booleans())}
        if draw(st.booleans()):  # a scale that almost divides by zero
            eps = draw(almost_zero)
            if env_id == "Acrobot-v1":
                l1 = case["physics"].setdefault("link_length_1", draw(finite))
                case["physics"]["link_length_2"] = -0.2 - l1 + eps
            elif env_id == "CartPole-v1":
                case["raw"]["x_threshold"] = eps
            elif env_id.startswith("MountainCar"):
                lo = case["raw"].setdefault("min_position", draw(finite))
                case["raw"]["max_position"] = lo + eps
        out.append(case)
    return env_id, out


@settings(max_examples=int(os.environ.get("CCGYM_RENDER_EXAMPLES", 12)), deadline=None,
          database=None, phases=[Phase.explicit, Phase.generate],  # no shrinking: a hang
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases())
def test_random_finite_inputs_render_in_bounded_time(batch):
    """Random finite states and parameters, batched per subprocess (no
    shrinking: each try of a hang would cost the timeout)."""
    env_id, batch_cases = batch
    render_in_subprocess(env_id, batch_cases)


# ------------------------------------------------------------ against pygame

HAVE_PYGAME = importlib.util.find_spec("pygame") is not None


def _pygame_pair(env_id: str, state: np.ndarray, physics: dict):
    """ccgym's and Gymnasium's frame of one state with changed physics."""
    venv = ccgym.make_vec(env_id, num_envs=1, render_mode="rgb_array", **physics)
    venv.reset(seed=0)
    kind = rendering.kind_of(env_id)
    snap = venv.get_state()
    view = snap["state_buffer"].view(_core.state_dtype(kind))
    if kind == "Acrobot":
        view[0]["s"] = state
    elif kind == "CartPole":
        for i, name in enumerate(("x", "x_dot", "theta", "theta_dot")):
            view[0][name] = state[i]
    else:
        view[0]["position"], view[0]["velocity"] = state
    venv.set_state(snap)
    ours = venv.render()[0]
    ref = {"CartPole": gcc.CartPoleEnv, "MountainCar": gcc.MountainCarEnv,
           "Acrobot": gcc.AcrobotEnv}[kind](render_mode="rgb_array")
    ref.reset(seed=0)
    if kind == "Acrobot":
        ref.LINK_LENGTH_1 = physics.get("link_length_1", 1.0)
        ref.LINK_LENGTH_2 = physics.get("link_length_2", 1.0)
    elif kind == "CartPole":
        ref.length = physics.get("length", 0.5)
    ref.state = state.copy()
    theirs = ref.render()
    ref.close()
    venv.close()
    return ours, theirs


# Scenes that leave the canvas, within what pygame draws (its gfxdraw takes
# 16-bit coordinates and radii): the parts that are drawn agree as for the
# normal scenes of test_render.
OFF_CANVAS = [
    ("CartPole-v1", [3.0, 0, 0.3, 0], {}),
    ("CartPole-v1", [-2.9, 0, -2.0, 0], {}),
    ("CartPole-v1", [2.7, 0, 1.2, 0], {}),
    ("CartPole-v1", [0.3, 0, 0.2, 0], {"length": 6.0}),
    ("CartPole-v1", [-1.0, 0, 2.8, 0], {"length": 30.0}),
    ("CartPole-v1", [0.0, 0, 1.5707963, 0], {"length": 100.0}),
    ("CartPole-v1", [0.5, 0, 0.7, 0], {"length": 120.0}),  # 30000 px: clipped
    ("MountainCar-v0", [0.68, 0], {}),
    ("MountainCar-v0", [-1.3, 0], {}),
    ("MountainCar-v0", [1.1, 0], {}),
    ("Acrobot-v1", [0.4, 0.7, 0, 0], {"link_length_1": 2.0, "link_length_2": -1.9}),
    ("Acrobot-v1", [2.5, -1.0, 0, 0], {"link_length_1": 1.0, "link_length_2": -1.1}),
    ("Acrobot-v1", [-0.3, 2.0, 0, 0], {"link_length_1": -0.5, "link_length_2": 0.4}),
    ("Acrobot-v1", [1.0, 1.0, 0, 0], {"link_length_1": 5.0, "link_length_2": -5.1}),
    # joints of radius 5000, the second one's rim across the canvas; links
    # of 15000 px, clipped
    ("Acrobot-v1", [0.4, 0.7, 0, 0], {"link_length_1": 0.1, "link_length_2": -0.295}),
    ("Acrobot-v1", [-2.0, 2.5, 0, 0], {"link_length_1": 0.1, "link_length_2": -0.295}),
    ("Acrobot-v1", [3.0, -0.2, 0, 0], {"link_length_1": 0.1001, "link_length_2": -0.295}),
]


@pytest.mark.skipif(not HAVE_PYGAME, reason="pygame is not installed")
@pytest.mark.parametrize(("env_id", "state", "physics"), OFF_CANVAS,
                         ids=[f"{e}-{i}" for i, (e, _, _) in enumerate(OFF_CANVAS)])
def test_partly_off_canvas_scenes_agree_with_pygame(env_id, state, physics):
    ours, theirs = _pygame_pair(env_id, np.array(state, dtype=np.float64), physics)
    assert ours.shape == theirs.shape
    m = rendering.frame_agreement(ours, theirs)
    assert m["iou"] >= 0.95, m
    assert m["close"] >= 0.97, m
