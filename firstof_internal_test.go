package userinteraction

import (
	"context"
	"testing"
)

// claiming is a UI that hands its answer to Decide before it confirms it, as a UI
// that tells its human "your answer was taken" must. It waits for go, claims
// text, reports the claim on claimed, and returns its answer when the claim
// held, else it waits to be withdrawn.
type claiming struct {
	text    string
	start   <-chan struct{}
	claimed chan bool
	after   <-chan struct{} // closed when it may return its answer; nil: at once
}

func (c *claiming) Ask(ctx context.Context, req Request) (Answer, error) {
	<-c.start
	ans := Answer{Text: c.text, Via: c.text}
	_, err := Decide(ctx, Outcome{Answer: ans})
	ok := err == nil
	c.claimed <- ok
	if !ok {
		<-ctx.Done()
		return Answer{}, ctx.Err()
	}
	if c.after != nil {
		<-c.after
	}
	return ans, nil
}

func newClaiming(text string, start <-chan struct{}) *claiming {
	return &claiming{text: text, start: start, claimed: make(chan bool, 1)}
}

// refused reports whether c was called and its claim was refused. A UI that
// a race withdrew before it began is never called, which is no refusal.
func (c *claiming) refused() bool {
	select {
	case ok := <-c.claimed:
		return !ok
	default:
		return true
	}
}

// TestFirstOfClaim: the first UI to claim wins the race, even when another
// UI's answer reaches the race before the claimant's does. The others are
// withdrawn at the claim, with the claimant's outcome as their cause, and
// their own claims fail. Outside a race, a claim always holds.
func TestFirstOfClaim(t *testing.T) {
	req := Request{Question: "Deploy?"}
	if _, err := Decide(context.Background(), Outcome{Answer: Answer{Text: "yes"}}); err != nil {
		t.Fatalf("Decide() outside a race = %v, want nil", err)
	}

	// The page claims once the terminal shows the question, then holds its
	// answer back while the terminal answers without claiming: the page's
	// answer wins.
	shown := make(chan struct{})
	release := make(chan struct{})
	page := newClaiming("page", shown)
	page.after = release
	seen := make(chan Outcome, 1)
	terminal := ProviderFunc(func(ctx context.Context, _ Request) (Answer, error) {
		close(shown)
		<-ctx.Done() // withdrawn at the page's claim
		o, _ := EndedElsewhere(ctx)
		seen <- o
		close(release)
		return Answer{Text: "terminal", Via: "terminal"}, nil // a late answer: dropped
	})
	ans, err := FirstOf(page, terminal).Ask(context.Background(), req)
	if err != nil || ans.Text != "page" {
		t.Fatalf("Ask() = %+v, %v, want the claimant's answer", ans, err)
	}
	if o := <-seen; o.Answer.Via != "page" {
		t.Fatalf("EndedElsewhere() = %+v, want the page's outcome", o)
	}

	// Two claimants: the second one's claim fails.
	first, second := make(chan struct{}), make(chan struct{})
	a, b := newClaiming("a", first), newClaiming("b", second)
	go func() {
		close(first)
		ok := <-a.claimed
		a.claimed <- ok
		close(second)
	}()
	ans, err = FirstOf(a, b).Ask(context.Background(), req)
	if err != nil || ans.Text != "a" {
		t.Fatalf("Ask() = %+v, %v, want the first claimant's answer", ans, err)
	}
	if !b.refused() {
		t.Fatal("the second claim held, want it refused")
	}
}

// TestFirstOfClaimNested: a UI in a FirstOf inside another claims the outer
// race too, so a UI of the outer race that claims later is refused, and the
// UIs of both races learn the winner's outcome.
func TestFirstOfClaimNested(t *testing.T) {
	shown, later := make(chan struct{}), make(chan struct{})
	inner := newClaiming("inner", shown)
	outer := newClaiming("outer", later)
	sibling := make(chan Outcome, 1)
	waits := ProviderFunc(func(ctx context.Context, _ Request) (Answer, error) {
		close(shown)
		<-ctx.Done()
		o, _ := EndedElsewhere(ctx)
		sibling <- o
		return Answer{}, ctx.Err()
	})
	go func() {
		ok := <-inner.claimed
		inner.claimed <- ok
		close(later)
	}()
	ans, err := FirstOf(FirstOf(inner, waits), outer).Ask(context.Background(), Request{Question: "Deploy?"})
	if err != nil || ans.Text != "inner" {
		t.Fatalf("Ask() = %+v, %v, want the inner claimant's answer", ans, err)
	}
	if !outer.refused() {
		t.Fatal("the outer UI's later claim held, want it refused")
	}
	if o := <-sibling; o.Answer.Text != "inner" {
		t.Fatalf("the inner sibling's EndedElsewhere() = %+v, want the inner claimant's outcome", o)
	}
}
