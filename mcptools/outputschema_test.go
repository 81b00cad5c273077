package mcptools

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
)

// Every structured reply any test of this package gets, results and
// errors alike, is checked against its tool's outputSchema, as the
// official TypeScript client checks it (it fails a call whose reply does
// not match); TestMain fails the run on a mismatch. checkedTools counts
// the tools whose replies were checked, so that a tool no test calls is
// seen (TestEveryToolsReplyWasChecked).
var (
	replyMu      sync.Mutex
	replyFaults  []string
	checkedTools = map[string]int{}
	resolved     = map[string]*jsonschema.Resolved{}
)

func TestMain(m *testing.M) {
	replyCheck = checkReply
	code := m.Run()
	replyMu.Lock()
	if len(replyFaults) > 0 {
		fmt.Fprintf(os.Stderr, "%d replies do not match their tool's outputSchema:\n", len(replyFaults))
		for _, f := range replyFaults[:min(20, len(replyFaults))] {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		code = 1
	}
	// A whole run (no -run, no -short) calls every tool with an output
	// schema at least once, so every schema met a real reply.
	if f := flag.Lookup("test.run"); code == 0 && f != nil && f.Value.String() == "" && !testing.Short() {
		for _, t := range NewRegistry().Tools() {
			if t.Output != nil && checkedTools[t.Name] == 0 {
				fmt.Fprintf(os.Stderr, "no test of this package got a reply of %s to check against its outputSchema\n", t.Name)
				code = 1
			}
		}
	}
	replyMu.Unlock()
	os.Exit(code)
}

func checkReply(t *Tool, res *mcp.CallToolResult) {
	if res == nil || res.StructuredContent == nil {
		return
	}
	replyMu.Lock()
	defer replyMu.Unlock()
	if err := validateReply(t, res.StructuredContent); err != nil {
		replyFaults = append(replyFaults, fmt.Sprintf("%s: %v", t.Name, err))
		return
	}
	if !res.IsError {
		checkedTools[t.Name]++
	}
}

// validateReply checks structured content against t's outputSchema. The
// caller holds replyMu.
func validateReply(t *Tool, structured any) error {
	if t.output == nil {
		return fmt.Errorf("has structured content but no outputSchema")
	}
	rs := resolved[t.Name]
	if rs == nil {
		var s jsonschema.Schema
		if err := json.Unmarshal(t.output, &s); err != nil {
			return fmt.Errorf("outputSchema: %w", err)
		}
		var err error
		if rs, err = s.Resolve(nil); err != nil {
			return fmt.Errorf("outputSchema: %w", err)
		}
		resolved[t.Name] = rs
	}
	b, err := json.Marshal(structured)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := rs.Validate(v); err != nil {
		return fmt.Errorf("%w (reply %.300s)", err, b)
	}
	return nil
}

// Every tool declares what it returns, except the Hindsight family,
// whose replies are text in Hindsight's own format (no structured
// content, so no schema to declare).
func TestEveryToolDeclaresItsOutput(t *testing.T) {
	for _, tool := range NewRegistry().Tools() {
		got := tool.MCPTool()
		if tool.Toolset == ToolsetHindsight {
			if got.RawOutputSchema != nil {
				t.Errorf("%s: text-only family with an outputSchema", tool.Name)
			}
			continue
		}
		if got.RawOutputSchema == nil {
			t.Errorf("%s declares no outputSchema", tool.Name)
			continue
		}
		var s map[string]any
		if err := json.Unmarshal(got.RawOutputSchema, &s); err != nil || s["type"] != "object" {
			t.Errorf("%s: outputSchema %s: the MCP spec wants an object at its root", tool.Name, got.RawOutputSchema)
		}
	}
}

// What every reply may also be: an error's structured content, a reply
// too big to cut (a lone notice), a reply with a list cut. Each is valid
// against every tool's schema; a reply of the wrong shape is not.
func TestOutputSchemasAcceptErrorsAndCuts(t *testing.T) {
	ok := []string{
		`{"error":"versionConflict","currentVersionToken":"abc","message":"m"}`,
		`{"error":"busy","retryAfterSeconds":2,"message":"m"}`,
		`{"error":"unavailable","retryAfterSeconds":5,"mayHaveRun":false,"message":"m"}`,
		`{"notice":"The reply was over the server's bound"}`,
	}
	for _, tool := range NewRegistry().Tools() {
		if tool.output == nil {
			continue
		}
		for _, r := range ok {
			var v any
			json.Unmarshal([]byte(r), &v)
			replyMu.Lock()
			err := validateReply(tool, v)
			replyMu.Unlock()
			if err != nil {
				t.Errorf("%s: %s: %v", tool.Name, r, err)
			}
		}
		// Each of its properties given a value of a type it does not
		// admit fails.
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		json.Unmarshal(tool.output, &schema)
		if len(schema.Properties) == 0 {
			t.Errorf("%s: outputSchema names no property", tool.Name)
		}
		for name, p := range schema.Properties {
			admits := fmt.Sprint(p.Type)
			for typ, wrong := range map[string]any{"number": 7.5, "boolean": true} {
				replyMu.Lock()
				err := validateReply(tool, map[string]any{name: wrong})
				replyMu.Unlock()
				if want := p.Type == nil || strings.Contains(admits, typ); (err == nil) != want {
					t.Errorf("%s: %s (type %s) given %v: validation error %v", tool.Name, name, admits, wrong, err)
				}
			}
		}
	}
}

// A cut list keeps its schema: the items left and the Truncated field
// beside it pass, wherever the list is.
func TestOutputSchemaAcceptsACutSearch(t *testing.T) {
	tool := NewRegistry().Get("search")
	var v any
	json.Unmarshal([]byte(`{"mode":"hybrid","results":[{"id":"x","path":"a.md","title":"A","class":"shared","snippet":"s","score":0.1,"resultsTruncated":{"shown":1,"total":9}}],"resultsTruncated":{"shown":1,"total":9},"notice":"cut"}`), &v)
	replyMu.Lock()
	defer replyMu.Unlock()
	if err := validateReply(tool, v); err != nil {
		t.Fatal(err)
	}
}
