# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled core of ccgym: one generic batch of N environment instances over
the C kernels (buffers, parameters, seeding, masked step and reset,
snapshots), knowing no Gymnasium and no front end's rule. The front ends'
rules are subclasses of :class:`Batch` in ccgym._front_core, and the Python
front ends (ccgym.envs, ccgym.vector, ccgym.sb3) are thin layers over
those."""

import operator
import os
import sys

import numpy as np

cimport numpy as cnp
from libc.stdint cimport INT64_MIN, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy
from cpython.pythread cimport PyThread_get_thread_ident
from cpython.object cimport PyObject


from ccgym._core cimport *

cnp.import_array()

AUTORESET_NEXT_STEP = CCGYM_AUTORESET_NEXT_STEP
AUTORESET_SAME_STEP = CCGYM_AUTORESET_SAME_STEP
AUTORESET_DISABLED = CCGYM_AUTORESET_DISABLED



cdef extern from "ccgym/driver.h" nogil:
    int ccgym_discrete_in_range(const int64_t *a, size_t n, int64_t n_actions)

cdef extern from "ccgym/fastmath.h" nogil:
    const char *ccgym_fast_isa()
    int ccgym_fast_use_isa(int isa)
    int ccgym_fast_sincos_array(const double *x, double *s, double *c, size_t n, int isa)

PRECISIONS = ("exact", "fast")

# ------------------------------------------------------------ action rules
# How Gymnasium computes an action, per env: the rule table the binding
# builds from each env def's action_rules (CCGYM_RULE_*, ccgym/env.h) to pick
# the kernel's arithmetic (include/ccgym/driver.h, enum
# ccgym_action_type; each intermediate's dtype is traced in
# tools/dependency_spec.md, section 3). numpy 2 (NEP 50) computes an
# action's terms in the action's own dtype; a batch's dtype applies to every
# row, as Gymnasium's SyncVectorEnv and SB3's DummyVecEnv hand each sub-env a
# row of the batch.
#
# "types": a continuous action's source -> the kernel's action type. The
# source is its dtype ("float16", "float32", "float64", "int" for every
# integer width, "bool"), or "python" for a list or tuple of Python floats,
# ints and bools.
#   For example Pendulum: np.clip(u, -2.0, 2.0) keeps a float16/32/64
#     array's dtype and makes ints, bools and lists float64.
#   MountainCarContinuous (CCGYM_RULE_LIST_DEFERS): force = action[0] keeps a
#     numpy scalar's dtype (an int or bool then becomes float64 in force *
#     power); a list's element is a Python float, which defers to the state's
#     float32 in velocity += ...
# "square_overflows": the reward is math.pow(action[0], 2), which raises
#   OverflowError when a finite float64's square overflows: refused alike.
# "asserts_contains": the single env's step asserts action_space.contains(action)
#   first, so it refuses whatever the installed Gymnasium's Discrete refuses:
#   since Gymnasium 1.2 an unsigned 64-bit integer (no safe cast to int64).
#   The single env sets SingleBatch.uint64_actions from that (ccgym/_front_core.pyx);
#   Acrobot indexes AVAIL_TORQUE[a] without the check and takes them.
# "unsigned_zero_wraps": the step computes action - 1 in the action's dtype,
#   so an unsigned 0 wraps around (np.uint8(0) - 1 == 255, a push to the right
#   with numpy's overflow warning): the front ends' layer (ccgym/_front_core.pyx)
#   refuses it with a clear error instead.
# What else Gymnasium accepts and ccgym refuses: long double (Gymnasium would
# compute in it), lists mixing leaves the table computes in different types
# (Gymnasium computes each row in its own), and for Acrobot negative actions
# (Gymnasium indexes AVAIL_TORQUE[a], so -1 means 2; ccgym keeps to Discrete(3)).
# The numeric-typing classes of an attribute (ccgym_field.attr_class, enum
# ccgym_attr_class in ccgym/env.h), by name: EnvInfo.attr_class holds them.
ATTR_CLASSES = {"numpy": CCGYM_ATTR_NUMPY, "narrow": CCGYM_ATTR_NARROW,
                "typed": CCGYM_ATTR_TYPED, "int_product": CCGYM_ATTR_INT_PRODUCT,
                "no_int32": CCGYM_ATTR_NO_INT32, "action_operand": CCGYM_ATTR_ACTION_OPERAND,
                "py_int_tag": CCGYM_ATTR_PY_INT_TAG, "int_default": CCGYM_ATTR_INT_DEFAULT,
                "rebinds": CCGYM_ATTR_REBINDS, "keyword": CCGYM_ATTR_KEYWORD,
                "bounded": CCGYM_ATTR_BOUNDED, "negated": CCGYM_ATTR_NEGATED,
                "list_item": CCGYM_ATTR_LIST_ITEM, "class_level": CCGYM_ATTR_CLASS_LEVEL}
# The type tag of a Python int value of a "py_int_tag" attribute.
T_PYINT = CCGYM_T_PYINT

# A continuous env's rule table is the same for every env but for a list of
# Python floats, which computes as float64 unless the def's action_rules has
# CCGYM_RULE_LIST_DEFERS (then it defers to the state's dtype); the other
# rules are the def's action_rules flags (CCGYM_RULE_*, ccgym/env.h).
_CONTINUOUS_ACTION_TYPES = {"float32": CCGYM_ACTION_F32, "float64": CCGYM_ACTION_F64,
                            "float16": CCGYM_ACTION_F16, "int": CCGYM_ACTION_F64,
                            "bool": CCGYM_ACTION_F64, "python": CCGYM_ACTION_F64}


cdef dict _action_rules(const ccgym_env_def *d):
    """The rule table of an env def (see above): a dict of its rules."""
    rules = {"asserts_contains": bool(d.action_rules & CCGYM_RULE_ASSERTS_CONTAINS),
             "unsigned_zero_wraps": bool(d.action_rules & CCGYM_RULE_UNSIGNED_ZERO_WRAPS),
             "square_overflows": bool(d.action_rules & CCGYM_RULE_SQUARE_OVERFLOWS)}
    if d.action_dim:
        types = dict(_CONTINUOUS_ACTION_TYPES)
        if d.action_rules & CCGYM_RULE_LIST_DEFERS:
            types["python"] = CCGYM_ACTION_PY
        rules["types"] = types
    return rules


# ------------------------------------------------------------------ env table
# Everything below is read from the C registry (ccgym_envs[], include/ccgym/env.h):
# each env's facts are stated once, in its own source file (src/<env>.c).

_FIELD_FORMATS = {CCGYM_FIELD_F64: "f8", CCGYM_FIELD_I64: "i8", CCGYM_FIELD_I32: "i4"}


cdef _field_dtype(const ccgym_field *fields, int n, size_t itemsize):
    """A numpy structured dtype with the C struct's layout."""
    names, formats, offsets = [], [], []
    cdef int k
    for k in range(n):
        names.append(fields[k].name.decode())
        fmt = _FIELD_FORMATS[fields[k].type]
        formats.append(fmt if fields[k].count == 1 else (fmt, (fields[k].count,)))
        offsets.append(fields[k].offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": itemsize})


class EnvInfo:
    """One env's definition, as its C def states it (read-only).

    ``kind``, ``obs_dim``, ``action_dim`` (0: discrete), ``n_actions``,
    ``state_size`` and ``params_size`` (bytes), ``state_dtype`` and
    ``params_dtype`` (numpy structured dtypes with the C layouts),
    ``param_fields`` (params_init's inputs, in order), ``param_defaults``
    (Gymnasium's default of each input; switches as bool), ``physics_fields``
    (the inputs a vector env takes per instance), ``bool_fields``,
    ``derived_fields`` (computed by params_init), ``default_reset`` (the
    reset bounds (a, b)), ``reset_options`` (their names in
    ``reset(options=...)``), ``reset_symmetric`` ((a, b) are (x_init, y_init):
    uniform in [-a, a] x [-b, b]), ``canvas_size`` ((height, width) of the
    render screen), ``state_float_fields`` (the leading float64 state
    fields), ``state_fill`` (the value of each other state field in a
    state given by those alone) and ``state_tags`` (each state field that
    holds a type tag, CCGYM_STATE_TAG -> the values a step leaves there,
    which set_state takes).

    Gymnasium's side of the def: ``gym_class`` (its env class name),
    ``attributes`` (Gymnasium attribute -> params field, in field order),
    ``attr_class`` (attribute -> its CCGYM_ATTR_* flags, see
    :data:`ATTR_CLASSES`), ``switches`` (switch attribute -> its choices:
    None for a truth value, else a tuple of strings whose first turns the
    field on), ``kept_fields`` (derived fields an attribute write keeps),
    ``attr_bounds`` (attribute -> (lo, hi) where its values are bounded),
    ``keywords`` (constructor keyword -> attribute), ``list_attributes``
    (a list attribute -> the params fields of its items, in order:
    CCGYM_ATTR_LIST_ITEM, not in ``attributes``), ``numpy_fma_fields``
    (inputs set from the running numpy's float32 sin/cos),
    ``numpy_reward`` (the single env's reward is a numpy float64, not a
    Python float), ``action_rules`` (the rule table, see _action_rules) and
    ``step_warning`` (the warning the single env's step logs when the def's
    step_warns says so, or None)."""

    __slots__ = ("kind", "index", "obs_dim", "action_dim", "n_actions", "state_size",
                 "params_size", "state_dtype", "params_dtype", "param_fields",
                 "param_defaults", "physics_fields", "bool_fields", "derived_fields",
                 "default_reset", "reset_options", "reset_symmetric", "canvas_size",
                 "state_float_fields", "state_fill", "state_tags", "has_fast", "gym_class", "attributes",
                 "attr_class", "switches", "kept_fields", "numpy_reward", "action_rules",
                 "attr_bounds", "keywords", "numpy_fma_fields", "step_warning",
                 "list_attributes")

    def __setattr__(self, name, value):
        raise AttributeError("EnvInfo is read-only")

    def __repr__(self):
        return f"EnvInfo({self.kind!r})"


# The table of defs every layer looks an env up in: the stock registry's
# (ccgym_envs[], in its order), then the defs registered from other
# extension modules (register_c_def), in the order registered. Never shrinks;
# an env's index is its position. The renderer and the bench ceiling take a
# def's address from here (def_address), not an index into ccgym_envs[].
cdef enum:
    _MAX_DEFS = 256
cdef const ccgym_env_def *_defs[_MAX_DEFS]
cdef int _n_defs = 0
# What keeps each registered def alive: its capsule (and so its module).
_DEF_OWNERS = []
cdef int _k0
for _k0 in range(ccgym_num_envs):
    _defs[_k0] = ccgym_envs[_k0]
_n_defs = ccgym_num_envs


cdef object _env_info(int index):
    cdef const ccgym_env_def *d = _defs[index]
    cdef const ccgym_field *f
    cdef int k
    info = EnvInfo.__new__(EnvInfo)
    put = lambda name, value: object.__setattr__(info, name, value)
    put("kind", d.name.decode())
    put("index", index)
    put("obs_dim", d.obs_dim)
    put("action_dim", d.action_dim)
    put("n_actions", d.n_actions)
    put("state_size", d.state_size)
    put("params_size", d.params_size)
    put("state_dtype", _field_dtype(d.state_fields, d.n_state_fields, d.state_size))
    put("params_dtype", _field_dtype(d.param_fields, d.n_param_fields, d.params_size))
    inputs, defaults, physics, bools, derived = [], {}, [], [], []
    for k in range(d.n_param_fields):
        name = d.param_fields[k].name.decode()
        flags = d.param_fields[k].flags
        if flags & CCGYM_PARAM_INPUT:
            inputs.append(name)
            value = d.param_fields[k].value
            defaults[name] = bool(value) if flags & CCGYM_PARAM_BOOL else value
            if flags & CCGYM_PARAM_PHYSICS:
                physics.append(name)
            if flags & CCGYM_PARAM_BOOL:
                bools.append(name)
        else:
            derived.append(name)
    put("param_fields", tuple(inputs))
    put("param_defaults", defaults)
    put("physics_fields", tuple(physics))
    put("bool_fields", tuple(bools))
    put("derived_fields", tuple(derived))
    put("default_reset", (d.default_a, d.default_b))
    put("reset_options", (d.reset_option_a.decode(), d.reset_option_b.decode()))
    put("reset_symmetric", bool(d.reset_symmetric))
    put("canvas_size", (d.canvas_height, d.canvas_width))
    floats, fill, tags = [], {}, {}
    for k in range(d.n_state_fields):
        name = d.state_fields[k].name.decode()
        if d.state_fields[k].flags & CCGYM_STATE_TAG:
            tags[name] = tuple(range(int(d.state_fields[k].lo), int(d.state_fields[k].hi) + 1))
        if d.state_fields[k].type == CCGYM_FIELD_F64 and not fill:
            floats.append(name)
        else:
            value = d.state_fields[k].value
            fill[name] = value if d.state_fields[k].type == CCGYM_FIELD_F64 else int(value)
    put("state_float_fields", tuple(floats))
    put("state_fill", fill)
    put("state_tags", tags)
    cdef const ccgym_stock_def *stock = ccgym_stock_of(d)
    # Its fast def steps a fast block (else exactly; a plugin has none).
    put("has_fast", stock != NULL and stock.fast_block != NULL)
    attributes, attr_class, switches, kept, bounds, keywords, fma = {}, {}, {}, [], {}, {}, []
    lists = {}
    for k in range(d.n_param_fields):
        f = &d.param_fields[k]
        name = f.name.decode()
        if f.flags & CCGYM_PARAM_KEPT:
            kept.append(name)
        if f.flags & CCGYM_PARAM_NUMPY_FMA:
            fma.append(name)
        if f.attr == NULL:
            continue
        attr = f.attr.decode()
        if f.attr_class & CCGYM_ATTR_LIST_ITEM:
            lists[attr] = lists.get(attr, ()) + (name,)
            continue
        attributes[attr] = name
        attr_class[attr] = f.attr_class
        if f.attr_class & CCGYM_ATTR_BOUNDED:
            bounds[attr] = (f.lo, f.hi)
        if f.attr_class & CCGYM_ATTR_KEYWORD:
            keywords[attr.lstrip("_")] = attr
        if f.flags & CCGYM_PARAM_BOOL:
            switches[attr] = None if f.choices == NULL else tuple(f.choices.decode().split("|"))
    put("gym_class", d.gym_class.decode() if d.gym_class != NULL else None)
    put("step_warning", d.step_warning.decode() if d.step_warning != NULL else None)
    put("attributes", attributes)
    put("attr_class", attr_class)
    put("switches", switches)
    put("kept_fields", tuple(kept))
    put("attr_bounds", bounds)
    put("keywords", keywords)
    put("numpy_fma_fields", tuple(fma))
    put("list_attributes", lists)
    put("numpy_reward", d.reward_type == CCGYM_REWARD_NUMPY)
    put("action_rules", _action_rules(d))
    return info


ENV_INFO = {}
for _k in range(_n_defs):
    _info = _env_info(_k)
    ENV_INFO[_info.kind] = _info
del _k, _info
# The env kinds, in the registry's order (an env's index is its position).
ENV_KINDS = tuple(ENV_INFO)
# The parameters each kernel's params_init takes, in order.
PARAM_FIELDS = {kind: info.param_fields for kind, info in ENV_INFO.items()}


def env_info(str kind):
    """The EnvInfo of `kind`; ValueError for an unknown kind."""
    try:
        return ENV_INFO[kind]
    except KeyError:
        raise ValueError(f"unknown env kind {kind!r}; expected one of {ENV_KINDS}") from None


def list_values(str kind, str attr, value):
    """The params values of `kind`'s list attribute `attr` (its
    EnvInfo.list_attributes fields) taken from `value`, or TypeError /
    ValueError. `value` is a list, tuple or one-dimensional array, indexed
    as Gymnasium's step indexes it: item k is field k's (items past the
    fields are never read). Each item is a float64 operand of Gymnasium's
    Python arithmetic (CCGYM_ATTR_LIST_ITEM): a Python float or numpy
    float64, or a Python int or numpy int64 that float64 holds exactly,
    taken as float(item); another type (a numpy float32, say) would compute
    in its own precision, which ccgym does not model."""
    fields = env_info(kind).list_attributes.get(attr)
    if fields is None:
        raise ValueError(f"{kind} has no list attribute {attr!r}")
    cdef Py_ssize_t n = len(fields)
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{attr} must be a list, tuple or array of numbers, got {value!r}")
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{attr} must be one-dimensional, got shape {value.shape}")
    if len(value) < n:
        raise ValueError(f"{attr} needs {n} items (one per action: Gymnasium's step reads "
                         f"{attr}[0] to {attr}[{n - 1}]), got {value!r}")
    out = []
    for x in value[:n]:
        if type(x) is float or type(x) is np.float64:
            out.append(float(x))
        elif (type(x) is int or type(x) is np.int64) and abs(int(x)) <= 2 ** 53:
            out.append(float(x))
        else:
            raise TypeError(
                f"{attr}: item {x!r} ({type(x).__name__}) must be a Python int or float (or "
                "a numpy float64/int64): Gymnasium would compute with it in another "
                "precision or type")
    return tuple(out)


def refused_in_place(str what, e):
    """The error for a value the env follows (a list attribute, a handed-out
    state, an observation that is the state) changed in place to one ccgym
    refuses: e's type, saying so; the env is left unchanged."""
    return type(e)(f"{what} was changed in place to a value ccgym refuses "
                   f"(the env is unchanged): {e}")


def state_dtype(str kind):
    """The numpy structured dtype of one instance's C state struct."""
    return env_info(kind).state_dtype


cdef const ccgym_env_def *_env_def(str kind, str precision="exact") except NULL:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    cdef const ccgym_env_def *d = _defs[env_info(kind).index]
    cdef const ccgym_stock_def *stock
    if precision != "fast":
        return d
    # An env without fast kernels (MountainCar's step has one cos and
    # branchy clipping) has a fast def that runs the exact step; a plugin's
    # def (no stock def) is its own fast def.
    stock = ccgym_stock_of(d)
    return &stock.fast.public_def if stock != NULL else d


def def_address(str kind, str precision="exact"):
    """The address of kind's C def (ccgym_env_def) as an int, for ccgym's
    other extension modules (the renderer, the bench ceiling), which take
    the def itself; ValueError for an unknown kind."""
    return <uintptr_t>_env_def(kind, precision)


def stock_def_address(str kind, str precision="exact"):
    """The address of kind's private stock def (ccgym_stock_def: its bare
    loop, lanes and fast blocks) as an int, 0 for a plugin's def: found in
    this module's registry, which is the one def_address points into."""
    return <uintptr_t>ccgym_stock_of(_env_def(kind, precision))


# ------------------------------------------------------------ registration
# A def from another extension module (a plugin built against this ccgym's
# headers, ccgym/ccgym.h) comes in a PyCapsule named CCGYM_ENV_DEF_CAPSULE.
API_VERSION = CCGYM_API_VERSION
ENV_DEF_CAPSULE = "ccgym.env_def"

cdef extern from "Python.h":
    bint PyCapsule_CheckExact(object o)
    const char *PyCapsule_GetName(object capsule) except? NULL
    void *PyCapsule_GetPointer(object capsule, const char *name) except? NULL


cdef extern from "string.h" nogil:
    size_t strnlen(const char *s, size_t maxlen)

cdef int _MAX_NAME = 64
cdef enum:
    _MAX_TEXT = 1024  # a def's step_warning


cdef str _c_str(const char *s, str what, bint required=True, size_t limit=_MAX_NAME):
    if s == NULL:
        if required:
            raise ValueError(f"malformed env def: {what} is NULL")
        return None
    cdef size_t n = strnlen(s, limit + 1)
    cdef bytes raw = s[:n]
    if n > limit:
        raise ValueError(f"malformed env def: {what} is longer than {limit} characters")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError(f"malformed env def: {what} is not ASCII") from None


cdef int _check_fields(const ccgym_field *fields, int n, size_t size, str what,
                       bint params) except -1:
    cdef int k
    cdef size_t width
    if n < 0 or n > 64 or (n > 0 and fields == NULL):
        raise ValueError(f"malformed env def: {n} {what} fields")
    names = set()
    attrs = {}
    for k in range(n):
        name = _c_str(fields[k].name, f"{what} field {k}'s name")
        if not name.isidentifier() or name in names:
            raise ValueError(f"malformed env def: {what} field name {name!r}")
        names.add(name)
        if fields[k].type not in _FIELD_FORMATS:
            raise ValueError(f"malformed env def: {what} field {name!r} has type "
                             f"{fields[k].type}")
        width = 4 if fields[k].type == CCGYM_FIELD_I32 else 8
        if fields[k].count < 1 or fields[k].count > 1024 or fields[k].offset % width \
                or fields[k].offset + width * fields[k].count > size:
            raise ValueError(f"malformed env def: {what} field {name!r} does not fit "
                             f"its {size}-byte struct")
        if params:
            attr = _c_str(fields[k].attr, f"field {name!r}'s attr", False)
            # (EnvInfo.attributes would keep the last of two alike: a list's items share one)
            if attr is not None and not fields[k].attr_class & CCGYM_ATTR_LIST_ITEM:
                if attr in attrs:
                    raise ValueError(f"malformed env def: attribute name {attr!r} is given to "
                                     f"params fields {attrs[attr]!r} and {name!r}")
                attrs[attr] = name
            _c_str(fields[k].choices, f"field {name!r}'s choices", False)
        elif fields[k].flags & ~CCGYM_STATE_TAG:
            raise ValueError(f"malformed env def: state field {name!r} has flags "
                             f"{fields[k].flags}")
        elif fields[k].flags & CCGYM_STATE_TAG and not (
                fields[k].type != CCGYM_FIELD_F64 and fields[k].count == 1
                and -2.0 ** 31 <= fields[k].lo <= fields[k].hi <= 2.0 ** 31
                and fields[k].hi - fields[k].lo <= 256
                and fields[k].lo == <long long>fields[k].lo
                and fields[k].hi == <long long>fields[k].hi):
            raise ValueError(f"malformed env def: tag field {name!r} must be one integer "
                             "with integer bounds lo <= hi (at most 257 values)")
    return 0


cdef int _check_def(const ccgym_env_def *d, str kind) except -1:
    """Refuses (ValueError) a plugin def the layers could not use safely."""
    if d.obs_dim < 1 or d.obs_dim > CCGYM_MAX_OBS_DIM:
        raise ValueError(f"malformed env def {kind!r}: obs_dim {d.obs_dim} is not in "
                         f"[1, {CCGYM_MAX_OBS_DIM}]")
    if d.action_dim < 0 or d.action_dim > CCGYM_MAX_OBS_DIM:
        raise ValueError(f"malformed env def {kind!r}: action_dim {d.action_dim}")
    if d.action_dim == 0 and d.n_actions < 1:
        raise ValueError(f"malformed env def {kind!r}: a discrete env needs n_actions >= 1")
    if d.state_size < 1 or d.state_size > 4096 or d.params_size > 512 or d.state_size % 8:
        raise ValueError(f"malformed env def {kind!r}: state_size {d.state_size} (a multiple "
                         f"of 8 up to 4096) or params_size {d.params_size} (up to 512)")
    _check_fields(d.state_fields, d.n_state_fields, d.state_size, "state", False)
    _check_fields(d.param_fields, d.n_param_fields, d.params_size, "params", True)
    for what, ptr in (("params_init", <uintptr_t>d.params_init),
                      ("step_range", <uintptr_t>d.step_range),
                      ("reset_range", <uintptr_t>d.reset_range),
                      ("reset_one", <uintptr_t>d.reset_one),
                      ("observe_one", <uintptr_t>d.observe_one),
                      ("obs_low", <uintptr_t>d.obs_low),
                      ("obs_high", <uintptr_t>d.obs_high)):
        if ptr == 0:
            raise ValueError(f"malformed env def {kind!r}: {what} is NULL")
    if d.action_dim and (d.typed_step_range == NULL or d.action_low == NULL
                         or d.action_high == NULL):
        raise ValueError(f"malformed env def {kind!r}: a continuous env needs "
                         "typed_step_range, action_low and action_high")
    _c_str(d.reset_option_a, "reset_option_a")
    _c_str(d.reset_option_b, "reset_option_b")
    _c_str(d.gym_class, "gym_class", False)
    if (d.step_warning == NULL) != (d.step_warns == NULL):
        raise ValueError(f"malformed env def {kind!r}: step_warning and step_warns are "
                         "both set or both NULL")
    _c_str(d.step_warning, "step_warning", False, _MAX_TEXT)
    if d.paint != NULL and (d.canvas_width < 1 or d.canvas_height < 1
                            or d.canvas_width > 4096 or d.canvas_height > 4096):
        raise ValueError(f"malformed env def {kind!r}: canvas {d.canvas_width}x"
                         f"{d.canvas_height} (each in [1, 4096])")
    return 0


# The size of ccgym_env_def at each minor version of this major one (the
# members ccgym/env.h lists per minor): a def of minor m has exactly
# _DEF_SIZES[m] bytes.
cdef extern from "stddef.h":
    size_t _DEF_SIZE_MINOR_0 "offsetof(ccgym_env_def, step_warning)"
_DEF_SIZES = (_DEF_SIZE_MINOR_0, sizeof(ccgym_env_def))
assert len(_DEF_SIZES) == CCGYM_API_MINOR + 1
API_MINOR = CCGYM_API_MINOR


cdef int _check_version(const ccgym_env_def *d) except -1:
    """Refuses (ValueError) a def of another major API version, of a newer
    minor, or whose size is not its minor version's."""
    # Deferred: the core loads alone (no package around it; test_env_table).
    from ccgym._version import __version__ as version  # not the package face (issue 44)
    rebuild = ("rebuild the plugin against this ccgym (pip install --force-reinstall "
               "--no-cache-dir <plugin>)")
    if d.api_version != CCGYM_API_VERSION:
        raise ValueError(
            f"the env def was built against ccgym C API version {d.api_version}; this "
            f"ccgym ({version}) has API version {CCGYM_API_VERSION}.{CCGYM_API_MINOR}, "
            f"which takes defs of major version {CCGYM_API_VERSION} only: {rebuild}")
    if d.api_minor < 0 or d.api_minor > CCGYM_API_MINOR:
        raise ValueError(
            f"the env def was built against ccgym C API version {d.api_version}."
            f"{d.api_minor}, newer than this ccgym's ({version}: API version "
            f"{CCGYM_API_VERSION}.{CCGYM_API_MINOR}): upgrade ccgym, or {rebuild}")
    if d.size != <size_t>_DEF_SIZES[d.api_minor]:
        raise ValueError(
            f"malformed env def: API version {d.api_version}.{d.api_minor} defs have "
            f"{_DEF_SIZES[d.api_minor]} bytes, this one says {d.size}")
    return 0


# The defs as registered (each capsule's pointer), beside the table's copies.
cdef const ccgym_env_def *_def_src[_MAX_DEFS]


def register_c_def(capsule, check=None):
    """Adds the env def in ``capsule`` (a PyCapsule named "ccgym.env_def"
    holding a ``const ccgym_env_def *``, from an extension module built
    against ccgym's headers) to the table of defs, after the stock envs, and
    returns its kind. TypeError for anything but a capsule; ValueError for
    another capsule name, another CCGYM_API_VERSION, a malformed def or a
    kind already in the table. The capsule is kept for good (a def is never
    removed). A def of this ccgym's major API version and an older minor is
    taken, its missing trailing members at their defaults; another major or
    a newer minor is refused. ``check``, if given, is called with the
    def's EnvInfo and its :func:`def_spaces` before the def enters the
    table; whatever it raises refuses the def."""
    global _n_defs, ENV_KINDS
    if not PyCapsule_CheckExact(capsule):
        raise TypeError(f"expected a PyCapsule holding a ccgym env def, got "
                        f"{type(capsule).__name__}")
    cdef const char *cname = PyCapsule_GetName(capsule)
    name = None if cname == NULL else (<bytes>cname).decode("utf-8", "replace")
    if name != ENV_DEF_CAPSULE:
        raise ValueError(f"the capsule is named {name!r}, not {ENV_DEF_CAPSULE!r}: "
                         "it holds no ccgym env def")
    cdef const ccgym_env_def *d = <const ccgym_env_def *>PyCapsule_GetPointer(capsule, cname)
    if d == NULL:
        raise ValueError("the capsule holds a NULL env def")
    _check_version(d)
    kind = _c_str(d.name, "name")
    if not kind.isidentifier():
        raise ValueError(f"malformed env def: kind {kind!r} is not an identifier")
    if kind in ENV_INFO:
        for k in range(_n_defs):
            if _def_src[k] == d:
                raise ValueError(f"env kind {kind!r} is already registered (this def)")
        raise ValueError(f"env kind {kind!r} is already in the table (another def)")
    if _n_defs >= _MAX_DEFS:
        raise RuntimeError(f"the table of env defs is full ({_MAX_DEFS} defs)")
    # The table holds the def as this ccgym lays it out: its `size` bytes in
    # a zeroed def, so that the members a def of an older minor lacks take
    # their defaults (0, NULL). Never freed once registered (nor is the
    # capsule's def).
    cdef ccgym_env_def *copy = <ccgym_env_def *>calloc(1, sizeof(ccgym_env_def))
    if copy == NULL:
        raise MemoryError
    memcpy(copy, d, d.size)
    try:
        _check_def(copy, kind)
        _defs[_n_defs] = copy
        info = _env_info(_n_defs)
        if check is not None:  # (ccgym.register_c_env's checks of values and names)
            check(info, _def_spaces(copy))
    except BaseException:
        _defs[_n_defs] = NULL
        free(copy)
        raise
    _def_src[_n_defs] = d
    _n_defs += 1
    _DEF_OWNERS.append(capsule)
    ENV_INFO[kind] = info
    ENV_KINDS = tuple(ENV_INFO)
    PARAM_FIELDS[kind] = info.param_fields
    return kind


# For the tests (tests/test_plugin_api.py): capsules of altered copies of a
# stock def, as a plugin's would come. Never freed (nor are registered defs).
_TEST_KEEP = []

cdef extern from "Python.h":
    object PyCapsule_New(void *pointer, const char *name, void *destructor)


def _test_def_capsule(str kind, str name=None, api_version=None,
                      str capsule_name=ENV_DEF_CAPSULE, bint bounds=True, obs_dim=None,
                      bint null_step=False, bint null_step_warns=False, api_minor=None):
    """A capsule holding a copy of kind's exact public def (as a plugin's: no
    stock members): renamed ``name``, with ``api_version`` and ``obs_dim`` if
    given, no observation bounds with ``bounds`` false, a NULL step_range
    with ``null_step``, a NULL step_warns with ``null_step_warns``. With
    ``api_minor`` (at most this ccgym's), laid out as that minor version
    describes: its size field is that version's, and only that many bytes
    are allocated (the members past them are not there to be read)."""
    cdef size_t size = sizeof(ccgym_env_def)
    if api_minor is not None and 0 <= api_minor <= CCGYM_API_MINOR:
        size = _DEF_SIZES[api_minor]
    cdef ccgym_env_def *d = <ccgym_env_def *>calloc(1, size)
    if d == NULL:
        raise MemoryError
    memcpy(d, _env_def(kind), size)
    if api_minor is not None:
        d.api_minor = api_minor
        d.size = size
    cdef bytes b_name, b_cap = capsule_name.encode()
    _TEST_KEEP.append(b_cap)
    if name is not None:
        b_name = name.encode()
        _TEST_KEEP.append(b_name)
        d.name = b_name
    if api_version is not None:
        d.api_version = api_version
    if obs_dim is not None:
        d.obs_dim = obs_dim
    if null_step:
        d.step_range = NULL
    if null_step_warns and size == sizeof(ccgym_env_def):  # (a minor-0 def has none)
        d.step_warns = NULL
    if not bounds:
        d.obs_low = NULL
    return PyCapsule_New(d, b_cap, NULL)


cdef object _floats(const float *p, int n):
    return None if p == NULL else np.array([p[k] for k in range(n)], dtype=np.float32)


def def_spaces(str kind):
    """(obs_low, obs_high, action_low, action_high) float32 arrays from kind's
    def (the action bounds None for a discrete action), and its render_fps.
    Every single env's spaces are built from them (ccgym.envs._base._def_spaces)."""
    return _def_spaces(_env_def(kind))


def params_record(str kind, dict params):
    """The bytes (a uint8 array) of one C params struct of kind, as the def's
    params_init makes it from ``params`` (every param field, a scalar): what a
    Batch built with those params holds, without building one (default
    attribute values, drawing a state that has no batch)."""
    cdef const ccgym_env_def *d = _env_def(kind)
    fields = PARAM_FIELDS[kind]
    missing = [f for f in fields if f not in params]
    if missing:
        raise KeyError(f"missing {kind} parameters: {missing}")
    values = np.array([params[f] for f in fields], dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"{kind} params_record takes scalars")
    cdef double[::1] v = values
    cdef const double *vp = &v[0] if values.shape[0] else NULL
    out = _aligned_zeros(max(<Py_ssize_t>d.params_size, 1))[:d.params_size]
    cdef unsigned char[::1] o = out
    if d.params_size:
        d.params_init(&o[0], vp)
    return out


cdef tuple _def_spaces(const ccgym_env_def *d):
    return (_floats(d.obs_low, d.obs_dim), _floats(d.obs_high, d.obs_dim),
            _floats(d.action_low, d.action_dim), _floats(d.action_high, d.action_dim),
            d.render_fps)


FAST_ISAS = ("generic", "avx2", "avx512")


def _check_fast_isa_variable():
    """CCGYM_FAST_ISA, checked where the C side will read it: a name outside
    FAST_ISAS raises ValueError (at import, before anything runs on a
    silently ignored choice); a known ISA this CPU or build lacks warns and
    the best available one is used. Unset or empty: the best."""
    want = os.environ.get("CCGYM_FAST_ISA", "")
    if want == "":
        return
    if want not in FAST_ISAS:
        raise ValueError(f"the environment variable CCGYM_FAST_ISA={want!r} names no fast "
                         f"kernel set: use one of {', '.join(FAST_ISAS)} (or leave it unset "
                         f"for the best this CPU has)")
    got = ccgym_fast_isa().decode()
    if got != want:
        import warnings
        warnings.warn(f"CCGYM_FAST_ISA={want!r}: this CPU or build lacks the {want} fast "
                      f"kernels; precision='fast' uses {got!r}", RuntimeWarning, stacklevel=2)


# Detect the CPU (and read CCGYM_FAST_ISA) now, under the import lock: the C
# side caches the answer in plain ints, which threads stepping without the
# GIL then only read.
_check_fast_isa_variable()
ccgym_fast_isa()


def fast_isa():
    """The instruction set precision="fast" uses: "avx512", "avx2" or "generic".
    The best this CPU has, unless the environment variable CCGYM_FAST_ISA
    names a lower one or use_fast_isa chose one."""
    return ccgym_fast_isa().decode()


def use_fast_isa(isa):
    """Makes precision="fast" use `isa` ("generic", "avx2", "avx512", or None
    for the best here) from now on, in every env. For tests and benchmarks:
    call it between steps, not while another thread steps. Raises ValueError
    when this CPU or build lacks the isa."""
    cdef int k = -1 if isa is None else (FAST_ISAS.index(isa) if isa in FAST_ISAS else -2)
    if k == -2:
        raise ValueError(f"isa must be one of {FAST_ISAS} or None, got {isa!r}")
    if ccgym_fast_use_isa(k) != 0:
        raise ValueError(f"the {isa} fast kernels are not available on this CPU or build")


def fast_sincos(x, int isa=-1):
    """(sin, cos) of a float64 array by the fast mode's kernels (isa: 0 generic,
    1 avx2, 2 avx512, -1 the one in use). For tests; raises ValueError when
    this CPU or build lacks the isa."""
    cdef cnp.ndarray xa = np.ascontiguousarray(x, dtype=np.float64).ravel()
    cdef cnp.ndarray s = np.empty_like(xa)
    cdef cnp.ndarray c = np.empty_like(xa)
    cdef size_t n = xa.shape[0]
    cdef int rc
    with nogil:
        rc = ccgym_fast_sincos_array(<const double *>cnp.PyArray_DATA(xa),
                                     <double *>cnp.PyArray_DATA(s),
                                     <double *>cnp.PyArray_DATA(c), n, isa)
    if rc != 0:
        raise ValueError(f"fast kernels for isa {isa} are not available here")
    return s, c


include "_exact_math.pxi"


# Reusing handed-out output arrays rests on reference counts, which a
# free-threaded build does not keep in one plain field: there it is off.
cdef bint _REUSE_OUTPUTS = getattr(sys, "_is_gil_enabled", lambda: True)()


def _aligned_zeros(Py_ssize_t nbytes, Py_ssize_t align=64):
    """A zeroed uint8 buffer of nbytes whose data starts on an `align` boundary."""
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    cdef uintptr_t addr = <uintptr_t>cnp.PyArray_DATA(raw)
    cdef Py_ssize_t off = (align - <Py_ssize_t>(addr % align)) % align
    return raw[off:off + nbytes]


def int_seed_words(seed):
    """The uint32 entropy words numpy's SeedSequence takes from a non-negative int."""
    if seed < 0:
        raise ValueError(f"Seed must be greater or equal to zero, actual value: {seed}")
    words = []
    while seed:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return np.array(words or [0], dtype=np.uint32)


def _seed_range_rows(base, rows, mask=None, int isa=-1):
    """For the tests: seeds a copy of `rows` (n generators as an (n, 4) uint64
    array: state low, high, inc low, high) with base + i where mask is True,
    by one implementation of ccgym_pcg64_seed_range_isa (0 scalar, 1 portable
    lanes, 2 AVX2 lanes, -1 the best), on one thread, and returns the copy.
    ValueError if this CPU lacks that implementation."""
    cdef uint64_t b = base  # OverflowError unless 0 <= base < 2**64
    src = np.ascontiguousarray(rows, dtype=np.uint64)
    if src.ndim != 2 or src.shape[1] != 4:
        raise ValueError(f"rows must have shape (n, 4), got {np.shape(rows)}")
    cdef Py_ssize_t n = len(src)
    if base + n > 2 ** 64:
        raise ValueError("base + n must be at most 2**64")
    out = _aligned_zeros(n * 32).view(np.uint64).reshape(n, 4)
    out[...] = src
    cdef cnp.ndarray marr
    cdef const uint8_t *m = NULL
    if mask is not None:
        marr = np.ascontiguousarray(mask, dtype=np.bool_)
        if marr.ndim != 1 or marr.shape[0] != n:
            raise ValueError(f"mask must have shape ({n},), got {np.shape(mask)}")
        m = <const uint8_t *>cnp.PyArray_DATA(marr)
    cdef ccgym_pcg64 *rng = <ccgym_pcg64 *>cnp.PyArray_DATA(<cnp.ndarray>out)
    cdef int rc
    with nogil:
        rc = ccgym_pcg64_seed_range_isa(rng, b, <size_t>n, m, isa)
    if rc != 0:
        raise ValueError(f"this CPU does not run seeding implementation {isa}")
    return out


# ------------------------------------------------------------ owned memory
# Everything C reads or writes lives in memory the core allocated itself and
# keeps alive: a _Block. What users receive are numpy views whose base is the
# block (never OWNDATA, so .resize raises; reshaping or re-flagging a view
# changes only that view object, never the pointers C uses), and a block is
# freed only when the core and every view of it are gone.

cdef class _Block:
    """One zeroed allocation, its data 64-byte aligned, owned by the core."""

    def __cinit__(self, size_t nbytes):
        self._raw = calloc(nbytes + 64, 1)
        if self._raw == NULL:
            raise MemoryError(f"cannot allocate {nbytes} bytes")
        self.data = <char *>((<uintptr_t>self._raw + 63) & ~(<uintptr_t>63))
        self.nbytes = nbytes

    def __dealloc__(self):
        free(self._raw)


cdef inline size_t _round64(size_t n) noexcept nogil:
    return (n + 63) & ~(<size_t>63)


cdef cnp.ndarray _view(_Block block, size_t offset, int nd, cnp.npy_intp *dims, int typenum,
                       bint writeable):
    """A C-contiguous view of block's memory at offset, kept alive by it.
    Read-only views stay read-only: a block exports no buffer, so numpy
    refuses to set WRITEABLE on them."""
    cdef cnp.ndarray arr = cnp.PyArray_New(
        cnp.ndarray, nd, dims, typenum, NULL, block.data + offset, 0,
        cnp.NPY_ARRAY_CARRAY if writeable else cnp.NPY_ARRAY_CARRAY_RO, None)
    cnp.set_array_base(arr, block)
    return arr


cdef enum:
    _REAL = 0
    _INTEGER = 1
    _EXACT = 2


cdef object _c_input(object obj, int typenum, Py_ssize_t d0, Py_ssize_t d1, bint flat_ok,
                     int kinds, str what):
    """THE way an array reaches C (actions, masks, snapshot arrays): obj
    itself when it is canonical (see _canonical), else a converted copy, else
    a clear error. `kinds`: _REAL (float/int values cast to typenum, out of
    range -> inf as numpy casts), _INTEGER (integers only, cast to typenum),
    _EXACT (typenum itself, any byte order). Raises TypeError for a wrong
    dtype and ValueError for a wrong shape, naming `what`."""
    if _canonical(obj, typenum, d0, d1, flat_ok):
        return obj
    target = cnp.PyArray_DescrFromType(typenum)
    if isinstance(obj, np.ndarray):
        arr = obj
    elif kinds == _EXACT:
        raise TypeError(f"{what} must be a numpy array of dtype {target}, got "
                        f"{type(obj).__name__}")
    else:
        try:
            arr = np.asarray(obj)
        except Exception as e:  # ragged lists and the like
            raise TypeError(f"{what} must be an array of "
                            f"{'integers' if kinds == _INTEGER else 'floats'}: {e}") from None
    dt = arr.dtype
    if kinds == _EXACT:
        ok = dt.newbyteorder("=") == target
    elif kinds == _INTEGER:
        ok = dt.kind in "iu"  # bool too is refused: Gymnasium's Discrete rejects np.bool_
    else:
        ok = dt.kind in "fiub"  # bool: Gymnasium's continuous steps widen it to float64
    if not ok:
        raise TypeError(_dtype_message(what, kinds, target, dt))
    shape = arr.shape
    if not ((d1 < 0 and shape == (d0,)) or (d1 >= 0 and shape == (d0, d1))
            or (flat_ok and shape == (d0,))):
        expected = (int(d0),) if d1 < 0 else (int(d0), int(d1))
        raise ValueError(f"expected {what} of shape {expected}, got {shape}")
    if kinds == _INTEGER and dt.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"actions out of range: {arr.max()}")
    with np.errstate(over="ignore"):  # as numpy casts: out of range -> inf
        arr = np.array(arr, dtype=target, order="C", copy=True)
    if not _canonical(arr, typenum, d0, d1, flat_ok):  # a fresh copy always is
        raise SystemError(f"ccgym could not convert {what} to a C array")
    return arr


cdef str _dtype_message(str what, int kinds, target, dt):
    if kinds == _INTEGER:
        return f"discrete {what} must be integers, got an array of dtype {dt}"
    if kinds == _REAL:
        return f"continuous {what} must be real numbers, got an array of dtype {dt}"
    return f"{what} must be an array of dtype {target}, got {dt}"


def c_array(obj, dtype, Py_ssize_t d0=-1, Py_ssize_t d1=-1, str what="array",
            size_t align=0, bint output=False):
    """The one checked path (_c_input) for ccgym's other compiled modules
    (_render, _ceiling): obj as an array C may read as it is, of exactly
    `dtype` (any byte order, converted), aligned, C-contiguous, of shape
    (d0,) or (d0, d1) (d0 < 0: any length), else TypeError/ValueError.
    `align`: the byte alignment C reads it at, when more than the dtype's
    (a uint8 buffer C casts to struct pointers); a misaligned buffer is
    refused (ValueError), never copied behind the caller's back. `output`:
    C writes into it, so it must already be canonical and writeable
    (refused, never copied)."""
    cdef cnp.dtype target = np.dtype(dtype)
    cdef int typenum = target.type_num
    if d0 < 0:
        if not isinstance(obj, np.ndarray):
            raise TypeError(f"{what} must be a numpy array of dtype {target}, got "
                            f"{type(obj).__name__}")
        d0 = obj.shape[0] if obj.ndim >= 1 else 0
    if output:
        if not _canonical(obj, typenum, d0, d1, False) or not cnp.PyArray_ISWRITEABLE(obj):
            expected = (int(d0),) if d1 < 0 else (int(d0), int(d1))
            raise TypeError(f"{what} must be a writeable, aligned, C-contiguous numpy array "
                            f"of dtype {target} in native byte order and shape {expected}")
        arr = obj
    else:
        arr = _c_input(obj, typenum, d0, d1, False, _EXACT, what)
    if align > 1 and (<uintptr_t>cnp.PyArray_DATA(<cnp.ndarray>arr)) % align:
        raise ValueError(f"{what} is not aligned to {align} bytes (C reads it as structs); "
                         f"pass a copy, e.g. np.array({what}), or the Batch's own buffer")
    return arr


cdef str _dtype_source(object dt):
    """The rule table's source of a dtype (see _action_rules), or None."""
    cdef str k = dt.kind
    if k == "f":
        return "float16" if dt.itemsize == 2 else "float32" if dt.itemsize == 4 else \
            "float64" if dt.itemsize == 8 else None
    if k == "i" or k == "u":
        return "int"
    if k == "b":
        return "bool"
    return None


cdef int _leaf_sources(object obj, set out, int depth) except -1:
    """Adds the source of every leaf of a nested list or tuple to `out`
    ("python" for Python numbers, a dtype's source for numpy values, "?" for
    anything else)."""
    for x in obj:
        if type(x) is float or type(x) is int or type(x) is bool:
            out.add("python")
        elif isinstance(x, (np.ndarray, np.generic)):
            out.add(_dtype_source(x.dtype) or "?")
        elif depth < 2 and isinstance(x, (list, tuple)):
            _leaf_sources(x, out, depth + 1)
        else:
            out.add("?")
    return 0


cdef str _dtype_error(str what, object dt):
    if dt.kind == "f":
        return (f"continuous {what} of dtype {dt} are not supported: Gymnasium would compute "
                f"in it; pass float16, float32 or float64")
    return _dtype_message(what, _REAL, None, dt)


cdef int _action_type(object obj, dict types, str what) except -1:
    """The kernel's action type for continuous actions `obj` (an array, a list
    or tuple, ...) by the rule table's `types`; TypeError when none fits."""
    cdef set leaves
    if isinstance(obj, np.ndarray):
        dt = obj.dtype
    elif isinstance(obj, (list, tuple)):
        leaves = set()
        _leaf_sources(obj, leaves, 0)
        if "?" not in leaves and leaves:
            found = {types[x] for x in leaves}
            if len(found) == 1:
                return found.pop()
            raise TypeError(
                f"{what} mix values that Gymnasium computes in different types "
                f"({', '.join(sorted(leaves))}): pass one numpy array")
        try:
            dt = np.asarray(obj).dtype
        except Exception as e:  # ragged lists and the like
            raise TypeError(f"{what} must be an array of floats: {e}") from None
    else:
        try:
            dt = np.asarray(obj).dtype
        except Exception as e:
            raise TypeError(f"{what} must be an array of floats: {e}") from None
    source = _dtype_source(dt)
    if source is None:
        raise TypeError(_dtype_error(what, dt))
    return types[source]


# The hot path's helpers of _Outputs and Batch: module-level inline functions
# (a method declared in _core.pxd is not inlined).
cdef inline bint _unreferenced(_Outputs self) noexcept:
    """Nothing but this object refers to the memory: the block is held by
    it and its four views only (numpy's view bases end at the block or at
    one of the views), and each view only by it."""
    return (_REUSE_OUTPUTS and Py_REFCNT(<PyObject *>self.block) == 5
            and Py_REFCNT(<PyObject *>self.v_obs) == 1
            and Py_REFCNT(<PyObject *>self.v_reward) == 1
            and Py_REFCNT(<PyObject *>self.v_terminated) == 1
            and Py_REFCNT(<PyObject *>self.v_truncated) == 1)


cdef inline bint _intact(_Outputs self, object v, int k) noexcept:
    """Whether the cached view v is still as made (a caller may have
    reshaped it, changed its dtype or frozen it in place)."""
    cdef cnp.ndarray a = <cnp.ndarray>v
    return (cnp.PyArray_TYPE(a) == (cnp.NPY_FLOAT32 if k == 0 else
                                    cnp.NPY_FLOAT64 if k == 1 else cnp.NPY_BOOL)
            and cnp.PyArray_NDIM(a) == (2 if k == 0 else 1)
            and cnp.PyArray_DIM(a, 0) == self.n
            and (k != 0 or cnp.PyArray_DIM(a, 1) == self.obs_dim)
            and cnp.PyArray_ISWRITEABLE(a) and cnp.PyArray_IS_C_CONTIGUOUS(a)
            and cnp.PyArray_ISNOTSWAPPED(a))


cdef inline void _point_outputs(Batch self) noexcept:
    self._b.obs = self._cur.obs
    self._b.out_reward = self._cur.reward
    self._b.out_terminated = self._cur.terminated
    self._b.out_truncated = self._cur.truncated


cdef inline void _step_kernel(Batch self, const void *a, int action_type, int n_threads) noexcept:
    """ccgym_batch_step with the action type set for this step only."""
    self._b.action_type = action_type
    with nogil:
        ccgym_batch_step(self._def, &self._b, a, n_threads)
    self._b.action_type = CCGYM_ACTION_F32


cdef class _Outputs:
    """One set of step outputs (obs, reward, terminated, truncated) in one
    block, with the views of it that the core hands out. A set is reused only
    when nothing but this object refers to the block or its views."""

    def __cinit__(self, Py_ssize_t n, int obs_dim):
        self.n = n
        self.obs_dim = obs_dim
        self.o_reward = _round64(n * obs_dim * sizeof(float))
        self.o_terminated = self.o_reward + _round64(n * sizeof(double))
        self.o_truncated = self.o_terminated + _round64(n)
        self.nbytes = self.o_truncated + n
        self.block = _Block(self.nbytes)
        self.obs = <float *>self.block.data
        self.reward = <double *>(self.block.data + self.o_reward)
        self.terminated = <uint8_t *>(self.block.data + self.o_terminated)
        self.truncated = <uint8_t *>(self.block.data + self.o_truncated)
        self.v_obs = self._make(0)
        self.v_reward = self._make(1)
        self.v_terminated = self._make(2)
        self.v_truncated = self._make(3)

    cdef cnp.ndarray _make(self, int k):
        cdef cnp.npy_intp dims[2]
        dims[0] = self.n
        dims[1] = self.obs_dim
        if k == 0:
            return _view(self.block, 0, 2, dims, cnp.NPY_FLOAT32, True)
        if k == 1:
            return _view(self.block, self.o_reward, 1, dims, cnp.NPY_FLOAT64, True)
        return _view(self.block, self.o_terminated if k == 2 else self.o_truncated, 1, dims,
                     cnp.NPY_BOOL, True)

    cdef tuple handout(self):
        """(obs, reward, terminated, truncated) views, remade where a caller
        changed one in place."""
        if not _intact(self, self.v_obs, 0):
            self.v_obs = self._make(0)
        if not _intact(self, self.v_reward, 1):
            self.v_reward = self._make(1)
        if not _intact(self, self.v_terminated, 2):
            self.v_terminated = self._make(2)
        if not _intact(self, self.v_truncated, 3):
            self.v_truncated = self._make(3)
        return (self.v_obs, self.v_reward, self.v_terminated, self.v_truncated)

    cdef object obs_view(self):
        if not _intact(self, self.v_obs, 0):
            self.v_obs = self._make(0)
        return self.v_obs

    cdef object readonly(self, int k):
        cdef cnp.npy_intp dims[2]
        dims[0] = self.n
        dims[1] = self.obs_dim
        if k == 0:
            return _view(self.block, 0, 2, dims, cnp.NPY_FLOAT32, False)
        if k == 1:
            return _view(self.block, self.o_reward, 1, dims, cnp.NPY_FLOAT64, False)
        return _view(self.block, self.o_terminated if k == 2 else self.o_truncated, 1, dims,
                     cnp.NPY_BOOL, False)


cdef class Batch:
    """N instances of one classic-control env, stepped and reset by C.

    Memory: the core allocates everything C reads and writes and keeps it
    alive; every array attribute is a read-only view of it (a new view on
    each read: ``.resize`` raises, reshaping or re-flagging it changes only
    that view): ``obs`` (N, obs_dim) float32, ``reward`` (N,) float64,
    ``terminated`` and ``truncated`` (N,) bool (the last step's or reset's
    outputs), ``final_obs`` (N, obs_dim) float32 (SAME_STEP autoreset: the
    observation before the reset), ``final_return`` and ``final_length``
    (N,) (return and length of an episode that ended this step),
    ``episode_return`` (the running episode's return), ``episode_start``
    (the step count at each instance's last reset), ``pending_reset`` (done,
    not yet reset), ``state_buffer`` and ``rng_state``. ``elapsed`` (steps
    since reset, also ``episode_length``) is computed on each read.

    Inputs: every action, mask and snapshot array reaches C through one
    check (dtype and native byte order, alignment, C-contiguity, shape),
    converted as Gymnasium would accept it or refused with TypeError or
    ValueError.

    Outputs of ``step`` and ``reset``: with ``copy_outputs`` (default) the
    returned arrays are the caller's: never written again while anything
    refers to them (an output set nothing refers to any more is reused);
    without, they are the core's own views, overwritten by the next call.
    Either way the core never reads them back: what a caller writes into
    them cannot come back. Rewards and flags are kept in the core's own
    memory (``reward``, ``terminated``, ``truncated``) and copied out by the
    step; a last observation that a call reports again (the rows a masked
    reset leaves alone, ``get_state``) is rebuilt from the instance's state
    by the env table's observe (exact: bit for bit the step's or reset's;
    precision="fast": the exact observation of the fast state), or is a
    restored snapshot's. ``obs`` is the output array the last step or reset
    wrote (as handed out).

    Concurrency: one guard. Every call that reads or changes the batch holds
    it; a call from a second thread meanwhile raises RuntimeError. It is set
    and cleared in compiled code around a ``try``/``finally``, so no
    exception (KeyboardInterrupt, an asynchronous exception, an error in a
    layer's callback) can leave it held. :meth:`exclusive` runs a front end's
    compound operation under it, within which its thread may nest calls.

    Errors: ``invalid_action_error`` (an action of the right type but out of
    range or of the wrong shape; default ValueError) and
    ``invalid_action_type_error`` (an action of the wrong type or dtype;
    default TypeError) are the classes raised, so a front end can make them
    its framework's (ccgym's front ends set subclasses of Gymnasium's
    InvalidAction and AssertionError that keep ValueError / TypeError as
    bases). The core knows no front end: the single env's and the vector
    env's rules are subclasses in ccgym._front_core.

    ``precision`` (read-only): "exact" (bit-exact with Gymnasium) or "fast"
    (vectorised kernels within the bound documented in ccgym.vector).
    """

    def __cinit__(self, str kind, Py_ssize_t num_envs, dict params, int64_t max_episode_steps=0,
                  int autoreset_mode=CCGYM_AUTORESET_NEXT_STEP, int num_threads=1,
                  str precision="exact"):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        if autoreset_mode not in (CCGYM_AUTORESET_NEXT_STEP, CCGYM_AUTORESET_SAME_STEP,
                                  CCGYM_AUTORESET_DISABLED):
            raise ValueError(f"unknown autoreset mode {autoreset_mode}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be at least 1, got {num_threads}")
        self._def = _env_def(kind, precision)
        # Bounds check: buffer sizes are num_envs * (at most a few hundred
        # bytes); beyond 2**52 instances those products overflow Py_ssize_t
        # (UB) or size_t (a silently tiny buffer). No machine has that memory.
        if num_envs > 2 ** 52:
            raise MemoryError(f"num_envs={num_envs} is too large to allocate")
        self.kind = kind
        self.precision = precision
        self.num_envs = num_envs
        self.obs_dim = self._def.obs_dim
        self.action_dim = self._def.action_dim
        self.n_actions = self._def.n_actions
        self.num_threads = num_threads
        self.default_a = self._def.default_a
        self.default_b = self._def.default_b
        self.closed = False
        self.has_reset = False
        self._depth = 0
        self.invalid_action_error = ValueError
        self.invalid_action_type_error = TypeError
        self.copy_outputs = True
        rules = env_info(kind).action_rules
        self._action_types = rules.get("types")
        self._square_overflows = rules.get("square_overflows", False)

        self._init_params(params)
        cdef size_t n = num_envs
        cdef size_t sizes[_M_COUNT]
        sizes[_M_STATE] = n * self._def.state_size
        sizes[_M_RNG] = n * 32  # PCG64 (state_lo, state_hi, inc_lo, inc_hi) as uint64
        sizes[_M_START] = n * 8
        sizes[_M_PENDING] = n
        sizes[_M_RETURN] = n * 8
        sizes[_M_FINAL_OBS] = n * self.obs_dim * 4
        sizes[_M_FINAL_RETURN] = n * 8
        sizes[_M_FINAL_LENGTH] = n * 8
        sizes[_M_REWARD] = n * 8
        sizes[_M_TERMINATED] = n
        sizes[_M_TRUNCATED] = n
        sizes[_M_SAVED_OBS] = n * self.obs_dim * 4
        cdef int k
        self._off[0] = 0
        for k in range(_M_COUNT):
            self._off[k + 1] = self._off[k] + _round64(sizes[k])
        self._mem = _Block(self._off[_M_COUNT])
        self._cur = _Outputs(num_envs, self.obs_dim)
        self._spare = None
        cdef char *m = self._mem.data
        self._b.n = num_envs
        self._b.state = m + self._off[_M_STATE]
        self._b.rng = <ccgym_pcg64 *>(m + self._off[_M_RNG])
        self._b.episode_start = <int64_t *>(m + self._off[_M_START])
        self._b.t = 0
        self._b.start_bound = 0
        self._b.check_truncation = 0
        self._b.pending_reset = <uint8_t *>(m + self._off[_M_PENDING])
        self._b.episode_return = <double *>(m + self._off[_M_RETURN])
        self._b.max_episode_steps = max_episode_steps
        self._b.autoreset_mode = autoreset_mode
        self._b.final_obs = <float *>(m + self._off[_M_FINAL_OBS])
        self._b.final_return = <double *>(m + self._off[_M_FINAL_RETURN])
        self._b.final_length = <int64_t *>(m + self._off[_M_FINAL_LENGTH])
        self._b.reward = <double *>(m + self._off[_M_REWARD])
        self._b.terminated = <uint8_t *>(m + self._off[_M_TERMINATED])
        self._b.truncated = <uint8_t *>(m + self._off[_M_TRUNCATED])
        # Before any reset the last observations are zeros (a masked reset
        # before the first full one leaves zeros in the other rows).
        self._b.saved_obs = <float *>(m + self._off[_M_SAVED_OBS])
        _point_outputs(self)
        self.seed_entropy()

    cdef _init_params(self, dict p):
        fields = PARAM_FIELDS[self.kind]
        missing = [f for f in fields if f not in p]
        if missing:
            raise KeyError(f"missing {self.kind} parameters: {missing}")
        per_instance = any(np.ndim(p[f]) > 0 for f in fields)
        cdef Py_ssize_t count = self.num_envs if per_instance else 1
        columns = []
        for f in fields:
            col = np.asarray(p[f], dtype=np.float64)
            if col.ndim > 1 or (col.ndim == 1 and col.shape[0] != self.num_envs):
                raise ValueError(
                    f"parameter {f!r} must be a scalar or an array of length "
                    f"num_envs={self.num_envs}, got shape {col.shape}")
            columns.append(np.broadcast_to(col, (count,)))
        cdef double[:, ::1] v = np.ascontiguousarray(np.stack(columns, axis=1))
        # Core-owned like every buffer C reads (a _Block, not numpy memory
        # that .base.resize could move under C's pointer).
        cdef _Block block = _Block(count * self._def.params_size)
        cdef char *base = block.data
        cdef size_t size = self._def.params_size
        cdef Py_ssize_t i
        for i in range(count):
            self._def.params_init(base + i * size, &v[i, 0])
        self._params = block
        self._b.params = base
        self._b.params_stride = size if per_instance else 0

    def set_params(self, dict params):
        """Replaces the physical parameters (takes effect from the next step)."""
        self._enter(False)
        try:
            self._init_params(params)
        finally:
            self._depth -= 1

    # ------------------------------------------------------ array attributes
    cdef cnp.ndarray _mem_view(self, int which, bint writeable):
        cdef cnp.npy_intp dims[2]
        cdef int nd = 1
        cdef int typenum
        dims[0] = self.num_envs
        if which == _M_STATE:
            dims[0] = self.num_envs * self._def.state_size
            typenum = cnp.NPY_UINT8
        elif which == _M_RNG:
            nd = 2
            dims[1] = 4
            typenum = cnp.NPY_UINT64
        elif which == _M_PENDING or which == _M_TERMINATED or which == _M_TRUNCATED:
            typenum = cnp.NPY_BOOL
        elif which == _M_RETURN or which == _M_FINAL_RETURN or which == _M_REWARD:
            typenum = cnp.NPY_FLOAT64
        elif which == _M_FINAL_OBS or which == _M_SAVED_OBS:
            nd = 2
            dims[1] = self.obs_dim
            typenum = cnp.NPY_FLOAT32
        else:
            typenum = cnp.NPY_INT64
        return _view(self._mem, self._off[which], nd, dims, typenum, writeable)

    @property
    def params_buffer(self):
        """The C params structs as bytes (one struct shared by every instance,
        or one each): a new writeable view of the core's own memory on each
        read (its base is the core's block: it cannot be resized or freed
        from Python; set_params makes a new block, and views of the old one
        keep only it alive)."""
        cdef cnp.npy_intp dims[1]
        dims[0] = <cnp.npy_intp>self._params.nbytes
        return _view(self._params, 0, 1, dims, cnp.NPY_UINT8, True)

    @property
    def obs(self):
        """The output array of observations the last step or reset wrote, a
        read-only view (what a caller wrote into it shows; the core never
        reads it: see last_obs)."""
        return self._cur.readonly(0)

    @property
    def last_obs(self):
        """Each instance's last observation from the core's own memory (a
        new read-only array): what get_state and a masked reset report."""
        cdef cnp.npy_intp dims[2]
        dims[0] = self.num_envs
        dims[1] = self.obs_dim
        cdef _Block block = _Block(self.num_envs * self.obs_dim * sizeof(float))
        self._observe(<float *>block.data)
        return _view(block, 0, 2, dims, cnp.NPY_FLOAT32, False)

    cdef void _observe(self, float *out) noexcept:
        """Each instance's last observation (see last_obs) into out: the
        layers above call the C kernels only through the core."""
        ccgym_batch_observe(self._def, &self._b, out)

    @property
    def reward(self):
        """The last rewards (a read-only view of the core's own copy)."""
        return self._mem_view(_M_REWARD, False)

    @property
    def terminated(self):
        return self._mem_view(_M_TERMINATED, False)

    @property
    def truncated(self):
        return self._mem_view(_M_TRUNCATED, False)

    @property
    def final_obs(self):
        return self._mem_view(_M_FINAL_OBS, False)

    @property
    def final_return(self):
        return self._mem_view(_M_FINAL_RETURN, False)

    @property
    def final_length(self):
        return self._mem_view(_M_FINAL_LENGTH, False)

    @property
    def episode_return(self):
        return self._mem_view(_M_RETURN, False)

    @property
    def episode_start(self):
        return self._mem_view(_M_START, False)

    @property
    def pending_reset(self):
        return self._mem_view(_M_PENDING, False)

    @property
    def state_buffer(self):
        """The C state structs as bytes (read-only; see state_view)."""
        return self._mem_view(_M_STATE, False)

    @property
    def rng_state(self):
        """(N, 4) uint64: PCG64 state and increment as little-endian 128-bit
        integers (state_lo, state_hi, inc_lo, inc_hi); read-only."""
        return self._mem_view(_M_RNG, False)

    @property
    def elapsed(self):
        """Steps since each instance's last reset: a new int64 array, computed
        from episode_start and the batch's step count."""
        return np.int64(self._b.t) - self._mem_view(_M_START, False)

    @property
    def episode_length(self):
        """Length of each instance's current episode: its elapsed steps (a new array)."""
        return self.elapsed

    @property
    def max_episode_steps(self):
        return self._b.max_episode_steps

    @property
    def autoreset_mode(self):
        return self._b.autoreset_mode

    def state_view(self, fields):
        """A writeable structured view of the C state structs; `fields` is a
        numpy dtype that matches the env's C state struct (the live state:
        writing it sets the physics state)."""
        dt = np.dtype(fields)
        if dt.itemsize != self._def.state_size:
            raise ValueError("state dtype does not match the C struct size")
        return self._mem_view(_M_STATE, True).view(dt)

    # ------------------------------------------------------------- the guard
    # _enter (the claim) is in _core.pxd: inline here and in the layers above.

    @property
    def busy(self):
        """Whether a call holds the guard (in any thread)."""
        return self._depth > 0

    def exclusive(self, fn, *args):
        """fn(*args) under the guard: a front end's operation of several core
        calls (seeding then resetting, say) is one call for other threads."""
        self._enter(True)
        try:
            if self._depth == 1:
                self._owner = PyThread_get_thread_ident()
            return fn(*args)
        finally:
            self._depth -= 1

    def check_open(self):
        """Raises RuntimeError when closed, or when another thread holds the guard."""
        self._enter(False)
        self._depth -= 1

    # ---------------------------------------------------------------- seeding
    def seed_entropy(self, mask=None):
        """Seeds instances (all, or where mask is True) from OS entropy, as
        numpy's SeedSequence() does with no seed."""
        self._enter(False)
        try:
            self._seed_entropy(mask)
        finally:
            self._depth -= 1

    cdef _seed_entropy(self, mask):
        cdef cnp.ndarray words = np.frombuffer(os.urandom(16 * self.num_envs),
                                               dtype=np.uint32).reshape(self.num_envs, 4).copy()
        cdef const uint32_t *w = <const uint32_t *>cnp.PyArray_DATA(words)
        cdef uint8_t *m = NULL
        cdef cnp.ndarray marr
        if mask is not None:
            marr = self._mask(mask)
            m = <uint8_t *>cnp.PyArray_DATA(marr)
        cdef Py_ssize_t i
        with nogil:
            for i in range(self._b.n):
                if m == NULL or m[i]:
                    ccgym_pcg64_seed_words(&self._b.rng[i], w + 4 * i, 4)

    def seed_range(self, seed, mask=None):
        """Seeds instance i with seed + i (all, or where mask is True)."""
        self._enter(False)
        try:
            self._seed_range(seed, mask)
        finally:
            self._depth -= 1

    cdef _seed_range(self, seed, mask):
        cdef Py_ssize_t i
        cdef cnp.ndarray marr
        cdef const uint8_t *m
        seed = operator.index(seed)  # a Python int: np.uint64 sums would wrap
        if seed < 0:
            raise ValueError(f"Seed must be greater or equal to zero, actual value: {seed}")
        cdef uint64_t base
        m = NULL
        if mask is not None:
            marr = self._mask(mask)
            m = <const uint8_t *>cnp.PyArray_DATA(marr)
        if seed + self.num_envs <= 2 ** 64:  # every seed is one or two words
            base = seed
            with nogil:
                ccgym_pcg64_seed_range_mask(self._b.rng, base, self._b.n, m, self.num_threads)
            return
        if m == NULL:
            marr = np.ones(self.num_envs, np.bool_)
            m = <const uint8_t *>cnp.PyArray_DATA(marr)
        words = [int_seed_words(seed + i) if m[i] else None for i in range(self.num_envs)]
        for i in range(self.num_envs):  # all checked first: then C only
            if m[i]:
                self._seed_words(i, words[i])

    cdef int _check_index(self, Py_ssize_t i) except -1:
        if not 0 <= i < self.num_envs:
            raise IndexError(f"instance index {i} out of range for {self.num_envs} instances")
        return 0

    def seed_one(self, Py_ssize_t i, seed):
        """Seeds instance i with an integer seed (numpy SeedSequence semantics)."""
        self._check_index(i)
        self._enter(False)
        try:
            self._seed_words(i, int_seed_words(seed))
        finally:
            self._depth -= 1

    cdef void _seed_words(self, Py_ssize_t i, cnp.ndarray words) noexcept:
        ccgym_pcg64_seed_words(&self._b.rng[i], <const uint32_t *>cnp.PyArray_DATA(words),
                               cnp.PyArray_DIM(words, 0))

    def get_rng(self, Py_ssize_t i):
        """(state, inc) of instance i's PCG64 as Python ints, numpy's convention."""
        self._check_index(i)
        cdef const uint64_t *row = <const uint64_t *>(self._mem.data + self._off[_M_RNG]) + 4 * i
        return (int(row[0]) | (int(row[1]) << 64), int(row[2]) | (int(row[3]) << 64))

    def set_rng(self, Py_ssize_t i, state, inc):
        """Sets instance i's PCG64 state and increment (Python ints)."""
        self._check_index(i)
        mask = (1 << 64) - 1
        cdef uint64_t w0 = state & mask, w1 = (state >> 64) & mask
        cdef uint64_t w2 = inc & mask, w3 = (inc >> 64) & mask
        self._enter(True)
        try:
            row = <uint64_t *>(self._mem.data + self._off[_M_RNG]) + 4 * i
            row[0] = w0
            row[1] = w1
            row[2] = w2
            row[3] = w3
        finally:
            self._depth -= 1

    def rng_uniform(self, Py_ssize_t i, Py_ssize_t count):
        """Draws `count` next_double values from instance i (for tests)."""
        self._check_index(i)
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        out = np.empty(count, dtype=np.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t k
        self._enter(True)
        try:
            for k in range(count):
                o[k] = ccgym_pcg64_next_double(&self._b.rng[i])
        finally:
            self._depth -= 1
        return out

    # ------------------------------------------------------------ reset, step
    cdef cnp.ndarray _mask(self, mask):
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
            raise TypeError(f"reset_mask must be a numpy array of dtype bool, got {mask!r}")
        return _c_input(mask, cnp.NPY_BOOL, self.num_envs, -1, False, _EXACT, "reset_mask")

    cdef int _fresh_outputs(self) except -1:
        """With copy_outputs, before a step or a reset (which write every
        output row, reading none): the current set if nothing refers to it
        any more (still in cache), else the one handed out before if that is
        free, else a new one."""
        if not self.copy_outputs or _unreferenced(self._cur):
            return 0
        cdef _Outputs prev = self._cur
        if self._spare is not None and _unreferenced(self._spare):
            self._cur = self._spare
        else:
            self._cur = _Outputs(self.num_envs, self.obs_dim)
        self._spare = prev
        _point_outputs(self)
        return 0

    def reset(self, mask=None, a=None, b=None):
        """Resets all instances (or where mask is True) with reset bounds (a, b),
        the env's defaults when None; returns the observations (see the
        class docstring for who owns them)."""
        self._enter(False)
        try:
            self._reset(mask, a, b)
            return self._cur.obs_view()
        finally:
            self._depth -= 1

    cdef int _state_replaced(self) except -1:
        """Called when a reset or a restore has given the state new values:
        a layer above that keeps something of the old state drops it."""
        return 0

    cdef int _reset(self, mask, a, b) except -1:
        cdef double da = self._def.default_a if a is None else a
        cdef double db = self._def.default_b if b is None else b
        cdef cnp.ndarray marr
        cdef const uint8_t *m = NULL
        if mask is not None:
            marr = self._mask(mask)
            m = <const uint8_t *>cnp.PyArray_DATA(marr)
        self._fresh_outputs()  # never into handed-out arrays
        self._state_replaced()
        with nogil:
            ccgym_batch_reset(self._def, &self._b, m, da, db, self.num_threads)
        return 0

    cdef object _actions(self, actions, int *action_type):
        """The one check of a batch of actions: `actions` itself when C can
        read it as it is (the fast accept), else converted or refused. Sets
        *action_type to how the kernel computes them (_action_rules)."""
        cdef object arr
        action_type[0] = CCGYM_ACTION_F32
        if self.action_dim == 0:
            if _canonical(actions, cnp.NPY_INT64, self.num_envs, -1, False):
                arr = actions
            else:
                arr = self._converted_actions(actions, action_type)
            if not ccgym_discrete_in_range(<const int64_t *>cnp.PyArray_DATA(<cnp.ndarray>arr),
                                           self._b.n, self.n_actions):
                self._range_error(arr)
            return arr
        if _canonical(actions, cnp.NPY_FLOAT32, self.num_envs, self.action_dim,
                      self.action_dim == 1):
            return actions
        return self._converted_actions(actions, action_type)

    cdef object _converted_actions(self, actions, int *action_type):
        """The slow path of _actions (anything but the canonical array): the
        conversion's TypeError / ValueError become the front end's
        invalid_action_type_error / invalid_action_error, with the same
        message (OverflowError, Gymnasium's own on an overflowing reward,
        stays as it is)."""
        try:
            if self.action_dim == 0:
                return _c_input(actions, cnp.NPY_INT64, self.num_envs, -1, False, _INTEGER,
                                "actions")
            return self._typed_actions(actions, self.num_envs, self.action_dim,
                                       self.action_dim == 1, "actions", action_type)
        except TypeError as e:
            if type(e) is TypeError:
                raise self.invalid_action_type_error(str(e)) from None
            raise
        except ValueError as e:
            if type(e) is ValueError:
                raise self.invalid_action_error(str(e)) from None
            raise

    cdef object _typed_actions(self, obj, Py_ssize_t d0, Py_ssize_t d1, bint flat_ok,
                               str what, int *action_type):
        """Continuous actions that are not a canonical float32 array: as
        float32 (float32 sources) or float64 (the others), with the action
        type the rule table gives their source."""
        cdef int t = _action_type(obj, self._action_types, what)
        arr = _c_input(obj, cnp.NPY_FLOAT32 if t == CCGYM_ACTION_F32 else cnp.NPY_FLOAT64,
                       d0, d1, flat_ok, _REAL, what)
        if self._square_overflows and t != CCGYM_ACTION_F32:
            with np.errstate(over="ignore"):
                bad = np.isfinite(arr) & np.isinf(arr * arr)
            if bad.any():
                raise OverflowError(
                    f"math range error: {self.kind}'s reward is math.pow(action[0], 2), which "
                    f"overflows for the action {arr[bad][0]!r} (Gymnasium raises this "
                    f"OverflowError too)")
        action_type[0] = t
        return arr

    cdef int _range_error(self, cnp.ndarray arr) except -1:
        cdef const int64_t *a = <const int64_t *>cnp.PyArray_DATA(arr)
        cdef Py_ssize_t i
        for i in range(self.num_envs):
            if a[i] < 0 or a[i] >= self.n_actions:
                raise self.invalid_action_error(
                    f"action {a[i]} at index {i} is outside the action space "
                    f"Discrete({self.n_actions})")
        return 0

    def check_actions(self, actions):
        """A batch of actions as C reads it: a C-contiguous, aligned, native
        int64 (discrete), float32 or, for actions Gymnasium computes in
        another precision (see action_type), float64 array; raises
        TypeError or ValueError."""
        cdef int t
        return self._actions(actions, &t)

    cdef void _run_step(self, const void *a, int action_type, int n_threads) noexcept:
        """ccgym_batch_step with the action type set for this step only (for
        the layers above; the core's own step inlines it)."""
        _step_kernel(self, a, action_type, n_threads)

    cdef tuple _step(self, actions):
        cdef int t
        cdef object arr = self._actions(actions, &t)  # may run Python code: first
        cdef const void *a = cnp.PyArray_DATA(<cnp.ndarray>arr)
        self._fresh_outputs()
        _step_kernel(self, a, t, self.num_threads)
        return self._cur.handout()

    def step(self, actions):
        """Steps every instance with `actions` (checked); returns (obs,
        reward, terminated, truncated) (see the class docstring for who
        owns them)."""
        self._enter(False)
        try:
            return self._step(actions)
        finally:
            self._depth -= 1

    cdef bint _any_done(self):
        cdef Py_ssize_t i
        for i in range(self.num_envs):
            if self._b.terminated[i] | self._b.truncated[i]:
                return True
        return False

    def any_pending(self):
        """Whether an instance is done and not yet reset (DISABLED mode)."""
        return self._any_pending()

    cdef bint _any_pending(self):
        cdef const uint8_t *p = self._b.pending_reset
        cdef Py_ssize_t i
        for i in range(self.num_envs):
            if p[i]:
                return True
        return False

    # ---------------------------------------------------------------- snapshots
    # Everything that evolves (not the parameters): enough to clone a batch,
    # roll it forward and come back exactly.
    _STATE_ARRAYS = ("state_buffer", "rng_state", "elapsed", "pending_reset",
                     "episode_return", "obs", "reward", "terminated",
                     "truncated", "final_obs", "final_return", "final_length")

    def get_state(self):
        """A snapshot (dict of array copies) of every instance's physics state,
        RNG, elapsed steps, pending autoresets, episode statistics and last
        outputs. Allowed on a closed batch (reading is harmless), not while
        another thread changes it."""
        self._enter(True)
        try:
            snap = {"kind": self.kind, "num_envs": self.num_envs, "has_reset": self.has_reset}
            for name in Batch._STATE_ARRAYS:
                snap[name] = np.array(getattr(self, "last_obs" if name == "obs" else name))
            return snap
        finally:
            self._depth -= 1

    cdef _check_state_tags(self, cnp.ndarray buf):
        """ValueError for a snapshot's state buffer (checked uint8 bytes)
        holding, in an instance's tag field (the def's CCGYM_STATE_TAG
        fields), a value no step leaves there: a later state read could not
        give the state a type."""
        info = env_info(self.kind)
        if not info.state_tags:
            return
        fields = buf.view(info.state_dtype)
        for name, allowed in info.state_tags.items():
            bad = ~np.isin(fields[name], allowed)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"state['state_buffer']: instance {i}'s {self.kind} state field {name!r} "
                    f"holds {int(fields[name][i])}, not a type tag of it "
                    f"({', '.join(map(str, allowed))}); pass a snapshot from get_state()")

    cdef tuple _snapshot_spec(self, str name):
        """(typenum, d0, d1, where C keeps it) of a snapshot entry."""
        n = self.num_envs
        if name == "state_buffer":
            return cnp.NPY_UINT8, n * self._def.state_size, -1, _M_STATE
        if name == "rng_state":
            return cnp.NPY_UINT64, n, 4, _M_RNG
        if name == "elapsed":
            return cnp.NPY_INT64, n, -1, _M_START
        if name == "pending_reset":
            return cnp.NPY_BOOL, n, -1, _M_PENDING
        if name in ("episode_return", "final_return"):
            return cnp.NPY_FLOAT64, n, -1, (_M_RETURN if name == "episode_return"
                                           else _M_FINAL_RETURN)
        if name == "final_obs":
            return cnp.NPY_FLOAT32, n, self.obs_dim, _M_FINAL_OBS
        if name == "final_length":
            return cnp.NPY_INT64, n, -1, _M_FINAL_LENGTH
        if name == "obs":
            return cnp.NPY_FLOAT32, n, self.obs_dim, _M_SAVED_OBS
        if name == "reward":
            return cnp.NPY_FLOAT64, n, -1, _M_REWARD
        return cnp.NPY_BOOL, n, -1, (_M_TERMINATED if name == "terminated" else _M_TRUNCATED)

    def set_state(self, snap):
        """Restores a snapshot taken by get_state from a batch of the same kind
        and size. Every entry is checked before anything is written."""
        self._enter(False)
        try:
            self._set_state(snap)
        finally:
            self._depth -= 1

    cdef _set_state(self, snap):
        if not isinstance(snap, dict):
            raise TypeError(f"state must be a dict from get_state(), got {type(snap).__name__}")
        if snap.get("kind") != self.kind or snap.get("num_envs") != self.num_envs:
            raise ValueError(
                f"state is for {snap.get('kind')!r} x {snap.get('num_envs')!r}, this env is "
                f"{self.kind!r} x {self.num_envs}")
        checked = []
        cdef int typenum
        cdef Py_ssize_t d0, d1
        for name in Batch._STATE_ARRAYS:
            if name not in snap:
                raise ValueError(f"state is missing {name!r}")
            typenum, d0, d1, where = self._snapshot_spec(name)
            src = snap[name]
            try:
                arr = _c_input(src, typenum, d0, d1, False, _EXACT, f"state[{name!r}]")
            except (TypeError, ValueError):
                shape = (int(d0),) if d1 < 0 else (int(d0), int(d1))
                raise ValueError(
                    f"state[{name!r}] must be an array of dtype "
                    f"{cnp.PyArray_DescrFromType(typenum)} and shape {shape}, got "
                    f"{getattr(src, 'dtype', type(src))} {getattr(src, 'shape', '')}") from None
            checked.append((where, arr))
        has_reset = snap.get("has_reset", True)
        if not isinstance(has_reset, (bool, np.bool_)):
            raise ValueError(f"state['has_reset'] must be a bool, got {has_reset!r}")
        self._check_state_tags(checked[0][1])
        # From here on C only: the restore is whole or not at all.
        self._state_replaced()
        cdef int w
        cdef cnp.ndarray a
        cdef char *dst
        cdef size_t nbytes
        cdef Py_ssize_t i
        cdef const uint64_t *el
        for where, a in checked:
            w = where
            nbytes = cnp.PyArray_NBYTES(a)
            if w == _M_START:  # elapsed: any count (a garbage one wraps, as the C side does)
                el = <const uint64_t *>cnp.PyArray_DATA(a)
                for i in range(self.num_envs):
                    self._b.episode_start[i] = <int64_t>(<uint64_t>self._b.t - el[i])
                continue
            dst = self._mem.data + self._off[w]
            memcpy(dst, cnp.PyArray_DATA(a), nbytes)
        # The snapshot's observations are the last ones (whatever the state).
        self._b.saved_obs = <float *>(self._mem.data + self._off[_M_SAVED_OBS])
        # Episode starts went down: the next step looks for truncations (and
        # finds the new bound).
        self._b.start_bound = INT64_MIN
        self.has_reset = bool(has_reset)


cdef extern from "npy_sincosf.h" nogil:
    float ccgym_npy_sinf(float x)
    float ccgym_npy_cosf(float x)
    float ccgym_npy_sinf_nofma(float x)
    float ccgym_npy_cosf_nofma(float x)


def npy_sincosf(x, bint fma):
    """(sin(x), cos(x)) of a float32 array by ccgym's port of numpy's float32
    sin/cos: the FMA polynomial variant or the libm one."""
    cdef float[::1] xs = np.ascontiguousarray(x, dtype=np.float32)
    s = np.empty(xs.shape[0], dtype=np.float32)
    c = np.empty(xs.shape[0], dtype=np.float32)
    cdef float[::1] sv = s
    cdef float[::1] cv = c
    cdef Py_ssize_t i
    for i in range(xs.shape[0]):
        if fma:
            sv[i] = ccgym_npy_sinf(xs[i])
            cv[i] = ccgym_npy_cosf(xs[i])
        else:
            sv[i] = ccgym_npy_sinf_nofma(xs[i])
            cv[i] = ccgym_npy_cosf_nofma(xs[i])
    return s, c


# --------------------------------------------------- np_random: the C stream
# An env's np_random is a real numpy Generator over the env's own C PCG64
# (the ccgym_pcg64 the kernels draw from): a BitGenerator whose bitgen_t
# points into the batch's memory, so np_random.random() advances the very
# stream the next unseeded reset continues, as in Gymnasium. next64,
# next_double and next32 are numpy's PCG64 (next32 halves a 64-bit draw,
# buffering the high word as numpy's pcg64_next32 does).

from numpy.random cimport BitGenerator


cdef struct _stream_t:
    ccgym_pcg64 *rng
    int has_uint32
    uint32_t uinteger


cdef uint64_t _stream_next64(void *st) noexcept nogil:
    return ccgym_pcg64_next64((<_stream_t *>st).rng)


cdef uint32_t _stream_next32(void *st) noexcept nogil:
    cdef _stream_t *s = <_stream_t *>st
    cdef uint64_t v
    if s.has_uint32:
        s.has_uint32 = 0
        return s.uinteger
    v = ccgym_pcg64_next64(s.rng)
    s.has_uint32 = 1
    s.uinteger = <uint32_t>(v >> 32)
    return <uint32_t>(v & 0xFFFFFFFFu)


cdef double _stream_next_double(void *st) noexcept nogil:
    return ccgym_pcg64_next_double((<_stream_t *>st).rng)


cdef class _StreamGuard:
    """A StreamBitGenerator's ``lock``: numpy's Generator holds it around
    every draw (``with bit_generator.lock``, then the draw, often without the
    GIL). It is numpy's lock (draws from one bit generator, in any thread,
    take turns) and, while the stream is the batch's, the batch's guard too:
    a draw is one core call, so a step, reset, reseed or snapshot of the env
    in another thread meanwhile gets the guard's RuntimeError, as a draw
    during one does, instead of racing it on the stream. Inside
    ``Batch.exclusive()`` its thread may draw (nested, as any call). Once
    the bit generator is detached (its private copy) only the lock is taken."""

    cdef object _lock       # a threading.Lock: numpy's own serialisation
    cdef Batch _batch       # the batch whose stream is drawn from, None once detached
    cdef Batch _entered     # the batch whose guard __enter__ claimed, until __exit__

    def __cinit__(self, Batch batch=None):
        import threading

        self._lock = threading.Lock()
        self._batch = batch
        self._entered = None

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def acquire(self, blocking=True, timeout=-1):
        """The lock, then (while attached) the batch's guard; RuntimeError,
        with nothing held, when another thread's call holds the guard."""
        if not self._lock.acquire(blocking, timeout):
            return False
        cdef Batch b = self._batch
        if b is not None:
            try:
                b._enter(True)
            except BaseException:
                self._lock.release()
                raise
            self._entered = b
        return True

    def release(self):
        cdef Batch b = self._entered
        if b is not None:
            self._entered = None
            b._depth -= 1
        self._lock.release()

    def locked(self):
        return self._lock.locked()


def _pcg64_from_state(state):
    """A numpy PCG64 at `state` (what pickling a StreamBitGenerator gives)."""
    bg = np.random.PCG64()
    bg.state = state
    return bg


cdef class StreamBitGenerator(BitGenerator):
    """Instance `index` of `batch`'s PCG64 stream as a numpy BitGenerator.

    ``np.random.Generator(StreamBitGenerator(batch, i))`` draws exactly what
    ``np.random.Generator(np.random.PCG64())`` at the same state draws, and
    each draw advances the instance's C stream. ``state`` reads and writes
    it in PCG64's format. :meth:`detach` gives it a private copy of the
    stream (what an env does when it is reseeded, so that a Generator handed
    out before keeps its own stream, as Gymnasium's old Generator would).
    Pickling or copying gives a plain PCG64 at the current state."""

    cdef _stream_t _st
    cdef uint64_t _own[4]     # the private copy after detach()
    cdef object _batch
    cdef _StreamGuard _guard  # `lock`: numpy's lock and the batch's guard

    def __cinit__(self, *args, **kwargs):
        # Valid before (or without) __init__: a private all-zero stream.
        self._own[0] = self._own[1] = self._own[2] = self._own[3] = 0
        self._st.rng = <ccgym_pcg64 *>&self._own[0]
        self._st.has_uint32 = 0
        self._st.uinteger = 0
        self._bitgen.state = &self._st
        self._bitgen.next_uint64 = &_stream_next64
        self._bitgen.next_uint32 = &_stream_next32
        self._bitgen.next_double = &_stream_next_double
        self._bitgen.next_raw = &_stream_next64
        self._guard = _StreamGuard(None)  # no batch yet: numpy's lock only
        self.lock = self._guard

    def __init__(self, Batch batch, Py_ssize_t index, seed=0):
        batch._check_index(index)
        BitGenerator.__init__(self, seed)  # (which sets _bitgen.state to NULL)
        self._bitgen.state = &self._st
        self._batch = batch  # keeps the memory the stream lives in alive
        # Draws take the batch's guard (see _StreamGuard); a Generator made
        # over this bit generator takes `lock` at its construction.
        self._guard._batch = batch
        self.lock = self._guard
        self._st.rng = &batch._b.rng[index]
        self._st.has_uint32 = 0
        self._st.uinteger = 0

    @property
    def attached(self):
        """Whether draws advance the env's stream (False once detached)."""
        return self._batch is not None

    def detach(self):
        """Continues on a private copy of the stream from here on."""
        if self._batch is None:
            return
        with self.lock:
            memcpy(&self._own[0], self._st.rng, sizeof(self._own))
            self._st.rng = <ccgym_pcg64 *>&self._own[0]
            self._batch = None
            self._guard._batch = None  # draws no longer touch the batch

    @property
    def state(self):
        """numpy PCG64's state dict (bit_generator "PCG64"); read under
        `lock` (the batch's guard while attached), as a draw."""
        cdef const uint64_t *w
        cdef uint64_t w0, w1, w2, w3
        cdef int has
        cdef uint32_t word
        with self.lock:
            w = <const uint64_t *>self._st.rng
            w0, w1, w2, w3 = w[0], w[1], w[2], w[3]
            has, word = self._st.has_uint32, self._st.uinteger
        return {"bit_generator": "PCG64",
                "state": {"state": int(w0) | (int(w1) << 64),
                          "inc": int(w2) | (int(w3) << 64)},
                "has_uint32": has,
                "uinteger": word}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict):
            raise TypeError("state must be a dict")
        if value.get("bit_generator") != "PCG64":
            raise ValueError("state must be for a PCG64 PRNG")
        mask = (1 << 64) - 1
        st, inc = value["state"]["state"], value["state"]["inc"]
        cdef uint64_t w0 = st & mask, w1 = (st >> 64) & mask
        cdef uint64_t w2 = inc & mask, w3 = (inc >> 64) & mask
        cdef int has = value["has_uint32"]
        cdef uint32_t word = value["uinteger"]
        cdef uint64_t *w = <uint64_t *>self._st.rng
        with self.lock:
            w[0] = w0
            w[1] = w1
            w[2] = w2
            w[3] = w3
            self._st.has_uint32 = has
            self._st.uinteger = word

    def __reduce__(self):
        return _pcg64_from_state, (self.state,)
