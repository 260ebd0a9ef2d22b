# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled renderer of ccgym: draws classic-control frames for a batch of
instances from the C state structs of a :class:`ccgym._core.Batch`.
The Python API is :mod:`ccgym.rendering`; this module checks buffers and
calls C with the GIL released."""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t

cnp.import_array()


cdef extern from "ccgym/render.h" nogil:
    ctypedef struct ccgym_render_icon:
        const uint8_t *rgba
        const size_t *offset
        int max_size

    ctypedef struct ccgym_render_job:
        const void *def_ "def"
        const void *states
        const void *params
        size_t params_stride
        const int64_t *indices
        size_t count
        const ccgym_render_icon *icon
        int antialias
        uint8_t *out
        int out_h
        int out_w
        int channels

    int ccgym_render_canvas_size(const void *d, int *width, int *height)
    int ccgym_render(const ccgym_render_job *job, int n_threads)


from libc.stdint cimport uintptr_t

from ccgym import _core
from ccgym._core import c_array, env_info


def __getattr__(name):
    # The kinds with a renderer: every kind of the env table (ccgym._core),
    # read when asked for, so that registered plugins are among them.
    if name in ("KINDS", "ENV_KINDS"):
        return _core.ENV_KINDS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


cdef const void *_kind_def(str kind) except NULL:
    """The kind's C def (what render.h's job.def is), looked up in the
    binding's table of defs, stock and registered (ValueError if unknown)."""
    return <const void *><uintptr_t>_core.def_address(kind)


def canvas_size(str kind):
    """(height, width) of the kind's canvas, as Gymnasium's screen."""
    cdef int w = 0, h = 0
    ccgym_render_canvas_size(_kind_def(kind), &w, &h)
    return h, w


def state_size(str kind):
    """Bytes of one instance's C state struct."""
    return env_info(kind).state_size


# The C structs hold doubles and int64s: C reads the state and params bytes
# at this alignment (the one checked path refuses a buffer off it).
cdef size_t _STRUCT_ALIGN = 8


cdef cnp.ndarray _bytes(obj, str name):
    """A Batch's state or params bytes, through the binding's one checked
    path (ccgym._core.c_array): a 1-D uint8 array, C-contiguous, aligned
    for the structs C reads it as; else TypeError/ValueError."""
    return c_array(obj, np.uint8, -1, -1, name, _STRUCT_ALIGN)


cdef class Icon:
    """An icon at every square size 0..max_size (Pendulum's torque arrow, a
    def's paint blits it with ccgym_draw.icon): ``images[s]``
    is an (s, s, 4) uint8 RGBA array (straight alpha)."""

    cdef ccgym_render_icon _icon
    cdef readonly object rgba, offsets
    cdef readonly int max_size

    def __cinit__(self, images):
        self.max_size = len(images) - 1
        if self.max_size < 0:
            raise ValueError("need at least the size-0 image")
        offsets = np.zeros(self.max_size + 1, dtype=np.uintp)
        parts = []
        pos = 0
        for s, im in enumerate(images):
            im = np.ascontiguousarray(im, dtype=np.uint8)
            if im.shape != (s, s, 4):
                raise ValueError(f"images[{s}] has shape {im.shape}; expected ({s}, {s}, 4)")
            offsets[s] = pos
            parts.append(im.reshape(-1))
            pos += im.size
        self.rgba = np.concatenate(parts) if pos else np.zeros(1, dtype=np.uint8)
        self.offsets = offsets
        self._icon.rgba = <const uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>self.rgba)
        self._icon.offset = <const size_t *>cnp.PyArray_DATA(<cnp.ndarray>self.offsets)
        self._icon.max_size = self.max_size


def render(str kind, state_buffer, params_buffer, indices, out, int antialias=1,
           icon=None, int num_threads=1):
    """Draws instances ``indices`` (int64, or None for all) of ``state_buffer``
    into ``out`` (uint8, C-contiguous, (k, h, w, channels)); a shape other
    than the canvas's (or channels == 1) gives area-averaged frames.
    ``icon`` is None or an :class:`Icon` (what the def's paint blits with
    ``ccgym_draw.icon``: the env class's ``_render_icon``)."""
    cdef const void *d = _kind_def(kind)
    cdef int cw = 0, ch = 0
    if ccgym_render_canvas_size(d, &cw, &ch) != 0:
        raise ValueError(f"{kind} has no renderer (its def has no paint function)")
    cdef cnp.ndarray states = _bytes(state_buffer, "state_buffer")
    cdef cnp.ndarray params = _bytes(params_buffer, "params_buffer")
    info = env_info(kind)
    cdef size_t ssize = info.state_size
    cdef size_t psize = info.params_size
    if states.shape[0] % ssize != 0:
        raise ValueError(f"state_buffer is not a whole number of {kind} states")
    cdef Py_ssize_t n = states.shape[0] // ssize
    # A Batch holds one params struct shared by all instances, or one each.
    cdef size_t pstride
    if params.shape[0] == <Py_ssize_t>psize:
        pstride = 0
    elif params.shape[0] == n * <Py_ssize_t>psize:
        pstride = psize
    else:
        raise ValueError(f"params_buffer holds neither one nor {n} {kind} params structs")
    cdef cnp.ndarray idx = None
    cdef Py_ssize_t count = n
    if indices is not None:
        if not isinstance(indices, np.ndarray) or indices.ndim != 1:
            raise ValueError("indices must be a 1-D array")
        idx = c_array(indices, np.int64, -1, -1, "indices")
        count = idx.shape[0]
        if count and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"indices must be in [0, {n}), got {indices!r}")
    if not isinstance(out, np.ndarray) or out.ndim != 4:
        raise TypeError("out must be a writeable C-contiguous uint8 array (k, h, w, channels)")
    # C writes it: canonical as it is (checked path, output) or refused.
    c_array(out.reshape(-1) if out.flags.c_contiguous else out, np.uint8, out.size, -1,
            "out (a writeable C-contiguous uint8 array (k, h, w, channels))", 0, True)
    if out.shape[0] != count or out.shape[3] not in (1, 3) or out.shape[1] < 1 \
            or out.shape[2] < 1:
        raise ValueError(f"out has shape {out.shape}; expected ({count}, h, w, 1 or 3)")

    cdef ccgym_render_job job
    job.def_ = d
    job.states = cnp.PyArray_DATA(states)
    job.params = cnp.PyArray_DATA(params)
    job.params_stride = pstride
    job.indices = NULL if idx is None else <const int64_t *>cnp.PyArray_DATA(idx)
    job.count = count
    job.icon = NULL
    job.antialias = antialias
    job.out = <uint8_t *>cnp.PyArray_DATA(<cnp.ndarray>out)
    job.out_h = out.shape[1]
    job.out_w = out.shape[2]
    job.channels = out.shape[3]
    cdef Icon ic
    if icon is not None:
        ic = <Icon?>icon
        job.icon = &ic._icon
    cdef int rc
    if num_threads < 1:
        raise ValueError(f"num_threads must be at least 1, got {num_threads}")
    with nogil:
        rc = ccgym_render(&job, num_threads)
    if rc != 0:
        raise MemoryError("ccgym_render could not allocate its scratch buffers")
    return out
