"""Split/unbind chains: a split of a split, getitems re-concatenated in
order, an unbind followed by stack, a split followed by stack, and a
size-one split (merge_splits, merge_getitem_cat, unbind_stack,
split_stack_to_cats, remove_split_with_size_one, split_cat)."""
import torch
from torch import nn


class SplitChain(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(64, 64)

    def forward(self, x, y):
        a, b = torch.split(x, [32, 32], dim=1)
        a0, a1 = torch.split(a, [16, 16], dim=1)
        merged = torch.cat([a0, a1, b], dim=1)
        items = torch.unbind(y, dim=1)
        stacked = torch.stack([items[0], items[1], items[2], items[3]], dim=1)
        s = torch.split(merged, 16, dim=1)
        restacked = torch.stack([s[0], s[1], s[2], s[3]], dim=1)
        (whole,) = torch.split(merged, 64, dim=1)
        return self.proj(whole), stacked + restacked


def get_model_and_inputs():
    torch.manual_seed(0)
    return SplitChain().eval(), (torch.randn(8, 64), torch.randn(8, 4, 16))
