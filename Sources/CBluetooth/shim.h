#ifndef CAREBRIDGE_CBLUETOOTH_SHIM_H
#define CAREBRIDGE_CBLUETOOTH_SHIM_H

#include <bluetooth/bluetooth.h>

#endif
