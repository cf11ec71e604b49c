# Sourced by guest scripts: brings up the Bluetooth stack in the guest and offers helpers.
#   bt_up [N]            hci_vhci, the system dbus-daemon, btvirt with N (default 3) LE controllers, bluetoothd
#   bt_start_bluetoothd  (re)starts bluetoothd and waits until every controller is powered under it
#   bt_stop_bluetoothd   stops it (SIGTERM) and waits for it to leave the bus
# Logs go to $CAREBRIDGE_OUT (btvirt.log, bluetoothd.log). Everything waits for events; nothing sleeps a fixed time.
harness="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
now() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[guest $(now)] $*"; }
# wait_for SECONDS COMMAND...: polls every 0.1 s, never past the running scenario's deadline (scenarios.sh)
wait_for() {
    local end=$(($(date +%s) + $1))
    shift
    if [ -n "${scenario_deadline:-}" ] && [ "$scenario_deadline" -lt "$end" ]; then end=$scenario_deadline; fi
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -ge "$end" ] && return 1
        sleep 0.1
    done
}
modprobe_kroot() { /sbin/modprobe -d "$CAREBRIDGE_KROOT" -C /run/modprobe.d "$@"; }
mgmt_count() { btmgmt info 2>/dev/null | sed -n 's/^Index list with \([0-9]*\) item.*/\1/p'; }
adapter_powered() {
    dbus-send --system --print-reply --dest=org.bluez "/org/bluez/$1" org.freedesktop.DBus.Properties.Get \
        string:org.bluez.Adapter1 string:Powered 2>/dev/null | grep -q 'boolean true'
}
bluez_on_bus() {
    dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.bluez 2>/dev/null | grep -q 'boolean true'
}

BT_CONTROLLERS=3
bt_start_bluetoothd() {
    /usr/libexec/bluetooth/bluetoothd -n -d -f "$harness/guest/bluetoothd.conf" >>"$CAREBRIDGE_OUT/bluetoothd.log" 2>&1 &
    BLUETOOTHD_PID=$!
    local i
    for ((i = 0; i < BT_CONTROLLERS; i++)); do
        wait_for 60 adapter_powered "hci$i" || { log "bluetoothd did not power hci$i"; return 1; }
    done
    log "bluetoothd $BLUETOOTHD_PID up: hci0..hci$((BT_CONTROLLERS - 1)) powered"
}
bt_stop_bluetoothd() {
    kill "$BLUETOOTHD_PID" 2>/dev/null
    wait "$BLUETOOTHD_PID" 2>/dev/null
    wait_for 20 eval '! bluez_on_bus'
}

bt_up() {
    BT_CONTROLLERS=${1:-3}
    # btvirt opens AF_ALG sockets (ecb(aes), cmac(aes)) right after creating its first controller; loading those
    # modules on demand at that moment is slow under TCG, and the kernel's HCI_Reset of hci0 then times out
    # (-110) and hci0 never reaches bluetoothd. So load them first and instantiate both templates once.
    modprobe_kroot -a hci_vhci af_alg algif_skcipher algif_hash ecb cmac || { log "modprobe failed"; return 1; }
    # Its own warnings (a client disconnected for breaking a limit, say) on stderr into the results, not to a syslog
    # the guest does not have; DBUS_DEBUG_OUTPUT keeps stderr open after --fork.
    DBUS_DEBUG_OUTPUT=1 dbus-daemon --system --fork --print-pid --nosyslog >/run/dbus.pid \
        2>>"$CAREBRIDGE_OUT/dbus-daemon.log" || { log "dbus-daemon failed"; return 1; }
    /usr/bin/python3 -I -S -c "import socket as s
for t, n in (('skcipher', 'ecb(aes)'), ('hash', 'cmac(aes)')): s.socket(s.AF_ALG, s.SOCK_SEQPACKET).bind((t, n))"
    local try
    for try in 1 2 3; do
        btvirt -L -l"$BT_CONTROLLERS" >>"$CAREBRIDGE_OUT/btvirt.log" 2>&1 &
        BTVIRT_PID=$!
        wait_for 30 test -e "/sys/class/bluetooth/hci$((BT_CONTROLLERS - 1))"
        # A controller whose set-up failed (HCI_Reset timed out) never shows up in mgmt.
        wait_for 10 test "$(mgmt_count)" = "$BT_CONTROLLERS" && break
        log "btvirt try $try: only $(mgmt_count) of $BT_CONTROLLERS controllers usable; restarting it"
        kill "$BTVIRT_PID"
        wait "$BTVIRT_PID" 2>/dev/null
        wait_for 10 test ! -e /sys/class/bluetooth/hci0
    done
    [ "$(mgmt_count)" = "$BT_CONTROLLERS" ] || { log "btvirt: controllers not usable"; return 1; }
    bt_start_bluetoothd
}
