#pragma once
// Helpers shared by the FX text reader tests: read with checks, node lookup,
// argument printing and round trips (the schema registry is FxTestSchemas.h).

#include "FxTestSchemas.h"
#include "core/io/FxText.h"
#include "core/ir/GraphCompare.h"
#include "core/ir/Verifier.h"

#include <catch.hpp>

#include <string>

namespace fusebox::fxtest {

inline LoadedModel read(const std::string &text,
                        const FxReadOptions &options = {.schemas = nullptr, .sourceName = "m.py"})
{
    auto result = readFxText(text, options);
    INFO(text);
    if (!result)
        FAIL(result.error().message);
    CHECK(verify(result->graph).empty());
    INFO(formatIssues(verify(result->graph)));
    return std::move(result.value());
}

inline std::string errorOf(const std::string &text)
{
    auto result = readFxText(text, {.schemas = &testSchemas(), .sourceName = "bad.py"});
    INFO(text);
    REQUIRE_FALSE(result.hasValue());
    return result.error().message;
}

inline const Node &node(const Graph &g, const std::string &name)
{
    NodeId id = g.findByName(name);
    INFO(name);
    REQUIRE(id.isValid());
    return *g.node(id);
}

inline std::string args(const Graph &g, const Node &n)
{
    std::string s;
    for (const Arg &a : n.args())
        s += (s.empty() ? "" : ", ") + a.toString([&g](NodeId id) { return g.node(id)->name; });
    for (const NamedArg &kw : n.kwargs())
        s += (s.empty() ? "" : ", ") + kw.name + "=" + kw.value.toString([&g](NodeId id) { return g.node(id)->name; });
    return s;
}

inline bool hasWarning(const LoadedModel &m, const std::string &part)
{
    for (const std::string &w : m.warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

/// text -> IR -> text -> IR: the two graphs are identical and the second
/// write equals the first.
inline void checkRoundTrip(const std::string &text, const OpSchemaRegistry *schemas = nullptr)
{
    FxReadOptions options{schemas, "m.py"};
    auto first = readFxText(text, options);
    INFO(text);
    REQUIRE(first.hasValue());
    std::string written = writeFxText(first->graph);
    INFO(written);
    auto second = readFxText(written, {schemas, "again.py"});
    if (!second)
        FAIL(second.error().message);
    auto diff = firstDifference(first->graph, second->graph);
    INFO(diff.value_or(""));
    CHECK_FALSE(diff.has_value());
    CHECK(writeFxText(second->graph) == written);
}

/// A Dynamo dump whose forward() calls a nested submodule class (the FX
/// submodule tests, and the truncation test of io_fx_text_tests.cpp).
inline const char *const kSubmodules = R"FX(class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 8]"):
        submod_0 = self.submod_0(x);  x = None
        getitem: "f32[4, 8]" = submod_0[0];  submod_0 = None
        relu: "f32[4, 8]" = torch.relu(getitem);  getitem = None
        return (relu,)

    class submod_0(torch.nn.Module):
        def forward(self, x: "f32[4, 8]"):
            neg: "f32[4, 8]" = torch.neg(x);  x = None
            add: "f32[4, 8]" = torch.ops.aten.add.Tensor(neg, 1);  neg = None
            return (add,)
)FX";

} // namespace fusebox::fxtest
