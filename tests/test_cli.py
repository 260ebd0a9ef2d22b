"""The ``ccgym`` command line refuses impossible numeric arguments.

Every subcommand's numeric option goes through an argparse type
(ccgym._argtypes): a bad value ends in argparse's usage error (the usage
line, then one ``error:`` line) and exit status 2, before anything runs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ccgym import cli

HUGE = "99999999999999999999"

# (subcommand + required positionals, option, bad values)
BAD = [
    (["demo"], "--steps", ["-1", "0", "1.5", "x"]),
    (["demo"], "--num-envs", ["0", "-3", HUGE]),
    (["bench"], "--num-envs", ["0", HUGE, "1,0", "a"]),
    (["bench"], "--threads", ["0", HUGE]),
    (["bench"], "--repeats", ["0", "-1"]),
    (["bench"], "--budget", ["0", "-0.5", "nan", "inf"]),
    (["bench"], "--reset-envs", ["0", HUGE]),
    (["bench"], "--memory-envs", ["0", HUGE]),
    (["render-bench"], "--batch", ["0", HUGE]),
    (["render-bench"], "--seconds", ["0", "-1", "nan"]),
    (["render-bench"], "--num-threads", ["0", HUGE]),
    (["train", "CartPole-v1"], "--timesteps", ["-5", "0"]),
    (["train", "CartPole-v1"], "--n-envs", ["0", "-1", HUGE]),
    (["train", "CartPole-v1"], "--seed", ["-1"]),
    (["train", "CartPole-v1"], "--eval-freq", ["-1"]),
    (["train", "CartPole-v1"], "--eval-episodes", ["0"]),
    (["train", "CartPole-v1"], "--final-eval-episodes", ["0"]),
    (["train", "CartPole-v1"], "--threads", ["0", HUGE]),
    (["train", "CartPole-v1"], "--torch-threads", ["0"]),
    (["train", "CartPole-v1"], "--verbose", ["-1", "3"]),
    (["record", "CartPole-v1"], "--seed", ["-1"]),
    (["record", "CartPole-v1"], "--max-steps", ["0", "-2"]),
    (["record", "CartPole-v1"], "--fps", ["0", "-1", "inf"]),
]
CASES = [(cmd, opt, v) for cmd, opt, values in BAD for v in values]

# Values each option takes (parsed, not run).
GOOD = [
    (["demo", "--steps", "1", "--num-envs", "1"], {"steps": 1, "num_envs": 1}),
    (["bench", "--num-envs", "1,1024", "--threads", "2", "--repeats", "1", "--budget", "0.01",
      "--reset-envs", "8", "--memory-envs", "8"],
     {"num_envs": [1, 1024], "threads": [2], "repeats": 1, "budget": 0.01}),
    (["render-bench", "--batch", "2", "--seconds", "0.5", "--num-threads", "2"],
     {"batch": 2, "seconds": 0.5, "num_threads": 2}),
    (["train", "CartPole-v1", "--timesteps", "64", "--n-envs", "2", "--seed", "0",
      "--eval-freq", "0", "--verbose", "2"],
     {"timesteps": 64, "n_envs": 2, "seed": 0, "eval_freq": 0, "verbose": 2}),
    (["record", "CartPole-v1", "--max-steps", "3", "--fps", "12.5"],
     {"max_steps": 3, "fps": 12.5}),
]


@pytest.mark.parametrize("cmd,opt,value", CASES, ids=[f"{c[0]}{o}={v}" for c, o, v in CASES])
def test_bad_value_is_a_usage_error(cmd, opt, value, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([*cmd, f"{opt}={value}"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ccgym ")
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and f"argument {opt}" in errors[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv,expected", GOOD, ids=[g[0][0] for g in GOOD])
def test_good_values_parse(argv, expected):
    args = cli.build_parser().parse_args(argv)
    for key, value in expected.items():
        assert getattr(args, key) == value, key


@pytest.mark.parametrize("argv", [
    ["demo", "--steps", "-1"],
    ["demo", "--num-envs", "0"],
    ["bench", "--num-envs", HUGE],
    ["train", "CartPole-v1", "--timesteps", "-5"],
    ["train", "CartPole-v1", "--n-envs", "0"],
])
def test_issue_examples_exit_2_from_the_shell(argv, tmp_path):
    """The issue's commands, as a user runs them: exit status 2, no traceback,
    nothing written."""
    proc = subprocess.run([sys.executable, "-m", "ccgym", *argv], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "error: argument" in proc.stderr
    assert proc.stdout == "" and not any(tmp_path.iterdir())


@pytest.mark.parametrize("cmd,opt", [(["bench"], "--json"), (["bench"], "--plot"),
                                     (["render-bench"], "--json")])
def test_output_in_a_missing_directory_is_a_usage_error(cmd, opt, tmp_path, capsys,
                                                        monkeypatch):
    """issue 45: ``ccgym bench --json DIR/x.json`` with no DIR ran the whole
    benchmark, then died on the write; now argparse refuses it first (the
    directory is not created: a typo is likelier than a wanted new one)."""
    from ccgym.benchmarks import cli as bench_cli

    ran = []
    monkeypatch.setattr(bench_cli, "main", lambda args: ran.append(args) or 0)
    monkeypatch.setattr(bench_cli, "render_main", lambda args: ran.append(args) or 0)
    path = tmp_path / "missing" / "x.out"
    with pytest.raises(SystemExit) as e:
        cli.main([*cmd, opt, str(path)])
    assert e.value.code == 2 and not ran
    err = capsys.readouterr().err
    assert f"usage: ccgym {cmd[0]}" in err
    assert "does not exist" in err and str(tmp_path / "missing") in err
    assert not (tmp_path / "missing").exists()
    with pytest.raises(SystemExit):
        cli.main([*cmd, opt, str(tmp_path)])  # a directory, not a file
    assert "is a directory" in capsys.readouterr().err
    # An existing directory, or '-' for --json, parses and runs.
    for ok in ([str(tmp_path / "x.out")] + (["-"] if opt == "--json" else [])):
        assert cli.main([*cmd, opt, ok]) == 0
    assert len(ran) == 1 + (opt == "--json")


@pytest.mark.parametrize("command", ["bench", "render-bench", "demo"])
def test_unknown_option_prints_the_subcommands_usage(command, capsys):
    """issue 46: `ccgym bench --idz` shows bench's usage, not the top level's."""
    with pytest.raises(SystemExit) as e:
        cli.main([command, "--idz"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: ccgym {command} "), err
    assert "unrecognized arguments: --idz" in err
