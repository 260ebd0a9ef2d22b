"""Exact math (include/ccgym/exactmath.h): the exact kernels' sin/cos, a
re-implementation of glibc's that must return np.sin/np.cos's bits, used only
when the import-time self-check accepts it (else scalar libm)."""
from __future__ import annotations

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from ccgym import _core

GLIBC_X86 = (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
             and platform.libc_ver()[0] == "glibc")
FORCED = os.environ.get("CCGYM_EXACT_MATH", "")
vector = pytest.mark.skipif(not GLIBC_X86 or FORCED == "libm",
                            reason="the re-implementation is for glibc x86-64 (not forced off)")


def _run(env_value, code="import ccgym._core as c; print(c.exact_math())"):
    env = dict(os.environ)
    env.pop("CCGYM_EXACT_MATH", None)
    if env_value is not None:
        env["CCGYM_EXACT_MATH"] = env_value
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


def test_exact_math_reports_a_path():
    info = _core.exact_math()
    assert set(info) == {"path", "lanes", "reason", "table_lo_fixups", "kernels", "pow2", "pow2f",
                         "pow2_reason"}
    assert isinstance(info["pow2"], bool) and isinstance(info["pow2f"], bool) and info["pow2_reason"]
    assert info["path"] in ("libm", "nofma", "fma")
    assert info["lanes"] in ("libm", "scalar", "avx2", "avx512")
    assert (info["lanes"] == "libm") == (info["path"] == "libm")
    assert info["reason"]
    if FORCED == "libm":
        assert info["path"] == "libm" and "CCGYM_EXACT_MATH=libm" in info["reason"]
        assert not info["pow2"] and not info["pow2f"]


@vector
def test_self_check_accepted_on_glibc_x86():
    info = _core.exact_math()
    assert info["path"] in ("fma", "nofma"), info
    # 18 of the table's 220 low words are not the correctly rounded remainder:
    # they are read from libm, not generated.
    assert info["table_lo_fixups"] == 18
    bad, n = _core._exact_math_selfcheck("none")
    assert bad == 0 and n > 50000


@vector
@pytest.mark.parametrize("perturb", ["const", "drop_fma", "table_lo", "variant"])
def test_self_check_refuses_a_broken_port(perturb):
    bad, n = _core._exact_math_selfcheck(perturb)
    assert n > 50000
    assert bad > 0, f"the self-check did not notice {perturb}"


def _probe_inputs(rng, n):
    edges = [0.0, 1e-9, 1.49e-8, 0.126, 0.85546875, 2.4262, 10.0, 1e3, 1e5, 1.05e8, 1e12]
    parts = [rng.uniform(lo, hi, n) for lo, hi in zip(edges[:-1], edges[1:])]
    parts.append(np.exp2(rng.uniform(-30, 27, n)))
    k = rng.integers(1, 67_000_000, n).astype(np.float64)
    near = (k * (np.pi / 2)).view(np.int64) + rng.integers(-3, 4, n)
    parts.append(near.view(np.float64))
    x = np.concatenate(parts)
    return np.concatenate([x, -x, [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1e300]])


def test_exact_sincos_is_numpy_bit_for_bit():
    x = _probe_inputs(np.random.default_rng(25), 200_000)
    s, c = _core.exact_sincos(x)
    with np.errstate(invalid="ignore"):
        ns, nc = np.sin(x), np.cos(x)
    finite = ~np.isnan(ns)
    assert np.array_equal(s[finite].view(np.int64), ns[finite].view(np.int64))
    assert np.array_equal(c[finite].view(np.int64), nc[finite].view(np.int64))
    assert np.isnan(s[~finite]).all() and np.isnan(c[~finite]).all()
    # every length (the lanes' tails) and a strided input
    for n in range(0, 20):
        s2, c2 = _core.exact_sincos(x[:n])
        assert np.array_equal(s2.view(np.int64), s[:n].view(np.int64))
    s3, _ = _core.exact_sincos(x[::3])
    assert np.array_equal(s3.view(np.int64), s[::3].view(np.int64))


def test_forced_libm_fallback():
    proc = _run("libm")
    assert proc.returncode == 0, proc.stderr
    assert "'path': 'libm'" in proc.stdout and "CCGYM_EXACT_MATH=libm" in proc.stdout


@vector
@pytest.mark.parametrize("value,lanes", [("scalar", "scalar"), ("avx2", "avx2"), (None, None)])
def test_lane_choice(value, lanes):
    proc = _run(value, "import ccgym._core as c; i = c.exact_math(); print(i['path'], i['lanes'])")
    assert proc.returncode == 0, proc.stderr
    path, got = proc.stdout.split()
    assert path in ("fma", "nofma")
    if lanes is not None and (lanes != "avx2" or _core.fast_isa() in ("avx2", "avx512")):
        assert got == lanes


def test_bad_variable_raises_at_import():
    proc = _run("fast")
    assert proc.returncode != 0
    assert "CCGYM_EXACT_MATH='fast'" in proc.stderr


@pytest.mark.parametrize("kind", _core.exact_lanes_kinds())
@pytest.mark.parametrize("mode", [_core.AUTORESET_NEXT_STEP, _core.AUTORESET_SAME_STEP,
                                  _core.AUTORESET_DISABLED])
def test_lanes_block_step_equals_the_per_instance_step(kind, mode):
    """The exact lanes block (ccgym_env_def.exact_lanes_block, under the block
    driver) against the per-instance libm step, bit for bit: state, obs,
    reward, flags and episode sums over episodes with a time limit, at sizes
    that leave partial blocks and vector tails."""
    from ccgym import _params

    info = _core.env_info(kind)
    rng = np.random.default_rng(7)
    for n in (16, 21, 300, 1000):  # >= CCGYM_EXACT_LANES_MIN: the block path
        runs = []
        for lanes in (True, False):
            prev = _core._exact_math_use_lanes(lanes)
            try:
                b = _core.Batch(kind, n, _params.params(kind), 17, mode, 1)
                b.seed_range(3)
                b.reset()
                out = []
                arng = np.random.default_rng(n)
                for _ in range(60):
                    if info.action_dim == 0:
                        a = arng.integers(0, info.n_actions, size=n)
                    else:
                        a = arng.uniform(-3, 3, size=(n, info.action_dim)).astype(np.float32)
                    r = b.step(a)
                    out.append([np.array(v, copy=True) for v in r
                                if isinstance(v, np.ndarray)])
                    snap = b.get_state()
                    out.append([np.asarray(snap[k]) for k in sorted(snap)
                                if isinstance(snap[k], np.ndarray)])
                runs.append(out)
            finally:
                _core._exact_math_use_lanes(prev)
        assert len(runs[0]) == len(runs[1]) == 120
        for x, y in zip(*runs):
            assert len(x) == len(y) and x
            for u, v in zip(x, y):
                assert u.tobytes() == v.tobytes()
    del rng



_EDGE = np.array([0.0, -0.0, 1e-310, -1e-310, 5e-324, np.pi, -np.pi, 2 * np.pi, 3 * np.pi,
                  1e6, -1e6, 2.0 ** 52, 1e17, -1e17, 1e300, -1e300, np.inf, -np.inf, np.nan,
                  7.5, -7.5, 8.0, -8.0, 1e-200, 2.0 ** -1022, 0.25, -4.0,
                  # where floor(a / b) is one too small (beyond fmod's Dekker range)
                  2.2705145737052024e+18, -2.2775439518658577e+21, 2.1216797144779826e+30])


@pytest.mark.parametrize("kind", _core.exact_lanes_kinds())
@pytest.mark.parametrize("per_instance", [False, True])
def test_lanes_block_edge_states_and_params(kind, per_instance):
    """The lanes block against the per-instance step on the states its lanes
    backend must hand back to the scalar one (beyond fmod's Dekker range,
    squares of zero, subnormal, huge, inf, NaN) or that sit on its selects'
    edges (signed zeros, multiples of pi), each float field in turn, with
    shared and per-instance params (numpy-typed ones among them where the
    env has type tags: the typed step), bit for bit."""
    from ccgym import _params

    info = _core.env_info(kind)
    n = 300
    rng = np.random.default_rng(11)
    base = _params.params(kind)
    par = dict(base)
    if per_instance:
        for k, v in base.items():
            if k.endswith("_t"):  # a type tag: a numpy float32 attribute on every third
                par[k] = np.where(np.arange(n) % 3 == 0, 2.0, v)
            elif isinstance(v, float) and v:
                par[k] = v * rng.uniform(0.5, 1.5, n)
                # a NaN, an inf and a negated value on a few instances (where
                # a fold the compiler may make in lanes changes a NaN's sign)
                par[k][[4, 5, 6]] = [np.nan, np.inf, -v]
    # every float64 state value, a field's array elements each apart
    floats = [(f, j) for f in info.state_dtype.names
              if info.state_dtype[f].base == np.float64
              for j in range(int(np.prod(info.state_dtype[f].shape, dtype=int)))]
    assert floats
    def put_edges(b):
        view = b.state_view(info.state_dtype)
        for j, (f, e) in enumerate(floats):
            col = view[f].reshape(n, -1)[:, e]
            col[j::len(floats)][: len(_EDGE)] = _EDGE[: len(col[j::len(floats)])]

    _assert_lanes_equal_libm(kind, n, par, 0, _core.AUTORESET_NEXT_STEP, seed=5, steps=8,
                             action_seed=3, edit=put_edges, odd_actions=True)


def _assert_lanes_equal_libm(kind, n, params, limit, mode, seed, steps, action_seed,
                             edit=None, odd_actions=False):
    """Steps a Batch of kind with the lanes blocks on and off, the same
    seeds and random actions (odd_actions: every 7th a zero, the next a
    NaN, where continuous), edit(batch) after the reset, and asserts equal
    outputs and states after every step, bit for bit."""
    info = _core.env_info(kind)
    runs = []
    for lanes in (True, False):
        prev = _core._exact_math_use_lanes(lanes)
        try:
            b = _core.Batch(kind, n, params, limit, mode, 1)
            b.seed_range(seed)
            b.reset()
            if edit is not None:
                edit(b)
            out = []
            arng = np.random.default_rng(action_seed)
            for _ in range(steps):
                if info.action_dim == 0:
                    a = arng.integers(0, info.n_actions, size=n)
                else:
                    a = arng.uniform(-3, 3, size=(n, info.action_dim)).astype(np.float32)
                    if odd_actions:
                        a[::7] = 0.0
                        a[1::7] = np.nan
                r = b.step(a)
                out.append([np.array(v, copy=True) for v in r if isinstance(v, np.ndarray)])
                out.append([np.array(b.state_view(info.state_dtype), copy=True)])
            runs.append(out)
        finally:
            _core._exact_math_use_lanes(prev)
    assert len(runs[0]) == len(runs[1]) == 2 * steps
    for x, y in zip(*runs):
        for u, v in zip(x, y):
            assert u.tobytes() == v.tobytes()


def _other_keywords(kind):
    """Each constructor keyword of kind away from Gymnasium's default: a
    switch flipped, a number scaled (a zero one made 0.125)."""
    from ccgym import _params

    info = _core.env_info(kind)
    out = {}
    for key, value in _params.keyword_defaults(kind).items():
        choices = info.switches.get(info.keywords[key])
        if isinstance(value, bool):
            out[key] = not value
        elif isinstance(value, str):
            out[key] = next(c for c in choices if c != value)
        else:
            out[key] = value * 0.75 if value else 0.125
    return out


@pytest.mark.parametrize("kind", _core.exact_lanes_kinds())
@pytest.mark.parametrize("mode", [_core.AUTORESET_NEXT_STEP, _core.AUTORESET_SAME_STEP])
def test_lanes_block_with_every_keyword_changed(kind, mode):
    """The lanes block against the per-instance step with every constructor
    keyword away from its default (Acrobot's torque noise: the block draws
    it as the per-instance step does, and none for an instance awaiting a
    NEXT_STEP reset; its nips switch; CartPole's Sutton-Barto reward; ...),
    over episodes that end, bit for bit."""
    from ccgym import _params

    info = _core.env_info(kind)
    kw = _other_keywords(kind)
    assert kw or not info.keywords
    n = 100
    _assert_lanes_equal_libm(kind, n, _params.params(kind, **kw), 23, mode, seed=9, steps=80,
                             action_seed=4)


# ---- x ** 2 without pow, and numpy's float64 remainder without fmod

def _square_frac(x):
    """|x * x - hi| / ulp(hi) of float64 x (exact: the square's error by Dekker's split)."""
    x = np.asarray(x, dtype=np.float64)
    hi = x * x
    c = 134217729.0 * x
    xh = c - (c - x)
    xl = x - xh
    lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl
    return np.abs(lo) / np.ldexp(1.0, np.frexp(hi)[1] - 53)


def _pow2_inputs():
    rng = np.random.default_rng(7)
    x = np.ldexp(rng.uniform(1.0, 2.0, 400000), rng.integers(-40, 41, 400000))
    with np.errstate(all="ignore"):
        f = _square_frac(x)
    # x * x just under the threshold, just under half an ulp (where pow rounds
    # the other way), exact midpoints, random, specials and the rule's range ends
    j = rng.integers(94906267, 94906267 + 39311471, 300) | 1
    mid = np.ldexp(j.astype(np.float64), rng.integers(-47, -6, 300))
    special = np.array([0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-160,
                        2.0 ** -450, 2.0 ** 450, 1e155, 1.3407807929942596e154, 1e300,
                        1.7976931348623157e308, 1.0, 2.0, 0.5, 0.1, np.sqrt(2.0), np.inf, np.nan])
    with np.errstate(all="ignore"):
        special = np.concatenate([np.nextafter(special, -np.inf), special,
                                  np.nextafter(special, np.inf)])
    xs = np.concatenate([x[(f > 0.45) & (f <= 0.46875)][:3000], x[f > 0.49][:3000],
                         mid, x[:3000], special, np.sqrt(np.ldexp(1.0, np.arange(-900, 901)))])
    return np.concatenate([xs, -xs])


def test_pow2_is_numpy_scalar_power_bit_for_bit():
    x = _pow2_inputs()
    mine = _core.exact_pow2(x)
    with np.errstate(all="ignore"):
        ref = np.array([np.float64(v) ** 2 for v in x])
    same = mine.view(np.int64) == ref.view(np.int64)
    assert np.all(same | (np.isnan(mine) & np.isnan(ref))), x[~same][:5]
    # Python's float ** (CPython: pow; OverflowError past the range)
    fin = np.abs(x) < 1e150
    ref_py = np.array([v ** 2.0 for v in x[fin].tolist()])
    assert np.array_equal(mine[fin].view(np.int64), ref_py.view(np.int64))
    # the probes do reach the cases where pow is not x * x
    if _core.exact_math()["pow2"]:
        with np.errstate(all="ignore"):
            assert np.count_nonzero(ref != x * x) > 10


def test_pow2f_is_numpy_float32_power_bit_for_bit():
    rng = np.random.default_rng(8)
    x = np.ldexp(rng.uniform(1.0, 2.0, 200000), rng.integers(-30, 31, 200000)).astype(np.float32)
    with np.errstate(all="ignore"):
        extra = np.array([0.0, 1e-45, 1e-38, 1e-20, 1e19, 1.8446743e19, 1e20, 3.4e38, 1.0, 2.0,
                          0.1, np.inf, np.nan], dtype=np.float32)
    mid = np.ldexp(np.arange(4097, 5793, 2, dtype=np.float32), -12)
    x = np.concatenate([x, extra, mid])
    x = np.concatenate([x, -x])
    mine = _core.exact_pow2f(x)
    with np.errstate(all="ignore"):
        ref = np.array([np.float32(v) ** 2 for v in x], dtype=np.float32)
    same = mine.view(np.int32) == ref.view(np.int32)
    assert np.all(same | (np.isnan(mine) & np.isnan(ref))), x[~same][:5]
    if _core.exact_math()["pow2f"]:
        with np.errstate(all="ignore"):
            assert np.count_nonzero(ref != x * x) > 10


@pytest.mark.skipif(FORCED == "libm", reason="forced off")
def test_pow2_self_check_accepts_and_refuses_a_broken_rule():
    info = _core.exact_math()
    assert info["pow2"] and info["pow2f"], info
    bad, n = _core._pow2_selfcheck()
    assert bad == 0 and n > 100000
    # a threshold of half an ulp (x * x taken where pow rounds the other way),
    # and the exact square's error term dropped (x * x always): both caught
    for t, drop in ((0.5, False), (0.499, False), (0.46875, True)):
        bad, n = _core._pow2_selfcheck(t, drop)
        assert bad > 0, (t, drop)
    assert _core._pow2f_selfcheck()[0] == 0
    assert _core._pow2f_selfcheck(0.5)[0] > 0
    assert _core._pow2f_selfcheck(0.499)[0] > 0


def test_forced_libm_keeps_pow():
    r = _run("libm", "import ccgym._core as c; i = c.exact_math(); print(i['pow2'], i['pow2f'], i['pow2_reason'])")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:2] == ["False", "False"] and "CCGYM_EXACT_MATH=libm" in r.stdout


def test_remainder_is_numpy_remainder_bit_for_bit():
    b = np.array([2 * np.pi, 1.0, 3.0, -2 * np.pi, -1.0, 0.5, 1e-300, 5e-324, 1e300,
                  1.7976931348623157e308, np.inf, -np.inf, 0.0, -0.0, np.nan])
    rows = []
    for bv in b:
        with np.errstate(all="ignore"):
            base = np.array([0.0, bv, 2 * bv, 3 * bv, bv / 2, 1.5 * bv, 1e-300, 1.0, 7.0, 1e300,
                             np.inf, np.nan], dtype=np.float64)
            base = np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf)])
        a = np.concatenate([base, -base])
        rows.append((a, np.full(a.size, bv)))
    rng = np.random.default_rng(9)
    th = rng.uniform(-12.0, 12.0, 100000)
    rows.append((th + np.pi, np.full(th.size, 2 * np.pi)))
    a = np.concatenate([r[0] for r in rows])
    bb = np.concatenate([r[1] for r in rows])
    mine = _core.exact_remainder(a, bb)
    with np.errstate(all="ignore"):
        ref = np.remainder(a, bb)
        ref_scalar = np.array([np.float64(x) % np.float64(y) for x, y in zip(a[:3000], bb[:3000])])
    both_nan = np.isnan(mine) & np.isnan(ref)
    same = mine.view(np.int64) == ref.view(np.int64)
    assert np.all(same | both_nan), (a[~(same | both_nan)][:5], bb[~(same | both_nan)][:5])
    s = ref_scalar.view(np.int64) == ref[:3000].view(np.int64)
    assert np.all(s | np.isnan(ref_scalar))
