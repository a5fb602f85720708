// WGSL lexer: source text -> tokens with source ranges. Numeric literals are decoded here; their range
// against the final type is checked by the resolver.
#pragma once

#include <string_view>
#include <vector>

#include "wgsl/diagnostics.hpp"

namespace vkgemm::wgsl {

enum class TokenKind {
  Identifier,
  IntLiteral,    // suffix: 0 (abstract), 'i', 'u'
  FloatLiteral,  // suffix: 0 (abstract), 'f', 'h'
  Symbol,        // punctuation and operators; text holds the spelling
  EndOfFile,
  Invalid,
};

struct Token {
  TokenKind kind = TokenKind::Invalid;
  std::string_view text;
  SourceRange range;
  uint64_t int_value = 0;     // IntLiteral magnitude
  bool int_overflow = false;  // the literal does not fit in 64 bits
  double float_value = 0.0;   // FloatLiteral value
  char suffix = 0;

  bool is(std::string_view symbol) const { return kind == TokenKind::Symbol && text == symbol; }
  bool is_ident(std::string_view name) const { return kind == TokenKind::Identifier && text == name; }
};

// Tokenizes the whole file. Lexical errors are reported and produce Invalid tokens; the list always ends with
// EndOfFile.
std::vector<Token> tokenize(const SourceFile& file, Diagnostics& diags);

// True for WGSL keywords and reserved words, which cannot be used as identifiers.
bool is_keyword(std::string_view word);
bool is_reserved_word(std::string_view word);

}  // namespace vkgemm::wgsl
