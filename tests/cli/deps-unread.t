# gpuaudit deps (issue 26): input that could not be read, or that holds nothing, is never
# PASS. A PATH that cannot be read is ERROR (exit 2) and a gap; part of the input not read
# is INCOMPLETE (exit 4); no regular file at all is UNKNOWN (exit 4); in text, --json and
# --sarif, each with the reason and what to do.
mkfifo fifo
touch afile
ln -s loop loop
mkdir empty locked partial partial/sub
echo 'import os' > partial/app.py
# The tests run as root, which opens every directory whatever its mode: `nobody` runs
# gpuaudit as uid 65534 (setpriv, util-linux) so that mode 000 really refuses it. The
# temp dir is 0700; let that user in.
chmod 755 .
chmod 000 locked partial/sub
nobody() {
	echo "\$ gpuaudit $* (as uid 65534)"
	if [ "$(id -u)" = 0 ]; then
		timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUAUDIT" "$@" 2>&1
	else
		timeout 60 "$GPUAUDIT" "$@" 2>&1
	fi
	echo "[exit $?]"
}
# a PATH that does not exist
run deps missing.whl
run deps --json missing.whl
run deps --sarif --compact missing.whl
# a FIFO (never opened: it could block)
run deps fifo
run deps --json --compact fifo
# a symlink loop, a file where a directory is expected
run deps loop
run deps afile/sub
# a top directory that cannot be opened (EACCES)
nobody deps locked
nobody deps --json --compact locked
# one readable PATH and one missing: still ERROR, the readable one listed
run deps afile missing.whl
# a readable directory with a subdirectory that cannot be opened: INCOMPLETE
nobody deps partial
nobody deps --sarif --compact partial
# an empty directory: nothing scanned, UNKNOWN
run deps empty
run deps --json --compact empty
# an empty file: read, but not one byte to judge: UNKNOWN like the empty directory
run deps afile
run deps --json --compact afile
# a readable file with content: PASS (for contrast)
printf 'not an ELF\n' > textfile
run deps textfile
run deps --json --compact textfile
