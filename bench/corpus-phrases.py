#!/usr/bin/env python3
"""corpus-phrases - would rows mined from the corpus's words carry to incidents nobody has seen?
(issue 27)

The catalogue's rows are written by hand, each from a source or a family of threads. The
question here: for the incidents that match no row, do the words of their logs predict the
thread's conclusion well enough that rows mined from word statistics (phrases whose incidents
nearly all end in one class and decision) would be right on a fresh batch?

Leave one batch out: for each batch (slug prefix `xx-`; the first, unprefixed incidents are one
batch), phrases are mined from every other batch; then each incident of the left-out batch that
matches no row of the catalogue gets the label of its purest, most frequent mined phrase, and
that label is compared with the thread's. A phrase is two or three words of the log (lower
case, numbers and hex as `#`), seen in at least MIN_N incidents of at least MIN_BATCHES batches,
with at least PURITY of them sharing one class/decision.

    bench/corpus-phrases.py [GPUAUDIT] [MIN_N,PURITY,MIN_BATCHES ...]

GPUAUDIT (default build/gpuaudit) gives which incidents match no row (bench/corpus-topcauses.sh).
Prints one line per parameter set: the unmatched incidents, how many a mined phrase would
label, and how many of those labels agree with the thread (class and decision both); and,
for comparison, how many one fixed guess (the most common label of the unmatched) would get.
"""
import collections
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCIDENTS = os.path.join(TOP, "tests", "corpus", "incidents")


def load(gpuaudit):
    out = subprocess.run(["sh", os.path.join(TOP, "bench", "corpus-topcauses.sh"), gpuaudit],
                         check=True, capture_output=True, text=True).stdout
    unmatched = {}
    for line in out.splitlines():
        f = line.split("\t")
        unmatched[f[0]] = f[2].startswith("-")
    inc = {}
    for cat in sorted(os.listdir(INCIDENTS)):
        d = os.path.join(INCIDENTS, cat)
        if not os.path.isdir(d):
            continue
        for fn in sorted(os.listdir(d)):
            if not fn.endswith(".log"):
                continue
            slug = fn[:-4]
            key = cat + "/" + slug
            exp = {}
            with open(os.path.join(d, slug + ".expect"), encoding="utf-8", errors="replace") as fh:
                for x in fh:
                    if ": " in x:
                        k, v = x.rstrip("\n").split(": ", 1)
                        exp[k] = v
            m = re.match(r"^([a-z]{2})-", slug)
            with open(os.path.join(d, fn), encoding="utf-8", errors="replace") as fh:
                txt = fh.read().lower()
            words = re.findall(r"[a-z_#]+", re.sub(r"0x[0-9a-f]+|\d+", "#", txt))
            grams = set()
            for n in (2, 3):
                for i in range(len(words) - n + 1):
                    g = words[i:i + n]
                    if g.count("#") < n:
                        grams.add(" ".join(g))
            inc[key] = {"batch": m.group(1) if m else "_",
                        "label": exp["class"] + "/" + exp["decision"],
                        "grams": grams, "unmatched": unmatched[key]}
    return inc


def mine(inc, keys, min_n, purity, min_batches):
    idx = collections.defaultdict(list)
    for k in keys:
        for g in inc[k]["grams"]:
            idx[g].append(k)
    rules = {}
    for g, ks in idx.items():
        if len(ks) < min_n or len({inc[k]["batch"] for k in ks}) < min_batches:
            continue
        label, n = collections.Counter(inc[k]["label"] for k in ks).most_common(1)[0]
        if n / len(ks) >= purity:
            rules[g] = (label, n / len(ks), len(ks))
    return rules


def lobo(inc, min_n, purity, min_batches):
    t = collections.Counter()
    for b in sorted({v["batch"] for v in inc.values()}):
        rules = mine(inc, [k for k in inc if inc[k]["batch"] != b], min_n, purity, min_batches)
        for k in sorted(k for k in inc if inc[k]["batch"] == b and inc[k]["unmatched"]):
            t["unmatched"] += 1
            hits = sorted(((rules[g][1], rules[g][2], g) for g in inc[k]["grams"] if g in rules),
                          reverse=True)
            if not hits:
                continue
            t["labelled"] += 1
            t["right" if rules[hits[0][2]][0] == inc[k]["label"] else "wrong"] += 1
    return t


def main():
    args = sys.argv[1:]
    gpuaudit = os.path.join(TOP, "build", "gpuaudit")
    if args and "," not in args[0]:
        gpuaudit = args.pop(0)
    sets = [tuple(a.split(",")) for a in args] or [("4", "0.9", "3"), ("5", "0.85", "3"),
                                                      ("8", "0.8", "4"), ("3", "1.0", "2")]
    inc = load(gpuaudit)
    print(f"incidents {len(inc)}, batches {len({v['batch'] for v in inc.values()})}, "
          f"matching no row {sum(v['unmatched'] for v in inc.values())} ({gpuaudit})")
    um = [v["label"] for v in inc.values() if v["unmatched"]]
    if um:
        label, n = collections.Counter(um).most_common(1)[0]
        print(f"the most common label of the unmatched: {label}, {n} of {len(um)} "
              f"({100.0 * n / len(um):.1f} %): what one fixed guess would get")
    print("min_n purity min_batches | unmatched labelled right wrong | right % of labelled")
    for s in sets:
        min_n, purity, min_batches = int(s[0]), float(s[1]), int(s[2])
        t = lobo(inc, min_n, purity, min_batches)
        pct = 100.0 * t["right"] / t["labelled"] if t["labelled"] else 0.0
        print(f"{min_n:5d} {purity:6.2f} {min_batches:11d} | {t['unmatched']:9d} {t['labelled']:8d} "
              f"{t['right']:5d} {t['wrong']:5d} | {pct:5.1f}")


if __name__ == "__main__":
    main()
