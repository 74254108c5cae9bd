"""Oracle suite models: small PyTorch models on which Fusebox's Optimus
rewrite is compared with PyTorch 2.6 Inductor's own Optimus passes
(group_batch_fusion and the split_cat pattern passes).

Families (each model's name starts with its family's prefix):

* towers_*     recommendation-style towers: a dense input split per feature,
               Linear -> activation -> LayerNorm per feature, re-concatenated
               (batch_linear, batch_relu/tanh, batch_layernorm, split/cat).
* shared_*     N same-shape nn.Linear layers reading one input, with and
               without bias, N = 2..6 (batch_linear_lhs, batch_linear).
* gated_*      gated halves: split (or chunk) in halves, tanh(a) * sigmoid(b)
               (batch_tanh, batch_sigmoid, split rules).
* split_*      split/unbind chains: split of split, getitems re-concatenated
               in order and out of order, unbind -> stack, split -> stack,
               size-one split, split -> cat of partial ranges and of every
               section (the dead split Inductor leaves),
               stack -> tanh -> unbind, rows selected and re-joined
               (merge_splits, merge_getitem_cat, mutate_cat, unbind_stack,
               split_stack_to_cats, remove_split_with_size_one, split_cat,
               unbind_cat_to_view; after grad normalization_aten and 2.14's
               split_cat_aten and select_cat_aten).
* mixed_*      mixed shapes: linears of different in/out dims sharing inputs,
               layer norms with different normalized_shape / eps, linears on
               slices of different tensors (fusion keys must separate them).
* embbag_*     nn.EmbeddingBag towers with offsets (mode sum / mean), then
               Linear layers.
* batch_*      batch size variants: the same models as above at batch 1, 3
               and odd sizes (captured with dynamic=False, so each size is
               its own static graph), and one-row linears and a batch-1 bmm
               (after grad, decompose_mm_pass).
* pointwise_*  parallel relu / tanh / sigmoid / add / mul on same-shape
               tensors, in torch.*, F.* and method (x.relu()) spellings;
               relus batched twice (a later root sees the batched ones).
* einsum_*     einsums of einsum_to_pointwise_pass's form and others
               (2.14's pass; under 2.6 the configs leave it out).
* std_*        standard models on which no Optimus pass should fire: a small
               conv-bn-relu CNN, a sequential MLP, a tiny attention block.

Contract: MODELS maps each name to a zero-argument factory returning
(model.eval(), inputs_tuple); every factory calls torch.manual_seed(0) before
building the model and its inputs, uses small CPU tensors and only torch.
get_model_and_inputs() builds MODELS[ORACLE_MODEL], reading the global at call
time: a harness selects a model by appending a line `ORACLE_MODEL = "name"`
at the end of this file's text. Run as a script, it prints the names, one a
line.
"""
import collections

import torch
from torch import nn
import torch.nn.functional as F

ORACLE_MODEL = globals().get("ORACLE_MODEL", "towers_4x32")

MODELS = collections.OrderedDict()


def _register(name, since="2.6"):
    """`since`: the oldest Inductor the model runs under (the oracle test
    skips it, and says so, under an older one: e.g. 2.6 fails on a
    positional clamp that 2.14 fuses)."""

    def wrap(factory):
        assert name not in MODELS, name
        MODELS[name] = factory
        return factory

    return wrap


def _seeded(build):
    """Seed, then build (model, inputs); returns (model.eval(), inputs)."""
    torch.manual_seed(0)
    model, inputs = build()
    return model.eval(), tuple(inputs)


# ---------------------------------------------------------------- towers


class Towers(nn.Module):
    """Per-feature split -> Linear -> activation -> LayerNorm -> cat."""

    def __init__(self, count, width, hidden, act="relu", head=True):
        super().__init__()
        self.width, self.act = width, act
        self.branches = nn.ModuleList(nn.Linear(width, hidden) for _ in range(count))
        self.norms = nn.ModuleList(nn.LayerNorm(hidden) for _ in range(count))
        self.head = nn.Linear(count * hidden, 1) if head else None

    def forward(self, dense):
        chunks = torch.split(dense, self.width, dim=1)
        outs = []
        for c, branch, norm in zip(chunks, self.branches, self.norms):
            h = branch(c)
            h = F.relu(h) if self.act == "relu" else torch.tanh(h)
            outs.append(norm(h))
        x = torch.cat(outs, dim=1)
        return torch.sigmoid(self.head(x)) if self.head is not None else x


def _towers(count, width, hidden, batch=8, act="relu", head=True):
    return _seeded(lambda: (Towers(count, width, hidden, act, head),
                            (torch.randn(batch, count * width),)))


@_register("towers_4x32")
def towers_4x32():
    return _towers(4, 32, 16)


@_register("towers_6x16")
def towers_6x16():
    return _towers(6, 16, 32)


@_register("towers_8x8")
def towers_8x8():
    return _towers(8, 8, 8, batch=16)


@_register("towers_5x24_tanh")
def towers_5x24_tanh():
    return _towers(5, 24, 12, act="tanh")


@_register("towers_3x64_nohead")
def towers_3x64_nohead():
    return _towers(3, 64, 32, head=False)


# ---------------------------------------------------------- shared input


class SharedLinear(nn.Module):
    """N same-shape Linear layers on one input, summed."""

    def __init__(self, n, d_in, d_out, bias=True):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(d_in, d_out, bias=bias) for _ in range(n))

    def forward(self, x):
        outs = [h(x) for h in self.heads]
        total = outs[0]
        for o in outs[1:]:
            total = total + o
        return total


def _shared(n, bias=True, batch=8, d_in=32, d_out=16):
    return _seeded(lambda: (SharedLinear(n, d_in, d_out, bias), (torch.randn(batch, d_in),)))


@_register("shared_linear_2")
def shared_linear_2():
    return _shared(2)


@_register("shared_linear_3")
def shared_linear_3():
    return _shared(3)


@_register("shared_linear_5")
def shared_linear_5():
    return _shared(5)


@_register("shared_linear_6")
def shared_linear_6():
    return _shared(6, d_in=48, d_out=24)


@_register("shared_nobias_4")
def shared_nobias_4():
    return _shared(4, bias=False)


@_register("shared_nobias_6")
def shared_nobias_6():
    return _shared(6, bias=False)


class SharedSigmoidHeads(nn.Module):
    """A pooled input read by six Linear heads, each followed by sigmoid."""

    def __init__(self):
        super().__init__()
        self.pool = nn.Linear(24, 32)
        self.heads = nn.ModuleList(nn.Linear(32, 8) for _ in range(6))

    def forward(self, x):
        pooled = F.relu(self.pool(x))
        outs = [torch.sigmoid(h(pooled)) for h in self.heads]
        return torch.cat(outs, dim=1)


@_register("shared_sigmoid_heads_6")
def shared_sigmoid_heads_6():
    return _seeded(lambda: (SharedSigmoidHeads(), (torch.randn(8, 24),)))


# ---------------------------------------------------------------- gated


class GatedHalves(nn.Module):
    """N experts, each split in halves: tanh(left) * sigmoid(right)."""

    def __init__(self, n, d_in=16, half=16, chunk=False):
        super().__init__()
        self.half, self.chunk = half, chunk
        self.experts = nn.ModuleList(nn.Linear(d_in, 2 * half) for _ in range(n))

    def forward(self, x):
        outs = []
        for expert in self.experts:
            h = expert(x)
            if self.chunk:
                left, right = h.chunk(2, dim=1)
            else:
                left, right = torch.split(h, self.half, dim=1)
            outs.append(torch.tanh(left) * torch.sigmoid(right))
        return torch.cat(outs, dim=1)


@_register("gated_halves_2")
def gated_halves_2():
    return _seeded(lambda: (GatedHalves(2), (torch.randn(8, 16),)))


@_register("gated_halves_5")
def gated_halves_5():
    return _seeded(lambda: (GatedHalves(5), (torch.randn(8, 16),)))


@_register("gated_chunk_4")
def gated_chunk_4():
    return _seeded(lambda: (GatedHalves(4, d_in=24, half=8, chunk=True), (torch.randn(8, 24),)))


class GatedInput(nn.Module):
    """The input itself split in halves; gate, norm, project."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.proj = nn.Linear(32, 8)

    def forward(self, x):
        a, b = torch.split(x, [32, 32], dim=1)
        return self.proj(self.norm(torch.tanh(a) * torch.sigmoid(b)))


@_register("gated_input")
def gated_input():
    return _seeded(lambda: (GatedInput(), (torch.randn(8, 64),)))


# ---------------------------------------------------------- split chains


class SplitOfSplit(nn.Module):
    def forward(self, x):
        a, b = torch.split(x, [32, 32], dim=1)
        a0, a1 = torch.split(a, [16, 16], dim=1)
        return torch.relu(a0) + torch.relu(a1), b * 2


class GetitemCat(nn.Module):
    def __init__(self, order):
        super().__init__()
        self.order = order

    def forward(self, x):
        parts = torch.split(x, 8, dim=1)
        y = torch.cat([parts[i] for i in self.order], dim=1)
        return y * 2


class UnbindStack(nn.Module):
    def forward(self, y):
        items = torch.unbind(y, dim=1)
        return torch.stack([items[0], items[1], items[2], items[3]], dim=1) + 1


class SplitStack(nn.Module):
    def forward(self, x):
        s = torch.split(x, 16, dim=1)
        return torch.stack([s[0], s[1], s[2], s[3]], dim=1) * 3


class SplitSizeOne(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(64, 16)

    def forward(self, x):
        (whole,) = torch.split(x, 64, dim=1)
        return self.proj(whole)


class SplitCatPartial(nn.Module):
    def forward(self, x):
        s = torch.split(x, [8, 8, 8, 8, 16], dim=1)
        left = torch.cat([s[0], s[1], s[2]], dim=1)
        return torch.relu(left), torch.sigmoid(s[3]), s[4] * 2


class StackTanhUnbind(nn.Module):
    def forward(self, x):
        s = torch.split(x, 8, dim=1)
        stacked = torch.stack([s[0], s[1], s[2], s[3]], dim=0)
        t = torch.tanh(stacked)
        outs = torch.unbind(t, dim=0)
        return outs[0] + outs[1], outs[2] * outs[3]


class UnbindCat(nn.Module):
    def forward(self, y):
        items = torch.unbind(y, dim=1)
        return torch.cat([items[0], items[1], items[2]], dim=1) * 2


class SplitCatAllSections(nn.Module):
    """A cat of every section of a split, read by a reduction:
    mutate_cat_pass makes it the split's input and leaves the split and its
    getitems in the graph, dead (Inductor erases only the cat)."""

    def forward(self, x):
        a, b, c = torch.split(x, [8, 8, 16], dim=1)
        return torch.cat([a, b, c], dim=1).sum(1)


@_register("split_of_split")
def split_of_split():
    return _seeded(lambda: (SplitOfSplit(), (torch.randn(8, 64),)))


@_register("split_getitem_cat_in_order")
def split_getitem_cat_in_order():
    return _seeded(lambda: (GetitemCat([0, 1, 2, 3]), (torch.randn(8, 32),)))


@_register("split_getitem_cat_out_of_order")
def split_getitem_cat_out_of_order():
    return _seeded(lambda: (GetitemCat([2, 0, 3, 1]), (torch.randn(8, 32),)))


@_register("split_unbind_stack")
def split_unbind_stack():
    return _seeded(lambda: (UnbindStack(), (torch.randn(8, 4, 16),)))


@_register("split_stack")
def split_stack():
    return _seeded(lambda: (SplitStack(), (torch.randn(8, 64),)))


@_register("split_size_one")
def split_size_one():
    return _seeded(lambda: (SplitSizeOne(), (torch.randn(8, 64),)))


@_register("split_cat_partial")
def split_cat_partial():
    return _seeded(lambda: (SplitCatPartial(), (torch.randn(8, 48),)))


@_register("split_stack_tanh_unbind")
def split_stack_tanh_unbind():
    return _seeded(lambda: (StackTanhUnbind(), (torch.randn(8, 32),)))


@_register("split_cat_all_sections")
def split_cat_all_sections():
    return _seeded(lambda: (SplitCatAllSections(), (torch.randn(4, 32),)))


@_register("split_unbind_cat")
def split_unbind_cat():
    return _seeded(lambda: (UnbindCat(), (torch.randn(8, 3, 16),)))


class SelectCat(nn.Module):
    """Rows of x re-joined: x[:, i] for every i, cat on dim 1 (after grad,
    2.14's select_cat_aten_pass makes it x.view), beside a cat of two of
    them (which it leaves)."""

    def forward(self, x, y):
        whole = torch.cat([x[:, 0], x[:, 1], x[:, 2]], dim=1)
        part = torch.cat([y[:, 0], y[:, 2]], dim=1)
        return whole.relu(), part.tanh()


@_register("split_select_cat")
def split_select_cat():
    return _seeded(lambda: (SelectCat(), (torch.randn(4, 3, 8), torch.randn(4, 3, 8))))


class OneRowHeads(nn.Module):
    """Linears on one row (a batch of 1), as at serving time, and a bmm of
    batch 1: after grad, decompose_mm_pass turns the memory-bound ones into
    a broadcast multiply and a sum (2.14 up to [2048, 2048] weights, 2.6 up
    to [64, 16]); the 4-row linear stays an addmm."""

    def __init__(self):
        super().__init__()
        self.small = nn.Linear(16, 8)
        self.wide = nn.Linear(128, 32)
        self.rows = nn.Linear(16, 8)

    def forward(self, x, y, a, b):
        return self.small(x).relu(), self.wide(y), torch.bmm(a, b), self.rows(a[0])


@_register("batch_one_row_heads")
def batch_one_row_heads():
    return _seeded(lambda: (OneRowHeads(), (torch.randn(1, 16), torch.randn(1, 128), torch.randn(1, 4, 16),
                                            torch.randn(1, 16, 8))))


# ----------------------------------------------------------- mixed shapes


class MixedLinearDims(nn.Module):
    """Linears of different in/out dims on two shared inputs."""

    def __init__(self):
        super().__init__()
        self.a = nn.ModuleList(nn.Linear(32, d) for d in (8, 8, 16, 16, 24))
        self.b = nn.ModuleList(nn.Linear(16, d) for d in (8, 8, 8, 12))

    def forward(self, x, y):
        outs = [F.relu(l(x)) for l in self.a] + [F.relu(l(y)) for l in self.b]
        return torch.cat(outs, dim=1)


class MixedLayerNorms(nn.Module):
    """Layer norms over the same shape with different eps."""

    def __init__(self):
        super().__init__()
        eps = (1e-5, 1e-5, 1e-5, 1e-6, 1e-6, 1e-3)
        self.norms = nn.ModuleList(nn.LayerNorm(16, eps=e) for e in eps)

    def forward(self, *xs):
        return [n(x) for n, x in zip(self.norms, xs)]


class MixedNormShapes(nn.Module):
    """Layer norms with different normalized_shape, with and without affine."""

    def __init__(self):
        super().__init__()
        self.full = nn.ModuleList(nn.LayerNorm([4, 8]) for _ in range(3))
        self.last = nn.ModuleList(nn.LayerNorm(8) for _ in range(3))
        self.plain = nn.ModuleList(nn.LayerNorm(8, elementwise_affine=False) for _ in range(2))

    def forward(self, x):
        outs = [n(x + i) for i, n in enumerate(self.full)]
        outs += [n(x - i) for i, n in enumerate(self.last)]
        outs += [n(x * (i + 2)) for i, n in enumerate(self.plain)]
        return outs


class MixedSliceParents(nn.Module):
    """Same-shape linears on Python slices of two tensors (x[:, :16]):
    Dynamo records each slice as one operator.getitem, and batch_linear
    keys on its parent, so the x linears and the y linears are two groups."""

    def __init__(self):
        super().__init__()
        self.l = nn.ModuleList(nn.Linear(16, 8) for _ in range(4))

    def forward(self, x, y):
        return (self.l[0](x[:, :16]), self.l[1](x[:, 16:]),
                self.l[2](y[:, :16]), self.l[3](y[:, 16:]))


@_register("mixed_linear_dims")
def mixed_linear_dims():
    return _seeded(lambda: (MixedLinearDims(), (torch.randn(8, 32), torch.randn(8, 16))))


@_register("mixed_slice_parents")
def mixed_slice_parents():
    return _seeded(lambda: (MixedSliceParents(), (torch.randn(8, 32), torch.randn(8, 32))))


@_register("mixed_layernorm_eps")
def mixed_layernorm_eps():
    return _seeded(lambda: (MixedLayerNorms(), tuple(torch.randn(8, 16) for _ in range(6))))


@_register("mixed_layernorm_shapes")
def mixed_layernorm_shapes():
    return _seeded(lambda: (MixedNormShapes(), (torch.randn(6, 4, 8),)))


# -------------------------------------------------------- embedding bags


class EmbeddingBags(nn.Module):
    def __init__(self, modes, dim=16, outs=(8,)):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(50, dim, mode=m) for m in modes)
        self.proj = nn.ModuleList(nn.Linear(dim, outs[i % len(outs)]) for i in range(len(modes)))

    def forward(self, ids, offsets):
        pooled = [t(ids[i], offsets) for i, t in enumerate(self.tables)]
        return torch.cat([F.relu(p(x)) for p, x in zip(self.proj, pooled)], dim=1)


def _embbag(modes, outs=(8,), bags=4, per_bag=5):
    def build():
        ids = torch.randint(0, 50, (len(modes), bags * per_bag))
        offsets = torch.arange(0, bags * per_bag, per_bag)
        return EmbeddingBags(modes, outs=outs), (ids, offsets)

    return _seeded(build)


@_register("embbag_sum_4")
def embbag_sum_4():
    return _embbag(["sum"] * 4)


@_register("embbag_mean_6")
def embbag_mean_6():
    return _embbag(["mean"] * 6, bags=6)


@_register("embbag_mixed_5")
def embbag_mixed_5():
    return _embbag(["sum", "mean", "sum", "mean", "sum"], outs=(8, 12))


# --------------------------------------------------- batch size variants


@_register("batch_towers_4x32_b1")
def batch_towers_4x32_b1():
    return _towers(4, 32, 16, batch=1)


@_register("batch_shared_linear_5_b3")
def batch_shared_linear_5_b3():
    return _shared(5, batch=3)


@_register("batch_gated_halves_5_b7")
def batch_gated_halves_5_b7():
    return _seeded(lambda: (GatedHalves(5), (torch.randn(7, 16),)))


@_register("batch_towers_6x16_b13")
def batch_towers_6x16_b13():
    return _towers(6, 16, 32, batch=13)


# -------------------------------------------------------------- pointwise


class PointwiseTorch(nn.Module):
    def forward(self, *xs):
        return ([torch.relu(x) for x in xs] + [torch.tanh(x) for x in xs]
                + [torch.sigmoid(x) for x in xs])


class PointwiseFunctional(nn.Module):
    def forward(self, *xs):
        return ([F.relu(x) for x in xs] + [F.tanh(x) for x in xs]
                + [F.sigmoid(x) for x in xs])


class PointwiseMethods(nn.Module):
    def forward(self, *xs):
        return [x.relu() for x in xs] + [x.tanh() for x in xs] + [x.sigmoid() for x in xs]


class PointwiseAddMul(nn.Module):
    def forward(self, *xs):
        adds = [torch.add(x, 1.0) for x in xs]
        muls = [x * y for x, y in zip(xs, reversed(xs))]
        return adds + muls + [torch.mul(x, 0.5) + x for x in xs]


def _pointwise(cls, n=5):
    return _seeded(lambda: (cls(), tuple(torch.randn(4, 8) for _ in range(n))))


@_register("pointwise_torch")
def pointwise_torch():
    return _pointwise(PointwiseTorch)


@_register("pointwise_functional")
def pointwise_functional():
    return _pointwise(PointwiseFunctional)


@_register("pointwise_methods")
def pointwise_methods():
    return _pointwise(PointwiseMethods)


@_register("pointwise_add_mul")
def pointwise_add_mul():
    return _pointwise(PointwiseAddMul, n=6)


class PointwiseFusedAgain(nn.Module):
    """Two pairs of relus that two roots batch, then a root that sees both
    batched relus (same [2, 4, 8] shape) and batches them again: 2.6's
    search fuses each group the moment it finds it, so later roots walk the
    fused nodes. The +1 chains keep each pair out of the other roots' reach
    (max_fuse_search_depth 5)."""

    @staticmethod
    def _pad(t, n=6):
        for _ in range(n):
            t = t + 1.0
        return t

    def forward(self, x, y, z, w):
        a, b, c, d = F.relu(x), F.relu(y), F.relu(z), F.relu(w)
        q = self._pad(a + c)
        r2 = self._pad(c * d)
        r1 = self._pad(a * b)
        return q, r2, r1


@_register("pointwise_fused_again")
def pointwise_fused_again():
    return _pointwise(PointwiseFusedAgain, n=4)


# ------------------------------------------------------------ einsum


class EinsumHeads(nn.Module):
    """Per-head projections as einsums: one "bij,bijk->bik" read by a +
    (2.14's einsum_to_pointwise_pass makes it a multiply and a sum), one of
    the same form that nothing adds to, and one of another form: both stay."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 3, 8, 5))
        self.b = nn.Parameter(torch.randn(4, 3, 5))
        self.v = nn.Parameter(torch.randn(8, 5))

    def forward(self, x):
        added = torch.einsum("bij,bijk->bik", x, self.w) + self.b
        alone = torch.einsum("bij,bijk->bik", x * 2, self.w).relu()
        other = torch.einsum("bij,jk->bik", x, self.v) + 1
        return added, alone, other


@_register("einsum_heads")
def einsum_heads():
    return _seeded(lambda: (EinsumHeads(), (torch.randn(4, 3, 8),)))


# -------------------------------------------- standard (nothing fires)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, stride=2)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class SequentialMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                 nn.Linear(64, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class TinyAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, t, d = x.shape
        qkv = self.qkv(x).view(b, t, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / (self.head_dim ** 0.5)
        attn = torch.softmax(scores, dim=-1)
        y = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, t, d)
        return self.norm(x + self.out(y))


@_register("std_cnn")
def std_cnn():
    return _seeded(lambda: (SmallCNN(), (torch.randn(2, 3, 16, 16),)))


@_register("std_mlp")
def std_mlp():
    return _seeded(lambda: (SequentialMLP(), (torch.randn(8, 32),)))


@_register("std_attention")
def std_attention():
    return _seeded(lambda: (TinyAttention(), (torch.randn(2, 6, 32),)))


# ---------------------------------------------------------------- what 2.14 changed
# ../shared/reference/pt2.md: batch_detach matches x.detach() too; the math
# fusions key on (and keep) positional arguments; normalization_pass makes
# torch.concat a cat; batch_linear_lhs keys on the bias's ndim; batch_dropout
# is new. Each model fires the changed rule under 2.14; those that 2.6 can run
# give 2.6's (different) answer there.


class MathHeads(nn.Module):
    """Six linear heads, each through detach / nan_to_num / clamp / dropout in
    the spellings whose grouping changed, and a split re-joined by torch.concat."""

    def __init__(self, positional_clamp):
        super().__init__()
        self.positional_clamp = positional_clamp
        self.heads = nn.ModuleList(nn.Linear(16, 16) for _ in range(6))

    def forward(self, x):
        hs = [head(x) for head in self.heads]
        outs = [h.detach() for h in hs[:3]] + [torch.detach(h) for h in hs[3:]]
        outs += [torch.nan_to_num(h, 0.0) for h in hs[:3]] + [torch.nan_to_num(h) for h in hs[3:]]
        outs += [torch.clamp(h, min=-1.0, max=1.0) for h in hs[:3]]
        if self.positional_clamp:
            outs += [torch.clamp(h, -2.0, 2.0) for h in hs[3:]]
        outs += [F.dropout(h, 0.25, False) for h in hs]
        parts = torch.split(x, 8, dim=1)
        joined = torch.concat([parts[1], parts[0]], dim=-1)
        return torch.stack([o.sum() for o in outs]).sum() + joined


@_register("math_heads")
def math_heads():
    return _seeded(lambda: (MathHeads(False), (torch.randn(8, 16),)))


@_register("math_heads_positional_clamp", since="2.14")
def math_heads_positional_clamp():
    return _seeded(lambda: (MathHeads(True), (torch.randn(8, 16),)))


class LhsBiasRanks(nn.Module):
    """Seven linears of one input, one with a [1, n] bias: 2.14 keys it apart
    and fuses the six others (2.6 groups all seven and fails at the biases' cat)."""

    def __init__(self):
        super().__init__()
        # Out-widths differ, so that batch_linear (keyed on weight shapes) leaves them to batch_linear_lhs.
        self.weights = nn.ParameterList(nn.Parameter(torch.randn(8 + i, 16)) for i in range(7))
        self.biases = nn.ParameterList(nn.Parameter(torch.randn(8 + i)) for i in range(6))
        self.wide_bias = nn.Parameter(torch.randn(1, 14))

    def forward(self, x):
        outs = [F.linear(x, w, b) for w, b in zip(self.weights[:6], self.biases)]
        outs.append(F.linear(x, self.weights[6], self.wide_bias))
        return torch.cat(outs, dim=1)


@_register("lhs_bias_ranks", since="2.14")
def lhs_bias_ranks():
    return _seeded(lambda: (LhsBiasRanks(), (torch.randn(4, 16),)))


def get_model_and_inputs():
    return MODELS[globals()["ORACLE_MODEL"]]()


if __name__ == "__main__":
    for _name in MODELS:
        print(_name)
