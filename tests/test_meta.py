"""Package metadata and the command line as a user meets them: one version
everywhere, the type stubs shipped and right, help text for every option,
clear messages for missing optional dependencies."""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.resources
import os
import re
import subprocess
import sys

import pytest

import ccgym
from ccgym import cli

COMPILED = ("_core", "_front_core", "_ceiling", "_render")


def test_one_version_everywhere():
    """ccgym.__version__, the installed distribution's metadata and
    ``ccgym --version`` agree (pyproject reads the version from _version.py)."""
    from ccgym._version import __version__

    assert ccgym.__version__ == __version__
    assert importlib.metadata.version("ccgym") == __version__
    assert re.fullmatch(r"\d+\.\d+\.\d+([abrc.]+\d+|\.dev\d+|\.post\d+)?", __version__)
    out = subprocess.run([sys.executable, "-m", "ccgym", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"ccgym {__version__}"


def test_changelog_names_the_version():
    """CHANGELOG.md (in a source checkout) has an entry for the current version."""
    path = os.path.join(os.path.dirname(__file__), os.pardir, "CHANGELOG.md")
    if not os.path.exists(path):
        pytest.skip("no CHANGELOG.md beside the tests (not a source checkout)")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert re.search(rf"^## \[{re.escape(ccgym.__version__)}\]", text, re.M), \
        f"CHANGELOG.md has no '## [{ccgym.__version__}]' entry"


def test_typing_files_are_installed():
    """The wheel carries py.typed and a .pyi stub beside every compiled module."""
    files = importlib.resources.files("ccgym")
    assert files.joinpath("py.typed").is_file()
    for name in COMPILED:
        assert files.joinpath(f"{name}.pyi").is_file(), f"no {name}.pyi in the installed package"


@pytest.mark.slow  # mypy loads numpy's and Gymnasium's stubs: about a minute of CPU
def test_stubs_match_the_compiled_modules(tmp_path):
    """mypy's stubtest finds no difference between each .pyi and its built
    module (beyond tests/stubtest_allowlist.txt: what Cython hides)."""
    pytest.importorskip("mypy.stubtest", reason="stubtest needs mypy (the test extra)")
    allowlist = os.path.join(os.path.dirname(__file__), "stubtest_allowlist.txt")
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--allowlist", allowlist,
         *(f"ccgym.{m}" for m in COMPILED)],
        capture_output=True, text=True, cwd=tmp_path,
        env={**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "mypy_cache")})
    assert out.returncode == 0, out.stdout + out.stderr


MYPY_CHECK = """
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import TypeAlias, assert_type

import ccgym
import ccgym.envs
import ccgym.vector

F32: TypeAlias = npt.NDArray[np.float32]
F64: TypeAlias = npt.NDArray[np.float64]
B: TypeAlias = npt.NDArray[np.bool_]
envs = ccgym.make_vec("CartPole-v1", 4)
assert_type(envs, ccgym.vector.VectorEnv)
assert_type(envs.reset(seed=0), tuple[F32, dict[str, Any]])
assert_type(envs.step(np.zeros(4, np.int64)), tuple[F32, F64, B, B, dict[str, Any]])
env = ccgym.envs.CartPoleEnv()
assert_type(env.reset(seed=0), tuple[F32, dict[str, Any]])
assert_type(env.step(0), tuple[F32, float, bool, bool, dict[str, Any]])
reveal_type(envs.step(np.zeros(4, np.int64)))
"""


@pytest.mark.slow  # mypy loads numpy's and Gymnasium's stubs: ~15 s of CPU
def test_mypy_sees_make_vec_and_the_step_tuples(tmp_path):
    """What a user's mypy infers (issue 24, item 7): ccgym.make_vec returns a
    ccgym.vector.VectorEnv (it was Any), and its reset/step and the single
    env's give their tuples of typed arrays, not Any (assert_type fails on
    Any as on any other type)."""
    pytest.importorskip("mypy", reason="needs mypy (the test extra)")
    (tmp_path / "check.py").write_text(MYPY_CHECK)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "check.py"],
        capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and "Success: no issues found" in out.stdout, \
        out.stdout + out.stderr
    assert "Revealed type is \"tuple[" in out.stdout  # the check ran on what it names


def _parser() -> argparse.ArgumentParser:
    parsers = []
    real = argparse.ArgumentParser.parse_args

    def capture(self, args=None, namespace=None):
        parsers.append(self)
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = capture
    try:
        with pytest.raises(SystemExit):
            cli.main(["demo"])
    finally:
        argparse.ArgumentParser.parse_args = real
    return parsers[0]


def test_every_cli_option_has_help():
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) >= {"demo", "bench", "render-bench", "train", "record"}
    missing = []
    for name, p in sub.choices.items():
        for action in p._actions:
            if not action.help:
                missing.append(f"ccgym {name} {'/'.join(action.option_strings) or action.dest}")
            elif "`" in action.help or "``" in (p.description or ""):
                missing.append(f"ccgym {name}: reST/Markdown markup in help: {action.help!r}")
    assert not missing, missing


def test_version_option(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"ccgym {ccgym.__version__}"


def test_demo_runs(capsys):
    assert cli.main(["demo", "--num-envs", "2", "--steps", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ccgym {ccgym.__version__}")
    for env_id in ccgym.ENV_IDS:
        assert env_id in out


@pytest.mark.parametrize("missing", ["imageio", "imageio_ffmpeg"])
def test_record_mp4_without_imageio_names_the_extra(tmp_path, monkeypatch, capsys, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # import raises ImportError
    out = tmp_path / "x.mp4"
    assert cli.main(["record", "CartPole-v1", "--out", str(out), "--max-steps", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ccgym record: writing .mp4 needs imageio and imageio-ffmpeg (")
    assert "is not installed" in err and 'pip install "ccgym[record]"' in err
    assert "`" not in err
    assert not out.exists()


def test_record_extra_brings_the_video_writers():
    reqs = importlib.metadata.requires("ccgym") or []
    record = {re.split(r"[<>=!~ ;\[]", r)[0].lower() for r in reqs if 'extra == "record"' in r}
    assert record >= {"pillow", "imageio", "imageio-ffmpeg"}


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)


def _readme_test_command() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        lines = [ln for ln in f.read().splitlines()
                 if ln.startswith("pip install ") and "python -m pytest" in ln]
    assert len(lines) == 1, lines
    return lines[0]


def test_ci_runs_the_readme_test_command_first_in_a_clean_venv():
    """.ci/run's main leg runs the README's test command verbatim (plus -p
    no:cacheprovider), and nothing but pip itself is installed into its venv
    before it (issue 46, item 2): the frameworks come after, so a missing
    extra in the README's command fails CI, as it fails a newcomer."""
    path = os.path.join(ROOT, ".ci", "run")
    if not os.path.exists(path):
        pytest.skip("no .ci/run beside the tests (not a source checkout)")
    readme = _readme_test_command()
    with open(path, encoding="utf-8") as f:
        ci = [ln for ln in f.read().splitlines() if not ln.lstrip().startswith("#")]
    at = [i for i, ln in enumerate(ci) if ln.startswith(readme)]
    assert at, f".ci/run does not run the README's test command {readme!r}"
    assert ci[at[0]] in (readme, readme + " -p no:cacheprovider"), ci[at[0]]
    before = [ln for ln in ci[:at[0]] if "pip install" in ln]
    assert before == ["python -m pip install --quiet --upgrade pip"], before
    with open(os.path.join(ROOT, "docs", "getting-started.md"), encoding="utf-8") as f:
        assert readme in f.read().splitlines()


def test_train_extra_is_the_same_everywhere():
    """README, getting-started and ccgym train's own messages name one extra
    for ``ccgym train``, the one that brings what it imports (issue 46)."""
    from ccgym import train

    reqs = importlib.metadata.requires("ccgym") or []
    zoo = {re.split(r"[<>=!~ ;\[]", r)[0].lower() for r in reqs if 'extra == "zoo"' in r}
    assert zoo >= {"rl_zoo3", "stable-baselines3", "torch"}
    for page in ("README.md", os.path.join("docs", "getting-started.md")):
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            text = f.read()
        assert re.search(r'pip install "?\.\[zoo\]"? .*ccgym train', text), page
        assert not re.search(r"\[sb3\].*ccgym train", text), page
        assert ",zoo," in _readme_test_command() and _readme_test_command() in text
    src = importlib.resources.files("ccgym").joinpath("train.py").read_text()
    assert "ccgym[zoo]" in src and "ccgym[sb3]" not in src


def test_dir_lists_the_package_face_only():
    """issue 46: dir(ccgym) is what a user may use, not typing's names that
    the module imports for its annotations; every name in __all__ is there."""
    names = set(dir(ccgym))
    assert not names & {"annotations", "Any", "Literal", "TYPE_CHECKING"}, names
    assert set(ccgym.__all__) <= names
    assert {"make_vec", "register_c_env", "envs", "__version__"} <= names


LIVE_ATTRIBUTES_CHECK = """
from typing import assert_type
from ccgym.envs import AcrobotEnv, CartPoleEnv, MountainCarEnv, PendulumEnv

env = CartPoleEnv()
env.gravity = 5.0
assert_type(env.length, float)
assert_type(env.x_threshold, float)
assert_type(env.kinematics_integrator, str)
assert_type(PendulumEnv().g, float)
assert_type(MountainCarEnv().goal_velocity, int)
assert_type(AcrobotEnv().AVAIL_TORQUE, list[float])
"""


def test_mypy_sees_the_live_attributes(tmp_path):
    """issue 46: the raw classes' documented live attributes (installed at
    import, over the C params) are typed for a user's mypy."""
    pytest.importorskip("mypy", reason="needs mypy (the test extra)")
    (tmp_path / "check.py").write_text(LIVE_ATTRIBUTES_CHECK)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--python-version", "3.11", "--cache-dir",
         str(tmp_path / "cache"), "check.py"], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and "Success: no issues found" in out.stdout, \
        out.stdout + out.stderr


def test_live_attribute_annotations_are_gymnasiums_types():
    """Each stock class annotates every attribute its def makes live (its
    list attributes too), with the type of Gymnasium's own value: a def
    attribute added without an annotation, or typed otherwise, fails."""
    import inspect

    from reference import class_pairs

    for name, (gym_cls, ours) in class_pairs().items():
        hints = inspect.get_annotations(ours)  # the class's own (strings: the future import)
        info = ccgym._core.env_info(ours.kind)
        gym_env = gym_cls()
        for attr in (*info.attributes, *info.list_attributes):
            assert attr in hints, (name, attr)
            value = getattr(gym_env, attr)
            want = "list[float]" if isinstance(value, list) else type(value).__name__
            assert hints[attr] == want, (name, attr, hints[attr], want)


def test_record_gif_without_a_writer_names_the_extra_before_playing(tmp_path, monkeypatch,
                                                                   capsys):
    """issue 46: `ccgym record --out x.gif` after a plain install names the
    record extra at once, not after playing the episode."""
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    monkeypatch.setitem(sys.modules, "imageio", None)
    monkeypatch.setitem(sys.modules, "imageio.v2", None)
    played = []
    monkeypatch.setattr("gymnasium.make", lambda *a, **k: played.append(a))
    out = tmp_path / "x.gif"
    assert cli.main(["record", "CartPole-v1", "--out", str(out), "--max-steps", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ccgym record: writing a .gif needs Pillow or imageio")
    assert 'pip install "ccgym[record]"' in err
    assert not played and not out.exists()


def test_record_reports_the_frames_the_gif_holds(tmp_path):
    """issue 46: Pillow merges identical consecutive GIF frames; the count
    reported is the file's (it said 19 for a GIF of 17)."""
    pytest.importorskip("PIL")
    import numpy as np
    from PIL import Image

    from ccgym.record import write_video

    a, b = np.zeros((4, 4, 3), np.uint8), np.full((4, 4, 3), 255, np.uint8)
    out = tmp_path / "d.gif"
    assert write_video(str(out), [a, a, a, b, b, a], fps=50) == 3
    with Image.open(out) as im:
        assert im.n_frames == 3


def test_record_command_reports_the_gifs_frames(tmp_path, capsys):
    """The command's count is the GIF's: MountainCar's first steps leave the
    car's pixels unchanged, so the GIF holds fewer frames than were drawn."""
    pytest.importorskip("PIL")
    from PIL import Image

    out = tmp_path / "m.gif"
    assert cli.main(["record", "MountainCar-v0", "--out", str(out), "--max-steps", "4"]) == 0
    printed = capsys.readouterr().out
    with Image.open(out) as im:
        held = im.n_frames
    assert printed.startswith(f"wrote {out}: {held} frames of MountainCar-v0"), printed
