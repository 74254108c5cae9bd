"""torch.compile (Inductor, CPU) of a graph Fusebox sent, for `latency`'s
compiled figures: what users run in production, rather than eager PyTorch.

`compile_graph(gm, inputs, inductor_options)` compiles the graph as a model is
compiled for CPU inference: the model's parameters held by the module, not
passed in (Dynamo lifts them into graph inputs, L_self_..._parameters_..._;
`module_parameters` puts them back, with the values they were given), and
Inductor's `freezing` on, the setting PyTorch recommends for CPU inference
(parameters become constants: Inductor folds what depends on them alone, such
as a batched rewrite's stacked weights, and packs the linears' weights). It
compiles with dynamic=False and runs once (the compile happens at the first
call), under Inductor's default configuration otherwise, its Optimus options
replaced by `inductor_options` (none by default, so that Inductor does not
rewrite the graph itself unless asked). It answers the compiled callable, the
inputs it takes, the compile's seconds and what Inductor made: generated
kernels, extern calls (mm, addmm, bmm... left to ATen), which say why one
graph runs faster than another.

Debian's torch links SLEEF as a shared library, and Inductor adds `-lsleef` to
its kernels only on Windows (torch/_inductor/cpp_builder.py,
_get_torch_related_args): vectorised kernels then fail to load ("undefined
symbol: Sleef_expf16_u10") and its check of the CPU's vector instructions
(cpu_vec_isa.py, VecISA.check_build, run in a subprocess) fails, so every
kernel is scalar. `prepare()` makes SLEEF's symbols global in this process
and preloads it in the subprocesses Inductor starts.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import time
from collections.abc import Callable
from typing import Any

import torch

from .server import BridgeError, one_line

_prepared = False


def prepare() -> str:
    """Once per process: SLEEF for Debian's torch (see above). Returns the
    vector instruction set Inductor will use ("avx512", "avx2", "" for none)."""
    global _prepared
    if not _prepared:
        _prepared = True
        lib = ctypes.util.find_library("sleef")
        if lib:
            try:
                ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
                preload = os.environ.get("LD_PRELOAD", "")
                if lib not in preload.split():
                    os.environ["LD_PRELOAD"] = (preload + " " + lib).strip()
            except OSError:
                pass
    try:
        from torch._inductor import cpu_vec_isa

        isa = cpu_vec_isa.pick_vec_isa()
        return str(isa) if isa else ""
    except Exception:
        return ""


def _counts() -> tuple[int, int]:
    """(kernels Inductor generated, extern calls) in this process so far."""
    from torch._dynamo.utils import counters
    from torch._inductor import metrics

    return metrics.generated_kernel_count, counters["inductor"].get("extern_calls", 0)


_LIFTED = re.compile(r"^L_self_.*_(parameters|buffers)_.*_$")


def module_parameters(gm: torch.fx.GraphModule, inputs: list[Any]) -> tuple[torch.fx.GraphModule, list[Any]]:
    """gm with Dynamo's lifted parameters and buffers (placeholders named
    L_self_..._parameters_..._) turned into parameters of gm holding their
    input's value; returns (gm, the inputs it still takes). Other graphs (AOT,
    torch.export: their constants are get_attr already) are left as they are."""
    graph = gm.graph
    kept = []
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, inputs):
        if not _LIFTED.match(node.name) or not isinstance(value, torch.Tensor):
            kept.append(value)
            continue
        name = "lifted_" + node.name
        gm.register_parameter(name, torch.nn.Parameter(value.detach().clone(), requires_grad=False))
        with graph.inserting_before(node):
            attribute = graph.get_attr(name)
        node.replace_all_uses_with(attribute)
        graph.erase_node(node)
    gm.recompile()
    return gm, kept


def compile_graph(gm: torch.fx.GraphModule, inputs: list[Any], inductor_options: dict[str, Any] | None = None,
                  which: str = "graph", freezing: bool = True
                  ) -> tuple[Callable[..., Any], list[Any], float, dict[str, Any]]:
    """(callable, its inputs, seconds, {"kernels", "extern_calls"}) of
    torch.compile(gm) as the module docstring says (gm is changed: its lifted
    parameters become its own); a BridgeError naming `which` when Inductor
    cannot compile it."""
    prepare()
    from torch._inductor import config

    gm, inputs = module_parameters(gm, inputs)
    pre = dict((inductor_options or {}).get("pre_grad_fusion_options", {}))
    post = dict((inductor_options or {}).get("post_grad_fusion_options", {}))
    kernels0, extern0 = _counts()
    start = time.perf_counter()
    try:
        compiled = torch.compile(gm, backend="inductor", dynamic=False)
        # No FX graph cache: a cache hit skips code generation, and with it the
        # counts of what Inductor made (its compiled C++ kernels stay cached).
        with config.patch(pre_grad_fusion_options=pre, post_grad_fusion_options=post,
                          fx_graph_cache=False, freezing=freezing), torch.no_grad():
            compiled(*inputs)
    except Exception as exc:
        raise BridgeError("torch.compile of the %s fails: %s" % (which, one_line(exc)))
    seconds = time.perf_counter() - start
    kernels1, extern1 = _counts()
    return compiled, inputs, seconds, {"kernels": kernels1 - kernels0, "extern_calls": extern1 - extern0,
                                       "freezing": freezing}


def toolchain_problem() -> str:
    """Why torch.compile cannot run here (no C++ compiler, no Python.h), or ""."""
    import shutil
    import sysconfig

    compiler = os.environ.get("CXX", "g++")
    if not shutil.which(compiler):
        return "no C++ compiler (%s) for Inductor's CPU kernels" % compiler
    include = sysconfig.get_paths().get("include", "")
    if not os.path.exists(os.path.join(include, "Python.h")):
        return "no Python.h in %s (python3-dev) for Inductor's CPU kernels" % include
    return ""
