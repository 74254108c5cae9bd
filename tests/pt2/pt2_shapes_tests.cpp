// Shapes for torch-level graphs that record only their inputs' (a GraphNet
// model.py with its meta files): one propagate_shapes request to PyTorch 2.
#include "Pt2TestSupport.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace fusebox;
using namespace fusebox::testing;

TEST_CASE("--shapes-from-pytorch gives every value of a Dynamo graph PyTorch's shape", "[pt2][shapes]")
{
    const auto dir = std::filesystem::path(FUSEBOX_BINARY_DIR) / ("pt2-shapes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string model = (dir / "model.py").string();
    std::ofstream(model) << R"PY(import torch

class GraphModule(torch.nn.Module):
    def forward(self, L_x_: torch.Tensor, L_w_: torch.nn.parameter.Parameter):
        l_x_ = L_x_
        linear = torch._C._nn.linear(l_x_, L_w_, None);  l_x_ = L_w_ = None
        relu = torch.nn.functional.relu(linear, inplace = False);  linear = None
        mean = relu.mean(dim = 0, keepdim = True);  relu = None
        return (mean,)
)PY";
    std::ofstream(dir / "input_meta.py") << "class Program_weight_tensor_meta_L_x_:\n    name = \"L_x_\"\n"
                                            "    shape = [2, 8]\n    dtype = \"torch.float32\"\n";
    std::ofstream(dir / "weight_meta.py") << "class Program_weight_tensor_meta_L_w_:\n    name = \"L_w_\"\n"
                                             "    shape = [4, 8]\n    dtype = \"torch.float32\"\n";

    // Without: the inputs have the meta files' shapes, the output none.
    auto plain = inspectJson(model);
    CHECK(plain["inputs"][0]["shape"] == "[2, 8]");
    CHECK(plain["outputs"][0].value("shape", "") == "");

    // With: PyTorch's shape for the output (linear [2, 4] -> mean over dim 0, kept).
    RunResult r = runCommand("(" + std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + model
                             + "' --json --shapes-from-pytorch > '" + model + ".shaped.json')");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    auto shaped = nlohmann::json::parse(readFile(model + ".shaped.json"));
    CHECK(shaped["outputs"][0]["shape"] == "[1, 4]");
    CHECK(shaped["outputs"][0]["dtype"] == "f32");
    CHECK(shaped["op_histogram"] == plain["op_histogram"]);
    CHECK(shaped["warnings"].empty());

    // An input without a shape: said in one line, nothing half-done.
    std::filesystem::remove(dir / "weight_meta.py");
    r = runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + model + "' --shapes-from-pytorch");
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("--shapes-from-pytorch: input L_w_ has no static shape (annotate it, or put GraphNet's "
                        "weight_meta.py / input_meta.py beside the dump)")
          != std::string::npos);
    std::filesystem::remove_all(dir);
}
