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
    assert set(info) == {"path", "lanes", "reason", "table_lo_fixups", "kernels"}
    assert info["path"] in ("libm", "nofma", "fma")
    assert info["lanes"] in ("libm", "scalar", "avx2", "avx512")
    assert (info["lanes"] == "libm") == (info["path"] == "libm")
    assert info["reason"]
    if FORCED == "libm":
        assert info["path"] == "libm" and "CCGYM_EXACT_MATH=libm" in info["reason"]


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
