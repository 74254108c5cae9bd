"""Self-attention through F.scaled_dot_product_attention: on CPU its AOT graph
holds aten::_scaled_dot_product_flash_attention_for_cpu, an op libtorch 1.13
lacks (verification then runs through the bridge). Three same-shape
projections of one input feed it; eight relus of its chunks are a batch
(batch_aten_relu on the AOT graph)."""
import torch
from torch import nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(32, 32)
        self.k = nn.Linear(32, 32)
        self.v = nn.Linear(32, 32)

    def forward(self, x):
        q, k, v = (p(x).view(2, 16, 4, 8).transpose(1, 2) for p in (self.q, self.k, self.v))
        out = F.scaled_dot_product_attention(q, k, v)
        merged = out.transpose(1, 2).reshape(2, 16, 32)
        # Eight independent relus of chunks, re-concatenated: batch_aten_relu on the AOT graph.
        return torch.cat([torch.relu(c) for c in torch.split(merged, 4, dim=2)], dim=2)


def get_model_and_inputs():
    torch.manual_seed(0)
    return Attention().eval(), (torch.randn(2, 16, 32),)
