#!/bin/sh
# times.sh - where make check's time went: one row per suite (wall time, CPU
# time, guest boots and their total time), slowest first, from the TIME- lines
# testsuite/timed.sh left at the end of each suite's log; then their sum and
# the span from the first start to the last end (the suites run two at once).
# usage: times.sh LOG...      (the logs of the suites that ran)
awk '
/^TIME-BOOT: / { boots[FILENAME]++; bsec[FILENAME] += $5
	s = $2; sub(/^[0-9]+\.[0-9]+/, "", s); s = substr($2, 1, length($2) - length(s))   # the series
	k = FILENAME SUBSEP s ($3 > 1 ? "x" $3 : "")
	if (!(k in cnt)) order[FILENAME] = order[FILENAME] SUBSEP k
	cnt[k]++; sec[k] += $5 }
/^TIME-SUITE: / { name[FILENAME] = $2; wall[FILENAME] = $3
	if (NF >= 10) { if (first == "" || $8 < first) first = $8; if ($10 > last) last = $10 }
	if (NF >= 12) cpu[FILENAME] = $12 }
END {
	n = 0
	for (f in name) { n++; key[n] = f }
	for (i = 2; i <= n; i++)       # insertion sort, slowest first
		for (j = i; j > 1 && wall[key[j]] > wall[key[j - 1]]; j--) { t = key[j]; key[j] = key[j - 1]; key[j - 1] = t }
	printf "%-28s %7s %7s %6s %8s  %s\n", "suite", "wall s", "CPU s", "boots", "boot s", "boots per kernel series (xCPUs)"
	for (i = 1; i <= n; i++) {
		f = key[i]; tw += wall[f]; tc += cpu[f]; tb += boots[f]; ts += bsec[f]
		per = ""; m = split(order[f], ks, SUBSEP)
		for (j = 2; j <= m; j += 2) {
			k = ks[j] SUBSEP ks[j + 1]
			per = per sprintf(" %s: %d in %.0f s", ks[j + 1], cnt[k], sec[k])
		}
		printf "%-28s %7d %7d %6d %8.0f %s\n", name[f], wall[f], cpu[f], boots[f], bsec[f], per
	}
	printf "%-28s %7d %7d %6d %8.0f\n", "sum (suites overlap)", tw, tc, tb, ts
	if (last != "")
		printf "%-28s %7d  (%.1f min: from the first start to the last end)\n", "all suites", last - first, (last - first) / 60
}' "$@"
