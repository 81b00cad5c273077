package mcptools

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
)

// A tool's outputSchema (MCP 2025-06-18 on) describes its structured
// content, so that a client can validate a reply and show its fields. It
// is made from the Go type the handler returns (Tool.Output), never
// written by hand, so that it cannot drift from what is sent. Clients
// check replies against it and fail a call whose reply does not match
// (the official TypeScript client does, even for an isError result that
// carries structured content), so the schema says what a reply holds and
// is permissive about the rest:
//   - no object forbids other properties: a cut reply adds
//     "<field>Truncated" beside a list and a top-level "notice" (bound.go);
//   - nothing at the top level is required: a reply too big to cut is a
//     lone notice, and an error's structured content (versionConflict,
//     busy, unavailable: errorResult) has its own fields (error, message,
//     currentVersionToken, retryAfterSeconds, mayHaveRun), left
//     undeclared: declared in each of 23 schemas, they would double
//     tools/list's size, and a test checks that every schema accepts them;
//   - a slice or a pointer may be null, as Go encodes a nil one.

// replyCheck, set by this package's tests, sees every structured reply
// Local gives, to check it against the tool's outputSchema.
var replyCheck func(t *Tool, res *mcp.CallToolResult)

// outputSchema is the JSON Schema of what a handler returning values of
// type t sends as structured content.
func outputSchema(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("output type %s: an MCP output schema describes an object; use a struct", t)
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}},
	})
	if err != nil {
		return nil, fmt.Errorf("output type %s: %w", t, err)
	}
	s.Required = nil
	allowMore(s)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("output type %s: %w", t, err)
	}
	return b, nil
}

// allowMore lets every object in s hold properties it does not name.
func allowMore(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
		s.AdditionalProperties = nil // {"not": {}}: jsonschema-go's false
	}
	s.PropertyOrder = nil
	allowMore(s.AdditionalProperties)
	allowMore(s.Items)
	for _, p := range s.Properties {
		allowMore(p)
	}
}
