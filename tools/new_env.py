#!/usr/bin/env python3
"""Scaffold a new env from an existing one: ``python tools/new_env.py NAME --from KIND``.

Run at the repository root. It copies the source env's folder under the new
name and registers it, and touches nothing else:

- creates one folder, ``python/ccgym/envs/<name>/``, with the source env's
  files (``python/ccgym/envs/<kind>/``) renamed: ``<name>.h`` (its step
  header, private: ccgym installs only the public ``include/ccgym``) and
  ``<name>.c`` (its def), their identifiers, header guard and def name
  renamed; ``<name>_lanes.c`` where the source has an exact lanes block; and
  ``__init__.py`` (the source's Python module, its class renamed
  ``<NAME>Env`` and its kind ``NAME``: a class of its own, not a subclass of
  the source's, so later changes to either stay in its env);
- edits two files, adding one registry line to each: ``src/envs.def`` (the
  def, in the C registry's list) and ``python/ccgym/_registration.py`` (each
  id of the source env under the new name, with its step limit and
  threshold: one line per id).

CMake compiles every C file of ``src/`` and of each env folder, and every shared layer
reads the new env from its def, so a build after this gives the new ids
(``ccgym/<NAME>-v1`` ...) everywhere the source's work: single, vector, SB3,
rendering, snapshots, attributes, bench. The new env steps like its source
until you change its physics in ``<name>.c`` (and its header's step
body, which the block file runs too, exact and fast). Symbols the source
uses but does not own (declared in a shared header) are kept; the def's
``gym_class`` (the
Gymnasium class the env mirrors, the reference of the parity tests) is kept
as well, and the copied paint function draws the source's scene: change them
with the physics.

Example: ``python tools/new_env.py PendulumCopy --from pendulum`` gives
``ccgym/PendulumCopy-v1``, which steps like ``ccgym/Pendulum-v1``.
``--dry-run`` prints what it would write.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path.cwd()
ENVS = ROOT / "python" / "ccgym" / "envs"  # one folder per env


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def shared_symbols(source_files: set[pathlib.Path]) -> set[str]:
    """Identifiers declared in the shared headers (every header in include/,
    src/include/, src/ or another env's folder, but the source env's own):
    the shared code's, not the env's."""
    words: set[str] = set()
    for path in [*ROOT.glob("include/ccgym/*.h"), *ROOT.glob("src/include/ccgym/*.h"),
                 *ROOT.glob("src/*.h"), *ENVS.glob("*/*.h")]:
        if path.resolve() in source_files:
            continue
        words.update(re.findall(r"\bccgym_\w+", path.read_text()))
    return words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="the new env's kind, CamelCase (e.g. PendulumCopy)")
    parser.add_argument("--from", dest="source", required=True,
                        help="the env to copy, by its file name (e.g. pendulum, cartpole)")
    parser.add_argument("--dry-run", action="store_true", help="print, write nothing")
    args = parser.parse_args(argv)

    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*", args.name):
        parser.error(f"NAME must be CamelCase letters and digits, got {args.name!r}")
    new = snake(args.name)
    old = args.source
    src_dir, new_dir = ENVS / old, ENVS / new
    src_c, src_h = src_dir / f"{old}.c", src_dir / f"{old}.h"
    registry_c, registry_py = ROOT / "src" / "envs.def", ROOT / "python/ccgym/_registration.py"
    for path in (src_c, src_h, registry_c, registry_py):
        if not path.is_file():
            parser.error(f"{path.relative_to(ROOT)} not found (run at the repository root; "
                         "--from takes an env's folder name such as pendulum)")
    if new_dir.exists():
        parser.error(f"{new_dir.relative_to(ROOT)} exists already")
    new_c, new_h, new_py = new_dir / f"{new}.c", new_dir / f"{new}.h", new_dir / "__init__.py"
    src_lanes, new_lanes = src_dir / f"{old}_lanes.c", new_dir / f"{new}_lanes.c"

    c_text = src_c.read_text()
    m = re.search(r'CCGYM_DEFINE_STOCK_ENV\(\s*ccgym_' + re.escape(old) + r'\b.*?\.name = "(\w+)"',
                  c_text, re.S)
    if m is None:
        parser.error(f"{src_c.relative_to(ROOT)} has no CCGYM_DEFINE_STOCK_ENV(ccgym_{old}, ...) "
                     "with a .name")
    old_kind = m.group(1)
    m = re.search(r'\.gym_class = "(\w+)"', c_text)
    if m is None:
        parser.error(f"{src_c.relative_to(ROOT)}'s def names no .gym_class")
    old_class = _ccgym_class(old_kind)
    new_class = f"{args.name}Env"

    keep = shared_symbols({src_c.resolve(), src_h.resolve()})
    prefix = f"ccgym_{old}"

    def rename_c(text: str) -> str:
        def ident(mo: re.Match) -> str:
            word = mo.group(0)
            if word in keep:
                return word  # declared in a shared header: not the source's own
            return f"ccgym_{new}" + word[len(prefix):]
        text = re.sub(r"\b" + re.escape(prefix) + r"(?:_\w+)?\b", ident, text)
        text = text.replace(f"CCGYM_{old.upper()}_H_", f"CCGYM_{new.upper()}_H_")
        text = text.replace(f'#include "{old}.h"', f'#include "{new}.h"')
        text = text.replace(f'.name = "{old_kind}"', f'.name = "{args.name}"')
        return text

    note = (f"/* {args.name}: made by tools/new_env.py from {old} (envs/{old}/); it steps "
            f"as {old_kind}\n * until its physics here change. */\n")
    writes = {
        new_h: note + rename_c(src_h.read_text()),
        new_c: note + rename_c(c_text),
        new_py: _python_module(args.name, new, old, old_kind, old_class, new_class),
    }
    if src_lanes.is_file():
        writes[new_lanes] = note + rename_c(src_lanes.read_text())

    reg = registry_c.read_text()
    if f"CCGYM_ENV({old})\n" not in reg:
        parser.error(f"src/envs.def has no CCGYM_ENV({old}) line")
    last = reg.rindex(")\n") + len(")\n")  # after the list's last line
    reg = reg[:last] + f"CCGYM_ENV({new})\n" + reg[last:]

    py = registry_py.read_text()
    lines = [ln for ln in py.splitlines(keepends=True)
             if re.match(rf'\s*"{re.escape(old_kind)}-v\d+": \("{re.escape(old_class)}"', ln)]
    if not lines:
        parser.error(f"python/ccgym/_registration.py registers no {old_kind}-v* id")
    added = "".join(
        re.sub(rf'"{re.escape(old_kind)}-(v\d+)": \("{re.escape(old_class)}", ([^,]*, [^,]*), [^)]*\)',
               rf'"{args.name}-\1": ("{new_class}", \2, "ccgym.envs.{new}")', ln)
        for ln in lines)
    py = py.replace(lines[-1], lines[-1] + added, 1)
    writes[registry_c] = reg
    writes[registry_py] = py

    if not args.dry_run:
        new_dir.mkdir()
    for path, text in writes.items():
        verb = "edit  " if path.exists() else "create"
        print(f"{verb} {path.relative_to(ROOT)}")
        if not args.dry_run:
            path.write_text(text)
    ids = re.findall(rf'"({re.escape(args.name)}-v\d+)"', added)
    print(f"registered {', '.join('ccgym/' + i for i in ids)}; rebuild "
          "(pip install . , or the editable install's next import) to use it")
    return 0


def _ccgym_class(kind: str) -> str:
    """ccgym.envs's class name of a kind, read from the registry (the first
    id whose class runs that kind: the class names follow Gymnasium's)."""
    text = (ROOT / "python/ccgym/_registration.py").read_text()
    m = re.search(rf'"{re.escape(kind)}-v\d+": \("(\w+)"', text)
    if m is None:
        sys.exit(f"new_env: no id of kind {kind!r} in python/ccgym/_registration.py")
    return m.group(1)


def _python_module(name: str, new: str, old: str, old_kind: str, old_class: str,
                   new_class: str) -> str:
    """The source env's module (``python/ccgym/envs/<old>/__init__.py``) for the new
    kind: its class renamed, its kind and the ids in its text renamed; the
    shared machinery it imports (``ccgym.envs._base``, another module's
    private helpers) stays shared."""
    path = ENVS / old / "__init__.py"
    if not path.is_file():
        sys.exit(f"new_env: {path.relative_to(ROOT)} not found")
    text = path.read_text()
    # (Gymnasium's class of the same name, named in the docstrings, stays.)
    text = re.sub(rf"(?<!classic_control\.)\b{re.escape(old_class)}\b", new_class, text)
    text = re.sub(rf'"{re.escape(old_kind)}"', f'"{name}"', text)
    text = re.sub(rf"\bccgym/{re.escape(old_kind)}-v", f"ccgym/{name}-v", text)
    note = (f'# {name}: made by tools/new_env.py from {old_kind} ({path.relative_to(ROOT)}); '
            f'it steps as {old_kind}\n# until its physics ({new}.c, beside this file) change.\n')
    return note + text


if __name__ == "__main__":
    sys.exit(main())
