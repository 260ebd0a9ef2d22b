"""Array helpers shared by the tests."""

from __future__ import annotations

import warnings

import numpy as np


def set_shape(arr: np.ndarray, shape) -> None:
    """``arr.shape = shape``, the in-place reshape a user can still do to an
    array ccgym handed out: numpy 2.5 deprecates it (a DeprecationWarning,
    which the suite turns into an error), but it still works, so the tests
    that prove it harmless keep doing it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        arr.shape = shape


def set_dtype(arr: np.ndarray, dtype) -> None:
    """``arr.dtype = dtype``, the in-place reinterpretation numpy 2.5
    deprecates as it deprecates setting the shape (see set_shape): the tests
    that prove a reinterpreted output harmless keep doing it to the very
    object ccgym handed out."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        arr.dtype = dtype
