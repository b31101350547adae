"""The zoo, part 1: which model types of the pinned Transformers have a rotary module.

A static scan (``ast``, no import of the modeling code): every model type of
``CONFIG_MAPPING`` whose modeling file defines a class named like a rotary table
(``*RotaryEmbedding``, ``*RopePositionEmbedding``, ...) or an attention class named
``*Rope*`` that rotates inline (V-JEPA 2). A model type whose folder holds only a config
(Exaone, InternLM3, IQuestCoder, Sarvam) is given the modeling file of the class
``AutoModel`` maps it to. The scan also lists each file's functions that apply a
rotation (``apply*rot*``, ``apply*rope*``): ``_zoo_layers`` watches them.

Used by ``test_zoo.py`` (see its docstring); the helpers shared by the zoo's modules
(importing Transformers quietly, short error texts) live here too.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import logging
import os
import re
import sys
import warnings
from pathlib import Path

#: Class names that make a rotary class: a table of cos and sin (or of angles).
ROTARY_NAME = re.compile(r"(Rotary|Rope|RoPE)\w*(Embedding|Embeddings|Emb)$")
#: Any other class named after rotary (an attention that rotates inline).
ROTARY_ANY = re.compile(r"Rotary|Rope|RoPE")
#: Functions that apply a rotation to queries and keys.
APPLY_NAME = re.compile(r"apply\w*rot|apply\w*rope|rope\w*apply|rotate_queries")


def transformers():
    """The transformers package, imported once, offline and with its logging quiet."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import transformers as module

    module.logging.set_verbosity_error()
    return module


@contextlib.contextmanager
def quiet():
    """No warnings, log lines or prints from the library while it builds and runs."""
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                yield
    finally:
        logging.disable(logging.NOTSET)


def err(error: BaseException, limit: int = 240) -> str:
    """An exception as one short line: its type and message."""
    text = f"{type(error).__name__}: {' '.join(str(error).split())}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


@functools.cache
def package_dir() -> Path:
    return Path(transformers().__file__).resolve().parent


def module_name(model_type: str) -> str:
    """The package under ``transformers.models`` of a model type."""
    from transformers.models.auto import configuration_auto

    return configuration_auto.model_type_to_module_name(model_type)


def modeling_files(model_type: str) -> list[Path]:
    """``modeling_<module>.py`` of a model type, else every ``modeling_*.py`` of its folder,
    else (a config-only folder) the file of the class AutoModel maps the type to."""
    folder = package_dir() / "models" / module_name(model_type)
    main = folder / f"modeling_{module_name(model_type)}.py"
    if main.exists():
        return [main]
    found = sorted(folder.glob("modeling_*.py"))
    if found:
        return found
    other = borrowed_from(model_type)
    return [other] if other else []


def borrowed_from(model_type: str) -> Path | None:
    """The modeling file of a config-only model type's AutoModel class, or None."""
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    folder = package_dir() / "models" / module_name(model_type)
    if any(folder.glob("modeling_*.py")):
        return None
    name = MODEL_MAPPING_NAMES.get(model_type)
    if not isinstance(name, str):
        return None
    for module in _class_index().get(name, []):
        path = package_dir() / Path(*module.split(".")[1:]).with_suffix(".py")
        if path.exists():
            return path
    return None


@functools.cache
def _class_index() -> dict[str, list[str]]:
    """Class name -> the modules that export it, from transformers' lazy import map."""
    transformers()
    lazy = sys.modules["transformers"]
    index: dict[str, list[str]] = {}
    structure = getattr(lazy, "_import_structure", None) or {}
    for module, names in structure.items():
        for name in names:
            index.setdefault(name, []).append(f"transformers.{module}")
    for name, module in getattr(lazy, "_class_to_module", {}).items():
        index.setdefault(name, []).append(f"transformers.{module}")
    return index


@functools.cache
def _scan_file(path: Path) -> dict:
    """Rotary classes, inline-rope attention classes and apply functions of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rotary, inline, applies = [], [], []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if ROTARY_NAME.search(node.name):
                rotary.append(node.name)
            elif ROTARY_ANY.search(node.name):
                inline.append(node.name)
        elif isinstance(node, ast.FunctionDef) and APPLY_NAME.search(node.name):
            applies.append(node.name)
    return {"rotary": rotary, "inline": inline, "applies": applies}


@functools.cache
def scan(model_type: str) -> dict:
    """The scan of a model type's modeling file(s), merged, with the files' paths."""
    files = modeling_files(model_type)
    merged: dict = {"files": [], "rotary": [], "inline": [], "applies": []}
    for path in files:
        merged["files"].append(str(path.relative_to(package_dir().parent)))
        for key, names in _scan_file(path).items():
            merged[key] += [n for n in names if n not in merged[key]]
    return merged


def source_file(model_type: str) -> str:
    """The Transformers file that decides a model type's rotary, as ``transformers/...``."""
    files = scan(model_type)["files"]
    return files[0] if files else ""


@functools.cache
def zoo_families() -> tuple[str, ...]:
    """Every model type whose modeling file defines a rotary class, sorted."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    transformers()
    out = []
    for model_type in CONFIG_MAPPING_NAMES:
        if not modeling_files(model_type):
            continue
        found = scan(model_type)
        if found["rotary"] or found["inline"]:
            out.append(model_type)
    return tuple(sorted(out))
