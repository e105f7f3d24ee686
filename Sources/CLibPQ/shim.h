#ifndef LIFTBASE_CLIBPQ_SHIM_H
#define LIFTBASE_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
