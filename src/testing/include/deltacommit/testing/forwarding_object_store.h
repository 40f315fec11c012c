// ForwardingObjectStore is part of the core now; this include keeps working.
#pragma once
#include "deltacommit/forwarding_ports.h"  // IWYU pragma: export
