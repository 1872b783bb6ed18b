# -h of bench exec, bench http and canary
run bench exec -h
run bench http --help
run canary -h
run help canary
