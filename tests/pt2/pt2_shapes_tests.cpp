// Shapes for torch-level graphs that record only their inputs' (a GraphNet
// model.py with its meta files): Fusebox's C++ rules first, then PyTorch 2
// itself on fake tensors (the bridge's infer_shapes) for what they leave,
// whatever device the graph was recorded on.
#include "Pt2TestSupport.h"

#include "core/io/FxText.h"
#include "core/ir/ShapeInference.h"
#include "core/pt2/ChildProcess.h"
#include "core/pt2/PythonCommand.h"

#include <filesystem>
#include <fstream>
#include <regex>

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

TEST_CASE("symbolic sizes Fusebox computes read as Dynamo annotates them", "[pt2][shapes]")
{
    // Dynamo (the reference PyTorch 2) compiles code whose sizes are sums and
    // products of dynamic sizes and annotates every value; the same graph
    // with only its inputs annotated must get each value's shape, spelled
    // the same, from Fusebox's rules.
    auto python = pt2::findPythonCommand();
    REQUIRE(python);
    std::vector<std::string> argv = python->argv;
    argv.insert(argv.end(), {"-c", R"PY(import re, torch
graphs = []
def backend(gm, inputs):
    graphs.append(gm.print_readable(print_output=False))
    return gm.forward
def f(x, y):
    a = torch.cat([x, x], dim=0)
    b = torch.cat([x, y, x], dim=0)
    d = x.flatten().view(-1, 8)
    e = x.repeat(3, 1)
    n = x.size(0) * 2 + y.size(0)
    g = b.reshape(n, -1)
    h = b.view(n, 2, -1)
    s = torch.split(b, [x.size(0), y.size(0) + x.size(0)], dim=0)
    k = torch.stack([x, x], dim=1).flatten(0, 1)
    m = torch.cat([k, y], dim=0).unflatten(1, (4, -1))
    return a.sum() + d.sum() + e.sum() + g.sum() + h.sum() + s[1].sum() + m.sum()
x, y = torch.randn(5, 16), torch.randn(7, 16)
torch._dynamo.mark_dynamic(x, 0)
torch._dynamo.mark_dynamic(y, 0)
torch.compile(f, backend=backend, fullgraph=True)(x, y)
print(graphs[0])
print("# ---- stripped ----")
print(re.sub(r'^(\s+\w+): "[^"]*" = ', r'\1 = ', graphs[0], flags=re.M))
)PY"});
    auto printed = pt2::runToEnd(argv, 300'000);
    REQUIRE(printed);
    const size_t cut = printed->find("# ---- stripped ----");
    REQUIRE(cut != std::string::npos);
    auto annotated = readFxText(printed->substr(0, cut), {});
    auto stripped = readFxText(printed->substr(cut), {});
    REQUIRE(annotated);
    REQUIRE(stripped);
    inferShapes(stripped->graph);
    size_t compared = 0;
    std::string names;
    for (NodeId id : annotated->graph.nodeIds()) {
        const Node &theirs = *annotated->graph.node(id);
        if (!theirs.isOp() || !holdsOneTensor(annotated->graph, id) || !theirs.meta.shape)
            continue;
        const Node *ours = stripped->graph.node(stripped->graph.findByName(theirs.name));
        REQUIRE(ours);
        INFO(theirs.name << " " << theirs.op);
        CHECK(ours->meta.shapeString() == theirs.meta.shapeString());
        ++compared;
        names += " " + theirs.name;
    }
    INFO(names);
    // Hand-counted: the 25 tensor values Dynamo annotates: 12 sized by the
    // dynamic inputs (a, b, flatten, d, e, g, h, getitem_1, stack, k, cat_2,
    // m), 7 sums and the 6 adds of them (0-d).
    CHECK(compared == 25);
    // (2.6 names the symbols s0, s1: 2*s0 + s1; 2.14 by source: s17 + 2*s77.)
    CHECK(std::regex_search(*printed, std::regex(R"(f32\[(s\d+ \+ 2\*s\d+|2\*s\d+ \+ s\d+), 16\])")));
}
