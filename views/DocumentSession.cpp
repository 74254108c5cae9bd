// Document's pass file and sessions: what a review saves and reopens.
#include "Document.h"
#include "DocumentCommands.h"

#include "core/rewrite/GreedyDriver.h"

#include <algorithm>
#include <tuple>
#include "core/torch/FuseboxOps.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QUndoStack>

namespace fusebox {

namespace {
QString qs(const std::string &s) { return QString::fromStdString(s); }
} // namespace

// ---- the pass file ----------------------------------------------------------------

PassConfig Document::passConfig() const
{
    PassConfig config = passConfigFor(m_patterns);
    // Custom patterns travel as their sources; passConfigFor lists them as rules.
    for (const std::string &name : m_customNames) {
        config.preGradFusionOptions.erase(name);
        config.postGradFusionOptions.erase(name);
    }
    // The loaded file's order first (Inductor runs the rules in it), then
    // rules enabled since, in the catalog's order.
    for (auto [order, section, loaded] :
         {std::tuple{&config.preGradOrder, &config.preGradFusionOptions, &m_preGradOrder},
          std::tuple{&config.postGradOrder, &config.postGradFusionOptions, &m_postGradOrder}}) {
        std::vector<std::string> ordered;
        for (const std::string &name : *loaded)
            if (section->count(name))
                ordered.push_back(name);
        for (const std::string &name : *order)
            if (section->count(name) && std::find(ordered.begin(), ordered.end(), name) == ordered.end())
                ordered.push_back(name);
        *order = std::move(ordered);
    }
    config.customPatterns = m_customSources;
    for (const auto &[signature, entry] : m_rejected)
        config.rejected.push_back({entry.match.pattern, signature, entry.anchorName.toStdString()});
    return config;
}

Status Document::savePassFile(const QString &path)
{
    if (Status s = savePassConfig(passConfig(), path.toStdString()); !s)
        return s;
    markSaved();
    return {};
}

Status Document::loadPassFile(const QString &path)
{
    auto config = loadPassConfig(path.toStdString());
    if (!config)
        return config.error();
    if (Status s = applyPassConfig(*config, path.toStdString()); !s)
        return s;
    markSaved();
    return {};
}

Status Document::applyPassConfig(const PassConfig &config, const std::string &sourceName)
{
    // Configure a fresh catalog first, so that a bad file changes nothing.
    PatternSet fresh = builtinCatalog();
    auto added = addCustomPatterns(fresh, config, sourceName, &torchSchemas());
    if (!added)
        return added.error();
    std::vector<std::string> notes;
    if (Status s = configurePatterns(fresh, config, &notes); !s)
        return Error{sourceName + ": " + s.error().message};
    m_configNotes = std::move(notes);
    m_preGradOrder = config.preGradOrder;
    m_postGradOrder = config.postGradOrder;
    for (const std::string &name : *added)
        fresh.setEnabled(name, true); // a custom pattern runs whenever it is given
    ensureFuseboxOpsRegistered();
    waitForPatternsIdle();
    m_patterns = std::move(fresh);
    m_customNames = std::move(*added);
    m_customOrigin.clear();
    const std::string origin = QFileInfo(QString::fromStdString(sourceName)).fileName().toStdString();
    for (const std::string &name : m_customNames)
        m_customOrigin[name] = origin;
    m_customSources = config.customPatterns;
    for (CustomPatternSource &source : m_customSources)
        if (!source.resolvedFile.empty())
            source.file = source.resolvedFile;
    m_rejected.clear();
    for (const RejectedMatch &r : config.rejected) {
        MatchEntry e;
        e.match.pattern = r.pattern;
        e.signature = r.signature;
        e.anchorName = qs(r.anchor);
        e.status = MatchStatus::Rejected;
        m_rejected[r.signature] = e;
    }
    // A pass file keeps a rejection's signature, not its nodes; found on the
    // graph now, it gets them, so that Apply All also skips the same rule's
    // regroupings of those nodes (rejectionOf()).
    if (!m_rejected.empty() && hasGraph())
        for (const MatchEntry &c : searchCandidates(m_graph, m_patterns))
            if (auto it = m_rejected.find(c.signature); it != m_rejected.end() && it->second.match.nodes.empty()) {
                it->second.match = c.match;
                it->second.anchorName = c.anchorName;
            }
    ++m_graphVersion;
    emit patternsChanged();
    if (m_haveMatches)
        findMatches();
    else
        rebuildMatchList(m_candidates);
    return {};
}

std::vector<SessionStep> Document::sessionSteps() const
{
    std::vector<SessionStep> steps;
    for (int i = 0; i < m_undo->index(); ++i)
        if (auto *c = dynamic_cast<const RewriteCommand *>(m_undo->command(i)))
            steps.push_back(c->step());
    return steps;
}

bool Document::replaySteps(const std::vector<SessionStep> &steps, QString *error)
{
    for (size_t i = 0; i < steps.size(); ++i) {
        const SessionStep &step = steps[i];
        if (step.applyAll) {
            QEventLoop loop;
            int made = 0;
            connect(this, &Document::applyAllFinished, &loop, [&](int applied) {
                made = applied;
                loop.quit();
            });
            applyAll();
            if (m_applyingAll)
                loop.exec();
            // Fewer rewrites than were saved is not the review that was saved
            // (the model or its input shapes differ): say so, keep what ran.
            if (step.rewrites >= 0 && made < step.rewrites) {
                if (error)
                    *error = tr("step %1 of %2: Apply All made %3 of the %4 rewrites the session saved (are the "
                                "model and its input shapes the same?)")
                                 .arg(i + 1)
                                 .arg(steps.size())
                                 .arg(made)
                                 .arg(step.rewrites);
                return false;
            }
            continue;
        }
        // The candidates of the graph as it is now, found on this thread.
        waitForPatternsIdle();
        std::vector<MatchEntry> found = searchCandidates(m_graph, m_patterns);
        m_haveMatches = true;
        rebuildMatchList(std::move(found));
        std::vector<int> rows;
        for (const std::string &signature : step.signatures) {
            for (size_t r = 0; r < m_matches.size(); ++r)
                if (m_matches[r].signature == signature && m_matches[r].status == MatchStatus::Pending) {
                    rows.push_back(int(r));
                    break;
                }
        }
        if (rows.size() != step.signatures.size()) {
            if (error)
                *error = tr("step %1 of %2: %3 of its %4 matches no longer match this model")
                             .arg(i + 1)
                             .arg(steps.size())
                             .arg(step.signatures.size() - rows.size())
                             .arg(step.signatures.size());
            return false;
        }
        QString why;
        if (applyMatches(rows, &why) != int(rows.size())) {
            if (error)
                *error = tr("step %1 of %2: %3").arg(i + 1).arg(steps.size()).arg(why);
            return false;
        }
    }
    return true;
}

} // namespace fusebox
