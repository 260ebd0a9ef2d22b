# Exact math (include/ccgym/exactmath.h), included by _core.pyx: the exact
# kernels' sin/cos, libm's bits at SIMD speed when the self-check accepts.

cdef extern from "ccgym/exactmath.h" nogil:
    int ccgym_exact_math_init()
    int ccgym_exact_math_path()
    const char *ccgym_exact_math_reason()
    const char *ccgym_exact_math_lanes()
    int ccgym_exact_math_table_lo_fixups()
    void ccgym_exact_math_refuse(const char *reason)
    long ccgym_xm_selfcheck_perturbed(int perturb, long *n_probes)
    void ccgym_xm_sincos_array(const double *x, double *s, double *c, size_t n)
    int ccgym_exact_lanes_active()
    int ccgym_exact_math_use_lanes(int on)

_EXACT_MATH_PATHS = ("libm", "nofma", "fma")
_EXACT_MATH_PERTURB = {"none": 0, "const": 1, "drop_fma": 2, "table_lo": 3, "variant": 4}
_EXACT_MATH_VARIABLE = ("", "libm", "scalar", "avx2")


def exact_sincos(x):
    """(sin, cos) of a float64 array by the exact kernels' math (the path
    exact_math() reports): np.sin(x), np.cos(x) bit for bit."""
    cdef cnp.ndarray xa = np.ascontiguousarray(x, dtype=np.float64).ravel()
    cdef cnp.ndarray s = np.empty_like(xa)
    cdef cnp.ndarray c = np.empty_like(xa)
    cdef size_t n = xa.shape[0]
    with nogil:
        ccgym_xm_sincos_array(<const double *>cnp.PyArray_DATA(xa), <double *>cnp.PyArray_DATA(s),
                              <double *>cnp.PyArray_DATA(c), n)
    return s, c


def _exact_math_probes():
    """The binding's probe set against np.sin/np.cos: random per range of the
    algorithm, +-64 ulps around each branch threshold and 0.126, around each
    table point k/128 and k pi/2 (the C self-check compares against libm on
    its own, larger set, which includes inputs where the FMA and non-FMA
    variants differ)."""
    rng = np.random.default_rng(20251203)
    edges = [1e-9, 1.49e-8, 0.126, 0.85546875, 2.4262, 10.0, 1e3, 1e5, 1.05e8]
    parts = [rng.uniform(lo, hi, 2000) for lo, hi in zip(edges[:-1], edges[1:])]
    def around(x, ulps):
        x = np.asarray(x, dtype=np.float64).ravel()
        b = x.view(np.int64)[:, None] + np.arange(-ulps, ulps + 1, dtype=np.int64)[None, :]
        return b.ravel().view(np.float64)
    thresholds = np.array([0x3e400000, 0x3e500000, 0x3feb6000, 0x400368fd, 0x419921fb],
                          dtype=np.int64) << 32
    parts.append(around(thresholds.view(np.float64), 64))
    parts.append(around([0.126], 64))
    parts.append(around(np.arange(1, 110) / 128.0, 3))
    k = np.arange(1, 2001, dtype=np.float64)
    parts.append(around(k * (np.pi / 2), 2))
    x = np.concatenate(parts)
    return np.concatenate([x, -x, [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300]])


def _exact_math_numpy_check():
    """np.sin/np.cos against the exact kernels' math on the probe set; refuses
    the vector path (scalar libm from now on) if any differ."""
    if ccgym_exact_math_path() == 0:
        return
    x = _exact_math_probes()
    s, c = exact_sincos(x)
    with np.errstate(invalid="ignore"):
        ns, nc = np.sin(x), np.cos(x)
    bad = int(np.count_nonzero((s.view(np.int64) != ns.view(np.int64)) & ~np.isnan(x))
              + np.count_nonzero((c.view(np.int64) != nc.view(np.int64)) & ~np.isnan(x)))
    if bad:
        ccgym_exact_math_refuse(f"numpy check refused: {bad} of {2 * x.size} probes differ "
                                f"from np.sin/np.cos: scalar libm".encode())


def _exact_math_init():
    want = os.environ.get("CCGYM_EXACT_MATH", "")
    if want not in _EXACT_MATH_VARIABLE:
        raise ValueError(f"the environment variable CCGYM_EXACT_MATH={want!r} is not one of "
                         f"'libm' (scalar libm), 'scalar' (no lanes), 'avx2' (at most AVX2) "
                         f"or unset (the best the self-check accepts)")
    ccgym_exact_math_init()
    _exact_math_numpy_check()


def exact_math():
    """Which math the exact kernels use, and why: a dict with "path" ("fma" or
    "nofma": the re-implementation of glibc's variant of that name, libm's bits;
    "libm": scalar libm), "lanes" ("avx512", "avx2", "scalar" or "libm"),
    "reason", "table_lo_fixups" (how many table low words read from libm
    differ from the correctly rounded ones) and "kernels" (True: the exact
    kernels that have a block step, ccgym_env_def.exact_lanes_block, run it in
    those lanes; False: their per-instance libm step)."""
    return {"path": _EXACT_MATH_PATHS[ccgym_exact_math_path()],
            "lanes": ccgym_exact_math_lanes().decode(),
            "kernels": bool(ccgym_exact_lanes_active()),
            "reason": ccgym_exact_math_reason().decode(),
            "table_lo_fixups": ccgym_exact_math_table_lo_fixups()}


def exact_lanes_kinds():
    """The env kinds whose exact step has a block form over exact math
    (ccgym_env_def.exact_lanes_block): those that run in SIMD lanes when
    exact_math()["kernels"] is True."""
    return tuple(ccgym_envs[i].name.decode() for i in range(ccgym_num_envs)
                 if ccgym_envs[i].exact_lanes_block != NULL)


def _exact_math_use_lanes(bint on):
    """Switches the exact kernels' lanes block steps on (when exact math has
    lanes) or off (their per-instance scalar libm step); returns the previous
    setting. For the bench's side-by-side rows and tests: call it between
    steps, not while another thread steps."""
    return bool(ccgym_exact_math_use_lanes(on))


def _exact_math_selfcheck(str perturb="none"):
    """The C self-check on the recovered constants with one perturbation
    ("none", "const", "drop_fma", "table_lo", "variant") on a copy: (number of
    mismatching probes, number of probes). For tests."""
    cdef long n = 0
    cdef long bad = ccgym_xm_selfcheck_perturbed(_EXACT_MATH_PERTURB[perturb], &n)
    return bad, n


# Decide now, under the import lock (the C side caches it in plain variables).
_exact_math_init()
