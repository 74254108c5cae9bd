#include "PassConfig.h"

#include "JsonSupport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fusebox {

using nlohmann::json;

namespace {

struct ConfigError {
    std::string path, message;
};

using json_support::describe;

std::map<std::string, std::map<std::string, ConfigValue>> readSection(
    const json &section, const std::string &path, std::map<std::string, std::vector<std::string>> &devices)
{
    if (!section.is_object())
        throw ConfigError{path, "expected an object of rule names, found " + describe(section)};
    std::map<std::string, std::map<std::string, ConfigValue>> rules;
    for (const auto &[rule, options] : section.items()) {
        const std::string rulePath = path + "/" + rule;
        if (!options.is_object())
            throw ConfigError{rulePath, "expected an object of options, found " + describe(options)};
        auto &target = rules[rule];
        for (const auto &[name, value] : options.items()) {
            if (name == "devices") {
                const bool strings = value.is_array() && std::all_of(value.begin(), value.end(), [](const json &d) {
                                         return d.is_string();
                                     });
                if (!strings)
                    throw ConfigError{rulePath + "/devices",
                                      "expected a list of device types such as [\"cuda\"], found " + describe(value)};
                devices[rule] = value.get<std::vector<std::string>>();
            } else if (value.is_boolean())
                target[name] = value.get<bool>();
            else if (value.is_number_integer())
                target[name] = value.get<int64_t>();
            else if (value.is_number_float())
                target[name] = value.get<double>();
            else
                throw ConfigError{rulePath + "/" + name, "expected a number or bool, found " + describe(value)};
        }
    }
    return rules;
}

nlohmann::ordered_json writeSection(const std::map<std::string, std::map<std::string, ConfigValue>> &section,
                                    const std::vector<std::string> &order,
                                    const std::map<std::string, std::vector<std::string>> &devices)
{
    // Rules in `order` first, in that order, then any others by name.
    std::vector<std::string> rules;
    for (const std::string &rule : order)
        if (section.count(rule) && std::find(rules.begin(), rules.end(), rule) == rules.end())
            rules.push_back(rule);
    for (const auto &entry : section)
        if (std::find(rules.begin(), rules.end(), entry.first) == rules.end())
            rules.push_back(entry.first);
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const std::string &rule : rules) {
        const auto &options = section.at(rule);
        nlohmann::ordered_json o = nlohmann::ordered_json::object();
        // A named copy, not the structured binding: clang 14 cannot capture
        // bindings in a lambda (P1091 came with clang 16).
        for (const auto &option : options) {
            const std::string &name = option.first;
            std::visit([&](auto v) { o[name] = v; }, option.second);
        }
        if (auto d = devices.find(rule); d != devices.end())
            o["devices"] = d->second;
        j[rule] = std::move(o);
    }
    return j;
}

std::string configStringField(const json &object, const std::string &path, const char *key, bool required)
{
    auto it = object.find(key);
    if (it == object.end()) {
        if (required)
            throw ConfigError{path + "/" + key, "missing"};
        return {};
    }
    if (!it->is_string())
        throw ConfigError{path + "/" + key, "expected a string, found " + describe(*it)};
    return it->get<std::string>();
}

} // namespace

Expected<PassConfig> readPassConfig(const std::string &text, const std::string &sourceName)
{
    auto parsed = json_support::parse(text, sourceName);
    if (!parsed)
        return parsed.error();
    const json &root = *parsed;
    PassConfig config;
    try {
        if (!root.is_object())
            throw ConfigError{"", "expected an object, found " + describe(root)};
        for (const auto &[key, value] : root.items()) {
            if (key == "pre_grad_fusion_options")
                config.preGradFusionOptions = readSection(value, "/" + key, config.preGradDevices);
            else if (key == "post_grad_fusion_options")
                config.postGradFusionOptions = readSection(value, "/" + key, config.postGradDevices);
            else if (key == "disabled_passes") {
                if (!value.is_string())
                    throw ConfigError{"/disabled_passes", "expected a string of comma-separated pass names "
                                                          "(as torch._inductor.config.disabled_passes), found "
                                                              + describe(value)};
                config.disabledPasses = value.get<std::string>();
            } else if (key == "rejected") {
                if (!value.is_array())
                    throw ConfigError{"/rejected", "expected an array, found " + describe(value)};
                for (size_t i = 0; i < value.size(); ++i) {
                    const std::string path = "/rejected/" + std::to_string(i);
                    if (!value[i].is_object())
                        throw ConfigError{path, "expected an object, found " + describe(value[i])};
                    config.rejected.push_back({configStringField(value[i], path, "pattern", true),
                                               configStringField(value[i], path, "signature", true),
                                               configStringField(value[i], path, "anchor", false)});
                }
            } else if (key == "custom_patterns") {
                if (!value.is_array())
                    throw ConfigError{"/custom_patterns", "expected an array, found " + describe(value)};
                for (size_t i = 0; i < value.size(); ++i) {
                    const std::string path = "/custom_patterns/" + std::to_string(i);
                    if (!value[i].is_object())
                        throw ConfigError{path, "expected an object, found " + describe(value[i])};
                    CustomPatternSource source;
                    source.file = configStringField(value[i], path, "file", false);
                    source.text = configStringField(value[i], path, "text", false);
                    if (source.file.empty() == source.text.empty())
                        throw ConfigError{path, "expected either \"file\" or \"text\""};
                    source.resolvedFile = source.file;
                    config.customPatterns.push_back(std::move(source));
                }
            } else if (key != "format" && key != "version" && key != "comment") {
                throw ConfigError{"/" + key, "unknown section (expected pre_grad_fusion_options, "
                                             "post_grad_fusion_options, disabled_passes, custom_patterns or rejected)"};
            }
        }
    } catch (const ConfigError &e) {
        return Error{sourceName + ": " + json_support::oneLine((e.path.empty() ? "/" : e.path) + ": " + e.message)};
    }
    // nlohmann::json sorts an object's keys; the order of the rules is read
    // again from the text, which parsed above.
    const auto ordered = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    for (auto [section, order] : {std::pair{"pre_grad_fusion_options", &config.preGradOrder},
                                  std::pair{"post_grad_fusion_options", &config.postGradOrder}})
        if (ordered.is_object() && ordered.contains(section) && ordered[section].is_object())
            for (const auto &item : ordered[section].items())
                order->push_back(item.key());
    return config;
}

Expected<PassConfig> loadPassConfig(const std::string &path)
{
    auto text = json_support::readTextFile(path);
    if (!text)
        return text.error();
    auto config = readPassConfig(*text, path);
    if (config) {
        // Pattern files are named relative to the config, so that the pair
        // can move together.
        const std::filesystem::path folder = std::filesystem::path(path).parent_path();
        for (CustomPatternSource &source : config->customPatterns)
            if (!source.file.empty() && std::filesystem::path(source.file).is_relative())
                source.resolvedFile = (folder / source.file).lexically_normal().string();
    }
    return config;
}

std::string writePassConfig(const PassConfig &config)
{
    nlohmann::ordered_json root;
    root["pre_grad_fusion_options"] = writeSection(config.preGradFusionOptions, config.preGradOrder,
                                                   config.preGradDevices);
    root["post_grad_fusion_options"] = writeSection(config.postGradFusionOptions, config.postGradOrder,
                                                    config.postGradDevices);
    if (config.disabledPasses)
        root["disabled_passes"] = *config.disabledPasses;
    if (!config.customPatterns.empty()) {
        nlohmann::ordered_json custom = nlohmann::ordered_json::array();
        for (const CustomPatternSource &c : config.customPatterns)
            custom.push_back(c.file.empty() ? nlohmann::ordered_json{{"text", c.text}}
                                            : nlohmann::ordered_json{{"file", c.file}});
        root["custom_patterns"] = std::move(custom);
    }
    nlohmann::ordered_json rejected = nlohmann::ordered_json::array();
    for (const RejectedMatch &r : config.rejected)
        rejected.push_back({{"pattern", r.pattern}, {"signature", r.signature}, {"anchor", r.anchor}});
    root["rejected"] = std::move(rejected);
    return root.dump(2) + "\n";
}

Status savePassConfig(const PassConfig &config, const std::string &path)
{
    return json_support::writeTextFile(path, writePassConfig(config));
}

} // namespace fusebox
