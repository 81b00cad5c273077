package main

import (
	"io"

	"github.com/cairn-dev/cairn/gitstore"
)

// terminalSafe is what every command but serve prints through: names of
// files and text that came from a remote reach the terminal with their
// control characters (but the newlines and tabs of cairn's own lines and
// columns), C1 controls and invisible or bidi code points escaped, so
// that nothing printed can move the cursor, clear the screen or read as
// another name. Commands quote the names they print themselves
// (gitstore.QuotePath, which also escapes a newline in a name); this is
// the backstop. JSON output passes unchanged in meaning: its encoder
// escapes C0 controls itself, and what this escapes is written as a JSON
// escape (\u202e).
type terminalSafe struct{ w io.Writer }

func (t terminalSafe) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, gitstore.Printable(string(p), true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// oneLine is text printed as one line: its newlines escaped too.
func oneLine(s string) string { return gitstore.Printable(s, false) }
