// Shapes for torch-level graphs that record only their inputs' (a GraphNet
// model.py with its meta files): Fusebox's C++ rules first, then PyTorch 2
// itself on fake tensors (the bridge's infer_shapes) for what they leave,
// whatever device the graph was recorded on.
#include "Pt2TestSupport.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace fusebox;
using namespace fusebox::testing;

namespace {

/// inspect --json with extra options; the output's JSON.
nlohmann::json inspectWith(const std::string &model, const std::string &options)
{
    const std::string out = model + ".with.json";
    RunResult r = runCommand("(" + std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + model + "' --json "
                             + options + " > '" + out + "')");
    INFO(r.output);
    REQUIRE(r.exitCode == 0);
    return nlohmann::json::parse(readFile(out));
}

struct ShapesDir {
    std::filesystem::path dir;
    ShapesDir()
        : dir(std::filesystem::path(FUSEBOX_BINARY_DIR) / ("pt2-shapes-" + std::to_string(::getpid())))
    {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    ~ShapesDir() { std::filesystem::remove_all(dir); }
};

} // namespace

TEST_CASE("Dynamo graphs get every value's shape: C++ rules, then PyTorch 2 for the rest", "[pt2][shapes]")
{
    ShapesDir d;
    const std::string model = (d.dir / "model.py").string();
    std::ofstream(model) << R"PY(import torch

class GraphModule(torch.nn.Module):
    def forward(self, L_x_: torch.Tensor, L_w_: torch.nn.parameter.Parameter):
        l_x_ = L_x_
        linear = torch._C._nn.linear(l_x_, L_w_, None);  l_x_ = L_w_ = None
        relu = torch.nn.functional.relu(linear, inplace = False);  linear = None
        mean = relu.mean(dim = 0, keepdim = True);  relu = None
        return (mean,)
)PY";
    std::ofstream(d.dir / "input_meta.py") << "class Program_weight_tensor_meta_L_x_:\n    name = \"L_x_\"\n"
                                              "    shape = [2, 8]\n    dtype = \"torch.float32\"\n";
    std::ofstream(d.dir / "weight_meta.py") << "class Program_weight_tensor_meta_L_w_:\n    name = \"L_w_\"\n"
                                               "    shape = [4, 8]\n    dtype = \"torch.float32\"\n";

    // Every op here has a C++ rule: no Python is needed (linear [2, 4] -> mean over dim 0, kept).
    auto plain = inspectJson(model);
    CHECK(plain["inputs"][0]["shape"] == "[2, 8]");
    CHECK(plain["outputs"][0]["shape"] == "[1, 4]");
    CHECK(plain["outputs"][0]["dtype"] == "f32");
    CHECK(plain["shapes"]["known"] == 3);
    CHECK(plain["shapes"]["unknown"] == 0);
    CHECK(plain["shapes"]["inferred_by"] == "Fusebox's shape rules (C++)");

    // PyTorch 2 on fake tensors gives the same, and says so.
    auto pytorch = inspectWith(model, "--shapes pytorch");
    CHECK(pytorch["outputs"][0]["shape"] == "[1, 4]");
    CHECK(pytorch["shapes"]["unknown"] == 0);
    CHECK(pytorch["shapes"]["inferred_by"].get<std::string>().starts_with("PyTorch 2."));
    CHECK(pytorch["warnings"].empty()); // no disagreement between the two
    CHECK(pytorch["op_histogram"] == plain["op_histogram"]);
    CHECK(inspectWith(model, "--shapes-from-pytorch")["shapes"] == pytorch["shapes"]);

    // An input without a shape: its dependents stay unknown, and are counted.
    std::filesystem::remove(d.dir / "weight_meta.py");
    auto partial = inspectWith(model, "--shapes fusebox");
    CHECK(partial["shapes"]["known"] == 0);
    CHECK(partial["shapes"]["unknown"] == 3);
    // No input with a shape at all: PyTorch cannot help, in one line.
    std::filesystem::remove(d.dir / "input_meta.py");
    RunResult r = runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + model
                             + "' --shapes pytorch");
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("--shapes pytorch: no tensor input of " + model + " has a shape (annotate them")
          != std::string::npos);
    r = runCommand(std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + model + "' --shapes guess");
    CHECK(r.exitCode == 1);
    CHECK(r.output.find("--shapes takes auto, pytorch or fusebox, not 'guess'") != std::string::npos);
}

TEST_CASE("PyTorch 2 infers what the C++ rules do not know, on a CUDA graph without CUDA", "[pt2][shapes]")
{
    ShapesDir d;
    const std::string model = (d.dir / "model.py").string();
    // As GraphNet records a CUDA model: inputs on cuda:0 in the meta file, a
    // factory call with a CUDA device in the graph. pixel_shuffle has no C++ rule.
    std::ofstream(model) << R"PY(import torch
from torch import device

class GraphModule(torch.nn.Module):
    def forward(self, L_x_: torch.Tensor):
        l_x_ = L_x_
        shuffled = torch.nn.functional.pixel_shuffle(l_x_, 2);  l_x_ = None
        relu = torch.relu(shuffled);  shuffled = None
        arange = torch.arange(0, 6, device = device(type='cuda', index=0))
        add = relu + arange;  relu = arange = None
        return (add,)
)PY";
    std::ofstream(d.dir / "weight_meta.py") << "class Program_weight_tensor_meta_L_x_:\n    name = \"L_x_\"\n"
                                               "    shape = [1, 8, 3, 3]\n    dtype = \"torch.float32\"\n"
                                               "    device = \"cuda:0\"\n";
    auto fusebox = inspectWith(model, "--shapes fusebox");
    CHECK(fusebox["shapes"]["unknown"] == 3); // pixel_shuffle, relu and add; arange's [6] is known
    CHECK(fusebox["shapes"]["known"] == 1);

    auto shaped = inspectJson(model); // --shapes auto: PyTorch for the rest
    INFO(shaped.dump(1));
    CHECK(shaped["shapes"]["unknown"] == 0);
    CHECK(shaped["shapes"]["known"] == 4);
    CHECK(shaped["outputs"][0]["shape"] == "[1, 2, 6, 6]");
    CHECK(shaped["outputs"][0]["dtype"] == "f32");
    CHECK(shaped["shapes"]["inferred_by"].get<std::string>().starts_with("PyTorch 2."));
}
