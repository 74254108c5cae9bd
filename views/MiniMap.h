#pragma once

#include <QGraphicsView>
#include <QTimer>

namespace fusebox {

class GraphView;

/// An overview of the whole drawing in a corner of the graph view, with the
/// part the view shows framed; clicking or dragging in it moves the view
/// there. It hides itself while the whole drawing fits in the view.
class MiniMap final : public QGraphicsView {
    Q_OBJECT

public:
    /// Its size: a fifth of the view's each way, within these bounds (a
    /// fixed 220x150 covered a fifth of a small window's graph area).
    static constexpr int kMinWidth = 120, kMaxWidth = 240;
    static constexpr int kMinHeight = 80, kMaxHeight = 170;
    /// Below this the view has no room for an overview: it hides.
    static constexpr int kMinViewWidth = 480, kMinViewHeight = 320;
    /// The size it takes in a viewport of `viewport`.
    static QSize sizeFor(const QSize &viewport);

    explicit MiniMap(GraphView *view);

    /// Shown unless the drawing fits the view, or the user turned it off.
    void setWanted(bool wanted);
    bool isWanted() const { return m_wanted; }
    /// Re-fits the overview and follows the view (called on scroll, zoom, layout).
    void refresh();

protected:
    void drawForeground(QPainter *painter, const QRectF &rect) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    void place();
    void centerViewAt(const QPoint &pos);

    GraphView *m_view;
    bool m_wanted = true;
    QTimer m_refreshTimer;
};

} // namespace fusebox
