#pragma once

#include "ScopeTree.h"
#include "core/ir/Graph.h"
#include "core/ir/GraphSummary.h"
#include "core/ir/OpFamily.h"
#include "core/ir/ShapeInference.h"
#include "core/ir/Verifier.h"
#include "core/torch/ModelLoader.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace fusebox {

class DocumentHistory;

/// What the views show of a graph besides its nodes, made in one pass over
/// it: shape counts (the status bar), the summary (the inspector), nodes per
/// op family (the legend) and the scopes (the scene's groups). Each is asked
/// for after every rewrite, so they are made together, and made again only
/// when the graph changed.
struct GraphFacts {
    ShapeCounts shapes;
    GraphSummary summary;
    std::map<OpFamily, size_t> families;
    /// Shared: a background layout holds it while the graph changes.
    std::shared_ptr<const ScopeTree> scopes;

    /// Any thread.
    static GraphFacts of(const Graph &graph);
};

/// A graph ready to become the document's: the copy kept as the original,
/// the IR verifier's findings and the graph's facts, made where the graph
/// was read (a worker thread: on a 100k-node graph they take a quarter of a
/// second).
struct OpenedGraph {
    Graph graph;
    Graph original;
    std::vector<VerifierIssue> issues;
    GraphFacts facts;

    /// Makes the copy, runs the verifier and gathers the facts; any thread.
    static OpenedGraph prepare(Graph graph);
};

/// Where a graph came from, as the document was given it.
struct GraphOrigin {
    /// What to call the graph in titles: the file name unless told otherwise.
    QString displayName;
    /// The file the graph was read from (may be a temporary copy); empty when set directly.
    QString filePath;
    /// The loader's and the verifier's findings, one line each.
    QStringList warnings;
    /// The file line each node was read from, indexed by NodeId value.
    std::vector<int> nodeLines;
    /// The options the graph was opened with.
    LoadOptions options;
};

/// The document's read model, as QtNodes' AbstractGraphModel is the scene's:
/// the graph the views draw, where it came from and its facts, and the two
/// signals that say it changed. Everything a view reads of the graph is here
/// and const; the graph itself is the history's (DocumentHistory), changed
/// only through the rewriter. Document tells it of a new graph (adopt) and of
/// a rewrite (rewritten); views connect to its signals.
class DocumentGraph final : public QObject {
    Q_OBJECT

public:
    explicit DocumentGraph(const DocumentHistory &history, QObject *parent = nullptr);

    const Graph &graph() const;
    /// True once a graph was loaded or set.
    bool hasGraph() const { return m_hasGraph; }
    QString filePath() const { return m_origin.filePath; }
    QString displayName() const { return m_origin.displayName; }
    const QStringList &warnings() const { return m_origin.warnings; }
    /// The file line each node was read from, indexed by NodeId value (0 where
    /// unknown; shorter than the id bound, or empty, when the reader kept none:
    /// only FX text dumps record lines). Leads a warning's "file:line" to its nodes.
    const std::vector<int> &nodeLines() const { return m_origin.nodeLines; }
    /// The options the graph was opened with (the input shapes the user gave;
    /// sessions and recent files keep them).
    const LoadOptions &loadOptions() const { return m_origin.options; }

    /// The graph's facts (GraphFacts), made once per graph.
    const GraphFacts &facts() const;
    const ShapeCounts &shapeCounts() const { return facts().shapes; }
    const GraphSummary &summary() const { return facts().summary; }
    const std::map<OpFamily, size_t> &familyCounts() const { return facts().families; }
    std::shared_ptr<const ScopeTree> sharedScopeTree() const { return facts().scopes; }
    /// The tensor inputs (their positions among graph().inputs()) whose shape
    /// is not known: most rules check shapes and find nothing there.
    std::vector<size_t> inputsWithoutShape() const;

    /// Document's: the history holds a new graph with these facts and this
    /// origin. Emits graphLoaded().
    void adopt(GraphOrigin origin, GraphFacts facts);
    /// Document's: the graph was rewritten (an apply, an undo, a redo); the
    /// facts are made again when next asked. Emits graphRewritten().
    void rewritten();

signals:
    /// A new graph (open, setGraph): everything shown is for another graph.
    void graphLoaded();
    /// The graph was rewritten (an apply, an undo, a redo, Apply All).
    void graphRewritten();

private:
    const DocumentHistory &m_history;
    bool m_hasGraph = false;
    GraphOrigin m_origin;
    mutable std::optional<GraphFacts> m_facts;
};

} // namespace fusebox
