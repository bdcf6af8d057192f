package main

// The floor of -bench: a page of about 30 lines over a plain
// server-sent-events handler, written by hand for the same kind of questions
// as the Inbox's page shows (a header, a question, options with
// descriptions, a Send button). The whole list when a tab connects, then
// one event per question that opened or ended.
//
// FROZEN: -bench reports the Inbox's page as a ratio to this floor, so that
// the figures compare against the same floor from one revision to the next.
// Do not change it, not even to make it faster.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

type floorQuestion struct {
	ID       string        `json:"id"`
	Header   string        `json:"header,omitempty"`
	Question string        `json:"question"`
	Options  []floorOption `json:"options,omitempty"`
}

type floorOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// floor holds the open questions, oldest first, and the streams of its tabs.
type floor struct {
	mu      sync.Mutex
	n       int
	open    []floorQuestion
	answers map[string]chan string
	streams map[chan string]bool
}

// ask opens q and waits for its answer, or for ctx.
func (f *floor) ask(ctx context.Context, q floorQuestion) (string, error) {
	answer := make(chan string, 1)
	f.mu.Lock()
	f.n++
	q.ID = strconv.Itoa(f.n)
	f.open = append(f.open, q)
	f.answers[q.ID] = answer
	data, _ := json.Marshal(q)
	f.send("add", string(data))
	f.mu.Unlock()
	select {
	case a := <-answer:
		return a, nil
	case <-ctx.Done():
		f.mu.Lock()
		f.end(q.ID)
		f.mu.Unlock()
		return "", ctx.Err()
	}
}

// end removes question id, under f.mu, and tells the tabs.
func (f *floor) end(id string) bool {
	if _, ok := f.answers[id]; !ok {
		return false
	}
	delete(f.answers, id)
	for i, q := range f.open {
		if q.ID == id {
			f.open = append(f.open[:i], f.open[i+1:]...)
			break
		}
	}
	f.send("end", id)
	return true
}

func (f *floor) send(event, data string) {
	for s := range f.streams {
		s <- "event: " + event + "\ndata: " + data + "\n\n"
	}
}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == "GET" && r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, floorPage)
	case r.Method == "GET" && r.URL.Path == "/events":
		w.Header().Set("Content-Type", "text/event-stream")
		s := make(chan string, 4096)
		f.mu.Lock()
		list, _ := json.Marshal(f.open)
		f.streams[s] = true
		f.mu.Unlock()
		defer func() { f.mu.Lock(); delete(f.streams, s); f.mu.Unlock() }()
		event := "event: list\ndata: " + string(list) + "\n\n"
		for {
			if _, err := fmt.Fprint(w, event); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case event = <-s:
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == "POST" && len(r.URL.Path) > len("/answer/"):
		var body struct{ Choice string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		id := r.URL.Path[len("/answer/"):]
		f.mu.Lock()
		answer, ok := f.answers[id]
		if ok {
			f.end(id)
			answer <- body.Choice
		}
		f.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

const floorPage = `<!doctype html>
<meta charset="utf-8"><title>Floor</title>
<div id="questions"></div>
<script>
const box = document.getElementById("questions"), shown = new Map();
function el(tag, text) { const e = document.createElement(tag); e.textContent = text || ""; return e; }
function show(q) {
  const form = el("form");
  form.append(el("p", q.header || ""), el("p", q.question));
  for (const o of q.options || []) {
    const label = el("label"), input = el("input");
    Object.assign(input, {type: "radio", name: "choice", value: o.label});
    label.append(input, " " + o.label);
    form.append(label, el("div", o.description));
  }
  form.append(el("button", "Send"));
  form.addEventListener("submit", e => {
    e.preventDefault();
    const c = form.querySelector("input:checked");
    fetch("answer/" + q.id, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({choice: c ? c.value : ""})});
  });
  shown.set(q.id, form), box.append(form);
  document.title = shown.size + " questions";
}
function end(id) { const f = shown.get(id); if (f) f.remove(), shown.delete(id); document.title = shown.size + " questions"; }
const source = new EventSource("events");
source.addEventListener("list", e => { box.replaceChildren(), shown.clear(); JSON.parse(e.data).forEach(show); });
source.addEventListener("add", e => show(JSON.parse(e.data)));
source.addEventListener("end", e => end(e.data));
</script>
`
