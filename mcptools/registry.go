package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tool is one MCP tool as data. Everything a client sees of it is static.
type Tool struct {
	Name        string
	Toolset     string
	Title       string
	Description string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	Schema      string // JSON Schema of the arguments (additionalProperties false)
	// Handle runs the tool. args holds the raw JSON arguments, already
	// checked for valid UTF-8; the handler decodes them strictly.
	Handle func(ctx context.Context, e *Env, args json.RawMessage) (any, error)
	// Errors, when set, turns every failure of a call into the family's own
	// error result (hindsight: "Error: ..." text); nil: errorResult.
	Errors func(error) *mcp.CallToolResult
}

// Env is what handlers work with.
type Env struct {
	Vault *vault.Vault
	ID    Identity
	Tool  string
}

// Caller is the vault caller for this call.
func (e *Env) Caller() vault.Caller { return e.ID.caller(e.Tool) }

// Registry holds every tool of the server.
type Registry struct {
	tools map[string]*Tool
	order []string
}

// NewRegistry builds the registry of all toolsets.
func NewRegistry() *Registry {
	r := &Registry{tools: map[string]*Tool{}}
	var all []*Tool
	all = append(all, gatewayTools()...)
	all = append(all, graphTools()...)
	all = append(all, memoryTools()...)
	all = append(all, searchTools()...)
	all = append(all, hindsightTools()...)
	all = append(all, treaisureTools()...)
	for _, t := range all {
		r.add(t)
	}
	return r
}

func (r *Registry) add(t *Tool) {
	if _, dup := r.tools[t.Name]; dup {
		panic("duplicate tool " + t.Name)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(t.Schema), &schema); err != nil {
		panic(fmt.Sprintf("tool %s: bad schema: %v", t.Name, err))
	}
	r.tools[t.Name] = t
	r.order = append(r.order, t.Name)
	sort.Strings(r.order)
}

// Tools lists the tools by name.
func (r *Registry) Tools() []*Tool {
	out := make([]*Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// Get returns a tool by name.
func (r *Registry) Get(name string) *Tool { return r.tools[name] }

// MCPTool is the tool's definition as tools/list shows it: all four
// annotations set explicitly (a vault is a closed world).
func (t *Tool) MCPTool() mcp.Tool {
	tool := mcp.NewToolWithRawSchema(t.Name, t.Description, json.RawMessage(t.Schema))
	tool.Annotations = mcp.ToolAnnotation{
		Title:           t.Title,
		ReadOnlyHint:    mcp.ToBoolPtr(t.ReadOnly),
		DestructiveHint: mcp.ToBoolPtr(t.Destructive),
		IdempotentHint:  mcp.ToBoolPtr(t.Idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}
	return tool
}

// Instructions are sent at initialize: the working order the seed recommends.
const Instructions = `cairn serves a shared Markdown vault kept in git. Suggested order: start_session (when available) or whoami → get_my_projects → list_notes / recent_activity to browse → search / recall before writing → create_note, remember_*, edit_note, link to write. Writes need the versionToken from a recent get_note; on versionConflict, read the note again and retry.`

// NewServer makes the MCP server for a vault. Which tools a request sees
// and may call is decided in one place, the tool filter, from the identity
// the transport put in the request's context.
func NewServer(v *vault.Vault, reg *Registry, version string) *server.MCPServer {
	filter := func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		id, ok := IdentityFrom(ctx)
		if !ok {
			return nil
		}
		var out []mcp.Tool
		for _, t := range tools {
			if rt := reg.Get(t.Name); rt != nil && id.allows(rt) {
				out = append(out, t)
			}
		}
		return out
	}
	s := server.NewMCPServer("cairn", version,
		server.WithToolCapabilities(false),
		server.WithLogging(),
		server.WithRecovery(),
		server.WithInstructions(Instructions),
		server.WithToolFilter(filter),
	)
	for _, t := range reg.Tools() {
		t := t
		s.AddTool(t.MCPTool(), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return call(ctx, v, t, req), nil
		})
	}
	return s
}

// call runs one tool: identity and access, argument checks, the handler,
// and the mapping of every failure to an isError result that says why.
func call(ctx context.Context, v *vault.Vault, t *Tool, req mcp.CallToolRequest) *mcp.CallToolResult {
	failWith := func(err error) *mcp.CallToolResult {
		if t.Errors != nil {
			return t.Errors(err)
		}
		return errorResult(err)
	}
	fail := func(msg string) *mcp.CallToolResult { return failWith(refusal(msg)) }
	id, ok := IdentityFrom(ctx)
	if !ok || !id.allows(t) {
		return fail(fmt.Sprintf("tool %s is not available to this token", t.Name))
	}
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		if req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return fail("arguments: " + err.Error())
			}
			raw = b
		} else {
			raw = json.RawMessage("{}")
		}
	}
	if err := checkUTF8(raw); err != nil {
		return fail(err.Error())
	}
	out, err := t.Handle(ctx, &Env{Vault: v, ID: id, Tool: t.Name}, raw)
	if err != nil {
		return failWith(err)
	}
	if res, ok := out.(*mcp.CallToolResult); ok {
		return res // a tool family with its own result format (hindsight)
	}
	return jsonResult(out)
}

func jsonResult(v any) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		return mcp.NewToolResultError("encode result: " + err.Error())
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), string(b))
}

// refusal is a call refused before its handler ran (the token, the
// arguments' encoding): its text is told as it is.
type refusal string

func (r refusal) Error() string { return string(r) }

// errorResult maps an error to an isError result. A version conflict also
// carries the current token as structured content, so a client can retry.
func errorResult(err error) *mcp.CallToolResult {
	var ce *vault.ConflictError
	if errors.As(err, &ce) {
		res := mcp.NewToolResultError(ce.Error())
		res.StructuredContent = map[string]any{"error": "versionConflict", "currentVersionToken": ce.Current, "message": ce.Error()}
		return res
	}
	var ae *vault.ArgError
	if errors.As(err, &ae) {
		return mcp.NewToolResultError(ae.Error())
	}
	var be *vault.BusyError
	if errors.As(err, &be) {
		res := mcp.NewToolResultError(be.Error())
		res.StructuredContent = map[string]any{"error": "busy", "retryAfterSeconds": int(be.RetryAfter.Round(time.Second) / time.Second), "message": be.Error()}
		return res
	}
	var rf refusal
	if errors.As(err, &rf) {
		return mcp.NewToolResultError(string(rf))
	}
	if errors.Is(err, vault.ErrForbidden) {
		return mcp.NewToolResultError(err.Error())
	}
	return mcp.NewToolResultError("internal error: " + err.Error())
}
