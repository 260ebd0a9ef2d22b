"""The bench's reference ceiling computes what the real kernels compute, and
``ccgym bench`` runs end to end with output that reads for a user. No timing
is asserted here: speed is for the benchmark to show, not for tests to gate."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import ccgym
from ccgym import envs
from ccgym.benchmarks import harness, peers, report
from ccgym.benchmarks.harness import Result, Skip, Task

_ceiling = pytest.importorskip("ccgym._ceiling")

STEPS = 12
N = 64


def _ceiling_state(vec, env_id: str) -> np.ndarray:
    """The real env's state in the ceiling's layout (the bench's conversion)."""
    cls = getattr(envs, ccgym.ENV_SPECS[env_id][0])
    return peers.ceiling_layout(vec._core.state_view(cls._state_dtype), vec._core.kind)


@pytest.mark.parametrize("env_id", ccgym.ENV_IDS)
def test_ceiling_matches_kernel(env_id):
    """From the same state and actions, the ceiling's state, observation,
    reward and terminated flag equal the real path's, bit for bit, while no
    instance terminates (the ceiling has no reset)."""
    # No time limit and autoreset disabled: the real path never resets, and
    # raises if an instance is done, so every compared step is a plain step.
    vec = ccgym.make_vec(env_id, num_envs=N, max_episode_steps=0, autoreset_mode="Disabled")
    vec.reset(seed=12345)
    vec.action_space.seed(7)
    actions = np.stack([vec.action_space.sample() for _ in range(STEPS + 1)])
    # One real step first: MountainCarContinuous's state is float32 from then on,
    # the only state the ceiling models.
    _, _, terminated, _, _ = vec.step(actions[0])
    assert not terminated.any()
    kind = vec._core.kind
    run = _ceiling.Run(kind, _ceiling_state(vec, env_id))
    ceiling_actions = actions.astype(_ceiling.action_dtype(kind))
    # A random CartPole falls after ~20 steps: compare the first few.
    steps = 5 if kind == "CartPole" else STEPS
    for k in range(1, steps + 1):
        obs, reward, terminated, _, _ = vec.step(actions[k])
        assert not terminated.any(), "pick a seed where nothing terminates"
        seconds = run.run(ceiling_actions[k:k + 1], 1)
        assert seconds >= 0
        np.testing.assert_array_equal(run.obs, obs)
        np.testing.assert_array_equal(run.reward, reward)
        np.testing.assert_array_equal(run.terminated, terminated)
        np.testing.assert_array_equal(run.state, _ceiling_state(vec, env_id))


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_ceiling_many_steps_in_one_call(env_id):
    """k steps in one C call (cycling action rows) equal k real steps: Pendulum
    never terminates; CartPole starts upright and is stepped a few times."""
    k = 40 if env_id == "Pendulum-v1" else 6
    vec = ccgym.make_vec(env_id, num_envs=N, max_episode_steps=0, autoreset_mode="Disabled")
    vec.reset(seed=3)
    vec.action_space.seed(3)
    rows = np.stack([vec.action_space.sample() for _ in range(5)])
    kind = vec._core.kind
    run = _ceiling.Run(kind, _ceiling_state(vec, env_id))
    for t in range(k):
        obs, _, terminated, _, _ = vec.step(rows[t % len(rows)])
        assert not terminated.any()
    run.run(rows.astype(_ceiling.action_dtype(kind)), k, 1)
    np.testing.assert_array_equal(run.obs, obs)
    np.testing.assert_array_equal(run.state, _ceiling_state(vec, env_id))


def test_ceiling_threads_do_not_change_results():
    n = 3 * 2048 + 5  # enough for two threads, uneven split
    rng = np.random.default_rng(0)
    state = np.ascontiguousarray(
        np.stack([rng.uniform(-np.pi, np.pi, n), rng.uniform(-1, 1, n), np.zeros(n)], axis=1))
    actions = rng.uniform(-2, 2, (4, n)).astype(np.float32)
    one, two = _ceiling.Run("Pendulum", state.copy()), _ceiling.Run("Pendulum", state.copy())
    one.run(actions, 9, 1)
    two.run(actions, 9, 2)
    np.testing.assert_array_equal(one.state, two.state)
    np.testing.assert_array_equal(one.obs, two.obs)


def test_ceiling_rejects_bad_input():
    state = np.zeros((4, 4))
    run = _ceiling.Run("CartPole", state)
    with pytest.raises(TypeError):
        run.run(np.zeros((1, 4), dtype=np.float32), 1)
    with pytest.raises(ValueError):
        run.run(np.zeros((1, 5), dtype=np.int64), 1)
    with pytest.raises(ValueError):
        run.run(np.full((1, 4), 2, dtype=np.int64), 1)
    with pytest.raises(ValueError):
        _ceiling.Run("CartPole", np.zeros((4, 3)))
    with pytest.raises(ValueError):
        _ceiling.Run("Snake", np.zeros((4, 4)))


def test_ceiling_pool_is_in_range():
    """The ceiling starts from live states of the real env, in its layout."""
    pool = peers.ceiling_state_pool("CartPole-v1", 64)
    assert pool.shape == (peers.CEILING_SNAPSHOTS * 1024, 4) and np.isfinite(pool).all()
    assert np.abs(pool[:, 2]).max() < 1.0  # autoreset keeps the pole near upright


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCar-v0", "Acrobot-v1"])
def test_ceiling_resets_terminated_instances(env_id):
    """With a seed, an instance that terminates is reset at once with its
    env's reset draw: the values ccgym's own reset(seed=...) draws for that
    instance (the first reset of generator seed + i); the others step on as
    without a seed; each step's outputs are the same either way."""
    vec = ccgym.make_vec(env_id, num_envs=N)
    vec.reset(seed=100)
    fresh = _ceiling_state(vec, env_id)  # what the ceiling's generators draw first
    kind = vec._core.kind
    rng = np.random.default_rng(1)
    if kind == "CartPole":  # half the poles already past the angle limit
        state = np.stack([np.zeros(N), np.zeros(N), rng.uniform(-0.4, 0.4, N), np.zeros(N)], 1)
    elif kind == "MountainCar":  # half the cars at the goal with a positive velocity
        state = np.stack([rng.choice([-0.5, 0.55], N), np.full(N, 0.01)], 1)
    else:  # half the links swung up high
        state = np.stack([rng.choice([0.0, 3.0], N), np.zeros(N), np.zeros(N), np.zeros(N)], 1)
    state = np.ascontiguousarray(state)
    plain, resetting = _ceiling.Run(kind, state.copy()), _ceiling.Run(kind, state.copy(), seed=100)
    actions = np.ones((1, N), dtype=np.int64)
    plain.run(actions, 1)
    resetting.run(actions, 1)
    done = plain.terminated
    assert 0 < done.sum() < N
    np.testing.assert_array_equal(resetting.terminated, done)
    np.testing.assert_array_equal(resetting.obs, plain.obs)
    np.testing.assert_array_equal(resetting.reward, plain.reward)
    np.testing.assert_array_equal(resetting.state[done], fresh[done])
    np.testing.assert_array_equal(resetting.state[~done], plain.state[~done])


def test_ceiling_rejects_bad_seed():
    with pytest.raises((ValueError, OverflowError)):
        _ceiling.Run("CartPole", np.zeros((4, 4)), seed=-1)


def test_bench_quick_json(tmp_path):
    """`ccgym bench --quick --json` runs in a subprocess and writes every section."""
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-m", "ccgym", "bench", "--quick", "--ceiling", "--breakdown",
         "--ids", "CartPole-v1,Pendulum-v1", "--num-envs", "1,64", "--budget", "0.005",
         "--reset-envs", "1024", "--memory-envs", "10000", "--targets", "--json", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "CartPole-v1" in proc.stdout and "== goals" in proc.stdout
    assert "vs ceiling" in proc.stdout
    assert "[" in proc.stderr  # progress
    data = json.loads(out.read_text())
    impls = {(r["env_id"], r["num_envs"], r["impl"]) for r in data["results"]}
    for env_id in ("CartPole-v1", "Pendulum-v1"):
        for impl in (peers.GYM_RAW, peers.CC_RAW, peers.GYM_MAKE, peers.CC_MAKE):
            assert (env_id, 1, impl) in impls
        for n in (1, 64):
            assert (env_id, n, peers.CC_VEC) in impls
            assert (env_id, n, peers.CEILING) in impls
            assert (env_id, n, peers.GYM_SYNC) in impls
    assert ("CartPole-v1", 64, peers.GYM_NUMPY) in impls
    for env_id in ("CartPole-v1", "Pendulum-v1"):
        for n in (1, 64):
            assert (env_id, n, peers.CC_FAST) in impls
            assert (env_id, n, peers.CC_FAST_NOCOPY) in impls
    assert data["meta"]["fast_isa"] in ("generic", "avx2", "avx512")
    assert any(t["target"].startswith("CartPole-v1 N=64: ccgym fast /") and t["value"] > 0
               for t in data["targets"])
    assert all(r["steps_per_s"] > 0 for r in data["results"])
    vec = [r for r in data["results"] if r["impl"] == peers.CC_VEC]
    assert all(r["vs_gym"] is not None and r["vs_ceiling"] is not None for r in vec)
    assert {r["env_id"] for r in data["reset"]} == {"CartPole-v1", "Pendulum-v1"}
    assert data["memory"]["num_envs"] == 10000 and data["memory"]["state_buffers_bytes"] > 0
    assert data["targets"] and data["breakdown"]


def test_bench_rejects_bad_arguments():
    proc = subprocess.run([sys.executable, "-m", "ccgym", "bench", "--ids", "Snake-v0"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "unknown id" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "ccgym", "bench", "--num-envs", "0"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0


def test_measure_counts_work():
    calls = []

    def run(k):
        calls.append(k)
        return 1e-3 * k

    rate, per_call, n_calls = harness.measure(run, 10, budget=0.03, repeats=3)
    assert per_call == pytest.approx(1e-3)
    assert rate == pytest.approx(10 / 1e-3)
    assert n_calls == 10


# ------------------------------------------------- output a user can read
TINY = ["--no-single", "--no-reset", "--no-memory", "--no-peers", "--no-copy-false",
        "--no-fast", "--budget", "0.005", "--repeats", "1"]


def _bench(args, cwd=None):
    proc = subprocess.run([sys.executable, "-m", "ccgym", "bench", *args], capture_output=True,
                          text=True, timeout=600, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_bench_json_dash_writes_stdout(tmp_path):
    """`--json -` puts the JSON document on standard output (the tables go to
    standard error) and writes no file named '-'."""
    proc = _bench(["--ids", "CartPole-v1", "--num-envs", "1", *TINY, "--json", "-"],
                  cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert {r["impl"] for r in data["results"]} >= {peers.CC_VEC, peers.GYM_NUMPY}
    assert "== CartPole-v1 ==" in proc.stderr
    assert not (tmp_path / "-").exists()
    assert data["meta"]["ratios"] == report.RATIO_DEFINITIONS


def test_bench_compares_rows_at_the_same_n_only():
    """Above SyncVectorEnv's largest N an id without a Gymnasium vector env
    of its own has no 'vs gym' ratio, rather than one against a smaller N;
    without --ceiling the table has no ceiling column; without --targets
    no goals."""
    proc = _bench(["--ids", "MountainCar-v0", "--num-envs", "1,128", *TINY, "--json", "-"])
    data = json.loads(proc.stdout)
    rows = {(r["num_envs"], r["impl"]): r for r in data["results"]}
    assert rows[(1, peers.CC_VEC)]["gym_ref"] == peers.GYM_SYNC
    assert rows[(1, peers.CC_VEC)]["vs_gym"] > 0
    assert (128, peers.GYM_SYNC) not in rows
    assert rows[(128, peers.CC_VEC)]["vs_gym"] is None
    assert rows[(128, peers.CC_VEC)]["gym_ref"] is None
    assert all(r["vs_ceiling"] is None for r in data["results"])
    table = proc.stderr
    assert "vs ceiling" not in table and "~gym" not in table
    assert "same N" in table  # the ratio column says what it compares
    assert data["targets"] == [] and "goals" not in table and "NOT MET" not in table


def test_add_ratios_never_crosses_n():
    def row(n, impl, rate):
        return Result("Pendulum-v1", "vector", n, impl, 1, rate, 1.0, 1, 1)

    results = [row(1, peers.CC_VEC, 100.0), row(1, peers.GYM_SYNC, 10.0),
               row(1024, peers.CC_VEC, 1e5), row(1024, peers.CEILING, 2e5),
               row(1024, peers.ENVPOOL, 5e4)]
    report.add_ratios(results)
    assert results[4].vs_ceiling is None  # the ceiling column is for ccgym's rows
    assert results[0].vs_gym == pytest.approx(10.0) and results[0].gym_ref == peers.GYM_SYNC
    assert results[2].vs_gym is None and results[2].gym_ref is None
    assert results[2].vs_ceiling == pytest.approx(0.5)
    assert results[0].vs_ceiling is None
    table = report.format_table(results)
    assert "vs ceiling" in table and "0.50x" in table and "10.00x" in table
    assert "vs ceiling" not in report.format_table(results[:2])


def test_progress_counts_in_order_to_the_total():
    """Every task is counted once, skipped ones too, in the order the lines
    are printed, so that the last line reads total/total."""
    def ok():
        return (lambda k: 1e-3 * k), 1, lambda: None

    def skip():
        raise Skip("not here")

    tasks = []
    for n in (1, 2):
        for impl, factory in (("a", ok), ("b", skip), ("c", ok)):
            tasks.append(Task("CartPole-v1", "vector", n, impl, 1, factory))
    lines = []
    results, notes = harness.run_tasks(tasks, 0.003, 1, lines.append)
    assert [r.impl for r in results] == ["a", "c", "a", "c"]
    assert [line.split("]")[0] for line in lines] == [f"[{k}/6" for k in range(1, 7)]
    assert "skipped" in lines[0] and "skipped" in lines[3]
    assert notes == ["b skipped: not here"]


def test_bench_progress_ends_at_total():
    """With the optional peers asked for (some are not installed), the
    counter still runs 1, 2, ... total."""
    args = [a for a in TINY if a != "--no-peers"]
    proc = _bench(["--ids", "Pendulum-v1", "--num-envs", "1,4", *args])
    total = int(proc.stderr.split("ccgym bench: ")[1].split(" rows")[0])
    counts = [line.split("]")[0] for line in proc.stderr.splitlines() if line.startswith("[")]
    assert counts == [f"[{k}/{total}" for k in range(1, total + 1)]


def test_bench_help_reads_as_plain_text():
    proc = subprocess.run([sys.executable, "-m", "ccgym", "bench", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "``" not in proc.stdout and "--targets" in proc.stdout and "--json" in proc.stdout


def test_import_ccgym_loads_no_benchmark_code():
    code = ("import sys, ccgym, ccgym.rendering, ccgym.vector, ccgym.envs; "
            "print([m for m in sys.modules if m.startswith('ccgym.benchmarks')])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_memory_child_ignores_earlier_peaks():
    """The memory figure is the env's own: a larger peak the process had
    before the env was built (imports, or the parent's RSS that getrusage
    carries across fork and exec) is not counted."""
    code = ("import numpy as np; a = np.ones(48 << 20, dtype=np.uint8); del a; "
            "from ccgym.benchmarks.sections import memory_child; memory_child(10000)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert 0 < data["peak_increase_bytes"] < 24 << 20


def test_render_bench_json_to_stdout(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ccgym", "render-bench", "--ids", "CartPole-v1,Pendulum-v1",
         "--batch", "4", "--seconds", "0.01", "--json", "-"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["frames_per_s"]
    assert [r["env"] for r in rows] == ["CartPole-v1", "Pendulum-v1"]
    assert all(r["single"] > 0 and r["batch"] > 0 and r["pixels"] > 0 for r in rows)
    assert "frames/s" in proc.stderr and not (tmp_path / "-").exists()


def test_noisy_rows_are_marked():
    """Rows whose repeats disagree are starred, with a note saying why."""
    steady = Result("CartPole-v1", "vector", 1, peers.CC_VEC, 1, 1e6, 1.0, 1, 3, spread=1.05)
    noisy = Result("CartPole-v1", "vector", 1, peers.GYM_NUMPY, 1, 1e4, 100.0, 1, 3,
                   spread=2.0)
    assert report.noisy_note([steady]) is None
    note = report.noisy_note([steady, noisy])
    assert note.startswith("1 of 2 rows (marked *)") and "busy" in note
    table = report.format_table([steady, noisy])
    assert "1.00M " in table and "10.00k*" in table


def test_run_tasks_records_the_spread_of_repeats():
    # Seconds per call: steady through warm-up and calibration, then repeats
    # of which the slowest takes 3x the fastest.
    times = iter([1e-3] * 4 + [1e-3, 3e-3, 2e-3])

    def factory():
        return (lambda k: next(times) * k), 1, lambda: None

    task = Task("CartPole-v1", "vector", 1, "x", 1, factory)
    results, _ = harness.run_tasks([task], 0.02, 3, lambda _: None)
    assert results[0].spread == pytest.approx(3.0)


def test_a_peer_lacking_one_id_is_skipped_for_that_id_only():
    """issue 46: with gymnax installed, its missing CartPole-v0 skipped
    gymnax for every id; a Skip naming its id skips that id only."""
    def ok():
        return (lambda k: 1e-3 * k), 1, lambda: None

    def lacks(env_id):
        def make():
            if env_id == "CartPole-v0":
                raise Skip(f"peer has no {env_id}", env_id=env_id)
            return ok()
        return make

    tasks = [Task(env_id, "vector", 4, impl, 1, factory)
             for env_id in ("CartPole-v0", "CartPole-v1", "Pendulum-v1")
             for impl, factory in (("a", ok), ("peer", lacks(env_id)))]
    results, notes = harness.run_tasks(tasks, 0.003, 1, lambda _: None)
    assert [(r.env_id, r.impl) for r in results] == [
        ("CartPole-v0", "a"), ("CartPole-v1", "a"), ("CartPole-v1", "peer"),
        ("Pendulum-v1", "a"), ("Pendulum-v1", "peer")]
    assert notes == ["peer skipped for CartPole-v0: peer has no CartPole-v0"]


def test_gymnax_and_envpool_skip_only_the_ids_they_lack(monkeypatch):
    """The peers' factories raise an id-scoped Skip for an id their package
    does not have (a fake gymnax here: it is not installable on every machine)."""
    import types

    fake = types.ModuleType("gymnax")

    def make(env_id):
        raise ValueError(f"{env_id} not in registered environments")

    fake.make = make
    monkeypatch.setitem(sys.modules, "gymnax", fake)
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    with pytest.raises(Skip) as e:
        peers.gymnax_factory("CartPole-v0", 4)()
    assert e.value.env_id == "CartPole-v0"
