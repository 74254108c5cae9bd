// The FX text reader on dumps whose forward() calls nested submodule classes
// (split_module, higher-order bodies): each class is read inline, as a module
// group of its own, with file:line:column errors inside them.
#include "FxTestSupport.h"

#include <catch.hpp>

using namespace fusebox;
using namespace fusebox::fxtest;

TEST_CASE("FX text: nested submodule classes are flattened into the graph", "[io][fx]")
{
    LoadedModel m = read(kSubmodules);
    const Graph &g = m.graph;
    CHECK_FALSE(g.findByName("submod_0").isValid()); // no call_module node
    CHECK_FALSE(g.findByName("getitem").isValid());  // submod_0[0] is the returned node itself
    const Node &neg = node(g, "submod_0_neg");
    CHECK(neg.op == "aten::neg");
    CHECK(args(g, neg) == "x");
    CHECK(neg.provenance.scope == "submod_0");
    CHECK(neg.meta.toString() == "f32[4, 8]");
    const Node &add = node(g, "submod_0_add");
    CHECK(add.op == "aten::add");
    CHECK(add.overload == "Tensor");
    CHECK(args(g, add) == "submod_0_neg, 1");
    CHECK(add.provenance.scope == "submod_0");
    const Node &relu = node(g, "relu");
    CHECK(args(g, relu) == "submod_0_add");
    CHECK(relu.provenance.scope.empty());
    CHECK(g.size() == 5); // x, neg, add, relu, output
    // Not silent: one line names what was inlined, and where.
    REQUIRE(m.warnings.size() == 1);
    CHECK(m.warnings[0]
          == "m.py:3: 1 × nested GraphModule calls read inline, each a module group of its own: self.submod_0");
    checkRoundTrip(kSubmodules);
    checkRoundTrip(kSubmodules, &testSchemas());
    CHECK(writeFxText(g).find("class submod_0") == std::string::npos);
    CHECK(writeFxText(g).find("# scope: submod_0\n") != std::string::npos);

    // A module without a nested class stays an opaque call_module node.
    LoadedModel opaque = read(R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4]"):
        linear = self.linear(x)
        return (linear,)
)FX");
    CHECK(node(opaque.graph, "linear").op == "call_module:linear");
    CHECK(hasWarning(opaque,
                     "m.py:3: 1 × module calls without a class in the dump, imported as opaque nodes: self.linear"));
}

TEST_CASE("FX text: flattened submodules bind keyword arguments and defaults", "[io][fx]")
{
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[4]", b: "f32[4]"):
        sub = self.sub(b, y = a)
        sub_1 = self.sub(a, b, alpha = 3)
        return (sub, sub_1)

    class sub(torch.nn.Module):
        def forward(self, x, y, alpha = 2):
            mul = torch.mul(y, alpha)
            out: "f32[4]" = x - mul
            return out
)FX";
    LoadedModel m = read(text);
    const Graph &g = m.graph;
    CHECK(args(g, node(g, "sub_mul")) == "a, 2");
    CHECK(args(g, node(g, "sub_out")) == "b, sub_mul");
    CHECK(node(g, "sub_out").meta.toString() == "f32[4]");
    // A second call flattens again, with unique names.
    CHECK(args(g, node(g, "sub_mul_1")) == "b, 3");
    CHECK(args(g, node(g, "sub_out_1")) == "a, sub_mul_1");
    CHECK(args(g, *g.node(g.output())) == "[sub_out, sub_out_1]");
    CHECK(m.warnings
          == std::vector<std::string>{
              "m.py:3: 2 × nested GraphModule calls read inline, each a module group of its own: self.sub ×2"});
    checkRoundTrip(text);
}

TEST_CASE("FX text: a flattened submodule's tuple is read by getitems and unpacking", "[io][fx]")
{
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        submod_1 = self.submod_1(x);  x = None
        getitem: "f32[4, 4]" = submod_1[0]
        getitem_1 = operator.getitem(submod_1, 1)
        a, b = submod_1
        last = submod_1[-1];  submod_1 = None
        cat: "f32[4, 12]" = torch.cat([getitem, getitem_1, b], 1)
        return (cat, a, last)

    class submod_1(torch.nn.Module):
        def forward(self, x: "f32[4, 8]"):
            split = torch.split(x, 4, dim = 1);  x = None
            getitem: "f32[4, 4]" = split[0]
            getitem_1: "f32[4, 4]" = split[1];  split = None
            return (getitem, getitem_1)
)FX";
    LoadedModel m = read(text);
    const Graph &g = m.graph;
    CHECK_FALSE(g.findByName("getitem").isValid());
    CHECK_FALSE(g.findByName("getitem_1").isValid());
    CHECK(node(g, "submod_1_getitem").op == "getitem");
    CHECK(args(g, node(g, "submod_1_getitem_1")) == "submod_1_split, 1");
    CHECK(args(g, node(g, "cat")) == "[submod_1_getitem, submod_1_getitem_1, submod_1_getitem_1], 1");
    CHECK(args(g, *g.node(g.output())) == "[cat, submod_1_getitem, submod_1_getitem_1]");
    // No opaque operator.getitem: only the line that says submod_1 was inlined.
    CHECK(m.warnings
          == std::vector<std::string>{"m.py:3: 1 × nested GraphModule calls read inline, each a module "
                                      "group of its own: self.submod_1"});
    checkRoundTrip(text);
    checkRoundTrip(text, &testSchemas());
}

TEST_CASE("FX text: submodules nested in submodules, with attributes and opaque children", "[io][fx]")
{
    const char *text = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 16]"):
        # File: /m.py:5 in forward, code: return self.block(x)
        block = self.block(x);  x = None
        getitem = block[0]
        return (getitem,)

    class block(torch.nn.Module):
        def forward(self, x: "f32[2, 16]"):
            weight: "f32[16, 16]" = self.weight
            # File: /m.py:9 in forward, code: y = self.inner(x @ self.weight)
            mm: "f32[2, 16]" = x @ weight
            inner = self.inner(mm)
            lin = self.linear(inner)
            return (lin,)

        class inner(torch.nn.Module):
            def forward(self, h):
                bias = self.bias
                add = h + bias
                relu = torch.relu(add)
                return relu
)FX";
    LoadedModel m = read(text);
    const Graph &g = m.graph;
    const Node &weight = node(g, "block_weight");
    CHECK(weight.kind() == NodeKind::Constant);
    CHECK(weight.weightKey == "block.weight");
    CHECK(weight.provenance.scope == "block");
    CHECK(weight.provenance.source.line == 5); // the call site's until the class has its own
    CHECK(node(g, "block_mm").provenance.source.line == 9);
    const Node &bias = node(g, "block_inner_bias");
    CHECK(bias.weightKey == "block.inner.bias");
    CHECK(bias.provenance.scope == "block.inner");
    CHECK(args(g, node(g, "block_inner_add")) == "block_mm, block_inner_bias");
    CHECK(node(g, "block_inner_relu").provenance.scope == "block.inner");
    const Node &lin = node(g, "block_lin");
    CHECK(lin.op == "call_module:block.linear");
    CHECK(args(g, lin) == "block_inner_relu");
    CHECK(lin.provenance.scope == "block");
    CHECK(args(g, *g.node(g.output())) == "[block_lin]");
    CHECK(m.warnings
          == std::vector<std::string>{
              "m.py:4: 2 × nested GraphModule calls read inline, each a module group of its own: self.block, "
              "self.block.inner",
              "m.py:14: 1 × module calls without a class in the dump, imported as opaque nodes: self.block.linear"});
    checkRoundTrip(text);

    // A dotted call reaches a child's child directly.
    LoadedModel direct = read(
        std::string(text).replace(std::string(text).find("self.block(x)"), 13, "self.block.inner(x)"));
    CHECK(node(direct.graph, "block_inner_bias").weightKey == "block.inner.bias");
    CHECK(node(direct.graph, "block_inner_relu").provenance.scope == "block.inner");
}

TEST_CASE("FX text: calls of nested classes give file:line:column errors", "[io][fx]")
{
    const std::string head = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3]\"):\n";
    const std::string sub = "        return (y,)\n\n    class sub(torch.nn.Module):\n        def forward(self, a):\n";
    const std::string body = sub + "            return (a,)\n";
    CHECK(errorOf(head + "        y = self.sub(x, x)\n" + body)
          == "bad.py:3:25: expected at most 1 positional argument for self.sub (forward at line 7), found 2");
    CHECK(errorOf(head + "        y = self.sub()\n" + body)
          == "bad.py:3:13: expected a value for parameter 'a' of self.sub (forward at line 7), found none");
    CHECK(errorOf(head + "        y = self.sub(x, b = x)\n" + body)
          == "bad.py:3:29: expected a parameter of self.sub (forward at line 7), found keyword 'b'");
    CHECK(errorOf(head + "        y = self.sub(x, a = x)\n" + body)
          == "bad.py:3:29: expected one value for parameter 'a' of self.sub (forward at line 7), found two");
    CHECK(errorOf(head + "        y = self.sub(x)\n        z = y[1]\n" + body)
          == "bad.py:4:13: expected an index below 1, found 1");
    // Errors inside the class point into it.
    const std::string call = "        y = self.sub(x)\n";
    CHECK(errorOf(head + call + sub + "            b = torch.relu(foo)\n            return (b,)\n")
          == "bad.py:8:28: name 'foo' is not defined");
    // A class that does not parse is an error only where it is called.
    const std::string broken = sub + "            if a:\n                pass\n            return (a,)\n";
    CHECK(errorOf(head + call + broken)
          == "bad.py:8:13: expected a simple statement (FX code has no blocks), found 'if' (in submodule "
             "self.sub, called at line 3)");
    auto unused = readFxText(head + "        y = torch.relu(x)\n" + broken, {nullptr, "ok.py"});
    CHECK(unused.hasValue());
    // Nesting is bounded: self.c inside class c is its own child c, 40 levels deep.
    std::string deep = "class GraphModule(torch.nn.Module):\n";
    for (int level = 0; level <= 40; ++level) {
        const std::string indent(size_t(4 * level), ' ');
        if (level > 0)
            deep += indent + "class c(torch.nn.Module):\n";
        deep += indent + "    def forward(self, x):\n" + indent + "        y = self.c(x)\n" + indent
                + "        return y\n";
    }
    CHECK(errorOf(deep).find("expected at most 32 levels of nested classes") != std::string::npos);
}
