package userinteraction

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The error codes are the stable Codes of a [HarnessError]. This package
// and its providers return them. Compare them with [CodeOf].
const (
	// CodeNoProvider means Ask found no provider in the caller's scope.
	CodeNoProvider = "NO_PROVIDER"
	// CodeDuplicateProvider means Register found another provider active.
	// That provider stays active.
	CodeDuplicateProvider = "DUPLICATE_PROVIDER"
	// CodeInvalidProvider means Register got a nil provider, or a provider
	// that cannot work was asked, such as a Form without an ElicitFunc.
	CodeInvalidProvider = "INVALID_PROVIDER"
	// CodeNoRegistry means Register found no registry in the context. The
	// host did not call WithRegistry.
	CodeNoRegistry = "NO_REGISTRY"
	// CodeAskAborted means the caller's context ended, or the provider was
	// disposed, before the answer came.
	CodeAskAborted = "ASK_ABORTED"
	// CodeInvalidRequest means the request breaks a rule of
	// [Request.Validate], or Ask was given a nil context.
	CodeInvalidRequest = "INVALID_REQUEST"
	// CodeInvalidAnswer means the provider's answer breaks a rule of
	// [Answer].
	CodeInvalidAnswer = "INVALID_ANSWER"
	// CodeProviderFailed means the provider failed with an error that
	// carries no code. That error is the cause. Its text, cut short and
	// escaped, ends the message.
	CodeProviderFailed = "PROVIDER_FAILED"
	// CodeAskDeclined means the human refused to answer, as with an MCP or
	// ACP elicitation's "decline".
	CodeAskDeclined = "ASK_DECLINED"
	// CodeAskCancelled means the UI dismissed the question: Esc, a closed
	// dialog, end of input, or an MCP or ACP "cancel".
	CodeAskCancelled = "ASK_CANCELLED"
	// CodeInputRequired means Replay has no recorded outcome for the
	// question yet. The host collects it out of band and runs the call
	// again.
	CodeInputRequired = "INPUT_REQUIRED"
	// CodeInvalidState means OpenReplay refused the sealed state: tampered
	// with, expired, malformed, or sealed for another call or key. The model
	// should call the tool again from the start.
	CodeInvalidState = "INVALID_STATE"
	// CodeNotPending means Inbox.Respond got the ID of a question that is
	// not open: never asked, already answered, or given up.
	CodeNotPending = "NOT_PENDING"
	// CodeAskUnsupported means the UI cannot show this kind of question,
	// such as several picks, own words beside options, or any form. The
	// model should ask it another way.
	CodeAskUnsupported = "ASK_UNSUPPORTED"
	// CodeNotKept means the host could not keep the answer, as when a
	// durable write failed. The question stays open: send the answer again.
	CodeNotKept = "NOT_KEPT"
)

// HarnessError is the error an agent harness hands to the model: a class
// Name, a stable Code, a Message for humans and models, and an optional
// cause Err. json.Marshal of it gives exactly {"name", "code", "message"}.
// So a tool runner that knows only HarnessError can report any coded
// failure. Like [io/fs.PathError], it is safe for concurrent use while
// nobody changes it.
//
// A type that embeds HarnessError needs an Unwrap that returns
// &e.HarnessError, as [UserInteractionError] has. Else errors.As and
// [CodeOf] miss the code, since the promoted Unwrap returns the cause.
type HarnessError struct {
	Name    string `json:"name"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Err     error  `json:"-"`
}

// Error returns "CODE: message: cause", without "CODE: " when Code is empty
// and ": cause" when Err is nil. The cause's text is escaped as in
// [CodeProviderFailed]'s message. When the message already ends with it, cut
// short or not, the whole text takes its place. So Message, which the model
// reads, stays short. A nil e gives "<nil>".
func (e *HarnessError) Error() string {
	if e == nil {
		return "<nil>"
	}
	s := e.Message
	if e.Code != "" {
		s = e.Code + ": " + s
	}
	if e.Err == nil {
		return s
	}
	cause := e.Err.Error()
	return strings.TrimSuffix(s, ": "+escape(clip(cause, maxProviderText))) + ": " + escape(cause)
}

// Unwrap returns the cause, Err, which may be nil, or nil for a nil e.
func (e *HarnessError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// UserInteractionError is the type of every error this package creates: a
// [HarnessError] named "UserInteractionError". errors.As finds both it and
// its embedded *HarnessError. Providers create theirs with [NewError].
type UserInteractionError struct {
	HarnessError
}

// Error returns the embedded HarnessError's Error, or "<nil>" for a nil e.
func (e *UserInteractionError) Error() string {
	if e == nil {
		return "<nil>"
	}
	return e.HarnessError.Error()
}

// Unwrap returns the embedded HarnessError, whose own Unwrap returns the
// cause, or nil for a nil e.
func (e *UserInteractionError) Unwrap() error {
	if e == nil {
		return nil
	}
	return &e.HarnessError
}

// NewError returns a *[UserInteractionError] with an optional cause. Write
// message lower-case, without a trailing period, as in
// NewError(CodeAskDeclined, "the user declined to answer", nil).
func NewError(code, message string, cause error) *UserInteractionError {
	return &UserInteractionError{HarnessError{Name: errorName, Code: code, Message: message, Err: cause}}
}

// CodeOf returns the Code of the first [HarnessError] in err's chain, or ""
// when there is none or it is a nil pointer.
func CodeOf(err error) string {
	var he *HarnessError
	if errors.As(err, &he) && he != nil {
		return he.Code
	}
	return ""
}

// errorName is the Name of every error this package creates.
const errorName = "UserInteractionError"

// maxQuoted is the number of runes of user text that an error message quotes
// at most, and maxProviderText that of a provider's error text, so that no
// message grows with its input. A provider's text is longer, because its
// end often says what to do.
const (
	maxQuoted       = 64
	maxProviderText = 200
)

// clip returns s cut to its first limit runes, marked with an ellipsis when it
// was cut. Invalid UTF-8 bytes count as one rune each.
func clip(s string, limit int) string {
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// quote returns s, cut to maxQuoted runes, as a Go string literal, for error
// messages. Like escape, it escapes each character outside the allowlist of
// shown text ([Request.Validate]), and also '"' and '\\'.
func quote(s string) string {
	return strconv.QuoteToGraphic(clip(s, maxQuoted))
}

// escape returns s with each character outside the allowlist of shown text
// ([Request.Validate]) written as a Go escape, such as \x1b or \u202e, and
// each byte that is not UTF-8 as \xff. A message holds s so, unquoted. Its
// text shows as it is, and no escape sequence or reordering reaches a log,
// a terminal or the model raw.
func escape(s string) string {
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsGraphic(c):
			b.WriteRune(c)
		default:
			q := strconv.QuoteRuneToGraphic(c) // '\x1b', with its quotes
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// The errors this package creates, beside their types.

// invalidAnswer returns the INVALID_ANSWER error for an answer that breaks
// the rule why.
func invalidAnswer(why string) error {
	return NewError(CodeInvalidAnswer, "invalid answer: "+why, nil)
}

// noProvider returns the NO_PROVIDER error of an Ask. It says what to do
// about it. A context without a registry, or with a nil one, is the host's
// mistake. A registry without a provider means that no UI is registered.
func noProvider(hasRegistry bool) error {
	if !hasRegistry {
		return NewError(CodeNoProvider, "no provider: the context carries no registry (the host must call WithRegistry)", nil)
	}
	return NewError(CodeNoProvider, "no provider: no UI is registered to answer the question", nil)
}

// isTypedNil reports whether err is a nil pointer, map, slice, func or chan
// in a non-nil error interface.
func isTypedNil(err error) bool {
	switch v := reflect.ValueOf(err); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// aborted returns the ASK_ABORTED error for the done caller's context ctx,
// before the question was stage ("asked" or "answered"). It wraps ctx.Err()
// and, when the caller set a cause of its own, context.Cause(ctx) too, so
// that errors.Is finds both, also when the cause itself wraps
// context.Canceled or context.DeadlineExceeded. Its message says whether the
// deadline passed or the asker stopped, so the model learns which.
func aborted(ctx context.Context, stage string) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	msg := "ask aborted: the asker stopped before the question was " + stage
	switch deadline := ctx.Err() == context.DeadlineExceeded; {
	case deadline && stage == "answered":
		msg = "ask aborted: no answer came before the deadline"
	case deadline:
		msg = "ask aborted: the deadline passed before the question was " + stage
	case stage == "answered":
		msg = "ask aborted: the asker stopped waiting before the question was answered"
	}
	return NewError(CodeAskAborted, msg, err)
}

// coded returns err, a provider's error, as [Registry.Ask] returns it
// after the provider's context: err when it carries a code, else the
// PROVIDER_FAILED error for it. That message ends with err's text, cut short
// and escaped, because the text may come from a remote client. A typed nil
// is named, not kept, because calling its methods could panic in the caller.
func coded(err error) error {
	switch {
	case isTypedNil(err):
		return NewError(CodeProviderFailed, fmt.Sprintf("provider failed: it returned a nil %T as its error", err), nil)
	case CodeOf(err) == "":
		return NewError(CodeProviderFailed, "provider failed: "+escape(clip(err.Error(), maxProviderText)), err)
	}
	return err
}

// codedError returns the {name, code, message} that stands for err where
// only that travels, as in an [Outcome]'s JSON or a [Replay] record. That is
// err's own when it carries a code, else the PROVIDER_FAILED that
// Registry.Ask would return for it. It has no cause.
func codedError(err error) *HarnessError {
	var he *HarnessError
	errors.As(coded(err), &he)
	return &HarnessError{Name: he.Name, Code: he.Code, Message: he.Message}
}

// asError returns e as the error it stands for: a *UserInteractionError
// when it is named so, else a copy of e.
func (e *HarnessError) asError() error {
	if e.Name == errorName {
		return NewError(e.Code, e.Message, nil)
	}
	he := *e
	return &he
}

// invalidState returns the INVALID_STATE error for state that cause says
// why OpenReplay refused. Its message tells the model what to do, and no
// more of why.
func invalidState(cause error) error {
	return NewError(CodeInvalidState, "invalid state: the answers of this call cannot be used, so call the tool again from the start", cause)
}
