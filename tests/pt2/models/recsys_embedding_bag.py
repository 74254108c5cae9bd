"""Embedding-bag towers: six EmbeddingBag tables pooled by sum, each
projected by a Linear + relu, mixed shapes among the projections."""
import torch
from torch import nn
import torch.nn.functional as F


class EmbeddingBags(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(100, 16, mode="sum") for _ in range(6))
        self.projections = nn.ModuleList(nn.Linear(16, 8 if i < 4 else 12) for i in range(6))

    def forward(self, ids, offsets):
        pooled = [t(ids[i], offsets) for i, t in enumerate(self.tables)]
        projected = [F.relu(p(x)) for p, x in zip(self.projections, pooled)]
        return torch.cat(projected, dim=1)


def get_model_and_inputs():
    torch.manual_seed(0)
    ids = torch.randint(0, 100, (6, 40))
    offsets = torch.arange(0, 40, 5)
    return EmbeddingBags().eval(), (ids, offsets)
