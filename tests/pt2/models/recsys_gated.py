"""Gated halves: a tensor split into halves, one half gating the other
through sigmoid; five parallel gated experts with tanh; layer norms with
equal and unequal eps (batch_layernorm keys), pointwise batches."""
import torch
from torch import nn
import torch.nn.functional as F


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(32, 64) for _ in range(5))
        self.norms = nn.ModuleList(nn.LayerNorm(32, eps=1e-5 if i < 3 else 1e-6) for i in range(5))

    def forward(self, x):
        outs = []
        for expert, norm in zip(self.experts, self.norms):
            h = expert(x)
            left, right = torch.split(h, 32, dim=1)
            outs.append(norm(torch.tanh(left) * torch.sigmoid(right)))
        return torch.cat(outs, dim=1)


def get_model_and_inputs():
    torch.manual_seed(0)
    return Gated().eval(), (torch.randn(16, 32),)
