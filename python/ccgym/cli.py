"""The ``ccgym`` command line: ``ccgym bench``, ``ccgym render-bench``, ``ccgym train``,
``ccgym demo``, ``ccgym record``."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from typing import Any, NoReturn

from ccgym import _argtypes, _registration, record, train
from ccgym._registration import gym_id
from ccgym._version import __version__
from ccgym.benchmarks import cli as bench_cli
from ccgym.vector import make_vec


def _demo(args: argparse.Namespace) -> int:
    import gymnasium as gym
    import numpy as np

    print(f"ccgym {__version__}: random actions, {args.steps} steps per env")
    for env_id in _registration.ENV_IDS:
        envs = make_vec(env_id, num_envs=args.num_envs)
        envs.reset(seed=0)
        envs.action_space.seed(0)
        actions = [envs.action_space.sample() for _ in range(16)]
        t0 = time.perf_counter()
        for k in range(args.steps):
            envs.step(actions[k % 16])
        dt = time.perf_counter() - t0
        envs.close()
        with warnings.catch_warnings():  # CartPole-v0's "out of date" notice: not news here
            warnings.simplefilter("ignore", DeprecationWarning)
            single = gym.make(gym_id(env_id))
        obs, _ = single.reset(seed=0)
        print(f"  {env_id:26s} {args.num_envs * args.steps / dt / 1e6:8.2f} M env-steps/s "
              f"(N={args.num_envs}); first obs {np.array2string(obs, precision=4)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


class _Parser(argparse.ArgumentParser):
    """argparse reports a subcommand's unknown option with the top-level
    usage (``ccgym bench --idz``); this parser hands it to the subcommand's
    parser, whose usage is the one that helps."""

    _command: str | None = None

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extra = super().parse_known_args(args, namespace)
        self._command = getattr(parsed, "command", None)
        return parsed, extra

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments") and self._command:
            for action in self._actions:
                if isinstance(action, argparse._SubParsersAction):
                    action.choices[self._command].error(message)
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """The ``ccgym`` parser with every subcommand; its numeric options refuse
    impossible values (ccgym._argtypes): a usage error, exit status 2."""
    parser = _Parser(
        prog="ccgym",
        description="ccgym: Gymnasium's classic-control environments as C kernels that step N "
                    "instances in one call, bit-exact with Gymnasium. ccgym COMMAND --help "
                    "gives each command's options.",
        epilog="Documentation: docs/getting-started.md (the command line) and the other pages "
               "of docs/ in the source tree.")
    parser.add_argument("--version", action="version", version=f"ccgym {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser(
        "demo", help="step every env with random actions (a quick check of the install)",
        description="Steps a vector env of every id with random actions, prints its "
                    "env-steps/s and a single env's first observation: a check that the "
                    "install works and a first number, not a benchmark (nothing beside it to "
                    "compare: see ccgym bench).")
    demo.add_argument("--num-envs", type=_argtypes.num_envs, default=1024,
                      help="instances per vector env (default: %(default)s)")
    demo.add_argument("--steps", type=_argtypes.positive, default=1000,
                      help="vector steps per env (default: %(default)s)")
    demo.set_defaults(func=_demo)

    bench_cli.add_parser(sub)
    bench_cli.add_render_parser(sub)
    train.add_parser(sub)
    record.add_parser(sub)
    return parser


if __name__ == "__main__":
    sys.exit(main())
