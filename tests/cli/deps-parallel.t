# gpuaudit deps: the large shared libraries of a directory are censused by several
# threads ahead of the walk; the report must be the one the one-thread walk gives, in
# the same order, with the same gaps. Libraries from tests/fixtures/deps/build-elf.sh,
# padded past the 4 MiB threshold (bytes after the section headers change nothing),
# one whose ELF class byte is 3 (its census fails: a gap, "not read"), and a small one
# (walked inline).
sh "$FIXTURES/deps/build-elf.sh" elf >/dev/null
mkdir big
pad() { cp "$1" "$2" && head -c 5000000 /dev/zero >>"$2"; }
pad elf/lib/libuser.so big/libuser.so
pad elf/lib/libccob.so big/libccob.so.2
pad elf/lib/libstatic.so big/libstatic.so
pad elf/lib/librunpath.so big/librunpath.so
printf '\177ELF\003\001\001' >big/libbad.so
head -c 5000000 /dev/zero >>big/libbad.so
cp elf/lib/libcudart.so.12 big/libcudart.so.12
bytes() { sed -E 's/[0-9]+ bytes/N bytes/g'; }
GPUAUDIT_DEPS_THREADS=1 "$GPUAUDIT" deps --json big >one.json
GPUAUDIT_DEPS_THREADS=4 "$GPUAUDIT" deps --json big >four.json
cmp one.json four.json && echo "one thread and four: the same JSON report"
GPUAUDIT_DEPS_THREADS=4 run deps --target cuda:12.4,sm_90 big | bytes
