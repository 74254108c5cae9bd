#pragma once

#include "Pattern.h"

#include <memory>
#include <string>
#include <vector>

namespace fusebox {

/// An ordered collection of patterns with per-pattern enable flags: the
/// catalog, or the catalog configured by a pass file.
class PatternSet {
public:
    /// Adds a pattern (enabled by default). Names must be unique; a second
    /// pattern of the same name replaces the first.
    Pattern &add(std::unique_ptr<Pattern> pattern, bool enabled = true);

    /// The pattern called name, or nullptr.
    Pattern *find(std::string_view name);
    const Pattern *find(std::string_view name) const;

    void setEnabled(std::string_view name, bool enabled);
    bool isEnabled(std::string_view name) const;
    /// Disables every pattern.
    void disableAll();

    /// Every pattern, in insertion order.
    std::vector<const Pattern *> all() const;
    /// The enabled patterns, in insertion order.
    std::vector<const Pattern *> enabled() const;
    size_t size() const { return m_entries.size(); }

    /// "Inductor 2.14": the Inductor whose answers the built-in rules give
    /// (applyInductorProfile sets it); reports, Why Not and the log name it.
    const std::string &inductorLabel() const { return m_inductorLabel; }
    void setInductorLabel(std::string label) { m_inductorLabel = std::move(label); }

private:
    struct Entry {
        std::unique_ptr<Pattern> pattern;
        bool enabled = true;
    };
    std::vector<Entry> m_entries;
    std::string m_inductorLabel;
};

} // namespace fusebox
