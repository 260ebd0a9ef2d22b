"""Issue 45's typed corners, each against the installed Gymnasium, live.

- MountainCar's velocity keeps its type at the left wall: a step that leaves
  a float64 zero velocity at ``min_position`` without hitting the wall
  (``gravity = 0.0``, action 1) is a float64 in Gymnasium, not the wall's
  int 0, and a numpy ``force`` written next computes with it as such.
- An integer zero in an attribute Gymnasium's step negates (CartPole's
  ``force_mag``, MountainCar's ``gravity``, a numpy int ``force``) is
  refused at the write, single and vector, the env unchanged: Gymnasium's
  ``-0`` is the int 0 where a double's -0.0 has a sign. A Python int 0
  ``force`` (a type of its own for MountainCar) and float zeros of either
  sign step as in Gymnasium, from a state of signed zeros.
- CartPole's vector ``state`` refuses a float32/float16 array, which
  Gymnasium's ``CartPoleVectorEnv`` would step in that precision.
- CartPole's vector keywords and ``set_physics`` refuse a float32/float16
  ``masscart``, ``masspole`` or ``length`` (a scalar or an array of that
  dtype), which Gymnasium's ``__init__`` would combine into ``total_mass`` /
  ``polemass_length`` in that type, the env unchanged; the other narrow
  physics and the float64 forms step as Gymnasium's env with those
  attribute values (and __init__'s derived ones); the single env and SB3's
  ``set_attr`` take the narrow values as attribute writes, as Gymnasium.
- Pendulum refuses a bool or integer action while ``max_torque`` is an
  integer (Gymnasium's torque then stays an integer of the action's type),
  and steps every other pairing as Gymnasium does.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.envs.classic_control import CartPoleEnv as GymCartPole
from gymnasium.envs.classic_control import MountainCarEnv as GymMountainCar
from gymnasium.envs.classic_control import PendulumEnv as GymPendulum

import ccgym
from ccgym.envs import CartPoleEnv, MountainCarEnv, PendulumEnv


def _bits(x) -> tuple[bytes, str]:
    a = np.asarray(x)
    return a.tobytes(), str(a.dtype)


def _types(state) -> list[str]:
    return [type(v).__name__ for v in state]


def test_mountain_car_float_zero_velocity_at_the_wall_keeps_its_type():
    ref, ours = GymMountainCar(), MountainCarEnv()
    for env in (ref, ours):
        env.reset(seed=3)
        env.gravity = 0.0
        env.state = np.array([env.min_position, -0.01])
    # Action 0 into the wall (the int 0), then action 1: with no gravity the
    # velocity stays zero at min_position, now a float64 computed by the step.
    for a in (0, 1):
        r, o = ref.step(a), ours.step(a)
        assert _bits(o[0]) == _bits(r[0])
        assert _types(ours.state) == _types(ref.state), (a, ref.state, ours.state)
    for env in (ref, ours):
        env.force = np.float32(0.001)
    for a in (2, 2, 2, 0, 1, 2, 2):
        r, o = ref.step(a), ours.step(a)
        assert _bits(o[0]) == _bits(r[0]), (a, r[0], o[0])
        assert _types(ours.state) == _types(ref.state)
        assert [np.asarray(v).tobytes() for v in ours.state] == [
            np.asarray(v).tobytes() for v in ref.state]


@pytest.mark.parametrize("cls,name", [(CartPoleEnv, "force_mag"), (MountainCarEnv, "gravity"),
                                      (MountainCarEnv, "force")])
@pytest.mark.parametrize("zero", [0, np.int64(0), np.int32(0)], ids=["int", "int64", "int32"])
def test_integer_zero_of_a_negated_attribute_is_refused(cls, name, zero):
    if name == "force" and type(zero) is int:
        pytest.skip("a Python int force is a type of its own, computed as Gymnasium does "
                    "(test_mountain_car_python_int_zero_force_steps_as_gymnasium)")
    env = cls()
    env.reset(seed=0)
    before, state = getattr(env, name), np.array(env.state, dtype=np.float64)
    with pytest.raises((ValueError, TypeError), match=name):
        setattr(env, name, zero)
    assert getattr(env, name) == before and type(getattr(env, name)) is type(before)
    assert np.array_equal(np.array(env.state, dtype=np.float64), state)
    env_id = {CartPoleEnv: "CartPole-v1", MountainCarEnv: "MountainCar-v0"}[cls]
    with pytest.raises((ValueError, TypeError), match=name):
        ccgym.make_vec(env_id, 2, **{name: zero})
    envs = ccgym.make_vec(env_id, 2)
    physics = envs.get_physics()
    with pytest.raises((ValueError, TypeError), match=name):
        envs.set_physics(**{name: zero})
    assert {k: np.asarray(v).tobytes() for k, v in envs.get_physics().items()} == {
        k: np.asarray(v).tobytes() for k, v in physics.items()}


@pytest.mark.parametrize("gravity", [0.0, -0.0, 0.0025], ids=["g0.0", "g-0.0", "g"])
@pytest.mark.parametrize("action", [int, np.int8, np.int64], ids=["int", "int8", "int64"])
def test_mountain_car_python_int_zero_force_steps_as_gymnasium(gravity, action):
    """A Python int 0 force: Gymnasium's (action - 1) * 0 is the int 0, with
    no sign, where a double product is -0.0 for action 0; from a state of
    signed zeros with a zero gravity of either sign that sign reaches the
    observation."""
    for state in ([-0.5, -0.0], [-0.5, 0.0]):
        ref, ours = GymMountainCar(), MountainCarEnv()
        for env in (ref, ours):
            env.reset(seed=1)
            env.force, env.gravity = 0, gravity
            env.state = np.array(state, dtype=np.float64)
        for a in (0, 1, 2, 0, 0, 1):
            r, o = ref.step(action(a)), ours.step(action(a))
            assert _bits(o[0]) == _bits(r[0]), (state, a, r[0], o[0])
            assert [np.asarray(v).tobytes() for v in ours.state] == [
                np.asarray(v).tobytes() for v in ref.state], (state, a, ref.state, ours.state)


@pytest.mark.parametrize("zero", [0.0, -0.0, np.float64(-0.0)], ids=["0.0", "-0.0", "f64-0.0"])
@pytest.mark.parametrize("env_id,name", [("CartPole-v1", "force_mag"),
                                         ("MountainCar-v0", "gravity"),
                                         ("MountainCar-v0", "force")])
def test_float_zeros_of_a_negated_attribute_step_as_gymnasium(env_id, name, zero):
    """From a state of signed zeros, where only the zero's sign of the force
    or gravity term decides the sign of a zero in the observation."""
    ref_cls = {"CartPole-v1": GymCartPole, "MountainCar-v0": GymMountainCar}[env_id]
    ours_cls = {"CartPole-v1": CartPoleEnv, "MountainCar-v0": MountainCarEnv}[env_id]
    for state in ([-0.0, -0.0, -0.0, -0.0][:len(ref_cls().observation_space.low)],
                  [0.0, 0.0, 0.0, 0.0][:len(ref_cls().observation_space.low)]):
        if env_id == "MountainCar-v0":
            state = [-0.5, state[1]]  # (position, a signed-zero velocity)
        ref, ours = ref_cls(), ours_cls()
        for env in (ref, ours):
            env.reset(seed=1)
            setattr(env, name, zero)
            env.state = np.array(state, dtype=np.float64)
        for a in (0, 1, 0, 2 if env_id == "MountainCar-v0" else 1):
            r, o = ref.step(a), ours.step(a)
            assert _bits(o[0]) == _bits(r[0]), (state, a, r[0], o[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("form", ["array", "list"])
def test_cartpole_vector_state_refuses_narrow_floats(dtype, form):
    envs = ccgym.make_vec("CartPole-v1", 3)
    envs.reset(seed=0)
    before = np.array(envs.state)
    value = np.full((4, 3), 0.01, dtype=dtype)
    if form == "list":
        value = [list(row) for row in value]  # numpy scalars of dtype
    with pytest.raises(TypeError, match=np.dtype(dtype).name):
        envs.state = value
    assert np.array_equal(envs.state, before)
    envs.state = np.full((4, 3), 0.01)  # float64 is taken
    assert np.all(envs.state == 0.01)


@pytest.mark.parametrize("max_torque", [2, np.int64(2)], ids=["int", "int64"])
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.bool_, np.uint8])
def test_pendulum_integer_action_with_integer_max_torque_is_refused(max_torque, dtype):
    """Gymnasium's u stays an integer of the action's type there (u**2 wraps
    in int8, uint8 raises, last_u an integer): refused, the env unchanged."""
    env = PendulumEnv()
    env.reset(seed=2)
    env.max_torque = max_torque
    env.step(np.array([0.5], dtype=np.float32))
    state, last_u = np.array(env.state), env.last_u
    with pytest.raises(TypeError, match="max_torque is an integer"):
        env.step(np.array([1], dtype=dtype))
    assert np.array_equal(env.state, state) and env.last_u == last_u
    assert type(env.last_u) is type(last_u)


@pytest.mark.parametrize("max_torque", [2, 2.0, np.int64(2)], ids=["int", "float", "int64"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.bool_])
def test_pendulum_actions_with_max_torque_types_step_as_gymnasium(max_torque, dtype):
    """What is taken steps as Gymnasium's, last_u's type included: float
    actions with any max_torque, integer actions with a float one."""
    if np.dtype(dtype).kind in "biu" and not isinstance(max_torque, float):
        pytest.skip("refused (the test above)")
    ref, ours = GymPendulum(), PendulumEnv()
    for env in (ref, ours):
        env.reset(seed=5)
        env.max_torque = max_torque
    for v in (1, 0, 3, -1, 1):
        a = np.array([v], dtype=dtype)
        r, o = ref.step(a), ours.step(a)
        assert _bits(o[0]) == _bits(r[0]) and _bits(o[1]) == _bits(r[1])
        assert type(ours.last_u) is type(ref.last_u) and ours.last_u == ref.last_u


@pytest.mark.parametrize("how", ["keyword", "set_physics"])
def test_batched_integer_action_with_integer_max_torque_is_refused(how):
    """The vector env too: Gymnasium's envs behind a SyncVectorEnv would keep
    an int8 torque of 100 an int8, whose square wraps; refused, the env
    unchanged, and float actions (or a float max_torque) are taken."""
    a = np.array([[100], [0]], dtype=np.int8)
    envs = ccgym.make_vec("Pendulum-v1", 2, **({"max_torque": 100} if how == "keyword" else {}))
    if how == "set_physics":
        envs.set_physics(max_torque=100)
    envs.reset(seed=0)
    before = envs.get_state()
    with pytest.raises(TypeError, match="max_torque is an integer"):
        envs.step(a)
    after = envs.get_state()
    assert bytes(after["state_buffer"]) == bytes(before["state_buffer"])
    assert np.array_equal(after["elapsed"], before["elapsed"])
    envs.step(a.astype(np.float32))
    envs.set_physics(max_torque=100.0)
    envs.step(a)  # a float max_torque: numpy computes the int8 action as float64


def test_sb3_integer_action_with_an_instance_integer_max_torque_is_refused():
    """SB3's VecEnv: an instance given an integer max_torque
    (``env_method("set_wrapper_attr", ...)``, which changes its physics)
    makes the batch refuse integer actions, as that env's own step does."""
    pytest.importorskip("stable_baselines3")
    from ccgym.sb3 import VecEnv

    a = np.array([[100], [0]], dtype=np.int8)
    envs = VecEnv("Pendulum-v1", 2)
    envs.seed(0)
    envs.reset()
    envs.step(a)  # float max_torque: taken
    envs.env_method("set_wrapper_attr", "max_torque", 100, indices=[1])
    with pytest.raises(TypeError, match="max_torque is an integer"):
        envs.step(a)
    envs.step(a.astype(np.float32))
    envs.env_method("set_wrapper_attr", "max_torque", 100.0, indices=[1])
    envs.step(a)


# Gymnasium's CartPoleEnv.__init__ derives these from the inputs, once.
_CARTPOLE_DERIVED = {"total_mass": lambda e: e.masspole + e.masscart,
                     "polemass_length": lambda e: e.masspole * e.length}
_NARROW_OPERANDS = ("masscart", "masspole", "length")
_NARROW_VALUES = {"masscart": 1.1, "masspole": 0.3, "length": 0.7, "gravity": 9.1,
                  "force_mag": 7.3, "tau": 0.03}


def _gym_cartpole_with(values: dict) -> GymCartPole:
    """Gymnasium's env as its __init__ would be with these attribute values."""
    env = GymCartPole()
    for name, value in values.items():
        setattr(env, name, value)
    for name, derive in _CARTPOLE_DERIVED.items():
        setattr(env, name, derive(env))
    return env


def _episode(step, reset, n: int = 40) -> list[bytes]:
    obs = reset()
    out = [obs.tobytes()]
    for t in range(n):
        obs, term = step(t % 3 % 2)
        out.append(obs.tobytes())
        if term:
            break
    return out


def _vector_episode(envs) -> list[bytes]:
    def step(a):
        o, _, term, _, _ = envs.step(np.full(envs.num_envs, a))
        return o[0], term[0]
    return _episode(step, lambda: envs.reset(seed=4)[0][0])


def _gym_episode(env) -> list[bytes]:
    def step(a):
        o, _, term, _, _ = env.step(a)
        return o, term
    return _episode(step, lambda: env.reset(seed=4)[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", _NARROW_OPERANDS)
@pytest.mark.parametrize("how", ["keyword", "set_physics", "set_physics array"])
def test_cartpole_vector_narrow_derived_input_refused(name, dtype, how):
    """Refused with a TypeError naming the attribute and the derived ones,
    the env unchanged (physics, state, later steps); as Gymnasium's own
    arithmetic would keep the narrow type in total_mass/polemass_length."""
    value = dtype(_NARROW_VALUES[name])
    if how == "keyword":
        with pytest.raises(TypeError, match=f"{name} = .*{np.dtype(dtype).name}"):
            ccgym.make_vec("CartPole-v1", 2, **{name: value})
        return
    if how == "set_physics array":
        value = np.full(2, value, dtype=dtype)
    envs, twin = ccgym.make_vec("CartPole-v1", 2), ccgym.make_vec("CartPole-v1", 2)
    for e in (envs, twin):
        e.set_physics(gravity=9.0)
        e.reset(seed=4)
        e.step(np.array([1, 0]))
    physics, state = envs.get_physics(), envs.get_state()
    with pytest.raises(TypeError, match=f"{name} = .*total_mass|{name} = .*polemass_length"):
        envs.set_physics(**{name: value, "tau": 0.03})
    after = envs.get_state()
    assert envs.get_physics() == physics
    assert bytes(after["state_buffer"]) == bytes(state["state_buffer"])
    for t in range(20):
        a = np.array([t % 2, 1 - t % 2])
        assert _bits(envs.step(a)[0]) == _bits(twin.step(a)[0])


@pytest.mark.parametrize("values", [
    {"masscart": np.float64(1.1)}, {"masspole": 0.3, "length": np.float64(0.7)},
    {"masscart": np.float32(1.1).item()},
    {"gravity": np.float32(9.1)}, {"force_mag": np.float16(7.3)}, {"tau": np.float32(0.03)},
    {"gravity": np.float16(9.1), "masscart": 2.0, "length": np.int64(1)},
], ids=repr)
@pytest.mark.parametrize("how", ["keyword", "set_physics"])
def test_cartpole_vector_physics_step_as_gymnasium(values, how):
    """What the vector env takes (float64 forms of the derived inputs, the
    other physics in narrow types) steps as Gymnasium's env with those
    attribute values, bit for bit."""
    if how == "keyword":
        envs = ccgym.make_vec("CartPole-v1", 2, **values)
    else:
        envs = ccgym.make_vec("CartPole-v1", 2)
        envs.set_physics(**values)
    assert _vector_episode(envs) == _gym_episode(_gym_cartpole_with(values))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", _NARROW_OPERANDS)
def test_cartpole_single_and_sb3_narrow_derived_input_as_gymnasium(name, dtype):
    """The single env (an attribute write: total_mass kept, as Gymnasium's)
    and SB3's set_attr (the same write on an instance) take it, equal to
    Gymnasium's env and to DummyVecEnv."""
    value = dtype(_NARROW_VALUES[name])
    ref, ours = GymCartPole(), CartPoleEnv()
    for env in (ref, ours):
        setattr(env, name, value)
    assert _gym_episode(ours) == _gym_episode(ref)
    assert type(ours.total_mass) is type(ref.total_mass)
    pytest.importorskip("stable_baselines3")
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ccgym.sb3 import VecEnv

    ours_v = VecEnv("CartPole-v1", 2)
    ref_v = DummyVecEnv([lambda: gym.make("CartPole-v1")] * 2)
    out = []
    for v in (ours_v, ref_v):
        v.seed(4)
        v.reset()
        v.set_attr(name, value, indices=[1])
        obs = [v.step(np.array([t % 2, 1 - t % 2]))[0].tobytes() for t in range(25)]
        out.append((obs, [type(x).__name__ for x in v.get_attr("total_mass")]))
    assert out[0] == out[1]
