#pragma once
// Internal to the torch.export importer: builds a Graph from the JSON tree of
// one ExportedProgram. Throws JsonPathError for malformed documents.

#include "core/ir/GraphBuilder.h"
#include "ExportArgumentDecoder.h"
#include "ExportJsonCursor.h"
#include "ExportedProgram.h"

#include "core/ir/ArgNormalizer.h"
#include "core/ir/Graph.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox::export_json {

/// One-shot: construct, call build() once.
class ProgramBuilder {
public:
    ProgramBuilder(const ExportReadOptions &options, Warnings &warnings);

    /// The graph of the ExportedProgram at root; warnings go to the Warnings given.
    Graph build(const Cursor &root);

private:
    void readVersion(const Cursor &root);
    void readInputs(const Cursor &graph, const std::optional<Cursor> &signature);
    void addUserInput(const Cursor &argument, size_t index);
    void readOldSignatureInputs(const Cursor &graph, const Cursor &signature);
    void readOldSignatureOutputs(const Cursor &graph, const Cursor &signature);
    void readEmbeddedConstants(const Cursor &graph);
    void readNode(const Cursor &node);
    CallArgs readCall(const Cursor &node, const std::string &op, const std::string &overload,
                      std::vector<std::string> &unsupported);
    std::optional<OpSchema> schemaFor(const std::string &op, const std::string &overload) const;
    void setProvenance(NodeId id, const Cursor &node, const std::string &target);
    void readTupleOutputs(NodeId producer, const Cursor &outputs);
    void unfoldOutputs(NodeId producer, const Cursor &items, const std::string &kind);
    NodeId addGetItem(NodeId from, int64_t index, const std::string &name, const Provenance &provenance);
    void readOutputs(const Cursor &graph, const std::optional<Cursor> &signature);

    /// The meta of the tensor named by nameField; throws when tensor_values lacks it.
    TensorMeta metaOf(const Cursor &nameField);
    /// Records that the value named by nameField is node id; throws on a second definition.
    void define(const Cursor &nameField, NodeId id);

    const ExportReadOptions &m_options;
    Warnings &m_warnings;
    Graph m_graph;
    GraphBuilder m_build{m_graph};
    std::unordered_map<std::string, NodeId> m_values;
    ArgumentDecoder m_decoder;
    std::optional<Cursor> m_tensorValues;
};

} // namespace fusebox::export_json
