# damaged container-layer files on a minimal tree: every spec that cannot be used says why
# (file and position), a FIFO is refused, not waited on, a spec nested deeper than the YAML
# prescan allows never reaches libfyaml, and a damaged kubelet checkpoint is a warning.
mkdir -p root/etc/cdi root/var/lib/kubelet/device-plugins
printf 'cdiVersion: 9.0.0\nkind: nvidia.com/gpu\ndevices:\n- name: "0"\n' >root/etc/cdi/a-version.yaml
printf 'cdiVersion: 0.5.0\nkind: nvidia\ndevices: [{name: x}]\n' >root/etc/cdi/b-kind.yaml
printf '{"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu", "devices": [' >root/etc/cdi/c-truncated.json
python3 -c 'print("a: " + "[" * 40 + "]" * 40)' >root/etc/cdi/d-deep.yaml
mkfifo root/etc/cdi/e-fifo.json
printf 'cdiVersion: 0.5.0\nkind: vendor.com/dev\ndevices:\n- name: x\n  containerEdits:\n    deviceNodes:\n    - path: /dev/vdev0\n' >root/etc/cdi/f-missing-node.yml
# the CDI library's rules: a field newer than the declared version; a leading v is allowed
printf 'cdiVersion: 0.4.0\nkind: vendor.com/dev\ndevices:\n- name: x\n  containerEdits:\n    deviceNodes:\n    - {path: /dev/x, hostPath: /dev/y}\n' >root/etc/cdi/g-hostpath.yaml
printf '{"cdiVersion": "v1.1.0", "kind": "vendor.com/env", "devices": [{"name": "e", "containerEdits": {"env": ["A=1"]}}]}' >root/etc/cdi/h-v.json
printf 'not a spec\n' >root/etc/cdi/notes.txt
touch root/var/lib/kubelet/device-plugins/kubelet.sock
printf '{"Data":{"RegisteredDevices":{"nvidia.com/gpu":"GPU-1"}},"Checksum":1}' \
	>root/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint
"$GPUAUDIT" discover --root root --no-vendor >out.txt 2>&1
echo "[exit $?]"
grep -E '^  (cdi|plugins) |GA-(CDI|DP)-' out.txt
