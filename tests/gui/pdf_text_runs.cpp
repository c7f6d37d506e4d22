#include "pdf_text_runs.hpp"

#include <QMap>
#include <QRegularExpression>
#include <QTransform>

#include <zlib.h>

#include <cctype>
#include <cmath>
#include <map>
#include <optional>

namespace kvscope::test {
namespace {

struct PdfObject {
  QByteArray dict;    // everything before the stream, or the whole object
  QByteArray stream;  // inflated when Flate-encoded
};

QByteArray inflated(const QByteArray& in) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return {};
  QByteArray out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char chunk[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, static_cast<qsizetype>(sizeof chunk - z.avail_out));
  }
  inflateEnd(&z);
  return status == Z_STREAM_END ? out : QByteArray();
}

// Every object, by number, found through the cross-reference table (offsets, not a scan that
// binary stream data could fool).
std::map<int, PdfObject> readObjects(const QByteArray& pdf) {
  std::map<int, PdfObject> objects;
  const qsizetype start = pdf.lastIndexOf("startxref");
  if (start < 0) return objects;
  const qsizetype xref = pdf.mid(start + 9, 24).trimmed().split('\n').value(0).trimmed().toLongLong();
  const QList<QByteArray> lines = pdf.mid(xref, pdf.size() - xref).split('\n');
  if (lines.size() < 2 || !lines[0].startsWith("xref")) return objects;
  const int count = lines[1].trimmed().split(' ').value(1).toInt();
  for (int i = 1; i < count && i + 2 < lines.size(); ++i) {
    const QList<QByteArray> entry = lines[i + 2].trimmed().split(' ');  // after "xref", "0 N", object 0
    if (entry.value(2) != "n") continue;
    const qsizetype at = entry[0].toLongLong();
    const qsizetype end = pdf.indexOf("endobj", at);
    const QByteArray body = pdf.mid(at, end - at);
    PdfObject o;
    const qsizetype s = body.indexOf("stream");
    if (s < 0) {
      o.dict = body;
    } else {
      o.dict = body.left(s);
      qsizetype from = s + 6;
      if (body.at(from) == '\r') ++from;
      if (body.at(from) == '\n') ++from;
      const QByteArray raw = body.mid(from, body.lastIndexOf("endstream") - from);
      o.stream = o.dict.contains("/FlateDecode") ? inflated(raw) : raw;
    }
    objects[i] = o;
  }
  return objects;
}

std::optional<int> reference(const QByteArray& dict, const char* key) {
  const QRegularExpression re(QStringLiteral("%1\\s+(\\d+)\\s+0\\s+R").arg(QRegularExpression::escape(QLatin1String(key))));
  const auto m = re.match(QString::fromLatin1(dict));
  if (!m.hasMatch()) return std::nullopt;
  return m.captured(1).toInt();
}

QString utf16Hex(const QString& hex) {
  QString out;
  for (qsizetype i = 0; i + 4 <= hex.size(); i += 4) out += QChar(static_cast<char16_t>(hex.mid(i, 4).toUInt(nullptr, 16)));
  return out;
}

// A ToUnicode CMap: glyph code to text (bfchar pairs, bfrange spans and arrays).
QMap<uint, QString> toUnicode(const QByteArray& cmap) {
  QMap<uint, QString> map;
  const QString text = QString::fromLatin1(cmap);
  static const QRegularExpression chars(QStringLiteral("<([0-9A-Fa-f]+)>\\s*<([0-9A-Fa-f]+)>"));
  static const QRegularExpression spans(QStringLiteral("<([0-9A-Fa-f]+)>\\s*<([0-9A-Fa-f]+)>\\s*(\\[[^\\]]*\\]|<[0-9A-Fa-f]+>)"));
  static const QRegularExpression hex(QStringLiteral("<([0-9A-Fa-f]+)>"));
  for (const QString& block : text.split(QStringLiteral("beginbf")).mid(1)) {
    const QString body = block.section(QStringLiteral("endbf"), 0, 0);
    if (block.startsWith(QStringLiteral("char"))) {
      for (auto it = chars.globalMatch(body); it.hasNext();) {
        const auto m = it.next();
        map[m.captured(1).toUInt(nullptr, 16)] = utf16Hex(m.captured(2));
      }
      continue;
    }
    for (auto it = spans.globalMatch(body); it.hasNext();) {
      const auto m = it.next();
      const uint lo = m.captured(1).toUInt(nullptr, 16), hi = m.captured(2).toUInt(nullptr, 16);
      if (m.captured(3).startsWith(QLatin1Char('['))) {
        uint code = lo;
        for (auto d = hex.globalMatch(m.captured(3)); d.hasNext() && code <= hi; ++code) map[code] = utf16Hex(d.next().captured(1));
      } else {
        const QString first = utf16Hex(m.captured(3));
        for (uint code = lo; code <= hi && !first.isEmpty(); ++code) {
          map[code] = QString(first.left(first.size() - 1)) + QChar(static_cast<char16_t>(first.back().unicode() + (code - lo)));
        }
      }
    }
  }
  return map;
}

// The tokens of a content stream: names (/F7), hex strings (<0001>), numbers and operators.
QList<QByteArray> tokens(const QByteArray& content) {
  QList<QByteArray> out;
  const auto delimiter = [](char c) { return std::isspace(static_cast<unsigned char>(c)) || QByteArray("[]<>/()%").contains(c); };
  for (qsizetype i = 0; i < content.size();) {
    const char c = content.at(i);
    if (std::isspace(static_cast<unsigned char>(c)) || c == '[' || c == ']') {
      ++i;
    } else if (c == '%') {
      while (i < content.size() && content.at(i) != '\n') ++i;
    } else if (c == '<' && (i + 1 >= content.size() || content.at(i + 1) != '<')) {
      const qsizetype end = content.indexOf('>', i);
      out << content.mid(i, end + 1 - i);
      i = end + 1;
    } else if (c == '<' || c == '>') {
      i += 2;  // a dictionary's brackets
    } else {
      qsizetype end = i + 1;
      while (end < content.size() && !delimiter(content.at(end))) ++end;
      out << content.mid(i, end - i);
      i = end;
    }
  }
  return out;
}

QTransform matrix(const QList<QByteArray>& operands) {
  if (operands.size() < 6) return {};
  const auto n = [&](qsizetype i) { return operands[operands.size() - 6 + i].toDouble(); };
  return QTransform(n(0), n(1), n(2), n(3), n(4), n(5));
}

void readPage(int page, const QByteArray& content, const std::map<QByteArray, QMap<uint, QString>>& fonts,
              std::vector<PdfTextRun>& out) {
  QTransform ctm, tm;
  QList<QTransform> saved;
  QList<QByteArray> operands;
  QByteArray font;
  double size = 0;
  QString text;
  for (const QByteArray& t : tokens(content)) {
    const bool operand = t.startsWith('/') || t.startsWith('<') || t.startsWith('-') || t.startsWith('.') ||
                         std::isdigit(static_cast<unsigned char>(t.at(0)));
    if (operand) {
      operands << t;
      continue;
    }
    if (t == "q") saved << ctm;
    if (t == "Q" && !saved.isEmpty()) ctm = saved.takeLast();
    if (t == "cm") ctm = matrix(operands) * ctm;
    if (t == "BT") {
      tm = QTransform();
      text.clear();
    }
    if (t == "Tm") tm = matrix(operands);
    if (t == "Tf" && operands.size() >= 2) {
      font = operands[operands.size() - 2].mid(1);
      size = operands.back().toDouble();
    }
    if (t == "Tj" || t == "TJ") {
      const auto map = fonts.find(font);
      for (const QByteArray& s : operands) {
        if (!s.startsWith('<')) continue;
        const QByteArray hex = s.mid(1, s.size() - 2);
        for (qsizetype i = 0; i + 4 <= hex.size(); i += 4) {
          QString glyph = map == fonts.end() ? QString() : map->second.value(hex.mid(i, 4).toUInt(nullptr, 16));
          if (glyph == QStringLiteral("\t") || glyph == QStringLiteral("\u00a0")) glyph = QStringLiteral(" ");
          text += glyph;
        }
      }
    }
    if (t == "ET") {  // compatibility forms: the "fi" ligature as two letters
      out.push_back({page, text.normalized(QString::NormalizationForm_KC), size * std::sqrt(std::abs((tm * ctm).determinant()))});
    }
    operands.clear();
  }
}

}  // namespace

std::vector<PdfTextRun> pdfTextRuns(const QByteArray& pdf) {
  std::vector<PdfTextRun> out;
  const auto objects = readObjects(pdf);
  const auto object = [&](std::optional<int> id) -> const PdfObject* {
    const auto it = id ? objects.find(*id) : objects.end();
    return it == objects.end() ? nullptr : &it->second;
  };
  int page = 0;
  for (const auto& [id, o] : objects) {
    if (!o.dict.contains("/Type /Page\n") && !o.dict.contains("/Type /Page ") && !o.dict.contains("/Type /Page/")) continue;
    const PdfObject* content = object(reference(o.dict, "/Contents"));
    const PdfObject* resources = object(reference(o.dict, "/Resources"));
    QByteArray fontDict = resources ? resources->dict : o.dict;
    if (const PdfObject* f = object(reference(fontDict, "/Font"))) fontDict = f->dict;
    std::map<QByteArray, QMap<uint, QString>> fonts;
    static const QRegularExpression fontRef(QStringLiteral("/(F\\w*)\\s+(\\d+)\\s+0\\s+R"));
    for (auto it = fontRef.globalMatch(QString::fromLatin1(fontDict)); it.hasNext();) {
      const auto m = it.next();
      const PdfObject* font = object(m.captured(2).toInt());
      const PdfObject* cmap = font ? object(reference(font->dict, "/ToUnicode")) : nullptr;
      if (cmap) fonts[m.captured(1).toLatin1()] = toUnicode(cmap->stream);
    }
    if (content) readPage(page, content->stream, fonts, out);
    ++page;
  }
  return out;
}

}  // namespace kvscope::test
