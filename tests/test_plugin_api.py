"""The public C API for envs in other packages (include/ccgym/ccgym.h,
docs/custom_env.md): the headers and CMake config, the checked way in
(_core.register_c_def) and what a registered def gets (ccgym.register_c_env).

A registered def stays in the process's table, so the registrations that
succeed run in a subprocess; the plugin is a renamed copy of a stock def
(_core._test_def_capsule), whose every output must equal the stock env's.
The example package (examples/custom_env) has its own tests, run by
tools/plugin_check.sh against a built wheel."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import ccgym
from ccgym import _core

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_headers_and_version():
    inc = pathlib.Path(ccgym.get_include())
    header = (inc / "ccgym" / "env.h").read_text()
    assert (inc / "ccgym" / "ccgym.h").is_file()
    version = int(re.search(r"#define CCGYM_API_VERSION (\d+)", header).group(1))
    assert version == _core.API_VERSION
    assert '#define CCGYM_ENV_DEF_CAPSULE "ccgym.env_def"' in (inc / "ccgym" / "ccgym.h").read_text()
    # api_version is the def's first member: a plugin of any version has it there.
    body = header[header.index("typedef struct ccgym_env_def {"):]
    assert body.split("\n")[1].split()[:2] == ["int", "api_version;"]
    # Then the minor version and the def's size (numpy's extension-struct style).
    minor = int(re.search(r"#define CCGYM_API_MINOR (\d+)", header).group(1))
    assert minor == _core.API_MINOR
    assert [line.split()[:2] for line in body.split("\n")[1:8] if line.strip()
            and not line.strip().startswith("*")][1:3] == [["int", "api_minor;"],
                                                           ["size_t", "size;"]]


# The public contract (docs/custom_env.md): the headers ccgym installs.
PUBLIC_HEADERS = {"ccgym.h", "env.h", "define_env.h", "rng.h", "draw.h"}


def test_installed_headers_are_the_contract_only():
    """The include directory (the source tree's include/, which CMake
    installs whole) holds the public headers only, and they include nothing
    but each other and the C library: ccgym's exact math, numpy emulation,
    thread pool, kernels, pragmas and stock envs' step bodies stay private."""
    inc = pathlib.Path(ccgym.get_include()) / "ccgym"
    assert {p.name for p in inc.iterdir()} == PUBLIC_HEADERS
    for name in PUBLIC_HEADERS:
        text = (inc / name).read_text()
        for included in re.findall(r'#include\s+"([^"]+)"', text):
            assert included.startswith("ccgym/") and included[6:] in PUBLIC_HEADERS, (name, included)
        assert "#pragma" not in text, name


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("nm") is None,
                    reason="needs gcc and nm")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_example_plugin_references_no_ccgym_symbol(tmp_path, opt):
    """examples/custom_env's C at -O0 (a debug build) and -O2 names no
    function of ccgym's: CCGYM_DEFINE_ENV and the loops are inline in the
    public headers (tools/plugin_check.sh builds and imports both in CI)."""
    import sysconfig

    so = tmp_path / "p.so"
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run(["gcc", opt, "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                        "-I", ccgym.get_include(), "-I", sysconfig.get_paths()["include"],
                        str(ROOT / "examples/custom_env/src/pointmass.c"), "-o", str(so), "-lm"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    undefined = subprocess.run(["nm", "-u", str(so)], capture_output=True, text=True).stdout
    assert not re.findall(r"\bccgym_\w+", undefined), undefined


@pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake")
def test_find_package(tmp_path):
    """A tiny CMake project finds ccgym as scikit-build-core would (the
    cmake.prefix entry point's directory on CMAKE_PREFIX_PATH) and compiles
    against ccgym/ccgym.h."""
    from importlib.metadata import entry_points
    from importlib.resources import files

    (ep,) = [e for e in entry_points(group="cmake.prefix") if e.name == "ccgym"]
    prefix = str(files(ep.load()))
    (tmp_path / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.21)
        project(probe LANGUAGES C)
        find_package(ccgym REQUIRED CONFIG)
        add_library(probe STATIC probe.c)
        target_link_libraries(probe PRIVATE ccgym::headers)
        """))
    (tmp_path / "probe.c").write_text(textwrap.dedent(f"""\
        #include "ccgym/ccgym.h"
        typedef char version_ok[CCGYM_API_VERSION == {_core.API_VERSION} ? 1 : -1];
        int probe(void) {{ return CCGYM_API_VERSION; }}
        """))
    build = tmp_path / "build"
    # (Not the sanitizer libraries tools/sanitize.sh preloads: they break the compiler checks.)
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    run = lambda *a: subprocess.run(a, capture_output=True, text=True, timeout=120,  # noqa: E731
                                    env=env)
    r = run("cmake", "-S", str(tmp_path), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run("cmake", "--build", str(build))
    assert r.returncode == 0, r.stdout + r.stderr


def test_register_refusals():
    import gymnasium as gym

    kinds = _core.ENV_KINDS
    with pytest.raises(TypeError, match="PyCapsule"):
        _core.register_c_def(object())
    with pytest.raises(TypeError, match="PyCapsule"):
        ccgym.register_c_env(1, id="test/X-v0")
    with pytest.raises(ValueError, match="holds no ccgym env def"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Wrong1", capsule_name="other"))
    with pytest.raises(ValueError, match=r"API version.*rebuild the plugin"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Old1",
                                                     api_version=_core.API_VERSION + 1))
    with pytest.raises(ValueError, match=r"API version.*major version.*rebuild the plugin"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Old2",
                                                     api_version=_core.API_VERSION - 1))
    with pytest.raises(ValueError, match=r"newer than this ccgym's.*upgrade ccgym, or rebuild"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "New1",
                                                     api_minor=_core.API_MINOR + 1))
    with pytest.raises(ValueError, match="malformed env def 'Bad1': obs_dim 0"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Bad1", obs_dim=0))
    with pytest.raises(ValueError, match="step_range is NULL"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Bad2", null_step=True))
    with pytest.raises(ValueError, match="obs_low is NULL"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Bad3", bounds=False))
    with pytest.raises(ValueError, match="step_warning and step_warns are both set or both"):
        _core.register_c_def(_core._test_def_capsule("CartPole", "Bad7", null_step_warns=True))
    with pytest.raises(ValueError, match="already in the table"):
        _core.register_c_def(_core._test_def_capsule("CartPole"))
    with pytest.raises(ValueError, match="namespace"):
        ccgym.register_c_env(_core._test_def_capsule("CartPole", "Bad4"), id="ccgym/Bad4-v0")
    with pytest.raises(ValueError, match="namespace"):
        ccgym.register_c_env(_core._test_def_capsule("CartPole", "Bad5"), id="NoSpace-v0")
    gym.register(id="test/Taken-v0", entry_point="gymnasium.envs.classic_control:CartPoleEnv")
    try:
        with pytest.raises(ValueError, match="registered with Gymnasium already"):
            ccgym.register_c_env(_core._test_def_capsule("CartPole", "Bad6"), id="test/Taken-v0")
    finally:
        del gym.registry["test/Taken-v0"]
    # Refused calls leave the table as it was.
    assert _core.ENV_KINDS == kinds
    assert all(k not in _core.ENV_INFO
               for k in ("Wrong1", "Old1", "Old2", "New1", "Bad1", "Bad2", "Bad3", "Bad4", "Bad5", "Bad6",
                         "Bad7"))


SCRIPT = """
import copy, pickle, warnings
import numpy as np, gymnasium as gym
import ccgym
from ccgym import _core, _ceiling, rendering
from ccgym.vector import VectorEnv

warnings.simplefilter("error")
for kind, stock_id in (("CartPole", "CartPole-v1"), ("Pendulum", "Pendulum-v1")):
    new = kind + "Twin"  # (not "Copy": tools/new_env.py's example name, a scaffolded build has it)
    cap = _core._test_def_capsule(kind, new)
    cls = ccgym.register_c_env(cap, id=f"test/{new}-v0", max_episode_steps=50)
    assert ccgym.register_c_env(cap, id=f"test/{new}-v0", max_episode_steps=50) is cls
    try:
        ccgym.register_c_env(cap, id=f"test/{new}-v0", max_episode_steps=60)
        raise SystemExit("a second spec for an id was taken")
    except ValueError:
        pass
    assert new in _core.ENV_KINDS and f"test/{new}-v0" in ccgym.ENV_IDS
    assert _core.def_address(new) != _core.def_address(kind)
    a = gym.make(f"test/{new}-v0", render_mode="rgb_array")
    b = gym.make(f"ccgym/{stock_id}", max_episode_steps=50, render_mode="rgb_array")
    oa, _ = a.reset(seed=3); ob, _ = b.reset(seed=3)
    assert oa.tobytes() == ob.tobytes()
    b.action_space.seed(0)  # (an unseeded sample made the run below flaky)
    for t in range(60):
        act = b.action_space.sample()
        ra, rb = a.step(act), b.step(act)
        assert ra[0].tobytes() == rb[0].tobytes() and ra[1:4] == rb[1:4], (kind, t)
        if ra[2] or ra[3]:
            oa, _ = a.reset(); ob, _ = b.reset()
            assert oa.tobytes() == ob.tobytes()
    if not b.unwrapped._render_icon:  # (Pendulum's class adds its torque icon)
        assert (a.render() == b.render()).all()
    # A fresh episode: the loop may end on a terminal step, and stepping on
    # from it would (rightly) warn.
    a.reset(seed=4)
    c = pickle.loads(pickle.dumps(a.unwrapped))
    assert type(c) is cls and c.state.tobytes() == a.unwrapped.state.tobytes()
    d = copy.deepcopy(a)
    act = b.action_space.sample()
    assert d.step(act)[0].tobytes() == a.step(act)[0].tobytes()
    snap = a.unwrapped.get_state(); x = a.step(act)[0]
    a.unwrapped.set_state(snap); assert a.step(act)[0].tobytes() == x.tobytes()
    for mode in ("NextStep", "SameStep", "Disabled"):
        va = gym.make_vec(f"test/{new}-v0", num_envs=5, autoreset_mode=mode)
        vb = VectorEnv(stock_id, num_envs=5, max_episode_steps=50, autoreset_mode=mode)
        xa, _ = va.reset(seed=1); xb, _ = vb.reset(seed=1)
        vb.action_space.seed(1)
        assert xa.tobytes() == xb.tobytes()
        for t in range(120):
            acts = vb.action_space.sample()
            sa, sb = va.step(acts), vb.step(acts)
            for u, v in zip(sa[:4], sb[:4]):
                assert np.array_equal(u, v), (kind, mode, t)
            if mode == "Disabled" and (sa[2] | sa[3]).any():
                m = sa[2] | sa[3]
                xa, _ = va.reset(options={"reset_mask": m}); xb, _ = vb.reset(options={"reset_mask": m})
                assert xa.tobytes() == xb.tobytes()
    frames = rendering.render_batch(new, a.unwrapped.batch)
    assert frames.shape[1:] == tuple(_core.env_info(kind).canvas_size) + (3,)
    st = np.zeros((5, _ceiling.state_dim(new)))
    runs = [_ceiling.Run(k, st.copy(), seed=0) for k in (new, kind)]
    acts = np.stack([vb.action_space.sample() for _ in range(3)]).astype(_ceiling.action_dtype(kind))
    for run in runs:
        assert run.run(acts, 30) >= 0
    assert runs[0].states.tobytes() == runs[1].states.tobytes()
print("OK")
"""


OLDER_MINOR = """
import warnings
import numpy as np, gymnasium as gym
import ccgym
from ccgym import _core

assert _core.API_MINOR >= 1
# A def laid out as minor version API_MINOR - 1 describes: its size field is
# that version's and only that many bytes exist (CartPole's step_warning and
# step_warns, added in minor 1, are not there).
cap = _core._test_def_capsule("CartPole", "CartPoleOld", api_minor=_core.API_MINOR - 1)
cls = ccgym.register_c_env(cap, id="test/CartPoleOld-v0", max_episode_steps=50)
info = _core.env_info("CartPoleOld")
assert info.step_warning is None, info.step_warning  # the missing member's default
assert _core.env_info("CartPole").step_warning is not None
a = gym.make("test/CartPoleOld-v0")
b = gym.make("ccgym/CartPole-v1", max_episode_steps=50)
oa, _ = a.reset(seed=3); ob, _ = b.reset(seed=3)
assert oa.tobytes() == ob.tobytes()
for t in range(40):
    act = t % 2
    ra, rb = a.step(act), b.step(act)
    assert ra[0].tobytes() == rb[0].tobytes() and ra[1:4] == rb[1:4], t
    if ra[2] or ra[3]:
        a.reset(); b.reset()
# A def whose size is not its minor version's is refused.
bad = _core._test_def_capsule("CartPole", "CartPoleOdd", api_minor=_core.API_MINOR - 1)
import ctypes
ptr = ctypes.pythonapi.PyCapsule_GetPointer
ptr.restype, ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
addr = ptr(bad, b"ccgym.env_def")
# size is the third member, after two ints.
ctypes.c_size_t.from_address(addr + 8).value += 8
try:
    _core.register_c_def(bad)
    raise SystemExit("a def of the wrong size was taken")
except ValueError as e:
    assert "bytes" in str(e), e
print("OK")
"""


def test_def_of_an_older_minor_version_registers():
    """Forward compatibility: a plugin built against the previous minor
    version's headers (a shorter def) registers and runs, the members it
    lacks at their defaults."""
    r = subprocess.run([sys.executable, "-c", OLDER_MINOR], capture_output=True, text=True,
                       timeout=300, cwd=ROOT, env={**os.environ, "PYTHONWARNINGS": "error"})
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr


def test_registered_def_runs_everywhere():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       timeout=300, cwd=ROOT, env={**os.environ, "PYTHONWARNINGS": "error"})
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
def test_stock_defs_state_gymnasiums_spaces(env_id):
    """Every def states its spaces (a plugin's single env takes them): the
    stock defs' are Gymnasium's, bit for bit."""
    import gymnasium as gym
    from reference import reference_id

    from ccgym._kinds import env_kind

    import warnings

    with warnings.catch_warnings():  # CartPole-v0's "out of date"
        warnings.simplefilter("ignore", DeprecationWarning)
        ref = gym.make(reference_id(env_id)).unwrapped
    low, high, alow, ahigh, _ = _core.def_spaces(env_kind(env_id))
    assert low.tobytes() == ref.observation_space.low.tobytes()
    assert high.tobytes() == ref.observation_space.high.tobytes()
    if isinstance(ref.action_space, gym.spaces.Box):
        assert alow.tobytes() == ref.action_space.low.tobytes()
        assert ahigh.tobytes() == ref.action_space.high.tobytes()
    else:
        assert alow is None and ahigh is None
        assert ref.action_space.n == _core.env_info(env_kind(env_id)).n_actions
