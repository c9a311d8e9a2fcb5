// The session reaching into the executor's node table: refused (private to host/executor/).
#include "host/executor/node_table.h"
