"""Writes the Dynamo graph (print_readable with strides and devices) of a
recommendation-style model of about N FX nodes, for bench/bench_vs_inductor.sh.
Run in the PyTorch 2 root:
    python3 make_recsys_dump.py N OUT.py [--fx]
The model mirrors bench/RecsysGraphGenerator.cpp (seed 42, batch 32, 8 towers
per group): towers of x [32, k*d] -> torch.split (list of sizes on even
towers, one size on odd ones) -> per chunk nn.Linear(d, h) -> relu / tanh /
sigmoid -> nn.LayerNorm(h); every fourth tower stacks the branches, applies
tanh and unbinds them; then cat -> head nn.Linear -> relu. Every 8 towers are
joined by cat + nn.Linear; the group outputs are the graph's outputs.
The graph is captured with torch.compile(backend=..., dynamic=False); --fx
(or N above FUSEBOX_RECSYS_DYNAMO_MAX, default 20000:
Dynamo takes ~80 s at 10k nodes on 2 cores and grows faster than linearly) traces it with
torch.fx.symbolic_trace instead and records meta["example_value"] /
meta["val"] per node as Dynamo does, so that the dump has the same form.
Prints the node count and the capture seconds on stdout."""
import os
import random
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

B, GROUP = 32, 8
# F.relu as nn.ReLU calls it: Inductor's batch_relu matches
# torch.nn.functional.relu only (not torch.relu); tanh/sigmoid are torch.*.
ACTS = (F.relu, torch.tanh, torch.sigmoid)


def plan(target):
    """(k, d, h) per tower, adding towers until the Dynamo graph has >= target nodes."""
    rng = random.Random(42)
    towers, nodes, groups_open = [], 1, 0  # 1: the output node
    while True:
        k, d, h = 4 + rng.randrange(5), 8 * (1 + rng.randrange(4)), 16 * (1 + rng.randrange(3))
        t = len(towers)
        # x, split, k getitems, per branch 4 params + linear + act + layer_norm,
        # cat, head weight + bias + linear + relu.
        n = 1 + 1 + k + 7 * k + 1 + 4
        if t % 4 == 3:
            n += 3 + k  # stack, tanh, unbind, k getitems
        towers.append((k, d, h))
        nodes += n
        groups_open = (groups_open + 1) % GROUP
        if groups_open == 1:
            nodes += 4  # the group's cat, proj weight + bias + linear
        if nodes >= target:
            return towers


class Tower(nn.Module):
    def __init__(self, t, k, d, h):
        super().__init__()
        self.t, self.k, self.d = t, k, d
        self.lins = nn.ModuleList(nn.Linear(d, h) for _ in range(k))
        self.lns = nn.ModuleList(nn.LayerNorm(h) for _ in range(k))
        self.head = nn.Linear(k * h, 32)

    def forward(self, x):
        if self.t % 2 == 0:
            chunks = torch.split(x, [self.d] * self.k, dim=1)
        else:
            chunks = torch.split(x, self.d, dim=1)
        ys = [self.lns[j](ACTS[(self.t + j) % 3](self.lins[j](chunks[j]))) for j in range(self.k)]
        if self.t % 4 == 3:
            u = torch.unbind(torch.tanh(torch.stack(ys, dim=0)), dim=0)
            ys = [u[j] for j in range(self.k)]
        return F.relu(self.head(torch.cat(ys, dim=1)))


class Recsys(nn.Module):
    def __init__(self, towers):
        super().__init__()
        self.towers = nn.ModuleList(Tower(t, k, d, h) for t, (k, d, h) in enumerate(towers))
        groups = [towers[i:i + GROUP] for i in range(0, len(towers), GROUP)]
        self.projs = nn.ModuleList(nn.Linear(32 * len(g), 64) for g in groups)

    def forward(self, *xs):
        outs = []
        for g, proj in enumerate(self.projs):
            ys = [self.towers[t](xs[t]) for t in range(g * GROUP, min((g + 1) * GROUP, len(self.towers)))]
            outs.append(proj(torch.cat(ys, dim=1)))
        return tuple(outs)


def capture_dynamo(model, inputs):
    out = {}

    def backend(gm, example_inputs):
        out["gm"] = gm
        return gm.forward

    torch._dynamo.config.cache_size_limit = 1
    torch.compile(model, backend=backend, dynamic=False)(*inputs)
    return out["gm"]


def capture_fx(model, inputs):
    """The graph Dynamo records, without Dynamo: symbolic_trace through every
    module (F.linear / F.layer_norm calls, not call_module), each parameter
    turned from get_attr into a placeholder as Dynamo lifts them, placeholders
    in first-use order as Dynamo has them, then one interpreted run recording
    each value in meta["example_value"] and meta["val"]."""
    import torch.fx as fx

    names_of = {id(p): name for name, p in model.named_parameters()}

    class Inline(fx.Tracer):
        def is_leaf_module(self, m, qualname):
            return False

        def getattr(self, attr, attr_val, parameter_proxy_cache):
            # fx.Tracer.getattr scans named_parameters() per access: quadratic
            # at 50k parameters. A dict does the same lookup.
            name = names_of.get(id(attr_val)) if isinstance(attr_val, nn.Parameter) else None
            if name is None:
                return super().getattr(attr, attr_val, parameter_proxy_cache)
            if name not in parameter_proxy_cache:
                parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
            return parameter_proxy_cache[name]

    # A forward with one named argument per input (FX traces no *args).
    names = ["L_xs_%d_" % i for i in range(len(inputs))]
    ns = {}
    exec("def forward(self, %s):\n    return Recsys.forward(self, %s)" % (", ".join(names), ", ".join(names)),
         {"Recsys": Recsys}, ns)
    flat = type("Recsys", (Recsys,), {"forward": ns["forward"]})  # the tracer calls type(root).forward
    model.__class__ = flat
    graph = Inline().trace(model)
    model.__class__ = Recsys
    params = dict(model.named_parameters())
    value = {n.target: x for n, x in zip([n for n in graph.nodes if n.op == "placeholder"], inputs)}
    for n in list(graph.nodes):
        if n.op == "get_attr":
            with graph.inserting_before(n):
                p = graph.placeholder("L_self_" + n.target.replace(".", "_") + "_")
            value[p.target] = params[n.target]
            n.replace_all_uses_with(p)
            graph.erase_node(n)
    places = [n for n in graph.nodes if n.op == "placeholder"]
    first_use = {}
    for i, n in enumerate(graph.nodes):
        for a in n.all_input_nodes:
            first_use.setdefault(a, i)
    anchor = next(n for n in graph.nodes if n.op != "placeholder")
    for p in sorted(places, key=lambda p: first_use.get(p, 1 << 60)):
        anchor.prepend(p)
    graph.lint()
    gm = fx.GraphModule(model, graph)

    class Record(fx.Interpreter):
        def run_node(self, n):
            v = super().run_node(n)
            if n.op != "output":
                n.meta["example_value"] = v
                n.meta["val"] = v
            return v

    Record(gm).run(*[value[p.target] for p in gm.graph.nodes if p.op == "placeholder"])
    return gm


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    target, path = int(args[0]), args[1]
    use_fx = "--fx" in sys.argv or target > int(os.environ.get("FUSEBOX_RECSYS_DYNAMO_MAX", "20000"))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
    torch.manual_seed(0)
    towers = plan(target)
    model = Recsys(towers).eval()
    inputs = [torch.randn(B, k * d) for k, d, _ in towers]
    started = time.monotonic()
    with torch.no_grad():
        gm = capture_fx(model, inputs) if use_fx else capture_dynamo(model, inputs)
    seconds = time.monotonic() - started
    text = gm.print_readable(print_output=False, include_stride=True, include_device=True)
    with open(path, "w") as f:
        f.write(text)
    print("nodes %d towers %d capture %s %.1f s" % (len(gm.graph.nodes), len(towers),
                                                   "fx" if use_fx else "dynamo", seconds))


if __name__ == "__main__":
    main()
