// Document's pass file and sessions: what a review saves and reopens.
#include "DocumentPersistence.h"

#include "Document.h"
#include "DocumentHistory.h"
#include "DocumentJobs.h"
#include "DocumentPatterns.h"
#include "DocumentReview.h"
#include "DocumentTr.h"
#include "QtStrings.h"

#include "core/torch/TorchSchemas.h"
#include "patterns/Catalog.h"
#include "patterns/InductorProfile.h"
#include "patterns/PassConfiguration.h"

#include <QEventLoop>
#include <QFileInfo>

#include <algorithm>
#include <tuple>

namespace fusebox {

namespace {

using document_tr::tr;

/// The custom sources of `pass` whose patterns (`defined[i]` for source i)
/// were all in the document (`had`) when a step was made; a source that no
/// longer reads (no names) stays.
std::vector<CustomPatternSource> sourcesOfStep(const PassConfig &pass,
                                               const std::vector<std::vector<std::string>> &defined,
                                               const std::vector<std::string> &had)
{
    std::vector<CustomPatternSource> kept;
    for (size_t i = 0; i < pass.customPatterns.size(); ++i)
        if (std::all_of(defined[i].begin(), defined[i].end(),
                        [&](const std::string &name) { return std::find(had.begin(), had.end(), name) != had.end(); }))
            kept.push_back(pass.customPatterns[i]);
    return kept;
}

} // namespace

DocumentPersistence::DocumentPersistence(Document &document, const DocumentParts &parts)
    : m_document(document)
    , m_parts(parts)
{}

// ---- the pass file ----------------------------------------------------------------

PassConfig DocumentPersistence::passConfig() const
{
    const DocumentPatterns &patterns = *m_parts.patternSet;
    PassConfig config = passConfigFor(patterns.patterns());
    // Custom patterns travel as their sources; passConfigFor lists them as rules.
    for (const std::string &name : patterns.customNames()) {
        config.preGradFusionOptions.erase(name);
        config.postGradFusionOptions.erase(name);
    }
    // The loaded file's order first (Inductor runs the rules in it), then
    // rules enabled since, in the catalog's order.
    for (auto [order, section, loaded] :
         {std::tuple{&config.preGradOrder, &config.preGradFusionOptions, &patterns.preGradOrder()},
          std::tuple{&config.postGradOrder, &config.postGradFusionOptions, &patterns.postGradOrder()}}) {
        std::vector<std::string> ordered;
        for (const std::string &name : *loaded)
            if (section->count(name))
                ordered.push_back(name);
        for (const std::string &name : *order)
            if (section->count(name) && std::find(ordered.begin(), ordered.end(), name) == ordered.end())
                ordered.push_back(name);
        *order = std::move(ordered);
    }
    config.customPatterns = patterns.customSources();
    for (const auto &[signature, entry] : m_parts.review->rejections())
        config.rejected.push_back({entry.match.pattern, signature, entry.anchorName.toStdString()});
    return config;
}

Status DocumentPersistence::savePassFile(const QString &path)
{
    if (Status s = savePassConfig(passConfig(), path.toStdString()); !s)
        return s;
    // A pass file holds no applied step: those stay unsaved.
    m_parts.history->markDecisionsSaved();
    return {};
}

Status DocumentPersistence::loadPassFile(const QString &path)
{
    auto config = loadPassConfig(path.toStdString());
    if (!config)
        return config.error();
    if (Status s = applyPassConfig(*config, path.toStdString()); !s)
        return s;
    m_parts.history->markDecisionsSaved();
    return {};
}

Status DocumentPersistence::applyPassConfig(const PassConfig &config, const std::string &sourceName)
{
    // Configure a fresh catalog first, so that a bad file changes nothing.
    PatternSet fresh = builtinCatalog();
    auto added = addCustomPatterns(fresh, config, sourceName, &torchSchemas());
    if (!added)
        return added.error();
    std::vector<std::string> notes;
    // Read as the Inductor the session follows (Settings ▸ Inductor Version).
    if (Status s = configurePatterns(fresh, config, m_parts.patternSet->inductorProfile(), &notes); !s)
        return Error{sourceName + ": " + s.error().message};
    for (const std::string &name : *added)
        fresh.setEnabled(name, true); // a custom pattern runs whenever it is given
    DocumentPatterns::Configured configured;
    configured.patterns = std::move(fresh);
    configured.customNames = std::move(*added);
    configured.origin = QFileInfo(QString::fromStdString(sourceName)).fileName().toStdString();
    configured.customSources = config.customPatterns;
    for (CustomPatternSource &source : configured.customSources)
        if (!source.resolvedFile.empty())
            source.file = source.resolvedFile;
    configured.notes = std::move(notes);
    configured.preGradOrder = config.preGradOrder;
    configured.postGradOrder = config.postGradOrder;
    m_parts.patternSet->adopt(std::move(configured));

    DocumentReview &review = *m_parts.review;
    std::map<std::string, MatchEntry> rejected;
    for (const RejectedMatch &r : config.rejected) {
        MatchEntry e;
        e.match.pattern = r.pattern;
        e.signature = r.signature;
        e.anchorName = qs(r.anchor);
        e.status = MatchStatus::Rejected;
        rejected[r.signature] = e;
    }
    review.setRejections(std::move(rejected));
    if (!review.rejections().empty() && m_parts.model->hasGraph())
        review.giveRejectionsNodes(
            DocumentJobs::searchCandidates(m_parts.history->graph(), m_parts.patternSet->patterns()));
    m_parts.jobs->bumpVersion();
    if (review.hasMatchResults())
        m_document.findMatches();
    else
        review.relist();
    return {};
}

// ---- sessions ---------------------------------------------------------------------

bool DocumentPersistence::replaySteps(const std::vector<SessionStep> &steps, QString *error, const PassConfig *pass,
                                      const std::string &sourceName)
{
    // The custom patterns in effect: the whole session's at first. A step
    // made before a pattern was added runs without it, as it was made (an
    // Apply All would otherwise fuse with it, and the step that applied it
    // find its match gone).
    std::vector<CustomPatternSource> inEffect = pass ? pass->customPatterns : std::vector<CustomPatternSource>{};
    // Each source's pattern names, read once (a source is a file to parse).
    std::vector<std::vector<std::string>> defined;
    for (const CustomPatternSource &source : inEffect)
        defined.push_back(DocumentPatterns::patternNamesOf(source));
    auto useSources = [&](std::vector<CustomPatternSource> sources) -> Status {
        if (!pass || sources == inEffect)
            return {};
        PassConfig config = *pass;
        config.customPatterns = sources;
        inEffect = std::move(sources);
        return applyPassConfig(config, sourceName);
    };
    for (size_t i = 0; i < steps.size(); ++i) {
        const SessionStep &step = steps[i];
        if (pass && step.customPatterns)
            if (Status s = useSources(sourcesOfStep(*pass, defined, *step.customPatterns)); !s) {
                if (error)
                    *error = tr("step %1 of %2: %3").arg(i + 1).arg(steps.size()).arg(qs(s.error().message));
                return false;
            }
        if (step.applyAll) {
            QEventLoop loop;
            int made = 0;
            QObject::connect(m_parts.jobs, &DocumentJobs::applyAllFinished, &loop, [&](int applied) {
                made = applied;
                loop.quit();
            });
            m_document.applyAll();
            if (m_parts.jobs->isApplyingAll())
                loop.exec();
            // Other than the rewrites saved is not the review that was saved
            // (the model, its input shapes or the patterns differ): say so,
            // keep what ran.
            if (step.rewrites >= 0 && made != step.rewrites) {
                if (error)
                    *error = tr(made < step.rewrites
                                    ? "step %1 of %2: Apply All made %3 of the %4 rewrites the session saved (are the "
                                      "model and its input shapes the same?)"
                                    : "step %1 of %2: Apply All made %3 rewrites where the session saved %4 (are the "
                                      "model, its input shapes and the patterns the same?)")
                                 .arg(i + 1)
                                 .arg(steps.size())
                                 .arg(made)
                                 .arg(step.rewrites);
                return false;
            }
            continue;
        }
        // The candidates of the graph as it is now, found on this thread.
        DocumentReview &review = *m_parts.review;
        m_parts.jobs->waitForPatternsIdle();
        std::vector<MatchEntry> found = DocumentJobs::searchCandidates(m_parts.history->graph(),
                                                                       m_parts.patternSet->patterns());
        review.setHasMatchResults(true);
        review.rebuildMatchList(std::move(found));
        const std::vector<MatchEntry> &matches = review.matches();
        std::vector<int> rows;
        for (const std::string &signature : step.signatures) {
            for (size_t r = 0; r < matches.size(); ++r)
                if (matches[r].signature == signature && matches[r].status == MatchStatus::Pending) {
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
        // A PT2 graph's applies are verified in PyTorch 2 in the background: wait for them.
        int made = 0;
        QEventLoop loop;
        QObject::connect(m_parts.pt2, &DocumentPt2::applyFinished, &loop, [&](int applied, const QString &summary) {
            made = applied;
            why = summary;
            loop.quit();
        });
        made = m_document.applyMatches(rows, &why);
        if (m_parts.pt2->isApplying())
            loop.exec();
        if (made != int(rows.size())) {
            if (error)
                *error = tr("step %1 of %2: %3").arg(i + 1).arg(steps.size()).arg(why);
            return false;
        }
    }
    if (pass)
        if (Status s = useSources(pass->customPatterns); !s) {
            if (error)
                *error = qs(s.error().message);
            return false;
        }
    return true;
}

} // namespace fusebox
