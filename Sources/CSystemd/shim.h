#ifndef CAREBRIDGE_CSYSTEMD_SHIM_H
#define CAREBRIDGE_CSYSTEMD_SHIM_H

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#endif
