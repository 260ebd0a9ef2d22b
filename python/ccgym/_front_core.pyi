"""Type stub of the front ends' layer over the core (python/ccgym/_front_core.pyx):
the vector envs' and the single env's rules as subclasses of
ccgym._core.Batch. Checked against the built module by mypy's stubtest
(tests/test_meta.py)."""

from typing import Any, Callable

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ccgym._core import Batch

# vector_step's: the step's (obs, reward, terminated, truncated) and the infos.
_VectorStepResult = tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    dict[str, Any],
]

@disjoint_base
class FrontBatch(Batch):
    """A Batch with the rules Gymnasium's vector envs keep."""

    reset_needed_error: type[BaseException]
    done_step_error: type[BaseException]
    integer_operand: str | None
    def vector_step(self, actions: npt.ArrayLike) -> _VectorStepResult: ...
    def vector_step_then(
        self, on_done: Callable[[dict[str, Any]], None] | None, actions: npt.ArrayLike
    ) -> _VectorStepResult: ...

@disjoint_base
class SingleBatch(FrontBatch):
    """One env instance as Gymnasium's single env is."""

    uint64_actions: bool
    @property
    def asserts_contains(self) -> bool: ...
    @property
    def obs_is_state(self) -> bool: ...
    @property
    def obs_state_reader(self) -> Callable[[Any], dict[str, Any]] | None: ...
    @obs_state_reader.setter
    def obs_state_reader(self, reader: Callable[[Any], dict[str, Any]] | None) -> None: ...
    @property
    def live_obs(self) -> npt.NDArray[np.float32] | None: ...
    @live_obs.setter
    def live_obs(self, value: None) -> None: ...
    def sync_live_obs(self) -> None: ...
    def follow(self, attr: str, lst: list[Any] | None, now: bool = False) -> None: ...
    def check_follow(self) -> None: ...
    def reset1(
        self, seed: int | None, a: float | None = None, b: float | None = None
    ) -> npt.NDArray[np.float32]: ...
    def step1(
        self, action: Any
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]: ...
