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
// as many commas as fit, so that no reply joins labels with commas.
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
// request: by label, its labels of words in many scripts; by number, labels
// that hold as many commas as fit.
func BenchmarkTerminalLargestRequest(b *testing.B) {
	words, line := selectAll(largestRequest())
	b.Run("words", func(b *testing.B) { benchmarkReply(b, words, line) })
	commas, numbers := commaLabels(1000), "1"
	commas.MultiSelect = true
	for i := 2; i <= len(commas.Options); i++ {
		numbers += fmt.Sprintf(",%d", i)
	}
	b.Run("commas", func(b *testing.B) { benchmarkReply(b, commas, numbers+"\n") })
}

// BenchmarkTerminalPaste reads a pasted line of 100 KB and of 1 MB, of
// pieces of labels and commas, against 100 labels with commas: each part is
// looked up, and the line is the human's own words. The time per byte
// stays the same.
func BenchmarkTerminalPaste(b *testing.B) {
	req, _ := selectAll(commaLabels(100))
	for _, size := range []int{100 << 10, 1 << 20} {
		line := strings.Repeat("w, ", size/3) + "\n"
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) { benchmarkReply(b, req, line) })
	}
}
