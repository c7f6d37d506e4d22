#pragma once
// The text of a PDF as Qt's PDF writer lays it down, with the size each piece has on the page:
// enough of a reader to check type sizes on exported slides. It follows the graphics state
// (q, Q, cm) and the text operators Qt writes (BT, Tf, Tm, Tj, ET), decodes glyphs through each
// font's ToUnicode map and inflates Flate streams; it is not a general PDF parser.
#include <QByteArray>
#include <QString>

#include <vector>

namespace kvscope::test {

struct PdfTextRun {
  int page = -1;        // 0-based, in the order the pages are written
  QString text;         // one BT ... ET block (a line, or its part in one format), NFKC
  double points = 0;    // font size on the page, in points (1/72 inch)
};

std::vector<PdfTextRun> pdfTextRuns(const QByteArray& pdf);

}  // namespace kvscope::test
