"""Envs defined in C in other packages (docs/custom_env.md).

A plugin is an extension module built against ccgym's headers
(``ccgym.get_include()``, ``find_package(ccgym)``) whose attribute
``env_def`` is a PyCapsule named "ccgym.env_def" holding its
``const ccgym_env_def *`` (``CCGYM_DEFINE_PLUGIN_MODULE`` in ccgym/ccgym.h).
:func:`register_c_env` adds the def to the binding's table of defs
(``_core.register_c_def``: its shape checked there) and registers a
Gymnasium id for it, with ccgym's single-env class over the def and ccgym's
vector env.

The def's values and names are checked here, whole, before anything is
registered (:func:`_check_def`, run by register_c_def before the def enters
the core's table): a def or id refused leaves nothing behind, neither in the
core's table nor in ccgym.ENV_IDS, Gymnasium's registry, ccgym.envs or
ccgym.vector.
"""

from __future__ import annotations

import ast
import inspect
import keyword
import math
import re
import textwrap
import types
from typing import Any

import numpy as np

from ccgym import _attributes, _core, _registration, envs, vector

# capsule -> kind, for the capsules registered (one def may get several ids).
_REGISTERED: list[tuple[Any, str]] = []

# ccgym's own rule on top of Gymnasium's id syntax: a namespace and a version,
# the names starting as identifiers do (the vector class name is built from
# them). fullmatch: "$" would take a trailing newline.
_ID = re.compile(r"[A-Za-z_][\w.-]*/[A-Za-z_][\w.-]*-v\d+")

# The reset option keys the front ends read themselves
# (ccgym._frontend.parse_reset_options): a def's reset option may not be one.
RESERVED_RESET_OPTIONS = ("reset_mask",)

# The largest time limit: the core keeps it, and t - max_episode_steps, in int64.
MAX_EPISODE_STEPS = 2**63 - 1


def register_c_env(module_or_capsule: Any, *, id: str, max_episode_steps: int | None = None,
                   reward_threshold: float | None = None) -> type:
    """Registers the C env def of a plugin module (its ``env_def`` capsule)
    or of a capsule under the Gymnasium id ``id`` ("namespace/Name-vN", the
    namespace not "ccgym"), with a time limit of ``max_episode_steps``.
    Returns the single-env class (ccgym.envs.CEnv), which is also set on the
    module as ``<Kind>Env`` and is the id's entry point ("<module>:<Kind>Env"),
    so the id works wherever the module is importable. Afterwards the id
    works in gym.make, gym.make_vec, ccgym.make_vec, ccgym.sb3 and
    ``ccgym bench``.

    TypeError: not a module with ``env_def`` nor a capsule. ValueError: a
    capsule of another name, a def built for another CCGYM_API_VERSION
    (rebuild the plugin), a malformed def, a kind or id registered already
    by another def, a malformed id (Gymnasium's syntax, parse_env_id), a
    ``max_episode_steps`` outside [1, 2**63 - 1] or a NaN
    ``reward_threshold``; and a def whose values or names the layers cannot
    take (:func:`_check_def`): a default outside its attribute's bounds or
    NaN, NaN or crossed bounds on an attribute, the spaces or the default
    reset, a negative ``render_fps`` (0 is the default, 30), an attribute
    name that is not an identifier, repeated, or a member of the env class
    (``step``, ``state``, ``spec``, ...), a constructor keyword or physics
    field that ccgym's or Gymnasium's constructors take themselves, a reset
    option named ``reset_mask`` or both alike, a kind whose class name
    (``<Kind>Env``) an existing env or ccgym.envs already has. Whatever is
    refused leaves nothing registered."""
    import gymnasium as gym


    if isinstance(module_or_capsule, types.ModuleType):
        if not hasattr(module_or_capsule, "env_def"):
            raise TypeError(f"module {module_or_capsule.__name__!r} has no env_def capsule")
        module: types.ModuleType | None = module_or_capsule
        capsule = module_or_capsule.env_def
    else:
        module, capsule = None, module_or_capsule
    _check_id(id)
    _check_limits(max_episode_steps, reward_threshold)
    kind = next((k for c, k in _REGISTERED if c is capsule), None)
    spec = _registration.ENV_SPECS.get(id)
    if spec is not None:
        if kind is not None and tuple(spec[1:3]) == (max_episode_steps, reward_threshold):
            return envs._PLUGIN_CLASSES[kind]  # the same def again: its class
        raise ValueError(f"id {id!r} is registered already")
    if id in gym.registry:
        raise ValueError(f"id {id!r} is registered with Gymnasium already (not by ccgym)")
    vname = _registration.vector_class_name(id)
    if hasattr(vector, vname):
        raise ValueError(f"id {id!r}: its vector env class name {vname!r} is taken in "
                         "ccgym.vector (by another id or ccgym's own name)")
    module_name = module.__name__ if module is not None else None
    if kind is None:
        # The def's values and names, checked before it enters the table.
        kind = _core.register_c_def(
            capsule, check=lambda info, spaces: _check_def(info, spaces, module))
        _REGISTERED.append((capsule, kind))
    name = f"{kind}Env"
    cls = envs.c_env_class(kind, module_name, name)
    if module is not None:
        setattr(module, name, cls)
    envs.__dict__.setdefault(name, cls)
    vcls = vector._id_class(id)
    _registration.ENV_SPECS[id] = (name, max_episode_steps, reward_threshold,
                                   module_name or "ccgym.envs")
    try:
        setattr(vector, vcls.__name__, vcls)
        _registration.ENV_IDS = tuple(_registration.ENV_SPECS)
        gym.register(id=id, entry_point=f"{module_name or 'ccgym.envs'}:{name}",
                     vector_entry_point=f"ccgym.vector:{vcls.__name__}",
                     max_episode_steps=max_episode_steps, reward_threshold=reward_threshold)
    except BaseException:  # (checked above: not expected) the id is all or nothing
        del _registration.ENV_SPECS[id]
        _registration.ENV_IDS = tuple(_registration.ENV_SPECS)
        vector.__dict__.pop(vcls.__name__, None)
        gym.registry.pop(id, None)
        raise
    return cls


# ------------------------------------------------------------------ checks

def _check_id(env_id: Any) -> None:
    """ValueError unless env_id is a str that Gymnasium parses as
    "namespace/Name-vN" (gymnasium.envs.registration.parse_env_id, the
    syntax gym.register takes) with a namespace other than "ccgym", and
    whose vector class name is an identifier."""
    import gymnasium as gym
    from gymnasium.envs.registration import parse_env_id

    if not isinstance(env_id, str):
        raise ValueError(f"id must be a str 'namespace/Name-vN', got {env_id!r}")
    try:
        ns, _, version = parse_env_id(env_id)
    except gym.error.Error:
        ns = version = None
    if (ns is None or version is None or ns == "ccgym" or not _ID.fullmatch(env_id)
            or not _registration.vector_class_name(env_id).isidentifier()):
        raise ValueError(f"id must be 'namespace/Name-vN' (Gymnasium's id syntax, letters, "
                         f"digits, '_' and '-', each part starting as an identifier) with a "
                         f"namespace other than 'ccgym', got {env_id!r}")


def _check_limits(max_episode_steps: Any, reward_threshold: Any) -> None:
    if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int)
            or not 1 <= max_episode_steps <= MAX_EPISODE_STEPS):
        raise ValueError(f"max_episode_steps must be None or an int in [1, 2**63 - 1], "
                         f"got {max_episode_steps!r}")
    if reward_threshold is not None and (
            isinstance(reward_threshold, bool)
            or not isinstance(reward_threshold, (int, float, np.integer, np.floating))
            or math.isnan(reward_threshold)):
        raise ValueError(f"reward_threshold must be None or a number (not NaN), "
                         f"got {reward_threshold!r}")


def _check_def(info: Any, spaces: tuple[Any, ...], module: types.ModuleType | None) -> None:
    """ValueError for a def (its _core.EnvInfo and def_spaces) whose values
    or names ccgym's layers cannot take: run by register_c_def before the
    def enters the table. A def's mistakes otherwise surface far from it
    (at a make, a reset, a step) or leave a half-made registration."""
    kind = info.kind
    bad = lambda what: ValueError(f"env def {kind!r}: {what}")  # noqa: E731
    _check_names(info, module, bad)
    _check_values(info, spaces, bad)


def _check_names(info: Any, module: types.ModuleType | None, bad: Any) -> None:
    kind = info.kind
    taken = _taken_class_names()
    name = f"{kind}Env"
    if kind in taken["kinds"] or name in taken["classes"]:
        raise bad(f"kind {kind!r} (class {name!r}) is taken: an existing env or ccgym's own "
                  f"name in ccgym.envs ({', '.join(sorted(taken['kinds']))}, ...) uses it")
    if module is not None and getattr(module, name, None) not in (None,) + tuple(
            envs._PLUGIN_CLASSES.values()):
        raise bad(f"module {module.__name__!r} has an attribute {name!r} already")
    members = env_members()
    plain: set[str] = set()
    for attr in info.attributes:
        _check_attr_name(attr, members, bad)
        plain.add(attr)
    for attr in info.list_attributes:
        _check_attr_name(attr, members, bad)
        if attr in plain:
            raise bad(f"attribute {attr!r} is both a list attribute and a plain one")
    keywords: dict[str, str] = {}
    own_kw = constructor_keywords()
    for attr in info.attributes:
        if not info.attr_class[attr] & _core.ATTR_CLASSES["keyword"]:
            continue
        key = attr.lstrip("_")
        if not key.isidentifier() or keyword.iskeyword(key):
            raise bad(f"attribute {attr!r}: its constructor keyword {key!r} is not an "
                      "identifier")
        if key in own_kw:
            raise bad(f"attribute {attr!r}: its constructor keyword {key!r} is a keyword of "
                      "ccgym's or Gymnasium's constructors")
        if key in keywords:
            raise bad(f"attributes {keywords[key]!r} and {attr!r} give one constructor "
                      f"keyword {key!r}")
        keywords[key] = attr
    for field in info.physics_fields:
        if field in own_kw or field in keywords and info.attributes.get(keywords[field]) != field:
            raise bad(f"physics field {field!r} (a vector env keyword) is a keyword of "
                      "ccgym's or Gymnasium's constructors, or another attribute's keyword")
    a, b = info.reset_options
    for opt in (a, b):
        if not opt or opt in RESERVED_RESET_OPTIONS:
            raise bad(f"reset option {opt!r} is empty or reserved "
                      f"({', '.join(RESERVED_RESET_OPTIONS)} are the front ends')")
    if a == b:
        raise bad(f"its two reset options have one name {a!r}")


def _check_attr_name(attr: str, members: frozenset[str], bad: Any) -> None:
    if not attr.isidentifier() or keyword.iskeyword(attr):
        raise bad(f"attribute name {attr!r} is not a Python identifier")
    if attr in members or (attr.startswith("__") and attr.endswith("__")):
        raise bad(f"attribute name {attr!r} is a member of the env class "
                  "(ccgym.envs.CEnv, gymnasium.Env)")


def _check_values(info: Any, spaces: tuple[Any, ...], bad: Any) -> None:
    bounds_of = {info.attributes[a]: (a, lo, hi) for a, (lo, hi) in info.attr_bounds.items()}
    for attr, (lo, hi) in info.attr_bounds.items():
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise bad(f"attribute {attr!r} has bounds lo={lo!r} > hi={hi!r} or NaN")
    for field, value in info.param_defaults.items():
        if field in info.bool_fields:
            continue  # (read as a truth value)
        if math.isnan(value):
            raise bad(f"params field {field!r} has the default NaN")
        if field in bounds_of:
            attr, lo, hi = bounds_of[field]
            if not (math.isfinite(value) and lo <= value <= hi):
                raise bad(f"attribute {attr!r}'s default {value!r} is not in its bounds "
                          f"[{lo!r}, {hi!r}]")
    a, b = info.default_reset
    oa, ob = info.reset_options
    if info.reset_symmetric:
        spans = (a - -a, b - -b)
    else:
        spans = (b - a,)
    if not all(math.isfinite(s) and math.copysign(1.0, s) > 0 for s in spans):
        what = f"{oa}={a!r}, {ob}={b!r}" + (" (each >= 0)" if info.reset_symmetric else "")
        raise bad(f"default reset bounds {what} are not finite with "
                  f"{'low <= high' if not info.reset_symmetric else 'a uniform range'}")
    obs_low, obs_high, act_low, act_high, fps = spaces
    _check_box(bad, "obs", obs_low, obs_high)
    if act_low is not None:
        _check_box(bad, "action", act_low, act_high)
    if fps < 0:
        raise bad(f"render_fps {fps} is negative (0: the default, 30)")


def _check_box(bad: Any, what: str, low: np.ndarray, high: np.ndarray) -> None:
    for k, (lo, hi) in enumerate(zip(low.tolist(), high.tolist())):
        if math.isnan(lo) or math.isnan(hi) or lo > hi or lo == math.inf or hi == -math.inf:
            raise bad(f"{what}_low[{k}]={lo!r}, {what}_high[{k}]={hi!r}: not a Box's "
                      "bounds (no NaN, low <= high, low < inf, high > -inf)")


# ------------------------------------------------------------- taken names

def _taken_class_names() -> dict[str, set[str]]:
    """The kinds in the core's table and the names a kind's class must not
    take: every registered id's class (stock, lazily loaded, and plugins')
    and every name ccgym.envs has (CEnv, _CoreEnv, its imports, ...)."""
    classes = set(vars(envs)) | set(dir(envs)) | set(envs.__all__)
    classes |= {spec[0] for spec in _registration.ENV_SPECS.values()}
    classes |= {f"{k}Env" for k in _core.ENV_KINDS}
    return {"kinds": set(_core.ENV_KINDS), "classes": classes}


_MEMBERS: frozenset[str] | None = None


def env_members() -> frozenset[str]:
    """The names a plugin's attribute must not take: what its class
    (ccgym.envs.CEnv's subclass, ccgym.envs.c_env_class) and its bases
    (gymnasium.Env, ...) define or declare, and what their methods and
    ccgym._attributes store on an env instance (``self.<name> = ...``,
    ``<env>.__dict__["<name>"]``), read from their source."""
    global _MEMBERS
    if _MEMBERS is None:
        names: set[str] = set(dir(envs.CEnv)) | set(envs._class_dict("K", None, "KEnv"))
        sources = [_attributes]
        for cls in envs.CEnv.__mro__:
            names |= set(vars(cls)) | set(getattr(cls, "__annotations__", {}))
            if cls is not object:
                sources.append(cls)
        for src in sources:
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(src)))
            except (OSError, TypeError):
                continue
            if src is _attributes:  # its functions that take an env (not its classes' self)
                for node in tree.body:
                    if isinstance(node, ast.FunctionDef):
                        names |= _stored_names(node)
            else:
                names |= _stored_names(tree)
        _MEMBERS = frozenset(names)
    return _MEMBERS


def _stored_names(tree: ast.AST) -> set[str]:
    """The names an env keeps in `tree`: attribute targets of ``self``/``env``,
    constant keys of ``self.__dict__`` / ``env.__dict__`` (or a name bound
    to it) in a subscript, ``in`` or ``.get``/``.setdefault``/``.pop``, and
    constant names in ``setattr``/``getattr``/``hasattr`` on
    ``self``/``env``/``cls``."""
    is_env = lambda n: isinstance(n, ast.Name) and n.id in ("self", "env")  # noqa: E731
    env_dict = lambda n: (isinstance(n, ast.Attribute) and n.attr == "__dict__"  # noqa: E731
                          and is_env(n.value))
    aliases = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and env_dict(node.value) for t in node.targets if isinstance(t, ast.Name)}
    is_dict = lambda n: env_dict(n) or isinstance(n, ast.Name) and n.id in aliases  # noqa: E731
    text = lambda n: n.value if isinstance(n, ast.Constant) and isinstance(  # noqa: E731
        n.value, str) else None
    out: set[str] = set()
    for node in ast.walk(tree):
        found = None
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and is_env(node.value):
            found = node.attr
        elif isinstance(node, ast.Subscript) and is_dict(node.value):
            found = text(node.slice)
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                and is_dict(node.comparators[0]):
            found = text(node.left)
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in ("get", "setdefault", "pop") \
                    and is_dict(f.value):
                found = text(node.args[0])
            elif isinstance(f, ast.Name) and f.id in ("setattr", "getattr", "hasattr") \
                    and len(node.args) >= 2 and (is_env(node.args[0]) or isinstance(
                        node.args[0], ast.Name) and node.args[0].id == "cls"):
                found = text(node.args[1])
        if found:
            out.add(found)
    return out


def constructor_keywords() -> frozenset[str]:
    """The keywords of the constructors a def's keywords and physics fields
    pass through: the single env's, ccgym's vector env's and ccgym.make_vec,
    gym.make's and gym.make_vec's own parameters."""
    import gymnasium as gym


    names: set[str] = set()
    for fn in (envs.CEnv.__init__, vector.VectorEnv.__init__, vector.make_vec, gym.make,
               gym.make_vec):
        names |= {p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    names |= _sb3_vec_env_keywords()
    names.discard("self")
    return frozenset(names)


def _sb3_vec_env_keywords() -> set[str]:
    """ccgym.sb3.VecEnv.__init__'s named parameters, read from its source:
    importing ccgym.sb3 would import Stable-Baselines3 and torch."""
    import importlib.util

    spec = importlib.util.find_spec("ccgym.sb3")
    if spec is None or spec.origin is None:
        return set()
    with open(spec.origin, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "VecEnv":
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "__init__":
                    a = fn.args
                    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    return set()
