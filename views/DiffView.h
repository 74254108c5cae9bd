#pragma once

#include "core/rewrite/EditDiff.h"

#include <QWidget>

class QLabel;

namespace fusebox {

class Document;
class GraphScene;
class GraphView;

/// The before/after review of the document's rewrites, side by side: the
/// graph as loaded on the left with the nodes the rewrites removed in red,
/// the current graph on the right with the nodes they added in green;
/// nodes they changed (new arguments, new metadata) are outlined orange on
/// both. Computed from the edit log (diffFromEdits), so it is exact.
/// Navigation is synchronized: selecting a node on one side selects and
/// centres the same node (NodeIds are stable) on the other, and zoom follows.
/// Above the graphs, a summary: nodes removed/added per pattern and the op
/// counts that changed.
class DiffView final : public QWidget {
    Q_OBJECT

public:
    explicit DiffView(Document *document, QWidget *parent = nullptr);

    /// Recomputes the diff from the document's applied edit groups.
    void refresh();

    const GraphDiff &diff() const { return m_diff; }
    QString summaryText() const;
    GraphScene *beforeScene() const { return m_beforeScene; }
    GraphScene *afterScene() const { return m_afterScene; }
    GraphView *beforeView() const { return m_beforeView; }
    GraphView *afterView() const { return m_afterView; }
    /// True while either side is laying out.
    bool isLayingOut() const;

private:
    void applyMarks();
    void follow(GraphScene *from, GraphScene *to, GraphView *toView);

    Document *m_document;
    Document *m_before;
    GraphScene *m_beforeScene;
    GraphScene *m_afterScene;
    GraphView *m_beforeView;
    GraphView *m_afterView;
    QLabel *m_summary;
    GraphDiff m_diff;
    bool m_syncing = false;
};

} // namespace fusebox
