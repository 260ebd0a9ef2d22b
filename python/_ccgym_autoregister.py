"""Register ccgym's ids in every Python process that imports gymnasium.

Run at interpreter start by ``ccgym-autoregister.pth`` (installed beside it in
site-packages). Gymnasium 1.x has no plugin loading, so without this
``import ccgym`` registers ``ccgym/<Id>`` in the calling process only, and a
worker process started by spawn or forkserver (RLlib env runners, SB3's
SubprocVecEnv, Gymnasium's AsyncVectorEnv, TorchRL's ParallelEnv) fails with
``NamespaceNotFound: Namespace ccgym not found``.

At start-up this module only puts a finder on ``sys.meta_path``: it imports
nothing (not gymnasium, not numpy, not ccgym). When the process first imports
``gymnasium``, the finder lets the normal import run, then executes
``ccgym/_registration.py`` (pure Python, string entry points) without
importing the ``ccgym`` package, and removes itself. Set
``CCGYM_NO_AUTOREGISTER=1`` to turn it off.
"""

import sys


def _register_ids():
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec("ccgym")
        if spec is None or not spec.submodule_search_locations:
            return  # ccgym uninstalled but this file left behind
        for location in spec.submodule_search_locations:
            path = os.path.join(location, "_registration.py")
            if os.path.isfile(path):
                break
        else:
            return
        reg_spec = importlib.util.spec_from_file_location("_ccgym_registration", path)
        module = importlib.util.module_from_spec(reg_spec)
        reg_spec.loader.exec_module(module)
        module.register()
    except Exception as exc:  # never break `import gymnasium`
        import warnings

        warnings.warn(
            f"ccgym could not register its ids at gymnasium import ({exc!r}); "
            "`import ccgym` or gym.make('ccgym:ccgym/<Id>') still do",
            RuntimeWarning,
            stacklevel=2,
        )


class _GymnasiumImportHook:
    """A sys.meta_path finder that fires once, after ``gymnasium`` is imported."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "gymnasium":
            return None
        # Not uninstalled here: importlib.util.find_spec("gymnasium") (an
        # optional-dependency probe, as TorchRL does) asks without importing.
        # Each call wraps the fresh loader of the spec it returns; the hook
        # goes away once gymnasium has actually been executed.
        for finder in sys.meta_path:
            if finder is cls:
                continue
            find_spec = getattr(finder, "find_spec", None)
            spec = find_spec(name, path, target) if find_spec is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_register(module):
            if module.__name__ != name:  # a loader shared with other modules (zipimport)
                return exec_module(module)
            try:
                exec_module(module)
            finally:
                # The loader is this module's own object; put it back as it was.
                try:
                    del loader.exec_module
                except AttributeError:
                    pass
            _uninstall()
            _register_ids()

        loader.exec_module = exec_then_register
        return spec


def _uninstall():
    try:
        sys.meta_path.remove(_GymnasiumImportHook)
    except ValueError:
        pass


def install():
    """Called by the .pth file at interpreter start."""
    import os

    if os.environ.get("CCGYM_NO_AUTOREGISTER"):
        return
    if "gymnasium" in sys.modules:  # imported before site ran this (rare)
        _register_ids()
        return
    if _GymnasiumImportHook not in sys.meta_path:
        sys.meta_path.insert(0, _GymnasiumImportHook)
