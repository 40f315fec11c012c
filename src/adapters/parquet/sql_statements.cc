#include "adapters/parquet/sql_statements.h"

#include <cctype>

namespace deltacommit::data_internal {
namespace {

bool IsBlank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The end of a quoted run that starts at `begin` (on its opening quote).
size_t QuotedEnd(std::string_view sql, size_t begin, char quote, bool backslash_escapes) {
  size_t i = begin + 1;
  while (i < sql.size()) {
    if (backslash_escapes && sql[i] == '\\') {
      i += 2;
      continue;
    }
    if (sql[i] == quote) {
      // A doubled quote stands for one and does not end the run.
      if (i + 1 < sql.size() && sql[i + 1] == quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    ++i;
  }
  return sql.size();
}

// The tag of a dollar quote ("$tag$" or "$$") starting at `begin`, or empty
// when `begin` is not one (a parameter such as $1 is not).
std::string_view DollarTag(std::string_view sql, size_t begin) {
  size_t i = begin + 1;
  if (i < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i])) != 0) return {};
  while (i < sql.size() && IsWordChar(sql[i])) ++i;
  if (i >= sql.size() || sql[i] != '$') return {};
  return sql.substr(begin, i + 1 - begin);
}

size_t BlockCommentEnd(std::string_view sql, size_t begin) {
  int depth = 0;
  size_t i = begin;
  while (i + 1 < sql.size()) {
    if (sql[i] == '/' && sql[i + 1] == '*') {
      ++depth;
      i += 2;
    } else if (sql[i] == '*' && sql[i + 1] == '/') {
      i += 2;
      if (--depth == 0) return i;
    } else {
      ++i;
    }
  }
  return sql.size();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> SplitSqlStatements(std::string_view sql) {
  std::vector<std::string> out;
  size_t start = 0;
  bool has_code = false;  // anything but blanks and comments since `start`
  auto cut = [&](size_t end) {
    if (has_code) out.emplace_back(Trim(sql.substr(start, end - start)));
    start = end + 1;
    has_code = false;
  };
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    const char next = i + 1 < sql.size() ? sql[i + 1] : '\0';
    if (c == '-' && next == '-') {
      const size_t eol = sql.find('\n', i);
      i = eol == std::string_view::npos ? sql.size() : eol + 1;
    } else if (c == '/' && next == '*') {
      i = BlockCommentEnd(sql, i);
    } else if (c == ';') {
      cut(i);
      ++i;
    } else if (IsBlank(c)) {
      ++i;
    } else {
      has_code = true;
      const bool word_before = i > 0 && IsWordChar(sql[i - 1]);
      if (c == '\'' || c == '"') {
        i = QuotedEnd(sql, i, c, false);
      } else if ((c == 'E' || c == 'e') && next == '\'' && !word_before) {
        i = QuotedEnd(sql, i + 1, '\'', true);
      } else if (std::string_view tag =
                     c == '$' && !word_before ? DollarTag(sql, i) : std::string_view();
                 !tag.empty()) {
        const size_t close = sql.find(tag, i + tag.size());
        i = close == std::string_view::npos ? sql.size() : close + tag.size();
      } else {
        ++i;
      }
    }
  }
  cut(sql.size());
  return out;
}

}  // namespace deltacommit::data_internal
