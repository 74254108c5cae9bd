#include "RewriteController.h"

#include "TaskService.h"

#include "DiffView.h"
#include "Document.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "LatencyDialog.h"
#include "MatchesPanel.h"
#include "PatternColors.h"
#include "PatternEditor.h"
#include "PatternsPanel.h"
#include "QtStrings.h"
#include "ReviewFiles.h"
#include "WhyNotPanel.h"

#include "core/io/PatternFile.h"
#include "core/torch/TorchSchemas.h"
#include "patterns/custom/PatternFromSubgraph.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QMainWindow>
#include <QMenu>
#include <QLabel>
#include <QMessageBox>
#include <QTimer>
#include <QToolButton>
#include <QTableView>
#include <QUndoStack>

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace fusebox {

namespace {
const QColor kFailColor(0xd0, 0x20, 0x20);
const QColor kPassColor(0x2a, 0x9a, 0x3a);
const QColor kEditorColor(0xe0, 0x8a, 0x00);
} // namespace

RewriteController::RewriteController(QMainWindow *window, Document *document, GraphScene *scene, GraphView *view)
    : QObject(window)
    , m_window(window)
    , m_document(document)
    , m_scene(scene)
    , m_view(view)
    , m_patterns(new PatternsPanel(document, window))
    , m_matches(new MatchesPanel(document, window))
    , m_whyNot(new WhyNotPanel(document, window))
    , m_editor(new PatternEditor(window))
    , m_files(new ReviewFiles(document, scene, view, this))
{
    connect(m_files, &ReviewFiles::logLine, this, &RewriteController::logLine);
    connect(m_files, &ReviewFiles::pt2ExportFinished, this, [this](bool, const QString &line) {
        emit statusMessage(line);
        updateBusy();
    });
    m_editor->setSchemas(&torchSchemas());
    m_editor->setTasks(m_document->tasks()); // the status bar and Cancel see its search
    connectDocument();
    connectPanels();
    connectEditor();
    createActions();
}

void RewriteController::connectDocument()
{
    // The Log records every action, however it was started (menu, key,
    // double-click, context menu), from what the document reports.
    connect(&m_document->review(), &DocumentReview::matchesChanged, this, [this] {
        updateMarks();
        updateActions();
    });
    connect(&m_document->jobs(), &DocumentJobs::matchSearchStarted, this, &RewriteController::updateActions);
    connect(&m_document->jobs(), &DocumentJobs::matchSearchFinished, this, &RewriteController::logFindMatches);
    connect(&m_document->review(), &DocumentReview::matchesApplied, this,
            [this](const std::vector<MatchEntry> &applied) {
                for (const MatchEntry &e : applied) {
                    QString line = tr("applied %1 at %%2: −%3 +%4 nodes")
                                       .arg(qs(e.match.pattern), e.anchorName)
                                       .arg(e.nodesRemoved)
                                       .arg(e.nodesAdded);
                    line += e.verification.isEmpty() ? tr("; not verified (Rewrite ▸ Verify Each Apply is off)")
                                                     : tr("; verification %1").arg(e.verification);
                    emit logLine(line);
                }
            });
    connect(&m_document->model(), &DocumentGraph::graphLoaded, this, [this] {
        m_selectedMatch = -1;
        m_whyFailed.clear();
        m_whyPassed.clear();
        m_scene->setOutline({}, {}, {});
        updateActions();
    });
    connect(&m_document->model(), &DocumentGraph::graphRewritten, this, [this] {
        m_selectedMatch = -1;
        m_scene->setOutline({}, {}, {});
        // The editor matches against a snapshot: give it the rewritten graph.
        if (m_editorDock && m_editorDock->isVisible())
            m_editor->setGraph(std::make_shared<const Graph>(m_document->model().graph().clone()));
    });
    connect(&m_document->review(), &DocumentReview::verificationFailed, this,
            [this](const QString &pattern, const QString &anchor, const QString &message) {
                const QString line = tr("%1 at %%2 failed numeric verification and was undone: %3")
                                         .arg(pattern, anchor, message);
                emit logLine(line);
                emit statusMessage(line);
            });
    connect(&m_document->jobs(), &DocumentJobs::applyAllStarted, this, [this] {
        // The busy line says it, with the count so far (a status message
        // drawn over it made both unreadable).
        updateActions();
        updateBusy();
    });
    connect(&m_document->jobs(), &DocumentJobs::applyAllFinished, this, [this](int, const QString &summary) {
        emit logLine(tr("Apply All: %1").arg(summary));
        emit statusMessage(tr("Apply All: %1").arg(summary));
        updateActions();
    });
    connect(&m_document->pt2(), &DocumentPt2::applyStarted, this, [this](const QString &what) {
        emit logLine(tr("%1: verifying in PyTorch 2 (Esc cancels)").arg(what));
        updateActions();
        updateBusy(); // however it started (Apply, a double-click, a replayed session)
    });
    connect(&m_document->pt2(), &DocumentPt2::applyFinished, this, [this](int, const QString &summary) {
        emit logLine(summary);
        emit statusMessage(summary);
        updateActions();
    });
}

void RewriteController::logFindMatches()
{
    // The searches a user asked for; those after each rewrite are not news.
    if (!std::exchange(m_searchRequested, false))
        return;
    int candidates = 0, rejected = 0;
    std::set<std::string> patterns;
    for (const MatchEntry &e : m_document->review().matches()) {
        if (e.status != MatchStatus::Pending && (e.status != MatchStatus::Rejected || e.notFound))
            continue;
        ++candidates;
        rejected += e.status == MatchStatus::Rejected;
        patterns.insert(e.match.pattern);
    }
    QString line = candidates == 1 ? tr("Find Matches: 1 candidate")
                                   : tr("Find Matches: %1 candidates").arg(candidates);
    if (!patterns.empty())
        line += patterns.size() == 1 ? tr(" of 1 pattern") : tr(" of %1 patterns").arg(patterns.size());
    if (rejected)
        line += tr(", %1 rejected").arg(rejected);
    // Few or no candidates because shapes are missing is not "nothing to do".
    if (!m_document->model().inputsWithoutShape().empty())
        line += tr(" — some inputs' shapes are unknown, and most rules need them (File ▸ Input Shapes…)");
    emit logLine(line);
}

void RewriteController::connectPanels()
{
    connect(m_matches, &MatchesPanel::matchSelected, this, &RewriteController::onMatchSelected);
    connect(m_matches, &MatchesPanel::matchActivated, this, [this](int row) {
        QString error;
        if (m_document->applyMatches({row}, &error) == 0 && !error.isEmpty())
            emit statusMessage(error);
    });
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &RewriteController::onSceneSelection);
    connect(m_scene, &GraphScene::nodeContextMenu, this, &RewriteController::onNodeContextMenu);
    connect(m_scene, &GraphScene::layoutFinished, this, [this] {
        if (!m_focusPending || m_selectedMatch < 0 || size_t(m_selectedMatch) >= m_document->review().matches().size())
            return;
        m_focusPending = false;
        focusNodes(m_document->review().matches()[size_t(m_selectedMatch)].match.nodes);
    });
    connect(m_whyNot, &WhyNotPanel::marksChanged, this,
            [this](const std::vector<NodeId> &failed, const std::vector<NodeId> &passed) {
                m_whyFailed = failed;
                m_whyPassed = passed;
                updateMarks();
            });
    connect(m_whyNot, &WhyNotPanel::nodeActivated, this, [this](NodeId id) {
        m_scene->selectNode(id);
        m_whyNot->explain({}, id);
        focusNodes({id});
    });
    connect(m_patterns, &PatternsPanel::patternSelected, this,
            [this](const QString &name) { m_whyNot->explain(name.toStdString(), {}); });
}

void RewriteController::connectEditor()
{
    connect(m_editor, &PatternEditor::liveMatchesChanged, this, &RewriteController::updateMarks);
    connect(m_editor, &PatternEditor::useRequested, this, [this](const QString &text) {
        auto added = m_document->addPatternText(text, m_editor->sourceName());
        if (!added) {
            emit statusMessage(qs(added.error().message));
            return;
        }
        QStringList names;
        for (const std::string &n : *added)
            names << qs(n);
        emit logLine(tr("added pattern(s) %1 to the document").arg(names.join(QStringLiteral(", "))));
        if (!m_document->review().hasMatchResults())
            m_document->findMatches();
    });
    connect(m_editor, &PatternEditor::saveRequested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(m_window, tr("Save Pattern File"),
                                                          m_editor->suggestedFileName(),
                                                          tr("Pattern files (*.patterns);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !m_editor->saveTo(path, &error))
            QMessageBox::warning(m_window, tr("Save Pattern File"), error);
        else if (!path.isEmpty())
            emit logLine(tr("saved %1").arg(path));
    });
}

LatencyDialog *RewriteController::latencyDialog()
{
    if (m_latency)
        return m_latency;
    // Its measurement is a task of the window's TaskService, which the busy label reads.
    m_latency = new LatencyDialog(m_document, m_document->tasks(), m_window);
    connect(m_latency, &LatencyDialog::finished, this, [this](bool ok, const QString &line) {
        emit logLine(ok ? tr("latency: %1").arg(line) : tr("latency not measured: %1").arg(line));
        emit statusMessage(ok ? tr("Latency: %1").arg(line) : tr("Latency not measured: %1").arg(line));
        updateBusy();
    });
    return m_latency;
}

void RewriteController::setSchedule(PassSchedule schedule)
{
    m_document->setSchedule(schedule);
    (schedule == PassSchedule::Inductor ? m_scheduleInductor : m_scheduleGreedy)->setChecked(true);
    emit logLine(schedule == PassSchedule::Inductor
                     ? tr("schedule: %1's (Apply All runs the passes as Inductor does)")
                           .arg(QString::fromStdString(m_document->patternSet().patterns().inductorLabel()))
                     : tr("schedule: greedy (Apply All runs Fusebox's own search to a fixed point, beyond Inductor)"));
    m_whyNot->explain({}, {}); // its answer follows the schedule
}

DiffView *RewriteController::diffView()
{
    if (!m_diff) {
        m_diff = new DiffView(m_document, m_window);
        m_diff->setWindowFlag(Qt::Window);
        m_diff->resize(1500, 900);
    }
    return m_diff;
}

QString RewriteController::busyText() const
{
    // Every long job of the window is a task of its document's service.
    return m_document->tasks()->statusText();
}

void RewriteController::updateBusy()
{
    if (!m_busyLabel)
        return;
    const QString text = busyText();
    m_busyLabel->setText(text);
    m_busyLabel->setVisible(!text.isEmpty());
    m_cancelButton->setVisible(!text.isEmpty());
    m_cancel->setEnabled(!text.isEmpty());
    if (text.isEmpty())
        m_busyTimer->stop();
    else if (!m_busyTimer->isActive())
        m_busyTimer->start();
}

void RewriteController::updateActions()
{
    updateBusy();
    const bool have = m_document->model().hasGraph();
    const bool busy = m_document->jobs().isApplyingAll() || m_document->pt2().isApplying();
    m_findMatches->setEnabled(have && !busy);
    m_applyAll->setEnabled(have && !busy);
    // Deciding needs a candidate to decide: not before the first search (F5),
    // nor when none is pending (Apply, Reject) or rejected (Restore).
    bool pending = false, rejected = false;
    if (have && m_document->review().hasMatchResults())
        for (const MatchEntry &e : m_document->review().matches()) {
            pending = pending || e.status == MatchStatus::Pending;
            rejected = rejected || e.status == MatchStatus::Rejected;
        }
    m_apply->setEnabled(pending && !busy);
    m_reject->setEnabled(pending && !busy);
    m_restore->setEnabled(rejected && !busy);
    m_whyNotAction->setEnabled(have);
    m_fromSelection->setEnabled(have);
    m_diffAction->setEnabled(have);
    m_latencyAction->setEnabled(have && !busy);
}

void RewriteController::updateMarks()
{
    QHash<uint32_t, ItemMark> marks;
    std::vector<GraphScene::GroupFrame> frames;
    const auto &matches = m_document->review().matches();
    for (const MatchEntry &e : matches) {
        if ((e.status != MatchStatus::Pending && e.status != MatchStatus::Rejected) || e.notFound)
            continue;
        const Pattern *p = m_document->patternSet().patterns().find(e.match.pattern);
        if (e.status == MatchStatus::Pending && p && p->family() == PatternFamily::Vertical)
            frames.push_back({e.match.nodes, PatternColors::colorFor(e.match.pattern)});
        const ItemMark mark = e.status == MatchStatus::Pending
                                  ? ItemMark{PatternColors::colorFor(e.match.pattern), 2.5, false}
                                  : ItemMark{QColor(0x9a, 0x9a, 0x9a), 2, true};
        for (NodeId id : e.match.nodes)
            if (!marks.contains(id.value))
                marks.insert(id.value, mark);
    }
    for (const Match &m : m_editor->liveMatches())
        for (NodeId id : m.nodes)
            marks.insert(id.value, ItemMark{kEditorColor, 3.5, true});
    // Why-not: the passed checks' nodes green, under the selected match's ring;
    // the failed check's nodes red, over everything.
    for (NodeId id : m_whyPassed)
        marks.insert(id.value, ItemMark{kPassColor, 3, false});
    std::vector<NodeId> outline;
    QColor outlineColor;
    QString caption;
    if (m_selectedMatch >= 0 && size_t(m_selectedMatch) < matches.size()) {
        const MatchEntry &e = matches[size_t(m_selectedMatch)];
        if (e.status == MatchStatus::Pending || e.status == MatchStatus::Rejected) {
            outlineColor = PatternColors::colorFor(e.match.pattern);
            for (NodeId id : e.match.nodes)
                marks.insert(id.value, ItemMark{outlineColor, 5, false});
            outline = e.match.nodes;
            caption = tr("%1 at %%2 · benefit %3").arg(qs(e.match.pattern), e.anchorName).arg(e.match.benefit);
        }
    }
    for (NodeId id : m_whyFailed)
        marks.insert(id.value, ItemMark{kFailColor, 4.5, false});
    m_scene->setMarks(std::move(marks));
    m_scene->setGroupFrames(std::move(frames));
    m_scene->setOutline(outline, outlineColor, caption);
}

void RewriteController::onMatchSelected(int matchRow)
{
    m_selectedMatch = matchRow;
    updateMarks();
    if (matchRow < 0 || size_t(matchRow) >= m_document->review().matches().size())
        return;
    const MatchEntry &e = m_document->review().matches()[size_t(matchRow)];
    const Node *anchor = m_document->model().graph().node(e.match.anchor);
    if (anchor && (e.status == MatchStatus::Pending || e.status == MatchStatus::Rejected))
        m_whyNot->explain(e.match.pattern, e.match.anchor);
    focusNodes(e.match.nodes);
}

void RewriteController::focusNodes(const std::vector<NodeId> &nodes)
{
    std::vector<NodeId> present;
    for (NodeId id : nodes)
        if (m_document->model().graph().contains(id))
            present.push_back(id);
    if (present.empty())
        return;
    bool hidden = false;
    for (NodeId id : present)
        hidden = hidden || !m_scene->nodeItem(id);
    if (hidden && !m_scene->isLayoutRunning()) {
        m_focusPending = true;
        m_scene->revealNodes(present); // focus after the layout
        if (m_scene->isLayoutRunning())
            return;
        m_focusPending = false;
    }
    const QRectF rect = m_scene->rectOf(present);
    if (!rect.isEmpty())
        m_view->focusOn(rect.adjusted(-30, -30, 30, 30));
}

std::string RewriteController::relevantPattern(NodeId id) const
{
    const Node *node = m_document->model().graph().node(id);
    if (!node)
        return {};
    // The pattern the user chose, when it can start at this op.
    const Pattern *current = m_document->patternSet().patterns().find(m_whyNot->pattern());
    if (current && current->isRootOp(node->op))
        return current->name();
    // A match over the node: the pattern that has something to say here.
    for (const MatchEntry &e : m_document->review().matches())
        if (!e.notFound && std::find(e.match.nodes.begin(), e.match.nodes.end(), id) != e.match.nodes.end())
            return e.match.pattern;
    // Else the enabled rule rooted at this op that the last search found
    // most often (candidates, then near misses); a disabled one last.
    const auto tallies = m_document->review().tallies();
    const Pattern *best = nullptr;
    auto score = [&](const Pattern *p) {
        const auto t = tallies.find(p->name());
        const int found = t == tallies.end() ? 0 : t->second.candidates + t->second.applied;
        const int near = t == tallies.end() ? 0 : std::max(0, t->second.nearMisses);
        return std::tuple(m_document->patternSet().patterns().isEnabled(p->name()), found, near);
    };
    for (const Pattern *p : m_document->patternSet().patterns().all())
        if (p->isRootOp(node->op) && (!best || score(p) > score(best)))
            best = p;
    return best ? best->name() : std::string();
}

void RewriteController::onSceneSelection()
{
    const std::vector<NodeId> nodes = m_scene->selectedNodes();
    m_matches->setNodeFilter(nodes.size() >= 1 && m_document->review().hasMatchResults() ? nodes
                                                                                         : std::vector<NodeId>{});
    if (nodes.size() == 1 && m_whyNotDock && m_whyNotDock->isVisible()) {
        // A node no rule starts at (a conv2d) is said to be one, not
        // explained with the pattern chosen for the last node.
        const std::string pattern = relevantPattern(nodes.front());
        if (pattern.empty())
            m_whyNot->explainUnconcerned(nodes.front());
        else
            m_whyNot->explain(pattern, nodes.front());
    }
}

void RewriteController::onNodeContextMenu(NodeId id, QMenu *menu)
{
    const Node *node = m_document->model().graph().node(id);
    if (!node)
        return;
    QMenu *why = menu->addMenu(tr("Why didn't … fire here?"));
    QMenu *others = nullptr;
    for (const Pattern *p : m_document->patternSet().patterns().all()) {
        const bool relevant = p->isRootOp(node->op);
        QMenu *target = relevant ? why : (others ? others : (others = new QMenu(tr("Other patterns"), why)));
        const std::string name = p->name();
        target->addAction(qs(name), this, [this, name, id] { whyNot(name, id); });
    }
    if (others)
        why->addMenu(others);
    if (m_scene->selectedNodes().size() >= 1)
        menu->addAction(m_fromSelection);
}

void RewriteController::whyNot(const std::string &pattern, NodeId node)
{
    m_whyNotDock->show();
    m_whyNotDock->raise();
    // The node asked about becomes the selection, so that the Inspector (and
    // every panel that follows the selection) shows the node Why Not explains.
    if (node.isValid() && m_document->model().graph().contains(node))
        m_scene->selectNode(node);
    m_whyNot->explain(pattern, node);
}

void RewriteController::applySelected()
{
    std::vector<int> rows = m_matches->selectedMatchRows();
    QString error;
    const int applied = m_document->applyMatches(rows, &error); // logged from matchesApplied
    if (m_document->pt2().isApplying()) {
        updateBusy(); // verified in PyTorch 2 in the background: applyFinished() tells
    } else if (applied == 0 && !error.isEmpty()) {
        emit statusMessage(error);
        emit logLine(tr("not applied: %1").arg(error));
    } else {
        emit statusMessage(applied == 1 ? tr("applied 1 match") : tr("applied %1 matches").arg(applied));
    }
}

void RewriteController::rejectSelected(bool reject)
{
    // Only rows the action applies to; none means no (empty) undo step.
    const MatchStatus from = reject ? MatchStatus::Pending : MatchStatus::Rejected;
    std::vector<int> rows;
    for (int row : m_matches->selectedMatchRows())
        if (m_document->review().matches()[size_t(row)].status == from)
            rows.push_back(row);
    int done = 0;
    if (!rows.empty()) {
        QStringList names;
        for (int row : rows) {
            const MatchEntry &e = m_document->review().matches()[size_t(row)];
            names << tr("%1 at %%2").arg(qs(e.match.pattern), e.anchorName);
        }
        m_document->history().undoStack()->beginMacro(reject ? tr("Reject %1").arg(names.join(QStringLiteral(", ")))
                                                             : tr("Restore %1").arg(names.join(QStringLiteral(", "))));
        // Rows are re-read by signature: each decision rebuilds the list.
        std::vector<std::string> signatures;
        for (int row : rows)
            signatures.push_back(m_document->review().matches()[size_t(row)].signature);
        for (const std::string &signature : signatures) {
            const auto &all = m_document->review().matches();
            for (size_t r = 0; r < all.size(); ++r)
                if (all[r].signature == signature && all[r].status == from) {
                    done += reject ? m_document->rejectMatch(int(r)) : m_document->restoreMatch(int(r));
                    break;
                }
        }
        m_document->history().undoStack()->endMacro();
        for (const QString &name : names)
            emit logLine(reject ? tr("rejected %1 (kept out of Apply All and the pass)").arg(name)
                                : tr("restored %1 (a candidate again)").arg(name));
    }
    const QString matches = done == 1 ? tr("1 match") : tr("%1 matches").arg(done);
    emit statusMessage(reject ? tr("rejected %1").arg(matches) : tr("restored %1").arg(matches));
}

bool RewriteController::newPatternFromSelection(QString *error)
{
    const std::vector<NodeId> nodes = m_scene->selectedNodes();
    if (nodes.empty()) {
        if (error)
            *error = tr("Select the nodes of the subgraph first (Ctrl+click to select several).");
        return false;
    }
    auto decl = patternFromSubgraph(m_document->model().graph(), nodes);
    if (!decl) {
        if (error)
            *error = qs(decl.error().message);
        return false;
    }
    PatternFile file;
    file.patterns.push_back(*decl);
    m_editor->setSourceName(qs(decl->name) + QStringLiteral(".patterns"));
    m_editor->setGraph(std::make_shared<const Graph>(m_document->model().graph().clone()));
    m_editor->setText(qs(writePatternFile(file)));
    m_editor->compileNow();
    m_editorDock->show();
    m_editorDock->raise();
    m_window->resizeDocks({m_editorDock}, {340}, Qt::Vertical);
    emit logLine(nodes.size() == 1 ? tr("new pattern from 1 selected node")
                                   : tr("new pattern from %1 selected nodes").arg(nodes.size()));
    return true;
}

bool RewriteController::maybeSave()
{
    if (!m_document->model().hasGraph() || !m_document->history().isModified())
        return true;
    const auto answer
        = QMessageBox::question(m_window, tr("Unsaved Decisions"),
                                tr("The review of %1 has decisions that are not saved. Save the session first?")
                                    .arg(m_document->model().displayName()),
                                QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Discard)
        return true;
    if (m_saveSession) // the window's Save Session: to its session file, or asking
        return m_saveSession();
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Save Session"), QStringLiteral("review.fusebox"),
                                                      tr("Fusebox sessions (*.fusebox)"));
    QString error;
    if (path.isEmpty())
        return false;
    if (!m_files->saveSession(path, m_isDemo && m_isDemo(), &error)) {
        QMessageBox::warning(m_window, tr("Save Session"), error);
        return false;
    }
    return true;
}

} // namespace fusebox
