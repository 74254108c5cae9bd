"""Writes the Dynamo graph (print_readable) of an N-block transformer-style
model: a large real Dynamo dump for bench/bench_read_dump.sh. Run in the
PyTorch 2 root: python3 make_dynamo_dump.py N OUT.py (420 blocks: ~3 MB)."""
import sys

import torch, torch.nn as nn, torch.nn.functional as F
class Block(nn.Module):
    def __init__(s, d):
        super().__init__(); s.ln = nn.LayerNorm(d); s.q = nn.Linear(d, d); s.k = nn.Linear(d, d); s.v = nn.Linear(d, d); s.o = nn.Linear(d, d); s.f1 = nn.Linear(d, 4*d); s.f2 = nn.Linear(4*d, d); s.ln2 = nn.LayerNorm(d)
    def forward(s, x):
        h = s.ln(x); q, k, v = s.q(h), s.k(h), s.v(h)
        a = F.scaled_dot_product_attention(q, k, v)
        x = x + s.o(a)
        x = x + s.f2(F.gelu(s.f1(s.ln2(x))))
        return x * 0.5 + torch.sigmoid(x[:, :1]) * (x > 0).float()
class M(nn.Module):
    def __init__(s, n, d): super().__init__(); s.blocks = nn.ModuleList([Block(d) for _ in range(n)])
    def forward(s, x):
        for b in s.blocks: x = b(x)
        return x
m = M(int(sys.argv[1]), 16).eval()
out = {}
def backend(gm, ex):
    out['t'] = gm.print_readable(print_output=False); return gm.forward
with torch.no_grad():
    torch.compile(m, backend=backend)(torch.randn(2, 4, 16))
open(sys.argv[2], 'w').write(out['t'])
print(len(out['t']))
