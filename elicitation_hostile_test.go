package userinteraction_test

import (
	"fmt"
	"testing"
	"unsafe"

	ui "github.com/dsh-go/userinteraction"
)

// hostilePicks returns a response's content whose "choice" holds n picks of
// one label, as a client sends it and encoding/json decodes it.
func hostilePicks(n int) map[string]any {
	picks := make([]any, n)
	for i := range picks {
		picks[i] = "lint"
	}
	return map[string]any{"choice": picks}
}

// TestElicitationAnswerPicksBytes: a client may send any number of picks
// (no SDK checks a Replay host's inputResponses against the form), and
// README's host maps them with ElicitationAnswer and records them. That
// costs the bytes of the answer's picks and of the record's copy of them,
// not a multiple of them from slices grown pick by pick. Bytes, not time:
// they do not depend on the machine's load.
func TestElicitationAnswerPicksBytes(t *testing.T) {
	const n = 100000
	content := hostilePicks(n)
	picks := uint64(n) * uint64(unsafe.Sizeof(ui.Option{}))
	got := bytesPerRun(3, func() {
		ans, err := ui.ElicitationAnswer("accept", content)
		(&ui.Replay{}).Record("q", ans, err)
	})
	if got > 3*picks {
		t.Fatalf("ElicitationAnswer() and Record() of %d picks allocate %d bytes, %.1f times the %d of the picks, want at most 3",
			n, got, float64(got)/float64(picks), picks)
	}
}

// BenchmarkElicitationAnswerPicks maps a response of n and 10n picks in one
// run: the bytes and time a pick stay the same.
func BenchmarkElicitationAnswerPicks(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		content := hostilePicks(n)
		b.Run(fmt.Sprintf("picks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ans, err := ui.ElicitationAnswer("accept", content)
				(&ui.Replay{}).Record("q", ans, err)
			}
		})
	}
}
