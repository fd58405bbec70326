// Package exitcode holds the suite-wide exit codes and the error type that carries one.
//
// Every plugin maps its outcome onto the same four codes, so a script or CI gate can treat
// `why-terminating`, `flux-chain` and `safe-retire` alike:
//
//	0  nothing found / safe
//	1  a finding: something is stuck, failing or unsafe
//	2  UNKNOWN: the read was incomplete (forbidden, timed out, unreachable, discovery failed),
//	   so "nothing found" cannot be claimed
//	3  bad input or usage error
//
// Commands return errors; only main turns them into a process exit code (see package cli).
package exitcode

import (
	"errors"
	"fmt"
)

// Code is a process exit code of the suite.
type Code int

// The suite's exit codes; docs/exit-codes.md documents them for users.
const (
	OK      Code = 0
	Finding Code = 1
	Unknown Code = 2
	Usage   Code = 3
)

// String names the code the way the docs do.
func (c Code) String() string {
	switch c {
	case OK:
		return "OK"
	case Finding:
		return "FINDING"
	case Unknown:
		return "UNKNOWN"
	case Usage:
		return "USAGE"
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error carries an exit code together with the error that explains it. A nil Err means the
// command already printed its result and only the code is left to report (for example a
// finding, which is not a failure of the tool).
type Error struct {
	Code Code
	Err  error
}

// Error returns the wrapped message, or the code's name when there is none.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Code.String()
	}
	return e.Err.Error()
}

// Unwrap exposes the wrapped error to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Silent reports whether main should print nothing for this error.
func (e *Error) Silent() bool { return e.Err == nil }

// WithCode wraps err with an exit code. A nil err yields a silent error that only sets the code.
func WithCode(c Code, err error) error { return &Error{Code: c, Err: err} }

// UsageErrorf formats a bad-input error (exit 3).
func UsageErrorf(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// UnknownErrorf formats an incomplete-read error (exit 2).
func UnknownErrorf(format string, args ...any) error {
	return &Error{Code: Unknown, Err: fmt.Errorf(format, args...)}
}

// Of returns the exit code an error maps to: the code of the outermost *Error in its chain,
// OK for nil, and Unknown for any other error (the tool could not finish its read, so it
// cannot claim that nothing was found).
func Of(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Unknown
}
