#pragma once

#include <QColor>
#include <QFont>

namespace fusebox {

/// Fonts and colours shared by the graph scene's items. Fonts use pixel sizes
/// so that the sizes measured before layout match what is painted, whatever
/// the screen's DPI (scene units are layout points = pixels at zoom 1).
class SceneStyle final {
public:
    static QFont titleFont();
    static QFont detailFont();
    static QFont captionFont();
    static QFont groupTitleFont();

    static QColor text();
    static QColor mutedText();
    static QColor edge();
    static QColor highlight();
    static QColor background();
    static QColor groupFill();
    static QColor groupBorder();
};

} // namespace fusebox
