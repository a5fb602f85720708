// Source files, source ranges and diagnostics shared by every compiler stage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vkgemm::wgsl {

struct SourceLocation {
  uint32_t line = 1;
  uint32_t column = 1;
  uint32_t offset = 0;
};

struct SourceRange {
  SourceLocation begin;
  SourceLocation end;
};

// One WGSL file: its name (for diagnostics) and contents.
class SourceFile {
 public:
  SourceFile(std::string path, std::string content);
  const std::string& path() const { return path_; }
  const std::string& content() const { return content_; }
  // The text of line `line` (1-based) without its line break; empty when out of range.
  std::string_view line_text(uint32_t line) const;

 private:
  std::string path_;
  std::string content_;
  std::vector<size_t> line_starts_;
};

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
};

class Diagnostics {
 public:
  void error(SourceRange range, std::string message) {
    list_.push_back({Severity::Error, range, std::move(message)});
  }
  void note(SourceRange range, std::string message) {
    list_.push_back({Severity::Note, range, std::move(message)});
  }
  bool has_errors() const;
  size_t error_count() const;
  const std::vector<Diagnostic>& list() const { return list_; }
  void append(const Diagnostics& other) { list_.insert(list_.end(), other.list_.begin(), other.list_.end()); }
  // "file:line:col: error: message", then the source line and a caret under the range.
  std::string format(const SourceFile& file) const;

 private:
  std::vector<Diagnostic> list_;
};

}  // namespace vkgemm::wgsl
