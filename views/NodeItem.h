#pragma once

#include "core/ir/Node.h"
#include "core/ir/OpFamily.h"

#include "ItemMark.h"

#include <QGraphicsItem>
#include <QString>

namespace fusebox {

/// One graph node in the scene: a rounded box coloured by op family, with the
/// op (bold), the output type/shape ("f32[1, 64, 56, 56]") and the node name.
/// Holds the NodeId and copies of its texts, never a pointer into the graph.
class NodeItem final : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };

    /// The three text lines of a node's box.
    struct Label {
        QString title;   ///< op without the aten:: namespace, or the input/constant name
        QString detail;  ///< output type and shape
        QString caption; ///< node name, or the node kind
    };

    static Label labelFor(const Node &node);
    /// The box size that fits the label (scene units).
    static QSizeF sizeFor(const Label &label);

    NodeItem(NodeId id, const Label &label, OpFamily family, QSizeF size);

    NodeId nodeId() const { return m_id; }
    OpFamily family() const { return m_family; }
    const Label &label() const { return m_label; }

    /// The ring drawn around the box (none by default).
    void setMark(const ItemMark &mark);
    const ItemMark &mark() const { return m_mark; }

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent *event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *event) override;

private:
    NodeId m_id;
    Label m_label;
    OpFamily m_family;
    QRectF m_rect;
    bool m_hovered = false;
    ItemMark m_mark;
};

} // namespace fusebox
