#pragma once
// QString from UTF-8 text that core hands out (names, units, causes, messages). One definition
// for every ui file: ui is built as a unity build (ui/CMakeLists.txt), where file-local helpers
// of the same name in two files of one batch would clash.
#include <QString>

#include <string_view>

namespace kvscope::ui {

inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace kvscope::ui
