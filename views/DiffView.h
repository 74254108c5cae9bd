#pragma once

#include "core/rewrite/EditDiff.h"

#include <QStringList>
#include <QWidget>

#include <vector>

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
///
/// Made without a document, it compares two graphs that are no document's
/// instead (showComparison(): Compare with Inductor).
class DiffView final : public QWidget {
    Q_OBJECT

public:
    /// Reviews `document`'s rewrites; null: a comparison view (showComparison()).
    explicit DiffView(Document *document, QWidget *parent = nullptr);

    /// Recomputes the diff from the document's applied edit groups (not in a comparison view).
    void refresh();
    /// Only in a comparison view: copies of `left` and `right` side by side
    /// under their titles, the nodes markLeft / markRight outlined in the
    /// "changed" colour, `headline` in bold with `details` (one line each)
    /// below it. Selecting a node selects the node of the same name on the other side.
    void showComparison(const Graph &left, const QString &leftTitle, const Graph &right, const QString &rightTitle,
                        std::vector<NodeId> markLeft, std::vector<NodeId> markRight, const QString &headline,
                        const QStringList &details = {});
    /// True for a view made without a document.
    bool isComparison() const { return m_comparison; }

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

    const bool m_comparison;
    Document *m_document;
    Document *m_before;
    GraphScene *m_beforeScene;
    GraphScene *m_afterScene;
    GraphView *m_beforeView;
    GraphView *m_afterView;
    QLabel *m_summary;
    QLabel *m_beforeTitle;
    QLabel *m_afterTitle;
    GraphDiff m_diff;
    std::vector<NodeId> m_markLeft, m_markRight;
    bool m_syncing = false;
};

} // namespace fusebox
