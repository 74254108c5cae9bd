// The options every command that talks to PyTorch 2 takes (docs/pt2-bridge.md).
#include "Commands.h"

#include <iostream>

namespace fusebox::cli {

OptionSpec pythonOption()
{
    return {"--python", "CMD",
            "the Python with torch >= 2.4 to use (default: $FUSEBOX_PYTHON, else the root "
            "scripts/setup-pt2.sh makes)"};
}

OptionSpec timeoutOption()
{
    return {"--timeout", "SECONDS", "kill the Python when one request takes longer (default 600)"};
}

std::unique_ptr<pt2::Pt2Bridge> bridgeForCommand(const ParsedArgs &args, const std::string &commandName)
{
    auto bridge = pt2::Pt2Bridge::find(args.value("--python").value_or(""));
    if (!bridge) {
        std::cerr << "fusebox-pass " << commandName << ": " << bridge.error().message << "\n";
        return nullptr;
    }
    return std::move(*bridge);
}

std::optional<pt2::RequestControl> requestControlFor(const ParsedArgs &args, const std::string &commandName)
{
    pt2::RequestControl control;
    if (auto t = args.value("--timeout")) {
        try {
            size_t used = 0;
            control.timeoutSeconds = std::stod(*t, &used);
            if (used != t->size() || control.timeoutSeconds <= 0)
                throw std::invalid_argument(*t);
        } catch (const std::exception &) {
            std::cerr << "fusebox-pass " << commandName << ": --timeout '" << *t
                      << "' is not a positive number of seconds\n";
            return std::nullopt;
        }
    }
    return control;
}

} // namespace fusebox::cli
