"""Writes torch.export archives of one small model in every layout PyTorch 2.x
has written, for tests/pt2/pt2_export_archive_tests.cpp. Run by the PyTorch 2
of the bridge (python3 - < this file); prints one line
FUSEBOX-ARCHIVES:{json} with the files (base64), PyTorch's own op histogram
and node count, and the weights each file must yield (base64 of their
contiguous bytes).

The layouts (torch 2.6 writes the first; the others are made from it the way
the torch versions named below wrote them):
- save.pt2: torch.export.save of torch 2.6 (also 2.3-2.5): serialized_exported_program.json
  with schema_version {major, minor}, serialized_state_dict.pt and
  serialized_constants.pt (torch.save zips), serialized_example_inputs.pt, version "8.2".
- schema3.pt2: torch 2.2. Its schema.py had a bare number, SCHEMA_VERSION = 3:
  pytorch/pytorch#115712 "[export] Update schema version" raised it for the
  2.2 release (cherry-picked to release/2.2 as #115952), and #116462 "Update
  schema versioning format" made it {major, minor} only after the 2.2 branch.
  The rest of that schema (torch/_export/serde/schema.py of the time): an
  ExportedProgram.dialect, TensorMeta.storage_offset a bare int,
  OptionalTensorArgument.as_tensor a bare name, no torch_version; the
  archive's version entry holds "3".
- schema1.pt2: torch 2.1 (SCHEMA_VERSION = 1, torch/_export/serde/schema.py
  of that release): graph_module.signature as maps {inputs_to_parameters,
  inputs_to_buffers, user_inputs, user_outputs, buffers_to_mutate,
  backward_signature}, a call_spec, tensor_values entries wrapped as
  TensorValue{meta}, equality_constraints, get_attr tensor constants kept
  inside the graph as graph.constants{name: base64 of torch.save(tensor)};
  torch._export.save wrote the state dict (torch.save bytes) as
  serialized_state_dict.json and the version entry "1".
- package.pt2: the pt2 package layout of torch >= 2.7 (torch/export/pt2_archive):
  archive/archive_format "pt2", archive/models/model.json, raw weight payloads
  data/weights/weight_N with data/weights/model_weights_config.json, pickled
  constant payloads (use_pickle) data/constants/tensor_N with their config.
- program.json: the bare ExportedProgram JSON.
- bad-schema-version.pt2, bad-state-dict.pt2: malformed archives.
"""
import base64
import copy
import ctypes
import io
import json
import sys
import zipfile

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        # A non-persistent buffer (ExportedProgram.constants), a strided
        # (transposed) persistent buffer, and a plain tensor attribute that
        # torch.export lifts as a tensor constant.
        self.register_buffer("shift", torch.linspace(-1.0, 1.0, 3), persistent=False)
        self.register_buffer("mix", torch.arange(6.0).reshape(2, 3).t())
        self.scale = torch.tensor([0.5, 2.0, -1.5])

    def forward(self, x):
        y = self.bn(self.fc(x)) + self.shift
        return torch.relu(y * self.scale) @ self.mix


def raw_bytes(t):
    t = t.detach().contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def storage_bytes(t):
    s = t.detach().untyped_storage()
    return ctypes.string_at(s.data_ptr(), s.nbytes())


def torch_save(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def b64(data):
    return base64.b64encode(data).decode("ascii")


def expected(tensors):
    return {k: {"dtype": str(t.dtype), "shape": list(t.shape), "data": b64(raw_bytes(t))} for k, t in tensors.items()}


def zip_bytes(entries):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in entries:
            z.writestr(name, data)
    return buffer.getvalue()


def read_zip(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(info.filename, z.read(info.filename)) for info in z.infolist()]


def schema3(program):
    """The ExportedProgram JSON as torch 2.2 wrote it."""
    p = copy.deepcopy(program)
    p["schema_version"] = 3
    p.pop("torch_version", None)
    p.pop("verifiers", None)
    p["dialect"] = "ATEN"
    graph = p["graph_module"]["graph"]
    for meta in graph["tensor_values"].values():
        meta["storage_offset"] = meta["storage_offset"]["as_int"]
    for node in graph["nodes"]:
        for named in node["inputs"]:
            items = named["arg"].get("as_optional_tensors")
            for item in items or []:
                if "as_tensor" in item:
                    item["as_tensor"] = item["as_tensor"]["name"]
    return p


def nn_module_stack_21(text):
    """"key,path,type;..." -> torch 2.1's "key:(path,type);..."."""
    out = []
    for entry in text.split(";"):
        key, rest = entry.split(",", 1)
        path, type_ = rest.rsplit(",", 1)
        out.append("%s:(%s,%s)" % (key, path, type_))
    return ";".join(out)


def schema1(program, ep):
    """The ExportedProgram JSON as torch 2.1 wrote it; its tensor constants
    move into graph.constants."""
    p = copy.deepcopy(program)
    p["schema_version"] = 1
    p.pop("torch_version", None)
    p.pop("verifiers", None)
    p["equality_constraints"] = []
    module = p["graph_module"]
    graph = module["graph"]
    signature = module.pop("signature")
    params, buffers, user_inputs, embedded = {}, {}, [], {}
    for spec in signature["input_specs"]:
        kind, body = next(iter(spec.items()))
        if kind == "parameter":
            params[body["arg"]["name"]] = body["parameter_name"]
        elif kind == "buffer":
            buffers[body["arg"]["name"]] = body["buffer_name"]
        elif kind == "tensor_constant":
            embedded[body["arg"]["name"]] = body["tensor_constant_name"]
        elif kind == "user_input":
            user_inputs.append(body["arg"]["as_tensor"]["name"])
    user_outputs = [next(iter(s.values()))["arg"]["as_tensor"]["name"] for s in signature["output_specs"]]
    module["signature"] = {
        "inputs_to_parameters": params, "inputs_to_buffers": buffers, "user_inputs": user_inputs,
        "user_outputs": user_outputs, "buffers_to_mutate": {}, "backward_signature": None}
    module["call_spec"] = {"in_spec": "", "out_spec": ""}
    graph["inputs"] = [a for a in graph["inputs"] if a["as_tensor"]["name"] not in embedded]
    graph["constants"] = {name: b64(torch_save(ep.constants[key])) for name, key in embedded.items()}
    for name in embedded:
        graph["tensor_values"].pop(name)
    for name, meta in graph["tensor_values"].items():
        meta["storage_offset"] = meta["storage_offset"]["as_int"]
        graph["tensor_values"][name] = {"meta": meta}
    for node in graph["nodes"]:
        stack = node.get("metadata", {}).get("nn_module_stack")
        if stack:
            node["metadata"]["nn_module_stack"] = nn_module_stack_21(stack)
    return p, embedded


def package(program, ep):
    """The pt2 package layout of torch >= 2.7, with raw weights and pickled constants."""
    from torch._export.serde.serialize import EnumEncoder, _dataclass_to_dict, serialize_tensor_meta

    def meta(t):
        return json.loads(json.dumps(_dataclass_to_dict(serialize_tensor_meta(t)), cls=EnumEncoder))

    entries = [("archive/archive_format", b"pt2"), ("archive/archive_version", b"0"),
               ("archive/models/model.json", json.dumps(program).encode())]
    weights = {}
    for i, (fqn, t) in enumerate(ep.state_dict.items()):
        entries.append(("archive/data/weights/weight_%d" % i, storage_bytes(t)))
        weights[fqn] = {"path_name": "weight_%d" % i, "is_param": isinstance(t, nn.Parameter),
                        "use_pickle": False, "tensor_meta": meta(t)}
    constants = {}
    for i, (fqn, t) in enumerate(ep.constants.items()):
        entries.append(("archive/data/constants/tensor_%d" % i, torch_save(t)))
        constants[fqn] = {"path_name": "tensor_%d" % i, "is_param": False, "use_pickle": True, "tensor_meta": meta(t)}
    entries.append(("archive/data/weights/model_weights_config.json", json.dumps({"config": weights}).encode()))
    entries.append(("archive/data/constants/model_constants_config.json", json.dumps({"config": constants}).encode()))
    return zip_bytes(entries)


def main():
    torch.manual_seed(0)
    model = Net().eval()
    with torch.no_grad():
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-0.5, 0.5)
        model.bn.running_mean.copy_(torch.randn(3))
        model.bn.running_var.uniform_(0.5, 2.0)
    ep = torch.export.export(model, (torch.randn(2, 4),))
    saved = io.BytesIO()
    torch.export.save(ep, saved)
    save_entries = read_zip(saved.getvalue())
    program = json.loads(dict(save_entries)["serialized_exported_program.json"])

    weights = dict(ep.state_dict)
    weights.update(ep.constants)
    files, expect = {}, {}
    files["save.pt2"] = saved.getvalue()
    expect["save.pt2"] = expected(weights)

    files["schema3.pt2"] = zip_bytes(
        [(n, json.dumps(schema3(program)).encode() if n == "serialized_exported_program.json"
          else b"3" if n == "version" else d) for n, d in save_entries])
    expect["schema3.pt2"] = expected(weights)

    program1, embedded = schema1(program, ep)
    state_dict_21 = {k: t for k, t in weights.items() if k not in embedded.values()}
    files["schema1.pt2"] = zip_bytes([
        ("serialized_exported_program.json", json.dumps(program1).encode()),
        ("serialized_state_dict.json", torch_save(state_dict_21)),
        ("version", b"1")])
    expect1 = dict(state_dict_21)
    expect1.update({name: ep.constants[key] for name, key in embedded.items()})
    expect["schema1.pt2"] = expected(expect1)

    files["package.pt2"] = package(program, ep)
    expect["package.pt2"] = expected(weights)

    files["program.json"] = json.dumps(program).encode()
    expect["program.json"] = {}

    bad = copy.deepcopy(program)
    bad["schema_version"] = "3"
    files["bad-schema-version.pt2"] = zip_bytes(
        [(n, json.dumps(bad).encode() if n == "serialized_exported_program.json" else d) for n, d in save_entries])
    # A state dict whose pickle stops after PROTO, EMPTY_DICT, BINPUT, MARK and one string: at byte 12.
    cut = zip_bytes([("archive/data.pkl", b"\x80\x02}q\x00(X\x01\x00\x00\x00a"), ("archive/byteorder", b"little")])
    files["bad-state-dict.pt2"] = zip_bytes(
        [(n, cut if n == "serialized_state_dict.pt" else d) for n, d in save_entries])
    state_keys = [next(iter(s.values())).get("parameter_name") or next(iter(s.values())).get("buffer_name")
                  for s in program["graph_module"]["signature"]["input_specs"]
                  if "parameter" in s or ("buffer" in s and s["buffer"]["persistent"])]

    histogram = {}
    for node in ep.graph_module.graph.nodes:
        if node.op == "call_function":
            name = torch.fx.node._get_qualified_name(node.target)
            histogram[name] = histogram.get(name, 0) + 1
    result = {"torch": torch.__version__, "histogram": histogram, "nodes": len(ep.graph_module.graph.nodes),
              "files": {k: b64(v) for k, v in files.items()}, "weights": expect, "state_dict_keys": state_keys}
    sys.stdout.write("FUSEBOX-ARCHIVES:" + json.dumps(result) + "\n")


main()
