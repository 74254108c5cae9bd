#include "TorchTraceGraphs.h"

#include "JsonSupport.h"
#include "core/ir/GraphBuilder.h"
#include "core/ir/TextSplit.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

namespace fusebox {
namespace {

namespace fs = std::filesystem;

struct CachedIndex {
    uintmax_t size = 0;
    fs::file_time_type time;
    std::shared_ptr<const TraceLog> log;
};

/// A stamp of the path: for a directory, its rank logs' sizes summed and the newest time.
std::pair<uintmax_t, fs::file_time_type> stampOf(const std::string &path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return {fs::file_size(path, ec), fs::last_write_time(path, ec)};
    uintmax_t size = 0;
    fs::file_time_type newest{};
    for (const auto &entry : fs::directory_iterator(path, ec)) {
        if (!entry.is_regular_file(ec))
            continue;
        size += entry.file_size(ec);
        newest = std::max(newest, entry.last_write_time(ec));
    }
    return {size, newest};
}

/// Letters and digits only: Dynamo names the placeholder of source L['x'] L_x_.
std::string alnum(std::string_view text)
{
    std::string out;
    for (char c : text)
        if (std::isalnum(static_cast<unsigned char>(c)))
            out += c;
    return out;
}

/// Inputs the payload annotates with no shape take their compile's
/// describe_tensor sizes, matched by source (L['x'] → L_x_). Returns how many.
size_t applyDescribedTensors(Graph &graph, const TraceCompile &compile)
{
    size_t given = 0;
    GraphBuilder build = GraphBuilder::reopen(graph); // the reader's graph, not handed out yet
    for (NodeId id : graph.inputs()) {
        const Node *input = graph.node(id);
        if (input->type != "Tensor" || input->meta.shape)
            continue;
        const std::string key = alnum(input->name);
        for (const TraceCompile::TensorRecord &record : compile.tensors) {
            if (record.source.empty() || alnum(record.source) != key)
                continue;
            std::vector<Dim> shape;
            for (const std::string &size : record.size) {
                if (!size.empty() && std::all_of(size.begin(), size.end(), [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c));
                    }))
                    shape.emplace_back(static_cast<int64_t>(std::stoll(size)));
                else
                    shape.emplace_back(size); // symbolic, kept by name
            }
            Node &node = build.node(id);
            node.meta.shape = std::move(shape);
            if (node.meta.dtype == DType::Unknown)
                if (auto dtype = parseDType(record.dtype))
                    node.meta.dtype = *dtype;
            ++given;
            break;
        }
    }
    return given;
}

bool isIdentifierStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The identifiers of a statement's text outside string literals.
std::vector<std::string_view> identifiersIn(std::string_view text)
{
    std::vector<std::string_view> names;
    for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            const size_t close = text.find(c, i + 1);
            i = close == std::string_view::npos ? text.size() : close + 1;
        } else if (isIdentifierStart(c) && (i == 0 || (!isIdentifierChar(text[i - 1]) && text[i - 1] != '.'))) {
            size_t end = i;
            while (end < text.size() && isIdentifierChar(text[end]))
                ++end;
            names.push_back(text.substr(i, end - i));
            i = end;
        } else {
            ++i;
        }
    }
    return names;
}

/// One statement of forward()'s body, with the comment lines before it.
struct ForwardStatement {
    size_t first, last; // line range
    std::string_view defines;
    std::vector<std::string_view> uses;
};

/// The body's statements after line `def`, up to `return`.
std::vector<ForwardStatement> statementsOf(const std::vector<std::string_view> &lines, size_t def)
{
    std::vector<ForwardStatement> statements;
    size_t pendingStart = def + 1;
    for (size_t at = def + 1; at < lines.size(); ++at) {
        std::string_view line = lines[at];
        const size_t indent = line.find_first_not_of(' ');
        if (indent == std::string_view::npos || line[indent] == '#')
            continue;
        line.remove_prefix(indent);
        if (line.starts_with("return"))
            break;
        ForwardStatement statement{pendingStart, at, {}, {}};
        size_t end = 0;
        while (end < line.size() && isIdentifierChar(line[end]))
            ++end;
        statement.defines = line.substr(0, end);
        const size_t equals = line.find(" = ");
        if (equals != std::string_view::npos)
            statement.uses = identifiersIn(line.substr(equals + 3));
        statements.push_back(std::move(statement));
        pendingStart = at + 1;
    }
    return statements;
}

/// Kahn's algorithm, always taking the earliest ready statement: the
/// statements' indices in dependency order; nullopt on a cycle.
std::optional<std::vector<size_t>> dependencyOrder(const std::vector<ForwardStatement> &statements)
{
    std::map<std::string_view, size_t> definedBy;
    for (size_t i = 0; i < statements.size(); ++i)
        definedBy.emplace(statements[i].defines, i);
    std::vector<std::vector<size_t>> users(statements.size());
    std::vector<size_t> waiting(statements.size(), 0);
    for (size_t i = 0; i < statements.size(); ++i) {
        std::set<size_t> needs;
        for (std::string_view name : statements[i].uses)
            if (auto it = definedBy.find(name); it != definedBy.end() && it->second != i)
                needs.insert(it->second);
        waiting[i] = needs.size();
        for (size_t need : needs)
            users[need].push_back(i);
    }
    std::set<size_t> ready;
    for (size_t i = 0; i < statements.size(); ++i)
        if (waiting[i] == 0)
            ready.insert(i);
    std::vector<size_t> order;
    while (!ready.empty()) {
        const size_t next = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(next);
        for (size_t user : users[next])
            if (--waiting[user] == 0)
                ready.insert(user);
    }
    if (order.size() != statements.size())
        return std::nullopt;
    return order;
}

/// print_readable text whose forward() statements are put in dependency
/// order. Inductor logs a group fusion's graph (optimus_*) before sorting it:
/// a fused node's users can come first. Each statement is one line of the
/// body (comment lines go with the statement after them); the order is the
/// written one wherever it is already right. nullopt when nothing moved.
std::optional<std::string> inDependencyOrder(std::string_view text)
{
    const std::vector<std::string_view> lines = splitAt(text, '\n'); // without their '\n'
    size_t def = 0;
    while (def < lines.size() && lines[def].find("def forward(") == std::string_view::npos)
        ++def;
    if (def == lines.size())
        return std::nullopt;
    const std::vector<ForwardStatement> statements = statementsOf(lines, def);
    const auto order = dependencyOrder(statements);
    if (!order || std::is_sorted(order->begin(), order->end()))
        return std::nullopt; // a cycle (the text is not a graph), or nothing to move
    std::string out;
    auto append = [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) {
            out.append(lines[i]);
            out += '\n';
        }
    };
    append(0, def + 1);
    for (size_t index : *order)
        append(statements[index].first, statements[index].last + 1);
    const size_t bodyEnd = statements.empty() ? def + 1 : statements.back().last + 1;
    append(bodyEnd, lines.size());
    if (!out.empty() && !text.ends_with('\n'))
        out.pop_back();
    return out;
}

} // namespace

namespace {

std::mutex &cacheMutex()
{
    static std::mutex mutex;
    return mutex;
}

std::map<std::string, CachedIndex> &indexCache()
{
    static std::map<std::string, CachedIndex> cache;
    return cache;
}

} // namespace

void rememberTraceIndex(const std::string &path, std::shared_ptr<const TraceLog> log)
{
    const auto [size, time] = stampOf(path);
    std::lock_guard lock(cacheMutex());
    indexCache()[path] = {size, time, std::move(log)};
}

Expected<std::shared_ptr<const TraceLog>> cachedTraceIndex(const std::string &path)
{
    const auto [size, time] = stampOf(path);
    {
        std::lock_guard lock(cacheMutex());
        auto it = indexCache().find(path);
        if (it != indexCache().end() && it->second.size == size && it->second.time == time)
            return it->second.log;
    }
    auto log = indexTorchTrace(path);
    if (!log)
        return log.error();
    auto shared = std::make_shared<const TraceLog>(std::move(*log));
    std::lock_guard lock(cacheMutex());
    indexCache()[path] = {size, time, shared};
    return shared;
}

Expected<LoadedModel> readTraceGraph(const TraceLog &log, const TraceLog::GraphRef &graph, const FxReadOptions &options)
{
    std::vector<std::string> warnings;
    auto text = readTracePayload(log, *graph.payload, &warnings);
    if (!text)
        return text.error();
    FxReadOptions fx = options;
    const std::string address = traceGraphPath(log, graph);
    fx.sourceName = address;
    auto model = readFxText(*text, fx);
    if (!model && model.error().message.find("is not defined") != std::string::npos) {
        if (auto sorted = inDependencyOrder(*text)) {
            auto again = readFxText(*sorted, fx);
            if (again) {
                again->warnings.insert(again->warnings.begin(),
                                       address
                                           + ": Inductor logged this graph before sorting it (a value is used "
                                             "above the line that makes it); read in dependency order");
                model = std::move(again);
            }
        }
    }
    if (!model)
        return Error{model.error().message + " (the " + graph.payload->kind + " payload of line "
                     + std::to_string(graph.payload->line) + ")"};
    model->warnings.insert(model->warnings.begin(), warnings.begin(), warnings.end());
    applyDescribedTensors(model->graph, *graph.compile);
    std::map<std::string, std::string> &metadata = GraphBuilder::reopen(model->graph).metadata();
    metadata["source.format"] = "fx-text";
    metadata["source.trace_log"] = log.path;
    metadata["source.trace_graph"] = traceGraphAddress(log, graph).str();
    if (!log.torchVersion.empty())
        metadata["source.torch_version"] = log.torchVersion;
    return model;
}

std::optional<Expected<TraceGraphLocation>> locateTraceGraph(const std::string &path)
{
    auto split = splitTraceGraphPath(path);
    if (!split)
        return std::nullopt;
    auto address = TraceGraphAddress::parse(split->second);
    if (!address)
        return Expected<TraceGraphLocation>(
            Error{path + ": '" + split->second
                  + "' is not a graph address; write [rank/]compile_id/kind[.N], e.g. 0/0/dynamo_output_graph"});
    auto log = cachedTraceIndex(split->first);
    if (!log)
        return Expected<TraceGraphLocation>(log.error());
    auto graph = findTraceGraph(**log, *address);
    if (!graph)
        return Expected<TraceGraphLocation>(graph.error());
    return Expected<TraceGraphLocation>(TraceGraphLocation{*log, *graph});
}

Expected<std::string> readGraphSourceText(const std::string &path)
{
    auto located = locateTraceGraph(path);
    if (!located)
        return json_support::readTextFile(path);
    if (!*located)
        return located->error();
    return readTracePayload(*(*located)->log, *(*located)->graph.payload);
}

} // namespace fusebox
