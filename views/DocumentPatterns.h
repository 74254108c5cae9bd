#pragma once

#include <QObject>
#include "DocumentParts.h"

#include "core/io/PassConfig.h"
#include "core/io/PatternFile.h"
#include "core/rewrite/PatternSet.h"
#include "patterns/InductorProfile.h"

#include <QString>

#include <map>
#include <string>
#include <vector>

namespace fusebox {

class Document;

/// Document's pattern set: the built-in catalog, each rule's enable flag and
/// options, and the custom patterns (from pattern files, the editor or a
/// pass file) with where they came from; and the rules' order of the pass
/// config last applied. Changing any of it waits for the background jobs
/// that read it, marks the review unsaved and searches again.
class DocumentPatterns final : public QObject {
    Q_OBJECT

public:
    DocumentPatterns(Document &document, const DocumentParts &parts);
    DocumentPatterns(const DocumentPatterns &) = delete;
    DocumentPatterns &operator=(const DocumentPatterns &) = delete;

    const PatternSet &patterns() const { return m_patterns; }
    /// The Inductor whose answers the rules give (Settings ▸ Inductor
    /// Version): its passes' behaviours; the passes it lacks are disabled,
    /// those it has that an older choice disabled enabled again. A pass
    /// config applied later is read as this version reads it. Waits for the
    /// jobs that read the set and searches again.
    void setInductorProfile(const InductorProfile &profile);
    const InductorProfile &inductorProfile() const { return *m_profile; }
    void setPatternEnabled(const QString &name, bool enabled);
    Status setPatternOption(const QString &pattern, const QString &option, const OptionValue &value);
    Status addPatternFile(const QString &path);
    Expected<std::vector<std::string>> addPatternText(const QString &text, const QString &sourceName);
    const std::vector<std::string> &customNames() const { return m_customNames; }
    std::string customOrigin(const std::string &pattern) const;
    const std::vector<CustomPatternSource> &customSources() const { return m_customSources; }
    /// The names of the patterns a source defines; empty when it no longer
    /// reads (a file removed since).
    static std::vector<std::string> patternNamesOf(const CustomPatternSource &source);

    /// What a pass config applied leaves: its configured set, its custom
    /// patterns (their names, the file they came from, their sources), the
    /// notes on what it named without effect, and its rules' order.
    struct Configured {
        PatternSet patterns;
        std::vector<std::string> customNames;
        std::string origin;
        std::vector<CustomPatternSource> customSources;
        std::vector<std::string> notes;
        std::vector<std::string> preGradOrder, postGradOrder;
    };
    /// Replaces everything with a configured set (Document::applyPassConfig,
    /// once the config proved good); waits for the jobs that read the set.
    /// Emits patternsChanged(); the caller searches again.
    void adopt(Configured configured);
    const std::vector<std::string> &configNotes() const { return m_configNotes; }
    /// The order of the rules in the pass config last applied: Inductor runs
    /// them in it, and an exported pass file keeps it.
    const std::vector<std::string> &preGradOrder() const { return m_preGradOrder; }
    const std::vector<std::string> &postGradOrder() const { return m_postGradOrder; }

signals:
    /// The set of patterns, their enable flags or options changed.
    void patternsChanged();

private:
    /// Compiles a parsed pattern file and adds (or replaces) its patterns.
    Expected<std::vector<std::string>> adoptPatterns(const PatternFile &file, CustomPatternSource source);
    /// After any change of the patterns: mark unsaved, tell the views, search again.
    void patternsEdited();

    Document &m_document;
    const DocumentParts &m_parts;
    PatternSet m_patterns;
    const InductorProfile *m_profile = &newestInductorProfile(); // builtinCatalog()'s
    std::vector<std::string> m_customNames;
    std::vector<std::string> m_configNotes;
    std::map<std::string, std::string> m_customOrigin;
    std::vector<CustomPatternSource> m_customSources;
    std::vector<std::string> m_preGradOrder, m_postGradOrder;
};

} // namespace fusebox
