"""The package's import rules (issue 44 item 4), read from the source with
``ast``: ccgym's own modules import each other without a cycle, counting
imports inside functions; at most 5 of those imports are deferred into a
function (optional third-party dependencies may be, and are not counted);
no module inside the package imports the package face ``ccgym``; and each
env is one folder holding its def, step header, lanes block and Python
module."""

from __future__ import annotations

import ast
import pathlib
import re

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "python" / "ccgym"
MAX_DEFERRED = 5


def _modules() -> dict[str, pathlib.Path]:
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.pyx")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _resolve(name: str) -> str:
    """The module an imported dotted name lives in (a name of a module, or an
    attribute of one: its module)."""
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(path: pathlib.Path) -> list[tuple[str, bool, int]]:
    """(imported module of ccgym's, deferred, line) for each import of one
    of ccgym's modules; ``from ccgym import x`` is module ccgym.x if there is
    one, else the face. Imports under ``if TYPE_CHECKING:`` do not run."""
    if path.suffix == ".pyx":  # Cython: its Python-level import lines
        out = []
        for i, line in enumerate(path.read_text().splitlines(), 1):
            m = re.match(r"(\s*)from (ccgym[\w.]*) import (?!\*)(.*)", line)
            if m and " cimport " not in line:
                for name in re.split(r"\s*,\s*", m.group(3).split("#")[0].strip()):
                    target = f"{m.group(2)}.{name.split(' as ')[0]}"
                    out.append((_resolve(target), bool(m.group(1)), i))
            m = re.match(r"(\s*)import (ccgym[\w.]*)", line)
            if m:
                out.append((_resolve(m.group(2)), bool(m.group(1)), i))
        return out
    tree = ast.parse(path.read_text())
    out = []

    def visit(node: ast.AST, deferred: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                continue
            inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.Lambda))
            if isinstance(child, ast.Import):
                for a in child.names:
                    if a.name == "ccgym" or a.name.startswith("ccgym."):
                        out.append((_resolve(a.name), deferred, child.lineno))
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module and (
                    child.module == "ccgym" or child.module.startswith("ccgym.")):
                for a in child.names:
                    out.append((_resolve(f"{child.module}.{a.name}"), deferred, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return out


IMPORTS = {name: _imports(path) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    graph = {m: {t for t, _, _ in imps if t != m} for m, imps in IMPORTS.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            strong(v)
    return found


def test_the_reader_sees_the_package():
    assert {"ccgym", "ccgym.vector", "ccgym.envs", "ccgym.envs._base", "ccgym._core"} <= set(
        MODULES)
    assert ("ccgym.envs._base", False) in {(t, d) for t, d, _ in IMPORTS["ccgym.envs.cartpole"]}


def test_no_import_cycle():
    assert _cycles() == []


def test_few_deferred_imports():
    deferred = [(m, line, t) for m, imps in IMPORTS.items() for t, d, line in imps if d]
    assert len(deferred) <= MAX_DEFERRED, deferred


def test_no_module_imports_the_package_face():
    face = [(m, line) for m, imps in IMPORTS.items() if m != "ccgym"
            for t, _, line in imps if t == "ccgym"]
    assert face == []


def test_each_env_is_one_folder():
    """Each env of src/envs.def is a folder of python/ccgym/envs holding its
    def, its step header and its Python module (and its lanes block where it
    has one), and no C of an env lies outside it."""
    root = PACKAGE.parent.parent
    envs = re.findall(r"^CCGYM_ENV\((\w+)\)", (root / "src" / "envs.def").read_text(), re.M)
    assert envs
    for env in envs:
        folder = PACKAGE / "envs" / env
        for name in (f"{env}.c", f"{env}.h", "__init__.py"):
            assert (folder / name).is_file(), folder / name
        assert not (root / "src" / f"{env}.c").exists()
        assert not (root / "src" / f"{env}_lanes.c").exists()
        assert not (root / "src" / "include" / "ccgym" / f"{env}.h").exists()
