#!/usr/bin/env python3
"""Writes a fuzz target's seed corpus from the tests' fixtures.

    fuzz-seeds.py TARGET OUT_DIR

Every target takes the hand-written seeds in fuzz/seeds/TARGET, and:
fx_text: every FX dump the FX reader and shape inference tests hold as C++ string literals (raw
  R"X(...)X" strings and runs of adjacent "..." literals, the broken forms of
  the error tests included) and the PT2 captures' FX dumps (*.py).
pattern_file: resources/patterns/*.patterns, the examples in
  docs/pattern-language.md and the pattern tests' literals.
graph_json: the graph JSON tests' literals and docs/graph-json.md's example
  (fuzz/seeds/graph_json holds FX test fixtures as writeGraphJson wrote them).
export_json: tests/fixtures/pt2/*.json, the torch.export tests' literals and
  the PT2 captures' exported_program.json.
pt2_archive: archives of both layouts built here from tests/fixtures/pt2 (raw
  and pickled weights, torch.save state dicts in little- and big-endian), and
  the PT2 captures' exported.pt2; each as zip bytes and as the "FBZ" entry
  listing fuzz/pt2_archive_fuzz.cpp zips itself.
pass_config: bench/*.json, tests/pt2/configs/*.json and the pass config
  tests' literals.
torch_trace: the sample TORCH_TRACE logs of ../shared/pt2-samples/trace and
  the logs the pt2 tests make (build/pt2-traces), each cut after its last
  whole line within 64 KiB (a cut log is a log: the reader must say so).
torchscript: the small TorchScript fixtures the torch tests trace
  (tests/fixtures/make_fixtures.py; fuzz/seeds/torchscript holds copies).
The PT2 captures and traced fixtures are read from the build folder
($FUSEBOX_BUILD_DIR, default build/) when the tests have made them.
Seeds over the fuzzers' -max_len (64 KiB) are left out: cut, they would no
longer be what they were. Each seed is one file named by its content's hash,
so reruns add nothing twice.
"""
import hashlib
import io
import json
import os
import pathlib
import re
import struct
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = pathlib.Path(os.environ.get("FUSEBOX_BUILD_DIR", ROOT / "build"))
MAX_LEN = 65536
RAW = re.compile(r'R"([A-Za-z]*)\((.*?)\)\1"', re.S)
PLAIN_RUN = re.compile(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+')
PLAIN = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)


def unescape(body):
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body)


def literals(source):
    yield from (m.group(2) for m in RAW.finditer(source))
    for run in PLAIN_RUN.finditer(RAW.sub("", source)):
        yield "".join(unescape(m.group(1)) for m in PLAIN.finditer(run.group(0)))


def literals_of(paths, keep):
    for path in paths:
        yield from (t for t in literals(path.read_text()) if keep(t))


def files(directory, pattern="*"):
    if directory.is_dir():
        yield from (p.read_bytes() for p in sorted(directory.rglob(pattern)) if p.is_file())


def hand_written(target):
    yield from files(ROOT / "fuzz" / "seeds" / target)


TESTS = ROOT / "tests" / "core"


def fx_seeds():
    # (The shape inference tests' dumps too: symbolic sizes, for the shape
    # rules the target runs on what it reads.)
    paths = sorted(TESTS.glob("io_fx_*.cpp")) + sorted(TESTS.glob("Fx*Fixtures.h"))
    paths.append(TESTS / "shape_inference_tests.cpp")
    yield from literals_of(paths, lambda t: "def forward" in t or "graph():" in t)
    yield from files(BUILD / "pt2-fixtures", "*.py")


def pattern_seeds():
    yield from files(ROOT / "resources" / "patterns", "*.patterns")
    yield from (m.group(1) for m in FENCE.finditer((ROOT / "docs" / "pattern-language.md").read_text())
                if "pattern " in m.group(1))
    paths = [TESTS / "io_pattern_file_tests.cpp"] + sorted((ROOT / "tests" / "patterns").glob("*.cpp"))
    yield from literals_of(paths, lambda t: "pattern" in t or "match" in t)


def json_literals(paths, keep=lambda t: True):
    return literals_of(paths, lambda t: t.lstrip().startswith("{") and keep(t))


def graph_json_seeds():
    yield from json_literals([TESTS / "io_graph_json_tests.cpp"])
    yield from (m.group(1) for m in FENCE.finditer((ROOT / "docs" / "graph-json.md").read_text()))


def export_json_seeds():
    yield from files(ROOT / "tests" / "fixtures" / "pt2", "*.json")
    yield from json_literals([TESTS / "io_exported_program_tests.cpp"])
    yield from files(BUILD / "pt2-fixtures", "exported_program.json")


def pass_config_seeds():
    yield from files(ROOT / "bench", "*.json")
    yield from files(ROOT / "tests" / "pt2" / "configs", "*.json")
    yield from json_literals([TESTS / "io_pass_config_tests.cpp"])


# --- .pt2 archives (the layouts tests/core/io_exported_program_tests.cpp builds) ---

def stored_zip(entries):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return out.getvalue()


def listing(entries, marker=b"==> "):
    """The "FBZ" form of an archive: each entry a "==> name" line and its bytes;
    a zip inside (a torch.save file) is listed the same way, with "--> "."""
    out = b"FBZ"
    for name, data in entries:
        if data.startswith(b"PK\x03\x04") and marker == b"==> ":
            data = listing(zip_entries(data), b"--> ")
        out += b"\n" + marker + name.encode() + b"\n" + data
    return out


def zip_entries(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def floats(values, order="<"):
    return struct.pack(order + "%df" % len(values), *values)


def pickle_int(v):
    return b"J" + struct.pack("<i", v)


def pickle_str(text):
    return b"X" + struct.pack("<I", len(text)) + text.encode()


def pickle_ints(values):
    return b"(" + b"".join(pickle_int(v) for v in values) + b"t"


def tensor_pickle(storage, numel, offset, sizes, strides):
    """A _rebuild_tensor_v2 of a FloatStorage record, as torch.save pickles it."""
    p = b"ctorch._utils\n_rebuild_tensor_v2\n("
    p += b"(" + pickle_str("storage") + b"ctorch\nFloatStorage\n" + pickle_str(storage) + pickle_str("cpu")
    p += pickle_int(numel) + b"tQ" + pickle_int(offset) + pickle_ints(sizes) + pickle_ints(strides)
    return p + b"\x89ccollections\nOrderedDict\n)RtR"


def state_dict_pickle(tensors):
    """{key: tensor}, protocol 2."""
    p = b"\x80\x02}q\x00("
    for key, *tensor in tensors:
        p += pickle_str(key) + tensor_pickle(*tensor)
    return p + b"u."


def torch_save(pickle, storages, byteorder="little"):
    entries = [("archive/data.pkl", pickle), ("archive/byteorder", byteorder.encode())]
    entries += [("archive/data/" + key, data) for key, data in storages]
    return stored_zip(entries + [("archive/version", b"3\n")])


def payload_meta(path_name, sizes, strides, offset=0, pickled=False):
    meta = {"dtype": 7, "requires_grad": False, "device": {"type": "cpu", "index": None},
            "storage_offset": {"as_int": offset}, "layout": 7,
            "sizes": [{"as_int": s} for s in sizes], "strides": [{"as_int": s} for s in strides]}
    return {"path_name": path_name, "is_param": True, "use_pickle": pickled, "tensor_meta": meta}


def fixture_archives():
    program = (ROOT / "tests" / "fixtures" / "pt2" / "split_cat_linear.json").read_bytes()
    weight, bias, shared = floats(range(32)), floats([0.5, 1.5, 2.5, 3.5]), floats(range(100, 110))
    config = {"config": {"tower.proj.weight": payload_meta("weight_0", [4, 8], [8, 1]),
                         "tower.proj.bias": payload_meta("weight_1.pt", [4], [1], pickled=True),
                         "tower.scale": payload_meta("weight_2", [4], [2], 2)}}
    bias_save = torch_save(b"\x80\x02" + tensor_pickle("0", 4, 0, [4], [1]) + b".", [("0", bias)])
    yield [("archive/archive_format", b"pt2"), ("archive/archive_version", b"0"),
           ("archive/models/model.json", program),
           ("archive/data/weights/model_weights_config.json", json.dumps(config).encode()),
           ("archive/data/weights/weight_0", weight), ("archive/data/weights/weight_1.pt", bias_save),
           ("archive/data/weights/weight_2", shared),
           ("archive/data/constants/model_constants_config.json", b'{"config": {}}'),
           ("archive/.data/version", b"6\n")]
    for order, byteorder in (("<", "little"), (">", "big")):
        state = torch_save(state_dict_pickle([("tower.proj.weight", "0", 42, 0, [4, 8], [8, 1]),
                                              ("tower.proj.bias", "1", 4, 0, [4], [1]),
                                              ("tower.scale", "0", 42, 32, [4], [2])]),
                           [("0", floats(range(42), order)), ("1", floats([0.5, 1.5, 2.5, 3.5], order))], byteorder)
        yield [("serialized_exported_program.json", program), ("serialized_state_dict.pt", state),
               ("serialized_constants.pt", torch_save(b"\x80\x02}q\x00.", [])), ("version", b"8.8")]


def pt2_seeds():
    archives = list(fixture_archives())
    directory = BUILD / "pt2-fixtures"
    if directory.is_dir():
        for path in sorted(directory.rglob("*.pt2")):
            if path.stat().st_size <= 4 * MAX_LEN:
                archives.append(zip_entries(path.read_bytes()))
    for entries in archives:
        yield stored_zip(entries)
        yield listing(entries)
    yield from hand_written("pt2_archive")


def torchscript_seeds():
    directory = BUILD / "fixtures"
    if directory.is_dir():
        yield from (p.read_bytes() for p in sorted(directory.glob("*.pt")) if p.stat().st_size <= MAX_LEN)


def cut_log(data):
    """The log's first whole lines that fit the fuzzers' -max_len."""
    if len(data) <= MAX_LEN:
        return data
    return data[: data.rfind(b"\n", 0, MAX_LEN) + 1]


def torch_trace_seeds():
    for directory in (ROOT.parent / "shared" / "pt2-samples" / "trace", BUILD / "pt2-traces"):
        if directory.is_dir():
            yield from (cut_log(p.read_bytes()) for p in sorted(directory.rglob("*.log")) if p.is_file())


SEEDS = {
    "fx_text": fx_seeds,
    "pattern_file": pattern_seeds,
    "graph_json": graph_json_seeds,
    "export_json": export_json_seeds,
    "pt2_archive": pt2_seeds,
    "pass_config": pass_config_seeds,
    "torchscript": torchscript_seeds,
    "torch_trace": torch_trace_seeds,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in SEEDS:
        sys.exit(__doc__.strip())
    target = sys.argv[1]
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    seeds = SEEDS[target]()
    if target != "pt2_archive":
        seeds = [*seeds, *hand_written(target)]
    for seed in seeds:
        data = seed.encode() if isinstance(seed, str) else seed
        if len(data) > MAX_LEN:
            continue
        (out / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
        count += 1
    print(f"{count} seeds in {out}")


if __name__ == "__main__":
    main()
