"""The zoo, part 2: a family's config saved and read back, and its rotary modules built.

:func:`build` does for one model type what a user of posenc meets:

1. the default config (``CONFIG_MAPPING[type]()``, or a given config.json), saved with
   ``save_pretrained`` and read back twice: as plain JSON (what posenc is given) and with
   ``from_pretrained`` (what the model is built from);
2. the family's model (AutoModel's class, else the module's class for this config) built
   on the meta device, no weight allocated, with the ``__init__`` of every rotary class
   of the modeling file wrapped so that each outermost construction is seen: its class,
   its arguments, and where the model attaches it;
3. each distinct construction replayed on the CPU with the same arguments, so the module
   is the one the model builds (config, sub-config, ``layer_type=``, the model's own
   config copies). When the model cannot be built, the rotary classes it did not reach
   are built from the config (or sub-config) their ``config`` annotation names, and the
   result says so.

The meta model is kept: ``_zoo_layers`` runs its forward to see which layers rotate.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _zoo_enumerate import ROTARY_NAME, err, quiet, scan, transformers


@dataclass
class Construction:
    """One distinct construction of a rotary class by the model, replayed on the CPU."""

    cls: type
    args: tuple
    kwargs: dict
    config_path: str | None  # where its config sits in the saved JSON ("" the top)
    layer_type: str | None = None  # the ``layer_type=`` it was built with
    instances: list = field(default_factory=list)  # the meta model's instances
    attached: list[str] = field(default_factory=list)  # their names in the model
    direct: bool = False  # built from the config, not by the model
    module: Any = None  # the CPU replay
    error: str | None = None

    @property
    def name(self) -> str:
        where = "top" if self.config_path == "" else (self.config_path or "a config copy")
        extra = f", layer_type={self.layer_type}" if self.layer_type else ""
        return f"{self.cls.__name__} ({where}{extra})"


@dataclass
class Built:
    """A family as built: its saved config, its meta model, its rotary constructions."""

    model_type: str
    data: dict | None = None  # the saved config.json
    config: Any = None  # the config loaded back with from_pretrained
    model: Any = None  # the model on the meta device, or None
    model_class: str | None = None
    route: str = ""  # how the rotary modules were found
    constructions: list[Construction] = field(default_factory=list)
    rotary_classes: list[str] = field(default_factory=list)
    error: str | None = None  # why the family could not be built
    paths: dict = field(default_factory=dict)  # id(config object) -> its path

    @property
    def no_rotary(self) -> bool:
        """The model was built whole and constructed none of the module's rotary classes."""
        return self.error is None and self.model is not None and not self.constructions


class _Recorder:
    """Wrap the ``__init__`` of rotary classes; record each outermost construction."""

    def __init__(self, classes):
        self.classes = [c for c in classes if "__init__" in c.__dict__]
        self.calls: list[tuple] = []  # (class, args, kwargs, instance)
        self.depth = 0
        self.saved: dict = {}

    def __enter__(self):
        for cls in self.classes:
            original = cls.__dict__["__init__"]
            self.saved[cls] = original

            def wrapped(this, *args, _original=original, **kwargs):
                outer = self.depth == 0
                self.depth += 1
                try:
                    _original(this, *args, **kwargs)
                finally:
                    self.depth -= 1
                if outer:
                    self.calls.append((type(this), args, kwargs, this))

            wrapped.__signature__ = inspect.signature(original)
            cls.__init__ = wrapped
        return self

    def __exit__(self, *exc):
        for cls, original in self.saved.items():
            cls.__init__ = original
        return False


def config_paths(config, prefix: str = "", seen: dict | None = None) -> dict[int, str]:
    """id(config object) -> its path in the saved JSON ("" the top, "text_config", ...)."""
    from transformers import PreTrainedConfig

    seen = {} if seen is None else seen
    if id(config) in seen:
        return seen
    seen[id(config)] = prefix
    names = list(getattr(config, "sub_configs", {}) or {})
    names += [
        n for n, v in vars(config).items() if isinstance(v, PreTrainedConfig) and n not in names
    ]
    for name in names:
        try:
            sub = getattr(config, name, None)
        except Exception:
            continue
        if isinstance(sub, PreTrainedConfig):
            config_paths(sub, f"{prefix}.{name}" if prefix else name, seen)
    return seen


def _objects(config) -> dict[int, Any]:
    """Every config object under ``config``, by id."""
    from transformers import PreTrainedConfig

    found, stack = {}, [config]
    while stack:
        c = stack.pop()
        if id(c) not in found:
            found[id(c)] = c
            stack += [v for v in vars(c).values() if isinstance(v, PreTrainedConfig)]
    return found


def import_modeling(model_type: str) -> list:
    """The modeling module(s) of a model type, imported."""
    import importlib

    out = []
    for rel in scan(model_type)["files"]:
        out.append(importlib.import_module(rel.removesuffix(".py").replace("/", ".")))
    return out


def _rotary_classes(modules, model_type: str) -> list[type]:
    import torch

    out = []
    for module in modules:
        for name in scan(model_type)["rotary"]:
            cls = getattr(module, name, None)
            if isinstance(cls, type) and issubclass(cls, torch.nn.Module) and cls not in out:
                out.append(cls)
    return out


def _model_class(model_type: str, config, modules):
    """The family's base model class: AutoModel's, else the module's class for the config."""
    from transformers import PreTrainedModel
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    name = MODEL_MAPPING_NAMES.get(model_type)
    if isinstance(name, list | tuple):
        name = name[0]
    if name:
        for module in modules:
            if isinstance(getattr(module, name, None), type):
                return getattr(module, name), "AutoModel"
        cls = getattr(transformers(), name, None)
        if isinstance(cls, type):
            return cls, "AutoModel"
    candidates = [
        obj
        for module in modules
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, PreTrainedModel)
        and obj.__module__ == module.__name__
        and getattr(obj, "config_class", None) is type(config)
        and not obj.__name__.endswith("PreTrainedModel")
    ]
    if not candidates:
        return None, "no model class for this config class"
    candidates.sort(key=lambda c: (not c.__name__.endswith("Model"), len(c.__name__)))
    return candidates[0], "the module's class for this config"


def _describe(value, paths) -> Any:
    """An argument as a hashable description (configs by their path)."""
    import torch
    from transformers import PreTrainedConfig

    if isinstance(value, PreTrainedConfig):
        path = paths.get(id(value))
        return f"<config {path}>" if path is not None else f"<copy {id(value)}>"
    if isinstance(value, torch.device | torch.Tensor):
        return f"<{type(value).__name__}>"
    if isinstance(value, int | float | str | bool) or value is None:
        return value
    return f"<{type(value).__name__}>"


def _config_arg(args, kwargs):
    from transformers import PreTrainedConfig

    for value in [*kwargs.values(), *args]:
        if isinstance(value, PreTrainedConfig):
            return value
    return None


def _path_of(config, paths, objects) -> str | None:
    """The path of a config object; for a copy the model made, the path of the saved
    config of the same class (Granite's per-base copies, Gemma 4's per-layer ones)."""
    if config is None:
        return None
    if id(config) in paths:
        return paths[id(config)]
    for oid, obj in objects.items():
        if type(obj) is type(config) and oid in paths:
            return paths[oid]
    return None


def _cpu(args, kwargs):
    import torch

    def fix(value):
        if isinstance(value, torch.device) or (isinstance(value, str) and value == "meta"):
            return torch.device("cpu")
        if isinstance(value, torch.Tensor) and value.device.type == "meta":
            raise ValueError("a meta tensor among the arguments: cannot replay")
        return value

    return tuple(fix(a) for a in args), {k: fix(v) for k, v in kwargs.items()}


def _matching_config(cls, objects, top):
    """The config (or sub-config) a rotary class's ``config`` annotation names."""
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return None
    first = next((p for n, p in params.items() if n != "self"), None)
    param = params.get("config") or first
    if param is None:
        return None
    annotation = param.annotation
    if annotation is inspect.Parameter.empty:
        return top if param.name.endswith("config") else None
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    names = re.findall(r"\w+", str(text))
    module = sys.modules.get(cls.__module__)
    wanted = [w for w in (getattr(module, n, None) for n in names) if isinstance(w, type)]
    for obj in objects.values():
        if type(obj).__name__ in names:
            return obj
    for obj in objects.values():
        if any(isinstance(obj, w) for w in wanted):
            return obj
    return None


def _saved(config_class, overrides: dict | None, data: dict | None):
    """(config.json as plain JSON, the config loaded back with from_pretrained)."""
    with tempfile.TemporaryDirectory() as folder:
        if data is None:
            with quiet():
                config_class(**(overrides or {})).save_pretrained(folder)
        else:
            Path(folder, "config.json").write_text(json.dumps(data), encoding="utf-8")
        saved = json.loads(Path(folder, "config.json").read_text(encoding="utf-8"))
        with quiet():
            loaded = config_class.from_pretrained(folder)
    return saved, loaded


def build(model_type: str, *, data: dict | None = None, overrides: dict | None = None) -> Built:
    """Build a family's rotary module(s) as its model does (see the module's docstring).

    ``data`` is a config.json to load instead of the default config; ``overrides`` are
    keyword arguments of the default config. Never raises: a failure is ``error``.
    """
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    transformers()
    out = Built(model_type)
    try:
        out.data, config = _saved(CONFIG_MAPPING[model_type], overrides, data)
    except Exception as error:
        out.error = f"the config could not be saved and loaded: {err(error)}"
        return out
    out.config = config
    try:
        with quiet():
            modules = import_modeling(model_type)
    except Exception as error:
        out.error = f"the modeling module does not import: {err(error)}"
        return out
    classes = _rotary_classes(modules, model_type)
    out.rotary_classes = [c.__name__ for c in classes]
    paths, objects = config_paths(config), _objects(config)
    out.paths = paths
    model_cls, why = _model_class(model_type, config, modules)
    calls: list[tuple] = []
    if model_cls is not None and classes:
        calls = _meta_build(out, model_cls, why, config, classes)
        unset = [c for c in objects.values() if "vocab_size" in vars(c) and c.vocab_size is None]
        if out.model is None and unset:  # ESM: no vocabulary by default; no layer needs one
            for c in unset:
                c.vocab_size = 32
            calls = _meta_build(out, model_cls, why, config, classes)
            out.route += " (vocab_size unset in the config: 32 for the model's build)"
        others = _other_rotaries(out.model, classes)
        if others:  # a sub-model of another family's file (Kimi K2.5's DeepSeek-V3 text)
            classes += others
            out.rotary_classes += [c.__name__ for c in others]
            calls = _meta_build(out, model_cls, why, config, classes)
    elif classes:
        out.route = f"no model built: {why}"
    else:
        out.route = "no rotary class in the modeling file"
    if out.model is None and classes:
        # no model, or its build stopped part way: the rotary classes it did not reach,
        # from the config their annotation names
        reached = {type(inst) for *_, inst in calls}
        for cls in classes:
            sub = _matching_config(cls, objects, config) if cls not in reached else None
            if sub is not None:
                calls.append((cls, (sub,), {}, None))
        out.route += "; the rotary classes not reached built from the config they name"
    _replay(out, calls, paths, objects)
    if out.model is None and not out.constructions:
        out.error = f"no rotary module built: {out.route}"
    return out


def _meta_build(out: Built, model_cls, why: str, config, classes) -> list[tuple]:
    """Build the model on the meta device, recording the rotary constructions."""
    import torch

    recorder = _Recorder(classes)
    out.model = None
    try:
        with quiet(), recorder, torch.device("meta"):
            out.model = model_cls(config)
        out.model_class = model_cls.__name__
        out.route = f"meta build of {model_cls.__name__} ({why})"
    except Exception as error:
        out.route = f"meta build of {model_cls.__name__} failed ({err(error)})"
    return recorder.calls


def _other_rotaries(model, classes) -> list[type]:
    """Rotary classes of other modeling files that the model holds."""
    if model is None:
        return []
    found = []
    for module in model.modules():
        cls = type(module)
        if ROTARY_NAME.search(cls.__name__) and cls not in classes and cls not in found:
            found.append(cls)
    return found


def _replay(out: Built, calls, paths, objects) -> None:
    """Group the constructions, and build each group once on the CPU."""
    import torch

    names = {}
    if out.model is not None:
        names = {id(m): n for n, m in out.model.named_modules()}
    groups: dict[str, Construction] = {}
    for cls, args, kwargs, instance in calls:
        described = [_describe(a, paths) for a in args]
        described += [(k, _describe(v, paths)) for k, v in sorted(kwargs.items())]
        key = json.dumps([cls.__qualname__, described], default=str)
        if key not in groups:
            cfg = _config_arg(args, kwargs)
            groups[key] = Construction(
                cls,
                args,
                kwargs,
                _path_of(cfg, paths, objects),
                kwargs.get("layer_type"),
                direct=instance is None,
            )
        if instance is not None:
            groups[key].instances.append(instance)
            if id(instance) in names:
                groups[key].attached.append(names[id(instance)] or "<top>")
    for group in groups.values():
        try:
            args, kwargs = _cpu(group.args, group.kwargs)
            with quiet(), torch.device("cpu"):
                group.module = group.cls(*args, **kwargs)
        except Exception as error:
            group.error = f"replay on the CPU failed: {err(error)}"
        out.constructions.append(group)
