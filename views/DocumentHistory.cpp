// Document's graph and undo stack: the steps, what they applied, and what is unsaved.
#include "DocumentHistory.h"

#include "Document.h"
#include "DocumentCommands.h"
#include "DocumentJobs.h"
#include "TaskService.h"

#include <QUndoStack>

#include <utility>

namespace fusebox {

DocumentHistory::DocumentHistory(Document &document, const DocumentParts &parts)
    : m_document(document)
    , m_parts(parts)
    , m_undo(new QUndoStack(&document))
{
    QObject::connect(m_undo, &QUndoStack::indexChanged, &document, [this] { onUndoIndexChanged(); });
}

DocumentHistory::~DocumentHistory()
{
    deleteUndoStack();
}

void DocumentHistory::deleteUndoStack()
{
    if (!m_undo)
        return;
    m_undo->blockSignals(true);
    delete m_undo;
    m_undo = nullptr;
}

void DocumentHistory::waitForReaders()
{
    m_document.tasks()->waitFor(kGraphReadTask);
}

void DocumentHistory::reset(Graph graph, Graph original)
{
    waitForReaders();
    m_graph = std::move(graph);
    m_original = std::move(original);
    m_undo->clear();
    m_savedIndex = 0;
    m_decisionsDirty = false;
}

void DocumentHistory::push(QUndoCommand *command)
{
    m_undo->push(command);
}

void DocumentHistory::pushRewrite(const QString &text, std::vector<EditGroup> groups, std::vector<MatchEntry> applied,
                                  SessionStep step)
{
    RewriteCommand::Hooks hooks{[this](const std::vector<EditGroup> &g) { revertGroups(g); },
                                [this](const std::vector<EditGroup> &g) { replayGroups(g); }};
    push(new RewriteCommand(std::move(hooks), text, std::move(groups), std::move(applied), std::move(step)));
}

void DocumentHistory::revertEdits(const std::vector<EditGroup> &groups)
{
    m_parts.jobs->waitForPatternsIdle();
    waitForReaders();
    for (auto g = groups.rbegin(); g != groups.rend(); ++g)
        for (auto e = g->edits.rbegin(); e != g->edits.rend(); ++e)
            revertEdit(m_graph, *e);
}

// The undo commands call these from inside QUndoStack::undo()/redo(), before
// the stack moves its index: appliedGroups() would still count (or not yet
// count) the step, so the views hear of the change once the index moved.
void DocumentHistory::revertGroups(const std::vector<EditGroup> &groups)
{
    revertEdits(groups);
    m_graphChangePending = true;
}

void DocumentHistory::replayGroups(const std::vector<EditGroup> &groups)
{
    m_parts.jobs->waitForPatternsIdle();
    waitForReaders();
    for (const EditGroup &g : groups)
        for (const Edit &e : g.edits)
            replayEdit(m_graph, e);
    m_graphChangePending = true;
}

void DocumentHistory::onUndoIndexChanged()
{
    if (std::exchange(m_graphChangePending, false))
        m_document.graphChanged();
}

std::vector<const EditGroup *> DocumentHistory::appliedGroups() const
{
    std::vector<const EditGroup *> out;
    for (int i = 0; i < m_undo->index(); ++i)
        if (auto *c = dynamic_cast<const RewriteCommand *>(m_undo->command(i)))
            for (const EditGroup &g : c->groups())
                out.push_back(&g);
    return out;
}

std::vector<MatchEntry> DocumentHistory::appliedEntries() const
{
    std::vector<MatchEntry> out;
    for (int i = 0; i < m_undo->index(); ++i)
        if (auto *c = dynamic_cast<const RewriteCommand *>(m_undo->command(i)))
            out.insert(out.end(), c->applied().begin(), c->applied().end());
    return out;
}

std::vector<SessionStep> DocumentHistory::sessionSteps() const
{
    std::vector<SessionStep> steps;
    for (int i = 0; i < m_undo->index(); ++i)
        if (auto *c = dynamic_cast<const RewriteCommand *>(m_undo->command(i)))
            steps.push_back(c->step());
    return steps;
}

bool DocumentHistory::isModified() const
{
    return m_undo->index() != m_savedIndex || m_decisionsDirty;
}

void DocumentHistory::markSaved()
{
    m_savedIndex = m_undo->index();
    m_decisionsDirty = false;
    emit saved();
}

void DocumentHistory::markDecisionsSaved()
{
    // Rejections are undo steps too, and a pass file holds them: with no
    // applied step on the stack, the pass file holds the whole review.
    if (sessionSteps().empty()) {
        markSaved();
        return;
    }
    m_decisionsDirty = false;
}

} // namespace fusebox
