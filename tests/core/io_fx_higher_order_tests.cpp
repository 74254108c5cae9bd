// Higher-order ops in FX text (cond, while_loop, wrap, tag_activation_checkpoint,
// auto_functionalized(_v2), triton_kernel_wrapper_*): one node each, no
// warning, their subgraph classes kept as text on the node (not flattened,
// not weights) and written back as nested classes.

#include "FxHigherOrderFixtures.h"
#include "FxTestSupport.h"

#include "core/io/FxSubgraphs.h"
#include "core/ir/GraphSummary.h"

#include <catch.hpp>

using namespace fusebox;
using namespace fusebox::fxtest;

namespace {

/// Reads without schemas and expects no warning.
LoadedModel readCleanHigherOrder(const std::string &text)
{
    LoadedModel m = read(text);
    INFO((m.warnings.empty() ? std::string() : m.warnings.front()));
    CHECK(m.warnings.empty());
    return m;
}

/// With the test schemas too: no warning is about a higher-order op.
void checkNoHigherOrderWarning(const std::string &text)
{
    LoadedModel m = read(text, {&testSchemas(), "m.py"});
    for (const std::string &w : m.warnings) {
        INFO(w);
        CHECK(w.find("higher_order") == std::string::npos);
    }
}

std::vector<std::string> subgraphNames(const Node &n)
{
    std::vector<std::string> names;
    for (const FxSubgraph &s : subgraphsOf(n))
        names.push_back(s.name);
    return names;
}

} // namespace

TEST_CASE("Higher-order ops: cond is one node with its two branches kept as subgraphs", "[io][fx][hop]")
{
    LoadedModel m = readCleanHigherOrder(kCond);
    const Graph &g = m.graph;
    CHECK(g.size() == 6);               // L_x_, sum_1, gt, cond, getitem, output
    CHECK(summarize(g).constants == 0); // the branches are no weights
    const Node &cond = node(g, "cond");
    CHECK(cond.op == "higher_order::cond");
    CHECK(cond.overload.empty());
    CHECK(args(g, cond) == "gt, 'subgraph:cond_true_0', 'subgraph:cond_false_0', [L_x_]");
    CHECK(subgraphArgName(cond.args()[1]) == "cond_true_0");
    CHECK(subgraphArgName(cond.args()[0]).empty());
    CHECK(subgraphNames(cond) == std::vector<std::string>{"cond_true_0", "cond_false_0"});
    CHECK(node(g, "getitem").op == "getitem");
    // Not flattened: the branches' nodes are not in the graph.
    CHECK_FALSE(g.findByName("sin").isValid());
    CHECK_FALSE(g.findByName("cond_true_0_sin").isValid());

    // The body is the class's code, dedented, with a header line per subgraph.
    CHECK(cond.opaqueBody.starts_with("# subgraph cond_true_0\nclass cond_true_0(torch.nn.Module):\n"
                                      "    def forward(self, l_x_):\n        l_x__1 = l_x_\n\n"));
    auto trueText = subgraphText(cond, "cond_true_0");
    REQUIRE(trueText);
    CHECK(trueText->find("sin: \"f32[4]\" = l_x__1.sin()") != std::string::npos);
    CHECK(trueText->find("cos") == std::string::npos);
    CHECK_FALSE(subgraphText(cond, "cond_true_9"));

    // A subgraph is FX text of its own.
    LoadedModel branch = read(*subgraphText(cond, "cond_false_0"));
    CHECK(branch.warnings.empty());
    CHECK(node(branch.graph, "cos").op == "aten::cos");
    CHECK(node(branch.graph, "mul").op == "aten::mul");
    CHECK(branch.graph.size() == 4); // l_x_, cos, mul, output

    checkNoHigherOrderWarning(kCond);
    checkRoundTrip(kCond);
    checkRoundTrip(kCond, &testSchemas());
    const std::string written = writeFxText(g);
    CHECK(written.find("cond = torch.ops.higher_order.cond(gt, self.cond_true_0, self.cond_false_0, [L_x_])")
          != std::string::npos);
    CHECK(written.find("\n    class cond_true_0(torch.nn.Module):\n        def forward(self, l_x_):\n")
          != std::string::npos);
    CHECK(written.find("\n    class cond_false_0(torch.nn.Module):\n") != std::string::npos);
}

TEST_CASE("Higher-order ops: while_loop, wrap and tag_activation_checkpoint", "[io][fx][hop]")
{
    LoadedModel loop = readCleanHigherOrder(kWhileLoop);
    const Node &w = node(loop.graph, "while_loop");
    CHECK(w.op == "higher_order::while_loop");
    CHECK(args(loop.graph, w) == "'subgraph:cond_fn_0', 'subgraph:body_fn_0', (child, L_x_), ()");
    CHECK(subgraphNames(w) == std::vector<std::string>{"cond_fn_0", "body_fn_0"});
    CHECK(subgraphText(w, "body_fn_0")->find("return (child_1, child_2)") != std::string::npos);
    CHECK(loop.graph.size() == 6); // L_x_, child, while_loop, getitem, getitem_1, output
    checkRoundTrip(kWhileLoop);

    LoadedModel wrap = readCleanHigherOrder(kWrap);
    const Node &wn = node(wrap.graph, "wrap");
    CHECK(wn.op == "higher_order::wrap");
    CHECK(args(wrap.graph, wn) == "'subgraph:wrap_body_0', L_x_");
    CHECK(subgraphText(wn, "wrap_body_0")->find("add: \"f32[4]\" = sin + l_x_") != std::string::npos);
    CHECK(wrap.graph.size() == 4);
    checkRoundTrip(kWrap);

    LoadedModel ckpt = readCleanHigherOrder(kCheckpoint);
    const Graph &g = ckpt.graph;
    const Node &tag = node(g, "tag_activation_checkpoint");
    CHECK(tag.op == "higher_order::tag_activation_checkpoint");
    CHECK(args(g, tag)
          == "'subgraph:wrap_body_0', L_x_, L_self_modules_lin_parameters_weight_, "
             "L_self_modules_lin_parameters_bias_, use_reentrant=False");
    CHECK(subgraphText(tag, "wrap_body_0")->find("torch._C._nn.linear(l_x_,") != std::string::npos);
    CHECK(g.size() == 6);
    CHECK(summarize(g).constants == 0);
    checkNoHigherOrderWarning(kCheckpoint);
    checkRoundTrip(kCheckpoint);
    checkRoundTrip(kCheckpoint, &testSchemas());
}

TEST_CASE("Higher-order ops: auto_functionalized takes the op it calls as an argument", "[io][fx][hop]")
{
    LoadedModel m = readCleanHigherOrder(kAutoFunctionalized);
    const Graph &g = m.graph;
    CHECK(g.size() == 11);
    const Node &foo = node(g, "auto_functionalized");
    CHECK(foo.op == "higher_order::auto_functionalized");
    CHECK(args(g, foo) == "'mylib::foo', x=clone, y=arg1_1");
    CHECK(foo.opaqueBody.empty()); // no subgraph
    CHECK(args(g, node(g, "auto_functionalized_1")) == "'mylib::bar', x=getitem_1, out=empty_like");
    CHECK(args(g, node(g, "getitem_3")) == "auto_functionalized_1, 1");
    checkNoHigherOrderWarning(kAutoFunctionalized);
    checkRoundTrip(kAutoFunctionalized);
    CHECK(writeFxText(g).find("torch.ops.higher_order.auto_functionalized(torch.ops.mylib.foo.default, x = clone, "
                              "y = arg1_1)")
          != std::string::npos);

    LoadedModel v2 = readCleanHigherOrder(kAutoFunctionalizedV2);
    const Node &foo2 = node(v2.graph, "auto_functionalized_v2");
    CHECK(foo2.op == "higher_order::auto_functionalized_v2");
    CHECK(args(v2.graph, foo2) == "'mylib::foo', y=arg1_1, _x_base_index=0, _all_bases=[clone]");
    CHECK(args(v2.graph, node(v2.graph, "auto_functionalized_v2_1"))
          == "'mylib::bar', x=getitem_1, _out_base_index=0, _all_bases=[empty_like]");
    checkRoundTrip(kAutoFunctionalizedV2);

    // Op values name their overload unless it is the default one.
    LoadedModel ops = readCleanHigherOrder(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        a = torch.ops.higher_order.auto_functionalized(torch.ops.aten.add_.Tensor, self = x, other = x)
        b = torch.ops.higher_order.auto_functionalized(torch.ops.mylib.foo, x = x)
        c = torch.ops.profiler._record_function_enter_new('mylib::foo', None)
        return (a, b, c)
)FX");
    CHECK(args(ops.graph, node(ops.graph, "a")) == "'aten::add_.Tensor', self=x, other=x");
    CHECK(args(ops.graph, node(ops.graph, "b")) == "'mylib::foo', x=x");
    const std::string written = writeFxText(ops.graph);
    CHECK(written.find("auto_functionalized(torch.ops.aten.add_.Tensor, self = x") != std::string::npos);
    // Only a higher-order op's args are written as op values; elsewhere the string stays a string.
    CHECK(written.find("_record_function_enter_new('mylib::foo', None)") != std::string::npos);
    checkRoundTrip(writeFxText(ops.graph));
    CHECK(opReferenceSpelling("mylib::foo") == "torch.ops.mylib.foo.default");
    CHECK(opReferenceSpelling("not an op").empty());
    CHECK(opReferenceName("torch.contiguous_format").empty());
}

TEST_CASE("Higher-order ops: triton_kernel_wrapper_mutation and _functional", "[io][fx][hop]")
{
    LoadedModel m = readCleanHigherOrder(kTritonMutation);
    const Graph &g = m.graph;
    CHECK(g.size() == 5); // x, y, empty_like_default, the kernel, output
    const Node &k = node(g, "triton_kernel_wrapper_mutation");
    CHECK(k.op == "higher_order::triton_kernel_wrapper_mutation");
    CHECK(args(g, k)
          == "kernel_idx=0, constant_args_idx=0, grid=[(4, 1, 1)], tma_descriptor_metadata={}, "
             "kwargs={'in_ptr0': x, 'in_ptr1': y, 'out_ptr': empty_like_default}");
    checkNoHigherOrderWarning(kTritonMutation);
    checkRoundTrip(kTritonMutation);

    LoadedModel f = readCleanHigherOrder(kTritonFunctional);
    const Node &fk = node(f.graph, "triton_kernel_wrapper_functional");
    CHECK(fk.op == "higher_order::triton_kernel_wrapper_functional");
    CHECK(fk.kwarg("tensors_to_clone")->toString() == "['out_ptr']");
    CHECK(args(f.graph, node(f.graph, "getitem")) == "triton_kernel_wrapper_functional, 'out_ptr'");
    CHECK(f.graph.size() == 6);
    checkRoundTrip(kTritonFunctional);
}

TEST_CASE("Higher-order ops: subgraphs nest, and keep their own subgraphs", "[io][fx][hop]")
{
    LoadedModel m = readCleanHigherOrder(kNestedCond);
    const Graph &g = m.graph;
    CHECK(g.size() == 7); // L_y_, L_x_, sum_1, gt, cond, getitem, output
    const Node &outer = node(g, "cond");
    CHECK(subgraphNames(outer) == std::vector<std::string>{"cond_true_1", "cond_false_1"});
    const std::string trueText = *subgraphText(outer, "cond_true_1");
    CHECK(trueText.find("\n    class cond_true_0(torch.nn.Module):\n") != std::string::npos);
    checkRoundTrip(kNestedCond);

    // Opened on its own, the true branch is a graph with a cond of its own.
    LoadedModel branch = readCleanHigherOrder(trueText);
    const Node &inner = node(branch.graph, "cond");
    CHECK(inner.op == "higher_order::cond");
    CHECK(subgraphNames(inner) == std::vector<std::string>{"cond_true_0", "cond_false_0"});
    CHECK(subgraphText(inner, "cond_false_0")->find("sub: \"f32[4]\" = l_x__1 - 1") != std::string::npos);
}

TEST_CASE("Higher-order ops: in a flattened submodule, bad subgraphs, body format", "[io][fx][hop]")
{
    // A wrap inside a flattened submod_0: its subgraph is named like its nodes.
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        submod_0 = self.submod_0(x);  x = None
        return (submod_0,)

    class submod_0(torch.nn.Module):
        def forward(self, x: "f32[4]"):
            wrap_body_0 = self.wrap_body_0
            wrap = torch.ops.higher_order.wrap(wrap_body_0, x)
            getitem: "f32[4]" = wrap[0]
            return getitem

        class wrap_body_0(torch.nn.Module):
            def forward(self, x: "f32[4]"):
                neg: "f32[4]" = torch.neg(x)
                return (neg,)
)FX";
    LoadedModel m = read(text);
    CHECK(m.warnings
          == std::vector<std::string>{"m.py:3: 1 × nested GraphModule calls read inline, each a module "
                                      "group of its own: self.submod_0"});
    const Node &wrap = node(m.graph, "submod_0_wrap");
    CHECK(args(m.graph, wrap) == "'subgraph:submod_0_wrap_body_0', x");
    CHECK(subgraphText(wrap, "submod_0_wrap_body_0")->starts_with("class submod_0_wrap_body_0(torch.nn.Module):\n"));
    CHECK(m.graph.size() == 4); // x, wrap, getitem, output
    checkRoundTrip(text);
    CHECK(writeFxText(m.graph).find("\n    class submod_0_wrap_body_0(torch.nn.Module):\n") != std::string::npos);

    // A subgraph class that does not parse is kept as text, with a warning.
    LoadedModel bad = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        wrap = torch.ops.higher_order.wrap(self.wrap_body_0, x)
        return (wrap,)

    class wrap_body_0(torch.nn.Module):
        def forward(self, x):
            y = x +
            return (y,)
)FX");
    REQUIRE(bad.warnings.size() == 1);
    CHECK(bad.warnings[0].starts_with("m.py:3: subgraph self.wrap_body_0 kept as text; it does not parse: m.py:8:"));
    CHECK(subgraphText(node(bad.graph, "wrap"), "wrap_body_0")->find("y = x +") != std::string::npos);

    // The opaqueBody format reads back what it joins.
    const std::vector<FxSubgraph> subs = {{"a", "class a(torch.nn.Module):\n    pass\n"}, {"b", "class b:\n"}};
    CHECK(parseSubgraphs(joinSubgraphs(subs)) == subs);
    CHECK(parseSubgraphs("block0():\n  -> ()").empty()); // another importer's body
    CHECK(subgraphArgName(Arg("subgraph:")).empty());
    CHECK(subgraphArgName(Arg(3)).empty());
}

TEST_CASE("Higher-order ops: every prefix of a cond dump reads or fails with a position", "[io][fx][hop]")
{
    const std::string full = kCond;
    for (size_t n = 0; n <= full.size(); n += 3) {
        auto result = readFxText(full.substr(0, n), {&testSchemas(), "cut.py"});
        if (!result) {
            INFO(result.error().message);
            CHECK(result.error().message.starts_with("cut.py:"));
        }
    }
}
