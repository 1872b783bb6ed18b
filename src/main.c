/*
 * main.c - gpuaudit's command table and dispatch. Each command lives in
 * src/cmd-<name>.c; the library (lib/) never prints or exits, this does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gpuaudit/text.h"

const struct command commands[] = {
	{ "discover", cmd_discover, "describe this node: accelerators, PCIe, NUMA, drivers, runtimes",
	  "usage: gpuaudit discover [--root DIR] [--from FILE] [--json] [--compact]\n"
	  "                         [--vendor | --no-vendor] [--timeout SEC] [-v]\n"
	  "\n"
	  "Collect a snapshot of the node (schema gpuaudit.node/v1) from sysfs, procfs,\n"
	  "/dev and /etc, and report what it found: one line per accelerator, then node\n"
	  "facts, then findings (degraded PCIe links, missing device nodes, driver and\n"
	  "library version mismatches, files that could not be read).\n"
	  "\n"
	  "  --root DIR    read the machine under DIR instead of / (a fixture or a tree\n"
	  "                made by tools/capture-node); default $GPUAUDIT_ROOT or /\n"
	  "  --from FILE   read a snapshot written by 'discover --json' ('-' = stdin)\n"
	  "                instead of collecting one\n"
	  "  --json        print the snapshot and findings as JSON\n"
	  "  --compact     with --json: one line, no indentation\n"
	  "  --pci-ids F   pci.ids file for device names (default $GPUAUDIT_PCI_IDS or\n"
	  "                the system's)\n"
	  "  --vendor      also query vendor libraries (NVML, ROCm SMI) under --root (for\n"
	  "                tests with fake libraries); by default they are queried only for\n"
	  "                the live machine, and only for GPUs sysfs shows\n"
	  "  --no-vendor   never load vendor libraries\n"
	  "  --timeout SEC deadline for each vendor library (default 5); a library that\n"
	  "                hangs is killed and reported with the call it was in\n"
	  "  -v            log what could not be read (repeat for more)\n"
	  "  -h, --help    show this help\n"
	  "\n"
	  "Exit status: 0 no error-level findings, 1 error-level findings, 2 usage error\n"
	  "or unreadable input, 70 internal error.\n" },
	{ "class", cmd_class, "node-class fingerprint and compile-cache key",
	  "usage: gpuaudit class [--root DIR | --from FILE] [--json [--compact] | --key]\n"
	  "                      [--vendor | --no-vendor] [--timeout SEC] [-v]\n"
	  "\n"
	  "Print the node's class: an id that nodes with the same hardware and software\n"
	  "stack share, made of a readable name, the first 8 hex digits of the SHA-256\n"
	  "of the hardware class and of the software stack, e.g.\n"
	  "a100-sxm4-40gb-x8-nvswitch-1a2b3c4d.5e6f7a8b. Only identity facts take part\n"
	  "(models, counts, memory sizes, compute capability, interconnect, PCIe\n"
	  "generation and width, MIG layout, CPU, memory; kernel, OS, driver, CUDA and\n"
	  "ROCm versions), never uptime, utilization, temperatures, serials, UUIDs,\n"
	  "hostname or PCI addresses; see docs/class.md for the exact list.\n"
	  "\n"
	  "  --root DIR    read the machine under DIR instead of / (default\n"
	  "                $GPUAUDIT_ROOT or /)\n"
	  "  --from FILE   read a snapshot written by 'discover --json' ('-' = stdin)\n"
	  "  --json        print id, name, hashes, the hardware and stack objects the\n"
	  "                hashes are taken over, and the cache key, as JSON\n"
	  "  --compact     with --json: one line, no indentation\n"
	  "  --key         print only the compile/engine cache key (device model,\n"
	  "                compute capability or gfx target, MIG profiles, NVIDIA driver,\n"
	  "                CUDA or ROCm version, hash), e.g. for\n"
	  "                TRITON_CACHE_DIR=/cache/$(gpuaudit class --key)\n"
	  "  --pci-ids F   pci.ids file for device names (default $GPUAUDIT_PCI_IDS or\n"
	  "                the system's)\n"
	  "  --vendor      also query vendor libraries (NVML, ROCm SMI) under --root\n"
	  "  --no-vendor   never load vendor libraries (the class then lacks what only\n"
	  "                they report: compute capability, MIG, CUDA version)\n"
	  "  --timeout SEC deadline for each vendor library (default 5)\n"
	  "  -v            log what could not be read (repeat for more)\n"
	  "  -h, --help    show this help\n"
	  "\n"
	  "Exit status: 0 ok, 2 usage error or unreadable input, 70 internal error.\n" },
	{ "check", cmd_check, "check this node against its class in a golden-image policy",
	  "usage: gpuaudit check --policy FILE [--class NAME] [--root DIR | --from FILE]\n"
	  "                      [--json | --npd | --slurm] [--nfd-dir DIR [--nfd-expiry SEC]]\n"
	  "                      [--vendor | --no-vendor] [--timeout SEC] [-v]\n"
	  "\n"
	  "Check this node against its class in a golden-image policy (docs/policy.md):\n"
	  "the first class whose 'match' fits the node (or --class NAME), its pinned\n"
	  "kernel, driver, CUDA and ROCm versions and its expected hardware state. Each\n"
	  "violation is a finding (GA-PIN-*, GA-EXPECT-*); a value the snapshot lacks (no\n"
	  "NVML) is GA-CHECK-UNKNOWN, never guessed. The node's own error findings (as\n"
	  "'discover' reports them) fail the check too.\n"
	  "\n"
	  "  --policy FILE   the policy (YAML; '-' = stdin)\n"
	  "  --class NAME    check against this class instead of the first that matches\n"
	  "  --root DIR      read the machine under DIR instead of /\n"
	  "  --from FILE     check a snapshot written by 'discover --json'\n"
	  "  --json          print {class, result, findings} as JSON\n"
	  "  --npd           node-problem-detector custom plugin: one line of at most 80\n"
	  "                  characters; exit 0 ok, 1 problem, 2 unknown\n"
	  "  --slurm         Slurm health check: print 'gpuaudit: REASON' when the check\n"
	  "                  fails, nothing when it passes (deploy/slurm/)\n"
	  "  --nfd-dir DIR   also write Node Feature Discovery labels to DIR/gpuaudit\n"
	  "                  (atomically), e.g. /etc/kubernetes/node-feature-discovery/features.d\n"
	  "  --nfd-expiry SEC  the labels expire after SEC seconds (default 3600)\n"
	  "  --pci-ids F     pci.ids file for device names (default $GPUAUDIT_PCI_IDS)\n"
	  "  --vendor        also query vendor libraries under --root (fake-library tests)\n"
	  "  --no-vendor     never load vendor libraries\n"
	  "  --timeout SEC   deadline for each vendor library (default 5)\n"
	  "  -v              log what could not be read (repeat for more)\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Exit status: 0 pass, 1 violations or error-level node findings (or no class\n"
	  "matches), 2 usage error, bad policy or unreadable input, 3 no violation but a\n"
	  "vendor library that was wanted failed, so NVML-only expectations are\n"
	  "unknown, 70 internal error.\n" },
	{ "fleet", cmd_fleet, "many nodes: the compatibility matrix and drift",
	  "usage: gpuaudit fleet [--policy FILE] [--json | --markdown | --csv]\n"
	  "                      [--diff OLD.json] [--max-drift N] [--jobs N] [-v]\n"
	  "                      REPORT... | DIR | -\n"
	  "\n"
	  "Read node snapshots ('discover --json', schema gpuaudit.node/v1) and check\n"
	  "reports ('check --json') from many nodes and print the compatibility matrix\n"
	  "as it really is: each hardware class (as 'gpuaudit class' computes it) with\n"
	  "the software stacks present (driver, CUDA, ROCm, kernel, OS) and their node\n"
	  "counts; then the drift list: nodes whose stack violates their policy class's\n"
	  "pins (with --policy) or differs from their pool's majority (without), nodes\n"
	  "with fewer GPUs than their pool, degraded PCIe links and failing checks.\n"
	  "Memory grows with the number of classes and stacks, not with nodes.\n"
	  "\n"
	  "  REPORT        a file: one JSON document, several, or JSON lines; gzip, zstd,\n"
	  "                xz, bzip2 or lz4 compressed or not\n"
	  "  DIR           its *.json, *.jsonl and *.ndjson files (also compressed:\n"
	  "                .gz, .zst, ...), recursively, in name order\n"
	  "  -             JSON lines (or documents) on stdin\n"
	  "  --policy FILE a golden-image policy (docs/policy.md): pools are its classes\n"
	  "                and drift is a violated pin\n"
	  "  --json        the report as JSON (schema gpuaudit.fleet/v1), what --diff reads\n"
	  "  --markdown    Markdown tables, to commit and review in a pull request\n"
	  "  --csv         one CSV table (record = stack, check, drift, skipped, change)\n"
	  "  --diff OLD    also show what changed since OLD (a 'fleet --json' report):\n"
	  "                classes and stacks that appeared or disappeared, node counts,\n"
	  "                drift added and resolved\n"
	  "  --max-drift N list at most N drifting nodes, the first by host name; the\n"
	  "                rest are counted (default 100)\n"
	  "  --jobs N      threads that parse reports (default: the CPUs online, at\n"
	  "                most 64; 1: none); the report is the same for every N\n"
	  "  -v            log every skipped report as it is read\n"
	  "  -h, --help    show this help\n"
	  "\n"
	  "Malformed, truncated and unknown documents are reported and skipped; the run\n"
	  "goes on. Exit status: 0 no drift, 1 drifting or failing nodes, 2 usage error,\n"
	  "an unreadable input or a skipped report, 70 internal error.\n" },
	{ "health", cmd_health, "is this node fit to run jobs: kernel-log Xid/AER/resets, stuck processes",
	  "usage: gpuaudit health [--kmsg FILE] [--since DURATION] [--policy FILE [--class NAME]]\n"
	  "                       [--root DIR | --from FILE] [--json | --npd | --slurm]\n"
	  "                       [--vendor | --no-vendor] [--timeout SEC] [-v]\n"
	  "\n"
	  "Read the kernel log and report what it says about the GPUs and the node:\n"
	  "NVIDIA Xid and NVSwitch SXid errors, GPUs fallen off the bus, amdgpu ring\n"
	  "timeouts, resets and RAS errors, PCIe AER errors, hung tasks, OOM kills,\n"
	  "machine checks and NVIDIA driver load failures. Events are counted per kind,\n"
	  "code and device; each group is one finding (GA-XID-<n>, GA-KLOG-<KIND>) with\n"
	  "its count, first and last time, a sample line and what to do, mapped to the\n"
	  "GPU index when the address is a GPU's. Processes in uninterruptible sleep (D)\n"
	  "are reported, and the node's own findings (as 'discover' reports them) are\n"
	  "included. See docs/health.md.\n"
	  "\n"
	  "  --kmsg FILE     read this log instead of /dev/kmsg: dmesg, dmesg -T,\n"
	  "                  journalctl -k (-o short, short-iso, short-monotonic) or\n"
	  "                  /dev/kmsg records ('-' = stdin)\n"
	  "  --since DUR     only events in the last DUR (30m, 2h, 1d, 1h30m); measured\n"
	  "                  from now for the live /dev/kmsg, else from the newest event\n"
	  "  --policy FILE   apply the class's 'xid:' overrides (ignore, info, warning,\n"
	  "                  error, critical) and check its expected GPU count\n"
	  "  --class NAME    use this class instead of the first that matches\n"
	  "  --root DIR      read the machine (and DIR/dev/kmsg) under DIR instead of /\n"
	  "  --from FILE     use a snapshot written by 'discover --json' (with --kmsg)\n"
	  "  --json          print {result, kernel_log, findings} as JSON\n"
	  "  --npd           node-problem-detector custom plugin: one line of at most 80\n"
	  "                  characters; exit 0 ok, 1 problem, 2 unknown\n"
	  "  --slurm         Slurm health check: print 'gpuaudit: REASON' when unhealthy,\n"
	  "                  nothing when healthy\n"
	  "  --state FILE    remember hardware Xids per GPU across boots in FILE (JSON,\n"
	  "                  written atomically); one that returns after 2 earlier\n"
	  "                  boots becomes critical: hardware inspection\n"
	  "  --pci-ids F     pci.ids file for device names (default $GPUAUDIT_PCI_IDS)\n"
	  "  --vendor        also query vendor libraries (off by default: the log needs\n"
	  "                  none, and health must stay fast)\n"
	  "  --no-vendor     never load vendor libraries\n"
	  "  --timeout SEC   deadline for each vendor library (default 5)\n"
	  "  -v              log what could not be read (repeat for more)\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Exit status: 0 healthy, 1 error-level or critical findings, 2 usage error or\n"
	  "unreadable input (a missing --kmsg file), 70 internal error.\n" },
	{ "record", cmd_record, "sample CPU, pressure, memory, disks, network and GPU busy as JSON lines",
	  "usage: gpuaudit record [--interval SEC] [--count N | --duration DUR] [-o FILE]\n"
	  "                       [--root DIR] [--nvml | --no-nvml] [--timeout SEC] [-v]\n"
	  "\n"
	  "Sample the node every interval and write one JSON object per line (schema\n"
	  "gpuaudit.sample/v1, docs/record.md): CPU per core and in total (user,\n"
	  "system, iowait, steal, idle percent), pressure stall information (some/full\n"
	  "avg10 and stall time in the interval), memory (total, available, cached,\n"
	  "dirty), per disk reads and writes per second, bytes per second, await and\n"
	  "utilization, per network interface bytes and packets per second, drops and\n"
	  "errors in the interval, and amdgpu gpu_busy_percent / mem_busy_percent per\n"
	  "DRM card (null where sysfs lacks them, e.g. NVIDIA), and with NVML per GPU\n"
	  "utilization, memory used, PCIe rx/tx, power, clocks, temperature and clock\n"
	  "event (throttle) reasons. Rates need two points:\n"
	  "the first read only records counters, a line follows each interval after it.\n"
	  "A counter that went backwards gives null, never a bogus rate.\n"
	  "\n"
	  "  --interval SEC  time between samples: 1s (default), 0.5, 200ms, 1m\n"
	  "  --count N       stop after N lines\n"
	  "  --duration DUR  stop after DUR (30s, 10m, 1h)\n"
	  "  -o, --output F  write the lines to F instead of stdout ('-' = stdout)\n"
	  "  --root DIR      replay recorded time points DIR/t0, DIR/t1, ... (each a\n"
	  "                  root tree with proc/ and sys/) without sleeping; the\n"
	  "                  interval is read from DIR/interval_s when it exists\n"
	  "  --nvml          query NVML at every point (through the deadline helper);\n"
	  "                  default on a live machine with the NVIDIA driver loaded\n"
	  "  --no-nvml       never query NVML (the member is null)\n"
	  "  --timeout SEC   deadline for each NVML query (default 5)\n"
	  "  -v              log what could not be read (repeat for more)\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Without --count or --duration it runs until SIGINT or SIGTERM, which end it\n"
	  "cleanly after flushing what was written.\n"
	  "\n"
	  "Exit status: 0 ok (also when stopped by a signal), 2 usage error or an\n"
	  "unusable --root, 70 internal error.\n" },
	{ "triage", cmd_triage, "why are the GPUs slow: health, utilization, feeding, communication",
	  "usage: gpuaudit triage [--samples FILE | --duration DUR] [--pid PID] [--kmsg FILE]\n"
	  "                       [--root DIR | --from FILE] [--json] [--vendor | --no-vendor]\n"
	  "                       [--timeout SEC] [-v]\n"
	  "\n"
	  "The \"GPUs are slow\" playbook, in order, each step with its evidence and a\n"
	  "decision (docs/triage.md):\n"
	  "  1. is the device healthy and visible? (the snapshot's findings and the\n"
	  "     kernel log, as 'health'); an error stops here: quarantine the node\n"
	  "  2. is it underutilized? (mean GPU busy < 50%: input pipeline, small\n"
	  "     batches, sync points; memory busy > 70% with compute low: memory-bound)\n"
	  "  3. is the system feeding it? (disk util > 90% or await rising, CPU iowait\n"
	  "     > 20%, CPU idle < 5%, the workload's CPUs off its GPUs' NUMA nodes)\n"
	  "  4. is communication healthy? (NIC drops or errors in any interval, NCCL\n"
	  "     variables naming an interface or HCA the node lacks)\n"
	  "  5. only then: backend portability questions\n"
	  "\n"
	  "  --samples FILE  sample lines written by 'gpuaudit record' ('-' = stdin)\n"
	  "  --duration DUR  without --samples: record live for DUR (default 5s) at 1 s\n"
	  "                  intervals\n"
	  "  --pid PID       the workload: its Cpus_allowed_list and NCCL_SOCKET_IFNAME /\n"
	  "                  NCCL_IB_HCA from proc/PID under the root\n"
	  "  --kmsg FILE     read a saved kernel log instead of /dev/kmsg ('-' = stdin)\n"
	  "  --root DIR      read the machine under DIR instead of / (default\n"
	  "                  $GPUAUDIT_ROOT or /)\n"
	  "  --from FILE     a node snapshot written by 'discover --json' (not samples;\n"
	  "                  needs --samples)\n"
	  "  --json          print {steps:[{step, title, verdict, evidence, decision}],\n"
	  "                  findings} as JSON\n"
	  "  --pci-ids F     pci.ids file for device names\n"
	  "  --vendor        also query vendor libraries (NVML, ROCm SMI); off by default\n"
	  "  --no-vendor     never load vendor libraries\n"
	  "  --timeout SEC   deadline for each vendor library (default 5)\n"
	  "  -v              log what could not be read (repeat for more)\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Exit status: 0 nothing points at the node (the workload may be the suspect),\n"
	  "1 the node is at fault (step 1, 3 or 4), 2 usage error or unreadable input,\n"
	  "70 internal error.\n" },
	{ "explain", cmd_explain, "turn an error log into ranked root causes and fixes",
	  "usage: gpuaudit explain [FILE|-] [--for SNAPSHOT] [--json] [--max-matches N]\n"
	  "       gpuaudit explain --list\n"
	  "\n"
	  "Read a log (pod log, dmesg, CI output; default stdin) and match every line\n"
	  "against the built-in catalogue of error signatures: loader errors (missing\n"
	  "sonames, GLIBCXX versions, undefined symbols), CUDA runtime errors (34, 35,\n"
	  "100, 209, 221, 222, 700, 802, 803, 804, 999, out of memory), PyTorch, HIP,\n"
	  "NCCL and collective timeouts, SIGILL, Xid and PCIe AER kernel lines, container\n"
	  "runtime and Kubernetes scheduling errors, NVML mismatches. Print the causes,\n"
	  "most likely first, with the values captured from the lines (soname, version,\n"
	  "sm arch, Xid, PCI address), the fix and what to check next, then the matched\n"
	  "lines with their numbers. The log streams: any size, constant memory; only\n"
	  "the first 8 KiB of a line are matched.\n"
	  "\n"
	  "  --for SNAPSHOT  a node snapshot ('gpuaudit discover --json') of the node the\n"
	  "                  log came from: add what it says about each cause (e.g. a\n"
	  "                  CUDA library missing on a node that has AMD GPUs) and rank\n"
	  "                  the causes it confirms higher\n"
	  "  --json          print lines, causes and matches as JSON\n"
	  "                  (schema gpuaudit.explain/v1)\n"
	  "  --max-matches N matched lines to list (default 100; counts include all)\n"
	  "  --list          print the catalogue: id, layer, weight, error code\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Exit status: 0 no signature matched, 1 at least one matched, 2 usage error or\n"
	  "unreadable input, 70 internal error.\n" },
	{ "preflight", cmd_preflight, "per-node-class preflight: discover, check, warm-up, explain",
	  "usage: gpuaudit preflight [--policy FILE [--class NAME]] [--timeout SEC]\n"
	  "                          [--repeat N] [--shell] [--json | --junit FILE]\n"
	  "                          [--root DIR | --from FILE] [--vendor | --no-vendor]\n"
	  "                          [--vendor-timeout SEC] [--no-times] [-v]\n"
	  "                          [--warmup-backend NAME] [--scan PATH]...\n"
	  "                          [-- CMD ARGS...]\n"
	  "\n"
	  "The job a deployment pipeline runs on every node class before traffic\n"
	  "arrives: (1) discover the node and, with --policy, check it against its class\n"
	  "(as 'gpuaudit check'); (2) run the warm-up command CMD without a shell, in its\n"
	  "own process group, stdin from /dev/null, under a deadline (SIGTERM to the\n"
	  "group, SIGKILL 2 s later), keeping the first and last 32 KiB of its stdout\n"
	  "and stderr; the first run is the cold start, --repeat N adds N warm runs;\n"
	  "(3) on failure, explain the captured output with the 'gpuaudit explain'\n"
	  "catalogue and what this node says; (4) print one report and exit with one\n"
	  "code. Without CMD: a built-in warm-up, a 256x256 float32 matrix product on\n"
	  "the best backend available (a GPU through CUDA, HIP or OpenCL, else CPU\n"
	  "BLAS, else plain C), checked against a float64 CPU reference on random data.\n"
	  "\n"
	  "  --policy FILE     check the node against its class in this policy\n"
	  "  --class NAME      the class to check against instead of the first match\n"
	  "  --timeout SEC     deadline of each warm-up run (default 600)\n"
	  "  --repeat N        warm runs after a successful cold start (0-16, default 0)\n"
	  "  --shell           run CMD's words joined by spaces with /bin/sh -c\n"
	  "  --json            print the report as JSON (schema gpuaudit.preflight/v1)\n"
	  "  --junit FILE      also write the report as JUnit XML to FILE ('-' = stdout\n"
	  "                    instead of the text report)\n"
	  "  --no-times        leave wall times out (reproducible output for tests)\n"
	  "  --scan PATH       audit PATH (site-packages, a wheel, an image, a model dir)\n"
	  "                    as 'gpuaudit deps' does, against this node and the policy\n"
	  "                    class's artifacts: rules; repeat for more paths (at most 32)\n"
	  "  --warmup-backend NAME  the built-in warm-up's backend: auto (default), cuda,\n"
	  "                    hip, opencl (GPU devices only), cblas or cpu\n"
	  "  --root DIR        read the machine under DIR instead of /\n"
	  "  --from FILE       use a snapshot written by 'discover --json'\n"
	  "  --pci-ids F       pci.ids file for device names (default $GPUAUDIT_PCI_IDS)\n"
	  "  --vendor          also query vendor libraries under --root\n"
	  "  --no-vendor       never load vendor libraries\n"
	  "  --vendor-timeout SEC  deadline for each vendor library (default 5)\n"
	  "  -v                log what could not be read (repeat for more)\n"
	  "  -h, --help        show this help\n"
	  "\n"
	  "Exit status: 0 every step passed, 1 a step failed (error-level node finding,\n"
	  "policy violation, warm-up failed, timed out, was killed by a signal or could\n"
	  "not start), 2 usage error, bad policy or unreadable input, 3 nothing failed\n"
	  "but a vendor library that was wanted failed (check unknown), 70 internal\n"
	  "error.\n" },
	{ "serve", cmd_serve, "Prometheus exporter and JSON API for this node (background collection)",
	  "usage: gpuaudit serve [--listen ADDR:PORT] [--interval DURATION] [--policy FILE [--class NAME]]\n"
	  "                      [--nfd-dir DIR [--nfd-expiry SEC]] [--kmsg FILE]\n"
	  "                      [--root DIR | --from FILE] [--vendor | --no-vendor] [--timeout SEC]\n"
	  "                      [--max-connections N] [--connection-timeout SEC]\n"
	  "                      [--once [--openmetrics]] [-v]\n"
	  "\n"
	  "Serve this node's metrics over HTTP (docs/serve.md, docs/metrics.md):\n"
	  "  /metrics      Prometheus text format 0.0.4, or OpenMetrics 1.0 when the\n"
	  "                Accept header asks for it\n"
	  "  /healthz      200 'ok' while collections are recent, 503 otherwise\n"
	  "  /v1/snapshot  the last node snapshot (JSON, schema gpuaudit.node/v1)\n"
	  "  /v1/check     the last findings, and with --policy the check result (JSON)\n"
	  "A background thread collects the node every interval; vendor libraries run in\n"
	  "a helper process killed at the --timeout deadline. A request only copies out\n"
	  "the last result, so a hung GPU never blocks a scrape; the staleness metrics\n"
	  "(gpuaudit_last_collection_timestamp_seconds, _collection_duration_seconds,\n"
	  "_collection_errors_total, _collection_running) show it instead. Kernel-log\n"
	  "events (Xid, AER, ...) are counters that only grow while the process runs.\n"
	  "Only GET and HEAD are answered (405 otherwise), request bodies are refused.\n"
	  "\n"
	  "  --listen ADDR:PORT  where to listen (default 127.0.0.1:9747, loopback only;\n"
	  "                  0.0.0.0:9747 or [::]:9747 for all; port 0 picks a free one)\n"
	  "  --interval DURATION  time between collections (default 30s; 1s to 1d)\n"
	  "  --policy FILE   also check the node against its class (as 'gpuaudit check')\n"
	  "  --class NAME    check against this class instead of the first that matches\n"
	  "  --nfd-dir DIR   write Node Feature Discovery labels to DIR/gpuaudit at every\n"
	  "                  collection (atomically)\n"
	  "  --nfd-expiry SEC  the labels expire after SEC seconds (default 3600)\n"
	  "  --kmsg FILE     read kernel events from FILE instead of /dev/kmsg\n"
	  "  --root DIR      read the machine under DIR instead of /\n"
	  "  --from FILE     serve a snapshot written by 'discover --json' (re-read\n"
	  "                  every interval)\n"
	  "  --vendor        also query vendor libraries under --root (fake-library tests)\n"
	  "  --no-vendor     never load vendor libraries\n"
	  "  --timeout SEC   deadline for each vendor library (default 5)\n"
	  "  --max-connections N  concurrent connections (default 64)\n"
	  "  --connection-timeout SEC  close idle connections after SEC (default 10)\n"
	  "  --once          collect once, print /metrics to stdout and exit\n"
	  "  --openmetrics   with --once: print OpenMetrics instead of the text format\n"
	  "  --pci-ids F     pci.ids file for device names (default $GPUAUDIT_PCI_IDS)\n"
	  "  -v              log what could not be read (repeat for more)\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Stops cleanly on SIGTERM or SIGINT. Exit status: 0 stopped by a signal (or\n"
	  "--once collected), 2 usage error, bad policy or (--once) no snapshot or NFD\n"
	  "file, 3 cannot listen, 70 internal error.\n" },
	{ "deps", cmd_deps, "audit wheels, images and directories for vendor binaries and GPU code",
	  "usage: gpuaudit deps [--json [--compact] | --sarif] [--no-device-code]\n"
	  "                     [--target SPEC | --for SNAPSHOT.json]\n"
	  "                     [--for-class NAME --policy FILE]\n"
	  "                     [--ld-library-path DIRS] [--max-member-bytes N]\n"
	  "                     [--max-total-bytes N] [-v] PATH...\n"
	  "\n"
	  "Inventory what PATH pulls in from GPU vendors and judge whether it will load\n"
	  "and find kernels on a target node (docs/deps.md). PATH is a file, a directory\n"
	  "(walked recursively; symlinked directories are not followed, FIFOs and\n"
	  "devices are skipped), an archive read without extracting it (wheel, zip,\n"
	  "tar[.gz|.bz2|.xz|.zst], conda .conda/.tar.bz2, .deb, nested archives), an OCI\n"
	  "image layout directory or a 'docker save' tarball, plain or compressed, with\n"
	  "plain, gzip or zstd layers (applied in order, whiteouts honoured). Every ELF\n"
	  "file is inspected: DT_NEEDED, RPATH/RUNPATH, vendor libraries it dlopens,\n"
	  "embedded CUDA fatbins and HIP bundles, static CUDA runtime, x86 ISA level;\n"
	  "*.dist-info, conda metadata, a .deb's control and dpkg's status add declared\n"
	  "dependencies. The loader simulation follows ld.so: RPATH (inherited by what\n"
	  "a library loads), LD_LIBRARY_PATH, RUNPATH, the tree's etc/ld.so.conf, the\n"
	  "system directories.\n"
	  "\n"
	  "  --target SPEC        judge against cuda:VER,sm_XY | rocm:VER,gfxNNN | cpu\n"
	  "                       (optionally ,x86-64-vN), e.g. cuda:12.4,sm_90\n"
	  "  --for FILE           judge against a node snapshot ('discover --json')\n"
	  "  --for-class NAME     apply class NAME's artifacts: rules (allowed backends,\n"
	  "  --policy FILE        required archs) from a policy; without --for or\n"
	  "                       --target the class also defines the target\n"
	  "  --json               print gpuaudit.deps/v1 JSON (inventory and findings)\n"
	  "  --compact            with --json or --sarif: one line\n"
	  "  --sarif              print the findings as SARIF 2.1.0\n"
	  "  --no-device-code     list dynamic linking only: no device-code census\n"
	  "  --ld-library-path DIRS\n"
	  "                       directories (':' separated) the target's environment puts\n"
	  "                       on LD_LIBRARY_PATH, searched by the loader simulation as\n"
	  "                       an image config's Env LD_LIBRARY_PATH is\n"
	  "  --max-member-bytes N cap on one archive member inflated (default 4G)\n"
	  "  --max-total-bytes N  cap on all archive members inflated (default 64G)\n"
	  "  -v                   log more (repeat for more)\n"
	  "  -h, --help           show this help\n"
	  "\n"
	  "A progress line is written to stderr when it is a terminal.\n"
	  "\n"
	  "Exit status: 0 no error-level findings, 1 error-level findings (wrong vendor,\n"
	  "CUDA too new, no kernel image, policy violations...), 2 usage error, a PATH\n"
	  "that cannot be read, or a scan left incomplete (a cap hit, damaged input),\n"
	  "70 internal error.\n" },
	{ "bench", cmd_bench, "benchmarks: primitives per backend and workloads",
	  "usage: gpuaudit bench BENCHMARK [OPTIONS]\n"
	  "\n"
	  "Run one benchmark; 'gpuaudit bench BENCHMARK -h' shows its options.\n"
	  "Results print as text, or as JSON (schema gpuaudit.bench/v1) with --json.\n"
	  "\n"
	  "Benchmarks:\n" },
	{ "smoke", cmd_smoke, "canary smoke test: GEMM, bandwidth, collective, inference per backend",
	  "usage: gpuaudit smoke [--policy FILE [--class NAME]] [OPTIONS]\n"
	  "\n"
	  "The canary pool's smoke test: discovery, a GEMM per backend (fp32, and bf16\n"
	  "on GPUs), stream bandwidth, host<->device transfers, a collective when there\n"
	  "are several GPUs, and a small MLP forward pass through each backend's GEMM\n"
	  "checked against the CPU. Every result is verified against a float64 reference.\n"
	  "With --policy, each figure must reach 95% of the value the node class's\n"
	  "smoke: section expects (docs/smoke.md for the keys).\n"
	  "\n"
	  "  --policy FILE   golden-image policy with smoke: figures per class\n"
	  "  --class NAME    the class to use (default: the one matching this node)\n"
	  "  --size N        GEMM size N (default 512 on CPUs, 8192 on GPUs)\n"
	  "  --elements N    stream array length (default 16M)\n"
	  "  --bytes N       transfer and collective size (default 64M)\n"
	  "  --backends LIST only/without these backends (see 'gpuaudit bench gemm -h')\n"
	  "  --blas LIB      the CPU BLAS library to dlopen\n"
	  "  --reps N        timed repetitions (default 5)\n"
	  "  --deadline SEC  give up with exit 3 when the run takes longer (a hung GPU)\n"
	  "  --json          print gpuaudit.bench/v1 JSON (kind \"smoke\")\n"
	  "  --root DIR, --from FILE, --vendor, --no-vendor, --timeout SEC: as for discover\n"
	  "  -v              log progress to stderr\n"
	  "  -h, --help      show this help\n"
	  "\n"
	  "Exit status: 0 pass, 1 fail (a wrong result, a failure, a figure below 95%\n"
	  "of the policy, or an error-level node finding), 2 usage error, 3 no backend\n"
	  "could run, 70 internal error.\n" },
	{ "canary", cmd_canary, "judge a candidate benchmark result against a baseline",
	  "usage: gpuaudit canary --baseline A.json --candidate B.json\n"
	  "                       [--max-p99-increase PCT] [--max-error-rate PCT]\n"
	  "                       [--confidence C] [--allowed-effect PCT]\n"
	  "                       [--tail-percentile P | --no-tail] [--resamples N] [--seed N]\n"
	  "                       [--json [--compact]] [--plot FILE.svg [--plot-metric NAME]]\n"
	  "\n"
	  "Compare two results of 'gpuaudit bench' (exec, http, gemm, ...; written with\n"
	  "-o or --json) metric by metric: a Mann-Whitney U test on the bulk, classified\n"
	  "Pass/High/Low/NoData as Kayenta does; for lower-is-better metrics a bootstrap\n"
	  "confidence interval of the tail-percentile ratio (a regression of the tail alone\n"
	  "escapes the rank test); for http results a two-proportion test of the error\n"
	  "rates. Absolute limits apply on top. See docs/canary.md.\n"
	  "\n"
	  "  --baseline F          the result of the running version (required)\n"
	  "  --candidate F         the result of the new version (required)\n"
	  "  --max-p99-increase P  tail percentile may rise by P percent (default 10):\n"
	  "                        ROLLBACK when the whole CI of the ratio is above\n"
	  "  --max-error-rate P    ROLLBACK when the candidate's error rate is above P percent\n"
	  "  --confidence C        of every test, 0.98 or 98 (default 0.98)\n"
	  "  --allowed-effect P    median change that is not a regression even when\n"
	  "                        significant (default 5)\n"
	  "  --tail-percentile P   the tail checked (default 99; needs 10/(1-P/100) values\n"
	  "                        per arm, 1000 for p99)\n"
	  "  --no-tail             judge the bulk only (few runs, e.g. bench exec --runs 30)\n"
	  "  --resamples N         bootstrap resamples (default 2000)\n"
	  "  --seed N              bootstrap seed (default 1): same inputs, same verdict\n"
	  "  --json                print the report as JSON\n"
	  "  --compact             with --json: one line\n"
	  "  --plot F.svg          baseline vs candidate percentile spectrum of the first\n"
	  "                        metric (or --plot-metric NAME)\n"
	  "  -h, --help            show this help\n"
	  "\n"
	  "Verdict: ROLLBACK when any check fails (a worse bulk, a tail regression, more\n"
	  "errors, a limit broken); else INCONCLUSIVE when a check lacks data or its\n"
	  "interval straddles the limit; else PASS.\n"
	  "Exit status: 0 PASS, 1 ROLLBACK, 4 INCONCLUSIVE, 2 usage error or unreadable\n"
	  "result, 70 internal error.\n" },
	{ "help", cmd_help, "show help for a command",
	  "usage: gpuaudit help [COMMAND]\n"
	  "\n"
	  "Show the list of commands, or the full help of COMMAND.\n" },
	{ "version", cmd_version, "print the version",
	  "usage: gpuaudit version [--json]\n"
	  "\n"
	  "Print gpuaudit's version (also: gpuaudit --version).\n" },
	{ "__vendor-helper", cmd_vendor_helper, "internal: run one vendor library for a parent gpuaudit",
	  "usage: gpuaudit __vendor-helper nvml|rocm-smi\n"
	  "\n"
	  "Internal. gpuaudit runs vendor libraries (NVML) in this helper mode so that a\n"
	  "library that hangs on a wedged GPU can be killed at a deadline.\n",
	  true },
	{ NULL, NULL, NULL, NULL, false },
};

const struct command *cli_find(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void cli_usage(struct cli *cli, const struct command *c, FILE *to)
{
	(void)cli;
	fputs(c->usage, to);
	if (c->fn == cmd_bench)
		cli_bench_list(to);
}

void cli_main_usage(FILE *to)
{
	fputs("usage: gpuaudit [--version] [-h] COMMAND [ARGS]\n"
	      "\n"
	      "Prove that GPU and accelerator nodes are what you think they are.\n"
	      "\n"
	      "Commands:\n",
	      to);
	for (const struct command *c = commands; c->name; c++)
		if (!c->hidden)
			fprintf(to, "  %-10s %s\n", c->name, c->summary);
	fputs("\n"
	      "'gpuaudit help COMMAND' or 'gpuaudit COMMAND -h' shows a command's options.\n"
	      "Exit status: 0 ok, 1 problems found, 2 usage or unreadable input,\n"
	      "3 backend unavailable, 4 inconclusive, 70 internal error.\n",
	      to);
}

int cli_error(struct cli *cli, const char *cmd, int code, const char *fmt, ...)
{
	fprintf(cli->err, "%s%s%s: ", cli->prog, cmd ? " " : "", cmd ? cmd : "");
	struct ga_buf msg; /* a message quotes paths and inputs: through the text rule (cli_esc) */
	ga_buf_init(&msg, 0);
	va_list ap;
	va_start(ap, fmt);
	int r = ga_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	cli_fputs_esc(cli->err, r == 0 && msg.data ? msg.data : "(out of memory)", GA_TEXT_KEEP_TAB);
	ga_buf_release(&msg);
	fputc('\n', cli->err);
	return code;
}

static void log_stderr(void *udata, enum ga_log_level level, const char *msg)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	struct cli *cli = udata;
	fprintf(cli->err, "%s: %s: %s\n", cli->prog, names[level], cli_esc(msg));
}

int cli_ctx(struct cli *cli, const char *cmd, const char *root, int verbose, struct ga_ctx **ret)
{
	struct ga_ctx *ctx = NULL;
	int r = ga_ctx_new(&ctx);
	if (r < 0)
		return cli_error(cli, cmd, EXIT_INTERNAL, "cannot create context: %s", strerror(-r));
	enum ga_log_level lvl = verbose >= 2 ? GA_LOG_DEBUG : verbose == 1 ? GA_LOG_INFO : GA_LOG_WARN;
	ga_ctx_set_log(ctx, log_stderr, cli, lvl);
	if (!root || !*root)
		root = getenv("GPUAUDIT_ROOT");
	if (root && *root && ga_ctx_set_root(ctx, root) < 0) {
		int code = cli_error(cli, cmd, EXIT_USAGE, "%s", ga_ctx_errmsg(ctx));
		ga_ctx_free(ctx);
		return code;
	}
	*ret = ctx;
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct cli cli = {
		.prog = "gpuaudit",
		.out = stdout,
		.err = stderr,
		.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR"),
	};
	ssize_t n = readlink("/proc/self/exe", cli.self_exe, sizeof(cli.self_exe) - 1);
	if (n > 0)
		cli.self_exe[n] = '\0';
	else
		snprintf(cli.self_exe, sizeof(cli.self_exe), "%s", argv[0]);
	if (argc < 2) {
		cli_main_usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		cli_main_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return cmd_version(&cli, 1, argv + 1);
	const struct command *c = cli_find(name);
	if (!c)
		return cli_error(&cli, NULL, EXIT_USAGE, "unknown command '%s' (see 'gpuaudit help')", name);
	int code = c->fn(&cli, argc - 1, argv + 1);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "gpuaudit: error writing output: %s\n", strerror(errno));
		return EXIT_INTERNAL;
	}
	return code;
}
