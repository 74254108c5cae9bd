#pragma once

#include "BoxItem.h"

#include <QString>

#include <unordered_map>

namespace fusebox {

class CollapsedGraph;
class Graph;
class ScopeTree;

/// A collapsed module scope in the scene: a stacked box that stands for every
/// node inside the scope. Shows the scope path, how many nodes it holds, its
/// most frequent ops and the hint to double-click it to expand.
class GroupItem final : public BoxItem {
public:
    enum { Type = UserType + 2 };

    struct Label {
        QString title;   ///< scope path ("layer1.0"), or the range of an artificial group
        QString count;   ///< "57 nodes · 3 modules"
        QString summary; ///< "conv2d ×4 · relu ×3 · add ×1"
        QString hint;    ///< "double-click to expand"
    };

    static QSizeF sizeFor(const Label &label);
    /// The scope path ("layer1.0"), or the range of an artificial group.
    static QString titleFor(const ScopeTree &tree, int scope);
    /// Labels for the groups of view: node and module counts, top three ops.
    static std::unordered_map<int, Label> labelsFor(const Graph &graph, const ScopeTree &tree,
                                                    const CollapsedGraph &view);

    GroupItem(int scope, const Label &label, QSizeF size);

    /// The scope index in the scene's ScopeTree.
    int scope() const { return m_scope; }
    const Label &label() const { return m_label; }

    int type() const override { return Type; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    int m_scope;
    Label m_label;
};

} // namespace fusebox
