// What fuzz/fx_text_fuzz.cpp found in the FX reader and writer, one case
// each, on the smallest input that showed it: a refusal without file:line:
// column, or a graph that did not survive a write and a read.

#include "FxTestSupport.h"
#include "core/io/FxSubgraphs.h"

using namespace fusebox;
using namespace fusebox::fxtest;

TEST_CASE("FX fuzz findings: an unnamed slice is slice_1, which the writer keeps", "[io][fx][fuzz]")
{
    // The graph named it "slice", a builtin the writer must not assign to.
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, ids: "i64[8, 6]"):
        col: "i64[8]" = ids[(slice(None, None, None), 0)]
        return (col,)
)FX";
    LoadedModel m = read(text);
    CHECK(node(m.graph, "slice_1").op == "aten::slice");
    CHECK(args(m.graph, node(m.graph, "col")) == "slice_1, 1, 0");
    checkRoundTrip(text);
    checkRoundTrip(text, &testSchemas());
}

TEST_CASE("FX fuzz findings: a functional whose ATen op the schemas lack keeps its arguments as written",
          "[io][fx][fuzz]")
{
    // testSchemas() has neither aten::batch_norm nor aten::dropout_: the calls
    // are named by their spelling, so their arguments stay in Python's order
    // (they were bound to ATen's, then written back under the F spelling).
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 8, 8]", mean: "f32[3]", var: "f32[3]", w: "f32[3]", b: "f32[3]"):
        bn = torch.nn.functional.batch_norm(x, mean, var, w, b, False, 0.1, 1e-05)
        drop = torch.nn.functional.dropout(bn, 0.2, True, True)
        emb = torch.nn.functional.embedding(mean.long(), x)
        return (drop, emb)
)FX";
    LoadedModel m = read(text, {&testSchemas(), "m.py"});
    CHECK(node(m.graph, "bn").op == "torch.nn.functional.batch_norm");
    CHECK(args(m.graph, node(m.graph, "bn")) == "x, mean, var, w, b, False, 0.1, 1e-05");
    CHECK(node(m.graph, "drop").op == "torch.nn.functional.dropout");
    CHECK(args(m.graph, node(m.graph, "drop")) == "bn, 0.2, True, True");
    // F.embedding has no spelling to keep (its arguments are swapped to
    // aten's order): it stays aten::embedding, not an op named "".
    CHECK(node(m.graph, "emb").op == "aten::embedding");
    CHECK(hasWarning(m, "ops without a schema in libtorch 1.13, arguments kept as written: aten::batch_norm"));
    checkRoundTrip(text, &testSchemas());
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: a str(graph) target that is not a Python name is refused where it is", "[io][fx][fuzz]")
{
    CHECK(errorOf("graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %g : [num_users=1] = call_function[target=<b0Xuilt-in function getitem>](args = (%x, 0), "
                  "kwargs = {})\n"
                  "    return (g,)\n")
          == "bad.py:3:47: expected a call_function target (a dotted Python name or <built-in function ...>), "
             "found '<b0Xuilt-in function getitem>'");
    CHECK(errorOf("graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %s : [num_users=1] = call_method[target=size()](args = (%x,), kwargs = {})\n"
                  "    return (s,)\n")
          == "bad.py:3:45: expected a call_method target (a method name), found 'size()'");
    // A target across lines (the brackets let it run on) is quoted on one.
    CHECK(errorOf("graph():\n"
                  "    %x : [num_users=1] = placeholder[target=x]\n"
                  "    %g : [num_users=1] = call_function[target=<built-in (\n x)>](args = (%x,), kwargs = {})\n"
                  "    return (g,)\n")
          == "bad.py:3:47: expected a call_function target (a dotted Python name or <built-in function ...>), "
             "found '<built-in (...'");
}

TEST_CASE("FX fuzz findings: a subgraph line that reads like a subgraph header stays in its subgraph",
          "[io][fx][fuzz][hop]")
{
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        wrap_body_0 = self.wrap_body_0
        wrap = torch.ops.higher_order.wrap(wrap_body_0, x);  wrap_body_0 = x = None
        getitem: "f32[4]" = wrap[0];  wrap = None
        return (getitem,)

    class wrap_body_0(torch.nn.Module):
        def forward(self, x: "f32[4]"):
# subgraph other
            neg: "f32[4]" = torch.neg(x)
            return (neg,)
)FX";
    LoadedModel m = read(text);
    const Node &wrap = node(m.graph, "wrap");
    REQUIRE(subgraphsOf(wrap).size() == 1);
    CHECK(subgraphText(wrap, "wrap_body_0")->find("torch.neg(x)") != std::string::npos);
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: subgraphs as operands of an operator are written as self references",
          "[io][fx][fuzz][hop]")
{
    // The infix form wrote them as 'subgraph:...' strings, which read back as
    // plain strings without the classes.
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        body_a = self.body_a
        body_b = self.body_b
        odd = body_a * body_b
        return (odd,)

    class body_a(torch.nn.Module):
        def forward(self, x: "f32[4]"):
            neg: "f32[4]" = torch.neg(x)
            return (neg,)

    class body_b(torch.nn.Module):
        def forward(self, x: "f32[4]"):
            relu: "f32[4]" = torch.relu(x)
            return (relu,)
)FX";
    LoadedModel m = read(text);
    CHECK(subgraphsOf(node(m.graph, "odd")).size() == 2);
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: two nested classes of one name are refused", "[io][fx][fuzz]")
{
    CHECK(errorOf(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        sub = self.sub(x)
        return (sub,)

    class sub(torch.nn.Module):
        def forward(self, x: "f32[4]"):
            return x

    class sub(torch.nn.Module):
        def forward(self, x: "f32[4]"):
            return x
)FX") == "bad.py:10:11: expected a new class name, found 'sub' (already defined at line 6)");
}

TEST_CASE("FX fuzz findings: an unnamed call of a bare function is not named like the function", "[io][fx][fuzz]")
{
    // Named 'ault', the node hid the function ault on the second read
    // ("expected a function, found an expression").
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]", y: "f32[4]"):
        a = torch.neg(x) & ault(x, y)
        b = torch.neg(y) & ault(y, x)
        return (a, b)
)FX";
    LoadedModel m = read(text);
    CHECK(node(m.graph, "ault_1").op == "ault");
    CHECK(node(m.graph, "ault_1_1").op == "ault");
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: a subgraph kept as text keeps its block structure when indented with tabs",
          "[io][fx][fuzz][hop]")
{
    // Its lines were dedented by characters, a tab counting one, then indented
    // by four spaces: the tabs' stops moved and the second read found the
    // writer's own text badly indented.
    const std::string text = "class GraphModule(torch.nn.Module):\n"
                             "    def forward(self, x: \"f32[4]\"):\n"
                             "        wrap_body_0 = self.wrap_body_0\n"
                             "        wrap = torch.ops.higher_order.wrap(wrap_body_0, x)\n"
                             "        return (wrap,)\n"
                             "\n"
                             "    class wrap_body_0(torch.nn.Module):\n"
                             "        def forward(self, x):\n"
                             "     \t       bad = (\n" // does not parse: kept as text
                             " \t    return (x,)\n";
    LoadedModel m = read(text);
    const auto body = subgraphText(node(m.graph, "wrap"), "wrap_body_0");
    REQUIRE(body);
    CHECK(*body
          == "class wrap_body_0(torch.nn.Module):\n"
             "    def forward(self, x):\n"
             "           bad = (\n" // 5 spaces and a tab are 8 columns, 7 more, less 4
             "        return (x,)\n");
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: operator calls on lists read alike in infix and call form", "[io][fx][fuzz]")
{
    // `a + (x, y)` read as Python's operator.add, but the writer's
    // operator.add(a, (x, y)) read back as aten::add.
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]", y: "f32[4]"):
        joined = 'tag' + (x, y)
        again = operator.add('tag', (x, y))
        return (joined, again)
)FX";
    LoadedModel m = read(text);
    CHECK(node(m.graph, "joined").op == "operator.add");
    CHECK(node(m.graph, "again").op == "operator.add");
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: a string token quoted in an error stays on one line", "[io][fx][fuzz]")
{
    // The decoded string's newline split the message in two.
    const std::string error = errorOf("class GraphModule(torch.nn.Module):\n"
                                      "    def forward(self, x):\n"
                                      "        y = torch.relu(x 'a\\nb\\tc')\n"
                                      "        return (y,)\n");
    CHECK(error.find('\n') == std::string::npos);
    CHECK(error.ends_with("found string 'a\\nb\\tc'"));
    CHECK(error.starts_with("bad.py:3:"));
}

TEST_CASE("FX fuzz findings: a higher-order op written with an overload keeps it", "[io][fx][fuzz][hop]")
{
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        a = torch.ops.higher_order.wrap.odd(x)
        return (a,)
)FX";
    LoadedModel m = read(text);
    CHECK(node(m.graph, "a").op == "higher_order::wrap");
    CHECK(node(m.graph, "a").overload == "odd");
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: an annotation quoted in an error stays on one line", "[io][fx][fuzz]")
{
    const std::string error = errorOf("class GraphModule(torch.nn.Module):\n"
                                      "    def forward(self, x: \"\\n[4]\"):\n"
                                      "        return (x,)\n");
    CHECK(error.find('\n') == std::string::npos);
    CHECK(error.starts_with("bad.py:2:"));
    CHECK(error.find("found '\\n'") != std::string::npos);
}

TEST_CASE("FX fuzz findings: an attribute of a value is FX's getattr, not a call without arguments", "[io][fx][fuzz]")
{
    // `x.view` (the fuzzer cut `x.view(-1)` short with a '#') read as the
    // opaque call "Tensor.view" on x, which the writer wrote as x.view(): read
    // back, that is aten::view. As getattr(x, 'view') it is written x.view.
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 8]"):
        a = x.view
        b = x.shape
        c = getattr(x, 'real')
        return (a, b, c)
)FX";
    LoadedModel m = read(text);
    CHECK(node(m.graph, "a").op == "getattr");
    CHECK(args(m.graph, node(m.graph, "a")) == "x, 'view'");
    CHECK(node(m.graph, "b").op == "getattr");
    CHECK(node(m.graph, "c").op == "getattr");
    CHECK(args(m.graph, node(m.graph, "c")) == "x, 'real'");
    const std::string written = writeFxText(m.graph);
    CHECK(written.find("a = x.view\n") != std::string::npos);
    CHECK(written.find("c = x.real\n") != std::string::npos);
    checkRoundTrip(text);
    checkRoundTrip(text, &testSchemas());
}

TEST_CASE("FX fuzz findings: a keyword is never a name, and a module's name is renamed as the writer would",
          "[io][fx][fuzz]")
{
    // `def forward(with, ...)` read as an input named "with", which the
    // writer must call "_with": the name changed in a round trip. Python
    // refuses keywords as names, and so does the reader now.
    CHECK(errorOf("class GraphModule(torch.nn.Module):\n    def forward(self, with, x: \"f32[2]\"):\n"
                  "        return (x,)\n")
          == "bad.py:2:23: expected a name, found the keyword 'with'");
    CHECK(errorOf("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n"
                  "        True = torch.relu(x)\n        return (x,)\n")
          == "bad.py:3:9: expected a name, found the keyword 'True'");
    // A value may shadow torch or slice in Python; the writer could not assign
    // to it (the calls after it go through torch), so the reader names the node
    // as the writer writes it, and says so.
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 8]", torch: "f32[2, 8]"):
        slice = x + torch
        return (slice,)
)FX";
    LoadedModel m = read(text);
    CHECK(node(m.graph, "_torch").kind() == NodeKind::Input);
    CHECK(node(m.graph, "_slice").op == "aten::add");
    CHECK(args(m.graph, node(m.graph, "_slice")) == "x, _torch");
    CHECK(hasWarning(m, "2 × values named like a module or builtin that FX code calls through, renamed with a "
                        "leading '_': torch, slice"));
    checkRoundTrip(text);
}

TEST_CASE("FX fuzz findings: a string continued over lines is located where it starts", "[io][fx][fuzz]")
{
    // The token took the line and column of its end: an error in the
    // annotation read "bad.py:3:-1".
    CHECK(errorOf("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\\\n cpu\"):\n"
                  "        return (x,)\n")
          == "bad.py:2:33: expected a device (cpu, cuda:0) or the end of the annotation, found ' '");
}

TEST_CASE("FX fuzz findings: a torch-level call that does not fit its schema keeps its spelling", "[io][fx][fuzz]")
{
    // (1) is not a shape: the call does not fit aten::layer_norm and keeps
    // Python's argument order. As aten::layer_norm it was written with ATen's
    // parameter list, which has no room for the sixth argument (eps went).
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 16]", w: "f32[16]", b: "f32[16]"):
        ln = torch.nn.functional.layer_norm(x, (1),6 ,w, b, 1e-05)
        return (ln,)
)FX";
    LoadedModel m = read(text, {&testSchemas(), "m.py"});
    CHECK(node(m.graph, "ln").op == "torch.nn.functional.layer_norm");
    CHECK(args(m.graph, node(m.graph, "ln")) == "x, 1, 6, w, b, 1e-05");
    CHECK(hasWarning(m, "arguments kept as written"));
    checkRoundTrip(text, &testSchemas());
}

TEST_CASE("FX fuzz findings: a method called on a literal is written on the literal, which reads back",
          "[io][fx][fuzz]")
{
    // The method on a name bound to a tuple (no schema fits it, so the op
    // stays "Tensor.transpose") was written "Tensor.transpose((...), 1, 2)",
    // which does not read ("name 'Tensor' is not defined").
    for (const char *receiver : {"x.view12, (6, 4)", "7", "'ab'", "[x, 2]"}) {
        INFO(receiver);
        const std::string text = std::string("class GraphModule(torch.nn.Module):\n"
                                             "    def forward(self, x: \"f32[2, 3]\"):\n"
                                             "        t = ")
                                 + receiver
                                 + "\n"
                                   "        q = t.transpose(1, 2)\n"
                                   "        return (q,)\n";
        checkRoundTrip(text, &testSchemas());
        checkRoundTrip(text);
    }
}

TEST_CASE("FX fuzz findings: an attribute of a higher-order op's subgraph is refused where it is", "[io][fx][fuzz]")
{
    // It read as an opaque getattr node, written getattr(self.wrap_body_0,
    // 'l_x_'), which reads back as the parameter self.wrap_body_0.l_x_.
    CHECK(errorOf("class GraphModule(torch.nn.Module):\n"
                  "    def forward(self, x: \"f32[2, 4]\"):\n"
                  "        wrap_body_0 = self.wrap_body_0\n"
                  "        g = wrap_body_0.l_x_\n"
                  "        return (g,)\n"
                  "\n"
                  "    class wrap_body_0(torch.nn.Module):\n"
                  "        def forward(self, l_x_: \"f32[2, 4]\"):\n"
                  "            return (l_x_,)\n")
          == "bad.py:4:13: subgraph self.wrap_body_0 has no attribute 'l_x_'");
}

TEST_CASE("FX fuzz findings: an index written as a one-item tuple reads as the index", "[io][fx][fuzz]")
{
    // split[2,] read as aten::select of the split's list, written back as
    // split[2], which read back as a getitem: the round trip differed.
    const std::string text = "class GraphModule(torch.nn.Module):\n"
                             "    def forward(self, L_x_: \"f32[8, 32][32, 1]cpu\"):\n"
                             "        split = torch.functional.split(L_x_, 8, dim = 1)\n"
                             "        a: \"f32[8, 8][32, 1]cpu\" = split[2,]\n"
                             "        b: \"f32[8, 8][32, 1]cpu\" = split[3]\n"
                             "        return (a, b)\n";
    checkRoundTrip(text, &testSchemas());
    checkRoundTrip(text);
    auto model = readFxText(text, {.schemas = &testSchemas(), .sourceName = "x.py"});
    REQUIRE(model);
    CHECK(model->graph.node(model->graph.findByName("a"))->op == model->graph.node(model->graph.findByName("b"))->op);
}

TEST_CASE("FX fuzz findings: a value named like a function the code calls bare is written under another name",
          "[io][fx][fuzz]")
{
    // The first call's value took the name auto_functionalized, the function
    // the second line calls bare; written as it was, the value hid the
    // function ("expected a function, found an expression" on reading back).
    const std::string text = "class GraphModule(torch.nn.Module):\n"
                             "    def forward(self, x: \"f32[4]\"):\n"
                             "        a = +torch.ops.higher_order.auto_functionalized(torch.ops.aten.add_.Tensor, "
                             "self = x, other = x)\n"
                             "        b = torch.ops.higher_order/auto_functionalized(torch.Ten.mylib.foo, x = x)\n"
                             "        c = torch.ops.profiler._record_function_enter_new('mylib::foo', None)\n"
                             "        return (a, b, c)\n";
    checkRoundTrip(text);
    checkRoundTrip(text, &testSchemas());
    auto model = readFxText(text, {.sourceName = "x.py"});
    REQUIRE(model);
    const std::string written = writeFxText(model->graph);
    CHECK(written.find(" auto_functionalized = ") == std::string::npos);
}
