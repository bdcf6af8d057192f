package userinteraction_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// selectAll returns req as a MultiSelect request, and the line that picks
// all its options by label.
func selectAll(req ui.Request) (ui.Request, string) {
	req.MultiSelect = true
	labels := make([]string, len(req.Options))
	for i, o := range req.Options {
		labels[i] = o.Label
	}
	return req, strings.Join(labels, ", ") + "\n"
}

// commaLabels returns a request of n options whose labels of 64 bytes hold
// as many commas as fit: the costliest labels to read a reply against.
func commaLabels(n int) ui.Request {
	req := ui.Request{Question: "Which ones?"}
	for i := 0; i < n; i++ {
		l := fmt.Sprintf("%d, ", i)
		req.Options = append(req.Options, ui.Option{Label: l + strings.Repeat("w, ", 22)[:63-len(l)] + "x"})
	}
	return req
}

// benchmarkReply asks req of a Terminal that reads line, b.N times: Validate,
// the question written to io.Discard, and the reply read.
func benchmarkReply(b *testing.B, req ui.Request, line string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		if _, err := ui.NewTerminal(strings.NewReader(line), io.Discard).Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTerminalSelectAll picks every option by label, at two sizes: the
// time per option stays the same (it once took 12 s at 10,000 options).
func BenchmarkTerminalSelectAll(b *testing.B) {
	for _, n := range []int{100, 1000} {
		req, line := selectAll(manyOptions(n))
		b.Run(fmt.Sprintf("options=%d", n), func(b *testing.B) { benchmarkReply(b, req, line) })
	}
}

// BenchmarkTerminalLargestRequest picks all options of the largest valid
// request by label: its labels of words in many scripts, and labels that
// hold as many commas as fit.
func BenchmarkTerminalLargestRequest(b *testing.B) {
	for _, tt := range []struct {
		name string
		req  ui.Request
	}{{"words", largestRequest()}, {"commas", commaLabels(1000)}} {
		req, line := selectAll(tt.req)
		b.Run(tt.name, func(b *testing.B) { benchmarkReply(b, req, line) })
	}
}

// BenchmarkTerminalPaste reads a pasted line of 100 KB and of 1 MB, of label
// prefixes and commas: against 100 labels with commas, and against labels
// of runs of "w, " of every length up to the longest, after a word no
// label starts with, so that every part ends many labels and no reading
// reaches it. The time per byte stays the same.
func BenchmarkTerminalPaste(b *testing.B) {
	req, _ := selectAll(commaLabels(100))
	runs := ui.Request{Question: "Which ones?", MultiSelect: true}
	for k := 2; 3*k-2 <= 256; k++ {
		runs.Options = append(runs.Options, ui.Option{Label: strings.Repeat("w, ", k-1) + "w"})
	}
	for _, size := range []int{100 << 10, 1 << 20} {
		line := strings.Repeat("w, ", size/3) + "\n"
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) { benchmarkReply(b, req, line) })
		b.Run(fmt.Sprintf("runs/bytes=%d", size), func(b *testing.B) { benchmarkReply(b, runs, "x, "+line[3:]) })
	}
}
