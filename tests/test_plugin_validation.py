"""ccgym.register_c_env validates a plugin's def whole before anything is
registered (issue 45, item 3): its values and bounds, its names against the
env class's own members and the reserved keywords, the id's syntax and the
step limit's range, and a kind or class name no existing env or ccgym name
uses. A refused def or id leaves nothing registered.

The hostile defs are written in C with the public macros (CCGYM_FIELD,
CCGYM_ATTR, CCGYM_BOUNDED_ATTR, CCGYM_DEFINE_ENV), as a plugin's are
(examples/custom_env/src/pointmass.c): one small env in many variants, all
in one extension module built by one compiler call, each variant's def an
attribute ``env_def_<variant>``. The registrations run in a subprocess (a
def that got in would stay in the process's table, and one that took over a
stock id would change the other tests' envs)."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import ccgym

pytestmark = pytest.mark.skipif(shutil.which(sysconfig.get_config_var("CC").split()[0]
                                             if sysconfig.get_config_var("CC") else "gcc")
                                is None, reason="no C compiler")

# One variant of the toy env: a discrete (or with "cont", continuous) 2-D
# point whose params are a bounded attribute (kattr, default kdef in
# [klo, khi], a constructor keyword and per-instance physics) and a plain
# one (cattr, default cdef, flags cflags).
BASE = dict(kind=None, kattr="k", kdef="0.5", klo="0.0", khi="1.0", cattr="c", cdef="1.0",
            cflags="CCGYM_ATTR_NUMPY", defa="-0.1", defb="0.1", sym="0", opta="low",
            optb="high", fps="0", olo="-2.0f, -INFINITY", ohi="2.0f, INFINITY",
            alo="-1.0f", ahi="1.0f", cont=False)

# variant -> (its changes, the error class, a regex its message matches).
REFUSED = {
    "kdef_out": (dict(kdef="5.0"), ValueError, r"attribute 'k'.s default 5\.0 is not in its "
                                               r"bounds \[0\.0, 1\.0\]"),
    "kdef_nan": (dict(kdef="NAN"), ValueError, r"params field 'k' has the default NaN"),
    "kdef_inf": (dict(kdef="INFINITY", khi="INFINITY"), ValueError, r"default inf is not in"),
    "cdef_nan": (dict(cdef="NAN"), ValueError, r"params field 'c' has the default NaN"),
    "kbounds_swapped": (dict(klo="2.0", khi="1.0"), ValueError,
                        r"attribute 'k' has bounds lo=2\.0 > hi=1\.0"),
    "kbounds_nan": (dict(klo="NAN"), ValueError, r"attribute 'k' has bounds lo=nan"),
    "obs_swapped": (dict(olo="1.0f, 0.0f", ohi="0.0f, 1.0f"), ValueError,
                    r"obs_low\[0\]=1\.0, obs_high\[0\]=0\.0"),
    "obs_nan": (dict(ohi="2.0f, NAN"), ValueError, r"obs_low\[1\]=-inf, obs_high\[1\]=nan"),
    "obs_empty": (dict(olo="INFINITY, 0.0f", ohi="INFINITY, 1.0f"), ValueError,
                  r"obs_low\[0\]=inf"),
    "act_swapped": (dict(cont=True, alo="1.0f", ahi="-1.0f"), ValueError,
                    r"action_low\[0\]=1\.0, action_high\[0\]=-1\.0"),
    "act_nan": (dict(cont=True, alo="NAN"), ValueError, r"action_low\[0\]=nan"),
    "reset_swapped": (dict(defa="0.5", defb="-0.5"), ValueError,
                      r"default reset bounds low=0\.5, high=-0\.5 are not finite with low <= high"),
    "reset_nan": (dict(defa="NAN"), ValueError, r"default reset bounds low=nan"),
    "reset_inf": (dict(defb="INFINITY"), ValueError, r"default reset bounds .*inf"),
    "reset_symmetric_negative": (dict(sym="1", defa="-1.0", defb="1.0"), ValueError,
                                 r"default reset bounds low=-1\.0, high=1\.0 \(each >= 0\)"),
    "fps_negative": (dict(fps="-5"), ValueError, r"render_fps -5 is negative"),
    # Names: the env class's members (CEnv, its bases, what it stores on an env).
    "attr_step": (dict(kattr="step"), ValueError, r"attribute name 'step' is a member"),
    "attr_reset": (dict(cattr="reset"), ValueError, r"attribute name 'reset' is a member"),
    "attr_state": (dict(kattr="state"), ValueError, r"'state' is a member"),
    "attr_spec": (dict(cattr="spec"), ValueError, r"'spec' is a member"),
    "attr_action_space": (dict(cattr="action_space"), ValueError, r"'action_space' is a member"),
    "attr_dunder_class": (dict(cattr="__class__"), ValueError, r"'__class__' is a member"),
    "attr_np_random": (dict(cattr="np_random"), ValueError, r"'np_random' is a member"),
    "attr_unwrapped": (dict(cattr="unwrapped"), ValueError, r"'unwrapped' is a member"),
    "attr_render": (dict(cattr="render"), ValueError, r"'render' is a member"),
    "attr_close": (dict(cattr="close"), ValueError, r"'close' is a member"),
    "attr_kind": (dict(cattr="kind"), ValueError, r"'kind' is a member"),
    "attr_metadata": (dict(cattr="metadata"), ValueError, r"'metadata' is a member"),
    "attr_private_core": (dict(cattr="_core"), ValueError, r"'_core' is a member"),
    "attr_private_handed": (dict(cattr="_handed"), ValueError, r"'_handed' is a member"),
    "attr_duplicate": (dict(cattr="k"), ValueError,
                       r"attribute name 'k' is given to params fields 'k' and 'c'"),
    "attr_not_identifier": (dict(cattr="two words"), ValueError,
                            r"attribute name 'two words' is not a Python identifier"),
    "attr_python_keyword": (dict(cattr="lambda"), ValueError,
                            r"attribute name 'lambda' is not a Python identifier"),
    "keyword_of_vector_env": (dict(kattr="num_envs"), ValueError,
                              r"constructor keyword 'num_envs' is a keyword of"),
    "keyword_of_make": (dict(kattr="max_episode_steps"), ValueError,
                        r"constructor keyword 'max_episode_steps' is a keyword of"),
    "keyword_twice": (dict(kattr="_k", cattr="k",
                           cflags="CCGYM_ATTR_NUMPY | CCGYM_ATTR_KEYWORD"), ValueError,
                      r"attributes '_k' and 'k' give one constructor keyword 'k'"),
    "option_reset_mask": (dict(optb="reset_mask"), ValueError,
                          r"reset option 'reset_mask' is empty or reserved"),
    "option_empty": (dict(opta=""), ValueError, r"reset option '' is empty or reserved"),
    "options_same": (dict(optb="low"), ValueError, r"two reset options have one name 'low'"),
    # Kinds: another env's, or a class name ccgym already has.
    "kind_takes_stock_class": (dict(kind="Continuous_MountainCar"), ValueError,
                               r"kind 'Continuous_MountainCar' \(class "
                               r"'Continuous_MountainCarEnv'\) is taken"),
    "kind_C": (dict(kind="C"), ValueError, r"kind 'C' \(class 'CEnv'\) is taken"),
    "kind_core": (dict(kind="_Core"), ValueError, r"kind '_Core' \(class '_CoreEnv'\) is taken"),
    "kind_stock": (dict(kind="CartPole"), ValueError, r"env kind 'CartPole' is already in the "
                                                      r"table"),
}

# A refused id or registration argument (with the valid def "ok"):
# name -> (register_c_env keywords, regex).
REFUSED_IDS = {
    "id_newline": (dict(id="test/ValOk-v0\n"), r"id must be 'namespace/Name-vN'"),
    "id_no_version": (dict(id="test/ValOk"), r"id must be 'namespace/Name-vN'"),
    "id_no_namespace": (dict(id="ValOk-v0"), r"id must be 'namespace/Name-vN'"),
    "id_ccgym": (dict(id="ccgym/ValOk-v0"), r"namespace other than 'ccgym'"),
    "id_space": (dict(id="test/Val Ok-v0"), r"id must be 'namespace/Name-vN'"),
    "id_dot_namespace": (dict(id="te.st/ValOk-v0"), r"id must be 'namespace/Name-vN'"),
    "id_not_str": (dict(id=b"test/ValOk-v0"), r"id must be a str"),
    "steps_huge": (dict(id="test/ValOk-v0", max_episode_steps=2**70),
                   r"max_episode_steps must be None or an int in \[1, 2\*\*63 - 1\]"),
    "steps_zero": (dict(id="test/ValOk-v0", max_episode_steps=0), r"max_episode_steps"),
    "steps_float": (dict(id="test/ValOk-v0", max_episode_steps=10.0), r"max_episode_steps"),
    "threshold_nan": (dict(id="test/ValOk-v0", reward_threshold=math.nan),
                      r"reward_threshold must be None or a number"),
    "threshold_str": (dict(id="test/ValOk-v0", reward_threshold="90"), r"reward_threshold"),
}

BLOCK = """
typedef struct {P}_state {{ double x, v; }} {P}_state;
typedef struct {P}_params {{ double k, c; }} {P}_params;
static const ccgym_field {P}_state_fields[] = {{
    CCGYM_FIELD({P}_state, x, CCGYM_FIELD_F64, 1, 0, 0),
    CCGYM_FIELD({P}_state, v, CCGYM_FIELD_F64, 1, 0, 0),
}};
static const ccgym_field {P}_param_fields[] = {{
    CCGYM_BOUNDED_ATTR({P}_params, k, CCGYM_FIELD_F64, CCGYM_PARAM_INPUT | CCGYM_PARAM_PHYSICS,
                       {kdef}, "{kattr}", CCGYM_ATTR_NUMPY | CCGYM_ATTR_KEYWORD, {klo}, {khi}),
    CCGYM_ATTR({P}_params, c, CCGYM_FIELD_F64, CCGYM_PARAM_INPUT, {cdef}, "{cattr}", {cflags}),
}};
static void {P}_params_init_values(void *params, const double *v)
{{
    {P}_params *p = ({P}_params *)params;
    p->k = v[0];
    p->c = v[1];
}}
static const float {P}_obs_low[2] = {{{olo}}};
static const float {P}_obs_high[2] = {{{ohi}}};
static const float {P}_action_low[1] = {{{alo}}};
static const float {P}_action_high[1] = {{{ahi}}};
static inline void {P}_observe(const {P}_params *p, const {P}_state *s, int just_reset,
                               float *obs)
{{
    (void)p;
    (void)just_reset;
    obs[0] = (float)s->x;
    obs[1] = (float)s->v;
}}
static inline void {P}_push(const {P}_params *p, {P}_state *s, double force, float *obs,
                            double *reward, uint8_t *terminated)
{{
    s->v += 0.01 * p->k * force;
    s->x += s->v;
    *reward = 1.0;
    *terminated = (uint8_t)(s->x > 1.0 || s->x < -1.0);
    {P}_observe(p, s, 0, obs);
}}
{STEP}
static inline void {P}_reset(const {P}_params *p, {P}_state *s, ccgym_pcg64 *rng, double low,
                             double high, float *obs)
{{
    s->x = ccgym_pcg64_uniform(rng, low, high - low);
    s->v = 0.0;
    {P}_observe(p, s, 1, obs);
}}
{DEFINE}
"""

DISCRETE_STEP = """
CCGYM_INLINE void {P}_step(const {P}_params *p, {P}_state *s, ccgym_pcg64 *rng,
                           const int64_t *action, float *obs, double *reward,
                           uint8_t *terminated)
{{
    (void)rng;
    {P}_push(p, s, (double)(*action) - 0.5, obs, reward, terminated);
}}
"""

DISCRETE_DEFINE = """
CCGYM_DEFINE_ENV({P}, {P}_state, {P}_params, int64_t, 0, 2, 2, {defa}, {defb},
                 .name = "{kind}", .reset_option_a = "{opta}", .reset_option_b = "{optb}",
                 .reset_symmetric = {sym}, .render_fps = {fps},
                 .obs_low = {P}_obs_low, .obs_high = {P}_obs_high)
"""

CONTINUOUS_STEP = """
CCGYM_INLINE void {P}_step(const {P}_params *p, {P}_state *s, ccgym_pcg64 *rng,
                           const float *action, float *obs, double *reward,
                           uint8_t *terminated)
{{
    (void)rng;
    {P}_push(p, s, action[0], obs, reward, terminated);
}}
CCGYM_INLINE void {P}_step_typed(const {P}_params *p, {P}_state *s, const double *action,
                                 int action_type, float *obs, double *reward,
                                 uint8_t *terminated)
{{
    (void)action_type;
    {P}_push(p, s, action[0], obs, reward, terminated);
}}
CCGYM_DECLARE_TYPED_STEP({P});
"""

CONTINUOUS_DEFINE = """
CCGYM_DEFINE_ENV({P}, {P}_state, {P}_params, float, 1, 0, 2, {defa}, {defb},
                 .name = "{kind}", .reset_option_a = "{opta}", .reset_option_b = "{optb}",
                 .reset_symmetric = {sym}, .render_fps = {fps},
                 .obs_low = {P}_obs_low, .obs_high = {P}_obs_high,
                 .action_low = {P}_action_low, .action_high = {P}_action_high,
                 .typed_step_range = {P}_typed_step_range)
CCGYM_DEFINE_TYPED_STEP({P}, {P}_state, {P}_params, 1)
"""

MODULE = """
static struct PyModuleDef valdefs_module = {{PyModuleDef_HEAD_INIT, "valdefs",
    "ccgym env defs for tests/test_plugin_validation.py", -1, NULL, NULL, NULL, NULL, NULL}};
PyMODINIT_FUNC PyInit_valdefs(void)
{{
    PyObject *m = PyModule_Create(&valdefs_module);
    if (m == NULL)
        return NULL;
{ADD}
    return m;
}}
"""

ADD = """    if (PyModule_AddObject(m, "env_def_{name}",
                           PyCapsule_New((void *)&{P}_def, CCGYM_ENV_DEF_CAPSULE, NULL)) < 0)
        return NULL;
"""


def _variants() -> dict[str, dict]:
    out = {"ok": dict(BASE), "ok_continuous": dict(BASE, cont=True)}
    for name, (changes, _, _) in REFUSED.items():
        out[name] = dict(BASE, **changes)
    for k, (name, v) in enumerate(out.items()):
        v["P"] = f"val{k}"
        if v["kind"] is None:
            v["kind"] = "Val" + "".join(w.capitalize() for w in name.split("_"))
    return out


def _source(variants: dict[str, dict]) -> str:
    parts = ["#include <Python.h>\n#include <math.h>\n#include \"ccgym/ccgym.h\"\n"]
    adds = []
    for name, v in variants.items():
        step, define = ((CONTINUOUS_STEP, CONTINUOUS_DEFINE) if v["cont"]
                        else (DISCRETE_STEP, DISCRETE_DEFINE))
        parts.append(BLOCK.format(STEP=step.format(**v), DEFINE=define.format(**v), **v))
        adds.append(ADD.format(name=name, **v))
    parts.append(MODULE.format(ADD="".join(adds)))
    return "\n".join(parts)


# The registrations, in a fresh process: for each variant (and each id case)
# the outcome, and what the registries hold afterwards.
SCRIPT = r"""
import json, sys
import gymnasium as gym
sys.path.insert(0, sys.argv[1])
import valdefs
import ccgym
from ccgym import _core, _plugins, envs, vector

def snapshot():
    return dict(kinds=list(_core.ENV_KINDS), info=sorted(_core.ENV_INFO),
                ids=list(ccgym.ENV_IDS), specs=sorted(ccgym.ENV_SPECS),
                gym=sorted(k for k in gym.registry), envs=sorted(envs.__dict__),
                vector=sorted(vector.__dict__), classes=sorted(envs._PLUGIN_CLASSES),
                registered=[k for _, k in _plugins._REGISTERED])

def attempt(cap, **kw):
    before = snapshot()
    try:
        ccgym.register_c_env(cap, **kw)
        error = None
    except Exception as e:
        error = [type(e).__name__, str(e)]
    after = snapshot()
    left = {k: sorted(set(map(str, after[k])) ^ set(map(str, before[k])))
            for k in before if after[k] != before[k]}
    return dict(error=error, left=left)

cases = json.loads(sys.argv[2])
out = {}
for name, kind in cases["defs"].items():
    out[name] = attempt(getattr(valdefs, "env_def_" + name), id=f"test/{kind}-v0")
for name, kw in cases["ids"].items():
    if isinstance(kw["id"], list):
        kw["id"] = bytes(kw["id"])
    out[name] = attempt(valdefs.env_def_ok, **kw)
# A refused id did not spoil the def: it registers afterwards.
out["ok_after"] = attempt(valdefs.env_def_ok, id="test/ValOk-v0", max_episode_steps=50)
# Two ids whose vector class names would be one ("a_b/c-v0", "a/b_c-v0").
out["vector_name_first"] = attempt(valdefs.env_def_ok, id="te_st/ValOk-v0")
out["vector_name_clash"] = attempt(valdefs.env_def_ok, id="te/st_ValOk-v0")
# The registered def works, and a live env keeps nothing outside the names
# its attributes may not take. (Each case's outcome is recorded whatever
# happens here, so every test reports its own.)
try:
    env = gym.make("test/ValOk-v0", render_mode="rgb_array", k=0.25)
    env.reset(seed=0)
    env.step(1)
    env.unwrapped.get_state()
    env.unwrapped.np_random.random()
    env.unwrapped.k = 0.5
    env.unwrapped.state = env.unwrapped.state
    env.step(0)
    live = sorted(set(vars(env.unwrapped)) - _plugins.env_members()
                  - set(_core.env_info("ValOk").attributes))
    v = ccgym.make_vec("test/ValOk-v0", num_envs=2, k=[0.1, 0.2])
    v.reset(seed=0)
    out["live"] = dict(unknown=live, fps=env.metadata["render_fps"],
                       vector_obs=v.step([0, 1])[0].shape,
                       stock=[ccgym.envs.Continuous_MountainCarEnv.kind,
                              ccgym.make_vec("MountainCarContinuous-v0")._kind])
except Exception as e:
    out["live"] = dict(error=repr(e))
print("RESULT" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("valdefs")
    variants = _variants()
    (tmp / "valdefs.c").write_text(_source(variants))
    cc = (sysconfig.get_config_var("CC") or "gcc").split()[0]
    out = tmp / ("valdefs" + sysconfig.get_config_var("EXT_SUFFIX"))
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([cc, "-shared", "-fPIC", "-O0", "-ffp-contract=off", "-w",
                        f"-I{ccgym.get_include()}", f"-I{sysconfig.get_paths()['include']}",
                        str(tmp / "valdefs.c"), "-o", str(out)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-4000:]
    cases = {"defs": {n: v["kind"] for n, v in variants.items() if n in REFUSED},
             "ids": {n: {k: (list(v) if isinstance(v, bytes) else v) for k, v in kw.items()}
                     for n, (kw, _) in REFUSED_IDS.items()}}
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp), json.dumps(cases)],
                       capture_output=True, text=True, timeout=300)
    shutil.rmtree(tmp, ignore_errors=True)
    line = next((x for x in r.stdout.splitlines() if x.startswith("RESULT")), None)
    assert r.returncode == 0 and line is not None, r.stdout[-4000:] + r.stderr[-4000:]
    return json.loads(line[len("RESULT"):])


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_hostile_def_refused_and_nothing_registered(outcomes, name):
    _, error, pattern = REFUSED[name]
    got = outcomes[name]
    assert got["error"] is not None, f"{name}: registered ({got['left']})"
    assert got["error"][0] == error.__name__, got["error"]
    assert __import__("re").search(pattern, got["error"][1]), got["error"]
    assert got["left"] == {}, f"{name}: a refused def left {got['left']}"


@pytest.mark.parametrize("name", sorted(REFUSED_IDS))
def test_bad_id_or_limit_refused_and_nothing_registered(outcomes, name):
    _, pattern = REFUSED_IDS[name]
    got = outcomes[name]
    assert got["error"] is not None, f"{name}: registered ({got['left']})"
    assert got["error"][0] == "ValueError", got["error"]
    assert __import__("re").search(pattern, got["error"][1]), got["error"]
    assert got["left"] == {}, f"{name}: a refused id left {got['left']}"


def test_valid_def_registers_after_refusals(outcomes):
    """The valid variant registers (after every refusal above, with the same
    capsule), its env runs single and vector, render_fps 0 means 30, and a
    live env keeps no instance attribute outside env_members (so the
    member list, read from the class's source, is complete)."""
    assert outcomes["ok_after"]["error"] is None, outcomes["ok_after"]
    assert "test/ValOk-v0" in outcomes["ok_after"]["left"]["ids"]
    live = outcomes["live"]
    assert "error" not in live, live
    assert live["unknown"] == [], live
    assert live["fps"] == 30
    assert live["vector_obs"] == [2, 2]
    assert live["stock"] == ["MountainCarContinuous"] * 2


def test_vector_class_name_clash_refused(outcomes):
    assert outcomes["vector_name_first"]["error"] is None, outcomes["vector_name_first"]
    got = outcomes["vector_name_clash"]
    assert got["error"] is not None and "vector env class name 'te_st_ValOk_v0'" in \
        got["error"][1], got
    assert got["left"] == {}, got


def test_reserved_reset_options_are_the_front_ends():
    """RESERVED_RESET_OPTIONS are the keys parse_reset_options reads itself:
    a def's option of that name would never reach its reset bounds."""
    import numpy as np

    from ccgym import _frontend, _plugins

    for key in _plugins.RESERVED_RESET_OPTIONS:
        with pytest.raises(TypeError, match=key):
            _frontend.parse_reset_options("CartPole", {key: 1}, num_envs=2)
        mask, _, _ = _frontend.parse_reset_options(
            "CartPole", {key: np.array([True, False])}, num_envs=2)
        assert mask is not None


def test_stock_defs_pass_the_value_and_name_checks():
    """The stock defs' values and attribute names pass (only their kinds,
    being taken, would be refused)."""
    from ccgym import _core, _plugins

    members = _plugins.env_members()
    for kind in _core.ENV_KINDS:
        info = _core.env_info(kind)
        bad = lambda what: AssertionError(f"{kind}: {what}")  # noqa: E731
        _plugins._check_values(info, _core.def_spaces(kind), bad)
        for attr in list(info.attributes) + list(info.list_attributes):
            _plugins._check_attr_name(attr, members, bad)


def test_members_derived_from_the_class():
    """The member names come from the env class and Gymnasium's Env, not a
    hand list: every public name of gymnasium.Env and of CEnv is in."""
    import gymnasium as gym

    from ccgym import _plugins, envs

    members = _plugins.env_members()
    assert {n for n in dir(gym.Env)} <= members
    assert {n for n in dir(envs.CEnv)} <= members
    assert {"action_space", "observation_space", "kind", "state", "step"} <= members
    assert "k" not in members and "gravity" not in members


def test_source_is_public_macros_only():
    """The test's defs use the public header only (ccgym/ccgym.h)."""
    src = _source(_variants())
    includes = {line for line in src.splitlines() if line.startswith("#include")}
    assert includes == {"#include <Python.h>", "#include <math.h>",
                        '#include "ccgym/ccgym.h"'}
    assert textwrap.dedent(src).count("CCGYM_DEFINE_ENV(") == len(_variants())


def test_constructor_keywords_cover_every_front_end():
    """A def's keyword or physics field named as a front end's own parameter
    would be taken by that front end: the list holds every named parameter
    of the single env, ccgym's vector env and make_vec, Gymnasium's make and
    make_vec, and ccgym.sb3.VecEnv (checked against its signature when
    Stable-Baselines3 is installed)."""
    import inspect

    import gymnasium as gym

    from ccgym import _plugins, vector

    kw = _plugins.constructor_keywords()
    for fn in (vector.VectorEnv.__init__, gym.make, gym.make_vec):
        assert {p.name for p in inspect.signature(fn).parameters.values()
                if p.kind is not p.VAR_KEYWORD and p.name != "self"} <= kw
    assert {"num_envs", "num_threads", "max_episode_steps", "render_mode"} <= \
        _plugins._sb3_vec_env_keywords()
    pytest.importorskip("stable_baselines3")
    from ccgym import sb3

    assert {p.name for p in inspect.signature(sb3.VecEnv.__init__).parameters.values()
            if p.kind is not p.VAR_KEYWORD and p.name != "self"} <= kw

