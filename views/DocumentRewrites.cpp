// The rewriting half of Document: patterns, the background match search,
// apply / reject through undo commands, verification and the pass file.
// (Loading lives in Document.cpp.)
#include "Document.h"
#include "DocumentCommands.h"

#include "core/io/PatternFile.h"
#include "core/rewrite/EditDiff.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/torch/FuseboxOps.h"
#include "core/torch/RewriteVerifier.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/PassConfiguration.h"
#include "patterns/custom/PatternCompiler.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QEventLoop>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <iterator>
#include <atomic>
#include <set>
#include <utility>

namespace fusebox {

QString toString(MatchStatus status)
{
    switch (status) {
    case MatchStatus::Pending: return QObject::tr("pending");
    case MatchStatus::Rejected: return QObject::tr("rejected");
    case MatchStatus::Applied: return QObject::tr("applied");
    case MatchStatus::FailedVerification: return QObject::tr("failed verification");
    }
    return {};
}

namespace {

QString qs(const std::string &s) { return QString::fromStdString(s); }

void countEdits(const EditGroup &group, MatchEntry &entry)
{
    // Net, as the diff and `fusebox-pass run`'s report count a rewrite.
    const NodeChange change = netNodeChange(group);
    entry.nodesAdded += change.added;
    entry.nodesRemoved += change.removed;
}

} // namespace

// ---- patterns ----------------------------------------------------------------

void Document::waitForPatternsIdle()
{
    // The background search and Apply All read the pattern set.
    waitForSearch();
    if (m_applyingAll)
        m_background.waitForFinished();
}

void Document::setPatternEnabled(const QString &name, bool enabled)
{
    if (!m_patterns.find(name.toStdString()) || m_patterns.isEnabled(name.toStdString()) == enabled)
        return;
    waitForPatternsIdle();
    m_patterns.setEnabled(name.toStdString(), enabled);
    patternsEdited();
}

Status Document::setPatternOption(const QString &pattern, const QString &option, const OptionValue &value)
{
    Pattern *p = m_patterns.find(pattern.toStdString());
    if (!p)
        return Error{"no pattern '" + pattern.toStdString() + "'"};
    if (!p->options().has(option.toStdString()))
        return Error{pattern.toStdString() + " has no option '" + option.toStdString() + "'"};
    waitForPatternsIdle();
    p->options().set(option.toStdString(), value);
    patternsEdited();
    return {};
}

Status Document::addPatternFile(const QString &path)
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

Expected<std::vector<std::string>> Document::addPatternText(const QString &text, const QString &sourceName)
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

Expected<std::vector<std::string>> Document::adoptPatterns(const PatternFile &file, CustomPatternSource source)
{
    auto compiled = compilePatterns(file, &torchSchemas());
    if (!compiled)
        return compiled.error();
    ensureFuseboxOpsRegistered(); // rewrites to fusebox:: ops must run to verify
    waitForPatternsIdle();
    const std::string origin = source.file.empty() ? tr("Pattern Editor").toStdString()
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

std::string Document::customOrigin(const std::string &pattern) const
{
    auto it = m_customOrigin.find(pattern);
    return it == m_customOrigin.end() ? std::string() : it->second;
}

void Document::patternsEdited()
{
    m_decisionsDirty = true;
    ++m_graphVersion;
    emit patternsChanged();
    if (m_haveMatches)
        findMatches();
}

std::vector<MatchEntry> Document::searchCandidates(const Graph &graph, const PatternSet &patterns)
{
    std::vector<MatchEntry> found;
    for (const Match &m : GreedyDriver(patterns).findMatches(graph)) {
        MatchEntry e;
        e.match = m;
        e.signature = matchSignature(graph, m);
        if (const Node *n = graph.node(m.anchor))
            e.anchorName = qs(n->name);
        found.push_back(std::move(e));
    }
    return found;
}

PatternTally Document::tally(const std::string &pattern) const
{
    const auto all = tallies();
    auto it = all.find(pattern);
    if (it != all.end())
        return it->second;
    PatternTally t;
    if (auto n = m_nearMissCounts.find(pattern); n != m_nearMissCounts.end())
        t.nearMisses = n->second;
    return t;
}

std::map<std::string, PatternTally> Document::tallies() const
{
    std::map<std::string, PatternTally> all;
    for (const auto &[pattern, count] : m_nearMissCounts)
        all[pattern].nearMisses = count;
    for (const MatchEntry &e : m_matches) {
        PatternTally &t = all[e.match.pattern];
        switch (e.status) {
        case MatchStatus::Pending: ++t.candidates; break;
        case MatchStatus::Rejected:
            if (!e.notFound)
                ++t.candidates;
            ++t.rejected;
            break;
        case MatchStatus::Applied: ++t.applied; break;
        case MatchStatus::FailedVerification: ++t.failed; break;
        }
    }
    return all;
}

// ---- matches -------------------------------------------------------------------

void Document::findMatches()
{
    if (!m_hasGraph)
        return;
    if (m_searching || m_applyingAll) {
        m_searchAgain = true;
        return;
    }
    m_searching = true;
    m_searchCancelled = false;
    m_haveMatches = true; // from now on, changes re-find the matches
    emit matchSearchStarted();
    const quint64 version = m_graphVersion;
    auto found = std::make_shared<std::vector<MatchEntry>>();
    auto nearMissCounts = std::make_shared<std::map<std::string, int>>();
    auto *watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, version, found, nearMissCounts] {
        watcher->deleteLater();
        m_searching = false;
        if (m_searchCancelled) {
            m_searchCancelled = false;
            m_searchAgain = false;
            rebuildMatchList({}); // keeps the applied and failed entries
            return;
        }
        if (version == m_graphVersion && !m_searchAgain) {
            m_nearMissCounts = std::move(*nearMissCounts);
            rebuildMatchList(std::move(*found));
            emit matchSearchFinished();
            return;
        }
        m_searchAgain = false;
        if (m_haveMatches)
            findMatches(); // the graph or the patterns changed meanwhile
    });
    // Reads m_graph and m_patterns: every mutation waits for it first. The
    // signatures are computed here too (a 100k-node graph has thousands).
    m_background = QtConcurrent::run([this, found, nearMissCounts] {
        *found = searchCandidates(m_graph, m_patterns);
        // Near misses explain every attempt: affordable on ordinary models,
        // left to the Why Not panel (one pattern at a time) on huge graphs.
        if (m_graph.size() <= kNearMissNodeLimit)
            for (const Pattern *p : m_patterns.enabled()) {
                const NearMissSummary s = fusebox::nearMisses(m_graph, *p);
                (*nearMissCounts)[p->name()] = int(s.attempted - s.matched);
            }
    });
    watcher->setFuture(m_background);
}

void Document::waitForSearch()
{
    if (m_searching)
        m_background.waitForFinished();
}

namespace {

/// Whether `decided` (a rejection or a failed verification) stands for
/// `candidate`: the same signature, or the same nodes under the same pattern,
/// whatever else changed around them (a rewrite nearby can change what the
/// signature hashes, e.g. a horizontal group's member order).
bool sameMatch(const MatchEntry &decided, const Match &candidate, const std::string &signature)
{
    if (decided.signature == signature)
        return true;
    if (decided.match.pattern != candidate.pattern || decided.match.nodes.size() != candidate.nodes.size()
        || candidate.nodes.empty())
        return false;
    std::vector<NodeId> a = candidate.nodes, b = decided.match.nodes;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

} // namespace

const MatchEntry *Document::rejectionOf(const std::map<std::string, MatchEntry> &rejections, const Match &candidate,
                                        const std::string &signature)
{
    if (auto it = rejections.find(signature); it != rejections.end())
        return &it->second;
    for (const auto &[key, r] : rejections)
        if (sameMatch(r, candidate, signature))
            return &r;
    // A horizontal group of the same rule over part of the rejected group's
    // nodes, or over all of them and more, fuses what the user said not to
    // fuse: after a nearby rewrite, Inductor's search found the rejected 9
    // relus as a group of 8 and Apply All fused them.
    std::vector<NodeId> nodes = candidate.nodes;
    std::sort(nodes.begin(), nodes.end());
    for (const auto &[key, r] : rejections) {
        if (r.match.pattern != candidate.pattern || r.match.nodes.size() < 2 || nodes.size() < 2)
            continue;
        std::vector<NodeId> rejected = r.match.nodes;
        std::sort(rejected.begin(), rejected.end());
        std::vector<NodeId> common;
        std::set_intersection(nodes.begin(), nodes.end(), rejected.begin(), rejected.end(),
                              std::back_inserter(common));
        if (common.size() >= 2 && (common.size() == nodes.size() || common.size() == rejected.size()))
            return &r;
    }
    return nullptr;
}

void Document::rebuildMatchList(std::vector<MatchEntry> candidates)
{
    m_candidates = std::move(candidates);
    m_matches.clear();
    m_matches.reserve(m_candidates.size() + m_failures.size() + m_rejected.size());
    std::set<std::string> found; // the rejections the candidates re-identify
    for (const MatchEntry &c : m_candidates) {
        if (!m_patterns.isEnabled(c.match.pattern))
            continue;
        // A match whose rewrite failed verification is listed once, as that failure.
        if (std::any_of(m_failures.begin(), m_failures.end(),
                        [&](const MatchEntry &f) { return sameMatch(f, c.match, c.signature); }))
            continue;
        m_matches.push_back(c);
        MatchEntry &e = m_matches.back();
        e.status = MatchStatus::Pending;
        if (const MatchEntry *r = rejectionOf(m_rejected, c.match, c.signature)) {
            if (r->match.nodes.empty()) // read from a pass file: now it has nodes
                m_rejected[r->signature].match = c.match;
            e.status = MatchStatus::Rejected;
            // The row stands for the rejection: restoring it removes that one.
            e.signature = r->signature;
            found.insert(r->signature);
        }
    }
    // A rejection no search result stands for is still a decision: listed,
    // counted and exported, saying why it is not on the graph. (Before the
    // first search nothing was looked for, so nothing is "not found".)
    if (m_haveMatches)
        for (const auto &[signature, r] : m_rejected) {
            if (found.count(signature))
                continue;
            MatchEntry e = r;
            e.status = MatchStatus::Rejected;
            e.notFound = true;
            const size_t gone = size_t(std::count_if(e.match.nodes.begin(), e.match.nodes.end(),
                                                     [&](NodeId id) { return !m_graph.contains(id); }));
            e.note = gone ? tr("not on the graph now: %1 of its %2 nodes were rewritten since")
                                .arg(gone)
                                .arg(e.match.nodes.size())
                          : tr("not found by the last search on the current graph");
            m_matches.push_back(std::move(e));
        }
    m_matches.insert(m_matches.end(), m_failures.begin(), m_failures.end());
    auto applied = appliedEntries();
    m_matches.insert(m_matches.end(), applied.begin(), applied.end());
    emit matchesChanged();
}

std::vector<MatchEntry> Document::appliedEntries() const
{
    std::vector<MatchEntry> out;
    for (int i = 0; i < m_undo->index(); ++i)
        if (auto *c = dynamic_cast<const RewriteCommand *>(m_undo->command(i)))
            out.insert(out.end(), c->applied().begin(), c->applied().end());
    return out;
}

const RewriteVerifier *Document::verifier(QString *whyNot)
{
    if (!m_verifierTried) {
        m_verifierTried = true;
        ensureFuseboxOpsRegistered();
        // libtorch only: verification runs on the GUI thread after each apply,
        // where starting a PyTorch 2 process (seconds) would stall the window.
        auto created = RewriteVerifier::create(m_original, 1e-4, /*allowBridge=*/false);
        if (created)
            m_verifier = std::make_shared<RewriteVerifier>(std::move(*created));
        else
            m_verifierError = qs(created.error().message);
    }
    if (!m_verifier && whyNot)
        *whyNot = m_verifierError;
    return m_verifier.get();
}

int Document::applyMatches(const std::vector<int> &rows, QString *error)
{
    waitForPatternsIdle();
    if (m_applyingAll) {
        if (error)
            *error = tr("Apply All is running");
        return 0;
    }
    std::vector<MatchEntry> chosen;
    for (int row : rows) {
        if (row < 0 || size_t(row) >= m_matches.size())
            continue;
        const MatchEntry &e = m_matches[size_t(row)];
        if (e.status == MatchStatus::Pending)
            chosen.push_back(e);
    }
    if (chosen.empty()) {
        if (error)
            *error = tr("no pending match selected (rejected, applied and failed matches are not applied)");
        return 0;
    }
    const GreedyDriver driver(m_patterns);
    std::vector<EditGroup> groups;
    std::vector<MatchEntry> applied;
    int stale = 0;
    for (MatchEntry e : chosen) {
        EditLog log;
        if (!driver.apply(m_graph, e.match, &log)) {
            ++stale; // an earlier rewrite of this batch changed it
            continue;
        }
        std::vector<EditGroup> mine(log.groups().begin(), log.groups().end());
        if (m_verifyApplies) {
            QString whyNot;
            if (const RewriteVerifier *v = verifier(&whyNot)) {
                if (auto failure = (*v)(m_graph)) {
                    revertEdits(mine);
                    graphChanged();
                    e.status = MatchStatus::FailedVerification;
                    e.verification = qs(*failure);
                    m_failures.push_back(e);
                    emit verificationFailed(qs(e.match.pattern), e.anchorName, e.verification);
                    continue;
                }
                e.verification = tr("passed (within %1)").arg(v->precision());
            } else {
                e.verification = tr("not verified: %1").arg(whyNot);
            }
        }
        e.status = MatchStatus::Applied;
        for (const EditGroup &g : mine)
            countEdits(g, e);
        groups.insert(groups.end(), mine.begin(), mine.end());
        applied.push_back(std::move(e));
    }
    if (!applied.empty()) {
        const QString text = applied.size() == 1
                                 ? tr("Apply %1 at %%2").arg(qs(applied.front().match.pattern), applied.front().anchorName)
                                 : tr("Apply %n matches", nullptr, int(applied.size()));
        SessionStep step;
        for (const MatchEntry &e : applied)
            step.signatures.push_back(e.signature);
        m_undo->push(new RewriteCommand(this, text, std::move(groups), applied, std::move(step)));
        emit matchesApplied(applied);
        graphChanged();
    } else {
        if (error)
            *error = stale ? tr("the match no longer applies") : tr("the rewrite failed verification and was undone");
        rebuildMatchList(m_candidates);
    }
    return int(applied.size());
}

void Document::applyAll()
{
    if (!m_hasGraph || m_applyingAll)
        return;
    waitForSearch();
    m_applyingAll = true;
    emit applyAllStarted();
    const quint64 version = m_graphVersion;
    // The driver rewrites a copy off the GUI thread; the copy then replaces
    // the graph, and its edit groups become one undo step.
    struct Outcome {
        Graph graph;
        EditLog log;
        DriverResult result;
        std::vector<MatchEntry> undone;
        PassSchedule schedule;
        PassConfig config; // the rules' order, for Inductor's schedule
    };
    auto outcome = std::make_shared<Outcome>();
    outcome->graph = m_graph.clone();
    outcome->schedule = m_schedule;
    outcome->config = passConfig();
    m_stopApplyAll = std::make_shared<std::atomic<bool>>(false);
    m_applyAllProgress = std::make_shared<std::atomic<int>>(0);
    DriverOptions options;
    options.shouldStop = [stop = m_stopApplyAll] { return stop->load(); };
    // As `fusebox-pass run --config` skips them (by signature), and by their
    // nodes: the copy keeps the graph's NodeIds.
    options.isRejected = [bySignature = rejectionFilter(passConfig()), rejected = m_rejected](const Graph &g,
                                                                                              const Match &m) {
        return (bySignature && bySignature(g, m)) || rejectionOf(rejected, m, std::string()) != nullptr;
    };
    if (m_verifyApplies) {
        if (verifier(nullptr)) {
            std::shared_ptr<RewriteVerifier> keep = m_verifier;
            options.verifyRewrite = [keep](const Graph &g) { return (*keep)(g); };
        }
    }
    auto *watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, version, outcome] {
        watcher->deleteLater();
        m_applyingAll = false;
        const DriverResult &r = outcome->result;
        m_lastCounters = r.counters;
        if (m_stopApplyAll->load()) {
            // It ran on a copy: cancelling leaves the document as it was.
            emit applyAllFinished(0, tr("cancelled; nothing was applied"));
            return;
        }
        if (version != m_graphVersion) {
            emit applyAllFinished(0, tr("the graph changed while Apply All ran; nothing was applied"));
            return;
        }
        std::vector<MatchEntry> applied;
        for (const AppliedRewrite &a : r.rewrites) {
            MatchEntry e;
            e.match.pattern = a.pattern;
            e.anchorName = qs(a.anchor);
            e.status = MatchStatus::Applied;
            e.nodesAdded = a.nodesAdded;
            e.nodesRemoved = a.nodesRemoved;
            e.verification = m_verifyApplies && m_verifier ? tr("passed") : QString();
            applied.push_back(e);
        }
        const QString how = outcome->schedule == PassSchedule::Inductor
                                ? tr("in Inductor's schedule")
                                : r.rounds == 1 ? tr("in 1 round of the greedy search")
                                                : tr("in %1 rounds of the greedy search").arg(r.rounds);
        const QString count = r.rewrites.size() == 1 ? tr("1 rewrite") : tr("%1 rewrites").arg(r.rewrites.size());
        const QString summary = tr("%1 %2; %3 → %4 nodes")
                                    .arg(count, how)
                                    .arg(r.nodesBefore)
                                    .arg(r.nodesAfter)
                                + (r.converged ? QString() : QStringLiteral(" (%1)").arg(qs(r.message)));
        if (!applied.empty()) {
            m_graph = std::move(outcome->graph);
            std::vector<EditGroup> groups(outcome->log.groups().begin(), outcome->log.groups().end());
            // Named before the call: an argument that moves `applied` away
            // may be evaluated before one that counts it.
            const QString text = applied.size() == 1 ? tr("Apply All (1 rewrite)")
                                                     : tr("Apply All (%1 rewrites)").arg(applied.size());
            const int rewrites = int(applied.size());
            m_undo->push(
                new RewriteCommand(this, text, std::move(groups), std::move(applied), SessionStep{true, {}, rewrites}));
        }
        m_failures.insert(m_failures.end(), outcome->undone.begin(), outcome->undone.end());
        m_searchAgain = false;
        emit applyAllFinished(int(r.rewrites.size()), summary);
        graphChanged();
    });
    class UndoneCollector final : public DriverListener {
    public:
        UndoneCollector(std::vector<MatchEntry> &out, std::atomic<int> &progress) : m_out(out), m_progress(progress) {}
        void rewriteApplied(const Graph &, const Match &, const EditGroup &) override { ++m_progress; }
        void rewriteUndone(const Graph &g, const Match &m, const std::string &reason) override
        {
            MatchEntry e;
            e.match = m;
            e.status = MatchStatus::FailedVerification;
            e.verification = QString::fromStdString(reason);
            if (const Node *n = g.node(m.anchor))
                e.anchorName = QString::fromStdString(n->name);
            m_out.push_back(e);
        }

    private:
        std::vector<MatchEntry> &m_out;
        std::atomic<int> &m_progress;
    };
    m_background = QtConcurrent::run([this, outcome, options, progress = m_applyAllProgress] {
        UndoneCollector undone(outcome->undone, *progress);
        outcome->result = runPassSchedule(outcome->schedule, m_patterns, outcome->config, outcome->graph, options,
                                          &outcome->log, &undone);
    });
    watcher->setFuture(m_background);
}

void Document::cancelBackground()
{
    if (m_applyingAll && m_stopApplyAll)
        m_stopApplyAll->store(true);
    if (m_searching) {
        m_searchCancelled = true;
        m_haveMatches = false;
    }
}

int Document::applyAllProgress() const { return m_applyAllProgress ? m_applyAllProgress->load() : 0; }

bool Document::rejectMatch(int row)
{
    if (row < 0 || size_t(row) >= m_matches.size() || m_matches[size_t(row)].status != MatchStatus::Pending)
        return false;
    m_undo->push(new RejectCommand(this, m_matches[size_t(row)], true));
    return true;
}

bool Document::restoreMatch(int row)
{
    if (row < 0 || size_t(row) >= m_matches.size() || m_matches[size_t(row)].status != MatchStatus::Rejected)
        return false;
    m_undo->push(new RejectCommand(this, m_matches[size_t(row)], false));
    return true;
}

void Document::setRejected(const MatchEntry &entry, bool rejected)
{
    if (rejected) {
        MatchEntry &r = m_rejected[entry.signature];
        r = entry;
        r.status = MatchStatus::Rejected;
        r.notFound = false;
        r.note.clear();
    } else {
        m_rejected.erase(entry.signature);
    }
    rebuildMatchList(std::move(m_candidates));
}

std::optional<Explanation> Document::explain(const std::string &pattern, NodeId node) const
{
    const Pattern *p = m_patterns.find(pattern);
    if (!p || !m_graph.contains(node))
        return std::nullopt;
    // The answer for the schedule Apply All runs (Rewrite ▸ Schedule).
    return explainForSchedule(m_schedule, m_patterns, passConfig(), m_graph, *p, {node}).front();
}

std::optional<NearMissSummary> Document::nearMisses(const std::string &pattern) const
{
    const Pattern *p = m_patterns.find(pattern);
    if (!p)
        return std::nullopt;
    return nearMissesForSchedule(m_schedule, m_patterns, passConfig(), m_graph, *p);
}

// ---- history ---------------------------------------------------------------------

void Document::revertEdits(const std::vector<EditGroup> &groups)
{
    waitForPatternsIdle();
    for (auto g = groups.rbegin(); g != groups.rend(); ++g)
        for (auto e = g->edits.rbegin(); e != g->edits.rend(); ++e)
            revertEdit(m_graph, *e);
}

// The undo commands call these from inside QUndoStack::undo()/redo(), before
// the stack moves its index: appliedGroups() would still count (or not yet
// count) the step, so the views hear of the change once the index moved.
void Document::revertGroups(const std::vector<EditGroup> &groups)
{
    revertEdits(groups);
    m_graphChangePending = true;
}

void Document::replayGroups(const std::vector<EditGroup> &groups)
{
    waitForPatternsIdle();
    for (const EditGroup &g : groups)
        for (const Edit &e : g.edits)
            replayEdit(m_graph, e);
    m_graphChangePending = true;
}

void Document::onUndoIndexChanged()
{
    if (std::exchange(m_graphChangePending, false))
        graphChanged();
}

std::vector<const EditGroup *> Document::appliedGroups() const
{
    std::vector<const EditGroup *> out;
    for (int i = 0; i < m_undo->index(); ++i)
        if (auto *c = dynamic_cast<const RewriteCommand *>(m_undo->command(i)))
            for (const EditGroup &g : c->groups())
                out.push_back(&g);
    return out;
}

void Document::graphChanged()
{
    ++m_graphVersion;
    emit graphRewritten();
    if (m_haveMatches)
        findMatches();
    else
        rebuildMatchList({});
}

bool Document::isModified() const { return m_undo->index() != m_savedIndex || m_decisionsDirty; }

void Document::markSaved()
{
    m_savedIndex = m_undo->index();
    m_decisionsDirty = false;
    emit saved();
}

} // namespace fusebox
