package mcptools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolSchemaSnapshots compares every tool's definition (name,
// description, schema, annotations) with its checked-in snapshot, so a
// change to what clients see shows up in review. Regenerate with
// UPDATE_SNAPSHOTS=1 go test ./mcptools -run Snapshot.
func TestToolSchemaSnapshots(t *testing.T) {
	dir := filepath.Join("testdata", "tools")
	update := os.Getenv("UPDATE_SNAPSHOTS") == "1"
	if update {
		os.MkdirAll(dir, 0o755)
	}
	seen := map[string]bool{}
	for _, tl := range NewRegistry().Tools() {
		raw, err := json.Marshal(tl.MCPTool())
		if err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, raw, "", "  ")
		pretty.WriteString("\n")
		file := filepath.Join(dir, tl.Name+".json")
		seen[tl.Name+".json"] = true
		if update {
			os.WriteFile(file, pretty.Bytes(), 0o644)
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no snapshot (%v); run UPDATE_SNAPSHOTS=1 go test ./mcptools -run Snapshot", tl.Name, err)
			continue
		}
		if !bytes.Equal(want, pretty.Bytes()) {
			t.Errorf("%s: the tool definition drifted from %s:\n%s\nRegenerate the snapshot if the change is intended.", tl.Name, file, pretty.String())
		}
	}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		if strings.HasSuffix(f.Name(), ".json") && !seen[f.Name()] {
			t.Errorf("snapshot %s has no tool", f.Name())
		}
	}
}
