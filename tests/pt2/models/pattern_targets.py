"""A model with one occurrence or more of each example pattern's match
(resources/patterns/): mm(a, b) + mm(a, c); relu(linear(x)) and
gelu(linear(x)) with 16 input features; consecutive split chunks
re-concatenated. Its torch.export graph (exported.py) holds them as ATen ops."""
import torch
from torch import nn
import torch.nn.functional as F


class PatternTargets(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Parameter(torch.randn(16, 24))
        self.c = nn.Parameter(torch.randn(16, 24))
        self.relu_layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(3))
        self.gelu_layer = nn.Linear(16, 8)

    def forward(self, x, y):
        summed = torch.mm(x, self.b) + torch.mm(x, self.c)
        h = x
        for layer in self.relu_layers:
            h = F.relu(layer(h))
        g = F.gelu(self.gelu_layer(h))
        parts = torch.split(y, 4, dim=1)
        joined = torch.cat([parts[1], parts[2], parts[3]], dim=1)
        return summed, g, joined


def get_model_and_inputs():
    torch.manual_seed(0)
    return PatternTargets().eval(), (torch.randn(8, 16), torch.randn(8, 20))
