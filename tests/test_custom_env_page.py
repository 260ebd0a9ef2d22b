"""docs/custom_env.md works when followed literally: the package is assembled
from the page's own code blocks (each file block's first line names its file,
``# file: PATH`` or ``/* file: PATH */``; blocks of one file concatenate in
order), not from examples/custom_env, in a temporary directory, built with
pip's build isolation against the ccgym under test (a wheel of it given to
pip through ``--find-links``, as the page says), installed into a directory
of its own and stepped in a subprocess.

Building ccgym's wheel takes minutes, so the build test is slow. Where
pip installed this tree (``pip install .``, as the README's test command and
CI do) the wheel is the installed files repacked
(install_helpers.wheel_of_installed), not built again; else set
CCGYM_TEST_WHEEL_DIR to a directory holding a ccgym wheel of this tree for
this Python (tools/plugin_check.sh -o DIR leaves one in DIR/wheels) to skip
that step. The page's own C also compiles at -O0 and -O2 without the build
(quick), referencing no ccgym symbol."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

import ccgym
from install_helpers import wheel_of_installed

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "custom_env.md"
FILES = {"pyproject.toml", "CMakeLists.txt", "src/myenv.c", "python/myenv/__init__.py"}
_FILE_LINE = re.compile(r"^(?:#|/\*)\s*file:\s*(\S+?)\s*(?:\*/)?$")


def page_files(text: str) -> dict[str, str]:
    """The files of the page's package: its fenced blocks whose first line
    names a file, joined per file in page order."""
    files: dict[str, list[str]] = {}
    for m in re.finditer(r"^```[\w+-]*\n(.*?)^```", text, re.S | re.M):
        body = m.group(1)
        named = _FILE_LINE.match(body.split("\n", 1)[0])
        if named:
            files.setdefault(named.group(1), []).append(body)
    return {path: "\n".join(parts) for path, parts in files.items()}


def write_package(files: dict[str, str], where: pathlib.Path) -> pathlib.Path:
    pkg = where / "myenv"
    for path, text in files.items():
        target = pkg / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return pkg


def _env() -> dict[str, str]:
    # (Not the sanitizer libraries tools/sanitize.sh preloads: they break compilers.)
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def test_page_shows_every_file():
    assert set(page_files(PAGE.read_text())) == FILES


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("nm") is None,
                    reason="needs gcc and nm")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_page_c_compiles_self_contained(tmp_path, opt):
    """The page's C compiles warning-free against the installed headers and
    references no ccgym symbol (a plugin links against nothing of ccgym's),
    even unoptimised."""
    src = tmp_path / "myenv.c"
    src.write_text(page_files(PAGE.read_text())["src/myenv.c"])
    so = tmp_path / "m.so"
    r = subprocess.run(["gcc", opt, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                        "-I", ccgym.get_include(), "-I", sysconfig.get_paths()["include"],
                        str(src), "-o", str(so), "-lm"],
                       capture_output=True, text=True, timeout=120, env=_env())
    assert r.returncode == 0, r.stderr
    undefined = subprocess.run(["nm", "-u", str(so)], capture_output=True, text=True).stdout
    assert not re.findall(r"\bccgym_\w+", undefined), undefined


@pytest.fixture(scope="module")
def ccgym_wheels(tmp_path_factory) -> pathlib.Path:
    """A directory with a ccgym wheel of the tree under test."""
    given = os.environ.get("CCGYM_TEST_WHEEL_DIR")
    if given:
        return pathlib.Path(given)
    out = tmp_path_factory.mktemp("wheels")
    if wheel_of_installed(ROOT, out) is not None:  # pip's install of this tree, repacked
        return out
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT),
                        "-w", str(out)], capture_output=True, text=True, timeout=1800,
                       env=_env())
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return out


def _pip_build(pkg: pathlib.Path, wheels: pathlib.Path, target: pathlib.Path):
    """The page's command, `pip install --find-links wheels ./myenv` (build
    isolation on), into `target` rather than this environment."""
    return subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-cache-dir",
                           "--find-links", str(wheels), "--target", str(target), str(pkg)],
                          capture_output=True, text=True, timeout=1800, env=_env(),
                          cwd=pkg.parent)


STEP = """
import gymnasium as gym, numpy as np
import ccgym
import myenv
env = gym.make("myenv/PointMass-v0", render_mode="rgb_array")
obs, _ = env.reset(seed=0)
assert obs.shape == (6,) and obs.dtype == np.float32
for t in range(250):
    obs, r, term, trunc, _ = env.step(np.array([0.5, -0.5], np.float32))
    assert r <= 0
    if term or trunc:
        break
assert trunc or term
assert env.render().shape == (500, 500, 3)
env.step(np.array([0.5, -0.5], np.float64))  # the typed step
envs = ccgym.make_vec("myenv/PointMass-v0", num_envs=8, mass=np.linspace(0.5, 2.0, 8))
obs, _ = envs.reset(seed=1)
for _ in range(20):
    obs, r, term, trunc, _ = envs.step(envs.action_space.sample())
assert obs.shape == (8, 6) and np.isfinite(obs).all()
print("OK")
"""


@pytest.mark.slow
def test_page_package_builds_and_steps(tmp_path, ccgym_wheels):
    pkg = write_package(page_files(PAGE.read_text()), tmp_path)
    target = tmp_path / "site"
    r = _pip_build(pkg, ccgym_wheels, target)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # The package from its own directory, ccgym from the environment under
    # test (the --target copy of ccgym, if pip put one there, removed).
    for extra in target.glob("ccgym*"):
        shutil.rmtree(extra) if extra.is_dir() else extra.unlink()
    env = dict(_env(), PYTHONPATH=os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", STEP], capture_output=True, text=True,
                       timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr


@pytest.mark.slow
def test_a_broken_page_fails(tmp_path, ccgym_wheels):
    """The check can fail: the page's CMakeLists.txt without
    cmake_minimum_required (issue 46's first stumble) does not build."""
    files = page_files(PAGE.read_text())
    cmake = files["CMakeLists.txt"]
    assert "cmake_minimum_required" in cmake
    files["CMakeLists.txt"] = "\n".join(line for line in cmake.splitlines()
                                        if not line.startswith("cmake_minimum_required"))
    r = _pip_build(write_package(files, tmp_path), ccgym_wheels, tmp_path / "site")
    assert r.returncode != 0
    assert "cmake_minimum_required" in r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_missing_typed_step_is_a_compile_error(tmp_path):
    """A step the def names but the file does not define fails the build
    (an undeclared identifier), not the import (an undefined symbol)."""
    c = page_files(PAGE.read_text())["src/myenv.c"]
    start = c.index("CCGYM_INLINE void pointmass_step_typed(")
    end = c.index("\n}\n", start) + 3
    src = tmp_path / "broken.c"
    src.write_text(c[:start] + c[end:])
    r = subprocess.run(["gcc", "-O2", "-fPIC", "-shared", "-I", ccgym.get_include(),
                        "-I", sysconfig.get_paths()["include"], str(src), "-o",
                        str(tmp_path / "b.so")], capture_output=True, text=True, timeout=120,
                       env=_env())
    assert r.returncode != 0
    assert "pointmass_step_typed" in r.stderr and "undeclared" in r.stderr, r.stderr
