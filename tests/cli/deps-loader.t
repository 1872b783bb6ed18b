# gpuaudit deps: the loader simulation behind GA-DEPS-UNRESOLVED-NEEDED, one rule per
# tree (tests/fixtures/deps/mkloader.py builds them with gcc): DT_RPATH inherited by
# what a library loads, unless that library has its own DT_RUNPATH; DT_RUNPATH not
# inherited; $ORIGIN, $LIB, $PLATFORM; an image's etc/ld.so.conf with an include glob
# (a whiteout deletes one included file), its config's Env LD_LIBRARY_PATH, and
# --ld-library-path.
python3 "$FIXTURES/deps/mkloader.py" t >/dev/null
bytes() { sed -E 's/, [0-9]+ bytes,/, N bytes,/'; }
cd t
# libA.so finds libB.so through opt/app/bin/app's RPATH; libC.so (RUNPATH /nowhere) does not
run deps rpath.tar | bytes
# the app's path as RUNPATH: libA.so's libB.so is unresolved
run deps runpath.tar | bytes
# $ORIGIN/../$LIB and /opt/$PLATFORM/lib find libD.so and libE.so; libmissing.so is nowhere
run deps dst.tar | bytes
# libV.so through ld.so.conf.d/vendor.conf, libH.so through the config's LD_LIBRARY_PATH;
# libG.so's gone.conf was deleted by the upper layer; libT.so needs --ld-library-path
run deps image.tar | bytes
run deps --ld-library-path /opt/third/lib:/opt/none image.tar | bytes
# the same as an OCI layout: the config (and its Env) found through the manifest
run deps --ld-library-path /opt/third/lib image-oci | bytes
