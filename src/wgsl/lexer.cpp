#include "wgsl/lexer.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

namespace vkgemm::wgsl {
namespace {

constexpr std::array<std::string_view, 26> kKeywords = {
    "alias",   "break",      "case",    "const", "const_assert", "continue", "continuing",
    "default", "diagnostic", "discard", "else",  "enable",       "false",    "fn",
    "for",     "if",         "let",     "loop",  "override",     "requires", "return",
    "struct",  "switch",     "true",    "var",   "while"};

// A representative subset of the spec's reserved words (the ones a shader author is most likely to hit).
constexpr std::array<std::string_view, 39> kReserved = {
    "NULL",      "Self",     "abstract", "active",       "alignas",  "alignof",
    "as",        "asm",      "auto",     "catch",        "class",    "const_cast",
    "constexpr", "decltype", "do",       "dynamic_cast", "enum",     "explicit",
    "export",    "extern",   "goto",     "import",       "inline",   "mut",
    "namespace", "new",      "nullptr",  "operator",     "public",   "reinterpret_cast",
    "self",      "signed",   "sizeof",   "static",       "template", "this",
    "typedef",   "union",    "unsigned"};

// Longest first so that the greedy match picks the longest operator.
constexpr std::array<std::string_view, 45> kSymbols = {
    ">>=", "<<=", "->", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "++", "--", "+=", "-=",
    "*=",  "/=",  "%=", "&=", "|=", "^=", "(",  ")",  "[",  "]",  "{",  "}",  ",",  ".",  ";",
    ":",   "@",   "=",  "<",  ">",  "+",  "-",  "*",  "/",  "%",  "&",  "|",  "^",  "!",  "~"};

bool is_ident_start(unsigned char c) {
  return std::isalpha(c) || c == '_' || c >= 0x80;
}
bool is_ident_char(unsigned char c) {
  return std::isalnum(c) || c == '_' || c >= 0x80;
}

class Lexer {
 public:
  Lexer(const SourceFile& file, Diagnostics& diags) : src_(file.content()), diags_(diags) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      skip_blank_and_comments();
      Token tok;
      SourceLocation begin = loc_;
      if (pos_ >= src_.size()) {
        tok.kind = TokenKind::EndOfFile;
        tok.range = {begin, begin};
        tokens.push_back(tok);
        break;
      }
      unsigned char c = static_cast<unsigned char>(src_[pos_]);
      if (is_ident_start(c)) {
        size_t start = pos_;
        while (pos_ < src_.size() && is_ident_char(static_cast<unsigned char>(src_[pos_]))) advance();
        tok.kind = TokenKind::Identifier;
        tok.text = src_.substr(start, pos_ - start);
        if (tok.text == "_") {
          tok.kind = TokenKind::Symbol;  // phony assignment target
        } else if (tok.text.size() >= 2 && tok.text[0] == '_' && tok.text[1] == '_') {
          diags_.error({begin, loc_}, "identifiers must not start with two underscores");
        }
      } else if (std::isdigit(c) || (c == '.' && pos_ + 1 < src_.size() && std::isdigit(src_[pos_ + 1]))) {
        lex_number(tok);
      } else {
        bool matched = false;
        for (std::string_view sym : kSymbols) {
          if (src_.substr(pos_, sym.size()) == sym) {
            tok.kind = TokenKind::Symbol;
            tok.text = src_.substr(pos_, sym.size());
            for (size_t i = 0; i < sym.size(); ++i) advance();
            matched = true;
            break;
          }
        }
        if (!matched) {
          tok.kind = TokenKind::Invalid;
          tok.text = src_.substr(pos_, 1);
          advance();
          diags_.error({begin, loc_}, "invalid character '" + std::string(tok.text) + "'");
        }
      }
      tok.range = {begin, loc_};
      tokens.push_back(tok);
    }
    return tokens;
  }

 private:
  void advance() {
    if (src_[pos_] == '\n') {
      ++loc_.line;
      loc_.column = 1;
    } else {
      ++loc_.column;
    }
    ++pos_;
    loc_.offset = static_cast<uint32_t>(pos_);
  }

  void skip_blank_and_comments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
        advance();
      } else if (src_.substr(pos_, 2) == "//") {
        while (pos_ < src_.size() && src_[pos_] != '\n') advance();
      } else if (src_.substr(pos_, 2) == "/*") {
        SourceLocation begin = loc_;
        int depth = 0;
        while (pos_ < src_.size()) {
          if (src_.substr(pos_, 2) == "/*") {
            ++depth;
            advance();
            advance();
          } else if (src_.substr(pos_, 2) == "*/") {
            --depth;
            advance();
            advance();
            if (depth == 0) break;
          } else {
            advance();
          }
        }
        if (depth != 0) diags_.error({begin, begin}, "unterminated block comment");
      } else {
        break;
      }
    }
  }

  void lex_number(Token& tok) {
    SourceLocation begin = loc_;
    size_t start = pos_;
    bool is_hex = src_.substr(pos_, 2) == "0x" || src_.substr(pos_, 2) == "0X";
    bool is_float = false;
    if (is_hex) {
      advance();
      advance();
      size_t digits_start = pos_;
      while (pos_ < src_.size() && std::isxdigit(static_cast<unsigned char>(src_[pos_]))) advance();
      if (pos_ < src_.size() && src_[pos_] == '.') {
        is_float = true;
        advance();
        while (pos_ < src_.size() && std::isxdigit(static_cast<unsigned char>(src_[pos_]))) advance();
      }
      if (pos_ < src_.size() && (src_[pos_] == 'p' || src_[pos_] == 'P')) {
        is_float = true;
        advance();
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) advance();
        while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) advance();
      }
      if (pos_ == digits_start) diags_.error({begin, loc_}, "hexadecimal literal has no digits");
    } else {
      while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) advance();
      if (pos_ < src_.size() && src_[pos_] == '.') {
        is_float = true;
        advance();
        while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) advance();
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        size_t save = pos_;
        SourceLocation save_loc = loc_;
        advance();
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) advance();
        if (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) {
          is_float = true;
          while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) advance();
        } else {
          pos_ = save;
          loc_ = save_loc;
        }
      }
    }
    std::string digits(src_.substr(start, pos_ - start));
    char suffix = 0;
    if (pos_ < src_.size()) {
      char s = src_[pos_];
      if (s == 'f' || s == 'h') {
        suffix = s;
        is_float = true;
        advance();
      } else if ((s == 'i' || s == 'u') && !is_float) {
        suffix = s;
        advance();
      }
    }
    tok.suffix = suffix;
    if (is_float) {
      tok.kind = TokenKind::FloatLiteral;
      if (!is_hex && suffix != 0 && digits.find_first_of(".eE") == std::string::npos && digits.size() > 1 &&
          digits[0] == '0') {
        diags_.error({begin, loc_}, "leading zeros are not allowed in decimal literals");
      }
      tok.float_value = std::strtod(digits.c_str(), nullptr);
    } else {
      tok.kind = TokenKind::IntLiteral;
      if (!is_hex && digits.size() > 1 && digits[0] == '0') {
        diags_.error({begin, loc_}, "leading zeros are not allowed in decimal literals");
      }
      uint64_t value = 0;
      const int base = is_hex ? 16 : 10;
      for (size_t i = is_hex ? 2 : 0; i < digits.size(); ++i) {
        int d = std::isdigit(static_cast<unsigned char>(digits[i])) ? digits[i] - '0'
                                                                    : std::tolower(digits[i]) - 'a' + 10;
        if (value > (UINT64_MAX - static_cast<uint64_t>(d)) / base) tok.int_overflow = true;
        value = value * base + static_cast<uint64_t>(d);
      }
      tok.int_value = value;
    }
    if (pos_ < src_.size() && is_ident_char(static_cast<unsigned char>(src_[pos_]))) {
      SourceLocation bad = loc_;
      while (pos_ < src_.size() && is_ident_char(static_cast<unsigned char>(src_[pos_]))) advance();
      diags_.error({bad, loc_}, "invalid suffix on numeric literal");
    }
    tok.text = src_.substr(start, pos_ - start);
  }

  std::string_view src_;
  Diagnostics& diags_;
  size_t pos_ = 0;
  SourceLocation loc_{1, 1, 0};
};

}  // namespace

bool is_keyword(std::string_view word) {
  for (std::string_view k : kKeywords) {
    if (k == word) return true;
  }
  return false;
}

bool is_reserved_word(std::string_view word) {
  for (std::string_view k : kReserved) {
    if (k == word) return true;
  }
  return false;
}

std::vector<Token> tokenize(const SourceFile& file, Diagnostics& diags) {
  return Lexer(file, diags).run();
}

}  // namespace vkgemm::wgsl
