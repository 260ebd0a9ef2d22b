"""``ccgym record ENV_ID [--model PATH] --out episode.gif``: a video of one
episode, drawn by ccgym's C renderer, with a random policy or a trained
Stable-Baselines3 model (SB3 is imported only when ``--model`` is given).

GIFs are written with Pillow (or imageio); ``.mp4`` needs imageio with the
imageio-ffmpeg plugin. The ``record`` extra brings all three:
``pip install "ccgym[record]"``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, Callable

import gymnasium as gym
import numpy as np

from ccgym import _argtypes
from ccgym._frontend import resolve_env_id
from ccgym._registration import gym_id
from ccgym.rendering import PixelObservation

__all__ = ["add_parser", "check_video_path", "load_sb3_policy", "record_episode", "write_video"]

_SB3_ALGOS = ("PPO", "A2C", "DQN", "SAC", "TD3", "DDPG")


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def check_video_path(path: str) -> str:
    """The video format of ``path`` ("gif" or "mp4"), raising if it cannot be written."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".mp4":
        try:
            import imageio  # noqa: F401
            import imageio_ffmpeg  # noqa: F401
        except ImportError as e:
            raise gym.error.DependencyNotInstalled(
                f"writing .mp4 needs imageio and imageio-ffmpeg ({e.name} is not installed): "
                'pip install "ccgym[record]" (or imageio imageio-ffmpeg), or write a .gif'
            ) from e
        return "mp4"
    if ext != ".gif":
        raise ValueError(f"unsupported video format {ext!r}: use .gif or .mp4")
    # Before the episode is played, not after: a plain `pip install ccgym`
    # has neither writer.
    if not (_importable("PIL.Image") or _importable("imageio.v2")):
        raise gym.error.DependencyNotInstalled(
            'writing a .gif needs Pillow or imageio: pip install "ccgym[record]" (or pillow)')
    return "gif"


def write_video(path: str, frames: list[np.ndarray], fps: float) -> int:
    """Writes (H, W, 3) uint8 frames as a GIF (Pillow or imageio) or, for
    ``.mp4``, through imageio-ffmpeg, and returns the number of frames the
    file holds: Pillow's GIF writer merges identical consecutive frames into
    one that shows for their summed duration (the video plays the same)."""
    if not frames:
        raise ValueError("no frames to write")
    if check_video_path(path) == "mp4":
        import imageio.v2 as imageio

        imageio.mimwrite(path, frames, fps=fps, macro_block_size=1)
        return len(frames)
    duration_ms = int(round(1000 / fps))
    try:
        from PIL import Image

        images = [Image.fromarray(f) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=duration_ms,
                       loop=0)
        with Image.open(path) as written:
            return int(getattr(written, "n_frames", 1))
    except ImportError:
        try:
            import imageio.v2 as imageio
        except ImportError as e:
            raise gym.error.DependencyNotInstalled(
                'writing a .gif needs Pillow or imageio: pip install "ccgym[record]" '
                "(or pillow)"
            ) from e
        imageio.mimsave(path, frames, duration=duration_ms, loop=0)
        return len(imageio.mimread(path))


def _frames_in(path: str, rendered: int) -> int:
    """The number of frames the video at ``path`` holds (a GIF's, read back
    with Pillow where it is installed; else the ``rendered`` count)."""
    if check_video_path(path) == "gif" and _importable("PIL.Image"):
        from PIL import Image

        with Image.open(path) as written:
            return int(getattr(written, "n_frames", 1))
    return rendered


def load_sb3_policy(path: str, algo: str | None = None) -> tuple[Callable, Any]:
    """A policy ``obs -> action`` from an SB3 model file (algorithm ``algo``,
    or the first of PPO, A2C, DQN, SAC, TD3, DDPG that loads it), and the
    model's observation space."""
    try:
        import stable_baselines3 as sb3
    except ImportError as e:
        raise gym.error.DependencyNotInstalled(
            'loading a model needs Stable-Baselines3: pip install "ccgym[sb3]"'
        ) from e
    errors = []
    for name in ([algo] if algo else _SB3_ALGOS):
        cls = getattr(sb3, name, None)
        if cls is None:
            raise ValueError(f"stable_baselines3 has no algorithm {name!r}")
        try:
            model = cls.load(path, device="cpu")
        except Exception as e:  # wrong algorithm for this file: try the next
            errors.append(f"{name}: {e}")
            continue

        def policy(obs: Any, model: Any = model) -> Any:
            action, _ = model.predict(obs, deterministic=True)
            return action

        return policy, model.observation_space
    raise ValueError(f"could not load {path!r} as an SB3 model: " + "; ".join(errors))


def _make_env(env_id: str, obs_space: Any, seed: int) -> tuple[gym.Env, Callable]:
    """The recorded env; if the model sees images, its observations are
    ccgym's pixel observations in the model's layout."""
    env = gym.make(gym_id(resolve_env_id(env_id)), render_mode="rgb_array")
    adapt: Callable = lambda obs: obs  # noqa: E731
    shape = getattr(obs_space, "shape", None)
    if shape is not None and len(shape) == 3:
        channel_first = shape[0] in (1, 3) and shape[-1] not in (1, 3)
        h, w, c = (shape[1], shape[2], shape[0]) if channel_first else shape
        env = PixelObservation(env, shape=(h, w), grayscale=c == 1)
        if channel_first:
            adapt = lambda obs: np.transpose(obs, (2, 0, 1))  # noqa: E731
    env.action_space.seed(seed)
    return env, adapt


def record_episode(env_id: str, out: str, policy: Callable | None = None, *, seed: int = 0,
                   max_steps: int | None = None, fps: float | None = None,
                   obs_space: Any = None) -> int:
    """Plays one episode of ``env_id`` (seeded ``seed``) with ``policy``
    (``obs -> action``; None: random actions) and writes its frames to
    ``out``. Returns the number of frames rendered (a GIF may hold fewer:
    see :func:`write_video`)."""
    check_video_path(out)
    env, adapt = _make_env(env_id, obs_space, seed)
    obs, _ = env.reset(seed=seed)
    frames = [env.render()]
    steps = 0
    while max_steps is None or steps < max_steps:
        action = env.action_space.sample() if policy is None else policy(adapt(obs))
        obs, _, terminated, truncated, _ = env.step(action)
        frames.append(env.render())
        steps += 1
        if terminated or truncated:
            break
    write_video(out, frames, fps or env.metadata["render_fps"])
    env.close()
    return len(frames)


def _record(args: argparse.Namespace) -> int:
    policy, obs_space = (None, None)
    try:
        check_video_path(args.out)
        if args.model:
            policy, obs_space = load_sb3_policy(args.model, args.algo)
        n = record_episode(args.env_id, args.out, policy, seed=args.seed,
                           max_steps=args.max_steps, fps=args.fps, obs_space=obs_space)
    except (gym.error.Error, ValueError, OSError) as e:
        print(f"ccgym record: {e}", file=sys.stderr)
        return 2
    who = f"model {args.model}" if args.model else "random policy"
    held = _frames_in(args.out, n)
    merged = "" if held == n else (f" ({n} rendered: the GIF merges identical consecutive "
                                  "frames, showing each for their summed time)")
    print(f"wrote {args.out}: {held} frames of {args.env_id} ({who}){merged}")
    return 0


def add_parser(sub: Any) -> None:
    """Adds the ``record`` subcommand to the ``ccgym`` command line."""
    p = sub.add_parser(
        "record", help="write a video of one episode (random policy or SB3 model)",
        description="Plays one episode with random actions or a Stable-Baselines3 model "
                    "and writes the frames ccgym's C renderer draws as a .gif (Pillow) "
                    "or .mp4 (imageio-ffmpeg; the record extra brings both). See docs/rendering.md.")
    p.add_argument("env_id", help="e.g. CartPole-v1 or ccgym/Pendulum-v1")
    p.add_argument("--model", help="a Stable-Baselines3 model .zip (default: random actions)")
    p.add_argument("--algo", help="the model's SB3 algorithm (default: try PPO, A2C, DQN, ...)")
    p.add_argument("--out", default="episode.gif",
                   help='output .gif or .mp4 (default: %(default)s; .mp4 needs the record '
                        'extra: pip install "ccgym[record]")')
    p.add_argument("--seed", type=_argtypes.non_negative, default=0,
                   help="seed of the episode's reset and of the random actions "
                        "(default: %(default)s)")
    p.add_argument("--max-steps", type=_argtypes.positive, default=None,
                   help="stop after this many steps (default: the episode's end)")
    p.add_argument("--fps", type=_argtypes.float_type(0.0), default=None,
                   help="frames per second (default: the env's render_fps)")
    p.set_defaults(func=_record)
