"""One single env used from two threads at once: every call either runs or
raises the documented RuntimeError (the core's guard); never a bare
KeyError from the Python bookkeeping around the handed-out state."""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import pytest

import ccgym
from thread_helpers import run_threads


def _hammer(env, workers, seconds=1.5):
    errors: list[BaseException] = []
    stop = time.monotonic() + seconds

    def run(work):
        while time.monotonic() < stop and not errors:
            try:
                work()
            except RuntimeError:
                pass  # the documented refusal of a concurrent call
            except BaseException as e:  # noqa: BLE001 - anything else is the bug
                errors.append(e)

    # Switching threads often: the races show in a second.
    run_threads(lambda k: run(workers[k]), len(workers), 1e-6)
    return errors


@pytest.mark.filterwarnings("ignore:.*already returned terminated = True")
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Acrobot-v1"])
def test_step_state_writes_and_snapshots_from_two_threads(env_id):
    env = gym.make(f"ccgym/{env_id}").unwrapped
    env.reset(seed=0)
    n = len(env.state)
    snap = env.get_state()

    def stepper():
        env.step(0)
        env.state  # hands out a state the other thread's write replaces

    def writer():
        env.state = np.zeros(n)
        s = env.state
        s[0] = 0.01  # an in-place edit: the next step writes it back first

    def snapshotter():
        env.set_state(env.get_state())

    def restorer():
        env.set_state(snap)
        env.state = list(np.zeros(n))
        env.reset()

    errors = _hammer(env, [stepper, writer, snapshotter, restorer])
    assert not errors, repr(errors[0])
    # Still a working env afterwards.
    env.reset(seed=1)
    env.step(0)
