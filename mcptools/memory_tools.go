package mcptools

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/cairn-dev/cairn/vault"
)

// memoryTools are the gateway's tools for activity and the agent's
// private memory.
func memoryTools() []*Tool {
	return []*Tool{
		{
			Name: "start_session", Toolset: ToolsetGateway, Title: "Start a session", ReadOnly: true, Idempotent: true,
			Description: "Call first. In one answer: the user's profile (always: its observations, and the rest of the note as content), the projects you can reach, and with `project`: a compact index of it (note count, top-level folders), its pinned notes, knownValues (tags, types and categories in use, with counts), and the delta since your last visit (notes added, changed, renamed, deleted, or in a sync conflict with the other version in conflictCopy, each with who, how and when; a short summary on a first visit). Its only effect is moving your last-visit mark.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle from get_my_projects (optional)."}},
"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.SessionStart](),
			Handle: startSession,
		},
		{
			Name: "recent_activity", Toolset: ToolsetGateway, Title: "Recently changed notes", ReadOnly: true, Idempotent: true,
			Description: "The notes changed most recently, newest first, one entry per note: what changed (added, modified, deleted, renamed, or conflict: a sync found it changed on two clones and kept the other version whole in conflictCopy), who (principal; agent or human), how (the tool, an editor, or git), where (path) and when. Built from git history. `since` is a date or time; pages with nextCursor.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle from get_my_projects; default: everything you can read."},
"since":{"type":"string","description":"Only changes at or after this date (2026-11-01) or RFC 3339 time."},
"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Notes per page (default 20)."},
"cursor":{"type":"string","description":"nextCursor from the previous page."}},
"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.ActivityPage](),
			Handle: recentActivity,
		},
		{
			Name: "remember_about_user", Toolset: ToolsetGateway, Title: "Remember a fact about the user", Idempotent: true,
			Description: "Add a durable fact about the user (a preference, their context, how they work) to their private profile, as an observation under a category. Only this user's tokens ever see it. The same fact twice is kept once (status already_known).",
			Schema: `{"type":"object","properties":{
"category":{"type":"string","description":"A short label: preferences, work, communication, tools..."},
"observation":{"type":"string","description":"The fact, one line, 3 to 1,000 characters."}},
"required":["category","observation"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Remembered](),
			Handle: rememberAboutUser,
		},
		{
			Name: "remember_about_project", Toolset: ToolsetGateway, Title: "Remember a fact about a project", Idempotent: true,
			Description: "Add a fact about a project to the agent's private memory (class agent-memory): seen by this principal only, never listed as shared knowledge. For knowledge the team should share, use create_note. The same fact twice is kept once.",
			Schema: `{"type":"object","properties":{
"project":{"type":"string","description":"Project handle from get_my_projects."},
"category":{"type":"string","description":"A short label (default general)."},
"observation":{"type":"string","description":"The fact, one line, 3 to 1,000 characters."}},
"required":["project","observation"],"additionalProperties":false}`,
			Output: reflect.TypeFor[vault.Remembered](),
			Handle: rememberAboutProject,
		},
	}
}

func rememberAboutUser(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Category    string `json:"category"`
		Observation string `json:"observation"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("observation", a.Observation); err != nil {
		return nil, err
	}
	return e.Vault.RememberAboutUser(e.Caller(), a.Category, a.Observation)
}

func rememberAboutProject(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project     string `json:"project"`
		Category    string `json:"category"`
		Observation string `json:"observation"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := required("project", a.Project); err != nil {
		return nil, err
	}
	if err := required("observation", a.Observation); err != nil {
		return nil, err
	}
	return e.Vault.RememberAboutProject(e.Caller(), a.Project, a.Category, a.Observation)
}

func recentActivity(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project string `json:"project"`
		Since   string `json:"since"`
		Limit   *int   `json:"limit"`
		Cursor  string `json:"cursor"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	limit, err := optionalCount("limit", a.Limit, 1, vault.MaxActivityLimit)
	if err != nil {
		return nil, err
	}
	return fitPage(e, limit, func(limit int) (*vault.ActivityPage, error) {
		return e.Vault.RecentActivity(e.Caller(), a.Project, a.Since, limit, a.Cursor)
	})
}

func startSession(ctx context.Context, e *Env, raw json.RawMessage) (any, error) {
	var a struct {
		Project string `json:"project"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	return e.Vault.StartSession(e.Caller(), a.Project)
}
