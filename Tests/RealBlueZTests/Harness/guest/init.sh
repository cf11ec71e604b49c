#!/bin/bash
# PID 1 in the guest, running from the host's read-only root. Mounts the few writable places (tmpfs), points the
# kernel's module loader at the unpacked module tree, runs the command from the kernel command line, writes its
# exit status to the results share and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export CAREBRIDGE_OUT=/run/out
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=755 run /run
mkdir -p /run/tmp /run/dbus /run/lock /run/out /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t tmpfs -o mode=700 bluetooth /var/lib/bluetooth   # bluetoothd's storage: bonds last one boot
mount -t 9p -o trans=virtio,version=9p2000.L,access=any,msize=512000 out "$CAREBRIDGE_OUT" \
    || echo "guest: no writable results share"
export TMPDIR=/run/tmp HOME=/run/tmp
hostname carebridge-guest 2>/dev/null
ip link set lo up 2>/dev/null
stty -onlcr 2>/dev/null
echo "$carebridge_cmd" | base64 -d > /run/command.sh
eval "$(grep -o 'CAREBRIDGE_KROOT=[^ ]*' /run/command.sh)"
# request_module() runs this helper; the host has no /lib/modules for this kernel, so name the unpacked tree.
cat > /run/modprobe <<MODPROBE
#!/bin/sh
exec /sbin/modprobe -d $CAREBRIDGE_KROOT -C /run/modprobe.d "\$@"
MODPROBE
chmod +x /run/modprobe
mkdir -p /run/modprobe.d
# jitterentropy's self-test takes about 7 s under TCG; the DRBG continues without it.
printf 'blacklist jitterentropy_rng\ninstall jitterentropy_rng /bin/false\n' > /run/modprobe.d/carebridge.conf
echo /run/modprobe > /proc/sys/kernel/modprobe
echo "guest: up at $(cut -d' ' -f1 /proc/uptime) s, kernel $(uname -r)"
bash /run/command.sh
status=$?
echo "$status" > "$CAREBRIDGE_OUT/status"
echo "guest: exited $status at $(cut -d' ' -f1 /proc/uptime) s"
sync
busybox poweroff -f
