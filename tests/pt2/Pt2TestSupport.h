#pragma once
// What the PyTorch 2 tests share: the bridge (required: these tests fail,
// never skip, when no PyTorch 2 is set up), model captures made once per run,
// and PyTorch's op names mapped to Fusebox's for histogram comparisons.

#include "CaptureCache.h"
#include "core/pt2/Pt2Bridge.h"
#include "patterns/InductorProfile.h"
#include "torch/RunPass.h"

#include <catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace fusebox::testing {

/// The bridge to the PyTorch 2 that scripts/setup-pt2.sh made (or FUSEBOX_PYTHON).
inline pt2::Pt2Bridge &pt2Bridge()
{
    static std::unique_ptr<pt2::Pt2Bridge> bridge = [] {
        auto found = pt2::Pt2Bridge::find();
        if (!found)
            FAIL("PyTorch 2 is required for these tests: " << found.error().message);
        return std::move(*found);
    }();
    return *bridge;
}

/// The Inductor profile of the bridge's torch: the one Fusebox follows by default.
inline const ChosenProfile &bridgeProfile()
{
    static const ChosenProfile chosen = [] {
        auto info = pt2Bridge().check();
        REQUIRE(info.hasValue());
        auto found = chooseInductorProfile(info->torch);
        INFO("torch " << info->torch << (found ? "" : ": " + found.error().message));
        REQUIRE(found.hasValue());
        return *found;
    }();
    return chosen;
}

/// A pass config as `profile`'s Inductor can take it: the passes that version
/// lacks (batch_dropout under 2.6) removed, and added to `dropped`. The
/// passes keep their order, which is the order Inductor runs them in.
inline std::string configForProfile(const std::string &text, const InductorProfile &profile,
                                    std::set<std::string> &dropped)
{
    nlohmann::ordered_json config = nlohmann::ordered_json::parse(text);
    for (const char *section : {"pre_grad_fusion_options", "post_grad_fusion_options"}) {
        if (!config.contains(section))
            continue;
        nlohmann::ordered_json kept = nlohmann::ordered_json::object();
        for (const auto &[name, options] : config[section].items()) {
            if (profile.find(name))
                kept[name] = options;
            else
                dropped.insert(name);
        }
        config[section] = kept;
    }
    // A setting the version lacks (2.6 has no disabled_passes) goes too.
    if (!profile.disabledPasses && config.contains("disabled_passes")) {
        config.erase("disabled_passes");
        dropped.insert("disabled_passes");
    }
    return config.dump(2);
}

inline std::string sourcePath(const std::string &relative)
{
    return std::string(FUSEBOX_SOURCE_DIR) + "/" + relative;
}

inline std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// A model script captured once per build into build/pt2-fixtures/captures/
/// through the bridge's C++ API (shared by every test process: CaptureCache.h);
/// histograms are PyTorch's own.
struct Capture {
    std::string dir;
    pt2::CaptureResult result;
    std::string file(const std::string &name) const { return dir + "/" + name; }
};

inline const Capture &captured(const std::string &script)
{
    static std::map<std::string, Capture> cache;
    auto it = cache.find(script);
    if (it != cache.end())
        return it->second;
    Capture c;
    // Made once per build and shared by the test processes (CaptureCache.h).
    auto r = sharedCapture(pt2Bridge(), sourcePath(script), FUSEBOX_BINARY_DIR, pt2::bridgePythonDir());
    INFO(script);
    if (!r)
        FAIL(r.error().message);
    c.dir = r->outputDir;
    c.result = std::move(*r);
    return cache.emplace(script, std::move(c)).first->second;
}

/// In-place variants count as their functional op: Dynamo's `out += x` is
/// operator.iadd, which torch.export keeps as aten.add_ (aten::add_ -> aten::add).
inline std::string functionalOp(std::string op)
{
    if (op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_')
        op.pop_back();
    return op;
}

/// PyTorch's name of an ATen-level target as Fusebox names the op:
/// torch.ops.aten.addmm.default -> aten::addmm; _operator.getitem -> getitem.
/// In-place variants are folded (functionalOp). Empty for targets that are not ATen-level.
inline std::string fuseboxOpName(const std::string &pytorchTarget)
{
    std::string op;
    if (pytorchTarget == "_operator.getitem")
        op = "getitem";
    else if (pytorchTarget.rfind("torch.ops.", 0) == 0) {
        std::string rest = pytorchTarget.substr(10);
        const size_t ns = rest.find('.');
        const size_t name = rest.find('.', ns + 1);
        op = rest.substr(0, ns) + "::" + rest.substr(ns + 1, name == std::string::npos ? name : name - ns - 1);
    } else {
        return {};
    }
    return functionalOp(op);
}

inline std::map<std::string, int64_t> normalisedHistogram(const std::map<std::string, int64_t> &pytorch)
{
    std::map<std::string, int64_t> out;
    for (const auto &[target, n] : pytorch) {
        std::string op = fuseboxOpName(target);
        INFO("a target the comparison cannot map: " << target);
        REQUIRE(!op.empty());
        out[op] += n;
    }
    return out;
}

/// `fusebox-pass inspect FILE --json`, parsed; the file must open.
inline nlohmann::json inspectJson(const std::string &file)
{
    const std::string out = file + ".inspect.json";
    // A subshell, so that only stdout goes to the file and warnings stay in the output.
    RunResult r = runCommand("(" + std::string(FUSEBOX_BINARY_DIR) + "/app/fusebox-pass inspect '" + file
                             + "' --json > '" + out + "')");
    INFO(file << "\n" << r.output.substr(0, 2000));
    REQUIRE(r.exitCode == 0);
    return nlohmann::json::parse(readFile(out));
}

/// The op histogram Fusebox reads from a file, in-place variants folded.
inline std::map<std::string, int64_t> fuseboxHistogram(const nlohmann::json &inspected)
{
    std::map<std::string, int64_t> out;
    for (auto it = inspected["op_histogram"].begin(); it != inspected["op_histogram"].end(); ++it) {
        out[functionalOp(it.key())] += it.value().get<int64_t>();
    }
    return out;
}

} // namespace fusebox::testing
