// ExportedProgram JSON (torch/_export/serde/schema.py) to a Fusebox Graph.
#include "core/ir/GraphBuilder.h"
#include "Base64.h"
#include "ExportArgumentDecoder.h"
#include "ExportNodeMetadata.h"
#include "ExportProgramBuilder.h"
#include "ExportedProgram.h"
#include "JsonSupport.h"
#include "TorchPickle.h"

#include "core/ir/ArgNormalizer.h"

#include <algorithm>
#include <map>

namespace fusebox {

namespace export_json {

namespace {

/// "torch.ops.aten.split.Tensor" -> {"aten::split", "Tensor"}; "_operator.getitem"
/// -> {"getitem", ""}; other targets (_operator.add, torch.sym_float) are kept as spelled.
std::pair<std::string, std::string> opFromTarget(const std::string &target)
{
    constexpr std::string_view prefix = "torch.ops.";
    if (target.starts_with(prefix)) {
        std::string_view rest = std::string_view(target).substr(prefix.size());
        const size_t dot = rest.find('.');
        if (dot != std::string_view::npos && dot > 0) {
            const std::string_view ns = rest.substr(0, dot);
            std::string_view name = rest.substr(dot + 1);
            std::string_view overload;
            if (const size_t second = name.find('.'); second != std::string_view::npos) {
                overload = name.substr(second + 1);
                name = name.substr(0, second);
            }
            // libtorch (and so the TorchScript and FX readers) names the
            // default overload by the empty string.
            if (overload == "default")
                overload = {};
            if (!name.empty())
                return {std::string(ns) + "::" + std::string(name), std::string(overload)};
        }
    }
    if (target == "_operator.getitem" || target == "operator.getitem")
        return {std::string(ops::kGetItem), {}};
    return {target, {}};
}

/// The TorchScript type of a value an output Argument declares.
std::string outputType(const std::string &kind)
{
    if (kind == "as_tensor")
        return "Tensor";
    if (kind == "as_tensors")
        return "Tensor[]";
    if (kind == "as_optional_tensors")
        return "Tensor?[]";
    if (kind == "as_sym_int")
        return "SymInt";
    if (kind == "as_sym_float")
        return "SymFloat";
    if (kind == "as_sym_bool")
        return "SymBool";
    if (kind == "as_none")
        return "NoneType";
    return "Any";
}

} // namespace

ProgramBuilder::ProgramBuilder(const ExportReadOptions &options, Warnings &warnings)
    : m_options(options)
    , m_warnings(warnings)
    , m_decoder(m_values, warnings)
{}

Graph ProgramBuilder::build(const Cursor &root)
{
    readVersion(root);
    const Cursor module = root["graph_module"];
    const Cursor graph = module["graph"];
    m_tensorValues.emplace(graph["tensor_values"]);
    m_tensorValues->object();
    const std::optional<Cursor> signature = module.find("signature");

    readInputs(graph, signature);
    const Cursor nodes = graph["nodes"];
    for (size_t i = 0; i < nodes.size(); ++i)
        readNode(nodes[i]);
    readOutputs(graph, signature);

    m_build.metadata()["source.format"] = "torch.export";
    m_build.metadata()["source.stage"] = "post_grad"; // ATen calls only; isPreGradGraph
    return std::move(m_graph);
}

void ProgramBuilder::readVersion(const Cursor &root)
{
    if (auto torchVersion = root.find("torch_version"); torchVersion && torchVersion->json().is_string())
        m_build.metadata()["torch_export.torch_version"] = torchVersion->string();
    auto version = root.find("schema_version");
    if (!version)
        return;
    // A bare number before torch 2.3 (torch 2.1 wrote 1, torch 2.2 wrote 3);
    // {major, minor} since then (pytorch/pytorch#116462).
    if (version->json().is_number_integer()) {
        m_build.metadata()["torch_export.schema_version"] = std::to_string(version->integer());
        return;
    }
    if (!version->json().is_object())
        version->expected("a schema version ({major, minor} or a number)");
    const int64_t major = (*version)["major"].integer();
    const int64_t minor = (*version)["minor"].integer();
    m_build.metadata()["torch_export.schema_version"] = std::to_string(major) + "." + std::to_string(minor);
    if (major > kExportSchemaMajor || (major == kExportSchemaMajor && minor > kExportSchemaMinor))
        m_warnings.add("schema_version " + std::to_string(major) + "." + std::to_string(minor) + " is newer than the "
                       + std::to_string(kExportSchemaMajor) + "." + std::to_string(kExportSchemaMinor)
                       + " this reader knows; fields it does not know are ignored");
}

TensorMeta ProgramBuilder::metaOf(const Cursor &nameField)
{
    const std::string name = nameField.string();
    auto entry = m_tensorValues->find(name);
    if (!entry)
        nameField.fail("tensor '" + name + "' has no entry in " + m_tensorValues->path());
    // Schema 1 (torch 2.1) wrapped each entry: TensorValue{meta: TensorMeta}.
    if (entry->json().is_object() && !entry->json().contains("dtype") && entry->json().contains("meta"))
        return decodeTensorMeta((*entry)["meta"], m_warnings).meta;
    return decodeTensorMeta(*entry, m_warnings).meta;
}

void ProgramBuilder::define(const Cursor &nameField, NodeId id)
{
    const std::string name = nameField.string();
    if (!m_values.emplace(name, id).second)
        nameField.fail("value '" + name + "' is defined twice");
}

void ProgramBuilder::addUserInput(const Cursor &argument, size_t index)
{
    auto [kind, value] = unionMember(argument, "Argument");
    if (kind == "as_tensor") {
        const Cursor name = value["name"];
        define(name, m_build.addInput(name.string(), metaOf(name)));
    } else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
        const Cursor name = symbolicName(value);
        define(name, m_build.addInput(name.string(), {}, outputType(kind)));
    } else if (kind == "as_custom_obj") {
        const Cursor name = value["name"];
        define(name, m_build.addInput(name.string(), {}, value["class_fqn"].string()));
    } else {
        // A constant user input (an int, None, ...): FX keeps a placeholder for it.
        static const std::map<std::string, std::string> types{{"as_int", "int"},
                                                              {"as_float", "float"},
                                                              {"as_bool", "bool"},
                                                              {"as_string", "str"},
                                                              {"as_none", "NoneType"}};
        auto type = types.find(kind);
        m_build.addInput("input_" + std::to_string(index), {}, type == types.end() ? "Any" : type->second);
        m_warnings.add(argument.path() + ": constant user input (" + kind + ") imported as an input without a value");
    }
}

void ProgramBuilder::readInputs(const Cursor &graph, const std::optional<Cursor> &signature)
{
    readEmbeddedConstants(graph);
    if (signature && !signature->find("input_specs")
        && (signature->find("inputs_to_parameters") || signature->find("user_inputs"))) {
        readOldSignatureInputs(graph, *signature);
        return;
    }
    if (!signature) {
        m_warnings.add(graph.path() + ": no graph signature; every graph input imported as a user input");
        const Cursor inputs = graph["inputs"];
        for (size_t i = 0; i < inputs.size(); ++i)
            addUserInput(inputs[i], i);
        return;
    }
    const Cursor specs = (*signature)["input_specs"];
    for (size_t i = 0; i < specs.size(); ++i) {
        const Cursor spec = specs[i];
        auto [kind, body] = unionMember(spec, "InputSpec");
        if (kind == "user_input") {
            addUserInput(body["arg"], i);
        } else if (kind == "parameter" || kind == "buffer" || kind == "tensor_constant" || kind == "constant_tensor") {
            const char *keyField = kind == "parameter" ? "parameter_name"
                                   : kind == "buffer"  ? "buffer_name"
                                                       : "tensor_constant_name";
            const Cursor name = body["arg"]["name"];
            const std::string weightKey = body[keyField].string();
            NodeId id = m_build.addConstant(name.string(), weightKey, metaOf(name));
            define(name, id);
        } else if (kind == "custom_obj") {
            const Cursor arg = body["arg"];
            const Cursor name = arg["name"];
            NodeId id = m_build.addConstant(name.string(), body["custom_obj_name"].string());
            m_build.node(id).type = arg["class_fqn"].string();
            define(name, id);
            m_warnings.add(spec.path() + ": custom object '" + name.string() + "' (" + arg["class_fqn"].string()
                           + ") imported as an opaque constant without payload");
        } else if (kind == "constant_input") {
            const Cursor name = body["name"];
            define(name, m_build.addInput(name.string(), {}, "Any"));
            m_warnings.add(spec.path() + ": constant input '" + name.string()
                           + "' imported as an input without its value");
        } else if (kind == "token") {
            m_warnings.add(spec.path() + ": effect token input skipped");
        } else {
            m_warnings.add(spec.path() + ": unknown input spec kind '" + kind + "' skipped");
        }
    }
}

void ProgramBuilder::readOldSignatureInputs(const Cursor &graph, const Cursor &signature)
{
    // Schema 1 (torch 2.1): GraphSignature{inputs_to_parameters, inputs_to_buffers,
    // user_inputs, user_outputs, buffers_to_mutate, backward_signature}, maps
    // from placeholder names; graph.inputs lists the placeholders in order.
    const std::optional<Cursor> parameters = signature.find("inputs_to_parameters");
    const std::optional<Cursor> buffers = signature.find("inputs_to_buffers");
    const Cursor inputs = graph["inputs"];
    for (size_t i = 0; i < inputs.size(); ++i) {
        const Cursor argument = inputs[i];
        auto [kind, value] = unionMember(argument, "Argument");
        if (kind == "as_tensor") {
            const Cursor name = value["name"];
            std::optional<Cursor> key;
            if (parameters)
                key = parameters->find(name.string());
            if (!key && buffers)
                key = buffers->find(name.string());
            if (key) {
                define(name, m_build.addConstant(name.string(), key->string(), metaOf(name)));
                continue;
            }
        }
        addUserInput(argument, i);
    }
}

void ProgramBuilder::readEmbeddedConstants(const Cursor &graph)
{
    // An early schema kept get_attr tensors inside the graph:
    // graph.constants{name: base64 of torch.save(tensor)}.
    auto constants = graph.find("constants");
    if (!constants)
        return;
    std::map<std::string, std::vector<std::string>> reasons;
    for (const auto &item : constants->object().items()) {
        const Cursor value((*constants)[item.key()]);
        const std::string name = item.key();
        std::string reason;
        Weight weight;
        if (!value.json().is_string()) {
            value.expected("a base64 string");
        } else if (auto bytes = decodeBase64(value.string()); !bytes) {
            reason = "not valid base64";
        } else {
            auto file = torch_pickle::TorchSaveFile::open(std::string(reinterpret_cast<const char *>(bytes->data()),
                                                                      bytes->size()),
                                                          value.path());
            if (!file) {
                reason = file.error().message;
            } else if (auto tensor = file->contents().tensors.find(""); tensor == file->contents().tensors.end()) {
                reason = value.path() + ": not a tensor";
            } else if (auto loaded = file->load(tensor->second); !loaded) {
                reason = loaded.error().message;
            } else {
                weight = std::move(loaded).value();
            }
        }
        NodeId id = m_build.addConstant(name, name, reason.empty() ? weight.meta : TensorMeta{});
        const nlohmann::json nameJson = name;
        define(Cursor(nameJson, value.path()), id);
        if (reason.empty())
            m_build.weights().put(name, std::move(weight));
        else
            reasons[reason].push_back(name);
    }
    for (const auto &[reason, names] : reasons) {
        std::string list;
        for (const std::string &n : names)
            list += (list.empty() ? "" : ", ") + n;
        m_warnings.add("weights not loaded: " + list + " (" + reason + ")");
    }
}

std::optional<OpSchema> ProgramBuilder::schemaFor(const std::string &op, const std::string &overload) const
{
    if (!m_options.schemas)
        return std::nullopt;
    const OpSchema *schema = m_options.schemas->find(op, overload == "default" ? std::string() : overload);
    if (!schema && overload == "default")
        schema = m_options.schemas->find(op, overload);
    return schema ? std::optional<OpSchema>(*schema) : std::nullopt;
}

CallArgs ProgramBuilder::readCall(const Cursor &node, const std::string &op, const std::string &overload,
                                  std::vector<std::string> &unsupported)
{
    const std::optional<OpSchema> schema = schemaFor(op, overload);
    CallArgs call;
    const Cursor inputs = node["inputs"];
    for (size_t j = 0; j < inputs.size(); ++j) {
        const Cursor named = inputs[j];
        const std::string name = named["name"].string();
        Arg value = m_decoder.decode(named["arg"], &unsupported);
        int64_t kind = 0;
        if (auto kindField = named.find("kind")) {
            if (!kindField->json().is_number_integer() || kindField->integer() < 0 || kindField->integer() > 2)
                kindField->expected("an ArgumentKind (0 UNKNOWN, 1 POSITIONAL, 2 KEYWORD)");
            kind = kindField->integer();
        }
        // Without a kind, the serializer wrote the schema's arguments in order:
        // with a schema, names place them; without one, they stay positional.
        if (kind == 2 || (kind == 0 && schema))
            call.kwargs.push_back(NamedArg{name, std::move(value)});
        else
            call.args.push_back(std::move(value));
    }
    if (!schema)
        return call;
    auto normalized = normalizeCall(*schema, call);
    if (normalized)
        return std::move(normalized).value();
    m_warnings.add(inputs.path() + ": " + normalized.error().message + "; arguments kept as written");
    // Keep the order the file gave: positional first, then keywords.
    return call;
}

void ProgramBuilder::setProvenance(NodeId id, const Cursor &node, const std::string &target)
{
    Node &n = m_build.node(id);
    n.provenance.originalSpelling = target;
    auto metadata = node.find("metadata");
    if (!metadata)
        return;
    const nlohmann::json &fields = metadata->object();
    if (auto stack = fields.find("nn_module_stack"); stack != fields.end())
        n.provenance.scope = scopeFromModuleStack(*stack);
    if (auto trace = fields.find("stack_trace"); trace != fields.end() && trace->is_string())
        n.provenance.source = sourceFromStackTrace(trace->get<std::string>());
}

NodeId ProgramBuilder::addGetItem(NodeId from, int64_t index, const std::string &name, const Provenance &provenance)
{
    NodeId id = m_build.addOp(std::string(ops::kGetItem), {from, index}, {}, name);
    Node &n = m_build.node(id);
    n.provenance.scope = provenance.scope;
    n.provenance.source = provenance.source;
    return id;
}

void ProgramBuilder::unfoldOutputs(NodeId producer, const Cursor &items, const std::string &kind)
{
    // The exporter folds FX's getitem nodes into the producer's outputs; they
    // come back here, named as the output values, so that readers find them.
    const Provenance provenance = m_graph.node(producer)->provenance;
    for (size_t i = 0; i < items.size(); ++i) {
        const Cursor item = items[i];
        Cursor tensor = item;
        if (kind == "as_optional_tensors") {
            auto [itemKind, value] = unionMember(item, "OptionalTensorArgument");
            if (itemKind != "as_tensor")
                continue;
            tensor = value;
        }
        const Cursor name = tensor["name"];
        NodeId id = addGetItem(producer, int64_t(i), name.string(), provenance);
        m_build.node(id).meta = metaOf(name);
        define(name, id);
    }
}

void ProgramBuilder::readNode(const Cursor &node)
{
    const std::string target = node["target"].string();
    auto [op, overload] = opFromTarget(target);
    std::vector<std::string> unsupported;
    CallArgs call = readCall(node, op, overload, unsupported);

    const Cursor outputs = node["outputs"];
    const size_t count = outputs.size();
    std::string name;
    if (auto explicitName = node.find("name"))
        name = explicitName->string();
    std::string singleKind;
    std::optional<Cursor> singleValue;
    if (count == 1) {
        auto [kind, value] = unionMember(outputs[0], "Argument");
        singleKind = kind;
        singleValue = value;
        if (kind == "as_tensor" || kind == "as_custom_obj")
            name = value["name"].string();
        else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool")
            name = symbolicName(value).string();
    }

    NodeId id = m_build.addOp(op, std::move(call.args), std::move(call.kwargs), name);
    Node &n = m_build.node(id);
    n.overload = overload;
    setProvenance(id, node, target);
    if (!unsupported.empty()) {
        n.opaqueBody = "";
        for (const std::string &note : unsupported)
            n.opaqueBody += note + "\n";
    }

    if (count == 0) {
        n.type = "NoneType";
    } else if (count == 1) {
        n.type = outputType(singleKind);
        if (singleKind == "as_tensor") {
            const Cursor nameField = (*singleValue)["name"];
            n.meta = metaOf(nameField);
            define(nameField, id);
        } else if (singleKind == "as_custom_obj") {
            define((*singleValue)["name"], id);
        } else if (singleKind == "as_sym_int" || singleKind == "as_sym_float" || singleKind == "as_sym_bool") {
            define(symbolicName(*singleValue), id);
        } else if (singleKind == "as_tensors" || singleKind == "as_optional_tensors") {
            unfoldOutputs(id, *singleValue, singleKind);
        } else if (singleKind != "as_none") {
            m_warnings.add(outputs[0].path() + ": output kind '" + singleKind + "' not imported");
        }
    } else {
        readTupleOutputs(id, outputs);
    }
}

void ProgramBuilder::readTupleOutputs(NodeId producer, const Cursor &outputs)
{
    std::string types;
    const Provenance provenance = m_graph.node(producer)->provenance;
    for (size_t i = 0; i < outputs.size(); ++i) {
        auto [kind, value] = unionMember(outputs[i], "Argument");
        types += (i ? ", " : "") + outputType(kind);
        if (kind == "as_tensor") {
            const Cursor name = value["name"];
            NodeId id = addGetItem(producer, int64_t(i), name.string(), provenance);
            m_build.node(id).meta = metaOf(name);
            define(name, id);
        } else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
            const Cursor name = symbolicName(value);
            NodeId id = addGetItem(producer, int64_t(i), name.string(), provenance);
            m_build.node(id).type = outputType(kind);
            define(name, id);
        } else if (kind == "as_tensors" || kind == "as_optional_tensors") {
            NodeId list = addGetItem(producer, int64_t(i), {}, provenance);
            m_build.node(list).type = outputType(kind);
            unfoldOutputs(list, value, kind);
        } else if (kind != "as_none") {
            m_warnings.add(outputs[i].path() + ": output kind '" + kind + "' not imported");
        }
    }
    m_build.node(producer).type = "(" + types + ")";
}

void ProgramBuilder::readOutputs(const Cursor &graph, const std::optional<Cursor> &signature)
{
    std::vector<Arg> values;
    if (!signature) {
        const Cursor outputs = graph["outputs"];
        for (size_t i = 0; i < outputs.size(); ++i)
            values.push_back(m_decoder.decode(outputs[i]));
        m_build.setOutputs(std::move(values));
        return;
    }
    if (!signature->find("output_specs") && (signature->find("user_outputs") || signature->find("buffers_to_mutate"))) {
        readOldSignatureOutputs(graph, *signature);
        return;
    }
    const Cursor specs = (*signature)["output_specs"];
    for (size_t i = 0; i < specs.size(); ++i) {
        const Cursor spec = specs[i];
        auto [kind, body] = unionMember(spec, "OutputSpec");
        if (kind == "user_output") {
            values.push_back(m_decoder.decode(body["arg"]));
        } else if (kind == "loss_output") {
            values.push_back(m_decoder.resolve(body["arg"]["name"]));
        } else if (kind == "buffer_mutation" || kind == "parameter_mutation" || kind == "user_input_mutation"
                   || kind == "gradient_to_parameter" || kind == "gradient_to_user_input") {
            std::string what = kind;
            std::replace(what.begin(), what.end(), '_', ' ');
            std::string target;
            for (const char *field : {"buffer_name", "parameter_name", "user_input_name"})
                if (auto f = body.find(field); f && f->json().is_string())
                    target = " of '" + f->string() + "'";
            m_warnings.add(spec.path() + ": " + what + " output" + target + " skipped (Fusebox graphs are functional)");
        } else if (kind == "token") {
            m_warnings.add(spec.path() + ": effect token output skipped");
        } else {
            m_warnings.add(spec.path() + ": unknown output spec kind '" + kind + "' skipped");
        }
    }
    m_build.setOutputs(std::move(values));
}

void ProgramBuilder::readOldSignatureOutputs(const Cursor &graph, const Cursor &signature)
{
    // Schema 1 (torch 2.1): graph.outputs in order; buffers_to_mutate and the
    // backward signature's gradients name the outputs that are not the user's.
    std::map<std::string, std::string> skipped;
    if (auto mutated = signature.find("buffers_to_mutate"))
        for (const auto &item : mutated->object().items())
            skipped[item.key()] = "buffer mutation output of '"
                                  + (item.value().is_string() ? item.value().get<std::string>() : item.key()) + "'";
    if (auto backward = signature.find("backward_signature"))
        for (const char *field : {"gradients_to_parameters", "gradients_to_user_inputs"})
            if (auto grads = backward->find(field))
                for (const auto &item : grads->object().items())
                    skipped[item.key()] = std::string(field) + " output '" + item.key() + "'";
    std::vector<Arg> values;
    const Cursor outputs = graph["outputs"];
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Cursor output = outputs[i];
        auto [kind, value] = unionMember(output, "Argument");
        if (kind == "as_tensor" && value.json().is_object() && value.json().contains("name")
            && value.json()["name"].is_string()) {
            auto skip = skipped.find(value.json()["name"].get<std::string>());
            if (skip != skipped.end()) {
                m_warnings.add(output.path() + ": " + skip->second + " skipped (Fusebox graphs are functional)");
                continue;
            }
        }
        values.push_back(m_decoder.decode(output));
    }
    m_build.setOutputs(std::move(values));
}

} // namespace export_json

Expected<LoadedModel> readExportedProgramJson(std::string_view json, const ExportReadOptions &options)
{
    const std::string source = options.sourceName.empty() ? "exported program JSON" : options.sourceName;
    auto parsed = json_support::parse(std::string(json), source);
    if (!parsed)
        return parsed.error();
    export_json::Warnings warnings;
    try {
        export_json::ProgramBuilder builder(options, warnings);
        LoadedModel model{builder.build(export_json::Cursor(*parsed, "")), {}, {}};
        for (std::string &line : warnings.take())
            model.warnings.push_back(source + ": " + json_support::oneLine(std::move(line)));
        return model;
    } catch (const export_json::JsonPathError &e) {
        return Error{source + ": "
                     + json_support::oneLine((e.path.empty() ? std::string("document") : e.path) + ": " + e.message)};
    } catch (const nlohmann::json::exception &e) {
        // Guarded accessors should leave nothing for nlohmann to throw; just in case.
        return Error{source + ": " + e.what()};
    }
}

} // namespace fusebox
