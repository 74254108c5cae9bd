#include "ReviewReport.h"

#include "Document.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <set>

namespace fusebox {

namespace {

QString qs(const std::string &s) { return QString::fromStdString(s); }

QJsonObject entryJson(const MatchEntry &e)
{
    QJsonObject o{{"pattern", qs(e.match.pattern)},
                  {"anchor", e.anchorName},
                  {"status", toString(e.status)},
                  {"nodes", int(e.match.nodes.size())},
                  {"benefit", e.match.benefit}};
    if (!e.signature.empty())
        o.insert("signature", qs(e.signature));
    if (!e.verification.isEmpty())
        o.insert("verification", e.verification);
    if (e.notFound) {
        o.insert("found", false);
        o.insert("note", e.note);
    }
    if (e.status == MatchStatus::Applied) {
        o.insert("nodes_removed", int(e.nodesRemoved));
        o.insert("nodes_added", int(e.nodesAdded));
    }
    return o;
}

std::vector<MatchEntry> withStatus(const Document &d, MatchStatus s)
{
    std::vector<MatchEntry> out;
    for (const MatchEntry &e : d.matches())
        if (e.status == s)
            out.push_back(e);
    return out;
}

std::set<std::string> patternNames(const Document &d)
{
    std::set<std::string> names;
    for (const MatchEntry &e : d.matches())
        names.insert(e.match.pattern);
    return names;
}

} // namespace

QString reviewReportJson(const Document &d)
{
    QJsonObject root{{"model", d.displayName()},
                     {"nodes_before", int(d.originalGraph().size())},
                     {"nodes_after", int(d.graph().size())},
                     {"verify_each_apply", d.verifyApplies()}};
    QJsonArray matches;
    for (const MatchEntry &e : d.matches())
        matches.append(entryJson(e));
    root.insert("matches", matches);
    QJsonObject tallies;
    const auto all = d.tallies();
    for (const std::string &name : patternNames(d)) {
        const PatternTally &t = all.at(name);
        tallies.insert(qs(name), QJsonObject{{"candidates", t.candidates},
                                             {"applied", t.applied},
                                             {"rejected", t.rejected},
                                             {"failed_verification", t.failed}});
    }
    root.insert("patterns", tallies);
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Indented));
}

QString reviewReportMarkdown(const Document &d)
{
    QString md = QStringLiteral("# Review of %1\n\n").arg(d.displayName());
    md += QStringLiteral("Nodes: %1 before, %2 after. Verification after each apply: %3.\n\n")
              .arg(d.originalGraph().size())
              .arg(d.graph().size())
              .arg(d.verifyApplies() ? QStringLiteral("on") : QStringLiteral("off"));
    md += QStringLiteral("| pattern | candidates | applied | rejected | failed verification |\n|---|---|---|---|---|\n");
    const auto all = d.tallies();
    for (const std::string &name : patternNames(d)) {
        const PatternTally &t = all.at(name);
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 |\n").arg(qs(name)).arg(t.candidates).arg(t.applied).arg(t.rejected).arg(t.failed);
    }
    const std::pair<MatchStatus, const char *> sections[] = {{MatchStatus::Applied, "Applied"},
                                                             {MatchStatus::Rejected, "Rejected"},
                                                             {MatchStatus::FailedVerification, "Failed verification"},
                                                             {MatchStatus::Pending, "Pending"}};
    for (const auto &[status, title] : sections) {
        const auto entries = withStatus(d, status);
        md += QStringLiteral("\n## %1 (%2)\n\n").arg(QString::fromLatin1(title)).arg(entries.size());
        for (const MatchEntry &e : entries) {
            md += QStringLiteral("- `%1` at `%%2`").arg(qs(e.match.pattern), e.anchorName);
            if (status == MatchStatus::Applied)
                md += QStringLiteral(": −%1 +%2 nodes").arg(e.nodesRemoved).arg(e.nodesAdded);
            else
                md += QStringLiteral(": %1 nodes, benefit %2").arg(e.match.nodes.size()).arg(e.match.benefit);
            if (!e.verification.isEmpty())
                md += QStringLiteral(" — %1").arg(e.verification);
            if (e.notFound)
                md += QStringLiteral(" — %1").arg(e.note);
            md += QLatin1Char('\n');
        }
    }
    return md;
}

} // namespace fusebox
