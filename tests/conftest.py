"""Suite-wide configuration: the slow cases.

``python -m pytest`` leaves out tests marked ``slow`` (pyproject's addopts:
``-m "not slow"``); ``python -m pytest -m ""`` (CI) runs everything. Beside
the tests marked in their own files (``test_parity_1024``, the long
single-env runs, the stub check), the cases below are marked here: the
heaviest of their parametrisations, measured with
``python -m pytest FILE -m "not slow" --durations=12`` file by file (each took
18-45 s on a loaded 2-core machine, the typical case well under 1 s;
the fuzzer's machines stay in, tools/fuzz.sh runs that file as it is). Every other
case of the same test still runs by default, and so does every env's parity
in the vector suites, so the default run keeps one check of each behaviour.
A listed id that no longer exists is an error, so a rename cannot silently
move a case back into the default run.

``CCGYM_ADDED_ENVS_ONLY=1`` (tools/scaffold_check.sh, in the tree it adds
an env to) deselects the cases parametrised by a stock id only: the stock
envs' sources are the tree CI's main run tested, case for case. Every other
test runs, each case of the added ids and every test that is not
parametrised by an id (those that iterate the registry) included.
"""

from __future__ import annotations

import os

import pytest

SLOW_CASES = {
    "tests/test_single_parity.py": (
        "test_reset_options_parity[Acrobot-v1-raw]",
        "test_reset_options_parity[Acrobot-v1-make]",
        "test_reset_options_parity[MountainCarContinuous-v0-make]",
        "test_reset_options_parity[Pendulum-v1-make]",
        "test_make_parity[MountainCarContinuous-v0]",
        "test_make_parity[Pendulum-v1]",
        "test_raw_class_parity[Pendulum-v1-{'g': 9.81}]",
        "test_raw_class_parity[MountainCarContinuous-v0-{'goal_velocity': -0.01}]",
        "test_acrobot_torque_noise_and_nips[noise0.5-nips-make]",
    ),
    "tests/test_render_bounds.py": ("test_random_finite_inputs_render_in_bounded_time",),
}


def pytest_collection_modifyitems(config, items):
    seen = {path: set() for path in SLOW_CASES}
    files = set()
    for item in items:
        path, _, name = item.nodeid.partition("::")
        files.add(path)
        if name in SLOW_CASES.get(path, ()):
            item.add_marker(pytest.mark.slow)
            seen[path].add(name)
    missing = [f"{path}::{name}" for path, names in SLOW_CASES.items() if path in files
               for name in names if name not in seen[path]]
    # Only when the whole file was collected (a -k or ::name selection
    # collects part of it).
    if missing and not config.getoption("keyword") and not any(
            "::" in str(a) for a in config.args):
        raise pytest.UsageError(f"tests/conftest.py SLOW_CASES names no test: {missing}")
    if os.environ.get("CCGYM_ADDED_ENVS_ONLY"):
        _keep_added_envs_cases(config, items)


def _keep_added_envs_cases(config, items):
    """Deselects the cases whose parameters name a stock id and no added one
    (CCGYM_ADDED_ENVS_ONLY: see the module's docstring)."""
    import ccgym
    from reference import STOCK_IDS

    added = [i for i in ccgym.ENV_IDS if i not in STOCK_IDS]
    if not added:
        raise pytest.UsageError("CCGYM_ADDED_ENVS_ONLY is set but this build adds no env")
    kept, dropped = [], []
    for item in items:
        params = item.name.partition("[")[2]
        stock_only = (any(i in params for i in STOCK_IDS)
                      and not any(i in params for i in added))
        (dropped if stock_only else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(autouse=True, scope="session")
def _sb3_logdir(tmp_path_factory):
    """Stable-Baselines3's logger makes an ``SB3-<date>`` folder in the temp
    dir for every model that learns (``SB3_LOGDIR`` unset); point it into
    pytest's own temporary tree so a test run leaves nothing in /tmp. Subprocess
    runs (``ccgym train`` in the docs' pages) inherit it."""
    import os

    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3-logs"))
    yield
    if old is None:
        del os.environ["SB3_LOGDIR"]
    else:
        os.environ["SB3_LOGDIR"] = old
