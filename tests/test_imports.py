"""The import graph runs one way: corpus → sim → views and serving → app → deployment.

Every project module is parsed (never imported), and every import it makes, at the top or inside
a function, is an edge. The test fails on a cycle; on the engine (corpus, sim) importing the web
side (views, serving, the app, Flask) or reading the environment; on a project import inside a
function anywhere but the app factory and gunicorn's hooks (a deferred import hides an edge and
usually a cycle); and on a private name imported from another module.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("corpus", "sim", "views", "serving", "deploy", "bench")
TOP_MODULES = ("app",)
# gunicorn reads its configuration file by path; its hooks (functions) run inside the server.
GUNICORN_CONF = "gunicorn.conf"
PROJECT = PACKAGES + TOP_MODULES
ENGINE = ("corpus", "sim")
WEB = ("views", "serving", "deploy", "app", "flask", "flask_babel", "flask_compress", "werkzeug",
       "gunicorn", "redis")
# Where a project import may wait until a function runs: the app factory (it builds the app from
# the views once configured) and gunicorn's hooks (they run in the server, after the app loads).
DEFERRED_OK = {("app", "create_app"), (GUNICORN_CONF, "*")}


def _module_files() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    for name in TOP_MODULES:
        out[name] = ROOT / f"{name}.py"
    out[GUNICORN_CONF] = ROOT / "gunicorn.conf.py"
    return out


MODULES = _module_files()
TREES = {m: ast.parse(path.read_text(encoding="utf-8"), str(path)) for m, path in MODULES.items()}


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


class _Imports(ast.NodeVisitor):
    """Every import of one module: (target, imported names, enclosing function or None, line)."""

    def __init__(self, module: str):
        self.module = module
        self.package = module if _is_package(module) else module.rpartition(".")[0]
        self.stack: list[str] = []
        self.found: list[tuple[str, tuple[str, ...], str | None, int]] = []

    def _visit_function(self, node):
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = _visit_function

    def _where(self):
        return self.stack[0] if self.stack else None

    def visit_Import(self, node):
        for alias in node.names:
            self.found.append((alias.name, (), self._where(), node.lineno))

    def visit_ImportFrom(self, node):
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module
        self.found.append((target, tuple(a.name for a in node.names), self._where(), node.lineno))


def _project(name: str) -> bool:
    return name.split(".")[0] in PROJECT


def _edges():
    """(importer, imported project module, function or None, line, names) for every import."""
    out = []
    for module, path in MODULES.items():
        visitor = _Imports(module)
        visitor.visit(TREES[module])
        for target, names, where, line in visitor.found:
            if not _project(target):
                out.append((module, target, where, line, names))
                continue
            # "from sim import theory" imports the module sim.theory; "from sim.params import X"
            # imports sim.params (its names are not modules).
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES]
            if not subs or len(subs) < len(names):
                out.append((module, target, where, line, names))
            out.extend((module, s, where, line, names) for s in subs)
    return out


EDGES = _edges()


def test_every_module_is_seen():
    assert {"sim.params", "views.plate", "app", "corpus.text"} <= set(MODULES)
    assert any(imported == "sim.ngram" for _, imported, *_ in EDGES)


def test_no_cycles():
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for importer, imported, *_ in EDGES:
        if imported in MODULES and imported != importer:
            graph[importer].add(imported)
        elif imported == importer:
            pytest.fail(f"{importer} imports itself")
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, cycles, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop(); on.discard(m); comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        cycles.append(sorted(comp))
    assert not cycles, "import cycles: " + "; ".join(" ↔ ".join(c) for c in cycles)


def test_engine_imports_no_web():
    bad = [f"{m}:{line} imports {t}" for m, t, _, line, _ in EDGES
           if m.split(".")[0] in ENGINE and t.split(".")[0] in WEB]
    assert not bad, bad


def test_engine_reads_no_environment():
    bad = []
    for module, path in MODULES.items():
        if module.split(".")[0] not in ENGINE:
            continue
        for node in ast.walk(TREES[module]):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
                bad.append(f"{module}:{node.lineno}")
    assert not bad, bad


def test_project_imports_at_the_top():
    bad = [f"{m}:{line} imports {t} inside {where}()" for m, t, where, line, _ in EDGES
           if where and _project(t) and (m, where) not in DEFERRED_OK and (m, "*") not in DEFERRED_OK]
    assert not bad, "\n".join(bad)


def test_no_private_names_across_modules():
    bad = [f"{m}:{line} takes {n} from {t}" for m, t, _, line, names in EDGES
           if _project(t) and t != m for n in names
           if n.startswith("_") and not n.startswith("__") and f"{t}.{n}" not in MODULES]
    assert not bad, "\n".join(sorted(set(bad)))


def test_no_private_attributes_of_other_modules():
    # module._name, where module is a project module this one imported (``from views.sections
    # import speculative as sc`` then ``sc._plain``): a name private to its module is read elsewhere.
    bad = []
    for module, path in MODULES.items():
        tree = TREES[module]
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in MODULES:
                        aliases[a.asname or a.name.split(".")[0]] = a.name
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if f"{node.module}.{a.name}" in MODULES:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                bad.append(f"{module}:{node.lineno} reads {aliases[node.value.id]}.{node.attr}")
    assert not bad, "\n".join(bad)


# The layers docs/design.md draws, top first: a module imports only its own layer or lower ones
# (within a layer, test_no_cycles keeps the arrows one way). A module is in the layer of the
# longest prefix that names it; the benchmarks and gunicorn's file are tools outside the layers.
LAYERS = [
    ("deploy",),
    ("app",),
    ("views.plate", "views.api", "views.teach", "views.classroom"),
    ("views.sections",),
    ("views",),
    ("serving",),
    ("sim.__main__", "sim.params"),
    ("sim",),
    ("sim.param", "corpus"),
]


def _layer(module: str) -> int | None:
    best, rank = -1, None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    return rank


def test_each_layer_imports_only_itself_and_below():
    bad = []
    for m, t, _, line, _ in EDGES:
        if t not in MODULES or m.split(".")[0] in ("bench",) or m == GUNICORN_CONF:
            continue
        a, b = _layer(m), _layer(t)
        if a is not None and b is not None and b < a:
            bad.append(f"{m}:{line} imports {t}, a layer above it")
    assert not bad, "\n".join(bad)
