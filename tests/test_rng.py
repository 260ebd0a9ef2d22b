"""ccgym's C PCG64 + SeedSequence against numpy, and its port of numpy's float32 sin/cos.

Two kinds of checks: a small stored known-answer table (numbers numpy 2.x
produced, so a change in either side is noticed even when both drift
together) and live comparisons with the installed numpy over many seeds.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from ccgym import _core, _params

# seed -> PCG64 (state, inc) after SeedSequence seeding, and the first four
# Generator.random() doubles, as produced by
# np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))) in numpy 2.x.
KNOWN_ANSWERS = [
    (0, 0x1AA1B5345996452D09585EB7A69561E3, 0x418DDADB3AF71A82588133BC447873A9,
     ["0x1.461fd79fb3850p-1", "0x1.1442f7e20b674p-2", "0x1.4fa7b529d9bd0p-5", "0x1.0ec9ed84d0bc0p-6"]),
    (1, 0x9C5B484BFEDB756C2A6E7D6F320FBC7E, 0x922AF2DA2645F895A19857B95740937B,
     ["0x1.060d7be6f245cp-1", "0x1.e6a32d7782a55p-1", "0x1.273d27b04760cp-3", "0x1.e5b5615da558dp-1"]),
    (42, 0xCEA44F6798798F2AACBC7C9D68860AC8, 0xFA505436C9A8416E66CAF2E28D25ABFF,
     ["0x1.8c43f79a2db24p-1", "0x1.c16959869e47ep-2", "0x1.b79a2584ddb42p-1", "0x1.650d6c1c2c011p-1"]),
    (12345, 0x1905E0335AAE96349199B0D09775ADD5, 0xC9C7353E6E2B1F287D761F2D4027FAE7,
     ["0x1.d1958c6d97fe0p-3", "0x1.445c4c5727930p-2", "0x1.984049046889dp-1", "0x1.5a3e0d5d490ddp-1"]),
    (2**32 - 1, 0x4C233832246AA48CC57A3CE19C86BA9A, 0xDA9580DAF0FE872CAD12D969E7B701FB,
     ["0x1.01fd7ea4c363ep-2", "0x1.c0a59175cb424p-3", "0x1.262df73ba3636p-2", "0x1.3ceb1e066d3d0p-1"]),
    (2**32, 0x24D060CF1520DBDD21BBF7FBFF1AC5D4, 0x77FF3ED86C5C56337B62EEA7340CA9C7,
     ["0x1.c78bd7c50b582p-1", "0x1.1d4132d1fc63bp-1", "0x1.9a109ff09b1bdp-1", "0x1.e9bc2dd875173p-1"]),
    (2**64 - 1, 0xDDC419442AEBDE794D8B0A3B048ACDB0, 0x37762AACB3CC854F4ED623C7D18951ED,
     ["0x1.5c2c74f5188eap-1", "0x1.b0ccb3ebe6704p-1", "0x1.e52b195bc2d00p-8", "0x1.ca04d55e33445p-1"]),
    (2**128 + 7, 0x958486F3C64472FD0449E2AB41E584DE, 0x15BD1E129EE3376F395700BD99C985F3,
     ["0x1.ec1db076b9bfep-2", "0x1.e7c4380cc4d70p-5", "0x1.c8112393896e4p-3", "0x1.117df1eb19508p-3"]),
]
KNOWN_IDS = [f"seed={s}" for s, *_ in KNOWN_ANSWERS]

LIVE_SEEDS = list(range(201)) + [
    2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**53 + 1, 2**63 - 1, 2**63,
    2**64 - 1, 2**64, 2**64 + 5, 2**96 - 1, 2**96, 2**127, 2**128 - 1, 2**128, 2**128 + 7,
    2**160 + 3, 2**200, 3**150, 0xDEADBEEF_CAFEBABE_01234567,
]


def numpy_generator(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


def numpy_state(seed: int) -> tuple[int, int]:
    st = numpy_generator(seed).bit_generator.state["state"]
    return st["state"], st["inc"]


def make_batch(n: int = 1) -> _core.Batch:
    return _core.Batch("CartPole", n, _params.PARAMS["CartPole"](), 0, _core.AUTORESET_DISABLED, 1)


def bits64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def assert_same_bits64(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == np.float64 and actual.shape == expected.shape
    same = bits64(actual) == bits64(expected)
    if not same.all():
        i = int(np.argmin(same))
        raise AssertionError(
            f"{int((~same).sum())} of {same.size} doubles differ; first at {i}: "
            f"{float(actual[i]).hex()} != {float(expected[i]).hex()}"
        )


# ------------------------------------------------------------ known answers


@pytest.mark.parametrize(("seed", "state", "inc", "doubles"), KNOWN_ANSWERS, ids=KNOWN_IDS)
def test_known_answers_still_hold_for_numpy(seed, state, inc, doubles):
    """The stored table is numpy's: if this fails, numpy changed, not ccgym."""
    g = numpy_generator(seed)
    assert g.bit_generator.state["state"] == {"state": state, "inc": inc}
    assert [float(x).hex() for x in g.random(len(doubles))] == doubles


@pytest.mark.parametrize(("seed", "state", "inc", "doubles"), KNOWN_ANSWERS, ids=KNOWN_IDS)
def test_known_answers_ccgym(seed, state, inc, doubles):
    b = make_batch()
    b.seed_one(0, seed)
    assert b.get_rng(0) == (state, inc)
    assert [float(x).hex() for x in b.rng_uniform(0, len(doubles))] == doubles


# --------------------------------------------------------- live comparison


@pytest.mark.parametrize("seed", LIVE_SEEDS)
def test_seed_one_matches_numpy(seed):
    b = make_batch()
    b.seed_one(0, seed)
    assert b.get_rng(0) == numpy_state(seed)
    g = numpy_generator(seed)
    assert_same_bits64(b.rng_uniform(0, 257), g.random(257))
    # Still in lock-step after the draws, and the state agrees too.
    assert b.get_rng(0) == (
        g.bit_generator.state["state"]["state"], g.bit_generator.state["state"]["inc"]
    )


def test_long_stream_matches_numpy():
    b = make_batch()
    b.seed_one(0, 2024)
    assert_same_bits64(b.rng_uniform(0, 200_000), numpy_generator(2024).random(200_000))


def test_instances_are_independent_streams():
    """Drawing from one instance leaves the others where they were."""
    seeds = [3, 2**64 + 5, 0, 99]
    b = make_batch(len(seeds))
    gens = []
    for i, s in enumerate(seeds):
        b.seed_one(i, s)
        gens.append(numpy_generator(s))
    order = [0, 0, 2, 1, 3, 3, 3, 0, 2, 1]
    for i in order:
        assert_same_bits64(b.rng_uniform(i, 5), gens[i].random(5))
    for i, g in enumerate(gens):
        st = g.bit_generator.state["state"]
        assert b.get_rng(i) == (st["state"], st["inc"])


def test_reseeding_restarts_the_stream():
    b = make_batch()
    b.seed_one(0, 7)
    first = b.rng_uniform(0, 10)
    b.rng_uniform(0, 1000)
    b.seed_one(0, 7)
    assert_same_bits64(b.rng_uniform(0, 10), first)


@pytest.mark.parametrize("seed", [0, 1, 2**32, 2**64 + 5])
def test_numpy_generator_integers_agree_after_set_rng(seed):
    """get_rng/set_rng round-trip a mid-stream numpy state, both ways."""
    g = numpy_generator(seed)
    g.random(13)
    st = g.bit_generator.state["state"]
    b = make_batch(2)
    b.set_rng(1, st["state"], st["inc"])
    assert b.get_rng(1) == (st["state"], st["inc"])
    assert_same_bits64(b.rng_uniform(1, 50), g.random(50))
    # And back: a numpy PCG64 set to the C state continues the C stream.
    bg = np.random.PCG64()
    state, inc = b.get_rng(1)
    bg.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                "has_uint32": 0, "uinteger": 0}
    assert_same_bits64(np.random.Generator(bg).random(20), b.rng_uniform(1, 20))


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**64 + 5, 2**200, 3**150])
def test_int_seed_words_match_numpy_coercion(seed):
    from numpy.random.bit_generator import _coerce_to_uint32_array

    words = _core.int_seed_words(seed)
    assert words.dtype == np.uint32
    np.testing.assert_array_equal(words, _coerce_to_uint32_array(seed))


# ------------------------------------------------------------- seed_range

SEED_RANGE_BASES = [
    0, 1, 1000, 2**32 - 3, 2**32,  # crosses the one-word/two-word boundary
    2**63 - 2, 2**64 - 10,           # fast path, last seed is 2**64 - 4
    2**64 - 7,                       # fast path, last seed exactly 2**64 - 1
    2**64 - 6,                       # last seed is 2**64: must not wrap to 0
    2**64 - 3, 2**64 - 1,            # straddles 2**64
    2**64, 2**64 + 5, 2**100, 2**128 + 7, 2**200,
]


@pytest.mark.parametrize("base", SEED_RANGE_BASES)
def test_seed_range_matches_per_instance_seeds(base):
    n = 6
    b = make_batch(n)
    b.seed_range(base)
    for i in range(n):
        assert b.get_rng(i) == numpy_state(base + i), f"instance {i}, seed {base + i}"
        assert_same_bits64(b.rng_uniform(i, 8), numpy_generator(base + i).random(8))


@pytest.mark.parametrize("base", [0, 2**64 - 3, 2**64 + 1])
def test_seed_range_with_mask_leaves_others_alone(base):
    n = 5
    b = make_batch(n)
    for i in range(n):
        b.seed_one(i, 10_000 + i)
    mask = np.array([True, False, True, False, True])
    b.seed_range(base, mask)
    for i in range(n):
        expected = base + i if mask[i] else 10_000 + i
        assert b.get_rng(i) == numpy_state(expected)


def test_seed_range_large_batch():
    n = 3000
    b = make_batch(n)
    b.seed_range(123_456)
    for i in list(range(0, n, 97)) + [n - 1]:
        assert b.get_rng(i) == numpy_state(123_456 + i)


# seed_range's C kernel seeds blocks of lanes (src/rng.c); these sizes and
# bases exercise partial blocks, the one-word/two-word boundary at 2**32
# inside a block and the top of the uint64 range, against numpy per seed.
BLOCK_SIZES = [1, 7, 8, 9, 15, 16, 17, 31, 33, 65]
BLOCK_BASES = [0, 12_345, 2**32 - 40, 2**32 - 9, 2**32 - 1, 2**32, 2**48 + 3,
               2**63 - 20, 2**64 - 80]


def rows_as_states(rows: np.ndarray) -> list[tuple[int, int]]:
    return [(int(r[0]) | (int(r[1]) << 64), int(r[2]) | (int(r[3]) << 64)) for r in rows]


def seeding_isas() -> list[int]:
    """The C implementations this CPU runs (0 scalar, 1 portable lanes, 2 AVX2)."""
    isas = []
    for isa in (0, 1, 2):
        try:
            _core._seed_range_rows(0, np.zeros((1, 4), np.uint64), isa=isa)
        except ValueError:
            continue
        isas.append(isa)
    return isas


def test_seeding_isas_include_the_portable_ones():
    assert seeding_isas()[:2] == [0, 1]


@pytest.mark.parametrize("isa", [-1, 0, 1, 2])
@pytest.mark.parametrize("n", BLOCK_SIZES)
@pytest.mark.parametrize("base", BLOCK_BASES)
def test_seed_range_blocks_match_numpy(base, n, isa):
    if isa not in [-1, *seeding_isas()]:
        pytest.skip(f"this CPU does not run seeding implementation {isa}")
    if base + n > 2**64:
        base = 2**64 - n  # the last seed is exactly 2**64 - 1
    rows = _core._seed_range_rows(base, np.zeros((n, 4), np.uint64), isa=isa)
    assert rows_as_states(rows) == [numpy_state(base + i) for i in range(n)]


@pytest.mark.parametrize("isa", [-1, 0, 1, 2])
@pytest.mark.parametrize("base", [3, 2**32 - 20, 2**64 - 70])
def test_seed_range_blocks_with_mask_match_numpy(base, isa):
    if isa not in [-1, *seeding_isas()]:
        pytest.skip(f"this CPU does not run seeding implementation {isa}")
    n = 70
    rng = np.random.default_rng(base % 1000)
    mask = rng.random(n) < 0.5
    mask[16:32] = False  # a whole block left alone
    mask[40] = True
    before = rng.integers(0, 2**64, size=(n, 4), dtype=np.uint64, endpoint=False)
    rows = _core._seed_range_rows(base, before, mask, isa=isa)
    states = rows_as_states(rows)
    kept = rows_as_states(before)
    for i in range(n):
        expected = numpy_state(base + i) if mask[i] else kept[i]
        assert states[i] == expected, f"instance {i}, mask {mask[i]}"


def test_seed_range_rows_rejects_bad_input():
    z = np.zeros((3, 4), np.uint64)
    with pytest.raises(ValueError, match="at most 2"):
        _core._seed_range_rows(2**64 - 2, z)
    with pytest.raises(OverflowError):
        _core._seed_range_rows(-1, z)
    with pytest.raises(ValueError, match="shape"):
        _core._seed_range_rows(0, np.zeros((3, 3), np.uint64))
    with pytest.raises(ValueError, match="shape"):
        _core._seed_range_rows(0, z, np.ones(4, np.bool_))
    with pytest.raises(ValueError, match="does not run"):
        _core._seed_range_rows(0, z, isa=3)


@pytest.mark.parametrize("n", [1, 9, 17, 65])
@pytest.mark.parametrize("base", [0, 2**32 - 30, 2**64 - 65])
def test_seed_range_batch_mask_sizes(base, n):
    """Batch.seed_range with a mask takes the C kernel (seeds below 2**64)."""
    b = make_batch(n)
    for i in range(n):
        b.seed_one(i, 10_000 + i)
    mask = (np.arange(n) % 3) != 1
    b.seed_range(base, mask)
    for i in range(n):
        expected = base + i if mask[i] else 10_000 + i
        assert b.get_rng(i) == numpy_state(expected), f"instance {i}"


@pytest.mark.parametrize("num_threads", [1, 2, 3])
@pytest.mark.parametrize("masked", [False, True])
def test_seed_range_threads_match_numpy(num_threads, masked):
    """Large enough that seeding splits across the batch's threads."""
    n = 40_000
    b = _core.Batch("CartPole", n, _params.PARAMS["CartPole"](), 0, _core.AUTORESET_DISABLED,
                    num_threads)
    base = 2**32 - 20_011  # the two-word seeds start inside the first chunk
    mask = None
    if masked:
        b.seed_range(7)
        mask = (np.arange(n) % 5) != 0
    b.seed_range(base, mask)
    for i in list(range(0, n, 379)) + list(range(20_000, 20_040)) + [n - 1]:
        expected = base + i if mask is None or mask[i] else 7 + i
        assert b.get_rng(i) == numpy_state(expected), f"instance {i}"
    # The whole batch agrees with the one-thread scalar reference.
    ref = _core._seed_range_rows(base, np.zeros((n, 4), np.uint64), isa=0)
    one = _core.Batch("CartPole", n, _params.PARAMS["CartPole"](), 0, _core.AUTORESET_DISABLED, 1)
    if masked:
        one.seed_range(7)
        ref[~mask] = _core._seed_range_rows(7, np.zeros((n, 4), np.uint64), isa=0)[~mask]
    one.seed_range(base, mask)
    expected = rows_as_states(ref)
    assert [b.get_rng(i) for i in range(n)] == expected
    assert [one.get_rng(i) for i in range(n)] == expected


@pytest.mark.parametrize("base", [np.uint64(2**64 - 2), np.int64(2**40), np.uint32(7)])
def test_seed_range_numpy_integer_base(base):
    """A numpy integer base counts in Python ints: base + i never wraps."""
    n = 4
    b = make_batch(n)
    b.seed_range(base)
    assert [b.get_rng(i) for i in range(n)] == [numpy_state(int(base) + i) for i in range(n)]


def test_seed_range_rejects_a_float_base():
    b = make_batch(2)
    before = [b.get_rng(i) for i in range(2)]
    with pytest.raises(TypeError):
        b.seed_range(1.0)
    assert [b.get_rng(i) for i in range(2)] == before


@pytest.mark.parametrize("method", ["seed_one", "seed_range"])
def test_negative_seed_rejected(method):
    b = make_batch()
    args = (0, -1) if method == "seed_one" else (-1,)
    with pytest.raises(ValueError, match="greater or equal to zero"):
        getattr(b, method)(*args)


def test_seed_entropy_gives_distinct_valid_streams():
    b = make_batch(8)
    b.seed_entropy()
    states = [b.get_rng(i) for i in range(8)]
    assert len(set(states)) == 8
    assert all(inc & 1 for _, inc in states)  # PCG increments are odd


def test_seed_entropy_mask():
    b = make_batch(3)
    b.seed_range(5)
    b.seed_entropy(np.array([False, True, False]))
    assert b.get_rng(0) == numpy_state(5)
    assert b.get_rng(1) != numpy_state(6)
    assert b.get_rng(2) == numpy_state(7)


# -------------------------------------------------- numpy's float32 sin/cos


def _special_float32() -> np.ndarray:
    bits = np.array(
        [
            0x00000000, 0x80000000,              # +-0
            0x7F800000, 0xFF800000,              # +-inf
            0x7FC00000, 0xFFC00000,              # quiet NaNs
            0x7FC12345, 0xFFA00001, 0x7F800001,  # NaN payloads, a signalling NaN
            0x00000001, 0x80000001,              # smallest subnormals
            0x007FFFFF, 0x807FFFFF,              # largest subnormals
            0x00800000, 0x80800000,              # smallest normals
            0x7F7FFFFF, 0xFF7FFFFF,              # +-FLT_MAX
        ],
        dtype=np.uint32,
    ).view(np.float32)
    near = np.array(
        [3.4e38, -3.4e38, 1e-30, -1e-30, np.pi, -np.pi, np.pi / 2, -np.pi / 2,
         np.pi / 4, 3 * np.pi / 4, 71476.0625, 1e5, 1e6, 1e7, 8388608.0, 16777216.0,
         1e10, 1e20, 1e30, 117435.992],
        dtype=np.float32,
    )
    return np.concatenate([bits, near, np.nextafter(near, np.float32(np.inf)),
                           np.nextafter(near, np.float32(-np.inf))])


def _sincos_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20240611)
    wide = (rng.uniform(-1, 1, 100_000) * 10.0 ** rng.uniform(-45, 38.5, 100_000)).astype(np.float32)
    return {
        "uniform[-10,10]": rng.uniform(-10, 10, 200_000).astype(np.float32),
        "grid[-3.5,3.5]": np.linspace(-3.5, 3.5, 70_001, dtype=np.float32),
        "wide-magnitudes": wide,
        "specials": _special_float32(),
    }


SINCOS_INPUTS = _sincos_inputs()


def assert_same_bits32(actual: np.ndarray, expected: np.ndarray, x: np.ndarray, what: str) -> None:
    assert actual.dtype == np.float32 and actual.shape == expected.shape
    same = actual.view(np.uint32) == expected.view(np.uint32)
    if not same.all():
        i = int(np.argmin(same))
        raise AssertionError(
            f"{what}: {int((~same).sum())} of {same.size} differ; first x={float(x[i]).hex()}: "
            f"{hex(int(actual.view(np.uint32)[i]))} != {hex(int(expected.view(np.uint32)[i]))}"
        )


@pytest.mark.parametrize("name", list(SINCOS_INPUTS))
def test_npy_sincosf_selected_variant_matches_numpy(name):
    x = SINCOS_INPUTS[name]
    fma = _params.numpy_float32_trig_uses_fma()
    s, c = _core.npy_sincosf(x, fma)
    with np.errstate(invalid="ignore"):  # sin/cos(inf) is NaN with FP "invalid"
        exp_s, exp_c = np.sin(x), np.cos(x)
    assert_same_bits32(s, exp_s, x, f"sin (fma={fma})")
    assert_same_bits32(c, exp_c, x, f"cos (fma={fma})")


def test_npy_sincosf_other_variant_is_close_and_sane():
    """The variant not selected is still a correct float32 sin/cos (within 2 ulp)."""
    x = SINCOS_INPUTS["uniform[-10,10]"]
    other = not _params.numpy_float32_trig_uses_fma()
    s, c = _core.npy_sincosf(x, other)
    ref_s = np.sin(x.astype(np.float64)).astype(np.float32)
    ref_c = np.cos(x.astype(np.float64)).astype(np.float32)
    ulp = np.spacing(np.maximum(np.abs(ref_s), np.abs(ref_c)).astype(np.float32))
    assert np.all(np.abs(s - ref_s) <= 2 * ulp)
    assert np.all(np.abs(c - ref_c) <= 2 * ulp)
    sp = SINCOS_INPUTS["specials"]
    s, c = _core.npy_sincosf(sp, other)
    nonfinite = ~np.isfinite(sp)
    assert np.isnan(s[nonfinite]).all() and np.isnan(c[nonfinite]).all()


def test_trig_variant_selection_is_cached_and_consistent():
    fma = _params.numpy_float32_trig_uses_fma()
    assert isinstance(fma, bool)
    assert _params.numpy_float32_trig_uses_fma() is fma
    # Acrobot's kernel is given the same choice.
    assert _params.PARAMS["Acrobot"]()["use_npy_fma_trig"] is fma


def test_npy_sincosf_accepts_non_contiguous_and_other_dtypes():
    x = np.linspace(-4, 4, 2001)  # float64, converted to float32
    s, c = _core.npy_sincosf(x[::3], _params.numpy_float32_trig_uses_fma())
    x32 = x[::3].astype(np.float32)
    assert_same_bits32(s, np.sin(x32), x32, "sin")
    assert_same_bits32(c, np.cos(x32), x32, "cos")


# ------------------------------------------------------- out-of-range index


@pytest.mark.parametrize("call", ["rng_uniform(5, 1)", "rng_uniform(10**9, 4)", "rng_uniform(-3, 1)",
                                  "get_rng(5)", "set_rng(5, 1, 1)", "seed_one(5, 1)"])
def test_instance_index_out_of_range_raises(call):
    """An instance index outside [0, N) is an IndexError, never a read or write
    outside the generator array (run in a subprocess: a crash must not take
    the test session down)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        from ccgym import _core, _params
        b = _core.Batch("CartPole", 2, _params.PARAMS["CartPole"](), 0, _core.AUTORESET_DISABLED, 1)
        try:
            b.{call}
        except IndexError:
            print("IndexError")
        else:
            print("no error")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd="/")
    assert proc.returncode == 0, f"{call}: exit code {proc.returncode} {proc.stderr[-500:]}"
    assert proc.stdout.strip() == "IndexError", call


# ------------------------------------------- np_random draws take the core's guard
# (issue 24, item 7.) An env's np_random draws from the env's C stream; a
# reset writes that stream (with the GIL released). A draw is therefore a
# core call: it takes the batch's guard, and meets a call under way in
# another thread with the guard's RuntimeError, as two steps do.

def _busy(fn):
    try:
        fn()
    except RuntimeError as e:
        assert "another thread" in str(e), e
        return True
    return False


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join(60)
    assert not t.is_alive()
    return out[0]


def test_a_draw_during_another_threads_core_call_is_refused():
    import gymnasium as gym

    import ccgym  # noqa: F401

    env = gym.make("ccgym/Acrobot-v1")
    env.reset(seed=1)
    u = env.unwrapped
    gen = u.np_random
    before = gen.bit_generator.state
    inside, leave = threading.Event(), threading.Event()
    holder = threading.Thread(
        target=lambda: u._core.exclusive(lambda: (inside.set(), leave.wait(60))))
    holder.start()
    assert inside.wait(60)
    try:
        for draw in (lambda: gen.random(), lambda: gen.integers(0, 10, 5),
                     lambda: gen.uniform(-1, 1, 1000), lambda: gen.bit_generator.state):
            assert _busy(draw)
    finally:
        leave.set()
        holder.join(60)
    assert gen.bit_generator.state == before  # the refused draws drew nothing
    ref = gym.make("Acrobot-v1")
    ref.reset(seed=1)
    assert gen.random() == ref.unwrapped.np_random.random()  # and it draws again


def test_a_core_call_during_another_threads_draw_is_refused():
    import gymnasium as gym

    import ccgym  # noqa: F401

    env = gym.make("ccgym/Pendulum-v1")
    env.reset(seed=2)
    u = env.unwrapped
    gen = u.np_random
    state = u.get_state()
    with gen.bit_generator.lock:  # what numpy holds around a draw
        assert _in_thread(lambda: _busy(env.reset))
        assert _in_thread(lambda: _busy(lambda: env.reset(seed=5)))
        assert _in_thread(lambda: _busy(lambda: env.step(np.zeros(1, np.float32))))
        assert _in_thread(lambda: _busy(u.get_state))
    after = u.get_state()
    assert all(np.array_equal(np.asarray(state[k]), np.asarray(after[k])) for k in state)
    env.reset(seed=5)  # free again


DRAW = 4096  # doubles per draw: long enough (drawn without the GIL) to meet resets


def test_draws_and_resets_in_two_threads_never_overlap():
    """Hammered from two threads (draws of DRAW doubles, unseeded resets, each
    drawing 4), every call either completes or is refused with the guard's
    RuntimeError, and the completed ones took turns on the stream: each
    draw is DRAW consecutive doubles of the seeded PCG64 stream, no two draws
    share a position, and the stream ends exactly DRAW per draw plus 4 per
    reset further on. (Unguarded, a draw racing a reset in C, both without
    the GIL, repeats or tears the stream.)"""
    import gymnasium as gym

    import ccgym  # noqa: F401

    env = gym.make("ccgym/CartPole-v1")
    env.reset(seed=3)
    gen = env.unwrapped.np_random
    draws, resets = [], [0]
    stop = time.perf_counter() + 3

    def drawer():
        while time.perf_counter() < stop and len(draws) < 200:
            try:
                draws.append(gen.random(DRAW))
            except RuntimeError as e:
                assert "another thread" in str(e)
            time.sleep(0)  # let the other thread in between calls

    def resetter():
        while time.perf_counter() < stop and len(draws) < 200:
            try:
                env.reset()
            except RuntimeError as e:
                assert "another thread" in str(e)
            else:
                resets[0] += 1
            time.sleep(0)

    threads = [threading.Thread(target=drawer), threading.Thread(target=resetter)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert draws and resets[0]
    ref = np.random.Generator(np.random.PCG64(3))
    ref.random(4)  # reset(seed=3)'s draw
    total = DRAW * len(draws) + 4 * resets[0]
    stream = ref.random(total)
    assert ref.bit_generator.state == gen.bit_generator.state  # consumed exactly that
    where = {v: k for k, v in enumerate(stream.tolist())}
    starts = []
    for v in draws:
        k = where.get(float(v[0]))
        assert k is not None and stream[k:k + DRAW].tobytes() == v.tobytes()
        starts.append(k)
    starts.sort()
    assert all(b - a >= DRAW for a, b in zip(starts, starts[1:]))  # no two draws overlap
