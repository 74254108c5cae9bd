#include "core/io/FxTextReader.h"
#include "core/ir/GraphBuilder.h"
#include "FxTestSupport.h"

#include "bench/RecsysGraphGenerator.h"

#include <catch.hpp>

#include <cmath>

using namespace fusebox;
using namespace fusebox::fxtest;

namespace {

const char *kDynamo = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[3, 4][4, 1]cpu", s0: "Sym(s0)"):
        l_x_ = L_x_
        
        # File: /tmp/model.py:12 in forward, code: a, b = torch.split(x, 2, dim=1)
        split = torch.split(l_x_, [2, 2], dim = 1);  l_x_ = None
        getitem: "f32[3, 2][4, 1]cpu" = split[0]
        getitem_1: "f32[3, 2][4, 1]cpu" = split[1];  split = None
        
        # File: /tmp/model.py:13 in forward, code: return torch.cat([b, a], 1)
        cat: "f32[3, 4][4, 1]cpu" = torch.cat([getitem_1, getitem], 1);  getitem_1 = getitem = None
        return (cat,)
)FX";

const char *kAot = R"FX(class <lambda>(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[10]"; primals_2: "f32[10]"; tangents_1: "f32[10]"; 
    
        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        mul: "f32[10]" = torch.ops.aten.mul.Tensor(primals_1, primals_2)
        mul_1: "f32[10]" = torch.ops.aten.mul.Tensor(tangents_1, primals_2);  tangents_1 = primals_2 = None
        return pytree.tree_unflatten([mul, mul_1], self._out_spec)
)FX";

const char *kGraphForm = R"FX(graph():
    %x : [num_users=1] = placeholder[target=x]
    %w : [num_users=1] = get_attr[target=layer.weight]
    %linear : [num_users=1] = call_function[target=torch._C._nn.linear](args = (%x, %w), kwargs = {})
    %view : [num_users=1] = call_method[target=view](args = (%linear, 2, 8), kwargs = {})
    %sub : [num_users=1] = call_module[target=sub.block](args = (%view,), kwargs = {})
    %relu : [num_users=1] = call_function[target=torch.ops.aten.relu.default](args = (%sub,), kwargs = {})
    %split : [num_users=1] = call_function[target=torch.split](args = (%relu, 4), kwargs = {dim: 1})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%split, 0), kwargs = {})
    return (getitem,)
)FX";

const char *kStatements = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 16]", y: "f32[2, 16]", n):
        w: "f32[16, 16]" = self.weight
        b = self.layer.bias
        c0 = getattr(self.layers, "0").scale
        lin: "f32[2, 16]" = torch.nn.functional.linear(x, w, b)
        r = F.relu(lin, inplace = False)
        r2 = F.relu(r, inplace = True)
        v = r2.view(2, 8, 2)
        p = v.permute(0, 2, 1)
        add = x + y
        sub = x - 1
        mul = x * y
        div = x / 2.5
        mm = x @ w
        neg = -x
        s = x.split(4, dim = 1)
        first = s[0]
        also_first = operator.getitem(s, 1)
        a, bb = torch.split(y, 8, 1)
        lit = torch.ops.aten.fancy.default(x, [1, [2, 3]], (4,), None, True, False, 1e-05, -inf, inf, nan, 'str', torch.int64, device(type='cuda', index=0), slice(None, 2, None), -9223372036854775808)
        sl = x[0:2]
        mod = self.linear(x)
        ext = math.sqrt(n)
        drop = F.dropout(x, p = 0.1, training = False, inplace = False)
        ln = torch.nn.functional.layer_norm(x, [16], None, None, 1e-05)
        sm = torch.sum(x, [1])
        return [add, sub]
)FX";

} // namespace

TEST_CASE("FX text: a Dynamo print_readable dump becomes IR", "[io][fx]")
{
    LoadedModel m = read(kDynamo);
    const Graph &g = m.graph;
    CHECK(g.inputs().size() == 2);
    const Node &x = node(g, "L_x_");
    CHECK(x.meta.toString() == "f32[3, 4]");
    CHECK(x.meta.strides == std::vector<int64_t>{4, 1});
    CHECK(x.meta.device == "cpu");
    CHECK(node(g, "s0").type == "SymInt");
    CHECK_FALSE(g.findByName("l_x_").isValid()); // an alias, not a node

    const Node &split = node(g, "split");
    CHECK(split.op == "aten::split_with_sizes"); // a list of sections
    CHECK(split.overload.empty());
    CHECK(args(g, split) == "L_x_, [2, 2], dim=1");
    CHECK(split.provenance.originalSpelling == "torch.split");
    CHECK(split.provenance.source.file == "/tmp/model.py");
    CHECK(split.provenance.source.line == 12);

    const Node &item = node(g, "getitem_1");
    CHECK(item.op == "getitem");
    CHECK(args(g, item) == "split, 1");
    CHECK(item.meta.toString() == "f32[3, 2]");
    const Node &cat = node(g, "cat");
    CHECK(cat.op == "aten::cat");
    CHECK(args(g, cat) == "[getitem_1, getitem], 1");
    CHECK(cat.provenance.source.line == 13);
    CHECK(g.outputValues() == std::vector<NodeId>{cat.id()});
    CHECK(g.size() == 7);
    CHECK(g.metadata().at("source.format") == "fx-text");
    CHECK(m.warnings.empty());
}

// Real Dynamo graphs, generated in PyTorch 2, are read in tests/pt2/.
TEST_CASE("FX text: a file that cannot be opened", "[io][fx]")
{
    auto missing = readFxTextFile("/nonexistent/x.py");
    REQUIRE_FALSE(missing.hasValue());
    CHECK(missing.error().message == "/nonexistent/x.py: cannot open for reading");
}

TEST_CASE("FX text: schemas pick overloads and normalise arguments", "[io][fx]")
{
    LoadedModel m = read(kDynamo, {&testSchemas(), "m.py"});
    // A list of sections is split_with_sizes, as Tensor.split calls it.
    const Node &split = node(m.graph, "split");
    CHECK(split.op == "aten::split_with_sizes");
    CHECK(split.provenance.originalSpelling == "torch.split");
    CHECK(args(m.graph, split) == "L_x_, [2, 2], 1");

    LoadedModel s = read(kStatements, {&testSchemas(), "s.py"});
    const Graph &g = s.graph;
    CHECK(node(g, "lin").op == "aten::linear");
    CHECK(node(g, "lin").provenance.originalSpelling == "torch.nn.functional.linear");
    CHECK(node(g, "r").op == "aten::relu");
    CHECK(args(g, node(g, "r")) == "lin");
    CHECK(node(g, "r2").op == "aten::relu_");
    CHECK(node(g, "v").op == "aten::view");
    CHECK(args(g, node(g, "v")) == "r2, [2, 8, 2]");
    CHECK(node(g, "v").provenance.originalSpelling == "Tensor.view");
    CHECK(args(g, node(g, "p")) == "v, [0, 2, 1]");
    CHECK(node(g, "add").qualifiedOp() == "aten::add.Tensor");
    CHECK(args(g, node(g, "add")) == "x, y");
    CHECK(node(g, "add").provenance.originalSpelling == "operator.add");
    CHECK(node(g, "sub").qualifiedOp() == "aten::sub.Scalar");
    CHECK(args(g, node(g, "sub")) == "x, 1, 1");
    CHECK(node(g, "mul").qualifiedOp() == "aten::mul.Tensor");
    CHECK(node(g, "div").qualifiedOp() == "aten::div.Scalar");
    CHECK(node(g, "mm").op == "aten::matmul");
    CHECK(node(g, "neg").op == "aten::neg");
    CHECK(node(g, "s").qualifiedOp() == "aten::split.Tensor");
    CHECK(args(g, node(g, "s")) == "x, 4, 1");
    CHECK(node(g, "drop").op == "aten::dropout");
    CHECK(args(g, node(g, "drop")) == "x, 0.1, False");
    // Trailing defaulted parameters are filled, as a TorchScript import has them.
    CHECK(args(g, node(g, "ln")) == "x, [16], None, None, 1e-05, True");
    CHECK(node(g, "sm").qualifiedOp() == "aten::sum.dim_IntList");
    CHECK(args(g, node(g, "sm")) == "x, [1], False");
    // Ops the registry lacks stay, named by their spelling, with one warning per kind.
    CHECK(node(g, "lit").op == "aten::fancy");
    INFO(s.warnings.front());
    REQUIRE(s.warnings.size() == 2); // the ops without a schema, the module call
    CHECK(s.warnings[0].starts_with("s.py:"));
    CHECK(s.warnings[0].find(" × ops without a schema in libtorch 1.13, arguments kept as written: ")
          != std::string::npos);
    CHECK(s.warnings[0].find("aten::fancy") != std::string::npos);
    // math.sqrt is Python's, a normal part of Dynamo graphs (on SymInts): no warning.
    CHECK(node(g, "ext").op == "math.sqrt");
    CHECK(!hasWarning(s, "math.sqrt"));
    CHECK(node(g, "mod").op == "call_module:linear");
    CHECK(
        hasWarning(s, "s.py:23: 1 × module calls without a class in the dump, imported as opaque nodes: self.linear"));
}

TEST_CASE("FX text: statements, literals and attributes", "[io][fx]")
{
    LoadedModel m = read(kStatements);
    const Graph &g = m.graph;
    CHECK(node(g, "w").kind() == NodeKind::Constant);
    CHECK(node(g, "w").weightKey == "weight");
    CHECK(node(g, "w").meta.toString() == "f32[16, 16]");
    CHECK(node(g, "b").weightKey == "layer.bias");
    CHECK(node(g, "c0").weightKey == "layers.0.scale");
    CHECK(node(g, "r").op == "aten::relu");
    CHECK(node(g, "r").kwargs().empty()); // inplace=False dropped
    CHECK(node(g, "r2").op == "aten::relu_");
    CHECK(node(g, "r2").provenance.originalSpelling == "F.relu"); // F.relu(x, inplace=True)
    CHECK(args(g, node(g, "add")) == "x, y");
    CHECK(args(g, node(g, "sub")) == "x, 1");
    CHECK(args(g, node(g, "div")) == "x, 2.5");
    CHECK(args(g, node(g, "s")) == "x, 4, dim=1");
    CHECK(node(g, "first").op == "getitem");
    CHECK(node(g, "also_first").op == "getitem");
    CHECK(node(g, "also_first").provenance.originalSpelling == "operator.getitem");
    CHECK(node(g, "a").op == "getitem");
    CHECK(args(g, node(g, "bb")) == "split, 1");
    CHECK(node(g, "split").op == "aten::split");
    CHECK(args(g, node(g, "lit"))
          == "x, [1, [2, 3]], (4,), None, True, False, 1e-05, -inf, inf, nan, 'str', torch.int64, "
             "device(type='cuda', index=0), slice(None, 2, None), -9223372036854775808");
    // Basic tensor indexing becomes TorchScript's slice/select chain.
    CHECK(node(g, "sl").op == "aten::slice");
    CHECK(args(g, node(g, "sl")) == "x, 0, 0, 2, 1");
    // F.dropout's Python signature bound and mapped to aten::dropout's (input, p, train).
    CHECK(args(g, node(g, "drop")) == "x, 0.1, False");
    CHECK(g.outputValues() == std::vector<NodeId>{node(g, "add").id(), node(g, "sub").id()});
    CHECK(m.warnings.size() == 1); // mod
}

TEST_CASE("FX text: AOT joint graphs take their inputs from tree_flatten_spec", "[io][fx]")
{
    LoadedModel m = read(kAot);
    const Graph &g = m.graph;
    REQUIRE(g.inputs().size() == 3);
    CHECK(g.node(g.inputs()[0])->name == "primals_1");
    CHECK(g.node(g.inputs()[2])->name == "tangents_1");
    CHECK(g.node(g.inputs()[2])->meta.toString() == "f32[10]");
    CHECK(node(g, "mul").qualifiedOp() == "aten::mul.Tensor");
    CHECK(node(g, "mul").provenance.originalSpelling.empty());
    CHECK(g.outputValues() == std::vector<NodeId>{node(g, "mul").id(), node(g, "mul_1").id()});
}

TEST_CASE("FX text: str(graph) dumps, current and older", "[io][fx]")
{
    LoadedModel m = read(kGraphForm);
    const Graph &g = m.graph;
    CHECK(g.inputs().size() == 1);
    CHECK(node(g, "w").weightKey == "layer.weight");
    CHECK(node(g, "linear").op == "aten::linear");
    CHECK(args(g, node(g, "view")) == "linear, [2, 8]");
    CHECK(node(g, "sub").op == "call_module:sub.block");
    CHECK(node(g, "relu").op == "aten::relu");
    CHECK(node(g, "relu").overload.empty());
    CHECK(args(g, node(g, "split")) == "relu, 4, dim=1");
    CHECK(node(g, "getitem").op == "getitem");
    CHECK(g.metadata().at("source.format") == "fx-graph");

    LoadedModel old = read(R"FX(graph():
    %x : [#users=1] = placeholder[target=x]
    %relu : [#users=1] = call_function[target=<built-in method relu of type object at 0x7f>](args = (%x,), kwargs = {})
    %getitem : [#users=1] = call_function[target=<built-in function getitem>](args = (%relu, 0), kwargs = {})
    %output : [#users=0] = output[target=output](args = ((%getitem,),), kwargs = {})
)FX");
    CHECK(node(old.graph, "relu").op == "aten::relu");
    CHECK(node(old.graph, "getitem").op == "getitem");
    CHECK(old.graph.outputValues().size() == 1);

    LoadedModel bare = read(
        "graph():\n    %x = placeholder[target=x]\n"
        "    %y : torch.Tensor [num_users=1] = call_method[target=relu](args = (%x,), kwargs = {})\n"
        "    return y\n");
    CHECK(node(bare.graph, "y").op == "aten::relu");
}

TEST_CASE("FX text: annotations of every PT2 variant", "[io][fx]")
{
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[s0][1]cuda:0", b: "f32[][]cpu", c: "bf16[2, 64][64, 1]cpu", d: "f8e4m3fn[4]", e: "u16[2]", f, g: "i64[s0, 2*s1 + 1]"):
        return (a, b, c, d, e, f, g)
)FX");
    const Graph &g = m.graph;
    CHECK(node(g, "a").meta.shape == std::vector<Dim>{std::string("s0")});
    CHECK(node(g, "a").meta.device == "cuda:0");
    CHECK(node(g, "b").meta.shape == std::vector<Dim>{});
    CHECK(node(g, "b").meta.strides == std::vector<int64_t>{});
    CHECK(node(g, "c").meta.dtype == DType::BFloat16);
    CHECK(node(g, "d").meta.dtype == DType::Float8E4M3FN);
    CHECK(node(g, "e").meta.dtype == DType::Unknown);
    CHECK(hasWarning(m, "m.py:2: dtype 'u16' has no Fusebox equivalent"));
    CHECK_FALSE(node(g, "f").meta.isKnown());
    CHECK(node(g, "g").meta.shapeString() == "[s0, 2*s1 + 1]");

    // PyTorch 2.0 printed annotations without quotes.
    LoadedModel old = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x : f32[2, 8], y : i64[3]):
        view : f32[16] = x.view(-1)
        return (view, y)
)FX");
    CHECK(node(old.graph, "x").meta.toString() == "f32[2, 8]");
    CHECK(node(old.graph, "view").meta.toString() == "f32[16]");
    CHECK(args(old.graph, node(old.graph, "view")) == "x, [-1]");
}

TEST_CASE("FX text: torch 2.14's Parameter(...) annotations keep their shapes", "[io][fx]")
{
    // torch 2.14's print_readable of a Dynamo graph wraps each lifted
    // parameter's annotation; it read as a type name and lost the weight's
    // shape (issue 35).
    LoadedModel m = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 16][16, 1]cpu", L_self_modules_l_parameters_weight_: "Parameter(f32[32, 16][16, 1]cpu)", L_self_modules_l_parameters_bias_: "Parameter(f32[32][1]cpu)", L_self_buffers_b_: "Buffer(i64[][]cpu)"):
        linear: "f32[8, 32][32, 1]cpu" = torch._C._nn.linear(L_x_, L_self_modules_l_parameters_weight_, L_self_modules_l_parameters_bias_)
        return (linear,)
)FX");
    const Graph &g = m.graph;
    CHECK(node(g, "L_self_modules_l_parameters_weight_").type == "Tensor");
    CHECK(node(g, "L_self_modules_l_parameters_weight_").meta.toString() == "f32[32, 16]");
    CHECK(node(g, "L_self_modules_l_parameters_weight_").meta.strides == std::vector<int64_t>{16, 1});
    CHECK(node(g, "L_self_modules_l_parameters_bias_").meta.shapeString() == "[32]");
    CHECK(node(g, "L_self_buffers_b_").meta.dtype == DType::Int64);
    CHECK(m.warnings.empty());

    // A wrapper around something that is not a tensor annotation is an error at its place.
    const std::string error = errorOf(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, w: "Parameter(q99[3])"):
        return (w,)
)FX");
    CHECK_THAT(error, Catch::Contains("bad.py:2:") && Catch::Contains("expected a dtype abbreviation"));
}

TEST_CASE("FX text: log prefixes before the header are skipped", "[io][fx]")
{
    LoadedModel m = read(R"FX(V0101 12:00:00.000 torch/_dynamo/output_graph.py:1 [__graph_code] TRACED GRAPH
 ===== __compiled_fn_1 =====
 /usr/lib/python3/dist-packages/torch/fx/_lazy_graph_module.py class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[3]"):
        relu: "f32[3]" = torch.relu(L_x_)
        return (relu,)
)FX");
    CHECK(node(m.graph, "relu").op == "aten::relu");
    CHECK(looksLikeFxText(kDynamo));
    CHECK(looksLikeFxText(kGraphForm));
    CHECK_FALSE(looksLikeFxText("{\"format\": \"fusebox-graph\"}"));
    CHECK_FALSE(looksLikeFxText("import torch\nprint('hello')\n"));
}

TEST_CASE("FX text: round trips are exact", "[io][fx]")
{
    for (const char *text : {kDynamo, kAot, kGraphForm, kStatements}) {
        checkRoundTrip(text);
        checkRoundTrip(text, &testSchemas());
    }
}

TEST_CASE("FX text: written scope and source comments read back", "[io][fx]")
{
    Graph g;
    GraphBuilder build(g);
    NodeId x = build.addInput("x", TensorMeta{DType::Float32, std::vector<Dim>{int64_t(8), std::string("s0")}, {}, ""});
    build.node(x).provenance.scope = "tower0";
    NodeId w = build.addConstant("w", "layer1.0.weight");
    build.node(w).provenance.scope = "layer1.0";
    build.node(w).provenance.source = {"/m.py", 3, 7};
    NodeId r = build.addOp("aten::relu", {x});
    build.node(r).provenance.scope = "layer1.0";
    NodeId s = build.addOp("aten::split", {r, int64_t(2)});
    build.node(s).overload = "Tensor";
    build.node(s).type = "Tensor[]";
    NodeId i = build.addOp("getitem", {s, int64_t(0)});
    NodeId sz = build.addOp("aten::sym_size", {x, int64_t(1)});
    build.node(sz).overload = "int";
    build.node(sz).type = "SymInt";
    NodeId str = build.addOp("aten::fancy", {std::string("it's \"q\"\n"), Device{"cpu", -1}, DType::Float16});
    build.setOutputs({i, sz, str});
    build.metadata()["source.format"] = "hand \"built\"";

    std::string text = writeFxText(g);
    INFO(text);
    CHECK(text.find("# scope: layer1.0") != std::string::npos);
    CHECK(text.find("# File: /m.py:3:7") != std::string::npos);
    CHECK(text.find("w = getattr(self.layer1, '0').weight") != std::string::npos);
    CHECK(text.find("split = torch.ops.aten.split.Tensor(relu, 2)  # type: Tensor[]") != std::string::npos);
    CHECK(text.find("getitem = split[0]") != std::string::npos);
    auto back = readFxText(text);
    if (!back)
        FAIL(back.error().message);
    auto diff = firstDifference(g, back->graph);
    INFO(diff.value_or(""));
    CHECK_FALSE(diff.has_value());
}

TEST_CASE("FX text: a generated recsys graph round-trips", "[io][fx]")
{
    Graph g = bench::generateRecsysGraph({.targetNodes = 2000});
    std::string text = writeFxText(g);
    auto back = readFxText(text, {.schemas = nullptr, .sourceName = "recsys.py"});
    if (!back)
        FAIL(back.error().message);
    CHECK(verify(back->graph).empty());
    auto diff = firstDifference(g, back->graph);
    INFO(diff.value_or(""));
    CHECK_FALSE(diff.has_value());
    CHECK(back->warnings.empty());
    CHECK(writeFxText(back->graph) == text);
}

TEST_CASE("FX text: a large body written in two halves is the text of one writer", "[io][fx]")
{
    // Scopes change every few nodes, so the second half starts inside a
    // scope run: a writer that did not start in the first half's state
    // would repeat that scope's comment there.
    Graph g = bench::generateRecsysGraph({.targetNodes = 30000});
    FxWriteOptions serial;
    serial.parallel = false;
    const std::string one = writeFxText(g, serial);
    const std::string two = writeFxText(g);
    REQUIRE(one.find("# scope: tower") != std::string::npos);
    REQUIRE(one.size() > 1000000);
    CHECK(one == two);
}

TEST_CASE("FX text: malformed dumps give file:line:column errors", "[io][fx]")
{
    const std::string head = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3]\"):\n";
    struct Case {
        std::string text;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {"hello\n", "bad.py:1:1: expected 'class GraphModule(torch.nn.Module):', 'def forward(self, ...):' or "
                    "'graph():', found 'hello'"},
        {head + "        y = torch.relu(x\n        return (y,)\n",
         "bad.py:4:9: expected ')' to close the '(' at 3:23, found 'return'"},
        {head + "        y = torch.relu(x))\n        return (y,)\n", "bad.py:3:26: expected end of line, found ')'"},
        {head + "        y = torch.relu(foo)\n        return (y,)\n", "bad.py:3:24: name 'foo' is not defined"},
        {head + "        y = torch.relu(x)\n        y = torch.relu(x)\n        return (y,)\n",
         "bad.py:4:9: expected a new name, found 'y' (already defined at line 3)"},
        {"class GraphModule(torch.nn.Module):\n    def helper(self, x):\n        return x\n",
         "bad.py:4:1: expected 'def forward(self, ...):' in class GraphModule, found end of block"},
        {"class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3, \"):\n        return (x,)\n",
         "bad.py:2:34: expected a dimension, found end of annotation"},
        {"class GraphModule(torch.nn.Module):\n    def forward(self, x: \"q99[3]\"):\n        return (x,)\n",
         "bad.py:2:27: expected a dtype abbreviation (f32, bf16, i64, ...), found 'q99'"},
        {head + "        y = 'abc\n        return (y,)\n", "bad.py:3:17: expected a closing ', found end of line"},
        {head + "        y = torch.relu(x)\n", "bad.py:2:5: expected a return statement in forward(), found none"},
        {head + "        y = torch.relu(x)\n      z = y\n        return (y,)\n",
         "bad.py:4:7: expected indentation of 4 spaces, found 6"},
        {head + "        y $ x\n", "bad.py:3:11: expected a token, found '$'"},
        {head + "        y: \"f32[2]\"\n        y + 1 = x\n",
         "bad.py:4:9: expected a name or names to assign to, found an expression"},
        {head + "        if x:\n            pass\n",
         "bad.py:3:9: expected a simple statement (FX code has no blocks), found 'if'"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n    %y : [num_users=1] = "
         "call_function[target=torch.relu](args = (%foo,), kwargs = {})\n    return (y,)\n",
         "bad.py:3:67: name '%foo' is not defined"},
        {"graph():\n    %x : [num_users=1] = placeholder[target=x]\n    %y : [num_users=1] = frobnicate[target=x]\n",
         "bad.py:3:26: expected placeholder, call_function, call_method, call_module, get_attr or output, found "
         "'frobnicate'"},
        {head + "        y = torch.relu(x, k = 1, 2)\n        return (y,)\n",
         "bad.py:3:34: expected a keyword argument (positional ones come first), found '2'"},
        // As in Python; the fuzzer found that `x. 2` read as a method "2", which the writer cannot write back.
        {head + "        y = torch.relu(x. 2)\n        return (y,)\n",
         "bad.py:3:27: expected an attribute name after '.', found '2'"},
    };
    for (const Case &c : cases)
        CHECK(errorOf(c.text) == c.expected);
    // Pathological nesting is an error, not a stack overflow.
    std::string deep = head + "        y = " + std::string(100000, '[') + "\n        return (y,)\n";
    CHECK(errorOf(deep).starts_with("bad.py:3:"));
    std::string negs = head + "        y = " + std::string(100000, '-') + "x\n        return (y,)\n";
    CHECK(errorOf(negs).find("levels of nesting") != std::string::npos);
}

TEST_CASE("FX text: truncating a dump anywhere never crashes", "[io][fx]")
{
    for (const char *source : {kDynamo, kStatements, kGraphForm, kAot, kSubmodules}) {
        const std::string text = source;
        size_t ok = 0;
        for (size_t cut = 0; cut <= text.size(); ++cut) {
            auto result = readFxText(std::string_view(text).substr(0, cut), {&testSchemas(), "cut.py"});
            if (result) {
                ++ok;
                INFO(text.substr(0, cut));
                INFO(formatIssues(verify(result->graph)));
                CHECK(verify(result->graph).empty());
            } else {
                CHECK(result.error().message.starts_with("cut.py:"));
            }
        }
        CHECK(ok >= 1); // at least the whole text reads
    }
}

TEST_CASE("FX text: tensor indexing reads as TorchScript's slice/select chain", "[io][fx]")
{
    const char *text = R"(class GraphModule(torch.nn.Module):
    def forward(self, ids: "i64[8, 6]"):
        col: "i64[8]" = ids[(slice(None, None, None), 0)]
        rows: "i64[2, 6]" = operator.getitem(ids, slice(1, 3, None))
        odd = ids[None]
        return (col, rows, odd)
)";
    LoadedModel m = read(text);
    const Graph &g = m.graph;
    const Node &col = node(g, "col");
    CHECK(col.op == "aten::select");
    CHECK(col.overload == "int");
    REQUIRE(col.args().size() == 3);
    const Node &full = *g.node(col.args()[0].node());
    CHECK(full.op == "aten::slice");
    CHECK(args(g, full) == "ids, 0, 0, 9223372036854775807, 1");
    CHECK(args(g, col).ends_with(", 1, 0"));
    CHECK(args(g, node(g, "rows")) == "ids, 0, 1, 3, 1");
    // None inserts a dim: Dynamo's operator.getitem, kept by its spelling (a
    // normal torch-level call, no warning).
    CHECK(node(g, "odd").op == "operator.getitem");
    CHECK(m.warnings.empty());
}

TEST_CASE("FX text: a long body parses in two halves with the graph and the errors of one parse", "[io][fx]")
{
    // 12,000 statements of 14 tokens (Dynamo's "x = f(y);  y = None" form):
    // past FxParser's 100k-token threshold, so the body is parsed in two halves.
    const int n = 12000;
    auto statement = [](int i) {
        const std::string in = "r" + std::to_string(i - 1);
        return "        r" + std::to_string(i) + " = torch.relu(" + in + ");  " + in + " = None\n";
    };
    const std::string head = "class GraphModule(torch.nn.Module):\n    def forward(self, r0):\n";
    auto dump = [&](int brokenAt, const std::string &broken) {
        std::string text = head;
        for (int i = 1; i <= n; ++i)
            text += i == brokenAt ? broken : statement(i);
        return text + "        return (r" + std::to_string(n) + ",)\n";
    };

    auto model = readFxText(dump(0, ""), {.schemas = nullptr, .sourceName = "long.py"});
    REQUIRE(model.hasValue());
    const Graph &g = model->graph;
    CHECK(g.size() == size_t(n) + 2); // the input, n relus, the output
    // Every statement is there once and in order: each relu reads the one before.
    size_t chained = 0;
    for (int i = 1; i <= n; ++i) {
        const Node *relu = g.node(g.findByName("r" + std::to_string(i)));
        if (relu && relu->args().size() == 1 && relu->args()[0].isNode()
            && g.node(relu->args()[0].node())->name == "r" + std::to_string(i - 1))
            ++chained;
    }
    CHECK(chained == size_t(n));
    CHECK(model->nodeLines.at(g.findByName("r" + std::to_string(n)).value) == n + 2);

    // A syntax error in either half is the first one, where it is.
    for (int at : {100, n / 2 + 1, n - 100}) {
        INFO("broken statement " << at);
        auto bad = readFxText(dump(at, "        r" + std::to_string(at) + " = torch.relu(x))\n"),
                              {.schemas = nullptr, .sourceName = "long.py"});
        REQUIRE_FALSE(bad.hasValue());
        const std::string column = std::to_string(
            std::string("        r" + std::to_string(at) + " = torch.relu(x)").size() + 1);
        CHECK(bad.error().message
              == "long.py:" + std::to_string(at + 2) + ":" + column + ": expected end of line, found ')'");
    }
    // Two errors, one per half: the first half's is reported.
    std::string twoErrors = dump(n - 100, "        r" + std::to_string(n - 100) + " = torch.relu(x))\n");
    const std::string early = "        r100 = torch.relu(r99);";
    twoErrors.replace(twoErrors.find(early), early.size(), "        r100 = torch.relu(r99));");
    auto first = readFxText(twoErrors, {.schemas = nullptr, .sourceName = "long.py"});
    REQUIRE_FALSE(first.hasValue());
    CHECK(first.error().message == "long.py:102:31: expected end of line, found ')'");
}

TEST_CASE("FX text: a # File: comment with a line number too long for an int still reads", "[io][fx]")
{
    // Found by the fx_text fuzzer: std::stoi threw out_of_range on it.
    const SourceLocation loc = fx::parseFileComment("/m/custom_ops.py:6415555555555555555555 in __call__, code: x");
    CHECK(loc.file == "/m/custom_ops.py");
    CHECK(loc.line == 0);
    CHECK(fx::parseFileComment("/m/model.py:23:7 in forward").line == 23);
    CHECK(fx::parseFileComment("/m/model.py:23:7 in forward").column == 7);
}

TEST_CASE("FX text: a memory format argument is written as torch's value, not as a string", "[io][fx]")
{
    // AOT graphs are full of clone(x, memory_format = torch.contiguous_format):
    // written as the string 'torch.contiguous_format', PyTorch refused the
    // graph Fusebox handed it (verification, export).
    const char *const text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[4, 8]"):
        clone = torch.ops.aten.clone.default(arg0_1, memory_format = torch.contiguous_format)
        empty = torch.ops.aten.empty.memory_format([4], dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        return (clone, empty)
)";
    auto read = readFxText(text);
    if (!read)
        FAIL(read.error().message);
    const std::string written = writeFxText(read->graph);
    INFO(written);
    CHECK(written.find("memory_format = torch.contiguous_format") != std::string::npos);
    CHECK(written.find("layout = torch.strided") != std::string::npos);
    CHECK(written.find("'torch.") == std::string::npos);
    auto back = readFxText(written);
    REQUIRE(back.hasValue());
    CHECK_FALSE(firstDifference(read->graph, back->graph).has_value());
}
