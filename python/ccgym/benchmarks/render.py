"""``ccgym render-bench``: frames per second of ccgym's C renderer beside
Gymnasium's pygame ``render()``, and sample frames to look at."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ccgym import _registration
from ccgym._registration import gym_id
from ccgym.rendering import canvas_size, kind_of, render_batch, render_pixels
from ccgym.vector import make_vec


def bench_render(env_ids: Sequence[str] | None = None, batch: int = 256, seconds: float = 1.0,
                 num_threads: int = 1, pixel_shape: tuple[int, int] = (84, 84),
                 out: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Frames per second, per id, of Gymnasium's pygame ``rgb_array`` render
    (one env), ccgym's single env ``render()``, one ``render_batch`` call of
    `batch` instances, and `batch` grayscale pixel observations of
    `pixel_shape`. Prints a table through `out` and returns its rows
    (``gymnasium`` is None without pygame)."""
    import gymnasium as gym

    def rate(fn: Callable[[], Any], frames_per_call: int) -> float:
        fn()
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            dt = time.perf_counter() - t0
            if dt >= seconds:
                return n * frames_per_call / dt

    h, w = pixel_shape
    cols = ("gymnasium", "ccgym single", f"ccgym batch x{batch}",
            f"pixels {h}x{w} gray x{batch}", "ccgym single / gymnasium")
    # Gymnasium's rgb_array render needs no display; without a dummy video
    # driver SDL complains on headless machines.
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    out(f"frames/s, {num_threads} thread(s); the ratio compares the one-env renders")
    out(f"{'env':26s}" + "".join(f"{c:>{max(12, len(c)) + 2}s}" for c in cols))
    rows = []
    for env_id in env_ids or _registration.ENV_IDS:
        kind = kind_of(env_id)
        gym_fps = None
        try:
            if env_id in gym.registry:  # Gymnasium's own env of the id, where it has one
                ref = gym.make(env_id, render_mode="rgb_array")
                ref.reset(seed=0)
                gym_fps = rate(ref.render, 1)
                ref.close()
        except gym.error.DependencyNotInstalled:
            pass
        single = gym.make(gym_id(env_id), render_mode="rgb_array")
        single.reset(seed=0)
        if single.unwrapped._render_icon:  # an action, so that the icon is drawn
            single.step(np.ones(single.action_space.shape, dtype=single.action_space.dtype))
        one_fps = rate(single.render, 1)
        single.close()
        venv = make_vec(env_id, num_envs=batch, render_mode="rgb_array",
                              num_threads=num_threads)
        venv.reset(seed=0)
        venv.step(venv.action_space.sample())
        frames = np.empty((batch, *canvas_size(kind), 3), dtype=np.uint8)
        core = venv.unwrapped.batch
        batch_fps = rate(lambda: render_batch(kind, core, None, frames,
                                              num_threads=num_threads), batch)
        pix = np.empty((batch, *pixel_shape, 1), dtype=np.uint8)
        pix_fps = rate(lambda: render_pixels(kind, core, None, pixel_shape, True, pix,
                                             num_threads=num_threads), batch)
        venv.close()
        row = {"env": env_id, "gymnasium": gym_fps, "single": one_fps, "batch": batch_fps,
               "pixels": pix_fps}
        rows.append(row)
        cells = ["-" if gym_fps is None else f"{gym_fps:.0f}", f"{one_fps:.0f}",
                 f"{batch_fps:.0f}", f"{pix_fps:.0f}",
                 "-" if gym_fps is None else f"{one_fps / gym_fps:.2f}x"]
        out(f"{env_id:26s}" + "".join(f"{c:>{max(12, len(k)) + 2}s}" for c, k in zip(cells, cols)))
    if any(r["gymnasium"] is None for r in rows):
        out('gymnasium: not measured, pygame is not installed (pip install "ccgym[render]")')
    return rows


def save_samples(directory: str, seed: int = 3, steps: int = 20) -> list[str]:
    """Writes one PNG per env (after ``steps`` random steps from ``seed``)
    into ``directory`` (needs Pillow or imageio)."""
    import gymnasium as gym

    os.makedirs(directory, exist_ok=True)
    paths = []
    for env_id in _registration.ENV_IDS:
        env = gym.make(gym_id(env_id), render_mode="rgb_array")
        env.reset(seed=seed)
        env.action_space.seed(seed)
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
        path = os.path.join(directory, f"{env_id}.png")
        _write_image(path, env.render())
        env.close()
        paths.append(path)
    return paths


def _write_image(path: str, frame: np.ndarray) -> None:
    try:
        from PIL import Image

        Image.fromarray(frame).save(path)
    except ImportError:
        import imageio.v2 as imageio

        imageio.imwrite(path, frame)
