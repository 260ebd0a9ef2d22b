#!/usr/bin/env python
"""The dtype of every intermediate of Gymnasium's Pendulum-v1 and
MountainCarContinuous-v0 ``step``, under the running numpy's promotion rules.

Gymnasium's continuous envs compute with numpy scalars mixed with Python
floats and ints, so which intermediates are float32 and which float64 depends
on numpy's scalar promotion: NEP 50 ("weak" Python scalars, numpy >= 2, and
numpy 1.24-1.26 after ``np._set_promotion_state("weak")``) or the legacy
value-based rules (numpy 1.x default). This script re-evaluates each step's
expressions one operation at a time (same operations, same order as
Gymnasium 1.0-1.4's step, whose physics did not change in that range),
records each intermediate's type, and checks that the traced result equals
the real Gymnasium env's step bit for bit -- so the table describes what
Gymnasium actually computes, not a guess.

Usage::

    python tools/promotion_trace.py              # current promotion state
    python tools/promotion_trace.py --all-states # numpy 1.24-1.26: legacy and weak

Cases: the action as a float32 / float64 / float16 / int64 array and as a
Python list; the state as right after reset (float64 array) and after a step
(Pendulum: float64; MountainCarContinuous: float32); MountainCarContinuous's
action inside and outside [-1, 1] (min/max then return the Python float bound).
Exit status 1 if a trace disagrees with Gymnasium.
"""

from __future__ import annotations

import argparse
import math
import sys

import gymnasium as gym
import numpy as np


def tname(x) -> str:
    if isinstance(x, np.ndarray):
        return f"ndarray[{x.dtype}]"
    if isinstance(x, np.generic):
        return f"np.{x.dtype}"
    return f"py.{type(x).__name__}"


def pendulum_trace(state, action, g=10.0, m=1.0, l=1.0, dt=0.05, max_speed=8, max_torque=2.0):
    t = {}
    th, thdot = state
    t["th, thdot = self.state"] = th
    u_arr = np.clip(action, -max_torque, max_torque)
    t["np.clip(u, -max_torque, max_torque)"] = u_arr
    u = u_arr[0]
    t["u = clip(...)[0]  (= last_u)"] = u
    a = th + np.pi
    t["th + np.pi"] = a
    a = a % (2 * np.pi)
    t["(...) % (2*np.pi)"] = a
    a = a - np.pi
    t["angle_normalize(th)"] = a
    a2 = a ** 2
    t["angle_normalize(th)**2"] = a2
    v2 = thdot ** 2
    t["thdot**2"] = v2
    v2 = 0.1 * v2
    t["0.1 * thdot**2"] = v2
    u2 = u ** 2
    t["u**2"] = u2
    u2 = 0.001 * u2
    t["0.001 * u**2"] = u2
    costs = a2 + v2
    t["a2 + 0.1*thdot**2"] = costs
    costs = costs + u2
    t["costs (+ 0.001*u**2)"] = costs
    c1 = 3 * g / (2 * l)
    s = np.sin(th)
    t["np.sin(th)"] = s
    p1 = c1 * s
    t["3*g/(2*l) * sin(th)"] = p1
    c2 = 3.0 / (m * l ** 2)
    p2 = c2 * u
    t["3.0/(m*l**2) * u"] = p2
    inner = p1 + p2
    t["(... + ...)"] = inner
    inner = inner * dt
    t["(...) * dt"] = inner
    newthdot = thdot + inner
    t["newthdot = thdot + ..."] = newthdot
    newthdot = np.clip(newthdot, -max_speed, max_speed)
    t["np.clip(newthdot, -8, 8)"] = newthdot
    d = newthdot * dt
    t["newthdot * dt"] = d
    newth = th + d
    t["newth = th + newthdot*dt"] = newth
    new_state = np.array([newth, newthdot])
    t["self.state = np.array([newth, newthdot])"] = new_state
    obs = np.array([np.cos(newth), np.sin(newth), newthdot], dtype=np.float32)
    reward = -costs
    t["reward = -costs"] = reward
    return t, obs, reward, new_state, u


def mcc_trace(state, action, min_action=-1.0, max_action=1.0, max_speed=0.07,
              min_position=-1.2, max_position=0.6, power=0.0015, goal_position=0.45,
              goal_velocity=0):
    t = {}
    position = state[0]
    velocity = state[1]
    t["position = self.state[0]"] = position
    t["velocity = self.state[1]"] = velocity
    a0 = action[0]
    t["action[0]"] = a0
    force = min(max(a0, min_action), max_action)
    t["force = min(max(action[0], -1.0), 1.0)"] = force
    fp = force * power
    t["force * self.power"] = fp
    p3 = 3 * position
    t["3 * position"] = p3
    c = math.cos(p3)
    t["math.cos(3*position)"] = c
    c = 0.0025 * c
    t["0.0025 * math.cos(...)"] = c
    dv = fp - c
    t["force*power - 0.0025*cos(...)"] = dv
    velocity = velocity + dv  # "velocity += ..." on a numpy scalar is the same
    t["velocity += ..."] = velocity
    if velocity > max_speed:
        velocity = max_speed
    if velocity < -max_speed:
        velocity = -max_speed
    t["velocity after clamp to +-0.07"] = velocity
    position = position + velocity
    t["position += velocity"] = position
    if position > max_position:
        position = max_position
    if position < min_position:
        position = min_position
    if position == min_position and velocity < 0:
        velocity = 0
    t["position after clamp"] = position
    terminated = bool(position >= goal_position and velocity >= goal_velocity)
    reward = 100.0 if terminated else 0
    p = math.pow(a0, 2)
    t["math.pow(action[0], 2)"] = p
    reward -= p * 0.1
    t["reward"] = reward
    new_state = np.array([position, velocity], dtype=np.float32)
    return t, new_state, reward, new_state, None


ACTIONS = {
    "float32 array": lambda v: np.array([v], dtype=np.float32),
    "float64 array": lambda v: np.array([v], dtype=np.float64),
    "float16 array": lambda v: np.array([v], dtype=np.float16),
    "int64 array": lambda v: np.array([round(v)], dtype=np.int64),
    "python list": lambda v: [v],
}


def bits_equal(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


ABBREV = {"np.float64": "f64", "np.float32": "f32", "np.float16": "f16", "np.int64": "i64",
          "py.float": "pyF", "py.int": "pyI", "ndarray[float64]": "A64",
          "ndarray[float32]": "A32", "ndarray[float16]": "A16", "ndarray[int64]": "Ai64"}
SHORT = {"float32 array": "f32", "float64 array": "f64", "float16 array": "f16",
         "int64 array": "i64", "python list": "list"}


def run(state_name: str, verbose: bool) -> int:
    """Trace every case, check it against Gymnasium, print one table per env."""
    bad = 0
    rng = np.random.default_rng(0)
    for env_id, trace in (("Pendulum-v1", pendulum_trace),
                          ("MountainCarContinuous-v0", mcc_trace)):
        env = gym.make(env_id).unwrapped
        columns: list[tuple[str, dict]] = []
        for state_kind in ("reset", "step"):
            for action_name, make in ACTIONS.items():
                # Pendulum: 1.7 is inside [-2, 2]; 2.7 is clipped. MCC: 0.3 inside [-1, 1], 1.7 clipped.
                for v, clipped in ((0.3, False), (2.7 if env_id == "Pendulum-v1" else 1.7, True)):
                    env.reset(seed=int(rng.integers(1 << 30)))
                    if state_kind == "step":
                        env.step(np.array([0.1], dtype=np.float32))
                    state = env.state.copy()
                    action = make(v)
                    steps, obs, reward, new_state, last_u = trace(state, action)
                    gobs, greward, *_ = env.step(action)
                    ok = (bits_equal(obs, gobs) and bits_equal(new_state, env.state)
                          and type(reward) is type(greward)
                          and np.float64(reward).tobytes() == np.float64(greward).tobytes())
                    if last_u is not None:
                        ok = ok and type(last_u) is type(env.last_u) and bits_equal(last_u, env.last_u)
                    if not ok:
                        bad += 1
                        print(f"MISMATCH with Gymnasium: {env_id} state after {state_kind}, "
                              f"action {action_name} {v}")
                    label = f"{SHORT[action_name]}{'!' if clipped else ''}/{state_kind[0]}"
                    columns.append((label, steps))
        env.close()
        print(f"\n### {env_id} -- numpy {np.__version__}, promotion: {state_name}")
        print("columns: action dtype (f32/f64/f16/i64 arrays, list = Python list), "
              "'!' = outside the action bounds (clipped), /r = state right after reset, "
              "/s = after a step;\ncells: f64/f32/f16/i64 numpy scalar, pyF/pyI Python float/int, "
              "A64/A32 ndarray")
        names = list(columns[0][1])
        width = max(len(n) for n in names)
        print(" " * width + " " + " ".join(f"{lab:>7s}" for lab, _ in columns))
        for n in names:
            cells = [ABBREV.get(tname(c[1][n]), tname(c[1][n])) for c in columns]
            print(f"{n:{width}s} " + " ".join(f"{x:>7s}" for x in cells))
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all-states", action="store_true",
                    help="numpy 1.24-1.26: trace under 'legacy' and 'weak' (NEP 50)")
    args = ap.parse_args()
    print(f"numpy {np.__version__}, gymnasium {gym.__version__}")
    get = getattr(np, "_get_promotion_state", None)
    if get is None:
        return 1 if run("NEP 50 (numpy >= 2, no switch)", False) else 0
    states = ("legacy", "weak") if args.all_states else (get(),)
    old = get()
    bad = 0
    try:
        for s in states:
            np._set_promotion_state(s)
            bad += run(s, False)
    finally:
        np._set_promotion_state(old)
    print(f"\n{bad} traces disagree with Gymnasium")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
