"""SB3's Monitor logs round(sum(rewards), 6), and Python 3.12 made sum() of
floats compensated: ccgym.sb3's monitor keeps its returns with
``_frontend.EpisodeSums``, which must give exactly what this Python's sum()
gives (sequential before 3.12, Neumaier from 3.12). No SB3 needed: this runs
in the release leg on the oldest and newest Python too."""

from __future__ import annotations

import numpy as np
import pytest

from ccgym._frontend import EpisodeSums


def _episodes(rng, kind):
    n = 64
    if kind == "pendulum":  # -costs: magnitudes 0..16.3, many digits
        return -rng.uniform(0.0, 16.2736044, size=(200, n))
    if kind == "mixed":  # large and tiny together, where compensation matters
        big = rng.choice([1e16, -1e16, 1.0, -1.0, 1e-16], size=(50, n))
        return big * rng.uniform(0.5, 1.5, size=(50, n))
    if kind == "mountain_car_continuous":  # -0.1 * a**2 plus a final +100
        r = -0.1 * rng.uniform(-1, 1, size=(300, n)) ** 2
        r[-1] += 100.0
        return r
    return np.where(rng.random((100, n)) < 0.5, -0.0, 0.0)  # signed zeros


@pytest.mark.parametrize("kind", ["pendulum", "mixed", "mountain_car_continuous", "zeros"])
def test_episode_sums_equal_builtin_sum(kind):
    rng = np.random.default_rng(3)
    rewards = _episodes(rng, kind)
    sums = EpisodeSums(rewards.shape[1])
    for step in rewards:
        sums.add(step)
    for i in range(rewards.shape[1]):
        want = sum(float(r) for r in rewards[:, i])
        got = sums.total(i)
        assert got == want or (np.isnan(got) and np.isnan(want)), (i, got, want)
        assert np.signbit(got) == np.signbit(want)


def test_clear_starts_new_episodes():
    rng = np.random.default_rng(5)
    sums = EpisodeSums(3)
    first = rng.uniform(-2, 2, size=(10, 3))
    for step in first:
        sums.add(step)
    sums.clear(np.array([True, False, True]))
    second = rng.uniform(-2, 2, size=(7, 3))
    for step in second:
        sums.add(step)
    assert sums.total(0) == sum(float(r) for r in second[:, 0])
    assert sums.total(1) == sum(float(r) for r in np.concatenate([first, second])[:, 1])
