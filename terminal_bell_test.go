//go:build linux

package userinteraction_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	ui "github.com/dsh-go/userinteraction"
)

// These tests give the Terminal a real pseudo-terminal, a pipe and a buffer
// as its output: only the terminal is rung and notified, once an ask, and
// nothing of the model's text ends or alters the escapes.

// openPTY returns a new pseudo-terminal: its master, where a terminal
// emulator reads, and tty, the terminal a program writes to.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	conn, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var unlock, n uint32
	var errno syscall.Errno
	err = conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock)))
		if errno == 0 {
			_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n)))
		}
	})
	if err != nil || errno != 0 {
		t.Fatalf("unlocking the pseudo-terminal: %v, %v", err, errno)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

// written runs ask with a Terminal that reads replies and writes to out, and
// returns what out received: through master when out is a pseudo-terminal's
// (its "\r\n" as the "\n" written), else from a pipe or a buffer.
func written(t *testing.T, out string, quiet bool, replies string, ask func(context.Context, *ui.Terminal) error) string {
	t.Helper()
	var w io.Writer
	var r io.Reader
	var buf bytes.Buffer
	switch out {
	case "terminal":
		master, tty := openPTY(t)
		w, r = tty, master
	case "pipe":
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pr.Close(); pw.Close() })
		w, r = pw, pr
	default:
		w = &buf
	}
	got := make(chan []byte, 1)
	if r != nil {
		go func() { b, _ := io.ReadAll(r); got <- b }() // until the tty or pipe is closed: EIO or EOF
	}
	term := ui.NewTerminal(strings.NewReader(replies), w)
	term.Quiet = quiet
	if err := ask(context.Background(), term); err != nil {
		t.Fatalf("asking on a %s: %v", out, err)
	}
	if r == nil {
		return buf.String()
	}
	w.(*os.File).Close()
	return strings.ReplaceAll(string(<-got), "\r\n", "\n")
}

func askOnce(req ui.Request) func(context.Context, *ui.Terminal) error {
	return func(ctx context.Context, term *ui.Terminal) error {
		_, err := term.Ask(ctx, req)
		return err
	}
}

// bellOf returns what the Terminal sends a terminal before a question from
// agent (or none) whose first row is body.
func bellOf(agent, body string) string {
	title := strings.ReplaceAll(agent, ";", ",")
	if agent == "" {
		title = "A question waits"
	}
	return "\x1b]9;" + title + ": " + body + "\a\x1b]777;notify;" + title + ";" + body + "\a\a"
}

// TestTerminalRingsATerminal: on a terminal, each question written rings
// once, before it, with BEL, OSC 9 and OSC 777; a question asked again after
// a refused reply does not ring. Without the escapes, the
// terminal shows what a buffer gets.
func TestTerminalRingsATerminal(t *testing.T) {
	deploy := ui.Request{
		Question: "\n  Deploy to staging?\nThe tests passed.",
		Options:  []ui.Option{{Label: "Yes"}, {Label: "No"}},
		Agent:    &ui.Agent{ID: "a1", Name: "deploy;bot"},
	}
	free := ui.Request{Question: "Name the release.\tIt ships today."}
	release := "Name the release." + strings.Repeat(" ", 7) + "It ships today." // the tab to column 24
	tests := []struct {
		name    string
		replies string
		ask     func(context.Context, *ui.Terminal) error
		bells   []string // in order
	}{
		{"an ask", "1\n", askOnce(deploy), []string{bellOf("deploy;bot", "Deploy to staging?")}},
		{"a reply refused, then one taken", "7\nmaybe later\nYes\n", askOnce(ui.Request{
			Question: deploy.Question, Options: deploy.Options, DisallowCustom: true, Agent: deploy.Agent,
		}), []string{bellOf("deploy;bot", "Deploy to staging?")}},
		{"a free-form ask, a tab as spaces", "v2\n", askOnce(free),
			[]string{bellOf("", release)}},
		{"two asks", "1\nv2\n", func(ctx context.Context, term *ui.Terminal) error {
			if _, err := term.Ask(ctx, deploy); err != nil {
				return err
			}
			_, err := term.Ask(ctx, free)
			return err
		}, []string{bellOf("deploy;bot", "Deploy to staging?"), bellOf("", release)}},
		{"a host's title holding a ;", "v2\n", func(ctx context.Context, term *ui.Terminal) error {
			term.Words = ui.Words{"A question waits": "Eine Frage; bitte"}
			_, err := term.Ask(ctx, free)
			return err
		}, []string{bellOf("Eine Frage; bitte", release)}},
		{"a batch of three", "v2\n1\n2\n", func(ctx context.Context, term *ui.Terminal) error {
			_, err := term.AskAll(ctx, []ui.Request{free, deploy, deploy})
			return err
		}, []string{bellOf("", release), bellOf("deploy;bot", "Deploy to staging?"), bellOf("deploy;bot", "Deploy to staging?")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := written(t, "terminal", false, tt.replies, tt.ask)
			want := written(t, "buffer", false, tt.replies, tt.ask)
			if n := strings.Count(got, "\a"); n != 3*len(tt.bells) {
				t.Errorf("the terminal got %d BEL, want %d (a BEL and two notifications an ask):\n%q", n, 3*len(tt.bells), got)
			}
			rest := got
			for _, bell := range tt.bells {
				before, after, ok := strings.Cut(rest, bell)
				if !ok {
					t.Fatalf("the terminal got no %q in:\n%q", bell, rest)
				}
				if before != "" && !strings.HasSuffix(before, "\n") && !strings.HasSuffix(before, "> ") { // a reply ends the row
					t.Errorf("the bell is written after %q, not where a question starts", before)
				}
				if !strings.HasPrefix(after, want[len(before):len(before)+10]) {
					t.Errorf("the bell comes before %q, want before the question", after)
				}
				rest = before + after
			}
			if rest != want {
				t.Errorf("without the bells, the terminal shows\n%q\nwant what a buffer gets\n%q", rest, want)
			}
		})
	}
}

// TestTerminalRingsOnlyATerminal: a pipe, a buffer and a Quiet Terminal on
// a terminal get no BEL and no escape.
func TestTerminalRingsOnlyATerminal(t *testing.T) {
	ask := askOnce(deployWhere)
	for _, tt := range []struct {
		out   string
		quiet bool
	}{{"pipe", false}, {"buffer", false}, {"terminal", true}} {
		got := written(t, tt.out, tt.quiet, "1\n", ask)
		if !strings.Contains(got, "Deploy where?") || strings.ContainsAny(got, "\a\x1b") {
			t.Errorf("a %s (Quiet %v) got %q, want the question without BEL or ESC", tt.out, tt.quiet, got)
		}
	}
}

// TestTerminalBellOfHostileText: what Validate lets into a question or a
// name holds no control that could end or alter an escape (C0, DEL, C1, a
// bidi control), so a request with one writes nothing. What it lets through
// reaches the notifications in one row of at most 100 columns, cut with
// "…", and never splits 777's fields.
func TestTerminalBellOfHostileText(t *testing.T) {
	allowed := func(c rune) bool {
		return c >= 0x20 && c != 0x7f && !(0x80 <= c && c <= 0x9f) && c != 0x2028 && c != 0x2029 &&
			(!unicode.Is(unicode.Cf, c) || c == 0x200c || c == 0x200d)
	}
	for c := rune(0); c <= 0xE01EF; c++ {
		if c == 0x10000 { // the planes above hold no control but the tags
			c = 0xE0000
		}
		for _, req := range []ui.Request{{Question: "a" + string(c) + "b"}, {Question: "a", Agent: &ui.Agent{Name: "a" + string(c) + "b"}}} {
			if req.Validate() == nil && !allowed(c) && !(req.Agent == nil && (c == '\n' || c == '\t')) {
				t.Fatalf("Validate lets %U into %+v", c, req)
			}
		}
	}
	for _, c := range []string{"\x1b", "\a", "\x1b\\", "\x1b]9;x\a", "\u009c", "\u009b", "\u009d", "\x7f", "\r",
		"\u0085", "\u2028", "\u202e", "\u2066", "\u200e", "\u061c", "\ufeff", "\U000e0041"} {
		req := ui.Request{Question: "Deploy?" + c}
		out := written(t, "terminal", false, "", func(ctx context.Context, term *ui.Terminal) error {
			_, err := term.Ask(ctx, req)
			if ui.CodeOf(err) == ui.CodeInvalidRequest {
				return nil
			}
			return fmt.Errorf("Ask(%q) error = %v, want INVALID_REQUEST", req.Question, err)
		})
		if out != "" {
			t.Errorf("Ask(%q) wrote %q, want nothing", req.Question, out)
		}
	}

	long := strings.Repeat("x", 10000)
	tests := []struct{ agent, question, body string }{
		{"", long, long[:99] + "…"},
		{"", strings.Repeat("deploy ", 100), strings.TrimSpace(strings.Repeat("deploy ", 14)) + "…"},
		{"", strings.Repeat("部署", 100), strings.Repeat("部署", 24) + "部…"},
		{"", strings.Repeat("x", 98) + "e\u0301\u0302\u0303\u0304" + long, strings.Repeat("x", 98) + "e\u0301\u0302\u0303\u0304…"},
		{"4;3;50", "9;4;3;100 ]777;notify;x;y \\ ; is no ending", "9;4;3;100 ]777;notify;x;y \\ ; is no ending"},
		{strings.Repeat(";", 100), "שלום, לפרוס?\nrow 2", "שלום, לפרוס?"},
		{"", "\t\tindented\ttab", "indented" + strings.Repeat(" ", 8) + "tab"},
	}
	for _, tt := range tests {
		req := ui.Request{Question: tt.question}
		if tt.agent != "" {
			req.Agent = &ui.Agent{Name: tt.agent}
		}
		got := written(t, "terminal", false, "ok\n", askOnce(req))
		osc9, osc777, ok := notifications(got)
		if !ok {
			t.Fatalf("question %q: the terminal got %q, want BEL and two notifications", clipped(tt.question), got)
		}
		title, body, _ := strings.Cut(strings.TrimPrefix(osc777, "777;notify;"), ";")
		if body != tt.body || osc9 != "9;"+title+": "+body {
			t.Errorf("question %q: notifications %q and %q, want the body %q", clipped(tt.question), osc9, osc777, tt.body)
		}
		if want := strings.ReplaceAll(tt.agent, ";", ","); tt.agent != "" && (columns(title) > 100 ||
			!strings.HasPrefix(want, strings.TrimSuffix(title, "…"))) {
			t.Errorf("agent %q: title %q, want its start without \";\", at most 100 columns", tt.agent, title)
		}
		if n := columns(body); n > 100 || !utf8.ValidString(osc777) {
			t.Errorf("body %q of %d columns, want at most 100 of UTF-8", body, n)
		}
		for _, c := range osc9 + osc777 {
			if !allowed(c) {
				t.Errorf("question %q: a notification holds %U", clipped(tt.question), c)
			}
		}
	}
}

// notifications returns the payloads of the OSC 9 and OSC 777 that out
// holds, when it holds them once each, one after the other, and a BEL.
func notifications(out string) (osc9, osc777 string, ok bool) {
	_, rest, ok := strings.Cut(out, "\x1b]")
	osc9, rest, ok2 := strings.Cut(rest, "\a\x1b]")
	osc777, rest, ok3 := strings.Cut(rest, "\a\a")
	return osc9, osc777, ok && ok2 && ok3 && strings.HasPrefix(osc9, "9;") && strings.HasPrefix(osc777, "777;notify;") &&
		!strings.ContainsAny(osc9+osc777+rest, "\a\x1b")
}
