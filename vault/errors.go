package vault

import (
	"errors"
	"fmt"
	"time"
)

// ArgError is bad input: it names the argument and says what is wrong.
type ArgError struct {
	Arg string
	Msg string
	Err error // a sentinel such as ErrNotFound, for errors.Is
}

func (e *ArgError) Error() string { return fmt.Sprintf("argument %s: %s", e.Arg, e.Msg) }

func (e *ArgError) Unwrap() error { return e.Err }

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
	if e.Current == "" {
		return fmt.Sprintf("versionConflict: %s (read the notes again, then retry)", e.Reason)
	}
	return fmt.Sprintf("versionConflict: %s; current versionToken is %s (read the note again, then retry)", e.Reason, e.Current)
}

// ErrNotFound is returned for refs, projects and trash entries that do not
// exist or that the principal may not see (the two are never told apart).
var ErrNotFound = errors.New("not found")

// ErrForbidden is returned when the principal sees a thing but may not
// write it (a read-only membership or a read token).
var ErrForbidden = errors.New("forbidden")

// notFound is an ArgError that wraps ErrNotFound.
func notFound(arg, what string) error {
	return &ArgError{Arg: arg, Msg: fmt.Sprintf("%s: %v", what, ErrNotFound), Err: ErrNotFound}
}

// IsNotFound reports whether err says something was not found.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// BusyError says a note is being saved in an editor right now (its file
// changed within the quiet period and kept changing): cairn neither
// commits a half-written file nor writes over one. Nothing was changed;
// the same call succeeds a moment later.
type BusyError struct {
	Path       string
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("busy: %s is being saved in an editor right now; nothing was changed, try again in %s", e.Path, e.RetryAfter.Round(time.Second))
}
