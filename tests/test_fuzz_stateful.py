"""Stateful fuzzing of ccgym's public API against Gymnasium.

Hypothesis state machines keep one ccgym env (single via ``gym.make``, vector
via ``ccgym.make_vec``, SB3 via ``ccgym.sb3.make_vec_env``) next to the
matching Gymnasium reference (``gym.make`` of the stock id, ``SyncVectorEnv``,
SB3's ``DummyVecEnv``) and apply random call sequences: steps with actions of
every numeric dtype in both byte orders, unaligned (on an offset byte
buffer), strided, reversed, read-only, Fortran-ordered, of wrong shapes and
hostile values; seeded and masked resets with options; snapshots restored
with mutated fields (INT64_MAX counters, NaN/inf/huge floats); hostile
``set_physics`` values; rendering (time bounded); pickle and deepcopy round
trips; resizing, reshaping, freezing and holding views of every array ccgym
hands out; and exceptions raised inside calls by a signal handler
(``signal.setitimer``). The invariants:

- a call either succeeds with Gymnasium's result (bit for bit, where
  Gymnasium accepts the same input; continuous actions are compared as
  float32, README's "one documented difference") or raises a clean Python
  exception and leaves the env exactly as it was (snapshots equal);
- the env is never left "busy" (no call says another thread holds it);
- snapshots keep the shapes and dtypes the env was made with;
- rendering finishes (a hang ends the run at once with the trace below).

Each machine runs in a subprocess (``test_stateful_fuzz``), so a segfault or
a sanitizer abort fails the test with its report instead of killing pytest;
every rule is written, before it runs, to a trace file whose tail is shown
then (hypothesis prints its shrunk falsifying example for Python-level
failures). ``tools/fuzz.sh`` runs this file against the ASan+UBSan build.

Environment variables: ``CCGYM_FUZZ_EXAMPLES`` (examples per machine),
``CCGYM_FUZZ_STEPS`` (rules per example), ``CCGYM_FUZZ_SEED`` (hypothesis
seed: an int, default 0, or "random"), ``CCGYM_FUZZ_MACHINES``
(comma-separated subset of single,vector,sb3,ceiling), ``CCGYM_FUZZ_AVOID``
(input classes to leave out, to look past a known bug: byteorder, unaligned,
resize, interrupt, state, physics, nocopy), ``CCGYM_FUZZ_RENDER_TIMEOUT`` (seconds,
default 20).
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import ccgym
from array_helpers import set_shape
from reference import reference_id, CONTINUOUS_IDS, N_ACTIONS, UNSIGNED_ZERO_REFUSED_IDS

INNER = os.environ.get("CCGYM_FUZZ_INNER") == "1"
EXAMPLES = int(os.environ.get("CCGYM_FUZZ_EXAMPLES", 5))
STEPS = int(os.environ.get("CCGYM_FUZZ_STEPS", 20))
RENDER_TIMEOUT = float(os.environ.get("CCGYM_FUZZ_RENDER_TIMEOUT", 20))
TRACE = os.environ.get("CCGYM_FUZZ_TRACE")
MACHINES = ("single", "vector", "sb3", "ceiling")
# Input classes to leave out, to look past a known bug (comma-separated):
# byteorder, unaligned, resize (resizing, reshaping or freezing handed-out
# arrays in place), interrupt, state, physics, nocopy (vector envs with
# copy=False).
AVOID = set(filter(None, os.environ.get("CCGYM_FUZZ_AVOID", "").split(",")))

ENV_IDS = list(ccgym.ENV_IDS)
CONTINUOUS = set(CONTINUOUS_IDS)

# What a rejected call may raise. A RuntimeError saying another thread holds
# the env is never clean here: the fuzzer has one thread.
CLEAN = (TypeError, ValueError, OverflowError, IndexError, RuntimeError, gym.error.Error)


class Interrupt(BaseException):
    """Raised by the timer's signal handler inside calls (as KeyboardInterrupt is)."""


@contextlib.contextmanager
def quiet():
    """Casts of NaN/huge values and Gymnasium's own warnings would be errors
    under the suite's filterwarnings=error."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def is_busy_error(e: BaseException) -> bool:
    return isinstance(e, RuntimeError) and ("thread" in str(e) or "busy" in str(e))


# ------------------------------------------------------------------ trace
class Trace:
    """Writes each rule before it runs (unbuffered) to CCGYM_FUZZ_TRACE, one
    file per example: what a crash leaves behind to reproduce it."""

    def __init__(self, header: str) -> None:
        self.fd = None
        if TRACE:
            self.fd = os.open(TRACE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            self(header)

    def __call__(self, line: str) -> None:
        if self.fd is not None:
            os.write(self.fd, (line + "\n").encode())

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


# -------------------------------------------------------------- arrays
NUMERIC = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "g",
           "c8", "c16"]
LAYOUTS = [lay for lay in ["c", "c", "strided", "reversed", "readonly", "unaligned", "unaligned",
                          "fortran", "list"] if lay != "unaligned" or "unaligned" not in AVOID]


@dataclass(frozen=True)
class Arr:
    """A recipe for an array: values in `dtype` (with byte order), `shape` and
    memory `layout`; built fresh on each use, shown readably in hypothesis's
    falsifying examples."""

    values: tuple
    dtype: str
    shape: tuple
    layout: str
    offset: int = 1

    def build(self) -> Any:
        with quiet():
            arr = np.array(self.values, dtype=np.dtype(self.dtype)).reshape(self.shape)
        if self.layout == "strided" and arr.ndim:
            arr = np.repeat(arr, 2, axis=0)[::2]
        elif self.layout == "reversed" and arr.ndim:
            arr = np.ascontiguousarray(arr[::-1])[::-1]
        elif self.layout == "readonly":
            arr.flags.writeable = False
        elif self.layout == "unaligned":
            raw = bytearray(arr.nbytes + 16)
            out = np.frombuffer(raw, dtype=arr.dtype, count=arr.size,
                                offset=self.offset).reshape(arr.shape)
            out[...] = arr
            arr = out
        elif self.layout == "fortran":
            arr = np.asfortranarray(arr)
        elif self.layout == "list":
            return arr.tolist()
        return arr

    def __repr__(self) -> str:
        return (f"Arr({list(self.values)!r}, dtype={self.dtype!r}, shape={self.shape}, "
                f"layout={self.layout!r}"
                f"{f', offset={self.offset}' if self.layout == 'unaligned' else ''})")


def describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return (f"ndarray({x.tolist()!r}, dtype={x.dtype.str!r}, shape={x.shape}, "
                f"strides={x.strides}, aligned={x.flags.aligned}, "
                f"writeable={x.flags.writeable})")
    return repr(x)


@st.composite
def dtypes(draw, prefer: str | None = None) -> str:
    if prefer is not None and draw(st.booleans()):
        base = prefer
    else:
        base = draw(st.sampled_from(NUMERIC))
    if np.dtype(base).itemsize == 1:
        return "|" + base
    if "byteorder" in AVOID:
        return "=" + base
    return draw(st.sampled_from("<>")) + base


@st.composite
def arr_recipes(draw, good_shape: tuple, n_actions: int | None, prefer: str) -> Arr:
    """Mostly well-shaped action arrays (to reach the stepping code) of every
    dtype, byte order and layout, with in-range and hostile values."""
    dt = np.dtype(draw(dtypes(prefer)))
    shape = good_shape
    if draw(st.integers(0, 5)) == 0:
        n = good_shape[0] if good_shape else 1
        shape = draw(st.sampled_from([(), (0,), (n + 1,), (1, n), (n, 2), (n, 1, 1), (2 * n,)]))
    size = math.prod(shape)
    if dt.kind in "iu" and n_actions is not None and draw(st.integers(0, 3)):
        elements = st.integers(0, n_actions - 1)
    elif dt.kind == "f" and draw(st.booleans()):
        elements = st.floats(-3, 3, width=min(dt.itemsize * 8, 64))
    elif dt.kind == "c":
        elements = st.complex_numbers(allow_nan=True, allow_infinity=True)
    elif dt.kind == "b":
        elements = st.booleans()
    else:
        kw = {"allow_nan": True, "allow_infinity": True} if dt.kind == "f" else {}
        native = dt.newbyteorder("=") if dt.kind != "f" or dt.itemsize <= 8 else np.dtype("f8")
        elements = hnp.from_dtype(native, **kw)
    values = tuple(draw(st.lists(elements, min_size=size, max_size=size)))
    layout = draw(st.sampled_from(LAYOUTS))
    offset = draw(st.integers(1, 7)) if layout == "unaligned" else 1
    return Arr(values, dt.str, shape, layout, offset)


def _holds_unsigned_zero(action: Any, arr: np.ndarray) -> bool:
    """Whether a batch of discrete actions holds an unsigned 0: a numpy
    unsigned 0 in a list or tuple, or a 0 in an unsigned array."""
    if isinstance(action, (list, tuple)):
        return any(isinstance(x, np.unsignedinteger) and x == 0 for x in action)
    return arr.dtype.kind == "u" and not arr.all()


def canonical(env_id: str, n: int | None, action: Any) -> tuple[str, Any]:
    """Gymnasium's view of a batch (n) or single (n None) action ccgym may
    take: ("valid", what to give Gymnasium) for one ccgym must accept and
    compute as Gymnasium computes that input -- continuous actions in their
    own dtype (issue 16), so Gymnasium gets the same values and dtype in
    native byte order; ("cast", ...) for one ccgym may refuse (wider than
    float64, which Gymnasium computes in long double); ("invalid", None) for
    one it must reject."""
    try:
        with quiet():
            arr = np.asarray(action)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        return "invalid", None
    if env_id in CONTINUOUS:
        ok_shapes = [(1,)] if n is None else [(n, 1), (n,)]
        if arr.shape not in ok_shapes or arr.dtype.kind not in "fiub":
            return "invalid", None
        shape = (1,) if n is None else (n, 1)
        if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
            with quiet():
                return "cast", np.array(arr, dtype=np.float64).reshape(shape)
        given = np.ascontiguousarray(arr.astype(arr.dtype.newbyteorder("="))).reshape(shape)
        if env_id == "MountainCarContinuous-v0" and given.dtype == np.float64:
            # Gymnasium's reward takes math.pow(action[0], 2): OverflowError
            # for a finite float64 whose square overflows.
            big = np.isfinite(given) & (np.abs(given) > 1.3407807929942596e154)
            if big.any():
                return "invalid", None
        return "valid", given
    if arr.dtype.kind not in "iu" or arr.shape != (n,):
        return "invalid", None
    if not np.all((arr >= 0) & (arr < N_ACTIONS[env_id])):
        return "invalid", None
    if env_id in UNSIGNED_ZERO_REFUSED_IDS and _holds_unsigned_zero(action, arr):
        # Gymnasium's action - 1 wraps an unsigned 0 around (a push to the
        # right): ccgym refuses it, by its def's unsigned_zero_wraps rule
        return "invalid", None
    return "valid", arr.astype(np.int64)


# ------------------------------------------------------------ snapshots
def snapshot(env: Any) -> dict | None:
    """The ccgym env's own snapshot (the core's for SB3, which has no public one)."""
    u = env.unwrapped
    if hasattr(u, "get_state"):
        return u.get_state()
    core = _core_of(u)
    return None if core is None else core.get_state()


def _core_of(u: Any) -> Any:
    for name in ("batch", "_core"):
        core = getattr(u, name, None)
        if core is not None and hasattr(core, "get_state"):
            return core
    return None


def restore(env: Any, snap: dict) -> None:
    u = env.unwrapped
    if hasattr(u, "set_state"):
        u.set_state(snap)
    else:
        _core_of(u).set_state(snap)


def snapshots_equal(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return True
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
                    and x.dtype == y.dtype and x.shape == y.shape
                    and x.tobytes() == y.tobytes()):
                return False
        elif x != y:
            return False
    return True


def layout_of(snap: dict | None) -> dict:
    if snap is None:
        return {}
    return {k: (v.dtype.str, v.shape) for k, v in snap.items() if isinstance(v, np.ndarray)}


def same_bits(x: Any, y: Any) -> bool:
    """Equal values, bit for bit (NaN matches NaN: payloads are not compared)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        return False
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        if x.dtype != y.dtype:
            return False
        nan = np.isnan(x)
        if not np.array_equal(nan, np.isnan(y)):
            return False
        return x[~nan].tobytes() == y[~nan].tobytes()
    return np.array_equal(x, y)


INT_SPECIALS = [2**63 - 1, -(2**63), 2**63 - 2, 2**62, -2, 0, 10**12]
FLOAT_SPECIALS = [3.0, -3.0, 1e10, -1e300, 1e308, math.inf, -math.inf, math.nan, 0.0, -0.0,
                  5e-324, 100.0, 1e-300]


@st.composite
def mutations(draw, snap: dict) -> list:
    """(key, word index, value) edits of a snapshot's arrays: the raw state
    half of the time; each 8-byte word that reads as a small integer (a
    counter such as steps_beyond_terminated) gets integer extremes, the
    others float extremes."""
    keys = sorted(k for k, v in snap.items() if isinstance(v, np.ndarray) and v.nbytes >= 8)
    out = []
    if "state_buffer" in keys and draw(st.booleans()):
        words = snap["state_buffer"].view(np.int64)
        for i in range(min(len(words), 12)):
            if draw(st.booleans()):
                small = abs(int(words[i])) < 2**32
                out.append(("state_buffer", i, draw(st.sampled_from(
                    INT_SPECIALS if small else FLOAT_SPECIALS))))
    for _ in range(draw(st.integers(0 if out else 1, 3))):
        key = draw(st.sampled_from(keys))
        nwords = snap[key].nbytes // 8
        i = draw(st.integers(0, nwords - 1))
        out.append((key, i, draw(st.sampled_from(INT_SPECIALS + FLOAT_SPECIALS))))
    return out


def apply_mutations(snap: dict, edits: list) -> dict:
    snap = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in snap.items()}
    for key, i, value in edits:
        raw = snap[key].reshape(-1).view(np.uint8)
        word = (np.array([value], np.int64) if isinstance(value, int)
                else np.array([value], np.float64)).view(np.uint8)
        raw[8 * i:8 * i + 8] = word
    return snap


# ---------------------------------------------------- physics and render
HOSTILE = [0.0, -0.0, 5e-324, -5e-324, 1e-300, 1e-12, -1e-7, -1.0, -0.1, 1e6, -1e6, 1e300,
           -1e300, 1.7976931348623157e308, math.nan, math.inf, -math.inf]


@st.composite
def physics_changes(draw, names: list) -> dict:
    """Hostile physical parameters: extremes, and pairs that (nearly) cancel."""
    change = {}
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)):
        change[name] = draw(st.one_of(st.sampled_from(HOSTILE),
                                      st.floats(allow_nan=False, allow_infinity=False)))
    if len(names) > 1 and draw(st.booleans()):
        # Two parameters whose sum is (nearly) a small round number: what a
        # size, a margin or a denominator built from them (nearly) cancels to.
        # Mostly siblings: names that differ only in their digits
        # (link_length_1, link_length_2).
        siblings = [(u, v) for u in names for v in names
                    if u < v and u.rstrip("0123456789") == v.rstrip("0123456789")]
        if siblings and draw(st.integers(0, 3)):
            a, b = draw(st.sampled_from(siblings))
        else:
            a, b = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        x = draw(st.sampled_from([-0.1, 0.1, 1.0, -1.0, 1e5]))
        total = draw(st.sampled_from([-0.2, 0.0, -1.0, -0.5]))
        d = draw(st.sampled_from([1e-7, -1e-7, 0.0, 1e-12]))
        change[a] = x
        change[b] = total - x + d
    return change


def render_bounded(render, what: str, trace: Trace) -> Any:
    """Calls render() in a thread; a render that does not finish in
    RENDER_TIMEOUT seconds ends the process at once (shrinking a hang would
    take for ever), leaving the trace."""
    result: dict = {}

    def run():
        try:
            with quiet():
                result["frame"] = render()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            result["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(RENDER_TIMEOUT)
    if t.is_alive():
        msg = f"CCGYM-FUZZ: render did not finish within {RENDER_TIMEOUT}s: {what}\n"
        trace(msg.strip())
        sys.stderr.write(msg)
        sys.stderr.flush()
        os._exit(86)
    if "error" in result:
        raise result["error"]
    return result.get("frame")


# ------------------------------------------------------------- interrupts
class Storm:
    """Raises Interrupt from a SIGALRM handler, every `interval` seconds,
    inside the calls under test only: the handler raises only while `inside`
    is set, which brackets the call within its try (an exception landing in
    the loop's own code would escape it)."""

    def __init__(self) -> None:
        self.inside = False

    def _handler(self, signum, frame):
        if self.inside:
            raise Interrupt()

    def run(self, op, seconds: float, interval: float) -> tuple[int, list[str]]:
        """Calls op() repeatedly for `seconds` under the timer; returns the
        number of calls interrupted and the busy errors seen (each one a bug:
        there is one thread)."""
        busy: list[str] = []
        hits = 0
        # Installed for good (and harmless while `inside` is unset): a timer
        # signal in flight after the timer stops must not meet SIGALRM's
        # default action, which ends the process.
        signal.signal(signal.SIGALRM, self._handler)
        deadline = time.monotonic() + seconds
        # An Interrupt landing in a finalizer (a __del__ run by a collection
        # inside the call) is "ignored" by Python: not an env failure.
        old_hook = sys.unraisablehook

        def hook(unraisable):
            if not isinstance(unraisable.exc_value, Interrupt):
                old_hook(unraisable)

        sys.unraisablehook = hook
        signal.setitimer(signal.ITIMER_REAL, interval, interval)
        try:
            with quiet():
                while time.monotonic() < deadline:
                    try:
                        self.inside = True
                        op()
                        self.inside = False
                    except Interrupt:
                        self.inside = False
                        hits += 1
                    except CLEAN as e:
                        self.inside = False
                        if is_busy_error(e):
                            busy.append(str(e))
        finally:
            self.inside = False
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            sys.unraisablehook = old_hook
        return hits, busy


STORM = Storm()


# ------------------------------------------------------------ the machines
class Base(RuleBasedStateMachine):
    """What the front-end machines share: the trace, held arrays, the busy
    and layout invariants."""

    env: Any = None

    def __init__(self) -> None:
        super().__init__()
        self.trace = Trace(type(self).__name__)
        self.held: list = []  # views and arrays the "user" keeps
        self.layout: dict = {}

    def teardown(self) -> None:
        self.trace.close()
        with quiet(), contextlib.suppress(Exception):
            if self.env is not None:
                self.env.close()
        self.held.clear()

    def t(self, msg: str) -> None:
        self.trace(msg)

    def expect_clean_rejection(self, e: BaseException, before: dict | None, what: str) -> None:
        assert not is_busy_error(e), f"{what}: the env is left busy: {e}"
        assert snapshots_equal(snapshot(self.env), before), f"a rejected {what} changed the env"

    def checked_step(self, actions, label: str, verdict: str, given, ref: str = "Gymnasium"):
        """self.env.step(actions) beside the reference's step(given), where
        verdict is the reference's ("valid" / "invalid") for `label`: a
        rejection must be clean and the reference's too, an accepted step
        one it takes. (got, exp), or None when ccgym rejected it."""
        before = snapshot(self.env)
        try:
            with quiet():
                got = self.env.step(actions)
        except CLEAN as e:
            self.expect_clean_rejection(e, before, f"step({label})")
            assert verdict != "valid", f"rejected {label}, which {ref} takes: {e!r}"
            return None
        assert verdict != "invalid", f"accepted {label}, which Gymnasium rejects"
        with quiet():
            exp = self.ref.step(given)
        return got, exp

    def replace_by_clone(self, how: str) -> None:
        """The env replaced by its pickle round trip or deepcopy, which must
        snapshot the same (the machines that have a clone rule)."""
        self.t(f"clone by {how}")
        with quiet():
            clone = (pickle.loads(pickle.dumps(self.env)) if how == "pickle"
                     else copy.deepcopy(self.env))
        assert snapshots_equal(snapshot(clone), snapshot(self.env)), f"{how} is not exact"
        old, self.env = self.env, clone
        old.close()

    @invariant()
    def never_busy_and_same_layout(self) -> None:
        if self.env is None:
            return
        try:
            snap = snapshot(self.env)
        except RuntimeError as e:
            raise AssertionError(f"the env is left busy or broken: {e}") from e
        assert layout_of(snap) == self.layout, (
            f"the env's buffers changed shape or dtype: {layout_of(snap)} != {self.layout}")

    def mangle(self, get, how: str, size: int) -> None:
        """What a user may do to an array ccgym hands out: get() returns it.
        (Resized straight off the call, with no other reference held, as in
        `env.step(a)[0].resize(1)`: numpy's refcheck refuses otherwise.)"""
        try:
            if how in ("resize", "reshape", "freeze") and "resize" in AVOID:
                how = "view"  # (the call is still made: the reference took it too)
            if how == "resize":
                get().resize(size)
                return
            arr = get()
            if not isinstance(arr, np.ndarray):
                return
            if how == "reshape":
                set_shape(arr, (-1,) if arr.ndim != 1 else (1, -1))
            elif how == "freeze":
                arr.flags.writeable = False
            elif how == "view":
                self.held.append(arr[::-1])
            elif how == "memoryview":
                self.held.append(memoryview(arr))
            elif how == "write":
                if arr.flags.writeable:
                    arr[...] = 7
        except (ValueError, AttributeError, TypeError, BufferError):
            pass


MANGLE = st.sampled_from(["resize", "resize", "reshape", "freeze", "view", "memoryview",
                          "write"])
SIZES = st.sampled_from([0, 1, 2, 1 << 16, 1 << 20])


class SingleMachine(Base):
    """gym.make("ccgym/<id>") against gym.make("<id>")."""

    @initialize(env_id=st.sampled_from(ENV_IDS), seed=st.integers(0, 2**32),
                limit=st.sampled_from([5, 30, 200]))
    def make(self, env_id, seed, limit):
        self.t(f"make {env_id} max_episode_steps={limit} seed={seed}")
        self.env_id, self.limit = env_id, limit
        with quiet():
            self.env = gym.make(f"ccgym/{env_id}", max_episode_steps=limit,
                                disable_env_checker=True, render_mode="rgb_array")
            self.ref = gym.make(reference_id(env_id), max_episode_steps=limit, disable_env_checker=True)
        self.reset_both(seed)
        self.layout = layout_of(snapshot(self.env))

    def reset_both(self, seed, options=None):
        with quiet():
            got = self.env.reset(seed=seed, options=options)
            exp = self.ref.reset(seed=seed, options=options)
        assert same_bits(got[0], exp[0]), f"reset obs {got[0]} != Gymnasium's {exp[0]}"
        self.done = False

    def single_action(self, data) -> Any:
        if self.env_id in CONTINUOUS:
            recipe = data.draw(arr_recipes((1,), None, "f4"), label="action")
            return recipe.build()
        kind = data.draw(st.sampled_from(["int", "np", "0d", "array", "other"]), label="as")
        n = N_ACTIONS[self.env_id]
        v = data.draw(st.one_of(st.integers(0, n - 1), st.integers(0, n - 1),
                                st.integers(-3, 5), st.sampled_from([2**63, -(2**63) - 1,
                                                                     2**64, True, False])),
                      label="value")
        if kind == "int":
            return v
        if kind in ("np", "0d"):
            dt = np.dtype(data.draw(dtypes("i8"), label="dtype"))
            with quiet():
                try:
                    a = np.array(v).astype(dt)
                except (OverflowError, ValueError, TypeError):
                    return v
            return a[()] if kind == "np" else a
        if kind == "array":
            return data.draw(arr_recipes((1,), n, "i8"), label="action").build()
        return data.draw(st.sampled_from([None, "1", 1.0, [1], 1j, b"\x01", object()]),
                         label="other")

    def oracle(self, action) -> tuple[str, Any]:
        if self.env_id in CONTINUOUS:
            return canonical(self.env_id, None, action)
        try:
            ok = self.ref.action_space.contains(action)
        except Exception:  # noqa: BLE001 - a value numpy cannot take
            ok = False
        if not ok and self.env_id == "Acrobot-v1":
            # Gymnasium's Acrobot does not assert contains: it indexes
            # AVAIL_TORQUE[a], so it also steps the np.uint64 actions that
            # Gymnasium >= 1.2's Discrete refuses (no safe cast to int64).
            ok = (isinstance(action, (np.generic, np.ndarray)) and action.shape == ()
                  and action.dtype.kind == "u" and int(action) < 3)
        return ("valid", action) if ok else ("invalid", None)

    @rule(data=st.data())
    def step(self, data):
        action = self.single_action(data)
        self.t(f"step {describe(action)}")
        verdict, given = self.oracle(action)
        out = self.checked_step(action, describe(action), verdict, given)
        if out is not None:
            self.compare(*out, action)

    def compare(self, got, exp, action):
        what = f"step({describe(action)})"
        assert same_bits(got[0], exp[0]), f"{what}: obs {got[0]!r} != Gymnasium's {exp[0]!r}"
        assert same_bits(np.float64(got[1]), np.float64(exp[1])), (
            f"{what}: reward {got[1]!r} != {exp[1]!r}")
        assert (bool(got[2]), bool(got[3])) == (bool(exp[2]), bool(exp[3])), (
            f"{what}: flags {got[2:4]} != {exp[2:4]}")
        self.done = bool(got[2] or got[3])

    @rule(seed=st.one_of(st.none(), st.integers(0, 2**64)),
          opts=st.one_of(st.none(), st.fixed_dictionaries(
              {}, optional={"low": st.floats(-0.2, 0.0), "high": st.floats(0.0, 0.2),
                            "x_init": st.floats(0, 4), "y_init": st.floats(0, 2)})))
    def reset(self, seed, opts):
        self.t(f"reset seed={seed} options={opts}")
        with quiet():
            try:
                exp = self.ref.reset(seed=seed, options=opts)
            except Exception:  # noqa: BLE001 - Gymnasium rejects it: ccgym must too
                exp = None
            try:
                got = self.env.reset(seed=seed, options=opts)
            except CLEAN as e:
                assert not is_busy_error(e), f"reset left busy: {e}"
                assert exp is None, f"reset(seed={seed}, options={opts}) rejected: {e!r}"
                self.reset_both(0)
                return
        assert exp is not None, f"reset(seed={seed}, options={opts}) accepted; Gymnasium rejects"
        assert same_bits(got[0], exp[0]), f"reset obs {got[0]} != {exp[0]}"
        self.done = False

    @precondition(lambda self: "state" not in AVOID)
    @rule(edits=st.data())
    def set_mutated_state(self, edits):
        raw = self.env.unwrapped
        before = raw.get_state()
        edit = edits.draw(mutations(before), label="edits")
        self.t(f"set_state mutated {edit}")
        try:
            raw.set_state(apply_mutations(before, edit))
        except CLEAN as e:
            self.expect_clean_rejection(e, before, "set_state")
            return
        with quiet():
            for _ in range(2):
                try:
                    raw.step(1 if self.env_id not in CONTINUOUS
                             else np.array([0.5], np.float32))
                except CLEAN as e:
                    assert not is_busy_error(e), e
            self.t("  render the mutated state")
            try:
                frame = render_bounded(raw.render, f"{self.env_id} mutated {edit}", self.trace)
                assert frame is None or frame.dtype == np.uint8
            except CLEAN as e:
                assert not is_busy_error(e), e
        raw.set_state(before)
        assert snapshots_equal(raw.get_state(), before), "set_state(get_state()) is not exact"

    @rule()
    def render(self):
        self.t("render")
        frame = render_bounded(self.env.render, f"{self.env_id} render", self.trace)
        assert frame is None or (frame.dtype == np.uint8 and frame.ndim == 3)

    @rule(how=st.sampled_from(["pickle", "deepcopy"]))
    def clone(self, how):
        self.replace_by_clone(how)

    @rule(which=st.sampled_from([0, 1]), how=MANGLE, size=SIZES)
    def mangle_output(self, which, how, size):
        """Steps with a valid action and mangles the returned obs (which=0) or
        the reset observation (which=1)."""
        self.t(f"mangle {'step' if which == 0 else 'reset'} obs: {how} {size}")
        action = (np.array([0.25], np.float32) if self.env_id in CONTINUOUS else 1)
        with quiet():
            if which == 0:
                exp = self.ref.step(action)
                if self.env.unwrapped._core.obs_is_state:
                    # The step's obs is the env's state, as in Gymnasium's
                    # MountainCarContinuous (its def's obs_state_reader):
                    # mangling it is a state edit, which tests/test_live_obs.py
                    # checks against Gymnasium (resizes and layouts included).
                    self.env.step(action)
                else:
                    self.mangle(lambda: self.env.step(action)[0], how, size)
                self.done = bool(exp[2] or exp[3])
            else:
                self.ref.reset(seed=size)
                self.mangle(lambda: self.env.reset(seed=size)[0], how, size)
                self.done = False

    @precondition(lambda self: "interrupt" not in AVOID)
    @rule(op=st.sampled_from(["step", "reset", "get_state", "set_state"]),
          interval=st.sampled_from([2e-5, 5e-5, 1.3e-4, 7e-4]))
    def interrupted(self, op, interval):
        """Calls the raw env under a timer that raises inside calls; then the
        env must not be busy, and restoring the snapshot brings it back."""
        self.t(f"interrupt storm {op} every {interval}s")
        raw = self.env.unwrapped
        before = raw.get_state()
        action = np.array([0.5], np.float32) if self.env_id in CONTINUOUS else 0
        ops = {"step": lambda: raw.step(action), "reset": lambda: raw.reset(seed=3),
               "get_state": raw.get_state, "set_state": lambda: raw.set_state(before)}
        hits, busy = STORM.run(ops[op], 0.15, interval)
        assert not busy, (
            f"an interrupted {op} left the env busy ({hits} interrupted calls): {busy[0]}")
        try:
            raw.set_state(before)
        except RuntimeError as e:
            raise AssertionError(f"an interrupted {op} left the env unusable: {e}") from e


class BatchMachine(Base):
    """What the vector and SB3 machines share: a batch of n instances of
    env_id stepped beside a reference (self.ref) with fuzzed action arrays;
    each compares the results its own way (compare) against REF."""

    REF = "Gymnasium"  # the reference, named in the rejection messages

    def valid_action(self):
        if self.env_id in CONTINUOUS:
            return np.full((self.n, 1), 0.5, np.float32)
        return np.ones(self.n, np.int64)

    @rule(data=st.data())
    def step(self, data):
        good = (self.n, 1) if self.env_id in CONTINUOUS else (self.n,)
        recipe = data.draw(arr_recipes(good, N_ACTIONS.get(self.env_id),
                                       "f4" if self.env_id in CONTINUOUS else "i8"),
                           label="actions")
        actions = recipe.build()
        self.t(f"step {recipe!r} -> {describe(actions)}")
        verdict, given = canonical(self.env_id, self.n, actions)
        out = self.checked_step(actions, repr(recipe), verdict, given, self.REF)
        if out is not None:
            self.compare(*out, f"step({recipe!r})")


def vec_make_ref(env_id, n, limit, mode):
    return gym.vector.SyncVectorEnv(
        [lambda: gym.make(reference_id(env_id), max_episode_steps=limit, disable_env_checker=True)] * n,
        autoreset_mode=mode)


class VectorMachine(BatchMachine):
    """ccgym.make_vec against SyncVectorEnv of gym.make(<id>)."""

    @initialize(env_id=st.sampled_from(ENV_IDS), n=st.sampled_from([1, 2, 3]),
                mode=st.sampled_from(["NextStep", "SameStep"]), copy_out=st.booleans(),
                seed=st.integers(0, 2**32), limit=st.sampled_from([4, 25, 200]))
    def make(self, env_id, n, mode, copy_out, seed, limit):
        self.t(f"make_vec {env_id} num_envs={n} autoreset_mode={mode} copy={copy_out} "
               f"max_episode_steps={limit} seed={seed}")
        self.env_id, self.n, self.mode, self.limit = env_id, n, mode, limit
        copy_out = copy_out or "nocopy" in AVOID
        with quiet():
            self.env = ccgym.make_vec(env_id, num_envs=n, autoreset_mode=mode, copy=copy_out,
                                      max_episode_steps=limit, render_mode="rgb_array")
            self.ref = vec_make_ref(env_id, n, limit, mode)
        self.reset_both(seed)
        self.layout = layout_of(snapshot(self.env))

    def reset_both(self, seed, options=None):
        with quiet():
            got = self.env.reset(seed=seed, options=options and dict(options))
            exp = self.ref.reset(seed=seed, options=options and dict(options))
        assert same_bits(got[0], exp[0]), f"reset obs {got[0]} != Gymnasium's {exp[0]}"


    def compare(self, got, exp, what):
        for name, x, y in zip(("obs", "rewards", "terminations", "truncations"), got, exp):
            assert same_bits(np.asarray(x), np.asarray(y)), (
                f"{what}: {name} {x!r} != Gymnasium's {y!r}")
        if self.mode == "SameStep":
            gi, ei = got[4], exp[4]
            assert np.array_equal(gi.get("_final_obs", np.zeros(self.n, bool)),
                                  ei.get("_final_obs", np.zeros(self.n, bool))), what
            for i in np.flatnonzero(ei.get("_final_obs", np.zeros(self.n, bool))):
                assert same_bits(gi["final_obs"][i], ei["final_obs"][i]), f"{what}: final_obs"


    @rule(seed=st.one_of(st.none(), st.integers(0, 2**40),
                         st.lists(st.one_of(st.none(), st.integers(0, 2**33)), min_size=1,
                                  max_size=3)),
          mask=st.one_of(st.none(), st.lists(st.booleans(), min_size=1, max_size=3)),
          low=st.one_of(st.none(), st.floats(-0.2, 0.0)))
    def reset(self, seed, mask, low):
        opts = None
        if mask is not None or low is not None:
            opts = {}
            if mask is not None:
                opts["reset_mask"] = np.array(mask, dtype=bool)
            if low is not None:
                opts.update({"x_init": -low * 10, "y_init": -low} if self.env_id == "Pendulum-v1"
                            else {"low": low, "high": -low})
        self.t(f"reset seed={seed} options={opts}")
        before = snapshot(self.env)
        with quiet():
            try:
                exp = self.ref.reset(seed=seed, options=opts and dict(opts))
            except Exception:  # noqa: BLE001 - Gymnasium rejects it: so must ccgym
                exp = None
            try:
                got = self.env.reset(seed=seed, options=opts and dict(opts))
            except CLEAN as e:
                assert exp is None, f"reset(seed={seed}, options={opts}) rejected: {e!r}"
                self.expect_clean_rejection(e, before, "reset")
                self.reset_both(0)  # Gymnasium may have seeded some envs: resync both
                return
        assert exp is not None, f"reset(seed={seed}, options={opts}) accepted; Gymnasium rejects"
        assert same_bits(got[0], exp[0]), f"reset obs {got[0]} != {exp[0]}"

    @precondition(lambda self: "state" not in AVOID)
    @rule(data=st.data())
    def set_mutated_state(self, data):
        before = self.env.get_state()
        edit = data.draw(mutations(before), label="edits")
        self.t(f"set_state mutated {edit}")
        try:
            self.env.set_state(apply_mutations(before, edit))
        except CLEAN as e:
            self.expect_clean_rejection(e, before, "set_state")
            return
        self.roll_and_render(f"mutated {edit}")
        self.env.set_state(before)
        assert snapshots_equal(self.env.get_state(), before), "set_state is not exact"

    def roll_and_render(self, what):
        with quiet():
            for _ in range(3):
                try:
                    self.env.step(self.valid_action())
                except CLEAN as e:
                    assert not is_busy_error(e), e
            self.t("  render")
            try:
                frames = render_bounded(self.env.render, f"{self.env_id} {what}", self.trace)
                assert frames.dtype == np.uint8 and frames.shape[0] == self.n
            except CLEAN as e:
                assert not is_busy_error(e), e

    @precondition(lambda self: "physics" not in AVOID)
    @rule(data=st.data())
    def set_physics(self, data):
        change = data.draw(physics_changes(sorted(self.env.get_physics())), label="physics")
        self.t(f"set_physics {change}")
        before, physics = self.env.get_state(), self.env.get_physics()
        try:
            with quiet():
                self.env.set_physics(**change)
        except CLEAN as e:
            self.expect_clean_rejection(e, before, "set_physics")
            got = self.env.get_physics()
            assert got.keys() == physics.keys() and all(
                same_bits(got[k], physics[k]) for k in got), "a rejected set_physics changed them"
            return
        self.roll_and_render(f"physics {change}")
        self.env.set_physics(**physics)
        self.env.set_state(before)

    @precondition(lambda self: "physics" not in AVOID)
    @rule(data=st.data())
    def make_hostile(self, data):
        """A second env made with hostile physics, stepped and rendered."""
        change = data.draw(physics_changes(sorted(self.env.get_physics())), label="physics")
        self.t(f"make_vec {self.env_id} with {change}, step, render")
        with quiet():
            try:
                other = ccgym.make_vec(self.env_id, num_envs=2, render_mode="rgb_array",
                                       **change)
            except CLEAN:
                return
            try:
                other.reset(seed=1)
                other.step(np.zeros((2, 1), np.float32) if self.env_id in CONTINUOUS
                           else np.ones(2, np.int64))
                render_bounded(other.render, f"{self.env_id} made with {change}", self.trace)
            except CLEAN as e:
                assert not is_busy_error(e), e
            other.close()

    @rule()
    def render(self):
        self.t("render")
        frames = render_bounded(self.env.render, f"{self.env_id} render", self.trace)
        assert frames.dtype == np.uint8 and frames.shape[0] == self.n

    @rule(how=st.sampled_from(["pickle", "deepcopy"]))
    def clone(self, how):
        self.replace_by_clone(how)

    @rule(source=st.sampled_from(["step", "reset", "episode_returns", "episode_lengths",
                                  "elapsed_steps"]),
          which=st.integers(0, 3), how=MANGLE, size=SIZES)
    def mangle_output(self, source, which, how, size):
        """Mangles an array ccgym just handed out, holding no other reference
        (what `env.step(a)[0].resize(1)` does)."""
        self.t(f"mangle {source}[{which}]: {how} {size}")
        a = self.valid_action()
        with quiet():
            if source == "step":
                self.ref.step(a)
                self.mangle(lambda: self.env.step(a)[which], how, size)
            elif source == "reset":
                self.ref.reset(seed=size)
                self.mangle(lambda: self.env.reset(seed=size)[0], how, size)
            else:
                self.mangle(lambda: getattr(self.env, source), how, size)

    @precondition(lambda self: "interrupt" not in AVOID)
    @rule(op=st.sampled_from(["step", "reset", "get_state", "set_state"]),
          interval=st.sampled_from([2e-5, 5e-5, 1.3e-4, 7e-4]))
    def interrupted(self, op, interval):
        self.t(f"interrupt storm {op} every {interval}s")
        before = self.env.get_state()
        a = self.valid_action()
        ops = {"step": lambda: self.env.step(a), "reset": lambda: self.env.reset(seed=3),
               "get_state": self.env.get_state, "set_state": lambda: self.env.set_state(before)}
        hits, busy = STORM.run(ops[op], 0.15, interval)
        assert not busy, (
            f"an interrupted {op} left the env busy ({hits} interrupted calls): {busy[0]}")
        try:
            self.env.set_state(before)
        except RuntimeError as e:
            raise AssertionError(f"an interrupted {op} left the env unusable: {e}") from e


class SB3Machine(BatchMachine):
    """ccgym.sb3.make_vec_env against SB3's DummyVecEnv of gym.make(<id>)."""

    REF = "SB3+Gymnasium"

    @initialize(env_id=st.sampled_from(ENV_IDS), n=st.sampled_from([1, 2, 3]),
                seed=st.integers(0, 2**31), limit=st.sampled_from([4, 25]))
    def make(self, env_id, n, seed, limit):
        from stable_baselines3.common.vec_env import DummyVecEnv

        import ccgym.sb3

        self.t(f"sb3 make_vec_env {env_id} n_envs={n} max_episode_steps={limit} seed={seed}")
        self.env_id, self.n = env_id, n
        with quiet():
            self.env = ccgym.sb3.make_vec_env(env_id, n_envs=n,
                                              vec_env_kwargs={"max_episode_steps": limit})
            self.ref = DummyVecEnv([lambda: gym.make(reference_id(env_id), max_episode_steps=limit,
                                                     disable_env_checker=True)] * n)
        self.reset_both(seed)
        self.layout = layout_of(snapshot(self.env))

    def reset_both(self, seed):
        with quiet():
            self.env.seed(seed)
            self.ref.seed(seed)
            got, exp = self.env.reset(), self.ref.reset()
        assert same_bits(got, exp), f"reset obs {got} != SB3's {exp}"


    def compare(self, got, exp, what):
        for name, x, y in zip(("obs", "rewards", "dones"), got[:3], exp[:3]):
            assert same_bits(x, y), f"{what}: {name} {x!r} != SB3's {y!r}"
        for i, (gi, ei) in enumerate(zip(got[3], exp[3])):
            assert gi["TimeLimit.truncated"] == ei["TimeLimit.truncated"], what
            assert ("terminal_observation" in gi) == ("terminal_observation" in ei), what
            if "terminal_observation" in ei:
                assert same_bits(gi["terminal_observation"], ei["terminal_observation"]), (
                    f"{what}: terminal_observation of {i}")

    @rule(seed=st.integers(0, 2**31))
    def reset(self, seed):
        self.t(f"seed({seed}); reset()")
        self.reset_both(seed)

    @rule(which=st.integers(0, 1), how=MANGLE, size=SIZES)
    def mangle_output(self, which, how, size):
        self.t(f"mangle step()[{which}]: {how} {size}")
        a = self.valid_action()
        with quiet():
            self.ref.step(a)
            self.mangle(lambda: self.env.step(a)[which], how, size)

    @precondition(lambda self: "interrupt" not in AVOID and snapshot(self.env) is not None)
    @rule(op=st.sampled_from(["step", "reset"]),
          interval=st.sampled_from([2e-5, 5e-5, 1.3e-4, 7e-4]))
    def interrupted(self, op, interval):
        self.t(f"interrupt storm {op} every {interval}s")
        before = snapshot(self.env)
        a = self.valid_action()
        ops = {"step": lambda: self.env.step(a), "reset": self.env.reset}
        hits, busy = STORM.run(ops[op], 0.15, interval)
        assert not busy, (
            f"an interrupted {op} left the env busy ({hits} interrupted calls): {busy[0]}")
        try:
            restore(self.env, before)
        except RuntimeError as e:
            raise AssertionError(f"an interrupted {op} left the env unusable: {e}") from e


# ------------------------------------------------------------ the ceiling
def ceiling_module():
    """The bench ceiling's compiled module, wherever the bench package keeps it."""
    import importlib

    for name in ("ccgym._ceiling", "ccgym.bench._ceiling", "ccgym.bench.ceiling"):
        with contextlib.suppress(ImportError):
            mod = importlib.import_module(name)
            if hasattr(mod, "Run"):
                return mod
    return None


CEILING_KINDS = ("CartPole", "MountainCar", "MountainCarContinuous", "Pendulum", "Acrobot")


@st.composite
def replacement(draw):
    return draw(st.one_of(
        st.builds(lambda n, dt: np.zeros(n, dt), st.sampled_from([0, 1, 3, 100]),
                  st.sampled_from(["f4", "f8", "?", "i8", "u1"])),
        st.builds(lambda n: np.zeros((n, 1), np.float32), st.sampled_from([1, 2])),
        st.sampled_from([None, 0, 1, -1, 100, 4096, 10**6, 2**62, "CartPole", "Acrobot",
                         "Pendulum"]),
    ))


def ceiling_case(kind, n, steps, attrs):
    """One ceiling Run with attributes replaced: a clean exception or a run."""
    mod = ceiling_module()
    sd = mod.state_dim(kind)
    state = np.zeros((n, sd))
    run = mod.Run(kind, state, seed=0)
    for name, value in attrs.items():
        with contextlib.suppress(AttributeError, TypeError):
            setattr(run, name, value)
    dt = mod.action_dtype(kind)
    rows = getattr(run, "num_envs", n)  # actions that fit a replaced num_envs
    rows = rows if isinstance(rows, int) and 1 <= rows <= 5000 else n
    actions = np.zeros((2, rows), dt)
    try:
        run.run(actions, steps)
    except CLEAN:
        pass


# ---------------------------------------------------------------- tests
def fuzz_settings() -> settings:
    # No explain phase: its line tracer would run inside the interrupted calls.
    return settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
                    database=None, suppress_health_check=list(HealthCheck),
                    report_multiple_bugs=False,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])


inner = pytest.mark.skipif(not INNER, reason="runs inside test_stateful_fuzz's subprocess")


@inner
def test_machine_single():
    run_state_machine_as_test(SingleMachine, settings=fuzz_settings())


@inner
def test_machine_vector():
    run_state_machine_as_test(VectorMachine, settings=fuzz_settings())


@inner
def test_machine_sb3():
    pytest.importorskip("stable_baselines3")
    run_state_machine_as_test(SB3Machine, settings=fuzz_settings())


@inner
def test_machine_ceiling():
    mod = ceiling_module()
    if mod is None:
        pytest.skip("no bench ceiling module")
    from hypothesis import given

    @given(kind=st.sampled_from(CEILING_KINDS), n=st.sampled_from([1, 4, 64]),
           steps=st.sampled_from([1, 3]),
           attrs=st.dictionaries(st.sampled_from(["state", "obs", "reward", "terminated",
                                                 "rng_state", "num_envs", "kind"]),
                                 replacement(), max_size=3))
    @fuzz_settings()
    def case(kind, n, steps, attrs):
        trace = Trace(f"ceiling {kind} n={n} steps={steps} attrs="
                      f"{ {k: describe(v) for k, v in attrs.items()} }")
        try:
            with quiet():
                ceiling_case(kind, n, steps, attrs)
        finally:
            trace.close()

    case()


def _seed_arg() -> str:
    seed = os.environ.get("CCGYM_FUZZ_SEED", "0")
    if seed == "random":
        seed = str(random.SystemRandom().randrange(2**32))
    return seed


@pytest.mark.skipif(INNER, reason="the outer runner")
@pytest.mark.parametrize("machine", MACHINES)
def test_stateful_fuzz(machine, tmp_path):
    """Runs one state machine in a subprocess: a crash or sanitizer abort
    there fails this test with its report and the crashing example's trace."""
    wanted = os.environ.get("CCGYM_FUZZ_MACHINES")
    if wanted and machine not in wanted.split(","):
        pytest.skip(f"CCGYM_FUZZ_MACHINES={wanted}")
    if machine == "sb3":
        pytest.importorskip("stable_baselines3")
    trace = tmp_path / "trace.txt"
    seed = _seed_arg()
    env = dict(os.environ, CCGYM_FUZZ_INNER="1", CCGYM_FUZZ_TRACE=str(trace))
    # --capture=sys: a sanitizer's or faulthandler's report, written to fd 2
    # by C, must reach this pipe rather than die in pytest's capture file.
    env["PYTHONUNBUFFERED"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-x", "--capture=sys",
           "--hypothesis-seed", seed, "--hypothesis-show-statistics",
           f"{__file__}::test_machine_{machine}"]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    took = time.monotonic() - start
    print(f"{machine}: seed {seed}, {EXAMPLES} examples x {STEPS} steps, {took:.1f}s, "
          f"exit {proc.returncode}")
    if proc.returncode != 0:
        lines = trace.read_text().splitlines() if trace.exists() else []
        tail = "\n".join(lines[-40:])
        err = proc.stderr
        # A sanitizer's report starts where it says what it found: show that
        # part, not only the end of its stack trace.
        marks = [err.find(m) for m in ("runtime error:", "ERROR: AddressSanitizer",
                                       "Fatal Python error", "CCGYM-FUZZ:")]
        start = min([m for m in marks if m >= 0], default=-1)
        if start >= 0:
            line_start = err.rfind("\n", 0, start) + 1
            err = err[line_start:line_start + 5000]
        else:
            err = err[-6000:]
        pytest.fail(
            f"the {machine} fuzzer (hypothesis seed {seed}) failed with exit code "
            f"{proc.returncode} (negative: killed by that signal; 86: a render hang) "
            f"after {took:.0f}s\n--- stdout ---\n{proc.stdout[-8000:]}\n"
            f"--- stderr (from the first report) ---\n{err}\n"
            f"--- trace of the last example ({len(lines)} lines, last 40) ---\n{tail}",
            pytrace=False)
