"""Frames of the classic-control envs, drawn in C for one instance or a batch.

The C rasteriser (``src/render.c``) reproduces what Gymnasium's ``render()``
draws with pygame: the same canvas (600x400 for CartPole and both mountain
cars, 500x500 for Pendulum and Acrobot), geometry, colours and final vertical
flip, including the anti-aliased outlines that ``gfxdraw`` puts around shapes
and the hill's anti-aliased polyline. Frames are (H, W, 3) uint8, drawn for
any set of instances of a :class:`ccgym._core.Batch` in one call with the GIL
released (optionally over several threads).

Icons (Pendulum's torque arrow): an env class whose ``_render_icon`` names
one gets :func:`asset_icon`, the Gymnasium asset PNG loaded once from the
installed Gymnasium package (with Pillow, else pygame, else a small built-in
PNG decoder) and area-averaged in numpy, as pygame's ``smoothscale`` does, to
every size the env's scene can ask for. C blits the right size per instance
with pygame's alpha blend, so the icon is the same picture as Gymnasium's,
not a redrawing of it.

Fidelity metric (``frame_agreement``, used by ``tests/test_render.py``
against Gymnasium's own pygame frames for >= 50 random states per env):

* **foreground IoU >= 0.95**: a pixel is foreground when any channel is more
  than 48 below white (255); IoU = |A and B| / |A or B| of the two masks.
  The threshold keeps the faint fringe of anti-aliasing (where the exact
  weights of SDL_gfx's ellipse algorithm are approximated) out of the shapes.
* **close pixels >= 97%**: the fraction of all pixels whose largest channel
  difference is at most 24.

Pixel observations: :class:`PixelObservation` (single env) and
:class:`VectorPixelObservation` (vector env) replace observations by frames
area-averaged in C to ``shape`` (default 84x84), RGB or luminance
(``grayscale=True``, channel-last (h, w, 1), what SB3's ``CnnPolicy`` takes).
:func:`render_observations` draws frames from observation arrays (e.g. SB3's
``terminal_observation``) instead of live states.
"""

from __future__ import annotations

import functools
import os
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ccgym import _core, _registration, _render
from ccgym._kinds import env_kind, of_kind

__all__ = [
    "PixelObservation",
    "VectorPixelObservation",
    "Viewer",
    "canvas_size",
    "frame_agreement",
    "kind_of",
    "render_batch",
    "render_observations",
    "render_pixels",
]



def __getattr__(name: str) -> Any:
    # KINDS: the kinds with a renderer, read when asked for (registered
    # plugins join the table after import).
    if name == "KINDS":
        return _core.ENV_KINDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

PYGAME_HINT = 'pygame is not installed, run `pip install "ccgym[render]"`'

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


# ------------------------------------------------------------ icons

def _gymnasium_asset(name: str) -> str:
    import gymnasium.envs.classic_control as cc

    return os.path.join(os.path.dirname(cc.__file__), "assets", name)


def _decode_png(data: bytes) -> np.ndarray:
    """Decodes an 8-bit, non-interlaced RGB/RGBA PNG (all Gymnasium's asset needs)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if tag == b"IHDR":
            header = body
        elif tag == b"IDAT":
            idat.append(body)
        elif tag == b"IEND":
            break
    if header is None:
        raise ValueError("PNG without IHDR")
    width, height = int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big")
    depth, colour, interlace = header[8], header[9], header[12]
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError("only 8-bit non-interlaced RGB/RGBA PNGs are supported")
    bpp = 4 if colour == 6 else 3
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    raw = raw.reshape(height, 1 + width * bpp)
    out = np.zeros((height, width * bpp), dtype=np.uint8)
    prev = np.zeros(width * bpp, dtype=np.int32)
    for y in range(height):
        ftype, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if ftype == 0:
            cur = line
        elif ftype == 2:
            cur = (line + prev) & 255
        elif ftype in (1, 3, 4):  # these depend on the pixel to the left: per pixel
            cur = np.zeros_like(line)
            for x in range(width * bpp):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                if ftype == 1:
                    pred = a
                elif ftype == 3:
                    pred = (a + b) >> 1
                else:
                    c = prev[x - bpp] if x >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pred) & 255
        else:
            raise ValueError(f"bad PNG filter type {ftype}")
        out[y] = cur
        prev = cur
    img = out.reshape(height, width, bpp)
    if bpp == 3:
        img = np.concatenate([img, np.full((height, width, 1), 255, np.uint8)], axis=2)
    return img


def _load_rgba(path: str) -> np.ndarray:
    try:
        from PIL import Image

        with Image.open(path) as im:
            return np.asarray(im.convert("RGBA"), dtype=np.uint8).copy()
    except ImportError:
        pass
    try:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        surf = pygame.image.load(path)
        rgb = pygame.surfarray.array3d(surf).transpose(1, 0, 2)
        alpha = pygame.surfarray.array_alpha(surf).T[:, :, None]
        return np.ascontiguousarray(np.concatenate([rgb, alpha], axis=2), dtype=np.uint8)
    except ImportError:
        pass
    with open(path, "rb") as f:
        return _decode_png(f.read())


def _area_weights(n_src: int, n_dst: int) -> np.ndarray:
    """(n_dst, n_src) matrix averaging source cells over each destination cell."""
    edges = np.arange(n_dst + 1) * (n_src / n_dst)
    lo, hi = edges[:-1, None], edges[1:, None]
    k = np.arange(n_src)[None, :]
    overlap = np.clip(np.minimum(hi, k + 1) - np.maximum(lo, k), 0, None)
    return overlap / (n_src / n_dst)


def _summed_area(img: np.ndarray) -> np.ndarray:
    sat = np.zeros((img.shape[0] + 1, img.shape[1] + 1, img.shape[2]))
    sat[1:, 1:] = img.astype(np.float64).cumsum(0).cumsum(1)
    return sat


def _area_resize(img: np.ndarray, h: int, w: int, sat: np.ndarray | None = None) -> np.ndarray:
    """pygame's smoothscale when shrinking: an area average of every channel
    (straight alpha, as pygame averages it). Computed from the summed-area
    table, which is exactly bilinear between its integer grid points."""
    if h == 0 or w == 0:
        return np.zeros((h, w, img.shape[2]), dtype=np.uint8)
    H, W, C = img.shape
    if sat is None:
        sat = _summed_area(img)

    def grid(n_src: int, n_dst: int) -> tuple[np.ndarray, np.ndarray]:
        pos = np.arange(n_dst + 1) * (n_src / n_dst)
        i = np.minimum(np.floor(pos).astype(np.intp), n_src - 1)
        return i, pos - i

    iy, fy = grid(H, h)
    ix, fx = grid(W, w)
    fy, fx = fy[:, None, None], fx[None, :, None]
    rows, rows1 = sat[iy], sat[iy + 1]
    top = rows[:, ix] * (1 - fx) + rows[:, ix + 1] * fx
    bottom = rows1[:, ix] * (1 - fx) + rows1[:, ix + 1] * fx
    f = top * (1 - fy) + bottom * fy
    sums = f[1:, 1:] - f[:-1, 1:] - f[1:, :-1] + f[:-1, :-1]
    out = sums / ((H / h) * (W / w))
    return np.clip(out + 1e-6, 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=None)
def asset_icon(name: str, max_size: int) -> _render.Icon | None:
    """Gymnasium's classic-control asset ``name`` (a PNG) area-averaged to
    every square size 0..max_size, as pygame's ``smoothscale`` gives it, for
    an env whose frames blit it at a size of its own (its class's
    ``_render_icon``); None, with a warning, if it cannot be read."""
    try:
        img = _load_rgba(_gymnasium_asset(name))
    except (OSError, ValueError) as e:  # pragma: no cover - asset ships with gymnasium
        gym.logger.warn(f"ccgym: the icon {name} is not drawn ({e})")
        return None
    sat = _summed_area(img)
    return _render.Icon([_area_resize(img, s, s, sat) for s in range(max_size + 1)])


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


# ------------------------------------------------------------ single env

def _import_pygame():
    try:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame
    except ImportError as e:
        raise gym.error.DependencyNotInstalled(PYGAME_HINT) from e
    return pygame


class Viewer:
    """A pygame window that shows frames at ``fps`` (render_mode="human")."""

    def __init__(self, width: int, height: int, fps: float, caption: str = "ccgym") -> None:
        pygame = _import_pygame()
        self._pygame = pygame
        pygame.display.init()
        pygame.display.set_caption(caption)
        self.screen = pygame.display.set_mode((width, height))
        self.clock = pygame.time.Clock()
        self.fps = fps

    def show(self, frame: np.ndarray) -> None:
        """Shows one (H, W, 3) frame and waits to keep ``fps``."""
        pg = self._pygame
        pg.surfarray.blit_array(self.screen, frame.transpose(1, 0, 2))
        pg.event.pump()
        self.clock.tick(self.fps)
        pg.display.flip()

    def close(self) -> None:
        """Closes the window."""
        self._pygame.display.quit()
        self._pygame.quit()


class PixelObservation(gym.ObservationWrapper):
    """Observations of a ccgym single env replaced by its frame, drawn and
    area-averaged to ``shape`` in C: uint8 (h, w, 1) with ``grayscale``
    (default; what SB3's CnnPolicy takes), else (h, w, 3).

    Example::

        env = PixelObservation(gym.make("ccgym/CartPole-v1"), shape=(84, 84))
    """

    def __init__(self, env: gym.Env, shape: tuple[int, int] = (84, 84), grayscale: bool = True,
                 antialias: bool = True) -> None:
        super().__init__(env)
        self._kind = _batch_of(
            env, "PixelObservation needs a ccgym env (gym.make('ccgym/...'))").kind
        self.shape = (int(shape[0]), int(shape[1]))
        self.grayscale = bool(grayscale)
        self.antialias = bool(antialias)
        c = 1 if grayscale else 3
        self.observation_space = spaces.Box(0, 255, (*self.shape, c), dtype=np.uint8)

    def observation(self, observation: Any) -> np.ndarray:
        """The current frame (the float observation is not used)."""
        return render_pixels(self._kind, self.env.unwrapped.batch, None, self.shape,
                             self.grayscale, antialias=self.antialias)[0]


def _batch_of(env: Any, error: str) -> _core.Batch:
    """The C batch of a (wrapped) ccgym env; TypeError ``error`` for another env."""
    batch = getattr(env.unwrapped, "batch", None)
    if not isinstance(batch, _core.Batch):
        raise TypeError(error)
    return batch


class VectorPixelObservation(gym.vector.VectorWrapper):
    """A ccgym :class:`~ccgym.vector.VectorEnv` whose observations are the
    frames of all instances, drawn and resized in one C call: (N, h, w, 1)
    uint8 with ``grayscale`` (default), else (N, h, w, 3). With same-step
    autoreset, ``infos["final_obs"]`` is redrawn from the final observations
    (Pendulum's icon from the last actions)."""

    def __init__(self, env: Any, shape: tuple[int, int] = (84, 84), grayscale: bool = True,
                 antialias: bool = True) -> None:
        super().__init__(env)
        self._kind = _batch_of(env, "VectorPixelObservation needs a ccgym VectorEnv").kind
        self.shape = (int(shape[0]), int(shape[1]))
        self.grayscale = bool(grayscale)
        self.antialias = bool(antialias)
        c = 1 if grayscale else 3
        self.single_observation_space = spaces.Box(0, 255, (*self.shape, c), dtype=np.uint8)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self._actions = None

    def reset(self, *, seed: Any = None, options: dict | None = None):
        """Resets; the observations are the frames."""
        _, infos = self.env.reset(seed=seed, options=options)
        return self.observations(None), infos

    def step(self, actions: Any):
        """Steps; observations (and final observations) as frames."""
        self._actions = actions
        _, rewards, terms, truncs, infos = self.env.step(actions)
        obs = self.observations(None)
        if "final_obs" in infos:
            infos = dict(infos)
            infos["final_obs"] = self._final_frames(infos["final_obs"], infos["_final_obs"])
        return obs, rewards, terms, truncs, infos

    def _final_frames(self, final_obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        idx = np.flatnonzero(mask)
        out = np.full(len(final_obs), None, dtype=object)
        if len(idx):
            obs = np.stack([final_obs[i] for i in idx])
            last_u = None
            if of_kind(self._kind).has_icon and self._actions is not None:
                last_u = np.asarray(self._actions, dtype=np.float32).reshape(-1)[idx]
            params = self.env.unwrapped.batch.params_buffer
            frames = render_observations(self._kind, obs, last_u, self.shape, self.grayscale,
                                         params_buffer=params, antialias=self.antialias)
            for j, i in enumerate(idx):
                out[i] = frames[j]
        return out

    def observations(self, observations: Any) -> np.ndarray:
        """The frames of all instances (the float observations are not used)."""
        batch = self.env.unwrapped.batch
        return render_pixels(self._kind, batch, None, self.shape, self.grayscale,
                             antialias=self.antialias, num_threads=batch.num_threads)
