"""A recommendation-style model traced with torch.jit.trace and saved without
the input shapes Fusebox's fixtures record: a traced model as users have them.
The IDE's end-to-end review test opens it, is told its input shapes are
unknown, and sets them to "32,13;32,384" (tests/views/end_to_end_review_tests.cpp).

dense [32, 13] goes through a bottom MLP; sparse [32, 384] is split into eight
48-wide slices, each through its own Linear(48, 16), ReLU and LayerNorm (the
horizontal fusions' candidates); everything is concatenated into a top MLP.

Usage: python3 traced_recsys.py OUT.pt  (torch 1.13, Debian's python3)
"""
import sys

import torch
from torch import nn


class TracedRecsys(nn.Module):
    def __init__(self):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
        self.towers = nn.ModuleList(nn.Linear(48, 16) for _ in range(8))
        self.norms = nn.ModuleList(nn.LayerNorm(16) for _ in range(8))
        self.top = nn.Sequential(nn.Linear(16 * 9, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense, sparse):
        parts = [self.bottom(dense)]
        for i, (tower, norm) in enumerate(zip(self.towers, self.norms)):
            parts.append(norm(torch.relu(tower(sparse[:, i * 48:(i + 1) * 48]))))
        return torch.sigmoid(self.top(torch.cat(parts, dim=1)))


def main():
    torch.manual_seed(0)
    model = TracedRecsys().eval()
    traced = torch.jit.trace(model, (torch.randn(32, 13), torch.randn(32, 384)))
    torch.jit.save(traced, sys.argv[1])


if __name__ == "__main__":
    main()
