"""argparse types for the ``ccgym`` command line's numeric options.

Each type refuses a value no run can use (a negative step count, zero
instances, an instance count no machine holds) with
``argparse.ArgumentTypeError``, so argparse ends the command with its
one-line usage error and exit status 2 before anything runs. Package-internal.
"""

from __future__ import annotations

import argparse
import math
from typing import Callable

#: The most instances a command-line option takes (about 10 GB of CartPole
#: state and outputs): beyond it a run fails on memory, not on arguments.
MAX_NUM_ENVS = 100_000_000
#: The most threads an option takes (the C thread pool uses at most 64).
MAX_THREADS = 1024
#: The largest step, episode or seed count an option takes (an int64).
MAX_COUNT = 2**63 - 1


def _parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def int_type(minimum: int, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """An int in [minimum, maximum]."""

    def parse(text: str) -> int:
        value = _parse_int(text)
        if value < minimum or value > maximum:
            want = (f"an integer >= {minimum}" if maximum == MAX_COUNT
                    else f"an integer from {minimum:,} to {maximum:,}")
            raise argparse.ArgumentTypeError(f"expected {want}, got {text}")
        return value

    parse.__name__ = "int"  # argparse names the type in some messages
    return parse


def float_type(minimum: float = 0.0, inclusive: bool = False) -> Callable[[str], float]:
    """A finite float above ``minimum`` (at or above it when ``inclusive``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < minimum or (value == minimum and not inclusive):
            bound = f"at least {minimum:g}" if inclusive else f"above {minimum:g}"
            raise argparse.ArgumentTypeError(f"expected a finite number {bound}, got {text}")
        return value

    parse.__name__ = "float"
    return parse


def int_list_type(minimum: int = 1, maximum: int = MAX_NUM_ENVS) -> Callable[[str], list[int]]:
    """Comma-separated ints, each in [minimum, maximum]."""

    def parse(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected integers separated by commas: {text!r}") from None
        if not values:
            raise argparse.ArgumentTypeError(f"expected positive integers: {text!r}")
        if any(v < minimum or v > maximum for v in values):
            raise argparse.ArgumentTypeError(
                f"expected integers from {minimum:,} to {maximum:,}: {text!r}")
        return values

    parse.__name__ = "int list"
    return parse


num_envs = int_type(1, MAX_NUM_ENVS)
threads = int_type(1, MAX_THREADS)
positive = int_type(1)
non_negative = int_type(0)
