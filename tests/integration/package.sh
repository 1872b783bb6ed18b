#!/bin/sh
# The Debian package as a new user meets it (issue 17): `make deb` builds it with
# debhelper from a copy of the tree and runs lintian (no errors, no warnings). It
# runs in a release tarball's tree (issue 30): git's tracked files as they are in the
# work tree, with a REVISION file like `make dist`'s, unpacked where there is no
# .git; `make deb` there copies the tree and takes the version from debian/changelog.
# The
# package is installed with `apt-get install ./gpuaudit_*.deb` into a fresh
# bookworm minbase root (scripts/debian-root: debootstrap once, then cached), and
# inside that root, with chroot: `gpuaudit --version`, `discover --json` (with
# the host's /proc and /sys mounted read-only) and `serve --once`, and the
# conffile, unit and glue files are where docs/deploy.md says. Then the OCI image
# (scripts/mkimage, as `make image`): an OCI layout and a docker-archive tarball
# that skopeo reads, labels and a non-root user in its config, the image audits
# itself with `deps --target cpu` (no vendor library bundled, exit 0), and its
# unpacked root (umoci) runs the binary as that user with chroot; podman, where
# it works, runs the image itself.
# Exit 0 pass, 1 fail, 77 skipped (not root, no debhelper, ASan build, offline).
set -u
src=${SRCDIR:?SRCDIR}
if [ "${GA_SANITIZE:-OFF}" = ON ]; then
	echo "skipped: the package is built and installed by the normal build's run only"
	exit 77
fi
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (chroot, mount)"; exit 77; }
for t in dpkg-buildpackage dh lintian debootstrap git umoci skopeo; do
	command -v $t >/dev/null 2>&1 || { echo "skipped: $t not installed (scripts/install-deps --package)"; exit 77; }
done
work=$(mktemp -d /tmp/ga-deb.XXXXXX)
root=$work/root
cleanup() {
	for m in proc sys; do umount "$root/$m" "$work/bundle/rootfs/$m" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. a release tarball of the tree (tracked files, as in the work tree), unpacked with
# no .git; build and lint there
mkdir -p "$work/tree"
(cd "$src" && git ls-files -z | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) >"$work/src.tar" ||
	fail "tar of git's files"
tar -xf "$work/src.tar" -C "$work/tree" || fail "unpack the tarball"
rm -f "$work/src.tar"
rev=$(git -C "$src" rev-parse HEAD)
echo "$rev" >"$work/tree/REVISION"
[ -e "$work/tree/.git" ] && fail "the tarball's tree has a .git"
git -C "$work/tree" rev-parse --is-inside-work-tree >/dev/null 2>&1 && fail "the tarball's tree is inside a git work tree"
make -s -C "$work/tree" deb DEB_BUILD="$work/deb" >"$work/build.log" 2>&1 || {
	tail -40 "$work/build.log"
	fail "make deb in the tarball's tree"
}
grep -q '^deb: no git checkout: copying the tree' "$work/build.log" || fail "make deb did not take the no-git path"
deb=$(ls "$work"/deb/gpuaudit_*_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no package built"
[ "$(dpkg-deb -f "$deb" Version)" = "$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)" ] ||
	fail "the package's version is not debian/changelog's"
grep -E '^E: ' "$work/deb/lintian.txt" && fail "lintian errors"
grep -E '^W: ' "$work/deb/lintian.txt" && fail "lintian warnings"
grep -q 'uses-dpkg-database-directly' "$work/deb/lintian.txt" && fail "uses-dpkg-database-directly is not overridden"
echo "built $(basename "$deb") from a tarball's tree (no .git); lintian: no errors, no warnings"

# 2. a fresh root, the package installed with apt as a user would
"$src/scripts/debian-root" "$root"
rc=$?
[ $rc -eq 77 ] && { echo "skipped: no Debian archive reachable and no cached root"; exit 77; }
[ $rc -eq 0 ] || fail "scripts/debian-root ($rc)"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null
cp /etc/apt/sources.list "$root/etc/apt/" 2>/dev/null
cache=${GA_TEST_CACHE:-/var/cache/gpuaudit-tests}/apt-archives
mkdir -p "$cache" && cp "$cache"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
if ! in_root apt-get update >"$work/apt.log" 2>&1; then
	echo "skipped: apt-get update in the root cannot reach the archive"
	exit 77
fi
in_root apt-get install -y "/tmp/$(basename "$deb")" >>"$work/apt.log" 2>&1 || {
	tail -30 "$work/apt.log"
	fail "apt-get install ./$(basename "$deb")"
}
cp "$root"/var/cache/apt/archives/*.deb "$cache/" 2>/dev/null

# 3. what the package put where
for f in /usr/bin/gpuaudit /etc/default/gpuaudit /lib/systemd/system/gpuaudit-serve.service \
	/usr/share/doc/gpuaudit/examples/policy.yaml /usr/share/doc/gpuaudit/examples/web-config.yml \
	/usr/share/gpuaudit/slurm/gpuaudit-healthcheck.sh \
	/usr/share/gpuaudit/node-problem-detector/gpuaudit-plugin.json \
	/usr/share/man/man1/gpuaudit.1.gz /usr/share/man/man1/gpuaudit-serve.1.gz; do
	[ -e "$root$f" ] || fail "$f not installed"
done
grep -qx /etc/default/gpuaudit "$root/var/lib/dpkg/info/gpuaudit.conffiles" || fail "/etc/default/gpuaudit is not a conffile"
[ -e "$root/etc/gpuaudit/policy.yaml" ] && fail "a policy is installed under /etc (the test fixture?)"
# the unit reads ARGS from /etc/default/gpuaudit, like prometheus-node-exporter's
unit=$root/lib/systemd/system/gpuaudit-serve.service
grep -qx 'EnvironmentFile=-/etc/default/gpuaudit' "$unit" || fail "the unit does not read /etc/default/gpuaudit"
grep -qx 'ExecStart=/usr/bin/gpuaudit serve $ARGS' "$unit" || fail "the unit does not pass \$ARGS"
args=$(. "$root/etc/default/gpuaudit" && printf '%s' "$ARGS")
echo "/etc/default/gpuaudit: ARGS=\"$args\""
# systemd's own rating of the unit's confinement: at most 3.0 (0 best, 10 worst; the
# unit as shipped rates 2.3 with systemd 252; before issue 30's hardening it was 4.3)
if command -v systemd-analyze >/dev/null 2>&1; then
	score=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$score" ] || fail "systemd-analyze security --offline=yes gave no exposure level"
	awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' || fail "systemd-analyze security: exposure $score > 3.0"
	echo "systemd-analyze security --offline=yes: exposure $score (threshold 3.0)"
else
	echo "systemd-analyze not installed: the unit's exposure level is not checked"
fi

# 4. it runs there
v=$(in_root gpuaudit --version) || fail "gpuaudit --version"
[ "$v" = "$("$1" --version)" ] || fail "version '$v' differs from the build's"
echo "in the root: $v"
mount -t proc proc "$root/proc" || fail "mount proc"
mount --bind -o ro /sys "$root/sys" 2>/dev/null || mount -t sysfs sysfs "$root/sys" || fail "mount sys"
in_root gpuaudit discover --json >"$work/discover.json" 2>"$work/discover.err"
rc=$?
[ $rc -le 1 ] || { cat "$work/discover.err"; fail "discover --json exit $rc"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="gpuaudit.node/v1", d["schema"]' \
	"$work/discover.json" || fail "discover --json is not a node snapshot"
in_root gpuaudit check --policy /usr/share/doc/gpuaudit/examples/policy.yaml --json >"$work/check.json" 2>&1
rc=$?
[ $rc -le 1 ] || { head -20 "$work/check.json"; fail "check with the example policy: exit $rc"; }
# serve with the service's ARGS, and with the example web config (all commented) and policy
# shellcheck disable=SC2086
in_root gpuaudit serve $args --once --no-vendor \
	--web.config.file /usr/share/doc/gpuaudit/examples/web-config.yml \
	--policy /usr/share/doc/gpuaudit/examples/policy.yaml >"$work/metrics.txt" 2>"$work/serve.err" || {
	cat "$work/serve.err"
	fail "serve \$ARGS --once with the example web config and policy"
}
grep -q '^gpuaudit_build_info{' "$work/metrics.txt" || fail "serve --once printed no gpuaudit_build_info"
echo "discover --json, check with the example policy and serve \$ARGS --once ran in the installed root"
umount "$root/proc" "$root/sys"

# 5. the image
"$work/tree/scripts/mkimage" "$work/deb" "$work/image" >"$work/image.log" 2>&1 || {
	tail -30 "$work/image.log"
	fail "scripts/mkimage"
}
ver=$(dpkg-deb -f "$deb" Version)
[ -s "$work/image/oci/oci-layout" ] && [ -s "$work/image/oci/index.json" ] || fail "no OCI layout"
skopeo --insecure-policy inspect "oci:$work/image/oci:$ver" >"$work/inspect.json" || fail "skopeo inspect oci:"
skopeo --insecure-policy inspect "docker-archive:$work/image/gpuaudit-$ver.docker.tar" >/dev/null ||
	fail "skopeo inspect docker-archive:"
skopeo --insecure-policy copy -q "docker-archive:$work/image/gpuaudit-$ver.docker.tar" "oci:$work/copy:$ver" ||
	fail "skopeo copy docker-archive: -> oci:"
python3 - "$work/inspect.json" "$ver" "$rev" <<'PY' || fail "image config"
import json, sys
c = json.load(open(sys.argv[1]))
labels = c.get("Labels") or {}
for k in ("title", "version", "created", "licenses", "revision", "description"):
    assert labels.get("org.opencontainers.image." + k), "label org.opencontainers.image.%s missing" % k
assert labels["org.opencontainers.image.version"] == sys.argv[2]
assert len(c["Layers"]) == 1, c["Layers"]
assert labels["org.opencontainers.image.revision"] == sys.argv[3], labels["org.opencontainers.image.revision"]
PY

grep -E 'libnvidia-ml|libcuda\.so|librocm_smi|libamdhip' "$work/image/rootfs.txt" && fail "a vendor library is in the image"
"$1" deps --target cpu --json "$work/image/oci" >"$work/deps.json"
rc=$?
[ $rc -eq 0 ] || fail "deps --target cpu on the image: exit $rc"
grep -q GA-DEPS-DRIVER-LIB-BUNDLED "$work/deps.json" && fail "deps finds a bundled driver library"
umoci unpack --image "$work/image/oci:$ver" "$work/bundle" >/dev/null || fail "umoci unpack"
r=$work/bundle/rootfs
[ -e "$r/bin/sh" ] && fail "the image has a shell"
u=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["process"]; print("%d:%d" % (p["user"]["uid"], p["user"]["gid"]), " ".join(p["args"]))' "$work/bundle/config.json")
case "$u" in 0:*) fail "the image runs as root" ;; esac
# the image's command: serve with the package's ARGS (one set of defaults)
[ "${u#* }" = "/usr/bin/gpuaudit serve $args" ] || fail "the image runs '${u#* }', not 'gpuaudit serve \$ARGS'"
echo "image: user and command $u"
userspec=${u%% *}
chroot --userspec="$userspec" "$r" /usr/bin/gpuaudit --version >/dev/null || fail "gpuaudit --version in the image root"
mkdir -p "$r/proc" "$r/sys"
mount -t proc proc "$r/proc" && { mount --bind -o ro /sys "$r/sys" 2>/dev/null || mount -t sysfs sysfs "$r/sys"; } || fail "mount in the image root"
chroot --userspec="$userspec" "$r" /usr/bin/gpuaudit discover --json >"$work/img-discover.json" 2>/dev/null
[ $? -le 1 ] || fail "discover in the image root"
chroot --userspec="$userspec" "$r" /usr/bin/gpuaudit serve --once --no-vendor >"$work/img-metrics.txt" 2>/dev/null ||
	fail "serve --once in the image root"
grep -q '^gpuaudit_build_info{' "$work/img-metrics.txt" || fail "serve --once in the image printed no build info"
echo "image: $(du -k "$work/image/gpuaudit-$ver.docker.tar" | cut -f1) KiB docker-archive; deps --target cpu exit 0;" \
	"--version, discover --json and serve --once ran in its unpacked root as $userspec"
# podman, where this machine lets it run containers (a sandbox may refuse crun's
# setrlimit, for one): that the unpacked root runs was checked above either way
if command -v podman >/dev/null 2>&1 && podman load -q -i "$work/image/gpuaudit-$ver.docker.tar" >/dev/null 2>&1; then
	if out=$(podman run --rm --network=none "gpuaudit:$ver" --version 2>&1); then
		[ "$out" = "$v" ] || fail "podman run: '$out'"
		echo "podman ran the image: $out"
	else
		echo "podman: cannot run containers on this machine ($(printf '%s' "$out" | tail -1)); the unpacked root was run with chroot instead"
	fi
	podman rmi -f "gpuaudit:$ver" >/dev/null 2>&1
else
	echo "podman: not installed; the unpacked root was run with chroot instead"
fi
echo "PASS"
