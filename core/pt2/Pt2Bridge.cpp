#include "Pt2Bridge.h"

#include "core/io/Base64.h"
#include "core/io/JsonSupport.h"

#include <cctype>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace fusebox::pt2 {

namespace fs = std::filesystem;

namespace {

std::map<std::string, int64_t> histogramFromJson(const nlohmann::json &j)
{
    std::map<std::string, int64_t> out;
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it)
            out[it.key()] = it.value().get<int64_t>();
    return out;
}

std::string stringOr(const nlohmann::json &j, const char *key, std::string fallback = {})
{
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

/// A folder we may write into; created when missing. One line when not.
Status ensureWritableDir(const std::string &dir)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return Error{dir + ": cannot create the output folder (" + ec.message() + ")"};
    if (!fs::is_directory(dir, ec))
        return Error{dir + ": not a folder"};
    if (::access(dir.c_str(), W_OK) != 0)
        return Error{dir + ": the output folder is not writable"};
    return {};
}

} // namespace

Pt2Bridge::Pt2Bridge(PythonCommand command, std::string pythonDir)
    : m_command(std::move(command))
    , m_pythonDir(std::move(pythonDir))
{}

Expected<std::unique_ptr<Pt2Bridge>> Pt2Bridge::find(const std::string &explicitCommand)
{
    auto command = findPythonCommand(explicitCommand);
    if (!command)
        return Error{noPythonMessage()};
    return std::make_unique<Pt2Bridge>(std::move(*command));
}

RequestControl Pt2Bridge::shortRequest()
{
    RequestControl control;
    control.timeoutSeconds = 120;
    return control;
}

Expected<nlohmann::json> Pt2Bridge::request(const std::string &op, const nlohmann::json &args,
                                            const RequestControl &control)
{
    std::shared_ptr<BridgeProcess> process;
    {
        // The process is started once and shared: a request on another
        // thread keeps its own reference while this one replaces a dead one.
        std::lock_guard lock(m_mutex);
        if (!m_process || !m_process->alive()) {
            m_process.reset();
            auto started = BridgeProcess::start(m_command, m_pythonDir);
            if (!started)
                return started.error();
            m_process = std::move(*started);
        }
        process = m_process;
    }
    return process->request(op, args, control);
}

std::string Pt2Bridge::stderrTail() const
{
    std::lock_guard lock(m_mutex);
    return m_process ? m_process->stderrTail() : std::string();
}

bool Pt2Bridge::running() const
{
    std::lock_guard lock(m_mutex);
    return m_process && m_process->alive();
}

Expected<Pt2Info> Pt2Bridge::check(const RequestControl &control)
{
    auto r = request("check", nlohmann::json::object(), control);
    if (!r)
        return r.error();
    Pt2Info info;
    info.command = m_command;
    info.python = stringOr(*r, "python");
    info.executable = stringOr(*r, "executable");
    info.torch = stringOr(*r, "torch");
    info.torchvision = stringOr(*r, "torchvision");
    for (const auto &c : r->value("capabilities", nlohmann::json::array()))
        info.capabilities.push_back(c.get<std::string>());
    return info;
}

std::string schemaCacheDir()
{
    return fuseboxCacheDir() + "/schemas";
}

OpSchemaRegistry schemasFromJson(const nlohmann::json &schemas)
{
    auto argument = [](const nlohmann::json &a) {
        SchemaArgument out;
        out.name = stringOr(a, "name");
        out.type = stringOr(a, "type");
        if (a.contains("default"))
            out.defaultValue = stringOr(a, "default");
        out.kwargOnly = a.value("kwarg_only", false);
        return out;
    };
    OpSchemaRegistry registry;
    for (const auto &s : schemas) {
        OpSchema schema;
        schema.name = stringOr(s, "name");
        schema.overload = stringOr(s, "overload");
        schema.isMutable = s.value("mutable", false);
        for (const auto &a : s.value("arguments", nlohmann::json::array()))
            schema.arguments.push_back(argument(a));
        for (const auto &a : s.value("returns", nlohmann::json::array()))
            schema.returns.push_back(argument(a));
        registry.add(std::move(schema));
    }
    return registry;
}

Counters countersFromJson(const nlohmann::json &counters)
{
    Counters out;
    if (counters.is_object())
        for (auto it = counters.begin(); it != counters.end(); ++it)
            out.emplace_back(it.key(), it.value().get<int64_t>());
    return out;
}

namespace {

std::string schemaCacheFile(const std::string &torchVersion)
{
    std::string version = torchVersion;
    for (char &c : version)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.')
            c = '_';
    return schemaCacheDir() + "/torch-" + version + ".json";
}

std::string commandIndexFile()
{
    return schemaCacheDir() + "/commands.json";
}

/// Records that `command` runs torch `version` (best effort, like the cache itself).
void recordCommandVersion(const PythonCommand &command, const std::string &version)
{
    nlohmann::json index = nlohmann::json::object();
    if (auto text = json_support::readTextFile(commandIndexFile()))
        index = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!index.is_object())
        index = nlohmann::json::object();
    if (index.value(command.text(), std::string()) == version)
        return;
    index[command.text()] = version;
    std::error_code ec;
    fs::create_directories(schemaCacheDir(), ec);
    const std::string partial = commandIndexFile() + ".partial." + std::to_string(::getpid());
    {
        std::ofstream out(partial, std::ios::binary);
        out << index.dump(2);
    }
    fs::rename(partial, commandIndexFile(), ec);
}

} // namespace

std::optional<std::string> cachedTorchVersion(const PythonCommand &command)
{
    auto text = json_support::readTextFile(commandIndexFile());
    if (!text)
        return std::nullopt;
    nlohmann::json index = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!index.is_object() || !index.contains(command.text()) || !index[command.text()].is_string())
        return std::nullopt;
    return index[command.text()].get<std::string>();
}

std::optional<OpSchemaRegistry> cachedSchemas(const PythonCommand &command, std::string *torchVersion)
{
    const auto version = cachedTorchVersion(command);
    if (!version)
        return std::nullopt;
    auto cached = json_support::readTextFile(schemaCacheFile(*version));
    if (!cached)
        return std::nullopt;
    nlohmann::json dump = nlohmann::json::parse(*cached, nullptr, /*allow_exceptions=*/false);
    if (!dump.is_object() || !dump.contains("schemas"))
        return std::nullopt;
    if (torchVersion)
        *torchVersion = *version;
    return schemasFromJson(dump["schemas"]);
}

Expected<OpSchemaRegistry> Pt2Bridge::schemas(std::vector<std::string> *higherOrderOps, const RequestControl &control)
{
    auto info = check(control);
    if (!info)
        return info.error();
    const std::string cacheFile = schemaCacheFile(info->torch);
    nlohmann::json dump;
    if (auto cached = json_support::readTextFile(cacheFile)) {
        dump = nlohmann::json::parse(*cached, nullptr, /*allow_exceptions=*/false);
    }
    if (!dump.is_object() || !dump.contains("schemas")) {
        auto r = request("schemas", nlohmann::json::object(), control);
        if (!r)
            return r.error();
        dump = std::move(*r);
        // The cache is an optimisation: a failure to write it is not an error.
        std::error_code ec;
        fs::create_directories(schemaCacheDir(), ec);
        const std::string partial = cacheFile + ".partial";
        {
            std::ofstream out(partial, std::ios::binary);
            out << dump.dump();
        }
        fs::rename(partial, cacheFile, ec);
    }
    recordCommandVersion(m_command, info->torch);
    if (higherOrderOps)
        for (const auto &name : dump.value("higher_order_ops", nlohmann::json::array()))
            higherOrderOps->push_back(name.get<std::string>());
    return schemasFromJson(dump["schemas"]);
}

Expected<CaptureResult> Pt2Bridge::capture(const std::string &scriptPath, const std::string &outputDir,
                                           const RequestControl &control)
{
    auto text = json_support::readTextFile(scriptPath);
    if (!text)
        return text.error();
    if (Status ok = ensureWritableDir(outputDir); !ok)
        return ok.error();
    auto r = request("capture", {{"script", {{"name", scriptPath}, {"text", *text}}}}, control);
    if (!r)
        return r.error();

    // Write everything into a temporary folder first, then move the files in:
    // an error half-way leaves the output folder as it was.
    std::string pattern = outputDir + "/.fusebox-capture-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
        return Error{outputDir + ": cannot create a temporary folder in it"};
    const fs::path staging(buffer.data());
    CaptureResult result;
    result.outputDir = outputDir;
    auto cleanup = [&] {
        std::error_code ec;
        fs::remove_all(staging, ec);
    };
    const nlohmann::json &files = (*r)["files"];
    for (auto it = files.begin(); it != files.end(); ++it) {
        std::string bytes;
        if (it->is_string()) {
            bytes = it->get<std::string>();
        } else {
            auto decoded = decodeBase64(stringOr(*it, "base64"));
            if (!decoded) {
                cleanup();
                return Error{"PyTorch 2 bridge: capture sent " + it.key() + " in bad base64"};
            }
            bytes.assign(reinterpret_cast<const char *>(decoded->data()), decoded->size());
        }
        // Names are the bridge's own ("dynamo.py", "torch_compile_debug/fx_graph_readable.py"):
        // relative, no "..".
        const fs::path relative(it.key());
        if (relative.is_absolute() || relative.lexically_normal().string().rfind("..", 0) == 0) {
            cleanup();
            return Error{"PyTorch 2 bridge: capture sent a file outside the output folder: " + it.key()};
        }
        std::error_code dirError;
        fs::create_directories((staging / relative).parent_path(), dirError);
        std::ofstream out(staging / relative, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            cleanup();
            return Error{outputDir + "/" + it.key() + ": cannot write the file"};
        }
        result.files.push_back(it.key());
    }
    for (const std::string &name : result.files) {
        std::error_code ec;
        fs::create_directories((fs::path(outputDir) / name).parent_path(), ec);
        fs::rename(staging / name, fs::path(outputDir) / name, ec);
        if (ec) {
            cleanup();
            return Error{outputDir + "/" + name + ": cannot write the file (" + ec.message() + ")"};
        }
    }
    cleanup();
    if (const auto &h = (*r)["histograms"]; h.is_object())
        for (auto it = h.begin(); it != h.end(); ++it)
            result.histograms[it.key()] = histogramFromJson(it.value());
    if ((*r)["export_error"].is_string())
        result.exportError = (*r)["export_error"].get<std::string>();
    for (const auto &n : r->value("notes", nlohmann::json::array()))
        result.notes.push_back(n.get<std::string>());
    result.seconds = r->value("seconds", 0.0);
    return result;
}

Expected<InductorResult> Pt2Bridge::runInductor(const std::string &fxText, const std::string &configJson,
                                                const std::string &stage, const nlohmann::json &inputs,
                                                const RequestControl &control)
{
    nlohmann::json args = {{"graph", fxText}, {"config_text", configJson}, {"stage", stage}};
    if (!inputs.is_null())
        args["inputs"] = inputs;
    auto r = request("inductor", args, control);
    if (!r)
        return r.error();
    InductorResult out;
    out.graphText = stringOr(*r, "graph");
    out.counters = countersFromJson((*r)["counters"]);
    out.stage = stringOr(*r, "stage");
    out.seconds = r->value("seconds", 0.0);
    out.nodesBefore = r->value("nodes_before", int64_t{0});
    out.nodesAfter = r->value("nodes_after", int64_t{0});
    out.histogramBefore = histogramFromJson((*r)["histogram_before"]);
    out.histogramAfter = histogramFromJson((*r)["histogram_after"]);
    out.torchVersion = stringOr(*r, "torch");
    return out;
}

Expected<int64_t> Pt2Bridge::verifyBegin(const std::string &beforeFxText, double precision, int iterations,
                                         uint64_t seed, const RequestControl &control)
{
    auto r = request("verify_begin",
                     {{"graph", beforeFxText}, {"precision", precision}, {"iterations", iterations}, {"seed", seed}},
                     control);
    if (!r)
        return r.error();
    return r->value("handle", int64_t{-1});
}

Expected<BridgeVerification> Pt2Bridge::verifyCheck(int64_t handle, const std::string &afterFxText,
                                                    const RequestControl &control)
{
    auto r = request("verify_check", {{"handle", handle}, {"graph", afterFxText}}, control);
    if (!r)
        return r.error();
    BridgeVerification v;
    v.passed = r->value("passed", false);
    v.maxAbsDiff = r->value("max_abs_diff", 0.0);
    v.maxRelDiff = r->value("max_rel_diff", 0.0);
    v.worstOutput = r->value("worst_output", -1);
    v.worstOutputName = stringOr(*r, "worst_output_name");
    v.message = stringOr(*r, "message");
    return v;
}

Expected<PatternApplyResult> Pt2Bridge::applyPatterns(const std::string &moduleText, const std::string &fxText,
                                                      const RequestControl &control)
{
    auto r = request("apply_patterns", {{"module", moduleText}, {"graph", fxText}}, control);
    if (!r)
        return r.error();
    PatternApplyResult out;
    out.replacements = r->value("replacements", int64_t{0});
    out.graphText = stringOr(*r, "graph");
    out.outputsEqual = r->value("outputs_equal", false);
    out.maxAbsDiff = r->value("max_abs_diff", 0.0);
    out.message = stringOr(*r, "message");
    return out;
}

} // namespace fusebox::pt2
