package vault

import (
	"errors"
	"fmt"
)

// ArgError is bad input: it names the argument and says what is wrong.
type ArgError struct {
	Arg string
	Msg string
}

func (e *ArgError) Error() string { return fmt.Sprintf("argument %s: %s", e.Arg, e.Msg) }

func argErr(arg, format string, a ...any) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// ConflictError is a failed compare-and-swap: the note changed since the
// caller read it. Current is the token to read again with.
type ConflictError struct {
	Ref     string
	Current string
	Reason  string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("versionConflict: %s; current versionToken is %s (read the note again, then retry)", e.Reason, e.Current)
}

// ErrNotFound is returned for refs, projects and trash entries that do not
// exist or that the principal may not see (the two are never told apart).
var ErrNotFound = errors.New("not found")

// ErrForbidden is returned when the principal sees a thing but may not
// write it (a read-only membership or a read token).
var ErrForbidden = errors.New("forbidden")

// notFound wraps ErrNotFound with the argument that named the missing thing.
func notFound(arg, what string) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf("%s: %v", what, ErrNotFound)}
}

// IsNotFound reports whether err says something was not found.
func IsNotFound(err error) bool {
	var ae *ArgError
	if errors.As(err, &ae) {
		return errors.Is(err, ErrNotFound) || containsNotFound(ae.Msg)
	}
	return errors.Is(err, ErrNotFound)
}

func containsNotFound(s string) bool {
	n := ErrNotFound.Error()
	return len(s) >= len(n) && s[len(s)-len(n):] == n
}
