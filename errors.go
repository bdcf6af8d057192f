package userinteraction

import "errors"

// Error codes: the stable, machine-readable Code of a [HarnessError] that this
// package or a [Provider] returns. Compare them with [CodeOf].
const (
	// CodeNoProvider: Ask found no provider registered in the caller's scope.
	CodeNoProvider = "NO_PROVIDER"
	// CodeDuplicateProvider: Register found another provider active; it stays active.
	CodeDuplicateProvider = "DUPLICATE_PROVIDER"
	// CodeInvalidProvider: Register was given a nil provider.
	CodeInvalidProvider = "INVALID_PROVIDER"
	// CodeNoRegistry: Register found no registry in the context; the host did not call WithRegistry.
	CodeNoRegistry = "NO_REGISTRY"
	// CodeAskAborted: the caller's context was cancelled or timed out, or the
	// provider was disposed, before the question was answered.
	CodeAskAborted = "ASK_ABORTED"
	// CodeInvalidRequest: the request breaks a rule of Request.Validate, or Ask
	// was given a nil context.
	CodeInvalidRequest = "INVALID_REQUEST"
	// CodeInvalidAnswer: the provider's answer is empty, names an option that was
	// not offered, or is outside the offered options when custom answers are disallowed.
	CodeInvalidAnswer = "INVALID_ANSWER"
	// CodeProviderFailed: the provider failed with an error that carries no code;
	// that error is the cause.
	CodeProviderFailed = "PROVIDER_FAILED"
	// CodeAskDeclined: returned by providers when the human explicitly refused to
	// answer (MCP/ACP elicitation "decline").
	CodeAskDeclined = "ASK_DECLINED"
	// CodeAskCancelled: returned by providers when the UI side dismissed the
	// question (Esc, a closed dialog, end of input, MCP/ACP "cancel").
	CodeAskCancelled = "ASK_CANCELLED"
)

// errorName is the Name of every error this package creates.
const errorName = "UserInteractionError"

// HarnessError is the error shape an agent harness hands to the model: a class
// Name, a stable Code and a human- and model-readable Message, plus an optional
// cause that stays on the Go side. json.Marshal of a HarnessError gives exactly
// {"name", "code", "message"}, so a tool runner that knows only HarnessError
// can report any coded failure. Find it in an error chain with errors.As or
// [CodeOf]. Like [io/fs.PathError], it is a plain value: its methods need a
// non-nil receiver, and it is safe for concurrent use while nobody changes it.
type HarnessError struct {
	Name    string `json:"name"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Err     error  `json:"-"`
}

// Error returns "CODE: message", followed by ": cause" when Err is set.
func (e *HarnessError) Error() string {
	s := e.Message
	if e.Code != "" {
		s = e.Code + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause, Err, which may be nil.
func (e *HarnessError) Unwrap() error { return e.Err }

// UserInteractionError is the error type of this package: a [HarnessError]
// named "UserInteractionError". Every error that [Ask], [Register] and
// [Request.Validate] return is a *UserInteractionError, and errors.As finds both
// it and its embedded *HarnessError. Providers create theirs with [NewError].
type UserInteractionError struct {
	HarnessError
}

// Unwrap returns the embedded HarnessError, whose own Unwrap returns the cause.
func (e *UserInteractionError) Unwrap() error { return &e.HarnessError }

// NewError returns a *UserInteractionError with the given code, message and
// optional cause. Messages are lower-case without a trailing period, for
// example NewError(CodeAskDeclined, "the user declined to answer", nil).
func NewError(code, message string, cause error) *UserInteractionError {
	return &UserInteractionError{HarnessError{Name: errorName, Code: code, Message: message, Err: cause}}
}

// CodeOf returns the Code of the first [HarnessError] in err's chain, or "" when
// there is none (including when err is nil).
func CodeOf(err error) string {
	var he *HarnessError
	if errors.As(err, &he) {
		return he.Code
	}
	return ""
}
