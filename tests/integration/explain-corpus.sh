#!/bin/sh
# explain-corpus - score `gpuaudit explain` against the corpus of recorded incidents
# (tests/corpus, issue 27): every tests/corpus/incidents/<category>/<slug>.log is a user's
# error text as posted in a public thread, and <slug>.expect says what the thread concluded
# (class and decision). The top-ranked cause of `gpuaudit explain --json` gives the class
# and the action (no cause: class "unknown", action "investigate"); both are compared with
# the expectation. Prints the score by category (class %, decision %, n) and every miss,
# and fails when the whole corpus scores below the floors:
#
#   MIN_CLASS / MIN_DECISION (percent, whole corpus; override with the environment)
#
# The floors are a RATCHET, not the goal: the issue's target is 95 % on both; the floors
# are the floor of what the catalogue reaches today, so a change that loses incidents
# fails, and whoever raises the score raises them (docs/explain.md, "Corpus"). Now 65/70:
# LOWERED from 67/71 by the eight blind batches of the twenty-third session, km to kt (157
# incidents, h173-h180: queries that name a diagnostic or benchmark tool, a volunteer-computing,
# password-cracking or mining application, a hosted notebook or GPU cloud, a package or build
# manager, the operating-system layer, a parallel programming model, CI and test infrastructure,
# and queries in ten more languages; SOURCES-km.md to SOURCES-kt.md; blind 24.2 / 29.3 %: km to kp
# with the session's first binary, kq to kt with the binary holding km-kp's rows (the first
# binary scores them the same); fitted by the lead's rows 41.4 / 47.1 %, none turned wrong): 2186
# incidents, class 65.96 %, decision 70.1 %; the 2029 incidents of the session's start alone
# 67.9 / 71.9 % (unchanged).
# Before, 67/71:
# LOWERED from 70/73 by the eight blind batches of the twenty-second session, ke to kl (151
# incidents, h165-h172: queries that name a software version, a platform, a scientific
# application, a media application, a symptom in the users' words, a programming ecosystem, a
# server platform or hardware part, and queries in other languages; SOURCES-ke.md to
# SOURCES-kl.md; blind 25.8 / 31.1 %, each pair with the binary from before it was read and with
# the session's first binary alike: the rows written from one pair's misses turned none of the
# next pairs' incidents right; fitted by the lead's rows 38.4 / 43.0 %, none turned wrong): 2029
# incidents, class 67.9 %, decision 71.9 %; the 1878 incidents of the session's start alone
# 70.2 / 74.2 % (70.1 / 73.9 % at its start).
# Before, 70/73:
# LOWERED from 70/74 by the four blind batches of the twenty-first session, ka, kb, kc and kd (65
# incidents, h161-h164: a sixth set of generic queries, then queries that name a GPU model,
# SOURCES-ka.md to SOURCES-kd.md; blind 36.9 / 40.0 % with the session's first binary, 36.9 / 41.5 %
# with the call-site rule and the Vulkan loader's rows written before they were read; fitted by the
# lead's rows 47.7 / 53.8 %, none turned wrong): 1878 incidents, class 70.1 %, decision 73.9 %; the
# 1813 incidents of the session's start alone 70.9 / 74.6 % (70.7 / 74.3 % at its start).
# Before, 70/74:
# LOWERED from 71/75 by the last two blind batches of the twentieth session, jy and jz (36
# incidents, h159 and h160, a fifth set of generic queries, SOURCES-jy.md and SOURCES-jz.md; blind
# 30.6 / 33.3 % with the session's first binary and with every row of the session alike; fitted by
# the lead's two rows 36.1 / 38.9 %, none turned wrong): 1813 incidents, class 70.7 %, decision
# 74.3 %; the 1700 incidents of the session's start alone 72.6 / 75.9 %.
# Before, 71/75:
# kept after two more blind batches of the twentieth session, jw and jx (38 incidents, h157 and
# h158, a fourth set of generic queries, SOURCES-jw.md and SOURCES-jx.md; blind 31.6 / 36.8 % with
# the session's first binary, 34.2 / 39.5 % with the rows written before they were read: one jx
# incident turned right by a generic-family row; fitted 44.7 / 52.6 %): 1777 incidents, class
# 71.4 %, decision 75.0 % (1333 of 1777, 75.01 %).
# LOWERED from 72/75 by held-out batches ju and jv of the twentieth session (39 incidents
# collected blind by h155 and h156 with a third set of generic queries, SOURCES-ju.md and
# SOURCES-jv.md; with the session's first binary and with the generic-family rows written
# before they were read alike 17.9 / 28.2 %, bench/results/corpus-heldout-s20.txt), although the
# lead's rows from their misses (46.2 / 56.4 % on the 39, fitted) turned 11 right and none wrong:
# 1739 incidents, class 72.0 % (1252, one short of 72), decision 75.5 %; the 1700 incidents of
# the session's start alone 72.6 / 75.9 % (72.5 / 75.9 then).
# Before, 72/75:
# LOWERED from 72/76 by held-out batches js and jt of the nineteenth session (31 incidents
# collected blind by h153 and h154 with a second set of generic queries, SOURCES-js.md and
# SOURCES-jt.md; js's 8 incidents of accelerators gpuaudit does not read were removed before
# scoring; with the session's first binary and with the jq/jr rows alike 29.0 / 35.5 %,
# bench/results/corpus-heldout-s19.txt), although the lead's rows from their misses (48.4 /
# 51.6 % on the 31, fitted; one turned an older incident right) turned 6 right, 1 more right on
# the class only, none wrong: 1700 incidents, class 72.5 %, decision 75.8 %; the 1633 incidents
# of the session's start alone 73.2 / 76.7 %.
# Before, 72/76:
# LOWERED from 73/76 by held-out batches jq and jr of the nineteenth session (36 incidents
# collected blind by h151 and h152 with generic queries across all layers, as an operator and
# as an application user would search, SOURCES-jq.md and SOURCES-jr.md; with the session's first
# binary 38.9 / 30.6 %, bench/results/corpus-heldout-s19.txt), although the lead's rows from
# their misses (63.9 / 58.3 % on the 36, fitted) turned 9 incidents right, 3 more right on the
# decision only, and none wrong: 1669 incidents, class 72.9 %, decision 76.3 %; the 1633 older incidents alone
# 73.1 / 76.7 % (73.1 / 76.5 then).
# Before, 73/76:
# RAISED from 70/74 by the eighteenth session's backlog pass (h140-h146 re-read all 493 misses of
# the 1593 incidents by category, across batches: 37 turned right, none wrong, 1593 incidents
# 73.3 / 76.8 %) and the rows from the misses of two more blind batches, jo and jp (36 incidents,
# h147 and h148, SOURCES-jo.md and SOURCES-jp.md: with the session's first binary and with the
# backlog rows alike 22.2 / 25.0 %; fitted by h149 61.1 / 63.9 %; its rows also turned 3 older
# incidents right); second threads `fb-` 4 (h141, h143): 1633 incidents, class 73.1 %, decision
# 76.5 %, bench/results/corpus-heldout-s18.txt.
# Before, 70/74:
# LOWERED from 72/75 by held-out batches je ... jn of the seventeenth session (191 incidents
# collected blind by h119-h122, h128-h130 and h134-h136, SOURCES-je.md ... SOURCES-jn.md, each on
# one kind of fleet: ML compilers, data-science stacks, rendering and media, distributed
# training, inference serving, distro driver packaging, life-science apps, robotics and
# simulation, computer vision, consumer AMD/Intel GPUs for AI; with the session's first binary
# all 191 24.6/26.7 %, bench/results/corpus-heldout-s17.txt), although the rows from their own
# misses (h124-h127, h131-h133, h137-h139: all 191 60.2/63.9 %, fitted; second threads `fjk-`,
# `fjl-`, `fjm-` 1 each) and h123's two wrong actions turned 71 incidents right and none wrong
# against the first binary: 1593 incidents, class 70.9 %, decision 74.5 %; the 1399 older
# incidents alone 72.3 % / 75.8 % (72.2 / 75.7 then).
# Before, 72/75:
# LOWERED from 74/77 by held-out batches iw, ix, iy, iz, ja, jb, jc and jd of the sixteenth
# session (133 incidents collected blind by h104, h105, h107, h110, h112, h114, h116 and h118,
# SOURCES-iw.md ... SOURCES-jd.md, each on one kind of fleet: the newest generations, cloud and
# orchestrated clusters, HPC codes, virtualization, edge devices, monitoring agents, power and
# thermal health, Intel Gaudi; batch iv, forums and Q&A sites, found none; with the session's
# first binary iw 55.0/65.0 %, ix 20.0/35.0 %, iy 23.8/23.8 %, iz 5.6/11.1 %, ja 20.0/25.0 %, jb
# 0.0/11.1 %, jc 0.0/0.0 %, jd 20.0/20.0 %, all 133 19.5/26.3 %), although the rows from their own
# misses (h106, h108, h109, h111, h113, h115, h117 and the lead for jd: all 133 51.1/57.9 %,
# fitted; second threads `fiw-` 1, `fja-` 3) and the lead's loose "CUDA error" form turned 46
# incidents right and none wrong against the first binary: 1399 incidents, class 72.2 % (1010),
# decision 75.7 % (1059); the 1262 older incidents alone 74.3 % / 77.5 % (74.4 / 77.4 then).
# Before, 74/77:
# LOWERED from 76/79 by held-out batches ir, is, it and iu of the fifteenth session (69
# incidents collected blind by h95, h96, h99 and h100, SOURCES-ir.md ... SOURCES-iu.md; with
# the session's first binary ir 19.0/14.3 %, is 18.2/22.7 %, it 66.7/33.3 %, iu 10.0/25.0 %,
# all 69 20.3/21.7 %; it and iu were also scored with the binary holding the rows written from
# ir's and is's misses: the same), although the rows from their own misses (h97, h98, h101,
# h102: ir 57.1/47.6 %, is 31.8/40.9 %, it 66.7/33.3 %, iu 35.0/55.0 %, fitted; three second
# threads `fir-`, `fiu-`) and the lead's "CUDA error! %d" form turned 19 incidents right and
# none wrong against the first binary: 1262 incidents, class 74.4 % (939), decision 77.4 %
# (977); the 1190 older incidents alone 76.1 % / 79.2 % (76.1 / 79.1 then).
# Before, 76/79:
# RAISED from 72/75 by the fourteenth session: a second sweep of every category's misses
# (h84-h89, docs/explain.md "Second sweep: ..."; on the 1140 incidents of the session's start
# 72.8/75.9 % -> 77.0/80.1 %, 49 misses turned right, none wrong; 8 second threads `sw-`),
# held-out batches ip and iq (41 incidents collected blind by h90 and h91, SOURCES-ip.md and
# SOURCES-iq.md; with the session's first binary ip 18.2/22.7 %, iq 5.3/5.3 %; after the sweep,
# whose rows were written before either batch was read, 22.7/27.3 % and 5.3/5.3 %: one
# incident moved) and the rows from their own misses (h92-fixip, h93-fixiq: ip 54.5/59.1 %, iq
# 31.6/31.6 %, fitted; one second thread `fip-`): 1190 incidents, class 76.1 % (905), decision
# 79.1 % (941). `bench/corpus-topcauses.sh --diff` from the session's first binary: 71 turned
# right, 0 wrong.
# Before, 72/75:
# LOWERED from 76/79 by held-out batches ih, ii, ij, ik, il, im, in and io of the thirteenth
# session (181 incidents collected blind by h68, h69, h72, h73, h76, h77, h80 and h81,
# SOURCES-ih ... SOURCES-io.md; with the session's first binary ih 13.0/17.4 %, ii 24.0/24.0 %,
# ij 41.2/47.1 %, ik 26.1/26.1 %, il 18.2/18.2 %, im 12.5/12.5 %, in 19.2/15.4 %, io 0.0/23.8 %;
# in and io were also scored with the binary holding every row written from the six before them:
# 19.2/15.4 % and 0.0/19.0 %), although the session's changes (rows from each batch's own misses
# by h70, h71, h74, h75, h78, h79, h82 and h83; 15 tables of codes by h65-h67; the lead's
# cupti-profiler-conflict, exit statuses no runtime code, and the classes of opencl-no-platform
# and cuda-no-device) turned 69 incidents right and 2 wrong against the first binary
# (bench/corpus-topcauses.sh --diff; the 2 are opencl-no-platform's configuration incidents, its
# class now the majority's, driver): 1140 incidents, class 72.8 %, decision 75.9 %; the 952 older
# incidents alone 77.1 % / 80.0 % (docs/explain.md, "Six blind batches and fifteen more code
# tables (thirteenth session)", and the sections of batches in and io after it).
# Before, 76/79:
# LOWERED from 77/81 by held-out batches id, ie, if and ig of the twelfth session (89
# incidents collected blind by h51-batchid, h57-batchie, h60-batchif and h63-batchig,
# SOURCES-id/ie/if/ig.md; with the session's first binary id 26.9/34.6 %, ie 9.5/9.5 %,
# if 42.9/42.9 %, ig 33.3/33.3 %), although the session's rows (the sweep of every older miss
# by h52-h55, the Windows codes of h59-windows, the rows from each batch's own misses by h56,
# h58, h61 and h64) turned 39 incidents right and none wrong (bench/corpus-topcauses.sh --diff
# against the first binary): 952 incidents, class 76.6 %, decision 79.8 %; the 855 older
# incidents alone 79.1 % / 82.3 %
# (docs/explain.md, "The whole corpus's misses swept, Windows' codes, and batches id, ie and if").
# Before, 77/81:
# LOWERED from 78/81 by held-out batch ic (20 incidents collected blind by h50-batchic at the
# end of the eleventh session, SOURCES-ic.md: 40.0/40.0 % with the session's first binary,
# 40.0/50.0 % with main, after the rows from batches ia and ib): 855 incidents, class 77.8 %,
# decision 81.2 %. Before that, h49-fixib's rows from batch ib's misses (ib 54.5/54.5 % ->
# 68.2/81.8 %, fitted) had taken the 835 to 78.7/81.9 %.
# Before, 78/81, KEPT with held-out batch ib (22 incidents collected blind by h48-batchib after batch ia's
# rows, SOURCES-ib.md: 54.5/54.5 % with the session's first binary and with main alike):
# 835 incidents, class 78.3 %, decision 81.2 %.
# Before, 78/81, KEPT after the rows from batch ia's own misses (h47-fixia; ia 45.5/31.8 % -> 63.6/54.5 %,
# fitted): 813 incidents, class 78.97 % (642, printed 79.0), decision 81.9 % (666).
# Before, 78/81:
# LOWERED from 79/82 by held-out batch ia (22 incidents collected blind by h46-batchia at the
# start of the eleventh session, SOURCES-ia.md: 36.4/27.3 % with the session's first binary;
# 36.4/27.3 % with the driver API's and NVML's message tables, 45.5/31.8 % with "unknown error"
# kept as cudaErrorUnknown's own text and darknet's "CUDA Error: " prefix): 813 incidents,
# class 78.5 % (638), decision 81.3 % (661).
# Before, 79/82:
# LOWERED from 80/83 by held-out batch hg (21 incidents collected blind after every row of
# the session was merged, SOURCES-hg.md: 33.3/42.9 % with the session's first binary and
# with every row of the session alike; 52.4/66.7 % with rows from its own misses, h45-fixhg):
# 791 incidents, class 79.4 % (628), decision 82.7 % (654).
# Before, 80/83,
# KEPT with held-out batches hd and he (46 incidents collected blind while six helpers wrote
# 411 rows and patterns from the vendors' sources; blind 19.6/23.9 % with the session's first
# binary, 21.7/26.1 % with the source rows, 69.6/69.6 % with rows from their own misses,
# h43-fixhd/h43-fixhe) and 2 second threads: 770 incidents, class 80.0 % (616), decision
# 83.1 % (640); docs/explain.md "Vendor sources against fresh incidents".
# Before, 80/83:
# RAISED from 79/83 by the rows from batch hc's own misses (h41-fixhc; hc 28.0/32.0 % ->
# 56.0/56.0 %) and h40-ras (no incident moved): 722 incidents, class 80.5 % (581),
# decision 83.9 % (606).
# Before, 79/83:
# LOWERED from 81/84 by held-out batch hc (25 incidents collected blind at the session's
# end, SOURCES-hc.md; 24.0/24.0 % with the session's first binary, 28.0/32.0 % with every
# row of the session): 722 incidents, class 79.4 % (573), decision 83.1 % (600).
# Before, 81/84:
# RAISED from 78/81 by the rows written class by class for every miss (h39-*: each miss put
# in a bucket, docs/explain.md "Remaining misses, ...") and for held-out batch hb's misses
# (h40-fixhb), with hb's 27 incidents (blind 40.7/48.1 % at the session's start and after
# the h39 rows, 66.7/74.1 % with rows from its own misses) and 10 second threads: 697
# incidents, class 81.2 % (566), decision 84.9 % (592). Of the 159 misses at 78/81, 25 are
# right now, 1 on decision only, and 133 are judged ambiguous from the text or one
# product's own message (docs/explain.md, "Remaining misses: where the corpus stands").
# Before, 78/81:
# LOWERED from 79/82 by three more held-out batches sampled by fixed queries (y, z, p: 67
# incidents, blind at the end of the session's frequency rows 40.0/36.0, 27.8/38.9 and
# 33.3/37.5 %; with rows from their own misses 52.0/48.0, 50.0/55.6, 50.0/54.2 %) and 66
# incidents written up with the session's rows: 660 incidents, class 78.3 % (517), decision 81.7 % (539).
# Before, 79/82:
# LOWERED from 80/82 by four held-out batches sampled by fixed queries (q, r, w, x: 94
# incidents; w and x scored blind at the session's end 30.0/45.0 and 23.1/42.3 %) and 51
# incidents of the frequency rows: 527 incidents, class 79.1 % (417), decision 82.9 % (437).
# Before, 80/82, LOWERED by one decision kept the same in explain and health: corrected PCIe AER errors
# are ga_aer_decide's (none, investigate for a storm) in both again, not explain's
# fix_config for any one corrected line (h30-aik); the five incidents whose threads fixed
# a flood in the kernel's settings show one or two lines each, so they miss: 382
# incidents, class 80.1 % (306), decision 82.98 % (317). Before, 81/84
# with three incidents that repeated another's thread removed (tests/corpus/README.md,
# "Duplicates removed"): 382 incidents, class 81.4 % (311), decision 84.3 % (322). Set:
# LOWERED from 84/86 by held-out batches l, m and n (38 incidents, each batch committed
# before gpuaudit ran on it; before their rules 8.3/16.7, 7.7/23.1 and 7.7/7.7 %, after
# 8.3/25.0, 53.8/69.2 and 92.3/92.3 %): the 385 score class 81.6 % (314), decision 84.4 %
# (325), the 347 before them unchanged at 84.7 % / 86.7 %. Before, 84/86:
# the 347 incidents after h30-aik, h30-nv, h30-hofix and h30-batchk score class 84.7 %
# (294), decision 86.7 % (301); held-out batch k's 18 scored 16.7 % / 16.7 % before the
# rules of h30-batchk. Before, 76/79:
# LOWERED from 83/85 by held-out batch i (tests/corpus/incidents/SOURCES-i.md): 31 incidents
# collected and committed before gpuaudit ran on any, scored 16.1 % / 25.8 %; the 297
# together 76.1 % / 79.5 %, the 266 older ones unchanged at 83.1 % / 85.7 %. Before, 83/85:
# h27-decisions (the container toolkit's "load library failed" as configuration, an amdgpu
# VM fault only in vmid 0 as the driver's) took the 266 incidents to class 83.1 % (221 of
# 266), decision 85.7 % (228 of 266). Before that 81/85: the 266 incidents of all six
# branches merged (h27-corpus3b's 25 added to the 241 below) scored class 81.95 % (218 of
# 266, printed 82.0), decision 85.3 %. Before that, set over the
# 241 incidents of the h27-corpus, h27-corpus-b, h27-corpus2, h27-corpus3a and h27-corpus4
# branches together: class 81.3 %, decision 85.1 %. LOWERED from 82/86 by h27-corpus4: its
# 32 held-out incidents (all nine categories) score 71.9 % / 71.9 % after its signatures
# (53.1 % / 50.0 % before), below the rest, while the 209 older ones rose from 82.3 % /
# 86.1 % to 82.8 % / 87.1 %. Earlier held-out batches: h27-corpus2's 19 scored 31.6 % /
# 31.6 % before its changes, 84.2 % / 89.5 % after; h27-corpus3a's 25 (amd, intel, kernel)
# 20.0 % / 24.0 % before, 76.0 % / 80.0 % after; h27-corpus4's half B (16 incidents no
# rule was written from) 43.8 % / 43.8 % before, 50.0 % / 50.0 % after.
# CORPUS_DIRS (space-separated) adds incident trees to score beside tests/corpus/incidents.
# A malformed .expect (a field missing, a value outside the sets) fails the test, and so
# does a thread cited by two incidents (it would count one conclusion twice).
# ctest passes the gpuaudit binary. Exit 77 (skipped) without python3.
set -u
command -v python3 >/dev/null 2>&1 || exit 77
GPUAUDIT=$1
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
MIN_CLASS=${MIN_CLASS:-65}
MIN_DECISION=${MIN_DECISION:-70}
# A sanitizer build: the score is the normal build's (the same code); here the whole
# corpus goes through one explain as one log, for the memory checks without 184
# sanitizer start-ups (about 50 s on 2 cores).
if [ "${GA_SANITIZE:-OFF}" = ON ]; then
	all=$(mktemp) || exit 1
	# the corpus and every fixture log (cli/explain-signatures, which the sanitizer pass skips)
	find "$SRCDIR/tests/corpus/incidents" "$SRCDIR/tests/fixtures/logs" -name '*.log' | sort | xargs cat >"$all"
	"$GPUAUDIT" explain --json "$all" >"$all.json" 2>"$all.err"
	rc=$?
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$all.json" || rc=99
	echo "note: sanitizer build: the corpus and the fixture logs read as one log of $(wc -l <"$all") lines: exit $rc (the score is the normal build's)"
	rm -f "$all" "$all.json" "$all.err"
	case $rc in 0 | 1 | 4) exit 0 ;; *) echo "FAIL: explain exit $rc"; exit 1 ;; esac
fi
exec python3 - "$GPUAUDIT" "$MIN_CLASS" "$MIN_DECISION" "$SRCDIR/tests/corpus/incidents" ${CORPUS_DIRS:-} <<'EOF'
import json, os, subprocess, sys

gpuaudit, min_class, min_dec = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
roots = sys.argv[4:]
CLASSES = {"node_hardware", "driver", "container_runtime", "application", "network",
           "configuration"}
ACTIONS = {"investigate", "none", "restart_workload", "reset_gpu", "reboot", "drain",
           "replace", "fix_config"}
FIELDS = ("source", "category", "class", "decision", "basis", "conclusion")
bad, rows = [], []
seen = {}  # source URL -> the incident that cites it: one thread, one incident
for root in roots:
    if not os.path.isdir(root):
        bad.append(f"{root}: not a directory")
        continue
    for cat in sorted(os.listdir(root)):
        d = os.path.join(root, cat)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".log"):
                continue
            log = os.path.join(d, name)
            exp = log[:-4] + ".expect"
            if not os.path.exists(exp):
                bad.append(f"{log}: no .expect")
                continue
            e = {}
            with open(exp, encoding="utf-8") as f:
                for line in f:
                    k, sep, v = line.partition(":")
                    if sep:
                        e[k.strip()] = v.strip()
            miss = [k for k in FIELDS if not e.get(k)]
            if miss or e["class"] not in CLASSES or e["decision"] not in ACTIONS or \
               e["basis"] not in ("maintainer", "reporter-confirmed") or e["category"] != cat:
                bad.append(f"{exp}: malformed (missing {miss or 'nothing'}, class "
                           f"{e.get('class')}, decision {e.get('decision')}, category "
                           f"{e.get('category')})")
                continue
            if e["source"] in seen:
                bad.append(f"{exp}: the thread {e['source']} is already the incident "
                           f"{seen[e['source']]}: one incident per thread")
                continue
            seen[e["source"]] = os.path.relpath(exp, root)
            p = subprocess.run([gpuaudit, "explain", "--json", log], capture_output=True)
            if p.returncode not in (0, 1, 4):  # 4: inconclusive, no cause
                bad.append(f"{log}: explain exited {p.returncode}: {p.stderr.decode()[:200]}")
                continue
            doc = json.loads(p.stdout)
            c = doc["causes"][0] if doc["causes"] else None
            got_class = c["class"] if c else "unknown"
            got_action = c["action"] if c else "investigate"
            rows.append((cat, os.path.relpath(log, root), e["class"], e["decision"], got_class,
                         got_action, c["id"] if c else "-"))

def pct(a, n):
    return 100.0 * a / n if n else 0.0

print(f"{'category':<16} {'n':>4} {'class %':>8} {'decision %':>11}")
cats = sorted({r[0] for r in rows})
for cat in cats + ["all"]:
    rs = [r for r in rows if cat in ("all", r[0])]
    n = len(rs)
    ok_c = sum(r[2] == r[4] for r in rs)
    ok_d = sum(r[3] == r[5] for r in rs)
    print(f"{cat:<16} {n:>4} {pct(ok_c, n):>8.1f} {pct(ok_d, n):>11.1f}")
misses = [r for r in rows if r[2] != r[4] or r[3] != r[5]]
if misses:
    print("\nmisses (incident: expected class/decision, got class/action from the top cause):")
    for r in misses:
        print(f"  {r[1]}: expected {r[2]}/{r[3]}, got {r[4]}/{r[5]} ({r[6]})")
for b in bad:
    print(f"error: {b}")
n = len(rows)
cls, dec = pct(sum(r[2] == r[4] for r in rows), n), pct(sum(r[3] == r[5] for r in rows), n)
fail = bool(bad) or n == 0 or cls < min_class or dec < min_dec
print(f"\nwhole corpus: {n} incidents, class {cls:.1f} % (floor {min_class:g}), decision "
      f"{dec:.1f} % (floor {min_dec:g}): {'FAIL' if fail else 'ok'}")
sys.exit(1 if fail else 0)
EOF
