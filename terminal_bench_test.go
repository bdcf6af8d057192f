package userinteraction_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// labelled returns a MultiSelect request of n options whose labels are
// label(i), and the line that picks them all by label.
func labelled(n int, label func(i int) string) (ui.Request, string) {
	req := ui.Request{Question: "Which ones?", MultiSelect: true}
	labels := make([]string, n)
	for i := range labels {
		labels[i] = label(i)
		req.Options = append(req.Options, ui.Option{Label: labels[i]})
	}
	return req, strings.Join(labels, ", ") + "\n"
}

// benchmarkReply asks req of a Terminal that reads line, b.N times.
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
// time per option stays the same (issue 28: 12 s at 10,000 options).
func BenchmarkTerminalSelectAll(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		req, line := labelled(n, func(i int) string { return fmt.Sprint("service-", i) })
		b.Run(fmt.Sprintf("options=%d", n), func(b *testing.B) { benchmarkReply(b, req, line) })
	}
}

// BenchmarkTerminalLargestRequest picks all options of the largest valid
// request by label: 1,000 options with labels of 256 bytes, with a few
// commas, as prose has, and with as many as fit.
func BenchmarkTerminalLargestRequest(b *testing.B) {
	for _, filler := range []string{"word word word, ", "w, "} {
		req, line := labelled(1000, func(i int) string {
			l := fmt.Sprintf("%d, ", i)
			return l + strings.Repeat(filler, 256/len(filler)+1)[:255-len(l)] + "x"
		})
		b.Run(fmt.Sprintf("commas=%d", strings.Count(req.Options[0].Label, ",")), func(b *testing.B) {
			benchmarkReply(b, req, line)
		})
	}
}

// BenchmarkTerminalPaste reads a pasted line of 100 KB and of 1 MB, of
// label prefixes and commas, against 1,000 labels with commas: the time per
// byte stays the same.
func BenchmarkTerminalPaste(b *testing.B) {
	req, _ := labelled(1000, func(i int) string { return strings.Repeat("w, ", 80) + fmt.Sprint(i) })
	for _, size := range []int{100 << 10, 1 << 20} {
		line := strings.Repeat("w, ", size/3) + "\n"
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) { benchmarkReply(b, req, line) })
	}
}
