#!/bin/sh
# gpuaudit deps against rpm's own tools (issue 19 item 6): rpmbuild (Debian's `rpm` package)
# builds two real packages (an x86_64 one whose library NEEDs libcudart.so.12, so rpm's
# dependency generator adds libcudart.so.12()(64bit); a noarch one with an epoch that
# Requires rocm-hip-runtime), `rpm -i --justdb` records them in a root's
# var/lib/rpm/rpmdb.sqlite, and what `rpm -qp` / `rpm -qa` print for name, epoch:version-release,
# arch, Requires, Provides and file ownership must be what `deps --json` reads from the .rpm
# headers, their payloads and the database. Exit 0 pass, 1 fail, 77 skipped (no rpmbuild).
set -u
gpuaudit=$(cd "$(dirname "${1:?usage: deps-rpm-reftool.sh GPUAUDIT}")" && pwd)/$(basename "$1")
command -v rpmbuild >/dev/null 2>&1 && command -v rpm >/dev/null 2>&1 || {
	echo "skipped: rpmbuild and rpm are needed (Debian package rpm)"
	exit 77
}
w=$(mktemp -d /tmp/ga-rpm.XXXXXX)
trap 'rm -rf "$w"' EXIT
cd "$w" || exit 1
mkdir -p src root
printf 'int stub(void) { return 1; }\n' >stub.c
printf 'int cudaGetDeviceCount(int *);\nint a(void) { int n; return cudaGetDeviceCount(&n); }\n' >a.c
cc -shared -fPIC -o src/libcudart.so.12 -Wl,-soname,libcudart.so.12 stub.c &&
	cc -shared -fPIC -o src/libcudaapp.so.1 -Wl,-soname,libcudaapp.so.1 a.c -Lsrc -Wl,--no-as-needed -l:libcudart.so.12 || exit 1
cat >cudaapp.spec <<'SPEC'
Name: cudaapp
Version: 2.1
Release: 4.el9
Summary: a library that needs the CUDA runtime
License: MIT
BuildArch: x86_64
Requires: cuda-cudart-12-4 >= 12.4
%description
test
%install
mkdir -p %{buildroot}/usr/lib64
cp %{_sourcedir}/libcudaapp.so.1 %{buildroot}/usr/lib64/
%files
/usr/lib64/libcudaapp.so.1
SPEC
cat >rocmtool.spec <<'SPEC'
Name: rocmtool
Version: 0.9
Release: 1
Epoch: 2
Summary: a noarch tool for ROCm nodes
License: MIT
BuildArch: noarch
Requires: rocm-hip-runtime
Provides: rocm-tool-api = 1
%description
test
%install
mkdir -p %{buildroot}/usr/share/rocmtool
echo config >%{buildroot}/usr/share/rocmtool/tool.conf
%files
/usr/share/rocmtool/tool.conf
SPEC
for s in cudaapp rocmtool; do
	rpmbuild -bb --define "_topdir $w/top" --define "_sourcedir $w/src" --define "__strip /bin/true" \
		--define "debug_package %{nil}" $s.spec >build-$s.log 2>&1 || { cat build-$s.log; exit 1; }
done
rpms=$(find top/RPMS -name '*.rpm' | sort)
db="--root $w/root --dbpath /var/lib/rpm"
rpm $db --initdb && rpm $db -i --nodeps --justdb --noscripts $rpms 2>/dev/null || exit 1
mkdir -p root/usr/lib64 && cp src/libcudaapp.so.1 root/usr/lib64/
qf='%{NAME}|%|EPOCH?{%{EPOCH}:}|%{VERSION}-%{RELEASE}|%{ARCH}|[%{REQUIRENAME},]|[%{PROVIDENAME},]\n'
{ for r in $rpms; do rpm -qp --qf "$qf" "$r"; done; } >ref-rpms.txt
rpm $db -qa --qf "$qf" | sort >ref-db.txt
rpm $db -ql cudaapp >ref-owned.txt
"$gpuaudit" deps --json $rpms root >deps.json
echo "deps exit $?"
cat ref-rpms.txt ref-db.txt
python3 - deps.json ref-rpms.txt ref-db.txt ref-owned.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def line(p):
    return "%s|%s|%s|%s|%s" % (p["name"], p["version"], p.get("arch", ""),
                                 "".join(r + "," for r in p.get("requires", [])),
                                 "".join(r + "," for r in p.get("provides", [])))
files = [p for p in d["packages"] if p["metadata"].endswith(".rpm")]
db = sorted(line(p) for p in d["packages"] if "#" in p["metadata"])
want_files = open(sys.argv[2]).read().split("\n")[:-1]
want_db = open(sys.argv[3]).read().split("\n")[:-1]
ok = True
for got, want, what in ((sorted(line(p) for p in files), sorted(want_files), ".rpm headers"), (db, want_db, "rpmdb.sqlite")):
    if got != want:
        ok = False
        print("FAIL: %s differ from rpm's:\n  deps: %s\n  rpm:  %s" % (what, got, want))
    else:
        print("%s: %d packages as rpm reads them" % (what, len(got)))
owned = {f["path"]: f["package"] for f in d["files"]}
lib = [p for p in owned if p.endswith("root/usr/lib64/libcudaapp.so.1")]
if "/usr/lib64/libcudaapp.so.1" not in open(sys.argv[4]).read() or not lib or owned[lib[0]] != "cudaapp":
    ok = False
    print("FAIL: root/usr/lib64/libcudaapp.so.1 should be owned by cudaapp (rpm -ql), deps says", owned)
inpayload = [p for p in owned if "cudaapp-2.1-4.el9.x86_64.rpm!/usr/lib64/libcudaapp.so.1" in p]
if not inpayload or owned[inpayload[0]] != "cudaapp":
    ok = False
    print("FAIL: the payload's library is not read or not owned:", owned)
sig = {s["what"] for p in d["packages"] for s in p["signals"]}
for w in ("Requires cuda-cudart-12-4", "Requires libcudart.so.12()(64bit)", "Requires rocm-hip-runtime"):
    if w not in sig:
        ok = False
        print("FAIL: no signal", w, sig)
if d["gaps"]:
    ok = False
    print("FAIL: gaps", d["gaps"])
sys.exit(0 if ok else 1)
PY
