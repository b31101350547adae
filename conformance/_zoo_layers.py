"""The zoo, part 4: which layers rotate, measured from the family's own code.

posenc says which layers of a model rotate their queries and keys from the config and
the family's rule (``no_rope_layers``, rotary on sliding-window layers only, a null
``rope_parameters`` entry, ...). Here the family's code says it, two ways:

- **forward** (first choice): the sub-model built from the config part posenc reads
  (``language_model``, ``decoder``, the model itself) runs its forward on the meta device
  (shapes only: no weight, no arithmetic), on 5 tokens, with every function of the
  model's modeling files that applies a rotation (``apply*rot*``, ``apply*rope*``)
  wrapped to note each call: the function, the module running when it was called
  (``layers.3.self_attn``, or ``layers.3.self_attn.indexer`` for DeepSeek-V3.2's
  indexer) and the rotary table its cos and sin came from (every rotary module's
  forward is wrapped to note the tensors it returns). A layer rotates when a rotation
  is applied while it runs: whatever guard the family puts on the call (``if
  self.use_rope``, ``if self.sliding_window is not None``, ``position_embeddings =
  None`` for a layer type) is the family's own code deciding. Two things the meta
  device cannot do are set aside, neither of which decides a rotation: the model is
  cast to bfloat16 (an MoE's grouped product wants it), and the check for packed
  sequences in the attention mask (which reads values) is told there are none.
- **guards** (when the forward stops before the layers answer): in each layer, every
  module whose ``forward`` calls an apply function, and the ``if`` conditions around
  the call, evaluated on that module (``self.use_rope``, ``self.sliding_window``). A
  condition on the forward's arguments (``position_embeddings is not None``) leaves
  the layer undecided, and the answer says so.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import re
import sys
import textwrap
from dataclasses import dataclass, field

from _zoo_enumerate import APPLY_NAME, err, quiet

#: Names of a model's list of decoder layers.
LIST_NAMES = re.compile(r"(^|\.)(layers|layer|h|blocks|block|decoder_layers|transformer_blocks)$")
TOKENS = 5


@dataclass
class Applied:
    """One call of an apply function while a layer ran (or one its guards allow)."""

    function: str
    module: str | None  # the Python module that defines the function
    where: str  # the running module, relative to the layer ("self_attn", ...)
    source: tuple[int, str] | None = None  # (construction, table key) of its cos and sin


@dataclass
class LayerTrace:
    """Which layers of one layer list apply a rotation, and how."""

    owner: str  # the sub-model that ran ("" the model itself)
    layers: str  # the layer list's name in the model
    count: int
    method: str = "forward"  # or "guards"
    applied: dict[int, list[Applied]] = field(default_factory=dict)
    error: str | None = None  # why there is no answer, if there is none
    reached: int = 0  # layers whose forward started

    @property
    def rotating(self) -> list[int]:
        return sorted(i for i, calls in self.applied.items() if calls)

    @property
    def complete(self) -> bool:
        return self.error is None


def layer_owners(model, config_object, count: int | None) -> list[tuple[str, str, int]]:
    """(owner, layer list, length) of each layer list whose owner was built from
    ``config_object``; if there is none, of each layer list of ``count`` layers (a
    codec's decoder, a config the model derived)."""
    import torch

    lists = []
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.ModuleList) and LIST_NAMES.search(name) and len(module):
            owner = name.rpartition(".")[0]
            parent = model.get_submodule(owner) if owner else model
            lists.append((owner, name, len(module), getattr(parent, "config", None)))
    out = [(o, n, k) for o, n, k, c in lists if c is config_object]
    return out or [(o, n, k) for o, n, k, _ in lists if k == count]


def trace(built, config_path: str, count: int | None = None) -> list[LayerTrace]:
    """Which layers of each layer list built from the config at ``config_path`` rotate:
    by the forward, else by the guards (see the module's docstring). Never raises."""
    import torch
    from _zoo_build import _objects

    model = built.model
    if model is None:
        return []
    objects = [o for o in _objects(built.config).values() if built.paths.get(id(o)) == config_path]
    owners = layer_owners(model, objects[0] if objects else None, count)
    if not owners:
        return []
    config = objects[0] if objects else built.config
    with contextlib.suppress(Exception):
        model.to(torch.bfloat16)  # meta: only the dtype changes
    model.eval()
    out = []
    with _Watch(built) as watch:
        for owner, layers, length in owners:
            result = None
            for extra in ({}, {"use_cache": False}):  # a cache of linear layers may fail
                result = watch.run(owner, layers, length, config, extra)
                if result.complete:
                    break
            if not result.complete:
                result = guards(model, owner, layers) or result
            out.append(result)
    return out


def _inputs(owner, config) -> dict:
    """Keyword arguments for a forward of ``owner``: 5 tokens, as ids or embeddings."""
    import torch

    try:
        params = inspect.signature(owner.forward).parameters
    except (TypeError, ValueError):
        params = {}
    kwargs = {}
    embeddings = None
    if "input_ids" in params:
        with contextlib.suppress(Exception):
            embeddings = owner.get_input_embeddings()
    width = getattr(config, "hidden_size", None)
    if embeddings is not None:
        kwargs["input_ids"] = torch.zeros(1, TOKENS, dtype=torch.long, device="meta")
    elif isinstance(width, int):
        name = "inputs_embeds" if "inputs_embeds" in params else "hidden_states"
        kwargs[name] = torch.zeros(1, TOKENS, width, dtype=torch.bfloat16, device="meta")
    else:
        raise ValueError("neither input ids nor a hidden size to make embeddings of")
    if "decoder_input_ids" in params:
        kwargs["decoder_input_ids"] = torch.zeros(1, TOKENS, dtype=torch.long, device="meta")
    if "encoder_hidden_states" in params and isinstance(width, int):
        kwargs["encoder_hidden_states"] = torch.zeros(
            1, TOKENS, width, dtype=torch.bfloat16, device="meta"
        )
    return kwargs


class _Watch:
    """The apply functions and rotary forwards wrapped, and the running module tracked."""

    def __init__(self, built):
        self.built = built
        self.names = {id(m): n for n, m in built.model.named_modules()}
        self.stack: list[str] = []
        self.started: set[str] = set()  # the modules whose forward began
        self.calls: list[tuple] = []  # (running module, function, its module, source)
        self.sources: dict[int, tuple[int, str]] = {}
        self.kept: list = []  # the traced tensors, alive so that their ids stay theirs
        self.undo: list = []

    def run(self, owner, layers, count, config, extra) -> LayerTrace:
        import torch

        model = self.built.model
        module = model.get_submodule(owner) if owner else model
        self.calls.clear()
        self.stack.clear()
        self.started.clear()
        result = LayerTrace(owner, layers, count)
        try:
            kwargs = {**_inputs(module, config), **extra}
            with quiet(), torch.no_grad():
                module(**kwargs)
        except Exception as error:
            result.error = f"the forward stopped: {err(error, 200)}"
        prefix = f"{layers}."
        for running, function, where_defined, source in self.calls:
            index, _, rest = running.removeprefix(prefix).partition(".")
            if running.startswith(prefix) and index.isdigit():
                applied = Applied(function, where_defined, rest, source)
                result.applied.setdefault(int(index), []).append(applied)
        for name in self.started:
            index = name.removeprefix(prefix).partition(".")[0]
            if name.startswith(prefix) and index.isdigit():
                result.applied.setdefault(int(index), [])
        result.reached = len(result.applied)
        return result

    def __enter__(self):
        import torch
        import transformers.masking_utils as masking

        names, stack, started = self.names, self.stack, self.started

        def before(module, args):
            name = names.get(id(module))
            stack.append(name if name is not None else "?")
            if name is not None and LIST_NAMES.search(name.rpartition(".")[0]):
                started.add(name)

        def after(module, args, output):
            if stack:
                stack.pop()

        hooks = torch.nn.modules.module
        self.undo.append(hooks.register_module_forward_pre_hook(before))
        self.undo.append(hooks.register_module_forward_hook(after))
        self._set(masking, "find_packed_sequence_indices", lambda position_ids: None)
        modules = {type(m).__module__ for m in self.built.model.modules()}
        for module_name in sorted(modules):
            module = sys.modules.get(module_name)
            if module is None or not module_name.startswith("transformers."):
                continue
            for name, fn in list(vars(module).items()):
                if inspect.isfunction(fn) and APPLY_NAME.search(name):
                    self._set(module, name, self._apply(fn, name, module_name))
        for index, construction in enumerate(self.built.constructions):
            for instance in construction.instances:
                self._set(instance, "forward", self._rotary(instance.forward, index))
        return self

    def _set(self, target, name, value):
        self.undo.append((target, name, vars(target).get(name, _MISSING)))
        setattr(target, name, value)

    def _apply(self, fn, name, module_name):
        calls, stack, sources = self.calls, self.stack, self.sources

        def wrapper(*args, **kwargs):
            source = None
            for value in [*args, *kwargs.values()]:
                items = value if isinstance(value, tuple | list) else (value,)
                source = next((sources[id(i)] for i in items if id(i) in sources), None)
                if source is not None:
                    break
            running = next((s for s in reversed(stack) if s != "?"), "")
            calls.append((running, name, module_name, source))
            return fn(*args, **kwargs)

        return wrapper

    def _rotary(self, forward, index):
        sources, kept = self.sources, self.kept

        def wrapper(*args, **kwargs):
            output = forward(*args, **kwargs)
            key = kwargs.get("layer_type")
            if key is None and len(args) >= 3 and isinstance(args[2], str):
                key = args[2]
            items = output if isinstance(output, tuple | list) else ()
            for item in (output, *items):
                sources[id(item)] = (index, key or "")
                kept.append(item)
            return output

        return wrapper

    def __exit__(self, *exc):
        for item in reversed(self.undo):
            if not isinstance(item, tuple):
                item.remove()
                continue
            target, name, original = item
            if original is _MISSING:
                delattr(target, name)
            else:
                setattr(target, name, original)
        return False


_MISSING = object()


# --------------------------------------------------------------------------------------
# The guards around the apply calls, when the forward cannot answer.


@dataclass(frozen=True)
class _Site:
    """A call of an apply function in a module's forward, and the ``if`` tests around it."""

    function: str
    module: str | None  # where the function is defined (None: a method)
    tests: tuple  # (source text, compiled test, the branch: True for the body)
    globals_: dict = field(hash=False, compare=False, default_factory=dict)


@functools.cache
def _sites(cls) -> tuple[_Site, ...]:
    """The apply calls of ``cls.forward`` with the conditions that guard them."""
    forward = getattr(cls, "forward", None)
    with contextlib.suppress(ValueError):
        forward = inspect.unwrap(forward)  # a decorated forward: the function under it
    if not inspect.isfunction(forward) or not forward.__module__.startswith("transformers."):
        return ()
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(forward)))
    except (OSError, TypeError, SyntaxError):
        return ()
    found: list[_Site] = []

    def visit(node, tests):
        if isinstance(node, ast.If):
            text = ast.unparse(node.test)
            code = compile(ast.Expression(node.test), "<guard>", "eval")
            for child in node.body:
                visit(child, (*tests, (text, code, True)))
            for child in node.orelse:
                visit(child, (*tests, (text, code, False)))
            return
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if APPLY_NAME.search(name):
                where = forward.__globals__.get("__name__") if isinstance(func, ast.Name) else None
                found.append(_Site(name, where, tests, forward.__globals__))
        for child in ast.iter_child_nodes(node):
            visit(child, tests)

    visit(tree, ())
    return tuple(found)


def _decide(site: _Site, module):
    """True or False when the site's guards decide on the module alone, else the test."""
    for text, code, branch in site.tests:
        try:
            value = bool(eval(code, site.globals_, {"self": module}))  # the family's own test
        except Exception:
            return text
        if value != branch:
            return False
    return True


def guards(model, owner: str, layers: str) -> LayerTrace | None:
    """Which layers rotate, by the guards of their apply calls; None if no layer has one."""
    layer_list = model.get_submodule(layers)
    result = LayerTrace(owner, layers, len(layer_list), method="guards")
    undecided = []
    for i, layer in enumerate(layer_list):
        calls, open_tests = [], []
        for where, sub in layer.named_modules():
            for site in _sites(type(sub)):
                answer = _decide(site, sub)
                if answer is True:
                    calls.append(Applied(site.function, site.module, where))
                elif answer is not False:
                    open_tests.append(answer)
        result.applied[i] = calls
        if open_tests and not calls:
            undecided.append((i, open_tests[0]))
    if not any(result.applied.values()) and not undecided:
        return None
    if undecided:
        i, text = undecided[0]
        result.error = (
            f"the guards leave {len(undecided)} layers undecided (layer {i}: `if {text}`"
            " depends on the forward's arguments)"
        )
    result.reached = result.count
    return result
