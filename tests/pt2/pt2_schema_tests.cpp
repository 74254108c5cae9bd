// PyTorch 2's op schemas through the bridge.
#include "Pt2TestSupport.h"

#include "core/pt2/PythonCommand.h"

using namespace fusebox;
using namespace fusebox::testing;

TEST_CASE("the bridge knows PyTorch 2's ops, with their signatures as PyTorch prints them", "[pt2][schemas]")
{
    std::vector<std::string> higherOrder;
    auto schemas = pt2Bridge().schemas(&higherOrder);
    REQUIRE(schemas.hasValue());
    // Ops libtorch 1.13 does not know, met in real PT2 dumps.
    for (const char *op :
         {"prims::convert_element_type", "prims::iota", "aten::_scaled_dot_product_flash_attention_for_cpu",
          "aten::_native_batch_norm_legit_no_training", "_c10d_functional::all_reduce", "aten::_unsafe_index"})
        CHECK(!schemas->overloads(op).empty());
    // Printed by PyTorch 2.6: str(torch.ops.aten.sum.dim_IntList._schema).
    const OpSchema *sum = schemas->find("aten::sum", "dim_IntList");
    REQUIRE(sum);
    CHECK(
        sum->toString()
        == "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
    const OpSchema *relu_ = schemas->find("aten::relu_");
    REQUIRE(relu_);
    CHECK(relu_->isMutable);
    for (const char *hop : {"cond", "while_loop", "auto_functionalized"})
        CHECK(std::find(higherOrder.begin(), higherOrder.end(), hop) != higherOrder.end());
}

TEST_CASE("the installed torch's version is read from its metadata, as torch.__version__ says", "[pt2][schemas]")
{
    // What fusebox-pass chooses its Inductor profile from without importing
    // torch (seconds saved on every command): the same string the bridge
    // reports from torch.__version__.
    auto command = pt2::findPythonCommand();
    REQUIRE(command.has_value());
    auto info = pt2Bridge().check();
    REQUIRE(info.hasValue());
    const auto installed = pt2::installedTorchVersion(*command);
    REQUIRE(installed.has_value());
    CHECK(*installed == info->torch);
    // A command that is no Python says nothing; the caller asks the bridge.
    CHECK_FALSE(pt2::installedTorchVersion(pt2::PythonCommand{{"false"}, "test"}).has_value());
    CHECK_FALSE(pt2::installedTorchVersion(pt2::PythonCommand{{"/nonexistent/python3"}, "test"}).has_value());
}
