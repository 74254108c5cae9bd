#pragma once

#include "core/ir/NodeId.h"

#include <QGraphicsView>

#include <vector>

namespace fusebox {

class GraphScene;
class MiniMap;

/// The graph canvas: wheel zoom around the cursor, drag to pan, Shift+drag
/// to select with a rubber band (Ctrl+click adds to the selection), fit to
/// view, a minimap in the corner, antialiased. Zoom 1 draws scene units
/// (layout points) as pixels.
class GraphView final : public QGraphicsView {
    Q_OBJECT

public:
    /// Below this zoom the node text is too small to read.
    static constexpr qreal kReadableZoom = 0.75;
    static constexpr qreal kMinZoom = 0.02;
    static constexpr qreal kMaxZoom = 4.0;

    explicit GraphView(GraphScene *scene, QWidget *parent = nullptr);

    GraphScene *graphScene() const { return m_scene; }
    MiniMap *miniMap() const { return m_miniMap; }
    qreal zoom() const;
    /// Sets the zoom, keeping the viewport centre in place.
    void setZoom(qreal zoom);
    void zoomIn();
    void zoomOut();
    /// Shows the whole drawing, at most at zoom 1.
    void fitToView();
    /// The view for a freshly laid out graph: everything when that is
    /// readable, else the top of the graph at a readable zoom.
    void showReadable();
    /// Brings rect into view, zooming out only as far as stays readable, and
    /// in to a readable zoom (or as far as rect fits) from further out.
    void focusOn(const QRectF &rect);

    /// Where the view looks, by the nodes nearest its centre (nearest
    /// first) and where the centre is from each: a rewrite's new layout
    /// moves every node, and keepAnchor() puts the view back on them.
    struct Anchor {
        std::vector<std::pair<NodeId, QPointF>> nodes;
    };
    Anchor anchor() const;
    /// Centres the view where it was from the first anchor node still drawn
    /// (the zoom stays); with none, and no node in view, shows the graph
    /// readably.
    void keepAnchor(const Anchor &anchor);

signals:
    void zoomChanged(qreal zoom);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void drawForeground(QPainter *painter, const QRectF &rect) override;

private:
    void scaleBy(qreal factor);

    GraphScene *m_scene;
    MiniMap *m_miniMap;
};

} // namespace fusebox
