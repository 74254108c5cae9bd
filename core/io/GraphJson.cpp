#include "core/ir/GraphBuilder.h"
#include "GraphJson.h"

#include "Base64.h"
#include "JsonSupport.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace fusebox {

using nlohmann::json;

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------
namespace {

json metaToJson(const TensorMeta &meta)
{
    json j = json::object();
    if (meta.dtype != DType::Unknown)
        j["dtype"] = std::string(shortName(meta.dtype));
    if (meta.shape) {
        json shape = json::array();
        for (const Dim &d : *meta.shape) {
            if (const auto *size = std::get_if<int64_t>(&d))
                shape.push_back(*size);
            else
                shape.push_back(std::get<std::string>(d));
        }
        j["shape"] = std::move(shape);
    }
    if (meta.strides)
        j["strides"] = *meta.strides;
    if (!meta.device.empty())
        j["device"] = meta.device;
    return j;
}

json argToJson(const Arg &arg, const Graph &graph)
{
    struct Writer {
        const Graph &graph;
        json operator()(NoneArg) const { return nullptr; }
        json operator()(EllipsisArg) const { return json{{"ellipsis", true}}; }
        json operator()(NodeId id) const
        {
            const Node *n = graph.node(id);
            return json{{"ref", n ? n->name : "#" + std::to_string(id.value)}};
        }
        json operator()(bool b) const { return b; }
        json operator()(int64_t i) const { return i; }
        json operator()(double d) const
        {
            if (std::isnan(d))
                return json{{"float", "nan"}};
            if (std::isinf(d))
                return json{{"float", d > 0 ? "inf" : "-inf"}};
            return d;
        }
        json operator()(const std::string &s) const { return s; }
        json operator()(DType t) const { return json{{"dtype", std::string(shortName(t))}}; }
        json operator()(const Device &d) const { return json{{"device", d.toString()}}; }
        json operator()(const ArgList &l) const
        {
            json items = json::array();
            for (const Arg &item : l.items)
                items.push_back(argToJson(item, graph));
            switch (l.kind) {
            case ArgList::Kind::Tuple: return json{{"tuple", std::move(items)}};
            case ArgList::Kind::Slice: return json{{"slice", std::move(items)}};
            case ArgList::Kind::Dict: return json{{"dict", std::move(items)}};
            case ArgList::Kind::List: break;
            }
            return items;
        }
    };
    return std::visit(Writer{graph}, arg.value);
}

json nodeToJson(const Node &n, const Graph &graph)
{
    json j;
    j["name"] = n.name;
    j["kind"] = std::string(toString(n.kind()));
    if (!n.op.empty())
        j["op"] = n.op;
    if (!n.overload.empty())
        j["overload"] = n.overload;
    if (n.kind() != NodeKind::Output) {
        j["type"] = n.type;
        json meta = metaToJson(n.meta);
        if (!meta.empty())
            j["meta"] = std::move(meta);
    }
    if (!n.args().empty()) {
        json args = json::array();
        for (const Arg &a : n.args())
            args.push_back(argToJson(a, graph));
        j["args"] = std::move(args);
    }
    if (!n.kwargs().empty()) {
        json kwargs = json::array();
        for (const NamedArg &kw : n.kwargs())
            kwargs.push_back(json{{"name", kw.name}, {"value", argToJson(kw.value, graph)}});
        j["kwargs"] = std::move(kwargs);
    }
    if (!n.weightKey.empty())
        j["weight"] = n.weightKey;
    if (!n.opaqueBody.empty())
        j["opaqueBody"] = n.opaqueBody;
    const Provenance &p = n.provenance;
    json prov = json::object();
    if (!p.scope.empty())
        prov["scope"] = p.scope;
    if (p.source.isKnown())
        prov["source"] = json{{"file", p.source.file}, {"line", p.source.line}, {"column", p.source.column}};
    if (!p.originalSpelling.empty())
        prov["original"] = p.originalSpelling;
    if (!p.writtenArgs.empty())
        prov["written_args"] = p.writtenArgs;
    if (!p.createdBy.empty())
        prov["createdBy"] = p.createdBy;
    if (!prov.empty())
        j["provenance"] = std::move(prov);
    return j;
}

} // namespace

std::string writeGraphJson(const Graph &graph, const GraphJsonWriteOptions &options)
{
    json root;
    root["format"] = "fusebox-graph";
    root["version"] = kGraphJsonVersion;
    root["metadata"] = graph.metadata();
    json nodes = json::array();
    for (NodeId id : graph.nodeIds())
        nodes.push_back(nodeToJson(*graph.node(id), graph));
    root["nodes"] = std::move(nodes);
    if (options.embedWeights && graph.weights().size()) {
        json weights = json::object();
        for (const std::string &key : graph.weights().keys()) {
            auto w = graph.weights().get(key);
            weights[key] = json{{"meta", metaToJson(w->meta)}, {"data", encodeBase64(w->data)}};
        }
        root["weights"] = std::move(weights);
    }
    return root.dump(options.indent) + "\n";
}

Status saveGraphJson(const Graph &graph, const std::string &path, const GraphJsonWriteOptions &options)
{
    return json_support::writeTextFile(path, writeGraphJson(graph, options));
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------
namespace {

/// A reading failure at a JSON path; turned into an Error at the boundary.
struct JsonFieldError {
    std::string path;
    std::string message;
};

using json_support::describe;

[[noreturn]] void fail(const std::string &path, const std::string &message)
{
    throw JsonFieldError{path, message};
}

const json &field(const json &object, const std::string &path, const char *key)
{
    if (!object.is_object())
        fail(path, "expected an object, found " + describe(object));
    auto it = object.find(key);
    if (it == object.end())
        fail(path + "/" + key, "missing");
    return *it;
}

std::string stringField(const json &object, const std::string &path, const char *key, bool required = true)
{
    if (!required && (!object.is_object() || !object.contains(key)))
        return {};
    const json &value = field(object, path, key);
    if (!value.is_string())
        fail(path + "/" + key, "expected a string, found " + describe(value));
    return value.get<std::string>();
}

int64_t intValue(const json &value, const std::string &path)
{
    if (!value.is_number_integer())
        fail(path, "expected an integer, found " + describe(value));
    return value.get<int64_t>();
}

DType dtypeValue(const json &value, const std::string &path)
{
    if (!value.is_string())
        fail(path, "expected a dtype name, found " + describe(value));
    auto dtype = parseDType(value.get<std::string>());
    if (!dtype)
        fail(path, "unknown dtype '" + value.get<std::string>() + "'");
    return *dtype;
}

Device deviceValue(const std::string &text, const std::string &path)
{
    auto colon = text.find(':');
    if (colon == std::string::npos)
        return Device{text, -1};
    // "cuda:0": an index that is not a number is an error, not an uncaught
    // std::invalid_argument from std::stoi (found by graph_json_fuzz).
    int index = -1;
    const char *first = text.data() + colon + 1, *last = text.data() + text.size();
    const auto [end, error] = std::from_chars(first, last, index);
    if (first == last || *first == '-' || error != std::errc() || end != last)
        fail(path, "expected a device such as \"cuda:0\", found string \"" + text + "\"");
    return Device{text.substr(0, colon), index};
}

TensorMeta metaFromJson(const json &j, const std::string &path)
{
    if (!j.is_object())
        fail(path, "expected an object, found " + describe(j));
    TensorMeta meta;
    if (j.contains("dtype"))
        meta.dtype = dtypeValue(j["dtype"], path + "/dtype");
    if (j.contains("shape")) {
        const json &shape = j["shape"];
        if (!shape.is_array())
            fail(path + "/shape", "expected an array, found " + describe(shape));
        meta.shape.emplace();
        for (size_t i = 0; i < shape.size(); ++i) {
            if (shape[i].is_string())
                meta.shape->push_back(shape[i].get<std::string>());
            else
                meta.shape->push_back(intValue(shape[i], path + "/shape/" + std::to_string(i)));
        }
    }
    if (j.contains("strides")) {
        const json &strides = j["strides"];
        if (!strides.is_array())
            fail(path + "/strides", "expected an array, found " + describe(strides));
        meta.strides.emplace();
        for (size_t i = 0; i < strides.size(); ++i)
            meta.strides->push_back(intValue(strides[i], path + "/strides/" + std::to_string(i)));
    }
    if (j.contains("device")) {
        if (!j["device"].is_string())
            fail(path + "/device", "expected a string, found " + describe(j["device"]));
        meta.device = j["device"].get<std::string>();
    }
    return meta;
}

class GraphReader {
public:
    explicit GraphReader(Graph &graph)
        : m_graph(graph)
    {}

    Arg arg(const json &j, const std::string &path) const
    {
        if (j.is_null())
            return NoneArg{};
        if (j.is_boolean())
            return j.get<bool>();
        if (j.is_number_integer())
            return j.get<int64_t>();
        if (j.is_number_float())
            return j.get<double>();
        if (j.is_string())
            return j.get<std::string>();
        if (j.is_array())
            return list(j, path, ArgList::Kind::List);
        if (j.is_object() && j.size() == 1) {
            // (not *j.items().begin(): the proxy's key dies with the temporary)
            const std::string &key = j.begin().key();
            const json &value = j.begin().value();
            if (key == "ref") {
                if (!value.is_string())
                    fail(path + "/ref", "expected a node name, found " + describe(value));
                NodeId id = m_graph.findByName(value.get<std::string>());
                if (!id.isValid())
                    fail(path + "/ref",
                         "unknown node '" + value.get<std::string>() + "' (nodes must be listed before their users)");
                return id;
            }
            if (key == "float") {
                std::string text = value.is_string() ? value.get<std::string>() : "";
                if (text == "nan")
                    return std::nan("");
                if (text == "inf" || text == "-inf")
                    return text == "inf" ? HUGE_VAL : -HUGE_VAL;
                fail(path + "/float", "expected \"inf\", \"-inf\" or \"nan\", found " + describe(value));
            }
            if (key == "dtype")
                return dtypeValue(value, path + "/dtype");
            if (key == "device") {
                if (!value.is_string())
                    fail(path + "/device", "expected a string, found " + describe(value));
                return deviceValue(value.get<std::string>(), path + "/device");
            }
            if (key == "tuple")
                return list(value, path + "/tuple", ArgList::Kind::Tuple);
            if (key == "slice")
                return list(value, path + "/slice", ArgList::Kind::Slice);
            if (key == "dict")
                return list(value, path + "/dict", ArgList::Kind::Dict);
            if (key == "ellipsis")
                return EllipsisArg{};
        }
        fail(path, "expected an argument (null, bool, number, string, list, or an object "
                   "with one of ref/float/dtype/device/tuple/slice/dict/ellipsis), found "
                       + describe(j));
    }

    void node(const json &j, const std::string &path)
    {
        const std::string name = stringField(j, path, "name");
        const std::string kindText = stringField(j, path, "kind");
        if (m_graph.findByName(name).isValid())
            fail(path + "/name", "duplicate node name '" + name + "'");

        std::vector<Arg> args;
        if (j.contains("args")) {
            const json &a = j["args"];
            if (!a.is_array())
                fail(path + "/args", "expected an array, found " + describe(a));
            for (size_t i = 0; i < a.size(); ++i)
                args.push_back(arg(a[i], path + "/args/" + std::to_string(i)));
        }
        std::vector<NamedArg> kwargs;
        if (j.contains("kwargs")) {
            const json &k = j["kwargs"];
            if (!k.is_array())
                fail(path + "/kwargs", "expected an array, found " + describe(k));
            for (size_t i = 0; i < k.size(); ++i) {
                std::string kpath = path + "/kwargs/" + std::to_string(i);
                kwargs.push_back({stringField(k[i], kpath, "name"), arg(field(k[i], kpath, "value"), kpath + "/value")});
            }
        }

        NodeId id;
        if (kindText == "input") {
            id = m_build.addInput(name);
        } else if (kindText == "constant") {
            id = m_build.addConstant(name, stringField(j, path, "weight"));
        } else if (kindText == "op") {
            id = m_build.addOp(stringField(j, path, "op"), std::move(args), std::move(kwargs), name);
        } else if (kindText == "output") {
            if (m_graph.output().isValid())
                fail(path + "/kind", "a second output node");
            if (args.size() != 1 || !args[0].isList())
                fail(path + "/args", "the output node needs one list argument");
            id = m_build.setOutputs(*args[0].items());
        } else {
            fail(path + "/kind", "expected input, op, constant or output, found '" + kindText + "'");
        }
        if ((kindText == "input" || kindText == "constant") && (!args.empty() || !kwargs.empty()))
            fail(path + "/args", "an " + kindText + " takes no arguments");

        Node &n = m_build.node(id);
        if (n.name != name)
            fail(path + "/name", "name '" + name + "' clashes with an earlier node");
        n.overload = stringField(j, path, "overload", false);
        if (kindText != "output")
            n.type = stringField(j, path, "type");
        if (j.contains("meta"))
            n.meta = metaFromJson(j["meta"], path + "/meta");
        n.opaqueBody = stringField(j, path, "opaqueBody", false);
        if (j.contains("provenance")) {
            const json &p = j["provenance"];
            std::string ppath = path + "/provenance";
            if (!p.is_object())
                fail(ppath, "expected an object, found " + describe(p));
            n.provenance.scope = stringField(p, ppath, "scope", false);
            n.provenance.originalSpelling = stringField(p, ppath, "original", false);
            n.provenance.writtenArgs = stringField(p, ppath, "written_args", false);
            n.provenance.createdBy = stringField(p, ppath, "createdBy", false);
            if (p.contains("source")) {
                const json &s = p["source"];
                std::string spath = ppath + "/source";
                n.provenance.source.file = stringField(s, spath, "file");
                n.provenance.source.line = int(intValue(field(s, spath, "line"), spath + "/line"));
                n.provenance.source.column = int(intValue(field(s, spath, "column"), spath + "/column"));
            }
        }
    }

private:
    Arg list(const json &j, const std::string &path, ArgList::Kind kind) const
    {
        if (!j.is_array())
            fail(path, "expected an array, found " + describe(j));
        std::vector<Arg> items;
        for (size_t i = 0; i < j.size(); ++i)
            items.push_back(arg(j[i], path + "/" + std::to_string(i)));
        return Arg::list(std::move(items), kind);
    }

    Graph &m_graph;
    GraphBuilder m_build{m_graph};
};

} // namespace

Expected<LoadedModel> readGraphJson(const std::string &text, const std::string &sourceName)
{
    auto parsed = json_support::parse(text, sourceName);
    if (!parsed)
        return parsed.error();
    const json &root = *parsed;

    LoadedModel model;
    // One builder for the whole read: metadata first, then the nodes (the
    // reader's own), then the weights.
    GraphBuilder build(model.graph);
    try {
        if (stringField(root, "", "format") != "fusebox-graph")
            fail("/format", "expected \"fusebox-graph\", found " + describe(root["format"]));
        int64_t version = intValue(field(root, "", "version"), "/version");
        if (version > kGraphJsonVersion || version < 1)
            fail("/version", "version " + std::to_string(version) + " is not supported (this Fusebox reads 1.."
                                 + std::to_string(kGraphJsonVersion) + ")");
        if (root.contains("metadata")) {
            const json &meta = root["metadata"];
            if (!meta.is_object())
                fail("/metadata", "expected an object, found " + describe(meta));
            for (const auto &[key, value] : meta.items()) {
                if (!value.is_string())
                    fail("/metadata/" + key, "expected a string, found " + describe(value));
                build.metadata()[key] = value.get<std::string>();
            }
        }
        const json &nodes = field(root, "", "nodes");
        if (!nodes.is_array())
            fail("/nodes", "expected an array, found " + describe(nodes));
        GraphReader reader(model.graph);
        for (size_t i = 0; i < nodes.size(); ++i)
            reader.node(nodes[i], "/nodes/" + std::to_string(i));
        if (!model.graph.output().isValid())
            fail("/nodes", "no node of kind \"output\"");

        if (root.contains("weights")) {
            const json &weights = root["weights"];
            if (!weights.is_object())
                fail("/weights", "expected an object, found " + describe(weights));
            for (const auto &[key, value] : weights.items()) {
                std::string wpath = "/weights/" + key;
                Weight w;
                w.meta = metaFromJson(field(value, wpath, "meta"), wpath + "/meta");
                auto data = decodeBase64(stringField(value, wpath, "data"));
                if (!data)
                    fail(wpath + "/data", "not valid base64");
                w.data = std::move(*data);
                build.weights().put(key, std::move(w));
            }
        }
    } catch (const JsonFieldError &e) {
        return Error{sourceName + ": " + json_support::oneLine((e.path.empty() ? "/" : e.path) + ": " + e.message)};
    }
    return model;
}

Expected<LoadedModel> loadGraphJson(const std::string &path)
{
    auto text = json_support::readTextFile(path);
    if (!text)
        return text.error();
    return readGraphJson(*text, path);
}

} // namespace fusebox
