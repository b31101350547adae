"""Property-based fuzzing of the command line and the library's argument handling.

The property, for every input drawn: the call either succeeds with a result of the
documented shape and type, or fails the documented way. The command returns 0 (1 for
an unidentified table) with nothing on standard error, or 2 with one line
``posenc: error: ...`` and nothing on standard output. A library function returns, or
raises TypeError or ValueError (``posenc.TooLargeError`` is one) whose message names
one of the arguments. Any other exception fails the test, and hypothesis shrinks it.

Sizes are bounded so that valid calls stay small: every integer is either small
(-3 .. 40) or far beyond any machine (at least 10**12 elements, refused before
allocating); no size in between is ever drawn. Arrays have at most 3 axes of at most
6 entries. The profile is fixed (``derandomize=True``, no database, no deadline) so
that every run tries the same examples.

Failures hypothesis found while this file was written, now fixed: ``layer_norm``,
``softmax``, ``attention`` and ``feed_forward`` given complex numbers or text raised
NumPy's ``float() argument must be ...`` (naming no argument, and a complex array
lost its imaginary part with a warning); ``softmax`` with a non-integer ``axis`` or an
empty axis raised messages that name nothing; ``distance_profile`` of a scalar returned
a NumPy scalar, not the documented 0-d array; ``load_table(None)``,
``identify(table, candidates=<array>)`` and ``EncoderLayerParams.random(seed=0.0)``
raised errors from inside Python or NumPy. Found while bounding the sizes (kept below
as examples): ``posenc table --length 0 --width 10**12`` built 10**12 column names, and
``conventions.table`` of length 0 allocated its (d,) vectors, before any check.

Issue 32 (a hostile tester's 450 inputs to ``posenc identify`` and ``posenc table``)
adds configs with huge, zero, negative, wrongly typed and deeply nested values, paths
that are FIFOs, devices, sockets, directories, empty or sparse files declaring more
than the memory limit, and values of ``--memory``. Found while writing them: YaRN with
``beta_fast`` near 1e-320 (an OverflowError) and LongRoPE with a training length of 1
(``decimal.DivisionByZero``), in ``posenc.rope``.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import posenc
from posenc import conventions
from posenc.cli import main

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

ONE_LINE = re.compile(r"posenc: error: [^\n]+\n")

#: Far beyond memory in any combination with another size: refused before allocating.
HUGE = [10**12, 2**53, 2**53 + 1, 2**63, 2**64 + 7, 10**30]

small_ints = st.integers(-3, 40)
sizes = st.one_of(small_ints, st.sampled_from(HUGE), st.sampled_from([-(2**63), -(10**20)]))
floats = st.floats(allow_nan=True, allow_infinity=True)
words = st.text(max_size=12)
numbers_as_text = st.one_of(
    sizes.map(str),
    floats.map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-0", "0x10", "1_000", "", " 3", "٣"]),
    words,
)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process; its exit status, standard output and error."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # has a .buffer, as sys.stdout
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    out.flush()
    return status, out.buffer.getvalue().decode("utf-8", "replace"), err.getvalue()


def assert_documented(status: int, out: str, err: str, allowed=(0,)) -> None:
    if status == 2:
        assert out == "", out
        assert ONE_LINE.fullmatch(err), err
    else:
        assert status in allowed, (status, err)
        assert err == "", err
    assert "Traceback" not in err


# --------------------------------------------------------------------------------------
# posenc table


def option(name: str, values) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [name, v]))


table_args = st.tuples(
    option("--length", numbers_as_text),
    option("--width", numbers_as_text),
    option("--convention", st.one_of(st.sampled_from(sorted(conventions.CONVENTIONS)), words)),
    option("--base", numbers_as_text),
    option("--start", numbers_as_text),
    option("--dtype", st.sampled_from(["float16", "float32", "float64", "bfloat16", "int8"])),
    option("--format", st.sampled_from(["text", "csv", "json", "npy", "xml"])),
    option("--precision", numbers_as_text),
    option("--memory", numbers_as_text),
    st.lists(st.sampled_from(["--force", "--help", "--bogus", "-x", "--"]), max_size=1),
).map(lambda parts: ["table", *[token for part in parts for token in part]])


@FUZZ
@given(argv=table_args)
@example(argv=["table", "--length", "0", "--width", str(10**12)])  # found: names of 10**12
@example(argv=["table", "--length", "1000000000", "--width", "512"])  # the case
@example(argv=["table", "--length", "0", "--width", str(10**12), "--convention", "xlm"])
def test_table_arguments(argv):
    assert_documented(*run(argv))


@FUZZ
@given(
    length=st.integers(0, 12),
    width=st.integers(1, 12).map(lambda h: 2 * h),
    start=st.one_of(st.integers(0, 50), st.integers(2**53 - 12, 2**53)),
    fmt=st.sampled_from(["text", "csv", "json", "npy"]),
)
def test_valid_tables_have_the_documented_shape(tmp_path, length, width, start, fmt):
    path = tmp_path / f"t.{fmt}"
    argv = ["table", "--length", str(length), "--width", str(width), "--start", str(start)]
    status, out, err = run([*argv, "--format", fmt, "-o", str(path), "--force"])
    if start + length > 2**53:
        assert status == 2 and ONE_LINE.fullmatch(err)
        return
    assert (status, out, err) == (0, "", "")
    if fmt == "npy":
        table = np.load(path)
        assert table.shape == (length, width) and table.dtype == np.float64
    elif fmt == "csv":
        lines = path.read_text().splitlines()
        assert len(lines) == length + 1 and all(len(x.split(",")) == width + 1 for x in lines)
    elif fmt == "json":
        import json

        rows = json.loads(path.read_text())
        assert len(rows) == length and all(len(row) == width for row in rows)
    else:
        assert len(path.read_text().splitlines()) == length + 1


# --------------------------------------------------------------------------------------
# posenc identify, on files written here


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _npz_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


real_tables = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.float16]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
    elements=st.floats(-2, 2, width=16),
)


@st.composite
def table_files(draw) -> tuple[str, bytes]:
    """A file name and its bytes: valid tables, and many ways to be broken."""
    kind = draw(
        st.sampled_from(
            ["npy", "npz", "csv", "cut-npy", "cut-npz", "flip-npz", "bytes", "text", "pt"]
        )
    )
    if kind == "npy":
        if draw(st.booleans()):
            name = draw(st.sampled_from(sorted(conventions.CONVENTIONS)))
            rows, width = draw(st.integers(1, 12)), 2 * draw(st.integers(2, 8))
            return "t.npy", _npy_bytes(conventions.table(name, rows, width))
        return "t.npy", _npy_bytes(draw(real_tables))
    if kind in ("npz", "cut-npz", "flip-npz"):
        keys = draw(st.lists(st.sampled_from(["a", "b", "pe", "x.npy", ""]), max_size=3))
        data = _npz_bytes({f"{k}.npy": _npy_bytes(draw(real_tables)) for k in keys})
        if kind == "cut-npz":
            data = data[: draw(st.integers(0, len(data)))]
        if kind == "flip-npz" and data:
            at = draw(st.integers(0, len(data) - 1))
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
        return "t.npz", data
    if kind == "cut-npy":
        data = _npy_bytes(draw(real_tables))
        return "t.npy", data[: draw(st.integers(0, len(data)))]
    if kind == "csv":
        rows = draw(st.lists(st.lists(numbers_as_text, min_size=1, max_size=5), max_size=5))
        return "t.csv", "\n".join(",".join(row) for row in rows).encode("utf-8", "replace")
    if kind == "text":
        return draw(st.sampled_from(["t.csv", "t.npy", "t.npz"])), draw(st.text()).encode()
    if kind == "pt":
        return "t.pt", draw(st.binary(max_size=64))
    return draw(st.sampled_from(["t.csv", "t.npy", "t.npz", "t.txt"])), draw(st.binary())


def _whole_megabytes(text: str) -> bool:
    try:
        return int(text) >= 1
    except ValueError:
        return False


@FUZZ
@given(
    memory=st.one_of(st.integers(-3, 10**30).map(str), numbers_as_text),
    length=st.integers(0, 40),
    width=st.integers(1, 40).map(lambda h: 2 * h),
    command=st.sampled_from(["table", "identify"]),
)
def test_memory_is_a_limit_in_megabytes(tmp_path, memory, length, width, command):
    """A whole number >= 1 changes nothing for a small input; anything else is refused."""
    argv = ["table", "--length", str(length), "--width", str(width), "--format", "csv"]
    if command == "identify":
        path = tmp_path / "t.npy"
        np.save(path, posenc.sinusoidal(max(length, 2), width))
        argv = ["identify", str(path)]
    status, out, err = run([*argv, f"--memory={memory}"])  # "=": -inf is not an option
    if _whole_megabytes(memory):  # at least 1 MB: more than these inputs need
        assert (status, out, err) == run(argv)
    else:
        assert (status, out) == (2, "")
        assert err.startswith("posenc: error: argument --memory: must be a whole number of ")


#: Values of --memory: small ones that refuse most files, and malformed ones.
memory_values = st.one_of(st.sampled_from(["1", "2", "100", "1500"]), numbers_as_text)


@FUZZ
@given(
    file=table_files(),
    key=st.one_of(st.none(), st.sampled_from(["a", "b", "pe", "", "missing"])),
    candidates=st.one_of(st.none(), st.sampled_from(["paper", "fairseq,xlm", ",", "bogus"])),
    as_json=st.booleans(),
    memory=st.one_of(st.none(), memory_values),
)
def test_identify_arguments_and_files(tmp_path, file, key, candidates, as_json, memory):
    name, data = file
    path = tmp_path / name
    path.write_bytes(data)
    argv = ["identify", str(path)]
    argv += [] if key is None else ["--key", key]
    argv += [] if candidates is None else ["--candidates", candidates]
    argv += ["--json"] if as_json else []
    argv += [] if memory is None else ["--memory", memory]
    assert_documented(*run(argv), allowed=(0, 1))


# --------------------------------------------------------------------------------------
# posenc identify on hostile configs and on files of every kind (issue 32: 12 tracebacks
# and 8 hangs or memory blow-ups). Every outcome is a result, or status 2 and one line.

#: Values a hostile config gives a key: huge, zero, negative, of the wrong type.
config_values = st.one_of(
    st.sampled_from(
        [
            *(0, 1, 2, 3, -1, -64, 64, 128, 2**53, 2**53 + 1, 10**6, 10**399, -(10**399)),
            *(0.5, 64.0, 1e308, -1e308, 5e-324, 1e-300, math.nan, math.inf, -math.inf),
            *(True, False, None, "", "64", "linear", [], [64], [1.0, 2.0], {}, {"a": 1}),
        ]
    ),
    st.integers(-5, 300),
    st.floats(),
    st.text(max_size=6),
)

TOP_KEYS = (
    "head_dim", "qk_rope_head_dim", "hidden_size", "num_attention_heads", "rope_theta",
    "rotary_emb_base", "partial_rotary_factor", "rotary_pct", "max_position_embeddings",
    "original_max_position_embeddings", "text_config",
)  # fmt: skip
SCALING_KEYS = (
    "factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor",
    "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "attention_factor", "truncate",
    "short_factor", "long_factor", "rope_theta", "partial_rotary_factor",
)  # fmt: skip
SCHEME_NAMES = st.one_of(
    st.sampled_from(["default", "linear", "dynamic", "yarn", "longrope", "llama3", "su", "x"]),
    config_values,
)


@st.composite
def config_texts(draw) -> str:
    """The text of a config.json: keys with hostile values, sometimes deeply nested."""
    config: dict = {"head_dim": draw(st.sampled_from([64, 128, 96]))}
    for key in draw(st.lists(st.sampled_from(TOP_KEYS), unique=True, max_size=4)):
        config[key] = draw(config_values)
    if draw(st.booleans()):
        scaling = {draw(st.sampled_from(["type", "rope_type"])): draw(SCHEME_NAMES)}
        for key in draw(st.lists(st.sampled_from(SCALING_KEYS), unique=True, max_size=5)):
            scaling[key] = draw(config_values)
        if draw(st.booleans()):  # the parameters a scheme needs, so that some are read
            scaling.update(factor=4.0, low_freq_factor=1.0, high_freq_factor=4.0)
            config.setdefault("max_position_embeddings", 8192)
        place = draw(st.sampled_from(["rope_scaling", "rope_parameters"]))
        config[place] = {"full_attention": scaling} if draw(st.booleans()) else scaling
    text = json.dumps(config)  # NaN and Infinity as Python writes them
    depth = draw(st.sampled_from([0, 0, 3, 500, 100_000]))
    if depth:  # "junk": [[[...]]], as deep as json.loads cannot go
        text = text[:-1] + ', "junk": ' + "[" * depth + "]" * depth + "}"
    if draw(st.integers(0, 9)) == 0:
        text = draw(st.sampled_from(["[]", "null", "3", '"x"', "{", text[: len(text) // 2]]))
    return text


@FUZZ
@given(
    text=config_texts(),
    layer=st.one_of(st.none(), st.sampled_from(["full_attention", "x"])),
    rope=st.one_of(st.none(), st.sampled_from(["speeds", "cache"])),
)
@example(text='{"head_dim": 64, "rope_theta": ' + "9" * 400 + "}", layer=None, rope=None)
@example(text='{"hidden_size": 64, "num_attention_heads": 0}', layer=None, rope=None)
@example(text='{"a": ' * 100_000 + "1" + "}" * 100_000, layer=None, rope=None)
def test_identify_hostile_configs(tmp_path, text, layer, rope):
    path = tmp_path / "config.json"
    path.write_text(text)
    argv = ["identify", str(path)]
    argv += [] if layer is None else ["--layer-type", layer]
    argv += [] if rope is None else ["--rope", rope]
    assert_documented(*run(argv), allowed=(0, 1))


FILE_KINDS = ("fifo", "zero", "null", "directory", "socket", "empty", "missing", "huge")


def make_file(directory: Path, kind: str, name: str, size: int) -> Path:
    """A path of ``kind``: what the command must refuse without blocking or reading it all."""
    path = directory / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("zero", "null"):
        path.symlink_to(f"/dev/{kind}")
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()  # the name stays, a socket nobody listens on
    elif kind == "empty":
        path.touch()
    elif kind == "huge":  # sparse: a header that declares ``size`` bytes, then nothing
        with open(path, "wb") as file:
            if name.lower().endswith(".npy"):
                np.lib.format.write_array_header_1_0(
                    file, {"descr": "<f8", "fortran_order": False, "shape": (size // 8,)}
                )
            file.truncate(size)
    return path


@FUZZ
@given(
    kind=st.sampled_from(FILE_KINDS),
    suffix=st.sampled_from([".json", ".JSON", ".npy", ".npz", ".csv", ".pt", ".txt", ""]),
    size=st.sampled_from([17 * 10**6, 300 * 10**6, 3 * 10**9]),
    memory=st.one_of(st.none(), st.sampled_from(["1", "100", "1500"])),
    rope=st.one_of(st.none(), st.sampled_from(["speeds", "cache", "weights"])),
)
def test_identify_files_of_every_kind(kind, suffix, size, memory, rope):
    with tempfile.TemporaryDirectory(dir="/tmp") as directory:  # short: a socket's name
        path = make_file(Path(directory), kind, f"t{suffix}", size)
        argv = ["identify", str(path)]
        argv += [] if memory is None else ["--memory", memory]
        argv += [] if rope is None else ["--rope", rope, "--head-dim", "8"]
        status, out, err = run(argv)
    assert_documented(status, out, err)
    assert status == 2, (kind, suffix, out)  # none of these is a table


# --------------------------------------------------------------------------------------
# posenc exercise list / show


@FUZZ
@given(
    argv=st.one_of(
        st.just(["exercise", "list"]),
        st.tuples(st.sampled_from(["E1", "E2", "E3", "e1", "E4", "", "E1 "]), words).map(
            lambda t: ["exercise", "show", t[0]]
        ),
        st.lists(words, max_size=3).map(lambda w: ["exercise", *w]),
    )
)
def test_exercise_list_and_show(argv):
    if argv[1:2] == ["check"]:
        argv = ["exercise", "show", *argv[2:]]
    assert_documented(*run(argv))


# --------------------------------------------------------------------------------------
# The library.

anything = st.one_of(
    st.none(),
    st.booleans(),
    sizes,
    floats,
    st.complex_numbers(max_magnitude=10),
    words,
    st.sampled_from(["interleaved", "half", "paper", "float32", "relu", "bfloat16"]),
    st.lists(small_ints, max_size=6),
    hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.int64, np.bool_, np.complex128]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=6),
    ),
)

#: Public functions, and the words their messages may use for their arguments.
FUNCTIONS = {
    "sinusoidal": posenc.sinusoidal,
    "frequencies": posenc.frequencies,
    "wavelengths": posenc.wavelengths,
    "shift_matrix": posenc.shift_matrix,
    "rotary": posenc.rotary,
    "rotary_angles": posenc.rotary_angles,
    "rotary_matrix": posenc.rotary_matrix,
    "pairing_permutation": posenc.pairing_permutation,
    "dot_profile": posenc.dot_profile,
    "distance_profile": posenc.distance_profile,
    "first_rise": posenc.first_rise,
    "causal_mask": posenc.causal_mask,
    "softmax": posenc.softmax,
    "attention": posenc.attention,
    "multi_head_attention": posenc.multi_head_attention,
    "feed_forward": posenc.feed_forward,
    "layer_norm": posenc.layer_norm,
    "encoder_layer": posenc.encoder_layer,
    "EncoderLayerParams.random": posenc.EncoderLayerParams.random,
    "identify": posenc.identify,
    "load_table": posenc.load_table,
    "exact_integer_limit": posenc.exact_integer_limit,
    "to_bfloat16": posenc.to_bfloat16,
    "conventions.table": conventions.table,
    "conventions.columns": conventions.columns,
    "conventions.concatenated_order": conventions.concatenated_order,
    "conventions.rotary_pairs": conventions.rotary_pairs,
}

#: Words a message may use for an argument, beside its name ("k" for a shift, ...).
ALIASES = {
    "offsets": ("offset",),
    "name": ("convention",),
    "dtype": ("type",),
    "path": ("cannot read", "key applies"),  # load_table names the file it cannot read
}


@st.composite
def calls(draw):
    """A function, and arguments for each of its parameters (keywords at random)."""
    name = draw(st.sampled_from(sorted(FUNCTIONS)))
    function = FUNCTIONS[name]
    args, kwargs = [], {}
    for parameter in inspect.signature(function).parameters.values():
        required = parameter.default is inspect.Parameter.empty
        if not required and not draw(st.booleans()):
            continue
        value = draw(anything)
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY or (not required and kwargs):
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return name, function, args, kwargs


def names_an_argument(message: str, function, passed: dict) -> bool:
    names = set(inspect.signature(function).parameters)
    for name in list(names):
        names.update(ALIASES.get(name, ()))
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", message) for n in names)


@settings(FUZZ, max_examples=1500)
@given(call=calls())
def test_library_arguments(call):
    public = {n for n in posenc.__all__ if inspect.isfunction(getattr(posenc, n, None))}
    assert public <= set(FUNCTIONS)  # every public function is fuzzed
    name, function, args, kwargs = call
    try:
        result = function(*args, **kwargs)
    except (TypeError, ValueError) as error:
        message = str(error)  # may quote an array over several lines: the CLI joins them
        assert names_an_argument(message, function, kwargs), f"{name}: {message}"
        return
    check_result(name, result, args, kwargs)


def check_result(name: str, result, args, kwargs) -> None:
    """The documented type (and, where the arguments fix it, shape) of a result."""
    if name in ("exact_integer_limit", "first_rise"):
        assert isinstance(result, int) and result > 0
    elif name == "identify":
        assert isinstance(result, posenc.identify.__globals__["Identification"])
    elif name == "load_table":
        assert isinstance(result, np.ndarray)
    elif name == "EncoderLayerParams.random":
        assert isinstance(result, posenc.EncoderLayerParams)
    elif name == "conventions.columns":
        kinds, speeds = result
        assert len(kinds) == speeds.shape[0] and speeds.dtype == np.float64
    else:
        assert isinstance(result, np.ndarray), type(result)
        if name in ("sinusoidal", "conventions.table"):
            length, width = [*args, None, None, None][int(name != "sinusoidal") :][:2]
            if isinstance(length, int) and isinstance(width, int):
                assert result.shape == (length, width)
        if name in ("frequencies", "wavelengths"):
            assert result.shape == (args[0] // 2,) and result.dtype == np.float64
        if name in ("shift_matrix", "rotary_matrix"):
            assert result.shape == (args[1], args[1])
        if name == "causal_mask":
            assert result.shape == (args[0], args[0]) and result.dtype == np.bool_


# --------------------------------------------------------------------------------------
# A few runs in a child process: the exit status and no traceback, as a shell sees them.


@pytest.mark.parametrize(
    "argv",
    [
        ["table", "--length", "1000000000", "--width", "512"],
        ["table", "--length", "0", "--width", str(10**12)],
        ["identify", "corrupt.npz"],
    ],
)
def test_in_a_child_process(tmp_path: Path, argv):
    (tmp_path / "corrupt.npz").write_bytes(b"PK\x03\x04 not really a zip")
    child = subprocess.run(
        [sys.executable, "-m", "posenc", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert child.returncode == 2
    assert child.stdout == ""
    assert ONE_LINE.fullmatch(child.stderr), child.stderr
