#include "Commands.h"

#include "core/io/PatternFile.h"
#include "patterns/custom/PatternFromSubgraph.h"

#include <fstream>
#include <iostream>

namespace fusebox::cli {
namespace {

std::vector<std::string> splitNames(const std::string &text)
{
    std::vector<std::string> names;
    size_t start = 0;
    while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos)
            comma = text.size();
        std::string name = text.substr(start, comma - start);
        if (!name.empty())
            names.push_back(name);
        start = comma + 1;
    }
    return names;
}

int runPatternFrom(const ParsedArgs &args)
{
    if (args.positionals.size() != 1) {
        std::cerr << "fusebox-pass pattern-from: expected one MODEL argument (see --help)\n";
        return kExitUsage;
    }
    std::vector<std::string> names;
    for (const std::string &value : args.values("--nodes"))
        for (std::string &name : splitNames(value))
            names.push_back(std::move(name));
    if (names.empty()) {
        std::cerr << "fusebox-pass pattern-from: --nodes a,b,c is required (the op nodes to make a pattern of)\n";
        return kExitUsage;
    }
    auto model = loadModelForCommand(args, "pattern-from");
    if (!model)
        return kExitFailure;
    const Graph &g = model->graph;

    std::vector<NodeId> nodes;
    for (const std::string &name : names) {
        NodeId id = g.findByName(name);
        if (!id.isValid() && name[0] == '%')
            id = g.findByName(name.substr(1));
        if (!id.isValid()) {
            std::cerr << "fusebox-pass pattern-from: no node named '" << name << "' in " << args.positionals[0] << "\n";
            return kExitFailure;
        }
        nodes.push_back(id);
    }

    PatternFromOptions options;
    if (auto name = args.value("--name"))
        options.name = *name;
    options.generalizeLiterals = args.has("--generalize-literals");
    options.proposeConstraints = !args.has("--no-constraints");
    auto decl = patternFromSubgraph(g, nodes, options);
    if (!decl) {
        std::cerr << "fusebox-pass " << decl.error().message << "\n";
        return kExitFailure;
    }
    PatternFile file;
    file.patterns.push_back(std::move(*decl));
    const std::string text = writePatternFile(file);
    std::cerr << "note: the replace block is a copy of the match: the pattern changes nothing until it is edited\n";

    if (auto output = args.value("-o")) {
        std::ofstream out(*output, std::ios::binary);
        if (!(out << text) || !out.flush()) {
            std::cerr << "fusebox-pass pattern-from: cannot write " << *output << "\n";
            return kExitFailure;
        }
        std::cerr << "wrote " << *output << " (pattern " << file.patterns.front().name << ", "
                  << file.patterns.front().match.size() << " statements)\n";
        return kExitOk;
    }
    std::cout << text;
    return kExitOk;
}

} // namespace

Command patternFromCommand()
{
    return {"pattern-from",
            "pattern-from MODEL --nodes a,b,c [--name NAME] [--generalize-literals] [--no-constraints] [-o FILE]",
            "write a pattern whose match is the subgraph of the named op nodes",
            "Prints (or writes to FILE) a pattern file with one pattern: its match is the\n"
            "selected op nodes in program order, the values they read from outside the\n"
            "selection become captures, the where block proposes dtype/rank/static-shape\n"
            "constraints on those inputs, and the replacement is a copy of the match (a\n"
            "no-op to edit). It matches every structurally identical occurrence in the\n"
            "model. See docs/pattern-language.md, \"Patterns from a subgraph\".",
            {{"--nodes", "a,b,c", "the op nodes to include, by name (comma-separated; repeatable)", true},
             {"--name", "NAME", "the pattern's name (default from_selection)"},
             {"--generalize-literals", "", "make int/float literals (and lists of them) captures"},
             {"--no-constraints", "", "propose no where-constraints"},
             {"-o", "FILE", "write the pattern file here instead of stdout"},
             inputShapeOption(),
             warningsOption(),
             shapesOption(),
             shapesFromPytorchOption()},
            runPatternFrom};
}

} // namespace fusebox::cli
