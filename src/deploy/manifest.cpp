// The manifest tree (include/rightsize/deploy/manifest.hpp).

#include <rightsize/core/error.hpp>
#include <rightsize/deploy/manifest.hpp>

#include <fmt/format.h>

#include <cmath>

namespace rightsize {

Node Node::str(std::string value) {
  Node n(Kind::string);
  n.m_text = std::move(value);
  return n;
}

Node Node::integer(long long value) {
  Node n(Kind::integer);
  n.m_text = std::to_string(value);
  return n;
}

Node Node::number(double value) {
  if (!std::isfinite(value)) {
    throw InternalError("a manifest number is not finite");
  }
  Node n(Kind::number);
  n.m_text = fmt::format("{}", value);
  return n;
}

Node Node::boolean(bool value) {
  Node n(Kind::boolean);
  n.m_text = value ? "true" : "false";
  return n;
}

Node Node::document(Node inner) {
  Node n(Kind::document);
  n.m_items.push_back(std::move(inner));
  return n;
}

Node& Node::set(std::string key, Node value, std::string comment) {
  if (m_kind != Kind::map) {
    throw InternalError("Node::set on a node that is not a map: " + key);
  }
  value.m_comment = std::move(comment);
  for (auto& [k, v] : m_entries) {
    if (k == key) {
      v = std::move(value);
      return v;
    }
  }
  m_entries.emplace_back(std::move(key), std::move(value));
  return m_entries.back().second;
}

Node& Node::push(Node value, std::string comment) {
  if (m_kind != Kind::seq) {
    throw InternalError("Node::push on a node that is not a sequence");
  }
  value.m_comment = std::move(comment);
  m_items.push_back(std::move(value));
  return m_items.back();
}

const Node* Node::find(std::string_view key) const {
  for (const auto& [k, v] : m_entries) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

Node* Node::find(std::string_view key) {
  for (auto& [k, v] : m_entries) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

const Node* Node::at(std::initializer_list<std::string_view> path) const {
  const Node* n = this;
  for (const auto key : path) {
    n = n->find(key);
    if (n == nullptr) {
      return nullptr;
    }
  }
  return n;
}

} // namespace rightsize
