/* ccgym's public C API: what a package needs to define its own env in C and
 * register it with an installed ccgym (docs/custom_env.md). Include this one
 * header; ccgym.get_include() is its directory's parent, and CMake's
 * find_package(ccgym) gives the target ccgym::headers. These five headers
 * are all ccgym installs.
 *
 *   ccgym/env.h     the env def (ccgym_env_def), its field tables
 *                   (ccgym_field; CCGYM_FIELD, CCGYM_ATTR, CCGYM_BOUNDED_ATTR,
 *                   CCGYM_SWITCH), the drawing primitives a def's paint
 *                   function gets (ccgym_draw, ccgym_rgb) and the version
 *                   CCGYM_API_VERSION / CCGYM_API_MINOR;
 *   ccgym/define_env.h  the batch struct and CCGYM_DEFINE_ENV (with
 *                   CCGYM_DEFINE_TYPED_STEP for a continuous env), which
 *                   builds a def and its driver loops from an env's inline
 *                   step, reset and observe;
 *   ccgym/rng.h     the RNG draws (ccgym_pcg64_next64, _next_double,
 *                   _uniform: numpy's PCG64 Generator's);
 *   ccgym/draw.h    pygame's geometry for a paint function
 *                   (ccgym_draw_rotate, ccgym_draw_rect);
 *   below           the registration entry point: the capsule name and
 *                   CCGYM_DEFINE_PLUGIN_MODULE.
 *
 * Everything a plugin calls is inline in these headers (or, for drawing, a
 * function pointer ccgym hands over), at any optimisation level: a plugin
 * links against nothing of ccgym's (tools/plugin_check.sh checks `nm -u` of
 * -O0 and -O2 builds), and the def is the whole contract. Nothing here
 * changes the includer's compiler settings.
 *
 * Version rule (ccgym/env.h): a def carries CCGYM_API_VERSION (major),
 * CCGYM_API_MINOR and its sizeof; ccgym takes a def of its own major version
 * and the same or an older minor (built against older headers: the members
 * added since take their defaults), and refuses another major or a newer
 * minor with ValueError asking for a rebuild against the running ccgym. */
#ifndef CCGYM_CCGYM_H_
#define CCGYM_CCGYM_H_

#include "ccgym/define_env.h"
#include "ccgym/draw.h"
#include "ccgym/env.h"
#include "ccgym/rng.h"

/* The name of the PyCapsule that carries a `const ccgym_env_def *` to
 * ccgym._core.register_c_def (ccgym.register_c_env). */
#define CCGYM_ENV_DEF_CAPSULE "ccgym.env_def"

/* Defines PyInit_MODNAME, an extension module whose attribute `env_def` is
 * the capsule of DEF (a ccgym_env_def): `ccgym.register_c_env(module, id=...)`
 * takes it. Include <Python.h> before this header to use it. */
#ifdef Py_PYTHON_H
#define CCGYM_DEFINE_PLUGIN_MODULE(MODNAME, DEF)                                        \
    static struct PyModuleDef MODNAME##_moduledef = {PyModuleDef_HEAD_INIT, #MODNAME,   \
                                                     "A ccgym env def (env_def).", -1,  \
                                                     NULL, NULL, NULL, NULL, NULL};     \
    PyMODINIT_FUNC PyInit_##MODNAME(void)                                               \
    {                                                                                   \
        PyObject *m = PyModule_Create(&MODNAME##_moduledef);                            \
        if (m == NULL)                                                                  \
            return NULL;                                                                \
        PyObject *cap = PyCapsule_New((void *)&(DEF), CCGYM_ENV_DEF_CAPSULE, NULL);     \
        if (cap == NULL || PyModule_AddObject(m, "env_def", cap) < 0) {                 \
            Py_XDECREF(cap);                                                            \
            Py_DECREF(m);                                                               \
            return NULL;                                                                \
        }                                                                               \
        if (PyModule_AddIntConstant(m, "api_version", CCGYM_API_VERSION) < 0 ||         \
            PyModule_AddIntConstant(m, "api_minor", CCGYM_API_MINOR) < 0) {             \
            Py_DECREF(m);                                                               \
            return NULL;                                                                \
        }                                                                               \
        return m;                                                                       \
    }
#endif

#endif /* CCGYM_CCGYM_H_ */
