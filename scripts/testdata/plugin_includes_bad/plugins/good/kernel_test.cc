// A plugin test that runs its kernel through the host: it belongs in tests/.
#include "gtest/gtest.h"
#include "host/session/session.h"
#  include <registry/plugin_registry.h>
