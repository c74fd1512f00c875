"""The package's modules import without cycles, and each imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

#: The package's sources, next to this test folder.
PACKAGE = Path(__file__).resolve().parents[1] / "arrow_tensor_ipc"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))


def _package_imports(module: str) -> set[str]:
    """The package's modules that ``module`` imports, at top level or inside functions."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module is None:
                found.update(alias.name for alias in node.names)
            else:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            parts = node.module.split(".")
            if parts[0] == "arrow_tensor_ipc" and len(parts) > 1:
                found.add(parts[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "arrow_tensor_ipc" and len(parts) > 1:
                    found.add(parts[1])
    return {m for m in found if m in MODULES and m != module}


def test_the_python_modules_form_no_import_cycle() -> None:
    graph = {m: _package_imports(m) for m in MODULES if m != "__init__"}
    # The dependency edges this test is about: the message classes and the input glue both
    # use the dtype table, and only the input glue uses the message classes.
    assert "_dtypes" in graph["_message"] and "_dtypes" in graph["_inputs"]
    assert graph["_dtypes"] == set()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, "import cycle: " + " -> ".join(path + [module])
        if module in done:
            return
        for dep in sorted(graph[module]):
            visit(dep, path + [module])
        done.add(module)

    for module in graph:
        visit(module, [])


def test_each_module_imports_first_in_a_fresh_interpreter() -> None:
    for module in MODULES:
        name = "arrow_tensor_ipc" if module == "__init__" else f"arrow_tensor_ipc.{module}"
        result = subprocess.run(
            [sys.executable, "-c", f"import {name}"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"import {name}: {result.stderr}"


def test_every_all_name_exists_and_star_imports_work() -> None:
    """Every name a module's ``__all__`` lists exists, so ``from module import *`` works."""
    for module in MODULES:
        name = "arrow_tensor_ipc" if module == "__init__" else f"arrow_tensor_ipc.{module}"
        code = (
            f"import {name} as m\n"
            "missing = [n for n in getattr(m, '__all__', []) if not hasattr(m, n)]\n"
            "assert not missing, missing\n"
            f"exec('from {name} import *', {{}})\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, f"from {name} import *: {result.stderr}"


def _code_without_docstrings(module: str) -> str:
    """The module's source with its docstrings removed (what runs, not what documents)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                body[0].value.value = ""
    return ast.unparse(tree)


def test_no_module_reimplements_a_rule_of_the_formats() -> None:
    """The dataset manifest and tile files, and the COO-table metadata, are read, written
    and checked by the Rust crate only: no Python module parses JSON or names the files and
    metadata keys of those formats."""
    markers = [
        "import json",
        "json.loads",
        "json.dumps",
        "_tensor.json",
        "arrow_tensor_ipc.tile",
        "arrow_tensor_ipc.sparse_tensor",
        "arrow_tensor_ipc_dataset",
        "part-0",
        "'tile_",
        "f'tile_",
        "os.walk",
        "listdir",
        "argsort",
        "lexsort",
    ]
    for module in MODULES:
        code = _code_without_docstrings(module)
        found = [m for m in markers if m in code]
        assert not found, f"{module}.py: {found}"
