// Document's pattern set: enable flags, options and custom patterns.
#include "DocumentPatterns.h"

#include "Document.h"
#include "DocumentHistory.h"
#include "DocumentJobs.h"
#include "DocumentReview.h"

#include "core/torch/FuseboxOps.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/custom/PatternCompiler.h"

#include <QFileInfo>

#include <algorithm>
#include <set>

namespace fusebox {

DocumentPatterns::DocumentPatterns(Document &document, const DocumentParts &parts)
    : m_document(document)
    , m_parts(parts)
    , m_patterns(builtinCatalog())
{}

void DocumentPatterns::setInductorProfile(const InductorProfile &profile)
{
    if (&profile == m_profile)
        return;
    m_parts.jobs->waitForPatternsIdle();
    for (const Pattern *rule : m_patterns.all())
        if (!m_profile->find(rule->name()) && profile.find(rule->name()))
            m_patterns.setEnabled(rule->name(), true); // the older version had no such pass
    applyInductorProfile(m_patterns, profile);
    m_profile = &profile;
    patternsEdited();
}

void DocumentPatterns::setPatternEnabled(const QString &name, bool enabled)
{
    if (!m_patterns.find(name.toStdString()) || m_patterns.isEnabled(name.toStdString()) == enabled)
        return;
    m_parts.jobs->waitForPatternsIdle();
    m_patterns.setEnabled(name.toStdString(), enabled);
    patternsEdited();
}

Status DocumentPatterns::setPatternOption(const QString &pattern, const QString &option, const OptionValue &value)
{
    Pattern *p = m_patterns.find(pattern.toStdString());
    if (!p)
        return Error{"no pattern '" + pattern.toStdString() + "'"};
    if (!p->options().has(option.toStdString()))
        return Error{pattern.toStdString() + " has no option '" + option.toStdString() + "'"};
    m_parts.jobs->waitForPatternsIdle();
    p->options().set(option.toStdString(), value);
    patternsEdited();
    return {};
}

Status DocumentPatterns::addPatternFile(const QString &path)
{
    PatternFileReadOptions options;
    options.schemas = &torchSchemas();
    auto file = readPatternFile(path.toStdString(), options);
    if (!file)
        return file.error();
    CustomPatternSource source;
    source.file = source.resolvedFile = QFileInfo(path).absoluteFilePath().toStdString();
    auto names = adoptPatterns(*file, std::move(source));
    if (!names)
        return names.error();
    return {};
}

Expected<std::vector<std::string>> DocumentPatterns::addPatternText(const QString &text, const QString &sourceName)
{
    PatternFileReadOptions options;
    options.schemas = &torchSchemas();
    options.sourceName = sourceName.toStdString();
    auto file = parsePatternFile(text.toStdString(), options);
    if (!file)
        return file.error();
    CustomPatternSource source;
    source.text = text.toStdString();
    return adoptPatterns(*file, std::move(source));
}

namespace {

/// A source as the refusal below names it.
std::string describeSource(const CustomPatternSource &source)
{
    return source.text.empty() ? source.file : Document::tr("the Pattern Editor's text").toStdString();
}

} // namespace

// A source that no longer reads is kept as it was (its names are unknown).
std::vector<std::string> DocumentPatterns::patternNamesOf(const CustomPatternSource &source)
{
    PatternFileReadOptions options;
    auto file = source.text.empty() ? readPatternFile(source.resolvedFile, options)
                                    : parsePatternFile(source.text, options);
    std::vector<std::string> names;
    if (file)
        for (const auto &decl : file->patterns)
            names.push_back(decl.name);
    return names;
}

Expected<std::vector<std::string>> DocumentPatterns::adoptPatterns(const PatternFile &file, CustomPatternSource source)
{
    auto compiled = compilePatterns(file, &torchSchemas());
    if (!compiled)
        return compiled.error();
    // Each pattern is defined by one source, so that the pass file the review
    // exports defines it once (fusebox-pass refuses a name defined twice). A
    // source whose every pattern the new one redefines is replaced by it; one
    // that would keep others beside a redefined one is a conflict to settle
    // by hand, refused before anything changes.
    std::set<std::string> incoming;
    for (const auto &p : *compiled)
        incoming.insert(p->name());
    std::vector<size_t> replaced;
    for (size_t i = 0; i < m_customSources.size(); ++i) {
        std::vector<std::string> shared, kept;
        for (const std::string &name : patternNamesOf(m_customSources[i]))
            (incoming.count(name) ? shared : kept).push_back(name);
        if (shared.empty())
            continue;
        if (!kept.empty())
            return Error{"pattern '" + shared.front() + "' is already defined in " + describeSource(m_customSources[i])
                         + ", together with '" + kept.front()
                         + "', which this source does not define: " + "put the patterns of one source in one file"};
        replaced.push_back(i);
    }
    for (auto i = replaced.rbegin(); i != replaced.rend(); ++i)
        m_customSources.erase(m_customSources.begin() + std::ptrdiff_t(*i));
    ensureFuseboxOpsRegistered(); // rewrites to fusebox:: ops must run to verify
    m_parts.jobs->waitForPatternsIdle();
    const std::string origin = source.file.empty()
                                   ? Document::tr("Pattern Editor").toStdString()
                                   : QFileInfo(QString::fromStdString(source.file)).fileName().toStdString();
    std::vector<std::string> names;
    for (auto &p : *compiled) {
        names.push_back(p->name());
        m_customOrigin[p->name()] = origin;
        m_patterns.add(std::move(p)); // a pattern of the same name is replaced
        if (std::find(m_customNames.begin(), m_customNames.end(), names.back()) == m_customNames.end())
            m_customNames.push_back(names.back());
    }
    m_customSources.push_back(std::move(source));
    patternsEdited();
    return names;
}

std::string DocumentPatterns::customOrigin(const std::string &pattern) const
{
    auto it = m_customOrigin.find(pattern);
    return it == m_customOrigin.end() ? std::string() : it->second;
}

void DocumentPatterns::adopt(Configured configured)
{
    m_configNotes = std::move(configured.notes);
    m_preGradOrder = std::move(configured.preGradOrder);
    m_postGradOrder = std::move(configured.postGradOrder);
    ensureFuseboxOpsRegistered();
    m_parts.jobs->waitForPatternsIdle();
    m_patterns = std::move(configured.patterns);
    m_customNames = std::move(configured.customNames);
    m_customOrigin.clear();
    for (const std::string &name : m_customNames)
        m_customOrigin[name] = configured.origin;
    m_customSources = std::move(configured.customSources);
    m_parts.jobs->bumpVersion();
    emit patternsChanged();
}

void DocumentPatterns::patternsEdited()
{
    m_parts.history->markDirty();
    m_parts.jobs->bumpVersion();
    emit patternsChanged();
    if (m_parts.review->hasMatchResults())
        m_document.findMatches();
}

} // namespace fusebox
