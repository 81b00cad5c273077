package recall

import "testing"

// A recall excerpt cut short never ends in half a link or code.
func TestMendCut(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"whole text", "whole text"},
		{"see [[Decision CDN…", "see…"},
		{"see ![[Diagram of…", "see…"},
		{"read [the notes](https://exa…", "read…"},
		{"read [the no…", "read…"},
		{"- [ ] a task and…", "- [ ] a task and…"},
		{"run `make roll…", "run…"},
		{"Steps:\n\n```bash\nmake rollback…", "Steps:\n\n```bash\nmake rollback…\n```"},
		{"[[Half…", ""},
	} {
		if got := mendCut(c.in); got != c.want {
			t.Errorf("mendCut(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
