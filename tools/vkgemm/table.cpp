#include "table.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace vkgemm::cli {

void Table::print(std::ostream& out) const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t i = 0; i < header_.size(); ++i) width[i] = header_[i].size();
  for (const auto& r : rows_)
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      // First column left-aligned (names), the rest right-aligned (numbers).
      if (i == 0)
        out << cell << std::string(width[i] - cell.size(), ' ');
      else
        out << "  " << std::string(width[i] - cell.size(), ' ') << cell;
    }
    out << "\n";
  };
  line(header_);
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  out << std::string(total - 2, '-') << "\n";
  for (const auto& r : rows_) line(r);
}

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  char buf[512];
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

}  // namespace vkgemm::cli
