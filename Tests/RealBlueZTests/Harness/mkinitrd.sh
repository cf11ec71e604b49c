#!/usr/bin/env bash
# Builds the initramfs: busybox-static and the virtio/9p modules; its /init mounts the host's / read-only over
# virtio-9p and switch_roots into it, running the script named by carebridge_init= on the kernel command line.
# Usage: mkinitrd.sh KROOT KERNEL-VERSION OUT
set -euo pipefail
kroot="$1" version="$2" out="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,proc,sys,dev,newroot,mods}
cp "$(command -v busybox)" "$work/bin/busybox"
for applet in sh mount umount insmod switch_root mkdir cat echo poweroff; do ln -s busybox "$work/bin/$applet"; done
n=10
for module in virtio_pci 9pnet_virtio 9p; do
    modprobe -d "$kroot" -S "$version" --show-depends "$module"
done | awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' | while read -r ko; do
    # busybox's insmod takes plain .ko files; Debian's 6.12 modules are .ko.xz
    case "$ko" in
        *.xz) xz -dc "$ko" > "$work/mods/$n-$(basename "$ko" .xz)" ;;
        *) cp "$ko" "$work/mods/$n-$(basename "$ko")" ;;
    esac
    n=$((n + 1))
done
cat > "$work/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t devtmpfs dev /dev
for m in /mods/*.ko; do insmod "$m" || echo "initrd: insmod $m failed"; done
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,access=any,msize=512000,cache=loose hostroot /newroot; then
    echo "initrd: cannot mount the host root over 9p"
    poweroff -f
fi
mount --move /dev /newroot/dev
umount /proc
# Unknown key=value parameters on the kernel command line arrive as environment variables.
exec switch_root /newroot "$carebridge_init"
INIT
chmod +x "$work/init"
(cd "$work" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
