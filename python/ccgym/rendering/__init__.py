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

from typing import Any

from ccgym import _core
from ccgym.rendering.draw import (
    COLOUR_TOLERANCE,
    FOREGROUND_THRESHOLD,
    canvas_size,
    frame_agreement,
    kind_of,
    render_batch,
    render_observations,
    render_pixels,
    states_from_observations,
)
from ccgym.rendering.icons import asset_icon
from ccgym.rendering.viewer import PYGAME_HINT, Viewer
from ccgym.rendering.wrappers import PixelObservation, VectorPixelObservation

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
