"""Benchmark tooling behind ``ccgym bench`` and ``ccgym render-bench``.

Nothing here is imported by ``import ccgym``; the modules split by concern:

- :mod:`~ccgym.benchmarks.harness`: clocks, calibration, interleaved repeats,
  progress;
- :mod:`~ccgym.benchmarks.peers`: the row labels and a factory per
  implementation (ccgym, Gymnasium, SB3, EnvPool, gymnax, the C ceiling);
- :mod:`~ccgym.benchmarks.plan`: which rows one run measures;
- :mod:`~ccgym.benchmarks.sections`: ``reset(seed=s)``, memory and the
  layer-by-layer breakdown;
- :mod:`~ccgym.benchmarks.report`: ratios, goals, tables and JSON;
- :mod:`~ccgym.benchmarks.plot`: the bar chart;
- :mod:`~ccgym.benchmarks.render`: frames/s of the renderer against pygame;
- :mod:`~ccgym.benchmarks.cli`: the two subcommands.
"""
