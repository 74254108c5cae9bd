#include "core/ir/ArgNormalizer.h"

#include <catch.hpp>

#include <algorithm>
#include <stdexcept>

using namespace fusebox;

namespace {

OpSchema splitSchema()
{
    return {"aten::split",
            "Tensor",
            {{"self", "Tensor", {}, false}, {"split_size", "int", {}, false}, {"dim", "int", "0", false}},
            {{"", "Tensor[]", {}, false}},
            false};
}

OpSchema layerNormSchema()
{
    return {"aten::layer_norm",
            "",
            {{"input", "Tensor", {}, false},
             {"normalized_shape", "int[]", {}, false},
             {"weight", "Tensor?", "None", false},
             {"bias", "Tensor?", "None", false},
             {"eps", "float", "1e-05", false},
             {"cudnn_enable", "bool", "True", false}},
            {{"", "Tensor", {}, false}},
            false};
}

/// aten::split's Tensor and sizes overloads, and aten::layer_norm; with
/// `marked`, the sizes overload's split_size is kwarg-only and it is mutable.
OpSchemaRegistry splitAndLayerNorm(bool marked = false)
{
    OpSchemaRegistry registry;
    registry.add(splitSchema());
    OpSchema sizes = splitSchema();
    sizes.overload = "sizes";
    sizes.arguments[1] = {"split_size", "int[]", {}, marked};
    sizes.isMutable = marked;
    registry.add(sizes);
    registry.add(layerNormSchema());
    return registry;
}

} // namespace

TEST_CASE("schema registry finds overloads", "[ir]")
{
    const OpSchemaRegistry registry = splitAndLayerNorm();
    CHECK(registry.size() == 3);
    CHECK(registry.overloads("aten::split").size() == 2);
    REQUIRE(registry.find("aten::split", "sizes"));
    CHECK(registry.find("aten::split", "sizes")->arguments[1].type == "int[]");
    CHECK(registry.find("aten::layer_norm"));
    CHECK_FALSE(registry.find("aten::split"));
    CHECK(registry.opNames() == std::vector<std::string>{"aten::layer_norm", "aten::split"});
    CHECK(splitSchema().toString() == "aten::split.Tensor(Tensor self, int split_size, int dim=0) -> Tensor[]");
}

TEST_CASE("a schema table reads back to the same registry and names a bad line", "[ir]")
{
    // The sizes overload kwarg-only and mutable, to see both come back.
    const OpSchemaRegistry registry = splitAndLayerNorm(true);
    const std::string table = registry.toTable();
    CHECK(std::count(table.begin(), table.end(), '\n') == 3); // one line a schema

    OpSchemaRegistry::TableResult read = OpSchemaRegistry::fromTable(table);
    REQUIRE(read.error.empty());
    CHECK(read.registry.size() == 3);
    CHECK(read.registry.toTable() == table);
    // Overloads keep their order, defaults (None and an empty one differ from
    // none), kwarg-only marks and mutability survive.
    const auto overloads = read.registry.overloads("aten::split");
    REQUIRE(overloads.size() == 2);
    CHECK(overloads[0]->overload == "Tensor");
    CHECK(overloads[1]->overload == "sizes");
    CHECK(overloads[1]->arguments[1].kwargOnly);
    CHECK(overloads[1]->isMutable);
    CHECK_FALSE(overloads[0]->isMutable);
    CHECK(read.registry.find("aten::layer_norm")->toString() == layerNormSchema().toString());
    CHECK(read.registry.find("aten::split", "Tensor")->arguments[2].defaultValue == "0");
    CHECK_FALSE(read.registry.find("aten::split", "Tensor")->arguments[1].defaultValue);

    // A line cut short is refused, naming it.
    const std::string cut = table.substr(0, table.find('\n') + 1) + "aten::relu\t\t0\t1\t1\tself\tTensor\n";
    read = OpSchemaRegistry::fromTable(cut);
    CHECK(read.error.rfind("line 2: expected", 0) == 0);
    // A field that would break the table is refused when it is written.
    OpSchemaRegistry bad;
    OpSchema tabbed = layerNormSchema();
    tabbed.arguments[4].defaultValue = "1e-05\t";
    bad.add(tabbed);
    CHECK_THROWS_AS(bad.toTable(), std::invalid_argument);
}

TEST_CASE("calls are normalised to the schema", "[ir]")
{
    NodeId x{0};
    SECTION("keywords move into their positions, gaps take defaults")
    {
        auto n = normalizeCall(layerNormSchema(), {{x, Arg::list({int64_t(16)})}, {{"eps", 1e-6}}});
        REQUIRE(n.hasValue());
        REQUIRE(n->args.size() == 5);
        CHECK(n->args[2].isNone());
        CHECK(n->args[3].isNone());
        CHECK(n->args[4] == Arg(1e-6));
        CHECK(n->kwargs.empty());
    }
    SECTION("errors name the op and the argument")
    {
        auto unknown = normalizeCall(splitSchema(), {{x, int64_t(2)}, {{"axis", int64_t(1)}}});
        REQUIRE_FALSE(unknown.hasValue());
        CHECK(unknown.error().message == "aten::split.Tensor: unknown keyword 'axis'");
        auto twice = normalizeCall(splitSchema(), {{x, int64_t(2), int64_t(1)}, {{"dim", int64_t(1)}}});
        REQUIRE_FALSE(twice.hasValue());
        CHECK(twice.error().message == "aten::split.Tensor: argument 'dim' given twice");
        auto many = normalizeCall(splitSchema(), {{x, int64_t(2), int64_t(1), int64_t(0)}, {}});
        REQUIRE_FALSE(many.hasValue());
        CHECK(many.error().message == "aten::split.Tensor: 4 positional arguments, the schema takes 3");
        auto missing = normalizeCall(splitSchema(), {{x}, {}});
        REQUIRE_FALSE(missing.hasValue());
        CHECK(missing.error().message == "aten::split.Tensor: missing argument 'split_size'");
    }
    SECTION("defaults parse")
    {
        CHECK(parseSchemaDefault("None")->isNone());
        CHECK(*parseSchemaDefault("[0, 0]") == Arg::list({int64_t(0), int64_t(0)}));
        CHECK(*parseSchemaDefault("[]") == Arg::list({}));
        CHECK(*parseSchemaDefault("-1") == Arg(int64_t(-1)));
        CHECK(*parseSchemaDefault("1e-05") == Arg(1e-05));
        CHECK(*parseSchemaDefault("'mean'") == Arg(std::string("mean")));
        CHECK(*parseSchemaDefault("False") == Arg(false));
        CHECK_FALSE(parseSchemaDefault("contiguous_format"));
    }
}
