#include "OpPalette.h"

namespace fusebox {

FamilyStyle OpPalette::style(OpFamily family)
{
    switch (family) {
    case OpFamily::Input: return {QColor(0xE2, 0xF3, 0xE0), QColor(0x3E, 0x8E, 0x41)};
    case OpFamily::Output: return {QColor(0xF1, 0xE4, 0xF6), QColor(0x8E, 0x44, 0xAD)};
    case OpFamily::Constant: return {QColor(0xF2, 0xF2, 0xF2), QColor(0x9E, 0x9E, 0x9E)};
    case OpFamily::Linear: return {QColor(0xDC, 0xE9, 0xFA), QColor(0x2F, 0x6F, 0xC0)};
    case OpFamily::Norm: return {QColor(0xDD, 0xF3, 0xF2), QColor(0x1F, 0x93, 0x8E)};
    case OpFamily::Activation: return {QColor(0xFD, 0xEA, 0xD4), QColor(0xE0, 0x84, 0x16)};
    case OpFamily::Pointwise: return {QColor(0xFF, 0xF5, 0xC8), QColor(0xC2, 0x9B, 0x00)};
    case OpFamily::SplitCat: return {QColor(0xFB, 0xE1, 0xE8), QColor(0xCC, 0x3F, 0x66)};
    case OpFamily::Shape: return {QColor(0xEA, 0xEE, 0xF2), QColor(0x5D, 0x7A, 0x8C)};
    case OpFamily::Reduction: return {QColor(0xE9, 0xE4, 0xF8), QColor(0x67, 0x52, 0xB8)};
    case OpFamily::Embedding: return {QColor(0xE7, 0xF3, 0xD6), QColor(0x67, 0x94, 0x22)};
    case OpFamily::ControlFlow: return {QColor(0xFC, 0xE0, 0xD8), QColor(0xC0, 0x43, 0x28)};
    case OpFamily::Other: return {QColor(0xF4, 0xEE, 0xE6), QColor(0x8A, 0x76, 0x62)};
    }
    return {QColor(Qt::white), QColor(Qt::gray)};
}

QString OpPalette::label(OpFamily family)
{
    switch (family) {
    case OpFamily::Input: return QStringLiteral("Input");
    case OpFamily::Output: return QStringLiteral("Output");
    case OpFamily::Constant: return QStringLiteral("Constant");
    case OpFamily::Linear: return QStringLiteral("Linear / conv");
    case OpFamily::Norm: return QStringLiteral("Norm");
    case OpFamily::Activation: return QStringLiteral("Activation");
    case OpFamily::Pointwise: return QStringLiteral("Pointwise");
    case OpFamily::SplitCat: return QStringLiteral("Split / cat");
    case OpFamily::Shape: return QStringLiteral("Shape / view");
    case OpFamily::Reduction: return QStringLiteral("Reduce / pool");
    case OpFamily::Embedding: return QStringLiteral("Embedding");
    case OpFamily::ControlFlow: return QStringLiteral("Control flow");
    case OpFamily::Other: return QStringLiteral("Other");
    }
    return {};
}

std::vector<OpFamily> OpPalette::families()
{
    return {OpFamily::Input,    OpFamily::Linear,   OpFamily::Norm,      OpFamily::Activation, OpFamily::Pointwise,
            OpFamily::SplitCat, OpFamily::Shape,    OpFamily::Reduction, OpFamily::Embedding,  OpFamily::ControlFlow,
            OpFamily::Other,    OpFamily::Constant, OpFamily::Output};
}

} // namespace fusebox
