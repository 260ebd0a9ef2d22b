"""How ccgym is installed here: a wheel, or an editable install (README,
Develop), which some tests cannot check."""

from __future__ import annotations

import importlib.metadata
import json
import site
import sysconfig
from pathlib import Path

import pytest


def editable_install() -> bool:
    """Whether the installed ccgym is an editable install (pip's
    direct_url.json says so: ``dir_info.editable``)."""
    try:
        text = importlib.metadata.distribution("ccgym").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return False
    if not text:
        return False
    return bool(json.loads(text).get("dir_info", {}).get("editable", False))


def hook_in_a_site_dir() -> bool:
    """Whether ``ccgym-autoregister.pth`` is in a directory that Python's
    ``site`` reads .pth files from at interpreter start."""
    dirs = set(site.getsitepackages()) | {site.getusersitepackages()}
    dirs |= {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    return any((Path(d) / "ccgym-autoregister.pth").is_file() for d in dirs)


EDITABLE_NO_HOOK = (
    "an editable install has no startup hook: scikit-build-core's editable wheel maps "
    "_ccgym_autoregister.py but leaves out ccgym-autoregister.pth, so no process runs it "
    "at start; a wheel install (pip install .) has it, and there these tests run")


def require_startup_hook() -> None:
    """Skips the calling test under an editable install without the hook;
    anywhere else (a wheel install) a missing hook fails the test itself."""
    if editable_install() and not hook_in_a_site_dir():
        pytest.skip(EDITABLE_NO_HOOK)
