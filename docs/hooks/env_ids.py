"""MkDocs hook: the API reference's list of ids, from the installed
ccgym's registry (ccgym.ENV_IDS and each id's class), not a copy of it."""

from __future__ import annotations

MARKER = "<!-- ccgym-env-ids -->"


def table() -> str:
    import gymnasium as gym

    import ccgym

    rows = ["| id | single-env class | vector env | max_episode_steps |",
            "| --- | --- | --- | --- |"]
    for env_id in ccgym.ENV_IDS:
        spec = gym.spec(f"ccgym/{env_id}")
        cls = spec.entry_point.rpartition(":")[2]
        rows.append(f"| `ccgym/{env_id}` | `ccgym.envs.{cls}` | "
                    f"`ccgym.make_vec(\"{env_id}\", N)` | {spec.max_episode_steps} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **kwargs) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, table())
    return markdown
