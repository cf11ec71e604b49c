#!/usr/bin/env bash
# Prepares the real-bluetoothd test tier on this machine (idempotent; about 35 s the first time, instant after):
# Debian's own kernel unpacked into a cache directory (never /boot or /lib/modules), its uncompressed ELF vmlinux
# (PVH boot skips about 6 s of decompression under TCG), and a tiny initramfs that mounts the host's / read-only
# over virtio-9p. The packages it needs (qemu-system-x86, bluez, bluez-test-tools, busybox-static, kmod, cpio,
# python3-dbus, python3-gi) are installed by .ci/run; this script only checks for them.
#
#   Tests/RealBlueZTests/Harness/setup.sh            # cache in $CAREBRIDGE_VM_DIR (default /opt/carebridge/vm)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${CAREBRIDGE_VM_DIR:-/opt/carebridge/vm}"

missing=()
for tool in qemu-system-x86_64 btvirt busybox depmod modprobe cpio gzip apt-get dpkg; do
    command -v "$tool" >/dev/null || [ -x "/usr/bin/$tool" ] || [ -x "/sbin/$tool" ] || missing+=("$tool")
done
[ -x /usr/libexec/bluetooth/bluetoothd ] || missing+=(bluetoothd)
if [ ${#missing[@]} -gt 0 ]; then
    echo "vm-setup: missing ${missing[*]} (apt-get install qemu-system-x86 bluez bluez-test-tools busybox-static kmod cpio)" >&2
    exit 1
fi
# busybox-static, not the dynamic busybox: the initramfs has no libc.
file -L "$(command -v busybox)" 2>/dev/null | grep -q 'statically linked' \
    || { ldd "$(command -v busybox)" 2>&1 | grep -q 'not a dynamic'; } \
    || { echo "vm-setup: busybox is not static (apt-get install busybox-static)" >&2; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

# The guest's kernel: Debian 12's 6.12 (long-term) kernel by default. Its 6.1 kernel (6.1.0-56, 6.1.192) faults in
# hci_chan_del under l2cap_sock_release (a freed hci_chan) when a bonded LE link is dropped right after it comes
# back up, which the glucose meter's and the multi-user scale's second visits do: seen in four boots out of five
# in one CI run. CAREBRIDGE_VM_KERNEL names another meta-package (linux-image-amd64 for 6.1).
meta="${CAREBRIDGE_VM_KERNEL:-linux-image-6.12-amd64}"
kernel_package() { apt-cache depends "$meta" 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }
package="$(kernel_package)"
if [ -z "$package" ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq  # a fresh machine may have no package lists yet
    package="$(kernel_package)"
fi
[ -n "$package" ] || { echo "vm-setup: cannot resolve $meta (apt-get update?)" >&2; exit 1; }
version="${package#linux-image-}"
stamp="$cache/ready-$version-$(sha256sum <"$here/mkinitrd.sh" | cut -c1-12)"
if [ -f "$stamp" ]; then
    echo "vm-setup: ready ($cache, kernel $version)"
    exit 0
fi

echo "vm-setup: unpacking $package into $cache/kroot"
rm -rf "$cache/kroot" "$cache/download" "$cache"/ready-* "$cache"/vmlinux-* "$cache/initrd.img"
mkdir -p "$cache/download" "$cache/kroot"
chmod 777 "$cache/download"   # apt-get download runs as _apt
(cd "$cache/download" && apt-get download -q "$package" >/dev/null)
dpkg -x "$cache/download/${package}"_*.deb "$cache/kroot"
rm -rf "$cache/download"
grep -Eq '^CONFIG_BT_HCIVHCI=(m|y)' "$cache/kroot/boot/config-$version" \
    || { echo "vm-setup: kernel $version has no CONFIG_BT_HCIVHCI" >&2; exit 1; }
depmod -b "$cache/kroot" "$version"
/usr/bin/python3 "$here/extract_vmlinux.py" "$cache/kroot/boot/vmlinuz-$version" "$cache/vmlinux-$version"
"$here/mkinitrd.sh" "$cache/kroot" "$version" "$cache/initrd.img"
echo "$version" > "$cache/kernel-version"
touch "$stamp"
echo "vm-setup: ready ($cache, kernel $version, $(du -sh "$cache" | cut -f1))"
