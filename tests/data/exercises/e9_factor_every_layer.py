"""E9 with the global layers' factor put on every layer, as in ferrox#39."""

import numpy as np


def layer_types(part, n):
    if part.get("layer_types"):
        return list(part["layer_types"])
    pattern = part.get("sliding_window_pattern")
    if pattern is None and part.get("model_type") == "gemma3_text":
        pattern = 6
    if pattern is None:
        return ["all"] * n
    return ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention" for i in range(n)]


def rotating(part, types, n):
    model = part.get("model_type")
    flags = part.get("no_rope_layers")
    by_index = "no_rope_layers" in part or "no_rope_layer_interval" in part
    if by_index or model in ("llama4_text", "smollm3"):
        if not flags:  # empty or missing: filled from the interval
            interval = part.get("no_rope_layer_interval", 4)
            flags = [int((i + 1) % interval != 0) for i in range(n)]
        return [flag == 1 for flag in flags]  # 1: the layer rotates, despite the name
    if model == "cohere2":
        return [t == "sliding_attention" for t in types]
    return [True] * n


def parameters(part, kind):
    """(base, factor) of the layers of type ``kind``."""
    nested = part.get("rope_parameters") or {}
    if kind in nested:  # nested by layer type, but one factor for all: the largest
        factor = max(e.get("factor", 1.0) for e in nested.values())
        return nested[kind]["rope_theta"], factor
    if part.get("model_type") == "gemma3_text":
        factor = (part.get("rope_scaling") or {}).get("factor", 1.0)  # every layer
        if kind == "full_attention":
            return part.get("rope_theta", 1000000.0), factor
        return part.get("rope_local_base_freq", 10000.0), factor
    entry = part.get("rope_scaling") or part.get("rope_parameters") or {}
    base = part["rope_theta"] if part.get("rope_scaling") else entry.get("rope_theta")
    return base if base is not None else part["rope_theta"], entry.get("factor", 1.0)


def solve(config):
    part = config.get("text_config", config)
    n = part["num_hidden_layers"]
    types = layer_types(part, n)
    rows = []
    for kind, turns in zip(types, rotating(part, types, n), strict=True):
        rows.append([1.0, *parameters(part, kind)] if turns else [0.0, 0.0, 0.0])
    return np.array(rows, dtype=float)  # (n, 3)
