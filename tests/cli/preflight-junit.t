# JUnit XML: well-formed (python3 xml.etree), one testcase per step, failures carry the explanation
AMD="--root $FIXTURES/nodes/mi250x/root --no-vendor --no-times"
CPU="--root $FIXTURES/nodes/cpu-vm/root --no-vendor --no-times --warmup-backend cpu"
summary() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for s in root.iter("testsuite"):
    print("suite", s.get("name"), "tests", s.get("tests"), "failures", s.get("failures"),
          "errors", s.get("errors"), "skipped", s.get("skipped"))
    for c in s.iter("testcase"):
        state = "pass"
        for k in ("failure", "error", "skipped"):
            e = c.find(k)
            if e is not None:
                state = k + ": " + (e.get("message") or "")
                if e.text:
                    state += " | " + " / ".join(l for l in e.text.splitlines() if "cause" in l or l.strip().startswith("1."))
        out = c.find("system-out")
        err = c.find("system-err")
        print(" ", c.get("name"), "->", state,
              "| out %d chars" % len(out.text or "") if out is not None else "",
              "| err %d chars" % len(err.text or "") if err is not None else "")
PY
}
printf 'printf "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\\n\\001\\377 <&> \\"q\\"\\n" >&2; exit 1\n' >fail.sh
quiet preflight $AMD --junit fail.xml -- sh fail.sh
summary fail.xml
run preflight $CPU --repeat 2 --junit ok.xml -- echo '<ok & fine>'
summary ok.xml
# --junit - writes the XML to stdout instead of the text report
"$GPUAUDIT" preflight $CPU --junit - >stdout.xml
echo "[exit $?]"
summary stdout.xml
