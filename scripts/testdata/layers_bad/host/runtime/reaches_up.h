// A runtime header that reaches up into the session: check_layers.py must refuse it.
#include "host/session/session.h"
