#pragma once

#include "core/ir/OpFamily.h"

#include <QWidget>

#include <map>

namespace fusebox {

class Graph;

/// The op-family colour key: a swatch, the family name and how many nodes of
/// the current graph belong to it (families the graph lacks are dimmed).
class LegendWidget final : public QWidget {
    Q_OBJECT

public:
    explicit LegendWidget(QWidget *parent = nullptr);

    /// The nodes per family to show (DocumentGraph::familyCounts()).
    void setCounts(std::map<OpFamily, size_t> counts);
    size_t count(OpFamily family) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::map<OpFamily, size_t> m_counts;
};

} // namespace fusebox
