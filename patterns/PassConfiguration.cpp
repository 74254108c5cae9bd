#include "PassConfiguration.h"

#include "custom/PatternCompiler.h"
#include "core/io/PatternFile.h"

#include "core/ir/Spelling.h"

#include <set>

namespace fusebox {
namespace {

Status applySection(PatternSet &patterns, const std::map<std::string, std::map<std::string, ConfigValue>> &section,
                    PassStage stage, std::set<std::string> &enabled)
{
    const std::string sectionName = std::string(toString(stage)) + "_fusion_options";
    std::vector<std::string> names;
    for (const Pattern *p : patterns.all())
        names.push_back(p->name());
    for (const auto &[rule, options] : section) {
        Pattern *p = patterns.find(rule);
        if (!p)
            return Error{sectionName + "/" + rule + ": unknown rule" + didYouMean(rule, names)};
        if (p->stage() != stage)
            return Error{sectionName + "/" + rule + ": is a " + std::string(toString(p->stage()))
                         + " rule; list it under " + std::string(toString(p->stage())) + "_fusion_options"};
        std::vector<std::string> known;
        for (const auto &[name, value] : p->options().values())
            known.push_back(name);
        for (const auto &[name, value] : options) {
            // Inductor's `counter` (how many times a pass runs) is taken by
            // every rule, as 2.6 takes it (and ignores it for fusions).
            if (name == "counter") {
                if (!std::holds_alternative<int64_t>(value) || std::get<int64_t>(value) < 1)
                    return Error{sectionName + "/" + rule + "/counter: expected a count of at least 1"};
                p->options().set(name, std::get<int64_t>(value));
                continue;
            }
            if (!p->options().has(name))
                return Error{sectionName + "/" + rule + "/" + name + ": unknown option" + didYouMean(name, known)
                             + "; " + rule + " takes: " + [&] {
                                   std::string list;
                                   for (const std::string &k : known)
                                       list += (list.empty() ? "" : ", ") + k;
                                   return list.empty() ? std::string("no options") : list;
                               }()};
            std::visit([&](auto v) { p->options().set(name, v); }, value);
        }
        enabled.insert(rule);
    }
    return Status::ok();
}

} // namespace

Status configurePatterns(PatternSet &patterns, const PassConfig &config)
{
    std::set<std::string> enabled;
    if (Status s = applySection(patterns, config.preGradFusionOptions, PassStage::PreGrad, enabled); !s)
        return s;
    if (Status s = applySection(patterns, config.postGradFusionOptions, PassStage::PostGrad, enabled); !s)
        return s;
    for (const Pattern *p : patterns.all())
        patterns.setEnabled(p->name(), enabled.count(p->name()) != 0);
    return Status::ok();
}

Expected<std::vector<std::string>> addCustomPatterns(PatternSet &patterns, const PassConfig &config,
                                                     const std::string &configName, const OpSchemaRegistry *schemas)
{
    std::vector<std::string> added;
    for (size_t i = 0; i < config.customPatterns.size(); ++i) {
        const CustomPatternSource &source = config.customPatterns[i];
        Expected<PatternFile> file =
            source.text.empty()
                ? readPatternFile(source.resolvedFile.empty() ? source.file : source.resolvedFile, {schemas, {}})
                : parsePatternFile(source.text, {schemas, configName + ": custom_patterns[" + std::to_string(i) + "]"});
        if (!file)
            return file.error();
        auto compiled = compilePatterns(*file, schemas);
        if (!compiled)
            return compiled.error();
        for (std::unique_ptr<Pattern> &p : *compiled) {
            if (patterns.find(p->name()))
                return Error{configName + ": custom pattern '" + p->name() + "' is already defined"};
            added.push_back(p->name());
            patterns.add(std::move(p));
        }
    }
    return added;
}

PassConfig passConfigFor(const PatternSet &patterns)
{
    PassConfig config;
    for (const Pattern *p : patterns.enabled()) {
        auto &section = p->stage() == PassStage::PreGrad ? config.preGradFusionOptions : config.postGradFusionOptions;
        auto &options = section[p->name()];
        for (const auto &[name, value] : p->options().values())
            std::visit([&](auto v) { options[name] = v; }, value);
    }
    return config;
}

std::function<bool(const Graph &, const Match &)> rejectionFilter(const PassConfig &config)
{
    std::set<std::string> signatures;
    for (const RejectedMatch &r : config.rejected)
        signatures.insert(r.signature);
    return [signatures](const Graph &graph, const Match &match) {
        return signatures.count(matchSignature(graph, match)) != 0;
    };
}

} // namespace fusebox
