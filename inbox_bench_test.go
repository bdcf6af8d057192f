package userinteraction_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	ui "github.com/dsh-go/userinteraction"
)

// openBurst opens n questions on inbox, in AskAll batches of 100 with two
// options each, and returns a channel that receives each batch's error.
func openBurst(b *testing.B, inbox *ui.Inbox, n int) <-chan error {
	done := make(chan error, n/100)
	for i := 0; i < n; i += 100 {
		reqs := make([]ui.Request, 100)
		for j := range reqs {
			reqs[j] = ui.Request{
				Question: fmt.Sprint("Deploy build ", i+j, "?"),
				Options:  []ui.Option{{Label: "Deploy", Value: "deploy", Recommended: true}, {Label: "Wait"}},
			}
		}
		opened := inbox.Changed()
		go func() {
			_, err := inbox.AskAll(context.Background(), reqs)
			done <- err
		}()
		<-opened
	}
	return done
}

// waitBurst waits for the batches of openBurst.
func waitBurst(b *testing.B, done <-chan error, n int) {
	for i := 0; i < n; i += 100 {
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInboxAnswerAll opens n questions and answers them all, as a UI
// does that reads Pending once and responds to each: time per question stays
// the same for 100 and for 10,000 open questions, since an open, a Respond
// and a give-up each cost the same whatever else is open. .ci/run prints the
// ratio of the two.
func BenchmarkInboxAnswerAll(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint("open=", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				inbox := &ui.Inbox{}
				done := openBurst(b, inbox, n)
				for _, q := range inbox.Pending() {
					if err := inbox.Respond(q.ID, ui.Answer{Text: "deploy"}, nil); err != nil {
						b.Fatal(err)
					}
				}
				waitBurst(b, done, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/question")
		})
	}
}

// BenchmarkInboxPoll is a UI that reads Pending at every change, as the
// Handler's event stream does: n questions open, and it answers the oldest
// one after each read until none is left: n reads of n/2 questions on
// average. A change costs the list it reads, so the time per change of
// open=5000 is about 10 times that of open=500. .ci/run prints the ratio.
func BenchmarkInboxPoll(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint("open=", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				inbox := &ui.Inbox{}
				done := openBurst(b, inbox, n)
				for pending := inbox.Pending(); len(pending) > 0; pending = inbox.Pending() {
					if err := inbox.Respond(pending[0].ID, ui.Answer{Text: "deploy"}, nil); err != nil {
						b.Fatal(err)
					}
				}
				waitBurst(b, done, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/change")
		})
	}
}

// BenchmarkInboxEvent is what the Handler's event stream spends at one
// change with n questions open: Pending and its JSON.
func BenchmarkInboxEvent(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint("open=", n), func(b *testing.B) {
			inbox := &ui.Inbox{}
			done := openBurst(b, inbox, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := json.Marshal(inbox.Pending()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			for _, q := range inbox.Pending() {
				if err := inbox.Respond(q.ID, ui.Answer{Text: "wait"}, nil); err != nil {
					b.Fatal(err)
				}
			}
			waitBurst(b, done, n)
		})
	}
}
