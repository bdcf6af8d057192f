package userinteraction_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

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
				b.StopTimer() // the opening waits for goroutines: only the reads count
				inbox := &ui.Inbox{}
				done := openBurst(b, inbox, n)
				b.StartTimer()
				for pending := inbox.Pending(); len(pending) > 0; pending = inbox.Pending() {
					if err := inbox.Respond(pending[0].ID, ui.Answer{Text: "deploy"}, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				waitBurst(b, done, n)
				b.StartTimer()
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

// eventWriter is a ResponseWriter of an event stream that reports each
// "questions" event it is given on events, and keeps nothing.
type eventWriter struct {
	header http.Header
	events chan<- struct{}
}

func (w *eventWriter) Header() http.Header { return w.header }
func (w *eventWriter) WriteHeader(int)     {}
func (w *eventWriter) Flush()              {}
func (w *eventWriter) Write(p []byte) (int, error) {
	for n := bytes.Count(p, []byte("event: questions\n")); n > 0; n-- {
		w.events <- struct{}{}
	}
	return len(p), nil
}

// streamsOf serves n event streams of h, and returns a func that waits for
// one "questions" event on each, and one that ends them.
func streamsOf(tb testing.TB, h http.Handler, n int) (each func(), stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan struct{}, n)
	var served sync.WaitGroup
	for i := 0; i < n; i++ {
		r := httptest.NewRequest("GET", "/events?token="+pageToken, nil).WithContext(ctx)
		served.Add(1)
		go func() {
			defer served.Done()
			h.ServeHTTP(&eventWriter{header: http.Header{}, events: events}, r)
		}()
	}
	each = func() {
		for i := 0; i < n; i++ {
			select {
			case <-events:
			case <-time.After(inboxWait):
				tb.Fatalf("%d of %d streams sent no event", n-i, n)
			}
		}
	}
	return each, func() {
		cancel()
		finished := make(chan struct{})
		go func() { // a stream may wait to report an event
			for {
				select {
				case <-events:
				case <-finished:
					return
				}
			}
		}()
		served.Wait()
		close(finished)
	}
}

// bigQuestions opens n questions of 4 KB each on inbox, and returns their
// IDs and a func that answers them and waits for the asker.
func bigQuestions(tb testing.TB, inbox *ui.Inbox, n int) ([]string, func()) {
	reqs := make([]ui.Request, n)
	for i := range reqs {
		reqs[i] = ui.Request{Question: fmt.Sprint(i, strings.Repeat(" a long question", 256)), Options: []ui.Option{{Label: "Yes"}, {Label: "No"}}}
	}
	opened := inbox.Changed()
	done := make(chan error, 1)
	go func() {
		_, err := inbox.AskAll(context.Background(), reqs)
		done <- err
	}()
	<-opened
	var ids []string
	for _, p := range inbox.Pending() {
		ids = append(ids, p.ID)
	}
	return ids, func() {
		for _, id := range ids {
			if err := inbox.Respond(id, ui.Answer{Text: "Yes"}, nil); err != nil {
				tb.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkInboxEvents is two changes of an Inbox with 50 questions of 4 KB
// open, a question opened and answered, as 1 and as 8 event streams of one
// Handler send them. Each stream reads Pending and encodes it at each
// change, so a change costs about 8 times as much with 8 streams.
func BenchmarkInboxEvents(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprint("streams=", n), func(b *testing.B) {
			inbox := &ui.Inbox{}
			_, answer := bigQuestions(b, inbox, 50)
			each, stop := streamsOf(b, inbox.Handler(pageToken), n)
			each() // the list at once
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				opened := inbox.Changed()
				done := make(chan error, 1)
				go func() {
					_, err := inbox.Ask(context.Background(), question)
					done <- err
				}()
				<-opened
				each()
				p := inbox.Pending()
				if err := inbox.Respond(p[len(p)-1].ID, ui.Answer{Text: "yes"}, nil); err != nil {
					b.Fatal(err)
				}
				each()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			stop()
			answer()
		})
	}
}
