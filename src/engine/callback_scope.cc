#include "engine/callback_scope.h"

#include <algorithm>

namespace lakeshore {

namespace {
thread_local CallbackScope::Owners tls_owners;
}  // namespace

const CallbackScope::Owners& CallbackScope::Current() { return tls_owners; }

bool CallbackScope::Inside(const void* owner) {
  return std::find(tls_owners.begin(), tls_owners.end(), owner) != tls_owners.end();
}

CallbackScope::CallbackScope(const void* owner) { tls_owners.push_back(owner); }

CallbackScope::~CallbackScope() { tls_owners.pop_back(); }

CallbackScope::Inherit::Inherit(const Owners& owners) : saved_(std::move(tls_owners)) { tls_owners = owners; }

CallbackScope::Inherit::~Inherit() { tls_owners = std::move(saved_); }

}  // namespace lakeshore
