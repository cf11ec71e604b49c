#!/usr/bin/env bash
# Boots Debian's kernel under QEMU with the host's / shared read-only (virtio-9p) and a writable results share, and
# runs one guest script as root inside; the guest's console is our stdout and its exit status ours.
#
#   run-vm.sh OUTDIR GUEST-SCRIPT [ARGS...]
#
# OUTDIR (host) is writable in the guest at $CAREBRIDGE_OUT; the script and its arguments are host paths (the
# host's / is the guest's /, and the guest starts in our working directory). Environment:
#   CAREBRIDGE_VM_DIR      setup.sh's cache (default /opt/carebridge/vm)
#   CAREBRIDGE_VM_ACCEL    auto (default), tcg or kvm. auto picks KVM only when /dev/kvm is writable and the CPU
#                          has vmx/svm: a /dev/kvm without them is a software hypervisor on which a stock kernel
#                          runs slower than under TCG
#   CAREBRIDGE_VM_TIMEOUT  seconds before QEMU is killed (default 900; GuestRun.swift sets it from the boot's and
#                          each scenario's budget, with room for one scenario run again)
#   CAREBRIDGE_VM_MEM      guest memory (default 1G)
#   CAREBRIDGE_VM_ENV      extra "KEY=value ..." for the guest script
# Exit status: the guest script's; 124 = QEMU timed out; 125 = the guest wrote no status.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cache="${CAREBRIDGE_VM_DIR:-/opt/carebridge/vm}"
[ $# -ge 2 ] || { echo "usage: run-vm.sh OUTDIR GUEST-SCRIPT [ARGS...]" >&2; exit 2; }
outdir="$(cd "$1" && pwd)" || exit 2
shift
version="$(cat "$cache/kernel-version" 2>/dev/null)" || { echo "run-vm: run setup.sh first ($cache)" >&2; exit 2; }
kernel="$cache/vmlinux-$version"
[ -f "$kernel" ] || kernel="$cache/kroot/boot/vmlinuz-$version"
rm -f "$outdir/status"

# The command: our working directory, environment and quoted arguments, base64 on the kernel command line (the
# guest decodes it).
command="cd $(printf %q "$PWD") && CAREBRIDGE_KROOT=$(printf %q "$cache/kroot") ${CAREBRIDGE_VM_ENV:-} $(printf '%q ' "$@")"
encoded="$(printf '%s' "$command" | base64 -w0)"

accel="${CAREBRIDGE_VM_ACCEL:-auto}"
if [ "$accel" = auto ]; then
    if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then accel=kvm; else accel=tcg; fi
fi
case "$accel" in
    kvm) accel_args=(-accel kvm -cpu host) ;;
    *) accel_args=(-accel tcg,thread=multi -cpu max) ;;
esac
# One virtual CPU per host core, at most 4 (CAREBRIDGE_VM_CPUS to choose): under TCG each is a host thread
# (thread=multi), so the guest's btvirt, bluetoothd, simulators and bridge run side by side instead of taking turns on
# one emulated CPU (with one, on 2 cores, the bridge never saw an advertisement).
host_cpus="$(nproc)"
cpus="${CAREBRIDGE_VM_CPUS:-$((host_cpus < 4 ? host_cpus : 4))}"
echo "run-vm: accel=$accel cpus=$cpus kernel=$version out=$outdir" >&2

timeout -k 10 "${CAREBRIDGE_VM_TIMEOUT:-900}" qemu-system-x86_64 "${accel_args[@]}" \
    -m "${CAREBRIDGE_VM_MEM:-1G}" -smp "$cpus" \
    -nodefaults -no-user-config -display none -no-reboot \
    -serial stdio -monitor none \
    -kernel "$kernel" -initrd "$cache/initrd.img" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check cryptomgr.notests=1 carebridge_init=$here/guest/init.sh carebridge_cmd=$encoded" \
    -fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
    -fsdev local,id=out,path="$outdir",security_model=none \
    -device virtio-9p-pci,fsdev=out,mount_tag=out \
    -device virtio-rng-pci </dev/null
qemu=$?
if [ $qemu -ne 0 ]; then
    echo "run-vm: qemu exited $qemu (124: timed out after ${CAREBRIDGE_VM_TIMEOUT:-900} s)" >&2
    exit $qemu
fi
[ -f "$outdir/status" ] || { echo "run-vm: the guest wrote no status" >&2; exit 125; }
exit "$(cat "$outdir/status")"
