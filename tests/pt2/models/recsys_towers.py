"""A recommendation-style model: a dense tower split into chunks with one
Linear + relu + LayerNorm per chunk, re-concatenated; a sparse tower of
tanh/sigmoid features; an interaction MLP (batch_linear, batch_relu,
batch_layernorm, batch_tanh/sigmoid, split/cat rules)."""
import torch
from torch import nn
import torch.nn.functional as F

CHUNKS, WIDTH, HIDDEN = 8, 16, 32


class Towers(nn.Module):
    def __init__(self):
        super().__init__()
        self.branches = nn.ModuleList(nn.Linear(WIDTH, HIDDEN) for _ in range(CHUNKS))
        self.norms = nn.ModuleList(nn.LayerNorm(HIDDEN) for _ in range(CHUNKS))
        self.interaction = nn.Linear(CHUNKS * HIDDEN + 6 * WIDTH, 64)
        self.head = nn.Linear(64, 1)

    def forward(self, dense, sparse):
        chunks = torch.split(dense, WIDTH, dim=1)
        outs = [norm(F.relu(branch(c))) for c, branch, norm in zip(chunks, self.branches, self.norms)]
        features = torch.unbind(sparse, dim=1)
        activated = [torch.tanh(f) if i % 2 == 0 else torch.sigmoid(f) for i, f in enumerate(features)]
        x = torch.cat(outs + activated, dim=1)
        return torch.sigmoid(self.head(F.relu(self.interaction(x))))


def get_model_and_inputs():
    torch.manual_seed(0)
    return Towers().eval(), (torch.randn(16, CHUNKS * WIDTH), torch.randn(16, 6, WIDTH))
