"""Six same-shape Linear layers reading one pooled input (batch_linear,
batch_linear_lhs), each followed by sigmoid, summed in pairs."""
import torch
from torch import nn


class SharedInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.Linear(48, 32)
        self.heads = nn.ModuleList(nn.Linear(32, 16) for _ in range(6))

    def forward(self, x):
        pooled = torch.relu(self.pool(x))
        outs = [torch.sigmoid(h(pooled)) for h in self.heads]
        return torch.cat([outs[i] + outs[i + 1] for i in range(0, 6, 2)], dim=1)


def get_model_and_inputs():
    torch.manual_seed(0)
    return SharedInput().eval(), (torch.randn(32, 48),)
