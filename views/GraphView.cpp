#include "GraphView.h"

#include "Document.h"
#include "GraphScene.h"
#include "MiniMap.h"
#include "NodeItem.h"
#include "SceneStyle.h"

#include <QLineF>
#include <QScrollBar>
#include <QWheelEvent>
#include <QtMath>

#include <algorithm>

namespace fusebox {

GraphView::GraphView(GraphScene *scene, QWidget *parent)
    : QGraphicsView(scene, parent)
    , m_scene(scene)
    , m_miniMap(nullptr)
{
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlag(QGraphicsView::DontAdjustForAntialiasing);
    setFrameShape(QFrame::NoFrame);
    setFocusPolicy(Qt::StrongFocus);
    m_miniMap = new MiniMap(this);
    connect(scene, &GraphScene::layoutFinished, m_miniMap, &MiniMap::refresh);
}

void GraphView::mousePressEvent(QMouseEvent *event)
{
    // Shift+drag selects a region; a plain drag pans.
    if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier))
        setDragMode(QGraphicsView::RubberBandDrag);
    QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent *event)
{
    QGraphicsView::mouseReleaseEvent(event);
    setDragMode(QGraphicsView::ScrollHandDrag);
}

void GraphView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    m_miniMap->refresh();
}

qreal GraphView::zoom() const
{
    return transform().m11();
}

void GraphView::scaleBy(qreal factor)
{
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    factor = target / zoom();
    if (qFuzzyCompare(factor, 1.0))
        return;
    scale(factor, factor);
    emit zoomChanged(zoom());
}

void GraphView::setZoom(qreal zoom)
{
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(QGraphicsView::AnchorViewCenter);
    scaleBy(zoom / this->zoom());
    setTransformationAnchor(anchor);
}

void GraphView::zoomIn()
{
    setZoom(zoom() * 1.25);
}

void GraphView::zoomOut()
{
    setZoom(zoom() / 1.25);
}

void GraphView::fitToView()
{
    const QRectF bounds = m_scene->itemsBoundingRect().adjusted(-20, -20, 20, 20);
    if (bounds.isEmpty())
        return;
    const QRectF viewport = this->viewport()->rect();
    const qreal fit = std::min(viewport.width() / bounds.width(), viewport.height() / bounds.height());
    setZoom(std::min(fit, 1.0));
    centerOn(bounds.center());
}

void GraphView::showReadable()
{
    const QRectF bounds = m_scene->itemsBoundingRect().adjusted(-20, -20, 20, 20);
    if (bounds.isEmpty())
        return;
    const QRectF viewport = this->viewport()->rect();
    const qreal fit = std::min(viewport.width() / bounds.width(), viewport.height() / bounds.height());
    if (fit >= kReadableZoom) {
        fitToView();
        return;
    }
    // Too big to fit readably: zoom 1 (or what fits the width, if readable)
    // and look at the top of the graph, centred on its first ranks.
    const qreal widthFit = viewport.width() / bounds.width();
    const qreal zoom = std::clamp(widthFit, kReadableZoom, 1.0);
    setZoom(zoom);
    const qreal visibleHeight = viewport.height() / zoom;
    const QRectF top = m_scene->topRect(visibleHeight * 0.6);
    const qreal x = widthFit >= kReadableZoom ? bounds.center().x()
                                              : (top.isEmpty() ? bounds.center().x() : top.center().x());
    centerOn(QPointF(x, bounds.top() + visibleHeight / 2));
}

void GraphView::focusOn(const QRectF &rect)
{
    if (rect.isEmpty())
        return;
    const QRectF target = rect.adjusted(-30, -30, 30, 30);
    const QRectF viewport = this->viewport()->rect();
    const qreal fit = std::min(viewport.width() / target.width(), viewport.height() / target.height());
    if (fit < zoom())
        setZoom(std::max(fit, std::min(zoom(), kReadableZoom)));
    else if (zoom() < kReadableZoom) // too far out to read what was found: zoom in as far as it fits
        setZoom(std::min(fit, kReadableZoom));
    const qreal visibleHeight = viewport.height() / zoom();
    if (target.height() <= visibleHeight)
        centerOn(target.center());
    else // taller than the view: show its top
        centerOn(QPointF(target.center().x(), target.top() + visibleHeight / 2));
}

GraphView::Anchor GraphView::anchor() const
{
    // Every node in view, nearest first (a rewrite may remove all those near
    // the centre: an input at the edge still anchors the view).
    constexpr size_t kNearest = 256;
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const QPointF centre = visible.center();
    std::vector<std::pair<qreal, std::pair<NodeId, QPointF>>> found;
    for (QGraphicsItem *item : m_scene->items(visible)) {
        const auto *node = dynamic_cast<const NodeItem *>(item);
        if (!node)
            continue;
        const QPointF offset = centre - node->sceneBoundingRect().center();
        found.push_back({QLineF(QPointF(), offset).length(), {node->nodeId(), offset}});
    }
    const size_t kept = std::min(kNearest, found.size());
    std::partial_sort(found.begin(), found.begin() + std::ptrdiff_t(kept), found.end(),
                      [](const auto &a, const auto &b) { return a.first < b.first; });
    Anchor out;
    for (size_t i = 0; i < kept; ++i)
        out.nodes.push_back(found[i].second);
    return out;
}

void GraphView::keepAnchor(const Anchor &anchor)
{
    for (const auto &[id, offset] : anchor.nodes)
        if (const NodeItem *node = m_scene->nodeItem(id)) {
            centerOn(node->sceneBoundingRect().center() + offset);
            return;
        }
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const auto inView = m_scene->items(visible);
    if (std::none_of(inView.begin(), inView.end(),
                     [](QGraphicsItem *item) { return dynamic_cast<NodeItem *>(item) != nullptr; }))
        showReadable();
}

void GraphView::wheelEvent(QWheelEvent *event)
{
    // Ctrl or not, the wheel zooms (around the cursor, by the anchor); the
    // trackpad's horizontal scroll still pans.
    const QPoint delta = event->angleDelta();
    if (delta.y() == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    scaleBy(std::pow(1.0015, delta.y()));
    event->accept();
}

void GraphView::drawForeground(QPainter *painter, const QRectF &rect)
{
    QGraphicsView::drawForeground(painter, rect);
    const Document *document = m_scene->document();
    if (document->model().hasGraph() && !m_scene->items().isEmpty())
        return;
    // Empty state, drawn in viewport coordinates.
    painter->save();
    painter->resetTransform();
    painter->setPen(SceneStyle::mutedText());
    QFont font = SceneStyle::titleFont();
    font.setPixelSize(16);
    painter->setFont(font);
    QString text;
    if (document->jobs().isLoading())
        text = tr("Loading…");
    else if (document->model().hasGraph())
        text = m_scene->isLayoutRunning() ? tr("Laying out…") : tr("The graph is empty");
    else
        text = tr("Open a model (Ctrl+O), drop a file here, or open the demo model (File menu)");
    painter->drawText(viewport()->rect(), Qt::AlignCenter, text);
    painter->restore();
}

} // namespace fusebox
