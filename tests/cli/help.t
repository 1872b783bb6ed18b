# Usage, help and exit codes of the command line itself.
run
run --help
run --version
run version --json
run help
run help discover
run help nosuch
run discover -h
run discover --help
run help -h
run version -h
run nosuch
run discover --bogus
run discover -x
run discover --root
run discover extra-arg
run discover --root /nonexistent/dir
run discover --from /nonexistent/file.json
run discover --from x --root y
