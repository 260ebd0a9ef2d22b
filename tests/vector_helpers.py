"""Helpers shared by the vector-env test modules: bit-exact comparison of
step/reset results against Gymnasium's, and Gymnasium's CartPole-v0 warning."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest


def deprecation_ctx(env_id: str):
    """Gymnasium warns that CartPole-v0 is out of date (and so for ccgym/CartPole-v0);
    the suite turns warnings into errors, so expect it where it is due."""
    if env_id.endswith("CartPole-v0"):
        return pytest.warns(DeprecationWarning, match="out of date")
    return contextlib.nullcontext()


def bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.tobytes()


def assert_same(ours, ref, where=""):
    """Recursive bit-exact equality (arrays: type, dtype, shape and bytes)."""
    if isinstance(ref, dict):
        assert isinstance(ours, dict), f"{where}: {type(ours)} is not a dict"
        assert ours.keys() == ref.keys(), f"{where}: keys {sorted(ours)} != {sorted(ref)}"
        for k in ref:
            assert_same(ours[k], ref[k], f"{where}[{k!r}]")
    elif isinstance(ref, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{where}: {type(ours)} is not an ndarray"
        assert ours.dtype == ref.dtype, f"{where}: dtype {ours.dtype} != {ref.dtype}"
        assert ours.shape == ref.shape, f"{where}: shape {ours.shape} != {ref.shape}"
        if ref.dtype == object:
            assert ours.dtype == object and ours.shape == ref.shape, where
            _assert_same_objects(ours.ravel(), ref.ravel(), where)
        elif ours.tobytes() != ref.tobytes():
            a = ours.view(np.uint8).reshape(ours.shape[0], -1) if ours.ndim else ours
            b = ref.view(np.uint8).reshape(ref.shape[0], -1) if ref.ndim else ref
            bad = np.flatnonzero((a != b).reshape(len(a), -1).any(axis=1))
            raise AssertionError(
                f"{where}: bits differ at instances {bad[:10].tolist()}: "
                f"ours {ours[bad[:3]]!r} vs gymnasium {ref[bad[:3]]!r}")
    elif ref is None:
        assert ours is None, f"{where}: {ours!r} is not None"
    else:
        assert type(ours) is type(ref) and ours == ref, f"{where}: {ours!r} != {ref!r}"


def _assert_same_objects(ours, ref, where):
    """Object arrays (final_obs): None in the same places, the arrays bit-exact;
    vectorised when every entry is an array of one dtype and shape (N=20000)."""
    arrays_o = [x for x in ours if x is not None]
    arrays_r = [x for x in ref if x is not None]
    same_none = [x is None for x in ours] == [x is None for x in ref]
    kinds = {(type(x), getattr(x, "dtype", None), getattr(x, "shape", None))
             for x in arrays_o + arrays_r}
    if same_none and len(kinds) == 1 and next(iter(kinds))[0] is np.ndarray:
        if np.stack(arrays_o).tobytes() == np.stack(arrays_r).tobytes():
            return
    for i, (a, b) in enumerate(zip(ours, ref)):
        assert_same(a, b, f"{where}[{i}]")
