package userinteraction_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
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

// eventWriter is a ResponseWriter of an event stream that reports each
// event it is given on events, and counts its bytes.
type eventWriter struct {
	header http.Header
	events chan<- struct{}
	bytes  atomic.Int64
}

func (w *eventWriter) Header() http.Header { return w.header }
func (w *eventWriter) WriteHeader(int)     {}
func (w *eventWriter) Flush()              {}
func (w *eventWriter) Write(p []byte) (int, error) {
	w.bytes.Add(int64(len(p)))
	for n := bytes.Count(p, []byte("\nevent: ")) + bytes.Count(p[:min(len(p), 7)], []byte("event: ")); n > 0; n-- {
		w.events <- struct{}{}
	}
	return len(p), nil
}

// streamsOf serves n event streams of h, and returns a func that waits for
// one event on each, one that ends them, and the bytes they were sent.
func streamsOf(tb testing.TB, h http.Handler, n int) (each func(), stop func(), sent func() int64) {
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan struct{}, n)
	var served sync.WaitGroup
	writers := make([]*eventWriter, n)
	for i := range writers {
		r := httptest.NewRequest("GET", "/events?token="+pageToken, nil).WithContext(ctx)
		writers[i] = &eventWriter{header: http.Header{}, events: events}
		served.Add(1)
		go func(w *eventWriter) {
			defer served.Done()
			h.ServeHTTP(w, r)
		}(writers[i])
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
	sent = func() (total int64) {
		for _, w := range writers {
			total += w.bytes.Load()
		}
		return total
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
	}, sent
}

// BenchmarkStreamChange is two changes, a question opened and answered, as
// 1 and 8 event streams of one Handler send them with 1,000 and 100,000
// questions open: the time per change and the bytes a stream is sent per
// change stay the same, since a stream sends what changed.
func BenchmarkStreamChange(b *testing.B) {
	for _, open := range []int{1000, 100000} {
		inbox := &ui.Inbox{} // one for both counts of streams: opening 100,000 takes a while
		opened := openBurst(b, inbox, open)
		for _, n := range []int{1, 8} {
			b.Run(fmt.Sprintf("open=%d/streams=%d", open, n), func(b *testing.B) {
				each, stop, sent := streamsOf(b, inbox.Handler(pageToken), n)
				each() // the list at once
				before := sent()
				_, cursor, _ := inbox.Changes(context.Background(), "")
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					done := make(chan error, 1)
					go func() {
						_, err := inbox.Ask(context.Background(), question)
						done <- err
					}()
					changes, next, err := inbox.Changes(context.Background(), cursor) // the question opened
					if err != nil {
						b.Fatal(err)
					}
					each()
					if err := inbox.Respond(changes[0].Pending.ID, ui.Answer{Text: "yes"}, nil); err != nil {
						b.Fatal(err)
					}
					each()
					if err := <-done; err != nil {
						b.Fatal(err)
					}
					_, cursor, _ = inbox.Changes(context.Background(), next) // it ended
				}
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/change")
				b.ReportMetric(float64(sent()-before)/float64(2*b.N*n), "B/change/stream")
				stop()
			})
		}
		for _, q := range inbox.Pending() {
			if err := inbox.Respond(q.ID, ui.Answer{Text: "wait"}, nil); err != nil {
				b.Fatal(err)
			}
		}
		waitBurst(b, opened, open)
	}
}
