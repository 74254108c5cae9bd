#include "TorchTrace.h"

#include "TorchTraceLines.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace fusebox {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::string_view kLogPrefix = "dedicated_log_torch_trace_";

std::optional<int> optionalInt(const json &object, const char *key)
{
    auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer())
        return std::nullopt;
    return it->get<int>();
}

/// "dedicated_log_torch_trace_rank_3_abc.log" → 3.
std::optional<int> rankFromFileName(const std::string &name)
{
    for (size_t at = name.find("rank_"); at != std::string::npos; at = name.find("rank_", at + 1)) {
        size_t end = at + 5;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])))
            ++end;
        if (auto rank = parseTraceInt(std::string_view(name).substr(at + 5, end - at - 5)))
            return rank;
    }
    return std::nullopt;
}

bool isEnvelopeMetadata(std::string_view key)
{
    return key == "frame_id" || key == "frame_compile_id" || key == "attempt" || key == "compiled_autograd_id"
           || key == "has_payload" || key == "rank";
}

/// What a failure says in one line: its lines joined ("backend='x' raised:
/// RuntimeError: broken"), cut at 300 characters.
std::string oneLineText(std::string_view text)
{
    std::string line;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        std::string_view part = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        while (!part.empty() && (part.front() == ' ' || part.front() == '\t'))
            part.remove_prefix(1);
        if (!part.empty())
            line += (line.empty() ? "" : " ") + std::string(part);
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return line.size() > 300 ? line.substr(0, 300) + "…" : line;
}

/// The exception line of a Python traceback: its last unindented line that is
/// not one of Dynamo's hints ("Set TORCH_LOGS=...").
std::string exceptionLine(std::string_view traceback)
{
    std::string found;
    size_t start = 0;
    while (start < traceback.size()) {
        size_t end = traceback.find('\n', start);
        std::string_view line = traceback.substr(start,
                                                 end == std::string_view::npos ? std::string_view::npos : end - start);
        const bool hint = line.starts_with("Set TORCH") || line.starts_with("You can suppress")
                          || line.starts_with("For even more") || line.starts_with("Traceback")
                          || line.starts_with("The above exception") || line.starts_with("from user code");
        if (!line.empty() && line.front() != ' ' && line.front() != '\t' && !hint
            && line.find_first_not_of(" \r") != std::string_view::npos)
            found = std::string(line);
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return found.size() > 300 ? found.substr(0, 300) + "…" : found;
}

/// Payloads small enough to keep while streaming, because the listing needs
/// what they say (a version, a failure, a recompile reason).
bool isCapturedKind(std::string_view kind)
{
    return kind == "torch_version" || kind == "dynamo_error" || kind == "recompile_reasons";
}

std::string firstLineCapped(std::string_view text, size_t limit = 300)
{
    auto end = text.find('\n');
    std::string line(text.substr(0, end));
    if (line.size() > limit)
        line = line.substr(0, limit) + "…";
    return line;
}

/// Builds a TraceLog from the envelopes of one file after another.
class Indexer {
public:
    explicit Indexer(TraceLog &log)
        : m_log(log)
    {}

    /// Streams file `fileIndex`; false when cancelled.
    Expected<bool> read(int fileIndex, uint64_t doneBefore, uint64_t total, const TraceProgress &progress);

private:
    struct Pending {
        bool active = false;
        TracePayload payload;
        TraceCompile *compile = nullptr;
        bool capture = false;
        std::string captured;
    };

    void onEnvelope(std::string_view jsonText, int line, uint64_t nextOffset, int fileIndex,
                    const std::string &fileName);
    void onMetrics(const json &body, TraceCompile *compile, std::optional<int> rank);
    void onDescribeTensor(const json &body, TraceCompile &compile);
    void onDescribeSource(const json &body, TraceCompile &compile);
    void onDynamoStart(const json &body, TraceCompile &compile);
    void startPayload(const json &envelope, const std::string &kind, const std::string &encoding, TraceCompile *compile,
                      int line, uint64_t nextOffset, int fileIndex);
    void closePayload(uint64_t end);
    void finishCaptured(Pending &pending);
    TraceCompile *compileFor(const json &envelope, std::optional<int> rank, bool starts);
    TraceCompile *compileById(std::optional<int> rank, TraceCompileId id, bool starts = false);

    TraceLog &m_log;
    Pending m_pending;
    std::optional<int> m_fileRank;
    /// (rank, id without generation) → the latest generation's compile, and
    /// whether a dynamo_start opened it.
    std::map<std::pair<int, std::string>, std::pair<size_t, bool>> m_compileIndex;
    std::map<int, std::string> m_internedFiles;
    /// describe_tensor ids → record index, per compile, to attach describe_source.
    std::map<std::pair<size_t, int>, size_t> m_tensorIndex;
};

TraceCompile *Indexer::compileById(std::optional<int> rank, TraceCompileId id, bool starts)
{
    id.generation = 1;
    const auto key = std::make_pair(rank.value_or(-1), id.str());
    auto it = m_compileIndex.find(key);
    if (it != m_compileIndex.end()) {
        TraceCompile &latest = m_log.compiles[it->second.first];
        // A second dynamo_start for the same id: Dynamo was reset and counts again.
        if (!starts || !it->second.second) {
            it->second.second = it->second.second || starts;
            return &latest;
        }
        id.generation = latest.id.generation + 1;
    }
    m_compileIndex[key] = {m_log.compiles.size(), starts};
    TraceCompile &compile = m_log.compiles.emplace_back();
    compile.rank = rank;
    compile.id = id;
    return &compile;
}

TraceCompile *Indexer::compileFor(const json &envelope, std::optional<int> rank, bool starts)
{
    TraceCompileId id;
    id.compiledAutogradId = optionalInt(envelope, "compiled_autograd_id");
    id.frameId = optionalInt(envelope, "frame_id");
    id.frameCompileId = optionalInt(envelope, "frame_compile_id");
    id.attempt = optionalInt(envelope, "attempt").value_or(0);
    if (id.frameId.has_value() != id.frameCompileId.has_value())
        id.frameId = id.frameCompileId = std::nullopt;
    if (id.empty())
        return nullptr;
    return compileById(rank, id, starts);
}

void Indexer::finishCaptured(Pending &pending)
{
    if (!pending.capture || !pending.compile) {
        if (pending.payload.kind == "torch_version") {
            try {
                json version = json::parse(pending.captured);
                if (version.contains("pytorch_version") && version["pytorch_version"].is_string())
                    m_log.torchVersion = version["pytorch_version"].get<std::string>();
            } catch (const json::exception &) {
            }
        }
        return;
    }
    TraceCompile &compile = *pending.compile;
    if (pending.payload.kind == "dynamo_error" && compile.failure.empty())
        compile.failure = exceptionLine(pending.captured);
    if (pending.payload.kind == "recompile_reasons" && compile.recompileReason.empty()) {
        try {
            json reasons = json::parse(pending.captured);
            if (reasons.is_array() && !reasons.empty() && reasons[0].is_string())
                compile.recompileReason = firstLineCapped(reasons[0].get<std::string>());
        } catch (const json::exception &) {
            compile.recompileReason = firstLineCapped(pending.captured);
        }
    }
}

void Indexer::closePayload(uint64_t end)
{
    if (!m_pending.active)
        return;
    m_pending.payload.end = end;
    finishCaptured(m_pending);
    if (m_pending.compile)
        m_pending.compile->payloads.push_back(std::move(m_pending.payload));
    else
        m_log.unattached.push_back(std::move(m_pending.payload));
    m_pending = Pending{};
}

/// "file:line: " for the warnings of line `line` of `fileName`.
std::string at(const std::string &fileName, int line)
{
    return fileName + ":" + std::to_string(line) + ": ";
}

std::string traceStringField(const json &object, const char *field)
{
    auto it = object.find(field);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void Indexer::onMetrics(const json &body, TraceCompile *compile, std::optional<int> rank)
{
    if (!compile)
        if (auto id = TraceCompileId::parse(traceStringField(body, "compile_id")))
            compile = compileById(rank, *id);
    if (!compile)
        return;
    // The compiled frame as Dynamo reports it: better than the stack's innermost entry.
    if (const std::string name = traceStringField(body, "co_name"); !name.empty()) {
        std::string where = fs::path(traceStringField(body, "co_filename")).filename().string();
        if (auto lineNo = optionalInt(body, "co_firstlineno"))
            where += ":" + std::to_string(*lineNo);
        compile->frame = name + (where.empty() ? "" : " (" + where + ")");
    }
    const std::string failType = traceStringField(body, "fail_type"),
                      failReason = traceStringField(body, "fail_reason");
    if (!failType.empty() || !failReason.empty())
        compile->failure = oneLineText(failType + (failType.empty() || failReason.empty() ? "" : ": ") + failReason);
}

void Indexer::onDescribeTensor(const json &body, TraceCompile &compile)
{
    TraceCompile::TensorRecord record;
    record.id = optionalInt(body, "id").value_or(-1);
    record.dtype = traceStringField(body, "dtype");
    if (body.contains("size") && body["size"].is_array())
        for (const json &dim : body["size"])
            record.size.push_back(dim.is_string() ? dim.get<std::string>() : dim.dump());
    const size_t compileIndex = static_cast<size_t>(&compile - m_log.compiles.data());
    m_tensorIndex[{compileIndex, record.id}] = compile.tensors.size();
    compile.tensors.push_back(std::move(record));
}

void Indexer::onDescribeSource(const json &body, TraceCompile &compile)
{
    const size_t compileIndex = static_cast<size_t>(&compile - m_log.compiles.data());
    auto it = m_tensorIndex.find({compileIndex, optionalInt(body, "id").value_or(-1)});
    if (it != m_tensorIndex.end() && !traceStringField(body, "source").empty())
        compile.tensors[it->second].source = traceStringField(body, "source");
}

void Indexer::onDynamoStart(const json &body, TraceCompile &compile)
{
    // The innermost stack frame is the compiled one.
    auto stack = body.find("stack");
    if (!compile.frame.empty() || stack == body.end() || !stack->is_array() || stack->empty()
        || !stack->back().is_object())
        return;
    const json &frame = stack->back();
    std::string file;
    if (auto id = optionalInt(frame, "filename"); id && m_internedFiles.count(*id))
        file = fs::path(m_internedFiles[*id]).filename().string();
    if (auto lineNo = optionalInt(frame, "line"); lineNo && !file.empty())
        file += ":" + std::to_string(*lineNo);
    compile.frame = traceStringField(frame, "name") + (file.empty() ? "" : " (" + file + ")");
}

void Indexer::startPayload(const json &envelope, const std::string &kind, const std::string &encoding,
                           TraceCompile *compile, int line, uint64_t nextOffset, int fileIndex)
{
    Pending pending;
    pending.active = true;
    pending.compile = compile;
    pending.payload.kind = kind;
    pending.payload.encoding = encoding;
    pending.payload.isGraph = isTraceGraphKind(kind);
    pending.payload.line = line;
    pending.payload.file = fileIndex;
    pending.payload.begin = pending.payload.end = nextOffset;
    pending.payload.md5 = traceStringField(envelope, "has_payload");
    pending.capture = isCapturedKind(kind);
    if (compile)
        pending.payload.occurrence = static_cast<int>(
            std::count_if(compile->payloads.begin(), compile->payloads.end(),
                          [&](const TracePayload &p) { return p.kind == kind; }));
    m_pending = std::move(pending);
}

void Indexer::onEnvelope(std::string_view jsonText, int line, uint64_t nextOffset, int fileIndex,
                         const std::string &fileName)
{
    json envelope;
    try {
        envelope = json::parse(jsonText);
    } catch (const json::exception &error) {
        m_log.warnings.push_back(at(fileName, line) + "a record whose JSON does not parse ("
                                 + firstLineCapped(error.what(), 120) + "); skipped");
        return;
    }
    if (!envelope.is_object() || envelope.empty()) {
        m_log.warnings.push_back(at(fileName, line) + "a record that is not a JSON object; skipped");
        return;
    }
    // The record's kind is its one key that is not compile metadata (nlohmann's
    // object sorts its keys, so the first is not the one written first).
    auto kindIt = envelope.end();
    for (auto it = envelope.begin(); it != envelope.end() && kindIt == envelope.end(); ++it)
        if (!isEnvelopeMetadata(it.key()))
            kindIt = it;
    if (kindIt == envelope.end()) {
        m_log.warnings.push_back(at(fileName, line) + "a record with no kind; skipped");
        return;
    }
    const std::string key = kindIt.key();
    const json &body = kindIt.value();
    if (key == "str" && body.is_array() && body.size() == 2 && body[0].is_string() && body[1].is_number_integer()) {
        m_internedFiles[body[1].get<int>()] = body[0].get<std::string>();
        return;
    }
    const std::optional<int> rank = optionalInt(envelope, "rank") ? optionalInt(envelope, "rank") : m_fileRank;
    TraceCompile *compile = compileFor(envelope, rank, key == "dynamo_start");
    if (key == "compilation_metrics" && body.is_object())
        onMetrics(body, compile, rank);
    else if (key == "describe_tensor" && compile && body.is_object())
        onDescribeTensor(body, *compile);
    else if (key == "describe_source" && compile && body.is_object())
        onDescribeSource(body, *compile);
    else if (key == "dynamo_start" && compile && body.is_object())
        onDynamoStart(body, *compile);

    std::string kind = key;
    std::string encoding;
    if (key == "artifact" && body.is_object() && !traceStringField(body, "name").empty()) {
        kind = traceStringField(body, "name");
        encoding = traceStringField(body, "encoding");
        if (compile
            && (kind.ends_with("_cache_hit") || kind.ends_with("_cache_miss") || kind.ends_with("_cache_bypass")))
            compile->cacheEvents.push_back(kind);
    }
    if (envelope.contains("has_payload"))
        startPayload(envelope, kind, encoding, compile, line, nextOffset, fileIndex);
}

Expected<bool> Indexer::read(int fileIndex, uint64_t doneBefore, uint64_t total, const TraceProgress &progress)
{
    TraceFile &file = m_log.files[static_cast<size_t>(fileIndex)];
    m_fileRank = file.rank;
    const std::string fileName = fs::path(file.path).filename().string();
    std::ifstream in(file.path, std::ios::binary);
    if (!in)
        return Error{file.path + ": cannot be read"};
    TraceLineReader lines(in);
    std::string_view text;
    uint64_t offset = 0;
    int lineNo = 0;
    bool endsMidLine = false;
    while (lines.next(text, offset, endsMidLine)) {
        ++lineNo;
        if (!text.empty() && text.front() == '\t') {
            if (m_pending.active && m_pending.capture && m_pending.captured.size() < 65536) {
                if (!m_pending.captured.empty())
                    m_pending.captured += '\n';
                m_pending.captured.append(text.substr(1));
            }
            continue; // a payload line: its bytes are remembered by range, not read
        }
        closePayload(offset);
        if (auto json = envelopeJson(text)) {
            // Timing events are most of a log's records and say nothing Fusebox shows.
            if (!json->starts_with("{\"chromium_event\""))
                onEnvelope(*json, lineNo, offset + text.size() + 1, fileIndex, fileName);
        }
        if ((lineNo & 0x3fff) == 0 && progress && !progress(doneBefore + offset, total))
            return false;
    }
    const uint64_t size = lines.bytesRead();
    // A log need not end with a newline: only a payload whose md5 then fails
    // was cut (an envelope cut short fails its JSON, warned above).
    const bool payloadAtEnd = m_pending.active;
    const TracePayload lastPayload = m_pending.payload;
    closePayload(size);
    if (endsMidLine && payloadAtEnd && !lastPayload.md5.empty()) {
        std::string raw(lastPayload.end - lastPayload.begin, '\0');
        in.clear();
        in.seekg(static_cast<std::streamoff>(lastPayload.begin));
        in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
        if (md5Hex(stripPayloadTabs(raw)) != lastPayload.md5)
            m_log.warnings.push_back(fileName + ":" + std::to_string(lineNo) + ": the log ends mid-line; the "
                                     + lastPayload.kind + " payload of line " + std::to_string(lastPayload.line)
                                     + " is cut short");
    }
    file.bytes = size;
    file.lines = lineNo;
    if (in.bad() && !endsMidLine)
        return Error{file.path + ": read error after " + std::to_string(size) + " bytes"};
    return true;
}

/// The rank logs of a directory, in rank order (then name).
std::vector<TraceFile> traceFilesIn(const std::string &directory)
{
    std::vector<TraceFile> files;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file(ec) || !name.starts_with(kLogPrefix))
            continue;
        files.push_back({entry.path().string(), rankFromFileName(name)});
    }
    std::sort(files.begin(), files.end(), [](const TraceFile &a, const TraceFile &b) {
        return std::make_pair(a.rank.value_or(-1), a.path) < std::make_pair(b.rank.value_or(-1), b.path);
    });
    return files;
}

} // namespace

bool looksLikeTorchTrace(std::string_view head)
{
    size_t start = 0;
    while (start < head.size()) {
        size_t end = head.find('\n', start);
        std::string_view line = head.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (line.find_first_not_of(" \t\r") != std::string_view::npos)
            return envelopeJson(line).has_value();
        if (end == std::string_view::npos)
            break;
        start = end + 1;
    }
    return false;
}

bool isTorchTracePath(const std::string &path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return !traceFilesIn(path).empty();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return looksLikeTorchTrace(head);
}

Expected<TraceLog> indexTorchTrace(const std::string &path, const TraceProgress &progress)
{
    TraceLog log;
    log.path = path;
    std::error_code ec;
    if (!fs::exists(path, ec))
        return Error{path + ": no such file or directory"};
    if (fs::is_directory(path, ec)) {
        log.files = traceFilesIn(path);
        if (log.files.empty())
            return Error{path + ": no " + std::string(kLogPrefix) + "*.log file in this directory"};
    } else {
        log.files.push_back({path, rankFromFileName(fs::path(path).filename().string())});
    }
    uint64_t total = 0;
    for (const TraceFile &file : log.files)
        total += fs::file_size(file.path, ec);
    uint64_t done = 0;
    Indexer indexer(log);
    for (size_t i = 0; i < log.files.size(); ++i) {
        auto finished = indexer.read(static_cast<int>(i), done, total, progress);
        if (!finished)
            return finished.error();
        if (!*finished)
            return Error{path + ": cancelled"};
        done += log.files[i].bytes;
    }
    const bool logsPreGrad = !log.torchVersion.empty()
                             || std::any_of(log.compiles.begin(), log.compiles.end(), [](const TraceCompile &c) {
                                    return std::any_of(c.payloads.begin(), c.payloads.end(), [](const TracePayload &p) {
                                        return p.kind == "before_pre_grad_graph";
                                    });
                                });
    for (TraceCompile &compile : log.compiles)
        compile.logsPreGradStages = logsPreGrad;
    return log;
}

Expected<std::string> readTracePayload(const TraceLog &log, const TracePayload &payload,
                                       std::vector<std::string> *warnings)
{
    if (payload.file < 0 || static_cast<size_t>(payload.file) >= log.files.size())
        return Error{log.path + ": no such file in the log"};
    const std::string &path = log.files[static_cast<size_t>(payload.file)].path;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot be read"};
    std::string raw(payload.end - payload.begin, '\0');
    in.seekg(static_cast<std::streamoff>(payload.begin));
    in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
    if (static_cast<size_t>(in.gcount()) != raw.size())
        return Error{path + ":" + std::to_string(payload.line) + ": the file changed since it was listed"};
    std::string text = stripPayloadTabs(raw);
    if (warnings && !payload.md5.empty()) {
        const std::string actual = md5Hex(text);
        if (actual != payload.md5)
            warnings->push_back(fs::path(path).filename().string() + ":" + std::to_string(payload.line) + ": the "
                                + payload.kind + " payload's md5 is " + actual + ", not the recorded " + payload.md5
                                + " (edited or cut short); read as it is");
    }
    return text;
}

} // namespace fusebox
