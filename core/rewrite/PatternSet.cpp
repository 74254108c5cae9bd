#include "PatternSet.h"

namespace fusebox {

Pattern &PatternSet::add(std::unique_ptr<Pattern> pattern, bool enabled)
{
    for (Entry &e : m_entries) {
        if (e.pattern->name() == pattern->name()) {
            e = {std::move(pattern), enabled};
            return *e.pattern;
        }
    }
    m_entries.push_back({std::move(pattern), enabled});
    return *m_entries.back().pattern;
}

Pattern *PatternSet::find(std::string_view name)
{
    for (Entry &e : m_entries)
        if (e.pattern->name() == name)
            return e.pattern.get();
    return nullptr;
}

const Pattern *PatternSet::find(std::string_view name) const
{
    return const_cast<PatternSet *>(this)->find(name);
}

void PatternSet::setEnabled(std::string_view name, bool enabled)
{
    for (Entry &e : m_entries)
        if (e.pattern->name() == name)
            e.enabled = enabled;
}

bool PatternSet::isEnabled(std::string_view name) const
{
    for (const Entry &e : m_entries)
        if (e.pattern->name() == name)
            return e.enabled;
    return false;
}

void PatternSet::disableAll()
{
    for (Entry &e : m_entries)
        e.enabled = false;
}

std::vector<const Pattern *> PatternSet::all() const
{
    std::vector<const Pattern *> patterns;
    for (const Entry &e : m_entries)
        patterns.push_back(e.pattern.get());
    return patterns;
}

std::vector<const Pattern *> PatternSet::enabled() const
{
    std::vector<const Pattern *> patterns;
    for (const Entry &e : m_entries)
        if (e.enabled)
            patterns.push_back(e.pattern.get());
    return patterns;
}

} // namespace fusebox
