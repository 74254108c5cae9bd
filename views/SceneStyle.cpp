#include "SceneStyle.h"

#include <QFontDatabase>
#include <QGuiApplication>

namespace fusebox {

namespace {
QFont sized(QFont font, int pixels, QFont::Weight weight = QFont::Normal)
{
    font.setPixelSize(pixels);
    font.setWeight(weight);
    font.setHintingPreference(QFont::PreferNoHinting); // same metrics at every zoom
    return font;
}
} // namespace

QFont SceneStyle::titleFont()
{
    return sized(QGuiApplication::font(), 13, QFont::DemiBold);
}

QFont SceneStyle::detailFont()
{
    return sized(QFontDatabase::systemFont(QFontDatabase::FixedFont), 11);
}

QFont SceneStyle::captionFont()
{
    return sized(QGuiApplication::font(), 11);
}

QFont SceneStyle::groupTitleFont()
{
    return sized(QGuiApplication::font(), 14, QFont::Bold);
}

QColor SceneStyle::text()
{
    return QColor(0x1F, 0x26, 0x30);
}
QColor SceneStyle::mutedText()
{
    return QColor(0x6B, 0x74, 0x80);
}
QColor SceneStyle::edge()
{
    return QColor(0x8C, 0x95, 0xA3);
}
QColor SceneStyle::highlight()
{
    return QColor(0x15, 0x65, 0xC0);
}
QColor SceneStyle::background()
{
    return QColor(0xFA, 0xFB, 0xFC);
}
QColor SceneStyle::groupFill()
{
    return QColor(0xF3, 0xF6, 0xFB);
}
QColor SceneStyle::groupBorder()
{
    return QColor(0x5B, 0x6B, 0x82);
}

} // namespace fusebox
