package userinteraction_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	ui "github.com/dsh-go/userinteraction"
)

// The benchmarks compare Ask with BenchmarkContextFloor, the cost that any
// design able to abort an in-flight ask must pay. Run them with:
//
//	go test -run '^$' -bench . -benchmem -count 6 .

var (
	benchFree    = ui.Request{Question: "Proceed?"}
	benchOptions = ui.Request{
		Question: "Overwrite config.yaml?",
		Header:   "Write file",
		Options: []ui.Option{
			{Label: "Yes", Value: "yes"},
			{Label: "No", Value: "no", Recommended: true},
			{Label: "Show diff"},
		},
		DisallowCustom: true,
	}
)

// benchScope returns a session context, cancellable like a real agent step's,
// whose registry has a provider that answers every question with "no".
func benchScope(tb testing.TB) context.Context {
	ctx, cancel := context.WithCancel(ui.WithRegistry(context.Background(), &ui.Registry{}))
	tb.Cleanup(cancel)
	dispose, err := ui.Register(ctx, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
		return ui.Answer{Text: "no"}, nil
	}))
	if err != nil {
		tb.Fatalf("Register() error = %v", err)
	}
	tb.Cleanup(dispose)
	return ctx
}

func BenchmarkContextFloor(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancelCause(parent)
		_ = ctx
		cancel(nil)
	}
}

// BenchmarkContextFloorParallel is the floor with one parent per goroutine,
// as in BenchmarkAskParallel: how far this machine scales it.
func BenchmarkContextFloorParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		parent, cancel := context.WithCancel(context.Background())
		defer cancel()
		for pb.Next() {
			ctx, cancel := context.WithCancelCause(parent)
			_ = ctx
			cancel(nil)
		}
	})
}

func BenchmarkAsk(b *testing.B) {
	ctx := benchScope(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ui.Ask(ctx, benchFree); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAskOptions(b *testing.B) {
	ctx := benchScope(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ans, err := ui.Ask(ctx, benchOptions); err != nil || ans.Option == nil {
			b.Fatal(ans, err)
		}
	}
}

func BenchmarkAskParallel(b *testing.B) {
	scope := benchScope(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine is its own agent step, with its own context.
		ctx, cancel := context.WithCancel(scope)
		defer cancel()
		for pb.Next() {
			if _, err := ui.Ask(ctx, benchFree); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkReplayRun is one run of a one-question call whose answer is
// recorded, through Replay.Run, comparable with BenchmarkAskOptions.
func BenchmarkReplayRun(b *testing.B) {
	rp := &ui.Replay{}
	rp.Record(firstID(benchOptions), ui.Answer{Text: "no"}, nil)
	ctx := context.Background()
	call := func(ctx context.Context) {
		if ans, err := ui.Ask(ctx, benchOptions); err != nil || ans.Option == nil {
			b.Fatal(ans, err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rp.Run(ctx, call)
	}
}

// tenAnswers returns a Replay whose record holds ten answers, and its state
// sealed for an hour.
func tenAnswers(b *testing.B) (*ui.Replay, string) {
	rp := &ui.Replay{}
	for i := 0; i < 10; i++ {
		id := firstID(ui.Request{Question: fmt.Sprint("Question ", i)})
		rp.Record(id, ui.Option{Label: "Production", Value: "production"}.Answer(), nil)
	}
	state, err := rp.Seal(benchKey, "alice\ndeploy\n{}", time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	return rp, state
}

var benchKey = []byte("0123456789abcdef0123456789abcdef")

// BenchmarkSeal seals a record of ten answers; state-bytes is the length of
// the sealed state.
func BenchmarkSeal(b *testing.B) {
	rp, state := tenAnswers(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rp.Seal(benchKey, "alice\ndeploy\n{}", time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(state)), "state-bytes")
}

// BenchmarkOpenReplay opens the sealed state of a record of ten answers.
func BenchmarkOpenReplay(b *testing.B) {
	_, state := tenAnswers(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ui.OpenReplay(benchKey, "alice\ndeploy\n{}", state); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealFloor is the least any sealed state of the same ten answers
// costs, as a JWT library signs one: encoding/json of the payload's fields
// held as raw JSON, base64 and HMAC-SHA256. Seal is compared with it.
func BenchmarkSealFloor(b *testing.B) {
	fields := payloadFields(b)
	key := benchKey
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		payload, err := json.Marshal(fields)
		if err != nil {
			b.Fatal(err)
		}
		h := hmac.New(sha256.New, key)
		h.Write(payload)
		_ = base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
	}
}

// BenchmarkOpenFloor is the least any opening of the same state costs, as a
// JWT library parses one: base64, HMAC-SHA256 checked in constant time, and
// encoding/json of the payload into its fields held as raw JSON.
// OpenReplay is compared with it.
func BenchmarkOpenFloor(b *testing.B) {
	_, state := tenAnswers(b)
	key := benchKey
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		data, sum, _ := strings.Cut(state, ".")
		payload, err1 := base64.RawURLEncoding.DecodeString(data)
		got, err2 := base64.RawURLEncoding.DecodeString(sum)
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		h := hmac.New(sha256.New, key)
		h.Write(payload)
		_ = hmac.Equal(got, h.Sum(nil))
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(payload, &fields); err != nil {
			b.Fatal(err)
		}
	}
}

// payloadFields returns the fields of the payload that tenAnswers sealed,
// held as raw JSON.
func payloadFields(b *testing.B) map[string]json.RawMessage {
	_, state := tenAnswers(b)
	data, _, _ := strings.Cut(state, ".")
	payload, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil {
		b.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil {
		b.Fatal(err)
	}
	return fields
}

// benchFourQuestions are the questions of the AskAll benchmarks.
var benchFourQuestions = []ui.Request{benchFree, benchOptions, benchFree, benchOptions}

// BenchmarkAskAll asks four questions in one AskAll of a plain provider;
// compare BenchmarkAskFour, the same four questions as four Asks.
func BenchmarkAskAll(b *testing.B) {
	ctx := benchScope(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ui.AskAll(ctx, benchFourQuestions); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskFour asks the four questions of BenchmarkAskAll with Ask.
func BenchmarkAskFour(b *testing.B) {
	ctx := benchScope(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, req := range benchFourQuestions {
			if _, err := ui.Ask(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkValidate is the validation share of BenchmarkAskOptions.
func BenchmarkValidate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := benchOptions.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegisterDispose is the cost of a registration. Its memory and time
// do not grow with the number of processors: compare
//
//	go test -run '^$' -bench RegisterDispose -benchmem -cpu 2,64 .
func BenchmarkRegisterDispose(b *testing.B) {
	var r ui.Registry
	p := ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) { return ui.Answer{Text: "x"}, nil })
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		dispose, err := r.Register(p)
		if err != nil {
			b.Fatal(err)
		}
		dispose()
	}
}

// TestRegistrationMemory holds a registration to its memory budget at 64
// processors, as on a large machine: at most 512 bytes per Register+dispose,
// and at most 512 bytes more when an ask is made on it.
func TestRegistrationMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory figures in -short mode are not needed")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(64))
	var r ui.Registry
	p := ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) { return ui.Answer{Text: "x"}, nil })
	ctx := context.Background()
	registration := bytesPerRun(1000, func() {
		dispose, _ := r.Register(p)
		dispose()
	})
	withAsk := bytesPerRun(1000, func() {
		dispose, _ := r.Register(p)
		if _, err := r.Ask(ctx, benchFree); err != nil {
			t.Fatal(err)
		}
		dispose()
	})
	t.Logf("bytes per Register+dispose: %d; with an ask: %d", registration, withAsk)
	if registration > 512 || withAsk-registration > 512 {
		t.Errorf("bytes per Register+dispose = %d, with an ask %d, want at most 512 and 512 more", registration, withAsk)
	}
}

// TestPendingJSONMemory holds a Pending's JSON, which the page's list and
// event stream send, to what encoding/json spends on the same shape written
// by hand: Pending's MarshalJSON copies it once (2 times the bytes), and a
// nested MarshalJSON, such as Request's, would copy and scan it again (3 times).
func TestPendingJSONMemory(t *testing.T) {
	req := largestRequest()
	q := ui.Pending{ID: strings.Repeat("ab", 16), Request: req, Batch: "b", Index: 1, Count: 2}
	floor := struct { // the wire shape, hand-written
		ID      string `json:"id"`
		Request struct {
			Question string      `json:"question"`
			Header   string      `json:"header,omitempty"`
			Options  []ui.Option `json:"options,omitempty"`
		} `json:"request"`
		Batch string `json:"batch,omitempty"`
		Index int    `json:"index,omitempty"`
		Count int    `json:"count,omitempty"`
	}{ID: q.ID, Batch: q.Batch, Index: q.Index, Count: q.Count}
	floor.Request.Question, floor.Request.Header, floor.Request.Options = req.Question, req.Header, req.Options
	want, _ := json.Marshal(floor)
	if got, err := json.Marshal(q); err != nil || string(got) != string(want) {
		t.Fatalf("json.Marshal(Pending) = %.80s…, %v; want the floor's %.80s…", got, err, want)
	}
	least := func(f func()) uint64 { // the fewest bytes of one run in 10: json's buffers come from a sync.Pool, which a GC empties and -race drops from at random
		n := bytesPerRun(1, f)
		for i := 0; i < 9; i++ {
			n = min(n, bytesPerRun(1, f))
		}
		return n
	}
	spent, floorSpent := least(func() { _, _ = json.Marshal(q) }), least(func() { _, _ = json.Marshal(floor) })
	t.Logf("bytes per Pending's JSON: %d; the floor's: %d", spent, floorSpent)
	if spent > floorSpent*5/2 {
		t.Errorf("bytes per Pending's JSON = %d, want at most 2.5 times the floor's %d", spent, floorSpent)
	}
}

// benchFour is a four-option request, as the form benchmarks map it.
var benchFour = ui.Request{
	Header:   "Deploy",
	Question: "Deploy where?",
	Options: []ui.Option{
		{Label: "Staging", Description: "the test cluster", Recommended: true},
		{Label: "Production"}, {Label: "Both"}, {Label: "Neither"},
	},
}

// BenchmarkElicitation maps a four-option request to its form.
func BenchmarkElicitation(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if f := benchFour.Elicitation(); f.Mode != "form" {
			b.Fatal(f)
		}
	}
}

// BenchmarkElicitation1000 and BenchmarkElicitation8000 map requests of 1,000
// and 8,000 options: building a form is linear, so the second takes about 8
// times as long as the first.
func BenchmarkElicitation1000(b *testing.B) { benchElicitation(b, manyOptions(1000)) }
func BenchmarkElicitation8000(b *testing.B) { benchElicitation(b, manyOptions(8000)) }

func benchElicitation(b *testing.B, req ui.Request) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if f := req.Elicitation(); f.Mode != "form" {
			b.Fatal(f)
		}
	}
}

// BenchmarkElicitationAnswer maps a form's response back, as it arrives
// decoded from JSON.
func BenchmarkElicitationAnswer(b *testing.B) {
	content := map[string]any{"choice": "Production", "text": ""}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if ans, err := ui.ElicitationAnswer("accept", content); err != nil || ans.Option == nil {
			b.Fatal(ans, err)
		}
	}
}

// BenchmarkAnswerCheck asks a MultiSelect question whose answer picks all of
// n options, so that Ask checks n picks against n options. Checking costs
// time linear in n: 1000 options take about 16 times as long as 63, where
// a quadratic check would take 256 times. .ci/run prints the ratio.
func BenchmarkAnswerCheck(b *testing.B) {
	for _, n := range []int{63, 1000} { // a request offers at most 1,000 options
		b.Run(fmt.Sprint("options=", n), func(b *testing.B) {
			req := ui.Request{Question: "Which?", MultiSelect: true}
			for i := 0; i < n; i++ {
				req.Options = append(req.Options, ui.Option{Label: fmt.Sprint("option ", i)})
			}
			ctx := scope(b, ui.ProviderFunc(func(context.Context, ui.Request) (ui.Answer, error) {
				return ui.Answer{Options: req.Options}, nil
			}))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := ui.Ask(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInbox is one Ask through a registry whose provider is an Inbox,
// answered by a Respond from another goroutine, the UI's, which waits on
// Changed: compare BenchmarkAsk, whose ProviderFunc answers at once.
func BenchmarkInbox(b *testing.B) {
	inbox := &ui.Inbox{}
	ctx, cancel := context.WithCancel(ui.WithRegistry(context.Background(), &ui.Registry{}))
	dispose, err := ui.Register(ctx, inbox)
	if err != nil {
		b.Fatal(err)
	}
	defer dispose()
	stopped := make(chan error, 1) // the UI's error when it stops
	go func() {
		for {
			changed := inbox.Changed()
			for _, q := range inbox.Pending() {
				if err := inbox.Respond(q.ID, ui.Answer{Text: "no"}, nil); err != nil {
					stopped <- err
					return
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				stopped <- nil
				return
			}
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ans, err := ui.Ask(ctx, benchFree); err != nil || ans.Text != "no" {
			b.Fatal(ans, err)
		}
	}
	b.StopTimer()
	cancel()
	if err := <-stopped; err != nil {
		b.Fatal(err)
	}
}
