"""``ccgym bench --plot``: a bar chart of the vector rows' steps/s."""

from __future__ import annotations

from ccgym.benchmarks.harness import Result

MISSING_MATPLOTLIB = ("--plot needs matplotlib, which is not installed: "
                      "pip install matplotlib (or ccgym[bench])")


def plot(results: list[Result], path: str) -> str | None:
    """Bar chart of steps/s (log scale): per id, one bar group per
    implementation, one bar per N. Returns an error message or None."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return MISSING_MATPLOTLIB
    vec = [r for r in results if r.mode == "vector"]
    ids = list(dict.fromkeys(r.env_id for r in vec))
    if not ids:
        return "--plot: no vector results to plot"
    ns = sorted({r.num_envs for r in vec})

    def label(r: Result) -> str:
        return r.impl + (f" t={r.threads}" if r.threads > 1 else "")

    fig, axes = plt.subplots(len(ids), 1, figsize=(11, 3.2 * len(ids)), squeeze=False)
    cmap = plt.get_cmap("viridis")
    for ax, env_id in zip(axes[:, 0], ids):
        rows = [r for r in vec if r.env_id == env_id]
        impls = list(dict.fromkeys(label(r) for r in rows))
        width = 0.8 / len(ns)
        for j, n in enumerate(ns):
            xs, ys = [], []
            for g, impl in enumerate(impls):
                for r in rows:
                    if label(r) == impl and r.num_envs == n:
                        xs.append(g + (j - (len(ns) - 1) / 2) * width)
                        ys.append(r.steps_per_s)
            ax.bar(xs, ys, width=width, color=cmap(j / max(1, len(ns) - 1)), label=f"N={n}")
        ax.set_yscale("log")
        ax.set_xticks(range(len(impls)))
        ax.set_xticklabels(impls, rotation=15, fontsize=8)
        ax.set_ylabel("env-steps/s")
        ax.set_title(env_id)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=len(ns))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None
