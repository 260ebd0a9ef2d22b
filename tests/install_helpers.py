"""How ccgym is installed here: a wheel, or an editable install (README,
Develop), which some tests cannot check."""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import json
import site
import sysconfig
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlparse

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


def wheel_of_installed(root: Path, out: Path) -> Path | None:
    """A wheel of the installed ccgym, written to ``out`` from its installed
    files, when pip installed it (not editable) from the source tree
    ``root``: the files its RECORD lists under the site directory, pip's own
    install records (direct_url.json, INSTALLER, REQUESTED) and byte code
    left out, a fresh RECORD written. That is the wheel ``pip wheel root``
    builds (pip unpacked it), without the minutes of building it again. None
    when ccgym is not such an install, or lists a file outside the site
    directory other than the console scripts pip writes from
    entry_points.txt (the caller then builds the wheel)."""
    try:
        dist = importlib.metadata.distribution("ccgym")
    except importlib.metadata.PackageNotFoundError:
        return None
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    url = direct.get("url", "")
    if "dir_info" not in direct or direct["dir_info"].get("editable", False) \
            or not url.startswith("file://"):
        return None  # not pip's install of a source directory
    if Path(unquote(urlparse(url).path)).resolve() != root.resolve():
        return None
    wheel_meta = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel_meta.splitlines()
            if line.startswith("Tag:")]
    if len(tags) != 1 or dist.files is None:
        return None
    info_dir = f"ccgym-{dist.version}.dist-info"
    skip = {f"{info_dir}/{name}" for name in ("direct_url.json", "INSTALLER", "REQUESTED",
                                               "RECORD")}
    entries: list[tuple[str, Path]] = []
    for f in dist.files:
        name = str(f).replace("\\", "/")
        if name in skip or "__pycache__/" in name:
            continue
        if name.startswith("../"):
            if "/bin/" in name or name.startswith("../bin/"):
                continue  # a console script: pip writes it from entry_points.txt
            return None
        entries.append((name, Path(dist.locate_file(f))))
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"ccgym-{dist.version}-{tags[0]}.whl"
    record = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, path in entries:
            data = path.read_bytes()
            z.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{name},sha256={digest.decode()},{len(data)}")
        record.append(f"{info_dir}/RECORD,,")
        z.writestr(f"{info_dir}/RECORD", "\n".join(record) + "\n")
    return wheel
