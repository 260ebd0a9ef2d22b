"""Frames drawn in C from a batch's states, raw state bytes or observations,
for any set of instances in one call (the GIL released, optionally over
threads): each kind's facts (icon, state layout, default params) come from
the descriptor layer (ccgym._kinds)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ccgym import _core, _registration, _render
from ccgym._kinds import env_kind, of_kind

# Foreground and colour tolerances of the fidelity metric (see module docstring).
FOREGROUND_THRESHOLD = 48
COLOUR_TOLERANCE = 24


def kind_of(kind_or_id: str) -> str:
    """The renderer kind ("CartPole", ...) of a kind name or an env id
    ("CartPole-v1", "ccgym/CartPole-v1")."""
    if kind_or_id in _core.ENV_KINDS:
        return kind_or_id
    try:
        return env_kind(kind_or_id)
    except gym.error.Error:
        raise ValueError(
            f"no renderer for {kind_or_id!r}; expected one of {_core.ENV_KINDS} or {tuple(_registration.ENV_SPECS)}"
        ) from None


def canvas_size(kind: str) -> tuple[int, int]:
    """(height, width) of a kind's full frame, as Gymnasium's screen."""
    return _render.canvas_size(kind_of(kind))


def _icon(kind: str) -> _render.Icon | None:
    """The icon a kind's frames draw (None for most)."""
    return of_kind(kind).icon


# ------------------------------------------------------------ batch rendering

def _buffers(kind: str, source: Any, params_buffer: np.ndarray | None):
    if hasattr(source, "state_buffer"):  # a _core.Batch
        if source.kind != kind:
            raise ValueError(f"batch holds {source.kind}, not {kind}")
        return source.state_buffer, (source.params_buffer if params_buffer is None
                                     else params_buffer)
    if params_buffer is None:
        params_buffer = of_kind(kind).default_params
    return source, params_buffer


def _count(kind: str, state_buffer: np.ndarray, indices: Any) -> tuple[np.ndarray | None, int]:
    if indices is None:
        return None, len(state_buffer) // _render.state_size(kind)
    idx = np.atleast_1d(np.asarray(indices))
    if idx.dtype == np.bool_:
        idx = np.flatnonzero(idx)
    if idx.size == 0:
        idx = idx.astype(np.int64)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers or a boolean mask, got {idx.dtype}")
    return idx.astype(np.int64), len(idx)


def render_batch(kind: str, source: Any, indices: Any = None, out: np.ndarray | None = None, *,
                 params_buffer: np.ndarray | None = None, antialias: bool = True,
                 num_threads: int = 1) -> np.ndarray:
    """Full frames of instances of a batch, drawn by C in one call.

    Args:
        kind: renderer kind or env id ("CartPole", "ccgym/Pendulum-v1", ...).
        source: a :class:`ccgym._core.Batch`, or the raw ``state_buffer``
            bytes of one (then ``params_buffer`` defaults to Gymnasium's
            parameters).
        indices: instances to draw (ints or a boolean mask); None: all.
        out: optional (k, H, W, 3) uint8 C-contiguous array to draw into.
        antialias: draw the anti-aliased outlines Gymnasium draws.
        num_threads: split the batch over this many threads.

    Returns:
        (k, H, W, 3) uint8 frames (``out`` if given).
    """
    kind = kind_of(kind)
    states, params = _buffers(kind, source, params_buffer)
    idx, k = _count(kind, states, indices)
    h, w = _render.canvas_size(kind)
    if out is None:
        out = np.empty((k, h, w, 3), dtype=np.uint8)
    elif out.shape != (k, h, w, 3):
        raise ValueError(f"out has shape {out.shape}; expected {(k, h, w, 3)}")
    return _render.render(kind, states, params, idx, out, antialias, _icon(kind),
                          num_threads)


def render_pixels(kind: str, source: Any, indices: Any = None,
                  shape: tuple[int, int] = (84, 84), grayscale: bool = False,
                  out: np.ndarray | None = None, *, params_buffer: np.ndarray | None = None,
                  antialias: bool = True, num_threads: int = 1) -> np.ndarray:
    """Frames area-averaged to ``shape`` (h, w): (k, h, w, 3) uint8, or
    (k, h, w, 1) luminance with ``grayscale``; drawn and resized by C in one
    call. Other arguments as :func:`render_batch`."""
    kind = kind_of(kind)
    states, params = _buffers(kind, source, params_buffer)
    idx, k = _count(kind, states, indices)
    h, w = (int(v) for v in shape)
    if h < 1 or w < 1:
        raise ValueError(f"shape must be positive, got {shape}")
    c = 1 if grayscale else 3
    if out is None:
        out = np.empty((k, h, w, c), dtype=np.uint8)
    elif out.shape != (k, h, w, c):
        raise ValueError(f"out has shape {out.shape}; expected {(k, h, w, c)}")
    return _render.render(kind, states, params, idx, out, antialias, _icon(kind),
                          num_threads)


def states_from_observations(kind: str, obs: np.ndarray, last_u: Any = None) -> np.ndarray:
    """C state bytes (a ``state_buffer``) that draw as observations ``obs``
    (n, obs_dim) do: angles come back through atan2 (each env class's
    ``_states_from_observations``). Pendulum's icon needs ``last_u`` (the
    clipped torques, (n,)); without it none is drawn."""
    kind = kind_of(kind)
    obs = np.asarray(obs, dtype=np.float64)
    if obs.ndim == 1:
        obs = obs[None]
    desc = of_kind(kind)
    st = np.zeros(len(obs), dtype=desc.state_dtype)
    desc.states_from_observations(st, obs, last_u)
    return st.view(np.uint8).reshape(-1)


def render_observations(kind: str, obs: np.ndarray, last_u: Any = None,
                        shape: tuple[int, int] | None = None, grayscale: bool = False,
                        **kwargs: Any) -> np.ndarray:
    """Frames of observations rather than live states (e.g. SB3's
    ``terminal_observation``, or a final observation after a same-step
    autoreset): full frames, or resized as :func:`render_pixels` when
    ``shape`` is given. Default physical parameters unless ``params_buffer``."""
    states = states_from_observations(kind, obs, last_u)
    if shape is None and not grayscale:
        return render_batch(kind, states, **kwargs)
    return render_pixels(kind, states, shape=shape or canvas_size(kind), grayscale=grayscale,
                         **kwargs)


# ------------------------------------------------------------ fidelity metric

def frame_agreement(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """How closely two (H, W, 3) frames agree: ``iou`` of their foregrounds
    (pixels darker than white by more than FOREGROUND_THRESHOLD in some
    channel) and ``close``, the fraction of pixels whose largest channel
    difference is at most COLOUR_TOLERANCE."""
    if a.shape != b.shape:
        raise ValueError(f"frames differ in shape: {a.shape} vs {b.shape}")
    fa = (a < 255 - FOREGROUND_THRESHOLD).any(axis=-1)
    fb = (b < 255 - FOREGROUND_THRESHOLD).any(axis=-1)
    union = np.logical_or(fa, fb).sum()
    iou = 1.0 if union == 0 else float(np.logical_and(fa, fb).sum() / union)
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=-1)
    return {"iou": iou, "close": float((diff <= COLOUR_TOLERANCE).mean())}


