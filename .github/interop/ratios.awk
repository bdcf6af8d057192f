# ratios.awk prints the felt figures of felt_test.go's benchmarks: within
# each pass (a "goos:" line starts one), each round with the package against
# the plain round, and NewForm against the hand-written Elicit; then the
# median of each over the passes. A pass run with -count takes each
# benchmark's fastest time, which other work on the machine can only slow.
# "own" is the package's code alone: the round less the same params sent to
# a tool that ignores them. "with the state" adds the SDK's work on the
# state and the responses the package's rounds carry.
# Usage: awk -f ratios.awk bench.txt
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
/^goos:/ { p++ }
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	if (!((p, name) in ns) || $3 < ns[p, name]) ns[p, name] = $3
}
END {
	for (i = 1; i <= p; i++) {
		plain = ns[i, "BenchmarkRoundPlain"]
		own[i] = (ns[i, "BenchmarkRoundAnswer"] - ns[i, "BenchmarkRoundAnswerBase"]) / plain
		answer[i] = ns[i, "BenchmarkRoundAnswer"] / plain - 1
		ask[i] = ns[i, "BenchmarkRoundAsk"] / plain - 1
		own10[i] = (ns[i, "BenchmarkRoundAnswerAll10"] - ns[i, "BenchmarkRoundAnswerAll10Base"]) / plain
		answer10[i] = ns[i, "BenchmarkRoundAnswerAll10"] / plain - 1
		ask10[i] = ns[i, "BenchmarkRoundAskAll10"] / plain - 1
		serve[i] = ns[i, "BenchmarkServeAnswer"] / plain
		serve10[i] = ns[i, "BenchmarkServeAnswerAll10"] / plain
		form[i] = ns[i, "BenchmarkElicitForm"] / ns[i, "BenchmarkElicitHand"]
	}
	printf "felt figures, median of %d passes, each a share of a plain round:\n", p
	printf "  one question:  own %+.3f (goal 0.05); with the state %+.3f; first round %+.3f; serve alone %.3f\n",
		median(own, p), median(answer, p), median(ask, p), median(serve, p)
	printf "  AskAll of ten: own %+.3f (goal 0.10); with the state %+.3f; first round %+.3f; serve alone %.3f\n",
		median(own10, p), median(answer10, p), median(ask10, p), median(serve10, p)
	printf "  NewForm / hand-written Elicit = %.3f (goal 1.05)\n", median(form, p)
}
