"""Running a graph recorded on CUDA (or another accelerator) on CPU.

The reference roots' torch builds have no CUDA, and Fusebox's dumps often
come from CUDA machines (GraphNet, Dynamo logs): their code names the device
(`torch.arange(0, 2, device=device(type='cuda', index=0))`, `x.to('cuda')`,
`x.cuda()`, `_enter_autocast('cuda', ...)`). `OnCpu` is the TorchFunctionMode
under which such a graph runs on CPU: every accelerator device a torch call
names becomes CPU, and `.cuda()` returns its tensor. The graph's inputs are
made on CPU (fxspecs.example_inputs), so every value stays there.

Used by every real or fake run of a rebuilt graph: fxgraph.propagate
(`inductor`, `propagate_shapes`, `apply_patterns`), verify, and shapes'
fake-tensor run.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode


def is_accelerator(device: Any) -> bool:
    """A device (torch.device, string or index) that is neither CPU nor meta."""
    if device is None or isinstance(device, bool):
        return False
    try:
        return torch.device(device).type not in ("cpu", "meta")
    except (RuntimeError, TypeError):
        return False


class OnCpu(TorchFunctionMode):
    """Every accelerator device a torch call names becomes CPU: a `device=`
    argument, a torch.device argument, `.to("cuda")`, the device type of
    Dynamo's `_enter_autocast("cuda", ...)`; `.cuda()` returns its tensor."""

    def __torch_function__(self, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:
            return args[0]
        if is_accelerator(kwargs.get("device")):
            kwargs["device"] = torch.device("cpu")
        if getattr(func, "__name__", "") == "_enter_autocast":  # (device_type, dtype, enabled, cache)
            args = ("cpu",) + tuple(args[1:]) if args and is_accelerator(args[0]) else args
            if is_accelerator(kwargs.get("device_type")):
                kwargs["device_type"] = "cpu"
        else:
            to = func is torch.Tensor.to
            args = tuple("cpu" if (isinstance(a, torch.device) or (to and isinstance(a, str))) and is_accelerator(a)
                         else a for a in args)
        return func(*args, **kwargs)
