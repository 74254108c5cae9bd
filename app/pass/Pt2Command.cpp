// fusebox-pass pt2 --check: which PyTorch 2 the bridge reaches and what it can do.
#include "Commands.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>

namespace fusebox::cli {
namespace {

int runPt2(const ParsedArgs &args)
{
    if (!args.has("--check") && !args.has("--schemas")) {
        std::cerr << "fusebox-pass pt2: say --check (or --schemas); see --help\n";
        return kExitUsage;
    }
    auto bridge = bridgeForCommand(args, "pt2");
    if (!bridge)
        return kExitFailure;
    auto control = requestControlFor(args, "pt2");
    if (!control)
        return kExitUsage;
    auto start = std::chrono::steady_clock::now();
    auto info = bridge->check(*control);
    const double checkSeconds = secondsSince(start);
    if (!info) {
        std::cerr << "fusebox-pass pt2: " << bridge->command().text() << ": " << info.error().message << "\n";
        return kExitFailure;
    }
    nlohmann::json report = {{"command", bridge->command().text()},
                             {"origin", bridge->command().origin},
                             {"python", info->python},
                             {"executable", info->executable},
                             {"torch", info->torch},
                             {"torchvision", info->torchvision},
                             {"capabilities", info->capabilities},
                             {"check_seconds", checkSeconds}};
    if (args.has("--schemas")) {
        start = std::chrono::steady_clock::now();
        std::vector<std::string> higherOrder;
        auto schemas = bridge->schemas(&higherOrder, *control);
        if (!schemas) {
            std::cerr << "fusebox-pass pt2: " << schemas.error().message << "\n";
            return kExitFailure;
        }
        report["schemas"] = schemas->size();
        report["ops"] = schemas->opNames().size();
        report["higher_order_ops"] = higherOrder;
        report["schema_cache"] = pt2::schemaCacheDir();
        report["schemas_seconds"] = secondsSince(start);
    }
    if (args.has("--json")) {
        std::cout << report.dump(2) << "\n";
        return kExitOk;
    }
    std::string capabilities;
    for (const std::string &c : info->capabilities)
        capabilities += (capabilities.empty() ? "" : ", ") + c;
    std::cout << "python command: " << bridge->command().text() << "  (from " << bridge->command().origin << ")\n"
              << "python:         " << info->python << " (" << info->executable << ")\n"
              << "torch:          " << info->torch << "\n"
              << "torchvision:    " << (info->torchvision.empty() ? "not installed" : info->torchvision) << "\n"
              << "can:            " << capabilities << "\n";
    std::printf("check took:     %.2f s\n", checkSeconds);
    if (args.has("--schemas")) {
        std::cout << "schemas:        " << report["schemas"].get<size_t>() << " (" << report["ops"].get<size_t>()
                  << " ops, " << report["higher_order_ops"].size() << " higher-order ops), cached in "
                  << pt2::schemaCacheDir() << "\n";
        std::printf("schemas took:   %.2f s\n", report["schemas_seconds"].get<double>());
    }
    return kExitOk;
}

} // namespace

Command pt2Command()
{
    return {"pt2",
            "pt2 --check [--schemas] [--json] [--python CMD]",
            "tell which PyTorch 2 the bridge uses and what it can do",
            "Starts the bridge's Python (docs/pt2-bridge.md) and prints the command, the\n"
            "Python and torch versions and what it can do: capture graphs from model\n"
            "scripts, run Inductor's own Optimus passes (compare-inductor), verify graphs\n"
            "with ops libtorch 1.13 lacks, run exported Inductor patterns. --schemas also\n"
            "loads every op schema of that torch (cached per version). Without a Python\n"
            "with torch >= 2.4 it exits 1 and says how to get one\n"
            "(bash scripts/setup-pt2.sh).",
            {{"--check", "", "check the bridge (the default action)"},
             {"--schemas", "", "also load PyTorch 2's op schemas and say how many"},
             {"--json", "", "print the findings as JSON"},
             pythonOption(),
             timeoutOption()},
            runPt2};
}

} // namespace fusebox::cli
