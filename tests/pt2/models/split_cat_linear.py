"""The model the hand-written fixtures once imitated (a Dynamo graph of a
split re-concatenated, a torch.export program of a split/cat tower with a
Linear, a scaling buffer, a view and a dtype cast), now captured for real."""
import torch
from torch import nn


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x):
        a, b = torch.split(x, 2, dim=1)
        y = self.proj(torch.cat([b, a], 1)) * self.scale
        return y.view(x.size(0), 2, 2).to(torch.float64)


class SplitCatLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.tower = Tower()

    def forward(self, x):
        return self.tower(x)


def get_model_and_inputs():
    torch.manual_seed(0)
    return SplitCatLinear().eval(), (torch.randn(3, 4),)
