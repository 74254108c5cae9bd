// Shape inference in C++ (core/ir/ShapeInference.h): a Dynamo graph that
// records only its inputs' shapes gets every value's, computed by hand here
// from ATen's definitions of each op.
#include "FxTestSupport.h"

#include "core/ir/ShapeInference.h"
#include "core/ir/SymbolicSize.h"

#include <catch.hpp>

using namespace fusebox;
using namespace fusebox::fxtest;

namespace {

std::string shapeOf(const Graph &g, const std::string &name)
{
    return node(g, name).meta.toString();
}

} // namespace

TEST_CASE("inferShapes: a Dynamo graph's values from its inputs' shapes", "[ir][shapes]")
{
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 32][32, 1]cpu", L_w_: "f32[16, 32][32, 1]cpu", L_b_: "f32[16][1]cpu", L_h_: "f32[8, 2304][2304, 1]cuda:0", L_ids_: "i64[8, 5][5, 1]cpu", L_emb_: "f32[100, 12][12, 1]cpu"):
        linear = torch._C._nn.linear(L_x_, L_w_, L_b_)
        relu = torch.nn.functional.relu(linear, inplace = False)
        split = L_h_.split(768, dim = 1)
        getitem = split[0]
        getitem_1 = split[1]
        getitem_2 = split[2]
        cat = torch.cat([getitem, getitem_2], dim = 1)
        view = relu.view(2, -1, 16)
        permute = view.permute(1, 0, 2)
        sum_1 = permute.sum(dim = -1, keepdim = True)
        size = L_x_.size(0)
        mul = size * 2
        reshape = relu.reshape(mul, 8)
        lt = relu < 0.5
        sliced = L_h_[:, :8]
        unsq = sliced[(None, Ellipsis, 2)]
        emb = torch.nn.functional.embedding(L_ids_, L_emb_)
        mean = emb.mean(1)
        stacked = torch.stack([relu, relu])
        mm = torch.matmul(emb, L_emb_.t())
        conv_in = L_x_.view(2, 4, 4, 8)
        conv = torch.conv2d(conv_in, L_w_.view(16, 4, 2, 4), None, 2, 1)
        return (relu, cat, sum_1, reshape, lt, unsq, mean, stacked, mm, getitem_1, conv)
)FX");
    Graph &g = m.graph;
    const ShapeCounts before = countShapes(g);
    CHECK(before.known == 0);
    const ShapeInferenceReport report = inferShapes(g);
    INFO(shapeOf(g, "linear") << " " << shapeOf(g, "cat"));
    CHECK(shapeOf(g, "linear") == "f32[8, 16]");
    CHECK(shapeOf(g, "relu") == "f32[8, 16]");
    CHECK(node(g, "getitem").meta.device == "cuda:0");
    CHECK(shapeOf(g, "getitem_1") == "f32[8, 768]");
    CHECK(shapeOf(g, "cat") == "f32[8, 1536]");
    CHECK(shapeOf(g, "view") == "f32[2, 4, 16]");
    CHECK(shapeOf(g, "permute") == "f32[4, 2, 16]");
    CHECK(shapeOf(g, "sum_1") == "f32[4, 2, 1]");
    CHECK(shapeOf(g, "reshape") == "f32[16, 8]");
    CHECK(shapeOf(g, "lt") == "b8[8, 16]");
    CHECK(shapeOf(g, "sliced") == "f32[8, 8]");
    CHECK(shapeOf(g, "unsq") == "f32[1, 8]");
    CHECK(shapeOf(g, "emb") == "f32[8, 5, 12]");
    CHECK(shapeOf(g, "mean") == "f32[8, 12]");
    CHECK(shapeOf(g, "stacked") == "f32[2, 8, 16]");
    CHECK(shapeOf(g, "mm") == "f32[8, 5, 100]");
    // (4 + 2*1 - (2 - 1) - 1) / 2 + 1 = 3; (8 + 2 - 3 - 1) / 2 + 1 = 4.
    CHECK(shapeOf(g, "conv") == "f32[2, 16, 3, 4]");
    // The split itself is a list: not counted, and given no shape.
    CHECK_FALSE(node(g, "split").meta.shape.has_value());
    const ShapeCounts after = countShapes(g);
    std::string unknown;
    for (NodeId id : g.nodeIds())
        if (holdsOneTensor(g, id) && !g.node(id)->meta.shape)
            unknown += " %" + g.node(id)->name + " (" + g.node(id)->op + ")";
    INFO("without a shape:" << unknown);
    CHECK(after.unknown == 0);
    // Hand-counted: 22 tensor values (the two slices of L_h_[:, :8], the
    // inline L_emb_.t() and L_w_.view(...) included); `size * 2` is an int.
    CHECK(after.known == 22);
    CHECK(node(g, "mul").type == "int");
    CHECK(report.inferred == after.known);
    CHECK(report.unruledOps.empty());
    CHECK(g.metadata().at("shapes.inferred_by") == "Fusebox's shape rules (C++)");
}

TEST_CASE("inferShapes: symbolic sizes stay symbolic, unknown stays unknown", "[ir][shapes]")
{
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", L_x_: "f32[s0, 16][16, 1]cpu", L_y_, L_w_: "f32[4, 16][16, 1]cpu"):
        linear = torch._C._nn.linear(L_x_, L_w_, None)
        relu = torch.relu(linear)
        add = relu + 1.0
        view = add.view(-1, 2, 2)
        size = L_x_.size(0)
        flat = view.reshape(size, -1)
        other = L_y_ * 2
        pix = torch.nn.functional.pixel_shuffle(add, 2)
        after = pix + 1
        return (flat, other, after)
)FX");
    Graph &g = m.graph;
    const ShapeInferenceReport report = inferShapes(g);
    CHECK(shapeOf(g, "linear") == "f32[s0, 4]");
    CHECK(shapeOf(g, "add") == "f32[s0, 4]");
    CHECK(shapeOf(g, "view") == "f32[s0, 2, 2]");
    CHECK(shapeOf(g, "flat") == "f32[s0, 4]");
    // An input with no shape: what depends on it is not guessed.
    CHECK_FALSE(node(g, "other").meta.shape.has_value());
    // An op without a rule: it and its users stay unknown, and it is named.
    CHECK_FALSE(node(g, "pix").meta.shape.has_value());
    CHECK_FALSE(node(g, "after").meta.shape.has_value());
    CHECK(report.unruledOps.count("aten::pixel_shuffle") == 1);
    CHECK(report.unknown == 3);
    CHECK(countShapes(g).unknown == 3);
}

TEST_CASE("inferShapes: a recorded shape is kept, broadcasting and promotion follow PyTorch", "[ir][shapes]")
{
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, a: "f16[4, 1, 3][3, 3, 1]cpu", b: "f32[5, 1][1, 1]cpu", i: "i64[5, 3][3, 1]cpu"):
        add: "f32[7, 7]" = a + b
        mul = a * i
        div = i / 2
        fdiv = i // 2
        where = torch.where(i > 0, b, a)
        return (add, mul, div, fdiv, where)
)FX");
    Graph &g = m.graph;
    inferShapes(g);
    CHECK(shapeOf(g, "add") == "f32[7, 7]"); // the dump's own annotation wins
    CHECK(shapeOf(g, "mul") == "f16[4, 5, 3]");
    CHECK(shapeOf(g, "div") == "f32[5, 3]");
    CHECK(shapeOf(g, "fdiv") == "i64[5, 3]");
    CHECK(shapeOf(g, "where") == "f32[4, 5, 3]");
}

#include "core/ir/SymbolValues.h"

TEST_CASE("symbol values read from a graph logged with its sizes, and given to another", "[ir]")
{
    // before: x f32[s37, 128], n Sym(s37); relu(x). Logged: x f32[16, 128].
    auto make = [](Dim batch) {
        Graph g;
        GraphBuilder b(g);
        TensorMeta m;
        m.dtype = DType::Float32;
        m.shape = std::vector<Dim>{batch, int64_t(128)};
        NodeId x = b.addInput("x", m);
        b.addInput("n", {}, "SymInt");
        NodeId y = b.addOp("aten::relu", {Arg(x)}, {}, "relu");
        b.node(y).meta = m;
        b.setOutputs({Arg(y)});
        return g;
    };
    const Graph symbolic = make(std::string("s37"));
    const Graph logged = make(int64_t(16));
    auto values = symbolValues(symbolic, logged);
    REQUIRE(values);
    CHECK(*values == std::map<std::string, int64_t>{{"s37", 16}});
    CHECK(formatSymbolValues(*values) == "s37 = 16");
    const Graph sized = withSymbolValues(symbolic, *values);
    CHECK(sized.node(sized.findByName("relu"))->meta.toString() == "f32[16, 128]");
    CHECK(symbolic.node(symbolic.findByName("relu"))->meta.toString() == "f32[s37, 128]"); // a copy was sized
    // A size Fusebox computed from the symbol (a cat of two) is sized too, as
    // Inductor logs it; one naming a symbol without a value, or no
    // polynomial, stays as it is.
    Graph derived = make(std::string("s37"));
    {
        GraphBuilder b = GraphBuilder::reopen(derived);
        b.node(derived.findByName("relu")).meta.shape = std::vector<Dim>{std::string("2*s37 + 1"),
                                                                         std::string("s37 + s52"),
                                                                         std::string("((s37 + 1)//2)")};
    }
    const Graph derivedSized = withSymbolValues(derived, *values);
    CHECK(derivedSized.node(derivedSized.findByName("relu"))->meta.shapeString() == "[33, s37 + s52, ((s37 + 1)//2)]");
    // Both symbolic, or both static: nothing to give.
    CHECK(symbolValues(symbolic, symbolic)->empty());
    // One symbol at two sizes, or inputs that do not line up: no answer.
    Graph twice = make(int64_t(16));
    TensorMeta other;
    other.shape = std::vector<Dim>{int64_t(8)};
    GraphBuilder::reopen(twice).addInput("z", other);
    Graph symbolicTwice = make(std::string("s37"));
    TensorMeta sym;
    sym.shape = std::vector<Dim>{std::string("s37")};
    GraphBuilder::reopen(symbolicTwice).addInput("z", sym);
    CHECK_FALSE(symbolValues(symbolicTwice, twice));
    CHECK_FALSE(symbolValues(symbolicTwice, logged));
}

namespace {

/// SymbolicSize's spelling of a dim read back and printed.
std::string reprinted(const std::string &text)
{
    auto size = SymbolicSize::parse(Dim(text));
    return size ? toString(size->toDim()) : "(none)";
}

std::string sumOf(const std::vector<Dim> &dims)
{
    auto d = sumOfDims(dims);
    return d ? toString(*d) : "(none)";
}

std::string productOf(const std::vector<Dim> &dims)
{
    auto d = productOfDims(dims);
    return d ? toString(*d) : "(none)";
}

} // namespace

// The expected texts are sympy 1.14's str() of the same expressions, printed
// in the Debian testing root (torch 2.14) with symbols made as Dynamo makes
// them (integer=True, positive=True).
TEST_CASE("symbolic sizes are read and printed as sympy writes them", "[ir][shapes]")
{
    for (const char *text : {"s0 + 16",      "2*s0",         "s0*s1 + s0",
                             "2*s0 + s1**2", "16 - s0",      "s10 + s9",
                             "s10*s9",       "16*s0*s1",     "s0**2 + s0*s1 + 2*s1",
                             "-s0 - 1",      "-2*s0 + 2*s1", "s0**2*s1",
                             "16 - 2*s0",    "-s0*s1 + 16",  "16 - s0**2",
                             "-s0 - s1 + 3", "s0 - 16",      "2*s0*s1 - s0",
                             "s0 + u0",      "s0**3",        "1 - s0"})
        CHECK(reprinted(text) == text);
    // Other orders of the same polynomial come out in sympy's.
    CHECK(reprinted("s1 + s0") == "s0 + s1");
    CHECK(reprinted("s1*s0**2") == "s0**2*s1");
    CHECK(reprinted("s1 - s0") == "-s0 + s1");
    CHECK(reprinted("3 - s0 - s1") == "-s0 - s1 + 3");
    CHECK(reprinted("s0 - s0") == "0");
    // What sympy keeps unexpanded, or writes with other operators, is not read.
    for (const char *text : {"s1*(s0 + 1)", "((s0 + 1)//2)", "Max(1, s0)", "s0/2", "", "s0 s1", "2**s0", "s0 +"})
        CHECK(reprinted(text) == "(none)");
    // Arithmetic, as sympy does it: str(s0 + s0) is 2*s0, str(2*(s0 + 1)) is 2*s0 + 2.
    CHECK(sumOf({Dim("s37"), Dim("s37")}) == "2*s37");
    CHECK(sumOf({Dim("s0"), Dim(int64_t(16)), Dim("s1")}) == "s0 + s1 + 16");
    CHECK(sumOf({Dim("s0"), Dim("-s0 + 4")}) == "4");
    CHECK(productOf({Dim("s0"), Dim(int64_t(16)), Dim("s1")}) == "16*s0*s1");
    CHECK(productOf({Dim(int64_t(2)), Dim("s0 + 1")}) == "2*s0 + 2");
    CHECK(productOf({Dim("s1"), Dim("s0 + 1")}) == "(none)"); // sympy: s1*(s0 + 1)
    CHECK(productOf({Dim("s37"), Dim(int64_t(32))}) == "32*s37");
    CHECK(toString(*quotientOfDims(Dim("16*s0*s1"), Dim("4*s1"))) == "4*s0");
    CHECK_FALSE(quotientOfDims(Dim("s0"), Dim(int64_t(2))));
    CHECK_FALSE(quotientOfDims(Dim("s0"), Dim(int64_t(0))));
    CHECK_FALSE(quotientOfDims(Dim("s0*s1"), Dim("s0 + 1")));
    CHECK(toString(*quotientOfDims(Dim("32*s0 + 16*s1"), Dim("2*s0 + s1"))) == "16");
    CHECK_FALSE(quotientOfDims(Dim("2*s0*s1 + 2*s1"), Dim("s0 + 1"))); // only a whole multiple of a sum
    // Coefficients that would overflow give no answer, not a wrapped one.
    CHECK(reprinted("99999999999999999999*s0") == "(none)");
    CHECK(sumOf({Dim("9223372036854775807*s0"), Dim("s0")}) == "(none)");
    // Powers are capped (a graph squaring a size over and over): no answer past s0**64.
    CHECK(productOf({Dim("s0**32"), Dim("s0**32")}) == "s0**64");
    CHECK(productOf({Dim("s0**64"), Dim("s0")}) == "(none)");
    CHECK(reprinted("s0**40*s0**40") == "(none)");
}

TEST_CASE("inferShapes: sums and products of symbolic sizes", "[ir][shapes]")
{
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", s1: "Sym(s1)", L_x_: "f32[s0, 16][16, 1]cpu", L_y_: "f32[s1, 16][16, 1]cpu"):
        cat = torch.cat([L_x_, L_x_], dim = 0)
        cat_1 = torch.cat([L_x_, L_y_, L_x_], dim = 0)
        cat_2 = torch.cat([L_x_, L_x_], dim = 1)
        flat = L_x_.flatten()
        view = flat.view(-1, 8)
        rep = L_x_.repeat(3, 1)
        size = L_x_.size(0)
        size_1 = L_y_.size(0)
        mul = size * 2
        add = mul + size_1
        reshaped = cat_1.reshape(add, -1)
        halves = cat_1.view(add, 2, -1)
        return (cat, cat_2, view, rep, reshaped, halves)
)FX");
    Graph &g = m.graph;
    inferShapes(g);
    // Each as Dynamo 2.14 annotates the same code with dynamic inputs.
    CHECK(shapeOf(g, "cat") == "f32[2*s0, 16]");
    CHECK(shapeOf(g, "cat_1") == "f32[2*s0 + s1, 16]");
    CHECK(shapeOf(g, "cat_2") == "f32[s0, 32]");
    CHECK(shapeOf(g, "flat") == "f32[16*s0]");
    CHECK(shapeOf(g, "view") == "f32[2*s0, 8]");
    CHECK(shapeOf(g, "rep") == "f32[3*s0, 16]");
    CHECK(node(g, "add").type == "int");
    CHECK(shapeOf(g, "reshaped") == "f32[2*s0 + s1, 16]"); // (32*s0 + 16*s1) / (2*s0 + s1)
    CHECK(shapeOf(g, "halves") == "f32[2*s0 + s1, 2, 8]");
}
