# ratios.awk prints the felt figures of felt_test.go's benchmarks, each with
# its goal: within each pass (a "goos:" line starts one), the shares and
# ratios of the variants that one benchmark interleaved, and then the median
# of each over the passes. A share is README's host less the hand-written
# host, as a fraction of a plain round. Within a pass run with -count, each
# variant's fastest time counts: other work on the machine only slows it.
# Usage: awk -f ratios.awk bench.txt
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function v(b, unit) { return ns[p, b, "ns/" unit] }
/^goos:/ { p++ }
/^BenchmarkFelt/ {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkFelt/, "", name)
	for (i = 3; i < NF; i += 2)
		if ($(i+1) ~ /^ns\// && (!((p, name, $(i+1)) in ns) || $i < ns[p, name, $(i+1)])) ns[p, name, $(i+1)] = $i
}
END {
	n = 0
	for (q = 1; q <= p; q++) {
		if (!((q, "One", "ns/plain") in ns)) continue
		n++
		oneAsk[n] = (ns[q, "One", "ns/ask"] - ns[q, "One", "ns/hand-ask"]) / ns[q, "One", "ns/plain"]
		oneAnswer[n] = (ns[q, "One", "ns/answer"] - ns[q, "One", "ns/hand-answer"]) / ns[q, "One", "ns/plain"]
		tenAsk[n] = (ns[q, "Ten", "ns/ask"] - ns[q, "Ten", "ns/hand-ask"]) / ns[q, "Ten", "ns/plain"]
		tenAnswer[n] = (ns[q, "Ten", "ns/answer"] - ns[q, "Ten", "ns/hand-answer"]) / ns[q, "Ten", "ns/plain"]
		plain[n] = ns[q, "One", "ns/plain"] / 1000
		form[n] = ns[q, "Form", "ns/form"] / ns[q, "Form", "ns/hand"]
		seal[n] = ns[q, "Seal", "ns/seal"] / ns[q, "Seal", "ns/jwt-sign"]
		open[n] = ns[q, "Seal", "ns/open"] / ns[q, "Seal", "ns/jwt-parse"]
	}
	printf "felt figures, median of %d passes (a plain round: %.1f us); README's host less a hand-written one, as a share of a plain round:\n", n, median(plain, n)
	printf "  one question:        first round %+.3f, last round %+.3f (goal <= 0.10 each)\n", median(oneAsk, n), median(oneAnswer, n)
	printf "  AskAll of ten:       first round %+.3f, last round %+.3f (goal <= 0.15 each)\n", median(tenAsk, n), median(tenAnswer, n)
	printf "  NewForm / hand-written Elicit = %.3f (goal <= 1.05)\n", median(form, n)
	printf "  Seal / jwt HS256 sign = %.3f (goal <= 1), OpenReplay / jwt parse = %.3f (goal <= 1.5)\n", median(seal, n), median(open, n)
}
