#!/bin/bash
# Runs scenarios against the real bluetoothd in one guest boot, one after another (inside the guest, as root):
#
#   scenarios.sh CAREBRIDGE SCENARIO...
#
# Brings the stack up once (btvirt: hci0 for the bridge, hci1 and hci2 for the simulated devices), then runs each
# scenario_NAME below. A scenario starts simulators (Tests/RealBlueZTests/Simulators) and `carebridge` on hci0,
# waits for events (never fixed sleeps), stops the bridge with SIGTERM and keeps the store. Everything a test
# checks lands in $CAREBRIDGE_OUT/NAME/ on the host: store.sqlite (which the host exports to samples.json and
# events.json), bridge.log, bridge.status, the simulators' logs and their sent.jsonl, timings.txt;
# $CAREBRIDGE_OUT/NAME/status is the scenario's own verdict on its steps (0 = every wait succeeded). Stores live on
# the guest's tmpfs (SQLite WAL needs it). Between scenarios every link is dropped and every device removed from
# bluetoothd, so each starts unpaired.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/bluetooth.sh"
export TZ=UTC
carebridge="$1"
shift
tests="$(cd "$harness/.." && pwd)"
simulators="$tests/Simulators"
plan="$tests/Fixtures/plan.json"
python=/usr/bin/python3
mkdir -p /run/stores

# --- helpers (used by the scenarios; $dir and $store are the current scenario's) -------------------------------

# step DESCRIPTION COMMAND...: runs a wait; a failure is logged and marks the scenario failed (it goes on, so the
# results show how far it got).
step() {
    local what="$1"
    shift
    if "$@"; then
        log "ok: $what"
    else
        log "FAILED: $what"
        scenario_failed=1
        return 1
    fi
}
mark() { echo "$1 $(now)" >>"$dir/timings.txt"; }
# simulator NAME SCRIPT ARGS...: starts a simulated device; its log is NAME.log, what it sent NAME.sent.jsonl
simulator() {
    local name="$1" script="$2"
    shift 2
    $python "$simulators/$script" --tag "$name" --sent "$dir/$name.sent.jsonl" --linger "$@" >"$dir/$name.log" 2>&1 &
    echo $! >>/run/scenario.pids
    eval "pid_${name//-/_}=$!"
}
# log_has FILE PATTERN
log_has() { grep -q -- "$2" "$1" 2>/dev/null; }
wait_log() { wait_for "$3" log_has "$1" "$2"; }
# log_count_at_least FILE PATTERN N: PATTERN is on at least N lines of FILE
log_count_at_least() { [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; }
# the bridge logs every store transaction at debug level: samples.inserted=N
stored() { grep -o 'samples.inserted=[0-9]*' "$dir/bridge.log" 2>/dev/null | awk -F= '{ s += $2 } END { print s + 0 }'; }
stored_at_least() { [ "$(stored)" -ge "$1" ]; }
wait_stored() { wait_for "$2" stored_at_least "$1"; }
# bridge COMMAND ARGS...: `carebridge COMMAND` on hci0 in the background (run and record)
bridge() {
    local command="$1"
    shift
    CAREBRIDGE_LOG_LEVEL=debug "$carebridge" "$command" --adapter hci0 "$@" >"$dir/bridge.log" 2>&1 &
    bridge_pid=$!
    echo $bridge_pid >>/run/scenario.pids
    mark "bridge-started"
}
run_bridge() { bridge run --store "$store" --plan "$plan" --time-zone UTC "$@"; }
# stop_bridge: SIGTERM, then the exit status (and how long the graceful stop took) into bridge.status
stop_bridge() {
    local start end status
    start=$(now)
    kill -TERM "$bridge_pid" 2>/dev/null
    local waited=0
    while kill -0 "$bridge_pid" 2>/dev/null && [ $waited -lt 600 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    if kill -0 "$bridge_pid" 2>/dev/null; then
        kill -KILL "$bridge_pid"
        log "bridge did not stop within 60 s of SIGTERM"
    fi
    wait "$bridge_pid"
    status=$?
    end=$(now)
    echo "$status" >"$dir/bridge.status"
    echo "sigterm-to-exit $(awk "BEGIN { print $end - $start }")" >>"$dir/timings.txt"
    log "bridge exited $status"
}
# keep_store [STORE [PREFIX]]: the store (the scenario's, or another) into the results share as PREFIXstore.sqlite,
# with its WAL if the bridge left one. The host exports it (GuestRun.swift: `carebridge samples` and `events` into
# PREFIXsamples.json and PREFIXevents.json): two more starts of the bridge's binary here took about 20 s of each
# scenario under TCG, on the host about a second.
keep_store() {
    local target="${1:-$store}" prefix="${2:-}"
    cp "$target" "$dir/${prefix}store.sqlite" 2>>"$dir/export.log" || return 1
    if [ -f "$target-wal" ]; then cp "$target-wal" "$dir/${prefix}store.sqlite-wal" 2>>"$dir/export.log"; fi
}
stop_simulators() {
    local pid
    for pid in $(cat /run/scenario.pids 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
    for pid in $(cat /run/scenario.pids 2>/dev/null); do wait "$pid" 2>/dev/null; done
    : >/run/scenario.pids
}
# Every link down, every device (and bond) gone: the next scenario starts from scratch. The harness may remove
# devices; the bridge never does.
reset_bluetooth() {
    # busctl (systemd's, a C program) instead of python3-dbus: a Python start with dbus took about 10 s of each
    # scenario under TCG.
    local path
    for path in $(busctl --system --list tree org.bluez 2>/dev/null | grep -E '^/org/bluez/hci[0-9]+/dev_[0-9A-F_]+$'); do
        busctl --system --timeout=20 call org.bluez "${path%/dev_*}" org.bluez.Adapter1 RemoveDevice o "$path" \
            || echo "RemoveDevice $path failed"
    done
}

# --- scenarios -------------------------------------------------------------------------------------------------

# A heart-rate strap: 40 notifications; after 15 the strap drops the link, the bridge reconnects and gets the rest.
# The run is also recorded (run --record); replaying the recording into a fresh store must give the same samples.
scenario_heart_rate() {
    simulator strap heart_rate.py --adapter hci1 --count 40 --interval-ms 100 --drop-after 15
    step "the strap advertises" wait_log "$dir/strap.log" "advertising as" 90
    run_bridge --record /run/stores/heart-rate-recording
    step "the strap sent 15 before dropping the link" wait_log "$dir/strap.log" "dropping the link" 120
    mark "link-dropped"
    step "the strap streams again after the reconnect" wait_log "$dir/strap.log" "streaming from #15" 120
    mark "reconnected"
    step "the strap sent all 40" wait_log "$dir/strap.log" "MARK done" 120
    step "80 samples stored" wait_stored 80 60
    stop_bridge
    step "the strap saw the bridge unsubscribe and disconnect" wait_log "$dir/strap.log" "unsubscribed 2A37" 30
    cp /run/stores/heart-rate-recording/*.jsonl "$dir/recording.jsonl"
    step "replay of the run's recording" "$carebridge" replay --store /run/stores/heart-rate-replay.sqlite \
        --plan "$plan" --time-zone UTC "$dir/recording.jsonl" >"$dir/replay.txt" 2>&1
    keep_store /run/stores/heart-rate-replay.sqlite replay-
}

# A weight scale that needs a bond (Just Works) and its clock set, then indicates three stored weigh-ins.
scenario_weight_scale() {
    simulator scale weight_scale.py --adapter hci1
    step "the scale advertises" wait_log "$dir/scale.log" "advertising as" 90
    run_bridge --set-device-clock
    step "bonded" wait_log "$dir/scale.log" "bonded" 120
    step "clock set by the bridge" wait_log "$dir/scale.log" "clock set to" 120
    step "three weigh-ins confirmed" wait_log "$dir/scale.log" "MARK done" 120
    step "3 samples stored" wait_stored 3 60
    stop_bridge
}

# The same scale with a fixed passkey: the bridge is given it with --passkey.
scenario_passkey() {
    simulator scale weight_scale.py --adapter hci1 --passkey 123456 --weights 80.10,80.25
    step "the scale advertises" wait_log "$dir/scale.log" "advertising as" 90
    run_bridge --set-device-clock --passkey 123456
    step "bonded with the passkey" wait_log "$dir/scale.log" "bonded" 120
    step "two weigh-ins confirmed" wait_log "$dir/scale.log" "MARK done" 120
    step "2 samples stored" wait_stored 2 60
    stop_bridge
}

# A thermometer: intermediate temperatures (never stored), a final one; it goes away and comes back for another.
scenario_thermometer() {
    simulator thermometer thermometer.py --adapter hci1
    step "the thermometer advertises" wait_log "$dir/thermometer.log" "advertising as" 90
    run_bridge
    step "the thermometer went away after its first measurement" wait_log "$dir/thermometer.log" "MARK gone" 120
    step "and came back with the second" wait_log "$dir/thermometer.log" "MARK done" 150
    step "2 samples stored" wait_stored 2 60
    stop_bridge
}

# A blood-pressure cuff: cuff pressure while measuring (never stored), then the reading.
scenario_blood_pressure() {
    simulator cuff blood_pressure.py --adapter hci1
    step "the cuff advertises" wait_log "$dir/cuff.log" "advertising as" 90
    run_bridge
    step "the reading was confirmed" wait_log "$dir/cuff.log" "MARK done" 120
    step "4 samples stored" wait_stored 4 60
    stop_bridge
}

# A pulse oximeter: ten continuous readings, then a spot-check.
scenario_pulse_oximeter() {
    simulator oximeter pulse_oximeter.py --adapter hci1 --count 10
    step "the oximeter advertises" wait_log "$dir/oximeter.log" "advertising as" 90
    run_bridge
    step "the spot-check was confirmed" wait_log "$dir/oximeter.log" "MARK done" 120
    step "22 samples stored" wait_stored 22 60
    stop_bridge
}

# A Mi Body Composition Scale 2: two weigh-ins broadcast as changing 181B service data, never connected.
scenario_mi_scale() {
    # A broadcast is heard only while the bridge discovers: start it first (a loaded TCG guest can take 10 s to
    # get there, longer than the first weigh-in lasts), then the scale.
    run_bridge
    step "the bridge discovers" wait_log "$dir/bridge.log" "adapter ready, discovering" 120
    simulator mi mi_scale.py --adapter hci2
    step "two weigh-ins broadcast" wait_log "$dir/mi.log" "MARK done" 120
    step "4 samples stored" wait_stored 4 60
    stop_bridge
}

# A glucose meter that only speaks when asked (Record Access Control Point): the first connection downloads its
# three stored records, the second (after two new readings) only the new ones; nothing is deleted on the meter.
scenario_glucose_meter() {
    simulator meter glucose_meter.py --adapter hci1 --records 3 --new 2
    step "the meter advertises" wait_log "$dir/meter.log" "advertising as" 90
    run_bridge
    step "bonded" wait_log "$dir/meter.log" "bonded" 120
    step "first download complete" wait_log "$dir/meter.log" "MARK download-1" 120
    step "3 samples stored" wait_stored 3 60
    step "second download complete" wait_log "$dir/meter.log" "MARK done" 180
    step "5 samples stored" wait_stored 5 60
    stop_bridge
}

# A Generic Health Sensor pulse oximeter (GHS 1.0): live SpO2/pulse observations after Start Send Live
# Observations, then its four stored observations (segmented) through RACP; the second visit asks only for records
# after the last one stored (RACP >= record number) and stores the one taken in between; nothing is deleted.
scenario_ghs_oximeter() {
    simulator ghs ghs_oximeter.py --adapter hci1 --live 3 --records 4 --segment 12
    step "the GHS oximeter advertises" wait_log "$dir/ghs.log" "advertising as" 90
    run_bridge
    step "live observations sent" wait_log "$dir/ghs.log" "MARK live" 120
    step "first download complete" wait_log "$dir/ghs.log" "MARK download-1" 120
    step "10 samples stored" wait_stored 10 60
    step "second download complete" wait_log "$dir/ghs.log" "MARK done" 180
    step "11 samples stored" wait_stored 11 60
    stop_bridge
}

# A multi-user scale with the User Data Service: the user chose consent code 1234 (`carebridge devices consent`,
# no slot); the first visit registers a new user (the scale gives the next free index), consents and gets that
# user's weigh-in and body composition; the second visit consents with the kept index directly.
scenario_uds_scale() {
    simulator scale uds_scale.py --adapter hci1 --other-users 2
    step "the scale advertises" wait_log "$dir/scale.log" "advertising as" 90
    local address
    address=$(sed -n "s/.*advertising as .* (\([0-9A-F:]*\))$/\1/p" "$dir/scale.log" | head -1)
    step "consent code recorded for $address" "$carebridge" devices consent "$address" --consent-code 1234 \
        --store "$store" >"$dir/consent.txt" 2>&1
    run_bridge
    step "bonded" wait_log "$dir/scale.log" "bonded" 120
    step "first visit: registered, consented, weigh-in confirmed" wait_log "$dir/scale.log" "MARK visit-1" 120
    step "second visit: consented with the kept index" wait_log "$dir/scale.log" "MARK done" 180
    step "6 samples stored" wait_stored 6 60
    stop_bridge
    "$carebridge" devices list --store "$store" --json >"$dir/devices.json" 2>>"$dir/export.log"
}

# An Omron BLEsmart-style cuff: it notifies its Current Time, waits for the bridge to write it back, then
# indicates its two stored readings.
scenario_omron_cuff() {
    simulator cuff omron_cuff.py --adapter hci1
    step "the cuff advertises" wait_log "$dir/cuff.log" "advertising as" 90
    run_bridge
    step "bonded" wait_log "$dir/cuff.log" "bonded" 120
    step "Current Time written back" wait_log "$dir/cuff.log" "clock set to" 120
    step "the readings were confirmed" wait_log "$dir/cuff.log" "MARK done" 120
    step "8 samples stored" wait_stored 8 60
    stop_bridge
}

# An Omron memory-map cuff of the one-channel FE4A family (HEM-7380T1): bonded by the system, no unlock; the bridge
# reads every slot of both user areas (answers in pieces on one channel) and never writes the cuff's memory.
scenario_omron_memory_cuff() {
    simulator cuff omron_memory_cuff.py --adapter hci1
    step "the cuff advertises" wait_log "$dir/cuff.log" "advertising as" 90
    run_bridge
    step "bonded" wait_log "$dir/cuff.log" "bonded" 120
    step "transmission ended" wait_log "$dir/cuff.log" "MARK done" 240
    step "12 samples stored" wait_stored 12 60
    stop_bridge
}

# An Omron memory-map cuff of the classic multi-channel family (HEM-7361T): bonded, unlocked with the stored key on
# its unlock characteristic, commands in pieces over four transmit and answers over four receive characteristics;
# on first contact the bridge reads the index block and every slot of both user areas, and never writes the memory.
scenario_omron_classic_cuff() {
    simulator cuff omron_memory_cuff.py --adapter hci1 --family classic
    step "the cuff advertises" wait_log "$dir/cuff.log" "advertising as" 90
    run_bridge
    step "bonded" wait_log "$dir/cuff.log" "bonded" 120
    step "unlocked" wait_log "$dir/cuff.log" "unlocked" 120
    step "transmission ended" wait_log "$dir/cuff.log" "MARK done" 240
    step "12 samples stored" wait_stored 12 60
    stop_bridge
}

# An Omron HBF-702T body-composition scale (WLC class, openScale's protocol facts): bonded, unlocked with the stored
# key, records of two users in its 48-byte slots; on each of two visits the bridge reads every slot of the four users
# (no index pointers) in reads of at most 32 bytes (the scale refuses longer ones), never writes its memory and never
# programs a key. The first visit stores the three records (weight, fat, BMI, BMR), the second nothing new.
scenario_omron_hbf_scale() {
    simulator scale omron_hbf_scale.py --adapter hci1 --model HBF-702T
    step "the scale advertises" wait_log "$dir/scale.log" "advertising as" 90
    run_bridge
    step "bonded" wait_log "$dir/scale.log" "bonded" 120
    step "unlocked" wait_log "$dir/scale.log" "unlocked" 120
    step "first visit: transmission ended" wait_log "$dir/scale.log" "MARK visit-1" 600
    step "12 samples stored" wait_stored 12 60
    step "second visit: transmission ended" wait_log "$dir/scale.log" "MARK done" 600
    step "the second session completed" wait_for 60 log_count_at_least "$dir/bridge.log" "device session completed" 2
    stop_bridge
}

# A Eufy P2 scale (T9148): on each of two visits the bridge logs in with the AES handshake (C0-C3, the key from the
# scale's address) and the scale sends a weighing (live frames, then the final one, shaped like a T9149's published
# frames); only the final weights are stored, never bytes 8-10 as an impedance.
scenario_eufy_scale() {
    simulator scale eufy_scale.py --adapter hci1 --weighings 80.00:500,80.35:0
    step "the scale advertises" wait_log "$dir/scale.log" "advertising as" 90
    run_bridge
    step "first visit: logged in and weighed" wait_log "$dir/scale.log" "MARK visit-1" 280
    step "second visit: logged in and weighed" wait_log "$dir/scale.log" "MARK done" 180
    step "2 samples stored" wait_stored 2 60
    stop_bridge
}

# The same scale failing its login twice: its first C1 has a broken XOR, then it answers under another address's
# key. The bridge refuses both answers, says why and stores nothing; the scale sends no weight.
scenario_eufy_refused() {
    simulator scale eufy_scale.py --adapter hci1 --faults corrupt-c1,wrong-key --weighings ""
    step "the scale advertises" wait_log "$dir/scale.log" "advertising as" 90
    run_bridge
    step "first login refused" wait_log "$dir/scale.log" "MARK visit-1" 280
    step "second login refused" wait_log "$dir/scale.log" "MARK done" 180
    step "the bridge said why" wait_log "$dir/bridge.log" "does not decrypt with the key" 60
    stop_bridge
}

# A Wellue O2Ring with a night's and a nap's recording: the first visit reads both files (blocks over the vendor
# service, answers in 20-byte pieces) and a live value; the second visit finds nothing new to read and the finger
# out, so stores nothing. Nothing is ever written but read requests.
scenario_o2ring() {
    simulator ring viatom_ring.py --adapter hci1 --expect "$dir/ring.expect.jsonl"
    step "the ring advertises" wait_log "$dir/ring.log" "advertising as" 90
    run_bridge
    step "first visit: both files and a live value read" wait_log "$dir/ring.log" "MARK visit-1" 280
    # An SpO2 per expected reading, a pulse rate where it is not null, and the live value's two.
    local first
    first=$(($(wc -l <"$dir/ring.expect.jsonl") * 2 - $(grep -c '"pulse": null' "$dir/ring.expect.jsonl") + 2))
    step "$first samples stored" wait_stored "$first" 90
    step "second visit done" wait_log "$dir/ring.log" "MARK done" 240
    step "the second session completed" wait_for 60 log_count_at_least "$dir/bridge.log" "device session completed" 2
    stop_bridge
}

# bluetoothd restarts in the middle of a session: the strap pauses after 12 notifications, bluetoothd is
# restarted, the strap registers again with the new one, the bridge reconnects and gets the other 18.
scenario_bluetoothd_restart() {
    simulator strap heart_rate.py --adapter hci1 --count 30 --interval-ms 100 --pause-after 12
    step "the strap advertises" wait_log "$dir/strap.log" "advertising as" 90
    run_bridge
    step "12 notifications sent" wait_log "$dir/strap.log" "MARK paused" 120
    step "24 samples stored before the restart" wait_stored 24 60
    mark "bluetoothd-stop"
    bt_stop_bluetoothd
    step "bluetoothd restarted" bt_start_bluetoothd
    mark "bluetoothd-started"
    step "the bridge noticed" wait_log "$dir/bridge.log" "bluetoothd left the bus" 30
    step "the strap sent the rest" wait_log "$dir/strap.log" "MARK done" 180
    step "60 samples stored" wait_stored 60 60
    stop_bridge
}

# `carebridge record` against the real daemon, then `carebridge replay` of the file into a fresh store.
scenario_record_replay() {
    simulator strap heart_rate.py --adapter hci1 --count 20 --interval-ms 100
    step "the strap advertises" wait_log "$dir/strap.log" "advertising as" 90
    # btmon captures hci0 (the bridge's side) to a btsnoop file at the same time: the host imports it with
    # `carebridge import btsnoop` and compares it with the recording (a real HCI capture of a real session).
    btmon -i hci0 -w "$dir/capture.btsnoop" >"$dir/btmon.log" 2>&1 &
    echo $! >>/run/scenario.pids
    step "btmon captures" wait_for 30 test -s "$dir/capture.btsnoop"
    bridge record --out /run/stores/session.jsonl
    step "the strap sent 20" wait_log "$dir/strap.log" "MARK done" 120
    # Until it is committed, the recording is written to session.jsonl.XXXXXX.partial next to it.
    step "the recording has 20 notifications" wait_for 60 eval \
        "[ \"\$(cat /run/stores/session.jsonl*.partial | grep -c '\"notification\"')\" -ge 20 ]"
    stop_bridge
    cp /run/stores/session.jsonl "$dir/session.jsonl"
    step "replay" "$carebridge" replay --store "$store" --plan "$plan" --time-zone UTC \
        /run/stores/session.jsonl >"$dir/replay.txt" 2>&1
}

# `carebridge scan` with a heart-rate strap (hci1) and a Mi scale broadcasting (hci2) at the same time.
scenario_scan() {
    simulator strap heart_rate.py --adapter hci1 --count 0
    simulator mi mi_scale.py --adapter hci2 --weigh-ins 70.0:480,70.0:480,70.0:480 --frame-ms 2500
    step "the strap advertises" wait_log "$dir/strap.log" "advertising as" 90
    step "the scale advertises" wait_log "$dir/mi.log" "advertising as" 90
    "$carebridge" scan --adapter hci0 --timeout 12 --json >"$dir/scan.json" 2>"$dir/bridge.log"
    echo $? >"$dir/bridge.status"
}

# Notification → completed event, for the report (no timed test): 60 notifications at 4 per second (a rate the
# emulated guest keeps up with, so the figure is latency, not a backlog) through carebridge-bench's live path,
# matched by payload with the strap's send times.
scenario_latency() {
    local bench="${carebridge}-bench"
    if [ ! -x "$bench" ]; then
        echo "carebridge-bench not built next to $carebridge" >"$dir/latency.txt"
        return 0
    fi
    simulator strap heart_rate.py --adapter hci1 --count 60 --interval-ms 250
    step "the strap advertises" wait_log "$dir/strap.log" "advertising as" 90
    "$bench" --real-bluez-latency hci0 "$dir/strap.sent.jsonl" 60 >"$dir/latency.txt" 2>&1 &
    local bench_pid=$!
    echo $bench_pid >>/run/scenario.pids
    step "the strap sent 60" wait_log "$dir/strap.log" "MARK done" 240
    step "the benchmark finished" wait_for 120 eval "! kill -0 $bench_pid 2>/dev/null"
}

# --- main ------------------------------------------------------------------------------------------------------

log "scenarios: $*"
started=$(now)
bt_up 3 || exit 1
mark_boot=$(now)
echo "stack-up $mark_boot" >"$CAREBRIDGE_OUT/timings.txt"
# Wall clock minus uptime: the bridge's log lines carry wall time, every mark here uptime (Harness/timings.py).
echo "uptime-epoch $(awk -v epoch="$EPOCHREALTIME" '{ printf "%.3f\n", epoch - $1 }' /proc/uptime)" >>"$CAREBRIDGE_OUT/timings.txt"
: >/run/scenario.pids
failures=0
# run_scenario NAME: one scenario in $CAREBRIDGE_OUT/NAME; sets scenario_failed.
run_scenario() {
    name="$1"
    dir="$CAREBRIDGE_OUT/$name"
    store="/run/stores/$name.sqlite"
    mkdir -p "$dir"
    scenario_failed=0
    log "=== scenario $name"
    begin=$(now)
    echo "start $begin" >"$dir/timings.txt"
    # Each scenario has a budget of its own (CAREBRIDGE_SCENARIO_BUDGET seconds, from the host): its waits end at
    # the deadline, so an overrun fails this scenario alone and leaves the next ones (and a retry) their budgets.
    local budget="${CAREBRIDGE_SCENARIO_BUDGET:-300}"
    # A long scenario (CAREBRIDGE_LONG_SCENARIOS, comma-separated, from the host) has CAREBRIDGE_LONG_SCENARIO_BUDGET
    # seconds: the HBF scale's two visits read 480 record parts.
    case ",${CAREBRIDGE_LONG_SCENARIOS:-}," in
        *",$name,"*) budget="${CAREBRIDGE_LONG_SCENARIO_BUDGET:-$((budget * 3))}" ;;
    esac
    scenario_deadline=$(($(date +%s) + budget))
    "scenario_${name//-/_}" >>"$dir/scenario.log" 2>&1
    if [ "$(date +%s)" -ge "$scenario_deadline" ]; then
        log "FAILED: scenario $name over its budget of $budget s" >>"$dir/scenario.log"
        scenario_failed=1
    fi
    unset scenario_deadline
    mark "scenario-done"
    stop_simulators
    mark "simulators-stopped"
    [ -f "$store" ] && keep_store
    mark "exported"
    echo "$scenario_failed" >"$dir/status"
    log "=== scenario $name: $([ "$scenario_failed" = 0 ] && echo ok || echo FAILED) in $(awk "BEGIN { print $(now) - $begin }") s"
    sed 's/^/    /' "$dir/scenario.log"
}
# kernel_oopsed: the kernel's taint has D (an oops or BUG since boot); its Bluetooth state cannot be trusted after.
# CAREBRIDGE_SIMULATE_OOPS=NAME (in CAREBRIDGE_VM_ENV) makes it true after scenario NAME, once per results share,
# to check the host's fresh boot by hand: the real fault cannot be produced on demand.
kernel_oopsed() {
    if [ -n "${CAREBRIDGE_SIMULATE_OOPS:-}" ] && [ "$name" = "$CAREBRIDGE_SIMULATE_OOPS" ] \
        && [ ! -f "$CAREBRIDGE_OUT/simulated-oops" ]; then
        : >"$CAREBRIDGE_OUT/simulated-oops"
        return 0
    fi
    [ $(($(cat /proc/sys/kernel/tainted 2>/dev/null || echo 0) & 128)) -ne 0 ]
}
scenarios=("$@")
for index in "${!scenarios[@]}"; do
    name="${scenarios[$index]}"
    run_scenario "$name"
    if kernel_oopsed; then
        # A kernel oops (a general protection fault in hci_chan_del under l2cap_sock_release has been seen on a
        # reconnect) leaves the stack broken for every later scenario and for a retry in this boot. Stop here and
        # ask the host for a fresh guest: the failed scenario again (its results kept as NAME.crashed) and the rest.
        log "the guest kernel oopsed during scenario $name; asking the host for a fresh boot"
        dmesg | grep -A 60 -E 'general protection fault|Oops|BUG:' | head -80 >"$CAREBRIDGE_OUT/$name/oops.txt"
        rest=("${scenarios[@]:$((index + 1))}")
        if [ "$scenario_failed" != 0 ]; then
            mv "$CAREBRIDGE_OUT/$name" "$CAREBRIDGE_OUT/$name.crashed"
            rest=("$name" "${rest[@]}")
        fi
        echo "the guest kernel oopsed during scenario $name (scenario $([ "$scenario_failed" = 0 ] && echo passed || echo failed))" \
            >>"$CAREBRIDGE_OUT/retried.txt"
        [ ${#rest[@]} -eq 0 ] || echo "${rest[*]}" >"$CAREBRIDGE_OUT/reboot.txt"
        break
    fi
    if ! kill -0 "$BLUETOOTHD_PID" 2>/dev/null; then
        # bluetoothd 5.66 under this emulated kernel now and then crashes on a reconnect to a bonded device
        # ("Elevating security level since LTK is available", setsockopt(BT_SECURITY) EINVAL, then SIGSEGV), and
        # every later scenario would fail without a daemon. Not the bridge's doing: restart the daemon, and run a
        # failed scenario once more from scratch. Both are written to retried.txt, which the host prints.
        log "bluetoothd $BLUETOOTHD_PID died during scenario $name; restarting it"
        echo "bluetoothd died during scenario $name (scenario $([ "$scenario_failed" = 0 ] && echo passed || echo failed))" \
            >>"$CAREBRIDGE_OUT/retried.txt"
        bt_start_bluetoothd || { log "bluetoothd cannot be restarted"; failures=$((failures + 1)); break; }
        if [ "$scenario_failed" != 0 ]; then
            reset_bluetooth >>"$CAREBRIDGE_OUT/reset.log" 2>&1
            mv "$CAREBRIDGE_OUT/$name" "$CAREBRIDGE_OUT/$name.crashed"
            rm -f "/run/stores/$name.sqlite" "/run/stores/$name.sqlite-wal" "/run/stores/$name.sqlite-shm"
            echo "scenario $name run again after the crash" >>"$CAREBRIDGE_OUT/retried.txt"
            run_scenario "$name"
        fi
    fi
    [ "$scenario_failed" = 0 ] || failures=$((failures + 1))
    reset_bluetooth >>"$CAREBRIDGE_OUT/reset.log" 2>&1
    mark "end"
done
echo "scenarios $(awk "BEGIN { print $(now) - $started }")" >>"$CAREBRIDGE_OUT/timings.txt"
cp /run/modprobe.log "$CAREBRIDGE_OUT/" 2>/dev/null
exit $failures
