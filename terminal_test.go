package userinteraction_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	ui "github.com/dsh-go/userinteraction"
)

// writerFunc is an io.Writer that calls itself.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestTerminalHonoursContext checks the terminal provider of the examples: a
// cancelled step returns at once although no input comes, and a line typed
// later answers the next question.
func TestTerminalHonoursContext(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	prompted := make(chan struct{}, 1)
	term := newTerminal(in, writerFunc(func(p []byte) (int, error) {
		if strings.HasPrefix(string(p), "> ") {
			prompted <- struct{}{}
		}
		return len(p), nil
	}))
	session := scope(t, term)

	ctx, cancel := context.WithCancel(session)
	done := askAsync(ctx, question)
	<-prompted
	cancel()
	err := <-done
	wantCode(t, "Ask()", err, ui.CodeAskAborted)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() error = %v, want it to wrap context.Canceled", err)
	}

	go func() {
		<-prompted
		_, _ = typing.Write([]byte("later\n"))
	}()
	if ans, err := ui.Ask(session, question); err != nil || ans.Text != "later" {
		t.Fatalf("Ask() = %+v, %v, want the line typed later", ans, err)
	}
}

// TestTerminalReadError: a read error ends the input as ASK_CANCELLED with the
// error as cause, not as a silent end of input.
func TestTerminalReadError(t *testing.T) {
	errDisk := errors.New("read /dev/tty: input/output error")
	session := scope(t, newTerminal(iotest.ErrReader(errDisk), io.Discard))
	_, err := ui.Ask(session, question)
	wantCode(t, "Ask()", err, ui.CodeAskCancelled)
	if !errors.Is(err, errDisk) {
		t.Fatalf("Ask() error = %v, want it to wrap the read error", err)
	}
}

// TestTerminalParseLine checks the terminal example's reading of input lines,
// since UIs copy it: a typo must never become an answer.
func TestTerminalParseLine(t *testing.T) {
	opts := []ui.Option{{Label: "a", Recommended: true}, {Label: "b"}, {Label: "c", Recommended: true}}
	single := ui.Request{Question: "q", Options: opts[:2], DisallowCustom: true}
	custom := ui.Request{Question: "q", Options: opts[:2]}
	multi := ui.Request{Question: "q", Options: opts, MultiSelect: true, DisallowCustom: true}
	free := ui.Request{Question: "q"}
	tests := []struct {
		req  ui.Request
		line string
		want string // the answer's text after Ask, or "" when the line is refused
	}{
		{single, "2", "b"}, {single, " 1 ", "a"}, {single, "", "a"}, {single, "3", ""}, {single, "0", ""},
		{single, "1,2", ""}, {single, "b", ""}, {single, "-1", ""},
		{custom, "7", ""}, {custom, "later", "later"}, {custom, "", "a"},
		{multi, "3,1", "a, c"}, {multi, "", "a, c"}, {multi, "1, 2", "a, b"}, {multi, "1,1", ""}, {multi, "1,4", ""},
		{multi, "1,", ""}, {multi, "x", ""},
		{free, "42", "42"}, {free, "", ""}, {free, "  spaced  ", "spaced"},
	}
	for _, tt := range tests {
		ans, ok := parseLine(tt.req, tt.line)
		if !ok {
			if tt.want != "" {
				t.Errorf("parseLine(%q) refused, want %q", tt.line, tt.want)
			}
			continue
		}
		got, err := askAnswer(t, tt.req, ans)
		if err != nil || got.Text != tt.want {
			t.Errorf("parseLine(%q) then Ask() = %s, %v, want %q", tt.line, show(got), err, tt.want)
		}
	}
}
