"""TorchRL front end: a TorchRL env over ccgym's native vector env.

TorchRL's ``GymWrapper`` accepts a Gymnasium 1.x ``VectorEnv`` only in the
``SAME_STEP`` or ``DISABLED`` autoreset mode (it raises "The auto-reset mode
must be one of SAME_STEP or DISABLED" for ccgym's default ``NEXT_STEP``).
:func:`make_env` picks ``DISABLED``: TorchRL then resets the finished
instances itself, through Gymnasium's ``options={"reset_mask": ...}``, which
ccgym's batch does in one C call; rollouts equal TorchRL over Gymnasium's
``SyncVectorEnv`` in the same mode, bit for bit (``tests/test_torchrl.py``).

Importing this module imports TorchRL (and torch): it is not imported by
``import ccgym``.
"""

from __future__ import annotations

from typing import Any

from torchrl.envs import GymWrapper

from ccgym.vector import make_vec

__all__ = ["make_env"]


def make_env(env_id: str, num_envs: int = 1, *, device: Any = "cpu",
             wrapper_kwargs: dict[str, Any] | None = None, **vec_kwargs: Any) -> GymWrapper:
    """A TorchRL ``GymWrapper`` over ``ccgym.make_vec(env_id, num_envs,
    autoreset_mode="Disabled", **vec_kwargs)``: batch size ``[num_envs]``,
    every step of all instances one C call.

    Args:
        env_id: a ccgym id, ``"CartPole-v1"`` or ``"ccgym/CartPole-v1"``.
        num_envs: the number of instances.
        device: the TorchRL device of the returned tensors.
        wrapper_kwargs: more ``GymWrapper`` keywords (``categorical_action_encoding``, ...).
        **vec_kwargs: :class:`ccgym.vector.VectorEnv` keywords
            (``max_episode_steps``, ``num_threads``, physics, ...); not
            ``autoreset_mode``, which TorchRL needs to be ``"Disabled"`` here.
    """
    if "autoreset_mode" in vec_kwargs:
        raise ValueError(
            "ccgym.torchrl.make_env sets autoreset_mode='Disabled' (TorchRL resets the "
            "finished instances itself); build GymWrapper(ccgym.make_vec(...)) yourself "
            "for 'SameStep'")
    envs = make_vec(env_id, num_envs, autoreset_mode="Disabled", **vec_kwargs)
    return GymWrapper(envs, device=device, **(wrapper_kwargs or {}))
