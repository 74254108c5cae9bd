#pragma once

#include <QObject>
#include "DocumentCommands.h"
#include "DocumentParts.h"

#include "MatchEntry.h"
#include "SessionFile.h"
#include "core/ir/Graph.h"
#include "core/rewrite/EditLog.h"

#include <vector>

class QUndoCommand;
class QUndoStack;

namespace fusebox {

class Document;
class RewriteCommand;

/// Document's graph and its undo stack: the graph as it is, the graph as it
/// was loaded, and the rewrite and rejection steps since, which say what is
/// unsaved. Every step is pushed here; only the undo commands may revert and
/// replay a step's edit groups (the private hooks below), so the graph
/// changes through the rewriter or the EditLog and nowhere else.
class DocumentHistory final : public QObject {
    Q_OBJECT

public:
    DocumentHistory(Document &document, const DocumentParts &parts);
    ~DocumentHistory();
    DocumentHistory(const DocumentHistory &) = delete;
    DocumentHistory &operator=(const DocumentHistory &) = delete;

    const Graph &graph() const { return m_graph; }
    /// For the rewriter alone (GreedyDriver::apply on the GUI thread). Waits
    /// for the tasks that read the graph (waitForReaders()).
    Graph &graphToRewrite()
    {
        waitForReaders();
        return m_graph;
    }
    const Graph &original() const { return m_original; }
    QUndoStack *undoStack() const { return m_undo; }

    /// A new graph: it is also the original, the stack is empty and nothing is unsaved.
    void reset(Graph graph, Graph original);
    /// Takes Apply All's rewritten copy (its edit groups become the step pushed next).
    void replaceGraph(Graph graph)
    {
        waitForReaders();
        m_graph = std::move(graph);
    }
    /// Pushes a step whose change has already happened (its first redo() does nothing).
    void push(QUndoCommand *command);
    /// Reverts the groups' edits on the graph, newest first (no signal).
    void revertEdits(const std::vector<EditGroup> &groups);

    /// The edit groups applied so far, oldest first (the undone ones excluded).
    std::vector<const EditGroup *> appliedGroups() const;
    /// What the applied steps applied, oldest first (status Applied).
    std::vector<MatchEntry> appliedEntries() const;
    /// The applied steps, oldest first, as a session stores them.
    std::vector<SessionStep> sessionSteps() const;

    /// True when there are decisions not saved to a pass file or session.
    bool isModified() const;
    /// A decision outside the stack (patterns, options) is unsaved.
    void markDirty() { m_decisionsDirty = true; }
    /// Everything is saved (a session holds the decisions and the applied steps).
    void markSaved();
    /// The decisions are saved (a pass file holds patterns, options and
    /// rejections) but not the applied steps: those stay unsaved until a
    /// session is saved, so that quitting still asks. With no applied step on
    /// the stack, everything is saved (markSaved()).
    void markDecisionsSaved();
    /// Deletes the stack quietly (Document's destructor): its clear() would
    /// tell windows that then read a half-destroyed document.
    void deleteUndoStack();

    /// Pushes a rewrite step whose change has already happened (its first
    /// redo() does nothing): a RewriteCommand whose undo and redo reach the
    /// hooks below, which nothing else can.
    void pushRewrite(const QString &text, std::vector<EditGroup> groups, std::vector<MatchEntry> applied,
                     SessionStep step);

signals:
    /// markSaved(): nothing is unsaved now.
    void saved();

private:
    /// Undo and redo of a rewrite step: the graph changes at once;
    /// graphRewritten() follows when the undo stack has moved its index.
    void revertGroups(const std::vector<EditGroup> &groups);
    void replayGroups(const std::vector<EditGroup> &groups);
    /// Emits the graph change an undo or redo left pending.
    void onUndoIndexChanged();

    /// Blocks until no task reads the graph on a worker besides the search
    /// and Apply All, which DocumentJobs waits for (the scene's layout
    /// preparation, kGraphReadTask: tens of milliseconds): every change to
    /// m_graph calls it first.
    void waitForReaders();

    Document &m_document;
    const DocumentParts &m_parts;
    Graph m_graph;
    Graph m_original;
    QUndoStack *m_undo;
    int m_savedIndex = 0;
    bool m_decisionsDirty = false;
    bool m_graphChangePending = false;
};

} // namespace fusebox
