// Package intern gives one copy of strings that many notes repeat (a
// type, a tag, a scope), so that a big vault's catalog and index hold one
// object for each distinct value instead of one per note: at 100,000
// notes each copy is an object the collector marks on every cycle of a
// fresh clone's build.
package intern

import "unique"

// String is s as one copy held for the whole process while anything
// holds it (the unique package's canonical copy): equal to s, so nothing
// reads differently.
func String(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// Strings is ss with each string interned, in a new slice (the one given
// may be another's); nil for none.
func Strings(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = String(s)
	}
	return out
}
