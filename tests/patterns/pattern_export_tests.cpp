// Exports of pattern files (patterns/custom/PatternExport.h): the TorchScript
// SubgraphRewriter IR strings of the shipped examples are exactly as expected,
// unexpressible patterns are listed with a reason (and written as comments),
// and the Inductor module registers the patterns and sets the config options.
#include <catch.hpp>

#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"
#include "core/ir/OpSchema.h"
#include "patterns/custom/PatternExport.h"

using namespace fusebox;

namespace {

const std::string kExportDir = std::string(FUSEBOX_SOURCE_DIR) + "/resources/patterns/";

PatternFile load(const std::string &name)
{
    auto file = readPatternFile(kExportDir + name);
    INFO((file ? std::string() : file.error().message));
    REQUIRE(file);
    return std::move(*file);
}

/// The aten schemas the examples use, as libtorch declares them.
const OpSchemaRegistry &exportSchemas()
{
    static const OpSchemaRegistry registry = [] {
        auto arg = [](std::string name, std::string type, std::optional<std::string> def = std::nullopt,
                      bool kwargOnly = false) {
            SchemaArgument a;
            a.name = std::move(name);
            a.type = std::move(type);
            a.defaultValue = std::move(def);
            a.kwargOnly = kwargOnly;
            return a;
        };
        auto schema = [&](std::string name, std::string overload, std::vector<SchemaArgument> args) {
            OpSchema s;
            s.name = std::move(name);
            s.overload = std::move(overload);
            s.arguments = std::move(args);
            s.returns = {arg("", "Tensor")};
            return s;
        };
        OpSchemaRegistry r;
        r.add(schema("aten::linear", "",
                     {arg("input", "Tensor"), arg("weight", "Tensor"), arg("bias", "Tensor?", "None")}));
        r.add(schema("aten::relu", "", {arg("self", "Tensor")}));
        r.add(schema("aten::gelu", "", {arg("self", "Tensor"), arg("approximate", "str", "'none'", true)}));
        r.add(schema("aten::mm", "", {arg("self", "Tensor"), arg("mat2", "Tensor")}));
        r.add(schema("aten::add", "Tensor",
                     {arg("self", "Tensor"), arg("other", "Tensor"), arg("alpha", "Scalar", "1", true)}));
        return r;
    }();
    return registry;
}

/// The raw string literal that follows `declaration` in the exported header.
std::string literalAfter(const std::string &text, const std::string &declaration)
{
    const size_t at = text.find(declaration);
    REQUIRE(at != std::string::npos);
    const size_t open = text.find("R\"FBX(", at);
    const size_t close = text.find(")FBX\"", open);
    REQUIRE(open != std::string::npos);
    REQUIRE(close != std::string::npos);
    return text.substr(open + 6, close - open - 6);
}

bool skipped(const PatternExport &e, const std::string &name, const std::string &reasonPart)
{
    for (const auto &[n, why] : e.skipped)
        if (n == name && why.find(reasonPart) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST_CASE("export torchscript: linear_relu_fusion IR strings", "[patterns][custom]")
{
    const PatternExport e = exportTorchScriptPatterns(load("linear_relu_fusion.patterns"), &exportSchemas());
    CHECK(e.skipped.empty());
    CHECK(literalAfter(e.text, "klinear_relu_fusionPattern")
          == "graph(%x, %w, %b):\n"
             "  %y = aten::linear(%x, %w, %b)\n"
             "  %r = aten::relu(%y)\n"
             "  return (%r)\n");
    CHECK(literalAfter(e.text, "klinear_relu_fusionReplacement")
          == "graph(%x, %w, %b):\n"
             "  %r = fusebox::linear_relu(%x, %w, %b)\n"
             "  return (%r)\n");
    // gelu's kwarg-only `approximate` is laid out with its default, as TorchScript graphs hold it.
    CHECK(literalAfter(e.text, "klinear_gelu_fusionPattern")
          == "graph(%x, %w, %b):\n"
             "  %y = aten::linear(%x, %w, %b)\n"
             "  %_c0 : str = prim::Constant[value=\"none\"]()\n"
             "  %r = aten::gelu(%y, %_c0)\n"
             "  return (%r)\n");
    CHECK(literalAfter(e.text, "klinear_gelu_fusionReplacement")
          == "graph(%x, %w, %b):\n"
             "  %r = fusebox::linear_gelu(%x, %w, %b)\n"
             "  return (%r)\n");
    CHECK(e.text.find("inline void registerFuseboxPatterns(torch::jit::SubgraphRewriter &rewriter)")
          != std::string::npos);
    CHECK(e.text.find("rewriter.RegisterRewritePattern(klinear_relu_fusionPattern, klinear_relu_fusionReplacement);")
          != std::string::npos);
    // users(y) == 1 is implied; the metadata guards are exported unchecked, and say so.
    CHECK(e.unchecked.size() == 6);
    CHECK(e.text.find("// NOT CHECKED by SubgraphRewriter: `dtype(x) in [f32, bf16]`") != std::string::npos);
    CHECK(e.text.find("users(y)") == std::string::npos);
}

TEST_CASE("export torchscript: add_of_matmuls IR strings, two outputs skipped", "[patterns][custom]")
{
    const PatternExport e = exportTorchScriptPatterns(load("add_of_matmuls.patterns"), &exportSchemas());
    CHECK(literalAfter(e.text, "kadd_of_matmulsPattern")
          == "graph(%a, %b, %c):\n"
             "  %p = aten::mm(%a, %b)\n"
             "  %q = aten::mm(%a, %c)\n"
             "  %_c0 : int = prim::Constant[value=1]()\n"
             "  %s = aten::add(%p, %q, %_c0)\n"
             "  return (%s)\n");
    CHECK(literalAfter(e.text, "kadd_of_matmulsReplacement")
          == "graph(%a, %b, %c):\n"
             "  %_c1 : int = prim::Constant[value=1]()\n"
             "  %_t0 = aten::add(%b, %c, %_c1)\n"
             "  %s = aten::mm(%a, %_t0)\n"
             "  return (%s)\n");
    REQUIRE(e.skipped.size() == 1);
    CHECK(skipped(e, "matmuls_sharing_lhs", "2 outputs"));
    CHECK(e.text.find("// SKIPPED matmuls_sharing_lhs: 2 outputs") != std::string::npos);
}

TEST_CASE("export torchscript: without schemas, calls keep their written arguments", "[patterns][custom]")
{
    const PatternExport e = exportTorchScriptPatterns(load("add_of_matmuls.patterns"));
    CHECK(literalAfter(e.text, "kadd_of_matmulsPattern").find("  %s = aten::add(%p, %q)\n") != std::string::npos);
}

TEST_CASE("export torchscript: variadic cat_of_slices is skipped with a reason", "[patterns][custom]")
{
    const PatternExport e = exportTorchScriptPatterns(load("cat_of_slices.patterns"), &exportSchemas());
    REQUIRE(e.skipped.size() == 1);
    CHECK(skipped(e, "cat_of_slices", "variadic"));
    CHECK(e.text.find("// SKIPPED cat_of_slices: variadic") != std::string::npos);
    CHECK(e.text.find("RegisterRewritePattern") == std::string::npos);
}

TEST_CASE("export torchscript: alternatives expand, literal equalities skip", "[patterns][custom]")
{
    auto file = parsePatternFile(R"(pattern alt {
    match {
        y = aten::linear(x, w, b)
        r = (aten::relu | aten::sigmoid)(y)
    }
    replace {
        r = fusebox::linear_relu(x, w, b)
    }
}
pattern dangling {
    match {
        p = aten::mm(a, b)
        q = aten::mm(a, c)
    }
    replace {
        q = aten::mm(c, a)
    }
}
pattern lit {
    match {
        s = aten::split.Tensor(t, size, d)
        g = getitem(s, 0)
    }
    where {
        d == 1
    }
    replace {
        g = aten::narrow(t, d, 0, size)
    }
}
)");
    REQUIRE(file);
    const PatternExport e = exportTorchScriptPatterns(*file);
    INFO(e.text);
    CHECK(literalAfter(e.text, "kalt__aten_reluPattern").find("aten::relu(%y)") != std::string::npos);
    CHECK(literalAfter(e.text, "kalt__aten_sigmoidPattern").find("aten::sigmoid(%y)") != std::string::npos);
    CHECK(skipped(e, "lit", "constraint `d == 1`"));
    CHECK(skipped(e, "dangling", "match statement 'p' does not feed the output 'q'"));
}

TEST_CASE("export inductor: register_graph_pattern per pattern and the config options", "[patterns][custom]")
{
    PassConfig config;
    config.preGradFusionOptions["batch_linear"]["min_fuse_set_size"] = int64_t{5};
    config.postGradFusionOptions["group_linear"]["require_fbgemm"] = true;
    const PatternExport e = exportInductorPatterns(load("linear_relu_fusion.patterns"), &config);
    CHECK(e.skipped.empty());
    const std::string &t = e.text;
    CHECK(t.find("from torch._inductor.pattern_matcher import") != std::string::npos);
    CHECK(t.find(
              "@register_graph_pattern(\n    CallFunction(torch.ops.aten.relu, CallFunction(torch.ops.aten.linear, "
              "KeywordArg(\"x\"), KeywordArg(\"w\"), KeywordArg(\"b\"), _users=1)),\n    pass_dict=post_grad_patterns,")
          != std::string::npos);
    CHECK(t.find("        r = torch.ops.fusebox.linear_relu(x, w, b)\n") != std::string::npos);
    CHECK(t.find("and (_dtype(match, \"x\") in [torch.float32, torch.bfloat16])") != std::string::npos);
    CHECK(t.find("inductor_config.pre_grad_fusion_options = {\n    \"batch_linear\": {\"min_fuse_set_size\": 5},\n}")
          != std::string::npos);
    CHECK(t.find("inductor_config.post_grad_fusion_options = {\n    \"group_linear\": {\"require_fbgemm\": True},\n}")
          != std::string::npos);

    // A variadic list becomes ListOf; its list capture is read back from the matched list.
    const PatternExport cat = exportInductorPatterns(load("cat_of_slices.patterns"));
    CHECK(cat.skipped.empty());
    CHECK(cat.text.find("CallFunction(torch.ops.aten.cat, ListOf(CallFunction(operator.getitem, "
                        "CallFunction(torch.ops.aten.split.Tensor, KeywordArg(\"t\"), KeywordArg(\"size\"), "
                        "KeywordArg(\"d2\"), _users=MULTIPLE), Ignored())), KeywordArg(\"d\"))")
          != std::string::npos);
    CHECK(cat.text.find("match.kwargs[\"i\"] = [_arg_at(_el, 1, None) for _el in _arg_at(_out, 0, None)]")
          != std::string::npos);
    CHECK(cat.text.find("and _consecutive(_arg(match, \"i\"))") != std::string::npos);
    CHECK(cat.text.find("pre_grad_fusion_options") == std::string::npos);

    const PatternExport mm = exportInductorPatterns(load("add_of_matmuls.patterns"));
    CHECK(mm.text.find("_replace_add_of_matmuls") != std::string::npos);
    CHECK(skipped(mm, "matmuls_sharing_lhs", "2 outputs"));
}
