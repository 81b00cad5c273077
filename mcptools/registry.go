package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
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
	// Output is the type whose JSON the handler returns as structured
	// content: the tool's outputSchema is made from it (outputschema.go).
	// Nil for a family whose replies are text only (hindsight).
	Output reflect.Type
	output json.RawMessage // the outputSchema, made by Registry.add
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
	Who   Caller // who the call acts for, as the transport authenticated it
	Tool  string
	// MaxReply is the bound on the reply (bound.go), for the tools that
	// page what they return by it.
	MaxReply int
}

// Caller is who the call acts for as the vault sees it (Who, with the
// tool named for the commit trailers).
func (e *Env) Caller() access.Caller { return e.Who.caller(e.Tool) }

// Registry holds every tool of the server.
type Registry struct {
	tools map[string]*Tool
	order []string
	// MaxReply bounds each reply in bytes (bound.go); 0 means
	// DefaultMaxReply. Set before serving.
	MaxReply int
}

func (r *Registry) maxReply() int {
	if r.MaxReply > 0 {
		return r.MaxReply
	}
	return DefaultMaxReply
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
	if t.Output != nil {
		out, err := outputSchema(t.Output)
		if err != nil {
			panic(fmt.Sprintf("tool %s: %v", t.Name, err))
		}
		t.output = out
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
	tool.RawOutputSchema = t.output
	return tool
}

// Instructions are sent at initialize: the working order the seed recommends.
const Instructions = `cairn serves a shared Markdown vault kept in git. Suggested order: start_session (when available) or whoami → get_my_projects → list_notes / recent_activity to browse → search / recall before writing → create_note, remember_*, edit_note, link to write. Writes need the versionToken from a recent get_note; on versionConflict, read the note again and retry.`

// NewServer makes the MCP server for a vault open in this process.
func NewServer(v *vault.Vault, reg *Registry, version string) *server.MCPServer {
	return NewFrontServer(Local{Vault: v, Reg: reg}, reg, version)
}

// Backend runs the tool calls a front end receives: Local, against a vault
// open in this process, or the process hosting the vault (package host),
// which checks the caller again itself.
type Backend interface {
	CallTool(ctx context.Context, id Caller, tool string, args json.RawMessage) *mcp.CallToolResult
}

// NewFrontServer makes the MCP server a client talks to. Which tools a
// request sees and may call is decided in one place, the tool filter, from
// the caller the transport put in the request's context; the calls go
// to b.
func NewFrontServer(b Backend, reg *Registry, version string) *server.MCPServer {
	filter := func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		id, ok := CallerFrom(ctx)
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
			id, ok := CallerFrom(ctx)
			if !ok || !id.allows(t) {
				return t.fail(refusal(fmt.Sprintf("tool %s is not available to this token", t.Name))), nil
			}
			raw, err := rawArguments(req)
			if err != nil {
				return t.fail(refusal("arguments: " + err.Error())), nil
			}
			return b.CallTool(ctx, id, t.Name, raw), nil
		})
	}
	return s
}

// rawArguments is a call's arguments as JSON ("{}" when absent).
func rawArguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	if raw := req.Params.RawArguments; len(raw) > 0 {
		return raw, nil
	}
	if req.Params.Arguments != nil {
		return json.Marshal(req.Params.Arguments)
	}
	return json.RawMessage("{}"), nil
}

// Local runs tool calls against a vault open in this process.
type Local struct {
	Vault *vault.Vault
	Reg   *Registry
}

// CallTool runs one tool: access, argument checks, the handler, and the
// mapping of every failure to an isError result that says why.
func (l Local) CallTool(ctx context.Context, id Caller, tool string, raw json.RawMessage) *mcp.CallToolResult {
	res := l.call(ctx, id, tool, raw)
	if t := l.Reg.Get(tool); t != nil && replyCheck != nil {
		replyCheck(t, res)
	}
	return res
}

func (l Local) call(ctx context.Context, id Caller, tool string, raw json.RawMessage) *mcp.CallToolResult {
	t := l.Reg.Get(tool)
	if t == nil {
		return errorResult(refusal(fmt.Sprintf("tool %s: no such tool", tool)))
	}
	if !id.allows(t) {
		return t.fail(refusal(fmt.Sprintf("tool %s is not available to this token", t.Name)))
	}
	if err := checkUTF8(raw); err != nil {
		return t.fail(refusal(err.Error()))
	}
	out, err := t.Handle(ctx, &Env{Vault: l.Vault, Who: id, Tool: t.Name, MaxReply: l.Reg.maxReply()}, raw)
	if err != nil {
		return t.fail(err)
	}
	if res, ok := out.(*mcp.CallToolResult); ok {
		return boundText(res, l.Reg.maxReply()) // a tool family with its own result format (hindsight)
	}
	return boundedResult(out, l.Reg.maxReply())
}

// Fail is the tool's answer to a call that failed with err, in the tool
// family's own error format.
func (r *Registry) Fail(tool string, err error) *mcp.CallToolResult {
	if t := r.Get(tool); t != nil {
		return t.fail(err)
	}
	return errorResult(err)
}

func (t *Tool) fail(err error) *mcp.CallToolResult {
	if t.Errors != nil {
		return t.Errors(err)
	}
	return errorResult(err)
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
	var gb *gitstore.GitBusyError
	if errors.As(err, &gb) {
		// A person's git operation in the vault: nothing was written, and
		// the same call may be made again once it is over.
		err = &UnavailableError{Reason: gb.Error(), RetryAfter: 5 * time.Second}
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		res := mcp.NewToolResultError(ue.Error())
		res.StructuredContent = map[string]any{"error": "unavailable", "retryAfterSeconds": max(1, int(ue.RetryAfter.Round(time.Second)/time.Second)), "mayHaveRun": ue.MayHaveRun, "message": ue.Error()}
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

// UnavailableError says a call could not be answered because the process
// hosting the vault could not be reached: it exited during the call
// (MayHaveRun: a write may have landed; read before writing again), or no
// process could host the vault in time. The client may retry.
type UnavailableError struct {
	Reason     string
	RetryAfter time.Duration
	MayHaveRun bool
}

func (e *UnavailableError) Error() string { return e.Reason }
