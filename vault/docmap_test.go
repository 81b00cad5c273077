package vault

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doc.go is the package's map of what is where: every file of the
// package (tests aside) is placed in it, so a new file cannot go
// unmentioned.
func TestDocMapPlacesEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || n == "doc.go" {
			continue
		}
		if !strings.Contains(string(doc), n) {
			t.Errorf("doc.go does not place %s", n)
			continue
		}
		placed++
	}
	if placed < 40 {
		t.Fatalf("only %d files placed: the glob found %d names", placed, len(names))
	}
}
