"""Bench-only reference ceiling (src/ceiling.c); see ccgym.bench."""

import numpy as np

ENV_KINDS: tuple[str, ...]

def state_dim(kind: str) -> int: ...
def obs_dim(kind: str) -> int: ...
def action_dtype(kind: str) -> np.dtype: ...

class Run:
    kind: str
    num_envs: int
    state: np.ndarray
    obs: np.ndarray
    reward: np.ndarray
    terminated: np.ndarray
    rng_state: np.ndarray | None
    def __init__(self, kind: str, state: np.ndarray, seed: int | None = None) -> None: ...
    def run(self, actions: np.ndarray, steps: int, num_threads: int = 1,
            cpu_clock: bool = False) -> float: ...
