#include "wgsl/diagnostics.hpp"

#include <algorithm>

namespace vkgemm::wgsl {

SourceFile::SourceFile(std::string path, std::string content)
    : path_(std::move(path)), content_(std::move(content)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < content_.size(); ++i) {
    if (content_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : content_.size();
  if (end > begin && content_[end - 1] == '\r') --end;
  return std::string_view(content_).substr(begin, end - begin);
}

bool Diagnostics::has_errors() const {
  return error_count() > 0;
}

size_t Diagnostics::error_count() const {
  return static_cast<size_t>(std::count_if(
      list_.begin(), list_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

std::string Diagnostics::format(const SourceFile& file) const {
  std::string out;
  for (const Diagnostic& d : list_) {
    const char* kind = d.severity == Severity::Error     ? "error"
                       : d.severity == Severity::Warning ? "warning"
                                                         : "note";
    out += file.path() + ":" + std::to_string(d.range.begin.line) + ":" +
           std::to_string(d.range.begin.column) + ": " + kind + ": " + d.message + "\n";
    std::string_view text = file.line_text(d.range.begin.line);
    if (text.empty()) continue;
    out += std::string(text) + "\n";
    std::string caret;
    for (uint32_t c = 1; c < d.range.begin.column && c <= text.size(); ++c)
      caret += text[c - 1] == '\t' ? '\t' : ' ';
    uint32_t width = 1;
    if (d.range.end.line == d.range.begin.line && d.range.end.column > d.range.begin.column) {
      width = d.range.end.column - d.range.begin.column;
    }
    caret += '^';
    for (uint32_t i = 1; i < width; ++i) caret += '~';
    out += caret + "\n";
  }
  return out;
}

}  // namespace vkgemm::wgsl
