"""Type stub of the compiled renderer (python/ccgym/_render.pyx)."""

from typing import Sequence

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

# Read from ccgym._core when asked for (module __getattr__), so that
# registered plugins are among them.
ENV_KINDS: tuple[str, ...]
KINDS: tuple[str, ...]

def canvas_size(kind: str) -> tuple[int, int]: ...
def state_size(kind: str) -> int: ...

@disjoint_base
class Icon:
    """Pendulum's torque icon at every square size 0..max_size."""

    rgba: npt.NDArray[np.uint8]
    offsets: npt.NDArray[np.uintp]
    max_size: int
    def __init__(self, images: Sequence[npt.NDArray[np.uint8]]) -> None: ...

def render(
    kind: str,
    state_buffer: npt.NDArray[np.uint8],
    params_buffer: npt.NDArray[np.uint8],
    indices: npt.ArrayLike | None,
    out: npt.NDArray[np.uint8],
    antialias: int = 1,
    icon: Icon | None = None,
    num_threads: int = 1,
) -> npt.NDArray[np.uint8]: ...
