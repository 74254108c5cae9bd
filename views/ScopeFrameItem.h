#pragma once

#include <QGraphicsItem>
#include <QString>

#include <functional>
#include <vector>

namespace fusebox {

class CollapsedGraph;
class ScopeTree;

/// A labelled frame behind the items of an expanded module scope, so the
/// hierarchy stays visible after expanding. Double-clicking its header
/// collapses the scope (GraphScene handles it). Frames take no mouse buttons,
/// so dragging inside one still pans the view.
class ScopeFrameItem final : public QGraphicsItem {
public:
    enum { Type = UserType + 4 };
    static constexpr qreal kHeader = 17;
    static constexpr qreal kMargin = 6;

    ScopeFrameItem(int scope, const QString &title, const QRectF &rect, int depth);

    /// Frames for the expanded scopes that show at least two items. The
    /// layout does not keep a scope's items together, so a frame that would
    /// cover an item from outside its scope is left out rather than mislead.
    /// itemRect(key) gives an item's scene rect (empty when not placed).
    static std::vector<ScopeFrameItem *> build(const ScopeTree &tree, const CollapsedGraph &view,
                                               const std::function<QRectF(uint64_t)> &itemRect,
                                               const std::function<bool(int)> &isExpanded);

    int scope() const { return m_scope; }
    QRectF frameRect() const { return m_rect; }
    /// The header band, in scene coordinates.
    QRectF headerRect() const;

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    int m_scope;
    QString m_title;
    QRectF m_rect;
    int m_depth;
};

} // namespace fusebox
