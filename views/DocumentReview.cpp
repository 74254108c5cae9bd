// Document's matches and the reviewer's decisions: the list the views show,
// the tallies, rejections, failed verifications, and applying matches.
#include "DocumentReview.h"

#include "Document.h"
#include "DocumentCommands.h"
#include "DocumentHistory.h"
#include "DocumentJobs.h"
#include "DocumentPatterns.h"
#include "DocumentPt2.h"
#include "DocumentTr.h"
#include "QtStrings.h"

#include "core/rewrite/EditDiff.h"
#include "core/rewrite/GreedyDriver.h"
#include "core/ir/VerificationResult.h"

#include <algorithm>
#include <iterator>
#include <map>
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

using document_tr::tr;

} // namespace

void countEdits(const EditGroup &group, MatchEntry &entry)
{
    // Net, as the diff and `fusebox-pass run`'s report count a rewrite.
    const NodeChange change = netNodeChange(group);
    entry.nodesAdded += change.added;
    entry.nodesRemoved += change.removed;
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

DocumentReview::DocumentReview(Document &document, const DocumentParts &parts)
    : m_document(document)
    , m_parts(parts)
{}

void DocumentReview::reset()
{
    m_matches.clear();
    m_candidates.clear();
    m_failures.clear();
    m_rejected.clear();
    m_haveMatches = false;
    m_nearMissCounts.clear();
}

PatternTally DocumentReview::tally(const std::string &pattern) const
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

std::map<std::string, PatternTally> DocumentReview::tallies() const
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

const MatchEntry *DocumentReview::rejectionOf(const std::map<std::string, MatchEntry> &rejections,
                                              const Match &candidate, const std::string &signature)
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
        std::set_intersection(nodes.begin(), nodes.end(), rejected.begin(), rejected.end(), std::back_inserter(common));
        if (common.size() >= 2 && (common.size() == nodes.size() || common.size() == rejected.size()))
            return &r;
    }
    return nullptr;
}

void DocumentReview::rebuildMatchList(std::vector<MatchEntry> candidates)
{
    const Graph &graph = m_parts.history->graph();
    const PatternSet &patterns = m_parts.patternSet->patterns();
    m_candidates = std::move(candidates);
    m_matches.clear();
    m_matches.reserve(m_candidates.size() + m_failures.size() + m_rejected.size());
    std::set<std::string> found; // the rejections the candidates re-identify
    // Why the schedule Apply All runs leaves a pattern out on this graph, per pattern.
    std::map<std::string, std::string> skipped;
    const PassSchedule schedule = m_parts.jobs->schedule();
    const PassConfig config = m_parts.persistence->passConfig();
    auto whySkipped = [&](const std::string &name) -> const std::string & {
        auto it = skipped.find(name);
        if (it == skipped.end()) {
            const Pattern *p = patterns.find(name);
            it = skipped.emplace(name, p ? whyScheduleSkips(schedule, patterns, config, graph, *p) : std::string()).first;
        }
        return it->second;
    };
    for (const MatchEntry &c : m_candidates) {
        if (!patterns.isEnabled(c.match.pattern))
            continue;
        // A match whose rewrite failed verification is listed once, as that failure.
        if (std::any_of(m_failures.begin(), m_failures.end(),
                        [&](const MatchEntry &f) { return sameMatch(f, c.match, c.signature); }))
            continue;
        m_matches.push_back(c);
        MatchEntry &e = m_matches.back();
        e.status = MatchStatus::Pending;
        const std::string &why = whySkipped(c.match.pattern);
        e.offSchedule = !why.empty();
        if (e.offSchedule)
            e.note = tr("Apply All leaves it (%1): %2").arg(qs(passScheduleName(schedule)), qs(why));
        // (The greedy schedule runs to a fixpoint: what it leaves, it left for a reason of its own.)
        e.afterApplyAll = !e.offSchedule && schedule == PassSchedule::Inductor && m_parts.jobs->graphIsApplyAllResult();
        if (e.afterApplyAll)
            e.note = tr("found on the graph Apply All made: Inductor's schedule ran each pass once, before this "
                        "match existed, and production Inductor leaves it too; Apply (or Apply All again) takes it");
        if (const MatchEntry *r = rejectionOf(m_rejected, c.match, c.signature)) {
            if (r->match.nodes.empty()) // read from a pass file: now it has nodes
                m_rejected[r->signature].match = c.match;
            e.status = MatchStatus::Rejected;
            e.offSchedule = false; // a decision, whatever the schedule would do
            e.afterApplyAll = false;
            e.note.clear();
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
                                                     [&](NodeId id) { return !graph.contains(id); }));
            e.note = gone ? tr("not on the graph now: %1 of its %2 nodes were rewritten since")
                                .arg(gone)
                                .arg(e.match.nodes.size())
                          : tr("not found by the last search on the current graph");
            m_matches.push_back(std::move(e));
        }
    m_matches.insert(m_matches.end(), m_failures.begin(), m_failures.end());
    auto applied = m_parts.history->appliedEntries();
    m_matches.insert(m_matches.end(), applied.begin(), applied.end());
    emit matchesChanged();
}

int DocumentReview::applyMatches(const std::vector<int> &rows, QString *error)
{
    DocumentJobs &jobs = *m_parts.jobs;
    DocumentHistory &history = *m_parts.history;
    jobs.waitForPatternsIdle();
    if (jobs.isApplyingAll()) {
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
    // A PT2 graph is verified in PyTorch 2: the applies and their checks run
    // in the background (DocumentPt2::applyFinished follows).
    if (jobs.verifyApplies() && m_parts.pt2->verifiesInPyTorch2()) {
        if (!m_parts.pt2->applyInBackground(std::move(chosen))) {
            if (error)
                *error = tr("a PyTorch 2 job is running (Esc cancels it)");
        } else if (error) {
            error->clear();
        }
        return 0;
    }
    // Verification is the check inside the one apply path (applyOneMatch,
    // as both drivers apply): a rewrite the verifier objects to is undone there.
    DriverOptions options;
    QString verification;
    if (jobs.verifyApplies()) {
        QString whyNot;
        if (const OutputVerifier *v = jobs.verifier(&whyNot)) {
            options.verifyRewrite = [v](const Graph &g) { return (*v)(g); };
            verification = tr("passed in %1 (within %2)").arg(qs(v->engine())).arg(v->precision());
        } else {
            verification = tr("not verified: %1").arg(whyNot);
        }
    }
    const PatternSet &patterns = m_parts.patternSet->patterns();
    std::vector<EditGroup> groups;
    std::vector<MatchEntry> applied;
    int stale = 0;
    for (MatchEntry e : chosen) {
        EditLog log;
        const ApplyOutcome outcome = applyOneMatch(history.graphToRewrite(), patterns, e.match, log, options);
        if (outcome.kind == ApplyOutcome::Kind::FailedVerification) {
            m_document.graphChanged(); // rewritten and taken back
            e.status = MatchStatus::FailedVerification;
            e.verification = qs(outcome.message);
            recordFailure(std::move(e));
            continue;
        }
        if (outcome.kind != ApplyOutcome::Kind::Applied) {
            ++stale; // an earlier rewrite of this batch changed it
            continue;
        }
        e.verification = verification;
        e.status = MatchStatus::Applied;
        const std::vector<EditGroup> mine(log.groups().begin(),
                                          log.groups().begin() + std::ptrdiff_t(log.appliedCount()));
        for (const EditGroup &g : mine)
            countEdits(g, e);
        groups.insert(groups.end(), mine.begin(), mine.end());
        applied.push_back(std::move(e));
    }
    return commitApplies(std::move(groups), std::move(applied), stale, error);
}

void DocumentReview::recordFailure(MatchEntry failure)
{
    m_failures.push_back(failure);
    emit verificationFailed(qs(failure.match.pattern), failure.anchorName, failure.verification);
}

int DocumentReview::commitApplies(std::vector<EditGroup> groups, std::vector<MatchEntry> applied, int stale,
                                  QString *error)
{
    DocumentHistory &history = *m_parts.history;
    if (!applied.empty()) {
        const QString text = applied.size() == 1
                                 ? tr("Apply %1 at %%2")
                                       .arg(qs(applied.front().match.pattern), applied.front().anchorName)
                                 : tr("Apply %n matches", nullptr, int(applied.size()));
        SessionStep step;
        step.customPatterns = m_parts.patternSet->customNames();
        for (const MatchEntry &e : applied)
            step.signatures.push_back(e.signature);
        history.pushRewrite(text, std::move(groups), applied, std::move(step));
        emit matchesApplied(applied);
        m_document.graphChanged();
    } else {
        if (error)
            *error = stale ? tr("the match no longer applies") : tr("the rewrite failed verification and was undone");
        relist();
    }
    return int(applied.size());
}

void DocumentReview::addFailures(const std::vector<MatchEntry> &failures)
{
    m_failures.insert(m_failures.end(), failures.begin(), failures.end());
}

RejectCommand::SetRejected DocumentReview::rejectionHook()
{
    return [this](const MatchEntry &entry, bool rejected) { setRejected(entry, rejected); };
}

bool DocumentReview::rejectMatch(int row)
{
    if (row < 0 || size_t(row) >= m_matches.size() || m_matches[size_t(row)].status != MatchStatus::Pending)
        return false;
    m_parts.history->push(new RejectCommand(rejectionHook(), m_matches[size_t(row)], true));
    return true;
}

bool DocumentReview::restoreMatch(int row)
{
    if (row < 0 || size_t(row) >= m_matches.size() || m_matches[size_t(row)].status != MatchStatus::Rejected)
        return false;
    m_parts.history->push(new RejectCommand(rejectionHook(), m_matches[size_t(row)], false));
    return true;
}

void DocumentReview::setRejected(const MatchEntry &entry, bool rejected)
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

void DocumentReview::giveRejectionsNodes(const std::vector<MatchEntry> &candidates)
{
    for (const MatchEntry &c : candidates)
        if (auto it = m_rejected.find(c.signature); it != m_rejected.end() && it->second.match.nodes.empty()) {
            it->second.match = c.match;
            it->second.anchorName = c.anchorName;
        }
}

} // namespace fusebox
