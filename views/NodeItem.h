#pragma once

#include "core/ir/Node.h"
#include "core/ir/OpFamily.h"

#include "BoxItem.h"

#include <QString>

namespace fusebox {

class Graph;

/// One graph node in the scene: a rounded box coloured by op family, with the
/// op (bold), the output type/shape ("f32[1, 64, 56, 56]") and the node name.
/// Holds the NodeId and copies of its texts, never a pointer into the graph.
class NodeItem final : public BoxItem {
public:
    enum { Type = UserType + 1 };

    /// The three text lines of a node's box.
    struct Label {
        QString title;   ///< op without the aten:: namespace, or the input/constant name
        QString detail;  ///< output type and shape
        QString caption; ///< node name, or the node kind
    };

    static Label labelFor(const Node &node);
    /// As labelFor(node), with what only the graph tells: a value that only
    /// getitems read (split, unbind, chunk, a tuple) is a list, "list · 4 items
    /// read", not the "Tensor" its readers' annotations leave it.
    static Label labelFor(const Graph &graph, NodeId id);
    /// The box size that fits the label (scene units).
    static QSizeF sizeFor(const Label &label);

    NodeItem(NodeId id, const Label &label, OpFamily family, QSizeF size);

    NodeId nodeId() const { return m_id; }
    OpFamily family() const { return m_family; }
    const Label &label() const { return m_label; }

    int type() const override { return Type; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    NodeId m_id;
    Label m_label;
    OpFamily m_family;
};

} // namespace fusebox
