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
    long ccgym_pow2_selfcheck(double t, int drop_lo, long *n_probes)
    long ccgym_pow2f_selfcheck(double t, long *n_probes)
    int ccgym_pow2_active()
    const char *ccgym_pow2_reason()
    void ccgym_pow2_refuse(const char *reason)

cdef extern from "ccgym/npmath.h" nogil:
    double CCGYM_POW2_T
    double CCGYM_POW2F_T
    double ccgym_pow2(double x)
    float ccgym_pow2f(float x)
    double ccgym_npy_remainder(double a, double b)

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


def exact_pow2(x):
    """x ** 2 of each float64 in x as the exact kernels compute a numpy
    float64 scalar's ``x ** 2`` (libm's pow(x, 2.0), by x * x where the rule
    of exact_math()["pow2"] allows it): np.float64(v) ** 2 bit for bit."""
    cdef cnp.ndarray xa = np.ascontiguousarray(x, dtype=np.float64).ravel()
    cdef cnp.ndarray r = np.empty_like(xa)
    cdef double *xp = <double *>cnp.PyArray_DATA(xa)
    cdef double *rp = <double *>cnp.PyArray_DATA(r)
    cdef Py_ssize_t i, n = xa.shape[0]
    with nogil:
        for i in range(n):
            rp[i] = ccgym_pow2(xp[i])
    return r


def exact_pow2f(x):
    """x ** 2 of each float32 in x as the exact kernels compute a numpy
    float32 scalar's ``x ** 2`` (powf(x, 2.0f), by the rounded exact square
    where exact_math()["pow2f"] allows): np.float32(v) ** 2 bit for bit."""
    cdef cnp.ndarray xa = np.ascontiguousarray(x, dtype=np.float32).ravel()
    cdef cnp.ndarray r = np.empty_like(xa)
    cdef float *xp = <float *>cnp.PyArray_DATA(xa)
    cdef float *rp = <float *>cnp.PyArray_DATA(r)
    cdef Py_ssize_t i, n = xa.shape[0]
    with nogil:
        for i in range(n):
            rp[i] = ccgym_pow2f(xp[i])
    return r


def exact_remainder(a, b):
    """numpy's float64 ``a % b`` (np.remainder) of each pair, as the exact
    kernels compute it (ccgym_npy_remainder): the same bits."""
    cdef cnp.ndarray aa = np.ascontiguousarray(a, dtype=np.float64).ravel()
    cdef cnp.ndarray ba = np.ascontiguousarray(b, dtype=np.float64).ravel()
    if aa.shape[0] != ba.shape[0]:
        raise ValueError("a and b must have the same size")
    cdef cnp.ndarray r = np.empty_like(aa)
    cdef double *ap = <double *>cnp.PyArray_DATA(aa)
    cdef double *bp = <double *>cnp.PyArray_DATA(ba)
    cdef double *rp = <double *>cnp.PyArray_DATA(r)
    cdef Py_ssize_t i, n = aa.shape[0]
    with nogil:
        for i in range(n):
            rp[i] = ccgym_npy_remainder(ap[i], bp[i])
    return r


def _pow2_probes():
    """A small probe set for numpy's scalar ``**`` (the C self-check compared
    pow on a larger one): x * x just under the threshold and just under half
    an ulp from a double, random x, specials."""
    rng = np.random.default_rng(20261203)
    x = np.ldexp(rng.uniform(1.0, 2.0, 200000), rng.integers(-40, 41, 200000))
    hi = x * x
    # |lo| / ulp(hi) from the exact square's error, in float64 (Dekker's split)
    c = 134217729.0 * x
    xh = c - (c - x)
    xl = x - xh
    lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl
    f = np.abs(lo) / np.ldexp(1.0, np.frexp(hi)[1] - 53)
    edge = x[(f > CCGYM_POW2_T - 0.01) & (f <= CCGYM_POW2_T)][:300]
    half = x[f > 0.49][:300]
    special = np.array([0.0, 5e-324, 1e-300, 1e-160, 1e155, 1e300, 1.0, 2.0, 0.1,
                        np.inf, np.nan])
    x = np.concatenate([edge, half, x[:300], special])
    return np.concatenate([x, -x])


def _pow2_numpy_check():
    """np.float64(v) ** 2 against the exact kernels' square on the probes;
    turns the fast square off (pow from now on) if any differ."""
    if not ccgym_pow2_active():
        return
    x = _pow2_probes()
    with np.errstate(all="ignore"):
        xf = x.astype(np.float32)
        ref = np.array([np.float32(v) ** 2 for v in xf], dtype=np.float32)
    bad = int(np.count_nonzero((exact_pow2f(xf).view(np.int32) != ref.view(np.int32))
                               & ~np.isnan(xf)))
    if bad:
        ccgym_pow2_refuse(f"numpy check refused: {bad} of {xf.size} probes of float32 x ** 2 "
                          f"differ from np.float32 ** 2: pow".encode())
        return
    mine = exact_pow2(x)
    with np.errstate(all="ignore"):
        ref = np.array([np.float64(v) ** 2 for v in x])
    bad = int(np.count_nonzero((mine.view(np.int64) != ref.view(np.int64)) & ~np.isnan(x)))
    if bad:
        ccgym_pow2_refuse(f"numpy check refused: {bad} of {x.size} probes of x ** 2 differ "
                          f"from np.float64 ** 2: pow".encode())


def _exact_math_init():
    want = os.environ.get("CCGYM_EXACT_MATH", "")
    if want not in _EXACT_MATH_VARIABLE:
        raise ValueError(f"the environment variable CCGYM_EXACT_MATH={want!r} is not one of "
                         f"'libm' (scalar libm), 'scalar' (no lanes), 'avx2' (at most AVX2) "
                         f"or unset (the best the self-check accepts)")
    ccgym_exact_math_init()
    _exact_math_numpy_check()
    _pow2_numpy_check()


def exact_math():
    """Which math the exact kernels use, and why: a dict with "path" ("fma" or
    "nofma": the re-implementation of glibc's variant of that name, libm's bits;
    "libm": scalar libm), "lanes" ("avx512", "avx2", "scalar" or "libm"),
    "reason", "table_lo_fixups" (how many table low words read from libm
    differ from the correctly rounded ones) and "kernels" (True: the exact
    kernels that have a block step, ccgym_env_def.exact_lanes_block, run it in
    those lanes; False: their per-instance libm step), "pow2" (True: a
    float64 ``x ** 2`` is x * x wherever that is certainly pow(x, 2)'s result,
    include/ccgym/npmath.h, accepted by its own probes; False: pow), "pow2f"
    (the same for a float32 ``x ** 2`` and powf) and "pow2_reason"."""
    return {"path": _EXACT_MATH_PATHS[ccgym_exact_math_path()],
            "lanes": ccgym_exact_math_lanes().decode(),
            "kernels": bool(ccgym_exact_lanes_active()),
            "reason": ccgym_exact_math_reason().decode(),
            "table_lo_fixups": ccgym_exact_math_table_lo_fixups(),
            "pow2": bool(ccgym_pow2_active() & 1),
            "pow2f": bool(ccgym_pow2_active() & 2),
            "pow2_reason": ccgym_pow2_reason().decode()}


def exact_lanes_kinds():
    """The env kinds whose exact step has a block form over exact math
    (ccgym_stock_def.exact_lanes_block): those that run in SIMD lanes when
    exact_math()["kernels"] is True."""
    return tuple(ccgym_envs[i].name.decode() for i in range(ccgym_num_envs)
                 if ccgym_stock_envs[i].exact_lanes_block != NULL)


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


def _pow2_selfcheck(double t=CCGYM_POW2_T, bint drop_lo=False):
    """The C self-check of the fast square with threshold t (ulps of x * x)
    and, drop_lo, its exact error term left out: (number of mismatching
    probes, number of probes). For tests."""
    cdef long n = 0
    cdef long bad = ccgym_pow2_selfcheck(t, drop_lo, &n)
    return bad, n


def _pow2f_selfcheck(double t=CCGYM_POW2F_T):
    """The C self-check of the float32 fast square with threshold t (float
    ulps): (number of mismatching probes, number of probes). For tests."""
    cdef long n = 0
    cdef long bad = ccgym_pow2f_selfcheck(t, &n)
    return bad, n


# Decide now, under the import lock (the C side caches it in plain variables).
_exact_math_init()
