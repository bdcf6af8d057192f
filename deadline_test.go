package userinteraction_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// TestAskDeadlineSaysSo: when nobody answers before the caller's deadline,
// the model's error says that no answer came before the deadline, and
// errors.Is still finds context.DeadlineExceeded. A deadline that passed
// before the question was asked says that instead, and a plain cancellation
// says that the asker stopped.
func TestAskDeadlineSaysSo(t *testing.T) {
	waits := ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		<-ctx.Done()
		return ui.Answer{}, ctx.Err()
	})
	passed, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want string
		is   error
	}{
		{"nobody answers in time", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Millisecond)
		}, "no answer came before the deadline", context.DeadlineExceeded},
		{"deadline passed before asking", func() (context.Context, context.CancelFunc) {
			return passed, func() {}
		}, "the deadline passed before the question was asked", context.DeadlineExceeded},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			return cancelled, func() {}
		}, "the asker stopped before the question was asked", context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			scope := ui.WithRegistry(ctx, &ui.Registry{})
			dispose, err := ui.Register(scope, waits)
			if err != nil {
				t.Fatal(err)
			}
			defer dispose()
			_, err = ui.Ask(scope, ui.Request{Question: "Deploy now?"})
			var he *ui.HarnessError
			if !errors.As(err, &he) || he.Code != ui.CodeAskAborted || !strings.Contains(he.Message, tt.want) {
				t.Fatalf("Ask() = %v, want ASK_ABORTED saying %q", err, tt.want)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(Ask(), %v) = false, want true", tt.is)
			}
		})
	}
}

// TestAskAskerStoppedSaysSo: an asker that stops while the human thinks gets
// ASK_ABORTED saying that it stopped waiting, which a UI and an audit show.
func TestAskAskerStoppedSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scope := ui.WithRegistry(ctx, &ui.Registry{})
	dispose, err := ui.Register(scope, ui.ProviderFunc(func(ctx context.Context, req ui.Request) (ui.Answer, error) {
		cancel() // the asker stops once the question is shown
		<-ctx.Done()
		return ui.Answer{}, ctx.Err()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer dispose()
	_, err = ui.Ask(scope, ui.Request{Question: "Deploy now?"})
	var he *ui.HarnessError
	const want = "ask aborted: the asker stopped waiting before the question was answered"
	if !errors.As(err, &he) || he.Code != ui.CodeAskAborted || he.Message != want || !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask() = %v, want ASK_ABORTED %q wrapping context.Canceled", err, want)
	}
}
