# explain on an error log that no signature and no known code explains: it is no PASS. It shows the
# most salient error lines, a guess of the component each comes from, the code a line names
# (unknown names, codes whose vendor text names no cause, a number in no table) and what to run
# next, with exit 4. A log with no error line stays clean (exit 0). Synthesized log.
L=$FIXTURES/explain-codes
run explain "$L/inconclusive.log"
echo "\$ gpuaudit explain < clean.log"
"$GPUAUDIT" explain <"$FIXTURES/logs/clean.log"; echo "[exit $?]"
run explain "$L/inconclusive.log" --json --max-matches 0
# Notices (rows whose action is none: a module taint, corrected AER) hide nothing: the unknown
# error beside them is listed, exit 4; the AER record's own detail lines are no error of their own.
run explain "$L/notice-and-unknown.log"
run explain "$L/notice-and-unknown.log" --json --max-matches 0
# The component of a crash or exception whose form names the program's language (a Rust or Go
# panic, C++'s terminate, a Java or Python exception) is the program's, before any library or
# driver name inside it (the Rust panic's path names amdgpu_top's crate); a bare "Error:" line is
# the program's without a language.
run explain "$L/program-forms.log"
run explain "$L/program-java.log"
# A log in UTF-16 (a byte-order mark FF FE or FE FF: what Windows PowerShell 5's > and Out-File
# write) is read as UTF-8, so its errors match; before, its NUL-spaced bytes matched nothing and
# the log came out clean (exit 0). The text names the conversion, the JSON has "encoding". A
# lone surrogate or an odd byte at the end becomes U+FFFD; a UTF-8 byte-order mark is dropped.
# Without a mark, a log whose first two characters are ASCII each beside a NUL (iconv -t
# UTF-16LE, some Windows exporters) is UTF-16 as well (utf16le-nobom.log). Synthesized logs.
run explain "$L/utf16le.log"
run explain "$L/utf16be.log" --json --max-matches 0
run explain "$L/utf16-broken.log"
run explain "$L/utf8-bom.log"
run explain "$L/utf16le-nobom.log"
