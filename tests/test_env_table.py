"""The env table (each env's C def, listed in the registry src/envs.def) is the
one source of every env fact the layers above use. These tests fail when it
drifts: from the installed Gymnasium's classes (default parameters read off
instances, spaces, reset bounds, screen sizes), from ccgym's Python classes,
and between the modules that read it."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.classic_control import pendulum as gym_pendulum
from gymnasium.envs.classic_control import utils as gym_utils

import ccgym
from ccgym import _ceiling, _core, _front_core, _params, _render, envs
from array_helpers import set_shape

# The stock envs' Gymnasium classes; every kind's is the one its def names
# (gym_class), which for the stock kinds must be these.
STOCK_GYM_CLASSES = {
    "CartPole": gym.envs.classic_control.CartPoleEnv,
    "MountainCar": gym.envs.classic_control.MountainCarEnv,
    "MountainCarContinuous": gym.envs.classic_control.Continuous_MountainCarEnv,
    "Pendulum": gym.envs.classic_control.PendulumEnv,
    "Acrobot": gym.envs.classic_control.AcrobotEnv,
}
GYM_CLASSES = {kind: getattr(gym.envs.classic_control, _core.env_info(kind).gym_class)
               for kind in _core.ENV_KINDS}


def _ref(kind):
    """The stock kind whose Gymnasium class this kind mirrors (itself for the
    stock five; a scaffolded copy's source): the tables below describe
    Gymnasium's classes, keyed by it."""
    return next(k for k in STOCK_GYM_CLASSES if STOCK_GYM_CLASSES[k] is GYM_CLASSES[kind])


# ccgym's params fields that Gymnasium keeps under another name or shape
# (value: a function of the Gymnasium instance), and those it does not keep
# at all (sub-expressions ccgym precomputes, its numpy-variant switch).
GYM_ATTRIBUTE = {
    ("CartPole", "euler"): lambda e: e.kinematics_integrator == "euler",
    ("CartPole", "sutton_barto_reward"): lambda e: e._sutton_barto_reward,
    ("Acrobot", "book"): lambda e: e.book_or_nips == "book",
    **{("Acrobot", f"torque_{i}"): (lambda e, i=i: e.AVAIL_TORQUE[i]) for i in range(3)},
}
# The attributes' numpy type tags (ccgym/nptype.h; 0 = a Python number, as
# every Gymnasium default is) and the flag that some tag is set: checked
# for 0 in test_params_defaults_match_a_gymnasium_instance.
TYPE_TAGS = {
    *(("Pendulum", f) for f in ("g_t", "m_t", "l_t", "max_torque_t", "torque_coef_t",
                                "typed")),
    *(("MountainCarContinuous", f) for f in ("min_position_t", "max_position_t",
                                             "max_speed_t", "goal_position_t",
                                             "goal_velocity_t", "power_t", "typed")),
    *(("MountainCar", f) for f in ("min_position_t", "max_position_t", "max_speed_t",
                                   "goal_position_t", "goal_velocity_t", "force_t",
                                   "gravity_t", "typed", "action_t")),
}
# ... and every typed attribute's tag field ("<field>_t"), from the def.
TYPE_TAGS |= {(kind, field + "_t") for kind in STOCK_GYM_CLASSES
              for name, field in _core.env_info(kind).attributes.items()
              if _core.env_info(kind).attr_class[name] & _core.ATTR_CLASSES["typed"]}
NOT_IN_GYM = TYPE_TAGS | {
    ("Pendulum", "sin_coef"), ("Pendulum", "torque_coef"),
    ("Acrobot", "use_npy_fma_trig"),
    *(("Acrobot", f) for f in ("d1_a", "d1_b", "d1_c", "d2_a", "d2_b", "phi2_c", "phi1_a",
                               "phi1_b", "phi1_c", "dd2_c", "den_a")),
}


def _gym_value(kind, gym_env, field):
    if (_ref(kind), field) in GYM_ATTRIBUTE:
        return GYM_ATTRIBUTE[_ref(kind), field](gym_env)
    for name in (field, field.upper()):  # Acrobot's class constants are upper case
        if hasattr(gym_env, name):
            return getattr(gym_env, name)
    raise AssertionError(f"{kind}.{field}: no Gymnasium attribute to compare with")


def _default_params(kind):
    """The C params struct of a default batch, read with the table's layout."""
    info = _core.env_info(kind)
    batch = _core.Batch(kind, 1, _params.PARAMS[kind]())
    assert batch.params_buffer.nbytes == info.params_size
    return batch.params_buffer.view(info.params_dtype)[0]


def test_registry_order_is_the_one_kind_list():
    assert _core.ENV_KINDS == tuple(GYM_CLASSES)
    assert _core.ENV_KINDS[:len(STOCK_GYM_CLASSES)] == tuple(STOCK_GYM_CLASSES)
    assert {k: GYM_CLASSES[k] for k in STOCK_GYM_CLASSES} == STOCK_GYM_CLASSES
    assert _render.KINDS == _core.ENV_KINDS
    assert set(_params.PARAMS) == set(_core.ENV_KINDS)
    assert set(_params.PHYSICS) == set(_core.ENV_KINDS)
    assert [_core.env_info(k).index for k in _core.ENV_KINDS] == list(range(len(_core.ENV_KINDS)))
    with pytest.raises(ValueError, match="unknown env kind"):
        _core.env_info("Snake")
    with pytest.raises(AttributeError):
        _core.env_info("CartPole").obs_dim = 5


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_spaces_match_gymnasium(kind):
    info = _core.env_info(kind)
    g = GYM_CLASSES[kind]()
    assert g.observation_space.shape == (info.obs_dim,)
    if isinstance(g.action_space, gym.spaces.Discrete):
        assert info.action_dim == 0 and info.n_actions == g.action_space.n
        assert _ceiling.action_dtype(kind) == np.int64
    else:
        assert g.action_space.shape == (info.action_dim,)
        assert _ceiling.action_dtype(kind) == np.float32 == g.action_space.dtype


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_params_defaults_match_a_gymnasium_instance(kind):
    """Every params field of the default C struct (inputs, constants and
    derived values alike) equals the default Gymnasium instance's attribute,
    bit for bit; the input defaults in the table are those values too."""
    info = _core.env_info(kind)
    g = GYM_CLASSES[kind]()
    struct = _default_params(kind)
    compared = 0
    for field in info.params_dtype.names:
        if (_ref(kind), field) in TYPE_TAGS:
            assert struct[field] == 0, field
        if (_ref(kind), field) in NOT_IN_GYM:
            continue
        want = _gym_value(kind, g, field)
        got = struct[field]
        if isinstance(want, (bool, np.bool_)):
            assert bool(got) == want and got in (0, 1), field
        else:
            assert float(got) == float(want), (field, got, want)
        if field in info.param_fields:
            assert info.param_defaults[field] == want, field
        compared += 1
    assert compared >= len(info.physics_fields)
    # Every input is a struct field; switches are bools.
    assert set(info.param_fields) <= set(info.params_dtype.names)
    for name in info.bool_fields:
        assert isinstance(info.param_defaults[name], bool)


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_gymnasium_facts_of_the_def_match_gymnasium(kind):
    """The def's Gymnasium side (CCGYM_ATTR/CCGYM_SWITCH fields, gym_class,
    reward_type) against the installed Gymnasium's own objects: its class
    is the one Gymnasium registers for the kind's ids; each attribute is an
    attribute of a default Gymnasium instance whose value is the field's
    (a switch read as Gymnasium's step reads it) and whose Python type is
    the one the def states (int where CCGYM_ATTR_INT_DEFAULT, else float or
    the switch's type); the single env's reward has the type of Gymnasium's."""
    from ccgym import _attributes

    info = _core.env_info(kind)
    assert GYM_CLASSES[kind].__name__ == info.gym_class
    ids = [i for i, spec in ccgym.ENV_SPECS.items()
           if getattr(envs, spec[0]).kind == kind]
    assert ids
    for env_id in ids:
        if env_id in gym.registry:  # a scaffolded env has no Gymnasium id of its own
            assert gym.spec(env_id).entry_point.endswith(":" + info.gym_class)
    g = GYM_CLASSES[kind]()
    struct = _default_params(kind)
    assert info.attributes and len(set(info.attributes.values())) == len(info.attributes)
    for name, field in info.attributes.items():
        want = getattr(g, name)
        if _attributes.is_switch(kind, name):
            assert float(struct[field]) == float(_attributes.switch_value(kind, name, want))
            choices = info.switches[name]
            assert (type(want) is bool) if choices is None else want in choices, name
            continue
        int_default = _attributes.has_class(kind, name, "int_default")
        assert type(want) is (int if int_default else float), (name, type(want))
        assert float(struct[field]) == float(want), name
        if _attributes.has_class(kind, name, "typed"):
            assert field + "_t" in info.params_dtype.names, name
    ours = getattr(envs, ccgym.ENV_SPECS[ids[0]][0])()
    for name in info.attributes:
        assert type(getattr(ours, name)) is type(getattr(g, name)), name
    g.reset(seed=0)
    ours.reset(seed=0)
    action = g.action_space.sample()
    assert type(ours.step(action)[1]) is type(g.step(action)[1])
    assert isinstance(g.step(action)[1], np.floating) == info.numpy_reward


def test_acrobot_switch_is_the_numpy_variant():
    """The one input default that is not Gymnasium's is set at run time."""
    assert _params.PARAMS["Acrobot"]()["use_npy_fma_trig"] == \
        _params.numpy_float32_trig_uses_fma()


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_reset_bounds_match_gymnasium(kind, monkeypatch):
    """The defaults Gymnasium's reset passes to maybe_parse_reset_bounds (or
    Pendulum's DEFAULT_X, DEFAULT_Y), caught live."""
    info = _core.env_info(kind)
    if info.reset_symmetric:
        assert _ref(kind) == "Pendulum"
        assert info.default_reset == (gym_pendulum.DEFAULT_X, gym_pendulum.DEFAULT_Y)
        assert info.reset_options == ("x_init", "y_init")
        return
    seen = []
    real = gym_utils.maybe_parse_reset_bounds

    def spy(options, default_low, default_high):
        seen.append((default_low, default_high))
        return real(options, default_low, default_high)

    monkeypatch.setattr(gym_utils, "maybe_parse_reset_bounds", spy)
    GYM_CLASSES[kind]().reset(seed=0)
    assert seen == [info.default_reset]
    assert info.reset_options == ("low", "high")


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_canvas_matches_gymnasium_screen(kind):
    g = GYM_CLASSES[kind]()
    if hasattr(g, "screen_width"):
        size = (g.screen_height, g.screen_width)
    else:
        dim = getattr(g, "screen_dim", None) or g.SCREEN_DIM
        size = (dim, dim)
    assert _core.env_info(kind).canvas_size == size == _render.canvas_size(kind)


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_state_layout(kind):
    """The state dtype is the C struct's (size), ccgym's classes use it, and
    its float64 fields hold Gymnasium's state (and the ceiling's layout)."""
    info = _core.env_info(kind)
    batch = _core.Batch(kind, 3, _params.PARAMS[kind]())
    assert batch.state_buffer.nbytes == 3 * info.state_size == 3 * info.state_dtype.itemsize
    assert _render.state_size(kind) == info.state_size
    cls = next(getattr(envs, spec[0]) for spec in ccgym.ENV_SPECS.values()
               if getattr(envs, spec[0]).kind == kind)
    assert cls._state_dtype == info.state_dtype
    g, ours = GYM_CLASSES[kind](), cls()
    g.reset(seed=5)
    ours.reset(seed=5)
    gym_state = np.asarray(g.state, dtype=np.float64).ravel()
    np.testing.assert_array_equal(np.asarray(ours.state, dtype=np.float64).ravel(), gym_state)
    floats = sum(int(np.prod(info.state_dtype.fields[f][0].shape))
                 for f in info.state_float_fields)
    assert _ceiling.state_dim(kind) == floats >= gym_state.size
    for name in info.state_dtype.names:
        assert (name in info.state_float_fields) != (name in info.state_fill)


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_attributes_stand_where_gymnasium_puts_them(kind):
    """An attribute Gymnasium's class body defines (not its __init__) is
    CCGYM_ATTR_CLASS_LEVEL in the def: ccgym's class has it, of Gymnasium's
    value and type, and a fresh env records none; every other attribute is
    the fresh env's own, as in a Gymnasium instance."""
    from ccgym import _attributes

    info = _core.env_info(kind)
    g = GYM_CLASSES[kind]()
    cls = next(getattr(envs, spec[0]) for spec in ccgym.ENV_SPECS.values()
               if getattr(envs, spec[0]).kind == kind)
    ours = cls()
    for name in info.attributes:
        class_level = _attributes.has_class(kind, name, "class_level")
        assert class_level == (name not in vars(g)), name
        if class_level:
            want = getattr(type(g), name)
            assert type(getattr(cls, name)) is type(want) and getattr(cls, name) == want, name
            assert name not in _attributes.faces(ours), name
        else:
            assert name in _attributes.faces(ours), name


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
def test_python_classes_match_the_table(env_id):
    cls = getattr(envs, ccgym.ENV_SPECS[env_id][0])
    info = _core.env_info(cls.kind)
    ours = cls()
    g = GYM_CLASSES[cls.kind]()
    assert ours.observation_space == g.observation_space
    assert ours.action_space == g.action_space
    assert tuple(_params.PARAMS[cls.kind]()) == info.param_fields
    assert tuple(_params.PHYSICS[cls.kind]) == info.physics_fields
    assert ours._core.obs_dim == info.obs_dim
    assert (ours._core.default_a, ours._core.default_b) == info.default_reset
    vec = ccgym.make_vec(env_id, num_envs=2)
    assert vec.single_observation_space == g.observation_space
    vec.close()


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_fast_variant_is_the_same_env(kind):
    info = _core.env_info(kind)
    exact = _core.Batch(kind, 2, _params.PARAMS[kind]())
    fast = _core.Batch(kind, 2, _params.PARAMS[kind](), precision="fast")
    for attr in ("obs_dim", "action_dim", "n_actions", "default_a", "default_b"):
        assert getattr(fast, attr) == getattr(exact, attr)
    assert fast.state_buffer.nbytes == exact.state_buffer.nbytes
    assert info.has_fast == (_ref(kind) in ("CartPole", "Pendulum", "Acrobot"))


def test_physics_defaults_are_gymnasiums_in_vector_envs():
    for kind, physics in _params.PHYSICS.items():
        g = GYM_CLASSES[kind]()
        for name, value in physics.items():
            assert value == _gym_value(kind, g, name), (kind, name)
            assert isinstance(value, float) and math.isfinite(value)


# ------------------------------------------------ CartPole's counter (UBSan)
@pytest.mark.parametrize("precision", ["exact", "fast"])
def test_cartpole_steps_beyond_terminated_saturates(precision):
    """A restored state with steps_beyond_terminated = INT64_MAX, stepped
    while fallen: Gymnasium's Python int would grow to 2**63; ccgym's int64
    saturates (defined, documented in cartpole.h) and the reward is the same
    as Gymnasium's, 0. Under tools/sanitize.sh, UBSan checks there is no
    signed overflow."""
    top = np.iinfo(np.int64).max
    vec = ccgym.make_vec("CartPole-v1", num_envs=4, autoreset_mode="Disabled",
                         precision=precision)
    vec.reset(seed=0)
    snap = vec.get_state()
    view = snap["state_buffer"].view(_core.state_dtype("CartPole"))
    view["theta"] = 1.0  # past the threshold: every step terminates
    view["steps_beyond_terminated"] = [top, top - 1, 0, -1]
    vec.set_state(snap)
    _, reward, terminated, _, _ = vec.step(np.ones(4, dtype=np.int64))
    assert terminated.all()
    np.testing.assert_array_equal(reward, [0.0, 0.0, 0.0, 1.0])
    after = vec.get_state()["state_buffer"].view(_core.state_dtype("CartPole"))
    np.testing.assert_array_equal(after["steps_beyond_terminated"], [top, top, 1, 0])
    vec.close()

    single = gym.make("ccgym/CartPole-v1").unwrapped
    single.reset(seed=0)
    snap = single.get_state()
    view = snap["state_buffer"].view(_core.state_dtype("CartPole"))
    view["theta"] = 1.0
    view["steps_beyond_terminated"] = top
    single.set_state(snap)
    _, reward, terminated, _, _ = single.step(0)
    assert terminated and reward == 0.0
    assert single._state_fields()["steps_beyond_terminated"] == top


# ------------------------------------------------ _ceiling.Run cannot be broken
def test_ceiling_run_buffers_cannot_be_replaced_or_resized():
    """Run's buffers are C memory it owns; what it hands out are views. A
    user cannot swap them for smaller arrays, resize them or free them from
    under a run: attempts raise, and the run still computes the same."""
    n = 8
    state = np.zeros((n, _ceiling.state_dim("Acrobot")))
    run = _ceiling.Run("Acrobot", state.copy(), seed=1)
    ref = _ceiling.Run("Acrobot", state.copy(), seed=1)
    for name in ("state", "states", "obs", "reward", "terminated", "rng_state", "num_envs",
                 "kind"):
        with pytest.raises(AttributeError):
            setattr(run, name, np.zeros(1))
    for arr in (run.state, run.obs, run.reward, run.terminated, run.rng_state, run.states):
        with pytest.raises(ValueError):
            arr.resize(1 << 20)
        base = arr.base
        while isinstance(base, np.ndarray):
            with pytest.raises(ValueError):
                base.resize(1 << 20)
            base = base.base
    # Reshaping in place or dropping writeability of a view changes nothing C uses.
    set_shape(run.obs, (n * 6,))
    actions = np.zeros((3, n), dtype=np.int64)
    run.run(actions, 50)
    ref.run(actions, 50)
    np.testing.assert_array_equal(run.state, ref.state)
    np.testing.assert_array_equal(run.obs.reshape(n, 6), ref.obs)
    # The views keep the Run's memory alive after the Run is gone.
    obs = ref.obs
    del ref
    assert np.isfinite(obs).all()


def test_ceiling_run_checks_actions_at_the_call():
    n = 4
    run = _ceiling.Run("Pendulum", np.zeros((n, 3)))
    with pytest.raises(TypeError):
        run.run(np.zeros((1, n), dtype=">f4"), 1)  # wrong byte order
    with pytest.raises(ValueError):
        run.run(np.zeros((1, n + 1), dtype=np.float32), 1)
    # Unaligned or strided actions are copied, not read as they are.
    raw = np.zeros(4 * 2 * n + 1, dtype=np.uint8)
    unaligned = raw[1:].view(np.float32).reshape(2, n)
    unaligned[:] = 1.5
    strided = np.full((2, 2 * n), 1.5, dtype=np.float32)[:, ::2]
    aligned = np.full((2, n), 1.5, dtype=np.float32)
    outs = []
    for a in (unaligned, strided, aligned):
        r = _ceiling.Run("Pendulum", np.zeros((n, 3)))
        r.run(a, 3)
        outs.append(r.state.copy())
    np.testing.assert_array_equal(outs[0], outs[2])
    np.testing.assert_array_equal(outs[1], outs[2])


def test_ceiling_run_takes_structured_states():
    vec = ccgym.make_vec("CartPole-v1", num_envs=6)
    vec.reset(seed=2)
    states = vec._core.state_view(_core.state_dtype("CartPole")).copy()
    run = _ceiling.Run("CartPole", states)
    np.testing.assert_array_equal(run.states, states)
    np.testing.assert_array_equal(run.state[:, 2], states["theta"])
    vec.close()


# ----------------------------------------------------- list attributes
def _gym_number_lists(gym_cls: type) -> dict[str, list]:
    """Gymnasium's class attributes that are lists of numbers (read from its
    class, not from a list kept here)."""
    return {name: value for klass in reversed(gym_cls.__mro__)
            for name, value in vars(klass).items()
            if type(value) is list and value
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)}


@pytest.mark.parametrize("kind", _core.ENV_KINDS)
def test_list_attributes_are_gymnasiums(kind):
    """The def's list attributes (CCGYM_ATTR_LIST_ITEM) are the number lists
    of Gymnasium's class, one float64 params field per item, which
    params_init sets to Gymnasium's class value; none is a scalar attribute."""
    info = _core.env_info(kind)
    gym_lists = _gym_number_lists(GYM_CLASSES[kind])
    assert set(info.list_attributes) == set(gym_lists)
    record = _core.Batch(kind, 1, _params.PARAMS[kind]()).params_buffer.view(info.params_dtype)[0]
    for attr, fields in info.list_attributes.items():
        assert attr not in info.attributes
        assert len(fields) == len(gym_lists[attr])
        for field in fields:
            assert info.params_dtype.fields[field][0] == np.float64
            assert field in info.kept_fields and field not in info.param_fields
        assert [float(record[f]) for f in fields] == [float(x) for x in gym_lists[attr]]


def test_batch_has_no_front_end_hooks():
    """Batch knows no front end: no attribute takes a callback that a front
    end's object answers (the watch and state write-back hooks are the def's
    list attributes, Batch.follow, and a pure obs_state_reader now)."""
    names = [n for n in dir(_core.Batch) if not n.startswith("__")
             and ("hook" in n or n in ("watch", "check_watch"))]
    assert names == []


def test_core_batch_knows_no_gymnasium_and_no_front_end():
    """The core only batches: with Gymnasium unimportable, _core alone makes,
    seeds, resets, steps, snapshots and restores a batch of every kind; the
    single env's and the vector env's rules are the layer above's
    (ccgym._front_core), not Batch's."""
    script = textwrap.dedent("""
        import importlib.util, sys, types
        import numpy as np
        sys.modules["gymnasium"] = None  # any import of it raises ImportError
        pkg = types.ModuleType("ccgym")
        pkg.__path__ = []
        sys.modules["ccgym"] = pkg
        spec = importlib.util.spec_from_file_location("ccgym._core", sys.argv[1])
        core = importlib.util.module_from_spec(spec)
        sys.modules["ccgym._core"] = core
        spec.loader.exec_module(core)
        for kind in core.ENV_KINDS:
            info = core.env_info(kind)
            b = core.Batch(kind, 3, dict(info.param_defaults), 5)
            b.seed_range(1)
            b.reset()
            snap = b.get_state()
            a = (np.zeros(3, np.int64) if info.action_dim == 0
                 else np.zeros((3, info.action_dim), np.float32))
            first = b.step(a)[0].copy()
            b.set_state(snap)
            assert np.array_equal(b.step(a)[0], first), kind
        assert sys.modules["gymnasium"] is None
        print("ok")
        """)
    out = subprocess.run([sys.executable, "-c", script, _core.__file__], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    front = ("step1", "reset1", "follow", "check_follow", "obs_state_reader", "live_obs",
             "sync_live_obs", "vector_step", "vector_step_then", "reset_needed_error",
             "uint64_actions", "asserts_contains", "obs_single", "last_action_dtype")
    assert [n for n in front if hasattr(_core.Batch, n)] == []
    assert all(hasattr(_front_core.SingleBatch, n) for n in front[:12])


LIST_KINDS = [k for k in _core.ENV_KINDS if _core.env_info(k).list_attributes]


@pytest.mark.parametrize("kind", LIST_KINDS)
def test_batch_follows_a_list_attribute_itself(kind):
    """Batch.follow: step1 and check_follow take a followed list's items into
    the params when the list changes in place, with no front end; a value
    list_values refuses raises at every step, batch and state unchanged."""
    info = _core.env_info(kind)
    attr, fields = next(iter(info.list_attributes.items()))
    b = _front_core.SingleBatch(kind, 1, _params.PARAMS[kind](), 0, _core.AUTORESET_DISABLED)
    b.reset1(5)
    view = lambda: [float(b.params_buffer.view(info.params_dtype)[0][f]) for f in fields]
    before = view()
    lst = [float(k + 10) for k in range(len(fields))]
    b.follow(attr, lst)
    assert view() == before  # taken at the next step
    b.check_follow()
    assert view() == lst
    lst[0] = -0.0
    b.step1(0)
    assert np.float64(view()[0]).tobytes() == np.float64(-0.0).tobytes()
    lst[0] = np.float32(1.0)
    state, params = b.state_buffer.tobytes(), b.params_buffer.tobytes()
    for _ in range(2):
        with pytest.raises(TypeError, match=f"{attr} was changed in place.*env is unchanged"):
            b.step1(0)
        assert (b.state_buffer.tobytes(), b.params_buffer.tobytes()) == (state, params)
    lst[0] = 3
    b.step1(0)
    assert view()[0] == 3.0
    b.follow(attr, None)
    lst[0] = 4.0
    b.step1(0)
    assert view()[0] == 3.0  # no longer followed
    lst = [1.0]
    with pytest.raises(ValueError, match=f"needs {len(fields)} items"):
        b.follow(attr, lst, now=True)
    assert view()[0] == 3.0
    with pytest.raises(ValueError, match="no list attribute"):
        b.follow("nope", [1.0])
    with pytest.raises(TypeError, match="list or None"):
        b.follow(attr, (1.0,) * len(fields))
    with pytest.raises(TypeError, match="float32"):
        _core.list_values(kind, attr, [np.float32(1)] * len(fields))
    assert _core.list_values(kind, attr, [1, 2.0, np.int64(3), 9][:len(fields)] + [0] * 9) == \
        tuple([1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0][:len(fields)])


def test_batch_writes_back_a_live_obs_through_a_pure_reader():
    """obs_state_reader: the core reads a step's observation changed in
    place with the reader (a pure function) and writes the fields itself;
    a reader that raises leaves the state as it was. Any kind: the reader
    here maps the obs onto the leading float state fields."""
    kind = next(k for k in _core.ENV_KINDS if len(_core.env_info(k).state_float_fields)
                == _core.env_info(k).obs_dim and _core.env_info(k).state_size % 8 == 0)
    info = _core.env_info(kind)
    calls = []

    def reader(value):
        calls.append(value.copy())
        if value[0] == 7:
            raise ValueError("seven")
        return {name: float(x) for name, x in zip(info.state_float_fields, value)}

    b = _front_core.SingleBatch(kind, 1, _params.PARAMS[kind](), 0, _core.AUTORESET_DISABLED)
    b.obs_state_reader = reader
    assert b.obs_is_state
    b.reset1(3)
    action = 0 if info.action_dim == 0 else np.zeros(info.action_dim, np.float32)
    obs = b.step1(action)[0]
    assert b.live_obs is obs
    obs[0] = 0.25
    b.sync_live_obs()
    assert len(calls) == 1
    assert b.state_view(info.state_dtype)[0][info.state_float_fields[0]] == 0.25
    b.sync_live_obs()
    assert len(calls) == 1  # unchanged since: not read again
    state = b.state_buffer.tobytes()
    obs[0] = 7
    with pytest.raises(ValueError, match="changed in place.*env is unchanged.*seven"):
        b.step1(action)
    assert b.state_buffer.tobytes() == state
    with pytest.raises(TypeError, match="callable"):
        b.obs_state_reader = 5
    b.obs_state_reader = None
    assert not b.obs_is_state and b.live_obs is None
