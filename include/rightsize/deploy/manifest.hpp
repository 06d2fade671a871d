#pragma once

// A Kubernetes object as an ordered tree whose values may carry a comment saying where they came
// from. The deploy stage builds these; render writes them as YAML (docs/deploy.md).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rightsize {

class Node {
public:
  // document: a YAML document written as the text of a string (a ConfigMap's config file).
  enum class Kind { map, seq, string, integer, number, boolean, document };

  static Node map() { return Node(Kind::map); }
  static Node seq() { return Node(Kind::seq); }
  static Node str(std::string value);
  static Node integer(long long value);
  // Written in the shortest form that reads back as the same double.
  static Node number(double value);
  static Node boolean(bool value);
  static Node document(Node inner);

  // A map's entry (replaced when the key exists), with an optional comment; returns the value.
  Node& set(std::string key, Node value, std::string comment = {});
  // A sequence's item; returns it.
  Node& push(Node value, std::string comment = {});

  [[nodiscard]] Kind kind() const { return m_kind; }
  // A scalar as YAML text (strings unquoted: the writer quotes them where YAML would misread).
  [[nodiscard]] const std::string& text() const { return m_text; }
  [[nodiscard]] const std::string& comment() const { return m_comment; }
  [[nodiscard]] const std::vector<std::pair<std::string, Node>>& entries() const {
    return m_entries;
  }
  [[nodiscard]] const std::vector<Node>& items() const { return m_items; }
  // A map's value at `key`, or null.
  [[nodiscard]] const Node* find(std::string_view key) const;
  [[nodiscard]] Node* find(std::string_view key);
  // The value at a path of map keys ("spec", "template", ...); null when absent.
  [[nodiscard]] const Node* at(std::initializer_list<std::string_view> path) const;

private:
  explicit Node(Kind k) : m_kind(k) {}
  Kind m_kind = Kind::map;
  std::string m_text;
  std::string m_comment;
  std::vector<std::pair<std::string, Node>> m_entries;
  std::vector<Node> m_items;
};

} // namespace rightsize
