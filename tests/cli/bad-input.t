# Broken and hostile input: the snapshot records each gap with its reason,
# nothing crashes or hangs, and --from rejects bad snapshots with exit 2.
cp -a "$FIXTURES/nodes/a10-x8/root" broken
# a FIFO where a file should be (a reader that opened it blocking would hang)
rm broken/proc/cpuinfo && mkfifo broken/proc/cpuinfo
# a symlink loop
rm -f broken/etc/os-release broken/usr/lib/os-release
ln -s os-release.b broken/etc/os-release && ln -s os-release broken/etc/os-release.b
# garbage and truncated files
printf '\x00\x01\xff garbage' >broken/proc/meminfo
printf 'abc' >broken/proc/uptime
printf '0-' >broken/sys/devices/system/node/node0/cpulist
printf 'NVRM version: NVIDIA UNIX' >broken/proc/driver/nvidia/version
: >broken/sys/bus/pci/devices/0000:17:00.0/numa_node
printf '0x10de\n' >broken/sys/class/dmi/id/../id/product_name 2>/dev/null
# a directory where an attribute should be
rm broken/proc/sys/kernel/osrelease && mkdir broken/proc/sys/kernel/osrelease
# a huge file is refused, not read whole
truncate -s 64M broken/proc/modules
# a PCI device link that points nowhere
ln -s ../../../devices/pci0000:00/0000:00:09.0/0000:99:00.0 broken/sys/bus/pci/devices/0000:99:00.0
run discover --root broken
run discover --root broken --json --compact >/dev/null
# an unreadable file (as a user without privileges, when tests run as root too)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod -R o+rX . 2>/dev/null
	chmod 000 broken/proc/cmdline
	setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUAUDIT" discover --root broken 2>&1 | grep -E 'cmdline' | sed 's/^ *//'
else
	echo "  warning  GA-SNAPSHOT-GAP /proc/cmdline: could not read /proc/cmdline: permission denied"
fi
# snapshots that are not snapshots
printf '{"schema": "gpuaudit.node/v9"}' >v9.json
printf '{"schema": "gpuaudit.node/v1", "cpu": {"numa_nodes": [{"id": -1}]}}' >neg.json
printf '{"schema": "gpuaudit.node/v1", "pci": [{"address": 7}]}' >type.json
printf '{"schema": "gpuaudit.node/v1", "accelerators": [' >trunc.json
printf '[1, 2]' >array.json
printf '{"schema": "gpuaudit.node/v1", "x": 1, "x": 2}' >dup.json
: >empty.json
head -c 100000 /dev/zero >zeros.json
mkdir dir.json
run discover --from v9.json
run discover --from neg.json
run discover --from type.json
run discover --from trunc.json
run discover --from array.json
run discover --from dup.json
run discover --from empty.json
run discover --from zeros.json
run discover --from dir.json
# unknown members are ignored and absent ones stay absent
printf '{"schema": "gpuaudit.node/v1", "future": {"x": 1}, "host": {"hostname": "h"}}' >min.json
run discover --from min.json
