#include "FxText.h"

#include "FxParser.h"
#include "FxTextReader.h"
#include "JsonSupport.h"

#include "core/ir/GraphBuilder.h"
#include "core/ir/GraphSource.h"

#include <map>

namespace fusebox {
namespace {

/// `# metadata "key" = "value"` lines before the header (writeFxText writes
/// them so that graph metadata survives a round trip).
bool readMetadataComments(std::string_view prefix, std::map<std::string, std::string> &metadata)
{
    bool found = false;
    size_t pos = 0;
    while (pos < prefix.size()) {
        size_t end = prefix.find('\n', pos);
        if (end == std::string_view::npos)
            end = prefix.size();
        std::string_view line = prefix.substr(pos, end - pos);
        pos = end + 1;
        while (!line.empty() && line.front() == ' ')
            line.remove_prefix(1);
        if (!line.starts_with("# metadata "))
            continue;
        fx::TokenizeOptions options;
        auto tokens = fx::tokenize(line.substr(11), options);
        if (!tokens || tokens->tokens.size() < 3)
            continue;
        const auto &t = tokens->tokens;
        if (t[0].kind == fx::TokenKind::String && t[1].text == "=" && t[2].kind == fx::TokenKind::String) {
            metadata[std::string(t[0].text)] = t[2].text;
            found = true;
        }
    }
    return found;
}

std::string firstLine(std::string_view text)
{
    size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos)
        return "end of file";
    std::string_view line = text.substr(start, text.find('\n', start) - start);
    if (line.size() > 40)
        return "'" + std::string(line.substr(0, 40)) + "...'";
    return "'" + std::string(line) + "'";
}

} // namespace

Expected<LoadedModel> readFxText(std::string_view text, const FxReadOptions &options)
{
    const std::string name = options.sourceName.empty() ? "<fx>" : options.sourceName;
    auto start = fx::findDumpStart(text);
    if (!start)
        return Error{name
                     + ":1:1: expected 'class GraphModule(torch.nn.Module):', 'def forward(self, ...):' or "
                       "'graph():', found "
                     + firstLine(text)};
    // An error is one line whatever text it quotes (a decoded string, an
    // annotation): control characters are escaped here, once for all.
    auto oneLine = [](const Error &e) { return Error{fx::escapeControlCharacters(e.message)}; };
    auto parsed = fx::parseFx(text, *start, name);
    if (!parsed)
        return oneLine(parsed.error());
    std::optional<FxReadOptions> withSchemas;
    if (options.awaitSchemas) {
        withSchemas = options;
        withSchemas->awaitSchemas = nullptr;
        options.awaitSchemas(*withSchemas);
    }
    LoadedModel model;
    if (Status built = fx::buildGraph(*parsed, withSchemas ? *withSchemas : options, model); !built)
        return oneLine(built.error());
    // A graph Fusebox wrote carries its metadata, the stage it was read at
    // included; for any other dump the stage is recorded once, as read: it
    // decides which of Inductor's passes see the graph, and rewrites (whose
    // nodes are ATen calls) must not move a Dynamo graph to the post-grad ones.
    // Written into the graph buildGraph() has just made, before it is handed out.
    std::map<std::string, std::string> &metadata = GraphBuilder::reopen(model.graph).metadata();
    if (!readMetadataComments(text.substr(0, start->offset), metadata)) {
        metadata["source.format"] = start->graphForm ? "fx-graph" : "fx-text";
        if (!options.sourceName.empty())
            metadata["source.path"] = options.sourceName;
        metadata["source.stage"] = hasTorchLevelCalls(model.graph) ? "pre_grad" : "post_grad";
    }
    return model;
}

Expected<LoadedModel> readFxTextFile(const std::string &path, const FxReadOptions &options)
{
    auto text = json_support::readTextFile(path);
    if (!text)
        return text.error();
    FxReadOptions withName = options;
    if (withName.sourceName.empty())
        withName.sourceName = path;
    return readFxText(*text, withName);
}

bool looksLikeFxText(std::string_view text)
{
    std::string_view head = text.substr(0, kFxTextSniffBytes);
    auto start = fx::findDumpStart(head);
    if (!start)
        return false;
    if (start->graphForm)
        return head.find('%', start->offset) != std::string_view::npos;
    return head.find("def forward(", start->offset) != std::string_view::npos;
}

} // namespace fusebox
