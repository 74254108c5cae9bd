#pragma once
// torch.export importer (no libtorch): .pt2 archives and ExportedProgram JSON.
// docs/torch-export.md describes what is read and how it maps to the IR.

#include "LoadedModel.h"
#include "core/ir/Expected.h"
#include "core/ir/OpSchema.h"

#include <string>
#include <string_view>

namespace fusebox {

/// Options of the torch.export readers.
struct ExportReadOptions {
    /// When given, op calls whose schema is known are normalised to it
    /// (positional in schema order, keyword-only as keywords); else arguments
    /// stay as the file gave them (positional/keyword by NamedArgument.kind).
    const OpSchemaRegistry *schemas = nullptr;
    /// Names the document in errors and warnings; defaults to the file path
    /// or "exported program JSON". Inside an archive the entry follows it
    /// ("m.pt2/serialized_exported_program.json").
    std::string sourceName;
};

/// The newest ExportedProgram schema version this reader knows
/// (torch/_export/serde/schema.py SCHEMA_VERSION); newer files are read with a warning.
inline constexpr int kExportSchemaMajor = 8;
inline constexpr int kExportSchemaMinor = 17;

/// Reads a torch.export archive or a bare JSON file. Archives: the pt2 package
/// layout of torch >= 2.7 (<root>/models/<name>.json + data/weights/...,
/// payloads raw or pickled) and the torch.export.save layout of torch 2.1-2.6
/// (serialized_exported_program.json + serialized_state_dict.pt and
/// serialized_constants.pt, torch.save files; torch 2.1: .json names). Every
/// schema version torch 2.x wrote is read, the early bare numbers (1, 3)
/// included. Weight payloads go into the graph's WeightStore; weights that
/// cannot be read leave the graph usable with a "weights not loaded:" warning.
/// Errors name the file, the archive entry and the JSON path
/// ("m.pt2/archive/models/model.json: graph_module.graph.nodes[3].target:
/// expected a string, found number 12").
Expected<LoadedModel> readExportedProgramFile(const std::string &path, const ExportReadOptions &options = {});

/// Reads an ExportedProgram JSON document (already in memory). Constant nodes
/// carry their weightKey and meta; only the tensors an early schema embedded
/// in the document (graph.constants) come with payloads.
Expected<LoadedModel> readExportedProgramJson(std::string_view json, const ExportReadOptions &options = {});

/// True when the file is a zip holding an exported program (models/*.json or
/// serialized_exported_program.json), or JSON with an ExportedProgram shape
/// (a "graph_module" object near the start). Reads little; never fails.
bool looksLikeExportedProgram(const std::string &path);

} // namespace fusebox
