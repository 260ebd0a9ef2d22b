"""Which rows one ``ccgym bench`` run measures."""

from __future__ import annotations

import argparse

from ccgym.benchmarks import peers as P
from ccgym.benchmarks.harness import Factory, Task

DEFAULT_NUM_ENVS = (1, 64, 1024, 16384)
QUICK_NUM_ENVS = (1, 1024)
SYNC_MAX_N = 64          # Gymnasium's SyncVectorEnv (and SB3's DummyVecEnv) only up to here
MIN_INSTANCES_PER_THREAD = 2048  # ccgym's CCGYM_MIN_INSTANCES_PER_THREAD


def plan(args: argparse.Namespace) -> tuple[list[Task], list[str]]:
    """The rows to measure, grouped by id, mode and N (the groups that
    :func:`~ccgym.benchmarks.harness.run_tasks` interleaves), and notes on
    what is left out."""
    tasks: list[Task] = []
    notes: list[str] = []
    small = [n for n in args.num_envs if n <= SYNC_MAX_N]
    skipped_threads = sorted({(t, n) for t in args.threads if t > 1
                              for n in args.num_envs if n < MIN_INSTANCES_PER_THREAD * t})
    if skipped_threads:
        notes.append(
            f"threads > 1 measured only where N >= {MIN_INSTANCES_PER_THREAD} x threads "
            "(ccgym uses fewer threads below that, so those rows would repeat the 1-thread "
            "ones): skipped " + ", ".join(f"t={t} N={n}" for t, n in skipped_threads))
    large = [n for n in args.num_envs if n > SYNC_MAX_N]
    if large and any(not P.gym_has_vector(i) for i in args.ids):
        notes.append(f"{P.GYM_SYNC} and {P.SB3_DUMMY} run only at N <= {SYNC_MAX_N} (one "
                     f"Python env per instance); at N = {', '.join(map(str, large))} only "
                     "CartPole has a Gymnasium vector env to compare with, so the other ids' "
                     "rows there have no 'vs gym' ratio")
    peers: list[str] = []
    if args.peers:
        for impl in P.PEERS:
            why = P.missing_peer(impl)
            if why is None:
                peers.append(impl)
            else:
                notes.append(f"{impl} not run: {why}")
    for env_id in args.ids:
        if not args.no_single:
            impls = (P.GYM_RAW, P.CC_RAW, P.GYM_MAKE, P.CC_MAKE) if P.gym_has(env_id) \
                else (P.CC_RAW, P.CC_MAKE)
            for impl in impls:
                tasks.append(Task(env_id, "single", 1, impl, 1, P.single_factory(env_id, impl)))
        for n in args.num_envs:
            def add(impl: str, factory: Factory, threads: int = 1) -> None:
                tasks.append(Task(env_id, "vector", n, impl, threads, factory))

            threads = [t for t in args.threads if t == 1 or n >= MIN_INSTANCES_PER_THREAD * t]
            precisions = [("exact", P.CC_VEC, P.CC_VEC_NOCOPY)]
            if args.fast and P.has_fast(env_id):
                precisions.append(("fast", P.CC_FAST, P.CC_FAST_NOCOPY))
            for precision, impl, impl_nocopy in precisions:
                for t in threads:
                    add(impl, P.ccgym_vector_factory(env_id, n, t, precision=precision), t)
                    if precision == "exact" and P.has_exact_lanes(env_id):
                        add(P.CC_VEC_LIBM, P.ccgym_libm_vector_factory(env_id, n, t), t)
                if not args.no_copy_false:
                    add(impl_nocopy,
                        P.ccgym_vector_factory(env_id, n, 1, copy=False, precision=precision))
            if args.ceiling:
                for t in threads:
                    add(P.CEILING, P.ceiling_factory(env_id, n, t), t)
            if P.gym_has_vector(env_id):
                add(P.GYM_NUMPY, P.gym_vector_factory(env_id, n, "vector_entry_point"))
            if n in small and P.gym_has(env_id):
                add(P.GYM_SYNC, P.gym_vector_factory(env_id, n, "sync"))
            if P.SB3_DUMMY in peers and n in small and P.gym_has(env_id):
                add(P.SB3_DUMMY, P.sb3_factory(env_id, n))
            if P.ENVPOOL in peers and P.gym_has(env_id):
                add(P.ENVPOOL, P.envpool_factory(env_id, n))
            if P.GYMNAX in peers and P.gym_has(env_id):
                add(P.GYMNAX, P.gymnax_factory(env_id, n))
    return tasks, notes
