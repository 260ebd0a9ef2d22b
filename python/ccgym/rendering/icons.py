"""Gymnasium's classic-control assets as ``_render.Icon`` objects: the PNG
loaded once from the installed Gymnasium (with Pillow, else pygame, else a
small built-in decoder) and area-averaged in numpy, as pygame's
``smoothscale`` does, to every size an env's scene can ask for. Imports no
other ccgym layer but the renderer."""

from __future__ import annotations

import functools
import os
import zlib

import gymnasium as gym
import numpy as np

from ccgym import _render

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


