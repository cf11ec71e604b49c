#ifndef CAREBRIDGE_CUDEV_SHIM_H
#define CAREBRIDGE_CUDEV_SHIM_H

#include <libudev.h>

#endif
