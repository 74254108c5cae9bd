// PyTorch 2's op schemas through the bridge.
#include "Pt2TestSupport.h"

using namespace fusebox;
using namespace fusebox::testing;

TEST_CASE("the bridge knows PyTorch 2's ops, with their signatures as PyTorch prints them", "[pt2][schemas]")
{
    std::vector<std::string> higherOrder;
    auto schemas = pt2Bridge().schemas(&higherOrder);
    REQUIRE(schemas.hasValue());
    // Ops libtorch 1.13 does not know, met in real PT2 dumps.
    for (const char *op : {"prims::convert_element_type", "prims::iota", "aten::_scaled_dot_product_flash_attention_for_cpu",
                           "aten::_native_batch_norm_legit_no_training", "_c10d_functional::all_reduce",
                           "aten::_unsafe_index"})
        CHECK(!schemas->overloads(op).empty());
    // Printed by PyTorch 2.6: str(torch.ops.aten.sum.dim_IntList._schema).
    const OpSchema *sum = schemas->find("aten::sum", "dim_IntList");
    REQUIRE(sum);
    CHECK(sum->toString()
          == "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
    const OpSchema *relu_ = schemas->find("aten::relu_");
    REQUIRE(relu_);
    CHECK(relu_->isMutable);
    for (const char *hop : {"cond", "while_loop", "auto_functionalized"})
        CHECK(std::find(higherOrder.begin(), higherOrder.end(), hop) != higherOrder.end());
}
