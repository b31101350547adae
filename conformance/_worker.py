"""Build real library tables in a process of their own and save them to an ``.npz`` file.

Keras reads its backend once, at import, from ``KERAS_BACKEND``; TensorFlow, JAX and
torch also do not always share one process well. So each of these libraries runs
here, in a fresh interpreter started by the tests:

    python conformance/_worker.py keras BACKEND CASES.json OUT.npz
    python conformance/_worker.py tensor2tensor - CASES.json OUT.npz

``CASES.json`` is a list of ``[key, length, width, start, dtype]``; each table is
saved under its key. A case the library refuses is saved as a one-line message
under ``"error:" + key``, so the test can compare refusals too.
"""

from __future__ import annotations

import json
import os
import sys
import types

import numpy as np


def _keras_tables(backend: str, cases: list) -> dict[str, np.ndarray]:
    os.environ["KERAS_BACKEND"] = backend
    import keras
    import keras_hub

    if backend == "jax":
        import jax

        # Else JAX quietly computes float64 as float32. (Keras itself still takes ops.sin
        # and ops.cos of a float64 tensor in float32 on JAX: see README.md.)
        jax.config.update("jax_enable_x64", True)
    out: dict[str, np.ndarray] = {"meta:keras": np.array(keras.__version__)}
    out["meta:keras_hub"] = np.array(keras_hub.__version__)
    for key, length, width, start, dtype in cases:
        try:
            layer = keras_hub.layers.SinePositionEncoding(dtype=dtype)
            inputs = np.zeros((1, length, width), dtype=dtype)  # (1, L, d): only its shape counts
            table = layer(inputs, start_index=start)  # (1, L, d)
            out[key] = np.asarray(keras.ops.convert_to_numpy(table))[0]  # (L, d)
        except Exception as error:  # a refusal is data here
            out["error:" + key] = np.array(f"{type(error).__name__}: {error}")
    return out


def _stub_tensor2tensor_imports() -> list[str]:
    """Stand-ins for three packages tensor2tensor imports at module level but never
    calls on the way to ``get_timing_signal_1d``; none has a release for TensorFlow 2.21.

    ``tensor2tensor.utils.contrib`` imports ``tensorflow_addons`` and ``tf_slim`` when
    ``tf.contrib`` is missing (TensorFlow 2); ``common_layers`` and
    ``common_attention`` import ``tensorflow_probability`` as ``tfp``.
    """
    stubbed = []
    for name in ("tensorflow_addons", "tf_slim", "tensorflow_probability"):
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
            stubbed.append(name)
    return stubbed


def _tensor2tensor_tables(cases: list) -> dict[str, np.ndarray]:
    stubbed = _stub_tensor2tensor_imports()
    from tensor2tensor.layers import common_attention

    out: dict[str, np.ndarray] = {"meta:stubbed": np.array(",".join(stubbed))}
    for key, length, width, start, _dtype in cases:
        try:
            signal = common_attention.get_timing_signal_1d(length, width, start_index=start)
            out[key] = signal.numpy()[0]  # (L, d)
        except Exception as error:  # a refusal is data here
            out["error:" + key] = np.array(f"{type(error).__name__}: {error}")
    return out


def main(argv: list[str]) -> int:
    library, backend, cases_path, out_path = argv
    with open(cases_path, encoding="utf-8") as handle:
        cases = json.load(handle)
    if library == "keras":
        tables = _keras_tables(backend, cases)
    elif library == "tensor2tensor":
        tables = _tensor2tensor_tables(cases)
    else:
        print(f"library must be 'keras' or 'tensor2tensor', got {library!r}", file=sys.stderr)
        return 2
    np.savez(out_path, **tables)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
