package userinteraction_test

import (
	"fmt"
	"strings"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// forgedState returns a state of about n bytes in Seal's alphabet that no
// key sealed.
func forgedState(n int) string {
	return strings.Repeat("A", n) + "." + strings.Repeat("A", 43)
}

// TestOpenReplayForgedBytes: a client may send any requestState. One that
// was never sealed is refused after its MAC, before any JSON is read, at a
// cost of at most twice its own bytes, whatever it holds: its decoding, and
// the copy of it that Go 1.21's base64 makes (newer Go makes none).
func TestOpenReplayForgedBytes(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	for _, state := range []string{
		forgedState(1 << 20),
		strings.Repeat("e30", 1<<18) + "." + strings.Repeat("A", 43), // "{}{}{}..." as the payload
		strings.Repeat("W1tb", 1<<18) + ".AA",                        // "[[[..." and a short MAC
	} {
		var err error
		got := bytesPerRun(3, func() { _, err = ui.OpenReplay(key, "call", state) })
		wantCode(t, "OpenReplay()", err, ui.CodeInvalidState)
		if got > 2*uint64(len(state)) {
			t.Errorf("OpenReplay() of %d forged bytes allocates %d bytes, want at most %d", len(state), got, 2*len(state))
		}
	}
}

// TestReplayRecordHostile: records a host reads back (a database row, a
// file) of hostile shapes are errors, never a panic, and cost bytes
// bounded by what they hold.
func TestReplayRecordHostile(t *testing.T) {
	for _, tt := range []struct{ name, data string }{
		{"nested past encoding/json's depth", `{"q":{"answer":"x","option":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`},
		{"nested arrays as an option", `{"q":{"answer":"x","option":[[[[{"label":"a"}]]]]}}`},
		{"nested objects as a label", `{"q":{"answer":"x","option":{"label":{"label":{"label":"a"}}}}}`},
		{"a count of 30,000 digits", `{"q":{"refused":` + strings.Repeat("9", 30000) + `,"hint":"h"}}`},
		{"a count as an exponent", `{"q":{"refused":1e0,"hint":"h"}}`},
		{"10,000 duplicate keys", `{"q":{"answer":"x"` + strings.Repeat(`,"answer":"x"`, 10000) + `}}`},
		{"a duplicate key spelt with an escape", `{"q":{"answer":"x","\u0061nswer":"y"}}`},
		{"a duplicate ID spelt with an escape", `{"q":{"answer":"x"},"\u0071":{"answer":"y"}}`},
		{"an escaped lone surrogate", `{"q":{"answer":"\ud800x"}}`},
		{"a top-level array of 100,000", `[` + strings.TrimSuffix(strings.Repeat(`1,`, 100000), ",") + `]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rp ui.Replay
			var err error
			got := bytesPerRun(3, func() { err = rp.UnmarshalJSON([]byte(tt.data)) })
			if err == nil {
				t.Fatalf("UnmarshalJSON(%.40q) = nil, want an error", tt.data)
			}
			if limit := uint64(40*len(tt.data) + 4096); got > limit {
				t.Errorf("UnmarshalJSON() of %d bytes allocates %d bytes, want at most %d", len(tt.data), got, limit)
			}
		})
	}
}

// BenchmarkOpenReplayForged opens forged states of n and 10n bytes in one
// run: the cost a byte stays the same.
func BenchmarkOpenReplayForged(b *testing.B) {
	key := []byte(strings.Repeat("k", 32))
	for _, n := range []int{1 << 20, 10 << 20} {
		state := forgedState(n)
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(state)))
			for i := 0; i < b.N; i++ {
				_, _ = ui.OpenReplay(key, "call", state)
			}
		})
	}
}

// BenchmarkReplayRecordEntries reads records of n and 10n entries in one
// run: the cost an entry stays the same.
func BenchmarkReplayRecordEntries(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		var sb strings.Builder
		sb.WriteString("{")
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `"%032x":{"answer":"x","options":[{"label":"a"}],"via":"v"}`, i)
		}
		sb.WriteString("}")
		data := []byte(sb.String())
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				var rp ui.Replay
				if err := rp.UnmarshalJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
