#pragma once
// Graphs inside TORCH_TRACE logs, opened wherever a graph file is: a path
// "run.log#[rank/]compile_id/kind[.N]" (core/io/TorchTrace.h) names one.

#include "FxText.h"
#include "TorchTrace.h"

#include <memory>
#include <string>

namespace fusebox {

/// The index of the log at `path`, read once per process and read again when
/// the file's size or time changes (every command that opens a graph of a log
/// by its address would otherwise stream the whole log again).
Expected<std::shared_ptr<const TraceLog>> cachedTraceIndex(const std::string &path);

/// Makes `log` the index cachedTraceIndex() gives for `path` while the file
/// is unchanged (the IDE indexed it with progress and cancel).
void rememberTraceIndex(const std::string &path, std::shared_ptr<const TraceLog> log);

/// Reads one graph payload as FX text. The graph's source.path is the
/// address ("run.log#0/0/before_pre_grad_graph"), its warnings name it with
/// the payload's line, and an md5 mismatch is one of them.
Expected<LoadedModel> readTraceGraph(const TraceLog &log, const TraceLog::GraphRef &graph,
                                     const FxReadOptions &options = {});

/// The text of a graph source: the file at `path`, or the payload that a
/// "log#address" path names. What the bridge sends PyTorch 2 for a dump.
Expected<std::string> readGraphSourceText(const std::string &path);

/// For a "log#address" path, the log and the graph; nullopt for other paths.
/// An address that names no graph of the log is an Error.
struct TraceGraphLocation {
    std::shared_ptr<const TraceLog> log;
    TraceLog::GraphRef graph;
};
std::optional<Expected<TraceGraphLocation>> locateTraceGraph(const std::string &path);

} // namespace fusebox
