#pragma once
// TORCH_TRACE structured logs (`TORCH_TRACE=DIR python job.py`: one
// dedicated_log_torch_trace_*.log per rank), as tlparse reads them:
// envelope lines (a glog prefix, then one JSON object) each optionally
// followed by a payload of tab-prefixed lines whose md5 the envelope records.
// docs/torch-trace.md describes what is read.
//
// Indexing streams the file once and parses only the envelopes: payloads are
// remembered by byte range and read when a graph is opened, so listing a
// 100 MB log costs one pass over its bytes.

#include "LoadedModel.h"
#include "core/ir/Expected.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

/// A compile as PyTorch names it (torch/_guards.py CompileId, tlparse's
/// display): "0/0", "0/1_1" (attempt 1), "!2/0/0" (inside compiled autograd
/// graph 2), "!2" (the compiled autograd graph itself). A process that resets
/// Dynamo (torch._dynamo.reset()) numbers its compiles from 0/0 again: the
/// second compile "0/0" of a log is "0/0@2", the third "0/0@3".
struct TraceCompileId {
    std::optional<int> compiledAutogradId;
    std::optional<int> frameId;
    std::optional<int> frameCompileId;
    int attempt = 0;
    /// 1 for the first compile of this id in the log, 2 after a Dynamo reset...
    int generation = 1;

    /// The id as PyTorch and tlparse write it ("0/1_1"), with "@N" for a
    /// later generation; "-" for records outside any compile.
    std::string str() const;
    /// Parses what str() writes; nullopt when `text` is not a compile id.
    static std::optional<TraceCompileId> parse(std::string_view text);
    bool empty() const { return !compiledAutogradId && !frameId; }
    friend bool operator==(const TraceCompileId &, const TraceCompileId &) = default;
};

/// One payload-carrying record of a log: a graph or something else.
struct TracePayload {
    /// The envelope key ("dynamo_output_graph") or the artifact's name
    /// ("before_pre_grad_graph", "optimus_PreGradBatchLinearFusion").
    std::string kind;
    /// True for the FX graph payloads Fusebox opens (isTraceGraphKind).
    bool isGraph = false;
    /// 0 for the first payload of this kind in its compile, 1 for the next...
    int occurrence = 0;
    /// 1-based line of the envelope in its file.
    int line = 0;
    /// Index into TraceLog::files.
    int file = 0;
    /// Byte range of the payload lines (tabs included) in that file.
    uint64_t begin = 0;
    uint64_t end = 0;
    /// The envelope's has_payload (md5 hex of the payload text); empty when absent.
    std::string md5;
    /// An artifact's encoding ("string", "json"); empty for envelope keys.
    std::string encoding;
};

/// One compile of one rank, with what the log says about it.
struct TraceCompile {
    std::optional<int> rank;
    TraceCompileId id;
    /// The compiled frame, "kernel (gen.py:6)", from compilation_metrics or
    /// dynamo_start; empty when the log does not say.
    std::string frame;
    /// Cache outcomes as the log records them ("fx_graph_cache_hit",
    /// "aotautograd_cache_miss", ...), in order.
    std::vector<std::string> cacheEvents;
    /// compilation_metrics' fail_type/fail_reason, or a dynamo_error artifact's first line.
    std::string failure;
    /// The recompile_reasons artifact's first reason.
    std::string recompileReason;
    /// Payloads of this compile in log order.
    std::vector<TracePayload> payloads;
    /// describe_tensor records of this compile: a tensor id and its sizes
    /// (symbolic sizes as written, e.g. "s0").
    struct TensorRecord {
        int id = -1;
        std::string dtype;
        std::vector<std::string> size;
        std::string source; // from describe_source ("L['x']"), when recorded
    };
    std::vector<TensorRecord> tensors;

    /// True when a graph was served from the FX graph cache.
    bool fxGraphCacheHit() const;
    /// True when served from the FX graph cache with no pre-grad graph
    /// logged, by a torch that logs its pre-grad stages (see
    /// logsPreGradStages): PyTorch 2.14 looks the cache up before its
    /// pre-grad passes, so such a compile ran no Optimus pass
    /// (docs/torch-trace.md). Older torch ran them first and logged none.
    bool ranNoPreGradPasses() const;
    /// Set by indexTorchTrace: the torch that wrote the log logs its pre-grad
    /// stages (the log records its torch version, as 2.14 does, or some
    /// compile of it logged a before_pre_grad_graph).
    bool logsPreGradStages = false;
    /// The graph payloads, in log order.
    std::vector<const TracePayload *> graphs() const;
    /// "rank/compile" for the listing ("0/0/1", or "0/1" without a rank).
    std::string label() const;
};

/// One log file of a trace.
struct TraceFile {
    std::string path;
    /// From the file name (dedicated_log_torch_trace_rank_3_...) when the
    /// envelopes carry none.
    std::optional<int> rank;
    uint64_t bytes = 0;
    int lines = 0;
};

/// What indexTorchTrace read: files, compiles, and what did not parse.
struct TraceLog {
    /// The path as given (a file, or a directory of rank logs).
    std::string path;
    std::vector<TraceFile> files;
    std::vector<TraceCompile> compiles;
    /// Payload-carrying records outside any compile (torch_version, ...).
    std::vector<TracePayload> unattached;
    /// The torch_version artifact's pytorch_version ("2.14.1"), when present.
    std::string torchVersion;
    /// One line each: "file:line: what" (a line that does not parse, a payload
    /// cut short). The rest of the log is read all the same.
    std::vector<std::string> warnings;

    /// Every graph payload, with its compile, in log order.
    struct GraphRef {
        const TraceCompile *compile;
        const TracePayload *payload;
    };
    std::vector<GraphRef> graphs() const;
};

/// Progress of a long index: bytes read so far and the total; return false to
/// cancel (indexTorchTrace then returns an Error "cancelled").
using TraceProgress = std::function<bool(uint64_t done, uint64_t total)>;

/// True for payload kinds that hold an FX graph (envelope graphs and graph
/// artifacts, docs/torch-trace.md lists them).
bool isTraceGraphKind(std::string_view kind);

/// True when the text starts (after blank lines) like a TORCH_TRACE log: a glog
/// prefix whose message is a JSON object.
bool looksLikeTorchTrace(std::string_view head);

/// True when `path` is a TORCH_TRACE log, or a directory holding
/// dedicated_log_torch_trace_*.log files.
bool isTorchTracePath(const std::string &path);

/// A compile's logged Optimus stages, in log order: before_pre_grad_graph,
/// the graph after each pre-grad Optimus pass that changed it
/// (optimus_<FusionClass>, <pass>_pre_grad), after_pre_grad_graph; then,
/// when post-grad Optimus passes logged graphs, before_post_grad_graph and
/// those graphs (optimus_<FusionClass>, <pass>_post_grad). Empty when the
/// compile logged no before_pre_grad_graph (torch 2.6, a compile served from
/// the FX graph cache).
std::vector<const TracePayload *> optimusStepsOf(const TraceCompile &compile);

/// True for the stages a sequence of optimusStepsOf starts from
/// (before_pre_grad_graph, before_post_grad_graph): no pass made them.
bool isOptimusStart(const TracePayload &payload);

/// Indexes a log or a directory of rank logs. Errors: no such path, no log in
/// the directory, an unreadable file, cancelled. Malformed lines are warnings.
Expected<TraceLog> indexTorchTrace(const std::string &path, const TraceProgress &progress = {});

/// The payload's text (tabs stripped). A md5 mismatch or a payload cut short is
/// a warning appended to `warnings`, not an error; an unreadable file is.
Expected<std::string> readTracePayload(const TraceLog &log, const TracePayload &payload,
                                       std::vector<std::string> *warnings = nullptr);

/// Where a graph lies in a log: `[rank/]compile_id/kind[.N]`, e.g.
/// "0/0/before_pre_grad_graph", "1/0/0/optimus_PreGradBatchLinearFusion",
/// "0/0/aot_forward_graph.1" (the second of that kind).
struct TraceGraphAddress {
    std::optional<int> rank;
    TraceCompileId compileId;
    std::string kind;
    int occurrence = 0;

    /// The address as written above; parse(str()) gives it back.
    std::string str() const;
    static std::optional<TraceGraphAddress> parse(std::string_view text);
};

/// Splits "run.log#0/0/kind" into the path and the address when the text has
/// a '#' whose left side names an existing trace log or directory; nullopt
/// otherwise (a plain path, or a file whose name holds a '#').
std::optional<std::pair<std::string, std::string>> splitTraceGraphPath(const std::string &text);

/// Finds the addressed graph; the Error names what the log holds instead.
Expected<TraceLog::GraphRef> findTraceGraph(const TraceLog &log, const TraceGraphAddress &address);

/// The address of a graph of the log (rank included only when the log has ranks).
TraceGraphAddress traceGraphAddress(const TraceLog &log, const TraceLog::GraphRef &graph);

/// "LOG#address": how a graph of the log is named wherever a graph file is
/// accepted (the inverse of splitTraceGraphPath).
std::string traceGraphPath(const TraceLog &log, const TraceLog::GraphRef &graph);

} // namespace fusebox
