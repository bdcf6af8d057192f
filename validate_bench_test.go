package userinteraction_test

import (
	"fmt"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// benchLabels returns a request of n options whose labels are distinct, each
// of short words in several scripts, the costliest labels to check for
// scripts: every word asks for its script.
func benchLabels(n int) ui.Request {
	req := ui.Request{Question: "Which one?"}
	for i := 0; i < n; i++ {
		req.Options = append(req.Options, ui.Option{Label: fmt.Sprintf("%d Да ok δα 日本 %d", i, i)})
	}
	return req
}

// BenchmarkValidateOptions validates requests of 100 and of 1,000 options:
// the time is linear in the number of options, so the second costs about 10
// times the first. .ci/run prints the ratio.
func BenchmarkValidateOptions(b *testing.B) {
	for _, n := range []int{100, 1000} {
		req := benchLabels(n)
		b.Run(fmt.Sprint("options=", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := req.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// largestRequest returns the largest request that Validate accepts, in the
// text costliest to check: 1,000 labels of short words in many scripts, each
// word asking for its script, and non-ASCII prose for the rest of the 64 KiB
// that a request may show.
func largestRequest() ui.Request {
	words := []string{"ok", "да", "δα", "日本", "한국", "ไท", "עב", "عر", "ქა", "हि"}
	req := ui.Request{Header: "Заголовок"}
	size := len(req.Header)
	for i := 0; i < 1000; i++ {
		label := fmt.Sprint(i)
		for j := i; len(label)+len(words[j%len(words)])+1 <= 60; j++ {
			label += " " + words[j%len(words)]
		}
		req.Options = append(req.Options, ui.Option{Label: label})
		size += len(label)
	}
	req.Question = strings.Repeat("é", (64<<10-size)/2)
	return req
}

// BenchmarkValidateLargest validates the largest valid request.
func BenchmarkValidateLargest(b *testing.B) {
	req := largestRequest()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := req.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
